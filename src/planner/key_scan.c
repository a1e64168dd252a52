/*-------------------------------------------------------------------------
 * src/planner/key_scan.c
 *	  The ots key scan: a SELECT over ots storage (a table's view, or the
 *	  storage itself) whose WHERE fixes the partition key reads that one
 *	  key's rows from its leaf, routed in C at execution, through the
 *	  leaf's primary-key index, as get_row does.
 *
 * Why: PostgreSQL 15 plans such a statement over every leaf.  A custom plan
 * prunes at planning, but planning is most of a point query; a generic plan
 * (a prepared statement's parameter) lists every leaf, locks them all at
 * every execution and sets up run-time pruning: a plain table partitioned
 * the same way answers a point query at 0.76 of an unpartitioned one.  The
 * key scan plans the storage as one relation (no leaf in the plan, one lock
 * on the storage), finds the leaf by hashing the key value as PostgreSQL's
 * tuple routing does, and reads the rows of that key in key order.
 *
 * When: the planner asks get_relation_info about the storage before it
 * expands it into leaves.  If the query is a plain SELECT of the storage
 * (no locking clause, no row-level security on it, a direct member of the
 * query's FROM list, none of its system columns read) and its WHERE has an
 * equality on the partition key (the first key column) with a value known
 * before the scan (a constant, a parameter; nothing volatile, no column),
 * key_scan_relation_info keeps the storage unexpanded and key_scan_pathlist
 * offers the key scan as its only path.  Equalities on the next key columns,
 * then comparisons of the one after under its collation, narrow the index
 * scan; every
 * condition of the WHERE is still checked on each row (the scan's qual), so
 * the scan only has to return every row that can satisfy them.  Rows come in
 * key order, which the path says (ORDER BY the next key column needs no
 * sort).
 *
 * The scan needs nothing of ots's catalog: the key columns are the storage's
 * primary key, the leaves and their bounds PostgreSQL's partition descriptor;
 * a leaf without a primary key on those columns is reported damaged.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/attmap.h"
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_statistic.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/plancat.h"
#include "optimizer/prep.h"
#include "optimizer/restrictinfo.h"
#include "parser/parse_coerce.h"
#include "parser/parsetree.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/partcache.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "guc.h"
#include "planner/key_scan.h"
#include "query_walk.h"
#include "meta/storage.h"

#define KEY_SCAN_NAME "OtsKeyScan"

/* a storage relation planned as a key scan, between the two planner hooks */
typedef struct KeyScanChoice
{
	RangeTblEntry *rte;
	int			nkeys;			/* key columns of the storage */
	int			nfixed;			/* leading key columns fixed by an equality */
	int			nbounded;		/* comparisons bounding the next key column */
	List	   *attnos;			/* the storage's key columns (Integer), in key order */
	List	   *strategies;		/* btree strategy of each scan key (int) */
	List	   *values;			/* the values of the scan keys: nfixed, then nbounded */
	double		tuples;			/* rows of all leaves (pg_class.reltuples) */
} KeyScanChoice;

/*
 * the choices of the statement being planned; they live in its memory, and
 * each planner call starts with none and gives back its caller's (a planner
 * call can nest, and can fail between the two hooks)
 */
static List *key_scan_choices = NIL;

typedef struct KeyScanState
{
	CustomScanState css;
	List	   *value_states;	/* ExprStates of the scan keys' values */
	List	   *attnos;
	int			nfixed;
	List	   *strategies;
	bool		started;
	bool		done;
	Relation	leaf;
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *leaf_slot;
	AttrMap    *map;			/* storage attribute -> leaf attribute, or NULL */
	MemoryContext key_cxt;		/* the key values of the current scan */
} KeyScanState;

static Plan *key_scan_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
						   List *tlist, List *clauses, List *custom_plans);
