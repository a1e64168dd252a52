/*-------------------------------------------------------------------------
 * src/api/row_read.c
 *	  ots.get_row (row_get, which batch_get_row calls per row), and the
 *	  per-row functions behind each table's SQL view, which apply the same
 *	  visibility rules to plain SQL reads (and the gate of an index's view).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/snapmgr.h"

#include "format/cells.h"
#include "format/codec.h"
#include "asrole.h"
#include "errors.h"
#include "api/filter.h"
#include "api/read_select.h"
#include "api/request.h"
#include "api/row_ops.h"
#include "api/row_read.h"
#include "store/rowsplit.h"
#include "store/rowstore.h"
#include "stats.h"

PG_FUNCTION_INFO_V1(ots_get_row);
PG_FUNCTION_INFO_V1(ots_row_attributes);
PG_FUNCTION_INFO_V1(ots_row_exists);
PG_FUNCTION_INFO_V1(ots_index_readable);
PG_FUNCTION_INFO_V1(ots_row_attribute_text);
PG_FUNCTION_INFO_V1(ots_row_attribute);
PG_FUNCTION_INFO_V1(ots_row_string);
PG_FUNCTION_INFO_V1(ots_row_integer);
PG_FUNCTION_INFO_V1(ots_row_double);
PG_FUNCTION_INFO_V1(ots_row_boolean);
PG_FUNCTION_INFO_V1(ots_row_binary);

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

	select_init(sel, t, visibility_now_ms());
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

void
row_read_needs(const ReadSelect *sel, const Filter *filter, uint64 budget, RowNeeds *needs)
{
	const Visibility *vis = &sel->vis;
	/* the newest cells a column's visible ones can be among, down to the time range's start */
	int32		cells = vis->has_range ? vis->table_max_versions :
		Min(vis->max_versions, vis->table_max_versions);
	int64		from_ts = vis->has_range ? vis->start_ts : 0;

	rowneeds_init(needs);
	needs->reading = true;
	/* a column pagination filter counts the row's columns from its first: the whole row */
	if (sel->ncolumns == 0 && (sel->page_limit > 0 || sel->page_offset > 0 ||
							   (sel->start_column == NULL && sel->end_column == NULL && budget == 0)))
	{
		needs->whole = true;
		return;
	}
	if (sel->ncolumns == 0)
	{
		/* a page of columns, [start_column, end_column), within budget */
		needs->range = true;
		needs->from = sel->start_column;
		needs->fromlen = sel->start_len;
		needs->to = sel->end_column;
		needs->tolen = sel->end_len;
		needs->budget = budget;
	}
	for (int i = 0; i < sel->ncolumns; i++)
		rowneeds_newest(needs, sel->columns[i], sel->collens[i], cells, from_ts, PG_INT64_MAX);
	filter_needs(filter, needs, cells, from_ts);
}

