-- A search index made over a table larger than ots.search_backfill_blocks
-- (src/sql/70_search.sql, the build in src/index/index_build.c and
-- src/search/search_write.c): it starts in sync phase FULL, refuses
-- searches, and is filled in committed batches by CALL
-- ots.build_search_index or the owner's build worker while writers go on;
-- then it answers as a model does (the same rows queried with plain SQL).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;

\i test/search_err.sql

SELECT ots.create_table('sb', 'id integer', partitions => 2, max_versions => 1);
SELECT count(ots.put_row('sb', jsonb_build_object('id', g),
		jsonb_build_object('city', 'c' || g % 7, 'n', g, 'note', format('w%s w%s', g % 5, g % 3))))
  FROM generate_series(1, 3000) g;

-- a city's first 100 rows by key and its count: the model, from the table's view
CREATE FUNCTION pg_temp.model(c text) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce((SELECT string_agg(id::text, ' ' ORDER BY id)
					   FROM (SELECT id FROM sb WHERE attributes ->> 'city' = c ORDER BY id LIMIT 100) x), '')
		   || ' | ' || (SELECT count(*) FROM sb WHERE attributes ->> 'city' = c)
$$;
-- and through the index
CREATE FUNCTION pg_temp.found(c text) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce((SELECT string_agg(r -> 'primary_key' ->> 'id', ' ' ORDER BY n)
					   FROM jsonb_array_elements(s -> 'rows') WITH ORDINALITY AS x(r, n)), '')
		   || ' | ' || (s ->> 'total_count')
	  FROM ots.search('sb', 'ix', jsonb_build_object(
			'query', jsonb_build_object('term_query', jsonb_build_object('field_name', 'city', 'term', c)),
			'limit', 100, 'get_total_count', true)) s
$$;
-- the cities (and one of none) whose search differs from the model, the
-- index's entries and the table's rows
CREATE FUNCTION pg_temp.differing() RETURNS TABLE (cities_differing bigint, entries bigint, table_rows bigint)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY
	SELECT (SELECT count(*) FROM generate_series(0, 7) c WHERE pg_temp.found('c' || c) IS DISTINCT FROM pg_temp.model('c' || c)),
		   (SELECT count(*) FROM public."sb$search$ix"),
		   (SELECT count(*) FROM sb);
END $$;

-- the table is past the limit: the index starts FULL, its storage empty
SET ots.index_build_worker = off;
SET ots.search_backfill_blocks = 0;
SELECT ots.create_search_index('sb', 'ix', '{"field_schemas": [
	{"field_name": "city", "field_type": "KEYWORD"}, {"field_name": "n", "field_type": "LONG"},
	{"field_name": "note", "field_type": "TEXT"}]}');
SELECT ots.describe_search_index('sb', 'ix') -> 'sync_stat' ->> 'sync_phase' AS phase,
	   (SELECT count(*) FROM public."sb$search$ix") AS entries;
SELECT sync_phase FROM ots.list_search_index('sb') l JOIN ots.search_indexes s USING (table_name, index_name);
-- searches are refused until it is built; its storage's comment carries the phase (a dump restores it FULL)
SELECT pg_temp.err($$SELECT ots.search('sb', 'ix', '{"query": {"match_all_query": {}}}')$$);
SELECT obj_description('public."sb$search$ix"'::regclass) ~ '"sync_phase": "FULL"' AS carried;
-- a WHERE on the view that the index would serve reads the table instead
SELECT count(*) FROM sb WHERE attributes ->> 'city' = 'c3';
EXPLAIN (COSTS OFF) SELECT count(*) FROM sb WHERE ots.search_match(attributes ->> 'note', 'w1');

-- writers go on and keep the index themselves: an update, a delete, a new row
SELECT consumed FROM ots.update_row('sb', '{"id": 1}', put => '{"city": "c6"}');
SELECT ots.delete_row('sb', '{"id": 2}');
SELECT ots.put_row('sb', '{"id": 5000}', '{"city": "c0", "n": 5000}');
SELECT count(*) AS entries_before_build FROM public."sb$search$ix";

-- the launch belongs to the creating transaction only
SELECT pg_temp.err($$SELECT ots.search_build_launch('public."sb$search$ix"')$$);
-- a role that does not own the table may neither build nor mark it built
CREATE ROLE sb_other;
GRANT SELECT ON sb TO sb_other;
SET ROLE sb_other;
SELECT pg_temp.err($$SELECT ots.search_backfill_batch('public."sb$search$ix"', 'public."sb$p0"', 0, 64, 0)$$);
SELECT pg_temp.err($$SELECT ots.catalog_set_search_index_built('public', 'sb', 'ix')$$);
SELECT pg_temp.err($$SELECT ots.search_build_begin('public."sb$search$ix"')$$);
SELECT pg_temp.err($$SELECT ots.search_build_end('public."sb$search$ix"')$$);
SELECT pg_temp.err($$SELECT ots.search_build_launch('public."sb$search$ix"')$$);
SELECT pg_temp.err($$CALL ots.build_search_index('sb', 'ix')$$);
RESET ROLE;
SELECT ots.describe_search_index('sb', 'ix') -> 'sync_stat' ->> 'sync_phase' AS phase,
	   (SELECT count(*) FROM public."sb$search$ix") AS entries;

