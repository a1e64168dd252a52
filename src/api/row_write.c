/*-------------------------------------------------------------------------
 * src/api/row_write.c
 *	  ots.put_row, ots.update_row and ots.delete_row: Tablestore's
 *	  single-row writes with row-existence and column conditions.
 *
 * Every write validates its whole request before touching storage, then
 * reads the row's newest version, checks its conditions against it and
 * writes the new cells in place of exactly that version (rowstore's
 * compare-and-swap), so check-and-write is atomic under concurrency: when
 * a concurrent writer replaced the version first, or inserted the missing
 * row first, the write goes round again on what that writer left.
 *
 * That loop is written once (row_write_apply); each write is one entry of
 * row_write_ops: how it validates its own arguments, what it writes given
 * the row version read (its decision function), and what it consumed.
 * The SQL functions are shims over row_write, which batch_write_row calls
 * directly.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/int.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "api/auto_increment.h"
#include "format/cells.h"
#include "format/codec.h"
#include "meta/defined.h"
#include "errors.h"
#include "api/filter.h"
#include "format/names.h"
#include "ots_limits.h"
#include "api/read_select.h"
#include "api/request.h"
#include "api/row_ops.h"
#include "api/row_write.h"
#include "store/rowstore.h"
#include "stats.h"
#include "meta/storage.h"
#include "stream/stream.h"

/* the parsed operations of one update_row */
typedef struct RowUpdate
{
	CellInput  *puts;
	int			nputs;
	VersionDelete *deletes;
	int			ndeletes;
	const char **delete_all;
	int			ndelete_all;
	CellInput  *increments;		/* value holds the Integer delta */
	int			nincrements;
	const char **return_columns;
	int			nreturn_columns;
	bool		has_return_columns; /* false: every incremented column */
} RowUpdate;

typedef struct RowWriteOp RowWriteOp;

/* one write being applied: its request, parsed, and what it produced */
typedef struct RowWrite
{
	const RowWriteOp *op;
	const RowWriteRequest *req;
	OtsTable   *t;
	PkInput		pk;
	RowKey		key;
	RowExistence existence;
	Filter	   *condition;
	ReturnType	return_type;
	int64		now_ms;
	ReadSelect	visible;		/* the table's rules: what conditions see */
	uint32		pk_size;
	bool		reads;			/* reads the row before writing it */
	CellInput  *cells;			/* PutRow: the cells */
	int			ncells;
	RowUpdate	update;			/* UpdateRow: the operations */
	Jsonb	   *after;			/* UpdateRow: the RT_AFTER_MODIFY attributes */
	bool		existing;		/* PutRow found the row it expected not to (on_existing) */
	bool		generated;		/* the key's AUTO_INCREMENT value was generated */
	StreamChange change;		/* what the write is, for a table with a stream */
	StreamUpdateOps stream_ops; /* UpdateRow: its operations, for the stream */
} RowWrite;

/* what a write does in place of the row version read */
typedef enum RowChange
{
	ROW_CHANGE_NONE,			/* nothing */
	ROW_CHANGE_STORE,			/* store new cells */
	ROW_CHANGE_REMOVE			/* delete the row */
} RowChange;

/*
 * RowWriteDecide is a write's decision function: given the row version
 * read (NULL when there is none; exists: whether it is visible) it says
 * what to write, setting *cells and their "$oldest_ts" for ROW_CHANGE_STORE.
 * It may run more than once (again after a concurrent writer), and may
 * raise errors.
 */
typedef RowChange (*RowWriteDecide) (RowWrite *w, const CellsReader *old, bool exists,
									 struct varlena **cells, int64 *oldest_ts);

/* one kind of single-row write */
struct RowWriteOp
{
	const char *operation;		/* "ots.put_row", for read-only errors */
	const char *request;		/* "PutRow", for request errors */
	AclMode		mode;			/* privileges on the storage */
	/* validates the arguments after the key, in Tablestore's order; sets reads */
	void		(*parse) (RowWrite *w);
	RowWriteDecide decide;
	/* sets the capacity units; returns the rows written, for the statistics */
	int			(*account) (const RowWrite *w, bool found, Consumed *consumed);
};

