-- test/cluster/search_compare.sql: searches through the proxy against a
-- single node (test/cluster/search_compare.sh runs it in the proxy database
-- with -v ref=CONNSTR, a database running ots, -v seed=S and -v searches=N).
--
-- The same rows are written through the proxy and to the reference node,
-- both tables given the same search index (through the proxy's DDL); then N
-- random searches (queries of each kind, function scores, sorts by fields, arrays' modes,
-- distance, key, offsets and limits, total counts, collapse, columns_to_get,
-- aggregations and group-bys nested, over String+Integer and Binary keys,
-- sparse fields) must give the reference's result exactly, as jsonb: rows in
-- order, total count, next token, every aggregation's value; each is paged
-- on by its next_token (each side by its own) for up to 3 more pages, equal
-- again; and invalid searches fail with the reference's error.  DOUBLE
-- values are multiples of 0.25, so that sums are exact whatever the order
-- they are added in.  Prints the failures, then one line "failures: n".
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

SELECT pg_catalog.format($f$
CREATE FUNCTION pg_temp.ref_create(tbl text, pk text, index_schema jsonb) RETURNS text
	LANGUAGE plproxy AS $$
	CONNECT %1$L;
	SELECT ots.create_table($1, $2)::text || ots.create_search_index($1, 'ix', $3)::text;
	$$;
CREATE FUNCTION pg_temp.ref_drop(tbl text) RETURNS SETOF text
	LANGUAGE plproxy AS $$
	CONNECT %1$L;
	SELECT pg_catalog.count(ots.delete_search_index(s.table_name::text, s.index_name))::text
	  FROM ots.list_search_index() s WHERE s.schema_name = 'public' AND s.table_name = $1
	UNION ALL
	SELECT ots.delete_table(t.table_name::text)::text
	  FROM ots.list_table() t WHERE t.schema_name = 'public' AND t.table_name = $1;
	$$;
CREATE FUNCTION pg_temp.ref_put_all(table_name text, rows jsonb) RETURNS bigint
	LANGUAGE plproxy AS $$
	CONNECT %1$L;
	SELECT pg_catalog.count(ots.put_row($1, r -> 'pk', r -> 'attrs')) FROM pg_catalog.jsonb_array_elements($2) AS r;
	$$;
CREATE FUNCTION pg_temp.ref_search(table_name text, search_query jsonb, columns_to_get jsonb) RETURNS jsonb
	LANGUAGE plproxy AS $$
	CONNECT %1$L;
	SELECT ots.search($1, 'ix', $2, $3);
	$$;
$f$, :'ref') \gexec

CREATE TEMP TABLE tdef (tbl text PRIMARY KEY, pk text, nrows integer);
INSERT INTO tdef VALUES ('sc_s', 'p string, n integer', 500), ('sc_b', 'k binary', 250);

SELECT pg_catalog.setseed(:seed) \g /dev/null
SET sc.searches = :searches;

CREATE FUNCTION pg_temp.pick(a jsonb) RETURNS jsonb LANGUAGE sql VOLATILE
	RETURN a -> (pg_catalog.floor(pg_catalog.random() * pg_catalog.jsonb_array_length(a)))::int;
CREATE FUNCTION pg_temp.maybe(p float8, v jsonb) RETURNS jsonb LANGUAGE sql VOLATILE
	RETURN CASE WHEN pg_catalog.random() < p THEN v END;

-- the rows: each field present with probability 0.7, from small domains so that values repeat
CREATE TEMP TABLE data (tbl text, pk jsonb, attrs jsonb, PRIMARY KEY (tbl, pk));
INSERT INTO data
SELECT d.tbl,
	   CASE d.tbl WHEN 'sc_s' THEN pg_catalog.jsonb_build_object('p', pg_temp.pick('["a", "b", "B", "é", "zz", "a b"]'), 'n', g % 97 - 40)
				  ELSE pg_catalog.jsonb_build_object('k', pg_catalog.jsonb_build_object('$binary', pg_catalog.encode(pg_catalog.decode(
						pg_catalog.lpad(pg_catalog.to_hex(g * 7919 % 65536), 2 + 2 * (g % 3), '0'), 'hex'), 'base64'))) END,
	   pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
		'kw', pg_temp.maybe(0.7, pg_temp.pick('["red", "green", "blue", "Blue", "grün", "", "red "]')),
		'tags', pg_temp.maybe(0.7, pg_catalog.to_jsonb(pg_catalog.format('["%s", "%s"]', pg_temp.pick('["x", "y", "z"]') #>> '{}', pg_temp.pick('["y", "w", "z"]') #>> '{}'))),
		'n', pg_temp.maybe(0.7, pg_catalog.to_jsonb((pg_catalog.random() * 40 - 20)::int)),
		'd', pg_temp.maybe(0.7, pg_catalog.to_jsonb((pg_catalog.random() * 80 - 40)::int * 0.25)),
		'b', pg_temp.maybe(0.7, pg_catalog.to_jsonb(pg_catalog.random() < 0.5)),
		't', pg_temp.maybe(0.7, pg_catalog.to_jsonb(pg_catalog.concat_ws(' ', pg_temp.pick('["the quick", "a lazy", "quick brown"]') #>> '{}',
																		  pg_temp.pick('["fox", "dog", "fox jumps"]') #>> '{}'))),
		'dt', pg_temp.maybe(0.7, pg_catalog.to_jsonb(1600000000000 + (pg_catalog.random() * 86400000 * 60)::bigint)),
		'geo', pg_temp.maybe(0.7, pg_catalog.to_jsonb(pg_catalog.format('%s,%s', 30 + (pg_catalog.random() * 100)::int * 0.01,
																			  120 + (pg_catalog.random() * 100)::int * 0.01)))))
  FROM tdef d, pg_catalog.generate_series(1, d.nrows) AS g
ON CONFLICT DO NOTHING;

\o /dev/null
SELECT pg_temp.ref_drop(tbl) FROM tdef ORDER BY tbl;
SELECT ots.delete_search_index(s.table_name::text, s.index_name)
  FROM ots.list_search_index() s JOIN tdef ON s.schema_name = 'public' AND s.table_name = tdef.tbl;
SELECT ots.delete_table(t.table_name::text)
  FROM ots.list_table() t JOIN tdef ON t.schema_name = 'public' AND t.table_name = tdef.tbl;
\o
CREATE TEMP TABLE index_schema AS SELECT '{"field_schemas": [
	{"field_name": "kw", "field_type": "KEYWORD"},
	{"field_name": "tags", "field_type": "KEYWORD", "is_array": true},
	{"field_name": "n", "field_type": "LONG"},
	{"field_name": "d", "field_type": "DOUBLE"},
	{"field_name": "b", "field_type": "BOOLEAN"},
	{"field_name": "t", "field_type": "TEXT", "analyzer": "single_word"},
	{"field_name": "dt", "field_type": "DATE", "date_formats": ["epoch_millis"]},
	{"field_name": "geo", "field_type": "GEO_POINT"}]}'::jsonb AS s;
SELECT pg_temp.ref_create(tbl, pk, (SELECT s FROM index_schema)) FROM tdef ORDER BY tbl \g /dev/null
-- half the rows before the index (the shards' backfill), half after (their write points)
SELECT ots.create_table(tbl, pk) FROM tdef ORDER BY tbl \g /dev/null
SELECT pg_catalog.count(ots.put_row(tbl, pk, attrs)) FROM data WHERE pg_catalog.md5(pk::text) < '8' \g /dev/null
SELECT ots.create_search_index(tbl, 'ix', (SELECT s FROM index_schema)) FROM tdef ORDER BY tbl \g /dev/null
SELECT pg_catalog.count(ots.put_row(tbl, pk, attrs)) FROM data WHERE pg_catalog.md5(pk::text) >= '8' \g /dev/null
SELECT pg_temp.ref_put_all(tbl, pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('pk', pk, 'attrs', attrs)))
  FROM data GROUP BY tbl ORDER BY tbl \g /dev/null

CREATE TEMP TABLE failures (n serial, what text);

-- a random query (depth: how deep a bool may nest)
CREATE FUNCTION pg_temp.rand_query(depth integer) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	k integer := pg_catalog.floor(pg_catalog.random() * CASE WHEN depth > 0 THEN 12 ELSE 11 END)::int;
BEGIN
	RETURN CASE k
		WHEN 0 THEN '{"match_all_query": {}}'::jsonb
		WHEN 1 THEN pg_catalog.jsonb_build_object('term_query', pg_catalog.jsonb_build_object('field_name', 'kw', 'term', pg_temp.pick('["red", "blue", "Blue", "", "grün"]')))
		WHEN 2 THEN pg_catalog.jsonb_build_object('terms_query', pg_catalog.jsonb_build_object('field_name', 'tags', 'terms', '["x", "w"]'::jsonb))
		WHEN 3 THEN pg_catalog.jsonb_build_object('range_query', pg_catalog.jsonb_build_object('field_name', 'n',
					'range_from', (pg_catalog.random() * 30 - 20)::int, 'include_lower', pg_catalog.random() < 0.5))
		WHEN 4 THEN pg_catalog.jsonb_build_object('range_query', pg_catalog.jsonb_build_object('field_name', 'd',
					'range_to', (pg_catalog.random() * 20 - 10)::int * 0.25, 'include_upper', pg_catalog.random() < 0.5))
		WHEN 5 THEN pg_catalog.jsonb_build_object('exists_query', pg_catalog.jsonb_build_object('field_name', pg_temp.pick('["kw", "d", "geo", "t", "tags"]')))
		WHEN 6 THEN pg_catalog.jsonb_build_object('prefix_query', pg_catalog.jsonb_build_object('field_name', 'kw', 'prefix', pg_temp.pick('["r", "b", "gr"]')))
		WHEN 7 THEN pg_catalog.jsonb_build_object('match_query', pg_catalog.jsonb_build_object('field_name', 't', 'text', pg_temp.pick('["quick", "fox dog", "lazy"]')))
		WHEN 8 THEN pg_catalog.jsonb_build_object('match_phrase_query', pg_catalog.jsonb_build_object('field_name', 't', 'text', pg_temp.pick('["quick brown", "fox jumps"]')))
		WHEN 9 THEN pg_catalog.jsonb_build_object('geo_distance_query', pg_catalog.jsonb_build_object('field_name', 'geo', 'center_point', '30.5,120.5', 'distance', 40000))
		WHEN 10 THEN pg_catalog.jsonb_build_object('term_query', pg_catalog.jsonb_build_object('field_name', 'b', 'term', pg_catalog.random() < 0.5))
		ELSE pg_catalog.jsonb_build_object('bool_query', pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
					'must_queries', pg_temp.maybe(0.6, pg_catalog.jsonb_build_array(pg_temp.rand_query(depth - 1))),
					'must_not_queries', pg_temp.maybe(0.3, pg_catalog.jsonb_build_array(pg_temp.rand_query(depth - 1))),
					'should_queries', pg_temp.maybe(0.5, pg_catalog.jsonb_build_array(pg_temp.rand_query(depth - 1), pg_temp.rand_query(depth - 1))))))
	END;
END $$;

CREATE FUNCTION pg_temp.rand_sorters() RETURNS jsonb LANGUAGE sql VOLATILE AS $$
	SELECT coalesce(pg_catalog.jsonb_agg(pg_temp.pick(pg_catalog.jsonb_build_array(
			pg_catalog.jsonb_build_object('field_sort', pg_catalog.jsonb_build_object('field_name', pg_temp.pick('["kw", "n", "d", "b", "dt"]'),
						'order', pg_temp.pick('["ASC", "DESC"]'))),
			pg_catalog.jsonb_build_object('field_sort', pg_catalog.jsonb_build_object('field_name', 'n', 'order', pg_temp.pick('["ASC", "DESC"]'),
						'missing_value', 3)),
			pg_catalog.jsonb_build_object('field_sort', pg_catalog.jsonb_build_object('field_name', 'tags', 'order', pg_temp.pick('["ASC", "DESC"]'),
						'mode', pg_temp.pick('["MIN", "MAX"]'))),
			pg_catalog.jsonb_build_object('geo_distance_sort', pg_catalog.jsonb_build_object('field_name', 'geo', 'points', '["30.2,120.9"]'::jsonb,
						'order', pg_temp.pick('["ASC", "DESC"]'))),
			pg_catalog.jsonb_build_object('primary_key_sort', pg_catalog.jsonb_build_object('order', pg_temp.pick('["ASC", "DESC"]')))))), '[]')
	  FROM pg_catalog.generate_series(1, (pg_catalog.random() * 2.5)::int)
$$;

CREATE FUNCTION pg_temp.rand_aggs(depth integer) RETURNS jsonb LANGUAGE sql VOLATILE AS $$
	SELECT pg_catalog.jsonb_agg(a.v || pg_catalog.jsonb_build_object('name', 'a' || a.n))
	  FROM (SELECT pg_temp.pick(pg_catalog.jsonb_build_array(
				'{"type": "count", "field_name": "kw"}'::jsonb, '{"type": "sum", "field_name": "n"}'::jsonb,
				'{"type": "sum", "field_name": "d"}'::jsonb, '{"type": "avg", "field_name": "n"}'::jsonb,
				'{"type": "avg", "field_name": "d", "missing": 1.5}'::jsonb, '{"type": "min", "field_name": "d"}'::jsonb,
				'{"type": "max", "field_name": "dt"}'::jsonb, '{"type": "min", "field_name": "n"}'::jsonb,
				'{"type": "distinct_count", "field_name": "kw"}'::jsonb, '{"type": "distinct_count", "field_name": "tags"}'::jsonb,
				'{"type": "percentiles", "field_name": "n", "percentiles": [50, 0, 100, 10, 99.5]}'::jsonb,
				'{"type": "percentiles", "field_name": "d", "percentiles": [25, 75]}'::jsonb,
				'{"type": "top_rows", "limit": 3, "sort": {"sorters": [{"field_sort": {"field_name": "d", "order": "DESC"}}]}}'::jsonb,
				'{"type": "top_rows"}'::jsonb)) AS v, n
			  FROM pg_catalog.generate_series(1, 1 + (pg_catalog.random() * 2)::int) n) a
$$;

CREATE FUNCTION pg_temp.rand_group_bys(depth integer) RETURNS jsonb LANGUAGE sql VOLATILE AS $$
	SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_strip_nulls(g.v || pg_catalog.jsonb_build_object('name', 'g' || g.n,
			'sub_aggs', pg_temp.maybe(0.4, pg_temp.rand_aggs(depth)),
			'sub_group_bys', CASE WHEN depth > 1 THEN pg_temp.maybe(0.3, pg_temp.rand_group_bys(depth - 1)) END)))
	  FROM (SELECT pg_temp.pick(pg_catalog.jsonb_build_array(
				'{"type": "field", "field_name": "kw"}'::jsonb,
				'{"type": "field", "field_name": "tags", "size": 2, "sort": {"sorters": [{"group_key_sort": {"order": "DESC"}}]}}'::jsonb,
				'{"type": "field", "field_name": "n", "size": 5, "min_doc_count": 3}'::jsonb,
				'{"type": "field", "field_name": "b", "sort": {"sorters": [{"row_count_sort": {"order": "ASC"}}]}}'::jsonb,
				'{"type": "field", "field_name": "d", "size": 4, "sort": {"sorters": [{"row_count_sort": {"order": "DESC"}}, {"group_key_sort": {"order": "DESC"}}]}}'::jsonb,
				'{"type": "field", "field_name": "kw", "size": 3, "sort": {"sorters": [{"sub_agg_sort": {"sub_agg_name": "a1", "order": "DESC"}}]}}'::jsonb,
				'{"type": "range", "field_name": "n", "ranges": [{"to": 0}, {"from": 0, "to": 10}, {"from": 5}]}'::jsonb,
				'{"type": "filter", "filters": [{"term_query": {"field_name": "b", "term": true}}, {"exists_query": {"field_name": "t"}}]}'::jsonb,
				'{"type": "histogram", "field_name": "d", "interval": 2.5, "min_doc_count": 2}'::jsonb,
				'{"type": "histogram", "field_name": "n", "interval": 7, "offset": 3, "sort": {"sorters": [{"row_count_sort": {"order": "DESC"}}]}}'::jsonb,
				'{"type": "date_histogram", "field_name": "dt", "interval": {"value": 1, "unit": "WEEK"}, "time_zone": "+08:00"}'::jsonb,
				'{"type": "geo_distance", "field_name": "geo", "origin": {"lat": 30.5, "lon": 120.5}, "ranges": [{"to": 30000}, {"from": 30000}]}'::jsonb)) AS v, n
			  FROM pg_catalog.generate_series(1, 1 + (pg_catalog.random() * 1.5)::int) n) g
