-- storage_drop: dropping a part of an ots table with plain DDL drops the
-- ots table: DROP TABLE "t$data" CASCADE, DROP VIEW t, DROP SCHEMA ...
-- CASCADE and DROP OWNED remove its metadata, its purge job, its purge
-- statistics and activity counters, and what is left of its relations, so
-- the name is free again (an sql_drop event trigger).  Each is done by the
-- table's owner, a role without any privilege on ots's own tables.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
CREATE EXTENSION IF NOT EXISTS pg_cron;
\set VERBOSITY terse

CREATE ROLE regress_ots_drop_owner;
CREATE SCHEMA sd AUTHORIZATION regress_ots_drop_owner;
GRANT USAGE ON SCHEMA cron TO regress_ots_drop_owner;
-- jobs made here never fire (February 31st)
ALTER ROLE regress_ots_drop_owner SET ots.purge_schedule = '0 0 31 2 *';

-- everything an ots table leaves behind: metadata, purge job, purge
-- statistics, ots.stats row, relations (view, storage, leaves, sequence, index)
CREATE FUNCTION pg_temp.left_of(schema_name name, table_name name)
	RETURNS TABLE (metadata bigint, jobs bigint, purge_stats bigint, stats bigint, relations bigint)
	LANGUAGE sql AS $$
	SELECT (SELECT count(*) FROM ots.tables t WHERE t.schema_name = $1 AND t.table_name = $2),
		   (SELECT count(*) FROM cron.job j WHERE j.jobname = format('ots.purge %I.%s', $1, $2)),
		   (SELECT count(*) FROM ots.purge_stats p WHERE p.schema_name = $1 AND p.table_name = $2),
		   (SELECT count(*) FROM ots.stats s WHERE s.schema_name = $1 AND s.table_name = $2),
		   (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			 WHERE n.nspname = $1 AND (c.relname = $2 OR starts_with(c.relname, $2 || '$')))
$$;

-- an ots table with everything: a TTL (index and job), an AUTO_INCREMENT
-- column (sequence), rows written (activity counters) and a purge (statistics)
CREATE PROCEDURE pg_temp.make(t text) LANGUAGE plpgsql AS $$
BEGIN
	PERFORM ots.create_table(t, 'k string, n integer auto_increment', time_to_live => 86400,
							 partitions => 2);
	PERFORM ots.put_row(t, '{"k": "a", "n": {"$auto_increment": true}}', '{"v": 1}');
	PERFORM ots.get_row(t, '{"k": "a", "n": 1}');
END
$$;

SET ROLE regress_ots_drop_owner;
CALL pg_temp.make('sd.by_storage');
CALL ots.purge('sd.by_storage');
RESET ROLE;
SELECT * FROM pg_temp.left_of('sd', 'by_storage');
SELECT rows_written > 0 AS counted FROM ots.stats WHERE schema_name = 'sd' AND table_name = 'by_storage';
SELECT '"sd"."by_storage$data"'::regclass::oid AS by_storage_oid \gset

--
-- DROP TABLE "t$data" CASCADE (the view goes with it)
--
SET ROLE regress_ots_drop_owner;
DROP TABLE sd."by_storage$data" CASCADE;
RESET ROLE;
-- nothing is left: no metadata, job, statistics or relation (the sequence too)
SELECT * FROM pg_temp.left_of('sd', 'by_storage');
-- the activity counters of the dropped storage are gone
SELECT rows_written FROM ots.stats_counters(:by_storage_oid);
SET ROLE regress_ots_drop_owner;
-- the table does not exist, and its name can be used again
SELECT ots.describe_table('sd.by_storage');
SELECT ots.delete_table('sd.by_storage');
SELECT ots.create_table('sd.by_storage', 'other integer', partitions => 1);
SELECT ots.describe_table('sd.by_storage') -> 'primary_key' AS primary_key;
SELECT ots.delete_table('sd.by_storage');
RESET ROLE;

