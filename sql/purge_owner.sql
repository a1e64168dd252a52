-- purge_owner: purge works on each table as the table's owner, in a
-- security-restricted context, whoever runs it: a superuser's CALL
-- ots.purge() (cron, systemd) never runs a tenant's code with superuser
-- rights; nor do a superuser's row writes, whose leaf index code runs as
-- the owner too.  The pg_cron job a superuser's update_table schedules runs as the
-- table's owner.  Only a table's owner can take its purge lock.
-- (Concurrent purges: test/specs/purge_concurrent.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
CREATE EXTENSION IF NOT EXISTS pg_cron;
RESET client_min_messages;
\set VERBOSITY terse
SET ots.purge_schedule = '0 0 31 2 *';	-- no pg_cron run of the test's table

CREATE ROLE regress_ots_po_tenant LOGIN;
CREATE ROLE regress_ots_po_other LOGIN;
CREATE SCHEMA po AUTHORIZATION regress_ots_po_tenant;

-- the tenant's table, with rows whose cells from 2016 expire under a TTL of
-- a day; x and y keep a newer cell (purge rewrites them), z goes
SET ROLE regress_ots_po_tenant;
SET client_min_messages = warning;
SELECT ots.create_table('po.t', 'id string', max_versions => 3, partitions => 2,
	max_version_offset => 9223372036854);
RESET client_min_messages;
INSERT INTO po."t$data" (id, "$cells", "$oldest_ts")
SELECT id, cells::ots.cells, ots.cells_oldest_ts(cells::ots.cells) FROM (VALUES
	('x', '{"row_ts": 1466762754000, "cells": {"a": [{"ts": 9000000000000, "value": "new"}, {"ts": 8000000000000, "value": "mid"}, {"ts": 1466762754000, "value": "old"}]}}'),
	('y', '{"row_ts": 1466762754000, "cells": {"a": [{"ts": 9000000000000, "value": "new"}, {"ts": 1466762754000, "value": "old"}]}}'),
	('z', '{"row_ts": 1466762754000, "cells": {"a": [{"ts": 1466762754000, "value": "old"}]}}')
) v(id, cells);

-- the tenant's code on the table's writes: an expression index calls a
-- function that records who it runs as and tries to make the tenant
-- superuser (only a superuser could)
CREATE TABLE po.log (who name, outcome text);
CREATE FUNCTION po.act(c ots.cells) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
	outcome text := 'superuser granted';
BEGIN
	BEGIN
		ALTER ROLE regress_ots_po_tenant SUPERUSER;
	EXCEPTION WHEN insufficient_privilege THEN
		outcome := 'refused';
	END;
	INSERT INTO po.log VALUES (current_user, outcome);
	RETURN 0;
END
$$;
CREATE FUNCTION po.watch(c ots.cells) RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	RETURN po.act(c);
END
$$;
CREATE INDEX t_watch ON po."t$data" (po.watch("$cells"));
SELECT who, outcome, count(*) FROM po.log GROUP BY who, outcome ORDER BY who, outcome;
TRUNCATE po.log;
RESET ROLE;

-- a superuser's purge (TTL pass, then a trim pass after max_versions went
-- down) rewrites x and y: the tenant's code runs as the tenant
SELECT ots.update_table('po.t', time_to_live => 86400, max_versions => 1);
SET client_min_messages = warning;
CALL ots.purge();
RESET client_min_messages;
SELECT id, "$cells"::text::jsonb -> 'cells' AS cells FROM po."t$data" ORDER BY id;
SELECT cells_purged, rows_purged, purges FROM ots.purge_stats WHERE schema_name = 'po';
SELECT who, outcome, count(*) > 0 AS ran FROM po.log GROUP BY who, outcome ORDER BY who, outcome;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_ots_po_tenant';

-- the same index on a superuser's row writes: the leaf's index code runs as
-- the table's owner, security-restricted, on every path that maintains it
-- (new rows, replaced rows, updates, a batch's new keys straight into the
-- leaves and its upsert of an existing key)
TRUNCATE po.log;
SELECT consumed FROM ots.put_row('po.t', '{"id": "w1"}', '{"a": "put"}');
SELECT consumed FROM ots.put_row('po.t', '{"id": "w1"}', '{"a": "put again"}');
SELECT consumed FROM ots.update_row('po.t', '{"id": "w1"}', put => '{"b": 1}');
SELECT count(*) FILTER (WHERE is_ok) AS ok FROM ots.batch_write_row(
	'[{"table_name": "po.t", "rows": [{"type": "PUT", "primary_key": {"id": "w2"}, "attributes": {"a": 2}},
	                                  {"type": "PUT", "primary_key": {"id": "w3"}, "attributes": {"a": 3}}]}]');
SELECT count(*) FILTER (WHERE is_ok) AS ok FROM ots.batch_write_row(
	'[{"table_name": "po.t", "rows": [{"type": "PUT", "primary_key": {"id": "w1"}, "attributes": {"a": 1}},
	                                  {"type": "PUT", "primary_key": {"id": "w4"}, "attributes": {"a": 4}}]}]');
SELECT consumed FROM ots.delete_row('po.t', '{"id": "w1"}');
SELECT who, outcome, count(*) > 0 AS ran FROM po.log GROUP BY who, outcome ORDER BY who, outcome;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_ots_po_tenant';
SELECT id FROM po.t ORDER BY id;

-- the job the superuser's update_table scheduled runs as the owner
SELECT jobname, username FROM cron.job WHERE jobname LIKE 'ots.purge po.%' ORDER BY jobname;
-- a table whose owner may not log in: the job runs as the role scheduling it
ALTER ROLE regress_ots_po_tenant NOLOGIN;
SELECT ots.update_table('po.t', time_to_live => 3600);
SELECT jobname, username = current_user AS by_scheduler FROM cron.job WHERE jobname LIKE 'ots.purge po.%'
 ORDER BY jobname;
ALTER ROLE regress_ots_po_tenant LOGIN;
-- scheduling again as the owner replaces that job
SELECT ots.update_table('po.t', time_to_live => 7200);
SELECT jobname, username FROM cron.job WHERE jobname LIKE 'ots.purge po.%' ORDER BY jobname;

-- the purge lock: only the table's owner may take it (nor run a batch)
SELECT 'po."t$p0"'::regclass::oid AS po_leaf \gset
SET ROLE regress_ots_po_other;
SELECT ots.purge_lock('po', 't');
SELECT ots.purge_batch(:po_leaf::oid::regclass, false, 0, 3600, 1, 10, 0, 0);
SELECT ots.purge_unlock(0);
RESET ROLE;
SET ROLE regress_ots_po_tenant;
SELECT ots.purge_lock('po', 't') = '"po"."t$data"'::regclass::oid AS locked;
SELECT ots.purge_unlock(ots.purge_lock('po', 't'));
-- (released: this session holds no purge lock)
SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid();
RESET ROLE;

-- the tenant may not use pg_cron, so its delete_table cannot remove the
-- job: the superuser does
SELECT ots.unschedule_purge('po', 't');
SET ROLE regress_ots_po_tenant;
SET client_min_messages = warning;
SELECT ots.delete_table('po.t');
RESET client_min_messages;
RESET ROLE;
SELECT count(*) AS jobs_left FROM cron.job WHERE jobname LIKE 'ots.purge po.%';
DROP SCHEMA po CASCADE;
DROP ROLE regress_ots_po_tenant;
DROP ROLE regress_ots_po_other;
DROP EXTENSION pg_cron;
