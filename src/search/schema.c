/*-------------------------------------------------------------------------
 * src/search/schema.c
 *	  A search index's schema (Tablestore's IndexSchema) read from jsonb,
 *	  checked with Tablestore's rules, shown with its defaults, and what
 *	  its storage keeps of each field.
 *
 * The schema a user gives is jsonb with the SDKs' names:
 *	  {"field_schemas": [{"field_name", "field_type", "index", "enable_sort_and_agg",
 *	                      "store", "is_array", "analyzer", "analyzer_parameter",
 *	                      "enable_highlighting", "date_formats", "field_schemas"}, ...],
 *	   "index_setting": {"routing_fields": [...], "number_of_shards": 1},
 *	   "index_sort": [{"primary_key_sort": {"order"}} | {"field_sort": {"field_name", "order", "mode"}}]}
 * search_schema_jsonb writes it back with every default filled in; what
 * ots.search_indexes keeps and describe_search_index shows is that, and
 * reading it again gives the same schema.
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "errors.h"
#include "format/names.h"
#include "format/request_fields.h"
#include "meta/catalog.h"
#include "search/date.h"
#include "search/json_build.h"
#include "search/schema.h"

static const char *const type_names[] = {
	[SEARCH_LONG] = "LONG",
	[SEARCH_DOUBLE] = "DOUBLE",
	[SEARCH_BOOLEAN] = "BOOLEAN",
	[SEARCH_KEYWORD] = "KEYWORD",
	[SEARCH_TEXT] = "TEXT",
	[SEARCH_NESTED] = "NESTED",
	[SEARCH_GEO_POINT] = "GEO_POINT",
	[SEARCH_DATE] = "DATE",
	[SEARCH_VECTOR] = "VECTOR",
};

static const char *const mode_names[] = {NULL, "MIN", "MAX", "AVG"};

/* PostgreSQL's system columns, whose names no field's column can have */
static const char *const system_columns[] = {"tableoid", "xmin", "cmin", "xmax", "cmax", "ctid"};

static const char *const schema_fields[] = {"field_schemas", "index_setting", "index_sort"};
static const RequestFields schema_object = REQUEST_FIELDS("an index schema", schema_fields);
static const char *const field_fields[] = {
	"field_name", "field_type", "index", "enable_sort_and_agg", "store", "is_array", "analyzer",
	"analyzer_parameter", "enable_highlighting", "date_formats", "field_schemas", "vector_options"
};
static const char *const vector_fields[] = {"data_type", "dimension", "metric_type"};
static const RequestFields vector_object = REQUEST_FIELDS("vector_options", vector_fields);
static const RequestFields field_object = REQUEST_FIELDS("a field schema", field_fields);
static const char *const setting_fields[] = {"routing_fields", "number_of_shards"};
static const RequestFields setting_object = REQUEST_FIELDS("index_setting", setting_fields);
static const char *const sort_fields[] = {"primary_key_sort", "field_sort"};
static const RequestFields sort_object = REQUEST_FIELDS("a sorter of index_sort", sort_fields);
static const char *const pk_sort_fields[] = {"order"};
static const RequestFields pk_sort_object = REQUEST_FIELDS("primary_key_sort", pk_sort_fields);
static const char *const field_sort_fields[] = {"field_name", "order", "mode"};
static const RequestFields field_sort_object = REQUEST_FIELDS("field_sort", field_sort_fields);

const char *
search_field_type_name(SearchFieldType type)
{
	return type_names[type];
}

/* ---------------------------------------------------------------- reading jsonb */

/* schema_member: obj's member key, NULL when absent or JSON null */
static JsonbValue *
schema_member(JsonbContainer *obj, const char *key, JsonbValue *out)
{
	JsonbValue *v = getKeyJsonValueFromContainer(obj, key, strlen(key), out);

	return v == NULL || v->type == jbvNull ? NULL : v;
}

static void
schema_refuse(const char *message, const char *detail)
{
	ots_parameter_invalid(message, detail);
}

