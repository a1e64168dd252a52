-- A WHERE on a table's view planned through a search index
-- (src/view/search_plan.c): which conditions go through the index (the
-- plan reads "t$search$ix"), which do not, and the same rows either way
-- (ots.search_scan on and off); ots.search_match.  The differential suite
-- (test/differential/) compares random queries on sparse rows.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\i test/search_err.sql

SELECT ots.create_table('sp', 'id integer',
	defined_columns => 'city string, stars integer, price double, open boolean, name string, note string');
SELECT ots.create_search_index('sp', 'ix', '{"field_schemas": [
	{"field_name": "city", "field_type": "KEYWORD"}, {"field_name": "stars", "field_type": "LONG"},
	{"field_name": "price", "field_type": "DOUBLE"}, {"field_name": "open", "field_type": "BOOLEAN"},
	{"field_name": "name", "field_type": "TEXT"},
	{"field_name": "note", "field_type": "TEXT", "analyzer": "split", "analyzer_parameter": {"delimiter": ","}}]}');
SELECT count(ots.put_row('sp', jsonb_build_object('id', g), jsonb_strip_nulls(jsonb_build_object(
	'city', (ARRAY['hz', 'sh', 'bj', NULL])[1 + g % 4], 'stars', g % 5, 'price', g * 1.5,
	'open', g % 2 = 0, 'name', (ARRAY['Tea House', 'noodle bar', 'tea and noodle'])[1 + g % 3],
	'note', (ARRAY['a,b', 'b,c', 'c'])[1 + g % 3]))))
  FROM generate_series(1, 300) g;
ANALYZE "sp$search$ix";

-- does the plan read a search index?  The rows with and without it
CREATE FUNCTION pg_temp.via_index(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	line text;
	found boolean := false;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		found := found OR line LIKE '%$search$ix%';
	END LOOP;
	RETURN found;
END $$;
CREATE FUNCTION pg_temp.plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF) ' || q;
END $$;
CREATE FUNCTION pg_temp.both(q text) RETURNS TABLE (via_index boolean, rows bigint, same boolean) LANGUAGE plpgsql AS $$
DECLARE
	a text[];
	b text[];
BEGIN
	via_index := pg_temp.via_index(q);
	EXECUTE format('SELECT array_agg(x::text ORDER BY x::text) FROM (%s) x', q) INTO a;
	PERFORM set_config('ots.search_scan', 'off', true);
	EXECUTE format('SELECT array_agg(x::text ORDER BY x::text) FROM (%s) x', q) INTO b;
	PERFORM set_config('ots.search_scan', 'on', true);
	rows := coalesce(cardinality(a), 0);
	same := a IS NOT DISTINCT FROM b;
	RETURN NEXT;
END $$;

-- served: comparisons of typed columns with fixed values, IN, full text
SELECT * FROM pg_temp.both($$SELECT id FROM sp WHERE city = 'hz' AND stars >= 3$$);
SELECT * FROM pg_temp.both($$SELECT id FROM sp WHERE price < 20.5 AND open$$);
SELECT * FROM pg_temp.both($$SELECT id FROM sp WHERE open = false AND stars IN (1, 2)$$);
SELECT * FROM pg_temp.both($$SELECT id FROM sp WHERE city IN ('hz', 'bj') AND stars = ANY (ARRAY[0, 4])$$);
SELECT * FROM pg_temp.both($$SELECT id FROM sp WHERE ots.search_match(name, 'tea noodle')$$);
SELECT * FROM pg_temp.both($$SELECT id FROM sp WHERE ots.search_match(note, 'b', 'split', '{"delimiter": ","}')$$);
SELECT * FROM pg_temp.both($$SELECT id, city FROM sp WHERE stars > 2 AND (city = 'sh' OR price > 400)$$);
-- not served: another analyzer than the field's; ->> (a cell of another type); an OR alone;
-- a value of the row; a KEYWORD constant longer than a KEYWORD holds; a range on a String
SELECT * FROM pg_temp.both($$SELECT id FROM sp WHERE ots.search_match(note, 'b')$$);
SELECT * FROM pg_temp.both($$SELECT id FROM sp WHERE attributes ->> 'city' = 'hz'$$);
SELECT * FROM pg_temp.both($$SELECT id FROM sp WHERE city = 'hz' OR stars = 1$$);
SELECT * FROM pg_temp.both($$SELECT id FROM sp WHERE stars = id % 5$$);
SELECT * FROM pg_temp.both(format('SELECT id FROM sp WHERE city = %L', repeat('h', 5000)));
SELECT * FROM pg_temp.both($$SELECT id FROM sp WHERE city > 'h'$$);
-- the storage's own indexes serve the copies (compared in their collation, "C"), when
-- the storage is read on its own
SET enable_seqscan = off;
SET enable_nestloop = off;
SET enable_mergejoin = off;
SELECT pg_temp.via_index($$SELECT id FROM sp WHERE city = 'hz'$$) AS via_search,
	   (SELECT string_agg(p, ' ') FROM (SELECT regexp_replace(line, '^.*(Index Scan|Bitmap Index Scan) (using|on) ("sp\$search\$ix[^"]*").*$', '\1 \3') AS p
		  FROM pg_temp.plan($$SELECT id FROM sp WHERE city = 'hz'$$) line WHERE line ~ 'Index Scan (using|on) "sp\$search\$ix') x) AS storage_index;
