/*-------------------------------------------------------------------------
 * src/store/rowstore_bulk.c
 *	  Many rows of a table at once, for batch_write_row and index builds:
 *	  new rows straight into their leaves as COPY inserts them, or key by
 *	  key as put_row writes them when some exist; deletes key by key.
 *
 * Every bulk write takes its rows in one order that depends only on their
 * keys (rowstore_sort_rows), so concurrent batches that share keys wait for
 * each other instead of deadlocking.  Leaf access is rowstore.c's
 * (rowstore_internal.h).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "asrole.h"
#include "store/announce.h"
#include "store/rowstore.h"
#include "store/rowsplit.h"
#include "store/rowstore_internal.h"
#include "stream/stream.h"
#include "subxact.h"

/*
 * the rows of one bulk write: keys[k][i] is stored key column k of row i,
 * leaves[i] the leaf that holds row i (cells and oldest_ts only for puts),
 * numbers[i] its number in the caller's arrays
 */
typedef struct BulkRows
{
	const OtsTable *t;
	int			nrows;
	Datum	   *keys[OTS_MAX_KEY_COLUMNS + 1];
	Datum	   *cells;
	Datum	   *oldest_ts;
	Oid		   *leaves;
	int		   *numbers;
} BulkRows;

/*
 * rowstore_row_order orders two rows of a bulk write (row numbers) by leaf,
 * then by stored key as the leaf's primary-key index does: column by column,
 * the hash prefix first, int8 signed, text (COLLATE "C") and bytea bytewise.
 */
static int
rowstore_row_order(const void *a, const void *b, void *arg)
{
	const BulkRows *rows = arg;
	int			x = *(const int *) a;
	int			y = *(const int *) b;
	int			nkeys = storage_nkeys(rows->t);

	if (rows->leaves[x] != rows->leaves[y])
		return rows->leaves[x] < rows->leaves[y] ? -1 : 1;
	for (int k = 0; k < nkeys; k++)
	{
		Datum		dx = rows->keys[k][x];
		Datum		dy = rows->keys[k][y];

		if (storage_key_type(rows->t, k) == INT8OID)
		{
			int64		ix = DatumGetInt64(dx);
			int64		iy = DatumGetInt64(dy);

			if (ix != iy)
				return ix < iy ? -1 : 1;
		}
		else
		{
			bytea	   *vx = DatumGetByteaPP(dx);
			bytea	   *vy = DatumGetByteaPP(dy);
			Size		lx = VARSIZE_ANY_EXHDR(vx);
			Size		ly = VARSIZE_ANY_EXHDR(vy);
			int			c = memcmp(VARDATA_ANY(vx), VARDATA_ANY(vy), Min(lx, ly));

			if (c != 0)
				return c < 0 ? -1 : 1;
			if (lx != ly)
				return lx < ly ? -1 : 1;
		}
	}
	return 0;
}

/*
 * rowstore_sort_rows returns the rows of a bulk write in one order that
 * depends only on the keys, not on the request: by leaf, then by stored
 * key (rowstore_row_order).  Every bulk write takes its rows' locks in this
 * order (new rows inserted leaf by leaf, else puts and deletes key by
 * key), so two batches that share keys, in whatever request order, wait
 * for each other at their first common key instead of deadlocking.
 */
static BulkRows
rowstore_sort_rows(const OtsTable *t, int nrows, Datum **keys, Datum *cells, Datum *oldest_ts)
{
	int			nkeys = storage_nkeys(t);
	BulkRows	in = {t, nrows};
	BulkRows	out = {t, nrows};
	int		   *order = palloc(sizeof(int) * nrows);

	in.leaves = palloc(sizeof(Oid) * nrows);
	routing_leaves(t, nrows, keys[0], in.leaves);
	for (int k = 0; k < nkeys; k++)
		in.keys[k] = keys[k];
	for (int r = 0; r < nrows; r++)
		order[r] = r;
	qsort_arg(order, nrows, sizeof(int), rowstore_row_order, &in);

	out.leaves = palloc(sizeof(Oid) * nrows);
	for (int k = 0; k < nkeys; k++)
		out.keys[k] = palloc(sizeof(Datum) * nrows);
	out.cells = cells != NULL ? palloc(sizeof(Datum) * nrows) : NULL;
	out.oldest_ts = oldest_ts != NULL ? palloc(sizeof(Datum) * nrows) : NULL;
	out.numbers = order;
	for (int i = 0; i < nrows; i++)
	{
		out.leaves[i] = in.leaves[order[i]];
		for (int k = 0; k < nkeys; k++)
			out.keys[k][i] = keys[k][order[i]];
		if (cells != NULL)
			out.cells[i] = cells[order[i]];
		if (oldest_ts != NULL)
			out.oldest_ts[i] = oldest_ts[order[i]];
	}
	pfree(in.leaves);
	return out;
}

