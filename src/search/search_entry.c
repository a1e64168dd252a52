/*-------------------------------------------------------------------------
 * src/search/search_entry.c
 *	  A row's entry in a search index: the value of each field, as the
 *	  storage keeps it, read from the newest cell of the field's column,
 *	  and the times that cell and the row expire by.
 *
 * What a field takes (Tablestore's mapping of column types to field
 * types): LONG an Integer; DOUBLE a Double; BOOLEAN a Boolean; KEYWORD a
 * String of at most 4 KB; TEXT a String, cut into tokens by its analyzer;
 * DATE an Integer (epoch formats) or a String (patterns); GEO_POINT a
 * String "latitude,longitude"; NESTED a String holding a JSON array of
 * objects; an is_array field a String holding a JSON array of such
 * values.  Anything else leaves the field empty in the entry and the row
 * in the index.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/int.h"
#include "common/jsonapi.h"
#include "common/shortest_dec.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/geo_decls.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "format/cells.h"
#include "meta/storage.h"
#include "ots_limits.h"
#include "search/date.h"
#include "search/geo.h"
#include "search/json_build.h"
#include "search/search_index.h"

/* the positions between the tokens of two values of a TEXT array: no phrase spans them */
#define SEARCH_ARRAY_POSITION_GAP 100

/* the nesting a cell's JSON may have (a NESTED field's documents are 5 levels deep at most) */
#define SEARCH_JSON_MAX_DEPTH	32
/* the digits and exponent of a JSON number a search index reads (numeric takes far more) */
#define SEARCH_JSON_MAX_DIGITS	1000

/* json_depth_ok: is s (len bytes) nested at most SEARCH_JSON_MAX_DEPTH deep outside its strings? */
static bool
json_depth_ok(const char *s, int len)
{
	int			depth = 0;
	bool		in_string = false;

	for (int i = 0; i < len; i++)
	{
		if (in_string)
		{
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				in_string = false;
		}
		else if (s[i] == '"')
			in_string = true;
		else if ((s[i] == '[' || s[i] == '{') && ++depth > SEARCH_JSON_MAX_DEPTH)
			return false;
		else if (s[i] == ']' || s[i] == '}')
			depth--;
	}
	return true;
}

/* json_number_ok: a JSON number numeric reads without an error: bounded digits and exponent */
static void
json_number_ok(void *state, char *token, JsonTokenType type)
{
	const char *e;

	if (type != JSON_TOKEN_NUMBER)
		return;
	e = strpbrk(token, "eE");
	if (strlen(token) > SEARCH_JSON_MAX_DIGITS ||
		(e != NULL && (strlen(e + 1) > 6 || labs(strtol(e + 1, NULL, 10)) > SEARCH_JSON_MAX_DIGITS)))
		*(bool *) state = false;
}

/*
 * search_json_parse: s (len bytes) as jsonb, NULL when it is no JSON text
 * jsonb takes, never an error: a \u0000 or an escape the database's
 * encoding cannot hold, a number past numeric's range and too deep a
 * nesting are found before jsonb_in would raise them
 */
Jsonb *
search_json_parse(const char *s, int len)
{
	JsonLexContext *lex;
	JsonSemAction sem = {0};
	bool		ok = true;
	char	   *str;

	if (memchr(s, '\0', len) != NULL || !json_depth_ok(s, len))
		return NULL;
	str = pnstrdup(s, len);
	sem.semstate = &ok;
	sem.scalar = json_number_ok;
	lex = makeJsonLexContextCstringLen(str, len, GetDatabaseEncoding(), true);
	if (pg_parse_json(lex, &sem) != JSON_SUCCESS || !ok)
		return NULL;
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(str)));
}

bool
search_value_integral(const char *digits, int64 *out)
{
	const char *p = digits;
	bool		negative = *p == '-';
	int64		v = 0;

	p += negative;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++)
		if (pg_mul_s64_overflow(v, 10, &v) ||
			(negative ? pg_sub_s64_overflow(v, *p - '0', &v) : pg_add_s64_overflow(v, *p - '0', &v)))
			return false;
	if (*p == '.')
		for (p++; *p == '0'; p++)
			;
	*out = v;
	return *p == '\0';
}

