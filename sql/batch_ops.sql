-- batch_ops: ots.batch_get_row and ots.batch_write_row: request shapes and
-- limits, per-row results in request order, per-row errors, repeated keys,
-- partial failure, atomic batches, return types and capacity units.
-- Quiet: the extension may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

-- the results of a batch, in request order
CREATE FUNCTION pg_temp.bw(req jsonb, atomic boolean DEFAULT false)
RETURNS TABLE (table_name text, "index" integer, is_ok boolean, error_code text,
			   error_message text, primary_key jsonb, attributes jsonb, consumed jsonb)
LANGUAGE sql AS $$
	SELECT b.table_name, b."index", b.is_ok, b.error_code, b.error_message,
		   b.primary_key, b.attributes, b.consumed
	  FROM ots.batch_write_row(req, atomic) WITH ORDINALITY AS b
	 ORDER BY b.ordinality
$$;
CREATE FUNCTION pg_temp.bg(req jsonb)
RETURNS TABLE (table_name text, "index" integer, is_ok boolean, error_code text,
			   error_message text, primary_key jsonb, attributes jsonb, consumed jsonb)
LANGUAGE sql AS $$
	SELECT b.table_name, b."index", b.is_ok, b.error_code, b.error_message,
		   b.primary_key, b.attributes, b.consumed
	  FROM ots.batch_get_row(req) WITH ORDINALITY AS b
	 ORDER BY b.ordinality
$$;
-- every row of a table, in key order
CREATE FUNCTION pg_temp.dump(t text) RETURNS TABLE (primary_key jsonb, attributes jsonb)
LANGUAGE sql AS $$
	SELECT r.primary_key, r.attributes
	  FROM (SELECT jsonb_object_agg(c ->> 'name', '{"$inf": "min"}'::jsonb) AS lo,
				   jsonb_object_agg(c ->> 'name', '{"$inf": "max"}'::jsonb) AS hi
			  FROM jsonb_array_elements(ots.describe_table(t) -> 'primary_key') c) b,
		   ots.get_range_rows(t, b.lo, b.hi) r
$$;

SELECT ots.create_table('bt1', 'k1 string, k2 integer', max_versions => 3,
						max_version_offset => 9223372036854, partitions => 2);
SELECT ots.create_table('bt2', 'id integer', partitions => 2);

--
-- batch_write_row: PUT, UPDATE and DELETE in one call, results in request order
--
SELECT * FROM pg_temp.bw('[{"table_name": "bt1", "rows": [
	{"type": "PUT", "primary_key": {"k1": "a", "k2": 1}, "attributes": {"x": 1, "s": "one"}},
	{"type": "PUT", "primary_key": {"k1": "a", "k2": 2},
	 "attributes": {"x": [{"value": 2, "ts": 1000}, {"value": 3, "ts": 1500}, {"value": 4, "ts": 1200}]}},
	{"type": "PUT", "primary_key": {"k1": "a", "k2": 3}},
	{"type": "update", "primary_key": {"k1": "a", "k2": 2}, "put": {"y": {"value": "two", "ts": 2000}}},
	{"type": "Delete", "primary_key": {"k1": "a", "k2": 3}}]}]');
SELECT * FROM pg_temp.dump('bt1');
-- several tables in one request; "index" counts within each table's list
SELECT * FROM pg_temp.bw('[
	{"table_name": "bt2", "rows": [{"type": "PUT", "primary_key": {"id": 1}, "attributes": {"n": 1}},
								  {"type": "PUT", "primary_key": {"id": 2}, "attributes": {"n": 2}}]},
	{"table_name": "bt1", "rows": [{"type": "UPDATE", "primary_key": {"k1": "a", "k2": 1}, "delete_all": ["s"]}]},
	{"table_name": "bt2", "rows": [{"type": "DELETE", "primary_key": {"id": 1}}]}]');
SELECT * FROM pg_temp.dump('bt2');
SELECT * FROM pg_temp.dump('bt1');
-- each row takes its function's arguments by name
SELECT * FROM pg_temp.bw('[{"table_name": "bt1", "rows": [
	{"type": "UPDATE", "primary_key": {"k1": "a", "k2": 2}, "delete": {"x": 1000}, "increment": {"cnt": 5},
	 "condition": "EXPECT_EXIST", "column_condition": {"column": "y", "comparator": "=", "value": "two"}},
	{"type": "PUT", "primary_key": {"k1": "b", "k2": 1}, "attributes": {"x": 1}, "condition": "EXPECT_NOT_EXIST"},
	{"type": "DELETE", "primary_key": {"k1": "b", "k2": 9}, "condition": "IGNORE"}]}]');
SELECT * FROM pg_temp.dump('bt1');

--
-- return types
--
SELECT * FROM pg_temp.bw('[{"table_name": "bt1", "rows": [
	{"type": "PUT", "primary_key": {"k1": "c", "k2": 1}, "attributes": {"n": 1}, "return_type": "RT_PK"},
	{"type": "UPDATE", "primary_key": {"k1": "c", "k2": 2}, "put": {"m": 1}, "return_type": "RT_PK"},
	{"type": "DELETE", "primary_key": {"k1": "c", "k2": 3}, "return_type": "RT_PK"},
	{"type": "UPDATE", "primary_key": {"k1": "c", "k2": 1}, "increment": {"n": 10, "p": 3},
	 "return_type": "RT_AFTER_MODIFY"},
	{"type": "UPDATE", "primary_key": {"k1": "c", "k2": 1}, "increment": {"n": -1, "p": 1},
	 "return_type": "RT_AFTER_MODIFY", "return_columns": ["p"]},
	{"type": "PUT", "primary_key": {"k1": "c", "k2": 4}, "return_type": "RT_NONE"}]}]');
