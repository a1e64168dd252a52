/*-------------------------------------------------------------------------
 * gateway/action_batch.c
 *	  The batches: BatchGetRow and BatchWriteRow, each one call of
 *	  ots.batch_get_row or ots.batch_write_row for all of the request's
 *	  rows, whose results come back in request order.
 *
 * Reads ask ots for cells with timestamps, as GetRow does (action_read.c).
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "action.h"

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
	/* request NULL: the wire function's result, in binary, its row PlainBuffer already */
	*is_ok = request == NULL ? PQgetvalue(res, i, 2)[0] == 1 : PQgetvalue(res, i, 2)[0] == 't';
	if (!*is_ok)
	{
		*error = row_error(&b->errors[i], res, i);
		return;
	}
	if (request == NULL)
	{
		*consumed = consumed_from_wire(&b->consumed[i], res, i);
		row->data = (uint8_t *) PQgetvalue(res, i, 5);
		row->len = PQgetlength(res, i, 5);
	}
	else
	{
		row_bytes(&b->bytes[i], field_text(res, i, 5), field_text(res, i, 6), request);
		*consumed = consumed_from(&b->consumed[i], field_text(res, i, 7));
		row->data = b->bytes[i].data;
		row->len = b->bytes[i].len;
	}
	*has_row = row->len > 0;
}

/* batch_results: res if it has nrows results; NULL after replying */
static PGresult *
batch_results(Call *call, PGresult *res, size_t nrows)
{
	if (res != NULL && (size_t) PQntuples(res) != nrows)
	{
		call_error(call, 500, "OTSInternalServerError", "ots returned %d results for %zu rows of a batch.",
				   PQntuples(res), nrows);
		PQclear(res);
		res = NULL;
	}
	return res;
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
	return batch_results(call, res, nrows);
}

#define BATCH_HEAD(f) "SELECT table_name, index, is_ok, error_code, error_message, primary_key::text, " \
	"attributes::text, consumed::text FROM ots." f "("

/*
 * batch_run_wire: ots.wire_batch_write_row of the request without its rows'
 * keys and cells, and the rows' bytes as they came; NULL after replying
 */
static PGresult *
batch_run_wire(Call *call, json_t *request, const ProtobufCBinaryData *const *rows, size_t nrows,
			   const char *is_atomic)
{
	SqlCall		q;
	PGresult   *res;

	sql_begin(&q, "SELECT * FROM ots.wire_batch_write_row(");
	q.binary_result = true;
	sql_arg_owned(&q, json_text(request), "jsonb");
	sql_arg_bytes_array(&q, rows, nrows);
	sql_named(&q, "is_atomic", is_atomic, "boolean");
	sql_end(&q, ")");
	res = sql_run(call, NULL, &q);
	sql_free(&q);
	return batch_results(call, res, nrows);
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
	/* a table entry without keys reads nothing, as Tablestore's does; a request without entries is refused */
	if (req->n_tables == 0)
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

/* utf8_names: every name is UTF-8 */
static bool
utf8_names(char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!utf8_valid(names[i]))
			return false;
	return true;
}

/*
 * row_cells: a row's key and cells as its type takes them; the wire path's
 * ots.wire_batch_write_row puts them where these go (src/api/wire_batch.c)
 */
static void
row_cells(json_t *entry, Otsp__OperationType type, const PbRow *row)
{
	json_object_set(entry, "primary_key", row->primary_key);
	if (type == OTSP__OPERATION_TYPE__PUT)
		json_object_set_new(entry, "attributes", row->put ? json_incref(row->put) : json_object());
	else if (type == OTSP__OPERATION_TYPE__UPDATE)
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
}

/*
 * the wire path's rows before a refusal of otsd's (of an entry, or of a
 * row's own fields: that row included): otsd reads none of them there, but
 * the jsonb path reads each row before its fields, so a bad one among them
 * is the answer.  The rows before row `row` of entry `table`.
 */
typedef struct UnreadRows
{
	const Otsp__BatchWriteRowRequest *req;
	size_t		table;
	size_t		row;
} UnreadRows;

