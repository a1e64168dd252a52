-- ots_proxy's catalog of tables (what it knows of each table's key, to
-- route), over 2 shards, attacked by a role that logs in (pc_mallory: not
-- a superuser, owning nothing, reading one table of pc_owner's):
-- 1. her open transaction, after her lookups, does not hold up the table
--    owner's DDL (each DDL of the owner runs with lock_timeout 2s);
-- 2. however many names she looks up, nothing that sessions share grows;
-- 3. she learns a table's key only where the shards let her describe it;
-- 4. a DDL through the proxy reaches the other sessions' lookups.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
SELECT current_user AS pc_su \gset
SELECT format('host=%s port=%s dbname=%s', current_setting('unix_socket_directories'),
			  current_setting('port'), current_database()) AS pc_proxy \gset
\setenv PC_PROXY :pc_proxy

-- try(sql): 'ok', or the error a statement raises (SQLSTATE: message)
CREATE FUNCTION try(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE sql;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
-- value_of(sql): what a query returns, as text, or its error
CREATE FUNCTION value_of(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE v text;
BEGIN
	EXECUTE sql INTO v;
	RETURN v;
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
-- shared_rows(): the rows of every table of schema ots_cluster, the state
-- the proxy's sessions share
CREATE FUNCTION shared_rows() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; c bigint; r record;
BEGIN
	FOR r IN SELECT oid::regclass AS rel FROM pg_class
			  WHERE relnamespace = 'ots_cluster'::regnamespace AND relkind = 'r' LOOP
		EXECUTE format('SELECT count(*) FROM %s', r.rel) INTO c;
		n := n + c;
	END LOOP;
	RETURN n;
END $$;
GRANT EXECUTE ON FUNCTION try(text), value_of(text) TO PUBLIC;

-- the roles, on the proxy and on each shard (roles are per instance)
SELECT connstr AS shard1 FROM ots_cluster.shards() WHERE shard = 1 \gset
SELECT connstr AS shard2 FROM ots_cluster.shards() WHERE shard = 2 \gset
\setenv PC_SHARD1 :shard1
\setenv PC_SHARD2 :shard2
\! for c in "$PC_SHARD1" "$PC_SHARD2"; do "$OTS_PSQL" -X -q -c 'CREATE ROLE pc_owner LOGIN' -c 'CREATE ROLE pc_mallory LOGIN' -c 'GRANT CREATE ON SCHEMA public TO pc_owner' -c 'CREATE SCHEMA pc_x AUTHORIZATION pc_owner' -c 'GRANT USAGE ON SCHEMA pc_x TO pc_mallory' "$c"; done
CREATE ROLE pc_owner LOGIN;
CREATE ROLE pc_mallory LOGIN;
CREATE SCHEMA pc_x AUTHORIZATION pc_owner;
GRANT USAGE ON SCHEMA pc_x TO pc_mallory;
\c - pc_owner
SET client_min_messages = warning;
SELECT ots.create_table('pc_t', 'tkey string'), ots.create_table('pc_secret', 'skey string, sk2 integer'),
	   ots.create_table('pc_n', 'k string');
SELECT (ots.put_row('pc_t', '{"tkey": "a"}', '{"v": 1}')).consumed, (ots.put_row('pc_n', '{"k": "a"}', '{"v": "public"}')).consumed;
-- she may read pc_t (on the shards, where the rows are) and pc_n, not pc_secret
\! for c in "$PC_SHARD1" "$PC_SHARD2"; do "$OTS_PSQL" -X -q -c 'GRANT SELECT ON "pc_t$data", "pc_n$data" TO pc_mallory' "$c user=pc_owner"; done

-- 1. her open transaction and the owner's DDL.  The catalog forgets
-- everything first, so her lookups are the ones that find the tables.
\c - :pc_su
SET client_min_messages = warning;
SELECT ots_cluster.catalog_reset();
\c - pc_mallory
SET client_min_messages = warning;
BEGIN;
-- a read of a table she may read
SELECT (ots.get_row('pc_t', '{"tkey": "a"}')).attributes;
-- a lookup of one she may not (the refresh any role could call)
SELECT value_of($$SELECT ots_cluster.catalog_refresh('public.pc_secret')::text$$) IS NOT NULL AS called;
\! "$OTS_PSQL" -X -q -At -c "SET lock_timeout = '2s'" -c 'SELECT public.try($q$SELECT ots.add_defined_column($a$pc_t$a$, $a$c string$a$)$q$) AS pc_t_ddl' "$PC_PROXY user=pc_owner"
\! "$OTS_PSQL" -X -q -At -c "SET lock_timeout = '2s'" -c 'SELECT public.try($q$SELECT ots.add_defined_column($a$pc_secret$a$, $a$c string$a$)$q$) AS pc_secret_ddl' "$PC_PROXY user=pc_owner"
COMMIT;

-- 2. names looked up by the hundred, through the API and through the
-- catalog's functions: nothing the sessions share grows
\c - :pc_su
SET client_min_messages = warning;
SELECT shared_rows() AS shared_before \gset
\c - pc_mallory
SET client_min_messages = warning;
SELECT count(try(format('SELECT ots.get_row(%L, %L)', 'pc_nowhere' || i || '.t', '{"k": "a"}'))),
	   count(value_of(format('SELECT ots_cluster.catalog_refresh(%L)::text', 'pc_nowhere' || i || '.t'))),
	   count(value_of(format('SELECT ots_cluster.table_of(%L, %L)::text', 't', 'pc_nowhere' || i)))
  FROM generate_series(1, 100) i;
\c - :pc_su
SET client_min_messages = warning;
SELECT shared_rows() - :shared_before AS shared_rows_added;

-- 3. the key of pc_secret, which she may not describe, through every way
-- to it; of pc_t, which she may
\c - pc_mallory
SET client_min_messages = warning;
SELECT way, value_of(format(q, 'pc_secret')) ~ 'skey' AS learned_secret_key, value_of(format(q, 'pc_t')) ~ 'tkey' AS learned_readable_key
  FROM (VALUES ('describe_table', 'SELECT ots.describe_table(%L)::text'),
			   ('catalog_refresh', 'SELECT ots_cluster.catalog_refresh(''public.'' || %L)::text'),
			   ('catalog_lookup', 'SELECT ots_cluster.catalog_lookup(''{public}'', %L)::text'),
			   ('cache_lookup', 'SELECT ots_cluster.cache_lookup(''{public}'', %L)::text'),
			   ('table_of', 'SELECT ots_cluster.table_of(%L, ''public'')::text'),
			   ('get_row', 'SELECT ots.get_row(%L, ''{"tkey": "a"}'')::text')) v(way, q)
 ORDER BY way;
-- what she is told instead: the single node's refusal
SELECT value_of($$SELECT ots_cluster.table_of('pc_secret', 'public')::text$$);
SELECT value_of($$SELECT ots.get_row('pc_secret', '{"skey": "a", "sk2": 1}')::text$$);

-- 4. her session knows that pc_x has no pc_n, so pc_n is public's; the
-- owner then makes pc_x.pc_n (another key) through the proxy, in another
-- session: her next call finds it, not public's
SET search_path = pc_x, public;
SELECT (ots.get_row('pc_n', '{"k": "a"}')).attributes AS public_pc_n;
\! "$OTS_PSQL" -X -q -At -c "SELECT ots.create_table('pc_x.pc_n', 'k integer')" -c "SELECT (ots.put_row('pc_x.pc_n', '{\"k\": 1}', '{\"v\": \"pc_x\"}')).consumed" "$PC_PROXY user=pc_owner"
\! for c in "$PC_SHARD1" "$PC_SHARD2"; do "$OTS_PSQL" -X -q -c 'GRANT SELECT ON pc_x."pc_n$data" TO pc_mallory' "$c user=pc_owner"; done
SELECT (ots.get_row('pc_n', '{"k": 1}')).attributes AS pc_x_pc_n;
RESET search_path;

\c - pc_owner
SET client_min_messages = warning;
SELECT ots.delete_table('pc_t'), ots.delete_table('pc_secret'), ots.delete_table('pc_n'), ots.delete_table('pc_x.pc_n');
\c - :pc_su
SET client_min_messages = warning;
\! for c in "$PC_SHARD1" "$PC_SHARD2"; do "$OTS_PSQL" -X -q -c 'DROP SCHEMA pc_x' -c 'REVOKE CREATE ON SCHEMA public FROM pc_owner' -c 'DROP ROLE pc_owner' -c 'DROP ROLE pc_mallory' "$c"; done
DROP SCHEMA pc_x;
DROP ROLE pc_owner;
DROP ROLE pc_mallory;
DROP FUNCTION try(text), value_of(text), shared_rows();
