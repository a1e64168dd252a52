/*-------------------------------------------------------------------------
 * src/format/cells.h
 *	  ots.cells: a row's attribute cells in one compact varlena.
 *
 * Format (version 1).  All integers little-endian; "varint" is LEB128
 * (7 bits per byte, low group first, at most 10 bytes, canonical: no
 * superfluous trailing 0x80/0x00 groups); "zigzag" maps int64 to uint64 as
 * (n << 1) ^ (n >> 63) before varint encoding.
 *
 *	 uint8	 version			 = 1
 *	 int64	 row_ts			 row marker: server time (ms) of the write
 *								 that last put/updated the row, >= 0
 *	 uint32	 ncols
 *	 uint32	 offset[ncols]	 start of each column block, relative to the
 *								 first byte after this array; strictly increasing,
 *								 offset[0] = 0
 *	 column blocks, in strictly ascending bytewise (memcmp, shorter first)
 *	 order of column name:
 *		 varint	 name_len		 1..255
 *		 bytes	 name			 [A-Za-z0-9_], not starting with a digit
 *		 varint	 ncells			 >= 1
 *		 ncells × cell, timestamps strictly descending (newest first):
 *			 first cell:  zigzag varint (row_ts - ts)
 *			 later cells: varint (previous ts - ts), >= 1
 *			 uint8	type		 OtsValueType
 *			 value:	INTEGER zigzag varint; DOUBLE 8 bytes (IEEE-754 LE, finite);
 *					BOOLEAN 1 byte (0 or 1); STRING/BINARY varint length +
 *					bytes (STRING valid UTF-8)
 *	 nothing after the last block
 *
 * Every timestamp lies in [0, OTS_MAX_TIMESTAMP).  A column never has an
 * empty cell list; a row may have zero columns.  The format has no limit of
 * a write request (cells per write, value sizes): a row may grow past them
 * through many writes, and still reads back.  The directory makes one
 * column reachable by binary search without decoding the others, and the
 * whole format is read with memcpy, so packed (1-byte header, unaligned)
 * datums are read in place.  A version-1 value is a row's cells (an
 * inline row, docs/design.md "Wide rows: heads and chunks") or a chunk's:
 * a chunk's row_ts is the newest timestamp among its cells.
 *
 * Format version 2: the head of a split row, whose cells are all in chunks
 * of the table's chunk relation (cells_head.c):
 *
 *	 uint8	 version			 = 2
 *	 int64	 row_ts			 row marker, as in version 1
 *	 int64	 newest_ts		 no cell of the row is newer; the newest
 *								 cell's unless flags has CELLS_HEAD_NEWEST_BOUND
 *	 uint8	 flags
 *	 varint	 cells_size		 the encoded size of its chunks' cells, <= INT64_MAX
 *	 uint8	 nkeys			 1 .. OTS_MAX_KEY_COLUMNS + 1
 *	 nkeys × the row's stored key column: uint8 kind, then
 *		 CELLS_KEY_INTEGER	 8 bytes (int64)
 *		 CELLS_KEY_STRING	 varint length + bytes (UTF-8, no NUL)
 *		 CELLS_KEY_BINARY	 varint length + bytes
 *	 nothing after the last key column
 *
 * The key is the head tuple's own stored key (the write point checks it),
 * so a read that has only the head's cells finds its chunks.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_CELLS_H
#define OTS_CELLS_H

#include "postgres.h"
#include "fmgr.h"

#include "format/value.h"
#include "ots_limits.h"

#define CELLS_FORMAT_VERSION 1
#define CELLS_HEAD_FORMAT_VERSION 2

/*
 * A row stays inline (one version-1 value) while its cells encode in at
 * most CELLS_INLINE_MAX bytes; a split row's chunks hold at most
 * CELLS_CHUNK_MAX bytes of cells each, or one larger cell
 * (docs/design.md, "Wide rows: heads and chunks").
 */
#define CELLS_INLINE_MAX	4096
#define CELLS_CHUNK_MAX		1024

/* ---- reading ---- */

typedef struct CellsReader
{
	const uint8 *data;			/* first byte of the payload (version byte) */
	uint32		len;			/* payload length */
	int64		row_ts;			/* the row marker */
	int64		base_ts;		/* what the first cells' timestamps are stored against */
	uint32		ncols;
	const uint8 *offsets;		/* ncols little-endian uint32 */
	const uint8 *blocks;		/* start of the column blocks */
} CellsReader;

typedef struct CellsColumn
{
	const char *name;			/* not NUL-terminated */
	uint32		namelen;
	uint32		ncells;
	/* iteration state, advanced by cells_column_next */
	const uint8 *pos;
	uint32		seen;
	int64		prev_ts;
	int64		row_ts;
} CellsColumn;

