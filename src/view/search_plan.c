/*-------------------------------------------------------------------------
 * src/view/search_plan.c
 *	  Plans a query on a table's view whose WHERE a search index can serve
 *	  through it: comparisons of the view's typed columns with values, and
 *	  full-text matches (ots.search_match), on the index's fields.
 *
 * The conjuncts of the level's WHERE (its top-level AND) that read one of
 * the view's typed columns (a defined column) and that a field of a search
 * index of the same name serves are copied into the view's subquery as
 *
 *	   (k1, ..., kn) IN (SELECT k1, ..., kn FROM "t$search$<index>" s
 *						 WHERE s.c1 <op> v1 AND ...)
 *
 * which PostgreSQL plans through the storage's btree and GIN indexes.  The
 * conditions stay where they were, so the answer is the same with or
 * without the index as long as every row a condition is true of has an
 * entry that the copy is true of:
 *	 - every row of the table has one entry, its fields the newest cell of
 *	   each column when that cell has the field's type (search_entry.c), and
 *	   a table with search indexes keeps one version of each cell; a typed
 *	   column shows that cell exactly when it has the defined type (NULL
 *	   else, and when it expired: the row then fails the condition, whatever
 *	   its entry holds).  So a field serves a typed column of its type:
 *	   KEYWORD a String (equality and IN with constants of at most 4 KB, the
 *	   longest value a KEYWORD keeps), LONG an Integer, DOUBLE a Double
 *	   (NaN and Infinity are never stored), BOOLEAN a Boolean, by any
 *	   operator of their btree operator families; TEXT a String under
 *	   ots.search_match with the field's analyzer and parameters, constants
 *	   of the call, as s.c @> ots.search_match_tokens(query, ...);
 *	 - only values fixed before any row is read are copied, compared with
 *	   leak-proof operators of PostgreSQL's own families (index_plan.c),
 *	   or, for full text, @> (array containment: no error it raises tells
 *	   of the values it compares);
 *	 - an index's own time_to_live hides rows from searches only
 *	   (search_query.c): its entries are kept as long as their rows, so
 *	   it does not narrow what the copy finds (were entries ever purged
 *	   by it, an index with a TTL shorter than the table's could not serve);
 *	 - an index whose creating transaction the query's snapshot does not
 *	   see is not used (its entries are not in that snapshot), and a plan
 *	   through one that a snapshot still held may not see is transient
 *	   (made again in another transaction, whose snapshot may be imported).
 * No privilege is checked on the index's storage, and an index is not used
 * where row-level security applies to the table's storage, as with
 * secondary indexes (index_plan.c).  Setting ots.search_scan.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_am.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "guc.h"
#include "ots_limits.h"
#include "search/search_index.h"
#include "view/index_plan.h"
#include "view/search_plan.h"

/* one conjunct a search field may serve: the column it reads, how */
typedef struct SearchPlanCond
{
	Expr	   *qual;			/* the conjunct */
	int			argno;			/* its argument that is the column */
	const char *column;
	OtsValueType type;			/* the typed column's */
	bool		match;			/* ots.search_match(column, query, analyzer, parameter) */
} SearchPlanCond;

/* search_plan_column: is node a typed column of the view?  Its name and type when it is */
static bool
search_plan_column(Node *node, const OtsView *view, const OtsViewFuncs *funcs, SearchPlanCond *c)
{
	Var		   *var = (Var *) node;
	OtsViewColumn column;

	if (!IsA(node, Var) || var->varno != view->rti || var->varlevelsup != 0 || var->varattno <= 0)
		return false;
	column = view_shape_column(view, funcs, var->varattno);
	if (column.kind != VIEW_COLUMN_TYPED)
		return false;
	c->column = column.name;
	c->type = column.type;
	return true;
}

/*
 * search_plan_family: the btree operator family whose operators compare a
 * typed column of type as its field's storage column (the default one of
 * bigint, double precision or boolean, PostgreSQL's own)
 */
static Oid
search_plan_family(OtsValueType type)
{
	Oid			typid = type == OTS_VT_INTEGER ? INT8OID : type == OTS_VT_DOUBLE ? FLOAT8OID :
		type == OTS_VT_BOOLEAN ? BOOLOID : InvalidOid;
	Oid			opclass = OidIsValid(typid) ? GetDefaultOpClass(typid, BTREE_AM_OID) : InvalidOid;

	return OidIsValid(opclass) ? get_opclass_family(opclass) : InvalidOid;
}

/*
 * search_plan_keyword_values: is value a constant a KEYWORD holds (a text,
 * or for an array test each element, of at most the KEYWORD length)?
 */
