/*-------------------------------------------------------------------------
 * src/stream/stream_write.c
 *	  The writing side of Stream: a record for each change of a row of a
 *	  table with a stream, made at the write point in the writing
 *	  transaction, and the commit's place in each shard it wrote.
 *
 * A record says what the change was as Tablestore does: PUT_ROW with every
 * cell of the new row put, UPDATE_ROW with its column operations,
 * DELETE_ROW.  ots's row code announces its writes (stream.h), so an
 * UpdateRow's record lists its operations exactly as written (with the
 * server's timestamps as stored), and a PutRow that replaces a row is a
 * PUT_ROW.  Any other change (plain SQL on the storage, COPY) is a
 * PUT_ROW when it inserts (a split row's head inserted after its chunks:
 * a PUT_ROW and UPDATE_ROWs, a page of its chunks each), a DELETE_ROW when
 * it deletes, and an
 * UPDATE_ROW of what differs when it updates: columns gone, versions
 * gone, cells new or changed.  Purge's removal of what
 * reads no longer see is no record, nor is a copy of a change made and
 * recorded elsewhere (a logical replication apply, whose publisher's
 * stream has the change; session_replication_role = replica, for which
 * ordinary triggers do not fire either; a row a restore loads, whose
 * records the dump brings), which the write point does not hand over
 * (storage_write_change_kind).  Rows that join or leave the table below
 * the write point (TRUNCATE, ATTACH PARTITION of a table with rows) are
 * refused: no record could name them.
 *
 * The records of a transaction are kept in memory as it writes them, and
 * a subtransaction that rolls back drops its own; when the transaction
 * commits, each shard it wrote gets a log entry with its position
 * (stream_storage.h) holding its records.  A transaction whose records
 * would fill too much memory writes them to the stream's records relation
 * as it goes (where an aborted subtransaction's are dead with it), and its
 * entry holds the rest.  With wal_level = logical each record is
 * also a transactional logical decoding message with prefix "ots", which
 * decoding delivers at commit, in commit order.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "common/pg_prng.h"
#include "replication/message.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "meta/catalog.h"
#include "meta/storage.h"
#include "format/cells.h"
#include "format/codec.h"
#include "ots_limits.h"
#include "store/rowsplit.h"
#include "writepoint/storage_write.h"
#include "stream/stream.h"
#include "stream/stream_record.h"
#include "stream/stream_storage.h"

/* the prefix of ots's logical decoding messages */
#define STREAM_MESSAGE_PREFIX "ots"

/*
 * a split row's cells are recorded by pages of its chunks of about this
 * size (more by one chunk, which holds at most one 2 MB value more): a
 * record stays a few MB, whatever the row's width and depth
 */
#define STREAM_SPLIT_PAGE_BYTES (1024 * 1024)

/* a transaction's records are written out beyond this size */
#define STREAM_BUFFER_BYTES (256 * 1024)

/* a record kept for the commit */
typedef struct StreamBuffered
{
	SubTransactionId subid;		/* the subtransaction that wrote it */
	int32		n;
	Jsonb	   *record;			/* as stored (stream_record.c) */
} StreamBuffered;

/* one shard this transaction wrote records to */
typedef struct StreamShardWrite
{
	Oid			data_oid;		/* the table's storage */
	Oid			log_oid;		/* its stream's log when the records were written */
	int32		shard;
	int64		id;				/* its log entry's id and its spilled records' */
	int32		next_n;			/* the number of its next record */
	int32		spilled;		/* records numbered below went to the records relation */
	List	   *buffered;		/* StreamBuffered, in the order written */
	SubTransactionId oldest_subid;	/* the outermost subtransaction that wrote one */
} StreamShardWrite;

/* the shards written by the current transaction (in TopTransactionContext) */
static List *shard_writes = NIL;
/* the size of the records they keep in memory */
static Size buffered_total = 0;

static void stream_xact_callback(XactEvent event, void *arg);
static void stream_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
									SubTransactionId parentSubid, void *arg);

