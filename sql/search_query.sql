-- ots.search (src/search/search_query.c, search_exec.c): each query type,
-- sort and paging by token on a small table, then random queries on sparse
-- data against a model: the same rows queried with plain SQL over the
-- table's view, in the same order, page by page.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;

\i test/search_err.sql

SELECT ots.create_table('sq', 'id string', max_versions => 1);
SELECT ots.create_search_index('sq', 'ix', '{"field_schemas": [
	{"field_name": "name", "field_type": "TEXT"},
	{"field_name": "city", "field_type": "KEYWORD"},
	{"field_name": "stars", "field_type": "LONG"},
	{"field_name": "price", "field_type": "DOUBLE"},
	{"field_name": "open", "field_type": "BOOLEAN"},
	{"field_name": "tags", "field_type": "KEYWORD", "is_array": true},
	{"field_name": "at", "field_type": "DATE", "date_formats": ["epoch_millis"]},
	{"field_name": "loc", "field_type": "GEO_POINT"}]}');
SELECT count(ots.put_row('sq', jsonb_build_object('id', format('k%s', g)), jsonb_build_object(
	'name', (ARRAY['Tea House', 'noodle bar', 'tea and noodle', 'House of Noodles'])[1 + g % 4],
	'city', (ARRAY['hz', 'sh', 'bj', 'hk'])[1 + g % 4],
	'stars', g % 5, 'price', round(g * 1.5, 1) + 0.25, 'open', g % 3 = 0,
	'tags', format('["t%s", "all"]', g % 3), 'at', 1700000000000 + g * 86400000::bigint,
	'loc', format('%s,%s', 30 + g * 0.01, 120 + g * 0.01))))
  FROM generate_series(1, 20) g;

-- the keys of a search, one line
CREATE FUNCTION pg_temp.keys(q jsonb) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce((SELECT string_agg(r -> 'primary_key' ->> 'id', ' ' ORDER BY n)
					   FROM jsonb_array_elements(s -> 'rows') WITH ORDINALITY AS x(r, n)), '')
		   || ' | total ' || (s ->> 'total_count')
		   || CASE WHEN s ->> 'next_token' IS NULL THEN '' ELSE ' | more' END
	  FROM ots.search('sq', 'ix', q) s
$$;

-- each query type
SELECT pg_temp.keys('{"query": {"match_all_query": {}}, "get_total_count": true, "limit": 5}');
SELECT pg_temp.keys('{"query": {"term_query": {"field_name": "city", "term": "hz"}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"term_query": {"field_name": "stars", "term": 3.0}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"term_query": {"field_name": "stars", "term": "3"}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"term_query": {"field_name": "tags", "term": "t1"}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"term_query": {"field_name": "name", "term": "tea"}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"term_query": {"field_name": "open", "term": true}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"terms_query": {"field_name": "city", "terms": ["sh", "bj"]}}, "get_total_count": true, "limit": 20}');
SELECT pg_temp.keys('{"query": {"range_query": {"field_name": "price", "range_from": 10, "range_to": 16.75, "include_lower": true, "include_upper": true}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"range_query": {"field_name": "at", "range_from": 1701000000000}}, "get_total_count": true, "limit": 3}');
SELECT pg_temp.keys('{"query": {"prefix_query": {"field_name": "city", "prefix": "h"}}, "get_total_count": true, "limit": 20}');
SELECT pg_temp.keys('{"query": {"wildcard_query": {"field_name": "city", "value": "?k"}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"exists_query": {"field_name": "tags"}}, "get_total_count": true, "limit": 1}');
SELECT pg_temp.keys('{"query": {"match_query": {"field_name": "name", "text": "tea noodle"}}, "get_total_count": true, "limit": 20}');
SELECT pg_temp.keys('{"query": {"match_query": {"field_name": "name", "text": "tea noodle", "operator": "AND"}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"match_phrase_query": {"field_name": "name", "text": "noodle bar"}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"match_phrase_query": {"field_name": "name", "text": "bar noodle"}}, "get_total_count": true}');
-- the storage keeps a TEXT field's positions only where they are not 0, 1,
-- 2, ...: a TEXT array's values stand 100 apart, so a phrase spans none
SELECT ots.create_table('sqa', 'id string', max_versions => 1);
SELECT ots.create_search_index('sqa', 'ix', '{"field_schemas": [
	{"field_name": "notes", "field_type": "TEXT", "is_array": true}]}');
SELECT ots.put_row('sqa', '{"id": "one"}', '{"notes": "[\"noodle bar\"]"}');
SELECT ots.put_row('sqa', '{"id": "two"}', '{"notes": "[\"noodle bar\", \"tea house\"]"}');
SELECT ots.put_row('sqa', '{"id": "three"}', '{"notes": "[\"tea\", \"house bar\"]"}');
SELECT id, notes, "notes$pos" FROM public."sqa$search$ix" ORDER BY id;
SELECT t, (SELECT string_agg(r -> 'primary_key' ->> 'id', ' ' ORDER BY r -> 'primary_key' ->> 'id')
			 FROM jsonb_array_elements(ots.search('sqa', 'ix', jsonb_build_object('query',
				jsonb_build_object('match_phrase_query', jsonb_build_object('field_name', 'notes', 'text', t)))) -> 'rows') r) AS found
  FROM unnest(ARRAY['noodle bar', 'tea house', 'house bar', 'bar tea', 'tea house bar']) t;
SELECT ots.delete_search_index('sqa', 'ix'), ots.delete_table('sqa');
SELECT pg_temp.keys('{"query": {"bool_query": {"should_queries": [{"term_query": {"field_name": "city", "term": "hz"}}, {"term_query": {"field_name": "stars", "term": 0}}], "minimum_should_match": 2}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"bool_query": {"filter_queries": [{"term_query": {"field_name": "city", "term": "sh"}}], "must_not_queries": [{"term_query": {"field_name": "open", "term": true}}]}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"const_score_query": {"filter": {"term_query": {"field_name": "city", "term": "bj"}}}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"geo_distance_query": {"field_name": "loc", "center_point": "30.05,120.05", "distance": 3000}}, "get_total_count": true}');
SELECT pg_temp.keys('{"query": {"geo_bounding_box_query": {"field_name": "loc", "top_left": "30.1,120.0", "bottom_right": "30.0,120.1"}}, "get_total_count": true, "limit": 20}');
SELECT pg_temp.keys('{"query": {"geo_polygon_query": {"field_name": "loc", "points": ["30.0,120.0", "30.2,120.0", "30.2,120.2"]}}, "get_total_count": true, "limit": 20}');

-- sorts, paging by token
SELECT pg_temp.keys('{"query": {"match_all_query": {}}, "sort": {"sorters": [{"field_sort": {"field_name": "stars", "order": "DESC"}}]}, "limit": 6}');
SELECT pg_temp.keys('{"query": {"match_all_query": {}}, "sort": {"sorters": [{"primary_key_sort": {"order": "DESC"}}]}, "limit": 4, "offset": 2}');
WITH RECURSIVE pages(n, body, token) AS (
	SELECT 1, s, s ->> 'next_token'
	  FROM ots.search('sq', 'ix', '{"query": {"match_all_query": {}}, "sort": {"sorters": [{"field_sort": {"field_name": "city"}}, {"field_sort": {"field_name": "price", "order": "DESC"}}]}, "limit": 7}') s
	UNION ALL
	SELECT n + 1, s, s ->> 'next_token'
	  FROM pages, ots.search('sq', 'ix', jsonb_build_object('query', '{"match_all_query": {}}'::jsonb, 'token', token, 'limit', 7)) s
	 WHERE token IS NOT NULL)
SELECT n, (SELECT string_agg(r -> 'primary_key' ->> 'id', ' ') FROM jsonb_array_elements(body -> 'rows') r) AS page
  FROM pages ORDER BY n;

-- columns
SELECT ots.search('sq', 'ix', '{"query": {"term_query": {"field_name": "stars", "term": 1}}, "limit": 2}',
				  '{"return_type": "RETURN_SPECIFIED", "column_names": ["city", "price", "nope"]}') -> 'rows';
