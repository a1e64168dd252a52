-- a nested_query's inner_hits (src/search/search_query.c, search_exec.c,
-- ots.search_read_inner_highlights): random nested queries over sparse
-- documents, each row's matching documents by offset, in order and paged,
-- a deeper nested query's within each, against a model over the table's
-- view; highlights of documents; refusals.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;

\i test/search_err.sql
CREATE FUNCTION pg_temp.pick(a anyarray) RETURNS anyelement LANGUAGE sql VOLATILE AS
	$$ SELECT a[1 + floor(random() * cardinality(a))::int] $$;

SELECT ots.create_table('ih', 'id integer');
SELECT ots.create_search_index('ih', 'ix', '{"field_schemas": [{"field_name": "d", "field_type": "NESTED", "field_schemas": [
	{"field_name": "k", "field_type": "KEYWORD"},
	{"field_name": "n", "field_type": "LONG"},
	{"field_name": "t", "field_type": "TEXT", "enable_highlighting": true},
	{"field_name": "e", "field_type": "NESTED", "field_schemas": [{"field_name": "k2", "field_type": "KEYWORD"}]}]}]}');
-- 50 rows of 0 to 4 documents, each of 0 to 3 inner documents, every member sometimes missing
SELECT setseed(0.11);
SELECT count(*) FROM generate_series(1, 50) g, ots.put_row('ih', jsonb_build_object('id', g), jsonb_build_object('d',
	(SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
			'k', CASE WHEN random() < 0.8 THEN pg_temp.pick(ARRAY['a', 'b', 'c']) END,
			'n', CASE WHEN random() < 0.8 THEN floor(random() * 10)::int END,
			't', CASE WHEN random() < 0.8 THEN pg_temp.pick(ARRAY['west lake', 'lake view road', 'a road', 'none']) END,
			'e', (SELECT jsonb_agg(jsonb_build_object('k2', pg_temp.pick(ARRAY['x', 'y'])))
					FROM generate_series(1, floor(random() * 4)::int + i * 0))))), '[]')
	   FROM generate_series(1, floor(random() * 5)::int + g * 0) i)::text));

-- the model: each row's documents as the view has them
CREATE TEMP VIEW docs AS
SELECT id, o.n - 1 AS offset_, o.doc FROM ih, jsonb_array_elements((attributes ->> 'd')::jsonb) WITH ORDINALITY AS o(doc, n);
-- 40 random nested queries: documents whose k is one value or whose n is at least one,
-- or which hold an inner document of k2; a page of them in either order; the inner ones' too
CREATE TEMP TABLE trials AS
SELECT t, pg_temp.pick(ARRAY['a', 'b', 'c']) AS k, floor(random() * 10)::int AS n, pg_temp.pick(ARRAY['x', 'y']) AS k2,
	   floor(random() * 3)::int AS "offset", 1 + floor(random() * 3)::int AS "limit", random() < 0.4 AS descending,
	   floor(random() * 2)::int AS inner_offset, 1 + floor(random() * 2)::int AS inner_limit
  FROM generate_series(1, 40) t;
CREATE FUNCTION pg_temp.query(r trials) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('nested_query', jsonb_build_object('path', 'd', 'score_mode', 'Min',
		'inner_hits', jsonb_build_object('offset', r."offset", 'limit', r."limit",
			'sort', jsonb_build_object('sorters', jsonb_build_array(jsonb_build_object('doc_sort',
				jsonb_build_object('order', CASE WHEN r.descending THEN 'DESC' ELSE 'ASC' END))))),
		'query', jsonb_build_object('bool_query', jsonb_build_object('should_queries', jsonb_build_array(
			jsonb_build_object('term_query', jsonb_build_object('field_name', 'd.k', 'term', r.k)),
			jsonb_build_object('range_query', jsonb_build_object('field_name', 'd.n', 'range_from', r.n, 'include_lower', true)),
			jsonb_build_object('nested_query', jsonb_build_object('path', 'd.e', 'query',
				jsonb_build_object('term_query', jsonb_build_object('field_name', 'd.e.k2', 'term', r.k2)),
				'inner_hits', jsonb_build_object('offset', r.inner_offset, 'limit', r.inner_limit))))))))
