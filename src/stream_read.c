/*-------------------------------------------------------------------------
 * src/stream_read.c
 *	  The reading side of Stream: ots.get_shard_iterator,
 *	  ots.get_stream_record, and the trimming of expired records
 *	  (ots.stream_trim, run by ots.purge).
 *
 * A shard iterator is "<stream id>:<shard>:<position>:<n>": the next record
 * to return is the first at or after record n of the log entry at
 * position.  A consumer that keeps the next_shard_iterator of each call
 * and passes it to the next reads every record of its shard once, in
 * commit order, across sessions and reconnects.  A call returns records
 * of log entries up to the last position given when it starts, and stops
 * at an entry whose transaction is still committing; the iterator it
 * returns never passes an entry it did not see committed
 * (stream_storage.h says why that is enough).
 *
 * Records expire stream_expiration_hours after their commit.  An iterator
 * whose next record has expired, or was removed (a trim marker at or after
 * it), is OTSTrimmedDataAccess; ots.get_shard_iterator gives one at the
 * oldest record kept.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/genam.h"
#include "access/heapam.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "catalog.h"
#include "codec.h"
#include "errors.h"
#include "ots_limits.h"
#include "rowstore.h"
#include "stream_storage.h"

PG_FUNCTION_INFO_V1(ots_get_shard_iterator);
PG_FUNCTION_INFO_V1(ots_get_stream_record);
PG_FUNCTION_INFO_V1(ots_stream_trim);

#define STREAM_DEFAULT_RECORDS 100
#define STREAM_TRIMMED_MESSAGE "Requested stream data is already trimmed or does not exist."

/* a position in a shard: the next record is the first at or after record n of entry position */
typedef struct StreamIterator
{
	char		stream_id[NAMEDATALEN];
	int32		shard;
	int64		position;
	int32		n;
} StreamIterator;

static const char *
stream_action_name(char action)
{
	switch (action)
	{
		case 'P':
			return "PUT_ROW";
		case 'U':
			return "UPDATE_ROW";
		case 'D':
			return "DELETE_ROW";
	}
	return "UNKNOWN";
}

/* stream_id_valid: could s be a stream id ots made (a UUID's text)? */
static bool
stream_id_valid(const char *s, size_t len)
{
	return len > 0 && len < NAMEDATALEN && strspn(s, "0123456789abcdef-") == len;
}

/*
 * stream_table finds the table whose stream is stream_id among the tables
 * the current role may see (ots.tables shows no others), and checks that
 * the role may read it: SELECT on its storage, and no row-level security
 * applying to it.  An unknown stream (a table deleted, a stream disabled
 * or enabled again since) is Tablestore's invalid stream id.
 */
static const OtsTable *
stream_table(const char *stream_id)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	text	   *name = NULL;
	const OtsTable *t = NULL;

	if (stream_id_valid(stream_id, strlen(stream_id)))
	{
		args[0] = CStringGetTextDatum(stream_id);
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		if (SPI_execute_with_args("SELECT pg_catalog.quote_ident(t.schema_name) OPERATOR(pg_catalog.||) '.'"
								  " OPERATOR(pg_catalog.||) pg_catalog.quote_ident(t.table_name)"
								  " FROM ots.tables t WHERE t.stream_id OPERATOR(pg_catalog.=) $1",
								  1, argtypes, args, NULL, true, 1) == SPI_OK_SELECT &&
			SPI_processed == 1)
		{
			char	   *qualified = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

			if (qualified != NULL)
			{
				MemoryContext old = MemoryContextSwitchTo(CurTransactionContext);

				name = cstring_to_text(qualified);
				MemoryContextSwitchTo(old);
			}
		}
		SPI_finish();
	}
	if (name != NULL)
		t = catalog_lookup_quiet(name);
	if (t == NULL || !t->stream_enabled || strcmp(t->stream_id, stream_id) != 0)
		ots_error(PARAMETER_INVALID, "Invalid stream id: '%s'.", stream_id);
	rowstore_check_privileges(t, ACL_SELECT);
	return t;
}

/* stream_parse_shard reads a shard id: a partition's number */
static int32
stream_parse_shard(const OtsTable *t, const char *s)
{
	char	   *end;
	long		shard;

	errno = 0;
	shard = strtol(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || shard < 0 || shard >= t->partitions ||
		(s[0] == '0' && s[1] != '\0'))
		ots_error(PARAMETER_INVALID, "Invalid shard id: '%s'.", s);
	return (int32) shard;
}

