/*-------------------------------------------------------------------------
 * src/format/value.c
 *	  Ordering, sizes and names of typed Tablestore values.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "format/value.h"

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

void
ots_value_copy(OtsValue *dst, const OtsValue *src)
{
	*dst = *src;
	if (src->type == OTS_VT_STRING || src->type == OTS_VT_BINARY)
	{
		char	   *data = palloc(src->u.s.len + 1);

		if (src->u.s.len > 0)
			memcpy(data, src->u.s.data, src->u.s.len);
		data[src->u.s.len] = '\0';
		dst->u.s.data = data;
	}
}

bool
ots_value_equal(const OtsValue *a, const OtsValue *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type)
	{
		case OTS_VT_INTEGER:
			return a->u.i == b->u.i;
		case OTS_VT_DOUBLE:
			return memcmp(&a->u.d, &b->u.d, sizeof(a->u.d)) == 0;
		case OTS_VT_BOOLEAN:
			return a->u.b == b->u.b;
		case OTS_VT_STRING:
		case OTS_VT_BINARY:
			return a->u.s.len == b->u.s.len &&
				(a->u.s.len == 0 || memcmp(a->u.s.data, b->u.s.data, a->u.s.len) == 0);
	}
	return false;
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