/*
 * rowstore_insert_leaf inserts rows first .. first + n - 1, all of one
 * leaf, as COPY does: their heap tuples with one table_multi_insert, then
 * their index entries in row order, which raise unique_violation for a key
 * that exists.
 */
static void
rowstore_insert_leaf(const BulkRows *b, Oid leaf_oid, int first, int n)
{
	Relation	leaf = rowstore_open_for_write(b->t, leaf_oid);
	LeafCache  *lp = leaf_attnums(b->t, leaf_oid);
	/* the leaf's slots and tuple copies go when it is done: one leaf's worth at a time */
	MemoryContext leafctx = AllocSetContextCreate(CurrentMemoryContext, "ots leaf insert",
												  ALLOCSET_DEFAULT_SIZES);
	MemoryContext callerctx = MemoryContextSwitchTo(leafctx);
	EState	   *estate = CreateExecutorState();
	ResultRelInfo *rri = makeNode(ResultRelInfo);
	TupleTableSlot **slots = palloc(sizeof(TupleTableSlot *) * n);
	int			nkeys = storage_nkeys(b->t);
	TupleDesc	desc;
	AsRole		saved;
	bool		as_owner;

	InitResultRelInfo(rri, leaf, 0, NULL, 0);
	rowstore_open_indexes(leaf, lp, rri);
	/*
	 * the slots live in leafctx and go with it: on a copy of the leaf's
	 * descriptor, which is not reference-counted, they pin nothing and need
	 * no drop one by one
	 */
	desc = CreateTupleDescCopy(RelationGetDescr(leaf));
	for (int j = 0; j < n; j++)
	{
		Datum		key[OTS_MAX_KEY_COLUMNS + 1];

		for (int k = 0; k < nkeys; k++)
			key[k] = b->keys[k][first + j];
		slots[j] = rowstore_fill_slot(MakeTupleTableSlot(desc, &TTSOpsVirtual), lp,
									  nkeys, key, NULL,
									  (struct varlena *) DatumGetPointer(b->cells[first + j]),
									  DatumGetInt64(b->oldest_ts[first + j]));
	}
	announce_row(b->t, leaf_oid, NULL, lp->cells_attno, NULL, NULL);
	table_multi_insert(leaf, slots, n, GetCurrentCommandId(true), 0, NULL);
	announce_end();
	as_owner = rowstore_index_code_begin(b->t, lp, &saved);
	for (int j = 0; j < n; j++)
		ExecInsertIndexTuples(rri, slots[j], estate, false, false, NULL, NIL);
	rowstore_index_code_end(as_owner, &saved);
	table_finish_bulk_insert(leaf, 0);
	rowstore_close_indexes(rri);
	FreeExecutorState(estate);
	table_close(leaf, NoLock);
	MemoryContextSwitchTo(callerctx);
	MemoryContextDelete(leafctx);
}

/*
 * rowstore_insert_many_work inserts rows that should all be new, sorted by
 * rowstore_sort_rows, one leaf's run at a time (SubxactWork).
 */
static bool
rowstore_insert_many_work(void *arg)
{
	const BulkRows *b = arg;

	for (int i = 0, j; i < b->nrows; i = j)
	{
		for (j = i + 1; j < b->nrows && b->leaves[j] == b->leaves[i]; j++)
			;
		rowstore_insert_leaf(b, b->leaves[i], i, j - i);
	}
	return true;
}

/* rowstore_any_split: is one of the rows too large to stay inline (store/rowsplit.h)? */
static bool
rowstore_any_split(const OtsTable *t, int nrows, const Datum *cells)
{
	for (int i = 0; i < nrows; i++)
		if (rowsplit_needs_split(t, (struct varlena *) DatumGetPointer(cells[i])))
			return true;
	return false;
}

static bool
rowstore_catch_unique_violation(int sqlerrcode)
{
	return sqlerrcode == ERRCODE_UNIQUE_VIOLATION;
}

/* a put that replaces a stored row is a PUT_ROW, not an update of what changed */
static const StreamChange rowstore_put_row = {STREAM_PUT_ROW, NULL};

/*
 * rowstore_put_each writes the rows one key at a time, in
 * rowstore_sort_rows's order, as an unconditional put_row writes its row
 * (rowstore_put): as new, else over the newest version with the cells
 * replacing returns for it (NULL: the cells given), again after a
 * concurrent writer (a serialization failure under snapshot isolation).
 */
