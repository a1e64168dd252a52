/*-------------------------------------------------------------------------
 * src/search/search_write.c
 *	  Search-index maintenance: what a change of a row does to each search
 *	  index of its table, in the writing transaction (from the write point),
 *	  and the backfill of an index made over rows already there.
 *
 * A row's entry is replaced whole: the old one (found by the row's key)
 * deleted, the new one inserted with every index of the storage.  Who may
 * change an entry: only the writer of its row, which holds that row's lock,
 * so entries are found with SnapshotSelf (committed, or this
 * transaction's) and two writers of one row take their turns on the row
 * first; the storage's primary key is checked unique all the same.  The
 * storage is written below SQL, as the writer, which search_index.c makes
 * safe (nothing of its owner's runs).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_inherits.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "format/cells.h"
#include "meta/storage.h"
#include "search/search_index.h"
#include "search/search_write.h"
#include "store/leaf.h"
#include "store/rowsplit.h"

/* a search index's storage, open for writing, with its indexes */
typedef struct SearchRels
{
	Relation	rel;
	int			n;
	Relation   *indexes;
	IndexInfo **infos;
	TupleTableSlot *slot;
} SearchRels;

static void
search_rels_open(const SearchIndex *si, SearchRels *r)
{
	r->rel = table_open(si->storage_oid, RowExclusiveLock);
	r->n = si->nindexes;
	r->indexes = palloc(sizeof(Relation) * r->n);
	r->infos = palloc(sizeof(IndexInfo *) * r->n);
	for (int i = 0; i < r->n; i++)
	{
		r->indexes[i] = index_open(si->index_oids[i], RowExclusiveLock);
		r->infos[i] = BuildIndexInfo(r->indexes[i]);
	}
	r->slot = MakeSingleTupleTableSlot(RelationGetDescr(r->rel), &TTSOpsHeapTuple);
}

static void
search_rels_close(SearchRels *r)
{
	ExecDropSingleTupleTableSlot(r->slot);
	for (int i = 0; i < r->n; i++)
		index_close(r->indexes[i], NoLock);
	table_close(r->rel, NoLock);
}

/*
 * search_find deletes the entry of the row with key pk, if there is one,
 * or only tells whether there is (!delete)
 */
static bool
search_find(const OtsTable *t, const SearchIndex *si, SearchRels *r, const OtsValue *pk, bool delete)
{
	ScanKeyData keys[OTS_MAX_PK_COLUMNS];
	Datum	   *values = palloc(sizeof(Datum) * RelationGetDescr(r->rel)->natts);
	bool	   *isnull = palloc(sizeof(bool) * RelationGetDescr(r->rel)->natts);
	SysScanDesc scan;
	HeapTuple	tup;
	bool		found = false;

	search_entry_key(t, pk, values, isnull);
	for (int k = 0; k < t->npk; k++)
		ScanKeyInit(&keys[k], k + 1, BTEqualStrategyNumber,
					t->pk[k].type == OTS_VT_INTEGER ? F_INT8EQ :
					t->pk[k].type == OTS_VT_BINARY ? F_BYTEAEQ : F_TEXTEQ, values[k]);
	scan = systable_beginscan(r->rel, si->key_index, true, SnapshotSelf, t->npk, keys);
	while ((tup = systable_getnext(scan)) != NULL)
	{
		found = true;
		if (!delete)
			break;
		simple_heap_delete(r->rel, &tup->t_self);
	}
	systable_endscan(scan);
	return found;
}

/* search_insert inserts the entry of the row with key pk and cells */
static void
search_insert(const OtsTable *t, const SearchIndex *si, SearchRels *r, const OtsValue *pk,
			  const struct varlena *cells)
{
	TupleDesc	desc = RelationGetDescr(r->rel);
	Datum	   *values = palloc(sizeof(Datum) * desc->natts);
	bool	   *isnull = palloc0(sizeof(bool) * desc->natts);
	HeapTuple	tup;

	for (int i = 0; i < desc->natts; i++)
		isnull[i] = true;		/* dropped columns */
	search_entry_values(t, si, pk, cells, values, isnull);
	tup = heap_form_tuple(desc, values, isnull);
	heap_insert(r->rel, tup, GetCurrentCommandId(true), 0, NULL);
	ExecStoreHeapTuple(tup, r->slot, false);
	for (int i = 0; i < r->n; i++)
	{
		Datum		ivalues[INDEX_MAX_KEYS];
		bool		iisnull[INDEX_MAX_KEYS];

		FormIndexDatum(r->infos[i], r->slot, NULL, ivalues, iisnull);
		index_insert(r->indexes[i], ivalues, iisnull, &tup->t_self, r->rel,
					 r->indexes[i]->rd_index->indisunique ? UNIQUE_CHECK_YES : UNIQUE_CHECK_NO,
					 false, r->infos[i]);
	}
	ExecClearTuple(r->slot);
}

void
search_write_change(const OtsTable *t, const OtsValue *old_pk, const OtsValue *new_pk,
					const struct varlena *new_cells)
{
	for (int i = 0; i < t->nsearch; i++)
	{
		const SearchIndex *si = search_index_get(t, t->search_data_oids[i], RowExclusiveLock);
		SearchRels	r;

		search_rels_open(si, &r);
		if (old_pk != NULL)
			(void) search_find(t, si, &r, old_pk, true);
		if (new_pk != NULL)
			search_insert(t, si, &r, new_pk, new_cells);
		search_rels_close(&r);
	}
}

