/*-------------------------------------------------------------------------
 * gateway/action_stream.c
 *	  The Stream actions: ListStream, DescribeStream, GetShardIterator,
 *	  GetStreamRecord, over ots's functions of the same names.
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "action.h"

/* runs q and returns its result with at least one row, or NULL after replying */
static PGresult *
run_rows(Call *call, SqlCall *q)
{
	PGresult   *res = sql_run(call, NULL, q);

	sql_free(q);
	return res;
}

void
action_list_stream(Call *call)
{
	Otsp__ListStreamRequest *req = UNPACK(list_stream_request, call);
	Otsp__ListStreamResponse resp = OTSP__LIST_STREAM_RESPONSE__INIT;
	Otsp__Stream *streams;
	SqlCall		q;
	PGresult   *res;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	if (req->table_name && !table_name_valid(call, req->table_name))
		goto done;
	sql_begin(&q, "SELECT stream_id, table_name, creation_time FROM ots.list_stream(");
	sql_arg(&q, req->table_name, "text");
	sql_end(&q, ") WHERE schema_name = pg_catalog.current_schema() ORDER BY table_name COLLATE \"C\"");
	if ((res = run_rows(call, &q)) == NULL)
		goto done;
	resp.n_streams = PQntuples(res);
	streams = calloc(resp.n_streams + 1, sizeof(*streams));
	resp.streams = calloc(resp.n_streams + 1, sizeof(void *));
	for (size_t i = 0; i < resp.n_streams; i++)
	{
		otsp__stream__init(&streams[i]);
		streams[i].stream_id = PQgetvalue(res, i, 0);
		streams[i].table_name = PQgetvalue(res, i, 1);
		streams[i].creation_time = strtoll(PQgetvalue(res, i, 2), NULL, 10);
		resp.streams[i] = &streams[i];
	}
	call_reply(call, &resp.base);
	free(streams);
	free(resp.streams);
	PQclear(res);
done:
	FREE(req);
}

void
action_describe_stream(Call *call)
{
	Otsp__DescribeStreamRequest *req = UNPACK(describe_stream_request, call);
	Otsp__DescribeStreamResponse resp = OTSP__DESCRIBE_STREAM_RESPONSE__INIT;
	Otsp__StreamShard *shards;
	SqlCall		q;
	PGresult   *res;
	json_t	   *stream,
			   *list;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	sql_begin(&q, "SELECT ots.describe_stream(");
	sql_arg(&q, req->stream_id, "text");
	sql_arg(&q, req->inclusive_start_shard_id, "text");
	if (req->has_shard_limit)
		sql_arg_owned(&q, int_text(req->shard_limit), "integer");
	sql_end(&q, ")::text");
	if ((res = run_rows(call, &q)) == NULL)
		goto done;
	stream = json_parse(PQgetvalue(res, 0, 0));
	list = json_object_get(stream, "shards");
	resp.stream_id = (char *) json_string_value(json_object_get(stream, "stream_id"));
	resp.expiration_time = (int32_t) json_integer_value(json_object_get(stream, "expiration_time"));
	resp.table_name = (char *) json_string_value(json_object_get(stream, "table_name"));
	resp.creation_time = json_integer_value(json_object_get(stream, "creation_time"));
	resp.stream_status = OTSP__STREAM_STATUS__STREAM_ACTIVE;
	resp.next_shard_id = (char *) json_string_value(json_object_get(stream, "next_shard_id"));
	resp.n_shards = json_array_size(list);
	shards = calloc(resp.n_shards + 1, sizeof(*shards));
	resp.shards = calloc(resp.n_shards + 1, sizeof(void *));
	for (size_t i = 0; i < resp.n_shards; i++)
	{
		json_t	   *shard = json_array_get(list, i);

		otsp__stream_shard__init(&shards[i]);
		shards[i].shard_id = (char *) json_string_value(json_object_get(shard, "shard_id"));
		shards[i].parent_id = (char *) json_string_value(json_object_get(shard, "parent_id"));
		shards[i].parent_sibling_id = (char *) json_string_value(json_object_get(shard, "parent_sibling_id"));
		resp.shards[i] = &shards[i];
	}
	call_reply(call, &resp.base);
	free(shards);
	free(resp.shards);
	json_decref(stream);
	PQclear(res);
done:
	FREE(req);
}

void
action_get_shard_iterator(Call *call)
{
	Otsp__GetShardIteratorRequest *req = UNPACK(get_shard_iterator_request, call);
	Otsp__GetShardIteratorResponse resp = OTSP__GET_SHARD_ITERATOR_RESPONSE__INIT;
	SqlCall		q;
	PGresult   *res;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	sql_begin(&q, "SELECT ots.get_shard_iterator(");
	sql_arg(&q, req->stream_id, "text");
	sql_arg(&q, req->shard_id, "text");
	sql_end(&q, ")");
	if ((res = run_rows(call, &q)) != NULL)
	{
		resp.shard_iterator = PQgetvalue(res, 0, 0);
		call_reply(call, &resp.base);
		PQclear(res);
	}
	FREE(req);
}

