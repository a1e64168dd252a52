/*-------------------------------------------------------------------------
 * src/format/cells.c
 *	  The ots.cells varlena: reading, building and validating a row's
 *	  attribute cells, the row's "$oldest_ts", and the type's binary
 *	  send/receive functions.
 *
 * This file owns the byte format documented in cells.h and nothing else:
 * every byte of an ots.cells value is written by cells_builder_finish and
 * checked by cells_validate, and only the reader functions here interpret
 * it.  All multi-byte integers are assembled byte by byte, little-endian,
 * so packed (unaligned) datums are read in place and the format is the same
 * on every host.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "common/int.h"
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/memutils.h"

#include "format/cells.h"
#include "format/cells_internal.h"
#include "ots_limits.h"

/* fixed part of a payload: version byte, row_ts, ncols */
#define CELLS_HEADER_SIZE	(1 + sizeof(int64) + sizeof(uint32))
#define CELLS_OFFSET_SIZE	sizeof(uint32)
#define CELLS_DOUBLE_SIZE	sizeof(uint64)

/*
 * Smallest possible column block: 1-byte name length, 1-byte name, 1-byte
 * ncells, one cell of 1-byte timestamp delta, type byte and 1-byte value.
 * Bounds ncols against the payload length before anything is trusted.
 */
#define CELLS_MIN_BLOCK_SIZE	6

/* ---------------------------------------------------------------------
 * Shared helpers
 * ---------------------------------------------------------------------
 */

/* cells_value_encoded_len is the size of a value's type byte and encoding */
uint32
cells_value_encoded_len(const OtsValue *v)
{
	switch (v->type)
	{
		case OTS_VT_INTEGER:
			return 1 + cells_varint_len(cells_zigzag_encode(v->u.i));
		case OTS_VT_DOUBLE:
			return 1 + CELLS_DOUBLE_SIZE;
		case OTS_VT_BOOLEAN:
			return 1 + 1;
		case OTS_VT_STRING:
		case OTS_VT_BINARY:
			return 1 + cells_varint_len(v->u.s.len) + v->u.s.len;
	}
	elog(ERROR, "unrecognized ots value type: %d", (int) v->type);
	return 0;
}

/* cells_put_value writes a value's type byte and encoding; returns its size */
static uint32
cells_put_value(uint8 *p, const OtsValue *v)
{
	uint32		n = 0;

	p[n++] = (uint8) v->type;
	switch (v->type)
	{
		case OTS_VT_INTEGER:
			n += cells_put_varint(p + n, cells_zigzag_encode(v->u.i));
			break;
		case OTS_VT_DOUBLE:
			{
				uint64		bits;

				memcpy(&bits, &v->u.d, sizeof(bits));
				cells_put_u64(p + n, bits);
				n += CELLS_DOUBLE_SIZE;
			}
			break;
		case OTS_VT_BOOLEAN:
			p[n++] = v->u.b ? 1 : 0;
			break;
		case OTS_VT_STRING:
		case OTS_VT_BINARY:
			n += cells_put_varint(p + n, v->u.s.len);
			if (v->u.s.len > 0)
				memcpy(p + n, v->u.s.data, v->u.s.len);
			n += v->u.s.len;
			break;
	}
	return n;
}

/* ---------------------------------------------------------------------
 * Reading
 * ---------------------------------------------------------------------
 */

/*
 * cells_reader_init points r at a stored (valid) value, packed or not; it
 * reads only the fixed header.  A split row's head reads as its row marker
 * without cells: a reader of the row's cells asks cells_is_head first.
 */
void
cells_reader_init(CellsReader *r, const struct varlena *value)
{
	const uint8 *p = (const uint8 *) VARDATA_ANY(value);

	r->data = p;
	r->len = VARSIZE_ANY_EXHDR(value);
	r->row_ts = (int64) cells_get_u64(p + 1);
	r->base_ts = r->row_ts;
	if (unlikely(p[0] == CELLS_HEAD_FORMAT_VERSION))
	{
		/* a split row's head holds no cell itself: its chunks are the row's */
		r->ncols = 0;
		r->offsets = r->blocks = p + r->len;
		return;
	}
	Assert(r->len >= CELLS_HEADER_SIZE);
	Assert(p[0] == CELLS_FORMAT_VERSION);
	r->ncols = cells_get_u32(p + 1 + sizeof(int64));
	r->offsets = p + CELLS_HEADER_SIZE;
	r->blocks = r->offsets + (Size) r->ncols * CELLS_OFFSET_SIZE;
}

