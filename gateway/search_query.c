/*-------------------------------------------------------------------------
 * gateway/search_query.c
 *	  A Search's SearchQuery (and a ParallelScan's query) as ots.search's
 *	  JSON: its queries, sorts, aggregations and group-bys, each message
 *	  read through protobuf-c's descriptors member by member under the
 *	  protocol's names, which are ots's too.
 *
 * A query, an aggregation and a group-by are a type and a body, the message
 * of that type serialized; the body is read generically (body_json), so
 * what ots refuses it refuses by name, with its own messages.  Values that
 * are SQLVariants (a term, a missing value, a histogram's interval) become
 * JSON values; sort orders and time units their names.
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "action.h"
#include "search_query.h"

const char *
search_sort_order_name(Otsp__SortOrder order)
{
	return order == OTSP__SORT_ORDER__SORT_ORDER_DESC ? "DESC" : "ASC";
}

/*
 * variant_json: a SQLVariant (a type byte, then the value: an int64 or a
 * double little-endian, a boolean byte, a string's int32 length and bytes)
 * as a JSON value; NULL when it is none
 */
static json_t *
variant_json(const ProtobufCBinaryData *v)
{
	uint64_t	bits = 0;

	if (v->len < 1)
		return NULL;
	switch (v->data[0])
	{
		case 0x0:				/* VT_INTEGER */
		case 0x1:				/* VT_DOUBLE */
			if (v->len != 9)
				return NULL;
			for (int i = 8; i >= 1; i--)
				bits = (bits << 8) | v->data[i];
			if (v->data[0] == 0x0)
				return json_integer((json_int_t) bits);
			{
				double		d;

				memcpy(&d, &bits, sizeof(d));
				return json_real(d);
			}
		case 0x2:				/* VT_BOOLEAN */
			return v->len == 2 ? json_boolean(v->data[1] != 0) : NULL;
		case 0x3:				/* VT_STRING */
			{
				uint32_t	n;

				if (v->len < 5)
					return NULL;
				n = (uint32_t) v->data[1] | (uint32_t) v->data[2] << 8 | (uint32_t) v->data[3] << 16 |
					(uint32_t) v->data[4] << 24;
				if (n != v->len - 5)
					return NULL;
				return json_stringn((const char *) v->data + 5, n);
			}
		default:
			return NULL;
	}
}

static json_t *query_json(const Otsp__Query *q, int depth, const char **err);
static json_t *sort_json(const Otsp__Sort *s, const char **err);
static json_t *aggs_json(const Otsp__Aggregations *a, int depth, const char **err);
static json_t *group_bys_json(const Otsp__GroupBys *g, int depth, const char **err);
static json_t *body_json(const ProtobufCMessage *m, int depth, const char **err);

