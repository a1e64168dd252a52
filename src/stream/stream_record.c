/*-------------------------------------------------------------------------
 * src/stream/stream_record.c
 *	  A stream record's format: how the write point makes one, and how a
 *	  reader returns it in Tablestore's shape.
 *
 * A record as returned is {"action_type", "primary_key", "columns": [column
 * operations][, "original_columns"]}.  As stored, a PUT_ROW keeps the row's cells instead of its
 * operations, {"action_type", "primary_key", "$cells": <the ots.cells
 * value, base64>}: every cell of the new row is a put, so the operations
 * are the cells, and a writer need not spell them out (most records are
 * PutRows, and a reader has time to spare); the reader makes them from the
 * cells, checked first, as ots.cells's input checks them.  Other records
 * are stored as returned.
 *
 * A table whose stream has original columns (Tablestore's
 * OriginColumnsToGet) adds "original_columns" to the record of a change of
 * a row that existed: the newest visible version of each such column
 * before the change, as puts ({"name", "type": "PUT", "value",
 * "timestamp"}), by name; none when the row had none of them.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/base64.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "format/cells.h"
#include "format/codec.h"
#include "format/names.h"
#include "format/visibility.h"
#include "stream/stream.h"
#include "stream/stream_record.h"

/* stream_action_name: Tablestore's name of an action */
const char *
stream_action_name(StreamAction action)
{
	switch (action)
	{
		case STREAM_PUT_ROW:
			return "PUT_ROW";
		case STREAM_UPDATE_ROW:
			return "UPDATE_ROW";
		case STREAM_DELETE_ROW:
			return "DELETE_ROW";
	}
	return "?";
}

/* a record's column operations being collected, as jsonb values */
typedef struct StreamColumns
{
	JsonbValue *ops;
	int			n;
	int			size;
} StreamColumns;

/* stream_string: a jsonb string value of s (not copied) */
static JsonbValue
stream_string(const char *s, uint32 len)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) s;
	v.val.string.len = len;
	return v;
}

/* stream_pair sets a pair of an object being built */
static void
stream_pair(JsonbPair *pair, const char *key, JsonbValue value)
{
	pair->key = stream_string(key, strlen(key));
	pair->value = value;
	pair->order = 0;
}

/*
 * stream_push_op adds one column operation: {"name", "type", and for a put
 * "value" and "timestamp", for a deleted version "timestamp"}, built as a
 * jsonb value directly, its keys in jsonb's order
 */
static void
stream_push_op(StreamColumns *c, const char *name, uint32 namelen, const char *type,
			   const int64 *ts, const OtsValue *value)
{
	JsonbPair  *pairs = palloc(sizeof(JsonbPair) * 4);
	int			n = 0;

	if (c->n == c->size)
	{
		c->size = Max(8, c->size * 2);
		c->ops = c->ops == NULL ? palloc(sizeof(JsonbValue) * c->size) :
			repalloc(c->ops, sizeof(JsonbValue) * c->size);
	}
	stream_pair(&pairs[n++], "name", stream_string(name, namelen));
	stream_pair(&pairs[n++], "type", stream_string(type, strlen(type)));
	if (value != NULL)
	{
		JsonbValue	v;

		codec_jsonb_value(value, &v);
		stream_pair(&pairs[n++], "value", v);
	}
	if (ts != NULL)
	{
		JsonbValue	v;

		v.type = jbvNumeric;
		v.val.numeric = int64_to_numeric(*ts);
		stream_pair(&pairs[n++], "timestamp", v);
	}
	c->ops[c->n].type = jbvObject;
	c->ops[c->n].val.object.nPairs = n;
	c->ops[c->n].val.object.pairs = pairs;
	c->n++;
}

#define OP_PUT			"PUT"
#define OP_DELETE_ONE	"DELETE_ONE_VERSION"
#define OP_DELETE_ALL	"DELETE_ALL_VERSIONS"

/* stream_push_row_puts appends a put of every cell of a row */
static void
stream_push_row_puts(StreamColumns *c, const CellsReader *r)
{
	for (uint32 i = 0; i < r->ncols; i++)
	{
		CellsColumn col;
		int64		ts;
		OtsValue	v;

		cells_column_at(r, i, &col);
		while (cells_column_next(&col, &ts, &v))
			stream_push_op(c, col.name, col.namelen, OP_PUT, &ts, &v);
	}
}

/*
 * stream_push_update_ops appends an UpdateRow's operations as written;
 * an increment is the put of the value it left in the new row
 */
