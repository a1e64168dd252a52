/*-------------------------------------------------------------------------
 * gateway/action_search.c
 *	  A search index's life: CreateSearchIndex, DescribeSearchIndex,
 *	  UpdateSearchIndex and DeleteSearchIndex, each one call of ots's
 *	  (ots.create_search_index, ...), the IndexSchema turned into the JSON
 *	  schema ots reads and back.
 *
 * The JSON names are the protocol's (field_schemas, field_name, ...), but
 * for doc_values, which ots calls enable_sort_and_agg as the SDKs do, and
 * an analyzer's parameters, a message of the analyzer's kind in the
 * protocol and a JSON object in ots.  ots checks the schema and refuses
 * what Tablestore refuses; otsd refuses only what it cannot say in JSON
 * (a virtual field, an analyzer parameter that does not decode).
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "action.h"
#include "search_query.h"
#include "search_result.h"

/* the protocol's FieldType names, by number */
static const char *const field_type_names[] = {NULL, "LONG", "DOUBLE", "BOOLEAN", "KEYWORD", "TEXT",
"NESTED", "GEO_POINT", "DATE", "VECTOR"};

#define N_FIELD_TYPES (sizeof(field_type_names) / sizeof(field_type_names[0]))

/* VectorMetricType's names by number, then one ots refuses */
static const char *const vector_metric_names[] = {"EUCLIDEAN", "COSINE", "DOT_PRODUCT", "unknown"};

#define N_VECTOR_METRICS 3

/* ---------------------------------------------------------------- request: protobuf to JSON */

/* analyzer_json: a field's analyzer_parameter as JSON for its analyzer; NULL with *err set when it does not decode */
static json_t *
analyzer_json(const char *analyzer, const ProtobufCBinaryData *p, const char **err)
{
	json_t	   *out = json_object();

	if (analyzer != NULL && strcmp(analyzer, "single_word") == 0)
	{
		Otsp__SingleWordAnalyzerParameter *m =
			otsp__single_word_analyzer_parameter__unpack(&memory_protobuf, p->len, p->data);

		if (m == NULL)
			goto bad;
		if (m->has_case_sensitive)
			json_object_set_new(out, "case_sensitive", json_boolean(m->case_sensitive));
		if (m->has_delimit_word)
			json_object_set_new(out, "delimit_word", json_boolean(m->delimit_word));
		otsp__single_word_analyzer_parameter__free_unpacked(m, &memory_protobuf);
	}
	else if (analyzer != NULL && strcmp(analyzer, "split") == 0)
	{
		Otsp__SplitAnalyzerParameter *m = otsp__split_analyzer_parameter__unpack(&memory_protobuf, p->len, p->data);

		if (m == NULL)
			goto bad;
		if (m->delimiter != NULL)
			json_object_set_new(out, "delimiter", json_string(m->delimiter));
		otsp__split_analyzer_parameter__free_unpacked(m, &memory_protobuf);
	}
	else if (analyzer != NULL && strcmp(analyzer, "fuzzy") == 0)
	{
		Otsp__FuzzyAnalyzerParameter *m = otsp__fuzzy_analyzer_parameter__unpack(&memory_protobuf, p->len, p->data);

		if (m == NULL)
			goto bad;
		if (m->has_min_chars)
			json_object_set_new(out, "min_chars", json_integer(m->min_chars));
		if (m->has_max_chars)
			json_object_set_new(out, "max_chars", json_integer(m->max_chars));
		otsp__fuzzy_analyzer_parameter__free_unpacked(m, &memory_protobuf);
	}
	else if (p->len > 0)
		goto bad;
	return out;
bad:
	json_decref(out);
	*err = "analyzer_parameter does not decode as its analyzer's parameters";
	return NULL;
}