void
stream_init(void)
{
	RegisterXactCallback(stream_xact_callback, NULL);
	RegisterSubXactCallback(stream_subxact_callback, NULL);
}

/* stream_shard_write: this transaction's entry for the shard of t, made on first use */
static StreamShardWrite *
stream_shard_write(const OtsTable *t, int32 shard)
{
	ListCell   *lc;
	StreamShardWrite *sw;
	MemoryContext old;

	foreach(lc, shard_writes)
	{
		sw = lfirst(lc);
		if (sw->data_oid == t->data_oid && sw->shard == shard && sw->log_oid == t->stream_log_oid)
			return sw;
	}
	/*
	 * held to the end: disabling or replacing the stream waits for this
	 * transaction, so its commit finds the log its records were made for
	 */
	LockRelationOid(t->stream_log_oid, RowExclusiveLock);
	old = MemoryContextSwitchTo(TopTransactionContext);
	sw = palloc(sizeof(StreamShardWrite));
	sw->data_oid = t->data_oid;
	sw->log_oid = t->stream_log_oid;
	sw->shard = shard;
	/* random, never 0 (a trim marker's): unique across clusters too */
	do
		sw->id = (int64) (pg_prng_uint64(&pg_global_prng_state) & PG_INT64_MAX);
	while (sw->id == STREAM_TRIM_MARKER);
	sw->next_n = 0;
	sw->spilled = 0;
	sw->buffered = NIL;
	shard_writes = lappend(shard_writes, sw);
	MemoryContextSwitchTo(old);
	return sw;
}

/*
 * stream_emit_message sends the record to logical decoding, in
 * Tablestore's shape with the table, stream and shard it belongs to:
 * {"table", "stream_id", "shard_id", then the record's own fields}, the
 * record's text written once, after the three
 */
static void
stream_emit_message(const OtsTable *t, int32 shard, Jsonb *record)
{
	StringInfoData buf;
	char	   *fields = JsonbToCString(NULL, &record->root, VARSIZE(record));

	initStringInfo(&buf);
	appendStringInfoString(&buf, "{\"table\": ");
	escape_json(&buf, quote_qualified_identifier(t->schema_name, t->table_name));
	appendStringInfo(&buf, ", \"stream_id\": \"%s\", \"shard_id\": \"%d\", ", t->stream_id, shard);
	/* the record's text is an object: its fields follow its "{" */
	Assert(fields[0] == '{');
	appendStringInfoString(&buf, fields + 1);
	LogLogicalMessage(STREAM_MESSAGE_PREFIX, buf.data, buf.len, true);
}

/* stream_copy_jsonb: a copy of j in TopTransactionContext */
static Jsonb *
stream_copy_jsonb(Jsonb *j)
{
	Jsonb	   *copy = MemoryContextAlloc(TopTransactionContext, VARSIZE(j));

	memcpy(copy, j, VARSIZE(j));
	return copy;
}

/* stream_free_buffered forgets a buffered record */
static void
stream_free_buffered(StreamBuffered *b)
{
	buffered_total -= VARSIZE(b->record);
	pfree(b->record);
	pfree(b);
}

/*
 * stream_spillable: may the shard's buffered records be written out by
 * subtransaction level?  Only when level or one inside it wrote them all: a
 * row written by level dies if level rolls back, and an older record must
 * not.  (A subtransaction committing into its parent writes out at its
 * parent's level: its rows then die with the parent.)
 */
static bool
stream_spillable(const StreamShardWrite *sw, SubTransactionId level)
{
	return sw->buffered != NIL && sw->oldest_subid >= level;
}

/*
 * stream_spill writes the shard's buffered records to the stream's records
 * relation: the transaction's entry will hold only those written after
 */
