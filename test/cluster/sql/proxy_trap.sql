-- proxy_trap: no caller setting makes ots_proxy's code run someone else's
-- code (docs/security.md).  An attacker's schema, first on the search_path of a
-- superuser (before pg_catalog), holds an operator of the same name and
-- argument types as every pg_catalog operator on text, name, bigint,
-- integer, jsonb, bytea, boolean and their arrays (and unnest); each
-- records current_user.  The superuser then calls every ots API function
-- of the proxy and its admin functions with that search_path; no trap may
-- run.  Then a table owner (a role of its own on the proxy and on the
-- shards: roles exist per instance) does the same with its own table.
\set SHOW_CONTEXT never
\set VERBOSITY terse
SET client_min_messages = warning;

CREATE ROLE regress_ptrap_atk;
CREATE SCHEMA regress_ptrap AUTHORIZATION regress_ptrap_atk;
SET ROLE regress_ptrap_atk;
CREATE TABLE regress_ptrap.log (who name, trap text);
GRANT INSERT ON regress_ptrap.log TO PUBLIC;
GRANT USAGE ON SCHEMA regress_ptrap TO PUBLIC;
CREATE FUNCTION regress_ptrap.sprung(trap text) RETURNS boolean LANGUAGE plpgsql
SET search_path = pg_catalog AS $$
BEGIN
	INSERT INTO regress_ptrap.log VALUES (current_user, trap);
	RETURN true;
END
$$;
-- a trap per binary operator of pg_catalog on these types (not the
-- polymorphic ones: those below name the types), each computing what
-- pg_catalog's operator computes
DO $$
DECLARE
	o record;
	n integer := 0;
BEGIN
	FOR o IN
		SELECT p.oprname::text, p.oprleft::regtype::text AS l, p.oprright::regtype::text AS r, p.oprresult::regtype::text AS res
		  FROM pg_operator p
		 WHERE p.oprnamespace = 'pg_catalog'::regnamespace AND p.oprkind = 'b'
		   AND p.oprleft IN ('text'::regtype, 'name'::regtype, 'bigint'::regtype, 'integer'::regtype, 'jsonb'::regtype,
							 'bytea'::regtype, 'boolean'::regtype, 'text[]'::regtype, 'integer[]'::regtype, 'jsonb[]'::regtype, 'name[]'::regtype)
		   AND p.oprright IN ('text'::regtype, 'name'::regtype, 'bigint'::regtype, 'integer'::regtype, 'jsonb'::regtype,
							  'bytea'::regtype, 'boolean'::regtype, 'text[]'::regtype, 'integer[]'::regtype, 'jsonb[]'::regtype, 'name[]'::regtype)
		UNION
		-- the polymorphic ones, for these types
		SELECT op, a || '[]', a || '[]', CASE WHEN op = '||' THEN a || '[]' ELSE 'boolean' END
		  FROM unnest('{text,integer,jsonb,name}'::text[]) a, unnest('{=,<>,||,@>,<@,&&}'::text[]) op
		UNION
		SELECT '||', a || '[]', a, a || '[]' FROM unnest('{text,integer,jsonb,name}'::text[]) a
		UNION
		SELECT '||', a, a || '[]', a || '[]' FROM unnest('{text,integer,jsonb,name}'::text[]) a
	LOOP
		n := n + 1;
		EXECUTE format('CREATE FUNCTION regress_ptrap.op%s(a %s, b %s) RETURNS %s'
					   ' LANGUAGE plpgsql AS $f$ BEGIN PERFORM regress_ptrap.sprung(%L);'
					   ' RETURN a OPERATOR(pg_catalog.%s) b; END $f$',
					   n, o.l, o.r, o.res, format('%s %s %s', o.l, o.oprname, o.r), o.oprname);
		EXECUTE format('CREATE OPERATOR regress_ptrap.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = regress_ptrap.op%s)',
					   o.oprname, o.l, o.r, n);
	END LOOP;
