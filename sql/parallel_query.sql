-- parallel_query: ots functions work inside statements that run parallel
-- plans.  Reads (get_row, get_range, get_range_rows) are PARALLEL SAFE and
-- also run in parallel workers; whatever writes, starts subtransactions
-- (batch_get_row's per-row errors, a PL/pgSQL EXCEPTION block) or changes
-- settings is PARALLEL UNSAFE, so a statement that calls it gets no
-- parallel plan rather than an error.
-- (quiet: the extension may already exist, the files share one database)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

-- does the plan of query have a Gather?
CREATE FUNCTION pg_temp.gathers(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF line LIKE '%Gather%' THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END
$$;

SELECT ots.create_table('par_t', 'k string', partitions => 2);
SELECT count(*) FROM ots.batch_write_row(
	'[{"table_name": "par_t", "rows": [{"type": "PUT", "primary_key": {"k": "a"}, "attributes": {"v": 1}},
	                                   {"type": "PUT", "primary_key": {"k": "b"}, "attributes": {"v": 2}}]}]');
-- a plain table big enough for a parallel scan once parallelism is cheap
CREATE TABLE par_big AS SELECT g AS n FROM generate_series(1, 10000) g;
ANALYZE par_big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT pg_temp.gathers('SELECT count(*) FROM par_big') AS plain_scan_gathers;

-- batch_get_row beside a parallel scan: no Gather, so no parallel mode, and
-- it answers (it failed with "cannot start subtransactions during a parallel
-- operation" while PARALLEL RESTRICTED)
SELECT pg_temp.gathers($$SELECT (SELECT count(*) FROM par_big), b.primary_key
	FROM ots.batch_get_row('[{"table_name": "par_t", "primary_keys": [{"k": "a"}, {"k": "x"}]}]') b$$)
	AS batch_get_row_gathers;
SELECT (SELECT count(*) FROM par_big) AS big, b.index, b.is_ok, b.primary_key, b.attributes
  FROM ots.batch_get_row('[{"table_name": "par_t", "primary_keys": [{"k": "a"}, {"k": "x"}]}]') b
 ORDER BY b.index;
-- with a row error (a bad key type is a row's result, caught in a subtransaction)
SELECT (SELECT count(*) FROM par_big) AS big, b.index, b.is_ok, b.error_code
  FROM ots.batch_get_row('[{"table_name": "par_t", "primary_keys": [{"k": 1}, {"k": "b"}]}]') b
 ORDER BY b.index;

-- the reads keep their parallel plans and give the same answers as without
SELECT pg_temp.gathers($$SELECT (SELECT count(*) FROM par_big), ots.get_row('par_t', '{"k": "a"}')$$)
	AS get_row_gathers;
SELECT (SELECT count(*) FROM par_big) AS big, (ots.get_row('par_t', '{"k": "a"}')).attributes;
SELECT (SELECT count(*) FROM par_big) AS big, jsonb_array_length((ots.get_range('par_t', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}')).rows) AS rows;
SELECT (SELECT count(*) FROM par_big) AS big, r.primary_key, r.attributes
  FROM ots.get_range_rows('par_t', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}') r
 ORDER BY r.primary_key ->> 'k';
-- and inside a parallel worker (force_parallel_mode puts a Gather on top of
-- any plan that may run in one)
SET force_parallel_mode = on;
SELECT pg_temp.gathers($$SELECT ots.get_row('par_t', '{"k": "b"}')$$) AS get_row_in_worker,
       pg_temp.gathers($$SELECT * FROM ots.get_range_rows('par_t', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}')$$)
         AS get_range_rows_in_worker,
       pg_temp.gathers($$SELECT * FROM ots.batch_get_row('[{"table_name": "par_t", "primary_keys": [{"k": "b"}]}]')$$)
         AS batch_get_row_in_worker;
SELECT (ots.get_row('par_t', '{"k": "b"}')).attributes;
SELECT jsonb_array_length((ots.get_range('par_t', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}')).rows) AS rows;
SELECT primary_key, attributes FROM ots.get_range_rows('par_t', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}')
 ORDER BY primary_key ->> 'k';
SELECT index, is_ok, primary_key FROM ots.batch_get_row('[{"table_name": "par_t", "primary_keys": [{"k": "b"}]}]');
-- ots.cron_ready enters a PL/pgSQL EXCEPTION block (a subtransaction) once
-- pg_cron is installed
CREATE EXTENSION IF NOT EXISTS pg_cron;
SELECT ots.cron_ready(false) IS NOT NULL AS cron_ready_answers;
DROP EXTENSION pg_cron;
RESET force_parallel_mode;

-- every ots function that may run in parallel mode (PARALLEL SAFE or
-- RESTRICTED) and is VOLATILE or has a PL/pgSQL EXCEPTION block, with why
-- that is right; C functions that write or start subtransactions are
-- VOLATILE, so a new one shows up here as a diff
SELECT p.oid::regprocedure AS fn, p.provolatile, p.proparallel
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ots')
   AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND p.proparallel <> 'u'
   AND (p.provolatile = 'v' OR p.prosrc ~* '\mEXCEPTION\s+WHEN\M')
 ORDER BY p.oid::regprocedure::text COLLATE "C";
-- (ots.stats_counters and ots.write_point_counts read shared-memory counters only;
-- ots.require_preload reads whether ots was preloaded, the same in every process)
-- (ots.get_shard_iterator and ots.get_stream_record take a stream's shard lock and read
-- its log with a dirty snapshot: in the leader only, PARALLEL RESTRICTED)
-- (ots.relation_owner reads the owners of the relations this transaction dropped, which
-- only the leader noted: PARALLEL RESTRICTED)

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE par_big;
SELECT ots.delete_table('par_t');
