-- ots_proxy over 2 shards (the runner made the cluster, 64 partitions):
-- routing, batches, DDL repair, errors, moving partitions, the catalog's
-- privileges.  Shards are read through PL/Proxy functions RUN ON a partition.
\set SHOW_CONTEXT never
SET client_min_messages = warning;

-- try(sql): the error a statement raises, as SQLSTATE: message (detail)
CREATE FUNCTION try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE m text; d text; s text;
BEGIN
	EXECUTE sql;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL;
	RETURN s || ': ' || m || coalesce(' (' || nullif(d, '') || ')', '');
END $$;

-- on_shard(p, id): how many rows of proxy_t with that id the shard of partition p holds
CREATE FUNCTION on_shard(p integer, id text) RETURNS bigint LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT pg_catalog.count(*) FROM public.proxy_t v WHERE v.id = $2;
$$;
-- create_directly(p, name): ots.create_table on one shard only
CREATE FUNCTION create_directly(p integer, name text, pk text) RETURNS void LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.create_table($2, $3);
$$;
-- proxy_rows(prefix): the rows of proxy_t on every shard whose id starts so
CREATE FUNCTION proxy_rows(prefix text) RETURNS TABLE (id text, n bigint, attributes jsonb) LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON ALL;
	SELECT v.id, v.n, v.attributes FROM public.proxy_t v WHERE v.id LIKE $1 || '%';
$$;
CREATE FUNCTION has_table(p integer, name text) RETURNS boolean LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT EXISTS (SELECT 1 FROM ots.tables t WHERE t.table_name = $2);
$$;

SELECT shard, partition, cardinality(partitions) AS n FROM ots_cluster.shards() ORDER BY shard;

-- 1. routing: each key on exactly the shard its partition names
SELECT ots.create_table('proxy_t', 'id string, n integer');
SELECT count(*) FROM (SELECT ots.put_row('proxy_t', jsonb_build_object('id', 'k' || i, 'n', i), '{"a": 1}')
						FROM generate_series(1, 40) i) w;
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE on_shard(s.partition, 'k' || i) = 1) AS on_its_shard,
	   count(*) FILTER (WHERE on_shard(o.partition, 'k' || i) = 0) AS not_on_the_other,
	   count(DISTINCT s.shard) AS shards_used
  FROM generate_series(1, 40) i,
	   LATERAL (SELECT ots_cluster.partition_of(ots_cluster.key_hash(to_jsonb('k' || i), 'STRING')) AS part) h
  JOIN ots_cluster.shards() s ON h.part = ANY (s.partitions)
  JOIN ots_cluster.shards() o ON o.shard <> s.shard;
-- key_hash: the canonical text of each type; invalid values hash to 0
SELECT ots_cluster.key_hash('"abc"', 'STRING') = hashtext('abc') AS string,
	   ots_cluster.key_hash('42', 'INTEGER') = hashtext('42') AS integer,
	   ots_cluster.key_hash('{"$binary": "AAEC"}', 'BINARY') = hashtext('000102') AS binary,
	   ots_cluster.key_hash('4.5', 'INTEGER') AS double_as_integer,
	   ots_cluster.key_hash('"x"', 'INTEGER') AS string_as_integer,
	   ots_cluster.key_hash('{"$binary": "!!"}', 'BINARY') AS bad_base64;
SELECT ots_cluster.storage_hash_sql('v.id', 'STRING'), ots_cluster.storage_hash_sql('v.n', 'INTEGER'),
	   ots_cluster.storage_hash_sql('v.b', 'BINARY');

