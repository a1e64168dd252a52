/*-------------------------------------------------------------------------
 * src/writepoint/storage_write.c
 *	  The write point of ots storage: storage_write, which every change of a
 *	  stored row reaches (through the ots table access method, tableam.c),
 *	  and hands to what hangs off it.
 *
 * Every row-level change of a leaf of ots storage, whoever makes it, goes
 * through the table AM's write callbacks: ots's row functions and batches
 * (direct inserts, updates and deletes, COPY-style multi-inserts), purge's
 * statements, plain INSERT / UPDATE / DELETE /
 * MERGE / COPY on the storage, logical replication apply and pg_restore.
 * The callbacks call storage_write once the change is made (for ON
 * CONFLICT inserts, once the insert is known to have succeeded), with the
 * old cells and the new, in the writing transaction: the one place where
 * secondary indexes (index_write.c) and Stream (stream_write.c) see every
 * change.  It also counts what it sees (ots.count_writes,
 * ots.write_point_counts).
 *
 * ots's row code announces each of its own row writes just before it
 * calls the table AM (announce_row, store/announce.h): the cells are its
 * own work, already checked, and it hands over the old cells it read; the
 * write point takes the announcement as the call reaches it
 * (storage_write_leaf).  Any other new row, those of the statements ots
 * runs on storage (the bulk upsert, purge) included, is checked by the
 * guard before it is stored (row_guard.c).  Relations on the access method
 * that are not leaves of ots storage (the transient copy an ALTER TABLE
 * rewrite fills) are neither checked nor counted: a rewrite changes no
 * row.  Where a leaf's columns are is the leaf cache's (store/leaf.h).
 *
 * A table's chunk relation ("t$chunk", meta/storage.h) is on the access
 * method too, and is no partition: the write point knows it by its name
 * beside a storage table of its owner (chunk_cache, once per relation and
 * DDL on it or its storage), and the guard checks each chunk ots's row code
 * did not write.  A chunk change reaches neither the secondary indexes nor
 * the stream: ots's row code hands the write point a split row's change
 * with its head, as the row's old and new cells (announce_row_new_cells,
 * docs/design.md, "Wide rows: heads and chunks"); chunks that plain SQL
 * writes reach no index and no record.  A head that anything but ots's row
 * code deletes or replaces takes its chunks with it
 * (storage_write_drop_chunks).
 *
 * Index maintenance re-enters the write point: an index entry is a row of
 * another ots table, written through rowstore and the table AM like any
 * row.  That is safe because the write point takes the outer change's
 * announcement before it hands the change on (storage_write asserts it),
 * so each nested write announces, and is taken for, its own.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "replication/logicalworker.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "cache.h"
#include "meta/defined.h"
#include "errors.h"
#include "guc.h"
#include "index/index_write.h"
#include "search/search_write.h"
#include "writepoint/restore.h"
#include "writepoint/apply_split.h"
#include "writepoint/chunk_first.h"
#include "writepoint/row_guard.h"
#include "stats.h"
#include "meta/storage.h"
#include "store/announce.h"
#include "store/leaf.h"
#include "writepoint/storage_write.h"
#include "store/rowsplit.h"
#include "stream/stream.h"

static void storage_write_key_attnos(StorageLeaf *leaf, bool found, const AttrNumber *keys);
static void storage_write_row_key(const StorageWrite *w, TupleTableSlot *row, PkInput *pk);
static void storage_write_chunk_plain(const StorageWrite *w);
static void storage_write_chunk_truncate(const StorageWrite *w);
static const LeafCache *storage_write_keys(const StorageWrite *w);
static void storage_write_indexes(const StorageWrite *w);
static void storage_write_search(const StorageWrite *w);
static StorageWrite *storage_write_expand_heads(const StorageWrite *w, bool copy);
static void storage_write_apply_chunks(const StorageWrite *w);
static const StorageWrite *storage_write_apply_defer(const StorageWrite *w);
static void storage_write_drop_chunks(const StorageWrite *w);

/*
 * What the write point knows of a relation on the access method that is no
 * partition: whether it is a table's chunk relation, and where its chunk
 * columns are.  Found once per relation and DDL on it or on its storage
 * (an invalidation of either marks the entry stale); a relation named like
 * a chunk relation that is none (no storage of its owner beside it yet: a
 * restore makes the chunk relation before the storage) is looked at again
 * at each write.
 */
typedef struct ChunkPlace
{
	Oid			relid;			/* hash key */
	bool		placed;
	bool		named_as_chunk; /* "<table>$chunk": none yet, asked again */
	Oid			storage_oid;	/* the storage whose chunk relation it is, or InvalidOid */
	AttrNumber	column_attno;	/* its "$column" text and "$ts" int8, 0 where missing */
	AttrNumber	ts_attno;
} ChunkPlace;