/* unread_rows_bad: one of the rows is bad, and was answered */
static bool
unread_rows_bad(Call *call, const UnreadRows *unread)
{
	PbRow		row;

	for (size_t t = 0; t <= unread->table && t < unread->req->n_tables; t++)
		for (size_t r = 0; r < unread->req->tables[t]->n_rows && (t < unread->table || r < unread->row); r++)
		{
			if (!decode_one_row(call, &unread->req->tables[t]->rows[r]->row_change, &row))
				return true;
			pb_row_free(&row);
		}
	return false;
}

/*
 * one BatchWriteRow row as ots.batch_write_row's row object; false after
 * replying.  row NULL: the wire path's, without the key and cells, which ots
 * reads from the row's bytes (unread: the rows up to this one)
 */
static bool
batch_write_entry(Call *call, const Otsp__RowInBatchWriteRowRequest *in, PbRow *row,
				  const UnreadRows *unread, json_t **out)
{
	json_t	   *entry = json_object();
	char		err[256];

	*out = entry;
	if (in->return_content &&
		!utf8_names(in->return_content->return_column_names, in->return_content->n_return_column_names))
	{
		if (unread == NULL || !unread_rows_bad(call, unread))
			call_parameter_invalid(call, "A string in the request is not valid UTF-8.");
		return false;
	}
	json_object_set_new(entry, "type", json_string(operation_name(in->type)));
	if (row != NULL)
		row_cells(entry, in->type, row);
	json_object_set_new(entry, "condition",
						json_string(row_existence_name(in->condition->row_existence)));
	if (in->condition->has_column_condition && in->condition->column_condition.len > 0)
	{
		json_t	   *filter = pb_decode_filter(in->condition->column_condition.data,
											  in->condition->column_condition.len, err, sizeof(err));

		if (filter == NULL)
		{
			if (unread == NULL || !unread_rows_bad(call, unread))
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

/*
 * batch_write: a BatchWriteRow, or a BulkImport given as one (bulk: its
 * reply is BulkImport's, one table's rows with their results)
 */
static void
batch_write(Call *call, const Otsp__BatchWriteRowRequest *req, bool bulk)
{
	Otsp__BatchWriteRowResponse resp = OTSP__BATCH_WRITE_ROW_RESPONSE__INIT;
	Otsp__BulkImportResponse bulk_resp = OTSP__BULK_IMPORT_RESPONSE__INIT;
	json_t	   *request = json_array();
	PbRow	   *rows = NULL;
	size_t		nrows = 0,
				decoded = 0;
	PGresult   *res = NULL;
	BatchReply	b = {0};
	bool		wire = write_wire_usable(req->transaction_id, WIRE_BATCH_WRITE);
	const ProtobufCBinaryData **row_bytes_list = NULL;

	for (size_t t = 0; t < req->n_tables; t++)
		nrows += req->tables[t]->n_rows;
	/* a table entry without rows is refused below, by its name, as Tablestore does */
	if (req->n_tables == 0)
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
	row_bytes_list = calloc(nrows + 1, sizeof(*row_bytes_list));
	if (rows == NULL || row_bytes_list == NULL)
		abort();
	for (size_t t = 0, i = 0; t < req->n_tables; t++)
	{
		Otsp__TableInBatchWriteRowRequest *table = req->tables[t];
		json_t	   *entry = json_object();
		json_t	   *list = json_array();
		ResolvedTable resolved = {0};
		bool		ok = true;
		/* on the wire path, the rows of the entries before, which the jsonb path has read */
		UnreadRows	before = {req, t, 0};

		json_array_append_new(request, entry);
		json_object_set_new(entry, "rows", list);
		if (wire && !table_name_ok(table->table_name) && unread_rows_bad(call, &before))
			goto done;
		if (!table_name_valid(call, table->table_name))
			goto done;
		if (table->n_rows == 0)
		{
			if (!wire || !unread_rows_bad(call, &before))
				call_parameter_invalid(call, "No operation is specified for table: '%s'.", table->table_name);
			goto done;
		}
		json_object_set_new(entry, "table_name", json_string(table->table_name));
		for (size_t r = 0; r < table->n_rows && ok; r++, i++)
		{
			PbRow	   *row = &rows[decoded];
			json_t	   *row_entry;
			UnreadRows	unread = {req, t, r + 1};

			row_bytes_list[i] = &table->rows[r]->row_change;
			if (wire)
			{
				ok = batch_write_entry(call, table->rows[r], NULL, &unread, &row_entry);
				json_array_append_new(list, row_entry);
				continue;
			}
			ok = decode_one_row(call, &table->rows[r]->row_change, row);
			if (!ok)
				break;
			decoded++;
			ok = partition_allowed(call, req->transaction_id, table->table_name, row, &resolved);
			if (ok)
			{
				ok = batch_write_entry(call, table->rows[r], row, NULL, &row_entry);
				json_array_append_new(list, row_entry);
			}
		}
		resolved_table_free(&resolved);
		if (!ok)
			goto done;
	}

	if (wire)
		res = batch_run_wire(call, request, row_bytes_list, nrows,
							 req->has_is_atomic && req->is_atomic ? "true" : "false");
	else
		res = batch_run(call, BATCH_HEAD("batch_write_row"), request,
						req->has_is_atomic && req->is_atomic ? "true" : "false", req->transaction_id, nrows);
	if (res == NULL)
		goto done;
	batch_reply_init(&b, nrows);
	if (bulk)
	{
		bulk_resp.table_name = req->tables[0]->table_name;
		bulk_resp.n_rows = nrows;
		bulk_resp.rows = batch_alloc(&b, nrows * sizeof(void *));
		for (size_t i = 0; i < nrows; i++)
		{
			Otsp__RowInBulkImportResponse *row = batch_alloc(&b, sizeof(*row));
			protobuf_c_boolean has_row;
			ProtobufCBinaryData no_row;

			otsp__row_in_bulk_import_response__init(row);
			batch_row_reply(&b, res, i, wire ? NULL : &rows[i], &row->is_ok, &row->error,
							&row->consumed, &has_row, &no_row);
			bulk_resp.rows[i] = row;
		}
		call_reply(call, &bulk_resp.base);
		batch_reply_free(&b);
		goto done;
	}
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
			batch_row_reply(&b, res, i, wire ? NULL : &rows[i], &row->is_ok, &row->error,
							&row->consumed, &row->has_row, &row->row);
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
	free(row_bytes_list);
	json_decref(request);
}

void
action_batch_write_row(Call *call)
{
	Otsp__BatchWriteRowRequest *req = UNPACK(batch_write_row_request, call);

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	batch_write(call, req, false);
	FREE(req);
}

/*
 * BulkImport: its rows are one table's BatchWriteRow rows without
 * conditions (IGNORE) or return content, each with its own result, written
 * as the batch's bulk way writes them (ots.batch_write_row)
 */
void
action_bulk_import(Call *call)
{
	Otsp__BulkImportRequest *req = UNPACK(bulk_import_request, call);
	Otsp__BatchWriteRowRequest batch = OTSP__BATCH_WRITE_ROW_REQUEST__INIT;
	Otsp__TableInBatchWriteRowRequest table = OTSP__TABLE_IN_BATCH_WRITE_ROW_REQUEST__INIT;
	Otsp__TableInBatchWriteRowRequest *tables[1] = {&table};
	Otsp__Condition ignore = OTSP__CONDITION__INIT;
	Otsp__RowInBatchWriteRowRequest *rows;
	Otsp__RowInBatchWriteRowRequest **row_list;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	ignore.row_existence = OTSP__ROW_EXISTENCE_EXPECTATION__IGNORE;
	rows = calloc(req->n_rows + 1, sizeof(*rows));
	row_list = calloc(req->n_rows + 1, sizeof(*row_list));
	if (rows == NULL || row_list == NULL)
		abort();
	for (size_t r = 0; r < req->n_rows; r++)
	{
		otsp__row_in_batch_write_row_request__init(&rows[r]);
		rows[r].type = req->rows[r]->type;
		rows[r].row_change = req->rows[r]->row_change;
		rows[r].condition = &ignore;
		row_list[r] = &rows[r];
	}
	table.table_name = req->table_name;
	table.n_rows = req->n_rows;
	table.rows = row_list;
	batch.n_tables = 1;
	batch.tables = tables;
	batch_write(call, &batch, true);
	free(rows);
	free(row_list);
	FREE(req);
}