static Node *key_scan_create_state(CustomScan *cscan);
static void key_scan_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *key_scan_exec(CustomScanState *node);
static void key_scan_end(CustomScanState *node);
static void key_scan_rescan(CustomScanState *node);
static void key_scan_explain(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomPathMethods key_scan_path_methods = {
	.CustomName = KEY_SCAN_NAME,
	.PlanCustomPath = key_scan_plan,
};

static const CustomScanMethods key_scan_plan_methods = {
	.CustomName = KEY_SCAN_NAME,
	.CreateCustomScanState = key_scan_create_state,
};

static const CustomExecMethods key_scan_exec_methods = {
	.CustomName = KEY_SCAN_NAME,
	.BeginCustomScan = key_scan_begin,
	.ExecCustomScan = key_scan_exec,
	.EndCustomScan = key_scan_end,
	.ReScanCustomScan = key_scan_rescan,
	.ExplainCustomScan = key_scan_explain,
};

List *
key_scan_forget_choices(void)
{
	List	   *saved = key_scan_choices;

	key_scan_choices = NIL;
	return saved;
}

void
key_scan_restore_choices(List *saved)
{
	key_scan_choices = saved;
}

void
key_scan_init(void)
{
	RegisterCustomScanMethods(&key_scan_plan_methods);
}

/* ---- planning ---- */

/* key_scan_in_from_list: is rti a direct member of the query's FROM list? */
static bool
key_scan_in_from_list(Query *parse, Index rti)
{
	ListCell   *lc;

	foreach(lc, parse->jointree->fromlist)
	{
		Node	   *n = lfirst(lc);

		if (IsA(n, RangeTblRef) && ((RangeTblRef *) n)->rtindex == (int) rti)
			return true;
	}
	return false;
}

/*
 * key_scan_bounds: the comparisons in quals (the WHERE, ANDed) of key column
 * attno of relation rti with a value known before the scan: each as a btree
 * strategy (as if the column were on the left) and the value, converted to
 * the column's type.  The value may not depend on the relation's rows nor
 * be volatile; the comparison must be the column type's btree operator (a
 * cross-type one whose other side converts implicitly, as int4 to int8),
 * under the column's collation (an equality: any deterministic one).
 */
static void
key_scan_bounds(Index rti, AttrNumber attno, Oid type, Oid collation, List *quals,
				List **strategies, List **values)
{
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_BTREE_OPFAMILY);
	ListCell   *lc;

	*strategies = NIL;
	*values = NIL;
	foreach(lc, quals)
	{
		OpExpr	   *op = lfirst(lc);
		Node	   *left;
		Node	   *right;
		Node	   *other;
		Node	   *value;
		int			strategy;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2 ||
			(strategy = get_op_opfamily_strategy(op->opno, tc->btree_opf)) == 0)
			continue;
		/* any deterministic collation compares equal as the column's does; order is the column's own */
		if (OidIsValid(op->inputcollid) && op->inputcollid != collation &&
			(strategy != BTEqualStrategyNumber || !get_collation_isdeterministic(op->inputcollid)))
			continue;
		left = strip_implicit_coercions(linitial(op->args));
		right = strip_implicit_coercions(lsecond(op->args));
		if (IsA(left, Var) && ((Var *) left)->varno == rti && ((Var *) left)->varattno == attno &&
			((Var *) left)->varlevelsup == 0)
			other = lsecond(op->args);
		else if (IsA(right, Var) && ((Var *) right)->varno == rti &&
				 ((Var *) right)->varattno == attno && ((Var *) right)->varlevelsup == 0)
		{
			other = linitial(op->args);
			strategy = BTCommuteStrategyNumber(strategy);
		}
		else
			continue;
		if (contain_vars_of_level(other, 0) || contain_volatile_functions(other) ||
			contain_subplans(other))
			continue;
		value = coerce_to_target_type(NULL, other, exprType(other), type, -1,
									  COERCION_IMPLICIT, COERCE_IMPLICIT_CAST, -1);
		if (value == NULL)
			continue;
		*strategies = lappend_int(*strategies, strategy);
		*values = lappend(*values, value);
	}
}

/* key_scan_reltuples: rows of a leaf as pg_class estimates them */
static double
key_scan_reltuples(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	double		n = 0;

	if (HeapTupleIsValid(tup))
	{
		n = Max(((Form_pg_class) GETSTRUCT(tup))->reltuples, 0);
		ReleaseSysCache(tup);
	}
	return n;
}

/*
 * key_scan_choose: a key scan of the storage relation, or NULL.  relation is
 * the storage, locked by the planner.
 */
