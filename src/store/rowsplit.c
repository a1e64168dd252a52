/*-------------------------------------------------------------------------
 * src/store/rowsplit.c
 *	  Split rows as rows (rowsplit.h): loading the cells a call needs from a
 *	  split row's chunks, the row rule on its head, and a write's new cells
 *	  put back into the head and the chunks (docs/design.md, "Wide rows:
 *	  heads and chunks").
 *
 * A write to a split row is rowstore's compare-and-swap on its head: the
 * head is updated first (the row's lock), and only then are the chunks
 * written, which no other writer touches while it holds the head.  The
 * chunks a write loaded are the ranges it writes back: every new cell is
 * at a position whose chunk it loaded (rowneeds_position), so each of the
 * new cells falls in the range of one loaded chunk, and the chunks the
 * write did not load keep their ranges.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "errors.h"

#include "store/chunkstore.h"
#include "store/rowsplit.h"

/* ---- what a call needs ---- */

void
rowneeds_init(RowNeeds *needs)
{
	needs->whole = false;
	needs->range = false;
	needs->from = needs->to = NULL;
	needs->fromlen = needs->tolen = 0;
	needs->from_ts = 0;
	needs->budget_anywhere = false;
	needs->write = false;
	needs->reading = false;
	needs->replacing = false;
	needs->budget = 0;
	needs->now_ms = 0;
	needs->n = 0;
	needs->max = lengthof(needs->inline_need);
	needs->need = needs->inline_need;
}

static void
rowneeds_add(RowNeeds *needs, const char *name, uint32 len, int32 cells, int64 from_ts,
			 int64 to_ts)
{
	RowNeed    *n;

	if (needs->n == needs->max)
	{
		RowNeed    *more = palloc(sizeof(RowNeed) * needs->max * 2);

		memcpy(more, needs->need, sizeof(RowNeed) * needs->n);
		if (needs->need != needs->inline_need)
			pfree(needs->need);
		needs->need = more;
		needs->max *= 2;
	}
	n = &needs->need[needs->n++];
	n->stamped = false;
	n->name = name;
	n->len = len;
	n->cells = cells;
	n->from_ts = from_ts;
	n->to_ts = to_ts;
}

void
rowneeds_newest(RowNeeds *needs, const char *name, uint32 len, int32 cells, int64 from_ts,
				int64 to_ts)
{
	rowneeds_add(needs, name, len, Max(cells, 1), from_ts, to_ts);
}

void
rowneeds_init_write(RowNeeds *needs, const OtsTable *t)
{
	rowneeds_init(needs);
	needs->write = true;
	/* the newest cell of each column a search index's field reads (or the whole row, past the bound) */
	needs->whole = t->nsearch > 0 && t->search_fields_whole;
	for (int i = 0; t->nsearch > 0 && !needs->whole && i < t->search_nfields; i++)
		rowneeds_newest(needs, t->search_field_names + t->search_field_off[i],
						t->search_field_off[i + 1] - t->search_field_off[i], 1, 0, PG_INT64_MAX);
	rowneeds_stream_original(needs, t);
}

void
rowneeds_stream_original(RowNeeds *needs, const OtsTable *t)
{
	if (!t->stream_enabled)
		return;
	for (int i = 0; i < t->stream_noriginal; i++)
	{
		uint32		len;
		const char *name = catalog_original_name(t, i, &len);

		rowneeds_newest(needs, name, len, 1, 0, PG_INT64_MAX);
	}
}

void
rowneeds_position(RowNeeds *needs, const char *name, uint32 len, int64 ts)
{
	rowneeds_add(needs, name, len, 0, ts, ts);
}

void
rowneeds_stamped(RowNeeds *needs, const char *name, uint32 len)
{
	rowneeds_add(needs, name, len, 0, 0, 0);
	needs->need[needs->n - 1].stamped = true;
}

/* ---- loading ---- */