END
$$;
-- prefix operators (-integer, NOT is no operator) and unnest
CREATE FUNCTION regress_ptrap.neg(a integer) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN PERFORM regress_ptrap.sprung('- integer'); RETURN OPERATOR(pg_catalog.-) a; END $$;
CREATE OPERATOR regress_ptrap.- (RIGHTARG = integer, FUNCTION = regress_ptrap.neg);
CREATE FUNCTION regress_ptrap.unnest(a anyarray) RETURNS SETOF anyelement LANGUAGE plpgsql AS $$
BEGIN PERFORM regress_ptrap.sprung('unnest(anyarray)'); RETURN QUERY SELECT pg_catalog.unnest(a); END $$;
CREATE FUNCTION regress_ptrap.unnest(a text[]) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN PERFORM regress_ptrap.sprung('unnest(text[])'); RETURN QUERY SELECT pg_catalog.unnest(a); END $$;
CREATE FUNCTION regress_ptrap.unnest(a integer[]) RETURNS SETOF integer LANGUAGE plpgsql AS $$
BEGIN PERFORM regress_ptrap.sprung('unnest(integer[])'); RETURN QUERY SELECT pg_catalog.unnest(a); END $$;
RESET ROLE;
SELECT count(*) > 200 AS many_traps FROM pg_operator WHERE oprnamespace = 'regress_ptrap'::regnamespace;

-- the map as it is, to write it again
SELECT array_agg(connstr ORDER BY partition) FILTER (WHERE partition < 2) AS map_shards,
	   count(*) AS map_parts, count(*) - 1 AS map_last, min(connstr) AS map_first
  FROM ots_cluster.partitions \gset
-- the traps work: the attacker's path puts them before pg_catalog
SET search_path = regress_ptrap, pg_catalog, public;
SELECT 'a'::text = 'a'::text AS trap_fires;
RESET search_path;
SELECT who = current_user AS as_superuser, trap FROM regress_ptrap.log;
DELETE FROM regress_ptrap.log;

-- every API function, with the attacker's schema first (the statements
-- here qualify their own operators)
SET search_path = regress_ptrap, pg_catalog, public;
SELECT ots.create_table('ptrap_s', 'k string');
SELECT ots.create_table('ptrap_i', 'k integer, k2 string');
SELECT ots.create_table('ptrap_b', 'k binary');
SELECT ots.create_table('ptrap_h', 'k string, k2 integer', hash_prefix_length => 2);
SELECT ots.update_table('ptrap_b', time_to_live => 86400);
SELECT ots.describe_table('ptrap_s') OPERATOR(pg_catalog.->>) 'table_name' AS described;
SELECT table_name FROM ots.list_table() WHERE table_name::text OPERATOR(pg_catalog.~~) 'ptrap%' ORDER BY 1;
SELECT ots.add_defined_column('ptrap_s', 'c string, n integer');
SELECT ots.delete_defined_column('ptrap_s', '{n}');
SELECT ots.put_row('ptrap_s', '{"k": "a"}', '{"c": "x"}');
SELECT ots.put_row('ptrap_s', '{"k": "b"}', '{"c": "y"}', condition => 'EXPECT_NOT_EXIST');
SELECT ots.put_row('ptrap_i', '{"k": 1, "k2": "z"}', '{"v": 1}');
SELECT ots.put_row('ptrap_b', '{"k": {"$binary": "AAE="}}', '{"v": 1}');
SELECT ots.put_row('ptrap_h', '{"k": "h", "k2": 5}', '{"v": 1}');
SELECT attributes FROM ots.get_row('ptrap_s', '{"k": "a"}');
SELECT attributes FROM ots.get_row('ptrap_b', '{"k": {"$binary": "AAE="}}');
SELECT attributes FROM ots.update_row('ptrap_s', '{"k": "a"}', put => '{"d": 2}', return_type => 'RT_PK');
SELECT primary_key FROM ots.delete_row('ptrap_i', '{"k": 1, "k2": "z"}', return_type => 'RT_PK');
SELECT ots.create_index('ptrap_s', 'ptrap_s_c', '{c}');
CALL ots.build_index('ptrap_s', 'ptrap_s_c');
SELECT primary_key FROM ots.get_row('ptrap_s_c', '{"c": "x", "k": "a"}');
SELECT "index", is_ok, primary_key
  FROM ots.batch_get_row('[{"table_name": "ptrap_s", "primary_keys": [{"k": "a"}, {"k": "b"}, {"k": "c"}]},
						   {"table_name": "ptrap_s_c", "primary_keys": [{"c": "x", "k": "a"}]}]');
