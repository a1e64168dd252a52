/*-------------------------------------------------------------------------
 * src/value.c
 *	  Ordering, sizes and names of typed Tablestore values.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"

#include "value.h"

int
ots_value_compare(const OtsValue *a, const OtsValue *b)
{
	Assert(a->type == b->type);
	switch (a->type)
	{
		case OTS_VT_INTEGER:
			return (a->u.i > b->u.i) - (a->u.i < b->u.i);
		case OTS_VT_DOUBLE:
			return (a->u.d > b->u.d) - (a->u.d < b->u.d);
		case OTS_VT_BOOLEAN:
			return (int) a->u.b - (int) b->u.b;
		case OTS_VT_STRING:
		case OTS_VT_BINARY:
			{
				uint32		n = Min(a->u.s.len, b->u.s.len);
				int			c = n > 0 ? memcmp(a->u.s.data, b->u.s.data, n) : 0;

				if (c != 0)
					return c < 0 ? -1 : 1;
				return (a->u.s.len > b->u.s.len) - (a->u.s.len < b->u.s.len);
			}
	}
	return 0;
}

uint32
ots_value_size(const OtsValue *v)
{
	switch (v->type)
	{
		case OTS_VT_INTEGER:
		case OTS_VT_DOUBLE:
			return 8;
		case OTS_VT_BOOLEAN:
			return 1;
		case OTS_VT_STRING:
		case OTS_VT_BINARY:
			return v->u.s.len;
	}
	return 0;
}

const char *
ots_value_type_name(OtsValueType t)
{
	switch (t)
	{
		case OTS_VT_STRING:
			return "STRING";
		case OTS_VT_INTEGER:
			return "INTEGER";
		case OTS_VT_DOUBLE:
			return "DOUBLE";
		case OTS_VT_BOOLEAN:
			return "BOOLEAN";
		case OTS_VT_BINARY:
			return "BINARY";
	}
	return "UNKNOWN";
}

const char *
ots_value_vt_name(OtsValueType t)
{
	switch (t)
	{
		case OTS_VT_STRING:
			return "VT_STRING";
		case OTS_VT_INTEGER:
			return "VT_INTEGER";
		case OTS_VT_DOUBLE:
			return "VT_DOUBLE";
		case OTS_VT_BOOLEAN:
			return "VT_BOOLEAN";
		case OTS_VT_BINARY:
			return "VT_BLOB";
	}
	return "VT_UNKNOWN";
}

void
ots_value_append_text(StringInfo buf, const OtsValue *v)
{
	switch (v->type)
	{
		case OTS_VT_STRING:
			appendBinaryStringInfo(buf, v->u.s.data, v->u.s.len);
			break;
		case OTS_VT_INTEGER:
			appendStringInfo(buf, INT64_FORMAT, v->u.i);
			break;
		case OTS_VT_DOUBLE:
			appendStringInfo(buf, "%.17g", v->u.d);
			break;
		case OTS_VT_BOOLEAN:
			appendStringInfoString(buf, v->u.b ? "true" : "false");
			break;
		case OTS_VT_BINARY:
			appendStringInfoString(buf, "\\x");
			for (uint32 i = 0; i < v->u.s.len; i++)
				appendStringInfo(buf, "%02x", (unsigned char) v->u.s.data[i]);
			break;
	}
}

Datum
ots_value_datum(const OtsValue *v)
{
	switch (v->type)
	{
		case OTS_VT_STRING:
			return PointerGetDatum(cstring_to_text_with_len(v->u.s.data, v->u.s.len));
		case OTS_VT_INTEGER:
			return Int64GetDatum(v->u.i);
		case OTS_VT_DOUBLE:
			return Float8GetDatum(v->u.d);
		case OTS_VT_BOOLEAN:
			return BoolGetDatum(v->u.b);
		case OTS_VT_BINARY:
			{
				bytea	   *b = (bytea *) palloc(VARHDRSZ + v->u.s.len);

				SET_VARSIZE(b, VARHDRSZ + v->u.s.len);
				memcpy(VARDATA(b), v->u.s.data, v->u.s.len);
				return PointerGetDatum(b);
			}
	}
	elog(ERROR, "invalid ots value type %d", (int) v->type);
	return (Datum) 0;
}

Oid
ots_value_sql_type(OtsValueType t)
{
	switch (t)
	{
		case OTS_VT_STRING:
			return TEXTOID;
		case OTS_VT_INTEGER:
			return INT8OID;
		case OTS_VT_DOUBLE:
			return FLOAT8OID;
		case OTS_VT_BOOLEAN:
			return BOOLOID;
		case OTS_VT_BINARY:
			return BYTEAOID;
	}
	return InvalidOid;
}