PG_FUNCTION_INFO_V1(ots_put_row);
PG_FUNCTION_INFO_V1(ots_update_row);
PG_FUNCTION_INFO_V1(ots_delete_row);

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
	request_require_given(req->primary_key, "primary_key");
	w->op = op;
	w->req = req;
	w->t = OidIsValid(req->view_oid) ? catalog_lookup_view(req->view_oid) :
		catalog_lookup(req->table_name);
	if ((op->mode & ~req->privileges_checked) != 0)
		rowstore_check_privileges(w->t, op->mode);
	rowstore_check_writable(op->operation);
	codec_parse_pk(w->t, req->primary_key, PK_ALLOW_AUTO_INC, &w->pk);
	w->pk_size = codec_pk_size(w->t, &w->pk);
	w->now_ms = visibility_now_ms();
	select_init(&w->visible, w->t, w->now_ms);
	w->visible.vis.max_versions = PG_INT32_MAX;
	w->reads = true;
	w->cells = NULL;
	w->ncells = 0;
	w->after = NULL;
	memset(&w->update, 0, sizeof(w->update));
}

/* row_write_parse_condition reads the condition, column_condition and return_type arguments */
static void
row_write_parse_condition(RowWrite *w)
{
	w->existence = request_row_existence(w->req->condition);
	w->condition = filter_parse(w->req->column_condition, false);
	w->return_type = request_return_type(w->req->return_type);
}

/* row_write_has_conditions: does the write check the row's existence or a column condition? */
static bool
row_write_has_conditions(const RowWrite *w)
{
	return w->existence != ROW_IGNORE || w->condition != NULL;
}

/* row_write_refuse_after_modify: RT_AFTER_MODIFY is UpdateRow's only */
static void
row_write_refuse_after_modify(const RowWrite *w)
{
	if (w->return_type == RT_AFTER_MODIFY)
		ots_parameter_invalid(psprintf("RT_AFTER_MODIFY is not supported by %s.", w->op->request),
							  "Use RT_NONE or RT_PK.");
}

/*
 * row_write_check_size applies Tablestore's 4 MB request limit to a
 * single-row write before any cell is parsed: the key, the cells of puts
 * and increments (names and values) and the versions of deletes (names),
 * measured as batch_write_row measures each of its rows.
 */
static void
row_write_check_size(const RowWrite *w, Jsonb *puts, Jsonb *increments, Jsonb *deletes)
{
	uint64		size = codec_pk_data_size(&w->req->primary_key->root);

	if (puts != NULL)
		size += codec_cells_data_size(&puts->root, true, false);
	if (increments != NULL)
		size += codec_cells_data_size(&increments->root, true, false);
	if (deletes != NULL)
		size += codec_cells_data_size(&deletes->root, false, false);
	request_check_data_size(w->op->request, size);
}

/* row_write_has_auto_increment: does the pk carry the AUTO_INCREMENT placeholder? */
static bool
row_write_has_auto_increment(const RowWrite *w)
{
	return w->t->auto_increment_col >= 0 &&
		w->pk.special[w->t->auto_increment_col] == PK_AUTO_INCREMENT;
}

/*
 * row_write_check_auto_increment applies Tablestore's rules for writes that
 * generate a key: IGNORE only and no column condition.
 */
static void
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
 * records it: the new cells are not decoded again); a row the text I/O
 * could not carry (pg_dump, COPY) fails with OTSOutOfRowSizeLimit instead
 * of being stored.
 */