/* schema_object_of: v as an object's container, or the refusal naming what */
static JsonbContainer *
schema_object_of(JsonbValue *v, const char *what)
{
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		schema_refuse(psprintf("Invalid %s: it is not an object.", what), "See docs/reference.md, \"Search\".");
	return v->val.binary.data;
}

static JsonbContainer *
schema_array_of(JsonbValue *v, const char *what)
{
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		schema_refuse(psprintf("Invalid %s: it is not an array.", what), "See docs/reference.md, \"Search\".");
	return v->val.binary.data;
}

static bool
schema_bool(JsonbContainer *obj, const char *key, bool dflt, const char *field)
{
	JsonbValue	v;

	if (schema_member(obj, key, &v) == NULL)
		return dflt;
	if (v.type != jbvBool)
		schema_refuse(psprintf("Invalid %s of field '%s': it is not a boolean.", key, field),
					  "index, enable_sort_and_agg, store, is_array and enable_highlighting are true or false.");
	return v.val.boolean;
}

/* schema_string: the string member key of obj, NUL-terminated, NULL when absent */
static const char *
schema_string(JsonbContainer *obj, const char *key, const char *what)
{
	JsonbValue	v;

	if (schema_member(obj, key, &v) == NULL)
		return NULL;
	if (v.type != jbvString)
		schema_refuse(psprintf("Invalid %s of %s: it is not a string.", key, what),
					  "See docs/reference.md, \"Search\".");
	return pnstrdup(v.val.string.val, v.val.string.len);
}

static bool
schema_order_descending(JsonbContainer *obj, const char *what)
{
	const char *order = schema_string(obj, "order", what);

	if (order == NULL || strcmp(order, "ASC") == 0 || strcmp(order, "SORT_ORDER_ASC") == 0)
		return false;
	if (strcmp(order, "DESC") == 0 || strcmp(order, "SORT_ORDER_DESC") == 0)
		return true;
	schema_refuse(psprintf("Invalid order of %s: '%s'.", what, order), "The order is ASC or DESC.");
	return false;
}

/* ---------------------------------------------------------------- fields */

static void schema_read_fields(JsonbContainer *arr, int depth, const char *parent,
							   int *counted, int *nfields, SearchField **fields);

static SearchFieldType
schema_read_type(const char *name, const char *field)
{
	if (name == NULL)
		schema_refuse(psprintf("Missing field_type of field '%s'.", field),
					  "A field's type is LONG, DOUBLE, BOOLEAN, KEYWORD, TEXT, NESTED, GEO_POINT, DATE or VECTOR.");
	for (int i = SEARCH_LONG; i <= SEARCH_VECTOR; i++)
		if (strcmp(name, type_names[i]) == 0)
			return i;
	schema_refuse(psprintf("Invalid field_type of field '%s': '%s'.", field, name),
				  "A field's type is LONG, DOUBLE, BOOLEAN, KEYWORD, TEXT, NESTED, GEO_POINT, DATE or VECTOR.");
	return 0;
}

/*
 * schema_read_vector reads a VECTOR field's vector_options (data_type
 * FLOAT_32, dimension 1 to OTS_MAX_SEARCH_VECTOR_DIMENSION, metric_type
 * EUCLIDEAN, COSINE or DOT_PRODUCT, each also with Tablestore's VD_ / VM_
 * prefix): the field is kept in the schema, so that an index of
 * Tablestore's with one can be made and described, but ots has no vector
 * index (Debian's PostgreSQL 15 packages have none): no column, and the
 * knn_vector_query that would search it is refused
 */