/* the query types, by number: ots's name for each and its message */
static const struct
{
	const char *name;
	const ProtobufCMessageDescriptor *descriptor;
}			query_types[] = {
	[OTSP__QUERY_TYPE__MATCH_QUERY] = {"match_query", &otsp__match_query__descriptor},
	[OTSP__QUERY_TYPE__MATCH_PHRASE_QUERY] = {"match_phrase_query", &otsp__match_phrase_query__descriptor},
	[OTSP__QUERY_TYPE__TERM_QUERY] = {"term_query", &otsp__term_query__descriptor},
	[OTSP__QUERY_TYPE__RANGE_QUERY] = {"range_query", &otsp__range_query__descriptor},
	[OTSP__QUERY_TYPE__PREFIX_QUERY] = {"prefix_query", &otsp__prefix_query__descriptor},
	[OTSP__QUERY_TYPE__BOOL_QUERY] = {"bool_query", &otsp__bool_query__descriptor},
	[OTSP__QUERY_TYPE__CONST_SCORE_QUERY] = {"const_score_query", &otsp__const_score_query__descriptor},
	[OTSP__QUERY_TYPE__FUNCTION_SCORE_QUERY] = {"function_score_query", &otsp__function_score_query__descriptor},
	/* ots refuses these by name: their bodies are not read */
	[OTSP__QUERY_TYPE__NESTED_QUERY] = {"nested_query", &otsp__nested_query__descriptor},
	[OTSP__QUERY_TYPE__WILDCARD_QUERY] = {"wildcard_query", &otsp__wildcard_query__descriptor},
	[OTSP__QUERY_TYPE__MATCH_ALL_QUERY] = {"match_all_query", NULL},
	[OTSP__QUERY_TYPE__GEO_BOUNDING_BOX_QUERY] = {"geo_bounding_box_query", &otsp__geo_bounding_box_query__descriptor},
	[OTSP__QUERY_TYPE__GEO_DISTANCE_QUERY] = {"geo_distance_query", &otsp__geo_distance_query__descriptor},
	[OTSP__QUERY_TYPE__GEO_POLYGON_QUERY] = {"geo_polygon_query", &otsp__geo_polygon_query__descriptor},
	[OTSP__QUERY_TYPE__TERMS_QUERY] = {"terms_query", &otsp__terms_query__descriptor},
	[OTSP__QUERY_TYPE__EXISTS_QUERY] = {"exists_query", &otsp__exists_query__descriptor},
	[OTSP__QUERY_TYPE__KNN_VECTOR_QUERY] = {"knn_vector_query", NULL},
	[OTSP__QUERY_TYPE__FUNCTIONS_SCORE_QUERY] = {"functions_score_query", &otsp__functions_score_query__descriptor},
};

/*
 * field_value_json: one value of field f at p as JSON: strings, booleans,
 * integers and doubles as such (an infinite double, an unbounded range's
 * end, as null: absent), a sort order or a time unit by its name, bytes as
 * a SQLVariant, a Query, Sort, Aggregations or GroupBys as ots's, any other
 * message member by member; NULL with *err set when it is none
 */
static json_t *
field_value_json(const ProtobufCFieldDescriptor *f, const void *p, int depth, const char **err)
{
	json_t	   *v = NULL;

	switch (f->type)
	{
		case PROTOBUF_C_TYPE_STRING:
			if ((v = json_string(*(char *const *) p)) == NULL)
				*err = "a string is not valid UTF-8";
			return v;
		case PROTOBUF_C_TYPE_BOOL:
			return json_boolean(*(const protobuf_c_boolean *) p);
		case PROTOBUF_C_TYPE_ENUM:
			if (f->descriptor == &otsp__sort_order__descriptor || f->descriptor == &otsp__date_time_unit__descriptor ||
				f->descriptor == &otsp__function_score_mode__descriptor ||
				f->descriptor == &otsp__function_combine_mode__descriptor ||
				f->descriptor == &otsp__function_modifier__descriptor ||
				f->descriptor == &otsp__decay_math_function__descriptor ||
				f->descriptor == &otsp__multi_value_mode__descriptor ||
				f->descriptor == &otsp__decay_func_param_type__descriptor ||
				f->descriptor == &otsp__highlight_fragment_order__descriptor ||
				f->descriptor == &otsp__highlight_encoder__descriptor)
			{
				const ProtobufCEnumValue *e = protobuf_c_enum_descriptor_get_value(f->descriptor, *(const int *) p);

				return json_string(e != NULL ? e->name : "unknown");
			}
			/* FALLTHROUGH */
		case PROTOBUF_C_TYPE_INT32:
			return json_integer(*(const int32_t *) p);
		case PROTOBUF_C_TYPE_INT64:
			return json_integer(*(const int64_t *) p);
		case PROTOBUF_C_TYPE_DOUBLE:
			return isfinite(*(const double *) p) ? json_real(*(const double *) p) : json_null();
		case PROTOBUF_C_TYPE_FLOAT:
			return isfinite(*(const float *) p) ? json_real(*(const float *) p) : json_null();
		case PROTOBUF_C_TYPE_BYTES:
			if ((v = variant_json((const ProtobufCBinaryData *) p)) == NULL)
				*err = "a query's value is no SQLVariant";
			return v;
		case PROTOBUF_C_TYPE_MESSAGE:
			if (depth > 64)
			{
				*err = "queries nest too deep";
				return NULL;
			}
			if (f->descriptor == &otsp__query__descriptor)
				return query_json(*(Otsp__Query *const *) p, depth + 1, err);
			if (f->descriptor == &otsp__sort__descriptor)
				return sort_json(*(Otsp__Sort *const *) p, err);
			if (f->descriptor == &otsp__aggregations__descriptor)
				return aggs_json(*(Otsp__Aggregations *const *) p, depth + 1, err);
			if (f->descriptor == &otsp__group_bys__descriptor)
				return group_bys_json(*(Otsp__GroupBys *const *) p, depth + 1, err);
			return body_json(*(ProtobufCMessage *const *) p, depth + 1, err);
		default:
			break;
	}
	*err = "a query holds a field otsd cannot read";
	return NULL;
}

