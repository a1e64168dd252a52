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
		call_parameter_invalid(call, "%s", err);
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

static bool
read_args(Call *call, SqlCall *q, const ReadOptions *o, const char *no_version_message)
{
	char		err[256];

	if (!o->has_max_versions && o->time_range == NULL)
	{
		call_parameter_invalid(call, "%s", no_version_message);
		return false;
	}
	if (o->n_columns_to_get > 0)
		sql_named_owned(q, "columns_to_get", text_array(o->columns_to_get, o->n_columns_to_get), "text[]");
	if (o->has_max_versions)
		sql_named_owned(q, "max_versions", int_text(o->max_versions), "integer");
	if (o->time_range != NULL)
	{
		json_t	   *range = time_range_json(o->time_range);

		sql_named_owned(q, "time_range", json_text(range), "jsonb");
		json_decref(range);
	}
	if (o->has_filter && o->filter.len > 0)
	{
		json_t	   *filter = pb_decode_filter(o->filter.data, o->filter.len, err, sizeof(err));

		if (filter == NULL)
		{
			call_parameter_invalid(call, "%s", err);
			return false;
		}
		sql_named_owned(q, "filter", json_text(filter), "jsonb");
		json_decref(filter);
	}
	sql_named(q, "with_timestamps", "true", "boolean");
	sql_named(q, "start_column", o->start_column, "text");
	sql_named(q, "end_column", o->end_column, "text");
	return true;
}

/* the transaction check of a request naming one partition; false after replying */
static bool
partition_allowed(Call *call, const char *transaction_id, const char *table, const PbRow *row)
{
	char	   *partition = partition_key_text(row);
	bool		ok = call_check_partition(call, transaction_id, table, partition ? partition : "null");

	free(partition);
	return ok;
}

