/*-------------------------------------------------------------------------
 * src/ots_limits.h
 *	  Every Tablestore limit ots enforces, named once (docs/reference.md, Limits).
 *
 * Code refers to these names only; docs/reference.md's limits table lists
 * them.  The install script's PL/pgSQL reads them through ots.limit
 * (ots_limits.c), so SQL spells no limit either.  The options' defaults
 * are not limits: ots.create_table's signature (src/sql/30_tables.sql) is
 * their one place.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_LIMITS_H
#define OTS_LIMITS_H

#define OTS_MAX_NAME_LEN			255		/* table and column names, bytes */
#define OTS_MIN_PK_COLUMNS			1
#define OTS_MAX_PK_COLUMNS			4
#define OTS_MAX_DEFINED_COLUMNS		32		/* predefined columns of a table */
#define OTS_MAX_INDEXES				5		/* secondary indexes of a table */
#define OTS_MAX_INDEX_PK_COLUMNS	4		/* index key columns a user names */
#define OTS_MAX_INDEX_ATTR_COLUMNS	32		/* defined columns an index covers */
/* an index's key: its own columns, then the base key's others; arrays are this large */
#define OTS_MAX_KEY_COLUMNS			(OTS_MAX_INDEX_PK_COLUMNS + OTS_MAX_PK_COLUMNS)
#define OTS_MAX_PK_VALUE_LEN		1024	/* String/Binary primary-key value, bytes */
#define OTS_MAX_ATTR_VALUE_LEN		2097152 /* String/Binary attribute value, bytes */
#define OTS_MAX_COLUMNS_PER_WRITE	1024	/* attribute cells/ops in one write */
#define OTS_MAX_COLUMNS_TO_GET		1024
#define OTS_MAX_REQUEST_SIZE		4194304 /* data of a write request: put/update/delete_row, a whole batch_write_row */
#define OTS_MAX_BATCH_GET_ROWS		100
#define OTS_MAX_BATCH_WRITE_ROWS	200
#define OTS_MAX_RANGE_ROWS			5000	/* rows per GetRange page */
#define OTS_MAX_RANGE_BYTES			4194304 /* bytes per GetRange page */
#define OTS_MAX_FILTER_NODES		32
#define OTS_MAX_FILTER_REGEX_LEN	256		/* bytes of a regex filter's regex */
#define OTS_CU_BYTES				4096	/* one capacity unit */
#define OTS_MAX_TIMESTAMP			(PG_INT64_MAX / 1000)	/* exclusive, ms */
#define OTS_MAX_TIME_TO_LIVE		PG_INT32_MAX	/* seconds; -1 is forever */
#define OTS_MAX_VERSION_OFFSET		(PG_INT64_MAX / 1000000)	/* seconds */
#define OTS_MAX_HASH_PREFIX_LEN		8		/* hex digits of MD5 */
#define OTS_MAX_PARTITIONS			1024
#define OTS_FUZZY_TEXT_CHARS		1024	/* characters of a TEXT value the fuzzy analyzer reads */
#define OTS_MAX_FUZZY_CHARS			32		/* a fuzzy token's max_chars (ots's own bound) */
#define OTS_MAX_SPLIT_DELIMITER_CHARS	32	/* characters of the split analyzer's delimiter (ots's own bound) */
#define OTS_MAX_STREAM_EXPIRATION_HOURS	168 /* a stream keeps records this long at most */
#define OTS_MAX_STREAM_ORIGINAL_COLUMNS	32	/* a stream's original columns (ots's own limit) */
#define OTS_MAX_STREAM_ORIGINAL_BYTES	1024	/* their names' bytes in all (ots's own limit) */
#define OTS_MAX_STREAM_RECORDS		10000	/* records per GetStreamRecord */
#define OTS_MAX_STREAM_BYTES		4194304 /* bytes of records per GetStreamRecord */
#define OTS_MAX_SEARCH_INDEXES		16		/* search indexes of a table (ots's own limit; Tablestore has none) */
#define OTS_MAX_SEARCH_FIELDS		1000	/* fields of a search index, sub-fields included */
#define OTS_MAX_SEARCH_NESTED_DEPTH	5		/* levels of NESTED fields */
#define OTS_MAX_SEARCH_ARRAY_LEN	256		/* values of an array field, documents of a NESTED one */
#define OTS_MAX_SEARCH_KEYWORD_LEN	4096	/* bytes of a KEYWORD value an index keeps */
#define OTS_MAX_SEARCH_DATE_FORMATS	10		/* date_formats of a DATE field (ots's own limit) */
#define OTS_MAX_SEARCH_VECTOR_DIMENSION	4096	/* dimension of a VECTOR field's vectors (Tablestore's) */
#define OTS_MIN_SEARCH_TIME_TO_LIVE	86400	/* seconds; a search index's TTL is this or more, or -1 */
/* the fields a write of a split row loads for its table's search indexes; past them, the whole row */
#define OTS_MAX_SEARCH_LOADED_FIELDS	256
#define OTS_MAX_SEARCH_LOADED_BYTES	4096

#endif							/* OTS_LIMITS_H */
