/*-------------------------------------------------------------------------
 * src/row_read.c
 *	  ots.get_row, and the per-row functions behind each table's SQL view,
 *	  which apply the same visibility rules to plain SQL reads.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "cells.h"
#include "codec.h"
#include "errors.h"
#include "filter.h"
#include "read_select.h"
#include "request.h"
#include "row_read.h"
#include "rowstore.h"
#include "stats.h"

PG_FUNCTION_INFO_V1(ots_get_row);
PG_FUNCTION_INFO_V1(ots_row_attributes);
PG_FUNCTION_INFO_V1(ots_row_exists);

/* row_read_pk_requested: does columns_to_get name a primary-key column? */
static bool
row_read_pk_requested(const OtsTable *t, const ReadSelect *sel)
{
	for (int i = 0; i < t->npk; i++)
		if (sel->ncolumns > 0 && select_column_wanted(sel, t->pk[i].name, t->pk[i].namelen))
			return true;
	return false;
}

void
row_read_options(const OtsTable *t, const ReadArgs *args, ReadSelect *sel, Filter **filter)
{
	int32		offset;
	int32		limit;

	select_init(sel, t, ots_now_ms());
	select_parse_request(sel, args->columns_to_get, args->has_max_versions,
						 args->max_versions, args->time_range, args->with_timestamps);
	select_parse_column_range(sel, args->start_column, args->end_column);
	*filter = filter_parse(args->filter, true);
	if (filter_pagination(*filter, &offset, &limit))
	{
		sel->page_offset = offset;
		sel->page_limit = limit;
	}
}

Jsonb *
row_read_render(const OtsTable *t, const ReadSelect *sel, const Filter *filter,
				const PkInput *pk, const CellsReader *r, uint32 *size)
{
	Jsonb	   *attrs;
	int			ncols;

	if (!select_row_exists(sel, r))
		return NULL;
	if (!filter_eval(filter, t, pk, r, sel))
	{
		/* a filtered-out row was still read */
		*size += select_data_size(sel, r);
		return NULL;
	}
	attrs = select_render_attributes(sel, r, size, &ncols);
	if (sel->ncolumns > 0 && ncols == 0 && !row_read_pk_requested(t, sel))
		return NULL;
	return attrs;
}

/*
 * ots_get_row is ots.get_row(table_name, primary_key, columns_to_get,
 * max_versions, time_range, filter, with_timestamps, start_column,
 * end_column): one row's selected cells, or NULL primary_key and
 * attributes when the row does not exist, is filtered out, or has none of
 * the requested columns.
 */
Datum
ots_get_row(PG_FUNCTION_ARGS)
{
	OtsTable   *t;
	PkInput		pk;
	ReadArgs	args;
	ReadSelect	sel;
	Filter	   *filter;
	RowKey		key;
	struct varlena *cellsv;
	Consumed	consumed = {0, 0};
	uint32		size;
	Jsonb	   *attrs = NULL;
	Jsonb	   *pkjson = NULL;

	request_require(fcinfo, 0, "table_name");
	request_require(fcinfo, 1, "primary_key");
	t = catalog_lookup(PG_GETARG_TEXT_PP(0));
	rowstore_check_privileges(t, ACL_SELECT);
	codec_parse_pk(t, PG_GETARG_JSONB_P(1), 0, &pk);
	args.columns_to_get = request_array_arg(2);
	args.has_max_versions = !PG_ARGISNULL(3);
	args.max_versions = PG_ARGISNULL(3) ? 0 : PG_GETARG_INT32(3);
	args.time_range = request_jsonb_arg(4);
	args.filter = request_jsonb_arg(5);
	args.with_timestamps = !PG_ARGISNULL(6) && PG_GETARG_BOOL(6);
	args.start_column = request_text_arg(7);
	args.end_column = request_text_arg(8);
	row_read_options(t, &args, &sel, &filter);
	routing_key(t, &pk, &key);

	size = codec_pk_size(t, &pk);
	cellsv = rowstore_fetch(&key, false);
	if (cellsv != NULL)
	{
		CellsReader r;

		cells_reader_init(&r, cellsv);
		attrs = row_read_render(t, &sel, filter, &pk, &r, &size);
		/* the validated argument is the key exactly: no need to render it again */
		if (attrs != NULL)
			pkjson = PG_GETARG_JSONB_P(1);
	}
	consumed.read = Max(request_cu(size), 1);
	stats_count(t, pkjson != NULL ? 1 : 0, 0, consumed.read, 0);
	PG_RETURN_DATUM(request_result(fcinfo, pkjson, attrs, consumed));
}

/*
 * row_read_view_table finds the table of a view row, cached in fn_extra
 * (catalog entries stay at fixed addresses; "valid" tells when to look again).
 */
static OtsTable *
row_read_view_table(FunctionCallInfo fcinfo, Oid data_oid)
{
	OtsTable   *t = (OtsTable *) fcinfo->flinfo->fn_extra;

	if (t == NULL || !t->valid || t->data_oid != data_oid)
	{
		t = catalog_lookup_by_data_oid(data_oid);
		if (t == NULL)
			ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
		fcinfo->flinfo->fn_extra = t;
	}
	return t;
}

/*
 * ots_row_attributes is ots.row_attributes(cells, storage regclass): the
 * latest visible value of every column, as the table's view shows it.
 */
Datum
ots_row_attributes(PG_FUNCTION_ARGS)
{
	struct varlena *cellsv = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	OtsTable   *t = row_read_view_table(fcinfo, PG_GETARG_OID(1));
	ReadSelect	sel;
	CellsReader r;
	uint32		size = 0;
	int			ncols;

	select_init(&sel, t, ots_now_ms());
	cells_reader_init(&r, cellsv);
	PG_RETURN_JSONB_P(select_render_attributes(&sel, &r, &size, &ncols));
}

/* ots_row_exists is ots.row_exists(cells, storage regclass): the row rule */
Datum
ots_row_exists(PG_FUNCTION_ARGS)
{
	struct varlena *cellsv = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	OtsTable   *t = row_read_view_table(fcinfo, PG_GETARG_OID(1));
	ReadSelect	sel;
	CellsReader r;

	select_init(&sel, t, ots_now_ms());
	cells_reader_init(&r, cellsv);
	PG_RETURN_BOOL(select_row_exists(&sel, &r));
}
