/*-------------------------------------------------------------------------
 * src/writepoint/row_guard.h
 *	  The guard on rows ots did not build (src/writepoint/row_guard.c):
 *	  every new row that reaches a leaf from anywhere but ots's row code is
 *	  checked before it is stored, so nothing reaches storage that ots
 *	  cannot read back or dump.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROW_GUARD_H
#define OTS_ROW_GUARD_H

#include "postgres.h"

#include "executor/tuptable.h"
#include "utils/rel.h"

#include "writepoint/storage_write.h"

/*
 * row_guard refuses a new row of leaf rel (as storage_write_leaf found it)
 * that is not what ots would have stored
 */
extern void row_guard(Relation rel, const StorageLeaf *leaf, TupleTableSlot *slot);

#endif							/* OTS_ROW_GUARD_H */
