/*-------------------------------------------------------------------------
 * src/ddl/guard_publication.h
 *	  What may be published of a database with ots
 *	  (src/ddl/guard_publication.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_GUARD_PUBLICATION_H
#define OTS_GUARD_PUBLICATION_H

#include "postgres.h"

#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"

/*
 * guard_publication_check checks what CREATE PUBLICATION (pubname NULL,
 * action AP_SetObjects) or ALTER PUBLICATION pubname ADD, SET or DROP
 * publishes
 */
extern void guard_publication_check(const char *pubname, List *pubobjects, bool all_tables,
									AlterPublicationAction action);

/*
 * guard_publication_check_index refuses a new index whose storage a
 * publication of its whole schema would take in
 */
extern void guard_publication_check_index(Oid nsp, const char *index);

/* guard_publication_move_leaf: a leaf of an index's storage moved into a schema published whole */
extern void guard_publication_move_leaf(Oid leaf, const char *schema);

#endif							/* OTS_GUARD_PUBLICATION_H */
