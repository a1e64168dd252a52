/*-------------------------------------------------------------------------
 * gateway/action_row.c
 *	  The row actions: PutRow, UpdateRow, DeleteRow, GetRow, GetRange,
 *	  BatchGetRow, BatchWriteRow, each one call of the ots function of the
 *	  same name.
 *
 * Reads always ask ots for cells with timestamps (PlainBuffer carries them);
 * rows come back in PlainBuffer with their key columns in the order the
 * request gave them, which is the table's order (ots checks the names).
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "action.h"

/*
 * appends one PlainBuffer row (with its header) of ots's key and attribute
 * jsonb texts; an update's RT_AFTER_MODIFY returns attributes without a key,
 * which is then the request's
 */
static void
row_bytes(Buf *out, const char *pk_text, const char *attributes_text, const PbRow *request)
{
	json_t	   *pk = json_parse(pk_text);
	json_t	   *attributes = json_parse(attributes_text);

	if (pk == NULL && json_object_size(attributes) > 0)
		pk = json_incref(request->primary_key);
	if (pk != NULL && json_is_object(pk))
	{
		pb_begin(out);
		pb_write_row(out, pk, request->pk_order, attributes);
	}
	json_decref(pk);
	json_decref(attributes);
}

static const char *
field_text(PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? NULL : PQgetvalue(res, row, col);
}

/* the column condition of a write, as ots's jsonb; false after replying */
static bool
condition_args(Call *call, SqlCall *q, const Otsp__Condition *condition)
{
	char		err[256];
	json_t	   *filter;

	sql_named(q, "condition", row_existence_name(condition->row_existence), "text");
	if (!condition->has_column_condition || condition->column_condition.len == 0)
		return true;
	filter = pb_decode_filter(condition->column_condition.data,
							  condition->column_condition.len, err, sizeof(err));
	if (filter == NULL)
	{
		reply_undecodable(call, err);
		return false;
	}
	sql_named_owned(q, "column_condition", json_text(filter), "jsonb");
	json_decref(filter);
	return true;
}

/* the read options common to GetRow, GetRange and BatchGetRow, as ots's arguments */
typedef struct ReadOptions
{
	size_t		n_columns_to_get;
	char	  **columns_to_get;
	const Otsp__TimeRange *time_range;
	protobuf_c_boolean has_max_versions;
	int32_t		max_versions;
	protobuf_c_boolean has_filter;
	ProtobufCBinaryData filter;
	const char *start_column;
	const char *end_column;
} ReadOptions;

/*
 * names_utf8: column names are UTF-8 (jansson's json_string makes nothing
 * of one that is not, and the name would silently drop out of the request
 * ots sees); false after replying
 */
static bool
names_utf8(Call *call, char *const *names, size_t n, const char *start, const char *end)
{
	bool		ok = (start == NULL || utf8_valid(start)) && (end == NULL || utf8_valid(end));

	for (size_t i = 0; ok && i < n; i++)
		ok = utf8_valid(names[i]);
	if (!ok)
		call_parameter_invalid(call, "A string in the request is not valid UTF-8.");
	return ok;
}

/* a json array of strings */
static json_t *
string_array(char *const *names, size_t n)
{
	json_t	   *array = json_array();

	for (size_t i = 0; i < n && !memory_exceeded(); i++)
		json_array_append_new(array, json_string(names[i]));
	return array;
}

/*
 * read_options: the read options as ots's arguments by name, a json object
 * (batch_get_row takes it as a table's entry; get_row and get_range take its
 * members as named arguments, read_args); NULL after replying
 */
static json_t *
read_options(Call *call, const ReadOptions *o, const char *no_version_message)
{
	json_t	   *options;
	char		err[256];

	if (!o->has_max_versions && o->time_range == NULL)
	{
		call_parameter_invalid(call, "%s", no_version_message);
		return NULL;
	}
	if (!names_utf8(call, o->columns_to_get, o->n_columns_to_get, o->start_column, o->end_column))
		return NULL;
	options = json_object();
	if (o->n_columns_to_get > 0)
		json_object_set_new(options, "columns_to_get", string_array(o->columns_to_get, o->n_columns_to_get));
	if (o->has_max_versions)
		json_object_set_new(options, "max_versions", json_integer(o->max_versions));
	if (o->time_range != NULL)
		json_object_set_new(options, "time_range", time_range_json(o->time_range));
	if (o->has_filter && o->filter.len > 0)
	{
		json_t	   *filter = pb_decode_filter(o->filter.data, o->filter.len, err, sizeof(err));

		if (filter == NULL)
		{
			json_decref(options);
			reply_undecodable(call, err);
			return NULL;
		}
		json_object_set_new(options, "filter", filter);
	}
	if (o->start_column)
		json_object_set_new(options, "start_column", json_string(o->start_column));
	if (o->end_column)
		json_object_set_new(options, "end_column", json_string(o->end_column));
	json_object_set_new(options, "with_timestamps", json_true());
	return options;
}