/* scores_by_floats: a message of a function score query, whose floats (weights, factors, scores) count */
static bool
scores_by_floats(const ProtobufCMessageDescriptor *d)
{
	return d == &otsp__functions_score_query__descriptor || d == &otsp__function__descriptor ||
		d == &otsp__field_value_factor_function__descriptor;
}

/*
 * decay_param_json: a decay function's param, the serialized message its
 * param_type names, as JSON
 */
static json_t *
decay_param_json(const Otsp__DecayFunction *decay, int depth, const char **err)
{
	const ProtobufCMessageDescriptor *d =
		decay->param_type == OTSP__DECAY_FUNC_PARAM_TYPE__DF_DATE_PARAM ? &otsp__decay_func_date_param__descriptor :
		decay->param_type == OTSP__DECAY_FUNC_PARAM_TYPE__DF_GEO_PARAM ? &otsp__decay_func_geo_param__descriptor :
		decay->param_type == OTSP__DECAY_FUNC_PARAM_TYPE__DF_NUMERIC_PARAM ? &otsp__decay_func_numeric_param__descriptor :
		NULL;
	ProtobufCMessage *m;
	json_t	   *out;

	if (!decay->has_param_type || d == NULL ||
		(m = protobuf_c_message_unpack(d, &memory_protobuf, decay->param.len, decay->param.data)) == NULL)
	{
		*err = "a decay function's param does not decode as its param_type";
		return NULL;
	}
	out = body_json(m, depth + 1, err);
	protobuf_c_message_free_unpacked(m, &memory_protobuf);
	return out;
}

/*
 * body_json: a query's message as ots's JSON, member by member under the
 * protocol's names (ots's too); a float (a query's weight, which ots does
 * not score by) is left out but in a function score query
 */
