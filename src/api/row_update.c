/*-------------------------------------------------------------------------
 * src/api/row_update.c
 *	  UpdateRow, the write of ots.update_row: its operations (put, delete,
 *	  delete_all, increment) and return_columns parsed and checked, and
 *	  applied to the row version read, as one entry of row_write_ops.
 *
 * Operations apply in that order: delete_all, delete, put, increment.  An
 * update holding only deletions never creates a row.  A view's upsert (a
 * PutRow that found its row, row_write_ops.c) applies an UpdateRow's put
 * and delete_all the same way.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/int.h"

#include "format/visibility.h"
#include "format/names.h"
#include "format/cells.h"
#include "format/codec.h"
#include "meta/defined.h"
#include "errors.h"
#include "ots_limits.h"
#include "api/read_select.h"
#include "api/request.h"
#include "api/row_update.h"

/* row_update_invalid_delete rejects a "delete" argument of the wrong shape */
static void
row_update_invalid_delete(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_OTS_PARAMETER_INVALID),
			 errmsg_internal("Invalid delete operation."),
			 errdetail("delete is {\"column\": <timestamp> | [<timestamp>, ...]}.")));
}

/*
 * row_update_parse_deletes reads update_row's "delete" argument: per
 * column a timestamp or a non-empty array of timestamps, nothing nested.
 */
static void
row_update_parse_deletes(RowUpdate *u, Jsonb *deletes)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	const char *name = NULL;
	uint32		namelen = 0;
	int			cap = 8;

	if (!JB_ROOT_IS_OBJECT(deletes) || JB_ROOT_IS_SCALAR(deletes))
		row_update_invalid_delete();
	u->deletes = palloc(sizeof(VersionDelete) * cap);
	it = JsonbIteratorInit(&deletes->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		bool		is_array;
		int			n;

		if (tok == WJB_KEY)
		{
			name = v.val.string.val;
			namelen = v.val.string.len;
			names_check_column(name, namelen);
			continue;
		}
		if (tok != WJB_VALUE)
			continue;
		is_array = v.type == jbvBinary && JsonContainerIsArray(v.val.binary.data);
		n = is_array ? JsonContainerSize(v.val.binary.data) : 1;
		if ((v.type == jbvBinary && !is_array) || n == 0)
			row_update_invalid_delete();
		for (int i = 0; i < n; i++)
		{
			JsonbValue *ts = is_array ? getIthJsonbValueFromContainer(v.val.binary.data, i) : &v;

			if (ts->type == jbvBinary)
				row_update_invalid_delete();
			if (ts->type == jbvNull)
				ots_error(PARAMETER_INVALID, "Timestamp must be given when type is DELETE_ONE_VERSION.");
			if (u->ndeletes == cap)
			{
				cap *= 2;
				u->deletes = repalloc(u->deletes, sizeof(VersionDelete) * cap);
			}
			u->deletes[u->ndeletes].name = name;
			u->deletes[u->ndeletes].namelen = namelen;
			u->deletes[u->ndeletes].ts = codec_parse_timestamp(ts);
			u->ndeletes++;
		}
	}
}

/* row_update_parse_increments reads update_row's "increment" argument: Integer deltas */
static void
row_update_parse_increments(RowUpdate *u, Jsonb *increments)
{
	u->increments = codec_parse_attributes(increments, &u->nincrements);
	for (int i = 0; i < u->nincrements; i++)
		if (u->increments[i].value.type != OTS_VT_INTEGER || u->increments[i].has_ts)
			ereport(ERROR,
					(errcode(ERRCODE_OTS_PARAMETER_INVALID),
					 errmsg_internal("Increment of column '%s' must be an Integer.",
									 pnstrdup(u->increments[i].name, u->increments[i].namelen)),
					 errdetail("increment is {\"column\": <integer delta>, ...}; the new cell is stamped by the server.")));
}

/*
 * row_update_parse reads update_row's operation arguments (put, delete,
 * delete_all, increment) and return_columns, and checks how many columns
 * the operations name.
 */
