/*-------------------------------------------------------------------------
 * src/batch.c
 *	  ots.batch_get_row and ots.batch_write_row: many rows of several tables
 *	  in one call, with one result per row in request order.
 *
 * Each row runs the single-row function (ots.get_row, ots.put_row, ...) in
 * its own subtransaction, so a row's OTS error becomes its result and
 * never undoes the other rows.  Errors that are not Tablestore's (a
 * cancel, a serialization failure, running out of memory) still abort the
 * whole call, as they must.  An atomic batch runs a table's rows in one
 * subtransaction: all of them are applied or none.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "common/base64.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "catalog.h"
#include "codec.h"
#include "errors.h"
#include "limits.h"
#include "stats.h"
#include "subxact.h"
#include "rowstore.h"
#include "row_write.h"
#include "storage.h"
#include "request.h"
#include "read_select.h"
#include "purge.h"

#define BATCH_RESULT_COLUMNS 8

/* one row's outcome */
typedef struct BatchResult
{
	const char *table_name;
	int			index;			/* position within its table's list, from 0 */
	bool		is_ok;
	const char *error_code;
	const char *error_message;
	Datum		primary_key;
	Datum		attributes;
	Datum		consumed;
	bool		has_row;
} BatchResult;

/* a call of one single-row function */
typedef struct RowCall
{
	Oid			funcoid;
	int			nargs;
	Datum		args[10];
	bool		nulls[10];
} RowCall;

PG_FUNCTION_INFO_V1(ots_batch_get_row);
PG_FUNCTION_INFO_V1(ots_batch_write_row);

static void
batch_invalid(const char *message, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_OTS_PARAMETER_INVALID),
			 errmsg_internal("%s", message),
			 errdetail_internal("%s", detail)));
}

/* batch_func_oid finds ots.<name> taking nargs arguments */
static Oid
batch_func_oid(const char *name, int nargs, const Oid *argtypes)
{
	return LookupFuncName(list_make2(makeString("ots"), makeString(pstrdup(name))),
						  nargs, argtypes, false);
}

/* batch_field returns a member of a jsonb object value, or NULL */
static JsonbValue *
batch_field(JsonbContainer *obj, const char *key, JsonbValue *out)
{
	return getKeyJsonValueFromContainer(obj, key, strlen(key), out);
}

/* batch_jsonb_datum turns a JsonbValue (scalar or container) into a jsonb Datum */
static Datum
batch_jsonb_datum(JsonbValue *v)
{
	return JsonbPGetDatum(JsonbValueToJsonb(v));
}