/* an analyzed text's tokens and positions, growing */
typedef struct TextTokens
{
	int			n;
	int			cap;
	Datum	   *tokens;
	Datum	   *positions;
	int			next_position;
} TextTokens;

static void
entry_text_add(const SearchField *f, const char *s, int len, TextTokens *tt)
{
	int			n;
	SearchToken *tokens = search_analyze(&f->analyzer, s, len, &n);
	int			base = tt->next_position;

	if (tt->n + n > tt->cap)
	{
		tt->cap = Max(tt->n + n, tt->cap * 2);
		tt->tokens = tt->tokens ? repalloc(tt->tokens, sizeof(Datum) * tt->cap) : palloc(sizeof(Datum) * tt->cap);
		tt->positions = tt->positions ? repalloc(tt->positions, sizeof(Datum) * tt->cap) : palloc(sizeof(Datum) * tt->cap);
	}
	for (int i = 0; i < n; i++)
	{
		tt->tokens[tt->n] = PointerGetDatum(cstring_to_text_with_len(tokens[i].text, tokens[i].len));
		tt->positions[tt->n] = Int32GetDatum(base + tokens[i].position);
		tt->n++;
		tt->next_position = Max(tt->next_position, base + tokens[i].position + 1);
	}
	tt->next_position += SEARCH_ARRAY_POSITION_GAP;
}

/*
 * entry_scalar: a JSON element of an is_array field's value as the field's
 * element (false when the type does not take it)
 */
static bool
entry_element(const SearchField *f, JsonbValue *e, Datum *out, TextTokens *tt)
{
	switch (f->type)
	{
		case SEARCH_LONG:
		case SEARCH_DATE:
			{
				int64		i;
				char	   *digits;

				if (e->type == jbvString && f->type == SEARCH_DATE)
				{
					int64		ns;

					if (!search_date_parse(f->ndate_formats, f->date_formats, false, 0,
										   e->val.string.val, e->val.string.len, &ns))
						return false;
					*out = Int64GetDatum(ns);
					return true;
				}
				if (e->type != jbvNumeric)
					return false;
				digits = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(e->val.numeric)));
				if (!search_value_integral(digits, &i))
					return false;
				if (f->type == SEARCH_DATE)
				{
					int64		ns;

					if (!search_date_parse(f->ndate_formats, f->date_formats, true, i, NULL, 0, &ns))
						return false;
					i = ns;
				}
				*out = Int64GetDatum(i);
				return true;
			}
		case SEARCH_DOUBLE:
			if (e->type != jbvNumeric)
				return false;
			{
				double		d = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
																   NumericGetDatum(e->val.numeric)));

				if (isinf(d) || isnan(d))
					return false;
				*out = Float8GetDatum(d);
			}
			return true;
		case SEARCH_BOOLEAN:
			if (e->type != jbvBool)
				return false;
			*out = BoolGetDatum(e->val.boolean);
			return true;
		case SEARCH_KEYWORD:
			if (e->type != jbvString || e->val.string.len > OTS_MAX_SEARCH_KEYWORD_LEN)
				return false;
			*out = PointerGetDatum(cstring_to_text_with_len(e->val.string.val, e->val.string.len));
			return true;
		case SEARCH_TEXT:
			if (e->type != jbvString)
				return false;
			entry_text_add(f, e->val.string.val, e->val.string.len, tt);
			return true;
		case SEARCH_GEO_POINT:
			{
				Point	   *p = palloc(sizeof(Point));

				if (e->type != jbvString || !search_geo_point(e->val.string.val, e->val.string.len, p))
					return false;
				*out = PointPGetDatum(p);
				return true;
			}
		case SEARCH_NESTED:
		case SEARCH_VECTOR:
			return false;
	}
	return false;
}