static json_t *
body_json(const ProtobufCMessage *m, int depth, const char **err)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	const char *base = (const char *) m;
	json_t	   *out = json_object();

	for (unsigned i = 0; i < d->n_fields; i++)
	{
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		const void *member = base + f->offset;
		json_t	   *v;

		if (f->type == PROTOBUF_C_TYPE_FLOAT && !scores_by_floats(d))
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED)
		{
			size_t		n = *(const size_t *) (base + f->quantifier_offset);
			const char *elems = *(char *const *) member;
			size_t		size = f->type == PROTOBUF_C_TYPE_STRING ? sizeof(char *) :
				f->type == PROTOBUF_C_TYPE_BYTES ? sizeof(ProtobufCBinaryData) :
				f->type == PROTOBUF_C_TYPE_MESSAGE ? sizeof(void *) :
				f->type == PROTOBUF_C_TYPE_DOUBLE || f->type == PROTOBUF_C_TYPE_INT64 ? 8 :
				f->type == PROTOBUF_C_TYPE_INT32 || f->type == PROTOBUF_C_TYPE_ENUM ? 4 : 0;

			if (size == 0)
				goto unreadable;
			v = json_array();
			for (size_t k = 0; k < n; k++)
			{
				json_t	   *e = field_value_json(f, elems + k * size, depth, err);

				if (e == NULL)
				{
					json_decref(v);
					goto bad;
				}
				json_array_append_new(v, e);
			}
			json_object_set_new(out, f->name, v);
			continue;
		}
		/* present: a has_ flag, or a pointer set */
		if (f->quantifier_offset != 0 ? !*(const protobuf_c_boolean *) (base + f->quantifier_offset) :
			*(void *const *) member == NULL)
			continue;
		if (d == &otsp__decay_function__descriptor && strcmp(f->name, "param") == 0)
			v = decay_param_json((const Otsp__DecayFunction *) m, depth, err);
		else
			v = field_value_json(f, member, depth, err);
		if (v == NULL)
			goto bad;
		/* the SDKs' search.proto spells it socre_mode */
		json_object_set_new(out, strcmp(f->name, "socre_mode") == 0 ? "score_mode" : f->name, v);
	}
	return out;
unreadable:
	*err = "a query holds a field otsd cannot read";
bad:
	json_decref(out);
	return NULL;
}

/*
 * query_json: a Query (its type, and its message of that type serialized)
 * as ots's JSON query ({"term_query": {...}}), or NULL with *err set
 */
static json_t *
query_json(const Otsp__Query *q, int depth, const char **err)
{
	ProtobufCMessage *m = NULL;
	json_t	   *body;
	json_t	   *out;
	json_t	   *v;

	if (depth > 64)
	{
		*err = "queries nest too deep";
		return NULL;
	}
	if (!q->has_type || q->type < 1 || (size_t) q->type >= sizeof(query_types) / sizeof(query_types[0]) ||
		query_types[q->type].name == NULL)
	{
		*err = "a query of no type, or of a type the protocol does not define";
		return NULL;
	}
	if (query_types[q->type].descriptor == NULL)
		body = json_object();
	else
	{
		m = protobuf_c_message_unpack(query_types[q->type].descriptor, &memory_protobuf, q->query.len, q->query.data);
		if (m == NULL)
		{
			*err = "a query's body does not decode as its type";
			return NULL;
		}
		body = body_json(m, depth, err);
		protobuf_c_message_free_unpacked(m, &memory_protobuf);
		if (body == NULL)
			return NULL;
	}
	/* the protocol's numbers for what ots names */
	if (json_is_integer(v = json_object_get(body, "operator")))
		json_object_set_new(body, "operator", json_string(json_integer_value(v) == 2 ? "AND" : "OR"));
	if (json_is_integer(v = json_object_get(body, "score_mode")))
	{
		static const char *const modes[] = {"None", "Avg", "Max", "Total", "Min"};
		json_int_t	mode = json_integer_value(v);

		json_object_set_new(body, "score_mode", json_string(mode >= 1 && mode <= 5 ? modes[mode - 1] : "unknown"));
	}
	out = json_object();
	json_object_set_new(out, query_types[q->type].name, body);
	return out;
}

