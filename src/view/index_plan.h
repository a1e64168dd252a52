/*-------------------------------------------------------------------------
 * src/view/index_plan.h
 *	  A query on a table's view by indexed columns, planned through the
 *	  secondary index (index_plan.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_INDEX_PLAN_H
#define OTS_INDEX_PLAN_H

#include "postgres.h"
#include "nodes/parsenodes.h"

#include "view/view_shape.h"

/*
 * index_plan_view adds, to the subquery of a table's view at this query
 * level, the semi-join with the index that serves the level's equalities
 * best, if one holds every row the level can return; after attribute
 * pushdown made attributes ->> 'name' the view's columns.
 */
extern void index_plan_view(Query *query, const OtsView *view, const OtsViewFuncs *funcs);

#endif							/* OTS_INDEX_PLAN_H */