/* cells_column_open decodes the header of the block at offset "off" */
static inline void
cells_column_open(const CellsReader *r, uint32 off, CellsColumn *col)
{
	const uint8 *p = r->blocks + off;

	col->namelen = (uint32) cells_get_varint(&p);
	col->name = (const char *) p;
	p += col->namelen;
	col->ncells = (uint32) cells_get_varint(&p);
	col->pos = p;
	col->seen = 0;
	col->prev_ts = r->base_ts;
	col->row_ts = r->base_ts;
}

/* cells_column_at opens column i (0-based, in name order) */
void
cells_column_at(const CellsReader *r, uint32 i, CellsColumn *col)
{
	Assert(i < r->ncols);
	cells_column_open(r, cells_get_u32(r->offsets + (Size) i * CELLS_OFFSET_SIZE), col);
}

bool
cells_last_column(const struct varlena *value, CellsColumn *col)
{
	CellsReader r;

	cells_reader_init(&r, value);
	if (r.ncols == 0)
		return false;
	cells_column_at(&r, r.ncols - 1, col);
	return true;
}

/*
 * cells_find_column opens the column called name[0..namelen) by binary
 * search over the offset directory, decoding only the probed names; it
 * returns false when the row has no such column.
 */
bool
cells_find_column(const CellsReader *r, const char *name, uint32 namelen,
				  CellsColumn *col)
{
	uint32		lo = 0;
	uint32		hi = r->ncols;

	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo) / 2;
		const uint8 *p = r->blocks +
			cells_get_u32(r->offsets + (Size) mid * CELLS_OFFSET_SIZE);
		uint32		len = (uint32) cells_get_varint(&p);
		int			c = cells_name_cmp((const char *) p, len, name, namelen);

		if (c == 0)
		{
			cells_column_at(r, mid, col);
			return true;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * cells_column_next yields the column's next cell, newest first, and
 * returns false once all ncells have been yielded.  String and Binary
 * values point into the reader's data.
 */
bool
cells_column_next(CellsColumn *col, int64 *ts, OtsValue *value)
{
	const uint8 *p = col->pos;
	uint64		delta;
	int64		t;

	if (col->seen >= col->ncells)
		return false;

	delta = cells_get_varint(&p);
	if (col->seen == 0)
		t = col->row_ts - cells_zigzag_decode(delta);
	else
		t = col->prev_ts - (int64) delta;

	value->type = (OtsValueType) *p++;
	switch (value->type)
	{
		case OTS_VT_INTEGER:
			value->u.i = cells_zigzag_decode(cells_get_varint(&p));
			break;
		case OTS_VT_DOUBLE:
			{
				uint64		bits = cells_get_u64(p);

				memcpy(&value->u.d, &bits, sizeof(bits));
				p += CELLS_DOUBLE_SIZE;
			}
			break;
		case OTS_VT_BOOLEAN:
			value->u.b = (*p++ != 0);
			break;
		case OTS_VT_STRING:
		case OTS_VT_BINARY:
			value->u.s.len = (uint32) cells_get_varint(&p);
			value->u.s.data = (const char *) p;
			p += value->u.s.len;
			break;
		default:
			elog(ERROR, "corrupt ots.cells value: unknown cell type %d",
				 (int) value->type);
	}

	col->pos = p;
	col->prev_ts = t;
	col->seen++;
	*ts = t;
	return true;
}

/* cells_newest: the newest cell of the row's column name, false if none */
bool
cells_newest(const CellsReader *r, const char *name, uint32 namelen, int64 *ts, OtsValue *v)
{
	CellsColumn col;

	return cells_find_column(r, name, namelen, &col) && cells_column_next(&col, ts, v);
}

int64
cells_row_newest_ts(const CellsReader *r)
{
	int64		newest = r->row_ts;

	for (uint32 i = 0; i < r->ncols; i++)
	{
		CellsColumn col;
		int64		ts;
		OtsValue	v;

		cells_column_at(r, i, &col);
		if (cells_column_next(&col, &ts, &v) && ts > newest)
			newest = ts;
	}
	return newest;
}

/* cells_ncells_total counts every cell of every column of a valid value */
uint32
cells_ncells_total(const CellsReader *r)
{
	uint32		total = 0;
	uint32		i;

	for (i = 0; i < r->ncols; i++)
	{
		CellsColumn col;

		cells_column_at(r, i, &col);
		total += col.ncells;
	}
	return total;
}

/* ---------------------------------------------------------------------
 * Building
 * ---------------------------------------------------------------------
 */

typedef struct CellsEntry
{
	const char *name;
	uint32		namelen;
	int64		ts;
	OtsValue	value;
} CellsEntry;

struct CellsBuilder
{
	MemoryContext cxt;			/* where the builder's arrays live */
	int64		row_ts;
	CellsEntry *entries;		/* one per distinct (name, ts) */
	uint32		nentries;
	uint32		maxentries;
	bool		in_order;		/* entries added so far are in value order, distinct */
	uint32		nordered;		/* once not: how many of the first entries are */
	int32	   *slots;			/* open-addressing index into entries, -1 =
								 * empty; nslots is a power of two; built
								 * once entries come out of order */
	uint32		nslots;
	int64		oldest_ts;		/* of the value last finished */
};

#define CELLS_BUILDER_INITIAL_ENTRIES	16

/* cells_key_hash hashes a (column name, timestamp) key */
static inline uint64
cells_key_hash(const char *name, uint32 namelen, int64 ts)
{
	uint64		h = UINT64CONST(0xcbf29ce484222325);	/* FNV-1a */
	uint32		i;

	for (i = 0; i < namelen; i++)
	{
		h ^= (uint8) name[i];
		h *= UINT64CONST(0x100000001b3);
	}
	/* splitmix64 finalizer over name hash and timestamp */
	h ^= (uint64) ts + UINT64CONST(0x9e3779b97f4a7c15);
	h ^= h >> 30;
	h *= UINT64CONST(0xbf58476d1ce4e5b9);
	h ^= h >> 27;
	h *= UINT64CONST(0x94d049bb133111eb);
	h ^= h >> 31;
	return h;
}

/* cells_builder_rehash rebuilds the slot index with nslots slots */
static void
cells_builder_rehash(CellsBuilder *b, uint32 nslots)
{
	int32	   *slots;
	uint32		mask = nslots - 1;
	uint32		i;

	slots = (int32 *) MemoryContextAlloc(b->cxt, (Size) nslots * sizeof(int32));
	memset(slots, 0xFF, (Size) nslots * sizeof(int32));
	for (i = 0; i < b->nentries; i++)
	{
		CellsEntry *e = &b->entries[i];
		uint32		s = (uint32) cells_key_hash(e->name, e->namelen, e->ts) & mask;

		while (slots[s] >= 0)
			s = (s + 1) & mask;
		slots[s] = (int32) i;
	}
	if (b->slots)
		pfree(b->slots);
	b->slots = slots;
	b->nslots = nslots;
}

/* cells_builder_create starts an empty row in CurrentMemoryContext */
CellsBuilder *
cells_builder_create(int64 row_ts)
{
	CellsBuilder *b = (CellsBuilder *) palloc0(sizeof(CellsBuilder));

	b->cxt = CurrentMemoryContext;
	cells_builder_set_row_ts(b, row_ts);
	b->oldest_ts = row_ts;
	b->maxentries = CELLS_BUILDER_INITIAL_ENTRIES;
	b->entries = (CellsEntry *) palloc(b->maxentries * sizeof(CellsEntry));
	b->in_order = true;
	return b;
}

/* cells_builder_append adds an entry at the end */
static inline void
cells_builder_append(CellsBuilder *b, const char *name, uint32 namelen, int64 ts,
					 const OtsValue *value)
{
	CellsEntry *e;

	if (b->nentries >= b->maxentries)
	{
		b->maxentries *= 2;
		b->entries = (CellsEntry *) repalloc(b->entries,
											 (Size) b->maxentries * sizeof(CellsEntry));
	}
	e = &b->entries[b->nentries++];
	e->name = name;
	e->namelen = namelen;
	e->ts = ts;
	e->value = *value;
}

/*
 * cells_builder_add records one cell; a cell with the same column name and
 * timestamp as an earlier one replaces it.
 */
void
cells_builder_add(CellsBuilder *b, const char *name, uint32 namelen,
				  int64 ts, const OtsValue *value)
{
	uint32		mask;
	uint32		s;
	CellsEntry *e;

	Assert(namelen >= 1 && namelen <= OTS_MAX_NAME_LEN);
	/* the one check no caller may skip: nothing stored fails to read back */
	if (unlikely(ts < 0 || ts >= OTS_MAX_TIMESTAMP))
		elog(ERROR, "ots.cells cell timestamp " INT64_FORMAT " is out of range", ts);
	Assert(OTS_VT_VALID(value->type));

	/*
	 * Cells that come in value order (a value read back, chunks in order)
	 * need no index: a repeated key can only be the last one.  The first
	 * cell out of order builds it.
	 */
	if (b->in_order)
	{
		int			c = 1;

		if (b->nentries > 0)
		{
			e = &b->entries[b->nentries - 1];
			c = cells_name_cmp(name, namelen, e->name, e->namelen);
			if (c == 0)
				c = (ts < e->ts) - (ts > e->ts);
		}
		if (c == 0)
		{
			e->value = *value;
			return;
		}
		if (c > 0)
		{
			cells_builder_append(b, name, namelen, ts, value);
			return;
		}
		{
			uint32		nslots = CELLS_BUILDER_INITIAL_ENTRIES * 2;

			/* room for the entries so far and this one at a load factor of one half */
			while ((uint64) (b->nentries + 1) * 2 > nslots)
				nslots *= 2;
			b->in_order = false;
			b->nordered = b->nentries;
			cells_builder_rehash(b, nslots);
		}
	}
	mask = b->nslots - 1;
	s = (uint32) cells_key_hash(name, namelen, ts) & mask;
	while (b->slots[s] >= 0)
	{
		e = &b->entries[b->slots[s]];
		if (e->ts == ts && e->namelen == namelen &&
			memcmp(e->name, name, namelen) == 0)
		{
			e->value = *value;
			return;
		}
		s = (s + 1) & mask;
	}

	b->slots[s] = (int32) b->nentries;
	cells_builder_append(b, name, namelen, ts, value);

	/* keep the load factor at most one half */
	if ((uint64) b->nentries * 2 > b->nslots)
		cells_builder_rehash(b, b->nslots * 2);
}

/* cells_builder_add_value adds every cell of a version-1 value */
void
cells_builder_add_value(CellsBuilder *b, const struct varlena *value)
{
	CellsReader r;

	cells_reader_init(&r, value);
	for (uint32 i = 0; i < r.ncols; i++)
	{
		CellsColumn col;
		int64		ts;
		OtsValue	v;

		cells_column_at(&r, i, &col);
		while (cells_column_next(&col, &ts, &v))
			cells_builder_add(b, col.name, col.namelen, ts, &v);
	}
}

/* cells_builder_ncells counts distinct cells added so far */
uint32
cells_builder_ncells(const CellsBuilder *b)
{
	return b->nentries;
}

/* cells are encoded against the marker at finish, so it may change until then */
void
cells_builder_set_row_ts(CellsBuilder *b, int64 row_ts)
{
	if (row_ts < 0 || row_ts >= OTS_MAX_TIMESTAMP)
		elog(ERROR, "ots.cells row timestamp " INT64_FORMAT " is out of range", row_ts);
	b->row_ts = row_ts;
}

/* cells_entry_cmp orders cells by column name, then newest first */
static int
cells_entry_cmp(const void *pa, const void *pb)
{
	const CellsEntry *a = *(const CellsEntry *const *) pa;
	const CellsEntry *b = *(const CellsEntry *const *) pb;
	int			c = cells_name_cmp(a->name, a->namelen, b->name, b->namelen);

	if (c != 0)
		return c;
	return (a->ts < b->ts) - (a->ts > b->ts);
}

/*
 * cells_ts_delta is the varint a cell's timestamp is stored as: the first
 * cell of a column relative to the row marker (zigzag, it may be newer),
 * every later one relative to the cell before it.
 */
static inline uint64
cells_ts_delta(int64 prev_ts, int64 ts, bool first)
{
	if (first)
		return cells_zigzag_encode(prev_ts - ts);
	return (uint64) (prev_ts - ts);
}

/*
 * cells_builder_sorted lists the builder's entries by column name, newest
 * first, in a palloc'd array.  The entries added in order (a value read
 * back, a split row's chunks) are sorted already: only those added after
 * are sorted, then merged in, so a write of a few cells into many costs
 * what it adds.
 */
static CellsEntry **
cells_builder_sorted(const CellsBuilder *b)
{
	uint32		n = b->nentries;
	uint32		k = b->in_order ? n : b->nordered;
	CellsEntry **added;
	CellsEntry **sorted;
	uint32		i = 0,
				j,
				out = 0;

	sorted = (CellsEntry **) palloc((Size) Max(n, 1) * sizeof(CellsEntry *));
	if (k == n || k == 0)
	{
		for (i = 0; i < n; i++)
			sorted[i] = &b->entries[i];
		if (k < n && n > 1)
			qsort(sorted, n, sizeof(CellsEntry *), cells_entry_cmp);
		return sorted;
	}
	added = (CellsEntry **) palloc((Size) (n - k) * sizeof(CellsEntry *));
	for (j = k; j < n; j++)
		added[j - k] = &b->entries[j];
	qsort(added, n - k, sizeof(CellsEntry *), cells_entry_cmp);
	/* the entries are distinct (the slot index saw to it): a merge without ties */
	j = 0;
	while (i < k && j < n - k)
	{
		CellsEntry *e = &b->entries[i];

		if (cells_entry_cmp(&e, &added[j]) < 0)
		{
			sorted[out++] = e;
			i++;
		}
		else
			sorted[out++] = added[j++];
	}
	while (i < k)
		sorted[out++] = &b->entries[i++];
	while (j < n - k)
		sorted[out++] = added[j++];
	pfree(added);
	return sorted;
}

/*
 * cells_column_run finds the column that starts at sorted[i]: it returns
 * the index after its last entry and sets *kept to how many of its cells
 * the value stores (the newest max_versions when max_versions > 0).
 */
static uint32
cells_column_run(CellsEntry **sorted, uint32 n, uint32 i, int32 max_versions,
				 uint32 *kept)
{
	uint32		j = i + 1;

	while (j < n && cells_name_cmp(sorted[j]->name, sorted[j]->namelen,
								   sorted[i]->name, sorted[i]->namelen) == 0)
		j++;
	*kept = j - i;
	if (max_versions > 0 && *kept > (uint32) max_versions)
		*kept = (uint32) max_versions;
	return j;
}

/*
 * cells_block_size is the encoded size of the column block holding the
 * kept cells run[0..kept) of one column.
 */
static uint64
cells_block_size(int64 row_ts, CellsEntry *const *run, uint32 kept)
{
	uint64		size = cells_varint_len(run[0]->namelen) + run[0]->namelen +
		cells_varint_len(kept);
	int64		prev_ts = row_ts;

	for (uint32 k = 0; k < kept; k++)
	{
		size += cells_varint_len(cells_ts_delta(prev_ts, run[k]->ts, k == 0));
		size += cells_value_encoded_len(&run[k]->value);
		prev_ts = run[k]->ts;
	}
	return size;
}

/*
 * cells_put_block writes the column block of run[0..kept) at p, exactly
 * cells_block_size bytes, and returns its size.
 */
static uint32
cells_put_block(uint8 *p, int64 row_ts, CellsEntry *const *run, uint32 kept)
{
	uint8	   *start = p;
	int64		prev_ts = row_ts;

	p += cells_put_varint(p, run[0]->namelen);
	memcpy(p, run[0]->name, run[0]->namelen);
	p += run[0]->namelen;
	p += cells_put_varint(p, kept);
	for (uint32 k = 0; k < kept; k++)
	{
		p += cells_put_varint(p, cells_ts_delta(prev_ts, run[k]->ts, k == 0));
		p += cells_put_value(p, &run[k]->value);
		prev_ts = run[k]->ts;
	}
	return (uint32) (p - start);
}

/*
 * cells_value_alloc allocates a value of ncols columns whose blocks take
 * blocks_size bytes, with its header written; *offsets and *blocks point
 * at its directory and first block.  A value larger than a palloc can hold
 * is an error.
 */
static struct varlena *
cells_value_alloc(int64 row_ts, uint32 ncols, uint64 blocks_size,
				  uint8 **offsets, uint8 **blocks)
{
	uint64		total = VARHDRSZ + CELLS_HEADER_SIZE +
		(uint64) ncols * CELLS_OFFSET_SIZE + blocks_size;
	struct varlena *result;
	uint8	   *out;

	if (total > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("ots.cells value too large"),
				 errdetail("The encoded row would take %llu bytes; at most %zu are allowed.",
						   (unsigned long long) total, (size_t) MaxAllocSize)));

	result = (struct varlena *) palloc((Size) total);
	SET_VARSIZE(result, (Size) total);
	out = (uint8 *) VARDATA(result);
	out[0] = CELLS_FORMAT_VERSION;
	cells_put_u64(out + 1, (uint64) row_ts);
	cells_put_u32(out + 1 + sizeof(int64), ncols);
	*offsets = out + CELLS_HEADER_SIZE;
	*blocks = *offsets + (Size) ncols * CELLS_OFFSET_SIZE;
	return result;
}

