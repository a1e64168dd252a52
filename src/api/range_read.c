/*-------------------------------------------------------------------------
 * src/api/range_read.c
 *	  ots.get_range (Tablestore's paged GetRange) and ots.get_range_rows
 *	  (every row of a range as a set, in constant memory).
 *
 * A range is read through the storage layer's range scan (storage_range.c),
 * which alone knows how rows are stored and found; this file validates the
 * call, decodes each row as the read asks, and pages or streams them.  Both
 * functions share one fetch loop (range_next), which frees each row's
 * decoding when it reads the next.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "format/cells.h"
#include "format/codec.h"
#include "errors.h"
#include "ots_limits.h"
#include "api/request.h"
#include "api/row_read.h"
#include "api/wire.h"
#include "format/plainbuffer.h"
#include "store/rowsplit.h"
#include "store/rowstore.h"
#include "stats.h"
#include "meta/storage.h"

/* rows scanned by one get_range page at most when a filter drops rows */
#define RANGE_SCAN_BUDGET (OTS_MAX_RANGE_ROWS * 20)

/* everything a range call needs, between SRF calls too */
typedef struct RangeScan
{
	OtsTable	table;			/* a copy: the cache entry may be reloaded */
	ReadSelect	sel;
	Filter	   *filter;
	bool		backward;
	int64		limit;			/* rows to return at most; 0 = no limit */
	int64		returned;
	uint64		scanned_size;
	StorageRange *range;
	MemoryContext row_ctx;		/* the decoding of the row read last */
	/* a page that ended inside a row goes on from its token's column */
	PkInput		start;			/* the range's start, its token's row */
	const char *token_column;	/* NULL: no token, or its row read */
	uint32		token_len;
	/* get_range: the bytes the page can still take, and where a row was cut */
	bool		whole_rows;		/* a page ends between rows only (whole_rows => true) */
	uint64		row_budget;		/* 0: whole rows */
	const char *row_next;		/* the row read last was cut before this column, or NULL */
	uint32		row_next_len;
	bool		row_later;		/* the row read last fits a page of its own, not this one */
	/* ots.wire_get_range: returned rows are appended here as PlainBuffer */
	StringInfo	wire_rows;
	int			wire_row_start; /* wire_rows' length before the row read last */
} RangeScan;

/* the row range_next read: rendered when the read returns it */
typedef struct RangeRow
{
	bool		returned;		/* the read returns it (row rule, filter, columns) */
	Jsonb	   *attrs;			/* its attributes, unless the scan writes PlainBuffer */
	uint64		size;			/* its size toward a page's 4 MB */
	uint64		size_read;		/* the data read for it, returned or not */
} RangeRow;

PG_FUNCTION_INFO_V1(ots_get_range);
PG_FUNCTION_INFO_V1(ots_get_range_rows);
PG_FUNCTION_INFO_V1(ots_wire_get_range);

/* range_prepare validates the bounds and the direction */
static void
range_prepare(RangeScan *rs, Jsonb *start_json, Jsonb *end_json, text *direction,
			  PkInput *start, PkInput *end)
{
	const OtsTable *t = &rs->table;
	int			cmp;

	if (direction != NULL)
	{
		char	   *d = text_to_cstring(direction);

		if (pg_strcasecmp(d, "BACKWARD") == 0)
			rs->backward = true;
		else if (pg_strcasecmp(d, "FORWARD") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_OTS_PARAMETER_INVALID),
					 errmsg_internal("Invalid direction: '%s'.", d),
					 errdetail("direction is FORWARD or BACKWARD.")));
	}
	codec_parse_pk(t, start_json, PK_ALLOW_INF, start);
	codec_parse_pk(t, end_json, PK_ALLOW_INF, end);
	cmp = storage_range_compare(t, start, end);
	if (!rs->backward && cmp >= 0)
		ots_error(PARAMETER_INVALID, "Begin key must less than end key in FORWARD");
	if (rs->backward && cmp <= 0)
		ots_error(PARAMETER_INVALID, "Begin key must more than end key in BACKWARD");
}

/*
 * range_begin resolves the table and every argument of a range call,
 * allocating in CurrentMemoryContext.  wire: ots.wire_get_range's
 * arguments, get_range's without with_timestamps (always true) and
 * whole_rows (false).
 */
