-- ots_proxy ranges over 2 shards: get_range merged in stored key order
-- (String bytewise, Integer signed, Binary bytewise, hash prefix first),
-- Tablestore's paging (limit, 4 MB, next_start_primary_key resuming), a
-- range within one partition key sent to one shard, a key briefly on two
-- shards returned once, get_range_rows streamed, errors as on one node.
-- (test/cluster/range_compare.sh compares random ranges with a single node.)
\set SHOW_CONTEXT never
SET client_min_messages = warning;

-- keys(rows): a page's primary keys, their values joined
CREATE FUNCTION pg_temp.keys(rows jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(string_agg((SELECT string_agg(v.value #>> '{}', ':' ORDER BY v.key) FROM jsonb_each(r -> 'primary_key') v),
							   ' ' ORDER BY n), '')
	  FROM jsonb_array_elements(rows) WITH ORDINALITY AS x(r, n) $$;
-- pages(table, start, end, direction, limit): get_range paged to the end,
-- each page's keys and its next_start_primary_key
CREATE FUNCTION pg_temp.pages(t text, s jsonb, e jsonb, direction text DEFAULT 'FORWARD', lim integer DEFAULT NULL)
	RETURNS TABLE (page integer, n integer, keys text, next jsonb) LANGUAGE plpgsql AS $$
DECLARE
	r ots.range_result;
BEGIN
	page := 0;
	LOOP
		r := ots.get_range(t, s, e, direction, lim);
		page := page + 1;
		n := jsonb_array_length(r.rows);
		keys := pg_temp.keys(r.rows);
		next := r.next_start_primary_key;
		RETURN NEXT;
		EXIT WHEN r.next_start_primary_key IS NULL OR page >= 20;
		s := r.next_start_primary_key;
	END LOOP;
END $$;
-- try(sql): the error a statement raises, as SQLSTATE: message (detail)
CREATE FUNCTION pg_temp.try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE m text; d text; s text;
BEGIN
	EXECUTE sql;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL;
	RETURN s || ': ' || m || coalesce(' (' || nullif(d, '') || ')', '');
END $$;
-- put_on(p, table, key, attributes): ots.put_row on the shard of partition p only
CREATE FUNCTION pg_temp.put_on(p integer, t text, pk jsonb, attrs jsonb) RETURNS text LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT (ots.put_row($2, $3, $4)).consumed::text;
$$;
-- rows_on(p, table): how many rows of a pr_ table the shard of partition p holds
CREATE FUNCTION pg_temp.rows_on(p integer, t text) RETURNS bigint LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT count(*) FROM ots.get_range_rows($2, '{"a": {"$inf": "min"}, "b": {"$inf": "min"}}',
											'{"a": {"$inf": "max"}, "b": {"$inf": "max"}}');
$$;

\set smin '{"a": {"$inf": "min"}, "b": {"$inf": "min"}}'
\set smax '{"a": {"$inf": "max"}, "b": {"$inf": "max"}}'

-- 1. String then Integer keys, over both shards: bytewise and signed order
SELECT ots.create_table('pr_s', 'a string, b integer');
SELECT count(*) FROM (SELECT ots.put_row('pr_s', jsonb_build_object('a', a, 'b', b), jsonb_build_object('v', b))
						FROM unnest(ARRAY['b', 'B', 'a', 'ab', 'a b', 'é', 'z', '~']) a,
							 unnest(ARRAY[-9223372036854775808, -1, 0, 2, 10, 9223372036854775807]) b) w;
-- the rows are on both shards
SELECT count(*) FILTER (WHERE pg_temp.rows_on(s.partition, 'public.pr_s') > 0) AS shards_with_rows
  FROM ots_cluster.shards() s;
SELECT * FROM pg_temp.pages('pr_s', :'smin', :'smax');
SELECT * FROM pg_temp.pages('pr_s', :'smax', :'smin', 'BACKWARD');
-- paged by limit: every page full, each next the first key not returned
SELECT * FROM pg_temp.pages('pr_s', :'smin', :'smax', 'FORWARD', 7);
SELECT * FROM pg_temp.pages('pr_s', :'smax', :'smin', 'BACKWARD', 11);
-- a bound inside the range, columns after it $inf
SELECT * FROM pg_temp.pages('pr_s', '{"a": "ab", "b": 0}', '{"a": "z", "b": {"$inf": "min"}}', 'FORWARD', 9);
SELECT * FROM pg_temp.pages('pr_s', '{"a": "z", "b": {"$inf": "min"}}', '{"a": "ab", "b": 0}', 'BACKWARD', 9);
-- the page's other columns: attributes, capacity units summed over the shards (each at least 1)
SELECT r.rows -> 0, r.next_start_primary_key, (r.consumed ->> 'read')::int >= 2 AS summed, r.consumed ->> 'write' AS write
  FROM ots.get_range('pr_s', :'smin', :'smax', "limit" => 1) r;
-- columns_to_get and a filter go to the shards as they are
SELECT pg_temp.keys(r.rows), r.rows -> 0 -> 'attributes', r.next_start_primary_key
  FROM ots.get_range('pr_s', :'smin', :'smax', "limit" => 3, columns_to_get => '{v}',
					 filter => '{"column": "v", "comparator": ">", "value": 2, "pass_if_missing": false}') r;

-- 2. a range within one partition key: one shard, the page as it sends it
SELECT pg_temp.keys(r.rows), r.next_start_primary_key, r.consumed
  FROM ots.get_range('pr_s', '{"a": "ab", "b": {"$inf": "min"}}', '{"a": "ab", "b": {"$inf": "max"}}', "limit" => 4) r;
SELECT ots_cluster.range_route(ots_cluster.table_of('pr_s', current_setting('search_path')), '{"a": "ab", "b": 1}', '{"a": "ab", "b": 5}')
	   = ots_cluster.key_hash('"ab"', 'STRING') AS one_key_routed,
	   ots_cluster.range_route(ots_cluster.table_of('pr_s', current_setting('search_path')), '{"a": "ab", "b": 1}', '{"a": "b", "b": 5}') IS NULL AS two_keys_merged,
	   ots_cluster.range_route(ots_cluster.table_of('pr_s', current_setting('search_path')), '{"a": {"$inf": "min"}, "b": 1}', '{"a": {"$inf": "min"}, "b": 5}') IS NULL AS inf_merged;

-- 3. Binary keys, bytewise; Integer partition key, signed
SELECT ots.create_table('pr_b', 'a binary, b integer');
SELECT count(*) FROM (SELECT ots.put_row('pr_b', jsonb_build_object('a', jsonb_build_object('$binary', encode(a, 'base64')), 'b', b), '{}')
						FROM unnest(ARRAY['\x00'::bytea, '\x0000', '\x0001', '\x01', '\x7f', '\x80', '\xff', '\xff00']) a,
							 unnest(ARRAY[1, -1]) b) w;
SELECT * FROM pg_temp.pages('pr_b', :'smin', :'smax', 'FORWARD', 5);
SELECT ots.create_table('pr_i', 'a integer, b string');
SELECT count(*) FROM (SELECT ots.put_row('pr_i', jsonb_build_object('a', a, 'b', 'x'), '{}')
						FROM unnest(ARRAY[-9223372036854775808, -4096, -3, -1, 0, 1, 3, 4096, 9223372036854775807]) a) w;
SELECT * FROM pg_temp.pages('pr_i', :'smax', :'smin', 'BACKWARD');

-- 4. a hash-prefixed table: the stored order (prefix, key...), whatever the natural order
SELECT ots.create_table('pr_h', 'a string, b integer', hash_prefix_length => 2);
SELECT count(*) FROM (SELECT ots.put_row('pr_h', jsonb_build_object('a', a, 'b', b), '{}')
						FROM unnest(ARRAY['k1', 'k2', 'k3', 'k4', 'k5', 'k6']) a, unnest(ARRAY[1, 2]) b) w;
SELECT * FROM pg_temp.pages('pr_h', :'smin', :'smax', 'FORWARD', 5);
SELECT string_agg(a || ':' || ots.hash_prefix(a, 2), ' ' ORDER BY ots.hash_prefix(a, 2)) AS by_prefix
  FROM unnest(ARRAY['k1', 'k2', 'k3', 'k4', 'k5', 'k6']) a;
SELECT * FROM pg_temp.pages('pr_h', '{"a": "k4", "b": {"$inf": "max"}}', '{"a": "k4", "b": {"$inf": "min"}}', 'BACKWARD');

-- 5. 4 MB a page, counted as ots counts it: rows of 1.3 MB, three a page
SELECT ots.create_table('pr_big', 'a string, b integer');
SELECT count(*) FROM (SELECT ots.put_row('pr_big', jsonb_build_object('a', 'big' || i, 'b', i), jsonb_build_object('blob', repeat('x', 1300000)))
						FROM generate_series(1, 7) i) w;
SELECT * FROM pg_temp.pages('pr_big', :'smin', :'smax');

-- 6. a key on two shards (its partition being moved): returned once
SELECT pg_temp.put_on(o.partition, 'public.pr_s', '{"a": "ab", "b": 2}', '{"v": 2}') IS NOT NULL AS copied
  FROM ots_cluster.shards() o
 WHERE NOT ots_cluster.partition_of(ots_cluster.key_hash('"ab"', 'STRING')) = ANY (o.partitions);
SELECT sum(pg_temp.rows_on(s.partition, 'public.pr_s')) AS stored_rows FROM ots_cluster.shards() s;
SELECT * FROM pg_temp.pages('pr_s', '{"a": "a b", "b": {"$inf": "min"}}', '{"a": "b", "b": {"$inf": "min"}}', 'FORWARD', 6);
SELECT count(*) FROM ots.get_range_rows('pr_s', :'smin', :'smax');

-- 7. get_range_rows: every row in order, a limit, a LIMIT that stops reading
SELECT count(*), string_agg(primary_key ->> 'a' || ':' || (primary_key ->> 'b'), ' ') FILTER (WHERE primary_key ->> 'a' = 'B')
  FROM ots.get_range_rows('pr_s', :'smin', :'smax');
SELECT primary_key, attributes FROM ots.get_range_rows('pr_s', :'smax', :'smin', 'BACKWARD', "limit" => 4);
SELECT primary_key FROM ots.get_range_rows('pr_s', :'smin', :'smax') LIMIT 3;
SELECT (ots.get_range_rows('pr_i', '{"a": -3, "b": {"$inf": "min"}}', '{"a": 3, "b": {"$inf": "max"}}')).primary_key;
-- rows of 1.3 MB: each shard's pages end at 4 MB, the merge reads on in steps
SELECT string_agg(primary_key ->> 'a', ' '), sum(length(attributes ->> 'blob')) FROM ots.get_range_rows('pr_big', :'smin', :'smax');
SELECT string_agg(primary_key ->> 'a', ' '), sum(length(attributes ->> 'blob')) FROM ots.get_range_rows('pr_big', :'smax', :'smin', 'BACKWARD', "limit" => 5);
-- the whole table through get_range_rows is get_range paged to the end
WITH RECURSIVE p(n, r) AS (
	SELECT 1, ots.get_range('pr_s', :'smin', :'smax', "limit" => 5)
	UNION ALL
	SELECT p.n + 1, ots.get_range('pr_s', (p.r).next_start_primary_key, :'smax', "limit" => 5)
	  FROM p WHERE (p.r).next_start_primary_key IS NOT NULL)
SELECT (SELECT jsonb_agg(e ORDER BY p.n, x.i) FROM p, jsonb_array_elements((p.r).rows) WITH ORDINALITY x(e, i))
	   = (SELECT jsonb_agg(jsonb_build_object('primary_key', primary_key, 'attributes', attributes))
			FROM ots.get_range_rows('pr_s', :'smin', :'smax')) AS same_rows,
	   (SELECT count(*) FROM p) AS pages;

-- 8. get_range_rows streams in the memory of one page per shard: 50,000
-- rows (about 10 MB of jsonb) under a temp_file_limit of 1 MB, where a
-- tuplestore of the rows (the recursive query it was) ran out of temp space
CREATE FUNCTION pg_temp.fill_on(p integer, t text, a text, n integer) RETURNS bigint LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT count(ots.put_row($2, jsonb_build_object('a', $3, 'b', i), jsonb_build_object('v', repeat('x', 100))))
	  FROM generate_series(1, $4) i;
$$;
SELECT ots.create_table('pr_flat', 'a string, b integer');
-- one partition key on each shard, 25,000 rows each
SELECT s.shard, pg_temp.fill_on(s.partition, 'public.pr_flat', k.a, 25000)
  FROM ots_cluster.shards() s,
	   LATERAL (SELECT 'f' || i AS a FROM generate_series(1, 1000) i
				 WHERE ots_cluster.partition_of(ots_cluster.key_hash(to_jsonb('f' || i), 'STRING')) = ANY (s.partitions)
				 ORDER BY i LIMIT 1) k
 ORDER BY s.shard;
SET temp_file_limit = '1MB';
SELECT count(*), sum((primary_key ->> 'b')::bigint), sum(length(attributes ->> 'v'))
  FROM ots.get_range_rows('pr_flat', :'smin', :'smax');
SELECT count(*), min(primary_key ->> 'a'), max(primary_key ->> 'a')
  FROM ots.get_range_rows('pr_flat', :'smax', :'smin', 'BACKWARD');
RESET temp_file_limit;

-- 9. errors: the single node's
SELECT pg_temp.try($$SELECT ots.get_range('pr_s', '{"a": "b", "b": 1}', '{"a": "a", "b": 1}')$$);
SELECT pg_temp.try($$SELECT ots.get_range('pr_s', '{"a": "a", "b": 1}', '{"a": "b", "b": 1}', 'BACKWARD')$$);
SELECT pg_temp.try($$SELECT ots.get_range('pr_s', '{"a": "a", "b": 1}', '{"a": "b", "b": 1}', 'SIDEWAYS')$$);
SELECT pg_temp.try($$SELECT ots.get_range('pr_s', '{"a": "a", "b": 1}', '{"a": "b", "b": 1}', "limit" => 0)$$);
SELECT pg_temp.try($$SELECT ots.get_range('pr_s', '{"a": "a"}', '{"a": "b", "b": 1}')$$);
SELECT pg_temp.try($$SELECT ots.get_range('pr_s', '{"a": 1, "b": 1}', '{"a": 1, "b": 2}')$$);
SELECT pg_temp.try($$SELECT ots.get_range('pr_nothing', '{"a": "a"}', '{"a": "b"}')$$);
SELECT pg_temp.try($$SELECT count(*) FROM ots.get_range_rows('pr_s', '{"a": "a", "b": 1}', '{"a": "b", "b": 1}', "limit" => -1)$$);
SELECT pg_temp.try($$SELECT count(*) FROM ots.get_range_rows('pr_nothing', '{"a": "a"}', '{"a": "b"}')$$);

SELECT ots.delete_table(t) FROM unnest(ARRAY['pr_s', 'pr_b', 'pr_i', 'pr_h', 'pr_big', 'pr_flat']) t;