/* read_args: read_options as named arguments of get_row or get_range; false after replying */
static bool
read_args(Call *call, SqlCall *q, const ReadOptions *o, const char *no_version_message)
{
	json_t	   *options = read_options(call, o, no_version_message);
	json_t	   *value;

	if (options == NULL)
		return false;
	if ((value = json_object_get(options, "columns_to_get")) != NULL)
		sql_named_owned(q, "columns_to_get", text_array(o->columns_to_get, o->n_columns_to_get), "text[]");
	if ((value = json_object_get(options, "max_versions")) != NULL)
		sql_named_owned(q, "max_versions", json_text(value), "integer");
	if ((value = json_object_get(options, "time_range")) != NULL)
		sql_named_owned(q, "time_range", json_text(value), "jsonb");
	if ((value = json_object_get(options, "filter")) != NULL)
		sql_named_owned(q, "filter", json_text(value), "jsonb");
	sql_named(q, "with_timestamps", "true", "boolean");
	sql_named(q, "start_column", o->start_column, "text");
	sql_named(q, "end_column", o->end_column, "text");
	json_decref(options);
	return true;
}

/*
 * One single-row write: PutRow, UpdateRow and DeleteRow differ only in the
 * function they call and the arguments the row gives it; their responses
 * are the same three fields.
 */
typedef struct RowWrite
{
	const char *table_name;
	const ProtobufCBinaryData *row;
	const Otsp__Condition *condition;
	const Otsp__ReturnContent *return_content;
	const char *transaction_id;
	/* "SELECT primary_key, attributes, consumed FROM ots.<f>(" */
	const char *head;
	void		(*add_args) (SqlCall *q, const PbRow *row);
	bool		return_columns; /* the function takes return_columns (update_row) */
	/* the response's fields */
	const ProtobufCMessage *response;
	Otsp__ConsumedCapacity **consumed;
	protobuf_c_boolean *has_row;
	ProtobufCBinaryData *row_bytes;
} RowWrite;

static void
row_write(Call *call, const RowWrite *w)
{
	PbRow		row;
	SqlCall		q;
	PGresult   *res = NULL;
	Consumed	consumed;
	Buf			out = {0};
	const Otsp__ReturnContent *rc = w->return_content;
	ResolvedTable resolved = {0};

	if (!table_name_valid(call, w->table_name) || !decode_one_row(call, w->row, &row))
		return;
	if (partition_allowed(call, w->transaction_id, w->table_name, &row, &resolved))
	{
		sql_begin(&q, w->head);
		sql_arg(&q, w->table_name, "text");
		sql_arg_owned(&q, json_text(row.primary_key), "jsonb");
		w->add_args(&q, &row);
		if (condition_args(call, &q, w->condition))
		{
			if (rc && rc->has_return_type)
				sql_named(&q, "return_type", return_type_name(rc->return_type), "text");
			if (w->return_columns && rc && rc->n_return_column_names > 0)
				sql_named_owned(&q, "return_columns",
								text_array(rc->return_column_names, rc->n_return_column_names), "text[]");
			sql_end(&q, ")");
			res = sql_run(call, w->transaction_id, &q);
		}
		sql_free(&q);
	}
	if (res != NULL)
	{
		row_bytes(&out, field_text(res, 0, 0), field_text(res, 0, 1), &row);
		*w->consumed = consumed_from(&consumed, field_text(res, 0, 2));
		*w->has_row = out.len > 0;
		w->row_bytes->data = out.data;
		w->row_bytes->len = out.len;
		call_reply(call, w->response);
		PQclear(res);
	}
	resolved_table_free(&resolved);
	pb_row_free(&row);
	buf_free(&out);
}

