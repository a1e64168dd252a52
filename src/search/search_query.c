/*-------------------------------------------------------------------------
 * src/search/search_query.c
 *	  Tablestore's SearchQuery, as jsonb, compiled into SQL over a search
 *	  index's storage (aliased s): a condition, an order, a position.
 *
 * A query is an object with one member naming its type, as the SDKs'
 * protocol names the message:
 *	  {"match_all_query": {}}
 *	  {"term_query": {"field_name", "term"}}, {"terms_query": {"field_name", "terms"}}
 *	  {"range_query": {"field_name", "range_from", "range_to", "include_lower", "include_upper"}}
 *	  {"prefix_query": {"field_name", "prefix"}}, {"wildcard_query": {"field_name", "value"}}
 *	  {"exists_query": {"field_name"}}
 *	  {"match_query": {"field_name", "text", "operator", "minimum_should_match"}}
 *	  {"match_phrase_query": {"field_name", "text"}}
 *	  {"bool_query": {"must_queries", "must_not_queries", "filter_queries", "should_queries",
 *	                  "minimum_should_match"}}
 *	  {"const_score_query": {"filter"}}
 *	  {"nested_query": {"path", "query", "score_mode"}}
 *	  {"geo_distance_query": {"field_name", "center_point", "distance"}}
 *	  {"geo_bounding_box_query": {"field_name", "top_left", "bottom_right"}}
 *	  {"geo_polygon_query": {"field_name", "points"}}
 * A value is coerced to its field's type as Tablestore's server does with
 * what the SDKs send (Node sends every number as a double, Python a LONG's
 * value as a string).  Every value reaches the SQL as a parameter, every
 * name quoted, every operator and function schema-qualified: the SQL runs
 * as the table's owner (search_exec.c).
 *
 * The order is the sort's keys (field_sort, geo_distance_sort), then the
 * primary key ascending (Tablestore's tie-breaker), so a token, the last
 * row's sort values and key, continues exactly after it.  Without a sort,
 * the index's presort.  A collapse names the column whose each value keeps
 * its first row (search_exec.c).
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "common/base64.h"
#include "common/int.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/geo_decls.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

#include "errors.h"
#include "format/request_fields.h"
#include "format/visibility.h"
#include "search/date.h"
#include "search/geo.h"
#include "search/json_build.h"
#include "search/search_query.h"
#include "search/search_score.h"

#define SEARCH_DEFAULT_LIMIT	10
#define SEARCH_MAX_LIMIT		100
#define SEARCH_MAX_OFFSET_LIMIT 100000	/* offset + limit: beyond, a token */
#define SEARCH_MAX_TERMS		1024
#define SEARCH_MAX_WILDCARD		32
#define SEARCH_MAX_PREFIX		1000
#define SEARCH_MAX_QUERIES		1024	/* queries in one request */
#define SEARCH_MAX_FUNCTIONS	32		/* of a functions_score_query: ots's bound */
#define SEARCH_MAX_COMPILED		16384	/* queries compiled for one search, again for scores included */

static void q_query(SearchSql *q, JsonbContainer *query, int *count);

static const char *q_score(SearchSql *q, JsonbContainer *query);
static const char *q_function_score(SearchSql *q, JsonbContainer *body, const char *type);
static bool q_descending(JsonbContainer *obj, const char *what);
static Jsonb *q_highlight(SearchSql *q, JsonbContainer *h, const SearchField *nested, const char *path,
						 JsonbContainer *query);

/*
 * q_condition_alone: a query's condition compiled again for a score (a
 * filter's, a should query's): its nested queries' inner_hits are the
 * first compile's
 */
static char *
q_condition_alone(SearchSql *q, JsonbContainer *query)
{
	SearchInnerHits **tail = q->inner_hits_tail;
	char	   *condition;

	q->inner_hits_tail = NULL;
	condition = search_sql_condition(q, query);
	q->inner_hits_tail = tail;
	return condition;
}

static void q_refuse(const char *message, const char *detail) pg_attribute_noreturn();

static void
q_refuse(const char *message, const char *detail)
{
	ots_parameter_invalid(message, detail != NULL ? detail : "See docs/reference.md, \"Search\".");
}

/*
 * q_compiled: one more query compiled, whatever the compile (a score's and
 * a min_score's compile a query again, each of its parts too): refused
 * past SEARCH_MAX_COMPILED, so nesting cannot make it grow without bound
 */
static void
q_compiled(SearchSql *q)
{
	if (++q->compiled > SEARCH_MAX_COMPILED)
		q_refuse(psprintf("The search query is too complex: its queries compile to more than %d.", SEARCH_MAX_COMPILED),
				 "Scores (score_sort, function score queries and their min_score) compile a query's parts again: nest fewer of them.");
}

static JsonbValue *
q_member(JsonbContainer *obj, const char *key, JsonbValue *out)
{
	JsonbValue *v = getKeyJsonValueFromContainer(obj, key, strlen(key), out);

	return v == NULL || v->type == jbvNull ? NULL : v;
}

static JsonbContainer *
q_object(JsonbValue *v, const char *what)
{
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		q_refuse(psprintf("Invalid %s: it is not an object.", what), NULL);
	return v->val.binary.data;
}

static JsonbContainer *
q_array(JsonbValue *v, const char *what)
{
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		q_refuse(psprintf("Invalid %s: it is not an array.", what), NULL);
	return v->val.binary.data;
}

/* q_sized_array: the array member key of obj (what names obj), of min to max elements (*n) */
static JsonbContainer *
q_sized_array(JsonbContainer *obj, const char *key, const char *what, int min, int max, int *n)
{
	JsonbValue	v;
	JsonbContainer *arr;

	if (q_member(obj, key, &v) == NULL)
		q_refuse(psprintf("Missing %s of %s.", key, what), NULL);
	arr = q_array(&v, psprintf("%s of %s", key, what));
	*n = JsonContainerSize(arr);
	if (*n < min || *n > max)
		q_refuse(psprintf("Invalid %s of %s: %d of them, not %d to %d.", key, what, *n, min, max), NULL);
	return arr;
}

static const char *
q_string(JsonbContainer *obj, const char *key, const char *what, bool required)
{
	JsonbValue	v;

	if (q_member(obj, key, &v) == NULL)
	{
		if (required)
			q_refuse(psprintf("Missing %s of %s.", key, what), NULL);
		return NULL;
	}
	if (v.type != jbvString)
		q_refuse(psprintf("Invalid %s of %s: it is not a string.", key, what), NULL);
	return pnstrdup(v.val.string.val, v.val.string.len);
}

static bool
q_bool(JsonbContainer *obj, const char *key, bool dflt, const char *what)
{
	JsonbValue	v;

	if (q_member(obj, key, &v) == NULL)
		return dflt;
	if (v.type != jbvBool)
		q_refuse(psprintf("Invalid %s of %s: it is not a boolean.", key, what), NULL);
	return v.val.boolean;
}

static double
q_number(JsonbContainer *obj, const char *key, const char *what, bool *given)
{
	JsonbValue	v;

	*given = q_member(obj, key, &v) != NULL;
	if (!*given)
		return 0;
	if (v.type != jbvNumeric)
		q_refuse(psprintf("Invalid %s of %s: it is not a number.", key, what), NULL);
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(v.val.numeric)));
}

static int32
q_int(JsonbContainer *obj, const char *key, int32 dflt, int32 min, int32 max, const char *what)
{
	bool		given;
	double		d = q_number(obj, key, what, &given);

	if (!given)
		return dflt;
	if (d != floor(d) || d < min || d > max)
		q_refuse(psprintf("Invalid %s of %s: %g is not an integer in [%d, %d].", key, what, d, min, max), NULL);
	return (int32) d;
}

/* ---------------------------------------------------------------- parameters */

static int
q_param(SearchSql *q, Oid type, Datum value)
{
	if (q->nparams == q->maxparams)
	{
		q->maxparams = Max(16, q->maxparams * 2);
		q->types = q->types ? repalloc(q->types, sizeof(Oid) * q->maxparams) : palloc(sizeof(Oid) * q->maxparams);
		q->values = q->values ? repalloc(q->values, sizeof(Datum) * q->maxparams) : palloc(sizeof(Datum) * q->maxparams);
	}
	q->types[q->nparams] = type;
	q->values[q->nparams] = value;
	return ++q->nparams;
}

/* ---------------------------------------------------------------- fields and values */

/* a nested_query's documents: a NESTED field's, each aliased alias (its column doc) */
typedef struct SearchScope
{
	const SearchField *field;
	const char *path;			/* the field's full name: "menu", "menu.sides" */
	const char *alias;
	const struct SearchScope *outer;	/* the enclosing nested_query's, NULL: the row's */
	int			depth;
} SearchScope;

/* q_sub_field: the sub-field of NESTED field f named name, or NULL */
static const SearchField *
q_sub_field(const SearchField *f, const char *name)
{
	for (int i = 0; i < f->nsub; i++)
		if (strcmp(f->sub[i].name, name) == 0)
			return &f->sub[i];
	return NULL;
}

/*
 * q_field: the field obj's field_name names: a top-level field, or in a
 * nested_query a field of its documents by its full name (path.field)
 */
static const SearchField *
q_field(SearchSql *q, JsonbContainer *obj, const char *what)
{
	const char *name = q_string(obj, "field_name", what, true);
	const SearchScope *scope = q->scope;
	const SearchField *f;

	if (scope != NULL)
	{
		size_t		plen = strlen(scope->path);

		if (strncmp(name, scope->path, plen) != 0 || name[plen] != '.' || strchr(name + plen + 1, '.') != NULL)
			q_refuse(psprintf("Field '%s' of %s is not a field of the documents of NESTED field '%s'.", name, what,
							  scope->path),
					 "In a nested_query, a query names a field of its path's documents as path.field; a deeper NESTED field's, in another nested_query.");
		f = q_sub_field(scope->field, name + plen + 1);
	}
	else
	{
		f = search_field_find(&q->si->schema, name);
		if (f == NULL && strchr(name, '.') != NULL)
			q_refuse(psprintf("Field '%s' of %s is a NESTED field's.", name, what),
					 "A nested_query searches the fields of a NESTED field's documents, and aggregations and group_by_field take them; sorts by them are not built yet.");
	}
	if (f == NULL)
		q_refuse(psprintf("Field '%s' of %s is not a field of search index '%s'.", name, what, q->si->index_name),
				 NULL);
	if (f->type == SEARCH_VECTOR)
		q_refuse(psprintf("Field '%s' of %s is a VECTOR field, which only knn_vector_query searches.", name, what),
				 "ots keeps a VECTOR field in the index's schema only: it has no vector index, and refuses knn_vector_query.");
	q->leaf_field = f;
	return f;
}

static void
q_require_indexed(const SearchField *f, const char *what)
{
	if (!f->index)
		q_refuse(psprintf("Field '%s' is not indexed: %s needs \"index\": true.", f->name, what), NULL);
}

/* q_top_level: is f a top-level field of the index (a column of the storage)? */
static bool
q_top_level(const SearchSql *q, const SearchField *f)
{
	return f >= q->si->schema.fields && f < q->si->schema.fields + q->si->schema.nfields;
}

/*
 * q_doc_value: SQL of sub-field f's value in the document alias.doc, of
 * the type a top-level field's column has (the document normalized as
 * search_entry.c says); an array or TEXT the document lacks is empty
 */
static const char *
q_doc_value(const char *alias, const SearchField *f, bool positions)
{
	const char *member = psprintf("(%s.doc OPERATOR(pg_catalog.->) %s)", alias, quote_literal_cstr(f->name));
	const char *text = psprintf("(%s.doc OPERATOR(pg_catalog.->>) %s)", alias, quote_literal_cstr(f->name));
	const char *cast;

	switch (f->type)
	{
		case SEARCH_NESTED:
			return member;
		case SEARCH_TEXT:
			return psprintf("ARRAY(SELECT x%s FROM pg_catalog.jsonb_array_elements_text(%s OPERATOR(pg_catalog.->) %s) x)",
							positions ? "::pg_catalog.int4" : "", member, positions ? "'p'" : "'t'");
		case SEARCH_GEO_POINT:
			return f->is_array ?
				psprintf("ARRAY(SELECT pg_catalog.point((x OPERATOR(pg_catalog.->>) 0)::pg_catalog.float8,"
						 " (x OPERATOR(pg_catalog.->>) 1)::pg_catalog.float8) FROM pg_catalog.jsonb_array_elements(%s) x)", member) :
				psprintf("pg_catalog.point((%s OPERATOR(pg_catalog.->>) 0)::pg_catalog.float8,"
						 " (%s OPERATOR(pg_catalog.->>) 1)::pg_catalog.float8)", member, member);
		case SEARCH_LONG:
		case SEARCH_DATE:
			cast = "::pg_catalog.int8";
			break;
		case SEARCH_DOUBLE:
			cast = "::pg_catalog.float8";
			break;
		case SEARCH_BOOLEAN:
			cast = "::pg_catalog.bool";
			break;
		default:
			cast = " COLLATE pg_catalog.\"C\"";
			break;
	}
	return f->is_array ?
		psprintf("ARRAY(SELECT x%s FROM pg_catalog.jsonb_array_elements_text(%s) x)", cast, member) :
		psprintf("(%s%s)", text, cast);
}

/* q_column: field f's value as SQL: its storage column, or in a nested_query its document's */
static const char *
q_column(const SearchSql *q, const SearchField *f)
{
	if (q_top_level(q, f))
		return psprintf("s.%s", quote_identifier(f->name));
	return q_doc_value(q->scope->alias, f, false);
}

/* q_positions: a TEXT field's positions as SQL */
static const char *
q_positions(const SearchSql *q, const SearchField *f)
{
	if (q_top_level(q, f))
		return psprintf("s.%s", quote_identifier(psprintf("%s%s", f->name, SEARCH_POSITIONS_SUFFIX)));
	return q_doc_value(q->scope->alias, f, true);
}

