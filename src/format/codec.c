/*-------------------------------------------------------------------------
 * src/format/codec.c
 *	  Reads and writes the jsonb encoding of values, cells, primary keys and
 *	  attribute maps described in codec.h, with Tablestore's validation
 *	  messages.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "common/base64.h"
#include "common/shortest_dec.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "format/codec.h"
#include "errors.h"
#include "format/names.h"
#include "ots_limits.h"
#include "format/request_fields.h"

static const char *codec_vt_name_of(const JsonbValue *jv);

/*
 * the fields of an object value, each naming its form: one of them, alone
 * ({"$binary": "AAEC"}); a primary key's value knows two more
 */
static const char *const codec_value_fields[] = {"$binary", "$double"};
static const RequestFields codec_value_object = REQUEST_FIELDS("a value object", codec_value_fields);
static const char *const codec_pk_value_fields[] = {"$binary", "$double", "$inf", "$auto_increment"};
static const RequestFields codec_pk_value_object = REQUEST_FIELDS("a primary key value object",
																  codec_pk_value_fields);

/* the fields of a cell given as an object, {"value": v, "ts": t} */
static const char *const codec_cell_fields[] = {"value", "ts"};
static const RequestFields codec_cell_object = REQUEST_FIELDS("a cell", codec_cell_fields);

static JsonbValue *codec_container_single_key(const JsonbValue *jv, const char **key,
											  int *keylen, JsonbValue *val);
static bool codec_numeric_is_fractional(Numeric num);
static char *codec_numeric_text(Numeric num);
static int64 codec_numeric_to_int64(Numeric num, bool *ok);
static double codec_parse_double(const JsonbValue *jv, const char *column);
static void codec_parse_cell(const JsonbValue *jv, CellInput *cell, bool request);
static CellInput *codec_parse_cells(Jsonb *attrs, const CellInput *typed, int ntyped,
									int *ncells, bool request);

/*
 * codec_container_single_key returns the value of a one-key object given as
 * a jbvBinary JsonbValue, with its key; NULL when jv is anything else.
 */
static JsonbValue *
codec_container_single_key(const JsonbValue *jv, const char **key, int *keylen,
						   JsonbValue *val)
{
	JsonbIterator *it;
	JsonbValue	k;
	JsonbIteratorToken tok;

	if (jv->type != jbvBinary || !JsonContainerIsObject(jv->val.binary.data) ||
		JsonContainerSize(jv->val.binary.data) != 1)
		return NULL;
	it = JsonbIteratorInit(jv->val.binary.data);
	tok = JsonbIteratorNext(&it, &k, true); /* BEGIN_OBJECT */
	tok = JsonbIteratorNext(&it, &k, true);
	Assert(tok == WJB_KEY);
	tok = JsonbIteratorNext(&it, val, true);
	Assert(tok == WJB_VALUE);
	(void) tok;
	*key = k.val.string.val;
	*keylen = k.val.string.len;
	return val;
}

static bool
codec_key_is(const char *key, int keylen, const char *want)
{
	return keylen == (int) strlen(want) && memcmp(key, want, keylen) == 0;
}

/*
 * codec_numeric_is_fractional tells whether a jsonb number has a fractional
 * part as written.  jsonb keeps a number's display scale ("3.0" has scale 1,
 * "1e3" and "1.5e3" scale 0), and the text form has a '.' exactly when that
 * scale is positive, so the scale answers without printing the number.
 */
static bool
codec_numeric_is_fractional(Numeric num)
{
	if (numeric_is_nan(num) || numeric_is_inf(num))
		return true;
	return DatumGetInt32(DirectFunctionCall1(numeric_scale, NumericGetDatum(num))) > 0;
}

/* codec_numeric_text is a number's text form, as jsonb keeps it */
static char *
codec_numeric_text(Numeric num)
{
	return DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(num)));
}

/* codec_numeric_to_int64 converts an integral numeric, failing on overflow */
static int64
codec_numeric_to_int64(Numeric num, bool *ok)
{
	static Numeric int64_min = NULL;
	static Numeric int64_max = NULL;
	bool		outside_int32;
	int32		small;

	*ok = false;
	if (codec_numeric_is_fractional(num))
		return 0;
	small = numeric_int4_opt_error(num, &outside_int32);
	if (!outside_int32)
	{
		*ok = true;
		return small;
	}
	/* numeric_int8 raises on overflow, so compare with the bounds first */
	if (int64_min == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		int64_min = int64_to_numeric(PG_INT64_MIN);
		int64_max = int64_to_numeric(PG_INT64_MAX);
		MemoryContextSwitchTo(old);
	}
	if (DatumGetBool(DirectFunctionCall2(numeric_lt, NumericGetDatum(num),
										 NumericGetDatum(int64_min))) ||
		DatumGetBool(DirectFunctionCall2(numeric_gt, NumericGetDatum(num),
										 NumericGetDatum(int64_max))))
		return 0;
	*ok = true;
	return DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(num)));
}

