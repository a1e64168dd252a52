/*-------------------------------------------------------------------------
 * src/format/plainbuffer.c
 *	  PlainBuffer rows written from ots's values (format/plainbuffer.h).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "format/plainbuffer.h"
#include "format/plainbuffer_wire.h"

static void
put_le(StringInfo out, uint64 v, int n)
{
	char		le[8];

	for (int i = 0; i < n; i++)
		le[i] = (char) (v >> (8 * i));
	appendBinaryStringInfo(out, le, n);
}

static uint8
wire_type(OtsValueType t)
{
	switch (t)
	{
		case OTS_VT_STRING:
			return PB_VT_STRING;
		case OTS_VT_INTEGER:
			return PB_VT_INTEGER;
		case OTS_VT_DOUBLE:
			return PB_VT_DOUBLE;
		case OTS_VT_BOOLEAN:
			return PB_VT_BOOLEAN;
		case OTS_VT_BINARY:
			return PB_VT_BLOB;
	}
	elog(ERROR, "value of unknown type %d", (int) t);
	return 0;					/* keep the compiler quiet */
}

/* cell_begin: a cell's tag and name; returns the cell's checksum so far */
static uint8
cell_begin(StringInfo out, const char *name, uint32 namelen)
{
	appendStringInfoCharMacro(out, PB_TAG_CELL);
	appendStringInfoCharMacro(out, PB_TAG_CELL_NAME);
	put_le(out, namelen, 4);
	appendBinaryStringInfo(out, name, namelen);
	return pb_crc8(0, (const uint8 *) name, namelen);
}

/* cell_end: the cell's checksum, folded into the row's */
static void
cell_end(PlainBufferRow *row, uint8 crc)
{
	appendStringInfoCharMacro(row->out, PB_TAG_CELL_CHECKSUM);
	appendStringInfoCharMacro(row->out, crc);
	row->crc = pb_crc8_byte(row->crc, crc);
}

/* cell: tag, name, value and (has_ts) timestamp, then the cell's checksum */
static void
cell(PlainBufferRow *row, const char *name, uint32 namelen, const OtsValue *v,
	 bool has_ts, int64 ts)
{
	StringInfo	out = row->out;
	uint8		type = wire_type(v->type);
	uint8		crc = cell_begin(out, name, namelen);
	uint64		bits;

	appendStringInfoCharMacro(out, PB_TAG_CELL_VALUE);
	crc = pb_crc8_byte(crc, type);
	switch (v->type)
	{
		case OTS_VT_INTEGER:
		case OTS_VT_DOUBLE:
			if (v->type == OTS_VT_INTEGER)
				bits = (uint64) v->u.i;
			else
				memcpy(&bits, &v->u.d, sizeof(bits));
			put_le(out, 1 + 8, 4);
			appendStringInfoCharMacro(out, type);
			put_le(out, bits, 8);
			crc = pb_crc8_le(crc, bits, 8);
			break;
		case OTS_VT_BOOLEAN:
			put_le(out, 1 + 1, 4);
			appendStringInfoCharMacro(out, type);
			appendStringInfoCharMacro(out, v->u.b ? 1 : 0);
			crc = pb_crc8_byte(crc, v->u.b ? 1 : 0);
			break;
		case OTS_VT_STRING:
		case OTS_VT_BINARY:
			put_le(out, 1 + 4 + (uint64) v->u.s.len, 4);
			appendStringInfoCharMacro(out, type);
			put_le(out, v->u.s.len, 4);
			appendBinaryStringInfo(out, v->u.s.data, v->u.s.len);
			crc = pb_crc8_le(crc, v->u.s.len, 4);
			crc = pb_crc8(crc, (const uint8 *) v->u.s.data, v->u.s.len);
			break;
	}
	if (has_ts)
	{
		appendStringInfoCharMacro(out, PB_TAG_CELL_TIMESTAMP);
		put_le(out, (uint64) ts, 8);
		crc = pb_crc8_le(crc, (uint64) ts, 8);
	}
	cell_end(row, crc);
}

void
plainbuffer_header(StringInfo out)
{
	put_le(out, PB_HEADER, 4);
}

void
plainbuffer_row_begin(PlainBufferRow *row, StringInfo out)
{
	row->out = out;
	row->start = out->len;
	row->crc = 0;
	row->attributes = false;
	appendStringInfoCharMacro(out, PB_TAG_ROW_PK);
}

void
plainbuffer_key_cells(PlainBufferRow *row, const OtsTable *t, const PkInput *pk)
{
	for (int i = 0; i < t->npk; i++)
		cell(row, t->pk[i].name, t->pk[i].namelen, &pk->v[i], false, 0);
}

void
plainbuffer_key_cell(PlainBufferRow *row, const char *name, uint32 namelen, const OtsValue *v)
{
	cell(row, name, namelen, v, false, 0);
}

void
plainbuffer_key_special(PlainBufferRow *row, const char *name, uint32 namelen, PkSpecial special)
{
	StringInfo	out = row->out;
	uint8		type = special == PK_INF_MIN ? PB_VT_INF_MIN :
		special == PK_INF_MAX ? PB_VT_INF_MAX : PB_VT_AUTO_INCREMENT;
	uint8		crc = cell_begin(out, name, namelen);

	Assert(special != PK_VALUE);
	/* the value is its type alone */
	appendStringInfoCharMacro(out, PB_TAG_CELL_VALUE);
	put_le(out, 1, 4);
	appendStringInfoCharMacro(out, type);
	cell_end(row, pb_crc8_byte(crc, type));
}

void
plainbuffer_key_row(StringInfo out, const OtsTable *t, const PkInput *pk)
{
	PlainBufferRow row;

	plainbuffer_row_begin(&row, out);
	plainbuffer_key_cells(&row, t, pk);
	plainbuffer_row_end(&row);
}

void
plainbuffer_attribute_cell(PlainBufferRow *row, const char *name, uint32 namelen,
						   const OtsValue *v, int64 ts)
{
	if (!row->attributes)
	{
		appendStringInfoCharMacro(row->out, PB_TAG_ROW_DATA);
		row->attributes = true;
	}
	cell(row, name, namelen, v, true, ts);
}

void
plainbuffer_attribute_value(PlainBufferRow *row, const char *name, uint32 namelen,
							const OtsValue *v)
{
	if (!row->attributes)
	{
		appendStringInfoCharMacro(row->out, PB_TAG_ROW_DATA);
		row->attributes = true;
	}
	cell(row, name, namelen, v, false, 0);
}

void
plainbuffer_row_end(PlainBufferRow *row)
{
	appendStringInfoCharMacro(row->out, PB_TAG_ROW_CHECKSUM);
	appendStringInfoCharMacro(row->out, pb_crc8_byte(row->crc, 0));	/* no delete marker */
}

void
plainbuffer_row_cancel(PlainBufferRow *row)
{
	row->out->len = row->start;
	row->out->data[row->start] = '\0';
}
