-- A search index under the table's TTL (src/search/search_query.c, the
-- entry's times in src/search/search_entry.c): an expired cell's field is
-- not found, sorted by or aggregated, while its row, kept by a younger
-- cell or its marker, still is; a search answers as the table's view does,
-- checked on random rows before and after their old cells expire.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;

SELECT ots.create_table('sttl', 'id string', time_to_live => 86400, allow_update => false);
SELECT ots.create_search_index('sttl', 'ix', '{"field_schemas": [
	{"field_name": "a", "field_type": "KEYWORD"},
	{"field_name": "n", "field_type": "LONG"},
	{"field_name": "t", "field_type": "TEXT"},
	{"field_name": "tags", "field_type": "KEYWORD", "is_array": true}]}', time_to_live => 86400);

-- 60 rows: each field absent, written now, or written with a time that
-- expires 2.5 s from now (a row whose every cell is old lives on by its
-- marker, with no field)
SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint - 86400000 + 2500 AS old_ts \gset
SELECT setseed(0.35);
CREATE TEMP TABLE plan AS
SELECT g, (ARRAY['none', 'new', 'old'])[1 + floor(random() * 3)::int] AS fa,
	   (ARRAY['none', 'new', 'old'])[1 + floor(random() * 3)::int] AS fn,
	   (ARRAY['none', 'new', 'old'])[1 + floor(random() * 3)::int] AS ft,
	   (ARRAY['none', 'new', 'old'])[1 + floor(random() * 3)::int] AS fg,
	   (ARRAY['x', 'y', 'z'])[1 + floor(random() * 3)::int] AS a, floor(random() * 10)::int AS n,
	   (ARRAY['hello world', 'goodbye moon', 'hello moon'])[1 + floor(random() * 3)::int] AS t,
	   (ARRAY['["p", "q"]', '["q"]', '["p"]'])[1 + floor(random() * 3)::int] AS tags
  FROM generate_series(1, 60) g;
CREATE FUNCTION pg_temp.cell(how text, v jsonb, old_ts bigint) RETURNS jsonb LANGUAGE sql AS $$
	SELECT CASE how WHEN 'new' THEN v WHEN 'old' THEN jsonb_build_object('value', v, 'ts', old_ts) END
$$;
SELECT count(ots.put_row('sttl', jsonb_build_object('id', format('r%s', lpad(g::text, 2, '0'))),
		jsonb_strip_nulls(jsonb_build_object(
			'a', pg_temp.cell(fa, to_jsonb(a), :old_ts), 'n', pg_temp.cell(fn, to_jsonb(n), :old_ts),
			't', pg_temp.cell(ft, to_jsonb(t), :old_ts), 'tags', pg_temp.cell(fg, to_jsonb(tags), :old_ts)))))
  FROM plan;
SELECT fa, count(*) FROM plan GROUP BY fa ORDER BY fa;

-- each case: a search and the same question to the view (its live values)
CREATE TEMP TABLE cases (c int, query jsonb, model text);
INSERT INTO cases VALUES
	(1, '{"term_query": {"field_name": "a", "term": "x"}}', $$attributes ->> 'a' = 'x'$$),
	(2, '{"exists_query": {"field_name": "a"}}', $$attributes ? 'a'$$),
	(3, '{"bool_query": {"must_not_queries": [{"exists_query": {"field_name": "n"}}]}}', $$NOT attributes ? 'n'$$),
	(4, '{"range_query": {"field_name": "n", "range_from": 5, "include_lower": true}}', $$(attributes ->> 'n')::int >= 5$$),
	(5, '{"match_query": {"field_name": "t", "text": "hello"}}', $$attributes ->> 't' LIKE 'hello%'$$),
	(6, '{"match_phrase_query": {"field_name": "t", "text": "hello moon"}}', $$attributes ->> 't' = 'hello moon'$$),
	(7, '{"terms_query": {"field_name": "tags", "terms": ["p"]}}', $$(attributes ->> 'tags')::jsonb ? 'p'$$),
	(8, '{"bool_query": {"should_queries": [{"term_query": {"field_name": "a", "term": "y"}}, {"prefix_query": {"field_name": "t", "prefix": "good"}}], "minimum_should_match": 1}}',
		$$attributes ->> 'a' = 'y' OR attributes ->> 't' LIKE 'good%'$$),
	(9, '{"bool_query": {"must_not_queries": [{"term_query": {"field_name": "a", "term": "x"}}]}}', $$(attributes ->> 'a') IS DISTINCT FROM 'x'$$),
	(10, '{"match_all_query": {}}', 'true');