void
codec_check_double(double d)
{
	if (isnan(d))
		ots_error(PARAMETER_INVALID, "NaN can't be set to double value.");
	if (isinf(d))
		ots_error(PARAMETER_INVALID, "Infinity can't be set to double value.");
}

/* codec_invalid_double rejects an operand of {"$double": ...} that is no number */
static void
codec_invalid_double(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_OTS_PARAMETER_INVALID),
			 errmsg_internal("Invalid double value."),
			 errdetail("\"$double\" takes a JSON number or one of \"NaN\", \"Infinity\", \"-Infinity\".")));
}

/*
 * codec_number_double converts a JSON number to a Double.  A number beyond
 * a Double's range is refused, never rounded to infinity or to 0 (what
 * strtod would give); a subnormal result is kept, since it is the nearest
 * Double and reads back to the same number.
 */
static double
codec_number_double(Numeric num, const char *column)
{
	double		d;

	errno = 0;
	d = strtod(codec_numeric_text(num), NULL);
	if (errno == ERANGE && (d == 0.0 || isinf(d)))
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("Double value of column '%s' is out of range.", column),
				 errdetail("A Double is 0 or has a magnitude from about 4.9e-324 to 1.8e308; the number given would %s.",
						   d == 0.0 ? "underflow to 0" : "overflow to infinity")));
	codec_check_double(d);
	return d;
}

/*
 * codec_parse_double reads the operand of {"$double": ...}: a JSON number,
 * or a string naming NaN or Infinity, which are rejected with Tablestore's
 * messages; a string never carries a finite number.
 */
static double
codec_parse_double(const JsonbValue *jv, const char *column)
{
	char	   *text = NULL;
	char	   *end;
	double		d;

	if (jv->type == jbvNumeric)
		return codec_number_double(jv->val.numeric, column);
	if (jv->type == jbvString)
		text = pnstrdup(jv->val.string.val, jv->val.string.len);
	else
		codec_invalid_double();
	errno = 0;
	d = strtod(text, &end);
	if (end == text || *end != '\0')
		codec_invalid_double();
	if (errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL))
		codec_check_double(get_float8_infinity());
	codec_check_double(d);
	codec_invalid_double();
	return d;
}

/*
 * codec_read_value reads one value in the encoding of codec.h, without the
 * size limit of a write request.
 */
void
codec_read_value(const JsonbValue *jv, OtsValue *out, const char *column)
{
	const char *key;
	int			keylen;
	JsonbValue	inner;

	switch (jv->type)
	{
		case jbvString:
			out->type = OTS_VT_STRING;
			out->u.s.data = jv->val.string.val;
			out->u.s.len = jv->val.string.len;
			break;
		case jbvNumeric:
			{
				if (codec_numeric_is_fractional(jv->val.numeric))
				{
					out->type = OTS_VT_DOUBLE;
					out->u.d = codec_number_double(jv->val.numeric, column);
				}
				else
				{
					bool		ok;

					out->type = OTS_VT_INTEGER;
					out->u.i = codec_numeric_to_int64(jv->val.numeric, &ok);
					if (!ok)
						ereport(ERROR,
								(errcode(ERRCODE_OTS_PARAMETER_INVALID),
								 errmsg_internal("Integer value of column '%s' is out of range.", column),
								 errdetail("Integer values are signed 64-bit; write {\"$double\": %s} for a Double.",
										   codec_numeric_text(jv->val.numeric))));
				}
				break;
			}
		case jbvBool:
			out->type = OTS_VT_BOOLEAN;
			out->u.b = jv->val.boolean;
			break;
		case jbvBinary:
			if (codec_container_single_key(jv, &key, &keylen, &inner) != NULL)
			{
				if (codec_key_is(key, keylen, "$binary") && inner.type == jbvString)
				{
					int			declen = pg_b64_dec_len(inner.val.string.len);
					char	   *buf = palloc(declen + 1);
					int			n = pg_b64_decode(inner.val.string.val, inner.val.string.len,
												  buf, declen);

					if (n < 0)
						ereport(ERROR,
								(errcode(ERRCODE_OTS_PARAMETER_INVALID),
								 errmsg_internal("Invalid binary value of column '%s'.", column),
								 errdetail("\"$binary\" takes a base64 string.")));
					out->type = OTS_VT_BINARY;
					out->u.s.data = buf;
					out->u.s.len = n;
					break;
				}
				if (codec_key_is(key, keylen, "$double"))
				{
					out->type = OTS_VT_DOUBLE;
					out->u.d = codec_parse_double(&inner, column);
					break;
				}
			}
			/* no value of a form: an object's unknown field is named */
			if (JsonContainerIsObject(jv->val.binary.data))
				request_fields_check(jv->val.binary.data, &codec_value_object,
									 "the value of column '%s'", column);
			/* FALLTHROUGH */
		default:
			ereport(ERROR,
					(errcode(ERRCODE_OTS_PARAMETER_INVALID),
					 errmsg_internal("Invalid value of column '%s'.", column),
					 errdetail("A value is a JSON string, number or boolean, {\"$binary\": \"<base64>\"} or {\"$double\": <number>}.")));
	}
}