static void
stream_push_update_ops(StreamColumns *cols, const StreamUpdateOps *ops,
					   const CellsReader *after)
{
	for (int i = 0; i < ops->ndelete_all; i++)
		stream_push_op(cols, ops->delete_all[i], strlen(ops->delete_all[i]), OP_DELETE_ALL,
					   NULL, NULL);
	for (int i = 0; i < ops->ndeletes; i++)
		stream_push_op(cols, ops->deletes[i].name, ops->deletes[i].namelen, OP_DELETE_ONE,
					   &ops->deletes[i].ts, NULL);
	for (int i = 0; i < ops->nputs; i++)
	{
		const CellInput *c = &ops->puts[i];
		int64		ts = c->has_ts ? c->ts : ops->stamp;

		stream_push_op(cols, c->name, c->namelen, OP_PUT, &ts, &c->value);
	}
	for (int i = 0; i < ops->nincrements; i++)
	{
		const CellInput *c = &ops->increments[i];
		CellsColumn col;
		int64		ts;
		OtsValue	v;

		if (after != NULL && cells_find_column(after, c->name, c->namelen, &col) &&
			cells_column_next(&col, &ts, &v))
			stream_push_op(cols, c->name, c->namelen, OP_PUT, &ts, &v);
	}
}

/* stream_cell_in: does column col (opened afresh) hold a cell at ts, and with that value? */
static bool
stream_cell_in(const CellsReader *r, const CellsColumn *col, int64 ts, const OtsValue *value,
			   bool *same_value)
{
	CellsColumn c = *col;
	int64		cts;
	OtsValue	cv;

	while (cells_column_next(&c, &cts, &cv))
		if (cts == ts)
		{
			*same_value = cv.type == value->type && ots_value_compare(&cv, value) == 0;
			return true;
		}
	return false;
}

/*
 * stream_push_diff appends the operations that turn row before into row
 * after, in UpdateRow's order: columns gone (delete all versions), cells
 * gone (delete one version), cells new or changed (put)
 */
static void
stream_push_diff(StreamColumns *c, const CellsReader *before, const CellsReader *after)
{
	for (int pass = 0; pass < 3; pass++)
	{
		const CellsReader *from = pass < 2 ? before : after;
		const CellsReader *other = pass < 2 ? after : before;

		for (uint32 i = 0; i < from->ncols; i++)
		{
			CellsColumn col;
			CellsColumn ocol;
			bool		in_other;
			int64		ts;
			OtsValue	v;

			cells_column_at(from, i, &col);
			in_other = cells_find_column(other, col.name, col.namelen, &ocol);
			if (pass == 0)
			{
				if (!in_other)
					stream_push_op(c, col.name, col.namelen, OP_DELETE_ALL, NULL, NULL);
				continue;
			}
			if (pass == 1 && !in_other)
				continue;		/* the whole column went in pass 0 */
			while (cells_column_next(&col, &ts, &v))
			{
				bool		same = false;
				bool		found = in_other && stream_cell_in(other, &ocol, ts, &v, &same);

				if (pass == 1 && !found)
					stream_push_op(c, col.name, col.namelen, OP_DELETE_ONE, &ts, NULL);
				else if (pass == 2 && (!found || !same))
					stream_push_op(c, col.name, col.namelen, OP_PUT, &ts, &v);
			}
		}
	}
}

/* a column operation and where it was pushed, for a stable sort by name */
typedef struct StreamOpAt
{
	JsonbValue	op;
	int			at;
} StreamOpAt;

static int
stream_op_cmp(const void *a, const void *b)
{
	const StreamOpAt *x = a;
	const StreamOpAt *y = b;
	const JsonbValue *xn = &x->op.val.object.pairs[0].value;
	const JsonbValue *yn = &y->op.val.object.pairs[0].value;
	int			cmp = cells_name_cmp(xn->val.string.val, xn->val.string.len,
									 yn->val.string.val, yn->val.string.len);

	return cmp != 0 ? cmp : x->at - y->at;
}

/*
 * stream_sort_ops orders an UPDATE_ROW's operations by column name, as a
 * row keeps its columns (cells_name_cmp) and a PUT_ROW lists them; a
 * column's own operations stay in the order they apply
 */
static void
stream_sort_ops(StreamColumns *c)
{
	StreamOpAt *at;

	if (c->n < 2)
		return;
	at = palloc(sizeof(StreamOpAt) * c->n);
	for (int i = 0; i < c->n; i++)
	{
		at[i].op = c->ops[i];
		at[i].at = i;
	}
	qsort(at, c->n, sizeof(StreamOpAt), stream_op_cmp);
	for (int i = 0; i < c->n; i++)
		c->ops[i] = at[i].op;
	pfree(at);
}