/* batch_text_array turns a JSON array of strings into text[] */
static Datum
batch_text_array(JsonbValue *v, const char *what)
{
	JsonbContainer *c;
	int			n;
	Datum	   *elems;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		batch_invalid(psprintf("Invalid %s.", what), psprintf("%s is a JSON array of column names.", what));
	c = v->val.binary.data;
	n = JsonContainerSize(c);
	elems = palloc(sizeof(Datum) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(c, i);

		if (e->type != jbvString)
			batch_invalid(psprintf("Invalid %s.", what), psprintf("%s is a JSON array of column names.", what));
		elems[i] = PointerGetDatum(cstring_to_text_with_len(e->val.string.val, e->val.string.len));
	}
	return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/* batch_string reads a JSON string member as text, NULL when absent */
static bool
batch_text_field(JsonbContainer *obj, const char *key, Datum *out)
{
	JsonbValue	v;

	if (batch_field(obj, key, &v) == NULL || v.type == jbvNull)
		return false;
	if (v.type != jbvString)
		batch_invalid(psprintf("Invalid %s.", key), psprintf("%s is a JSON string.", key));
	*out = PointerGetDatum(cstring_to_text_with_len(v.val.string.val, v.val.string.len));
	return true;
}

/* batch_set_jsonb_arg sets argument n from an optional jsonb member */
static void
batch_set_jsonb_arg(RowCall *call, int n, JsonbContainer *obj, const char *key)
{
	JsonbValue	v;

	call->nulls[n] = batch_field(obj, key, &v) == NULL || v.type == jbvNull;
	if (!call->nulls[n])
		call->args[n] = batch_jsonb_datum(&v);
}

static void
batch_set_text_arg(RowCall *call, int n, JsonbContainer *obj, const char *key)
{
	call->nulls[n] = !batch_text_field(obj, key, &call->args[n]);
}

static void
batch_set_array_arg(RowCall *call, int n, JsonbContainer *obj, const char *key)
{
	JsonbValue	v;

	call->nulls[n] = batch_field(obj, key, &v) == NULL || v.type == jbvNull;
	if (!call->nulls[n])
		call->args[n] = batch_text_array(&v, key);
}

typedef struct BatchRunArgs
{
	RowCall    *call;
	BatchResult *res;
} BatchRunArgs;

/* batch_call_row calls the row's function and keeps its result (SubxactWork) */
static bool
batch_call_row(void *arg)
{
	BatchRunArgs *a = arg;
	FmgrInfo	flinfo;
	LOCAL_FCINFO(fcinfo, 10);
	HeapTupleHeader tup;
	bool		isnull;

	fmgr_info(a->call->funcoid, &flinfo);
	InitFunctionCallInfoData(*fcinfo, &flinfo, a->call->nargs, InvalidOid, NULL, NULL);
	for (int i = 0; i < a->call->nargs; i++)
	{
		fcinfo->args[i].value = a->call->args[i];
		fcinfo->args[i].isnull = a->call->nulls[i];
	}
	tup = DatumGetHeapTupleHeader(FunctionCallInvoke(fcinfo));
	a->res->primary_key = GetAttributeByNum(tup, 1, &isnull);
	a->res->has_row = !isnull;
	a->res->attributes = GetAttributeByNum(tup, 2, &isnull);
	if (isnull)
		a->res->attributes = (Datum) 0;
	a->res->consumed = GetAttributeByNum(tup, 3, &isnull);
	a->res->is_ok = true;
	return true;
}

/*
 * batch_run calls one single-row function inside a subtransaction and
 * records its outcome; OTS errors become the row's error, any other error
 * propagates.
 */
static void
batch_run(RowCall *call, BatchResult *res)
{
	BatchRunArgs args = {call, res};
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
		values[0] = PointerGetDatum(cstring_to_text(r->table_name));
		values[1] = Int32GetDatum(r->index);
		values[2] = BoolGetDatum(r->is_ok);
		nulls[3] = r->error_code == NULL;
		values[3] = nulls[3] ? (Datum) 0 : PointerGetDatum(cstring_to_text(r->error_code));
		nulls[4] = r->error_message == NULL;
		values[4] = nulls[4] ? (Datum) 0 : PointerGetDatum(cstring_to_text(r->error_message));
		nulls[5] = !r->has_row;
		values[5] = r->primary_key;
		nulls[6] = r->attributes == (Datum) 0;
		values[6] = r->attributes;
		nulls[7] = r->consumed == (Datum) 0;
		values[7] = r->consumed;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* batch_tables checks the request is a JSON array of table entries */
static int
batch_tables(Jsonb *request, const char *empty_message)
{
	if (request == NULL || !JB_ROOT_IS_ARRAY(request) || JB_ROOT_IS_SCALAR(request))
		batch_invalid(empty_message, "The request is a JSON array of {\"table_name\": ..., ...} entries.");
	if (JB_ROOT_COUNT(request) == 0)
		ots_error(PARAMETER_INVALID, "%s", empty_message);
	return JB_ROOT_COUNT(request);
}

/* batch_entry returns table entry i and its table name */
static JsonbContainer *
batch_entry(Jsonb *request, int i, const char **table_name)
{
	JsonbValue *e = getIthJsonbValueFromContainer(&request->root, i);
	JsonbValue	name;

	if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data) ||
		batch_field(e->val.binary.data, "table_name", &name) == NULL || name.type != jbvString)
		batch_invalid("Invalid table entry.", "Each entry is an object with a \"table_name\" string.");
	*table_name = pnstrdup(name.val.string.val, name.val.string.len);
	return e->val.binary.data;
}

