/*-------------------------------------------------------------------------
 * src/search/search_composite.c
 *	  Tablestore's group_by_composite: the matching rows grouped by the keys
 *	  of several sources at once (a field's values, a histogram's or a date
 *	  histogram's buckets), one flat list of groups in the sources' key
 *	  order, paged by next_token.
 *
 * Request: {"name", "type": "composite", "sources": [group-bys of type
 * field, histogram or date_histogram, each sorted by its key only],
 * "size" (1 to 2000; 10 by default) or "suggested_size" (any, at most 2000
 * served), "next_token", "sub_aggs", "sub_group_bys"}.  Result: the
 * sources' names, the groups (each its keys as text, which of them are
 * null, its row count and sub-results), and a next_token while groups
 * remain.
 *
 * A row with several values of a source is in a group for each; a row
 * without one is in its null key's group.  Nulls come first ascending and
 * last descending.  A token holds the last group's keys (and a hash of the
 * sources, which it must be used with): the next page is the groups after
 * them in that order, whatever was written since.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "common/shortest_dec.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "mb/pg_wchar.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "format/request_fields.h"
#include "search/agg_buckets.h"
#include "search/agg_request.h"
#include "search/json_build.h"
#include "search/search_composite.h"
#include "search/search_query.h"

/*
 * ots's bound on the combinations of the sources' keys one row makes (a
 * row with 8 values of an array field in 8 sources would make 8^8 groups)
 */
#define COMPOSITE_MAX_COMBINATIONS	10000

typedef enum SourceKind
{
	SOURCE_FIELD,
	SOURCE_HISTOGRAM,
	SOURCE_DATE_HISTOGRAM,
	SOURCE_KINDS
} SourceKind;

/* each kind of source: its type's name and the members it takes (request_fields_check) */
static const char *const source_types[SOURCE_KINDS] = {"field", "histogram", "date_histogram"};
static const char *const field_members[] = {"name", "type", "field_name", "sort", "missing"};
static const char *const histogram_members[] = {"name", "type", "field_name", "sort", "missing", "interval", "offset"};
static const char *const date_histogram_members[] = {"name", "type", "field_name", "sort", "missing", "interval", "offset",
"time_zone"};
static const RequestFields source_members[SOURCE_KINDS] = {
	[SOURCE_FIELD] = REQUEST_FIELDS("a field source of group_by_composite", field_members),
	[SOURCE_HISTOGRAM] = REQUEST_FIELDS("a histogram source of group_by_composite", histogram_members),
	[SOURCE_DATE_HISTOGRAM] = REQUEST_FIELDS("a date_histogram source of group_by_composite", date_histogram_members),
};

/* the members a composite takes */
static const char *const composite_fields[] = {"name", "type", "sources", "size", "suggested_size", "next_token",
"sub_aggs", "sub_group_bys"};
static const RequestFields composite_members = REQUEST_FIELDS("group_by_composite", composite_fields);

/* a source: how it keys a row, and its keys' order */
typedef struct CompositeSource
{
	const char *name;
	const char *values;			/* SQL: a row's values, an array */
	const char *key;			/* SQL of a value e: its key, which groups and orders */
	const char *shown;			/* SQL of the key y.k as shown, or NULL: the key */
	Oid			type;			/* the key's: int8, float8, bool or text */
	bool		desc;
	const char *column;			/* a field source's column, when a group's rows are found by it, else NULL */
	bool		is_array;
} CompositeSource;

