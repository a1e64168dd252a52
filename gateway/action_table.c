/*-------------------------------------------------------------------------
 * gateway/action_table.c
 *	  The table actions: CreateTable, ListTable, DescribeTable, UpdateTable,
 *	  DeleteTable, CreateIndex, DropIndex, ComputeSplitPointsBySize.
 *
 * An instance is a schema: tables resolve through the connection's
 * search_path and ListTable lists those of current_schema().  Reserved
 * throughput is accepted and reported as 0 (ots does not throttle).
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "config.h"

/* appends "name type<suffix>" to an ots column list ("a string, b integer"); false after replying */
static bool
column_list_add(Call *call, Buf *list, const char *name, const char *type, const char *suffix)
{
	if (!name_valid(call, name, "column"))
		return false;
	if (list->len > 0)
		buf_put(list, ", ", 2);
	buf_put(list, name, strlen(name));
	buf_byte(list, ' ');
	buf_put(list, type, strlen(type));
	buf_put(list, suffix, strlen(suffix));
	return true;
}

static const char *
pk_type_name(int type)
{
	switch (type)
	{
		case OTSP__PRIMARY_KEY_TYPE__INTEGER:
			return "integer";
		case OTSP__PRIMARY_KEY_TYPE__STRING:
			return "string";
		case OTSP__PRIMARY_KEY_TYPE__BINARY:
			return "binary";
		default:
			return NULL;
	}
}

static const char *
defined_type_name(int type)
{
	switch (type)
	{
		case OTSP__DEFINED_COLUMN_TYPE__DCT_INTEGER:
			return "integer";
		case OTSP__DEFINED_COLUMN_TYPE__DCT_DOUBLE:
			return "double";
		case OTSP__DEFINED_COLUMN_TYPE__DCT_BOOLEAN:
			return "boolean";
		case OTSP__DEFINED_COLUMN_TYPE__DCT_STRING:
			return "string";
		case OTSP__DEFINED_COLUMN_TYPE__DCT_BLOB:
			return "binary";
		default:
			return NULL;
	}
}

/* defined columns as an ots column list, NUL-terminated; false after replying */
static bool
defined_column_list(Call *call, Buf *list, Otsp__DefinedColumnSchema **columns, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		if (defined_type_name(columns[i]->type) == NULL)
		{
			call_parameter_invalid(call, "Invalid type of defined column: '%s'.", columns[i]->name);
			return false;
		}
		if (!column_list_add(call, list, columns[i]->name, defined_type_name(columns[i]->type), ""))
			return false;
	}
	buf_byte(list, '\0');
	return true;
}

/* runs a statement without result rows on the call's connection; false after replying */
static bool
exec_command(Call *call, const char *command)
{
	PGconn	   *conn = call_db(call, NULL);
	PGresult   *res;
	bool		ok;

	if (conn == NULL)
		return false;
	res = PQexec(conn, command);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok)
		call_pg_error(call, res);
	PQclear(res);
	return ok;
}

/* runs q, which returns one text value; the value parsed as json, or NULL after replying */
static json_t *
run_json(Call *call, SqlCall *q)
{
	PGresult   *res = sql_run(call, NULL, q);
	json_t	   *value = NULL;

	sql_free(q);
	if (res == NULL)
		return NULL;
	if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
		value = json_parse(PQgetvalue(res, 0, 0));
	if (value == NULL)
		call_error(call, 500, "OTSInternalServerError", "ots returned no description.");
	PQclear(res);
	return value;
}

static json_t *
describe(Call *call, const char *table)
{
	SqlCall		q;

	sql_begin(&q, "SELECT ots.describe_table(");
	sql_arg(&q, table, "text");
	sql_end(&q, ")::text");
	return run_json(call, &q);
}

/* one index of the request as an ots.create_index call; false after replying */
static bool
create_index(Call *call, const char *table, const Otsp__IndexMeta *meta, bool include_base_data)
{
	SqlCall		q;
	PGresult   *res;

	if (!table_name_valid(call, meta->name))
		return false;
	sql_begin(&q, "SELECT ots.create_index(");
	sql_arg(&q, table, "text");
	sql_arg(&q, meta->name, "text");
	sql_arg_owned(&q, text_array(meta->primary_key, meta->n_primary_key), "text[]");
	sql_arg_owned(&q, text_array(meta->defined_column, meta->n_defined_column), "text[]");
	sql_arg(&q, meta->index_type == OTSP__INDEX_TYPE__IT_LOCAL_INDEX ? "LOCAL" : "GLOBAL", "text");
	sql_arg(&q, include_base_data ? "true" : "false", "boolean");
	sql_end(&q, ")::text");
	res = sql_run(call, NULL, &q);
	sql_free(&q);
	if (res == NULL)
		return false;
	PQclear(res);
	return true;
}

