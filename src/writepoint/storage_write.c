/*-------------------------------------------------------------------------
 * src/writepoint/storage_write.c
 *	  The write point of ots storage: storage_write, which every change of a
 *	  stored row reaches (through the ots table access method, tableam.c),
 *	  and the guard that refuses rows ots could not read back.
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
 * calls the table AM (storage_write_expect_row): the cells are its own
 * work, already checked, and it hands over the old cells it read.  Any
 * other new row, those of the statements ots runs on storage (the bulk
 * upsert, purge) included, is checked by storage_write_guard
 * before it is stored: cells in the ots.cells format, within the row size
 * the text form carries, "$oldest_ts" its oldest cell, "$hash" the hash
 * prefix of its partition key, key values within Tablestore's length.
 * Relations on the access method that are not leaves of ots storage (the
 * transient copy an ALTER TABLE rewrite fills) are neither checked nor
 * counted: a rewrite changes no row.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/partition.h"
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

#include "asrole.h"
#include "cache.h"
#include "format/cells.h"
#include "format/codec.h"
#include "errors.h"
#include "guc.h"
#include "index/index_write.h"
#include "writepoint/restore.h"
#include "stats.h"
#include "meta/storage.h"
#include "writepoint/storage_write.h"
#include "stream/stream.h"

/* where a leaf's ots columns are, and which storage it belongs to */
typedef struct WriteLeaf
{
	Oid			leaf_oid;		/* hash key */
	bool		valid;			/* cleared by a relcache invalidation */
	Oid			storage_oid;	/* partition parent, InvalidOid if none */
	AttrNumber	cells_attno;	/* 0: no "$cells" column */
	AttrNumber	oldest_attno;
	const OtsTable *keys_of;	/* the table key_attnos were found for, or NULL */
	AttrNumber	key_attnos[OTS_MAX_KEY_COLUMNS + 1];
} WriteLeaf;

static void storage_write_leaf_stale(void *entry);

static OtsCache write_leaves = {
	.name = "ots write point leaves",
	.keysize = sizeof(Oid),
	.entrysize = sizeof(WriteLeaf),
	.stale = storage_write_leaf_stale,
};

/* what ots's row code announced (storage_write_expect_*) */
static struct
{
	bool		row;			/* a row change is expected */
	const OtsTable *row_table;
	Oid			row_leaf;
	TupleTableSlot *row_slot;	/* NULL: any */
	AttrNumber	row_cells_attno;
	struct varlena *row_old;
	const StreamChange *row_change;
} expected;

static void storage_write_key_attnos(Relation rel, StorageLeaf *leaf);
static void storage_write_indexes(const StorageWrite *w);
static void storage_write_xact_end(XactEvent event, void *arg);
static void storage_write_subxact_end(SubXactEvent event, SubTransactionId mySubid,
									  SubTransactionId parentSubid, void *arg);

/* storage_write_init registers the end of the expectations; from _PG_init */
void
storage_write_init(void)
{
	RegisterXactCallback(storage_write_xact_end, NULL);
	RegisterSubXactCallback(storage_write_subxact_end, NULL);
}

static void
storage_write_forget_expected(void)
{
	memset(&expected, 0, sizeof(expected));
}

/* an error between an announcement and its write must not leave it for a later write */
static void
storage_write_xact_end(XactEvent event, void *arg)
{
	storage_write_forget_expected();
}

static void
storage_write_subxact_end(SubXactEvent event, SubTransactionId mySubid,
						  SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		storage_write_forget_expected();
}

void
storage_write_expect_row(const OtsTable *t, Oid leaf, TupleTableSlot *slot,
						 AttrNumber cells_attno, struct varlena *old_cells,
						 const StreamChange *change)
{
	expected.row_change = change;
	expected.row = true;
	expected.row_table = t;
	expected.row_leaf = leaf;
	expected.row_slot = slot;
	expected.row_cells_attno = cells_attno;
	expected.row_old = old_cells;
}

void
storage_write_expect_end(void)
{
	storage_write_forget_expected();
}

