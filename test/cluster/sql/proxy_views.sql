-- ots_proxy's views (proxy/sql/50_views.sql), over 2 shards: each ots table
-- has a read-only view in the proxy database with the single node's
-- columns, over ots.get_range_rows; kept in step by the DDL, made for tables
-- that were there before by ots_cluster.sync_views(); the shards check the
-- querying role's privileges.
\set SHOW_CONTEXT never
SET client_min_messages = warning;

CREATE FUNCTION try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE m text; d text; s text;
BEGIN
	EXECUTE sql;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL;
	RETURN s || ': ' || m || coalesce(' (' || nullif(d, '') || ')', '');
END $$;
-- same_columns(t): whether the proxy's view of public.t has the first
-- shard's view's columns, names, order and types
CREATE FUNCTION same_columns(t name) RETURNS boolean LANGUAGE sql AS $$
	SELECT array_agg(a.attname::text || ' ' || format_type(a.atttypid, a.atttypmod) ORDER BY a.attnum)
		   = (SELECT array_agg(v.column_name || ' ' || v.column_type ORDER BY n)
				FROM ots_cluster.view_columns_first('public', t, NULL) WITH ORDINALITY v(column_name, column_type, o, so, ro, n))
	  FROM pg_attribute a WHERE a.attrelid = ('public.' || quote_ident(t))::regclass AND a.attnum > 0
$$;
CREATE FUNCTION create_directly(p integer, name text, pk text) RETURNS void LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.create_table($2, $3);
$$;
-- shard_rows(): the rows of public.pv_t as every shard's own view shows them
CREATE FUNCTION shard_rows() RETURNS SETOF text LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON ALL;
	SELECT v::text FROM public.pv_t v;
$$;
-- same_rows(): whether the proxy's view shows exactly those rows, in key order
CREATE FUNCTION same_rows() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	RETURN (SELECT array_agg(r ORDER BY r COLLATE "C") FROM shard_rows() r)
		   = (SELECT array_agg(v::text ORDER BY v::text COLLATE "C") FROM pv_t v);
END $$;
-- count_on(p, t, lo, hi): the rows of t from lo to hi the shard of partition p holds
CREATE FUNCTION count_on(p integer, name text, lo jsonb, hi jsonb) RETURNS bigint LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT count(*) FROM ots.get_range_rows($2, $3, $4);
$$;

-- 1. create_table makes the view: the shard's columns, every shard's rows
SELECT ots.create_table('pv_t', 'k string, n integer, b binary',
						defined_columns => 'c string, i integer, d double, f boolean, bb binary');
SELECT same_columns('pv_t');
SELECT count(ots.put_row('pv_t', jsonb_build_object('k', 'k' || i, 'n', i, 'b', '{"$binary": "AAE="}'::jsonb),
						 jsonb_build_object('c', 'x' || i, 'i', i * 10, 'd', i * 1.5, 'f', i % 2 = 0,
											'bb', '{"$binary": "AQI="}'::jsonb, 'other', i)))
  FROM generate_series(1, 20) i;
-- a row without attributes; cells of another type than their defined
-- column's (written before it was defined: here through another column name)
SELECT ots.put_row('pv_t', '{"k": "e", "n": 0, "b": {"$binary": ""}}');
SELECT ots.add_defined_column('pv_t', 'other string');
SELECT same_columns('pv_t');
SELECT ots.put_row('pv_t', '{"k": "z", "n": -1, "b": {"$binary": "/w=="}}',
				   '{"c": "zz", "i": -5, "d": {"$double": 1e20}, "f": false, "bb": {"$binary": ""}, "other": "o"}');
SELECT * FROM pv_t WHERE k IN ('e', 'z', 'k1', 'k2') ORDER BY k;
SELECT same_rows();
SELECT count(*), sum(i), sum(d), count(*) FILTER (WHERE f), min(k), max(k) FROM pv_t;
-- the rows of both shards, in key order (String keys compare bytewise: COLLATE "C")
SELECT string_agg(k, ',') FROM pv_t;
SELECT s.shard, count_on(s.partition, 'public.pv_t', '{"k": {"$inf": "min"}, "n": {"$inf": "min"}, "b": {"$inf": "min"}}',
						 '{"k": {"$inf": "max"}, "n": {"$inf": "max"}, "b": {"$inf": "max"}}') > 0 AS has_rows
  FROM ots_cluster.shards() s ORDER BY s.shard;
