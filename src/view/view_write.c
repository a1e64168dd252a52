/*-------------------------------------------------------------------------
 * src/view/view_write.c
 *	  INSERT, UPDATE, DELETE and COPY on an ots table's view: each row of
 *	  the statement becomes one write of the row API (row_write), with its
 *	  semantics, limits, timestamps, capacity units, privileges and
 *	  row-level security.
 *
 * Every view has the INSTEAD OF row trigger "ots_write" on ots.view_write()
 * (made by ots.sync_table_view).  The trigger maps the view's columns by
 * name: primary key columns, the attributes jsonb (in the API's value
 * encoding) and one typed column per defined column.
 *	 - INSERT is a PutRow with condition EXPECT_NOT_EXIST of the typed
 *	   columns given (not NULL) and the attributes map; an existing row is a
 *	   unique violation (23505) with Tablestore's message.  With ON CONFLICT
 *	   DO NOTHING an existing row is left alone; with ON CONFLICT (key) DO
 *	   UPDATE SET c = EXCLUDED.c, ... the listed columns are merged into it
 *	   (an UpdateRow: Lindorm's UPSERT), and a new row is put whole.
 *	 - UPDATE is an UpdateRow of the columns it changes (the trigger sees
 *	   the old and new rows, not the SET list): a typed column put, or
 *	   deleted (all versions) when set to NULL; attributes compared with the
 *	   row's: changed and new keys put, missing keys deleted.  A key column
 *	   cannot change.  The rows come locked (view_plan.c), so a concurrent
 *	   writer is waited for and the WHERE checked again, as on a table.
 *	 - DELETE is a DeleteRow.
 * The key and the typed columns go to the row API as values (RowWriteRequest's
 * key and typed cells), the attributes map as the jsonb it is.  A row
 * returned (RETURNING) is the row as the write left it (RowResult's row):
 * the row as it now is.  COPY FROM runs the INSERT trigger per row, which hands the rows
 * to the row API's batch path (view_copy.c).  What the trigger cannot see
 * of its statement (ON CONFLICT, RETURNING) it learns from the executor
 * (view_statement.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/plannodes.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "cache.h"
#include "meta/catalog.h"
#include "format/cells.h"
#include "format/codec.h"
#include "errors.h"
#include "preload.h"
#include "api/read_select.h"
#include "store/routing.h"
#include "api/row_ops.h"
#include "api/row_read.h"
#include "store/rowstore.h"
#include "view/view_write.h"

PG_FUNCTION_INFO_V1(ots_view_write);

/* what a column of a view is to the trigger */
typedef enum ViewColumnKind
{
	VIEW_COLUMN_KEY,			/* primary key column pk[index] */
	VIEW_COLUMN_ATTRIBUTES,		/* the attributes jsonb */
	VIEW_COLUMN_DEFINED,		/* typed column of a defined column */
	VIEW_COLUMN_UNKNOWN
} ViewColumnKind;

typedef struct ViewColumn
{
	ViewColumnKind kind;
	int			index;			/* VIEW_COLUMN_KEY: the key column */
	OtsValueType type;			/* VIEW_COLUMN_DEFINED */
	const char *name;
	uint32		namelen;
} ViewColumn;

/*
 * a view's columns, kept per view for the backend's life: looked up again
 * when its table or the view changes (an invalidation of either)
 */
typedef struct ViewWriter
{
	Oid			view_oid;		/* hash key */
	bool		valid;			/* cleared by an invalidation of the view */
	MemoryContext context;		/* what the entry points to */
	OtsTable   *table;
	int			natts;
	int			attributes_attno;	/* 0: none */
	ViewColumn *cols;			/* by attribute number - 1 */
	int		   *defined;		/* the typed columns (attribute number - 1), in jsonb's key order */
	int			ndefined;
} ViewWriter;

static void
view_write_stale(void *entry)
{
	((ViewWriter *) entry)->valid = false;
}

