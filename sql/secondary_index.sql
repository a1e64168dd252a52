-- secondary_index: defined columns, ots.create_index / ots.delete_index
-- with Tablestore's limits and messages, reads of an index as a read-only
-- table, and every write path keeping every index exact (each checked
-- against a full recomputation from the table's rows), TTL and purge,
-- backfill, privileges.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
RESET client_min_messages;
-- the build is run by CALL ots.build_index here, not by a background worker
SET ots.index_build_worker = off;

CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

--
-- defined columns
--
SELECT ots.create_table('si', 'id string', partitions => 2,
						defined_columns => 'seller string, amount double, qty integer, paid boolean, tag binary');
SELECT ots.describe_table('si') -> 'defined_columns' AS defined_columns;
-- Tablestore's rules: 0 to 32, five types, names as column names
SELECT pg_temp.try(format($$SELECT ots.create_table('si_x', 'id string', defined_columns => %L)$$,
						  (SELECT string_agg('d' || i || ' string', ', ') FROM generate_series(1, 33) i)));
SELECT pg_temp.try(format($$SELECT ots.create_table('si_x', 'id string', partitions => 1, defined_columns => %L)$$,
						  (SELECT string_agg('d' || i || ' string', ', ') FROM generate_series(1, 32) i)));
SELECT cardinality(defined_names) FROM ots.tables WHERE table_name = 'si_x';
SELECT ots.delete_table('si_x');
SELECT pg_temp.try($$SELECT ots.create_table('si_x', 'id string', defined_columns => 'a date')$$);
SELECT pg_temp.try($$SELECT ots.create_table('si_x', 'id string', defined_columns => 'a')$$);
SELECT pg_temp.try($$SELECT ots.create_table('si_x', 'id string', defined_columns => 'id string')$$);
SELECT pg_temp.try($$SELECT ots.create_table('si_x', 'id string', defined_columns => 'a string, a integer')$$);
SELECT pg_temp.try($$SELECT ots.create_table('si_x', 'id string', defined_columns => '1a string')$$);
SELECT pg_temp.try(format($$SELECT ots.create_table('si_x', 'id string', defined_columns => '%s string')$$, repeat('a', 64)));
SELECT to_regclass('si_x') IS NULL AS nothing_made;

-- a write whose value for a defined column has another type is refused
SELECT pg_temp.try($$SELECT ots.put_row('si', '{"id": "x"}', '{"amount": 3}')$$);
SELECT pg_temp.try($$SELECT ots.put_row('si', '{"id": "x"}', '{"paid": "yes"}')$$);
SELECT pg_temp.try($$SELECT ots.update_row('si', '{"id": "x"}', put => '{"qty": 1.5}')$$);
SELECT pg_temp.try($$SELECT ots.update_row('si', '{"id": "x"}', put => '{"seller": {"$binary": "AA=="}}')$$);
SELECT pg_temp.try($$SELECT ots.update_row('si', '{"id": "x"}', increment => '{"seller": 1}')$$);
SELECT count(*) FROM si;
-- in a batch, the row fails alone (both ways: bulk and per row)
SELECT index, is_ok, error_code, error_message
  FROM ots.batch_write_row('[{"table_name": "si", "rows": [
	{"type": "PUT", "primary_key": {"id": "b1"}, "attributes": {"qty": 1}},
	{"type": "PUT", "primary_key": {"id": "b2"}, "attributes": {"qty": "one"}},
	{"type": "UPDATE", "primary_key": {"id": "b3"}, "put": {"paid": 0}}]}]');
SELECT id, attributes FROM si ORDER BY id;
-- a value of the right type, and columns that are not defined, are free
SELECT consumed FROM ots.put_row('si', '{"id": "x"}', '{"amount": 3.5, "paid": true, "note": 7}');
-- plain SQL on the storage is held to the same rule, at the write point
SELECT pg_temp.try($$UPDATE "si$data" SET "$cells" = '{"row_ts": 1, "cells": {"qty": [{"ts": 1, "value": "s"}]}}'::ots.cells, "$oldest_ts" = 1 WHERE id = 'x'$$);

