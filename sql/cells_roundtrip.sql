-- cells_roundtrip: every row ots stores reads back through the text and the
-- binary I/O of ots.cells (what pg_dump, COPY and pg_restore use), whatever
-- it grew to through ordinary writes: input checks the format, never the
-- limits of one write request (docs/reference.md, Limits).  And no write stores a
-- timestamp outside [0, INT64_MAX/1000): a server-stamped cell that would
-- land past the last valid millisecond fails the write with Tablestore's
-- timestamp error and stores nothing.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

-- explicit timestamps anywhere in [0, INT64_MAX/1000), and room for many versions
SELECT ots.create_table('rt', 'k string, n integer', max_versions => 2000,
                        max_version_offset => 9223372036854, partitions => 2);

-- wide: 1200 columns through two updates of 600 columns each (a write may
-- carry at most 1024)
SELECT count(*) AS updates FROM generate_series(0, 1) u,
  LATERAL ots.update_row('rt', '{"k": "wide", "n": 1}',
    put => (SELECT jsonb_object_agg('c' || (u * 600 + g), g) FROM generate_series(1, 600) g));
-- versions: 1200 versions of one column, 600 per update
SELECT count(*) AS updates FROM generate_series(0, 1) u,
  LATERAL ots.update_row('rt', '{"k": "versions", "n": 1}',
    put => jsonb_build_object('v', (SELECT jsonb_agg(jsonb_build_object('value', u * 600 + g, 'ts', u * 600 + g))
                                     FROM generate_series(1, 600) g)));
-- big: three values of 2 MB (the largest one write may carry), one per update
SELECT count(*) AS updates FROM generate_series(1, 3) u,
  LATERAL ots.update_row('rt', '{"k": "big", "n": 1}',
    put => jsonb_build_object('s' || u, repeat(chr(96 + u), 2097152)));
-- every type, and the first and the last valid millisecond
SELECT consumed FROM ots.put_row('rt', '{"k": "types", "n": 1}', '{
  "s": {"value": "text ü", "ts": 0},
  "i": [{"value": -9223372036854775808, "ts": 9223372036854774}, {"value": 9223372036854775807, "ts": 1}],
  "d": [{"value": {"$double": 1.7976931348623157e308}, "ts": 3}, {"value": {"$double": 5e-324}, "ts": 2}, {"value": -2.5, "ts": 1}],
  "b": {"value": true, "ts": 9223372036854774},
  "x": {"value": {"$binary": "AP8="}, "ts": 5},
  "e": [{"value": "", "ts": 2}, {"value": {"$binary": ""}, "ts": 1}]}');
-- an empty row: no cells, only its row marker
SELECT consumed FROM ots.put_row('rt', '{"k": "empty", "n": 1}');

-- (a row past 4 KB of cells is split: its cells are in "rt$chunk", docs/design.md)
SELECT d.k, d.n, CASE WHEN d."$cells"::text LIKE '{"row_ts": %, "split": %' THEN 'split' ELSE 'inline' END AS stored,
       coalesce(sum(ots.cells_count(c."$cells")), ots.cells_count(d."$cells")) AS cells,
       coalesce(sum(length(ots.cells_send(c."$cells"))), length(ots.cells_send(d."$cells"))) > 2097152 * 3 AS over_6mb,
       coalesce(max(length(ots.cells_send(c."$cells"))), 0) <= 2097152 + 1024 AS chunks_bounded
  FROM "rt$data" d LEFT JOIN "rt$chunk" c USING (k, n) GROUP BY d.k, d.n, d."$cells"::text ORDER BY d.k, d.n;

-- the text form reads back to the same value, byte for byte: rows, heads and chunks
SELECT k, n, "$cells"::text::ots.cells::text = "$cells"::text AS text_same,
       ots.cells_send("$cells"::text::ots.cells) = ots.cells_send("$cells") AS bytes_same
  FROM "rt$data" ORDER BY k, n;
SELECT count(*) AS chunks, count(*) FILTER (WHERE "$cells"::text::ots.cells::text = "$cells"::text
                                              AND ots.cells_send("$cells"::text::ots.cells) = ots.cells_send("$cells")) AS same
  FROM "rt$chunk";

-- COPY out and in, text and binary, as pg_dump / pg_restore and binary COPY do
CREATE TABLE rt_copy (k text, n bigint, c ots.cells);
SELECT current_setting('data_directory') || '/ots_cells_roundtrip.copy' AS copy_file \gset
COPY (SELECT k, n, "$cells" FROM "rt$data") TO :'copy_file';
COPY rt_copy FROM :'copy_file';
SELECT count(*) AS text_copied,
       count(*) FILTER (WHERE ots.cells_send(c.c) = ots.cells_send(d."$cells")) AS identical
  FROM rt_copy c JOIN "rt$data" d USING (k, n);