static void
schema_read_vector(JsonbContainer *obj, const char *parent, const char *path, SearchField *f)
{
	static const char *const metrics[] = {"EUCLIDEAN", "COSINE", "DOT_PRODUCT"};
	JsonbValue	v;
	JsonbContainer *opts;
	const char *s;
	double		dimension;

	if (schema_member(obj, "vector_options", &v) != NULL && f->type != SEARCH_VECTOR)
		schema_refuse(psprintf("Field '%s' of type %s cannot have vector_options.", path, type_names[f->type]),
					  "Only VECTOR fields have vector options.");
	if (f->type != SEARCH_VECTOR)
		return;
	if (parent != NULL || f->is_array || f->sort_and_agg)
		schema_refuse(psprintf("VECTOR field '%s' cannot be a NESTED field's, is_array nor enable_sort_and_agg.", path),
					  "A VECTOR field is a top-level field of one vector.");
	if (schema_member(obj, "vector_options", &v) == NULL)
		schema_refuse(psprintf("Missing vector_options of VECTOR field '%s'.", path),
					  "vector_options is {\"data_type\": \"FLOAT_32\", \"dimension\": n, \"metric_type\": \"COSINE\"}.");
	opts = schema_object_of(&v, psprintf("vector_options of field '%s'", path));
	request_fields_check(opts, &vector_object, "the vector_options of '%s'", path);
	s = schema_string(opts, "data_type", "vector_options");
	if (s != NULL && strcmp(s, "FLOAT_32") != 0 && strcmp(s, "VD_FLOAT_32") != 0)
		schema_refuse(psprintf("Invalid data_type of the vector_options of field '%s': '%s'.", path, s),
					  "The data_type is FLOAT_32.");
	f->vector_data_type = "FLOAT_32";
	dimension = schema_member(opts, "dimension", &v) != NULL && v.type == jbvNumeric ?
		DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(v.val.numeric))) : 0;
	if (!(dimension >= 1 && dimension <= OTS_MAX_SEARCH_VECTOR_DIMENSION && dimension == floor(dimension)))
		schema_refuse(psprintf("Invalid dimension of the vector_options of field '%s': 1 to %d.", path,
							   OTS_MAX_SEARCH_VECTOR_DIMENSION), "The dimension is a whole number of floats.");
	f->vector_dimension = (int) dimension;
	s = schema_string(opts, "metric_type", "vector_options");
	for (int i = 0; s != NULL && i < lengthof(metrics); i++)
		if (strcmp(s, metrics[i]) == 0 || strcmp(s, psprintf("VM_%s", metrics[i])) == 0)
			f->vector_metric_type = metrics[i];
	if (f->vector_metric_type == NULL)
		schema_refuse(psprintf("Invalid metric_type of the vector_options of field '%s': '%s'.", path, s != NULL ? s : ""),
					  "The metric_type is EUCLIDEAN, COSINE or DOT_PRODUCT.");
}

/*
 * schema_read_field reads one field schema (a sub-field when parent is
 * set, whose path is parent.name)
 */