static KeyScanChoice *
key_scan_choose(PlannerInfo *root, Index rti, Relation relation)
{
	Query	   *parse = root->parse;
	PartitionKey partkey = RelationGetPartitionKey(relation);
	PartitionDesc desc;
	Oid			pk_index = RelationGetPrimaryKeyIndex(relation);
	HeapTuple	tup;
	Form_pg_index index;
	KeyScanChoice *choice;
	List	   *quals;

	if (partkey == NULL || partkey->strategy != PARTITION_STRATEGY_HASH ||
		partkey->partnatts != 1 || partkey->partattrs[0] == 0 || !OidIsValid(pk_index))
		return NULL;
	desc = RelationGetPartitionDesc(relation, true);
	if (desc->nparts < 1 || !storage_is_ots_leaf(desc->oids[0]))
		return NULL;
	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(pk_index));
	if (!HeapTupleIsValid(tup))
		return NULL;
	index = (Form_pg_index) GETSTRUCT(tup);
	if (index->indkey.values[0] != partkey->partattrs[0])
	{
		ReleaseSysCache(tup);
		return NULL;
	}
	choice = palloc0(sizeof(KeyScanChoice));
	choice->rte = planner_rt_fetch(rti, root);
	choice->nkeys = index->indnkeyatts;
	quals = (List *) parse->jointree->quals;
	for (int i = 0; i < choice->nkeys; i++)
	{
		AttrNumber	attno = index->indkey.values[i];
		List	   *strategies;
		List	   *values;
		ListCell   *s;
		ListCell   *v;
		bool		fixed = false;

		if (attno <= 0)
			break;
		choice->attnos = lappend(choice->attnos, makeInteger(attno));
		if (choice->nfixed < i || choice->nbounded > 0)
			continue;
		key_scan_bounds(rti, attno, TupleDescAttr(RelationGetDescr(relation), attno - 1)->atttypid,
						TupleDescAttr(RelationGetDescr(relation), attno - 1)->attcollation,
						quals, &strategies, &values);
		forboth(s, strategies, v, values)
			if (lfirst_int(s) == BTEqualStrategyNumber && !fixed)
			{
				choice->strategies = lappend_int(choice->strategies, BTEqualStrategyNumber);
				choice->values = lappend(choice->values, lfirst(v));
				choice->nfixed++;
				fixed = true;
			}
		/* the column after the fixed ones may be bounded (a range of the key) */
		if (!fixed && i > 0)
			forboth(s, strategies, v, values)
			{
				choice->strategies = lappend_int(choice->strategies, lfirst_int(s));
				choice->values = lappend(choice->values, lfirst(v));
				choice->nbounded++;
			}
	}
	ReleaseSysCache(tup);
	if (choice->nfixed == 0 || list_length(choice->attnos) != choice->nkeys)
		return NULL;
	for (int i = 0; i < desc->nparts; i++)
		choice->tuples += key_scan_reltuples(desc->oids[i]);
	return choice;
}

/*
 * key_scan_relation_info (get_relation_info_hook) decides before the
 * planner expands the storage into its leaves: a chosen key scan keeps the
 * relation whole (inh off), so no leaf enters the plan.
 */
void
key_scan_relation_info(PlannerInfo *root, Oid relid, bool inhparent, RelOptInfo *rel)
{
	RangeTblEntry *rte;
	Relation	relation;
	KeyScanChoice *choice;

	if (!ots_key_scan || !inhparent || rel->reloptkind != RELOPT_BASEREL)
		return;
	rte = planner_rt_fetch(rel->relid, root);
	if (rte->rtekind != RTE_RELATION || rte->relkind != RELKIND_PARTITIONED_TABLE ||
		root->parse->commandType != CMD_SELECT || rte->tablesample != NULL ||
		rte->securityQuals != NIL || get_plan_rowmark(root->rowMarks, rel->relid) != NULL ||
		!key_scan_in_from_list(root->parse, rel->relid))
		return;
	relation = table_open(relid, NoLock);
	choice = key_scan_choose(root, rel->relid, relation);
	table_close(relation, NoLock);
	/* the scan returns the leaf's row as the storage's, which has no system columns of its own */
	if (choice == NULL ||
		query_walk_reads_columns(root->parse, rel->relid, FirstLowInvalidHeapAttributeNumber + 1, -1))
		return;
	rte->inh = false;
	rel->part_scheme = NULL;
	rel->nparts = 0;
	rel->boundinfo = NULL;
	rel->tuples = choice->tuples;
	key_scan_choices = lappend(key_scan_choices, choice);
}