$$;

-- both sides' result, or their error's SQLSTATE and message
CREATE FUNCTION pg_temp.try_proxy(tbl text, q jsonb, cols jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
	RETURN ots.search(tbl, 'ix', q, cols);
EXCEPTION WHEN OTHERS THEN
	RETURN pg_catalog.jsonb_build_object('error', SQLSTATE || ' ' || SQLERRM);
END $$;
CREATE FUNCTION pg_temp.try_ref(tbl text, q jsonb, cols jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	m text;
BEGIN
	RETURN pg_temp.ref_search(tbl, q, cols);
EXCEPTION WHEN OTHERS THEN
	-- PL/Proxy's decoration of the reference's error taken off
	m := pg_catalog.regexp_replace(SQLERRM, '^[^ ]+\(\d+\): \[[^]]*\] REMOTE [A-Z]+: ', '');
	RETURN pg_catalog.jsonb_build_object('error', SQLSTATE || ' ' || m);
END $$;

SET client_min_messages = notice;
DO $$
DECLARE
	nsearches integer := current_setting('sc.searches')::integer;
	tbl text;
	q jsonb;
	cols jsonb;
	ref jsonb;
	prx jsonb;
	ref_page jsonb;
	prx_page jsonb;
	pages integer;
	stats_rows bigint := 0;
	stats_paged integer := 0;
	stats_aggs integer := 0;
	stats_err integer := 0;
	stats_collapse integer := 0;
	stats_scored integer := 0;
BEGIN
	FOR i IN 1 .. nsearches LOOP
		tbl := CASE WHEN pg_catalog.random() < 0.7 THEN 'sc_s' ELSE 'sc_b' END;
		q := pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
			'query', pg_temp.rand_query(2),
			'sort', pg_temp.maybe(0.8, pg_catalog.jsonb_build_object('sorters', pg_temp.rand_sorters())),
			'offset', pg_temp.maybe(0.4, pg_catalog.to_jsonb((pg_catalog.random() * 40)::int)),
			'limit', pg_temp.maybe(0.8, pg_catalog.to_jsonb((pg_catalog.random() * 25)::int)),
			'get_total_count', pg_temp.maybe(0.5, 'true'),
			'collapse', pg_temp.maybe(0.15, pg_catalog.jsonb_build_object('field_name', pg_temp.pick('["kw", "b", "n"]'))),
			'aggs', pg_temp.maybe(0.3, pg_temp.rand_aggs(1)),
			'group_bys', pg_temp.maybe(0.3, pg_temp.rand_group_bys(2))));
		-- now and then scored by functions (on LONG and DOUBLE fields: no BM25, whose statistics are each shard's)
		IF pg_catalog.random() < 0.15 THEN
			q := q || pg_catalog.jsonb_build_object('query', pg_catalog.jsonb_build_object('functions_score_query', pg_catalog.jsonb_strip_nulls(
				pg_catalog.jsonb_build_object(
					'query', pg_temp.pick('[{"match_all_query": {}}, {"range_query": {"field_name": "n", "range_from": -5}}]'),
					'functions', pg_catalog.jsonb_build_array(
						pg_catalog.jsonb_build_object('decay', pg_catalog.jsonb_build_object('field_name', 'n', 'math_function', pg_temp.pick('["GAUSS", "EXP", "LINEAR"]'),
							'param', pg_catalog.jsonb_build_object('origin', (pg_catalog.random() * 20 - 10)::int, 'scale', 4))),
						pg_catalog.jsonb_build_object('field_value_factor', '{"field_name": "d", "missing": 1}'::jsonb, 'weight', 2)),
					'score_mode', pg_temp.pick('["FSM_SUM", "FSM_MAX", "FSM_MULTIPLY", "FSM_AVG"]'),
					'combine_mode', pg_temp.pick('["FCM_MULTIPLY", "FCM_SUM", "FCM_REPLACE"]'),
					'min_score', pg_temp.maybe(0.3, '0.5')))));
			stats_scored := stats_scored + 1;
		END IF;
		-- now and then an invalid one: the same error
		IF pg_catalog.random() < 0.05 THEN
			q := q || pg_temp.pick('[{"limit": 101}, {"offset": 99995, "limit": 10}, {"token": "bm90IGEgdG9rZW4="},
									 {"sort": {"sorters": [{"field_sort": {"field_name": "nope"}}]}},
									 {"aggs": [{"name": "x", "type": "avg", "field_name": "kw"}]},
									 {"group_bys": [{"name": "h", "type": "histogram", "field_name": "d", "interval": 0.0001}]}]');
		END IF;
		cols := pg_temp.pick(pg_catalog.jsonb_build_array('null'::jsonb, '{"return_type": "RETURN_ALL"}'::jsonb,
							 '{"return_type": "RETURN_SPECIFIED", "column_names": ["kw", "n", "nope"]}'::jsonb,
							 '{"return_type": "RETURN_ALL_FROM_INDEX"}'::jsonb, '{"return_type": "RETURN_NONE"}'::jsonb));
		IF cols = 'null' THEN
			cols := NULL;
		END IF;
		ref := pg_temp.try_ref(tbl, q, cols);
		prx := pg_temp.try_proxy(tbl, q, cols);
		IF ref ? 'error' THEN
			stats_err := stats_err + 1;
		END IF;
		IF q ? 'aggs' OR q ? 'group_bys' THEN
			stats_aggs := stats_aggs + 1;
		END IF;
		IF q ? 'collapse' THEN
			stats_collapse := stats_collapse + 1;
		END IF;
		-- a collapsed page's token is the proxy's own: compared apart
		IF (ref - 'next_token') IS DISTINCT FROM (prx - 'next_token')
		   OR (NOT q ? 'collapse' AND ref -> 'next_token' IS DISTINCT FROM prx -> 'next_token')
		   OR (pg_catalog.jsonb_typeof(ref -> 'next_token') = 'string') IS DISTINCT FROM (pg_catalog.jsonb_typeof(prx -> 'next_token') = 'string') THEN
			INSERT INTO failures (what) VALUES (pg_catalog.format('%s %s %s:%s  reference %s%s  proxy %s', tbl, q, cols, E'\n',
												pg_catalog.left(ref::text, 1500), E'\n', pg_catalog.left(prx::text, 1500)));
			CONTINUE;
		END IF;
		stats_rows := stats_rows + coalesce(pg_catalog.jsonb_array_length(ref -> 'rows'), 0);
		-- paged on by each side's token
		pages := 0;
		ref_page := ref;
		prx_page := prx;
		WHILE pages < 3 AND pg_catalog.jsonb_typeof(ref_page -> 'next_token') = 'string' LOOP
			pages := pages + 1;
			-- now and then the offset kept: a node skips it after the token too
			IF pg_catalog.random() < 0.7 THEN
				q := q - 'offset';
			END IF;
			ref_page := pg_temp.try_ref(tbl, q || pg_catalog.jsonb_build_object('token', ref_page -> 'next_token'), cols);
			prx_page := pg_temp.try_proxy(tbl, q || pg_catalog.jsonb_build_object('token', prx_page -> 'next_token'), cols);
			IF (ref_page - 'next_token') IS DISTINCT FROM (prx_page - 'next_token')
			   OR (pg_catalog.jsonb_typeof(ref_page -> 'next_token') = 'string') IS DISTINCT FROM (pg_catalog.jsonb_typeof(prx_page -> 'next_token') = 'string') THEN
				INSERT INTO failures (what) VALUES (pg_catalog.format('%s %s %s, page %s:%s  reference %s%s  proxy %s', tbl, q, cols, pages + 1,
													E'\n', pg_catalog.left(ref_page::text, 1500), E'\n', pg_catalog.left(prx_page::text, 1500)));
				EXIT;
			END IF;
			stats_paged := stats_paged + 1;
			stats_rows := stats_rows + coalesce(pg_catalog.jsonb_array_length(ref_page -> 'rows'), 0);
		END LOOP;
	END LOOP;
	RAISE NOTICE '% searches (% with aggregations, % collapsed, % scored by functions, % refused alike), % more pages by token, % rows compared',
		nsearches, stats_aggs, stats_collapse, stats_scored, stats_err, stats_paged, stats_rows;
END
$$;

SELECT what AS failure FROM failures ORDER BY n LIMIT 10;
SELECT 'failures: ' || pg_catalog.count(*) FROM failures;
