-- request_fields: every jsonb object shape of a request refuses a field it
-- does not know, with OTSParameterInvalid naming the field and where it is,
-- and changes nothing.  One case per shape and per nesting level: batch
-- requests (table entries, rows of each type, their conditions and return
-- options), batch_get_row entries, filters and column conditions (single,
-- composite, nested, pagination), time ranges, update operations and their
-- cells, value objects, primary-key values and range bounds.  Attribute
-- maps and primary keys, whose keys are column names, are not such shapes.
-- Only the ots API is used (no storage), so the cluster suite runs this file
-- through ots_proxy too: the proxy forwards every field, and the shards
-- refuse them as a single node does.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

SELECT ots.create_table('rf', 'k string, n integer', max_versions => 3, partitions => 2);
SELECT ots.create_table('rf_bin', 'b binary', partitions => 1);
SELECT consumed FROM ots.put_row('rf', '{"k": "a", "n": 1}', '{"v": 1, "s": "x"}');
SELECT consumed FROM ots.put_row('rf', '{"k": "b", "n": 2}', '{"v": 2}');
SELECT consumed FROM ots.put_row('rf_bin', '{"b": {"$binary": "AA=="}}', '{"v": 1}');

-- every stored cell of both tables with its timestamp, read through the API
CREATE FUNCTION pg_temp.snapshot() RETURNS text LANGUAGE sql AS $$
	SELECT md5(string_agg(r, ',' ORDER BY r)) FROM (
		SELECT 'rf ' || primary_key::text || attributes::text AS r
		  FROM ots.get_range_rows('rf', '{"k": {"$inf": "min"}, "n": {"$inf": "min"}}',
								  '{"k": {"$inf": "max"}, "n": {"$inf": "max"}}',
								  max_versions => 3, with_timestamps => true)
		UNION ALL
		SELECT 'rf_bin ' || primary_key::text || attributes::text
		  FROM ots.get_range_rows('rf_bin', '{"b": {"$inf": "min"}}', '{"b": {"$inf": "max"}}',
								  max_versions => 3, with_timestamps => true)) s
$$;
-- runs one statement: "ok", or "SQLSTATE: message" and whether the stored cells are as before
CREATE FUNCTION pg_temp.bad(query text, OUT result text, OUT unchanged boolean)
LANGUAGE plpgsql AS $$
DECLARE
	before text := pg_temp.snapshot();
BEGIN
	BEGIN
		EXECUTE query;
		result := 'ok';
	EXCEPTION WHEN OTHERS THEN
		result := SQLSTATE || ': ' || SQLERRM;
	END;
	unchanged := pg_temp.snapshot() IS NOT DISTINCT FROM before;
END
$$;
-- the same for a batch: each row's outcome in request order, or the whole
-- call's error; unchanged: whether the stored cells are as before
CREATE FUNCTION pg_temp.bad_batch(query text)
	RETURNS TABLE (ord integer, row_index integer, result text, unchanged boolean)
LANGUAGE plpgsql AS $$
DECLARE
	before text := pg_temp.snapshot();
	r record;
BEGIN
	ord := 0;
	BEGIN
		FOR r IN EXECUTE query LOOP
			ord := ord + 1;
			row_index := r.index;
			result := CASE WHEN r.is_ok THEN 'ok' ELSE r.error_code || ': ' || r.error_message END;
			RETURN NEXT;
		END LOOP;
	EXCEPTION WHEN OTHERS THEN
		ord := ord + 1;
		row_index := NULL;
		result := SQLSTATE || ': ' || SQLERRM;
		RETURN NEXT;
	END;
	ord := ord + 1;
	row_index := NULL;
	result := '(after the call)';
	unchanged := pg_temp.snapshot() IS NOT DISTINCT FROM before;
	RETURN NEXT;
END
$$;

--
-- 1. The report: a PUT row with "attribute_columns" for "attributes" was
-- applied as a row without attributes, wiping the stored row's.  Now the
-- whole request is refused before any row is written, and the row keeps
-- its attributes.
--
SELECT * FROM pg_temp.bad_batch($$SELECT * FROM ots.batch_write_row('[{"table_name": "rf", "rows": [
  {"type": "PUT", "primary_key": {"k": "a", "n": 1}, "attribute_columns": {"v": 9}}]}]')$$);
SELECT primary_key, attributes FROM ots.get_row('rf', '{"k": "a", "n": 1}');

