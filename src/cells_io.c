/*-------------------------------------------------------------------------
 * src/cells_io.c
 *	  Text input and output of ots.cells, in the jsonb encoding of codec.h:
 *	  {"row_ts": <ms>, "cells": {"<column>": [{"ts": <ms>, "value": <v>}, ...]}}
 *
 * pg_dump writes ots storage rows in this form, so output and input
 * round-trip every value exactly, and input accepts every row ots can
 * store (DESIGN.md §9).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "cells.h"
#include "codec.h"
#include "errors.h"
#include "read_select.h"

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
	ReadSelect	all;
	JsonbParseState *state = NULL;
	JsonbValue	attrs;
	JsonbValue *res;
	uint32		size = 0;
	int			ncols;
	Jsonb	   *cells;

	cells_reader_init(&r, v);
	memset(&all, 0, sizeof(all));
	all.time_to_live = -1;
	all.table_max_versions = PG_INT32_MAX;
	all.max_versions = PG_INT32_MAX;
	all.with_ts = true;
	cells = select_render_attributes(&all, &r, &size, &ncols);

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	codec_push_key(&state, "row_ts", 6);
	codec_push_int(&state, r.row_ts, WJB_VALUE);
	codec_push_key(&state, "cells", 5);
	attrs.type = jbvBinary;
	attrs.val.binary.data = &cells->root;
	attrs.val.binary.len = VARSIZE(cells) - VARHDRSZ;
	pushJsonbValue(&state, WJB_VALUE, &attrs);
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	PG_RETURN_CSTRING(JsonbToCString(NULL, &JsonbValueToJsonb(res)->root, VARSIZE(v)));
}