/* sort_json: a search's Sort as ots's {"sorters": [...]} */
static json_t *
sort_json(const Otsp__Sort *s, const char **err)
{
	json_t	   *sorters = json_array();
	json_t	   *out = json_object();

	json_object_set_new(out, "sorters", sorters);
	for (size_t i = 0; i < s->n_sorter; i++)
	{
		const Otsp__Sorter *in = s->sorter[i];
		json_t	   *sorter = json_object();
		json_t	   *body = json_object();

		json_array_append_new(sorters, sorter);
		if (in->field_sort != NULL)
		{
			json_object_set_new(sorter, "field_sort", body);
			if (in->field_sort->field_name)
				json_object_set_new(body, "field_name", json_string(in->field_sort->field_name));
			json_object_set_new(body, "order", json_string(search_sort_order_name(in->field_sort->order)));
			if (in->field_sort->has_mode)
				json_object_set_new(body, "mode", json_string(in->field_sort->mode == OTSP__SORT_MODE__SORT_MODE_MAX ? "MAX" :
															 in->field_sort->mode == OTSP__SORT_MODE__SORT_MODE_AVG ? "AVG" : "MIN"));
			if (in->field_sort->has_missing_value)
			{
				json_t	   *missing = variant_json(&in->field_sort->missing_value);

				if (missing == NULL)
				{
					*err = "a field sort's missing_value is no SQLVariant";
					json_decref(out);
					return NULL;
				}
				json_object_set_new(body, "missing_value", missing);
			}
			if (in->field_sort->missing_field != NULL)
				json_object_set_new(body, "missing_field", json_string(in->field_sort->missing_field));
		}
		else if (in->geo_distance_sort != NULL)
		{
			json_t	   *points = json_array();

			json_object_set_new(sorter, "geo_distance_sort", body);
			if (in->geo_distance_sort->field_name)
				json_object_set_new(body, "field_name", json_string(in->geo_distance_sort->field_name));
			for (size_t p = 0; p < in->geo_distance_sort->n_points; p++)
				json_array_append_new(points, json_string(in->geo_distance_sort->points[p]));
			json_object_set_new(body, "points", points);
			json_object_set_new(body, "order", json_string(search_sort_order_name(in->geo_distance_sort->order)));
			if (in->geo_distance_sort->has_mode)
				json_object_set_new(body, "mode", json_string(in->geo_distance_sort->mode == OTSP__SORT_MODE__SORT_MODE_MAX ? "MAX" :
															 in->geo_distance_sort->mode == OTSP__SORT_MODE__SORT_MODE_AVG ? "AVG" : "MIN"));
			if (in->geo_distance_sort->has_distance_type)
				json_object_set_new(body, "distance_type", json_string(in->geo_distance_sort->distance_type == 1 ? "PLANE" : "ARC"));
		}
		else if (in->score_sort != NULL)
		{
			json_object_set_new(sorter, "score_sort", body);
			if (in->score_sort->has_order)
				json_object_set_new(body, "order", json_string(search_sort_order_name(in->score_sort->order)));
		}
		else if (in->pk_sort != NULL)
		{
			json_object_set_new(sorter, "primary_key_sort", body);
			json_object_set_new(body, "order", json_string(search_sort_order_name(in->pk_sort->order)));
		}
		else
		{
			/* doc_sort (an inner_hits' order) and what ots has no name for: ots refuses it by name */
			json_object_set_new(sorter, "doc_sort", body);
			if (in->doc_sort != NULL && in->doc_sort->has_order)
				json_object_set_new(body, "order", json_string(search_sort_order_name(in->doc_sort->order)));
		}
	}
	return out;
}

/*
 * list_json: serialized Aggregations or GroupBys (descriptor) as ots's list
 * under key of out; false with *err set when they do not decode
 */
static bool
list_json(json_t *out, const char *key, const ProtobufCMessageDescriptor *descriptor,
		  const ProtobufCBinaryData *bytes, const char **err)
{
	ProtobufCMessage *m = protobuf_c_message_unpack(descriptor, &memory_protobuf, bytes->len, bytes->data);
	json_t	   *list;

	if (m == NULL)
	{
		*err = descriptor == &otsp__aggregations__descriptor ? "aggs do not decode" : "group_bys do not decode";
		return false;
	}
	list = descriptor == &otsp__aggregations__descriptor ? aggs_json((Otsp__Aggregations *) m, 0, err) :
		group_bys_json((Otsp__GroupBys *) m, 0, err);
	protobuf_c_message_free_unpacked(m, &memory_protobuf);
	if (list == NULL)
		return false;
	json_object_set_new(out, key, list);
	return true;
}

