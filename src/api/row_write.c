/*-------------------------------------------------------------------------
 * src/api/row_write.c
 *	  One single-row write being applied (RowWrite, row_write_internal.h):
 *	  the rules every write shares, the stamps and cells it writes, and the
 *	  compare-and-swap that writes them.
 *
 * Every write validates its whole request before touching storage, then
 * reads the row's newest version, checks its conditions against it and
 * writes the new cells in place of exactly that version (rowstore's
 * compare-and-swap), so check-and-write is atomic under concurrency: when
 * a concurrent writer replaced the version first, or inserted the missing
 * row first, the write goes round again on what that writer left.
 *
 * That loop is written once (row_write_apply, run for every write by
 * row_write_run); each write is one entry of row_write_ops
 * (row_write_ops.c): how it validates its own arguments, what it writes
 * given the row version read (its decision function), and what it
 * consumed.  The pieces of a PutRow are here too, for the bulk path
 * (row_bulk.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "api/auto_increment.h"
#include "format/visibility.h"
#include "format/cells.h"
#include "format/codec.h"
#include "meta/defined.h"
#include "errors.h"
#include "api/filter.h"
#include "api/read_select.h"
#include "api/request.h"
#include "api/row_write.h"
#include "api/row_write_internal.h"
#include "store/rowsplit.h"
#include "store/rowstore.h"
#include "stats.h"

/*
 * row_write_prepare resolves the table, checks privileges (those a view's
 * statement has not checked already) and parses the arguments shared by
 * every write, in Tablestore's validation order.
 */
static void
row_write_prepare(RowWrite *w, const RowWriteOp *op, const RowWriteRequest *req)
{
	if (!OidIsValid(req->view_oid))
		request_require_given(req->table_name, "table_name");
	if (req->key == NULL)
		request_require_given(req->primary_key, "primary_key");
	w->op = op;
	w->req = req;
	w->t = OidIsValid(req->view_oid) ? catalog_lookup_view(req->view_oid) :
		catalog_lookup(req->table_name);
	if ((op->mode & ~req->privileges_checked) != 0)
		rowstore_check_privileges(w->t, op->mode);
	rowstore_check_writable(op->operation);
	if (req->key != NULL)
	{
		codec_check_pk(w->t, req->key, PK_ALLOW_AUTO_INC);
		w->pk = *req->key;
	}
	else
		codec_parse_pk(w->t, req->primary_key, PK_ALLOW_AUTO_INC, &w->pk);
	w->pk_size = codec_pk_size(w->t, &w->pk);
	w->now_ms = visibility_now_ms();
	select_init(&w->visible, w->t, w->now_ms);
	w->visible.vis.max_versions = PG_INT32_MAX;
	w->reads = true;
	w->cells = NULL;
	w->ncells = 0;
	w->after = NULL;
	w->row = NULL;
	memset(&w->update, 0, sizeof(w->update));
}

/* row_write_parse_condition reads the condition, column_condition and return_type arguments */
void
row_write_parse_condition(RowWrite *w)
{
	w->existence = request_row_existence(w->req->condition);
	w->condition = filter_parse(w->req->column_condition, false);
	w->return_type = request_return_type(w->req->return_type);
}

/* row_write_has_conditions: does the write check the row's existence or a column condition? */
bool
row_write_has_conditions(const RowWrite *w)
{
	return w->existence != ROW_IGNORE || w->condition != NULL;
}

/*
 * row_write_check_size applies Tablestore's 4 MB request limit to a
 * single-row write before any cell is parsed: the key, the cells of puts
 * (with the typed cells that go with them) and increments (names and
 * values) and the versions of deletes (names), measured as batch_write_row
 * measures each of its rows.  A key or cell given as values is measured as
 * its jsonb would be: names, values and timestamps (codec_pk_size,
 * row_write_cells_size).
 */
void
row_write_check_size(const RowWrite *w, Jsonb *puts, const CellInput *typed, int ntyped,
					 Jsonb *increments, Jsonb *deletes)
{
	uint64		size = row_write_put_size(w->req->key != NULL ? NULL : w->req->primary_key,
										  w->pk_size, puts, typed, ntyped);

	if (increments != NULL)
		size += codec_cells_data_size(&increments->root, true, false);
	if (deletes != NULL)
		size += codec_cells_data_size(&deletes->root, false, false);
	request_check_data_size(w->op->request, size);
}

