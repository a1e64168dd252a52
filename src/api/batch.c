/*-------------------------------------------------------------------------
 * src/api/batch.c
 *	  ots.batch_get_row and ots.batch_write_row: many rows of several tables
 *	  in one call, with one result per row in request order.
 *
 * Each row becomes the request of a single-row operation (row_get,
 * row_write: what ots.get_row, ots.put_row, ... run), built straight from
 * the batch's jsonb, and runs in its own subtransaction, so a row's OTS
 * error becomes its result and never undoes the other rows.  Errors that
 * are not Tablestore's (a cancel, a serialization failure, running out of
 * memory) still abort the whole call, as they must.  An atomic batch runs
 * a table's rows in one subtransaction: all of them are applied or none.
 * A table entry whose rows are all plain puts and deletes is written in
 * bulk instead (batch_bulk_table).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "api/batch.h"
#include "api/batch_request.h"
#include "meta/catalog.h"
#include "errors.h"
#include "subxact.h"
#include "api/request.h"
#include "api/row_bulk.h"
#include "api/row_ops.h"

#define BATCH_RESULT_COLUMNS 8

PG_FUNCTION_INFO_V1(ots_batch_get_row);
PG_FUNCTION_INFO_V1(ots_batch_write_row);

/*
 * the single-row operation of one batch row: a read or a write request,
 * and where its outcome goes
 */
typedef struct BatchRunArgs
{
	const RowGetRequest *get;	/* NULL: a write */
	const RowWriteRequest *write;
	BatchResult *res;
} BatchRunArgs;

/* batch_call_row runs the row's operation and keeps its result (SubxactWork) */
static bool
batch_call_row(void *arg)
{
	BatchRunArgs *a = arg;
	RowResult	r;

	if (a->get != NULL)
		row_get(a->get, &r);
	else
		row_write(a->write, &r);
	a->res->primary_key = PointerGetDatum(r.primary_key);
	a->res->has_row = r.primary_key != NULL;
	a->res->attributes = PointerGetDatum(r.attributes);
	a->res->consumed = r.consumed;
	a->res->is_ok = true;
	return true;
}

/*
 * batch_run runs one row's operation (get or write: the other is NULL)
 * inside a subtransaction and records its outcome; OTS errors become the
 * row's error, any other error propagates.
 */
static void
batch_run(const RowGetRequest *get, const RowWriteRequest *write, BatchResult *res)
{
	BatchRunArgs args = {get, write, res};
	bool		kept;
	ErrorData  *error = subxact_run(batch_call_row, &args, subxact_catch_ots, &kept);

	if (error != NULL)
	{
		res->is_ok = false;
		res->error_code = ots_error_code_name(error->sqlerrcode);
		res->error_message = error->message;
		res->has_row = false;
		res->attributes = (Datum) 0;
	}
}

void
batch_result_values(const BatchResult *r, Datum *values, bool *nulls)
{
	values[0] = PointerGetDatum(cstring_to_text(r->table_name));
	values[1] = Int32GetDatum(r->index);
	values[2] = BoolGetDatum(r->is_ok);
	nulls[3] = r->error_code == NULL;
	values[3] = nulls[3] ? (Datum) 0 : PointerGetDatum(cstring_to_text(r->error_code));
	nulls[4] = r->error_message == NULL;
	values[4] = nulls[4] ? (Datum) 0 : PointerGetDatum(cstring_to_text(r->error_message));
}

