/*-------------------------------------------------------------------------
 * gateway/action_util.c
 *	  What the action files share (action.h): building and running one ots
 *	  SQL call; request fields as its arguments (the read options of the
 *	  row reads among them); the reply to a request that does not decode;
 *	  ots's results as reply fields (a row as PlainBuffer).
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"

void
sql_begin(SqlCall *q, const char *head)
{
	memset(q, 0, sizeof(*q));
	buf_put(&q->text, head, strlen(head));
	q->first_arg = true;
}

static void
sql_param(SqlCall *q, const char *name, const char *value, const char *type, char *owned)
{
	char		part[160];

	if (q->nargs >= SQL_MAX_ARGS)
		abort();				/* a programming error: the actions have fixed arity */
	q->values[q->nargs] = value;
	q->owned[q->nargs] = owned;
	q->nargs++;
	snprintf(part, sizeof(part), "%s%s%s$%d::%s",
			 q->first_arg ? "" : ", ", name ? name : "", name ? " => " : "",
			 q->nargs, type);
	buf_put(&q->text, part, strlen(part));
	q->first_arg = false;
}

void
sql_arg(SqlCall *q, const char *value, const char *type)
{
	sql_param(q, NULL, value, type, NULL);
}

void
sql_arg_owned(SqlCall *q, char *value, const char *type)
{
	sql_param(q, NULL, value, type, value);
}

/* put_be32: v as 4 big-endian bytes, as PostgreSQL's binary forms take integers */
static void
put_be32(Buf *b, uint32_t v)
{
	uint8_t		be[4] = {(uint8_t) (v >> 24), (uint8_t) (v >> 16), (uint8_t) (v >> 8), (uint8_t) v};

	buf_put(b, be, 4);
}

void
sql_arg_bytes_array(SqlCall *q, const ProtobufCBinaryData *const *items, size_t n)
{
	Buf			b = {0};

	/* array_recv's form: dimensions, no nulls, element type bytea (17), length, lower bound 1 */
	put_be32(&b, 1);
	put_be32(&b, 0);
	put_be32(&b, 17);
	put_be32(&b, (uint32_t) n);
	put_be32(&b, 1);
	for (size_t i = 0; i < n; i++)
	{
		put_be32(&b, (uint32_t) items[i]->len);
		buf_put(&b, items[i]->data, items[i]->len);
	}
	sql_param(q, NULL, (const char *) b.data, "bytea[]", (char *) b.data);
	q->lengths[q->nargs - 1] = (int) b.len;
	q->formats[q->nargs - 1] = 1;
	q->any_binary = true;
}

void
sql_arg_bytes(SqlCall *q, const uint8_t *data, size_t len)
{
	/* an empty value is still a value, not SQL NULL */
	sql_param(q, NULL, data != NULL ? (const char *) data : "", "bytea", NULL);
	q->lengths[q->nargs - 1] = (int) len;
	q->formats[q->nargs - 1] = 1;
	q->any_binary = true;
}

void
sql_named(SqlCall *q, const char *name, const char *value, const char *type)
{
	if (value != NULL)
		sql_param(q, name, value, type, NULL);
}

void
sql_named_owned(SqlCall *q, const char *name, char *value, const char *type)
{
	if (value != NULL)
		sql_param(q, name, value, type, value);
}

void
sql_end(SqlCall *q, const char *tail)
{
	buf_put(&q->text, tail, strlen(tail) + 1);	/* with the terminating NUL */
}

void
sql_free(SqlCall *q)
{
	for (int i = 0; i < q->nargs; i++)
		free(q->owned[i]);
	buf_free(&q->text);
	memset(q, 0, sizeof(*q));
}

/* utf8_valid: text is UTF-8 as PostgreSQL accepts it */
bool
utf8_valid(const char *text)
{
	size_t		n;

	for (; *text; text += n)
		if ((n = utf8_char_len(text)) == 0)
			return false;
	return true;
}

/*
 * names_utf8: column names are UTF-8 (jansson's json_string makes nothing
 * of one that is not, and the name would silently drop out of the request
 * ots sees); false after replying
 */
