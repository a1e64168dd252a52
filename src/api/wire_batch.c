/*-------------------------------------------------------------------------
 * src/api/wire_batch.c
 *	  BatchWriteRow in Tablestore's wire format, for otsd: the request as
 *	  ots.batch_write_row takes it, but each row's key and cells as the
 *	  PlainBuffer bytes the client sent (read by api/wire_row.c), and each
 *	  returned row as PlainBuffer, so that neither otsd nor PostgreSQL
 *	  renders or parses a row as JSON text (gateway/action_batch.c).
 *
 * The rows' bytes are put into the request where otsd's jsonb path puts
 * them ("primary_key", and "attributes" or "put", "delete", "delete_all",
 * "increment" by the row's "type"), and the request then runs as
 * ots.batch_write_row runs it: the same checks, results and messages.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "api/batch.h"
#include "api/batch_request.h"
#include "api/wire.h"
#include "api/wire_row.h"
#include "errors.h"
#include "format/codec.h"

PG_FUNCTION_INFO_V1(ots_wire_batch_write_row);

#define WIRE_BATCH_RESULT_COLUMNS 8

/* the rows' bytes, and the rows read from them, in request order */
typedef struct WireBatchRows
{
	Datum	   *bytes;
	bool	   *nulls;
	int			n;
	int			next;			/* the next row to read */
	WireRow   **rows;
} WireBatchRows;

/* push_delete_all: the DELETE_ALL_VERSION columns, in request order */
static void
push_delete_all(JsonbParseState **state, const WireRow *w)
{
	JsonbValue	v;

	pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < w->ndelete_all; i++)
	{
		v.type = jbvString;
		v.val.string.val = (char *) w->delete_all[i];
		v.val.string.len = strlen(w->delete_all[i]);
		pushJsonbValue(state, WJB_ELEM, &v);
	}
	pushJsonbValue(state, WJB_END_ARRAY, NULL);
}

/* the "type" of a row object; NULL when it has none that is a string */
static const char *
row_type(JsonbContainer *row)
{
	JsonbValue	v;

	if (getKeyJsonValueFromContainer(row, CODEC_KEY("type"), &v) == NULL || v.type != jbvString)
		return NULL;
	return pnstrdup(v.val.string.val, v.val.string.len);
}

/*
 * push_row: a row object of the request with the next row's bytes read into
 * it, as otsd's jsonb path writes a row: its members, the key, and the
 * cells its type takes
 */
static void
push_row(JsonbParseState **state, JsonbContainer *row, WireBatchRows *rows)
{
	JsonbIterator *it = JsonbIteratorInit(row);
	JsonbValue	v;
	JsonbIteratorToken tok;
	WireRow    *w = palloc(sizeof(WireRow));
	const char *type = row_type(row);

	CHECK_FOR_INTERRUPTS();
	if (rows->next >= rows->n || rows->nulls[rows->next])
		ots_error(PARAMETER_INVALID, "The rows' bytes do not match the request's rows.");
	wire_read_row(DatumGetByteaPP(rows->bytes[rows->next]), w);
	rows->rows[rows->next++] = w;

	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY || tok == WJB_VALUE)
			pushJsonbValue(state, tok, &v);
	codec_push_key(state, CODEC_KEY("primary_key"));
	wire_push_key(state, w);
	/* the types as batch_write_row reads them: any case */
	if (type != NULL && pg_strcasecmp(type, "PUT") == 0)
	{
		codec_push_key(state, CODEC_KEY("attributes"));
		wire_push_puts(state, &w->puts);
	}
	else if (type != NULL && pg_strcasecmp(type, "UPDATE") == 0)
	{
		if (w->puts.n > 0)
		{
			codec_push_key(state, CODEC_KEY("put"));
			wire_push_puts(state, &w->puts);
		}
		if (w->deletes.n > 0)
		{
			codec_push_key(state, CODEC_KEY("delete"));
			wire_push_deletes(state, &w->deletes);
		}
		if (w->ndelete_all > 0)
		{
			codec_push_key(state, CODEC_KEY("delete_all"));
			push_delete_all(state, w);
		}
		if (w->increments.n > 0)
		{
			codec_push_key(state, CODEC_KEY("increment"));
			wire_push_increments(state, &w->increments);
		}
	}
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/*
 * push_entry: a table entry of the request, its "rows" array's objects with
 * the next rows' bytes read into them; anything else as it is
 */
static void
push_entry(JsonbParseState **state, JsonbContainer *entry, WireBatchRows *rows)
{
	JsonbIterator *it = JsonbIteratorInit(entry);
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		rows_key = false;

	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
			rows_key = v.val.string.len == 4 && memcmp(v.val.string.val, "rows", 4) == 0;
		if (tok == WJB_VALUE && rows_key && v.type == jbvBinary && JsonContainerIsArray(v.val.binary.data))
		{
			JsonbContainer *list = v.val.binary.data;

			pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
			for (int r = 0; r < JsonContainerSize(list); r++)
			{
				JsonbValue *row = getIthJsonbValueFromContainer(list, r);

				if (row->type == jbvBinary && JsonContainerIsObject(row->val.binary.data))
					push_row(state, row->val.binary.data, rows);
				else
					pushJsonbValue(state, WJB_ELEM, row);
			}
			pushJsonbValue(state, WJB_END_ARRAY, NULL);
		}
		else if (tok == WJB_KEY || tok == WJB_VALUE)
			pushJsonbValue(state, tok, &v);
	}
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/*
 * wire_request: the request with every row's bytes read into it, in order;
 * whatever is not an entry's "rows" array of objects is left as it is, for
 * batch_write_row's checks to refuse
 */
