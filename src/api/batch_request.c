/*-------------------------------------------------------------------------
 * src/api/batch_request.c
 *	  The shape of ots.batch_get_row's and ots.batch_write_row's requests:
 *	  table entries and their rows read and checked, each row's single-row
 *	  request built from its jsonb, and the whole request's 4 MB limit.
 *
 * Everything that fails the whole call is found here, before any row
 * runs (batch.c): a request or entry of the wrong shape, a field no shape
 * declares, too many rows, a request past 4 MB, repeated keys with
 * conditions.  A row's own arguments are checked by the write or read it
 * becomes, which makes its error the row's result.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "api/batch_request.h"
#include "meta/catalog.h"
#include "format/codec.h"
#include "errors.h"
#include "format/request_fields.h"
#include "ots_limits.h"
#include "api/request.h"

static int	batch_tables(Jsonb *request, const char *empty_message);

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
JsonbContainer *
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
JsonbContainer *
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
void
batch_get_request(RowGetRequest *req, const char *name, JsonbContainer *entry)
{
	ReadArgs   *args = &req->read;
	JsonbValue	v;

	memset(req, 0, sizeof(*req));
	req->table_name = cstring_to_text(name);
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
 * batch_get_read checks a batch_get_row request's shape: table entries of
 * known fields (an entry may have no key), and no more keys than Tablestore
 * takes.
 * Returns the number of keys (*ntables: of entries).
 */
int
batch_get_read(Jsonb *request, int *ntables)
{
	int			total = 0;

	*ntables = batch_tables(request, "No row specified in the request of BatchGetRow.");
	for (int i = 0; i < *ntables; i++)
	{
		const char *name;
		JsonbContainer *entry = batch_entry(request, i, &name);
		int			nkeys;

		request_fields_check(entry, &batch_get_entry, "the entry of table '%s'", name);
		/* an entry without keys reads nothing, as Tablestore's does (a request without entries is refused) */
		nkeys = JsonContainerSize(batch_list(entry, "primary_keys", name));
		total += nkeys;
	}
	if (total > OTS_MAX_BATCH_GET_ROWS)
		ots_error(PARAMETER_INVALID, "Rows count exceeds the upper limit: %d.", OTS_MAX_BATCH_GET_ROWS);
	return total;
}

/* ---- batch_write_row ---- */

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
char *
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

/* batch_put_attributes: a PUT row's attributes (NULL: none) */
Jsonb *
batch_put_attributes(const BatchRow *row)
{
	JsonbValue	attrs;

	if (batch_field(row->row, "attributes", &attrs) == NULL || attrs.type == jbvNull)
		return NULL;
	return JsonbValueToJsonb(&attrs);
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
bool
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

/*
 * batch_write_request builds the write request of one row: its type's
 * members, read in that write's order (a member of the wrong form fails
 * the whole call).
 */
void
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

void
batch_write_check_count(int nrows)
{
	if (nrows > OTS_MAX_BATCH_WRITE_ROWS)
		ots_error(PARAMETER_INVALID, "Rows count exceeds the upper limit: %d.", OTS_MAX_BATCH_WRITE_ROWS);
}

/*
 * batch_write_read reads every row of the request and applies the
 * whole-request checks: shape, row count, data size, timestamps, repeats.
 */
void
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
	batch_write_check_count(bw->total);

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
