/*-------------------------------------------------------------------------
 * src/search/search_agg.c
 *	  A search's aggregations and group-bys (Tablestore's aggs and
 *	  group_bys), computed over the rows its query matches, each one SQL
 *	  statement over the search index's storage in the search's connection
 *	  and role (search_exec.c).
 *
 * Request, as a list in the search query (each with a name, results in the
 * same order):
 *	  aggs: {"name", "type": "avg" | "max" | "min" | "sum" | "count" |
 *	         "distinct_count" | "percentiles" | "top_rows", "field_name",
 *	         "missing", "percentiles": [...], "limit", "sort"}
 *	  group_bys: {"name", "type": "field" | "range" | "filter" | "histogram" |
 *	              "date_histogram" | "geo_distance" | "geo_grid" | "composite",
 *	              ..., "sort", "sub_aggs": [...], "sub_group_bys": [...]}
 * (a request's members are read by agg_request.c, a histogram's buckets
 * made by agg_buckets.c, a composite's page by search_composite.c)
 * An array field's every value counts (a row with two values in one bucket
 * counts once there); "missing" stands in for a row without the field.
 * A DATE's values are milliseconds since 1970 in results, as Tablestore's.
 *
 * For a cluster's merge (q->for_merge: a shard's part, search_exec.c) each
 * result also carries what merging needs: an avg its sum and count, a sum
 * and avg whether they add doubles, a distinct_count its distinct values,
 * percentiles each value with its count, top_rows each row's place
 * (search_order.c); a group_by_field every group and the histograms every
 * bucket, min_doc_count and size applied after the merge.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/formatting.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "errors.h"
#include "format/request_fields.h"
#include "search/agg_buckets.h"
#include "search/agg_request.h"
#include "search/geo.h"
#include "search/json_build.h"
#include "search/search_composite.h"
#include "search/search_order.h"
#include "search/search_query.h"

#define AGG_MAX_DEPTH			4		/* group_bys nested in group_bys */
#define AGG_MAX_RANGES			100
#define AGG_MAX_TOP_ROWS		100

static void agg_list(AggRun *r, JsonbContainer *aggs, const char *bucket, JsonbParseState **st);
static void group_by_list(AggRun *r, JsonbContainer *group_bys, const char *bucket, int depth,
						  JsonbParseState **st);

/*
 * agg_from: the FROM and WHERE of the search's matching rows (s), within
 * bucket (NULL: all), with lateral (NULL: none) joined to each
 */
static char *
agg_from(AggRun *r, const char *bucket, const char *lateral)
{
	return psprintf("%s s%s%s WHERE (%s)%s%s%s", r->storage, lateral != NULL ? ", LATERAL " : "",
					lateral != NULL ? lateral : "", r->q->where.data,
					bucket != NULL ? " AND (" : "", bucket != NULL ? bucket : "", bucket != NULL ? ")" : "");
}

static char *
agg_rows(AggRun *r, const char *bucket)
{
	return agg_from(r, bucket, NULL);
}

/*
 * agg_value: field f's value in a matching row as SQL (a DATE's in
 * milliseconds, a GEO_POINT's as an array [x, y], which has equality),
 * missing standing in for a row without one, and in *lateral the FROM items
 * it needs (NULL: none, one value a row).  A sub-field of NESTED documents
 * (documents: their FROM items, value: its value in each; else NULL) has a
 * value for each document, missing standing in for a document without one;
 * an array field one for each element.
 */
static const char *
agg_value(AggRun *r, const SearchField *f, const char *documents, const char *value, JsonbContainer *obj,
		  const char **lateral)
{
	JsonbValue	m;
	const char *col = documents != NULL ? value : search_sql_column(r->q, f);
	const char *missing = NULL;
	const char *v;

	if (agg_member(obj, "missing", &m) != NULL)
		missing = psprintf("$%d", search_sql_param(r->q, search_sql_element_type(f),
													search_sql_value(f, &m, "missing")));
	if (f->is_array)
	{
		const char *elements = psprintf("pg_catalog.unnest(%s) e", missing != NULL ?
										psprintf("CASE WHEN pg_catalog.cardinality(%s) OPERATOR(pg_catalog.>) 0 THEN %s ELSE ARRAY[%s] END",
												 col, col, missing) : col);

		v = "e.e";
		*lateral = documents != NULL ? psprintf("%s, %s", documents, elements) : elements;
	}
	else
	{
		v = missing != NULL ? psprintf("coalesce(%s, %s)", col, missing) : col;
		*lateral = documents;
	}
	if (f->type == SEARCH_DATE)
		v = psprintf("%s OPERATOR(pg_catalog./) 1000000", v);
	else if (f->type == SEARCH_GEO_POINT)
		v = psprintf("CASE WHEN %s IS NOT NULL THEN ARRAY[(%s)[0], (%s)[1]] END", v, v, v);
	return v;
}

/*
 * agg_values: SQL of the values of field f (agg_value) in the matching rows
 * (bucket), as a relation of one column v; with_row, each with its row's
 * ctid (t)
 */
static char *
agg_values(AggRun *r, const SearchField *f, const char *documents, const char *value, JsonbContainer *obj,
		   const char *bucket, bool with_row)
{
	const char *lateral;
	const char *v = agg_value(r, f, documents, value, obj, &lateral);

	return psprintf("SELECT %s%s AS v FROM %s", with_row ? "s.ctid AS t, " : "", v, agg_from(r, bucket, lateral));
}

/* agg_type_name: a field type as Tablestore's aggregation messages spell it (geo_point) */
static const char *
agg_type_name(const SearchField *f)
{
	const char *name = search_field_type_name(f->type);

	return strcmp(name, "GEO_POINT") == 0 ? "geo_point" : asc_tolower(name, strlen(name));
}

/*
 * agg_check_type: a field (field_name, as the request names it) sum and
 * avg take (LONG, DOUBLE) or also min, max and percentiles take (DATE);
 * Tablestore's message, which the SDKs' tests match
 */
static void
agg_check_type(const SearchField *f, const char *field_name, const char *type, bool dates)
{
	if (f->type == SEARCH_LONG || f->type == SEARCH_DOUBLE || (dates && f->type == SEARCH_DATE))
		return;
	agg_refuse(psprintf("[%s agg] field_name:%s type:%s is invalid, allow [long, double%s]", type, field_name,
						agg_type_name(f), dates ? ", date" : ""));
}

/*
 * agg_top_rows: the first limit (1 by default, at most 100) matching rows
 * in the sort's order (the index's presort by default), their keys: their
 * columns are read as the search's columns_to_get says, with the page's
 * rows (ots.search_read_rows), as Tablestore's top rows carry
 */
