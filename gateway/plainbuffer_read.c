/*-------------------------------------------------------------------------
 * gateway/plainbuffer_read.c
 *	  A request's rows, and a filter's bare values, as ots's jsonb: what
 *	  PlainBuffer's reader (src/format/plainbuffer_decode.c, which checks
 *	  every byte and rule) hands over, put into json.
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plainbuffer_internal.h"

bool		(*pb_stop_decoding) (void);
ProtobufCAllocator *pb_allocator;

/*
 * pb_double_json: a Double as ots reads one.  A finite value whose text
 * (jansson's, 17 significant digits and ".0" when whole) has no exponent is
 * a json real; with an exponent jsonb would turn it into an Integer, so it
 * goes as {"$double": x}; NaN and Infinity go as {"$double": "NaN"} and so
 * on, which ots rejects with Tablestore's message.
 */
static json_t *
pb_double_json(double d)
{
	char		text[40];

	if (isnan(d))
		return json_pack("{s:s}", "$double", "NaN");
	if (isinf(d))
		return json_pack("{s:s}", "$double", d > 0 ? "Infinity" : "-Infinity");
	snprintf(text, sizeof(text), "%.17g", d);
	if (strpbrk(text, "eE") != NULL)
		return json_pack("{s:f}", "$double", d);
	return json_real(d);
}

/*
 * pb_value_json: a checked value as ots's jsonb (a String is UTF-8 without
 * NUL, the reader saw to it)
 */
static json_t *
pb_value_json(const PbValue *v)
{
	switch (v->type)
	{
		case PB_VT_INTEGER:
			return json_integer(v->integer);
		case PB_VT_DOUBLE:
			return pb_double_json(v->real);
		case PB_VT_BOOLEAN:
			return json_boolean(v->boolean);
		case PB_VT_STRING:
			return json_stringn((const char *) v->bytes, v->size);
		case PB_VT_BLOB:
			return pb_base64_json(v->bytes, v->size);
		case PB_VT_INF_MIN:
			return json_pack("{s:s}", "$inf", "min");
		case PB_VT_INF_MAX:
			return json_pack("{s:s}", "$inf", "max");
		case PB_VT_AUTO_INCREMENT:
			return json_pack("{s:b}", "$auto_increment", 1);
		default:
			abort();			/* the reader refuses every other type */
	}
}

/* pb_list_append: append item to the array at object[key], creating it */
static void
pb_list_append(json_t **object, const char *key, json_t *item)
{
	json_t	   *list;

	if (*object == NULL)
		*object = json_object();
	list = json_object_get(*object, key);
	if (list == NULL)
	{
		list = json_array();
		json_object_set_new(*object, key, list);
	}
	json_array_append_new(list, item);
}

/* the rows being decoded into json */
typedef struct JsonRows
{
	PbRow	   *rows;
	PbRow	   *row;			/* the one being read */
	PbDecoder  *decoder;
} JsonRows;

static bool
json_row_begin(void *ctx, int index)
{
	JsonRows   *j = ctx;

	j->row = &j->rows[index];
	memset(j->row, 0, sizeof(PbRow));
	j->row->primary_key = json_object();
	j->row->pk_order = json_array();
	return true;
}

static bool
json_key_cell(void *ctx, const PbCell *cell)
{
	JsonRows   *j = ctx;
	char		name[PB_MAX_NAME_BYTES + 1];

	pb_cell_name_text(cell, name);
	json_object_set_new(j->row->primary_key, name, pb_value_json(&cell->value));
	json_array_append_new(j->row->pk_order, json_string(name));
	return true;
}

static bool
json_attribute_cell(void *ctx, const PbCell *cell)
{
	JsonRows   *j = ctx;
	PbRow	   *row = j->row;
	char		name[PB_MAX_NAME_BYTES + 1];

	pb_cell_name_text(cell, name);
	if (!cell->has_op)
	{
		json_t	   *put_cell = json_object();

		json_object_set_new(put_cell, "value", pb_value_json(&cell->value));
		if (cell->has_ts)
			json_object_set_new(put_cell, "ts", json_integer(cell->ts));
		pb_list_append(&row->put, name, put_cell);
		return true;
	}
	switch (cell->op)
	{
		case PB_OP_DELETE_ONE_VERSION:
			pb_list_append(&row->delete_one, name, json_integer(cell->ts));
			return true;
		case PB_OP_DELETE_ALL_VERSION:
			if (row->delete_all == NULL)
				row->delete_all = json_array();
			json_array_append_new(row->delete_all, json_string(name));
			return true;
		default:				/* PB_OP_INCREMENT */
			if (row->increment == NULL)
				row->increment = json_object();
			else if (json_object_get(row->increment, name) != NULL)
				return pb_fail_incremented_twice(j->decoder, cell);
			json_object_set_new(row->increment, name, pb_value_json(&cell->value));
			return true;
	}
}

static bool
json_row_end(void *ctx, bool delete_marker)
{
	JsonRows   *j = ctx;

	j->row->delete_marker = delete_marker;
	return true;
}

/*
 * json_decode: the rows of a PlainBuffer into rows[], at most max, or
 * exactly one (one); the number, or -1 with a message in err.  On failure
 * no row is left allocated.
 */
static int
json_decode(const uint8_t *data, size_t len, PbRow *rows, int max, bool one,
			char *err, size_t errlen)
{
	JsonRows	j = {rows, NULL, NULL};
	PbDecoder	d = {&j, json_row_begin, json_key_cell, json_attribute_cell, json_row_end,
	pb_stop_decoding, err, errlen};
	int			count;

	j.decoder = &d;
	count = one ? (pb_decode_one(data, len, &d) ? 1 : -1) : pb_decode(data, len, max, &d);
	if (count < 0 && j.row != NULL)
		for (PbRow *r = rows; r <= j.row; r++)
			pb_row_free(r);
	return count;
}

int
pb_decode_rows(const uint8_t *data, size_t len, PbRow *rows, int max,
			   char *err, size_t errlen)
{
	return json_decode(data, len, rows, max, false, err, errlen);
}

bool
pb_decode_row(const uint8_t *data, size_t len, PbRow *row, char *err, size_t errlen)
{
	return json_decode(data, len, row, 1, true, err, errlen) == 1;
}

/* pb_row_free releases what pb_decode_rows put in row */
void
pb_row_free(PbRow *row)
{
	json_decref(row->primary_key);
	json_decref(row->pk_order);
	json_decref(row->put);
	json_decref(row->delete_one);
	json_decref(row->delete_all);
	json_decref(row->increment);
	memset(row, 0, sizeof(*row));
}

/*
 * pb_decode_variant_json: one bare value (a filter's column_value) as ots's
 * jsonb, or NULL with a message in err.  column names it in messages.
 */
json_t *
pb_decode_variant_json(const uint8_t *data, size_t len, const char *column,
					   char *err, size_t errlen)
{
	PbValue		v;

	if (!pb_decode_variant(data, len, column, &v, err, errlen))
		return NULL;
	return pb_value_json(&v);
}