static struct varlena *
row_write_finish(CellsBuilder *b, const OtsTable *t, int64 *oldest_ts)
{
	struct varlena *cells = cells_builder_finish(b, t->max_versions);

	cells_io_check_size(cells);
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
	if (rowstore_insert(&w->key, cells, oldest, false))
		return false;
	for (int attempt = 1;; attempt++)
	{
		rowstore_cas_round(attempt);
		if (rowstore_put(&w->key, cells, oldest, row_put_over, w, 0))
			return w->key.found;
	}
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
			if (change == ROW_CHANGE_STORE && rowstore_insert(&w->key, newv, new_oldest, false))
				return false;
			continue;
		}
		oldv = rowstore_fetch(&w->key, true);
		if (oldv != NULL)
		{
			cells_reader_init(&old, oldv);
			exists = visibility_row_exists(&w->visible.vis, &old);
		}
		row_write_check_conditions(w, &old, exists);
		if (w->existing && w->req->on_existing == ROW_EXISTING_SKIP)
			return true;
		change = w->op->decide(w, oldv != NULL ? &old : NULL, exists, &newv, &new_oldest);
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
static int64
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
	if (old != NULL && old->row_ts >= now_ms)
		return row_write_after(old->row_ts);
	return now_ms;
}

/* row_write_stamp: this write's server timestamp over the row version old */
static int64
row_write_stamp(const RowWrite *w, const CellsReader *old)
{
	return row_write_server_stamp(w->now_ms, old);
}

static void row_update_parse(RowUpdate *u, const RowWriteRequest *req);

