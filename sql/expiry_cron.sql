-- expiry_cron: with pg_cron in the database, every ots table that has data
-- to purge (a TTL, or versions left over from a lowered max_versions) has
-- one named purge job; the job follows the table's options, goes with
-- delete_table, with the purge itself once nothing is left to do, and with
-- DROP EXTENSION ots.  One real scheduled run at the end (waits < 90 s).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
CREATE EXTENSION IF NOT EXISTS pg_cron;
RESET client_min_messages;
\set VERBOSITY terse

CREATE VIEW pg_temp.jobs AS
SELECT jobname, schedule, command, database = current_database() AS here, active
  FROM cron.job WHERE jobname LIKE 'ots.purge %';

-- the default schedule; the jobs made here (but the last) get schedules
-- that never fire (February 30th/31st), so none runs behind the test's back
SHOW ots.purge_schedule;
SET ots.purge_schedule = '0 0 31 2 *';

-- no TTL, nothing to purge: no job
SELECT ots.create_table('ec_plain', 'id string', max_versions => 3, partitions => 1);
SELECT * FROM pg_temp.jobs ORDER BY jobname;

-- a TTL: a job, with the current schedule, calling ots.purge by name
SELECT ots.create_table('ec_ttl', 'id string', time_to_live => 86400, partitions => 1);
SELECT * FROM pg_temp.jobs ORDER BY jobname;

-- scheduling is idempotent (pg_cron upserts named jobs): still one job,
-- with the schedule in force when the options last changed
SELECT ots.update_table('ec_ttl', time_to_live => 3600);
SET ots.purge_schedule = '0 0 30 2 *';
SELECT ots.update_table('ec_ttl', max_versions => 2);
SET ots.purge_schedule = '0 0 31 2 *';
SELECT * FROM pg_temp.jobs ORDER BY jobname;
-- a bad schedule is pg_cron's error, and changes nothing
SET ots.purge_schedule = 'every now and then';
SELECT ots.update_table('ec_ttl', time_to_live => 7200);
SET ots.purge_schedule = '0 0 31 2 *';
SELECT time_to_live FROM ots.tables WHERE table_name = 'ec_ttl';

-- no TTL any more: the job goes
SELECT ots.update_table('ec_ttl', time_to_live => -1);
SELECT * FROM pg_temp.jobs ORDER BY jobname;

-- lowering max_versions needs one trimming pass: a job until it has run
SELECT ots.update_table('ec_plain', max_versions => 1);
SELECT ots.update_table('ec_ttl', max_versions => 1);
SELECT * FROM pg_temp.jobs ORDER BY jobname;
-- the job's own command: the purge trims, then removes the job
SELECT command AS purge_ec_plain FROM pg_temp.jobs WHERE jobname = 'ots.purge public.ec_plain' \gset
:purge_ec_plain;
SELECT * FROM pg_temp.jobs ORDER BY jobname;
CALL ots.purge();
SELECT * FROM pg_temp.jobs ORDER BY jobname;

-- schema-qualified and quoted names; the command resolves to the table
CREATE SCHEMA "EC Schema";
SELECT ots.create_table('"EC Schema".EcMixed', 'id string', time_to_live => 86400, partitions => 1);
SELECT * FROM pg_temp.jobs ORDER BY jobname;
SELECT command AS purge_ec_mixed FROM pg_temp.jobs WHERE jobname LIKE '%EcMixed' \gset
:purge_ec_mixed;
SELECT schema_name, table_name, purges, last_purge IS NOT NULL AS purged
  FROM ots.purge_stats WHERE table_name = 'EcMixed';
-- names beyond pg_cron's 63-byte job names get a digest
SELECT ots.purge_job_name('public', 'ec_plain') AS short,
	   ots.purge_job_name('EC Schema', repeat('x', 57)) AS long,
	   octet_length(ots.purge_job_name('EC Schema', repeat('x', 57))) AS long_bytes;

-- delete_table takes its job along
SELECT ots.delete_table('"EC Schema".EcMixed');
SELECT * FROM pg_temp.jobs ORDER BY jobname;
DROP SCHEMA "EC Schema";

-- a role that may not use pg_cron gets its table, and a NOTICE
CREATE ROLE regress_ots_cron_user;
CREATE SCHEMA ec_own AUTHORIZATION regress_ots_cron_user;
SET ROLE regress_ots_cron_user;
SELECT ots.create_table('ec_own.t', 'id string', time_to_live => 60, partitions => 1);
SELECT ots.delete_table('ec_own.t');
RESET ROLE;
DROP SCHEMA ec_own;
DROP ROLE regress_ots_cron_user;

-- DROP EXTENSION ots removes ots's jobs first (event trigger), in its own
-- transaction: rolled back here, so everything stays
SELECT ots.update_table('ec_ttl', time_to_live => 600);
SELECT jobname FROM pg_temp.jobs ORDER BY jobname;
BEGIN;
SET client_min_messages = warning;
DROP EXTENSION ots CASCADE;
RESET client_min_messages;
SELECT count(*) AS jobs_left FROM cron.job WHERE jobname LIKE 'ots.purge %';
ROLLBACK;
SELECT jobname FROM pg_temp.jobs ORDER BY jobname;
-- ots.unschedule_all does the same by hand (for DROP EXTENSION with event
-- triggers disabled); the next update_table schedules again
SELECT ots.unschedule_all() AS removed;
SELECT ots.update_table('ec_ttl', time_to_live => 60);
SELECT jobname FROM pg_temp.jobs ORDER BY jobname;