static void
agg_top_rows(AggRun *r, JsonbContainer *agg, const char *bucket, JsonbParseState **st)
{
	double		limit = agg_number(agg, "limit", 1, "top_rows agg");
	JsonbValue	v;
	JsonbContainer *sorters;
	const char *order;
	char	   *sort_values;
	SearchOrder keys;
	uint64		n;

	if (!(limit >= 1 && limit <= AGG_MAX_TOP_ROWS && limit == floor(limit)))
		agg_refuse(psprintf("Invalid limit of top_rows agg: 1 to %d.", AGG_MAX_TOP_ROWS));
	if (agg_member(agg, "sort", &v) != NULL)
	{
		if (agg_member(agg_object(&v, "sort of top_rows agg"), "sorters", &v) == NULL)
			agg_refuse("Missing sorters of the sort of top_rows agg.");
		if (v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data))
			agg_refuse("Invalid sorters of the sort of top_rows agg: it is not an array.");
		sorters = v.val.binary.data;
	}
	else
		sorters = &search_presort_jsonb(&r->q->si->schema)->root;
	order = search_sql_order(r->q, sorters, &sort_values, &keys);
	n = agg_run(r, psprintf("SELECT %s, %s, pg_catalog.jsonb_build_array(%s) FROM %s ORDER BY %s LIMIT %d",
							search_sql_key_json(r->q->t, false), search_sql_key_json(r->q->t, true), sort_values,
							agg_rows(r, bucket), order, (int) limit));
	json_push_key(st, "rows");
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (uint64 i = 0; i < n; i++)
	{
		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		json_push_jsonb(st, "primary_key", agg_jsonb(i, 1));
		if (r->q->for_merge)
			json_push_string(st, "$order", search_order_key(&keys, r->q->t, agg_jsonb(i, 3), agg_jsonb(i, 2)));
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
}

/* agg_one computes one aggregation within bucket and pushes its result object */
/*
 * agg_field: the field an aggregation of type reads, a top-level field or a
 * NESTED field's documents' sub-field (*documents, *value: agg_values),
 * refused in Tablestore's words (which the SDKs' tests match) when there is
 * none or the aggregation does not take its type
 */
static const SearchField *
agg_field(AggRun *r, JsonbContainer *agg, const char *type, char **documents, const char **value)
{
	const char *field_name = agg_string(agg, "field_name", psprintf("%s agg", type));
	const SearchField *f;

	*documents = NULL;
	*value = NULL;
	if (search_field_find(&r->q->si->schema, field_name) != NULL)
		f = search_sql_field(r->q, agg, psprintf("%s agg", type));
	else if ((f = search_sql_nested_field(r->q, field_name, documents, value)) == NULL)
		agg_refuse(psprintf("[%s agg] field: %s does not exist", strcmp(type, "distinct_count") == 0 ? "distinct count" : type,
							field_name));
	/* every value but a text's or a document's is counted (a point's too); the others', before their missing is read */
	if ((f->type == SEARCH_TEXT || f->type == SEARCH_NESTED) &&
		(strcmp(type, "count") == 0 || strcmp(type, "distinct_count") == 0))
		agg_refuse(psprintf("[%s agg] field_name:%s type:%s is invalid", type, field_name, agg_type_name(f)));
	if (strcmp(type, "avg") == 0 || strcmp(type, "sum") == 0)
		agg_check_type(f, field_name, type, false);
	else if (strcmp(type, "max") == 0 || strcmp(type, "min") == 0 || strcmp(type, "percentiles") == 0)
		agg_check_type(f, field_name, type, true);
	return f;
}

/*
 * agg_single: a one-value aggregation's result as jsonb over the values v
 * (x.v of agg_values, or agg_value's expression), or NULL for a type that
 * has several or none
 */
static const char *
agg_single(const char *type, const char *v)
{
	if (strcmp(type, "avg") == 0)
		return psprintf("pg_catalog.to_jsonb(pg_catalog.avg(%s)::pg_catalog.float8)", v);
	if (strcmp(type, "sum") == 0)
		return psprintf("pg_catalog.to_jsonb(coalesce(pg_catalog.sum(%s), 0))", v);
	if (strcmp(type, "max") == 0 || strcmp(type, "min") == 0)
		return psprintf("pg_catalog.to_jsonb(pg_catalog.%s(%s))", type, v);
	if (strcmp(type, "count") == 0)
		return psprintf("pg_catalog.to_jsonb(pg_catalog.count(%s))", v);
	if (strcmp(type, "distinct_count") == 0)
		return psprintf("pg_catalog.to_jsonb(pg_catalog.count(DISTINCT %s))", v);
	return NULL;
}