static bool
search_plan_keyword_values(Node *value, bool array)
{
	Const	   *c = (Const *) value;

	if (array && IsA(value, ArrayExpr))
	{
		ListCell   *lc;

		/* IN ('a', 'b') before its constants are folded */
		foreach(lc, ((ArrayExpr *) value)->elements)
			if (!search_plan_keyword_values(lfirst(lc), false) &&
				!(IsA(lfirst(lc), Const) && ((Const *) lfirst(lc))->constisnull))
				return false;
		return true;
	}
	if (!IsA(value, Const) || c->constisnull)
		return false;
	if (!array)
		return VARSIZE_ANY_EXHDR(DatumGetPointer(c->constvalue)) <= OTS_MAX_SEARCH_KEYWORD_LEN;
	{
		ArrayType  *a = DatumGetArrayTypeP(c->constvalue);
		Datum	   *elems;
		bool	   *nulls;
		int			n;

		if (ARR_ELEMTYPE(a) != TEXTOID)
			return false;
		deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
		for (int i = 0; i < n; i++)
			if (!nulls[i] && VARSIZE_ANY_EXHDR(DatumGetPointer(elems[i])) > OTS_MAX_SEARCH_KEYWORD_LEN)
				return false;
		return true;
	}
}

/*
 * search_plan_operator: may opno (of the column's type, the column on
 * side argno of a comparison with value; an array test when array) be
 * copied for a typed column of type?
 */
static bool
search_plan_operator(Oid opno, OtsValueType type, Oid collation, Node *value, bool array)
{
	Oid			funcid = get_opcode(opno);

	if (!OidIsValid(funcid) || !get_func_leakproof(funcid))
		return false;
	if (type == OTS_VT_STRING)
		return opno == TextEqualOperator && get_collation_isdeterministic(collation) &&
			search_plan_keyword_values(value, array);
	{
		Oid			family = search_plan_family(type);

		return OidIsValid(family) && op_in_opfamily(opno, family);
	}
}

/* search_plan_cond: does qual read as a condition a search field may serve?  Fills c */
static bool
search_plan_cond(Node *qual, const OtsView *view, const OtsViewFuncs *funcs, SearchPlanCond *c)
{
	memset(c, 0, sizeof(*c));
	c->qual = (Expr *) qual;
	if (IsA(qual, OpExpr) && list_length(((OpExpr *) qual)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) qual;

		for (c->argno = 0; c->argno < 2; c->argno++)
			if (search_plan_column(list_nth(op->args, c->argno), view, funcs, c))
			{
				Node	   *value = list_nth(op->args, 1 - c->argno);

				return index_plan_value(value) &&
					search_plan_operator(op->opno, c->type, op->inputcollid, value, false);
			}
		return false;
	}
	if (IsA(qual, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) qual;

		return sa->useOr && search_plan_column(linitial(sa->args), view, funcs, c) &&
			index_plan_value(lsecond(sa->args)) &&
			search_plan_operator(sa->opno, c->type, sa->inputcollid, lsecond(sa->args), true);
	}
	if (IsA(qual, FuncExpr) && OidIsValid(funcs->search_match) &&
		((FuncExpr *) qual)->funcid == funcs->search_match)
	{
		FuncExpr   *f = (FuncExpr *) qual;

		ListCell   *lc;

		c->match = true;
		/* positional arguments (defaults are not filled in yet), the analyzer's known now */
		foreach(lc, f->args)
			if (IsA(lfirst(lc), NamedArgExpr) || (foreach_current_index(lc) >= 2 && !IsA(lfirst(lc), Const)))
				return false;
		return list_length(f->args) >= 2 && search_plan_column(linitial(f->args), view, funcs, c) &&
			c->type == OTS_VT_STRING && index_plan_value(lsecond(f->args));
	}
	return false;
}

/*
 * search_plan_match_arg: argument 2 (the analyzer's name) or 3 (its
 * parameters) of c's ots.search_match call, NULL when not given (the
 * default: single_word and no parameters)
 */
static Const *
search_plan_match_arg(const SearchPlanCond *c, int n)
{
	List	   *args = ((FuncExpr *) c->qual)->args;

	if (list_length(args) > n)
		return list_nth(args, n);
	return makeNullConst(n == 2 ? TEXTOID : JSONBOID, -1, n == 2 ? DEFAULT_COLLATION_OID : InvalidOid);
}

/* search_plan_field: the top-level field of si named column that serves c, or NULL */
static const SearchField *
search_plan_field(const SearchIndex *si, const SearchPlanCond *c)
{
	const SearchField *f = search_field_find(&si->schema, c->column);

	if (f == NULL || !f->index || f->is_array || f->pk_column > 0)
		return NULL;
	if (c->match)
	{
		Const	   *name = search_plan_match_arg(c, 2);
		Const	   *parameter = search_plan_match_arg(c, 3);

		/*
		 * the field's analyzer as its schema gives it, name and parameters
		 * alike: compared, not read, so that a call the plain plan never
		 * makes raises nothing here
		 */
		if (f->type != SEARCH_TEXT ||
			strcmp(name->constisnull ? "single_word" : TextDatumGetCString(name->constvalue),
				   search_analyzer_name(f->analyzer.kind)) != 0)
			return NULL;
		if (parameter->constisnull || f->analyzer_parameter == NULL)
			return parameter->constisnull && f->analyzer_parameter == NULL ? f : NULL;
		return compareJsonbContainers(&DatumGetJsonbP(parameter->constvalue)->root,
									  &f->analyzer_parameter->root) == 0 ? f : NULL;
	}
	switch (c->type)
	{
		case OTS_VT_STRING:
			return f->type == SEARCH_KEYWORD ? f : NULL;
		case OTS_VT_INTEGER:
			return f->type == SEARCH_LONG ? f : NULL;
		case OTS_VT_DOUBLE:
			return f->type == SEARCH_DOUBLE ? f : NULL;
		case OTS_VT_BOOLEAN:
			return f->type == SEARCH_BOOLEAN ? f : NULL;
		default:
			return NULL;
	}
}