static OtsCache view_writers = {
	.name = "ots view writers",
	.keysize = sizeof(Oid),
	.entrysize = sizeof(ViewWriter),
	.stale = view_write_stale,
};

/* view_write_writer: the view's columns, looked up again when its table or it changed */
static ViewWriter *
view_write_writer(Relation view)
{
	Oid			view_oid = RelationGetRelid(view);
	TupleDesc	desc = RelationGetDescr(view);
	bool		found;
	ViewWriter *w = cache_lookup(&view_writers, &view_oid, &found);
	MemoryContext old;
	OtsTable   *t;

	if (found && w->valid && w->table->valid && w->table->view_oid == view_oid &&
		w->natts == desc->natts)
		return w;
	if (!found)
		w->context = NULL;
	w->valid = false;
	t = catalog_lookup_by_view_oid(view_oid);
	if (t == NULL)
		ots_error(OBJECT_NOT_EXIST, "Requested table does not exist.");
	if (w->context == NULL)
		w->context = AllocSetContextCreate(CacheMemoryContext, "ots view writer",
										   ALLOCSET_SMALL_SIZES);
	else
		MemoryContextReset(w->context);
	old = MemoryContextSwitchTo(w->context);
	w->table = t;
	w->natts = desc->natts;
	w->attributes_attno = 0;
	w->cols = palloc0(sizeof(ViewColumn) * desc->natts);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		ViewColumn *c = &w->cols[i];
		const OtsDefinedColumn *def;

		c->name = pstrdup(NameStr(att->attname));
		c->namelen = strlen(c->name);
		c->kind = VIEW_COLUMN_UNKNOWN;
		if (att->attisdropped)
			continue;
		for (int k = 0; k < t->npk; k++)
			if (strcmp(t->pk[k].name, c->name) == 0)
			{
				c->kind = VIEW_COLUMN_KEY;
				c->index = k;
			}
		if (c->kind != VIEW_COLUMN_UNKNOWN)
			continue;
		def = catalog_defined_column(t, c->name, c->namelen);
		if (def != NULL && att->atttypid == row_read_value_sql_type(def->type))
		{
			c->kind = VIEW_COLUMN_DEFINED;
			c->type = def->type;
		}
		else if (i == t->npk && att->atttypid == JSONBOID)
		{
			c->kind = VIEW_COLUMN_ATTRIBUTES;
			w->attributes_attno = i + 1;
		}
	}
	w->defined = palloc(sizeof(int) * desc->natts);
	w->ndefined = 0;
	for (int i = 0; i < desc->natts; i++)
		if (w->cols[i].kind == VIEW_COLUMN_DEFINED)
		{
			int			k = w->ndefined++;

			/* insertion in codec_key_cmp's order: a handful of columns */
			while (k > 0 && codec_key_cmp(w->cols[w->defined[k - 1]].name,
										  w->cols[w->defined[k - 1]].namelen,
										  w->cols[i].name, w->cols[i].namelen) > 0)
			{
				w->defined[k] = w->defined[k - 1];
				k--;
			}
			w->defined[k] = i;
		}
	MemoryContextSwitchTo(old);
	w->valid = true;
	return w;
}

/* view_write_value: a typed column's datum as the value it writes */
static void
view_write_value(Datum d, OtsValueType type, OtsValue *v)
{
	v->type = type;
	switch (type)
	{
		case OTS_VT_STRING:
		case OTS_VT_BINARY:
			{
				struct varlena *p = PG_DETOAST_DATUM_PACKED(d);

				v->u.s.data = VARDATA_ANY(p);
				v->u.s.len = VARSIZE_ANY_EXHDR(p);
				break;
			}
		case OTS_VT_INTEGER:
			v->u.i = DatumGetInt64(d);
			break;
		case OTS_VT_DOUBLE:
			v->u.d = DatumGetFloat8(d);
			codec_check_double(v->u.d);
			break;
		case OTS_VT_BOOLEAN:
			v->u.b = DatumGetBool(d);
			break;
	}
}

