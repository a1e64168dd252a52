-- ots 0.1.0 -> 0.2.0: security and data safety (issue 12).
-- Every change here is also made in src/sql/ (what a fresh 0.2.0 install
-- runs); test/upgrade/run.sh shows the two arrive at the same objects.
\echo Use "ALTER EXTENSION ots UPDATE TO '0.2.0'" to load this file. \quit

-- issue 12 item 7: what starts subtransactions (batch_get_row's per-row
-- errors, a PL/pgSQL EXCEPTION block) cannot run in parallel mode
ALTER FUNCTION ots.batch_get_row(jsonb) PARALLEL UNSAFE;
ALTER FUNCTION ots.cron_ready(boolean) PARALLEL UNSAFE;
