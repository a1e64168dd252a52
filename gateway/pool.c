/*-------------------------------------------------------------------------
 * gateway/pool.c
 *	  libpq connections per access key, and local transactions pinned to one.
 *
 * A slot's connection (user = the key's role, so its privileges and
 * row-level security apply) opens on first use and is replaced when found
 * broken.  A call holds one slot from its first call_db until call_end; at
 * most pool_size calls of a key hold one at once, the next waits, then
 * answers 503 OTSServerBusy.
 *
 * A local transaction (StartLocalTransaction) pins a slot in BEGIN until
 * CommitTransaction / AbortTransaction, or for 60 s from its start, as in
 * Tablestore (then the reaper rolls it back once no call is using it).
 * Pinned slots do not count against the calls'
 * pool_size, so forgotten transactions never starve other calls; a key may
 * pin pool_size more slots for its transactions.  It belongs to the key that started it and to
 * one partition (TxnPartition: the table as its start spelled it and as
 * the key's role resolved it, its partition-key column and that column's
 * value); its id is 128 random bits.  Calls in a
 * transaction run under a savepoint each: a failed call leaves the
 * transaction usable, as in Tablestore, where PostgreSQL alone would abort
 * it.  Only one call uses a transaction at a time; another waits for it.
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "log.h"
#include "otsd.h"

#define TXN_LIFETIME_SECONDS 60	/* Tablestore's local transaction lifetime, from its start */
#define WAIT_SECONDS 10			/* for a free slot, or a busy transaction */
#define TXN_ID_BYTES 16
/*
 * how long a call waits for a lock held elsewhere (an SQL session's row, a
 * DDL): then 55P03, OTSRowOperationConflict, which SDKs retry, as Tablestore
 * answers concurrent writers, instead of holding a pooled connection for as
 * long as the other session likes
 */
#define LOCK_TIMEOUT "5s"

typedef struct Slot
{
	PGconn	   *conn;			/* NULL until first used, or after breaking */
	bool		in_use;
	bool		pinned;			/* by a transaction */
} Slot;

typedef struct KeyPool
{
	pthread_mutex_t lock;
	pthread_cond_t freed;
	int			size;			/* calls holding a slot at once */
	int			calls;			/* slots held by calls */
	int			pinned;			/* slots pinned by transactions, <= size */
	Slot	   *slots;			/* 2 * size */
} KeyPool;

typedef struct Txn
{
	char		id[2 * TXN_ID_BYTES + 1];
	const AccessKey *key;
	TxnPartition partition;
	int			slot;			/* in key->pool */
	time_t		started;
	bool		busy;			/* a call is using it (or it is starting) */
	struct Txn *next;
} Txn;

/* what a call holds: a slot of its key's pool, perhaps as a transaction */
typedef struct Held
{
	int			slot;
	Txn		   *txn;
} Held;

static const char *pool_conninfo;
static const char *pool_search_path;

/*
 * the wire functions the database has (WIRE_*), as its newest connection
 * found them: a database of an older ots, or a cluster's proxy without
 * them, is served through the jsonb functions instead
 */
static int	pool_wire;

bool
pool_has_wire(int which)
{
	return (__atomic_load_n(&pool_wire, __ATOMIC_RELAXED) & which) == which;
}