/* key_scan_ndistinct: distinct values of a storage column (its statistics), or 0 */
static double
key_scan_ndistinct(Oid relid, AttrNumber attno, double tuples)
{
	HeapTuple	tup = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid),
									  Int16GetDatum(attno), BoolGetDatum(true));
	double		n = 0;

	if (HeapTupleIsValid(tup))
	{
		float4		d = ((Form_pg_statistic) GETSTRUCT(tup))->stadistinct;

		n = d > 0 ? d : -d * tuples;
		ReleaseSysCache(tup);
	}
	return n;
}

/*
 * key_scan_pathlist (from set_rel_pathlist_hook) gives a chosen storage
 * relation its one path, the key scan, in place of the empty path
 * PostgreSQL gives a partitioned table it does not expand.
 */
void
key_scan_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	KeyScanChoice *choice = NULL;
	CustomPath *path;
	ListCell   *lc;
	double		rows;
	List	   *pathkeys = NIL;
	int			k = 0;

	foreach(lc, key_scan_choices)
		if (((KeyScanChoice *) lfirst(lc))->rte == rte)
			choice = lfirst(lc);
	if (choice == NULL)
		return;
	key_scan_choices = list_delete_ptr(key_scan_choices, choice);

	/* the rows of the fixed key columns' values, from the storage's statistics */
	rows = choice->tuples;
	foreach(lc, choice->attnos)
	{
		double		nd;

		if (k++ >= choice->nfixed)
			break;
		nd = key_scan_ndistinct(rte->relid, intVal(lfirst(lc)), choice->tuples);
		rows = nd >= 1 ? rows / nd : rows * DEFAULT_EQ_SEL;
	}
	if (choice->nfixed == choice->nkeys)
		rows = 1;
	/* the width and the cost of the filter, which the empty path PostgreSQL gave it skipped */
	set_baserel_size_estimates(root, rel);
	rel->rows = clamp_row_est(rows);

	/* rows come in key order */
	foreach(lc, choice->attnos)
	{
		AttrNumber	attno = intVal(lfirst(lc));
		Oid			type;
		int32		typmod;
		Oid			collation;
		Expr	   *var;
		List	   *pathkey;

		get_atttypetypmodcoll(rte->relid, attno, &type, &typmod, &collation);
		var = (Expr *) makeVar(rti, attno, type, typmod, collation, 0);
		/* made even when nothing here sorts by it: a view's query may, above it */
		pathkey = build_expression_pathkey(root, var, NULL,
										   lookup_type_cache(type, TYPECACHE_LT_OPR)->lt_opr,
										   rel->relids, true);
		/* a column an equality fixes orders nothing: leave it out, as index paths do */
		if (!EC_MUST_BE_REDUNDANT(linitial_node(PathKey, pathkey)->pk_eclass) &&
			!list_member_ptr(pathkeys, linitial(pathkey)))
			pathkeys = lappend(pathkeys, linitial(pathkey));
	}

	path = makeNode(CustomPath);
	path->path.pathtype = T_CustomScan;
	path->path.parent = rel;
	path->path.pathtarget = rel->reltarget;
	path->path.parallel_safe = rel->consider_parallel;
	path->path.rows = rel->rows;
	/* an index descent, then each row read and checked */
	path->path.startup_cost = random_page_cost + rel->baserestrictcost.startup;
	path->path.total_cost = path->path.startup_cost + rel->rows *
		(cpu_index_tuple_cost + cpu_tuple_cost + rel->baserestrictcost.per_tuple) +
		Max(rel->rows / 10, 1) * seq_page_cost;
	path->path.pathkeys = pathkeys;
	path->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	path->custom_private = list_make4(choice->attnos, makeInteger(choice->nfixed),
									  choice->strategies, choice->values);
	path->methods = &key_scan_path_methods;
	rel->pathlist = list_make1(path);
	rel->partial_pathlist = NIL;
}

static Plan *
key_scan_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *scan = makeNode(CustomScan);

	scan->scan.plan.targetlist = tlist;
	/* every condition is checked on each row: the scan returns a superset */
	scan->scan.plan.qual = extract_actual_clauses(clauses, false);
	scan->scan.scanrelid = rel->relid;
	scan->flags = best_path->flags;
	scan->custom_exprs = lfourth(best_path->custom_private);
	scan->custom_private = list_make3(linitial(best_path->custom_private),
									  lsecond(best_path->custom_private),
									  lthird(best_path->custom_private));
	scan->methods = &key_scan_plan_methods;
	return &scan->scan.plan;
}

