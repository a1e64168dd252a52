-- purge: CALL ots.purge removes exactly what reads no longer see (expired
-- cells, cells beyond max_versions, rows left without a visible cell or a
-- live row marker) and keeps everything else, checked cell by cell in
-- storage and through get_row; the per-row C primitives; the "$oldest_ts"
-- index; errors.  (Job scheduling: expiry_cron; concurrency:
-- test/specs/purge_concurrent.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
RESET client_min_messages;
\set VERBOSITY terse

-- stored cells of every row (without the server-stamped row marker, and
-- with server-stamped cell timestamps, from 2025-06 on, shown as "now"),
-- and whether "$oldest_ts" is what it must be
CREATE FUNCTION pg_temp.stored(tbl text)
	RETURNS TABLE (id text, cells jsonb, oldest_ts_ok boolean) LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format(
		'SELECT id, regexp_replace(("$cells"::text::jsonb -> ''cells'')::text,'
		'                          ''"ts": (1(7[5-9]|[89][0-9])|[2-9][0-9])[0-9]{10}'', ''"ts": "now"'', ''g'')::jsonb,'
		'       "$oldest_ts" = ots.cells_oldest_ts("$cells")'
		'  FROM %I ORDER BY id', tbl || '$data');
END
$$;
-- writes a row (put_row's result holds only capacity units)
CREATE FUNCTION pg_temp.put(tbl text, id text, attrs jsonb DEFAULT '{}') RETURNS boolean
	LANGUAGE sql AS $$
	SELECT true FROM ots.put_row(tbl, jsonb_build_object('id', id), attrs)
$$;
-- a TTL under which cells written at or before before_ms have expired, and
-- cells from a year later have not
CREATE FUNCTION pg_temp.expire_before(tbl text, before_ms bigint) RETURNS void LANGUAGE sql AS $$
	SELECT ots.update_table(tbl,
		time_to_live => (floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint - before_ms) / 1000)
$$;
-- all versions a read sees
CREATE FUNCTION pg_temp.versions(tbl text, id text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT (ots.get_row(tbl, jsonb_build_object('id', id), max_versions => 10)).attributes
$$;

--
-- the per-row primitives: exactly the cells reads see; the row marker stays
--
-- row marker 2000 (ms); column a: 900, 800, 700; column b: 500
SELECT (ots.purge_row('{"row_ts": 2000, "cells": {"a": [{"ts": 900, "value": 1},
	{"ts": 800, "value": 2}, {"ts": 700, "value": 3}], "b": [{"ts": 500, "value": "x"}]}}',
	-1, 10, 5000)).purged AS nothing_to_remove;
-- TTL 1 s at now 1750 ms: cells at or before 750 ms have expired
SELECT (ots.purge_row('{"row_ts": 2000, "cells": {"a": [{"ts": 900, "value": 1},
	{"ts": 800, "value": 2}, {"ts": 700, "value": 3}], "b": [{"ts": 500, "value": "x"}]}}',
	1, 10, 1750)).purged AS ttl;
-- max_versions 2
SELECT (ots.purge_row('{"row_ts": 2000, "cells": {"a": [{"ts": 900, "value": 1},
	{"ts": 800, "value": 2}, {"ts": 700, "value": 3}], "b": [{"ts": 500, "value": "x"}]}}',
	-1, 2, 1750)).purged AS max_versions;
-- every cell expired, row marker young: the row stays, without cells
SELECT (ots.purge_row('{"row_ts": 2000, "cells": {"a": [{"ts": 900, "value": 1}]}}',
	1, 10, 2500)).purged AS marker_keeps_row;
-- every cell and the row marker expired: NULL, the row goes
SELECT (ots.purge_row('{"row_ts": 2000, "cells": {"a": [{"ts": 900, "value": 1}]}}',
	1, 10, 3000)).purged IS NULL AS row_goes;
SELECT (ots.purge_row('{"row_ts": 2000, "cells": {}}', 1, 1, 3000)).purged IS NULL AS empty_row_goes;
-- "$oldest_ts" before and after; cell counts; the row rule; purgeable
SELECT ots.cells_oldest_ts('{"row_ts": 2000, "cells": {"a": [{"ts": 900, "value": 1},
	{"ts": 800, "value": 2}], "b": [{"ts": 500, "value": "x"}]}}') AS oldest,
	ots.cells_oldest_ts('{"row_ts": 2000, "cells": {}}') AS oldest_without_cells,
	(ots.purge_row('{"row_ts": 2000, "cells": {"a": [{"ts": 900, "value": 1},
	{"ts": 800, "value": 2}], "b": [{"ts": 500, "value": "x"}]}}', -1, 1, 0)).oldest_ts AS oldest_kept,
	(ots.purge_row('{"row_ts": 2000, "cells": {"a": [{"ts": 900, "value": 1}]}}',
		1, 10, 2500)).oldest_ts AS oldest_kept_marker,
	(ots.purge_row('{"row_ts": 2000, "cells": {}}', 1, 1, 3000)).oldest_ts AS oldest_kept_none,
	ots.cells_count('{"row_ts": 2000, "cells": {"a": [{"ts": 900, "value": 1},
	{"ts": 800, "value": 2}], "b": [{"ts": 500, "value": "x"}]}}') AS cells;
