-- server_timestamps: successive server-stamped writes to one row get
-- strictly increasing timestamps, on every write path that stamps cells:
-- put_row replacing the row (unconditional, and with a condition),
-- update_row (put and increment), batch_write_row per row, atomic and in
-- bulk (the bulk replaces the rows that exist), and INSERT ... ON CONFLICT
-- DO UPDATE and UPDATE on the table's view.  Each path twice: many writes in
-- one statement (several fall in one millisecond), and one write over a row
-- whose marker is ahead of the clock (the clock stepped back, or the row came
-- from a server whose clock ran ahead).  INSERT and COPY on the view create
-- rows: a live row is a unique violation, so they replace only an expired
-- row, whose marker is older than the clock by its TTL.  Two sessions
-- writing one row: test/specs/server_stamp_concurrent.spec.
-- (quiet: the extension may already exist, the files share one database)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

SELECT ots.create_table('sts', 'k string', partitions => 2, defined_columns => 'v integer');
SELECT consumed FROM ots.put_row('sts', '{"k": "r"}', '{"v": 0}');

-- every path writes column v of row r; %1$s is the write's number
CREATE TEMP TABLE sts_paths (n int, path text, stmt text);
INSERT INTO sts_paths VALUES
  (1, 'put_row', $$SELECT ots.put_row('sts', '{"k": "r"}', jsonb_build_object('v', %1$s))$$),
  (2, 'put_row EXPECT_EXIST', $$SELECT ots.put_row('sts', '{"k": "r"}', jsonb_build_object('v', %1$s), condition => 'EXPECT_EXIST')$$),
  (3, 'update_row put', $$SELECT ots.update_row('sts', '{"k": "r"}', put => jsonb_build_object('v', %1$s))$$),
  (4, 'update_row increment', $$SELECT ots.update_row('sts', '{"k": "r"}', increment => '{"v": 1}')$$),
  (5, 'batch per row', $$SELECT * FROM ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'sts', 'rows', jsonb_build_array(
        jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('k', 'r'), 'attributes', jsonb_build_object('v', %1$s), 'return_type', 'RT_PK')))))$$),
  (6, 'batch atomic', $$SELECT * FROM ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'sts', 'rows', jsonb_build_array(
        jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('k', 'r'), 'attributes', jsonb_build_object('v', %1$s))))), is_atomic => true)$$),
  (7, 'batch bulk', $$SELECT * FROM ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'sts', 'rows', jsonb_build_array(
        jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('k', 'r'), 'attributes', jsonb_build_object('v', %1$s)),
        jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('k', 'other'), 'attributes', jsonb_build_object('v', %1$s))))))$$),
  (8, 'view INSERT ON CONFLICT DO UPDATE', $$INSERT INTO sts (k, v) VALUES ('r', %1$s) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v$$),
  (9, 'view UPDATE', $$UPDATE sts SET v = %1$s WHERE k = 'r'$$);

-- the timestamp of row r's cell of v
CREATE FUNCTION pg_temp.stamp() RETURNS bigint LANGUAGE sql AS $$
	SELECT (attributes -> 'v' -> 0 ->> 'ts')::bigint
	  FROM ots.get_row('sts', '{"k": "r"}', with_timestamps => true)
$$;

-- how many of n writes in a row were not stamped later than the write before
CREATE FUNCTION pg_temp.not_later(stmt text, n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	prev bigint := pg_temp.stamp();
	cur bigint;
	bad int := 0;
BEGIN
	FOR i IN 1 .. n LOOP
		EXECUTE format(stmt, i);
		cur := pg_temp.stamp();
		IF cur <= prev THEN
			bad := bad + 1;
		END IF;
		prev := cur;
	END LOOP;
	RETURN bad;
END
$$;

-- many writes in one statement: each later than the one before
SELECT n, path, pg_temp.not_later(stmt, 300) AS not_later FROM sts_paths ORDER BY n;

-- row r's stored marker and cell put an hour ahead of the clock, as plain
-- SQL on the storage (or a restore) may store them; returns that time
CREATE FUNCTION pg_temp.ahead() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	f bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint + 3600000;
BEGIN
	UPDATE "sts$data"
	   SET "$cells" = format('{"cells": {"v": [{"ts": %s, "value": 0}]}, "row_ts": %s}', f, f)::ots.cells,
		   "$oldest_ts" = f
	 WHERE k = 'r';
	RETURN f;
END
$$;

-- one write over a row whose marker is ahead of the clock: stamped the
-- millisecond after it
CREATE FUNCTION pg_temp.after_ahead(stmt text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	f bigint := pg_temp.ahead();
BEGIN
	EXECUTE format(stmt, 1);
	RETURN pg_temp.stamp() - f;
END
$$;
SELECT n, path, pg_temp.after_ahead(stmt) AS after_marker FROM sts_paths ORDER BY n;

-- a row deleted and written again starts from the clock: its earlier
-- stamps went with it
CREATE TEMP TABLE sts_f AS SELECT pg_temp.ahead() AS f;
SELECT consumed FROM ots.delete_row('sts', '{"k": "r"}');
SELECT consumed FROM ots.put_row('sts', '{"k": "r"}', '{"v": 1}');
SELECT pg_temp.stamp() < f AS from_the_clock FROM sts_f;

SELECT ots.delete_table('sts');