--
-- 2. batch_write_row: the request's table entries and rows (a field of one
-- row type is unknown to another), their conditions and return options.
-- A malformed entry or row fails the whole request, as a row that is no
-- object or has no known type does: nothing is written, not even the rows
-- before it.
--
SELECT c.n, c.shape, b.* FROM (VALUES
  (1, 'table entry', $$SELECT * FROM ots.batch_write_row('[{"table_name": "rf", "is_atomic": true, "rows": [
     {"type": "PUT", "primary_key": {"k": "c", "n": 3}, "attributes": {"v": 3}}]}]')$$),
  (2, 'table entry ($entry)', $$SELECT * FROM ots.batch_write_row('[{"table_name": "rf", "$entry": 0, "rows": [
     {"type": "PUT", "primary_key": {"k": "c", "n": 3}, "attributes": {"v": 3}}]}]')$$),
  (3, 'PUT row, after a good row', $$SELECT * FROM ots.batch_write_row('[{"table_name": "rf", "rows": [
     {"type": "PUT", "primary_key": {"k": "c", "n": 3}, "attributes": {"v": 3}},
     {"type": "PUT", "primary_key": {"k": "a", "n": 1}, "attributes": {"v": 4}, "conditon": "EXPECT_EXIST"}]}]')$$),
  (4, 'PUT row, in the second entry', $$SELECT * FROM ots.batch_write_row('[
     {"table_name": "rf_bin", "rows": [{"type": "PUT", "primary_key": {"b": {"$binary": "AQ=="}}}]},
     {"table_name": "rf", "rows": [{"type": "PUT", "primary_key": {"k": "c", "n": 3}, "put": {"v": 3}}]}]')$$),
  (5, 'UPDATE row', $$SELECT * FROM ots.batch_write_row('[{"table_name": "rf", "rows": [
     {"type": "UPDATE", "primary_key": {"k": "a", "n": 1}, "puts": {"v": 3}}]}]')$$),
  (6, 'UPDATE row (a PUT field)', $$SELECT * FROM ots.batch_write_row('[{"table_name": "rf", "rows": [
     {"type": "UPDATE", "primary_key": {"k": "a", "n": 1}, "attributes": {"v": 3}}]}]')$$),
  (7, 'DELETE row (a PUT field)', $$SELECT * FROM ots.batch_write_row('[{"table_name": "rf", "rows": [
     {"type": "DELETE", "primary_key": {"k": "a", "n": 1}, "attributes": {"v": 3}}]}]')$$),
  (8, 'row condition (Tablestore''s name)', $$SELECT * FROM ots.batch_write_row('[{"table_name": "rf", "rows": [
     {"type": "DELETE", "primary_key": {"k": "a", "n": 1}, "row_existence": "EXPECT_NOT_EXIST"}]}]')$$),
  (9, 'return options (Tablestore''s name)', $$SELECT * FROM ots.batch_write_row('[{"table_name": "rf", "rows": [
     {"type": "UPDATE", "primary_key": {"k": "a", "n": 1}, "increment": {"v": 1},
      "return_content": {"return_type": "RT_AFTER_MODIFY"}}]}]')$$),
  (10, 'atomic batch', $$SELECT * FROM ots.batch_write_row('[{"table_name": "rf", "rows": [
     {"type": "PUT", "primary_key": {"k": "a", "n": 1}, "attributes": {"v": 5}},
     {"type": "PUT", "primary_key": {"k": "a", "n": 2}, "attributes": {"v": 5}, "transaction_id": "x"}]}]', true)$$)) c(n, shape, q),
  LATERAL pg_temp.bad_batch(c.q) b
 ORDER BY c.n, b.ord;

--
-- 3. What a row's own operation parses (its key, cells, values, column
-- condition) fails that row only, as any other malformed key or value of a
-- row does; the other rows are written
--
SELECT c.n, c.shape, b.* FROM (VALUES
  (1, 'column_condition', $$SELECT * FROM ots.batch_write_row('[{"table_name": "rf", "rows": [
     {"type": "PUT", "primary_key": {"k": "a", "n": 1}, "attributes": {"v": 6},
      "column_condition": {"column": "v", "comparator": "=", "value": 1, "pass_if_mising": true}},
     {"type": "PUT", "primary_key": {"k": "d", "n": 4}, "attributes": {"v": 4}}]}]')$$),
  (2, 'cell of a PUT', $$SELECT * FROM ots.batch_write_row('[{"table_name": "rf", "rows": [
     {"type": "PUT", "primary_key": {"k": "a", "n": 1}, "attributes": {"v": {"value": 6, "timestamp": 5}}},
     {"type": "PUT", "primary_key": {"k": "e", "n": 5}, "attributes": {"v": 5}}]}]')$$),
  (3, 'value object of an UPDATE', $$SELECT * FROM ots.batch_write_row('[{"table_name": "rf", "rows": [
     {"type": "UPDATE", "primary_key": {"k": "a", "n": 1}, "put": {"v": {"$double": 1.5, "precision": 2}}}]}]')$$),
  (4, 'primary-key value', $$SELECT * FROM ots.batch_write_row('[{"table_name": "rf_bin", "rows": [
     {"type": "DELETE", "primary_key": {"b": {"$binary": "AA==", "encoding": "base64"}}}]}]')$$)) c(n, shape, q),
  LATERAL pg_temp.bad_batch(c.q) b
 ORDER BY c.n, b.ord;