static void
agg_one(AggRun *r, JsonbContainer *agg, const char *bucket, JsonbParseState **st)
{
	static const char *const fields[] = {"name", "type", "field_name", "missing", "percentiles", "limit", "sort"};
	static const RequestFields agg_object_fields = REQUEST_FIELDS("an aggregation", fields);
	const char *name = agg_string(agg, "name", "an aggregation");
	const char *type = agg_string(agg, "type", "an aggregation");
	const SearchField *f;
	const char *values;
	char	   *documents;
	const char *value;
	char	   *sql;

	request_fields_check(agg, &agg_object_fields, "aggregation '%s'", name);
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	json_push_string(st, "name", name);
	json_push_string(st, "type", type);
	if (strcmp(type, "top_rows") == 0)
	{
		agg_top_rows(r, agg, bucket, st);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
		return;
	}
	f = agg_field(r, agg, type, &documents, &value);
	values = agg_values(r, f, documents, value, agg, bucket, false);
	if (r->q->for_merge && (strcmp(type, "avg") == 0 || strcmp(type, "sum") == 0))
	{
		/* an avg is merged from the sums and counts (columns 2 and 3), doubles added as doubles */
		agg_run(r, psprintf("SELECT %s, pg_catalog.to_jsonb(coalesce(pg_catalog.sum(x.v), 0)),"
							" pg_catalog.to_jsonb(pg_catalog.count(x.v)) FROM (%s) x", agg_single(type, "x.v"), values));
		json_push_jsonb(st, "value", agg_jsonb(0, 1));
		if (strcmp(type, "avg") == 0)
		{
			json_push_jsonb(st, "sum", agg_jsonb(0, 2));
			json_push_jsonb(st, "count", agg_jsonb(0, 3));
		}
		json_push_bool(st, "double", f->type == SEARCH_DOUBLE);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
		return;
	}
	if (r->q->for_merge && strcmp(type, "distinct_count") == 0)
	{
		/* the distinct values, which the merge counts once each */
		agg_run(r, psprintf("SELECT %s, coalesce(pg_catalog.jsonb_agg(DISTINCT pg_catalog.to_jsonb(x.v))"
							" FILTER (WHERE x.v IS NOT NULL), '[]') FROM (%s) x", agg_single(type, "x.v"), values));
		json_push_jsonb(st, "value", agg_jsonb(0, 1));
		json_push_jsonb(st, "values", agg_jsonb(0, 2));
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
		return;
	}
	if (strcmp(type, "percentiles") == 0)
	{
		JsonbContainer *ps = agg_array(agg, "percentiles", "percentiles agg");
		int			n = ps != NULL ? JsonContainerSize(ps) : 0;
		JsonbValue	given;
		int			pk;

		if (n < 1 || n > AGG_MAX_RANGES)
			agg_refuse(psprintf("Invalid percentiles of percentiles agg '%s': 1 to %d numbers from 0 to 100.",
								name, AGG_MAX_RANGES));
		for (int i = 0; i < n; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(ps, i);
			double		p;

			if (e->type != jbvNumeric)
				agg_refuse(psprintf("Invalid percentiles of percentiles agg '%s': 1 to %d numbers from 0 to 100.",
									name, AGG_MAX_RANGES));
			p = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(e->val.numeric)));
			if (!(p >= 0 && p <= 100))
				agg_refuse(psprintf("Invalid percentiles of percentiles agg '%s': 1 to %d numbers from 0 to 100.",
									name, AGG_MAX_RANGES));
		}
		/*
		 * Tablestore's (Elasticsearch's) percentile on exact data: at
		 * position p/100 * (count - 1) of the sorted values, interpolated
		 * between the two values around it (numeric, exact for any
		 * LONG), a LONG's or DATE's truncated toward zero; each key as
		 * given, in ascending order
		 */
		(void) agg_member(agg, "percentiles", &given);
		pk = search_sql_param(r->q, JSONBOID, JsonbPGetDatum(JsonbValueToJsonb(&given)));
		sql = psprintf("SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('key', p.k, 'value', %s) ORDER BY p.k, p.n)"
					   " FROM (SELECT pg_catalog.array_agg(x.v ORDER BY x.v) AS a FROM (%s) x WHERE x.v IS NOT NULL) s,"
					   " LATERAL (SELECT e.k, e.n, (pg_catalog.floor(e.pos) OPERATOR(pg_catalog.+) 1)::pg_catalog.int4 AS lo,"
					   " (pg_catalog.ceil(e.pos) OPERATOR(pg_catalog.+) 1)::pg_catalog.int4 AS hi,"
					   " e.pos OPERATOR(pg_catalog.-) pg_catalog.floor(e.pos) AS frac"
					   " FROM (SELECT j.k, j.n, ((j.k OPERATOR(pg_catalog.#>>) '{}')::pg_catalog.numeric OPERATOR(pg_catalog./) 100)"
					   " OPERATOR(pg_catalog.*) (pg_catalog.cardinality(s.a) OPERATOR(pg_catalog.-) 1) AS pos"
					   " FROM pg_catalog.jsonb_array_elements($%d) WITH ORDINALITY AS j(k, n)) e) p",
					   f->type == SEARCH_DOUBLE ?
					   /*
						* OPERATOR() forms all bind alike, left to right:
						* parenthesized.  A DOUBLE's halves are subtracted,
						* which cannot overflow (-1e308 to 1e308), then the
						* difference's share taken twice: the same rounding
						*/
					   "s.a[p.lo] OPERATOR(pg_catalog.+) (((s.a[p.hi] OPERATOR(pg_catalog.*) 0.5::pg_catalog.float8)"
					   " OPERATOR(pg_catalog.-) (s.a[p.lo] OPERATOR(pg_catalog.*) 0.5::pg_catalog.float8))"
					   " OPERATOR(pg_catalog.*) (2 OPERATOR(pg_catalog.*) p.frac)::pg_catalog.float8)" :
					   "pg_catalog.trunc(s.a[p.lo]::pg_catalog.numeric OPERATOR(pg_catalog.+) ((s.a[p.hi]::pg_catalog.numeric"
					   " OPERATOR(pg_catalog.-) s.a[p.lo]::pg_catalog.numeric) OPERATOR(pg_catalog.*) p.frac))::pg_catalog.int8",
					   values, pk);
		agg_run(r, sql);
		json_push_jsonb(st, "items", agg_jsonb(0, 1));
		if (r->q->for_merge)
		{
			/* each value with its count, which the merge finds the percentiles in */
			agg_run(r, psprintf("SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_array(pg_catalog.to_jsonb(y.v), y.n) ORDER BY y.v), '[]')"
								" FROM (SELECT x.v, pg_catalog.count(*) AS n FROM (%s) x WHERE x.v IS NOT NULL GROUP BY 1) y",
								values));
			json_push_jsonb(st, "values", agg_jsonb(0, 1));
			json_push_bool(st, "double", f->type == SEARCH_DOUBLE);
		}
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
		return;
	}
	if (agg_single(type, "x.v") == NULL)
		agg_refuse(psprintf("Invalid type of aggregation '%s': '%s'.", name, type));
	agg_run(r, psprintf("SELECT %s FROM (%s) x", agg_single(type, "x.v"), values));
	json_push_jsonb(st, "value", agg_jsonb(0, 1));
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

static void
agg_list(AggRun *r, JsonbContainer *aggs, const char *bucket, JsonbParseState **st)
{
	agg_names_distinct(aggs, "aggs");
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < (int) JsonContainerSize(aggs); i++)
		agg_one(r, agg_object(getIthJsonbValueFromContainer(aggs, i), "aggs"), bucket, st);
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
}

/* ---------------------------------------------------------------- group-bys */

/* group_subs: a bucket's sub_aggs and sub_group_bys, within condition */
static void
group_subs(AggRun *r, JsonbContainer *g, const char *condition, int depth, JsonbParseState **st)
{
	JsonbContainer *sub_aggs = agg_array(g, "sub_aggs", "group_by");
	JsonbContainer *sub_group_bys = agg_array(g, "sub_group_bys", "group_by");

	if (sub_aggs != NULL)
	{
		json_push_key(st, "sub_aggs");
		agg_list(r, sub_aggs, condition, st);
	}
	if (sub_group_bys != NULL)
	{
		json_push_key(st, "sub_group_bys");
		group_by_list(r, sub_group_bys, condition, depth + 1, st);
	}
}

/* group_and: bucket and another condition */
static char *
group_and(const char *bucket, const char *condition)
{
	return bucket != NULL ? psprintf("(%s) AND (%s)", bucket, condition) : pstrdup(condition);
}

/*
 * group_order: the ORDER BY of a group-by's buckets, selected as (key,
 * row count, ...): its sorters (group_key_sort, row_count_sort, each ASC or
 * DESC), then dflt (the keys' order settles ties); NULL when one sorts by a
 * sub-aggregation, which the statement cannot (group_field_order)
 */
static const char *
group_order(JsonbContainer *g, const char *what, const char *dflt)
{
	StringInfoData order;
	int			n;
	GroupSorter *list = group_sorter_list(g, what, &n);

	initStringInfo(&order);
	for (int j = 0; j < n; j++)
	{
		if (list[j].kind == 'a')
			return NULL;
		appendStringInfo(&order, "%s%s %s", order.len > 0 ? ", " : "", list[j].kind == 'c' ? "2" : "1",
						 list[j].desc ? "DESC" : "ASC");
	}
	appendStringInfo(&order, "%s%s", order.len > 0 ? ", " : "", dflt);
	return order.data;
}

