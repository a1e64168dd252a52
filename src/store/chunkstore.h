/*-------------------------------------------------------------------------
 * src/store/chunkstore.h
 *	  The chunks of split rows, in a table's chunk relation "t$chunk"
 *	  (docs/design.md, "Wide rows: heads and chunks"): found by position,
 *	  scanned in order, written by ots's row code.
 *
 * A chunk is keyed by the row's stored key, then its first cell in chunk
 * order ("$column", "$ts": format/cells.h, cells_position_cmp).  Only the
 * writer holding a split row's head writes its chunks (store/rowsplit.c),
 * so reading them with the snapshot the head was read with gives the row
 * as of that version.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_CHUNKSTORE_H
#define OTS_CHUNKSTORE_H

#include "postgres.h"
#include "executor/tuptable.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

#include "format/cells.h"
#include "meta/storage.h"

/* one stored chunk as read */
typedef struct StoredChunk
{
	ItemPointerData tid;
	const char *column;			/* its key: first cell's column (palloc'd), */
	uint32		columnlen;
	int64		ts;				/* and timestamp */
	struct varlena *cells;		/* a copy, 4-byte header */
} StoredChunk;

/* a chunk relation opened for a row's reads or writes */
typedef struct ChunkRel
{
	Relation	rel;
	Relation	pkey;
	const RowKey *key;
	AttrNumber	column_attno;
	AttrNumber	ts_attno;
	AttrNumber	cells_attno;
	AttrNumber	oldest_attno;
	AttrNumber	key_attnos[OTS_MAX_KEY_COLUMNS + 1];
	bool		writing;
	TupleTableSlot *slot;		/* the seeks' slot, made at the first */
} ChunkRel;

/* chunkstore_open opens key's table's chunk relation, to read or to write; _close closes it */
extern void chunkstore_open(ChunkRel *cr, const RowKey *key, bool writing);
extern void chunkstore_close(ChunkRel *cr);

/*
 * chunkstore_find reads the chunk that holds the position (column, ts) of
 * the row: the one with the greatest key at most that position, else the
 * row's first chunk; false when the row has no chunk.  ts PG_INT64_MAX
 * finds the chunk of the column's newest cell.
 */
extern bool chunkstore_find(ChunkRel *cr, Snapshot snapshot, const char *column,
							uint32 columnlen, int64 ts, StoredChunk *out);

/*
 * chunkstore_neighbour reads the chunk after (forward) or before the one
 * keyed (column, ts); false when there is none.
 */
extern bool chunkstore_neighbour(ChunkRel *cr, Snapshot snapshot, const char *column,
								 uint32 columnlen, int64 ts, bool forward, StoredChunk *out);

/*
 * A scan's byte budget (a page of a wide row): once the chunks read hold
 * budget bytes, the scan ends before the next chunk that begins a column
 * (anywhere: before the next chunk), whose key it gives in next, next_ts
 * (next NULL when the scan read to its end).  It reads one column (one
 * chunk) at least, whatever its size.
 */
typedef struct ChunkBudget
{
	uint64		budget;
	bool		anywhere;
	const char *next;			/* palloc'd */
	uint32		nextlen;
	int64		next_ts;
} ChunkBudget;

/*
 * chunkstore_scan reads every chunk of the row in key order, from the one
 * holding (from, from_ts) when from is not NULL, up to (not past) the
 * first chunk keyed after column `to` when to is not NULL, and within
 * budget when it is not NULL; returns how many, in a palloc'd array.
 */
extern StoredChunk *chunkstore_scan(ChunkRel *cr, Snapshot snapshot, const char *from,
									uint32 fromlen, int64 from_ts, const char *to, uint32 tolen,
									ChunkBudget *budget, int *nchunks);

/* chunkstore_insert adds a chunk of the row; chunkstore_update replaces the chunk at tid; chunkstore_delete removes it */
extern void chunkstore_insert(ChunkRel *cr, const CellsChunk *chunk);
extern void chunkstore_update(ChunkRel *cr, ItemPointer tid, const CellsChunk *chunk);
extern void chunkstore_delete(ChunkRel *cr, ItemPointer tid);

#endif							/* OTS_CHUNKSTORE_H */