static void
chunk_place_stale(void *entry)
{
	((ChunkPlace *) entry)->placed = false;
}

/* chunk_place_concerns: is relid the relation or the storage it is the chunk relation of? */
static bool
chunk_place_concerns(const void *entry, Oid relid)
{
	const ChunkPlace *cp = entry;

	return cp->relid == relid || (OidIsValid(cp->storage_oid) && cp->storage_oid == relid);
}

static OtsCache chunk_cache = {
	.name = "ots chunk cache",
	.keysize = sizeof(Oid),
	.entrysize = sizeof(ChunkPlace),
	.stale = chunk_place_stale,
	.concerns = chunk_place_concerns,
};

/* storage_write_chunk_place: relid's entry of chunk_cache, filled */
static ChunkPlace *
storage_write_chunk_place(Oid relid)
{
	bool		found;
	ChunkPlace *cp = cache_lookup(&chunk_cache, &relid, &found);

	if (!cp->placed)
	{
		uint64		seen = chunk_cache.invalidations;

		cp->storage_oid = storage_chunk_of(relid);
		cp->named_as_chunk = storage_table_of(get_rel_name(relid), STORAGE_CHUNK_SUFFIX) != NULL;
		cp->column_attno = leaf_attno(relid, STORAGE_CHUNK_COLUMN_COLUMN, TEXTOID);
		cp->ts_attno = leaf_attno(relid, STORAGE_CHUNK_TS_COLUMN, INT8OID);
		/* a relation named so without its storage yet is asked again */
		cp->placed = seen == chunk_cache.invalidations &&
			(OidIsValid(cp->storage_oid) || !cp->named_as_chunk);
	}
	return cp;
}

/*
 * storage_write_chunk fills leaf for rel, a relation on the access method
 * that is no partition, when it is a table's chunk relation with ots's
 * columns: the table as for a leaf (NULL while the storage is not
 * registered or the chunk relation has no primary key yet, as during
 * pg_restore); false for any other relation.
 */
static bool
storage_write_chunk(Relation rel, StorageLeaf *leaf)
{
	Oid			relid = RelationGetRelid(rel);
	ChunkPlace *cp = storage_write_chunk_place(relid);
	LeafCache  *lc;

	if (!OidIsValid(cp->storage_oid) || cp->column_attno == 0 || cp->ts_attno == 0)
		return false;
	lc = leaf_place(relid);
	if (lc->cells_attno == 0 || lc->oldest_attno == 0)
		return false;
	leaf->chunk = true;
	leaf->storage_oid = cp->storage_oid;
	leaf->cells_attno = lc->cells_attno;
	leaf->oldest_attno = lc->oldest_attno;
	leaf->column_attno = cp->column_attno;
	leaf->ts_attno = cp->ts_attno;
	if (OidIsValid(RelationGetPrimaryKeyIndex(rel)))
		leaf->table = catalog_lookup_by_data_oid(cp->storage_oid);
	/* the table as loaded names its chunk relation (catalog_check_chunk), or has none yet */
	if (leaf->table != NULL && leaf->table->chunk_oid != relid)
		leaf->table = NULL;
	if (leaf->table != NULL)
		storage_write_key_attnos(leaf, leaf_keys(lc, leaf->table), lc->key_attnos);
	return true;
}

/*
 * storage_write_leaf tells the table AM whether rel is a leaf of ots
 * storage or a table's chunk relation, and fills leaf with what the write
 * point needs of it: the table (NULL while the storage is not registered,
 * as during pg_restore before ots.tables has its rows), where its columns
 * are, and whether ots's row code announced this change (slot: the new
 * row, NULL for a delete).
 */
bool
storage_write_leaf(Relation rel, TupleTableSlot *slot, StorageLeaf *leaf)
{
	Oid			relid = RelationGetRelid(rel);
	const AnnouncedRow *announced = announce_take_row(relid, slot);
	LeafCache  *lc;

	memset(leaf, 0, sizeof(*leaf));
	if (announced != NULL)
	{
		/* what ots's row code knows: no look-up, and nothing to check */
		leaf->table = announced->table;
		leaf->storage_oid = announced->table->data_oid;
		/*
		 * unless locking the leaf let in an invalidation since the row code
		 * looked the table up (an index created meanwhile): the table as of
		 * the lock, which is what every write of the leaf keeps until it
		 * commits (a build or delete_index waits for it)
		 */
		if (!leaf->table->valid)
			leaf->table = catalog_lookup_by_data_oid(leaf->storage_oid);
		leaf->chunk = leaf->table != NULL && relid == leaf->table->chunk_oid;
		leaf->origin = STORAGE_ORIGIN_OTS;
		leaf->old_cells = PointerGetDatum(announced->old_cells);
		leaf->new_cells = PointerGetDatum(announced->new_cells);
		leaf->cells_attno = announced->cells_attno;
		leaf->change = announced->change;
		return true;
	}
	leaf->origin = STORAGE_ORIGIN_SQL;
	/* not a partition: a chunk relation, or the transient copy of a rewrite, a table before ATTACH */
	if (!rel->rd_rel->relispartition)
		return storage_write_chunk(rel, leaf);
	lc = leaf_place(relid);
	if (!OidIsValid(lc->storage_oid) || lc->cells_attno == 0 || lc->oldest_attno == 0)
		return false;
	leaf->storage_oid = lc->storage_oid;
	leaf->cells_attno = lc->cells_attno;
	leaf->oldest_attno = lc->oldest_attno;
	/*
	 * pg_restore loads rows before it adds the primary keys, which the
	 * table's metadata checks: until then its rows are checked as those of
	 * storage not registered yet
	 */
	if (OidIsValid(RelationGetPrimaryKeyIndex(rel)))
		leaf->table = catalog_lookup_by_data_oid(lc->storage_oid);
	if (leaf->table != NULL)
		storage_write_key_attnos(leaf, leaf_keys(lc, leaf->table), lc->key_attnos);
	return true;
}