/* rowsplit_chunk_cmp orders loaded chunks by key */
static int
rowsplit_chunk_cmp(const void *pa, const void *pb)
{
	const StoredChunk *a = pa;
	const StoredChunk *b = pb;

	return cells_position_cmp(a->column, a->columnlen, a->ts, b->column, b->columnlen, b->ts);
}

/* rowsplit_loaded: is the chunk at tid one of the loaded ones? */
static bool
rowsplit_loaded(const RowSplit *split, const ItemPointerData *tid)
{
	for (int i = 0; i < split->nchunks; i++)
		if (ItemPointerEquals(&split->chunks[i].tid, (ItemPointer) tid))
			return true;
	return false;
}

/* rowsplit_add adds a chunk to the loaded ones unless it is there already */
static void
rowsplit_add(RowSplit *split, int *max, const StoredChunk *c)
{
	if (rowsplit_loaded(split, &c->tid))
		return;
	if (split->nchunks == *max)
	{
		*max = Max(*max * 2, 8);
		split->chunks = split->chunks == NULL ? palloc(sizeof(StoredChunk) * *max) :
			repalloc(split->chunks, sizeof(StoredChunk) * *max);
	}
	split->chunks[split->nchunks++] = *c;
}

/* rowsplit_count: the cells of column name in chunk c with timestamps in [from_ts, to_ts] */
static int32
rowsplit_count(const StoredChunk *c, const RowNeed *n)
{
	CellsReader r;
	CellsColumn col;
	int64		ts;
	OtsValue	v;
	int32		count = 0;

	cells_reader_init(&r, c->cells);
	if (!cells_find_column(&r, n->name, n->len, &col))
		return 0;
	while (cells_column_next(&col, &ts, &v))
		if (ts <= n->to_ts && ts >= n->from_ts)
			count++;
	return count;
}

/*
 * rowsplit_load_need loads the chunk holding a need's position and, while
 * it needs more of the column's older cells, the chunks before it that
 * continue the column
 */
static void
rowsplit_load_need(ChunkRel *cr, Snapshot snapshot, RowSplit *split, int *max, const RowNeed *n,
				   int64 now_ms)
{
	StoredChunk c;
	int32		count;
	int64		to_ts = n->stamped ? cells_server_stamp(now_ms, split->head.row_ts) : n->to_ts;

	if (!chunkstore_find(cr, snapshot, n->name, n->len, to_ts, &c))
		return;
	rowsplit_add(split, max, &c);
	if (n->cells == 0)
		return;
	count = rowsplit_count(&c, n);
	/* a chunk that starts with the column may have older cells of it before it */
	while (count < n->cells && c.ts > n->from_ts &&
		   cells_name_cmp(c.column, c.columnlen, n->name, n->len) == 0)
	{
		StoredChunk prev;

		if (!chunkstore_neighbour(cr, snapshot, c.column, c.columnlen, c.ts, false, &prev))
			break;
		rowsplit_add(split, max, &prev);
		count += rowsplit_count(&prev, n);
		c = prev;
	}
}

/* rowsplit_view: the cells of the loaded chunks as one value with the row's marker */
static struct varlena *
rowsplit_view(const RowSplit *split)
{
	CellsBuilder *b = cells_builder_create(split->head.row_ts);

	for (int i = 0; i < split->nchunks; i++)
		cells_builder_add_value(b, split->chunks[i].cells);
	return cells_builder_finish(b, 0);
}

/* the most a whole split row's cells may hold to be read as one (jsonb) value */
#define ROWSPLIT_WHOLE_MAX ((uint64) JENTRY_OFFLENMASK)