/* wire_learn: which wire functions the connection's database has */
static void
wire_learn(PGconn *conn)
{
	PGresult   *res = PQexec(conn,
							 "SELECT pg_catalog.to_regprocedure('ots.wire_get_row(text,jsonb,text[],integer,"
							 "jsonb,jsonb,text,text)') IS NOT NULL, "
							 "pg_catalog.to_regprocedure('ots.wire_get_range(text,jsonb,jsonb,text,"
							 "integer,text[],integer,jsonb,jsonb,text,text,text)') IS NOT NULL, "
							 "pg_catalog.to_regprocedure('ots.compute_split_points(text,bigint,integer)') IS NOT NULL, "
							 "pg_catalog.to_regprocedure('ots.wire_put_row(text,bytea,text,jsonb,text)') IS NOT NULL "
							 "AND pg_catalog.to_regprocedure('ots.wire_update_row(text,bytea,text,jsonb,text,text[])') IS NOT NULL "
							 "AND pg_catalog.to_regprocedure('ots.wire_delete_row(text,bytea,text,jsonb,text)') IS NOT NULL, "
							 "pg_catalog.to_regprocedure('ots.wire_batch_write_row(jsonb,bytea[],boolean)') IS NOT NULL");
	int			wire;

	/* a query that failed teaches nothing: what was known stays */
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
	{
		wire = (strcmp(PQgetvalue(res, 0, 0), "t") == 0 ? WIRE_GET_ROW : 0) |
			(strcmp(PQgetvalue(res, 0, 1), "t") == 0 ? WIRE_GET_RANGE : 0) |
			(strcmp(PQgetvalue(res, 0, 2), "t") == 0 ? WIRE_SPLIT_POINTS : 0) |
			(strcmp(PQgetvalue(res, 0, 3), "t") == 0 ? WIRE_WRITE_ROW : 0) |
			(strcmp(PQgetvalue(res, 0, 4), "t") == 0 ? WIRE_BATCH_WRITE : 0);
		/* wire = off: the jsonb functions only (a comparison, or a suspect wire function) */
		if (!config.wire)
			wire &= WIRE_SPLIT_POINTS;
		__atomic_store_n(&pool_wire, wire, __ATOMIC_RELAXED);
	}
	PQclear(res);
}

static pthread_mutex_t txn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t txn_changed = PTHREAD_COND_INITIALIZER;
static Txn *txns;
static bool stopping;
static pthread_t reaper;

static void
deadline_in(struct timespec *deadline, int seconds)
{
	clock_gettime(CLOCK_REALTIME, deadline);
	deadline->tv_sec += seconds;
}

/* conn_close: closes a connection, forgetting the statements it prepared */
static void
conn_close(PGconn *conn)
{
	prepared_forget(conn);
	PQfinish(conn);
}

/* set_session: a setting for the connection's session; false after logging why */
static bool
set_session(PGconn *conn, const char *name, const char *value)
{
	const char *params[] = {name, value};
	PGresult   *res = PQexecParams(conn, "SELECT pg_catalog.set_config($1, $2, false)",
								   2, NULL, params, NULL, NULL, 0);
	bool		ok = PQresultStatus(res) == PGRES_TUPLES_OK;

	if (!ok)
		log_write("otsd: cannot set %s: %s", name, PQresultErrorMessage(res));
	PQclear(res);
	return ok;
}

/* notices (pg_cron's hint at CreateTable, say) are for people at a prompt: not logged */
static void
ignore_notice(void *arg, const char *message)
{
}

/* connect: a new connection as the key's role; NULL after logging why */
static PGconn *
connect_as(const AccessKey *key)
{
	const char *keywords[] = {"connect_timeout", "dbname", "user",
	"fallback_application_name", NULL};
	const char *values[] = {"10", pool_conninfo, key->role, "otsd", NULL};
	PGconn	   *conn = PQconnectdbParams(keywords, values, 1);

	if (PQstatus(conn) == CONNECTION_OK)
		PQsetNoticeProcessor(conn, ignore_notice, NULL);
	if (PQstatus(conn) != CONNECTION_OK)
	{
		log_write("otsd: cannot connect as role %s: %s", key->role, PQerrorMessage(conn));
		PQfinish(conn);
		return NULL;
	}
	if (!set_session(conn, "lock_timeout", LOCK_TIMEOUT) ||
		(pool_search_path != NULL && !set_session(conn, "search_path", pool_search_path)))
	{
		PQfinish(conn);
		return NULL;
	}
	wire_learn(conn);
	return conn;
}

/*
 * idle_conn_ok: false when an idle connection is unusable: closed, or with
 * something to read, which between calls is the server's goodbye (its
 * backend terminated, the server restarting).  Found without a round trip,
 * before it fails a call.
 */