/*
 * backfill_leaf writes into si (open in r) the entries of the rows of leaf
 * (a partition of t's storage) that snapshot sees, in blocks [first, last]
 * (all: InvalidBlockNumber as first), but not of a row that has one already
 * when skip_existing; returns how many it wrote.
 */
static int64
backfill_leaf(const OtsTable *t, const SearchIndex *si, SearchRels *r, Relation leaf, Snapshot snapshot,
			  BlockNumber first, BlockNumber last, bool skip_existing)
{
	LeafCache  *place = leaf_place(RelationGetRelid(leaf));
	AttrNumber	key_attnos[OTS_MAX_PK_COLUMNS + 1];
	AttrNumber	cells_attno;
	TableScanDesc scan;
	TupleTableSlot *slot;
	MemoryContext rowcxt;
	MemoryContext old;
	int64		n = 0;

	if (!leaf_keys(place, t) || place->cells_attno == InvalidAttrNumber)
		catalog_report_damaged(t, "a partition of its storage table lacks a key column or its cells");
	/* copied: the leaf's cache entry may go stale during the scan */
	memcpy(key_attnos, place->key_attnos, sizeof(AttrNumber) * storage_nkeys(t));
	cells_attno = place->cells_attno;
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "ots search backfill row", ALLOCSET_DEFAULT_SIZES);
	slot = table_slot_create(leaf, NULL);
	if (first == InvalidBlockNumber)
		scan = table_beginscan(leaf, snapshot, 0, NULL);
	else
	{
		ItemPointerData mintid;
		ItemPointerData maxtid;

		ItemPointerSet(&mintid, first, FirstOffsetNumber);
		ItemPointerSet(&maxtid, last, MaxOffsetNumber);
		scan = table_beginscan_tidrange(leaf, snapshot, &mintid, &maxtid);
	}
	while (first == InvalidBlockNumber ? table_scan_getnextslot(scan, ForwardScanDirection, slot) :
		   table_scan_getnextslot_tidrange(scan, ForwardScanDirection, slot))
	{
		OtsValue	pk[OTS_MAX_PK_COLUMNS];
		const struct varlena *cells;
		bool		isnull;

		CHECK_FOR_INTERRUPTS();
		old = MemoryContextSwitchTo(rowcxt);
		(void) storage_leaf_key(t, key_attnos, slot, pk);
		/* a writer since the index existed put the row's entry: it is the row's latest */
		if (!skip_existing || !search_find(t, si, r, pk, false))
		{
			cells = (struct varlena *) PG_DETOAST_DATUM_PACKED(slot_getattr(slot, cells_attno, &isnull));
			cells = search_row_cells(t, cells, snapshot);
			search_insert(t, si, r, pk, cells);
			n++;
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	MemoryContextDelete(rowcxt);
	return n;
}

/*
 * search_backfill writes the entries of every row of t into search index
 * si, whose storage is new and empty: the rows the latest snapshot sees,
 * t's storage locked SHARE (no writer runs; later ones maintain si, whose
 * catalog row this transaction wrote).  Returns the rows written.
 */
int64
search_backfill(const OtsTable *t, const SearchIndex *si)
{
	List	   *leaves;
	ListCell   *lc;
	SearchRels	r;
	Snapshot	snapshot;
	int64		n = 0;

	LockRelationOid(t->data_oid, ShareLock);
	leaves = find_all_inheritors(t->data_oid, ShareLock, NULL);
	search_rels_open(si, &r);
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	foreach(lc, leaves)
	{
		Relation	leaf;

		if (get_rel_relkind(lfirst_oid(lc)) != RELKIND_RELATION)
			continue;
		leaf = table_open(lfirst_oid(lc), NoLock);
		n += backfill_leaf(t, si, &r, leaf, snapshot, InvalidBlockNumber, InvalidBlockNumber, false);
		table_close(leaf, NoLock);
	}
	UnregisterSnapshot(snapshot);
	search_rels_close(&r);
	return n;
}

int64
search_backfill_blocks(const OtsTable *t, const SearchIndex *si, Relation leaf, BlockNumber first,
					   BlockNumber last)
{
	SearchRels	r;
	Snapshot	snapshot;
	int64		n;
	LOCKTAG		tag;

	/*
	 * one build of an index at a time (two would put one key twice): a lock
	 * only builds take, so that waiting for it never waits for a VACUUM of
	 * the storage while this holds the leaf's writers
	 */
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, si->storage_oid, 0x73726368, 6);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
	search_rels_open(si, &r);
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	n = backfill_leaf(t, si, &r, leaf, snapshot, first, last, true);
	UnregisterSnapshot(snapshot);
	search_rels_close(&r);
	return n;
}

const struct varlena *
search_row_cells(const OtsTable *t, const struct varlena *cells, Snapshot snapshot)
{
	RowNeeds	needs;
	RowKey		key;

	if (!cells_is_head(cells))
		return cells;
	rowneeds_init(&needs);
	needs.whole = true;
	return rowsplit_load_head(t, cells, &needs, snapshot, &key);
}