-- a return type a row's function rejects fails that row only
SELECT * FROM pg_temp.bw('[{"table_name": "bt1", "rows": [
	{"type": "PUT", "primary_key": {"k1": "c", "k2": 5}, "return_type": "RT_AFTER_MODIFY"},
	{"type": "UPDATE", "primary_key": {"k1": "c", "k2": 1}, "increment": {"n": 1},
	 "return_type": "RT_AFTER_MODIFY", "return_columns": ["q"]},
	{"type": "PUT", "primary_key": {"k1": "c", "k2": 6}, "return_type": "RT_SOMETHING"},
	{"type": "PUT", "primary_key": {"k1": "c", "k2": 7}}]}]');
SELECT * FROM pg_temp.dump('bt1') WHERE primary_key ->> 'k1' = 'c' ORDER BY primary_key ->> 'k2';
-- auto-increment keys come back with RT_PK, in order
SELECT ots.create_table('bt_auto', 'pk1 string, seq integer auto_increment', partitions => 1);
SELECT "index", is_ok, primary_key ->> 'pk1' AS pk1,
	   (primary_key ->> 'seq')::bigint > lag((primary_key ->> 'seq')::bigint, 1, 0::bigint)
		   OVER (ORDER BY "index") AS increasing
  FROM pg_temp.bw('[{"table_name": "bt_auto", "rows": [
	{"type": "PUT", "primary_key": {"pk1": "p", "seq": {"$auto_increment": true}}, "return_type": "RT_PK"},
	{"type": "PUT", "primary_key": {"pk1": "p", "seq": {"$auto_increment": true}}, "return_type": "RT_PK"},
	{"type": "PUT", "primary_key": {"pk1": "p", "seq": {"$auto_increment": true}}, "return_type": "RT_PK"}]}]')
 ORDER BY "index";
SELECT count(*) FROM pg_temp.dump('bt_auto');

--
-- per-row capacity units
--
SELECT consumed FROM ots.put_row('bt2', '{"id": 14}');
SELECT "index", is_ok, consumed FROM pg_temp.bw(jsonb_build_array(jsonb_build_object(
	'table_name', 'bt2', 'rows', jsonb_build_array(
		-- 2 + 8 + 1 + 5000 bytes: 2 write CU
		jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 10}'::jsonb,
						   'attributes', jsonb_build_object('v', repeat('x', 5000))),
		-- 2 + 8 + 1 + 4085 = 4096 bytes: 1 write CU
		jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 11}'::jsonb,
						   'attributes', jsonb_build_object('v', repeat('x', 4085))),
		-- a row-existence check reads the key: 1 read CU
		jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 12}'::jsonb,
						   'condition', 'EXPECT_NOT_EXIST'),
		-- an increment reads the row
		jsonb_build_object('type', 'UPDATE', 'primary_key', '{"id": 13}'::jsonb,
						   'increment', '{"n": 1}'::jsonb),
		jsonb_build_object('type', 'UPDATE', 'primary_key', '{"id": 13}'::jsonb,
						   'put', '{"a": 1}'::jsonb),
		jsonb_build_object('type', 'DELETE', 'primary_key', '{"id": 10}'::jsonb),
		jsonb_build_object('type', 'DELETE', 'primary_key', '{"id": 14}'::jsonb,
						   'condition', 'EXPECT_EXIST')))))
 ORDER BY "index";
SELECT primary_key, attributes - 'v' AS attributes, length(attributes ->> 'v') AS v_length
  FROM pg_temp.dump('bt2') ORDER BY primary_key;

--
-- partial failure: each row stands alone
--
SELECT ots.create_table('bt_cond', 'id integer', partitions => 2);
SELECT count(*) FROM generate_series(1, 3) i,
	LATERAL ots.put_row('bt_cond', jsonb_build_object('id', i), '{"price": 10}') r;
-- rows 0 and 2 fail their conditions, row 1 is applied
SELECT * FROM pg_temp.bw('[{"table_name": "bt_cond", "rows": [
	{"type": "UPDATE", "primary_key": {"id": 1}, "put": {"price": 11},
	 "column_condition": {"column": "price", "comparator": ">", "value": 100}},
	{"type": "UPDATE", "primary_key": {"id": 2}, "put": {"price": 12},
	 "column_condition": {"column": "price", "comparator": "=", "value": 10}},
	{"type": "PUT", "primary_key": {"id": 3}, "attributes": {"price": 13}, "condition": "EXPECT_NOT_EXIST"}]}]');
