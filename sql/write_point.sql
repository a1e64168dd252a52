-- write_point: every way of changing a stored row reaches the one write
-- point of ots storage (storage_write, through the ots table access method's
-- write callbacks) with the row's old and new cells: the row API, batches
-- (bulk and per row, atomic), purge and TTL removal, and
-- plain INSERT / UPDATE / DELETE / MERGE / COPY / TRUNCATE on the storage.
-- ots.count_writes (on in test/ots.conf) counts what the write point sees,
-- per table, by origin ("ots": a row write ots's row code made through the
-- table AM itself, with cells it built; "sql": anything else, the
-- statements ots runs on storage included, whose rows are checked as any
-- other's) and table AM callback.  A row from plain SQL that ots
-- could not have written is refused before it is stored.
-- (Logical replication apply: tableam; pg_restore: test/dump.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
CREATE EXTENSION IF NOT EXISTS pg_cron;
RESET client_min_messages;
\set VERBOSITY terse
SET ots.purge_schedule = '0 0 31 2 *';	-- no pg_cron run of the test's tables
SHOW ots.count_writes;

SET client_min_messages = warning;
SELECT ots.create_table('wp', 'k string, n integer', max_versions => 2, partitions => 2,
	max_version_offset => 9223372036854);
RESET client_min_messages;

-- wp(label, statement): runs the statement with the counters reset and
-- shows what the write point saw
CREATE FUNCTION pg_temp.wp(label text, statement text)
RETURNS TABLE (step text, origin text, callback text, rows bigint, with_old_cells bigint, with_new_cells bigint)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM ots.stats_forget('"wp$data"');
	EXECUTE statement;
	RETURN QUERY SELECT label, c.* FROM ots.write_point_counts('"wp$data"') c ORDER BY 1, 2, 3;
END
$$;
CREATE FUNCTION pg_temp.try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

-- the row API
SELECT * FROM pg_temp.wp('put_row, new', $$SELECT ots.put_row('wp', '{"k": "a", "n": 1}', '{"v": 1}')$$);
SELECT * FROM pg_temp.wp('put_row, existing', $$SELECT ots.put_row('wp', '{"k": "a", "n": 1}', '{"v": 2}')$$);
SELECT * FROM pg_temp.wp('update_row', $$SELECT ots.update_row('wp', '{"k": "a", "n": 1}', put => '{"w": "x"}')$$);
SELECT * FROM pg_temp.wp('update_row, increment', $$SELECT ots.update_row('wp', '{"k": "a", "n": 1}', increment => '{"c": 5}')$$);
SELECT * FROM pg_temp.wp('put_row, condition fails', $$SELECT pg_temp.try($q$SELECT ots.put_row('wp', '{"k": "a", "n": 1}', '{"v": 3}', condition => 'EXPECT_NOT_EXIST')$q$)$$);
SELECT * FROM pg_temp.wp('delete_row', $$SELECT ots.delete_row('wp', '{"k": "a", "n": 1}')$$);

-- batches: bulk (multi-insert; puts key by key when a key exists; deletes key by key).
-- The write point sees a change in the (sub)transaction that makes it, and
-- what it does is undone with it; the counts are not: when one of a bulk
-- PUT's keys exists, its first try (a multi-insert, counted up to the
-- unique_violation) is rolled back and the rows are written key by key, as
-- put_row writes them (a new key's speculative insert, an existing one's update).
SELECT * FROM pg_temp.wp('batch, bulk PUT of new rows', $$SELECT count(*) FROM ots.batch_write_row(
	'[{"table_name": "wp", "rows": [{"type": "PUT", "primary_key": {"k": "b", "n": 1}, "attributes": {"v": 1}},
	                               {"type": "PUT", "primary_key": {"k": "c", "n": 1}, "attributes": {"v": 1}},
	                               {"type": "PUT", "primary_key": {"k": "d", "n": 1}, "attributes": {"v": 1}}]}]')$$);
SELECT * FROM pg_temp.wp('batch, bulk PUT, one row exists', $$SELECT count(*) FROM ots.batch_write_row(
	'[{"table_name": "wp", "rows": [{"type": "PUT", "primary_key": {"k": "b", "n": 1}, "attributes": {"v": 2}},
	                               {"type": "PUT", "primary_key": {"k": "e", "n": 1}, "attributes": {"v": 2}}]}]')$$);
SELECT * FROM pg_temp.wp('batch, bulk DELETE', $$SELECT count(*) FROM ots.batch_write_row(
	'[{"table_name": "wp", "rows": [{"type": "DELETE", "primary_key": {"k": "d", "n": 1}},
	                               {"type": "DELETE", "primary_key": {"k": "e", "n": 1}}]}]')$$);