/*
 * stream_spec_args: a StreamSpecification as create_table's and
 * update_table's stream arguments.  An enabled stream's columns_to_get
 * (OriginColumnsToGet) replace its original columns; none keeps them (a
 * repeated field cannot say "unchanged" otherwise, and an ots before 0.3.0
 * takes no stream_original_columns): disabling the stream drops them, and
 * columns with a disabled stream are ots's to refuse.
 */
static void
stream_spec_args(SqlCall *q, const Otsp__StreamSpecification *spec)
{
	sql_named(q, "stream_enabled", spec->enable_stream ? "true" : "false", "boolean");
	if (spec->enable_stream && spec->has_expiration_time)
		sql_named_owned(q, "stream_expiration_hours", int_text(spec->expiration_time), "integer");
	if (spec->n_columns_to_get > 0)
		sql_named_owned(q, "stream_original_columns",
						text_array(spec->columns_to_get, spec->n_columns_to_get), "text[]");
}

void
action_create_table(Call *call)
{
	Otsp__CreateTableRequest *req = UNPACK(create_table_request, call);
	Otsp__CreateTableResponse resp = OTSP__CREATE_TABLE_RESPONSE__INIT;
	Otsp__TableMeta *meta;
	Otsp__TableOptions *options;
	Buf			pk = {0},
				defined = {0};
	SqlCall		q;
	PGresult   *res;
	bool		ok = false;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	meta = req->table_meta;
	options = req->table_options;
	if (!table_name_valid(call, meta->table_name))
		goto done;
	for (size_t i = 0; i < meta->n_primary_key; i++)
	{
		const Otsp__PrimaryKeySchema *column = meta->primary_key[i];
		bool		auto_increment = column->has_option &&
			column->option == OTSP__PRIMARY_KEY_OPTION__AUTO_INCREMENT;

		if (pk_type_name(column->type) == NULL)
		{
			call_parameter_invalid(call, "%d is an invalid type for the primary key.", column->type);
			goto done;
		}
		if (!column_list_add(call, &pk, column->name, pk_type_name(column->type),
							 auto_increment ? " auto_increment" : ""))
			goto done;
	}
	buf_byte(&pk, '\0');
	if (!defined_column_list(call, &defined, meta->defined_column, meta->n_defined_column))
		goto done;

	/* the table and its indexes all or nothing */
	if (!exec_command(call, "BEGIN"))
		goto done;
	sql_begin(&q, "SELECT ots.create_table(");
	sql_arg(&q, meta->table_name, "text");
	sql_arg(&q, (char *) pk.data, "text");
	if (options && options->has_max_versions)
		sql_named_owned(&q, "max_versions", int_text(options->max_versions), "integer");
	if (options && options->has_time_to_live)
		sql_named_owned(&q, "time_to_live", int_text(options->time_to_live), "bigint");
	if (options && options->has_deviation_cell_version_in_sec)
		sql_named_owned(&q, "max_version_offset", int_text(options->deviation_cell_version_in_sec), "bigint");
	if (options && options->has_allow_update)
		sql_named(&q, "allow_update", options->allow_update ? "true" : "false", "boolean");
	if (options && options->has_update_full_row)
		sql_named(&q, "update_full_row", options->update_full_row ? "true" : "false", "boolean");
	if (meta->n_defined_column > 0)
		sql_named(&q, "defined_columns", (char *) defined.data, "text");
	if (config.partitions > 0)
		sql_named_owned(&q, "partitions", int_text(config.partitions), "integer");
	if (req->stream_spec)
		stream_spec_args(&q, req->stream_spec);
	sql_end(&q, ")::text");
	res = sql_run(call, NULL, &q);
	sql_free(&q);
	if (res != NULL)
	{
		PQclear(res);
		ok = true;
		for (size_t i = 0; ok && i < req->n_index_metas; i++)
			ok = create_index(call, meta->table_name, req->index_metas[i], true);
	}
	if (ok)
		ok = exec_command(call, "COMMIT");
	else
	{
		PGresult   *undo = PQexec(call_db(call, NULL), "ROLLBACK");

		PQclear(undo);
	}
	if (ok)
		call_reply(call, &resp.base);
done:
	buf_free(&pk);
	buf_free(&defined);
	FREE(req);
}

