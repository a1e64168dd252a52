/*-------------------------------------------------------------------------
 * src/view/attribute_pushdown.c
 *	  Plans attributes ->> 'name' (and -> 'name') over a table's view as one
 *	  column read from the cells, not the whole row's jsonb and a lookup in it.
 *
 * A view's attributes column is ots.row_attributes(cells, storage), which
 * renders every visible column of the row as jsonb; a query that reads one
 * or two of them (WHERE attributes->>'status' = 'paid', sum((attributes->>
 * 'amount')::int)) paid for all of them, twice what a plain table's stored
 * jsonb costs.  Before planning, each query level is rewritten: for every
 * table's view in its FROM (the view ots made for the table, recognised by
 * the catalog and its shape: view_shape.c; never a view that merely calls
 * ots's functions), each attributes ->> 'name' with a constant name
 * becomes a new output column of the view's subquery,
 * ots.row_attribute_text(cells, storage, 'name') (-> becomes
 * ots.row_attribute), and the expression a reference to it.  Both functions
 * return exactly what the expression they replace returns.  Computed
 * inside the subquery, the column is evaluated only for the rows the view
 * shows, after its row rule and any row-level security on the storage;
 * PostgreSQL drops the attributes column when nothing else reads it.  A
 * view referenced as a whole row (t.*, row_to_json(t)) is left alone: its
 * row type must not change; so is a statement with a locking clause or a
 * data-modifying level, for which the planner copies views as whole rows,
 * and a query level with grouping sets.  Only the query level that names
 * the view is rewritten (not a subquery referring to it from inside).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"

#include "view/attribute_pushdown.h"
#include "guc.h"
#include "view/index_plan.h"
#include "view/search_plan.h"
#include "query_walk.h"
#include "view/view_shape.h"

/* one view of a query level, while its expressions are rewritten */
typedef struct PushdownView
{
	const OtsViewFuncs *funcs;
	OtsView		view;
	List	   *added;			/* TargetEntries added to the view's subquery */
} PushdownView;

static void pushdown_query(Query *query, const OtsViewFuncs *funcs);

/* pushdown_column: the view's output column for one name and kind, added once */
static Var *
pushdown_column(PushdownView *view, OpExpr *op, Const *name, bool as_text)
{
	Oid			funcid = as_text ? view->funcs->row_attribute_text : view->funcs->row_attribute;
	Oid			type = as_text ? TEXTOID : JSONBOID;
	ListCell   *lc;
	TargetEntry *tle = NULL;
	FuncExpr   *call;

	foreach(lc, view->added)
	{
		TargetEntry *t = lfirst(lc);
		FuncExpr   *f = (FuncExpr *) t->expr;

		if (f->funcid == funcid && equal(lthird(f->args), name))
			tle = t;
	}
	if (tle == NULL)
	{
		Query	   *sub = view->view.query;

		call = makeFuncExpr(funcid, type,
							list_make3(copyObject(linitial(view->view.row_attributes->args)),
									   copyObject(lsecond(view->view.row_attributes->args)),
									   copyObject(name)),
							op->opcollid, op->inputcollid, COERCE_EXPLICIT_CALL);
		tle = makeTargetEntry((Expr *) call, list_length(sub->targetList) + 1,
							  psprintf("$attribute%d", list_length(view->added) + 1), false);
		sub->targetList = lappend(sub->targetList, tle);
		view->view.rte->eref->colnames = lappend(view->view.rte->eref->colnames,
												 makeString(tle->resname));
		view->added = lappend(view->added, tle);
	}
	return makeVar(view->view.rti, tle->resno, type, -1, op->opcollid, 0);
}

/*
 * pushdown_mutator replaces attributes ->> 'name' and attributes -> 'name' of
 * the view at this query level; it does not enter subqueries.
 */