/*
 * A group_by_field sorted by a sub-aggregation's value: every group's place
 * by its key, its row count and the values of the sub-aggregations sorted by
 */
typedef struct FieldGroup
{
	int			n;				/* its place by key ascending */
	int64		count;
	double	   *values;			/* per sorter (NaN: none) */
} FieldGroup;

/* field_group_cmp: qsort_arg's comparison of two groups by the sorters (arg, ending in a key sorter) */
static int
field_group_cmp(const void *a, const void *b, void *arg)
{
	const FieldGroup *x = a;
	const FieldGroup *y = b;
	const GroupSorter *sorters = arg;

	for (int i = 0;; i++)
	{
		const GroupSorter *s = &sorters[i];
		int			c = 0;

		if (s->kind == 'k')
			c = x->n < y->n ? -1 : x->n > y->n;
		else if (s->kind == 'c')
			c = x->count < y->count ? -1 : x->count > y->count;
		else if (isnan(x->values[i]) || isnan(y->values[i]))
		{
			/* a bucket without the value last, either way */
			if (isnan(x->values[i]) != isnan(y->values[i]))
				return isnan(x->values[i]) ? 1 : -1;
			continue;
		}
		else
			c = x->values[i] < y->values[i] ? -1 : x->values[i] > y->values[i];
		if (c != 0)
			return s->desc ? -c : c;
		if (s->kind == 'k')
			return 0;			/* the keys differ but for the same group */
	}
}

/*
 * The groups of a group_by_field, for sub_agg_sort values the grouping
 * statement cannot compute: each matching row's key (key) in the rows of
 * from (the FROM and WHERE of the grouping statement), and the rows a group
 * needs
 */
typedef struct FieldGroups
{
	const char *key;
	const char *from;
	int64		min_rows;
} FieldGroups;

/* agg_float: a result's jsonb number as a double, NaN when it is none */
static double
agg_float(int row, int col)
{
	Jsonb	   *j = agg_jsonb(row, col);
	JsonbValue	v;

	return j != NULL && JsonbExtractScalar(&j->root, &v) && v.type == jbvNumeric ?
		DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v.val.numeric))) : NAN;
}

/*
 * group_sorter_value: the SQL of a sorting sub-aggregation's value in a
 * group of the grouping statement, which groups rows s by one key each:
 * when its field has one value a row, else NULL (group_sub_agg_values)
 */
static const char *
group_sorter_value(AggRun *r, JsonbContainer *agg)
{
	const char *type = agg_string(agg, "type", "a sub-aggregation");
	char	   *documents;
	const char *value;
	const SearchField *f = agg_field(r, agg, type, &documents, &value);
	const char *lateral;
	const char *v = agg_value(r, f, documents, value, agg, &lateral);

	return lateral == NULL ? agg_single(type, v) : NULL;
}

/*
 * group_sub_agg_values: a one-value sub-aggregation's value (NaN: none) in
 * each of the n groups of a group_by_field, in the grouping statement's
 * order (key ascending), by one statement: each row of a group (an array's
 * or documents' key may repeat in a row) joined to its values; a group
 * whose rows have none keeps its row, and sum's and count's 0
 */
static double *
group_sub_agg_values(AggRun *r, JsonbContainer *agg, const char *bucket, const FieldGroups *fg, int n)
{
	const char *type = agg_string(agg, "type", "a sub-aggregation");
	char	   *documents;
	const char *value;
	const SearchField *f = agg_field(r, agg, type, &documents, &value);
	double	   *out = palloc(sizeof(double) * Max(n, 1));

	if (agg_run(r, psprintf("SELECT %s FROM (SELECT DISTINCT s.ctid AS t, %s AS k FROM %s) g"
							" LEFT JOIN (%s) x ON x.t OPERATOR(pg_catalog.=) g.t"
							" GROUP BY g.k HAVING pg_catalog.count(DISTINCT g.t) OPERATOR(pg_catalog.>=) %ld"
							" ORDER BY g.k",
							agg_single(type, "x.v"), fg->key, fg->from,
							agg_values(r, f, documents, value, agg, bucket, true), (long) fg->min_rows)) != (uint64) n)
		elog(ERROR, "a group_by_field's sub_agg_sort found another number of groups than %d", n);
	for (int i = 0; i < n; i++)
		out[i] = agg_float(i, 1);
	return out;
}

/*
 * group_field_order: the order n groups (by key ascending, with their row
 * counts) are shown in, *nemit of them.  size < 0: as they are (the
 * statement sorted and cut them, or a merge will); else sorted by the
 * nsorters sorters of list, a sub_agg_sort by its sub-aggregation's value
 * in each group (values[j], from the grouping statement, or else one more
 * statement over fg's rows), then the most rows, then the key, and cut to
 * size.
 */
static int *
group_field_order(AggRun *r, GroupSorter *list, int nsorters, double **values, const char *bucket,
				  int n, const int64 *counts, const FieldGroups *fg, int *nemit, int size)
{
	int		   *emit = palloc(sizeof(int) * Max(n, 1));
	FieldGroup *sorted;

	*nemit = n;
	for (int i = 0; i < n; i++)
		emit[i] = i;
	if (size < 0)
		return emit;
	sorted = palloc(sizeof(FieldGroup) * Max(n, 1));
	list[nsorters] = (GroupSorter) {.kind = 'c', .desc = true};
	list[nsorters + 1] = (GroupSorter) {.kind = 'k', .desc = false};
	for (int j = 0; j < nsorters; j++)
		if (list[j].kind == 'a' && values[j] == NULL)
			values[j] = group_sub_agg_values(r, list[j].sub_agg, bucket, fg, n);
	for (int i = 0; i < n; i++)
	{
		sorted[i].n = i;
		sorted[i].count = counts[i];
		sorted[i].values = palloc(sizeof(double) * (nsorters + 2));
		for (int j = 0; j < nsorters + 2; j++)
			sorted[i].values[j] = j < nsorters && values[j] != NULL ? values[j][i] : NAN;
	}
	qsort_arg(sorted, n, sizeof(FieldGroup), field_group_cmp, list);
	*nemit = Min(n, size);
	for (int k = 0; k < *nemit; k++)
		emit[k] = sorted[k].n;
	return emit;
}

/*
 * group_by_field: a bucket per value of the field (most rows first, then
 * the keys ascending, unless sorted), size of them, each with its row
 * count and subs.  A sub-field of NESTED documents (path.field) groups by
 * its values in a row's documents; a row counts once in a bucket.
 */