void
action_list_table(Call *call)
{
	Otsp__ListTableResponse resp = OTSP__LIST_TABLE_RESPONSE__INIT;
	SqlCall		q;
	PGresult   *res;

	sql_begin(&q, "SELECT table_name FROM ots.list_table() WHERE schema_name = pg_catalog.current_schema() "
			  "ORDER BY table_name COLLATE \"C\"");
	sql_end(&q, "");
	res = sql_run(call, NULL, &q);
	sql_free(&q);
	if (res == NULL)
		return;
	resp.n_table_names = PQntuples(res);
	resp.table_names = calloc(resp.n_table_names + 1, sizeof(char *));
	for (size_t i = 0; i < resp.n_table_names; i++)
		resp.table_names[i] = PQgetvalue(res, i, 0);
	call_reply(call, &resp.base);
	free(resp.table_names);
	PQclear(res);
}

/*
 * ListSearchIndex: the search indexes of the table named, which must
 * resolve as for any call on it (an SDK's clean-up lists a table's search
 * indexes before it deletes it), or of every table of the instance (the
 * connection's current schema, as ListTable)
 */
void
action_list_search_index(Call *call)
{
	Otsp__ListSearchIndexRequest *req = UNPACK(list_search_index_request, call);
	Otsp__ListSearchIndexResponse resp = OTSP__LIST_SEARCH_INDEX_RESPONSE__INIT;
	Otsp__IndexInfo *infos = NULL;
	SqlCall		q;
	PGresult   *res = NULL;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (req->table_name != NULL)
	{
		if (!table_name_valid(call, req->table_name))
			goto done;
		sql_begin(&q, "SELECT l.table_name, l.index_name FROM ots.list_search_index(");
		sql_arg(&q, req->table_name, "text");
		sql_end(&q, ") l");
	}
	else
	{
		sql_begin(&q, "SELECT l.table_name, l.index_name FROM ots.list_search_index() l"
				  " WHERE l.schema_name OPERATOR(pg_catalog.=) pg_catalog.current_schema()");
		sql_end(&q, "");
	}
	res = sql_run(call, NULL, &q);
	sql_free(&q);
	if (res == NULL)
		goto done;
	resp.n_indices = PQntuples(res);
	resp.indices = calloc(resp.n_indices + 1, sizeof(Otsp__IndexInfo *));
	infos = calloc(resp.n_indices + 1, sizeof(Otsp__IndexInfo));
	for (size_t i = 0; i < resp.n_indices; i++)
	{
		otsp__index_info__init(&infos[i]);
		infos[i].table_name = PQgetvalue(res, i, 0);
		infos[i].index_name = PQgetvalue(res, i, 1);
		resp.indices[i] = &infos[i];
	}
	call_reply(call, &resp.base);
	free(resp.indices);
	free(infos);
done:
	if (res != NULL)
		PQclear(res);
	FREE(req);
}

/* The parts of a table's description that several responses carry. */
typedef struct TableParts
{
	Otsp__TableOptions options;
	Otsp__ReservedThroughputDetails reserved;
	Otsp__CapacityUnit reserved_unit;
	Otsp__StreamDetails stream;
	char	   *original[64];	/* the stream's original columns (ots keeps at most 32) */
} TableParts;

