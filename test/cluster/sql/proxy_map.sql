-- ots_proxy's map (proxy/sql/10_map.sql), over 2 shards, with a role
-- that logs in (not SET ROLE): PL/Proxy reads the cluster through
-- plproxy.get_cluster_* (no foreign server, so no user mapping a role could
-- make for itself), connects as the calling role, with an empty
-- search_path on the shard; the map holds no password; no remote query of
-- the proxy runs an operator a role put on a shard's search_path.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
SELECT current_user AS pm_su \gset

CREATE FUNCTION try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE m text; d text; s text;
BEGIN
	EXECUTE sql;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL;
	RETURN s || ': ' || m || coalesce(' (' || nullif(d, '') || ')', '');
END $$;
GRANT EXECUTE ON FUNCTION try(text) TO PUBLIC;
-- whoami(p): who the shard of partition p sees, its search_path and port
CREATE FUNCTION whoami(p integer, OUT usr text, OUT sess text, OUT path text, OUT port text) LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT CURRENT_USER::pg_catalog.text AS usr, SESSION_USER::pg_catalog.text AS sess,
		   pg_catalog.current_setting('search_path') AS path, pg_catalog.current_setting('port') AS port;
$$;
CREATE FUNCTION elsewhere() RETURNS text LANGUAGE plproxy AS $$
	CLUSTER 'pm_other';
	RUN ON 0;
	SELECT 'x';
$$;
-- port_of(p): the port in the map's connstr of partition p
CREATE FUNCTION port_of(p integer) RETURNS text LANGUAGE sql AS $$
	SELECT substring(connstr FROM 'port=(\d+)') FROM ots_cluster.partitions WHERE partition = p
$$;

-- 1. no foreign server, no user mapping; a role cannot make either
SELECT (SELECT count(*) FROM pg_foreign_server) AS servers, (SELECT count(*) FROM pg_user_mappings) AS mappings;
SELECT connstr AS shard1 FROM ots_cluster.shards() WHERE shard = 1 \gset
SELECT connstr AS shard2 FROM ots_cluster.shards() WHERE shard = 2 \gset
\setenv PM_SHARD1 :shard1
\setenv PM_SHARD2 :shard2
\! for c in "$PM_SHARD1" "$PM_SHARD2"; do "$OTS_PSQL" -X -q -c 'CREATE ROLE pm_mallory LOGIN' "$c"; done
CREATE ROLE pm_mallory LOGIN;
SELECT ots.create_table('pm_private', 'k string');
SELECT ots.put_row('pm_private', '{"k": "a"}', '{"v": "secret"}');
\c - pm_mallory
SET client_min_messages = warning;
SELECT current_user, session_user;
SELECT try($$SELECT ots.get_row('pm_private', '{"k": "a"}')$$);
SELECT try($$CREATE USER MAPPING FOR pm_mallory SERVER ots_cluster OPTIONS (user 'postgres')$$);
SELECT try($$CREATE SERVER ots_cluster FOREIGN DATA WRAPPER plproxy OPTIONS (p0 'dbname=postgres')$$);
SELECT try($$SELECT ots.get_row('pm_private', '{"k": "a"}')$$);
SELECT try($$SELECT ots.delete_table('pm_private')$$);
-- the shards see the calling role, with an empty search_path
SELECT usr, sess, path FROM whoami(0);

-- 2. the map: readable by nobody but its owner; PL/Proxy's functions show
-- it (they must: PL/Proxy calls them as the caller), with no password
SELECT try($$SELECT * FROM ots_cluster.partitions$$);
SELECT try($$SELECT * FROM ots_cluster.map_version$$);
SELECT count(*) AS partitions,
	   count(*) FILTER (WHERE c ~ '^host=\S+ port=\d+ dbname=cluster_sql options=''-c search_path=''$') AS with_options,
	   count(*) FILTER (WHERE c ~* 'password') AS with_password
  FROM plproxy.get_cluster_partitions('ots_cluster') c;
