/*-------------------------------------------------------------------------
 * src/stream/stream_trim.c
 *	  The trimming of a stream's expired records: ots.stream_trim, run by
 *	  ots.purge.
 *
 * A record is kept stream_expiration_hours after its commit at least
 * (stream_cutoff); after that ots.purge removes its log entry and spilled
 * records, leaving a trim marker at the last position removed, which tells
 * a reader whose iterator is before it that it fell behind
 * (stream_read.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/snapmgr.h"

#include "meta/catalog.h"
#include "errors.h"
#include "store/rowstore.h"
#include "meta/storage.h"
#include "stream/stream_storage.h"

PG_FUNCTION_INFO_V1(ots_stream_trim);

/* stream_trim_records deletes the records of one transaction in a shard */
static void
stream_trim_records(StreamRels *r, Snapshot snapshot, TupleTableSlot *slot, int32 shard, int64 id)
{
	IndexScanDesc scan = stream_rec_scan(r, snapshot, shard, id, 0);

	while (index_getnext_slot(scan, ForwardScanDirection, slot))
		simple_heap_delete(r->rec, &slot->tts_tid);
	index_endscan(scan);
}

/*
 * ots_stream_trim is ots.stream_trim(schema_name, table_name, batch_size):
 * removes up to batch_size expired log entries of each shard of the
 * table's stream and their records, leaving a trim marker at the last
 * position removed, so an iterator before it is OTSTrimmedDataAccess.
 * Returns the number of entries removed.  The caller must own the table
 * (ots.purge checks it, and takes the purge lock).
 */
Datum
ots_stream_trim(PG_FUNCTION_ARGS)
{
	const OtsTable *t;
	StreamRels	rels;
	Snapshot	snapshot;
	TupleTableSlot *log_slot;
	TupleTableSlot *rec_slot;
	int64		cutoff;
	int64		removed = 0;
	int32		batch_size;
	char	   *qualified;
	Oid			data_oid;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("ots.stream_trim: arguments must not be NULL")));
	batch_size = PG_GETARG_INT32(2);
	if (batch_size < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch_size must be at least 1")));
	qualified = quote_qualified_identifier(NameStr(*PG_GETARG_NAME(0)), NameStr(*PG_GETARG_NAME(1)));
	data_oid = storage_oid(get_namespace_oid(NameStr(*PG_GETARG_NAME(0)), true), NameStr(*PG_GETARG_NAME(1)));
	t = OidIsValid(data_oid) ? catalog_lookup_by_data_oid(data_oid) : NULL;
	if (t == NULL)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	if (!catalog_owns(t->data_oid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of ots table %s to trim its stream", qualified)));
	if (!t->stream_enabled)
		PG_RETURN_INT64(0);
	rowstore_check_writable("ots.stream_trim");
	cutoff = stream_cutoff(t);
	stream_open(t, RowExclusiveLock, &rels);
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	log_slot = table_slot_create(rels.log, NULL);
	rec_slot = table_slot_create(rels.rec, NULL);
	for (int32 shard = 0; shard < t->partitions; shard++)
	{
		IndexScanDesc scan = stream_log_scan(&rels, snapshot, shard, 0);
		int64		last_removed = -1;
		int32		entries = 0;
		ItemPointerData marker_tid;
		int64		marker_position = 0;
		bool		marker = false;
		Datum		no_records = (Datum) 0;

		while (entries < batch_size && index_getnext_slot(scan, ForwardScanDirection, log_slot))
		{
			int64		position = DatumGetInt64(stream_datum(log_slot, STREAM_LOG_POSITION));
			int64		id = DatumGetInt64(stream_datum(log_slot, STREAM_LOG_ID));

			CHECK_FOR_INTERRUPTS();
			if (position >= cutoff)
				break;
			/* the marker comes first: it goes only if entries after it go */
			if (id == STREAM_TRIM_MARKER)
			{
				marker_tid = log_slot->tts_tid;
				marker_position = position;
				marker = true;
				continue;
			}
			if (DatumGetInt32(stream_datum(log_slot, STREAM_LOG_SPILLED)) > 0)
				stream_trim_records(&rels, snapshot, rec_slot, shard, id);
			simple_heap_delete(rels.log, &log_slot->tts_tid);
			last_removed = position;
			entries++;
		}
		index_endscan(scan);
		if (entries > 0)
		{
			/*
			 * never back: an entry that was still committing (a prepared
			 * transaction) can be removed after later ones were
			 */
			if (marker)
			{
				simple_heap_delete(rels.log, &marker_tid);
				last_removed = Max(last_removed, marker_position);
			}
			stream_log_insert(&rels, shard, last_removed, STREAM_TRIM_MARKER, 0,
							  stream_log_records(&no_records, 0));
		}
		removed += entries;
	}
	ExecDropSingleTupleTableSlot(log_slot);
	ExecDropSingleTupleTableSlot(rec_slot);
	UnregisterSnapshot(snapshot);
	stream_close(&rels);
	PG_RETURN_INT64(removed);
}