static void
put_args(SqlCall *q, const PbRow *row)
{
	sql_arg_owned(q, row->put ? json_text(row->put) : strdup("{}"), "jsonb");
}

static void
update_args(SqlCall *q, const PbRow *row)
{
	sql_named_owned(q, "put", json_text(row->put), "jsonb");
	sql_named_owned(q, "\"delete\"", json_text(row->delete_one), "jsonb");
	if (row->delete_all != NULL)
	{
		size_t		n = json_array_size(row->delete_all);
		char	  **names = calloc(n + 1, sizeof(char *));

		for (size_t i = 0; i < n; i++)
			names[i] = (char *) json_string_value(json_array_get(row->delete_all, i));
		sql_named_owned(q, "delete_all", text_array(names, n), "text[]");
		free(names);
	}
	sql_named_owned(q, "increment", json_text(row->increment), "jsonb");
}

static void
no_args(SqlCall *q, const PbRow *row)
{
}

#define WRITE_HEAD(f) "SELECT primary_key::text, attributes::text, consumed::text FROM ots." f "("

void
action_put_row(Call *call)
{
	Otsp__PutRowRequest *req = UNPACK(put_row_request, call);
	Otsp__PutRowResponse resp = OTSP__PUT_ROW_RESPONSE__INIT;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	row_write(call, &(RowWrite) {
		req->table_name, &req->row, req->condition, req->return_content, req->transaction_id,
		WRITE_HEAD("put_row"), put_args, false, &resp.base, &resp.consumed, &resp.has_row, &resp.row
	});
	FREE(req);
}

void
action_update_row(Call *call)
{
	Otsp__UpdateRowRequest *req = UNPACK(update_row_request, call);
	Otsp__UpdateRowResponse resp = OTSP__UPDATE_ROW_RESPONSE__INIT;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	row_write(call, &(RowWrite) {
		req->table_name, &req->row_change, req->condition, req->return_content, req->transaction_id,
		WRITE_HEAD("update_row"), update_args, true, &resp.base, &resp.consumed, &resp.has_row, &resp.row
	});
	FREE(req);
}

void
action_delete_row(Call *call)
{
	Otsp__DeleteRowRequest *req = UNPACK(delete_row_request, call);
	Otsp__DeleteRowResponse resp = OTSP__DELETE_ROW_RESPONSE__INIT;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	row_write(call, &(RowWrite) {
		req->table_name, &req->primary_key, req->condition, req->return_content, req->transaction_id,
		WRITE_HEAD("delete_row"), no_args, false, &resp.base, &resp.consumed, &resp.has_row, &resp.row
	});
	FREE(req);
}

void
action_get_row(Call *call)
{
	Otsp__GetRowRequest *req = UNPACK(get_row_request, call);
	Otsp__GetRowResponse resp = OTSP__GET_ROW_RESPONSE__INIT;
	PbRow		row;
	SqlCall		q;
	PGresult   *res = NULL;
	Consumed	consumed;
	Buf			out = {0};
	ReadOptions options;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (!table_name_valid(call, req->table_name) || !decode_one_row(call, &req->primary_key, &row))
		goto done_request;
	if (req->transaction_id && !partition_allowed(call, req->transaction_id, req->table_name, &row, NULL))
		goto done_row;
	options = (ReadOptions) {
		req->n_columns_to_get, req->columns_to_get, req->time_range, req->has_max_versions,
		req->max_versions, req->has_filter, req->filter, req->start_column, req->end_column
	};
	sql_begin(&q, "SELECT primary_key::text, attributes::text, consumed::text FROM ots.get_row(");
	sql_arg(&q, req->table_name, "text");
	sql_arg_owned(&q, json_text(row.primary_key), "jsonb");
	if (read_args(call, &q, &options, "No version condition is specified while querying row."))
	{
		sql_end(&q, ")");
		res = sql_run(call, req->transaction_id, &q);
	}
	sql_free(&q);
	if (res != NULL)
	{
		row_bytes(&out, field_text(res, 0, 0), field_text(res, 0, 1), &row);
		resp.consumed = consumed_from(&consumed, field_text(res, 0, 2));
		resp.row.data = out.data;
		resp.row.len = out.len;
		call_reply(call, &resp.base);
		PQclear(res);
	}
done_row:
	pb_row_free(&row);
done_request:
	buf_free(&out);
	FREE(req);
}

