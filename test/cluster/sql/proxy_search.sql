-- Search indexes through ots_proxy over 2 shards (proxy/sql/60_search.sql):
-- the DDL on every shard, a create stopped half way repaired, refusals as
-- a node's, and a search's rows, count and token from both shards.  What
-- a search returns against one node holding every row, over random
-- searches: test/cluster/search_compare.sh.
\set SHOW_CONTEXT never
SET client_min_messages = warning;

CREATE FUNCTION try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE m text; d text; s text;
BEGIN
	EXECUTE sql;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL;
	RETURN s || ': ' || m || coalesce(' (' || nullif(d, '') || ')', '');
END $$;
GRANT EXECUTE ON FUNCTION try(text) TO PUBLIC;
-- indexes_on(p): the search indexes the shard of partition p has
CREATE FUNCTION indexes_on(p integer) RETURNS SETOF text LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT s.table_name::pg_catalog.text OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) s.index_name
	  FROM ots.list_search_index() s ORDER BY 1;
$$;
-- rows_on(p): how many rows of ps_t the shard of partition p holds
CREATE FUNCTION rows_on(p integer) RETURNS bigint LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT pg_catalog.count(*) FROM public.ps_t;
$$;
-- delete_directly(p, index): ots.delete_search_index on one shard only
CREATE FUNCTION delete_directly(p integer, index_name text) RETURNS void LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.delete_search_index('public.ps_t', $2);
$$;
SELECT partition AS p0 FROM ots_cluster.shards() ORDER BY shard LIMIT 1 \gset
SELECT partition AS p1 FROM ots_cluster.shards() ORDER BY shard OFFSET 1 LIMIT 1 \gset

SELECT ots.create_table('ps_t', 'id integer', allow_update => false);
SELECT count(ots.put_row('ps_t', jsonb_build_object('id', i),
						 jsonb_build_object('color', (ARRAY['red', 'green', 'blue'])[i % 3 + 1], 'n', i)))
  FROM generate_series(1, 40) i;
-- the rows are on both shards
SELECT rows_on(:p0) > 0 AS shard0_has_rows, rows_on(:p1) > 0 AS shard1_has_rows, rows_on(:p0) + rows_on(:p1) AS total;

-- 1. DDL on every shard; describe and list answer as a node's
SELECT ots.create_search_index('ps_t', 'ix', '{"field_schemas": [{"field_name": "color", "field_type": "KEYWORD"},
											   {"field_name": "n", "field_type": "LONG"}]}');
SELECT indexes_on(:p0) AS shard0, indexes_on(:p1) AS shard1;
SELECT * FROM ots.list_search_index('ps_t');
SELECT d -> 'schema' -> 'field_schemas' -> 0 ->> 'field_name' AS first_field, d -> 'time_to_live' AS ttl
  FROM ots.describe_search_index('ps_t', 'ix') d;