/* field_json: a FieldSchema as ots's JSON; NULL with *err set when it cannot be said */
static json_t *
field_json(const Otsp__FieldSchema *f, const char **err)
{
	json_t	   *out = json_object();

	if (f->has_is_virtual_field && f->is_virtual_field)
	{
		*err = "virtual fields are not supported";
		goto bad;
	}
	if (f->field_name != NULL)
		json_object_set_new(out, "field_name", json_string(f->field_name));
	if (f->has_field_type && f->field_type > 0 && (size_t) f->field_type < N_FIELD_TYPES)
		json_object_set_new(out, "field_type", json_string(field_type_names[f->field_type]));
	if (f->has_index)
		json_object_set_new(out, "index", json_boolean(f->index));
	if (f->has_doc_values)
		json_object_set_new(out, "enable_sort_and_agg", json_boolean(f->doc_values));
	if (f->has_store)
		json_object_set_new(out, "store", json_boolean(f->store));
	if (f->has_is_array)
		json_object_set_new(out, "is_array", json_boolean(f->is_array));
	if (f->has_enable_highlighting)
		json_object_set_new(out, "enable_highlighting", json_boolean(f->enable_highlighting));
	if (f->analyzer != NULL)
		json_object_set_new(out, "analyzer", json_string(f->analyzer));
	if (f->has_analyzer_parameter)
	{
		json_t	   *p = analyzer_json(f->analyzer, &f->analyzer_parameter, err);

		if (p == NULL)
			goto bad;
		json_object_set_new(out, "analyzer_parameter", p);
	}
	if (f->n_date_formats > 0)
	{
		json_t	   *formats = json_array();

		for (size_t i = 0; i < f->n_date_formats; i++)
			json_array_append_new(formats, json_string(f->date_formats[i]));
		json_object_set_new(out, "date_formats", formats);
	}
	if (f->vector_options != NULL)
	{
		const Otsp__VectorOptions *v = f->vector_options;
		json_t	   *opts = json_object();

		/* the enums' names as ots's schema takes them (FLOAT_32, COSINE, ...) */
		if (v->has_data_type)
			json_object_set_new(opts, "data_type", json_string(v->data_type == OTSP__VECTOR_DATA_TYPE__VD_FLOAT_32 ?
															   "FLOAT_32" : "unknown"));
		if (v->has_dimension)
			json_object_set_new(opts, "dimension", json_integer(v->dimension));
		if (v->has_metric_type)
			json_object_set_new(opts, "metric_type", json_string(vector_metric_names[v->metric_type < N_VECTOR_METRICS ?
																					 v->metric_type : N_VECTOR_METRICS]));
		json_object_set_new(out, "vector_options", opts);
	}
	if (f->n_field_schemas > 0)
	{
		json_t	   *subs = json_array();

		json_object_set_new(out, "field_schemas", subs);
		for (size_t i = 0; i < f->n_field_schemas; i++)
		{
			json_t	   *sub = field_json(f->field_schemas[i], err);

			if (sub == NULL)
				goto bad;
			json_array_append_new(subs, sub);
		}
	}
	return out;
bad:
	json_decref(out);
	return NULL;
}

/* schema_json: an IndexSchema as ots's JSON schema; NULL with *err set when it cannot be said */
static json_t *
schema_json(const Otsp__IndexSchema *s, const char **err)
{
	json_t	   *out = json_object();
	json_t	   *fields = json_array();

	json_object_set_new(out, "field_schemas", fields);
	for (size_t i = 0; i < s->n_field_schemas; i++)
	{
		json_t	   *f = field_json(s->field_schemas[i], err);

		if (f == NULL)
			goto bad;
		json_array_append_new(fields, f);
	}
	if (s->index_setting != NULL)
	{
		json_t	   *setting = json_object();
		json_t	   *routing = json_array();

		if (s->index_setting->has_number_of_shards)
			json_object_set_new(setting, "number_of_shards", json_integer(s->index_setting->number_of_shards));
		for (size_t i = 0; i < s->index_setting->n_routing_fields; i++)
			json_array_append_new(routing, json_string(s->index_setting->routing_fields[i]));
		json_object_set_new(setting, "routing_fields", routing);
		json_object_set_new(out, "index_setting", setting);
	}
	if (s->index_sort != NULL)
	{
		json_t	   *sorters = json_array();

		json_object_set_new(out, "index_sort", sorters);
		for (size_t i = 0; i < s->index_sort->n_sorter; i++)
		{
			const Otsp__Sorter *in = s->index_sort->sorter[i];
			json_t	   *sorter = json_object();
			json_t	   *body = json_object();

			if (in->field_sort != NULL)
			{
				if (in->field_sort->field_name != NULL)
					json_object_set_new(body, "field_name", json_string(in->field_sort->field_name));
				json_object_set_new(body, "order", json_string(search_sort_order_name(in->field_sort->order)));
				if (in->field_sort->has_mode)
					json_object_set_new(body, "mode", json_string(in->field_sort->mode == OTSP__SORT_MODE__SORT_MODE_MAX ? "MAX" :
																 in->field_sort->mode == OTSP__SORT_MODE__SORT_MODE_AVG ? "AVG" : "MIN"));
				json_object_set_new(sorter, "field_sort", body);
			}
			else if (in->pk_sort != NULL)
			{
				json_object_set_new(body, "order", json_string(search_sort_order_name(in->pk_sort->order)));
				json_object_set_new(sorter, "primary_key_sort", body);
			}
			else
				json_decref(body);
			json_array_append_new(sorters, sorter);
		}
	}
	return out;
bad:
	json_decref(out);
	return NULL;
}

void
action_create_search_index(Call *call)
{
	Otsp__CreateSearchIndexRequest *req = UNPACK(create_search_index_request, call);
	Otsp__CreateSearchIndexResponse resp = OTSP__CREATE_SEARCH_INDEX_RESPONSE__INIT;
	const char *err = NULL;
	json_t	   *schema = NULL;
	SqlCall		q;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (!table_name_valid(call, req->table_name))
		goto done;
	if (req->schema == NULL)
	{
		call_parameter_invalid(call, "Missing schema of the search index.");
		goto done;
	}
	if ((schema = schema_json(req->schema, &err)) == NULL)
	{
		call_parameter_invalid(call, "Invalid schema of the search index: %s.", err != NULL ? err : "it cannot be read");
		goto done;
	}
	sql_begin(&q, "SELECT ots.create_search_index(");
	sql_arg(&q, req->table_name, "text");
	sql_arg(&q, req->index_name, "text");
	sql_arg_owned(&q, json_text(schema), "jsonb");
	if (req->has_time_to_live)
		sql_named_owned(&q, "time_to_live", int_text(req->time_to_live), "bigint");
	if (req->source_index_name != NULL)
		sql_named(&q, "source_index_name", req->source_index_name, "text");
	sql_end(&q, ")");
	sql_run_reply(call, &q, &resp.base);
done:
	json_decref(schema);
	FREE(req);
}

