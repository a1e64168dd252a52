/*-------------------------------------------------------------------------
 * src/ddl/ddl_guard.h
 *	  What the storage guard (src/ddl/ddl_guard.c) lends to the rest of ots.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_DDL_GUARD_H
#define OTS_DDL_GUARD_H

#include "postgres.h"

/*
 * ddl_guard_check_partitions applies ATTACH PARTITION's shape rules to
 * every partition of storage: an error for the first one ots would not have
 * let attach to registered storage.
 */
extern void ddl_guard_check_partitions(Oid storage);

/*
 * ddl_guard_check_index_unpublished refuses a new index whose storage a
 * publication of its whole schema (or database) would take in
 */
extern void ddl_guard_check_index_unpublished(Oid nsp, const char *index);

/* ddl_guard_is_storage: is relid the storage table of a registered ots table, or a leaf of it? */
extern bool ddl_guard_is_storage(Oid relid);

#endif							/* OTS_DDL_GUARD_H */