bool
names_utf8(Call *call, char *const *names, size_t n, const char *start, const char *end)
{
	bool		ok = (start == NULL || utf8_valid(start)) && (end == NULL || utf8_valid(end));

	for (size_t i = 0; ok && i < n; i++)
		ok = utf8_valid(names[i]);
	if (!ok)
		call_parameter_invalid(call, "A string in the request is not valid UTF-8.");
	return ok;
}

/*
 * sql_exec: sql_run, but a failed statement is replied to only when
 * reply_failure is set (else NULL with call->replied still false)
 */
static PGresult *
sql_exec(Call *call, const char *transaction_id, SqlCall *q, bool reply_failure)
{
	PGconn	   *conn;
	PGresult   *res;

	/* a request that used up its memory bound decoding runs nothing */
	if (memory_exceeded())
	{
		memory_refuse(call);
		return NULL;
	}
	/*
	 * protobuf-c does not check that a string field is UTF-8: a client's bad
	 * bytes are its error, not PostgreSQL's "invalid byte sequence" as a 500
	 */
	for (int i = 0; i < q->nargs; i++)
		if (q->values[i] != NULL && q->formats[i] == 0 && !utf8_valid(q->values[i]))
		{
			call_parameter_invalid(call, "A string in the request is not valid UTF-8.");
			return NULL;
		}
	conn = call_db(call, transaction_id);
	if (conn == NULL)
		return NULL;
	res = prepared_exec(conn, (const char *) q->text.data, q->nargs, q->values,
						q->any_binary ? q->lengths : NULL, q->any_binary ? q->formats : NULL,
						q->binary_result);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		if (reply_failure)
			call_pg_error(call, res);
		PQclear(res);
		return NULL;
	}
	return res;
}

PGresult *
sql_run(Call *call, const char *transaction_id, SqlCall *q)
{
	return sql_exec(call, transaction_id, q, true);
}

/*
 * table_resolve: "schema"."t" as ots resolves the name for the role
 * (ots.resolve_name, what every ots call of the key runs), whether the role
 * may write it through the row functions (a write privilege on the storage,
 * and no row-level security applying to it there, which they refuse:
 * rowstore_check_privileges), and only then its partition-key column
 * (describe_table would refuse a role without privileges with a message of
 * its own).
 */
bool
table_resolve(Call *call, const char *table, bool quiet, ResolvedTable *out)
{
	SqlCall		q;
	PGresult   *res;

	memset(out, 0, sizeof(*out));
	out->looked_up = true;
	sql_begin(&q, "SELECT pg_catalog.format('%I.%I', r.schema_name, r.table_name), w.may_write, "
			  "CASE WHEN w.may_write THEN ots.describe_table(");
	sql_arg(&q, table, "text");
	sql_end(&q, ") OPERATOR(pg_catalog.->) 'primary_key' OPERATOR(pg_catalog.->) 0 "
			"OPERATOR(pg_catalog.->>) 'name' END "
			"FROM ots.resolve_name($1, false) r, "
			"LATERAL (SELECT pg_catalog.format('%I.%I', r.schema_name, "
			"r.table_name OPERATOR(pg_catalog.||) '$data') AS storage) s, "
			"LATERAL (SELECT pg_catalog.has_table_privilege(s.storage, 'INSERT, UPDATE, DELETE') "
			"AND NOT pg_catalog.row_security_active(s.storage) AS may_write) w");
	res = sql_exec(call, NULL, &q, !quiet);
	sql_free(&q);
	if (res == NULL)
		return !call->replied;
	out->found = true;
	out->resolved = strdup(PQgetvalue(res, 0, 0));
	out->may_write = strcmp(PQgetvalue(res, 0, 1), "t") == 0;
	out->column = PQgetisnull(res, 0, 2) ? NULL : strdup(PQgetvalue(res, 0, 2));
	PQclear(res);
	if (out->resolved == NULL || (out->may_write && out->column == NULL))
		abort();
	return true;
}

void
resolved_table_free(ResolvedTable *t)
{
	free(t->resolved);
	free(t->column);
	memset(t, 0, sizeof(*t));
}

/*
 * partition_in_transaction: the row is in the transaction's partition: the
 * same table as spelled, and the row's value of the table's partition-key
 * column (whatever the order of the request's key cells) its value.  False
 * after replying.
 */