void
action_delete_search_index(Call *call)
{
	Otsp__DeleteSearchIndexRequest *req = UNPACK(delete_search_index_request, call);
	Otsp__DeleteSearchIndexResponse resp = OTSP__DELETE_SEARCH_INDEX_RESPONSE__INIT;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	simple_call(call, "delete_search_index", req->table_name, req->index_name, NULL, &resp.base);
	FREE(req);
}

void
action_update_search_index(Call *call)
{
	Otsp__UpdateSearchIndexRequest *req = UNPACK(update_search_index_request, call);
	Otsp__UpdateSearchIndexResponse resp = OTSP__UPDATE_SEARCH_INDEX_RESPONSE__INIT;
	SqlCall		q;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (!table_name_valid(call, req->table_name))
		goto done;
	/* a TTL, the weights of the index's searches and its brother's, or a switch to its brother */
	sql_begin(&q, "SELECT ots.update_search_index(");
	sql_arg(&q, req->table_name, "text");
	sql_arg(&q, req->index_name, "text");
	if (req->has_time_to_live)
		sql_named_owned(&q, "time_to_live", int_text(req->time_to_live), "bigint");
	if (req->switch_index_name != NULL)
		sql_named(&q, "switch_index_name", req->switch_index_name, "text");
	if (req->n_query_flow_weight > 0)
	{
		json_t	   *weights = json_array();

		for (size_t i = 0; i < req->n_query_flow_weight; i++)
		{
			json_t	   *w = json_object();

			if (req->query_flow_weight[i]->index_name != NULL)
				json_object_set_new(w, "index_name", json_string(req->query_flow_weight[i]->index_name));
			if (req->query_flow_weight[i]->has_weight)
				json_object_set_new(w, "weight", json_integer(req->query_flow_weight[i]->weight));
			json_array_append_new(weights, w);
		}
		sql_named_owned(&q, "query_flow_weights", json_text(weights), "jsonb");
		json_decref(weights);
	}
	sql_end(&q, ")");
	sql_run_reply(call, &q, &resp.base);
done:
	FREE(req);
}

/* ---------------------------------------------------------------- response: JSON to protobuf */

static void
field_from(Kept *k, json_t *in, Otsp__FieldSchema *f)
{
	const char *type = json_string_value(json_object_get(in, "field_type"));
	const char *analyzer = json_string_value(json_object_get(in, "analyzer"));
	json_t	   *param = json_object_get(in, "analyzer_parameter");
	json_t	   *formats = json_object_get(in, "date_formats");
	json_t	   *subs = json_object_get(in, "field_schemas");

	otsp__field_schema__init(f);
	f->field_name = kept_string(k, json_object_get(in, "field_name"));
	for (size_t t = 1; type != NULL && t < N_FIELD_TYPES; t++)
		if (strcmp(type, field_type_names[t]) == 0)
			f->has_field_type = true, f->field_type = (Otsp__FieldType) t;
#define BOOL_MEMBER(name, member) \
	if (json_is_boolean(json_object_get(in, name))) \
		f->has_##member = true, f->member = json_is_true(json_object_get(in, name))
	BOOL_MEMBER("index", index);
	BOOL_MEMBER("enable_sort_and_agg", doc_values);
	BOOL_MEMBER("store", store);
	BOOL_MEMBER("is_array", is_array);
	BOOL_MEMBER("enable_highlighting", enable_highlighting);
#undef BOOL_MEMBER
	f->analyzer = kept_string(k, json_object_get(in, "analyzer"));
	if (analyzer != NULL && json_is_object(param))
	{
		if (strcmp(analyzer, "single_word") == 0)
		{
			Otsp__SingleWordAnalyzerParameter m = OTSP__SINGLE_WORD_ANALYZER_PARAMETER__INIT;

			m.has_case_sensitive = json_is_boolean(json_object_get(param, "case_sensitive"));
			m.case_sensitive = json_is_true(json_object_get(param, "case_sensitive"));
			m.has_delimit_word = json_is_boolean(json_object_get(param, "delimit_word"));
			m.delimit_word = json_is_true(json_object_get(param, "delimit_word"));
			f->analyzer_parameter = kept_pack(k, &m.base), f->has_analyzer_parameter = true;
		}
		else if (strcmp(analyzer, "split") == 0)
		{
			Otsp__SplitAnalyzerParameter m = OTSP__SPLIT_ANALYZER_PARAMETER__INIT;

			m.delimiter = kept_string(k, json_object_get(param, "delimiter"));
			f->analyzer_parameter = kept_pack(k, &m.base), f->has_analyzer_parameter = true;
		}
		else if (strcmp(analyzer, "fuzzy") == 0)
		{
			Otsp__FuzzyAnalyzerParameter m = OTSP__FUZZY_ANALYZER_PARAMETER__INIT;

			m.has_min_chars = json_is_integer(json_object_get(param, "min_chars"));
			m.min_chars = (int32_t) json_integer_value(json_object_get(param, "min_chars"));
			m.has_max_chars = json_is_integer(json_object_get(param, "max_chars"));
			m.max_chars = (int32_t) json_integer_value(json_object_get(param, "max_chars"));
			f->analyzer_parameter = kept_pack(k, &m.base), f->has_analyzer_parameter = true;
		}
	}
	f->n_date_formats = json_array_size(formats);
	f->date_formats = kept_alloc(k, f->n_date_formats * sizeof(char *));
	for (size_t i = 0; i < f->n_date_formats; i++)
		f->date_formats[i] = kept_string(k, json_array_get(formats, i));
	if (json_is_object(json_object_get(in, "vector_options")))
	{
		json_t	   *opts = json_object_get(in, "vector_options");
		Otsp__VectorOptions *v = kept_alloc(k, sizeof(Otsp__VectorOptions));
		const char *metric = json_string_value(json_object_get(opts, "metric_type"));

		otsp__vector_options__init(v);
		v->has_data_type = true, v->data_type = OTSP__VECTOR_DATA_TYPE__VD_FLOAT_32;
		v->has_dimension = json_is_integer(json_object_get(opts, "dimension"));
		v->dimension = (int32_t) json_integer_value(json_object_get(opts, "dimension"));
		for (int m = 0; metric != NULL && m < N_VECTOR_METRICS; m++)
			if (strcmp(metric, vector_metric_names[m]) == 0)
				v->has_metric_type = true, v->metric_type = (Otsp__VectorMetricType) m;
		f->vector_options = v;
	}
	f->n_field_schemas = json_array_size(subs);
	f->field_schemas = kept_alloc(k, f->n_field_schemas * sizeof(Otsp__FieldSchema *));
	for (size_t i = 0; i < f->n_field_schemas; i++)
	{
		f->field_schemas[i] = kept_alloc(k, sizeof(Otsp__FieldSchema));
		field_from(k, json_array_get(subs, i), f->field_schemas[i]);
	}
}

