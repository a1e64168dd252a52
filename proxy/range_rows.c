/*
 * range_rows.c: ots.get_range_rows on the proxy, a streaming merge of the
 * shards' pages (ots_cluster.range_rows, value per call).  It holds one
 * page per shard (range_fetch.c), returns the row that comes first in the
 * range's order among the shards' current rows (range_key.c), skips the
 * same key on another shard (a partition being moved is briefly on two
 * shards, its copies identical), reads a shard's next page when its page is
 * used up, and stops at the limit or when every shard is done.  Nothing
 * holds the rows returned: a long range streams in the memory of one page
 * per shard, and a caller that stops reading stops the reads.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "range_fetch.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(ots_range_rows);

/* the state of one get_range_rows between its calls */
typedef struct RangeRowsState
{
	RangeRequest req;
	bool		started;		/* the first pages were read */
	bool		limited;		/* a limit was given */
	int64		remaining;		/* rows still to return under it */
	bool	   *want;			/* the shards to read next */
	MemoryContext fetch_ctx;	/* a fetch's temporaries */
} RangeRowsState;

/*
 * range_rows_fill reads pages until every shard not done has a current row
 * (a shard may send an empty page that is not its last: a filter, or its
 * scan cap).
 */
static void
range_rows_fill(RangeRowsState *st)
{
	RangeRequest *req = &st->req;

	for (;;)
	{
		bool		any = false;
		MemoryContext old;

		for (int i = 0; i < req->nshards; i++)
		{
			RangeShard *s = &req->shards[i];

			st->want[i] = !st->started || (s->pos >= s->nrows && !s->done);
			any |= st->want[i];
		}
		if (!any)
			return;
		CHECK_FOR_INTERRUPTS();
		old = MemoryContextSwitchTo(st->fetch_ctx);
		range_fetch(req, st->want, st->remaining, st->limited);
		MemoryContextSwitchTo(old);
		MemoryContextReset(st->fetch_ctx);
		st->started = true;
	}
}

/*
 * ots_range_rows is ots_cluster.range_rows(table_name, ..., end_column),
 * with get_range's arguments: the range's rows, merged over the shards in
 * the stored key order, one per key, as (primary_key, attributes).
 */
Datum
ots_range_rows(PG_FUNCTION_ARGS)
{
	FuncCallContext *fc;
	RangeRowsState *st;
	RangeRequest *req;
	RangeShard *first;
	RangeRow   *row;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		TupleDesc	desc;

		fc = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(fc->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "ots_proxy: ots_cluster.range_rows must return a composite type");
		fc->tuple_desc = BlessTupleDesc(desc);
		st = palloc0(sizeof(RangeRowsState));
		range_request_start(&st->req, fcinfo);
		st->limited = !PG_ARGISNULL(4);
		st->remaining = st->limited ? PG_GETARG_INT32(4) : 0;
		st->want = palloc0(sizeof(bool) * Max(st->req.nshards, 1));
		st->fetch_ctx = AllocSetContextCreate(fc->multi_call_memory_ctx, "ots_proxy range fetch",
											  ALLOCSET_DEFAULT_SIZES);
		fc->user_fctx = st;
		MemoryContextSwitchTo(old);
	}
	fc = SRF_PERCALL_SETUP();
	st = fc->user_fctx;
	req = &st->req;

	/* the first call reads whatever the limit, so the shards check the request */
	if (!st->limited || st->remaining > 0 || !st->started)
		range_rows_fill(st);
	if (st->limited && st->remaining <= 0)
		SRF_RETURN_DONE(fc);
	first = range_first_shard(req);
	if (first == NULL)
		SRF_RETURN_DONE(fc);
	/* the row stays in its page until the next call reads that shard again */
	row = &first->rows[first->pos];
	range_advance(req, first);
	st->remaining--;
	nulls[0] = !row->has_pk;
	values[0] = nulls[0] ? (Datum) 0 : JsonbPGetDatum(JsonbValueToJsonb(&row->pk));
	nulls[1] = !row->has_attrs;
	values[1] = nulls[1] ? (Datum) 0 : JsonbPGetDatum(JsonbValueToJsonb(&row->attrs));
	SRF_RETURN_NEXT(fc, HeapTupleGetDatum(heap_form_tuple(fc->tuple_desc, values, nulls)));
}