/* batch_list returns the entry's array member "key" */
static JsonbContainer *
batch_list(JsonbContainer *entry, const char *key, const char *table_name)
{
	JsonbValue	v;

	if (batch_field(entry, key, &v) == NULL || v.type != jbvBinary ||
		!JsonContainerIsArray(v.val.binary.data))
		batch_invalid(psprintf("Invalid table entry for table: '%s'.", table_name),
					  psprintf("Each entry needs a \"%s\" array.", key));
	return v.val.binary.data;
}

/* batch_entry_list returns table entry i's array "key", and its table name */
static JsonbContainer *
batch_entry_list(Jsonb *request, int i, const char *key, const char **table_name)
{
	JsonbContainer *entry = batch_entry(request, i, table_name);

	return batch_list(entry, key, *table_name);
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
	int			ntables = batch_tables(request, "No row specified in the request of BatchGetRow.");
	int			total = 0;
	int			n = 0;
	BatchResult *results;
	Oid			argtypes[9] = {TEXTOID, JSONBOID, TEXTARRAYOID, INT4OID, JSONBOID, JSONBOID,
	BOOLOID, TEXTOID, TEXTOID};
	Oid			get_row = batch_func_oid("get_row", 9, argtypes);

	for (int i = 0; i < ntables; i++)
	{
		const char *name;
		int			nkeys = JsonContainerSize(batch_entry_list(request, i, "primary_keys", &name));

		/* as an empty request is an error, so is an entry without keys */
		if (nkeys == 0)
			ots_error(PARAMETER_INVALID, "No row specified in table: '%s'.", name);
		total += nkeys;
	}
	if (total > OTS_MAX_BATCH_GET_ROWS)
		ots_error(PARAMETER_INVALID, "Rows count exceeds the upper limit: %d.", OTS_MAX_BATCH_GET_ROWS);

	results = palloc0(sizeof(BatchResult) * Max(total, 1));
	for (int i = 0; i < ntables; i++)
	{
		const char *name;
		JsonbContainer *entry = batch_entry(request, i, &name);
		JsonbContainer *keys = batch_list(entry, "primary_keys", name);
		RowCall		call;
		JsonbValue	v;

		memset(&call, 0, sizeof(call));
		call.funcoid = get_row;
		call.nargs = 9;
		call.args[0] = PointerGetDatum(cstring_to_text(name));
		batch_set_array_arg(&call, 2, entry, "columns_to_get");
		call.nulls[3] = batch_field(entry, "max_versions", &v) == NULL || v.type == jbvNull;
		if (!call.nulls[3])
		{
			bool		invalid = v.type != jbvNumeric;

			/* an integral JSON number within int32; get_row checks the rest */
			if (!invalid)
				invalid = strchr(DatumGetCString(DirectFunctionCall1(numeric_out,
																	 NumericGetDatum(v.val.numeric))),
								 '.') != NULL;
			if (!invalid)
				call.args[3] = Int32GetDatum(numeric_int4_opt_error(v.val.numeric, &invalid));
			if (invalid)
				batch_invalid("Invalid max_versions.", "max_versions is a JSON integer.");
		}
		batch_set_jsonb_arg(&call, 4, entry, "time_range");
		batch_set_jsonb_arg(&call, 5, entry, "filter");
		call.nulls[6] = batch_field(entry, "with_timestamps", &v) == NULL || v.type != jbvBool;
		if (!call.nulls[6])
			call.args[6] = BoolGetDatum(v.val.boolean);
		batch_set_text_arg(&call, 7, entry, "start_column");
		batch_set_text_arg(&call, 8, entry, "end_column");

		for (int k = 0; k < JsonContainerSize(keys); k++, n++)
		{
			JsonbValue *pk = getIthJsonbValueFromContainer(keys, k);

			CHECK_FOR_INTERRUPTS();
			call.args[1] = batch_jsonb_datum(pk);
			call.nulls[1] = false;
			results[n].table_name = name;
			results[n].index = k;
			batch_run(&call, &results[n]);
		}
	}
	batch_emit(fcinfo, results, n);
	return (Datum) 0;
}

/* ---- batch_write_row ---- */

typedef enum WriteType
{
	WRITE_PUT,
	WRITE_UPDATE,
	WRITE_DELETE
} WriteType;

