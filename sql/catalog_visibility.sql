-- catalog_visibility: each role sees the ots tables it may see, and only
-- those: ots.tables, ots.stats and ots.list_table show a table to its
-- owner, and to a role with USAGE on its schema and some privilege on its
-- view or storage; ots's internal functions check the caller; table views
-- are security barriers, so a leaky function never sees a hidden row.
-- (quiet: the extension may already exist, the files share one database)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

CREATE FUNCTION pg_temp.try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

CREATE ROLE regress_ots_cv_reader;
CREATE ROLE regress_ots_cv_owner;
-- a schema the reader may not enter, one it may, and one the owner made its
-- table in and then lost USAGE on
CREATE SCHEMA regress_ots_cv_hidden;
CREATE SCHEMA regress_ots_cv_open;
CREATE SCHEMA regress_ots_cv_lost;
GRANT USAGE ON SCHEMA regress_ots_cv_open TO regress_ots_cv_reader;
GRANT USAGE, CREATE ON SCHEMA regress_ots_cv_lost TO regress_ots_cv_owner;
SELECT ots.create_table('regress_ots_cv_hidden.h', 'k string', partitions => 1);
SELECT ots.create_table('regress_ots_cv_open.granted_view', 'k string', partitions => 1);
SELECT ots.create_table('regress_ots_cv_open.granted_storage', 'k string', partitions => 1);
SELECT ots.create_table('regress_ots_cv_open.ungranted', 'k string', partitions => 1);
GRANT SELECT ON regress_ots_cv_open.granted_view TO regress_ots_cv_reader;
GRANT INSERT ON regress_ots_cv_open."granted_storage$data" TO regress_ots_cv_reader;
-- privileges in a schema without USAGE do not count
GRANT SELECT ON regress_ots_cv_hidden.h TO regress_ots_cv_reader;
SET ROLE regress_ots_cv_owner;
SELECT ots.create_table('regress_ots_cv_lost.mine', 'k string', partitions => 1);
RESET ROLE;
REVOKE USAGE ON SCHEMA regress_ots_cv_lost FROM regress_ots_cv_owner;
SELECT (ots.put_row('regress_ots_cv_hidden.h', '{"k": "secret"}', '{"v": 1}')).consumed IS NOT NULL AS put;

-- the superuser sees every table
SELECT schema_name, table_name FROM ots.list_table()
 WHERE schema_name::text LIKE 'regress\_ots\_cv\_%' ORDER BY 1, 2;

-- the reader: the two tables it has a privilege on, in a schema it may enter
SET ROLE regress_ots_cv_reader;
SELECT schema_name, table_name FROM ots.tables
 WHERE schema_name::text LIKE 'regress\_ots\_cv\_%' ORDER BY 1, 2;
SELECT schema_name, table_name FROM ots.list_table()
 WHERE schema_name::text LIKE 'regress\_ots\_cv\_%' ORDER BY 1, 2;
SELECT schema_name, table_name, rows_purged FROM ots.stats
 WHERE schema_name::text LIKE 'regress\_ots\_cv\_%' ORDER BY 1, 2;
SELECT schema_name, table_name FROM ots.purge_stats
 WHERE schema_name::text LIKE 'regress\_ots\_cv\_%' ORDER BY 1, 2;
-- what it may not see is not there for it (its schema: no USAGE, as in SQL)
SELECT pg_temp.try($$SELECT ots.describe_table('regress_ots_cv_hidden.h')$$);
SELECT pg_temp.try($$SELECT ots.get_row('regress_ots_cv_hidden.h', '{"k": "secret"}')$$);
SELECT ots.describe_table('regress_ots_cv_open.granted_view') -> 'primary_key' AS pk;
RESET ROLE;

-- the owner sees its own table (and its statistics) in a schema it lost
-- USAGE on, and nothing else
SET ROLE regress_ots_cv_owner;
SELECT schema_name, table_name FROM ots.list_table()
 WHERE schema_name::text LIKE 'regress\_ots\_cv\_%' ORDER BY 1, 2;
SELECT schema_name, table_name, rows_purged FROM ots.stats
 WHERE schema_name::text LIKE 'regress\_ots\_cv\_%' ORDER BY 1, 2;
RESET ROLE;