/*
 * view_write_key: the row's primary key from the view row, as values; a
 * NULL AUTO_INCREMENT column asks for a generated value, another NULL key
 * column is left out (key->n counts those given: the row API reports one
 * missing)
 */
static void
view_write_key(ViewWriter *w, TupleTableSlot *slot, PkInput *key, bool *auto_increment)
{
	*auto_increment = false;
	key->n = 0;
	for (int i = 0; i < w->natts; i++)
	{
		ViewColumn *c = &w->cols[i];
		bool		isnull;
		Datum		d;

		if (c->kind != VIEW_COLUMN_KEY)
			continue;
		d = slot_getattr(slot, i + 1, &isnull);
		if (isnull)
		{
			if (c->index != w->table->auto_increment_col)
				continue;
			key->special[c->index] = PK_AUTO_INCREMENT;
			*auto_increment = true;
		}
		else
		{
			key->special[c->index] = PK_VALUE;
			view_write_value(d, w->table->pk[c->index].type, &key->v[c->index]);
		}
		key->n++;
	}
}

/* view_write_twice: a column given both as a typed column and in attributes */
static void
view_write_twice(const char *name)
{
	ots_parameter_invalid(psprintf("Column '%s' is given twice.", name),
						  "A defined column is written through its typed column or through attributes, not both.");
}

/* view_write_attributes_object: the attributes column's value, which must be an object */
static Jsonb *
view_write_attributes_object(Datum d)
{
	Jsonb	   *attrs = DatumGetJsonbP(d);

	if (!JB_ROOT_IS_OBJECT(attrs))
		ots_parameter_invalid("Invalid attribute columns.",
							  "The attributes column of an ots table's view is a jsonb object: {\"column\": value, ...}.");
	return attrs;
}

/*
 * view_write_typed_cells: the cells of the typed columns marked in given
 * (by attribute number - 1), their values in values, in jsonb's key order
 * (RowWriteRequest's typed cells)
 */
static CellInput *
view_write_typed_cells(ViewWriter *w, const bool *given, const OtsValue *values, int *n)
{
	CellInput  *cells = palloc(sizeof(CellInput) * Max(w->ndefined, 1));

	*n = 0;
	for (int k = 0; k < w->ndefined; k++)
	{
		int			i = w->defined[k];
		CellInput  *cell;

		if (!given[i])
			continue;
		cell = &cells[(*n)++];
		cell->name = w->cols[i].name;
		cell->namelen = w->cols[i].namelen;
		cell->has_ts = false;
		cell->ts = 0;
		cell->value = values[i];
		/* -0.0 is 0.0, as in the API's jsonb: a number has no negative zero */
		if (cell->value.type == OTS_VT_DOUBLE && cell->value.u.d == 0.0)
			cell->value.u.d = 0.0;
	}
	return cells;
}

/*
 * view_write_new_cells: the cells of an INSERT, or of the columns
 * ON CONFLICT DO UPDATE merges (only: a list of attribute numbers, NIL for
 * all): the typed columns given, as *cells (view_write_typed_cells), and
 * the attributes map, returned (NULL: none); deletions (typed columns
 * given NULL) go to *delete_all when it is not NULL.
 */
