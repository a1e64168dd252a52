/*-------------------------------------------------------------------------
 * src/format/plainbuffer_decode.c
 *	  PlainBuffer's reader (plainbuffer_decode.h): structure, checksums and
 *	  Tablestore's rules for key and attribute cells.  Plain C: otsd links
 *	  it too.
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "format/plainbuffer_decode.h"

/* a position in untrusted input, and where its rows go */
typedef struct PbReader
{
	const uint8_t *data;
	size_t		len;
	size_t		pos;
	PbDecoder  *d;
} PbReader;

bool
pb_decoder_fail(PbDecoder *d, const char *fmt,...)
{
	va_list		args;

	va_start(args, fmt);
	vsnprintf(d->err, d->errlen, fmt, args);
	va_end(args);
	return false;
}

#define pb_fail(in, ...) pb_decoder_fail((in)->d, __VA_ARGS__)

/* ------------------------------------------------------------- checksums */

uint8_t
pb_crc8_u64(uint8_t crc, uint64_t v)
{
	return pb_crc8_le(crc, v, 8);
}

uint8_t
pb_crc8_value(uint8_t crc, const PbValue *v)
{
	uint64_t	bits;

	crc = pb_crc8_byte(crc, v->type);
	switch (v->type)
	{
		case PB_VT_INTEGER:
			return pb_crc8_u64(crc, (uint64_t) v->integer);
		case PB_VT_DOUBLE:
			memcpy(&bits, &v->real, sizeof(bits));
			return pb_crc8_u64(crc, bits);
		case PB_VT_BOOLEAN:
			return pb_crc8_byte(crc, v->boolean ? 1 : 0);
		case PB_VT_STRING:
		case PB_VT_BLOB:
			crc = pb_crc8_le(crc, v->size, 4);
			return pb_crc8(crc, v->bytes, v->size);
		default:
			return crc;			/* INF_MIN, INF_MAX, AUTO_INCREMENT: type only */
	}
}

/* -------------------------------------------------------------- messages */

const char *
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

const char *
pb_cell_name_text(const PbCell *cell, char buf[PB_MAX_NAME_BYTES + 1])
{
	memcpy(buf, cell->name, cell->name_size);
	buf[cell->name_size] = '\0';
	return buf;
}

/*
 * pb_printable: bytes for a message, those outside printable ASCII shown as
 * '?', so a hostile name cannot garble the reply
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

bool
pb_utf8_valid(const uint8_t *s, size_t n)
{
	size_t		i = 0;

	while (i < n)
	{
		uint8_t		c = s[i];
		int			more;
		uint32_t	cp;

		if (c < 0x80)
		{
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			more = 1, cp = c & 0x1F;
		else if (c >= 0xE0 && c <= 0xEF)
			more = 2, cp = c & 0x0F;
		else if (c >= 0xF0 && c <= 0xF4)
			more = 3, cp = c & 0x07;
		else
			return false;
		if (n - i <= (size_t) more)
			return false;
		for (int k = 1; k <= more; k++)
		{
			if ((s[i + k] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if ((more == 2 && cp < 0x800) || (more == 3 && cp < 0x10000) ||
			(cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
			return false;
		i += more + 1;
	}
	return true;
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
 * cell values wrap in a length and filters carry bare
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

/*
 * pb_read_cell: after PB_TAG_CELL, one cell through its checksum; *tag is
 * the tag that follows it.  The op and timestamp may come in either order
 * (SDKs write the op first), the checksum covers timestamp, then op.  The
 * name must be UTF-8 without NUL: it becomes a key of ots's jsonb.
 */
static bool
pb_read_cell(PbReader *in, PbCell *cell, uint8_t *tag)
{
	uint8_t		crc = 0;
	uint8_t		given;
	uint64_t	bits;
	char		shown[80];

	memset(cell, 0, sizeof(*cell));
	if (pb_read_tag(in) != PB_TAG_CELL_NAME)
		return pb_fail(in, "Cell data broken, a cell does not start with its name.");
	if (!pb_read_u32(in, &cell->name_size, "column name length") ||
		!pb_read_bytes(in, cell->name_size, &cell->name, "column name"))
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

	crc = pb_crc8(crc, cell->name, cell->name_size);
	if (cell->has_value)
		crc = pb_crc8_value(crc, &cell->value);
	if (cell->has_ts)
		crc = pb_crc8_u64(crc, (uint64_t) cell->ts);
	if (cell->has_op)
		crc = pb_crc8_byte(crc, cell->op);
	if (crc != given)
		return pb_fail(in, "Cell data broken, checksum mismatch in column '%s'.",
					   pb_printable(cell->name, cell->name_size, shown, sizeof(shown)));
	cell->checksum = crc;
	*tag = pb_read_tag(in);

	if (cell->name_size > PB_MAX_NAME_BYTES ||
		memchr(cell->name, '\0', cell->name_size) != NULL ||
		!pb_utf8_valid(cell->name, cell->name_size))
		return pb_fail(in, "Invalid column name: '%s'.",
					   pb_printable(cell->name, cell->name_size, shown, sizeof(shown)));
	return true;
}