SELECT try($$SELECT plproxy.get_cluster_version('pm_other')$$);
SELECT try($$SELECT * FROM plproxy.get_cluster_partitions('pm_other')$$);
SELECT try($$SELECT elsewhere()$$);
SELECT try($$SELECT ots_cluster.set_partition(0, 'dbname=postgres')$$);
SELECT try($$SELECT ots_cluster.create_cluster('{dbname=postgres}')$$);
\c - :pm_su
SET client_min_messages = warning;
SELECT count(*) AS mallory_mappings FROM pg_user_mappings WHERE usename = 'pm_mallory';
SELECT ots.get_row('pm_private', '{"k": "a"}');
-- no password and no user in the map, whoever writes it
SELECT regexp_replace(try(format('SELECT ots_cluster.set_partition(1, %L)', :'shard2' || ' password=s3cret')), 'host=\S+ port=\d+', 'host=H port=P', 'g');
SELECT regexp_replace(try(format('SELECT ots_cluster.set_partition(1, %L)', :'shard2' || ' user=postgres')), 'host=\S+ port=\d+', 'host=H port=P', 'g');
SELECT regexp_replace(try(format('SELECT ots_cluster.set_partition(1, %L)', :'shard2' || ' application_name=xuser=1')), 'host=\S+ port=\d+', 'host=H port=P', 'g');
SELECT regexp_replace(try(format('SELECT ots_cluster.create_cluster(ARRAY[%L], 2)', :'shard1' || E' password = \'s 3\'')), 'host=\S+ port=\d+', 'host=H port=P', 'g');
SELECT try($$SELECT ots_cluster.create_cluster('{postgresql://postgres@localhost/db}', 2)$$);
SELECT regexp_replace(try(format('UPDATE ots_cluster.partitions SET connstr = %L WHERE partition = 1', :'shard2' || ' password=s3cret')), 'host=\S+ port=\d+', 'host=H port=P', 'g');
SELECT count(*) FROM ots_cluster.partitions WHERE connstr ~* 'password|user';
-- read as libpq reads it (PQconninfoParse): a password right after a quoted
-- value, the client key's password (sslpassword), a user so, a keyword
-- libpq does not know, an unterminated quote
SELECT regexp_replace(try(format('SELECT ots_cluster.set_partition(1, %L)', :'shard2' || ' dbname=''cluster_sql''password=s3cret')), 'host=\S+ port=\d+', 'host=H port=P', 'g');
SELECT regexp_replace(try(format('SELECT ots_cluster.set_partition(2, %L)', :'shard1' || ' sslpassword=s3cret')), 'host=\S+ port=\d+', 'host=H port=P', 'g');
SELECT regexp_replace(try(format('SELECT ots_cluster.set_partition(3, %L)', :'shard2' || ' dbname=''cluster_sql''user=postgres')), 'host=\S+ port=\d+', 'host=H port=P', 'g');
SELECT regexp_replace(try(format('SELECT ots_cluster.set_partition(1, %L)', :'shard2' || ' pasword=s3cret')), 'host=\S+ port=\d+', 'host=H port=P', 'g');
SELECT regexp_replace(try(format('SELECT ots_cluster.set_partition(1, %L)', :'shard2' || ' application_name=''x')), 'host=\S+ port=\d+', 'host=H port=P', 'g');
-- what every role reads of the map (PL/Proxy asks as the calling role)
\c - pm_mallory
SELECT count(*) FILTER (WHERE c ~ 's3cret') AS secrets_read, count(*) FILTER (WHERE c ~ 'user=') AS users_read
  FROM plproxy.get_cluster_partitions('ots_cluster') c;
\c - :pm_su
SET client_min_messages = warning;
-- (the map as it was, whatever the above did)
SELECT ots_cluster.create_cluster(ARRAY[:'shard1', :'shard2'], 64);
-- a connstr with options of its own keeps them (and the shard's search_path)
SELECT ots_cluster.session_connstr('dbname=x options=''-c work_mem=8MB''') AS own_options;

-- 3. the version: bumped by every change of a connstr (not by moving); a
-- map change is seen at the next call, in the transaction that made it too
SELECT version AS v0 FROM ots_cluster.map_version \gset
SELECT ots_cluster.set_moving('{1}', true);
SELECT ots_cluster.set_moving('{1}', false);
SELECT version - :v0 AS after_moving FROM ots_cluster.map_version;
SELECT port = port_of(1) AS p1_on_its_shard FROM whoami(1);
BEGIN;
SELECT ots_cluster.set_partition(1, :'shard1');
SELECT version - :v0 AS after_set_partition FROM ots_cluster.map_version;
SELECT port = port_of(1) AS p1_moved, port = port_of(0) AS p1_on_shard1 FROM whoami(1);
ROLLBACK;
SELECT version - :v0 AS after_rollback FROM ots_cluster.map_version;
SELECT port = port_of(1) AS p1_back, port <> port_of(0) AS p1_not_on_shard1 FROM whoami(1);
SELECT ots_cluster.set_partition(1, :'shard1');
SELECT port = port_of(0) AS p1_on_shard1 FROM whoami(1);
SELECT ots_cluster.set_partition(1, :'shard2');
SELECT version - :v0 AS after_two FROM ots_cluster.map_version;
SELECT port <> port_of(0) AS p1_back_on_shard2 FROM whoami(1);
-- a move's record (the partition mover's begin_move): both ends recorded
-- and writes refused; again for the same destination, nothing changes;
-- another destination, or the shard it is on, refused; the record goes
-- with the flag (set_moving false), and moves no version
SELECT ots_cluster.begin_move(1, :'shard1');
SELECT moving, move_from = :'shard2' AS from_shard2, move_to = :'shard1' AS to_shard1 FROM ots_cluster.partitions WHERE partition = 1;
SELECT ots_cluster.begin_move(1, :'shard1');
SELECT regexp_replace(try(format('SELECT ots_cluster.begin_move(1, %L)', :'shard2' || ' application_name=x')), 'host=\S+ port=\d+', 'host=H port=P', 'g');
SELECT regexp_replace(try(format('SELECT ots_cluster.begin_move(0, %L)', :'shard1')), 'host=\S+ port=\d+', 'host=H port=P', 'g');
SELECT regexp_replace(try($$UPDATE ots_cluster.partitions SET moving = false WHERE partition = 1$$), ' \(.*', '');
SELECT ots_cluster.set_moving('{1}', false);
SELECT moving, move_from, move_to FROM ots_cluster.partitions WHERE partition = 1;
SELECT version - :v0 AS after_move_record FROM ots_cluster.map_version;