static void
table_parts(TableParts *p, json_t *description)
{
	json_t	   *options = json_object_get(description, "table_options");
	json_t	   *stream = json_object_get(description, "stream_details");
	json_t	   *original;

	otsp__table_options__init(&p->options);
	p->options.has_time_to_live = p->options.has_max_versions = 1;
	p->options.has_deviation_cell_version_in_sec = p->options.has_allow_update = 1;
	p->options.time_to_live = (int32_t) json_integer_value(json_object_get(options, "time_to_live"));
	p->options.max_versions = (int32_t) json_integer_value(json_object_get(options, "max_versions"));
	p->options.deviation_cell_version_in_sec = json_integer_value(json_object_get(options, "max_version_offset"));
	p->options.allow_update = json_is_true(json_object_get(options, "allow_update"));
	/* (an ots before 0.3.0 has no update_full_row) */
	p->options.has_update_full_row = json_object_get(options, "update_full_row") != NULL;
	p->options.update_full_row = json_is_true(json_object_get(options, "update_full_row"));

	otsp__reserved_throughput_details__init(&p->reserved);
	otsp__capacity_unit__init(&p->reserved_unit);
	p->reserved_unit.has_read = p->reserved_unit.has_write = 1;
	p->reserved.capacity_unit = &p->reserved_unit;
	p->reserved.last_increase_time = json_integer_value(json_object_get(description, "creation_time"));

	otsp__stream_details__init(&p->stream);
	p->stream.enable_stream = json_is_true(json_object_get(stream, "enable_stream"));
	if (p->stream.enable_stream)
	{
		p->stream.stream_id = (char *) json_string_value(json_object_get(stream, "stream_id"));
		p->stream.has_expiration_time = p->stream.has_last_enable_time = 1;
		p->stream.expiration_time = (int32_t) json_integer_value(json_object_get(stream, "expiration_time"));
		p->stream.last_enable_time = json_integer_value(json_object_get(stream, "last_enable_time"));
		original = json_object_get(stream, "original_columns");
		for (size_t i = 0; i < json_array_size(original) &&
			 p->stream.n_columns_to_get < sizeof(p->original) / sizeof(p->original[0]); i++)
			if (json_is_string(json_array_get(original, i)))
				p->original[p->stream.n_columns_to_get++] =
					(char *) json_string_value(json_array_get(original, i));
		p->stream.columns_to_get = p->original;
	}
}

static int
pk_type_of(const char *name)
{
	if (name && strcmp(name, "INTEGER") == 0)
		return OTSP__PRIMARY_KEY_TYPE__INTEGER;
	if (name && strcmp(name, "BINARY") == 0)
		return OTSP__PRIMARY_KEY_TYPE__BINARY;
	return OTSP__PRIMARY_KEY_TYPE__STRING;
}

/*
 * pk_schema_from: ots's describe_table primary_key ([{name, type, option}])
 * as PrimaryKeySchema messages: a vector of n pointers followed by the n
 * messages, in one block to free; names point into the json
 */
static Otsp__PrimaryKeySchema **
pk_schema_from(json_t *pk, size_t *n)
{
	Otsp__PrimaryKeySchema **list;
	Otsp__PrimaryKeySchema *columns;

	*n = json_array_size(pk);
	list = calloc(1, (*n + 1) * (sizeof(void *) + sizeof(Otsp__PrimaryKeySchema)));
	if (list == NULL)
		abort();
	columns = (Otsp__PrimaryKeySchema *) (list + *n + 1);
	for (size_t i = 0; i < *n; i++)
	{
		json_t	   *column = json_array_get(pk, i);

		otsp__primary_key_schema__init(&columns[i]);
		columns[i].name = (char *) json_string_value(json_object_get(column, "name"));
		columns[i].type = pk_type_of(json_string_value(json_object_get(column, "type")));
		if (json_object_get(column, "option"))
		{
			columns[i].has_option = 1;
			columns[i].option = OTSP__PRIMARY_KEY_OPTION__AUTO_INCREMENT;
		}
		list[i] = &columns[i];
	}
	return list;
}

static int
defined_type_of(const char *name)
{
	static const struct
	{
		const char *name;
		int			type;
	}			types[] = {
		{"INTEGER", OTSP__DEFINED_COLUMN_TYPE__DCT_INTEGER},
		{"DOUBLE", OTSP__DEFINED_COLUMN_TYPE__DCT_DOUBLE},
		{"BOOLEAN", OTSP__DEFINED_COLUMN_TYPE__DCT_BOOLEAN},
		{"BINARY", OTSP__DEFINED_COLUMN_TYPE__DCT_BLOB},
	};

	for (size_t i = 0; name && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(name, types[i].name) == 0)
			return types[i].type;
	return OTSP__DEFINED_COLUMN_TYPE__DCT_STRING;
}

/* a json array of strings as a char * vector pointing into it */
static char **
string_vector(json_t *array, size_t *n)
{
	char	  **out;

	*n = json_array_size(array);
	out = calloc(*n + 1, sizeof(char *));
	for (size_t i = 0; i < *n; i++)
		out[i] = (char *) json_string_value(json_array_get(array, i));
	return out;
}

