/*-------------------------------------------------------------------------
 * src/index_plan.c
 *	  Plans a query on a table's view whose WHERE fixes indexed columns
 *	  through a secondary index, as Lindorm does: the view's rows are those
 *	  whose key the index lists under the given values.
 *
 * After attribute pushdown (attribute_pushdown.c) a condition
 * attributes ->> 'seller' = 's1' is a comparison of one of the view's
 * output columns, ots.row_attribute_text(cells, storage, 'seller'), as is
 * one on the typed column, seller = 's1' (ots.row_string(...)).  For
 * each view of a query level, the equalities of the level's WHERE (its
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
 * index: an index holds an entry for every row that has a value of the
 * column's type there (index_write.c), and its storage is read without its
 * row rule, so expired entries only cost a lookup.  Only values fixed
 * before any row is read (constants, parameters, non-volatile expressions
 * of them) are copied into the view (a security barrier), compared with
 * leak-proof equality operators; no privilege is checked on the index's
 * storage, which only narrows the rows of the table's storage the view
 * reads (whose privileges are checked).  An index being built,
 * or made without the rows before it (include_base_data => false), is not
 * used.  Setting ots.index_scan.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "parser/parse_oper.h"
#include "parser/parsetree.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "catalog.h"
#include "guc.h"
#include "index_plan.h"
#include "storage.h"

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
static bool
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
 * index_plan_column_type: the type an output of a view's column function
 * compares as for an index, 0 for none: ->> text (compared as the type of
 * its equality), a typed String or Integer column uncast (its value is the
 * latest cell's when that has the defined type, which is exactly when the
 * row has an entry under it in an index of that column)
 */
static OtsValueType
index_plan_column_type(Oid funcid, const IndexPlanFuncs *funcs, bool cast, OtsValueType eq_type)
{
	if (funcid == funcs->row_attribute_text)
		return eq_type;
	if (cast)
		return 0;
	if (funcid == funcs->row_string)
		return OTS_VT_STRING;
	if (funcid == funcs->row_integer)
		return OTS_VT_INTEGER;
	return 0;
}

/*
 * index_plan_equality reads one conjunct of the level's WHERE as an
 * equality of view rti's column (an indexed attribute's text, perhaps cast
 * to an integer type, or a key column of the table) with a value; false if
 * it is none
 */