/* entry_elements: arr's elements as field f's values (*elems, *n); false when too many or one does not fit */
static bool
entry_elements(const SearchField *f, JsonbContainer *arr, Datum **elems, int *n, TextTokens *tt)
{
	*n = JsonContainerSize(arr);
	if (*n > OTS_MAX_SEARCH_ARRAY_LEN)
		return false;
	*elems = palloc(sizeof(Datum) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
		if (!entry_element(f, getIthJsonbValueFromContainer(arr, i), &(*elems)[i], tt))
			return false;
	return true;
}

/*
 * entry_positions: a TEXT field's positions as the storage keeps them, null
 * when they are 0, 1, 2, ... (schema.h)
 */
static bool
entry_positions(const TextTokens *tt, Datum *positions)
{
	bool		consecutive = true;

	for (int i = 0; i < tt->n && consecutive; i++)
		consecutive = DatumGetInt32(tt->positions[i]) == i;
	if (!consecutive)
		*positions = PointerGetDatum(construct_array(tt->positions, tt->n, INT4OID, 4, true, TYPALIGN_INT));
	return consecutive;
}

/* entry_array: an is_array field's value; false when it is not an array of the field's type */
static bool
entry_array(const SearchField *f, const OtsValue *v, Datum *value, Datum *positions, bool *no_positions)
{
	Jsonb	   *j;
	int			n;
	Datum	   *elems;
	TextTokens	tt = {0};
	Oid			elemtype;
	int16		typlen;
	bool		typbyval;
	char		typalign;

	if (v->type != OTS_VT_STRING || (j = search_json_parse(v->u.s.data, v->u.s.len)) == NULL ||
		!JB_ROOT_IS_ARRAY(j) || JB_ROOT_IS_SCALAR(j) || !entry_elements(f, &j->root, &elems, &n, &tt))
		return false;
	if (f->type == SEARCH_TEXT)
	{
		*value = PointerGetDatum(construct_array(tt.tokens, tt.n, TEXTOID, -1, false, TYPALIGN_INT));
		*no_positions = entry_positions(&tt, positions);
		return true;
	}
	elemtype = get_element_type(search_field_type_oid(f));
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	*value = PointerGetDatum(construct_array(elems, n, elemtype, typlen, typbyval, typalign));
	return true;
}

/*
 * A NESTED field keeps its documents normalized: each an object holding
 * its sub-fields (others dropped) as the storage keeps a field, in JSON, so
 * that a nested query reads them as it reads columns (search_query.c):
 *	  LONG, DATE (nanoseconds), DOUBLE	a number
 *	  BOOLEAN							true or false
 *	  KEYWORD							a string
 *	  GEO_POINT							[longitude, latitude]
 *	  TEXT (an array's values too)		{"t": [tokens], "p": [positions]}
 *	  NESTED							an array of such documents
 *	  another is_array					an array of such values
 * A sub-field whose value its type does not take is left out, the document
 * kept (as a dirty field leaves a row in the index).
 */

static void entry_push_element(const SearchField *f, Datum d, JsonbParseState **st, JsonbIteratorToken how);
static bool entry_nested_docs(const SearchField *f, JsonbValue *v, JsonbParseState **st, JsonbValue **done);

static void
entry_push_numeric(JsonbParseState **st, Numeric n, JsonbIteratorToken how)
{
	JsonbValue	v = {.type = jbvNumeric, .val.numeric = n};

	pushJsonbValue(st, how, &v);
}

/*
 * entry_push_double: a double as the number that reads back to it exactly
 * (its shortest round-trip decimal; float8_numeric keeps 15 digits only)
 */
static void
entry_push_double(JsonbParseState **st, double d, JsonbIteratorToken how)
{
	char		buf[DOUBLE_SHORTEST_DECIMAL_LEN];

	(void) double_to_shortest_decimal_buf(d, buf);
	entry_push_numeric(st, DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
															   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1))), how);
}