SELECT ots.search('sq', 'ix', '{"query": {"term_query": {"field_name": "stars", "term": 1}}, "limit": 1}',
				  '{"return_type": "RETURN_ALL"}') -> 'rows';

-- rows of the table's view, in the search's order: joinable, usable in a procedure
SELECT id, (attributes ->> 'stars')::int AS stars, attributes ->> 'city' AS city
  FROM ots.search_rows(NULL::sq, 'ix', '{"query": {"range_query": {"field_name": "stars", "range_from": 3, "include_lower": true}},
										 "sort": {"sorters": [{"field_sort": {"field_name": "stars", "order": "DESC"}}]}, "limit": 5}');
SELECT s.id, c.n FROM ots.search_rows(NULL::sq, 'ix', '{"query": {"term_query": {"field_name": "city", "term": "hk"}}}') s
  JOIN (VALUES ('k3', 3), ('k7', 7), ('k99', 99)) c(id, n) ON c.id = s.id ORDER BY s.id;
DO $$
DECLARE
	r public.sq;
	ids text := '';
BEGIN
	FOR r IN SELECT * FROM ots.search_rows(NULL::public.sq, 'ix', '{"query": {"match_phrase_query": {"field_name": "name", "text": "noodle bar"}}}') LOOP
		ids := ids || ' ' || r.id;
	END LOOP;
	IF ids <> ' k1 k13 k17 k5 k9' THEN
		RAISE EXCEPTION 'a procedure got%', ids;
	END IF;
END $$;
SELECT pg_temp.err($$SELECT * FROM ots.search_rows(NULL::int, 'ix', '{"query": {"match_all_query": {}}}')$$);

-- refusals
SELECT pg_temp.err($$SELECT ots.search('sq', 'nope', '{"query": {"match_all_query": {}}}')$$);
SELECT pg_temp.err($$SELECT ots.search('sq', 'ix', '{"query": {"term_query": {"field_name": "nope", "term": 1}}}')$$);
SELECT pg_temp.err($$SELECT ots.search('sq', 'ix', '{"query": {"term_query": {"field_name": "stars", "term": 1.5}}}')$$);
SELECT pg_temp.err($$SELECT ots.search('sq', 'ix', '{"query": {"range_query": {"field_name": "name", "range_from": "a"}}}')$$);
SELECT pg_temp.err($$SELECT ots.search('sq', 'ix', '{"query": {"match_all_query": {}}, "limit": 101}')$$);
SELECT pg_temp.err($$SELECT ots.search('sq', 'ix', '{"query": {"match_all_query": {}}, "offset": 99990, "limit": 20}')$$);
SELECT pg_temp.err($$SELECT ots.search('sq', 'ix', '{"query": {"knn_vector_query": {"field_name": "v"}}}')$$);
SELECT pg_temp.err($$SELECT ots.search('sq', 'ix', '{"query": {"match_all_query": {}}, "token": "bm90IGEgdG9rZW4="}')$$);
SELECT pg_temp.err($$SELECT ots.search('sq', 'ix', '{"query": {"match_all_query": {}}, "aggs": {}}')$$);
SELECT pg_temp.err($$SELECT ots.search('sq', 'ix', '{"query": {"match_all_query": {}, "term_query": {}}}')$$);
SELECT pg_temp.err($$SELECT ots.search('sq', 'ix', '{"query": {"match_all_query": {}}, "sort": {"sorters": [{"field_sort": {"field_name": "name"}}]}}')$$);
SELECT pg_temp.err($$SELECT ots.search('sq', 'ix', '{"query": {"geo_distance_query": {"field_name": "loc", "center_point": "91,0", "distance": 1}}}')$$);
SELECT pg_temp.err($$SELECT ots.search('sq', 'ix', '{"query": {"match_all_query": {}}}', '{"return_type": "RETURN_SOME"}')$$);
CREATE ROLE search_stranger;
SET ROLE search_stranger;
SELECT pg_temp.err($$SELECT ots.search('public.sq', 'ix', '{"query": {"match_all_query": {}}}')$$);
RESET ROLE;
DROP ROLE search_stranger;

-- ---------------------------------------------------------------------
-- random queries on sparse data against the model
-- ---------------------------------------------------------------------
SELECT ots.create_table('sr', 'id string', max_versions => 1);
SELECT ots.create_search_index('sr', 'ix', '{"field_schemas": [
	{"field_name": "name", "field_type": "TEXT"},
	{"field_name": "city", "field_type": "KEYWORD"},
	{"field_name": "stars", "field_type": "LONG"},
	{"field_name": "price", "field_type": "DOUBLE"},
	{"field_name": "open", "field_type": "BOOLEAN"},
	{"field_name": "tags", "field_type": "KEYWORD", "is_array": true},
	{"field_name": "at", "field_type": "DATE", "date_formats": ["epoch_millis"]},
	{"field_name": "loc", "field_type": "GEO_POINT"}]}');
SELECT setseed(0.42);
-- each field absent half the time, of another type sometimes
CREATE FUNCTION pg_temp.pick(a anyarray) RETURNS anyelement LANGUAGE sql VOLATILE AS
	'SELECT a[1 + floor(random() * cardinality(a))::int]';
CREATE FUNCTION pg_temp.sparse_row() RETURNS jsonb LANGUAGE sql VOLATILE AS $$
	SELECT jsonb_strip_nulls(jsonb_build_object(
		'name', CASE WHEN random() < 0.6 THEN to_jsonb(pg_temp.pick(ARRAY['Tea House', 'noodle bar', 'tea and noodle', 'House of Noodles', 'bar tea bar', 'of'])) WHEN random() < 0.2 THEN '5' END,
		'city', CASE WHEN random() < 0.6 THEN to_jsonb(pg_temp.pick(ARRAY['hz', 'sh', 'bj', 'hk', 'h%k'])) WHEN random() < 0.2 THEN 'true' END,
		'stars', CASE WHEN random() < 0.6 THEN to_jsonb(floor(random() * 6)::int) WHEN random() < 0.3 THEN '2.5' END,
		'price', CASE WHEN random() < 0.6 THEN to_jsonb(floor(random() * 40)::int + 0.5) WHEN random() < 0.3 THEN '"cheap"' END,
		'open', CASE WHEN random() < 0.6 THEN to_jsonb(random() < 0.5) END,
		'tags', CASE WHEN random() < 0.6 THEN to_jsonb(pg_temp.pick(ARRAY['["t0"]', '["t1", "all"]', '["t2", "t0", "all"]', '[]', '[1]', 'x'])) END,
		'at', CASE WHEN random() < 0.6 THEN to_jsonb(1700000000000 + floor(random() * 10)::bigint * 86400000) END,
		'loc', CASE WHEN random() < 0.6 THEN to_jsonb(format('%s,%s', 30 + floor(random() * 10) * 0.01, 120 + floor(random() * 10) * 0.01)) WHEN random() < 0.2 THEN '"95,0"' END))
$$;
SELECT count(ots.put_row('sr', jsonb_build_object('id', format('r%s', g)), pg_temp.sparse_row())) FROM generate_series(1, 60) g;
SELECT count(ots.delete_row('sr', jsonb_build_object('id', format('r%s', g)))) FROM generate_series(1, 60, 9) g;
SELECT count(ots.put_row('sr', jsonb_build_object('id', format('r%s', g)), pg_temp.sparse_row())) FROM generate_series(55, 70) g;