-- 2. single-row calls and errors identical to the single node's (every
-- session's catalog forgotten: a read-only transaction routes, and its
-- session records what it learned; DDL is refused there before any shard
-- changes)
SELECT ots_cluster.catalog_reset();
SELECT count(*) AS known FROM ots_cluster.cache_entries();
BEGIN READ ONLY;
SELECT (ots.get_row('proxy_t', '{"id": "k1", "n": 1}')).attributes;
SELECT try($$SELECT ots.create_table('proxy_ro', 'id string')$$);
SELECT try($$SELECT ots.delete_table('proxy_t')$$);
COMMIT;
SELECT CASE WHEN schema_name = current_user THEN '$user' ELSE schema_name END AS schema_name, table_name,
	   (entry).pk_names, (entry).pk_types
  FROM ots_cluster.cache_entries() WHERE table_name = 'proxy_t' ORDER BY 1;
SELECT * FROM ots.list_table() WHERE table_name LIKE 'proxy%';
SELECT ots.get_row('proxy_t', '{"id": "k1", "n": 1}');
-- otsd's wire form of get_row routes alike: the row's PlainBuffer holds its key
SELECT length("row") > 0 AS has_row, position(convert_to('k1', 'UTF8') in "row") > 0 AS has_key,
	   read_cu, write_cu
  FROM ots.wire_get_row('proxy_t', '{"id": "k1", "n": 1}');
SELECT length("row"), read_cu FROM ots.wire_get_row('proxy_t', '{"id": "none", "n": 1}');
SELECT try($$SELECT ots.wire_get_row('proxy_nope', '{"id": "k1", "n": 1}')$$);
SELECT try($$SELECT ots.put_row('proxy_t', '{"id": "k1", "n": 1}', '{}', 'EXPECT_NOT_EXIST')$$);
SELECT try($$SELECT ots.put_row('proxy_t', '{"id": "k1"}')$$);
SELECT try($$SELECT ots.put_row('proxy_t', '{"id": 5, "n": 1}')$$);
SELECT try($$SELECT ots.get_row('proxy_nope', '{"id": "k1", "n": 1}')$$);
SELECT try($$SELECT ots.update_row('proxy_t', '{"id": "k2", "n": 2}', increment => '{"a": "x"}')$$);
SELECT ots.update_row('proxy_t', '{"id": "k2", "n": 2}', increment => '{"a": 2}', return_type => 'RT_AFTER_MODIFY', return_columns => '{a}');
SELECT ots.delete_row('proxy_t', '{"id": "k3", "n": 3}', 'EXPECT_EXIST');
SELECT try($$SELECT ots.delete_row('proxy_t', '{"id": "k3", "n": 3}', 'EXPECT_EXIST')$$);
SELECT ots.error_code('OT013'), ots.error_code('OT003'), ots.error_code('42501');
-- a name longer than PostgreSQL's: the shard's error names it whole
SELECT try(format('SELECT ots.create_table(%L, %L)', repeat('n', 70), 'k string'));

-- 3. batches across shards: request order, original index, per-row errors
SELECT * FROM ots.batch_get_row($$[
	{"table_name": "proxy_t", "primary_keys": [{"id": "k4", "n": 4}, {"id": "k5", "n": 5}, {"id": "zz", "n": 0}, {"id": "k6"}]},
	{"table_name": "public.proxy_t", "primary_keys": [{"id": "k7", "n": 7}, {"id": "k8", "n": 8}], "columns_to_get": ["a"]}]$$);
SELECT * FROM ots.batch_write_row($$[
	{"table_name": "proxy_t", "rows": [
		{"type": "PUT", "primary_key": {"id": "b1", "n": 1}, "attributes": {"x": 1}},
		{"type": "PUT", "primary_key": {"id": "b2", "n": 2}, "attributes": {"x": 2}},
		{"type": "UPDATE", "primary_key": {"id": "b3", "n": 3}, "put": {"x": 3}, "condition": "EXPECT_EXIST"},
		{"type": "DELETE", "primary_key": {"id": "b4", "n": 4}},
		{"type": "PUT", "primary_key": {"id": "b5", "n": 5}, "attributes": {"x": 5}}]},
	{"table_name": "proxy_nope", "rows": [{"type": "PUT", "primary_key": {"id": "b6", "n": 6}}]}]$$);