/*
 * storage_write_key_attnos gives leaf the stored key columns of
 * leaf->table, found (by name and type: store/leaf.c) at keys; a relation
 * without all of them is checked as storage not registered (PostgreSQL
 * refuses it as a partition anyway).
 */
static void
storage_write_key_attnos(StorageLeaf *leaf, bool found, const AttrNumber *keys)
{
	if (!found)
	{
		leaf->table = NULL;
		leaf->nkeys = 0;
		return;
	}
	leaf->nkeys = storage_nkeys(leaf->table);
	memcpy(leaf->key_attnos, keys, sizeof(AttrNumber) * leaf->nkeys);
}

/*
 * storage_write_rows_moving reads every row of relation relid, which is
 * about to join t's storage or to leave it below the write point, holding
 * the relation as the statement will (AccessExclusiveLock, which ATTACH,
 * DETACH and DROP take on it), so no row comes or goes in between.  Rows
 * that join are checked as row_guard checks a new row.  With
 * callback STORAGE_CB_ATTACH or STORAGE_CB_DETACH, each row then reaches
 * the write point as a row joining or leaving the table, which keeps t's
 * secondary indexes (its entries written or removed) and refuses the rows
 * of a table with a stream; with STORAGE_CB_COUNT (SET ACCESS METHOD ots of
 * a leaf, whose rows stay where they are) they are only checked.  A
 * relation without ots's columns is left to PostgreSQL, which refuses it as
 * a partition.
 */
static void
storage_write_rows_moving(Oid relid, const OtsTable *t, StorageWriteCallback callback)
{
	Relation	rel = table_open(relid, AccessExclusiveLock);
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext, "ots moving rows",
												 ALLOCSET_DEFAULT_SIZES);
	MemoryContext oldcxt;
	StorageLeaf leaf;
	AttrNumber	keys[OTS_MAX_KEY_COLUMNS + 1];
	Snapshot	snapshot;
	TableScanDesc scan;
	TupleTableSlot *slot;

	memset(&leaf, 0, sizeof(leaf));
	leaf.origin = STORAGE_ORIGIN_SQL;
	leaf.storage_oid = t->data_oid;
	leaf.table = t;
	leaf.cells_attno = leaf_attno(relid, STORAGE_CELLS_COLUMN, storage_cells_type());
	leaf.oldest_attno = leaf_attno(relid, STORAGE_OLDEST_TS_COLUMN, INT8OID);
	storage_write_key_attnos(&leaf, leaf_find_keys(relid, t, keys), keys);
	if (leaf.cells_attno == 0 || leaf.oldest_attno == 0 || leaf.table == NULL)
	{
		table_close(rel, NoLock);
		return;
	}
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	slot = table_slot_create(rel, NULL);
	scan = table_beginscan(rel, snapshot, 0, NULL);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		StorageWrite w;
		Datum		none = (Datum) 0;
		Datum		cells;
		TupleTableSlot *row = slot;
		TupleTableSlot *no_row = NULL;
		bool		isnull;

		CHECK_FOR_INTERRUPTS();
		oldcxt = MemoryContextSwitchTo(rowcxt);
		if (callback != STORAGE_CB_DETACH)
			row_guard(rel, &leaf, slot);
		if (callback == STORAGE_CB_ATTACH || callback == STORAGE_CB_DETACH)
		{
			cells = slot_getattr(slot, leaf.cells_attno, &isnull);
			w.leaf = rel;
			w.chunk = false;
			w.storage_oid = t->data_oid;
			w.table = t;
			w.callback = callback;
			w.origin = STORAGE_ORIGIN_SQL;
			w.nrows = 1;
			w.old_cells = callback == STORAGE_CB_DETACH ? &cells : &none;
			w.new_cells = callback == STORAGE_CB_ATTACH ? &cells : &none;
			w.old_rows = callback == STORAGE_CB_DETACH ? &row : &no_row;
			w.new_rows = callback == STORAGE_CB_ATTACH ? &row : &no_row;
			w.change = NULL;
			storage_write(&w);
		}
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(rowcxt);
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	UnregisterSnapshot(snapshot);
	MemoryContextDelete(rowcxt);
	table_close(rel, NoLock);
}

