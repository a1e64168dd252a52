/*-------------------------------------------------------------------------
 * src/format/cells_io.c
 *	  Text input and output of ots.cells, in the jsonb encoding of codec.h:
 *	  {"row_ts": <ms>, "cells": {"<column>": [{"ts": <ms>, "value": <v>}, ...]}}
 *	  and, for a split row's head (format version 2),
 *	  {"row_ts": <ms>, "split": {"newest_ts": <ms>, "newest_bound": <bool>,
 *	   "cells_size": <n>, "key": [{"integer": <n>} | {"string": <s>} |
 *	   {"binary": "<hex>"}, ...]}}
 *
 * pg_dump writes ots storage rows in this form, so output and input
 * round-trip every value exactly, and input accepts every row ots can
 * store (docs/reference.md, Dump and restore).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "format/cells.h"
#include "format/codec.h"
#include "errors.h"

PG_FUNCTION_INFO_V1(ots_cells_in);
PG_FUNCTION_INFO_V1(ots_cells_out);

static void
cells_io_malformed(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type ots.cells"),
			 errdetail("%s", detail)));
}

/* cells_io_head_key reads one key column of a head's text form */
static void
cells_io_head_key(JsonbValue *elem, CellsKeyValue *k)
{
	Jsonb	   *obj;
	JsonbValue	v;

	if (elem->type != jbvBinary || !JsonContainerIsObject(elem->val.binary.data) ||
		JsonContainerSize(elem->val.binary.data) != 1)
		cells_io_malformed("A key column must be {\"integer\": n}, {\"string\": s} or {\"binary\": \"<hex>\"}.");
	obj = JsonbValueToJsonb(elem);
	if (codec_jsonb_get(obj, "integer", &v) && v.type == jbvNumeric)
	{
		k->kind = CELLS_KEY_INTEGER;
		k->i = DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(v.val.numeric)));
	}
	else if (codec_jsonb_get(obj, "string", &v) && v.type == jbvString)
	{
		k->kind = CELLS_KEY_STRING;
		k->data = v.val.string.val;
		k->len = v.val.string.len;
	}
	else if (codec_jsonb_get(obj, "binary", &v) && v.type == jbvString &&
			 v.val.string.len % 2 == 0)
	{
		char	   *bytes = palloc(v.val.string.len / 2 + 1);

		k->kind = CELLS_KEY_BINARY;
		k->len = hex_decode(v.val.string.val, v.val.string.len, bytes);
		k->data = bytes;
	}
	else
		cells_io_malformed("A key column must be {\"integer\": n}, {\"string\": s} or {\"binary\": \"<hex>\"}.");
}

/* cells_io_head_in reads the text form of a split row's head */
static struct varlena *
cells_io_head_in(JsonbValue *row_ts, JsonbValue *split)
{
	Jsonb	   *obj;
	JsonbValue	v;
	JsonbValue	key;
	CellsHead	h;
	struct varlena *result;

	memset(&h, 0, sizeof(h));
	h.row_ts = codec_parse_timestamp(row_ts);
	if (split->type != jbvBinary || !JsonContainerIsObject(split->val.binary.data))
		cells_io_malformed("\"split\" must be an object.");
	obj = JsonbValueToJsonb(split);
	if (JB_ROOT_COUNT(obj) != 4 ||
		!codec_jsonb_get(obj, "newest_ts", &v))
		cells_io_malformed("\"split\" must be {\"newest_ts\", \"newest_bound\", \"cells_size\", \"key\"}.");
	h.newest_ts = codec_parse_timestamp(&v);
	if (!codec_jsonb_get(obj, "newest_bound", &v) || v.type != jbvBool)
		cells_io_malformed("\"newest_bound\" must be true or false.");
	h.flags = v.val.boolean ? CELLS_HEAD_NEWEST_BOUND : 0;
	if (!codec_jsonb_get(obj, "cells_size", &v) || v.type != jbvNumeric)
		cells_io_malformed("\"cells_size\" must be a number.");
	h.cells_size = (uint64) DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(v.val.numeric)));
	if (!codec_jsonb_get(obj, "key", &key) || key.type != jbvBinary ||
		!JsonContainerIsArray(key.val.binary.data) ||
		JsonContainerSize(key.val.binary.data) < 1 ||
		JsonContainerSize(key.val.binary.data) > OTS_MAX_KEY_COLUMNS + 1)
		cells_io_malformed(psprintf("\"key\" must be an array of 1 to %d key columns.", OTS_MAX_KEY_COLUMNS + 1));
	h.nkeys = JsonContainerSize(key.val.binary.data);
	for (int i = 0; i < h.nkeys; i++)
		cells_io_head_key(getIthJsonbValueFromContainer(key.val.binary.data, i), &h.key[i]);
	result = cells_head_build(&h);
	/* what the text said must be a head the binary form accepts */
	cells_validate((const uint8 *) VARDATA(result), VARSIZE(result) - VARHDRSZ);
	return result;
}