TRUNCATE rt_copy;
COPY (SELECT k, n, "$cells" FROM "rt$data") TO :'copy_file' (FORMAT binary);
COPY rt_copy FROM :'copy_file' (FORMAT binary);
SELECT count(*) AS binary_copied,
       count(*) FILTER (WHERE ots.cells_send(c.c) = ots.cells_send(d."$cells")) AS identical
  FROM rt_copy c JOIN "rt$data" d USING (k, n);
DROP TABLE rt_copy;

-- what reads see of those rows
SELECT k, n, (SELECT count(*) FROM jsonb_object_keys(attributes)) AS columns
  FROM rt ORDER BY k, n;
SELECT jsonb_array_length((ots.get_row('rt', '{"k": "versions", "n": 1}', max_versions => 2000)).attributes -> 'v')
  AS versions;
SELECT key AS column, jsonb_path_query_array(value, '$[*].ts') AS timestamps,
       jsonb_path_query_array(value, '$[*].value.type()') AS types
  FROM jsonb_each((ots.get_row('rt', '{"k": "types", "n": 1}', max_versions => 5)).attributes) ORDER BY key;
SELECT (a -> 'd' -> 0 -> 'value' ->> '$double')::float8 AS d_ts3, (a -> 'd' -> 1 ->> 'value')::float8 AS d_ts2,
       a -> 'd' -> 2 -> 'value' AS d_ts1, a -> 'i' AS i, a -> 's' AS s, a -> 'x' AS x, a -> 'e' AS e
  FROM (SELECT (ots.get_row('rt', '{"k": "types", "n": 1}', max_versions => 5)).attributes) r(a);

--
-- server stamping never passes the last valid millisecond
--
-- a digest of every stored row, to show a failed write stored nothing
CREATE FUNCTION pg_temp.snapshot() RETURNS text LANGUAGE sql AS $$
	SELECT md5(string_agg(x::text, ',' ORDER BY x::text COLLATE "C")) FROM "rt$data" x
$$;
CREATE FUNCTION pg_temp.try(query text, OUT result text, OUT unchanged boolean)
LANGUAGE plpgsql AS $$
DECLARE
	before text := pg_temp.snapshot();
BEGIN
	BEGIN
		EXECUTE query;
		result := 'ok';
	EXCEPTION WHEN OTHERS THEN
		result := SQLSTATE || ': ' || SQLERRM;
	END;
	unchanged := pg_temp.snapshot() IS NOT DISTINCT FROM before;
END
$$;
-- a cell at the last valid millisecond, INT64_MAX/1000 - 1
SELECT consumed FROM ots.put_row('rt', '{"k": "last", "n": 1}', '{"c": {"value": 1, "ts": 9223372036854774}}');
-- an increment stamps after the newest cell of its column: that would be INT64_MAX/1000
SELECT * FROM pg_temp.try($$SELECT ots.update_row('rt', '{"k": "last", "n": 1}', increment => '{"c": 1}')$$);
-- ... also beside other operations, and in a batch (the row fails, others apply)
SELECT * FROM pg_temp.try($$SELECT ots.update_row('rt', '{"k": "last", "n": 1}', put => '{"other": 1}', increment => '{"c": 1}')$$);
SELECT index, is_ok, error_code, error_message FROM ots.batch_write_row('[{"table_name": "rt", "rows": [
  {"type": "UPDATE", "primary_key": {"k": "last", "n": 1}, "increment": {"c": 1}},
  {"type": "UPDATE", "primary_key": {"k": "last", "n": 2}, "increment": {"c": 1}}]}]') ORDER BY index;
-- another column, and the same column once the last cell is deleted, increment as usual
SELECT attributes FROM ots.update_row('rt', '{"k": "last", "n": 1}', increment => '{"d": 1}', return_type => 'RT_AFTER_MODIFY');
SELECT attributes FROM ots.update_row('rt', '{"k": "last", "n": 1}', "delete" => '{"c": 9223372036854774}',
  increment => '{"c": 5}', return_type => 'RT_AFTER_MODIFY');
SELECT attributes FROM ots.get_row('rt', '{"k": "last", "n": 1}');
-- a row marker at the last valid millisecond (a restored row, or one written
-- through the storage): the next server stamp would be INT64_MAX/1000
INSERT INTO "rt$data" (k, n, "$cells", "$oldest_ts")
SELECT 'marker', 1, c, ots.cells_oldest_ts(c)
  FROM (VALUES ('{"row_ts": 9223372036854774, "cells": {"c": {"value": 1, "ts": 5}}}'::ots.cells)) v(c);