uint64
row_write_put_size(Jsonb *primary_key, uint32 pk_size, Jsonb *attributes, const CellInput *typed,
				   int ntyped)
{
	uint64		size = primary_key != NULL ? codec_pk_data_size(&primary_key->root) : pk_size;

	if (ntyped > 0)
		size += row_write_cells_size(typed, ntyped);
	/* a timestamp counts as the jsonb's "ts" does (not in capacity units) */
	for (int i = 0; i < ntyped; i++)
		if (typed[i].has_ts)
			size += 8;
	if (attributes != NULL)
		size += codec_cells_data_size(&attributes->root, true, false);
	return size;
}

/* row_write_has_auto_increment: does the pk carry the AUTO_INCREMENT placeholder? */
bool
row_write_has_auto_increment(const RowWrite *w)
{
	return w->t->auto_increment_col >= 0 &&
		w->pk.special[w->t->auto_increment_col] == PK_AUTO_INCREMENT;
}

/*
 * row_write_check_auto_increment applies Tablestore's rules for writes that
 * generate a key: IGNORE only and no column condition.
 */
void
row_write_check_auto_increment(const RowWrite *w)
{
	if (!row_write_has_auto_increment(w))
		return;
	if (w->existence != ROW_IGNORE)
		ots_error(PARAMETER_INVALID, "Invalid expect:%s when modify row with pk auto increment.",
				  request_row_existence_name(w->existence));
	if (w->condition != NULL)
		ots_error(PARAMETER_INVALID, "Can't set condition when modify row with pk auto increment.");
}

/*
 * row_write_route fills in a generated AUTO_INCREMENT value and finds the
 * row's leaf partition.
 */
static void
row_write_route(RowWrite *w)
{
	w->generated = row_write_has_auto_increment(w);
	if (w->generated)
	{
		int			col = w->t->auto_increment_col;

		w->pk.v[col].type = OTS_VT_INTEGER;
		w->pk.v[col].u.i = auto_increment_next(w->t);
		w->pk.special[col] = PK_VALUE;
	}
	routing_key(w->t, &w->pk, &w->key);
}

/*
 * row_write_generate_again gives a write whose generated key is a stored
 * row's a value past the rows there (auto_increment.c), and routes it
 */
static void
row_write_generate_again(RowWrite *w)
{
	const StreamChange *change = w->key.change;

	w->pk.v[w->t->auto_increment_col].u.i = auto_increment_past(w->t, &w->pk);
	routing_key(w->t, &w->pk, &w->key);
	w->key.change = change;
}

void
row_write_check_timestamps(const OtsTable *t, int64 now_ms, const CellInput *cells, int n)
{
	int64		offset_ms = t->max_version_offset * 1000;
	int64		lower = now_ms - offset_ms;
	int64		upper = now_ms + offset_ms;

	if (t->time_to_live >= 0)
		lower = Max(lower, now_ms - t->time_to_live * 1000);
	for (int i = 0; i < n; i++)
		if (cells[i].has_ts && (cells[i].ts < lower || cells[i].ts >= upper))
			ereport(ERROR,
					(errcode(ERRCODE_OTS_PARAMETER_INVALID),
					 errmsg_internal("Invalid timestamp. Cell:%s",
									 pnstrdup(cells[i].name, cells[i].namelen)),
					 errdetail("Timestamps must lie within max_version_offset (%lld s) of now and within time_to_live.",
							   (long long) t->max_version_offset)));
}

/*
 * row_write_finish encodes the row a write stores, keeping the table's
 * max_versions, and sets *oldest_ts to its "$oldest_ts" (as the builder
 * records it: the new cells are not decoded again).  No size bounds it:
 * a row past CELLS_INLINE_MAX is stored split, in values of at most a
 * chunk (store/rowsplit.h).
 */