void
row_update_parse(RowUpdate *u, const RowWriteRequest *req)
{
	int			total;

	memset(u, 0, sizeof(*u));
	u->puts = codec_parse_attributes_with(req->put, req->typed_put, req->ntyped_put, &u->nputs);
	if (req->deletes != NULL)
		row_update_parse_deletes(u, req->deletes);
	if (req->delete_all != NULL)
		u->delete_all = request_column_names(req->delete_all, "delete_all", &u->ndelete_all);
	else if (req->delete_all_names != NULL)
	{
		/* names given as C strings (a view's row): request_column_names's checks */
		u->delete_all = req->delete_all_names;
		u->ndelete_all = req->ndelete_all_names;
		for (int i = 0; i < u->ndelete_all; i++)
			names_check_column(u->delete_all[i], strlen(u->delete_all[i]));
	}
	if (req->increment != NULL)
		row_update_parse_increments(u, req->increment);

	total = u->nputs + u->ndeletes + u->ndelete_all + u->nincrements;
	if (total == 0)
		ots_error(PARAMETER_INVALID, "Attribute column is missing.");
	if (total > OTS_MAX_COLUMNS_PER_WRITE)
		ots_error(PARAMETER_INVALID,
				  "The number of attribute columns exceeds the limit, limit count: %d, column count: %d.",
				  OTS_MAX_COLUMNS_PER_WRITE, total);
	if (req->return_columns != NULL)
	{
		u->return_columns = request_column_names(req->return_columns, "return_columns",
												 &u->nreturn_columns);
		u->has_return_columns = true;
	}
}

static bool
row_update_names_equal(const char *a, uint32 alen, const char *b, uint32 blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

/* row_update_deletes_all: does the request delete every version of the column? */
static bool
row_update_deletes_all(const RowUpdate *u, const char *name, uint32 len)
{
	for (int i = 0; i < u->ndelete_all; i++)
		if (row_update_names_equal(u->delete_all[i], strlen(u->delete_all[i]), name, len))
			return true;
	return false;
}

/* row_update_deletes_version: does the request delete this one cell? */
static bool
row_update_deletes_version(const RowUpdate *u, const char *name, uint32 len, int64 ts)
{
	for (int i = 0; i < u->ndeletes; i++)
		if (u->deletes[i].ts == ts &&
			row_update_names_equal(u->deletes[i].name, u->deletes[i].namelen, name, len))
			return true;
	return false;
}

/*
 * row_update_check_return_columns applies Tablestore's rules: RT_PK takes no
 * return columns, and RT_AFTER_MODIFY may only name incremented columns.
 */
static void
row_update_check_return_columns(const RowWrite *w, const RowUpdate *u)
{
	int			n = u->nreturn_columns;

	if (n > 0 && w->return_type != RT_AFTER_MODIFY)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("return_columns can only be given with RT_AFTER_MODIFY."),
				 errdetail("return_type is %s.", w->return_type == RT_PK ? "RT_PK" : "RT_NONE")));
	for (int i = 0; i < n; i++)
	{
		const char *name = u->return_columns[i];
		bool		incremented = false;

		for (int j = 0; j < u->nincrements; j++)
			if (row_update_names_equal(u->increments[j].name, u->increments[j].namelen,
									   name, strlen(name)))
				incremented = true;
		if (!incremented)
			ereport(ERROR,
					(errcode(ERRCODE_OTS_PARAMETER_INVALID),
					 errmsg_internal("Column '%s' in return_columns is not incremented.", name),
					 errdetail("RT_AFTER_MODIFY returns the values of incremented columns only.")));
	}
}

/* row_update_wants_return: is an incremented column asked for in the result? */
static bool
row_update_wants_return(const RowUpdate *u, const CellInput *inc)
{
	if (!u->has_return_columns)
		return true;
	for (int i = 0; i < u->nreturn_columns; i++)
	{
		const char *name = u->return_columns[i];

		if (row_update_names_equal(name, strlen(name), inc->name, inc->namelen))
			return true;
	}
	return false;
}

/*
 * row_update_increment computes one increment against the old row: the base
 * is the newest visible cell the request does not delete (0 when none), and
 * the new cell is stamped after every cell of the column the write keeps,
 * so it becomes the latest (the timestamp error when that would pass the
 * last valid millisecond).
 */
