/*-------------------------------------------------------------------------
 * src/store/storage_range.c
 *	  Range scans of a table's storage in stored key order: open a range
 *	  over two primary-key bounds in a direction, read its rows one by one,
 *	  close it.
 *
 * A range reads the primary-key index of each leaf that can hold its rows,
 * as rowstore reads one row: without the executor or SQL, under the
 * statement's snapshot, after the caller checked privileges on the storage.
 * Each bound is a row comparison on the stored key ((c1, c2) >= (v1, v2)),
 * given to the index as PostgreSQL's executor gives it, so each leaf's scan
 * starts at the bound and stops at the other; INF_MIN/INF_MAX cut a bound
 * down to the columns before them.  When both bounds fix the partition key,
 * the range is routed to its one leaf; otherwise the leaves' scans, each in
 * key order, are merged (a binary heap of their current rows).  One row of
 * each leaf is held at a time, so a range's memory does not grow with its
 * length.  (Ranges went through an SQL cursor before: opening it and merging
 * in the executor cost more than reading the rows.)
 *
 * Hash-prefixed tables store ("$hash", key...), and a range walks that
 * stored order: each bound's natural key is mapped to its stored position,
 * so a range within one partition key (or over the whole table) means what
 * it says, while a range across partition keys covers the rows whose
 * stored keys fall between the two mapped bounds.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "executor/tuptable.h"
#include "lib/binaryheap.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "meta/storage.h"
#include "store/leaf.h"
#include "store/routing.h"

typedef enum BoundOp
{
	BOUND_NONE,					/* no condition */
	BOUND_EMPTY,				/* nothing can satisfy it */
	BOUND_GE,
	BOUND_GT,
	BOUND_LE,
	BOUND_LT
} BoundOp;

/* one side of a range as a condition on the first ncols stored key columns */
typedef struct RangeBound
{
	BoundOp		op;
	int			ncols;
	Datum		values[OTS_MAX_KEY_COLUMNS + 1];
	Oid			types[OTS_MAX_KEY_COLUMNS + 1];
} RangeBound;

/* one leaf's scan of the range, and its current row */
typedef struct RangeLeaf
{
	Relation	leaf;
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	AttrNumber	cells_attno;	/* copied: the leaf cache entry may go stale mid-range */
	AttrNumber	key_attnos[OTS_MAX_KEY_COLUMNS + 1];
	MemoryContext row_ctx;		/* the current row's decoded key */
	bool		has_row;
	int64		hash;			/* its "$hash" (hash-prefixed tables) */
	PkInput		pk;				/* its key, pointing into the row or row_ctx */
	ScanKeyData keys[OTS_MAX_KEY_COLUMNS + 3];	/* the equal prefix, then the two bounds */
	ScanKeyData members[2][OTS_MAX_KEY_COLUMNS + 1];
} RangeLeaf;

struct StorageRange
{
	const OtsTable *t;
	ScanDirection direction;
	Snapshot	snapshot;
	int			nleaves;
	RangeLeaf  *leaves;
	binaryheap *heap;			/* leaves with a current row, the next row first */
	RangeLeaf  *returned;		/* the leaf of the row returned last, to move on */
	bool		open;
	MemoryContext cxt;			/* holds the range: index scans allocate as they go */
	int			prefix;			/* leading key columns both bounds fix alike */
};

/*
 * storage_range_compare orders two bounds in stored order, column by
 * column, with INF_MIN < every value < INF_MAX.
 */
int
storage_range_compare(const OtsTable *t, const PkInput *a, const PkInput *b)
{
	/* a prefixed table is ordered by the prefix first */
	if (t->hash_prefix_len > 0 && a->special[0] == PK_VALUE && b->special[0] == PK_VALUE)
	{
		int64		ha = storage_hash_prefix(&a->v[0], t->hash_prefix_len);
		int64		hb = storage_hash_prefix(&b->v[0], t->hash_prefix_len);

		if (ha != hb)
			return ha < hb ? -1 : 1;
	}
	for (int i = 0; i < t->npk; i++)
	{
		int			ra = a->special[i] == PK_INF_MIN ? -1 : a->special[i] == PK_INF_MAX ? 1 : 0;
		int			rb = b->special[i] == PK_INF_MIN ? -1 : b->special[i] == PK_INF_MAX ? 1 : 0;
		int			c;

		if (ra != rb)
			return ra < rb ? -1 : 1;
		if (ra != 0)
			continue;
		c = ots_value_compare(&a->v[i], &b->v[i]);
		if (c != 0)
			return c;
	}
	return 0;
}