-- add_defined_column / delete_defined_column
SELECT consumed FROM ots.put_row('si', '{"id": "y"}', '{"note": "text", "qty": 1}');
SELECT ots.add_defined_column('si', 'note integer, color string');
SELECT ots.describe_table('si') -> 'defined_columns' AS defined_columns;
-- a cell stored before its column was defined stays as it is ...
SELECT pg_temp.try($$SELECT ots.update_row('si', '{"id": "y"}', put => '{"qty": 2}')$$);
-- ... but is not written again with another type
SELECT pg_temp.try($$SELECT ots.update_row('si', '{"id": "y"}', put => '{"note": "again"}')$$);
SELECT pg_temp.try($$SELECT ots.add_defined_column('si', 'note string')$$);
SELECT pg_temp.try($$SELECT ots.add_defined_column('si', 'id string')$$);
SELECT pg_temp.try($$SELECT ots.add_defined_column('si', '')$$);
SELECT pg_temp.try(format($$SELECT ots.add_defined_column('si', %L)$$,
						  (SELECT string_agg('e' || i || ' string', ', ') FROM generate_series(1, 26) i)));
SELECT ots.delete_defined_column('si', '{color}');
SELECT pg_temp.try($$SELECT ots.delete_defined_column('si', '{color}')$$);
SELECT pg_temp.try($$SELECT ots.delete_defined_column('si', '{}')$$);
SELECT defined_names, defined_types FROM ots.tables WHERE table_name = 'si';

--
-- create_index: Tablestore's limits and messages
--
SELECT ots.create_table('sx', 'k string, n integer', partitions => 2,
						defined_columns => 'a string, b integer, c double, d boolean, e binary, f string');
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx_i', '{}')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx_i', '{a, b, e, f, k}')$$);
SELECT pg_temp.try(format($$SELECT ots.create_index('sx', 'sx_i', '{a}', %L)$$,
						  (SELECT array_agg('x' || i) FROM generate_series(1, 33) i)));
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx_i', '{zz}')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx_i', '{c}')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx_i', '{d}')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx_i', '{a, a}')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx_i', '{a}', '{a}')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx_i', '{a}', '{zz}')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx_i', '{a}', '{k}')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx_i', '{a}', index_type => 'LOCAL')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx_i', '{a}', index_type => 'SEARCH')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx-i', '{a}')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx', '{a}')$$);
SELECT pg_temp.try($$SELECT ots.create_index('nope', 'sx_i', '{a}')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx', NULL, '{a}')$$);
-- the table must keep one version, and no TTL unless it refuses updates
SELECT ots.create_table('sx_v', 'k string', max_versions => 2, partitions => 1, defined_columns => 'a string');
SELECT pg_temp.try($$SELECT ots.create_index('sx_v', 'sx_v_i', '{a}')$$);
SET client_min_messages = warning;
SELECT ots.create_table('sx_t', 'k string', time_to_live => 86400, partitions => 1, defined_columns => 'a string');
RESET client_min_messages;
SELECT pg_temp.try($$SELECT ots.create_index('sx_t', 'sx_t_i', '{a}')$$);
SELECT ots.update_table('sx_t', allow_update => false);
SELECT pg_temp.try($$SELECT ots.create_index('sx_t', 'sx_t_i', '{a}')$$);
SELECT pg_temp.try($$SELECT ots.update_table('sx_t', allow_update => true)$$);
SELECT ots.delete_table('sx_v');
SELECT ots.delete_table('sx_t');
SELECT count(*) FROM ots.tables WHERE table_name LIKE 'sx\_%';
-- five indexes at most; the key is the given columns, then the base key's others
SELECT ots.create_index('sx', 'sx_a', '{a}', '{c, f}');
SELECT ots.create_index('sx', 'sx_b', '{b, a}', include_base_data => false);
SELECT ots.create_index('sx', 'sx_e', '{e}', index_type => 'GLOBAL');
SELECT ots.create_index('sx', 'sx_n', '{n}');
SELECT ots.create_index('sx', 'sx_l', '{k, a, n}', '{b}', index_type => 'LOCAL');
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx_f', '{f}')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx', 'sx_a', '{f}')$$);
SELECT table_name, pk_names, pk_types, defined_names, index_of, index_type, index_key_count, index_phase
  FROM ots.tables WHERE index_of = 'sx' ORDER BY table_name;