/*
 * cells_oldest_with is a row's "$oldest_ts" once one more column is
 * counted: oldest so far (the row marker before the first column), and
 * the oldest cell of the column, the first or not.  "$oldest_ts" is the
 * timestamp of the row's oldest cell, or its row marker when it has no
 * cells; cells_builder_finish and cells_oldest_ts both count it so.
 */
static inline int64
cells_oldest_with(int64 oldest, bool first_column, int64 column_oldest)
{
	return first_column || column_oldest < oldest ? column_oldest : oldest;
}

/*
 * cells_builder_finish encodes the cells added so far, keeping only the
 * newest max_versions of each column when max_versions > 0, as a palloc'd
 * varlena with a 4-byte header, and records the value's "$oldest_ts" for
 * cells_builder_oldest_ts.  The builder is otherwise left unchanged and may
 * be added to or finished again.
 */
struct varlena *
cells_builder_finish(CellsBuilder *b, int32 max_versions)
{
	CellsEntry **sorted = cells_builder_sorted(b);
	uint32		n = b->nentries;
	uint32		ncols = 0;
	uint64		blocks_size = 0;
	int64		oldest = b->row_ts;
	uint32		kept;
	struct varlena *result;
	uint8	   *offsets;
	uint8	   *blocks;
	uint8	   *p;

	/* pass 1: count the columns, measure their blocks, find the oldest kept cell */
	for (uint32 i = 0, end; i < n; i = end)
	{
		end = cells_column_run(sorted, n, i, max_versions, &kept);
		blocks_size += cells_block_size(b->row_ts, sorted + i, kept);
		oldest = cells_oldest_with(oldest, ncols == 0, sorted[i + kept - 1]->ts);
		ncols++;
	}
	result = cells_value_alloc(b->row_ts, ncols, blocks_size, &offsets, &blocks);

	/* pass 2: write the directory and the blocks */
	p = blocks;
	ncols = 0;
	for (uint32 i = 0, end; i < n; i = end)
	{
		end = cells_column_run(sorted, n, i, max_versions, &kept);
		cells_put_u32(offsets + (Size) ncols * CELLS_OFFSET_SIZE, (uint32) (p - blocks));
		p += cells_put_block(p, b->row_ts, sorted + i, kept);
		ncols++;
	}
	Assert((Size) (p - (uint8 *) result) == VARSIZE(result));

	pfree(sorted);
	b->oldest_ts = oldest;
	return result;
}