Jsonb *
row_read_render(const OtsTable *t, const ReadSelect *sel, const Filter *filter,
				const PkInput *pk, const CellsReader *r, bool split, uint32 *size)
{
	Jsonb	   *attrs;
	int			ncols;

	/* a split row's existence is its head's (rowsplit_exists), which its caller asked */
	if (!split && !visibility_row_exists(&sel->vis, r))
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

bool
row_read_render_plainbuffer(const OtsTable *t, const ReadSelect *sel, const Filter *filter,
							const PkInput *pk, const CellsReader *r, bool split, uint32 *size,
							StringInfo out)
{
	PlainBufferRow row;
	int			ncols;

	if (!split && !visibility_row_exists(&sel->vis, r))
		return false;
	if (!filter_eval(filter, t, pk, r, sel))
	{
		*size += select_data_size(sel, r);
		return false;
	}
	plainbuffer_row_begin(&row, out);
	plainbuffer_key_cells(&row, t, pk);
	select_render_plainbuffer(sel, r, size, &ncols, &row);
	if (sel->ncolumns > 0 && ncols == 0 && !row_read_pk_requested(t, sel))
	{
		plainbuffer_row_cancel(&row);
		return false;
	}
	plainbuffer_row_end(&row);
	return true;
}

/*
 * row_get reads one row: its selected cells, or no primary_key and
 * attributes when the row does not exist, is filtered out, or has none of
 * the requested columns.
 */
void
row_get(const RowGetRequest *req, RowResult *res)
{
	OtsTable   *t;
	PkInput		pk;
	ReadSelect	sel;
	Filter	   *filter;
	RowKey		key;
	RowNeeds	needs;
	struct varlena *cellsv;
	uint32		size;

	memset(res, 0, sizeof(*res));
	request_require_given(req->table_name, "table_name");
	request_require_given(req->primary_key, "primary_key");
	t = catalog_lookup(req->table_name);
	rowstore_check_privileges(t, ACL_SELECT);
	codec_parse_pk(t, req->primary_key, 0, &pk);
	row_read_options(t, &req->read, &sel, &filter);
	routing_key(t, &pk, &key);

	size = codec_pk_size(t, &pk);
	row_read_needs(&sel, filter, 0, &needs);
	cellsv = rowstore_fetch_row(&key, false, &needs);
	if (cellsv != NULL && (key.split == NULL || rowsplit_exists(&key, &sel.vis)))
	{
		CellsReader r;

		cells_reader_init(&r, cellsv);
		if (req->plainbuffer != NULL)
		{
			if (row_read_render_plainbuffer(t, &sel, filter, &pk, &r, key.split != NULL, &size,
											req->plainbuffer))
				res->primary_key = req->primary_key;
		}
		else
			res->attributes = row_read_render(t, &sel, filter, &pk, &r, key.split != NULL, &size);
		/* the validated argument is the key exactly: no need to render it again */
		if (res->attributes != NULL)
			res->primary_key = req->primary_key;
	}
	res->consumed.read = Max(request_cu(size), 1);
	stats_count(t, res->primary_key != NULL ? 1 : 0, 0, res->consumed.read, 0);
}

/*
 * ots_get_row is ots.get_row(table_name, primary_key, columns_to_get,
 * max_versions, time_range, filter, with_timestamps, start_column,
 * end_column): row_get.
 */
Datum
ots_get_row(PG_FUNCTION_ARGS)
{
	RowGetRequest req = {0};
	RowResult	res;

	req.table_name = request_text_arg(0);
	req.primary_key = request_jsonb_arg(1);
	req.read.columns_to_get = request_array_arg(2);
	req.read.has_max_versions = !PG_ARGISNULL(3);
	req.read.max_versions = PG_ARGISNULL(3) ? 0 : PG_GETARG_INT32(3);
	req.read.time_range = request_jsonb_arg(4);
	req.read.filter = request_jsonb_arg(5);
	req.read.with_timestamps = !PG_ARGISNULL(6) && PG_GETARG_BOOL(6);
	req.read.start_column = request_text_arg(7);
	req.read.end_column = request_text_arg(8);
	row_get(&req, &res);
	PG_RETURN_DATUM(request_result(fcinfo, res.primary_key, res.attributes, res.consumed));
}

/* what a view's function keeps from the first row of a statement to the next rows */
typedef struct ViewRowState
{
	OtsTable   *table;			/* catalog entry: "valid" tells when to look again */
	int64		now_ms;			/* the moment TTL is measured from */
	bool		heads_checked;	/* row_read_check_head passed */
} ViewRowState;

/*
 * row_read_check_head: a split row's head names the chunks that hold its
 * cells, and a caller can type a head in: its chunks are read only for a
 * role that may read the table's rows as the row functions do, or that
 * reads the table's view, whose owner may.  Checked once per statement.
 */
static void
row_read_check_head(ViewRowState *state)
{
	const OtsTable *t = state->table;
	Oid			role = GetUserId();

	if (state->heads_checked)
		return;
	if (!rowstore_may_read(t, role) &&
		!(pg_class_aclcheck(t->view_oid, role, ACL_SELECT) == ACLCHECK_OK &&
		  rowstore_may_read(t, asrole_owner(t->view_oid))))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to read a split row of ots table %s",
						quote_qualified_identifier(t->schema_name, t->table_name)),
				 errdetail("A split row's cells are read from its chunks, for a role that may "
						   "select the table's view or read %s without row-level security.",
						   storage_name(t))));
	state->heads_checked = true;
}

/*
 * row_read_view_state is what a table view's function of (cells, storage
 * regclass) reads rows under: the table's rules and the moment, taken at
 * the first row the function reads in an execution of its statement and
 * kept in fn_extra (catalog entries stay at fixed
 * addresses): a statement neither looks its table's options up nor reads
 * the clock per row (on a VM the clock can cost more than the rest of a
 * row's rule).
 */