static void
schema_read_field(JsonbContainer *obj, int depth, const char *parent, int *counted, SearchField *f)
{
	const char *name = schema_string(obj, "field_name", "a field schema");
	const char *path;
	const char *analyzer;
	JsonbValue	v;

	if (name == NULL)
		schema_refuse("Missing field_name of a field schema.", "Every field schema has a field_name.");
	/*
	 * surrounding spaces are no part of the name: the Node SDK's own search
	 * test names a field "col_nested2 " and writes and queries col_nested2,
	 * as Tablestore answers it
	 */
	while (*name == ' ')
		name++;
	name = pnstrdup(name, strlen(name));
	for (char *end = (char *) name + strlen(name); end > name && end[-1] == ' ';)
		*--end = '\0';
	names_check_column(name, strlen(name));
	path = parent != NULL ? psprintf("%s.%s", parent, name) : name;
	request_fields_check(obj, &field_object, "the field schema of '%s'", path);
	if (++*counted > OTS_MAX_SEARCH_FIELDS)
		schema_refuse(psprintf("Too many fields: more than %d.", OTS_MAX_SEARCH_FIELDS),
					  "A search index has at most that many fields, sub-fields of NESTED fields included.");
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->type = schema_read_type(schema_string(obj, "field_type", psprintf("field '%s'", path)), path);
	f->index = schema_bool(obj, "index", true, path);
	f->sort_and_agg = schema_bool(obj, "enable_sort_and_agg", false, path);
	f->store = schema_bool(obj, "store", f->type != SEARCH_TEXT, path);
	f->is_array = schema_bool(obj, "is_array", false, path);
	f->enable_highlighting = schema_bool(obj, "enable_highlighting", false, path);

	if (f->type == SEARCH_TEXT && f->sort_and_agg)
		schema_refuse(psprintf("Field '%s' of type TEXT cannot enable_sort_and_agg.", path),
					  "TEXT fields are cut into tokens; sort and aggregate on a KEYWORD field.");
	if (f->type == SEARCH_NESTED && (f->sort_and_agg || f->is_array))
		schema_refuse(psprintf("NESTED field '%s' cannot enable_sort_and_agg nor be is_array.", path),
					  "A NESTED field is an array of documents already; its sub-fields sort and aggregate.");
	if (f->type != SEARCH_TEXT && f->enable_highlighting)
		schema_refuse(psprintf("Field '%s' of type %s cannot enable_highlighting.", path, type_names[f->type]),
					  "Only TEXT fields are highlighted.");

	analyzer = schema_string(obj, "analyzer", psprintf("field '%s'", path));
	if (schema_member(obj, "analyzer_parameter", &v) != NULL && analyzer == NULL)
		schema_refuse(psprintf("Field '%s' has an analyzer_parameter but no analyzer.", path),
					  "Name the analyzer its parameters are for.");
	if (f->type != SEARCH_TEXT && analyzer != NULL)
		schema_refuse(psprintf("Field '%s' of type %s cannot have an analyzer.", path, type_names[f->type]),
					  "Only TEXT fields are analyzed.");
	if (f->type == SEARCH_TEXT)
	{
		if (schema_member(obj, "analyzer_parameter", &v) != NULL)
		{
			if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
				schema_refuse(psprintf("Invalid analyzer_parameter of field '%s': it is not an object.", path),
							  "An analyzer's parameters are an object.");
			f->analyzer_parameter = JsonbValueToJsonb(&v);
		}
		search_analyzer_read(analyzer != NULL ? analyzer : "single_word", f->analyzer_parameter,
							 &f->analyzer);
	}

	if (schema_member(obj, "date_formats", &v) != NULL)
	{
		JsonbContainer *arr = schema_array_of(&v, psprintf("date_formats of field '%s'", path));
		int			n = JsonContainerSize(arr);

		if (f->type != SEARCH_DATE)
			schema_refuse(psprintf("Field '%s' of type %s cannot have date_formats.", path, type_names[f->type]),
						  "Only DATE fields have date formats.");
		if (n > OTS_MAX_SEARCH_DATE_FORMATS)
			schema_refuse(psprintf("Field '%s' has more than %d date_formats.", path, OTS_MAX_SEARCH_DATE_FORMATS),
						  "A DATE field has one to that many formats.");
		f->date_formats = palloc0(sizeof(SearchDateFormat) * Max(n, 1));
		for (int i = 0; i < n; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(arr, i);

			if (e->type != jbvString)
				schema_refuse(psprintf("Invalid date_formats of field '%s': not every one is a string.", path),
							  "A date format is epoch_second, epoch_millis, epoch_micros, epoch_nanos or a pattern such as yyyy-MM-dd HH:mm:ss.SSS.");
			search_date_format_read(pnstrdup(e->val.string.val, e->val.string.len), path,
									&f->date_formats[i]);
		}
		f->ndate_formats = n;
	}
	if (f->type == SEARCH_DATE && f->ndate_formats == 0)
		schema_refuse(psprintf("Field '%s' of type DATE needs date_formats.", path),
					  "A date format is epoch_second, epoch_millis, epoch_micros, epoch_nanos or a pattern such as yyyy-MM-dd HH:mm:ss.SSS.");

	if (schema_member(obj, "field_schemas", &v) != NULL)
	{
		if (f->type != SEARCH_NESTED)
			schema_refuse(psprintf("Field '%s' of type %s cannot have field_schemas.", path, type_names[f->type]),
						  "Only NESTED fields have sub-fields.");
		if (depth >= OTS_MAX_SEARCH_NESTED_DEPTH)
			schema_refuse(psprintf("NESTED field '%s' is nested more than %d levels deep.", path,
								   OTS_MAX_SEARCH_NESTED_DEPTH),
						  "NESTED fields nest at most that deep.");
		schema_read_fields(schema_array_of(&v, psprintf("field_schemas of field '%s'", path)),
						   depth + 1, path, counted, &f->nsub, &f->sub);
	}
	if (f->type == SEARCH_NESTED && f->nsub == 0)
		schema_refuse(psprintf("NESTED field '%s' has no field_schemas.", path),
					  "A NESTED field lists the fields of its documents.");
	schema_read_vector(obj, parent, path, f);
}

