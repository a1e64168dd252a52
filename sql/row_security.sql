-- row_security: ots row functions never show or change a row that the
-- calling role could not with plain SQL on the storage "t$data".  They do
-- not apply row-level security policies; where policies apply to the calling
-- role (RLS enabled and the role neither the owner nor BYPASSRLS, or FORCE
-- ROW LEVEL SECURITY), every row function refuses with 42501, reads and
-- writes, single rows, ranges and batches (their bulk way included), and the
-- refusal fails the whole call as a privilege error does.  Roles to which the
-- policies do not apply keep working.
-- (quiet: the extension may already exist, the files share one database)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

-- the SQLSTATE and message of a statement's error, or "ok"
CREATE FUNCTION pg_temp.try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

-- a table owned by an ordinary role (superusers bypass RLS even under FORCE);
-- tenants a and b, and rows of a shared tenant everyone may read
CREATE ROLE regress_ots_rls_owner;
CREATE ROLE regress_ots_rls_tenant;
CREATE ROLE regress_ots_rls_bypass BYPASSRLS;
CREATE SCHEMA rls AUTHORIZATION regress_ots_rls_owner;
GRANT USAGE ON SCHEMA rls TO regress_ots_rls_tenant, regress_ots_rls_bypass;
SET ROLE regress_ots_rls_owner;
SELECT ots.create_table('rls.t', 'tenant string, k integer', partitions => 2);
GRANT SELECT, INSERT, UPDATE, DELETE ON rls."t$data" TO regress_ots_rls_tenant, regress_ots_rls_bypass;
-- the tenant reads its own rows and the shared ones, and writes its own only
CREATE POLICY tenant_rows ON rls."t$data" TO regress_ots_rls_tenant
	USING (tenant IN ('a', 'shared')) WITH CHECK (tenant = 'a');
RESET ROLE;

-- rls.t holds a/1, a/2, b/1 and shared/1, nothing else
CREATE FUNCTION pg_temp.reseed() RETURNS void LANGUAGE sql AS $$
	DELETE FROM rls."t$data";
	SELECT ots.put_row('rls.t', jsonb_build_object('tenant', t, 'k', k), '{"v": 0}')
	  FROM (VALUES ('a', 1), ('a', 2), ('b', 1), ('shared', 1)) v(t, k);
$$;
-- what is stored, as the owner sees it
CREATE FUNCTION pg_temp.stored() RETURNS TABLE (tenant text, k bigint, attributes jsonb)
LANGUAGE sql AS $$
	SELECT tenant, k, attributes FROM rls.t ORDER BY tenant, k;
$$;
-- every row function on rls.t (or those numbered in calls), each aimed at
-- rows the tenant may not see or write: its result ("ok: " and what it
-- returned) or error
CREATE FUNCTION pg_temp.access(calls integer[] DEFAULT NULL)
RETURNS TABLE (n integer, call text, result text)
LANGUAGE plpgsql AS $f$
DECLARE
	c record;
	v text;
BEGIN
	FOR c IN SELECT * FROM (VALUES
		(1, 'get_row b/1', $$SELECT attributes FROM ots.get_row('rls.t', '{"tenant": "b", "k": 1}')$$),
		(2, 'get_range', $$SELECT jsonb_array_length(rows) FROM ots.get_range('rls.t', '{"tenant": {"$inf": "min"}, "k": {"$inf": "min"}}', '{"tenant": {"$inf": "max"}, "k": {"$inf": "max"}}')$$),
		(3, 'get_range_rows', $$SELECT count(*) FROM ots.get_range_rows('rls.t', '{"tenant": {"$inf": "min"}, "k": {"$inf": "min"}}', '{"tenant": {"$inf": "max"}, "k": {"$inf": "max"}}')$$),
		(4, 'batch_get_row', $$SELECT count(primary_key) FROM ots.batch_get_row('[{"table_name": "rls.t", "primary_keys": [{"tenant": "a", "k": 1}, {"tenant": "b", "k": 1}]}]')$$),
		(5, 'put_row b/2', $$SELECT consumed FROM ots.put_row('rls.t', '{"tenant": "b", "k": 2}', '{"v": 5}')$$),
		(6, 'put_row b/1 EXPECT_EXIST', $$SELECT consumed FROM ots.put_row('rls.t', '{"tenant": "b", "k": 1}', '{"v": 6}', condition => 'EXPECT_EXIST')$$),
		(7, 'update_row b/1', $$SELECT consumed FROM ots.update_row('rls.t', '{"tenant": "b", "k": 1}', put => '{"w": 7}')$$),
		(8, 'update_row shared/1', $$SELECT consumed FROM ots.update_row('rls.t', '{"tenant": "shared", "k": 1}', put => '{"w": 8}')$$),
		(9, 'delete_row b/1', $$SELECT consumed FROM ots.delete_row('rls.t', '{"tenant": "b", "k": 1}')$$),
		(10, 'batch_write_row bulk PUT', $$SELECT count(*) FILTER (WHERE is_ok) FROM ots.batch_write_row('[{"table_name": "rls.t", "rows": [{"type": "PUT", "primary_key": {"tenant": "b", "k": 3}, "attributes": {"v": 10}}, {"type": "PUT", "primary_key": {"tenant": "b", "k": 1}, "attributes": {"v": 10}}]}]')$$),
		(11, 'batch_write_row bulk DELETE', $$SELECT count(*) FILTER (WHERE is_ok) FROM ots.batch_write_row('[{"table_name": "rls.t", "rows": [{"type": "DELETE", "primary_key": {"tenant": "b", "k": 1}}]}]')$$),
		(12, 'batch_write_row per row', $$SELECT count(*) FILTER (WHERE is_ok) FROM ots.batch_write_row('[{"table_name": "rls.t", "rows": [{"type": "UPDATE", "primary_key": {"tenant": "b", "k": 1}, "put": {"w": 12}}]}]')$$),
		(13, 'batch_write_row atomic', $$SELECT count(*) FILTER (WHERE is_ok) FROM ots.batch_write_row('[{"table_name": "rls.t", "rows": [{"type": "PUT", "primary_key": {"tenant": "b", "k": 4}}, {"type": "DELETE", "primary_key": {"tenant": "b", "k": 1}}]}]', is_atomic => true)$$),
		(14, 'get_row a/1', $$SELECT attributes FROM ots.get_row('rls.t', '{"tenant": "a", "k": 1}')$$)) v(n, call, q)
		WHERE calls IS NULL OR v.n = ANY (calls)
		ORDER BY v.n LOOP
		n := c.n;
		call := c.call;
		BEGIN
			EXECUTE c.q INTO v;
			result := 'ok' || coalesce(': ' || nullif(v, ''), '');
		EXCEPTION WHEN OTHERS THEN
			result := SQLSTATE || ': ' || SQLERRM;
		END;
		RETURN NEXT;
	END LOOP;