/* codec_value_too_long: is a String or Binary value longer than a write request allows? */
static inline bool
codec_value_too_long(const OtsValue *v)
{
	return (v->type == OTS_VT_STRING || v->type == OTS_VT_BINARY) &&
		v->u.s.len > OTS_MAX_ATTR_VALUE_LEN;
}

/* codec_value_length_error: Tablestore's error for a value codec_value_too_long refuses */
static void
codec_value_length_error(const OtsValue *v, const char *column)
{
	ots_error(PARAMETER_INVALID,
			  "The length of attribute column: '%s' exceeds the MaxLength:%d with CurrentLength:%u.",
			  column, OTS_MAX_ATTR_VALUE_LEN, v->u.s.len);
}

void
codec_parse_value(const JsonbValue *jv, OtsValue *out, const char *column)
{
	codec_read_value(jv, out, column);
	if (codec_value_too_long(out))
		codec_value_length_error(out, column);
}

void
codec_check_timestamp(int64 ts)
{
	if (ts < 0 || ts >= OTS_MAX_TIMESTAMP)
		ots_error(PARAMETER_INVALID, "Timestamp must be in range [0, INT64_MAX/1000).");
}

int64
codec_parse_timestamp(const JsonbValue *jv)
{
	bool		ok = false;
	int64		ts = 0;

	if (jv->type == jbvNumeric)
		ts = codec_numeric_to_int64(jv->val.numeric, &ok);
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("Timestamp must be in range [0, INT64_MAX/1000)."),
				 errdetail("A timestamp is an integer number of milliseconds since the Unix epoch.")));
	codec_check_timestamp(ts);
	return ts;
}

/*
 * codec_parse_cell reads a value or {"value": v, "ts": t} into cell, whose
 * name is already set; with the value size limit of a write request when
 * request is true.
 */
static void
codec_parse_cell(const JsonbValue *jv, CellInput *cell, bool request)
{
	void		(*parse_value) (const JsonbValue *, OtsValue *, const char *) =
		request ? codec_parse_value : codec_read_value;

	cell->has_ts = false;
	cell->ts = 0;
	if (jv->type == jbvBinary && JsonContainerIsObject(jv->val.binary.data))
	{
		JsonbValue	v;
		JsonbValue	ts;
		JsonbContainer *c = jv->val.binary.data;
		bool		has_value = getKeyJsonValueFromContainer(c, CODEC_KEY("value"), &v) != NULL;
		bool		has_ts = getKeyJsonValueFromContainer(c, CODEC_KEY("ts"), &ts) != NULL;

		if (has_value || has_ts)
		{
			char	   *column = pnstrdup(cell->name, cell->namelen);

			/* more keys than the known ones found: name the first unknown one */
			if (JsonContainerSize(c) > (uint32) has_value + (uint32) has_ts)
				request_fields_check(c, &codec_cell_object, "the cell of column '%s'", column);
			if (!has_value)
				ereport(ERROR,
						(errcode(ERRCODE_OTS_PARAMETER_INVALID),
						 errmsg_internal("Invalid cell of column '%s'.", column),
						 errdetail("A cell is {\"value\": <value>} or {\"value\": <value>, \"ts\": <milliseconds>}.")));
			parse_value(&v, &cell->value, column);
			if (has_ts)
			{
				cell->has_ts = true;
				cell->ts = codec_parse_timestamp(&ts);
			}
			return;
		}
	}
	parse_value(jv, &cell->value, pnstrdup(cell->name, cell->namelen));
}

CellInput *
codec_parse_attributes(Jsonb *attrs, int *ncells)
{
	return codec_parse_cells(attrs, NULL, 0, ncells, true);
}

CellInput *
codec_parse_attributes_with(Jsonb *attrs, const CellInput *typed, int ntyped, int *ncells)
{
	return codec_parse_cells(attrs, typed, ntyped, ncells, true);
}

CellInput *
codec_parse_stored_attributes(Jsonb *attrs, int *ncells)
{
	return codec_parse_cells(attrs, NULL, 0, ncells, false);
}

/*
 * codec_take_typed appends to cells[*n..] the typed cells from *next on
 * whose names come before name[0..len) in jsonb's key order (name NULL:
 * all that are left), checked as codec_parse_cells checks a cell of the
 * map where its name falls: its name, its value (a Double must be finite,
 * a String or Binary not too long), then its timestamp.
 */