-- 4. a role that may create in public on the first shard puts operators
-- there that a remote query without a pinned search_path would run (as the
-- caller, from a lookup; as the extension's owner, from the views'
-- sync); none runs, whoever calls
\! "$OTS_PSQL" -X -q -c 'GRANT CREATE ON SCHEMA public TO PUBLIC' "$PM_SHARD1"
\! "$OTS_PSQL" -X -q -c 'CREATE TABLE public.pm_ran (who text)' -c 'GRANT INSERT ON public.pm_ran TO PUBLIC' -c 'CREATE FUNCTION public.pm_trap(text, name) RETURNS text LANGUAGE plpgsql AS $f$ BEGIN INSERT INTO public.pm_ran VALUES (current_user); IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN EXECUTE $q$ALTER ROLE pm_mallory SUPERUSER$q$; END IF; RETURN $1 || $2::text; END $f$' -c 'CREATE OPERATOR public.|| (LEFTARG = text, RIGHTARG = name, FUNCTION = public.pm_trap)' "$PM_SHARD1 user=pm_mallory"
SELECT ots.create_table('pm_orders', 'id string');
SELECT ots_cluster.catalog_reset();
\c - pm_mallory
SET client_min_messages = warning;
SELECT try($$SELECT ots_cluster.catalog_ask('public', 'pm_orders')$$);
SELECT try($$SELECT ots.get_row('pm_orders', '{"id": "x"}')$$);
SELECT try($$SELECT ots.describe_table('pm_orders') IS NOT NULL$$);
\c - :pm_su
SET client_min_messages = warning;
SELECT ots_cluster.catalog_reset();
SELECT count(*) > 0 AS synced FROM ots_cluster.sync_views();
SELECT ots.describe_table('pm_orders') ->> 'table_name' AS described, (ots.get_row('pm_orders', '{"id": "x"}')).consumed;
SELECT * FROM ots.list_table() WHERE table_name LIKE 'pm%' ORDER BY 1, 2;
\! "$OTS_PSQL" -X -q -At -c "SELECT 'trap ran: ' || count(*) FROM public.pm_ran" -c "SELECT 'pm_mallory superuser: ' || rolsuper FROM pg_roles WHERE rolname = 'pm_mallory'" "$PM_SHARD1"
\! "$OTS_PSQL" -X -q -c 'DROP OPERATOR public.||(text, name)' -c 'DROP FUNCTION public.pm_trap(text, name)' -c 'DROP TABLE public.pm_ran' -c 'REVOKE CREATE ON SCHEMA public FROM PUBLIC' "$PM_SHARD1"

-- 5. names the proxy passes as given (it resolved none): the shard, whose
-- search_path is empty, reports the single node's error
SELECT try($$SELECT ots.get_row('pm_nope', '{"id": "x"}')$$);
SET search_path = pm_nowhere;
SELECT public.try($$SELECT ots.create_table('pm_new', 'id string')$$);
SELECT public.try($$SELECT ots.get_row('pm_orders', '{"id": "x"}')$$);
RESET search_path;
SELECT * FROM ots.list_table() WHERE table_name = 'pm_new';
-- a table of a schema on the search_path other than public
\! for c in "$PM_SHARD1" "$PM_SHARD2"; do "$OTS_PSQL" -X -q -c 'CREATE SCHEMA pm_s' "$c"; done
CREATE SCHEMA pm_s;
SET search_path = pm_s, public;
SELECT ots.create_table('pm_t2', 'id integer');
SELECT ots.put_row('pm_t2', '{"id": 7}', '{"a": 1}');
SELECT (ots.get_row('pm_t2', '{"id": 7}')).attributes;
SELECT table_name, "index", is_ok FROM ots.batch_get_row('[{"table_name": "pm_t2", "primary_keys": [{"id": 7}]}]');
SELECT ots.describe_table('pm_t2') ->> 'schema_name' AS schema_name;
SELECT ots.delete_table('pm_t2');
RESET search_path;

SELECT ots.delete_table('pm_orders');
SELECT ots.delete_table('pm_private');
\! for c in "$PM_SHARD1" "$PM_SHARD2"; do "$OTS_PSQL" -X -q -c 'DROP SCHEMA pm_s' -c 'DROP ROLE pm_mallory' "$c"; done
DROP SCHEMA pm_s;
DROP ROLE pm_mallory;
DROP FUNCTION try(text), whoami(integer), elsewhere(), port_of(integer);
