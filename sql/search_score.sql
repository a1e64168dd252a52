-- functions_score_query and function_score_query (src/search/search_score.c,
-- search_query.c): random functions (decays of numbers, dates and points,
-- field value factors with their modifiers, weights, filters), score and
-- combine modes, min_score and max_score, over sparse rows, against a model
-- written from Elasticsearch's formulas with plain SQL over the table's
-- view; the order (the best scored first), paging by token, random scores,
-- refusals.
SET client_min_messages = warning;
SET extra_float_digits = 0;
CREATE EXTENSION IF NOT EXISTS ots;

\i test/search_err.sql
CREATE FUNCTION pg_temp.pick(a anyarray) RETURNS anyelement LANGUAGE sql VOLATILE AS
	$$ SELECT a[1 + floor(random() * cardinality(a))::int] $$;

SELECT ots.create_table('fs', 'id integer');
SELECT ots.create_search_index('fs', 'ix', '{"field_schemas": [
	{"field_name": "city", "field_type": "KEYWORD"},
	{"field_name": "n", "field_type": "LONG"},
	{"field_name": "d", "field_type": "DOUBLE"},
	{"field_name": "nums", "field_type": "LONG", "is_array": true},
	{"field_name": "at", "field_type": "DATE", "date_formats": ["epoch_millis"]},
	{"field_name": "loc", "field_type": "GEO_POINT"}]}');
-- 120 rows, each field missing from about a quarter of them
SELECT setseed(0.21);
SELECT count(ots.put_row('fs', jsonb_build_object('id', g), jsonb_strip_nulls(jsonb_build_object(
	'city', CASE WHEN random() < 0.75 THEN pg_temp.pick(ARRAY['hz', 'sh', 'bj']) END,
	'n', CASE WHEN random() < 0.75 THEN floor(random() * 41)::int - 20 END,
	'd', CASE WHEN random() < 0.75 THEN round((random() * 10)::numeric, 3) + 0.0005 END,
	'nums', CASE WHEN random() < 0.75 THEN (SELECT jsonb_agg(floor(random() * 30)::int)::text FROM generate_series(0, floor(random() * 3)::int)) END,
	'at', CASE WHEN random() < 0.75 THEN 1700000000000 + floor(random() * 20 * 86400000)::bigint END,
	'loc', CASE WHEN random() < 0.75 THEN format('%s,%s', round((30 + random() * 0.2)::numeric, 4), round((120 + random() * 0.2)::numeric, 4)) END))))
  FROM generate_series(1, 120) g;

CREATE TEMP VIEW m AS
SELECT id, attributes ->> 'city' AS city, (attributes ->> 'n')::float8 AS n, (attributes ->> 'd')::float8 AS d,
	   ARRAY(SELECT e::float8 FROM jsonb_array_elements_text((attributes ->> 'nums')::jsonb) e) AS nums,
	   (attributes ->> 'at')::float8 AS at,
	   point(split_part(attributes ->> 'loc', ',', 2)::float8, split_part(attributes ->> 'loc', ',', 1)::float8) AS loc
  FROM fs;
SELECT count(*) AS rows, count(city) AS city, count(n) AS n, count(d) AS d,
	   count(*) FILTER (WHERE cardinality(nums) > 0) AS nums, count(at) AS at, count(loc) AS loc FROM m;

