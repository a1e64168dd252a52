-- tableam: the ots table access method.  Every leaf create_table makes uses
-- it (heap storage: TOAST tables stay plain heap); what PostgreSQL does to
-- heap tables works on the leaves and keeps every row: CREATE INDEX (also
-- CONCURRENTLY), REINDEX (also CONCURRENTLY), VACUUM (FULL), CLUSTER,
-- ANALYZE, ALTER TABLE rewrites; rewrites change no row, so the write
-- point sees none of them.  Logical replication of ots storage into
-- another database: the apply worker's changes pass the subscriber's write
-- point.  Contrib tools that refuse other access methods than heap by OID
-- refuse the leaves (docs/design.md lists them).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
CREATE EXTENSION IF NOT EXISTS pg_cron;
RESET client_min_messages;
\set VERBOSITY terse

SET client_min_messages = warning;
SELECT ots.create_table('am', 'k string, n integer', max_versions => 3, partitions => 2);
RESET client_min_messages;
SELECT count(*) AS written FROM generate_series(1, 200) i,
	LATERAL ots.put_row('am', jsonb_build_object('k', 'k' || (i % 7), 'n', i),
						jsonb_build_object('v', i, 'big', repeat(md5(i::text), 100 * (i % 3))));

-- the leaves use the access method, the partitioned storage names none, TOAST is heap
SELECT c.relname, c.relkind, a.amname, t.amname AS toast_am
  FROM pg_class c
  LEFT JOIN pg_am a ON a.oid = c.relam
  LEFT JOIN pg_class tc ON tc.oid = c.reltoastrelid
  LEFT JOIN pg_am t ON t.oid = tc.relam
 WHERE c.relname LIKE 'am$%' AND c.relkind IN ('r', 'p')
 ORDER BY c.relname;

-- fingerprint: every stored row, and the view, as text
CREATE FUNCTION pg_temp.fingerprint() RETURNS text LANGUAGE sql AS $$
	SELECT count(*) || ' rows, ' || md5(string_agg(x::text, ',' ORDER BY x.k, x.n)) ||
		   ', view ' || (SELECT md5(string_agg(v::text, ',' ORDER BY v.k, v.n)) FROM am v)
	  FROM "am$data" x
$$;
CREATE TEMP TABLE before AS SELECT pg_temp.fingerprint() AS f;
SELECT ots.stats_forget('"am$data"');

-- indexes: on the storage (one per leaf) and on a leaf, plain and concurrently
CREATE INDEX am_oldest ON "am$data" ("$oldest_ts");
CREATE INDEX CONCURRENTLY am_p0_n ON "am$p0" (n);
REINDEX TABLE "am$p0";
REINDEX TABLE CONCURRENTLY "am$p1";
REINDEX INDEX CONCURRENTLY am_p0_n;
SELECT indexrelid::regclass AS index, indisvalid, indisready
  FROM pg_index WHERE indrelid IN ('"am$p0"'::regclass, '"am$p1"'::regclass)
 ORDER BY indexrelid::regclass::text COLLATE "C";
SET enable_seqscan = off;
SELECT count(*) AS by_index FROM "am$p0" WHERE n BETWEEN 1 AND 100;
RESET enable_seqscan;

-- rewrites and maintenance
VACUUM FULL "am$p0";
CLUSTER "am$p1" USING "am$p1_pkey";
VACUUM (ANALYZE) "am$data";
ALTER TABLE "am$p0" SET UNLOGGED;
ALTER TABLE "am$p0" SET LOGGED;
ALTER TABLE "am$p1" SET ACCESS METHOD ots;
SELECT relname, relpersistence, (SELECT amname FROM pg_am WHERE oid = relam) AS am
  FROM pg_class WHERE relname IN ('am$p0', 'am$p1') ORDER BY 1;

-- every row as it was; the write point saw no change of a row
SELECT f = pg_temp.fingerprint() AS rows_unchanged FROM before;
SELECT count(*) AS changes_seen FROM ots.write_point_counts('"am$data"');
-- and the table works as before
SELECT count(*) AS updated FROM ots.update_row('am', '{"k": "k1", "n": 1}', put => '{"w": 1}');
SELECT attributes - 'big' AS attributes FROM am WHERE k = 'k1' AND n = 1;
SELECT origin, callback, rows, with_old_cells, with_new_cells FROM ots.write_point_counts('"am$data"');

