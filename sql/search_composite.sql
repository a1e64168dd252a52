-- group_by_composite (src/search/search_composite.c): random sources over
-- sparse rows, every page followed by its next_token, against a model of
-- the groups computed with plain SQL over the table's view; a sum per group;
-- limits and messages.
SET client_min_messages = warning;
SET extra_float_digits = 1;
CREATE EXTENSION IF NOT EXISTS ots;

\i test/search_err.sql
CREATE FUNCTION pg_temp.pick(a anyarray) RETURNS anyelement LANGUAGE sql VOLATILE AS
	$$ SELECT a[1 + floor(random() * cardinality(a))::int] $$;

SELECT ots.create_table('gc', 'id integer');
SELECT ots.create_search_index('gc', 'ix', '{"field_schemas": [
	{"field_name": "city", "field_type": "KEYWORD"},
	{"field_name": "tags", "field_type": "KEYWORD", "is_array": true},
	{"field_name": "n", "field_type": "LONG"},
	{"field_name": "d", "field_type": "DOUBLE"},
	{"field_name": "ok", "field_type": "BOOLEAN"},
	{"field_name": "at", "field_type": "DATE", "date_formats": ["epoch_millis"]},
	{"field_name": "body", "field_type": "TEXT"}]}');
-- 200 rows, each field missing from about a quarter of them
SELECT setseed(0.35);
SELECT count(ots.put_row('gc', jsonb_build_object('id', g), jsonb_strip_nulls(jsonb_build_object(
	'city', CASE WHEN random() < 0.75 THEN pg_temp.pick(ARRAY['hz', 'sh', 'bj', 'Hk', 'gz', 'a b']) END,
	'tags', CASE WHEN random() < 0.75 THEN (SELECT jsonb_agg(pg_temp.pick(ARRAY['x', 'y', 'z', 'w']))::text
											  FROM generate_series(0, floor(random() * 3)::int)) END,
	'n', CASE WHEN random() < 0.75 THEN floor(random() * 41)::int - 20 END,
	'd', CASE WHEN random() < 0.75 THEN pg_temp.pick(ARRAY[0.1, 0.2, 0.30000000000000004, -1.5, 12345.678, 7.25]) END,
	'ok', CASE WHEN random() < 0.75 THEN random() < 0.5 END,
	'at', CASE WHEN random() < 0.75 THEN 1700000000000 + floor(random() * 40 * 86400000)::bigint END,
	'body', 'words'))))
  FROM generate_series(1, 200) g;

-- the view's values as the model reads them
CREATE TEMP VIEW m AS
SELECT id, attributes ->> 'city' COLLATE "C" AS city,
	   ARRAY(SELECT e COLLATE "C" FROM jsonb_array_elements_text((attributes ->> 'tags')::jsonb) e) AS tags,
	   (attributes ->> 'n')::bigint AS n, (attributes ->> 'd')::float8 AS d, (attributes ->> 'ok')::boolean AS ok,
	   (attributes ->> 'at')::bigint AS at
  FROM gc;
SELECT count(*) AS rows, count(city) AS city, count(*) FILTER (WHERE cardinality(tags) > 0) AS tags,
	   count(n) AS n, count(d) AS d, count(ok) AS ok, count(at) AS at FROM m;

-- a source of the model: a row's keys (typed, for the order) and each key as shown
CREATE FUNCTION pg_temp.model_source(s jsonb, OUT keys text, OUT shown text) LANGUAGE plpgsql AS $$
DECLARE
	f text := s ->> 'field_name';
	tz bigint := coalesce((split_part(s ->> 'time_zone', ':', 1)::int * 60
						   + sign(split_part(s ->> 'time_zone', ':', 1)::int) * split_part(s ->> 'time_zone', ':', 2)::int) * 60000, 0);
