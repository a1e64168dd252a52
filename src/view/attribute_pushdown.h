/*-------------------------------------------------------------------------
 * src/view/attribute_pushdown.h
 *	  attributes ->> 'name' over a table's view, planned as one column read
 *	  from the cells (attribute_pushdown.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ATTRIBUTE_PUSHDOWN_H
#define OTS_ATTRIBUTE_PUSHDOWN_H

#include "postgres.h"
#include "nodes/parsenodes.h"

/*
 * attribute_pushdown rewrites a statement in place before it is planned;
 * true when a plan through an index the latest transactions made is good
 * only for snapshots that see it (PostgreSQL's transient plan: a cached one
 * is made again when the transaction's xmin moves)
 */
extern bool attribute_pushdown(Query *query);

#endif							/* OTS_ATTRIBUTE_PUSHDOWN_H */