static ViewRowState *
row_read_view_state(FunctionCallInfo fcinfo)
{
	Oid			data_oid = PG_GETARG_OID(1);
	ViewRowState *state = (ViewRowState *) fcinfo->flinfo->fn_extra;

	if (state == NULL)
	{
		state = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(ViewRowState));
		state->now_ms = visibility_now_ms();
		fcinfo->flinfo->fn_extra = state;
	}
	if (state->table == NULL || !state->table->valid || state->table->data_oid != data_oid)
	{
		state->heads_checked = false;
		state->table = catalog_lookup_by_data_oid(data_oid);
		if (state->table == NULL)
			ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
		/* once per execution, as the table: an index being built answers nothing */
		catalog_check_index_readable(state->table);
	}
	return state;
}

/* row_read_view_row prepares the stored row's reader, and the table's rules */
static void
row_read_view_row(FunctionCallInfo fcinfo, ReadSelect *sel, CellsReader *r, const char *column,
				  uint32 columnlen)
{
	struct varlena *cellsv = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	ViewRowState *state = row_read_view_state(fcinfo);

	select_init(sel, state->table, state->now_ms);
	if (cells_is_head(cellsv))
	{
		/* a split row: the column asked for, or all, from its chunks */
		RowNeeds	needs;
		RowKey		key;

		row_read_check_head(state);
		rowneeds_init(&needs);
		/* the view's row rule is ots.row_exists's, on the head */
		needs.reading = true;
		if (column != NULL)
			rowneeds_newest(&needs, column, columnlen, 1, 0, PG_INT64_MAX);
		else
			needs.whole = true;
		cellsv = rowsplit_load_head(state->table, cellsv, &needs, GetActiveSnapshot(), &key);
	}
	cells_reader_init(r, cellsv);
}

/*
 * ots_row_attributes is ots.row_attributes(cells, storage regclass): the
 * latest visible value of every column, as the table's view shows it.
 */
Datum
ots_row_attributes(PG_FUNCTION_ARGS)
{
	ReadSelect	sel;
	CellsReader r;
	uint32		size = 0;
	int			ncols;

	row_read_view_row(fcinfo, &sel, &r, NULL, 0);
	PG_RETURN_JSONB_P(select_render_attributes(&sel, &r, &size, &ncols));
}

/* ots_row_exists is ots.row_exists(cells, storage regclass): the row rule */
Datum
ots_row_exists(PG_FUNCTION_ARGS)
{
	struct varlena *cellsv = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	ReadSelect	sel;
	CellsReader r;

	if (cells_is_head(cellsv))
	{
		/* a split row: its head knows, most often without a chunk */
		ViewRowState *state = row_read_view_state(fcinfo);

		row_read_check_head(state);
		select_init(&sel, state->table, state->now_ms);
		PG_RETURN_BOOL(rowsplit_head_exists(state->table, cellsv, &sel.vis));
	}
	row_read_view_row(fcinfo, &sel, &r, NULL, 0);
	PG_RETURN_BOOL(visibility_row_exists(&sel.vis, &r));
}

/*
 * ots_index_readable is ots.index_readable(storage regclass), the gate an
 * index's view passes before its rows (a one-time filter, evaluated at each
 * execution with the statement's snapshot): true for a table, or an index
 * that answers reads; else get_row's "Disallow read index table in building
 * base state".  The view's row functions check the same at their first row,
 * but a query that reads no row of an incomplete index (none written yet,
 * or none of the key it asks for) must fail too, not answer with none.
 */
Datum
ots_index_readable(PG_FUNCTION_ARGS)
{
	OtsTable   *t = catalog_lookup_by_data_oid(PG_GETARG_OID(0));

	if (t == NULL)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	catalog_check_index_readable(t);
	PG_RETURN_BOOL(true);
}

/*
 * row_read_view_attribute finds the latest visible value of one column of a
 * view's row (args: cells, storage, name); false when it has none.
 */
static bool
row_read_view_attribute(FunctionCallInfo fcinfo, OtsValue *value)
{
	ReadSelect	sel;
	CellsReader r;
	text	   *name = PG_GETARG_TEXT_PP(2);

	row_read_view_row(fcinfo, &sel, &r, VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name));
	return select_latest(&sel, &r, VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name), value);
}

/*
 * row_read_view_attribute_via_jsonb gives one column's value as the jsonb
 * operator fn (->, ->>) gives it from the row's attributes: applied to the
 * one-pair object of that column
 */
static Datum
row_read_view_attribute_via_jsonb(FunctionCallInfo fcinfo, PGFunction fn, const OtsValue *v)
{
	text	   *name = PG_GETARG_TEXT_PP(2);
	CodecPair	pair = {VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name), *v};

	return DirectFunctionCall2(fn, JsonbPGetDatum(codec_flat_object(&pair, 1)),
							   PG_GETARG_DATUM(2));
}

