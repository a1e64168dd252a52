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

/* search_delete deletes the entry of the row with key pk, if there is one */
static void
search_delete(const OtsTable *t, const SearchIndex *si, SearchRels *r, const OtsValue *pk)
{
	ScanKeyData keys[OTS_MAX_PK_COLUMNS];
	Datum	   *values = palloc(sizeof(Datum) * RelationGetDescr(r->rel)->natts);
	bool	   *isnull = palloc(sizeof(bool) * RelationGetDescr(r->rel)->natts);
	SysScanDesc scan;
	HeapTuple	tup;

	search_entry_key(t, pk, values, isnull);
	for (int k = 0; k < t->npk; k++)
		ScanKeyInit(&keys[k], k + 1, BTEqualStrategyNumber,
					t->pk[k].type == OTS_VT_INTEGER ? F_INT8EQ :
					t->pk[k].type == OTS_VT_BINARY ? F_BYTEAEQ : F_TEXTEQ, values[k]);
	scan = systable_beginscan(r->rel, si->key_index, true, SnapshotSelf, t->npk, keys);
	while ((tup = systable_getnext(scan)) != NULL)
		simple_heap_delete(r->rel, &tup->t_self);
	systable_endscan(scan);
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
			search_delete(t, si, &r, old_pk);
		if (new_pk != NULL)
			search_insert(t, si, &r, new_pk, new_cells);
		search_rels_close(&r);
	}
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
	MemoryContext rowcxt;
	MemoryContext old;
	Snapshot	snapshot;
	int64		n = 0;

	LockRelationOid(t->data_oid, ShareLock);
	leaves = find_all_inheritors(t->data_oid, ShareLock, NULL);
	search_rels_open(si, &r);
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "ots search backfill row", ALLOCSET_DEFAULT_SIZES);
	foreach(lc, leaves)
	{
		Oid			leaf_oid = lfirst_oid(lc);
		Relation	leaf;
		LeafCache  *place;
		AttrNumber	key_attnos[OTS_MAX_PK_COLUMNS + 1];
		AttrNumber	cells_attno;
		TableScanDesc scan;
		TupleTableSlot *slot;

		if (get_rel_relkind(leaf_oid) != RELKIND_RELATION)
			continue;
		leaf = table_open(leaf_oid, NoLock);
		place = leaf_place(leaf_oid);
		if (!leaf_keys(place, t) || place->cells_attno == InvalidAttrNumber)
			catalog_report_damaged(t, "a partition of its storage table lacks a key column or its cells");
		memcpy(key_attnos, place->key_attnos, sizeof(AttrNumber) * storage_nkeys(t));
		cells_attno = place->cells_attno;
		slot = table_slot_create(leaf, NULL);
		scan = table_beginscan(leaf, snapshot, 0, NULL);
		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			OtsValue	pk[OTS_MAX_PK_COLUMNS];
			const struct varlena *cells;
			bool		isnull;

			CHECK_FOR_INTERRUPTS();
			old = MemoryContextSwitchTo(rowcxt);
			(void) storage_leaf_key(t, key_attnos, slot, pk);
			cells = (struct varlena *) PG_DETOAST_DATUM_PACKED(slot_getattr(slot, cells_attno, &isnull));
			cells = search_row_cells(t, cells, snapshot);
			search_insert(t, si, &r, pk, cells);
			MemoryContextSwitchTo(old);
			MemoryContextReset(rowcxt);
			n++;
		}
		table_endscan(scan);
		ExecDropSingleTupleTableSlot(slot);
		table_close(leaf, NoLock);
	}
	MemoryContextDelete(rowcxt);
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