/*
 * range_bound converts one bound into a condition on the stored key:
 * "lower" for the side rows must be above (start of FORWARD, end of
 * BACKWARD), "inclusive" for the start.
 */
static void
range_bound(const OtsTable *t, const PkInput *pk, bool lower, bool inclusive, RangeBound *b)
{
	int			first_inf = t->npk;

	for (int i = 0; i < t->npk; i++)
		if (pk->special[i] != PK_VALUE)
		{
			first_inf = i;
			break;
		}
	b->ncols = storage_key(t, pk, first_inf, b->values, b->types);

	if (first_inf == t->npk)
		b->op = lower ? (inclusive ? BOUND_GE : BOUND_GT) : (inclusive ? BOUND_LE : BOUND_LT);
	else
	{
		/* an INF at column i decides the comparison of the columns before it */
		bool		inf_min = pk->special[first_inf] == PK_INF_MIN;

		if (lower)
			b->op = inf_min ? BOUND_GE : BOUND_GT;
		else
			b->op = inf_min ? BOUND_LT : BOUND_LE;
		if (first_inf == 0)
			b->op = (b->op == BOUND_GE || b->op == BOUND_LE) ? BOUND_NONE : BOUND_EMPTY;
	}
}

/* range_strategy: the btree strategy of a bound's comparison */
static StrategyNumber
range_strategy(BoundOp op)
{
	switch (op)
	{
		case BOUND_GE:
			return BTGreaterEqualStrategyNumber;
		case BOUND_GT:
			return BTGreaterStrategyNumber;
		case BOUND_LE:
			return BTLessEqualStrategyNumber;
		default:
			return BTLessStrategyNumber;
	}
}

/*
 * range_scan_key makes columns [first, last) of one bound a scan key of a
 * leaf's primary-key index: a comparison of one column, or a row comparison
 * of several built as the executor builds one (ExecIndexBuildScanKeys).
 * With first > 0 the columns before are equal in both bounds and have
 * equality keys, so the btree stops at this bound too (it stops only on a
 * row comparison's first column).
 */
static void
range_scan_key(Relation index, const RangeBound *b, int first, int last,
			   StrategyNumber strategy, ScanKey key, ScanKey members)
{
	int			ncols = last - first;

	for (int k = first; k < last; k++)
	{
		Oid			family = index->rd_opfamily[k];
		Oid			type = index->rd_opcintype[k];
		RegProcedure proc;

		if (ncols == 1)
			proc = get_opcode(get_opfamily_member(family, type, type, strategy));
		else
			proc = get_opfamily_proc(family, type, type, BTORDER_PROC);
		if (!RegProcedureIsValid(proc) || type != b->types[k])
			elog(ERROR, "ots range: the primary key of \"%s\" does not match its storage",
				 RelationGetRelationName(index));
		ScanKeyEntryInitialize(ncols == 1 ? key : &members[k - first],
							   ncols == 1 ? 0 : SK_ROW_MEMBER | (k == last - 1 ? SK_ROW_END : 0),
							   k + 1, strategy, type, index->rd_indcollation[k], proc,
							   b->values[k]);
	}
	if (ncols > 1)
		ScanKeyEntryInitialize(key, SK_ROW_HEADER, first + 1, strategy, members[0].sk_subtype,
							   members[0].sk_collation, InvalidOid, PointerGetDatum(members));
}

/*
 * range_equal_prefix: how many leading stored key columns both bounds give
 * the same value (a range within one partition key, a time series' key...)
 */
static int
range_equal_prefix(const RangeBound *lo, const RangeBound *hi)
{
	int			n = 0;

	/* stored key columns are bigint (by value) or text and bytea (varlena, built alike) */
	while (n < lo->ncols && n < hi->ncols && lo->types[n] == hi->types[n] &&
		   datumIsEqual(lo->values[n], hi->values[n], lo->types[n] == INT8OID,
						lo->types[n] == INT8OID ? sizeof(int64) : -1))
		n++;
	return n;
}

