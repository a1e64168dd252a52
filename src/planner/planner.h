/*-------------------------------------------------------------------------
 * src/planner/planner.h
 *	  What ots tells PostgreSQL's planner about ots storage (planner.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_PLANNER_H
#define OTS_PLANNER_H

#include "nodes/parsenodes.h"

/*
 * planner_reads_columns: does the query (or a subquery of it) read a column
 * numbered lowest..highest of its relation rti (0: the whole row; below 0:
 * system columns)?
 */
extern bool planner_reads_columns(Query *query, Index rti, AttrNumber lowest,
								  AttrNumber highest);

/* planner_init installs the planner hook; called from _PG_init */
extern void planner_init(void);

#endif							/* OTS_PLANNER_H */