void
storage_write_check_rows(Oid relid, const OtsTable *t)
{
	storage_write_rows_moving(relid, t, STORAGE_CB_COUNT);
}

void
storage_write_rows_join(Oid relid, const OtsTable *t)
{
	storage_write_rows_moving(relid, t, STORAGE_CB_ATTACH);
}

void
storage_write_rows_leave(Oid relid, const OtsTable *t)
{
	storage_write_rows_moving(relid, t, STORAGE_CB_DETACH);
}

/*
 * storage_write_change_kind says what kind of change w (of a registered
 * table) is: a new change of the table's rows, a copy of one made and
 * recorded elsewhere (and which copy), or purge's.  This is the one place that tells
 * them apart (docs/design.md, "New changes and copies"); storage_write acts
 * on its answer for what hangs off the write point:
 *	 - STORAGE_CHANGE_APPLIED: written by a logical replication worker
 *	   (apply, or a table's initial copy; IsLogicalWorker(), which no
 *	   setting of a session can make true).  The publisher's stream
 *	   recorded the change: no stream record.  The subscriber's indexes
 *	   are kept from the table rows it applies, as for any change, so the
 *	   worker may not write an index's own storage
 *	   (storage_write_index_storage): the publisher's entries would be
 *	   written twice.
 *	 - STORAGE_CHANGE_REPLICA: session_replication_role = replica (a
 *	   superuser's choice, for which PostgreSQL fires no ordinary trigger
 *	   either): no stream record; indexes kept.
 *	 - STORAGE_CHANGE_RESTORED: a row a dump's script loads: an insert by
 *	   plain SQL (COPY, INSERT) into storage by a statement of the script
 *	   itself, run by the table's owner (restore_loading: the role
 *	   writing it and the session's login role both may act as the owner;
 *	   never inside a SECURITY DEFINER function or a security-restricted
 *	   operation).  The dump brings the row's index entries and stream
 *	   records itself, in any order: the row writes neither.  Only a role
 *	   that could write the index storage and the stream's log directly
 *	   makes a row skip them.  (A restore attaches its leaves empty, before
 *	   the storage has its primary key, when ots takes no table to be there
 *	   yet: no row joins a table by ATTACH in a restore.)
 *	 - STORAGE_CHANGE_PURGED: a change made while purge's batch statement
 *	   runs (announce_purge): removing cells and rows no read sees any more
 *	   is no change of the table's rows.  Indexes kept, no stream record.
 *	 - STORAGE_CHANGE_NEW: every other change: ots's own writes, a role
 *	   without the owner's rights, any session doing ordinary work, rows
 *	   that join or leave a table by ATTACH, DETACH or DROP of a leaf.
 *	   Indexes kept, a stream record.
 */
static StorageChangeKind
storage_write_change_kind(const StorageWrite *w)
{
	if (IsLogicalWorker())
		return STORAGE_CHANGE_APPLIED;
	if (SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA)
		return STORAGE_CHANGE_REPLICA;
	if (w->origin == STORAGE_ORIGIN_SQL &&
		(w->callback == STORAGE_CB_INSERT || w->callback == STORAGE_CB_MULTI_INSERT ||
		 w->callback == STORAGE_CB_SPECULATIVE) &&
		restore_loading(w->storage_oid))
		return STORAGE_CHANGE_RESTORED;
	return announce_purging() ? STORAGE_CHANGE_PURGED : STORAGE_CHANGE_NEW;
}

/*
 * storage_write_index_storage refuses the changes of an index's own storage
 * that would leave it other than its table's rows make it: a TRUNCATE (its
 * entries gone while its table's rows stay), and rows a logical replication
 * worker writes there (STORAGE_CHANGE_APPLIED).  ots's own maintenance,
 * and rows restored into it, pass.
 */
static void
storage_write_index_storage(const StorageWrite *w, StorageChangeKind kind)
{
	const OtsTable *idx = w->table;

	if (w->callback == STORAGE_CB_TRUNCATE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot truncate the storage of ots index %s",
						quote_qualified_identifier(idx->schema_name, idx->table_name)),
				 errdetail("An index holds an entry for each row of its table; ots writes them as the rows change."),
				 errhint("Delete the index and create it again (ots.delete_index, ots.create_index).")));
	if (w->origin != STORAGE_ORIGIN_OTS && kind == STORAGE_CHANGE_APPLIED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("logical replication cannot write the storage of ots index %s",
						quote_qualified_identifier(idx->schema_name, idx->table_name)),
				 errdetail("The subscriber's ots writes an index's entries from the table rows it applies; the publisher's entries would be written twice."),
				 errhint("Publish the storage of the tables (\"t$data\"), not that of their indexes: on the publisher, ALTER PUBLICATION ... DROP TABLE %s.",
						 quote_qualified_identifier(idx->schema_name,
													psprintf("%s%s", idx->table_name, STORAGE_SUFFIX)))));
}

