/*
 * range_fetch.c: the shards' get_range pages for the proxy's merges.  A
 * range starts by resolving its table through SPI as the SQL wrappers do
 * (ots_cluster.table_of, ots_cluster.target, ots_cluster.range_hashes:
 * one partition of each shard to read), then reads pages through
 * ots_cluster.range_read (40_range.sql), which asks every shard named at
 * once, in parallel through PL/Proxy, and raises a shard's error as the
 * single node's.  Each shard's page lives in its own memory context, reset
 * when the next page replaces it, so a merge holds one page per shard.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "range_fetch.h"

/* the types of get_range's arguments (ots.get_range, ots.get_range_rows) */
static const Oid range_arg_types[12] = {
	TEXTOID, JSONBOID, JSONBOID, TEXTOID, INT4OID, TEXTARRAYOID,
	INT4OID, JSONBOID, JSONBOID, BOOLOID, TEXTOID, TEXTOID
};

/* range_spi_row runs sql (one row expected) and returns its row */
static HeapTuple
range_spi_row(const char *sql, int nargs, Oid *types, Datum *values, const bool *isnull)
{
	char		nulls[16];
	int			rc;

	for (int i = 0; i < nargs; i++)
		nulls[i] = isnull[i] ? 'n' : ' ';
	rc = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "ots_proxy: \"%s\" returned " UINT64_FORMAT " rows (SPI %d)", sql, SPI_processed, rc);
	return SPI_tuptable->vals[0];
}

/*
 * range_request_start fills req, in CurrentMemoryContext, for the range
 * that get_range's arguments in fcinfo name: the table's key order, the
 * name the shards get and the shards to read, none read yet.
 */
void
range_request_start(RangeRequest *req, FunctionCallInfo fcinfo)
{
	MemoryContext cxt = CurrentMemoryContext;
	Oid			types[3] = {TEXTOID, JSONBOID, JSONBOID};
	Datum		values[3];
	bool		nulls[3];
	HeapTuple	row;
	TupleDesc	desc;
	bool		isnull;
	Datum		d;
	Datum	   *hashes;
	int			nhashes;

	memset(req, 0, sizeof(*req));
	for (int i = 0; i < 12; i++)
	{
		int16		typlen;
		bool		typbyval;

		req->nulls[i] = PG_ARGISNULL(i);
		get_typlenbyval(range_arg_types[i], &typlen, &typbyval);
		req->args[i] = req->nulls[i] ? (Datum) 0 : datumCopy(PG_GETARG_DATUM(i), typbyval, typlen);
	}
	req->max_rows = -1;
	req->max_bytes = -1;
	for (int i = 0; i < 3; i++)
	{
		values[i] = req->args[i];
		nulls[i] = req->nulls[i];
	}

	SPI_connect();
	row = range_spi_row("SELECT t, ots_cluster.target(t, $1), ots_cluster.range_hashes(t, $2, $3)"
						"  FROM ots_cluster.table_of($1, pg_catalog.current_setting('search_path')) AS t",
						3, types, values, nulls);
	desc = SPI_tuptable->tupdesc;
	MemoryContextSwitchTo(cxt);
	d = SPI_getbinval(row, desc, 1, &isnull);
	req->table = isnull ? (Datum) 0 : datumCopy(d, false, -1);
	d = SPI_getbinval(row, desc, 2, &isnull);
	req->target = isnull ? (Datum) 0 : datumCopy(d, false, -1);
	d = SPI_getbinval(row, desc, 3, &isnull);
	if (isnull)
		elog(ERROR, "ots_proxy: no shard to read the range from");
	deconstruct_array(DatumGetArrayTypeP(d), INT4OID, 4, true, TYPALIGN_INT, &hashes, NULL, &nhashes);
	range_key_def(&req->def, req->table != (Datum) 0 ? DatumGetHeapTupleHeader(req->table) : NULL,
				  !req->nulls[3] && range_is_upper(DatumGetTextPP(req->args[3]), "BACKWARD"));
	req->nshards = nhashes;
	req->shards = palloc0(sizeof(RangeShard) * Max(nhashes, 1));
	for (int i = 0; i < nhashes; i++)
	{
		RangeShard *s = &req->shards[i];

		s->hash = DatumGetInt32(hashes[i]);
		s->ctx = AllocSetContextCreate(cxt, "ots_proxy range page", ALLOCSET_DEFAULT_SIZES);
		s->next = req->nulls[1] ? NULL : DatumGetJsonbP(req->args[1]);
	}
	SPI_finish();
}

/* range_shard_of is the shard of req with routing hash hash */
static RangeShard *
range_shard_of(RangeRequest *req, int32 hash)
{
	for (int i = 0; i < req->nshards; i++)
		if (req->shards[i].hash == hash)
			return &req->shards[i];
	elog(ERROR, "ots_proxy: a page came from a shard not asked (hash %d)", hash);
	return NULL;
}

/*
 * range_fetch reads the next page of each shard of req that want names,
 * from its next key, all at once, at most limit rows each when limited
 * (else the shards' own cap; a limit the shards refuse is theirs to
 * refuse), and holds each in place of the shard's previous page.
 */