static bool
idle_conn_ok(PGconn *conn)
{
	struct pollfd pfd = {.fd = PQsocket(conn), .events = POLLIN};

	return PQstatus(conn) == CONNECTION_OK && pfd.fd >= 0 && poll(&pfd, 1, 0) == 0;
}

/* exec_ok: runs a command that returns no rows; false if it failed */
static bool
exec_ok(PGconn *conn, const char *sql)
{
	PGresult   *res = PQexec(conn, sql);
	bool		ok = PQresultStatus(res) == PGRES_COMMAND_OK;

	PQclear(res);
	return ok;
}

static void slot_release(const AccessKey *key, int slot);

/*
 * lock_with_room: locks the pool once *count (its calls or its pinned
 * slots) is below pool_size, waiting up to WAIT_SECONDS; false (unlocked)
 * after replying 503.
 */
static bool
lock_with_room(Call *call, KeyPool *pool, const int *count)
{
	struct timespec deadline;

	deadline_in(&deadline, WAIT_SECONDS);
	pthread_mutex_lock(&pool->lock);
	while (*count >= pool->size)
	{
		if (pthread_cond_timedwait(&pool->freed, &pool->lock, &deadline) == ETIMEDOUT)
		{
			pthread_mutex_unlock(&pool->lock);
			call_error(call, 503, "OTSServerBusy", "Server is busy.");
			return false;
		}
	}
	return true;
}

/*
 * slot_acquire: a slot of the call's key with an open connection, or -1
 * after replying 503 (all busy for WAIT_SECONDS, or the database
 * unreachable).
 */
static int
slot_acquire(Call *call)
{
	KeyPool    *pool = call->key->pool;
	int			slot = -1;

	if (!lock_with_room(call, pool, &pool->calls))
		return -1;
	/* calls < size and pinned <= size: a slot is free; an open one first */
	for (int i = 0; i < 2 * pool->size && slot < 0; i++)
		if (!pool->slots[i].in_use && pool->slots[i].conn != NULL)
			slot = i;
	for (int i = 0; i < 2 * pool->size && slot < 0; i++)
		if (!pool->slots[i].in_use)
			slot = i;
	pool->slots[slot].in_use = true;
	pool->calls++;
	pthread_mutex_unlock(&pool->lock);

	/* outside the lock: connecting takes time */
	if (pool->slots[slot].conn != NULL && !idle_conn_ok(pool->slots[slot].conn))
	{
		conn_close(pool->slots[slot].conn);
		pool->slots[slot].conn = NULL;
	}
	if (pool->slots[slot].conn == NULL)
		pool->slots[slot].conn = connect_as(call->key);
	if (pool->slots[slot].conn == NULL)
	{
		slot_release(call->key, slot);
		call_error(call, 503, "OTSServerUnavailable", "Server is not available.");
		return -1;
	}
	return slot;
}

/*
 * slot_release: gives a slot (a call's or a transaction's) back; a broken
 * connection is closed (the next user reconnects), one left inside a
 * transaction is rolled back.
 */
static void
slot_release(const AccessKey *key, int slot)
{
	KeyPool    *pool = key->pool;
	PGconn	   *conn = pool->slots[slot].conn;

	if (conn != NULL && PQstatus(conn) == CONNECTION_OK &&
		PQtransactionStatus(conn) != PQTRANS_IDLE &&
		!exec_ok(conn, "ROLLBACK"))
		conn_close(conn), conn = NULL;
	if (conn != NULL && PQstatus(conn) != CONNECTION_OK)
		conn_close(conn), conn = NULL;
	pthread_mutex_lock(&pool->lock);
	pool->slots[slot].conn = conn;
	pool->slots[slot].in_use = false;
	if (pool->slots[slot].pinned)
		pool->pinned--;
	else
		pool->calls--;
	pool->slots[slot].pinned = false;
	pthread_cond_broadcast(&pool->freed);
	pthread_mutex_unlock(&pool->lock);
}

/*
 * slot_pin: the call's slot becomes a transaction's, when fewer than
 * pool_size transactions of the key are open (waiting for one to end);
 * false after replying 503.
 */