json_t *
search_query_json(const ProtobufCBinaryData *bytes, const char **err)
{
	Otsp__SearchQuery *sq = otsp__search_query__unpack(&memory_protobuf, bytes->len, bytes->data);
	json_t	   *out = json_object();

	if (sq == NULL)
	{
		*err = "search_query does not decode";
		goto bad;
	}
	if (sq->highlight != NULL)
	{
		json_t	   *h = body_json(&sq->highlight->base, 0, err);

		if (h == NULL)
			goto bad;
		json_object_set_new(out, "highlight", h);
	}
	if (sq->has_aggs && !list_json(out, "aggs", &otsp__aggregations__descriptor, &sq->aggs, err))
		goto bad;
	if (sq->has_group_bys && !list_json(out, "group_bys", &otsp__group_bys__descriptor, &sq->group_bys, err))
		goto bad;
	if (sq->has_offset)
		json_object_set_new(out, "offset", json_integer(sq->offset));
	if (sq->has_limit)
		json_object_set_new(out, "limit", json_integer(sq->limit));
	if (sq->has_gettotalcount)
		json_object_set_new(out, "get_total_count", json_boolean(sq->gettotalcount));
	if (sq->query != NULL)
	{
		json_t	   *q = query_json(sq->query, 0, err);

		if (q == NULL)
			goto bad;
		json_object_set_new(out, "query", q);
	}
	if (sq->collapse != NULL && sq->collapse->field_name != NULL)
	{
		json_t	   *c = json_object();

		json_object_set_new(c, "field_name", json_string(sq->collapse->field_name));
		json_object_set_new(out, "collapse", c);
	}
	if (sq->sort != NULL && sq->sort->n_sorter > 0)
	{
		json_t	   *s = sort_json(sq->sort, err);

		if (s == NULL)
			goto bad;
		json_object_set_new(out, "sort", s);
	}
	/* ots's token is text; it travels as the token's bytes (other bytes are no token of ots's) */
	if (sq->has_token && sq->token.len > 0)
	{
		json_t	   *token = json_stringn((const char *) sq->token.data, sq->token.len);

		json_object_set_new(out, "token", token != NULL ? token : json_string("not a token"));
	}
	otsp__search_query__free_unpacked(sq, &memory_protobuf);
	return out;
bad:
	if (sq != NULL)
		otsp__search_query__free_unpacked(sq, &memory_protobuf);
	json_decref(out);
	return NULL;
}


/* the aggregation and group-by types, by number: ots's name for each and its body's message */
static const struct
{
	const char *name;
	const ProtobufCMessageDescriptor *descriptor;
}			agg_types[] = {
	[OTSP__AGGREGATION_TYPE__AGG_AVG] = {"avg", &otsp__avg_aggregation__descriptor},
	[OTSP__AGGREGATION_TYPE__AGG_MAX] = {"max", &otsp__max_aggregation__descriptor},
	[OTSP__AGGREGATION_TYPE__AGG_MIN] = {"min", &otsp__min_aggregation__descriptor},
	[OTSP__AGGREGATION_TYPE__AGG_SUM] = {"sum", &otsp__sum_aggregation__descriptor},
	[OTSP__AGGREGATION_TYPE__AGG_COUNT] = {"count", &otsp__count_aggregation__descriptor},
	[OTSP__AGGREGATION_TYPE__AGG_DISTINCT_COUNT] = {"distinct_count", &otsp__distinct_count_aggregation__descriptor},
	[OTSP__AGGREGATION_TYPE__AGG_TOP_ROWS] = {"top_rows", &otsp__top_rows_aggregation__descriptor},
	[OTSP__AGGREGATION_TYPE__AGG_PERCENTILES] = {"percentiles", &otsp__percentiles_aggregation__descriptor},
}, group_by_types[] = {
	[OTSP__GROUP_BY_TYPE__GROUP_BY_FIELD] = {"field", &otsp__group_by_field__descriptor},
	[OTSP__GROUP_BY_TYPE__GROUP_BY_RANGE] = {"range", &otsp__group_by_range__descriptor},
	[OTSP__GROUP_BY_TYPE__GROUP_BY_FILTER] = {"filter", &otsp__group_by_filter__descriptor},
	[OTSP__GROUP_BY_TYPE__GROUP_BY_GEO_DISTANCE] = {"geo_distance", &otsp__group_by_geo_distance__descriptor},
	[OTSP__GROUP_BY_TYPE__GROUP_BY_HISTOGRAM] = {"histogram", &otsp__group_by_histogram__descriptor},
	[OTSP__GROUP_BY_TYPE__GROUP_BY_DATE_HISTOGRAM] = {"date_histogram", &otsp__group_by_date_histogram__descriptor},
	[OTSP__GROUP_BY_TYPE__GROUP_BY_GEO_GRID] = {"geo_grid", &otsp__group_by_geo_grid__descriptor},
	[OTSP__GROUP_BY_TYPE__GROUP_BY_COMPOSITE] = {"composite", &otsp__group_by_composite__descriptor},
};