/* storage_write_leaf_stale forgets a leaf's place after DDL on it */
static void
storage_write_leaf_stale(void *entry)
{
	((WriteLeaf *) entry)->valid = false;
}

/* storage_write_attno: the number of rel's column name of type typid, 0 if none */
static AttrNumber
storage_write_attno(Relation rel, const char *name, Oid typid)
{
	TupleDesc	desc = RelationGetDescr(rel);

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped && strcmp(NameStr(att->attname), name) == 0)
			return att->atttypid == typid ? att->attnum : 0;
	}
	return 0;
}

/*
 * storage_write_place looks up (once per leaf and DDL) where rel's ots
 * columns are: a "$cells" of type ots.cells and an int8 "$oldest_ts", or
 * none (a partition of anything else on the access method is no ots leaf,
 * whatever its columns are called).
 */
static const WriteLeaf *
storage_write_place(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	WriteLeaf  *wl;
	bool		found;

	wl = cache_lookup(&write_leaves, &relid, &found);
	if (!found || !wl->valid)
	{
		/* not a partition: a table ATTACH is about to make one (storage_write_rows_join) */
		wl->storage_oid = rel->rd_rel->relispartition ? get_partition_parent(relid, true) : InvalidOid;
		wl->cells_attno = storage_write_attno(rel, STORAGE_CELLS_COLUMN, storage_cells_type());
		wl->oldest_attno = storage_write_attno(rel, STORAGE_OLDEST_TS_COLUMN, INT8OID);
		wl->keys_of = NULL;
		wl->valid = true;
	}
	return wl;
}

/*
 * storage_write_leaf tells the table AM whether rel is a leaf of ots
 * storage, and fills leaf with what the write point needs of it: the table
 * (NULL while the storage is not registered, as during pg_restore before
 * ots.tables has its rows), where its columns are, and whether ots's row
 * code announced this change (slot: the new row, NULL for a delete).
 */
bool
storage_write_leaf(Relation rel, TupleTableSlot *slot, StorageLeaf *leaf)
{
	Oid			relid = RelationGetRelid(rel);
	const WriteLeaf *wl;

	memset(leaf, 0, sizeof(*leaf));
	if (expected.row && expected.row_leaf == relid &&
		(expected.row_slot == NULL || expected.row_slot == slot))
	{
		/* what ots's row code knows: no look-up, and nothing to check */
		leaf->table = expected.row_table;
		leaf->storage_oid = expected.row_table->data_oid;
		/*
		 * unless locking the leaf let in an invalidation since the row code
		 * looked the table up (an index created meanwhile): the table as of
		 * the lock, which is what every write of the leaf keeps until it
		 * commits (a build or delete_index waits for it)
		 */
		if (!leaf->table->valid)
			leaf->table = catalog_lookup_by_data_oid(leaf->storage_oid);
		leaf->origin = STORAGE_ORIGIN_OTS;
		leaf->old_cells = PointerGetDatum(expected.row_old);
		leaf->cells_attno = expected.row_cells_attno;
		leaf->change = expected.row_change;
		expected.row = false;
		return true;
	}
	leaf->origin = STORAGE_ORIGIN_SQL;
	/* not a partition: the transient copy of a rewrite, a table before ATTACH */
	if (!rel->rd_rel->relispartition)
		return false;
	wl = storage_write_place(rel);
	if (!OidIsValid(wl->storage_oid) || wl->cells_attno == 0 || wl->oldest_attno == 0)
		return false;
	leaf->storage_oid = wl->storage_oid;
	leaf->cells_attno = wl->cells_attno;
	leaf->oldest_attno = wl->oldest_attno;
	/*
	 * pg_restore loads rows before it adds the primary keys, which the
	 * table's metadata checks: until then its rows are checked as those of
	 * storage not registered yet
	 */
	if (OidIsValid(RelationGetPrimaryKeyIndex(rel)))
		leaf->table = catalog_lookup_by_data_oid(wl->storage_oid);
	if (leaf->table != NULL)
		storage_write_key_attnos(rel, leaf);
	return true;
}

