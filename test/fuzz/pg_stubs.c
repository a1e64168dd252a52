/*-------------------------------------------------------------------------
 * test/fuzz/pg_stubs.c
 *	  Just enough of the PostgreSQL backend to run src/format/cells.c and
 *	  src/format/value.c outside a server: malloc-backed palloc, an ereport that
 *	  longjmps back to the harness on ERROR, the pqformat/StringInfo calls
 *	  used by binary I/O, and libc-backed replacements for pgport's printf
 *	  family and qsort.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "utils/memutils.h"

#include "pg_stubs.h"

/* pgport maps these to pg_* versions; the stubs below are the real thing */
#undef vsnprintf
#undef snprintf
#undef vsprintf
#undef sprintf
#undef vfprintf
#undef fprintf
#undef vprintf
#undef printf
#undef qsort

/* ---- error reporting ---- */

sigjmp_buf *stub_error_jmp = NULL;
int			stub_error_code = 0;
char		stub_error_message[1024];
char		stub_error_detail[1024];
static int	stub_elevel;

bool
errstart(int elevel, const char *domain)
{
	stub_elevel = elevel;
	if (elevel >= ERROR)
	{
		stub_error_code = ERRCODE_INTERNAL_ERROR;
		stub_error_message[0] = '\0';
		stub_error_detail[0] = '\0';
	}
	return elevel >= ERROR;
}

bool
errstart_cold(int elevel, const char *domain)
{
	return errstart(elevel, domain);
}

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	if (stub_elevel < ERROR)
		return;
	if (stub_error_jmp == NULL)
	{
		fprintf(stderr, "unexpected ERROR at %s:%d (%s): %s: %s\n",
				filename, lineno, funcname, stub_error_message, stub_error_detail);
		abort();
	}
	siglongjmp(*stub_error_jmp, 1);
}

int
errcode(int sqlerrcode)
{
	stub_error_code = sqlerrcode;
	return 0;
}

int
errmsg(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(stub_error_message, sizeof(stub_error_message), fmt, ap);
	va_end(ap);
	return 0;
}

int
errmsg_internal(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(stub_error_message, sizeof(stub_error_message), fmt, ap);
	va_end(ap);
	return 0;
}

int
errdetail(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(stub_error_detail, sizeof(stub_error_detail), fmt, ap);
	va_end(ap);
	return 0;
}

void
ExceptionalCondition(const char *conditionName, const char *errorType,
					 const char *fileName, int lineNumber)
{
	fprintf(stderr, "%s(\"%s\", File: \"%s\", Line: %d)\n",
			errorType, conditionName, fileName, lineNumber);
	abort();
}

/* ---- memory ---- */

/*
 * Every chunk is linked into one list so stub_free_all can play the part of
 * a memory-context reset (the builder has no destroy function, just as in
 * the backend).  Each chunk is its own malloc block, so ASan still sees
 * overruns at the exact end of a palloc'd area.
 */
typedef union StubChunk
{
	struct
	{
		union StubChunk *prev;
		union StubChunk *next;
	}			link;
	max_align_t align;
} StubChunk;

static StubChunk stub_chunks = {{&stub_chunks, &stub_chunks}};
static char stub_context_dummy;
MemoryContext CurrentMemoryContext = (MemoryContext) &stub_context_dummy;

static void
stub_link(StubChunk *c)
{
	c->link.prev = &stub_chunks;
	c->link.next = stub_chunks.link.next;
	stub_chunks.link.next->link.prev = c;
	stub_chunks.link.next = c;
}

static void
stub_unlink(StubChunk *c)
{
	c->link.prev->link.next = c->link.next;
	c->link.next->link.prev = c->link.prev;
}

static void *
stub_alloc(Size size)
{
	StubChunk  *c;

	if (!AllocSizeIsValid(size))
		elog(ERROR, "invalid memory alloc request size %zu", size);
	c = malloc(sizeof(StubChunk) + size);
	if (c == NULL)
		abort();
	stub_link(c);
	return c + 1;
}