SELECT * FROM pg_temp.dump('bt_cond');
-- every row failing is still a successful call
SELECT * FROM pg_temp.bw('[{"table_name": "bt_cond", "rows": [
	{"type": "DELETE", "primary_key": {"id": 4}, "condition": "EXPECT_EXIST"},
	{"type": "DELETE", "primary_key": {"id": 1}, "condition": "EXPECT_NOT_EXIST"},
	{"type": "PUT", "primary_key": {"id": 2}, "condition": "EXPECT_NOT_EXIST"}]}]');
SELECT * FROM pg_temp.dump('bt_cond');
-- per-row errors: wrong keys, bad values, unknown table, missing key
SELECT * FROM pg_temp.bw('[
	{"table_name": "bt_cond", "rows": [
		{"type": "PUT", "primary_key": {"id": "5"}},
		{"type": "PUT", "primary_key": {"id": 5, "x": 1}},
		{"type": "PUT", "primary_key": {"idx": 5}},
		{"type": "PUT", "primary_key": {"id": {"$inf": "min"}}},
		{"type": "PUT", "primary_key": {"id": 6}, "attributes": {"bad name": 1}},
		{"type": "UPDATE", "primary_key": {"id": 7}},
		{"type": "PUT"},
		{"type": "PUT", "primary_key": {"id": 8}, "attributes": {"ok": true}}]},
	{"table_name": "bt_missing", "rows": [
		{"type": "PUT", "primary_key": {"id": 1}},
		{"type": "DELETE", "primary_key": {"id": 1}}]}]');
SELECT * FROM pg_temp.dump('bt_cond');

--
-- repeated keys
--
SELECT ots.create_table('bt_rep', 'id integer', partitions => 2);
-- ten PUTs of one key: the last wins
SELECT count(*) FILTER (WHERE is_ok) AS ok FROM pg_temp.bw(jsonb_build_array(jsonb_build_object(
	'table_name', 'bt_rep', 'rows',
	(SELECT jsonb_agg(jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 1}'::jsonb,
										 'attributes', jsonb_build_object('n', i, 'c' || i, i)) ORDER BY i)
	   FROM generate_series(1, 10) i))));
SELECT * FROM pg_temp.dump('bt_rep');
-- ten UPDATEs of different columns: all of them
SELECT count(*) FILTER (WHERE is_ok) AS ok FROM pg_temp.bw(jsonb_build_array(jsonb_build_object(
	'table_name', 'bt_rep', 'rows',
	(SELECT jsonb_agg(jsonb_build_object('type', 'UPDATE', 'primary_key', '{"id": 2}'::jsonb,
										 'put', jsonb_build_object('u' || i, i)) ORDER BY i)
	   FROM generate_series(1, 10) i))));
SELECT * FROM pg_temp.dump('bt_rep') WHERE primary_key = '{"id": 2}';
-- UPDATEs of the same column: the last one's value
SELECT * FROM pg_temp.bw('[{"table_name": "bt_rep", "rows": [
	{"type": "UPDATE", "primary_key": {"id": 3}, "put": {"v": "first"}},
	{"type": "UPDATE", "primary_key": {"id": 3}, "put": {"v": "second"}},
	{"type": "UPDATE", "primary_key": {"id": 3}, "increment": {"n": 1}},
	{"type": "UPDATE", "primary_key": {"id": 3}, "increment": {"n": 1}, "return_type": "RT_AFTER_MODIFY"}]}]');
SELECT * FROM pg_temp.dump('bt_rep') WHERE primary_key = '{"id": 3}';
-- PUT then DELETE, DELETE then PUT: in order
SELECT * FROM pg_temp.bw('[{"table_name": "bt_rep", "rows": [
	{"type": "PUT", "primary_key": {"id": 4}, "attributes": {"a": 1}},
	{"type": "DELETE", "primary_key": {"id": 4}},
	{"type": "DELETE", "primary_key": {"id": 5}},
	{"type": "PUT", "primary_key": {"id": 5}, "attributes": {"b": 1}}]}]');
SELECT * FROM pg_temp.dump('bt_rep') WHERE primary_key IN ('{"id": 4}', '{"id": 5}') ORDER BY primary_key;
-- repeated keys with a condition: the whole request is rejected, nothing applied
SELECT * FROM pg_temp.bw('[{"table_name": "bt_rep", "rows": [
	{"type": "PUT", "primary_key": {"id": 9}},
	{"type": "PUT", "primary_key": {"id": 6}},
	{"type": "PUT", "primary_key": {"id": 6}, "condition": "EXPECT_EXIST"}]}]');
SELECT * FROM pg_temp.bw('[{"table_name": "bt_rep", "rows": [
	{"type": "UPDATE", "primary_key": {"id": 6}, "put": {"a": 1}, "condition": "EXPECT_NOT_EXIST"},
	{"type": "PUT", "primary_key": {"id": 9}},
	{"type": "DELETE", "primary_key": {"id": 6}}]}]');
SELECT * FROM pg_temp.bw('[{"table_name": "bt_rep", "rows": [
	{"type": "PUT", "primary_key": {"id": 9}},
	{"type": "PUT", "primary_key": {"id": 6}},
	{"type": "UPDATE", "primary_key": {"id": 6}, "put": {"a": 1},
	 "column_condition": {"column": "a", "comparator": "=", "value": 1}}]}]');