/*
 * storage_write_key_attnos finds rel's stored key columns for leaf->table,
 * by name and type; a relation without all of them is checked as storage
 * not registered (PostgreSQL refuses it as a partition anyway).
 */
static void
storage_write_key_attnos(Relation rel, StorageLeaf *leaf)
{
	leaf->nkeys = storage_nkeys(leaf->table);
	for (int k = 0; k < leaf->nkeys; k++)
		if ((leaf->key_attnos[k] = storage_write_attno(rel, storage_key_column(leaf->table, k),
													   storage_key_type(leaf->table, k))) == 0)
		{
			leaf->table = NULL;
			leaf->nkeys = 0;
			return;
		}
}

/* the context of a guard's error: which row of which table */
typedef struct GuardContext
{
	Relation	leaf;
	const OtsTable *table;
} GuardContext;

static void
storage_write_guard_context(void *arg)
{
	const GuardContext *gc = arg;

	if (gc->table != NULL)
		errcontext("row written to partition %s of ots table %s",
				   quote_identifier(RelationGetRelationName(gc->leaf)),
				   quote_qualified_identifier(gc->table->schema_name, gc->table->table_name));
	else
		errcontext("row written to partition %s of ots storage",
				   quote_identifier(RelationGetRelationName(gc->leaf)));
}

/* storage_write_guard_key checks the stored key: "$hash" and key value lengths */
static void
storage_write_guard_key(const StorageLeaf *leaf, TupleTableSlot *slot)
{
	const OtsTable *t = leaf->table;
	int			first = t->hash_prefix_len > 0 ? 1 : 0;

	for (int i = 0; i < t->npk; i++)
	{
		bool		isnull;
		Datum		d = slot_getattr(slot, leaf->key_attnos[first + i], &isnull);
		struct varlena *v;
		OtsValue	pk;

		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NOT_NULL_VIOLATION),
					 errmsg("primary key column \"%s\" of an ots row is null", t->pk[i].name)));
		pk.type = t->pk[i].type;
		if (pk.type == OTS_VT_INTEGER)
			pk.u.i = DatumGetInt64(d);
		else
		{
			v = PG_DETOAST_DATUM_PACKED(d);
			pk.u.s.data = VARDATA_ANY(v);
			pk.u.s.len = VARSIZE_ANY_EXHDR(v);
			codec_check_pk_length(&t->pk[i], pk.u.s.len);
		}
		if (i == 0 && first == 1)
		{
			int64		stored = DatumGetInt64(slot_getattr(slot, leaf->key_attnos[0], &isnull));
			int64		hash = storage_hash_prefix(&pk, t->hash_prefix_len);

			if (isnull || stored != hash)
				ereport(ERROR,
						(errcode(ERRCODE_CHECK_VIOLATION),
						 errmsg(STORAGE_HASH_SQL " of an ots row is not the hash prefix of its partition key"),
						 errdetail("The row's " STORAGE_HASH_SQL " is %s; the hash prefix of its partition key is %lld (the hex digits %0*llx of ots.hash_prefix).",
								   isnull ? "null" : psprintf("%lld", (long long) stored),
								   (long long) hash, t->hash_prefix_len, (unsigned long long) hash)));
		}
	}
}

/*
 * storage_write_guard refuses a new row that ots's row code did not build
 * unless it is exactly what ots would have stored for it: its cells valid
 * and within the size the text form carries, "$oldest_ts" its oldest cell
 * (the row marker without cells), and on a registered table "$hash" and
 * key lengths as create_table's rules make them.  It reads nothing but the
 * new row.
 */
