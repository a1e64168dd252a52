/*-------------------------------------------------------------------------
 * src/range_read.c
 *	  ots.get_range (Tablestore's paged GetRange) and ots.get_range_rows
 *	  (every row of a range as a set, in constant memory).
 *
 * A range is one ordered scan of the storage table through an SPI cursor:
 * row comparisons on the primary key give the bounds (INF_MIN/INF_MAX cut
 * a bound down to the columns before them), ORDER BY the key in the scan
 * direction, so PostgreSQL merges the leaves' primary-key indexes.  When
 * both bounds fix the partition key, an equality on it prunes the scan to
 * one leaf.  Plans are prepared once per bound shape and backend.
 *
 * Hash-prefixed tables store ("$hash", key...), and a range walks that
 * stored order: each bound's natural key is mapped to its stored position,
 * so a range within one partition key (or over the whole table) means what
 * it says, while a range across partition keys covers the rows whose
 * stored keys fall between the two mapped bounds.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "asrole.h"
#include "cells.h"
#include "codec.h"
#include "errors.h"
#include "ots_limits.h"
#include "request.h"
#include "routing.h"
#include "row_read.h"
#include "rowstore.h"
#include "stats.h"

/* rows scanned by one get_range page at most when a filter drops rows */
#define RANGE_SCAN_BUDGET (OTS_MAX_RANGE_ROWS * 20)
/*
 * rows fetched from the cursor at a time, at most: a fetched row holds its
 * "$cells" as a TOAST pointer or inline (under 2 kB), so a chunk's memory
 * does not grow with row size; each row is detoasted when it is decoded
 */
#define RANGE_FETCH_CHUNK 256

typedef enum BoundOp
{
	BOUND_NONE,					/* no condition */
	BOUND_EMPTY,				/* nothing can satisfy it */
	BOUND_GE,
	BOUND_GT,
	BOUND_LE,
	BOUND_LT
} BoundOp;

/* one side of a range as a condition on the first ncols stored key columns */
typedef struct RangeBound
{
	BoundOp		op;
	int			ncols;
	Datum		values[OTS_MAX_PK_COLUMNS + 1];
	Oid			types[OTS_MAX_PK_COLUMNS + 1];
} RangeBound;

/* everything a range scan needs between SRF calls */
typedef struct RangeScan
{
	OtsTable	table;			/* a copy: the cache entry may be reloaded */
	ReadSelect	sel;
	Filter	   *filter;
	bool		backward;
	bool		empty;
	int64		limit;			/* rows to return at most; 0 = no limit */
	int64		returned;
	Oid			owner;
	char	   *portal;
	int			nparams;
	Datum		params[2 * (OTS_MAX_PK_COLUMNS + 1) + 1];
	Oid			types[2 * (OTS_MAX_PK_COLUMNS + 1) + 1];
	char	   *sql;
	uint64		scanned_size;
	/* get_range_rows: the rows fetched but not yet returned */
	MemoryContext chunk_ctx;
	MemoryContext row_ctx;		/* one row's decoding (get_range_rows) */
	TupleDesc	chunk_desc;
	HeapTuple  *chunk;
	uint64		chunk_len;
	uint64		chunk_pos;
} RangeScan;

typedef struct RangePlan
{
	char		sql[NAMEDATALEN * 48];	/* hash key: the statement itself */
	SPIPlanPtr	plan;
} RangePlan;

static HTAB *range_plans = NULL;

PG_FUNCTION_INFO_V1(ots_get_range);
PG_FUNCTION_INFO_V1(ots_get_range_rows);

/*
 * range_compare_bounds orders two bounds in stored order, column by column,
 * with INF_MIN < every value < INF_MAX.
 */
