/*-------------------------------------------------------------------------
 * src/format/plainbuffer_decode.h
 *	  PlainBuffer's reader: the rows of a request as cells checked against
 *	  Tablestore's rules, handed one by one to what builds the request from
 *	  them: otsd's jsonb (gateway/plainbuffer_read.c) or ots's typed write
 *	  requests (api/wire_row.c).  Plain C, no PostgreSQL header, compiled
 *	  into both, so a row is accepted or refused alike on either path.
 *
 * The input comes from clients we do not trust: every length is checked
 * against what is left, every checksum verified, and an error is a
 * sentence for OTSParameterInvalid (Tablestore's text where it has one).
 * Cells point into the input; nothing is allocated.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_PLAINBUFFER_DECODE_H
#define OTS_PLAINBUFFER_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/plainbuffer_wire.h"

/* the longest column name a cell may carry (a 1,024-byte request field) */
#define PB_MAX_NAME_BYTES		1024

/* the most key cells a row may carry: Tablestore allows 4 */
#define PB_MAX_KEY_CELLS		64

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

/*
 * one cell, checked: its name is UTF-8 without NUL, a String value too; a
 * key cell has a value of a key type and nothing else; an attribute cell
 * has what its operation needs (op 0 is a PUT)
 */
typedef struct PbCell
{
	const uint8_t *name;
	uint32_t	name_size;
	bool		has_value;
	PbValue		value;
	bool		has_op;
	uint8_t		op;
	bool		has_ts;
	int64_t		ts;
	uint8_t		checksum;		/* as computed, to fold into the row's */
} PbCell;

/*
 * What receives the rows.  A callback returns false to stop the decoding,
 * after writing its reason with pb_decoder_fail.
 */
typedef struct PbDecoder
{
	void	   *ctx;
	bool		(*row_begin) (void *ctx, int index);
	bool		(*key_cell) (void *ctx, const PbCell *cell);
	bool		(*attribute_cell) (void *ctx, const PbCell *cell);
	bool		(*row_end) (void *ctx, bool delete_marker);
	bool		(*stop) (void); /* asked after each attribute cell (otsd's memory bound) */
	char	   *err;			/* the message of a failure */
	size_t		errlen;
} PbDecoder;

/*
 * pb_decode: the rows of a PlainBuffer, at most max of them, each handed to
 * d; the number of rows, or -1 with the reason in d->err.
 */
extern int	pb_decode(const uint8_t *data, size_t len, int max, PbDecoder *d);

/*
 * pb_decode_one: the one row of a single-row request (a write's row, a
 * key); false with the reason in d->err, Tablestore's "The input parameter
 * is invalid." when there is no row
 */
extern bool pb_decode_one(const uint8_t *data, size_t len, PbDecoder *d);

/*
 * pb_fail_incremented_twice: Tablestore's refusal of a row that increments
 * cell's column twice, for the builder that keeps the row's increments (the
 * reader keeps nothing); returns false
 */
extern bool pb_fail_incremented_twice(PbDecoder *d, const PbCell *cell);

/*
 * pb_decode_variant: one bare value (a filter's column_value: type byte and
 * payload, no length), of a type a filter compares; false with the reason
 * in err.  column names it in messages.
 */
extern bool pb_decode_variant(const uint8_t *data, size_t len, const char *column,
							  PbValue *out, char *err, size_t errlen);

/* pb_decoder_fail: writes a callback's reason for stopping; returns false */
extern bool pb_decoder_fail(PbDecoder *d, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

/* pb_cell_name_text: a cell's name as a C string, for a message (at most PB_MAX_NAME_BYTES) */
extern const char *pb_cell_name_text(const PbCell *cell, char buf[PB_MAX_NAME_BYTES + 1]);

/* pb_type_name: a value type's name in Tablestore's messages; NULL: no such type */
extern const char *pb_type_name(uint8_t type);

/* pb_utf8_valid: whether n bytes are UTF-8 (no overlong form, surrogate or code point past U+10FFFF) */
extern bool pb_utf8_valid(const uint8_t *s, size_t n);

/* checksums: a value's (type, then payload) and a u64's (8 little-endian bytes) folded into crc */
extern uint8_t pb_crc8_value(uint8_t crc, const PbValue *v);
extern uint8_t pb_crc8_u64(uint8_t crc, uint64_t v);

#endif							/* OTS_PLAINBUFFER_DECODE_H */
