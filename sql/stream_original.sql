-- stream_original: a stream's original columns (Tablestore's
-- OriginColumnsToGet).  create_table and update_table keep them, checked,
-- distinct and sorted; describe_table shows them; the record of a change of
-- a row that existed carries, as "original_columns", the newest visible
-- version of each before the change.  A model: random writes through every
-- row call, each record's original columns against what get_row read just
-- before the write.  Disabling the stream drops them; a restore keeps them
-- (test/dump); otsd's origin_record: test/gateway.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

-- a statement's SQLSTATE and message, or ok
CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;
-- every record of one-shard table tbl not read yet, in order
CREATE TABLE so_cursor (tbl text PRIMARY KEY, iter text);
CREATE FUNCTION pg_temp.news(tname text) RETURNS SETOF jsonb LANGUAGE plpgsql AS $$
DECLARE
	it text;
	res jsonb;
BEGIN
	SELECT iter INTO it FROM so_cursor c WHERE c.tbl = tname;
	it := coalesce(it, ots.get_shard_iterator((SELECT stream_id FROM ots.list_stream(tname)), '0'));
	LOOP
		res := ots.get_stream_record(it, 7);
		it := res ->> 'next_shard_iterator';
		EXIT WHEN jsonb_array_length(res -> 'stream_records') = 0;
		RETURN QUERY SELECT r - 'sequence_info' FROM jsonb_array_elements(res -> 'stream_records') r;
	END LOOP;
	INSERT INTO so_cursor AS c VALUES (tname, it) ON CONFLICT ON CONSTRAINT so_cursor_pkey DO UPDATE SET iter = excluded.iter;
