/*-------------------------------------------------------------------------
 * gateway/plainbuffer_write.c
 *	  PlainBuffer's writer: ots's jsonb rows, and Stream records' changes,
 *	  as PlainBuffer rows with their checksums.
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "otsd.h"
#include "plainbuffer_internal.h"

/*
 * pb_json_value: ots's jsonb value (parsed by jansson) as a PbValue; false
 * for a shape that is no Tablestore value.  Blob bytes are malloc'd into
 * *owned (the caller frees it).
 */
bool
pb_json_value(json_t *j, PbValue *v, uint8_t **owned)
{
	json_t	   *inner;
	size_t		n;

	memset(v, 0, sizeof(*v));
	*owned = NULL;
	switch (json_typeof(j))
	{
		case JSON_INTEGER:
			v->type = PB_VT_INTEGER;
			v->integer = json_integer_value(j);
			return true;
		case JSON_REAL:
			v->type = PB_VT_DOUBLE;
			v->real = json_real_value(j);
			return true;
		case JSON_TRUE:
		case JSON_FALSE:
			v->type = PB_VT_BOOLEAN;
			v->boolean = json_is_true(j);
			return true;
		case JSON_STRING:
			v->type = PB_VT_STRING;
			v->bytes = (const uint8_t *) json_string_value(j);
			n = json_string_length(j);
			if (n > UINT32_MAX)
				return false;
			v->size = (uint32_t) n;
			return true;
		case JSON_OBJECT:
			break;
		default:
			return false;
	}
	if (json_object_size(j) != 1)
		return false;
	if ((inner = json_object_get(j, "$double")) != NULL)
	{
		v->type = PB_VT_DOUBLE;
		if (json_is_number(inner))
			v->real = json_number_value(inner);
		else if (json_is_string(inner))
			v->real = strtod(json_string_value(inner), NULL);
		else
			return false;
		return true;
	}
	if ((inner = json_object_get(j, "$binary")) != NULL)
	{
		if (!json_is_string(inner) ||
			!pb_base64_decode(json_string_value(inner), json_string_length(inner), owned, &n) ||
			n > UINT32_MAX)
			return false;
		v->type = PB_VT_BLOB;
		v->bytes = *owned;
		v->size = (uint32_t) n;
		return true;
	}
	if ((inner = json_object_get(j, "$inf")) != NULL && json_is_string(inner))
	{
		v->type = strcmp(json_string_value(inner), "min") == 0 ? PB_VT_INF_MIN : PB_VT_INF_MAX;
		return true;
	}
	if (json_object_get(j, "$auto_increment") != NULL)
	{
		v->type = PB_VT_AUTO_INCREMENT;
		return true;
	}
	return false;
}

void
pb_put_u32(Buf *out, uint32_t v)
{
	uint8_t		le[4];

	pb_le32(le, v);
	buf_put(out, le, 4);
}

static void
pb_put_u64(Buf *out, uint64_t v)
{
	uint8_t		le[8];

	pb_le64(le, v);
	buf_put(out, le, 8);
}

/* pb_put_cell_value: PB_TAG_CELL_VALUE, the length, the type and payload */
static void
pb_put_cell_value(Buf *out, const PbValue *v)
{
	buf_byte(out, PB_TAG_CELL_VALUE);
	switch (v->type)
	{
		case PB_VT_INTEGER:
		case PB_VT_DOUBLE:
			pb_put_u32(out, 1 + 8);
			buf_byte(out, v->type);
			pb_put_u64(out, v->type == PB_VT_INTEGER ? (uint64_t) v->integer : pb_double_bits(v->real));
			break;
		case PB_VT_BOOLEAN:
			pb_put_u32(out, 1 + 1);
			buf_byte(out, v->type);
			buf_byte(out, v->boolean ? 1 : 0);
			break;
		case PB_VT_STRING:
		case PB_VT_BLOB:
			pb_put_u32(out, 1 + 4 + v->size);
			buf_byte(out, v->type);
			pb_put_u32(out, v->size);
			buf_put(out, v->bytes, v->size);
			break;
		default:
			pb_put_u32(out, 1);
			buf_byte(out, v->type);
			break;
	}
}

