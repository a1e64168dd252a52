/*-------------------------------------------------------------------------
 * gateway/otsd.h
 *	  otsd, the Tablestore protocol gateway: what its parts share.
 *
 * otsd speaks Tablestore's HTTP + protobuf protocol and runs each request
 * as a call of the ots SQL API on a PostgreSQL connection of the access
 * key's role.  The parts:
 *	  otsd.c		 main, configuration, HTTP, the log line
 *	  auth.c		 request signatures, response signing, MD5, base64
 *	  pool.c		 connections per key, local transactions pinned to one
 *	  errors.c		 Tablestore error replies; SQLSTATE -> code and status
 *	  plainbuffer.c	 PlainBuffer rows <-> ots's jsonb conventions
 *	  filter.c		 protobuf Filter -> ots filter jsonb
 *	  action_*.c	 one function per Tablestore action
 *-------------------------------------------------------------------------
 */
#ifndef OTSD_H
#define OTSD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <libpq-fe.h>
#include <protobuf-c/protobuf-c.h>

#include "tablestore.pb-c.h"

/* growable byte buffer */
typedef struct Buf
{
	uint8_t    *data;
	size_t		len;
	size_t		cap;
} Buf;

extern void buf_put(Buf *buf, const void *bytes, size_t n);
extern void buf_byte(Buf *buf, uint8_t byte);
extern void buf_free(Buf *buf);

/* one access key of the configuration and the PostgreSQL role it acts as */
typedef struct AccessKey
{
	char	   *id;
	char	   *secret;
	char	   *role;
	struct KeyPool *pool;		/* pool.c */
} AccessKey;

/*
 * Call: one request and its reply.  The HTTP layer fills the request part
 * and has checked the signature; the action fills the reply, through
 * call_reply or call_error, exactly once.
 */
typedef struct Call
{
	/* request */
	const char *action;			/* "PutRow" */
	const uint8_t *body;
	size_t		body_len;
	const char *request_id;
	const AccessKey *key;

	/* reply */
	int			status;			/* HTTP status */
	Buf			reply;			/* serialized response or Error message */
	char		error_code[64]; /* Tablestore error code, for the log line */
	bool		replied;

	/* private to pool.c: the connection held for this call */
	void	   *held;
} Call;

/*
 * call_db: the connection to run this call's SQL on.  With a transaction id,
 * the session that transaction is pinned to (its partition key is checked by
 * the action with call_txn_key); without, a connection of the key's pool,
 * held until the call ends.  Returns NULL after replying with an error
 * (unknown or expired transaction, database unreachable).
 */
extern PGconn *call_db(Call *call, const char *transaction_id);

/*
 * Local transactions (pool.c): start pins a pooled connection in BEGIN for
 * (schema-qualified table, partition key value as ots jsonb text) and returns
 * the new id (malloc'd), or NULL after replying with an error.  Commit and
 * abort end it and return the connection to the pool; false after an error
 * reply.  A transaction idle for 60 s is aborted by the pool.
 */
extern char *call_txn_start(Call *call, const char *table, const char *partition_key_json);
extern bool call_txn_end(Call *call, const char *transaction_id, bool commit);
/*
 * call_check_partition: before a write or read of (table as the request names
 * it, partition key value as canonical json text).  With a transaction id the
 * pair must be the transaction's; without, no open transaction may hold it
 * (409 OTSRowOperationConflict).  False after replying with the error.
 */
extern bool call_check_partition(Call *call, const char *transaction_id,
								 const char *table, const char *partition_key_json);

/* replies (errors.c) */
extern void call_reply(Call *call, const ProtobufCMessage *response);
extern void call_error(Call *call, int http_status, const char *code,
					   const char *fmt,...) __attribute__((format(printf, 4, 5)));
/* a failed PGresult: OT SQLSTATEs map to their Tablestore code and status */
extern void call_pg_error(Call *call, const PGresult *res);
#define call_parameter_invalid(call, ...) \
	call_error((call), 400, "OTSParameterInvalid", __VA_ARGS__)

/* Tablestore's code and HTTP status of a SQLSTATE ("OT003" -> 403 OTSConditionCheckFail) */
extern int	otsd_error_status(const char *code);
extern const char *otsd_error_code(const char *sqlstate);

/* the actions (action_*.c), looked up by name in otsd_actions */
typedef void (*ActionFn) (Call *call);
typedef struct Action
{
	const char *name;
	ActionFn	fn;
} Action;
extern const Action otsd_actions[];	/* ends with {NULL, NULL} */

#endif							/* OTSD_H */
