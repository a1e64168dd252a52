-- index_ddl: DDL that changes which rows an ots table has without passing
-- the write point row by row keeps its secondary indexes exact, or is
-- refused.  DETACH PARTITION and DROP of a leaf remove the index entries of
-- the leaf's rows, ATTACH PARTITION writes those of the rows it brings (also
-- rows changed while the leaf was detached); DETACH ... CONCURRENTLY,
-- TRUNCATE, an unlogged leaf and any such change of an index's own storage
-- are refused; so is each of them, and ATTACH of rows, on a table with a
-- stream, whose records and shards follow the rows and partitions.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

-- the SQLSTATE and message of a statement's error, or "ok"
CREATE FUNCTION pg_temp.try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

SELECT ots.create_table('ix', 'k string', partitions => 2, defined_columns => 'v integer');
SELECT count(*) AS written FROM generate_series(1, 12) i,
	LATERAL ots.put_row('ix', jsonb_build_object('k', 'k' || i), jsonb_build_object('v', i));
SET ots.index_build_worker = off;
SELECT ots.create_index('ix', 'ix_v', ARRAY['v']);
CALL ots.build_index('ix', 'ix_v');
-- the index against a recomputation from the table's rows: entries of no
-- row, rows without their entry
CREATE FUNCTION pg_temp.check_index() RETURNS TABLE (rows bigint, entries bigint, stale bigint, missing bigint)
LANGUAGE sql AS $$
	SELECT (SELECT count(*) FROM ix),
		   (SELECT count(*) FROM ix_v),
		   (SELECT count(*) FROM ix_v i WHERE NOT EXISTS (SELECT 1 FROM ix t WHERE t.k = i.k AND t.v = i.v)),
		   (SELECT count(*) FROM ix t WHERE t.v IS NOT NULL
			  AND NOT EXISTS (SELECT 1 FROM ix_v i WHERE t.k = i.k AND t.v = i.v))
$$;
SELECT * FROM pg_temp.check_index();
SELECT count(*) AS p0_rows FROM "ix$p0";

-- DETACH takes the leaf's rows and their entries away
ALTER TABLE "ix$data" DETACH PARTITION "ix$p0";
SELECT * FROM pg_temp.check_index();
-- rows of the detached table change meanwhile (it is no leaf: no write point)
UPDATE "ix$p0" d SET ("$cells", "$oldest_ts") = (SELECT x."$cells", x."$oldest_ts" FROM "ix$p1" x ORDER BY x.k LIMIT 1)
 WHERE d.k = (SELECT min(k) FROM "ix$p0");
DELETE FROM "ix$p0" WHERE k = (SELECT max(k) FROM "ix$p0");
-- ATTACH brings its rows back with their entries, as they are now
ALTER TABLE "ix$data" ATTACH PARTITION "ix$p0" FOR VALUES WITH (MODULUS 2, REMAINDER 0);
SELECT * FROM pg_temp.check_index();
-- and the write point follows on after it
SELECT count(*) AS written FROM ots.update_row('ix', '{"k": "k1"}', put => '{"v": 100}');
SELECT * FROM pg_temp.check_index();
-- a failed ATTACH (a row ots could not have written) leaves no entry behind
ALTER TABLE "ix$data" DETACH PARTITION "ix$p0";
UPDATE "ix$p0" SET "$oldest_ts" = "$oldest_ts" + 1 WHERE k = (SELECT min(k) FROM "ix$p0");
SELECT pg_temp.try($$ALTER TABLE "ix$data" ATTACH PARTITION "ix$p0" FOR VALUES WITH (MODULUS 2, REMAINDER 0)$$);
SELECT * FROM pg_temp.check_index();
UPDATE "ix$p0" SET "$oldest_ts" = "$oldest_ts" - 1 WHERE k = (SELECT min(k) FROM "ix$p0");
ALTER TABLE "ix$data" ATTACH PARTITION "ix$p0" FOR VALUES WITH (MODULUS 2, REMAINDER 0);
SELECT * FROM pg_temp.check_index();

-- CONCURRENTLY takes the rows away in two transactions, others still
-- writing them: refused
ALTER TABLE "ix$data" DETACH PARTITION "ix$p0" CONCURRENTLY;
SELECT * FROM pg_temp.check_index();

-- DROP of a leaf takes its rows' entries with it; so does DROP SCHEMA of
-- a schema a leaf was moved to
CREATE SCHEMA ix_elsewhere;
ALTER TABLE "ix$p1" SET SCHEMA ix_elsewhere;
DROP SCHEMA ix_elsewhere CASCADE;
SELECT * FROM pg_temp.check_index();
DROP TABLE "ix$p0";
SELECT * FROM pg_temp.check_index();
CREATE TABLE "ix$p0" PARTITION OF "ix$data" FOR VALUES WITH (MODULUS 2, REMAINDER 0) USING ots;
CREATE TABLE "ix$p1" PARTITION OF "ix$data" FOR VALUES WITH (MODULUS 2, REMAINDER 1) USING ots;
-- a TRUNCATE of partitions never written changes no row (pg_restore -j
-- truncates the tables it made before loading them)
TRUNCATE "ix$data";
SELECT count(*) AS written FROM generate_series(1, 12) i,
	LATERAL ots.put_row('ix', jsonb_build_object('k', 'k' || i), jsonb_build_object('v', i));