static int
range_compare_bounds(const OtsTable *t, const PkInput *a, const PkInput *b)
{
	/* a prefixed table is ordered by the prefix first */
	if (t->hash_prefix_len > 0 && a->special[0] == PK_VALUE && b->special[0] == PK_VALUE)
	{
		int64		ha = routing_hash_prefix(&a->v[0], t->hash_prefix_len);
		int64		hb = routing_hash_prefix(&b->v[0], t->hash_prefix_len);

		if (ha != hb)
			return ha < hb ? -1 : 1;
	}
	for (int i = 0; i < t->npk; i++)
	{
		int			ra = a->special[i] == PK_INF_MIN ? -1 : a->special[i] == PK_INF_MAX ? 1 : 0;
		int			rb = b->special[i] == PK_INF_MIN ? -1 : b->special[i] == PK_INF_MAX ? 1 : 0;
		int			c;

		if (ra != rb)
			return ra < rb ? -1 : 1;
		if (ra != 0)
			continue;
		c = ots_value_compare(&a->v[i], &b->v[i]);
		if (c != 0)
			return c;
	}
	return 0;
}

/*
 * range_bound converts one bound into a condition on the stored key:
 * "lower" for the side rows must be above (start of FORWARD, end of
 * BACKWARD), "inclusive" for the start.
 */
static void
range_bound(const OtsTable *t, const PkInput *pk, bool lower, bool inclusive, RangeBound *b)
{
	int			first_inf = t->npk;
	int			k = 0;
	bool		prefixed = t->hash_prefix_len > 0;

	for (int i = 0; i < t->npk; i++)
		if (pk->special[i] != PK_VALUE)
		{
			first_inf = i;
			break;
		}

	if (prefixed && first_inf > 0)
	{
		b->values[k] = Int64GetDatum(routing_hash_prefix(&pk->v[0], t->hash_prefix_len));
		b->types[k++] = INT8OID;
	}
	for (int i = 0; i < first_inf; i++, k++)
		b->values[k] = routing_pk_datum(&pk->v[i], &b->types[k]);
	b->ncols = k;

	if (first_inf == t->npk)
		b->op = lower ? (inclusive ? BOUND_GE : BOUND_GT) : (inclusive ? BOUND_LE : BOUND_LT);
	else
	{
		/* an INF at column i decides the comparison of the columns before it */
		bool		inf_min = pk->special[first_inf] == PK_INF_MIN;

		if (lower)
			b->op = inf_min ? BOUND_GE : BOUND_GT;
		else
			b->op = inf_min ? BOUND_LT : BOUND_LE;
		if (first_inf == 0)
			b->op = (b->op == BOUND_GE || b->op == BOUND_LE) ? BOUND_NONE : BOUND_EMPTY;
	}
}

static const char *
range_op_sql(BoundOp op)
{
	switch (op)
	{
		case BOUND_GE:
			return ">=";
		case BOUND_GT:
			return ">";
		case BOUND_LE:
			return "<=";
		case BOUND_LT:
			return "<";
		default:
			return NULL;
	}
}

/* range_append_bound adds "(c1, c2) op ($n, $n+1)" to the statement */
static void
range_append_bound(RangeScan *rs, StringInfo where, const RangeBound *b)
{
	const OtsTable *t = &rs->table;

	if (b->op == BOUND_NONE)
		return;
	appendStringInfoString(where, where->len > 0 ? " AND (" : "(");
	for (int k = 0; k < b->ncols; k++)
		appendStringInfo(where, "%s%s", k > 0 ? ", " : "", quote_identifier(routing_key_column(t, k)));
	appendStringInfo(where, ") OPERATOR(pg_catalog.%s) (", range_op_sql(b->op));
	for (int k = 0; k < b->ncols; k++)
	{
		rs->params[rs->nparams] = b->values[k];
		rs->types[rs->nparams] = b->types[k];
		appendStringInfo(where, "%s$%d", k > 0 ? ", " : "", ++rs->nparams);
	}
	appendStringInfoChar(where, ')');
}

/*
 * range_prepare validates the bounds and direction and writes the scan's
 * statement and parameters.
 */