SELECT id, n, attributes FROM proxy_rows('b') ORDER BY id;

-- 4. atomic batches: rows of several partition keys fail as on one node
SELECT * FROM ots.batch_write_row($$[{"table_name": "proxy_t", "rows": [
	{"type": "PUT", "primary_key": {"id": "a1", "n": 1}},
	{"type": "PUT", "primary_key": {"id": "a2", "n": 1}}]}]$$, true);
SELECT * FROM ots.batch_write_row($$[{"table_name": "proxy_t", "rows": [
	{"type": "PUT", "primary_key": {"id": "a1", "n": 1}},
	{"type": "PUT", "primary_key": {"id": "a1", "n": 2}}]}]$$, true);
SELECT id, n FROM proxy_rows('a') ORDER BY id, n;
-- a failing row fails them all; the messages name the table as the caller
-- did (the shard was sent public.proxy_t), in the results and in errors
SELECT * FROM ots.batch_write_row($$[
	{"table_name": "proxy_t", "rows": [
		{"type": "PUT", "primary_key": {"id": "a3", "n": 1}},
		{"type": "PUT", "primary_key": {"id": "a3", "n": 2}, "condition": "EXPECT_EXIST"}]},
	{"table_name": "public.proxy_t", "rows": [
		{"type": "PUT", "primary_key": {"id": "a4", "n": 1}},
		{"type": "PUT", "primary_key": {"id": "a4", "n": 2}, "condition": "EXPECT_EXIST"}]}]$$, true);
SELECT try($$SELECT * FROM ots.batch_write_row('[{"table_name": "proxy_t", "rows": [{"type": "PUT", "primary_key": {"id": "a5", "n": 1}}]},
	{"table_name": "proxy_t", "rows": []}]')$$);
SELECT try($$SELECT * FROM ots.batch_get_row('[{"table_name": "proxy_t", "primary_keys": [{"id": "a5", "n": 1}]},
	{"table_name": "proxy_t", "primary_keys": {}}]')$$);
SELECT ots_cluster.caller_names('row 0 of table ''public.t'' and ''public.u''', '{public.u,public.t}', '{u,t}'),
	   ots_cluster.caller_names('of table ''public.t''', '{public.t}', '{public.t}');

-- 5. whole-request errors before any shard writes (rows on both shards)
SELECT try($$SELECT * FROM ots.batch_write_row('[{"table_name": "proxy_t", "rows": [
	{"type": "PUT", "primary_key": {"id": "w1", "n": 1}}, {"type": "PUT", "primary_key": {"id": "w2", "n": 1}},
	{"type": "PUT", "primary_key": {"id": "w3", "n": 1}}, {"type": "BAD", "primary_key": {"id": "w4", "n": 1}}]}]')$$);
SELECT try($$SELECT * FROM ots.batch_write_row('[{"table_name": "proxy_t", "rows": [
	{"type": "PUT", "primary_key": {"id": "w1", "n": 1}}, {"type": "PUT", "primary_key": {"id": "w2", "n": 1}},
	{"type": "PUT", "primary_key": {"id": "w1", "n": 1}, "condition": "EXPECT_NOT_EXIST"}]}]')$$);
SELECT try(format($$SELECT * FROM ots.batch_write_row(%L)$$,
	jsonb_build_array(jsonb_build_object('table_name', 'proxy_t', 'rows',
		(SELECT jsonb_agg(jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('id', 'w' || i, 'n', i)))
		   FROM generate_series(1, 201) i)))));
SELECT try($$SELECT * FROM ots.batch_write_row('[]')$$);
SELECT try($$SELECT * FROM ots.batch_get_row('[{"table_name": "proxy_t", "primary_keys": []}]')$$);
SELECT count(*) AS written FROM proxy_rows('w');

