-- update_full_row: Tablestore's table option (TableOptions field 7, default
-- false, fixed at creation): an update writes each column it leaves again at
-- its version (unless the column has a cell that new already); with it a
-- table may have indexes, a TTL and updates together.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;
-- per column, the versions get_row returns (newest first) as value@ts
CREATE FUNCTION pg_temp.versions(t text, pk jsonb) RETURNS TABLE (col text, versions text)
LANGUAGE sql AS $$
	SELECT a.key, string_agg(c->>'value' || '@' || (c->>'ts'), ' ' ORDER BY (c->>'ts')::bigint DESC)
	  FROM ots.get_row(t, pk, max_versions => 5) g,
		   jsonb_each(g.attributes) a,
		   jsonb_array_elements(CASE jsonb_typeof(a.value) WHEN 'array' THEN a.value
								ELSE jsonb_build_array(a.value) END) c
	 GROUP BY a.key ORDER BY a.key
$$;
-- how many distinct newest versions the row's columns have, and how many columns
CREATE FUNCTION pg_temp.newest(t text, pk jsonb, OUT newest_versions bigint, OUT columns bigint)
LANGUAGE sql AS $$
	SELECT count(DISTINCT n.ts), count(*)
	  FROM (SELECT max((c->>'ts')::bigint) AS ts
			  FROM ots.get_row(t, pk, max_versions => 5) g,
				   jsonb_each(g.attributes) a,
				   jsonb_array_elements(CASE jsonb_typeof(a.value) WHEN 'array' THEN a.value
										ELSE jsonb_build_array(a.value) END) c
			 GROUP BY a.key) n
$$;

SELECT ots.create_table('ufr', 'pk string', max_versions => 5, max_version_offset => 9223372036854,
						partitions => 1, update_full_row => true);
SELECT ots.create_table('ufr_off', 'pk string', max_versions => 5, max_version_offset => 9223372036854,
						partitions => 1);
SELECT t, ots.describe_table(t) -> 'table_options' AS table_options FROM unnest(ARRAY['ufr', 'ufr_off']) t;

-- an update of a: b and c get their newest value again at a's version
SELECT t, (ots.put_row(t, '{"pk": "r"}',
  '{"a": {"value": 1, "ts": 1000}, "b": {"value": "x", "ts": 1000}, "c": [{"value": 5, "ts": 900}, {"value": 6, "ts": 1000}]}')).consumed
  FROM unnest(ARRAY['ufr', 'ufr_off']) t;
SELECT t, (ots.update_row(t, '{"pk": "r"}', put => '{"a": {"value": 2, "ts": 2000}}')).consumed
  FROM unnest(ARRAY['ufr', 'ufr_off']) t;
SELECT 'ufr' AS t, * FROM pg_temp.versions('ufr', '{"pk": "r"}');
SELECT 'ufr_off' AS t, * FROM pg_temp.versions('ufr_off', '{"pk": "r"}');
-- a column the update deletes is not written again; one it deletes a version
-- of gets the newest version left
SELECT consumed FROM ots.update_row('ufr', '{"pk": "r"}', put => '{"d": {"value": "new", "ts": 3000}}',
  delete_all => ARRAY['b'], "delete" => '{"c": 2000}');
SELECT * FROM pg_temp.versions('ufr', '{"pk": "r"}');
-- a column already at the version (or newer) is left as it is
SELECT consumed FROM ots.update_row('ufr', '{"pk": "r"}', put => '{"a": {"value": 3, "ts": 2500}}');
SELECT * FROM pg_temp.versions('ufr', '{"pk": "r"}');
-- without timestamps every column gets the update's server time; an
-- increment writes its own column at it
SELECT consumed FROM ots.update_row('ufr', '{"pk": "r"}', put => '{"a": 9}');
SELECT * FROM pg_temp.newest('ufr', '{"pk": "r"}');
SELECT consumed FROM ots.update_row('ufr', '{"pk": "r"}', increment => '{"n": 4}');
SELECT * FROM pg_temp.newest('ufr', '{"pk": "r"}');
SELECT attributes FROM ots.get_row('ufr', '{"pk": "r"}');
-- an update that only deletes fills the rest at the server's time too; one
-- that deletes from a missing row creates nothing
SELECT consumed FROM ots.update_row('ufr', '{"pk": "r"}', delete_all => ARRAY['d']);
SELECT array_agg(a.key ORDER BY a.key) AS columns FROM ots.get_row('ufr', '{"pk": "r"}') g, jsonb_object_keys(g.attributes) a(key);
SELECT consumed FROM ots.update_row('ufr', '{"pk": "none"}', delete_all => ARRAY['a']);
SELECT primary_key FROM ots.get_row('ufr', '{"pk": "none"}');