CREATE FUNCTION pg_temp.differing() RETURNS TABLE (c int, search text[], model text[]) LANGUAGE plpgsql AS $$
DECLARE
	k record;
BEGIN
	FOR k IN SELECT * FROM cases ORDER BY 1 LOOP
		c := k.c;
		SELECT array_agg(r #>> '{primary_key,id}' ORDER BY o) INTO search
		  FROM ots.search('sttl', 'ix', jsonb_build_object('query', k.query, 'limit', 100)) s,
			   jsonb_array_elements(s -> 'rows') WITH ORDINALITY x(r, o);
		EXECUTE format('SELECT array_agg(id ORDER BY id) FROM sttl WHERE %s', k.model) INTO model;
		IF search IS DISTINCT FROM model THEN
			RETURN NEXT;
		END IF;
	END LOOP;
END $$;
-- a sort by a field (missing last) and aggregations over its live values
CREATE FUNCTION pg_temp.sorted_and_counted() RETURNS TABLE (what text, same boolean) LANGUAGE sql AS $$
	SELECT 'sort by n', (SELECT array_agg(r #>> '{primary_key,id}' ORDER BY o)
		  FROM ots.search('sttl', 'ix', '{"query": {"match_all_query": {}}, "limit": 100,
			"sort": {"sorters": [{"field_sort": {"field_name": "n", "order": "DESC"}}]}}') s,
			   jsonb_array_elements(s -> 'rows') WITH ORDINALITY x(r, o))
		IS NOT DISTINCT FROM (SELECT array_agg(id ORDER BY (attributes ->> 'n')::int DESC NULLS LAST, id) FROM sttl)
	UNION ALL
	SELECT 'count and sum of n, rows per a', (SELECT jsonb_build_array(s #> '{aggs,0,value}', s #> '{aggs,1,value}', s #> '{group_bys,0,items}')
		  FROM ots.search('sttl', 'ix', '{"query": {"match_all_query": {}}, "limit": 0,
			"aggs": [{"name": "c", "type": "count", "field_name": "n"}, {"name": "s", "type": "sum", "field_name": "n"}],
			"group_bys": [{"name": "g", "type": "field", "field_name": "a"}]}') s)
		= (SELECT jsonb_build_array(count(attributes -> 'n'), coalesce(sum((attributes ->> 'n')::int), 0),
				  (SELECT jsonb_agg(jsonb_build_object('key', a, 'row_count', n) ORDER BY n DESC, a)
					 FROM (SELECT attributes ->> 'a' AS a, count(*) AS n FROM sttl WHERE attributes ? 'a' GROUP BY 1) g))
			 FROM sttl)
$$;

-- before the old cells expire: every field found
SELECT count(*) AS rows, count(*) FILTER (WHERE attributes ? 'a') AS with_a FROM sttl;
SELECT * FROM pg_temp.differing();
SELECT * FROM pg_temp.sorted_and_counted();
SELECT pg_sleep(3);
-- after: the old cells' fields are gone from the view and from every search
SELECT count(*) AS rows, count(*) FILTER (WHERE attributes ? 'a') AS with_a FROM sttl;
SELECT * FROM pg_temp.differing();
SELECT * FROM pg_temp.sorted_and_counted();
-- a row whose every cell expired is still found by match_all (its marker is young), by nothing else
SELECT id, attributes FROM sttl WHERE attributes = '{}' ORDER BY id LIMIT 3;

-- the purge takes the expired cells; the entries are then written again, and the same
CALL ots.purge('sttl');
SELECT * FROM pg_temp.differing();
SELECT * FROM pg_temp.sorted_and_counted();
SELECT count(*) AS stale_entries FROM "sttl$search$ix" WHERE "$fields_ts" <= :old_ts;

SELECT ots.delete_search_index('sttl', 'ix'), ots.delete_table('sttl');