/* cells_io_head_out prints a split row's head */
static char *
cells_io_head_out(const struct varlena *value)
{
	CellsHead	h;
	StringInfoData buf;

	cells_head_read(value, &h);
	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"row_ts\": " INT64_FORMAT ", \"split\": {\"newest_ts\": " INT64_FORMAT
					 ", \"newest_bound\": %s, \"cells_size\": " UINT64_FORMAT ", \"key\": [",
					 h.row_ts, h.newest_ts,
					 (h.flags & CELLS_HEAD_NEWEST_BOUND) ? "true" : "false", h.cells_size);
	for (int i = 0; i < h.nkeys; i++)
	{
		const CellsKeyValue *k = &h.key[i];

		if (i > 0)
			appendStringInfoString(&buf, ", ");
		if (k->kind == CELLS_KEY_INTEGER)
			appendStringInfo(&buf, "{\"integer\": " INT64_FORMAT "}", k->i);
		else if (k->kind == CELLS_KEY_STRING)
		{
			appendStringInfoString(&buf, "{\"string\": ");
			escape_json(&buf, pnstrdup(k->data, k->len));
			appendStringInfoChar(&buf, '}');
		}
		else
		{
			char	   *hex = palloc((Size) k->len * 2 + 1);

			hex[hex_encode(k->data, k->len, hex)] = '\0';
			appendStringInfo(&buf, "{\"binary\": \"%s\"}", hex);
		}
	}
	appendStringInfoString(&buf, "]}}");
	return buf.data;
}

/*
 * ots_cells_in parses the text form, validating every cell against the
 * format (names, types, timestamps in range, no two cells of a column with
 * one timestamp) but not against the limits of a write request: every row
 * ots stores, whatever it grew to, reads back.
 */
Datum
ots_cells_in(PG_FUNCTION_ARGS)
{
	char	   *text = PG_GETARG_CSTRING(0);
	Jsonb	   *doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
	JsonbValue	row_ts;
	JsonbValue	cells;
	CellInput  *in;
	int			n;
	CellsBuilder *b;

	if (JB_ROOT_IS_OBJECT(doc) && !JB_ROOT_IS_SCALAR(doc) && JB_ROOT_COUNT(doc) == 2 &&
		codec_jsonb_get(doc, "row_ts", &row_ts) && codec_jsonb_get(doc, "split", &cells))
		PG_RETURN_POINTER(cells_io_head_in(&row_ts, &cells));
	if (!JB_ROOT_IS_OBJECT(doc) || JB_ROOT_IS_SCALAR(doc) || JB_ROOT_COUNT(doc) != 2 ||
		!codec_jsonb_get(doc, "row_ts", &row_ts) || !codec_jsonb_get(doc, "cells", &cells) ||
		cells.type != jbvBinary)
		cells_io_malformed("The value must be {\"row_ts\": <ms>, \"cells\": {...}}, or {\"row_ts\": <ms>, \"split\": {...}} for a split row's head.");

	b = cells_builder_create(codec_parse_timestamp(&row_ts));
	in = codec_parse_stored_attributes(JsonbValueToJsonb(&cells), &n);
	for (int i = 0; i < n; i++)
	{
		if (!in[i].has_ts)
			cells_io_malformed("Every cell needs its \"ts\".");
		cells_builder_add(b, in[i].name, in[i].namelen, in[i].ts, &in[i].value);
	}
	if (cells_builder_ncells(b) != (uint32) n)
		cells_io_malformed("A column has two cells with the same timestamp.");
	PG_RETURN_POINTER(cells_builder_finish(b, 0));
}

