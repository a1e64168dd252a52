-- versions_ttl: TTL visibility (cells and the row rule), reviving unpurged
-- cells, max_versions hiding and reviving versions, and the write window.
-- Timestamps are computed relative to now and never printed.
-- Quiet: the extension may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

-- The whole TTL sequence runs in one transaction, the table made in it: its
-- purge job, scheduled there, starts only after the COMMIT (one started
-- between a committed create_table and the LOCK deadlocked with
-- update_table), and the lock keeps any other purge out, so "unpurged"
-- cells stay unpurged until the end.
-- (ots reads the clock, not the transaction start time.)
-- psql's ON_ERROR_ROLLBACK keeps the expected errors from aborting it.
\set ON_ERROR_ROLLBACK on
BEGIN;
SELECT ots.create_table('vt', 'pk string', max_versions => 3, time_to_live => 2,
                        max_version_offset => 9223372036854);
LOCK TABLE "vt$data" IN SHARE ROW EXCLUSIVE MODE;

-- t0: server-stamped cells; a cell stamped 1.5 s ago; a row without cells
SELECT floor(extract(epoch from clock_timestamp()) * 1000)::bigint AS t0 \gset
SELECT consumed FROM ots.put_row('vt', '{"pk": "a"}', '{"x": 1}');
SELECT consumed FROM ots.put_row('vt', '{"pk": "e"}', '{"x": 10}');
SELECT consumed FROM ots.put_row('vt', '{"pk": "b"}',
  jsonb_build_object('x', jsonb_build_object('value', 2, 'ts', :t0 - 1500)));
SELECT consumed FROM ots.put_row('vt', '{"pk": "c"}');
SELECT pk, attributes FROM vt ORDER BY pk;

-- t0 + 1 s: b's cell is 2.5 s old and has expired, but b was written 1 s ago,
-- so b still exists, without columns; a's cell (1 s old) is visible
SELECT pg_sleep(1.0);
SELECT primary_key, attributes FROM ots.get_row('vt', '{"pk": "b"}');
SELECT primary_key, attributes FROM ots.get_row('vt', '{"pk": "b"}', max_versions => 3);
SELECT pk, attributes FROM vt ORDER BY pk;
-- EXPECT_EXIST sees b
SELECT consumed FROM ots.update_row('vt', '{"pk": "b"}', "delete" => '{"x": 1}', condition => 'EXPECT_EXIST');

-- t0 + 2.3 s: a's cell has expired and a's last write is older than the TTL:
-- a is gone; b (last written at t0 + 1 s) is still there without columns;
-- the cell-less row c is gone
SELECT pg_sleep(1.3);
SELECT primary_key IS NULL AS a_gone FROM ots.get_row('vt', '{"pk": "a"}');
SELECT primary_key IS NULL AS c_gone FROM ots.get_row('vt', '{"pk": "c"}');
SELECT pk, attributes FROM vt ORDER BY pk;
-- conditions see the same: a does not exist
SELECT consumed FROM ots.update_row('vt', '{"pk": "a"}', put => '{"y": 1}', condition => 'EXPECT_EXIST');
SELECT consumed FROM ots.delete_row('vt', '{"pk": "a"}', condition => 'EXPECT_EXIST');
-- increment on an expired cell starts again from 0 (e.x was 10)
SELECT attributes FROM ots.update_row('vt', '{"pk": "e"}', increment => '{"x": 5}', return_type => 'RT_AFTER_MODIFY');
SELECT consumed FROM ots.delete_row('vt', '{"pk": "e"}');

-- raising the TTL revives the cells and rows that were not purged
SELECT ots.update_table('vt', time_to_live => 100);
SELECT pk, attributes FROM vt ORDER BY pk;
SELECT primary_key, attributes FROM ots.get_row('vt', '{"pk": "a"}');
-- lowering it hides them again at once
SELECT ots.update_table('vt', time_to_live => 1);
SELECT pk, attributes FROM vt ORDER BY pk;
SELECT consumed FROM ots.update_row('vt', '{"pk": "c"}', put => '{"y": 1}', condition => 'EXPECT_EXIST');

-- writes older than the TTL are rejected (max_version_offset is huge here)
SELECT floor(extract(epoch from clock_timestamp()) * 1000)::bigint AS t1 \gset
SELECT ots.update_table('vt', time_to_live => 2);
SELECT consumed FROM ots.put_row('vt', '{"pk": "d"}',
  jsonb_build_object('x', jsonb_build_object('value', 1, 'ts', :t1 - 3000)));
SELECT consumed FROM ots.update_row('vt', '{"pk": "d"}',
  put => jsonb_build_object('ok', 1, 'x', jsonb_build_object('value', 1, 'ts', :t1 - 3000)));
SELECT primary_key IS NULL AS d_not_written FROM ots.get_row('vt', '{"pk": "d"}');
-- a cell 1 s old is inside the window
SELECT consumed FROM ots.put_row('vt', '{"pk": "d"}',
  jsonb_build_object('x', jsonb_build_object('value', 1, 'ts', :t1 - 1000)));
SELECT attributes FROM ots.get_row('vt', '{"pk": "d"}');
COMMIT;
\set ON_ERROR_ROLLBACK off