static Jsonb *
wire_request(Jsonb *skeleton, WireBatchRows *rows)
{
	JsonbParseState *state = NULL;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (skeleton == NULL || !JB_ROOT_IS_ARRAY(skeleton) || JB_ROOT_IS_SCALAR(skeleton))
		return skeleton;
	it = JsonbIteratorInit(&skeleton->root);
	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		if (v.type == jbvBinary && JsonContainerIsObject(v.val.binary.data))
			push_entry(&state, v.val.binary.data, rows);
		else
			pushJsonbValue(&state, WJB_ELEM, &v);
	}
	if (rows->next != rows->n)
		ots_error(PARAMETER_INVALID, "The rows' bytes do not match the request's rows.");
	return JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_ARRAY, NULL));
}

/*
 * The call's own memory, kept for the backend's life and emptied after
 * each call.  A batch of 200 small rows builds about a megabyte of request
 * before it runs; allocated afresh each call, that memory went back to the
 * C library at the call's end and was faulted in again by the next one
 * whenever glibc trimmed the heap, which depends on what the backend ran
 * before (its trim threshold moves with the largest block it ever freed):
 * in otsd's pooled backends a batch then cost 3 to 4 times the CPU of the
 * same batch in a new one (bench/README.md, "The SDK path").  The kept
 * block holds such a batch's small pieces without a malloc; a piece over
 * 8 kB (the request's jsonb) and the contexts the writes make still come
 * from malloc.  The block stays with every backend that ever called this.
 */
#define WIRE_BATCH_KEPT_BYTES (4 * 1024 * 1024)

static MemoryContext wire_batch_memory;
static bool wire_batch_memory_busy;

/* wire_batch_results: the results of the call's batch into its tuplestore */
static void
wire_batch_results(FunctionCallInfo fcinfo, const BatchResult *results, int n,
				   const WireBatchRows *rows)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < n; i++)
	{
		const BatchResult *r = &results[i];
		Datum		values[WIRE_BATCH_RESULT_COLUMNS];
		bool		nulls[WIRE_BATCH_RESULT_COLUMNS] = {0};
		StringInfoData buf;

		batch_result_values(r, values, nulls);
		wire_buffer(&buf);
		if (r->is_ok && i < rows->n)
			wire_returned_row(&buf, rows->rows[i],
							  r->has_row ? DatumGetJsonbP(r->primary_key) : NULL,
							  r->attributes != (Datum) 0 ? DatumGetJsonbP(r->attributes) : NULL);
		values[5] = PointerGetDatum(wire_bytea(&buf));
		values[6] = Int32GetDatum(r->consumed.read);
		values[7] = Int32GetDatum(r->consumed.write);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/*
 * ots_wire_batch_write_row is ots.wire_batch_write_row(request, "rows",
 * is_atomic): ots.batch_write_row of request, whose row objects leave out
 * their key and cells, with rows[i], the PlainBuffer bytes of the i-th row
 * object in request order, read into it; one result per row, its returned
 * row as PlainBuffer (empty: none) and its capacity units as integers.
 */
Datum
ots_wire_batch_write_row(PG_FUNCTION_ARGS)
{
	Jsonb	   *skeleton = PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0);
	bool		is_atomic = !PG_ARGISNULL(2) && PG_GETARG_BOOL(2);
	/* a call within a call (a function run by the batch's writes) gets memory of its own */
	bool		kept = !wire_batch_memory_busy;
	MemoryContext callctx;
	MemoryContext callerctx = CurrentMemoryContext;

	request_require(fcinfo, 1, "rows");
	if (kept && wire_batch_memory == NULL)
		wire_batch_memory = AllocSetContextCreate(TopMemoryContext, "ots wire batch",
												  WIRE_BATCH_KEPT_BYTES, WIRE_BATCH_KEPT_BYTES,
												  ALLOCSET_DEFAULT_MAXSIZE);
	callctx = kept ? wire_batch_memory :
		AllocSetContextCreate(CurrentMemoryContext, "ots wire batch", ALLOCSET_DEFAULT_SIZES);
	wire_batch_memory_busy = true;
	PG_TRY();
	{
		WireBatchRows rows = {0};
		BatchResult *results;
		int			n;

		MemoryContextSwitchTo(callctx);
		deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), BYTEAOID, -1, false, TYPALIGN_INT,
						  &rows.bytes, &rows.nulls, &rows.n);
		/* refused before any row is read, as otsd refuses it: a row read takes memory */
		batch_write_check_count(rows.n);
		rows.rows = palloc0(sizeof(WireRow *) * Max(rows.n, 1));
		results = batch_write_rows(wire_request(skeleton, &rows), is_atomic, &n);
		wire_batch_results(fcinfo, results, n, &rows);
	}
	PG_FINALLY();
	{
		MemoryContextSwitchTo(callerctx);
		if (kept)
		{
			wire_batch_memory_busy = false;
			MemoryContextReset(wire_batch_memory);
		}
		else
			MemoryContextDelete(callctx);
	}
	PG_END_TRY();
	return (Datum) 0;
}