/* ots_cells_out prints every stored cell, expired or over-max ones too */
Datum
ots_cells_out(PG_FUNCTION_ARGS)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	CellsReader r;

	if (cells_is_head(v))
		PG_RETURN_CSTRING(cells_io_head_out(v));
	cells_reader_init(&r, v);
	PG_RETURN_CSTRING(JsonbToCString(NULL, &codec_stored_row_to_jsonb(&r)->root, VARSIZE(v)));
}

/*
 * Limits of the text form.  The text of a value is built as a jsonb
 * (cells_out) and parsed into one (cells_in), whose elements may take at
 * most JENTRY_OFFLENMASK bytes, and COPY carries it, backslashes doubled,
 * in a line of at most MaxAllocSize bytes beside the key columns.
 */
#define CELLS_IO_MAX_JSONB		((uint64) JENTRY_OFFLENMASK)
#define CELLS_IO_MAX_COPY_TEXT	((uint64) MaxAllocSize - 1024 * 1024)

/* below this binary size neither limit can be reached (about 141 and 40 bytes per byte at most) */
#define CELLS_IO_SMALL_VALUE	(1024 * 1024)

/* cells_io_string_text is the COPY text length of a String value */
static uint64
cells_io_string_text(const char *s, uint32 len)
{
	uint64		n = 2;			/* quotes */

	for (uint32 i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c == '\\')
			n += 4;				/* \\ in JSON, each doubled by COPY */
		else if (c == '"' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t')
			n += 3;				/* \" \n ..., the backslash doubled */
		else if (c < 0x20)
			n += 7;				/* \u00XX, the backslash doubled */
		else
			n += 1;
	}
	return n;
}

/*
 * cells_io_check_size raises OTSOutOfRowSizeLimit when a row about to be
 * written could not go through the text form, so that pg_dump and COPY
 * carry every row ots stores (docs/reference.md, Limits).  It bounds the jsonb size and
 * the COPY text length generously (a Double at its longest decimal form,
 * every timestamp 20 digits), and only looks at the cells of values larger
 * than CELLS_IO_SMALL_VALUE.
 */
void
cells_io_check_size(const struct varlena *value)
{
	CellsReader r;
	uint64		text = 64;		/* {"cells": {...}, "row_ts": <ms>} */
	uint64		jsonb = 64;

	if (VARSIZE_ANY(value) <= CELLS_IO_SMALL_VALUE)
		return;
	cells_reader_init(&r, value);
	for (uint32 i = 0; i < r.ncols; i++)
	{
		CellsColumn col;
		int64		ts;
		OtsValue	v;

		cells_column_at(&r, i, &col);
		text += col.namelen + 8;	/* "name": [...],  */
		jsonb += col.namelen + 24;
		while (cells_column_next(&col, &ts, &v))
		{
			text += 45;			/* {"ts": <20 digits>, "value": ...},  */
			jsonb += 64;
			switch (v.type)
			{
				case OTS_VT_INTEGER:
					text += 20;
					jsonb += 24;
					break;
				case OTS_VT_DOUBLE:
					text += 350;	/* {"$double": <up to 327 digits>} */
					jsonb += 48;
					break;
				case OTS_VT_BOOLEAN:
					text += 5;
					break;
				case OTS_VT_STRING:
					text += cells_io_string_text(v.u.s.data, v.u.s.len);
					jsonb += (uint64) v.u.s.len + 4;
					break;
				case OTS_VT_BINARY:
					text += 15 + 4 * (((uint64) v.u.s.len + 2) / 3);
					jsonb += 32 + 4 * (((uint64) v.u.s.len + 2) / 3);
					break;
			}
		}
	}
	if (jsonb > CELLS_IO_MAX_JSONB || text > CELLS_IO_MAX_COPY_TEXT)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_OUT_OF_ROW_SIZE_LIMIT),
				 errmsg_internal("The total data size of columns in one row exceeded the limit."),
				 errdetail("The row's text form, which pg_dump and COPY write, would need up to " UINT64_FORMAT " bytes as jsonb and " UINT64_FORMAT " as COPY text; at most " UINT64_FORMAT " and " UINT64_FORMAT " fit.",
						   jsonb, text, CELLS_IO_MAX_JSONB, CELLS_IO_MAX_COPY_TEXT)));
}