-- ots.purge_row, what a purge batch stores: the kept cells and their
-- "$oldest_ts" as the cells builder reports it (the same as cells_oldest_ts
-- of the kept cells), NULLs when the row goes
SELECT p.oldest_ts, p.oldest_ts = ots.cells_oldest_ts(p.purged) AS builder_agrees, p.purged
  FROM (VALUES (1, '{"row_ts": 2000, "cells": {"a": [{"ts": 900, "value": 1},
	{"ts": 800, "value": 2}], "b": [{"ts": 500, "value": "x"}]}}'::ots.cells, -1::bigint, 1, 0::bigint),
			   (2, '{"row_ts": 2000, "cells": {"a": [{"ts": 900, "value": 1}]}}', 1, 10, 2500),
			   (3, '{"row_ts": 2000, "cells": {}}', 1, 1, 3000)) v(n, c, ttl, maxv, now_ms),
	   LATERAL ots.purge_row(v.c, v.ttl, v.maxv, v.now_ms) p
 ORDER BY v.n;
SELECT now_ms, ots.cells_row_exists(c, 1, now_ms) AS row_exists,
	   ots.cells_purgeable(c, 1, 1, now_ms) AS purgeable
  FROM (VALUES ('{"row_ts": 2000, "cells": {"a": [{"ts": 1500, "value": 1}]}}'::ots.cells)) v(c),
	   (VALUES (1000::bigint), (2499), (2500), (3000)) n(now_ms)
 ORDER BY now_ms;
SELECT ots.cells_purgeable('{"row_ts": 2000, "cells": {"a": [{"ts": 900, "value": 1},
	{"ts": 800, "value": 2}]}}', -1, 2, 0) AS within_max,
	ots.cells_purgeable('{"row_ts": 2000, "cells": {"a": [{"ts": 900, "value": 1},
	{"ts": 800, "value": 2}]}}', -1, 1, 0) AS over_max;
-- options no table can have
SELECT (ots.purge_row('{"row_ts": 1, "cells": {}}', 0, 1, 0)).purged;
SELECT (ots.purge_row('{"row_ts": 1, "cells": {}}', 2147483648, 1, 0)).purged;
SELECT (ots.purge_row('{"row_ts": 1, "cells": {}}', -1, 0, 0)).purged;
SELECT (ots.purge_row('{"row_ts": 1, "cells": {}}', -1, 1, -1)).purged;
-- a chunk's purge counts its last column's newer cells in later chunks: never fewer than none
SELECT (ots.purge_chunk('{"row_ts": 10, "cells": {"c": [{"ts": 10, "value": 1}]}}', -1, 2147483647, 10, -1)).purged;
SELECT ots.chunk_purgeable('{"row_ts": 10, "cells": {"c": [{"ts": 10, "value": 1}]}}', -1, 2147483647, 10, -1);
SELECT (ots.purge_chunk('{"row_ts": 10, "cells": {"c": [{"ts": 10, "value": 1}, {"ts": 9, "value": 2}]}}', -1, 2, 10, 1)).purged;

--
-- TTL: expired cells go, live cells stay, rows follow the row rule
--
SELECT ots.create_table('pg_ttl', 'id string', max_versions => 5, time_to_live => 2000000000,
	max_version_offset => 9223372036854, partitions => 2);
-- the "$oldest_ts" index exists while the table has a TTL
SELECT indexrelid::regclass AS ttl_index, indkey FROM pg_index
 WHERE indrelid = '"pg_ttl$data"'::regclass AND NOT indisprimary;
-- cells from 2016-06 (1466762754000), 2017-07 (1500000000000), 2020-09
-- (1600000000000) and 2023-11 (1700000000000)
SELECT pg_temp.put('pg_ttl', 'mixed', '{"x": [{"value": 1, "ts": 1466762754000},
	{"value": 2, "ts": 1500000000000}, {"value": 3, "ts": 1600000000000}],
	"y": {"value": "old", "ts": 1466762754000}}');
SELECT pg_temp.put('pg_ttl', 'all_old', '{"x": {"value": 1, "ts": 1466762754000},
	"y": {"value": 2, "ts": 1500000000000}}');