static bool
slot_pin(Call *call, int slot)
{
	KeyPool    *pool = call->key->pool;

	if (!lock_with_room(call, pool, &pool->pinned))
		return false;
	pool->slots[slot].pinned = true;
	pool->pinned++;
	pool->calls--;
	pthread_cond_broadcast(&pool->freed);
	pthread_mutex_unlock(&pool->lock);
	return true;
}

static PGconn *
slot_conn(const AccessKey *key, int slot)
{
	return key->pool->slots[slot].conn;
}

/* txn_find: the open transaction with this id of this key (under txn_lock) */
static Txn *
txn_find(const char *id, const AccessKey *key)
{
	for (Txn *t = txns; t != NULL; t = t->next)
		if (strcmp(t->id, id) == 0)
			return t->key == key ? t : NULL;
	return NULL;
}

/* txn_unlink: takes a transaction out of the list (under txn_lock) */
static void
txn_unlink(Txn *txn)
{
	for (Txn **p = &txns; *p != NULL; p = &(*p)->next)
		if (*p == txn)
		{
			*p = txn->next;
			break;
		}
	pthread_cond_broadcast(&txn_changed);
}

/* txn_partition_copy: a copy of p, whose strings are malloc'd */
static TxnPartition
txn_partition_copy(const TxnPartition *p)
{
	TxnPartition copy = {strdup(p->table), strdup(p->resolved), strdup(p->column), strdup(p->key)};

	if (!copy.table || !copy.resolved || !copy.column || !copy.key)
		abort();
	return copy;
}

void
txn_partition_free(TxnPartition *p)
{
	free(p->table);
	free(p->resolved);
	free(p->column);
	free(p->key);
	memset(p, 0, sizeof(*p));
}

/* txn_free: frees an unlinked transaction that holds no slot */
static void
txn_free(Txn *txn)
{
	txn_partition_free(&txn->partition);
	free(txn);
}

/* txn_finish: rolls back (if still open) and frees an unlinked transaction */
static void
txn_finish(Txn *txn)
{
	slot_release(txn->key, txn->slot);
	txn_free(txn);
}

static void
session_not_exist(Call *call)
{
	call_error(call, 404, "OTSSessionNotExist", "Session not exist or may be timeout.");
}

/*
 * txn_claim: the transaction id of the call's key, marked busy for this
 * call; waits while another call uses it.  NULL after replying.
 */
static Txn *
txn_claim(Call *call, const char *id)
{
	struct timespec deadline;
	Txn		   *txn;

	deadline_in(&deadline, WAIT_SECONDS);
	pthread_mutex_lock(&txn_lock);
	while ((txn = txn_find(id, call->key)) != NULL && txn->busy)
	{
		if (pthread_cond_timedwait(&txn_changed, &txn_lock, &deadline) == ETIMEDOUT)
		{
			pthread_mutex_unlock(&txn_lock);
			call_error(call, 409, "OTSRowOperationConflict",
					   "Data is being modified by the other request.");
			return NULL;
		}
	}
	if (txn != NULL)
		txn->busy = true;
	pthread_mutex_unlock(&txn_lock);
	if (txn == NULL)
		session_not_exist(call);
	return txn;
}

/* txn_unclaim: the call is done with the transaction */
static void
txn_unclaim(Txn *txn)
{
	pthread_mutex_lock(&txn_lock);
	txn->busy = false;
	pthread_cond_broadcast(&txn_changed);
	pthread_mutex_unlock(&txn_lock);
}

/*
 * transaction_id_valid: is it an id otsd could have issued (TXN_ID_BYTES
 * random bytes in lowercase hex)?  One it could not is the client's
 * mistake, 400, as Tablestore answers it; one it could have issued whose
 * session is gone is 404 (session_not_exist)
 */
static bool
transaction_id_valid(Call *call, const char *transaction_id)
{
	size_t		len = strspn(transaction_id, "0123456789abcdef");

	if (len == 2 * TXN_ID_BYTES && transaction_id[len] == '\0')
		return true;
	call_parameter_invalid(call, "TransactionID is invalid.");
	return false;
}