static void
group_by_field(AggRun *r, JsonbContainer *g, const char *bucket, int depth, JsonbParseState **st)
{
	const char *field_name = agg_string(g, "field_name", "group_by_field");
	char	   *documents = NULL;
	const char *value = NULL;
	const SearchField *f;
	double		size = agg_number(g, "size", AGG_DEFAULT_GROUPS, "group_by_field");
	int64		min_doc_count = agg_count(g, "min_doc_count", "group_by_field");
	const char *col;
	const char *key;
	const char *lateral;
	const char *order;
	const char *rows;
	char	   *sql;
	bool		by_sub_agg;
	uint64		n;
	Datum	   *keys;
	Jsonb	  **shown;
	int64	   *counts;
	char	  **conditions;
	const char *from;
	FieldGroups fg;
	GroupSorter *sorters = NULL;
	int			nsorters = 0;
	int		   *sorter_cols = NULL;
	double	  **sorter_values;
	StringInfoData sorter_sql;
	int		   *emit;
	int			nemit;

	if (search_field_find(&r->q->si->schema, field_name) != NULL ||
		(f = search_sql_nested_field(r->q, field_name, &documents, &value)) == NULL)
		f = search_sql_field(r->q, g, "group_by_field");
	col = documents != NULL ? value : search_sql_column(r->q, f);
	key = f->is_array ? "e.e" : col;
	if (f->type == SEARCH_TEXT || f->type == SEARCH_NESTED || f->type == SEARCH_GEO_POINT)
		agg_refuse(psprintf("[group_by_field] field_name:%s type:%s is invalid", field_name, agg_type_name(f)));
	/* a DATE's group is its millisecond, the key it is shown by */
	if (f->type == SEARCH_DATE)
		key = psprintf("(%s OPERATOR(pg_catalog./) 1000000)", key);
	if (size < 1 || size > AGG_MAX_GROUPS || size != floor(size))
		agg_refuse(psprintf("Invalid size of group_by_field: 1 to %d.", AGG_MAX_GROUPS));
	/* sorted by a sub-aggregation: every group by its key, sorted below */
	order = group_order(g, "group_by_field", "2 DESC, 1 ASC");
	by_sub_agg = order == NULL;
	if (by_sub_agg)
		order = "1 ASC";
	/* a row counts once in a bucket: an array's or documents' values may repeat, a scalar's may not */
	rows = f->is_array || documents != NULL ? "pg_catalog.count(DISTINCT s.ctid)" : "pg_catalog.count(*)";
	lateral = f->is_array ? psprintf("pg_catalog.unnest(%s) e", col) : NULL;
	if (documents != NULL)
		lateral = lateral != NULL ? psprintf("%s, %s", documents, lateral) : documents;
	from = psprintf("%s%s", agg_from(r, bucket, lateral), f->is_array ? "" : psprintf(" AND %s IS NOT NULL", col));
	/*
	 * sorted by sub-aggregations: the values of those of one value a row
	 * come with the groups when a row has one key (columns 4, ...)
	 */
	initStringInfo(&sorter_sql);
	if (by_sub_agg && !r->q->for_merge)
	{
		sorters = group_sorter_list(g, "group_by_field", &nsorters);
		sorter_cols = palloc0(sizeof(int) * Max(nsorters, 1));
		for (int j = 0, c = 4; j < nsorters; j++)
		{
			const char *v = sorters[j].kind == 'a' && lateral == NULL ? group_sorter_value(r, sorters[j].sub_agg) : NULL;

			if (v != NULL)
			{
				appendStringInfo(&sorter_sql, ", %s", v);
				sorter_cols[j] = c++;
			}
		}
	}
	/* a part for a merge: every group, which another shard's may outnumber */
	sql = psprintf("SELECT %s AS k, %s AS c, pg_catalog.to_jsonb(%s)%s"
				   " FROM %s GROUP BY 1 HAVING %s OPERATOR(pg_catalog.>=) %ld"
				   " ORDER BY %s%s",
				   key, rows, key, sorter_sql.data, from,
				   rows, r->q->for_merge ? 1L : (long) min_doc_count, order,
				   r->q->for_merge || by_sub_agg ? "" : psprintf(" LIMIT %d", (int) size));
	n = agg_run(r, sql);
	keys = palloc(sizeof(Datum) * Max(n, 1));
	shown = palloc(sizeof(Jsonb *) * Max(n, 1));
	counts = palloc(sizeof(int64) * Max(n, 1));
	conditions = palloc(sizeof(char *) * Max(n, 1));
	sorter_values = palloc0(sizeof(double *) * Max(nsorters, 1));
	for (int j = 0; j < nsorters; j++)
		if (sorter_cols[j] > 0)
			sorter_values[j] = palloc(sizeof(double) * Max(n, 1));
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;

		keys[i] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
		counts[i] = agg_int(i, 2);
		shown[i] = agg_jsonb(i, 3);
		for (int j = 0; j < nsorters; j++)
			if (sorter_cols[j] > 0)
				sorter_values[j][i] = agg_float(i, sorter_cols[j]);
	}
	for (uint64 i = 0; i < n; i++)
	{
		int			p = search_sql_param(r->q, search_sql_element_type(f), keys[i]);

		conditions[i] = f->type == SEARCH_DATE ?
			(f->is_array ? psprintf("EXISTS (SELECT 1 FROM pg_catalog.unnest(%s) e WHERE %s OPERATOR(pg_catalog.=) $%d)", col, key, p) :
			 psprintf("%s OPERATOR(pg_catalog.=) $%d", key, p)) :
			f->is_array ? psprintf("$%d OPERATOR(pg_catalog.=) ANY (%s)", p, col) :
			psprintf("%s OPERATOR(pg_catalog.=) $%d", col, p);
		/* a row is in a documents' bucket when one of its documents is */
		if (documents != NULL)
			conditions[i] = psprintf("EXISTS (SELECT 1 FROM %s WHERE %s)", documents, conditions[i]);
	}
	/* the groups' rows as the grouping statement reads them, for the other sub_agg_sorts' values */
	fg.key = key;
	fg.from = from;
	fg.min_rows = Max(min_doc_count, 1);
	emit = group_field_order(r, sorters, nsorters, sorter_values, bucket, (int) n, counts, &fg, &nemit,
							 by_sub_agg && !r->q->for_merge ? (int) size : -1);
	json_push_key(st, "items");
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (int k = 0; k < nemit; k++)
	{
		int			i = emit[k];

		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		json_push_jsonb(st, "key", shown[i]);
		json_push_int(st, "row_count", counts[i]);
		group_subs(r, g, group_and(bucket, conditions[i]), depth, st);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
}

/* a range's bounds, absent ones infinite, and its place in the request */
typedef struct RangeBounds
{
	double		from;
	double		to;
	int			n;
} RangeBounds;

static int
range_bounds_cmp(const void *a, const void *b)
{
	const RangeBounds *x = a;
	const RangeBounds *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->n - y->n;
}

/*
 * group_ranges: buckets [from, to) of a number per row (expr; an array
 * field's values: any of them), each with its row count and subs.  As
 * Tablestore's: a group_by_range's buckets by from, then to (an absent
 * from first, an absent to last); a group_by_geo_distance's in the
 * request's order, an absent from shown as 0 (no distance is less).
 */
