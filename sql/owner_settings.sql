-- owner_settings: code ots runs as a table's owner (the code of a leaf's
-- indexes on a write, purge, index builds) leaves its caller's settings as
-- they were.  A tenant's expression index calls a (falsely IMMUTABLE)
-- function that sets, for the session, search_path (the tenant's schema
-- first: the caller's later unqualified names would run the tenant's
-- functions with the caller's rights), statement_timeout and row_security,
-- and for the transaction a placeholder RLS policies read; it tries SET
-- ROLE too.  A victim (an unprivileged LOGIN role with DML on the table),
-- then a superuser, drive every path that runs an owner's code: after each
-- call the tenant's code ran (code_ran: it did not on deletes and reads)
-- and no setting of the caller changed, inside its transaction either.
-- (That the code runs as the owner: purge_owner.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
RESET client_min_messages;
\set VERBOSITY terse
-- the build is run by CALL ots.build_index here, not by a background worker
SET ots.index_build_worker = off;
SET ots.purge_schedule = '0 0 31 2 *';	-- no pg_cron run of the test's table

CREATE ROLE regress_ots_os_ten LOGIN;
CREATE ROLE regress_ots_os_vic LOGIN;
CREATE SCHEMA os_ten AUTHORIZATION regress_ots_os_ten;
GRANT USAGE ON SCHEMA os_ten TO regress_ots_os_vic;

-- the tenant's tables: t, with rows and an index on a defined column to
-- build; e, with a row whose cell from 2016 expires under a TTL of a day
-- (purge rewrites the row).  Its code counts its runs in os_ten.ran.
SET ROLE regress_ots_os_ten;
SET client_min_messages = warning;
SELECT ots.create_table('os_ten.t', 'id string', partitions => 2, defined_columns => 'v string');
SELECT ots.create_table('os_ten.e', 'id string', partitions => 2, max_version_offset => 9223372036854);
RESET client_min_messages;
SELECT consumed FROM ots.put_row('os_ten.t', '{"id": "a"}', '{"v": "a1"}');
SELECT consumed FROM ots.put_row('os_ten.t', '{"id": "b"}', '{"v": "b1"}');
SELECT consumed FROM ots.put_row('os_ten.t', '{"id": "c"}', '{"v": "c1"}');
SELECT ots.create_index('os_ten.t', 't_v', '{v}');
SELECT consumed FROM ots.put_row('os_ten.e', '{"id": "a"}', '{"v": "a1", "w": {"value": 0, "ts": 1466762754000}}');
GRANT SELECT, INSERT, UPDATE, DELETE ON os_ten.t, os_ten."t$data" TO regress_ots_os_vic;
CREATE SEQUENCE os_ten.ran;
SELECT nextval('os_ten.ran');
GRANT SELECT ON os_ten.ran TO PUBLIC;
CREATE FUNCTION os_ten.meddle(c ots.cells) RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	PERFORM pg_catalog.nextval('os_ten.ran');
	PERFORM pg_catalog.set_config('search_path', 'os_ten, pg_catalog', false);
	PERFORM pg_catalog.set_config('statement_timeout', '47min', false);
	PERFORM pg_catalog.set_config('row_security', 'off', false);
	PERFORM pg_catalog.set_config('os.tenant', 'regress_ots_os_ten', true);
	BEGIN
		PERFORM pg_catalog.set_config('role', 'regress_ots_os_ten', false);
	EXCEPTION WHEN insufficient_privilege THEN
		NULL;
	END;
	RETURN 0;
END
$$;
-- on the leaves of both tables and of the index
CREATE INDEX t_meddle ON os_ten."t$data" (os_ten.meddle("$cells"));
CREATE INDEX t_v_meddle ON os_ten."t_v$data" (os_ten.meddle("$cells"));
CREATE INDEX e_meddle ON os_ten."e$data" (os_ten.meddle("$cells"));
RESET ROLE;

-- the checks: a session's settings (pg_settings has no placeholder:
-- os.tenant is added), saved as a baseline; then whether the tenant's
-- code ran since and which settings differ from the baseline.  Every
-- name is qualified: nothing depends on the search path they run under.
CREATE SCHEMA os_chk;
GRANT USAGE ON SCHEMA os_chk TO PUBLIC;
CREATE VIEW os_chk.settings AS
SELECT s.name, s.setting FROM pg_catalog.pg_settings s
UNION ALL
SELECT 'os.tenant', pg_catalog.current_setting('os.tenant', true);
CREATE TABLE os_chk.baseline (name text, setting text);
CREATE VIEW os_chk.changed AS
SELECT * FROM os_chk.settings EXCEPT SELECT * FROM os_chk.baseline;
CREATE SEQUENCE os_chk.mark;
GRANT SELECT ON os_chk.settings, os_chk.changed TO PUBLIC;
GRANT SELECT, INSERT, DELETE ON os_chk.baseline TO PUBLIC;
GRANT SELECT, UPDATE ON os_chk.mark TO PUBLIC;
CREATE FUNCTION os_chk.save() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM os_chk.baseline;
	INSERT INTO os_chk.baseline SELECT * FROM os_chk.settings;
	PERFORM pg_catalog.setval('os_chk.mark', (SELECT r.last_value FROM os_ten.ran r));
END
$$;
CREATE FUNCTION os_chk.check(OUT code_ran boolean, OUT changed text) LANGUAGE plpgsql AS $$
DECLARE
	ran bigint := (SELECT r.last_value FROM os_ten.ran r);
BEGIN
	code_ran := ran OPERATOR(pg_catalog.<>) (SELECT m.last_value FROM os_chk.mark m);
	PERFORM pg_catalog.setval('os_chk.mark', ran);
	changed := (SELECT pg_catalog.string_agg(c.name OPERATOR(pg_catalog.||) '=' OPERATOR(pg_catalog.||)
											 c.setting, '; ' ORDER BY c.name)
				  FROM os_chk.changed c);
END
$$;

-- the victim's session; each call in a transaction that rolls back (which
-- would undo changed settings too), so each check sees one call's doing
SET ROLE regress_ots_os_vic;
SET os.tenant = 'regress_ots_os_vic';
SELECT os_chk.save();
BEGIN;
SELECT consumed FROM ots.put_row('os_ten.t', '{"id": "n"}', '{"v": "n1"}');
SELECT * FROM os_chk.check();
ROLLBACK;
BEGIN;
SELECT consumed FROM ots.put_row('os_ten.t', '{"id": "c"}', '{"v": "c2"}');
SELECT * FROM os_chk.check();
ROLLBACK;
BEGIN;
SELECT consumed FROM ots.update_row('os_ten.t', '{"id": "c"}', put => '{"v": "c3"}');
SELECT * FROM os_chk.check();
ROLLBACK;
BEGIN;
SELECT consumed FROM ots.delete_row('os_ten.t', '{"id": "c"}');
SELECT * FROM os_chk.check();
ROLLBACK;
-- reads
BEGIN;
SELECT attributes FROM ots.get_row('os_ten.t', '{"id": "c"}');
SELECT rows FROM ots.get_range('os_ten.t', '{"id": "c"}', '{"id": {"$inf": "max"}}');
SELECT id, v FROM os_ten.t ORDER BY id;
SELECT * FROM os_chk.check();
ROLLBACK;
-- batches: new keys straight into the leaves, an existing key (the upsert
-- statement), a delete, the per-row way (conditions), atomic
BEGIN;
SELECT index, is_ok FROM ots.batch_write_row('[{"table_name": "os_ten.t", "rows": [
	{"type": "PUT", "primary_key": {"id": "p"}, "attributes": {"v": "p1"}},
	{"type": "PUT", "primary_key": {"id": "q"}, "attributes": {"v": "q1"}}]}]') ORDER BY index;
