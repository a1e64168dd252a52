/*-------------------------------------------------------------------------
 * src/format/cells_cut.c
 *	  Cutting a row's cells into the chunks of a split row (docs/design.md,
 *	  "Wide rows: heads and chunks"): runs of cells in chunk order (column
 *	  name, then timestamp ascending), each at most CELLS_CHUNK_MAX bytes
 *	  encoded or a single larger cell, of about equal size.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "format/cells.h"
#include "format/cells_internal.h"

/* a version-1 value's fixed header (cells.c) */
#define CUT_HEADER_SIZE		(1 + sizeof(int64) + sizeof(uint32))

typedef struct CutCell
{
	const char *name;
	uint32		namelen;
	int64		ts;
	OtsValue	value;
} CutCell;

/*
 * cut_start_cost bounds what a cell adds to a chunk whose previous cell is
 * of another column: the column's offset, name, cell count and the cell,
 * its timestamp stored relative to the chunk's row_ts (at most 10 bytes)
 */
static uint64
cut_start_cost(const CutCell *c)
{
	return sizeof(uint32) + cells_varint_len(c->namelen) + c->namelen +
		CELLS_VARINT_MAX_BYTES /* cell count */ + CELLS_VARINT_MAX_BYTES +
		cells_value_encoded_len(&c->value);
}

/*
 * cut_next_cost is exactly what a cell adds after an older cell prev of its
 * column in the same chunk: the older one is then stored relative to it
 */
static uint64
cut_next_cost(const CutCell *prev, const CutCell *c)
{
	return cells_varint_len((uint64) (c->ts - prev->ts)) + cells_value_encoded_len(&c->value);
}

/* cut_cost is what cells[i] adds to a chunk that begins at cells[first] */
static uint64
cut_cost(const CutCell *cells, int first, int i)
{
	if (i > first && cells_name_cmp(cells[i - 1].name, cells[i - 1].namelen,
									cells[i].name, cells[i].namelen) == 0)
		return cut_next_cost(&cells[i - 1], &cells[i]);
	return cut_start_cost(&cells[i]);
}

/* cut_collect lists the value's cells in chunk order */
static CutCell *
cut_collect(const CellsReader *r, int *ncells)
{
	uint32		total = cells_ncells_total(r);
	CutCell    *cells = palloc(sizeof(CutCell) * Max(total, 1));
	int			n = 0;

	for (uint32 i = 0; i < r->ncols; i++)
	{
		CellsColumn col;
		int			first = n;
		int64		ts;
		OtsValue	v;

		cells_column_at(r, i, &col);
		while (cells_column_next(&col, &ts, &v))
		{
			cells[n].name = col.name;
			cells[n].namelen = col.namelen;
			cells[n].ts = ts;
			cells[n].value = v;
			n++;
		}
		/* stored newest first: reverse the column into ascending order */
		for (int a = first, b = n - 1; a < b; a++, b--)
		{
			CutCell		tmp = cells[a];

			cells[a] = cells[b];
			cells[b] = tmp;
		}
	}
	*ncells = n;
	return cells;
}

/* cut_build encodes cells[first..end) as one chunk */
static void
cut_build(const CutCell *cells, int first, int end, CellsChunk *chunk)
{
	int64		newest = cells[first].ts;
	int64		oldest = cells[first].ts;
	CellsBuilder *b;

	for (int i = first; i < end; i++)
	{
		newest = Max(newest, cells[i].ts);
		oldest = Min(oldest, cells[i].ts);
	}
	b = cells_builder_create(newest);
	/* column by column, newest first: the value's own order */
	for (int i = first, j; i < end; i = j)
	{
		for (j = i + 1; j < end && cells_name_cmp(cells[j].name, cells[j].namelen,
												  cells[i].name, cells[i].namelen) == 0; j++)
			;
		for (int k = j - 1; k >= i; k--)
			cells_builder_add(b, cells[k].name, cells[k].namelen, cells[k].ts, &cells[k].value);
	}
	chunk->column = cells[first].name;
	chunk->columnlen = cells[first].namelen;
	chunk->ts = cells[first].ts;
	chunk->cells = cells_builder_finish(b, 0);
	chunk->oldest_ts = oldest;
	chunk->newest_ts = newest;
	chunk->size = VARSIZE(chunk->cells) - VARHDRSZ;
}