SELECT * FROM pg_temp.bw('[{"table_name": "bt_rep", "rows": [
	{"type": "DELETE", "primary_key": {"id": 6},
	 "column_condition": {"column": "a", "comparator": "=", "value": 1}},
	{"type": "PUT", "primary_key": {"id": 6}, "condition": "EXPECT_EXIST"}]}]');
SELECT count(*) FROM pg_temp.dump('bt_rep') WHERE primary_key IN ('{"id": 6}', '{"id": 9}');
-- "IGNORE" is no check; the same key in other tables is not a repeat
SELECT * FROM pg_temp.bw('[
	{"table_name": "bt_rep", "rows": [
		{"type": "PUT", "primary_key": {"id": 6}, "condition": "IGNORE"},
		{"type": "PUT", "primary_key": {"id": 6}, "attributes": {"z": 1}, "condition": "IGNORE"}]},
	{"table_name": "bt2", "rows": [
		{"type": "PUT", "primary_key": {"id": 6}, "condition": "EXPECT_NOT_EXIST"}]}]');
SELECT * FROM pg_temp.dump('bt_rep') WHERE primary_key = '{"id": 6}';
-- two entries of one table are one table: a key repeated across them follows the same
-- rules (issue 12 item 18): applied in order (also by the bulk path of plain rows) ...
SELECT * FROM pg_temp.bw('[
	{"table_name": "bt_rep", "rows": [
		{"type": "PUT", "primary_key": {"id": 7}, "attributes": {"a": 1}},
		{"type": "PUT", "primary_key": {"id": 8}, "attributes": {"a": 1}}]},
	{"table_name": "bt2", "rows": [{"type": "PUT", "primary_key": {"id": 7}}]},
	{"table_name": "bt_rep", "rows": [
		{"type": "PUT", "primary_key": {"id": 7}, "attributes": {"b": 2}},
		{"type": "DELETE", "primary_key": {"id": 8}}]}]');
SELECT * FROM pg_temp.dump('bt_rep') WHERE primary_key IN ('{"id": 7}', '{"id": 8}') ORDER BY primary_key;
-- ... and with a condition on either side the whole request is rejected, nothing applied
SELECT * FROM pg_temp.bw('[
	{"table_name": "bt_rep", "rows": [{"type": "PUT", "primary_key": {"id": 10}, "attributes": {"a": 1}}]},
	{"table_name": "bt_rep", "rows": [
		{"type": "PUT", "primary_key": {"id": 10}, "attributes": {"b": 2}, "condition": "EXPECT_EXIST"}]}]');
SELECT * FROM pg_temp.bw('[
	{"table_name": "bt_rep", "rows": [
		{"type": "UPDATE", "primary_key": {"id": 10}, "put": {"a": 1},
		 "column_condition": {"column": "a", "comparator": "=", "value": 1}}]},
	{"table_name": "bt2", "rows": [{"type": "PUT", "primary_key": {"id": 10}}]},
	{"table_name": "bt_rep", "rows": [{"type": "DELETE", "primary_key": {"id": 10}}]}]');
SELECT count(*) FROM pg_temp.dump('bt_rep') WHERE primary_key = '{"id": 10}';
SELECT count(*) FROM pg_temp.dump('bt2') WHERE primary_key = '{"id": 10}';
-- ... whatever name each entry gives the table (unqualified, schema-qualified)
SELECT * FROM pg_temp.bw('[
	{"table_name": "bt_rep", "rows": [{"type": "PUT", "primary_key": {"id": 11}, "attributes": {"a": 1}}]},
	{"table_name": "public.bt_rep", "rows": [
		{"type": "PUT", "primary_key": {"id": 11}, "attributes": {"b": 2}, "condition": "EXPECT_EXIST"}]}]');
SELECT count(*) FROM pg_temp.dump('bt_rep') WHERE primary_key = '{"id": 11}';

--
-- atomic batches
--
SELECT ots.create_table('bt_atom', 'pk1 integer, pk2 string', partitions => 2);
-- all rows of one partition key: all applied
SELECT * FROM pg_temp.bw('[{"table_name": "bt_atom", "rows": [
	{"type": "PUT", "primary_key": {"pk1": 0, "pk2": "a"}, "attributes": {"v": 1}},
	{"type": "PUT", "primary_key": {"pk1": 0, "pk2": "b"}, "attributes": {"v": 2}},
	{"type": "UPDATE", "primary_key": {"pk1": 0, "pk2": "a"}, "increment": {"n": 1}},
	{"type": "DELETE", "primary_key": {"pk1": 0, "pk2": "c"}}]}]', true);
SELECT * FROM pg_temp.dump('bt_atom');
-- two partition keys: every row fails, nothing is applied
SELECT * FROM pg_temp.bw('[{"table_name": "bt_atom", "rows": [
	{"type": "PUT", "primary_key": {"pk1": 0, "pk2": "x"}},
	{"type": "PUT", "primary_key": {"pk1": 1, "pk2": "x"}},
	{"type": "DELETE", "primary_key": {"pk1": 0, "pk2": "a"}}]}]', true);