/* pb_check_string: a String value must be UTF-8 without NUL (jsonb holds no U+0000) */
static bool
pb_check_string(PbReader *in, const PbCell *cell)
{
	char		name[PB_MAX_NAME_BYTES + 1];

	if (cell->value.type != PB_VT_STRING)
		return true;
	if (memchr(cell->value.bytes, '\0', cell->value.size) != NULL)
		return pb_fail(in, "String value of column '%s' contains a NUL character, which ots cannot store.",
					   pb_cell_name_text(cell, name));
	if (!pb_utf8_valid(cell->value.bytes, cell->value.size))
		return pb_fail(in, "String value of column '%s' is not valid UTF-8.",
					   pb_cell_name_text(cell, name));
	return true;
}

/* the key cells of the row being read, to refuse a name given twice */
typedef struct PbKeyNames
{
	int			n;
	const uint8_t *name[PB_MAX_KEY_CELLS];
	uint32_t	size[PB_MAX_KEY_CELLS];
} PbKeyNames;

/* pb_check_key_cell: a primary-key cell's rules */
static bool
pb_check_key_cell(PbReader *in, const PbCell *cell, PbKeyNames *seen)
{
	char		name[PB_MAX_NAME_BYTES + 1];

	if (!cell->has_value)
		return pb_fail(in, "Cell data broken, primary key column '%s' has no value.",
					   pb_cell_name_text(cell, name));
	if (cell->has_op || cell->has_ts)
		return pb_fail(in, "Cell data broken, primary key column '%s' has a cell type or timestamp.",
					   pb_cell_name_text(cell, name));
	if (cell->value.type == PB_VT_DOUBLE || cell->value.type == PB_VT_BOOLEAN ||
		cell->value.type == PB_VT_NULL)
		return pb_fail(in, "%s is an invalid type for the primary key.",
					   pb_type_name(cell->value.type));
	for (int i = 0; i < seen->n; i++)
		if (seen->size[i] == cell->name_size && memcmp(seen->name[i], cell->name, cell->name_size) == 0)
			return pb_fail(in, "Duplicated primary key name: '%s'.", pb_cell_name_text(cell, name));
	if (seen->n == PB_MAX_KEY_CELLS)
		return pb_fail(in, "Cell data broken, a row has more than %d primary key columns.",
					   PB_MAX_KEY_CELLS);
	seen->name[seen->n] = cell->name;
	seen->size[seen->n++] = cell->name_size;
	return pb_check_string(in, cell);
}

/* pb_check_attribute_cell: an attribute cell's rules, by its operation */
static bool
pb_check_attribute_cell(PbReader *in, const PbCell *cell)
{
	char		name[PB_MAX_NAME_BYTES + 1];

	if (cell->has_value && (cell->value.type == PB_VT_INF_MIN || cell->value.type == PB_VT_INF_MAX ||
							cell->value.type == PB_VT_AUTO_INCREMENT || cell->value.type == PB_VT_NULL))
		return pb_fail(in, "%s is an invalid type for the attribute column.",
					   pb_type_name(cell->value.type));
	if (!cell->has_op)
	{
		if (!cell->has_value)
			return pb_fail(in, "Cell data broken, column '%s' has no value.",
						   pb_cell_name_text(cell, name));
		return pb_check_string(in, cell);
	}
	switch (cell->op)
	{
		case PB_OP_DELETE_ONE_VERSION:
			if (!cell->has_ts)
				return pb_fail(in, "Timestamp must be given when type is DELETE_ONE_VERSION.");
			if (cell->has_value)
				return pb_fail(in, "Value cannot be given when type is DELETE_ONE_VERSION.");
			return true;
		case PB_OP_DELETE_ALL_VERSION:
			if (cell->has_ts)
				return pb_fail(in, "Timestamp cannot be given when type is DELETE_ALL_VERSION.");
			if (cell->has_value)
				return pb_fail(in, "Value cannot be given when type is DELETE_ALL_VERSION.");
			return true;
		case PB_OP_INCREMENT:
			if (!cell->has_value)
				return pb_fail(in, "Value must be given when type is INCREMENT.");
			if (cell->has_ts)
				return pb_fail(in, "Timestamp cannot be given when type is INCREMENT.");
			return pb_check_string(in, cell);
		default:
			return pb_fail(in, "Cell data broken, unsupported cell type %u of column '%s'.",
						   cell->op, pb_cell_name_text(cell, name));
	}
}