/* entry_push_element: one value of field f (not TEXT, not NESTED) as its normalized JSON */
static void
entry_push_element(const SearchField *f, Datum d, JsonbParseState **st, JsonbIteratorToken how)
{
	JsonbValue	v;

	switch (f->type)
	{
		case SEARCH_LONG:
		case SEARCH_DATE:
			entry_push_numeric(st, int64_to_numeric(DatumGetInt64(d)), how);
			return;
		case SEARCH_DOUBLE:
			entry_push_double(st, DatumGetFloat8(d), how);
			return;
		case SEARCH_BOOLEAN:
			v.type = jbvBool;
			v.val.boolean = DatumGetBool(d);
			pushJsonbValue(st, how, &v);
			return;
		case SEARCH_KEYWORD:
			v.type = jbvString;
			v.val.string.val = VARDATA_ANY(DatumGetTextPP(d));
			v.val.string.len = VARSIZE_ANY_EXHDR(DatumGetTextPP(d));
			pushJsonbValue(st, how, &v);
			return;
		case SEARCH_GEO_POINT:
			pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
			entry_push_double(st, DatumGetPointP(d)->x, WJB_ELEM);
			entry_push_double(st, DatumGetPointP(d)->y, WJB_ELEM);
			pushJsonbValue(st, WJB_END_ARRAY, NULL);
			return;
		case SEARCH_TEXT:
		case SEARCH_NESTED:
		case SEARCH_VECTOR:
			break;
	}
	elog(ERROR, "a search field of type %d has no JSON element", (int) f->type);
}

/*
 * entry_sub_field pushes sub-field f's member of a document for value v
 * (false, nothing pushed, when its type does not take v): an is_array
 * sub-field's value is a JSON array, or a string holding one
 */
static bool
entry_sub_field(const SearchField *f, JsonbValue *v, JsonbParseState **st)
{
	JsonbParseState *probe = NULL;
	JsonbContainer *arr = NULL;
	int			n = 1;
	Datum	   *elems;
	TextTokens	tt = {0};

	if (f->type == SEARCH_NESTED)
	{
		/* a trial first: nothing of a sub-field that fails may be pushed */
		if (!entry_nested_docs(f, v, &probe, NULL))
			return false;
		json_push_key(st, f->name);
		(void) entry_nested_docs(f, v, st, NULL);
		return true;
	}
	if (f->is_array)
	{
		Jsonb	   *j = NULL;

		if (v->type == jbvString)
		{
			j = search_json_parse(v->val.string.val, v->val.string.len);
			if (j == NULL || !JB_ROOT_IS_ARRAY(j) || JB_ROOT_IS_SCALAR(j))
				return false;
			arr = &j->root;
		}
		else if (v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data))
			arr = v->val.binary.data;
		else
			return false;
		if (!entry_elements(f, arr, &elems, &n, &tt))
			return false;
	}
	else
	{
		elems = palloc(sizeof(Datum));
		if (!entry_element(f, v, &elems[0], &tt))
			return false;
	}
	json_push_key(st, f->name);
	if (f->type == SEARCH_TEXT)
	{
		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		json_push_key(st, "t");
		pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
		for (int i = 0; i < tt.n; i++)
		{
			JsonbValue	t = {.type = jbvString};

			t.val.string.val = VARDATA_ANY(DatumGetTextPP(tt.tokens[i]));
			t.val.string.len = VARSIZE_ANY_EXHDR(DatumGetTextPP(tt.tokens[i]));
			pushJsonbValue(st, WJB_ELEM, &t);
		}
		pushJsonbValue(st, WJB_END_ARRAY, NULL);
		json_push_key(st, "p");
		pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
		for (int i = 0; i < tt.n; i++)
			entry_push_numeric(st, int64_to_numeric(DatumGetInt32(tt.positions[i])), WJB_ELEM);
		pushJsonbValue(st, WJB_END_ARRAY, NULL);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
		return true;
	}
	if (!f->is_array)
	{
		entry_push_element(f, elems[0], st, WJB_VALUE);
		return true;
	}
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
		entry_push_element(f, elems[i], st, WJB_ELEM);
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
	return true;
}