static void
schema_read_fields(JsonbContainer *arr, int depth, const char *parent, int *counted,
				   int *nfields, SearchField **fields)
{
	int			n = JsonContainerSize(arr);

	*fields = palloc0(sizeof(SearchField) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(arr, i);

		schema_read_field(schema_object_of(e, "field schema"), depth, parent, counted, &(*fields)[i]);
		for (int j = 0; j < i; j++)
			if (strcmp((*fields)[j].name, (*fields)[i].name) == 0)
				schema_refuse(psprintf("Duplicated field name: '%s'.", (*fields)[i].name),
							  "Each field of an index, and each sub-field of a NESTED field, has a name of its own.");
	}
	*nfields = n;
}

const SearchField *
search_field_find(const SearchSchema *s, const char *name)
{
	for (int i = 0; i < s->nfields; i++)
		if (strcmp(s->fields[i].name, name) == 0)
			return &s->fields[i];
	return NULL;
}

/* ---------------------------------------------------------------- the schema */

static void
schema_read_setting(JsonbContainer *obj, const OtsTable *t, SearchSchema *out)
{
	JsonbValue	v;

	request_fields_check(obj, &setting_object, "index_setting");
	if (schema_member(obj, "number_of_shards", &v) != NULL &&
		(v.type != jbvNumeric ||
		 !DatumGetBool(DirectFunctionCall2(numeric_eq, NumericGetDatum(v.val.numeric),
										   NumericGetDatum(int64_to_numeric(1))))))
		schema_refuse("Invalid number_of_shards: it is 1.",
					  "The SDKs send 1; ots keeps a search index beside its table, unsharded.");
	if (schema_member(obj, "routing_fields", &v) != NULL)
	{
		JsonbContainer *arr = schema_array_of(&v, "routing_fields");
		int			n = JsonContainerSize(arr);

		if (n > t->npk)
			schema_refuse("Too many routing_fields.", "Routing fields are primary-key columns of the table.");
		for (int i = 0; i < n; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(arr, i);
			const char *name;
			bool		known = false;

			if (e->type != jbvString)
				schema_refuse("Invalid routing_fields: not every one is a string.",
							  "Routing fields are primary-key columns of the table.");
			name = pnstrdup(e->val.string.val, e->val.string.len);
			for (int k = 0; k < t->npk; k++)
				known |= strcmp(t->pk[k].name, name) == 0;
			for (int j = 0; j < i; j++)
				if (strcmp(out->routing[j], name) == 0)
					schema_refuse(psprintf("Duplicated routing field: '%s'.", name),
								  "Each routing field is named once.");
			if (!known)
				schema_refuse(psprintf("Routing field '%s' is not a primary-key column of table '%s'.",
									   name, t->table_name),
							  "Routing fields are primary-key columns of the table.");
			out->routing[out->nrouting++] = name;
		}
	}
}