END
$$;
-- a record as shown: server timestamps (after 2020) as "now"
CREATE FUNCTION pg_temp.shown(r jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_build_object('action', r ->> 'action_type', 'pk', r -> 'primary_key',
							  'original', (SELECT jsonb_agg(CASE WHEN (o ->> 'timestamp')::bigint > 1577836800000
																 THEN jsonb_set(o, '{timestamp}', '"now"') ELSE o END
															ORDER BY i)
											 FROM jsonb_array_elements(r -> 'original_columns') WITH ORDINALITY e(o, i)))
$$;

--
-- the setting: kept sorted and distinct, shown by describe_table
--
SELECT ots.create_table('so', 'k string', max_versions => 3, partitions => 1,
                        max_version_offset => 9223372036854, defined_columns => 'a integer',
                        stream_enabled => true, stream_original_columns => '{c, a, c}');
SELECT ots.describe_table('so') -> 'stream_details' -> 'original_columns' AS original;
SELECT stream_original_columns FROM ots.tables WHERE table_name = 'so';

-- refused, each changing nothing
SELECT pg_temp.try($$SELECT ots.update_table('so', stream_original_columns => '{k}')$$) AS key_column;
SELECT pg_temp.try($$SELECT ots.update_table('so', stream_original_columns => '{"bad name"}')$$) AS bad_name;
SELECT pg_temp.try($$SELECT ots.update_table('so', stream_original_columns => '{a, NULL}')$$) AS null_name;
SELECT pg_temp.try($$SELECT ots.update_table('so', stream_original_columns => '{{a}, {b}}')$$) AS two_dimensions;
SELECT pg_temp.try(format('SELECT ots.update_table(%L, stream_original_columns => %L)', 'so',
                          (SELECT array_agg('c' || g) FROM generate_series(1, 33) g))) AS too_many;
SELECT pg_temp.try(format('SELECT ots.update_table(%L, stream_original_columns => %L)', 'so',
                          (SELECT array_agg('c' || g || repeat('n', 40)) FROM generate_series(10, 34) g))) AS too_long;
SELECT count(*) FILTER (WHERE ok = 'ok') AS thirty_two_ok
  FROM (SELECT pg_temp.try(format('SELECT ots.create_table(%L, %L, partitions => 1, stream_enabled => true, stream_original_columns => %L)',
                                  'so32', 'k string', (SELECT array_agg('c' || g) FROM generate_series(1, 32) g))) ok) x;
SELECT pg_temp.try($$SELECT ots.create_table('so_off', 'k string', stream_original_columns => '{a}')$$) AS without_stream;
SELECT pg_temp.try($$SELECT ots.create_table('so_off', 'k string')$$) AS plain_table;
SELECT pg_temp.try($$SELECT ots.update_table('so_off', stream_original_columns => '{a}')$$) AS no_stream;
SELECT pg_temp.try($$SELECT ots.update_table('so', stream_enabled => false, stream_original_columns => '{a}')$$) AS disabling_with;
SELECT ots.describe_table('so') -> 'stream_details' -> 'original_columns' AS unchanged;

--
-- records: the values before the change, newest visible version, by name
--
SELECT ots.put_row('so', '{"k": "r"}', '{"a": [{"value": 1, "ts": 1000}, {"value": 2, "ts": 2000}], "b": 3, "c": "x"}');
SELECT ots.update_row('so', '{"k": "r"}', put => '{"a": 4}', "delete" => '{"c": [0]}', delete_all => '{b}');
SELECT ots.put_row('so', '{"k": "r"}', '{"b": 5}');
SELECT ots.update_row('so', '{"k": "r"}', put => '{"c": {"value": "y", "ts": 7000}}');
SELECT ots.delete_row('so', '{"k": "r"}');
SELECT ots.put_row('so', '{"k": "r"}', '{"a": 6}');
SELECT pg_temp.shown(r) FROM pg_temp.news('so') r;

-- only existing, visible cells: a deleted version is no original value
SELECT ots.update_row('so', '{"k": "r"}', "delete" => jsonb_build_object('a', jsonb_build_array(
	(ots.get_row('so', '{"k": "r"}', with_timestamps => true)).attributes -> 'a' -> 0 -> 'ts')));
SELECT ots.update_row('so', '{"k": "r"}', put => '{"b": 7}');
SELECT pg_temp.shown(r) FROM pg_temp.news('so') r;

-- changing them applies to the next records; '{}' clears them
SELECT ots.update_table('so', stream_original_columns => '{b}');
SELECT ots.describe_table('so') -> 'stream_details' -> 'original_columns' AS changed;
SELECT ots.put_row('so', '{"k": "r"}', '{"a": 8}');
SELECT ots.update_table('so', stream_original_columns => '{}');
SELECT ots.describe_table('so') -> 'stream_details' ? 'original_columns' AS still_shown;
SELECT ots.put_row('so', '{"k": "r"}', '{"b": 9}');
SELECT pg_temp.shown(r) FROM pg_temp.news('so') r;

-- disabling the stream drops them; enabling it again starts without
SELECT ots.update_table('so', stream_original_columns => '{a}');
SELECT ots.update_table('so', stream_enabled => false);
SELECT stream_original_columns FROM ots.tables WHERE table_name = 'so';
SELECT ots.update_table('so', stream_enabled => true);
SELECT ots.describe_table('so') -> 'stream_details' ? 'original_columns' AS after_enabling;
SELECT ots.update_table('so', stream_enabled => true, stream_original_columns => '{a, c}');
DELETE FROM so_cursor;

-- a split row (cells past 4 KB, stored in chunks): its original columns
-- come from its chunks, by every path that changes it
SELECT ots.put_row('so', '{"k": "w"}', jsonb_build_object('a', 1, 'b', repeat('x', 6000), 'c', 'cc'));
SELECT (ots.get_row('so', '{"k": "w"}')).primary_key IS NOT NULL AS stored,
       (SELECT count(*) FROM "so$chunk") > 0 AS in_chunks;
SELECT ots.update_row('so', '{"k": "w"}', put => '{"d": 1}');
SELECT ots.put_row('so', '{"k": "w"}', jsonb_build_object('a', 2, 'b', repeat('y', 6000), 'c', 'c2'));
UPDATE so SET a = 3 WHERE k = 'w';
SELECT ots.put_row('so', '{"k": "w"}', jsonb_build_object('a', 4, 'b', repeat('z', 6000)),
                   condition => 'EXPECT_EXIST');
DELETE FROM "so$data" WHERE k = 'w';
-- and through batch_write_row, whose plain puts and deletes take its bulk path
SELECT ots.put_row('so', jsonb_build_object('k', k), jsonb_build_object('a', 5, 'b', repeat('x', 6000), 'c', k))
  FROM unnest('{w, w2}'::text[]) k;
SELECT count(*) FROM ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'so', 'rows', jsonb_build_array(
	jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('k', 'w'),
					   'attributes', jsonb_build_object('a', 6, 'b', repeat('y', 6000)))))));
