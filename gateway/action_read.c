/*-------------------------------------------------------------------------
 * gateway/action_read.c
 *	  The row reads: GetRow and GetRange, each one call of the ots function
 *	  of the same name.
 *
 * Reads always ask ots for cells with timestamps (PlainBuffer carries them);
 * rows come back in PlainBuffer with their key columns in the order the
 * request gave them, which is the table's order (ots checks the names).
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "action.h"
#include "row_matrix.h"

/*
 * read_args: read_options as named arguments of get_row or get_range (wire:
 * of ots.wire_get_row, which always returns timestamps); false after replying
 */
static bool
read_args(Call *call, SqlCall *q, const ReadOptions *o, const char *no_version_message, bool wire)
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
	if (!wire)
		sql_named(q, "with_timestamps", "true", "boolean");
	sql_named(q, "start_column", o->start_column, "text");
	sql_named(q, "end_column", o->end_column, "text");
	json_decref(options);
	return true;
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
	ReadOptions options;
	bool		wire = pool_has_wire(WIRE_GET_ROW);
	Buf			out = {0};

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
	/*
	 * The wire function returns the row as PlainBuffer, its key in the
	 * table's order, which the request's is; get_row returns jsonb, written
	 * as PlainBuffer here
	 */
	if (wire)
	{
		sql_begin(&q, "SELECT * FROM ots.wire_get_row(");
		q.binary_result = true;
	}
	else
		sql_begin(&q, "SELECT primary_key::text, attributes::text, consumed::text FROM ots.get_row(");
	sql_arg(&q, req->table_name, "text");
	sql_arg_owned(&q, json_text(row.primary_key), "jsonb");
	if (read_args(call, &q, &options, "No version condition is specified while querying row.", wire))
	{
		sql_end(&q, ")");
		res = sql_run(call, req->transaction_id, &q);
	}
	sql_free(&q);
	if (res != NULL)
	{
		if (wire)
		{
			resp.consumed = consumed_from_wire(&consumed, res, 0);
			resp.row.data = (uint8_t *) PQgetvalue(res, 0, 0);
			resp.row.len = PQgetlength(res, 0, 0);
		}
		else
		{
			row_bytes(&out, field_text(res, 0, 0), field_text(res, 0, 1), &row);
			resp.consumed = consumed_from(&consumed, field_text(res, 0, 2));
			resp.row.data = out.data;
			resp.row.len = out.len;
		}
		call_reply(call, &resp.base);
		PQclear(res);
	}
done_row:
	pb_row_free(&row);
done_request:
	buf_free(&out);
	FREE(req);
}

/*
 * range_reply sends a GetRange page, as GetRange's answer or (bulk) as
 * BulkExport's, which has no next_token and always says its block's type
 */
static void
range_reply(Call *call, Otsp__GetRangeResponse *resp, bool bulk)
{
	Otsp__BulkExportResponse export = OTSP__BULK_EXPORT_RESPONSE__INIT;

	if (!bulk)
	{
		call_reply(call, &resp->base);
		return;
	}
	export.consumed = resp->consumed;
	export.rows = resp->rows;
	export.has_next_start_primary_key = resp->has_next_start_primary_key;
	export.next_start_primary_key = resp->next_start_primary_key;
	export.has_data_block_type = 1;
	export.data_block_type = resp->has_data_block_type ? resp->data_block_type :
		OTSP__DATA_BLOCK_TYPE__DBT_PLAIN_BUFFER;
	call_reply(call, &export.base);
}