-- per row (a condition), and atomic
SELECT * FROM pg_temp.wp('batch, per row', $$SELECT count(*) FROM ots.batch_write_row(
	'[{"table_name": "wp", "rows": [{"type": "UPDATE", "primary_key": {"k": "b", "n": 1}, "condition": "EXPECT_EXIST", "put": {"w": 1}},
	                               {"type": "PUT", "primary_key": {"k": "f", "n": 1}, "condition": "EXPECT_NOT_EXIST", "attributes": {"v": 1}}]}]')$$);
SELECT * FROM pg_temp.wp('batch, atomic', $$SELECT count(*) FROM ots.batch_write_row(
	'[{"table_name": "wp", "rows": [{"type": "PUT", "primary_key": {"k": "g", "n": 1}, "attributes": {"v": 1}},
	                               {"type": "PUT", "primary_key": {"k": "g", "n": 2}, "attributes": {"v": 1}}]}]', true)$$);

-- plain SQL on the storage: rows ots would have written pass
SELECT * FROM pg_temp.wp('INSERT', $$INSERT INTO "wp$data" (k, n, "$cells", "$oldest_ts")
	VALUES ('h', 1, '{"row_ts": 1466762754000, "cells": {"v": [{"ts": 1466762754000, "value": 1}]}}', 1466762754000)$$);
SELECT * FROM pg_temp.wp('INSERT ... ON CONFLICT DO UPDATE', $$INSERT INTO "wp$data" (k, n, "$cells", "$oldest_ts")
	VALUES ('h', 1, '{"row_ts": 1466762754000, "cells": {}}', 1466762754000), ('i', 1, '{"row_ts": 1466762754000, "cells": {}}', 1466762754000)
	ON CONFLICT (k, n) DO UPDATE SET "$cells" = EXCLUDED."$cells", "$oldest_ts" = EXCLUDED."$oldest_ts"$$);
SELECT * FROM pg_temp.wp('UPDATE', $$UPDATE "wp$data" SET "$cells" = '{"row_ts": 1466762754000, "cells": {"v": [{"ts": 9000000000000, "value": 2}, {"ts": 1466762754000, "value": 1}]}}'
	WHERE k IN ('h', 'i')$$);
-- (to the first of these keys that the other leaf holds)
SELECT * FROM pg_temp.wp('UPDATE moving a row to another partition', $$UPDATE "wp$data" SET k =
	(SELECT c FROM unnest('{j,k,l,o,r,s}'::text[]) c
	  WHERE satisfies_hash_partition('"wp$data"'::regclass, 2,
			CASE WHEN satisfies_hash_partition('"wp$data"'::regclass, 2, 0, 'i'::text) THEN 1 ELSE 0 END, c)
	  ORDER BY c LIMIT 1)
	WHERE k = 'i'$$);
SELECT * FROM pg_temp.wp('DELETE', $$DELETE FROM "wp$data" WHERE k IN ('j', 'k', 'l', 'o', 'r', 's')$$);
SELECT * FROM pg_temp.wp('MERGE', $$MERGE INTO "wp$data" d USING (VALUES ('h', 1), ('m', 1)) s(k, n) ON d.k = s.k AND d.n = s.n
	WHEN MATCHED THEN DELETE
	WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.n, '{"row_ts": 5, "cells": {}}', 5)$$);
COPY "wp$data" (k, n, "$cells", "$oldest_ts") FROM stdin;
p	1	{"row_ts": 7, "cells": {"v": [{"ts": 6, "value": "copied"}]}}	6
q	1	{"row_ts": 7, "cells": {}}	7
\.
SELECT origin, callback, rows, with_old_cells, with_new_cells FROM ots.write_point_counts('"wp$data"')
 WHERE callback = 'multi insert' AND origin = 'sql';

-- purge: rows whose cells all expired go, rows that keep some are rewritten
SELECT ots.stats_forget('"wp$data"');
INSERT INTO "wp$data" (k, n, "$cells", "$oldest_ts") VALUES
	('t', 1, '{"row_ts": 1466762754000, "cells": {"v": [{"ts": 1466762754000, "value": 1}]}}', 1466762754000),
	('t', 2, '{"row_ts": 1466762754000, "cells": {"v": [{"ts": 9000000000002, "value": 2}, {"ts": 1466762754000, "value": 1}]}}', 1466762754000);
SET client_min_messages = warning;
SELECT ots.update_table('wp', time_to_live => 86400);
RESET client_min_messages;
SELECT ots.stats_forget('"wp$data"');
CALL ots.purge('wp');
SELECT origin, callback, rows, with_old_cells, with_new_cells FROM ots.write_point_counts('"wp$data"') ORDER BY 1, 2;
SELECT k, n, attributes FROM wp WHERE k = 't' ORDER BY n;
SET client_min_messages = warning;
SELECT ots.update_table('wp', time_to_live => -1);
RESET client_min_messages;

-- TRUNCATE empties whole leaves
SELECT * FROM pg_temp.wp('TRUNCATE', $$TRUNCATE "wp$data"$$);
SELECT count(*) AS rows_left FROM "wp$data";

