-- test/upgrade/data_before_0.1.0.sql: after data_before.sql, what 0.1.0 let
-- plain DDL and plain SQL do to ots tables and 0.2.0 refuses; the update
-- keeps, repairs or names each (data_after_0.1.0.sql; the WARNINGs in
-- test/upgrade/run.sh).
-- 0.1.0 let plain DDL drop an ots table's view, leaving its metadata behind
-- (0.2.0's sql_drop trigger forgets it; the upgrade removes what is left)
SELECT ots.create_table('up_stale', 'k string', time_to_live => 86400);
DROP VIEW up_stale;
-- 0.1.0 let OWNER TO give a leaf alone another owner; 0.2.0 names the
-- table in a WARNING and reports it damaged until OWNER TO on the storage
CREATE ROLE upg_other_owner;
SELECT ots.create_table('up_owned', 'k string', partitions => 2);
SELECT ots.put_row('up_owned', '{"k": "o1"}', '{"v": 1}');
ALTER TABLE "up_owned$p0" OWNER TO upg_other_owner;
-- 0.1.0 let a CHECK constraint onto storage (ots's writes bypass it); the
-- upgrade names it in a WARNING and leaves it
ALTER TABLE "up_auto$data" ADD CONSTRAINT up_auto_k CHECK (k <> '');
-- rows plain SQL stored that 0.2.0's write point would refuse: "$oldest_ts"
-- is not the oldest cell's timestamp; "$hash" is not the key's hash prefix
SELECT ots.create_table('up_bad_ts', 'channel string, id integer');
INSERT INTO "up_bad_ts$data" (channel, id, "$cells", "$oldest_ts")
VALUES ('z', 9, '{"row_ts": 7, "cells": {}}', 6);
SELECT ots.create_table('up_bad_hash', 'k string', hash_prefix_length => 2, partitions => 4);
INSERT INTO "up_bad_hash$data" ("$hash", k, "$cells", "$oldest_ts")
VALUES (0, 'hz', '{"row_ts": 7, "cells": {}}', 7);