SELECT * FROM pg_temp.dump('bt_atom');
-- every row carries one message: the atomic (first) key and the first key that differs
SELECT * FROM pg_temp.bw('[{"table_name": "bt_atom", "rows": [
	{"type": "PUT", "primary_key": {"pk1": 5, "pk2": "x"}},
	{"type": "PUT", "primary_key": {"pk1": 5, "pk2": "y"}},
	{"type": "PUT", "primary_key": {"pk1": 7, "pk2": "x"}},
	{"type": "DELETE", "primary_key": {"pk1": 8, "pk2": "a"}},
	{"type": "PUT", "primary_key": {"pk1": 5, "pk2": "z"}}]}]', true);
SELECT * FROM pg_temp.dump('bt_atom') WHERE (primary_key ->> 'pk1')::int = 5;
-- the same rows without is_atomic: all applied
SELECT * FROM pg_temp.bw('[{"table_name": "bt_atom", "rows": [
	{"type": "PUT", "primary_key": {"pk1": 0, "pk2": "x"}},
	{"type": "PUT", "primary_key": {"pk1": 1, "pk2": "x"}},
	{"type": "DELETE", "primary_key": {"pk1": 0, "pk2": "a"}}]}]', false);
SELECT * FROM pg_temp.dump('bt_atom');
-- one failing row fails them all: its own error, and the others name it
SELECT * FROM pg_temp.bw('[{"table_name": "bt_atom", "rows": [
	{"type": "PUT", "primary_key": {"pk1": 1, "pk2": "y"}, "attributes": {"v": 1}},
	{"type": "UPDATE", "primary_key": {"pk1": 1, "pk2": "x"}, "put": {"v": 2}},
	{"type": "PUT", "primary_key": {"pk1": 1, "pk2": "z"}, "condition": "EXPECT_EXIST"},
	{"type": "DELETE", "primary_key": {"pk1": 1, "pk2": "w"}}]}]', true);
SELECT * FROM pg_temp.dump('bt_atom');
-- each table is its own unit: a failing table does not undo another
SELECT * FROM pg_temp.bw('[
	{"table_name": "bt_atom", "rows": [
		{"type": "PUT", "primary_key": {"pk1": 2, "pk2": "a"}},
		{"type": "PUT", "primary_key": {"pk1": 2, "pk2": "b"}}]},
	{"table_name": "bt2", "rows": [
		{"type": "PUT", "primary_key": {"id": 20}},
		{"type": "PUT", "primary_key": {"id": 21}}]}]', true);
SELECT * FROM pg_temp.dump('bt_atom') WHERE (primary_key ->> 'pk1')::int = 2;
SELECT * FROM pg_temp.dump('bt2') WHERE (primary_key ->> 'id')::int >= 20;
-- a string partition key, and an unknown table
SELECT * FROM pg_temp.bw('[
	{"table_name": "bt1", "rows": [
		{"type": "PUT", "primary_key": {"k1": "p", "k2": 1}},
		{"type": "PUT", "primary_key": {"k1": "q", "k2": 1}}]},
	{"table_name": "bt_missing", "rows": [{"type": "PUT", "primary_key": {"id": 1}}]}]', true);
-- is_atomic NULL is false
SELECT "index", is_ok FROM pg_temp.bw('[{"table_name": "bt1", "rows": [
	{"type": "PUT", "primary_key": {"k1": "p", "k2": 1}},
	{"type": "PUT", "primary_key": {"k1": "q", "k2": 1}}]}]', NULL) ORDER BY "index";

--
-- batch_write_row request shape and limits: whole-request errors
--
SELECT * FROM ots.batch_write_row('[]');
SELECT * FROM ots.batch_write_row(NULL);
SELECT * FROM ots.batch_write_row('{"table_name": "bt1", "rows": []}');
SELECT * FROM ots.batch_write_row('"bt1"');
SELECT * FROM ots.batch_write_row('[{"table_name": "bt1", "rows": []}]');
SELECT * FROM ots.batch_write_row('[{"table_name": "bt2", "rows": [{"type": "PUT", "primary_key": {"id": 1}}]},
									{"table_name": "bt1", "rows": []}]');
SELECT * FROM ots.batch_write_row('[{"table_name": "bt1"}]');
SELECT * FROM ots.batch_write_row('[{"table_name": "bt1", "rows": {"type": "PUT"}}]');
SELECT * FROM ots.batch_write_row('[{"rows": [{"type": "PUT", "primary_key": {"id": 1}}]}]');
SELECT * FROM ots.batch_write_row('[["bt1"]]');
SELECT * FROM ots.batch_write_row('[{"table_name": "bt2", "rows": [{"type": "MERGE", "primary_key": {"id": 1}}]}]');
SELECT * FROM ots.batch_write_row('[{"table_name": "bt2", "rows": [{"primary_key": {"id": 1}}]}]');
SELECT * FROM ots.batch_write_row('[{"table_name": "bt2", "rows": [{"type": "PUT", "primary_key": {"id": 1}}, 5]}]');
-- a shape error anywhere rejects the whole request
SELECT * FROM ots.batch_write_row('[{"table_name": "bt2", "rows": [{"type": "PUT", "primary_key": {"id": 30}},
																  {"type": "PUT ", "primary_key": {"id": 31}}]}]');