END
$f$;
SELECT pg_temp.reseed();
ALTER TABLE rls."t$data" ENABLE ROW LEVEL SECURITY;

-- plain SQL on the storage, as the tenant: the policies hide b's rows and
-- refuse writes of them
SET ROLE regress_ots_rls_tenant;
SELECT tenant, k FROM rls."t$data" ORDER BY tenant, k;
UPDATE rls."t$data" SET "$oldest_ts" = "$oldest_ts" WHERE tenant = 'b' RETURNING tenant, k;
SELECT pg_temp.try($$UPDATE rls."t$data" SET tenant = 'b' WHERE tenant = 'a' AND k = 2$$);
SELECT pg_temp.try($$INSERT INTO rls."t$data" SELECT 'b', 9, "$cells", "$oldest_ts" FROM rls."t$data" WHERE tenant = 'a' AND k = 1$$);
DELETE FROM rls."t$data" WHERE tenant = 'b' RETURNING tenant, k;

-- the row functions, as the tenant: every one refuses (a batch whole, never
-- as one row's result), even for its own row a/1
SELECT * FROM pg_temp.access() ORDER BY n;
-- the error in full
\set VERBOSITY default
SELECT ots.get_row('rls.t', '{"tenant": "a", "k": 1}');
\set VERBOSITY terse
-- with row_security off, PostgreSQL's own error, as for plain SQL
SET row_security = off;
SELECT pg_temp.try($$SELECT ots.get_row('rls.t', '{"tenant": "a", "k": 1}')$$);
SELECT pg_temp.try($$SELECT count(*) FROM rls."t$data"$$);
RESET row_security;
RESET ROLE;
-- nothing changed
SELECT * FROM pg_temp.stored();

-- the owner (without FORCE) and a BYPASSRLS role: policies do not apply,
-- every row function works
SET ROLE regress_ots_rls_owner;
SELECT * FROM pg_temp.access() ORDER BY n;
RESET ROLE;
SELECT * FROM pg_temp.stored();
SELECT pg_temp.reseed();
SET ROLE regress_ots_rls_bypass;
SELECT * FROM pg_temp.access() ORDER BY n;
RESET ROLE;
SELECT * FROM pg_temp.stored();
SELECT pg_temp.reseed();

-- FORCE ROW LEVEL SECURITY: the policies apply to the owner too (here: no
-- policy for the owner, so plain SQL sees nothing), and the row functions
-- refuse the owner; the BYPASSRLS role still works
ALTER TABLE rls."t$data" FORCE ROW LEVEL SECURITY;
SET ROLE regress_ots_rls_owner;
SELECT count(*) AS owner_plain_sql_rows FROM rls."t$data";
SELECT * FROM pg_temp.access() ORDER BY n;
RESET ROLE;
SET ROLE regress_ots_rls_bypass;
SELECT * FROM pg_temp.access('{1, 14}') ORDER BY n;
RESET ROLE;

-- the table's view reads the storage as its owner, as any view does: a role
-- granted the view reads what the owner may read (no rows under FORCE, as
-- the owner has no policy; every row without FORCE)
GRANT SELECT ON rls.t TO regress_ots_rls_tenant;
SET ROLE regress_ots_rls_tenant;
SELECT count(*) AS view_rows_forced FROM rls.t;
RESET ROLE;
ALTER TABLE rls."t$data" NO FORCE ROW LEVEL SECURITY;
SET ROLE regress_ots_rls_tenant;
SELECT count(*) AS view_rows FROM rls.t;
RESET ROLE;

-- row-level security off again: the tenant reads and writes every row
ALTER TABLE rls."t$data" DISABLE ROW LEVEL SECURITY;
SET ROLE regress_ots_rls_tenant;
SELECT * FROM pg_temp.access('{1, 5, 14}') ORDER BY n;
RESET ROLE;
SELECT * FROM pg_temp.stored();

SET ROLE regress_ots_rls_owner;
SELECT ots.delete_table('rls.t');
RESET ROLE;
DROP SCHEMA rls;
DROP ROLE regress_ots_rls_owner;
DROP ROLE regress_ots_rls_tenant;
DROP ROLE regress_ots_rls_bypass;