static void
group_ranges(AggRun *r, JsonbContainer *g, const char *bucket, int depth, const char *what,
			 const char *(*value_in) (AggRun *r, JsonbContainer *g, const char *lo, const char *hi),
			 JsonbParseState **st)
{
	JsonbContainer *ranges = agg_array(g, "ranges", what);
	int			n = ranges != NULL ? JsonContainerSize(ranges) : 0;
	bool		geo = strcmp(what, "group_by_geo_distance") == 0;
	char	  **conditions;
	RangeBounds *order;
	StringInfoData sql;

	if (n < 1 || n > AGG_MAX_RANGES)
		agg_refuse(psprintf("Invalid ranges of %s: 1 to %d of them.", what, AGG_MAX_RANGES));
	conditions = palloc(sizeof(char *) * n);
	order = palloc(sizeof(RangeBounds) * n);
	initStringInfo(&sql);
	appendStringInfoString(&sql, "SELECT ");
	for (int i = 0; i < n; i++)
	{
		JsonbContainer *range = agg_object(getIthJsonbValueFromContainer(ranges, i), "range");
		JsonbValue	v;
		const char *lo = agg_member(range, "from", &v) != NULL ?
			psprintf("$%d", search_sql_param(r->q, FLOAT8OID, Float8GetDatum(agg_number(range, "from", 0, what)))) : NULL;
		const char *hi = agg_member(range, "to", &v) != NULL ?
			psprintf("$%d", search_sql_param(r->q, FLOAT8OID, Float8GetDatum(agg_number(range, "to", 0, what)))) : NULL;

		conditions[i] = (char *) value_in(r, g, lo, hi);
		appendStringInfo(&sql, "%spg_catalog.count(*) FILTER (WHERE %s)", i > 0 ? ", " : "", conditions[i]);
		order[i].from = lo != NULL ? agg_number(range, "from", 0, what) : -INFINITY;
		order[i].to = hi != NULL ? agg_number(range, "to", 0, what) : INFINITY;
		order[i].n = i;
	}
	if (!geo)
		qsort(order, n, sizeof(RangeBounds), range_bounds_cmp);
	appendStringInfo(&sql, " FROM %s", agg_rows(r, bucket));
	agg_run(r, sql.data);
	{
		int64	   *counts = palloc(sizeof(int64) * n);

		for (int i = 0; i < n; i++)
			counts[i] = agg_int(0, i + 1);
		json_push_key(st, "items");
		pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
		for (int k = 0; k < n; k++)
		{
			int			i = order[k].n;
			JsonbContainer *range = agg_object(getIthJsonbValueFromContainer(ranges, i), "range");
			JsonbValue	v;

			pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
			json_push_key(st, "from");
			if (agg_member(range, "from", &v) == NULL)
			{
				if (geo)
				{
					v.type = jbvNumeric;
					v.val.numeric = int64_to_numeric(0);
				}
				else
					v.type = jbvNull;
			}
			pushJsonbValue(st, WJB_VALUE, &v);
			json_push_key(st, "to");
			if (agg_member(range, "to", &v) == NULL)
				v.type = jbvNull;
			pushJsonbValue(st, WJB_VALUE, &v);
			json_push_int(st, "row_count", counts[i]);
			group_subs(r, g, group_and(bucket, conditions[i]), depth, st);
			pushJsonbValue(st, WJB_END_OBJECT, NULL);
		}
		pushJsonbValue(st, WJB_END_ARRAY, NULL);
	}
}

/* range_value_in: a row's field (one of its values) in [lo, hi) */
static const char *
range_value_in(AggRun *r, JsonbContainer *g, const char *lo, const char *hi)
{
	const SearchField *f = search_sql_field(r->q, g, "group_by_range");
	const char *e = f->is_array ? "e.e" : search_sql_column(r->q, f);
	const char *v = f->type == SEARCH_DATE ? psprintf("(%s OPERATOR(pg_catalog./) 1000000)", e) : e;
	const char *c = psprintf("%s IS NOT NULL%s%s%s%s", e,
							 lo != NULL ? psprintf(" AND %s::pg_catalog.float8 OPERATOR(pg_catalog.>=) ", v) : "", lo != NULL ? lo : "",
							 hi != NULL ? psprintf(" AND %s::pg_catalog.float8 OPERATOR(pg_catalog.<) ", v) : "", hi != NULL ? hi : "");

	if (f->type != SEARCH_LONG && f->type != SEARCH_DOUBLE && f->type != SEARCH_DATE)
		agg_refuse(psprintf("[group_by_range] field_name:%s type:%s is invalid, allow [long, double, date]", f->name,
							search_field_type_name(f->type)));
	return f->is_array ? psprintf("EXISTS (SELECT 1 FROM pg_catalog.unnest(%s) e WHERE %s)", search_sql_column(r->q, f), c) : c;
}

/* geo_value_in: a row's point within [lo, hi) meters of the group-by's origin */
static const char *
geo_value_in(AggRun *r, JsonbContainer *g, const char *lo, const char *hi)
{
	const SearchField *f = search_sql_field(r->q, g, "group_by_geo_distance");
	JsonbValue	v;
	JsonbContainer *origin;
	Point	   *p = palloc(sizeof(Point));
	const char *d;

	if (f->type != SEARCH_GEO_POINT || f->is_array)
		agg_refuse(psprintf("[group_by_geo_distance] field_name:%s type:%s is invalid, allow [geo_point]", f->name,
							search_field_type_name(f->type)));
	if (agg_member(g, "origin", &v) == NULL)
		agg_refuse("Missing origin of group_by_geo_distance.");
	origin = agg_object(&v, "origin of group_by_geo_distance");
	p->y = agg_number(origin, "lat", NAN, "origin");
	p->x = agg_number(origin, "lon", NAN, "origin");
	if (!(p->y >= -90 && p->y <= 90 && p->x >= -180 && p->x <= 180))
		agg_refuse("Invalid origin of group_by_geo_distance: lat in [-90, 90], lon in [-180, 180].");
	d = psprintf("ots.search_geo_distance(%s, $%d)", search_sql_column(r->q, f),
				 search_sql_param(r->q, POINTOID, PointPGetDatum(p)));
	return psprintf("%s IS NOT NULL%s%s%s%s", search_sql_column(r->q, f),
					lo != NULL ? psprintf(" AND %s OPERATOR(pg_catalog.>=) ", d) : "", lo != NULL ? lo : "",
					hi != NULL ? psprintf(" AND %s OPERATOR(pg_catalog.<) ", d) : "", hi != NULL ? hi : "");
}