static Otsp__SortOrder
order_from(json_t *sorter)
{
	const char *order = json_string_value(json_object_get(sorter, "order"));

	return order != NULL && strcmp(order, "DESC") == 0 ? OTSP__SORT_ORDER__SORT_ORDER_DESC : OTSP__SORT_ORDER__SORT_ORDER_ASC;
}

/* schema_from: ots's described schema as an IndexSchema, in memory of k */
static Otsp__IndexSchema *
schema_from(Kept *k, json_t *in)
{
	Otsp__IndexSchema *s = kept_alloc(k, sizeof(Otsp__IndexSchema));
	json_t	   *fields = json_object_get(in, "field_schemas");
	json_t	   *setting = json_object_get(in, "index_setting");
	json_t	   *sorters = json_object_get(in, "index_sort");

	otsp__index_schema__init(s);
	s->n_field_schemas = json_array_size(fields);
	s->field_schemas = kept_alloc(k, s->n_field_schemas * sizeof(Otsp__FieldSchema *));
	for (size_t i = 0; i < s->n_field_schemas; i++)
	{
		s->field_schemas[i] = kept_alloc(k, sizeof(Otsp__FieldSchema));
		field_from(k, json_array_get(fields, i), s->field_schemas[i]);
	}
	if (json_is_object(setting))
	{
		json_t	   *routing = json_object_get(setting, "routing_fields");

		s->index_setting = kept_alloc(k, sizeof(Otsp__IndexSetting));
		otsp__index_setting__init(s->index_setting);
		s->index_setting->has_number_of_shards = json_is_integer(json_object_get(setting, "number_of_shards"));
		s->index_setting->number_of_shards = (int32_t) json_integer_value(json_object_get(setting, "number_of_shards"));
		s->index_setting->n_routing_fields = json_array_size(routing);
		s->index_setting->routing_fields = kept_alloc(k, s->index_setting->n_routing_fields * sizeof(char *));
		for (size_t i = 0; i < s->index_setting->n_routing_fields; i++)
			s->index_setting->routing_fields[i] = kept_string(k, json_array_get(routing, i));
	}
	if (json_is_array(sorters))
	{
		s->index_sort = kept_alloc(k, sizeof(Otsp__Sort));
		otsp__sort__init(s->index_sort);
		s->index_sort->n_sorter = json_array_size(sorters);
		s->index_sort->sorter = kept_alloc(k, s->index_sort->n_sorter * sizeof(Otsp__Sorter *));
		for (size_t i = 0; i < s->index_sort->n_sorter; i++)
		{
			json_t	   *sorter = json_array_get(sorters, i);
			json_t	   *field = json_object_get(sorter, "field_sort");
			json_t	   *key = json_object_get(sorter, "primary_key_sort");
			Otsp__Sorter *out = kept_alloc(k, sizeof(Otsp__Sorter));

			otsp__sorter__init(out);
			if (json_is_object(field))
			{
				const char *mode = json_string_value(json_object_get(field, "mode"));

				out->field_sort = kept_alloc(k, sizeof(Otsp__FieldSort));
				otsp__field_sort__init(out->field_sort);
				out->field_sort->field_name = kept_string(k, json_object_get(field, "field_name"));
				out->field_sort->has_order = true;
				out->field_sort->order = order_from(field);
				if (mode != NULL)
				{
					out->field_sort->has_mode = true;
					out->field_sort->mode = strcmp(mode, "MAX") == 0 ? OTSP__SORT_MODE__SORT_MODE_MAX :
						strcmp(mode, "AVG") == 0 ? OTSP__SORT_MODE__SORT_MODE_AVG : OTSP__SORT_MODE__SORT_MODE_MIN;
				}
			}
			else if (json_is_object(key))
			{
				out->pk_sort = kept_alloc(k, sizeof(Otsp__PrimaryKeySort));
				otsp__primary_key_sort__init(out->pk_sort);
				out->pk_sort->has_order = true;
				out->pk_sort->order = order_from(key);
			}
			s->index_sort->sorter[i] = out;
		}
	}
	return s;
}