static void
schema_read_sort(JsonbContainer *arr, SearchSchema *out)
{
	int			n = JsonContainerSize(arr);

	if (n > 0 && out->has_nested)
		schema_refuse("An index with NESTED fields cannot have an index_sort.",
					  "A NESTED field's documents have no one order.");
	out->sort = palloc0(sizeof(SearchSortKey) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		JsonbContainer *sorter = schema_object_of(getIthJsonbValueFromContainer(arr, i), "sorter of index_sort");
		SearchSortKey *k = &out->sort[i];
		JsonbValue	v;

		request_fields_check(sorter, &sort_object, "index_sort");
		if (schema_member(sorter, "primary_key_sort", &v) != NULL)
		{
			JsonbContainer *pk = schema_object_of(&v, "primary_key_sort");

			request_fields_check(pk, &pk_sort_object, "primary_key_sort");
			k->descending = schema_order_descending(pk, "primary_key_sort");
			if (schema_member(sorter, "field_sort", &v) != NULL)
				schema_refuse("A sorter of index_sort is a primary_key_sort or a field_sort, not both.",
							  "List two sorters to sort by both.");
		}
		else if (schema_member(sorter, "field_sort", &v) != NULL)
		{
			JsonbContainer *fs = schema_object_of(&v, "field_sort");
			const char *mode;
			const SearchField *f;

			request_fields_check(fs, &field_sort_object, "field_sort");
			k->field = schema_string(fs, "field_name", "field_sort");
			if (k->field == NULL)
				schema_refuse("Missing field_name of a field_sort of index_sort.", "A field_sort names its field.");
			f = search_field_find(out, k->field);
			if (f == NULL)
				schema_refuse(psprintf("Field '%s' of index_sort is not a field of the index.", k->field),
							  "An index sorts by its own fields.");
			if (f->type == SEARCH_TEXT || f->type == SEARCH_NESTED || f->type == SEARCH_GEO_POINT ||
				f->type == SEARCH_VECTOR)
				schema_refuse(psprintf("Field '%s' of type %s cannot sort the index.", k->field,
									   type_names[f->type]),
							  "An index sorts by LONG, DOUBLE, BOOLEAN, KEYWORD and DATE fields.");
			k->descending = schema_order_descending(fs, "field_sort");
			mode = schema_string(fs, "mode", "field_sort");
			for (int m = 1; mode != NULL && m < lengthof(mode_names); m++)
				if (strcmp(mode, mode_names[m]) == 0 || strcmp(mode, psprintf("SORT_MODE_%s", mode_names[m])) == 0)
					k->mode = m;
			if (mode != NULL && k->mode == 0)
				schema_refuse(psprintf("Invalid mode of field_sort: '%s'.", mode), "The mode is MIN, MAX or AVG.");
		}
		else
			schema_refuse("A sorter of index_sort is empty.", "It is a primary_key_sort or a field_sort.");
	}
	out->nsort = n;
}

