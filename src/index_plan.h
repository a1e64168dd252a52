/*-------------------------------------------------------------------------
 * src/index_plan.h
 *	  A query on a table's view by indexed columns, planned through the
 *	  secondary index (index_plan.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_INDEX_PLAN_H
#define OTS_INDEX_PLAN_H

#include "postgres.h"
#include "nodes/parsenodes.h"

/* the functions of a view's columns an index can serve, looked up once per statement */
typedef struct IndexPlanFuncs
{
	Oid			row_attribute_text; /* attributes ->> 'name', after attribute pushdown */
	Oid			row_string;		/* a typed String column */
	Oid			row_integer;	/* a typed Integer column */
} IndexPlanFuncs;

/*
 * index_plan_view adds, to the subquery of view rti (of the table whose
 * storage is storage_oid) at this query level, the semi-join with the
 * index that serves the level's equalities best, if any does; after
 * attribute pushdown made attributes ->> 'name' the view's columns.
 */
extern void index_plan_view(Query *query, Index rti, RangeTblEntry *rte,
							const IndexPlanFuncs *funcs, Oid storage_oid);

#endif							/* OTS_INDEX_PLAN_H */