void
action_describe_search_index(Call *call)
{
	Otsp__DescribeSearchIndexRequest *req = UNPACK(describe_search_index_request, call);
	Otsp__DescribeSearchIndexResponse resp = OTSP__DESCRIBE_SEARCH_INDEX_RESPONSE__INIT;
	Otsp__SyncStat sync = OTSP__SYNC_STAT__INIT;
	Otsp__MeteringInfo metering = OTSP__METERING_INFO__INIT;
	Otsp__IndexStatus status = OTSP__INDEX_STATUS__INIT;
	Kept		k = {0};
	SqlCall		q;
	PGresult   *res = NULL;
	json_t	   *d = NULL;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (!table_name_valid(call, req->table_name))
		goto done;
	if (req->index_name == NULL)
	{
		call_parameter_invalid(call, "Missing index_name.");
		goto done;
	}
	sql_begin(&q, "SELECT ots.describe_search_index(");
	sql_arg(&q, req->table_name, "text");
	sql_arg(&q, req->index_name, "text");
	sql_end(&q, ")::text");
	res = sql_run(call, NULL, &q);
	sql_free(&q);
	if (res == NULL)
		goto done;
	if (PQntuples(res) != 1 || PQgetisnull(res, 0, 0) || (d = json_parse(PQgetvalue(res, 0, 0))) == NULL)
	{
		call_error(call, 500, "OTSInternalServerError", "ots returned no description.");
		goto done;
	}
	resp.schema = schema_from(&k, json_object_get(d, "schema"));
	sync.has_sync_phase = true;
	sync.sync_phase = strcmp(json_string_value(json_object_get(json_object_get(d, "sync_stat"), "sync_phase")) ?: "", "FULL") == 0 ?
		OTSP__SYNC_PHASE__FULL : OTSP__SYNC_PHASE__INCR;
	sync.has_current_sync_timestamp = true;
	sync.current_sync_timestamp = json_integer_value(json_object_get(json_object_get(d, "sync_stat"), "current_sync_timestamp"));
	resp.sync_stat = &sync;
	metering.has_storage_size = metering.has_row_count = metering.has_timestamp = true;
	metering.storage_size = json_integer_value(json_object_get(json_object_get(d, "metering_info"), "storage_size"));
	metering.row_count = json_integer_value(json_object_get(json_object_get(d, "metering_info"), "row_count"));
	metering.timestamp = sync.current_sync_timestamp / 1000000;
	resp.metering_info = &metering;
	resp.has_create_time = true;
	resp.create_time = json_integer_value(json_object_get(d, "create_time"));
	resp.has_time_to_live = true;
	resp.time_to_live = (int32_t) json_integer_value(json_object_get(d, "time_to_live"));
	if (json_is_string(json_object_get(d, "brother_index_name")))
		resp.brother_index_name = (char *) json_string_value(json_object_get(d, "brother_index_name"));
	{
		json_t	   *weights = json_object_get(d, "query_flow_weights");
		size_t		n = json_is_array(weights) ? json_array_size(weights) : 0;

		if (n > 0)
		{
			resp.n_query_flow_weight = n;
			resp.query_flow_weight = kept_alloc(&k, sizeof(Otsp__QueryFlowWeight *) * n);
			for (size_t i = 0; i < n; i++)
			{
				Otsp__QueryFlowWeight *w = kept_alloc(&k, sizeof(Otsp__QueryFlowWeight));
				json_t	   *in = json_array_get(weights, i);

				otsp__query_flow_weight__init(w);
				w->index_name = (char *) json_string_value(json_object_get(in, "index_name"));
				w->has_weight = true;
				w->weight = (int32_t) json_integer_value(json_object_get(in, "weight"));
				resp.query_flow_weight[i] = w;
			}
		}
	}
	status.has_status = true;
	status.status = OTSP__INDEX_STATUS_ENUM__RUNNING;
	status.status_description = (char *) "";
	resp.index_status = &status;
	call_reply(call, &resp.base);
done:
	json_decref(d);
	kept_free(&k);
	if (res != NULL)
		PQclear(res);
	FREE(req);
}

/* ---------------------------------------------------------------- Search */