struct varlena *
row_write_finish(CellsBuilder *b, const OtsTable *t, int64 *oldest_ts)
{
	struct varlena *cells = cells_builder_finish(b, t->max_versions);

	*oldest_ts = cells_builder_oldest_ts(b);
	return cells;
}

struct varlena *
row_write_put_cells(const OtsTable *t, const CellInput *cells, int n, int64 stamp,
					int64 *oldest_ts)
{
	CellsBuilder *b = cells_builder_create(stamp);

	for (int i = 0; i < n; i++)
		cells_builder_add(b, cells[i].name, cells[i].namelen,
						  cells[i].has_ts ? cells[i].ts : stamp, &cells[i].value);
	return row_write_finish(b, t, oldest_ts);
}

uint32
row_write_cells_size(const CellInput *cells, int n)
{
	uint32		size = 0;

	for (int i = 0; i < n; i++)
		size += cells[i].namelen + ots_value_size(&cells[i].value);
	return size;
}

/* row_write_append_value appends a key value as SQL prints it (Binary as \x hex), for messages */
static void
row_write_append_value(StringInfo buf, const OtsValue *v)
{
	switch (v->type)
	{
		case OTS_VT_STRING:
			appendBinaryStringInfo(buf, v->u.s.data, v->u.s.len);
			break;
		case OTS_VT_INTEGER:
			appendStringInfo(buf, INT64_FORMAT, v->u.i);
			break;
		case OTS_VT_DOUBLE:
			appendStringInfo(buf, "%.17g", v->u.d);
			break;
		case OTS_VT_BOOLEAN:
			appendStringInfoString(buf, v->u.b ? "true" : "false");
			break;
		case OTS_VT_BINARY:
			appendStringInfoString(buf, "\\x");
			for (uint32 i = 0; i < v->u.s.len; i++)
				appendStringInfo(buf, "%02x", (unsigned char) v->u.s.data[i]);
			break;
	}
}

/*
 * row_write_existing: a PutRow of a view's INSERT found the row it expected
 * not to.  A plain INSERT fails as a unique index would make it fail;
 * ON CONFLICT goes on (w->existing), to write nothing or the update.
 */
static void
row_write_existing(RowWrite *w)
{
	if (w->req->on_existing == ROW_EXISTING_UNIQUE)
	{
		StringInfoData names;
		StringInfoData values;

		initStringInfo(&names);
		initStringInfo(&values);
		for (int i = 0; i < w->t->npk; i++)
		{
			appendStringInfo(&names, "%s%s", i > 0 ? ", " : "", w->t->pk[i].name);
			appendStringInfoString(&values, i > 0 ? ", " : "");
			row_write_append_value(&values, &w->pk.v[i]);
		}
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg_internal("Condition check failed."),
				 errdetail("Key (%s)=(%s) already exists.", names.data, values.data),
				 errhint("INSERT on an ots table's view expects a new row (EXPECT_NOT_EXIST); "
						 "INSERT ... ON CONFLICT DO UPDATE merges into an existing one.")));
	}
	w->existing = true;
}

/*
 * row_write_check_conditions raises OTSConditionCheckFail unless the row's
 * existence and the column condition hold for the row version read.
 */
static void
row_write_check_conditions(RowWrite *w, const CellsReader *old, bool exists)
{
	w->existing = false;
	if (w->existence == ROW_EXPECT_NOT_EXIST && exists &&
		w->req->on_existing != ROW_EXISTING_CONDITION)
		row_write_existing(w);
	else if ((w->existence == ROW_EXPECT_EXIST && !exists) ||
			 (w->existence == ROW_EXPECT_NOT_EXIST && exists))
		ots_error(CONDITION_CHECK_FAIL, "Condition check failed.");
	if (w->condition != NULL &&
		!filter_eval(w->condition, w->t, &w->pk, exists ? old : NULL, &w->visible))
		ots_error(CONDITION_CHECK_FAIL, "Condition check failed.");
}

/*
 * row_write_change makes a write's change in place of the row version read
 * (found: there was one), or as a new row: cells with their "$oldest_ts"
 * oldest.  Returns false, having changed nothing, when a concurrent writer
 * replaced or deleted that version, or inserted the key, first.
 */
