/*-------------------------------------------------------------------------
 * gateway/action.h
 *	  What the action files share: running one ots SQL call for a request
 *	  and turning request fields into its arguments.
 *
 * An action unpacks its protobuf request, builds one SQL call of the ots
 * API with SqlCall (arguments by name, as text parameters, so nothing is
 * ever spliced into SQL text), runs it with sql_run and packs the result.
 *-------------------------------------------------------------------------
 */
#ifndef OTSD_ACTION_H
#define OTSD_ACTION_H

#include "otsd.h"
#include "plainbuffer.h"

#define SQL_MAX_ARGS 24

/*
 * a request message unpacked from the call's body, NULL when it does not
 * decode or holds an enum value the protocol does not define
 */
#define UNPACK(message, call) \
	request_unpack(&otsp__##message##__descriptor, (call))
extern void *request_unpack(const ProtobufCMessageDescriptor *descriptor, const Call *call);
#define FREE(message) \
	do { if (message) protobuf_c_message_free_unpacked((ProtobufCMessage *) (message), &memory_protobuf); } while (0)

/*
 * a request whose protobuf does not decode (or lacks a required field);
 * 413 when it used up its memory bound instead (memory.c)
 */
extern void reply_malformed(Call *call);
/* a request field that does not decode (err says why), or 413 as reply_malformed */
extern void reply_undecodable(Call *call, const char *err);

/* the actions, registered by name in actions.c */
extern void action_create_table(Call *call);
extern void action_list_table(Call *call);
extern void action_list_search_index(Call *call);
extern void action_create_search_index(Call *call);
extern void action_describe_search_index(Call *call);
extern void action_update_search_index(Call *call);
extern void action_delete_search_index(Call *call);
extern void action_search(Call *call);
extern void action_compute_splits(Call *call);
extern void action_parallel_scan(Call *call);
extern void action_add_defined_column(Call *call);
extern void action_delete_defined_column(Call *call);
extern void action_describe_table(Call *call);
extern void action_update_table(Call *call);
extern void action_delete_table(Call *call);
extern void action_create_index(Call *call);
extern void action_drop_index(Call *call);
extern void action_compute_split_points_by_size(Call *call);
extern void action_put_row(Call *call);
extern void action_update_row(Call *call);
extern void action_delete_row(Call *call);
extern void action_get_row(Call *call);
extern void action_get_range(Call *call);
extern void action_batch_get_row(Call *call);
extern void action_batch_write_row(Call *call);
extern void action_bulk_import(Call *call);
extern void action_bulk_export(Call *call);
extern void action_start_local_transaction(Call *call);
extern void action_commit_transaction(Call *call);
extern void action_abort_transaction(Call *call);
extern void action_list_stream(Call *call);
extern void action_describe_stream(Call *call);
extern void action_get_shard_iterator(Call *call);
extern void action_get_stream_record(Call *call);

/*
 * simple_call: an action whose request names one object (table, and second
 * a name of the table's: an index's) and whose reply is empty, one call of
 * ots.<function>(table[, second][, time_to_live => ttl])
 */
extern void simple_call(Call *call, const char *function, const char *table, const char *second,
						const char *ttl, const ProtobufCMessage *response);

/* one SQL statement with text parameters, and binary ones (bytea) */
typedef struct SqlCall
{
	Buf			text;
	int			nargs;
	const char *values[SQL_MAX_ARGS];
	char	   *owned[SQL_MAX_ARGS];	/* values to free with the call */
	int			lengths[SQL_MAX_ARGS];	/* of a binary value */
	int			formats[SQL_MAX_ARGS];	/* 1: binary */
	bool		any_binary;
	bool		first_arg;
	bool		binary_result;	/* the result's columns in binary (the ots.wire_* functions) */
} SqlCall;

/* sql_begin("SELECT ... FROM ots.get_row(") ... sql_end(")") */
extern void sql_begin(SqlCall *q, const char *head);
/* a positional argument ($n::type); value NULL is SQL NULL */
extern void sql_arg(SqlCall *q, const char *value, const char *type);
/* a named argument (name => $n::type), left out when value is NULL */
extern void sql_named(SqlCall *q, const char *name, const char *value, const char *type);
/* as sql_named, taking ownership of a malloc'd value (a json_dumps result) */
extern void sql_named_owned(SqlCall *q, const char *name, char *value, const char *type);
/* sql_run_reply runs q (ended) and frees it, replying with response when it succeeded (else the error) */
extern void sql_run_reply(Call *call, SqlCall *q, const ProtobufCMessage *response);
extern void sql_arg_owned(SqlCall *q, char *value, const char *type);
/* a positional bytea argument: len bytes, sent as they are (not copied: they outlive the call) */
extern void sql_arg_bytes(SqlCall *q, const uint8_t *data, size_t len);
/* a positional bytea[] argument of n values, in PostgreSQL's binary array form (copied) */
extern void sql_arg_bytes_array(SqlCall *q, const ProtobufCBinaryData *const *items, size_t n);
extern void sql_end(SqlCall *q, const char *tail);
extern void sql_free(SqlCall *q);

/*
 * sql_run: runs the statement, prepared (prepared.c), on the call's connection (the transaction's
 * when transaction_id is set: pool.c runs each call of a transaction under a
 * savepoint, so a failed call leaves it usable, as in Tablestore).  Returns
 * the result with tuples, or NULL after replying with the error.
 */
extern PGresult *sql_run(Call *call, const char *transaction_id, SqlCall *q);

/*
 * A table as the key's role resolves its name (table_resolve), for the
 * local transaction checks: "schema"."t", whether the role may write it (a
 * row privilege on its storage "t$data") and, if so, its partition-key
 * column.
 */
typedef struct ResolvedTable
{
	bool		looked_up;
	bool		found;			/* the name is an ots table of the role's */
	bool		may_write;
	char	   *resolved;
	char	   *column;			/* NULL unless may_write */
} ResolvedTable;

/*
 * table_resolve: the table a name means to the key's role.  quiet: a name
 * that resolves to nothing is found = false; else replied (404).  False
 * after replying.
 */
extern bool table_resolve(Call *call, const char *table, bool quiet, ResolvedTable *out);
extern void resolved_table_free(ResolvedTable *t);

/*
 * partition_allowed: the local transaction check of a request naming row of
 * table, with transaction_id (the row must be in its partition) or without
 * (NULL: no open transaction may hold the row's partition).  Without,
 * resolved caches the table's resolution for the request's other rows
 * (zeroed at first; free with resolved_table_free); with, it may be NULL.
 * False after replying.
 */
extern bool partition_allowed(Call *call, const char *transaction_id, const char *table,
							  const PbRow *row, ResolvedTable *resolved);

/*
 * write_wire_usable: a write may take its wire function (which, WIRE_*):
 * the database has it, and neither the request's transaction nor another
 * open one has a partition check to make, which reads the rows' keys here
 */
extern bool write_wire_usable(const char *transaction_id, int which);

/* field helpers */
extern bool name_valid(Call *call, const char *name, const char *what);	/* "table", "column" */
extern bool table_name_valid(Call *call, const char *name);
/* table_name_ok: the same check, without replying (also a column's rule) */
extern bool table_name_ok(const char *name);
extern bool utf8_valid(const char *text);
extern char *json_text(json_t *value);	/* compact text, malloc'd; NULL for NULL */
extern json_t *json_parse(const char *text);	/* NULL for NULL or bad text */
extern char *int_text(int64_t value);	/* malloc'd decimal */
extern char *text_array(char **names, size_t n); /* '{"a","b"}' literal, malloc'd */
extern const char *row_existence_name(int row_existence);
extern const char *return_type_name(int return_type);
extern json_t *time_range_json(const Otsp__TimeRange *range);

/* column names, and the start and end columns when not NULL, are UTF-8; false after replying */
extern bool names_utf8(Call *call, char *const *names, size_t n, const char *start,
					   const char *end);

/* the read options common to GetRow, GetRange and BatchGetRow, as ots's arguments */
typedef struct ReadOptions
{
	size_t		n_columns_to_get;
	char	  **columns_to_get;
	const Otsp__TimeRange *time_range;
	protobuf_c_boolean has_max_versions;
	int32_t		max_versions;
	protobuf_c_boolean has_filter;
	ProtobufCBinaryData filter;
	const char *start_column;
	const char *end_column;
} ReadOptions;
/* the read options as ots's arguments by name, a json object; NULL after replying */
extern json_t *read_options(Call *call, const ReadOptions *o, const char *no_version_message);

/* decode exactly one PlainBuffer row of a request field; false after replying */
extern bool decode_one_row(Call *call, const ProtobufCBinaryData *bytes, PbRow *row);

/* ConsumedCapacity from ots's consumed jsonb ({"read": r, "write": w}) */
typedef struct Consumed
{
	Otsp__ConsumedCapacity capacity;
	Otsp__CapacityUnit unit;
} Consumed;
extern Otsp__ConsumedCapacity *consumed_from(Consumed *c, const char *consumed_json);
/* the same from an ots.wire_* function's binary result: row's last two columns, read_cu and write_cu */
extern Otsp__ConsumedCapacity *consumed_from_wire(Consumed *c, PGresult *res, int row);

/* a result field's text, NULL for SQL NULL */
extern const char *field_text(PGresult *res, int row, int col);
/* appends one PlainBuffer row (with its header) of ots's key and attribute jsonb texts */
extern void row_bytes(Buf *out, const char *pk_text, const char *attributes_text,
					  const PbRow *request);

/*
 * Kept: what a reply's messages are built in (zeroed allocations, strings,
 * inner messages packed), freed together once the reply is sent
 */
typedef struct Kept
{
	void	  **ptrs;
	size_t		n;
	size_t		cap;
} Kept;
extern void *kept_alloc(Kept *k, size_t size);
extern void kept_free(Kept *k);
extern char *kept_string(Kept *k, json_t *s);
extern ProtobufCBinaryData kept_pack(Kept *k, const ProtobufCMessage *m);

#endif							/* OTSD_ACTION_H */
