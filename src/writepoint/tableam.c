/*-------------------------------------------------------------------------
 * src/writepoint/tableam.c
 *	  The ots table access method (CREATE ACCESS METHOD ots TYPE TABLE
 *	  HANDLER ots.tableam_handler), which every leaf of ots storage uses.
 *
 * It is heap: pages, WAL, TOAST, VACUUM, indexes, parallel scans and
 * logical decoding are heapam's, reached through a copy of heap's routine.
 * What it adds are its write callbacks, which every row-level change of a
 * leaf reaches, whoever makes it (ots's row code in C, the statements ots
 * runs, plain SQL on the storage, COPY, logical replication apply,
 * pg_restore): each one checks a new row that ots did not build
 * (row_guard), lets heap store the change, and hands it to the
 * write point (storage_write) with the old and the new cells.  Scans return
 * stored rows as heap does: visibility by TTL and max_versions stays in the
 * cells decoder and the views, because index-only and bitmap scans read
 * the visibility map without asking the access method (docs/design.md).
 *
 * Two things differ from heap because heap's code checks for its own
 * routine by address: heap_getnext refuses any other routine, and heap's
 * index build and validation scans use it, so those two callbacks run with
 * the relation pointing at heap's routine for their duration (again after
 * each row of a build, whose index expressions may make the relcache
 * rebuild the entry; a rebuild elsewhere during the scan, as while waiting
 * for a concurrent inserter, ends it with heap's "only heap AM is
 * supported", a clean error); and TOAST tables are plain heap tables (core
 * writes them with heap_insert anyway).  The swap is this backend's
 * relcache entry only: other sessions' writes during the build (CREATE
 * INDEX CONCURRENTLY lets them in) pass the write point as always.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "catalog/pg_am_d.h"
#include "fmgr.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "writepoint/row_guard.h"
#include "writepoint/storage_write.h"

PG_FUNCTION_INFO_V1(ots_tableam_handler);

static TableAmRoutine ots_routine;
static const TableAmRoutine *heap_routine = NULL;

/* tableam_cells: the cells of a row in a slot of the leaf, or 0 */
static Datum
tableam_cells(const StorageLeaf *leaf, TupleTableSlot *slot)
{
	bool		isnull;
	Datum		d = slot_getattr(slot, leaf->cells_attno, &isnull);

	return isnull ? (Datum) 0 : d;
}

/* tableam_write hands a change of nrows rows of the leaf to the write point */
static void
tableam_write(Relation rel, const StorageLeaf *leaf, StorageWriteCallback callback,
			  int nrows, Datum *old_cells, Datum *new_cells,
			  TupleTableSlot **old_rows, TupleTableSlot **new_rows)
{
	StorageWrite w;

	w.leaf = rel;
	w.chunk = leaf->chunk;
	w.storage_oid = leaf->storage_oid;
	w.table = leaf->table;
	w.callback = callback;
	w.origin = leaf->origin;
	w.nrows = nrows;
	w.old_cells = old_cells;
	w.new_cells = new_cells;
	w.old_rows = old_rows;
	w.new_rows = new_rows;
	w.change = leaf->change;
	storage_write(&w);
}

/*
 * tableam_store_rows hands n new rows (no old ones: inserts) to the write
 * point.
 */
static void
tableam_store_rows(Relation rel, const StorageLeaf *leaf, StorageWriteCallback callback,
				   TupleTableSlot **slots, int n)
{
	Datum		one_old = (Datum) 0;
	Datum		one_new;
	/* a single row, the common case, allocates nothing */
	Datum	   *old_cells = n == 1 ? &one_old : palloc0(sizeof(Datum) * n);
	Datum	   *new_cells = n == 1 ? &one_new : palloc(sizeof(Datum) * n);

	for (int i = 0; i < n; i++)
		new_cells[i] = n == 1 && leaf->new_cells != (Datum) 0 ? leaf->new_cells :
			tableam_cells(leaf, slots[i]);
	tableam_write(rel, leaf, callback, n, old_cells, new_cells, NULL, slots);
	if (n != 1)
	{
		pfree(old_cells);
		pfree(new_cells);
	}
}

/*
 * tableam_store_change hands an update (slot: the new version) or a delete
 * (slot NULL) of the row version at old_tid to the write point, with the
 * old cells ots's row code read, or else those of the version replaced,
 * which stays readable to this transaction.  When the write point needs
 * the old row's key (secondary indexes), it is the new version's for an
 * update ots's row code made (which never changes a key), else the
 * replaced version's.
 */
