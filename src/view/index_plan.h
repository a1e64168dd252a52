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
 * pushdown made attributes ->> 'name' the view's columns.  Whether it did;
 * *transient set when the index is one a snapshot still held may not see
 * (made after the oldest xmin: a cached plan is made again for another).
 */
extern bool index_plan_view(Query *query, const OtsView *view, const OtsViewFuncs *funcs, bool *transient);

/*
 * What the plans through indexes (this one, search_plan.c) share:
 * index_plan_value, may expr go into the view as a value compared (one the
 * statement fixes before it reads a row)?  index_plan_storage_checked, does
 * the plan check SELECT on every column of the table's storage an index is
 * computed from?  index_plan_semijoin, the view's condition (k1, ..., kn)
 * IN (SELECT k1, ..., kn FROM relid WHERE quals) on the table's key columns,
 * quals on Vars of varno 1 (relid's columns, named alias), storage_rti the
 * view's storage; NULL if relid lacks a key column.
 */
extern bool index_plan_value(Node *expr);
extern bool index_plan_storage_checked(const OtsView *view);
extern Node *index_plan_semijoin(const OtsTable *base, Oid relid, char relkind, List *quals, Index storage_rti,
								 const char *alias);

#endif							/* OTS_INDEX_PLAN_H */