/*
 * cells_builder_oldest_ts is "$oldest_ts" of the value the last
 * cells_builder_finish returned: its oldest cell's timestamp, or its row
 * marker when it has no cells.
 */
int64
cells_builder_oldest_ts(const CellsBuilder *b)
{
	return b->oldest_ts;
}

/*
 * cells_oldest_ts is "$oldest_ts" for a stored row: its oldest cell, or its
 * row marker when it has no cells (every cell counts, visible or not).
 */
int64
cells_oldest_ts(const struct varlena *cells)
{
	CellsReader r;
	int64		oldest;

	if (cells_is_head(cells))
	{
		CellsHead	h;

		/*
		 * a split row's head holds no cell (its chunks carry their own
		 * "$oldest_ts"): purge may have work on the head once both its
		 * marker and its newest cell may have expired
		 */
		cells_head_read(cells, &h);
		return Max(h.row_ts, h.newest_ts);
	}
	cells_reader_init(&r, cells);
	oldest = r.row_ts;
	for (uint32 i = 0; i < r.ncols; i++)
	{
		CellsColumn col;
		int64		ts;
		int64		last = 0;
		OtsValue	v;

		cells_column_at(&r, i, &col);
		/* newest first: the last one is the column's oldest (a column has at least one) */
		while (cells_column_next(&col, &ts, &v))
			last = ts;
		oldest = cells_oldest_with(oldest, i == 0, last);
	}
	return oldest;
}

