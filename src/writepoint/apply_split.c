/*-------------------------------------------------------------------------
 * src/writepoint/apply_split.c
 *	  A split row a logical replication worker applies: its secondary
 *	  index entries are made once its chunks are there, as the apply
 *	  transaction commits.
 *
 * The publisher's row code writes a split row's head, then its chunks, and
 * a subscriber applies them in that order.  The subscriber's own indexes
 * follow the rows it applies (the publisher's index storage is not
 * published), and an index entry is made from the row's defined columns,
 * which a head holds none of: when the head arrives, the chunks it names
 * are not there yet.  So for a change whose new row is a head, the write
 * point keeps what the row's entries were made from before (the old row,
 * its chunks still the old ones) and leaves the entries alone; every later
 * change of the row in the transaction too.  Before the transaction
 * commits, each such row is read as it stands, chunks and all, and its
 * indexes are brought from the row before to the row after.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "format/cells.h"
#include "format/value.h"
#include "index/index_write.h"
#include "meta/catalog.h"
#include "meta/storage.h"
#include "store/routing.h"
#include "store/rowsplit.h"
#include "store/rowstore.h"
#include "writepoint/apply_split.h"
#include "writepoint/xact_pending.h"

/* a row whose index maintenance waits for the commit */
typedef struct ApplySplit
{
	XactPendingItem pending;	/* first: apply_splits's item */
	Oid			storage_oid;
	PkInput		pk;				/* copied into TopTransactionContext */
	struct varlena *before;		/* the cells its entries were made from, or NULL: no row */
} ApplySplit;

static void apply_split_finish(XactPendingItem *item);

static XactPending apply_splits = {.finish = apply_split_finish};

/* apply_split_find: the row of table storage_oid, key pk, waiting already, or NULL */
static ApplySplit *
apply_split_find(Oid storage_oid, const PkInput *pk)
{
	ListCell   *lc;

	foreach(lc, apply_splits.items)
	{
		ApplySplit *a = lfirst(lc);
		bool		same = a->storage_oid == storage_oid && a->pk.n == pk->n;

		for (int k = 0; same && k < pk->n; k++)
			same = ots_value_equal(&a->pk.v[k], &pk->v[k]);
		if (same)
			return a;
	}
	return NULL;
}

/* apply_split_finish brings a waiting row's indexes from its row before to its row now */
static void
apply_split_finish(XactPendingItem *item)
{
	const ApplySplit *a = (const ApplySplit *) item;
	const OtsTable *t = catalog_lookup_by_data_oid(a->storage_oid);
	RowKey		key;
	struct varlena *now;
	IndexSourceRow before;
	IndexSourceRow after;

	if (t == NULL)
		return;					/* its table was dropped: its indexes with it */
	routing_key(t, &a->pk, &key);
	now = rowstore_fetch_self(&key);
	if (now != NULL)
		now = (struct varlena *) rowsplit_defined_view(t, now, GetLatestSnapshot());
	memcpy(before.pk, a->pk.v, sizeof(OtsValue) * a->pk.n);
	memcpy(after.pk, a->pk.v, sizeof(OtsValue) * a->pk.n);
	before.cells = a->before;
	after.cells = now;
	index_write_change(t, a->before != NULL ? &before : NULL, now != NULL ? &after : NULL);
}

bool
apply_split_defer(const OtsTable *t, const PkInput *pk, const struct varlena *old_cells,
				  const struct varlena *new_cells)
{
	MemoryContext old;
	ApplySplit *a;

	if (apply_split_find(t->data_oid, pk) != NULL)
		return true;			/* waiting already: its first row before stands */
	if (new_cells == NULL || !cells_is_head(new_cells))
		return false;
	old = MemoryContextSwitchTo(TopTransactionContext);
	a = palloc0(sizeof(ApplySplit));
	a->storage_oid = t->data_oid;
	a->pk.n = pk->n;
	for (int k = 0; k < pk->n; k++)
		ots_value_copy(&a->pk.v[k], &pk->v[k]);
	if (old_cells != NULL)
	{
		a->before = palloc(VARSIZE_ANY(old_cells));
		memcpy(a->before, old_cells, VARSIZE_ANY(old_cells));
	}
	MemoryContextSwitchTo(old);
	xact_pending_add(&apply_splits, &a->pending);
	return true;
}