static void
index_meta_from(Otsp__IndexMeta *meta, json_t *index)
{
	const char *phase = json_string_value(json_object_get(index, "index_sync_phase"));

	otsp__index_meta__init(meta);
	meta->name = (char *) json_string_value(json_object_get(index, "name"));
	meta->primary_key = string_vector(json_object_get(index, "primary_key"), &meta->n_primary_key);
	meta->defined_column = string_vector(json_object_get(index, "defined_column"), &meta->n_defined_column);
	meta->index_update_mode = OTSP__INDEX_UPDATE_MODE__IUM_SYNC_INDEX;
	meta->index_type = strcmp(json_string_value(json_object_get(index, "index_type")) ?: "", "LOCAL") == 0 ?
		OTSP__INDEX_TYPE__IT_LOCAL_INDEX : OTSP__INDEX_TYPE__IT_GLOBAL_INDEX;
	meta->has_index_sync_phase = 1;
	meta->index_sync_phase = phase && strcmp(phase, "FULL") == 0 ?
		OTSP__INDEX_SYNC_PHASE__ISP_FULL : OTSP__INDEX_SYNC_PHASE__ISP_INCR;
}

void
action_describe_table(Call *call)
{
	Otsp__DescribeTableRequest *req = UNPACK(describe_table_request, call);
	Otsp__DescribeTableResponse resp = OTSP__DESCRIBE_TABLE_RESPONSE__INIT;
	Otsp__TableMeta meta = OTSP__TABLE_META__INIT;
	TableParts	parts;
	json_t	   *description;
	json_t	   *pk,
			   *defined,
			   *indexes;
	Otsp__DefinedColumnSchema *defined_columns;
	Otsp__IndexMeta *index_metas;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (!table_name_valid(call, req->table_name) || (description = describe(call, req->table_name)) == NULL)
	{
		FREE(req);
		return;
	}
	pk = json_object_get(description, "primary_key");
	defined = json_object_get(description, "defined_columns");
	indexes = json_object_get(description, "index_metas");

	meta.table_name = req->table_name;
	meta.primary_key = pk_schema_from(pk, &meta.n_primary_key);
	meta.n_defined_column = json_array_size(defined);
	defined_columns = calloc(meta.n_defined_column + 1, sizeof(*defined_columns));
	meta.defined_column = calloc(meta.n_defined_column + 1, sizeof(void *));
	for (size_t i = 0; i < meta.n_defined_column; i++)
	{
		json_t	   *column = json_array_get(defined, i);

		otsp__defined_column_schema__init(&defined_columns[i]);
		defined_columns[i].name = (char *) json_string_value(json_object_get(column, "name"));
		defined_columns[i].type = defined_type_of(json_string_value(json_object_get(column, "type")));
		meta.defined_column[i] = &defined_columns[i];
	}
	resp.n_index_metas = json_array_size(indexes);
	index_metas = calloc(resp.n_index_metas + 1, sizeof(*index_metas));
	resp.index_metas = calloc(resp.n_index_metas + 1, sizeof(void *));
	for (size_t i = 0; i < resp.n_index_metas; i++)
	{
		index_meta_from(&index_metas[i], json_array_get(indexes, i));
		resp.index_metas[i] = &index_metas[i];
	}

	table_parts(&parts, description);
	resp.table_meta = &meta;
	resp.reserved_throughput_details = &parts.reserved;
	resp.table_options = &parts.options;
	resp.table_status = OTSP__TABLE_STATUS__ACTIVE;
	resp.stream_details = &parts.stream;
	call_reply(call, &resp.base);

	for (size_t i = 0; i < resp.n_index_metas; i++)
	{
		free(index_metas[i].primary_key);
		free(index_metas[i].defined_column);
	}
	free(index_metas);
	free(resp.index_metas);
	free(meta.primary_key);
	free(defined_columns);
	free(meta.defined_column);
	json_decref(description);
	FREE(req);
}