SELECT count(*) FROM pg_temp.dump('bt2') WHERE primary_key IN ('{"id": 30}', '{"id": 31}');
-- 200 rows are accepted, 201 are not (even across tables that do not exist)
SELECT count(*), bool_and(is_ok) FROM pg_temp.bw(jsonb_build_array(jsonb_build_object(
	'table_name', 'bt2', 'rows',
	(SELECT jsonb_agg(jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('id', 1000 + i)))
	   FROM generate_series(1, 200) i))));
SELECT count(*) FROM pg_temp.dump('bt2') WHERE (primary_key ->> 'id')::int > 1000;
SELECT * FROM pg_temp.bw(jsonb_build_array(
	jsonb_build_object('table_name', 'bt2', 'rows',
		(SELECT jsonb_agg(jsonb_build_object('type', 'DELETE', 'primary_key', jsonb_build_object('id', 1000 + i)))
		   FROM generate_series(1, 100) i)),
	jsonb_build_object('table_name', 'bt1', 'rows',
		(SELECT jsonb_agg(jsonb_build_object('type', 'DELETE', 'primary_key', jsonb_build_object('k1', 'x', 'k2', i)))
		   FROM generate_series(1, 101) i))));
SELECT * FROM pg_temp.bw((SELECT jsonb_agg(jsonb_build_object('table_name', 'nothere' || i, 'rows',
	'[{"type": "PUT", "primary_key": {"id": 1}}]'::jsonb)) FROM generate_series(1, 201) i));
SELECT count(*) FROM pg_temp.dump('bt2') WHERE (primary_key ->> 'id')::int > 1000;

-- total data size: at most 4 MB of key and cell names and values
-- (3 rows x (2 + 8) key bytes + 3 x 1 name bytes + values = 4194304, then 4194305)
SELECT count(*), bool_and(is_ok) FROM pg_temp.bw(jsonb_build_array(jsonb_build_object(
	'table_name', 'bt2', 'rows', jsonb_build_array(
		jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 40}'::jsonb,
						   'attributes', jsonb_build_object('v', repeat('a', 2000000))),
		jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 41}'::jsonb,
						   'attributes', jsonb_build_object('v', repeat('b', 2000000))),
		jsonb_build_object('type', 'UPDATE', 'primary_key', '{"id": 42}'::jsonb,
						   'put', jsonb_build_object('v', repeat('c', 194271)))))));
SELECT * FROM pg_temp.bw(jsonb_build_array(jsonb_build_object(
	'table_name', 'bt2', 'rows', jsonb_build_array(
		jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 43}'::jsonb,
						   'attributes', jsonb_build_object('v', repeat('a', 2000000))),
		jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 44}'::jsonb,
						   'attributes', jsonb_build_object('v', repeat('b', 2000000))),
		jsonb_build_object('type', 'UPDATE', 'primary_key', '{"id": 45}'::jsonb,
						   'put', jsonb_build_object('v', repeat('c', 194272)))))));
-- an explicit timestamp adds 8 bytes and an increment 8 (2000011 x 2 + 10 + 1 + 194245 + 8
-- + 10 + 1 + 8 = 4194305)
SELECT * FROM pg_temp.bw(jsonb_build_array(jsonb_build_object(
	'table_name', 'bt2', 'rows', jsonb_build_array(
		jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 43}'::jsonb,
						   'attributes', jsonb_build_object('v', repeat('a', 2000000))),
		jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 44}'::jsonb,
						   'attributes', jsonb_build_object('v', repeat('b', 2000000))),
		jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 45}'::jsonb,
						   'attributes', jsonb_build_object('v', jsonb_build_object(
							   'value', repeat('c', 194245), 'ts', 1466762754000)),
						   'condition', 'IGNORE'),
		jsonb_build_object('type', 'UPDATE', 'primary_key', '{"id": 46}'::jsonb,
						   'increment', '{"n": 1}'::jsonb)))));
-- a Binary value counts its decoded bytes (2000011 x 2 + 10 + 1 + 194269 + 1 + 1 = 4194304)
SELECT count(*), bool_and(is_ok) FROM pg_temp.bw(jsonb_build_array(jsonb_build_object(
	'table_name', 'bt2', 'rows', jsonb_build_array(
		jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 47}'::jsonb,
						   'attributes', jsonb_build_object('v', repeat('a', 2000000))),
		jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 48}'::jsonb,
						   'attributes', jsonb_build_object('v', repeat('b', 2000000))),
		jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 49}'::jsonb,
						   'attributes', jsonb_build_object(
							   'v', jsonb_build_object('$binary', translate(encode(convert_to(repeat('c', 194269), 'UTF8'), 'base64'), E'\n', '')),
							   'w', 'c'))))));
SELECT (primary_key ->> 'id')::int AS id,
	   coalesce(length(decode(attributes #>> '{v,$binary}', 'base64')), length(attributes ->> 'v')) AS len
  FROM pg_temp.dump('bt2') WHERE (primary_key ->> 'id')::int BETWEEN 40 AND 49 ORDER BY id;

-- a timestamp outside [0, INT64_MAX/1000) anywhere rejects the whole request
SELECT * FROM pg_temp.bw('[{"table_name": "bt1", "rows": [
	{"type": "PUT", "primary_key": {"k1": "t", "k2": 1}},
	{"type": "PUT", "primary_key": {"k1": "t", "k2": 2}, "attributes": {"v": {"value": 1, "ts": -1}}}]}]');
SELECT * FROM pg_temp.bw('[{"table_name": "bt1", "rows": [
	{"type": "PUT", "primary_key": {"k1": "t", "k2": 1}},
	{"type": "UPDATE", "primary_key": {"k1": "t", "k2": 2},
	 "put": {"v": [{"value": 1, "ts": 1000}, {"value": 2, "ts": 9223372036854775}]}}]}]');
