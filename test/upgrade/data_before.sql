-- test/upgrade/data_before.sql: tables and rows written by the old release
-- (plain calls that every release supports), read back by data_after.sql.
SELECT ots.create_table('up_orders', 'channel string, id integer', max_versions => 2);
SELECT ots.create_table('up_hash', 'k string', hash_prefix_length => 2, partitions => 4);
SELECT ots.create_table('up_auto', 'k string, n integer auto_increment', time_to_live => 86400);
SELECT ots.put_row('up_orders', '{"channel": "a", "id": 1}', '{"price": 2.5, "status": 0, "name": "x"}');
SELECT ots.put_row('up_orders', '{"channel": "a", "id": 2}', '{"price": 3.0, "bin": {"$binary": "AAEC"}}');
SELECT ots.update_row('up_orders', '{"channel": "a", "id": 1}', increment => '{"status": 1}');
SELECT ots.put_row('up_hash', jsonb_build_object('k', 'h' || i), jsonb_build_object('v', i)) FROM generate_series(1, 3) i;
SELECT ots.put_row('up_auto', '{"k": "t", "n": {"$auto_increment": true}}', '{"v": true}');
-- 0.1.0 let plain DDL drop an ots table's view, leaving its metadata behind
-- (0.2.0's sql_drop trigger forgets it; the upgrade removes what is left)
SELECT ots.create_table('up_stale', 'k string', time_to_live => 86400);
DROP VIEW up_stale;
-- 0.1.0 let OWNER TO give a leaf alone another owner; 0.2.0 names the
-- table in a WARNING and reports it damaged until OWNER TO on the storage
CREATE ROLE upg_other_owner;
ALTER TABLE "up_hash$p0" OWNER TO upg_other_owner;
-- 0.1.0 let a CHECK constraint onto storage (ots's writes bypass it); the
-- upgrade names it in a WARNING and leaves it
ALTER TABLE "up_auto$data" ADD CONSTRAINT up_auto_k CHECK (k <> '');
-- rows plain SQL stored that 0.2.0's write point would refuse: "$oldest_ts"
-- is not the oldest cell's timestamp; "$hash" is not the key's hash prefix
INSERT INTO "up_orders$data" (channel, id, "$cells", "$oldest_ts")
VALUES ('z', 9, '{"row_ts": 7, "cells": {}}', 6);
INSERT INTO "up_hash$data" ("$hash", k, "$cells", "$oldest_ts")
VALUES (0, 'hz', '{"row_ts": 7, "cells": {}}', 7);