--
-- a real pg_cron run: every minute, purging a table with expired data
--
SELECT ots.create_table('ec_run', 'id string', time_to_live => 2000000000, partitions => 2,
	max_version_offset => 9223372036854);
-- (straight into storage: rows whose cells and row marker are from 2016)
INSERT INTO "ec_run$data" (id, "$cells", "$oldest_ts")
SELECT 'old' || i, '{"row_ts": 1466762754000, "cells": {"a": [{"ts": 1466762754000, "value": 1}]}}',
	   1466762754000
  FROM generate_series(1, 20) i;
SELECT (ots.put_row('ec_run', jsonb_build_object('id', 'mixed'),
	'{"a": [{"value": "old", "ts": 1466762754000}], "b": "new"}')).consumed;
-- a TTL of one day expires the 2016 data; the job runs every minute
SET ots.purge_schedule = '* * * * *';
SELECT ots.update_table('ec_run', time_to_live => 86400);
SET ots.purge_schedule = '0 0 31 2 *';
SELECT * FROM pg_temp.jobs WHERE jobname = 'ots.purge public.ec_run';
DO $$
BEGIN
	FOR i IN 1 .. 90 LOOP
		EXIT WHEN EXISTS (SELECT 1 FROM cron.job_run_details d JOIN cron.job j ON j.jobid = d.jobid
						   WHERE j.jobname = 'ots.purge public.ec_run'
							 AND d.status IN ('succeeded', 'failed'));
		PERFORM pg_sleep(1);
	END LOOP;
END
$$;
SELECT d.status, d.return_message
  FROM cron.job_run_details d JOIN cron.job j ON j.jobid = d.jobid
 WHERE j.jobname = 'ots.purge public.ec_run'
 ORDER BY d.start_time LIMIT 1;
SELECT id, jsonb_object_keys("$cells"::text::jsonb -> 'cells') AS columns
  FROM "ec_run$data" ORDER BY id, columns;
-- (the job may have run more than once by now; later runs find nothing)
SELECT cells_purged, rows_purged, purges > 0 AS purged FROM ots.purge_stats WHERE table_name = 'ec_run';

SELECT ots.delete_table('ec_run');
SELECT ots.delete_table('ec_ttl');
SELECT ots.delete_table('ec_plain');
SELECT count(*) AS jobs_left FROM cron.job WHERE jobname LIKE 'ots.purge %';
DROP VIEW pg_temp.jobs;
DROP EXTENSION pg_cron;

--
-- pg_cron installed after ots tables exist: CREATE EXTENSION pg_cron
-- schedules every table that needs purging, each job as the table's owner
-- (a login role's table: that role; the superuser's: the superuser)
--
CREATE ROLE regress_ots_cron_owner LOGIN;
CREATE SCHEMA ec_late AUTHORIZATION regress_ots_cron_owner;
-- (without pg_cron: a NOTICE each)
SELECT ots.create_table('ec_late.mine', 'id string', time_to_live => 86400, partitions => 1);
SELECT ots.create_table('ec_late.plain', 'id string', partitions => 1);
SET ROLE regress_ots_cron_owner;
SELECT ots.create_table('ec_late.theirs', 'id string', time_to_live => 600, partitions => 1);
SELECT ots.create_table('ec_late.streamed', 'id string', stream_enabled => true, partitions => 1);
RESET ROLE;
CREATE EXTENSION pg_cron;
-- (a new session: pg_cron 1.4's cron.unschedule fails in a session that
-- dropped and created pg_cron, "could not open relation with OID")
\c
\set VERBOSITY terse
SET ots.purge_schedule = '0 0 31 2 *';
CREATE VIEW pg_temp.jobs AS
SELECT jobname, username = current_user AS mine, schedule, command, database = current_database() AS here
  FROM cron.job WHERE jobname LIKE 'ots.purge %';
SELECT * FROM pg_temp.jobs ORDER BY jobname;
SELECT jobname, username FROM cron.job WHERE username <> current_user ORDER BY jobname;

-- ots.schedule_all() schedules them again (jobs removed by hand, say), as
-- the same roles; idempotent
SELECT count(cron.unschedule(jobid)) AS removed FROM cron.job;
SELECT ots.schedule_all() AS scheduled;
SELECT ots.schedule_all() AS scheduled;
SELECT * FROM pg_temp.jobs ORDER BY jobname;
-- a table owner schedules its own tables only, as itself: not without
-- pg_cron's schema, then with it
SELECT count(cron.unschedule(jobid)) AS removed FROM cron.job;
SET ROLE regress_ots_cron_owner;
SELECT ots.schedule_all() AS scheduled;
RESET ROLE;
GRANT USAGE ON SCHEMA cron TO regress_ots_cron_owner;
SET ROLE regress_ots_cron_owner;
SELECT ots.schedule_all() AS scheduled;
RESET ROLE;
SELECT jobname, username FROM cron.job ORDER BY jobname;

SET client_min_messages = warning;
SELECT ots.delete_table('ec_late.' || t) FROM unnest('{mine,plain,theirs,streamed}'::text[]) t;
RESET client_min_messages;
DROP VIEW pg_temp.jobs;
DROP EXTENSION pg_cron;
DROP SCHEMA ec_late;
DROP ROLE regress_ots_cron_owner;
RESET ots.purge_schedule;