SELECT * FROM pg_temp.try($$SELECT ots.update_row('rt', '{"k": "marker", "n": 1}', put => '{"c": 2}')$$);
SELECT * FROM pg_temp.try($$SELECT ots.put_row('rt', '{"k": "marker", "n": 1}', '{"c": 2}', condition => 'EXPECT_EXIST')$$);
SELECT * FROM pg_temp.try($$SELECT ots.update_row('rt', '{"k": "marker", "n": 1}', increment => '{"c": 1}')$$);
-- a put without a condition too: a write over a stored row stamps after its
-- marker (even with no cell of its own stamped), alone or in a batch, where
-- that row fails and the others apply
SELECT * FROM pg_temp.try($$SELECT ots.put_row('rt', '{"k": "marker", "n": 1}', '{"c": {"value": 3, "ts": 7}}')$$);
SELECT index, is_ok, error_code, error_message FROM ots.batch_write_row('[{"table_name": "rt", "rows": [
  {"type": "PUT", "primary_key": {"k": "marker", "n": 1}, "attributes": {"c": 3}},
  {"type": "PUT", "primary_key": {"k": "marker", "n": 2}, "attributes": {"c": 3}}]}]') ORDER BY index;
SELECT primary_key, attributes FROM ots.get_range_rows('rt', '{"k": "marker", "n": {"$inf": "min"}}',
  '{"k": "marker", "n": {"$inf": "max"}}') ORDER BY primary_key ->> 'n';
-- deleted, the row is put again with the current time
SELECT consumed FROM ots.delete_row('rt', '{"k": "marker", "n": 1}');
SELECT * FROM pg_temp.try($$SELECT ots.put_row('rt', '{"k": "marker", "n": 1}', '{"c": {"value": 3, "ts": 7}}')$$);
SELECT attributes FROM ots.get_row('rt', '{"k": "marker", "n": 1}', with_timestamps => true);
-- and every stored row still reads back
SELECT count(*) AS rows, count(*) FILTER (WHERE "$cells"::text::ots.cells::text = "$cells"::text) AS text_same
  FROM "rt$data";

--
-- the head of a split row (format version 2: no cells, its chunks hold them)
-- reads back through text and binary I/O byte for byte; malformed ones fail
--
CREATE TEMP TABLE heads (n int, c ots.cells);
INSERT INTO heads VALUES
  (1, '{"row_ts": 5, "split": {"newest_ts": 7, "newest_bound": false, "cells_size": 1234, "key": [{"integer": -3}, {"string": "a\"b ü"}, {"binary": "00ff"}]}}'),
  (2, '{"row_ts": 0, "split": {"newest_ts": 9223372036854774, "newest_bound": true, "cells_size": 9223372036854775807, "key": [{"string": ""}]}}'),
  (3, '{"row_ts": 1, "split": {"newest_ts": 1, "newest_bound": false, "cells_size": 0, "key": [{"integer": 1}, {"integer": 2}, {"integer": 3}, {"integer": 4}, {"integer": 5}, {"integer": 6}, {"integer": 7}, {"integer": 8}, {"binary": ""}]}}');
SELECT n, c FROM heads ORDER BY n;
SELECT n, c::text::ots.cells::text = c::text AS text_same,
       ots.cells_send(c::text::ots.cells) = ots.cells_send(c) AS bytes_same,
       ots.cells_oldest_ts(c) AS oldest_ts
  FROM heads ORDER BY n;
CREATE TEMP TABLE heads_copy (LIKE heads);
COPY (SELECT * FROM heads) TO :'copy_file' (FORMAT binary);
COPY heads_copy FROM :'copy_file' (FORMAT binary);
SELECT count(*) AS binary_copied, count(*) FILTER (WHERE ots.cells_send(c.c) = ots.cells_send(h.c)) AS identical
  FROM heads_copy c JOIN heads h USING (n);
\set VERBOSITY default
SELECT '{"row_ts": 5, "split": {"newest_ts": 7, "newest_bound": true, "cells_size": -1, "key": [{"string": "x"}]}}'::ots.cells;
SELECT '{"row_ts": 5, "split": {"newest_ts": 7, "newest_bound": 1, "cells_size": 1, "key": [{"string": "x"}]}}'::ots.cells;
SELECT '{"row_ts": 5, "split": {"newest_ts": -1, "newest_bound": true, "cells_size": 1, "key": [{"string": "x"}]}}'::ots.cells;
SELECT '{"row_ts": 5, "split": {"newest_ts": 7, "newest_bound": true, "cells_size": 1, "key": []}}'::ots.cells;
SELECT '{"row_ts": 5, "split": {"newest_ts": 7, "newest_bound": true, "cells_size": 1, "key": [{"blob": 1}]}}'::ots.cells;
SELECT '{"row_ts": 5, "split": {"newest_ts": 7, "newest_bound": true, "cells_size": 1, "key": [{"string": "x"}], "more": 1}}'::ots.cells;
SELECT '{"row_ts": 5, "split": {"newest_ts": 7, "newest_bound": true, "cells_size": 1, "key": [{"string": "x"}]}, "cells": {}}'::ots.cells;
\set VERBOSITY terse
-- (binary input of heads, byte by byte and mutated: test/fuzz/cells_fuzz.c)

SELECT ots.delete_table('rt');
