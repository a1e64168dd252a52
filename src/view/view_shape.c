/*-------------------------------------------------------------------------
 * src/view/view_shape.c
 *	  Recognises a table's view in a statement by what it is, for the
 *	  planner's rewrites (attribute_pushdown.c, index_plan.c).
 *
 * A rewrite that takes a subquery for a table's view reads that table's
 * cells and indexes in its place, so it must know the subquery is the view
 * ots made for the table and nothing else: a role's own security-barrier
 * view calling ots.row_attributes(<any cells>, '<storage>') is not one,
 * whatever functions it calls.  So a view is the table's when
 *	 - the catalog says so: the view's permission-check entry (PostgreSQL 15
 *	   clears the subquery entry's relid, but ApplyRetrieveRule leaves the
 *	   view's own entry first in the subquery's range table) names the view
 *	   of the table whose storage the subquery reads (catalog_lookup_by_data_oid,
 *	   cached), and
 *	 - its query is what ots.sync_table_view makes (an owner may make the view
 *	   again with CREATE OR REPLACE VIEW): SELECT from the table's storage
 *	   alone WHERE ots.row_exists(cells, storage) (an index's view: WHERE
 *	   ots.index_readable(storage) AND ots.row_exists(...)), its columns the storage's
 *	   key columns, ots.row_attributes(cells, storage) and one
 *	   ots.row_<type>(cells, storage, 'name') per defined column of that type,
 *	   each call on the storage's own cells and the storage itself, the
 *	   functions ots's by OID.
 * The checks run once per view and planning, on the query tree in hand;
 * the catalog and the function OIDs come from backend caches.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "cache.h"
#include "view/view_shape.h"

/* ots's view functions, keyed by the OID of ots's schema */
typedef struct ViewFuncsEntry
{
	Oid			nsp;			/* hash key */
	bool		valid;
	bool		complete;		/* every function found */
	OtsViewFuncs funcs;
} ViewFuncsEntry;

/* view_shape_funcs_stale: a function changed, so look them up again */
static void
view_shape_funcs_stale(void *entry)
{
	((ViewFuncsEntry *) entry)->valid = false;
}

/* any change of pg_proc marks the entry (view_shape_init) */
static OtsCache view_funcs = {
	.name = "ots view functions",
	.keysize = sizeof(Oid),
	.entrysize = sizeof(ViewFuncsEntry),
	.stale = view_shape_funcs_stale,
};

void
view_shape_init(void)
{
	cache_watch_syscache(&view_funcs, PROCOID);
}

/* view_shape_lookup: function ots.name(args), or InvalidOid */
static Oid
view_shape_lookup(const char *name, int nargs, Oid *args)
{
	return LookupFuncName(list_make2(makeString("ots"), makeString((char *) name)), nargs, args,
						  true);
}

const OtsViewFuncs *
view_shape_funcs(void)
{
	static const char *const typed[] = {NULL, "row_string", "row_integer", "row_double",
	"row_boolean", "row_binary"};
	Oid			nsp = get_namespace_oid("ots", true);
	ViewFuncsEntry *e;
	bool		found;
	Oid			args[3];

	if (!OidIsValid(nsp))
		return NULL;
	e = cache_lookup(&view_funcs, &nsp, &found);
	if (!e->valid)
	{
		OtsViewFuncs *f = &e->funcs;

		args[0] = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("cells"),
								  ObjectIdGetDatum(nsp));
		args[1] = REGCLASSOID;
		args[2] = TEXTOID;
		f->index_readable = view_shape_lookup("index_readable", 1, &args[1]);
		f->row_exists = view_shape_lookup("row_exists", 2, args);
		f->row_attributes = view_shape_lookup("row_attributes", 2, args);
		f->row_attribute_text = view_shape_lookup("row_attribute_text", 3, args);
		f->row_attribute = view_shape_lookup("row_attribute", 3, args);
		e->complete = OidIsValid(f->index_readable) && OidIsValid(f->row_exists) &&
			OidIsValid(f->row_attributes) &&
			OidIsValid(f->row_attribute_text) && OidIsValid(f->row_attribute);
		for (int t = OTS_VT_STRING; t <= OTS_VT_BINARY; t++)
		{
			f->typed[t] = view_shape_lookup(typed[t], 3, args);
			e->complete &= OidIsValid(f->typed[t]);
		}
		/* ots before 0.3.0 has neither: a WHERE is then not planned through search indexes */
		f->search_match = view_shape_lookup("search_match", 4, (Oid[]) {TEXTOID, TEXTOID, TEXTOID, JSONBOID});
		f->search_match_tokens = view_shape_lookup("search_match_tokens", 3, (Oid[]) {TEXTOID, TEXTOID, JSONBOID});
		e->valid = true;
	}
	return e->complete ? &e->funcs : NULL;
}

