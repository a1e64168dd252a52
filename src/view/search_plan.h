/*-------------------------------------------------------------------------
 * src/view/search_plan.h
 *	  A query on a table's view by conditions a search index serves,
 *	  planned through the index (search_plan.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_SEARCH_PLAN_H
#define OTS_SEARCH_PLAN_H

#include "postgres.h"
#include "nodes/parsenodes.h"

#include "view/view_shape.h"

/*
 * search_plan_view adds, to the subquery of a table's view at this query
 * level, the semi-join with the search index that serves the most of the
 * level's conditions on the view's typed columns; whether it did (and
 * *transient, as index_plan_view)
 */
extern bool search_plan_view(Query *query, const OtsView *view, const OtsViewFuncs *funcs, bool *transient);

#endif							/* OTS_SEARCH_PLAN_H */