/* source_read: source g of a composite, its parameters checked */
static void
source_read(AggRun *r, JsonbContainer *g, CompositeSource *src)
{
	const char *what = "a source of group_by_composite";
	const char *type = agg_string(g, "type", what);
	GroupSorter *sorters;
	int			nsorters;
	SourceKind	kind;

	src->name = agg_string(g, "name", what);
	for (kind = 0; kind < SOURCE_KINDS; kind++)
		if (strcmp(type, source_types[kind]) == 0)
			break;
	if (kind == SOURCE_KINDS)
		agg_refuse(psprintf("Invalid type of source '%s' of group_by_composite: '%s' (field, histogram or date_histogram).",
							src->name, type));
	request_fields_check(g, &source_members[kind], "source '%s' of group_by_composite", src->name);
	sorters = group_sorter_list(g, what, &nsorters);
	if (nsorters > 1 || (nsorters == 1 && sorters[0].kind != 'k'))
		agg_refuse(psprintf("Invalid sort of source '%s' of group_by_composite: one group_key_sort at most.",
							src->name));
	src->desc = nsorters == 1 && sorters[0].desc;
	src->column = NULL;
	if (kind == SOURCE_FIELD)
	{
		const SearchField *f = search_sql_field(r->q, g, "group_by_field");
		JsonbValue	missing;

		if (f->type == SEARCH_TEXT || f->type == SEARCH_NESTED || f->type == SEARCH_GEO_POINT)
			agg_refuse(psprintf("[group_by_field] field_name:%s type:%s is invalid", f->name,
								search_field_type_name(f->type)));
		src->values = group_values(r, g, f);
		/* a DATE's key is its millisecond, as a group_by_field's */
		src->key = f->type == SEARCH_DATE ? "(e.e OPERATOR(pg_catalog./) 1000000)" : "e.e";
		src->type = f->type == SEARCH_DATE ? INT8OID : search_sql_element_type(f);
		src->shown = NULL;
		if (src->type != INT8OID && src->type != FLOAT8OID && src->type != BOOLOID && src->type != TEXTOID)
			agg_refuse(psprintf("[group_by_field] field_name:%s type:%s is invalid", f->name,
								search_field_type_name(f->type)));
		/* its key its value: a group's rows are found by the column's index */
		if (f->type != SEARCH_DATE && agg_member(g, "missing", &missing) == NULL)
			src->column = search_sql_column(r->q, f);
		src->is_array = f->is_array;
	}
	else
	{
		NumberedBuckets b;

		if (kind == SOURCE_HISTOGRAM)
			histogram_buckets(r, g, &b);
		else
			date_histogram_buckets(r, g, &b);
		src->values = b.values;
		src->key = b.number;
		src->shown = b.key;
		src->type = INT8OID;
		src->is_array = search_sql_field(r->q, g, what)->is_array;
	}
}

/*
 * key_text: a key's text, independent of settings (a double's shortest
 * exact decimal), which a token holds and the result shows
 */
static char *
key_text(Datum d, Oid type)
{
	switch (type)
	{
		case INT8OID:
			return psprintf(INT64_FORMAT, DatumGetInt64(d));
		case FLOAT8OID:
			{
				char	   *buf = palloc(DOUBLE_SHORTEST_DECIMAL_LEN);

				double_to_shortest_decimal_buf(DatumGetFloat8(d), buf);
				return buf;
			}
		case BOOLOID:
			return pstrdup(DatumGetBool(d) ? "true" : "false");
		case TEXTOID:
			return TextDatumGetCString(d);
		default:
			elog(ERROR, "a composite's key of type %u", type);
	}
	return NULL;
}

/* key_read: a key of a token back, false when the text is none of type's */
static bool
key_read(const char *text, Oid type, Datum *out)
{
	switch (type)
	{
		case INT8OID:
			{
				int64		n;

				if (strchr(text, '.') != NULL || !search_value_integral(text, &n))
					return false;
				*out = Int64GetDatum(n);
				return true;
			}
		case FLOAT8OID:
			{
				char	   *end;
				double		d = strtod(text, &end);

				if (*text == '\0' || *end != '\0' || isnan(d) || isinf(d))
					return false;
				*out = Float8GetDatum(d);
				return true;
			}
		case BOOLOID:
			if (strcmp(text, "true") != 0 && strcmp(text, "false") != 0)
				return false;
			*out = BoolGetDatum(strcmp(text, "true") == 0);
			return true;
		case TEXTOID:
			if (!pg_verifymbstr(text, strlen(text), true))
				return false;
			*out = CStringGetTextDatum(text);
			return true;
		default:
			return false;
	}
}

