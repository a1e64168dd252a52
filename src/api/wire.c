/*-------------------------------------------------------------------------
 * src/api/wire.c
 *	  The row API in Tablestore's wire format, for otsd: the same operations
 *	  (row_ops.h), with rows returned as PlainBuffer that otsd copies into
 *	  its response unread, and capacity units as integers, so that neither
 *	  side renders or parses JSON for them (gateway/action_read.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"

#include "api/request.h"
#include "api/row_ops.h"
#include "api/wire.h"
#include "format/plainbuffer.h"

PG_FUNCTION_INFO_V1(ots_wire_get_row);

bytea *
wire_bytea(StringInfo buf)
{
	/* initStringInfo's buffer began with VARHDRSZ reserved bytes */
	bytea	   *b = (bytea *) buf->data;

	SET_VARSIZE(b, buf->len);
	return b;
}

void
wire_buffer(StringInfo buf)
{
	initStringInfo(buf);
	appendStringInfoSpaces(buf, VARHDRSZ);
}

Datum
wire_result(FunctionCallInfo fcinfo, Datum *values, bool *nulls, const Consumed *consumed)
{
	TupleDesc	desc;
	int			n;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	n = desc->natts;
	values[n - 2] = Int32GetDatum(consumed->read);
	values[n - 1] = Int32GetDatum(consumed->write);
	nulls[n - 2] = nulls[n - 1] = false;
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls));
}

/*
 * ots_wire_get_row is ots.wire_get_row(table_name, primary_key,
 * columns_to_get, max_versions, time_range, filter, start_column,
 * end_column): ots.get_row with timestamps, the row as one PlainBuffer
 * buffer (empty when there is none), and its read and write capacity units.
 */
Datum
ots_wire_get_row(PG_FUNCTION_ARGS)
{
	RowGetRequest req = {0};
	RowResult	res;
	StringInfoData buf;
	Datum		values[3];
	bool		nulls[3] = {0};

	wire_buffer(&buf);
	plainbuffer_header(&buf);
	req.table_name = request_text_arg(0);
	req.primary_key = request_jsonb_arg(1);
	req.read.columns_to_get = request_array_arg(2);
	req.read.has_max_versions = !PG_ARGISNULL(3);
	req.read.max_versions = PG_ARGISNULL(3) ? 0 : PG_GETARG_INT32(3);
	req.read.time_range = request_jsonb_arg(4);
	req.read.filter = request_jsonb_arg(5);
	req.read.with_timestamps = true;
	req.read.start_column = request_text_arg(6);
	req.read.end_column = request_text_arg(7);
	req.plainbuffer = &buf;
	row_get(&req, &res);
	if (res.primary_key == NULL)
		buf.len = VARHDRSZ;		/* no row: no bytes, as Tablestore sends */
	values[0] = PointerGetDatum(wire_bytea(&buf));
	return wire_result(fcinfo, values, nulls, &res.consumed);
}