/* ---- execution ---- */

static Node *
key_scan_create_state(CustomScan *cscan)
{
	KeyScanState *ks = (KeyScanState *) newNode(sizeof(KeyScanState), T_CustomScanState);

	ks->css.methods = &key_scan_exec_methods;
	ks->attnos = linitial(cscan->custom_private);
	ks->nfixed = intVal(lsecond(cscan->custom_private));
	ks->strategies = lthird(cscan->custom_private);
	return (Node *) ks;
}

static void
key_scan_begin(CustomScanState *node, EState *estate, int eflags)
{
	KeyScanState *ks = (KeyScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	ks->value_states = ExecInitExprList(cscan->custom_exprs, &node->ss.ps);
	ks->key_cxt = AllocSetContextCreate(estate->es_query_cxt, "ots key scan values",
										ALLOCSET_SMALL_SIZES);
}

/* key_scan_close ends the scan of the leaf, if one is open */
static void
key_scan_close(KeyScanState *ks)
{
	if (ks->scan != NULL)
		index_endscan(ks->scan);
	if (ks->leaf_slot != NULL)
		ExecDropSingleTupleTableSlot(ks->leaf_slot);
	if (ks->index != NULL)
		index_close(ks->index, NoLock);
	if (ks->leaf != NULL)
		table_close(ks->leaf, NoLock);
	if (ks->map != NULL)
		free_attrmap(ks->map);
	ks->scan = NULL;
	ks->leaf_slot = NULL;
	ks->index = NULL;
	ks->leaf = NULL;
	ks->map = NULL;
	MemoryContextReset(ks->key_cxt);
}

/* key_scan_damaged reports a leaf the key scan cannot read by its key */
static void
key_scan_damaged(Relation storage, Relation leaf)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("ots storage %s is damaged: partition %s is not a plain table with a primary key on the storage's key columns",
					quote_identifier(RelationGetRelationName(storage)),
					quote_identifier(RelationGetRelationName(leaf)))));
}

/*
 * key_scan_start evaluates the key values, routes the partition key's value
 * to its leaf and opens an index scan of the leaf on the fixed key columns;
 * done when no row can match (a NULL value, no leaf for the value).
 */
static void
key_scan_start(KeyScanState *ks)
{
	ScanState  *ss = &ks->css.ss;
	EState	   *estate = ss->ps.state;
	ExprContext *econtext = ss->ps.ps_ExprContext;
	Relation	storage = ss->ss_currentRelation;
	TupleDesc	sdesc = RelationGetDescr(storage);
	PartitionKey partkey = RelationGetPartitionKey(storage);
	PartitionDesc desc = RelationGetPartitionDesc(storage, true);
	Datum		values[INDEX_MAX_KEYS];
	ScanKeyData keys[INDEX_MAX_KEYS];
	bool		isnull = false;
	MemoryContext old;
	uint64		hash;
	int			part;
	Oid			pk_index;
	ListCell   *lc;
	int			i = 0;
	int			nvalues;

	ks->started = true;
	ks->done = true;
	/* the index scan keeps pointing at the values: they live until the scan ends */
	old = MemoryContextSwitchTo(ks->key_cxt);
	foreach(lc, ks->value_states)
	{
		int			col = Min(i, ks->nfixed);
		Form_pg_attribute att = TupleDescAttr(sdesc, intVal(list_nth(ks->attnos, col)) - 1);
		Datum		v = ExecEvalExpr(lfirst(lc), econtext, &isnull);

		if (isnull)
			break;
		values[i++] = datumCopy(v, att->attbyval, att->attlen);
	}
	MemoryContextSwitchTo(old);
	nvalues = i;
	if (isnull || partkey == NULL || desc->boundinfo == NULL || desc->nparts == 0)
		return;
	hash = compute_partition_hash_value(1, partkey->partsupfunc, partkey->partcollation,
										&values[0], &isnull);
	part = desc->boundinfo->indexes[hash % desc->boundinfo->nindexes];
	if (part < 0)
		return;

	ks->leaf = table_open(desc->oids[part], AccessShareLock);
	pk_index = RelationGetPrimaryKeyIndex(ks->leaf);
	if (ks->leaf->rd_rel->relkind != RELKIND_RELATION || !OidIsValid(pk_index))
		key_scan_damaged(storage, ks->leaf);
	ks->index = index_open(pk_index, AccessShareLock);
	if (ks->index->rd_index->indnkeyatts < Min(ks->nfixed + 1, list_length(ks->attnos)))
		key_scan_damaged(storage, ks->leaf);
	ks->map = build_attrmap_by_name_if_req(RelationGetDescr(ks->leaf), sdesc);
	for (i = 0; i < nvalues; i++)
	{
		int			col = Min(i, ks->nfixed);
		AttrNumber	leaf_attno = ks->index->rd_index->indkey.values[col];
		AttrNumber	attno = intVal(list_nth(ks->attnos, col));
		Oid			type = ks->index->rd_opcintype[col];
		int			strategy = list_nth_int(ks->strategies, i);
		Oid			op = get_opfamily_member(ks->index->rd_opfamily[col], type, type, strategy);

		/* the leaf's index must be on the storage's key columns, in order */
		if (leaf_attno != (ks->map != NULL ? ks->map->attnums[attno - 1] : attno) ||
			type != TupleDescAttr(sdesc, attno - 1)->atttypid || !OidIsValid(op))
			key_scan_damaged(storage, ks->leaf);
		ScanKeyInit(&keys[i], col + 1, strategy, get_opcode(op), values[i]);
		keys[i].sk_collation = ks->index->rd_indcollation[col];
	}
	ks->leaf_slot = table_slot_create(ks->leaf, NULL);
	ks->scan = index_beginscan(ks->leaf, ks->index, estate->es_snapshot, nvalues, 0);
	index_rescan(ks->scan, keys, nvalues, NULL, 0);
	ks->done = false;
}