/*
 * ots_row_attribute_text is ots.row_attribute_text(cells, storage, name):
 * ots.row_attributes(cells, storage) ->> name, without rendering the other
 * columns.  Strings, integers and booleans are written as ->> writes them;
 * other values go through the same one-pair jsonb ->> reads.
 */
Datum
ots_row_attribute_text(PG_FUNCTION_ARGS)
{
	OtsValue	v;

	if (!row_read_view_attribute(fcinfo, &v))
		PG_RETURN_NULL();
	switch (v.type)
	{
		case OTS_VT_STRING:
			PG_RETURN_TEXT_P(cstring_to_text_with_len(v.u.s.data, v.u.s.len));
		case OTS_VT_INTEGER:
			{
				char		buf[MAXINT8LEN + 1];

				pg_lltoa(v.u.i, buf);
				PG_RETURN_TEXT_P(cstring_to_text(buf));
			}
		case OTS_VT_BOOLEAN:
			PG_RETURN_TEXT_P(cstring_to_text(v.u.b ? "true" : "false"));
		default:
			PG_RETURN_DATUM(row_read_view_attribute_via_jsonb(fcinfo, jsonb_object_field_text, &v));
	}
}

/*
 * ots_row_attribute is ots.row_attribute(cells, storage, name):
 * ots.row_attributes(cells, storage) -> name, without rendering the other
 * columns.
 */
Datum
ots_row_attribute(PG_FUNCTION_ARGS)
{
	OtsValue	v;

	if (!row_read_view_attribute(fcinfo, &v))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(row_read_view_attribute_via_jsonb(fcinfo, jsonb_object_field, &v));
}

Datum
row_read_value_datum(const OtsValue *v)
{
	switch (v->type)
	{
		case OTS_VT_STRING:
			return PointerGetDatum(cstring_to_text_with_len(v->u.s.data, v->u.s.len));
		case OTS_VT_INTEGER:
			return Int64GetDatum(v->u.i);
		case OTS_VT_DOUBLE:
			return Float8GetDatum(v->u.d);
		case OTS_VT_BOOLEAN:
			return BoolGetDatum(v->u.b);
		case OTS_VT_BINARY:
			{
				bytea	   *b = (bytea *) palloc(VARHDRSZ + v->u.s.len);

				SET_VARSIZE(b, VARHDRSZ + v->u.s.len);
				memcpy(VARDATA(b), v->u.s.data, v->u.s.len);
				return PointerGetDatum(b);
			}
	}
	elog(ERROR, "invalid ots value type %d", (int) v->type);
	return (Datum) 0;
}

Oid
row_read_value_sql_type(OtsValueType t)
{
	switch (t)
	{
		case OTS_VT_STRING:
			return TEXTOID;
		case OTS_VT_INTEGER:
			return INT8OID;
		case OTS_VT_DOUBLE:
			return FLOAT8OID;
		case OTS_VT_BOOLEAN:
			return BOOLOID;
		case OTS_VT_BINARY:
			return BYTEAOID;
	}
	return InvalidOid;
}

/*
 * The typed columns of a view, one per defined column: the latest visible
 * value of the column when it has the defined type, else NULL (a cell of
 * another type, written before the column was defined, stays visible in
 * the view's attributes).  ots.row_string(cells, storage, name) and its
 * siblings return text, bigint, double precision, boolean and bytea.
 */
static Datum
row_read_view_typed(FunctionCallInfo fcinfo, OtsValueType type)
{
	OtsValue	v;

	if (!row_read_view_attribute(fcinfo, &v) || v.type != type)
		PG_RETURN_NULL();
	return row_read_value_datum(&v);
}

Datum
ots_row_string(PG_FUNCTION_ARGS)
{
	return row_read_view_typed(fcinfo, OTS_VT_STRING);
}

Datum
ots_row_integer(PG_FUNCTION_ARGS)
{
	return row_read_view_typed(fcinfo, OTS_VT_INTEGER);
}

Datum
ots_row_double(PG_FUNCTION_ARGS)
{
	return row_read_view_typed(fcinfo, OTS_VT_DOUBLE);
}

Datum
ots_row_boolean(PG_FUNCTION_ARGS)
{
	return row_read_view_typed(fcinfo, OTS_VT_BOOLEAN);
}

Datum
ots_row_binary(PG_FUNCTION_ARGS)
{
	return row_read_view_typed(fcinfo, OTS_VT_BINARY);
}