void
action_put_row(Call *call)
{
	Otsp__PutRowRequest *req = UNPACK(put_row_request, call);
	Otsp__PutRowResponse resp = OTSP__PUT_ROW_RESPONSE__INIT;
	PbRow		row;
	SqlCall		q;
	PGresult   *res = NULL;
	Consumed	consumed;
	Buf			out = {0};

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (!table_name_valid(call, req->table_name) || !decode_one_row(call, &req->row, &row))
		goto done_request;
	if (!partition_allowed(call, req->transaction_id, req->table_name, &row))
		goto done_row;
	sql_begin(&q, "SELECT primary_key::text, consumed::text FROM ots.put_row(");
	sql_arg(&q, req->table_name, "text");
	sql_arg_owned(&q, json_text(row.primary_key), "jsonb");
	sql_arg_owned(&q, row.put ? json_text(row.put) : strdup("{}"), "jsonb");
	if (condition_args(call, &q, req->condition))
	{
		if (req->return_content && req->return_content->has_return_type)
			sql_named(&q, "return_type", return_type_name(req->return_content->return_type), "text");
		sql_end(&q, ")");
		res = sql_run(call, req->transaction_id, &q);
	}
	sql_free(&q);
	if (res != NULL)
	{
		row_bytes(&out, field_text(res, 0, 0), NULL, &row);
		resp.consumed = consumed_from(&consumed, field_text(res, 0, 1));
		resp.has_row = out.len > 0;
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
action_update_row(Call *call)
{
	Otsp__UpdateRowRequest *req = UNPACK(update_row_request, call);
	Otsp__UpdateRowResponse resp = OTSP__UPDATE_ROW_RESPONSE__INIT;
	PbRow		row;
	SqlCall		q;
	PGresult   *res = NULL;
	Consumed	consumed;
	Buf			out = {0};

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (!table_name_valid(call, req->table_name) || !decode_one_row(call, &req->row_change, &row))
		goto done_request;
	if (!partition_allowed(call, req->transaction_id, req->table_name, &row))
		goto done_row;
	sql_begin(&q, "SELECT primary_key::text, attributes::text, consumed::text FROM ots.update_row(");
	sql_arg(&q, req->table_name, "text");
	sql_arg_owned(&q, json_text(row.primary_key), "jsonb");
	sql_named_owned(&q, "put", json_text(row.put), "jsonb");
	sql_named_owned(&q, "\"delete\"", json_text(row.delete_one), "jsonb");
	if (row.delete_all != NULL)
	{
		size_t		n = json_array_size(row.delete_all);
		char	  **names = calloc(n + 1, sizeof(char *));

		for (size_t i = 0; i < n; i++)
			names[i] = (char *) json_string_value(json_array_get(row.delete_all, i));
		sql_named_owned(&q, "delete_all", text_array(names, n), "text[]");
		free(names);
	}
	sql_named_owned(&q, "increment", json_text(row.increment), "jsonb");
	if (condition_args(call, &q, req->condition))
	{
		if (req->return_content && req->return_content->has_return_type)
			sql_named(&q, "return_type", return_type_name(req->return_content->return_type), "text");
		if (req->return_content && req->return_content->n_return_column_names > 0)
			sql_named_owned(&q, "return_columns",
							text_array(req->return_content->return_column_names,
									   req->return_content->n_return_column_names), "text[]");
		sql_end(&q, ")");
		res = sql_run(call, req->transaction_id, &q);
	}
	sql_free(&q);
	if (res != NULL)
	{
		row_bytes(&out, field_text(res, 0, 0), field_text(res, 0, 1), &row);
		resp.consumed = consumed_from(&consumed, field_text(res, 0, 2));
		resp.has_row = out.len > 0;
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
action_delete_row(Call *call)
{
	Otsp__DeleteRowRequest *req = UNPACK(delete_row_request, call);
	Otsp__DeleteRowResponse resp = OTSP__DELETE_ROW_RESPONSE__INIT;
	PbRow		row;
	SqlCall		q;
	PGresult   *res = NULL;
	Consumed	consumed;
	Buf			out = {0};

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (!table_name_valid(call, req->table_name) || !decode_one_row(call, &req->primary_key, &row))
		goto done_request;
	if (!partition_allowed(call, req->transaction_id, req->table_name, &row))
		goto done_row;
	sql_begin(&q, "SELECT primary_key::text, consumed::text FROM ots.delete_row(");
	sql_arg(&q, req->table_name, "text");
	sql_arg_owned(&q, json_text(row.primary_key), "jsonb");
	if (condition_args(call, &q, req->condition))
	{
		if (req->return_content && req->return_content->has_return_type)
			sql_named(&q, "return_type", return_type_name(req->return_content->return_type), "text");
		sql_end(&q, ")");
		res = sql_run(call, req->transaction_id, &q);
	}
	sql_free(&q);
	if (res != NULL)
	{
		row_bytes(&out, field_text(res, 0, 0), NULL, &row);
		resp.consumed = consumed_from(&consumed, field_text(res, 0, 1));
		resp.has_row = out.len > 0;
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
	if (req->transaction_id && !partition_allowed(call, req->transaction_id, req->table_name, &row))
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

/* a GetRange bound: exactly one key row */
static bool
decode_bound(Call *call, const ProtobufCBinaryData *bytes, PbRow *row)
{
	return decode_one_row(call, bytes, row);
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
		!decode_bound(call, &req->inclusive_start_primary_key, &start))
		goto done_request;
	if (!decode_bound(call, &req->exclusive_end_primary_key, &end))
		goto done_start;
	have_end = true;
	if (req->transaction_id && !partition_allowed(call, req->transaction_id, req->table_name, &start))
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
 * The per-row replies of a batch, in request order: ots returns one result
 * per requested row in that order.  rows[i] gives each row's key order.
 */
typedef struct BatchReply
{
	size_t		n;
	Otsp__Error *errors;
	Consumed   *consumed;
	Buf		   *bytes;
} BatchReply;

static void
batch_reply_init(BatchReply *b, size_t n)
{
	b->n = n;
	b->errors = calloc(n ? n : 1, sizeof(Otsp__Error));
	b->consumed = calloc(n ? n : 1, sizeof(Consumed));
	b->bytes = calloc(n ? n : 1, sizeof(Buf));
}

static void
batch_reply_free(BatchReply *b)
{
	for (size_t i = 0; i < b->n; i++)
		buf_free(&b->bytes[i]);
	free(b->errors);
	free(b->consumed);
	free(b->bytes);
}

void
action_batch_get_row(Call *call)
{
	Otsp__BatchGetRowRequest *req = UNPACK(batch_get_row_request, call);
	Otsp__BatchGetRowResponse resp = OTSP__BATCH_GET_ROW_RESPONSE__INIT;
	json_t	   *request = json_array();
	PbRow	   *rows = NULL;
	size_t		nrows = 0,
				decoded = 0;
	SqlCall		q;
	PGresult   *res = NULL;
	BatchReply	b = {0};
	char	   *request_text;

	if (req == NULL)
	{
		json_decref(request);
	{
		reply_malformed(call);
		return;
	}
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
		char		err[256];

		json_array_append_new(request, entry);
		if (!table_name_valid(call, table->table_name))
			goto done;
		if (!o.has_max_versions && o.time_range == NULL)
		{
			call_parameter_invalid(call, "No version condition is specified while querying row.");
			goto done;
		}
		json_object_set_new(entry, "table_name", json_string(table->table_name));
		for (size_t k = 0; k < table->n_primary_key; k++)
		{
			if (!decode_one_row(call, &table->primary_key[k], &rows[decoded]))
				goto done;
			json_array_append(keys, rows[decoded].primary_key);
			decoded++;
		}
		json_object_set_new(entry, "primary_keys", keys);
		if (o.n_columns_to_get > 0)
		{
			json_t	   *columns = json_array();

			for (size_t c = 0; c < o.n_columns_to_get; c++)
				json_array_append_new(columns, json_string(o.columns_to_get[c]));
			json_object_set_new(entry, "columns_to_get", columns);
		}
		if (o.has_max_versions)
			json_object_set_new(entry, "max_versions", json_integer(o.max_versions));
		if (o.time_range)
			json_object_set_new(entry, "time_range", time_range_json(o.time_range));
		if (o.has_filter && o.filter.len > 0)
		{
			json_t	   *filter = pb_decode_filter(o.filter.data, o.filter.len, err, sizeof(err));

			if (filter == NULL)
			{
				call_parameter_invalid(call, "%s", err);
				goto done;
			}
			json_object_set_new(entry, "filter", filter);
		}
		if (o.start_column)
			json_object_set_new(entry, "start_column", json_string(o.start_column));
		if (o.end_column)
			json_object_set_new(entry, "end_column", json_string(o.end_column));
		json_object_set_new(entry, "with_timestamps", json_true());
	}

	request_text = json_text(request);
	sql_begin(&q, "SELECT table_name, index, is_ok, error_code, error_message, primary_key::text, "
			  "attributes::text, consumed::text FROM ots.batch_get_row(");
	sql_arg_owned(&q, request_text, "jsonb");
	sql_end(&q, ")");
	res = sql_run(call, NULL, &q);
	sql_free(&q);
	if (res == NULL)
		goto done;
	if ((size_t) PQntuples(res) != nrows)
	{
		call_error(call, 500, "OTSInternalServerError", "ots.batch_get_row returned %d results for %zu rows.",
				   PQntuples(res), nrows);
		goto done;
	}

	batch_reply_init(&b, nrows);
	resp.n_tables = req->n_tables;
	resp.tables = calloc(req->n_tables, sizeof(Otsp__TableInBatchGetRowResponse *));
	{
		size_t		i = 0;

		for (size_t t = 0; t < req->n_tables; t++)
		{
			Otsp__TableInBatchGetRowResponse *table = calloc(1, sizeof(*table));

			otsp__table_in_batch_get_row_response__init(table);
			table->table_name = req->tables[t]->table_name;
			table->n_rows = req->tables[t]->n_primary_key;
			table->rows = calloc(table->n_rows ? table->n_rows : 1, sizeof(Otsp__RowInBatchGetRowResponse *));
			for (size_t k = 0; k < table->n_rows; k++, i++)
			{
				Otsp__RowInBatchGetRowResponse *row = calloc(1, sizeof(*row));

				otsp__row_in_batch_get_row_response__init(row);
				row->is_ok = PQgetvalue(res, i, 2)[0] == 't';
				if (row->is_ok)
				{
					row_bytes(&b.bytes[i], field_text(res, i, 5), field_text(res, i, 6), &rows[i]);
					row->consumed = consumed_from(&b.consumed[i], field_text(res, i, 7));
					row->has_row = 1;
					row->row.data = b.bytes[i].data;
					row->row.len = b.bytes[i].len;
				}
				else
					row->error = row_error(&b.errors[i], res, i);
				table->rows[k] = row;
			}
			resp.tables[t] = table;
		}
	}
	call_reply(call, &resp.base);

	for (size_t t = 0; t < resp.n_tables; t++)
	{
		for (size_t k = 0; k < resp.tables[t]->n_rows; k++)
			free(resp.tables[t]->rows[k]);
		free(resp.tables[t]->rows);
		free(resp.tables[t]);
	}
	free(resp.tables);
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
			call_parameter_invalid(call, "%s", err);
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
	SqlCall		q;
	PGresult   *res = NULL;
	BatchReply	b = {0};

	if (req == NULL)
	{
		json_decref(request);
	{
		reply_malformed(call);
		return;
	}
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
		for (size_t r = 0; r < table->n_rows; r++)
		{
			json_t	   *row_entry;
			bool		ok;

			if (!decode_one_row(call, &table->rows[r]->row_change, &rows[decoded]))
				goto done;
			decoded++;
			if (!partition_allowed(call, req->transaction_id, table->table_name, &rows[decoded - 1]))
				goto done;
			ok = batch_write_entry(call, table->rows[r], &rows[decoded - 1], &row_entry);
			json_array_append_new(list, row_entry);
			if (!ok)
				goto done;
		}
	}

	sql_begin(&q, "SELECT table_name, index, is_ok, error_code, error_message, primary_key::text, "
			  "attributes::text, consumed::text FROM ots.batch_write_row(");
	sql_arg_owned(&q, json_text(request), "jsonb");
	sql_named(&q, "is_atomic", req->has_is_atomic && req->is_atomic ? "true" : "false", "boolean");
	sql_end(&q, ")");
	res = sql_run(call, req->transaction_id, &q);
	sql_free(&q);
	if (res == NULL)
		goto done;
	if ((size_t) PQntuples(res) != nrows)
	{
		call_error(call, 500, "OTSInternalServerError", "ots.batch_write_row returned %d results for %zu rows.",
				   PQntuples(res), nrows);
		goto done;
	}

	batch_reply_init(&b, nrows);
	resp.n_tables = req->n_tables;
	resp.tables = calloc(req->n_tables, sizeof(Otsp__TableInBatchWriteRowResponse *));
	{
		size_t		i = 0;

		for (size_t t = 0; t < req->n_tables; t++)
		{
			Otsp__TableInBatchWriteRowResponse *table = calloc(1, sizeof(*table));

			otsp__table_in_batch_write_row_response__init(table);
			table->table_name = req->tables[t]->table_name;
			table->n_rows = req->tables[t]->n_rows;
			table->rows = calloc(table->n_rows ? table->n_rows : 1, sizeof(Otsp__RowInBatchWriteRowResponse *));
			for (size_t k = 0; k < table->n_rows; k++, i++)
			{
				Otsp__RowInBatchWriteRowResponse *row = calloc(1, sizeof(*row));

				otsp__row_in_batch_write_row_response__init(row);
				row->is_ok = PQgetvalue(res, i, 2)[0] == 't';
				if (row->is_ok)
				{
					row_bytes(&b.bytes[i], field_text(res, i, 5), field_text(res, i, 6), &rows[i]);
					row->consumed = consumed_from(&b.consumed[i], field_text(res, i, 7));
					row->has_row = b.bytes[i].len > 0;
					row->row.data = b.bytes[i].data;
					row->row.len = b.bytes[i].len;
				}
				else
					row->error = row_error(&b.errors[i], res, i);
				table->rows[k] = row;
			}
			resp.tables[t] = table;
		}
	}
	call_reply(call, &resp.base);

	for (size_t t = 0; t < resp.n_tables; t++)
	{
		for (size_t k = 0; k < resp.tables[t]->n_rows; k++)
			free(resp.tables[t]->rows[k]);
		free(resp.tables[t]->rows);
		free(resp.tables[t]);
	}
	free(resp.tables);
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