static void
tableam_store_change(Relation rel, const StorageLeaf *leaf, StorageWriteCallback callback,
					 ItemPointer old_tid, TupleTableSlot *slot)
{
	Datum		old_cells = leaf->old_cells;
	Datum		new_cells = slot == NULL ? (Datum) 0 :
		leaf->new_cells != (Datum) 0 ? leaf->new_cells : tableam_cells(leaf, slot);
	bool		needs_rows = storage_write_needs_rows(leaf->table);
	TupleTableSlot *old = NULL;
	TupleTableSlot *old_row = NULL;

	if (old_cells == (Datum) 0 ||
		(needs_rows && (slot == NULL || leaf->origin != STORAGE_ORIGIN_OTS)))
	{
		old = table_slot_create(rel, NULL);
		if (!heap_routine->tuple_fetch_row_version(rel, old_tid, SnapshotAny, old))
			elog(ERROR, "could not read the replaced version of an ots row");
		if (old_cells == (Datum) 0)
			old_cells = tableam_cells(leaf, old);
		old_row = old;
	}
	else if (needs_rows)
		old_row = slot;
	tableam_write(rel, leaf, callback, 1, &old_cells, &new_cells, &old_row, &slot);
	if (old != NULL)
		ExecDropSingleTupleTableSlot(old);
}

static void
ots_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid, int options,
				 BulkInsertState bistate)
{
	StorageLeaf leaf;
	bool		ours = storage_write_leaf(rel, slot, &leaf);

	if (ours)
		row_guard(rel, &leaf, slot);
	heap_routine->tuple_insert(rel, slot, cid, options, bistate);
	if (ours)
		tableam_store_rows(rel, &leaf, STORAGE_CB_INSERT, &slot, 1);
}

/* the row is checked here, and reaches the write point only once the insert is confirmed */
static void
ots_tuple_insert_speculative(Relation rel, TupleTableSlot *slot, CommandId cid, int options,
							 BulkInsertState bistate, uint32 token)
{
	StorageLeaf leaf;

	if (storage_write_leaf(rel, slot, &leaf))
		row_guard(rel, &leaf, slot);
	heap_routine->tuple_insert_speculative(rel, slot, cid, options, bistate, token);
}

static void
ots_tuple_complete_speculative(Relation rel, TupleTableSlot *slot, uint32 token, bool succeeded)
{
	StorageLeaf leaf;
	bool		ours = storage_write_leaf(rel, slot, &leaf);

	heap_routine->tuple_complete_speculative(rel, slot, token, succeeded);
	if (ours && succeeded)
		tableam_store_rows(rel, &leaf, STORAGE_CB_SPECULATIVE, &slot, 1);
}

static void
ots_multi_insert(Relation rel, TupleTableSlot **slots, int nslots, CommandId cid, int options,
				 BulkInsertState bistate)
{
	StorageLeaf leaf;
	bool		ours = storage_write_leaf(rel, NULL, &leaf);

	for (int i = 0; ours && i < nslots; i++)
		row_guard(rel, &leaf, slots[i]);
	heap_routine->multi_insert(rel, slots, nslots, cid, options, bistate);
	if (ours)
		tableam_store_rows(rel, &leaf, STORAGE_CB_MULTI_INSERT, slots, nslots);
}

static TM_Result
ots_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot, CommandId cid,
				 Snapshot snapshot, Snapshot crosscheck, bool wait, TM_FailureData *tmfd,
				 LockTupleMode *lockmode, bool *update_indexes)
{
	StorageLeaf leaf;
	bool		ours = storage_write_leaf(rel, slot, &leaf);
	ItemPointerData old_tid = *otid;
	TM_Result	result;

	if (ours)
		row_guard(rel, &leaf, slot);
	result = heap_routine->tuple_update(rel, otid, slot, cid, snapshot, crosscheck, wait,
										tmfd, lockmode, update_indexes);
	if (ours && result == TM_Ok)
		tableam_store_change(rel, &leaf, STORAGE_CB_UPDATE, &old_tid, slot);
	return result;
}

static TM_Result
ots_tuple_delete(Relation rel, ItemPointer tid, CommandId cid, Snapshot snapshot,
				 Snapshot crosscheck, bool wait, TM_FailureData *tmfd, bool changingPart)
{
	StorageLeaf leaf;
	bool		ours = storage_write_leaf(rel, NULL, &leaf);
	ItemPointerData old_tid = *tid;
	TM_Result	result;

	result = heap_routine->tuple_delete(rel, tid, cid, snapshot, crosscheck, wait, tmfd,
										changingPart);
	if (ours && result == TM_Ok)
		tableam_store_change(rel, &leaf, STORAGE_CB_DELETE, &old_tid, NULL);
	return result;
}

/*
 * tableam_store_truncate hands the emptying of a whole leaf to the write
 * point; had_blocks: the leaf had a block before (a leaf never written,
 * as pg_restore -j truncates the tables it made before loading them,
 * changes no row)
 */
