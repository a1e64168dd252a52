/*-------------------------------------------------------------------------
 * src/writepoint/xact_pending.h
 *	  Work the write point leaves for the end of the writing transaction
 *	  (src/writepoint/xact_pending.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_XACT_PENDING_H
#define OTS_XACT_PENDING_H

#include "postgres.h"

#include "nodes/pg_list.h"

/* the first member of every pending item */
typedef struct XactPendingItem
{
	SubTransactionId subid;		/* the (sub)transaction that added it */
} XactPendingItem;

/*
 * A list of items, each finished (finish) before the transaction commits
 * or prepares, under a snapshot of its own; an aborted subtransaction's go
 * with it.  Declared static by its owner, zero-initialized but finish.
 */
typedef struct XactPending
{
	void		(*finish) (XactPendingItem *item);
	List	   *items;			/* in TopTransactionContext */
	uint64		forgotten;		/* how many times items were taken out (an index of them is stale) */
	bool		registered;
} XactPending;

/* xact_pending_add adds item (palloc'd in TopTransactionContext) to p */
extern void xact_pending_add(XactPending *p, XactPendingItem *item);

#endif							/* OTS_XACT_PENDING_H */