static void
codec_take_typed(CellInput *cells, int *n, const CellInput *typed, int ntyped, int *next,
				 const char *name, uint32 len)
{
	for (; *next < ntyped; (*next)++)
	{
		const CellInput *c = &typed[*next];

		if (name != NULL && codec_key_cmp(c->name, c->namelen, name, len) >= 0)
			break;
		names_check_column(c->name, c->namelen);
		if (c->value.type == OTS_VT_DOUBLE)
			codec_check_double(c->value.u.d);
		if (codec_value_too_long(&c->value))
			codec_value_length_error(&c->value, pnstrdup(c->name, c->namelen));
		if (c->has_ts)
			codec_check_timestamp(c->ts);
		cells[(*n)++] = *c;
	}
}

/*
 * codec_parse_cells reads an attribute map (codec_parse_attributes), with
 * the typed cells added in the map's order (codec_parse_attributes_with);
 * with the limits of one write request (cells per write, value sizes) when
 * request is true, checking only the format otherwise.
 */
static CellInput *
codec_parse_cells(Jsonb *attrs, const CellInput *typed, int ntyped, int *ncells, bool request)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	CellInput  *cells;
	int			n = 0;
	int			cap;
	int			next = 0;
	const char *name = NULL;
	uint32		namelen = 0;

	*ncells = 0;
	if (attrs == NULL && ntyped == 0)
		return NULL;
	if (attrs != NULL && (!JB_ROOT_IS_OBJECT(attrs) || JB_ROOT_IS_SCALAR(attrs)))
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("Attribute columns must be a JSON object."),
				 errdetail("Write attributes as {\"column\": value, ...}.")));
	cap = Max((attrs != NULL ? JB_ROOT_COUNT(attrs) : 0) + ntyped, 1);
	cells = palloc(sizeof(CellInput) * cap);

	it = attrs != NULL ? JsonbIteratorInit(&attrs->root) : NULL;
	while (it != NULL && (tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			name = v.val.string.val;
			namelen = v.val.string.len;
			if (next < ntyped)
				codec_take_typed(cells, &n, typed, ntyped, &next, name, namelen);
			names_check_column(name, namelen);
		}
		else if (tok == WJB_VALUE)
		{
			bool		is_array = v.type == jbvBinary &&
				JsonContainerIsArray(v.val.binary.data);
			JsonbValue	elem;
			int			count = is_array ? JsonContainerSize(v.val.binary.data) : 1;

			if (n + count > cap)
			{
				cap = Max(cap * 2, n + count);
				cells = repalloc(cells, sizeof(CellInput) * cap);
			}
			if (!is_array)
			{
				cells[n].name = name;
				cells[n].namelen = namelen;
				codec_parse_cell(&v, &cells[n++], request);
				continue;
			}
			if (count == 0)
				ereport(ERROR,
						(errcode(ERRCODE_OTS_PARAMETER_INVALID),
						 errmsg_internal("Invalid cell of column '%s'.", pnstrdup(name, namelen)),
						 errdetail("An array of cells must not be empty.")));
			for (int i = 0; i < count; i++)
			{
				JsonbValue *e = getIthJsonbValueFromContainer(v.val.binary.data, i);

				elem = *e;
				cells[n].name = name;
				cells[n].namelen = namelen;
				codec_parse_cell(&elem, &cells[n++], request);
			}
		}
	}
	if (next < ntyped)
		codec_take_typed(cells, &n, typed, ntyped, &next, NULL, 0);
	if (request && n > OTS_MAX_COLUMNS_PER_WRITE)
		ots_error(PARAMETER_INVALID,
				  "The number of attribute columns exceeds the limit, limit count: %d, column count: %d.",
				  OTS_MAX_COLUMNS_PER_WRITE, n);
	*ncells = n;
	return cells;
}

/* codec_vt_name_of: the OTS type name a JsonbValue would parse as (for errors) */
static const char *
codec_vt_name_of(const JsonbValue *jv)
{
	const char *key;
	int			keylen;
	JsonbValue	inner;

	switch (jv->type)
	{
		case jbvString:
			return "VT_STRING";
		case jbvBool:
			return "VT_BOOLEAN";
		case jbvNull:
			return "VT_NULL";
		case jbvNumeric:
			return codec_numeric_is_fractional(jv->val.numeric) ? "VT_DOUBLE" : "VT_INTEGER";
		default:
			break;
	}
	if (codec_container_single_key(jv, &key, &keylen, &inner) != NULL)
	{
		if (codec_key_is(key, keylen, "$binary"))
			return "VT_BLOB";
		if (codec_key_is(key, keylen, "$double"))
			return "VT_DOUBLE";
		if (codec_key_is(key, keylen, "$inf"))
			return "VT_INF";
		if (codec_key_is(key, keylen, "$auto_increment"))
			return "VT_AUTO_INCREMENT";
	}
	return "VT_UNKNOWN";
}