void
stub_free_all(void)
{
	while (stub_chunks.link.next != &stub_chunks)
	{
		StubChunk  *c = stub_chunks.link.next;

		stub_unlink(c);
		free(c);
	}
}

void *
MemoryContextAlloc(MemoryContext context, Size size)
{
	return stub_alloc(size);
}

void *
palloc(Size size)
{
	return stub_alloc(size);
}

void *
palloc0(Size size)
{
	void	   *p = stub_alloc(size);

	memset(p, 0, size);
	return p;
}

void *
repalloc(void *pointer, Size size)
{
	StubChunk  *c = (StubChunk *) pointer - 1;

	if (!AllocSizeIsValid(size))
		elog(ERROR, "invalid memory alloc request size %zu", size);
	stub_unlink(c);
	c = realloc(c, sizeof(StubChunk) + size);
	if (c == NULL)
		abort();
	stub_link(c);
	return c + 1;
}

void
pfree(void *pointer)
{
	StubChunk  *c = (StubChunk *) pointer - 1;

	stub_unlink(c);
	free(c);
}

/* ---- StringInfo / pqformat ---- */

void
initStringInfo(StringInfo str)
{
	str->maxlen = 64;
	str->data = palloc(str->maxlen);
	str->len = 0;
	str->cursor = 0;
	str->data[0] = '\0';
}

void
enlargeStringInfo(StringInfo str, int needed)
{
	if (needed < 0 || (Size) needed >= MaxAllocSize - (Size) str->len)
		elog(ERROR, "out of memory");
	needed += str->len + 1;
	if (needed <= str->maxlen)
		return;
	while (needed > str->maxlen)
		str->maxlen *= 2;
	str->data = repalloc(str->data, str->maxlen);
}

void
appendBinaryStringInfo(StringInfo str, const char *data, int datalen)
{
	enlargeStringInfo(str, datalen);
	memcpy(str->data + str->len, data, datalen);
	str->len += datalen;
	str->data[str->len] = '\0';
}

void
pq_sendbytes(StringInfo buf, const char *data, int datalen)
{
	appendBinaryStringInfo(buf, data, datalen);
}

void
pq_begintypsend(StringInfo buf)
{
	initStringInfo(buf);
	appendBinaryStringInfo(buf, "\0\0\0\0", VARHDRSZ);
}

bytea *
pq_endtypsend(StringInfo buf)
{
	bytea	   *result = (bytea *) buf->data;

	SET_VARSIZE(result, buf->len);
	return result;
}

const char *
pq_getmsgbytes(StringInfo msg, int datalen)
{
	const char *result;

	if (datalen < 0 || datalen > (msg->len - msg->cursor))
		elog(ERROR, "insufficient data left in message");
	result = &msg->data[msg->cursor];
	msg->cursor += datalen;
	return result;
}

struct varlena *
pg_detoast_datum_packed(struct varlena *datum)
{
	if (VARATT_IS_EXTENDED(datum) && !VARATT_IS_SHORT(datum))
		elog(ERROR, "toasted datums are not supported by the stubs");
	return datum;
}

/* ---- pgport ---- */

int
pg_vsnprintf(char *str, size_t count, const char *fmt, va_list args)
{
	return vsnprintf(str, count, fmt, args);
}

int
pg_snprintf(char *str, size_t count, const char *fmt,...)
{
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(str, count, fmt, ap);
	va_end(ap);
	return n;
}

int
pg_vfprintf(FILE *stream, const char *fmt, va_list args)
{
	return vfprintf(stream, fmt, args);
}

int
pg_fprintf(FILE *stream, const char *fmt,...)
{
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vfprintf(stream, fmt, ap);
	va_end(ap);
	return n;
}

int
pg_printf(const char *fmt,...)
{
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return n;
}

void
pg_qsort(void *base, size_t nel, size_t elsize,
		 int (*cmp) (const void *, const void *))
{
	qsort(base, nel, elsize, cmp);
}