SELECT * FROM pg_temp.bw('[{"table_name": "bt1", "rows": [
	{"type": "PUT", "primary_key": {"k1": "t", "k2": 1}},
	{"type": "UPDATE", "primary_key": {"k1": "t", "k2": 2}, "delete": {"v": -5}}]}]');
SELECT * FROM pg_temp.bw('[{"table_name": "bt_missing", "rows": [
	{"type": "PUT", "primary_key": {"k1": "t", "k2": 2}, "attributes": {"v": {"value": 1, "ts": -1}}}]}]');
SELECT count(*) FROM pg_temp.dump('bt1') WHERE primary_key ->> 'k1' = 't';
-- INT64_MAX/1000 - 1 is a valid timestamp
SELECT * FROM pg_temp.bw('[{"table_name": "bt1", "rows": [
	{"type": "PUT", "primary_key": {"k1": "t", "k2": 3}, "attributes": {"v": {"value": 1, "ts": 9223372036854774}}}]}]');
SELECT * FROM pg_temp.dump('bt1') WHERE primary_key ->> 'k1' = 't';

--
-- plain PUTs and DELETEs with distinct keys go the bulk way: new keys straight into
-- their partitions; when one key exists, one upsert writes them all, replacing rows
--
SELECT ots.create_table('bt_bulk', 'k string, n integer', partitions => 4);
SELECT ots.create_table('bt_bulkh', 'k string, n integer', hash_prefix_length => 2, partitions => 4);
-- 40 new rows over every partition of each table; the bulk way takes one
-- subtransaction per table, the per-row way one per row (each a transaction id)
SELECT pg_current_xact_id()::text::bigint AS bulk_xid0 \gset
SELECT t, count(*) FILTER (WHERE is_ok) AS ok
  FROM unnest(ARRAY['bt_bulk', 'bt_bulkh']) t,
	   LATERAL pg_temp.bw(jsonb_build_array(jsonb_build_object('table_name', t, 'rows',
		 (SELECT jsonb_agg(jsonb_build_object('type', 'PUT',
					'primary_key', jsonb_build_object('k', 'k' || i % 10, 'n', i),
					'attributes', jsonb_build_object('v', i)))
			FROM generate_series(1, 40) i))))
 GROUP BY t ORDER BY t;
SELECT pg_current_xact_id()::text::bigint - :bulk_xid0 < 20 AS bulk_way;
-- every partition got rows
SELECT t, count(DISTINCT tableoid) AS partitions_used, count(*) AS rows
  FROM (SELECT 'bt_bulk' AS t, tableoid FROM "bt_bulk$data"
		UNION ALL SELECT 'bt_bulkh', tableoid FROM "bt_bulkh$data") s
 GROUP BY t ORDER BY t;
-- 5 existing keys among 10 new ones: all 15 written, the 5 replaced (no "v", only "w")
SELECT t, count(*) FILTER (WHERE is_ok) AS ok
  FROM unnest(ARRAY['bt_bulk', 'bt_bulkh']) t,
	   LATERAL pg_temp.bw(jsonb_build_array(jsonb_build_object('table_name', t, 'rows',
		 (SELECT jsonb_agg(jsonb_build_object('type', 'PUT',
					'primary_key', jsonb_build_object('k', 'k' || i % 10, 'n', i),
					'attributes', jsonb_build_object('w', -i)))
			FROM generate_series(36, 50) i))))
 GROUP BY t ORDER BY t;
SELECT primary_key, attributes FROM pg_temp.dump('bt_bulk')
 WHERE (primary_key ->> 'n')::int BETWEEN 34 AND 41 ORDER BY (primary_key ->> 'n')::int;
SELECT count(*) AS rows,
	   count(*) FILTER (WHERE attributes ? 'w' AND (primary_key ->> 'n')::int <= 40) AS replaced,
	   count(*) FILTER (WHERE attributes ? 'v' AND attributes ? 'w') AS mixed
  FROM pg_temp.dump('bt_bulkh');
-- deletes of present and absent keys
SELECT count(*) FILTER (WHERE is_ok) AS ok
  FROM pg_temp.bw(jsonb_build_array(jsonb_build_object('table_name', 'bt_bulk', 'rows',
		 (SELECT jsonb_agg(jsonb_build_object('type', 'DELETE',
					'primary_key', jsonb_build_object('k', 'k' || i % 10, 'n', i)))
			FROM generate_series(41, 60) i))));
SELECT count(*) AS rows FROM pg_temp.dump('bt_bulk');

--
-- batch_get_row
--
-- several tables, keys in request order; "index" counts within each table's list;
-- a missing row is a result without a row
SELECT * FROM pg_temp.bg('[
	{"table_name": "bt1", "primary_keys": [{"k1": "a", "k2": 2}, {"k1": "zz", "k2": 1}, {"k1": "a", "k2": 1}]},
	{"table_name": "bt2", "primary_keys": [{"id": 2}]},
	{"table_name": "bt1", "primary_keys": [{"k1": "a", "k2": 1}, {"k1": "a", "k2": 1}]}]');