/*
 * codec_parse_pk_special recognises {"$inf": "min"|"max"} and
 * {"$auto_increment": true}; PK_VALUE for anything else.
 */
static PkSpecial
codec_parse_pk_special(const JsonbValue *jv)
{
	const char *key;
	int			keylen;
	JsonbValue	inner;

	if (codec_container_single_key(jv, &key, &keylen, &inner) == NULL)
		return PK_VALUE;
	if (codec_key_is(key, keylen, "$inf") && inner.type == jbvString)
	{
		if (codec_key_is(inner.val.string.val, inner.val.string.len, "min"))
			return PK_INF_MIN;
		if (codec_key_is(inner.val.string.val, inner.val.string.len, "max"))
			return PK_INF_MAX;
	}
	if (codec_key_is(key, keylen, "$auto_increment") && inner.type == jbvBool &&
		inner.val.boolean)
		return PK_AUTO_INCREMENT;
	return PK_VALUE;
}

/* codec_check_pk_auto_increment: may col take the AUTO_INCREMENT placeholder here? */
static void
codec_check_pk_auto_increment(const OtsPkColumn *col, int flags)
{
	if (!(flags & PK_ALLOW_AUTO_INC))
		ots_error(PARAMETER_INVALID, "PKAutoIncr can't be used for read operations.");
	if (!col->auto_increment)
		ots_error(INVALID_PK, "Validate PK type fail. Input: VT_AUTO_INCREMENT, Meta: %s.",
				  ots_value_vt_name(col->type));
}

/* codec_check_pk_count: a key of n columns for table t, with Tablestore's messages */
static void
codec_check_pk_count(const OtsTable *t, int n)
{
	/* an index's key is longer: its own columns, then the base key's others */
	if (n < OTS_MIN_PK_COLUMNS || n > (t->is_index ? OTS_MAX_KEY_COLUMNS : OTS_MAX_PK_COLUMNS))
		ots_error(PARAMETER_INVALID,
				  "The number of primary key columns must be in range: [%d, %d].",
				  OTS_MIN_PK_COLUMNS, t->is_index ? OTS_MAX_KEY_COLUMNS : OTS_MAX_PK_COLUMNS);
	if (n != t->npk)
		ots_error(INVALID_PK, "Validate PK size fail. Input: %d, Meta: %d.", n, t->npk);
}

void
codec_parse_pk(const OtsTable *t, Jsonb *pk, int flags, PkInput *out)
{
	int			n;

	if (pk == NULL || !JB_ROOT_IS_OBJECT(pk) || JB_ROOT_IS_SCALAR(pk))
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg_internal("The primary key must be a JSON object."),
				 errdetail("Write the primary key as {\"column\": value, ...}.")));
	n = JB_ROOT_COUNT(pk);
	codec_check_pk_count(t, n);

	out->n = n;
	for (int i = 0; i < t->npk; i++)
	{
		const OtsPkColumn *col = &t->pk[i];
		JsonbValue	jv;
		PkSpecial	special;

		if (getKeyJsonValueFromContainer(&pk->root, col->name, col->namelen, &jv) == NULL)
		{
			/* name the first input key the schema does not have */
			JsonbIterator *it = JsonbIteratorInit(&pk->root);
			JsonbValue	k;
			JsonbIteratorToken tok;
			char	   *input = "";

			while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
			{
				bool		known = false;

				if (tok != WJB_KEY)
					continue;
				for (int j = 0; j < t->npk; j++)
					if (t->pk[j].namelen == k.val.string.len &&
						memcmp(t->pk[j].name, k.val.string.val, k.val.string.len) == 0)
						known = true;
				if (!known)
				{
					input = pnstrdup(k.val.string.val, k.val.string.len);
					break;
				}
			}
			ots_error(INVALID_PK, "Validate PK name fail. Input: %s, Meta: %s.", input, col->name);
		}

		special = codec_parse_pk_special(&jv);
		out->special[i] = special;
		if (special == PK_INF_MIN || special == PK_INF_MAX)
		{
			if (!(flags & PK_ALLOW_INF))
				ots_error(PARAMETER_INVALID, "%s is an invalid type for the primary key.",
						  special == PK_INF_MIN ? "VT_INF_MIN" : "VT_INF_MAX");
			continue;
		}
		if (special == PK_AUTO_INCREMENT)
		{
			codec_check_pk_auto_increment(col, flags);
			continue;
		}

		{
			const char *input_vt = codec_vt_name_of(&jv);

			if (strcmp(input_vt, ots_value_vt_name(col->type)) != 0)
			{
				/*
				 * an object value names its form by its one field: one of no
				 * known form (VT_UNKNOWN) has a field to name
				 */
				if (jv.type == jbvBinary && JsonContainerIsObject(jv.val.binary.data))
					request_fields_check(jv.val.binary.data, &codec_pk_value_object,
										 "the value of primary key column '%s'", col->name);
				ots_error(INVALID_PK, "Validate PK type fail. Input: %s, Meta: %s.",
						  input_vt, ots_value_vt_name(col->type));
			}
		}
		codec_parse_value(&jv, &out->v[i], col->name);
		if (col->type == OTS_VT_STRING || col->type == OTS_VT_BINARY)
			codec_check_pk_length(col, out->v[i].u.s.len);
	}
}

