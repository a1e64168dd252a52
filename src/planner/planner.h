/*-------------------------------------------------------------------------
 * src/planner/planner.h
 *	  What ots tells PostgreSQL's planner about ots storage (planner.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_PLANNER_H
#define OTS_PLANNER_H

/* planner_init installs the planner hook; called from _PG_init */
extern void planner_init(void);

#endif							/* OTS_PLANNER_H */
