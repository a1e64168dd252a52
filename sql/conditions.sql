-- conditions: row existence and column conditions on put/update/delete,
-- comparators, pass_if_missing, latest_version_only, type mismatch,
-- composites, filter shape limits, and get_row's filter.
-- Quiet: the extension may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

SELECT ots.create_table('cnd', 'pk string', max_versions => 10,
                        max_version_offset => 9223372036854);

-- row existence: every write with every expectation, on a missing and an existing row;
-- each case prints the outcome and the row afterwards
CREATE FUNCTION pg_temp.existence_case(op text, cond text, present boolean) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  res text;
BEGIN
  PERFORM ots.delete_row('cnd', '{"pk": "e"}');
  IF present THEN
    PERFORM ots.put_row('cnd', '{"pk": "e"}', '{"v": "before", "w": 1}');
  END IF;
  BEGIN
    CASE op
      WHEN 'put' THEN
        PERFORM ots.put_row('cnd', '{"pk": "e"}', '{"v": "after"}', condition => cond);
      WHEN 'update' THEN
        PERFORM ots.update_row('cnd', '{"pk": "e"}', put => '{"v": "after"}', condition => cond);
      WHEN 'delete' THEN
        PERFORM ots.delete_row('cnd', '{"pk": "e"}', condition => cond);
    END CASE;
    res := 'ok';
  EXCEPTION WHEN OTHERS THEN
    res := SQLSTATE || ' ' || SQLERRM;
  END;
  RETURN res || ' -> ' ||
    coalesce((SELECT attributes::text FROM ots.get_row('cnd', '{"pk": "e"}')), 'no row');
END $$;
SELECT o.op, c.cond, p.present, pg_temp.existence_case(o.op, c.cond, p.present) AS outcome
  FROM (VALUES (1, 'put'), (2, 'update'), (3, 'delete')) o(n, op),
       (VALUES (1, 'IGNORE'), (2, 'EXPECT_EXIST'), (3, 'EXPECT_NOT_EXIST')) c(n, cond),
       (VALUES (false), (true)) p(present)
 ORDER BY o.n, c.n, p.present;

-- a failed conditional write changes nothing
SELECT consumed FROM ots.put_row('cnd', '{"pk": "f"}', '{"v": 1}');
SELECT consumed FROM ots.put_row('cnd', '{"pk": "f"}', '{"v": 2}', condition => 'EXPECT_NOT_EXIST');
SELECT consumed FROM ots.update_row('cnd', '{"pk": "f"}', put => '{"v": 3}', increment => '{"n": 1}',
  column_condition => '{"column": "v", "comparator": "=", "value": 99}');
SELECT consumed FROM ots.delete_row('cnd', '{"pk": "f"}',
  column_condition => '{"column": "v", "comparator": "!=", "value": 1}');
SELECT primary_key, attributes FROM ots.get_row('cnd', '{"pk": "f"}');
SELECT consumed FROM ots.update_row('cnd', '{"pk": "f-missing"}', put => '{"v": 3}', condition => 'EXPECT_EXIST');
SELECT primary_key IS NULL AS no_row FROM ots.get_row('cnd', '{"pk": "f-missing"}');

-- column conditions: every comparator, passing and failing, on each value type.
-- The row: Integer n = 5, String s = "m", Double d = 2.5, Boolean b = true, Binary x = 0x0102
SELECT consumed FROM ots.put_row('cnd', '{"pk": "c"}',
  '{"n": 5, "s": "m", "d": 2.5, "b": true, "x": {"$binary": "AQI="}}');
CREATE FUNCTION pg_temp.condition_holds(cond jsonb) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ots.update_row('cnd', '{"pk": "c"}', put => '{"touched": 1}', column_condition => cond);
  RETURN true;
EXCEPTION WHEN SQLSTATE 'OT003' THEN
  RETURN false;