SELECT pg_temp.put('pg_ttl', 'no_cells');
SELECT pg_temp.put('pg_ttl', 'young', '{"x": [{"value": 3, "ts": 1600000000000},
	{"value": 4, "ts": 1700000000000}]}');
SELECT * FROM pg_temp.stored('pg_ttl');
-- expire everything up to 2019-02 (1550000000000): reads hide it at once
SELECT pg_temp.expire_before('pg_ttl', 1550000000000);
SELECT id, attributes FROM pg_ttl ORDER BY id;
SELECT pg_temp.versions('pg_ttl', 'mixed') AS mixed;
-- raising the TTL before a purge brings the cells back
SELECT ots.update_table('pg_ttl', time_to_live => 2000000000);
SELECT pg_temp.versions('pg_ttl', 'mixed') AS mixed;
SELECT pg_temp.versions('pg_ttl', 'all_old') AS all_old;
SELECT pg_temp.expire_before('pg_ttl', 1550000000000);
CALL ots.purge('pg_ttl');
-- storage now holds exactly what reads see: "mixed" keeps its 2020 cell,
-- "all_old" lost every cell but exists by its young row marker, as does
-- "no_cells"; "young" is untouched
SELECT * FROM pg_temp.stored('pg_ttl');
SELECT id, attributes FROM pg_ttl ORDER BY id;
SELECT cells_purged, rows_purged, purges FROM ots.purge_stats WHERE table_name = 'pg_ttl';
-- raising the TTL after the purge brings nothing back
SELECT ots.update_table('pg_ttl', time_to_live => 2000000000);
SELECT pg_temp.versions('pg_ttl', 'mixed') AS mixed;
SELECT pg_temp.versions('pg_ttl', 'all_old') AS all_old;
-- a second purge finds nothing to do
CALL ots.purge('pg_ttl');
SELECT cells_purged, rows_purged, purges FROM ots.purge_stats WHERE table_name = 'pg_ttl';

-- once the row markers expire too, rows without a visible cell go; a row
-- written since (young marker, no cells) stays
SELECT ots.update_table('pg_ttl', time_to_live => 1);
SELECT pg_sleep(1.1);
SELECT pg_temp.put('pg_ttl', 'new_no_cells');
SELECT pg_temp.put('pg_ttl', 'new_cell', '{"z": "fresh"}');
SELECT id, attributes FROM pg_ttl ORDER BY id;
CALL ots.purge('pg_ttl');
SELECT id, cells, oldest_ts_ok FROM pg_temp.stored('pg_ttl');
SELECT cells_purged, rows_purged, purges FROM ots.purge_stats WHERE table_name = 'pg_ttl';

-- batches of one row, over several partitions and both kinds of rows
SELECT ots.update_table('pg_ttl', time_to_live => 2000000000);
SELECT count(*) FILTER (WHERE pg_temp.put('pg_ttl', 'b' || i,
	jsonb_build_object('x', jsonb_build_array(jsonb_build_object('value', i, 'ts', 1466762754000),
											  jsonb_build_object('value', -i, 'ts', 1700000000000)),
					   'y', jsonb_build_object('value', i, 'ts', 1466762754000)))) AS put
  FROM generate_series(1, 5) i;
SELECT count(*) FILTER (WHERE pg_temp.put('pg_ttl', 'c' || i,
	jsonb_build_object('x', jsonb_build_object('value', i, 'ts', 1466762754000)))) AS put
  FROM generate_series(1, 3) i;
SELECT pg_temp.expire_before('pg_ttl', 1550000000000);
CALL ots.purge('pg_ttl', batch_size => 1);
SELECT * FROM pg_temp.stored('pg_ttl');

-- without a TTL, the index goes; with one again, it comes back
SELECT ots.update_table('pg_ttl', time_to_live => -1);
SELECT count(*) AS ttl_indexes FROM pg_index
 WHERE indrelid = '"pg_ttl$data"'::regclass AND NOT indisprimary;
SELECT ots.update_table('pg_ttl', time_to_live => 86400);
SELECT indexrelid::regclass AS ttl_index FROM pg_index
 WHERE indrelid = '"pg_ttl$data"'::regclass AND NOT indisprimary;

--
-- max_versions: lowered, it hides versions at once; purge removes them once
--
SELECT ots.create_table('pg_max', 'id string', max_versions => 4,
	max_version_offset => 9223372036854, partitions => 3);