/*
 * pb_read_row: one row from PB_TAG_ROW_PK (already read as *tag) through
 * its checksum; *tag is then the tag after it, 0 at the end.
 */
static bool
pb_read_row(PbReader *in, uint8_t *tag)
{
	PbDecoder  *d = in->d;
	uint8_t		crc = 0;
	uint8_t		given;
	PbCell		cell;
	PbKeyNames	seen;
	bool		delete_marker = false;

	seen.n = 0;
	*tag = pb_read_tag(in);
	while (*tag == PB_TAG_CELL)
	{
		if (!pb_read_cell(in, &cell, tag) ||
			!pb_check_key_cell(in, &cell, &seen) ||
			!d->key_cell(d->ctx, &cell))
			return false;
		crc = pb_crc8_byte(crc, cell.checksum);
	}
	if (seen.n == 0)
		return pb_fail(in, "Cell data broken, empty PK.");
	if (*tag == PB_TAG_ROW_DATA)
	{
		*tag = pb_read_tag(in);
		while (*tag == PB_TAG_CELL)
		{
			if (!pb_read_cell(in, &cell, tag) ||
				!pb_check_attribute_cell(in, &cell) ||
				!d->attribute_cell(d->ctx, &cell))
				return false;
			if (d->stop != NULL && d->stop())
				return pb_fail(in, "The request takes more memory to decode than it may.");
			crc = pb_crc8_byte(crc, cell.checksum);
		}
	}
	if (*tag == PB_TAG_DELETE_MARKER)
	{
		delete_marker = true;
		*tag = pb_read_tag(in);
	}
	crc = pb_crc8_byte(crc, delete_marker ? 1 : 0);
	if (*tag != PB_TAG_ROW_CHECKSUM)
		return pb_fail(in, "Cell data broken, a row does not end with its checksum.");
	if (!pb_read_u8(in, &given, "row checksum"))
		return false;
	if (given != crc)
		return pb_fail(in, "Cell data broken, row checksum mismatch.");
	*tag = pb_read_tag(in);
	return d->row_end == NULL || d->row_end(d->ctx, delete_marker);
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

int
pb_decode(const uint8_t *data, size_t len, int max, PbDecoder *d)
{
	PbReader	in = {data, len, 0, d};
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
			return -1;
		}
		if (count >= max)
		{
			pb_fail(&in, "Cell data broken, more rows than the request allows (%d).", max);
			return -1;
		}
		if (d->row_begin != NULL && !d->row_begin(d->ctx, count))
			return -1;
		count++;
		if (!pb_read_row(&in, &tag))
			return -1;
	}
	return count;
}

bool
pb_decode_one(const uint8_t *data, size_t len, PbDecoder *d)
{
	int			n = pb_decode(data, len, 1, d);

	if (n == 0)
		return pb_decoder_fail(d, "The input parameter is invalid.");
	return n == 1;
}

bool
pb_fail_incremented_twice(PbDecoder *d, const PbCell *cell)
{
	char		name[PB_MAX_NAME_BYTES + 1];

	return pb_decoder_fail(d, "Column '%s' is incremented more than once in one row.",
						   pb_cell_name_text(cell, name));
}

bool
pb_decode_variant(const uint8_t *data, size_t len, const char *column,
				  PbValue *out, char *err, size_t errlen)
{
	PbDecoder	d = {.err = err,.errlen = errlen};
	PbReader	in = {data, len, 0, &d};

	if (!pb_read_variant(&in, out))
		return false;
	if (in.pos != len)
		return pb_fail(&in, "Cell data broken, trailing bytes after the value of column '%s'.", column);
	if (out->type != PB_VT_INTEGER && out->type != PB_VT_DOUBLE && out->type != PB_VT_BOOLEAN &&
		out->type != PB_VT_STRING && out->type != PB_VT_BLOB)
		return pb_fail(&in, "%s is an invalid type for the value of column '%s'.",
					   pb_type_name(out->type), column);
	if (out->type == PB_VT_STRING && memchr(out->bytes, '\0', out->size) != NULL)
		return pb_fail(&in, "String value of column '%s' contains a NUL character, which ots cannot store.",
					   column);
	if (out->type == PB_VT_STRING && !pb_utf8_valid(out->bytes, out->size))
		return pb_fail(&in, "String value of column '%s' is not valid UTF-8.", column);
	return true;
}