-- max_versions: lowering hides versions at once, raising revives them
-- (again in the transaction that makes the table, whose lock keeps a
-- scheduled purge out)
BEGIN;
SELECT ots.create_table('vm', 'pk integer', max_versions => 3,
                        max_version_offset => 9223372036854);
LOCK TABLE "vm$data" IN SHARE ROW EXCLUSIVE MODE;
SELECT consumed FROM ots.put_row('vm', '{"pk": 1}',
  '{"v": [{"value": "v1", "ts": 1466762754001}, {"value": "v2", "ts": 1466762754002}, {"value": "v3", "ts": 1466762754003}]}');
SELECT consumed FROM ots.put_row('vm', '{"pk": 2}',
  '{"v": [{"value": "w1", "ts": 1466762754001}, {"value": "w2", "ts": 1466762754002}, {"value": "w3", "ts": 1466762754003}]}');
SELECT jsonb_path_query_array(attributes, '$.v[*].value') AS visible
  FROM ots.get_row('vm', '{"pk": 1}', max_versions => 10);
SELECT ots.update_table('vm', max_versions => 1);
SELECT jsonb_path_query_array(attributes, '$.v[*].value') AS visible
  FROM ots.get_row('vm', '{"pk": 1}', max_versions => 10);
-- a time range cannot reach the hidden versions
SELECT primary_key, attributes FROM ots.get_row('vm', '{"pk": 1}',
  time_range => '{"start_time": 1466762754001, "end_time": 1466762754003}');
-- a write while max_versions is 1 keeps only the newest version of that row
SELECT consumed FROM ots.update_row('vm', '{"pk": 2}', put => '{"other": 1}');
SELECT ots.update_table('vm', max_versions => 3);
SELECT jsonb_path_query_array(attributes, '$.v[*].value') AS visible
  FROM ots.get_row('vm', '{"pk": 1}', max_versions => 10);
SELECT jsonb_path_query_array(attributes, '$.v[*].value') AS visible
  FROM ots.get_row('vm', '{"pk": 2}', max_versions => 10);
SELECT pk, attributes FROM vm ORDER BY pk;
COMMIT;

-- the write window: max_version_offset 10 s around now
SELECT ots.create_table('vw', 'pk integer', max_version_offset => 10);
SELECT floor(extract(epoch from clock_timestamp()) * 1000)::bigint AS t2 \gset
SELECT consumed FROM ots.put_row('vw', '{"pk": 1}',
  jsonb_build_object('past', jsonb_build_object('value', 1, 'ts', :t2 - 5000),
                     'future', jsonb_build_object('value', 1, 'ts', :t2 + 5000)));
SELECT attributes FROM ots.get_row('vw', '{"pk": 1}');
-- 20 s in the past or in the future is outside: the whole write is rejected
SELECT consumed FROM ots.put_row('vw', '{"pk": 2}',
  jsonb_build_object('a', 1, 'old', jsonb_build_object('value', 1, 'ts', :t2 - 20000)));
SELECT consumed FROM ots.put_row('vw', '{"pk": 2}',
  jsonb_build_object('a', 1, 'late', jsonb_build_object('value', 1, 'ts', :t2 + 20000)));
SELECT consumed FROM ots.update_row('vw', '{"pk": 1}',
  put => jsonb_build_object('a', 1, 'old', jsonb_build_object('value', 1, 'ts', :t2 - 20000)));
SELECT primary_key IS NULL AS no_row FROM ots.get_row('vw', '{"pk": 2}');
SELECT attributes FROM ots.get_row('vw', '{"pk": 1}');
-- a fixed historical timestamp is far outside the default window
SELECT consumed FROM ots.put_row('vw', '{"pk": 3}', '{"h": {"value": 1, "ts": 1466762754000}}');
-- the window changes with update_table at once
SELECT ots.update_table('vw', max_version_offset => 9223372036854);
SELECT consumed FROM ots.put_row('vw', '{"pk": 3}', '{"h": {"value": 1, "ts": 1466762754000}}');
SELECT ots.update_table('vw', max_version_offset => 1);
SELECT consumed FROM ots.put_row('vw', '{"pk": 4}',
  jsonb_build_object('s', jsonb_build_object('value', 1, 'ts', :t2 - 5000)));
-- deleting a version does not check the window
SELECT consumed FROM ots.update_row('vw', '{"pk": 3}', "delete" => '{"h": 1466762754000}');
SELECT primary_key, attributes FROM ots.get_row('vw', '{"pk": 3}');
-- timestamps outside [0, INT64_MAX/1000) are rejected whatever the window
SELECT ots.update_table('vw', max_version_offset => 9223372036854);
SELECT consumed FROM ots.put_row('vw', '{"pk": 5}', '{"h": {"value": 1, "ts": 9223372036854775}}');
SELECT consumed FROM ots.put_row('vw', '{"pk": 5}', '{"h": {"value": 1, "ts": 9223372036854774}}');
SELECT consumed FROM ots.put_row('vw', '{"pk": 5}', '{"h": {"value": 1, "ts": -1}}');
SELECT consumed FROM ots.put_row('vw', '{"pk": 5}', '{"h": {"value": 1, "ts": 0}}');
SELECT attributes FROM ots.get_row('vw', '{"pk": 5}', with_timestamps => true);

SELECT ots.delete_table('vt');
SELECT ots.delete_table('vm');
SELECT ots.delete_table('vw');
