/*-------------------------------------------------------------------------
 * gateway/search_result.c
 *	  ots.search's aggregations and group-bys as the protocol's
 *	  AggregationsResult and GroupBysResult: each result its type's message
 *	  serialized in an AggregationResult or GroupByResult, sub-aggregations
 *	  and sub-group-bys nested in each bucket.
 *
 * ots's results are JSON in the request's order; where the protocol wants
 * a typed value (a percentile's value, a histogram's key: SQLVariants) the
 * field's type says which (field_types, from the index's schema), since
 * JSON writes a DOUBLE that holds a whole number as an integer.  A missing
 * value (the min of no rows) is left unset; an unbounded range's end is an
 * infinity, as the SDKs send it.
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "search_result.h"

/* the protocol's numbers of ots's type names */
static const char *const agg_names[] = {
	[OTSP__AGGREGATION_TYPE__AGG_AVG] = "avg", [OTSP__AGGREGATION_TYPE__AGG_MAX] = "max",
	[OTSP__AGGREGATION_TYPE__AGG_MIN] = "min", [OTSP__AGGREGATION_TYPE__AGG_SUM] = "sum",
	[OTSP__AGGREGATION_TYPE__AGG_COUNT] = "count", [OTSP__AGGREGATION_TYPE__AGG_DISTINCT_COUNT] = "distinct_count",
	[OTSP__AGGREGATION_TYPE__AGG_TOP_ROWS] = "top_rows", [OTSP__AGGREGATION_TYPE__AGG_PERCENTILES] = "percentiles",
};
static const char *const group_by_names[] = {
	[OTSP__GROUP_BY_TYPE__GROUP_BY_FIELD] = "field", [OTSP__GROUP_BY_TYPE__GROUP_BY_RANGE] = "range",
	[OTSP__GROUP_BY_TYPE__GROUP_BY_FILTER] = "filter", [OTSP__GROUP_BY_TYPE__GROUP_BY_GEO_DISTANCE] = "geo_distance",
	[OTSP__GROUP_BY_TYPE__GROUP_BY_HISTOGRAM] = "histogram",
	[OTSP__GROUP_BY_TYPE__GROUP_BY_DATE_HISTOGRAM] = "date_histogram",
	[OTSP__GROUP_BY_TYPE__GROUP_BY_GEO_GRID] = "geo_grid",
	[OTSP__GROUP_BY_TYPE__GROUP_BY_COMPOSITE] = "composite",
};

static int
type_number(const char *const *names, size_t n, json_t *name)
{
	const char *s = json_string_value(name);

	for (size_t i = 1; s != NULL && i < n; i++)
		if (names[i] != NULL && strcmp(names[i], s) == 0)
			return (int) i;
	return 0;
}

/* variant: a JSON value as a SQLVariant, an integer when its field's type is LONG or DATE */
static ProtobufCBinaryData
variant(Kept *k, json_t *v, const char *field_type)
{
	ProtobufCBinaryData out = {0};
	uint64_t	bits;

	if (json_is_number(v))
	{
		bool		integer = field_type != NULL && (strcmp(field_type, "LONG") == 0 || strcmp(field_type, "DATE") == 0);

		if (integer)
		{
			int64_t		i = json_is_integer(v) ? json_integer_value(v) : (int64_t) json_number_value(v);

			memcpy(&bits, &i, sizeof(bits));
		}
		else
		{
			double		d = json_number_value(v);

			memcpy(&bits, &d, sizeof(bits));
		}
		out.len = 9;
		out.data = kept_alloc(k, 9);
		out.data[0] = integer ? 0x0 : 0x1;
		for (int i = 1; i <= 8; i++, bits >>= 8)
			out.data[i] = (uint8_t) (bits & 0xff);
	}
	else if (json_is_boolean(v))
	{
		out.len = 2;
		out.data = kept_alloc(k, 2);
		out.data[0] = 0x2;
		out.data[1] = json_is_true(v);
	}
	else if (json_is_string(v))
	{
		size_t		n = json_string_length(v);

		out.len = 5 + n;
		out.data = kept_alloc(k, out.len);
		out.data[0] = 0x3;
		for (int i = 0; i < 4; i++)
			out.data[1 + i] = (uint8_t) ((n >> (8 * i)) & 0xff);
		memcpy(out.data + 5, json_string_value(v), n);
	}
	return out;
}

/* field_type: the type of the field a request (an aggregation or group-by) names */
static const char *
field_type(json_t *field_types, json_t *request)
{
	return json_string_value(json_object_get(field_types, json_string_value(json_object_get(request, "field_name"))));
}