SELECT (SELECT string_agg(p, ' ') FROM (SELECT regexp_replace(line, '^.*(Index Scan|Bitmap Index Scan) (using|on) ("sp\$search\$ix[^"]*").*$', '\1 \3') AS p
		  FROM pg_temp.plan($$SELECT id FROM sp WHERE ots.search_match(name, 'teahouse')$$) line WHERE line ~ 'Index Scan (using|on) "sp\$search\$ix') x) AS storage_index;
RESET enable_seqscan;
RESET enable_nestloop;
RESET enable_mergejoin;
-- a call the plain plan never makes raises nothing at planning (its analyzer is only compared)
SELECT * FROM pg_temp.both($$SELECT id FROM sp WHERE id = -5 AND ots.search_match(name, 'x', 'bogus')$$);
-- full text over many tokens: sorted, not compared pairwise
SELECT ots.search_match(t, '99999 5'), ots.search_match(t, 'x'), cardinality(ots.search_match_tokens(t || ' ' || t, NULL, NULL))
  FROM (SELECT string_agg(g::text, ' ') AS t FROM generate_series(1, 100000) g) x;
-- a secondary index serving the WHERE comes first (once built: while it is not, the search index)
SET ots.index_build_worker = off;
SELECT ots.create_index('sp', 'sp_city', '{city}');
SELECT pg_temp.via_index($$SELECT id FROM sp WHERE city = 'hz' AND stars >= 3$$) AS via_search;
CALL ots.build_index('sp', 'sp_city');
SELECT pg_temp.via_index($$SELECT id FROM sp WHERE city = 'hz' AND stars >= 3$$) AS via_search,
	   (SELECT count(*) FROM sp WHERE city = 'hz' AND stars >= 3) AS rows;
SELECT ots.delete_index('sp', 'sp_city');
RESET ots.index_build_worker;
-- a cell of another type than its column's (stored before the column was defined) is in
-- neither the typed column nor the index
SELECT ots.create_table('sp2', 'id integer');
SELECT ots.put_row('sp2', '{"id": 1}', '{"n": "5"}'), ots.put_row('sp2', '{"id": 2}', '{"n": 5}');
SELECT ots.add_defined_column('sp2', 'n integer');
SELECT ots.create_search_index('sp2', 'ix', '{"field_schemas": [{"field_name": "n", "field_type": "LONG"}]}');
SELECT id, n, attributes FROM sp2 WHERE n = 5;
SELECT * FROM pg_temp.both($$SELECT id FROM sp2 WHERE n = 5$$);
SELECT * FROM pg_temp.both($$SELECT id FROM sp2 WHERE n IS NULL$$);

-- ots.search_match: every token of the query, as the analyzer cuts both
SELECT ots.search_match('Green Tea, hot', 'tea green'), ots.search_match('Green Tea', 'tea milk'),
	   ots.search_match('Green Tea', ''), ots.search_match(NULL, 'tea'),
	   ots.search_match('a,b', 'b', 'split', '{"delimiter": ","}'), ots.search_match('杭州西湖', '西湖', 'max_word');
SELECT ots.search_match_tokens('Tea tea TEA green', NULL, NULL);
SELECT pg_temp.err($$SELECT ots.search_match('a', 'b', 'nope')$$);

SELECT ots.delete_search_index(t, 'ix'), ots.delete_table(t) FROM unnest(ARRAY['sp', 'sp2']) t;