--
-- DROP VIEW t: the storage and the sequence go with it
--
SET ROLE regress_ots_drop_owner;
CALL pg_temp.make('sd.by_view');
CALL ots.purge('sd.by_view');
RESET ROLE;
SELECT * FROM pg_temp.left_of('sd', 'by_view');
SELECT '"sd"."by_view$data"'::regclass::oid AS by_view_oid \gset
SET ROLE regress_ots_drop_owner;
DROP VIEW sd.by_view;
RESET ROLE;
SELECT * FROM pg_temp.left_of('sd', 'by_view');
SELECT rows_written FROM ots.stats_counters(:by_view_oid);
SET ROLE regress_ots_drop_owner;
SELECT ots.describe_table('sd.by_view');
SELECT ots.create_table('sd.by_view', 'k string', partitions => 1);
SELECT count(*) AS written FROM ots.put_row('sd.by_view', '{"k": "b"}', '{"v": 2}');
SELECT * FROM sd.by_view;
SELECT ots.delete_table('sd.by_view');
RESET ROLE;

--
-- a view or table that is not part of an ots table is dropped as usual,
-- and ots.delete_table still removes everything itself
--
SET ROLE regress_ots_drop_owner;
CREATE TABLE sd."plain$data" (x int);
CREATE VIEW sd.plain AS SELECT 1 AS x;
DROP VIEW sd.plain;
DROP TABLE sd."plain$data";
CALL pg_temp.make('sd.by_delete');
SELECT ots.delete_table('sd.by_delete');
RESET ROLE;
SELECT * FROM pg_temp.left_of('sd', 'by_delete');

--
-- DROP SCHEMA ... CASCADE
--
SET ROLE regress_ots_drop_owner;
CALL pg_temp.make('sd.by_schema');
CALL pg_temp.make('sd.by_schema2');
CALL ots.purge('sd.by_schema');
SELECT count(*) AS tables FROM ots.list_table() WHERE schema_name = 'sd';
DROP SCHEMA sd CASCADE;
RESET ROLE;
SELECT count(*) AS metadata FROM ots.tables WHERE schema_name = 'sd';
SELECT count(*) AS jobs FROM cron.job WHERE jobname LIKE 'ots.purge sd.%';
SELECT count(*) AS purge_stats FROM ots.purge_stats WHERE schema_name = 'sd';
CREATE SCHEMA sd AUTHORIZATION regress_ots_drop_owner;
SET ROLE regress_ots_drop_owner;
SELECT ots.describe_table('sd.by_schema');
SELECT ots.create_table('sd.by_schema', 'k string', partitions => 1);
SELECT ots.delete_table('sd.by_schema');
RESET ROLE;

--
-- a failed DROP forgets nothing
--
SET ROLE regress_ots_drop_owner;
CALL pg_temp.make('sd.kept');
CALL ots.purge('sd.kept');
-- the storage cannot go (an object of the owner's depends on it), so the view stays
CREATE VIEW sd.on_top AS SELECT k FROM sd."kept$data";
DROP VIEW sd.kept;
RESET ROLE;
SELECT * FROM pg_temp.left_of('sd', 'kept');
-- another role may not drop it (and forgets nothing either)
CREATE ROLE regress_ots_drop_other;
GRANT USAGE ON SCHEMA sd TO regress_ots_drop_other;
SET ROLE regress_ots_drop_other;
DROP VIEW sd.on_top, sd.kept;
DROP TABLE sd."kept$data" CASCADE;
RESET ROLE;
SELECT * FROM pg_temp.left_of('sd', 'kept');
SET ROLE regress_ots_drop_owner;
DROP VIEW sd.on_top;
SELECT ots.delete_table('sd.kept');
RESET ROLE;
REVOKE USAGE ON SCHEMA sd FROM regress_ots_drop_other;
DROP ROLE regress_ots_drop_other;

--
-- DROP OWNED
--
SET ROLE regress_ots_drop_owner;
CALL pg_temp.make('sd.by_owned');
RESET ROLE;
REVOKE USAGE ON SCHEMA cron FROM regress_ots_drop_owner;
SET ROLE regress_ots_drop_owner;
-- the schema sd goes too: the owner owns it
DROP OWNED BY regress_ots_drop_owner;
RESET ROLE;
SELECT * FROM pg_temp.left_of('sd', 'by_owned');
SELECT count(*) AS jobs FROM cron.job WHERE jobname LIKE 'ots.purge sd.%';

--
-- clean up
--
DROP ROLE regress_ots_drop_owner;
DROP EXTENSION pg_cron;