static bool
row_write_change(RowWrite *w, RowChange change, bool found, struct varlena *cells,
				 int64 oldest)
{
	if (change == ROW_CHANGE_REMOVE)
		return !found || rowstore_delete(&w->key);
	if (found)
		return rowstore_update(&w->key, cells, oldest);
	return rowstore_insert(&w->key, cells, oldest, true);
}

static struct varlena *row_put_over(void *arg, int row, const struct varlena *old,
								   int64 *oldest_ts, bool *keep);

/*
 * row_put_unconditional writes an unconditional PutRow, which reads nothing
 * first: it tries the key as new (one index descent for a new key), else
 * writes over the newest version, its cells built again when the write's
 * stamp must pass that version's marker (row_put_over), round again after a
 * concurrent writer.  Returns whether it replaced a stored row.
 */
static bool
row_put_unconditional(RowWrite *w)
{
	struct varlena *cells;
	int64		oldest;

	w->op->decide(w, NULL, false, &cells, &oldest);
	w->row = cells;
	if (rowstore_insert(&w->key, cells, oldest, false))
		return false;
	for (int attempt = 1;; attempt++)
	{
		rowstore_cas_round(attempt);
		w->row = cells;
		if (rowstore_put(&w->key, cells, oldest, row_put_over, w, 0))
			return w->key.found;
	}
}

/*
 * row_write_needs: what a write loads of a split row (store/rowsplit.h):
 * the cells its column condition reads; for an update, where each of its
 * operations writes and what increments read; a put replaces every cell.
 * A cell the server stamps is where cells_server_stamp puts it over the
 * head's marker.
 */
static void
row_write_needs(const RowWrite *w, RowNeeds *needs)
{
	const RowUpdate *u = &w->update;

	rowneeds_init_write(needs, w->t);
	filter_needs(w->condition, needs, w->t->max_versions, 0);
	if (w->req->kind == ROW_WRITE_PUT)
		needs->replacing = true;
	/* an update of a table that updates whole rows writes every column again */
	if (w->t->update_full_row &&
		(w->req->kind == ROW_WRITE_UPDATE || w->req->on_existing == ROW_EXISTING_UPDATE))
		needs->whole = true;
	if (w->req->kind != ROW_WRITE_UPDATE)
		return;
	needs->now_ms = w->now_ms;
	for (int i = 0; i < u->nputs; i++)
	{
		if (u->puts[i].has_ts)
			rowneeds_position(needs, u->puts[i].name, u->puts[i].namelen, u->puts[i].ts);
		else
			rowneeds_stamped(needs, u->puts[i].name, u->puts[i].namelen);
	}
	for (int i = 0; i < u->ndeletes; i++)
		rowneeds_position(needs, u->deletes[i].name, u->deletes[i].namelen, u->deletes[i].ts);
	for (int i = 0; i < u->ndelete_all; i++)
		rowneeds_newest(needs, u->delete_all[i], strlen(u->delete_all[i]), PG_INT32_MAX, 0,
						PG_INT64_MAX);
	/* an increment reads the newest cell and writes after it, or at the stamp */
	for (int i = 0; i < u->nincrements; i++)
	{
		rowneeds_newest(needs, u->increments[i].name, u->increments[i].namelen, 1, 0,
						PG_INT64_MAX);
		rowneeds_stamped(needs, u->increments[i].name, u->increments[i].namelen);
	}
	for (int i = 0; i < u->nreturn_columns; i++)
		rowneeds_newest(needs, u->return_columns[i], strlen(u->return_columns[i]), 1, 0,
						PG_INT64_MAX);
}

/*
 * row_write_apply is the compare-and-swap every write goes through: read
 * the row's newest version, check the conditions against it, ask the
 * write's decision function what to write, and write that in place of
 * exactly that version; when a concurrent writer got there first, go round
 * again on what it left (an unconditional put and a generated key read
 * nothing first).  Returns whether the last round found a stored row.
 */