-- batches and the view's UPDATE update whole rows the same way
SELECT consumed FROM ots.put_row('ufr', '{"pk": "b"}', '{"a": {"value": 1, "ts": 1000}, "b": {"value": 2, "ts": 1000}}');
SELECT is_ok FROM ots.batch_write_row('[{"table_name": "ufr", "rows": [
	{"type": "UPDATE", "primary_key": {"pk": "b"}, "put": {"a": {"value": 10, "ts": 4000}}}]}]');
SELECT * FROM pg_temp.versions('ufr', '{"pk": "b"}');
SELECT consumed FROM ots.put_row('ufr', '{"pk": "v"}', '{"a": {"value": 1, "ts": 1000}, "b": {"value": 2, "ts": 1000}}');
UPDATE ufr SET attributes = attributes || '{"a": 7}' WHERE pk = 'v';
SELECT * FROM pg_temp.newest('ufr', '{"pk": "v"}');
SELECT attributes FROM ots.get_row('ufr', '{"pk": "v"}');

-- a wide row: every column, in its chunks, gets the version
SELECT consumed FROM ots.put_row('ufr', '{"pk": "wide"}',
	(SELECT jsonb_object_agg('w' || lpad(i::text, 2, '0'), jsonb_build_object('value', repeat(chr(64 + i), 100000), 'ts', 1000))
	   FROM generate_series(1, 24) i));
SELECT count(*) > 0 AS split FROM "ufr$chunk" WHERE pk = 'wide';
SELECT consumed FROM ots.update_row('ufr', '{"pk": "wide"}', put => '{"w01": {"value": "short", "ts": 5000}}');
SELECT count(*) AS columns,
	   count(*) FILTER (WHERE jsonb_array_length(a.value) = 2 AND a.value -> 0 ->> 'ts' = '5000'
						AND a.value -> 1 ->> 'ts' = '1000') AS at_both_versions,
	   count(*) FILTER (WHERE a.key <> 'w01' AND a.value -> 0 ->> 'value' = a.value -> 1 ->> 'value') AS same_value
  FROM ots.get_row('ufr', '{"pk": "wide"}', max_versions => 5) g, jsonb_each(g.attributes) a;

-- a view's upsert that finds its row updates it whole as well
SELECT consumed FROM ots.put_row('ufr', '{"pk": "u"}', '{"a": {"value": 1, "ts": 1000}, "b": {"value": 2, "ts": 1000}}');
INSERT INTO ufr (pk, attributes) VALUES ('u', '{"a": 5}')
	ON CONFLICT (pk) DO UPDATE SET attributes = EXCLUDED.attributes;
SELECT * FROM pg_temp.newest('ufr', '{"pk": "u"}');
SELECT attributes FROM ots.get_row('ufr', '{"pk": "u"}');