static void
range_prepare(RangeScan *rs, Jsonb *start_json, Jsonb *end_json, text *direction)
{
	const OtsTable *t = &rs->table;
	PkInput		start;
	PkInput		end;
	RangeBound	lo;
	RangeBound	hi;
	StringInfoData where;
	StringInfoData sql;
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
	codec_parse_pk(t, start_json, PK_ALLOW_INF, &start);
	codec_parse_pk(t, end_json, PK_ALLOW_INF, &end);
	cmp = range_compare_bounds(t, &start, &end);
	if (!rs->backward && cmp >= 0)
		ots_error(PARAMETER_INVALID, "Begin key must less than end key in FORWARD");
	if (rs->backward && cmp <= 0)
		ots_error(PARAMETER_INVALID, "Begin key must more than end key in BACKWARD");

	range_bound(t, rs->backward ? &end : &start, true, !rs->backward, &lo);
	range_bound(t, rs->backward ? &start : &end, false, rs->backward, &hi);
	rs->empty = lo.op == BOUND_EMPTY || hi.op == BOUND_EMPTY;

	initStringInfo(&where);
	range_append_bound(rs, &where, &lo);
	range_append_bound(rs, &where, &hi);
	/* both bounds fix the partition key: say so, and the scan prunes to its leaf */
	if (start.special[0] == PK_VALUE && end.special[0] == PK_VALUE &&
		ots_value_compare(&start.v[0], &end.v[0]) == 0)
	{
		int			k = t->hash_prefix_len > 0 ? 1 : 0;

		rs->params[rs->nparams] = lo.values[k];
		rs->types[rs->nparams] = lo.types[k];
		appendStringInfo(&where, "%s%s OPERATOR(pg_catalog.=) $%d", where.len > 0 ? " AND " : "",
						 quote_identifier(t->pk[0].name), ++rs->nparams);
	}

	initStringInfo(&sql);
	appendStringInfoString(&sql, "SELECT ");
	for (int i = 0; i < t->npk; i++)
		appendStringInfo(&sql, "%s, ", quote_identifier(t->pk[i].name));
	appendStringInfo(&sql, "\"$cells\" FROM %s", catalog_storage_name(t));
	if (where.len > 0)
		appendStringInfo(&sql, " WHERE %s", where.data);
	appendStringInfoString(&sql, " ORDER BY ");
	for (int k = 0; k < t->npk + (t->hash_prefix_len > 0 ? 1 : 0); k++)
		appendStringInfo(&sql, "%s%s%s", k > 0 ? ", " : "",
						 quote_identifier(routing_key_column(t, k)), rs->backward ? " DESC" : "");
	rs->sql = sql.data;
}

