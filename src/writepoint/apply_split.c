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
 *
 * The initial copy (table sync workers) copies the storage and the chunk
 * relation in transactions of their own.  The two take turns on the table
 * (apply_split_copying), so the one that commits second sees the other's
 * rows: a head copied second reads its chunks as above; chunks copied
 * second find the heads copied before them, whose entries were made from
 * the head alone, and make them again (apply_split_chunks_arrived).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/hsearch.h"
#include "replication/logicalworker.h"
#include "replication/worker_internal.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "format/cells.h"
#include "format/codec.h"
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
	bool		chunks_only;	/* an initial copy's chunks, its head copied before them */
} ApplySplit;

static void apply_split_finish(XactPendingItem *item);

static XactPending apply_splits = {.finish = apply_split_finish};

/*
 * The waiting rows by table and key, for a transaction that applies many:
 * apply_splits's items, indexed by the hash of their key; rebuilt when
 * xact_pending forgot items (a subtransaction's, or the transaction's end)
 */
typedef struct ApplySplitSlot
{
	struct
	{
		Oid			storage_oid;
		uint32		hash;
	}			key;
	List	   *rows;			/* of ApplySplit */
} ApplySplitSlot;

static HTAB *apply_split_index = NULL;	/* in TopTransactionContext */
static uint64 apply_split_index_forgotten = 0;

/* apply_split_hash: the hash of key pk */
static uint32
apply_split_hash(const PkInput *pk)
{
	uint32		h = 0;

	for (int k = 0; k < pk->n; k++)
	{
		const OtsValue *v = &pk->v[k];

		h = hash_combine(h, v->type == OTS_VT_INTEGER ?
						 hash_bytes_uint32((uint32) v->u.i ^ (uint32) (v->u.i >> 32)) :
						 hash_bytes((const unsigned char *) v->u.s.data, v->u.s.len));
	}
	return h;
}

/* apply_split_slot: the index's slot of (storage_oid, pk), made when create */
static ApplySplitSlot *
apply_split_slot(Oid storage_oid, const PkInput *pk, bool create)
{
	ApplySplitSlot probe;
	bool		found;
	ApplySplitSlot *slot;

	if (apply_split_index == NULL || apply_split_index_forgotten != apply_splits.forgotten)
	{
		HASHCTL		ctl;
		ListCell   *lc;

		/* the last one went with its transaction's memory, or holds forgotten rows */
		ctl.keysize = sizeof(probe.key);
		ctl.entrysize = sizeof(ApplySplitSlot);
		ctl.hcxt = TopTransactionContext;
		apply_split_index = hash_create("ots applied split rows", 64, &ctl,
										HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		apply_split_index_forgotten = apply_splits.forgotten;
		foreach(lc, apply_splits.items)
		{
			ApplySplit *a = lfirst(lc);
			ApplySplitSlot *s = apply_split_slot(a->storage_oid, &a->pk, true);

			s->rows = lappend(s->rows, a);
		}
	}
	memset(&probe.key, 0, sizeof(probe.key));
	probe.key.storage_oid = storage_oid;
	probe.key.hash = apply_split_hash(pk);
	slot = hash_search(apply_split_index, &probe.key, create ? HASH_ENTER : HASH_FIND, &found);
	if (create && !found)
		slot->rows = NIL;
	return slot;
}

/* apply_split_find: the row of table storage_oid, key pk, waiting already, or NULL */
static ApplySplit *
apply_split_find(Oid storage_oid, const PkInput *pk)
{
	ApplySplitSlot *slot;
	ListCell   *lc;

	if (apply_splits.items == NIL)
		return NULL;
	slot = apply_split_slot(storage_oid, pk, false);
	if (slot == NULL)
		return NULL;
	foreach(lc, slot->rows)
	{
		ApplySplit *a = lfirst(lc);

		if (codec_pk_equal(&a->pk, pk))
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
	memcpy(before.pk, a->pk.v, sizeof(OtsValue) * a->pk.n);
	memcpy(after.pk, a->pk.v, sizeof(OtsValue) * a->pk.n);
	before.cells = a->before;
	if (a->chunks_only)
	{
		CellsHead	h;

		/* no head yet: its copy comes after, and reads these chunks */
		if (now == NULL || !cells_is_head(now))
			return;
		/* its entries were made from the head alone: the row marker, no cell */
		cells_head_read(now, &h);
		before.cells = cells_builder_finish(cells_builder_create(h.row_ts), 0);
	}
	if (now != NULL)
		now = (struct varlena *) rowsplit_defined_view(t, now, GetLatestSnapshot());
	after.cells = now;
	index_write_change(t, before.cells != NULL ? &before : NULL, now != NULL ? &after : NULL);
}

bool
apply_split_initial_copy(void)
{
	return IsLogicalWorker() && am_tablesync_worker();
}

/*
 * apply_split_copying: in the initial copy (a table sync worker), the copy
 * of a table's storage and that of its chunk relation, each a transaction
 * of its own, take turns on the table: the one that commits second sees the
 * other's rows, so a split row's entries are made once both are there
 */
static void
apply_split_copying(const OtsTable *t)
{
	if (apply_split_initial_copy())
		LockRelationOid(t->data_oid, ShareUpdateExclusiveLock);
}

/*
 * apply_split_wait adds t's row pk to the rows waiting for the commit, its
 * entries made from old_cells (NULL: no row), or from its head alone
 * (chunks_only)
 */
static void
apply_split_wait(const OtsTable *t, const PkInput *pk, const struct varlena *old_cells,
				 bool chunks_only)
{
	MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
	ApplySplit *a = palloc0(sizeof(ApplySplit));
	ApplySplitSlot *slot;

	a->storage_oid = t->data_oid;
	codec_pk_copy(&a->pk, pk);
	if (old_cells != NULL)
	{
		a->before = palloc(VARSIZE_ANY(old_cells));
		memcpy(a->before, old_cells, VARSIZE_ANY(old_cells));
	}
	a->chunks_only = chunks_only;
	xact_pending_add(&apply_splits, &a->pending);
	slot = apply_split_slot(a->storage_oid, &a->pk, true);
	slot->rows = lappend(slot->rows, a);
	MemoryContextSwitchTo(old);
}

void
apply_split_chunks_arrived(const OtsTable *t, const PkInput *pk)
{
	apply_split_copying(t);
	if (apply_split_find(t->data_oid, pk) == NULL)
		apply_split_wait(t, pk, NULL, true);
}

bool
apply_split_defer(const OtsTable *t, const PkInput *pk, const struct varlena *old_cells,
				  const struct varlena *new_cells)
{
	if (apply_split_find(t->data_oid, pk) != NULL)
		return true;			/* waiting already: its first row before stands */
	if (new_cells == NULL || !cells_is_head(new_cells))
		return false;
	apply_split_copying(t);
	apply_split_wait(t, pk, old_cells, false);
	return true;
}