void
search_schema_read(Jsonb *schema, const OtsTable *t, SearchSchema *out)
{
	JsonbContainer *root;
	JsonbValue	v;
	int			counted = 0;
	int			columns = t->npk;

	memset(out, 0, sizeof(*out));
	if (schema == NULL || !JB_ROOT_IS_OBJECT(schema))
		schema_refuse("Invalid index schema: it is not an object.",
					  "An index schema is {\"field_schemas\": [...], \"index_setting\": {...}, \"index_sort\": [...]}.");
	root = &schema->root;
	request_fields_check(root, &schema_object, "the index schema");
	if (schema_member(root, "field_schemas", &v) == NULL)
		schema_refuse("Missing field_schemas.", "A search index has one field at least.");
	schema_read_fields(schema_array_of(&v, "field_schemas"), 1, NULL, &counted, &out->nfields, &out->fields);
	if (out->nfields == 0)
		schema_refuse("Missing field_schemas.", "A search index has one field at least.");
	for (int i = 0; i < out->nfields; i++)
	{
		SearchField *f = &out->fields[i];
		int			limit = NAMEDATALEN - 1 - (f->type == SEARCH_TEXT ? strlen(SEARCH_POSITIONS_SUFFIX) : 0);

		out->has_nested |= f->type == SEARCH_NESTED;
		for (int k = 0; k < t->npk; k++)
			if (strcmp(t->pk[k].name, f->name) == 0)
				f->pk_column = k + 1;
		if (f->type == SEARCH_VECTOR)
			continue;			/* no column */
		if (f->pk_column > 0)
		{
			/* the storage's key column is the field's */
			OtsValueType kt = t->pk[f->pk_column - 1].type;

			if (f->is_array || !((kt == OTS_VT_STRING && f->type == SEARCH_KEYWORD) ||
								 (kt == OTS_VT_INTEGER && f->type == SEARCH_LONG)))
				schema_refuse(psprintf("Field '%s' is a primary-key column of type %s: it is indexed as %s only.",
									   f->name, ots_value_type_name(kt),
									   kt == OTS_VT_STRING ? "a KEYWORD" : kt == OTS_VT_INTEGER ? "a LONG" : "no field"),
							  "A STRING key column is a KEYWORD field, an INTEGER one a LONG field; a BINARY one is none.");
			continue;
		}
		columns += f->type == SEARCH_TEXT ? 2 : 1;
		if (strlen(f->name) > limit)
			schema_refuse(psprintf("Field name '%s' is longer than %d bytes.", f->name, limit),
						  "ots keeps each field in a column of its own, whose name PostgreSQL bounds (docs/reference.md, \"Search\").");
		for (int k = 0; k < lengthof(system_columns); k++)
			if (strcmp(f->name, system_columns[k]) == 0)
				schema_refuse(psprintf("Field name '%s' is one PostgreSQL keeps for a column of every table.", f->name),
							  "ots keeps each field in a column of its own; tableoid, xmin, cmin, xmax, cmax and ctid are taken.");
	}
	if (columns > MaxHeapAttributeNumber)
		schema_refuse(psprintf("The index needs %d columns, more than PostgreSQL's %d.", columns,
							   MaxHeapAttributeNumber),
					  "ots keeps each field in a column (a TEXT field in two), beside the table's primary key.");
	if (schema_member(root, "index_setting", &v) != NULL)
		schema_read_setting(schema_object_of(&v, "index_setting"), t, out);
	if (schema_member(root, "index_sort", &v) != NULL)
		schema_read_sort(schema_array_of(&v, "index_sort"), out);
	if (out->nsort == 0 && !out->has_nested)
	{
		/* Tablestore's default presort: the primary key, ascending */
		out->sort = palloc0(sizeof(SearchSortKey));
		out->nsort = 1;
	}
}

/* ---------------------------------------------------------------- writing jsonb */

static void push_fields(JsonbParseState **st, int n, const SearchField *fields);

static void
push_field(JsonbParseState **st, const SearchField *f)
{
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	json_push_string(st, "field_name", f->name);
	json_push_string(st, "field_type", type_names[f->type]);
	if (f->type != SEARCH_NESTED)
	{
		json_push_bool(st, "index", f->index);
		json_push_bool(st, "enable_sort_and_agg", f->sort_and_agg);
		json_push_bool(st, "store", f->store);
		json_push_bool(st, "is_array", f->is_array);
	}
	if (f->type == SEARCH_TEXT)
	{
		json_push_string(st, "analyzer", search_analyzer_name(f->analyzer.kind));
		if (f->analyzer_parameter != NULL)
			json_push_jsonb(st, "analyzer_parameter", f->analyzer_parameter);
		json_push_bool(st, "enable_highlighting", f->enable_highlighting);
	}
	if (f->type == SEARCH_DATE)
	{
		json_push_key(st, "date_formats");
		pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
		for (int i = 0; i < f->ndate_formats; i++)
			json_push_string(st, NULL, search_date_format_name(&f->date_formats[i]));
		pushJsonbValue(st, WJB_END_ARRAY, NULL);
	}
	if (f->type == SEARCH_NESTED)
	{
		json_push_key(st, "field_schemas");
		push_fields(st, f->nsub, f->sub);
	}
	if (f->type == SEARCH_VECTOR)
	{
		json_push_key(st, "vector_options");
		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		json_push_string(st, "data_type", f->vector_data_type);
		json_push_int(st, "dimension", f->vector_dimension);
		json_push_string(st, "metric_type", f->vector_metric_type);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

static void
push_fields(JsonbParseState **st, int n, const SearchField *fields)
{
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
		push_field(st, &fields[i]);
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
}

Jsonb *
search_schema_jsonb(const SearchSchema *s)
{
	JsonbParseState *st = NULL;
	JsonbValue *root;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	json_push_key(&st, "field_schemas");
	push_fields(&st, s->nfields, s->fields);
	json_push_key(&st, "index_setting");
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	{
		JsonbValue	one;

		json_push_key(&st, "number_of_shards");
		one.type = jbvNumeric;
		one.val.numeric = int64_to_numeric(1);
		pushJsonbValue(&st, WJB_VALUE, &one);
	}
	json_push_key(&st, "routing_fields");
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < s->nrouting; i++)
		json_push_string(&st, NULL, s->routing[i]);
	pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	json_push_jsonb(&st, "index_sort", search_presort_jsonb(s));
	root = pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(root);
}

/*
 * search_presort_jsonb: the index's presort as a search query's sorters
 * ([{"field_sort": {...}}, {"primary_key_sort": {...}}]), empty for none
 */
Jsonb *
search_presort_jsonb(const SearchSchema *s)
{
	JsonbParseState *st = NULL;
	JsonbValue *root;

	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < s->nsort; i++)
	{
		const SearchSortKey *k = &s->sort[i];

		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		json_push_key(&st, k->field == NULL ? "primary_key_sort" : "field_sort");
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		if (k->field != NULL)
			json_push_string(&st, "field_name", k->field);
		json_push_string(&st, "order", k->descending ? "DESC" : "ASC");
		if (k->mode != 0)
			json_push_string(&st, "mode", mode_names[k->mode]);
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	}
	root = pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	return JsonbValueToJsonb(root);
}

