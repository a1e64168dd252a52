/*-------------------------------------------------------------------------
 * src/routing.h
 *	  Where a row lives: the hash prefix of its partition key and the leaf
 *	  partition that holds it.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROUTING_H
#define OTS_ROUTING_H

#include "postgres.h"
#include "storage/itemptr.h"
#include "utils/rel.h"

#include "catalog.h"
#include "codec.h"

/* the storage key of one row: "$hash" (when prefixed) and the pk datums */
typedef struct RowKey
{
	const OtsTable *t;
	Oid			leaf_oid;
	int			nkeys;
	Datum		values[OTS_MAX_PK_COLUMNS + 1];
	Oid			types[OTS_MAX_PK_COLUMNS + 1];
	ItemPointerData tid;		/* the row version rowstore_fetch read */
	bool		found;
	struct varlena *old_cells;	/* its cells, as rowstore_fetch returned them */
} RowKey;

/*
 * routing_hash_prefix is the integer value of the first n hex digits of
 * the MD5 of a partition-key value (String: its UTF-8 bytes; Integer: its
 * decimal text; Binary: its bytes).
 */
extern int64 routing_hash_prefix(const OtsValue *v, int n);

/* routing_key_column names stored key column k ("$hash" first on prefixed tables) */
extern const char *routing_key_column(const OtsTable *t, int k);

/* routing_pk_datum converts a pk value to its storage Datum and type */
extern Datum routing_pk_datum(const OtsValue *v, Oid *type);

/*
 * routing_leaves finds the leaf partition of t's storage that holds each of
 * n first stored key values, taking AccessShareLock on the storage table.
 */
extern void routing_leaves(const OtsTable *t, int n, const Datum *partvalues, Oid *leaves);

/*
 * routing_key builds the storage key of a complete primary key (no INF or
 * auto-increment placeholders) and finds its leaf, taking AccessShareLock
 * on the storage table.
 */
extern void routing_key(const OtsTable *t, const PkInput *pk, RowKey *key);

#endif							/* OTS_ROUTING_H */