/*
 * codec_check_pk applies codec_parse_pk's checks to a key given as values
 * of the table's key types, each in its column's place (a view's row,
 * view_write.c), pk->n of them given: the count, then per column the
 * special values flags allows, the value lengths.
 */
void
codec_check_pk(const OtsTable *t, const PkInput *pk, int flags)
{
	codec_check_pk_count(t, pk->n);
	for (int i = 0; i < t->npk; i++)
	{
		const OtsPkColumn *col = &t->pk[i];

		if (pk->special[i] == PK_AUTO_INCREMENT)
		{
			codec_check_pk_auto_increment(col, flags);
			continue;
		}
		Assert(pk->special[i] == PK_VALUE && pk->v[i].type == col->type);
		if (codec_value_too_long(&pk->v[i]))
			codec_value_length_error(&pk->v[i], col->name);
		if (col->type == OTS_VT_STRING || col->type == OTS_VT_BINARY)
			codec_check_pk_length(col, pk->v[i].u.s.len);
	}
}

/* codec_check_pk_length refuses a String or Binary key value longer than Tablestore allows */
void
codec_check_pk_length(const OtsPkColumn *col, uint32 len)
{
	if (len > OTS_MAX_PK_VALUE_LEN)
		ots_error(PARAMETER_INVALID,
				  "The length of primary key column: '%s' exceeds the MaxLength:%d with CurrentLength:%u.",
				  col->name, OTS_MAX_PK_VALUE_LEN, len);
}

uint32
codec_pk_size(const OtsTable *t, const PkInput *pk)
{
	uint32		size = 0;

	for (int i = 0; i < t->npk; i++)
		size += t->pk[i].namelen +
			(pk->special[i] == PK_VALUE ? ots_value_size(&pk->v[i]) : 8);
	return size;
}

/*
 * codec_value_data_size: a request value's data size as Tablestore counts it
 * for the 4 MB limit (String and Binary their bytes, decoded from base64
 * without decoding; Integer and Double 8; Boolean 1)
 */
static uint64
codec_value_data_size(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return v->val.string.len;
		case jbvNumeric:
			return 8;
		case jbvBool:
			return 1;
		case jbvBinary:
			{
				JsonbValue	b;

				if (JsonContainerIsObject(v->val.binary.data) &&
					getKeyJsonValueFromContainer(v->val.binary.data, CODEC_KEY("$binary"), &b) != NULL &&
					b.type == jbvString)
				{
					int			len = b.val.string.len;
					int			padding = 0;

					/* exact decoded length: three bytes per four characters, less padding */
					while (padding < 2 && len - padding > 0 &&
						   b.val.string.val[len - padding - 1] == '=')
						padding++;
					return (uint64) len / 4 * 3 + (len % 4 > 1 ? len % 4 - 1 : 0) -
						(len % 4 == 0 ? padding : 0);
				}
				return 8;
			}
		default:
			return 0;
	}
}

/* codec_check_data_ts rejects a numeric timestamp outside [0, INT64_MAX/1000) */
static void
codec_check_data_ts(const JsonbValue *ts, bool check_ts)
{
	if (check_ts && ts->type == jbvNumeric)
		(void) codec_parse_timestamp(ts);
}

uint64
codec_cells_data_size(JsonbContainer *map, bool values, bool check_ts)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	uint64		size = 0;
	uint32		namelen = 0;

	if (map == NULL || !JsonContainerIsObject(map))
		return 0;
	it = JsonbIteratorInit(map);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
			namelen = v.val.string.len;
		else if (tok == WJB_VALUE)
		{
			int			n = 1;
			bool		is_array = v.type == jbvBinary && JsonContainerIsArray(v.val.binary.data);

			if (is_array)
				n = JsonContainerSize(v.val.binary.data);
			for (int i = 0; i < n; i++)
			{
				JsonbValue	cell = is_array ? *getIthJsonbValueFromContainer(v.val.binary.data, i) : v;
				JsonbValue	inner;
				JsonbValue	ts;

				size += namelen;
				if (!values)
				{
					codec_check_data_ts(&cell, check_ts);
					continue;
				}
				if (cell.type == jbvBinary && JsonContainerIsObject(cell.val.binary.data) &&
					getKeyJsonValueFromContainer(cell.val.binary.data, CODEC_KEY("value"), &inner) != NULL)
				{
					size += codec_value_data_size(&inner);
					if (getKeyJsonValueFromContainer(cell.val.binary.data, CODEC_KEY("ts"), &ts) != NULL)
					{
						codec_check_data_ts(&ts, check_ts);
						size += 8;
					}
				}
				else
					size += codec_value_data_size(&cell);
			}
		}
	}
	return size;
}