SELECT "index", is_ok
  FROM ots.batch_write_row('[{"table_name": "ptrap_s", "rows": [{"type": "PUT", "primary_key": {"k": "c"}, "attributes": {"c": "z"}}]}]');
SELECT "index", is_ok
  FROM ots.batch_write_row('[{"table_name": "ptrap_s", "rows": [{"type": "PUT", "primary_key": {"k": "d"}, "attributes": {"c": "z"}},
															   {"type": "UPDATE", "primary_key": {"k": "e"}, "put": {}},
															   {"type": "DELETE", "primary_key": {"k": "f"}},
															   {"type": "PUT", "primary_key": {"k": "g"}, "attributes": {"c": "z"}}]},
							 {"table_name": "ptrap_i", "rows": [{"type": "PUT", "primary_key": {"k": 2, "k2": "a"}}]}]');
SELECT "index", is_ok, error_code
  FROM ots.batch_write_row('[{"table_name": "ptrap_i", "rows": [{"type": "PUT", "primary_key": {"k": 3, "k2": "a"}},
															   {"type": "PUT", "primary_key": {"k": 3, "k2": "b"}}]}]', true);
SELECT "index", is_ok, error_code
  FROM ots.batch_write_row('[{"table_name": "ptrap_s", "rows": [{"type": "PUT", "primary_key": {"k": "a"}},
															   {"type": "PUT", "primary_key": {"k": "zz"}}]}]', is_atomic => true);
SELECT (r).next_start_primary_key, jsonb_array_length((r).rows) AS n
  FROM (SELECT ots.get_range('ptrap_i', '{"k": 3, "k2": {"$inf": "min"}}', '{"k": 3, "k2": {"$inf": "max"}}') AS r) x;
