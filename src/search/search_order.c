/*-------------------------------------------------------------------------
 * src/search/search_order.c
 *	  A row's place in a search's order as bytes that compare (bytewise)
 *	  as the compiled search's ORDER BY does.
 *
 * A cluster's proxy asks each shard for its part of a search and merges
 * the parts (proxy/sql/60_search.sql); it cannot compare the rows' values
 * itself without knowing each sort key's type and direction, so each shard
 * sends every row's place as such bytes, and the proxy only sorts them.
 *
 * Each key in turn: 0x02 for a missing value (last, in either direction),
 * else 0x01 and the value: an int8 big-endian with its sign bit flipped; a
 * float8 as its bits, negative ones all inverted, positive ones with the
 * sign bit set (-0 as 0, every NaN one NaN, last, as PostgreSQL orders
 * them); a bool as one byte; text (collation "C", bytewise) and bytea as
 * their bytes, 0x00 written 0x00 0xFF, ended by 0x00 0x00, so that a
 * shorter value sorts first.  A descending key's value bytes are inverted.
 * The primary key comes last, each column as its storage type.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/numeric.h"

#include "search/search_order.h"

static void
order_put_uint64(StringInfo buf, uint64 u)
{
	for (int shift = 56; shift >= 0; shift -= 8)
		appendStringInfoChar(buf, (char) ((u >> shift) & 0xFF));
}

static void
order_put_bytes(StringInfo buf, const char *bytes, int len)
{
	for (int i = 0; i < len; i++)
	{
		appendStringInfoChar(buf, bytes[i]);
		if (bytes[i] == '\0')
			appendStringInfoChar(buf, (char) 0xFF);
	}
	appendStringInfoChar(buf, '\0');
	appendStringInfoChar(buf, '\0');
}

static double
order_float8(JsonbValue *v)
{
	if (v->type == jbvNumeric)
		return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric)));
	/* NaN and the infinities come as strings */
	if (v->type == jbvString)
		return DatumGetFloat8(DirectFunctionCall1(float8in,
												  CStringGetDatum(pnstrdup(v->val.string.val, v->val.string.len))));
	elog(ERROR, "a search's float8 sort value is neither a number nor a string");
	return 0;
}

/* order_put: one key's value v (NULL or a jsonb null: missing) of storage type type */
static void
order_put(StringInfo buf, Oid type, bool desc, JsonbValue *v)
{
	int			start;

	if (v == NULL || v->type == jbvNull)
	{
		appendStringInfoChar(buf, 0x02);
		return;
	}
	appendStringInfoChar(buf, 0x01);
	start = buf->len;
	switch (type)
	{
		case INT8OID:
			if (v->type != jbvNumeric)
				elog(ERROR, "a search's int8 sort value is not a number");
			order_put_uint64(buf, (uint64) DatumGetInt64(DirectFunctionCall1(numeric_int8,
																			 NumericGetDatum(v->val.numeric))) ^
							 (UINT64CONST(1) << 63));
			break;
		case FLOAT8OID:
			{
				double		d = order_float8(v);
				uint64		bits;

				if (d == 0)
					d = 0;		/* -0 equals 0 */
				if (isnan(d))
					d = get_float8_nan();
				memcpy(&bits, &d, sizeof(bits));
				order_put_uint64(buf, (bits >> 63) ? ~bits : bits | (UINT64CONST(1) << 63));
				break;
			}
		case BOOLOID:
			if (v->type != jbvBool)
				elog(ERROR, "a search's bool sort value is not a boolean");
			appendStringInfoChar(buf, v->val.boolean ? 1 : 0);
			break;
		case BYTEAOID:
			{
				/* hex, as the search's session writes bytea */
				bytea	   *b;

				if (v->type != jbvString)
					elog(ERROR, "a search's bytea key value is not a string");
				b = DatumGetByteaPP(DirectFunctionCall1(byteain,
														CStringGetDatum(pnstrdup(v->val.string.val, v->val.string.len))));
				order_put_bytes(buf, VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));
				break;
			}
		default:
			if (v->type != jbvString)
				elog(ERROR, "a search's text sort value is not a string");
			order_put_bytes(buf, v->val.string.val, v->val.string.len);
			break;
	}
	if (desc)
		for (int i = start; i < buf->len; i++)
			buf->data[i] = (char) ~((unsigned char) buf->data[i]);
}

char *
search_order_key(const SearchOrder *keys, const OtsTable *t, Jsonb *sort_values, Jsonb *key)
{
	StringInfoData buf;
	char	   *hex;
	int			n;

	initStringInfo(&buf);
	for (int i = 0; i < keys->nkeys; i++)
		order_put(&buf, keys->types[i], keys->desc[i], getIthJsonbValueFromContainer(&sort_values->root, i));
	for (int k = 0; k < t->npk; k++)
		order_put(&buf, t->pk[k].type == OTS_VT_INTEGER ? INT8OID : t->pk[k].type == OTS_VT_BINARY ? BYTEAOID : TEXTOID,
				  keys->key_desc, getIthJsonbValueFromContainer(&key->root, k));
	hex = palloc(buf.len * 2 + 1);
	n = hex_encode(buf.data, buf.len, hex);
	hex[n] = '\0';
	return hex;
}
