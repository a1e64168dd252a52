-- view_plans: what ots tells the planner (src/planner.c).  A prepared
-- statement over a table's view or storage that fixes the partition key
-- gets a generic plan (run-time pruning keeps one leaf) instead of being
-- planned again at every execution, as PostgreSQL 15 does when it costs
-- the generic plan's Append as if every leaf ran.  Only ots storage is
-- concerned: a user's own hash-partitioned table keeps PostgreSQL's choice.
-- ots.row_exists, the row rule of every view, is estimated true for a
-- stored row, not PostgreSQL's third.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
CREATE EXTENSION IF NOT EXISTS pg_cron;
SELECT ots.create_table('vp', 'k1 string, k2 integer', partitions => 8);
SELECT ots.create_table('vq', 'k1 string, k2 integer', partitions => 8);
RESET client_min_messages;
\set VERBOSITY terse

SELECT count(*) AS written FROM unnest(ARRAY['vp', 'vq']) t, generate_series(0, 3999) i,
	LATERAL ots.put_row(t, jsonb_build_object('k1', 'u' || (i / 20), 'k2', i % 20),
						jsonb_build_object('a', i, 'b', 'x' || i));
ANALYZE "vp$data", "vq$data";

-- the plan a prepared statement runs after its first five executions
CREATE FUNCTION pg_temp.plan_after_warmup(stmt text, arg text) RETURNS SETOF text
	LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR i IN 1 .. 6 LOOP
		EXECUTE format('EXECUTE %s(%L)', stmt, arg);
	END LOOP;
	FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) EXECUTE %s(%L)', stmt, arg) LOOP
		RETURN NEXT line;
	END LOOP;
END
$$;

-- a point query on the view: the generic plan, one leaf left at start-up
PREPARE point(text) AS SELECT attributes FROM vp WHERE k1 = $1 AND k2 = 3;
SELECT pg_temp.plan_after_warmup('point', 'u7');
EXECUTE point('u7');
-- a range of one partition key in key order
PREPARE one_key(text) AS SELECT k2, attributes->>'a' AS a FROM vp WHERE k1 = $1 ORDER BY k2 LIMIT 3;
SELECT pg_temp.plan_after_warmup('one_key', 'u7');
EXECUTE one_key('u7');
-- a join of two views on their keys, both sides pruned
PREPARE joined(text) AS SELECT count(*), sum((a.attributes->>'a')::int + (b.attributes->>'a')::int)
  FROM vp a JOIN vq b ON b.k1 = a.k1 AND b.k2 = a.k2 WHERE a.k1 = $1;
SELECT pg_temp.plan_after_warmup('joined', 'u7');
EXECUTE joined('u7');
-- the storage itself, read with plain SQL
PREPARE stored(text) AS SELECT k2 FROM "vp$data" WHERE k1 = $1 AND k2 = 3;
SELECT pg_temp.plan_after_warmup('stored', 'u7');

-- a key the parameter does not fix: every leaf is costed and scanned
PREPARE by_k2(bigint) AS SELECT count(*) FROM vp WHERE k2 = $1;
SELECT pg_temp.plan_after_warmup('by_k2', '3');
EXECUTE by_k2(3);

-- a user's own hash-partitioned table is left to PostgreSQL: custom plans
CREATE TABLE own (k1 text COLLATE "C", k2 bigint, PRIMARY KEY (k1, k2)) PARTITION BY HASH (k1);
SELECT format('CREATE TABLE own_%s PARTITION OF own FOR VALUES WITH (MODULUS 8, REMAINDER %s)', i, i)
  FROM generate_series(0, 7) i \gexec
INSERT INTO own SELECT 'u' || (i / 20), i % 20 FROM generate_series(0, 3999) i;
ANALYZE own;
PREPARE own_point(text) AS SELECT k2 FROM own WHERE k1 = $1 AND k2 = 3;
SELECT pg_temp.plan_after_warmup('own_point', 'u7');

-- estimates: the row rule keeps every stored row (4000), not a third of them
CREATE FUNCTION pg_temp.estimated_rows(query text) RETURNS numeric
	LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::numeric;
END
$$;
SELECT pg_temp.estimated_rows('SELECT k1, k2 FROM vp') AS estimated,
	   (SELECT count(*) FROM vp) AS actual;