-- the described size is every shard's (each shard's as its own describe says)
SELECT ots_cluster.target(ots_cluster.table_of('ps_t', current_setting('search_path')), 'ps_t') AS ps_target \gset
SELECT (ots.describe_search_index('ps_t', 'ix') #>> '{metering_info,storage_size}')::bigint
	   = (ots_cluster.describe_search_index_on(:p0, :'ps_target', 'ix') #>> '{metering_info,storage_size}')::bigint
		 + (ots_cluster.describe_search_index_on(:p1, :'ps_target', 'ix') #>> '{metering_info,storage_size}')::bigint AS all_shards_sized,
	   ots.describe_search_index('ps_t', 'ix') #>> '{sync_stat,sync_phase}' AS phase;
SELECT ots.update_search_index('ps_t', 'ix', 86400);
SELECT (ots.describe_search_index('ps_t', 'ix')) -> 'time_to_live' AS ttl;
-- refused as a node refuses
SELECT try($$SELECT ots.create_search_index('ps_t', 'ix', '{"field_schemas": [{"field_name": "n", "field_type": "LONG"}]}')$$);
SELECT try($$SELECT ots.describe_search_index('ps_t', 'nope')$$);
SELECT try($$SELECT ots.delete_search_index('ps_t', 'nope')$$);
SELECT try($$SELECT ots.create_search_index('no_such_table', 'ix', '{"field_schemas": [{"field_name": "n", "field_type": "LONG"}]}')$$);
SELECT try($$SELECT ots.search('ps_t', 'nope', '{"query": {"match_all_query": {}}}')$$);
SELECT try($$SELECT ots.search('ps_t', 'ix', '{"query": {"match_all_query": {}}, "limit": 101}')$$);
SELECT try($$SELECT ots.delete_table('ps_t')$$);

-- 2. a create stopped half way (the index on one shard only) is repaired by calling it again
SELECT delete_directly(:p1, 'ix');
SELECT indexes_on(:p0) AS shard0, indexes_on(:p1) AS shard1;
SELECT ots.create_search_index('ps_t', 'ix', '{"field_schemas": [{"field_name": "color", "field_type": "KEYWORD"},
											   {"field_name": "n", "field_type": "LONG"}]}');
SELECT indexes_on(:p0) AS shard0, indexes_on(:p1) AS shard1;

-- 3. a search finds the rows of both shards, merged in order, paged by token
SELECT s -> 'total_count' AS total, jsonb_path_query_array(s, '$.rows[*].primary_key.id') AS ids,
	   s ->> 'next_token' IS NOT NULL AS more
  FROM ots.search('ps_t', 'ix', '{"query": {"term_query": {"field_name": "color", "term": "red"}},
								   "sort": {"sorters": [{"field_sort": {"field_name": "n", "order": "DESC"}}]},
								   "limit": 5, "get_total_count": true}') s \gset
SELECT :'total' AS total, :'ids' AS ids, :'more' AS more;
SELECT jsonb_path_query_array(s, '$.rows[*]') AS next_page, s -> 'next_token' AS token
  FROM ots.search('ps_t', 'ix', jsonb_build_object('query', '{"term_query": {"field_name": "color", "term": "red"}}'::jsonb,
												  'limit', 5,
												  'token', (ots.search('ps_t', 'ix', '{"query": {"term_query": {"field_name": "color", "term": "red"}},
														"sort": {"sorters": [{"field_sort": {"field_name": "n", "order": "DESC"}}]},
														"limit": 5}')) -> 'next_token'),
				  '{"return_type": "RETURN_SPECIFIED", "column_names": ["n"]}') s;
-- aggregations over both shards' rows
SELECT jsonb_pretty(s -> 'aggs') AS aggs, jsonb_pretty(s -> 'group_bys') AS group_bys
  FROM ots.search('ps_t', 'ix', '{"query": {"match_all_query": {}}, "limit": 0,
								   "aggs": [{"name": "total", "type": "sum", "field_name": "n"},
											{"name": "mean", "type": "avg", "field_name": "n"},
											{"name": "colors", "type": "distinct_count", "field_name": "color"}],
								   "group_bys": [{"name": "by_color", "type": "field", "field_name": "color", "size": 2}]}') s;
-- a write through the proxy is found by the next search
SELECT count(*) FROM ots.put_row('ps_t', '{"id": 41}', '{"color": "red", "n": 1000}');
SELECT s -> 'rows' -> 0 AS first FROM ots.search('ps_t', 'ix', '{"query": {"term_query": {"field_name": "color", "term": "red"}},
								   "sort": {"sorters": [{"field_sort": {"field_name": "n", "order": "DESC"}}]}, "limit": 1}') s;

-- 4. the tokens of a text through the first shard
SELECT * FROM ots.search_analyze('Quick brown FOX');

-- 5. a schema change as Tablestore makes it, on every shard: an index from a source (its
--    brother, filled from each shard's rows), searches shared by weights, the switch
SELECT ots.create_search_index('ps_t', 'ix_reindex', '{"field_schemas": [{"field_name": "color", "field_type": "KEYWORD"},
	{"field_name": "n", "field_type": "LONG"}]}', source_index_name => 'ix');
SELECT ARRAY(SELECT indexes_on(:p0)) AS shard0, ARRAY(SELECT indexes_on(:p1)) AS shard1;
SELECT ots_cluster.describe_search_index_on(:p0, :'ps_target', 'ix_reindex') ->> 'brother_index_name' AS brother0,
	   ots_cluster.describe_search_index_on(:p1, :'ps_target', 'ix_reindex') ->> 'brother_index_name' AS brother1;
SELECT ots.update_search_index('ps_t', 'ix', query_flow_weights => '[{"index_name": "ix", "weight": 0}, {"index_name": "ix_reindex", "weight": 100}]');
SELECT ots_cluster.describe_search_index_on(:p0, :'ps_target', 'ix') -> 'query_flow_weights' AS weights0,
	   ots_cluster.describe_search_index_on(:p1, :'ps_target', 'ix') -> 'query_flow_weights' AS weights1;
-- searches of ix answered by ix_reindex on both shards: the same rows
SELECT s -> 'total_count' AS total FROM ots.search('ps_t', 'ix', '{"query": {"term_query": {"field_name": "color", "term": "red"}}, "limit": 0,
	"get_total_count": true}') s;
SELECT ots.update_search_index('ps_t', 'ix', switch_index_name => 'ix_reindex');
SELECT ots_cluster.describe_search_index_on(:p0, :'ps_target', 'ix') -> 'schema' -> 'field_schemas' AS ix_fields0;
SELECT try($$SELECT ots.update_search_index('ps_t', 'ix', switch_index_name => 'nope')$$);
SELECT ots.delete_search_index('ps_t', 'ix_reindex');

-- 6. dropped on every shard; then the table
SELECT ots.delete_search_index('ps_t', 'ix');
SELECT indexes_on(:p0) AS shard0, indexes_on(:p1) AS shard1;
SELECT ots.delete_table('ps_t');

DROP FUNCTION try(text), indexes_on(integer), rows_on(integer), delete_directly(integer, text);