void
range_fetch(RangeRequest *req, const bool *want, int64 limit, bool limited)
{
	MemoryContext cxt = CurrentMemoryContext;
	Datum	   *hashes = palloc(sizeof(Datum) * req->nshards);
	Datum	   *starts = palloc(sizeof(Datum) * req->nshards);
	bool	   *startnulls = palloc(sizeof(bool) * req->nshards);
	int			n = 0;
	int			dims[1];
	int			lbs[1] = {1};
	Oid			types[13] = {INT4ARRAYOID, TEXTOID, JSONBARRAYOID, JSONBOID, TEXTOID, INT4OID,
	TEXTARRAYOID, INT4OID, JSONBOID, JSONBOID, BOOLOID, TEXTOID, TEXTOID};
	Datum		values[13];
	bool		nulls[13];
	HeapTuple	row;
	HeapTupleHeader page;
	bool		isnull;
	Datum		d;
	Datum	   *read;
	Datum	   *pages;
	bool	   *pagenulls;
	Datum	   *nexts;
	bool	   *nextnulls;
	Datum	   *consumed;
	bool	   *consumednulls;
	int			nread;

	for (int i = 0; i < req->nshards; i++)
		if (want[i])
		{
			hashes[n] = Int32GetDatum(req->shards[i].hash);
			starts[n] = PointerGetDatum(req->shards[i].next);
			startnulls[n] = req->shards[i].next == NULL;
			n++;
		}
	if (n == 0)
		return;
	dims[0] = n;
	values[0] = PointerGetDatum(construct_array(hashes, n, INT4OID, 4, true, TYPALIGN_INT));
	nulls[0] = false;
	values[1] = req->target;
	nulls[1] = req->target == (Datum) 0;
	values[2] = PointerGetDatum(construct_md_array(starts, startnulls, 1, dims, lbs,
												   JSONBOID, -1, false, TYPALIGN_INT));
	nulls[2] = false;
	/* exclusive_end, direction, then limit, then columns_to_get .. end_column */
	values[3] = req->args[2];
	nulls[3] = req->nulls[2];
	values[4] = req->args[3];
	nulls[4] = req->nulls[3];
	values[5] = Int32GetDatum((int32) Min(limit, PG_INT32_MAX));
	nulls[5] = !limited;
	for (int i = 5; i < 12; i++)
	{
		values[i + 1] = req->args[i];
		nulls[i + 1] = req->nulls[i];
	}

	SPI_connect();
	row = range_spi_row("SELECT ots_cluster.range_read($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
						13, types, values, nulls);
	d = SPI_getbinval(row, SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		elog(ERROR, "ots_proxy: ots_cluster.range_read returned NULL");
	page = DatumGetHeapTupleHeader(d);
	d = GetAttributeByNum(page, 1, &isnull);
	if (isnull)
		elog(ERROR, "ots_proxy: no page came from the shards");
	deconstruct_array(DatumGetArrayTypeP(d), INT4OID, 4, true, TYPALIGN_INT, &read, NULL, &nread);
	d = GetAttributeByNum(page, 2, &isnull);
	deconstruct_array(DatumGetArrayTypeP(d), JSONBOID, -1, false, TYPALIGN_INT, &pages, &pagenulls, &n);
	d = GetAttributeByNum(page, 3, &isnull);
	deconstruct_array(DatumGetArrayTypeP(d), JSONBOID, -1, false, TYPALIGN_INT, &nexts, &nextnulls, &n);
	d = GetAttributeByNum(page, 4, &isnull);
	deconstruct_array(DatumGetArrayTypeP(d), JSONBOID, -1, false, TYPALIGN_INT, &consumed, &consumednulls, &n);
	d = GetAttributeByNum(page, 5, &isnull);
	if (!isnull && (req->max_rows < 0 || DatumGetInt64(d) < req->max_rows))
		req->max_rows = DatumGetInt64(d);
	d = GetAttributeByNum(page, 6, &isnull);
	if (!isnull && (req->max_bytes < 0 || DatumGetInt64(d) < req->max_bytes))
		req->max_bytes = DatumGetInt64(d);
	for (int i = 0; i < nread; i++)
	{
		RangeShard *s = range_shard_of(req, DatumGetInt32(read[i]));

		MemoryContextReset(s->ctx);
		MemoryContextSwitchTo(s->ctx);
		s->page = pagenulls[i] ? NULL : DatumGetJsonbPCopy(pages[i]);
		s->next = nextnulls[i] ? NULL : DatumGetJsonbPCopy(nexts[i]);
		s->consumed = consumednulls[i] ? NULL : DatumGetJsonbPCopy(consumed[i]);
		s->rows = range_page_rows(&req->def, s->page, &s->nrows);
		s->pos = 0;
		s->done = s->next == NULL;
	}
	MemoryContextSwitchTo(cxt);
	SPI_finish();
}

/*
 * range_first_shard is the shard of req whose current row comes first in
 * the range's order, NULL when no shard holds a row not merged yet.
 */
RangeShard *
range_first_shard(RangeRequest *req)
{
	RangeShard *first = NULL;

	for (int i = 0; i < req->nshards; i++)
	{
		RangeShard *s = &req->shards[i];

		if (s->pos < s->nrows &&
			(first == NULL || range_key_cmp(&req->def, &s->rows[s->pos], &first->rows[first->pos]) < 0))
			first = s;
	}
	return first;
}

/*
 * range_advance moves past first's current row and past the same key on
 * any other shard (a partition being moved is briefly on two shards, its
 * copies identical), so each key is merged once.
 */
void
range_advance(RangeRequest *req, RangeShard *first)
{
	RangeRow   *row = &first->rows[first->pos];

	for (int i = 0; i < req->nshards; i++)
	{
		RangeShard *s = &req->shards[i];

		if (s != first && s->pos < s->nrows && range_key_cmp(&req->def, &s->rows[s->pos], row) == 0)
			s->pos++;
	}
	first->pos++;
}