/* stream_parse_iterator reads a shard iterator, or raises Tablestore's error for a malformed one */
static void
stream_parse_iterator(const char *s, StreamIterator *it)
{
	const char *colon = strchr(s, ':');
	long long	position;
	int			shard;
	int			n;
	int			used = 0;

	if (colon == NULL || !stream_id_valid(s, colon - s) ||
		sscanf(colon, ":%d:%lld:%d%n", &shard, &position, &n, &used) != 3 ||
		colon[used] != '\0' || shard < 0 || position < 0 || n < 0)
		ots_error(PARAMETER_INVALID, "Invalid shard iterator.");
	memcpy(it->stream_id, s, colon - s);
	it->stream_id[colon - s] = '\0';
	it->shard = shard;
	it->position = position;
	it->n = n;
}

static text *
stream_format_iterator(const StreamIterator *it)
{
	return cstring_to_text(psprintf("%s:%d:" INT64_FORMAT ":%d", it->stream_id, it->shard,
									it->position, it->n));
}

/* stream_cutoff: the position before which t's records have expired */
static int64
stream_cutoff(const OtsTable *t)
{
	return stream_now() - (int64) t->stream_expiration_hours * 3600 * USECS_PER_SEC;
}

static void
stream_trimmed(void)
{
	ots_error(TRIMMED_DATA_ACCESS, STREAM_TRIMMED_MESSAGE);
}

/* stream_log_scan starts a scan of the shard's log entries from position on */
static IndexScanDesc
stream_log_scan(StreamRels *r, Snapshot snapshot, int32 shard, int64 position)
{
	ScanKeyData keys[2];
	IndexScanDesc scan;

	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(shard));
	ScanKeyInit(&keys[1], 2, BTGreaterEqualStrategyNumber, F_INT8GE, Int64GetDatum(position));
	scan = index_beginscan(r->log, r->log_key, snapshot, 2, 0);
	index_rescan(scan, keys, 2, NULL, 0);
	return scan;
}

/* stream_rec_scan starts a scan of a transaction's records in a shard from record n on */
static IndexScanDesc
stream_rec_scan(StreamRels *r, Snapshot snapshot, int32 shard, int64 txn, int32 n)
{
	ScanKeyData keys[3];
	IndexScanDesc scan;

	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(shard));
	ScanKeyInit(&keys[1], 2, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(txn));
	ScanKeyInit(&keys[2], 3, BTGreaterEqualStrategyNumber, F_INT4GE, Int32GetDatum(n));
	scan = index_beginscan(r->rec, r->rec_key, snapshot, 3, 0);
	index_rescan(scan, keys, 3, NULL, 0);
	return scan;
}

/* stream_push_jsonb appends a stored jsonb as a value */
static void
stream_push_jsonb(JsonbParseState **state, Datum d)
{
	Jsonb	   *j = DatumGetJsonbP(d);
	JsonbValue	v;

	v.type = jbvBinary;
	v.val.binary.data = &j->root;
	v.val.binary.len = VARSIZE(j) - VARHDRSZ;
	pushJsonbValue(state, WJB_VALUE, &v);
}