/*
 * key_text: a group's key as the protocol's string: a string as it is, a
 * double in the fewest digits that read back to it (as ots writes it), an
 * integer or boolean as JSON does
 */
static char *
key_text(Kept *k, json_t *key)
{
	char	   *text = kept_alloc(k, 32);

	if (json_is_string(key))
		return kept_string(k, key);
	if (json_is_real(key))
	{
		double		d = json_real_value(key);

		for (int digits = 15; digits <= 17; digits++)
		{
			snprintf(text, 32, "%.*g", digits, d);
			if (strtod(text, NULL) == d)
				break;
		}
	}
	else if (json_is_integer(key))
		snprintf(text, 32, "%" JSON_INTEGER_FORMAT, json_integer_value(key));
	else
		snprintf(text, 32, "%s", json_is_true(key) ? "true" : "false");
	return text;
}

static double
number_or(json_t *v, double missing)
{
	return json_is_number(v) ? json_number_value(v) : missing;
}

typedef struct Results
{
	Kept	   *k;
	json_t	   *field_types;	/* {field_name: "LONG", ...} */
	json_t	   *pk_order;		/* the table's key columns in order */
} Results;

static Otsp__AggregationsResult *aggs_result(const Results *r, json_t *aggs, json_t *requests);
static Otsp__GroupBysResult *group_bys_result(const Results *r, json_t *group_bys, json_t *requests);

/* a result message of one value, packed */
#define SCALAR_RESULT(Type, TYPE, has, v) \
	do { \
		Otsp__##Type m = OTSP__##TYPE##__INIT; \
		m.has_value = (has), m.value = (v); \
		return kept_pack(r->k, &m.base); \
	} while (0)

/* one aggregation's result, its type's message packed */
static ProtobufCBinaryData
agg_packed(const Results *r, int type, json_t *agg, json_t *request)
{
	json_t	   *value = json_object_get(agg, "value");

	switch (type)
	{
		case OTSP__AGGREGATION_TYPE__AGG_AVG:
			SCALAR_RESULT(AvgAggregationResult, AVG_AGGREGATION_RESULT, json_is_number(value), number_or(value, 0));
		case OTSP__AGGREGATION_TYPE__AGG_MAX:
			SCALAR_RESULT(MaxAggregationResult, MAX_AGGREGATION_RESULT, json_is_number(value), number_or(value, 0));
		case OTSP__AGGREGATION_TYPE__AGG_MIN:
			SCALAR_RESULT(MinAggregationResult, MIN_AGGREGATION_RESULT, json_is_number(value), number_or(value, 0));
		case OTSP__AGGREGATION_TYPE__AGG_SUM:
			SCALAR_RESULT(SumAggregationResult, SUM_AGGREGATION_RESULT, json_is_number(value), number_or(value, 0));
		case OTSP__AGGREGATION_TYPE__AGG_COUNT:
			SCALAR_RESULT(CountAggregationResult, COUNT_AGGREGATION_RESULT, true, json_integer_value(value));
		case OTSP__AGGREGATION_TYPE__AGG_DISTINCT_COUNT:
			SCALAR_RESULT(DistinctCountAggregationResult, DISTINCT_COUNT_AGGREGATION_RESULT, true, json_integer_value(value));
		case OTSP__AGGREGATION_TYPE__AGG_TOP_ROWS:
			{
				Otsp__TopRowsAggregationResult m = OTSP__TOP_ROWS_AGGREGATION_RESULT__INIT;
				json_t	   *rows = json_object_get(agg, "rows");

				m.n_rows = json_array_size(rows);
				m.rows = kept_alloc(r->k, m.n_rows * sizeof(ProtobufCBinaryData));
				for (size_t i = 0; i < m.n_rows; i++)
				{
					json_t	   *row = json_array_get(rows, i);
					Buf			b = {0};

					pb_begin(&b);
					pb_write_row(&b, json_object_get(row, "primary_key"), r->pk_order, json_object_get(row, "attributes"));
					m.rows[i].len = b.len;
					m.rows[i].data = kept_alloc(r->k, b.len);
					memcpy(m.rows[i].data, b.data, b.len);
					buf_free(&b);
				}
				return kept_pack(r->k, &m.base);
			}
		case OTSP__AGGREGATION_TYPE__AGG_PERCENTILES:
			{
				Otsp__PercentilesAggregationResult m = OTSP__PERCENTILES_AGGREGATION_RESULT__INIT;
				json_t	   *items = json_object_get(agg, "items");
				const char *type = field_type(r->field_types, request);

				m.n_percentiles_aggregation_items = json_array_size(items);
				m.percentiles_aggregation_items = kept_alloc(r->k, m.n_percentiles_aggregation_items * sizeof(void *));
				for (size_t i = 0; i < m.n_percentiles_aggregation_items; i++)
				{
					json_t	   *item = json_array_get(items, i);
					Otsp__PercentilesAggregationItem *out = kept_alloc(r->k, sizeof(*out));

					otsp__percentiles_aggregation_item__init(out);
					out->has_key = true, out->key = number_or(json_object_get(item, "key"), 0);
					out->value = variant(r->k, json_object_get(item, "value"), type);
					out->has_value = out->value.len > 0;
					m.percentiles_aggregation_items[i] = out;
				}
				return kept_pack(r->k, &m.base);
			}
		default:
			return (ProtobufCBinaryData) {0};
	}
}