/*
 * q_live: the condition that field f's value in an entry is live under the
 * table's TTL (its cell not expired), or NULL when it cannot expire.  An
 * entry whose fields are all live says so in one column, and one whose
 * fields' times are alike keeps no others (schema.h).
 */
static const char *
q_live(const SearchSql *q, const SearchField *f)
{
	const char *fields_ts = quote_identifier(SEARCH_FIELDS_TS_COLUMN);

	if (q->field_cutoff == 0 || f->pk_column > 0 || !q_top_level(q, f))
		return NULL;
	return psprintf("(s.%s OPERATOR(pg_catalog.>) $%d OR coalesce(s.%s[%d], s.%s) OPERATOR(pg_catalog.>) $%d)",
					fields_ts, q->field_cutoff, quote_identifier(SEARCH_TS_COLUMN),
					(int) (f - q->si->schema.fields) + 1, fields_ts, q->field_cutoff);
}

/* q_live_column: field f's value where it is live, else null: what sorts and aggregations read */
static const char *
q_live_column(const SearchSql *q, const SearchField *f)
{
	const char *live = q_live(q, f);

	return live == NULL ? q_column(q, f) : psprintf("CASE WHEN %s THEN %s END", live, q_column(q, f));
}

/* q_element_type: the type of one value of field f */
static Oid
q_element_type(const SearchField *f)
{
	switch (f->type)
	{
		case SEARCH_LONG:
		case SEARCH_DATE:
			return INT8OID;
		case SEARCH_DOUBLE:
			return FLOAT8OID;
		case SEARCH_BOOLEAN:
			return BOOLOID;
		case SEARCH_GEO_POINT:
			return POINTOID;
		default:
			return TEXTOID;
	}
}

static const char *
q_value_text(JsonbValue *v)
{
	if (v->type == jbvString)
		return pnstrdup(v->val.string.val, v->val.string.len);
	if (v->type == jbvNumeric)
		return DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
	if (v->type == jbvBool)
		return v->val.boolean ? "true" : "false";
	return "(not a value)";
}

/*
 * q_value: a query's value for field f, coerced to its type: a LONG takes
 * an integral number or a string of one; a DOUBLE a number or a string of
 * one; a BOOLEAN true, false or their strings; a DATE a number (its epoch
 * formats) or a string (its patterns); KEYWORD and TEXT a string
 */
static Datum
q_value(const SearchField *f, JsonbValue *v, const char *what)
{
	const char *text = q_value_text(v);

	switch (f->type)
	{
		case SEARCH_LONG:
			{
				int64		i;

				if ((v->type == jbvNumeric || v->type == jbvString) && search_value_integral(text, &i))
					return Int64GetDatum(i);
				break;
			}
		case SEARCH_DOUBLE:
			if (v->type == jbvNumeric || v->type == jbvString)
			{
				char	   *end;
				double		d;

				errno = 0;
				d = strtod(text, &end);
				if (end != text && *end == '\0' && errno == 0 && !isnan(d) && !isinf(d))
					return Float8GetDatum(d);
			}
			break;
		case SEARCH_BOOLEAN:
			if (v->type == jbvBool)
				return BoolGetDatum(v->val.boolean);
			if (v->type == jbvString && (strcmp(text, "true") == 0 || strcmp(text, "false") == 0))
				return BoolGetDatum(text[0] == 't');
			break;
		case SEARCH_DATE:
			{
				int64		ns;
				int64		i;

				if (v->type == jbvNumeric && search_value_integral(text, &i) &&
					search_date_parse(f->ndate_formats, f->date_formats, true, i, NULL, 0, &ns))
					return Int64GetDatum(ns);
				if (v->type == jbvString &&
					search_date_parse(f->ndate_formats, f->date_formats, false, 0, text, strlen(text), &ns))
					return Int64GetDatum(ns);
				break;
			}
		case SEARCH_KEYWORD:
		case SEARCH_TEXT:
			if (v->type == jbvString)
				return PointerGetDatum(cstring_to_text(text));
			break;
		case SEARCH_GEO_POINT:
			{
				Point	   *p = palloc(sizeof(Point));

				if (v->type == jbvString && search_geo_point(text, strlen(text), p))
					return PointPGetDatum(p);
				break;
			}
		default:
			break;
	}
	q_refuse(psprintf("Invalid %s of field '%s': %s is not a %s value.", what, f->name, text,
					  search_field_type_name(f->type)),
			 f->type == SEARCH_DATE ? "A DATE value is in one of the field's date_formats." : NULL);
	return (Datum) 0;
}

static void
q_refuse_type(const SearchField *f, const char *what)
{
	q_refuse(psprintf("%s does not apply to field '%s' of type %s.", what, f->name,
					  search_field_type_name(f->type)), NULL);
}

/* ---------------------------------------------------------------- queries */

/* q_term: field f holds value (an element of it, for arrays and TEXT tokens) */
static void
q_term(SearchSql *q, const SearchField *f, Datum value)
{
	int			p = q_param(q, q_element_type(f), value);

	if (f->is_array || f->type == SEARCH_TEXT)
		appendStringInfo(&q->where, "%s OPERATOR(pg_catalog.@>) ARRAY[$%d]", q_column(q, f), p);
	else
		appendStringInfo(&q->where, "%s OPERATOR(pg_catalog.=) $%d", q_column(q, f), p);
}

static void
q_term_query(SearchSql *q, JsonbContainer *obj)
{
	const SearchField *f = q_field(q, obj, "term_query");
	JsonbValue	v;

	q_require_indexed(f, "term_query");
	if (f->type == SEARCH_GEO_POINT || f->type == SEARCH_NESTED)
		q_refuse_type(f, "term_query");
	if (q_member(obj, "term", &v) == NULL)
		q_refuse("Missing term of term_query.", NULL);
	q_term(q, f, q_value(f, &v, "term"));
}

static void
q_terms_query(SearchSql *q, JsonbContainer *obj)
{
	const SearchField *f = q_field(q, obj, "terms_query");
	JsonbContainer *arr;
	int			n;
	Datum	   *elems;
	Oid			type = q_element_type(f);
	int			p;

	q_require_indexed(f, "terms_query");
	if (f->type == SEARCH_GEO_POINT || f->type == SEARCH_NESTED)
		q_refuse_type(f, "terms_query");
	arr = q_sized_array(obj, "terms", "terms_query", 1, SEARCH_MAX_TERMS, &n);
	elems = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
		elems[i] = q_value(f, getIthJsonbValueFromContainer(arr, i), "term");
	p = q_param(q, type == INT8OID ? INT8ARRAYOID : type == FLOAT8OID ? FLOAT8ARRAYOID :
				type == BOOLOID ? BOOLARRAYOID : TEXTARRAYOID,
				PointerGetDatum(construct_array(elems, n, type, type == TEXTOID ? -1 : type == BOOLOID ? 1 : 8,
												type != TEXTOID, type == TEXTOID ? TYPALIGN_INT :
												type == BOOLOID ? TYPALIGN_CHAR : TYPALIGN_DOUBLE)));
	if (f->is_array || f->type == SEARCH_TEXT)
		appendStringInfo(&q->where, "%s OPERATOR(pg_catalog.&&) $%d", q_column(q, f), p);
	else
		appendStringInfo(&q->where, "%s OPERATOR(pg_catalog.=) ANY ($%d)", q_column(q, f), p);
}

static void
q_range_query(SearchSql *q, JsonbContainer *obj)
{
	const SearchField *f = q_field(q, obj, "range_query");
	JsonbValue	from;
	JsonbValue	to;
	bool		has_from = q_member(obj, "range_from", &from) != NULL;
	bool		has_to = q_member(obj, "range_to", &to) != NULL;
	bool		include_lower = q_bool(obj, "include_lower", false, "range_query");
	bool		include_upper = q_bool(obj, "include_upper", false, "range_query");
	const char *e = f->is_array ? "e" : q_column(q, f);

	q_require_indexed(f, "range_query");
	if (f->type == SEARCH_TEXT || f->type == SEARCH_GEO_POINT || f->type == SEARCH_NESTED ||
		f->type == SEARCH_BOOLEAN)
		q_refuse_type(f, "range_query");
	if (f->is_array)
		appendStringInfo(&q->where, "EXISTS (SELECT 1 FROM pg_catalog.unnest(%s) e WHERE ", q_column(q, f));
	appendStringInfoChar(&q->where, '(');
	if (has_from)
		appendStringInfo(&q->where, "%s OPERATOR(pg_catalog.%s) $%d", e, include_lower ? ">=" : ">",
						 q_param(q, q_element_type(f), q_value(f, &from, "range_from")));
	else
		appendStringInfo(&q->where, "%s IS NOT NULL", e);
	if (has_to)
		appendStringInfo(&q->where, " AND %s OPERATOR(pg_catalog.%s) $%d", e, include_upper ? "<=" : "<",
						 q_param(q, q_element_type(f), q_value(f, &to, "range_to")));
	appendStringInfoChar(&q->where, ')');
	if (f->is_array)
		appendStringInfoChar(&q->where, ')');
}

/* q_like: a LIKE pattern of s, its % _ and \ escaped, then tail ("%": a prefix) */
static char *
q_like_escaped(const char *s, bool wildcard)
{
	StringInfoData p;

	initStringInfo(&p);
	for (const char *c = s; *c != '\0'; c++)
	{
		if (wildcard && *c == '*')
			appendStringInfoChar(&p, '%');
		else if (wildcard && *c == '?')
			appendStringInfoChar(&p, '_');
		else
		{
			if (*c == '%' || *c == '_' || *c == '\\')
				appendStringInfoChar(&p, '\\');
			appendStringInfoChar(&p, *c);
		}
	}
	return p.data;
}

static void
q_like(SearchSql *q, const SearchField *f, const char *pattern)
{
	int			p = q_param(q, TEXTOID, PointerGetDatum(cstring_to_text(pattern)));

	if (f->is_array || f->type == SEARCH_TEXT)
		appendStringInfo(&q->where,
						 "EXISTS (SELECT 1 FROM pg_catalog.unnest(%s) e WHERE e OPERATOR(pg_catalog.~~) $%d)",
						 q_column(q, f), p);
	else
		appendStringInfo(&q->where, "%s OPERATOR(pg_catalog.~~) $%d", q_column(q, f), p);
}

static void
q_prefix_query(SearchSql *q, JsonbContainer *obj)
{
	const SearchField *f = q_field(q, obj, "prefix_query");
	const char *prefix = q_string(obj, "prefix", "prefix_query", true);

	q_require_indexed(f, "prefix_query");
	if (f->type != SEARCH_KEYWORD && f->type != SEARCH_TEXT)
		q_refuse_type(f, "prefix_query");
	if (strlen(prefix) > SEARCH_MAX_PREFIX)
		q_refuse(psprintf("Invalid prefix of prefix_query: longer than %d bytes.", SEARCH_MAX_PREFIX), NULL);
	q_like(q, f, psprintf("%s%%", q_like_escaped(prefix, false)));
}

static void
q_wildcard_query(SearchSql *q, JsonbContainer *obj)
{
	const SearchField *f = q_field(q, obj, "wildcard_query");
	const char *value = q_string(obj, "value", "wildcard_query", true);

	q_require_indexed(f, "wildcard_query");
	if (f->type != SEARCH_KEYWORD && f->type != SEARCH_TEXT)
		q_refuse_type(f, "wildcard_query");
	if (pg_mbstrlen(value) > SEARCH_MAX_WILDCARD)
		q_refuse(psprintf("Invalid value of wildcard_query: longer than %d characters.", SEARCH_MAX_WILDCARD),
				 NULL);
	q_like(q, f, q_like_escaped(value, true));
}

static void
q_exists_query(SearchSql *q, JsonbContainer *obj)
{
	const SearchField *f = q_field(q, obj, "exists_query");

	if (f->is_array || f->type == SEARCH_TEXT)
		appendStringInfo(&q->where, "pg_catalog.cardinality(%s) OPERATOR(pg_catalog.>) 0", q_column(q, f));
	else if (f->type == SEARCH_NESTED)
		appendStringInfo(&q->where, "pg_catalog.jsonb_array_length(%s) OPERATOR(pg_catalog.>) 0", q_column(q, f));
	else
		appendStringInfo(&q->where, "%s IS NOT NULL", q_column(q, f));
}

/*
 * q_tokens: the tokens the field's analyzer makes of text (*tokens, *n)
 * and their distinct ones as a text[] parameter (its number; *ndistinct)
 */
static int
q_tokens(SearchSql *q, const SearchField *f, const char *text, SearchToken **tokens, int *n, int *ndistinct)
{
	SearchToken *t = search_analyze(&f->analyzer, text, strlen(text), n);
	int			distinct;
	Datum	   *elems = search_tokens_distinct(t, *n, &distinct);

	*tokens = t;
	*ndistinct = distinct;
	return q_param(q, TEXTARRAYOID,
				   PointerGetDatum(construct_array(elems, distinct, TEXTOID, -1, false, TYPALIGN_INT)));
}