END $$;
SELECT t.col, t.cmp, t.val, pg_temp.condition_holds(
         jsonb_build_object('column', t.col, 'comparator', t.cmp, 'value', t.val)) AS holds
  FROM (VALUES
    (1, 'n', '=', '5'::jsonb), (2, 'n', '=', '4'),
    (3, 'n', '!=', '4'), (4, 'n', '!=', '5'),
    (5, 'n', '>', '4'), (6, 'n', '>', '5'),
    (7, 'n', '>=', '5'), (8, 'n', '>=', '6'),
    (9, 'n', '<', '6'), (10, 'n', '<', '5'),
    (11, 'n', '<=', '5'), (12, 'n', '<=', '4'),
    (13, 'n', 'EQUAL', '5'), (14, 'n', 'NOT_EQUAL', '5'),
    (15, 'n', 'GREATER_THAN', '-9223372036854775808'), (16, 'n', 'GREATER_EQUAL', '9223372036854775807'),
    (17, 'n', 'LESS_THAN', '9223372036854775807'), (18, 'n', 'LESS_EQUAL', '-1'),
    (19, 'n', '==', '5'), (20, 'n', '<>', '5'), (21, 'n', 'equal', '5'),
    (22, 's', '=', '"m"'), (23, 's', '>', '"l"'), (24, 's', '>', '"mm"'),
    (25, 's', '<', '"n"'), (26, 's', '>', '"Z"'), (27, 's', '<', '"m0"'),
    (28, 's', '>=', '"m"'), (29, 's', '<=', '"M"'), (30, 's', '!=', '"m"'),
    (31, 'd', '=', '2.5'), (32, 'd', '>', '2.4'), (33, 'd', '<', '2.4'),
    (34, 'd', '>=', '2.50'), (35, 'd', '!=', '{"$double": 2.5}'), (36, 'd', '<=', '{"$double": 2.5}'),
    (37, 'b', '=', 'true'), (38, 'b', '=', 'false'), (39, 'b', '!=', 'false'), (40, 'b', '>', 'false'),
    (41, 'x', '=', '{"$binary": "AQI="}'), (42, 'x', '<', '{"$binary": "AQM="}'),
    (43, 'x', '>', '{"$binary": "AQ=="}'), (44, 'x', '!=', '{"$binary": "AQI="}')
  ) t(n, col, cmp, val)
 ORDER BY t.n;
-- none of those writes touched the compared columns
SELECT attributes - 'touched' AS unchanged FROM ots.get_row('cnd', '{"pk": "c"}');

-- type mismatch: every comparator is false, NOT_EQUAL included
SELECT t.col, t.cmp, t.val, pg_temp.condition_holds(
         jsonb_build_object('column', t.col, 'comparator', t.cmp, 'value', t.val)) AS holds
  FROM (VALUES
    (1, 'n', '=', '"5"'::jsonb), (2, 'n', '!=', '"5"'), (3, 'n', '>', '"5"'), (4, 'n', '<', '"5"'),
    (5, 'n', '=', '5.0'), (6, 'n', '!=', '5.0'), (7, 'n', '>=', '4.5'),
    (8, 'd', '=', '2'), (9, 'd', '!=', '2'), (10, 's', '!=', '1'), (11, 'b', '!=', '1'),
    (12, 'x', '=', '"AQI="'), (13, 'x', '!=', '"AQI="'), (14, 's', '<=', 'true')
  ) t(n, col, cmp, val)
 ORDER BY t.n;

-- pass_if_missing: a missing column passes by default, fails with false
SELECT pg_temp.condition_holds('{"column": "zz", "comparator": "=", "value": 1}') AS default_missing,
       pg_temp.condition_holds('{"column": "zz", "comparator": "=", "value": 1, "pass_if_missing": true}') AS pass_true,
       pg_temp.condition_holds('{"column": "zz", "comparator": "=", "value": 1, "pass_if_missing": false}') AS pass_false,
       pg_temp.condition_holds('{"column": "zz", "comparator": "!=", "value": 1, "pass_if_missing": false}') AS ne_pass_false;
-- ... also on a missing row
SELECT consumed FROM ots.put_row('cnd', '{"pk": "m"}', '{"v": 1}',
  column_condition => '{"column": "v", "comparator": "=", "value": 7}');
