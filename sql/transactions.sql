-- transactions: ots calls are ordinary SQL statements: they commit and roll
-- back with the surrounding transaction (across rows, partitions and tables),
-- honour savepoints and READ ONLY, and their errors are catchable by SQLSTATE.
-- (quiet: the extension may already exist, the files share one database)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
RESET client_min_messages;
\set VERBOSITY terse

SET client_min_messages = warning;  -- table DDL may report how expiry is scheduled
SELECT ots.create_table('tx1', 'pk string', partitions => 4);
SELECT ots.create_table('tx2', 'k integer, sub string', partitions => 4);
RESET client_min_messages;
SELECT consumed FROM ots.put_row('tx1', '{"pk": "keep"}', '{"v": "original"}');
SELECT consumed FROM ots.put_row('tx2', '{"k": 1, "sub": "x"}', '{"n": 1}');

-- BEGIN ... ROLLBACK: writes to many rows, partitions and two tables all vanish
BEGIN;
SELECT count(*) AS puts FROM unnest(ARRAY['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) k,
  LATERAL ots.put_row('tx1', jsonb_build_object('pk', k), '{"v": 1}');
SELECT consumed FROM ots.update_row('tx1', '{"pk": "keep"}', put => '{"v": "changed"}');
SELECT consumed FROM ots.update_row('tx2', '{"k": 1, "sub": "x"}', increment => '{"n": 100}');
SELECT consumed FROM ots.put_row('tx2', '{"k": 2, "sub": "y"}', '{"n": 2}');
SELECT consumed FROM ots.delete_row('tx2', '{"k": 1, "sub": "x"}', condition => 'EXPECT_EXIST');
-- inside the transaction its own writes are visible; they span several partitions
SELECT count(*) AS tx1_rows FROM tx1;
SELECT count(DISTINCT tableoid) > 1 AS several_partitions FROM "tx1$data";
SELECT primary_key IS NULL AS deleted_in_tx FROM ots.get_row('tx2', '{"k": 1, "sub": "x"}');
SELECT attributes FROM ots.get_row('tx1', '{"pk": "keep"}');
ROLLBACK;
SELECT pk, attributes FROM tx1 ORDER BY pk;
SELECT k, sub, attributes FROM tx2 ORDER BY k, sub;

-- BEGIN ... COMMIT: all of them stay
BEGIN;
SELECT count(*) AS puts FROM unnest(ARRAY['a', 'b', 'c', 'd']) k,
  LATERAL ots.put_row('tx1', jsonb_build_object('pk', k), '{"v": 1}');
SELECT consumed FROM ots.update_row('tx2', '{"k": 1, "sub": "x"}', increment => '{"n": 100}');
SELECT consumed FROM ots.put_row('tx2', '{"k": 2, "sub": "y"}', '{"n": 2}');
COMMIT;
SELECT pk, attributes FROM tx1 ORDER BY pk;
SELECT k, sub, attributes FROM tx2 ORDER BY k, sub;

-- SAVEPOINT: rolling back to it undoes only the later calls
BEGIN;
SELECT consumed FROM ots.put_row('tx1', '{"pk": "s1"}', '{"v": 1}');
SAVEPOINT sp;
SELECT consumed FROM ots.put_row('tx1', '{"pk": "s2"}', '{"v": 2}');
SELECT consumed FROM ots.update_row('tx1', '{"pk": "s1"}', put => '{"v": 10}');
SELECT consumed FROM ots.delete_row('tx1', '{"pk": "keep"}');
SELECT consumed FROM ots.update_row('tx2', '{"k": 2, "sub": "y"}', increment => '{"n": 1}');
ROLLBACK TO SAVEPOINT sp;
SELECT consumed FROM ots.put_row('tx1', '{"pk": "s3"}', '{"v": 3}');
COMMIT;
SELECT pk, attributes FROM tx1 WHERE pk IN ('s1', 's2', 's3', 'keep') ORDER BY pk;
SELECT k, sub, attributes FROM tx2 ORDER BY k, sub;

-- a failed call inside a transaction leaves no partial row
BEGIN;
SELECT consumed FROM ots.put_row('tx1', '{"pk": "p"}', '{"s": "text", "n": 1}');
SAVEPOINT before_bad;
-- put and delete_all apply before the failing increment of a String: none of it stays
SELECT consumed FROM ots.update_row('tx1', '{"pk": "p"}', put => '{"added": 1}',
  delete_all => ARRAY['n'], increment => '{"s": 1}');
ROLLBACK TO SAVEPOINT before_bad;
SELECT attributes FROM ots.get_row('tx1', '{"pk": "p"}');
-- one statement writing three rows, the third failing: none of the three stays
SELECT ots.put_row('tx1', jsonb_build_object('pk', 'm' || g),
                   CASE WHEN g = 3 THEN '{"bad": {"$double": "NaN"}}'::jsonb ELSE '{"v": 1}' END)
  FROM generate_series(1, 3) g;
ROLLBACK TO SAVEPOINT before_bad;
SELECT count(*) AS m_rows FROM tx1 WHERE pk LIKE 'm%';
COMMIT;
SELECT pk, attributes FROM tx1 WHERE pk IN ('p', 'm1', 'm2', 'm3') ORDER BY pk;
-- an error outside a savepoint aborts the whole transaction
BEGIN;
SELECT consumed FROM ots.put_row('tx1', '{"pk": "lost"}', '{"v": 1}');
SELECT consumed FROM ots.put_row('tx1', '{"pk": "keep"}', '{"v": 1}', condition => 'EXPECT_NOT_EXIST');
SELECT consumed FROM ots.put_row('tx1', '{"pk": "lost2"}', '{"v": 1}');
COMMIT;
SELECT count(*) AS lost_rows FROM tx1 WHERE pk LIKE 'lost%';

-- PL/pgSQL catches OTS errors by SQLSTATE
DO $$
BEGIN
  PERFORM ots.put_row('tx1', '{"pk": "keep"}', '{"v": 2}', condition => 'EXPECT_NOT_EXIST');
  RAISE NOTICE 'not reached';
EXCEPTION WHEN SQLSTATE 'OT003' THEN
  RAISE NOTICE 'caught OT003: %', SQLERRM;
END $$;
-- ... and reads the details with GET STACKED DIAGNOSTICS
CREATE PROCEDURE pg_temp.show_error(call text)
LANGUAGE plpgsql AS $$
DECLARE
  state text;
  msg text;
BEGIN
  EXECUTE call;
  RAISE NOTICE 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
  RAISE NOTICE '% % %', state, ots.error_code(state), msg;
END $$;
CALL pg_temp.show_error($$SELECT ots.put_row('tx1', '{"pk": "keep"}', condition => 'EXPECT_NOT_EXIST')$$);
CALL pg_temp.show_error($$SELECT ots.put_row('tx1', '{"pk": 1}')$$);
CALL pg_temp.show_error($$SELECT ots.put_row('tx1', '{"pk": "x"}', '{"d": {"$double": "Infinity"}}')$$);
CALL pg_temp.show_error($$SELECT ots.get_row('tx_missing', '{"pk": "x"}')$$);
CALL pg_temp.show_error($$SELECT ots.update_row('tx1', '{"pk": "x"}')$$);
CALL pg_temp.show_error($$SELECT ots.get_row('tx1', '{"pk": "keep"}')$$);
-- a non-OTS SQLSTATE has no OTS code
SELECT ots.error_code('OT003') AS ot003, ots.error_code('OT011') AS ot011, ots.error_code('22012') AS other;
-- a handler can retry with a different action: insert-or-increment
CREATE FUNCTION pg_temp.add_visit(page text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  r ots.row_result;
BEGIN
  BEGIN
    SELECT * INTO r FROM ots.put_row('tx1', jsonb_build_object('pk', page), '{"visits": 1}',
                                     condition => 'EXPECT_NOT_EXIST');
    RETURN 1;
  EXCEPTION WHEN SQLSTATE 'OT003' THEN
    SELECT * INTO r FROM ots.update_row('tx1', jsonb_build_object('pk', page),
                                        increment => '{"visits": 1}', return_type => 'RT_AFTER_MODIFY');
    RETURN (r.attributes->>'visits')::bigint;
  END;
END $$;
SELECT pg_temp.add_visit('home') AS first, pg_temp.add_visit('home') AS second, pg_temp.add_visit('home') AS third;

-- a procedure may commit part of its work and roll back the rest
CREATE PROCEDURE tx_commit_some()
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ots.put_row('tx1', '{"pk": "proc1"}', '{"v": 1}');
  COMMIT;
  PERFORM ots.put_row('tx1', '{"pk": "proc2"}', '{"v": 2}');
  ROLLBACK;
  PERFORM ots.put_row('tx1', '{"pk": "proc3"}', '{"v": 3}');
END $$;
CALL tx_commit_some();
SELECT pk, attributes FROM tx1 WHERE pk LIKE 'proc%' ORDER BY pk;
DROP PROCEDURE tx_commit_some();

-- READ ONLY transactions reject writes and allow reads
BEGIN;
SET TRANSACTION READ ONLY;
SELECT consumed FROM ots.put_row('tx1', '{"pk": "ro"}', '{"v": 1}');
ROLLBACK;
BEGIN READ ONLY;
SELECT consumed FROM ots.update_row('tx1', '{"pk": "keep"}', put => '{"v": 1}');
ROLLBACK;
BEGIN READ ONLY;
SELECT consumed FROM ots.delete_row('tx1', '{"pk": "keep"}');
ROLLBACK;
BEGIN READ ONLY;
CALL pg_temp.show_error($$SELECT ots.put_row('tx1', '{"pk": "ro"}', '{"v": 1}')$$);
SELECT primary_key, attributes, consumed FROM ots.get_row('tx1', '{"pk": "keep"}');
SELECT pk, attributes FROM tx1 WHERE pk = 'keep' ORDER BY pk;
COMMIT;
SELECT primary_key IS NULL AS ro_not_written FROM ots.get_row('tx1', '{"pk": "ro"}');

SET client_min_messages = warning;
SELECT ots.delete_table('tx1');
SELECT ots.delete_table('tx2');
RESET client_min_messages;