/* sources_hash: what a token is tied to, the sources as written */
static int64
sources_hash(JsonbContainer *sources)
{
	char	   *text = JsonbToCString(NULL, sources, 0);

	return (int64) hash_bytes((const unsigned char *) text, strlen(text));
}

/*
 * token_after: the condition on the groups g.k1, ... that come after the
 * keys in g's next_token (true: none)
 */
static char *
token_after(AggRun *r, JsonbContainer *g, JsonbContainer *sources, const CompositeSource *src, int n)
{
	JsonbValue	v;
	Jsonb	   *token;
	JsonbValue	m;
	JsonbContainer *after;
	StringInfoData cond;
	StringInfoData equal;
	const char *invalid = "Invalid next_token of group_by_composite: it is not one these sources made.";

	if (agg_member(g, "next_token", &v) == NULL)
		return "true";
	if (v.type != jbvString || (token = search_token_decode(v.val.string.val, v.val.string.len)) == NULL ||
		!JB_ROOT_IS_OBJECT(token) || agg_member(&token->root, "composite", &m) == NULL || m.type != jbvNumeric ||
		!DatumGetBool(DirectFunctionCall2(numeric_eq, NumericGetDatum(m.val.numeric),
										  NumericGetDatum(int64_to_numeric(sources_hash(sources))))) ||
		agg_member(&token->root, "after", &m) == NULL || m.type != jbvBinary ||
		!JsonContainerIsArray(m.val.binary.data) || JsonContainerSize(m.val.binary.data) != n)
		agg_refuse(invalid);
	after = m.val.binary.data;
	initStringInfo(&cond);
	initStringInfo(&equal);
	/* after (a1, a2, ...): after a1, or at a1 and after a2, or ... */
	for (int i = 0; i < n; i++)
	{
		JsonbValue *a = getIthJsonbValueFromContainer(after, i);
		const char *k = psprintf("g.k%d", i + 1);
		const char *later;
		const char *at;

		if (a->type == jbvNull)
		{
			/* nulls come first ascending, last descending */
			later = src[i].desc ? "false" : psprintf("%s IS NOT NULL", k);
			at = psprintf("%s IS NULL", k);
		}
		else
		{
			Datum		d;
			int			p;

			if (a->type != jbvString ||
				!key_read(pnstrdup(a->val.string.val, a->val.string.len), src[i].type, &d))
				agg_refuse(invalid);
			p = search_sql_param(r->q, src[i].type, d);
			later = src[i].desc ? psprintf("(%s OPERATOR(pg_catalog.<) $%d OR %s IS NULL)", k, p, k) :
				psprintf("%s OPERATOR(pg_catalog.>) $%d", k, p);
			at = psprintf("%s OPERATOR(pg_catalog.=) $%d", k, p);
		}
		appendStringInfo(&cond, "%s(%s%s%s)", i > 0 ? " OR " : "", equal.data, i > 0 ? " AND " : "", later);
		appendStringInfo(&equal, "%s%s", i > 0 ? " AND " : "", at);
	}
	return cond.data;
}

/* page_size: size (1 to AGG_MAX_GROUPS), else suggested_size (at most that many served), else the default */
static int
page_size(JsonbContainer *g)
{
	JsonbValue	v;
	double		n;

	if (agg_member(g, "size", &v) != NULL)
	{
		n = agg_number(g, "size", 0, "group_by_composite");
		if (n < 1 || n > AGG_MAX_GROUPS || n != floor(n))
			agg_refuse(psprintf("Invalid size of group_by_composite: 1 to %d.", AGG_MAX_GROUPS));
		return (int) n;
	}
	if (agg_member(g, "suggested_size", &v) != NULL)
	{
		n = agg_number(g, "suggested_size", 0, "group_by_composite");
		return n >= 1 && n <= AGG_MAX_GROUPS ? (int) n : AGG_MAX_GROUPS;
	}
	return AGG_DEFAULT_GROUPS;
}

/*
 * in_group: a row's condition to be in the group whose key of source src
 * is d (null: it has no value); by the column itself where it can, which
 * its index serves
 */