static Otsp__AggregationsResult *
aggs_result(const Results *r, json_t *aggs, json_t *requests)
{
	Otsp__AggregationsResult *out = kept_alloc(r->k, sizeof(*out));

	otsp__aggregations_result__init(out);
	out->n_agg_results = json_array_size(aggs);
	out->agg_results = kept_alloc(r->k, out->n_agg_results * sizeof(void *));
	for (size_t i = 0; i < out->n_agg_results; i++)
	{
		json_t	   *agg = json_array_get(aggs, i);
		Otsp__AggregationResult *one = kept_alloc(r->k, sizeof(*one));
		int			type = type_number(agg_names, sizeof(agg_names) / sizeof(agg_names[0]), json_object_get(agg, "type"));

		otsp__aggregation_result__init(one);
		one->name = kept_string(r->k, json_object_get(agg, "name"));
		one->has_type = type != 0, one->type = type;
		one->agg_result = agg_packed(r, type, agg, json_array_get(requests, i));
		one->has_agg_result = true;
		out->agg_results[i] = one;
	}
	return out;
}

/* bucket_subs: a bucket's sub-aggregations and sub-group-bys, when its group-by asked for them */
static void
bucket_subs(const Results *r, json_t *bucket, json_t *request, Otsp__AggregationsResult **aggs,
			Otsp__GroupBysResult **group_bys)
{
	if (json_is_array(json_object_get(bucket, "sub_aggs")))
		*aggs = aggs_result(r, json_object_get(bucket, "sub_aggs"), json_object_get(request, "sub_aggs"));
	if (json_is_array(json_object_get(bucket, "sub_group_bys")))
		*group_bys = group_bys_result(r, json_object_get(bucket, "sub_group_bys"), json_object_get(request, "sub_group_bys"));
}