/*
 * storage_write_chunk_plain refuses plain SQL's change of a chunk of a
 * table whose indexes or stream follow its rows' cells: they would miss
 * it.  New chunks of a row not stored yet, whose head the transaction
 * brings later (a copy, chunk relation first), are let in (chunk_first.c):
 * the head's change reads them, for the indexes and the stream.
 */
static void
storage_write_chunk_plain(const StorageWrite *w)
{
	const OtsTable *t = w->table;
	bool		inserts = w->callback == STORAGE_CB_INSERT || w->callback == STORAGE_CB_SPECULATIVE ||
		w->callback == STORAGE_CB_MULTI_INSERT;
	bool		heads_later = inserts && w->new_rows != NULL;

	if (!(t->ndefined > 0 || t->nindexes > 0 || t->nsearch > 0 || t->stream_enabled))
		return;
	for (int i = 0; heads_later && i < w->nrows; i++)
	{
		PkInput		pk;

		storage_write_row_key(w, w->new_rows[i], &pk);
		heads_later = chunk_first_allowed(t, &pk);
	}
	if (!heads_later)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot change a chunk of ots table %s with plain SQL",
						quote_qualified_identifier(t->schema_name, t->table_name)),
				 errdetail("The table's secondary indexes or stream follow its rows' cells, and a chunk changed alone reaches neither."),
				 errhint("Write the row with the ots row functions or through the table's view.")));
}

/*
 * storage_write_chunks_waiting refuses a new row of ots's row code whose
 * chunks plain SQL brought earlier in the transaction: the row would take
 * them, and its indexes and stream would not see their cells
 */
static void
storage_write_chunks_waiting(const StorageWrite *w)
{
	for (int i = 0; i < w->nrows && chunk_first_any(); i++)
	{
		PkInput		pk;

		if (w->new_rows == NULL || w->new_rows[i] == NULL ||
			(w->old_cells != NULL && w->old_cells[i] != (Datum) 0))
			continue;
		storage_write_row_key(w, w->new_rows[i], &pk);
		if (chunk_first_waiting(w->table, &pk))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot write a row of ots table %s whose chunks plain SQL brought in this transaction",
							quote_qualified_identifier(w->table->schema_name, w->table->table_name)),
					 errdetail("Chunks that come before their row's head are a copy of a split row, which its head, inserted by plain SQL, completes."),
					 errhint("Insert the row's head into the storage with plain SQL, or write the row with the ots row functions without copying its chunks.")));
	}
}

/*
 * storage_write_chunk_truncate: a TRUNCATE of a table's chunk relation
 * would take the cells of its split rows and leave their heads, so it is
 * refused unless every leaf of the table was emptied before it in this
 * transaction (TRUNCATE of the storage, then the chunk relation, in one
 * statement).
 */
static void
storage_write_chunk_truncate(const StorageWrite *w)
{
	const OtsTable *t = w->table;
	ListCell   *lc;

	foreach(lc, find_inheritance_children(w->storage_oid, AccessShareLock))
	{
		Relation	leaf = relation_open(lfirst_oid(lc), AccessShareLock);
		bool		emptied = leaf->rd_createSubid != InvalidSubTransactionId ||
			leaf->rd_newRelfilenodeSubid != InvalidSubTransactionId;

		relation_close(leaf, AccessShareLock);
		if (!emptied)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot truncate the chunk relation of ots table %s alone",
							quote_qualified_identifier(t->schema_name, t->table_name)),
					 errdetail("It holds the cells of the table's split rows, whose heads the table's leaves keep."),
					 errhint("Truncate the storage table first, in the same statement: TRUNCATE %s, %s.",
							 storage_name(t), storage_chunk_name(t))));
	}
}

/*
 * storage_write is the one function every change of a stored row reaches,
 * after the change is made and before the writing statement goes on: the
 * rows' old and new cells, which leaf, which table AM callback, and whether
 * ots's row code or something else made it.  What hangs off it (secondary
 * indexes, Stream) must work in the writing transaction and see the change
 * exactly once, and a copy of a change made elsewhere only as
 * storage_write_change_kind says.
 */