/* ---------------------------------------------------------------------
 * Validation of untrusted bytes
 * ---------------------------------------------------------------------
 */

/*
 * cells_validate_value checks one cell's type byte and value in [*p, end)
 * and advances *p past it; col and cell number the cell for messages.
 */
static void
cells_validate_value(const uint8 **p, const uint8 *end, uint32 col, uint32 cell)
{
	const uint8 *s = *p;
	uint8		type;
	uint64		len;

	if (s >= end)
		cells_invalid("Cell %u of column %u has no type byte.", cell, col);
	type = *s++;
	switch (type)
	{
		case OTS_VT_INTEGER:
			(void) cells_get_varint_checked(&s, end, "integer value");
			break;
		case OTS_VT_DOUBLE:
			{
				uint64		bits;
				double		d;

				if ((Size) (end - s) < CELLS_DOUBLE_SIZE)
					cells_invalid("Cell %u of column %u has a truncated double value.",
								  cell, col);
				bits = cells_get_u64(s);
				memcpy(&d, &bits, sizeof(d));
				if (!isfinite(d))
					cells_invalid("Cell %u of column %u has a double value that is not finite.",
								  cell, col);
				s += CELLS_DOUBLE_SIZE;
			}
			break;
		case OTS_VT_BOOLEAN:
			if (s >= end)
				cells_invalid("Cell %u of column %u has a truncated boolean value.",
							  cell, col);
			if (*s > 1)
				cells_invalid("Cell %u of column %u has a boolean value other than 0 or 1.",
							  cell, col);
			s++;
			break;
		case OTS_VT_STRING:
		case OTS_VT_BINARY:
			len = cells_get_varint_checked(&s, end, "value length");
			if (len > (uint64) (end - s))
				cells_invalid("Cell %u of column %u has a truncated value.", cell, col);
			if (type == OTS_VT_STRING && !cells_utf8_valid(s, (uint32) len))
				cells_invalid("Cell %u of column %u has a string value that is not valid UTF-8.",
							  cell, col);
			s += len;
			break;
		default:
			cells_invalid("Cell %u of column %u has unknown type %u.",
						  cell, col, (unsigned int) type);
	}
	*p = s;
}

