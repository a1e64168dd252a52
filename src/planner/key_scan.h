/*-------------------------------------------------------------------------
 * src/planner/key_scan.h
 *	  The ots key scan: the rows of one partition key of ots storage, read
 *	  from its leaf routed in C (key_scan.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_KEY_SCAN_H
#define OTS_KEY_SCAN_H

#include "postgres.h"
#include "nodes/pathnodes.h"

/* key_scan_init registers the custom scan; called from _PG_init */
extern void key_scan_init(void);

/* get_relation_info_hook: plan this storage relation as a key scan? */
extern void key_scan_relation_info(PlannerInfo *root, Oid relid, bool inhparent,
								   RelOptInfo *rel);

/* set_rel_pathlist_hook: the key scan path of a relation chosen above */
extern void key_scan_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
							  RangeTblEntry *rte);

/* key_scan_forget_choices / key_scan_restore_choices bracket one planner call */
extern List *key_scan_forget_choices(void);
extern void key_scan_restore_choices(List *saved);

#endif							/* OTS_KEY_SCAN_H */