/*
 * cells_reader_init prepares to read a value already stored by ots (so
 * known valid).  "value" may be packed (1-byte header): pass the result of
 * PG_DETOAST_DATUM_PACKED.  A split row's head (version 2) reads as its
 * row marker without cells.
 */
extern void cells_reader_init(CellsReader *r, const struct varlena *value);

/*
 * cells_reader_set_marker makes marker the reader's row marker: a split
 * row's, when r reads one of its chunks as stored (store/rowsplit.h)
 */
static inline void
cells_reader_set_marker(CellsReader *r, int64 marker)
{
	r->row_ts = marker;
}

/* cells_column_at opens column i (0-based, name order) */
extern void cells_column_at(const CellsReader *r, uint32 i, CellsColumn *col);

/* cells_last_column opens the last column (in name order) of value; false without columns */
extern bool cells_last_column(const struct varlena *value, CellsColumn *col);

/* cells_find_column opens the named column by binary search; false if absent */
extern bool cells_find_column(const CellsReader *r, const char *name, uint32 namelen,
							  CellsColumn *col);

/*
 * cells_column_next yields the column's next cell, newest first; false after
 * the last.  String/Binary values point into the reader's data.
 */
extern bool cells_column_next(CellsColumn *col, int64 *ts, OtsValue *value);

/* cells_newest: the newest cell of the row's column name, false if none */
extern bool cells_newest(const CellsReader *r, const char *name, uint32 namelen, int64 *ts,
						 OtsValue *v);

/*
 * cells_row_newest_ts: the newest timestamp of the row r reads, its marker's
 * or a cell's (the row rule: the row exists until this expires)
 */
extern int64 cells_row_newest_ts(const CellsReader *r);

/*
 * cells_server_stamp is the server timestamp a write at now_ms gives a row
 * whose marker is row_ts: now_ms, or the millisecond after the marker when
 * that is not before now_ms, so successive server stamps of a row only
 * increase, whatever the clock did between them (the caller checks that
 * the result is a valid timestamp)
 */
static inline int64
cells_server_stamp(int64 now_ms, int64 row_ts)
{
	return row_ts >= now_ms ? row_ts + 1 : now_ms;
}

/* ---- a split row's head (version 2, cells_head.c) ---- */

#define CELLS_HEAD_NEWEST_BOUND 0x01	/* newest_ts may be newer than every cell */

typedef enum CellsKeyKind
{
	CELLS_KEY_INTEGER = 1,
	CELLS_KEY_STRING = 2,
	CELLS_KEY_BINARY = 3
} CellsKeyKind;

/* one stored key column of a head: an int64, or bytes */
typedef struct CellsKeyValue
{
	CellsKeyKind kind;
	int64		i;
	const char *data;
	uint32		len;
} CellsKeyValue;

typedef struct CellsHead
{
	int64		row_ts;
	int64		newest_ts;
	uint8		flags;
	uint64		cells_size;
	int			nkeys;
	CellsKeyValue key[OTS_MAX_KEY_COLUMNS + 1];
} CellsHead;

/* cells_is_head: is this stored value a split row's head (version 2)? */
static inline bool
cells_is_head(const struct varlena *value)
{
	return VARSIZE_ANY_EXHDR(value) > 0 &&
		((const uint8 *) VARDATA_ANY(value))[0] == CELLS_HEAD_FORMAT_VERSION;
}

/* cells_head_build encodes a head as a palloc'd varlena (4-byte header) */
extern struct varlena *cells_head_build(const CellsHead *h);

/* cells_head_read decodes a stored (valid) head; key bytes point into value */
extern void cells_head_read(const struct varlena *value, CellsHead *h);

/* cells_head_validate checks an untrusted version-2 payload, as cells_validate does */
extern void cells_head_validate(const uint8 *data, uint32 len);

/*
 * cells_name_cmp orders column names bytewise (memcmp, a prefix before any
 * longer name), the order of the column blocks.
 */
static inline int
cells_name_cmp(const char *a, uint32 alen, const char *b, uint32 blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	if (c != 0)
		return c;
	return (alen > blen) - (alen < blen);
}

/* ---- a split row's chunks (cells_cut.c) ---- */

/*
 * A split row's cells in chunk order: by column name (cells_name_cmp), then
 * by timestamp ascending.  A chunk is keyed by its first cell in this
 * order, so the chunk holding (name, ts) is the one with the greatest key
 * at most (name, ts).
 */
static inline int
cells_position_cmp(const char *a, uint32 alen, int64 ats, const char *b, uint32 blen, int64 bts)
{
	int			c = cells_name_cmp(a, alen, b, blen);

	if (c != 0)
		return c;
	return (ats > bts) - (ats < bts);
}