/*
 * cells_validate_header checks the fixed header of an untrusted payload and
 * returns its row marker and column count; the count is bounded by what
 * the payload's length could hold.
 */
static void
cells_validate_header(const uint8 *data, uint32 len, int64 *row_ts, uint32 *ncols)
{
	if (len < CELLS_HEADER_SIZE)
		cells_invalid("The value is %u bytes long, shorter than its %d-byte header.",
					  len, (int) CELLS_HEADER_SIZE);
	if (data[0] != CELLS_FORMAT_VERSION)
		cells_invalid("Format version %u is not supported.", (unsigned int) data[0]);
	*row_ts = (int64) cells_get_u64(data + 1);
	if (*row_ts < 0 || *row_ts >= OTS_MAX_TIMESTAMP)
		cells_invalid("The row timestamp " INT64_FORMAT " is out of range.", *row_ts);
	*ncols = cells_get_u32(data + 1 + sizeof(int64));
	if ((uint64) *ncols * (CELLS_OFFSET_SIZE + CELLS_MIN_BLOCK_SIZE) >
		len - CELLS_HEADER_SIZE)
		cells_invalid("The column count %u does not fit in the value's length.", *ncols);
}

/*
 * cells_validate_name checks the name of column i at *p (length, bytes,
 * characters, strictly after the previous column's name *prev) and
 * advances *p past it; *prev becomes this name.
 */