-- 6. DDL: create_table repairs a table present on one shard only
SELECT create_directly((SELECT partition FROM ots_cluster.shards() WHERE shard = 2), 'public.proxy_r', 'id string');
SELECT shard, has_table(partition, 'proxy_r') FROM ots_cluster.shards() ORDER BY shard;
SELECT ots.create_table('proxy_r', 'id string');
SELECT shard, has_table(partition, 'proxy_r') FROM ots_cluster.shards() ORDER BY shard;
SELECT try($$SELECT ots.create_table('proxy_r', 'id string')$$);
-- present on one shard with another definition: refused, nothing left behind
SELECT create_directly((SELECT partition FROM ots_cluster.shards() WHERE shard = 2), 'public.proxy_s', 'id integer');
SELECT try($$SELECT ots.create_table('proxy_s', 'id string')$$);
SELECT shard, has_table(partition, 'proxy_s') FROM ots_cluster.shards() ORDER BY shard;
SELECT ots.delete_table('proxy_s');
SELECT shard, has_table(partition, 'proxy_s') FROM ots_cluster.shards() ORDER BY shard;
SELECT try($$SELECT ots.delete_table('proxy_s')$$);
SELECT ots.delete_table('proxy_r');
SELECT * FROM ots.list_table() WHERE table_name LIKE 'proxy%';
SELECT ots.describe_table('proxy_t') -> 'primary_key';
-- an index: on every shard; its rows live on their base row's shard, so a
-- get_row on it asks every shard
SELECT ots.add_defined_column('proxy_t', 'c string');
SELECT ots.create_index('proxy_t', 'proxy_ti', '{c,id}', include_base_data => false);
SELECT shard, has_table(partition, 'proxy_ti') FROM ots_cluster.shards() ORDER BY shard;
SELECT count(ots.put_row('proxy_t', jsonb_build_object('id', 'x' || i, 'n', i), jsonb_build_object('c', 'v' || i)))
  FROM generate_series(1, 6) i;
SELECT (ots.get_row('proxy_ti', jsonb_build_object('c', 'v' || i, 'id', 'x' || i, 'n', i))).primary_key
  FROM generate_series(1, 6) i ORDER BY i;
SELECT ots.get_row('proxy_ti', '{"c": "none", "id": "x1", "n": 1}');
SELECT i, position(convert_to('v' || i, 'UTF8') in w."row") > 0 AS found
  FROM generate_series(1, 6) i,
	   LATERAL ots.wire_get_row('proxy_ti', jsonb_build_object('c', 'v' || i, 'id', 'x' || i, 'n', i)) w
 ORDER BY i;
SELECT length("row"), read_cu FROM ots.wire_get_row('proxy_ti', '{"c": "none", "id": "x1", "n": 1}');
SELECT try($$SELECT ots.create_index('proxy_t', 'proxy_ti', '{c,id}')$$);
SELECT ots.describe_table('proxy_t') -> 'index_metas' -> 0 ->> 'name';
SELECT ots.delete_index('proxy_t', 'proxy_ti');
SELECT shard, has_table(partition, 'proxy_ti') FROM ots_cluster.shards() ORDER BY shard;
SELECT ots.delete_defined_column('proxy_t', '{c}');
-- a stream's original columns reach every shard, by create_table and update_table
SELECT ots.create_table('proxy_st', 'id string', stream_enabled => true, stream_original_columns => '{b, a}');
SELECT ots.update_table('proxy_st', stream_original_columns => '{c}');
SELECT shard, ots_cluster.describe_table_on(partition, 'public.proxy_st') -> 'stream_details' -> 'original_columns'
  FROM ots_cluster.shards() ORDER BY shard;