static bool
row_write_apply(RowWrite *w)
{
	if (!w->reads && !w->generated)
		return row_put_unconditional(w);
	for (int attempt = 0;; attempt++)
	{
		struct varlena *oldv = NULL;
		CellsReader old;
		bool		exists = false;
		struct varlena *newv = NULL;
		int64		new_oldest = 0;
		RowChange	change;
		RowNeeds	needs;

		rowstore_cas_round(attempt);
		/*
		 * A generated key is a new row's: it never replaces one, nor merges
		 * an update into one.  Its insert's arbiter finds a stored row of
		 * the key, atomically, when the sequence is behind the rows (a
		 * logical replication subscriber, a restore, setval): then the key
		 * is generated again, past them.
		 */
		if (w->generated)
		{
			change = w->op->decide(w, NULL, false, &newv, &new_oldest);
			w->row = newv;
			if (change != ROW_CHANGE_STORE || rowstore_insert(&w->key, newv, new_oldest, false))
				return false;
			row_write_generate_again(w);
			continue;
		}
		/*
		 * A put expecting a new row (EXPECT_NOT_EXIST alone, as every INSERT
		 * on a view is) tries the key as new first: a new key then costs one
		 * index descent, not a read and an insert.  A key that is there, live
		 * or not, is read and decided as below.
		 */
		if (attempt == 0 && w->existence == ROW_EXPECT_NOT_EXIST && w->condition == NULL)
		{
			change = w->op->decide(w, NULL, false, &newv, &new_oldest);
			w->row = newv;
			if (change == ROW_CHANGE_STORE && rowstore_insert(&w->key, newv, new_oldest, false))
				return false;
			continue;
		}
		row_write_needs(w, &needs);
		oldv = rowstore_fetch_row(&w->key, true, &needs);
		if (oldv != NULL)
		{
			cells_reader_init(&old, oldv);
			if (w->key.split != NULL)
			{
				/* a split row's marker is its head's, whatever its cells were read from */
				cells_reader_set_marker(&old, w->key.split->head.row_ts);
				exists = rowsplit_exists(&w->key, &w->visible.vis);
			}
			else
				exists = visibility_row_exists(&w->visible.vis, &old);
		}
		row_write_check_conditions(w, &old, exists);
		if (w->existing && w->req->on_existing == ROW_EXISTING_SKIP)
			return true;
		change = w->op->decide(w, oldv != NULL ? &old : NULL, exists, &newv, &new_oldest);
		w->row = change == ROW_CHANGE_STORE ? newv : change == ROW_CHANGE_NONE ? oldv : NULL;
		if (change == ROW_CHANGE_NONE ||
			row_write_change(w, change, oldv != NULL, newv, new_oldest))
			return oldv != NULL;
	}
}

/*
 * row_write_after is the millisecond after ts, a stamp the server computes
 * rather than the request gives; past the last valid millisecond the write
 * fails with Tablestore's timestamp error instead of storing it.
 */
int64
row_write_after(int64 ts)
{
	codec_check_timestamp(ts + 1);
	return ts + 1;
}

/*
 * row_write_server_stamp is the server timestamp of a write at now_ms over
 * the stored row old (NULL: none): now_ms, or the millisecond after the
 * row's marker when that is not before now_ms, so successive server stamps
 * of a row only increase, whatever the clock did between them.
 */
static int64
row_write_server_stamp(int64 now_ms, const CellsReader *old)
{
	if (old == NULL)
		return now_ms;
	/* the rule is cells_server_stamp's; past the last valid millisecond the write fails */
	codec_check_timestamp(cells_server_stamp(now_ms, old->row_ts));
	return cells_server_stamp(now_ms, old->row_ts);
}

/* row_write_stamp: this write's server timestamp over the row version old */
int64
row_write_stamp(const RowWrite *w, const CellsReader *old)
{
	return row_write_server_stamp(w->now_ms, old);
}

/*
 * row_write_put_over: a PutRow of the attributes and typed cells
 * (validated, its cells built at now_ms) finds the stored cells old in its way: NULL when its
 * cells stand, else its cells built again with the stamp
 * row_write_server_stamp gives over old, when that must pass old's marker.
 */
