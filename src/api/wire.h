/*-------------------------------------------------------------------------
 * src/api/wire.h
 *	  What the wire functions share (api/wire.c: ots.wire_get_row;
 *	  api/range_read.c: ots.wire_get_range; api/wire_write.c and
 *	  api/wire_batch.c: the writes): PlainBuffer bytes built in place as a
 *	  bytea, and the result's capacity units as integers.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_WIRE_H
#define OTS_WIRE_H

#include "postgres.h"
#include "fmgr.h"
#include "lib/stringinfo.h"

#include "api/request.h"

/* wire_buffer: a buffer whose bytes, after VARHDRSZ reserved, become a bytea */
extern void wire_buffer(StringInfo buf);

/* wire_bytea: such a buffer's bytes as a bytea, in the same memory */
extern bytea *wire_bytea(StringInfo buf);

/*
 * wire_result: the wire function's result tuple, values and nulls of its
 * leading columns and then read_cu and write_cu from consumed
 */
extern Datum wire_result(FunctionCallInfo fcinfo, Datum *values, bool *nulls,
						 const Consumed *consumed);

#endif							/* OTS_WIRE_H */