SELECT attributes FROM ots.get_row('cnd', '{"pk": "m"}');
SELECT consumed FROM ots.put_row('cnd', '{"pk": "m2"}', '{"v": 1}',
  column_condition => '{"column": "v", "comparator": "=", "value": 7, "pass_if_missing": false}');
SELECT primary_key IS NULL AS no_row FROM ots.get_row('cnd', '{"pk": "m2"}');

-- latest_version_only: versions 0..9 of v; "v == 1" fails on the latest, holds on any
SELECT consumed FROM ots.put_row('cnd', '{"pk": "lv"}',
  (SELECT jsonb_build_object('v', jsonb_agg(jsonb_build_object('value', g, 'ts', 1466762754000 + g)))
     FROM generate_series(0, 9) g));
SELECT consumed FROM ots.update_row('cnd', '{"pk": "lv"}', put => '{"w": 1}',
  column_condition => '{"column": "v", "comparator": "==", "value": 1}');
SELECT consumed FROM ots.update_row('cnd', '{"pk": "lv"}', put => '{"w": 1}',
  column_condition => '{"column": "v", "comparator": "==", "value": 1, "latest_version_only": true}');
SELECT consumed FROM ots.update_row('cnd', '{"pk": "lv"}', put => '{"w": 2}',
  column_condition => '{"column": "v", "comparator": "==", "value": 1, "latest_version_only": false}');
SELECT attributes FROM ots.get_row('cnd', '{"pk": "lv"}');
-- any version: "v > 8" holds (9), "v > 9" does not
SELECT consumed FROM ots.update_row('cnd', '{"pk": "lv"}', put => '{"w": 3}',
  column_condition => '{"column": "v", "comparator": ">", "value": 9, "latest_version_only": false}');
-- latest_version_only false sees only versions visible under the table's max_versions
SELECT ots.update_table('cnd', max_versions => 5);
SELECT consumed FROM ots.update_row('cnd', '{"pk": "lv"}', put => '{"w": 4}',
  column_condition => '{"column": "v", "comparator": "==", "value": 1, "latest_version_only": false}');
SELECT consumed FROM ots.update_row('cnd', '{"pk": "lv"}', put => '{"w": 5}',
  column_condition => '{"column": "v", "comparator": "==", "value": 5, "latest_version_only": false}');
SELECT ots.update_table('cnd', max_versions => 10);
SELECT attributes FROM ots.get_row('cnd', '{"pk": "lv"}');

-- a primary-key column in a condition
SELECT pg_temp.condition_holds('{"column": "pk", "comparator": "=", "value": "c"}') AS pk_eq,
       pg_temp.condition_holds('{"column": "pk", "comparator": "=", "value": "d"}') AS pk_ne,
       pg_temp.condition_holds('{"column": "pk", "comparator": "<", "value": "d"}') AS pk_lt,
       pg_temp.condition_holds('{"column": "pk", "comparator": "=", "value": 1}') AS pk_type_mismatch;

-- AND / OR / NOT
SELECT t.label, pg_temp.condition_holds(t.f) AS holds
  FROM (VALUES
    (1, 'and true', '{"and": [{"column": "n", "comparator": "=", "value": 5}, {"column": "s", "comparator": "=", "value": "m"}]}'::jsonb),
    (2, 'and false', '{"and": [{"column": "n", "comparator": "=", "value": 5}, {"column": "s", "comparator": "=", "value": "x"}]}'),
    (3, 'or true', '{"or": [{"column": "n", "comparator": "=", "value": 4}, {"column": "s", "comparator": "=", "value": "m"}]}'),
    (4, 'or false', '{"or": [{"column": "n", "comparator": "=", "value": 4}, {"column": "s", "comparator": "=", "value": "x"}]}'),
    (5, 'not true', '{"not": [{"column": "n", "comparator": "=", "value": 4}]}'),
    (6, 'not false', '{"not": [{"column": "n", "comparator": "=", "value": 5}]}'),
    (7, 'not missing', '{"not": [{"column": "zz", "comparator": "=", "value": 5}]}'),
    (8, 'nested true', '{"and": [{"or": [{"column": "n", "comparator": ">", "value": 10}, {"column": "b", "comparator": "=", "value": true}]},
                                 {"not": [{"column": "d", "comparator": "<", "value": 1.0}]}, {"column": "s", "comparator": "!=", "value": "q"}]}'),
    (9, 'nested false', '{"or": [{"and": [{"column": "n", "comparator": ">", "value": 10}, {"column": "b", "comparator": "=", "value": true}]},
                                 {"not": [{"column": "d", "comparator": ">", "value": 1.0}]}]}')
  ) t(n, label, f)
 ORDER BY t.n;
