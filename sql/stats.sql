-- stats: the ots.stats view: per ots table, estimated live rows, row API
-- activity (rows read and written, capacity units; shared counters, since
-- ots is preloaded in the test instance) and what ots.purge removed.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
RESET client_min_messages;
\set VERBOSITY terse

SHOW shared_preload_libraries;
SELECT ots.create_table('st_t', 'id string', max_versions => 3, partitions => 2,
	max_version_offset => 9223372036854);
-- a new table: no activity yet, never analyzed, never purged
SELECT * FROM ots.stats WHERE table_name = 'st_t';

-- writes: 3 puts, 1 update, 1 delete; 4 KB capacity units, rounded up
SELECT (ots.put_row('st_t', jsonb_build_object('id', 'r' || i),
	jsonb_build_object('a', jsonb_build_array(jsonb_build_object('value', i, 'ts', 1000),
											  jsonb_build_object('value', i, 'ts', 2000),
											  jsonb_build_object('value', i, 'ts', 3000)),
					   'big', repeat('x', 5000)))).consumed
  FROM generate_series(1, 3) i;
SELECT (ots.update_row('st_t', '{"id": "r1"}', put => '{"b": 1}', condition => 'EXPECT_EXIST')).consumed;
SELECT (ots.delete_row('st_t', '{"id": "r3"}')).consumed;
-- reads: a hit and a miss (a miss reads nothing but costs one unit)
SELECT (ots.get_row('st_t', '{"id": "r1"}', columns_to_get => '{a}')).consumed;
SELECT (ots.get_row('st_t', '{"id": "nope"}')).consumed;
SELECT rows_read, rows_written, read_cu, write_cu FROM ots.stats WHERE table_name = 'st_t';

-- live rows: the planner's estimate, after ANALYZE
ANALYZE "st_t$data";
SELECT live_rows FROM ots.stats WHERE table_name = 'st_t';

-- purge: cells and rows removed, last run
SELECT ots.update_table('st_t', max_versions => 1);
CALL ots.purge('st_t');
SELECT cells_purged, rows_purged, last_purge IS NOT NULL AS purged,
	   last_purge_duration BETWEEN '0'::interval AND '1 min' AS timed
  FROM ots.stats WHERE table_name = 'st_t';

-- counters are per table
SELECT ots.create_table('st_other', 'id integer', partitions => 1);
SELECT (ots.put_row('st_other', '{"id": 1}')).consumed;
SELECT table_name, rows_read, rows_written, read_cu, write_cu, cells_purged, rows_purged
  FROM ots.stats WHERE table_name LIKE 'st\_%' ORDER BY table_name;

-- ots.stats_reset zeroes one table's counters, or all the caller's
SELECT ots.stats_reset('st_t');
SELECT table_name, rows_read, rows_written, read_cu, write_cu, cells_purged, rows_purged,
	   last_purge IS NULL AS never_purged
  FROM ots.stats WHERE table_name LIKE 'st\_%' ORDER BY table_name;
SELECT ots.stats_reset();
SELECT table_name, rows_read, rows_written, read_cu, write_cu
  FROM ots.stats WHERE table_name LIKE 'st\_%' ORDER BY table_name;

-- everyone may read the view, and sees the tables it may see: here the one
-- it may read (ots.table_visible)
CREATE ROLE regress_ots_stats_reader;
GRANT SELECT ON st_other TO regress_ots_stats_reader;
SET ROLE regress_ots_stats_reader;
SELECT table_name, rows_written FROM ots.stats WHERE table_name LIKE 'st\_%' ORDER BY table_name;
RESET ROLE;
REVOKE SELECT ON st_other FROM regress_ots_stats_reader;
DROP ROLE regress_ots_stats_reader;

-- a deleted table leaves nothing behind
SELECT ots.delete_table('st_t');
SELECT ots.delete_table('st_other');
SELECT count(*) FROM ots.stats WHERE table_name LIKE 'st\_%';
