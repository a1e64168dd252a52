/*-------------------------------------------------------------------------
 * src/store/announce.h
 *	  The write announcement: what ots's own code tells the write point
 *	  about the writes it is about to make through the table access method,
 *	  so the write point neither checks nor decodes again what that code
 *	  already knows (src/store/announce.c).
 *
 * Two things are announced.  A row write: ots's row code (rowstore.c,
 * rowstore_bulk.c) announces each row write it makes, just before the
 * table AM call (announce_row), and forgets it after (announce_end); the
 * write point takes it as the call reaches it (announce_take_row).  And an
 * intent that lasts a statement: purge's batch statements remove what no
 * read sees (announce_purge), which the write point hands to no stream.
 * Both end with the (sub)transaction too.  The write point reads what was
 * announced; nothing here calls it.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_ANNOUNCE_H
#define OTS_ANNOUNCE_H

#include "postgres.h"

#include "executor/tuptable.h"

#include "meta/catalog.h"
#include "stream/stream.h"

/* a row write ots's row code announced (announce_row) */
typedef struct AnnouncedRow
{
	const OtsTable *table;
	Oid			leaf;
	TupleTableSlot *slot;		/* the new row; NULL: any change of the leaf */
	AttrNumber	cells_attno;	/* where the new rows hold their cells (0: a delete) */
	struct varlena *old_cells;	/* the old cells the row code read, or NULL */
	struct varlena *new_cells;	/* the new row's cells, when its tuple holds a split row's head */
	const StreamChange *change; /* what the change is for Stream, or NULL */
} AnnouncedRow;

extern void announce_init(void);

/*
 * ots's row code announces each write it makes through the table AM
 * itself, just before the call: announce_row for the next row change of
 * one leaf through slot (any change, for a delete or a multi-insert: slot
 * NULL), where the new rows hold their cells (0 for a delete), with the
 * old cells it read (NULL: a new row) and what the change is for Stream
 * (NULL: what the table AM callback says).  announce_end forgets it after
 * the call, as does the end of the (sub)transaction.  Statements ots runs
 * on storage (purge's batches) announce no row: the code of a leaf's index
 * expressions runs inside them, and what it wrote would pass unchecked.
 */
extern void announce_row(const OtsTable *t, Oid leaf, TupleTableSlot *slot,
						 AttrNumber cells_attno, struct varlena *old_cells,
						 const StreamChange *change);
extern void announce_end(void);

/*
 * announce_row_new_cells: the row just announced is split (store/rowsplit.h):
 * its tuple holds a head, and its cells as the write point sees them are
 * new_cells (the old ones are announce_row's old_cells).  A change of a
 * table's chunk relation announced by ots's row code is part of the row
 * write whose head carries it: the write point hands it nowhere.
 */
extern void announce_row_new_cells(struct varlena *new_cells);

/*
 * announce_take_row: the row write announced, if the change of leaf
 * through slot (NULL: a delete or a multi-insert) is it, else NULL.  The
 * announcement is then taken (a later write is not covered by it); what
 * it points to stays valid until the next announce_row or announce_end.
 */
extern const AnnouncedRow *announce_take_row(Oid leaf, TupleTableSlot *slot);

/* announce_pending: is a row write announced and not taken yet? */
extern bool announce_pending(void);

/*
 * announce_purge says that the statements run from now until
 * announce_purge(false) are purge's, which remove what no read sees
 * (announce_purging); the end of the (sub)transaction ends it too
 */
extern void announce_purge(bool purging);
extern bool announce_purging(void);

#endif							/* OTS_ANNOUNCE_H */
