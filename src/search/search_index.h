/*-------------------------------------------------------------------------
 * src/search/search_index.h
 *	  A search index as the write point and searches use it: its schema,
 *	  its storage table and that table's columns and indexes, loaded from
 *	  ots.search_indexes, checked against the storage, and cached
 *	  (search_index.c), and a row's entry there (search_entry.c).
 *
 * A search index of table s.t is kept in a table of its own beside t's
 * storage, s."t$search$<index>" (cut when long: SEARCH_STORAGE_INFIX),
 * owned by t's owner: t's primary-key columns (its primary key), then a
 * column per field, then the entry's times (search/schema.h).
 * Each row of t has exactly one row there, in the same transaction.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_INDEX_H
#define OTS_SEARCH_INDEX_H

#include "postgres.h"
#include "access/attnum.h"
#include "storage/lockdefs.h"
#include "utils/snapshot.h"

#include "format/value.h"
#include "meta/catalog.h"
#include "search/schema.h"
#include "utils/jsonb.h"

/*
 * a search index's storage is its table's name, this, and the index's name;
 * past PostgreSQL's 63 bytes, the table's first SEARCH_STORAGE_TABLE_PART
 * bytes, this, as much of the index's name as fits and "$" and a hash of
 * both names (ots.search_indexes.storage_name says which it is)
 */
#define SEARCH_STORAGE_INFIX	"$search$"
#define SEARCH_STORAGE_TABLE_PART	24

/* search_storage_name: the storage's name, the same for the same names on every machine */
extern char *search_storage_name(const char *table, const char *index_name);

typedef struct SearchIndex
{
	Oid			storage_oid;	/* the cache's key */
	bool		valid;
	Oid			base_data_oid;	/* the storage of the table it was checked for */
	MemoryContext cxt;			/* the schema's and these arrays' memory */
	char		index_name[NAMEDATALEN];
	int64		time_to_live;	/* seconds, -1 forever */
	TransactionId ready_xmin;	/* its catalog row's: the creating transaction's, or a later change's */
	bool		building;		/* sync phase FULL: a background build is filling it */
	char	   *brother;		/* the index made from it, or it was made from (NULL: none) */
	int			weight;			/* of its searches, its share (query_flow_weights; -1: all) */
	int			brother_weight; /* and its brother's */
	SearchSchema schema;
	int			npk;
	Oid			key_index;		/* the storage's primary key */
	AttrNumber *field_attnos;	/* per top-level field: its column */
	AttrNumber *positions_attnos;	/* per TEXT field: its positions' column, else 0 */
	AttrNumber	row_ts_attno;	/* the entry's times (schema.h) */
	AttrNumber	ts_attno;
	AttrNumber	fields_ts_attno;
	int			nindexes;		/* every index of the storage ready for inserts, the key first */
	Oid		   *index_oids;
} SearchIndex;

/*
 * search_index_get: the search index of t stored in storage_oid, its
 * storage locked in lockmode (RowExclusiveLock to write it) until the
 * transaction ends, loaded and checked; data_corrupted when its catalog
 * row or storage is not what create_search_index makes
 */
extern const SearchIndex *search_index_get(const OtsTable *t, Oid storage_oid, LOCKMODE lockmode);

/* search_index_named: the search index of t named index_name (search_index_get), NULL when there is none */
extern const SearchIndex *search_index_named(const OtsTable *t, const char *index_name, LOCKMODE lockmode);

/*
 * search_index_visible: may a reader with snapshot (NULL: the latest) take
 * si's entries for its rows (is it built, and was the transaction that
 * filled it, or last changed its catalog row, committed before snapshot)?
 */
extern bool search_index_visible(const SearchIndex *si, Snapshot snapshot);

/*
 * search_entry_values: the values of si's storage columns for a row of
 * t with primary key pk and cells (inline, or a split row's whole view):
 * the key, then each field's value; a field the row lacks, or holds in
 * a value the field's type does not take, is null (the row stays, as
 * Tablestore keeps a row with a "dirty" field); then the entry's times.
 * values and isnull have the storage's natts.
 */
extern void search_entry_values(const OtsTable *t, const SearchIndex *si, const OtsValue *pk,
								const struct varlena *cells, Datum *values, bool *isnull);

/* search_json_parse: s (len bytes) as jsonb, NULL when it is no JSON text (never an error) */
extern Jsonb *search_json_parse(const char *s, int len);

/* search_value_integral: a number's text ("-12", "12.000") as an int64; false if it is none */
extern bool search_value_integral(const char *digits, int64 *out);

/* search_entry_key: the key columns' values of a row with primary key pk (values[0 .. npk)) */
extern void search_entry_key(const OtsTable *t, const OtsValue *pk, Datum *values, bool *isnull);

#endif							/* OTS_SEARCH_INDEX_H */
