/*-------------------------------------------------------------------------
 * src/query_walk.h
 *	  Questions asked of a query tree by walking it (query_walk.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_QUERY_WALK_H
#define OTS_QUERY_WALK_H

#include "nodes/parsenodes.h"

/*
 * query_walk_reads_columns: does the query (or a subquery of it) read a
 * column numbered lowest..highest of its relation rti (0: the whole row;
 * below 0: system columns)?
 */
extern bool query_walk_reads_columns(Query *query, Index rti, AttrNumber lowest,
									 AttrNumber highest);

#endif							/* OTS_QUERY_WALK_H */