static void
stream_spill(StreamShardWrite *sw)
{
	const OtsTable *t = catalog_lookup_by_data_oid(sw->data_oid);
	StreamRels	rels;
	ListCell   *lc;

	if (t == NULL || !t->stream_enabled || t->stream_log_oid != sw->log_oid)
		return;

	stream_open_rec(t, RowExclusiveLock, &rels);
	foreach(lc, sw->buffered)
	{
		StreamBuffered *b = lfirst(lc);

		stream_rec_insert(&rels, sw->shard, sw->id, b->n, b->record);
	}
	stream_close(&rels);
	/* only once all are in: an error above leaves the list whole for the abort */
	foreach(lc, sw->buffered)
		stream_free_buffered(lfirst(lc));
	list_free(sw->buffered);
	sw->buffered = NIL;
	sw->spilled = sw->next_n;
}

/*
 * stream_spill_all writes out the buffered records of every shard that may
 * (stream_spillable): those of a subtransaction's outer levels wait for it
 * to end
 */
static void
stream_spill_all(SubTransactionId level)
{
	ListCell   *lc;

	foreach(lc, shard_writes)
	{
		StreamShardWrite *sw = lfirst(lc);

		if (stream_spillable(sw, level))
			stream_spill(sw);
	}
}

/*
 * stream_row_key reads the primary key of row i of a change (its new row,
 * else its old), whose leaf keeps the stored key columns at key_attnos
 */
static void
stream_row_key(const StorageWrite *w, const AttrNumber *key_attnos, int i, PkInput *pk)
{
	TupleTableSlot *row = w->new_rows != NULL && w->new_rows[i] != NULL ? w->new_rows[i] :
	w->old_rows != NULL ? w->old_rows[i] : NULL;

	if (row == NULL)
		elog(ERROR, "the write point got no key for a change of ots table %s",
			 quote_qualified_identifier(w->table->schema_name, w->table->table_name));
	memset(pk, 0, sizeof(*pk));
	pk->n = w->table->npk;
	storage_leaf_key_whole(w->table, key_attnos, row, pk->v);
}

/*
 * stream_write_record makes a record of row pk in shard sw and keeps it for
 * the commit (sent to logical decoding now)
 */
static void
stream_write_record(const OtsTable *t, int32 shard, StreamShardWrite *sw, const PkInput *pk,
					StreamAction action, const StreamUpdateOps *ops, const CellsReader *before,
					const CellsReader *original, const CellsReader *after,
					const struct varlena *new_cells)
{
	Jsonb	   *record = stream_record_make(t, pk, action, ops, before, original, after, new_cells,
											true);
	MemoryContext cxt = CurrentMemoryContext;
	StreamBuffered *b;

	if (XLogLogicalInfoActive())
		stream_emit_message(t, shard,
							action != STREAM_PUT_ROW ? record :
							stream_record_make(t, pk, action, ops, before, original, after, new_cells,
											   false));

	b = MemoryContextAlloc(TopTransactionContext, sizeof(StreamBuffered));
	b->subid = GetCurrentSubTransactionId();
	b->n = sw->next_n++;
	b->record = stream_copy_jsonb(record);
	MemoryContextSwitchTo(TopTransactionContext);
	if (sw->buffered == NIL || b->subid < sw->oldest_subid)
		sw->oldest_subid = b->subid;
	sw->buffered = lappend(sw->buffered, b);
	MemoryContextSwitchTo(cxt);
	buffered_total += VARSIZE(b->record);
	if (buffered_total > STREAM_BUFFER_BYTES)
		stream_spill_all(GetCurrentSubTransactionId());
}

/*
 * stream_original_cells: where a change's record reads the original columns
 * of row old from: old itself (ots's row writes load them with the row,
 * rowneeds_init_write), or for a split row's head that reached the write
 * point as it is stored (plain SQL on the storage), those columns' newest
 * cells loaded from its chunks, which a change of the head leaves in place
 * until after the write point (as index maintenance reads them,
 * storage_write.c)
 */