/* columns_json: ColumnsToGet as ots's columns_to_get */
static json_t *
columns_json(const Otsp__ColumnsToGet *c)
{
	static const char *const types[] = {NULL, "RETURN_ALL", "RETURN_SPECIFIED", "RETURN_NONE", "RETURN_ALL_FROM_INDEX"};
	json_t	   *out = json_object();
	json_t	   *names = json_array();

	json_object_set_new(out, "return_type", json_string(c != NULL && c->has_return_type && c->return_type >= 1 &&
													   c->return_type <= 4 ? types[c->return_type] : "RETURN_NONE"));
	for (size_t i = 0; c != NULL && i < c->n_column_names; i++)
		json_array_append_new(names, json_string(c->column_names[i]));
	json_object_set_new(out, "column_names", names);
	return out;
}

/*
 * search_run: one call of ots.search(table, index, query, columns): its
 * result and the table's key columns in order, and with field_types the
 * index's fields' types (what aggregations' typed values are told by);
 * false after replying
 */
static bool
search_run(Call *call, const char *table, const char *index, json_t *query, json_t *columns,
		   json_t **result, json_t **pk_order, json_t **field_types)
{
	SqlCall		q;
	PGresult   *res;
	bool		ok;

	sql_begin(&q, "SELECT ots.search(");
	sql_arg(&q, table, "text");
	sql_arg(&q, index, "text");
	sql_arg_owned(&q, json_text(query), "jsonb");
	sql_arg_owned(&q, json_text(columns), "jsonb");
	sql_end(&q, field_types == NULL ?
			")::text, (SELECT pg_catalog.jsonb_agg(p OPERATOR(pg_catalog.->) 'name')"
			" FROM pg_catalog.jsonb_array_elements(ots.describe_table($1) OPERATOR(pg_catalog.->) 'primary_key') p)::text" :
			")::text, (SELECT pg_catalog.jsonb_agg(p OPERATOR(pg_catalog.->) 'name')"
			" FROM pg_catalog.jsonb_array_elements(ots.describe_table($1) OPERATOR(pg_catalog.->) 'primary_key') p)::text,"
			" (SELECT pg_catalog.jsonb_object_agg(f OPERATOR(pg_catalog.->>) 'field_name', f OPERATOR(pg_catalog.->>) 'field_type')"
			" FROM pg_catalog.jsonb_array_elements(ots.describe_search_index($1, $2) OPERATOR(pg_catalog.->) 'schema'"
			" OPERATOR(pg_catalog.->) 'field_schemas') f)::text");
	res = sql_run(call, NULL, &q);
	sql_free(&q);
	if (res == NULL)
		return false;
	ok = PQntuples(res) == 1 && (*result = json_parse(PQgetvalue(res, 0, 0))) != NULL &&
		(*pk_order = json_parse(PQgetvalue(res, 0, 1))) != NULL &&
		(field_types == NULL || (*field_types = json_parse(PQgetvalue(res, 0, 2))) != NULL);
	PQclear(res);
	if (!ok)
		call_error(call, 500, "OTSInternalServerError", "ots returned no search result.");
	return ok;
}

/* a page's rows as PlainBuffer, each in a Buf of its own */
typedef struct PackedRows
{
	Buf		   *bufs;
	size_t		n;
	size_t		cap;
} PackedRows;

static void
rows_pack(PackedRows *p, json_t *result, json_t *pk_order)
{
	json_t	   *rows = json_object_get(result, "rows");

	for (size_t i = 0; i < json_array_size(rows); i++)
	{
		json_t	   *row = json_array_get(rows, i);

		if (p->n == p->cap)
		{
			p->cap = p->cap ? p->cap * 2 : 16;
			p->bufs = realloc(p->bufs, p->cap * sizeof(Buf));
		}
		memset(&p->bufs[p->n], 0, sizeof(Buf));
		pb_begin(&p->bufs[p->n]);
		pb_write_row(&p->bufs[p->n], json_object_get(row, "primary_key"), pk_order, json_object_get(row, "attributes"));
		p->n++;
	}
}

/* rows_binary: the packed rows as the response's repeated bytes (pointing into p) */
static ProtobufCBinaryData *
rows_binary(const PackedRows *p)
{
	ProtobufCBinaryData *out = calloc(p->n + 1, sizeof(ProtobufCBinaryData));

	for (size_t i = 0; i < p->n; i++)
	{
		out[i].data = (uint8_t *) p->bufs[i].data;
		out[i].len = p->bufs[i].len;
	}
	return out;
}

static void
rows_free(PackedRows *p)
{
	for (size_t i = 0; i < p->n; i++)
		buf_free(&p->bufs[i]);
	free(p->bufs);
}

/*
 * Search: the request's SearchQuery as ots's JSON, one call of ots.search,
 * its page as PlainBuffer rows (keys in the table's order), the total
 * count and the token (ots's, as bytes).  routing_values are taken as
 * given: ots's index is one shard, which every routing value routes to.
 */
