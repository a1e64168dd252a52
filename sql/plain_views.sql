-- plain_views: views that are not an ots table's, in a database with ots.
-- ots's planner and executor hooks ask, for every INSERT, UPDATE or DELETE
-- that targets a view (one with INSTEAD OF triggers: PostgreSQL rewrites
-- an auto-updatable view's to its table) and for every SELECT through a
-- view, whether it is a table's view; for a view that is not, the answer
-- comes without reading ots's catalog (ots.tables is not scanned), and it
-- is never remembered wrongly: a name that becomes an ots table's view
-- later is one at once.
-- (quiet: the extension may already exist, the files share one database)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

CREATE TABLE pv_t (k int PRIMARY KEY, v int);
INSERT INTO pv_t SELECT g, 0 FROM generate_series(1, 10) g;
-- a view with INSTEAD OF triggers, as views over joins or computed columns have
CREATE VIEW pv AS SELECT k, v FROM pv_t;
CREATE FUNCTION pv_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		DELETE FROM pv_t WHERE k = OLD.k;
		RETURN OLD;
	ELSIF TG_OP = 'UPDATE' THEN
		UPDATE pv_t SET v = NEW.v WHERE k = OLD.k;
	ELSE
		INSERT INTO pv_t VALUES (NEW.k, NEW.v);
	END IF;
	RETURN NEW;
END
$$;
CREATE TRIGGER pv_write INSTEAD OF INSERT OR UPDATE OR DELETE ON pv
	FOR EACH ROW EXECUTE FUNCTION pv_write();

-- how often this transaction has read ots.tables so far
CREATE FUNCTION pg_temp.catalog_reads() RETURNS bigint LANGUAGE sql AS $$
	SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0)
	  FROM pg_stat_xact_user_tables WHERE relid = 'ots.tables'::regclass
$$;

BEGIN;
CREATE TEMP TABLE pv_before ON COMMIT DROP AS SELECT pg_temp.catalog_reads() AS n;
UPDATE pv SET v = v + 1 WHERE k = 1;
UPDATE pv SET v = v + 1 WHERE k <= 5;
INSERT INTO pv VALUES (11, 11);
DELETE FROM pv WHERE k = 11;
SELECT count(*), sum(v) FROM pv;
PREPARE pv_update(int) AS UPDATE pv SET v = v + 1 WHERE k = $1;
EXECUTE pv_update(2);
EXECUTE pv_update(3);
DEALLOCATE pv_update;
-- none of them read ots's catalog
SELECT pg_temp.catalog_reads() - n AS catalog_reads FROM pv_before;
COMMIT;
SELECT k, v FROM pv ORDER BY k;

-- the name becomes an ots table's view: its writes are the row API's at once
-- (this session answered "not a table's view" for the name before)
DROP VIEW pv;
SELECT ots.create_table('pv', 'k integer', partitions => 1);
INSERT INTO pv (k, attributes) VALUES (1, '{"v": 1}');
UPDATE pv SET attributes = '{"v": 2}' WHERE k = 1;
SELECT primary_key, attributes FROM ots.get_row('pv', '{"k": 1}');
-- and a trigger view of that name again, after the table goes
SELECT ots.delete_table('pv');
CREATE VIEW pv AS SELECT k, v FROM pv_t;
CREATE TRIGGER pv_write INSTEAD OF INSERT OR UPDATE OR DELETE ON pv
	FOR EACH ROW EXECUTE FUNCTION pv_write();
UPDATE pv SET v = 100 WHERE k = 1;
SELECT k, v FROM pv WHERE k = 1;

DROP VIEW pv;
DROP FUNCTION pv_write();
DROP TABLE pv_t;