static void
row_update_increment(const RowWrite *w, const RowUpdate *u, const CellsReader *old,
					 const CellInput *inc, int64 stamp, int64 *ts, int64 *result)
{
	CellsColumn col;
	int64		base = 0;
	int64		newest = -1;

	if (old != NULL && !row_update_deletes_all(u, inc->name, inc->namelen) &&
		cells_find_column(old, inc->name, inc->namelen, &col))
	{
		SelectedCells sc;
		CellsColumn all = col;
		int64		cts;
		OtsValue	v;

		/* the newest cell this write keeps */
		while (cells_column_next(&all, &cts, &v))
			if (!row_update_deletes_version(u, inc->name, inc->namelen, cts))
			{
				newest = cts;
				break;
			}
		visibility_table_begin(&sc, &w->visible.vis, &col);
		while (visibility_column_next(&sc, &cts, &v))
		{
			if (row_update_deletes_version(u, inc->name, inc->namelen, cts))
				continue;
			if (v.type != OTS_VT_INTEGER)
				ereport(ERROR,
						(errcode(ERRCODE_OTS_PARAMETER_INVALID),
						 errmsg_internal("Increment of column '%s' failed: its value is not an Integer.",
										 pnstrdup(inc->name, inc->namelen)),
						 errdetail("The latest cell holds a %s.", ots_value_type_name(v.type))));
			base = v.u.i;
			break;
		}
	}
	if (pg_add_s64_overflow(base, inc->value.u.i, result))
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("Increment of column '%s' overflows a 64-bit Integer.",
								 pnstrdup(inc->name, inc->namelen))));
	*ts = newest >= stamp ? row_write_after(newest) : stamp;
}

/* row_update_parse_all: update_row's operations, conditions and their rules */
void
row_update_parse_all(RowWrite *w)
{
	const RowWriteRequest *req = w->req;

	if (!w->t->allow_update)
		ots_error(PARAMETER_INVALID, "Update operation is not allowed in this table");
	row_write_check_size(w, req->put, req->typed_put, req->ntyped_put, req->increment,
						 req->deletes);
	row_update_parse(&w->update, req);
	row_write_parse_condition(w);
	row_write_check_auto_increment(w);
	row_update_check_return_columns(w, &w->update);
	row_write_check_timestamps(w->t, w->now_ms, w->update.puts, w->update.nputs);
	defined_check_cells(w->t, w->update.puts, w->update.nputs);
}

/* row_update_keep_old adds the cells of the old row that the update does not delete */
static void
row_update_keep_old(CellsBuilder *b, const RowUpdate *u, const CellsReader *old)
{
	for (uint32 i = 0; old != NULL && i < old->ncols; i++)
	{
		CellsColumn col;
		int64		ts;
		OtsValue	v;

		cells_column_at(old, i, &col);
		if (row_update_deletes_all(u, col.name, col.namelen))
			continue;
		while (cells_column_next(&col, &ts, &v))
			if (!row_update_deletes_version(u, col.name, col.namelen, ts))
				cells_builder_add(b, col.name, col.namelen, ts, &v);
	}
}

/* row_update_writes: does the update put or increment column name? */
static bool
row_update_writes(const RowUpdate *u, const char *name, uint32 len)
{
	for (int i = 0; i < u->nputs; i++)
		if (row_update_names_equal(u->puts[i].name, u->puts[i].namelen, name, len))
			return true;
	for (int i = 0; i < u->nincrements; i++)
		if (row_update_names_equal(u->increments[i].name, u->increments[i].namelen, name, len))
			return true;
	return false;
}

/*
 * row_update_version: the version an update writes the row at: its puts'
 * newest timestamp, or the server's stamp
 */
static int64
row_update_version(const RowUpdate *u, int64 stamp)
{
	int64		version = PG_INT64_MIN;

	for (int i = 0; i < u->nputs; i++)
		version = Max(version, u->puts[i].has_ts ? u->puts[i].ts : stamp);
	return version == PG_INT64_MIN ? stamp : version;
}

/*
 * row_update_fill_row: on a table that updates whole rows
 * (update_full_row), each column the update neither writes nor deletes
 * gets its newest visible cell again at the update's version, unless it
 * has a cell at least that new (Tablestore's whole-row update: a TTL then
 * expires the row's columns, and its index entries, together).  A cell of
 * another type than its defined column's (stored before the column was
 * defined) stays as it is: it may not be written again.  old is the whole
 * row (row_write_needs).  The stream records the filled cells as puts.
 */
