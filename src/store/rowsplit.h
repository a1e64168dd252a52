/*-------------------------------------------------------------------------
 * src/store/rowsplit.h
 *	  Split rows as rows (docs/design.md, "Wide rows: heads and chunks"):
 *	  what a read or a write of a row whose cells are in chunks loads, and
 *	  how a write's new cells go back into the head and the chunks.
 *
 * A caller says which cells it needs (RowNeeds); rowstore_fetch_row then
 * returns, for a split row, a version-1 value of those cells with the
 * head's row marker (the row's "view"), which every decision and rendering
 * function reads as it reads an inline row's cells.  A write hands the new
 * view back (rowstore_update): its cells go back over the ranges of the
 * chunks loaded, re-cut within the bound; a put replaces every chunk.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ROWSPLIT_H
#define OTS_ROWSPLIT_H

#include "postgres.h"
#include "utils/snapshot.h"

#include "format/cells.h"
#include "format/visibility.h"
#include "meta/storage.h"

/* one column's cells a call needs */
typedef struct RowNeed
{
	const char *name;
	uint32		len;
	int64		to_ts;			/* from its cell at or before this position on */
	int64		from_ts;		/* down to this timestamp */
	int32		cells;			/* at least this many of them (0: only the chunk holding to_ts) */
	bool		stamped;		/* to_ts is the write's server stamp (cells_server_stamp) */
} RowNeed;

typedef struct RowNeeds
{
	bool		whole;			/* every cell of the row */
	bool		range;			/* every cell of the columns in [from, to) */
	const char *from;			/* NULL: from the first column */
	uint32		fromlen;
	int64		from_ts;		/* from the chunk holding (from, from_ts) on */
	const char *to;				/* NULL: to the last column */
	uint32		tolen;
	bool		write;			/* a write: also what index maintenance reads */
	bool		reading;		/* a read that takes the row rule from the head
								 * (rowsplit_exists): one chunk's cells serve as
								 * they are, their row_ts no marker */
	bool		replacing;		/* the write replaces every cell (a put) */
	uint64		budget;			/* range: stop at a column once the chunks read hold this
								 * many bytes (0: read to the end); RowSplit.next_column */
	bool		budget_anywhere;	/* stop at a chunk, even inside a column */
	int64		now_ms;			/* the write's clock, for stamped needs */
	int			n;
	int			max;
	RowNeed    *need;			/* inline_need, or palloc'd past it */
	RowNeed		inline_need[8]; /* most calls need a few: no allocation */
} RowNeeds;

extern void rowneeds_init(RowNeeds *needs);

/* rowneeds_newest: the newest cells (at most to_ts, at least from_ts) of a column, count of them */
extern void rowneeds_newest(RowNeeds *needs, const char *name, uint32 len, int32 cells,
							int64 from_ts, int64 to_ts);

/*
 * rowneeds_init_write: what every write of a row of t loads of it besides
 * what the write itself needs: the stream's original columns
 */
extern void rowneeds_init_write(RowNeeds *needs, const OtsTable *t);

/*
 * rowneeds_stream_original: the newest cell of each of t's stream original
 * columns, which the record of a change of the row carries (stream_record.c)
 */
extern void rowneeds_stream_original(RowNeeds *needs, const OtsTable *t);

/* rowneeds_position: the chunk a cell at (name, ts) belongs to, to write it */
extern void rowneeds_position(RowNeeds *needs, const char *name, uint32 len, int64 ts);

/* rowneeds_stamped: the chunk a cell of name at the write's server stamp belongs to */
extern void rowneeds_stamped(RowNeeds *needs, const char *name, uint32 len);

/* what a read of a split row loaded, and what a write of it must replace */
typedef struct RowSplit
{
	CellsHead	head;
	bool		replacing;
	int			nchunks;
	struct StoredChunk *chunks; /* loaded, in key order */
	struct varlena *view;		/* their cells as one value, the head's marker */
	const char *next_column;	/* a range read cut by its budget: the first column not read */
	uint32		next_len;
	int64		next_ts;		/* (budget_anywhere: and the first timestamp of it not read) */
} RowSplit;