SELECT * FROM pg_temp.check_index();

-- TRUNCATE would empty leaves below the write point: refused
SELECT pg_temp.try($$TRUNCATE "ix$p0"$$);
SELECT pg_temp.try($$TRUNCATE "ix$data"$$);
-- an unlogged leaf would lose its rows at a crash, its entries staying
SELECT pg_temp.try($$ALTER TABLE "ix$p0" SET UNLOGGED$$);
ALTER TABLE "ix$data" DETACH PARTITION "ix$p0";
ALTER TABLE "ix$p0" SET UNLOGGED;
SELECT pg_temp.try($$ALTER TABLE "ix$data" ATTACH PARTITION "ix$p0" FOR VALUES WITH (MODULUS 2, REMAINDER 0)$$);
ALTER TABLE "ix$p0" SET LOGGED;
ALTER TABLE "ix$data" ATTACH PARTITION "ix$p0" FOR VALUES WITH (MODULUS 2, REMAINDER 0);
SELECT * FROM pg_temp.check_index();

-- an index's own storage: its entries are ots's alone
SELECT pg_temp.try($$TRUNCATE "ix_v$data"$$);
SELECT pg_temp.try($$TRUNCATE "ix_v$p0"$$);
SELECT pg_temp.try($$ALTER TABLE "ix_v$data" DETACH PARTITION "ix_v$p0"$$);
SELECT pg_temp.try($$DROP TABLE "ix_v$p1"$$);
SELECT pg_temp.try($$ALTER TABLE "ix_v$p0" SET UNLOGGED$$);
SELECT * FROM pg_temp.check_index();

-- a table with a stream: its shards are its partitions and its records
-- follow its rows; a table without indexes or a stream is left alone
SELECT ots.create_table('ixs', 'k string', partitions => 2);
SELECT count(*) AS written FROM generate_series(1, 6) i,
	LATERAL ots.put_row('ixs', jsonb_build_object('k', 'k' || i), '{"v": 1}');
ALTER TABLE "ixs$data" DETACH PARTITION "ixs$p0";
SELECT ots.update_table('ixs', stream_enabled => true);
SELECT pg_temp.try($$ALTER TABLE "ixs$data" DETACH PARTITION "ixs$p1"$$);
SELECT pg_temp.try($$DROP TABLE "ixs$p1"$$);
SELECT pg_temp.try($$ALTER TABLE "ixs$p1" SET UNLOGGED$$);
SELECT pg_temp.try($$ALTER TABLE "ixs$data" ATTACH PARTITION "ixs$p0" FOR VALUES WITH (MODULUS 2, REMAINDER 0)$$);
-- attached empty, its rows then inserted through the storage: recorded
CREATE TEMP TABLE ixs_rows AS SELECT * FROM "ixs$p0";
DELETE FROM "ixs$p0";
ALTER TABLE "ixs$data" ATTACH PARTITION "ixs$p0" FOR VALUES WITH (MODULUS 2, REMAINDER 0);
INSERT INTO "ixs$data" SELECT * FROM ixs_rows;
SELECT count(*) AS rows FROM ixs;
-- its stream's records, shard by shard: a put of each row the INSERT put
-- back, nothing for the rows DETACH and ATTACH moved (rows written before
-- the stream have no record)
CREATE FUNCTION pg_temp.records(tbl text) RETURNS TABLE (action text, records bigint) LANGUAGE plpgsql AS $$
DECLARE
	s integer;
	it text;
	res jsonb;
	recs jsonb := '[]';
BEGIN
	FOR s IN SELECT g FROM generate_series(0, 1) g LOOP
		it := ots.get_shard_iterator((SELECT l.stream_id FROM ots.list_stream(tbl) l), s::text);
		LOOP
			res := ots.get_stream_record(it, 100);
			it := res ->> 'next_shard_iterator';
			EXIT WHEN jsonb_array_length(res -> 'stream_records') = 0;
			recs := recs || (res -> 'stream_records');
		END LOOP;
	END LOOP;
	RETURN QUERY SELECT r ->> 'action_type', count(*) FROM jsonb_array_elements(recs) r GROUP BY 1 ORDER BY 1;
END
$$;
SELECT r.*, (SELECT count(*) FROM ixs_rows) AS inserted FROM pg_temp.records('ixs') r;
SELECT ots.delete_table('ixs');
SELECT ots.delete_table('ix');