void
storage_write(const StorageWrite *w)
{
	/* a TRUNCATE counts as one change of each leaf */
	int64		changes = w->callback == STORAGE_CB_TRUNCATE ? 1 : w->nrows;
	StorageChangeKind kind = STORAGE_CHANGE_NEW;

	if (w->table != NULL)
	{
		kind = storage_write_change_kind(w);
		if (w->table->is_index)
			storage_write_index_storage(w, kind);

		/*
		 * a write holds the storage table as INSERT through it would, to
		 * the end: enabling or disabling the table's stream (SHARE on the
		 * storage alone) waits for writers in flight, and they for it, so
		 * a transaction's changes are all recorded or none
		 */
		LockRelationOid(w->storage_oid, RowExclusiveLock);
	}

	if (ots_count_writes && changes > 0)
	{
		int64		with_old = 0;
		int64		with_new = 0;

		for (int i = 0; i < w->nrows; i++)
		{
			with_old += w->old_cells[i] != (Datum) 0;
			with_new += w->new_cells[i] != (Datum) 0;
		}
		/* a chunk relation's changes are counted as its own (ots.write_point_counts of it) */
		stats_count_stored(w->chunk ? RelationGetRelid(w->leaf) : w->storage_oid, w->origin,
						   w->callback, changes, with_old, with_new);
	}
	if (w->table == NULL)
		return;
	if (w->chunk)
	{
		/*
		 * A chunk change reaches neither the indexes nor the stream: ots's
		 * row code tells them the row's change at its head.  Plain SQL on
		 * a chunk of a table they follow is refused; a TRUNCATE keeps the
		 * table's split rows whole or is refused.
		 */
		if (w->callback == STORAGE_CB_TRUNCATE)
			storage_write_chunk_truncate(w);
		else if (w->origin == STORAGE_ORIGIN_SQL &&
				 (kind == STORAGE_CHANGE_NEW || kind == STORAGE_CHANGE_REPLICA))
			storage_write_chunk_plain(w);
		else if (kind == STORAGE_CHANGE_APPLIED && w->table->nindexes > 0 && w->new_rows != NULL)
			storage_write_apply_chunks(w);
		return;
	}
	if (w->origin == STORAGE_ORIGIN_OTS && kind == STORAGE_CHANGE_NEW)
		storage_write_chunks_waiting(w);
	if (kind != STORAGE_CHANGE_RESTORED && (w->table->ndefined > 0 || w->table->nindexes > 0))
	{
		const StorageWrite *expanded = NULL;

		/*
		 * Index maintenance writes rows of other ots tables through the
		 * table AM, which brings them back here.  What ots's row code
		 * announced of this change was taken when the change reached the
		 * table AM (storage_write_leaf), so the nested writes' own
		 * announcements cannot be mistaken for it, nor it for theirs.
		 */
		Assert(!announce_pending());
		if (w->origin != STORAGE_ORIGIN_OTS && kind == STORAGE_CHANGE_APPLIED &&
			w->table->nindexes > 0)
			expanded = storage_write_apply_defer(w);
		else if (w->origin != STORAGE_ORIGIN_OTS)
			expanded = storage_write_expand_heads(w, false);
		storage_write_indexes(expanded != NULL ? expanded : w);
	}
	if (kind != STORAGE_CHANGE_RESTORED && w->table->nsearch > 0)
		storage_write_search(w);
	if (kind == STORAGE_CHANGE_NEW && w->table->stream_enabled)
		stream_write_change(w, storage_write_keys(w)->key_attnos);
	/* a replication apply's publisher deleted the chunks itself: they come as changes too */
	if (w->origin != STORAGE_ORIGIN_OTS && kind != STORAGE_CHANGE_APPLIED)
		storage_write_drop_chunks(w);
}

/*
 * storage_write_search brings the table's search indexes to the rows' new
 * state.  A split row's head that something other than ots's row code
 * wrote holds no cell: its entry is read from its chunks (ots's row code
 * announced the whole row's cells, rowneeds_init_write).  A TRUNCATE of a
 * table with search indexes is refused, as with secondary indexes.
 */