/* batch_emit writes the results, in order, to the set-returning call's tuplestore */
static void
batch_emit(FunctionCallInfo fcinfo, BatchResult *results, int n)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < n; i++)
	{
		BatchResult *r = &results[i];
		Datum		values[BATCH_RESULT_COLUMNS];
		bool		nulls[BATCH_RESULT_COLUMNS];

		memset(nulls, 0, sizeof(nulls));
		batch_result_values(r, values, nulls);
		nulls[5] = !r->has_row;
		values[5] = r->primary_key;
		nulls[6] = r->attributes == (Datum) 0;
		values[6] = r->attributes;
		/* a row that failed consumed nothing of its own */
		nulls[7] = !r->is_ok;
		values[7] = r->is_ok ? JsonbPGetDatum(request_consumed_jsonb(r->consumed)) : (Datum) 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/*
 * ots_batch_get_row is ots.batch_get_row(request): for each entry
 * {"table_name", "primary_keys": [...], read options of get_row...}, one
 * result per key in request order.
 */
Datum
ots_batch_get_row(PG_FUNCTION_ARGS)
{
	Jsonb	   *request = PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0);
	int			ntables;
	int			total = batch_get_read(request, &ntables);
	int			n = 0;
	BatchResult *results;

	results = palloc0(sizeof(BatchResult) * Max(total, 1));
	for (int i = 0; i < ntables; i++)
	{
		const char *name;
		JsonbContainer *entry = batch_entry(request, i, &name);
		JsonbContainer *keys = batch_list(entry, "primary_keys", name);
		RowGetRequest req;

		batch_get_request(&req, name, entry);
		for (int k = 0; k < JsonContainerSize(keys); k++, n++)
		{
			CHECK_FOR_INTERRUPTS();
			req.primary_key = JsonbValueToJsonb(getIthJsonbValueFromContainer(keys, k));
			results[n].table_name = name;
			results[n].index = k;
			batch_run(&req, NULL, &results[n]);
		}
	}
	batch_emit(fcinfo, results, n);
	return (Datum) 0;
}

/* ---- batch_write_row ---- */

/* batch_fail_rows gives every not-yet-failed row of a table the same error */
static void
batch_fail_rows(BatchResult *results, int from, int to, const char *code, const char *message)
{
	for (int i = from; i < to; i++)
	{
		if (results[i].error_code != NULL)
			continue;
		results[i].is_ok = false;
		results[i].has_row = false;
		results[i].attributes = (Datum) 0;
		results[i].consumed = (Consumed) {0};
		results[i].error_code = code;
		results[i].error_message = message;
	}
}

typedef struct BatchAtomicArgs
{
	const char *name;
	BatchRow   *rows;
	RowWriteRequest *reqs;
	BatchResult *results;
	int			nrows;
} BatchAtomicArgs;

/*
 * batch_atomic_rows applies a table's rows if they share the partition key,
 * stopping at the first failure; true when all were applied (SubxactWork).
 * When they do not, every row fails with Tablestore's one message naming
 * the atomic (first row's) partition key and the first one that differs.
 */
static bool
batch_atomic_rows(void *arg)
{
	BatchAtomicArgs *a = arg;
	OtsTable   *t = catalog_lookup(cstring_to_text(a->name));
	char	   *atomic_key = batch_partition_key(t, &a->rows[0].pk);

	for (int r = 0; r < a->nrows; r++)
	{
		char	   *key = batch_partition_key(t, &a->rows[r].pk);

		if (atomic_key == NULL || key == NULL || strcmp(atomic_key, key) != 0)
		{
			batch_fail_rows(a->results, 0, a->nrows, "OTSDataOutOfRange",
							psprintf("Data out of scope of atomic. Atomic PartKey:%s. Data PartKey:%s",
									 atomic_key ? atomic_key : "", key ? key : ""));
			return false;
		}
	}
	for (int r = 0; r < a->nrows; r++)
	{
		CHECK_FOR_INTERRUPTS();
		batch_run(NULL, &a->reqs[r], &a->results[r]);
		if (!a->results[r].is_ok)
		{
			batch_fail_rows(a->results, 0, a->nrows, a->results[r].error_code,
							psprintf("Atomic BatchWriteRow failed: row %d of table '%s' failed.",
									 r, a->name));
			return false;
		}
	}
	return true;
}

/*
 * batch_atomic_table applies one table's rows all-or-nothing inside a
 * subtransaction: every row must share the partition key, and a failing
 * row rolls back the others.
 */
static void
batch_atomic_table(const char *name, BatchRow *rows, RowWriteRequest *reqs,
				   BatchResult *results, int nrows)
{
	BatchAtomicArgs args = {name, rows, reqs, results, nrows};
	bool		kept;
	ErrorData  *error = subxact_run(batch_atomic_rows, &args, subxact_catch_ots, &kept);

	if (error != NULL)
		batch_fail_rows(results, 0, nrows, ots_error_code_name(error->sqlerrcode), error->message);
}