void
storage_write_guard(Relation rel, const StorageLeaf *leaf, TupleTableSlot *slot)
{
	GuardContext gc = {rel, leaf->table};
	ErrorContextCallback errcb;
	bool		isnull;
	Datum		stored_cells;
	Datum		d;
	struct varlena *cells;
	int64		oldest;

	if (leaf->origin == STORAGE_ORIGIN_OTS)
		return;
	errcb.callback = storage_write_guard_context;
	errcb.arg = &gc;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	stored_cells = slot_getattr(slot, leaf->cells_attno, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg(STORAGE_CELLS_SQL " of an ots row is null")));
	cells = PG_DETOAST_DATUM_PACKED(stored_cells);
	cells_validate((const uint8 *) VARDATA_ANY(cells), VARSIZE_ANY_EXHDR(cells));
	cells_io_check_size(cells);
	d = slot_getattr(slot, leaf->oldest_attno, &isnull);
	oldest = cells_oldest_ts(cells);
	if (isnull || DatumGetInt64(d) != oldest)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg(STORAGE_OLDEST_TS_SQL " of an ots row is not the timestamp of its oldest cell"),
				 errdetail("The row's " STORAGE_OLDEST_TS_SQL " is %s; its oldest cell (or, without cells, its row marker) is at %lld.",
						   isnull ? "null" : psprintf("%lld", (long long) DatumGetInt64(d)),
						   (long long) oldest)));
	if (leaf->table != NULL)
		storage_write_guard_key(leaf, slot);
	if ((Pointer) cells != DatumGetPointer(stored_cells))
		pfree(cells);

	error_context_stack = errcb.previous;
}

/*
 * storage_write_rows_moving reads every row of relation relid, which is
 * about to join t's storage or to leave it below the write point, holding
 * the relation as the statement will (AccessExclusiveLock, which ATTACH,
 * DETACH and DROP take on it), so no row comes or goes in between.  Rows
 * that join are checked as storage_write_guard checks a new row.  With
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
	Snapshot	snapshot;
	TableScanDesc scan;
	TupleTableSlot *slot;

	memset(&leaf, 0, sizeof(leaf));
	leaf.origin = STORAGE_ORIGIN_SQL;
	leaf.storage_oid = t->data_oid;
	leaf.table = t;
	leaf.cells_attno = storage_write_attno(rel, STORAGE_CELLS_COLUMN, storage_cells_type());
	leaf.oldest_attno = storage_write_attno(rel, STORAGE_OLDEST_TS_COLUMN, INT8OID);
	storage_write_key_attnos(rel, &leaf);
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
			storage_write_guard(rel, &leaf, slot);
		if (callback == STORAGE_CB_ATTACH || callback == STORAGE_CB_DETACH)
		{
			cells = slot_getattr(slot, leaf.cells_attno, &isnull);
			w.leaf = rel;
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
 * table) is: a new change of the table's rows, or a copy of one made and
 * recorded elsewhere, and which copy.  This is the one place that tells
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
	if (w->origin != STORAGE_ORIGIN_SQL ||
		(w->callback != STORAGE_CB_INSERT && w->callback != STORAGE_CB_MULTI_INSERT &&
		 w->callback != STORAGE_CB_SPECULATIVE))
		return STORAGE_CHANGE_NEW;
	return restore_loading(w->storage_oid) ? STORAGE_CHANGE_RESTORED : STORAGE_CHANGE_NEW;
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
		stats_count_stored(w->storage_oid, w->origin, w->callback, changes,
						   with_old, with_new);
	}
	if (w->table == NULL)
		return;
	if (kind != STORAGE_CHANGE_RESTORED && (w->table->ndefined > 0 || w->table->nindexes > 0))
		storage_write_indexes(w);
	if (kind == STORAGE_CHANGE_NEW && w->table->stream_enabled)
		stream_write_change(w);
}

/*
 * storage_write_keys finds (once per leaf and table) where w's leaf keeps
 * the stored key columns of w->table
 */
static WriteLeaf *
storage_write_keys(const StorageWrite *w)
{
	const OtsTable *t = w->table;
	WriteLeaf  *wl = (WriteLeaf *) storage_write_place(w->leaf);

	if (wl->keys_of != t)
	{
		for (int k = 0; k < storage_nkeys(t); k++)
			if ((wl->key_attnos[k] = storage_write_attno(w->leaf, storage_key_column(t, k),
														 storage_key_type(t, k))) == 0)
				catalog_report_damaged(t, "a partition of its storage table lacks a key column");
		wl->keys_of = t;
	}
	return wl;
}