static void
tableam_store_truncate(Relation rel, bool had_blocks)
{
	StorageLeaf leaf;

	if (had_blocks && storage_write_leaf(rel, NULL, &leaf))
		tableam_write(rel, &leaf, STORAGE_CB_TRUNCATE, 0, NULL, NULL, NULL, NULL);
}

/*
 * A new relfilenode for the relation's own one (not for a relation being
 * created, whose node is rel->rd_node itself) is TRUNCATE.
 */
static void
ots_relation_set_new_filenode(Relation rel, const RelFileNode *newrnode, char persistence,
							  TransactionId *freezeXid, MultiXactId *minmulti)
{
	bool		truncate = newrnode != &rel->rd_node;
	bool		had_blocks = truncate && RelationGetNumberOfBlocks(rel) > 0;

	heap_routine->relation_set_new_filenode(rel, newrnode, persistence, freezeXid, minmulti);
	if (truncate)
		tableam_store_truncate(rel, had_blocks);
}

/* TRUNCATE in the transaction that created the relation */
static void
ots_relation_nontransactional_truncate(Relation rel)
{
	bool		had_blocks = RelationGetNumberOfBlocks(rel) > 0;

	heap_routine->relation_nontransactional_truncate(rel);
	tableam_store_truncate(rel, had_blocks);
}

/*
 * While heap's index build scan runs, the relation points at heap's
 * routine; index expressions run user code per row, which may make the
 * relcache rebuild the entry (and its routine pointer) in place, so each
 * row's callback points it at heap's again before the scan reads on.
 */
typedef struct TableamBuildState
{
	Relation	table_rel;
	IndexBuildCallback callback;
	void	   *callback_state;
} TableamBuildState;

static void
tableam_build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
					   bool tupleIsAlive, void *state)
{
	TableamBuildState *bs = state;

	bs->callback(index, tid, values, isnull, tupleIsAlive, bs->callback_state);
	bs->table_rel->rd_tableam = heap_routine;
}

static double
ots_index_build_range_scan(Relation table_rel, Relation index_rel, IndexInfo *index_info,
						   bool allow_sync, bool anyvisible, bool progress,
						   BlockNumber start_blockno, BlockNumber numblocks,
						   IndexBuildCallback callback, void *callback_state,
						   TableScanDesc scan)
{
	const TableAmRoutine *ours = table_rel->rd_tableam;
	TableamBuildState bs = {table_rel, callback, callback_state};
	double		tuples;

	table_rel->rd_tableam = heap_routine;
	PG_TRY();
	{
		tuples = heap_routine->index_build_range_scan(table_rel, index_rel, index_info,
													  allow_sync, anyvisible, progress,
													  start_blockno, numblocks,
													  tableam_build_callback, &bs, scan);
	}
	PG_FINALLY();
	{
		table_rel->rd_tableam = ours;
	}
	PG_END_TRY();
	return tuples;
}

static void
ots_index_validate_scan(Relation table_rel, Relation index_rel, IndexInfo *index_info,
						Snapshot snapshot, ValidateIndexState *state)
{
	const TableAmRoutine *ours = table_rel->rd_tableam;

	table_rel->rd_tableam = heap_routine;
	PG_TRY();
	{
		heap_routine->index_validate_scan(table_rel, index_rel, index_info, snapshot, state);
	}
	PG_FINALLY();
	{
		table_rel->rd_tableam = ours;
	}
	PG_END_TRY();
}

static Oid
ots_relation_toast_am(Relation rel)
{
	return HEAP_TABLE_AM_OID;
}

/*
 * ots_tableam_handler is ots.tableam_handler(internal), the handler of the
 * ots table access method: heap's routine with ots's write callbacks.
 */
Datum
ots_tableam_handler(PG_FUNCTION_ARGS)
{
	if (heap_routine == NULL)
	{
		const TableAmRoutine *heap = GetHeapamTableAmRoutine();

		ots_routine = *heap;
		ots_routine.tuple_insert = ots_tuple_insert;
		ots_routine.tuple_insert_speculative = ots_tuple_insert_speculative;
		ots_routine.tuple_complete_speculative = ots_tuple_complete_speculative;
		ots_routine.multi_insert = ots_multi_insert;
		ots_routine.tuple_update = ots_tuple_update;
		ots_routine.tuple_delete = ots_tuple_delete;
		ots_routine.relation_set_new_filenode = ots_relation_set_new_filenode;
		ots_routine.relation_nontransactional_truncate = ots_relation_nontransactional_truncate;
		ots_routine.index_build_range_scan = ots_index_build_range_scan;
		ots_routine.index_validate_scan = ots_index_validate_scan;
		ots_routine.relation_toast_am = ots_relation_toast_am;
		heap_routine = heap;
	}
	PG_RETURN_POINTER(&ots_routine);
}
