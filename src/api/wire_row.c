/*-------------------------------------------------------------------------
 * src/api/wire_row.c
 *	  A write request's PlainBuffer row (PutRow's row, UpdateRow's
 *	  row_change, DeleteRow's key, a BatchWriteRow row) read inside ots by
 *	  the reader otsd has too (format/plainbuffer_decode.h), into what the
 *	  jsonb path gives ots for the same bytes, and the row a write returns
 *	  written back as PlainBuffer (api/wire_write.c, api/wire_batch.c).
 *
 * A row gets exactly what otsd's jsonb of the same bytes gets: the same
 * checks, in the same order, and the same messages.  What the jsonb keeps
 * as a map goes in its order: the put cells sorted by name as jsonb sorts
 * keys (a column's cells in request order); the key, deletions and
 * increments as small jsonb values.  A Double -0.0 is stored as 0.0, as
 * jsonb's numbers have no negative zero.  The gateway suite compares both
 * paths on random and malformed rows (test/gateway/protocol_test.py).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "api/wire_row.h"
#include "errors.h"
#include "format/plainbuffer.h"

/* wire_value: a checked value of the wire as ots's (its bytes stay in the request) */
static void
wire_value(const PbValue *in, OtsValue *out)
{
	switch (in->type)
	{
		case PB_VT_INTEGER:
			out->type = OTS_VT_INTEGER;
			out->u.i = in->integer;
			break;
		case PB_VT_DOUBLE:
			out->type = OTS_VT_DOUBLE;
			out->u.d = in->real == 0 ? 0.0 : in->real; /* no -0.0, as through jsonb */
			break;
		case PB_VT_BOOLEAN:
			out->type = OTS_VT_BOOLEAN;
			out->u.b = in->boolean;
			break;
		case PB_VT_STRING:
		case PB_VT_BLOB:
			out->type = in->type == PB_VT_STRING ? OTS_VT_STRING : OTS_VT_BINARY;
			out->u.s.data = (const char *) in->bytes;
			out->u.s.len = in->size;
			break;
		default:
			elog(ERROR, "PlainBuffer value of type %u has no ots value", in->type);
	}
}

/* wire_grow: array with room for its element n (of size bytes), *cap doubled from min as needed */
static void *
wire_grow(void *array, int n, int *cap, Size size, int min)
{
	if (n < *cap)
		return array;
	*cap = Max(min, *cap * 2);
	return array == NULL ? palloc(size * *cap) : repalloc(array, size * *cap);
}

static WireCell *
wire_cells_add(WireCells *list, WireRow *w, const PbCell *cell)
{
	WireCell   *c;

	list->cells = wire_grow(list->cells, list->n, &list->cap, sizeof(WireCell), 8);
	c = &list->cells[list->n++];
	memset(c, 0, sizeof(*c));
	c->cell.name = (const char *) cell->name;
	c->cell.namelen = cell->name_size;
	c->cell.has_ts = cell->has_ts;
	c->cell.ts = cell->ts;
	if (cell->has_value)
		wire_value(&cell->value, &c->cell.value);
	c->wire = cell->value;
	c->seq = w->seq++;
	return c;
}

/*
 * wire_name_hash: a name's hash under a seed of this backend's, so that
 * names chosen to collide cannot be made in advance (a request may carry
 * hundreds of thousands of increments before their count is checked)
 */
static uint32
wire_name_hash(const char *name, uint32 len)
{
	static uint64 seed;
	static bool seeded = false;

	if (!seeded)
	{
		if (!pg_strong_random(&seed, sizeof(seed)))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not generate a random seed")));
		seeded = true;
	}
	return (uint32) hash_bytes_extended((const unsigned char *) name, len, seed);
}

/* wire_slot: the slot of the increments' table holding name, else the free one where it goes */
static uint32
wire_slot(const WireRow *w, const char *name, uint32 len)
{
	uint32		mask = w->increment_slots_cap - 1;
	uint32		i;

	for (i = wire_name_hash(name, len) & mask; w->increment_slots[i] != 0; i = (i + 1) & mask)
	{
		const CellInput *c = &w->increments.cells[w->increment_slots[i] - 1].cell;

		if (c->namelen == len && memcmp(c->name, name, len) == 0)
			break;
	}
	return i;
}