static void
q_match_query(SearchSql *q, JsonbContainer *obj)
{
	const SearchField *f = q_field(q, obj, "match_query");
	const char *text = q_string(obj, "text", "match_query", true);
	const char *op = q_string(obj, "operator", "match_query", false);
	bool		and = op != NULL && (strcmp(op, "AND") == 0 || strcmp(op, "and") == 0);
	int32		msm = q_int(obj, "minimum_should_match", 1, 0, INT32_MAX, "match_query");
	SearchToken *tokens;
	int			n;
	int			p;
	int			distinct;

	if (op != NULL && !and && strcmp(op, "OR") != 0 && strcmp(op, "or") != 0)
		q_refuse(psprintf("Invalid operator of match_query: '%s'.", op), "The operator is OR or AND.");
	q_require_indexed(f, "match_query");
	if (f->type != SEARCH_TEXT)
	{
		/* a field not cut into tokens matches the text as one value */
		JsonbValue	v = {.type = jbvString, .val.string = {.val = (char *) text, .len = strlen(text)}};

		if (f->type == SEARCH_GEO_POINT || f->type == SEARCH_NESTED)
			q_refuse_type(f, "match_query");
		q_term(q, f, q_value(f, &v, "text"));
		return;
	}
	p = q_tokens(q, f, text, &tokens, &n, &distinct);
	if (distinct == 0)
		appendStringInfoString(&q->where, "false");
	else if (and || msm >= distinct)
		appendStringInfo(&q->where, "%s OPERATOR(pg_catalog.@>) $%d", q_column(q, f), p);
	else if (msm <= 1)
		appendStringInfo(&q->where, "%s OPERATOR(pg_catalog.&&) $%d", q_column(q, f), p);
	else
		appendStringInfo(&q->where,
						 "(%s OPERATOR(pg_catalog.&&) $%d AND (SELECT pg_catalog.count(DISTINCT e) FROM pg_catalog.unnest(%s) e"
						 " WHERE e OPERATOR(pg_catalog.=) ANY ($%d)) OPERATOR(pg_catalog.>=) %d)",
						 q_column(q, f), p, q_column(q, f), p, msm);
}

static void
q_match_phrase_query(SearchSql *q, JsonbContainer *obj)
{
	const SearchField *f = q_field(q, obj, "match_phrase_query");
	const char *text = q_string(obj, "text", "match_phrase_query", true);
	SearchToken *tokens;
	int			n;
	int			distinct;
	int			pt;
	Datum	   *words;
	Datum	   *positions;
	int			pw;
	int			pp;

	q_require_indexed(f, "match_phrase_query");
	if (f->type != SEARCH_TEXT)
	{
		JsonbValue	v = {.type = jbvString, .val.string = {.val = (char *) text, .len = strlen(text)}};

		if (f->type == SEARCH_GEO_POINT || f->type == SEARCH_NESTED)
			q_refuse_type(f, "match_phrase_query");
		q_term(q, f, q_value(f, &v, "text"));
		return;
	}
	pt = q_tokens(q, f, text, &tokens, &n, &distinct);
	if (n == 0)
	{
		appendStringInfoString(&q->where, "false");
		return;
	}
	words = palloc(sizeof(Datum) * n);
	positions = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
	{
		words[i] = PointerGetDatum(cstring_to_text_with_len(tokens[i].text, tokens[i].len));
		positions[i] = Int32GetDatum(tokens[i].position - tokens[0].position);
	}
	pw = q_param(q, TEXTARRAYOID, PointerGetDatum(construct_array(words, n, TEXTOID, -1, false, TYPALIGN_INT)));
	pp = q_param(q, INT4ARRAYOID, PointerGetDatum(construct_array(positions, n, INT4OID, 4, true, TYPALIGN_INT)));
	/* the index finds the rows with every token; the positions decide */
	appendStringInfo(&q->where,
					 "(%s OPERATOR(pg_catalog.@>) $%d AND ots.search_phrase(%s, %s, $%d, $%d))",
					 q_column(q, f), pt, q_column(q, f), q_positions(q, f), pw, pp);
}

/* q_geo_point: "lat,lon" as the storage's point (x longitude, y latitude) */
static Point
q_geo_point(const char *s, const char *what)
{
	Point		p;

	if (!search_geo_point(s, strlen(s), &p))
		q_refuse(psprintf("Invalid %s: '%s' is not \"latitude,longitude\".", what, s),
				 "A point is \"latitude,longitude\": latitude in [-90, 90], longitude in [-180, 180].");
	return p;
}

/* q_geo_points: the points of obj's member "points" ("lat,lon" strings), min to SEARCH_MAX_TERMS of them (*n) */
static Point *
q_geo_points(JsonbContainer *obj, const char *what, int min, int *n)
{
	JsonbContainer *arr = q_sized_array(obj, "points", what, min, SEARCH_MAX_TERMS, n);
	Point	   *points = palloc(sizeof(Point) * *n);

	for (int i = 0; i < *n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(arr, i);

		if (e->type != jbvString)
			q_refuse(psprintf("Invalid points of %s: not every one is a string.", what), NULL);
		points[i] = q_geo_point(pnstrdup(e->val.string.val, e->val.string.len), psprintf("point of %s", what));
	}
	return points;
}

static void
q_geo_field(const SearchField *f, const char *what)
{
	q_require_indexed(f, what);
	if (f->type != SEARCH_GEO_POINT || f->is_array)
		q_refuse_type(f, what);
}

static void
q_geo_distance_query(SearchSql *q, JsonbContainer *obj)
{
	const SearchField *f = q_field(q, obj, "geo_distance_query");
	Point		c = q_geo_point(q_string(obj, "center_point", "geo_distance_query", true), "center_point");
	bool		given;
	double		d = q_number(obj, "distance", "geo_distance_query", &given);
	Point	   *center = palloc(sizeof(Point));
	BOX		   *box = palloc(sizeof(BOX));

	q_geo_field(f, "geo_distance_query");
	if (!given || !(d >= 0) || isinf(d))
		q_refuse("Invalid distance of geo_distance_query: it is a number of meters, 0 or more.", NULL);
	*center = c;
	search_geo_box(&c, d, box);
	/* the box the circle fits in finds the candidates through the GiST index; the distance decides */
	appendStringInfo(&q->where,
					 "(%s OPERATOR(pg_catalog.<@) $%d AND ots.search_geo_distance(%s, $%d) OPERATOR(pg_catalog.<=) $%d)",
					 q_column(q, f), q_param(q, BOXOID, BoxPGetDatum(box)), q_column(q, f),
					 q_param(q, POINTOID, PointPGetDatum(center)), q_param(q, FLOAT8OID, Float8GetDatum(d)));
}

static void
q_geo_bounding_box_query(SearchSql *q, JsonbContainer *obj)
{
	const SearchField *f = q_field(q, obj, "geo_bounding_box_query");
	Point		tl = q_geo_point(q_string(obj, "top_left", "geo_bounding_box_query", true), "top_left");
	Point		br = q_geo_point(q_string(obj, "bottom_right", "geo_bounding_box_query", true), "bottom_right");
	BOX		   *box = palloc(sizeof(BOX));

	q_geo_field(f, "geo_bounding_box_query");
	if (tl.y < br.y)
		q_refuse("Invalid geo_bounding_box_query: top_left is south of bottom_right.", NULL);
	if (tl.x > br.x)
	{
		/* across the antimeridian: two boxes */
		BOX		   *east = palloc(sizeof(BOX));

		box->low.x = tl.x, box->high.x = 180, box->low.y = br.y, box->high.y = tl.y;
		east->low.x = -180, east->high.x = br.x, east->low.y = br.y, east->high.y = tl.y;
		appendStringInfo(&q->where, "(%s OPERATOR(pg_catalog.<@) $%d OR %s OPERATOR(pg_catalog.<@) $%d)",
						 q_column(q, f), q_param(q, BOXOID, BoxPGetDatum(box)),
						 q_column(q, f), q_param(q, BOXOID, BoxPGetDatum(east)));
		return;
	}
	box->low.x = tl.x, box->high.x = br.x, box->low.y = br.y, box->high.y = tl.y;
	appendStringInfo(&q->where, "%s OPERATOR(pg_catalog.<@) $%d", q_column(q, f), q_param(q, BOXOID, BoxPGetDatum(box)));
}

static void
q_geo_polygon_query(SearchSql *q, JsonbContainer *obj)
{
	const SearchField *f = q_field(q, obj, "geo_polygon_query");
	Point	   *points;
	int			n;
	POLYGON    *poly;

	q_geo_field(f, "geo_polygon_query");
	points = q_geo_points(obj, "geo_polygon_query", 3, &n);
	poly = palloc0(offsetof(POLYGON, p) + sizeof(Point) * n);
	SET_VARSIZE(poly, offsetof(POLYGON, p) + sizeof(Point) * n);
	poly->npts = n;
	memcpy(poly->p, points, sizeof(Point) * n);
	/* the polygon's bounding box, as poly_in computes it */
	poly->boundbox.low = poly->boundbox.high = poly->p[0];
	for (int i = 1; i < n; i++)
	{
		poly->boundbox.low.x = Min(poly->boundbox.low.x, poly->p[i].x);
		poly->boundbox.low.y = Min(poly->boundbox.low.y, poly->p[i].y);
		poly->boundbox.high.x = Max(poly->boundbox.high.x, poly->p[i].x);
		poly->boundbox.high.y = Max(poly->boundbox.high.y, poly->p[i].y);
	}
	appendStringInfo(&q->where, "%s OPERATOR(pg_catalog.<@) $%d", q_column(q, f),
					 q_param(q, POLYGONOID, PolygonPGetDatum(poly)));
}

#define SEARCH_INNER_HITS_LIMIT	3		/* documents of a row, by default (Elasticsearch's) */
#define SEARCH_MAX_INNER_HITS	100

/*
 * q_inner_hits_begin: the inner_hits of the nested_query of path (scope
 * q->scope, its documents' alias), added where the compile adds them, or
 * NULL when this compile is one for a score; the nested queries of its
 * query add theirs below it (*tail: where they went before)
 */
static SearchInnerHits *
q_inner_hits_begin(SearchSql *q, JsonbContainer *ih, const char *path, JsonbContainer *query, SearchInnerHits ***tail)
{
	static const char *const fields[] = {"sort", "offset", "limit", "highlight"};
	static const RequestFields inner_hits_object = REQUEST_FIELDS("inner_hits", fields);
	SearchInnerHits *hits = palloc0(sizeof(SearchInnerHits));
	JsonbValue	v;
	bool		ordered = false;

	/* read and checked wherever it stands, kept only where the search reports it */
	request_fields_check(ih, &inner_hits_object, "inner_hits");
	hits->path = pstrdup(path);
	hits->offset = q_int(ih, "offset", 0, 0, SEARCH_MAX_OFFSET_LIMIT, "inner_hits");
	hits->limit = q_int(ih, "limit", SEARCH_INNER_HITS_LIMIT, 0, SEARCH_MAX_INNER_HITS, "inner_hits");
	/* a document's score is 1 (ots scores no nested query): a score sort leaves the documents' order */
	if (q_member(ih, "sort", &v) != NULL)
	{
		JsonbValue	s;
		JsonbContainer *sorters;

		if (q_member(q_object(&v, "sort of inner_hits"), "sorters", &s) == NULL)
			q_refuse("Missing sorters of the sort of inner_hits.", NULL);
		sorters = q_array(&s, "sorters of the sort of inner_hits");
		for (int i = 0; i < (int) JsonContainerSize(sorters); i++)
		{
			JsonbContainer *sorter = q_object(getIthJsonbValueFromContainer(sorters, i), "a sorter of inner_hits");
			JsonbValue	m;

			if (JsonContainerSize(sorter) == 1 && q_member(sorter, "doc_sort", &m) != NULL)
			{
				JsonbContainer *doc_sort = q_object(&m, "doc_sort");

				if (JsonContainerSize(doc_sort) > (q_member(doc_sort, "order", &m) != NULL ? 1 : 0))
					q_refuse("Invalid doc_sort of inner_hits: it takes an order only.", NULL);
				if (!ordered)
					hits->desc = q_descending(doc_sort, "doc_sort");
				ordered = true;
			}
			else if (JsonContainerSize(sorter) != 1 || q_member(sorter, "score_sort", &m) == NULL)
				q_refuse("Invalid sorter of inner_hits: a doc_sort or a score_sort.",
						 "The documents of a nested_query's inner_hits come in their order (doc_sort) or by score (score_sort, all alike: ots scores no nested query).");
		}
	}
	if (q_member(ih, "highlight", &v) != NULL)
		hits->highlight = q_highlight(q, q_object(&v, "highlight of inner_hits"), q->scope->field, path, query);
	*tail = q->inner_hits_tail;
	if (q->inner_hits_tail == NULL)
		return NULL;
	for (SearchInnerHits *h = *q->inner_hits_tail; h != NULL; h = h->next)
		if (strcmp(h->path, path) == 0)
			q_refuse(psprintf("Duplicated inner_hits of path '%s'.", path), "Each nested_query of a path at one level has its inner_hits, at most one.");
	/* after its siblings; the documents' own nested queries below */
	while (*q->inner_hits_tail != NULL)
		q->inner_hits_tail = &(*q->inner_hits_tail)->next;
	*q->inner_hits_tail = hits;
	q->inner_hits_tail = &hits->children;
	return hits;
}

/*
 * q_inner_hits_end: the SQL of hits' documents among docs (a row's, or an
 * outer document's) that condition holds of (the query compiled on them),
 * in inner_hits' order and page, each with its offset among them and its
 * own nested queries' inner hits
 */
