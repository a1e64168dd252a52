/*-------------------------------------------------------------------------
 * src/store/announce.c
 *	  The write announcement (announce.h): the row write ots's row code is
 *	  about to make through the table AM, and purge's intent, kept here for
 *	  the write point to read, and forgotten at the end of every
 *	  (sub)transaction.
 *
 * The announcement lives below the store and the write point both: the
 * row code that announces (store/) and the write point that reads it
 * (writepoint/storage_write.c) each call here, and neither calls the other
 * for it.  It holds one row write at a time: the write point takes it as
 * the announced call reaches it, before anything it hangs off that change
 * (index maintenance, which writes rows of other ots tables through this
 * same path) can announce a write of its own.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"

#include "store/announce.h"

/* what was announced (announce_row, announce_purge) */
static struct
{
	bool		row;			/* a row change is expected */
	AnnouncedRow announced;
	bool		purging;		/* purge's statements run */
} expected;

static void announce_xact_end(XactEvent event, void *arg);
static void announce_subxact_end(SubXactEvent event, SubTransactionId mySubid,
								 SubTransactionId parentSubid, void *arg);

/* announce_init registers the end of the announcements; from _PG_init */
void
announce_init(void)
{
	RegisterXactCallback(announce_xact_end, NULL);
	RegisterSubXactCallback(announce_subxact_end, NULL);
}

static void
announce_forget(void)
{
	memset(&expected, 0, sizeof(expected));
}

/* an error between an announcement and its write must not leave it for a later write */
static void
announce_xact_end(XactEvent event, void *arg)
{
	announce_forget();
}

static void
announce_subxact_end(SubXactEvent event, SubTransactionId mySubid,
					 SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		announce_forget();
}

void
announce_row(const OtsTable *t, Oid leaf, TupleTableSlot *slot,
			 AttrNumber cells_attno, struct varlena *old_cells,
			 const StreamChange *change)
{
	expected.announced.change = change;
	expected.row = true;
	expected.announced.table = t;
	expected.announced.leaf = leaf;
	expected.announced.slot = slot;
	expected.announced.cells_attno = cells_attno;
	expected.announced.old_cells = old_cells;
	expected.announced.new_cells = NULL;
}

void
announce_row_new_cells(struct varlena *new_cells)
{
	Assert(expected.row);
	expected.announced.new_cells = new_cells;
}

/* announce_end forgets the row write announced; purge's intent stays */
void
announce_end(void)
{
	expected.row = false;
	memset(&expected.announced, 0, sizeof(expected.announced));
}

const AnnouncedRow *
announce_take_row(Oid leaf, TupleTableSlot *slot)
{
	if (!expected.row || expected.announced.leaf != leaf ||
		(expected.announced.slot != NULL && expected.announced.slot != slot))
		return NULL;
	expected.row = false;
	return &expected.announced;
}

bool
announce_pending(void)
{
	return expected.row;
}

void
announce_purge(bool purging)
{
	expected.purging = purging;
}

bool
announce_purging(void)
{
	return expected.purging;
}