/*
 * batch_cells_size: the data size of a row's attribute map member "key"
 * (timestamps checked for the whole request); 0 when absent
 */
static uint64
batch_cells_size(JsonbContainer *row, const char *key, bool values)
{
	JsonbValue	map;

	if (batch_field(row, key, &map) == NULL || map.type != jbvBinary)
		return 0;
	return codec_cells_data_size(map.val.binary.data, values, true);
}

static WriteType
batch_write_type(JsonbContainer *row)
{
	JsonbValue	v;
	char	   *s;

	if (batch_field(row, "type", &v) == NULL || v.type != jbvString)
		batch_invalid("Invalid row type.", "Each row has \"type\": \"PUT\", \"UPDATE\" or \"DELETE\".");
	s = pnstrdup(v.val.string.val, v.val.string.len);
	if (pg_strcasecmp(s, "PUT") == 0)
		return WRITE_PUT;
	if (pg_strcasecmp(s, "UPDATE") == 0)
		return WRITE_UPDATE;
	if (pg_strcasecmp(s, "DELETE") == 0)
		return WRITE_DELETE;
	batch_invalid(psprintf("Invalid row type: '%s'.", s),
				  "Each row has \"type\": \"PUT\", \"UPDATE\" or \"DELETE\".");
	return WRITE_PUT;			/* keep compiler quiet */
}

/* batch_has_condition: does a row carry a row-existence check? */
static bool
batch_has_existence_check(JsonbContainer *row)
{
	JsonbValue	v;

	return batch_field(row, "condition", &v) != NULL && v.type == jbvString &&
		!(v.val.string.len == 6 && pg_strncasecmp(v.val.string.val, "IGNORE", 6) == 0);
}

static bool
batch_has_column_condition(JsonbContainer *row)
{
	JsonbValue	v;

	return batch_field(row, "column_condition", &v) != NULL && v.type != jbvNull;
}

/* batch_row_pk returns a row's primary key member (validated by the row call) */
static JsonbValue *
batch_row_pk(JsonbContainer *row, JsonbValue *out)
{
	if (batch_field(row, "primary_key", out) == NULL)
	{
		out->type = jbvNull;
		return out;
	}
	return out;
}

/*
 * batch_partition_key renders the partition-key value of a row's key for
 * OTSDataOutOfRange messages; NULL when the key has no such member.
 */
static char *
batch_partition_key(const OtsTable *t, JsonbValue *pk)
{
	JsonbValue	v;

	if (pk->type != jbvBinary || !JsonContainerIsObject(pk->val.binary.data) ||
		batch_field(pk->val.binary.data, t->pk[0].name, &v) == NULL)
		return NULL;
	if (v.type == jbvString)
		return pnstrdup(v.val.string.val, v.val.string.len);
	return JsonbToCString(NULL, &JsonbValueToJsonb(&v)->root, 16);
}

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
		results[i].consumed = (Datum) 0;
		results[i].error_code = code;
		results[i].error_message = message;
	}
}

