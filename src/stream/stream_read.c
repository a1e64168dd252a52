/*-------------------------------------------------------------------------
 * src/stream/stream_read.c
 *	  The reading side of Stream: ots.get_shard_iterator and
 *	  ots.get_stream_record.
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
 * A record is kept stream_expiration_hours after its commit at least;
 * ots.purge removes it after that (ots.stream_trim, stream_trim.c),
 * leaving a trim marker.  Reading from an iterator whose next records were
 * removed (a marker at or after it, before or while the call reads) is
 * OTSTrimmedDataAccess: the consumer fell behind.  ots.get_shard_iterator gives an iterator at the
 * oldest record not yet expired, which a purge that runs meanwhile may
 * still remove (then OTSTrimmedDataAccess again: take another).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "meta/catalog.h"
#include "format/codec.h"
#include "errors.h"
#include "ots_limits.h"
#include "store/rowstore.h"
#include "stream/stream_record.h"
#include "stream/stream_storage.h"

PG_FUNCTION_INFO_V1(ots_get_shard_iterator);
PG_FUNCTION_INFO_V1(ots_get_stream_record);

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

	if (catalog_stream_id_valid(stream_id, strlen(stream_id)))
	{
		args[0] = CStringGetTextDatum(stream_id);
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		/* the name as the row functions take it: schema quoted, table name as it is */
		if (SPI_execute_with_args("SELECT pg_catalog.quote_ident(t.schema_name) OPERATOR(pg_catalog.||) '.'"
								  " OPERATOR(pg_catalog.||) t.table_name"
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

/* stream_parse_number reads a decimal number in [0, max] up to the next ':' or the end */
static bool
stream_parse_number(const char **s, int64 max, int64 *out)
{
	const char *p = *s;
	int64		v = 0;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++)
	{
		if (v > (max - (*p - '0')) / 10)
			return false;
		v = v * 10 + (*p - '0');
	}
	if (*p != ':' && *p != '\0')
		return false;
	*s = p;
	*out = v;
	return true;
}

/* stream_parse_iterator reads a shard iterator, or raises Tablestore's error for a malformed one */
static void
stream_parse_iterator(const char *s, StreamIterator *it)
{
	const char *colon = strchr(s, ':');
	const char *p;
	int64		shard;
	int64		n;

	if (colon == NULL || !catalog_stream_id_valid(s, colon - s))
		ots_error(PARAMETER_INVALID, "Invalid shard iterator.");
	p = colon + 1;
	if (!stream_parse_number(&p, PG_INT32_MAX, &shard) || *p++ != ':' ||
		!stream_parse_number(&p, PG_INT64_MAX, &it->position) || *p++ != ':' ||
		!stream_parse_number(&p, PG_INT32_MAX, &n) || *p != '\0')
		ots_error(PARAMETER_INVALID, "Invalid shard iterator.");
	memcpy(it->stream_id, s, colon - s);
	it->stream_id[colon - s] = '\0';
	it->shard = (int32) shard;
	it->n = (int32) n;
}

static text *
stream_format_iterator(const StreamIterator *it)
{
	return cstring_to_text(psprintf("%s:%d:" INT64_FORMAT ":%d", it->stream_id, it->shard,
									it->position, it->n));
}

static void
stream_trimmed(void)
{
	ots_error(TRIMMED_DATA_ACCESS, STREAM_TRIMMED_MESSAGE);
}

/*
 * stream_trimmed_from: did purge remove entries of the shard at or after
 * position?  Its trim marker (the shard's first entry) says how far it
 * removed them.
 */
static bool
stream_trimmed_from(StreamRels *r, Snapshot snapshot, TupleTableSlot *slot, int32 shard,
					int64 position)
{
	IndexScanDesc scan = stream_log_scan(r, snapshot, shard, PG_INT64_MIN);
	bool		trimmed = false;

	if (index_getnext_slot(scan, ForwardScanDirection, slot))
		trimmed = DatumGetInt64(stream_datum(slot, STREAM_LOG_ID)) == STREAM_TRIM_MARKER &&
			DatumGetInt64(stream_datum(slot, STREAM_LOG_POSITION)) >= position;
	index_endscan(scan);
	return trimmed;
}

/* stream_push_sequence_info appends a record's sequence info and ends the record */
static void
stream_push_sequence_info(JsonbParseState **state, int64 position, int32 n)
{
	codec_push_key(state, CODEC_KEY("sequence_info"));
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	codec_push_key(state, CODEC_KEY("epoch"));
	codec_push_int(state, 0, WJB_VALUE);
	codec_push_key(state, CODEC_KEY("timestamp"));
	codec_push_int(state, position, WJB_VALUE);
	codec_push_key(state, CODEC_KEY("row_index"));
	codec_push_int(state, n, WJB_VALUE);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/*
 * stream_push_entry_record appends a stored record (stream_record.c) in
 * Tablestore's shape, with its sequence info; returns about how many bytes
 * it takes in the result
 */
static Size
stream_push_entry_record(JsonbParseState **state, JsonbContainer *record, int64 position, int32 n)
{
	Size		size;

	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	size = stream_record_push(state, record);
	stream_push_sequence_info(state, position, n);
	return size;
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
	{
		char	   *id = text_to_cstring(PG_GETARG_TEXT_PP(0));

		if (strlen(id) >= sizeof(it.stream_id))
			ots_error(PARAMETER_INVALID, "Invalid stream id: '%s'.", id);
		strlcpy(it.stream_id, id, sizeof(it.stream_id));
	}
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
	if (index_getnext_slot(scan, ForwardScanDirection, slot) &&
		DatumGetInt64(stream_datum(slot, STREAM_LOG_ID)) == STREAM_TRIM_MARKER)
		start = Max(start, DatumGetInt64(stream_datum(slot, STREAM_LOG_POSITION)) + 1);
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	stream_close(&rels);
	it.position = start;
	it.n = 0;
	PG_RETURN_TEXT_P(stream_format_iterator(&it));
}

/* what one get_stream_record call has gathered */
typedef struct StreamReadResult
{
	JsonbParseState *state;		/* the result being built */
	MemoryContext cxt;			/* holds it, and the records it points into */
	int64		limit;
	int64		count;
	Size		bytes;
	StreamIterator next;		/* where the next call begins */
} StreamReadResult;

/*
 * stream_read_add appends record n of the entry at position (a copy in
 * the result's context, made from stored), or, when the result is full,
 * makes the next call begin at it and returns false
 */
static bool
stream_read_add(StreamReadResult *res, Datum stored, int64 position, int32 n)
{
	MemoryContext old;
	Jsonb	   *record;

	if (res->count >= res->limit || res->bytes >= OTS_MAX_STREAM_BYTES)
	{
		res->next.position = position;
		res->next.n = n;
		return false;
	}
	old = MemoryContextSwitchTo(res->cxt);
	record = (Jsonb *) PG_DETOAST_DATUM_COPY(stored);
	res->bytes += stream_push_entry_record(&res->state, &record->root, position, n);
	MemoryContextSwitchTo(old);
	res->count++;
	return true;
}

/*
 * stream_read_entry appends the records of the log entry in log_slot from
 * record from on: a large transaction's first ones (below spilled) from
 * the records relation, the others from the entry.  false when the result
 * filled up before its last.
 */
static bool
stream_read_entry(StreamReadResult *res, StreamRels *rels, Snapshot snapshot,
				  TupleTableSlot *log_slot, TupleTableSlot *rec_slot, int32 shard, int32 from)
{
	int64		position = DatumGetInt64(stream_datum(log_slot, STREAM_LOG_POSITION));
	int64		id = DatumGetInt64(stream_datum(log_slot, STREAM_LOG_ID));
	int32		spilled = DatumGetInt32(stream_datum(log_slot, STREAM_LOG_SPILLED));
	ArrayType  *records;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	bool		done = true;

	if (spilled > from)
	{
		IndexScanDesc rec_scan = stream_rec_scan(rels, snapshot, shard, id, from);

		while (done && index_getnext_slot(rec_scan, ForwardScanDirection, rec_slot))
		{
			int32		n = DatumGetInt32(stream_datum(rec_slot, STREAM_REC_N));

			if (n >= spilled)
				break;
			done = stream_read_add(res, stream_datum(rec_slot, STREAM_REC_RECORD), position, n);
		}
		index_endscan(rec_scan);
		if (!done)
			return false;
	}
	records = DatumGetArrayTypeP(stream_datum(log_slot, STREAM_LOG_RECORDS));
	deconstruct_array(records, JSONBOID, -1, false, TYPALIGN_INT, &elems, &nulls, &nelems);
	for (int i = Max(from - spilled, 0); i < nelems; i++)
		if (!nulls[i] && !stream_read_add(res, elems[i], position, spilled + i))
			return false;
	return true;
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
	StreamReadResult res = {0};
	const OtsTable *t;
	StreamRels	rels;
	SnapshotData dirty;
	IndexScanDesc log_scan;
	TupleTableSlot *log_slot;
	TupleTableSlot *rec_slot;
	MemoryContext entrycxt;
	MemoryContext oldcxt;
	int64		last;
	JsonbValue	v;
	text	   *next;

	if (PG_ARGISNULL(0))
		ots_error(PARAMETER_INVALID, "Parameter shard_iterator is missing.");
	stream_parse_iterator(text_to_cstring(PG_GETARG_TEXT_PP(0)), &it);
	res.limit = STREAM_DEFAULT_RECORDS;
	if (!PG_ARGISNULL(1))
	{
		res.limit = PG_GETARG_INT32(1);
		if (res.limit <= 0)
			ots_error(PARAMETER_INVALID, "The limit must be greater than 0.");
		res.limit = Min(res.limit, OTS_MAX_STREAM_RECORDS);
	}
	t = stream_table(it.stream_id);
	if (it.shard >= t->partitions)
		ots_error(PARAMETER_INVALID, "Invalid shard id: '%d'.", it.shard);
	res.next = it;

	stream_open(t, AccessShareLock, &rels);
	/* every position up to the last given is in the log's index once its lock is free */
	stream_shard_lock(t, it.shard, ShareLock);
	last = stream_log_last(&rels, it.shard, stream_now());
	stream_shard_unlock(t, it.shard, ShareLock);

	InitDirtySnapshot(dirty);
	log_slot = table_slot_create(rels.log, NULL);
	rec_slot = table_slot_create(rels.rec, NULL);
	/* records from the iterator on removed by purge: the consumer fell behind */
	if (stream_trimmed_from(&rels, &dirty, log_slot, it.shard, it.position))
		stream_trimmed();
	res.cxt = AllocSetContextCreate(CurrentMemoryContext, "ots stream read", ALLOCSET_DEFAULT_SIZES);
	entrycxt = AllocSetContextCreate(CurrentMemoryContext, "ots stream entry", ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(res.cxt);
	pushJsonbValue(&res.state, WJB_BEGIN_OBJECT, NULL);
	codec_push_key(&res.state, CODEC_KEY("stream_records"));
	pushJsonbValue(&res.state, WJB_BEGIN_ARRAY, NULL);
	MemoryContextSwitchTo(oldcxt);
	log_scan = stream_log_scan(&rels, &dirty, it.shard, it.position);
	while (index_getnext_slot(log_scan, ForwardScanDirection, log_slot))
	{
		int64		position = DatumGetInt64(stream_datum(log_slot, STREAM_LOG_POSITION));

		CHECK_FOR_INTERRUPTS();
		if (position > last)
			break;				/* given after this call began: the next call reads it */
		/* a transaction still committing: what follows waits for it */
		if (TransactionIdIsValid(dirty.xmin))
			break;
		/* a purge that began after this call: the check below reports it */
		if (DatumGetInt64(stream_datum(log_slot, STREAM_LOG_ID)) == STREAM_TRIM_MARKER)
			break;
		/* what an entry's reading leaves behind goes with it */
		MemoryContextSwitchTo(entrycxt);
		if (!stream_read_entry(&res, &rels, &dirty, log_slot, rec_slot, it.shard,
							   position == it.position ? it.n : 0))
			break;
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(entrycxt);
		res.next.position = position + 1;
		res.next.n = 0;
	}
	MemoryContextSwitchTo(oldcxt);
	index_endscan(log_scan);
	/*
	 * a purge that committed during the scan removed entries it skipped as
	 * gone: not records to pass over, but a consumer that fell behind
	 */
	if (stream_trimmed_from(&rels, &dirty, log_slot, it.shard, it.position))
		stream_trimmed();
	ExecDropSingleTupleTableSlot(log_slot);
	ExecDropSingleTupleTableSlot(rec_slot);
	stream_close(&rels);

	MemoryContextSwitchTo(res.cxt);
	pushJsonbValue(&res.state, WJB_END_ARRAY, NULL);
	codec_push_key(&res.state, CODEC_KEY("next_shard_iterator"));
	next = stream_format_iterator(&res.next);
	v.type = jbvString;
	v.val.string.val = VARDATA_ANY(next);
	v.val.string.len = VARSIZE_ANY_EXHDR(next);
	pushJsonbValue(&res.state, WJB_VALUE, &v);
	MemoryContextSwitchTo(oldcxt);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(pushJsonbValue(&res.state, WJB_END_OBJECT, NULL)));
}