/* storage_write_key reads the primary key of row (of leaf w->leaf) into pk[] */
static void
storage_write_key(const StorageWrite *w, const WriteLeaf *wl, TupleTableSlot *row, OtsValue *pk)
{
	storage_write_slot_key(w->table, wl->key_attnos, row, pk);
}

/*
 * storage_write_slot_key reads the primary key of a stored row of t, whose
 * stored key columns are key_attnos (as storage_write_leaf finds them),
 * into pk[]; String and Binary values point into the row
 */
void
storage_write_slot_key(const OtsTable *t, const AttrNumber *key_attnos, TupleTableSlot *row,
					   OtsValue *pk)
{
	int			first = t->hash_prefix_len > 0 ? 1 : 0;

	for (int k = 0; k < t->npk; k++)
	{
		bool		isnull;
		Datum		d = slot_getattr(row, key_attnos[first + k], &isnull);

		if (isnull)
			elog(ERROR, "a key column of a changed ots row is null");
		pk[k].type = t->pk[k].type;
		if (t->pk[k].type == OTS_VT_INTEGER)
			pk[k].u.i = DatumGetInt64(d);
		else
		{
			struct varlena *v = PG_DETOAST_DATUM_PACKED(d);

			pk[k].u.s.data = VARDATA_ANY(v);
			pk[k].u.s.len = VARSIZE_ANY_EXHDR(v);
		}
	}
}

void
storage_write_row_key(const StorageWrite *w, int i, PkInput *pk)
{
	TupleTableSlot *row = w->new_rows != NULL && w->new_rows[i] != NULL ? w->new_rows[i] :
	w->old_rows != NULL ? w->old_rows[i] : NULL;

	if (row == NULL)
		elog(ERROR, "the write point got no key for a change of ots table %s",
			 quote_qualified_identifier(w->table->schema_name, w->table->table_name));
	memset(pk, 0, sizeof(*pk));
	pk->n = w->table->npk;
	storage_write_key(w, storage_write_keys(w), row, pk->v);
}

/*
 * storage_write_source reads row (of leaf w->leaf), whose cells are cells,
 * as index maintenance sees a base row: its primary key and its cells
 */
static void
storage_write_source(const StorageWrite *w, const WriteLeaf *wl, TupleTableSlot *row,
					 struct varlena *cells, IndexSourceRow *src)
{
	storage_write_key(w, wl, row, src->pk);
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
	WriteLeaf  *wl = NULL;
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
		wl = storage_write_keys(w);
	/* each row's decoding and index writes leave nothing behind it (a statement may change millions) */
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "ots index maintenance", ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(rowcxt);
	for (int i = 0; i < w->nrows; i++)
	{
		struct varlena *old_cells = w->old_cells[i] != (Datum) 0 ?
		PG_DETOAST_DATUM_PACKED(w->old_cells[i]) : NULL;
		struct varlena *new_cells = w->new_cells[i] != (Datum) 0 ?
		PG_DETOAST_DATUM_PACKED(w->new_cells[i]) : NULL;
		IndexSourceRow before;
		IndexSourceRow after;
		TupleTableSlot *old_row = w->old_rows != NULL ? w->old_rows[i] : NULL;
		TupleTableSlot *new_row = w->new_rows != NULL ? w->new_rows[i] : NULL;

		if (new_cells != NULL && t->ndefined > 0 && !t->is_index)
			index_check_defined_types(t, old_cells, new_cells);
		if (t->nindexes == 0)
		{
			MemoryContextReset(rowcxt);
			continue;
		}
		if ((old_cells != NULL && old_row == NULL) || (new_cells != NULL && new_row == NULL))
			elog(ERROR, "the write point got no key for a change of ots table %s",
				 quote_qualified_identifier(t->schema_name, t->table_name));
		if (old_cells != NULL)
			storage_write_source(w, wl, old_row, old_cells, &before);
		if (new_cells != NULL)
			storage_write_source(w, wl, new_row, new_cells, &after);
		index_write_change(t, old_cells != NULL ? &before : NULL,
						   new_cells != NULL ? &after : NULL);
		MemoryContextReset(rowcxt);
	}
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(rowcxt);
}