SELECT jsonb_pretty(ots.describe_table('sx') -> 'index_metas');
SELECT ots.describe_table('sx_l') - 'creation_time' - 'partitions';
-- an index's options follow its table's; it is changed only through its table
SELECT pg_temp.try($$SELECT ots.update_table('sx_a', max_versions => 1)$$);
SELECT pg_temp.try($$SELECT ots.update_table('sx', max_versions => 2)$$);
SELECT pg_temp.try($$SELECT ots.update_table('sx', time_to_live => 3600)$$);
SELECT pg_temp.try($$SELECT ots.add_defined_column('sx_a', 'z string')$$);
SELECT pg_temp.try($$SELECT ots.create_index('sx_a', 'sx_aa', '{f}')$$);
SELECT pg_temp.try($$SELECT ots.delete_defined_column('sx', '{f}')$$);
SELECT pg_temp.try($$SELECT ots.delete_defined_column('sx', '{d}')$$);
SELECT pg_temp.try($$SELECT ots.delete_table('sx_a')$$);
SELECT pg_temp.try($$SELECT ots.delete_index('sx', 'sx_zz')$$);
SELECT pg_temp.try($$SELECT ots.delete_index('sx_a', 'sx_a')$$);
SELECT ots.delete_index('sx', 'sx_e');
SELECT to_regclass('sx_e') IS NULL AND to_regclass('"sx_e$data"') IS NULL AS gone,
	   (SELECT count(*) FROM ots.tables WHERE table_name = 'sx_e') AS metadata;
-- an index being built answers nothing yet (sx_a, sx_n and sx_l were made
-- with the base data: the build is CALL ots.build_index's)
SELECT pg_temp.try($$SELECT ots.get_row('sx_a', '{"a": "x", "k": "y", "n": 1}')$$);
SELECT pg_temp.try($$SELECT count(*) FROM sx_a$$);
CALL ots.build_index('sx', 'sx_a');
CALL ots.build_index('sx', 'sx_n');
CALL ots.build_index('sx', 'sx_l');
SELECT table_name, index_phase FROM ots.tables WHERE index_of = 'sx' ORDER BY table_name;
SELECT pg_temp.try($$CALL ots.build_index('sx', 'nope')$$);

--
-- every write path keeps every index exact
--
-- sx_expected: the entries of index idx recomputed from the table's view:
-- each row whose index key columns hold a value of their column's type,
-- keyed by them, then the base key; the covered columns' latest values
CREATE FUNCTION pg_temp.sx_expected(idx text) RETURNS TABLE (entry jsonb) LANGUAGE plpgsql AS $$
DECLARE
	i ots.tables;
BEGIN
	SELECT * INTO i FROM ots.tables WHERE table_name = idx;
	RETURN QUERY
	SELECT jsonb_build_object('key', (SELECT jsonb_object_agg(c, coalesce(to_jsonb(v) -> c, v.attributes -> c))
										FROM unnest(i.pk_names) c),
							  'attributes', (SELECT coalesce(jsonb_object_agg(c, v.attributes -> c), '{}')
											   FROM unnest(i.defined_names) c WHERE v.attributes ? c))
	  FROM sx v
	 WHERE (SELECT coalesce(bool_and(coalesce(jsonb_typeof(v.attributes -> c)
											  = CASE t WHEN 'STRING' THEN 'string' WHEN 'INTEGER' THEN 'number'
													   ELSE 'object' END, false)), true)
			  FROM unnest(i.pk_names[1:i.index_key_count], i.pk_types[1:i.index_key_count]) AS k(c, t)
			 WHERE NOT c IN ('k', 'n'));
END
$$;
-- sx_actual: what the index holds, as the same json (key columns from the
-- view's row, without its attributes and typed columns)
CREATE FUNCTION pg_temp.sx_actual(idx text) RETURNS TABLE (entry jsonb) LANGUAGE plpgsql AS $$
DECLARE
	i ots.tables;
BEGIN
	SELECT * INTO i FROM ots.tables WHERE table_name = idx;
	RETURN QUERY EXECUTE format(
		'SELECT jsonb_build_object(''key'', to_jsonb(x) - ''attributes'' - %L::text[], ''attributes'', x.attributes) FROM %I x',
		i.defined_names, idx);
END
$$;
-- sx_check: per index, entries missing and entries too many
CREATE FUNCTION pg_temp.sx_check() RETURNS TABLE (index_name name, entries bigint, missing bigint, stale bigint)
LANGUAGE sql AS $$
	SELECT t.table_name,
		   (SELECT count(*) FROM pg_temp.sx_actual(t.table_name)),
		   (SELECT count(*) FROM (SELECT * FROM pg_temp.sx_expected(t.table_name)
								  EXCEPT ALL SELECT * FROM pg_temp.sx_actual(t.table_name)) m),
		   (SELECT count(*) FROM (SELECT * FROM pg_temp.sx_actual(t.table_name)
								  EXCEPT ALL SELECT * FROM pg_temp.sx_expected(t.table_name)) s)
	  FROM ots.tables t WHERE t.index_of = 'sx' AND t.index_phase <> 'FULL'
	 ORDER BY t.table_name
$$;
SELECT * FROM pg_temp.sx_check();

-- put, update, delete, increment: each entry follows its row
SELECT consumed FROM ots.put_row('sx', '{"k": "r1", "n": 1}', '{"a": "apple", "b": 10, "c": 1.5, "f": "x"}');
SELECT consumed FROM ots.put_row('sx', '{"k": "r2", "n": 1}', '{"a": "pear", "e": {"$binary": "AQI="}}');
SELECT consumed FROM ots.put_row('sx', '{"k": "r3", "n": 2}', '{"b": 7}');
SELECT * FROM sx_a ORDER BY a, k, n;
SELECT * FROM sx_b ORDER BY b, a, k, n;
SELECT * FROM sx_l ORDER BY k, a, n;
SELECT * FROM pg_temp.sx_check();
-- the indexed value changes: the old entry goes, the new one comes
SELECT consumed FROM ots.update_row('sx', '{"k": "r1", "n": 1}', put => '{"a": "banana"}');
-- a covered value changes: the entry is rewritten
SELECT consumed FROM ots.update_row('sx', '{"k": "r1", "n": 1}', put => '{"c": 2.5}', delete_all => '{f}');
-- the row loses an indexed column: its entry goes
SELECT consumed FROM ots.update_row('sx', '{"k": "r2", "n": 1}', delete_all => '{a}');
-- an increment of an indexed Integer
SELECT consumed FROM ots.update_row('sx', '{"k": "r3", "n": 2}', increment => '{"b": 5}');
SELECT consumed FROM ots.update_row('sx', '{"k": "r3", "n": 2}', put => '{"a": "fig"}');
SELECT * FROM sx_a ORDER BY a, k, n;
SELECT * FROM sx_b ORDER BY b, a, k, n;
SELECT * FROM pg_temp.sx_check();
-- a failed condition changes nothing
SELECT pg_temp.try($$SELECT ots.put_row('sx', '{"k": "r3", "n": 2}', '{"a": "kiwi"}', 'EXPECT_NOT_EXIST')$$);
SELECT consumed FROM ots.delete_row('sx', '{"k": "r3", "n": 2}');
SELECT * FROM pg_temp.sx_check();

-- batches: bulk puts and deletes, per-row writes, an atomic batch
SELECT index, is_ok, error_code FROM ots.batch_write_row(format('[{"table_name": "sx", "rows": %s}]',
	(SELECT jsonb_agg(jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('k', 'bulk' || i, 'n', i),
										 'attributes', jsonb_build_object('a', 'v' || (i % 7), 'b', i)))
	   FROM generate_series(1, 50) i))::jsonb);
SELECT index, is_ok, error_code FROM ots.batch_write_row(format('[{"table_name": "sx", "rows": %s}]',
	(SELECT jsonb_agg(jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('k', 'bulk' || i, 'n', i),
										 'attributes', jsonb_build_object('a', 'w' || (i % 5))))
	   FROM generate_series(40, 60) i))::jsonb) WHERE NOT is_ok;