uint64
codec_pk_data_size(JsonbContainer *pk)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	uint64		size = 0;

	if (pk == NULL || !JsonContainerIsObject(pk))
		return 0;
	it = JsonbIteratorInit(pk);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
			size += v.val.string.len;
		else if (tok == WJB_VALUE)
			size += codec_value_data_size(&v);
	}
	return size;
}

void
codec_push_key(JsonbParseState **state, const char *s, uint32 len)
{
	JsonbValue	k;

	k.type = jbvString;
	k.val.string.val = (char *) s;
	k.val.string.len = len;
	pushJsonbValue(state, WJB_KEY, &k);
}

void
codec_push_int(JsonbParseState **state, int64 v, JsonbIteratorToken token)
{
	JsonbValue	n;

	n.type = jbvNumeric;
	n.val.numeric = int64_to_numeric(v);
	pushJsonbValue(state, token, &n);
}

/* codec_decimal_numeric_in parses a decimal text as numeric_in does */
static Numeric
codec_decimal_numeric_in(const char *text)
{
	return DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(text),
											   ObjectIdGetDatum(InvalidOid),
											   Int32GetDatum(-1)));
}

/*
 * codec_decimal_numeric turns "-ddd.ddd" (no exponent) into a numeric with
 * the same digits and scale.  A Double's shortest form has at most 17
 * significant digits, so the digits fit an int64 and the numeric is built
 * without numeric_in's text parsing; anything longer, which only leading
 * zeros make ("0.00012345678901234567"), still goes through numeric_in.
 */
static Numeric
codec_decimal_numeric(const char *text)
{
	const char *p = text;
	bool		negative = (*p == '-');
	int64		digits = 0;
	int			ndigits = 0;
	int			scale = 0;
	bool		point = false;

	if (negative)
		p++;
	for (; *p != '\0'; p++)
	{
		if (*p == '.')
		{
			point = true;
			continue;
		}
		if (*p < '0' || *p > '9' || ++ndigits > 18)
			return codec_decimal_numeric_in(text);
		digits = digits * 10 + (*p - '0');
		if (point)
			scale++;
	}
	return int64_div_fast_to_numeric(negative ? -digits : digits, scale);
}

char *
codec_base64(const char *data, int len, int *outlen)
{
	int			enclen = pg_b64_enc_len(len);
	char	   *buf = palloc(enclen + 1);

	*outlen = pg_b64_encode(data, len, buf, enclen);
	if (*outlen < 0)
		elog(ERROR, "could not encode binary value as base64");
	return buf;
}

Numeric
codec_double_numeric(double d, bool *wrapped)
{
	char		buf[DOUBLE_SHORTEST_DECIMAL_LEN + 2];
	int			len = double_to_shortest_decimal_buf(d, buf);
	bool		exponent = strchr(buf, 'e') != NULL;

	/* keep a whole number recognisably a Double: "3" prints as "3.0" */
	if (!exponent && strchr(buf, '.') == NULL)
	{
		buf[len++] = '.';
		buf[len++] = '0';
		buf[len] = '\0';
	}
	/* 1e+300 has no fraction in numeric form: say it is a Double */
	*wrapped = exponent && strstr(buf, "e-") == NULL;
	return exponent ? codec_decimal_numeric_in(buf) : codec_decimal_numeric(buf);
}

/* codec_object1: out as the object {key: *value} (value copied) */
static void
codec_object1(JsonbValue *out, const char *key, const JsonbValue *value)
{
	JsonbPair  *pair = palloc(sizeof(JsonbPair));

	pair->key.type = jbvString;
	pair->key.val.string.val = (char *) key;
	pair->key.val.string.len = strlen(key);
	pair->value = *value;
	pair->order = 0;
	out->type = jbvObject;
	out->val.object.nPairs = 1;
	out->val.object.pairs = pair;
}

void
codec_jsonb_value(const OtsValue *v, JsonbValue *out)
{
	JsonbValue	jv;

	switch (v->type)
	{
		case OTS_VT_STRING:
			out->type = jbvString;
			out->val.string.val = (char *) v->u.s.data;
			out->val.string.len = v->u.s.len;
			return;
		case OTS_VT_INTEGER:
			out->type = jbvNumeric;
			out->val.numeric = int64_to_numeric(v->u.i);
			return;
		case OTS_VT_BOOLEAN:
			out->type = jbvBool;
			out->val.boolean = v->u.b;
			return;
		case OTS_VT_DOUBLE:
			{
				bool		wrapped;

				jv.type = jbvNumeric;
				jv.val.numeric = codec_double_numeric(v->u.d, &wrapped);
				if (wrapped)
					codec_object1(out, "$double", &jv);
				else
					*out = jv;
				return;
			}
		case OTS_VT_BINARY:
			jv.type = jbvString;
			jv.val.string.val = codec_base64(v->u.s.data, v->u.s.len, &jv.val.string.len);
			codec_object1(out, "$binary", &jv);
			return;
	}
}