static void
q_inner_hits_end(SearchSql *q, SearchInnerHits *hits, SearchInnerHits **tail, const char *docs, const char *condition)
{
	const char *alias = q->scope->alias;
	StringInfoData children;

	q->inner_hits_tail = tail;
	if (hits == NULL)
		return;
	initStringInfo(&children);
	for (SearchInnerHits *c = hits->children; c != NULL; c = c->next)
		appendStringInfo(&children, "%s%s", children.len > 0 ? ", " : "", c->sql);
	hits->sql = psprintf("pg_catalog.jsonb_build_object('path', $%d::pg_catalog.text, 'hits',"
						 " (SELECT coalesce(pg_catalog.jsonb_agg(x.h ORDER BY x.k %s), '[]'::pg_catalog.jsonb) FROM"
						 " (SELECT pg_catalog.jsonb_build_object('offset', %s.n OPERATOR(pg_catalog.-) 1, 'inner_hits', %s) AS h, %s.n AS k"
						 " FROM pg_catalog.jsonb_array_elements(%s) WITH ORDINALITY AS %s(doc, n) WHERE (%s)"
						 " ORDER BY %s.n %s OFFSET $%d LIMIT $%d) x))",
						 q_param(q, TEXTOID, CStringGetTextDatum(hits->path)), hits->desc ? "DESC" : "ASC", alias,
						 children.len > 0 ? psprintf("pg_catalog.jsonb_build_array(%s)", children.data) : "'[]'::pg_catalog.jsonb",
						 alias, docs, alias, condition, alias, hits->desc ? "DESC" : "ASC",
						 q_param(q, INT4OID, Int32GetDatum(hits->offset)), q_param(q, INT4OID, Int32GetDatum(hits->limit)));
}

/*
 * q_nested_query: the rows with a document of the NESTED field path (its
 * full name: below the enclosing nested_query's, one or more levels) that
 * the query matches, all its conditions on that one document.  score_mode
 * is read and checked; a row's score is not computed yet.
 */
static void
q_nested_query(SearchSql *q, JsonbContainer *obj, int *count)
{
	static const char *const fields[] = {"path", "query", "score_mode", "weight", "inner_hits"};
	static const RequestFields nested_object = REQUEST_FIELDS("nested_query", fields);
	static const char *const modes[] = {"None", "Avg", "Max", "Total", "Min", "SCORE_MODE_NONE", "SCORE_MODE_AVG",
	"SCORE_MODE_MAX", "SCORE_MODE_TOTAL", "SCORE_MODE_MIN"};
	const char *path = q_string(obj, "path", "nested_query", true);
	const char *mode = q_string(obj, "score_mode", "nested_query", false);
	const SearchScope *outer = q->scope;
	const SearchField *top = NULL;
	const char *rest = path;
	JsonbValue	v;
	JsonbContainer *inner;
	int			opened = 0;
	bool		known = mode == NULL;
	char	   *segment;
	char	   *save;
	const char *docs = NULL;
	SearchInnerHits *hits;
	SearchInnerHits **tail;

	request_fields_check(obj, &nested_object, "nested_query");
	for (int i = 0; i < lengthof(modes) && !known; i++)
		known = strcmp(mode, modes[i]) == 0;
	if (!known)
		q_refuse(psprintf("Invalid score_mode of nested_query: '%s'.", mode), "The score_mode is None, Avg, Max, Total or Min.");
	if (q_member(obj, "query", &v) == NULL)
		q_refuse("Missing query of nested_query.", NULL);
	inner = q_object(&v, "query of nested_query");
	if (outer != NULL)
	{
		size_t		plen = strlen(outer->path);

		if (strncmp(path, outer->path, plen) != 0 || path[plen] != '.')
			q_refuse(psprintf("Invalid path of nested_query: '%s' is not below '%s', the path of the nested_query it is in.",
							  path, outer->path), NULL);
		rest = path + plen + 1;
	}
	/* one EXISTS over the documents of each level the path goes down */
	for (segment = strtok_r(pstrdup(rest), ".", &save); segment != NULL; segment = strtok_r(NULL, ".", &save))
	{
		const SearchField *f = q->scope == NULL ? search_field_find(&q->si->schema, segment) :
			q_sub_field(q->scope->field, segment);
		SearchScope *scope;

		if (f == NULL || f->type != SEARCH_NESTED)
			q_refuse(psprintf("Invalid path of nested_query: '%s' is not a NESTED field of search index '%s'.",
							  path, q->si->index_name), NULL);
		if (q->scope == NULL)
			top = f;
		scope = palloc(sizeof(SearchScope));
		scope->field = f;
		scope->path = q->scope == NULL ? segment : psprintf("%s.%s", q->scope->path, segment);
		scope->depth = q->scope == NULL ? 1 : q->scope->depth + 1;
		scope->alias = psprintf("nd%d", scope->depth);
		scope->outer = q->scope;
		docs = q_live_column(q, f);
		appendStringInfo(&q->where, "EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(%s) AS %s(doc) WHERE ",
						 q_column(q, f), scope->alias);
		q->scope = scope;
		opened++;
	}
	if (opened == 0 || strcmp(q->scope->path, path) != 0)
		q_refuse(psprintf("Invalid path of nested_query: '%s'.", path), NULL);
	appendStringInfoChar(&q->where, '(');
	if (q_member(obj, "inner_hits", &v) != NULL)
	{
		int			start = q->where.len;

		if (opened > 1)
			q_refuse(psprintf("Invalid inner_hits of nested_query '%s': its path goes down more than one NESTED field.", path),
					 "A nested_query with inner_hits takes the documents of one level: nest one nested_query in another for each.");
		hits = q_inner_hits_begin(q, q_object(&v, "inner_hits of nested_query"), path, inner, &tail);
		q_query(q, inner, count);
		q_inner_hits_end(q, hits, tail, docs, pstrdup(q->where.data + start));
	}
	else
	{
		/* a nested_query without inner_hits reports none of those in its query (Elasticsearch's) */
		SearchInnerHits **saved = q->inner_hits_tail;

		q->inner_hits_tail = NULL;
		q_query(q, inner, count);
		q->inner_hits_tail = saved;
	}
	appendStringInfoChar(&q->where, ')');
	for (int i = 0; i < opened; i++)
		appendStringInfoChar(&q->where, ')');
	q->scope = outer;
	/* the query is on the row's NESTED field: its TTL applies (search_query_compile) */
	q->leaf_field = top;
}

/* q_list: the queries of list member key of a bool_query, joined by sep; false when there are none */
static bool
q_list(SearchSql *q, JsonbContainer *obj, const char *key, const char *sep, bool negate, int *count)
{
	JsonbValue	v;
	JsonbContainer *arr;
	int			n;

	if (q_member(obj, key, &v) == NULL)
		return false;
	arr = q_array(&v, key);
	n = JsonContainerSize(arr);
	if (n == 0)
		return false;
	appendStringInfoChar(&q->where, '(');
	for (int i = 0; i < n; i++)
	{
		SearchInnerHits **saved = q->inner_hits_tail;

		if (i > 0)
			appendStringInfoString(&q->where, sep);
		/*
		 * a condition on a field the row lacks is null: false where it must
		 * hold, but true under NOT only as coalesce(..., false) makes it;
		 * elsewhere left bare, so the planner sees it and can use the
		 * field's index
		 */

		if (negate)
			appendStringInfoString(&q->where, "NOT coalesce(");
		else
			appendStringInfoChar(&q->where, '(');
		/* a must_not query's inner hits would be none (Elasticsearch leaves them out) */
		if (negate)
			q->inner_hits_tail = NULL;
		q_query(q, q_object(getIthJsonbValueFromContainer(arr, i), key), count);
		q->inner_hits_tail = saved;
		appendStringInfoString(&q->where, negate ? ", false)" : ")");
	}
	appendStringInfoChar(&q->where, ')');
	return true;
}

static void
q_bool_query(SearchSql *q, JsonbContainer *obj, int *count)
{
	static const char *const fields[] = {"must_queries", "must_not_queries", "filter_queries",
	"should_queries", "minimum_should_match"};
	static const RequestFields bool_object = REQUEST_FIELDS("bool_query", fields);
	JsonbValue	v;
	bool		required = false;
	int			nshould = 0;
	int32		msm;

	request_fields_check(obj, &bool_object, "bool_query");
	if (q_member(obj, "should_queries", &v) != NULL)
		nshould = JsonContainerSize(q_array(&v, "should_queries"));
	appendStringInfoString(&q->where, "(true");
	for (int i = 0; i < 3; i++)
	{
		int			len = q->where.len;

		appendStringInfoString(&q->where, " AND ");
		if (q_list(q, obj, fields[i], " AND ", i == 1, count))
			required |= i != 1;
		else
			q->where.len = len, q->where.data[len] = '\0';
	}
	/* with must or filter queries, should queries are optional, unless counted */
	msm = q_int(obj, "minimum_should_match", required || nshould == 0 ? 0 : 1, 0, INT32_MAX, "bool_query");
	if (msm > nshould)
		q_refuse(psprintf("Invalid minimum_should_match of bool_query: %d, more than its %d should_queries.",
						  msm, nshould), NULL);
	/* should queries that cannot matter are checked all the same */
	if (nshould > 0 && msm == 0)
	{
		JsonbContainer *arr;

		q_member(obj, "should_queries", &v);
		arr = q_array(&v, "should_queries");
		for (int i = 0; i < nshould; i++)
			(void) search_sql_condition(q, q_object(getIthJsonbValueFromContainer(arr, i), "should_queries"));
	}
	if (nshould > 0 && msm > 0)
	{
		JsonbContainer *arr;

		q_member(obj, "should_queries", &v);
		arr = q_array(&v, "should_queries");
		appendStringInfoString(&q->where, " AND (0");
		for (int i = 0; i < nshould; i++)
		{
			appendStringInfoString(&q->where, " OPERATOR(pg_catalog.+) CASE WHEN coalesce(");
			q_query(q, q_object(getIthJsonbValueFromContainer(arr, i), "should_queries"), count);
			appendStringInfoString(&q->where, ", false) THEN 1 ELSE 0 END");
		}
		appendStringInfo(&q->where, ") OPERATOR(pg_catalog.>=) %d", msm);
	}
	appendStringInfoChar(&q->where, ')');
}

static void
q_query(SearchSql *q, JsonbContainer *query, int *count)
{
	JsonbIterator *it;
	JsonbValue	key;
	JsonbValue	v;
	JsonbContainer *body;
	const char *type;
	int			start;
	const char *live;

	CHECK_FOR_INTERRUPTS();
	check_stack_depth();
	q_compiled(q);
	if (++*count > SEARCH_MAX_QUERIES)
		q_refuse(psprintf("Too many queries: more than %d in one search.", SEARCH_MAX_QUERIES), NULL);
	if (JsonContainerSize(query) != 1)
		q_refuse("Invalid query: it is an object with one member, its type.",
				 "A query is {\"term_query\": {...}}, {\"bool_query\": {...}}, ...: docs/reference.md, \"Search\".");
	it = JsonbIteratorInit(query);
	(void) JsonbIteratorNext(&it, &key, false);
	(void) JsonbIteratorNext(&it, &key, true);
	type = pnstrdup(key.val.string.val, key.val.string.len);
	if (q_member(query, type, &v) == NULL)
		q_refuse(psprintf("Invalid %s: it is null.", type), NULL);
	body = q_object(&v, type);
	start = q->where.len;
	q->leaf_field = NULL;
	if (strcmp(type, "match_all_query") == 0)
		appendStringInfoString(&q->where, "true");
	else if (strcmp(type, "term_query") == 0)
		q_term_query(q, body);
	else if (strcmp(type, "terms_query") == 0)
		q_terms_query(q, body);
	else if (strcmp(type, "range_query") == 0)
		q_range_query(q, body);
	else if (strcmp(type, "prefix_query") == 0)
		q_prefix_query(q, body);
	else if (strcmp(type, "wildcard_query") == 0)
		q_wildcard_query(q, body);
	else if (strcmp(type, "exists_query") == 0)
		q_exists_query(q, body);
	else if (strcmp(type, "match_query") == 0)
		q_match_query(q, body);
	else if (strcmp(type, "match_phrase_query") == 0)
		q_match_phrase_query(q, body);
	else if (strcmp(type, "bool_query") == 0)
		q_bool_query(q, body, count);
	else if (strcmp(type, "const_score_query") == 0)
	{
		if (q_member(body, "filter", &v) == NULL)
			q_refuse("Missing filter of const_score_query.", NULL);
		q_query(q, q_object(&v, "filter of const_score_query"), count);
	}
	else if (strcmp(type, "geo_distance_query") == 0)
		q_geo_distance_query(q, body);
	else if (strcmp(type, "geo_bounding_box_query") == 0)
		q_geo_bounding_box_query(q, body);
	else if (strcmp(type, "geo_polygon_query") == 0)
		q_geo_polygon_query(q, body);
	else if (strcmp(type, "knn_vector_query") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OTS_PARAMETER_INVALID),
				 errmsg("knn_vector_query is not supported."),
				 errdetail("ots has no vector index: PostgreSQL 15 as Debian packages it has none.")));
	else if (strcmp(type, "nested_query") == 0)
		q_nested_query(q, body, count);
	else if (strcmp(type, "function_score_query") == 0 || strcmp(type, "functions_score_query") == 0)
	{
		bool		given;
		double		min_score = q_number(body, "min_score", type, &given);

		/* the rows its query matches; with min_score, those scored at least that */
		appendStringInfoChar(&q->where, '(');
		if (q_member(body, "query", &v) != NULL)
			q_query(q, q_object(&v, psprintf("query of %s", type)), count);
		else
			appendStringInfoString(&q->where, "true");
		if (given)
			appendStringInfo(&q->where, " AND %s OPERATOR(pg_catalog.>=) $%d", q_function_score(q, body, type),
							 q_param(q, FLOAT8OID, Float8GetDatum(min_score)));
		appendStringInfoChar(&q->where, ')');
		q->leaf_field = NULL;
	}
	else if (strcmp(type, "suffix_query") == 0)
		q_refuse(psprintf("%s is not supported yet.", type),
				 "ots searches match_all, term, terms, range, prefix, wildcard, exists, match, match_phrase, bool, const_score, function_score, nested and geo queries so far.");
	else
		q_refuse(psprintf("Invalid query type: '%s'.", type),
				 "A query is {\"term_query\": {...}}, {\"bool_query\": {...}}, ...: docs/reference.md, \"Search\".");
	/* a query of one field holds only where that field's value is live (bool's parts see to themselves) */
	if (q->leaf_field != NULL && strcmp(type, "bool_query") != 0 && strcmp(type, "const_score_query") != 0 &&
		strcmp(type, "function_score_query") != 0 && strcmp(type, "functions_score_query") != 0 &&
		(live = q_live(q, q->leaf_field)) != NULL)
	{
		char	   *leaf = pstrdup(q->where.data + start);

		q->where.len = start;
		q->where.data[start] = '\0';
		appendStringInfo(&q->where, "(%s AND %s)", leaf, live);
	}
}