static Node *
pushdown_mutator(Node *node, PushdownView *view)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Query))
		return node;
	if (IsA(node, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) node;

		set_opfuncid(op);
		if ((op->opfuncid == F_JSONB_OBJECT_FIELD_TEXT || op->opfuncid == F_JSONB_OBJECT_FIELD) &&
			list_length(op->args) == 2 && IsA(linitial(op->args), Var) &&
			IsA(lsecond(op->args), Const) && !((Const *) lsecond(op->args))->constisnull &&
			((Const *) lsecond(op->args))->consttype == TEXTOID)
		{
			Var		   *var = linitial(op->args);

			if (var->varno == view->view.rti && var->varattno == view->view.attributes_attno &&
				var->varlevelsup == 0)
				return (Node *) pushdown_column(view, op, lsecond(op->args),
												op->opfuncid == F_JSONB_OBJECT_FIELD_TEXT);
		}
	}
	return expression_tree_mutator(node, pushdown_mutator, view);
}

/* pushdown_subqueries_walker finds the queries of sublinks, each its own level */
static bool
pushdown_subqueries_walker(Node *node, const OtsViewFuncs *funcs)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		pushdown_query((Query *) node, funcs);
		return false;
	}
	return expression_tree_walker(node, pushdown_subqueries_walker, (void *) funcs);
}

/* whether the statement being rewritten went through an index only recent snapshots see */
static bool pushdown_transient;

/* pushdown_query rewrites one query level, then the levels inside it */
static void
pushdown_query(Query *query, const OtsViewFuncs *funcs)
{
	ListCell   *lc;
	Index		rti = 0;

	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);
		PushdownView view = {0};

		rti++;
		/* grouping sets null out grouped columns only: attributes->>'x' must stay an expression of them */
		if (query->groupingSets != NIL)
			break;
		if (!view_shape_recognize(rte, rti, funcs, &view.view))
			continue;
		if (query_walk_reads_columns(query, rti, InvalidAttrNumber, InvalidAttrNumber))
			continue;			/* a whole-row reference: the view's row type must not change */
		view.funcs = funcs;
		query_tree_mutator(query, pushdown_mutator, &view,
						   QTW_DONT_COPY_QUERY | QTW_IGNORE_RANGE_TABLE);
		/* the level's equalities on indexed columns, now columns of the view; else a search index's */
		if (!index_plan_view(query, &view.view, funcs, &pushdown_transient))
			(void) search_plan_view(query, &view.view, funcs, &pushdown_transient);
	}
	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_SUBQUERY && rte->subquery != NULL)
			pushdown_query(rte->subquery, funcs);
	}
	foreach(lc, query->cteList)
	{
		CommonTableExpr *cte = lfirst(lc);

		if (IsA(cte->ctequery, Query))
			pushdown_query((Query *) cte->ctequery, funcs);
	}
	query_tree_walker(query, pushdown_subqueries_walker, (void *) funcs,
					  QTW_IGNORE_RC_SUBQUERIES);
}

typedef struct StatementShape
{
	bool		has_barrier;	/* some level names a security-barrier view */
	bool		unsafe;			/* some level locks rows or modifies */
} StatementShape;

/*
 * pushdown_shape_walker looks at every level of the statement.  Row marks
 * (a locking clause) and data-modifying levels make the planner copy each
 * other relation of a level as a whole row, the view's included, typed as
 * the view: its row must not gain columns (a view pulled up from a sublink
 * or a subquery joins such a level), so such a statement is left alone.
 */
static bool
pushdown_shape_walker(Node *node, StatementShape *shape)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		shape->has_barrier |= rte->rtekind == RTE_SUBQUERY && rte->security_barrier;
		return false;
	}
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;

		if (q->commandType != CMD_SELECT || q->rowMarks != NIL)
		{
			shape->unsafe = true;
			return true;
		}
		return query_tree_walker(q, pushdown_shape_walker, shape, QTW_EXAMINE_RTES_BEFORE);
	}
	return expression_tree_walker(node, pushdown_shape_walker, shape);
}

bool
attribute_pushdown(Query *query)
{
	const OtsViewFuncs *funcs;
	StatementShape shape = {false, false};

	pushdown_transient = false;
	if (!ots_attribute_pushdown)
		return false;
	(void) pushdown_shape_walker((Node *) query, &shape);
	if (shape.unsafe || !shape.has_barrier)
		return false;
	funcs = view_shape_funcs();
	if (funcs == NULL)
		return false;
	pushdown_query(query, funcs);
	return pushdown_transient;
}