void
action_get_range(Call *call)
{
	Otsp__GetRangeRequest *req = UNPACK(get_range_request, call);
	Otsp__GetRangeResponse resp = OTSP__GET_RANGE_RESPONSE__INIT;
	PbRow		start,
				end;
	SqlCall		q;
	PGresult   *res = NULL;
	Consumed	consumed;
	Buf			rows_out = {0},
				next_out = {0};
	ReadOptions options;
	bool		have_end = false;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (!table_name_valid(call, req->table_name) ||
		!decode_one_row(call, &req->inclusive_start_primary_key, &start))
		goto done_request;
	if (!decode_one_row(call, &req->exclusive_end_primary_key, &end))
		goto done_start;
	have_end = true;
	/* in a transaction both bounds are in its partition, so the range is too */
	if (req->transaction_id &&
		(!partition_allowed(call, req->transaction_id, req->table_name, &start, NULL) ||
		 !partition_allowed(call, req->transaction_id, req->table_name, &end, NULL)))
		goto done_rows;
	if (req->has_limit && req->limit <= 0)
	{
		call_parameter_invalid(call, "The limit must be greater than 0.");
		goto done_rows;
	}
	options = (ReadOptions) {
		req->n_columns_to_get, req->columns_to_get, req->time_range, req->has_max_versions,
		req->max_versions, req->has_filter, req->filter, req->start_column, req->end_column
	};
	sql_begin(&q, "SELECT rows::text, next_start_primary_key::text, consumed::text FROM ots.get_range(");
	sql_arg(&q, req->table_name, "text");
	sql_arg_owned(&q, json_text(start.primary_key), "jsonb");
	sql_arg_owned(&q, json_text(end.primary_key), "jsonb");
	sql_named(&q, "direction", req->direction == OTSP__DIRECTION__BACKWARD ? "BACKWARD" : "FORWARD", "text");
	if (req->has_limit)
		sql_named_owned(&q, "\"limit\"", int_text(req->limit), "integer");
	if (read_args(call, &q, &options, "No version condition is specified."))
	{
		sql_end(&q, ")");
		res = sql_run(call, req->transaction_id, &q);
	}
	sql_free(&q);
	if (res != NULL)
	{
		json_t	   *rows = json_parse(field_text(res, 0, 0));
		json_t	   *next = json_parse(field_text(res, 0, 1));
		size_t		i;
		json_t	   *item;

		pb_begin(&rows_out);
		json_array_foreach(rows, i, item)
			pb_write_row(&rows_out, json_object_get(item, "primary_key"), start.pk_order,
						 json_object_get(item, "attributes"));
		if (json_array_size(rows) == 0)
			rows_out.len = 0;	/* no rows: empty bytes, as Tablestore sends */
		if (next != NULL && json_is_object(next))
		{
			pb_begin(&next_out);
			pb_write_row(&next_out, next, start.pk_order, NULL);
			resp.has_next_start_primary_key = 1;
			resp.next_start_primary_key.data = next_out.data;
			resp.next_start_primary_key.len = next_out.len;
		}
		resp.consumed = consumed_from(&consumed, field_text(res, 0, 2));
		resp.rows.data = rows_out.data;
		resp.rows.len = rows_out.len;
		call_reply(call, &resp.base);
		json_decref(rows);
		json_decref(next);
		PQclear(res);
	}
done_rows:
	if (have_end)
		pb_row_free(&end);
done_start:
	pb_row_free(&start);
done_request:
	buf_free(&rows_out);
	buf_free(&next_out);
	FREE(req);
}

/* an Error of a batch row from ots's error_code and error_message columns */
static Otsp__Error *
row_error(Otsp__Error *error, PGresult *res, int i)
{
	otsp__error__init(error);
	error->code = (char *) (field_text(res, i, 3) ? field_text(res, i, 3) : "OTSInternalServerError");
	error->message = (char *) field_text(res, i, 4);
	return error;
}

/*
 * The reply of a batch, built in request order: ots returns one result per
 * requested row in that order, and rows[i] gives each row's key order.
 * BatchReply owns what the reply points to, freed in one go.
 */
typedef struct BatchReply
{
	size_t		n;
	Otsp__Error *errors;
	Consumed   *consumed;
	Buf		   *bytes;
	void	  **allocs;			/* the reply's messages and arrays */
	size_t		nallocs;
} BatchReply;