--
-- 4. batch_get_row: a table entry (its keys, read options) fails the whole
-- request; what each key's read parses (the key, the time range, the
-- filter) fails that key, as other malformed keys and options do
--
SELECT c.n, c.shape, b.* FROM (VALUES
  (1, 'table entry (Tablestore''s token)', $$SELECT * FROM ots.batch_get_row('[{"table_name": "rf",
     "primary_keys": [{"k": "a", "n": 1}], "token": "x"}]')$$),
  (2, 'table entry (a misspelt option)', $$SELECT * FROM ots.batch_get_row('[{"table_name": "rf",
     "primary_keys": [{"k": "a", "n": 1}], "columns": ["v"]}]')$$),
  (3, 'table entry (a write field)', $$SELECT * FROM ots.batch_get_row('[
     {"table_name": "rf", "primary_keys": [{"k": "a", "n": 1}]},
     {"table_name": "rf", "rows": [], "primary_keys": [{"k": "b", "n": 2}]}]')$$),
  (4, 'table entry ($entry)', $$SELECT * FROM ots.batch_get_row('[{"table_name": "rf", "$entry": 1,
     "primary_keys": [{"k": "a", "n": 1}]}]')$$),
  (5, 'with_timestamps not a boolean', $$SELECT * FROM ots.batch_get_row('[{"table_name": "rf",
     "primary_keys": [{"k": "a", "n": 1}], "with_timestamps": "yes"}]')$$),
  (6, 'key value', $$SELECT * FROM ots.batch_get_row('[{"table_name": "rf_bin",
     "primary_keys": [{"b": {"$binary": "AA==", "x": 1}}, {"b": {"$binary": "AA=="}}]}]')$$),
  (7, 'time_range', $$SELECT * FROM ots.batch_get_row('[{"table_name": "rf",
     "primary_keys": [{"k": "a", "n": 1}], "time_range": {"start_time": 0, "end_time": 10, "max_versions": 1}}]')$$),
  (8, 'filter', $$SELECT * FROM ots.batch_get_row('[{"table_name": "rf",
     "primary_keys": [{"k": "a", "n": 1}], "filter": {"or": [{"column": "v", "comparator": "=", "value": 1},
     {"column": "v", "comparator": "=", "value": 2, "ignore_case": true}]}}]')$$)) c(n, shape, q),
  LATERAL pg_temp.bad_batch(c.q) b
 ORDER BY c.n, b.ord;

--
-- 5. the single-row functions and ranges: filters and column conditions at
-- every level, time ranges, update operations and cells, value objects,
-- primary-key values and range bounds
--
SELECT c.n, c.shape, b.* FROM (VALUES
  (1, 'filter: single', $$SELECT ots.get_row('rf', '{"k": "a", "n": 1}', filter => '{"column": "v", "comparator": "=", "value": 1, "latest_only": true}')$$),
  (2, 'filter: "and" node', $$SELECT ots.get_row('rf', '{"k": "a", "n": 1}', filter => '{"and": [{"column": "v", "comparator": "=", "value": 1}, {"column": "s", "comparator": "=", "value": "x"}], "limit": 1}')$$),
  (3, 'filter: "not" node', $$SELECT ots.get_row('rf', '{"k": "a", "n": 1}', filter => '{"not": [{"column": "v", "comparator": "=", "value": 1}], "x": 1}')$$),
  (4, 'filter: single under "not" under "or"', $$SELECT ots.get_row('rf', '{"k": "a", "n": 1}', filter => '{"or": [{"column": "v", "comparator": "=", "value": 1}, {"not": [{"column": "s", "comparator": "=", "value": "x", "case": 1}]}]}')$$),
  (5, 'filter: column_pagination', $$SELECT ots.get_row('rf', '{"k": "a", "n": 1}', filter => '{"column_pagination": {"offset": 0, "limit": 1, "page": 2}}')$$),
  (6, 'filter: the value of a single', $$SELECT ots.get_row('rf', '{"k": "a", "n": 1}', filter => '{"column": "v", "comparator": "=", "value": {"$double": 1.5, "x": 1}}')$$),
  (7, 'get_range filter', $$SELECT ots.get_range('rf', '{"k": {"$inf": "min"}, "n": {"$inf": "min"}}', '{"k": {"$inf": "max"}, "n": {"$inf": "max"}}', filter => '{"column": "v", "comparator": "=", "value": 1, "x": 1}')$$),
  (8, 'column_condition: put_row', $$SELECT ots.put_row('rf', '{"k": "a", "n": 1}', '{"v": 7}', column_condition => '{"column": "v", "comparator": "=", "value": 1, "x": 1}')$$),
  (9, 'column_condition: "and" of update_row', $$SELECT ots.update_row('rf', '{"k": "a", "n": 1}', put => '{"v": 7}', column_condition => '{"and": [{"column": "v", "comparator": "=", "value": 1}, {"column": "s", "comparator": "=", "value": "x"}], "or": 1, "x": 1}')$$),
  (10, 'column_condition: delete_row', $$SELECT ots.delete_row('rf', '{"k": "a", "n": 1}', column_condition => '{"not": [{"column": "v", "comparator": "=", "value": 9, "x": 1}]}')$$),
  (11, 'time_range: get_row', $$SELECT ots.get_row('rf', '{"k": "a", "n": 1}', time_range => '{"start_time": 0, "end_time": 10, "inclusive": true}')$$),
  (12, 'time_range: specific, get_range', $$SELECT ots.get_range('rf', '{"k": {"$inf": "min"}, "n": {"$inf": "min"}}', '{"k": {"$inf": "max"}, "n": {"$inf": "max"}}', time_range => '{"specific_time": 1, "x": 1}')$$),
  (13, 'put_row: cell', $$SELECT ots.put_row('rf', '{"k": "a", "n": 1}', '{"v": {"value": 7, "tss": 5}}')$$),
  (14, 'put_row: a cell among versions', $$SELECT ots.put_row('rf', '{"k": "a", "n": 1}', '{"v": [{"value": 7, "ts": 5}, {"value": 8, "ts": 6, "x": 1}]}')$$),
  (15, 'put_row: value object', $$SELECT ots.put_row('rf', '{"k": "a", "n": 1}', '{"v": {"$binary": "AA==", "x": 1}}')$$),
  (16, 'put_row: value object in a cell', $$SELECT ots.put_row('rf', '{"k": "a", "n": 1}', '{"v": {"value": {"$binary": "AA==", "x": 1}, "ts": 5}}')$$),
  (17, 'update_row put: cell', $$SELECT ots.update_row('rf', '{"k": "a", "n": 1}', put => '{"v": {"value": 7, "ts": 5, "x": 1}}')$$),
  (18, 'update_row increment: cell', $$SELECT ots.update_row('rf', '{"k": "a", "n": 1}', increment => '{"v": {"value": 1, "x": 1}}')$$),
  (19, 'primary-key value: put_row', $$SELECT ots.put_row('rf_bin', '{"b": {"$binary": "AA==", "x": 1}}', '{"v": 7}')$$),
  (20, 'primary-key value: get_row', $$SELECT ots.get_row('rf_bin', '{"b": {"$binary": "AA==", "x": 1}}')$$),
  (21, 'primary-key value: an unknown form', $$SELECT ots.get_row('rf', '{"k": {"$string": "a"}, "n": 1}')$$),
  (22, 'range bound: $inf', $$SELECT ots.get_range('rf', '{"k": {"$inf": "min", "x": 1}, "n": {"$inf": "min"}}', '{"k": {"$inf": "max"}, "n": {"$inf": "max"}}')$$),
  (23, 'range bound: get_range_rows', $$SELECT count(*) FROM ots.get_range_rows('rf', '{"k": {"$inf": "min"}, "n": {"$inf": "min"}}', '{"k": {"$inf": "max"}, "n": {"$inf": "max", "inclusive": false}}')$$),
  (24, 'auto-increment key value', $$SELECT ots.put_row('rf', '{"k": "a", "n": {"$auto_increment": true, "start": 1}}')$$)) c(n, shape, q),
  LATERAL pg_temp.bad(c.q) b
 ORDER BY c.n;

-- the stored rows after all of the above: a and b as written at the start,
-- c never written, d and e written by the good rows of section 3
SELECT primary_key, attributes FROM ots.get_range_rows('rf', '{"k": {"$inf": "min"}, "n": {"$inf": "min"}}',
                                                         '{"k": {"$inf": "max"}, "n": {"$inf": "max"}}')
 ORDER BY primary_key->>'k';

SELECT ots.delete_table('rf');
SELECT ots.delete_table('rf_bin');
