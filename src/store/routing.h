/*-------------------------------------------------------------------------
 * src/store/routing.h
 *	  Where a row lives: the leaf partition that holds its stored key.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROUTING_H
#define OTS_ROUTING_H

#include "postgres.h"

#include "meta/storage.h"

/*
 * routing_leaves finds the leaf partition of t's storage that holds each of
 * n first stored key values, taking AccessShareLock on the storage table.
 */
extern void routing_leaves(const OtsTable *t, int n, const Datum *partvalues, Oid *leaves);

/*
 * routing_all_leaves returns the leaves of t's storage (n of them, palloc'd),
 * taking AccessShareLock on the storage table
 */
extern Oid *routing_all_leaves(const OtsTable *t, int *n);

/* routing_leaf_index: the place of leaf among routing_all_leaves' (bound order), -1 if none */
extern int	routing_leaf_index(const OtsTable *t, Oid leaf);

/*
 * routing_key builds the storage key of a complete primary key (no INF or
 * auto-increment placeholders) and finds its leaf, taking AccessShareLock
 * on the storage table.
 */
extern void routing_key(const OtsTable *t, const PkInput *pk, RowKey *key);

#endif							/* OTS_ROUTING_H */
