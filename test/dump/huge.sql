-- test/dump/huge.sql (DUMP_HUGE_ROW=1 test/dump/run.sh): the largest row
-- the text form of ots.cells carries, 127 values of 2 MB written one per
-- update (266 MB); run.sh then shows that a 128th is refused.
SELECT ots.create_table('huge', 'k string', partitions => 1);
SELECT count(*) AS updated FROM generate_series(1, 127) u,
  LATERAL ots.update_row('huge', '{"k": "x"}', put => jsonb_build_object('s' || u, repeat(chr(97 + u % 26), 2097152)));