/*
 * entry_nested_docs pushes the normalized documents of NESTED field f
 * given as v, a JSON array of objects (false when it is not one); *done
 * (unless NULL) is what closing the array returned, the whole value when
 * the array is the outermost
 */
static bool
entry_nested_docs(const SearchField *f, JsonbValue *v, JsonbParseState **st, JsonbValue **done)
{
	JsonbValue *closed;

	JsonbContainer *docs;
	int			n;

	check_stack_depth();
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		return false;
	docs = v->val.binary.data;
	n = JsonContainerSize(docs);
	if (n > OTS_MAX_SEARCH_ARRAY_LEN)
		return false;
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
	{
		JsonbValue *doc = getIthJsonbValueFromContainer(docs, i);

		if (doc->type != jbvBinary || !JsonContainerIsObject(doc->val.binary.data))
			return false;
		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		for (int k = 0; k < f->nsub; k++)
		{
			const SearchField *sub = &f->sub[k];
			JsonbValue	m;

			if (getKeyJsonValueFromContainer(doc->val.binary.data, sub->name, strlen(sub->name), &m) != NULL &&
				m.type != jbvNull)
				(void) entry_sub_field(sub, &m, st);
		}
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	closed = pushJsonbValue(st, WJB_END_ARRAY, NULL);
	if (done != NULL)
		*done = closed;
	return true;
}

/* entry_nested: a NESTED field's value: its cell's JSON array of objects, normalized */
static bool
entry_nested(const SearchField *f, const OtsValue *v, Datum *value)
{
	Jsonb	   *j;
	JsonbValue	root;
	JsonbParseState *probe = NULL;
	JsonbParseState *st = NULL;
	JsonbValue *docs;

	if (v->type != OTS_VT_STRING || (j = search_json_parse(v->u.s.data, v->u.s.len)) == NULL ||
		!JB_ROOT_IS_ARRAY(j) || JB_ROOT_IS_SCALAR(j))
		return false;
	root.type = jbvBinary;
	root.val.binary.data = &j->root;
	root.val.binary.len = VARSIZE(j) - VARHDRSZ;

	if (!entry_nested_docs(f, &root, &probe, NULL))
		return false;
	(void) entry_nested_docs(f, &root, &st, &docs);
	*value = JsonbPGetDatum(JsonbValueToJsonb(docs));
	return true;
}

/*
 * entry_field: a field's value from the newest cell of its column; a TEXT
 * field's positions too, unless *no_positions (entry_positions)
 */
static bool
entry_field(const SearchField *f, const OtsValue *v, Datum *value, Datum *positions, bool *no_positions)
{
	if (f->is_array)
		return entry_array(f, v, value, positions, no_positions);
	switch (f->type)
	{
		case SEARCH_LONG:
			if (v->type != OTS_VT_INTEGER)
				return false;
			*value = Int64GetDatum(v->u.i);
			return true;
		case SEARCH_DOUBLE:
			if (v->type != OTS_VT_DOUBLE || isnan(v->u.d) || isinf(v->u.d))
				return false;
			*value = Float8GetDatum(v->u.d);
			return true;
		case SEARCH_BOOLEAN:
			if (v->type != OTS_VT_BOOLEAN)
				return false;
			*value = BoolGetDatum(v->u.b);
			return true;
		case SEARCH_KEYWORD:
			if (v->type != OTS_VT_STRING || v->u.s.len > OTS_MAX_SEARCH_KEYWORD_LEN)
				return false;
			*value = PointerGetDatum(cstring_to_text_with_len(v->u.s.data, v->u.s.len));
			return true;
		case SEARCH_DATE:
			{
				int64		ns;

				if ((v->type != OTS_VT_INTEGER && v->type != OTS_VT_STRING) ||
					!search_date_parse(f->ndate_formats, f->date_formats, v->type == OTS_VT_INTEGER,
									   v->u.i, v->type == OTS_VT_STRING ? v->u.s.data : NULL,
									   v->type == OTS_VT_STRING ? v->u.s.len : 0, &ns))
					return false;
				*value = Int64GetDatum(ns);
				return true;
			}
		case SEARCH_GEO_POINT:
			{
				Point	   *p = palloc(sizeof(Point));

				if (v->type != OTS_VT_STRING || !search_geo_point(v->u.s.data, v->u.s.len, p))
					return false;
				*value = PointPGetDatum(p);
				return true;
			}
		case SEARCH_TEXT:
			{
				TextTokens	tt = {0};

				if (v->type != OTS_VT_STRING)
					return false;
				entry_text_add(f, v->u.s.data, v->u.s.len, &tt);
				*value = PointerGetDatum(construct_array(tt.tokens, tt.n, TEXTOID, -1, false, TYPALIGN_INT));
				*no_positions = entry_positions(&tt, positions);
				return true;
			}
		case SEARCH_NESTED:
			return entry_nested(f, v, value);
		case SEARCH_VECTOR:
			return false;		/* kept nowhere */
	}
	return false;
}

void
search_entry_key(const OtsTable *t, const OtsValue *pk, Datum *values, bool *isnull)
{
	/* the storage's key columns are typed as the table's stored key (storage.h) */
	for (int k = 0; k < t->npk; k++)
	{
		Oid			type;

		values[k] = storage_pk_datum(&pk[k], &type);
		isnull[k] = false;
	}
}

/*
 * entry_times_alike: do the fields with a value all have the oldest's
 * timestamp?  Then the storage keeps no per-field times (schema.h): a row
 * written at once, the common case, spares the array's bytes in every row a
 * search's heap scan reads.
 */
static bool
entry_times_alike(const Datum *times, const bool *no_time, int n, int64 oldest)
{
	for (int i = 0; i < n; i++)
		if (!no_time[i] && DatumGetInt64(times[i]) != oldest)
			return false;
	return true;
}

void
search_entry_values(const OtsTable *t, const SearchIndex *si, const OtsValue *pk,
					const struct varlena *cells, Datum *values, bool *isnull)
{
	CellsReader r;
	Datum	   *times = palloc(sizeof(Datum) * Max(si->schema.nfields, 1));
	bool	   *no_time = palloc(sizeof(bool) * Max(si->schema.nfields, 1));
	int			dims = si->schema.nfields;
	int			lbs = 1;
	int64		oldest = PG_INT64_MAX;

	search_entry_key(t, pk, values, isnull);
	cells_reader_init(&r, cells);
	for (int i = 0; i < si->schema.nfields; i++)
	{
		const SearchField *f = &si->schema.fields[i];
		int			col = si->field_attnos[i] - 1;
		int			pos = si->positions_attnos[i] - 1;
		OtsValue	v;
		int64		ts;

		no_time[i] = true;
		times[i] = (Datum) 0;
		if (!search_field_kept(f))
			continue;			/* the key's value, already there, and never expires; a VECTOR's, kept nowhere */
		isnull[col] = true;
		if (pos >= 0)
			isnull[pos] = true;
		if (!cells_newest(&r, f->name, strlen(f->name), &ts, &v))
			continue;
		if (entry_field(f, &v, &values[col], pos >= 0 ? &values[pos] : NULL, pos >= 0 ? &isnull[pos] : NULL))
		{
			isnull[col] = false;
			no_time[i] = false;
			times[i] = Int64GetDatum(ts);
			oldest = Min(oldest, ts);
		}
	}
	/* the times a search hides expired rows and fields by (schema.h) */
	values[si->row_ts_attno - 1] = Int64GetDatum(cells_row_newest_ts(&r));
	isnull[si->row_ts_attno - 1] = false;
	isnull[si->ts_attno - 1] = entry_times_alike(times, no_time, si->schema.nfields, oldest);
	if (!isnull[si->ts_attno - 1])
		values[si->ts_attno - 1] = PointerGetDatum(construct_md_array(times, no_time, 1, &dims, &lbs,
																	  INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	values[si->fields_ts_attno - 1] = Int64GetDatum(oldest);
	isnull[si->fields_ts_attno - 1] = oldest == PG_INT64_MAX;
}
