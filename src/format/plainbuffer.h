/*-------------------------------------------------------------------------
 * src/format/plainbuffer.h
 *	  Rows in PlainBuffer, Tablestore's row wire format (its tags and
 *	  checksum: format/plainbuffer_wire.h), written straight from a key's
 *	  values and a row's selected cells: what otsd copies into a response
 *	  without reading it (the ots.wire_* functions, api/wire.c).
 *-------------------------------------------------------------------------
 */
#ifndef OTS_PLAINBUFFER_H
#define OTS_PLAINBUFFER_H

#include "postgres.h"
#include "lib/stringinfo.h"

#include "format/codec.h"
#include "format/value.h"
#include "meta/catalog.h"

/* one row being written: its cells' checksums fold into crc */
typedef struct PlainBufferRow
{
	StringInfo	out;
	int			start;			/* out->len before the row: where to cut it off again */
	uint8		crc;
	bool		attributes;		/* the attribute cells' tag is written */
} PlainBufferRow;

/* plainbuffer_header: the buffer's leading int32, once before its rows */
extern void plainbuffer_header(StringInfo out);

/* plainbuffer_row_begin: a row's key tag; its key cells follow */
extern void plainbuffer_row_begin(PlainBufferRow *row, StringInfo out);

/* plainbuffer_key_cells: a key's cells, in the table's order */
extern void plainbuffer_key_cells(PlainBufferRow *row, const OtsTable *t, const PkInput *pk);

/* plainbuffer_key_cell: one key cell, named as given */
extern void plainbuffer_key_cell(PlainBufferRow *row, const char *name, uint32 namelen,
								 const OtsValue *v);

/* plainbuffer_key_special: a key cell of INF_MIN, INF_MAX or AUTO_INCREMENT, as a request gave it */
extern void plainbuffer_key_special(PlainBufferRow *row, const char *name, uint32 namelen,
									PkSpecial special);

/* plainbuffer_key_row: a whole row of the key alone (a next_start_primary_key) */
extern void plainbuffer_key_row(StringInfo out, const OtsTable *t, const PkInput *pk);

/* plainbuffer_attribute_cell: one version of an attribute column, with its timestamp (ms) */
extern void plainbuffer_attribute_cell(PlainBufferRow *row, const char *name, uint32 namelen,
									   const OtsValue *v, int64 ts);

/* plainbuffer_attribute_value: an attribute cell without timestamp (an update's RT_AFTER_MODIFY) */
extern void plainbuffer_attribute_value(PlainBufferRow *row, const char *name, uint32 namelen,
										const OtsValue *v);

/* plainbuffer_row_end: the row's checksum */
extern void plainbuffer_row_end(PlainBufferRow *row);

/* plainbuffer_row_cancel: takes the row written so far back out of the buffer */
extern void plainbuffer_row_cancel(PlainBufferRow *row);

#endif							/* OTS_PLAINBUFFER_H */