BEGIN
	IF s ->> 'type' = 'field' AND f = 'tags' THEN
		keys := 'SELECT DISTINCT v FROM unnest(m.tags) v';
		shown := '%s';
	ELSIF s ->> 'type' = 'field' THEN
		keys := format('SELECT coalesce(m.%I, %L)', f, s ->> 'missing');
		shown := '%s';
	ELSIF s ->> 'type' = 'histogram' THEN
		keys := format('SELECT floor((coalesce(m.%I, %L) - %s)::numeric / %s)::bigint', f, s ->> 'missing',
					   coalesce(s ->> 'offset', '0'), s ->> 'interval');
		shown := format('(%%s * %s + %s)', s ->> 'interval', coalesce(s ->> 'offset', '0'));
	ELSE
		keys := format('SELECT floor((m.%I + %s)::numeric / %s)::bigint', f, tz,
					   (s #>> '{interval,value}')::bigint * 86400000);
		shown := format('(%%s * %s - %s)', (s #>> '{interval,value}')::bigint * 86400000, tz);
	END IF;
END $$;

-- the model's groups of sources over the rows where, in order: keys as text, rows, sum of n
CREATE FUNCTION pg_temp.model(sources jsonb, cond text) RETURNS TABLE (keys text[], row_count bigint, s numeric)
LANGUAGE plpgsql AS $$
DECLARE
	src jsonb;
	i int := 0;
	laterals text := '';
	cols text := '';
	shown text := '';
	ord text := '';
	k record;
BEGIN
	FOR src IN SELECT * FROM jsonb_array_elements(sources) LOOP
		i := i + 1;
		k := pg_temp.model_source(src);
		-- a row without a value is in the null key's group
		laterals := laterals || format(' CROSS JOIN LATERAL (SELECT x.v FROM (%s) x(v) WHERE x.v IS NOT NULL'
									   ' UNION ALL SELECT NULL WHERE NOT EXISTS (SELECT 1 FROM (%s) y(v) WHERE y.v IS NOT NULL)) k%s(v)',
									   k.keys, k.keys, i);
		cols := cols || format('%sk%s.v', CASE WHEN i > 1 THEN ', ' END, i);
		shown := shown || format('%s(%s)::text', CASE WHEN i > 1 THEN ', ' END, format(k.shown, 'k' || i || '.v'));
		ord := ord || format('%sk%s.v %s', CASE WHEN i > 1 THEN ', ' END, i,
							 CASE WHEN src #>> '{sort,sorters,0,group_key_sort,order}' = 'DESC' THEN 'DESC NULLS LAST' ELSE 'ASC NULLS FIRST' END);
	END LOOP;
	RETURN QUERY EXECUTE format('SELECT ARRAY[%s], count(*), coalesce(sum(m.n), 0)::numeric FROM m%s WHERE %s GROUP BY %s ORDER BY %s',
								shown, laterals, cond, cols, ord);
END $$;

-- every page of a composite group-by of sources, pages of size: keys, rows, sum of n
CREATE FUNCTION pg_temp.pages(sources jsonb, query jsonb, size int, OUT keys text[], OUT row_count bigint, OUT s numeric)
RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
	g jsonb;
	token text;
	pages int := 0;
BEGIN
	LOOP
		g := ots.search('gc', 'ix', jsonb_build_object('query', query, 'limit', 0, 'group_bys', jsonb_build_array(
			jsonb_strip_nulls(jsonb_build_object('name', 'c', 'type', 'composite', 'size', size, 'sources', sources,
												 'next_token', token,
												 'sub_aggs', jsonb_build_array(jsonb_build_object('name', 's', 'type', 'sum', 'field_name', 'n')))))))
			#> '{group_bys,0}';
		pages := pages + 1;
		IF jsonb_array_length(g -> 'items') > size OR (g ? 'next_token' AND jsonb_array_length(g -> 'items') <> size)
		   OR g -> 'source_group_by_names' <> (SELECT jsonb_agg(e -> 'name') FROM jsonb_array_elements(sources) e) THEN
			RAISE EXCEPTION 'a page of % groups for size %: %', jsonb_array_length(g -> 'items'), size, g;
		END IF;
		RETURN QUERY SELECT ARRAY(SELECT jsonb_array_elements_text(i -> 'keys')), (i ->> 'row_count')::bigint,
							(i #>> '{sub_aggs,0,value}')::numeric
					   FROM jsonb_array_elements(g -> 'items') i;
		-- which keys are null says the same as the keys
		IF EXISTS (SELECT 1 FROM jsonb_array_elements(g -> 'items') i, generate_series(0, jsonb_array_length(sources) - 1) j
					WHERE (i -> 'keys' -> j = 'null') <> (i -> 'is_null_keys' ->> j)::boolean) THEN
			RAISE EXCEPTION 'is_null_keys differ from keys: %', g;
		END IF;
		token := g ->> 'next_token';
		EXIT WHEN token IS NULL OR pages > 500;
	END LOOP;
END $$;

-- 80 random requests: 1 to 3 sources, each ascending or descending, pages of 1 to 9
CREATE TEMP TABLE trials (n int, sources jsonb, query jsonb, cond text, size int);
SELECT setseed(0.8);
INSERT INTO trials
SELECT t, (SELECT jsonb_agg(src || jsonb_build_object('name', 's' || j)
							|| CASE WHEN random() < 0.4 THEN '{"sort": {"sorters": [{"group_key_sort": {"order": "DESC"}}]}}'::jsonb
									ELSE '{}'::jsonb END)
			 FROM (SELECT j, pg_temp.pick(ARRAY[
						'{"type": "field", "field_name": "city"}', '{"type": "field", "field_name": "tags"}',
						'{"type": "field", "field_name": "n"}', '{"type": "field", "field_name": "d"}',
						'{"type": "field", "field_name": "ok"}', '{"type": "field", "field_name": "at"}',
						'{"type": "field", "field_name": "city", "missing": "zz"}',
						'{"type": "histogram", "field_name": "n", "interval": 5}',
						'{"type": "histogram", "field_name": "n", "interval": 4, "offset": 1, "missing": 0}',
						'{"type": "date_histogram", "field_name": "at", "interval": {"value": 5, "unit": "DAY"}, "time_zone": "+05:30"}',
						'{"type": "date_histogram", "field_name": "at", "interval": {"value": 1, "unit": "DAY"}}']::jsonb[]) AS src
					 FROM generate_series(1, 1 + floor(random() * 3)::int + t * 0) j) x),
	   q.query, q.cond, 1 + floor(random() * 9)::int
  FROM generate_series(1, 80) t,
	   LATERAL (SELECT (ARRAY['{"match_all_query": {}}', '{"range_query": {"field_name": "n", "range_from": 0, "include_lower": true}}',
							  '{"term_query": {"field_name": "ok", "term": true}}']::jsonb[])[1 + (t % 3)] AS query,
					   (ARRAY['true', 'm.n >= 0', 'm.ok'])[1 + (t % 3)] AS cond) q;
-- trials whose pages differ from the model (none), and how many groups all had
SELECT n, sources, size FROM trials
 WHERE ARRAY(SELECT p FROM pg_temp.pages(sources, query, size) p)
	   IS DISTINCT FROM ARRAY(SELECT p FROM pg_temp.model(sources, cond) p);
SELECT sum((SELECT count(*) FROM pg_temp.model(sources, cond))) AS groups,
	   count(*) FILTER (WHERE sources::text LIKE '%DESC%') AS descending,
	   count(*) FILTER (WHERE jsonb_array_length(sources) = 3) AS three_sources
  FROM trials;

-- one request shown whole: keys as text (a double's shortest, a boolean's word), nulls
SELECT i -> 'keys' AS keys, i -> 'is_null_keys' AS null_keys, i -> 'row_count' AS rows
  FROM jsonb_array_elements(ots.search('gc', 'ix', '{"query": {"range_query": {"field_name": "n", "range_from": 18}}, "limit": 0,
		"group_bys": [{"name": "c", "type": "composite", "size": 30, "sources": [
			{"name": "d", "type": "field", "field_name": "d"}, {"name": "ok", "type": "field", "field_name": "ok"}]}]}')
		#> '{group_bys,0,items}') i;

-- a page goes on after the last keys, whatever is written since
CREATE TEMP TABLE page1 AS
SELECT ots.search('gc', 'ix', '{"query": {"match_all_query": {}}, "limit": 0, "group_bys": [{"name": "c", "type": "composite", "size": 2,
		"sources": [{"name": "city", "type": "field", "field_name": "city"}]}]}') #> '{group_bys,0}' AS g;
SELECT g -> 'items' AS first_page FROM page1;
SELECT ots.put_row('gc', '{"id": 1000}', '{"city": "0first"}'), ots.put_row('gc', '{"id": 1001}', '{"city": "zzz"}');
SELECT jsonb_path_query_array(ots.search('gc', 'ix', jsonb_build_object('query', '{"match_all_query": {}}'::jsonb, 'limit', 0,
		'group_bys', jsonb_build_array(jsonb_build_object('name', 'c', 'type', 'composite', 'size', 100, 'next_token', g ->> 'next_token',
			'sources', '[{"name": "city", "type": "field", "field_name": "city"}]'::jsonb)))) #> '{group_bys,0,items}', '$[*].keys[0]') AS rest
  FROM page1;
SELECT ots.delete_row('gc', '{"id": 1000}'), ots.delete_row('gc', '{"id": 1001}');

-- suggested_size: any number, at most 2000 groups served; size wins over it
SELECT jsonb_array_length(ots.search('gc', 'ix', '{"query": {"match_all_query": {}}, "limit": 0, "group_bys": [{"name": "c", "type": "composite",
		"suggested_size": 3000, "sources": [{"name": "n", "type": "field", "field_name": "n"}]}]}') #> '{group_bys,0,items}') AS suggested_3000,
	   jsonb_array_length(ots.search('gc', 'ix', '{"query": {"match_all_query": {}}, "limit": 0, "group_bys": [{"name": "c", "type": "composite",
		"suggested_size": -1, "size": 3, "sources": [{"name": "n", "type": "field", "field_name": "n"}]}]}') #> '{group_bys,0,items}') AS size_3,
	   jsonb_array_length(ots.search('gc', 'ix', '{"query": {"match_all_query": {}}, "limit": 0, "group_bys": [{"name": "c", "type": "composite",
		"sources": [{"name": "n", "type": "field", "field_name": "n"}]}]}') #> '{group_bys,0,items}') AS by_default,
	   (SELECT count(DISTINCT n) + 1 FROM m) AS groups_of_n;

-- limits and messages
CREATE FUNCTION pg_temp.comp(c text) RETURNS text LANGUAGE sql AS $$
	SELECT pg_temp.err(format($q$SELECT ots.search('gc', 'ix', '{"query": {"match_all_query": {}}, "limit": 0, "group_bys": [%s]}')$q$, c))
$$;
SELECT pg_temp.comp('{"name": "c", "type": "composite", "size": 0, "sources": [{"name": "a", "type": "field", "field_name": "n"}]}');
SELECT pg_temp.comp('{"name": "c", "type": "composite", "size": 2001, "sources": [{"name": "a", "type": "field", "field_name": "n"}]}');
SELECT pg_temp.comp('{"name": "c", "type": "composite"}');
SELECT pg_temp.comp('{"name": "c", "type": "composite", "sources": []}');
SELECT pg_temp.comp(format('{"name": "c", "type": "composite", "sources": %s}',
						   (SELECT jsonb_agg(jsonb_build_object('name', 's' || i, 'type', 'field', 'field_name', 'n')) FROM generate_series(1, 33) i)));
SELECT pg_temp.comp('{"name": "c", "type": "composite", "sources": [{"name": "a", "type": "field", "field_name": "n"}, {"name": "a", "type": "field", "field_name": "city"}]}');
SELECT pg_temp.comp('{"name": "c", "type": "composite", "sources": [{"name": "a", "type": "range", "field_name": "n"}]}');
SELECT pg_temp.comp('{"name": "c", "type": "composite", "sources": [{"name": "a", "type": "field", "field_name": "n", "size": 5}]}');
SELECT pg_temp.comp('{"name": "c", "type": "composite", "sources": [{"name": "a", "type": "histogram", "field_name": "n", "interval": 5, "field_range": {"min": 0, "max": 9}}]}');
SELECT pg_temp.comp('{"name": "c", "type": "composite", "sources": [{"name": "a", "type": "field", "field_name": "n", "sub_aggs": []}]}');
SELECT pg_temp.comp('{"name": "c", "type": "composite", "sources": [{"name": "a", "type": "field", "field_name": "n", "sort": {"sorters": [{"row_count_sort": {}}]}}]}');
SELECT pg_temp.comp('{"name": "c", "type": "composite", "sources": [{"name": "a", "type": "field", "field_name": "body"}]}');
SELECT pg_temp.comp('{"name": "c", "type": "composite", "sources": [{"name": "a", "type": "histogram", "field_name": "city", "interval": 5}]}');
SELECT pg_temp.comp('{"name": "c", "type": "composite", "next_token": "bm90IGEgdG9rZW4=", "sources": [{"name": "a", "type": "field", "field_name": "n"}]}');
SELECT pg_temp.comp('{"name": "c", "type": "composite", "next_token": "%%%", "sources": [{"name": "a", "type": "field", "field_name": "n"}]}');
-- a token of other sources, and one whose key is not of the source's type
SELECT pg_temp.comp(format('{"name": "c", "type": "composite", "next_token": "%s", "sources": [{"name": "a", "type": "field", "field_name": "n"}]}',
						   g ->> 'next_token')) FROM page1;
WITH t AS (SELECT convert_from(decode(ots.search('gc', 'ix', '{"query": {"match_all_query": {}}, "limit": 0, "group_bys": [{"name": "c",
				"type": "composite", "size": 1, "sources": [{"name": "a", "type": "field", "field_name": "n"}]}]}') #>> '{group_bys,0,next_token}',
				'base64'), 'UTF8')::jsonb AS token)
SELECT token -> 'after' AS real_after,
	   pg_temp.comp(format('{"name": "c", "type": "composite", "next_token": "%s", "sources": [{"name": "a", "type": "field", "field_name": "n"}]}',
						   translate(encode(convert_to(jsonb_set(token, '{after,0}', '"hz"')::text, 'UTF8'), 'base64'), E'\n', ''))) AS forged
  FROM t;
SELECT pg_temp.comp('{"name": "f", "type": "field", "field_name": "city", "sub_group_bys": [{"name": "c", "type": "composite", "sources": [{"name": "a", "type": "field", "field_name": "n"}]}]}');
SELECT pg_temp.comp('{"name": "c", "type": "composite", "min_doc_count": 2, "sources": [{"name": "a", "type": "field", "field_name": "n"}]}');
SELECT pg_temp.comp('{"name": "c", "type": "composite", "sources": [{"name": "a", "type": "field", "field_name": "n", "sort": {"sorters": [{"sub_agg_sort": {"sub_agg_name": "x"}}]}}]}');
SELECT pg_temp.comp(format('{"name": "c", "type": "composite", "sources": %s}',
						   (SELECT jsonb_agg(jsonb_build_object('name', 's' || i, 'type', 'field', 'field_name', 'n')) FROM generate_series(1, 26) i)));
-- a row of 4 tags in 7 sources of them would make 4^7 groups: refused; in 6, 4^6 = 4096 are made (a page: 2000)
SELECT count(*) AS put FROM ots.put_row('gc', '{"id": 1002}', '{"tags": "[\"p\", \"q\", \"r\", \"s\"]"}');
SELECT pg_temp.comp(format('{"name": "c", "type": "composite", "sources": %s}',
						   (SELECT jsonb_agg(jsonb_build_object('name', 's' || i, 'type', 'field', 'field_name', 'tags')) FROM generate_series(1, 7) i)));
SELECT jsonb_array_length(ots.search('gc', 'ix', format('{"query": {"term_query": {"field_name": "tags", "term": "p"}}, "limit": 0,
		"group_bys": [{"name": "c", "type": "composite", "size": 2000, "sources": %s}]}',
		(SELECT jsonb_agg(jsonb_build_object('name', 's' || i, 'type', 'field', 'field_name', 'tags')) FROM generate_series(1, 6) i))::jsonb)
		#> '{group_bys,0,items}') AS groups_of_six;
SELECT count(*) AS deleted FROM ots.delete_row('gc', '{"id": 1002}');

-- a LONG's histogram keys in exact integers, past a double's 2^53
SELECT count(*) AS put FROM ots.put_row('gc', '{"id": 1003}', '{"n": 9007199254740993}');
SELECT ots.search('gc', 'ix', '{"query": {"term_query": {"field_name": "n", "term": 9007199254740993}}, "limit": 0, "group_bys": [
		{"name": "c", "type": "composite", "sources": [{"name": "h", "type": "histogram", "field_name": "n", "interval": 1}]},
		{"name": "h", "type": "histogram", "field_name": "n", "interval": 1}]}') #> '{group_bys}' AS keys;
