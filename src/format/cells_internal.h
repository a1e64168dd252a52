/*-------------------------------------------------------------------------
 * src/format/cells_internal.h
 *	  The byte primitives of the ots.cells format (cells.h), shared by the
 *	  files that write and read its bytes: cells.c (version 1, a row's or a
 *	  chunk's cells) and cells_head.c (version 2, a split row's head).  Not
 *	  for use outside src/format.
 *-------------------------------------------------------------------------
 */
#ifndef OTS_CELLS_INTERNAL_H
#define OTS_CELLS_INTERNAL_H

#include "postgres.h"

#include "format/value.h"

/* LEB128 of a 64-bit value: nine 7-bit groups plus one holding bit 63 */
#define CELLS_VARINT_MAX_BYTES	10

/* raise the one error every defect in untrusted bytes is reported with */
#define cells_invalid(...) \
	ereport(ERROR, \
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION), \
			 errmsg("invalid ots.cells value"), \
			 errdetail(__VA_ARGS__)))

/* ---------------------------------------------------------------------
 * Little-endian and varint primitives
 * ---------------------------------------------------------------------
 */

static inline uint32
cells_get_u32(const uint8 *p)
{
	return (uint32) p[0] | ((uint32) p[1] << 8) |
		((uint32) p[2] << 16) | ((uint32) p[3] << 24);
}

static inline uint64
cells_get_u64(const uint8 *p)
{
	return (uint64) cells_get_u32(p) | ((uint64) cells_get_u32(p + 4) << 32);
}

static inline void
cells_put_u32(uint8 *p, uint32 v)
{
	p[0] = (uint8) v;
	p[1] = (uint8) (v >> 8);
	p[2] = (uint8) (v >> 16);
	p[3] = (uint8) (v >> 24);
}

static inline void
cells_put_u64(uint8 *p, uint64 v)
{
	cells_put_u32(p, (uint32) v);
	cells_put_u32(p + 4, (uint32) (v >> 32));
}

static inline uint64
cells_zigzag_encode(int64 n)
{
	return ((uint64) n << 1) ^ (n < 0 ? ~UINT64CONST(0) : UINT64CONST(0));
}

static inline int64
cells_zigzag_decode(uint64 u)
{
	return (int64) ((u >> 1) ^ (~(u & 1) + 1));
}

/* cells_varint_len is the encoded size of v */
static inline uint32
cells_varint_len(uint64 v)
{
	uint32		n = 1;

	while (v >= 0x80)
	{
		v >>= 7;
		n++;
	}
	return n;
}

/* cells_put_varint writes v at p and returns the number of bytes written */
static inline uint32
cells_put_varint(uint8 *p, uint64 v)
{
	uint32		n = 0;

	while (v >= 0x80)
	{
		p[n++] = (uint8) (v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8) v;
	return n;
}

/*
 * cells_get_varint decodes a varint of a value already known valid and
 * advances *p past it.
 */
static inline uint64
cells_get_varint(const uint8 **p)
{
	const uint8 *s = *p;
	uint64		v = 0;
	int			shift = 0;

	for (;;)
	{
		uint8		b = *s++;

		v |= (uint64) (b & 0x7F) << shift;
		if ((b & 0x80) == 0)
			break;
		shift += 7;
	}
	*p = s;
	return v;
}

/*
 * cells_get_varint_checked decodes a varint from untrusted bytes in
 * [*p, end), advancing *p, or raises an error naming "what" if it is
 * truncated, longer than 64 bits allow, or not in canonical (shortest) form.
 */
static inline uint64
cells_get_varint_checked(const uint8 **p, const uint8 *end, const char *what)
{
	const uint8 *s = *p;
	uint64		v = 0;
	int			i;

	for (i = 0; i < CELLS_VARINT_MAX_BYTES; i++)
	{
		uint8		b;

		if (s >= end)
			cells_invalid("The %s is truncated.", what);
		b = *s++;
		if (i == CELLS_VARINT_MAX_BYTES - 1 && b > 1)
			cells_invalid("The %s does not fit in 64 bits.", what);
		v |= (uint64) (b & 0x7F) << (7 * i);
		if ((b & 0x80) == 0)
		{
			if (b == 0 && i > 0)
				cells_invalid("The %s is not in canonical varint form.", what);
			*p = s;
			return v;
		}
	}
	/* unreachable: the tenth byte is at most 1, so it ended the loop */
	cells_invalid("The %s does not fit in 64 bits.", what);
	return 0;
}

/*
 * cells_utf8_valid says whether s[0..len) is well-formed UTF-8 that
 * PostgreSQL accepts as text: no overlong forms, no surrogates, nothing
 * above U+10FFFF, and no NUL bytes (which text cannot hold).
 */
static inline bool
cells_utf8_valid(const uint8 *s, uint32 len)
{
	const uint8 *end = s + len;

	while (s < end)
	{
		uint8		c = *s;
		uint32		n;
		uint8		lo = 0x80;
		uint8		hi = 0xBF;
		uint32		k;

		if (c < 0x80)
		{
			if (c == 0)
				return false;
			s++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			n = 2;
		else if (c >= 0xE0 && c <= 0xEF)
		{
			n = 3;
			if (c == 0xE0)
				lo = 0xA0;		/* overlong */
			else if (c == 0xED)
				hi = 0x9F;		/* surrogates */
		}
		else if (c >= 0xF0 && c <= 0xF4)
		{
			n = 4;
			if (c == 0xF0)
				lo = 0x90;		/* overlong */
			else if (c == 0xF4)
				hi = 0x8F;		/* above U+10FFFF */
		}
		else
			return false;

		if ((uint32) (end - s) < n)
			return false;
		if (s[1] < lo || s[1] > hi)
			return false;
		for (k = 2; k < n; k++)
			if (s[k] < 0x80 || s[k] > 0xBF)
				return false;
		s += n;
	}
	return true;
}

/* cells_value_encoded_len: a value's type byte and encoding, in bytes (cells.c) */
extern uint32 cells_value_encoded_len(const OtsValue *v);

#endif							/* OTS_CELLS_INTERNAL_H */