/* ---------------------------------------------------------------- storage */

const char *
search_field_sql_type(const SearchField *f)
{
	switch (f->type)
	{
		case SEARCH_LONG:
		case SEARCH_DATE:		/* nanoseconds since 1970 */
			return f->is_array ? "pg_catalog.int8[]" : "pg_catalog.int8";
		case SEARCH_DOUBLE:
			return f->is_array ? "pg_catalog.float8[]" : "pg_catalog.float8";
		case SEARCH_BOOLEAN:
			return f->is_array ? "pg_catalog.bool[]" : "pg_catalog.bool";
		case SEARCH_KEYWORD:
			return f->is_array ? "pg_catalog.text[] COLLATE pg_catalog.\"C\"" : "pg_catalog.text COLLATE pg_catalog.\"C\"";
		case SEARCH_TEXT:		/* its tokens; SEARCH_POSITIONS_SUFFIX's column has their positions */
			return "pg_catalog.text[] COLLATE pg_catalog.\"C\"";
		case SEARCH_GEO_POINT:	/* (longitude, latitude) */
			return f->is_array ? "pg_catalog.point[]" : "pg_catalog.point";
		case SEARCH_NESTED:
			return "pg_catalog.jsonb";
		case SEARCH_VECTOR:		/* kept nowhere */
			break;
	}
	return NULL;
}

Oid
search_field_type_oid(const SearchField *f)
{
	switch (f->type)
	{
		case SEARCH_LONG:
		case SEARCH_DATE:
			return f->is_array ? INT8ARRAYOID : INT8OID;
		case SEARCH_DOUBLE:
			return f->is_array ? FLOAT8ARRAYOID : FLOAT8OID;
		case SEARCH_BOOLEAN:
			return f->is_array ? BOOLARRAYOID : BOOLOID;
		case SEARCH_KEYWORD:
			return f->is_array ? TEXTARRAYOID : TEXTOID;
		case SEARCH_TEXT:
			return TEXTARRAYOID;
		case SEARCH_GEO_POINT:
			return f->is_array ? POINTARRAYOID : POINTOID;
		case SEARCH_NESTED:
			return JSONBOID;
		case SEARCH_VECTOR:
			break;
	}
	return InvalidOid;
}

const char *
search_field_index_method(const SearchField *f)
{
	if (!f->index || f->type == SEARCH_VECTOR)
		return NULL;
	if (f->is_array || f->type == SEARCH_TEXT || f->type == SEARCH_NESTED)
		return f->type == SEARCH_GEO_POINT ? NULL : "gin";
	if (f->type == SEARCH_GEO_POINT)
		return "gist";
	return "btree";
}
