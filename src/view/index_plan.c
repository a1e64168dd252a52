/*-------------------------------------------------------------------------
 * src/view/index_plan.c
 *	  Plans a query on a table's view whose WHERE fixes indexed columns
 *	  through a secondary index, as Lindorm does: the view's rows are those
 *	  whose key the index lists under the given values.
 *
 * After attribute pushdown (attribute_pushdown.c) a condition
 * attributes ->> 'seller' = 's1' is a comparison of one of the view's
 * output columns, ots.row_attribute_text(cells, storage, 'seller'), as is
 * one on the typed column, seller = 's1' (ots.row_string(...)).  For
 * each table's view of a query level (recognised by the catalog and its
 * shape, view_shape.c), the equalities of the level's WHERE (its
 * top-level AND) on a leftmost prefix of an index's key columns (defined
 * String columns through ->> or their typed column, defined Integer
 * columns through ->> cast to an integer type or their typed column, the
 * table's own key columns) are copied into the view's subquery as
 *
 *	   (k1, ..., kn) IN (SELECT k1, ..., kn FROM "index$data" WHERE c1 = v1 ...)
 *
 * which PostgreSQL plans as a semi-join: the index's storage read by its
 * primary key, then the table's rows by theirs.  The conditions themselves
 * stay where they were, so the answer is the same with or without the
 * index as long as every row the level can return has an entry:
 *	 - an index holds an entry for a row exactly when the row's newest cell
 *	   of each indexed defined column has that column's type (index_write.c;
 *	   an index is complete only when every row's newest such cell has it);
 *	   its storage is read without its row rule, so an entry whose row or
 *	   cells expired only costs a lookup.  So the WHERE must require every
 *	   indexed defined column of the index, not only those it fixes: a
 *	   condition that is never true when the column's typed column, its
 *	   ->> or its -> is NULL (PostgreSQL's find_nonnullable_vars: strict
 *	   operators and functions, IS NOT NULL, both arms of an OR).  A row
 *	   lacking the column of a LOCAL (a, n) index never satisfies such a
 *	   WHERE; WHERE a = 'k' alone does not go through that index.
 *	 - only values fixed before any row is read (constants, parameters,
 *	   non-volatile expressions of them) are copied into the view (a
 *	   security barrier), compared with leak-proof equality operators;
 *	 - an index being built, or made without the rows before it
 *	   (include_base_data => false), is not used.
 * No privilege is checked on the index's storage.  The view is ots's own,
 * owned by the table's owner, and the plan keeps every check the plan
 * without the index makes: the caller's on the view's columns the query
 * reads, and the view owner's (or, security_invoker, the caller's) on the
 * storage's key columns and cells, from which every column of an index is
 * computed.  Where row-level security applies to the storage, the index
 * (which holds every row's entry) is not read at all: EXPLAIN ANALYZE would
 * count entries of rows the policy hides.  Setting ots.index_scan.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "parser/parse_oper.h"
#include "parser/parsetree.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "meta/catalog.h"
#include "guc.h"
#include "view/index_plan.h"
#include "meta/storage.h"
#include "view/view_shape.h"

/* one equality of the WHERE usable on an index column: the column's name, the value */
typedef struct IndexPlanEq
{
	const char *column;
	bool		is_key;			/* a key column of the table, not an attribute of that name */
	OtsValueType type;			/* compared as STRING (bytewise) or INTEGER (by value) */
	Expr	   *value;			/* what index_plan_value accepts */
} IndexPlanEq;

/*
 * index_plan_row_value: does expr read a row of any query level (a column,
 * an outer query's value, an aggregate's), or a parameter that is not the
 * statement's?
 */
static bool
index_plan_row_value(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) || IsA(node, PlaceHolderVar) || IsA(node, Aggref) ||
		IsA(node, GroupingFunc) || IsA(node, WindowFunc) ||
		(IsA(node, Param) && ((Param *) node)->paramkind != PARAM_EXTERN))
		return true;
	return expression_tree_walker(node, index_plan_row_value, context);
}

/*
 * index_plan_value: may expr go into the view as the value compared?  A
 * value the statement fixes before it reads a row: constants, the
 * statement's parameters, and non-volatile expressions of them ('g' || $1),
 * with no column of any query level, subquery or aggregate.  Evaluated
 * inside the view it sees no row, so a function in it learns nothing the
 * view hides.
 */
bool
index_plan_value(Node *expr)
{
	if (IsA(expr, Const) || (IsA(expr, Param) && ((Param *) expr)->paramkind == PARAM_EXTERN))
		return true;
	return !index_plan_row_value(expr, NULL) && !contain_volatile_functions(expr) &&
		!contain_subplans(expr) && !checkExprHasSubLink(expr);
}