SELECT ots.delete_table('proxy_st');
-- split points through the proxy: merged from every shard in stored key order, they
-- cut the table into ranges that together hold every row once, none empty (also on a
-- hash-prefixed table, whose order is the prefix's first)
SELECT ots.create_table('proxy_sp', 'id string', partitions => 4),
       ots.create_table('proxy_sph', 'id string', partitions => 4, hash_prefix_length => 2);
SELECT count(ots.put_row(t, jsonb_build_object('id', 'k' || lpad(i::text, 4, '0')), jsonb_build_object('v', repeat('x', 200))))
  FROM generate_series(1, 400) i, unnest('{proxy_sp, proxy_sph}'::text[]) t;
SELECT t, count(*) - 1 BETWEEN 2 AND 8 AS some_points, sum(c) AS rows_in_ranges, min(c) > 0 AS none_empty
  FROM unnest('{proxy_sp, proxy_sph}'::text[]) t,
       LATERAL (SELECT (SELECT count(*) FROM ots.get_range_rows(t, lo, coalesce(hi, '{"id": {"$inf": "max"}}'))) AS c
                  FROM (SELECT lo, lead(lo) OVER (ORDER BY n) AS hi
                          FROM (SELECT 0::bigint AS n, '{"id": {"$inf": "min"}}'::jsonb AS lo
                                UNION ALL
                                SELECT n, e FROM jsonb_array_elements(ots.compute_split_points(t, 20000)) WITH ORDINALITY x(e, n)) b) r) ranges
 GROUP BY t ORDER BY t;
SELECT try($$SELECT ots.compute_split_points('proxy_sp', 0)$$) AS bad_size;
SELECT ots.delete_table('proxy_sp'), ots.delete_table('proxy_sph');
SELECT try($$SELECT * FROM ots.list_stream()$$);
SELECT ots.hash_prefix('abc', 4), ots.hash_prefix(42::bigint, 8), ots.hash_prefix('\x0001'::bytea, 2);

-- 7. a write to a moving partition is refused; reads go on
SELECT ots_cluster.set_moving(ARRAY[ots_cluster.partition_of(ots_cluster.key_hash('"k1"', 'STRING'))], true);
SELECT try($$SELECT ots.put_row('proxy_t', '{"id": "k1", "n": 1}')$$) ~ '^OT013: The partition is not available. \(partition \d+ is moving to another shard; retry\)$' AS refused;
SELECT (ots.get_row('proxy_t', '{"id": "k1", "n": 1}')).attributes;
SELECT is_ok, error_code FROM ots.batch_write_row('[{"table_name": "proxy_t", "rows": [{"type": "PUT", "primary_key": {"id": "k1", "n": 1}}]}]');
SELECT ots_cluster.set_moving(ARRAY(SELECT generate_series(0, ots_cluster.partition_count() - 1)), false);
SELECT (ots.put_row('proxy_t', '{"id": "k1", "n": 1}')).consumed;

-- 8. an unprivileged role can neither read nor write the map, nor move
-- the catalog's generation, nor make the proxy's views follow a table
CREATE ROLE proxy_nobody;
SET ROLE proxy_nobody;
SELECT try($$SELECT * FROM ots_cluster.partitions$$);
SELECT try($$SELECT ots_cluster.set_moving('{0}', true)$$);
SELECT try($$SELECT ots_cluster.create_cluster('{x}')$$);
SELECT try($$SELECT pg_catalog.nextval('ots_cluster.catalog_generation')$$);
SELECT try($$SELECT pg_catalog.setval('ots_cluster.catalog_generation', 1)$$);
SELECT try($$SELECT ots_cluster.sync_view('public', 'proxy_t', NULL)$$);
SELECT try($$SELECT ots_cluster.view_follow('public', 'proxy_t', 10)$$);
SELECT try($$SELECT ots_cluster.catalog_reset()$$);
RESET ROLE;
DROP ROLE proxy_nobody;
SELECT ots.delete_table('proxy_t');
SELECT try($$SELECT ots.get_row('proxy_t', '{"id": "k1", "n": 1}')$$);

-- 9. a shard that cannot be reached (the first: partitions 0, 2, ...): its keys fail with OT013, a batch's
-- other rows are done, DDL changes nothing
SELECT ots.create_table('proxy_d', 'id string');
CREATE TEMP TABLE saved_map AS SELECT * FROM ots_cluster.partitions;
SELECT count(ots_cluster.set_partition(p.partition,
			regexp_replace(p.connstr, 'dbname=\S+', 'dbname=proxy_core_no_such_db')))
  FROM ots_cluster.partitions p WHERE p.partition % 2 = 0;
SELECT i, ots_cluster.partition_of(ots_cluster.key_hash(to_jsonb('d' || i), 'STRING')) % 2 = 0 AS on_down_shard,
	   regexp_replace(try(format('SELECT ots.put_row(%L, %L)', 'proxy_d', jsonb_build_object('id', 'd' || i))),
					  ' \(.*', '') AS put
  FROM generate_series(1, 4) i ORDER BY i;
SELECT b.index, b.is_ok, b.error_code, b.error_message,
	   ots_cluster.partition_of(ots_cluster.key_hash(to_jsonb('d' || b.index + 1), 'STRING')) % 2 = 0 AS on_down_shard
  FROM ots.batch_write_row((SELECT jsonb_build_array(jsonb_build_object('table_name', 'proxy_d', 'rows',
			jsonb_agg(jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('id', 'd' || i)) ORDER BY i)))
							FROM generate_series(1, 4) i)) b ORDER BY b.index;