struct varlena *
rowsplit_load(RowKey *key, const struct varlena *head, const RowNeeds *needs, Snapshot snapshot)
{
	const OtsTable *t = key->t;
	RowSplit   *split = palloc0(sizeof(RowSplit));
	ChunkRel	cr;
	int			max = 0;

	cells_head_read(head, &split->head);
	/*
	 * A whole row is read as one value and returned as one jsonb value:
	 * past what jsonb holds, refused before anything is loaded
	 */
	if (needs->whole && split->head.cells_size > ROWSPLIT_WHOLE_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_OUT_OF_ROW_SIZE_LIMIT),
				 errmsg_internal("The total data size of columns in one row exceeded the limit."),
				 errdetail("A read of a whole row returns its cells as one value: this row holds " UINT64_FORMAT " bytes of cells, one value at most " UINT64_FORMAT ".",
						   split->head.cells_size, ROWSPLIT_WHOLE_MAX),
				 errhint("Read the row with ots.get_range, whose pages end inside it (next_token), or by pages of columns (start_column, end_column).")));
	split->replacing = needs->replacing;
	chunkstore_open(&cr, key, false);
	if (needs->whole)
		split->chunks = chunkstore_scan(&cr, snapshot, NULL, 0, 0, NULL, 0, NULL, &split->nchunks);
	else
	{
		/* a page of columns: the chunks from the one holding its first column's oldest cell */
		if (needs->range)
		{
			int			n;
			ChunkBudget budget = {.budget = needs->budget, .anywhere = needs->budget_anywhere};
			StoredChunk *page = chunkstore_scan(&cr, snapshot, needs->from, needs->fromlen, needs->from_ts,
												needs->to, needs->tolen,
												needs->budget > 0 ? &budget : NULL, &n);

			for (int i = 0; i < n; i++)
				rowsplit_add(split, &max, &page[i]);
			if (needs->budget > 0 && budget.next != NULL)
			{
				split->next_column = budget.next;
				split->next_len = budget.nextlen;
				split->next_ts = budget.next_ts;
			}
		}
		for (int i = 0; i < needs->n; i++)
			rowsplit_load_need(&cr, snapshot, split, &max, &needs->need[i], needs->now_ms);
		/* index maintenance reads the newest cell of every defined column, old and new */
		if (needs->write && (t->nindexes > 0 || t->is_index))
			for (int i = 0; i < t->ndefined; i++)
			{
				RowNeed		n = {.name = t->defined[i].name, .len = t->defined[i].namelen,
				.to_ts = PG_INT64_MAX, .from_ts = 0, .cells = 1};

				rowsplit_load_need(&cr, snapshot, split, &max, &n, needs->now_ms);
			}
		if (split->nchunks > 1)
			qsort(split->chunks, split->nchunks, sizeof(StoredChunk), rowsplit_chunk_cmp);
	}
	chunkstore_close(&cr);
	/*
	 * One chunk serves as it is stored, its row_ts no row marker: to a read,
	 * which takes the row rule from the head, and to a write whose caller
	 * gives the reader the head's marker (cells_reader_set_marker) and whose
	 * old cells no index or stream reads at the write point (a defined
	 * column's type check there reads cells, not the marker)
	 */
	if (split->nchunks == 1 && !needs->replacing &&
		(needs->reading || (t->nindexes == 0 && t->nsearch == 0 && !t->stream_enabled && !t->is_index)))
		split->view = split->chunks[0].cells;
	else
		split->view = rowsplit_view(split);
	key->split = split;
	return split->view;
}

bool
rowsplit_exists(const RowKey *key, const Visibility *vis)
{
	const RowSplit *split = key->split;
	bool		unsure;
	bool		exists = visibility_head_exists(vis, &split->head, &unsure);
	ChunkRel	cr;
	StoredChunk *chunks;
	int			n;
	Snapshot	snapshot;

	if (!unsure)
		return exists;
	/*
	 * The head keeps a bound on its newest cell (a delete took the newest
	 * cell before the table had a TTL): is any cell young enough?
	 */
	snapshot = RegisterSnapshot(GetActiveSnapshot());
	chunkstore_open(&cr, key, false);
	chunks = chunkstore_scan(&cr, snapshot, NULL, 0, 0, NULL, 0, NULL, &n);
	chunkstore_close(&cr);
	UnregisterSnapshot(snapshot);
	for (int i = 0; i < n; i++)
	{
		CellsReader r;

		cells_reader_init(&r, chunks[i].cells);
		if (visibility_row_exists(vis, &r))
			return true;
	}
	return false;
}