/* view_shape_storage: is arg the view's storage, as a regclass constant? */
static bool
view_shape_storage(Node *arg, const OtsView *view)
{
	Const	   *storage = (Const *) arg;

	return IsA(storage, Const) && storage->consttype == REGCLASSOID && !storage->constisnull &&
		DatumGetObjectId(storage->constvalue) == view->storage->relid;
}

/*
 * view_shape_call: is expr a call of funcid on the view's storage's cells
 * and the storage itself (and, with a third argument, a column name)?
 * The name, if any, goes to *name.
 */
static bool
view_shape_call(Node *expr, Oid funcid, const OtsView *view, const char **name)
{
	FuncExpr   *f = (FuncExpr *) expr;
	Var		   *cells;
	Const	   *column;

	if (expr == NULL || !IsA(expr, FuncExpr) || f->funcid != funcid || f->funcretset || f->funcvariadic ||
		list_length(f->args) < 2 || list_length(f->args) > 3)
		return false;
	cells = linitial(f->args);
	if (!IsA(cells, Var) || cells->varno != view->storage_rti || cells->varlevelsup != 0 ||
		cells->varattno <= 0 || !view_shape_storage(lsecond(f->args), view))
		return false;
	if (list_length(f->args) == 2)
		return name == NULL;
	column = lthird(f->args);
	if (name == NULL || !IsA(column, Const) || column->consttype != TEXTOID || column->constisnull)
		return false;
	*name = TextDatumGetCString(column->constvalue);
	return true;
}

/*
 * view_shape_where: is quals the WHERE ots.sync_table_view makes, the row
 * rule ots.row_exists(cells, storage), or an index's, its gate
 * ots.index_readable(storage) AND the row rule?  *gated: it has the gate.
 */
static bool
view_shape_where(Node *quals, const OtsViewFuncs *funcs, const OtsView *view, bool *gated)
{
	BoolExpr   *and = (BoolExpr *) quals;
	FuncExpr   *gate;

	*gated = false;
	if (view_shape_call(quals, funcs->row_exists, view, NULL))
		return true;
	if (quals == NULL || !IsA(quals, BoolExpr) || and->boolop != AND_EXPR ||
		list_length(and->args) != 2)
		return false;
	gate = linitial(and->args);
	if (!IsA(gate, FuncExpr) || gate->funcid != funcs->index_readable || gate->funcretset ||
		gate->funcvariadic || list_length(gate->args) != 1 ||
		!view_shape_storage(linitial(gate->args), view))
		return false;
	*gated = true;
	return view_shape_call(lsecond(and->args), funcs->row_exists, view, NULL);
}