/* index_plan_integer_eq: is funcid = between two integer types? */
static bool
index_plan_integer_eq(Oid funcid)
{
	return funcid == F_INT8EQ || funcid == F_INT84EQ || funcid == F_INT82EQ ||
		funcid == F_INT4EQ || funcid == F_INT48EQ || funcid == F_INT42EQ ||
		funcid == F_INT2EQ || funcid == F_INT24EQ || funcid == F_INT28EQ;
}

/*
 * index_plan_equality reads one conjunct of the level's WHERE as an
 * equality of one of the view's columns (an indexed attribute's text,
 * perhaps cast to an integer type, a typed String or Integer column
 * uncast, or a key column of the table) with a value; false if it is none
 */
static bool
index_plan_equality(Node *qual, const OtsView *view, const OtsViewFuncs *funcs, IndexPlanEq *eq)
{
	OpExpr	   *op;
	Node	   *col;
	Node	   *value;
	bool		cast = false;
	Var		   *var;
	OtsViewColumn column;

	if (!IsA(qual, OpExpr) || list_length(((OpExpr *) qual)->args) != 2)
		return false;
	op = (OpExpr *) qual;
	set_opfuncid(op);
	col = linitial(op->args);
	value = lsecond(op->args);
	if (index_plan_value(col))
	{
		col = lsecond(op->args);
		value = linitial(op->args);
	}
	if (!index_plan_value(value))
		return false;
	if (IsA(col, CoerceViaIO))
	{
		Oid			to = ((CoerceViaIO *) col)->resulttype;

		if (to != INT8OID && to != INT4OID && to != INT2OID)
			return false;
		cast = true;
		col = (Node *) ((CoerceViaIO *) col)->arg;
	}
	if (!IsA(col, Var) || ((Var *) col)->varno != view->rti || ((Var *) col)->varlevelsup != 0 ||
		((Var *) col)->varattno <= 0)
		return false;
	var = (Var *) col;
	eq->value = (Expr *) value;
	if (index_plan_integer_eq(op->opfuncid))
		eq->type = OTS_VT_INTEGER;
	else if (op->opfuncid == F_TEXTEQ && !cast && get_collation_isdeterministic(op->inputcollid))
		eq->type = OTS_VT_STRING;
	else
		return false;
	/* integers compare by value: the attribute's text cast, or an Integer column */
	if (eq->type == OTS_VT_INTEGER && !cast && var->vartype != INT8OID)
		return false;
	column = view_shape_column(view, funcs, var->varattno);
	eq->column = column.name;
	eq->is_key = column.kind == VIEW_COLUMN_KEY;
	switch (column.kind)
	{
		case VIEW_COLUMN_ATTRIBUTE_TEXT:
			/* ->> text, compared as the type of its equality */
			return true;
		case VIEW_COLUMN_TYPED:
			/* the latest cell's value when it has the defined type, which is when the row has an entry */
			return !cast && column.type == eq->type;
		case VIEW_COLUMN_KEY:
			return !cast;
		default:
			return false;
	}
}

/*
 * index_plan_required: the names of the attribute columns every row the
 * level returns has (a value in the view's typed column, ->> or -> of that
 * name): those whose NULL makes the level's WHERE not true
 */
static List *
index_plan_required(Query *query, const OtsView *view, const OtsViewFuncs *funcs)
{
	List	   *names = NIL;
	ListCell   *lc;

	foreach(lc, find_nonnullable_vars(query->jointree->quals))
	{
		Var		   *var = lfirst(lc);
		OtsViewColumn column;

		if (var->varno != view->rti || var->varlevelsup != 0 || var->varattno <= 0)
			continue;
		column = view_shape_column(view, funcs, var->varattno);
		if (column.kind == VIEW_COLUMN_TYPED || column.kind == VIEW_COLUMN_ATTRIBUTE_TEXT ||
			column.kind == VIEW_COLUMN_ATTRIBUTE)
			names = lappend(names, (char *) column.name);
	}
	return names;
}

/* index_plan_is_key: is name a key column of table t? */
static bool
index_plan_is_key(const OtsTable *t, const char *name)
{
	for (int j = 0; j < t->npk; j++)
		if (strcmp(t->pk[j].name, name) == 0)
			return true;
	return false;
}

/*
 * index_plan_holds_rows: does index idx of base hold an entry for every row
 * that has the columns named in required?  It does when each of its
 * indexed defined columns is one of them (its key columns that are base's
 * are in every entry).
 */
static bool
index_plan_holds_rows(const OtsTable *base, const OtsTable *idx, List *required)
{
	ListCell   *lc;

	for (int k = 0; k < idx->index_nkeys; k++)
	{
		bool		found = index_plan_is_key(base, idx->pk[k].name);

		foreach(lc, required)
			found |= strcmp(lfirst(lc), idx->pk[k].name) == 0;
		if (!found)
			return false;
	}
	return true;
}