static void
range_begin(RangeScan *rs, FunctionCallInfo fcinfo, bool paged, bool wire)
{
	OtsTable   *t;
	ReadArgs	args;
	PkInput		end;			/* it points into the arguments: this call's only */
	int			columns_arg = wire ? 9 : 10;	/* start_column, end_column, token, whole_rows */

	memset(rs, 0, sizeof(*rs));
	request_require(fcinfo, 0, "table_name");
	request_require(fcinfo, 1, "inclusive_start_primary_key");
	request_require(fcinfo, 2, "exclusive_end_primary_key");
	t = catalog_lookup(PG_GETARG_TEXT_PP(0));
	rowstore_check_privileges(t, ACL_SELECT);
	rs->table = *t;
	range_prepare(rs, PG_GETARG_JSONB_P(1), PG_GETARG_JSONB_P(2), request_text_arg(3),
				  &rs->start, &end);
	if (!PG_ARGISNULL(4))
	{
		rs->limit = PG_GETARG_INT32(4);
		if (rs->limit <= 0)
			ots_error(PARAMETER_INVALID, "The limit must be greater than 0.");
	}
	if (paged)
		rs->limit = rs->limit > 0 ? Min(rs->limit, OTS_MAX_RANGE_ROWS) : OTS_MAX_RANGE_ROWS;

	args.columns_to_get = request_array_arg(5);
	args.has_max_versions = !PG_ARGISNULL(6);
	args.max_versions = PG_ARGISNULL(6) ? 0 : PG_GETARG_INT32(6);
	args.time_range = request_jsonb_arg(7);
	args.filter = request_jsonb_arg(8);
	args.with_timestamps = wire || (!PG_ARGISNULL(9) && PG_GETARG_BOOL(9));
	args.start_column = request_text_arg(columns_arg);
	args.end_column = request_text_arg(columns_arg + 1);
	row_read_options(&rs->table, &args, &rs->sel, &rs->filter);
	/* 0.2.0's SQL (before ALTER EXTENSION ots UPDATE) passes twelve arguments */
	if (paged && PG_NARGS() > columns_arg + 2 && request_text_arg(columns_arg + 2) != NULL)
		request_token_column(request_text_arg(columns_arg + 2), &rs->token_column, &rs->token_len);
	rs->whole_rows = !paged ||
		(PG_NARGS() > columns_arg + 3 && !PG_ARGISNULL(columns_arg + 3) &&
		 PG_GETARG_BOOL(columns_arg + 3));
	rs->range = storage_range_open(&rs->table, &rs->start, &end, rs->backward);
	rs->row_ctx = AllocSetContextCreate(CurrentMemoryContext, "ots range row",
										ALLOCSET_DEFAULT_SIZES);
}

/*
 * range_row renders one row read when the read returns it (as jsonb
 * attributes, or appended to wire_rows as PlainBuffer), and the sizes.  The stored cells are
 * detoasted into the row's memory (row_ctx), which the next row empties.
 * The range's first row, when it is the start's, begins at the token's
 * column; a split row is read within the page's budget, and where it was
 * cut is left in rs->row_next.
 */
