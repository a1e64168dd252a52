/*-------------------------------------------------------------------------
 * src/view_write.h
 *	  INSERT, UPDATE, DELETE and COPY on an ots table's view (view_write.c)
 *	  and how they are planned (view_plan.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_VIEW_WRITE_H
#define OTS_VIEW_WRITE_H

#include "nodes/parsenodes.h"

/* view_write_init installs the executor hook that tells the trigger its statement */
extern void view_write_init(void);

/*
 * view_plan_dml prepares a statement writing an ots table's view before it
 * is planned: UPDATE and DELETE lock the rows they read, INSERT ... ON
 * CONFLICT is checked and left to the trigger.
 */
extern void view_plan_dml(Query *parse);

#endif							/* OTS_VIEW_WRITE_H */