static bool
index_plan_equality(Node *qual, Index rti, Query *sub, const IndexPlanFuncs *funcs, IndexPlanEq *eq)
{
	OpExpr	   *op;
	Node	   *col;
	Node	   *value;
	bool		cast = false;
	Var		   *var;
	TargetEntry *tle;

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
	if (!IsA(col, Var) || ((Var *) col)->varno != rti || ((Var *) col)->varlevelsup != 0 ||
		((Var *) col)->varattno <= 0)
		return false;
	var = (Var *) col;
	if ((tle = get_tle_by_resno(sub->targetList, var->varattno)) == NULL || tle->resjunk)
		return false;
	eq->value = (Expr *) value;
	if (index_plan_integer_eq(op->opfuncid))
		eq->type = OTS_VT_INTEGER;
	else if (op->opfuncid == F_TEXTEQ && !cast && get_collation_isdeterministic(op->inputcollid))
		eq->type = OTS_VT_STRING;
	else
		return false;
	/* integers compare by value: the attribute's text cast, or an Integer key column */
	if (eq->type == OTS_VT_INTEGER && !cast && var->vartype != INT8OID)
		return false;
	if (IsA(tle->expr, FuncExpr) &&
		index_plan_column_type(((FuncExpr *) tle->expr)->funcid, funcs, cast, eq->type) == eq->type)
	{
		Const	   *name = lthird(((FuncExpr *) tle->expr)->args);

		if (!IsA(name, Const) || name->constisnull)
			return false;
		eq->column = TextDatumGetCString(name->constvalue);
		eq->is_key = false;
		return true;
	}
	/* a key column of the table: the view's column of that name */
	if (IsA(tle->expr, Var) && !cast && tle->resname != NULL)
	{
		eq->column = tle->resname;
		eq->is_key = true;
		return true;
	}
	return false;
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
	bool		is_key = false;
	ListCell   *lc;

	for (int j = 0; j < base->npk; j++)
		is_key |= strcmp(base->pk[j].name, col->name) == 0;
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

/*
 * index_plan_sublink: (k1, ..., kn) IN (SELECT k1, ..., kn FROM the index's
 * storage WHERE c1 = v1 AND ...), where k are the table's key columns
 * (Vars of its storage, range table entry storage_rti of the view's
 * subquery) and c the index's first nmatched columns
 */
static Node *
index_plan_sublink(const OtsTable *base, const OtsTable *idx, IndexPlanEq **matched, int nmatched,
				   Index storage_rti)
{
	Query	   *sub = makeNode(Query);
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	SubLink    *link = makeNode(SubLink);
	RangeTblRef *ref = makeNode(RangeTblRef);
	List	   *colnames = NIL;
	List	   *quals = NIL;
	List	   *tests = NIL;
	char	   *name;

	/* eref names every column */
	for (AttrNumber a = 1; (name = get_attname(idx->data_oid, a, true)) != NULL; a++)
		colnames = lappend(colnames, makeString(name));
	rte->rtekind = RTE_RELATION;
	rte->relid = idx->data_oid;
	rte->relkind = RELKIND_PARTITIONED_TABLE;
	rte->rellockmode = AccessShareLock;
	rte->inh = true;
	rte->inFromCl = true;
	/*
	 * no privilege is checked on the index's storage: it only narrows the
	 * rows of the table's storage the view reads (whose privileges are
	 * checked, as the view's owner's or, security_invoker, the caller's)
	 */
	rte->requiredPerms = 0;
	rte->eref = makeAlias("ots_index", colnames);

	for (int k = 0; k < nmatched; k++)
	{
		AttrNumber	attno = get_attnum(idx->data_oid, idx->pk[k].name);
		Oid			stored = storage_key_type(idx, k);
		Oid			opno = index_plan_eq_operator(stored, exprType((Node *) matched[k]->value));

		if (attno == InvalidAttrNumber || !OidIsValid(opno))
			return NULL;
		rte->selectedCols = bms_add_member(rte->selectedCols, attno - FirstLowInvalidHeapAttributeNumber);
		quals = lappend(quals, make_opclause(opno, BOOLOID, false,
											 (Expr *) makeVar(1, attno, stored, -1,
															  storage_key_collation(idx, k), 0),
											 copyObject(matched[k]->value),
											 InvalidOid, storage_key_collation(idx, k)));
	}
	for (int k = 0; k < base->npk; k++)
	{
		int			kb = k + (base->hash_prefix_len > 0 ? 1 : 0);
		AttrNumber	attno = get_attnum(idx->data_oid, base->pk[k].name);
		AttrNumber	base_attno = get_attnum(base->data_oid, base->pk[k].name);
		Oid			type = storage_key_type(base, kb);
		Oid			coll = storage_key_collation(base, kb);
		Param	   *param = makeNode(Param);

		if (attno == InvalidAttrNumber || base_attno == InvalidAttrNumber)
			return NULL;
		rte->selectedCols = bms_add_member(rte->selectedCols, attno - FirstLowInvalidHeapAttributeNumber);
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

void
index_plan_view(Query *query, Index rti, RangeTblEntry *rte, const IndexPlanFuncs *funcs,
				Oid storage_oid)
{
	Query	   *sub = rte->subquery;
	List	   *eqs = NIL;
	const OtsTable *base;
	const OtsTable *best = NULL;
	IndexPlanEq *best_matched[OTS_MAX_INDEX_PK_COLUMNS];
	int			best_n = 0;
	Index		storage_rti = 0;
	ListCell   *lc;
	Node	   *link;

	if (!ots_index_scan || query->jointree == NULL || query->jointree->quals == NULL)
		return;
	foreach(lc, make_ands_implicit((Expr *) query->jointree->quals))
	{
		IndexPlanEq eq;

		if (index_plan_equality(lfirst(lc), rti, sub, funcs, &eq))
		{
			IndexPlanEq *copy = palloc(sizeof(eq));

			*copy = eq;
			eqs = lappend(eqs, copy);
		}
	}
	if (eqs == NIL)
		return;
	base = catalog_lookup_by_data_oid(storage_oid);
	if (base == NULL || base->nindexes == 0)
		return;
	/* the index with the longest prefix of its key fixed; the first such by name */
	for (int i = 0; i < base->nindexes; i++)
	{
		const OtsTable *idx = catalog_lookup_by_data_oid(base->index_data_oids[i]);
		IndexPlanEq *matched[OTS_MAX_INDEX_PK_COLUMNS];
		int			n = 0;

		/* only an index that lists every row can stand for the table */
		if (idx == NULL || !idx->is_index || idx->index_partial ||
			!catalog_index_usable(idx, ActiveSnapshotSet() ? GetActiveSnapshot() : NULL))
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
	if (best == NULL)
		return;
	/* the table's storage in the view's FROM */
	foreach(lc, sub->rtable)
	{
		RangeTblEntry *r = lfirst(lc);

		if (r->rtekind == RTE_RELATION && r->relid == storage_oid)
		{
			storage_rti = foreach_current_index(lc) + 1;
			break;
		}
	}
	if (storage_rti == 0)
		return;
	/* a relation the planner adds is locked as the rewriter locks the others */
	LockRelationOid(best->data_oid, AccessShareLock);
	link = index_plan_sublink(base, best, best_matched, best_n, storage_rti);
	if (link == NULL)
		return;
	sub->jointree->quals = make_and_qual(sub->jointree->quals, link);
	sub->hasSubLinks = true;
}