/* search_plan_copy: c's condition on field f of si's storage (Vars of varno 1) */
static Expr *
search_plan_copy(const SearchIndex *si, const SearchField *f, const SearchPlanCond *c, const OtsViewFuncs *funcs)
{
	AttrNumber	attno = si->field_attnos[f - si->schema.fields];
	Oid			type = search_field_type_oid(f);
	Var		   *col = makeVar(1, attno, type, -1, type == TEXTOID ? C_COLLATION_OID : InvalidOid, 0);
	Expr	   *copy = copyObject(c->qual);

	if (c->match)
	{
		FuncExpr   *call = (FuncExpr *) copy;
		FuncExpr   *tokens = makeFuncExpr(funcs->search_match_tokens, TEXTARRAYOID,
										  list_make3(lsecond(call->args), search_plan_match_arg(c, 2),
													 search_plan_match_arg(c, 3)),
										  InvalidOid, DEFAULT_COLLATION_OID, COERCE_EXPLICIT_CALL);

		/* the field holds every token of the query: its GIN index finds the rows (of its collation, "C") */
		return make_opclause(OID_ARRAY_CONTAINS_OP, BOOLOID, false, (Expr *) col, (Expr *) tokens,
							 InvalidOid, C_COLLATION_OID);
	}
	/*
	 * compared in the column's collation, "C", so that its btree index serves:
	 * the same answer, as only deterministic equality of text is copied
	 */
	if (IsA(copy, OpExpr))
	{
		list_nth_cell(((OpExpr *) copy)->args, c->argno)->ptr_value = col;
		if (type == TEXTOID)
			((OpExpr *) copy)->inputcollid = C_COLLATION_OID;
	}
	else
	{
		linitial(((ScalarArrayOpExpr *) copy)->args) = col;
		if (type == TEXTOID)
			((ScalarArrayOpExpr *) copy)->inputcollid = C_COLLATION_OID;
	}
	return copy;
}

bool
search_plan_view(Query *query, const OtsView *view, const OtsViewFuncs *funcs, bool *transient)
{
	const OtsTable *base = view->table;
	List	   *conds = NIL;
	const SearchIndex *best = NULL;
	List	   *best_quals = NIL;
	ListCell   *lc;
	Node	   *link;
	Snapshot	snapshot = ActiveSnapshotSet() ? GetActiveSnapshot() : NULL;

	/* no row-level security may apply to the storage: the index would read rows it hides */
	if (!ots_search_scan || base->is_index || base->nsearch == 0 ||
		view->storage->securityQuals != NIL ||
		query->jointree == NULL || query->jointree->quals == NULL)
		return false;
	foreach(lc, make_ands_implicit((Expr *) query->jointree->quals))
	{
		SearchPlanCond c;

		if (search_plan_cond(lfirst(lc), view, funcs, &c))
		{
			SearchPlanCond *copy = palloc(sizeof(c));

			*copy = c;
			conds = lappend(conds, copy);
		}
	}
	if (conds == NIL)
		return false;
	/* the index serving the most of them; the first such by name */
	for (int i = 0; i < base->nsearch; i++)
	{
		const SearchIndex *si = search_index_get(base, base->search_data_oids[i], AccessShareLock);
		List	   *quals = NIL;

		if (!search_index_visible(si, snapshot))
			continue;
		foreach(lc, conds)
		{
			SearchPlanCond *c = lfirst(lc);
			const SearchField *f = search_plan_field(si, c);

			if (f != NULL)
				quals = lappend(quals, search_plan_copy(si, f, c, funcs));
		}
		if (list_length(quals) > list_length(best_quals))
		{
			best = si;
			best_quals = quals;
		}
	}
	if (best == NULL || !index_plan_storage_checked(view))
		return false;
	link = index_plan_semijoin(base, best->storage_oid, RELKIND_RELATION, best_quals, view->storage_rti, "ots_search");
	if (link == NULL)
		return false;
	view->query->jointree->quals = make_and_qual(view->query->jointree->quals, link);
	view->query->hasSubLinks = true;
	/* a snapshot some session holds, which another may import, may not see it yet */
	*transient |= TransactionIdIsNormal(best->ready_xmin) &&
		!TransactionIdPrecedes(best->ready_xmin, GetOldestNonRemovableTransactionId(NULL));
	return true;
}
