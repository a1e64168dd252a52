/*-------------------------------------------------------------------------
 * src/view/view_plan.h
 *	  How a statement writing an ots table's view is planned (view_plan.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_VIEW_PLAN_H
#define OTS_VIEW_PLAN_H

#include "nodes/parsenodes.h"

/*
 * view_plan_dml prepares a statement writing an ots table's view before it
 * is planned: UPDATE and DELETE lock the rows they write, INSERT ... ON
 * CONFLICT is checked and left to the trigger.
 */
extern void view_plan_dml(Query *parse);

#endif							/* OTS_VIEW_PLAN_H */