SELECT index, is_ok, error_code FROM ots.batch_write_row(format('[{"table_name": "sx", "rows": %s}]',
	(SELECT jsonb_agg(jsonb_build_object('type', 'DELETE', 'primary_key', jsonb_build_object('k', 'bulk' || i, 'n', i)))
	   FROM generate_series(1, 60, 3) i))::jsonb) WHERE NOT is_ok;
SELECT index, is_ok, error_code FROM ots.batch_write_row('[{"table_name": "sx", "rows": [
	{"type": "UPDATE", "primary_key": {"k": "bulk2", "n": 2}, "put": {"a": "z"}},
	{"type": "UPDATE", "primary_key": {"k": "bulk5", "n": 5}, "condition": "EXPECT_EXIST", "delete_all": ["a"]},
	{"type": "PUT", "primary_key": {"k": "bulk8", "n": 8}, "condition": "EXPECT_NOT_EXIST", "attributes": {"a": "no"}},
	{"type": "DELETE", "primary_key": {"k": "bulk11", "n": 11}, "condition": "EXPECT_EXIST"}]}]');
SELECT index, is_ok, error_code FROM ots.batch_write_row('[{"table_name": "sx", "rows": [
	{"type": "PUT", "primary_key": {"k": "atom", "n": 1}, "attributes": {"a": "q", "b": 1}},
	{"type": "PUT", "primary_key": {"k": "atom", "n": 2}, "attributes": {"a": "q", "b": 2}}]}]', is_atomic => true);