SELECT * FROM os_chk.check();
ROLLBACK;
BEGIN;
SELECT index, is_ok FROM ots.batch_write_row('[{"table_name": "os_ten.t", "rows": [
	{"type": "PUT", "primary_key": {"id": "c"}, "attributes": {"v": "c4"}},
	{"type": "PUT", "primary_key": {"id": "q"}, "attributes": {"v": "q1"}}]}]') ORDER BY index;
SELECT * FROM os_chk.check();
ROLLBACK;
BEGIN;
SELECT index, is_ok FROM ots.batch_write_row('[{"table_name": "os_ten.t", "rows": [
	{"type": "DELETE", "primary_key": {"id": "c"}}]}]') ORDER BY index;
SELECT * FROM os_chk.check();
ROLLBACK;
BEGIN;
SELECT index, is_ok FROM ots.batch_write_row('[{"table_name": "os_ten.t", "rows": [
	{"type": "UPDATE", "primary_key": {"id": "c"}, "put": {"v": "c5"}, "condition": "EXPECT_EXIST"},
	{"type": "PUT", "primary_key": {"id": "r"}, "attributes": {"v": "r1"}, "condition": "EXPECT_NOT_EXIST"}]}]')
 ORDER BY index;
SELECT * FROM os_chk.check();
ROLLBACK;
BEGIN;
SELECT index, is_ok FROM ots.batch_write_row('[{"table_name": "os_ten.t", "rows": [
	{"type": "PUT", "primary_key": {"id": "c"}, "attributes": {"v": "c6"}},
	{"type": "UPDATE", "primary_key": {"id": "c"}, "put": {"w": 6}}]}]', is_atomic => true)
 ORDER BY index;