static char *
in_group(AggRun *r, const CompositeSource *src, Datum d, bool isnull)
{
	if (src->column != NULL && isnull)
		return src->is_array ?
			psprintf("coalesce(pg_catalog.cardinality(%s), 0) OPERATOR(pg_catalog.=) 0", src->column) :
			psprintf("%s IS NULL", src->column);
	if (src->column != NULL)
		return src->is_array ?
			psprintf("$%d OPERATOR(pg_catalog.=) ANY (%s)", search_sql_param(r->q, src->type, d), src->column) :
			psprintf("%s OPERATOR(pg_catalog.=) $%d", src->column, search_sql_param(r->q, src->type, d));
	if (isnull)
		return psprintf("NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(%s) e WHERE %s IS NOT NULL)", src->values, src->key);
	return psprintf("EXISTS (SELECT 1 FROM pg_catalog.unnest(%s) e WHERE %s OPERATOR(pg_catalog.=) $%d)",
					src->values, src->key, search_sql_param(r->q, src->type, d));
}

/*
 * combinations_check: refuse sources of which a matching row (within
 * bucket) has more than COMPOSITE_MAX_COMBINATIONS combinations of keys;
 * only arrays make more than one, so only two array sources or more ask
 */
static void
combinations_check(AggRun *r, const CompositeSource *src, int n, const char *bucket)
{
	StringInfoData product;
	int			arrays = 0;

	initStringInfo(&product);
	for (int i = 0; i < n; i++)
		if (src[i].is_array)
		{
			appendStringInfo(&product, "%scoalesce(pg_catalog.cardinality(%s), 1)::pg_catalog.float8",
							 arrays++ > 0 ? " OPERATOR(pg_catalog.*) " : "", src[i].values);
		}
	if (arrays < 2)
		return;
	if (agg_run(r, psprintf("SELECT 1 FROM %s s WHERE (%s)%s%s%s AND %s OPERATOR(pg_catalog.>) %d LIMIT 1",
							r->storage, r->q->where.data, bucket != NULL ? " AND (" : "", bucket != NULL ? bucket : "",
							bucket != NULL ? ")" : "", product.data, COMPOSITE_MAX_COMBINATIONS)) > 0)
		agg_refuse(psprintf("Invalid sources of group_by_composite: a row has more than %d combinations of their keys (each value of an array field makes one).",
							COMPOSITE_MAX_COMBINATIONS));
}