/* ---------------------------------------------------------------- sort and paging */

/*
 * q_stored_value: a token's value of a sort key or key column, as the
 * storage keeps it (type: int8, float8, bool, text or bytea)
 */
static Datum
q_stored_value(Oid type, JsonbValue *v)
{
	const char *text = q_value_text(v);
	int64		i;
	char	   *end;
	double		d;

	switch (type)
	{
		case INT8OID:
			if (v->type == jbvNumeric && search_value_integral(text, &i))
				return Int64GetDatum(i);
			break;
		case FLOAT8OID:
			errno = 0;
			d = v->type == jbvNumeric ? strtod(text, &end) : 0;
			if (v->type == jbvNumeric && *end == '\0' && errno == 0)
				return Float8GetDatum(d);
			break;
		case BOOLOID:
			if (v->type == jbvBool)
				return BoolGetDatum(v->val.boolean);
			break;
		case BYTEAOID:
			if (v->type == jbvString && strncmp(text, "\\x", 2) == 0 &&
				strspn(text + 2, "0123456789abcdef") == strlen(text + 2) && strlen(text + 2) % 2 == 0)
				return DirectFunctionCall1(byteain, CStringGetDatum(text));
			break;
		default:
			if (v->type == jbvString)
				return PointerGetDatum(cstring_to_text(text));
			break;
	}
	q_refuse("Invalid token: it is not one this index's search made.", NULL);
	return (Datum) 0;
}

/*
 * q_order_key adds one key to the order (expr, of storage type type) and,
 * with a token, to the rows after it: those equal in the keys before and
 * after in this one (a missing value sorts last, both ways)
 */
static void
q_order_key(SearchSql *q, const char *expr, Oid type, bool descending, JsonbValue *after,
			StringInfo equal_so_far)
{
	const char *val;

	appendStringInfo(&q->order, "%s%s %s NULLS LAST", q->order.len > 0 ? ", " : "", expr,
					 descending ? "DESC" : "ASC");
	appendStringInfo(&q->sort_values, "%s%s", q->nsort > 0 ? ", " : "", expr);
	q->nsort++;
	if (q->keys.nkeys == q->keys.cap)
	{
		q->keys.cap = Max(4, q->keys.cap * 2);
		q->keys.types = q->keys.types == NULL ? palloc(sizeof(Oid) * q->keys.cap) :
			repalloc(q->keys.types, sizeof(Oid) * q->keys.cap);
		q->keys.desc = q->keys.desc == NULL ? palloc(sizeof(bool) * q->keys.cap) :
			repalloc(q->keys.desc, sizeof(bool) * q->keys.cap);
	}
	q->keys.types[q->keys.nkeys] = type;
	q->keys.desc[q->keys.nkeys++] = descending;
	if (after == NULL)
		return;
	if (after->type == jbvNull)
	{
		appendStringInfo(equal_so_far, " AND %s IS NULL", expr);
		return;
	}
	val = psprintf("$%d", q_param(q, type, q_stored_value(type, after)));
	appendStringInfo(&q->after, " OR (%s AND (%s OPERATOR(pg_catalog.%s) %s OR %s IS NULL))",
					 equal_so_far->data, expr, descending ? "<" : ">", val, expr);
	appendStringInfo(equal_so_far, " AND %s OPERATOR(pg_catalog.=) %s", expr, val);
}

static bool
q_descending(JsonbContainer *sorter, const char *what)
{
	const char *order = q_string(sorter, "order", what, false);

	if (order == NULL || strcmp(order, "ASC") == 0 || strcmp(order, "SORT_ORDER_ASC") == 0)
		return false;
	if (strcmp(order, "DESC") == 0 || strcmp(order, "SORT_ORDER_DESC") == 0)
		return true;
	q_refuse(psprintf("Invalid order of %s: '%s'.", what, order), "The order is ASC or DESC.");
	return false;
}

/*
 * q_bm25: SQL of the BM25 score (match.c) of TEXT field f for the distinct
 * tokens in parameter p, with the statistics of the whole index: how many
 * rows hold each token, how many hold the field, their mean length (each
 * one subquery of the search, run once)
 */
static const char *
q_bm25(SearchSql *q, const SearchField *f, int p)
{
	const char *col = quote_identifier(f->name);
	const char *has = psprintf("pg_catalog.cardinality(x.%s) OPERATOR(pg_catalog.>) 0", col);

	return psprintf("coalesce(ots.search_bm25(s.%s, $%d,"
					" (SELECT pg_catalog.array_agg((SELECT pg_catalog.count(*) FROM %s x WHERE x.%s OPERATOR(pg_catalog.@>) ARRAY[u.t])::pg_catalog.float8 ORDER BY u.o)"
					" FROM pg_catalog.unnest($%d::pg_catalog.text[]) WITH ORDINALITY AS u(t, o)),"
					" (SELECT pg_catalog.count(*) FROM %s x WHERE %s),"
					" (SELECT pg_catalog.avg(pg_catalog.cardinality(x.%s))::pg_catalog.float8 FROM %s x WHERE %s)), 0)",
					col, p, q->storage, col, p, q->storage, has, col, q->storage, has);
}

/* q_enum: member key of obj, one of names (search_score.h), or dflt when absent */
static int
q_enum(JsonbContainer *obj, const char *key, const char *const *names, int dflt, const char *what)
{
	const char *name = q_string(obj, key, what, false);
	int			i;

	if (name == NULL)
		return dflt;
	if ((i = score_name_find(names, name)) < 0)
		q_refuse(psprintf("Invalid %s of %s: '%s'.", key, what, name), NULL);
	return i;
}

/* q_score_number: number member key of obj as a parameter (dflt when absent and not required), within [min, max] (expected says so) */
static const char *
q_score_number(SearchSql *q, JsonbContainer *obj, const char *key, double dflt, bool required, double min,
			   double max, const char *expected, const char *what)
{
	bool		given;
	double		d = q_number(obj, key, what, &given);

	if (!given && required)
		q_refuse(psprintf("Missing %s of %s.", key, what), NULL);
	if (!given)
		d = dflt;
	if (!(d >= min && d <= max))
		q_refuse(psprintf("Invalid %s of %s: %g; it is %s.", key, what, d, expected), NULL);
	return psprintf("$%d::pg_catalog.float8", q_param(q, FLOAT8OID, Float8GetDatum(d)));
}

/* q_score_field: field_name of a function (top-level, of one of the types allowed), its values as an array */
static const SearchField *
q_score_field(SearchSql *q, JsonbContainer *fn, const char *what, bool numbers, bool dates, bool points,
			  const char **values)
{
	const SearchField *f = q_field(q, fn, what);
	const char *col;

	q->leaf_field = NULL;
	if (!q_top_level(q, f) ||
		!((numbers && (f->type == SEARCH_LONG || f->type == SEARCH_DOUBLE)) || (dates && f->type == SEARCH_DATE) ||
		  (points && f->type == SEARCH_GEO_POINT)))
		q_refuse(psprintf("Field '%s' of %s is of type %s, which it does not take.", f->name, what,
						  search_field_type_name(f->type)),
				 numbers && !dates ? "A field_value_factor takes a LONG or DOUBLE field." :
				 "A decay function takes a LONG, DOUBLE, DATE or GEO_POINT field.");
	col = q_live_column(q, f);
	*values = f->is_array ? col : psprintf("ARRAY[%s]", col);
	return f;
}

/* q_date_length: a DateTimeValue {"value", "unit"} of a fixed unit (WEEK to MILLISECOND) in milliseconds, as a parameter */
static const char *
q_date_length(SearchSql *q, JsonbContainer *param, const char *key, bool required, const char *what)
{
	JsonbValue	v;
	JsonbContainer *dv;
	const SearchTimeUnit *unit;
	bool		given;
	double		n;

	if (q_member(param, key, &v) == NULL)
	{
		if (required)
			q_refuse(psprintf("Missing %s of %s.", key, what), NULL);
		return "0::pg_catalog.float8";
	}
	dv = q_object(&v, psprintf("%s of %s", key, what));
	n = q_number(dv, "value", what, &given);
	unit = search_time_unit(q_string(dv, "unit", psprintf("%s of %s", key, what), true));
	if (unit == NULL || unit->months > 0)
		q_refuse(psprintf("Invalid unit of %s of %s: a fixed length (WEEK to MILLISECOND).", key, what), NULL);
	if (!given || !(n >= (required ? 1 : 0)) || n > 1e9 || n != floor(n))
		q_refuse(psprintf("Invalid value of %s of %s: a whole number from %d to 1000000000.", key, what, required ? 1 : 0), NULL);
	return psprintf("$%d::pg_catalog.float8", q_param(q, FLOAT8OID, Float8GetDatum(n * unit->ms)));
}

/*
 * q_decay: a decay function's value (search_score.c) at a row's distance
 * from origin: of a number, of a DATE (in milliseconds) or of a point (in
 * meters), each value's distance combined by multi_value_mode (MIN by
 * default); null when the row has no value
 */
static const char *
q_decay(SearchSql *q, JsonbContainer *fn)
{
	const char *what = "decay function";
	const char *values;
	const SearchField *f = q_score_field(q, fn, what, true, true, true, &values);
	int			math = q_enum(fn, "math_function", score_decays, 0, what);
	int			mode = q_enum(fn, "multi_value_mode", score_multi_value_modes, 1, what);
	const char *param_type = q_string(fn, "param_type", what, false);
	const char *expected = f->type == SEARCH_DATE ? "DF_DATE_PARAM" : f->type == SEARCH_GEO_POINT ? "DF_GEO_PARAM" :
		"DF_NUMERIC_PARAM";
	const char *decay = q_score_number(q, fn, "decay", 0.5, false, 1e-300, 1 - 1e-15, "above 0 and below 1", what);
	JsonbValue	v;
	JsonbContainer *param;
	const char *distance;
	const char *scale;
	const char *offset;

	if (param_type != NULL && strcmp(param_type, expected) != 0)
		q_refuse(psprintf("Invalid param_type of %s: field '%s' takes %s.", what, f->name, expected), NULL);
	if (q_member(fn, "param", &v) == NULL)
		q_refuse(psprintf("Missing param of %s.", what), NULL);
	param = q_object(&v, psprintf("param of %s", what));
	if (f->type == SEARCH_DATE)
	{
		JsonbValue	origin;
		int			p;

		if (q_member(param, "origin_long", &origin) == NULL && q_member(param, "origin_string", &origin) == NULL)
			q_refuse(psprintf("Missing origin_long or origin_string of the param of %s.", what), NULL);
		p = q_param(q, INT8OID, q_value(f, &origin, "origin of a decay function"));
		distance = psprintf("pg_catalog.abs(e OPERATOR(pg_catalog.-) $%d)::pg_catalog.float8 OPERATOR(pg_catalog./) 1000000", p);
		scale = q_date_length(q, param, "scale", true, what);
		offset = q_date_length(q, param, "offset", false, what);
	}
	else if (f->type == SEARCH_GEO_POINT)
	{
		Point	   *origin = palloc(sizeof(Point));

		*origin = q_geo_point(q_string(param, "origin", psprintf("param of %s", what), true), "origin of a decay function");
		distance = psprintf("ots.search_geo_distance(e, $%d)", q_param(q, POINTOID, PointPGetDatum(origin)));
		scale = q_score_number(q, param, "scale", 0, true, 1e-100, 1e15, "a number of meters from 1e-100 to 1e15", what);
		offset = q_score_number(q, param, "offset", 0, false, 0, 1e15, "a number of meters, 0 or more", what);
	}
	else
	{
		distance = psprintf("pg_catalog.abs(e::pg_catalog.float8 OPERATOR(pg_catalog.-) %s)",
							q_score_number(q, param, "origin", 0, true, -1e300, 1e300, "a number from -1e300 to 1e300", what));
		scale = q_score_number(q, param, "scale", 0, true, 1e-100, 1e300, "a number from 1e-100 to 1e300", what);
		offset = q_score_number(q, param, "offset", 0, false, 0, 1e300, "a number from 0 to 1e300", what);
	}
	return score_decay_sql(score_distance_sql(values, distance, mode), math, scale, offset, decay);
}

/*
 * q_function_score: SQL of a row's score by a functions_score_query
 * (search_score.c: its functions, score_mode, combine_mode and max_score;
 * MULTIPLY both by default, as Elasticsearch's) or by a
 * function_score_query (its query's score times its field's value)
 */
