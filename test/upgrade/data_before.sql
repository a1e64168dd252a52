-- test/upgrade/data_before.sql: tables and rows each frozen release writes
-- with calls every release supports; then test/upgrade/run.sh runs
-- data_before_<V>.sql, what release V alone writes (0.1.0: the plain DDL and
-- SQL it let through; 0.2.0: its indexes, stream and view writes). Read back
-- by data_after.sql and data_after_<V>.sql.
SELECT ots.create_table('up_orders', 'channel string, id integer', max_versions => 2);
SELECT ots.create_table('up_hash', 'k string', hash_prefix_length => 2, partitions => 4);
SELECT ots.create_table('up_auto', 'k string, n integer auto_increment', time_to_live => 86400);
SELECT ots.put_row('up_orders', '{"channel": "a", "id": 1}', '{"price": 2.5, "status": 0, "name": "x"}');
SELECT ots.put_row('up_orders', '{"channel": "a", "id": 2}', '{"price": 3.0, "bin": {"$binary": "AAEC"}}');
SELECT ots.update_row('up_orders', '{"channel": "a", "id": 1}', increment => '{"status": 1}');
SELECT ots.put_row('up_hash', jsonb_build_object('k', 'h' || i), jsonb_build_object('v', i)) FROM generate_series(1, 3) i;
-- a row without attributes (data_after.sql: an index on v has no entry for it)
SELECT ots.put_row('up_hash', '{"k": "h0"}', '{}');
SELECT ots.put_row('up_auto', '{"k": "t", "n": {"$auto_increment": true}}', '{"v": true}');
-- wide and deep rows, one ots.cells value each before 0.3.0 (data_after.sql:
-- they read back the same, and a write splits them into chunks)
SELECT ots.create_table('up_wide', 'k string', max_versions => 1000, max_version_offset => 9223372036854);
SELECT ots.put_row('up_wide', '{"k": "wide"}',
  (SELECT jsonb_object_agg(format('c%s', lpad(g::text, 3, '0')), left(md5(g::text), 20)) FROM generate_series(1, 300) g));
SELECT ots.put_row('up_wide', '{"k": "deep"}',
  jsonb_build_object('d', (SELECT jsonb_agg(jsonb_build_object('value', 'version ' || v, 'ts', 1000 + v)) FROM generate_series(1, 500) v)));
SELECT ots.put_row('up_wide', '{"k": "big"}', jsonb_build_object('b', repeat('b', 100000), 'small', 1));