/* wire_increment_twice: whether the row increments the column of the last increment before */
static bool
wire_increment_twice(WireRow *w)
{
	WireCells  *incs = &w->increments;
	const CellInput *last = &incs->cells[incs->n - 1].cell;
	uint32		i;

	if (incs->n * 2 > w->increment_slots_cap)
	{
		/* a table twice as large (at most half full), the earlier increments put in again */
		if (w->increment_slots != NULL)
			pfree(w->increment_slots);
		w->increment_slots_cap = Max(16, w->increment_slots_cap * 2);
		w->increment_slots = palloc0(sizeof(int) * w->increment_slots_cap);
		for (int k = 0; k < incs->n - 1; k++)
			w->increment_slots[wire_slot(w, incs->cells[k].cell.name, incs->cells[k].cell.namelen)] = k + 1;
	}
	i = wire_slot(w, last->name, last->namelen);
	if (w->increment_slots[i] != 0)
		return true;
	w->increment_slots[i] = incs->n;
	return false;
}

static bool
wire_key_cell(void *ctx, const PbCell *cell)
{
	WireRow    *w = ctx;

	/* a row has its table's 1 to 4, grown for a hostile one (the reader stops at 64) */
	w->keys = wire_grow(w->keys, w->nkeys, &w->keys_cap, sizeof(PbCell), 4);
	w->keys[w->nkeys++] = *cell;
	return true;
}

static bool
wire_attribute_cell(void *ctx, const PbCell *cell)
{
	WireRow    *w = ctx;

	/* a row of 5 MB holds hundreds of thousands of cells: let a cancel in */
	if ((++w->cells & 1023) == 0)
		CHECK_FOR_INTERRUPTS();
	if (!cell->has_op)
	{
		wire_cells_add(&w->puts, w, cell);
		return true;
	}
	switch (cell->op)
	{
		case PB_OP_DELETE_ONE_VERSION:
			wire_cells_add(&w->deletes, w, cell);
			return true;
		case PB_OP_DELETE_ALL_VERSION:
			w->delete_all = wire_grow(w->delete_all, w->ndelete_all, &w->delete_all_cap,
									  sizeof(char *), 8);
			w->delete_all[w->ndelete_all++] = pnstrdup((const char *) cell->name, cell->name_size);
			return true;
		default:				/* PB_OP_INCREMENT */
			wire_cells_add(&w->increments, w, cell);
			if (wire_increment_twice(w))
				return pb_fail_incremented_twice(&w->decoder, cell);
			return true;
	}
}

/*
 * wire_read_row: the request's one row; an error as otsd's reading of the
 * same bytes would answer (OTSParameterInvalid)
 */
void
wire_read_row(bytea *bytes, WireRow *w)
{
	memset(w, 0, sizeof(*w));
	w->decoder.ctx = w;
	w->decoder.key_cell = wire_key_cell;
	w->decoder.attribute_cell = wire_attribute_cell;
	w->decoder.err = w->err;
	w->decoder.errlen = sizeof(w->err);
	if (!pb_decode_one((const uint8 *) VARDATA_ANY(bytes), VARSIZE_ANY_EXHDR(bytes), &w->decoder))
		ots_error(PARAMETER_INVALID, "%s", w->err);
}