typedef struct BatchAtomicArgs
{
	const char *name;
	RowCall    *calls;
	JsonbValue *pks;
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
	char	   *atomic_key = batch_partition_key(t, &a->pks[0]);

	for (int r = 0; r < a->nrows; r++)
	{
		char	   *key = batch_partition_key(t, &a->pks[r]);

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
		batch_run(&a->calls[r], &a->results[r]);
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
batch_atomic_table(const char *name, RowCall *calls, JsonbValue *pks, BatchResult *results,
				   int nrows)
{
	BatchAtomicArgs args = {name, calls, pks, results, nrows};
	bool		kept;
	ErrorData  *error = subxact_run(batch_atomic_rows, &args, subxact_catch_ots, &kept);

	if (error != NULL)
		batch_fail_rows(results, 0, nrows, ots_error_code_name(error->sqlerrcode), error->message);
}

/* one row of a batch_write_row request, as the checks and the bulk path see it */
typedef struct BatchRow
{
	JsonbContainer *row;
	WriteType	type;
	JsonbValue	pk;				/* jbvNull when absent */
	Datum		pk_jsonb;		/* the same as a jsonb Datum, when an object */
	uint32		pk_hash;
	bool		repeated;		/* another row of its table (in any entry) has the same key */
} BatchRow;

/* batch_pk_order sorts rows by key hash, for finding repeated keys */
static int
batch_pk_order(const void *a, const void *b)
{
	const BatchRow *x = *(BatchRow *const *) a;
	const BatchRow *y = *(BatchRow *const *) b;

	return (x->pk_hash > y->pk_hash) - (x->pk_hash < y->pk_hash);
}

/* batch_member_is: is the member absent, JSON null, or this string (any case)? */
static bool
batch_member_is(JsonbContainer *row, const char *key, const char *value)
{
	JsonbValue	v;

	if (batch_field(row, key, &v) == NULL || v.type == jbvNull)
		return true;
	return v.type == jbvString && v.val.string.len == strlen(value) &&
		pg_strncasecmp(v.val.string.val, value, v.val.string.len) == 0;
}

/*
 * batch_is_plain: a PUT or DELETE that needs no read and returns nothing,
 * with every optional member absent or at its default (anything else, even
 * malformed, goes the per-row way, which reports it)
 */
static bool
batch_is_plain(const BatchRow *br)
{
	return br->type != WRITE_UPDATE && br->pk.type == jbvBinary &&
		batch_member_is(br->row, "condition", "IGNORE") &&
		!batch_has_column_condition(br->row) &&
		batch_member_is(br->row, "return_type", "RT_NONE");
}

/*
 * batch_check_repeats marks the rows of one table (of all its entries) whose
 * key repeats, and rejects repeats that carry conditions, as Tablestore
 * does.  Sorting by key hash (order is sorted in place) keeps this
 * O(n log n).
 */
static void
batch_check_repeats(BatchRow **order, int nrows)
{
	for (int r = 0; r < nrows; r++)
		order[r]->pk_hash = order[r]->pk.type == jbvBinary ?
			DatumGetUInt32(DirectFunctionCall1(jsonb_hash, order[r]->pk_jsonb)) : 0;
	qsort(order, nrows, sizeof(BatchRow *), batch_pk_order);
	for (int i = 0; i < nrows; i++)
		for (int j = i + 1; j < nrows && order[j]->pk_hash == order[i]->pk_hash; j++)
		{
			BatchRow   *a = order[i];
			BatchRow   *b = order[j];

			if (a->pk.type != jbvBinary || b->pk.type != jbvBinary ||
				!DatumGetBool(DirectFunctionCall2(jsonb_eq, a->pk_jsonb, b->pk_jsonb)))
				continue;
			a->repeated = b->repeated = true;
			if (batch_has_existence_check(a->row) || batch_has_existence_check(b->row))
				ots_error(PARAMETER_INVALID,
						  "Repeated rows do not support row exist expectation check in BatchModify.");
			if (batch_has_column_condition(a->row) || batch_has_column_condition(b->row))
				ots_error(PARAMETER_INVALID,
						  "Repeated rows do not support row condition check in BatchModify.");
		}
}

/*
 * batch_same_table: do entries i and j name one table?  Compared by the
 * storage each name resolves to ("t" and "public.t" are one table), by the
 * names themselves where a name resolves to none.
 */
static bool
batch_same_table(const char **names, const Oid *storage, int i, int j)
{
	if (OidIsValid(storage[i]) || OidIsValid(storage[j]))
		return storage[i] == storage[j];
	return strcmp(names[i], names[j]) == 0;
}

/*
 * batch_check_table_repeats runs batch_check_repeats once per table, over
 * the rows of every entry naming it: two entries of one table are one table
 * (so a key repeated across them never takes the bulk path either).
 */
static void
batch_check_table_repeats(BatchRow **tables, const char **names, const int *counts,
						  int ntables, int total)
{
	BatchRow  **rows = palloc(sizeof(BatchRow *) * total);
	Oid		   *storage = palloc(sizeof(Oid) * ntables);

	for (int i = 0; i < ntables; i++)
	{
		OtsTable   *t = catalog_lookup_quiet(cstring_to_text(names[i]));

		storage[i] = t != NULL ? t->data_oid : InvalidOid;
	}
	for (int i = 0; i < ntables; i++)
	{
		int			n = 0;
		bool		seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = batch_same_table(names, storage, j, i);
		if (seen)
			continue;			/* checked with the table's first entry */
		for (int j = i; j < ntables; j++)
			if (batch_same_table(names, storage, j, i))
				for (int r = 0; r < counts[j]; r++)
					rows[n++] = &tables[j][r];
		batch_check_repeats(rows, n);
	}
}

/*
 * batch_bulk_table writes a table entry whose rows are all plain, with
 * distinct keys, in one statement for the puts and one for the deletes,
 * instead of one subtransaction and statement per row.  Each row is
 * validated first; a row that fails validation gets its error and is left
 * out.  Validation only parses and allocates (no locks, buffers or
 * catalog access), so its errors are caught without a subtransaction.
 * Returns false, having done nothing, when the table needs the per-row
 * path (it does not exist, or generates keys).
 */
static bool
batch_bulk_table(const char *name, BatchRow *rows, int nrows, BatchResult *results)
{
	OtsTable   *t = catalog_lookup_quiet(cstring_to_text(name));
	int			nkeys;
	int64		now_ms = ots_now_ms();
	Datum	   *put_keys[OTS_MAX_PK_COLUMNS + 1];
	Datum	   *del_keys[OTS_MAX_PK_COLUMNS + 1];
	Datum	   *cells = palloc(sizeof(Datum) * nrows);
	Datum	   *oldest = palloc(sizeof(Datum) * nrows);
	int			nputs = 0;
	int			ndels = 0;
	int64		write_cu = 0;
	AclMode		mode = 0;
	MemoryContext rowctx;

	if (t == NULL || t->auto_increment_col >= 0)
		return false;
	nkeys = storage_nkeys(t);
	for (int r = 0; r < nrows; r++)
		mode |= rows[r].type == WRITE_DELETE ? ACL_SELECT | ACL_DELETE : ACL_INSERT | ACL_UPDATE;
	rowstore_check_privileges(t, mode);
	rowstore_check_writable("ots.batch_write_row");
	for (int k = 0; k < nkeys; k++)
	{
		put_keys[k] = palloc(sizeof(Datum) * nrows);
		del_keys[k] = palloc(sizeof(Datum) * nrows);
	}

	/* each row's parsing garbage goes when the row is done: memory stays flat */
	rowctx = AllocSetContextCreate(CurrentMemoryContext, "ots batch row", ALLOCSET_DEFAULT_SIZES);
	for (int r = 0; r < nrows; r++)
	{
		MemoryContext callerctx = CurrentMemoryContext;
		PkInput		pk;
		CellInput  *volatile in = NULL;
		volatile int nin = 0;
		struct varlena *volatile v = NULL;
		volatile bool failed = false;

		CHECK_FOR_INTERRUPTS();
		results[r].table_name = name;
		results[r].index = r;
		PG_TRY();
		{
			JsonbValue	attrs;
			int			count = 0;
			CellInput  *parsed = NULL;

			MemoryContextSwitchTo(rowctx);
			codec_parse_pk(t, DatumGetJsonbP(rows[r].pk_jsonb), PK_ALLOW_AUTO_INC, &pk);
			if (rows[r].type == WRITE_PUT)
			{
				struct varlena *built;

				if (batch_field(rows[r].row, "attributes", &attrs) != NULL && attrs.type != jbvNull)
					parsed = codec_parse_attributes(DatumGetJsonbP(batch_jsonb_datum(&attrs)), &count);
				row_write_check_timestamps(t, now_ms, parsed, count);
				built = row_write_put_cells(t, parsed, count, now_ms);
				v = MemoryContextAlloc(callerctx, VARSIZE(built));
				memcpy(v, built, VARSIZE(built));
				in = parsed;
				nin = count;
			}
			MemoryContextSwitchTo(callerctx);
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			MemoryContextSwitchTo(callerctx);
			edata = CopyErrorData();
			FlushErrorState();
			if (ots_error_code_name(edata->sqlerrcode) == NULL)
				ReThrowError(edata);
			results[r].is_ok = false;
			results[r].error_code = ots_error_code_name(edata->sqlerrcode);
			results[r].error_message = edata->message;
			failed = true;
		}
		PG_END_TRY();

		if (!failed)
		{
			Datum	  **keys = rows[r].type == WRITE_PUT ? put_keys : del_keys;
			int			i = rows[r].type == WRITE_PUT ? nputs++ : ndels++;
			Consumed	consumed = {0, 0};
			Datum		key[OTS_MAX_PK_COLUMNS + 1];
			Oid			types[OTS_MAX_PK_COLUMNS + 1];

			storage_key(t, &pk, t->npk, key, types);
			for (int k = 0; k < nkeys; k++)
				keys[k][i] = key[k];
			if (v != NULL)
			{
				cells[i] = PointerGetDatum(v);
				oldest[i] = Int64GetDatum(purge_cells_oldest_ts(v));
			}
			consumed.write = request_cu(codec_pk_size(t, &pk) + row_write_cells_size(in, nin));
			write_cu += consumed.write;
			results[r].is_ok = true;
			results[r].consumed = JsonbPGetDatum(request_consumed_jsonb(consumed));
		}
		MemoryContextReset(rowctx);
	}
	MemoryContextDelete(rowctx);
	if (nputs > 0)
		rowstore_put_many(t, nputs, put_keys, cells, oldest);
	if (ndels > 0)
		rowstore_delete_many(t, ndels, del_keys);
	stats_count(t, 0, nputs + ndels, 0, write_cu);
	return true;
}

/* batch_row_call prepares the single-row function call of one row */
static void
batch_row_call(RowCall *call, const char *name, BatchRow *br, const Oid *funcs)
{
	JsonbContainer *row = br->row;

	memset(call, 0, sizeof(*call));
	call->args[0] = PointerGetDatum(cstring_to_text(name));
	call->nulls[1] = br->pk.type == jbvNull;
	if (!call->nulls[1])
		call->args[1] = br->pk.type == jbvBinary ? br->pk_jsonb : batch_jsonb_datum(&br->pk);
	call->funcoid = funcs[br->type];
	switch (br->type)
	{
		case WRITE_PUT:
			call->nargs = 6;
			batch_set_jsonb_arg(call, 2, row, "attributes");
			batch_set_text_arg(call, 3, row, "condition");
			batch_set_jsonb_arg(call, 4, row, "column_condition");
			batch_set_text_arg(call, 5, row, "return_type");
			break;
		case WRITE_UPDATE:
			call->nargs = 10;
			batch_set_jsonb_arg(call, 2, row, "put");
			batch_set_jsonb_arg(call, 3, row, "delete");
			batch_set_array_arg(call, 4, row, "delete_all");
			batch_set_jsonb_arg(call, 5, row, "increment");
			batch_set_text_arg(call, 6, row, "condition");
			batch_set_jsonb_arg(call, 7, row, "column_condition");
			batch_set_text_arg(call, 8, row, "return_type");
			batch_set_array_arg(call, 9, row, "return_columns");
			break;
		case WRITE_DELETE:
			call->nargs = 5;
			batch_set_text_arg(call, 2, row, "condition");
			batch_set_jsonb_arg(call, 3, row, "column_condition");
			batch_set_text_arg(call, 4, row, "return_type");
			break;
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
	int			ntables = batch_tables(request, "No row is specified in BatchWriteRow.");
	int			total = 0;
	uint64		size = 0;
	int			n = 0;
	BatchResult *results;
	BatchRow  **tables = palloc(sizeof(BatchRow *) * ntables);
	const char **names = palloc(sizeof(char *) * ntables);
	int		   *counts = palloc(sizeof(int) * ntables);
	Oid			put_types[6] = {TEXTOID, JSONBOID, JSONBOID, TEXTOID, JSONBOID, TEXTOID};
	Oid			update_types[10] = {TEXTOID, JSONBOID, JSONBOID, JSONBOID, TEXTARRAYOID, JSONBOID,
	TEXTOID, JSONBOID, TEXTOID, TEXTARRAYOID};
	Oid			delete_types[5] = {TEXTOID, JSONBOID, TEXTOID, JSONBOID, TEXTOID};
	Oid			funcs[3];
	MemoryContext checkctx = AllocSetContextCreate(CurrentMemoryContext, "ots batch checks",
												   ALLOCSET_DEFAULT_SIZES);

	funcs[WRITE_PUT] = batch_func_oid("put_row", 6, put_types);
	funcs[WRITE_UPDATE] = batch_func_oid("update_row", 10, update_types);
	funcs[WRITE_DELETE] = batch_func_oid("delete_row", 5, delete_types);

	/* whole-request checks: shape, row count, data size, timestamps, repeats */
	for (int i = 0; i < ntables; i++)
	{
		const char *name;
		JsonbContainer *rows = batch_entry_list(request, i, "rows", &name);
		int			nrows = JsonContainerSize(rows);

		if (nrows == 0)
			ots_error(PARAMETER_INVALID, "No operation is specified for table: '%s'.", name);
		total += nrows;
	}
	if (total > OTS_MAX_BATCH_WRITE_ROWS)
		ots_error(PARAMETER_INVALID, "Rows count exceeds the upper limit: %d.", OTS_MAX_BATCH_WRITE_ROWS);
	for (int i = 0; i < ntables; i++)
	{
		const char *name;
		JsonbContainer *rows = batch_entry_list(request, i, "rows", &name);
		int			nrows = JsonContainerSize(rows);
		MemoryContext callerctx;

		names[i] = name;
		counts[i] = nrows;
		tables[i] = palloc0(sizeof(BatchRow) * nrows);
		for (int r = 0; r < nrows; r++)
		{
			JsonbValue *rowv = getIthJsonbValueFromContainer(rows, r);
			BatchRow   *br = &tables[i][r];

			if (rowv->type != jbvBinary || !JsonContainerIsObject(rowv->val.binary.data))
				batch_invalid("Invalid row.", "Each row is a JSON object.");
			br->row = rowv->val.binary.data;
			if (batch_row_pk(br->row, &br->pk)->type == jbvBinary)
				br->pk_jsonb = batch_jsonb_datum(&br->pk);
			/* what the checks allocate is garbage once the row is checked */
			callerctx = MemoryContextSwitchTo(checkctx);
			br->type = batch_write_type(br->row);
			size += codec_pk_data_size(br->pk.type == jbvBinary ? br->pk.val.binary.data : NULL);
			size += batch_cells_size(br->row, "attributes", true);
			size += batch_cells_size(br->row, "put", true);
			size += batch_cells_size(br->row, "increment", true);
			size += batch_cells_size(br->row, "delete", false);
			MemoryContextSwitchTo(callerctx);
			MemoryContextReset(checkctx);
		}
	}
	MemoryContextSwitchTo(checkctx);
	batch_check_table_repeats(tables, names, counts, ntables, total);
	MemoryContextSwitchTo(MemoryContextGetParent(checkctx));
	MemoryContextDelete(checkctx);
	request_check_data_size("BatchWriteRow", size);

	results = palloc0(sizeof(BatchResult) * total);
	for (int i = 0; i < ntables; i++)
	{
		const char *name;
		JsonbContainer *rows = batch_entry_list(request, i, "rows", &name);
		int			nrows = JsonContainerSize(rows);
		bool		bulk = !is_atomic;
		RowCall    *calls;
		JsonbValue *pks;

		for (int r = 0; bulk && r < nrows; r++)
			bulk = !tables[i][r].repeated && batch_is_plain(&tables[i][r]);
		if (bulk && batch_bulk_table(name, tables[i], nrows, &results[n]))
		{
			n += nrows;
			continue;
		}

		calls = palloc0(sizeof(RowCall) * nrows);
		pks = palloc0(sizeof(JsonbValue) * nrows);
		for (int r = 0; r < nrows; r++)
		{
			batch_row_call(&calls[r], name, &tables[i][r], funcs);
			pks[r] = tables[i][r].pk;
			results[n + r].table_name = name;
			results[n + r].index = r;
		}
		if (is_atomic)
			batch_atomic_table(name, calls, pks, &results[n], nrows);
		else
			for (int r = 0; r < nrows; r++)
			{
				CHECK_FOR_INTERRUPTS();
				batch_run(&calls[r], &results[n + r]);
			}
		n += nrows;
	}
	batch_emit(fcinfo, results, n);
	return (Datum) 0;
}