-- the model: a decay by Elasticsearch's formulas, at a distance past the offset
CREATE FUNCTION pg_temp.decay(math text, dist float8, scale float8, "offset" float8, decay float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE math
		WHEN 'GAUSS' THEN exp(-(greatest(dist - "offset", 0) ^ 2) / (2 * (-(scale ^ 2) / (2 * ln(decay)))))
		WHEN 'EXP' THEN exp(ln(decay) / scale * greatest(dist - "offset", 0))
		ELSE greatest((scale / (1 - decay) - greatest(dist - "offset", 0)) / (scale / (1 - decay)), 0) END
$$;
-- one function's value for a row of m (null: it does not apply), its weight not counted
CREATE FUNCTION pg_temp.fn_value(f jsonb, r m) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	x float8;
	dists float8[];
	p jsonb := f #> '{decay,param}';
BEGIN
	IF f ? 'filter' AND r.city IS DISTINCT FROM f #>> '{filter,term_query,term}' THEN
		RETURN NULL;
	ELSIF f ? 'field_value_factor' THEN
		x := CASE f #>> '{field_value_factor,field_name}' WHEN 'n' THEN r.n WHEN 'd' THEN r.d
			 ELSE (SELECT min(e) FROM unnest(r.nums) e) END;
		x := coalesce(x, (f #>> '{field_value_factor,missing}')::float8) * coalesce((f #>> '{field_value_factor,factor}')::float8, 1);
		RETURN CASE f #>> '{field_value_factor,modifier}'
			WHEN 'LOG1P' THEN CASE WHEN x + 1 > 0 THEN log(x + 1) END
			WHEN 'LN' THEN CASE WHEN x > 0 THEN ln(x) END
			WHEN 'SQRT' THEN CASE WHEN x >= 0 THEN sqrt(x) END
			WHEN 'SQUARE' THEN x * x
			WHEN 'RECIPROCAL' THEN CASE WHEN x <> 0 THEN 1 / x END
			ELSE x END;
	ELSIF f ? 'decay' THEN
		dists := CASE f #>> '{decay,field_name}'
			WHEN 'n' THEN ARRAY[abs(r.n - (p ->> 'origin')::float8)]
			WHEN 'nums' THEN ARRAY(SELECT abs(e - (p ->> 'origin')::float8) FROM unnest(r.nums) e)
			WHEN 'at' THEN ARRAY[abs(r.at - (p ->> 'origin_long')::float8)]
			ELSE ARRAY[ots.search_geo_distance(r.loc, point(split_part(p ->> 'origin', ',', 2)::float8, split_part(p ->> 'origin', ',', 1)::float8))] END;
		x := CASE coalesce(f #>> '{decay,multi_value_mode}', 'MVM_MIN')
			WHEN 'MVM_MAX' THEN (SELECT max(e) FROM unnest(dists) e) WHEN 'MVM_SUM' THEN (SELECT sum(e) FROM unnest(dists) e)
			WHEN 'MVM_AVG' THEN (SELECT avg(e) FROM unnest(dists) e) ELSE (SELECT min(e) FROM unnest(dists) e) END;
		-- a row without the value: 1, as Elasticsearch's
		IF x IS NULL THEN
			RETURN 1;
		END IF;
		RETURN pg_temp.decay(f #>> '{decay,math_function}', x,
			CASE WHEN f #>> '{decay,field_name}' = 'at' THEN (p #>> '{scale,value}')::float8 * 3600000 ELSE (p ->> 'scale')::float8 END,
			CASE WHEN f #>> '{decay,field_name}' = 'at' THEN coalesce((p #>> '{offset,value}')::float8 * 3600000, 0) ELSE coalesce((p ->> 'offset')::float8, 0) END,
			coalesce((f #>> '{decay,decay}')::float8, 0.5));
	END IF;
	RETURN 1;
END $$;
CREATE FUNCTION pg_temp.product(a float8[]) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	p float8 := 1;
	e float8;
BEGIN
	FOREACH e IN ARRAY a LOOP
		p := p * e;
	END LOOP;
	RETURN p;
END $$;
-- a row's score by a functions_score_query q (its query: match_all or a term on city), null: not matched
CREATE FUNCTION pg_temp.model_score(q jsonb, r m) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	s jsonb := q -> 'functions_score_query';
	scores float8[] := '{}';
	weights float8[] := '{}';
	f jsonb;
	v float8;
	fs float8;
	score float8;
BEGIN
	IF s #> '{query,term_query}' IS NOT NULL AND r.city IS DISTINCT FROM s #>> '{query,term_query,term}' THEN
		RETURN NULL;
	END IF;
	FOR f IN SELECT * FROM jsonb_array_elements(s -> 'functions') LOOP
		v := pg_temp.fn_value(f, r);
		IF v IS NOT NULL THEN
			scores := scores || v * coalesce((f ->> 'weight')::float8, 1);
			weights := weights || coalesce((f ->> 'weight')::float8, 1);
		END IF;
	END LOOP;
	fs := CASE WHEN cardinality(scores) = 0 THEN 1 ELSE CASE coalesce(s ->> 'score_mode', 'MULTIPLY')
		WHEN 'AVG' THEN (SELECT sum(e) FROM unnest(scores) e) / (SELECT sum(e) FROM unnest(weights) e)
		WHEN 'MAX' THEN (SELECT max(e) FROM unnest(scores) e) WHEN 'MIN' THEN (SELECT min(e) FROM unnest(scores) e)
		WHEN 'SUM' THEN (SELECT sum(e) FROM unnest(scores) e) WHEN 'FIRST' THEN scores[1]
		ELSE (SELECT x FROM pg_temp.product(scores) x) END END;
	fs := least(fs, coalesce((s ->> 'max_score')::float8, fs));
	-- the query's score: 1
	score := CASE coalesce(s ->> 'combine_mode', 'MULTIPLY')
		WHEN 'REPLACE' THEN fs WHEN 'SUM' THEN 1 + fs WHEN 'AVG' THEN (1 + fs) / 2
		WHEN 'MAX' THEN greatest(1, fs) WHEN 'MIN' THEN least(1, fs) ELSE fs END;
	IF score < (s ->> 'min_score')::float8 THEN
		RETURN NULL;
	END IF;
	RETURN score;
END $$;

-- 80 random queries of 1 to 3 functions
CREATE TEMP TABLE trials (t int, q jsonb);
SELECT setseed(0.6);
INSERT INTO trials
SELECT t, jsonb_build_object('functions_score_query', jsonb_strip_nulls(jsonb_build_object(
	'query', CASE WHEN random() < 0.5 THEN '{"match_all_query": {}}'::jsonb
				  ELSE jsonb_build_object('term_query', jsonb_build_object('field_name', 'city', 'term', pg_temp.pick(ARRAY['hz', 'sh']))) END,
	'functions', (SELECT jsonb_agg(fn || CASE WHEN random() < 0.3 THEN jsonb_build_object('weight', pg_temp.pick(ARRAY[0.5, 2, 3]))
											   ELSE '{}' END
									  || CASE WHEN random() < 0.3 THEN '{"filter": {"term_query": {"field_name": "city", "term": "bj"}}}'::jsonb
											  ELSE '{}' END)
					FROM (SELECT pg_temp.pick(ARRAY[
						'{"decay": {"field_name": "n", "math_function": "GAUSS", "param": {"origin": 3, "scale": 5, "offset": 1}, "decay": 0.3}}',
						'{"decay": {"field_name": "n", "math_function": "EXP", "param": {"origin": -2, "scale": 4}}}',
						'{"decay": {"field_name": "n", "math_function": "LINEAR", "param": {"origin": 0, "scale": 10, "offset": 2}, "decay": 0.5}}',
						'{"decay": {"field_name": "nums", "math_function": "GAUSS", "param": {"origin": 10, "scale": 6}, "multi_value_mode": "MVM_MAX"}}',
						'{"decay": {"field_name": "nums", "math_function": "LINEAR", "param": {"origin": 10, "scale": 20}, "multi_value_mode": "MVM_AVG", "decay": 0.2}}',
						'{"decay": {"field_name": "nums", "math_function": "EXP", "param": {"origin": 5, "scale": 8}, "multi_value_mode": "MVM_SUM"}}',
						'{"decay": {"field_name": "at", "math_function": "GAUSS", "param_type": "DF_DATE_PARAM", "param": {"origin_long": 1700864000000, "scale": {"value": 48, "unit": "HOUR"}, "offset": {"value": 6, "unit": "HOUR"}}}}',
						'{"decay": {"field_name": "loc", "math_function": "EXP", "param_type": "DF_GEO_PARAM", "param": {"origin": "30.1,120.1", "scale": 5000, "offset": 500}, "decay": 0.4}}',
						'{"field_value_factor": {"field_name": "d", "factor": 1.5, "modifier": "LOG1P"}}',
						'{"field_value_factor": {"field_name": "n", "modifier": "SQUARE", "missing": 3}}',
						'{"field_value_factor": {"field_name": "d", "modifier": "SQRT"}}',
						'{"field_value_factor": {"field_name": "n", "modifier": "LN", "factor": 0.5}}',
						'{"field_value_factor": {"field_name": "nums", "modifier": "RECIPROCAL", "missing": 0}}',
						'{}']::jsonb[]) AS fn
						  FROM generate_series(1, 1 + floor(random() * 3)::int + t * 0)) x),
	'score_mode', pg_temp.pick(ARRAY['AVG', 'MAX', 'SUM', 'MIN', 'MULTIPLY', 'FIRST', NULL]),
	'combine_mode', pg_temp.pick(ARRAY['MULTIPLY', 'AVG', 'MAX', 'SUM', 'MIN', 'REPLACE', NULL]),
	'min_score', CASE WHEN random() < 0.3 THEN 0.777 END,
	'max_score', CASE WHEN random() < 0.3 THEN 1.234 END)))
  FROM generate_series(1, 80) t;

-- each trial's rows by every page of 7: the scores the model gives (none differ), the best first
CREATE FUNCTION pg_temp.pages(q jsonb) RETURNS TABLE (n int, id int, score float8) LANGUAGE plpgsql AS $$
DECLARE
	page jsonb;
	token text;
	k int := 0;
BEGIN
	LOOP
		page := ots.search('fs', 'ix', jsonb_strip_nulls(jsonb_build_object('query', q, 'limit', 7, 'token', token)));
		RETURN QUERY SELECT k + o::int, (r #>> '{primary_key,id}')::int, (r ->> 'score')::float8
					   FROM jsonb_array_elements(page -> 'rows') WITH ORDINALITY AS x(r, o);
		k := k + jsonb_array_length(page -> 'rows');
		token := page ->> 'next_token';
		EXIT WHEN token IS NULL OR k > 500;
	END LOOP;
END $$;
CREATE TEMP TABLE got AS SELECT t, p.* FROM trials, pg_temp.pages(q) p;
CREATE TEMP TABLE model AS SELECT t, m.id, pg_temp.model_score(q, m) AS score FROM trials, m WHERE pg_temp.model_score(q, m) IS NOT NULL;
-- rows one has and the other lacks, or scored apart (relative 1e-9)
SELECT coalesce(g.t, o.t) AS t, coalesce(g.id, o.id) AS id, g.score AS got, o.score AS model
  FROM got g FULL JOIN model o ON o.t = g.t AND o.id = g.id
 WHERE g.id IS NULL OR o.id IS NULL OR abs(g.score - o.score) > 1e-9 * greatest(1, abs(o.score))
 ORDER BY 1, 2 LIMIT 10;
-- out of order: a row after one scored lower, or after an equal one of a greater key
SELECT a.t, a.n, a.id, a.score, b.id, b.score FROM got a JOIN got b ON b.t = a.t AND b.n = a.n + 1
 WHERE b.score > a.score OR (b.score = a.score AND b.id < a.id) LIMIT 5;
SELECT count(*) AS rows, count(DISTINCT t) AS trials, count(DISTINCT round(score::numeric, 6)) AS distinct_scores FROM got;
SELECT count(DISTINCT q #>> '{functions_score_query,score_mode}') AS score_modes,
	   count(DISTINCT q #>> '{functions_score_query,combine_mode}') AS combine_modes,
	   count(*) FILTER (WHERE q #> '{functions_score_query}' ? 'min_score') AS with_min_score,
	   count(*) FILTER (WHERE q #> '{functions_score_query}' ? 'max_score') AS with_max_score,
	   count(*) FILTER (WHERE q::text LIKE '%filter%') AS with_filters
  FROM trials;

-- a random function: the same score in every search, in [0, 1), unlike from row to row
WITH a AS (SELECT * FROM pg_temp.pages('{"functions_score_query": {"functions": [{"random": {}}], "combine_mode": "REPLACE"}}')),
	 b AS (SELECT * FROM pg_temp.pages('{"functions_score_query": {"functions": [{"random": {}}], "combine_mode": "REPLACE"}}'))
SELECT count(*) AS rows, bool_and(a.score = b.score) AS same, bool_and(a.score >= 0 AND a.score < 1) AS in_range,
	   count(DISTINCT a.score) > 100 AS varied
  FROM a JOIN b USING (id);

-- function_score_query: the query's score times the field's value; rows carry scores however sorted
SELECT r #>> '{primary_key,id}' AS id, r -> 'score' AS score, (SELECT d FROM m WHERE m.id = (r #>> '{primary_key,id}')::int) AS d
  FROM jsonb_array_elements(ots.search('fs', 'ix', '{"query": {"function_score_query": {"query": {"match_all_query": {}},
		"field_value_factor": {"field_name": "d"}}}, "limit": 3}') -> 'rows') r;
SELECT r #>> '{primary_key,id}' AS id, r -> 'score' AS score
  FROM jsonb_array_elements(ots.search('fs', 'ix', '{"query": {"functions_score_query": {"functions": [{"weight": 4}]}},
		"sort": {"sorters": [{"primary_key_sort": {"order": "DESC"}}]}, "limit": 2}') -> 'rows') r;
-- a search that does not score carries no scores
SELECT ots.search('fs', 'ix', '{"query": {"match_all_query": {}}, "limit": 1}') #> '{rows,0}' ? 'score' AS scored;

-- doubles that would leave their range (PostgreSQL raises an error where Java gives 0 or
-- Infinity): far decays score 0, huge and tiny values are bounded
SELECT count(*) AS put FROM ots.put_row('fs', '{"id": 1000}', '{"n": 9000000000000000000, "d": {"$double": 1e300}, "loc": "-60,-100", "at": 0}');
SELECT m, c, ots.search('fs', 'ix', format('{"query": {"functions_score_query": {"query": {"term_query": {"field_name": "n", "term": 9000000000000000000}},
		"functions": [{"decay": {"field_name": "n", "math_function": "GAUSS", "param": {"origin": 0, "scale": 1}}},
			{"decay": {"field_name": "n", "math_function": "EXP", "param": {"origin": 0, "scale": 1e-100}}},
			{"decay": {"field_name": "loc", "math_function": "GAUSS", "param": {"origin": "30,120", "scale": 1}}},
			{"decay": {"field_name": "at", "math_function": "GAUSS", "param": {"origin_long": 1700000000000, "scale": {"value": 1, "unit": "MILLISECOND"}}}},
			{"field_value_factor": {"field_name": "d", "modifier": "SQUARE", "factor": 1e30}, "weight": 1e30},
			{"field_value_factor": {"field_name": "d", "modifier": "RECIPROCAL"}, "weight": 1e-100}],
		"score_mode": "%s", "combine_mode": "%s"}}}', m, c)::jsonb) #> '{rows,0,score}' AS score
  FROM unnest(ARRAY['MULTIPLY', 'SUM', 'AVG', 'MAX', 'MIN']) m, unnest(ARRAY['MULTIPLY', 'SUM']) c;
SELECT count(*) AS deleted FROM ots.delete_row('fs', '{"id": 1000}');
-- nesting scores with min_score compiles each level again: refused before it grows without bound
WITH RECURSIVE x(d, q) AS (SELECT 0, '{"match_all_query": {}}'::jsonb UNION ALL
	SELECT d + 1, jsonb_build_object('functions_score_query', jsonb_build_object('query',
		jsonb_build_object('bool_query', jsonb_build_object('should_queries', jsonb_build_array(q))),
		'min_score', 0, 'functions', '[{"weight": 1}]'::jsonb)) FROM x WHERE d < 14)
SELECT pg_temp.err(format('SELECT ots.search(''fs'', ''ix'', %L)', jsonb_build_object('query', q, 'limit', 1))) FROM x WHERE d = 14;

-- refusals
CREATE FUNCTION pg_temp.fsq(body text) RETURNS text LANGUAGE sql AS $$
	SELECT pg_temp.err(format($q$SELECT ots.search('fs', 'ix', '{"query": {"functions_score_query": %s}}')$q$, body))
$$;
SELECT pg_temp.fsq('{"query": {"match_all_query": {}}}');
SELECT pg_temp.fsq('{"functions": []}');
SELECT pg_temp.fsq(format('{"functions": %s}', (SELECT jsonb_agg('{}'::jsonb) FROM generate_series(1, 33))));
SELECT pg_temp.fsq('{"functions": [{"random": {}, "decay": {}}]}');
SELECT pg_temp.fsq('{"functions": [{}], "score_mode": "MEDIAN"}');
SELECT pg_temp.fsq('{"functions": [{}], "combine_mode": "FCM_POWER"}');
SELECT pg_temp.fsq('{"functions": [{}], "score_mode": "SUM", "socre_mode": "MAX"}');
SELECT pg_temp.fsq('{"functions": [{"decay": {"field_name": "n", "param": {"origin": 0, "scale": 1e-101}}}]}');
SELECT pg_temp.fsq('{"functions": [{"weight": 0}]}');
SELECT pg_temp.fsq('{"functions": [{"field_value_factor": {"field_name": "city"}}]}');
SELECT pg_temp.fsq('{"functions": [{"field_value_factor": {"field_name": "d", "modifier": "FM_CUBE"}}]}');
SELECT pg_temp.fsq('{"functions": [{"decay": {"field_name": "n", "param": {"origin": 0}}}]}');
SELECT pg_temp.fsq('{"functions": [{"decay": {"field_name": "n", "param": {"origin": 0, "scale": 1}, "decay": 1}}]}');
SELECT pg_temp.fsq('{"functions": [{"decay": {"field_name": "n", "param_type": "DF_GEO_PARAM", "param": {"origin": 0, "scale": 1}}}]}');
SELECT pg_temp.fsq('{"functions": [{"decay": {"field_name": "at", "param": {"origin_long": 0, "scale": {"value": 1, "unit": "MONTH"}}}}]}');
SELECT pg_temp.fsq('{"functions": [{"decay": {"field_name": "loc", "param": {"origin": "91,0", "scale": 10}}}]}');
SELECT pg_temp.fsq('{"functions": [{"decay": {"field_name": "city", "param": {"origin": 0, "scale": 1}}}]}');
SELECT pg_temp.fsq('{"functions": [{"decay": {"field_name": "n", "math_function": "COSINE", "param": {"origin": 0, "scale": 1}}}]}');
SELECT pg_temp.err($$SELECT ots.search('fs', 'ix', '{"query": {"function_score_query": {"query": {"match_all_query": {}}}}}')$$);

-- the table goes: other tests list the database's tables
DROP VIEW m CASCADE;
SELECT ots.delete_search_index('fs', 'ix'), ots.delete_table('fs');