SELECT * FROM pg_temp.sx_check();

-- plain SQL on the storage, through the write point: INSERT, UPDATE moving
-- a row across partitions, DELETE, COPY
INSERT INTO "sx$data" (k, n, "$cells", "$oldest_ts")
	SELECT 'sql' || i, i, format('{"row_ts": 5, "cells": {"a": [{"ts": 5, "value": "s%s"}]}}', i)::ots.cells, 5
	  FROM generate_series(1, 5) i;
UPDATE "sx$data" SET k = 'sql-moved' WHERE k = 'sql1';
UPDATE "sx$data" SET "$cells" = '{"row_ts": 6, "cells": {"b": [{"ts": 6, "value": 99}]}}'::ots.cells, "$oldest_ts" = 6
 WHERE k = 'sql2';
DELETE FROM "sx$data" WHERE k = 'sql3';
COPY "sx$data" (k, n, "$cells", "$oldest_ts") FROM stdin;
copied	1	{"row_ts": 7, "cells": {"a": [{"ts": 7, "value": "c"}], "b": [{"ts": 7, "value": 1}]}}	7
\.
SELECT * FROM pg_temp.sx_check();
-- TRUNCATE cannot keep the indexes: refused
SELECT pg_temp.try($$TRUNCATE "sx$data"$$);
SELECT pg_temp.try($$TRUNCATE "sx$p0"$$);

-- a random mixed workload, then every index against a full recomputation
SELECT setseed(0.15);
DO $$
DECLARE
	k jsonb;
	op int;
BEGIN
	FOR i IN 1 .. 1500 LOOP
		k := jsonb_build_object('k', 'w' || floor(random() * 60)::int, 'n', floor(random() * 3)::int);
		op := floor(random() * 8)::int;
		BEGIN
			CASE op
			WHEN 0 THEN PERFORM ots.put_row('sx', k, jsonb_build_object('a', 'v' || floor(random() * 9)::int,
																		  'b', floor(random() * 5)::int, 'c', random()));
			WHEN 1 THEN PERFORM ots.update_row('sx', k, put => jsonb_build_object('a', 'v' || floor(random() * 9)::int));
			WHEN 2 THEN PERFORM ots.update_row('sx', k, delete_all => ARRAY['a']);
			WHEN 3 THEN PERFORM ots.update_row('sx', k, increment => '{"b": 1}');
			WHEN 4 THEN PERFORM ots.delete_row('sx', k);
			WHEN 5 THEN PERFORM ots.update_row('sx', k, put => jsonb_build_object('f', 'f' || i, 'e', '{"$binary": "AA=="}'::jsonb));
			WHEN 6 THEN PERFORM ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'sx', 'rows',
							jsonb_build_array(jsonb_build_object('type', 'PUT', 'primary_key', k,
																 'attributes', jsonb_build_object('a', 'v1'))))));
			ELSE PERFORM ots.put_row('sx', k, '{"b": 3}', 'EXPECT_NOT_EXIST');
			END CASE;
		EXCEPTION WHEN SQLSTATE 'OT003' OR SQLSTATE 'OT001' THEN
			NULL;
		END;
	END LOOP;
END
$$;
SELECT * FROM pg_temp.sx_check();
SELECT count(*) > 20 AS rows_left FROM sx;
-- the check sees a missing entry and a stale one (taken from the index's
-- storage behind its back, and put back)
CREATE TEMP TABLE saved_entry AS SELECT * FROM "sx_a$data" ORDER BY a, k, n LIMIT 1;
DELETE FROM "sx_a$data" x USING saved_entry s WHERE (x.a, x.k, x.n) = (s.a, s.k, s.n);
SELECT * FROM pg_temp.sx_check() WHERE index_name = 'sx_a';
INSERT INTO "sx_a$data" SELECT * FROM saved_entry;
UPDATE "sx_a$data" x SET a = 'stale' FROM saved_entry s WHERE (x.a, x.k, x.n) = (s.a, s.k, s.n);
SELECT * FROM pg_temp.sx_check() WHERE index_name = 'sx_a';
UPDATE "sx_a$data" x SET a = s.a FROM saved_entry s WHERE x.a = 'stale' AND (x.k, x.n) = (s.k, s.n);
SELECT * FROM pg_temp.sx_check() WHERE index_name = 'sx_a';

