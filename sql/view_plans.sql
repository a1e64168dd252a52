-- view_plans: what ots tells the planner (src/planner/planner.c, src/planner/key_scan.c).
-- A SELECT over a table's view or storage whose WHERE fixes the partition
-- key reads that key's leaf with the ots key scan, routed at execution, so
-- a prepared statement runs one generic plan with no leaf in it; a
-- comparison on the next key column narrows the scan, and rows come in key
-- order.  It returns what PostgreSQL's own plans return (ots.key_scan off),
-- for every shape below; it leaves to PostgreSQL statements that read the
-- storage's system columns, and comparisons under another collation than
-- the key's.  Without the key scan (ots.key_scan off, or a
-- parameter fixing only part of a HASH key), a prepared statement still
-- gets a generic plan over one leaf: its Append is costed as one leaf, not
-- all of them, as PostgreSQL 15 would, which made it re-plan every
-- execution.  A user's own hash-partitioned table keeps PostgreSQL's plans.
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

-- without the key scan: run-time pruning, the Append costed as one leaf
SET ots.key_scan = off;
PREPARE point_pruned(text) AS SELECT attributes FROM vp WHERE k1 = $1 AND k2 = 3;
SELECT pg_temp.plan_after_warmup('point_pruned', 'u7');
EXECUTE point_pruned('u7');
RESET ots.key_scan;

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

-- the key scan returns what PostgreSQL's plans return, for each shape:
-- every row of the first query that the second lacks, and the reverse
CREATE FUNCTION pg_temp.same_rows(query text, setting text DEFAULT 'ots.key_scan',
								   plan_shows text DEFAULT 'OtsKeyScan', label text DEFAULT 'key scan')
	RETURNS text
	LANGUAGE plpgsql AS $$
DECLARE
	with_scan text[];
	without text[];
	plan text := '';
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
		plan := plan || line;
	END LOOP;
	EXECUTE format('SELECT coalesce(array_agg(r::text), ''{}'') FROM (%s) r', query) INTO with_scan;
	PERFORM set_config(setting, 'off', true);
	EXECUTE format('SELECT coalesce(array_agg(r::text), ''{}'') FROM (%s) r', query) INTO without;
	PERFORM set_config(setting, 'on', true);
	RETURN CASE WHEN with_scan = without THEN 'same ' ELSE 'DIFFERENT ' END ||
		   cardinality(with_scan) || ' rows, ' ||
		   CASE WHEN plan ~ plan_shows THEN '' ELSE 'not ' END || 'by ' || label;
END
$$;
SELECT q, pg_temp.same_rows(q) FROM unnest(ARRAY[
	$q$SELECT k1, k2, attributes FROM vp WHERE k1 = 'u7' AND k2 = 3$q$,
	$q$SELECT k1, k2, attributes FROM vp WHERE k1 = 'u7' ORDER BY k2$q$,
	$q$SELECT k1, k2, attributes FROM vp WHERE k1 = 'u7' ORDER BY k2 DESC LIMIT 4$q$,
	$q$SELECT k2 FROM vp WHERE k1 = 'u7' AND k2 > 15 ORDER BY k2$q$,
	$q$SELECT k2 FROM vp WHERE k1 = 'u7' AND 15 >= k2 AND k2 >= 12 ORDER BY k2$q$,
	$q$SELECT k2 FROM vp WHERE 'u7' = k1 AND k2 < 3::int2 ORDER BY k2$q$,
	$q$SELECT k2 FROM vp WHERE k1 = 'u7' AND k2 = 3.0 ORDER BY k2$q$,
	$q$SELECT k2 FROM vp WHERE k1 = 'u7'::varchar AND k2 IN (1, 5, 40) ORDER BY k2$q$,
	$q$SELECT k2 FROM vp WHERE k1 = 'u7' AND k2 = 3 AND k2 = 4$q$,
	$q$SELECT k2 FROM vp WHERE k1 = 'nobody'$q$,
	$q$SELECT k2 FROM vp WHERE k1 = NULL$q$,
	$q$SELECT k2 FROM vp WHERE k1 = (SELECT 'u' || 8) ORDER BY k2$q$,
	$q$SELECT k2 FROM vp WHERE k1 = 'u7' COLLATE "C" AND attributes->>'b' LIKE 'x14%' ORDER BY k2$q$,
	$q$SELECT k1, count(*) FROM vp WHERE k1 IN ('u7', 'u8') GROUP BY k1 ORDER BY k1$q$,
	$q$SELECT a.k2, b.k2 FROM vp a JOIN vq b ON b.k1 = a.k1 AND b.k2 = a.k2 + 1 WHERE a.k1 = 'u9' ORDER BY 1$q$,
	$q$SELECT a.k2, b.attributes FROM vp a LEFT JOIN vq b ON b.k1 = 'u9' AND b.k2 = a.k2 WHERE a.k1 = 'u3' ORDER BY 1$q$,
	$q$SELECT k2 FROM "vp$data" WHERE k1 = 'u7' AND k2 BETWEEN 2 AND 4 ORDER BY k2$q$,
	$q$SELECT k2 FROM vp WHERE k1 = (SELECT max(k1) FROM vq) ORDER BY k2$q$,
	$q$SELECT tableoid::regclass, ctid, k2 FROM "vp$data" WHERE k1 = 'u7' AND k2 = 3$q$,
	$q$SELECT count(*) FROM "vp$data" WHERE k1 = 'u7' AND tableoid = '"vp$p2"'::regclass$q$
]) q;
-- a comparison under another collation than the key's orders otherwise: the
-- key scan does not take it as a range of the key
SELECT ots.create_table('vs', 'k1 string, k2 string', partitions => 4);
SELECT count(*) FROM unnest(ARRAY['a', 'B', 'C', 'b', 'c', 'D', '_', 'Z', 'z']) s,
	LATERAL ots.put_row('vs', jsonb_build_object('k1', 'x', 'k2', s), jsonb_build_object('v', s));