-- a condition together with a row expectation: both must hold
SELECT consumed FROM ots.update_row('cnd', '{"pk": "c"}', put => '{"touched": 2}', condition => 'EXPECT_EXIST',
  column_condition => '{"column": "n", "comparator": "=", "value": 5}');
SELECT consumed FROM ots.update_row('cnd', '{"pk": "c"}', put => '{"touched": 3}', condition => 'EXPECT_NOT_EXIST',
  column_condition => '{"column": "n", "comparator": "=", "value": 5}');
SELECT attributes->'touched' AS touched FROM ots.get_row('cnd', '{"pk": "c"}');

-- filter shape: an OR of 31 leaves (32 nodes) is accepted, 32 leaves (33 nodes) is not
SELECT pg_temp.condition_holds(jsonb_build_object('or',
  (SELECT jsonb_agg(jsonb_build_object('column', 'n', 'comparator', '=', 'value', g)) FROM generate_series(1, 31) g))) AS or_31;
SELECT pg_temp.condition_holds(jsonb_build_object('or',
  (SELECT jsonb_agg(jsonb_build_object('column', 'n', 'comparator', '=', 'value', g)) FROM generate_series(1, 32) g))) AS or_32;
-- NOT takes exactly one sub-filter, AND/OR at least two
SELECT pg_temp.condition_holds('{"not": [{"column": "n", "comparator": "=", "value": 1}, {"column": "n", "comparator": "=", "value": 2}]}');
SELECT pg_temp.condition_holds('{"not": []}');
SELECT pg_temp.condition_holds('{"and": [{"column": "n", "comparator": "=", "value": 5}]}');
SELECT pg_temp.condition_holds('{"or": []}');
-- an unknown comparator, a missing value, an unknown key
SELECT pg_temp.condition_holds('{"column": "n", "comparator": "LIKE", "value": 5}');
SELECT pg_temp.condition_holds('{"column": "n", "comparator": "="}');
SELECT pg_temp.condition_holds('{"column": "n", "comparator": "=", "value": 5, "colour": 1}');
-- an invalid column name in a condition
SELECT pg_temp.condition_holds('{"column": "1n", "comparator": "=", "value": 5}');
-- column pagination is for reads only
SELECT pg_temp.condition_holds('{"column_pagination": {"offset": 0, "limit": 10}}');
SELECT consumed FROM ots.put_row('cnd', '{"pk": "c"}', '{"n": 0}',
  column_condition => '{"column_pagination": {"limit": 1}}');
SELECT attributes - 'touched' AS unchanged FROM ots.get_row('cnd', '{"pk": "c"}');

-- get_row's filter: a row the filter rejects is returned as NULL
SELECT primary_key, attributes FROM ots.get_row('cnd', '{"pk": "c"}',
  filter => '{"column": "n", "comparator": ">", "value": 4}', columns_to_get => ARRAY['n', 's']);
SELECT primary_key IS NULL AS filtered_out, attributes IS NULL AS no_attributes, consumed
  FROM ots.get_row('cnd', '{"pk": "c"}', filter => '{"column": "n", "comparator": ">", "value": 5}');
-- the filter does not trim the columns returned
SELECT attributes - 'touched' AS row FROM ots.get_row('cnd', '{"pk": "c"}',
  filter => '{"column": "b", "comparator": "=", "value": true}');