/* get_range: a GetRange, or a BulkExport given as one (bulk: its answer's shape) */
static void
get_range(Call *call, const Otsp__GetRangeRequest *req, bool bulk)
{
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
	bool		wire = pool_has_wire(WIRE_GET_RANGE);
	/* a client asking for a SimpleRowMatrix block gets one, made from get_range's rows */
	bool		matrix = req->has_data_block_type_hint &&
		req->data_block_type_hint == OTSP__DATA_BLOCK_TYPE__DBT_SIMPLE_ROW_MATRIX;

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
	/* a token is one ots gave: base64 text */
	if (req->has_token && req->token.len > 0)
		for (size_t i = 0; i < req->token.len; i++)
			if (req->token.data[i] < 0x21 || req->token.data[i] > 0x7e)
			{
				call_parameter_invalid(call, "The token is invalid.");
				goto done_rows;
			}
	/*
	 * The wire function returns rows and next key as PlainBuffer; get_range
	 * returns jsonb, whose next_token is read by name from the row: a
	 * cluster proxy's ots.range_result has none
	 */
	/* (BulkExport has no next_token: its pages end between rows) */
	if (matrix || bulk)
		wire = false;
	if (wire)
	{
		sql_begin(&q, "SELECT * FROM ots.wire_get_range(");
		q.binary_result = true;
	}
	else
		sql_begin(&q, "SELECT g.rows::text, g.next_start_primary_key::text, g.consumed::text, "
				  "pg_catalog.to_jsonb(g) OPERATOR(pg_catalog.->>) 'next_token' FROM ots.get_range(");
	sql_arg(&q, req->table_name, "text");
	sql_arg_owned(&q, json_text(start.primary_key), "jsonb");
	sql_arg_owned(&q, json_text(end.primary_key), "jsonb");
	sql_named(&q, "direction", req->direction == OTSP__DIRECTION__BACKWARD ? "BACKWARD" : "FORWARD", "text");
	if (req->has_limit)
		sql_named_owned(&q, "\"limit\"", int_text(req->limit), "integer");
	if (req->has_token && req->token.len > 0)
		sql_named_owned(&q, "token", strndup((const char *) req->token.data, req->token.len), "text");
	if (bulk)
		sql_named(&q, "whole_rows", "true", "boolean");
	if (read_args(call, &q, &options, "No version condition is specified.", wire))
	{
		sql_end(&q, ") AS g");
		res = sql_run(call, req->transaction_id, &q);
	}
	sql_free(&q);
	if (res != NULL && wire)
	{
		/* rows, next_start_primary_key, next_token, read_cu, write_cu */
		resp.rows.data = (uint8_t *) PQgetvalue(res, 0, 0);
		resp.rows.len = PQgetlength(res, 0, 0);
		if (!PQgetisnull(res, 0, 1))
		{
			resp.has_next_start_primary_key = 1;
			resp.next_start_primary_key.data = (uint8_t *) PQgetvalue(res, 0, 1);
			resp.next_start_primary_key.len = PQgetlength(res, 0, 1);
		}
		if (!PQgetisnull(res, 0, 2))
		{
			/* the page ended inside its last row: where it goes on */
			resp.has_next_token = 1;
			resp.next_token.data = (uint8_t *) PQgetvalue(res, 0, 2);
			resp.next_token.len = PQgetlength(res, 0, 2);
		}
		resp.consumed = consumed_from_wire(&consumed, res, 0);
		range_reply(call, &resp, bulk);
		PQclear(res);
	}
	else if (res != NULL)
	{
		json_t	   *rows = json_parse(field_text(res, 0, 0));
		json_t	   *next = json_parse(field_text(res, 0, 1));
		size_t		i;
		json_t	   *item;

		if (matrix)
		{
			rm_write(&rows_out, rows, start.pk_order, req->columns_to_get, req->n_columns_to_get);
			resp.has_data_block_type = 1;
			resp.data_block_type = OTSP__DATA_BLOCK_TYPE__DBT_SIMPLE_ROW_MATRIX;
		}
		else
		{
			pb_begin(&rows_out);
			json_array_foreach(rows, i, item)
				pb_write_row(&rows_out, json_object_get(item, "primary_key"), start.pk_order,
							 json_object_get(item, "attributes"));
			if (json_array_size(rows) == 0)
				rows_out.len = 0;	/* no rows: empty bytes, as Tablestore sends */
		}
		if (next != NULL && json_is_object(next))
		{
			pb_begin(&next_out);
			pb_write_row(&next_out, next, start.pk_order, NULL);
			resp.has_next_start_primary_key = 1;
			resp.next_start_primary_key.data = next_out.data;
			resp.next_start_primary_key.len = next_out.len;
		}
		resp.consumed = consumed_from(&consumed, field_text(res, 0, 2));
		if (!PQgetisnull(res, 0, 3))
		{
			/* the page ended inside its last row: where it goes on */
			resp.has_next_token = 1;
			resp.next_token.data = (uint8_t *) PQgetvalue(res, 0, 3);
			resp.next_token.len = PQgetlength(res, 0, 3);
		}
		resp.rows.data = rows_out.data;
		resp.rows.len = rows_out.len;
		range_reply(call, &resp, bulk);
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
}

void
action_get_range(Call *call)
{
	Otsp__GetRangeRequest *req = UNPACK(get_range_request, call);

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	get_range(call, req, false);
	FREE(req);
}

/*
 * BulkExport: a GetRange forward over the range, of the newest version, in
 * the block the client asks for (a SimpleRowMatrix unless it asks for
 * PlainBuffer), continued with next_start_primary_key
 */
void
action_bulk_export(Call *call)
{
	Otsp__BulkExportRequest *req = UNPACK(bulk_export_request, call);
	Otsp__GetRangeRequest range = OTSP__GET_RANGE_REQUEST__INIT;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	range.table_name = req->table_name;
	range.direction = OTSP__DIRECTION__FORWARD;
	range.n_columns_to_get = req->n_columns_to_get;
	range.columns_to_get = req->columns_to_get;
	range.has_max_versions = 1;
	range.max_versions = 1;
	range.inclusive_start_primary_key = req->inclusive_start_primary_key;
	range.exclusive_end_primary_key = req->exclusive_end_primary_key;
	range.has_filter = req->has_filter;
	range.filter = req->filter;
	range.has_data_block_type_hint = 1;
	range.data_block_type_hint = req->has_data_block_type_hint ? req->data_block_type_hint :
		OTSP__DATA_BLOCK_TYPE__DBT_SIMPLE_ROW_MATRIX;
	get_range(call, &range, true);
	FREE(req);
}