-- the build: committed batches, then INCR; the writers' entries stay theirs
CALL ots.build_search_index('sb', 'ix');
SELECT ots.describe_search_index('sb', 'ix') -> 'sync_stat' ->> 'sync_phase' AS phase;
SELECT obj_description('public."sb$search$ix"'::regclass) ~ 'sync_phase' AS still_carried;
SELECT * FROM pg_temp.differing();
SELECT (SELECT n FROM public."sb$search$ix" WHERE id = 5000) AS new_row, (SELECT city FROM public."sb$search$ix" WHERE id = 1) AS updated,
	   (SELECT count(*) FROM public."sb$search$ix" WHERE id = 2) AS deleted;
-- a second build of a built index does nothing
CALL ots.build_search_index('sb', 'ix');
SELECT * FROM pg_temp.differing();
SELECT ots.delete_search_index('sb', 'ix');

-- a build knows its index by its storage's OID: an index deleted and made
-- again meanwhile (the same storage name) is another, which the old build's
-- steps leave alone
SELECT ots.create_search_index('sb', 'ix', '{"field_schemas": [{"field_name": "city", "field_type": "KEYWORD"}]}');
SELECT 'public."sb$search$ix"'::regclass::oid AS old_storage \gset
SELECT count(*) AS leaves FROM ots.search_build_begin(:old_storage::regclass);
SELECT next_block AS next FROM ots.search_backfill_batch(:old_storage::regclass, 'public."sb$p0"', 0, 1, 0);
SELECT count(*) AS entries FROM public."sb$search$ix";
SELECT ots.delete_search_index('sb', 'ix');
SELECT ots.create_search_index('sb', 'ix', '{"field_schemas": [{"field_name": "city", "field_type": "KEYWORD"}]}');
SELECT 'public."sb$search$ix"'::regclass::oid <> :old_storage AS new_storage;
SELECT next_block AS next FROM ots.search_backfill_batch(:old_storage::regclass, 'public."sb$p1"', 0, 64, 0);
SELECT ots.search_build_end(:old_storage::regclass);
SELECT sync_phase, (SELECT count(*) FROM public."sb$search$ix") AS entries FROM ots.search_indexes WHERE table_name = 'sb';
CALL ots.build_search_index('sb', 'ix');
SELECT * FROM pg_temp.differing();
SELECT ots.delete_search_index('sb', 'ix');

-- the owner's build worker, started when the creating transaction commits
SET ots.index_build_worker = on;
SELECT ots.create_search_index('sb', 'ix', '{"field_schemas": [
	{"field_name": "city", "field_type": "KEYWORD"}, {"field_name": "n", "field_type": "LONG"}]}');
SET ots.index_build_worker = off;
DO $$
BEGIN
	FOR i IN 1 .. 600 LOOP
		EXIT WHEN (SELECT sync_phase FROM ots.search_indexes WHERE table_name = 'sb') = 'INCR';
		PERFORM pg_sleep(0.1);
	END LOOP;
END
$$;
SELECT ots.describe_search_index('sb', 'ix') -> 'sync_stat' ->> 'sync_phase' AS phase;
SELECT * FROM pg_temp.differing();
SELECT ots.delete_search_index('sb', 'ix');

-- an index made from another may be built in the background too; no switch until it is built
SET ots.index_build_worker = off;
SELECT ots.create_search_index('sb', 'ix', '{"field_schemas": [{"field_name": "city", "field_type": "KEYWORD"}]}');
CALL ots.build_search_index('sb', 'ix');
SELECT ots.create_search_index('sb', 'ix_reindex', '{"field_schemas": [{"field_name": "n", "field_type": "LONG"}]}', source_index_name => 'ix');
SELECT pg_temp.err($$SELECT ots.update_search_index('sb', 'ix', switch_index_name => 'ix_reindex')$$);
-- searches of ix that its weights send to ix_reindex stay with ix while that is built
SELECT ots.update_search_index('sb', 'ix', query_flow_weights => '[{"index_name": "ix", "weight": 0}, {"index_name": "ix_reindex", "weight": 100}]');
SELECT * FROM pg_temp.differing();
CALL ots.build_search_index('sb', 'ix_reindex');
SELECT ots.update_search_index('sb', 'ix', switch_index_name => 'ix_reindex');
SELECT ots.search('sb', 'ix', '{"query": {"range_query": {"field_name": "n", "range_from": 2990}}, "get_total_count": true}') -> 'total_count' AS n_above_2990,
	   (SELECT count(*) FROM sb WHERE (attributes ->> 'n')::int > 2990) AS model;
SELECT ots.delete_search_index('sb', 'ix_reindex'), ots.delete_search_index('sb', 'ix');
SET ots.index_build_worker = on;

-- within the limit, the index is filled in its creating transaction, as before
RESET ots.search_backfill_blocks;
SELECT ots.create_search_index('sb', 'ix', '{"field_schemas": [{"field_name": "city", "field_type": "KEYWORD"}]}');
SELECT ots.describe_search_index('sb', 'ix') -> 'sync_stat' ->> 'sync_phase' AS phase;
SELECT * FROM pg_temp.differing();
SELECT pg_temp.err($$CALL ots.build_search_index('sb', 'no_such')$$);
SELECT ots.delete_search_index('sb', 'ix');
SELECT ots.delete_table('sb');
DROP ROLE sb_other;
