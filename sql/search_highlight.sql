-- highlight (src/search/highlight.c, search_query.c): random texts and
-- match queries, the whole text highlighted (number_of_fragments 0)
-- against a model with regular expressions, in plain and HTML modes;
-- fragments by size, number and order; the query's terms of every kind;
-- refusals.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;

\i test/search_err.sql
CREATE FUNCTION pg_temp.pick(a anyarray) RETURNS anyelement LANGUAGE sql VOLATILE AS
	$$ SELECT a[1 + floor(random() * cardinality(a))::int] $$;

SELECT ots.create_table('hl', 'id integer');
SELECT ots.create_search_index('hl', 'ix', '{"field_schemas": [
	{"field_name": "t", "field_type": "TEXT", "enable_highlighting": true},
	{"field_name": "plain", "field_type": "TEXT"},
	{"field_name": "k", "field_type": "KEYWORD"},
	{"field_name": "fz", "field_type": "TEXT", "analyzer": "fuzzy", "analyzer_parameter": {"min_chars": 1, "max_chars": 3}, "enable_highlighting": true},
	{"field_name": "mw", "field_type": "TEXT", "analyzer": "max_word", "enable_highlighting": true},
	{"field_name": "docs", "field_type": "NESTED", "field_schemas": [
		{"field_name": "s", "field_type": "TEXT", "enable_highlighting": true}]}]}');
-- 60 texts of 1 to 30 words, some with markup, capitals and punctuation
SELECT setseed(0.5);
SELECT count(*) FROM generate_series(1, 60) g, ots.put_row('hl', jsonb_build_object('id', g), jsonb_build_object(
	't', (SELECT string_agg(pg_temp.pick(ARRAY['fox', 'Fox', 'dog', 'tea', 'house', 'a', '<b>x</b>', 'R&D', 'it''s', 'x/y',
												'"q"', 'noodle', 'bar', 'TEA.', '(fox)']),
						   pg_temp.pick(ARRAY[' ', ' ', ', ', ' - '])) FROM generate_series(1, 1 + floor(random() * 30)::int + g * 0)),
	'plain', 'fox', 'k', 'fox'));