SELECT (r).next_start_primary_key, jsonb_array_length((r).rows) AS n
  FROM (SELECT ots.get_range('ptrap_s', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}', "limit" => 2) AS r) x;
SELECT primary_key FROM ots.get_range_rows('ptrap_s', '{"k": {"$inf": "max"}}', '{"k": {"$inf": "min"}}', 'BACKWARD');
SELECT primary_key FROM ots.get_range_rows('ptrap_s_c', '{"c": {"$inf": "min"}, "k": {"$inf": "min"}}',
										   '{"c": {"$inf": "max"}, "k": {"$inf": "max"}}');
SELECT count(*) FROM public.ptrap_s;
SELECT k FROM public.ptrap_s WHERE k OPERATOR(pg_catalog.=) 'a';
SELECT ots.hash_prefix('h'::text, 2), ots.hash_prefix(5::bigint, 2), ots.hash_prefix('\x01'::bytea, 2);
SELECT ots.error_code('OT013');
SELECT ots.list_stream('ptrap_s');
SELECT ots.put_row('ptrap_s', '{"k": "a"}', condition => 'EXPECT_NOT_EXIST');
SELECT ots.get_row('ptrap_none', '{"k": "a"}');
SELECT ots.delete_index('ptrap_s', 'ptrap_s_c');
-- the admin functions
SELECT shard, partition FROM ots_cluster.shards() ORDER BY shard;
SELECT ots_cluster.set_moving(ARRAY(SELECT generate_series(0, :map_last)), true);
SELECT ots.put_row('ptrap_s', '{"k": "a"}');
SELECT ots_cluster.set_moving(ARRAY(SELECT generate_series(0, :map_last)), false);
SELECT ots_cluster.set_partition(0, :'map_first');
SELECT ots_cluster.catalog_reset();
SELECT ots_cluster.sync_views() IS NOT NULL AS synced;
SELECT ots_cluster.create_cluster(:'map_shards', :map_parts);
SELECT ots.delete_table('ptrap_s');
SELECT ots.delete_table('ptrap_i');
SELECT ots.delete_table('ptrap_b');
SELECT ots.delete_table('ptrap_h');
RESET search_path;

-- a table's owner, not superuser, with the attacker's schema first
SELECT connstr AS shard1 FROM ots_cluster.shards() WHERE shard = 1 \gset
SELECT connstr AS shard2 FROM ots_cluster.shards() WHERE shard = 2 \gset
\setenv PTRAP_SHARD1 :shard1
\setenv PTRAP_SHARD2 :shard2
\! for c in "$PTRAP_SHARD1" "$PTRAP_SHARD2"; do "$OTS_PSQL" -X -q -c 'CREATE ROLE regress_ptrap_own LOGIN' -c 'GRANT CREATE ON SCHEMA public TO regress_ptrap_own' "$c"; done
CREATE ROLE regress_ptrap_own;
GRANT CREATE ON SCHEMA public TO regress_ptrap_own;
SET ROLE regress_ptrap_own;
SET search_path = regress_ptrap, pg_catalog, public;
SELECT ots.create_table('ptrap_o', 'k string, n integer');
SELECT ots.update_table('ptrap_o', time_to_live => -1);
SELECT ots.describe_table('ptrap_o') OPERATOR(pg_catalog.->>) 'table_name' AS described;
SELECT ots.add_defined_column('ptrap_o', 'c string');
SELECT ots.put_row('ptrap_o', '{"k": "a", "n": 1}', '{"c": "x"}');
SELECT attributes FROM ots.get_row('ptrap_o', '{"k": "a", "n": 1}');
SELECT attributes FROM ots.update_row('ptrap_o', '{"k": "a", "n": 1}', put => '{"d": 1}', return_type => 'RT_PK');
SELECT "index", is_ok
  FROM ots.batch_write_row('[{"table_name": "ptrap_o", "rows": [{"type": "PUT", "primary_key": {"k": "b", "n": 1}},
															   {"type": "PUT", "primary_key": {"k": "c", "n": 1}},
															   {"type": "PUT", "primary_key": {"k": "d", "n": 1}}]}]');
SELECT "index", is_ok, primary_key
  FROM ots.batch_get_row('[{"table_name": "ptrap_o", "primary_keys": [{"k": "a", "n": 1}, {"k": "d", "n": 1}]}]');
SELECT jsonb_array_length((r).rows) AS n
  FROM (SELECT ots.get_range('ptrap_o', '{"k": {"$inf": "min"}, "n": {"$inf": "min"}}',
							 '{"k": {"$inf": "max"}, "n": {"$inf": "max"}}') AS r) x;
SELECT count(*) FROM ots.get_range_rows('ptrap_o', '{"k": {"$inf": "min"}, "n": {"$inf": "min"}}',
										'{"k": {"$inf": "max"}, "n": {"$inf": "max"}}');
SELECT count(*) FROM public.ptrap_o;
SELECT primary_key FROM ots.delete_row('ptrap_o', '{"k": "a", "n": 1}', return_type => 'RT_PK');
SELECT ots.create_index('ptrap_o', 'ptrap_o_c', '{c}');
SELECT ots.delete_index('ptrap_o', 'ptrap_o_c');
SELECT ots.delete_defined_column('ptrap_o', '{c}');
SELECT ots.delete_table('ptrap_o');
RESET search_path;
RESET ROLE;
\! for c in "$PTRAP_SHARD1" "$PTRAP_SHARD2"; do "$OTS_PSQL" -X -q -c 'DROP OWNED BY regress_ptrap_own' -c 'DROP ROLE regress_ptrap_own' "$c"; done
REVOKE CREATE ON SCHEMA public FROM regress_ptrap_own;
DROP ROLE regress_ptrap_own;

-- no trap ran
SELECT who, trap, count(*) FROM regress_ptrap.log GROUP BY 1, 2 ORDER BY 1, 2;

DROP SCHEMA regress_ptrap CASCADE;
DROP ROLE regress_ptrap_atk;