/*
 * rowsplit_load reads the chunks needs asks for of a split row whose head
 * is head (read with snapshot) and returns their cells as one version-1
 * value with the head's row marker; key->split remembers what it read
 */
extern struct varlena *rowsplit_load(RowKey *key, const struct varlena *head, const RowNeeds *needs,
									 Snapshot snapshot);

/* rowsplit_exists applies the row rule to a split row, whose head knows its newest cell */
extern bool rowsplit_exists(const RowKey *key, const Visibility *vis);

/* rowsplit_head_rowkey fills in key from a split row's head, its copy of the row's key */
extern void rowsplit_head_rowkey(const OtsTable *t, const struct varlena *head, RowKey *key);

/*
 * rowsplit_load_head is rowsplit_load for a caller that has a split row's
 * head but not its key (the row functions of a table's view): the key is
 * the head's copy of it, and key is filled in
 */
extern struct varlena *rowsplit_load_head(const OtsTable *t, const struct varlena *head,
										  const RowNeeds *needs, Snapshot snapshot, RowKey *key);

/*
 * rowsplit_defined_view: the cells index maintenance sees of a stored
 * value: cells itself, or for a split row's head, a view of its defined
 * columns' newest versions read from its chunks under snapshot
 */
extern const struct varlena *rowsplit_defined_view(const OtsTable *t, const struct varlena *cells,
											 Snapshot snapshot);

/*
 * rowsplit_pages calls each with the cells of a split row given its head,
 * read under snapshot in chunk order, a page at a time: the chunks holding
 * about budget bytes (one chunk at least, so a page may end inside a
 * column), with the head's marker; first says it is the first page.  Each
 * page lives until each returns.
 */
typedef void (*RowSplitPageFn) (const struct varlena *page, bool first, void *arg);
extern void rowsplit_pages(const OtsTable *t, const struct varlena *head, uint64 budget,
						   Snapshot snapshot, RowSplitPageFn each, void *arg);

/* rowsplit_head_exists applies the row rule to a split row given its head alone */
extern bool rowsplit_head_exists(const OtsTable *t, const struct varlena *head,
								 const Visibility *vis);

/*
 * rowsplit_prepare turns a write's new cells into what the row's tuple
 * stores (*head: a split row's head, or the cells themselves when they
 * stay inline) and plans the chunk writes rowsplit_finish makes once that
 * is written.  old: the split row rowsplit_load read (its loaded ranges
 * get the new cells; all of them when old->replacing), or NULL for an
 * inline or new row; cells_oldest: the cells' oldest timestamp.
 */
typedef struct RowSplitPlan RowSplitPlan;

extern RowSplitPlan *rowsplit_prepare(const RowKey *key, const RowSplit *old,
									  struct varlena *cells, int64 cells_oldest,
									  struct varlena **head, int64 *oldest_ts);
extern void rowsplit_finish(const RowKey *key, RowSplitPlan *plan);

/* rowsplit_delete_chunks deletes every chunk of a split row whose head was deleted or replaced */
extern void rowsplit_delete_chunks(const RowKey *key);

/*
 * rowsplit_needs_split: are these new cells of a row of t too large to stay
 * inline?  A table without its chunk relation (a database whose update to
 * 0.3.0 has not run yet) keeps every row inline, within what the text form
 * carries (cells_io_check_size), as before 0.3.0.
 */
static inline bool
rowsplit_needs_split(const OtsTable *t, const struct varlena *cells)
{
	if (VARSIZE_ANY_EXHDR(cells) <= CELLS_INLINE_MAX)
		return false;
	if (!OidIsValid(t->chunk_oid))
	{
		cells_io_check_size(cells);
		return false;
	}
	return true;
}

#endif							/* OTS_ROWSPLIT_H */