SELECT k, n, attributes ->> 'c' AS c FROM pv_t WHERE n BETWEEN 3 AND 5 AND c LIKE 'x%' ORDER BY n DESC;
SELECT k FROM pv_t ORDER BY k LIMIT 3;
SELECT d, count(*) FROM pv_t GROUP BY d HAVING d > 25 ORDER BY d;
-- a join with a table of the proxy database
CREATE TEMP TABLE wanted (k text);
INSERT INTO wanted VALUES ('k3'), ('k7'), ('nope');
SELECT w.k, t.i FROM wanted w LEFT JOIN pv_t t USING (k) ORDER BY w.k;
-- what it reads is the latest version, TTL applied, as get_range
SELECT ots.update_row('pv_t', '{"k": "k1", "n": 1, "b": {"$binary": "AAE="}}', put => '{"c": "newer"}');
SELECT c FROM pv_t WHERE k = 'k1';

-- 2. the view follows the defined columns; "$attributes" when a column is called attributes
SELECT ots.delete_defined_column('pv_t', '{i,other}');
SELECT same_columns('pv_t'), same_rows(), count(*) FROM pv_t;
SELECT ots.add_defined_column('pv_t', 'i double');
SELECT same_columns('pv_t'), same_rows(), i, d FROM pv_t WHERE k IN ('z', 'k2') ORDER BY k;
SELECT ots.create_table('pv_a', 'attributes string', defined_columns => 'x integer');
-- an index is an ots table too: its view lists its rows of every shard
SELECT ots.create_index('pv_a', 'pv_ai', '{x}');
-- the index's first build runs in the background on each shard: wait for it
DO $$
BEGIN
	FOR i IN 1 .. 300 LOOP
		BEGIN
			PERFORM count(*) FROM pv_ai;
			RETURN;
		EXCEPTION WHEN OTHERS THEN
			PERFORM pg_sleep(0.1);
		END;
	END LOOP;
END
$$;
SELECT ots.put_row('pv_a', '{"attributes": "k"}', '{"x": 5, "y": "z"}');
SELECT ots.put_row('pv_a', '{"attributes": "k2"}', '{"x": 4}');
SELECT same_columns('pv_a'), same_columns('pv_ai');
SELECT * FROM pv_a ORDER BY 1;
SELECT * FROM pv_ai ORDER BY 1;
SELECT ots.delete_index('pv_a', 'pv_ai');
SELECT to_regclass('pv_ai') IS NULL AS index_view_gone;

-- 3. read-only: writes are refused before any row is read
SELECT try($$INSERT INTO pv_t (k, n, b) VALUES ('w', 1, '\x')$$);
SELECT try($$UPDATE pv_t SET c = 'w' WHERE false$$);
SELECT try($$DELETE FROM pv_t$$);
SELECT count(*) FROM pv_t;

-- 4. privileges: the view grants nothing; its owner is who created the
-- table; a role may read it only when the shards let it read the table
SELECT (SELECT count(*) FROM aclexplode(relacl) a WHERE a.grantee <> c.relowner) AS grants_to_others,
	   pg_get_userbyid(relowner) = current_user AS owner
  FROM pg_class c WHERE oid = 'pv_t'::regclass;