--
-- reads of an index: a read-only table of its own name
--
SELECT primary_key, attributes FROM ots.get_row('sx_a', '{"a": "banana", "k": "r1", "n": 1}');
SELECT primary_key, attributes FROM ots.get_row('sx_a', '{"a": "banana", "k": "r1", "n": 1}', columns_to_get => '{c}');
SELECT pg_temp.try($$SELECT ots.get_row('sx_a', '{"a": "banana", "k": "r1"}')$$);
-- get_range pages as on a table
SELECT jsonb_array_length(rows), next_start_primary_key
  FROM ots.get_range('sx_b', '{"b": {"$inf": "min"}, "a": {"$inf": "min"}, "k": {"$inf": "min"}, "n": {"$inf": "min"}}',
					 '{"b": {"$inf": "max"}, "a": {"$inf": "max"}, "k": {"$inf": "max"}, "n": {"$inf": "max"}}', "limit" => 5);
SELECT count(*) = (SELECT count(*) FROM sx_b) AS all_rows
  FROM ots.get_range_rows('sx_b', '{"b": {"$inf": "min"}, "a": {"$inf": "min"}, "k": {"$inf": "min"}, "n": {"$inf": "min"}}',
						  '{"b": {"$inf": "max"}, "a": {"$inf": "max"}, "k": {"$inf": "max"}, "n": {"$inf": "max"}}');
-- a filter on a covered column
SELECT count(*) FROM ots.get_range_rows('sx_l', '{"k": {"$inf": "min"}, "a": {"$inf": "min"}, "n": {"$inf": "min"}}',
										'{"k": {"$inf": "max"}, "a": {"$inf": "max"}, "n": {"$inf": "max"}}',
										filter => '{"column": "b", "comparator": ">", "value": 4, "pass_if_missing": false}');
SELECT count(*) FROM sx_l WHERE (attributes ->> 'b')::int > 4;
SELECT table_name, index, is_ok, primary_key
  FROM ots.batch_get_row('[{"table_name": "sx_a", "primary_keys": [{"a": "banana", "k": "r1", "n": 1}, {"a": "nope", "k": "r1", "n": 1}]}]');
-- never written directly
SELECT pg_temp.try($$SELECT ots.put_row('sx_a', '{"a": "x", "k": "y", "n": 1}', '{}')$$);
SELECT pg_temp.try($$SELECT ots.update_row('sx_a', '{"a": "banana", "k": "r1", "n": 1}', put => '{"c": 1.0}')$$);
SELECT pg_temp.try($$SELECT ots.delete_row('sx_a', '{"a": "banana", "k": "r1", "n": 1}')$$);
SELECT index, is_ok, error_code, error_message
  FROM ots.batch_write_row('[{"table_name": "sx_a", "rows": [{"type": "DELETE", "primary_key": {"a": "banana", "k": "r1", "n": 1}}]}]');
SELECT pg_temp.try($$INSERT INTO sx_a VALUES ('x', 'y', 1, '{}')$$);
-- a String index key is a primary key value: Tablestore's length limit
SELECT pg_temp.try(format($$SELECT ots.put_row('sx', '{"k": "long", "n": 1}', '{"a": "%s"}')$$, repeat('x', 1025)));
SELECT count(*) FROM sx WHERE k = 'long';

--
-- TTL: an entry is visible while its row is and has the indexed column;
-- purge removes it with the row's cells
--
SET client_min_messages = warning;
SELECT ots.create_table('st', 'k string', time_to_live => 86400, allow_update => false, partitions => 1,
						defined_columns => 'a string, b string');
RESET client_min_messages;
SELECT ots.create_index('st', 'st_a', '{a}', '{b}');
CALL ots.build_index('st', 'st_a');
SELECT (extract(epoch FROM now()) * 1000)::bigint AS now_ms \gset
-- r1: its indexed cell expires in 1.5 s, another cell later; r2: all cells new
SELECT consumed FROM ots.put_row('st', '{"k": "r1"}',
	format('{"a": {"value": "x", "ts": %s}, "b": "y"}', :now_ms - 86400000 + 1500)::jsonb);
SELECT consumed FROM ots.put_row('st', '{"k": "r2"}', '{"a": "x", "b": "z"}');
SELECT a, k, attributes FROM st_a ORDER BY k;
SELECT pg_sleep(2);
SELECT k, attributes FROM st ORDER BY k;
SELECT a, k, attributes FROM st_a ORDER BY k;
SELECT primary_key FROM ots.get_row('st_a', '{"a": "x", "k": "r1"}');
SELECT count(*) FROM "st_a$data";
CALL ots.purge('st');
SELECT count(*) FROM "st_a$data";
SELECT ots.delete_table('st');
SELECT count(*) FROM ots.tables WHERE table_name LIKE 'st%';

