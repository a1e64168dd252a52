/*-------------------------------------------------------------------------
 * src/meta/catalog_internal.h
 *	  What the catalog's files share beyond catalog.h: catalog.c (the cache)
 *	  loads through catalog_load.c, which checks an index's row through
 *	  catalog_check.c.  Only those files include it.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_CATALOG_INTERNAL_H
#define OTS_CATALOG_INTERNAL_H

#include "postgres.h"

#include "meta/catalog.h"

/* catalog_load fills cache entry t from ots.tables; on a miss, t->valid stays false */
extern void catalog_load(OtsTable *t, Oid view_oid);

/* catalog_check_index_of: is idx an index create_index could have made of t? */
extern void catalog_check_index_of(const OtsTable *t, const OtsTable *idx);

#endif							/* OTS_CATALOG_INTERNAL_H */
