/*-------------------------------------------------------------------------
 * gateway/memory.c
 *	  The memory requests may decode in: a bound per request, and one for
 *	  all requests at once (the setting decode_memory).
 *
 * Decoding a request takes many times its body: protobuf-c's messages (a
 * malloc per repeated string), the PlainBuffer rows as jansson values (a
 * few hundred bytes per cell), the SQL call's json text.  A 5 MB body of
 * small cells or names took 25 to 60 times its size, so a few concurrent
 * requests, of a key with no privilege at all, held a gigabyte before
 * PostgreSQL refused them.  So before its action runs, a request reserves
 * its bound, DECODE_PER_BODY_BYTE times its body plus DECODE_BASE (at most
 * decode_memory), from decode_memory, waiting up to RESERVE_WAIT_SECONDS for
 * room (else 503 OTSServerBusy); requests that decode at once never hold
 * more than decode_memory between them.
 *
 * While the action runs on the request's thread, every allocation of
 * protobuf-c (memory_protobuf, through UNPACK and FREE) and of jansson
 * (json_set_alloc_funcs, process-wide: jansson allocates only for requests)
 * is counted against the request's bound, by malloc_usable_size, so that
 * memory freed with plain free() is simply not credited.  protobuf-c's
 * allocations fail once the bound is used up (protobuf-c then returns no
 * message); jansson's never fail (the action's code does not expect them
 * to), and the places that can stop ask memory_exceeded, which stays true
 * once the bound was passed: the PlainBuffer decoder after each cell, the
 * lists of column names, the reply of a request (or a filter) that did not
 * unpack, and sql_run before any statement.  So a request decodes in its
 * bound and at most one allocation more, and one that passes it is answered
 * 413 OTSRequestBodyTooLarge, as a body over max_body is, and runs no SQL.
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "otsd.h"

/*
 * What a request may decode in: the largest write of small cells that
 * Tablestore's limits allow (200 rows of 1,000 booleans, 3.8 MB) took 30
 * times its body; millions of one-byte column names, which no limit allows,
 * 35 times; millions of empty ones 52 times, and are refused.
 */
#define DECODE_PER_BODY_BYTE 48
#define DECODE_BASE (1024 * 1024)
#define RESERVE_WAIT_SECONDS 10
/* a request that decoded in more than this gives its memory back to the system */
#define TRIM_AFTER_BYTES (16 * 1024 * 1024)

static pthread_mutex_t memory_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t memory_freed = PTHREAD_COND_INITIALIZER;
static size_t memory_total;		/* decode_memory */
static size_t memory_reserved;	/* by the requests decoding now */

/* the request this thread decodes for, NULL between requests */
static __thread MemoryBound *current;

static void
count(size_t bytes)
{
	if (current == NULL)
		return;
	current->used += bytes;
	if (current->used > current->peak)
		current->peak = current->used;
	if (current->used > current->limit)
		current->exceeded = true;
}

static void
uncount(size_t bytes)
{
	if (current != NULL)
		current->used -= bytes < current->used ? bytes : current->used;
}

static void *
counted_malloc(size_t size)
{
	void	   *p = malloc(size);

	if (p != NULL)
		count(malloc_usable_size(p));
	return p;
}

static void
counted_free(void *p)
{
	if (p == NULL)
		return;
	uncount(malloc_usable_size(p));
	free(p);
}

/* protobuf-c's allocations fail once the request's bound is used up */
static void *
protobuf_alloc(void *unused, size_t size)
{
	if (current != NULL && current->used + size > current->limit)
	{
		current->exceeded = true;
		return NULL;
	}
	return counted_malloc(size);
}

static void
protobuf_free(void *unused, void *p)
{
	counted_free(p);
}

ProtobufCAllocator memory_protobuf = {protobuf_alloc, protobuf_free, NULL};

/* memory_start: decode_memory bytes for all requests; jansson counted from here on */
void
memory_start(size_t decode_memory)
{
	memory_total = decode_memory;
	json_set_alloc_funcs(counted_malloc, counted_free);
}

/*
 * memory_reserve: the bound of a request of body_len bytes, reserved from
 * decode_memory (waiting up to RESERVE_WAIT_SECONDS for room), and made
 * the thread's current bound.  False after replying 503 OTSServerBusy.
 */
bool
memory_reserve(Call *call, MemoryBound *bound, size_t body_len)
{
	struct timespec deadline;
	size_t		limit = DECODE_BASE;

	if (body_len > (memory_total - DECODE_BASE) / DECODE_PER_BODY_BYTE)
		limit = memory_total;
	else
		limit += body_len * DECODE_PER_BODY_BYTE;
	if (limit > memory_total)
		limit = memory_total;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += RESERVE_WAIT_SECONDS;
	pthread_mutex_lock(&memory_lock);
	while (memory_reserved + limit > memory_total)
	{
		if (pthread_cond_timedwait(&memory_freed, &memory_lock, &deadline) == ETIMEDOUT)
		{
			pthread_mutex_unlock(&memory_lock);
			call_error(call, 503, "OTSServerBusy", "Server is busy.");
			return false;
		}
	}
	memory_reserved += limit;
	pthread_mutex_unlock(&memory_lock);

	*bound = (MemoryBound) {.limit = limit};
	current = bound;
	return true;
}

/* memory_release: the request is done decoding; its reservation goes back */
void
memory_release(MemoryBound *bound)
{
	if (bound->limit == 0)
		return;
	current = NULL;
	/*
	 * what a large decode freed stays in this thread's malloc arena, out of
	 * reach of the others: hand it back, so that otsd's size follows
	 * decode_memory and not the sum of every thread's largest request
	 */
	if (bound->peak > TRIM_AFTER_BYTES)
		malloc_trim(0);
	pthread_mutex_lock(&memory_lock);
	memory_reserved -= bound->limit;
	pthread_cond_broadcast(&memory_freed);
	pthread_mutex_unlock(&memory_lock);
	bound->limit = 0;
}

/* memory_exceeded: the current request has used up its bound */
bool
memory_exceeded(void)
{
	return current != NULL && current->exceeded;
}

/* memory_refuse: the reply to a request that has used up its bound */
void
memory_refuse(Call *call)
{
	call_error(call, 413, "OTSRequestBodyTooLarge", "The size of POST data is too large.");
}