static void
batch_reply_init(BatchReply *b, size_t n)
{
	memset(b, 0, sizeof(*b));
	b->n = n;
	b->errors = calloc(n ? n : 1, sizeof(Otsp__Error));
	b->consumed = calloc(n ? n : 1, sizeof(Consumed));
	b->bytes = calloc(n ? n : 1, sizeof(Buf));
}

/* zeroed memory that lives as long as the reply */
static void *
batch_alloc(BatchReply *b, size_t size)
{
	void	   *p = calloc(1, size ? size : 1);
	void	  **allocs = realloc(b->allocs, (b->nallocs + 1) * sizeof(void *));

	if (p == NULL || allocs == NULL)
		abort();
	b->allocs = allocs;
	b->allocs[b->nallocs++] = p;
	return p;
}

static void
batch_reply_free(BatchReply *b)
{
	for (size_t i = 0; i < b->n; i++)
		buf_free(&b->bytes[i]);
	for (size_t i = 0; i < b->nallocs; i++)
		free(b->allocs[i]);
	free(b->allocs);
	free(b->errors);
	free(b->consumed);
	free(b->bytes);
}

/*
 * batch_row_reply fills the reply fields of row i, which BatchGetRow's and
 * BatchWriteRow's row messages have alike
 */
static void
batch_row_reply(BatchReply *b, PGresult *res, size_t i, const PbRow *request,
				protobuf_c_boolean *is_ok, Otsp__Error **error, Otsp__ConsumedCapacity **consumed,
				protobuf_c_boolean *has_row, ProtobufCBinaryData *row)
{
	*is_ok = PQgetvalue(res, i, 2)[0] == 't';
	if (!*is_ok)
	{
		*error = row_error(&b->errors[i], res, i);
		return;
	}
	row_bytes(&b->bytes[i], field_text(res, i, 5), field_text(res, i, 6), request);
	*consumed = consumed_from(&b->consumed[i], field_text(res, i, 7));
	*has_row = b->bytes[i].len > 0;
	row->data = b->bytes[i].data;
	row->len = b->bytes[i].len;
}

/*
 * batch_run runs ots.<function>(request) and checks it returned nrows
 * results; NULL after replying
 */
static PGresult *
batch_run(Call *call, const char *head, json_t *request, const char *is_atomic,
		  const char *transaction_id, size_t nrows)
{
	SqlCall		q;
	PGresult   *res;

	sql_begin(&q, head);
	sql_arg_owned(&q, json_text(request), "jsonb");
	sql_named(&q, "is_atomic", is_atomic, "boolean");
	sql_end(&q, ")");
	res = sql_run(call, transaction_id, &q);
	sql_free(&q);
	if (res != NULL && (size_t) PQntuples(res) != nrows)
	{
		call_error(call, 500, "OTSInternalServerError", "ots returned %d results for %zu rows of a batch.",
				   PQntuples(res), nrows);
		PQclear(res);
		res = NULL;
	}
	return res;
}

#define BATCH_HEAD(f) "SELECT table_name, index, is_ok, error_code, error_message, primary_key::text, " \
	"attributes::text, consumed::text FROM ots." f "("