SELECT pg_temp.same_rows($q$SELECT k2 FROM vs WHERE k1 = 'x' AND k2 > 'b' COLLATE "und-x-icu" ORDER BY k2 COLLATE "und-x-icu"$q$);
SELECT pg_temp.same_rows($q$SELECT k2 FROM vs WHERE k1 = 'x' AND k2 > 'b' ORDER BY k2$q$);

-- rows the view hides stay hidden: a row whose cells all expired
SET client_min_messages = warning;
SELECT ots.create_table('vpt', 'k1 string, k2 integer', time_to_live => 100);
RESET client_min_messages;
SELECT ots.put_row('vpt', '{"k1": "a", "k2": 1}', '{"x": 1}'),
	   ots.put_row('vpt', '{"k1": "a", "k2": 2}', '{"x": 2}');
SELECT pg_sleep(2.5);
SELECT ots.update_row('vpt', '{"k1": "a", "k2": 2}', '{"y": 3}');
SELECT ots.update_table('vpt', time_to_live => 2);
SELECT k1, k2, attributes FROM vpt WHERE k1 = 'a' ORDER BY k2;
SELECT pg_temp.same_rows($q$SELECT k1, k2 FROM vpt WHERE k1 = 'a'$q$);

-- a locking clause, or row-level security on the storage, keeps PostgreSQL's plan
EXPLAIN (COSTS OFF) SELECT k2 FROM "vp$data" WHERE k1 = 'u7' AND k2 = 3 FOR UPDATE;
CREATE ROLE regress_ots_vp_reader;
GRANT SELECT ON "vp$data" TO regress_ots_vp_reader;
ALTER TABLE "vp$data" ENABLE ROW LEVEL SECURITY;
CREATE POLICY vp_some ON "vp$data" FOR SELECT USING (k2 < 10);
SET ROLE regress_ots_vp_reader;
EXPLAIN (COSTS OFF) SELECT k2 FROM "vp$data" WHERE k1 = 'u7' ORDER BY k2;
SELECT count(*) FROM "vp$data" WHERE k1 = 'u7';
RESET ROLE;
ALTER TABLE "vp$data" DISABLE ROW LEVEL SECURITY;
DROP POLICY vp_some ON "vp$data";
REVOKE SELECT ON "vp$data" FROM regress_ots_vp_reader;
DROP ROLE regress_ots_vp_reader;

-- the key scan checks privileges as any scan does: the view's owner for the view
CREATE ROLE regress_ots_vp_none;
SET ROLE regress_ots_vp_none;
SELECT k2 FROM "vp$data" WHERE k1 = 'u7' AND k2 = 3;
SELECT k2 FROM vp WHERE k1 = 'u7' AND k2 = 3;
RESET ROLE;
DROP ROLE regress_ots_vp_none;