/* range_plan returns the saved plan of the scan's statement */
static SPIPlanPtr
range_plan(RangeScan *rs)
{
	RangePlan  *rp;
	bool		found;
	char		key[sizeof(((RangePlan *) 0)->sql)];

	if (strlen(rs->sql) >= sizeof(key))
		elog(ERROR, "ots range statement too long");
	if (range_plans == NULL)
	{
		HASHCTL		ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(key);
		ctl.entrysize = sizeof(RangePlan);
		ctl.hcxt = CacheMemoryContext;
		range_plans = hash_create("ots range plans", 64, &ctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	}
	memset(key, 0, sizeof(key));
	strlcpy(key, rs->sql, sizeof(key));
	rp = hash_search(range_plans, key, HASH_ENTER, &found);
	if (!found)
		rp->plan = NULL;
	if (rp->plan != NULL && !SPI_plan_is_valid(rp->plan))
	{
		SPI_freeplan(rp->plan);
		rp->plan = NULL;
	}
	if (rp->plan == NULL)
	{
		/* bounds change per call, the shape does not: plan it once, prune at run time */
		SPIPlanPtr	plan = SPI_prepare_cursor(rs->sql, rs->nparams, rs->types,
											  CURSOR_OPT_NO_SCROLL | CURSOR_OPT_GENERIC_PLAN);

		if (plan == NULL)
			elog(ERROR, "could not prepare ots range statement: %s",
				 SPI_result_code_string(SPI_result));
		if (SPI_keepplan(plan) != 0)
			elog(ERROR, "could not save ots range statement");
		rp->plan = plan;
	}
	return rp->plan;
}

/*
 * range_begin resolves the table and every argument of a range call,
 * allocating in CurrentMemoryContext.
 */
static void
range_begin(RangeScan *rs, FunctionCallInfo fcinfo, bool paged)
{
	OtsTable   *t;
	ReadArgs	args;

	memset(rs, 0, sizeof(*rs));
	request_require(fcinfo, 0, "table_name");
	request_require(fcinfo, 1, "inclusive_start_primary_key");
	request_require(fcinfo, 2, "exclusive_end_primary_key");
	t = catalog_lookup(PG_GETARG_TEXT_PP(0));
	rowstore_check_privileges(t, ACL_SELECT);
	rs->table = *t;
	range_prepare(rs, PG_GETARG_JSONB_P(1), PG_GETARG_JSONB_P(2), request_text_arg(3));
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
	args.with_timestamps = !PG_ARGISNULL(9) && PG_GETARG_BOOL(9);
	args.start_column = request_text_arg(10);
	args.end_column = request_text_arg(11);
	row_read_options(&rs->table, &args, &rs->sel, &rs->filter);
	rs->owner = rowstore_owner(&rs->table);
}

/* range_open opens the scan's cursor (SPI connected, as the table owner) */
static void
range_open(RangeScan *rs)
{
	Portal		portal = SPI_cursor_open(NULL, range_plan(rs), rs->params, NULL, true);

	rs->portal = MemoryContextStrdup(TopTransactionContext, portal->name);
}

/*
 * range_row decodes one fetched row: its primary key, and its rendered
 * attributes when the read returns it (NULL otherwise).  The stored cells
 * are detoasted for the rendering only, so a big row is held once.
 */
static Jsonb *
range_row(RangeScan *rs, HeapTuple tup, TupleDesc desc, PkInput *pk, uint64 *size_read)
{
	const OtsTable *t = &rs->table;
	bool		isnull;
	Datum		stored;
	struct varlena *cells;
	CellsReader r;
	uint32		size = 0;
	Jsonb	   *attrs;

	pk->n = t->npk;
	for (int i = 0; i < t->npk; i++)
	{
		Datum		d = heap_getattr(tup, i + 1, desc, &isnull);

		pk->special[i] = PK_VALUE;
		pk->v[i].type = t->pk[i].type;
		if (t->pk[i].type == OTS_VT_INTEGER)
			pk->v[i].u.i = DatumGetInt64(d);
		else
		{
			struct varlena *v = PG_DETOAST_DATUM_PACKED(d);

			pk->v[i].u.s.data = VARDATA_ANY(v);
			pk->v[i].u.s.len = VARSIZE_ANY_EXHDR(v);
		}
	}
	stored = heap_getattr(tup, t->npk + 1, desc, &isnull);
	cells = PG_DETOAST_DATUM_PACKED(stored);
	cells_reader_init(&r, cells);
	attrs = row_read_render(t, &rs->sel, rs->filter, pk, &r, &size);
	*size_read = codec_pk_size(t, pk) + size;
	if ((Pointer) cells != DatumGetPointer(stored))
		pfree(cells);			/* attrs is a copy of what it shows */
	return attrs;
}

/* range_row_size: a returned row's data size, for the 4 MB page cap */
static uint64
range_row_size(const OtsTable *t, const PkInput *pk, Jsonb *attrs)
{
	return codec_pk_size(t, pk) + (attrs != NULL ? VARSIZE(attrs) : 0);
}

static void
range_push_row(JsonbParseState **state, const OtsTable *t, const PkInput *pk, Jsonb *attrs)
{
	JsonbValue	v;
	Jsonb	   *pkjson = codec_pk_to_jsonb(t, pk);

	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	codec_push_key(state, "primary_key", 11);
	v.type = jbvBinary;
	v.val.binary.data = &pkjson->root;
	v.val.binary.len = VARSIZE(pkjson) - VARHDRSZ;
	pushJsonbValue(state, WJB_VALUE, &v);
	codec_push_key(state, "attributes", 10);
	v.val.binary.data = &attrs->root;
	v.val.binary.len = VARSIZE(attrs) - VARHDRSZ;
	pushJsonbValue(state, WJB_VALUE, &v);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/*
 * ots_get_range is ots.get_range(table_name, inclusive_start_primary_key,
 * exclusive_end_primary_key, direction, limit, columns_to_get,
 * max_versions, time_range, filter, with_timestamps, start_column,
 * end_column): one Tablestore page of at most 5000 rows and 4 MB, with
 * next_start_primary_key NULL exactly when nothing remains.
 */
Datum
ots_get_range(PG_FUNCTION_ARGS)
{
	RangeScan	rs;
	JsonbParseState *state = NULL;
	Jsonb	   *rows;
	Jsonb	   *next = NULL;
	uint64		page_size = 0;
	int64		scanned = 0;
	Consumed	consumed = {0, 0};
	TupleDesc	desc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	MemoryContext callerctx = CurrentMemoryContext;
	MemoryContext pagectx;
	MemoryContext rowctx;
	AsRole		saved;

	range_begin(&rs, fcinfo, true);

	/*
	 * Memory follows what the page returns: each row is decoded in rowctx,
	 * reset after it, and a returned row's attributes are copied into
	 * pagectx, which holds the page being built until it is one jsonb.
	 */
	pagectx = AllocSetContextCreate(callerctx, "ots range page", ALLOCSET_DEFAULT_SIZES);
	rowctx = AllocSetContextCreate(callerctx, "ots range row", ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(pagectx);
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	MemoryContextSwitchTo(callerctx);
	if (!rs.empty)
	{
		Portal		portal;
		bool		done = false;

		asrole_enter(rs.owner, &saved);
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		portal = SPI_cursor_open(NULL, range_plan(&rs), rs.params, NULL, true);
		while (!done)
		{
			/* what the page still needs, plus the look-ahead row */
			SPI_cursor_fetch(portal, true, Min(rs.limit - rs.returned + 1, RANGE_FETCH_CHUNK));
			if (SPI_processed == 0)
				break;
			for (uint64 i = 0; i < SPI_processed && !done; i++)
			{
				PkInput		pk;
				Jsonb	   *attrs;
				MemoryContext spictx;
				uint64		size_read;

				CHECK_FOR_INTERRUPTS();
				spictx = MemoryContextSwitchTo(rowctx);
				attrs = range_row(&rs, SPI_tuptable->vals[i], SPI_tuptable->tupdesc, &pk,
								  &size_read);
				MemoryContextSwitchTo(callerctx);	/* for next */
				if (attrs != NULL &&
					(rs.returned >= rs.limit ||
					 (rs.returned > 0 &&
					  page_size + range_row_size(&rs.table, &pk, attrs) > OTS_MAX_RANGE_BYTES)))
				{
					/* the look-ahead row: the page is full and more remains */
					next = codec_pk_to_jsonb(&rs.table, &pk);
					done = true;
				}
				else if (attrs != NULL)
				{
					rs.scanned_size += size_read;
					page_size += range_row_size(&rs.table, &pk, attrs);
					/* the page points into its rows: a copy outlives rowctx */
					MemoryContextSwitchTo(pagectx);
					range_push_row(&state, &rs.table, &pk,
								   (Jsonb *) PG_DETOAST_DATUM_COPY(PointerGetDatum(attrs)));
					rs.returned++;
				}
				else
				{
					/* a dropped row still counts as read */
					rs.scanned_size += size_read;
					if (++scanned >= RANGE_SCAN_BUDGET)
					{
						/* a filter dropped many rows: end the page early after this one */
						next = codec_pk_to_jsonb(&rs.table, &pk);
						done = true;
					}
				}
				MemoryContextSwitchTo(spictx);
				MemoryContextReset(rowctx);
			}
			SPI_freetuptable(SPI_tuptable);
		}
		SPI_cursor_close(portal);
		SPI_finish();
		asrole_leave(&saved);
	}
	rows = JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_ARRAY, NULL));
	MemoryContextDelete(pagectx);	/* rows is whole: the copies go before the result is formed */

	consumed.read = Max(request_cu(rs.scanned_size), 1);
	stats_count(&rs.table, rs.returned, 0, consumed.read, 0);
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ots.get_range must return ots.range_result");
	values[0] = JsonbPGetDatum(rows);
	values[1] = JsonbPGetDatum(next);
	nulls[1] = next == NULL;
	values[2] = JsonbPGetDatum(request_consumed_jsonb(consumed));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/*
 * range_fill_chunk fetches the next rows of a get_range_rows scan into its
 * chunk (copies in chunk_ctx, which each refill resets, so memory stays
 * bounded); false when the scan is over.
 */
static bool
range_fill_chunk(RangeScan *rs)
{
	AsRole		saved;
	Portal		portal;
	MemoryContext old;

	if (rs->empty)
		return false;
	MemoryContextReset(rs->chunk_ctx);
	rs->chunk_len = rs->chunk_pos = 0;

	asrole_enter(rs->owner, &saved);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	portal = SPI_cursor_find(rs->portal);
	if (portal == NULL)
		elog(ERROR, "ots range cursor \"%s\" disappeared", rs->portal);
	SPI_cursor_fetch(portal, true, RANGE_FETCH_CHUNK);
	old = MemoryContextSwitchTo(rs->chunk_ctx);
	rs->chunk = palloc(sizeof(HeapTuple) * Max(SPI_processed, 1));
	for (uint64 i = 0; i < SPI_processed; i++)
		rs->chunk[i] = heap_copytuple(SPI_tuptable->vals[i]);
	rs->chunk_len = SPI_processed;
	MemoryContextSwitchTo(old);
	if (rs->chunk_desc == NULL && SPI_processed > 0)
	{
		/* lives as long as the scan: in the SRF's multi-call context */
		old = MemoryContextSwitchTo(MemoryContextGetParent(rs->chunk_ctx));
		rs->chunk_desc = CreateTupleDescCopy(SPI_tuptable->tupdesc);
		MemoryContextSwitchTo(old);
	}
	if (SPI_processed < RANGE_FETCH_CHUNK)
	{
		SPI_cursor_close(portal);
		rs->empty = true;
	}
	SPI_finish();
	asrole_leave(&saved);
	return rs->chunk_len > 0;
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
	AsRole		saved;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		TupleDesc	desc;

		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		rs = palloc(sizeof(RangeScan));
		range_begin(rs, fcinfo, false);
		rs->chunk_ctx = AllocSetContextCreate(funcctx->multi_call_memory_ctx,
											  "ots range chunk", ALLOCSET_DEFAULT_SIZES);
		rs->row_ctx = AllocSetContextCreate(funcctx->multi_call_memory_ctx,
											"ots range row", ALLOCSET_DEFAULT_SIZES);
		if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "ots.get_range_rows must return a record");
		funcctx->tuple_desc = BlessTupleDesc(desc);
		funcctx->user_fctx = rs;
		MemoryContextSwitchTo(old);

		if (!rs->empty)
		{
			asrole_enter(rs->owner, &saved);
			if (SPI_connect() != SPI_OK_CONNECT)
				elog(ERROR, "SPI_connect failed");
			range_open(rs);
			SPI_finish();
			asrole_leave(&saved);
		}
	}
	funcctx = SRF_PERCALL_SETUP();
	rs = funcctx->user_fctx;

	while (rs->limit == 0 || rs->returned < rs->limit)
	{
		PkInput		pk;
		Jsonb	   *attrs;
		uint64		size_read;
		MemoryContext callerctx;

		CHECK_FOR_INTERRUPTS();
		if (rs->chunk_pos == rs->chunk_len && !range_fill_chunk(rs))
			break;
		/* a row's decoding goes with the next row, so rows a filter drops cost no memory */
		MemoryContextReset(rs->row_ctx);
		callerctx = MemoryContextSwitchTo(rs->row_ctx);
		attrs = range_row(rs, rs->chunk[rs->chunk_pos++], rs->chunk_desc, &pk, &size_read);
		MemoryContextSwitchTo(callerctx);
		rs->scanned_size += size_read;
		if (attrs != NULL)
		{
			Datum		values[2];
			bool		nulls[2] = {false, false};

			values[0] = JsonbPGetDatum(codec_pk_to_jsonb(&rs->table, &pk));
			values[1] = JsonbPGetDatum(attrs);
			rs->returned++;
			SRF_RETURN_NEXT(funcctx, HeapTupleGetDatum(heap_form_tuple(funcctx->tuple_desc,
																	   values, nulls)));
		}
	}
	if (!rs->empty)
	{
		/* the limit ended the scan: close the cursor now, not at commit */
		if (SPI_connect() == SPI_OK_CONNECT)
		{
			Portal		portal = SPI_cursor_find(rs->portal);

			if (portal != NULL)
				SPI_cursor_close(portal);
			SPI_finish();
		}
	}
	stats_count(&rs->table, rs->returned, 0, request_cu(rs->scanned_size), 0);
	SRF_RETURN_DONE(funcctx);
}