/*
 * index_plan_storage_checked: does the plan check SELECT on every column of
 * the table's storage an index is computed from (its key columns and its
 * cells)?  The view ots makes reads them all, so the checks it carries
 * cover whatever the index holds.
 */
bool
index_plan_storage_checked(const OtsView *view)
{
	const OtsTable *base = view->table;
	Var		   *cells = linitial(view->row_attributes->args);
	Bitmapset  *cols = view->storage->selectedCols;

	if ((view->storage->requiredPerms & ACL_SELECT) == 0 ||
		!bms_is_member(cells->varattno - FirstLowInvalidHeapAttributeNumber, cols))
		return false;
	for (int k = 0; k < base->npk; k++)
	{
		AttrNumber	attno = get_attnum(base->data_oid, base->pk[k].name);

		if (attno == InvalidAttrNumber || !bms_is_member(attno - FirstLowInvalidHeapAttributeNumber, cols))
			return false;
	}
	return true;
}

/*
 * index_plan_find: the equality of eqs on index column col of base compared
 * as its type, or NULL: on the key column of that name when col is one of
 * base's key columns, else on the attribute of that name (an attribute may
 * share a key column's name)
 */
static IndexPlanEq *
index_plan_find(List *eqs, const OtsTable *base, const OtsPkColumn *col)
{
	OtsValueType type = col->type == OTS_VT_INTEGER ? OTS_VT_INTEGER :
		col->type == OTS_VT_STRING ? OTS_VT_STRING : 0;
	bool		is_key = index_plan_is_key(base, col->name);
	ListCell   *lc;

	foreach(lc, eqs)
	{
		IndexPlanEq *eq = lfirst(lc);

		if (eq->type == type && eq->is_key == is_key && strcmp(eq->column, col->name) == 0)
			return eq;
	}
	return NULL;
}

/* index_plan_eq_operator: = of the stored type of an ots key column and type, from pg_catalog */
static Oid
index_plan_eq_operator(Oid stored, Oid type)
{
	return LookupOperName(NULL, list_make2(makeString("pg_catalog"), makeString("=")), stored, type,
						  true, -1);
}

Node *
index_plan_semijoin(const OtsTable *base, Oid relid, char relkind, List *quals, Index storage_rti,
					const char *alias)
{
	Query	   *sub = makeNode(Query);
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	SubLink    *link = makeNode(SubLink);
	RangeTblRef *ref = makeNode(RangeTblRef);
	List	   *colnames = NIL;
	List	   *tests = NIL;
	Bitmapset  *cols = NULL;
	char	   *name;

	/* eref names every column */
	for (AttrNumber a = 1; (name = get_attname(relid, a, true)) != NULL; a++)
		colnames = lappend(colnames, makeString(name));
	rte->rtekind = RTE_RELATION;
	rte->relid = relid;
	rte->relkind = relkind;
	rte->rellockmode = AccessShareLock;
	rte->inh = relkind == RELKIND_PARTITIONED_TABLE;
	rte->inFromCl = true;
	/*
	 * no privilege is checked on the relation: every column of it is
	 * computed from the key columns and cells of the table's storage, which
	 * the view reads with SELECT checked (as the view's owner or,
	 * security_invoker, the caller), and those checks stay in the plan
	 */
	rte->requiredPerms = 0;
	rte->eref = makeAlias(alias, colnames);
	pull_varattnos((Node *) quals, 1, &cols);
	for (int k = 0; k < base->npk; k++)
	{
		int			kb = k + (base->hash_prefix_len > 0 ? 1 : 0);
		AttrNumber	attno = get_attnum(relid, base->pk[k].name);
		AttrNumber	base_attno = get_attnum(base->data_oid, base->pk[k].name);
		Oid			type = storage_key_type(base, kb);
		Oid			coll = storage_key_collation(base, kb);
		Param	   *param = makeNode(Param);

		if (attno == InvalidAttrNumber || base_attno == InvalidAttrNumber)
			return NULL;
		cols = bms_add_member(cols, attno - FirstLowInvalidHeapAttributeNumber);
		sub->targetList = lappend(sub->targetList,
								  makeTargetEntry((Expr *) makeVar(1, attno, type, -1, coll, 0),
												  k + 1, pstrdup(base->pk[k].name), false));
		param->paramkind = PARAM_SUBLINK;
		param->paramid = k + 1;
		param->paramtype = type;
		param->paramtypmod = -1;
		param->paramcollid = coll;
		param->location = -1;
		tests = lappend(tests, make_opclause(index_plan_eq_operator(type, type), BOOLOID, false,
											 (Expr *) makeVar(storage_rti, base_attno, type, -1, coll, 0),
											 (Expr *) param, InvalidOid, coll));
	}
	rte->selectedCols = cols;
	sub->commandType = CMD_SELECT;
	sub->querySource = QSRC_ORIGINAL;
	sub->canSetTag = true;
	sub->rtable = list_make1(rte);
	ref->rtindex = 1;
	sub->jointree = makeFromExpr(list_make1(ref), (Node *) make_ands_explicit(quals));

	link->subLinkType = ANY_SUBLINK;
	link->subLinkId = 0;
	link->testexpr = (Node *) make_ands_explicit(tests);
	link->operName = list_make1(makeString("="));
	link->subselect = (Node *) sub;
	link->location = -1;
	return (Node *) link;
}