--
-- backfill: an index made on a table with rows answers only once built,
-- and then holds every row
--
SELECT count(*) FROM ots.batch_write_row(format('[{"table_name": "si", "rows": %s}]',
	(SELECT jsonb_agg(jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('id', 'f' || i),
										 'attributes', jsonb_build_object('seller', 's' || (i % 10), 'qty', i)))
	   FROM generate_series(1, 200) i))::jsonb);
BEGIN;
SELECT ots.create_index('si', 'si_seller', '{seller}', '{qty}');
-- the API's reads and the index's view fail alike, whatever the view's
-- query reads of it: no entry yet, entries of a key, only key columns
SELECT pg_temp.try($$SELECT ots.get_row('si_seller', '{"seller": "s1", "id": "f1"}')$$);
SELECT pg_temp.try($$SELECT count(*) FROM si_seller$$);
SELECT pg_temp.try($$SELECT seller, id FROM si_seller WHERE seller = 's1'$$);
SELECT ots.describe_table('si') -> 'index_metas' -> 0 ->> 'index_sync_phase' AS phase;
-- writes meanwhile keep the index already
SELECT consumed FROM ots.put_row('si', '{"id": "during"}', '{"seller": "s99"}');
-- (the view of the index, which holds that entry already, answers nothing either)
SELECT pg_temp.try($$SELECT count(*) FROM si_seller$$);
SELECT pg_temp.try($$SELECT seller, id FROM si_seller WHERE seller = 's99'$$);
SELECT count(*) AS stored_entries FROM "si_seller$data";
COMMIT;
-- a plan made during the build checks again at each execution
SET plan_cache_mode = force_generic_plan;
PREPARE si_by_index AS SELECT count(*) FROM si_seller WHERE seller = 's3';
EXECUTE si_by_index;
-- in a transaction block the build cannot commit its batches
BEGIN;
CALL ots.build_index('si', 'si_seller');
ROLLBACK;
CALL ots.build_index('si', 'si_seller');
SELECT ots.describe_table('si') -> 'index_metas' -> 0 ->> 'index_sync_phase' AS phase;
-- built: the plan made before answers
EXECUTE si_by_index;
DEALLOCATE si_by_index;
RESET plan_cache_mode;
SELECT count(*) AS entries, count(*) FILTER (WHERE seller = 's3') AS s3 FROM si_seller;
SELECT count(*) FROM si WHERE attributes ? 'seller';
SELECT primary_key, attributes FROM ots.get_row('si_seller', '{"seller": "s3", "id": "f13"}');
-- include_base_data => false: only what is written from now on
SELECT ots.create_index('si', 'si_qty', '{qty}', include_base_data => false);
SELECT consumed FROM ots.update_row('si', '{"id": "f5"}', put => '{"qty": 500}');
-- (any write of a row counts, one that leaves the indexed column as it was too)
SELECT consumed FROM ots.update_row('si', '{"id": "f6"}', put => '{"seller": "s6b"}');
SELECT qty, id FROM si_qty ORDER BY qty, id;