static void
cells_validate_name(const uint8 **p, const uint8 *end, uint32 i,
					const uint8 **prev, uint32 *prevlen)
{
	uint64		namelen = cells_get_varint_checked(p, end, "column name length");
	const uint8 *name = *p;

	if (namelen < 1 || namelen > OTS_MAX_NAME_LEN)
		cells_invalid("Column %u has a name of length " UINT64_FORMAT ", not 1 to %d.",
					  i, namelen, OTS_MAX_NAME_LEN);
	if (namelen > (uint64) (end - name))
		cells_invalid("The name of column %u is truncated.", i);
	if (name[0] >= '0' && name[0] <= '9')
		cells_invalid("The name of column %u starts with a digit.", i);
	for (uint32 k = 0; k < namelen; k++)
	{
		uint8		c = name[k];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			  (c >= '0' && c <= '9') || c == '_'))
			cells_invalid("The name of column %u contains a character other than A-Z, a-z, 0-9 or _.",
						  i);
	}
	if (*prev != NULL &&
		cells_name_cmp((const char *) *prev, *prevlen,
					   (const char *) name, (uint32) namelen) >= 0)
		cells_invalid("Column %u is not in strictly ascending name order.", i);
	*prev = name;
	*prevlen = (uint32) namelen;
	*p = name + namelen;
}