static Held *
hold(Call *call, int slot, Txn *txn)
{
	Held	   *held = malloc(sizeof(Held));

	if (held == NULL)
		abort();
	held->slot = slot;
	held->txn = txn;
	call->held = held;
	return held;
}

/*
 * call_db: the connection for this call's SQL: the transaction's (under a
 * savepoint that call_end releases, or rolls back to after a failure), or
 * a slot of the key's pool.  NULL after replying with an error.
 */
PGconn *
call_db(Call *call, const char *transaction_id)
{
	Held	   *held = call->held;
	Txn		   *txn;
	int			slot;

	if (held != NULL)
	{
		if (transaction_id == NULL ||
			(held->txn != NULL && strcmp(held->txn->id, transaction_id) == 0))
			return slot_conn(call->key, held->slot);
		call_error(call, 500, "OTSInternalServerError",
				   "otsd: one call used two connections.");
		return NULL;
	}
	if (transaction_id == NULL)
	{
		slot = slot_acquire(call);
		if (slot < 0)
			return NULL;
		hold(call, slot, NULL);
		return slot_conn(call->key, slot);
	}

	if (!transaction_id_valid(call, transaction_id))
		return NULL;
	txn = txn_claim(call, transaction_id);
	if (txn == NULL)
		return NULL;
	if (!exec_ok(slot_conn(call->key, txn->slot), "SAVEPOINT otsd_call"))
	{
		/* the session is gone or broken: so is the transaction */
		pthread_mutex_lock(&txn_lock);
		txn_unlink(txn);
		pthread_mutex_unlock(&txn_lock);
		txn_finish(txn);
		session_not_exist(call);
		return NULL;
	}
	hold(call, txn->slot, txn);
	return slot_conn(call->key, txn->slot);
}

/*
 * call_end: the call is over: its pool slot goes back, its transaction's
 * savepoint is released (or rolled back to if the call's SQL failed) and
 * the transaction waits for its next call.
 */
void
call_end(Call *call)
{
	Held	   *held = call->held;
	Txn		   *txn;
	PGconn	   *conn;

	if (held == NULL)
		return;
	call->held = NULL;
	txn = held->txn;
	conn = slot_conn(call->key, held->slot);
	if (txn == NULL)
		slot_release(call->key, held->slot);
	else
	{
		bool		ok = PQstatus(conn) == CONNECTION_OK;

		if (ok && PQtransactionStatus(conn) == PQTRANS_INERROR)
			ok = exec_ok(conn, "ROLLBACK TO SAVEPOINT otsd_call");
		if (ok)
			ok = exec_ok(conn, "RELEASE SAVEPOINT otsd_call");
		if (ok)
			txn_unclaim(txn);
		else
		{
			pthread_mutex_lock(&txn_lock);
			txn_unlink(txn);
			pthread_mutex_unlock(&txn_lock);
			txn_finish(txn);
		}
	}
	free(held);
}

/* same_partition: the transaction holds this partition of the resolved table */
static bool
same_partition(const Txn *txn, const char *resolved, const char *key)
{
	return strcmp(txn->partition.resolved, resolved) == 0 &&
		strcmp(txn->partition.key, key) == 0;
}

static void
partition_locked(Call *call)
{
	call_error(call, 409, "OTSRowOperationConflict",
			   "Data is being modified by the other request.");
}

/*
 * call_txn_start: a new transaction holding partition, on the slot the call
 * already holds if any (the action's checks ran there), else a new one.
 * Returns its id (malloc'd), or NULL after replying (409 when another
 * transaction holds the partition).
 */