static void
group_by_filter(AggRun *r, JsonbContainer *g, const char *bucket, int depth, JsonbParseState **st)
{
	JsonbContainer *filters = agg_array(g, "filters", "group_by_filter");
	int			n = filters != NULL ? JsonContainerSize(filters) : 0;
	char	  **conditions;
	StringInfoData sql;

	if (n < 1 || n > AGG_MAX_RANGES)
		agg_refuse(psprintf("Invalid filters of group_by_filter: 1 to %d queries.", AGG_MAX_RANGES));
	conditions = palloc(sizeof(char *) * n);
	initStringInfo(&sql);
	appendStringInfoString(&sql, "SELECT ");
	for (int i = 0; i < n; i++)
	{
		conditions[i] = psprintf("coalesce(%s, false)",
								 search_sql_condition(r->q, agg_object(getIthJsonbValueFromContainer(filters, i), "filter")));
		appendStringInfo(&sql, "%spg_catalog.count(*) FILTER (WHERE %s)", i > 0 ? ", " : "", conditions[i]);
	}
	appendStringInfo(&sql, " FROM %s", agg_rows(r, bucket));
	agg_run(r, sql.data);
	{
		int64	   *counts = palloc(sizeof(int64) * n);

		for (int i = 0; i < n; i++)
			counts[i] = agg_int(0, i + 1);
		json_push_key(st, "items");
		pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
		for (int i = 0; i < n; i++)
		{
			pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
			json_push_int(st, "row_count", counts[i]);
			group_subs(r, g, group_and(bucket, conditions[i]), depth, st);
			pushJsonbValue(st, WJB_END_OBJECT, NULL);
		}
		pushJsonbValue(st, WJB_END_ARRAY, NULL);
	}
}

/*
 * group_numbered: the buckets of a histogram (b), each the values within
 * range whose bucket number is the same, shown by their key as member
 * b->key_name; a row counts once in a bucket.  The number is what groups the
 * rows and what each bucket's sub-aggregations select by, one expression,
 * so both see the same rows whatever floats round to.  Ascending unless
 * sorted; at most AGG_MAX_GROUPS buckets.
 */
static void
group_numbered(AggRun *r, JsonbContainer *g, const char *bucket, int depth, const char *what,
			   const NumberedBuckets *b, JsonbParseState **st)
{
	int64		min_doc_count = agg_count(g, "min_doc_count", what);
	const char *order = group_order(g, what, "1 ASC");
	char	   *sql;
	uint64		n;
	Jsonb	  **keys;
	int64	   *counts;
	int64	   *ks;

	sql = psprintf("SELECT y.k, y.c, pg_catalog.to_jsonb(%s)"
				   " FROM (SELECT %s AS k, pg_catalog.count(DISTINCT s.ctid) AS c FROM %s"
				   " AND e.e IS NOT NULL AND %s GROUP BY 1 HAVING pg_catalog.count(DISTINCT s.ctid) OPERATOR(pg_catalog.>=) %ld) y"
				   " ORDER BY %s LIMIT %d",
				   b->key, b->number, agg_from(r, bucket, psprintf("pg_catalog.unnest(%s) e", b->values)), b->in_range,
				   r->q->for_merge ? 1L : (long) min_doc_count, order, AGG_MAX_GROUPS + 1);
	n = agg_run(r, sql);
	if (n > AGG_MAX_GROUPS)
		agg_refuse(psprintf("%s has more than %d buckets: a larger interval, or a field_range.", what, AGG_MAX_GROUPS));
	keys = palloc(sizeof(Jsonb *) * Max(n, 1));
	counts = palloc(sizeof(int64) * Max(n, 1));
	ks = palloc(sizeof(int64) * Max(n, 1));
	for (uint64 i = 0; i < n; i++)
	{
		ks[i] = agg_int(i, 1);
		counts[i] = agg_int(i, 2);
		keys[i] = agg_jsonb(i, 3);
	}
	/* the merge refuses as many buckets of the shards together */
	if (r->q->for_merge)
		json_push_int(st, "max_buckets", AGG_MAX_GROUPS);
	json_push_key(st, "items");
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (uint64 i = 0; i < n; i++)
	{
		int			pk = search_sql_param(r->q, INT8OID, Int64GetDatum(ks[i]));

		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		json_push_jsonb(st, b->key_name, keys[i]);
		json_push_int(st, "row_count", counts[i]);
		group_subs(r, g, group_and(bucket, psprintf("EXISTS (SELECT 1 FROM pg_catalog.unnest(%s) e WHERE e.e IS NOT NULL AND %s AND %s OPERATOR(pg_catalog.=) $%d)",
													b->values, b->in_range, b->number, pk)), depth, st);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
}

static void
group_by_histogram(AggRun *r, JsonbContainer *g, const char *bucket, int depth, JsonbParseState **st)
{
	NumberedBuckets b;

	histogram_buckets(r, g, &b);
	group_numbered(r, g, bucket, depth, "group_by_histogram", &b, st);
}

static void
group_by_date_histogram(AggRun *r, JsonbContainer *g, const char *bucket, int depth, JsonbParseState **st)
{
	NumberedBuckets b;

	date_histogram_buckets(r, g, &b);
	group_numbered(r, g, bucket, depth, "group_by_date_histogram", &b, st);
}

/* geo_grid_precision: a geo_grid's precision, 1 to SEARCH_GEOHASH_MAX characters, or one of Tablestore's GHP_..._<n> */
static int
geo_grid_precision(JsonbContainer *g)
{
	JsonbValue	v;
	double		n = -1;

	if (agg_member(g, "precision", &v) != NULL)
	{
		if (v.type == jbvNumeric)
			n = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(v.val.numeric)));
		else if (v.type == jbvString)
		{
			char	   *name = pnstrdup(v.val.string.val, v.val.string.len);
			char	   *last = strrchr(name, '_');

			if (strncmp(name, "GHP_", 4) == 0 && last != NULL && last[1] != '\0' && strspn(last + 1, "0123456789") == strlen(last + 1))
				n = atoi(last + 1);
		}
	}
	if (!(n >= 1 && n <= SEARCH_GEOHASH_MAX) || n != floor(n))
		agg_refuse(psprintf("Invalid precision of group_by_geo_grid: 1 to %d, or GHP_5009KM_4992KM_1 to GHP_37MM_19MM_12.",
							SEARCH_GEOHASH_MAX));
	return (int) n;
}

