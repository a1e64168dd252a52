/*-------------------------------------------------------------------------
 * src/planner/planner.c
 *	  What ots tells PostgreSQL's planner about ots storage: its hooks, which
 *	  hand statements to the attribute pushdown (attribute_pushdown.c) and
 *	  the key scan (key_scan.c), and two corrections of its own.
 *
 * Costs.  A prepared statement over a table's view or storage
 * (WHERE k1 = $1 ...) that the key scan does not take gets a generic plan
 * whose Append holds every leaf; run-time pruning keeps one of them, chosen
 * when the executor starts.  PostgreSQL 15 costs that Append as if every
 * leaf ran, so the plan cache finds the generic plan dearer than
 * re-planning the statement each time (a custom plan), and re-plans every
 * execution.  Storage is hash-partitioned, and hash pruning needs an
 * equality on every partition key column, so when a path's clauses give
 * one, exactly one leaf runs: its cost and rows are one leaf's.
 * planner_rel_pathlist says so, for ots storage only (leaves on the ots
 * access method), before PostgreSQL picks the cheapest path.  It scales the
 * leaves' own paths too, which also changes the costs partition-wise joins
 * would see (off by default).
 *
 * Estimates.  ots.row_exists, the row rule in every view's WHERE, gets a
 * support function: estimated true for every stored row (rows fail it only
 * past their TTL, and purge removes those), where PostgreSQL's default for
 * a boolean function is a third, which shrinks every estimate over a view.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "catalog/pg_class.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/plancat.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "partitioning/partdefs.h"
#include "utils/lsyscache.h"

#include "view/attribute_pushdown.h"
#include "planner/key_scan.h"
#include "planner/planner.h"
#include "meta/storage.h"
#include "view/view_plan.h"
#include "view/view_shape.h"

static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;
static get_relation_info_hook_type prev_get_relation_info_hook = NULL;
static planner_hook_type prev_planner_hook = NULL;

PG_FUNCTION_INFO_V1(ots_row_exists_support);

/*
 * planner_key_fixed: does an equality in clauses (RestrictInfos) fix
 * partition key column i to a value the executor knows before it scans
 * the relation (a parameter, an outer row's value), as run-time pruning
 * requires?
 */
static bool
planner_key_fixed(PlannerInfo *root, RelOptInfo *rel, int i, List *clauses)
{
	PartitionScheme scheme = rel->part_scheme;
	ListCell   *lc;

	foreach(lc, clauses)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		OpExpr	   *op = (OpExpr *) ri->clause;
		Node	   *left;
		Node	   *right;
		Node	   *other;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2 ||
			!op_in_opfamily(op->opno, scheme->partopfamily[i]) ||
			(OidIsValid(scheme->partcollation[i]) && scheme->partcollation[i] != op->inputcollid))
			continue;
		left = strip_implicit_coercions(linitial(op->args));
		right = strip_implicit_coercions(lsecond(op->args));
		if (list_member(rel->partexprs[i], left))
			other = right;
		else if (list_member(rel->partexprs[i], right))
			other = left;
		else
			continue;
		if (!bms_is_member(rel->relid, pull_varnos(root, other)) &&
			!contain_volatile_functions(other))
			return true;
	}
	return false;
}

/* planner_fixes_key: do clauses fix every partition key column of rel? */
static bool
planner_fixes_key(PlannerInfo *root, RelOptInfo *rel, List *clauses)
{
	for (int i = 0; i < rel->part_scheme->partnatts; i++)
		if (!planner_key_fixed(root, rel, i, clauses))
			return false;
	return true;
}

/* planner_scale makes a path cost and return what one leaf of n would */
static void
planner_scale(Path *path, int n)
{
	path->startup_cost /= n;
	path->total_cost /= n;
	path->rows = clamp_row_est(path->rows / n);
}

/*
 * planner_rel_pathlist costs an Append (or MergeAppend) over the leaves of
 * ots storage that run-time pruning cuts to one leaf as that one leaf: the
 * average of its children, since hashing spreads keys evenly, in cost and
 * in rows.  The Appends built so far are scaled, and so are the leaves' own paths, from which
 * PostgreSQL builds the Appends again when it applies the statement's
 * target list to a partitioned relation.  Paths the relation's own clauses
 * prune are concerned (a parameter of a prepared statement), and so are
 * parameterized Appends whose join clauses fix the key (the inner side of a
 * nested loop, pruned again for each outer row: a table's rows found
 * through a secondary index, index_plan.c); the leaves' parameterized paths
 * keep their costs.
 */