#define ITEMS(msg, field, n) \
	do { (msg).n_##field = (n); (msg).field = kept_alloc(r->k, (n) * sizeof(void *)); } while (0)

/* a range or geo-distance group-by's result: its buckets' ends (unbounded: infinite), counts and subs */
#define RANGE_RESULT(Type, TYPE, items_field, ItemType, item_prefix) \
	do { \
		Otsp__##Type m = OTSP__##TYPE##__INIT; \
		ITEMS(m, items_field, n); \
		for (size_t i = 0; i < n; i++) \
		{ \
			json_t	   *b = json_array_get(items, i); \
			Otsp__##ItemType *o = kept_alloc(r->k, sizeof(*o)); \
			otsp__##item_prefix##__init(o); \
			o->has_from = true, o->from = number_or(json_object_get(b, "from"), -INFINITY); \
			o->has_to = true, o->to = number_or(json_object_get(b, "to"), INFINITY); \
			o->has_row_count = true, o->row_count = json_integer_value(json_object_get(b, "row_count")); \
			bucket_subs(r, b, request, &o->sub_aggs_result, &o->sub_group_bys_result); \
			m.items_field[i] = o; \
		} \
		return kept_pack(r->k, &m.base); \
	} while (0)

/* one group-by's result, its type's message packed */
static ProtobufCBinaryData
group_by_packed(const Results *r, int type, json_t *g, json_t *request)
{
	json_t	   *items = json_object_get(g, "items");
	size_t		n = json_array_size(items);

	switch (type)
	{
		case OTSP__GROUP_BY_TYPE__GROUP_BY_FIELD:
			{
				Otsp__GroupByFieldResult m = OTSP__GROUP_BY_FIELD_RESULT__INIT;

				ITEMS(m, group_by_field_result_items, n);
				for (size_t i = 0; i < n; i++)
				{
					json_t	   *b = json_array_get(items, i);
					Otsp__GroupByFieldResultItem *o = kept_alloc(r->k, sizeof(*o));

					otsp__group_by_field_result_item__init(o);
					o->key = key_text(r->k, json_object_get(b, "key"));
					o->has_row_count = true, o->row_count = json_integer_value(json_object_get(b, "row_count"));
					bucket_subs(r, b, request, &o->sub_aggs_result, &o->sub_group_bys_result);
					m.group_by_field_result_items[i] = o;
				}
				return kept_pack(r->k, &m.base);
			}
		case OTSP__GROUP_BY_TYPE__GROUP_BY_RANGE:
			RANGE_RESULT(GroupByRangeResult, GROUP_BY_RANGE_RESULT, group_by_range_result_items,
						 GroupByRangeResultItem, group_by_range_result_item);
		case OTSP__GROUP_BY_TYPE__GROUP_BY_GEO_DISTANCE:
			RANGE_RESULT(GroupByGeoDistanceResult, GROUP_BY_GEO_DISTANCE_RESULT, group_by_geo_distance_result_items,
						 GroupByGeoDistanceResultItem, group_by_geo_distance_result_item);
		case OTSP__GROUP_BY_TYPE__GROUP_BY_FILTER:
			{
				Otsp__GroupByFilterResult m = OTSP__GROUP_BY_FILTER_RESULT__INIT;

				ITEMS(m, group_by_filter_result_items, n);
				for (size_t i = 0; i < n; i++)
				{
					json_t	   *b = json_array_get(items, i);
					Otsp__GroupByFilterResultItem *o = kept_alloc(r->k, sizeof(*o));

					otsp__group_by_filter_result_item__init(o);
					o->has_row_count = true, o->row_count = json_integer_value(json_object_get(b, "row_count"));
					bucket_subs(r, b, request, &o->sub_aggs_result, &o->sub_group_bys_result);
					m.group_by_filter_result_items[i] = o;
				}
				return kept_pack(r->k, &m.base);
			}
		case OTSP__GROUP_BY_TYPE__GROUP_BY_HISTOGRAM:
			{
				Otsp__GroupByHistogramResult m = OTSP__GROUP_BY_HISTOGRAM_RESULT__INIT;
				const char *type = field_type(r->field_types, request);

				ITEMS(m, group_by_histogram_items, n);
				for (size_t i = 0; i < n; i++)
				{
					json_t	   *b = json_array_get(items, i);
					Otsp__GroupByHistogramItem *o = kept_alloc(r->k, sizeof(*o));

					otsp__group_by_histogram_item__init(o);
					o->key = variant(r->k, json_object_get(b, "key"), type);
					o->has_key = o->key.len > 0;
					o->has_value = true, o->value = json_integer_value(json_object_get(b, "row_count"));
					bucket_subs(r, b, request, &o->sub_aggs_result, &o->sub_group_bys_result);
					m.group_by_histogram_items[i] = o;
				}
				return kept_pack(r->k, &m.base);
			}
		case OTSP__GROUP_BY_TYPE__GROUP_BY_DATE_HISTOGRAM:
			{
				Otsp__GroupByDateHistogramResult m = OTSP__GROUP_BY_DATE_HISTOGRAM_RESULT__INIT;

				ITEMS(m, group_by_date_histogram_items, n);
				for (size_t i = 0; i < n; i++)
				{
					json_t	   *b = json_array_get(items, i);
					Otsp__GroupByDateHistogramItem *o = kept_alloc(r->k, sizeof(*o));

					otsp__group_by_date_histogram_item__init(o);
					o->has_timestamp = true, o->timestamp = json_integer_value(json_object_get(b, "timestamp"));
					o->has_row_count = true, o->row_count = json_integer_value(json_object_get(b, "row_count"));
					bucket_subs(r, b, request, &o->sub_aggs_result, &o->sub_group_bys_result);
					m.group_by_date_histogram_items[i] = o;
				}
				return kept_pack(r->k, &m.base);
			}
		case OTSP__GROUP_BY_TYPE__GROUP_BY_GEO_GRID:
			{
				Otsp__GroupByGeoGridResult m = OTSP__GROUP_BY_GEO_GRID_RESULT__INIT;

				ITEMS(m, group_by_geo_gird_result_items, n);
				for (size_t i = 0; i < n; i++)
				{
					json_t	   *b = json_array_get(items, i);
					json_t	   *cell = json_object_get(b, "geo_grid");
					Otsp__GroupByGeoGridResultItem *o = kept_alloc(r->k, sizeof(*o));
					Otsp__GeoGrid *grid = kept_alloc(r->k, sizeof(*grid));
					Otsp__GeoPoint *corner[2];
					const char *names[2] = {"top_left", "bottom_right"};

					otsp__group_by_geo_grid_result_item__init(o);
					otsp__geo_grid__init(grid);
					for (int c = 0; c < 2; c++)
					{
						json_t	   *p = json_object_get(cell, names[c]);

						corner[c] = kept_alloc(r->k, sizeof(Otsp__GeoPoint));
						otsp__geo_point__init(corner[c]);
						corner[c]->has_lat = corner[c]->has_lon = true;
						corner[c]->lat = json_number_value(json_object_get(p, "lat"));
						corner[c]->lon = json_number_value(json_object_get(p, "lon"));
					}
					grid->top_left = corner[0];
					grid->bottom_right = corner[1];
					o->key = (char *) json_string_value(json_object_get(b, "key"));
					o->geo_grid = grid;
					o->has_row_count = true, o->row_count = json_integer_value(json_object_get(b, "row_count"));
					bucket_subs(r, b, request, &o->sub_aggs_result, &o->sub_group_bys_result);
					m.group_by_geo_gird_result_items[i] = o;
				}
				return kept_pack(r->k, &m.base);
			}
		case OTSP__GROUP_BY_TYPE__GROUP_BY_COMPOSITE:
			{
				Otsp__GroupByCompositeResult m = OTSP__GROUP_BY_COMPOSITE_RESULT__INIT;
				json_t	   *names = json_object_get(g, "source_group_by_names");

				ITEMS(m, group_by_composite_result_items, n);
				m.n_source_group_by_names = json_array_size(names);
				m.source_group_by_names = kept_alloc(r->k, m.n_source_group_by_names * sizeof(char *));
				for (size_t j = 0; j < m.n_source_group_by_names; j++)
					m.source_group_by_names[j] = (char *) json_string_value(json_array_get(names, j));
				for (size_t i = 0; i < n; i++)
				{
					json_t	   *b = json_array_get(items, i);
					json_t	   *keys = json_object_get(b, "keys");
					Otsp__GroupByCompositeResultItem *o = kept_alloc(r->k, sizeof(*o));

					otsp__group_by_composite_result_item__init(o);
					/* a null key travels as an empty string, is_null_keys saying which */
					o->n_keys = o->n_is_null_keys = json_array_size(keys);
					o->keys = kept_alloc(r->k, o->n_keys * sizeof(char *));
					o->is_null_keys = kept_alloc(r->k, o->n_keys * sizeof(protobuf_c_boolean));
					for (size_t j = 0; j < o->n_keys; j++)
					{
						json_t	   *key = json_array_get(keys, j);

						o->is_null_keys[j] = json_is_null(key);
						o->keys[j] = json_is_string(key) ? (char *) json_string_value(key) : "";
					}
					o->has_row_count = true, o->row_count = json_integer_value(json_object_get(b, "row_count"));
					bucket_subs(r, b, request, &o->sub_aggs_result, &o->sub_group_bys_result);
					m.group_by_composite_result_items[i] = o;
				}
				m.next_token = (char *) json_string_value(json_object_get(g, "next_token"));
				return kept_pack(r->k, &m.base);
			}
		default:
			return (ProtobufCBinaryData) {0};
	}
}

static Otsp__GroupBysResult *
group_bys_result(const Results *r, json_t *group_bys, json_t *requests)
{
	Otsp__GroupBysResult *out = kept_alloc(r->k, sizeof(*out));

	otsp__group_bys_result__init(out);
	out->n_group_by_results = json_array_size(group_bys);
	out->group_by_results = kept_alloc(r->k, out->n_group_by_results * sizeof(void *));
	for (size_t i = 0; i < out->n_group_by_results; i++)
	{
		json_t	   *g = json_array_get(group_bys, i);
		Otsp__GroupByResult *one = kept_alloc(r->k, sizeof(*one));
		int			type = type_number(group_by_names, sizeof(group_by_names) / sizeof(group_by_names[0]),
									   json_object_get(g, "type"));

		otsp__group_by_result__init(one);
		one->name = kept_string(r->k, json_object_get(g, "name"));
		one->has_type = type != 0, one->type = type;
		one->group_by_result = group_by_packed(r, type, g, json_array_get(requests, i));
		one->has_group_by_result = true;
		out->group_by_results[i] = one;
	}
	return out;
}

void
search_result_pack(Kept *k, json_t *result, json_t *query, json_t *field_types, json_t *pk_order,
				   Otsp__SearchResponse *resp)
{
	Results		r = {.k = k, .field_types = field_types, .pk_order = pk_order};

	if (json_is_array(json_object_get(result, "aggs")))
	{
		resp->aggs = kept_pack(k, &aggs_result(&r, json_object_get(result, "aggs"), json_object_get(query, "aggs"))->base);
		resp->has_aggs = true;
	}
	if (json_is_array(json_object_get(result, "group_bys")))
	{
		resp->group_bys = kept_pack(k, &group_bys_result(&r, json_object_get(result, "group_bys"),
														 json_object_get(query, "group_bys"))->base);
		resp->has_group_bys = true;
	}
}

/* hit_of: a row's or a document's hit: its score, highlight, offset among its documents and inner hits */
static Otsp__SearchHit *
hit_of(Kept *k, json_t *row)
{
	json_t	   *highlight = json_object_get(row, "highlight");
	json_t	   *inner = json_object_get(row, "inner_hits");
	Otsp__SearchHit *hit = kept_alloc(k, sizeof(*hit));

	otsp__search_hit__init(hit);
	if (json_is_number(json_object_get(row, "score")))
	{
		hit->has_score = true;
		hit->score = json_number_value(json_object_get(row, "score"));
	}
	if (json_is_integer(json_object_get(row, "offset")))
	{
		hit->has_nested_doc_offset = true;
		hit->nested_doc_offset = json_integer_value(json_object_get(row, "offset"));
	}
	if (json_is_object(highlight))
	{
		Otsp__HighlightResult *hr = kept_alloc(k, sizeof(*hr));
		const char *name;
		json_t	   *fragments;
		size_t		f = 0;

		otsp__highlight_result__init(hr);
		hr->n_highlight_fields = json_object_size(highlight);
		hr->highlight_fields = kept_alloc(k, hr->n_highlight_fields * sizeof(void *));
		json_object_foreach(highlight, name, fragments)
		{
			Otsp__HighlightField *field = kept_alloc(k, sizeof(*field));

			otsp__highlight_field__init(field);
			field->field_name = (char *) name;
			field->n_field_fragments = json_array_size(fragments);
			field->field_fragments = kept_alloc(k, field->n_field_fragments * sizeof(char *));
			for (size_t j = 0; j < field->n_field_fragments; j++)
				field->field_fragments[j] = (char *) json_string_value(json_array_get(fragments, j));
			hr->highlight_fields[f++] = field;
		}
		hit->highlight_result = hr;
	}
	hit->n_search_inner_hits = json_array_size(inner);
	hit->search_inner_hits = kept_alloc(k, hit->n_search_inner_hits * sizeof(void *));
	for (size_t i = 0; i < hit->n_search_inner_hits; i++)
	{
		json_t	   *list = json_array_get(inner, i);
		json_t	   *docs = json_object_get(list, "hits");
		Otsp__SearchInnerHit *one = kept_alloc(k, sizeof(*one));

		otsp__search_inner_hit__init(one);
		one->path = (char *) json_string_value(json_object_get(list, "path"));
		one->n_search_hits = json_array_size(docs);
		one->search_hits = kept_alloc(k, one->n_search_hits * sizeof(void *));
		for (size_t j = 0; j < one->n_search_hits; j++)
			one->search_hits[j] = hit_of(k, json_array_get(docs, j));
		hit->search_inner_hits[i] = one;
	}
	return hit;
}

void
search_hits_pack(Kept *k, json_t *result, Otsp__SearchResponse *resp)
{
	json_t	   *rows = json_object_get(result, "rows");
	size_t		n = json_array_size(rows);
	bool		hits = false;

	/* rows carry scores when the search scores, highlights and inner hits when asked */
	for (size_t i = 0; i < n; i++)
	{
		json_t	   *row = json_array_get(rows, i);

		hits |= json_object_get(row, "score") != NULL || json_object_get(row, "highlight") != NULL ||
			json_object_get(row, "inner_hits") != NULL;
	}
	if (!hits)
		return;
	resp->n_search_hits = n;
	resp->search_hits = kept_alloc(k, n * sizeof(void *));
	for (size_t i = 0; i < n; i++)
		resp->search_hits[i] = hit_of(k, json_array_get(rows, i));
}