static const char *
q_function_score(SearchSql *q, JsonbContainer *body, const char *type)
{
	JsonbValue	v;
	const char *query_score = q_member(body, "query", &v) != NULL ?
		q_score(q, q_object(&v, psprintf("query of %s", type))) : "1::pg_catalog.float8";
	ScoreFunction *fns;
	int			n;
	bool		given;
	double		max_score;

	if (strcmp(type, "function_score_query") == 0)
	{
		const char *values;

		if (q_member(body, "field_value_factor", &v) == NULL)
			q_refuse("Missing field_value_factor of function_score_query.", NULL);
		(void) q_score_field(q, q_object(&v, "field_value_factor"), "field_value_factor", true, false, false, &values);
		fns = palloc0(sizeof(ScoreFunction));
		fns->weight = "1::pg_catalog.float8";
		fns->value = psprintf("(SELECT pg_catalog.min(e)::pg_catalog.float8 FROM pg_catalog.unnest(%s) e)", values);
		return score_combine_sql(query_score, score_functions_sql(fns, 1, 5), NULL, 0);
	}
	if (q_member(body, "functions", &v) == NULL)
		q_refuse("Missing functions of functions_score_query.", NULL);
	n = JsonContainerSize(q_array(&v, "functions of functions_score_query"));
	if (n < 1 || n > SEARCH_MAX_FUNCTIONS)
		q_refuse(psprintf("Invalid functions of functions_score_query: 1 to %d of them.", SEARCH_MAX_FUNCTIONS), NULL);
	fns = palloc0(sizeof(ScoreFunction) * n);
	for (int i = 0; i < n; i++)
	{
		JsonbContainer *fn = q_object(getIthJsonbValueFromContainer(v.val.binary.data, i), "a function of functions_score_query");
		const char *what = "a function of functions_score_query";
		JsonbValue	m;

		if ((q_member(fn, "field_value_factor", &m) != NULL) + (q_member(fn, "decay", &m) != NULL) +
			(q_member(fn, "random", &m) != NULL) > 1)
			q_refuse("Invalid function of functions_score_query: one of field_value_factor, decay and random, or none (its weight alone).",
					 NULL);
		fns[i].weight = q_score_number(q, fn, "weight", 1, false, 1e-100, FLT_MAX, "a number from 1e-100 to 3.4e38", what);
		if (q_member(fn, "filter", &m) != NULL)
			fns[i].applies = q_condition_alone(q, q_object(&m, psprintf("filter of %s", what)));
		if (q_member(fn, "field_value_factor", &m) != NULL)
		{
			JsonbContainer *fvf = q_object(&m, "field_value_factor");
			const char *values;
			const char *x;
			JsonbValue	missing;

			(void) q_score_field(q, fvf, "field_value_factor", true, false, false, &values);
			/* an array's least value; missing where the row has none */
			x = psprintf("(SELECT pg_catalog.min(e)::pg_catalog.float8 FROM pg_catalog.unnest(%s) e)", values);
			if (q_member(fvf, "missing", &missing) != NULL)
				x = psprintf("coalesce(%s, %s)", x, q_score_number(q, fvf, "missing", 0, true, -DBL_MAX, DBL_MAX, "a number", "field_value_factor"));
			fns[i].value = score_factor_sql(x, q_score_number(q, fvf, "factor", 1, false, -FLT_MAX, FLT_MAX, "a number", "field_value_factor"),
											q_enum(fvf, "modifier", score_modifiers, 0, "field_value_factor"));
		}
		if (q_member(fn, "decay", &m) != NULL)
		{
			fns[i].value = q_decay(q, q_object(&m, "decay function"));
		}
		if (q_member(fn, "random", &m) != NULL)
		{
			StringInfoData key;

			(void) q_object(&m, "random function");
			/* the same for a row in every search: a hash of its primary key in [0, 1) */
			initStringInfo(&key);
			for (int k = 0; k < q->t->npk; k++)
				appendStringInfo(&key, "%ss.%s", k > 0 ? ", " : "", quote_identifier(q->t->pk[k].name));
			fns[i].value = psprintf("((pg_catalog.hashtext(ROW(%s)::pg_catalog.text)::pg_catalog.int8 OPERATOR(pg_catalog.&) 2147483647)"
									"::pg_catalog.float8 OPERATOR(pg_catalog./) 2147483648)", key.data);
		}
	}
	if (q_member(body, "socre_mode", &v) != NULL && q_member(body, "score_mode", &v) != NULL)
		q_refuse("Invalid functions_score_query: both score_mode and socre_mode (the SDKs' spelling of it).", NULL);
	max_score = q_number(body, "max_score", type, &given);
	return score_combine_sql(query_score,
							 score_functions_sql(fns, n, q_enum(body, q_member(body, "socre_mode", &v) != NULL ? "socre_mode" : "score_mode",
																score_modes, 4, type)),
							 given ? q_score_number(q, body, "max_score", max_score, true, -FLT_MAX, FLT_MAX, "a number", type) : NULL,
							 q_enum(body, "combine_mode", score_combine_modes, 0, type));
}

/*
 * q_score: SQL of a matching row's score for query (a score_sort's): a
 * match, match_phrase or term query on a TEXT field its BM25 for the
 * query's tokens; a bool query the sum of its must queries' and of its
 * matching should queries' (filter and must_not queries count nothing); a
 * function score query its functions' (q_function_score); every other
 * query, a nested one included, 1
 */
static const char *
q_score(SearchSql *q, JsonbContainer *query)
{
	JsonbIterator *it = JsonbIteratorInit(query);
	JsonbValue	key;
	JsonbValue	v;
	JsonbContainer *body;
	const char *type;

	CHECK_FOR_INTERRUPTS();
	check_stack_depth();
	q_compiled(q);
	(void) JsonbIteratorNext(&it, &key, false);
	(void) JsonbIteratorNext(&it, &key, true);
	type = pnstrdup(key.val.string.val, key.val.string.len);
	(void) q_member(query, type, &v);
	body = q_object(&v, type);
	if (strcmp(type, "bool_query") == 0)
	{
		StringInfoData sum;

		initStringInfo(&sum);
		appendStringInfoString(&sum, "(0::pg_catalog.float8");
		if (q_member(body, "must_queries", &v) != NULL)
			for (int i = 0; i < (int) JsonContainerSize(q_array(&v, "must_queries")); i++)
				appendStringInfo(&sum, " OPERATOR(pg_catalog.+) %s",
								 q_score(q, q_object(getIthJsonbValueFromContainer(v.val.binary.data, i), "must_queries")));
		if (q_member(body, "should_queries", &v) != NULL)
			for (int i = 0; i < (int) JsonContainerSize(q_array(&v, "should_queries")); i++)
			{
				JsonbContainer *should = q_object(getIthJsonbValueFromContainer(v.val.binary.data, i), "should_queries");

				appendStringInfo(&sum, " OPERATOR(pg_catalog.+) CASE WHEN coalesce(%s, false) THEN %s ELSE 0 END",
								 q_condition_alone(q, should), q_score(q, should));
			}
		appendStringInfoChar(&sum, ')');
		return sum.data;
	}
	if (strcmp(type, "function_score_query") == 0 || strcmp(type, "functions_score_query") == 0)
		return q_function_score(q, body, type);
	if (strcmp(type, "match_query") == 0 || strcmp(type, "match_phrase_query") == 0 || strcmp(type, "term_query") == 0)
	{
		const SearchField *f = q_field(q, body, type);

		if (f->type == SEARCH_TEXT && q_top_level(q, f))
		{
			SearchToken *tokens;
			int			n;
			int			distinct;
			JsonbValue	term;

			if (strcmp(type, "term_query") != 0)
				return q_bm25(q, f, q_tokens(q, f, q_string(body, "text", type, true), &tokens, &n, &distinct));
			/* a term is one token, as given */
			if (q_member(body, "term", &term) != NULL && term.type == jbvString)
				return q_bm25(q, f, q_param(q, TEXTARRAYOID,
											PointerGetDatum(construct_array((Datum[]) {PointerGetDatum(cstring_to_text_with_len(term.val.string.val, term.val.string.len))},
																			1, TEXTOID, -1, false, TYPALIGN_INT))));
		}
	}
	return "1::pg_catalog.float8";
}

/* q_token_value: the token's value of the next sort key (NULL without a token) */
static JsonbValue *
q_token_value(SearchSql *q, JsonbContainer *after_values)
{
	JsonbValue *after;

	if (after_values == NULL)
		return NULL;
	after = q->nsort < (int) JsonContainerSize(after_values) ?
		getIthJsonbValueFromContainer(after_values, q->nsort) : NULL;
	if (after == NULL)
		q_refuse("Invalid token: it is not one this index's search made.", NULL);
	return after;
}

/*
 * q_geo_distance_sort: the order by a GEO_POINT field's distance in meters
 * (great circle) from the sorter's points: the least of the distances
 * (mode MIN, ascending's default), the greatest (MAX, descending's) or
 * their mean (AVG) over every point (and value, of an array); a row
 * without the field last.  distance_type PLANE is taken as ARC, the exact
 * distance the planar formula approximates.
 */
static void
q_geo_distance_sort(SearchSql *q, JsonbContainer *gs, JsonbValue *after, StringInfo equal)
{
	const SearchField *f = q_field(q, gs, "geo_distance_sort");
	bool		desc = q_descending(gs, "geo_distance_sort");
	const char *mode = q_string(gs, "mode", "geo_distance_sort", false);
	const char *type = q_string(gs, "distance_type", "geo_distance_sort", false);
	Point	   *given;
	int			n;
	Datum	   *points;
	const char *agg;

	if (f->type != SEARCH_GEO_POINT)
		q_refuse_type(f, "geo_distance_sort");
	if (mode != NULL && strcmp(mode, "MIN") != 0 && strcmp(mode, "MAX") != 0 && strcmp(mode, "AVG") != 0)
		q_refuse(psprintf("Invalid mode of geo_distance_sort: '%s'.", mode), "The mode is MIN, MAX or AVG.");
	if (type != NULL && strcmp(type, "ARC") != 0 && strcmp(type, "PLANE") != 0 &&
		strcmp(type, "GEO_DISTANCE_ARC") != 0 && strcmp(type, "GEO_DISTANCE_PLANE") != 0)
		q_refuse(psprintf("Invalid distance_type of geo_distance_sort: '%s'.", type), "The distance_type is ARC or PLANE.");
	given = q_geo_points(gs, "geo_distance_sort", 1, &n);
	points = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
		points[i] = PointPGetDatum(&given[i]);
	agg = mode != NULL && strcmp(mode, "AVG") == 0 ? "avg" :
		(mode == NULL ? desc : strcmp(mode, "MAX") == 0) ? "max" : "min";
	q_order_key(q, psprintf("(SELECT pg_catalog.%s(ots.search_geo_distance(e, p)) FROM pg_catalog.unnest(%s%s%s) e,"
							" pg_catalog.unnest($%d::pg_catalog.point[]) p)", agg,
							f->is_array ? "" : "ARRAY[", q_live_column(q, f), f->is_array ? "" : "]",
							q_param(q, POINTARRAYOID,
									PointerGetDatum(construct_array(points, n, POINTOID, sizeof(Point), false, TYPALIGN_DOUBLE)))),
				FLOAT8OID, desc, after, equal);
}

/*
 * q_sort_value: field f's value a field_sort sorts by (an array's by mode,
 * or by its smallest value ascending and largest descending), *type its
 * type; refused for a field that cannot sort
 */
static const char *
q_sort_value(SearchSql *q, const SearchField *f, const char *mode, bool desc, Oid *type)
{
	*type = q_element_type(f);
	if (f->type == SEARCH_TEXT || f->type == SEARCH_NESTED || f->type == SEARCH_GEO_POINT)
		q_refuse(psprintf("Field '%s' of type %s cannot sort.", f->name, search_field_type_name(f->type)),
				 "Sort by LONG, DOUBLE, BOOLEAN, KEYWORD and DATE fields.");
	if (mode != NULL && strcmp(mode, "MIN") != 0 && strcmp(mode, "MAX") != 0 && strcmp(mode, "AVG") != 0)
		q_refuse(psprintf("Invalid mode of field_sort: '%s'.", mode), "The mode is MIN, MAX or AVG.");
	if (!f->is_array)
		return q_live_column(q, f);
	if (mode != NULL && strcmp(mode, "AVG") == 0)
	{
		if (*type != INT8OID && *type != FLOAT8OID)
			q_refuse(psprintf("Sort mode AVG does not apply to field '%s' of type %s.", f->name,
							  search_field_type_name(f->type)), NULL);
		*type = FLOAT8OID;
		return psprintf("(SELECT pg_catalog.avg(e)::pg_catalog.float8 FROM pg_catalog.unnest(%s) e)", q_live_column(q, f));
	}
	return psprintf("(SELECT pg_catalog.%s(e) FROM pg_catalog.unnest(%s) e)",
					(mode == NULL ? desc : strcmp(mode, "MAX") == 0) ? "max" : "min", q_live_column(q, f));
}

/*
 * q_sort: the order of sorters (then the primary key ascending, unless a
 * primary_key_sort came first) and, with a token, the rows after its row
 */
