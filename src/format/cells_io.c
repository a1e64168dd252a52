/*-------------------------------------------------------------------------
 * src/format/cells_io.c
 *	  Text input and output of ots.cells, in the jsonb encoding of codec.h:
 *	  {"row_ts": <ms>, "cells": {"<column>": [{"ts": <ms>, "value": <v>}, ...]}}
 *
 * pg_dump writes ots storage rows in this form, so output and input
 * round-trip every value exactly, and input accepts every row ots can
 * store (docs/reference.md, Dump and restore).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
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

	if (!JB_ROOT_IS_OBJECT(doc) || JB_ROOT_IS_SCALAR(doc) || JB_ROOT_COUNT(doc) != 2 ||
		!codec_jsonb_get(doc, "row_ts", &row_ts) || !codec_jsonb_get(doc, "cells", &cells) ||
		cells.type != jbvBinary)
		cells_io_malformed("The value must be {\"row_ts\": <ms>, \"cells\": {...}}.");

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
