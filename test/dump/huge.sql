-- test/dump/huge.sql (DUMP_HUGE_ROW=1 test/dump/run.sh): a row past what
-- one ots.cells value could carry before 0.3.0 (266 MB): 150 values of 2 MB
-- written one per update (314 MB), which ots stores split, one chunk a
-- value (docs/design.md, "Wide rows: heads and chunks").
SELECT ots.create_table('huge', 'k string', partitions => 1);
SELECT count(*) AS updated FROM generate_series(1, 150) u,
  LATERAL ots.update_row('huge', '{"k": "x"}', put => jsonb_build_object('s' || u, repeat(chr(97 + u % 26), 2097152)));