static void
q_sort(SearchSql *q, JsonbContainer *sorters, JsonbContainer *after_values, JsonbContainer *after_pk)
{
	int			n = sorters != NULL ? JsonContainerSize(sorters) : 0;
	StringInfoData equal;
	bool		key_desc = false;
	bool		key_sorted = false;

	initStringInfo(&equal);
	appendStringInfoString(&equal, "true");
	appendStringInfoString(&q->after, "(false");
	for (int i = 0; i < n && !key_sorted; i++)
	{
		JsonbContainer *sorter = q_object(getIthJsonbValueFromContainer(sorters, i), "sorter");
		JsonbValue *after = NULL;
		JsonbValue	v;

		if (q_member(sorter, "field_sort", &v) != NULL)
		{
			JsonbContainer *fs = q_object(&v, "field_sort");
			const SearchField *f = q_field(q, fs, "field_sort");
			bool		desc = q_descending(fs, "field_sort");
			const char *mode = q_string(fs, "mode", "field_sort", false);
			const char *expr;
			Oid			type;
			const char *other_name;
			JsonbValue	missing;

			expr = q_sort_value(q, f, mode, desc, &type);
			after = q_token_value(q, after_values);
			/* a row without the field sorts by another's value (of the same type), then by missing_value */
			if ((other_name = q_string(fs, "missing_field", "field_sort", false)) != NULL)
			{
				const SearchField *other = search_field_find(&q->si->schema, other_name);
				Oid			other_type;
				const char *other_expr;

				if (other == NULL || other->type == SEARCH_VECTOR)
					q_refuse(psprintf("The missing_field of field_sort '%s' does not exist: '%s'.", f->name, other_name),
							 "A field_sort's missing_field names another field of the index to sort by where the row lacks the first.");
				if (other->type != f->type)
					q_refuse(psprintf("The missing_field '%s' of field_sort '%s' is of type %s, not %s.", other_name, f->name,
									  search_field_type_name(other->type), search_field_type_name(f->type)),
							 "A field_sort's missing_field is a field of the same type.");
				other_expr = q_sort_value(q, other, mode, desc, &other_type);
				/* one of them an array averaged (AVG), the other a LONG: both as doubles */
				if (other_type != type)
				{
					if (type != FLOAT8OID)
						expr = psprintf("(%s)::pg_catalog.float8", expr);
					else
						other_expr = psprintf("(%s)::pg_catalog.float8", other_expr);
					type = FLOAT8OID;
				}
				expr = psprintf("coalesce(%s, %s)", expr, other_expr);
			}
			if (q_member(fs, "missing_value", &missing) != NULL)
				expr = psprintf("coalesce(%s, $%d)", expr,
								q_param(q, type, type == FLOAT8OID && f->type != SEARCH_DOUBLE ?
										q_stored_value(FLOAT8OID, &missing) : q_value(f, &missing, "missing_value")));
			q_order_key(q, expr, type, desc, after, &equal);
		}
		else if (q_member(sorter, "geo_distance_sort", &v) != NULL)
			q_geo_distance_sort(q, q_object(&v, "geo_distance_sort"), q_token_value(q, after_values), &equal);
		else if (q_member(sorter, "primary_key_sort", &v) != NULL)
		{
			key_desc = q_descending(q_object(&v, "primary_key_sort"), "primary_key_sort");
			key_sorted = true;
		}
		else if (q_member(sorter, "score_sort", &v) != NULL)
		{
			JsonbContainer *ss = q_object(&v, "score_sort");

			/* the best first unless told otherwise */
			q->score = q_score(q, q->query);
			q_order_key(q, q->score,
						FLOAT8OID, q_string(ss, "order", "score_sort", false) == NULL || q_descending(ss, "score_sort"),
						q_token_value(q, after_values), &equal);
		}
		else if (q_member(sorter, "doc_sort", &v) != NULL)
			q_refuse("doc_sort is not supported yet.",
					 "Sort by fields (field_sort), distances (geo_distance_sort), relevance (score_sort) and the primary key (primary_key_sort).");
		else
			q_refuse("Invalid sorter: it is a field_sort, a geo_distance_sort, a score_sort or a primary_key_sort.", NULL);
	}
	/* the key last: every row has one place, so a token continues exactly after its row */
	q->keys.key_desc = key_desc;
	{
		StringInfoData lhs;
		StringInfoData rhs;

		initStringInfo(&lhs);
		initStringInfo(&rhs);
		if (after_pk != NULL && (int) JsonContainerSize(after_pk) != q->t->npk)
			q_refuse("Invalid token: it is not one this index's search made.", NULL);
		for (int k = 0; k < q->t->npk; k++)
		{
			const char *col = psprintf("s.%s", quote_identifier(q->t->pk[k].name));
			Oid			type = q->t->pk[k].type == OTS_VT_INTEGER ? INT8OID :
				q->t->pk[k].type == OTS_VT_BINARY ? BYTEAOID : TEXTOID;

			appendStringInfo(&q->order, "%s%s %s", q->order.len > 0 ? ", " : "", col, key_desc ? "DESC" : "ASC");
			if (after_pk == NULL)
				continue;
			appendStringInfo(&lhs, "%s%s", k > 0 ? ", " : "", col);
			appendStringInfo(&rhs, "%s$%d", k > 0 ? ", " : "",
							 q_param(q, type, q_stored_value(type, getIthJsonbValueFromContainer(after_pk, k))));
		}
		if (after_pk != NULL)
			appendStringInfo(&q->after, " OR (%s AND ROW(%s) OPERATOR(pg_catalog.%s) ROW(%s))",
							 equal.data, lhs.data, key_desc ? "<" : ">", rhs.data);
		appendStringInfoChar(&q->after, ')');
		if (after_pk == NULL)
			resetStringInfo(&q->after);
	}
}

/* ---------------------------------------------------------------- tokens */

/*
 * A token is base64 of {"sort": the sorters, "after": the last row's sort
 * values, "key": its primary key's values}: the next page is the rows after
 * that row in that order, whatever rows were written since.
 */
Jsonb *
search_token_decode(const char *token, int len)
{
	int			cap = pg_b64_dec_len(len);
	char	   *decoded = palloc(cap + 1);
	int			n = pg_b64_decode(token, len, decoded, cap);

	if (n < 0)
		return NULL;
	decoded[n] = '\0';
	return search_json_parse(decoded, n);
}

char *
search_token_make(const SearchSql *q, Jsonb *after, Jsonb *key)
{
	JsonbParseState *st = NULL;
	JsonbValue	k;
	JsonbValue	v;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	k.type = jbvString;
	k.val.string.val = "sort", k.val.string.len = 4;
	pushJsonbValue(&st, WJB_KEY, &k);
	v.type = jbvBinary, v.val.binary.data = &q->sort->root, v.val.binary.len = VARSIZE(q->sort) - VARHDRSZ;
	pushJsonbValue(&st, WJB_VALUE, &v);
	k.val.string.val = "after", k.val.string.len = 5;
	pushJsonbValue(&st, WJB_KEY, &k);
	v.val.binary.data = &after->root, v.val.binary.len = VARSIZE(after) - VARHDRSZ;
	pushJsonbValue(&st, WJB_VALUE, &v);
	k.val.string.val = "key", k.val.string.len = 3;
	pushJsonbValue(&st, WJB_KEY, &k);
	v.val.binary.data = &key->root, v.val.binary.len = VARSIZE(key) - VARHDRSZ;
	pushJsonbValue(&st, WJB_VALUE, &v);
	return search_token_encode(JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL)));
}

char *
search_token_encode(Jsonb *j)
{
	char	   *json = JsonbToCString(NULL, &j->root, VARSIZE(j));
	int			len = strlen(json);
	char	   *out;
	int			n;

	out = palloc(pg_b64_enc_len(len) + 1);
	n = pg_b64_encode(json, len, out, pg_b64_enc_len(len));
	out[n] = '\0';
	return out;
}

/* ---------------------------------------------------------------- highlights */

#define SEARCH_MAX_HIGHLIGHT_TAG	1024	/* bytes of a pre or post tag: ots's bound */

/*
 * q_highlight_terms: the tokens query looks for in TEXT field f (named
 * full_name in queries: a NESTED field's documents' by its path), added to
 * terms (distinct): a match or match_phrase query's text's, a term or
 * terms query's terms, those of the queries of a bool query but its
 * must_not queries, of a const_score query's filter and of a function
 * score query's query
 */
static void
q_highlight_terms(SearchSql *q, JsonbContainer *query, const SearchField *f, const char *full_name,
				  JsonbParseState **terms)
{
	JsonbIterator *it = JsonbIteratorInit(query);
	JsonbValue	key;
	JsonbValue	v;
	JsonbContainer *body;
	const char *type;
	const char *name;

	check_stack_depth();
	if (JsonbIteratorNext(&it, &key, false) != WJB_BEGIN_OBJECT || JsonbIteratorNext(&it, &key, true) != WJB_KEY)
		return;
	type = pnstrdup(key.val.string.val, key.val.string.len);
	if (q_member(query, type, &v) == NULL || v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
		return;
	body = v.val.binary.data;
	if (strcmp(type, "bool_query") == 0)
	{
		static const char *const lists[] = {"must_queries", "should_queries", "filter_queries"};

		for (int l = 0; l < lengthof(lists); l++)
			if (q_member(body, lists[l], &v) != NULL && v.type == jbvBinary && JsonContainerIsArray(v.val.binary.data))
				for (int i = 0; i < (int) JsonContainerSize(v.val.binary.data); i++)
				{
					JsonbValue *e = getIthJsonbValueFromContainer(v.val.binary.data, i);

					if (e->type == jbvBinary && JsonContainerIsObject(e->val.binary.data))
						q_highlight_terms(q, e->val.binary.data, f, full_name, terms);
				}
		return;
	}
	if (strcmp(type, "const_score_query") == 0 || strcmp(type, "functions_score_query") == 0 ||
		strcmp(type, "function_score_query") == 0)
	{
		if (q_member(body, strcmp(type, "const_score_query") == 0 ? "filter" : "query", &v) != NULL &&
			v.type == jbvBinary && JsonContainerIsObject(v.val.binary.data))
			q_highlight_terms(q, v.val.binary.data, f, full_name, terms);
		return;
	}
	if ((name = q_string(body, "field_name", type, false)) == NULL || strcmp(name, full_name) != 0)
		return;
	if (strcmp(type, "match_query") == 0 || strcmp(type, "match_phrase_query") == 0)
	{
		const char *text = q_string(body, "text", type, false);
		SearchToken *tokens;
		int			n;

		if (text == NULL)
			return;
		tokens = search_analyze(&f->analyzer, text, strlen(text), &n);
		for (int i = 0; i < n; i++)
		{
			v.type = jbvString;
			v.val.string.val = (char *) tokens[i].text;
			v.val.string.len = tokens[i].len;
			pushJsonbValue(terms, WJB_ELEM, &v);
		}
	}
	else if (strcmp(type, "term_query") == 0 && q_member(body, "term", &v) != NULL && v.type == jbvString)
		pushJsonbValue(terms, WJB_ELEM, &v);
	else if (strcmp(type, "terms_query") == 0 && q_member(body, "terms", &v) != NULL && v.type == jbvBinary &&
			 JsonContainerIsArray(v.val.binary.data))
		for (int i = 0; i < (int) JsonContainerSize(v.val.binary.data); i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(v.val.binary.data, i);

			if (e->type == jbvString)
				pushJsonbValue(terms, WJB_ELEM, e);
		}
}

/*
 * q_highlight: a highlight ({"highlight_parameters": [{"field_name",
 * "number_of_fragments", "fragment_size", "pre_tag", "post_tag",
 * "fragments_order"}], "highlight_encoder"}) of the search's fields
 * (nested NULL), or of the documents of NESTED field nested at path (an
 * inner_hits'), as a list of what ots.search_highlight (highlight.c) takes
 * for each field, with its terms found in query and, for documents, the
 * member of a document it reads
 */
static Jsonb *
q_highlight(SearchSql *q, JsonbContainer *h, const SearchField *nested, const char *path, JsonbContainer *query)
{
	static const char *const fields[] = {"highlight_parameters", "highlight_encoder"};
	static const char *const parameter_fields[] = {"field_name", "number_of_fragments", "fragment_size", "pre_tag",
	"post_tag", "fragments_order"};
	static const RequestFields highlight_object = REQUEST_FIELDS("highlight", fields);
	static const RequestFields parameter_object = REQUEST_FIELDS("a highlight parameter", parameter_fields);
	const char *encoder;
	int			n;
	JsonbContainer *list;
	JsonbParseState *st = NULL;

	request_fields_check(h, &highlight_object, "highlight");
	encoder = q_string(h, "highlight_encoder", "highlight", false);
	if (encoder != NULL && strcmp(encoder, "PLAIN_MODE") != 0 && strcmp(encoder, "HTML_MODE") != 0)
		q_refuse(psprintf("Invalid highlight_encoder of highlight: '%s'.", encoder), "It is PLAIN_MODE or HTML_MODE.");
	list = q_sized_array(h, "highlight_parameters", "highlight", 1, SEARCH_MAX_FUNCTIONS, &n);
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
	{
		JsonbContainer *p = q_object(getIthJsonbValueFromContainer(list, i), "a highlight parameter");
		const char *name = q_string(p, "field_name", "a highlight parameter", true);
		const SearchField *f;
		const char *order = q_string(p, "fragments_order", "a highlight parameter", false);
		const char *tags[2] = {q_string(p, "pre_tag", "a highlight parameter", false),
		q_string(p, "post_tag", "a highlight parameter", false)};
		JsonbParseState *terms = NULL;

		request_fields_check(p, &parameter_object, "a highlight parameter");
		for (int j = 0; j < i; j++)
			if (strcmp(q_string(q_object(getIthJsonbValueFromContainer(list, j), "a highlight parameter"), "field_name",
								"a highlight parameter", true), name) == 0)
				q_refuse(psprintf("Duplicated field of highlight: '%s'.", name), NULL);
		if (nested == NULL)
		{
			f = search_field_find(&q->si->schema, name);
			if (f == NULL && strchr(name, '.') != NULL)
				q_refuse(psprintf("Field '%s' of highlight is a NESTED field's.", name),
						 "A NESTED field's documents are highlighted by the inner_hits of a nested_query of its path.");
		}
		else
		{
			size_t		plen = strlen(path);

			if (strncmp(name, path, plen) != 0 || name[plen] != '.' || strchr(name + plen + 1, '.') != NULL)
				q_refuse(psprintf("Field '%s' of the highlight of inner_hits is not a field of the documents of '%s'.", name, path),
						 "The inner_hits of a nested_query highlight the fields of its path's documents, named path.field.");
			f = q_sub_field(nested, name + plen + 1);
		}
		if (f == NULL)
			q_refuse(psprintf("Field '%s' of highlight is not a field of search index '%s'.", name, q->si->index_name), NULL);
		if (f->type != SEARCH_TEXT || !f->enable_highlighting)
			q_refuse(psprintf("Field '%s' of highlight is not a TEXT field with enable_highlighting.", name),
					 "A field is highlighted when its schema says \"enable_highlighting\": true.");
		if (order != NULL && strcmp(order, "TEXT_SEQUENCE") != 0 && strcmp(order, "SCORE") != 0)
			q_refuse(psprintf("Invalid fragments_order of highlight of '%s': '%s'.", name, order), "It is TEXT_SEQUENCE or SCORE.");
		for (int t = 0; t < 2; t++)
			if (tags[t] != NULL && strlen(tags[t]) > SEARCH_MAX_HIGHLIGHT_TAG)
				q_refuse(psprintf("Invalid %s of highlight of '%s': longer than %d bytes.", t == 0 ? "pre_tag" : "post_tag",
								  name, SEARCH_MAX_HIGHLIGHT_TAG), NULL);
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		json_push_string(&st, "field_name", name);
		json_push_string(&st, "doc_field", f->name);
		json_push_string(&st, "analyzer", search_analyzer_name(f->analyzer.kind));
		if (f->analyzer_parameter != NULL)
			json_push_jsonb(&st, "analyzer_parameter", f->analyzer_parameter);
		json_push_int(&st, "number_of_fragments", q_int(p, "number_of_fragments", 5, 0, 100, "a highlight parameter"));
		json_push_int(&st, "fragment_size", q_int(p, "fragment_size", 100, 1, 100000, "a highlight parameter"));
		json_push_string(&st, "pre_tag", tags[0] != NULL ? tags[0] : "<em>");
		json_push_string(&st, "post_tag", tags[1] != NULL ? tags[1] : "</em>");
		json_push_string(&st, "fragments_order", order != NULL ? order : "TEXT_SEQUENCE");
		json_push_bool(&st, "html", encoder != NULL && strcmp(encoder, "HTML_MODE") == 0);
		pushJsonbValue(&terms, WJB_BEGIN_ARRAY, NULL);
		q_highlight_terms(q, query, f, name, &terms);
		json_push_jsonb(&st, "terms", JsonbValueToJsonb(pushJsonbValue(&terms, WJB_END_ARRAY, NULL)));
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	}
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL));
}