static Jsonb *
view_write_new_cells(ViewWriter *w, TupleTableSlot *slot, List *only, List **delete_all,
					 CellInput **cells, int *ncells)
{
	bool	   *given = palloc0(sizeof(bool) * w->natts);
	OtsValue   *values = palloc(sizeof(OtsValue) * w->natts);
	Jsonb	   *attrs = NULL;
	bool		isnull;
	Datum		d;

	for (int i = 0; i < w->natts; i++)
	{
		ViewColumn *c = &w->cols[i];

		if (c->kind != VIEW_COLUMN_DEFINED || (only != NIL && !list_member_int(only, i + 1)))
			continue;
		d = slot_getattr(slot, i + 1, &isnull);
		if (isnull)
		{
			if (delete_all != NULL)
				*delete_all = lappend(*delete_all, (void *) c->name);
			continue;
		}
		view_write_value(d, c->type, &values[i]);
		given[i] = true;
	}
	if (w->attributes_attno > 0 && (only == NIL || list_member_int(only, w->attributes_attno)))
	{
		d = slot_getattr(slot, w->attributes_attno, &isnull);
		if (!isnull)
		{
			JsonbIterator *it;
			JsonbValue	key;
			JsonbValue	val;
			JsonbIteratorToken tok;

			attrs = view_write_attributes_object(d);
			it = JsonbIteratorInit(&attrs->root);
			while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
			{
				if (tok != WJB_KEY)
					continue;
				JsonbIteratorNext(&it, &val, true);
				for (int i = 0; i < w->natts; i++)
					if (given[i] && w->cols[i].namelen == key.val.string.len &&
						memcmp(w->cols[i].name, key.val.string.val, key.val.string.len) == 0)
						view_write_twice(w->cols[i].name);
			}
		}
	}
	*cells = view_write_typed_cells(w, given, values, ncells);
	return attrs;
}

/* view_write_names: a list of column names as an array (delete_all's names); NULL: none */
static const char **
view_write_names(List *names, int *n)
{
	const char **result;
	ListCell   *lc;

	*n = 0;
	if (names == NIL)
		return NULL;
	result = palloc(sizeof(char *) * list_length(names));
	foreach(lc, names)
		result[(*n)++] = (const char *) lfirst(lc);
	return result;
}

/*
 * view_write_result: the view row of the row as it now is, its key and
 * cells (NULL: none), as the write left them (RowResult) or as read with
 * the writing command's own changes (view_write_stored)
 */
static HeapTuple
view_write_result(ViewWriter *w, Relation view, const PkInput *key, struct varlena *cellsv)
{
	OtsTable   *t = w->table;
	TupleDesc	desc = RelationGetDescr(view);
	Datum	   *values = palloc0(sizeof(Datum) * desc->natts);
	bool	   *nulls = palloc(sizeof(bool) * desc->natts);
	CellsReader r;
	ReadSelect	sel;

	if (cellsv != NULL)
		cells_reader_init(&r, cellsv);
	select_init(&sel, t, visibility_now_ms());
	for (int i = 0; i < desc->natts; i++)
	{
		ViewColumn *c = &w->cols[i];
		OtsValue	v;

		nulls[i] = true;
		if (c->kind == VIEW_COLUMN_KEY)
		{
			values[i] = row_read_value_datum(&key->v[c->index]);
			nulls[i] = false;
		}
		else if (cellsv == NULL)
			continue;
		else if (c->kind == VIEW_COLUMN_ATTRIBUTES)
		{
			uint32		size = 0;
			int			ncols;

			values[i] = JsonbPGetDatum(select_render_attributes(&sel, &r, &size, &ncols));
			nulls[i] = false;
		}
		else if (c->kind == VIEW_COLUMN_DEFINED &&
				 select_latest(&sel, &r, c->name, c->namelen, &v) && v.type == c->type)
		{
			values[i] = row_read_value_datum(&v);
			nulls[i] = false;
		}
	}
	return heap_form_tuple(desc, values, nulls);
}

/*
 * view_write_stored: the stored cells of the row of key, read with the
 * writing command's own changes (NULL: none), for an UPDATE that wrote
 * nothing
 */
static struct varlena *
view_write_stored(ViewWriter *w, const PkInput *key)
{
	RowKey		rowkey;

	routing_key(w->table, key, &rowkey);
	return rowstore_fetch_self(&rowkey);
}

/*
 * view_write_checked: the privileges on the storage the statement checked
 * for the role writing this row (view_statement.c), which the row API does
 * not check again; none under a COPY, or for a row written as another role
 */
static AclMode
view_write_checked(const ViewStatement *vs)
{
	return vs != NULL && vs->checked_role == GetUserId() ? vs->checked : 0;
}