--
-- privileges: an index is read with its table's rights
--
CREATE ROLE si_reader;
CREATE ROLE si_other;
GRANT SELECT ON "si$data" TO si_reader;
SET ROLE si_other;
SELECT pg_temp.try($$SELECT ots.get_row('si_seller', '{"seller": "s3", "id": "f13"}')$$);
SELECT pg_temp.try($$SELECT count(*) FROM ots.get_range_rows('si_seller', '{"seller": {"$inf": "min"}, "id": {"$inf": "min"}}', '{"seller": {"$inf": "max"}, "id": {"$inf": "max"}}')$$);
SELECT pg_temp.try($$SELECT count(*) FROM si_seller$$);
SELECT table_name FROM ots.tables WHERE table_name LIKE 'si%' ORDER BY 1;
RESET ROLE;
SET ROLE si_reader;
SELECT primary_key FROM ots.get_row('si_seller', '{"seller": "s3", "id": "f13"}');
SELECT jsonb_array_length(ots.describe_table('si') -> 'index_metas') AS indexes;
SELECT table_name FROM ots.tables WHERE table_name LIKE 'si%' ORDER BY 1;
-- plain SQL on the index's view needs a grant of its own
SELECT pg_temp.try($$SELECT count(*) FROM si_seller$$);
-- only the owner makes, builds and drops indexes, or calls their internals
SELECT pg_temp.try($$SELECT ots.create_index('si', 'si_x', '{seller}')$$);
SELECT pg_temp.try($$SELECT ots.delete_index('si', 'si_seller')$$);
CALL ots.build_index('si', 'si_seller');
SELECT pg_temp.try($$SELECT ots.add_defined_column('si', 'z string')$$);
SELECT pg_temp.try($$SELECT ots.catalog_set_defined('public', 'si', '{}', '{}')$$);
SELECT pg_temp.try($$SELECT ots.catalog_set_index_phase('public', 'si_seller', 'FULL')$$);
SELECT pg_temp.try($$SELECT ots.catalog_insert_index('public', 'si_x', 'si', '{seller,id}', '{STRING,STRING}', '{}', '{}', 'GLOBAL', 1::smallint, 'INCR')$$);
SELECT pg_temp.try($$SELECT ots.index_backfill_batch('public', 'si_seller', '"si$p0"', 0, 1, 0)$$);
SELECT pg_temp.try($$SELECT ots.index_build_launch('public', 'si_seller')$$);
RESET ROLE;
-- row-level security on the table applies to its index too
ALTER TABLE "si$data" ENABLE ROW LEVEL SECURITY;
SET ROLE si_reader;
SELECT pg_temp.try($$SELECT ots.get_row('si_seller', '{"seller": "s3", "id": "f13"}')$$);
RESET ROLE;
ALTER TABLE "si$data" DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON "si$data" FROM si_reader;
DROP ROLE si_reader;
DROP ROLE si_other;

--
-- an index name is taken literally, as table names are: mixed case too
-- (the SDKs' samples name indexes like "sdkIndex1")
--
SELECT ots.create_index('si', 'siByQty', '{qty}');
SELECT ots.describe_table('siByQty')->>'index_of' AS index_of,
       ots.describe_table('si')->'index_metas' @> '[{"name": "siByQty"}]' AS listed;
SELECT ots.delete_index('si', 'siByQty');

--
-- defined columns keep the order they were defined in, as Tablestore's
-- DescribeTable shows them: describe_table, the view's typed columns and an
-- index's covered columns (lookups by name still find each)
--
SELECT ots.create_table('so', 'id string', partitions => 1, defined_columns => 'zeta string, alpha integer, mid double');
SELECT ots.add_defined_column('so', 'beta boolean, aa string');
SELECT ots.describe_table('so') -> 'defined_columns' AS defined_columns;
SELECT string_agg(attname, ', ' ORDER BY attnum) AS view_columns
  FROM pg_attribute WHERE attrelid = 'so'::regclass AND attnum > 0;
SELECT ots.create_index('so', 'so_i', '{alpha}', '{zeta, mid, aa}');
SELECT ots.describe_table('so') -> 'index_metas' -> 0 -> 'defined_column' AS covered;
SELECT string_agg(attname, ', ' ORDER BY attnum) AS index_view_columns
  FROM pg_attribute WHERE attrelid = 'so_i'::regclass AND attnum > 0;
CALL ots.build_index('so', 'so_i');
SELECT consumed FROM ots.put_row('so', '{"id": "a"}', '{"zeta": "z", "alpha": 1, "mid": 1.5, "beta": true, "aa": "x"}');
SELECT pg_temp.try($$SELECT ots.put_row('so', '{"id": "b"}', '{"aa": 1}')$$);
SELECT pg_temp.try($$SELECT ots.put_row('so', '{"id": "b"}', '{"zeta": 2}')$$);
SELECT id, zeta, alpha, mid, beta, aa FROM so;
SELECT alpha, id, zeta, mid, aa FROM so_i;
SELECT pg_temp.try($$SELECT ots.delete_defined_column('so', '{beta, zeta}')$$);
SELECT ots.delete_defined_column('so', '{beta}');
SELECT ots.describe_table('so') -> 'defined_columns' AS defined_columns;
SELECT ots.delete_table('so');

--
-- deleting a table deletes its indexes
--
SELECT ots.delete_table('sx');
SELECT count(*) FROM ots.tables WHERE table_name LIKE 'sx%';
SELECT count(*) FROM pg_class WHERE relname LIKE 'sx%';
SELECT ots.delete_table('si');
SELECT count(*) FROM pg_class WHERE relname LIKE 'si%';