static int
action_type_of(const char *name)
{
	if (name && strcmp(name, "UPDATE_ROW") == 0)
		return OTSP__ACTION_TYPE__UPDATE_ROW;
	if (name && strcmp(name, "DELETE_ROW") == 0)
		return OTSP__ACTION_TYPE__DELETE_ROW;
	return OTSP__ACTION_TYPE__PUT_ROW;
}

/*
 * GetStreamRecord: records carry their key as a json object, whose order
 * is not the table's; the key order comes from the stream's table, found
 * in the same statement (the iterator starts with the stream id).
 */
void
action_get_stream_record(Call *call)
{
	Otsp__GetStreamRecordRequest *req = UNPACK(get_stream_record_request, call);
	Otsp__GetStreamRecordResponse resp = OTSP__GET_STREAM_RECORD_RESPONSE__INIT;
	Otsp__GetStreamRecordResponse__StreamRecord *records;
	Buf		   *bytes;
	Buf		   *origin;
	SqlCall		q;
	PGresult   *res;
	json_t	   *result,
			   *list,
			   *pk_order;

	if (req == NULL)
	{
		reply_malformed(call);
		return;
	}
	sql_begin(&q, "SELECT ots.get_stream_record(");
	sql_arg(&q, req->shard_iterator, "text");
	if (req->has_limit)
		sql_arg_owned(&q, int_text(req->limit), "integer");
	/* a table-name argument quotes its schema only: a table name is [A-Za-z0-9_] */
	sql_end(&q, ")::text, (SELECT pg_catalog.jsonb_path_query_array(ots.describe_table("
			"pg_catalog.quote_ident(s.schema_name) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) "
			"s.table_name) OPERATOR(pg_catalog.->) 'primary_key', '$[*].name')::text "
			"FROM ots.list_stream() s WHERE s.stream_id OPERATOR(pg_catalog.=) "
			"pg_catalog.split_part($1, ':', 1))");
	if ((res = run_rows(call, &q)) == NULL)
		goto done;
	result = json_parse(PQgetvalue(res, 0, 0));
	pk_order = json_parse(PQgetisnull(res, 0, 1) ? "[]" : PQgetvalue(res, 0, 1));
	list = json_object_get(result, "stream_records");
	resp.n_stream_records = json_array_size(list);
	records = calloc(resp.n_stream_records + 1, sizeof(*records));
	bytes = calloc(resp.n_stream_records + 1, sizeof(Buf));
	origin = calloc(resp.n_stream_records + 1, sizeof(Buf));
	resp.stream_records = calloc(resp.n_stream_records + 1, sizeof(void *));
	for (size_t i = 0; i < resp.n_stream_records; i++)
	{
		json_t	   *record = json_array_get(list, i);
		const char *action = json_string_value(json_object_get(record, "action_type"));
		json_t	   *sequence = json_object_get(record, "sequence_info");
		PbSequenceInfo seq = {
			.epoch = (uint32_t) json_integer_value(json_object_get(sequence, "epoch")),
			.timestamp = json_integer_value(json_object_get(sequence, "timestamp")),
			.row_index = (uint32_t) json_integer_value(json_object_get(sequence, "row_index")),
		};

		otsp__get_stream_record_response__stream_record__init(&records[i]);
		records[i].action_type = action_type_of(action);
		pb_begin(&bytes[i]);
		pb_write_change(&bytes[i], json_object_get(record, "primary_key"), pk_order,
						json_object_get(record, "columns"),
						records[i].action_type == OTSP__ACTION_TYPE__DELETE_ROW, &seq);
		records[i].record.data = bytes[i].data;
		records[i].record.len = bytes[i].len;
		/* the values before the change of the stream's original columns, a row of puts */
		if (json_array_size(json_object_get(record, "original_columns")) > 0)
		{
			pb_begin(&origin[i]);
			pb_write_change(&origin[i], json_object_get(record, "primary_key"), pk_order,
							json_object_get(record, "original_columns"), false, NULL);
			records[i].has_origin_record = 1;
			records[i].origin_record.data = origin[i].data;
			records[i].origin_record.len = origin[i].len;
		}
		resp.stream_records[i] = &records[i];
	}
	resp.next_shard_iterator = (char *) json_string_value(json_object_get(result, "next_shard_iterator"));
	call_reply(call, &resp.base);
	for (size_t i = 0; i < resp.n_stream_records; i++)
	{
		buf_free(&bytes[i]);
		buf_free(&origin[i]);
	}
	free(bytes);
	free(origin);
	free(records);
	free(resp.stream_records);
	json_decref(result);
	json_decref(pk_order);
	PQclear(res);
done:
	FREE(req);
}