void
codec_push_value(JsonbParseState **state, const OtsValue *v, JsonbIteratorToken token)
{
	JsonbValue	jv;

	codec_jsonb_value(v, &jv);
	if (jv.type != jbvObject)
	{
		pushJsonbValue(state, token, &jv);
		return;
	}
	/* {"$double": n} or {"$binary": "..."}: one pair */
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	pushJsonbValue(state, WJB_KEY, &jv.val.object.pairs[0].key);
	pushJsonbValue(state, WJB_VALUE, &jv.val.object.pairs[0].value);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/* codec_push_cell appends one cell as {"ts": ts, "value": v}, an array element */
void
codec_push_cell(JsonbParseState **state, int64 ts, const OtsValue *v)
{
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	codec_push_key(state, CODEC_KEY("ts"));
	codec_push_int(state, ts, WJB_VALUE);
	codec_push_key(state, CODEC_KEY("value"));
	codec_push_value(state, v, WJB_VALUE);
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/*
 * codec_stored_row_to_jsonb renders a stored row whole, expired and
 * over-max cells too, as {"row_ts": <ms>, "cells": {"<column>": [cell,
 * ...]}} with each column's cells newest first: the text form of ots.cells,
 * which codec_parse_stored_attributes reads back.
 */
Jsonb *
codec_stored_row_to_jsonb(const CellsReader *r)
{
	JsonbParseState *state = NULL;
	JsonbValue *res;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	codec_push_key(&state, CODEC_KEY("row_ts"));
	codec_push_int(&state, r->row_ts, WJB_VALUE);
	codec_push_key(&state, CODEC_KEY("cells"));
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (uint32 i = 0; i < r->ncols; i++)
	{
		CellsColumn col;
		int64		ts;
		OtsValue	v;

		cells_column_at(r, i, &col);
		codec_push_key(&state, col.name, col.namelen);
		pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
		while (cells_column_next(&col, &ts, &v))
			codec_push_cell(&state, ts, &v);
		pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	}
	pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(res);
}

Jsonb *
codec_pk_to_jsonb(const OtsTable *t, const PkInput *pk)
{
	JsonbParseState *state = NULL;
	JsonbValue *res;
	CodecPair	pairs[OTS_MAX_KEY_COLUMNS];
	int			n = 0;

	/* a stored row's key (no infinities) is written straight in binary form */
	while (n < t->npk && pk->special[n] == PK_VALUE)
	{
		pairs[n].key = t->pk[n].name;
		pairs[n].keylen = t->pk[n].namelen;
		pairs[n].value = pk->v[n];
		n++;
	}
	if (n == t->npk)
		return codec_flat_object(pairs, n);

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < t->npk; i++)
	{
		codec_push_key(&state, t->pk[i].name, t->pk[i].namelen);
		if (pk->special[i] == PK_INF_MIN || pk->special[i] == PK_INF_MAX)
		{
			JsonbValue	s;

			pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
			codec_push_key(&state, CODEC_KEY("$inf"));
			s.type = jbvString;
			s.val.string.val = pk->special[i] == PK_INF_MIN ? "min" : "max";
			s.val.string.len = 3;
			pushJsonbValue(&state, WJB_VALUE, &s);
			pushJsonbValue(&state, WJB_END_OBJECT, NULL);
		}
		else
			codec_push_value(&state, &pk->v[i], WJB_VALUE);
	}
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(res);
}

bool
codec_jsonb_get(Jsonb *obj, const char *key, JsonbValue *out)
{
	if (obj == NULL || !JB_ROOT_IS_OBJECT(obj) || JB_ROOT_IS_SCALAR(obj))
		return false;
	return getKeyJsonValueFromContainer(&obj->root, key, strlen(key), out) != NULL;
}

void
codec_pk_copy(PkInput *dst, const PkInput *src)
{
	memset(dst, 0, sizeof(PkInput));
	dst->n = src->n;
	for (int k = 0; k < src->n; k++)
	{
		ots_value_copy(&dst->v[k], &src->v[k]);
		dst->special[k] = src->special[k];
	}
}

bool
codec_pk_equal(const PkInput *a, const PkInput *b)
{
	if (a->n != b->n)
		return false;
	for (int k = 0; k < a->n; k++)
		if (!ots_value_equal(&a->v[k], &b->v[k]))
			return false;
	return true;
}
