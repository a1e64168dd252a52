/*-------------------------------------------------------------------------
 * gateway/action_write.c
 *	  The single-row writes: PutRow, UpdateRow and DeleteRow, each one call
 *	  of the ots function of the same name.
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "action.h"

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