static void
planner_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	ListCell   *lc;
	int			n;
	int			i;

	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);
	key_scan_pathlist(root, rel, rti, rte);
	if (!enable_partition_pruning || rte->rtekind != RTE_RELATION ||
		rte->relkind != RELKIND_PARTITIONED_TABLE || rel->part_scheme == NULL ||
		rel->part_scheme->strategy != PARTITION_STRATEGY_HASH || rel->part_rels == NULL ||
		(n = bms_num_members(rel->live_parts)) <= 1)
		return;
	i = bms_next_member(rel->live_parts, -1);
	if (rel->part_rels[i] == NULL ||
		!storage_is_ots_leaf(planner_rt_fetch(rel->part_rels[i]->relid, root)->relid))
		return;
	/* the inner side of a nested loop whose join clauses fix the key: one leaf per outer row */
	foreach(lc, rel->pathlist)
	{
		Path	   *path = lfirst(lc);

		if ((IsA(path, AppendPath) || IsA(path, MergeAppendPath)) && path->param_info != NULL &&
			planner_fixes_key(root, rel, path->param_info->ppi_clauses))
			planner_scale(path, n);
	}
	if (!planner_fixes_key(root, rel, rel->baserestrictinfo))
		return;
	foreach(lc, rel->pathlist)
	{
		Path	   *path = lfirst(lc);

		if ((IsA(path, AppendPath) || IsA(path, MergeAppendPath)) && path->param_info == NULL)
			planner_scale(path, n);
	}
	rel->rows = clamp_row_est(rel->rows / n);
	i = -1;
	while ((i = bms_next_member(rel->live_parts, i)) >= 0)
	{
		RelOptInfo *leaf = rel->part_rels[i];

		if (leaf == NULL || IS_DUMMY_REL(leaf))
			continue;
		foreach(lc, leaf->pathlist)
		{
			Path	   *path = lfirst(lc);

			if (path->param_info == NULL)
				planner_scale(path, n);
		}
		foreach(lc, leaf->partial_pathlist)
			planner_scale(lfirst(lc), n);
		leaf->rows = clamp_row_est(leaf->rows / n);
	}
}

/* planner_relation_info: get_relation_info_hook, for the key scan */
static void
planner_relation_info(PlannerInfo *root, Oid relid, bool inhparent, RelOptInfo *rel)
{
	if (prev_get_relation_info_hook)
		prev_get_relation_info_hook(root, relid, inhparent, rel);
	key_scan_relation_info(root, relid, inhparent, rel);
}

/*
 * planner_plan: planner_hook, preparing writes of views (view_plan.c) and
 * rewriting view attribute reads (attribute_pushdown.c) first, and giving the key scan's choices their planner call
 */
static PlannedStmt *
planner_plan(Query *parse, const char *query_string, int cursor_options, ParamListInfo params)
{
	List	   *saved = key_scan_forget_choices();
	PlannedStmt *volatile result = NULL;

	PG_TRY();
	{
		bool		transient;

		view_plan_dml(parse);
		transient = attribute_pushdown(parse);
		if (prev_planner_hook)
			result = prev_planner_hook(parse, query_string, cursor_options, params);
		else
			result = standard_planner(parse, query_string, cursor_options, params);
		/* a plan through an index older snapshots do not see: planned again for them */
		if (transient)
			result->transientPlan = true;
	}
	PG_FINALLY();
	{
		key_scan_restore_choices(saved);
	}
	PG_END_TRY();
	return result;
}

void
planner_init(void)
{
	key_scan_init();
	view_shape_init();
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = planner_rel_pathlist;
	prev_get_relation_info_hook = get_relation_info_hook;
	get_relation_info_hook = planner_relation_info;
	prev_planner_hook = planner_hook;
	planner_hook = planner_plan;
}

/*
 * ots_row_exists_support is ots.row_exists's planner support: a stored row
 * is estimated to exist (selectivity 1).
 */
Datum
ots_row_exists_support(PG_FUNCTION_ARGS)
{
	Node	   *req = (Node *) PG_GETARG_POINTER(0);

	if (IsA(req, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *sel = (SupportRequestSelectivity *) req;

		sel->selectivity = 1.0;
		PG_RETURN_POINTER(sel);
	}
	PG_RETURN_POINTER(NULL);
}