/* wire_cell_cmp: jsonb's order of names (codec_key_cmp), then the request's */
static int
wire_cell_cmp(const void *a, const void *b)
{
	const WireCell *x = a;
	const WireCell *y = b;
	int			c = codec_key_cmp(x->cell.name, x->cell.namelen, y->cell.name, y->cell.namelen);

	return c != 0 ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* wire_sorted: the cells in jsonb's key order, as typed cells */
CellInput *
wire_sorted(WireCells *list)
{
	CellInput  *cells = palloc(sizeof(CellInput) * Max(list->n, 1));

	qsort(list->cells, list->n, sizeof(WireCell), wire_cell_cmp);
	for (int i = 0; i < list->n; i++)
		cells[i] = list->cells[i].cell;
	return cells;
}

/* wire_push_value: a value of the wire as otsd writes it into jsonb */
static void
wire_push_value(JsonbParseState **state, const PbValue *v)
{
	JsonbValue	jv;
	OtsValue	value;

	if (v->type == PB_VT_INF_MIN || v->type == PB_VT_INF_MAX || v->type == PB_VT_AUTO_INCREMENT ||
		(v->type == PB_VT_DOUBLE && !isfinite(v->real)))
	{
		const char *text = v->type == PB_VT_INF_MIN ? "min" : v->type == PB_VT_INF_MAX ? "max" :
			isnan(v->real) ? "NaN" : v->real > 0 ? "Infinity" : "-Infinity";

		pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
		if (v->type == PB_VT_AUTO_INCREMENT)
		{
			codec_push_key(state, CODEC_KEY("$auto_increment"));
			jv.type = jbvBool;
			jv.val.boolean = true;
		}
		else
		{
			if (v->type == PB_VT_DOUBLE)
				codec_push_key(state, CODEC_KEY("$double"));
			else
				codec_push_key(state, CODEC_KEY("$inf"));
			jv.type = jbvString;
			jv.val.string.val = (char *) text;
			jv.val.string.len = strlen(text);
		}
		pushJsonbValue(state, WJB_VALUE, &jv);
		pushJsonbValue(state, WJB_END_OBJECT, NULL);
		return;
	}
	wire_value(v, &value);
	codec_push_value(state, &value, WJB_VALUE);
}

/*
 * The row's parts as the jsonb path's values, pushed into state as a value
 * (after its key) or as the root: each returns what its last push returned.
 */

JsonbValue *
wire_push_key(JsonbParseState **state, const WireRow *w)
{
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < w->nkeys; i++)
	{
		codec_push_key(state, (const char *) w->keys[i].name, w->keys[i].name_size);
		wire_push_value(state, &w->keys[i].value);
	}
	return pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/*
 * wire_push_grouped: the cells by column, {"col": [item, ...]}, columns in
 * jsonb's key order and a column's items in request order, as otsd groups
 * them
 */
static JsonbValue *
wire_push_grouped(JsonbParseState **state, WireCells *list,
				  void (*push_item) (JsonbParseState **state, const WireCell *c))
{
	const WireCell *cells = list->cells;

	qsort(list->cells, list->n, sizeof(WireCell), wire_cell_cmp);
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < list->n; i++)
	{
		if (i == 0 || codec_key_cmp(cells[i - 1].cell.name, cells[i - 1].cell.namelen,
									cells[i].cell.name, cells[i].cell.namelen) != 0)
		{
			if (i > 0)
				pushJsonbValue(state, WJB_END_ARRAY, NULL);
			codec_push_key(state, cells[i].cell.name, cells[i].cell.namelen);
			pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
		}
		push_item(state, &cells[i]);
	}
	if (list->n > 0)
		pushJsonbValue(state, WJB_END_ARRAY, NULL);
	return pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/* a deletion's item: its timestamp */
static void
push_delete(JsonbParseState **state, const WireCell *c)
{
	codec_push_int(state, c->cell.ts, WJB_ELEM);
}

/* a put's item: {"value": v} or {"value": v, "ts": t}, the value as otsd writes it */
static void
push_put(JsonbParseState **state, const WireCell *c)
{
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	codec_push_key(state, CODEC_KEY("value"));
	wire_push_value(state, &c->wire);
	if (c->cell.has_ts)
	{
		codec_push_key(state, CODEC_KEY("ts"));
		codec_push_int(state, c->cell.ts, WJB_VALUE);
	}
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

JsonbValue *
wire_push_puts(JsonbParseState **state, WireCells *puts)
{
	return wire_push_grouped(state, puts, push_put);
}

JsonbValue *
wire_push_deletes(JsonbParseState **state, WireCells *deletes)
{
	return wire_push_grouped(state, deletes, push_delete);
}

JsonbValue *
wire_push_increments(JsonbParseState **state, const WireCells *incs)
{
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < incs->n; i++)
	{
		codec_push_key(state, incs->cells[i].cell.name, incs->cells[i].cell.namelen);
		wire_push_value(state, &incs->cells[i].wire);
	}
	return pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

Jsonb *
wire_key_jsonb(const WireRow *w)
{
	JsonbParseState *state = NULL;

	return JsonbValueToJsonb(wire_push_key(&state, w));
}

Jsonb *
wire_deletes_jsonb(WireCells *deletes)
{
	JsonbParseState *state = NULL;

	return deletes->n == 0 ? NULL : JsonbValueToJsonb(wire_push_deletes(&state, deletes));
}

Jsonb *
wire_increments_jsonb(const WireCells *incs)
{
	JsonbParseState *state = NULL;

	return incs->n == 0 ? NULL : JsonbValueToJsonb(wire_push_increments(&state, incs));
}

Jsonb *
wire_empty_object(void)
{
	JsonbParseState *state = NULL;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	return JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL));
}