SELECT has_table_privilege('public', 'pv_t', 'SELECT') AS public_may_select;
-- the role on the proxy and on the shards (roles are per instance)
SELECT connstr AS shard1 FROM ots_cluster.shards() WHERE shard = 1 \gset
SELECT connstr AS shard2 FROM ots_cluster.shards() WHERE shard = 2 \gset
\setenv PV_SHARD1 :shard1
\setenv PV_SHARD2 :shard2
\! for c in "$PV_SHARD1" "$PV_SHARD2"; do "$OTS_PSQL" -X -q -c 'CREATE ROLE pv_reader LOGIN' "$c"; done
CREATE ROLE pv_reader;
SET ROLE pv_reader;
SELECT try($$SELECT * FROM pv_t$$);
RESET ROLE;
GRANT SELECT ON pv_t TO pv_reader;
SET ROLE pv_reader;
-- the shards refuse: the role may not read the table there
SELECT try($$SELECT * FROM pv_t$$);
RESET ROLE;
\! for c in "$PV_SHARD1" "$PV_SHARD2"; do "$OTS_PSQL" -X -q -c 'GRANT SELECT ON "pv_t$data" TO pv_reader' "$c"; done
SET ROLE pv_reader;
SELECT count(*) FROM pv_t;
RESET ROLE;
REVOKE SELECT ON pv_t FROM pv_reader;
-- a table created by a role: the view is that role's
\! for c in "$PV_SHARD1" "$PV_SHARD2"; do "$OTS_PSQL" -X -q -c 'GRANT CREATE ON SCHEMA public TO pv_reader' "$c"; done
GRANT CREATE ON SCHEMA public TO pv_reader;
SET ROLE pv_reader;
SELECT ots.create_table('pv_own', 'k string');
SELECT pg_get_userbyid(relowner) AS owner, relacl FROM pg_class WHERE oid = 'pv_own'::regclass;
SELECT count(*) FROM pv_own;
SELECT ots.delete_table('pv_own');
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM pv_reader;
\! for c in "$PV_SHARD1" "$PV_SHARD2"; do "$OTS_PSQL" -X -q -c 'REVOKE CREATE ON SCHEMA public FROM pv_reader' "$c"; done

-- 5. the views of tables made before the proxy knew them: sync_views
SELECT create_directly(s.partition, 'public.pv_old', 'k integer') FROM ots_cluster.shards() s;
SELECT to_regclass('pv_old') IS NULL AS no_view_yet;
SELECT * FROM ots_cluster.sync_views() WHERE table_name LIKE 'pv%' ORDER BY 1, 2;
SELECT same_columns('pv_old');
SELECT ots.put_row('pv_old', '{"k": 1}', '{"v": true}');
SELECT * FROM pv_old ORDER BY k;
-- a relation of the proxy database's own is never replaced
CREATE TABLE pv_mine (k text);
SELECT create_directly(s.partition, 'public.pv_mine', 'k string') FROM ots_cluster.shards() s;
SELECT * FROM ots_cluster.sync_views() WHERE table_name LIKE 'pv_mine' ORDER BY 1, 2;
SELECT relkind FROM pg_class WHERE oid = 'pv_mine'::regclass;
SELECT ots.delete_table('pv_mine');
SELECT relkind FROM pg_class WHERE oid = 'pv_mine'::regclass;
DROP TABLE pv_mine;
-- a schema the proxy database lacks is made (the shards must have it)
\! for c in "$PV_SHARD1" "$PV_SHARD2"; do "$OTS_PSQL" -X -q -c 'CREATE SCHEMA pv_s' "$c"; done
SELECT ots.create_table('pv_s.t', 'k string');
SELECT nspname FROM pg_namespace WHERE nspname = 'pv_s';
SELECT count(*) FROM pv_s.t;

-- 6. delete_table drops the view
SELECT ots.delete_table('pv_old');
SELECT ots.delete_table('pv_a');
SELECT ots.delete_table('pv_s.t');
SELECT to_regclass('pv_old') IS NULL AS pv_old_gone, to_regclass('pv_a') IS NULL AS pv_a_gone,
	   to_regclass('pv_s.t') IS NULL AS pv_s_t_gone;
-- a view something depends on stays (a warning says so) until sync_views
CREATE VIEW pv_dep AS SELECT k FROM pv_t;
SELECT ots.delete_table('pv_t');
SELECT to_regclass('pv_t') IS NOT NULL AS kept;
DROP VIEW pv_dep;
SELECT * FROM ots_cluster.sync_views() WHERE table_name LIKE 'pv%' ORDER BY 1, 2;
SELECT to_regclass('pv_t') IS NULL AS gone;

\! for c in "$PV_SHARD1" "$PV_SHARD2"; do "$OTS_PSQL" -X -q -c 'DROP ROLE pv_reader' -c 'DROP SCHEMA pv_s' "$c"; done
DROP ROLE pv_reader;
DROP SCHEMA pv_s;
DROP FUNCTION try(text), same_columns(name), same_rows(), shard_rows(), create_directly(integer, text, text), count_on(integer, text, jsonb, jsonb);
