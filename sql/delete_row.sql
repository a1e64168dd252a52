-- delete_row: removes the row and every cell; conditions, return types and
-- capacity units.
-- Quiet: the extension may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

SELECT ots.create_table('del', 'pk1 string, pk2 integer', max_versions => 3,
                        max_version_offset => 9223372036854);
SELECT consumed FROM ots.put_row('del', '{"pk1": "a", "pk2": 1}',
  '{"x": [{"value": 1, "ts": 1466762754000}, {"value": 2, "ts": 1466762754001}], "y": "s"}');
SELECT consumed FROM ots.put_row('del', '{"pk1": "a", "pk2": 2}', '{"x": 10}');
SELECT consumed FROM ots.put_row('del', '{"pk1": "b", "pk2": 1}', '{"x": 20}');

-- deleting an existing row removes it and all its cells; neighbours stay
SELECT primary_key, attributes, consumed FROM ots.delete_row('del', '{"pk1": "a", "pk2": 1}');
SELECT primary_key IS NULL AS gone FROM ots.get_row('del', '{"pk1": "a", "pk2": 1}');
SELECT pk1, pk2, attributes FROM del ORDER BY pk1, pk2;
-- a new put of the key starts from nothing (old versions do not come back)
SELECT consumed FROM ots.put_row('del', '{"pk1": "a", "pk2": 1}', '{"y": "t"}');
SELECT attributes FROM ots.get_row('del', '{"pk1": "a", "pk2": 1}', max_versions => 3,
  time_range => '{"start_time": 0, "end_time": 1466762754002}');
SELECT attributes ? 'x' AS has_x FROM ots.get_row('del', '{"pk1": "a", "pk2": 1}');

-- deleting a missing row with IGNORE succeeds (and still costs 1 write CU)
SELECT primary_key, attributes, consumed FROM ots.delete_row('del', '{"pk1": "zz", "pk2": 9}');
SELECT primary_key, attributes, consumed FROM ots.delete_row('del', '{"pk1": "zz", "pk2": 9}', condition => 'IGNORE');
SELECT count(*) AS rows FROM del;

-- EXPECT_EXIST on an existing row succeeds (and reads)
SELECT consumed FROM ots.delete_row('del', '{"pk1": "a", "pk2": 2}', condition => 'EXPECT_EXIST');
SELECT primary_key IS NULL AS gone FROM ots.get_row('del', '{"pk1": "a", "pk2": 2}');
-- EXPECT_EXIST on a missing row fails
SELECT consumed FROM ots.delete_row('del', '{"pk1": "a", "pk2": 2}', condition => 'EXPECT_EXIST');
-- EXPECT_NOT_EXIST is not allowed for delete_row
SELECT consumed FROM ots.delete_row('del', '{"pk1": "b", "pk2": 1}', condition => 'EXPECT_NOT_EXIST');
SELECT consumed FROM ots.delete_row('del', '{"pk1": "nope", "pk2": 1}', condition => 'EXPECT_NOT_EXIST');
SELECT attributes FROM ots.get_row('del', '{"pk1": "b", "pk2": 1}');
-- an unknown condition
SELECT consumed FROM ots.delete_row('del', '{"pk1": "b", "pk2": 1}', condition => 'MAYBE');

-- RT_PK returns the primary key, RT_NONE nothing, RT_AFTER_MODIFY is refused
SELECT consumed FROM ots.put_row('del', '{"pk1": "r", "pk2": 1}', '{"x": 1}');
SELECT primary_key, attributes FROM ots.delete_row('del', '{"pk1": "r", "pk2": 1}', return_type => 'RT_PK');
SELECT primary_key, attributes FROM ots.delete_row('del', '{"pk1": "r", "pk2": 1}', return_type => 'RT_NONE');
SELECT primary_key, attributes FROM ots.delete_row('del', '{"pk1": "r", "pk2": 1}', return_type => 'RT_AFTER_MODIFY');
-- RT_PK on a missing row still returns the requested key
SELECT primary_key, attributes FROM ots.delete_row('del', '{"pk1": "r", "pk2": 2}', return_type => 'RT_PK');

-- a column condition on delete
SELECT consumed FROM ots.put_row('del', '{"pk1": "c", "pk2": 1}', '{"state": "open", "n": 5}');
-- false: the row stays
SELECT consumed FROM ots.delete_row('del', '{"pk1": "c", "pk2": 1}',
  column_condition => '{"column": "state", "comparator": "=", "value": "closed"}');
SELECT attributes FROM ots.get_row('del', '{"pk1": "c", "pk2": 1}');
-- a missing column passes by default (pass_if_missing true) ...
SELECT consumed FROM ots.put_row('del', '{"pk1": "c", "pk2": 2}', '{"n": 1}');
SELECT consumed FROM ots.delete_row('del', '{"pk1": "c", "pk2": 2}',
  column_condition => '{"column": "state", "comparator": "=", "value": "closed"}');
SELECT primary_key IS NULL AS gone FROM ots.get_row('del', '{"pk1": "c", "pk2": 2}');
-- ... and fails with pass_if_missing false
SELECT consumed FROM ots.put_row('del', '{"pk1": "c", "pk2": 3}', '{"n": 1}');
SELECT consumed FROM ots.delete_row('del', '{"pk1": "c", "pk2": 3}',
  column_condition => '{"column": "state", "comparator": "=", "value": "closed", "pass_if_missing": false}');
SELECT primary_key IS NOT NULL AS kept FROM ots.get_row('del', '{"pk1": "c", "pk2": 3}');
-- true (composite), together with EXPECT_EXIST: the row goes
SELECT consumed FROM ots.delete_row('del', '{"pk1": "c", "pk2": 1}', condition => 'EXPECT_EXIST',
  column_condition => '{"and": [{"column": "state", "comparator": "=", "value": "open"},
                                {"column": "n", "comparator": ">=", "value": 5}]}');
SELECT primary_key IS NULL AS gone FROM ots.get_row('del', '{"pk1": "c", "pk2": 1}');
-- a column condition on a missing row: IGNORE + a condition that fails on missing columns
SELECT consumed FROM ots.delete_row('del', '{"pk1": "c", "pk2": 99}',
  column_condition => '{"column": "n", "comparator": "=", "value": 1, "pass_if_missing": false}');
-- pagination cannot be a write condition
SELECT consumed FROM ots.delete_row('del', '{"pk1": "c", "pk2": 3}',
  column_condition => '{"column_pagination": {"offset": 0, "limit": 1}}');

-- capacity units: write ceil(pk/4096); a condition adds read ceil(pk/4096)
SELECT consumed FROM ots.put_row('del', jsonb_build_object('pk1', repeat('k', 1024), 'pk2', 1));
SELECT consumed FROM ots.delete_row('del', jsonb_build_object('pk1', repeat('k', 1024), 'pk2', 1),
  condition => 'EXPECT_EXIST');

-- primary-key validation applies
SELECT consumed FROM ots.delete_row('del', '{"pk1": "a"}');
SELECT consumed FROM ots.delete_row('del', '{"pk1": "a", "pk2": "1"}');
SELECT consumed FROM ots.delete_row('del', '{"pk1": {"$inf": "max"}, "pk2": 1}');
SELECT consumed FROM ots.delete_row('del_missing', '{"pk1": "a", "pk2": 1}');

SELECT pk1, pk2, attributes FROM del ORDER BY pk1, pk2;

SELECT ots.delete_table('del');
