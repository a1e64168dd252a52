-- test/upgrade/data_after_0.1.0.sql: after data_after.sql, in its session,
-- what became of data_before_0.1.0.sql's plain DDL and SQL.
-- a leaf of up_owned has another owner (given under 0.1.0): the table is
-- damaged until OWNER TO on its storage gives all its parts one owner
SELECT pg_temp.try($q$SELECT ots.get_row('up_owned', '{"k": "o1"}')$q$);
ALTER TABLE "up_owned$data" OWNER TO CURRENT_USER;
SELECT consumed IS NOT NULL FROM ots.put_row('up_owned', '{"k": "o2"}', '{"v": 2}');
SELECT k, attributes FROM up_owned ORDER BY k;
-- the metadata of up_stale, whose view 0.1.0 let go, went with the upgrade:
-- the name can be created again once what was left of it is dropped
SELECT count(*) FROM ots.tables WHERE table_name = 'up_stale';
DROP TABLE "up_stale$data";
SELECT ots.create_table('up_stale', 'k string');
SELECT consumed IS NOT NULL FROM ots.put_row('up_stale', '{"k": "s"}', '{"v": 1}');
SELECT k, attributes FROM up_stale;
-- the rows 0.1.0 let plain SQL store with a wrong "$oldest_ts" or "$hash"
-- came along (the update names them in a WARNING, test/upgrade/run.sh
-- checks it); a write that keeps them is refused, the repairs the WARNING's
-- hint gives pass the write point
SELECT count(*) FROM "up_bad_ts$data" WHERE "$oldest_ts" <> ots.cells_oldest_ts("$cells");
SELECT pg_temp.try($q$UPDATE "up_bad_ts$data" SET "$cells" = "$cells" WHERE channel = 'z'$q$);
UPDATE public."up_bad_ts$data" SET "$oldest_ts" = ots.cells_oldest_ts("$cells") WHERE "$oldest_ts" <> ots.cells_oldest_ts("$cells");
SELECT count(*) FROM "up_bad_ts$data" WHERE "$oldest_ts" <> ots.cells_oldest_ts("$cells");
SELECT id, attributes FROM up_bad_ts ORDER BY id;
SELECT count(*) FROM "up_bad_hash$data" WHERE "$hash" <> ('x' || lpad(ots.hash_prefix(k, 2), 16, '0'))::bit(64)::int8;
SELECT pg_temp.try($q$UPDATE "up_bad_hash$data" SET "$cells" = "$cells" WHERE k = 'hz'$q$);
UPDATE public."up_bad_hash$data" SET "$oldest_ts" = ots.cells_oldest_ts("$cells"), "$hash" = ('x' || lpad(ots.hash_prefix(k, 2), 16, '0'))::bit(64)::int8 WHERE "$oldest_ts" <> ots.cells_oldest_ts("$cells") OR "$hash" <> ('x' || lpad(ots.hash_prefix(k, 2), 16, '0'))::bit(64)::int8;
SELECT count(*) FROM "up_bad_hash$data" WHERE "$hash" <> ('x' || lpad(ots.hash_prefix(k, 2), 16, '0'))::bit(64)::int8;
SELECT attributes FROM ots.get_row('up_bad_hash', '{"k": "hz"}');