/* geo_grid_corner: a point {lat, lon} of a geo_grid bucket's cell */
static void
geo_grid_corner(JsonbParseState **st, const char *key, double lat, double lon)
{
	JsonbValue	v;

	json_push_key(st, key);
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	v.type = jbvNumeric;
	json_push_key(st, "lat");
	v.val.numeric = DatumGetNumeric(DirectFunctionCall1(float8_numeric, Float8GetDatum(lat)));
	pushJsonbValue(st, WJB_VALUE, &v);
	json_push_key(st, "lon");
	v.val.numeric = DatumGetNumeric(DirectFunctionCall1(float8_numeric, Float8GetDatum(lon)));
	pushJsonbValue(st, WJB_VALUE, &v);
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

/*
 * group_by_geo_grid: a bucket per geohash cell of precision characters
 * holding a point of the GEO_POINT field (missing standing in for a row
 * without one), the most rows first, then the key, size of them (10 by
 * default), each with its cell's top-left and bottom-right corners; a row
 * counts once in a bucket
 */
static void
group_by_geo_grid(AggRun *r, JsonbContainer *g, const char *bucket, int depth, JsonbParseState **st)
{
	const SearchField *f = search_sql_field(r->q, g, "group_by_geo_grid");
	int			precision = geo_grid_precision(g);
	double		size = agg_number(g, "size", AGG_DEFAULT_GROUPS, "group_by_geo_grid");
	const char *values;
	const char *key;
	uint64		n;
	char	  **keys;
	int64	   *counts;

	if (f->type != SEARCH_GEO_POINT)
		agg_refuse(psprintf("[group_by_geo_grid] field_name:%s type:%s is invalid, allow [geo_point]", f->name,
							agg_type_name(f)));
	if (size < 1 || size > AGG_MAX_GROUPS || size != floor(size))
		agg_refuse(psprintf("Invalid size of group_by_geo_grid: 1 to %d.", AGG_MAX_GROUPS));
	/* a cluster's proxy would need every cell of every shard: not merged yet */
	if (r->q->for_merge)
		agg_refuse("The geo_grid group_by is not merged across the shards of a cluster yet.");
	values = group_values(r, g, f);
	key = psprintf("ots.search_geohash(e.e, %d) COLLATE \"C\"", precision);
	n = agg_run(r, psprintf("SELECT y.k, y.c FROM (SELECT %s AS k, pg_catalog.count(DISTINCT s.ctid) AS c FROM %s"
							" AND e.e IS NOT NULL GROUP BY 1) y ORDER BY 2 DESC, 1 ASC LIMIT %d",
							key, agg_from(r, bucket, psprintf("pg_catalog.unnest(%s) e", values)), (int) size));
	keys = palloc(sizeof(char *) * Max(n, 1));
	counts = palloc(sizeof(int64) * Max(n, 1));
	for (uint64 i = 0; i < n; i++)
	{
		keys[i] = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		counts[i] = agg_int(i, 2);
	}
	json_push_key(st, "items");
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (uint64 i = 0; i < n; i++)
	{
		BOX			cell;
		int			pk = search_sql_param(r->q, TEXTOID, CStringGetTextDatum(keys[i]));

		if (!search_geohash_box(keys[i], &cell))
			elog(ERROR, "a geo_grid key is no geohash: %s", keys[i]);
		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		json_push_string(st, "key", keys[i]);
		json_push_key(st, "geo_grid");
		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		geo_grid_corner(st, "top_left", cell.high.y, cell.low.x);
		geo_grid_corner(st, "bottom_right", cell.low.y, cell.high.x);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
		json_push_int(st, "row_count", counts[i]);
		group_subs(r, g, group_and(bucket, psprintf("EXISTS (SELECT 1 FROM pg_catalog.unnest(%s) e"
													" WHERE e.e IS NOT NULL AND %s OPERATOR(pg_catalog.=) $%d)",
													values, key, pk)), depth, st);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
}

/* group_by_composite: a page of a composite's groups (search_composite.c), each with its subs */
static void
group_by_composite(AggRun *r, JsonbContainer *g, const char *bucket, int depth, JsonbParseState **st)
{
	CompositePage page;
	JsonbValue	null = {.type = jbvNull};

	composite_page(r, g, bucket, depth, &page);
	json_push_key(st, "source_group_by_names");
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (int j = 0; j < page.nsources; j++)
		json_push_string(st, NULL, page.names[j]);
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
	json_push_key(st, "items");
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < page.ngroups; i++)
	{
		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		json_push_key(st, "keys");
		pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
		for (int j = 0; j < page.nsources; j++)
			if (page.keys[i][j] != NULL)
				json_push_string(st, NULL, page.keys[i][j]);
			else
				pushJsonbValue(st, WJB_ELEM, &null);
		pushJsonbValue(st, WJB_END_ARRAY, NULL);
		json_push_key(st, "is_null_keys");
		pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
		for (int j = 0; j < page.nsources; j++)
		{
			JsonbValue	b = {.type = jbvBool, .val.boolean = page.keys[i][j] == NULL};

			pushJsonbValue(st, WJB_ELEM, &b);
		}
		pushJsonbValue(st, WJB_END_ARRAY, NULL);
		json_push_int(st, "row_count", page.counts[i]);
		group_subs(r, g, group_and(bucket, page.conditions[i]), depth, st);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
	if (page.next_token != NULL)
		json_push_string(st, "next_token", page.next_token);
}

static void
group_by_list(AggRun *r, JsonbContainer *group_bys, const char *bucket, int depth, JsonbParseState **st)
{
	if (depth > AGG_MAX_DEPTH)
		agg_refuse(psprintf("group_bys nest at most %d deep.", AGG_MAX_DEPTH));
	agg_names_distinct(group_bys, "group_bys");
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < (int) JsonContainerSize(group_bys); i++)
	{
		JsonbContainer *g = agg_object(getIthJsonbValueFromContainer(group_bys, i), "group_bys");
		const char *type = agg_string(g, "type", "a group_by");

		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		json_push_string(st, "name", agg_string(g, "name", "a group_by"));
		json_push_string(st, "type", type);
		if (strcmp(type, "field") == 0)
			group_by_field(r, g, bucket, depth, st);
		else if (strcmp(type, "range") == 0)
			group_ranges(r, g, bucket, depth, "group_by_range", range_value_in, st);
		else if (strcmp(type, "geo_distance") == 0)
			group_ranges(r, g, bucket, depth, "group_by_geo_distance", geo_value_in, st);
		else if (strcmp(type, "filter") == 0)
			group_by_filter(r, g, bucket, depth, st);
		else if (strcmp(type, "histogram") == 0)
			group_by_histogram(r, g, bucket, depth, st);
		else if (strcmp(type, "date_histogram") == 0)
			group_by_date_histogram(r, g, bucket, depth, st);
		else if (strcmp(type, "geo_grid") == 0)
			group_by_geo_grid(r, g, bucket, depth, st);
		else if (strcmp(type, "composite") == 0)
			group_by_composite(r, g, bucket, depth, st);
		else
			agg_refuse(psprintf("Invalid type of group_by: '%s'.", type));
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
}

void
search_aggs_run(SearchSql *q, const char *storage, JsonbParseState **st)
{
	AggRun		r = {.q = q, .storage = storage};

	if (q->aggs != NULL)
	{
		json_push_key(st, "aggs");
		agg_list(&r, q->aggs, NULL, st);
	}
	if (q->group_bys != NULL)
	{
		json_push_key(st, "group_bys");
		group_by_list(&r, q->group_bys, NULL, 1, st);
	}
}
