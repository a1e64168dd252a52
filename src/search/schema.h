/*-------------------------------------------------------------------------
 * src/search/schema.h
 *	  A search index's schema (Tablestore's IndexSchema): its fields, their
 *	  types and options, its routing fields and its presort, read from
 *	  jsonb and checked (schema.c), and how its storage keeps each field.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_SCHEMA_H
#define OTS_SEARCH_SCHEMA_H

#include "postgres.h"
#include "utils/jsonb.h"

#include "ots_limits.h"
#include "search/analyzer.h"

/* Tablestore's FieldType, with its numbers */
typedef enum SearchFieldType
{
	SEARCH_LONG = 1,
	SEARCH_DOUBLE = 2,
	SEARCH_BOOLEAN = 3,
	SEARCH_KEYWORD = 4,
	SEARCH_TEXT = 5,
	SEARCH_NESTED = 6,
	SEARCH_GEO_POINT = 7,
	SEARCH_DATE = 8,
	SEARCH_VECTOR = 9			/* kept in the schema only: no column, no query but knn (refused) */
} SearchFieldType;

/* a date format: one of the epoch units, or a pattern (y M d H m s S, X, literals) */
typedef enum SearchDateUnit
{
	SEARCH_DATE_PATTERN,
	SEARCH_EPOCH_SECOND,
	SEARCH_EPOCH_MILLIS,
	SEARCH_EPOCH_MICROS,
	SEARCH_EPOCH_NANOS
} SearchDateUnit;

typedef struct SearchDateFormat
{
	SearchDateUnit unit;
	const char *pattern;		/* SEARCH_DATE_PATTERN: as given */
} SearchDateFormat;

typedef struct SearchField
{
	const char *name;			/* a sub-field's own name, without its parent's */
	SearchFieldType type;
	bool		index;
	bool		sort_and_agg;	/* as given: describe says it (every field but TEXT and NESTED sorts) */
	bool		store;
	bool		is_array;
	bool		enable_highlighting;
	SearchAnalyzer analyzer;	/* TEXT */
	Jsonb	   *analyzer_parameter; /* TEXT: as given, NULL if none */
	int			ndate_formats;	/* DATE */
	SearchDateFormat *date_formats;
	int			nsub;			/* NESTED */
	struct SearchField *sub;
	int			pk_column;		/* a top-level field of a primary-key column: its number from 1, else 0 */
	int			vector_dimension;	/* VECTOR: vector_options */
	const char *vector_data_type;
	const char *vector_metric_type;
} SearchField;

/* search_field_kept: does the field have a column of its own in the storage (not a key's, not a VECTOR)? */
#define search_field_kept(f)	((f)->pk_column == 0 && (f)->type != SEARCH_VECTOR)

/* one key of the presort: a field's, or the primary key's (field NULL) */
typedef struct SearchSortKey
{
	const char *field;
	bool		descending;
	int			mode;			/* 0 none, 1 MIN, 2 MAX, 3 AVG (arrays) */
} SearchSortKey;

typedef struct SearchSchema
{
	int			nfields;
	SearchField *fields;
	int			nrouting;
	const char *routing[OTS_MAX_PK_COLUMNS];
	int			nsort;
	SearchSortKey *sort;
	bool		has_nested;
} SearchSchema;

struct OtsTable;

/*
 * search_schema_read reads and checks an IndexSchema for table t (its
 * routing fields are t's primary-key columns); OTSParameterInvalid,
 * naming what is wrong, for anything Tablestore refuses.  The result
 * points into schema.
 */
extern void search_schema_read(Jsonb *schema, const struct OtsTable *t, SearchSchema *out);

/* search_schema_jsonb: the schema as describe_search_index shows it, every default filled in */
extern Jsonb *search_schema_jsonb(const SearchSchema *s);

/* search_presort_jsonb: the presort as a search query's sorters, [] for none */
extern Jsonb *search_presort_jsonb(const SearchSchema *s);

/* search_field_find: the top-level field of that name, or NULL */
extern const SearchField *search_field_find(const SearchSchema *s, const char *name);

/* search_field_type_name: "LONG", "TEXT", ... */
extern const char *search_field_type_name(SearchFieldType type);

/*
 * How the storage keeps a field: a column of the field's name (TEXT: its
 * tokens, in order) and, for TEXT, SEARCH_POSITIONS_SUFFIX's column (their
 * positions; null beside tokens when they are 0, 1, 2, ..., as one value's
 * tokens mostly are: ots.search_phrase reads null so).  search_field_sql_type is the column's type as SQL spells it
 * and search_field_type_oid its OID.
 */
#define SEARCH_POSITIONS_SUFFIX "$pos"
extern const char *search_field_sql_type(const SearchField *f);
extern Oid	search_field_type_oid(const SearchField *f);

/*
 * The entry's times, after the fields' columns: what TTL hides by.
 * SEARCH_ROW_TS_COLUMN (int8) the row's newest timestamp, its marker's or a
 * cell's; SEARCH_TS_COLUMN (int8[]) per top-level field in schema order the
 * timestamp of the cell its value came from (null without one), itself null
 * when every field with a value has the same (a row written at once);
 * SEARCH_FIELDS_TS_COLUMN (int8) the oldest of those (null: none), so
 * that a search sees at one comparison that every field of an entry is live,
 * and where SEARCH_TS_COLUMN is null, that none is.
 */
#define SEARCH_ROW_TS_COLUMN	"$row_ts"
#define SEARCH_TS_COLUMN		"$ts"
#define SEARCH_FIELDS_TS_COLUMN "$fields_ts"

/* search_field_index_method: the index a field's column gets ("btree", "gin", "gist"), NULL for none */
extern const char *search_field_index_method(const SearchField *f);

#endif							/* OTS_SEARCH_SCHEMA_H */