/* range_advance reads a leaf's next row of the range, if any */
static bool
range_advance(StorageRange *r, RangeLeaf *l)
{
	const OtsTable *t = r->t;
	int			first = t->hash_prefix_len > 0 ? 1 : 0;
	MemoryContext old;
	bool		isnull;

	/* an index AM keeps what it allocates mid-scan: not in the caller's per-row memory */
	old = MemoryContextSwitchTo(r->cxt);
	l->has_row = index_getnext_slot(l->scan, r->direction, l->slot);
	MemoryContextSwitchTo(old);
	if (!l->has_row)
		return false;
	MemoryContextReset(l->row_ctx);
	old = MemoryContextSwitchTo(l->row_ctx);
	if (first)
		l->hash = DatumGetInt64(slot_getattr(l->slot, l->key_attnos[0], &isnull));
	l->pk.n = t->npk;
	for (int i = 0; i < t->npk; i++)
		l->pk.special[i] = PK_VALUE;
	/* a primary key's columns are never null */
	(void) storage_leaf_key(t, l->key_attnos, l->slot, l->pk.v);
	MemoryContextSwitchTo(old);
	return true;
}

/* range_leaf_cmp orders two leaves' current rows so the next one comes first */
static int
range_leaf_cmp(Datum a, Datum b, void *arg)
{
	const StorageRange *r = arg;
	const RangeLeaf *x = (const RangeLeaf *) DatumGetPointer(a);
	const RangeLeaf *y = (const RangeLeaf *) DatumGetPointer(b);
	int			c = 0;

	if (r->t->hash_prefix_len > 0 && x->hash != y->hash)
		c = x->hash < y->hash ? -1 : 1;
	for (int i = 0; c == 0 && i < r->t->npk; i++)
		c = ots_value_compare(&x->pk.v[i], &y->pk.v[i]);
	/* binaryheap puts its largest first */
	return ScanDirectionIsForward(r->direction) ? -c : c;
}

/* range_open_leaf starts the scan of one leaf over the bounds */
static void
range_open_leaf(StorageRange *r, RangeLeaf *l, Oid leaf_oid, const RangeBound *lo,
				const RangeBound *hi)
{
	int			nkeys = 0;
	Oid			pk_index;
	LeafCache  *lp;

	l->leaf = table_open(leaf_oid, AccessShareLock);
	lp = leaf_attnums(r->t, leaf_oid);	/* checks the leaf is as ots made it */
	/* the leaf is locked: its columns stay where they are, but lp may be marked stale at any lock */
	l->cells_attno = lp->cells_attno;
	memcpy(l->key_attnos, lp->key_attnos, sizeof(l->key_attnos));
	pk_index = RelationGetPrimaryKeyIndex(l->leaf);
	if (!OidIsValid(pk_index))
		catalog_report_damaged(r->t, psprintf("partition %s of its storage table has no primary key",
											  quote_identifier(RelationGetRelationName(l->leaf))));
	l->index = index_open(pk_index, AccessShareLock);
	for (int k = 0; k < r->prefix; k++)
		range_scan_key(l->index, lo, k, k + 1, BTEqualStrategyNumber, &l->keys[nkeys++], NULL);
	if (lo->ncols > r->prefix)
		range_scan_key(l->index, lo, r->prefix, lo->ncols, range_strategy(lo->op),
					   &l->keys[nkeys++], l->members[0]);
	if (hi->ncols > r->prefix)
		range_scan_key(l->index, hi, r->prefix, hi->ncols, range_strategy(hi->op),
					   &l->keys[nkeys++], l->members[1]);
	l->slot = table_slot_create(l->leaf, NULL);
	l->row_ctx = AllocSetContextCreate(CurrentMemoryContext, "ots range row key",
									   ALLOCSET_SMALL_SIZES);
	l->scan = index_beginscan(l->leaf, l->index, r->snapshot, nkeys, 0);
	index_rescan(l->scan, l->keys, nkeys, NULL, 0);
}