static bool
partition_in_transaction(Call *call, const char *transaction_id, const char *table,
						 const PbRow *row)
{
	TxnPartition partition;
	char	   *key;
	bool		ok;

	if (!call_txn_partition(call, transaction_id, &partition))
		return false;
	key = json_text(json_object_get(row->primary_key, partition.column));
	ok = strcmp(partition.table, table) == 0 && key != NULL && strcmp(key, partition.key) == 0;
	if (!ok)
		call_parameter_invalid(call, "The partition key or table does not match the transaction's.");
	free(key);
	txn_partition_free(&partition);
	return ok;
}

/*
 * partition_free: no open transaction holds the row's partition of the
 * table as the key's role resolves it.  The common case, no transaction
 * holding any of the row's key values, takes no SQL.  A role that may not
 * write the table, or for which the name is no table, is answered as if
 * nothing were held: its call then fails as it would anyway, and it learns
 * nothing of other keys' transactions.  False after replying (409).
 */
static bool
partition_free(Call *call, const char *table, const PbRow *row, ResolvedTable *resolved)
{
	const char *name;
	json_t	   *value;
	bool		maybe_held = false;
	char	   *key;
	bool		held;

	json_object_foreach(row->primary_key, name, value)
	{
		char	   *text = json_text(value);

		maybe_held = maybe_held || (text != NULL && call_partition_value_held(text));
		free(text);
	}
	if (!maybe_held)
		return true;
	if (!resolved->looked_up && !table_resolve(call, table, true, resolved))
		return false;
	if (!resolved->found || !resolved->may_write)
		return true;
	key = json_text(json_object_get(row->primary_key, resolved->column));
	held = key != NULL && call_partition_held(call, resolved->resolved, key);
	free(key);
	return !held;
}

bool
write_wire_usable(const char *transaction_id, int which)
{
	return transaction_id == NULL && pool_has_wire(which) && !call_transactions_open();
}

bool
partition_allowed(Call *call, const char *transaction_id, const char *table,
				  const PbRow *row, ResolvedTable *resolved)
{
	if (transaction_id != NULL)
		return partition_in_transaction(call, transaction_id, table, row);
	return partition_free(call, table, row, resolved);
}

/*
 * enums_known: every enum field of message, and of the messages it holds,
 * has a value its enum defines.  protobuf-c keeps any number; Tablestore's
 * proto2 parser leaves an unknown value aside, so a required field is then
 * missing and the request does not parse.  Read as the nearest value
 * instead, an unknown operation or row existence would do what the client
 * never asked (a PUT, a write without its condition).
 */