/* stream_push_record appends one record in Tablestore's shape, with its sequence info */
static void
stream_push_record(JsonbParseState **state, TupleTableSlot *rec, int64 position, int32 n)
{
	bool		isnull;
	JsonbValue	v;

	slot_getallattrs(rec);
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	codec_push_key(state, "action_type", 11);
	v.type = jbvString;
	v.val.string.val = (char *) stream_action_name(DatumGetChar(slot_getattr(rec, STREAM_REC_ACTION,
																			 &isnull)));
	v.val.string.len = strlen(v.val.string.val);
	pushJsonbValue(state, WJB_VALUE, &v);
	codec_push_key(state, "primary_key", 11);
	stream_push_jsonb(state, slot_getattr(rec, STREAM_REC_PK, &isnull));
	codec_push_key(state, "columns", 7);
	stream_push_jsonb(state, slot_getattr(rec, STREAM_REC_COLUMNS, &isnull));
	codec_push_key(state, "sequence_info", 13);
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	codec_push_key(state, "epoch", 5);
	codec_push_int(state, 0, WJB_VALUE);
	codec_push_key(state, "timestamp", 9);
	codec_push_int(state, position, WJB_VALUE);
	codec_push_key(state, "row_index", 9);
	codec_push_int(state, n, WJB_VALUE);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/*
 * ots_get_shard_iterator is ots.get_shard_iterator(stream_id, shard_id,
 * "timestamp"): an iterator at the oldest record kept, or at the first
 * committed at or after timestamp (ms) if that is later.
 */
Datum
ots_get_shard_iterator(PG_FUNCTION_ARGS)
{
	StreamIterator it;
	const OtsTable *t;
	StreamRels	rels;
	SnapshotData dirty;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	int64		start;

	if (PG_ARGISNULL(0))
		ots_error(PARAMETER_INVALID, "Parameter stream_id is missing.");
	if (PG_ARGISNULL(1))
		ots_error(PARAMETER_INVALID, "Parameter shard_id is missing.");
	text_to_cstring_buffer(PG_GETARG_TEXT_PP(0), it.stream_id, sizeof(it.stream_id));
	t = stream_table(it.stream_id);
	it.shard = stream_parse_shard(t, text_to_cstring(PG_GETARG_TEXT_PP(1)));
	start = stream_cutoff(t);
	if (!PG_ARGISNULL(2))
	{
		int64		ts = PG_GETARG_INT64(2);

		if (ts < 0 || ts >= OTS_MAX_TIMESTAMP)
			ots_error(PARAMETER_INVALID, "Timestamp must be in range [0, INT64_MAX/1000).");
		start = Max(start, ts * 1000);
	}
	/* a trim marker later than that (the expiration was raised since) */
	stream_open(t, AccessShareLock, &rels);
	InitDirtySnapshot(dirty);
	scan = stream_log_scan(&rels, &dirty, it.shard, 0);
	slot = table_slot_create(rels.log, NULL);
	if (index_getnext_slot(scan, ForwardScanDirection, slot))
	{
		bool		isnull;

		if (DatumGetInt64(slot_getattr(slot, STREAM_LOG_TXN, &isnull)) == STREAM_TRIM_MARKER)
			start = Max(start, DatumGetInt64(slot_getattr(slot, STREAM_LOG_POSITION, &isnull)) + 1);
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	stream_close(&rels);
	it.position = start;
	it.n = 0;
	PG_RETURN_TEXT_P(stream_format_iterator(&it));
}

/*
 * ots_get_stream_record is ots.get_stream_record(shard_iterator, "limit"):
 * up to limit records of the shard from the iterator on (100 when NULL,
 * at most OTS_MAX_STREAM_RECORDS and about OTS_MAX_STREAM_BYTES), as
 * {"stream_records": [...], "next_shard_iterator": "..."}.
 */
Datum
ots_get_stream_record(PG_FUNCTION_ARGS)
{
	StreamIterator it;
	StreamIterator next;
	const OtsTable *t;
	StreamRels	rels;
	SnapshotData dirty;
	IndexScanDesc log_scan;
	TupleTableSlot *log_slot;
	TupleTableSlot *rec_slot;
	JsonbParseState *state = NULL;
	MemoryContext reccxt;
	MemoryContext oldcxt;
	int64		limit = STREAM_DEFAULT_RECORDS;
	int64		last;
	int64		cutoff;
	int64		count = 0;
	int64		bytes = 0;
	bool		full = false;
	bool		first = true;
	JsonbValue	v;

	if (PG_ARGISNULL(0))
		ots_error(PARAMETER_INVALID, "Parameter shard_iterator is missing.");
	stream_parse_iterator(text_to_cstring(PG_GETARG_TEXT_PP(0)), &it);
	if (!PG_ARGISNULL(1))
	{
		limit = PG_GETARG_INT32(1);
		if (limit <= 0)
			ots_error(PARAMETER_INVALID, "The limit must be greater than 0.");
		limit = Min(limit, OTS_MAX_STREAM_RECORDS);
	}
	t = stream_table(it.stream_id);
	if (it.shard >= t->partitions)
		ots_error(PARAMETER_INVALID, "Invalid shard id: '%d'.", it.shard);
	next = it;

	stream_open(t, AccessShareLock, &rels);
	/* every position up to the last given is in the log's index once its lock is free */
	stream_shard_lock(t, it.shard, ShareLock);
	last = stream_log_last(&rels, it.shard);
	stream_shard_unlock(t, it.shard, ShareLock);
	cutoff = stream_cutoff(t);

	InitDirtySnapshot(dirty);
	log_slot = table_slot_create(rels.log, NULL);
	rec_slot = table_slot_create(rels.rec, NULL);
	reccxt = AllocSetContextCreate(CurrentMemoryContext, "ots stream read", ALLOCSET_DEFAULT_SIZES);
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	codec_push_key(&state, "stream_records", 14);
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	log_scan = stream_log_scan(&rels, &dirty, it.shard, it.position);
	while (!full && index_getnext_slot(log_scan, ForwardScanDirection, log_slot))
	{
		bool		isnull;
		int64		position = DatumGetInt64(slot_getattr(log_slot, STREAM_LOG_POSITION, &isnull));
		int64		txn = DatumGetInt64(slot_getattr(log_slot, STREAM_LOG_TXN, &isnull));
		IndexScanDesc rec_scan;
		int32		from;

		CHECK_FOR_INTERRUPTS();
		if (position > last)
			break;				/* given after this call began: the next call reads it */
		/* a transaction still committing: what follows waits for it */
		if (TransactionIdIsValid(dirty.xmin))
			break;
		if (first && (txn == STREAM_TRIM_MARKER || position < cutoff))
			stream_trimmed();
		first = false;
		if (txn == STREAM_TRIM_MARKER)
			continue;
		from = position == it.position ? it.n : 0;
		rec_scan = stream_rec_scan(&rels, &dirty, it.shard, txn, from);
		while (index_getnext_slot(rec_scan, ForwardScanDirection, rec_slot))
		{
			int32		n = DatumGetInt32(slot_getattr(rec_slot, STREAM_REC_N, &isnull));

			if (count >= limit || bytes >= OTS_MAX_STREAM_BYTES)
			{
				next.position = position;
				next.n = n;
				full = true;
				break;
			}
			oldcxt = MemoryContextSwitchTo(reccxt);
			stream_push_record(&state, rec_slot, position, n);
			/* the records' sizes as returned, not as stored (compressed or TOASTed) */
			bytes += toast_raw_datum_size(slot_getattr(rec_slot, STREAM_REC_PK, &isnull)) +
				toast_raw_datum_size(slot_getattr(rec_slot, STREAM_REC_COLUMNS, &isnull));
			MemoryContextSwitchTo(oldcxt);
			count++;
		}
		index_endscan(rec_scan);
		if (!full)
		{
			next.position = position + 1;
			next.n = 0;
		}
	}
	index_endscan(log_scan);
	ExecDropSingleTupleTableSlot(log_slot);
	ExecDropSingleTupleTableSlot(rec_slot);
	stream_close(&rels);

	pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	codec_push_key(&state, "next_shard_iterator", 19);
	v.type = jbvString;
	{
		text	   *iter = stream_format_iterator(&next);

		v.val.string.val = VARDATA_ANY(iter);
		v.val.string.len = VARSIZE_ANY_EXHDR(iter);
	}
	pushJsonbValue(&state, WJB_VALUE, &v);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL)));
}