static const struct varlena *
stream_original_cells(const OtsTable *t, const struct varlena *old)
{
	RowNeeds	needs;
	RowKey		key;
	Snapshot	snapshot;
	const struct varlena *loaded;

	if (t->stream_noriginal == 0 || !cells_is_head(old))
		return old;
	rowneeds_init(&needs);
	rowneeds_stream_original(&needs, t);
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	loaded = rowsplit_load_head(t, old, &needs, snapshot, &key);
	UnregisterSnapshot(snapshot);
	return loaded;
}

/* a split row stored by plain SQL, its chunks before its head: the records of its cells */
typedef struct StreamSplitPut
{
	const OtsTable *t;
	int32		shard;
	StreamShardWrite *sw;
	const PkInput *pk;
	const struct varlena *none; /* no cell */
} StreamSplitPut;

/*
 * stream_split_page: the first page of the row's cells is its PUT_ROW, each
 * later page an UPDATE_ROW that puts them (versions of a column a page
 * ended inside come in the next)
 */
static void
stream_split_page(const struct varlena *page, bool first, void *arg)
{
	StreamSplitPut *p = arg;
	CellsReader none;
	CellsReader after;

	cells_reader_init(&after, page);
	cells_reader_init(&none, p->none);
	stream_write_record(p->t, p->shard, p->sw, p->pk, first ? STREAM_PUT_ROW : STREAM_UPDATE_ROW,
						NULL, first ? NULL : &none, NULL, &after, page);
}

/*
 * stream_write_change makes the records of a change of a table with a
 * stream (called by storage_write): one per row, in the shard of the
 * leaf written; a split row's head that plain SQL inserts, its chunks
 * stored before it in the transaction (a copy of a table, chunk relation
 * first), one per page of its cells.  A TRUNCATE is refused: it would
 * change rows no record could name.  Purge's changes and copies of changes
 * made elsewhere never come here (storage_write_change_kind).
 */
void
stream_write_change(const StorageWrite *w, const AttrNumber *key_attnos)
{
	const OtsTable *t = w->table;
	MemoryContext rowcxt;
	MemoryContext oldcxt;
	StreamShardWrite *sw;
	int32		shard;

	if (w->callback == STORAGE_CB_TRUNCATE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot truncate a partition of ots table %s, which has a stream",
						quote_qualified_identifier(t->schema_name, t->table_name)),
				 errhint("Delete its rows (DELETE, ots.delete_row), which the stream records.")));
	if (w->callback == STORAGE_CB_ATTACH && w->nrows > 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot attach a partition holding rows to ots table %s, which has a stream",
						quote_qualified_identifier(t->schema_name, t->table_name)),
				 errdetail("Rows that join the table with ATTACH PARTITION would have no record in the stream."),
				 errhint("Attach it empty, then insert its rows into the storage table, which the stream records.")));
	if (w->nrows == 0)
		return;
	shard = stream_shard_of_leaf(t, RelationGetRelid(w->leaf));
	sw = stream_shard_write(t, shard);

	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "ots stream record", ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(rowcxt);
	for (int i = 0; i < w->nrows; i++)
	{
		struct varlena *old_cells;
		struct varlena *new_cells;
		CellsReader before;
		CellsReader after;
		CellsReader original;
		StreamAction action;
		PkInput		pk;

		storage_write_row_cells(w, i, &old_cells, &new_cells);
		stream_row_key(w, key_attnos, i, &pk);
		if (old_cells == NULL && new_cells != NULL && cells_is_head(new_cells))
		{
			StreamSplitPut p = {t, shard, sw, &pk,
			cells_builder_finish(cells_builder_create(0), 0)};
			Snapshot	snapshot = RegisterSnapshot(GetLatestSnapshot());

			rowsplit_pages(t, new_cells, STREAM_SPLIT_PAGE_BYTES, snapshot, stream_split_page, &p);
			UnregisterSnapshot(snapshot);
			MemoryContextReset(rowcxt);
			continue;
		}
		if (old_cells != NULL)
		{
			cells_reader_init(&before, old_cells);
			cells_reader_init(&original, stream_original_cells(t, old_cells));
		}
		if (new_cells != NULL)
			cells_reader_init(&after, new_cells);
		if (new_cells == NULL)
			action = STREAM_DELETE_ROW;
		else if (w->change != NULL)
			action = w->change->action;
		else if (old_cells == NULL)
			action = STREAM_PUT_ROW;
		else
			action = STREAM_UPDATE_ROW;
		stream_write_record(t, shard, sw, &pk, action, w->change != NULL ? w->change->update : NULL,
							old_cells != NULL ? &before : NULL, old_cells != NULL ? &original : NULL,
							new_cells != NULL ? &after : NULL, new_cells);
		MemoryContextReset(rowcxt);
	}
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(rowcxt);
}