void
action_batch_get_row(Call *call)
{
	Otsp__BatchGetRowRequest *req = UNPACK(batch_get_row_request, call);
	Otsp__BatchGetRowResponse resp = OTSP__BATCH_GET_ROW_RESPONSE__INIT;
	json_t	   *request = json_array();
	PbRow	   *rows = NULL;
	size_t		nrows = 0,
				decoded = 0;
	PGresult   *res = NULL;
	BatchReply	b = {0};

	if (req == NULL)
	{
		json_decref(request);
		reply_malformed(call);
		return;
	}
	for (size_t t = 0; t < req->n_tables; t++)
		nrows += req->tables[t]->n_primary_key;
	if (nrows == 0)
	{
		call_parameter_invalid(call, "No row specified in the request of BatchGetRow.");
		goto done;
	}
	if (nrows > 100)
	{
		call_parameter_invalid(call, "Rows count exceeds the upper limit: 100.");
		goto done;
	}
	rows = calloc(nrows, sizeof(PbRow));
	for (size_t t = 0; t < req->n_tables; t++)
	{
		Otsp__TableInBatchGetRowRequest *table = req->tables[t];
		json_t	   *entry = json_object();
		json_t	   *keys = json_array();
		ReadOptions o = {
			table->n_columns_to_get, table->columns_to_get, table->time_range,
			table->has_max_versions, table->max_versions, table->has_filter, table->filter,
			table->start_column, table->end_column
		};
		json_t	   *options;

		json_array_append_new(request, entry);
		/* owned by the request from here, so a refusal below frees it */
		json_object_set_new(entry, "primary_keys", keys);
		if (!table_name_valid(call, table->table_name))
			goto done;
		if ((options = read_options(call, &o, "No version condition is specified while querying row.")) == NULL)
			goto done;
		json_object_update(entry, options);
		json_decref(options);
		json_object_set_new(entry, "table_name", json_string(table->table_name));
		for (size_t k = 0; k < table->n_primary_key; k++)
		{
			if (!decode_one_row(call, &table->primary_key[k], &rows[decoded]))
				goto done;
			json_array_append(keys, rows[decoded].primary_key);
			decoded++;
		}
	}

	if ((res = batch_run(call, BATCH_HEAD("batch_get_row"), request, NULL, NULL, nrows)) == NULL)
		goto done;
	batch_reply_init(&b, nrows);
	resp.n_tables = req->n_tables;
	resp.tables = batch_alloc(&b, req->n_tables * sizeof(void *));
	for (size_t t = 0, i = 0; t < req->n_tables; t++)
	{
		Otsp__TableInBatchGetRowResponse *table = batch_alloc(&b, sizeof(*table));

		otsp__table_in_batch_get_row_response__init(table);
		table->table_name = req->tables[t]->table_name;
		table->n_rows = req->tables[t]->n_primary_key;
		table->rows = batch_alloc(&b, table->n_rows * sizeof(void *));
		for (size_t k = 0; k < table->n_rows; k++, i++)
		{
			Otsp__RowInBatchGetRowResponse *row = batch_alloc(&b, sizeof(*row));

			otsp__row_in_batch_get_row_response__init(row);
			batch_row_reply(&b, res, i, &rows[i], &row->is_ok, &row->error, &row->consumed,
							&row->has_row, &row->row);
			table->rows[k] = row;
		}
		resp.tables[t] = table;
	}
	call_reply(call, &resp.base);
	batch_reply_free(&b);
done:
	if (res)
		PQclear(res);
	for (size_t i = 0; i < decoded; i++)
		pb_row_free(&rows[i]);
	free(rows);
	json_decref(request);
	FREE(req);
}

static const char *
operation_name(int type)
{
	switch (type)
	{
		case OTSP__OPERATION_TYPE__UPDATE:
			return "UPDATE";
		case OTSP__OPERATION_TYPE__DELETE:
			return "DELETE";
		default:
			return "PUT";
	}
}

/* one BatchWriteRow row as ots.batch_write_row's row object; false after replying */
static bool
batch_write_entry(Call *call, const Otsp__RowInBatchWriteRowRequest *in, PbRow *row, json_t **out)
{
	json_t	   *entry = json_object();
	char		err[256];

	*out = entry;
	if (in->return_content &&
		!names_utf8(call, in->return_content->return_column_names,
					in->return_content->n_return_column_names, NULL, NULL))
		return false;
	json_object_set_new(entry, "type", json_string(operation_name(in->type)));
	json_object_set(entry, "primary_key", row->primary_key);
	if (in->type == OTSP__OPERATION_TYPE__PUT)
		json_object_set_new(entry, "attributes", row->put ? json_incref(row->put) : json_object());
	else if (in->type == OTSP__OPERATION_TYPE__UPDATE)
	{
		if (row->put)
			json_object_set(entry, "put", row->put);
		if (row->delete_one)
			json_object_set(entry, "delete", row->delete_one);
		if (row->delete_all)
			json_object_set(entry, "delete_all", row->delete_all);
		if (row->increment)
			json_object_set(entry, "increment", row->increment);
	}
	json_object_set_new(entry, "condition",
						json_string(row_existence_name(in->condition->row_existence)));
	if (in->condition->has_column_condition && in->condition->column_condition.len > 0)
	{
		json_t	   *filter = pb_decode_filter(in->condition->column_condition.data,
											  in->condition->column_condition.len, err, sizeof(err));

		if (filter == NULL)
		{
			reply_undecodable(call, err);
			return false;
		}
		json_object_set_new(entry, "column_condition", filter);
	}
	if (in->return_content && in->return_content->has_return_type)
		json_object_set_new(entry, "return_type",
							json_string(return_type_name(in->return_content->return_type)));
	if (in->return_content && in->return_content->n_return_column_names > 0)
	{
		json_t	   *columns = json_array();

		for (size_t c = 0; c < in->return_content->n_return_column_names; c++)
			json_array_append_new(columns, json_string(in->return_content->return_column_names[c]));
		json_object_set_new(entry, "return_columns", columns);
	}
	return true;
}

