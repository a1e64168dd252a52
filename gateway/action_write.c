/*-------------------------------------------------------------------------
 * gateway/action_write.c
 *	  The single-row writes: PutRow, UpdateRow and DeleteRow, each one call
 *	  of the ots function of the same name: ots.wire_put_row (and so on)
 *	  with the request's PlainBuffer row as it came, and the returned row
 *	  as PlainBuffer; or, in a transaction, while one is open, or where the
 *	  database has no wire functions, ots.put_row with the row read here
 *	  into jsonb (the transaction checks need its key).
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "action.h"

/*
 * the column condition of a write, as ots's jsonb; false after replying.
 * unread_row: the request's row, when ots is to read it (the wire path): a
 * bad condition is answered after a bad row, as the path that reads the
 * row here first answers, so the two paths cannot be told apart.
 */
static bool
condition_args(Call *call, SqlCall *q, const Otsp__Condition *condition,
			   const ProtobufCBinaryData *unread_row)
{
	char		err[256];
	json_t	   *filter;
	PbRow		row;

	sql_named(q, "condition", row_existence_name(condition->row_existence), "text");
	if (!condition->has_column_condition || condition->column_condition.len == 0)
		return true;
	filter = pb_decode_filter(condition->column_condition.data,
							  condition->column_condition.len, err, sizeof(err));
	if (filter == NULL)
	{
		if (unread_row == NULL || decode_one_row(call, unread_row, &row))
		{
			if (unread_row != NULL)
				pb_row_free(&row);
			reply_undecodable(call, err);
		}
		return false;
	}
	sql_named_owned(q, "column_condition", json_text(filter), "jsonb");
	json_decref(filter);
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
	const char *wire_head;		/* "SELECT * FROM ots.wire_<f>(" */
	void		(*add_args) (SqlCall *q, const PbRow *row);
	bool		return_columns; /* the function takes return_columns (update_row) */
	/* the response's fields */
	const ProtobufCMessage *response;
	Otsp__ConsumedCapacity **consumed;
	protobuf_c_boolean *has_row;
	ProtobufCBinaryData *row_bytes;
} RowWrite;

/*
 * the arguments after the row, on either path (wire: the row not read
 * here), and the call's end; false after replying
 */
static bool
tail_args(Call *call, SqlCall *q, const RowWrite *w, bool wire)
{
	const Otsp__ReturnContent *rc = w->return_content;

	if (!condition_args(call, q, w->condition, wire ? w->row : NULL))
		return false;
	if (rc && rc->has_return_type)
		sql_named(q, "return_type", return_type_name(rc->return_type), "text");
	if (w->return_columns && rc && rc->n_return_column_names > 0)
		sql_named_owned(q, "return_columns",
						text_array(rc->return_column_names, rc->n_return_column_names), "text[]");
	sql_end(q, ")");
	return true;
}

/* the response of either path: its row (PlainBuffer, or none) and capacity units */
static void
row_write_reply(Call *call, const RowWrite *w, const uint8_t *row, size_t len,
				Otsp__ConsumedCapacity *consumed)
{
	*w->consumed = consumed;
	*w->has_row = len > 0;
	w->row_bytes->data = (uint8_t *) row;
	w->row_bytes->len = len;
	call_reply(call, w->response);
}

/*
 * row_write_wire: the write through the wire function.  ots reads the row
 * with the reader this file's other path uses, so a bad row gets the same
 * answer.
 */
static void
row_write_wire(Call *call, const RowWrite *w)
{
	SqlCall		q;
	PGresult   *res = NULL;
	Consumed	consumed;

	if (!table_name_valid(call, w->table_name))
		return;
	sql_begin(&q, w->wire_head);
	q.binary_result = true;
	sql_arg(&q, w->table_name, "text");
	sql_arg_bytes(&q, w->row->data, w->row->len);
	if (tail_args(call, &q, w, true))
		res = sql_run(call, NULL, &q);
	sql_free(&q);
	if (res != NULL)
	{
		row_write_reply(call, w, (const uint8_t *) PQgetvalue(res, 0, 0), PQgetlength(res, 0, 0),
						consumed_from_wire(&consumed, res, 0));
		PQclear(res);
	}
}

static void
row_write(Call *call, const RowWrite *w)
{
	PbRow		row;
	SqlCall		q;
	PGresult   *res = NULL;
	Consumed	consumed;
	Buf			out = {0};
	ResolvedTable resolved = {0};

	if (write_wire_usable(w->transaction_id, WIRE_WRITE_ROW))
	{
		row_write_wire(call, w);
		return;
	}
	if (!table_name_valid(call, w->table_name) || !decode_one_row(call, w->row, &row))
		return;
	if (partition_allowed(call, w->transaction_id, w->table_name, &row, &resolved))
	{
		sql_begin(&q, w->head);
		sql_arg(&q, w->table_name, "text");
		sql_arg_owned(&q, json_text(row.primary_key), "jsonb");
		w->add_args(&q, &row);
		if (tail_args(call, &q, w, false))
			res = sql_run(call, w->transaction_id, &q);
		sql_free(&q);
	}
	if (res != NULL)
	{
		row_bytes(&out, field_text(res, 0, 0), field_text(res, 0, 1), &row);
		row_write_reply(call, w, out.data, out.len, consumed_from(&consumed, field_text(res, 0, 2)));
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

#define WRITE_HEAD(f) "SELECT primary_key::text, attributes::text, consumed::text FROM ots." f "(", \
	"SELECT * FROM ots.wire_" f "("

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
