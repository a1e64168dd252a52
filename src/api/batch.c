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

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "common/base64.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "meta/catalog.h"
#include "format/codec.h"
#include "errors.h"
#include "ots_limits.h"
#include "stats.h"
#include "subxact.h"
#include "store/rowstore.h"
#include "api/row_ops.h"
#include "api/row_write.h"
#include "meta/storage.h"
#include "api/request.h"
#include "format/request_fields.h"
#include "api/read_select.h"

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

PG_FUNCTION_INFO_V1(ots_batch_get_row);
PG_FUNCTION_INFO_V1(ots_batch_write_row);

/* batch_field returns a member of a jsonb object value, or NULL */
static JsonbValue *
batch_field(JsonbContainer *obj, const char *key, JsonbValue *out)
{
	return getKeyJsonValueFromContainer(obj, key, strlen(key), out);
}

/* batch_text_array turns a JSON array of strings into text[] */
static ArrayType *
batch_text_array(JsonbValue *v, const char *what)
{
	JsonbContainer *c;
	int			n;
	Datum	   *elems;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		ots_parameter_invalid(psprintf("Invalid %s.", what), psprintf("%s is a JSON array of column names.", what));
	c = v->val.binary.data;
	n = JsonContainerSize(c);
	elems = palloc(sizeof(Datum) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(c, i);

		if (e->type != jbvString)
			ots_parameter_invalid(psprintf("Invalid %s.", what), psprintf("%s is a JSON array of column names.", what));
		elems[i] = PointerGetDatum(cstring_to_text_with_len(e->val.string.val, e->val.string.len));
	}
	return construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT);
}

/* the forms of the members of a row or table entry, as request fields take them */
typedef enum BatchMemberForm
{
	BATCH_OWN,					/* read by the batch itself ("type", "primary_key") */
	BATCH_JSONB,				/* any JSON: Jsonb * */
	BATCH_STRING,				/* a JSON string: const char * */
	BATCH_NAMES					/* a JSON array of column names: text[] */
} BatchMemberForm;

/*
 * batch_member reads the optional member "key" of obj in the given form:
 * NULL when absent or JSON null, a batch error when it has the wrong form.
 */
static void *
batch_member(JsonbContainer *obj, const char *key, BatchMemberForm form)
{
	JsonbValue	v;

	if (batch_field(obj, key, &v) == NULL || v.type == jbvNull)
		return NULL;
	switch (form)
	{
		case BATCH_OWN:
			break;
		case BATCH_JSONB:
			return JsonbValueToJsonb(&v);
		case BATCH_STRING:
			if (v.type != jbvString)
				ots_parameter_invalid(psprintf("Invalid %s.", key), psprintf("%s is a JSON string.", key));
			return pnstrdup(v.val.string.val, v.val.string.len);
		case BATCH_NAMES:
			return batch_text_array(&v, key);
	}
	return NULL;				/* keep compiler quiet */
}