void
action_search(Call *call)
{
	Otsp__SearchRequest *req = UNPACK(search_request, call);
	Otsp__SearchResponse resp = OTSP__SEARCH_RESPONSE__INIT;
	const char *err = NULL;
	json_t	   *query = NULL;
	json_t	   *result = NULL;
	json_t	   *pk_order = NULL;
	json_t	   *columns = NULL;
	json_t	   *field_types = NULL;
	PackedRows	rows = {0};
	Kept		k = {0};
	bool		aggregated;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (!table_name_valid(call, req->table_name))
		goto done;
	if (req->index_name == NULL)
	{
		call_parameter_invalid(call, "Missing index_name.");
		goto done;
	}
	if (!req->has_search_query || (query = search_query_json(&req->search_query, &err)) == NULL)
	{
		call_parameter_invalid(call, "Invalid search_query: %s.", err != NULL ? err : "it is missing");
		goto done;
	}
	columns = columns_json(req->columns_to_get);
	aggregated = json_object_get(query, "aggs") != NULL || json_object_get(query, "group_bys") != NULL;
	if (!search_run(call, req->table_name, req->index_name, query, columns, &result, &pk_order,
					aggregated ? &field_types : NULL))
		goto done;
	rows_pack(&rows, result, pk_order);
	resp.rows = rows_binary(&rows);
	resp.n_rows = rows.n;
	resp.has_total_hits = true;
	resp.total_hits = json_integer_value(json_object_get(result, "total_count"));
	resp.has_is_all_succeeded = true;
	resp.is_all_succeeded = true;
	if (json_is_string(json_object_get(result, "next_token")))
	{
		resp.has_next_token = true;
		resp.next_token.data = (uint8_t *) json_string_value(json_object_get(result, "next_token"));
		resp.next_token.len = strlen(json_string_value(json_object_get(result, "next_token")));
	}
	if (aggregated)
		search_result_pack(&k, result, query, field_types, pk_order, &resp);
	search_hits_pack(&k, result, &resp);
	call_reply(call, &resp.base);
done:
	kept_free(&k);
	json_decref(field_types);
	rows_free(&rows);
	free(resp.rows);
	json_decref(query);
	json_decref(columns);
	json_decref(result);
	json_decref(pk_order);
	FREE(req);
}

/* ---------------------------------------------------------------- ComputeSplits and ParallelScan */

#define SCAN_MAX_LIMIT 2000		/* rows of a ParallelScan page, Tablestore's bound */
#define SEARCH_PAGE 100			/* rows of an ots.search page */

/*
 * A ParallelScan's token after its last page of rows: the next call returns
 * no rows and no token, as Tablestore's scan ends (a page shorter than the
 * limit still carries a token).  No token of ots.search is this text.
 */
#define SCAN_END_TOKEN "ots-scan-end"

/*
 * scan_session: the session id of a scan of index (one split: ots's index
 * is one shard), which names the index as made (its create_time), so that
 * a session outlives no index; NULL after replying.  for_splits: a missing
 * table or index is refused with ComputeSplits' own texts (Tablestore's:
 * 400 and OTSParameterInvalid or OTSMetaNotMatch).
 */
static char *
scan_session(Call *call, const char *table, const char *index, bool for_splits)
{
	SqlCall		q;
	PGresult   *res;
	char	   *session = NULL;

	if (!table_name_valid(call, table))
		return NULL;
	if (index == NULL)
	{
		if (for_splits)
			call_parameter_invalid(call, "[search index splits options] must not be null");
		else
			call_parameter_invalid(call, "Missing index_name.");
		return NULL;
	}
	if (for_splits)
	{
		ResolvedTable resolved;
		bool		index_found;

		if (!table_resolve(call, table, true, &resolved))
			return NULL;
		if (!resolved.found)
		{
			call_parameter_invalid(call, "table [%s] does not exist", table);
			return NULL;
		}
		resolved_table_free(&resolved);
		sql_begin(&q, "SELECT EXISTS (SELECT FROM ots.list_search_index(a.t) l "
				  "WHERE l.index_name OPERATOR(pg_catalog.=) a.i) FROM (VALUES (");
		sql_arg(&q, table, "text");
		sql_arg(&q, index, "text");
		sql_end(&q, ")) a(t, i)");
		res = sql_run(call, NULL, &q);
		sql_free(&q);
		if (res == NULL)
			return NULL;
		index_found = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "t") == 0;
		PQclear(res);
		if (!index_found)
		{
			call_error(call, 400, "OTSMetaNotMatch", "search index [%s] does not exist", index);
			return NULL;
		}
	}
	sql_begin(&q, "SELECT 'ots-scan:' OPERATOR(pg_catalog.||) (ots.describe_search_index(");
	sql_arg(&q, table, "text");
	sql_arg(&q, index, "text");
	sql_end(&q, ") OPERATOR(pg_catalog.->>) 'create_time')");
	res = sql_run(call, NULL, &q);
	sql_free(&q);
	if (res == NULL)
		return NULL;
	if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
		session = strdup(PQgetvalue(res, 0, 0));
	else
		call_error(call, 500, "OTSInternalServerError", "ots returned no description.");
	PQclear(res);
	return session;
}

void
action_compute_splits(Call *call)
{
	Otsp__ComputeSplitsRequest *req = UNPACK(compute_splits_request, call);
	Otsp__ComputeSplitsResponse resp = OTSP__COMPUTE_SPLITS_RESPONSE__INIT;
	char	   *session;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	session = scan_session(call, req->table_name,
						   req->search_index_splits_options ? req->search_index_splits_options->index_name : NULL, true);
	if (session != NULL)
	{
		resp.has_session_id = true;
		resp.session_id.data = (uint8_t *) session;
		resp.session_id.len = strlen(session);
		resp.has_splits_size = true;
		resp.splits_size = 1;
		call_reply(call, &resp.base);
		free(session);
	}
	FREE(req);
}

