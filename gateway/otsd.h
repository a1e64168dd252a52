/*-------------------------------------------------------------------------
 * gateway/otsd.h
 *	  otsd, the Tablestore protocol gateway: what its parts share.
 *
 * otsd speaks Tablestore's HTTP + protobuf protocol and runs each request
 * as a call of the ots SQL API on a PostgreSQL connection of the access
 * key's role.  The parts:
 *	  otsd.c		 main: starts the parts below, stops them
 *	  config.c		 the configuration file and the listen address
 *	  http.c		 the HTTP server: a request to its answer, the log line
 *	  headers.c		 the checks of a request's Tablestore headers
 *	  log.c			 the log
 *	  auth.c		 request signatures, response signing, MD5, base64
 *	  pool.c		 connections per key, local transactions pinned to one
 *	  memory.c		 the memory a request may decode in, and all requests
 *	  errors.c		 Tablestore error replies; SQLSTATE -> code and status
 *	  plainbuffer*.c PlainBuffer rows <-> ots's jsonb conventions
 *	  filter.c		 protobuf Filter -> ots filter jsonb
 *	  actions.c		 the actions by name
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
extern void buf_reserve(Buf *buf, size_t n);	/* room for n more bytes */
extern void buf_byte(Buf *buf, uint8_t byte);
extern void buf_free(Buf *buf);

/* the longest access key id otsd accepts in its configuration */
#define OTSD_KEY_ID_MAX 128

/* one access key of the configuration and the PostgreSQL role it acts as */
typedef struct AccessKey
{
	char	   *id;
	char	   *secret;
	char	   *role;
	char	   *sts_token;		/* the STS token its requests bring, NULL: none */
	struct KeyPool *pool;		/* pool.c */
	unsigned char id_padded[OTSD_KEY_ID_MAX + 1];	/* auth.c: id, zero-padded */
	struct HmacKey *hmac;		/* auth.c: the secret's HMAC pads */
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
 * The partition a local transaction holds: its table as the request that
 * started it spelled it (the key's calls in it spell it so: one key
 * resolves a name one way), as the key's role resolved it ("schema"."t":
 * what calls without the transaction, of any key, are compared by), the
 * table's partition-key column (its first primary-key column), and that
 * column's value as canonical json text.
 */
typedef struct TxnPartition
{
	char	   *table;
	char	   *resolved;
	char	   *column;
	char	   *key;
} TxnPartition;

extern void txn_partition_free(TxnPartition *partition);

/*
 * Local transactions (pool.c): start pins a pooled connection in BEGIN for
 * the partition and returns the new id (malloc'd), or NULL after replying
 * with an error (409 when another transaction holds it).  Commit and abort
 * end it and return the connection to the pool; false after an error
 * reply.  A transaction is rolled back by the pool 60 s after its start.
 */
extern char *call_txn_start(Call *call, const TxnPartition *partition);
extern bool call_txn_end(Call *call, const char *transaction_id, bool commit);
/* a copy of the partition the call's key's transaction id holds; false after replying */
extern bool call_txn_partition(Call *call, const char *transaction_id, TxnPartition *out);
/* an open transaction holds (resolved table, key): true after replying 409 */
extern bool call_partition_held(Call *call, const char *resolved, const char *key);
/* an open transaction, of any table, holds this partition key value */
extern bool call_partition_value_held(const char *key);
extern bool call_transactions_open(void);

/*
 * memory.c: a request's bound on the memory it decodes in, reserved from
 * decode_memory before its action runs (memory_reserve: false after
 * replying 503) and given back after (memory_release).  protobuf-c
 * allocates through memory_protobuf; memory_exceeded says when the current
 * request has used its bound up, and memory_refuse answers it.
 */
typedef struct MemoryBound
{
	size_t		limit;			/* reserved; 0 when not reserved */
	size_t		used;			/* counted, less what was freed */
	size_t		peak;			/* the most used at once */
	bool		exceeded;		/* used went over limit, or an allocation was refused */
} MemoryBound;

