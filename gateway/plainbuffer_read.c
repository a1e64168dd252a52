/*-------------------------------------------------------------------------
 * gateway/plainbuffer_read.c
 *	  PlainBuffer's reader: a request's rows, and a filter's bare values, as
 *	  ots's jsonb.
 *
 * Request rows come from clients we do not trust: every length is checked
 * against what is left, every checksum verified, and an error is a
 * sentence for OTSParameterInvalid.  Filters carry single values ("one
 * value": type byte and payload, no length), decoded here for filter.c.
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plainbuffer_internal.h"

bool		(*pb_stop_decoding) (void);
ProtobufCAllocator *pb_allocator;

/* a position in untrusted input and where its error goes */
typedef struct PbReader
{
	const uint8_t *data;
	size_t		len;
	size_t		pos;
	char	   *err;
	size_t		errlen;
} PbReader;

static bool
pb_fail(PbReader *in, const char *fmt,...)
__attribute__((format(printf, 2, 3)));

/* pb_fail writes the message for the caller and returns false */
static bool
pb_fail(PbReader *in, const char *fmt,...)
{
	va_list		args;

	va_start(args, fmt);
	vsnprintf(in->err, in->errlen, fmt, args);
	va_end(args);
	return false;
}

/* ------------------------------------------------------ values to jsonb */

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

static const char *
pb_type_name(uint8_t type)
{
	switch (type)
	{
		case PB_VT_INTEGER:
			return "INTEGER";
		case PB_VT_DOUBLE:
			return "DOUBLE";
		case PB_VT_BOOLEAN:
			return "BOOLEAN";
		case PB_VT_STRING:
			return "STRING";
		case PB_VT_NULL:
			return "VT_NULL";
		case PB_VT_BLOB:
			return "BINARY";
		case PB_VT_INF_MIN:
			return "VT_INF_MIN";
		case PB_VT_INF_MAX:
			return "VT_INF_MAX";
		case PB_VT_AUTO_INCREMENT:
			return "VT_AUTO_INCREMENT";
		default:
			return NULL;
	}
}

/*
 * pb_printable: a column name for a message, bytes outside printable
 * ASCII shown as '?', so a hostile name cannot garble the reply.
 */