/*
 * cut_run cuts cells[lo..hi) into chunks of about equal size, each at most
 * CELLS_CHUNK_MAX bytes or one larger cell, appended at chunks[*n]
 */
static void
cut_run(const CutCell *cells, int lo, int hi, CellsChunk *chunks, int *n)
{
	uint64		total = 0;
	uint64		per_chunk = CELLS_CHUNK_MAX - CUT_HEADER_SIZE;
	uint64		target;
	uint64		size = 0;
	int			first = lo;

	if (lo >= hi)
		return;
	/* the chunks' count at the bound, then cells spread evenly over that many */
	for (int i = lo; i < hi; i++)
		total += cut_cost(cells, lo, i);
	target = Min(total / ((total + per_chunk - 1) / per_chunk) + 1, per_chunk);
	for (int i = lo; i < hi; i++)
	{
		uint64		cost = cut_cost(cells, first, i);

		if (i > first && size + cost > target)
		{
			cut_build(cells, first, i, &chunks[(*n)++]);
			first = i;
			size = 0;
			cost = cut_start_cost(&cells[i]);
		}
		size += cost;
	}
	cut_build(cells, first, hi, &chunks[(*n)++]);
}

CellsChunk *
cells_cut(const struct varlena *value, int *nchunks)
{
	CellsReader r;
	int			ncells;
	CutCell    *cells;
	CellsChunk *chunks;

	cells_reader_init(&r, value);
	cells = cut_collect(&r, &ncells);
	chunks = palloc(sizeof(CellsChunk) * Max(ncells, 1));
	*nchunks = 0;
	cut_run(cells, 0, ncells, chunks, nchunks);
	pfree(cells);
	return chunks;
}

CellsChunk **
cells_cut_ranges(const struct varlena *value, int nranges, const CellsPosition *starts,
				 int *nchunks)
{
	CellsReader r;
	int			ncells;
	CutCell    *cells;
	CellsChunk **ranges = palloc(sizeof(CellsChunk *) * nranges);
	int			lo = 0;

	cells_reader_init(&r, value);
	cells = cut_collect(&r, &ncells);
	for (int k = 0; k < nranges; k++)
	{
		int			hi = lo;

		/* range k ends where range k + 1 starts; the last one at the end */
		while (hi < ncells &&
			   (k + 1 == nranges ||
				cells_position_cmp(cells[hi].name, cells[hi].namelen, cells[hi].ts,
								   starts[k + 1].column, starts[k + 1].columnlen,
								   starts[k + 1].ts) < 0))
			hi++;
		ranges[k] = palloc(sizeof(CellsChunk) * Max(hi - lo, 1));
		nchunks[k] = 0;
		cut_run(cells, lo, hi, ranges[k], &nchunks[k]);
		lo = hi;
	}
	pfree(cells);
	return ranges;
}

bool
cells_as_chunk(struct varlena *value, int64 oldest_ts, CellsChunk *chunk)
{
	CellsReader r;
	CellsColumn col;
	int64		ts = 0;
	OtsValue	v;
	uint32		size = VARSIZE(value) - VARHDRSZ;
	int64		newest = -1;

	cells_reader_init(&r, value);
	if (r.ncols == 0 || size > CELLS_CHUNK_MAX)
		return false;
	/* a chunk's row_ts is its newest cell */
	for (uint32 i = 0; i < r.ncols; i++)
	{
		cells_column_at(&r, i, &col);
		if (cells_column_next(&col, &ts, &v))
			newest = Max(newest, ts);
	}
	if (newest != r.row_ts)
		return false;
	/* its key: the first column's oldest cell, the last of its newest-first ones */
	cells_column_at(&r, 0, &col);
	while (cells_column_next(&col, &ts, &v))
		;
	chunk->column = col.name;
	chunk->columnlen = col.namelen;
	chunk->ts = ts;
	chunk->cells = value;
	chunk->oldest_ts = oldest_ts;
	chunk->newest_ts = r.row_ts;
	chunk->size = size;
	return true;
}
