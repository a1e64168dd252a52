/*-------------------------------------------------------------------------
 * src/api/wire_write.c
 *	  PutRow, UpdateRow and DeleteRow in Tablestore's wire format, for otsd:
 *	  the request's PlainBuffer row read by ots (api/wire_row.c) straight
 *	  into a write request's typed cells, and the row a write returns as
 *	  PlainBuffer, so neither side renders or parses JSON for them
 *	  (gateway/action_write.c).  A row gets exactly what ots.put_row,
 *	  ots.update_row or ots.delete_row give the jsonb otsd builds from the
 *	  same bytes.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "api/request.h"
#include "api/row_ops.h"
#include "api/wire.h"
#include "api/wire_row.h"

PG_FUNCTION_INFO_V1(ots_wire_put_row);
PG_FUNCTION_INFO_V1(ots_wire_update_row);
PG_FUNCTION_INFO_V1(ots_wire_delete_row);

/*
 * wire_write: one write of the request's row; its arguments after the row:
 * condition, column_condition, return_type (and return_columns)
 */
static Datum
wire_write(FunctionCallInfo fcinfo, RowWriteKind kind)
{
	RowWriteRequest req = {.kind = kind};
	RowResult	res;
	WireRow    *w = palloc(sizeof(WireRow));
	StringInfoData buf;
	Datum		values[3];
	bool		nulls[3] = {0};

	request_require(fcinfo, 1, kind == ROW_WRITE_PUT ? "put_row" :
					kind == ROW_WRITE_UPDATE ? "row_change" : "primary_key");
	wire_read_row(PG_GETARG_BYTEA_PP(1), w);
	req.table_name = request_text_arg(0);
	req.primary_key = wire_key_jsonb(w);
	req.condition = request_cstring_arg(2);
	req.column_condition = request_jsonb_arg(3);
	req.return_type = request_cstring_arg(4);
	if (kind == ROW_WRITE_PUT)
	{
		req.attributes = wire_empty_object();
		req.typed_cells = wire_sorted(&w->puts);
		req.ntyped_cells = w->puts.n;
	}
	else if (kind == ROW_WRITE_UPDATE)
	{
		req.typed_put = wire_sorted(&w->puts);
		req.ntyped_put = w->puts.n;
		req.deletes = wire_deletes_jsonb(&w->deletes);
		req.delete_all_names = w->delete_all;
		req.ndelete_all_names = w->ndelete_all;
		req.increment = wire_increments_jsonb(&w->increments);
		req.return_columns = request_array_arg(5);
	}
	row_write(&req, &res);

	wire_buffer(&buf);
	wire_returned_row(&buf, w, res.primary_key, res.attributes);
	values[0] = PointerGetDatum(wire_bytea(&buf));
	return wire_result(fcinfo, values, nulls, &res.consumed);
}

/*
 * ots_wire_put_row is ots.wire_put_row(table_name, put_row, condition,
 * column_condition, return_type): ots.put_row of a PutRowRequest's row (its
 * cells of other operations are left aside, as otsd's jsonb leaves them),
 * returning the row as PlainBuffer (empty: none) and the capacity units.
 */
Datum
ots_wire_put_row(PG_FUNCTION_ARGS)
{
	return wire_write(fcinfo, ROW_WRITE_PUT);
}

/*
 * ots_wire_update_row is ots.wire_update_row(table_name, row_change,
 * condition, column_condition, return_type, return_columns): ots.update_row
 * of an UpdateRowRequest's row_change.
 */
Datum
ots_wire_update_row(PG_FUNCTION_ARGS)
{
	return wire_write(fcinfo, ROW_WRITE_UPDATE);
}

/*
 * ots_wire_delete_row is ots.wire_delete_row(table_name, primary_key,
 * condition, column_condition, return_type): ots.delete_row of a
 * DeleteRowRequest's primary_key row.
 */
Datum
ots_wire_delete_row(PG_FUNCTION_ARGS)
{
	return wire_write(fcinfo, ROW_WRITE_DELETE);
}