/* stream_trim_records deletes the records of one transaction in a shard */
static void
stream_trim_records(StreamRels *r, Snapshot snapshot, TupleTableSlot *slot, int32 shard, int64 txn)
{
	IndexScanDesc scan = stream_rec_scan(r, snapshot, shard, txn, 0);

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
	t = catalog_lookup(cstring_to_text(qualified));
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
		bool		marker = false;

		while (entries < batch_size && index_getnext_slot(scan, ForwardScanDirection, log_slot))
		{
			bool		isnull;
			int64		position = DatumGetInt64(slot_getattr(log_slot, STREAM_LOG_POSITION, &isnull));
			int64		txn = DatumGetInt64(slot_getattr(log_slot, STREAM_LOG_TXN, &isnull));

			CHECK_FOR_INTERRUPTS();
			if (position >= cutoff)
				break;
			/* the marker comes first: it goes only if entries after it go */
			if (txn == STREAM_TRIM_MARKER)
			{
				marker_tid = log_slot->tts_tid;
				marker = true;
				continue;
			}
			stream_trim_records(&rels, snapshot, rec_slot, shard, txn);
			simple_heap_delete(rels.log, &log_slot->tts_tid);
			last_removed = position;
			entries++;
		}
		index_endscan(scan);
		if (entries > 0)
		{
			if (marker)
				simple_heap_delete(rels.log, &marker_tid);
			stream_log_insert(&rels, shard, last_removed, STREAM_TRIM_MARKER);
		}
		removed += entries;
	}
	ExecDropSingleTupleTableSlot(log_slot);
	ExecDropSingleTupleTableSlot(rec_slot);
	UnregisterSnapshot(snapshot);
	stream_close(&rels);
	PG_RETURN_INT64(removed);
}