/* view_write_insert: INSERT (and COPY FROM) of one view row */
static HeapTuple
view_write_insert(ViewWriter *w, TriggerData *td, ViewStatement *vs)
{
	TupleTableSlot *slot = td->tg_trigslot;
	RowWriteRequest req = {.kind = ROW_WRITE_PUT};
	RowResult	res;
	PkInput		key;
	bool		auto_increment;
	List	   *delete_all = NIL;
	CellInput  *cells;
	int			ncells;

	view_write_key(w, slot, &key, &auto_increment);
	req.attributes = view_write_new_cells(w, slot, NIL, NULL, &cells, &ncells);
	/* COPY: the batch path, which holds the row's values till its batch is written */
	if (vs == NULL && view_copy_active() && !auto_increment)
	{
		view_copy_hold(w->view_oid, w->table->npk, &key, cells, ncells, req.attributes);
		return td->tg_trigtuple;
	}
	req.view_oid = w->view_oid;
	req.privileges_checked = view_write_checked(vs);
	req.key = &key;
	req.typed_cells = cells;
	req.ntyped_cells = ncells;
	/* a generated key is new: Tablestore allows no condition with it */
	req.condition = auto_increment ? "IGNORE" : "EXPECT_NOT_EXIST";
	req.keep_row = vs != NULL && vs->returning;
	req.on_existing = ROW_EXISTING_UNIQUE;
	if (vs != NULL && vs->on_conflict == ONCONFLICT_NOTHING)
		req.on_existing = ROW_EXISTING_SKIP;
	else if (vs != NULL && vs->on_conflict == ONCONFLICT_UPDATE)
	{
		CellInput  *put;
		int			nput;

		req.on_existing = ROW_EXISTING_UPDATE;
		req.put = view_write_new_cells(w, slot, vs->merge_attnos, &delete_all, &put, &nput);
		req.typed_put = put;
		req.ntyped_put = nput;
		req.delete_all_names = view_write_names(delete_all, &req.ndelete_all_names);
	}
	row_write(&req, &res);
	if (res.skipped)
		return NULL;
	if (!req.keep_row)
		return td->tg_trigtuple;
	return view_write_result(w, td->tg_relation, &res.key, res.row);
}

/*
 * view_write_jsonb_same: do two attribute values say the same cells?  As
 * text: jsonb equality takes 3 and 3.0 for one number, an Integer and a
 * Double to the row API.
 */
static bool
view_write_jsonb_same(Jsonb *a, Jsonb *b)
{
	/* the same bytes (an UPDATE that does not set attributes): the same cells */
	if (VARSIZE(a) == VARSIZE(b) && memcmp(a, b, VARSIZE(a)) == 0)
		return true;
	return strcmp(JsonbToCString(NULL, &a->root, VARSIZE(a)),
				  JsonbToCString(NULL, &b->root, VARSIZE(b))) == 0;
}

/*
 * view_write_changed: does the UPDATE change view column attno (NEW
 * distinct from OLD)?  An INSTEAD OF trigger is not told which columns SET
 * named, so a column SET to its own value is left as it is.
 */
static bool
view_write_changed(ViewWriter *w, TupleTableSlot *oldslot, TupleTableSlot *newslot, int attno)
{
	ViewColumn *c = &w->cols[attno - 1];
	bool		oldnull;
	bool		newnull;
	Datum		oldd = slot_getattr(oldslot, attno, &oldnull);
	Datum		newd = slot_getattr(newslot, attno, &newnull);
	OtsValue	a;
	OtsValue	b;

	if (oldnull || newnull)
		return oldnull != newnull;
	switch (c->kind)
	{
		case VIEW_COLUMN_KEY:
			view_write_value(oldd, w->table->pk[c->index].type, &a);
			view_write_value(newd, w->table->pk[c->index].type, &b);
			return ots_value_compare(&a, &b) != 0;
		case VIEW_COLUMN_DEFINED:
			view_write_value(oldd, c->type, &a);
			view_write_value(newd, c->type, &b);
			/* bitwise for Double: 0.0 and -0.0 are different cells */
			if (c->type == OTS_VT_DOUBLE)
				return memcmp(&a.u.d, &b.u.d, sizeof(double)) != 0;
			return ots_value_compare(&a, &b) != 0;
		case VIEW_COLUMN_ATTRIBUTES:
			return !view_write_jsonb_same(DatumGetJsonbP(oldd), DatumGetJsonbP(newd));
		default:
			return false;
	}
}