SELECT regexp_replace(try($$SELECT ots.create_table('proxy_e', 'id string')$$), ' \(.*', '') AS create_table;
SELECT count(ots_cluster.set_partition(s.partition, s.connstr)) FROM saved_map s WHERE s.partition % 2 = 0;
SELECT * FROM ots.list_table() WHERE table_name LIKE 'proxy%';
SELECT ots.delete_table('proxy_d');
-- 10. an unqualified name is the table of the first schema of search_path that has one,
-- whatever the catalog holds of a later schema (a cached public.proxy_n must not hide
-- proxy_s.proxy_n from a caller whose search_path puts proxy_s first)
SELECT connstr AS shard1 FROM ots_cluster.shards() WHERE shard = 1 \gset
SELECT connstr AS shard2 FROM ots_cluster.shards() WHERE shard = 2 \gset
\setenv PC_SHARD1 :shard1
\setenv PC_SHARD2 :shard2
\! for c in "$PC_SHARD1" "$PC_SHARD2"; do "$OTS_PSQL" -X -q -c 'CREATE SCHEMA proxy_s' "$c"; done
SELECT ots.create_table('public.proxy_n', 'k string'), ots.create_table('proxy_s.proxy_n', 'k integer');
SELECT ots_cluster.catalog_reset();
SELECT (ots.put_row('proxy_n', '{"k": "a"}')).consumed AS public_string_key;
SET search_path = proxy_s, public;
SELECT (ots.put_row('proxy_n', '{"k": 1}')).consumed AS proxy_s_integer_key;
SELECT (ots.get_row('proxy_n', '{"k": 1}')).primary_key AS read_back;
SELECT CASE WHEN schema_name = current_user THEN '$user' ELSE schema_name END AS schema_name, table_name,
	   (entry).pk_types
  FROM ots_cluster.cache_entries() WHERE table_name = 'proxy_n' ORDER BY 1;
RESET search_path;
-- known absent: "$user" (the first of the default search_path) is not asked again
SELECT (ots.get_row('proxy_n', '{"k": "a"}')).primary_key AS public_again;
SELECT ots.delete_table('public.proxy_n'), ots.delete_table('proxy_s.proxy_n');
\! for c in "$PC_SHARD1" "$PC_SHARD2"; do "$OTS_PSQL" -X -q -c 'DROP SCHEMA proxy_s' "$c"; done

DROP FUNCTION try(text), on_shard(integer, text), create_directly(integer, text, text), proxy_rows(text),
	has_table(integer, text);
