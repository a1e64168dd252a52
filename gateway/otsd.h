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

/*
 * The server's parts as otsd.c drives them.  pool.c: pool_start before the
 * first request (connections open lazily), call_end after every call
 * (returns or unpins its connection), pool_stop at shutdown (aborts open
 * transactions).
 */
extern void pool_start(AccessKey *keys, int key_count, const char *conninfo,
					   const char *search_path, int pool_size);
extern void call_end(Call *call);
extern void pool_stop(AccessKey *keys, int key_count);
/* where otsd.c writes its messages (the log file, or stderr) */
extern void otsd_log(const char *fmt,...) __attribute__((format(printf, 1, 2)));

/* auth.c: one request or response header, name lower-cased */
typedef struct Header
{
	char	   *name;
	char	   *value;
} Header;

#define OTSD_MD5_BASE64_LEN 24	/* base64 of 16 bytes, without the NUL */
#define OTSD_SHA1_BASE64_LEN 28 /* base64 of 20 bytes, without the NUL */
extern void auth_md5_base64(const void *data, size_t len, char out[OTSD_MD5_BASE64_LEN + 1]);
extern bool auth_check_md5(Call *call, const char *content_md5);
extern bool auth_check_date(Call *call, const char *date);
extern bool auth_check_signature(Call *call, const char *path,
								 Header *headers, int header_count,
								 const char *signature);
extern void auth_sign_response(const AccessKey *key, const char *action,
							   Header *headers, int header_count,
							   char out[OTSD_SHA1_BASE64_LEN + 1]);
extern void auth_random_hex(char *out, size_t bytes);

/* the actions (action_*.c), looked up by name in otsd_actions */
typedef void (*ActionFn) (Call *call);
typedef struct Action
{
	const char *name;
	ActionFn	fn;
} Action;
extern const Action otsd_actions[];	/* ends with {NULL, NULL} */

#endif							/* OTSD_H */