/* stream_cells_base64: the cells' payload as base64 text */
static JsonbValue
stream_cells_base64(const struct varlena *cells)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = codec_base64(VARDATA_ANY(cells), VARSIZE_ANY_EXHDR(cells), &v.val.string.len);
	return v;
}

/*
 * stream_push_original appends the newest visible version of each of t's
 * original columns in row before (already sorted by name)
 */
static void
stream_push_original(StreamColumns *c, const OtsTable *t, const CellsReader *before)
{
	Visibility	sel;

	visibility_init(&sel, t, visibility_now_ms());
	for (int i = 0; i < t->stream_noriginal; i++)
	{
		uint32		len;
		const char *name = catalog_original_name(t, i, &len);
		CellsColumn col;
		SelectedCells sc;
		int64		ts;
		OtsValue	v;

		if (!cells_find_column(before, name, len, &col))
			continue;
		visibility_table_begin(&sc, &sel, &col);
		if (visibility_column_next(&sc, &ts, &v))
			stream_push_op(c, name, len, OP_PUT, &ts, &v);
	}
}

Jsonb *
stream_record_make(const OtsTable *t, const PkInput *pk, StreamAction action,
				   const StreamUpdateOps *ops, const CellsReader *before,
				   const CellsReader *original_from, const CellsReader *after,
				   const struct varlena *new_cells, bool as_stored)
{
	StreamColumns cols = {0};
	StreamColumns original = {0};
	JsonbPair	pairs[4];
	JsonbPair	key_pairs[OTS_MAX_KEY_COLUMNS];
	JsonbValue	record;
	JsonbValue	v;
	const char *action_name = stream_action_name(action);
	bool		cells = as_stored && action == STREAM_PUT_ROW;

	if (cells)
		;						/* the cells are the operations */
	else if (action == STREAM_PUT_ROW)
		stream_push_row_puts(&cols, after);
	else if (action == STREAM_UPDATE_ROW && ops != NULL)
		stream_push_update_ops(&cols, ops, after);
	else if (action == STREAM_UPDATE_ROW)
		stream_push_diff(&cols, before != NULL ? before : after, after);
	if (action == STREAM_UPDATE_ROW)
		stream_sort_ops(&cols);
	if (original_from != NULL && t->stream_noriginal > 0)
		stream_push_original(&original, t, original_from);

	/* the key's columns in jsonb's key order: shorter names first, then bytewise */
	for (int k = 0; k < t->npk; k++)
	{
		int			j = k;

		codec_jsonb_value(&pk->v[k], &v);
		while (j > 0 && (key_pairs[j - 1].key.val.string.len > t->pk[k].namelen ||
						 (key_pairs[j - 1].key.val.string.len == t->pk[k].namelen &&
						  memcmp(key_pairs[j - 1].key.val.string.val, t->pk[k].name,
								 t->pk[k].namelen) > 0)))
		{
			key_pairs[j] = key_pairs[j - 1];
			j--;
		}
		key_pairs[j].key = stream_string(t->pk[k].name, t->pk[k].namelen);
		key_pairs[j].value = v;
		key_pairs[j].order = 0;
	}

	/*
	 * {"columns" or "$cells", "action_type", "primary_key"[,
	 * "original_columns"]}: jsonb's key order
	 */
	if (cells)
		stream_pair(&pairs[0], STREAM_RECORD_CELLS, stream_cells_base64(new_cells));
	else
	{
		v.type = jbvArray;
		v.val.array.nElems = cols.n;
		v.val.array.elems = cols.ops;
		v.val.array.rawScalar = false;
		stream_pair(&pairs[0], "columns", v);
	}
	stream_pair(&pairs[1], "action_type", stream_string(action_name, strlen(action_name)));
	v.type = jbvObject;
	v.val.object.nPairs = t->npk;
	v.val.object.pairs = key_pairs;
	stream_pair(&pairs[2], "primary_key", v);
	if (original.n > 0)
	{
		v.type = jbvArray;
		v.val.array.nElems = original.n;
		v.val.array.elems = original.ops;
		v.val.array.rawScalar = false;
		stream_pair(&pairs[3], STREAM_RECORD_ORIGINAL, v);
	}
	record.type = jbvObject;
	record.val.object.nPairs = original.n > 0 ? 4 : 3;
	record.val.object.pairs = pairs;
	return JsonbValueToJsonb(&record);
}