/* one chunk of a split row, as cells_cut makes it */
typedef struct CellsChunk
{
	const char *column;			/* its key: its first cell's column, */
	uint32		columnlen;
	int64		ts;				/* and timestamp, in chunk order */
	struct varlena *cells;		/* version 1; row_ts its newest timestamp */
	int64		oldest_ts;		/* its oldest timestamp */
	int64		newest_ts;		/* its newest, its cells' row_ts */
	uint32		size;			/* VARSIZE(cells) - VARHDRSZ */
} CellsChunk;

/*
 * cells_cut cuts the cells of a version-1 value into chunks of about equal
 * size, each at most CELLS_CHUNK_MAX bytes of cells or a single larger
 * cell, in chunk order; *nchunks is 0 for a value without cells.  Column
 * names and the chunks' keys point into value.
 */
extern CellsChunk *cells_cut(const struct varlena *value, int *nchunks);

/* a position in chunk order */
typedef struct CellsPosition
{
	const char *column;
	uint32		columnlen;
	int64		ts;
} CellsPosition;

/*
 * cells_cut_ranges cuts the cells of a version-1 value as cells_cut does,
 * range by range: range k holds the cells from starts[k] (range 0: from
 * the first) to starts[k + 1] (the last range: to the end), in chunk
 * order; returns each range's chunks, their counts in nchunks[k] (0 for a
 * range without cells).
 */
extern CellsChunk **cells_cut_ranges(const struct varlena *value, int nranges,
									 const CellsPosition *starts, int *nchunks);

/*
 * cells_as_chunk: a version-1 value of at most CELLS_CHUNK_MAX bytes whose
 * row_ts is its newest cell is, byte for byte, the one chunk cells_cut
 * would make of it (the format is canonical): *chunk is it, its oldest
 * cell oldest_ts (as the builder reported it); false otherwise
 */
extern bool cells_as_chunk(struct varlena *value, int64 oldest_ts, CellsChunk *chunk);

/* ---- building ---- */

typedef struct CellsBuilder CellsBuilder;

/* cells_builder_create starts an empty row in CurrentMemoryContext */
extern CellsBuilder *cells_builder_create(int64 row_ts);

/*
 * cells_builder_add adds one cell.  Cells may come in any order; a second
 * cell with the same column name and timestamp replaces the first (the
 * later call wins).  name/value memory must stay valid until finish.
 * Inputs are assumed already validated by the caller; a timestamp out of
 * range is still an (internal) error, never stored.
 */
extern void cells_builder_add(CellsBuilder *b, const char *name, uint32 namelen,
							  int64 ts, const OtsValue *value);

/* cells_builder_add_value adds every cell of a version-1 value (names and values point into it) */
extern void cells_builder_add_value(CellsBuilder *b, const struct varlena *value);

/* cells_builder_ncells counts cells added so far (after same-key replacement) */
extern uint32 cells_builder_ncells(const CellsBuilder *b);

/* cells_builder_set_row_ts changes the row marker the next finish writes */
extern void cells_builder_set_row_ts(CellsBuilder *b, int64 row_ts);

/*
 * cells_builder_finish encodes the row.  When max_versions > 0, only the
 * newest max_versions cells of each column are kept.  The result is a
 * palloc'd varlena with a 4-byte header.
 */
extern struct varlena *cells_builder_finish(CellsBuilder *b, int32 max_versions);

/*
 * cells_builder_oldest_ts is "$oldest_ts" of the value the last finish
 * returned: its oldest cell's timestamp, or its row marker without cells.
 */
extern int64 cells_builder_oldest_ts(const CellsBuilder *b);

/*
 * cells_oldest_ts is what "$oldest_ts" stores for a row's cells: the
 * timestamp of its oldest cell, or its row marker when it has no cells
 * (a split row's head: the later of its marker and its newest cell);
 * from that moment on, purge may have work on the row.  It decodes the
 * cells: a writer that has just built them has the same value from
 * cells_builder_oldest_ts.
 */
extern int64 cells_oldest_ts(const struct varlena *cells);

/*
 * cells_validate checks a payload (version byte onward) against every rule
 * above and raises ERRCODE_INVALID_BINARY_REPRESENTATION naming the first
 * defect.  Used by binary receive and text input; never crashes on any
 * input.
 */
extern void cells_validate(const uint8 *data, uint32 len);

/*
 * cells_io_check_size (cells_io.c) raises OTSOutOfRowSizeLimit when a row
 * about to be written could not go through the text form (pg_dump, COPY)
 */
extern void cells_io_check_size(const struct varlena *value);

/* cells_ncells_total counts all cells of a valid value */
extern uint32 cells_ncells_total(const CellsReader *r);

#endif							/* OTS_CELLS_H */