/* key_scan_next returns the leaf's next row of the key, as a row of the storage */
static TupleTableSlot *
key_scan_next(ScanState *ss)
{
	KeyScanState *ks = (KeyScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	int			natts = slot->tts_tupleDescriptor->natts;

	if (!ks->started)
		key_scan_start(ks);
	ExecClearTuple(slot);
	if (ks->done)
		return slot;
	if (!index_getnext_slot(ks->scan, ForwardScanDirection, ks->leaf_slot))
	{
		ks->done = true;
		return slot;
	}
	/* the values point into the leaf's row, which stays until the next one */
	slot_getallattrs(ks->leaf_slot);
	for (int i = 0; i < natts; i++)
	{
		int			from = ks->map != NULL ? ks->map->attnums[i] - 1 : i;

		if (from < 0)
		{
			slot->tts_values[i] = (Datum) 0;
			slot->tts_isnull[i] = true;
			continue;
		}
		slot->tts_values[i] = ks->leaf_slot->tts_values[from];
		slot->tts_isnull[i] = ks->leaf_slot->tts_isnull[from];
	}
	ExecStoreVirtualTuple(slot);
	slot->tts_tableOid = ks->leaf_slot->tts_tableOid;
	slot->tts_tid = ks->leaf_slot->tts_tid;
	return slot;
}

static bool
key_scan_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
key_scan_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, key_scan_next, key_scan_recheck);
}

static void
key_scan_end(CustomScanState *node)
{
	key_scan_close((KeyScanState *) node);
}

static void
key_scan_rescan(CustomScanState *node)
{
	KeyScanState *ks = (KeyScanState *) node;

	key_scan_close(ks);
	ks->started = false;
	ks->done = false;
	ExecScanReScan(&node->ss);
}

static void
key_scan_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	KeyScanState *ks = (KeyScanState *) node;
	Relation	storage = node->ss.ss_currentRelation;
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < ks->nfixed; i++)
		appendStringInfo(&buf, "%s%s", i > 0 ? ", " : "",
						 quote_identifier(NameStr(TupleDescAttr(RelationGetDescr(storage),
																intVal(list_nth(ks->attnos, i)) - 1)->attname)));
	ExplainPropertyText("Key Columns", buf.data, es);
	if (list_length(ks->strategies) > ks->nfixed)
		ExplainPropertyText("Key Range",
							quote_identifier(NameStr(TupleDescAttr(RelationGetDescr(storage),
																   intVal(list_nth(ks->attnos, ks->nfixed)) - 1)->attname)),
							es);
}