/*
 * cells_validate_cells checks the cell count and the cells of column i at
 * *p (timestamps in range and strictly descending, the first stored
 * relative to the row marker; each value) and advances *p past them.
 */
static void
cells_validate_cells(const uint8 **p, const uint8 *end, uint32 i, int64 row_ts)
{
	uint64		ncells = cells_get_varint_checked(p, end, "cell count");
	int64		prev_ts = row_ts;

	if (ncells < 1)
		cells_invalid("Column %u has no cells.", i);
	if (ncells > PG_UINT32_MAX)
		cells_invalid("Column %u has too many cells.", i);

	/* each cell consumes at least one byte, so this loop is bounded by len */
	for (uint64 cell = 0; cell < ncells; cell++)
	{
		uint64		delta = cells_get_varint_checked(p, end, "cell timestamp delta");
		int64		ts;

		if (cell == 0)
		{
			if (pg_sub_s64_overflow(row_ts, cells_zigzag_decode(delta), &ts) ||
				ts < 0 || ts >= OTS_MAX_TIMESTAMP)
				cells_invalid("Cell 0 of column %u has a timestamp out of range.", i);
		}
		else
		{
			if (delta < 1)
				cells_invalid("Cell %u of column %u does not have a timestamp older than the previous cell.",
							  (uint32) cell, i);
			if (delta > (uint64) prev_ts)
				cells_invalid("Cell %u of column %u has a timestamp out of range.",
							  (uint32) cell, i);
			ts = prev_ts - (int64) delta;
		}
		prev_ts = ts;
		cells_validate_value(p, end, i, (uint32) cell);
	}
}

/*
 * cells_validate checks an untrusted payload (version byte onward) against
 * every rule of the format and raises ERRCODE_INVALID_BINARY_REPRESENTATION
 * naming the first defect.  It reads only inside data[0..len) and allocates
 * nothing.
 */
void
cells_validate(const uint8 *data, uint32 len)
{
	const uint8 *end = data + len;
	const uint8 *offsets;
	const uint8 *blocks;
	const uint8 *p;
	int64		row_ts;
	uint32		ncols;
	const uint8 *prev_name = NULL;
	uint32		prev_namelen = 0;

	if (len > 0 && data[0] == CELLS_HEAD_FORMAT_VERSION)
	{
		cells_head_validate(data, len);
		return;
	}
	cells_validate_header(data, len, &row_ts, &ncols);
	offsets = data + CELLS_HEADER_SIZE;
	blocks = offsets + (Size) ncols * CELLS_OFFSET_SIZE;
	p = blocks;

	for (uint32 i = 0; i < ncols; i++)
	{
		uint32		off = cells_get_u32(offsets + (Size) i * CELLS_OFFSET_SIZE);

		/* the directory must point exactly at each block, in order */
		if (i == 0 && off != 0)
			cells_invalid("The first column offset is %u, not 0.", off);
		if (off >= (uint64) (end - blocks))
			cells_invalid("The offset of column %u is out of bounds.", i);
		if (off != (uint64) (p - blocks))
			cells_invalid("The offset of column %u does not point at the end of the previous column block.",
						  i);

		cells_validate_name(&p, end, i, &prev_name, &prev_namelen);
		cells_validate_cells(&p, end, i, row_ts);
	}

	if (p != end)
		cells_invalid("There are %u bytes after the last column block.",
					  (uint32) (end - p));
}

/* ---------------------------------------------------------------------
 * Binary I/O
 * ---------------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(ots_cells_recv);

/*
 * ots_cells_recv takes the rest of the message as an ots.cells payload,
 * validates it as untrusted input and returns it as a new value.
 */
Datum
ots_cells_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			n = buf->len - buf->cursor;
	const char *payload = pq_getmsgbytes(buf, n);
	struct varlena *result;

	cells_validate((const uint8 *) payload, (uint32) n);
	result = (struct varlena *) palloc((Size) n + VARHDRSZ);
	SET_VARSIZE(result, (Size) n + VARHDRSZ);
	memcpy(VARDATA(result), payload, n);
	PG_RETURN_POINTER(result);
}

PG_FUNCTION_INFO_V1(ots_cells_send);

/* ots_cells_send returns the value's payload (version byte onward) as bytea */
Datum
ots_cells_send(PG_FUNCTION_ARGS)
{
	struct varlena *value = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