/*
 * ParallelScan: the rows the scan query matches in key order, limit of them
 * a page (2,000 at most, by default), read as pages of ots.search that the
 * token continues; the one split (max_parallel 1, current_parallel_id 0) of
 * a session ComputeSplits gave for this index
 */
void
action_parallel_scan(Call *call)
{
	Otsp__ParallelScanRequest *req = UNPACK(parallel_scan_request, call);
	Otsp__ParallelScanResponse resp = OTSP__PARALLEL_SCAN_RESPONSE__INIT;
	const Otsp__ScanQuery *sq;
	const char *err = NULL;
	json_t	   *query = NULL;
	json_t	   *columns = NULL;
	json_t	   *pk_order = NULL;
	char	   *session = NULL;
	char	   *token = NULL;
	PackedRows	rows = {0};
	int			limit;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	sq = req->scan_query;
	if ((session = scan_session(call, req->table_name, req->index_name, false)) == NULL)
		goto done;
	if (!req->has_session_id || req->session_id.len != strlen(session) ||
		memcmp(req->session_id.data, session, req->session_id.len) != 0)
	{
		call_parameter_invalid(call, "Invalid session_id: it is not one ComputeSplits gave for this index.");
		goto done;
	}
	if (sq == NULL || sq->query == NULL)
	{
		call_parameter_invalid(call, "Missing scan_query, or its query.");
		goto done;
	}
	/* one split (ComputeSplits' splits_size); Tablestore's texts */
	if (sq->has_max_parallel && sq->max_parallel != 1)
	{
		call_parameter_invalid(call, "[parallel_scan.max_parallel_id] must in (0 ,1], current max_parallel_id is %d",
							   sq->max_parallel);
		goto done;
	}
	if (sq->has_current_parallel_id && sq->current_parallel_id != 0)
	{
		call_parameter_invalid(call, "[parallel_scan.current_parallel_id] must in [0, max_parallel), current max_parallel is 1, current_parallel_id is %d",
							   sq->current_parallel_id);
		goto done;
	}
	limit = sq->has_limit ? sq->limit : SCAN_MAX_LIMIT;
	if (limit < 1 || limit > SCAN_MAX_LIMIT)
	{
		call_parameter_invalid(call, "Invalid limit of scan_query: 1 to %d.", SCAN_MAX_LIMIT);
		goto done;
	}
	if (req->columns_to_get != NULL && req->columns_to_get->has_return_type && req->columns_to_get->return_type == 1)
	{
		call_parameter_invalid(call, "Invalid columns_to_get: a parallel scan returns the index's columns (RETURN_ALL_FROM_INDEX, RETURN_SPECIFIED, RETURN_NONE), not RETURN_ALL.");
		goto done;
	}
	query = json_object();
	{
		json_t	   *q = search_query_query_json(sq->query, &err);

		if (q == NULL)
		{
			call_parameter_invalid(call, "Invalid query of scan_query: %s.", err != NULL ? err : "it cannot be read");
			goto done;
		}
		json_object_set_new(query, "query", q);
	}
	json_object_set_new(query, "sort", json_loads("{\"sorters\": [{\"primary_key_sort\": {\"order\": \"ASC\"}}]}", 0, NULL));
	columns = columns_json(req->columns_to_get);
	if (sq->has_token && sq->token.len > 0)
	{
		token = strndup((const char *) sq->token.data, sq->token.len);
		/* bytes that are no text are no token of ots's: ots says so */
		if (strlen(token) != sq->token.len || !utf8_valid(token))
		{
			free(token);
			token = strdup("not a token");
		}
	}
	if (token != NULL && strcmp(token, SCAN_END_TOKEN) == 0)
	{
		/* the scan ended on the last page: no rows, no token */
		call_reply(call, &resp.base);
		goto done;
	}
	for (;;)
	{
		json_t	   *result = NULL;
		json_t	   *next;

		json_object_set_new(query, "limit", json_integer(limit - (int) rows.n < SEARCH_PAGE ? limit - (int) rows.n : SEARCH_PAGE));
		if (token != NULL)
			json_object_set_new(query, "token", json_string(token));
		json_decref(pk_order);
		pk_order = NULL;
		if (!search_run(call, req->table_name, req->index_name, query, columns, &result, &pk_order, NULL))
			goto done;
		rows_pack(&rows, result, pk_order);
		next = json_object_get(result, "next_token");
		free(token);
		token = json_is_string(next) ? strdup(json_string_value(next)) : NULL;
		json_decref(result);
		if (token == NULL || (int) rows.n >= limit)
			break;
	}
	resp.rows = rows_binary(&rows);
	resp.n_rows = rows.n;
	if (token == NULL && rows.n > 0)
		token = strdup(SCAN_END_TOKEN);
	if (token != NULL)
	{
		resp.has_next_token = true;
		resp.next_token.data = (uint8_t *) token;
		resp.next_token.len = strlen(token);
	}
	call_reply(call, &resp.base);
done:
	rows_free(&rows);
	free(resp.rows);
	free(token);
	free(session);
	json_decref(query);
	json_decref(columns);
	json_decref(pk_order);
	FREE(req);
}
