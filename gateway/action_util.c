/*-------------------------------------------------------------------------
 * gateway/action_util.c
 *	  Building and running one ots SQL call; request fields as its arguments.
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

PGresult *
sql_run(Call *call, const char *transaction_id, SqlCall *q)
{
	PGconn	   *conn;
	PGresult   *res;

	/*
	 * protobuf-c does not check that a string field is UTF-8: a client's bad
	 * bytes are its error, not PostgreSQL's "invalid byte sequence" as a 500
	 */
	for (int i = 0; i < q->nargs; i++)
		if (q->values[i] != NULL && !utf8_valid(q->values[i]))
		{
			call_parameter_invalid(call, "A string in the request is not valid UTF-8.");
			return NULL;
		}
	conn = call_db(call, transaction_id);
	if (conn == NULL)
		return NULL;
	res = prepared_exec(conn, (const char *) q->text.data, q->nargs, q->values);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		call_pg_error(call, res);
		PQclear(res);
		return NULL;
	}
	return res;
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
	ProtobufCMessage *message = protobuf_c_message_unpack(descriptor, NULL, call->body_len, call->body);

	if (message != NULL && !enums_known(message))
	{
		protobuf_c_message_free_unpacked(message, NULL);
		return NULL;
	}
	return message;
}

/* Tablestore's table and column names: [A-Za-z_][A-Za-z0-9_]*, at most 255 bytes */
bool
name_valid(Call *call, const char *name, const char *what)
{
	size_t		len = name ? strlen(name) : 0;
	bool		ok = len > 0 && len <= 255 && (isalpha((unsigned char) name[0]) || name[0] == '_');

	for (size_t i = 1; ok && i < len; i++)
		ok = isalnum((unsigned char) name[i]) || name[i] == '_';
	if (!ok)
		call_parameter_invalid(call, "Invalid %s name: '%s'.", what, name ? name : "");
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

bool
decode_one_row(Call *call, const ProtobufCBinaryData *bytes, PbRow *row)
{
	char		err[256];
	int			n;

	memset(row, 0, sizeof(*row));
	n = pb_decode_rows(bytes->data, bytes->len, row, 1, err, sizeof(err));
	if (n < 0)
	{
		call_parameter_invalid(call, "%s", err);
		return false;
	}
	if (n != 1 || row->primary_key == NULL || json_object_size(row->primary_key) == 0)
	{
		if (n == 1)
			pb_row_free(row);
		call_parameter_invalid(call, "The input parameter is invalid.");
		return false;
	}
	return true;
}

char *
partition_key_text(const PbRow *row)
{
	const char *first = json_string_value(json_array_get(row->pk_order, 0));

	return first ? json_text(json_object_get(row->primary_key, first)) : NULL;
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