/* wire_name_cmp: names bytewise, as Tablestore returns a row's columns */
static int
wire_name_cmp(const void *a, const void *b)
{
	const CellInput *x = a;
	const CellInput *y = b;
	int			c = memcmp(x->name, y->name, Min(x->namelen, y->namelen));

	return c != 0 ? c : (x->namelen > y->namelen) - (x->namelen < y->namelen);
}

/*
 * wire_returned_row: what the write returns, as otsd would write it from
 * ots's jsonb: the key (RT_PK: as written, a generated value filled in; with
 * RT_AFTER_MODIFY's columns: as requested) in the request's order, then the
 * returned columns by name; nothing when neither is there
 */
void
wire_returned_row(StringInfo out, const WireRow *w, Jsonb *primary_key, Jsonb *attributes)
{
	PlainBufferRow row;
	int			ncells = 0;
	CellInput  *cells = NULL;

	if (attributes != NULL)
		cells = codec_parse_stored_attributes(attributes, &ncells);
	if (primary_key == NULL && ncells == 0)
		return;
	plainbuffer_header(out);
	plainbuffer_row_begin(&row, out);
	for (int i = 0; i < w->nkeys; i++)
	{
		const PbCell *k = &w->keys[i];
		OtsValue	v;

		if (primary_key != NULL)
		{
			JsonbValue	jv;
			char	   *name = pnstrdup((const char *) k->name, k->name_size);

			if (getKeyJsonValueFromContainer(&primary_key->root, name, k->name_size, &jv) == NULL)
				continue;
			codec_read_value(&jv, &v, name);
		}
		else if (k->value.type == PB_VT_INF_MIN || k->value.type == PB_VT_INF_MAX ||
				 k->value.type == PB_VT_AUTO_INCREMENT)
		{
			/* RT_AFTER_MODIFY returns the request's key: a placeholder as given */
			plainbuffer_key_special(&row, (const char *) k->name, k->name_size,
									k->value.type == PB_VT_INF_MIN ? PK_INF_MIN :
									k->value.type == PB_VT_INF_MAX ? PK_INF_MAX : PK_AUTO_INCREMENT);
			continue;
		}
		else
			wire_value(&k->value, &v);
		plainbuffer_key_cell(&row, (const char *) k->name, k->name_size, &v);
	}
	if (ncells > 1)
		qsort(cells, ncells, sizeof(CellInput), wire_name_cmp);
	for (int i = 0; i < ncells; i++)
	{
		if (cells[i].has_ts)
			plainbuffer_attribute_cell(&row, cells[i].name, cells[i].namelen, &cells[i].value,
									   cells[i].ts);
		else
			plainbuffer_attribute_value(&row, cells[i].name, cells[i].namelen, &cells[i].value);
	}
	plainbuffer_row_end(&row);
}