-- internal functions: another role's table is not the reader's to touch
SELECT oid AS hidden_storage FROM pg_class WHERE relname = 'h$data' \gset
SELECT oid AS open_storage FROM pg_class WHERE relname = 'granted_view$data' \gset
SET ROLE regress_ots_cv_reader;
SELECT pg_temp.try(format('SELECT ots.stats_counters(%s)', :hidden_storage));
SELECT pg_temp.try(format('SELECT count(*) FROM ots.write_point_counts(%s)', :hidden_storage));
SELECT pg_temp.try(format('SELECT ots.invalidate_table(%s)', :hidden_storage));
SELECT pg_temp.try(format('SELECT ots.stats_forget(%s)', :hidden_storage));
SELECT pg_temp.try(format('SELECT ots.invalidate_table(%s)', :open_storage));
-- the counters of a table it may see are its to read
SELECT pg_temp.try(format('SELECT ots.stats_counters(%s)', :open_storage));
SELECT pg_temp.try(format('SELECT count(*) FROM ots.write_point_counts(%s)', :open_storage));
RESET ROLE;
-- the C functions PUBLIC may call that take a table: those checked above
-- and ots's catalog writers (catalog_integrity, secondary_index), purge's
-- lock and batch (purge_owner) and the index build's batch and launch
-- (secondary_index), ots.verify's parts (verify), ots.table_problem
-- (registration), ots.chunk_relation_follow (chunk_relation) and the
-- search index's catalog writers, schema check, storage and backfill
-- (search_index), its build's batch and launch (search_build) and
-- ots.search_keys (search_query, as the row functions)
-- check the caller, ots.search_storage_name only makes a name, and
-- ots.check_readable (split_points) is that check; ots.relation_owner says what pg_class
-- says, or what the caller's own transaction dropped; the view functions
-- only read the rows the view passes them (and an index's view's gate,
-- index_readable, tells only what they tell at their first row: whether
-- the index answers reads)
SELECT p.oid::regprocedure AS fn
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ots'
 WHERE p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c')
   AND has_function_privilege('public', p.oid, 'EXECUTE')
   AND p.proargtypes::oid[] && ARRAY['regclass'::regtype::oid, 'name'::regtype::oid]
 ORDER BY p.oid::regprocedure::text COLLATE "C";

--
-- views are security barriers: a leaky function in a WHERE sees only the
-- rows the view shows (a row whose cells and row marker have expired is
-- hidden; the shown row's cell is stamped an hour ahead)
--
SELECT ots.create_table('regress_ots_cv_open.leaky', 'k string', partitions => 1, time_to_live => 1);
SELECT (ots.put_row('regress_ots_cv_open.leaky', '{"k": "shown"}',
        jsonb_build_object('v', jsonb_build_object('value', 1, 'ts',
                           floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint + 3600000)))).consumed IS NOT NULL AS put;
SELECT (ots.put_row('regress_ots_cv_open.leaky', '{"k": "expired"}', '{"v": 1}')).consumed IS NOT NULL AS put;
SELECT pg_sleep(1.2);
GRANT SELECT ON regress_ots_cv_open.leaky TO regress_ots_cv_reader;
SELECT c.relname, c.reloptions FROM pg_class c
 WHERE c.relnamespace = 'regress_ots_cv_open'::regnamespace AND c.relkind = 'v' ORDER BY 1;
SET ROLE regress_ots_cv_reader;
CREATE FUNCTION pg_temp.leak(k text) RETURNS boolean LANGUAGE plpgsql COST 0.0000001 AS $$
BEGIN
	RAISE NOTICE 'leak saw %', k;
	RETURN true;
END
$$;
SET client_min_messages = notice;
SELECT k FROM regress_ots_cv_open.leaky WHERE pg_temp.leak(k) ORDER BY k;
SET client_min_messages = warning;
DROP FUNCTION pg_temp.leak(text);
RESET ROLE;
-- a key predicate still reaches the key scan through the barrier
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM regress_ots_cv_open.leaky WHERE k = 'shown';
RESET enable_seqscan;

-- cleanup
SELECT ots.delete_table(t) FROM unnest(ARRAY['regress_ots_cv_hidden.h', 'regress_ots_cv_open.granted_view',
	'regress_ots_cv_open.granted_storage', 'regress_ots_cv_open.ungranted', 'regress_ots_cv_open.leaky']) t;
GRANT USAGE ON SCHEMA regress_ots_cv_lost TO regress_ots_cv_owner;
SET ROLE regress_ots_cv_owner;
SELECT ots.delete_table('regress_ots_cv_lost.mine');
RESET ROLE;
DROP SCHEMA regress_ots_cv_hidden, regress_ots_cv_open, regress_ots_cv_lost;
DROP ROLE regress_ots_cv_reader, regress_ots_cv_owner;