static void
range_row(RangeScan *rs, const PkInput *pk, struct varlena *stored, RangeRow *row)
{
	const OtsTable *t = &rs->table;
	struct varlena *cells = PG_DETOAST_DATUM_PACKED(stored);
	CellsReader r;
	uint32		size = 0;
	bool		split = cells_is_head(cells);
	ReadSelect	sel = rs->sel;

	memset(row, 0, sizeof(*row));
	rs->row_next = NULL;
	rs->row_later = false;
	if (rs->token_column != NULL)
	{
		if (storage_range_compare(t, pk, &rs->start) == 0 &&
			(sel.start_column == NULL ||
			 cells_name_cmp(rs->token_column, rs->token_len, sel.start_column, sel.start_len) > 0))
		{
			sel.start_column = rs->token_column;
			sel.start_len = rs->token_len;
		}
		rs->token_column = NULL;	/* it is the first row's only */
	}
	if (split)
	{
		/* a split row: what the read asks for, from its chunks, under the range's snapshot */
		RowNeeds	needs;
		RowKey		key;

		if (!rowsplit_head_exists(t, cells, &sel.vis))
		{
			row->size_read = codec_pk_size(t, pk);
			return;
		}
		if (rs->row_budget > 0 && rs->returned > 0)
		{
			CellsHead	h;

			/* a row that would fit a page is not cut: the page ends before it */
			cells_head_read(cells, &h);
			if (h.cells_size <= OTS_MAX_RANGE_BYTES && h.cells_size > rs->row_budget)
			{
				rs->row_later = true;
				return;
			}
		}
		row_read_needs(&sel, rs->filter, rs->row_budget, &needs);
		cells = rowsplit_load_head(t, cells, &needs, GetActiveSnapshot(), &key);
		if (key.split->next_column != NULL &&
			(sel.end_column == NULL ||
			 cells_name_cmp(key.split->next_column, key.split->next_len,
							sel.end_column, sel.end_len) < 0))
		{
			/* cut: this page of the row ends before that column */
			sel.end_column = rs->row_next = key.split->next_column;
			sel.end_len = rs->row_next_len = key.split->next_len;
		}
	}
	cells_reader_init(&r, cells);
	if (rs->wire_rows != NULL)
	{
		rs->wire_row_start = rs->wire_rows->len;
		row->returned = row_read_render_plainbuffer(t, &sel, rs->filter, pk, &r, split, &size,
													rs->wire_rows);
		/* the PlainBuffer row holds its key: its bytes are its size */
		row->size = rs->wire_rows->len - rs->wire_row_start;
	}
	else
	{
		row->attrs = row_read_render(t, &sel, rs->filter, pk, &r, split, &size);
		row->returned = row->attrs != NULL;
		if (row->returned)
			row->size = codec_pk_size(t, pk) + VARSIZE(row->attrs);
	}
	row->size_read = codec_pk_size(t, pk) + size;
}

/*
 * range_next reads and renders the range's next row (range_row) in
 * row_ctx, which it empties first, so a row's memory goes when the next
 * one is read: the one fetch loop of both range functions; false when the
 * range is over.
 */
static bool
range_next(RangeScan *rs, PkInput *pk, RangeRow *row)
{
	MemoryContext callerctx;
	struct varlena *stored;
	bool		found;

	CHECK_FOR_INTERRUPTS();
	MemoryContextReset(rs->row_ctx);
	callerctx = MemoryContextSwitchTo(rs->row_ctx);
	found = storage_range_next(rs->range, pk, &stored);
	if (found)
		range_row(rs, pk, stored, row);
	MemoryContextSwitchTo(callerctx);
	return found;
}