-- a filtered column outside columns_to_get counts as missing
SELECT primary_key IS NULL AS filtered_out FROM ots.get_row('cnd', '{"pk": "c"}', columns_to_get => ARRAY['s'],
  filter => '{"column": "n", "comparator": "=", "value": 5, "pass_if_missing": false}');
SELECT primary_key IS NULL AS filtered_out FROM ots.get_row('cnd', '{"pk": "c"}', columns_to_get => ARRAY['s'],
  filter => '{"column": "n", "comparator": "=", "value": 4}');
-- the filter sees the cells of the requested time range: versions 0..9 of v,
-- range [base+1, base+3) selects 2 and 1
SELECT consumed FROM ots.put_row('cnd', '{"pk": "tr"}',
  (SELECT jsonb_build_object('v', jsonb_agg(jsonb_build_object('value', g, 'ts', 1466762754000 + g)))
     FROM generate_series(0, 9) g));
SELECT attributes FROM ots.get_row('cnd', '{"pk": "tr"}',
  time_range => '{"start_time": 1466762754001, "end_time": 1466762754003}',
  filter => '{"column": "v", "comparator": "=", "value": 2}');
SELECT primary_key IS NULL AS filtered_out FROM ots.get_row('cnd', '{"pk": "tr"}',
  time_range => '{"start_time": 1466762754001, "end_time": 1466762754003}',
  filter => '{"column": "v", "comparator": "=", "value": 9}');
SELECT primary_key IS NULL AS filtered_out FROM ots.get_row('cnd', '{"pk": "tr"}',
  time_range => '{"start_time": 1466762754001, "end_time": 1466762754003}',
  filter => '{"column": "v", "comparator": "=", "value": 1, "latest_version_only": false}');
-- with max_versions 3 the filter sees 9, 8, 7 only
SELECT primary_key IS NULL AS filtered_out FROM ots.get_row('cnd', '{"pk": "tr"}', max_versions => 3,
  filter => '{"column": "v", "comparator": "=", "value": 7, "latest_version_only": false}');
SELECT primary_key IS NULL AS filtered_out FROM ots.get_row('cnd', '{"pk": "tr"}', max_versions => 3,
  filter => '{"column": "v", "comparator": "=", "value": 6, "latest_version_only": false}');
-- a filter on a column with no cell in the range: pass_if_missing decides
SELECT attributes FROM ots.get_row('cnd', '{"pk": "tr"}',
  time_range => '{"start_time": 1466762754001, "end_time": 1466762754002}',
  filter => '{"column": "w", "comparator": "=", "value": 1}');
SELECT primary_key IS NULL AS filtered_out FROM ots.get_row('cnd', '{"pk": "tr"}',
  time_range => '{"start_time": 1466762754001, "end_time": 1466762754002}',
  filter => '{"column": "w", "comparator": "=", "value": 1, "pass_if_missing": false}');

-- composite and pagination filters on reads (pagination: columns in name order
-- b, d, n, s, touched, x; offset 1 limit 2 -> d, n)
SELECT attributes - 'touched' AS row FROM ots.get_row('cnd', '{"pk": "c"}',
  filter => '{"and": [{"column": "n", "comparator": "=", "value": 5}, {"not": [{"column": "s", "comparator": "=", "value": "z"}]}]}');
SELECT attributes FROM ots.get_row('cnd', '{"pk": "c"}',
  filter => '{"column_pagination": {"offset": 1, "limit": 2}}');
SELECT attributes FROM ots.get_row('cnd', '{"pk": "c"}',
  filter => '{"and": [{"column_pagination": {"limit": 2}}, {"column": "n", "comparator": "=", "value": 5}]}');
-- read filters have the same shape limits
SELECT attributes FROM ots.get_row('cnd', '{"pk": "c"}', filter => jsonb_build_object('or',
  (SELECT jsonb_agg(jsonb_build_object('column', 'n', 'comparator', '=', 'value', g)) FROM generate_series(1, 32) g)));
SELECT attributes FROM ots.get_row('cnd', '{"pk": "c"}',
  filter => '{"and": [{"column": "n", "comparator": "=", "value": 5}]}');

SELECT ots.delete_table('cnd');