SELECT count(*) AS deleted FROM ots.delete_row('gc', '{"id": 1003}');

-- a field named e (the name the aggregations' SQL gives a value of an array): every kind still reads it
SELECT ots.create_table('ge', 'id integer');
SELECT ots.create_search_index('ge', 'ix', '{"field_schemas": [{"field_name": "a", "field_type": "LONG"},
	{"field_name": "e", "field_type": "LONG", "is_array": true}, {"field_name": "at", "field_type": "DATE", "date_formats": ["epoch_millis"]}]}');
SELECT count(*) FROM generate_series(1, 6) g, ots.put_row('ge', jsonb_build_object('id', g),
	jsonb_build_object('a', g, 'e', format('[%s, %s]', g, g * 10), 'at', g * 86400000));
SELECT jsonb_path_query_array(r, '$.aggs[*].value') AS aggs,
	   jsonb_path_query_array(r, '$.group_bys[*].items.size()') AS groups
  FROM ots.search('ge', 'ix', '{"query": {"match_all_query": {}}, "limit": 0,
		"aggs": [{"name": "avg", "type": "avg", "field_name": "e"}, {"name": "max", "type": "max", "field_name": "e"}],
		"group_bys": [{"name": "h", "type": "histogram", "field_name": "a", "interval": 2},
			{"name": "he", "type": "histogram", "field_name": "e", "interval": 20},
			{"name": "d", "type": "date_histogram", "field_name": "at", "interval": {"value": 2, "unit": "DAY"}},
			{"name": "f", "type": "field", "field_name": "e", "size": 20},
			{"name": "c", "type": "composite", "sources": [{"name": "e", "type": "field", "field_name": "e"},
				{"name": "a", "type": "histogram", "field_name": "a", "interval": 3}]}]}') r;
SELECT ots.delete_search_index('ge', 'ix'), ots.delete_table('ge');

-- the table goes: other tests list the database's tables
DROP VIEW m;
SELECT ots.delete_search_index('gc', 'ix'), ots.delete_table('gc');