static void
rowstore_put_each(const BulkRows *b, RowstoreReplacing replacing, void *arg)
{
	RowKey		key;
	/* a row's old cells and what replacing builds go when the row is done */
	MemoryContext rowctx = AllocSetContextCreate(CurrentMemoryContext, "ots put row",
												 ALLOCSET_DEFAULT_SIZES);
	MemoryContext callerctx = MemoryContextSwitchTo(rowctx);

	memset(&key, 0, sizeof(key));
	key.t = b->t;
	key.nkeys = storage_nkeys(b->t);
	key.change = &rowstore_put_row;
	for (int k = 0; k < key.nkeys; k++)
		key.types[k] = storage_key_type(b->t, k);
	for (int i = 0; i < b->nrows; i++)
	{
		key.leaf_oid = b->leaves[i];
		for (int k = 0; k < key.nkeys; k++)
			key.values[k] = b->keys[k][i];
		for (;;)
		{
			CHECK_FOR_INTERRUPTS();
			if (rowstore_put(&key, (struct varlena *) DatumGetPointer(b->cells[i]),
							 DatumGetInt64(b->oldest_ts[i]), replacing, arg, b->numbers[i]))
				break;
		}
		MemoryContextReset(rowctx);
	}
	MemoryContextSwitchTo(callerctx);
	MemoryContextDelete(rowctx);
}

/*
 * rowstore_put_many first tries the rows as new ones, straight into their
 * leaves (no executor); when one of them exists that attempt is undone and
 * the rows are written key by key (rowstore_put_each).  Both take the rows
 * in rowstore_sort_rows's order.
 */
void
rowstore_put_many(const OtsTable *t, int nrows, Datum **keys, Datum *cells, Datum *oldest_ts,
				  RowstoreReplacing replacing, void *arg)
{
	BulkRows	rows = rowstore_sort_rows(t, nrows, keys, cells, oldest_ts);
	bool		kept;

	/* a row too large to stay inline is split, key by key */
	if (!rowstore_any_split(t, nrows, cells) &&
		subxact_run(rowstore_insert_many_work, &rows, rowstore_catch_unique_violation,
					&kept) == NULL)
		return;
	rowstore_put_each(&rows, replacing, arg);
}

/*
 * rowstore_insert_new_many is rowstore_put_many's first attempt alone: the
 * rows inserted as new straight into their leaves, or, when one of them
 * exists, none (false)
 */
bool
rowstore_insert_new_many(const OtsTable *t, int nrows, Datum **keys, Datum *cells,
						 Datum *oldest_ts)
{
	BulkRows	rows;
	bool		kept;

	/* a row too large to stay inline is split: the caller's row-by-row path does it */
	if (rowstore_any_split(t, nrows, cells))
		return false;
	rows = rowstore_sort_rows(t, nrows, keys, cells, oldest_ts);
	return subxact_run(rowstore_insert_many_work, &rows, rowstore_catch_unique_violation,
					   &kept) == NULL;
}

/*
 * rowstore_delete_many deletes the rows one key at a time, in
 * rowstore_sort_rows's order, as delete_row does: it reads the newest
 * version of the row and deletes exactly that version, and reads again when
 * a concurrent writer replaced it first (a serialization failure under
 * snapshot isolation), as DELETE's re-check does.  A DELETE statement for
 * all the keys would take the rows in the order its plan chooses (for a big
 * table, a hash of the keys, whose order changes with their number and
 * request order), so two batches could lock shared keys in opposite orders.
 */
void
rowstore_delete_many(const OtsTable *t, int nrows, Datum **keys)
{
	BulkRows	rows = rowstore_sort_rows(t, nrows, keys, NULL, NULL);
	RowKey		key;

	memset(&key, 0, sizeof(key));
	key.t = t;
	key.nkeys = storage_nkeys(t);
	for (int k = 0; k < key.nkeys; k++)
		key.types[k] = storage_key_type(t, k);
	for (int i = 0; i < nrows; i++)
	{
		key.leaf_oid = rows.leaves[i];
		for (int k = 0; k < key.nkeys; k++)
			key.values[k] = rows.keys[k][i];
		for (;;)
		{
			struct varlena *cells;
			RowNeeds	needs;
			bool		done;

			CHECK_FOR_INTERRUPTS();
			/* a split row: what its indexes and stream need, and its chunks go with it */
			rowneeds_init_write(&needs, t);
			cells = rowstore_fetch_row(&key, true, &needs);
			/* the write point may read the old cells rowstore_delete hands it */
			done = !key.found || rowstore_delete(&key);
			if (cells != NULL)
				pfree(cells);
			if (done)
				break;
		}
	}
}