/*
 * stream_record_columns: the column operations of a stored PUT_ROW, from
 * its cells (checked: a stream's relations are their owner's to change)
 */
static Jsonb *
stream_record_columns(const JsonbValue *cells_text)
{
	int			maxlen = pg_b64_dec_len(cells_text->val.string.len);
	struct varlena *cells = palloc(VARHDRSZ + maxlen);
	int			len = pg_b64_decode(cells_text->val.string.val, cells_text->val.string.len,
									VARDATA(cells), maxlen);
	StreamColumns cols = {0};
	CellsReader r;
	JsonbValue	v;

	if (len < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a record of an ots stream has cells that are not base64")));
	SET_VARSIZE(cells, VARHDRSZ + len);
	cells_validate((const uint8 *) VARDATA(cells), len);
	cells_reader_init(&r, cells);
	stream_push_row_puts(&cols, &r);
	v.type = jbvArray;
	v.val.array.nElems = cols.n;
	v.val.array.elems = cols.ops;
	v.val.array.rawScalar = false;
	return JsonbValueToJsonb(&v);
}

Size
stream_record_push(JsonbParseState **state, JsonbContainer *record)
{
	static const char *const keys[] = {"action_type", "primary_key", "columns"};
	Size		size = 0;
	JsonbValue *original;

	for (int k = 0; k < lengthof(keys); k++)
	{
		JsonbValue *v = getKeyJsonValueFromContainer(record, keys[k], strlen(keys[k]), NULL);
		JsonbValue	key;
		JsonbValue	columns;

		if (v == NULL && k == 2)
		{
			JsonbValue *cells = getKeyJsonValueFromContainer(record, STREAM_RECORD_CELLS,
															 strlen(STREAM_RECORD_CELLS), NULL);

			if (cells != NULL && cells->type == jbvString)
			{
				Jsonb	   *made = stream_record_columns(cells);

				columns.type = jbvBinary;
				columns.val.binary.data = &made->root;
				columns.val.binary.len = VARSIZE(made) - VARHDRSZ;
				v = &columns;
			}
		}
		if (v == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("a record of an ots stream has no \"%s\"", keys[k])));
		key.type = jbvString;
		key.val.string.val = (char *) keys[k];
		key.val.string.len = strlen(keys[k]);
		pushJsonbValue(state, WJB_KEY, &key);
		pushJsonbValue(state, WJB_VALUE, v);
		size += keys[k][0] == 'a' ? 16 : v->type == jbvBinary ? v->val.binary.len : 8;
	}
	original = getKeyJsonValueFromContainer(record, STREAM_RECORD_ORIGINAL,
											strlen(STREAM_RECORD_ORIGINAL), NULL);
	if (original != NULL)
	{
		JsonbValue	key;

		key.type = jbvString;
		key.val.string.val = STREAM_RECORD_ORIGINAL;
		key.val.string.len = strlen(STREAM_RECORD_ORIGINAL);
		pushJsonbValue(state, WJB_KEY, &key);
		pushJsonbValue(state, WJB_VALUE, original);
		size += original->type == jbvBinary ? original->val.binary.len : 8;
	}
	return size;
}

/* stream_record_corrupted raises the error of a record that is not as stored */
static void
stream_record_corrupted(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("a record of an ots stream %s", what)));
}

/* stream_record_field: field name of a record or operation (a JsonbValue), or NULL */
static JsonbValue *
stream_record_field(JsonbContainer *c, const char *name)
{
	return getKeyJsonValueFromContainer(c, name, strlen(name), NULL);
}

/* stream_record_is: is v the string s? */
static bool
stream_record_is(const JsonbValue *v, const char *s)
{
	return v != NULL && v->type == jbvString && v->val.string.len == strlen(s) &&
		memcmp(v->val.string.val, s, v->val.string.len) == 0;
}

/*
 * stream_record_check_op checks one column operation of a record: {"name",
 * "type"} and, for a put, "value" and "timestamp", for a deleted version
 * "timestamp"; only puts in a PUT_ROW
 */