char *
call_txn_start(Call *call, const TxnPartition *partition)
{
	Txn		   *txn;
	char	   *id;
	int			slot;

	if (call->held != NULL && ((Held *) call->held)->txn != NULL)
	{
		call_error(call, 500, "OTSInternalServerError",
				   "otsd: a transaction started inside a transaction.");
		return NULL;
	}
	txn = calloc(1, sizeof(Txn));
	if (txn == NULL)
		abort();
	txn->started = time(NULL);
	txn->key = call->key;
	txn->partition = txn_partition_copy(partition);
	txn->busy = true;			/* starting: nobody else may use it yet */
	txn->slot = -1;
	auth_random_hex(txn->id, TXN_ID_BYTES);

	/* registered before BEGIN, so that a second start conflicts at once */
	pthread_mutex_lock(&txn_lock);
	for (Txn *t = txns; t != NULL; t = t->next)
		if (same_partition(t, partition->resolved, partition->key))
		{
			pthread_mutex_unlock(&txn_lock);
			txn_free(txn);
			partition_locked(call);
			return NULL;
		}
	txn->next = txns;
	txns = txn;
	pthread_mutex_unlock(&txn_lock);

	if (call->held != NULL)
	{
		slot = ((Held *) call->held)->slot;
		free(call->held);
		call->held = NULL;
	}
	else
		slot = slot_acquire(call);
	if (slot >= 0 && !slot_pin(call, slot))
	{
		slot_release(call->key, slot);
		slot = -1;
	}
	if (slot >= 0)
	{
		PGresult   *res = PQexec(slot_conn(call->key, slot), "BEGIN");

		if (PQresultStatus(res) != PGRES_COMMAND_OK)
		{
			call_pg_error(call, res);
			slot_release(call->key, slot);
			slot = -1;
		}
		PQclear(res);
	}
	if (slot < 0)
	{
		pthread_mutex_lock(&txn_lock);
		txn_unlink(txn);
		pthread_mutex_unlock(&txn_lock);
		txn_free(txn);
		return NULL;
	}
	txn->slot = slot;
	id = strdup(txn->id);
	txn_unclaim(txn);
	return id;
}

/*
 * call_txn_end: commits or aborts the call's key's transaction id and gives
 * its slot back.  False after replying (empty id: OTSParameterInvalid;
 * unknown, finished, timed out or another key's: OTSSessionNotExist; a
 * failed COMMIT: its error, the transaction is gone either way).
 */
bool
call_txn_end(Call *call, const char *transaction_id, bool commit)
{
	Held	   *held;
	Txn		   *txn;
	PGresult   *res;
	bool		ok;

	if (transaction_id == NULL)
		transaction_id = "";
	if (!transaction_id_valid(call, transaction_id))
		return false;
	held = call->held;
	if (held != NULL && held->txn != NULL && strcmp(held->txn->id, transaction_id) == 0)
		call_end(call);			/* this call used it: its savepoint ends first */
	txn = txn_claim(call, transaction_id);
	if (txn == NULL)
		return false;
	pthread_mutex_lock(&txn_lock);
	txn_unlink(txn);
	pthread_mutex_unlock(&txn_lock);

	res = PQexec(slot_conn(txn->key, txn->slot), commit ? "COMMIT" : "ROLLBACK");
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok)
		call_pg_error(call, res);
	else if (commit && strcmp(PQcmdStatus(res), "ROLLBACK") == 0)
	{
		/* cannot happen while every call runs under a savepoint */
		call_error(call, 500, "OTSInternalServerError",
				   "The transaction failed and was rolled back.");
		ok = false;
	}
	PQclear(res);
	txn_finish(txn);
	return ok;
}

/*
 * call_txn_partition: a copy of what the call's key's transaction id holds
 * (free it with txn_partition_free).  False after replying: an empty id is
 * OTSParameterInvalid; an unknown, finished, timed out or other key's id
 * OTSSessionNotExist.
 */
bool
call_txn_partition(Call *call, const char *transaction_id, TxnPartition *out)
{
	Txn		   *txn;

	if (!transaction_id_valid(call, transaction_id))
		return false;
	pthread_mutex_lock(&txn_lock);
	txn = txn_find(transaction_id, call->key);
	if (txn != NULL)
		*out = txn_partition_copy(&txn->partition);
	pthread_mutex_unlock(&txn_lock);
	if (txn == NULL)
		session_not_exist(call);
	return txn != NULL;
}