-- the model: each field's value as the index keeps it, from the view's attributes
CREATE FUNCTION pg_temp.as_jsonb(s text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	RETURN s::jsonb;
EXCEPTION WHEN OTHERS THEN
	RETURN NULL;
END $$;
CREATE FUNCTION pg_temp.fv(a jsonb, f text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE f
		WHEN 'city' THEN CASE WHEN jsonb_typeof(a -> f) = 'string' THEN a ->> f END
		WHEN 'stars' THEN CASE WHEN jsonb_typeof(a -> f) = 'number' AND a ->> f ~ '^-?[0-9]+$' THEN a ->> f END
		WHEN 'price' THEN CASE WHEN jsonb_typeof(a -> f) = 'number' AND a ->> f !~ '^-?[0-9]+$' THEN a ->> f END
		WHEN 'open' THEN CASE WHEN jsonb_typeof(a -> f) = 'boolean' THEN a ->> f END
		WHEN 'at' THEN CASE WHEN jsonb_typeof(a -> f) = 'number' AND a ->> f ~ '^[0-9]+$' THEN a ->> f END
		WHEN 'loc' THEN CASE WHEN jsonb_typeof(a -> f) = 'string' AND abs(split_part(a ->> f, ',', 1)::float8) <= 90 THEN a ->> f END
		END
$$;
CREATE FUNCTION pg_temp.tags(a jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN jsonb_typeof(a -> 'tags') = 'string' AND jsonb_typeof(pg_temp.as_jsonb(a ->> 'tags')) = 'array'
				 AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(pg_temp.as_jsonb(a ->> 'tags')) e WHERE jsonb_typeof(e) <> 'string')
			THEN ARRAY(SELECT jsonb_array_elements_text(pg_temp.as_jsonb(a ->> 'tags'))) END
$$;
CREATE FUNCTION pg_temp.tokens(a jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN jsonb_typeof(a -> 'name') = 'string'
			THEN ARRAY(SELECT token FROM ots.search_analyze(a ->> 'name') ORDER BY position) END
$$;
-- the value a query compares, as text (a LONG's 3.0 is 3)
CREATE FUNCTION pg_temp.qv(f text, v jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN f IN ('stars', 'at') THEN (v #>> '{}')::numeric::bigint::text ELSE v #>> '{}' END
$$;
CREATE FUNCTION pg_temp.cmp(f text, x text, y text) RETURNS int LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN f IN ('stars', 'at', 'price') THEN sign(x::numeric - y::numeric)::int
				WHEN x COLLATE "C" < y COLLATE "C" THEN -1 WHEN x = y THEN 0 ELSE 1 END
$$;
-- does row a match query q?
CREATE FUNCTION pg_temp.m(q jsonb, a jsonb) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	kind text := (SELECT k FROM jsonb_object_keys(q) k);
	b jsonb := q -> kind;
	f text := b ->> 'field_name';
	v text := CASE WHEN f IS NULL THEN NULL ELSE pg_temp.fv(a, f) END;
	words text[];
	toks text[] := pg_temp.tokens(a);
	n int;
	msm int;
BEGIN
	CASE kind
	WHEN 'match_all_query' THEN RETURN true;
	WHEN 'term_query' THEN
		IF f = 'tags' THEN RETURN coalesce(b ->> 'term' = ANY (pg_temp.tags(a)), false); END IF;
		IF f = 'name' THEN RETURN coalesce(b ->> 'term' = ANY (toks), false); END IF;
		RETURN coalesce(pg_temp.cmp(f, v, pg_temp.qv(f, b -> 'term')) = 0, false);
	WHEN 'terms_query' THEN
		RETURN EXISTS (SELECT 1 FROM jsonb_array_elements(b -> 'terms') t
						WHERE pg_temp.m(jsonb_build_object('term_query', jsonb_build_object('field_name', f, 'term', t)), a));
	WHEN 'range_query' THEN
		IF v IS NULL THEN RETURN false; END IF;
		n := CASE WHEN (b ->> 'include_lower')::boolean THEN 0 ELSE 1 END;
		IF b ? 'range_from' AND pg_temp.cmp(f, v, pg_temp.qv(f, b -> 'range_from')) < n THEN
			RETURN false;
		END IF;
		n := CASE WHEN (b ->> 'include_upper')::boolean THEN 0 ELSE -1 END;
		IF b ? 'range_to' AND pg_temp.cmp(f, v, pg_temp.qv(f, b -> 'range_to')) > n THEN
			RETURN false;
		END IF;
		RETURN true;
	WHEN 'prefix_query' THEN
		IF f = 'name' THEN RETURN EXISTS (SELECT 1 FROM unnest(toks) t WHERE starts_with(t, b ->> 'prefix')); END IF;
		RETURN coalesce(starts_with(v, b ->> 'prefix'), false);
	WHEN 'wildcard_query' THEN
		RETURN coalesce(v ~ ('^' || replace(replace(regexp_replace(b ->> 'value', '([^a-zA-Z0-9*?])', '\\\1', 'g'), '*', '.*'), '?', '.') || '$'), false);
	WHEN 'exists_query' THEN
		IF f = 'tags' THEN RETURN coalesce(cardinality(pg_temp.tags(a)) > 0, false); END IF;
		IF f = 'name' THEN RETURN coalesce(cardinality(toks) > 0, false); END IF;
		RETURN v IS NOT NULL;
	WHEN 'match_query' THEN
		words := ARRAY(SELECT DISTINCT token FROM ots.search_analyze(b ->> 'text'));
		n := (SELECT count(*) FROM unnest(words) w WHERE w = ANY (toks));
		msm := coalesce((b ->> 'minimum_should_match')::int, 1);
		IF cardinality(words) = 0 OR toks IS NULL THEN RETURN false; END IF;
		RETURN CASE WHEN b ->> 'operator' = 'AND' THEN n = cardinality(words) ELSE n >= least(greatest(msm, 1), cardinality(words)) END;
	WHEN 'match_phrase_query' THEN
		words := ARRAY(SELECT token FROM ots.search_analyze(b ->> 'text') ORDER BY position);
		IF cardinality(words) = 0 OR toks IS NULL THEN RETURN false; END IF;
		RETURN EXISTS (SELECT 1 FROM generate_series(1, cardinality(toks) - cardinality(words) + 1) s
						WHERE toks[s:s + cardinality(words) - 1] = words);
	WHEN 'bool_query' THEN
		IF EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce(b -> 'must_queries', '[]') || coalesce(b -> 'filter_queries', '[]')) x
					WHERE NOT pg_temp.m(x, a)) THEN
			RETURN false;
		END IF;
		IF EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce(b -> 'must_not_queries', '[]')) x WHERE pg_temp.m(x, a)) THEN
			RETURN false;
		END IF;
		msm := coalesce((b ->> 'minimum_should_match')::int,
						CASE WHEN jsonb_array_length(coalesce(b -> 'must_queries', '[]') || coalesce(b -> 'filter_queries', '[]')) > 0 THEN 0 ELSE 1 END);
		IF jsonb_array_length(coalesce(b -> 'should_queries', '[]')) = 0 THEN RETURN true; END IF;
		RETURN (SELECT count(*) FROM jsonb_array_elements(b -> 'should_queries') x WHERE pg_temp.m(x, a)) >= msm;
	WHEN 'geo_distance_query' THEN
		RETURN coalesce(ots.search_geo_distance(point(split_part(v, ',', 2)::float8, split_part(v, ',', 1)::float8),
												point(split_part(b ->> 'center_point', ',', 2)::float8, split_part(b ->> 'center_point', ',', 1)::float8))
						<= (b ->> 'distance')::float8, false);
	WHEN 'geo_bounding_box_query' THEN
		RETURN coalesce(split_part(v, ',', 1)::float8 BETWEEN split_part(b ->> 'bottom_right', ',', 1)::float8 AND split_part(b ->> 'top_left', ',', 1)::float8
					AND split_part(v, ',', 2)::float8 BETWEEN split_part(b ->> 'top_left', ',', 2)::float8 AND split_part(b ->> 'bottom_right', ',', 2)::float8, false);
	END CASE;
	RAISE EXCEPTION 'no model of %', kind;
END $$;

-- a random query: leaves on every field, bools of them two levels deep
CREATE FUNCTION pg_temp.random_query(depth int) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	f text;
	lo int;
BEGIN
	IF depth > 0 AND random() < 0.35 THEN
		RETURN jsonb_build_object('bool_query', jsonb_strip_nulls(jsonb_build_object(
			'must_queries', CASE WHEN random() < 0.5 THEN jsonb_build_array(pg_temp.random_query(depth - 1)) END,
			'filter_queries', CASE WHEN random() < 0.3 THEN jsonb_build_array(pg_temp.random_query(depth - 1)) END,
			'must_not_queries', CASE WHEN random() < 0.4 THEN jsonb_build_array(pg_temp.random_query(depth - 1)) END))
			|| CASE WHEN random() < 0.5 THEN jsonb_strip_nulls(jsonb_build_object(
				'should_queries', jsonb_build_array(pg_temp.random_query(depth - 1), pg_temp.random_query(depth - 1)),
				'minimum_should_match', CASE WHEN random() < 0.4 THEN to_jsonb(floor(random() * 3)::int) END))
			   ELSE '{}' END);
	END IF;
	CASE floor(random() * 12)::int
	WHEN 0 THEN RETURN '{"match_all_query": {}}';
	WHEN 1, 2 THEN
		f := pg_temp.pick(ARRAY['city', 'stars', 'open', 'tags', 'name']);
		RETURN jsonb_build_object('term_query', jsonb_build_object('field_name', f, 'term', CASE f
			WHEN 'city' THEN to_jsonb(pg_temp.pick(ARRAY['hz', 'sh', 'h%k']))
			WHEN 'stars' THEN to_jsonb(floor(random() * 6)::int)
			WHEN 'open' THEN to_jsonb(random() < 0.5)
			WHEN 'tags' THEN to_jsonb(pg_temp.pick(ARRAY['t0', 'all', 't2']))
			ELSE to_jsonb(pg_temp.pick(ARRAY['tea', 'noodle', 'of'])) END));
	WHEN 3 THEN
		RETURN jsonb_build_object('terms_query', jsonb_build_object('field_name', 'stars', 'terms', jsonb_build_array(floor(random() * 6)::int, floor(random() * 6)::int)));
	WHEN 4 THEN
		-- bounds that rows hold, lower below upper mostly
		f := pg_temp.pick(ARRAY['stars', 'price', 'city', 'at']);
		lo := floor(random() * 5)::int;
		RETURN jsonb_build_object('range_query', jsonb_strip_nulls(jsonb_build_object('field_name', f,
			'range_from', CASE WHEN random() < 0.8 THEN CASE f WHEN 'stars' THEN to_jsonb(lo) WHEN 'price' THEN to_jsonb(lo * 8 + 0.5)
				WHEN 'city' THEN to_jsonb((ARRAY['a', 'bj', 'hk', 'hz', 'sh'])[lo + 1]) ELSE to_jsonb(1700000000000 + lo * 2 * 86400000::bigint) END END,
			'range_to', CASE WHEN random() < 0.8 THEN CASE f WHEN 'stars' THEN to_jsonb(lo + 1 + floor(random() * 2)::int) WHEN 'price' THEN to_jsonb(lo * 8 + 8.5)
				WHEN 'city' THEN to_jsonb((ARRAY['bj', 'hk', 'hz', 'sh', 'z'])[lo + 1]) ELSE to_jsonb(1700000000000 + (lo * 2 + 3) * 86400000::bigint) END END,
			'include_lower', random() < 0.5, 'include_upper', random() < 0.5)));
	WHEN 5 THEN
		RETURN jsonb_build_object('prefix_query', jsonb_build_object('field_name', pg_temp.pick(ARRAY['city', 'name']), 'prefix', pg_temp.pick(ARRAY['h', 'h%', 'no', 't'])));
	WHEN 6 THEN
		RETURN jsonb_build_object('wildcard_query', jsonb_build_object('field_name', 'city', 'value', pg_temp.pick(ARRAY['h?', '*k', 'h%*', '?z', '*'])));
	WHEN 7 THEN
		RETURN jsonb_build_object('exists_query', jsonb_build_object('field_name', pg_temp.pick(ARRAY['city', 'stars', 'price', 'open', 'tags', 'name', 'at', 'loc'])));
	WHEN 8 THEN
		RETURN jsonb_build_object('match_query', jsonb_strip_nulls(jsonb_build_object('field_name', 'name',
			'text', pg_temp.pick(ARRAY['tea noodle', 'house of noodles', 'bar', 'TEA bar house']),
			'operator', CASE WHEN random() < 0.3 THEN 'AND' END,
			'minimum_should_match', CASE WHEN random() < 0.3 THEN to_jsonb(2) END)));
	WHEN 9 THEN
		RETURN jsonb_build_object('match_phrase_query', jsonb_build_object('field_name', 'name',
			'text', pg_temp.pick(ARRAY['tea house', 'bar tea', 'noodle bar', 'tea bar', 'and noodle'])));
	WHEN 10 THEN
		RETURN jsonb_build_object('geo_distance_query', jsonb_build_object('field_name', 'loc',
			'center_point', format('%s,%s', 30 + random() * 0.1, 120 + random() * 0.1), 'distance', random() * 8000));
	ELSE
		RETURN jsonb_build_object('geo_bounding_box_query', jsonb_build_object('field_name', 'loc',
			'top_left', format('%s,%s', 30.05 + random() * 0.05, 120 + random() * 0.05),
			'bottom_right', format('%s,%s', 30 + random() * 0.05, 120.05 + random() * 0.05)));
	END CASE;
END $$;

-- every page of a search by its tokens, the keys in order
CREATE FUNCTION pg_temp.all_pages(q jsonb, lim int, OUT ids text[], OUT total bigint) LANGUAGE plpgsql AS $$
DECLARE
	page jsonb;
	token text;
BEGIN
	ids := '{}';
	page := ots.search('sr', 'ix', q || jsonb_build_object('limit', lim, 'get_total_count', true));
	total := (page ->> 'total_count')::bigint;
	LOOP
		ids := ids || ARRAY(SELECT r -> 'primary_key' ->> 'id' FROM jsonb_array_elements(page -> 'rows') WITH ORDINALITY x(r, n) ORDER BY n);
		token := page ->> 'next_token';
		EXIT WHEN token IS NULL;
		page := ots.search('sr', 'ix', jsonb_build_object('query', q -> 'query', 'token', token, 'limit', lim));
	END LOOP;
END $$;

CREATE TEMP TABLE trials (n int, query jsonb, sort jsonb, got text[], total bigint, expected text[]);
DO $$
DECLARE
	q jsonb;
	sf text;
	desc_ boolean;
	r record;
BEGIN
	FOR i IN 1 .. 400 LOOP
		q := jsonb_build_object('query', pg_temp.random_query(2));
		sf := pg_temp.pick(ARRAY[NULL, 'stars', 'price', 'city', 'at']);
		desc_ := random() < 0.5;
		IF sf IS NOT NULL THEN
			q := q || jsonb_build_object('sort', jsonb_build_object('sorters', jsonb_build_array(
				jsonb_build_object('field_sort', jsonb_build_object('field_name', sf, 'order', CASE WHEN desc_ THEN 'DESC' ELSE 'ASC' END)))));
		END IF;
		SELECT * INTO r FROM pg_temp.all_pages(q, 1 + floor(random() * 8)::int);
		INSERT INTO trials VALUES (i, q -> 'query', q -> 'sort', r.ids, r.total,
			ARRAY(SELECT v.id FROM public.sr v WHERE pg_temp.m(q -> 'query', v.attributes)
				   ORDER BY CASE WHEN sf IN ('stars', 'at', 'price') AND NOT desc_ THEN pg_temp.fv(v.attributes, sf)::numeric END ASC NULLS LAST,
							CASE WHEN sf IN ('stars', 'at', 'price') AND desc_ THEN pg_temp.fv(v.attributes, sf)::numeric END DESC NULLS LAST,
							CASE WHEN sf = 'city' AND NOT desc_ THEN pg_temp.fv(v.attributes, sf) END COLLATE "C" ASC NULLS LAST,
							CASE WHEN sf = 'city' AND desc_ THEN pg_temp.fv(v.attributes, sf) END COLLATE "C" DESC NULLS LAST,
							v.id COLLATE "C"));
	END LOOP;
END $$;
-- the trials: how many found rows, and none that differs from the model
SELECT count(*) AS trials, count(*) FILTER (WHERE cardinality(expected) > 0) AS with_rows,
	   count(*) FILTER (WHERE cardinality(expected) > 1) AS with_order,
	   sum(cardinality(expected)) AS rows_found,
	   count(*) FILTER (WHERE got IS DISTINCT FROM expected OR total <> cardinality(expected)) AS differing
  FROM trials;
SELECT n, query, sort, got, total, expected FROM trials
 WHERE got IS DISTINCT FROM expected OR total <> cardinality(expected) ORDER BY n LIMIT 5;
-- the same trials with a sorted search left to the planner's plan
-- (ots.search_filter_first off: no reading of the matches before ordering
-- them), paged by 3: the same rows in the same order
SET ots.search_filter_first = off;
CREATE TEMP TABLE walk_trials AS
SELECT t.n, t.sort IS NOT NULL AS sorted, (SELECT r.ids FROM pg_temp.all_pages(
		jsonb_build_object('query', t.query) || CASE WHEN t.sort IS NULL THEN '{}' ELSE jsonb_build_object('sort', t.sort) END, 3) r) AS got,
	   t.expected
  FROM trials t;
RESET ots.search_filter_first;
SELECT count(*) AS trials, count(*) FILTER (WHERE sorted) AS sorted,
	   count(*) FILTER (WHERE got IS DISTINCT FROM expected) AS differing FROM walk_trials;

-- ---------------------------------------------------------------------
-- aggregations and group-bys against the model, on random queries
-- ---------------------------------------------------------------------
CREATE FUNCTION pg_temp.aggs_request(q jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('query', q, 'limit', 0,
		'aggs', '[{"name": "avg_price", "type": "avg", "field_name": "price"},
				  {"name": "sum_stars", "type": "sum", "field_name": "stars", "missing": 1},
				  {"name": "max_at", "type": "max", "field_name": "at"},
				  {"name": "n_tags", "type": "count", "field_name": "tags"},
				  {"name": "cities", "type": "distinct_count", "field_name": "city"}]'::jsonb,
		'group_bys', '[{"name": "by_city", "type": "field", "field_name": "city", "size": 3,
						"sub_aggs": [{"name": "min_price", "type": "min", "field_name": "price"}]},
					   {"name": "by_tag", "type": "field", "field_name": "tags",
						"sort": {"sorters": [{"group_key_sort": {"order": "DESC"}}]}},
					   {"name": "prices", "type": "range", "field_name": "price", "ranges": [{"to": 10}, {"from": 10, "to": 25.5}, {"from": 25.5}]},
					   {"name": "open", "type": "filter", "filters": [{"term_query": {"field_name": "open", "term": true}}, {"exists_query": {"field_name": "loc"}}],
						"sub_group_bys": [{"name": "stars", "type": "histogram", "field_name": "stars", "interval": 2, "offset": 1}]},
					   {"name": "near", "type": "geo_distance", "field_name": "loc", "origin": {"lat": 30.05, "lon": 120.05}, "ranges": [{"to": 4000}, {"from": 4000}]}]'::jsonb)
$$;
-- the same computed from the view's rows that match, with plain SQL
CREATE FUNCTION pg_temp.aggs_model(q jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	m jsonb;
BEGIN
	CREATE TEMP TABLE IF NOT EXISTS matched (id text, a jsonb);
	TRUNCATE matched;
	INSERT INTO matched SELECT v.id, v.attributes FROM public.sr v WHERE pg_temp.m(q, v.attributes);
	SELECT jsonb_build_object(
		'aggs', jsonb_build_array(
			jsonb_build_object('name', 'avg_price', 'type', 'avg', 'value', (SELECT round(avg(pg_temp.fv(a, 'price')::float8)::numeric, 6) FROM matched)),
			jsonb_build_object('name', 'sum_stars', 'type', 'sum', 'value', (SELECT coalesce(sum(coalesce(pg_temp.fv(a, 'stars')::bigint, 1)), 0) FROM matched)),
			jsonb_build_object('name', 'max_at', 'type', 'max', 'value', (SELECT max(pg_temp.fv(a, 'at')::bigint) FROM matched)),
			jsonb_build_object('name', 'n_tags', 'type', 'count', 'value', (SELECT coalesce(sum(cardinality(pg_temp.tags(a))), 0) FROM matched)),
			jsonb_build_object('name', 'cities', 'type', 'distinct_count', 'value', (SELECT count(DISTINCT pg_temp.fv(a, 'city')) FROM matched))),
		'group_bys', jsonb_build_array(
			jsonb_build_object('name', 'by_city', 'type', 'field', 'items', (
				SELECT coalesce(jsonb_agg(jsonb_build_object('key', k, 'row_count', c, 'sub_aggs', jsonb_build_array(
						jsonb_build_object('name', 'min_price', 'type', 'min', 'value',
							(SELECT min(pg_temp.fv(a, 'price')::float8) FROM matched WHERE pg_temp.fv(a, 'city') = k))))
						ORDER BY c DESC, k COLLATE "C"), '[]')
				  FROM (SELECT pg_temp.fv(a, 'city') AS k, count(*) AS c FROM matched WHERE pg_temp.fv(a, 'city') IS NOT NULL
						 GROUP BY 1 ORDER BY 2 DESC, pg_temp.fv(a, 'city') COLLATE "C" LIMIT 3) g)),
			jsonb_build_object('name', 'by_tag', 'type', 'field', 'items', (
				SELECT coalesce(jsonb_agg(jsonb_build_object('key', k, 'row_count', c) ORDER BY k COLLATE "C" DESC), '[]')
				  FROM (SELECT t AS k, count(DISTINCT id) AS c FROM matched, unnest(pg_temp.tags(a)) t
						 GROUP BY 1 ORDER BY t COLLATE "C" DESC LIMIT 10) g)),
			jsonb_build_object('name', 'prices', 'type', 'range', 'items', jsonb_build_array(
				jsonb_build_object('from', null, 'to', 10, 'row_count', (SELECT count(*) FROM matched WHERE pg_temp.fv(a, 'price')::float8 < 10)),
				jsonb_build_object('from', 10, 'to', 25.5, 'row_count', (SELECT count(*) FROM matched WHERE pg_temp.fv(a, 'price')::float8 >= 10 AND pg_temp.fv(a, 'price')::float8 < 25.5)),
				jsonb_build_object('from', 25.5, 'to', null, 'row_count', (SELECT count(*) FROM matched WHERE pg_temp.fv(a, 'price')::float8 >= 25.5)))),
			jsonb_build_object('name', 'open', 'type', 'filter', 'items', (
				SELECT jsonb_agg(jsonb_build_object('row_count', (SELECT count(*) FROM matched WHERE pg_temp.m(f, a)),
					'sub_group_bys', jsonb_build_array(jsonb_build_object('name', 'stars', 'type', 'histogram', 'items', (
						SELECT coalesce(jsonb_agg(jsonb_build_object('key', k, 'row_count', c) ORDER BY k), '[]')
						  FROM (SELECT floor((pg_temp.fv(a, 'stars')::bigint - 1) / 2.0) * 2 + 1 AS k, count(*) AS c
								  FROM matched WHERE pg_temp.m(f, a) AND pg_temp.fv(a, 'stars') IS NOT NULL GROUP BY 1) h))))
					ORDER BY n)
				  FROM jsonb_array_elements('[{"term_query": {"field_name": "open", "term": true}}, {"exists_query": {"field_name": "loc"}}]') WITH ORDINALITY AS x(f, n))),
			jsonb_build_object('name', 'near', 'type', 'geo_distance', 'items', jsonb_build_array(
				jsonb_build_object('from', 0, 'to', 4000, 'row_count', (SELECT count(*) FROM matched WHERE pg_temp.m('{"geo_distance_query": {"field_name": "loc", "center_point": "30.05,120.05", "distance": 3999.999999}}', a))),
				jsonb_build_object('from', 4000, 'to', null, 'row_count', (SELECT count(*) FROM matched WHERE pg_temp.fv(a, 'loc') IS NOT NULL
					AND NOT pg_temp.m('{"geo_distance_query": {"field_name": "loc", "center_point": "30.05,120.05", "distance": 3999.999999}}', a)))))))
	  INTO m;
	RETURN m;
END $$;
-- the search's aggregations, the avg rounded as the model's
CREATE FUNCTION pg_temp.aggs_got(q jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_set(s - 'rows' - 'next_token' - 'total_count', '{aggs,0,value}',
					 coalesce(to_jsonb(round((s #>> '{aggs,0,value}')::numeric, 6)), 'null'))
	  FROM ots.search('sr', 'ix', pg_temp.aggs_request(q)) s
$$;
SELECT jsonb_pretty(pg_temp.aggs_got('{"match_all_query": {}}'));
SELECT pg_temp.aggs_got('{"match_all_query": {}}') = pg_temp.aggs_model('{"match_all_query": {}}') AS all_rows_alike;
CREATE TEMP TABLE agg_trials (n int, query jsonb, got jsonb, expected jsonb);
DO $$
DECLARE
	q jsonb;
BEGIN
	FOR i IN 1 .. 60 LOOP
		q := pg_temp.random_query(2);
		INSERT INTO agg_trials VALUES (i, q, pg_temp.aggs_got(q), pg_temp.aggs_model(q));
	END LOOP;
END $$;
SELECT count(*) AS trials, count(*) FILTER (WHERE (got #>> '{aggs,4,value}')::int > 1) AS with_cities,
	   count(*) FILTER (WHERE got IS DISTINCT FROM expected) AS differing
  FROM agg_trials;
SELECT n, query, got, expected FROM agg_trials WHERE got IS DISTINCT FROM expected ORDER BY n LIMIT 3;

-- percentiles (Tablestore's on exact data): at position p/100 * (count - 1)
-- of the sorted values, interpolated between the two around it, a LONG's
-- and a DATE's truncated toward zero; keys ascending; on random queries and
-- random percentages of a DOUBLE, a LONG with missing and a DATE
CREATE FUNCTION pg_temp.percentile(vals numeric[], p numeric) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$
	SELECT vals[floor(pos)::int + 1] + (vals[ceil(pos)::int + 1] - vals[floor(pos)::int + 1]) * (pos - floor(pos))
	  FROM (SELECT p / 100 * (cardinality(vals) - 1) AS pos) x
$$;
CREATE TEMP TABLE percentile_trials (n int, query jsonb, ps jsonb, got jsonb, expected jsonb);
DO $$
DECLARE
	q jsonb;
	ps jsonb;
BEGIN
	FOR i IN 1 .. 40 LOOP
		q := pg_temp.random_query(2);
		ps := (SELECT jsonb_agg(pg_temp.pick(ARRAY[0, 1, 10, 25, 33.3, 50, 66.7, 90, 99.9, 100]))
				 FROM generate_series(1, 1 + floor(random() * 4)::int));
		INSERT INTO percentile_trials
		SELECT i, q, ps,
			   (SELECT jsonb_agg(jsonb_build_array(a ->> 'name', (SELECT jsonb_agg(jsonb_build_array(it -> 'key',
						CASE WHEN a ->> 'name' = 'price' THEN to_jsonb(round((it ->> 'value')::numeric, 9)) ELSE it -> 'value' END))
						FROM jsonb_array_elements(a -> 'items') it)) ORDER BY o)
				  FROM jsonb_array_elements(ots.search('sr', 'ix', jsonb_build_object('query', q, 'limit', 0, 'aggs', jsonb_build_array(
						jsonb_build_object('name', 'price', 'type', 'percentiles', 'field_name', 'price', 'percentiles', ps),
						jsonb_build_object('name', 'stars', 'type', 'percentiles', 'field_name', 'stars', 'percentiles', ps, 'missing', 9),
						jsonb_build_object('name', 'at', 'type', 'percentiles', 'field_name', 'at', 'percentiles', ps)))) -> 'aggs')
						WITH ORDINALITY x(a, o)),
			   (SELECT jsonb_agg(jsonb_build_array(f, (SELECT jsonb_agg(jsonb_build_array(p,
						CASE WHEN cardinality(vals) = 0 THEN NULL
							 WHEN f = 'price' THEN to_jsonb(round(pg_temp.percentile(vals, p::numeric), 9))
							 ELSE to_jsonb(trunc(pg_temp.percentile(vals, p::numeric))) END) ORDER BY p::numeric)
						FROM jsonb_array_elements(ps) p)) ORDER BY o)
				  FROM (SELECT f, o, ARRAY(SELECT coalesce(pg_temp.fv(v.attributes, f)::numeric, CASE WHEN f = 'stars' THEN 9 END) AS x
											 FROM public.sr v
											WHERE pg_temp.m(q, v.attributes)
											  AND (f = 'stars' OR pg_temp.fv(v.attributes, f) IS NOT NULL)
											ORDER BY 1) AS vals
						  FROM unnest(ARRAY['price', 'stars', 'at']) WITH ORDINALITY u(f, o)) m);
	END LOOP;
END $$;
-- a DOUBLE's percentile between the largest values of either sign: no overflow
SELECT ots.create_table('sextreme', 'id integer', max_versions => 1);
SELECT ots.create_search_index('sextreme', 'ix', '{"field_schemas": [{"field_name": "d", "field_type": "DOUBLE"}]}');
SELECT count(ots.put_row('sextreme', jsonb_build_object('id', i), jsonb_build_object('d', jsonb_build_object('$double', v::numeric))))
  FROM (VALUES (1, '-1.7976931348623157e308'), (2, '1.7976931348623157e308')) x(i, v);
SELECT i ->> 'key' AS key, (i ->> 'value')::float8 AS value
  FROM ots.search('sextreme', 'ix', '{"query": {"match_all_query": {}}, "limit": 0,
	"aggs": [{"name": "p", "type": "percentiles", "field_name": "d", "percentiles": [0, 25, 50, 100]}]}') s,
	   jsonb_array_elements(s #> '{aggs,0,items}') i;
SELECT ots.delete_search_index('sextreme', 'ix'), ots.delete_table('sextreme');
SELECT count(*) AS trials, count(*) FILTER (WHERE got #> '{0,1,0,1}' <> 'null') AS with_prices,
	   count(*) FILTER (WHERE got IS DISTINCT FROM expected) AS differing
  FROM percentile_trials;
SELECT n, query, ps, got, expected FROM percentile_trials WHERE got IS DISTINCT FROM expected ORDER BY n LIMIT 3;

-- group_by_field sorted by a sub-aggregation's value (a bucket without one
-- last), then by the other sorters, the most rows and the key; on random
-- queries against the model
CREATE TEMP TABLE sub_agg_sort_trials (n int, query jsonb, sorters jsonb, got jsonb, expected jsonb);
DO $$
DECLARE
	q jsonb;
	desc_ boolean;
	by_sum boolean;
	sorters jsonb;
BEGIN
	FOR i IN 1 .. 30 LOOP
		q := pg_temp.random_query(1);
		desc_ := random() < 0.5;
		by_sum := random() < 0.5;
		sorters := jsonb_build_array(jsonb_build_object('sub_agg_sort', jsonb_build_object('sub_agg_name', CASE WHEN by_sum THEN 'ss' ELSE 'mp' END,
																							  'order', CASE WHEN desc_ THEN 'DESC' ELSE 'ASC' END)))
				   || CASE WHEN random() < 0.5 THEN '[{"group_key_sort": {"order": "DESC"}}]'::jsonb ELSE '[]'::jsonb END;
		INSERT INTO sub_agg_sort_trials
		SELECT i, q, sorters,
			   (SELECT jsonb_agg(jsonb_build_array(it -> 'key', it -> 'row_count', it #> '{sub_aggs,0,value}', it #> '{sub_aggs,1,value}'))
				  FROM jsonb_array_elements(ots.search('sr', 'ix', jsonb_build_object('query', q, 'limit', 0, 'group_bys', jsonb_build_array(
						jsonb_build_object('name', 'g', 'type', 'field', 'field_name', 'city', 'size', 3, 'sort', jsonb_build_object('sorters', sorters),
							'sub_aggs', '[{"name": "mp", "type": "min", "field_name": "price"}, {"name": "ss", "type": "sum", "field_name": "stars"}]'::jsonb))))
						#> '{group_bys,0,items}') it),
			   (SELECT jsonb_agg(jsonb_build_array(k, c, mp, ss) ORDER BY o)
				  FROM (SELECT k, c, mp, ss, row_number() OVER (ORDER BY
								CASE WHEN by_sum THEN ss::float8 ELSE mp END IS NULL,
								CASE WHEN desc_ THEN -(CASE WHEN by_sum THEN ss::float8 ELSE mp END) ELSE (CASE WHEN by_sum THEN ss::float8 ELSE mp END) END,
								CASE WHEN sorters -> 1 IS NOT NULL THEN k END COLLATE "C" DESC,
								c DESC, k COLLATE "C") AS o
						  FROM (SELECT pg_temp.fv(v.attributes, 'city') AS k, count(*) AS c,
									   min(pg_temp.fv(v.attributes, 'price')::float8) AS mp,
									   coalesce(sum(pg_temp.fv(v.attributes, 'stars')::bigint), 0) AS ss
								  FROM public.sr v WHERE pg_temp.m(q, v.attributes) AND pg_temp.fv(v.attributes, 'city') IS NOT NULL
								 GROUP BY 1) m) o
				 WHERE o <= 3);
	END LOOP;
END $$;
SELECT count(*) AS trials, count(*) FILTER (WHERE jsonb_array_length(got) > 1) AS with_groups,
	   count(*) FILTER (WHERE got IS DISTINCT FROM expected) AS differing
  FROM sub_agg_sort_trials;
SELECT * FROM sub_agg_sort_trials WHERE got IS DISTINCT FROM expected ORDER BY n LIMIT 2;
SELECT pg_temp.err($$SELECT ots.search('sr', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "g", "type": "field", "field_name": "city", "sort": {"sorters": [{"sub_agg_sort": {"sub_agg_name": "nope"}}]}}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sr', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "g", "type": "field", "field_name": "city", "sort": {"sorters": [{"sub_agg_sort": {"sub_agg_name": "p"}}]}, "sub_aggs": [{"name": "p", "type": "percentiles", "field_name": "stars", "percentiles": [50]}]}]}')$$);

-- a range group-by's buckets by from, then to, whatever their order asked
-- (an absent from first, an absent to last); a geo-distance group-by's as
-- asked, an absent from shown as 0; as Tablestore answers
SELECT i ->> 'from' AS "from", i ->> 'to' AS "to", (i ->> 'row_count')::int > 0 AS some_rows,
	   (i ->> 'row_count')::int = (SELECT count(*) FROM public.sr v
									WHERE pg_temp.fv(v.attributes, 'price')::float8 >= coalesce((i ->> 'from')::float8, '-infinity')
									  AND pg_temp.fv(v.attributes, 'price')::float8 < coalesce((i ->> 'to')::float8, 'infinity')) AS counted_right
  FROM ots.search('sr', 'ix', '{"query": {"match_all_query": {}}, "limit": 0, "group_bys": [{"name": "p", "type": "range", "field_name": "price",
	"ranges": [{"from": 10, "to": 25.5}, {"from": 25.5}, {"to": 10}, {"from": 10, "to": 12}, {"to": 5}]}]}') s,
	   jsonb_array_elements(s #> '{group_bys,0,items}') i;
SELECT i ->> 'from' AS "from", i ->> 'to' AS "to"
  FROM ots.search('sr', 'ix', '{"query": {"match_all_query": {}}, "limit": 0, "group_bys": [{"name": "g", "type": "geo_distance", "field_name": "loc",
	"origin": {"lat": 30.05, "lon": 120.05}, "ranges": [{"from": 4000}, {"to": 4000}, {"from": 100, "to": 4000}]}]}') s,
	   jsonb_array_elements(s #> '{group_bys,0,items}') i;

-- aggregation refusals
SELECT pg_temp.err($$SELECT ots.search('sr', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "a", "type": "sum", "field_name": "open"}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sr', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "a", "type": "avg", "field_name": "nope"}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sr', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "a", "type": "avg", "field_name": "price"}, {"name": "a", "type": "max", "field_name": "price"}]}')$$);
-- field_sort's missing_field: a row without the field sorts by another's
-- value, then by missing_value; paged by token; against the same order in SQL
SELECT ots.create_table('smf', 'id integer', max_versions => 1);
SELECT ots.create_search_index('smf', 'ix', '{"field_schemas": [{"field_name": "a", "field_type": "LONG"},
	{"field_name": "b", "field_type": "LONG"}, {"field_name": "c", "field_type": "KEYWORD"}]}');
SELECT count(ots.put_row('smf', jsonb_build_object('id', i), r)) FROM (VALUES (1, '{"a": 5}'::jsonb), (2, '{"b": 3}'), (3, '{"a": 1, "b": 9}'),
	(4, '{"c": "x"}'), (5, '{"b": 7}'), (6, '{"a": 3}')) v(i, r);
CREATE FUNCTION pg_temp.smf_pages(sorter jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	q jsonb := jsonb_build_object('query', '{"match_all_query": {}}'::jsonb, 'limit', 2, 'sort', jsonb_build_object('sorters', jsonb_build_array(sorter)));
	r jsonb;
	out text := '';
BEGIN
	LOOP
		r := ots.search('smf', 'ix', q);
		out := out || coalesce((SELECT string_agg(x -> 'primary_key' ->> 'id', ' ') FROM jsonb_array_elements(r -> 'rows') x), '') || ' | ';
		EXIT WHEN r ->> 'next_token' IS NULL;
		q := q || jsonb_build_object('token', r ->> 'next_token');
	END LOOP;
	RETURN out;
END $$;
SELECT pg_temp.smf_pages('{"field_sort": {"field_name": "a", "order": "DESC", "missing_field": "b"}}') AS found,
	   (SELECT string_agg(id::text, ' ' ORDER BY coalesce((attributes ->> 'a')::int, (attributes ->> 'b')::int) DESC NULLS LAST, id) FROM smf) AS model;
SELECT pg_temp.smf_pages('{"field_sort": {"field_name": "a", "order": "ASC", "missing_field": "b", "missing_value": 4}}') AS found,
	   (SELECT string_agg(id::text, ' ' ORDER BY coalesce((attributes ->> 'a')::int, (attributes ->> 'b')::int, 4), id) FROM smf) AS model;
SELECT pg_temp.err($$SELECT ots.search('smf', 'ix', '{"query": {"match_all_query": {}}, "sort": {"sorters": [{"field_sort": {"field_name": "a", "missing_field": "nope"}}]}}')$$);
SELECT pg_temp.err($$SELECT ots.search('smf', 'ix', '{"query": {"match_all_query": {}}, "sort": {"sorters": [{"field_sort": {"field_name": "a", "missing_field": "c"}}]}}')$$);
SELECT ots.delete_search_index('smf', 'ix'), ots.delete_table('smf');
-- a list of 25 aggregations is taken (the Node SDK's own test sends 8), 26 are refused
SELECT jsonb_array_length(ots.search('sr', 'ix', jsonb_build_object('query', '{"match_all_query": {}}'::jsonb, 'limit', 0,
		'aggs', (SELECT jsonb_agg(jsonb_build_object('name', 'a' || g, 'type', 'count', 'field_name', 'price')) FROM generate_series(1, 25) g)))
		-> 'aggs') AS aggs;
SELECT pg_temp.err(format($$SELECT ots.search('sr', 'ix', %L)$$, jsonb_build_object('query', '{"match_all_query": {}}'::jsonb,
		'aggs', (SELECT jsonb_agg(jsonb_build_object('name', 'a' || g, 'type', 'count', 'field_name', 'price')) FROM generate_series(1, 26) g))));
SELECT pg_temp.err($$SELECT ots.search('sr', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "a", "type": "top_rows", "limit": 0}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sr', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "g", "type": "field", "field_name": "city", "size": 3000}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sr', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "g", "type": "date_histogram", "field_name": "at"}]}')$$);

-- ---------------------------------------------------------------------
-- what an outside review found and reproduced on the code before these fixes
-- ---------------------------------------------------------------------
-- a large nested group-by's result outlives the statements that made it
-- (it was built in SPI's memory, freed before it was returned)
SELECT ots.create_table('sbig', 'id integer', max_versions => 1);
SELECT ots.create_search_index('sbig', 'ix', '{"field_schemas": [{"field_name": "k", "field_type": "KEYWORD"}, {"field_name": "l", "field_type": "LONG"}, {"field_name": "d", "field_type": "DOUBLE"}, {"field_name": "b", "field_type": "KEYWORD"}]}');
INSERT INTO sbig (id, attributes) SELECT g, jsonb_build_object('k', 'k' || g % 100, 'l', g / 100, 'd', (g % 7) * 0.1) FROM generate_series(1, 10000) g;
SELECT jsonb_array_length(s #> '{group_bys,0,items}') AS groups,
	   (SELECT sum(jsonb_array_length(i #> '{sub_group_bys,0,items}')) FROM jsonb_array_elements(s #> '{group_bys,0,items}') i) AS sub_groups
  FROM ots.search('sbig', 'ix', '{"query": {"match_all_query": {}}, "limit": 0, "group_bys": [{"name": "f", "type": "field", "field_name": "k", "size": 7,
	"sub_group_bys": [{"name": "g", "type": "field", "field_name": "l", "size": 7, "sub_aggs": [{"name": "c", "type": "count", "field_name": "l"}]}]}]}') s;
-- pages by a DOUBLE sort end, and hold every row once, whatever extra_float_digits and bytea_output say
SELECT ots.create_table('skeys', 'a integer, b binary, c string', max_versions => 1);
SELECT ots.create_search_index('skeys', 'ix', '{"field_schemas": [{"field_name": "d", "field_type": "DOUBLE"}]}');
SELECT count(ots.put_row('skeys', jsonb_build_object('a', g % 3, 'b', jsonb_build_object('$binary', translate(encode(decode(repeat(md5(g::text), 4), 'hex'), 'base64'), E'\n', '')), 'c', 'c' || g),
						 jsonb_build_object('d', CASE WHEN g % 2 = 0 THEN 0.3 ELSE 0.1::float8 + 0.2::float8 END))) FROM generate_series(1, 30) g;
SET extra_float_digits = 0;
SET bytea_output = escape;
WITH RECURSIVE pages(n, body) AS (
	SELECT 1, ots.search('skeys', 'ix', '{"query": {"match_all_query": {}}, "sort": {"sorters": [{"field_sort": {"field_name": "d"}}]}, "limit": 4}')
	UNION ALL
	SELECT n + 1, ots.search('skeys', 'ix', jsonb_build_object('query', '{"match_all_query": {}}'::jsonb, 'token', body ->> 'next_token', 'limit', 4))
	  FROM pages WHERE body ->> 'next_token' IS NOT NULL AND n < 20)
SELECT max(n) AS pages, count(*) AS rows, count(DISTINCT r -> 'primary_key') AS distinct_rows
  FROM pages, jsonb_array_elements(body -> 'rows') r;
RESET extra_float_digits;
RESET bytea_output;
-- a key of a long Binary comes back whole, and its row read by it
SELECT length(r #>> '{primary_key,b,$binary}') AS base64_chars, position(E'\n' IN r #>> '{primary_key,b,$binary}') AS newline,
	   r -> 'attributes' ? 'd' AS read
  FROM ots.search('skeys', 'ix', '{"query": {"match_all_query": {}}, "limit": 1}', '{"return_type": "RETURN_ALL"}') s,
	   jsonb_array_elements(s -> 'rows') r;
-- a histogram bucket's sub-aggregations see its rows: a float at a bucket's
-- edge, a field_range, missing
SELECT ots.put_row('sbig', '{"id": 20001}', '{"d": 99.24}');
SELECT i ->> 'key' AS key, i ->> 'row_count' AS row_count, i #>> '{sub_aggs,0,value}' AS sub_count
  FROM ots.search('sbig', 'ix', '{"query": {"range_query": {"field_name": "d", "range_from": 99}}, "limit": 0,
	"group_bys": [{"name": "h", "type": "histogram", "field_name": "d", "interval": 0.01, "offset": 1,
				   "sub_aggs": [{"name": "c", "type": "count", "field_name": "d"}]}]}') s,
	   jsonb_array_elements(s #> '{group_bys,0,items}') i;
SELECT i ->> 'key' AS key, i ->> 'row_count' AS row_count, i #>> '{sub_aggs,0,value}' AS sub_count
  FROM ots.search('sbig', 'ix', '{"query": {"bool_query": {"should_queries": [{"term_query": {"field_name": "l", "term": 0}},
	{"term_query": {"field_name": "l", "term": 50}}, {"term_query": {"field_name": "d", "term": 99.24}}]}}, "limit": 0,
	"group_bys": [{"name": "h", "type": "histogram", "field_name": "l", "interval": 100, "missing": 7, "field_range": {"min": 0, "max": 20},
				   "sub_aggs": [{"name": "c", "type": "count", "field_name": "d"}]}]}') s,
	   jsonb_array_elements(s #> '{group_bys,0,items}') i;
-- percentiles by key ascending, whatever their order asked; an order of a group sort, a min_doc_count past 2^31, a bucket limit
SELECT s #> '{aggs,0,items}' FROM ots.search('sbig', 'ix', '{"query": {"match_all_query": {}}, "limit": 0,
	"aggs": [{"name": "p", "type": "percentiles", "field_name": "l", "percentiles": [57, 7, 29]}]}') s;
SELECT jsonb_array_length(s #> '{group_bys,0,items}') FROM ots.search('sbig', 'ix', '{"query": {"match_all_query": {}}, "limit": 0,
	"group_bys": [{"name": "g", "type": "field", "field_name": "k", "min_doc_count": 3000000000}]}') s;
SELECT pg_temp.err($$SELECT ots.search('sbig', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "g", "type": "field", "field_name": "k", "sort": {"sorters": [{"row_count_sort": {"order": "D"}}]}}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sbig', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "h", "type": "histogram", "field_name": "d", "interval": 0.00001}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sbig', 'ix', '{"query": {"bool_query": {"must_queries": [{"match_all_query": {}}], "should_queries": [{"nonsense": {}}], "minimum_should_match": 0}}}')$$);
SELECT ots.delete_search_index(t, 'ix'), ots.delete_table(t) FROM unnest(ARRAY['sbig', 'skeys']) t;

-- a DATE's groups are its milliseconds, the keys they are shown by (30
-- rows in one millisecond, at three nanoseconds of it, are one group of 30),
-- an array's too; each group's sub-aggregation sees its rows
SELECT ots.create_table('sdate', 'id integer');
SELECT ots.create_search_index('sdate', 'ix', '{"field_schemas": [
	{"field_name": "t", "field_type": "DATE", "date_formats": ["epoch_nanos"]},
	{"field_name": "ts", "field_type": "DATE", "date_formats": ["epoch_nanos"], "is_array": true}]}');
SELECT count(ots.put_row('sdate', jsonb_build_object('id', i),
						 jsonb_build_object('t', 1000000000 + i % 3, 'ts', format('[%s, %s]', 2000000000 + i % 3, 3000000000))))
  FROM generate_series(1, 30) i;
SELECT g ->> 'name' AS g, i ->> 'key' AS key, i ->> 'row_count' AS row_count, i #>> '{sub_aggs,0,value}' AS sub_count
  FROM ots.search('sdate', 'ix', '{"query": {"match_all_query": {}}, "limit": 0, "group_bys": [
	{"name": "t", "type": "field", "field_name": "t", "sub_aggs": [{"name": "c", "type": "count", "field_name": "t"}]},
	{"name": "ts", "type": "field", "field_name": "ts", "sub_aggs": [{"name": "c", "type": "count", "field_name": "t"}]}]}') s,
	   jsonb_array_elements(s -> 'group_bys') g, jsonb_array_elements(g -> 'items') i;
SELECT ots.delete_search_index('sdate', 'ix'), ots.delete_table('sdate');

-- a table whose name must be quoted in SQL: its rows read with their columns
SELECT ots.create_table('MixedCase', 'id integer');
SELECT ots.create_search_index('MixedCase', 'ix', '{"field_schemas": [{"field_name": "n", "field_type": "LONG"}]}');
SELECT count(*) FROM ots.put_row('MixedCase', '{"id": 1}', '{"n": 5, "other": "x"}');
SELECT s -> 'rows' FROM ots.search('MixedCase', 'ix', '{"query": {"match_all_query": {}}}', '{"return_type": "RETURN_ALL"}') s;
SELECT ots.delete_search_index('MixedCase', 'ix'), ots.delete_table('MixedCase');

SELECT ots.delete_search_index(t, 'ix'), ots.delete_table(t) FROM unnest(ARRAY['sq', 'sr']) t;
