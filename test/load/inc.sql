-- test/load: increment one of the 20 counters of ld_counters, logged in the same statement
\set k random(0, 19)
WITH r AS (SELECT ots.update_row('ld_counters', jsonb_build_object('id', 'k' || :k), increment => '{"n": 1}') AS res)
INSERT INTO ld_log (key, event) SELECT 'k' || :k, 'increment' FROM r;