SELECT count(*) FILTER (WHERE pg_temp.put('pg_max', 'r' || i,
	jsonb_build_object('x', jsonb_build_array(
		jsonb_build_object('value', 1, 'ts', 1000), jsonb_build_object('value', 2, 'ts', 2000),
		jsonb_build_object('value', 3, 'ts', 3000), jsonb_build_object('value', 4, 'ts', 4000)),
		'y', jsonb_build_object('value', i, 'ts', 1000)))) AS put
  FROM generate_series(1, 4) i;
-- no TTL: no index, and nothing to purge yet
SELECT count(*) AS ttl_indexes FROM pg_index
 WHERE indrelid = '"pg_max$data"'::regclass AND NOT indisprimary;
SELECT max_versions, trimmed_max_versions FROM ots.tables WHERE table_name = 'pg_max';
SELECT ots.update_table('pg_max', max_versions => 2);
SELECT max_versions, trimmed_max_versions FROM ots.tables WHERE table_name = 'pg_max';
SELECT pg_temp.versions('pg_max', 'r1') AS r1;
-- raising max_versions before a purge brings versions back
SELECT ots.update_table('pg_max', max_versions => 3);
SELECT pg_temp.versions('pg_max', 'r1') AS r1;
SELECT ots.update_table('pg_max', max_versions => 2);
SELECT max_versions, trimmed_max_versions FROM ots.tables WHERE table_name = 'pg_max';
-- a write trims its own row at once
SELECT (ots.update_row('pg_max', '{"id": "r4"}', put => '{"z": 0}')).consumed;
-- one full pass, in batches of one row
CALL ots.purge('pg_max', batch_size => 1);
SELECT * FROM pg_temp.stored('pg_max');
SELECT max_versions, trimmed_max_versions FROM ots.tables WHERE table_name = 'pg_max';
SELECT cells_purged, rows_purged, purges FROM ots.purge_stats WHERE table_name = 'pg_max';
-- raising max_versions after the purge brings nothing back
SELECT ots.update_table('pg_max', max_versions => 4);
SELECT pg_temp.versions('pg_max', 'r1') AS r1;
SELECT max_versions, trimmed_max_versions FROM ots.tables WHERE table_name = 'pg_max';

-- a hash-prefixed table (RANGE partitions on "$hash"): both passes at once
SELECT ots.create_table('pg_hash', 'id string', max_versions => 3, time_to_live => 2000000000,
	max_version_offset => 9223372036854, partitions => 4, hash_prefix_length => 2);
SELECT count(*) FILTER (WHERE pg_temp.put('pg_hash', 'h' || i,
	jsonb_build_object('x', jsonb_build_array(
		jsonb_build_object('value', 1, 'ts', 1466762754000),
		jsonb_build_object('value', 2, 'ts', 1600000000000),
		jsonb_build_object('value', 3, 'ts', 1650000000000),
		jsonb_build_object('value', 4, 'ts', 1700000000000))))) AS put
  FROM generate_series(1, 3) i;
SELECT ots.update_table('pg_hash', max_versions => 2);
SELECT pg_temp.expire_before('pg_hash', 1550000000000);
CALL ots.purge('pg_hash');
SELECT * FROM pg_temp.stored('pg_hash');
SELECT max_versions, trimmed_max_versions FROM ots.tables WHERE table_name = 'pg_hash';

--
-- all tables at once: those with something to purge, that the caller owns
--
SELECT ots.update_table('pg_max', max_versions => 1);
SELECT schema_name, table_name FROM ots.purge_targets()
 WHERE table_name LIKE 'pg\_%' ORDER BY 1, 2;
CALL ots.purge();
SELECT * FROM pg_temp.stored('pg_max');
SELECT schema_name, table_name FROM ots.purge_targets()
 WHERE table_name LIKE 'pg\_%' ORDER BY 1, 2;

--
-- errors
--
CALL ots.purge('pg_missing');
CALL ots.purge('pg_ttl', batch_size => 0);
CALL ots.purge('pg_ttl', batch_size => NULL);
-- it commits in batches, so not inside a transaction block
BEGIN;
CALL ots.purge('pg_ttl');
ROLLBACK;
-- only a table's owner purges it; purging all tables skips the others'
CREATE ROLE regress_ots_purge_other;
SET ROLE regress_ots_purge_other;
CALL ots.purge('pg_ttl');
SELECT count(*) AS targets FROM ots.purge_targets() WHERE table_name LIKE 'pg\_%';
CALL ots.purge();
RESET ROLE;
DROP ROLE regress_ots_purge_other;

-- delete_table leaves no purge statistics behind
SELECT ots.delete_table('pg_ttl');
SELECT ots.delete_table('pg_max');
SELECT ots.delete_table('pg_hash');
SELECT count(*) AS purge_stats FROM ots.purge_stats WHERE table_name LIKE 'pg\_%';