static bool
enums_known(const ProtobufCMessage *message)
{
	const ProtobufCMessageDescriptor *descriptor = message->descriptor;

	for (unsigned i = 0; i < descriptor->n_fields; i++)
	{
		const ProtobufCFieldDescriptor *field = &descriptor->fields[i];
		const char *member = (const char *) message + field->offset;
		const char *quantifier = (const char *) message + field->quantifier_offset;
		size_t		count = 1;

		if (field->type != PROTOBUF_C_TYPE_ENUM && field->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (field->label == PROTOBUF_C_LABEL_REPEATED)
		{
			count = *(const size_t *) quantifier;
			member = *(const char *const *) member;
		}
		else if (field->label == PROTOBUF_C_LABEL_OPTIONAL && field->type == PROTOBUF_C_TYPE_ENUM)
			count = (field->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) ?
				*(const uint32_t *) quantifier == field->id :
				*(const protobuf_c_boolean *) quantifier;
		for (size_t k = 0; k < count; k++)
		{
			if (field->type == PROTOBUF_C_TYPE_ENUM)
			{
				if (protobuf_c_enum_descriptor_get_value(field->descriptor,
														 ((const int *) member)[k]) == NULL)
					return false;
			}
			else
			{
				const ProtobufCMessage *sub = ((const ProtobufCMessage *const *) member)[k];

				if (sub != NULL && !enums_known(sub))
					return false;
			}
		}
	}
	return true;
}

void *
request_unpack(const ProtobufCMessageDescriptor *descriptor, const Call *call)
{
	ProtobufCMessage *message = protobuf_c_message_unpack(descriptor, &memory_protobuf,
														  call->body_len, call->body);

	if (message != NULL && !enums_known(message))
	{
		protobuf_c_message_free_unpacked(message, &memory_protobuf);
		return NULL;
	}
	return message;
}

void
reply_malformed(Call *call)
{
	reply_undecodable(call, "Failed to parse the ProtoBuf message.");
}

void
reply_undecodable(Call *call, const char *err)
{
	if (memory_exceeded())
		memory_refuse(call);
	else
		call_parameter_invalid(call, "%s", err);
}

/* Tablestore's table and column names: [A-Za-z_][A-Za-z0-9_]*, at most 255 bytes */
bool
name_valid(Call *call, const char *name, const char *what)
{
	bool		ok = table_name_ok(name);

	if (!ok)
		call_parameter_invalid(call, "Invalid %s name: '%s'.", what, name ? name : "");
	return ok;
}

bool
table_name_ok(const char *name)
{
	size_t		len = name ? strlen(name) : 0;
	bool		ok = len > 0 && len <= 255 && (isalpha((unsigned char) name[0]) || name[0] == '_');

	for (size_t i = 1; ok && i < len; i++)
		ok = isalnum((unsigned char) name[i]) || name[i] == '_';
	return ok;
}

bool
table_name_valid(Call *call, const char *name)
{
	return name_valid(call, name, "table");
}

char *
json_text(json_t *value)
{
	if (value == NULL)
		return NULL;
	return json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* whether a run of decimal digits (a sign aside) is an int64 */
static bool
int64_digits(const char *digits, size_t n, bool negative)
{
	const char *limit = negative ? "9223372036854775808" : "9223372036854775807";

	while (n > 1 && *digits == '0')
		digits++, n--;
	return n < 19 || (n == 19 && strncmp(digits, limit, 19) <= 0);
}

/*
 * ots prints a Double too large for a plain number as {"$double": <digits>}
 * without a fraction (jsonb's numeric text), which jansson refuses as an
 * integer out of range: give such integer tokens a ".0" and parse again.
 */
static json_t *
json_parse_big(const char *text)
{
	Buf			fixed = {0};
	bool		in_string = false;
	json_t	   *value;

	for (const char *c = text; *c; c++)
	{
		if (in_string)
		{
			buf_byte(&fixed, (uint8_t) *c);
			if (*c == '\\' && c[1])
				buf_byte(&fixed, (uint8_t) *++c);
			else if (*c == '"')
				in_string = false;
			continue;
		}
		if (*c == '"')
			in_string = true;
		if ((*c == '-' || isdigit((unsigned char) *c)) &&
			(c == text || strchr(",:[ ", c[-1]) != NULL))
		{
			bool		negative = *c == '-';
			size_t		digits = strspn(c + negative, "0123456789");
			size_t		n = digits + negative;

			buf_put(&fixed, c, n);
			if (strchr(".eE", c[n]) == NULL && !int64_digits(c + negative, digits, negative))
				buf_put(&fixed, ".0", 2);
			c += n - 1;
			continue;
		}
		buf_byte(&fixed, (uint8_t) *c);
	}
	buf_byte(&fixed, '\0');
	value = json_loads((char *) fixed.data, JSON_DECODE_ANY, NULL);
	buf_free(&fixed);
	return value;
}

json_t *
json_parse(const char *text)
{
	json_t	   *value;
	json_error_t error;

	if (text == NULL)
		return NULL;
	value = json_loads(text, JSON_DECODE_ANY, &error);
	if (value == NULL && strstr(error.text, "too big") != NULL)
		value = json_parse_big(text);
	return value;
}

char *
int_text(int64_t value)
{
	char	   *text = malloc(24);

	if (text == NULL)
		abort();
	snprintf(text, 24, "%" PRId64, value);
	return text;
}

/* a text[] literal: every element double-quoted with \ and " escaped */
char *
text_array(char **names, size_t n)
{
	Buf			out = {0};

	buf_byte(&out, '{');
	for (size_t i = 0; i < n; i++)
	{
		if (i > 0)
			buf_byte(&out, ',');
		buf_byte(&out, '"');
		for (const char *c = names[i]; *c; c++)
		{
			if (*c == '"' || *c == '\\')
				buf_byte(&out, '\\');
			buf_byte(&out, (uint8_t) *c);
		}
		buf_byte(&out, '"');
	}
	buf_byte(&out, '}');
	buf_byte(&out, '\0');
	return (char *) out.data;
}

const char *
row_existence_name(int row_existence)
{
	switch (row_existence)
	{
		case OTSP__ROW_EXISTENCE_EXPECTATION__EXPECT_EXIST:
			return "EXPECT_EXIST";
		case OTSP__ROW_EXISTENCE_EXPECTATION__EXPECT_NOT_EXIST:
			return "EXPECT_NOT_EXIST";
		default:
			return "IGNORE";
	}
}

const char *
return_type_name(int return_type)
{
	switch (return_type)
	{
		case OTSP__RETURN_TYPE__RT_PK:
			return "RT_PK";
		case OTSP__RETURN_TYPE__RT_AFTER_MODIFY:
			return "RT_AFTER_MODIFY";
		default:
			return "RT_NONE";
	}
}

json_t *
time_range_json(const Otsp__TimeRange *range)
{
	json_t	   *out;

	if (range == NULL)
		return NULL;
	out = json_object();
	if (range->has_specific_time)
		json_object_set_new(out, "specific_time", json_integer(range->specific_time));
	if (range->has_start_time)
		json_object_set_new(out, "start_time", json_integer(range->start_time));
	if (range->has_end_time)
		json_object_set_new(out, "end_time", json_integer(range->end_time));
	return out;
}

/* a json array of strings */
static json_t *
string_array(char *const *names, size_t n)
{
	json_t	   *array = json_array();

	for (size_t i = 0; i < n && !memory_exceeded(); i++)
		json_array_append_new(array, json_string(names[i]));
	return array;
}

/*
 * read_options: the read options as ots's arguments by name, a json object
 * (batch_get_row takes it as a table's entry; get_row and get_range take its
 * members as named arguments, read_args); NULL after replying
 */
json_t *
read_options(Call *call, const ReadOptions *o, const char *no_version_message)
{
	json_t	   *options;
	char		err[256];

	if (!o->has_max_versions && o->time_range == NULL)
	{
		call_parameter_invalid(call, "%s", no_version_message);
		return NULL;
	}
	if (!names_utf8(call, o->columns_to_get, o->n_columns_to_get, o->start_column, o->end_column))
		return NULL;
	options = json_object();
	if (o->n_columns_to_get > 0)
		json_object_set_new(options, "columns_to_get", string_array(o->columns_to_get, o->n_columns_to_get));
	if (o->has_max_versions)
		json_object_set_new(options, "max_versions", json_integer(o->max_versions));
	if (o->time_range != NULL)
		json_object_set_new(options, "time_range", time_range_json(o->time_range));
	if (o->has_filter && o->filter.len > 0)
	{
		json_t	   *filter = pb_decode_filter(o->filter.data, o->filter.len, err, sizeof(err));

		if (filter == NULL)
		{
			json_decref(options);
			reply_undecodable(call, err);
			return NULL;
		}
		json_object_set_new(options, "filter", filter);
	}
	if (o->start_column)
		json_object_set_new(options, "start_column", json_string(o->start_column));
	if (o->end_column)
		json_object_set_new(options, "end_column", json_string(o->end_column));
	json_object_set_new(options, "with_timestamps", json_true());
	return options;
}

bool
decode_one_row(Call *call, const ProtobufCBinaryData *bytes, PbRow *row)
{
	char		err[256];

	memset(row, 0, sizeof(*row));
	if (!pb_decode_row(bytes->data, bytes->len, row, err, sizeof(err)))
	{
		reply_undecodable(call, err);
		return false;
	}
	return true;
}

Otsp__ConsumedCapacity *
consumed_from(Consumed *c, const char *consumed_json)
{
	json_t	   *consumed = json_parse(consumed_json);

	otsp__consumed_capacity__init(&c->capacity);
	otsp__capacity_unit__init(&c->unit);
	c->unit.has_read = c->unit.has_write = 1;
	c->unit.read = (int32_t) json_integer_value(json_object_get(consumed, "read"));
	c->unit.write = (int32_t) json_integer_value(json_object_get(consumed, "write"));
	c->capacity.capacity_unit = &c->unit;
	json_decref(consumed);
	return &c->capacity;
}

/* field_int32: a binary result's int4 field (network order); 0 for NULL */
static int32_t
field_int32(PGresult *res, int row, int col)
{
	const uint8_t *b = (const uint8_t *) PQgetvalue(res, row, col);

	if (PQgetisnull(res, row, col) || PQgetlength(res, row, col) != 4)
		return 0;
	return (int32_t) ((uint32_t) b[0] << 24 | (uint32_t) b[1] << 16 | (uint32_t) b[2] << 8 | b[3]);
}

Otsp__ConsumedCapacity *
consumed_from_wire(Consumed *c, PGresult *res, int row)
{
	int			n = PQnfields(res);

	otsp__consumed_capacity__init(&c->capacity);
	otsp__capacity_unit__init(&c->unit);
	c->unit.has_read = c->unit.has_write = 1;
	c->unit.read = field_int32(res, row, n - 2);
	c->unit.write = field_int32(res, row, n - 1);
	c->capacity.capacity_unit = &c->unit;
	return &c->capacity;
}

/* field_text: a result field's text, NULL for SQL NULL */
const char *
field_text(PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? NULL : PQgetvalue(res, row, col);
}

/*
 * row_bytes appends one PlainBuffer row (with its header) of ots's key and
 * attribute jsonb texts; an update's RT_AFTER_MODIFY returns attributes
 * without a key, which is then the request's
 */
void
row_bytes(Buf *out, const char *pk_text, const char *attributes_text, const PbRow *request)
{
	json_t	   *pk = json_parse(pk_text);
	json_t	   *attributes = json_parse(attributes_text);

	if (pk == NULL && json_object_size(attributes) > 0)
		pk = json_incref(request->primary_key);
	if (pk != NULL && json_is_object(pk))
	{
		pb_begin(out);
		pb_write_row(out, pk, request->pk_order, attributes);
	}
	json_decref(pk);
	json_decref(attributes);
}

void
simple_call(Call *call, const char *function, const char *table, const char *second, const char *ttl,
			const ProtobufCMessage *response)
{
	SqlCall		q;
	char		head[96];

	if (!table_name_valid(call, table) || (second != NULL && !table_name_valid(call, second)))
		return;
	snprintf(head, sizeof(head), "SELECT ots.%s(", function);
	sql_begin(&q, head);
	sql_arg(&q, table, "text");
	if (second != NULL)
		sql_arg(&q, second, "text");
	if (ttl != NULL)
		sql_named(&q, "time_to_live", ttl, "bigint");
	sql_end(&q, ")::text");
	sql_run_reply(call, &q, response);
}

void
sql_run_reply(Call *call, SqlCall *q, const ProtobufCMessage *response)
{
	PGresult   *res = sql_run(call, NULL, q);

	sql_free(q);
	if (res == NULL)
		return;
	PQclear(res);
	call_reply(call, response);
}

/* ---------------------------------------------------------------- reply messages built in memory kept until the reply */

void *
kept_alloc(Kept *k, size_t size)
{
	void	   *p = calloc(1, size > 0 ? size : 1);

	if (k->n == k->cap)
	{
		k->cap = k->cap ? k->cap * 2 : 64;
		k->ptrs = realloc(k->ptrs, k->cap * sizeof(void *));
	}
	k->ptrs[k->n++] = p;
	return p;
}

void
kept_free(Kept *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->ptrs[i]);
	free(k->ptrs);
}

char *
kept_string(Kept *k, json_t *s)
{
	const char *v = json_string_value(s);
	char	   *out;

	if (v == NULL)
		return NULL;
	out = kept_alloc(k, strlen(v) + 1);
	memcpy(out, v, strlen(v) + 1);
	return out;
}

/* kept_pack: message packed into memory of k */
ProtobufCBinaryData
kept_pack(Kept *k, const ProtobufCMessage *m)
{
	ProtobufCBinaryData out;

	out.len = protobuf_c_message_get_packed_size(m);
	out.data = kept_alloc(k, out.len);
	protobuf_c_message_pack(m, out.data);
	return out;
}