/* view_write_typed_changed: is name a typed column the UPDATE changes? */
static bool
view_write_typed_changed(ViewWriter *w, TupleTableSlot *oldslot, TupleTableSlot *newslot,
						 const char *name, uint32 len)
{
	for (int i = 0; i < w->natts; i++)
		if (w->cols[i].kind == VIEW_COLUMN_DEFINED && w->cols[i].namelen == len &&
			memcmp(w->cols[i].name, name, len) == 0)
			return view_write_changed(w, oldslot, newslot, i + 1);
	return false;
}

/*
 * view_write_attributes_diff: what a changed attributes column changes:
 * keys whose value is new or different are put, keys gone are deleted; a
 * key whose typed column changes too is given twice.
 */
static void
view_write_attributes_diff(ViewWriter *w, TupleTableSlot *oldslot, TupleTableSlot *newslot,
						   JsonbParseState **put, List **delete_all)
{
	bool		oldnull;
	bool		newnull;
	Datum		oldd = slot_getattr(oldslot, w->attributes_attno, &oldnull);
	Datum		newd = slot_getattr(newslot, w->attributes_attno, &newnull);
	Jsonb	   *olda = oldnull ? NULL : DatumGetJsonbP(oldd);
	Jsonb	   *newa = newnull ? NULL : view_write_attributes_object(newd);
	JsonbIterator *it;
	JsonbValue	key;
	JsonbValue	val;
	JsonbIteratorToken tok;

	if (newa != NULL)
	{
		it = JsonbIteratorInit(&newa->root);
		while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
		{
			JsonbValue *oldv;

			if (tok != WJB_KEY)
				continue;
			JsonbIteratorNext(&it, &val, true);
			oldv = olda == NULL ? NULL :
				findJsonbValueFromContainer(&olda->root, JB_FOBJECT, &key);
			if (oldv != NULL && view_write_jsonb_same(JsonbValueToJsonb(oldv), JsonbValueToJsonb(&val)))
				continue;
			if (view_write_typed_changed(w, oldslot, newslot, key.val.string.val, key.val.string.len))
				view_write_twice(pnstrdup(key.val.string.val, key.val.string.len));
			pushJsonbValue(put, WJB_KEY, &key);
			pushJsonbValue(put, WJB_VALUE, &val);
		}
	}
	if (olda != NULL)
	{
		it = JsonbIteratorInit(&olda->root);
		while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
		{
			if (tok != WJB_KEY)
				continue;
			JsonbIteratorNext(&it, &val, true);
			if (newa != NULL && findJsonbValueFromContainer(&newa->root, JB_FOBJECT, &key) != NULL)
				continue;
			if (view_write_typed_changed(w, oldslot, newslot, key.val.string.val, key.val.string.len))
				continue;		/* the typed column says what becomes of it */
			*delete_all = lappend(*delete_all, pnstrdup(key.val.string.val, key.val.string.len));
		}
	}
}