SELECT * FROM os_chk.check();
ROLLBACK;
-- the view: INSERT, UPDATE, DELETE, COPY
BEGIN;
INSERT INTO os_ten.t (id, v) VALUES ('w', 'w1');
SELECT * FROM os_chk.check();
ROLLBACK;
BEGIN;
UPDATE os_ten.t SET v = 'c7' WHERE id = 'c';
SELECT * FROM os_chk.check();
ROLLBACK;
BEGIN;
DELETE FROM os_ten.t WHERE id = 'c';
SELECT * FROM os_chk.check();
ROLLBACK;
BEGIN;
COPY os_ten.t (id, v) FROM stdin;
x	x1
y	y1
\.
SELECT * FROM os_chk.check();
ROLLBACK;
-- the victim may neither purge nor build (the owner's, or a superuser's)
CALL ots.purge('os_ten.e');
CALL ots.build_index('os_ten.t', 't_v');
SELECT * FROM os_chk.check();
RESET os.tenant;
RESET ROLE;

-- a superuser's session: a row write, a catalog write, purge, a build and
-- an index's creation, on the tenant's tables
SET client_min_messages = warning;
SET os.tenant = 'superuser';
SELECT os_chk.save();
BEGIN;
SELECT consumed FROM ots.put_row('os_ten.t', '{"id": "d"}', '{"v": "d1"}');
SELECT * FROM os_chk.check();
ROLLBACK;
BEGIN;
SELECT ots.update_table('os_ten.e', time_to_live => 86400);
SELECT * FROM os_chk.check();
COMMIT;
-- purge and builds commit as they go, outside a transaction block: a
-- setting they changed is reset after the check, for the next one
CALL ots.purge('os_ten.e');
SELECT * FROM os_chk.check();
RESET search_path;
RESET statement_timeout;
RESET row_security;
SELECT id, attributes FROM os_ten.e ORDER BY id;
SELECT cells_purged, rows_purged FROM ots.purge_stats WHERE schema_name = 'os_ten';
CALL ots.build_index('os_ten.t', 't_v');
SELECT * FROM os_chk.check();
RESET search_path;
RESET statement_timeout;
RESET row_security;
SELECT primary_key FROM ots.get_range_rows('os_ten.t_v', '{"v": {"$inf": "min"}, "id": {"$inf": "min"}}',
	'{"v": {"$inf": "max"}, "id": {"$inf": "max"}}');
BEGIN;
SELECT ots.create_index('os_ten.t', 't_v2', '{v}');
SELECT * FROM os_chk.check();
COMMIT;

SELECT ots.delete_table('os_ten.t');
SELECT ots.delete_table('os_ten.e');
DROP SCHEMA os_ten CASCADE;
DROP SCHEMA os_chk CASCADE;
RESET client_min_messages;
RESET os.tenant;
DROP ROLE regress_ots_os_ten;
DROP ROLE regress_ots_os_vic;
