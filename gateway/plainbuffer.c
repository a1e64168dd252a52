/*-------------------------------------------------------------------------
 * gateway/plainbuffer.c
 *	  What PlainBuffer's reader (plainbuffer_read.c) and writer
 *	  (plainbuffer_write.c) share: little-endian integers, and base64, the
 *	  text of a Binary value in ots's jsonb.  Checksums:
 *	  src/format/plainbuffer_decode.c.
 *-------------------------------------------------------------------------
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "plainbuffer_internal.h"

/* pb_le32: v as 4 little-endian bytes */
void
pb_le32(uint8_t out[4], uint32_t v)
{
	for (int i = 0; i < 4; i++)
		out[i] = (uint8_t) (v >> (8 * i));
}

/* pb_le64: v as 8 little-endian bytes */
void
pb_le64(uint8_t out[8], uint64_t v)
{
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t) (v >> (8 * i));
}

/* pb_double_bits: the IEEE 754 bits of d, as PlainBuffer carries a Double */
uint64_t
pb_double_bits(double d)
{
	uint64_t	bits;

	memcpy(&bits, &d, sizeof(bits));
	return bits;
}

/* ----------------------------------------------------------------- base64 */

static const char pb_b64_alphabet[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* pb_base64_json: a blob as ots writes it, {"$binary": "<base64>"} */
json_t *
pb_base64_json(const uint8_t *bytes, size_t n)
{
	size_t		outlen = 4 * ((n + 2) / 3);
	char	   *text = malloc(outlen + 1);
	size_t		o = 0;
	json_t	   *result;

	if (text == NULL)
		abort();
	for (size_t i = 0; i < n; i += 3)
	{
		uint32_t	group = (uint32_t) bytes[i] << 16;

		if (i + 1 < n)
			group |= (uint32_t) bytes[i + 1] << 8;
		if (i + 2 < n)
			group |= bytes[i + 2];
		text[o++] = pb_b64_alphabet[(group >> 18) & 63];
		text[o++] = pb_b64_alphabet[(group >> 12) & 63];
		text[o++] = i + 1 < n ? pb_b64_alphabet[(group >> 6) & 63] : '=';
		text[o++] = i + 2 < n ? pb_b64_alphabet[group & 63] : '=';
	}
	text[o] = '\0';
	result = json_pack("{s:s#}", "$binary", text, o);
	free(text);
	return result;
}

/*
 * pb_base64_decode: the bytes of base64 text (padding optional, no
 * whitespace), malloc'd into *out; false if the text is not base64.
 */
bool
pb_base64_decode(const char *text, size_t n, uint8_t **out, size_t *outlen)
{
	uint8_t    *bytes = malloc(n / 4 * 3 + 3);
	size_t		o = 0;
	uint32_t	group = 0;
	int			bits = 0;

	if (bytes == NULL)
		abort();
	while (n > 0 && text[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++)
	{
		const char *at = text[i] ? strchr(pb_b64_alphabet, text[i]) : NULL;

		if (at == NULL)
		{
			free(bytes);
			return false;
		}
		group = (group << 6) | (uint32_t) (at - pb_b64_alphabet);
		bits += 6;
		if (bits >= 8)
		{
			bits -= 8;
			bytes[o++] = (uint8_t) (group >> bits);
		}
	}
	*out = bytes;
	*outlen = o;
	return true;
}