/* view_write_update: UPDATE of one view row, an UpdateRow of the columns it changes */
static HeapTuple
view_write_update(ViewWriter *w, TriggerData *td, ViewStatement *vs)
{
	TupleTableSlot *oldslot = td->tg_trigslot;
	TupleTableSlot *newslot = td->tg_newslot;
	bool	   *given = palloc0(sizeof(bool) * w->natts);
	OtsValue   *values = palloc(sizeof(OtsValue) * w->natts);
	JsonbParseState *diff = NULL;
	List	   *delete_all = NIL;
	RowWriteRequest req = {.kind = ROW_WRITE_UPDATE};
	RowResult	res;
	PkInput		key;
	bool		auto_increment;
	CellInput  *put;
	int			nput;
	Jsonb	   *diffs = NULL;
	struct varlena *row = NULL;

	for (int attno = 1; attno <= w->natts; attno++)
	{
		ViewColumn *c = &w->cols[attno - 1];
		bool		newnull;
		Datum		newd;

		if (c->kind == VIEW_COLUMN_UNKNOWN || !view_write_changed(w, oldslot, newslot, attno))
			continue;
		newd = slot_getattr(newslot, attno, &newnull);
		switch (c->kind)
		{
			case VIEW_COLUMN_KEY:
				ots_parameter_invalid(psprintf("Primary key column '%s' cannot be updated.", c->name),
										  "A row's primary key is fixed: delete the row and insert it with the new key.");
				break;
			case VIEW_COLUMN_DEFINED:
				if (newnull)
					delete_all = lappend(delete_all, (void *) c->name);
				else
				{
					view_write_value(newd, c->type, &values[attno - 1]);
					given[attno - 1] = true;
				}
				break;
			case VIEW_COLUMN_ATTRIBUTES:
				pushJsonbValue(&diff, WJB_BEGIN_OBJECT, NULL);
				view_write_attributes_diff(w, oldslot, newslot, &diff, &delete_all);
				diffs = JsonbValueToJsonb(pushJsonbValue(&diff, WJB_END_OBJECT, NULL));
				break;
			case VIEW_COLUMN_UNKNOWN:
				break;
		}
	}
	put = view_write_typed_cells(w, given, values, &nput);
	view_write_key(w, oldslot, &key, &auto_increment);
	req.view_oid = w->view_oid;
	req.privileges_checked = view_write_checked(vs);
	req.key = &key;
	req.keep_row = vs != NULL && vs->returning;
	if (diffs != NULL && JB_ROOT_COUNT(diffs) == 0)
		diffs = NULL;
	/* SET of nothing but unchanged keys: no write, as UpdateRow needs a column */
	if (nput > 0 || diffs != NULL || delete_all != NIL)
	{
		req.put = diffs;
		req.typed_put = put;
		req.ntyped_put = nput;
		req.delete_all_names = view_write_names(delete_all, &req.ndelete_all_names);
		row_write(&req, &res);
		row = res.row;
	}
	else if (req.keep_row)
		row = view_write_stored(w, &key);
	if (!req.keep_row)
		return td->tg_newtuple;
	return view_write_result(w, td->tg_relation, &key, row);
}

/* view_write_delete: DELETE of one view row */
static HeapTuple
view_write_delete(ViewWriter *w, TriggerData *td, ViewStatement *vs)
{
	RowWriteRequest req = {.kind = ROW_WRITE_DELETE};
	RowResult	res;
	PkInput		key;
	bool		auto_increment;

	view_write_key(w, td->tg_trigslot, &key, &auto_increment);
	req.view_oid = w->view_oid;
	req.privileges_checked = view_write_checked(vs);
	req.key = &key;
	row_write(&req, &res);
	return td->tg_trigtuple;
}

/*
 * ots_view_write is the trigger function ots.view_write(): INSTEAD OF
 * INSERT, UPDATE and DELETE for each row of an ots table's view.
 */
Datum
ots_view_write(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	ViewWriter *w;
	HeapTuple	result;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_INSTEAD(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"%s\" must be fired INSTEAD OF for each row", "ots.view_write")));
	/* without ots's hooks from the first statement, every time, not only then */
	preload_require(PRELOAD_VIEW_WRITE_DETAIL);
	w = view_write_writer(td->tg_relation);
	if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
		result = view_write_insert(w, td, view_statement_find(w->view_oid, CMD_INSERT));
	else if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
		result = view_write_update(w, td, view_statement_find(w->view_oid, CMD_UPDATE));
	else
		result = view_write_delete(w, td, view_statement_find(w->view_oid, CMD_DELETE));
	return PointerGetDatum(result);
}