/* stream_entry_records: the buffered records of a shard, as datums (*n of them) */
static Datum *
stream_entry_records(StreamShardWrite *sw, int *n)
{
	Datum	   *records = palloc(sizeof(Datum) * Max(list_length(sw->buffered), 1));
	ListCell   *lc;

	*n = 0;
	foreach(lc, sw->buffered)
		records[(*n)++] = JsonbPGetDatum(((StreamBuffered *) lfirst(lc))->record);
	return records;
}

/*
 * stream_commit_positions gives the committing transaction its position
 * in each shard it wrote: under the shard's lock, the next position after
 * the last given, in a log entry with its records.  A stream dropped or
 * replaced since its records were written gets none, nor does a shard all
 * of whose records were rolled back.
 */
static void
stream_commit_positions(void)
{
	ListCell   *lc;

	foreach(lc, shard_writes)
	{
		StreamShardWrite *sw = lfirst(lc);
		const OtsTable *t;
		StreamRels	rels;
		Datum	   *records;
		int			nrecords;
		ArrayType  *array;
		int64		now;
		int64		position;

		if (sw->buffered == NIL && sw->spilled == 0)
			continue;
		t = catalog_lookup_by_data_oid(sw->data_oid);
		if (t == NULL || !t->stream_enabled || t->stream_log_oid != sw->log_oid)
			continue;
		records = stream_entry_records(sw, &nrecords);
		array = stream_log_records(records, nrecords);
		stream_open_log(t, RowExclusiveLock, &rels);
		stream_shard_lock(t, sw->shard, ExclusiveLock);
		now = stream_now();
		position = Max(now, stream_log_last(&rels, sw->shard, now) + 1);
		stream_log_insert(&rels, sw->shard, position, sw->id, sw->spilled, array);
		stream_shard_unlock(t, sw->shard, ExclusiveLock);
		stream_close(&rels);
	}
	shard_writes = NIL;
	buffered_total = 0;
}

static void
stream_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			stream_commit_positions();
			break;
		case XACT_EVENT_PARALLEL_PRE_COMMIT:
			break;
		default:
			shard_writes = NIL;
			buffered_total = 0;
			break;
	}
}

/*
 * A subtransaction that rolls back drops the records it wrote, and those
 * of the subtransactions inside it: every one that began after it.
 */
static void
stream_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	/* records the subtransaction could not write out (older ones were kept) now may be */
	if (event == SUBXACT_EVENT_PRE_COMMIT_SUB)
	{
		if (buffered_total > STREAM_BUFFER_BYTES)
			stream_spill_all(parentSubid);
		return;
	}
	if (event != SUBXACT_EVENT_ABORT_SUB)
		return;
	foreach(lc, shard_writes)
	{
		StreamShardWrite *sw = lfirst(lc);
		ListCell   *bc;

		/* those written before it began are older: sw->oldest_subid stays right */
		foreach(bc, sw->buffered)
		{
			StreamBuffered *b = lfirst(bc);

			if (b->subid >= mySubid)
			{
				stream_free_buffered(b);
				sw->buffered = foreach_delete_current(sw->buffered, bc);
			}
		}
	}
}