-- rows ots could not have written are refused, and nothing is stored
SELECT pg_temp.try($$INSERT INTO "wp$data" VALUES ('x', 1, '{"row_ts": 7, "cells": {"v": [{"ts": 6, "value": 1}]}}', 7)$$) AS oldest_ts_not_oldest;
SELECT pg_temp.try($$INSERT INTO "wp$data" VALUES ('x', 1, '{"row_ts": 7, "cells": {}}', 6)$$) AS oldest_ts_not_row_marker;
SELECT pg_temp.try(format($$INSERT INTO "wp$data" VALUES (%L, 1, '{"row_ts": 7, "cells": {}}', 7)$$, repeat('k', 1025))) AS key_too_long;
SELECT count(*) AS written FROM ots.put_row('wp', '{"k": "y", "n": 1}', '{"v": 1}');
SELECT pg_temp.try($$UPDATE "wp$data" SET "$oldest_ts" = "$oldest_ts" - 1 WHERE k = 'y'$$) AS update_oldest_ts;
SELECT count(*) AS rows_stored, count(*) FILTER (WHERE k = 'x') AS refused_rows FROM "wp$data";
-- the whole error, from an INSERT and from COPY
\set VERBOSITY default
INSERT INTO "wp$data" VALUES ('x', 1, '{"row_ts": 7, "cells": {"v": [{"ts": 6, "value": 1}]}}', 7);
COPY "wp$data" FROM stdin;
x	1	{"row_ts": 7, "cells": {}}	8
\.
\set VERBOSITY terse
SELECT count(*) FILTER (WHERE k = 'x') AS refused_rows FROM "wp$data";

-- rows that join the table below the write point are checked first: a
-- leaf detached, written and attached again; a leaf moved back onto the
-- access method (here it was moved off with the guard switched off)
ALTER TABLE "wp$data" DETACH PARTITION "wp$p0";
INSERT INTO "wp$p0" VALUES ('x', 1, '{"row_ts": 7, "cells": {"v": [{"ts": 6, "value": 1}]}}', 7);
SELECT pg_temp.try($$ALTER TABLE "wp$data" ATTACH PARTITION "wp$p0" FOR VALUES WITH (MODULUS 2, REMAINDER 0)$$) AS attach_bad_row;
DELETE FROM "wp$p0" WHERE k = 'x';
SELECT pg_temp.try($$ALTER TABLE "wp$data" ATTACH PARTITION "wp$p0" FOR VALUES WITH (MODULUS 2, REMAINDER 0)$$) AS attach_good_rows;
ALTER EVENT TRIGGER ots_storage_guard DISABLE;
ALTER TABLE "wp$p1" SET ACCESS METHOD heap;
-- (a key of that leaf's slice)
INSERT INTO "wp$p1"
SELECT c, 1, '{"row_ts": 7, "cells": {}}', 6 FROM unnest('{z,y,w,v,u}'::text[]) c
 WHERE satisfies_hash_partition('"wp$data"'::regclass, 2, 1, c) ORDER BY c LIMIT 1;
ALTER EVENT TRIGGER ots_storage_guard ENABLE;
SELECT pg_temp.try($$ALTER TABLE "wp$p1" SET ACCESS METHOD ots$$) AS back_on_ots_bad_row;
UPDATE "wp$p1" SET "$oldest_ts" = 7 WHERE "$oldest_ts" = 6;
SELECT pg_temp.try($$ALTER TABLE "wp$p1" SET ACCESS METHOD ots$$) AS back_on_ots_good_rows;
SELECT relname, (SELECT amname FROM pg_am WHERE oid = relam) AS am FROM pg_class
 WHERE relname IN ('wp$p0', 'wp$p1') ORDER BY 1;

-- "$hash" must be the hash prefix of the partition key
SET client_min_messages = warning;
SELECT ots.create_table('wph', 'k string', hash_prefix_length => 4, partitions => 2);
RESET client_min_messages;
-- ("$hash" stores the prefix's hex digits as an integer)
SELECT pg_temp.try(format($$INSERT INTO "wph$data" VALUES (%s, 'a', '{"row_ts": 7, "cells": {}}', 7)$$,
	('x' || lpad(ots.hash_prefix('a', 4), 16, '0'))::bit(64)::bigint)) AS right_hash;
SELECT pg_temp.try(format($$INSERT INTO "wph$data" VALUES (%s, 'b', '{"row_ts": 7, "cells": {}}', 7)$$,
	('x' || lpad(ots.hash_prefix('a', 4), 16, '0'))::bit(64)::bigint)) AS wrong_hash;
SELECT k FROM wph ORDER BY k;

SET client_min_messages = warning;
SELECT ots.delete_table('wp');
SELECT ots.delete_table('wph');
RESET client_min_messages;