$$;
-- each row's hits as (offset, [inner offsets]) text
CREATE TEMP TABLE got AS
SELECT t, (r #>> '{primary_key,id}')::int AS id,
	   (SELECT string_agg(format('%s%s', h ->> 'offset', (SELECT array_agg((i ->> 'offset')::int) FROM jsonb_array_elements(h #> '{inner_hits,0,hits}') i)), ' '
						  ORDER BY o) FROM jsonb_array_elements(r #> '{inner_hits,0,hits}') WITH ORDINALITY AS x(h, o)) AS hits
  FROM trials tr, jsonb_array_elements(ots.search('ih', 'ix', jsonb_build_object('query', pg_temp.query(tr), 'limit', 100)) -> 'rows') r;
CREATE TEMP TABLE model AS
SELECT tr.t, m.id,
	   (SELECT string_agg(format('%s%s', p.offset_, (SELECT array_agg(e.n - 1 ORDER BY e.n) FROM
				(SELECT e.n FROM jsonb_array_elements(p.doc -> 'e') WITH ORDINALITY AS e(x, n) WHERE e.x ->> 'k2' = tr.k2
				  ORDER BY e.n OFFSET tr.inner_offset LIMIT tr.inner_limit) e)), ' '
						  ORDER BY CASE WHEN tr.descending THEN -p.offset_ ELSE p.offset_ END)
		  FROM (SELECT * FROM docs d WHERE d.id = m.id AND (d.doc ->> 'k' = tr.k OR (d.doc ->> 'n')::int >= tr.n OR
					EXISTS (SELECT 1 FROM jsonb_array_elements(d.doc -> 'e') x WHERE x ->> 'k2' = tr.k2))
				 ORDER BY CASE WHEN tr.descending THEN -d.offset_ ELSE d.offset_ END OFFSET tr."offset" LIMIT tr."limit") p) AS hits
  FROM trials tr, (SELECT DISTINCT id FROM docs) m
 WHERE EXISTS (SELECT 1 FROM docs d WHERE d.id = m.id AND (d.doc ->> 'k' = tr.k OR (d.doc ->> 'n')::int >= tr.n OR
			   EXISTS (SELECT 1 FROM jsonb_array_elements(d.doc -> 'e') x WHERE x ->> 'k2' = tr.k2)));
-- rows and hits that differ from the model (none), and how many there were
SELECT coalesce(g.t, o.t) AS t, coalesce(g.id, o.id) AS id, g.hits AS got, o.hits AS model
  FROM got g FULL JOIN model o ON o.t = g.t AND o.id = g.id
 WHERE g.hits IS DISTINCT FROM o.hits ORDER BY 1, 2 LIMIT 10;
SELECT count(*) AS rows, count(hits) AS with_hits, sum(array_length(string_to_array(hits, ' '), 1)) AS documents,
	   count(*) FILTER (WHERE hits ~ '\{') AS with_inner_documents
  FROM got;

-- documents' highlights, at both levels: the terms of the nested query's query on each path
SELECT count(*) AS put FROM ots.put_row('ih', '{"id": 100}', '{"d": "[{\"t\": \"west lake <b>\", \"e\": [{\"k2\": \"x\"}]}, {\"t\": \"lake view road\"}]"}');
SELECT jsonb_pretty(r -> 'inner_hits') AS inner_hits
  FROM jsonb_array_elements(ots.search('ih', 'ix', '{"query": {"nested_query": {"path": "d",
		"inner_hits": {"highlight": {"highlight_encoder": "HTML_MODE", "highlight_parameters": [{"field_name": "d.t", "pre_tag": "[", "post_tag": "]"}]}},
		"query": {"bool_query": {"must_queries": [{"match_query": {"field_name": "d.t", "text": "lake road"}},
			{"term_query": {"field_name": "d.t", "term": "west"}}]}}}}, "limit": 100}') -> 'rows') r
 WHERE r #>> '{primary_key,id}' = '100';

-- where inner hits are reported: not under a nested_query without inner_hits nor under
-- must_not (Elasticsearch's); a score sort then a doc_sort DESC is the documents' order backwards
SELECT r -> 'inner_hits' AS inner_hits
  FROM jsonb_array_elements(ots.search('ih', 'ix', '{"query": {"nested_query": {"path": "d", "query": {"nested_query": {"path": "d.e",
		"query": {"term_query": {"field_name": "d.e.k2", "term": "x"}}, "inner_hits": {}}}}}, "limit": 100}') -> 'rows') r
 WHERE r #>> '{primary_key,id}' = '100';
SELECT r -> 'inner_hits' AS inner_hits
  FROM jsonb_array_elements(ots.search('ih', 'ix', '{"query": {"bool_query": {
		"should_queries": [{"nested_query": {"path": "d", "query": {"match_all_query": {}},
			"inner_hits": {"sort": {"sorters": [{"score_sort": {"order": "DESC"}}, {"doc_sort": {"order": "DESC"}}]},
						   "highlight": {"highlight_parameters": [{"field_name": "d.t"}]}}}}],
		"must_not_queries": [{"nested_query": {"path": "d", "query": {"term_query": {"field_name": "d.k", "term": "zz"}}, "inner_hits": {}}}]}},
	"limit": 100}') -> 'rows') r
 WHERE r #>> '{primary_key,id}' = '100';

-- refusals
CREATE FUNCTION pg_temp.ihq(q text) RETURNS text LANGUAGE sql AS $$
	SELECT pg_temp.err(format($q$SELECT ots.search('ih', 'ix', '{"query": %s}')$q$, q))
$$;
SELECT pg_temp.ihq('{"nested_query": {"path": "d.e", "query": {"match_all_query": {}}, "inner_hits": {}}}');
SELECT pg_temp.ihq('{"nested_query": {"path": "d", "query": {"match_all_query": {}}, "inner_hits": {"limit": 101}}}');
SELECT pg_temp.ihq('{"nested_query": {"path": "d", "query": {"match_all_query": {}}, "inner_hits": {"sort": {"sorters": [{"field_sort": {"field_name": "d.n"}}]}}}}');
SELECT pg_temp.ihq('{"nested_query": {"path": "d", "query": {"match_all_query": {}}, "inner_hits": {"highlight": {"highlight_parameters": [{"field_name": "d.e.k2"}]}}}}');
SELECT pg_temp.ihq('{"nested_query": {"path": "d", "query": {"match_all_query": {}}, "inner_hits": {"size": 3}}}');
SELECT pg_temp.ihq('{"nested_query": {"path": "d", "query": {"match_all_query": {}}, "inner_hits": {"sort": {"sorters": [{"doc_sort": {}, "score_sort": {}}]}}}}');
-- inner_hits are checked where they are not reported too (a function's filter)
SELECT pg_temp.ihq('{"functions_score_query": {"functions": [{"filter": {"nested_query": {"path": "d", "query": {"match_all_query": {}},
	"inner_hits": {"limit": 100000}}}}]}}');
SELECT pg_temp.ihq('{"bool_query": {"must_queries": [{"nested_query": {"path": "d", "query": {"match_all_query": {}}, "inner_hits": {}}},
	{"nested_query": {"path": "d", "query": {"match_all_query": {}}, "inner_hits": {}}}]}}');

DROP VIEW docs;
SELECT ots.delete_search_index('ih', 'ix'), ots.delete_table('ih');