/*
 * index_plan_sublink: (k1, ..., kn) IN (SELECT k1, ..., kn FROM the index's
 * storage WHERE c1 = v1 AND ...), where k are the table's key columns and c
 * the index's first nmatched columns
 */
static Node *
index_plan_sublink(const OtsTable *base, const OtsTable *idx, IndexPlanEq **matched, int nmatched,
				   Index storage_rti)
{
	List	   *quals = NIL;

	for (int k = 0; k < nmatched; k++)
	{
		AttrNumber	attno = get_attnum(idx->data_oid, idx->pk[k].name);
		Oid			stored = storage_key_type(idx, k);
		Oid			opno = index_plan_eq_operator(stored, exprType((Node *) matched[k]->value));

		if (attno == InvalidAttrNumber || !OidIsValid(opno))
			return NULL;
		quals = lappend(quals, make_opclause(opno, BOOLOID, false,
											 (Expr *) makeVar(1, attno, stored, -1,
															  storage_key_collation(idx, k), 0),
											 copyObject(matched[k]->value),
											 InvalidOid, storage_key_collation(idx, k)));
	}
	return index_plan_semijoin(base, idx->data_oid, RELKIND_PARTITIONED_TABLE, quals, storage_rti, "ots_index");
}

bool
index_plan_view(Query *query, const OtsView *view, const OtsViewFuncs *funcs, bool *transient)
{
	Query	   *sub = view->query;
	const OtsTable *base = view->table;
	List	   *eqs = NIL;
	List	   *required;
	const OtsTable *best = NULL;
	IndexPlanEq *best_matched[OTS_MAX_INDEX_PK_COLUMNS];
	int			best_n = 0;
	ListCell   *lc;
	Node	   *link;

	/* no row-level security may apply to the storage: the index would read rows it hides */
	if (!ots_index_scan || base->is_index || base->nindexes == 0 ||
		view->storage->securityQuals != NIL ||
		query->jointree == NULL || query->jointree->quals == NULL)
		return false;
	foreach(lc, make_ands_implicit((Expr *) query->jointree->quals))
	{
		IndexPlanEq eq;

		if (index_plan_equality(lfirst(lc), view, funcs, &eq))
		{
			IndexPlanEq *copy = palloc(sizeof(eq));

			*copy = eq;
			eqs = lappend(eqs, copy);
		}
	}
	if (eqs == NIL)
		return false;
	required = index_plan_required(query, view, funcs);
	/* the index with the longest prefix of its key fixed; the first such by name */
	for (int i = 0; i < base->nindexes; i++)
	{
		const OtsTable *idx = catalog_lookup_by_data_oid(base->index_data_oids[i]);
		IndexPlanEq *matched[OTS_MAX_INDEX_PK_COLUMNS];
		int			n = 0;

		/* only an index that lists every row the level can return can stand for the table */
		if (idx == NULL || !idx->is_index || idx->index_partial ||
			!catalog_index_usable(idx, ActiveSnapshotSet() ? GetActiveSnapshot() : NULL) ||
			!index_plan_holds_rows(base, idx, required))
			continue;
		while (n < idx->index_nkeys && (matched[n] = index_plan_find(eqs, base, &idx->pk[n])) != NULL)
			n++;
		if (n > best_n)
		{
			best = idx;
			best_n = n;
			memcpy(best_matched, matched, sizeof(IndexPlanEq *) * n);
		}
	}
	if (best == NULL || !index_plan_storage_checked(view))
		return false;
	/* a relation the planner adds is locked as the rewriter locks the others */
	LockRelationOid(best->data_oid, AccessShareLock);
	link = index_plan_sublink(base, best, best_matched, best_n, view->storage_rti);
	if (link == NULL)
		return false;
	sub->jointree->quals = make_and_qual(sub->jointree->quals, link);
	sub->hasSubLinks = true;
	/* a snapshot some session holds, which another may import, may not see it yet */
	*transient |= TransactionIdIsNormal(best->index_ready_xmin) &&
		!TransactionIdPrecedes(best->index_ready_xmin, GetOldestNonRemovableTransactionId(NULL));
	return true;
}