void
rowsplit_head_rowkey(const OtsTable *t, const struct varlena *head, RowKey *key)
{
	CellsHead	h;

	cells_head_read(head, &h);
	memset(key, 0, sizeof(*key));
	key->t = t;
	key->nkeys = storage_nkeys(t);
	if (h.nkeys != key->nkeys)
		catalog_report_damaged(t, "a split row's head does not hold the row's key");
	for (int k = 0; k < key->nkeys; k++)
	{
		key->types[k] = storage_key_type(t, k);
		if (h.key[k].kind == CELLS_KEY_INTEGER)
			key->values[k] = Int64GetDatum(h.key[k].i);
		else
		{
			bytea	   *v = palloc(VARHDRSZ + h.key[k].len);

			SET_VARSIZE(v, VARHDRSZ + h.key[k].len);
			memcpy(VARDATA(v), h.key[k].data, h.key[k].len);
			key->values[k] = PointerGetDatum(v);
		}
	}
}

struct varlena *
rowsplit_load_head(const OtsTable *t, const struct varlena *head, const RowNeeds *needs,
				   Snapshot snapshot, RowKey *key)
{
	rowsplit_head_rowkey(t, head, key);
	return rowsplit_load(key, head, needs, snapshot);
}

const struct varlena *
rowsplit_defined_view(const OtsTable *t, const struct varlena *cells, Snapshot snapshot)
{
	RowNeeds	needs;
	RowKey		key;

	if (!cells_is_head(cells))
		return cells;
	rowneeds_init(&needs);
	for (int d = 0; d < t->ndefined; d++)
		rowneeds_newest(&needs, t->defined[d].name, t->defined[d].namelen, 1, 0, PG_INT64_MAX);
	return rowsplit_load_head(t, cells, &needs, snapshot, &key);
}