void
action_update_table(Call *call)
{
	Otsp__UpdateTableRequest *req = UNPACK(update_table_request, call);
	Otsp__UpdateTableResponse resp = OTSP__UPDATE_TABLE_RESPONSE__INIT;
	Otsp__TableOptions *options;
	TableParts	parts;
	json_t	   *description;
	SqlCall		q;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	options = req->table_options;
	if (!table_name_valid(call, req->table_name))
		goto done;
	/*
	 * Tablestore refuses the field in any UpdateTable, even with the table's
	 * own value (its text is not published; the Go SDK's test asserts it
	 * says "contain updateFullRow")
	 */
	if (options && options->has_update_full_row)
	{
		call_parameter_invalid(call, "An UpdateTable request must not contain updateFullRow.");
		goto done;
	}
	if (options && !options->has_max_versions && !options->has_time_to_live &&
		!options->has_deviation_cell_version_in_sec && !options->has_allow_update)
	{
		call_parameter_invalid(call, "No parameter is specified in table options.");
		goto done;
	}
	if (options || req->stream_spec)
	{
		PGresult   *res;

		sql_begin(&q, "SELECT ots.update_table(");
		sql_arg(&q, req->table_name, "text");
		if (options && options->has_max_versions)
			sql_named_owned(&q, "max_versions", int_text(options->max_versions), "integer");
		if (options && options->has_time_to_live)
			sql_named_owned(&q, "time_to_live", int_text(options->time_to_live), "bigint");
		if (options && options->has_deviation_cell_version_in_sec)
			sql_named_owned(&q, "max_version_offset", int_text(options->deviation_cell_version_in_sec), "bigint");
		if (options && options->has_allow_update)
			sql_named(&q, "allow_update", options->allow_update ? "true" : "false", "boolean");
		if (req->stream_spec)
			stream_spec_args(&q, req->stream_spec);
		sql_end(&q, ")::text");
		res = sql_run(call, NULL, &q);
		sql_free(&q);
		if (res == NULL)
			goto done;
		PQclear(res);
	}
	if ((description = describe(call, req->table_name)) == NULL)
		goto done;
	table_parts(&parts, description);
	resp.reserved_throughput_details = &parts.reserved;
	resp.table_options = &parts.options;
	resp.stream_details = &parts.stream;
	call_reply(call, &resp.base);
	json_decref(description);
done:
	FREE(req);
}

void
action_delete_table(Call *call)
{
	Otsp__DeleteTableRequest *req = UNPACK(delete_table_request, call);
	Otsp__DeleteTableResponse resp = OTSP__DELETE_TABLE_RESPONSE__INIT;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	simple_call(call, "delete_table", req->table_name, NULL, NULL, &resp.base);
	FREE(req);
}

void
action_drop_index(Call *call)
{
	Otsp__DropIndexRequest *req = UNPACK(drop_index_request, call);
	Otsp__DropIndexResponse resp = OTSP__DROP_INDEX_RESPONSE__INIT;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	simple_call(call, "delete_index", req->main_table_name, req->index_name, NULL, &resp.base);
	FREE(req);
}

/* AddDefinedColumn: ots.add_defined_column with the columns as "name type, ..." */
void
action_add_defined_column(Call *call)
{
	Otsp__AddDefinedColumnRequest *req = UNPACK(add_defined_column_request, call);
	Otsp__AddDefinedColumnResponse resp = OTSP__ADD_DEFINED_COLUMN_RESPONSE__INIT;
	Buf			defined = {0};
	SqlCall		q;
	PGresult   *res;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (!table_name_valid(call, req->table_name))
		goto done;
	if (!defined_column_list(call, &defined, req->columns, req->n_columns))
		goto done;
	sql_begin(&q, "SELECT ots.add_defined_column(");
	sql_arg(&q, req->table_name, "text");
	sql_arg(&q, (char *) defined.data, "text");
	sql_end(&q, ")::text");
	res = sql_run(call, NULL, &q);
	sql_free(&q);
	if (res != NULL)
	{
		PQclear(res);
		call_reply(call, &resp.base);
	}
done:
	buf_free(&defined);
	FREE(req);
}

/* DeleteDefinedColumn: ots.delete_defined_column of the names */
void
action_delete_defined_column(Call *call)
{
	Otsp__DeleteDefinedColumnRequest *req = UNPACK(delete_defined_column_request, call);
	Otsp__DeleteDefinedColumnResponse resp = OTSP__DELETE_DEFINED_COLUMN_RESPONSE__INIT;
	SqlCall		q;
	PGresult   *res;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (table_name_valid(call, req->table_name))
	{
		sql_begin(&q, "SELECT ots.delete_defined_column(");
		sql_arg(&q, req->table_name, "text");
		sql_arg_owned(&q, text_array(req->columns, req->n_columns), "text[]");
		sql_end(&q, ")::text");
		res = sql_run(call, NULL, &q);
		sql_free(&q);
		if (res != NULL)
		{
			PQclear(res);
			call_reply(call, &resp.base);
		}
	}
	FREE(req);
}