-- per-row errors: a wrong key, an unknown table
SELECT * FROM pg_temp.bg('[
	{"table_name": "bt2", "primary_keys": [{"id": 2}, {"id": "2"}, {"idx": 2}, {"id": 2, "x": 1}, {"id": {"$inf": "max"}}]},
	{"table_name": "bt_missing", "primary_keys": [{"id": 1}, {"id": 2}]}]');
-- an entry without keys reads nothing, as Tablestore's does (the Python
-- SDK's test_no_item_in_batch_ops); a request without entries is refused
SELECT * FROM pg_temp.bg('[{"table_name": "bt2", "primary_keys": []}]');
SELECT * FROM pg_temp.bg('[{"table_name": "bt2", "primary_keys": []}, {"table_name": "bt2", "primary_keys": [{"id": 2}]}]');
-- read options, per table entry
SELECT * FROM pg_temp.bg('[
	{"table_name": "bt1", "primary_keys": [{"k1": "a", "k2": 2}, {"k1": "a", "k2": 1}], "columns_to_get": ["y", "cnt"]},
	{"table_name": "bt1", "primary_keys": [{"k1": "a", "k2": 2}], "max_versions": 2, "columns_to_get": ["x", "y"]},
	{"table_name": "bt1", "primary_keys": [{"k1": "a", "k2": 2}], "time_range": {"start_time": 0, "end_time": 3000}},
	{"table_name": "bt1", "primary_keys": [{"k1": "a", "k2": 2}], "with_timestamps": true, "columns_to_get": ["y"]},
	{"table_name": "bt1", "primary_keys": [{"k1": "a", "k2": 2}], "start_column": "d", "end_column": "z"},
	{"table_name": "bt1", "primary_keys": [{"k1": "a", "k2": 1}, {"k1": "a", "k2": 2}],
	 "filter": {"column": "y", "comparator": "=", "value": "two", "pass_if_missing": false}},
	{"table_name": "bt1", "primary_keys": [{"k1": "a", "k2": 1}], "columns_to_get": ["nothing"]},
	{"table_name": "bt1", "primary_keys": [{"k1": "a", "k2": 2}], "filter": {"column_pagination": {"offset": 1, "limit": 1}}}]');
-- a bad read option fails its rows
SELECT * FROM pg_temp.bg('[
	{"table_name": "bt1", "primary_keys": [{"k1": "a", "k2": 1}], "max_versions": 0},
	{"table_name": "bt1", "primary_keys": [{"k1": "a", "k2": 1}], "filter": {"not": []}},
	{"table_name": "bt2", "primary_keys": [{"id": 2}]}]');
-- whole-request errors: shape and limits
SELECT * FROM ots.batch_get_row('[]');
SELECT * FROM ots.batch_get_row(NULL);
SELECT * FROM ots.batch_get_row('{"table_name": "bt2", "primary_keys": [{"id": 2}]}');
SELECT * FROM ots.batch_get_row('[{"table_name": "bt2"}]');
SELECT * FROM ots.batch_get_row('[{"table_name": "bt2", "primary_keys": {"id": 2}}]');
SELECT * FROM ots.batch_get_row('[{"primary_keys": [{"id": 2}]}]');
SELECT * FROM ots.batch_get_row('[{"table_name": "bt2", "primary_keys": [{"id": 2}], "max_versions": "2"}]');
SELECT * FROM ots.batch_get_row('[{"table_name": "bt2", "primary_keys": [{"id": 2}], "columns_to_get": "n"}]');
-- 100 keys are accepted, 101 are not (counted over all tables)
SELECT count(*), count(*) FILTER (WHERE primary_key IS NOT NULL) AS found
  FROM pg_temp.bg(jsonb_build_array(jsonb_build_object('table_name', 'bt2', 'primary_keys',
	(SELECT jsonb_agg(jsonb_build_object('id', i)) FROM generate_series(1, 100) i))));
SELECT * FROM pg_temp.bg(jsonb_build_array(
	jsonb_build_object('table_name', 'bt2', 'primary_keys',
		(SELECT jsonb_agg(jsonb_build_object('id', i)) FROM generate_series(1, 50) i)),
	jsonb_build_object('table_name', 'bt_missing', 'primary_keys',
		(SELECT jsonb_agg(jsonb_build_object('id', i)) FROM generate_series(1, 51) i))));
-- capacity units per row: the key and the data read, at least 1
SELECT "index", consumed FROM pg_temp.bg('[{"table_name": "bt2", "primary_keys": [{"id": 40}, {"id": 45}, {"id": 999}]}]')
 ORDER BY "index";

SELECT ots.delete_table(t)
  FROM unnest(ARRAY['bt1', 'bt2', 'bt_auto', 'bt_cond', 'bt_rep', 'bt_atom', 'bt_bulk', 'bt_bulkh']) t ORDER BY t;
DROP FUNCTION pg_temp.bw(jsonb, boolean);
DROP FUNCTION pg_temp.bg(jsonb);
DROP FUNCTION pg_temp.dump(text);