/* batch_text_member reads an optional JSON string member as text */
static text *
batch_text_member(JsonbContainer *obj, const char *key)
{
	char	   *s = batch_member(obj, key, BATCH_STRING);

	return s != NULL ? cstring_to_text(s) : NULL;
}

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
	a->res->consumed = JsonbPGetDatum(request_consumed_jsonb(r.consumed));
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
		ots_parameter_invalid(empty_message, "The request is a JSON array of {\"table_name\": ..., ...} entries.");
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
		ots_parameter_invalid("Invalid table entry.", "Each entry is an object with a \"table_name\" string.");
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
		ots_parameter_invalid(psprintf("Invalid table entry for table: '%s'.", table_name),
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

/* the fields of a batch_get_row table entry: its table, its keys, get_row's read options */
static const char *const batch_get_entry_fields[] = {
	"table_name", "primary_keys", "columns_to_get", "max_versions", "time_range", "filter",
	"with_timestamps", "start_column", "end_column"
};
static const RequestFields batch_get_entry = REQUEST_FIELDS("a BatchGetRow table entry",
															batch_get_entry_fields);

/*
 * batch_get_request reads a batch_get_row table entry's read options into
 * the request its rows share; each row sets its primary key.
 */
static void
batch_get_request(RowGetRequest *req, const char *name, JsonbContainer *entry)
{
	ReadArgs   *args = &req->read;
	JsonbValue	v;

	req->table_name = cstring_to_text(name);
	req->primary_key = NULL;
	args->columns_to_get = batch_member(entry, "columns_to_get", BATCH_NAMES);
	args->has_max_versions = batch_field(entry, "max_versions", &v) != NULL && v.type != jbvNull;
	args->max_versions = 0;
	if (args->has_max_versions)
	{
		bool		invalid = v.type != jbvNumeric;

		/* an integral JSON number within int32; get_row checks the rest */
		if (!invalid)
			invalid = strchr(DatumGetCString(DirectFunctionCall1(numeric_out,
																 NumericGetDatum(v.val.numeric))),
							 '.') != NULL;
		if (!invalid)
			args->max_versions = numeric_int4_opt_error(v.val.numeric, &invalid);
		if (invalid)
			ots_parameter_invalid("Invalid max_versions.", "max_versions is a JSON integer.");
	}
	args->time_range = batch_member(entry, "time_range", BATCH_JSONB);
	args->filter = batch_member(entry, "filter", BATCH_JSONB);
	args->with_timestamps = false;
	if (batch_field(entry, "with_timestamps", &v) != NULL && v.type != jbvNull)
	{
		if (v.type != jbvBool)
			ots_parameter_invalid("Invalid with_timestamps.", "with_timestamps is true or false.");
		args->with_timestamps = v.val.boolean;
	}
	args->start_column = batch_text_member(entry, "start_column");
	args->end_column = batch_text_member(entry, "end_column");
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

	for (int i = 0; i < ntables; i++)
	{
		const char *name;
		JsonbContainer *entry = batch_entry(request, i, &name);
		int			nkeys;

		request_fields_check(entry, &batch_get_entry, "the entry of table '%s'", name);
		nkeys = JsonContainerSize(batch_list(entry, "primary_keys", name));

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

/* a member of a batch_write_row row and the request field it fills */
typedef struct BatchMember
{
	const char *key;
	BatchMemberForm form;
	size_t		field;			/* offsetof(RowWriteRequest, ...) */
} BatchMember;

/*
 * a row "type" of batch_write_row: the write it runs and every member a
 * row of that type has, the ones that write reads in the order it reads
 * them; they are the row's fields (a row with any other is refused), so
 * the members are the list of its RequestFields
 */
typedef struct BatchWriteType
{
	const char *name;			/* "PUT" */
	RowWriteKind kind;
	bool		bulk;			/* a plain row may take the bulk path */
	const BatchMember *members; /* fields.n of them */
	RequestFields fields;
} BatchWriteType;

#define BATCH_MEMBER(key, form, field) {key, form, offsetof(RowWriteRequest, field)}
#define BATCH_ROW_MEMBERS \
	{"type", BATCH_OWN, 0}, \
	{"primary_key", BATCH_OWN, 0}
#define BATCH_CONDITIONS \
	BATCH_MEMBER("condition", BATCH_STRING, condition), \
	BATCH_MEMBER("column_condition", BATCH_JSONB, column_condition), \
	BATCH_MEMBER("return_type", BATCH_STRING, return_type)
#define BATCH_WRITE_TYPE(name, shape, kind, bulk, members) \
	{name, kind, bulk, members, REQUEST_FIELDS(shape, members)}

static const BatchMember batch_put_members[] = {
	BATCH_ROW_MEMBERS,
	BATCH_MEMBER("attributes", BATCH_JSONB, attributes),
	BATCH_CONDITIONS
};
static const BatchMember batch_update_members[] = {
	BATCH_ROW_MEMBERS,
	BATCH_MEMBER("put", BATCH_JSONB, put),
	BATCH_MEMBER("delete", BATCH_JSONB, deletes),
	BATCH_MEMBER("delete_all", BATCH_NAMES, delete_all),
	BATCH_MEMBER("increment", BATCH_JSONB, increment),
	BATCH_CONDITIONS,
	BATCH_MEMBER("return_columns", BATCH_NAMES, return_columns)
};
static const BatchMember batch_delete_members[] = {
	BATCH_ROW_MEMBERS,
	BATCH_CONDITIONS
};

static const BatchWriteType batch_write_types[] = {
	BATCH_WRITE_TYPE("PUT", "a PUT row", ROW_WRITE_PUT, true, batch_put_members),
	BATCH_WRITE_TYPE("UPDATE", "an UPDATE row", ROW_WRITE_UPDATE, false, batch_update_members),
	BATCH_WRITE_TYPE("DELETE", "a DELETE row", ROW_WRITE_DELETE, true, batch_delete_members),
};

/* the fields of a batch_write_row table entry */
static const char *const batch_write_entry_fields[] = {"table_name", "rows"};
static const RequestFields batch_write_entry = REQUEST_FIELDS("a BatchWriteRow table entry",
															  batch_write_entry_fields);

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

/* batch_write_type finds the row's "type" (any case) in batch_write_types */
static const BatchWriteType *
batch_write_type(JsonbContainer *row)
{
	JsonbValue	v;
	char	   *s;

	if (batch_field(row, "type", &v) == NULL || v.type != jbvString)
		ots_parameter_invalid("Invalid row type.", "Each row has \"type\": \"PUT\", \"UPDATE\" or \"DELETE\".");
	s = pnstrdup(v.val.string.val, v.val.string.len);
	for (int i = 0; i < lengthof(batch_write_types); i++)
		if (pg_strcasecmp(s, batch_write_types[i].name) == 0)
			return &batch_write_types[i];
	ots_parameter_invalid(psprintf("Invalid row type: '%s'.", s),
						  "Each row has \"type\": \"PUT\", \"UPDATE\" or \"DELETE\".");
	return NULL;				/* keep compiler quiet */
}

/* batch_has_existence_check: does a row carry a row-existence check? */
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

/* one row of a batch_write_row request, as the checks and both write paths see it */
typedef struct BatchRow
{
	JsonbContainer *row;
	const BatchWriteType *type;
	JsonbValue	pk;				/* jbvNull when absent */
	Datum		pk_jsonb;		/* the same as a jsonb Datum, when an object */
	uint32		pk_hash;
	bool		repeated;		/* another row of its table (in any entry) has the same key */
} BatchRow;

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
	return br->type->bulk && br->pk.type == jbvBinary &&
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
 * batch_write_read_row reads row r of table name's entry "rows" and returns
 * its data size (for the request limit); what the checks allocate goes into
 * checkctx, reset when the row is read.  A row that is no object, has no
 * known type or has a field its type does not know fails the whole request.
 */
static uint64
batch_write_read_row(BatchRow *br, JsonbContainer *rows, int r, const char *name,
					 MemoryContext checkctx)
{
	JsonbValue *rowv = getIthJsonbValueFromContainer(rows, r);
	MemoryContext callerctx;
	uint64		size = 0;

	if (rowv->type != jbvBinary || !JsonContainerIsObject(rowv->val.binary.data))
		ots_parameter_invalid("Invalid row.", "Each row is a JSON object.");
	br->row = rowv->val.binary.data;
	if (batch_row_pk(br->row, &br->pk)->type == jbvBinary)
		br->pk_jsonb = JsonbPGetDatum(JsonbValueToJsonb(&br->pk));
	callerctx = MemoryContextSwitchTo(checkctx);
	br->type = batch_write_type(br->row);
	request_fields_check(br->row, &br->type->fields, "row %d of table '%s'", r, name);
	size += codec_pk_data_size(br->pk.type == jbvBinary ? br->pk.val.binary.data : NULL);
	size += batch_cells_size(br->row, "attributes", true);
	size += batch_cells_size(br->row, "put", true);
	size += batch_cells_size(br->row, "increment", true);
	size += batch_cells_size(br->row, "delete", false);
	MemoryContextSwitchTo(callerctx);
	MemoryContextReset(checkctx);
	return size;
}

/* one row of the bulk path, validated */
typedef struct BatchBulkRow
{
	PkInput		pk;				/* in the row's memory context */
	struct varlena *cells;		/* a PUT's cells (caller's context); NULL for a DELETE */
	int64		oldest_ts;		/* a PUT's "$oldest_ts", as the cells builder recorded it */
	uint32		write_size;		/* key and cells, for capacity units */
} BatchBulkRow;

/* batch_put_attributes: a PUT row's attributes (NULL: none) */
static Jsonb *
batch_put_attributes(const BatchRow *row)
{
	JsonbValue	attrs;

	if (batch_field(row->row, "attributes", &attrs) == NULL || attrs.type == jbvNull)
		return NULL;
	return JsonbValueToJsonb(&attrs);
}

/*
 * batch_caught_error makes an error caught without a subtransaction (what
 * raised it only parsed and allocated) the row's result, in resultctx (and
 * leaves that context current); any error but an OTS one propagates.
 */
static void
batch_caught_error(MemoryContext resultctx, BatchResult *res)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(resultctx);
	edata = CopyErrorData();
	FlushErrorState();
	if (ots_error_code_name(edata->sqlerrcode) == NULL)
		ReThrowError(edata);
	res->is_ok = false;
	res->error_code = ots_error_code_name(edata->sqlerrcode);
	res->error_message = edata->message;
	res->consumed = (Datum) 0;
}

/* the PUT rows of a bulk write, for what they write over stored rows */
typedef struct BatchBulkPuts
{
	const OtsTable *t;
	int64		now_ms;			/* the moment their cells were validated and stamped */
	const BatchRow **rows;		/* rows[i]: put i's row */
	BatchResult **results;		/* results[i]: its result */
	int64	   *write_cu;		/* write_cu[i]: its capacity units */
	MemoryContext resultctx;	/* where the results live */
	int			failed;			/* puts that failed over a stored row */
	int64		failed_cu;		/* their capacity units */
} BatchBulkPuts;

/*
 * batch_bulk_put_over: put i's row_write_put_over (RowstoreReplacing).  It
 * only parses and allocates, so its error (no stamp past a marker at the
 * last valid millisecond) is caught without a subtransaction: that row
 * fails, keeping the stored row, and the others apply.
 */
static struct varlena *
batch_bulk_put_over(void *arg, int i, const struct varlena *old, int64 *oldest_ts, bool *keep)
{
	BatchBulkPuts *puts = arg;
	MemoryContext rowctx = CurrentMemoryContext;
	struct varlena *volatile cells = NULL;

	PG_TRY();
	{
		cells = row_write_put_over(puts->t, batch_put_attributes(puts->rows[i]), puts->now_ms,
								   old, oldest_ts);
	}
	PG_CATCH();
	{
		batch_caught_error(puts->resultctx, puts->results[i]);
		MemoryContextSwitchTo(rowctx);
		puts->failed++;
		puts->failed_cu += puts->write_cu[i];
		*keep = true;
	}
	PG_END_TRY();
	return cells;
}

/*
 * batch_bulk_validate parses and validates one row of the bulk path in
 * rowctx: its key, and a PUT's cells, encoded for storage in the caller's
 * context.  Validation only parses and allocates (no locks, buffers or
 * catalog access), so an OTS error is caught without a subtransaction and
 * becomes the row's result (false); any other error propagates.
 */
static bool
batch_bulk_validate(const OtsTable *t, const BatchRow *row, int64 now_ms, MemoryContext rowctx,
					BatchBulkRow *out, BatchResult *res)
{
	MemoryContext callerctx = CurrentMemoryContext;
	volatile bool ok = true;

	PG_TRY();
	{
		uint32		cells_size = 0;

		MemoryContextSwitchTo(rowctx);
		codec_parse_pk(t, DatumGetJsonbP(row->pk_jsonb), PK_ALLOW_AUTO_INC, &out->pk);
		out->cells = NULL;
		if (row->type->kind == ROW_WRITE_PUT)
		{
			struct varlena *built;

			built = row_write_new_row_cells(t, batch_put_attributes(row), now_ms,
											&out->oldest_ts, &cells_size);
			out->cells = MemoryContextAlloc(callerctx, VARSIZE(built));
			memcpy(out->cells, built, VARSIZE(built));
		}
		out->write_size = codec_pk_size(t, &out->pk) + cells_size;
		MemoryContextSwitchTo(callerctx);
	}
	PG_CATCH();
	{
		batch_caught_error(callerctx, res);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/*
 * batch_bulk_table writes a table entry whose rows are all plain, with
 * distinct keys, in one statement for the puts and one for the deletes,
 * instead of one subtransaction and statement per row.  Each row is
 * validated first; a row that fails validation gets its error and is left
 * out.  Returns false, having done nothing, when the table needs the
 * per-row path (it does not exist, generates keys, or is an index, whose
 * rows each fail).
 */
static bool
batch_bulk_table(const char *name, BatchRow *rows, int nrows, BatchResult *results)
{
	OtsTable   *t = catalog_lookup_quiet(cstring_to_text(name));
	int			nkeys;
	int64		now_ms = visibility_now_ms();
	Datum	   *put_keys[OTS_MAX_KEY_COLUMNS + 1];
	Datum	   *del_keys[OTS_MAX_KEY_COLUMNS + 1];
	Datum	   *cells = palloc(sizeof(Datum) * nrows);
	Datum	   *oldest = palloc(sizeof(Datum) * nrows);
	int			nputs = 0;
	int			ndels = 0;
	int64		write_cu = 0;
	AclMode		mode = 0;
	MemoryContext rowctx;
	BatchBulkPuts puts;

	if (t == NULL || t->auto_increment_col >= 0 || t->is_index)
		return false;
	memset(&puts, 0, sizeof(puts));
	puts.t = t;
	puts.now_ms = now_ms;
	puts.rows = palloc(sizeof(BatchRow *) * nrows);
	puts.results = palloc(sizeof(BatchResult *) * nrows);
	puts.write_cu = palloc(sizeof(int64) * nrows);
	puts.resultctx = CurrentMemoryContext;
	nkeys = storage_nkeys(t);
	for (int r = 0; r < nrows; r++)
		mode |= row_write_privileges(rows[r].type->kind);
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
		BatchBulkRow row;

		CHECK_FOR_INTERRUPTS();
		results[r].table_name = name;
		results[r].index = r;
		if (batch_bulk_validate(t, &rows[r], now_ms, rowctx, &row, &results[r]))
		{
			bool		put = rows[r].type->kind == ROW_WRITE_PUT;
			int			i = put ? nputs++ : ndels++;
			Consumed	consumed = {0, 0};

			storage_key_row(t, &row.pk, put ? put_keys : del_keys, i);
			consumed.write = request_cu(row.write_size);
			if (put)
			{
				cells[i] = PointerGetDatum(row.cells);
				oldest[i] = Int64GetDatum(row.oldest_ts);
				puts.rows[i] = &rows[r];
				puts.results[i] = &results[r];
				puts.write_cu[i] = consumed.write;
			}
			write_cu += consumed.write;
			results[r].is_ok = true;
			results[r].consumed = JsonbPGetDatum(request_consumed_jsonb(consumed));
		}
		MemoryContextReset(rowctx);
	}
	MemoryContextDelete(rowctx);
	if (nputs > 0)
		rowstore_put_many(t, nputs, put_keys, cells, oldest, batch_bulk_put_over, &puts);
	if (ndels > 0)
		rowstore_delete_many(t, ndels, del_keys);
	stats_count(t, 0, nputs + ndels - puts.failed, 0, write_cu - puts.failed_cu);
	return true;
}

/*
 * batch_write_request builds the write request of one row: its type's
 * members, read in that write's order (a member of the wrong form fails
 * the whole call).
 */
static void
batch_write_request(RowWriteRequest *req, text *table_name, const BatchRow *br)
{
	memset(req, 0, sizeof(*req));
	req->kind = br->type->kind;
	req->table_name = table_name;
	if (br->pk.type == jbvBinary)
		req->primary_key = DatumGetJsonbP(br->pk_jsonb);
	else if (br->pk.type != jbvNull)
		req->primary_key = JsonbValueToJsonb((JsonbValue *) &br->pk);
	for (int i = 0; i < br->type->fields.n; i++)
	{
		const BatchMember *m = &br->type->members[i];

		if (m->form != BATCH_OWN)
			*(void **) ((char *) req + m->field) = batch_member(br->row, m->key, m->form);
	}
}

/* the rows of a batch_write_row request, by table entry */
typedef struct BatchWrite
{
	int			ntables;
	int			total;			/* rows */
	BatchRow  **tables;			/* tables[i][r]: row r of entry i */
	const char **names;			/* the entries' table names */
	int		   *counts;			/* the entries' row counts */
} BatchWrite;

/*
 * batch_write_read reads every row of the request and applies the
 * whole-request checks: shape, row count, data size, timestamps, repeats.
 */
static void
batch_write_read(BatchWrite *bw, Jsonb *request)
{
	uint64		size = 0;
	MemoryContext checkctx;

	bw->ntables = batch_tables(request, "No row is specified in BatchWriteRow.");
	bw->total = 0;
	for (int i = 0; i < bw->ntables; i++)
	{
		const char *name;
		JsonbContainer *entry = batch_entry(request, i, &name);
		int			nrows;

		request_fields_check(entry, &batch_write_entry, "the entry of table '%s'", name);
		nrows = JsonContainerSize(batch_list(entry, "rows", name));

		if (nrows == 0)
			ots_error(PARAMETER_INVALID, "No operation is specified for table: '%s'.", name);
		bw->total += nrows;
	}
	if (bw->total > OTS_MAX_BATCH_WRITE_ROWS)
		ots_error(PARAMETER_INVALID, "Rows count exceeds the upper limit: %d.", OTS_MAX_BATCH_WRITE_ROWS);

	bw->tables = palloc(sizeof(BatchRow *) * bw->ntables);
	bw->names = palloc(sizeof(char *) * bw->ntables);
	bw->counts = palloc(sizeof(int) * bw->ntables);
	checkctx = AllocSetContextCreate(CurrentMemoryContext, "ots batch checks",
									 ALLOCSET_DEFAULT_SIZES);
	for (int i = 0; i < bw->ntables; i++)
	{
		JsonbContainer *rows = batch_entry_list(request, i, "rows", &bw->names[i]);

		bw->counts[i] = JsonContainerSize(rows);
		bw->tables[i] = palloc0(sizeof(BatchRow) * bw->counts[i]);
		for (int r = 0; r < bw->counts[i]; r++)
			size += batch_write_read_row(&bw->tables[i][r], rows, r, bw->names[i], checkctx);
	}
	MemoryContextSwitchTo(checkctx);
	batch_check_table_repeats(bw->tables, bw->names, bw->counts, bw->ntables, bw->total);
	MemoryContextSwitchTo(MemoryContextGetParent(checkctx));
	MemoryContextDelete(checkctx);
	request_check_data_size("BatchWriteRow", size);
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
	BatchWrite	bw;
	BatchResult *results;
	int			n = 0;

	batch_write_read(&bw, request);
	results = palloc0(sizeof(BatchResult) * bw.total);
	for (int i = 0; i < bw.ntables; i++)
	{
		batch_write_table(&bw, i, is_atomic, &results[n]);
		n += bw.counts[i];
	}
	batch_emit(fcinfo, results, n);
	return (Datum) 0;
}
