/*
 * range_merge.c: ots.get_range on the proxy (ots_get_range).  A range one
 * shard holds (its partition key, or a cluster of one database) passes that
 * shard's page through as it came.  Any other range reads one page of every
 * shard (range_fetch.c) and merges them into one page in the stored key
 * order (range_key.c): the rows before the cutoff, the smallest next key of
 * the shards whose page was cut (every row before it is in the pages: a
 * shard's page holds all its rows before its own next key, an uncut shard's
 * all of them), one per key (a partition being moved is briefly on two
 * shards), cut after the limit or the shards' row cap and at their byte cap
 * as ots counts a row's size (a first row always fits, as on a single
 * node).  Its next_start_primary_key is the first row cut, else the cutoff:
 * the page followed by the range from there is the whole range.  Capacity
 * units are summed over the shards.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "range_fetch.h"

PG_FUNCTION_INFO_V1(ots_get_range);

/* range_consumed_sum is {"read": r, "write": w} summed over the shards' pages */
static Jsonb *
range_consumed_sum(RangeRequest *req)
{
	static const char *const names[2] = {"read", "write"};
	int64		sums[2] = {0, 0};
	JsonbParseState *state = NULL;
	JsonbValue	v;

	for (int i = 0; i < req->nshards; i++)
		for (int k = 0; k < 2 && req->shards[i].consumed != NULL; k++)
			if (getKeyJsonValueFromContainer(&req->shards[i].consumed->root, names[k], strlen(names[k]), &v) &&
				v.type == jbvNumeric)
				sums[k] += DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(v.val.numeric)));
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int k = 0; k < 2; k++)
	{
		v.type = jbvString;
		v.val.string.val = (char *) names[k];
		v.val.string.len = strlen(names[k]);
		pushJsonbValue(&state, WJB_KEY, &v);
		v.type = jbvNumeric;
		v.val.numeric = int64_to_numeric(sums[k]);
		pushJsonbValue(&state, WJB_VALUE, &v);
	}
	return JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL));
}

/*
 * range_rows_array is the jsonb array of rows (objects in their pages),
 * written as jsonb lays an array out (convertJsonbArray in
 * PostgreSQL's utils/adt/jsonb_util.c): a header, one JEntry per element
 * (every JB_OFFSET_STRIDE'th its end offset, the others its length), then
 * each element's container, int-aligned, its padding counted in its
 * length.  The rows are copied as they are, not taken apart and put
 * together again as pushJsonbValue would.
 */
static Jsonb *
range_rows_array(RangeRow **rows, int n)
{
	Size		size = VARHDRSZ + sizeof(uint32) + sizeof(JEntry) * n;
	Size		data;
	uint32		total = 0;
	Jsonb	   *out;
	JEntry	   *entries;
	char	   *base;

	for (int i = 0; i < n; i++)
		size = INTALIGN(size) + rows[i]->row.val.binary.len;
	if (size - VARHDRSZ > JENTRY_OFFLENMASK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the merged page is too large for a jsonb array")));
	out = palloc0(size);
	SET_VARSIZE(out, size);
	out->root.header = (uint32) n | JB_FARRAY;
	entries = out->root.children;
	base = (char *) &entries[n];
	data = 0;
	for (int i = 0; i < n; i++)
	{
		Size		start = data;

		data = INTALIGN(data);	/* base is int-aligned: so is the row */
		memcpy(base + data, rows[i]->row.val.binary.data, rows[i]->row.val.binary.len);
		data += rows[i]->row.val.binary.len;
		total += data - start;
		entries[i] = JENTRY_ISCONTAINER |
			((i % JB_OFFSET_STRIDE) == 0 ? (JENTRY_HAS_OFF | total) : (data - start));
	}
	return out;
}

/*
 * range_merge_page merges req's pages into one: its rows (a jsonb array)
 * and its next_start_primary_key (NULL when the range is done).
 */
static void
range_merge_page(RangeRequest *req, bool limited, int64 limit, Jsonb **rows, Jsonb **next)
{
	RangeRow  **taken;
	int			ntaken = 0;
	int			held = 0;
	RangeRow	cutoff;
	Jsonb	   *cutoff_key = NULL;
	int64		max_rows = req->max_rows;
	int64		bytes = 0;

	for (int i = 0; i < req->nshards; i++)
		held += req->shards[i].nrows;
	taken = palloc(sizeof(RangeRow *) * Max(held, 1));

	/* the cutoff: the first next key of the shards whose page was cut */
	for (int i = 0; i < req->nshards; i++)
	{
		RangeShard *s = &req->shards[i];
		RangeRow	key;

		if (s->next == NULL)
			continue;
		range_key_parse(&req->def, &s->next->root, &key);
		if (cutoff_key == NULL || range_key_cmp(&req->def, &key, &cutoff) < 0)
		{
			cutoff = key;
			cutoff_key = s->next;
		}
	}
	if (limited && (max_rows < 0 || limit < max_rows))
		max_rows = limit;
	*next = cutoff_key;
	for (;;)
	{
		RangeShard *first = range_first_shard(req);
		RangeRow   *row;

		if (first == NULL)
			break;
		row = &first->rows[first->pos];
		if (cutoff_key != NULL && range_key_cmp(&req->def, row, &cutoff) >= 0)
			break;
		if (req->max_bytes >= 0)
			bytes += range_row_size(&req->def, row);
		if ((max_rows >= 0 && ntaken >= max_rows) ||
			(ntaken > 0 && req->max_bytes >= 0 && bytes > req->max_bytes))
		{
			/* the first row cut: where the next page starts */
			*next = row->has_pk ? JsonbValueToJsonb(&row->pk) : NULL;
			break;
		}
		taken[ntaken++] = row;
		range_advance(req, first);
	}
	*rows = range_rows_array(taken, ntaken);
}

/*
 * ots_get_range is ots.get_range(table_name, inclusive_start_primary_key,
 * exclusive_end_primary_key, direction, limit, columns_to_get,
 * max_versions, time_range, filter, with_timestamps, start_column,
 * end_column) over the shards: one page as one node holding every row
 * could return it.
 */
Datum
ots_get_range(PG_FUNCTION_ARGS)
{
	RangeRequest req;
	TupleDesc	desc;
	bool	   *want;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	Jsonb	   *rows;
	Jsonb	   *next;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ots_proxy: ots.get_range must return a composite type");
	desc = BlessTupleDesc(desc);
	range_request_start(&req, fcinfo);
	want = palloc(sizeof(bool) * Max(req.nshards, 1));
	for (int i = 0; i < req.nshards; i++)
		want[i] = true;
	range_fetch(&req, want, PG_ARGISNULL(4) ? 0 : PG_GETARG_INT32(4), !PG_ARGISNULL(4));
	if (req.nshards == 1)
	{
		/* one shard's page, as it sent it */
		RangeShard *s = &req.shards[0];

		values[0] = PointerGetDatum(s->page);
		nulls[0] = s->page == NULL;
		values[1] = PointerGetDatum(s->next);
		nulls[1] = s->next == NULL;
		values[2] = PointerGetDatum(s->consumed);
		nulls[2] = s->consumed == NULL;
	}
	else
	{
		range_merge_page(&req, !PG_ARGISNULL(4), PG_ARGISNULL(4) ? 0 : PG_GETARG_INT32(4), &rows, &next);
		values[0] = JsonbPGetDatum(rows);
		values[1] = PointerGetDatum(next);
		nulls[1] = next == NULL;
		values[2] = JsonbPGetDatum(range_consumed_sum(&req));
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