/* ---------------------------------------------------------------- the search query */

/*
 * q_collapse: the field whose each value keeps only its first matching row
 * (rows without it: one more group), a single-valued field a group-by
 * takes; the total count and the aggregations count every matching row
 */
static void
q_collapse(SearchSql *q, JsonbContainer *collapse)
{
	const SearchField *f = q_field(q, collapse, "collapse");

	if (f->is_array || f->type == SEARCH_TEXT || f->type == SEARCH_NESTED || f->type == SEARCH_GEO_POINT)
		q_refuse(psprintf("Field '%s' cannot collapse: it is an array, or of type %s.", f->name,
						  search_field_type_name(f->type)),
				 "Collapse by a LONG, DOUBLE, BOOLEAN, KEYWORD or DATE field that is not an array.");
	q->collapse = q_live_column(q, f);
}

/* q_cutoff: the time a cell or row must be newer than to be live at now_ms under ttl seconds */
static int64
q_cutoff(int64 now_ms, int64 ttl)
{
	int64		ms;
	int64		cutoff;

	if (pg_mul_s64_overflow(ttl, 1000, &ms) || pg_sub_s64_overflow(now_ms, ms, &cutoff))
		return PG_INT64_MIN;
	return cutoff;
}

void
search_query_compile(SearchSql *q, const OtsTable *t, const SearchIndex *si, Jsonb *search_query)
{
	static const char *const fields[] = {"query", "sort", "offset", "limit", "token", "get_total_count",
	"track_total_count", "collapse", "aggs", "group_bys", "highlight", "filter"};
	static const RequestFields search_query_object = REQUEST_FIELDS("a search query", fields);
	JsonbContainer *root;
	JsonbValue	v;
	JsonbContainer *sorters = NULL;
	JsonbContainer *after_values = NULL;
	JsonbContainer *after_pk = NULL;
	int			count = 0;
	int64		now_ms = visibility_now_ms();
	int64		row_ttl;

	memset(q, 0, sizeof(*q));
	q->t = t;
	q->si = si;
	initStringInfo(&q->where);
	initStringInfo(&q->after);
	initStringInfo(&q->order);
	initStringInfo(&q->sort_values);
	if (search_query == NULL || !JB_ROOT_IS_OBJECT(search_query))
		q_refuse("Invalid search_query: it is not an object.", NULL);
	root = &search_query->root;
	request_fields_check(root, &search_query_object, "the search query");
	for (int i = 11; i < lengthof(fields); i++)
		if (q_member(root, fields[i], &v) != NULL)
			q_refuse(psprintf("%s is not supported yet.", fields[i]),
					 "ots searches with query, sort, offset, limit, token, get_total_count, collapse, aggs and group_bys so far.");
	if (q_member(root, "aggs", &v) != NULL)
		q->aggs = q_array(&v, "aggs");
	if (q_member(root, "group_bys", &v) != NULL)
		q->group_bys = q_array(&v, "group_bys");
	if (q_member(root, "query", &v) == NULL)
		q_refuse("Missing query of the search query.", "A search query has a query: {\"match_all_query\": {}} for every row.");
	/*
	 * TTL, as reads apply it: a field's cell is hidden once the table's TTL
	 * passes, an entry once the row's newest time passes the table's TTL or
	 * the index's, which acts on whole rows
	 */
	if (t->time_to_live > 0)
		q->field_cutoff = q_param(q, INT8OID, Int64GetDatum(q_cutoff(now_ms, t->time_to_live)));
	row_ttl = t->time_to_live;
	if (si->time_to_live > 0 && (row_ttl <= 0 || si->time_to_live < row_ttl))
		row_ttl = si->time_to_live;
	q->query = q_object(&v, "query");
	q->storage = quote_qualified_identifier(t->schema_name, get_rel_name(si->storage_oid));
	/* this compile's nested queries' inner_hits are the search's (not a score's compile, nor an aggregation's) */
	q->inner_hits_tail = &q->inner_hits;
	q_query(q, q->query, &count);
	q->inner_hits_tail = NULL;
	if (row_ttl > 0)
	{
		char	   *query = q->where.data;

		initStringInfo(&q->where);
		appendStringInfo(&q->where, "s.%s OPERATOR(pg_catalog.>) $%d AND (%s)",
						 quote_identifier(SEARCH_ROW_TS_COLUMN),
						 q_param(q, INT8OID, Int64GetDatum(q_cutoff(now_ms, row_ttl))), query);
	}
	q->offset = q_int(root, "offset", 0, 0, SEARCH_MAX_OFFSET_LIMIT, "the search query");
	q->limit = q_int(root, "limit", SEARCH_DEFAULT_LIMIT, 0, SEARCH_MAX_LIMIT, "the search query");
	if ((int64) q->offset + q->limit > SEARCH_MAX_OFFSET_LIMIT)
		q_refuse(psprintf("Invalid offset and limit: their sum is more than %d.", SEARCH_MAX_OFFSET_LIMIT),
				 "Page further with the next_token.");
	q->get_total_count = q_bool(root, "get_total_count", false, "the search query") ||
		q_int(root, "track_total_count", -1, -1, INT32_MAX, "the search query") > 0;
	if (q_member(root, "token", &v) != NULL)
	{
		/* the token carries the sort on: its sorters, the last row's sort values and key */
		Jsonb	   *j = NULL;
		JsonbValue	m;

		if (v.type != jbvString || (j = search_token_decode(v.val.string.val, v.val.string.len)) == NULL ||
			!JB_ROOT_IS_OBJECT(j) || q_member(&j->root, "sort", &m) == NULL || m.type != jbvBinary ||
			!JsonContainerIsArray(m.val.binary.data))
			q_refuse("Invalid token: it is not one this index's search made.", NULL);
		sorters = m.val.binary.data;
		q->sort = JsonbValueToJsonb(&m);
		if (q_member(&j->root, "after", &m) == NULL || m.type != jbvBinary ||
			!JsonContainerIsArray(m.val.binary.data))
			q_refuse("Invalid token: it is not one this index's search made.", NULL);
		after_values = m.val.binary.data;
		if (q_member(&j->root, "key", &m) == NULL || m.type != jbvBinary ||
			!JsonContainerIsArray(m.val.binary.data))
			q_refuse("Invalid token: it is not one this index's search made.", NULL);
		after_pk = m.val.binary.data;
	}
	else if (q_member(root, "sort", &v) != NULL)
	{
		JsonbValue	s;

		if (q_member(q_object(&v, "sort"), "sorters", &s) == NULL)
			q_refuse("Missing sorters of sort.", NULL);
		sorters = q_array(&s, "sorters of sort");
		q->sort = JsonbValueToJsonb(&s);
	}
	else
	{
		JsonbValue	top;

		q->sort = search_presort_jsonb(&si->schema);
		/* a function score query is asked for its order: the best scored first, then the index's order */
		if (q_member(q->query, "functions_score_query", &top) != NULL || q_member(q->query, "function_score_query", &top) != NULL)
			q->sort = DatumGetJsonbP(DirectFunctionCall2(jsonb_concat,
														 DirectFunctionCall1(jsonb_in, CStringGetDatum("[{\"score_sort\": {\"order\": \"DESC\"}}]")),
														 JsonbPGetDatum(q->sort)));
		sorters = &q->sort->root;
	}
	q_sort(q, sorters, after_values, after_pk);
	/* a function score query's rows carry their scores, however sorted */
	if (q->score == NULL && (q_member(q->query, "functions_score_query", &v) != NULL ||
							 q_member(q->query, "function_score_query", &v) != NULL))
		q->score = q_score(q, q->query);
	if (q_member(root, "collapse", &v) != NULL)
		q_collapse(q, q_object(&v, "collapse"));
	if (q_member(root, "highlight", &v) != NULL)
		q->highlight = q_highlight(q, q_object(&v, "highlight"), NULL, NULL, q->query);
}

/* ---------------------------------------------------------------- for the aggregations */

const SearchField *
search_sql_field(SearchSql *q, JsonbContainer *obj, const char *what)
{
	return q_field(q, obj, what);
}

int
search_sql_param(SearchSql *q, Oid type, Datum value)
{
	return q_param(q, type, value);
}

Datum
search_sql_value(const SearchField *f, JsonbValue *v, const char *what)
{
	return q_value(f, v, what);
}

Oid
search_sql_element_type(const SearchField *f)
{
	return q_element_type(f);
}

const char *
search_sql_column(const SearchSql *q, const SearchField *f)
{
	return q_live_column(q, f);
}

const SearchField *
search_sql_nested_field(SearchSql *q, const char *name, char **documents, const char **value)
{
	char	   *save;
	const SearchField *f = NULL;
	const char *alias = NULL;
	int			depth = 0;
	StringInfoData from;

	/* strtok_r would pass over an empty segment: "a..b" names nothing */
	if (name[0] == '.' || name[strlen(name) - 1] == '.' || strstr(name, "..") != NULL)
		return NULL;
	initStringInfo(&from);
	for (char *segment = strtok_r(pstrdup(name), ".", &save); segment != NULL; segment = strtok_r(NULL, ".", &save))
	{
		if (f != NULL)
		{
			const char *docs;

			/* a level down: the documents of the NESTED field above, each a row */
			if (f->type != SEARCH_NESTED)
				return NULL;
			docs = alias == NULL ? q_live_column(q, f) : q_doc_value(alias, f, false);
			alias = psprintf("na%d", ++depth);
			appendStringInfo(&from, "%spg_catalog.jsonb_array_elements(%s) AS %s(doc)",
							 depth > 1 ? ", " : "", docs, alias);
			f = q_sub_field(f, segment);
		}
		else
			f = search_field_find(&q->si->schema, segment);
		if (f == NULL)
			return NULL;
	}
	if (alias == NULL || f->type == SEARCH_NESTED)
		return NULL;
	*documents = from.data;
	*value = q_doc_value(alias, f, false);
	return f;
}

char *
search_sql_condition(SearchSql *q, JsonbContainer *query)
{
	StringInfoData saved = q->where;
	char	   *condition;
	int			count = 0;

	initStringInfo(&q->where);
	q_query(q, query, &count);
	condition = q->where.data;
	q->where = saved;
	return condition;
}

char *
search_sql_key_json(const OtsTable *t, bool as_array)
{
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfoString(&sql, as_array ? "pg_catalog.jsonb_build_array(" : "pg_catalog.jsonb_build_object(");
	for (int k = 0; k < t->npk; k++)
	{
		const char *col = psprintf("s.%s", quote_identifier(t->pk[k].name));

		if (k > 0)
			appendStringInfoString(&sql, ", ");
		if (!as_array)
			appendStringInfo(&sql, "%s, ", quote_literal_cstr(t->pk[k].name));
		if (t->pk[k].type == OTS_VT_BINARY && !as_array)
			appendStringInfo(&sql, "pg_catalog.jsonb_build_object('$binary',"
							 " pg_catalog.translate(pg_catalog.encode(%s, 'base64'), E'\\n', ''))", col);
		else
			appendStringInfoString(&sql, col);
	}
	appendStringInfoChar(&sql, ')');
	return sql.data;
}

char *
search_sql_order(SearchSql *q, JsonbContainer *sorters, char **sort_values_out, SearchOrder *keys_out)
{
	StringInfoData order = q->order;
	StringInfoData sort_values = q->sort_values;
	StringInfoData after = q->after;
	SearchOrder keys = q->keys;
	int			nsort = q->nsort;
	char	   *result;

	initStringInfo(&q->order);
	initStringInfo(&q->sort_values);
	initStringInfo(&q->after);
	memset(&q->keys, 0, sizeof(q->keys));
	q->nsort = 0;
	q_sort(q, sorters, NULL, NULL);
	result = q->order.data;
	if (sort_values_out != NULL)
		*sort_values_out = q->sort_values.data;
	if (keys_out != NULL)
		*keys_out = q->keys;
	q->order = order;
	q->sort_values = sort_values;
	q->after = after;
	q->keys = keys;
	q->nsort = nsort;
	return result;
}