/*
 * pb_put_cell: one cell; value, ts and op each optional (NULL / has_ts /
 * op 0).  Returns its checksum, for the row's.
 */
static uint8_t
pb_put_cell(Buf *out, const char *name, const PbValue *value, bool has_ts, int64_t ts,
			uint8_t op)
{
	size_t		name_size = strlen(name);
	uint8_t		crc = 0;

	buf_byte(out, PB_TAG_CELL);
	buf_byte(out, PB_TAG_CELL_NAME);
	pb_put_u32(out, (uint32_t) name_size);
	buf_put(out, name, name_size);
	crc = pb_crc8(crc, (const uint8_t *) name, name_size);
	if (value != NULL)
	{
		pb_put_cell_value(out, value);
		crc = pb_crc8_value(crc, value);
	}
	if (op != 0)
	{
		buf_byte(out, PB_TAG_CELL_TYPE);
		buf_byte(out, op);
	}
	if (has_ts)
	{
		buf_byte(out, PB_TAG_CELL_TIMESTAMP);
		pb_put_u64(out, (uint64_t) ts);
		crc = pb_crc8_u64(crc, (uint64_t) ts);
	}
	if (op != 0)
		crc = pb_crc8_byte(crc, op);
	buf_byte(out, PB_TAG_CELL_CHECKSUM);
	buf_byte(out, crc);
	return crc;
}

/*
 * pb_put_json_cell: a cell whose value is ots jsonb; a value that is no
 * Tablestore value (ots never returns one) is left out, returning false.
 */
static bool
pb_put_json_cell(Buf *out, const char *name, json_t *value, bool has_ts, int64_t ts,
				 uint8_t *row_crc)
{
	PbValue		v;
	uint8_t    *owned;

	if (value == NULL || !pb_json_value(value, &v, &owned))
		return false;
	*row_crc = pb_crc8_byte(*row_crc, pb_put_cell(out, name, &v, has_ts, ts, 0));
	free(owned);
	return true;
}

/* pb_put_key: PB_TAG_ROW_PK and the key's cells in pk_order (else object order) */
static uint8_t
pb_put_key(Buf *out, json_t *pk, json_t *pk_order)
{
	uint8_t		crc = 0;
	const char *name;
	json_t	   *value;
	size_t		i;
	json_t	   *entry;

	buf_byte(out, PB_TAG_ROW_PK);
	if (json_is_array(pk_order))
	{
		json_array_foreach(pk_order, i, entry)
		{
			name = json_string_value(entry);
			if (name != NULL && (value = json_object_get(pk, name)) != NULL)
				pb_put_json_cell(out, name, value, false, 0, &crc);
		}
	}
	else
	{
		json_object_foreach(pk, name, value)
			pb_put_json_cell(out, name, value, false, 0, &crc);
	}
	return crc;
}

/* pb_put_row_end ends a row: its delete marker, a record's sequence info (or NULL), the checksum */
static void
pb_put_row_end(Buf *out, uint8_t crc, bool delete_row, const PbSequenceInfo *seq)
{
	if (delete_row)
		buf_byte(out, PB_TAG_DELETE_MARKER);
	crc = pb_crc8_byte(crc, delete_row ? 1 : 0);
	if (seq != NULL)
	{
		buf_byte(out, PB_TAG_EXTENSION);
		pb_put_u32(out, 1 + 4 + PB_SEQ_INFO_LENGTH);
		buf_byte(out, PB_TAG_SEQ_INFO);
		pb_put_u32(out, PB_SEQ_INFO_LENGTH);
		buf_byte(out, PB_TAG_SEQ_INFO_EPOCH);
		pb_put_u32(out, seq->epoch);
		buf_byte(out, PB_TAG_SEQ_INFO_TS);
		pb_put_u64(out, (uint64_t) seq->timestamp);
		buf_byte(out, PB_TAG_SEQ_INFO_ROW_INDEX);
		pb_put_u32(out, seq->row_index);
	}
	buf_byte(out, PB_TAG_ROW_CHECKSUM);
	buf_byte(out, crc);
}

