/*-------------------------------------------------------------------------
 * src/writepoint/xact_pending.c
 *	  Work the write point leaves for the end of the writing transaction:
 *	  a list per owner (chunk_first.c, apply_split.c) whose items are
 *	  finished before the transaction commits or prepares (a prepared
 *	  transaction commits what it prepared), and forgotten on abort; an
 *	  aborted subtransaction's items go with it.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "writepoint/xact_pending.h"

static void
xact_pending_xact(XactEvent event, void *arg)
{
	XactPending *p = arg;

	if (p->items != NIL &&
		(event == XACT_EVENT_PRE_COMMIT || event == XACT_EVENT_PARALLEL_PRE_COMMIT ||
		 event == XACT_EVENT_PRE_PREPARE))
	{
		List	   *items = p->items;
		ListCell   *lc;

		/* what finishing writes runs as a statement does: under a snapshot of its own */
		p->items = NIL;
		p->forgotten++;
		CommandCounterIncrement();
		PushActiveSnapshot(GetTransactionSnapshot());
		foreach(lc, items)
			p->finish(lfirst(lc));
		PopActiveSnapshot();
	}
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PREPARE)
	{
		p->items = NIL;			/* their memory goes with TopTransactionContext */
		p->forgotten++;
	}
}

static void
xact_pending_subxact(SubXactEvent event, SubTransactionId mySubid, SubTransactionId parentSubid,
					 void *arg)
{
	XactPending *p = arg;
	ListCell   *lc;

	if (event != SUBXACT_EVENT_ABORT_SUB)
		return;
	/* subtransaction ids only grow: the aborted one's items and its children's */
	foreach(lc, p->items)
		if (((XactPendingItem *) lfirst(lc))->subid >= mySubid)
		{
			p->items = foreach_delete_current(p->items, lc);
			p->forgotten++;
		}
}

void
xact_pending_add(XactPending *p, XactPendingItem *item)
{
	MemoryContext old;

	if (!p->registered)
	{
		RegisterXactCallback(xact_pending_xact, p);
		RegisterSubXactCallback(xact_pending_subxact, p);
		p->registered = true;
	}
	item->subid = GetCurrentSubTransactionId();
	old = MemoryContextSwitchTo(TopTransactionContext);
	p->items = lappend(p->items, item);
	MemoryContextSwitchTo(old);
}