static void
stream_record_check_op(const JsonbValue *op, bool put_row)
{
	JsonbContainer *c;
	JsonbValue *name;
	JsonbValue *type;
	JsonbValue *value;
	JsonbValue *ts;
	int			fields = 2;
	char	   *column;

	if (op->type != jbvBinary || !JsonContainerIsObject(op->val.binary.data))
		stream_record_corrupted("has a column operation that is not an object");
	c = op->val.binary.data;
	name = stream_record_field(c, "name");
	type = stream_record_field(c, "type");
	value = stream_record_field(c, "value");
	ts = stream_record_field(c, "timestamp");
	if (name == NULL || name->type != jbvString)
		stream_record_corrupted("has a column operation without a \"name\"");
	names_check_column(name->val.string.val, name->val.string.len);
	column = pnstrdup(name->val.string.val, name->val.string.len);
	if (stream_record_is(type, OP_PUT))
	{
		OtsValue	v;

		if (value == NULL || ts == NULL)
			stream_record_corrupted("has a put without its \"value\" and \"timestamp\"");
		codec_read_value(value, &v, column);
		fields += 2;
	}
	else if (stream_record_is(type, OP_DELETE_ONE) && !put_row)
	{
		if (ts == NULL || value != NULL)
			stream_record_corrupted("has a deleted version without its \"timestamp\" alone");
		fields++;
	}
	else if (!stream_record_is(type, OP_DELETE_ALL) || put_row)
		stream_record_corrupted(put_row ? "of a PUT_ROW has an operation other than a put"
								: "has a column operation of an unknown \"type\"");
	if (ts != NULL)
		(void) codec_parse_timestamp(ts);
	if (JsonContainerSize(c) != fields)
		stream_record_corrupted("has a column operation with other fields");
}

void
stream_record_check(const OtsTable *t, Jsonb *record, PkInput *pk)
{
	JsonbValue *action;
	JsonbValue *key;
	JsonbValue *columns;
	JsonbValue *cells;
	JsonbValue *original;
	bool		put_row;

	if (!JB_ROOT_IS_OBJECT(record) || JB_ROOT_IS_SCALAR(record))
		stream_record_corrupted("is not an object");
	action = stream_record_field(&record->root, "action_type");
	key = stream_record_field(&record->root, "primary_key");
	columns = stream_record_field(&record->root, "columns");
	cells = stream_record_field(&record->root, STREAM_RECORD_CELLS);
	original = stream_record_field(&record->root, STREAM_RECORD_ORIGINAL);
	put_row = stream_record_is(action, stream_action_name(STREAM_PUT_ROW));
	if (!put_row && !stream_record_is(action, stream_action_name(STREAM_UPDATE_ROW)) &&
		!stream_record_is(action, stream_action_name(STREAM_DELETE_ROW)))
		stream_record_corrupted("has no \"action_type\" PUT_ROW, UPDATE_ROW or DELETE_ROW");
	if (key == NULL || key->type != jbvBinary)
		stream_record_corrupted("has no \"primary_key\" object");
	codec_parse_pk(t, JsonbValueToJsonb(key), 0, pk);
	if (JB_ROOT_COUNT(record) != (original != NULL ? 4 : 3) || (columns == NULL) == (cells == NULL))
		stream_record_corrupted("has other fields than \"action_type\", \"primary_key\", \"columns\" (or a PUT_ROW's \"" STREAM_RECORD_CELLS "\") and \"" STREAM_RECORD_ORIGINAL "\"");
	if (original != NULL)
	{
		if (original->type != jbvBinary || !JsonContainerIsArray(original->val.binary.data) ||
			JsonContainerSize(original->val.binary.data) == 0)
			stream_record_corrupted("has \"" STREAM_RECORD_ORIGINAL "\" that are not a non-empty array");
		for (uint32 i = 0; i < JsonContainerSize(original->val.binary.data); i++)
			stream_record_check_op(getIthJsonbValueFromContainer(original->val.binary.data, i), true);
	}
	if (cells != NULL)
	{
		if (!put_row || cells->type != jbvString)
			stream_record_corrupted("has \"" STREAM_RECORD_CELLS "\" but is no PUT_ROW of them");
		(void) stream_record_columns(cells);
		return;
	}
	if (columns->type != jbvBinary || !JsonContainerIsArray(columns->val.binary.data))
		stream_record_corrupted("has \"columns\" that are not an array");
	if (stream_record_is(action, stream_action_name(STREAM_DELETE_ROW)) &&
		JsonContainerSize(columns->val.binary.data) != 0)
		stream_record_corrupted("of a DELETE_ROW has column operations");
	for (uint32 i = 0; i < JsonContainerSize(columns->val.binary.data); i++)
	{
		JsonbValue *op = getIthJsonbValueFromContainer(columns->val.binary.data, i);

		stream_record_check_op(op, put_row);
	}
}
