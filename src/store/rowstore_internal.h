/*-------------------------------------------------------------------------
 * src/store/rowstore_internal.h
 *	  What rowstore.c (one row) and rowstore_bulk.c (many rows) share:
 *	  direct access to a leaf's columns and indexes, on its entry in the
 *	  per-leaf cache (store/leaf.h).  Only those two files include it.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROWSTORE_INTERNAL_H
#define OTS_ROWSTORE_INTERNAL_H

#include "postgres.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "utils/rel.h"

#include "asrole.h"
#include "store/leaf.h"
#include "store/rowstore.h"

/* rowstore_open_indexes and rowstore_close_indexes: the leaf's indexes in rri, as ExecOpenIndices does */
extern void rowstore_open_indexes(Relation leaf, LeafCache *lp, ResultRelInfo *rri);
extern void rowstore_close_indexes(ResultRelInfo *rri);

/* rowstore_index_code_begin/end: run the code of the leaf's indexes as the table's owner */
extern bool rowstore_index_code_begin(const OtsTable *t, const LeafCache *lp, AsRole *saved);
extern void rowstore_index_code_end(bool switched, const AsRole *saved);

/* rowstore_fill_slot: the same stored in a virtual slot of the leaf the caller made */
extern TupleTableSlot *rowstore_fill_slot(TupleTableSlot *slot, const LeafCache *lp, int nkeys,
										  const Datum *key, TupleTableSlot *base,
										  struct varlena *cells, int64 oldest_ts);

#endif							/* OTS_ROWSTORE_INTERNAL_H */