/* call_partition_held: whether an open transaction holds (resolved table, key); 409 if so */
bool
call_partition_held(Call *call, const char *resolved, const char *key)
{
	bool		held = false;

	pthread_mutex_lock(&txn_lock);
	for (Txn *t = txns; t != NULL && !held; t = t->next)
		held = same_partition(t, resolved, key);
	pthread_mutex_unlock(&txn_lock);
	if (held)
		partition_locked(call);
	return held;
}

/* call_partition_value_held: whether an open transaction, of any table, holds this partition key */
bool
call_partition_value_held(const char *key)
{
	bool		held = false;

	pthread_mutex_lock(&txn_lock);
	for (Txn *t = txns; t != NULL && !held; t = t->next)
		held = strcmp(t->partition.key, key) == 0;
	pthread_mutex_unlock(&txn_lock);
	return held;
}

/* call_transactions_open: whether any transaction is open (then a write's key is looked at) */
bool
call_transactions_open(void)
{
	bool		open;

	pthread_mutex_lock(&txn_lock);
	open = txns != NULL;
	pthread_mutex_unlock(&txn_lock);
	return open;
}

/* reap: rolls back the transactions older than TXN_LIFETIME_SECONDS (not in a call), once a second */
static void *
reap(void *unused)
{
	pthread_mutex_lock(&txn_lock);
	while (!stopping)
	{
		struct timespec deadline;
		time_t		now = time(NULL);
		Txn		   *expired = NULL;

		for (Txn **p = &txns; *p != NULL;)
		{
			Txn		   *t = *p;

			if (!t->busy && now - t->started >= TXN_LIFETIME_SECONDS)
			{
				*p = t->next;
				t->next = expired;
				expired = t;
			}
			else
				p = &t->next;
		}
		if (expired != NULL)
		{
			pthread_mutex_unlock(&txn_lock);
			while (expired != NULL)
			{
				Txn		   *t = expired;

				expired = t->next;
				log_write("otsd: transaction %.8s... of key %s rolled back after its %d s",
						  t->id, t->key->id, TXN_LIFETIME_SECONDS);
				txn_finish(t);
			}
			pthread_mutex_lock(&txn_lock);
		}
		deadline_in(&deadline, 1);
		pthread_cond_timedwait(&txn_changed, &txn_lock, &deadline);
	}
	pthread_mutex_unlock(&txn_lock);
	return NULL;
}

/*
 * pool_start: a pool for each key (connections open on first use) and the
 * transaction reaper.  conninfo and search_path must outlive the pool.
 */
void
pool_start(AccessKey *keys, int key_count, const char *conninfo,
		   const char *search_path, int pool_size)
{
	pool_conninfo = conninfo;
	pool_search_path = search_path;
	for (int i = 0; i < key_count; i++)
	{
		KeyPool    *pool = calloc(1, sizeof(KeyPool));

		if (pool == NULL || (pool->slots = calloc(2 * pool_size, sizeof(Slot))) == NULL)
			abort();
		pool->size = pool_size;
		pthread_mutex_init(&pool->lock, NULL);
		pthread_cond_init(&pool->freed, NULL);
		keys[i].pool = pool;
	}
	if (pthread_create(&reaper, NULL, reap, NULL) != 0)
		abort();
}

/*
 * pool_stop: after the last call: rolls back the open transactions and
 * closes every connection.
 */
void
pool_stop(AccessKey *keys, int key_count)
{
	pthread_mutex_lock(&txn_lock);
	stopping = true;
	pthread_cond_broadcast(&txn_changed);
	pthread_mutex_unlock(&txn_lock);
	pthread_join(reaper, NULL);

	while (txns != NULL)
	{
		Txn		   *t = txns;

		txns = t->next;
		txn_finish(t);
	}
	for (int i = 0; i < key_count; i++)
	{
		KeyPool    *pool = keys[i].pool;

		for (int s = 0; s < 2 * pool->size; s++)
			if (pool->slots[s].conn != NULL)
				conn_close(pool->slots[s].conn);
		free(pool->slots);
		free(pool);
		keys[i].pool = NULL;
	}
}
