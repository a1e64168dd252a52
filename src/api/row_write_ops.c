/*-------------------------------------------------------------------------
 * src/api/row_write_ops.c
 *	  ots.put_row, ots.update_row and ots.delete_row: Tablestore's
 *	  single-row writes with row-existence and column conditions.
 *
 * Each write is one entry of row_write_ops: how it validates its own
 * arguments, what it writes given the row version read (its decision
 * function), and what it consumed; PutRow's and DeleteRow's are here,
 * UpdateRow's in row_update.c, and row_write.c applies any of them
 * (row_write_run).  The SQL functions are shims over row_write, which
 * batch_write_row and the views' writes call directly.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "format/codec.h"
#include "meta/defined.h"
#include "errors.h"
#include "api/request.h"
#include "api/row_ops.h"
#include "api/row_update.h"
#include "api/row_write_internal.h"
#include "store/rowstore.h"

PG_FUNCTION_INFO_V1(ots_put_row);
PG_FUNCTION_INFO_V1(ots_update_row);
PG_FUNCTION_INFO_V1(ots_delete_row);

/* row_write_refuse_after_modify: RT_AFTER_MODIFY is UpdateRow's only */
static void
row_write_refuse_after_modify(const RowWrite *w)
{
	if (w->return_type == RT_AFTER_MODIFY)
		ots_parameter_invalid(psprintf("RT_AFTER_MODIFY is not supported by %s.", w->op->request),
							  "Use RT_NONE or RT_PK.");
}

/* row_put_parse: put_row's attributes, conditions and their rules */
static void
row_put_parse(RowWrite *w)
{
	row_write_check_size(w, w->req->attributes, w->req->typed_cells, w->req->ntyped_cells,
						 NULL, NULL);
	w->cells = codec_parse_attributes_with(w->req->attributes, w->req->typed_cells,
										   w->req->ntyped_cells, &w->ncells);
	row_write_parse_condition(w);
	row_write_refuse_after_modify(w);
	row_write_check_auto_increment(w);
	row_write_check_timestamps(w->t, w->now_ms, w->cells, w->ncells);
	defined_check_cells(w->t, w->cells, w->ncells);
	if (w->req->on_existing == ROW_EXISTING_UPDATE)
	{
		/* a view's upsert: the operations an existing row gets instead */
		if (!w->t->allow_update)
			ots_error(PARAMETER_INVALID, "Update operation is not allowed in this table");
		row_update_parse(&w->update, w->req);
		row_write_check_timestamps(w->t, w->now_ms, w->update.puts, w->update.nputs);
		defined_check_cells(w->t, w->update.puts, w->update.nputs);
	}
	w->reads = row_write_has_conditions(w);
	if (w->reads && (w->req->privileges_checked & ACL_SELECT) == 0)
		rowstore_check_privileges(w->t, ACL_SELECT);
}

/*
 * row_put_decide: PutRow replaces every cell the row had; a view's upsert
 * that found the row updates it instead (RowWriteDecide)
 */
static RowChange
row_put_decide(RowWrite *w, const CellsReader *old, bool exists, struct varlena **cells,
			   int64 *oldest_ts)
{
	if (w->existing)
	{
		w->change.action = STREAM_UPDATE_ROW;
		return row_update_decide(w, old, exists, cells, oldest_ts);
	}
	w->change.action = STREAM_PUT_ROW;
	*cells = row_write_put_cells(w->t, w->cells, w->ncells, row_write_stamp(w, old),
								 oldest_ts);
	return ROW_CHANGE_STORE;
}

/* row_put_account: the key and cells written, the key read when conditions were checked */
static int
row_put_account(const RowWrite *w, bool found, Consumed *consumed)
{
	consumed->write = request_cu(w->pk_size + row_write_cells_size(w->cells, w->ncells));
	if (w->reads)
		consumed->read = request_cu(w->pk_size);
	return 1;
}

/* row_delete_parse: delete_row's conditions and their rules */
static void
row_delete_parse(RowWrite *w)
{
	row_write_check_size(w, NULL, NULL, 0, NULL, NULL);
	if (row_write_has_auto_increment(w))
		ots_error(PARAMETER_INVALID, "Invalid row to delete which with pk auto increment.");
	row_write_parse_condition(w);
	if (w->existence == ROW_EXPECT_NOT_EXIST)
		ots_error(PARAMETER_INVALID, "Invalid condition: EXPECT_NOT_EXIST while deleting row.");
	row_write_refuse_after_modify(w);
}