void
action_batch_write_row(Call *call)
{
	Otsp__BatchWriteRowRequest *req = UNPACK(batch_write_row_request, call);
	Otsp__BatchWriteRowResponse resp = OTSP__BATCH_WRITE_ROW_RESPONSE__INIT;
	json_t	   *request = json_array();
	PbRow	   *rows = NULL;
	size_t		nrows = 0,
				decoded = 0;
	PGresult   *res = NULL;
	BatchReply	b = {0};

	if (req == NULL)
	{
		json_decref(request);
		reply_malformed(call);
		return;
	}
	for (size_t t = 0; t < req->n_tables; t++)
		nrows += req->tables[t]->n_rows;
	if (nrows == 0)
	{
		call_parameter_invalid(call, "No row is specified in BatchWriteRow.");
		goto done;
	}
	if (nrows > 200)
	{
		call_parameter_invalid(call, "Rows count exceeds the upper limit: 200.");
		goto done;
	}
	rows = calloc(nrows, sizeof(PbRow));
	for (size_t t = 0; t < req->n_tables; t++)
	{
		Otsp__TableInBatchWriteRowRequest *table = req->tables[t];
		json_t	   *entry = json_object();
		json_t	   *list = json_array();
		ResolvedTable resolved = {0};
		bool		ok = true;

		json_array_append_new(request, entry);
		json_object_set_new(entry, "rows", list);
		if (!table_name_valid(call, table->table_name))
			goto done;
		if (table->n_rows == 0)
		{
			call_parameter_invalid(call, "No operation is specified for table: '%s'.", table->table_name);
			goto done;
		}
		json_object_set_new(entry, "table_name", json_string(table->table_name));
		for (size_t r = 0; r < table->n_rows && ok; r++)
		{
			PbRow	   *row = &rows[decoded];
			json_t	   *row_entry;

			ok = decode_one_row(call, &table->rows[r]->row_change, row);
			if (!ok)
				break;
			decoded++;
			ok = partition_allowed(call, req->transaction_id, table->table_name, row, &resolved);
			if (ok)
			{
				ok = batch_write_entry(call, table->rows[r], row, &row_entry);
				json_array_append_new(list, row_entry);
			}
		}
		resolved_table_free(&resolved);
		if (!ok)
			goto done;
	}

	res = batch_run(call, BATCH_HEAD("batch_write_row"), request,
					req->has_is_atomic && req->is_atomic ? "true" : "false", req->transaction_id, nrows);
	if (res == NULL)
		goto done;
	batch_reply_init(&b, nrows);
	resp.n_tables = req->n_tables;
	resp.tables = batch_alloc(&b, req->n_tables * sizeof(void *));
	for (size_t t = 0, i = 0; t < req->n_tables; t++)
	{
		Otsp__TableInBatchWriteRowResponse *table = batch_alloc(&b, sizeof(*table));

		otsp__table_in_batch_write_row_response__init(table);
		table->table_name = req->tables[t]->table_name;
		table->n_rows = req->tables[t]->n_rows;
		table->rows = batch_alloc(&b, table->n_rows * sizeof(void *));
		for (size_t k = 0; k < table->n_rows; k++, i++)
		{
			Otsp__RowInBatchWriteRowResponse *row = batch_alloc(&b, sizeof(*row));

			otsp__row_in_batch_write_row_response__init(row);
			batch_row_reply(&b, res, i, &rows[i], &row->is_ok, &row->error, &row->consumed,
							&row->has_row, &row->row);
			table->rows[k] = row;
		}
		resp.tables[t] = table;
	}
	call_reply(call, &resp.base);
	batch_reply_free(&b);
done:
	if (res)
		PQclear(res);
	for (size_t i = 0; i < decoded; i++)
		pb_row_free(&rows[i]);
	free(rows);
	json_decref(request);
	FREE(req);
}
