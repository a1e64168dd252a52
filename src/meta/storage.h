/*-------------------------------------------------------------------------
 * src/meta/storage.h
 *	  The storage layout of an ots table: the one owner of how a table is
 *	  stored (relation and column names, the stored key and its types, the
 *	  hash prefix in front of it).  Every other module asks here.
 *
 * Storage layout of an ots table "s.t" (created by ots.create_table):
 *	 s."t$data"	partitioned table: [ "$hash" int8 when hash-prefixed ],
 *					pk columns (String text COLLATE "C", Integer int8,
 *					Binary bytea), "$cells" ots.cells, "$oldest_ts" int8;
 *					PRIMARY KEY ([ "$hash", ] pk columns); partitioned by
 *					HASH (first pk column), or by RANGE ("$hash") when
 *					hash-prefixed
 *	 s."t$p<i>"		its leaf partitions, using the table access method
 *					STORAGE_ACCESS_METHOD
 *	 s."t$seq"		sequence behind an AUTO_INCREMENT column
 *	 s."t$chunk"	the chunks of its split rows (docs/design.md, "Wide rows:
 *					heads and chunks"): an unpartitioned table using
 *					STORAGE_ACCESS_METHOD, the stored key columns as the
 *					storage has them, "$column" text COLLATE "C", "$ts"
 *					int8, "$cells" ots.cells (format version 1), "$oldest_ts"
 *					int8; PRIMARY KEY (stored key columns, "$column", "$ts")
 *	 s.t			view of the live rows: pk columns, attributes jsonb
 * (and a stream's "t$log" and "t$rec", stream_storage.h).  The relations
 * found by name beside the storage (the view, the sequence, the chunk
 * relation, the stream's) are the table's only when they have the
 * storage's owner (storage_is_part): any role may make a relation of such
 * a name.  "t$ttl" and "t$cttl" are the indexes on "$oldest_ts" of the
 * storage and the chunk relation while the table has a TTL (src/sql/50_expiry.sql).
 *
 * The stored key of a row is "$hash" (the first hash_prefix_len hex digits
 * of the MD5 of its partition key, as an integer) when the table is
 * hash-prefixed, then its primary-key columns.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_STORAGE_H
#define OTS_STORAGE_H

#include "postgres.h"
#include "executor/tuptable.h"
#include "storage/itemptr.h"

#include "meta/catalog.h"
#include "format/codec.h"

/* a table's storage, sequence and stream's log and records are its name plus these */
#define STORAGE_SUFFIX			"$data"
#define STORAGE_SEQUENCE_SUFFIX "$seq"
#define STORAGE_STREAM_LOG_SUFFIX "$log"
#define STORAGE_STREAM_REC_SUFFIX "$rec"
/* its chunk relation, and the TTL indexes of the storage and of the chunk relation */
#define STORAGE_CHUNK_SUFFIX	"$chunk"
#define STORAGE_TTL_SUFFIX		"$ttl"
#define STORAGE_CHUNK_TTL_SUFFIX "$cttl"
/*
 * and its leaves its name plus "$p<i>" (i < OTS_MAX_PARTITIONS), which the
 * longest table name leaves room for (NAMES_MAX_TABLE_LEN, src/format/names.h)
 */

/* the storage's own columns, beside the primary-key columns */
#define STORAGE_HASH_COLUMN		"$hash"
#define STORAGE_CELLS_COLUMN	"$cells"
#define STORAGE_OLDEST_TS_COLUMN "$oldest_ts"

/* the chunk relation's own key columns, after the stored key: a chunk's first cell */
#define STORAGE_CHUNK_COLUMN_COLUMN "$column"
#define STORAGE_CHUNK_TS_COLUMN "$ts"

/* the same names quoted, for SQL text (none of them needs escaping) */
#define STORAGE_QUOTED(name)	"\"" name "\""
#define STORAGE_HASH_SQL		STORAGE_QUOTED(STORAGE_HASH_COLUMN)
#define STORAGE_CELLS_SQL		STORAGE_QUOTED(STORAGE_CELLS_COLUMN)
#define STORAGE_OLDEST_TS_SQL	STORAGE_QUOTED(STORAGE_OLDEST_TS_COLUMN)
#define STORAGE_CHUNK_COLUMN_SQL STORAGE_QUOTED(STORAGE_CHUNK_COLUMN_COLUMN)
#define STORAGE_CHUNK_TS_SQL	STORAGE_QUOTED(STORAGE_CHUNK_TS_COLUMN)

/* the table access method of every storage leaf (src/sql/15_tableam.sql, src/writepoint/tableam.c) */
#define STORAGE_ACCESS_METHOD	"ots"

/* the stored key of one row, and where rowstore found it */
typedef struct RowKey
{
	const OtsTable *t;
	Oid			leaf_oid;
	int			nkeys;
	Datum		values[OTS_MAX_KEY_COLUMNS + 1];
	Oid			types[OTS_MAX_KEY_COLUMNS + 1];
	ItemPointerData tid;		/* the row version rowstore_fetch read */
	bool		found;
	struct varlena *old_cells;	/* its cells, as rowstore_fetch returned them */
	const struct StreamChange *change;	/* what the write is, for Stream (NULL: as stored) */
	struct RowSplit *split;		/* a split row's cells rowstore_fetch_row loaded (store/rowsplit.h) */
} RowKey;