static void
row_update_fill_row(CellsBuilder *b, RowWrite *w, const CellsReader *old, int64 version)
{
	const RowUpdate *u = &w->update;
	bool		recorded = w->t->stream_enabled;
	CellInput  *puts = NULL;
	int			nputs = 0;
	Visibility	vis;

	/* (a round of the compare-and-swap loop before this one may have filled others) */
	w->stream_ops.puts = u->puts;
	w->stream_ops.nputs = u->nputs;
	if (old == NULL)
		return;
	if (recorded)
	{
		puts = palloc(sizeof(CellInput) * (u->nputs + old->ncols));
		if (u->nputs > 0)
			memcpy(puts, u->puts, sizeof(CellInput) * u->nputs);
		nputs = u->nputs;
	}
	visibility_init(&vis, w->t, w->now_ms);
	for (uint32 i = 0; i < old->ncols; i++)
	{
		CellsColumn col;
		SelectedCells sc;
		const OtsDefinedColumn *defined;
		int64		ts;
		OtsValue	v;

		cells_column_at(old, i, &col);
		if (row_update_deletes_all(u, col.name, col.namelen) ||
			row_update_writes(u, col.name, col.namelen))
			continue;
		visibility_table_begin(&sc, &vis, &col);
		while (visibility_column_next(&sc, &ts, &v))
		{
			if (row_update_deletes_version(u, col.name, col.namelen, ts))
				continue;
			defined = catalog_defined_column(w->t, col.name, col.namelen);
			if (ts < version && (defined == NULL || defined->type == v.type))
			{
				cells_builder_add(b, col.name, col.namelen, version, &v);
				if (recorded)
				{
					CellInput  *c = &puts[nputs++];

					memset(c, 0, sizeof(CellInput));
					c->name = col.name;
					c->namelen = col.namelen;
					c->value = v;
					c->has_ts = true;
					c->ts = version;
				}
			}
			break;
		}
	}
	if (recorded)
	{
		w->stream_ops.puts = puts;
		w->stream_ops.nputs = nputs;
	}
}

/*
 * row_update_add_increments adds the incremented cells, and with
 * RT_AFTER_MODIFY renders the returned ones into w->after.
 */
static void
row_update_add_increments(RowWrite *w, CellsBuilder *b, const CellsReader *old, int64 stamp)
{
	const RowUpdate *u = &w->update;
	bool		render = w->return_type == RT_AFTER_MODIFY;
	JsonbParseState *state = NULL;

	if (render)
		pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < u->nincrements; i++)
	{
		const CellInput *inc = &u->increments[i];
		OtsValue	v = {.type = OTS_VT_INTEGER};
		int64		ts;

		row_update_increment(w, u, old, inc, stamp, &ts, &v.u.i);
		cells_builder_add(b, inc->name, inc->namelen, ts, &v);
		if (render && row_update_wants_return(u, inc))
		{
			codec_push_key(&state, inc->name, inc->namelen);
			codec_push_value(&state, &v, WJB_VALUE);
		}
	}
	if (render)
		w->after = JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL));
}

/*
 * row_update_decide: UpdateRow applies delete_all, delete, put and
 * increment, in that order, to the old row; an update holding only
 * deletions never creates a row (RowWriteDecide).
 */
RowChange
row_update_decide(RowWrite *w, const CellsReader *old, bool exists, struct varlena **cells,
				  int64 *oldest_ts)
{
	const RowUpdate *u = &w->update;
	int64		stamp;
	CellsBuilder *b;

	if (!exists && u->nputs == 0 && u->nincrements == 0)
		return ROW_CHANGE_NONE; /* deleting from a missing row changes nothing */
	stamp = row_write_stamp(w, old);
	w->stream_ops.stamp = stamp;
	b = cells_builder_create(stamp);
	row_update_keep_old(b, u, old);
	for (int i = 0; i < u->nputs; i++)
		cells_builder_add(b, u->puts[i].name, u->puts[i].namelen,
						  u->puts[i].has_ts ? u->puts[i].ts : stamp, &u->puts[i].value);
	row_update_add_increments(w, b, old, stamp);
	if (w->t->update_full_row)
		row_update_fill_row(b, w, old, row_update_version(u, stamp));
	*cells = row_write_finish(b, w->t, oldest_ts);
	return ROW_CHANGE_STORE;
}

/*
 * row_update_account: the key, the cells put and incremented, the column
 * names deleted; the key read when conditions were checked or cells
 * incremented
 */
int
row_update_account(const RowWrite *w, bool found, Consumed *consumed)
{
	const RowUpdate *u = &w->update;
	uint32		write_size = w->pk_size + row_write_cells_size(u->puts, u->nputs);

	for (int i = 0; i < u->ndeletes; i++)
		write_size += u->deletes[i].namelen;
	for (int i = 0; i < u->ndelete_all; i++)
		write_size += strlen(u->delete_all[i]);
	for (int i = 0; i < u->nincrements; i++)
		write_size += u->increments[i].namelen + 8;
	consumed->write = request_cu(write_size);
	if (row_write_has_conditions(w) || u->nincrements > 0)
		consumed->read = request_cu(w->pk_size);
	return 1;
}
