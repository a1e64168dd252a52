/*-------------------------------------------------------------------------
 * src/ddl/guard_leaf.h
 *	  The storage guard's rules for DDL that changes which rows a table has
 *	  below the write point (src/ddl/guard_leaf.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_GUARD_LEAF_H
#define OTS_GUARD_LEAF_H

#include "postgres.h"

#include "nodes/parsenodes.h"
#include "storage/lockdefs.h"

/* guard_leaf_attach_lock takes the locks ATTACH PARTITION takes, in its order */
extern Oid	guard_leaf_attach_lock(Oid storage, RangeVar *part);

/* guard_leaf_check_attach refuses to attach part to storage unless shaped as ots makes leaves */
extern void guard_leaf_check_attach(Oid storage, Oid part);

/* guard_leaf_check_partitions: guard_leaf_check_attach for each partition of storage */
extern void guard_leaf_check_partitions(Oid storage);

/* guard_leaf_check_rows: the rows of part join registered storage below the write point */
extern void guard_leaf_check_rows(Oid storage, Oid part, bool join);

/* guard_leaf_check_unlogged refuses an unlogged leaf of a table that keeps anything by its rows */
extern void guard_leaf_check_unlogged(Oid storage);

/* guard_leaf_detach: DETACH PARTITION of a leaf of registered storage */
extern void guard_leaf_detach(Oid storage, PartitionCmd *cmd, bool finalize);

/* guard_leaf_leaving: the rows of leaf are about to leave the storage of its table */
extern void guard_leaf_leaving(Oid storage, Oid leaf, LOCKMODE storage_lock, const char *what);

#endif							/* OTS_GUARD_LEAF_H */