/* pb_begin starts a PlainBuffer: the header, before any row */
void
pb_begin(Buf *out)
{
	pb_put_u32(out, PB_HEADER);
}

/* pb_name_cmp orders column names bytewise */
static int
pb_name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/*
 * pb_write_row appends one row: the key in pk_order, then the attributes
 * by column name, bytewise, as Tablestore returns them (ots's jsonb has
 * shorter names first), each column's cells in the order given ({"col":
 * [{"ts", "value"}, ...]}; a bare value stands for one cell without a
 * timestamp).  No attributes, no PB_TAG_ROW_DATA, as the SDKs write a key.
 */
void
pb_write_row(Buf *out, json_t *pk, json_t *pk_order, json_t *attributes)
{
	uint8_t		crc = pb_put_key(out, pk, pk_order);
	const char *name;
	json_t	   *cells;
	size_t		i;
	json_t	   *cell;
	size_t		ncols = json_object_size(attributes);

	if (ncols > 0)
	{
		const char **names = malloc(ncols * sizeof(char *));
		size_t		n = 0;

		if (names == NULL)
			abort();
		json_object_foreach(attributes, name, cells)
			names[n++] = name;
		qsort(names, n, sizeof(char *), pb_name_cmp);
		buf_byte(out, PB_TAG_ROW_DATA);
		for (size_t c = 0; c < n; c++)
		{
			name = names[c];
			cells = json_object_get(attributes, name);
			if (!json_is_array(cells))
			{
				pb_put_json_cell(out, name, cells, false, 0, &crc);
				continue;
			}
			json_array_foreach(cells, i, cell)
			{
				json_t	   *ts = json_object_get(cell, "ts");
				json_t	   *value = json_object_get(cell, "value");

				if (value != NULL)
					pb_put_json_cell(out, name, value, json_is_integer(ts),
									 json_integer_value(ts), &crc);
			}
		}
		free(names);
	}
	pb_put_row_end(out, crc, false, NULL);
}

/*
 * pb_write_change appends a Stream record's row: the key, then each column
 * change as a cell with its op (PUT: value and timestamp; DELETE_ONE_VERSION:
 * timestamp; DELETE_ALL_VERSION(S): name only), then the delete marker for a
 * deleted row, and the record's sequence info (the Java and Go SDKs read it).
 */
void
pb_write_change(Buf *out, json_t *pk, json_t *pk_order, json_t *columns, bool delete_row,
				const PbSequenceInfo *seq)
{
	uint8_t		crc = pb_put_key(out, pk, pk_order);
	size_t		i;
	json_t	   *change;

	if (json_array_size(columns) > 0)
		buf_byte(out, PB_TAG_ROW_DATA);
	json_array_foreach(columns, i, change)
	{
		const char *name = json_string_value(json_object_get(change, "name"));
		const char *type = json_string_value(json_object_get(change, "type"));
		json_t	   *ts = json_object_get(change, "timestamp");

		if (name == NULL || type == NULL)
			continue;
		if (strcmp(type, "PUT") == 0)
			pb_put_json_cell(out, name, json_object_get(change, "value"), json_is_integer(ts),
							 json_integer_value(ts), &crc);
		else if (strcmp(type, "DELETE_ONE_VERSION") == 0)
			crc = pb_crc8_byte(crc, pb_put_cell(out, name, NULL, json_is_integer(ts),
												json_integer_value(ts), PB_OP_DELETE_ONE_VERSION));
		else if (strcmp(type, "DELETE_ALL_VERSIONS") == 0 || strcmp(type, "DELETE_ALL_VERSION") == 0)
			crc = pb_crc8_byte(crc, pb_put_cell(out, name, NULL, false, 0,
												PB_OP_DELETE_ALL_VERSION));
	}
	pb_put_row_end(out, crc, delete_row, seq);
}