/*
 * batch_bulk_table writes a table entry whose rows are all plain, with
 * distinct keys, in bulk (row_bulk_write) instead of one subtransaction
 * and statement per row: a row that fails validation, or fails over a
 * stored row, gets its error and is left out.  Returns false, having done
 * nothing, when the table needs the per-row path (it does not exist,
 * generates keys, or is an index, whose rows each fail).
 */
static bool
batch_bulk_table(const char *name, BatchRow *rows, int nrows, BatchResult *results)
{
	OtsTable   *t = catalog_lookup_quiet(cstring_to_text(name));
	RowBulkRow *bulk;

	if (t == NULL || !row_bulk_takes(t))
		return false;
	bulk = palloc0(sizeof(RowBulkRow) * nrows);
	for (int r = 0; r < nrows; r++)
	{
		bulk[r].kind = rows[r].type->kind;
		bulk[r].primary_key = DatumGetJsonbP(rows[r].pk_jsonb);
		bulk[r].attributes = bulk[r].kind == ROW_WRITE_PUT ? batch_put_attributes(&rows[r]) : NULL;
	}
	row_bulk_write(t, bulk, nrows, ROW_BULK_EACH, "ots.batch_write_row");
	for (int r = 0; r < nrows; r++)
	{
		results[r].table_name = name;
		results[r].index = r;
		results[r].is_ok = bulk[r].error == NULL;
		if (bulk[r].error != NULL)
		{
			results[r].error_code = ots_error_code_name(bulk[r].error->sqlerrcode);
			results[r].error_message = bulk[r].error->message;
		}
		else
			results[r].consumed = bulk[r].consumed;
	}
	return true;
}

/*
 * batch_write_table applies the rows of table entry i: in bulk when they
 * are all plain, else each as its write request, one subtransaction per
 * row, or one for them all when atomic.
 */
static void
batch_write_table(const BatchWrite *bw, int i, bool is_atomic, BatchResult *results)
{
	const char *name = bw->names[i];
	BatchRow   *rows = bw->tables[i];
	int			nrows = bw->counts[i];
	bool		bulk = !is_atomic;
	text	   *table_name;
	RowWriteRequest *reqs;

	for (int r = 0; bulk && r < nrows; r++)
		bulk = !rows[r].repeated && batch_is_plain(&rows[r]);
	if (bulk && batch_bulk_table(name, rows, nrows, results))
		return;

	table_name = cstring_to_text(name);
	reqs = palloc(sizeof(RowWriteRequest) * nrows);
	for (int r = 0; r < nrows; r++)
	{
		batch_write_request(&reqs[r], table_name, &rows[r]);
		results[r].table_name = name;
		results[r].index = r;
	}
	if (is_atomic)
		batch_atomic_table(name, rows, reqs, results, nrows);
	else
		for (int r = 0; r < nrows; r++)
		{
			CHECK_FOR_INTERRUPTS();
			batch_run(NULL, &reqs[r], &results[r]);
		}
}

/*
 * ots_batch_write_row is ots.batch_write_row(request, is_atomic): for each
 * entry {"table_name", "rows": [{"type": "PUT"|"UPDATE"|"DELETE",
 * "primary_key", and that function's arguments by name}]}, applies the rows
 * in order and returns one result per row.
 */
Datum
ots_batch_write_row(PG_FUNCTION_ARGS)
{
	Jsonb	   *request = PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0);
	bool		is_atomic = !PG_ARGISNULL(1) && PG_GETARG_BOOL(1);
	int			n;
	BatchResult *results = batch_write_rows(request, is_atomic, &n);

	batch_emit(fcinfo, results, n);
	return (Datum) 0;
}

BatchResult *
batch_write_rows(Jsonb *request, bool is_atomic, int *n)
{
	BatchWrite	bw;
	BatchResult *results;

	batch_write_read(&bw, request);
	results = palloc0(sizeof(BatchResult) * Max(bw.total, 1));
	*n = 0;
	for (int i = 0; i < bw.ntables; i++)
	{
		batch_write_table(&bw, i, is_atomic, &results[*n]);
		*n += bw.counts[i];
	}
	return results;
}
