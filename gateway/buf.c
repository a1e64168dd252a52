/*-------------------------------------------------------------------------
 * gateway/buf.c
 *	  The growable byte buffer otsd builds replies and PlainBuffer rows in.
 *
 * A Buf starts zeroed ({0}) and grows by doubling.  Running out of memory
 * ends the process: otsd holds no state a crash would lose that a failed
 * allocation could save.
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otsd.h"

/* buf_reserve makes room for n more bytes */
void
buf_reserve(Buf *buf, size_t n)
{
	size_t		need;
	size_t		cap;

	if (n > SIZE_MAX - buf->len)
	{
		fprintf(stderr, "otsd: buffer size overflow\n");
		abort();
	}
	need = buf->len + n;
	if (need <= buf->cap)
		return;
	cap = buf->cap ? buf->cap : 256;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	buf->data = realloc(buf->data, cap);
	if (buf->data == NULL)
	{
		fprintf(stderr, "otsd: out of memory (%zu bytes)\n", cap);
		abort();
	}
	buf->cap = cap;
}

/* buf_put appends n bytes */
void
buf_put(Buf *buf, const void *bytes, size_t n)
{
	if (n == 0)
		return;
	buf_reserve(buf, n);
	memcpy(buf->data + buf->len, bytes, n);
	buf->len += n;
}

/* buf_byte appends one byte */
void
buf_byte(Buf *buf, uint8_t byte)
{
	buf_reserve(buf, 1);
	buf->data[buf->len++] = byte;
}

/* buf_free releases the bytes and leaves an empty, reusable Buf */
void
buf_free(Buf *buf)
{
	free(buf->data);
	buf->data = NULL;
	buf->len = 0;
	buf->cap = 0;
}