static void
storage_write_search(const StorageWrite *w)
{
	const OtsTable *t = w->table;
	const LeafCache *lc;
	MemoryContext rowcxt;
	MemoryContext oldcxt;

	if (w->callback == STORAGE_CB_TRUNCATE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot truncate a partition of ots table %s, which has search indexes",
						quote_qualified_identifier(t->schema_name, t->table_name)),
				 errhint("Delete its rows (DELETE, ots.delete_row), or delete its search indexes first.")));
	lc = storage_write_keys(w);
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "ots search index maintenance", ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(rowcxt);
	for (int i = 0; i < w->nrows; i++)
	{
		struct varlena *old_cells;
		struct varlena *new_cells;
		OtsValue	old_pk[OTS_MAX_PK_COLUMNS];
		OtsValue	new_pk[OTS_MAX_PK_COLUMNS];
		TupleTableSlot *old_row = w->old_rows != NULL ? w->old_rows[i] : NULL;
		TupleTableSlot *new_row = w->new_rows != NULL ? w->new_rows[i] : NULL;

		storage_write_row_cells(w, i, &old_cells, &new_cells);
		if (old_cells == NULL && new_cells == NULL)
			continue;
		if ((old_cells != NULL && old_row == NULL) || (new_cells != NULL && new_row == NULL))
			elog(ERROR, "the write point got no key for a change of ots table %s",
				 quote_qualified_identifier(t->schema_name, t->table_name));
		if (old_cells != NULL)
			storage_leaf_key_whole(t, lc->key_attnos, old_row, old_pk);
		if (new_cells != NULL)
			storage_leaf_key_whole(t, lc->key_attnos, new_row, new_pk);
		search_write_change(t, old_cells != NULL ? old_pk : NULL, new_cells != NULL ? new_pk : NULL,
							new_cells != NULL ? search_row_cells(t, new_cells, GetLatestSnapshot()) : NULL);
		MemoryContextReset(rowcxt);
	}
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(rowcxt);
}

/*
 * storage_write_expand_heads: a split row's head that something other than
 * ots's row code changed (plain SQL, purge, a replication apply) holds no
 * cell: the indexes get its defined columns from its chunks instead
 * (store/rowsplit.h), read before they go with it.  The change as the
 * indexes see it is a copy of w, made when a head is there or copy asks;
 * NULL otherwise (w itself stays as stored: storage_write_drop_chunks
 * looks for heads).
 */
static StorageWrite *
storage_write_expand_heads(const StorageWrite *w, bool copy)
{
	StorageWrite *expanded = NULL;

	for (int i = 0; i < w->nrows; i++)
		for (int side = 0; side < 2; side++)
		{
			Datum		cells = side == 0 ? w->old_cells[i] : w->new_cells[i];
			struct varlena *v = cells != (Datum) 0 ?
				(struct varlena *) PG_DETOAST_DATUM_PACKED(cells) : NULL;

			if ((v == NULL || !cells_is_head(v)) && (!copy || expanded != NULL))
				continue;
			if (expanded == NULL)
			{
				expanded = palloc(sizeof(StorageWrite));
				*expanded = *w;
				expanded->old_cells = palloc(sizeof(Datum) * w->nrows);
				expanded->new_cells = palloc(sizeof(Datum) * w->nrows);
				memcpy(expanded->old_cells, w->old_cells, sizeof(Datum) * w->nrows);
				memcpy(expanded->new_cells, w->new_cells, sizeof(Datum) * w->nrows);
			}
			if (v != NULL && cells_is_head(v))
				(side == 0 ? expanded->old_cells : expanded->new_cells)[i] =
					PointerGetDatum(rowsplit_defined_view(w->table, v, GetLatestSnapshot()));
		}
	return expanded;
}

/*
 * storage_write_apply_defer: of a change a logical replication worker
 * applies, its heads expanded (storage_write_expand_heads), the rows whose
 * new cells are a split row's head, whose chunks come after it, or that
 * wait already, wait for the commit to have their indexes kept
 * (apply_split.c): they are taken out of what is kept now.
 */
static const StorageWrite *
storage_write_apply_defer(const StorageWrite *w)
{
	StorageWrite *now = storage_write_expand_heads(w, true);

	for (int i = 0; i < w->nrows; i++)
	{
		TupleTableSlot *row = w->new_rows != NULL && w->new_rows[i] != NULL ? w->new_rows[i] :
			w->old_rows != NULL ? w->old_rows[i] : NULL;
		struct varlena *old_cells;
		struct varlena *new_cells;
		PkInput		pk;

		if (row == NULL)
			continue;
		storage_write_row_key(w, row, &pk);
		storage_write_row_cells(w, i, &old_cells, &new_cells);
		if (apply_split_defer(w->table, &pk,
							  now->old_cells[i] != (Datum) 0 ?
							  (struct varlena *) PG_DETOAST_DATUM_PACKED(now->old_cells[i]) : NULL,
							  new_cells))
			now->old_cells[i] = now->new_cells[i] = (Datum) 0;
	}
	return now;
}

/* storage_write_apply_chunks: new chunks a logical replication worker applies (apply_split.c) */
static void
storage_write_apply_chunks(const StorageWrite *w)
{
	/* a stream of changes brings a head before its chunks: storage_write_apply_defer */
	if (!apply_split_initial_copy())
		return;
	for (int i = 0; i < w->nrows; i++)
	{
		PkInput		pk;

		if (w->new_rows[i] == NULL || (w->old_cells != NULL && w->old_cells[i] != (Datum) 0))
			continue;
		storage_write_row_key(w, w->new_rows[i], &pk);
		apply_split_chunks_arrived(w->table, &pk);
	}
}

