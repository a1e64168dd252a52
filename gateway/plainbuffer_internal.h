/*-------------------------------------------------------------------------
 * gateway/plainbuffer_internal.h
 *	  What plainbuffer.c, plainbuffer_read.c and plainbuffer_write.c share,
 *	  and row_matrix.c, whose format has the same value types: the wire
 *	  format's tags and types, a value as it travels, checksums,
 *	  little-endian integers and base64.  Only those four files include it.
 *
 * The wire format's tags, types and checksum: src/format/plainbuffer_wire.h;
 * a value as it travels (PbValue) and the reader's rules:
 * src/format/plainbuffer_decode.h.
 *-------------------------------------------------------------------------
 */
#ifndef OTSD_PLAINBUFFER_INTERNAL_H
#define OTSD_PLAINBUFFER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "plainbuffer.h"
#include "format/plainbuffer_decode.h"

/* plainbuffer_write.c: ots's jsonb value as a PbValue (false: none); a blob's bytes malloc'd into *owned */
extern bool pb_json_value(json_t *j, PbValue *v, uint8_t **owned);
/* plainbuffer_write.c: a little-endian u32 appended */
extern void pb_put_u32(Buf *out, uint32_t v);

/* plainbuffer.c */
extern void pb_le32(uint8_t out[4], uint32_t v);
extern void pb_le64(uint8_t out[8], uint64_t v);
extern uint64_t pb_double_bits(double d);
extern json_t *pb_base64_json(const uint8_t *bytes, size_t n);
extern bool pb_base64_decode(const char *text, size_t n, uint8_t **out, size_t *outlen);

#endif							/* OTSD_PLAINBUFFER_INTERNAL_H */