void
rowsplit_pages(const OtsTable *t, const struct varlena *head, uint64 budget, Snapshot snapshot,
			   RowSplitPageFn each, void *arg)
{
	MemoryContext pagecxt = AllocSetContextCreate(CurrentMemoryContext, "ots split row page",
												  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(pagecxt);
	char	   *from = NULL;
	uint32		fromlen = 0;
	int64		from_ts = 0;
	bool		first = true;

	Assert(budget > 0);
	do
	{
		RowNeeds	needs;
		RowKey		key;

		/* from the chunk the last page stopped before: its key, exactly */
		rowneeds_init(&needs);
		needs.range = true;
		needs.from = from;
		needs.fromlen = fromlen;
		needs.from_ts = from_ts;
		needs.budget = budget;
		needs.budget_anywhere = true;
		each(rowsplit_load_head(t, head, &needs, snapshot, &key), first, arg);
		first = false;
		/* the next page's first column outlives this page's memory */
		MemoryContextSwitchTo(old);
		if (from != NULL)
			pfree(from);
		from = key.split->next_column != NULL ?
			pnstrdup(key.split->next_column, key.split->next_len) : NULL;
		fromlen = key.split->next_len;
		from_ts = key.split->next_ts;
		MemoryContextReset(pagecxt);
		MemoryContextSwitchTo(pagecxt);
	} while (from != NULL);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(pagecxt);
}

bool
rowsplit_head_exists(const OtsTable *t, const struct varlena *head, const Visibility *vis)
{
	CellsHead	h;
	bool		unsure;
	bool		exists;
	RowKey		key;
	RowNeeds	needs;

	cells_head_read(head, &h);
	exists = visibility_head_exists(vis, &h, &unsure);
	if (!unsure)
		return exists;
	rowneeds_init(&needs);
	(void) rowsplit_load_head(t, head, &needs, GetActiveSnapshot(), &key);
	return rowsplit_exists(&key, vis);
}

/* ---- writing ---- */

/* one chunk write of a plan */
typedef enum RowSplitOpKind
{
	SPLIT_OP_DELETE,
	SPLIT_OP_UPDATE,
	SPLIT_OP_INSERT
} RowSplitOpKind;

typedef struct RowSplitOp
{
	RowSplitOpKind kind;
	ItemPointerData tid;
	CellsChunk	chunk;
} RowSplitOp;

struct RowSplitPlan
{
	bool		delete_all;		/* every stored chunk first */
	int			nops;
	int			maxops;
	RowSplitOp *ops;
};

static void
rowsplit_op(RowSplitPlan *plan, RowSplitOpKind kind, const ItemPointerData *tid,
			const CellsChunk *chunk)
{
	RowSplitOp *op;

	if (plan->nops == plan->maxops)
	{
		plan->maxops = Max(plan->maxops * 2, 8);
		plan->ops = plan->ops == NULL ? palloc(sizeof(RowSplitOp) * plan->maxops) :
			repalloc(plan->ops, sizeof(RowSplitOp) * plan->maxops);
	}
	op = &plan->ops[plan->nops++];
	op->kind = kind;
	if (tid != NULL)
		op->tid = *tid;
	if (chunk != NULL)
		op->chunk = *chunk;
}

/* rowsplit_head_key: the head's copy of the row's stored key */
static void
rowsplit_head_key(const RowKey *key, CellsHead *h)
{
	h->nkeys = key->nkeys;
	for (int k = 0; k < key->nkeys; k++)
	{
		CellsKeyValue *kv = &h->key[k];

		if (key->types[k] == INT8OID)
		{
			kv->kind = CELLS_KEY_INTEGER;
			kv->i = DatumGetInt64(key->values[k]);
		}
		else
		{
			struct varlena *v = (struct varlena *) DatumGetPointer(key->values[k]);

			kv->kind = key->types[k] == TEXTOID ? CELLS_KEY_STRING : CELLS_KEY_BINARY;
			kv->data = VARDATA_ANY(v);
			kv->len = VARSIZE_ANY_EXHDR(v);
		}
	}
}

/* rowsplit_insert_all plans the chunks of cells, all new; *newest: their newest cell (-1: none) */
static uint64
rowsplit_insert_all(RowSplitPlan *plan, const struct varlena *cells, int64 *newest)
{
	int			n;
	CellsChunk *chunks = cells_cut(cells, &n);
	uint64		size = 0;

	*newest = -1;
	for (int i = 0; i < n; i++)
	{
		rowsplit_op(plan, SPLIT_OP_INSERT, NULL, &chunks[i]);
		size += chunks[i].size;
		*newest = Max(*newest, chunks[i].newest_ts);
	}
	return size;
}

/*
 * rowsplit_replace_loaded plans the new cells of the loaded ranges: each
 * loaded chunk's range gets its new cells, re-cut; returns the change of
 * the row's cells size
 */
static int64
rowsplit_replace_loaded(RowSplitPlan *plan, const RowSplit *old, struct varlena *cells,
						int64 cells_oldest, int64 *newest)
{
	CellsPosition *starts = palloc(sizeof(CellsPosition) * old->nchunks);
	int		   *counts = palloc(sizeof(int) * old->nchunks);
	CellsChunk **ranges;
	CellsChunk	one;
	CellsChunk *single;
	int64		delta = 0;

	for (int i = 0; i < old->nchunks; i++)
	{
		starts[i].column = old->chunks[i].column;
		starts[i].columnlen = old->chunks[i].columnlen;
		starts[i].ts = old->chunks[i].ts;
	}
	/* one chunk's cells that stay one chunk are it as they are: no cut */
	if (old->nchunks == 1 && cells_as_chunk(cells, cells_oldest, &one))
	{
		ranges = &single;
		single = &one;
		counts[0] = 1;
	}
	else
		ranges = cells_cut_ranges(cells, old->nchunks, starts, counts);
	*newest = -1;
	for (int i = 0; i < old->nchunks; i++)
	{
		const StoredChunk *was = &old->chunks[i];
		uint32		was_size = VARSIZE(was->cells) - VARHDRSZ;

		for (int k = 0; k < counts[i]; k++)
			*newest = Max(*newest, ranges[i][k].newest_ts);

		delta -= was_size;
		if (counts[i] == 0)
		{
			rowsplit_op(plan, SPLIT_OP_DELETE, &was->tid, NULL);
			continue;
		}
		for (int k = 0; k < counts[i]; k++)
			delta += ranges[i][k].size;
		/* a chunk loaded only to be read, or that new chunks follow, stays as it is */
		if (!(ranges[i][0].size == was_size && ranges[i][0].ts == was->ts &&
			  cells_name_cmp(ranges[i][0].column, ranges[i][0].columnlen,
							 was->column, was->columnlen) == 0 &&
			  memcmp(VARDATA(ranges[i][0].cells), VARDATA(was->cells), was_size) == 0))
			rowsplit_op(plan, SPLIT_OP_UPDATE, &was->tid, &ranges[i][0]);
		for (int k = 1; k < counts[i]; k++)
			rowsplit_op(plan, SPLIT_OP_INSERT, NULL, &ranges[i][k]);
	}
	return delta;
}

/* rowsplit_stored_chunks: every chunk of the row as this transaction now sees it */
static StoredChunk *
rowsplit_stored_chunks(ChunkRel *cr, int *n)
{
	Snapshot	snapshot;
	StoredChunk *chunks;

	CommandCounterIncrement();
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	chunks = chunkstore_scan(cr, snapshot, NULL, 0, 0, NULL, 0, NULL, n);
	UnregisterSnapshot(snapshot);
	return chunks;
}

/* rowsplit_chunk_newest: a chunk's newest cell, which its row_ts is */
static int64
rowsplit_chunk_newest(const StoredChunk *c)
{
	CellsReader r;

	cells_reader_init(&r, c->cells);
	return r.row_ts;
}

/* rowsplit_newest_unloaded: the newest cell of the chunks a write did not load (-1: none) */
static int64
rowsplit_newest_unloaded(const RowKey *key, const RowSplit *old)
{
	ChunkRel	cr;
	int			n;
	StoredChunk *chunks;
	int64		newest = -1;

	chunkstore_open(&cr, key, false);
	chunks = rowsplit_stored_chunks(&cr, &n);
	chunkstore_close(&cr);
	for (int i = 0; i < n; i++)
		if (!rowsplit_loaded(old, &chunks[i].tid))
			newest = Max(newest, rowsplit_chunk_newest(&chunks[i]));
	return newest;
}

/*
 * rowsplit_whole: a split row's cells whole, once a write's new cells of
 * the ranges it loaded replace them there: the new cells and those of the
 * chunks it did not load, with the table's max_versions kept
 */
static struct varlena *
rowsplit_whole(const RowKey *key, const RowSplit *old, const struct varlena *cells)
{
	ChunkRel	cr;
	int			n;
	StoredChunk *chunks;
	CellsReader r;
	CellsBuilder *b;

	cells_reader_init(&r, cells);
	b = cells_builder_create(r.row_ts);
	chunkstore_open(&cr, key, false);
	chunks = rowsplit_stored_chunks(&cr, &n);
	chunkstore_close(&cr);
	cells_builder_add_value(b, cells);
	for (int i = 0; i < n; i++)
		if (!rowsplit_loaded(old, &chunks[i].tid))
			cells_builder_add_value(b, chunks[i].cells);
	return cells_builder_finish(b, key->t->max_versions);
}

RowSplitPlan *
rowsplit_prepare(const RowKey *key, const RowSplit *old, struct varlena *cells,
				 int64 cells_oldest, struct varlena **head, int64 *oldest_ts)
{
	RowSplitPlan *plan = palloc0(sizeof(RowSplitPlan));
	CellsHead	h;
	int64		newest;
	CellsReader r;

	memset(&h, 0, sizeof(h));
	cells_reader_init(&r, cells);
	h.row_ts = r.row_ts;
	rowsplit_head_key(key, &h);
	if (old == NULL || old->replacing)
	{
		/* a new row, an inline one grown past the bound, or a put over a split row */
		plan->delete_all = old != NULL;
		if (!rowsplit_needs_split(key->t, cells))
		{
			*head = cells;
			*oldest_ts = cells_oldest_ts(cells);
			return plan;
		}
		h.cells_size = rowsplit_insert_all(plan, cells, &newest);
		h.newest_ts = Max(newest, 0);
	}
	else
	{
		int64		old_newest = -1;

		for (int i = 0; i < old->nchunks; i++)
			old_newest = Max(old_newest, rowsplit_chunk_newest(&old->chunks[i]));
		h.cells_size = (uint64) ((int64) old->head.cells_size +
								 rowsplit_replace_loaded(plan, old, cells, cells_oldest, &newest));
		h.newest_ts = Max(old->head.newest_ts, newest);
		h.flags = old->head.flags;
		if (old_newest >= old->head.newest_ts && newest < old->head.newest_ts)
		{
			/*
			 * The row's newest cell went.  Without a TTL the row rule does
			 * not ask for it: the head keeps a bound.  With one, the chunks
			 * the write did not load say what the newest is now.
			 */
			if (key->t->time_to_live < 0)
				h.flags |= CELLS_HEAD_NEWEST_BOUND;
			else
			{
				h.newest_ts = Max(newest, rowsplit_newest_unloaded(key, old));
				h.flags &= ~CELLS_HEAD_NEWEST_BOUND;
			}
		}
		h.newest_ts = Max(h.newest_ts, 0);
		/* shrunk to half the bound: inline again, whole */
		if (h.cells_size < CELLS_INLINE_MAX / 2)
		{
			struct varlena *whole = rowsplit_whole(key, old, cells);

			if (!rowsplit_needs_split(key->t, whole))
			{
				plan->delete_all = true;
				plan->nops = 0;
				*head = whole;
				*oldest_ts = cells_oldest_ts(whole);
				return plan;
			}
		}
	}
	*head = cells_head_build(&h);
	*oldest_ts = cells_oldest_ts(*head);
	return plan;
}

void
rowsplit_finish(const RowKey *key, RowSplitPlan *plan)
{
	ChunkRel	cr;

	if (!plan->delete_all && plan->nops == 0)
		return;
	chunkstore_open(&cr, key, true);
	if (plan->delete_all)
	{
		int			n;
		StoredChunk *chunks = rowsplit_stored_chunks(&cr, &n);

		for (int i = 0; i < n; i++)
			chunkstore_delete(&cr, &chunks[i].tid);
	}
	/* deletes first, then updates, then inserts: no new key meets an old one */
	for (int kind = SPLIT_OP_DELETE; kind <= SPLIT_OP_INSERT; kind++)
		for (int i = 0; i < plan->nops; i++)
		{
			RowSplitOp *op = &plan->ops[i];

			if (op->kind != (RowSplitOpKind) kind)
				continue;
			if (kind == SPLIT_OP_DELETE)
				chunkstore_delete(&cr, &op->tid);
			else if (kind == SPLIT_OP_UPDATE)
				chunkstore_update(&cr, &op->tid, &op->chunk);
			else
				chunkstore_insert(&cr, &op->chunk);
		}
	chunkstore_close(&cr);
}

void
rowsplit_delete_chunks(const RowKey *key)
{
	ChunkRel	cr;
	int			n;
	StoredChunk *chunks;

	chunkstore_open(&cr, key, true);
	chunks = rowsplit_stored_chunks(&cr, &n);
	for (int i = 0; i < n; i++)
		chunkstore_delete(&cr, &chunks[i].tid);
	chunkstore_close(&cr);
}
