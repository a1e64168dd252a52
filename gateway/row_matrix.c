/*-------------------------------------------------------------------------
 * gateway/row_matrix.c
 *	  Tablestore's SimpleRowMatrix block (DBT_SIMPLE_ROW_MATRIX): the rows
 *	  of a GetRange page as a matrix, each row's primary key and the newest
 *	  value, or none, of each of a fixed list of attribute columns, for the
 *	  clients that ask for it (data_block_type_hint).
 *
 * Layout, little-endian, as the SDKs read it (Java's
 * SimpleRowMatrixBlockParser): i32 0x304d5253, i32 the data's offset, i32
 * the options' offset, i32 key columns, i32 attribute columns, each
 * column's name (i16 length, bytes); the options: 0x0a, 1 (every row has
 * its whole key), 0x03, i32 rows; the data: per row 0x02 and each column's
 * value, a type byte (PlainBuffer's: 0 Integer i64, 1 Double f64, 2
 * Boolean byte, 3 String and 7 Binary i32 length and bytes, 6 none) and
 * its payload; last 0x01 and the CRC-8 of every byte before it.
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "otsd.h"
#include "plainbuffer_internal.h"
#include "row_matrix.h"

#define RM_API_VERSION		0x304d5253
#define RM_TAG_CHECKSUM		0x01
#define RM_TAG_ROW			0x02
#define RM_TAG_ROW_COUNT	0x03
#define RM_TAG_ENTIRE_KEYS	0x0a

static void
rm_put_name(Buf *out, const char *name)
{
	size_t		n = strlen(name);
	uint8_t		le[2] = {(uint8_t) (n & 0xff), (uint8_t) ((n >> 8) & 0xff)};

	buf_put(out, le, 2);
	buf_put(out, name, n);
}

/* rm_put_value: a value's type byte and payload; none (type 6) for NULL or no Tablestore value */
static void
rm_put_value(Buf *out, json_t *value)
{
	PbValue		v;
	uint8_t    *owned = NULL;
	uint8_t		le[8];

	if (value == NULL || !pb_json_value(value, &v, &owned))
	{
		buf_byte(out, PB_VT_NULL);
		return;
	}
	switch (v.type)
	{
		case PB_VT_INTEGER:
		case PB_VT_DOUBLE:
			buf_byte(out, v.type);
			pb_le64(le, v.type == PB_VT_INTEGER ? (uint64_t) v.integer : pb_double_bits(v.real));
			buf_put(out, le, 8);
			break;
		case PB_VT_BOOLEAN:
			buf_byte(out, v.type);
			buf_byte(out, v.boolean ? 1 : 0);
			break;
		case PB_VT_STRING:
		case PB_VT_BLOB:
			buf_byte(out, v.type);
			pb_put_u32(out, v.size);
			buf_put(out, v.bytes, v.size);
			break;
		default:
			buf_byte(out, PB_VT_NULL);	/* no other type is a cell's */
			break;
	}
	free(owned);
}

/* rm_newest: a column's newest value in ots's read output ([{"ts", "value"}, ...], newest first, or a bare value) */
static json_t *
rm_newest(json_t *cells)
{
	if (cells == NULL)
		return NULL;
	if (json_is_array(cells))
		return json_object_get(json_array_get(cells, 0), "value");
	return cells;
}

static int
rm_name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *) a, *(const char *const *) b);
}

void
rm_write(Buf *out, json_t *rows, json_t *pk_order, char **columns, size_t ncolumns)
{
	size_t		npk = json_array_size(pk_order);
	const char **names;
	size_t		nattr = 0;
	size_t		cap;
	size_t		i;
	json_t	   *row;
	uint8_t		le[4];
	size_t		data_at;

	/* the attribute columns: those asked for, else every one the rows have, by name */
	cap = ncolumns;
	json_array_foreach(rows, i, row)
		cap += json_object_size(json_object_get(row, "attributes"));
	names = malloc((cap + 1) * sizeof(char *));
	if (names == NULL)
		abort();
	if (ncolumns > 0)
	{
		for (size_t c = 0; c < ncolumns; c++)
		{
			bool		skip = false;

			for (size_t k = 0; k < npk; k++)
				skip = skip || strcmp(columns[c], json_string_value(json_array_get(pk_order, k))) == 0;
			/* each once */
			for (size_t d = 0; d < nattr; d++)
				skip = skip || strcmp(columns[c], names[d]) == 0;
			if (!skip)
				names[nattr++] = columns[c];
		}
	}
	else
	{
		json_array_foreach(rows, i, row)
		{
			const char *name;
			json_t	   *cells;

			json_object_foreach(json_object_get(row, "attributes"), name, cells)
				names[nattr++] = name;
		}
		qsort(names, nattr, sizeof(char *), rm_name_cmp);
		/* each once */
		if (nattr > 1)
		{
			size_t		kept = 1;

			for (size_t c = 1; c < nattr; c++)
				if (strcmp(names[c], names[kept - 1]) != 0)
					names[kept++] = names[c];
			nattr = kept;
		}
	}

	pb_put_u32(out, RM_API_VERSION);
	pb_put_u32(out, 0);			/* the data's offset, below */
	pb_put_u32(out, 0);			/* the options' offset, below */
	pb_put_u32(out, (uint32_t) npk);
	pb_put_u32(out, (uint32_t) nattr);
	for (size_t k = 0; k < npk; k++)
		rm_put_name(out, json_string_value(json_array_get(pk_order, k)));
	for (size_t c = 0; c < nattr; c++)
		rm_put_name(out, names[c]);
	pb_le32(le, (uint32_t) out->len);
	memcpy(out->data + 8, le, 4);
	buf_byte(out, RM_TAG_ENTIRE_KEYS);
	buf_byte(out, 1);
	buf_byte(out, RM_TAG_ROW_COUNT);
	pb_put_u32(out, (uint32_t) json_array_size(rows));
	data_at = out->len;
	pb_le32(le, (uint32_t) data_at);
	memcpy(out->data + 4, le, 4);
	json_array_foreach(rows, i, row)
	{
		json_t	   *pk = json_object_get(row, "primary_key");
		json_t	   *attributes = json_object_get(row, "attributes");

		buf_byte(out, RM_TAG_ROW);
		for (size_t k = 0; k < npk; k++)
			rm_put_value(out, json_object_get(pk, json_string_value(json_array_get(pk_order, k))));
		for (size_t c = 0; c < nattr; c++)
			rm_put_value(out, rm_newest(json_object_get(attributes, names[c])));
	}
	buf_byte(out, RM_TAG_CHECKSUM);
	buf_byte(out, pb_crc8(0, out->data, out->len));
	free(names);
}