static const char *
pb_printable(const uint8_t *name, size_t n, char *buf, size_t buflen)
{
	size_t		o = 0;

	for (size_t i = 0; i < n && o + 4 < buflen; i++)
		buf[o++] = (name[i] >= 0x20 && name[i] < 0x7f) ? (char) name[i] : '?';
	if (n > 0 && o + 4 >= buflen)
	{
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

/*
 * pb_value_json: a decoded value as ots's jsonb.  Strings must be UTF-8
 * without NUL (jsonb cannot hold U+0000), or the call fails naming column.
 */
static json_t *
pb_value_json(PbReader *in, const PbValue *v, const char *column)
{
	json_t	   *result;

	switch (v->type)
	{
		case PB_VT_INTEGER:
			return json_integer(v->integer);
		case PB_VT_DOUBLE:
			return pb_double_json(v->real);
		case PB_VT_BOOLEAN:
			return json_boolean(v->boolean);
		case PB_VT_STRING:
			if (memchr(v->bytes, '\0', v->size) != NULL)
			{
				pb_fail(in, "String value of column '%s' contains a NUL character, which ots cannot store.",
						column);
				return NULL;
			}
			result = json_stringn((const char *) v->bytes, v->size);
			if (result == NULL)
				pb_fail(in, "String value of column '%s' is not valid UTF-8.", column);
			return result;
		case PB_VT_BLOB:
			return pb_base64_json(v->bytes, v->size);
		case PB_VT_INF_MIN:
			return json_pack("{s:s}", "$inf", "min");
		case PB_VT_INF_MAX:
			return json_pack("{s:s}", "$inf", "max");
		case PB_VT_AUTO_INCREMENT:
			return json_pack("{s:b}", "$auto_increment", 1);
		default:
			pb_fail(in, "Cell data broken, unsupported value type %u of column '%s'.",
					v->type, column);
			return NULL;
	}
}

/* ---------------------------------------------------------------- reading */

static bool
pb_need(PbReader *in, size_t n, const char *what)
{
	if (in->len - in->pos < n)
		return pb_fail(in, "Cell data broken, %s is truncated.", what);
	return true;
}

static bool
pb_read_u8(PbReader *in, uint8_t *out, const char *what)
{
	if (!pb_need(in, 1, what))
		return false;
	*out = in->data[in->pos++];
	return true;
}

static bool
pb_read_u32(PbReader *in, uint32_t *out, const char *what)
{
	const uint8_t *p;

	if (!pb_need(in, 4, what))
		return false;
	p = in->data + in->pos;
	*out = (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
	in->pos += 4;
	return true;
}

static bool
pb_read_u64(PbReader *in, uint64_t *out, const char *what)
{
	uint64_t	v = 0;

	if (!pb_need(in, 8, what))
		return false;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | in->data[in->pos + i];
	in->pos += 8;
	*out = v;
	return true;
}

/* pb_read_bytes points *out at n bytes of the input (no copy) */
static bool
pb_read_bytes(PbReader *in, uint32_t n, const uint8_t **out, const char *what)
{
	if (!pb_need(in, n, what))
		return false;
	*out = in->data + in->pos;
	in->pos += n;
	return true;
}

/* pb_read_tag: the next tag, or 0 at the end of the input */
static uint8_t
pb_read_tag(PbReader *in)
{
	if (in->pos >= in->len)
		return 0;
	return in->data[in->pos++];
}

/*
 * pb_read_variant: a type byte and its payload, the "one value" form that
 * cell values wrap in a length and filters carry bare.
 */
static bool
pb_read_variant(PbReader *in, PbValue *v)
{
	uint64_t	bits;
	uint8_t		byte;

	memset(v, 0, sizeof(*v));
	if (!pb_read_u8(in, &v->type, "value type"))
		return false;
	switch (v->type)
	{
		case PB_VT_INTEGER:
			if (!pb_read_u64(in, &bits, "integer value"))
				return false;
			v->integer = (int64_t) bits;
			return true;
		case PB_VT_DOUBLE:
			if (!pb_read_u64(in, &bits, "double value"))
				return false;
			memcpy(&v->real, &bits, sizeof(v->real));
			return true;
		case PB_VT_BOOLEAN:
			if (!pb_read_u8(in, &byte, "boolean value"))
				return false;
			if (byte > 1)
				return pb_fail(in, "Cell data broken, invalid boolean value %u.", byte);
			v->boolean = byte != 0;
			return true;
		case PB_VT_STRING:
		case PB_VT_BLOB:
			return pb_read_u32(in, &v->size, "value length") &&
				pb_read_bytes(in, v->size, &v->bytes, "value");
		case PB_VT_INF_MIN:
		case PB_VT_INF_MAX:
		case PB_VT_AUTO_INCREMENT:
			return true;
		default:
			return pb_fail(in, "Cell data broken, unsupported value type %u.", v->type);
	}
}

/* pb_read_cell_value: after PB_TAG_CELL_VALUE, a length and the variant it holds */
static bool
pb_read_cell_value(PbReader *in, PbValue *v)
{
	uint32_t	size;
	size_t		start;

	if (!pb_read_u32(in, &size, "value length"))
		return false;
	if (!pb_need(in, size, "value"))
		return false;
	start = in->pos;
	if (!pb_read_variant(in, v))
		return false;
	if (in->pos - start != size)
		return pb_fail(in, "Cell data broken, value length %u does not match its %s payload.",
					   size, pb_type_name(v->type));
	return true;
}

/* one cell as it was on the wire */
typedef struct PbCell
{
	const uint8_t *name_bytes;
	uint32_t	name_size;
	bool		has_value;
	PbValue		value;
	bool		has_op;
	uint8_t		op;
	bool		has_ts;
	int64_t		ts;
	uint8_t		checksum;		/* as computed, to fold into the row's */
} PbCell;

/*
 * pb_read_cell: after PB_TAG_CELL, one cell through its checksum; *tag is
 * the tag that follows it.  The op and timestamp may come in either order
 * (SDKs write the op first), the checksum covers timestamp, then op.
 */
static bool
pb_read_cell(PbReader *in, PbCell *cell, uint8_t *tag)
{
	uint8_t		crc = 0;
	uint8_t		given;
	uint64_t	bits;

	memset(cell, 0, sizeof(*cell));
	if (pb_read_tag(in) != PB_TAG_CELL_NAME)
		return pb_fail(in, "Cell data broken, a cell does not start with its name.");
	if (!pb_read_u32(in, &cell->name_size, "column name length") ||
		!pb_read_bytes(in, cell->name_size, &cell->name_bytes, "column name"))
		return false;
	*tag = pb_read_tag(in);
	if (*tag == PB_TAG_CELL_VALUE)
	{
		if (!pb_read_cell_value(in, &cell->value))
			return false;
		cell->has_value = true;
		*tag = pb_read_tag(in);
	}
	for (;;)
	{
		if (*tag == PB_TAG_CELL_TYPE && !cell->has_op)
		{
			if (!pb_read_u8(in, &cell->op, "cell type"))
				return false;
			cell->has_op = true;
		}
		else if (*tag == PB_TAG_CELL_TIMESTAMP && !cell->has_ts)
		{
			if (!pb_read_u64(in, &bits, "timestamp"))
				return false;
			cell->ts = (int64_t) bits;
			cell->has_ts = true;
		}
		else
			break;
		*tag = pb_read_tag(in);
	}
	if (*tag != PB_TAG_CELL_CHECKSUM)
		return pb_fail(in, "Cell data broken, a cell does not end with its checksum.");
	if (!pb_read_u8(in, &given, "cell checksum"))
		return false;

	crc = pb_crc8(crc, cell->name_bytes, cell->name_size);
	if (cell->has_value)
		crc = pb_crc8_value(crc, &cell->value);
	if (cell->has_ts)
		crc = pb_crc8_u64(crc, (uint64_t) cell->ts);
	if (cell->has_op)
		crc = pb_crc8_byte(crc, cell->op);
	if (crc != given)
	{
		char		shown[80];

		return pb_fail(in, "Cell data broken, checksum mismatch in column '%s'.",
					   pb_printable(cell->name_bytes, cell->name_size, shown, sizeof(shown)));
	}
	cell->checksum = crc;
	*tag = pb_read_tag(in);
	return true;
}

/*
 * pb_cell_name: the cell's name as a C string in buf, or false: names
 * become json keys, so they must be UTF-8 without NUL.
 */
static bool
pb_cell_name(PbReader *in, const PbCell *cell, char *buf, size_t buflen)
{
	char		shown[80];
	json_t	   *probe;

	if (cell->name_size >= buflen ||
		memchr(cell->name_bytes, '\0', cell->name_size) != NULL ||
		(probe = json_stringn((const char *) cell->name_bytes, cell->name_size)) == NULL)
		return pb_fail(in, "Invalid column name: '%s'.",
					   pb_printable(cell->name_bytes, cell->name_size, shown, sizeof(shown)));
	json_decref(probe);
	memcpy(buf, cell->name_bytes, cell->name_size);
	buf[cell->name_size] = '\0';
	return true;
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

/* pb_add_key_cell: a primary-key cell into row */
static bool
pb_add_key_cell(PbReader *in, PbRow *row, const PbCell *cell, const char *name)
{
	json_t	   *value;

	if (!cell->has_value)
		return pb_fail(in, "Cell data broken, primary key column '%s' has no value.", name);
	if (cell->has_op || cell->has_ts)
		return pb_fail(in, "Cell data broken, primary key column '%s' has a cell type or timestamp.",
					   name);
	if (cell->value.type == PB_VT_DOUBLE || cell->value.type == PB_VT_BOOLEAN ||
		cell->value.type == PB_VT_NULL)
		return pb_fail(in, "%s is an invalid type for the primary key.",
					   pb_type_name(cell->value.type));
	if (json_object_get(row->primary_key, name) != NULL)
		return pb_fail(in, "Duplicated primary key name: '%s'.", name);
	value = pb_value_json(in, &cell->value, name);
	if (value == NULL)
		return false;
	json_object_set_new(row->primary_key, name, value);
	json_array_append_new(row->pk_order, json_string(name));
	return true;
}

/* pb_add_attribute_cell: an attribute cell into row, by its operation */
static bool
pb_add_attribute_cell(PbReader *in, PbRow *row, const PbCell *cell, const char *name)
{
	json_t	   *value;

	if (cell->has_value && (cell->value.type == PB_VT_INF_MIN || cell->value.type == PB_VT_INF_MAX ||
							cell->value.type == PB_VT_AUTO_INCREMENT || cell->value.type == PB_VT_NULL))
		return pb_fail(in, "%s is an invalid type for the attribute column.",
					   pb_type_name(cell->value.type));
	if (!cell->has_op)
	{
		json_t	   *put_cell;

		if (!cell->has_value)
			return pb_fail(in, "Cell data broken, column '%s' has no value.", name);
		if ((value = pb_value_json(in, &cell->value, name)) == NULL)
			return false;
		put_cell = json_object();
		json_object_set_new(put_cell, "value", value);
		if (cell->has_ts)
			json_object_set_new(put_cell, "ts", json_integer(cell->ts));
		pb_list_append(&row->put, name, put_cell);
		return true;
	}
	switch (cell->op)
	{
		case PB_OP_DELETE_ONE_VERSION:
			if (!cell->has_ts)
				return pb_fail(in, "Timestamp must be given when type is DELETE_ONE_VERSION.");
			if (cell->has_value)
				return pb_fail(in, "Value cannot be given when type is DELETE_ONE_VERSION.");
			pb_list_append(&row->delete_one, name, json_integer(cell->ts));
			return true;
		case PB_OP_DELETE_ALL_VERSION:
			if (cell->has_ts)
				return pb_fail(in, "Timestamp cannot be given when type is DELETE_ALL_VERSION.");
			if (cell->has_value)
				return pb_fail(in, "Value cannot be given when type is DELETE_ALL_VERSION.");
			if (row->delete_all == NULL)
				row->delete_all = json_array();
			json_array_append_new(row->delete_all, json_string(name));
			return true;
		case PB_OP_INCREMENT:
			if (!cell->has_value)
				return pb_fail(in, "Value must be given when type is INCREMENT.");
			if (cell->has_ts)
				return pb_fail(in, "Timestamp cannot be given when type is INCREMENT.");
			if (row->increment != NULL && json_object_get(row->increment, name) != NULL)
				return pb_fail(in, "Column '%s' is incremented more than once in one row.", name);
			if ((value = pb_value_json(in, &cell->value, name)) == NULL)
				return false;
			if (row->increment == NULL)
				row->increment = json_object();
			json_object_set_new(row->increment, name, value);
			return true;
		default:
			return pb_fail(in, "Cell data broken, unsupported cell type %u of column '%s'.",
						   cell->op, name);
	}
}

/*
 * pb_read_row: one row from PB_TAG_ROW_PK (already read as *tag) through
 * its checksum; *tag is then the tag after it, 0 at the end.
 */
static bool
pb_read_row(PbReader *in, PbRow *row, uint8_t *tag)
{
	uint8_t		crc = 0;
	uint8_t		given;
	PbCell		cell;
	char		name[1024 + 1];

	row->primary_key = json_object();
	row->pk_order = json_array();
	*tag = pb_read_tag(in);
	while (*tag == PB_TAG_CELL)
	{
		if (!pb_read_cell(in, &cell, tag) ||
			!pb_cell_name(in, &cell, name, sizeof(name)) ||
			!pb_add_key_cell(in, row, &cell, name))
			return false;
		crc = pb_crc8_byte(crc, cell.checksum);
	}
	if (json_array_size(row->pk_order) == 0)
		return pb_fail(in, "Cell data broken, empty PK.");
	if (*tag == PB_TAG_ROW_DATA)
	{
		*tag = pb_read_tag(in);
		while (*tag == PB_TAG_CELL)
		{
			if (!pb_read_cell(in, &cell, tag) ||
				!pb_cell_name(in, &cell, name, sizeof(name)) ||
				!pb_add_attribute_cell(in, row, &cell, name))
				return false;
			if (pb_stop_decoding != NULL && pb_stop_decoding())
				return pb_fail(in, "The request takes more memory to decode than it may.");
			crc = pb_crc8_byte(crc, cell.checksum);
		}
	}
	if (*tag == PB_TAG_DELETE_MARKER)
	{
		row->delete_marker = true;
		*tag = pb_read_tag(in);
	}
	crc = pb_crc8_byte(crc, row->delete_marker ? 1 : 0);
	if (*tag != PB_TAG_ROW_CHECKSUM)
		return pb_fail(in, "Cell data broken, a row does not end with its checksum.");
	if (!pb_read_u8(in, &given, "row checksum"))
		return false;
	if (given != crc)
		return pb_fail(in, "Cell data broken, row checksum mismatch.");
	*tag = pb_read_tag(in);
	return true;
}

/* pb_only_zeros: whether the rest of the input is zero bytes (or nothing) */
static bool
pb_only_zeros(const PbReader *in)
{
	for (size_t i = in->pos; i < in->len; i++)
		if (in->data[i] != 0)
			return false;
	return true;
}

/*
 * pb_decode_rows: the rows of a PlainBuffer, at most max of them, into
 * rows[]; -1 with a message in err.  On failure no row is left allocated.
 */
int
pb_decode_rows(const uint8_t *data, size_t len, PbRow *rows, int max,
			   char *err, size_t errlen)
{
	PbReader	in = {data, len, 0, err, errlen};
	uint32_t	header;
	uint8_t		tag;
	int			count = 0;

	if (!pb_read_u32(&in, &header, "header"))
		return -1;
	if (header != PB_HEADER)
	{
		pb_fail(&in, "Cell data broken, invalid PlainBuffer header.");
		return -1;
	}
	tag = pb_read_tag(&in);
	for (;;)
	{
		/*
		 * The Node SDK sends its buffer as allocated, the rows followed by
		 * zero bytes it over-reserved; Tablestore ignores them, so do we.
		 * No tag is 0, so zeros cannot hide a row.
		 */
		if (tag == 0 && pb_only_zeros(&in))
			break;
		if (tag != PB_TAG_ROW_PK)
		{
			pb_fail(&in, "Cell data broken, a row does not start with its primary key.");
			goto fail;
		}
		if (count >= max)
		{
			pb_fail(&in, "Cell data broken, more rows than the request allows (%d).", max);
			goto fail;
		}
		memset(&rows[count], 0, sizeof(PbRow));
		count++;
		if (!pb_read_row(&in, &rows[count - 1], &tag))
			goto fail;
	}
	return count;

fail:
	for (int i = 0; i < count; i++)
		pb_row_free(&rows[i]);
	return -1;
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
 * pb_decode_variant: one bare value (a filter's column_value) as ots's
 * jsonb, or NULL with a message in err.  column names it in messages.
 */
json_t *
pb_decode_variant(const uint8_t *data, size_t len, const char *column,
				  char *err, size_t errlen)
{
	PbReader	in = {data, len, 0, err, errlen};
	PbValue		v;

	if (!pb_read_variant(&in, &v))
		return NULL;
	if (in.pos != len)
	{
		pb_fail(&in, "Cell data broken, trailing bytes after the value of column '%s'.", column);
		return NULL;
	}
	if (v.type != PB_VT_INTEGER && v.type != PB_VT_DOUBLE && v.type != PB_VT_BOOLEAN &&
		v.type != PB_VT_STRING && v.type != PB_VT_BLOB)
	{
		pb_fail(&in, "%s is an invalid type for the value of column '%s'.",
				pb_type_name(v.type), column);
		return NULL;
	}
	return pb_value_json(&in, &v, column);
}