-- an index whose expression makes the relcache rebuild the leaf's entry
-- during the build (a GRANT) still builds: heap's scan needs heap's routine
CREATE FUNCTION am_grant() RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	EXECUTE 'GRANT SELECT ON "am$p1" TO PUBLIC';
END
$$;
CREATE FUNCTION am_touch(k text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	PERFORM am_grant();
	RETURN k;
END
$$;
CREATE INDEX am_p1_touch ON "am$p1" (am_touch(k));
DROP INDEX am_p1_touch;
DROP FUNCTION am_touch(text);
DROP FUNCTION am_grant();
REVOKE SELECT ON "am$p1" FROM PUBLIC;

-- a relation on the access method that is no ots leaf (columns named as
-- ots's, of other types) is left alone: no role can make the write point
-- read it as cells (that crashed the server)
CREATE ROLE regress_ots_am_other;
CREATE SCHEMA am_other AUTHORIZATION regress_ots_am_other;
SET ROLE regress_ots_am_other;
CREATE TABLE am_other.p (x int, "$cells" int, "$oldest_ts" int8) PARTITION BY LIST (x);
CREATE TABLE am_other.c PARTITION OF am_other.p FOR VALUES IN (1) USING ots;
INSERT INTO am_other.c VALUES (1, 12345, 0);
UPDATE am_other.c SET "$cells" = 1;
SELECT * FROM am_other.p;
RESET ROLE;
DROP SCHEMA am_other CASCADE;
DROP ROLE regress_ots_am_other;

-- contrib tools that accept only heap's access method refuse the leaves
CREATE EXTENSION IF NOT EXISTS pgstattuple;
SELECT tuple_count FROM pgstattuple('"am$p0"');
DROP EXTENSION pgstattuple;

-- logical replication of ots storage into another database, through the
-- storage's root (with its chunk relation, which a publication of the
-- storage must carry): the initial copy and every later change reach the
-- subscriber's write point, and its view shows the rows
CREATE PUBLICATION am_pub FOR TABLE "am$data", "am$chunk" WITH (publish_via_partition_root = true);
SELECT 'init' FROM pg_create_logical_replication_slot('am_sub', 'pgoutput');
SELECT format('host=%s port=%s dbname=%s', split_part(current_setting('unix_socket_directories'), ',', 1),
			  current_setting('port'), current_database()) AS conninfo \gset
SELECT md5(string_agg(v::text, ',' ORDER BY v.k, v.n)) AS published FROM am v \gset
CREATE DATABASE regress_ots_am_sub;
\c regress_ots_am_sub
SET client_min_messages = warning;
CREATE EXTENSION ots;
SELECT ots.create_table('am', 'k string, n integer', max_versions => 3, partitions => 2);
RESET client_min_messages;
\set VERBOSITY terse
CREATE SUBSCRIPTION am_sub CONNECTION :'conninfo' PUBLICATION am_pub
	WITH (create_slot = false, slot_name = 'am_sub');
-- wait_for(query): until the query is true, for at most a minute
CREATE FUNCTION wait_for(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	ok boolean;
BEGIN
	FOR i IN 1 .. 600 LOOP
		EXECUTE query INTO ok;
		IF ok THEN
			RETURN true;
		END IF;
		PERFORM pg_sleep(0.1);
	END LOOP;
	RETURN false;
END
$$;
SELECT wait_for($$SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate <> 'r'$$) AS synced;
SELECT md5(string_agg(v::text, ',' ORDER BY v.k, v.n)) = :'published' AS same_rows FROM am v;
SELECT (SELECT count(*) FROM "am$data") AS stored, origin, callback, rows, with_old_cells, with_new_cells
  FROM ots.write_point_counts('"am$data"');
SELECT ots.stats_forget('"am$data"');
\c contrib_regression
SELECT count(*) AS put FROM ots.put_row('am', '{"k": "new", "n": 1}', '{"v": 1}');
SELECT count(*) AS updated FROM ots.update_row('am', '{"k": "k1", "n": 1}', put => '{"w": 2}');
SELECT count(*) AS deleted FROM ots.delete_row('am', '{"k": "k2", "n": 2}');
SELECT md5(string_agg(v::text, ',' ORDER BY v.k, v.n)) AS published FROM am v \gset
\c regress_ots_am_sub
SELECT wait_for(format($$SELECT md5(string_agg(v::text, ',' ORDER BY v.k, v.n)) = %L FROM am v$$,
	:'published')) AS same_rows;
SELECT origin, callback, rows, with_old_cells, with_new_cells
  FROM ots.write_point_counts('"am$data"') ORDER BY 1, 2;
DROP SUBSCRIPTION am_sub;
\c contrib_regression
DROP DATABASE regress_ots_am_sub;
DROP PUBLICATION am_pub;

SET client_min_messages = warning;
SELECT ots.delete_table('am');
RESET client_min_messages;