/* row_put_parse: put_row's attributes, conditions and their rules */
static void
row_put_parse(RowWrite *w)
{
	row_write_check_size(w, w->req->attributes, NULL, NULL);
	w->cells = codec_parse_attributes(w->req->attributes, &w->ncells);
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

static RowChange row_update_decide(RowWrite *w, const CellsReader *old, bool exists,
								   struct varlena **cells, int64 *oldest_ts);

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

/*
 * row_write_put_over: a PutRow of the attributes (validated, its cells
 * built at now_ms) finds the stored cells old in its way: NULL when its
 * cells stand, else its cells built again with the stamp
 * row_write_server_stamp gives over old, when that must pass old's marker.
 */
struct varlena *
row_write_put_over(const OtsTable *t, Jsonb *attributes, int64 now_ms,
				   const struct varlena *old, int64 *oldest_ts)
{
	CellsReader r;
	int64		stamp;
	int			count;
	CellInput  *parsed;

	cells_reader_init(&r, old);
	stamp = row_write_server_stamp(now_ms, &r);
	if (stamp == now_ms)
		return NULL;
	parsed = codec_parse_attributes(attributes, &count);
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

	return row_write_put_over(w->t, w->req->attributes, w->now_ms, old, oldest_ts);
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
static void
row_update_parse(RowUpdate *u, const RowWriteRequest *req)
{
	int			total;

	memset(u, 0, sizeof(*u));
	u->puts = codec_parse_attributes(req->put, &u->nputs);
	if (req->deletes != NULL)
		row_update_parse_deletes(u, req->deletes);
	if (req->delete_all != NULL)
		u->delete_all = request_column_names(req->delete_all, "delete_all", &u->ndelete_all);
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
static void
row_update_parse_all(RowWrite *w)
{
	const RowWriteRequest *req = w->req;

	if (!w->t->allow_update)
		ots_error(PARAMETER_INVALID, "Update operation is not allowed in this table");
	row_write_check_size(w, req->put, req->increment, req->deletes);
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
static RowChange
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
	*cells = row_write_finish(b, w->t, oldest_ts);
	return ROW_CHANGE_STORE;
}

/*
 * row_update_account: the key, the cells put and incremented, the column
 * names deleted; the key read when conditions were checked or cells
 * incremented
 */
static int
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

/* row_delete_parse: delete_row's conditions and their rules */
static void
row_delete_parse(RowWrite *w)
{
	row_write_check_size(w, NULL, NULL, NULL);
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
 * row_write validates a write request in Tablestore's order, applies it by
 * compare-and-swap and counts it in the table's statistics.
 */
void
row_write(const RowWriteRequest *req, RowResult *res)
{
	const RowWriteOp *op = &row_write_ops[req->kind];
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

struct varlena *
row_write_new_row_cells(const OtsTable *t, Jsonb *attributes, int64 now_ms, int64 *oldest_ts,
						uint32 *size)
{
	int			count;
	CellInput  *parsed = codec_parse_attributes(attributes, &count);

	row_write_check_timestamps(t, now_ms, parsed, count);
	defined_check_cells(t, parsed, count);
	*size = row_write_cells_size(parsed, count);
	return row_write_put_cells(t, parsed, count, now_ms, oldest_ts);
}

/*
 * row_put_new_many validates every row as row_write validates a PutRow
 * with condition EXPECT_NOT_EXIST (same checks in the same order, same
 * capacity units and statistics), then tries them all as new rows in bulk,
 * straight into their leaves as COPY inserts (rowstore_insert_new_many).
 * When one of them exists, live or not, that attempt is undone and the
 * rows go one by one through row_write, which decides each (a live row is
 * the unique violation, an expired one is replaced).  A table that
 * generates keys, or an index, goes row by row from the start.
 */
void
row_put_new_many(Oid view_oid, int n, Jsonb **primary_keys, Jsonb **attributes)
{
	OtsTable   *t = catalog_lookup_view(view_oid);
	int64		now_ms = visibility_now_ms();
	int			nkeys;
	Datum	   *keys[OTS_MAX_KEY_COLUMNS + 1];
	Datum	   *cells;
	Datum	   *oldest;
	int64		read_cu = 0;
	int64		write_cu = 0;
	MemoryContext rowctx;
	MemoryContext callerctx = CurrentMemoryContext;

	if (n > 1 && t->auto_increment_col < 0 && !t->is_index)
	{
		rowstore_check_privileges(t, row_write_ops[ROW_WRITE_PUT].mode | ACL_SELECT);
		rowstore_check_writable(row_write_ops[ROW_WRITE_PUT].operation);
		nkeys = storage_nkeys(t);
		for (int k = 0; k < nkeys; k++)
			keys[k] = palloc(sizeof(Datum) * n);
		cells = palloc(sizeof(Datum) * n);
		oldest = palloc(sizeof(Datum) * n);
		/* each row's parsing garbage goes when the row is done */
		rowctx = AllocSetContextCreate(CurrentMemoryContext, "ots new rows", ALLOCSET_DEFAULT_SIZES);
		for (int i = 0; i < n; i++)
		{
			PkInput		pk;
			uint32		pk_size;
			uint32		cells_size;
			int64		oldest_ts;
			struct varlena *built;

			CHECK_FOR_INTERRUPTS();
			MemoryContextSwitchTo(rowctx);
			codec_parse_pk(t, primary_keys[i], 0, &pk);
			pk_size = codec_pk_size(t, &pk);
			request_check_data_size(row_write_ops[ROW_WRITE_PUT].request,
									codec_pk_data_size(&primary_keys[i]->root) +
									codec_cells_data_size(&attributes[i]->root, true, false));
			built = row_write_new_row_cells(t, attributes[i], now_ms, &oldest_ts, &cells_size);
			write_cu += request_cu(pk_size + cells_size);
			read_cu += request_cu(pk_size);
			MemoryContextSwitchTo(callerctx);
			cells[i] = PointerGetDatum(palloc(VARSIZE(built)));
			memcpy(DatumGetPointer(cells[i]), built, VARSIZE(built));
			oldest[i] = Int64GetDatum(oldest_ts);
			storage_key_row(t, &pk, keys, i);
			MemoryContextReset(rowctx);
		}
		MemoryContextDelete(rowctx);
		if (rowstore_insert_new_many(t, n, keys, cells, oldest))
		{
			stats_count(t, 0, n, read_cu, write_cu);
			return;
		}
	}
	for (int i = 0; i < n; i++)
	{
		RowWriteRequest req = {.kind = ROW_WRITE_PUT};
		RowResult	res;

		CHECK_FOR_INTERRUPTS();
		req.view_oid = view_oid;
		req.primary_key = primary_keys[i];
		req.attributes = attributes[i];
		req.condition = "EXPECT_NOT_EXIST";
		req.on_existing = ROW_EXISTING_UNIQUE;
		row_write(&req, &res);
	}
}