SELECT count(*) FROM ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'so', 'rows', jsonb_build_array(
	jsonb_build_object('type', 'DELETE', 'primary_key', jsonb_build_object('k', 'w')),
	jsonb_build_object('type', 'DELETE', 'primary_key', jsonb_build_object('k', 'w2'))))));
SELECT r ->> 'action_type' AS action,
       (SELECT jsonb_agg(o - 'timestamp') FROM jsonb_array_elements(r -> 'original_columns') o) AS original
  FROM pg_temp.news('so') r;

--
-- the model: random writes by every row call and by SQL on the view, a
-- quarter of them making the row split, each record's original columns
-- against get_row just before the write
--
CREATE TABLE so_expected (n integer PRIMARY KEY, original jsonb);
DO $$
DECLARE
	key jsonb;
	found_row boolean;
	before jsonb;
	expected jsonb;
	op integer;
	cols jsonb;
BEGIN
	PERFORM setseed(0.34);
	FOR n IN 1 .. 300 LOOP
		key := jsonb_build_object('k', 'k' || (random() * 12)::int);
		-- (a read of columns a row does not have finds no row, as Tablestore's)
		found_row := (ots.get_row('so', key)).primary_key IS NOT NULL;
		before := (ots.get_row('so', key, columns_to_get => '{a, c}', with_timestamps => true)).attributes;
		expected := (SELECT jsonb_agg(jsonb_build_object('name', c, 'type', 'PUT',
														 'value', before -> c -> 0 -> 'value',
														 'timestamp', before -> c -> 0 -> 'ts') ORDER BY c)
					   FROM unnest('{a, c}'::text[]) c WHERE before ? c);
		cols := (SELECT coalesce(jsonb_object_agg(c, (random() * 100)::int), '{"d": 0}')
				   FROM unnest('{a, b, c, d}'::text[]) c WHERE random() < 0.5);
		IF random() < 0.25 THEN
			cols := cols || jsonb_build_object('b', repeat('x', 5000));	-- a split row
		END IF;
		op := (random() * 5)::int;
		IF op = 0 THEN
			PERFORM ots.put_row('so', key, cols);
		ELSIF op = 1 THEN
			PERFORM ots.update_row('so', key, put => cols,
								   delete_all => CASE WHEN random() < 0.3 THEN '{c}'::text[] END);
		ELSIF op = 2 THEN
			PERFORM ots.delete_row('so', key);
			IF NOT found_row THEN
				CONTINUE;		-- deleting a missing row changes nothing: no record
			END IF;
		ELSIF op = 3 AND random() < 0.5 THEN
			PERFORM ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'so', 'rows',
				jsonb_build_array(jsonb_build_object('type', 'UPDATE', 'primary_key', key, 'put', cols)))));
		ELSIF op = 3 THEN
			-- a plain delete in a batch: its bulk path
			PERFORM ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'so', 'rows',
				jsonb_build_array(jsonb_build_object('type', 'DELETE', 'primary_key', key)))));
			IF NOT found_row THEN
				CONTINUE;
			END IF;
		ELSIF op = 4 THEN
			-- (a new value: an UPDATE that changes no column makes no record)
			UPDATE so SET a = coalesce(a, 0) + 1 + (random() * 50)::int WHERE k = key ->> 'k';
			IF NOT FOUND THEN
				CONTINUE;		-- no row, no change, no record
			END IF;
		ELSE
			DELETE FROM so WHERE k = key ->> 'k';
			IF NOT FOUND THEN
				CONTINUE;
			END IF;
		END IF;
		INSERT INTO so_expected VALUES ((SELECT count(*) FROM so_expected) + 1, expected);
	END LOOP;
END
$$;
WITH got AS (SELECT row_number() OVER () AS n, r -> 'original_columns' AS original FROM pg_temp.news('so') r)
SELECT count(*) AS records,
       count(*) FILTER (WHERE e.original IS NOT NULL) AS with_original,
       count(*) FILTER (WHERE e.original IS NOT DISTINCT FROM g.original) AS as_expected
  FROM so_expected e FULL JOIN got g ON g.n = e.n;

-- leave no table behind for the files after this one
SELECT ots.delete_table(t) FROM unnest('{so, so32, so_off}'::text[]) t;
DROP TABLE so_cursor, so_expected;