extern ProtobufCAllocator memory_protobuf;
extern void memory_start(size_t decode_memory);
extern bool memory_reserve(Call *call, MemoryBound *bound, size_t body_len);
extern void memory_release(MemoryBound *bound);
extern bool memory_exceeded(void);
extern void memory_refuse(Call *call);

/*
 * prepared.c: runs sql on conn as a statement prepared on it the first time
 * (the parameters and result as PQexecParams takes and gives them:
 * lengths and formats NULL for text parameters only; binary_result asks
 * for every column in binary); pool.c calls prepared_forget before it
 * closes a connection.
 */
extern PGresult *prepared_exec(PGconn *conn, const char *sql, int nparams,
							   const char *const *values, const int *lengths,
							   const int *formats, bool binary_result);
extern void prepared_forget(PGconn *conn);

/* replies (errors.c) */
extern void call_reply(Call *call, const ProtobufCMessage *response);
extern void call_error(Call *call, int http_status, const char *code,
					   const char *fmt,...) __attribute__((format(printf, 4, 5)));
/* a failed PGresult: OT SQLSTATEs map to their Tablestore code and status */
extern void call_pg_error(Call *call, const PGresult *res);
#define call_parameter_invalid(call, ...) \
	call_error((call), 400, "OTSParameterInvalid", __VA_ARGS__)

/* the bytes of the UTF-8 character at c, 0 for an invalid byte or the NUL (errors.c) */
extern size_t utf8_char_len(const char *c);

/* Tablestore's code and HTTP status of a SQLSTATE ("OT003" -> 403 OTSConditionCheckFail) */
extern int	otsd_error_status(const char *code);
extern const char *otsd_error_code(const char *sqlstate);

/*
 * The server's parts as otsd.c and http.c drive them.  pool.c: pool_start
 * before the first request (connections open lazily), call_end after every
 * call (returns or unpins its connection), pool_stop at shutdown (aborts
 * open transactions).
 */
extern void pool_start(AccessKey *keys, int key_count, const char *conninfo,
					   const char *search_path, int pool_size);
extern void call_end(Call *call);

/*
 * the database's optional functions (ots 0.3.0: the wire functions of
 * src/api/wire.c, ots.compute_split_points), known once a connection was made
 */
#define WIRE_GET_ROW	0x01
#define WIRE_GET_RANGE	0x02
#define WIRE_SPLIT_POINTS 0x04
#define WIRE_WRITE_ROW	0x08	/* wire_put_row, wire_update_row, wire_delete_row */
#define WIRE_BATCH_WRITE 0x10	/* wire_batch_write_row */
extern bool pool_has_wire(int which);
extern void pool_stop(AccessKey *keys, int key_count);

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
typedef struct HmacKey HmacKey;
extern void auth_prepare_keys(AccessKey *keys, int key_count);
extern const AccessKey *auth_find_key(const AccessKey *keys, int key_count, const char *id);
/* auth_sts_token_ok: does the request's STS token (NULL: none) match its key's? */
extern bool auth_sts_token_ok(const AccessKey *key, const char *token);
extern bool auth_check_signature(Call *call, const char *path,
								 Header *headers, int header_count,
								 const char *signature);
/* a V4 signing key as base64 text (of 32 bytes) */
#define OTSD_V4_KEY_LEN 44
extern bool auth_check_signature_v4(Call *call, const char *path, Header *headers, int header_count,
									const char *signature, const char *sign_date, const char *region,
									char v4_key[OTSD_V4_KEY_LEN + 1]);
extern void auth_sign_response_v4(const char *v4_key, const char *action, Header *headers,
								  int header_count, char out[OTSD_SHA1_BASE64_LEN + 1]);
extern void auth_sign_response(const AccessKey *key, const char *action,
							   Header *headers, int header_count,
							   char out[OTSD_SHA1_BASE64_LEN + 1]);
extern void auth_random_hex(char *out, size_t bytes);

/* the actions (action_*.c), looked up by name with actions_find (actions.c) */
typedef void (*ActionFn) (Call *call);
typedef struct Action
{
	const char *name;
	ActionFn	fn;
} Action;
extern const Action *actions_find(const char *name);

#endif							/* OTSD_H */