-- the model: the text's words (runs of letters and digits) that are query words, wrapped; in HTML mode the rest escaped
CREATE FUNCTION pg_temp.model(t text, words text[], html boolean) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT regexp_replace(CASE WHEN html THEN replace(replace(replace(replace(replace(replace(t, '&', '&amp;'), '<', '&lt;'),
							   '>', '&gt;'), '"', '&quot;'), '''', '&#x27;'), '/', '&#x2F;') ELSE t END,
						  '(?<![[:alnum:]#])(' || array_to_string(words, '|') || ')(?![[:alnum:]])', '<<\1>>', 'gi')
$$;
-- 60 random match queries of 1 to 3 words, plain or HTML, the whole text as one fragment
CREATE TEMP TABLE trials AS
SELECT q, ARRAY(SELECT pg_temp.pick(ARRAY['fox', 'tea', 'house', 'noodle', 'bar', 'x', 'd', 'dog', 's', 'q'])
				  FROM generate_series(1, 1 + floor(random() * 3)::int + q * 0)) AS words,
	   random() < 0.5 AS html
  FROM generate_series(1, 60) q;
CREATE TEMP TABLE got AS
SELECT q, (r #>> '{primary_key,id}')::int AS id, r #>> '{highlight,t,0}' AS fragment, jsonb_array_length(r #> '{highlight,t}') AS n
  FROM trials, jsonb_array_elements(ots.search('hl', 'ix', jsonb_build_object(
		'query', jsonb_build_object('match_query', jsonb_build_object('field_name', 't', 'text', array_to_string(words, ' '))),
		'limit', 100,
		'highlight', jsonb_build_object('highlight_encoder', CASE WHEN html THEN 'HTML_MODE' ELSE 'PLAIN_MODE' END,
			'highlight_parameters', jsonb_build_array(jsonb_build_object('field_name', 't', 'number_of_fragments', 0,
																		 'pre_tag', '<<', 'post_tag', '>>'))))) -> 'rows') r;
-- rows whose fragment differs from the model's (none), and how many rows and words were highlighted
SELECT g.q, g.id, g.fragment, pg_temp.model(attributes ->> 't', words, html) AS model
  FROM got g JOIN trials USING (q) JOIN hl ON (hl.id = g.id)
 WHERE g.fragment IS DISTINCT FROM pg_temp.model(attributes ->> 't', words, html) OR g.n <> 1 LIMIT 5;
SELECT count(*) AS rows, count(DISTINCT q) AS queries, sum((SELECT count(*) FROM regexp_matches(fragment, '<<', 'g'))) AS words,
	   count(*) FILTER (WHERE fragment LIKE '%&lt;%') AS escaped
  FROM got;

-- fragments of about fragment_size characters at token edges, those with terms, so many, in the text's order or the best first
SELECT count(*) AS put FROM ots.put_row('hl', '{"id": 100}', '{"t": "one fox here. nothing there at all, really nothing. again fox fox! the end."}');
SELECT o, ots.search('hl', 'ix', jsonb_build_object('query', '{"term_query": {"field_name": "t", "term": "fox"}}'::jsonb, 'limit', 100,
		'highlight', jsonb_build_object('highlight_parameters', jsonb_build_array(jsonb_build_object('field_name', 't',
			'fragment_size', 20) || o)))) -> 'rows' @? '$[*] ? (@.primary_key.id == 100)' AS found,
	   jsonb_path_query(ots.search('hl', 'ix', jsonb_build_object('query', '{"term_query": {"field_name": "t", "term": "fox"}}'::jsonb, 'limit', 100,
		'highlight', jsonb_build_object('highlight_parameters', jsonb_build_array(jsonb_build_object('field_name', 't',
			'fragment_size', 20) || o)))), '$.rows[*] ? (@.primary_key.id == 100).highlight.t') AS fragments
  FROM unnest(ARRAY['{}', '{"number_of_fragments": 1}', '{"fragments_order": "SCORE"}', '{"number_of_fragments": 1, "fragments_order": "SCORE"}']::jsonb[]) o;

-- the terms of every kind of query on the field: bool's must, should and filter (not must_not), terms, const_score
-- (row 100: one fox here. nothing there at all, really nothing. again fox fox! the end.)
SELECT jsonb_path_query(ots.search('hl', 'ix', '{"query": {"bool_query": {
		"must_queries": [{"term_query": {"field_name": "t", "term": "here"}}],
		"should_queries": [{"match_phrase_query": {"field_name": "t", "text": "the end"}}],
		"filter_queries": [{"const_score_query": {"filter": {"terms_query": {"field_name": "t", "terms": ["again", "one"]}}}}],
		"must_not_queries": [{"term_query": {"field_name": "t", "term": "absent"}}]}},
	"highlight": {"highlight_parameters": [{"field_name": "t", "number_of_fragments": 0, "pre_tag": "[", "post_tag": "]"}]}}'),
	'$.rows[*].highlight.t[0]') AS terms_of_every_kind;
-- a row whose text holds no term has no highlight; a row without the field neither
SELECT count(*) AS put FROM ots.put_row('hl', '{"id": 101}', '{"k": "nothing"}');
SELECT r #>> '{primary_key,id}' AS id, r ? 'highlight' AS highlighted
  FROM jsonb_array_elements(ots.search('hl', 'ix', '{"query": {"bool_query": {"should_queries": [
		{"term_query": {"field_name": "k", "term": "nothing"}}, {"term_query": {"field_name": "t", "term": "again"}}]}},
	"highlight": {"highlight_parameters": [{"field_name": "t"}]}}') -> 'rows') r;

-- overlapping tokens (fuzzy's n-grams, max_word's pairs): the terms they make one span, never cut by a fragment's edge
SELECT count(*) AS put FROM ots.put_row('hl', '{"id": 102}', '{"fz": "abcdefghij", "mw": "中华人民共和国"}');
SELECT q ->> 'f' AS field, q ->> 'text' AS text, q -> 'size' AS size, jsonb_path_query(ots.search('hl', 'ix', jsonb_build_object(
		'query', jsonb_build_object('match_phrase_query', jsonb_build_object('field_name', q ->> 'f', 'text', q ->> 'text')),
		'highlight', jsonb_build_object('highlight_parameters', jsonb_build_array(jsonb_build_object('field_name', q ->> 'f',
			'fragment_size', q -> 'size', 'number_of_fragments', q -> 'n'))))), '$.rows[*].highlight.*') AS fragments
  FROM unnest(ARRAY['{"f": "fz", "text": "cde", "size": 100, "n": 0}', '{"f": "fz", "text": "cde", "size": 4, "n": 5}',
					'{"f": "mw", "text": "华人", "size": 100, "n": 0}', '{"f": "mw", "text": "华人", "size": 3, "n": 5}']::jsonb[]) q;

-- refusals
CREATE FUNCTION pg_temp.hlq(h text) RETURNS text LANGUAGE sql AS $$
	SELECT pg_temp.err(format($q$SELECT ots.search('hl', 'ix', '{"query": {"match_all_query": {}}, "highlight": %s}')$q$, h))
$$;
SELECT pg_temp.hlq('{"highlight_parameters": [{"field_name": "plain"}]}');
SELECT pg_temp.hlq('{"highlight_parameters": [{"field_name": "k"}]}');
SELECT pg_temp.hlq('{"highlight_parameters": [{"field_name": "nope"}]}');
SELECT pg_temp.hlq('{"highlight_parameters": [{"field_name": "docs.s"}]}');
SELECT pg_temp.hlq('{"highlight_parameters": []}');
SELECT pg_temp.hlq('{"highlight_parameters": [{"field_name": "t"}, {"field_name": "t", "pre_tag": "["}]}');
SELECT pg_temp.hlq('{"highlight_parameters": [{"field_name": "t"}], "highlight_encoder": "XML_MODE"}');
SELECT pg_temp.hlq('{"highlight_parameters": [{"field_name": "t", "fragments_order": "RANDOM"}]}');
SELECT pg_temp.hlq('{"highlight_parameters": [{"field_name": "t", "fragment_size": 0}]}');
SELECT pg_temp.hlq('{"highlight_parameters": [{"field_name": "t", "no_match_size": 10}]}');
SELECT pg_temp.hlq(format('{"highlight_parameters": [{"field_name": "t", "pre_tag": "%s"}]}', repeat('x', 1025)));

DROP FUNCTION pg_temp.model(text, text[], boolean);
SELECT ots.delete_search_index('hl', 'ix'), ots.delete_table('hl');