OtsViewColumn
view_shape_column(const OtsView *view, const OtsViewFuncs *funcs, AttrNumber attno)
{
	OtsViewColumn col = {VIEW_COLUMN_OTHER, NULL, 0};
	TargetEntry *tle = get_tle_by_resno(view->query->targetList, attno);
	Node	   *expr;

	if (tle == NULL || tle->resjunk)
		return col;
	expr = (Node *) tle->expr;
	if (IsA(expr, Var))
	{
		Var		   *var = (Var *) expr;
		const OtsTable *t = view->table;
		char	   *attname;

		if (var->varno != view->storage_rti || var->varlevelsup != 0 || var->varattno <= 0)
			return col;
		attname = get_attname(view->storage->relid, var->varattno, true);
		for (int i = 0; attname != NULL && i < t->npk; i++)
			if (strcmp(t->pk[i].name, attname) == 0)
			{
				col.kind = VIEW_COLUMN_KEY;
				col.name = t->pk[i].name;
			}
		return col;
	}
	if (!IsA(expr, FuncExpr))
		return col;
	if (view_shape_call(expr, funcs->row_attributes, view, NULL))
		col.kind = VIEW_COLUMN_ATTRIBUTES;
	else if (view_shape_call(expr, funcs->row_attribute_text, view, &col.name))
		col.kind = VIEW_COLUMN_ATTRIBUTE_TEXT;
	else if (view_shape_call(expr, funcs->row_attribute, view, &col.name))
		col.kind = VIEW_COLUMN_ATTRIBUTE;
	else
	{
		for (int t = OTS_VT_STRING; t <= OTS_VT_BINARY; t++)
			if (view_shape_call(expr, funcs->typed[t], view, &col.name))
			{
				const OtsDefinedColumn *d = catalog_defined_column(view->table, col.name,
																	 strlen(col.name));

				/* a typed column of a defined column of that type, nothing else */
				if (d != NULL && d->type == t)
				{
					col.kind = VIEW_COLUMN_TYPED;
					col.type = t;
				}
				break;
			}
	}
	return col;
}

bool
view_shape_recognize(RangeTblEntry *rte, Index rti, const OtsViewFuncs *funcs, OtsView *view)
{
	Query	   *q;
	RangeTblEntry *perm;
	RangeTblRef *from;
	ListCell   *lc;
	bool		gated;

	if (rte->rtekind != RTE_SUBQUERY || !rte->security_barrier || (q = rte->subquery) == NULL ||
		q->commandType != CMD_SELECT || q->utilityStmt != NULL || q->setOperations != NULL ||
		q->hasAggs || q->hasWindowFuncs || q->hasTargetSRFs || q->hasSubLinks ||
		q->hasModifyingCTE || q->hasRecursive || q->hasForUpdate ||
		q->cteList != NIL || q->groupClause != NIL || q->groupingSets != NIL ||
		q->havingQual != NULL || q->distinctClause != NIL || q->sortClause != NIL ||
		q->windowClause != NIL || q->limitCount != NULL || q->limitOffset != NULL ||
		q->rowMarks != NIL || list_length(q->rtable) < PRS2_OLD_VARNO ||
		q->jointree == NULL || list_length(q->jointree->fromlist) != 1)
		return false;
	/* the view's own entry, where ApplyRetrieveRule moved its permission checks */
	perm = rt_fetch(PRS2_OLD_VARNO, q->rtable);
	from = linitial(q->jointree->fromlist);
	if (perm->rtekind != RTE_RELATION || perm->relkind != RELKIND_VIEW || !IsA(from, RangeTblRef))
		return false;
	memset(view, 0, sizeof(OtsView));
	view->rte = rte;
	view->rti = rti;
	view->query = q;
	view->storage_rti = from->rtindex;
	view->storage = rt_fetch(from->rtindex, q->rtable);
	if (view->storage->rtekind != RTE_RELATION ||
		view->storage->relkind != RELKIND_PARTITIONED_TABLE || view->storage->tablesample != NULL ||
		!view_shape_where(q->jointree->quals, funcs, view, &gated))
		return false;
	/* the catalog: the table whose storage this is has this view (an index's, with its gate) */
	view->table = catalog_lookup_by_data_oid(view->storage->relid);
	if (view->table == NULL || view->table->view_oid != perm->relid || gated != view->table->is_index)
		return false;
	/* every column one that ots.sync_table_view makes */
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);
		OtsViewColumn col;

		if (tle->resjunk)
			continue;
		col = view_shape_column(view, funcs, tle->resno);
		if (col.kind == VIEW_COLUMN_OTHER || col.kind == VIEW_COLUMN_ATTRIBUTE_TEXT ||
			col.kind == VIEW_COLUMN_ATTRIBUTE || (col.kind == VIEW_COLUMN_ATTRIBUTES && view->row_attributes != NULL))
			return false;
		if (col.kind == VIEW_COLUMN_ATTRIBUTES)
		{
			view->attributes_attno = tle->resno;
			view->row_attributes = (FuncExpr *) tle->expr;
		}
	}
	return view->row_attributes != NULL;
}