/*
 * typed_json: one aggregation or group-by (its name, its type by number in
 * types of ntypes, its body) as ots's {"name", "type", ...body's members}
 */
static json_t *
typed_json(const char *name, bool has_type, int type, const ProtobufCBinaryData *body,
		   const __typeof__(agg_types[0]) *types, size_t ntypes, int depth, const char **err)
{
	json_t	   *out;

	if (!has_type || type < 1 || (size_t) type >= ntypes || types[type].name == NULL)
	{
		*err = types == agg_types ? "an aggregation of no type, or of a type the protocol does not define" :
			"a group-by of no type, or of a type the protocol does not define";
		return NULL;
	}
	if (types[type].descriptor == NULL)
		out = json_object();
	else
	{
		ProtobufCMessage *m = protobuf_c_message_unpack(types[type].descriptor, &memory_protobuf, body->len, body->data);

		if (m == NULL)
		{
			*err = types == agg_types ? "an aggregation's body does not decode as its type" :
				"a group-by's body does not decode as its type";
			return NULL;
		}
		out = body_json(m, depth, err);
		protobuf_c_message_free_unpacked(m, &memory_protobuf);
		if (out == NULL)
			return NULL;
	}
	if (name != NULL)
		json_object_set_new(out, "name", json_string(name));
	json_object_set_new(out, "type", json_string(types[type].name));
	return out;
}

static json_t *
aggs_json(const Otsp__Aggregations *a, int depth, const char **err)
{
	json_t	   *out = json_array();

	for (size_t i = 0; i < a->n_aggs; i++)
	{
		const Otsp__Aggregation *agg = a->aggs[i];
		json_t	   *one = typed_json(agg->name, agg->has_type, agg->type, &agg->body, agg_types,
									 sizeof(agg_types) / sizeof(agg_types[0]), depth, err);

		if (one == NULL)
		{
			json_decref(out);
			return NULL;
		}
		json_array_append_new(out, one);
	}
	return out;
}

static json_t *
group_bys_json(const Otsp__GroupBys *g, int depth, const char **err)
{
	json_t	   *out = json_array();

	for (size_t i = 0; i < g->n_group_bys; i++)
	{
		const Otsp__GroupBy *gb = g->group_bys[i];
		json_t	   *one = typed_json(gb->name, gb->has_type, gb->type, &gb->body, group_by_types,
									 sizeof(group_by_types) / sizeof(group_by_types[0]), depth, err);

		if (one == NULL)
		{
			json_decref(out);
			return NULL;
		}
		json_array_append_new(out, one);
	}
	return out;
}

json_t *
search_query_query_json(const Otsp__Query *q, const char **err)
{
	return query_json(q, 0, err);
}