/* row_delete_decide: DeleteRow removes the row and all its cells (RowWriteDecide) */
static RowChange
row_delete_decide(RowWrite *w, const CellsReader *old, bool exists, struct varlena **cells,
				  int64 *oldest_ts)
{
	return ROW_CHANGE_REMOVE;
}

/* row_delete_account: the key written, and read when conditions were checked; a row only when one was found */
static int
row_delete_account(const RowWrite *w, bool found, Consumed *consumed)
{
	consumed->write = request_cu(w->pk_size);
	if (row_write_has_conditions(w))
		consumed->read = request_cu(w->pk_size);
	return found ? 1 : 0;
}

/* the single-row writes, by RowWriteKind */
static const RowWriteOp row_write_ops[] = {
	[ROW_WRITE_PUT] = {"ots.put_row", "PutRow", ACL_INSERT | ACL_UPDATE,
	row_put_parse, row_put_decide, row_put_account},
	[ROW_WRITE_UPDATE] = {"ots.update_row", "UpdateRow", ACL_SELECT | ACL_INSERT | ACL_UPDATE,
	row_update_parse_all, row_update_decide, row_update_account},
	[ROW_WRITE_DELETE] = {"ots.delete_row", "DeleteRow", ACL_SELECT | ACL_DELETE,
	row_delete_parse, row_delete_decide, row_delete_account},
};

AclMode
row_write_privileges(RowWriteKind kind)
{
	return row_write_ops[kind].mode;
}

void
row_write_names(RowWriteKind kind, const char **operation, const char **request)
{
	*operation = row_write_ops[kind].operation;
	*request = row_write_ops[kind].request;
}

/* row_write applies one single-row write, the operation of its kind (row_write_run) */
void
row_write(const RowWriteRequest *req, RowResult *res)
{
	row_write_run(&row_write_ops[req->kind], req, res);
}

/*
 * row_write_sql unpacks the arguments every write function shares (table
 * name, primary key, and condition, column_condition and return_type from
 * argument argno on), applies the write and returns its ots.row_result.
 */
static Datum
row_write_sql(FunctionCallInfo fcinfo, RowWriteRequest *req, int argno)
{
	RowResult	res;

	req->table_name = request_text_arg(0);
	req->primary_key = request_jsonb_arg(1);
	req->condition = request_cstring_arg(argno);
	req->column_condition = request_jsonb_arg(argno + 1);
	req->return_type = request_cstring_arg(argno + 2);
	row_write(req, &res);
	return request_result(fcinfo, res.primary_key, res.attributes, res.consumed);
}

/*
 * ots_put_row is ots.put_row(table_name, primary_key, attributes, condition,
 * column_condition, return_type): writes the row, replacing every cell it
 * had.
 */
Datum
ots_put_row(PG_FUNCTION_ARGS)
{
	RowWriteRequest req = {.kind = ROW_WRITE_PUT};

	req.attributes = request_jsonb_arg(2);
	return row_write_sql(fcinfo, &req, 3);
}

/*
 * ots_update_row is ots.update_row(table_name, primary_key, put, delete,
 * delete_all, increment, condition, column_condition, return_type,
 * return_columns).  Operations apply in that order: delete_all, delete,
 * put, increment.  An update holding only deletions never creates a row.
 */
Datum
ots_update_row(PG_FUNCTION_ARGS)
{
	RowWriteRequest req = {.kind = ROW_WRITE_UPDATE};

	req.put = request_jsonb_arg(2);
	req.deletes = request_jsonb_arg(3);
	req.delete_all = request_array_arg(4);
	req.increment = request_jsonb_arg(5);
	req.return_columns = request_array_arg(9);
	return row_write_sql(fcinfo, &req, 6);
}

/*
 * ots_delete_row is ots.delete_row(table_name, primary_key, condition,
 * column_condition, return_type): removes the row and all its cells.
 */
Datum
ots_delete_row(PG_FUNCTION_ARGS)
{
	RowWriteRequest req = {.kind = ROW_WRITE_DELETE};

	return row_write_sql(fcinfo, &req, 2);
}