/* storage_am_oid: the table access method of every leaf (ots, or heap at 0.1.0) */
extern Oid	storage_am_oid(void);

/*
 * storage_is_ots_leaf: is the relation on the ots table access method (a leaf
 * of ots storage)?  From pg_class alone, so callers that must not fail over
 * ots's catalog (the planner) can ask.
 */
extern bool storage_is_ots_leaf(Oid relid);

/* storage_nkeys: the number of stored key columns of t ("$hash" included) */
static inline int
storage_nkeys(const OtsTable *t)
{
	return t->npk + (t->hash_prefix_len > 0 ? 1 : 0);
}

/* storage_hash_prefix: the "$hash" of a partition-key value, for prefix length n */
extern int64 storage_hash_prefix(const OtsValue *v, int n);

/* storage_key_list: the first ncols stored key columns, quoted, comma-separated */
extern char *storage_key_list(const OtsTable *t, int ncols);

/* storage_key_column names stored key column k ("$hash" first on prefixed tables) */
extern const char *storage_key_column(const OtsTable *t, int k);

/* storage_key_type and storage_key_collation: the type and collation of stored key column k */
extern Oid	storage_key_type(const OtsTable *t, int k);
extern Oid	storage_key_collation(const OtsTable *t, int k);

/* storage_pk_datum: a primary-key value as its stored column's Datum, and that column's type */
extern Datum storage_pk_datum(const OtsValue *v, Oid *type);

/* storage_key: the stored key of the first npk columns of pk; returns its column count */
extern int	storage_key(const OtsTable *t, const PkInput *pk, int npk, Datum *values, Oid *types);

/* storage_key_row sets row i of column arrays keys[k][] to pk's stored key (the bulk writes) */
extern void storage_key_row(const OtsTable *t, const PkInput *pk, Datum **keys, int i);

/*
 * storage_leaf_key reads the primary key of a stored row, its stored key
 * columns at key_attnos, into pk[]; returns t->npk, or the position of the
 * first null key column
 */
extern int	storage_leaf_key(const OtsTable *t, const AttrNumber *key_attnos, TupleTableSlot *row,
							 OtsValue *pk);

/*
 * storage_leaf_key_whole: storage_leaf_key of a row ots stored or is about
 * to store, whose key has no null column (an internal error otherwise)
 */
extern void storage_leaf_key_whole(const OtsTable *t, const AttrNumber *key_attnos,
								   TupleTableSlot *row, OtsValue *pk);

/* storage_cells_type is the OID of type ots.cells, the type of "$cells" */
extern Oid	storage_cells_type(void);

/* storage_oid: the storage table of ots table table_name in schema nsp, or InvalidOid */
extern Oid	storage_oid(Oid nsp, const char *table_name);

/* the relations of an ots table found by name beside its storage: name suffix, what it is */
typedef struct StorageNamedPart
{
	const char *suffix;
	const char *what;
} StorageNamedPart;

#define STORAGE_NAMED_PARTS 5
extern const StorageNamedPart storage_named_parts[STORAGE_NAMED_PARTS];

/*
 * storage_is_part: is relation relid, named as a part of the ots table
 * stored in storage, that table's: has it the storage's owner?
 */
extern bool storage_is_part(Oid relid, Oid storage);

/*
 * storage_chunk_oid: the chunk relation beside storage (the storage table of
 * ots table table_name), the table's only with the storage's owner; InvalidOid
 * when there is none (a table of 0.2.0 before ALTER EXTENSION ots UPDATE)
 */
extern Oid	storage_chunk_oid(Oid storage, const char *table_name);

/*
 * storage_chunk_of: the storage table whose chunk relation relid is named
 * as (a partitioned "<table>$data" beside it with its owner), or InvalidOid
 */
extern Oid	storage_chunk_of(Oid relid);

/* storage_chunk_name: the quoted, qualified name of t's chunk relation */
extern char *storage_chunk_name(const OtsTable *t);

/* storage_name: the quoted, qualified name of t's storage table */
extern char *storage_name(const OtsTable *t);

/* storage_table_of: the table name relname (a storage or sequence name) is made from, or NULL */
extern char *storage_table_of(const char *relname, const char *suffix);

/*
 * A range scan of a table's storage in stored key order (storage_range.c):
 * open it over two bounds in a direction, read its rows, close it.
 */
typedef struct StorageRange StorageRange;

/* storage_range_compare orders two range bounds (INF allowed) in stored order */
extern int	storage_range_compare(const OtsTable *t, const PkInput *a, const PkInput *b);
extern StorageRange *storage_range_open(const OtsTable *t, const PkInput *start,
										const PkInput *end, bool backward);
extern bool storage_range_next(StorageRange *r, PkInput *pk, struct varlena **cells);
extern void storage_range_close(StorageRange *r);

#endif							/* OTS_STORAGE_H */