/*
 * storage_range_open opens the range of t's storage from start (inclusive)
 * to end (exclusive), read forward or backward (OTSObjectNotExist when the
 * storage is gone).  The range lives in CurrentMemoryContext, and reads
 * under the active snapshot until storage_range_close.
 */
StorageRange *
storage_range_open(const OtsTable *t, const PkInput *start, const PkInput *end, bool backward)
{
	StorageRange *r = palloc0(sizeof(StorageRange));
	RangeBound	lo;
	RangeBound	hi;
	Oid		   *leaves;

	r->t = t;
	r->cxt = CurrentMemoryContext;
	r->direction = backward ? BackwardScanDirection : ForwardScanDirection;
	range_bound(t, backward ? end : start, true, !backward, &lo);
	range_bound(t, backward ? start : end, false, backward, &hi);
	if (lo.op == BOUND_EMPTY || hi.op == BOUND_EMPTY)
		return r;
	/*
	 * Columns both bounds fix alike become equality keys.  A bound made of
	 * them alone is then met by every row (>=, <=) or by none (>, <).
	 */
	r->prefix = range_equal_prefix(&lo, &hi);
	if ((lo.ncols == r->prefix && lo.op == BOUND_GT) || (hi.ncols == r->prefix && hi.op == BOUND_LT))
		return r;

	/* both bounds fix the partition key: its one leaf ("$hash" routes prefixed storage) */
	if (start->special[0] == PK_VALUE && end->special[0] == PK_VALUE &&
		ots_value_compare(&start->v[0], &end->v[0]) == 0)
	{
		leaves = palloc(sizeof(Oid));
		routing_leaves(t, 1, &lo.values[0], leaves);
		r->nleaves = 1;
	}
	else
		leaves = routing_all_leaves(t, &r->nleaves);

	r->snapshot = RegisterSnapshot(GetActiveSnapshot());
	r->open = true;
	r->leaves = palloc0(sizeof(RangeLeaf) * Max(r->nleaves, 1));
	r->heap = binaryheap_allocate(Max(r->nleaves, 1), range_leaf_cmp, r);
	for (int i = 0; i < r->nleaves; i++)
	{
		range_open_leaf(r, &r->leaves[i], leaves[i], &lo, &hi);
		if (range_advance(r, &r->leaves[i]))
			binaryheap_add_unordered(r->heap, PointerGetDatum(&r->leaves[i]));
	}
	binaryheap_build(r->heap);
	return r;
}

/*
 * storage_range_next reads the range's next row: its primary key into pk
 * and its stored cells as they are stored (possibly compressed or a TOAST
 * pointer), both valid until the next call; false when the range is over.
 */
bool
storage_range_next(StorageRange *r, PkInput *pk, struct varlena **cells)
{
	RangeLeaf  *l;
	bool		isnull;

	if (!r->open)
		return false;
	if (r->returned != NULL)
	{
		if (range_advance(r, r->returned))
			binaryheap_replace_first(r->heap, PointerGetDatum(r->returned));
		else
			(void) binaryheap_remove_first(r->heap);
		r->returned = NULL;
	}
	if (binaryheap_empty(r->heap))
	{
		storage_range_close(r);
		return false;
	}
	l = (RangeLeaf *) DatumGetPointer(binaryheap_first(r->heap));
	*pk = l->pk;
	*cells = (struct varlena *) DatumGetPointer(slot_getattr(l->slot, l->cells_attno, &isnull));
	r->returned = l;
	return true;
}

/* storage_range_close ends the range's scans now rather than at commit */
void
storage_range_close(StorageRange *r)
{
	MemoryContext old;

	if (!r->open)
		return;
	r->open = false;
	old = MemoryContextSwitchTo(r->cxt);
	for (int i = 0; i < r->nleaves; i++)
	{
		RangeLeaf  *l = &r->leaves[i];

		index_endscan(l->scan);
		ExecDropSingleTupleTableSlot(l->slot);
		index_close(l->index, NoLock);
		table_close(l->leaf, NoLock);
		MemoryContextDelete(l->row_ctx);
	}
	MemoryContextSwitchTo(old);
	UnregisterSnapshot(r->snapshot);
}