void
action_create_index(Call *call)
{
	Otsp__CreateIndexRequest *req = UNPACK(create_index_request, call);
	Otsp__CreateIndexResponse resp = OTSP__CREATE_INDEX_RESPONSE__INIT;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (table_name_valid(call, req->main_table_name) &&
		create_index(call, req->main_table_name, req->index_meta,
					 !req->has_include_base_data || req->include_base_data))
		call_reply(call, &resp.base);
	FREE(req);
}

/*
 * ComputeSplitPointsBySize: ots.compute_split_points's values of the
 * partition key, each a PlainBuffer row of that one key column (the SDKs
 * give the others INF_MIN), and one location for every split.  A database
 * without the function (an older ots, a cluster's proxy) answers one split.
 */
void
action_compute_split_points_by_size(Call *call)
{
	Otsp__ComputeSplitPointsBySizeRequest *req = UNPACK(compute_split_points_by_size_request, call);
	Otsp__ComputeSplitPointsBySizeResponse resp = OTSP__COMPUTE_SPLIT_POINTS_BY_SIZE_RESPONSE__INIT;
	Otsp__ComputeSplitPointsBySizeResponse__SplitLocation location =
		OTSP__COMPUTE_SPLIT_POINTS_BY_SIZE_RESPONSE__SPLIT_LOCATION__INIT;
	Otsp__ComputeSplitPointsBySizeResponse__SplitLocation *locations[1] = {&location};
	Consumed	consumed;
	json_t	   *description = NULL;
	json_t	   *points = NULL;
	Buf		   *rows = NULL;
	int64_t		unit;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	/* split_size counts units of 100 MB, or of split_size_unit_in_byte */
	unit = req->has_split_size_unit_in_byte ? req->split_size_unit_in_byte : 100 * 1024 * 1024;
	if (req->split_size <= 0 || unit <= 0 || req->split_size > INT64_MAX / unit)
	{
		call_parameter_invalid(call, "Invalid split size: %lld.", (long long) req->split_size);
		goto done;
	}
	if (req->has_split_point_limit && req->split_point_limit < 0)
	{
		call_parameter_invalid(call, "Invalid split point limit: %d.", (int) req->split_point_limit);
		goto done;
	}
	if (!table_name_valid(call, req->table_name) || (description = describe(call, req->table_name)) == NULL)
		goto done;
	if (pool_has_wire(WIRE_SPLIT_POINTS))
	{
		SqlCall		q;

		sql_begin(&q, "SELECT ots.compute_split_points(");
		sql_arg(&q, req->table_name, "text");
		sql_arg_owned(&q, int_text(req->split_size * unit), "bigint");
		sql_arg_owned(&q, req->has_split_point_limit ? int_text(req->split_point_limit) : NULL, "integer");
		sql_end(&q, ")::text");
		if ((points = run_json(call, &q)) == NULL)
			goto done;
	}
	resp.schema = pk_schema_from(json_object_get(description, "primary_key"), &resp.n_schema);
	resp.n_split_points = json_array_size(points);
	resp.split_points = calloc(resp.n_split_points + 1, sizeof(ProtobufCBinaryData));
	rows = calloc(resp.n_split_points + 1, sizeof(Buf));
	if (resp.split_points == NULL || rows == NULL)
		abort();
	for (size_t i = 0; i < resp.n_split_points; i++)
	{
		pb_begin(&rows[i]);
		pb_write_row(&rows[i], json_array_get(points, i), NULL, NULL);
		resp.split_points[i].data = rows[i].data;
		resp.split_points[i].len = rows[i].len;
	}
	location.location = "";
	location.repeat = (int64_t) resp.n_split_points + 1;
	resp.n_locations = 1;
	resp.locations = locations;
	resp.consumed = consumed_from(&consumed, "{\"read\": 1, \"write\": 0}");
	call_reply(call, &resp.base);
done:
	for (size_t i = 0; rows != NULL && i < resp.n_split_points; i++)
		buf_free(&rows[i]);
	free(rows);
	free(resp.split_points);
	json_decref(points);
	json_decref(description);
	free(resp.schema);
	FREE(req);
}