struct varlena *
row_write_put_over(const OtsTable *t, Jsonb *attributes, const CellInput *typed, int ntyped,
				   int64 now_ms, const struct varlena *old, int64 *oldest_ts)
{
	CellsReader r;
	int64		stamp;
	int			count;
	CellInput  *parsed;

	cells_reader_init(&r, old);
	stamp = row_write_server_stamp(now_ms, &r);
	if (stamp == now_ms)
		return NULL;
	parsed = codec_parse_attributes_with(attributes, typed, ntyped, &count);
	return row_write_put_cells(t, parsed, count, stamp, oldest_ts);
}

/*
 * row_put_over: put_row's row_write_put_over (RowstoreReplacing); an error
 * (no stamp past the marker) is the call's
 */
static struct varlena *
row_put_over(void *arg, int row, const struct varlena *old, int64 *oldest_ts, bool *keep)
{
	RowWrite   *w = arg;
	struct varlena *cells = row_write_put_over(w->t, w->req->attributes, w->req->typed_cells,
											   w->req->ntyped_cells, w->now_ms, old, oldest_ts);

	if (cells != NULL)
		w->row = cells;
	return cells;
}

struct varlena *
row_write_new_row_cells(const OtsTable *t, Jsonb *attributes, const CellInput *typed, int ntyped,
						int64 now_ms, int64 *oldest_ts, uint32 *size)
{
	int			count;
	CellInput  *parsed = codec_parse_attributes_with(attributes, typed, ntyped, &count);

	row_write_check_timestamps(t, now_ms, parsed, count);
	defined_check_cells(t, parsed, count);
	*size = row_write_cells_size(parsed, count);
	return row_write_put_cells(t, parsed, count, now_ms, oldest_ts);
}

/*
 * row_write_announce tells the stream what the write is: the kind of
 * request, and an UpdateRow's operations as written (the decision
 * functions fill in the stamp, and whether a view's upsert updated)
 */
static void
row_write_announce(RowWrite *w)
{
	const RowUpdate *u = &w->update;

	w->change.action = w->req->kind == ROW_WRITE_PUT ? STREAM_PUT_ROW :
		w->req->kind == ROW_WRITE_UPDATE ? STREAM_UPDATE_ROW : STREAM_DELETE_ROW;
	w->change.update = &w->stream_ops;
	w->stream_ops.delete_all = u->delete_all;
	w->stream_ops.ndelete_all = u->ndelete_all;
	w->stream_ops.deletes = u->deletes;
	w->stream_ops.ndeletes = u->ndeletes;
	w->stream_ops.puts = u->puts;
	w->stream_ops.nputs = u->nputs;
	w->stream_ops.increments = u->increments;
	w->stream_ops.nincrements = u->nincrements;
	w->key.change = &w->change;
}

/*
 * row_write_run validates a write request in Tablestore's order, applies it
 * (a write of op's kind) by compare-and-swap and counts it in the table's
 * statistics.
 */
void
row_write_run(const RowWriteOp *op, const RowWriteRequest *req, RowResult *res)
{
	RowWrite	w;
	bool		found;
	int			rows;

	row_write_prepare(&w, op, req);
	op->parse(&w);
	row_write_route(&w);
	w.existing = false;
	if (w.t->stream_enabled)
		row_write_announce(&w);
	found = row_write_apply(&w);
	res->consumed.read = 0;
	res->consumed.write = 0;
	res->skipped = w.existing && req->on_existing == ROW_EXISTING_SKIP;
	rows = op->account(&w, found, &res->consumed);
	if (res->skipped)
		rows = 0;
	stats_count(w.t, 0, rows, res->consumed.read, res->consumed.write);
	res->primary_key = w.return_type == RT_PK ? codec_pk_to_jsonb(w.t, &w.pk) : NULL;
	res->attributes = w.after;
	if (req->keep_row)
	{
		res->key = w.pk;
		res->row = w.row;
		/* an update of a split row left what it loaded: the row as the write left it, whole */
		if (w.row != NULL && w.key.split != NULL && !w.key.split->replacing)
		{
			RowNeeds	whole;

			rowneeds_init(&whole);
			whole.whole = true;
			res->row = rowstore_fetch_row(&w.key, true, &whole);
		}
	}
}