-- attributes ->> 'name' and -> 'name' are read as that one column
-- (ots.row_attribute_text, ots.row_attribute), with the same results
-- (ots.attribute_pushdown off renders the whole row); a view used as a whole
-- row, and a subquery's reference to an outer view, are left as they are
SELECT ots.put_row('vq', jsonb_build_object('k1', 'w', 'k2', i),
				   jsonb_build_object('s', 'é"\' || i, 'i', -i, 'd', i / 7.0, 'big', jsonb_build_object('$double', 1e300),
									  'whole', 3.0, 'b', i % 2 = 0, 'bin', jsonb_build_object('$binary', 'AQID'))) IS NOT NULL
  FROM generate_series(1, 3) i;
EXPLAIN (VERBOSE, COSTS OFF) SELECT attributes->>'s', attributes->'d' FROM vq WHERE k1 = 'w' AND k2 = 1;
SELECT q, pg_temp.same_rows(q, 'ots.attribute_pushdown', 'ots.row_attribute(_text)?\(', 'one column') FROM unnest(ARRAY[
	$q$SELECT k2, attributes->>'s', attributes->>'i', attributes->>'d', attributes->>'big', attributes->>'whole', attributes->>'b', attributes->>'bin', attributes->>'none' FROM vq WHERE k1 = 'w'$q$,
	$q$SELECT k2, attributes->'s', attributes->'i', attributes->'d', attributes->'big', attributes->'whole', attributes->'b', attributes->'bin', attributes->'none' FROM vq WHERE k1 = 'w'$q$,
	$q$SELECT count(*), sum((attributes->>'a')::int) FROM vp WHERE attributes->>'b' LIKE 'x1%'$q$,
	$q$SELECT attributes->>'b', count(*) FROM vp GROUP BY attributes->>'b' HAVING attributes->>'b' < 'x11' ORDER BY 1$q$,
	$q$SELECT k1, k2 FROM vp ORDER BY (attributes->>'a')::int DESC LIMIT 3$q$,
	$q$SELECT a.k2, b.attributes->>'a' FROM vp a JOIN vq b USING (k1, k2) WHERE a.attributes->>'a' = '143'$q$,
	$q$WITH c AS (SELECT attributes->>'a' AS a FROM vp WHERE k1 = 'u7') SELECT count(*), max(a) FROM c$q$,
	$q$SELECT k2 FROM vp v WHERE k1 = 'u7' AND EXISTS (SELECT 1 WHERE v.attributes->>'a' = '143')$q$,
	$q$SELECT x.a FROM (SELECT attributes->>'a' AS a FROM vp WHERE k1 = 'u7') x ORDER BY 1 LIMIT 2$q$,
	$q$SELECT row_to_json(v) FROM vp v WHERE k1 = 'u7' AND attributes->>'a' = '143'$q$,
	$q$SELECT k2 FROM vpt WHERE k1 = 'a' AND attributes->>'x' IS NULL$q$,
	$q$SELECT attributes->>'y', attributes->>'x' FROM vpt WHERE k1 = 'a'$q$,
	$q$SELECT attributes->>'a' AS a, count(*) FROM vp WHERE k1 = 'u1' AND k2 < 2 GROUP BY ROLLUP (attributes) ORDER BY 2, 1$q$,
	$q$SELECT attributes->>'a' AS a, count(*) FROM vp WHERE k1 = 'u1' AND k2 < 2 GROUP BY attributes->>'a' ORDER BY 1$q$
]) q;
-- a locking clause or a data-modifying level copies the view as a whole
-- row: such statements are left as written
CREATE TEMP TABLE o (id int, x bigint);
INSERT INTO o VALUES (1, 3), (2, 5);
SELECT o.id, v.attributes->>'a' FROM o JOIN vp v ON v.k2 = o.x WHERE v.k1 = 'u7' ORDER BY 1 FOR UPDATE OF o;
SELECT o.id, s.a FROM o, (SELECT k2, attributes->>'a' a FROM vp WHERE k1 = 'u7') s WHERE s.k2 = o.x ORDER BY 1 FOR UPDATE OF o;
SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM vp WHERE k1 = 'u7' AND k2 = o.x AND attributes->>'a' = '143') FOR UPDATE;
WITH u AS (UPDATE o SET id = id + 10 FROM vp v WHERE v.k1 = 'u7' AND v.k2 = o.x AND v.attributes->>'a' IS NOT NULL RETURNING o.*)
SELECT * FROM u ORDER BY 1;