-- an increment goes after its column's newest cell, at the update's version
-- or later; the other columns take the version of the update's puts
SELECT consumed FROM ots.put_row('ufr', '{"pk": "i"}', '{"n": {"value": 1, "ts": 9000}, "b": {"value": 2, "ts": 1000}}');
SELECT consumed FROM ots.update_row('ufr', '{"pk": "i"}', put => '{"a": {"value": 3, "ts": 6000}}', increment => '{"n": 1}');
SELECT * FROM pg_temp.versions('ufr', '{"pk": "i"}') WHERE col <> 'n';
SELECT jsonb_path_query_array(attributes, '$.n[*].value') AS n, (attributes #>> '{n,0,ts}')::bigint > 9000 AS n_after_its_newest
  FROM ots.get_row('ufr', '{"pk": "i"}', max_versions => 5);

-- a cell stored before its column was defined, of another type, stays as it
-- is (it may not be written again); the row's other columns are filled
SELECT ots.create_table('ufr_def', 'pk string', max_versions => 5, max_version_offset => 9223372036854,
						partitions => 1, update_full_row => true);
SELECT consumed FROM ots.put_row('ufr_def', '{"pk": "d"}', '{"tag": {"value": 7, "ts": 1000}, "b": {"value": "x", "ts": 1000}}');
SELECT ots.add_defined_column('ufr_def', 'tag string');
SELECT consumed FROM ots.update_row('ufr_def', '{"pk": "d"}', put => '{"a": {"value": 1, "ts": 2000}}');
SELECT * FROM pg_temp.versions('ufr_def', '{"pk": "d"}');
SELECT ots.delete_table('ufr_def');

-- the stream records the cells an update fills as puts
SELECT ots.create_table('ufr_st', 'pk string', max_version_offset => 9223372036854, partitions => 1,
						update_full_row => true, stream_enabled => true);
SELECT consumed FROM ots.put_row('ufr_st', '{"pk": "s"}', '{"a": {"value": 1, "ts": 1000}, "b": {"value": 2, "ts": 1000}}');
SELECT consumed FROM ots.update_row('ufr_st', '{"pk": "s"}', put => '{"a": {"value": 3, "ts": 2000}}', delete_all => ARRAY['z']);
SELECT r ->> 'action_type' AS action, r -> 'columns' AS columns
  FROM jsonb_array_elements(ots.get_stream_record(ots.get_shard_iterator(
		(SELECT stream_id FROM ots.list_stream() WHERE table_name = 'ufr_st'), '0'), 10) -> 'stream_records') r;
SELECT ots.delete_table('ufr_st');

-- fixed at creation: update_table refuses another value, takes the same one
SELECT pg_temp.try($$SELECT ots.update_table('ufr', update_full_row => false)$$);
SELECT pg_temp.try($$SELECT ots.update_table('ufr_off', max_versions => 4, update_full_row => true)$$);
SELECT pg_temp.try($$SELECT ots.update_table('ufr', max_versions => 4, update_full_row => true)$$);
SELECT pg_temp.try($$SELECT ots.update_table('ufr', update_full_row => true)$$);
-- a missing table and an index get their own errors
SELECT pg_temp.try($$SELECT ots.update_table('ufr_none', update_full_row => true)$$);
SELECT ots.describe_table('ufr') -> 'table_options' AS table_options;
SELECT pg_temp.try($$SELECT ots.create_table('ufr_null', 'pk string', update_full_row => NULL)$$);

-- indexes: a TTL with updates is refused, unless the table updates whole rows
SELECT ots.create_table('ufr_ttl', 'pk string', time_to_live => 86400, partitions => 1,
						defined_columns => 'a string', update_full_row => true);
SELECT ots.create_table('ufr_ttl_off', 'pk string', time_to_live => 86400, partitions => 1,
						defined_columns => 'a string');
SELECT pg_temp.try($$SELECT ots.create_index('ufr_ttl', 'ufr_ttl_i', '{a}')$$);
SELECT pg_temp.try($$SELECT ots.create_index('ufr_ttl_off', 'ufr_ttl_off_i', '{a}')$$);
CALL ots.build_index('ufr_ttl', 'ufr_ttl_i');
SELECT consumed FROM ots.put_row('ufr_ttl', '{"pk": "x"}', '{"a": "one", "b": 1}');
SELECT consumed FROM ots.update_row('ufr_ttl', '{"pk": "x"}', put => '{"b": 2}');
SELECT a, pk FROM ufr_ttl_i;
SELECT pg_temp.try($$SELECT ots.update_table('ufr_ttl_i', update_full_row => false)$$);

SELECT ots.delete_table(t) FROM unnest(ARRAY['ufr', 'ufr_off', 'ufr_ttl', 'ufr_ttl_off']) t;
