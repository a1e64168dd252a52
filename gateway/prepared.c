/*
 * gateway/prepared.c
 *	  Each connection prepares a statement text the first time it runs it and
 *	  executes it prepared from then on, as pgbench -M prepared does: an
 *	  action's SQL differs only in which named arguments a request gives, so
 *	  a connection sees a few dozen texts, and the server skips parsing and
 *	  planning them per request.
 *
 * Prepared statements are the session's, not the transaction's (a rollback
 * keeps them), so the record of what a connection prepared lives until
 * pool.c closes it (prepared_forget).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otsd.h"

typedef struct Prepared
{
	PGconn	   *conn;
	char	   *sql;
	uint64_t	hash;
	char		name[24];
	struct Prepared *next;
} Prepared;

/* a hash table of every connection's statements: a lookup compares one text */
#define PREPARED_BUCKETS 4096

static pthread_mutex_t prepared_lock = PTHREAD_MUTEX_INITIALIZER;
static Prepared *prepared_buckets[PREPARED_BUCKETS];
static unsigned long prepared_count;

/* FNV-1a of the text, mixed with the connection */
static uint64_t
prepared_hash(PGconn *conn, const char *sql)
{
	uint64_t	h = UINT64_C(0xcbf29ce484222325) ^ (uint64_t) (uintptr_t) conn;

	for (const unsigned char *c = (const unsigned char *) sql; *c; c++)
		h = (h ^ *c) * UINT64_C(0x100000001b3);
	return h;
}

/* the name conn prepared sql under, copied to name; false if it did not */
static bool
prepared_find(PGconn *conn, const char *sql, uint64_t hash, char *name)
{
	bool		found = false;

	pthread_mutex_lock(&prepared_lock);
	for (Prepared *p = prepared_buckets[hash % PREPARED_BUCKETS]; p != NULL && !found; p = p->next)
		if (p->hash == hash && p->conn == conn && strcmp(p->sql, sql) == 0)
		{
			strcpy(name, p->name);
			found = true;
		}
	pthread_mutex_unlock(&prepared_lock);
	return found;
}

PGresult *
prepared_exec(PGconn *conn, const char *sql, int nparams, const char *const *values,
			  const int *lengths, const int *formats, bool binary_result)
{
	char		name[24];
	uint64_t	hash = prepared_hash(conn, sql);

	if (!prepared_find(conn, sql, hash, name))
	{
		Prepared   *p = calloc(1, sizeof(Prepared));
		PGresult   *res;

		if (p == NULL || (p->sql = strdup(sql)) == NULL)
			abort();
		pthread_mutex_lock(&prepared_lock);
		snprintf(p->name, sizeof(p->name), "otsd_%lu", ++prepared_count);
		pthread_mutex_unlock(&prepared_lock);
		res = PQprepare(conn, p->name, sql, nparams, NULL);
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
		{
			free(p->sql);
			free(p);
			return res;
		}
		PQclear(res);
		p->conn = conn;
		p->hash = hash;
		strcpy(name, p->name);
		pthread_mutex_lock(&prepared_lock);
		p->next = prepared_buckets[hash % PREPARED_BUCKETS];
		prepared_buckets[hash % PREPARED_BUCKETS] = p;
		pthread_mutex_unlock(&prepared_lock);
	}
	return PQexecPrepared(conn, name, nparams, values, lengths, formats, binary_result ? 1 : 0);
}

void
prepared_forget(PGconn *conn)
{
	pthread_mutex_lock(&prepared_lock);
	for (int b = 0; b < PREPARED_BUCKETS; b++)
	{
		Prepared  **link = &prepared_buckets[b];

		while (*link != NULL)
		{
			Prepared   *p = *link;

			if (p->conn == conn)
			{
				*link = p->next;
				free(p->sql);
				free(p);
			}
			else
				link = &p->next;
		}
	}
	pthread_mutex_unlock(&prepared_lock);
}