static void
range_push_row(JsonbParseState **state, const OtsTable *t, const PkInput *pk, Jsonb *attrs)
{
	JsonbValue	v;
	Jsonb	   *pkjson = codec_pk_to_jsonb(t, pk);

	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	codec_push_key(state, CODEC_KEY("primary_key"));
	v.type = jbvBinary;
	v.val.binary.data = &pkjson->root;
	v.val.binary.len = VARSIZE(pkjson) - VARHDRSZ;
	pushJsonbValue(state, WJB_VALUE, &v);
	codec_push_key(state, CODEC_KEY("attributes"));
	v.val.binary.data = &attrs->root;
	v.val.binary.len = VARSIZE(attrs) - VARHDRSZ;
	pushJsonbValue(state, WJB_VALUE, &v);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/* one get_range page as it is built: rows in jsonb, or in PlainBuffer (wire) */
typedef struct RangePage
{
	JsonbParseState *state;		/* jsonb: the rows array */
	MemoryContext pagectx;		/* jsonb: what the array points into (none for wire) */
	bool		has_next;		/* more remains: from next's key */
	Jsonb	   *next;			/* jsonb: next_start_primary_key */
	StringInfoData next_wire;	/* wire: next_start_primary_key, a key-only PlainBuffer row */
	text	   *next_token;
	Consumed	consumed;
} RangePage;

/* range_page_next: the page ends; more remains from the key pk */
static void
range_page_next(RangeScan *rs, RangePage *page, const PkInput *pk)
{
	page->has_next = true;
	if (rs->wire_rows == NULL)
	{
		page->next = codec_pk_to_jsonb(&rs->table, pk);
		return;
	}
	initStringInfo(&page->next_wire);
	plainbuffer_header(&page->next_wire);
	plainbuffer_key_row(&page->next_wire, &rs->table, pk);
}

/*
 * range_page reads one page of at most 5000 rows and 4 MB, with a next key
 * exactly when something remains.  A row larger than a page (a split row
 * whose cells pass 4 MB) that does not fit ends the page inside it, at a
 * column: the page's next key is its key and next_token where it goes on;
 * a smaller one that does not fit begins the next page.
 */
static void
range_page(RangeScan *rs, RangePage *page)
{
	uint64		page_size = 0;
	int64		scanned = 0;
	MemoryContext callerctx = CurrentMemoryContext;
	PkInput		pk;
	RangeRow	row;

	/*
	 * Memory follows what the page returns: each row is decoded in the
	 * scan's row_ctx, emptied for the next, and a returned row's attributes
	 * are copied into pagectx, which holds the page being built until it is
	 * one jsonb (or the row is in the PlainBuffer bytes already).
	 */
	if (rs->wire_rows == NULL)
	{
		page->pagectx = AllocSetContextCreate(callerctx, "ots range page", ALLOCSET_DEFAULT_SIZES);
		MemoryContextSwitchTo(page->pagectx);
		pushJsonbValue(&page->state, WJB_BEGIN_ARRAY, NULL);
		MemoryContextSwitchTo(callerctx);
	}
	/* what the page still needs, plus the look-ahead row */
	for (;;)
	{
		/* a split row is read within what the page can still take (at least a column of it) */
		rs->row_budget = rs->whole_rows ? 0 :
			OTS_MAX_RANGE_BYTES > page_size ? OTS_MAX_RANGE_BYTES - page_size : 1;
		if (!range_next(rs, &pk, &row))
			break;
		/* a row cut to what the page could take fits, though its last column may pass the cap */
		if (rs->row_later ||
			(row.returned &&
			 (rs->returned >= rs->limit ||
			  (rs->returned > 0 && rs->row_next == NULL &&
			   page_size + row.size > OTS_MAX_RANGE_BYTES))))
		{
			/* the look-ahead row: the page is full and more remains */
			if (rs->wire_rows != NULL && row.returned)
			{
				rs->wire_rows->len = rs->wire_row_start;
				rs->wire_rows->data[rs->wire_rows->len] = '\0';
			}
			range_page_next(rs, page, &pk);
			break;
		}
		rs->scanned_size += row.size_read;	/* a dropped row still counts as read */
		if (row.returned)
		{
			page_size += row.size;
			if (rs->wire_rows == NULL)
			{
				/* the page points into its rows: a copy outlives row_ctx */
				MemoryContextSwitchTo(page->pagectx);
				range_push_row(&page->state, &rs->table, &pk,
							   (Jsonb *) PG_DETOAST_DATUM_COPY(PointerGetDatum(row.attrs)));
				MemoryContextSwitchTo(callerctx);
			}
			rs->returned++;
			if (rs->row_next != NULL)
			{
				/* the page ends inside this row: the next one goes on from its token */
				range_page_next(rs, page, &pk);
				page->next_token = request_token(rs->row_next, rs->row_next_len);
				break;
			}
		}
		else if (++scanned >= RANGE_SCAN_BUDGET)
		{
			/* a filter dropped many rows: end the page early after this one */
			range_page_next(rs, page, &pk);
			break;
		}
	}
	storage_range_close(rs->range);
	page->consumed.read = Max(request_cu(rs->scanned_size), 1);
	page->consumed.write = 0;
	stats_count(&rs->table, rs->returned, 0, page->consumed.read, 0);
}

/*
 * ots_get_range is ots.get_range(table_name, inclusive_start_primary_key,
 * exclusive_end_primary_key, direction, limit, columns_to_get,
 * max_versions, time_range, filter, with_timestamps, start_column,
 * end_column, token, whole_rows): one Tablestore page (range_page), with
 * next_start_primary_key NULL exactly when nothing remains.
 */
Datum
ots_get_range(PG_FUNCTION_ARGS)
{
	RangeScan	rs;
	RangePage	page = {0};
	Jsonb	   *rows;
	TupleDesc	desc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	range_begin(&rs, fcinfo, true, false);
	range_page(&rs, &page);
	rows = JsonbValueToJsonb(pushJsonbValue(&page.state, WJB_END_ARRAY, NULL));
	MemoryContextDelete(page.pagectx);	/* rows is whole: the copies go before the result is formed */

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ots.get_range must return ots.range_result");
	values[0] = JsonbPGetDatum(rows);
	values[1] = JsonbPGetDatum(page.next);
	nulls[1] = !page.has_next;
	values[2] = JsonbPGetDatum(request_consumed_jsonb(page.consumed));
	values[3] = PointerGetDatum(page.next_token);
	nulls[3] = page.next_token == NULL;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/*
 * ots_wire_get_range is ots.wire_get_range(table_name,
 * inclusive_start_primary_key, exclusive_end_primary_key, direction,
 * limit, columns_to_get, max_versions, time_range, filter, start_column,
 * end_column, token): get_range's page with timestamps, its rows as one
 * PlainBuffer buffer (empty when none) and next_start_primary_key as a
 * key-only PlainBuffer row, for otsd (api/wire.c).  A page's 4 MB counts
 * the rows' PlainBuffer bytes.
 */
Datum
ots_wire_get_range(PG_FUNCTION_ARGS)
{
	RangeScan	rs;
	RangePage	page = {0};
	StringInfoData rows;
	Datum		values[6];
	bool		nulls[6] = {0};

	range_begin(&rs, fcinfo, true, true);
	wire_buffer(&rows);
	plainbuffer_header(&rows);
	rs.wire_rows = &rows;
	range_page(&rs, &page);
	if (rs.returned == 0)
		rows.len = VARHDRSZ;	/* no rows: no bytes, as Tablestore sends */
	values[0] = PointerGetDatum(wire_bytea(&rows));
	if (page.has_next)
	{
		bytea	   *next = palloc(VARHDRSZ + page.next_wire.len);

		SET_VARSIZE(next, VARHDRSZ + page.next_wire.len);
		memcpy(VARDATA(next), page.next_wire.data, page.next_wire.len);
		values[1] = PointerGetDatum(next);
	}
	nulls[1] = !page.has_next;
	values[2] = PointerGetDatum(page.next_token);
	nulls[2] = page.next_token == NULL;
	PG_RETURN_DATUM(wire_result(fcinfo, values, nulls, &page.consumed));
}

/*
 * range_rows_shutdown ends a get_range_rows range its caller stopped
 * reading, counting what it read
 */
static void
range_rows_shutdown(Datum arg)
{
	RangeScan  *rs = (RangeScan *) DatumGetPointer(arg);

	storage_range_close(rs->range);
	stats_count(&rs->table, rs->returned, 0, request_cu(rs->scanned_size), 0);
}

/*
 * ots_get_range_rows is ots.get_range_rows(...): the same range, every row
 * of it (up to limit), one per call, holding one row in memory at a time.
 */
Datum
ots_get_range_rows(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	RangeScan  *rs;
	PkInput		pk;
	RangeRow	row;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		TupleDesc	desc;

		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		rs = palloc(sizeof(RangeScan));
		range_begin(rs, fcinfo, false, false);
		if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "ots.get_range_rows must return a record");
		funcctx->tuple_desc = BlessTupleDesc(desc);
		funcctx->user_fctx = rs;
		/* a caller that stops reading early (LIMIT over a SELECT-list call) ends the scans */
		RegisterExprContextCallback(((ReturnSetInfo *) fcinfo->resultinfo)->econtext,
									range_rows_shutdown, PointerGetDatum(rs));
		MemoryContextSwitchTo(old);
	}
	funcctx = SRF_PERCALL_SETUP();
	rs = funcctx->user_fctx;

	/* rows a filter drops cost no memory: range_next frees each row's decoding */
	while ((rs->limit == 0 || rs->returned < rs->limit) &&
		   range_next(rs, &pk, &row))
	{
		rs->scanned_size += row.size_read;
		if (row.returned)
		{
			Datum		values[2];
			bool		nulls[2] = {false, false};

			values[0] = JsonbPGetDatum(codec_pk_to_jsonb(&rs->table, &pk));
			values[1] = JsonbPGetDatum(row.attrs);
			rs->returned++;
			SRF_RETURN_NEXT(funcctx, HeapTupleGetDatum(heap_form_tuple(funcctx->tuple_desc,
																	   values, nulls)));
		}
	}
	/* the limit may end the scan first: end it now, and the callback with it (its memory goes next) */
	storage_range_close(rs->range);
	UnregisterExprContextCallback(((ReturnSetInfo *) fcinfo->resultinfo)->econtext,
								  range_rows_shutdown, PointerGetDatum(rs));
	stats_count(&rs->table, rs->returned, 0, request_cu(rs->scanned_size), 0);
	SRF_RETURN_DONE(funcctx);
}