/*
 * storage_write_drop_chunks: a split row's head that something other than
 * ots's row code deleted, or replaced by cells of its own (plain SQL,
 * purge), takes its chunks with it, so no chunk outlives its row
 */
static void
storage_write_drop_chunks(const StorageWrite *w)
{
	for (int i = 0; i < w->nrows; i++)
	{
		struct varlena *old;
		struct varlena *new = NULL;
		RowKey		key;

		if (w->old_cells == NULL || w->old_cells[i] == (Datum) 0 ||
			w->callback == STORAGE_CB_DETACH)
			continue;
		old = (struct varlena *) PG_DETOAST_DATUM_PACKED(w->old_cells[i]);
		if (!cells_is_head(old))
			continue;
		if (w->new_cells[i] != (Datum) 0)
			new = (struct varlena *) PG_DETOAST_DATUM_PACKED(w->new_cells[i]);
		if (new != NULL && cells_is_head(new))
			continue;
		rowsplit_head_rowkey(w->table, old, &key);
		rowsplit_delete_chunks(&key);
	}
}

/*
 * storage_write_keys finds (once per leaf and table: store/leaf.c) where
 * w's leaf keeps the stored key columns of w->table
 */
static const LeafCache *
storage_write_keys(const StorageWrite *w)
{
	LeafCache  *lc = leaf_place(RelationGetRelid(w->leaf));

	if (!leaf_keys(lc, w->table))
		catalog_report_damaged(w->table, "a partition of its storage table lacks a key column");
	return lc;
}

/* storage_write_row_key reads the primary key of row, a row or chunk of w's relation */
static void
storage_write_row_key(const StorageWrite *w, TupleTableSlot *row, PkInput *pk)
{
	memset(pk, 0, sizeof(PkInput));
	pk->n = w->table->npk;
	storage_leaf_key_whole(w->table, storage_write_keys(w)->key_attnos, row, pk->v);
}

/*
 * storage_write_source reads row (of leaf w->leaf), whose cells are cells,
 * as index maintenance sees a base row: its primary key and its cells
 */
static void
storage_write_source(const StorageWrite *w, const LeafCache *lc, TupleTableSlot *row,
					 struct varlena *cells, IndexSourceRow *src)
{
	storage_leaf_key_whole(w->table, lc->key_attnos, row, src->pk);
	src->cells = cells;
}

/*
 * storage_write_indexes does what a change of a table with defined columns
 * or secondary indexes needs: new cells of another type than a defined
 * column's refused, each index brought to the rows' new state.  A TRUNCATE
 * of a table with indexes is refused: its rows' entries are spread over the
 * whole index.
 */
static void
storage_write_indexes(const StorageWrite *w)
{
	const OtsTable *t = w->table;
	const LeafCache *lc = NULL;
	MemoryContext rowcxt;
	MemoryContext oldcxt;

	if (w->callback == STORAGE_CB_TRUNCATE)
	{
		if (t->nindexes > 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot truncate a partition of ots table %s, which has secondary indexes",
							quote_qualified_identifier(t->schema_name, t->table_name)),
					 errhint("Delete its rows (DELETE, ots.delete_row), or delete its indexes first.")));
		return;
	}
	if (t->nindexes > 0)
		lc = storage_write_keys(w);
	/* each row's decoding and index writes leave nothing behind it (a statement may change millions) */
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "ots index maintenance", ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(rowcxt);
	for (int i = 0; i < w->nrows; i++)
	{
		struct varlena *old_cells;
		struct varlena *new_cells;
		IndexSourceRow before;
		IndexSourceRow after;
		TupleTableSlot *old_row = w->old_rows != NULL ? w->old_rows[i] : NULL;
		TupleTableSlot *new_row = w->new_rows != NULL ? w->new_rows[i] : NULL;

		storage_write_row_cells(w, i, &old_cells, &new_cells);
		if (old_cells == NULL && new_cells == NULL)
			continue;			/* its maintenance waits for the commit (apply_split.c) */
		if (new_cells != NULL && t->ndefined > 0 && !t->is_index)
			defined_check_types(t, old_cells, new_cells);
		if (t->nindexes == 0)
		{
			MemoryContextReset(rowcxt);
			continue;
		}
		if ((old_cells != NULL && old_row == NULL) || (new_cells != NULL && new_row == NULL))
			elog(ERROR, "the write point got no key for a change of ots table %s",
				 quote_qualified_identifier(t->schema_name, t->table_name));
		if (old_cells != NULL)
			storage_write_source(w, lc, old_row, old_cells, &before);
		if (new_cells != NULL)
			storage_write_source(w, lc, new_row, new_cells, &after);
		index_write_change(t, old_cells != NULL ? &before : NULL,
						   new_cells != NULL ? &after : NULL);
		MemoryContextReset(rowcxt);
	}
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(rowcxt);
}
