/*-------------------------------------------------------------------------
 * src/query_walk.c
 *	  Questions asked of a query tree by walking it, for the planner's
 *	  rewrites and the key scan: which columns of a relation a query reads.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"

#include "query_walk.h"

typedef struct ColumnUse
{
	Index		rti;
	AttrNumber	lowest;
	AttrNumber	highest;
	int			sublevels_up;
} ColumnUse;

static bool
query_walk_column_use(Node *node, ColumnUse *use)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		return var->varno == use->rti && var->varlevelsup == use->sublevels_up &&
			var->varattno >= use->lowest && var->varattno <= use->highest;
	}
	if (IsA(node, Query))
	{
		bool		found;

		use->sublevels_up++;
		found = query_tree_walker((Query *) node, query_walk_column_use, use, 0);
		use->sublevels_up--;
		return found;
	}
	return expression_tree_walker(node, query_walk_column_use, use);
}

bool
query_walk_reads_columns(Query *query, Index rti, AttrNumber lowest, AttrNumber highest)
{
	ColumnUse	use = {rti, lowest, highest, 0};

	return query_tree_walker(query, query_walk_column_use, &use, 0);
}
