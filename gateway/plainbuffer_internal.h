/*-------------------------------------------------------------------------
 * gateway/plainbuffer_internal.h
 *	  What plainbuffer.c, plainbuffer_read.c and plainbuffer_write.c share:
 *	  the wire format's tags and types, a value as it travels, checksums,
 *	  little-endian integers and base64.  Only those three files include it.
 *
 * The wire format (all integers little-endian):
 *	  buffer  = int32 0x75, row*
 *	  row	  = 0x01 cell* [0x02 cell*] [0x08] 0x09 crc
 *	  cell	  = 0x03 0x04 int32 len name [0x05 value] [0x06 op] [0x07 int64 ts]
 *				0x0A crc
 *	  value   = int32 len, type byte, payload (int64, double, one byte for a
 *				boolean, int32 len + bytes for a string or blob, nothing for
 *				INF_MIN / INF_MAX / AUTO_INCREMENT)
 * A cell's CRC-8 covers its name, value (type, then payload with lengths),
 * timestamp and op, in that order; a row's covers its cells' CRCs and then
 * one byte, 1 with the delete marker, 0 without.
 *-------------------------------------------------------------------------
 */
#ifndef OTSD_PLAINBUFFER_INTERNAL_H
#define OTSD_PLAINBUFFER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "plainbuffer.h"

#define PB_HEADER				0x75

#define PB_TAG_ROW_PK			0x01
#define PB_TAG_ROW_DATA			0x02
#define PB_TAG_CELL				0x03
#define PB_TAG_CELL_NAME		0x04
#define PB_TAG_CELL_VALUE		0x05
#define PB_TAG_CELL_TYPE		0x06
#define PB_TAG_CELL_TIMESTAMP	0x07
#define PB_TAG_DELETE_MARKER	0x08
#define PB_TAG_ROW_CHECKSUM		0x09
#define PB_TAG_CELL_CHECKSUM	0x0A

/* cell operations (PB_TAG_CELL_TYPE); no tag means PUT */
#define PB_OP_DELETE_ALL_VERSION 0x01
#define PB_OP_DELETE_ONE_VERSION 0x03
#define PB_OP_INCREMENT			0x04

/* value types */
#define PB_VT_INTEGER			0x00
#define PB_VT_DOUBLE			0x01
#define PB_VT_BOOLEAN			0x02
#define PB_VT_STRING			0x03
#define PB_VT_NULL				0x06
#define PB_VT_BLOB				0x07
#define PB_VT_INF_MIN			0x09
#define PB_VT_INF_MAX			0x0A
#define PB_VT_AUTO_INCREMENT	0x0B

/* one value as it travels */
typedef struct PbValue
{
	uint8_t		type;
	int64_t		integer;		/* PB_VT_INTEGER */
	double		real;			/* PB_VT_DOUBLE */
	bool		boolean;		/* PB_VT_BOOLEAN */
	const uint8_t *bytes;		/* PB_VT_STRING, PB_VT_BLOB */
	uint32_t	size;
} PbValue;

/* plainbuffer.c */
extern uint8_t pb_crc8_byte(uint8_t crc, uint8_t byte);
extern uint8_t pb_crc8_u64(uint8_t crc, uint64_t v);
extern uint8_t pb_crc8_value(uint8_t crc, const PbValue *v);
extern void pb_le32(uint8_t out[4], uint32_t v);
extern void pb_le64(uint8_t out[8], uint64_t v);
extern uint64_t pb_double_bits(double d);
extern json_t *pb_base64_json(const uint8_t *bytes, size_t n);
extern bool pb_base64_decode(const char *text, size_t n, uint8_t **out, size_t *outlen);

#endif							/* OTSD_PLAINBUFFER_INTERNAL_H */