void
composite_page(AggRun *r, JsonbContainer *g, const char *bucket, int depth, CompositePage *page)
{
	JsonbContainer *sources = agg_array(g, "sources", "group_by_composite");
	int			n = sources != NULL ? (int) JsonContainerSize(sources) : 0;
	int			size = page_size(g);
	CompositeSource *src;
	StringInfoData keys;
	StringInfoData laterals;
	StringInfoData shown;
	StringInfoData group;
	StringInfoData order;
	const char *after;
	uint64		ngroups;
	Datum	   *last_keys;
	bool	   *last_nulls;

	if (depth > 1)
		agg_refuse("group_by_composite is a group_by of the search, not a sub_group_by.");
	/* a cluster's proxy would need every group of every shard: not merged yet */
	if (r->q->for_merge)
		agg_refuse("The composite group_by is not merged across the shards of a cluster yet.");
	request_fields_check(g, &composite_members, "group_by_composite");
	if (n < 1 || n > AGG_MAX_PER_LEVEL)
		agg_refuse(psprintf("Invalid sources of group_by_composite: 1 to %d group_bys.", AGG_MAX_PER_LEVEL));
	agg_names_distinct(sources, "sources of group_by_composite");
	src = palloc0(sizeof(CompositeSource) * n);
	initStringInfo(&keys);
	initStringInfo(&laterals);
	initStringInfo(&shown);
	initStringInfo(&group);
	initStringInfo(&order);
	for (int i = 0; i < n; i++)
	{
		source_read(r, agg_object(getIthJsonbValueFromContainer(sources, i), "a source of group_by_composite"), &src[i]);
		/* each row once in a group: its distinct keys of each source, a null one when it has none */
		appendStringInfo(&laterals, " LEFT JOIN LATERAL (SELECT DISTINCT %s AS k FROM pg_catalog.unnest(%s) e) x%d ON true",
						 src[i].key, src[i].values, i + 1);
		appendStringInfo(&keys, "%sx%d.k AS k%d", i > 0 ? ", " : "", i + 1, i + 1);
		appendStringInfo(&group, "%s%d", i > 0 ? ", " : "", i + 1);
		appendStringInfo(&order, "%s%d %s", i > 0 ? ", " : "", i + 1, src[i].desc ? "DESC NULLS LAST" : "ASC NULLS FIRST");
		appendStringInfo(&shown, ", %s", src[i].shown == NULL ? psprintf("g.k%d", i + 1) :
						 psprintf("(SELECT %s FROM (SELECT g.k%d AS k) y)", src[i].shown, i + 1));
	}
	combinations_check(r, src, n, bucket);
	after = token_after(r, g, sources, src, n);
	/* the groups: keys (1 to n), rows, keys as shown; one more than the page, to know whether more follow */
	ngroups = agg_run(r, psprintf("SELECT g.*, pg_catalog.count(*)%s FROM (SELECT %s FROM %s s%s WHERE (%s)%s%s%s) g"
								  " WHERE %s GROUP BY %s ORDER BY %s LIMIT %d",
								  shown.data, keys.data, r->storage, laterals.data, r->q->where.data,
								  bucket != NULL ? " AND (" : "", bucket != NULL ? bucket : "", bucket != NULL ? ")" : "",
								  after, group.data, order.data, size + 1));
	page->nsources = n;
	page->names = palloc(sizeof(char *) * n);
	for (int j = 0; j < n; j++)
		page->names[j] = src[j].name;
	page->ngroups = Min((int) ngroups, size);
	page->keys = palloc(sizeof(char **) * Max(page->ngroups, 1));
	page->counts = palloc(sizeof(int64) * Max(page->ngroups, 1));
	page->conditions = palloc(sizeof(char *) * Max(page->ngroups, 1));
	last_keys = palloc(sizeof(Datum) * n);
	last_nulls = palloc(sizeof(bool) * n);
	for (int i = 0; i < page->ngroups; i++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		StringInfoData in;

		initStringInfo(&in);
		page->keys[i] = palloc(sizeof(char *) * n);
		page->counts[i] = agg_int(i, n + 1);
		for (int j = 0; j < n; j++)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(tuple, desc, j + 1, &last_nulls[j]);
			Datum		s = SPI_getbinval(tuple, desc, n + 2 + j, &isnull);

			page->keys[i][j] = isnull ? NULL : key_text(s, SPI_gettypeid(desc, n + 2 + j));
			/* the key as a parameter, in the caller's memory with the rest of the request's */
			last_keys[j] = last_nulls[j] ? (Datum) 0 :
				src[j].type == TEXTOID ? PointerGetDatum(DatumGetTextPCopy(d)) : d;
			appendStringInfo(&in, "%s%s", j > 0 ? " AND " : "", in_group(r, &src[j], last_keys[j], last_nulls[j]));
		}
		page->conditions[i] = in.data;
	}
	/* more groups: a token after the last one shown, its keys as text */
	page->next_token = NULL;
	if ((int) ngroups > size)
	{
		JsonbParseState *t = NULL;
		JsonbValue	null = {.type = jbvNull};
		JsonbValue *root;

		pushJsonbValue(&t, WJB_BEGIN_OBJECT, NULL);
		json_push_int(&t, "composite", sources_hash(sources));
		json_push_key(&t, "after");
		pushJsonbValue(&t, WJB_BEGIN_ARRAY, NULL);
		for (int j = 0; j < n; j++)
			if (last_nulls[j])
				pushJsonbValue(&t, WJB_ELEM, &null);
			else
				json_push_string(&t, NULL, key_text(last_keys[j], src[j].type));
		pushJsonbValue(&t, WJB_END_ARRAY, NULL);
		root = pushJsonbValue(&t, WJB_END_OBJECT, NULL);
		page->next_token = search_token_encode(JsonbValueToJsonb(root));
	}
}
