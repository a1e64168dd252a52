-- security: ots lets no one in.  Every function runs with the caller's rights
-- and a pinned search_path (or a documented reason why not); privileges on a
-- table's storage "t$data" gate every row function; names are validated, so
-- nothing can be injected through them; and objects on the caller's
-- search_path cannot hijack what ots runs internally.
-- (quiet: the extension may already exist, the files share one database,
-- and table DDL may report how expiry is scheduled)
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

-- every function and procedure of the extension
CREATE TEMP VIEW ots_functions AS
SELECT p.oid::regprocedure::text AS fn, p.prokind, l.lanname, p.prosecdef, p.proconfig,
       p.prosqlbody IS NOT NULL AS sql_standard_body
  FROM pg_depend d
  JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
  JOIN pg_language l ON l.oid = p.prolang
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ots')
   AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e';

--
-- 1. functions: SECURITY INVOKER, pinned search_path
--
-- the view sees the extension's functions (a sanity check for what follows)
SELECT count(*) > 50 AS many_functions, count(*) FILTER (WHERE lanname = 'c') > 20 AS c_functions
  FROM ots_functions;
-- no function or procedure is SECURITY DEFINER, but the sql_drop event trigger's
-- cleanups of tables, search indexes and streams (they act only on what
-- pg_event_trigger_dropped_objects() reports)
SELECT fn FROM ots_functions WHERE prosecdef ORDER BY fn COLLATE "C";
-- every SQL and PL/pgSQL function pins search_path, except: SQL-standard bodies
-- (BEGIN ATOMIC: parsed and bound once, at CREATE EXTENSION, so a caller's
-- search_path cannot redirect them; they resolve the caller's table name on
-- purpose) and procedures that COMMIT or call one that does (a SET clause
-- makes the call atomic and COMMIT fails; they call only schema-qualified
-- objects and use no operators).
-- A new unpinned function shows up here as a diff.
SELECT fn, CASE WHEN sql_standard_body THEN 'SQL-standard body'
                WHEN prokind = 'p' THEN 'procedure that commits'
                ELSE 'NOT PINNED' END AS exception
  FROM ots_functions
 WHERE lanname IN ('sql', 'plpgsql')
   AND NOT coalesce(EXISTS (SELECT 1 FROM unnest(proconfig) c WHERE c LIKE 'search\_path=%'), false)
 ORDER BY fn COLLATE "C";
-- a pinned path is always exactly "pg_catalog, pg_temp" (pg_temp last)
SELECT fn, proconfig FROM ots_functions
 WHERE EXISTS (SELECT 1 FROM unnest(proconfig) c
                WHERE c LIKE 'search\_path=%' AND c <> 'search_path=pg_catalog, pg_temp')
 ORDER BY fn COLLATE "C";
-- those procedures really commit, themselves or through ots.purge_table
SELECT fn, pg_get_functiondef(fn::regprocedure) ~ '\mCOMMIT;' AS commits,
       pg_get_functiondef(fn::regprocedure) ~ '\mCALL ots\.purge_table\(' AS calls_purge_table
  FROM ots_functions WHERE prokind = 'p' ORDER BY fn COLLATE "C";
-- nobody but the extension's owner may create objects in schema ots
SELECT has_schema_privilege('public', 'ots', 'USAGE') AS public_usage,
       has_schema_privilege('public', 'ots', 'CREATE') AS public_create;

--
-- 2. privileges: reading needs SELECT on "t$data"; put_row INSERT and UPDATE
-- (and SELECT with a condition); update_row SELECT, INSERT and UPDATE;
-- delete_row SELECT and DELETE -- every one of them, as plain SQL would
--
SELECT ots.create_table('sec_t', 'k string', partitions => 2);
SELECT ots.create_table('sec_u', 'k string', partitions => 1);
CREATE ROLE regress_ots_sec_none;
CREATE ROLE regress_ots_sec_read;
CREATE ROLE regress_ots_sec_write;
CREATE ROLE regress_ots_sec_rw;
CREATE ROLE regress_ots_sec_view;
GRANT SELECT ON "sec_t$data" TO regress_ots_sec_read;
GRANT INSERT, UPDATE, DELETE ON "sec_t$data" TO regress_ots_sec_write;
GRANT SELECT, INSERT, UPDATE, DELETE ON "sec_t$data" TO regress_ots_sec_rw;
GRANT SELECT ON sec_t TO regress_ots_sec_view;

-- sec_t holds rows a and b, nothing else
CREATE FUNCTION pg_temp.reseed() RETURNS void LANGUAGE sql AS $$
	SELECT ots.delete_row('sec_t', r.primary_key)
	  FROM ots.get_range_rows('sec_t', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}') r;
	SELECT ots.put_row('sec_t', '{"k": "a"}', '{"v": 1}');
	SELECT ots.put_row('sec_t', '{"k": "b"}', '{"v": 1}');
$$;
-- every way into sec_t: each call's result ("ok: " and what it returned) or error
CREATE FUNCTION pg_temp.access() RETURNS TABLE (n integer, call text, result text)
LANGUAGE plpgsql AS $f$
DECLARE
	c record;
	v text;
BEGIN
	FOR c IN SELECT * FROM (VALUES
		(1, 'get_row', $$SELECT attributes FROM ots.get_row('sec_t', '{"k": "a"}')$$),
		(2, 'get_range', $$SELECT jsonb_array_length(rows) FROM ots.get_range('sec_t', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}')$$),
		(3, 'get_range_rows', $$SELECT count(*) FROM ots.get_range_rows('sec_t', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}')$$),
		(4, 'batch_get_row', $$SELECT count(*) FILTER (WHERE is_ok) FROM ots.batch_get_row('[{"table_name": "sec_t", "primary_keys": [{"k": "a"}, {"k": "b"}]}]')$$),
		(5, 'view sec_t', $$SELECT count(*) FROM sec_t$$),
		(6, 'put_row', $$SELECT consumed FROM ots.put_row('sec_t', '{"k": "p"}', '{"v": 6}')$$),
		(7, 'put_row EXPECT_EXIST', $$SELECT consumed FROM ots.put_row('sec_t', '{"k": "a"}', '{"v": 7}', condition => 'EXPECT_EXIST')$$),
		(8, 'update_row', $$SELECT consumed FROM ots.update_row('sec_t', '{"k": "a"}', put => '{"w": 8}')$$),
		(9, 'delete_row', $$SELECT consumed FROM ots.delete_row('sec_t', '{"k": "b"}')$$),
		(10, 'batch_write_row PUT', $$SELECT count(*) FILTER (WHERE is_ok) FROM ots.batch_write_row('[{"table_name": "sec_t", "rows": [{"type": "PUT", "primary_key": {"k": "q"}, "attributes": {"v": 10}}]}]')$$),
		(11, 'batch_write_row PUT+UPDATE', $$SELECT count(*) FILTER (WHERE is_ok) FROM ots.batch_write_row('[{"table_name": "sec_t", "rows": [{"type": "PUT", "primary_key": {"k": "r"}}, {"type": "UPDATE", "primary_key": {"k": "a"}, "put": {"w": 11}}]}]')$$),
		(12, 'describe_table', $$SELECT ots.describe_table('sec_t') -> 'primary_key'$$),
		(13, 'list_table', $$SELECT count(*) FROM ots.list_table() WHERE table_name = 'sec_t'$$),
		(14, 'update_table', $$SELECT ots.update_table('sec_t', max_versions => 2)$$),
		(15, 'delete_table', $$SELECT ots.delete_table('sec_t')$$),
		(16, 'stats_forget', $$SELECT ots.stats_forget('"sec_t$data"')$$)) v(n, call, q)
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

-- no privileges: no reads, no writes, not even through a batch (the
-- permission error fails the whole call, it is never a row's result);
-- nor metadata: a table the role has no privilege on is not there for it
-- (describe_table refused, list_table without it; ots.table_visible)
SET ROLE regress_ots_sec_none;
SELECT * FROM pg_temp.access() ORDER BY n;
CALL ots.purge('sec_t');
RESET ROLE;
SELECT k, attributes FROM sec_t ORDER BY k;
SELECT max_versions FROM ots.tables WHERE table_name = 'sec_t';

-- SELECT only: reads, but writes nothing (delete_row and update_row need
-- their write privilege too, not just SELECT)
SET ROLE regress_ots_sec_read;
SELECT * FROM pg_temp.access() ORDER BY n;
-- a batch over a readable and an unreadable table fails whole
SELECT pg_temp.try($$SELECT count(*) FROM ots.batch_get_row('[{"table_name": "sec_t", "primary_keys": [{"k": "a"}]}, {"table_name": "sec_u", "primary_keys": [{"k": "a"}]}]')$$);
RESET ROLE;
SELECT k, attributes FROM sec_t ORDER BY k;

-- INSERT, UPDATE and DELETE without SELECT: blind puts only; whatever reads
-- the row (a condition, update_row, delete_row) also needs SELECT, and a
-- batch with such a row fails whole, its blind PUT included
SET ROLE regress_ots_sec_write;
SELECT * FROM pg_temp.access() ORDER BY n;
RESET ROLE;
SELECT k, attributes FROM sec_t ORDER BY k;
SELECT pg_temp.reseed();

-- all four: every row function; table DDL, purge and statistics stay the owner's
SET ROLE regress_ots_sec_rw;
SELECT * FROM pg_temp.access() ORDER BY n;
CALL ots.purge('sec_t');
RESET ROLE;
SELECT k, attributes FROM sec_t ORDER BY k;
SELECT pg_temp.reseed();

-- SELECT and DELETE: what deletes need, in a batch too (the bulk way asks for
-- the privileges of the rows it has, nothing more); puts still need INSERT and UPDATE
CREATE ROLE regress_ots_sec_del;
GRANT SELECT, DELETE ON "sec_t$data" TO regress_ots_sec_del;
SET ROLE regress_ots_sec_del;
SELECT count(*) FILTER (WHERE is_ok) AS deleted
  FROM ots.batch_write_row('[{"table_name": "sec_t", "rows": [{"type": "DELETE", "primary_key": {"k": "b"}}]}]');
SELECT count(*) FILTER (WHERE is_ok) AS put
  FROM ots.batch_write_row('[{"table_name": "sec_t", "rows": [{"type": "PUT", "primary_key": {"k": "b"}}]}]');
RESET ROLE;
SELECT k FROM sec_t ORDER BY k;
SELECT pg_temp.reseed();

-- SELECT on the view only: plain SQL reads live rows (the view reads the
-- storage as its owner, as any view does); the functions need "t$data"
SET ROLE regress_ots_sec_view;
SELECT k, attributes FROM sec_t ORDER BY k;
SELECT * FROM pg_temp.access() WHERE n <= 5 ORDER BY n;
RESET ROLE;

-- the storage and its leaves are closed to roles without grants
SET ROLE regress_ots_sec_none;
SELECT pg_temp.try($$SELECT count(*) FROM "sec_t$data"$$);
SELECT pg_temp.try($$SELECT count(*) FROM "sec_t$p0"$$);
SELECT pg_temp.try($$INSERT INTO ots.tables (schema_name, table_name, pk_names, pk_types, max_versions,
	time_to_live, max_version_offset, allow_update, partitions, hash_prefix_length)
	VALUES ('public', 'sec_fake', '{k}', '{STRING}', 1, -1, 86400, true, 1, 0)$$);
-- no role writes ots.tables but through ots's functions
UPDATE ots.tables SET max_versions = 9 WHERE table_name = 'sec_t' RETURNING table_name;
DELETE FROM ots.tables WHERE table_name = 'sec_t' RETURNING table_name;
RESET ROLE;
SELECT table_name, max_versions FROM ots.tables WHERE table_name LIKE 'sec\_%' ORDER BY table_name;

-- a schema without USAGE is closed even to a role granted the table
-- ("s.t" in SQL needs USAGE on s too); unqualified, the name is not found
CREATE SCHEMA sec_closed;
SELECT ots.create_table('sec_closed.t', 'k string', partitions => 1);
SELECT consumed FROM ots.put_row('sec_closed.t', '{"k": "a"}');
GRANT SELECT, INSERT, UPDATE, DELETE ON sec_closed."t$data" TO regress_ots_sec_rw;
SET ROLE regress_ots_sec_rw;
SELECT pg_temp.try($$SELECT ots.get_row('sec_closed.t', '{"k": "a"}')$$);
SELECT pg_temp.try($$SELECT ots.put_row('sec_closed.t', '{"k": "b"}')$$);
SELECT pg_temp.try($$SELECT count(*) FROM ots.batch_get_row('[{"table_name": "sec_closed.t", "primary_keys": [{"k": "a"}]}]')$$);
SELECT pg_temp.try($$SELECT ots.describe_table('sec_closed.t')$$);
SET search_path = sec_closed, public;
SELECT pg_temp.try($$SELECT ots.get_row('t', '{"k": "a"}')$$);
RESET search_path;
RESET ROLE;
GRANT USAGE ON SCHEMA sec_closed TO regress_ots_sec_rw;
SET ROLE regress_ots_sec_rw;
SELECT primary_key FROM ots.get_row('sec_closed.t', '{"k": "a"}');
RESET ROLE;
SELECT ots.delete_table('sec_closed.t');
DROP SCHEMA sec_closed;

--
-- 3. names: quotes, spaces and case in schemas; Tablestore names for tables
-- and columns, case-sensitive; no injection through any name
--
CREATE TABLE sec_sentinel (x integer);
CREATE SCHEMA "Sec Schema";
CREATE SCHEMA "we""ird";
CREATE SCHEMA "dot.ted";
-- MixedCase and mixedcase are two tables; Pk, pk and PK are three columns
SELECT ots.create_table('"Sec Schema".MixedCase', 'Pk string, pk integer, PK binary', partitions => 2);
SELECT ots.create_table('"Sec Schema".mixedcase', 'pk string', partitions => 2);
SELECT ots.create_table('"we""ird".T1', 'k string', partitions => 1);
SELECT ots.create_table('"dot.ted".T2', 'k string', partitions => 1);
SELECT schema_name, table_name FROM ots.list_table()
 WHERE schema_name IN ('Sec Schema', 'we"ird', 'dot.ted')
 ORDER BY schema_name COLLATE "C", table_name COLLATE "C";
SELECT c.relname FROM pg_class c WHERE c.relnamespace = '"Sec Schema"'::regnamespace
   AND c.relkind IN ('v', 'p') ORDER BY c.relname COLLATE "C";
SELECT ots.describe_table('"Sec Schema".MixedCase') -> 'primary_key' AS primary_key;
SELECT primary_key, attributes FROM ots.put_row('"Sec Schema".MixedCase',
  '{"Pk": "a", "pk": 1, "PK": {"$binary": "AQ=="}}', '{"Attr": 1, "attr": 2, "ATTR": 3}', return_type => 'RT_PK');
SELECT primary_key FROM ots.put_row('"Sec Schema".mixedcase', '{"pk": "a"}', '{"attr": 4}', return_type => 'RT_PK');
SELECT primary_key FROM ots.put_row('"we""ird".T1', '{"k": "a"}', '{"v": 5}', return_type => 'RT_PK');
SELECT primary_key FROM ots.put_row('"dot.ted".T2', '{"k": "a"}', '{"v": 6}', return_type => 'RT_PK');
SELECT attributes FROM ots.get_row('"Sec Schema".MixedCase', '{"Pk": "a", "pk": 1, "PK": {"$binary": "AQ=="}}');
SELECT attributes FROM ots.get_row('"Sec Schema".MixedCase', '{"Pk": "a", "pk": 1, "PK": {"$binary": "AQ=="}}',
  columns_to_get => '{attr,ATTR}');
SELECT attributes FROM ots.get_row('"Sec Schema".mixedcase', '{"pk": "a"}');
SELECT * FROM "Sec Schema"."MixedCase" ORDER BY 1, 2, 3;
SELECT * FROM "Sec Schema".mixedcase ORDER BY 1;
SELECT * FROM "we""ird"."T1" ORDER BY 1;
SELECT * FROM "dot.ted"."T2" ORDER BY 1;
SELECT rows FROM ots.get_range('"we""ird".T1', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}');
SELECT table_name, index, is_ok, attributes FROM ots.batch_get_row(
  '[{"table_name": "\"we\"\"ird\".T1", "primary_keys": [{"k": "a"}]},
    {"table_name": "\"Sec Schema\".mixedcase", "primary_keys": [{"k": "a"}]},
    {"table_name": "\"Sec Schema\".mixedcase", "primary_keys": [{"pk": "a"}]}]')
 ORDER BY table_name COLLATE "C", index;
-- found through search_path like any relation; the table part is case-sensitive
SET search_path = "Sec Schema", public;
SELECT attributes FROM ots.get_row('mixedcase', '{"pk": "a"}');
SELECT pg_temp.try($$SELECT ots.get_row('MIXEDCASE', '{"pk": "a"}')$$);
SELECT pg_temp.try($$SELECT ots.get_row('Mixedcase', '{"pk": "a"}')$$);
RESET search_path;
-- the schema part is the schema's name itself, or double-quoted with "" for "
-- (a lone " inside quotes is kept as it is); the table part is never quoted
SELECT pg_temp.try($$SELECT ots.get_row('"Sec Schema"."MixedCase"', '{"pk": "a"}')$$);
SELECT pg_temp.try($$SELECT ots.get_row('Sec Schema.mixedcase', '{"pk": "a"}')$$);
SELECT pg_temp.try($$SELECT ots.get_row('"sec schema".mixedcase', '{"pk": "a"}')$$);
SELECT pg_temp.try($$SELECT ots.get_row('"Sec Schema.mixedcase', '{"pk": "a"}')$$);
SELECT pg_temp.try($$SELECT ots.get_row('we"ird.T1', '{"k": "a"}')$$);
SELECT pg_temp.try($$SELECT ots.get_row('"we"ird".T1', '{"k": "a"}')$$);
SELECT pg_temp.try($$SELECT ots.describe_table('"we""ird".t1')$$);

-- SQL injection through the table name: rejected as an invalid name, or no such table
SELECT q, pg_temp.try(q) AS result FROM (VALUES
  ($$SELECT ots.put_row('t; DROP TABLE sec_sentinel', '{"k": "a"}')$$),
  ($$SELECT ots.put_row('t"; DROP TABLE sec_sentinel; --', '{"k": "a"}')$$),
  ($$SELECT ots.put_row('sec_t"; DROP TABLE sec_sentinel; --', '{"k": "a"}')$$),
  ($$SELECT ots.put_row('"public"; DROP TABLE sec_sentinel; --".sec_t', '{"k": "a"}')$$),
  ($$SELECT ots.put_row('public; DROP TABLE sec_sentinel; --.sec_t', '{"k": "a"}')$$),
  ($$SELECT ots.get_row('sec_t'' OR ''1''=''1', '{"k": "a"}')$$),
  ($$SELECT ots.get_row(E'sec_t\nDROP TABLE sec_sentinel', '{"k": "a"}')$$),
  ($$SELECT ots.describe_table('sec_t; DROP TABLE sec_sentinel')$$),
  ($$SELECT ots.update_table('sec_t; DROP TABLE sec_sentinel', max_versions => 2)$$),
  ($$SELECT ots.delete_table('sec_t; DROP TABLE sec_sentinel')$$),
  ($$SELECT ots.delete_table('"public\"; DROP TABLE sec_sentinel; --".sec_t')$$),
  ($$SELECT ots.create_table('x; DROP TABLE sec_sentinel', 'k string')$$),
  ($$SELECT ots.create_table('x"; DROP TABLE sec_sentinel; --', 'k string')$$),
  ($$SELECT ots.create_table('"public"; DROP TABLE sec_sentinel; --".x', 'k string')$$),
  ($$CALL ots.purge('sec_t; DROP TABLE sec_sentinel')$$)) v(q)
 ORDER BY q COLLATE "C";
-- in a batch, the bad name is that row's error
SELECT table_name, index, is_ok, error_code, error_message FROM ots.batch_write_row(
  '[{"table_name": "sec_t; DROP TABLE sec_sentinel", "rows": [{"type": "PUT", "primary_key": {"k": "a"}}]},
    {"table_name": "sec_t\"; DROP TABLE sec_sentinel; --", "rows": [{"type": "PUT", "primary_key": {"k": "a"}}]}]')
 ORDER BY table_name COLLATE "C", index;
SELECT table_name, index, is_ok, error_code, error_message FROM ots.batch_get_row(
  '[{"table_name": "sec_t; DROP TABLE sec_sentinel", "primary_keys": [{"k": "a"}]}]')
 ORDER BY table_name COLLATE "C", index;
-- ... through primary-key and attribute column names: validated, never spliced into SQL
SELECT q, pg_temp.try(q) AS result FROM (VALUES
  ($$SELECT ots.create_table('sec_inj', 'a string); DROP TABLE sec_sentinel; --')$$),
  ($$SELECT ots.create_table('sec_inj', 'a string, "b; DROP TABLE sec_sentinel" string')$$),
  ($$SELECT ots.create_table('sec_inj', 'a" string, b string')$$),
  ($$SELECT ots.create_table('sec_inj', '"a" string')$$),
  ($$SELECT ots.create_table('sec_inj', 'a string; DROP TABLE sec_sentinel')$$),
  ($$SELECT ots.create_table('sec_inj', 'a string -- comment')$$),
  ($$SELECT ots.create_table('sec_inj', 'a string /* x */')$$),
  ($$SELECT ots.create_table('sec_inj', 'a string collate "C"')$$),
  ($$SELECT ots.create_table('sec_inj', 'a text[]')$$),
  ($$SELECT ots.put_row('sec_t', '{"k; DROP TABLE sec_sentinel": "a"}')$$),
  ($$SELECT ots.put_row('sec_t', '{"k": "a"}', '{"v\"; DROP TABLE sec_sentinel; --": 1}')$$),
  ($$SELECT ots.get_row('sec_t', '{"k": "a"}', columns_to_get => '{"v; DROP TABLE sec_sentinel"}')$$),
  ($$SELECT ots.get_row('sec_t', '{"k": "a"}', filter => '{"column": "v; DROP TABLE sec_sentinel", "comparator": "=", "value": 1}')$$),
  ($$SELECT ots.update_row('sec_t', '{"k": "a"}', delete_all => '{"v; DROP TABLE sec_sentinel"}')$$),
  ($$SELECT ots.update_row('sec_t', '{"k": "a"}', increment => '{"v; DROP TABLE sec_sentinel": 1}')$$),
  ($$SELECT ots.update_row('sec_t', '{"k": "a"}', "delete" => '{"v; DROP TABLE sec_sentinel": 1}')$$)) v(q)
 ORDER BY q COLLATE "C";
-- ... and values are data, whatever they contain
SELECT primary_key, attributes FROM ots.put_row('sec_t', $${"k": "'); DROP TABLE sec_sentinel; --"}$$,
  $${"v": "\"; DROP TABLE sec_sentinel; --"}$$, return_type => 'RT_PK');
SELECT k, attributes FROM sec_t ORDER BY k;
-- nothing was dropped or created
SELECT to_regclass('sec_sentinel') IS NOT NULL AS sentinel_kept, to_regclass('sec_inj') IS NULL AS no_sec_inj,
       to_regclass('x') IS NULL AS no_x;
SELECT schema_name, table_name FROM ots.list_table()
 WHERE table_name LIKE 'sec\_%' OR schema_name IN ('Sec Schema', 'we"ird', 'dot.ted')
 ORDER BY schema_name COLLATE "C", table_name COLLATE "C";

--
-- 4. search_path hijack: a schema on the caller's path full of traps named
-- like what ots uses internally.  Each trap logs its call (and warns), then
-- does the real thing.  Running the whole API with the traps first in the
-- path -- even before pg_catalog -- springs none of them.
--
CREATE SCHEMA evil;
CREATE TABLE evil.log (trap text);
CREATE FUNCTION evil.sprung(trap text) RETURNS boolean LANGUAGE plpgsql
SET search_path = pg_catalog AS $$
BEGIN
	INSERT INTO evil.log VALUES (trap);
	RAISE WARNING 'trap % sprung', trap;
	RETURN true;
END
$$;
-- functions ots calls (pinned functions, the C code's SPI statements)
CREATE FUNCTION evil.format(text, text) RETURNS text LANGUAGE sql
  AS $$SELECT pg_catalog.format($1, $2) WHERE evil.sprung('format(text,text)')$$;
CREATE FUNCTION evil.format(text, name, text) RETURNS text LANGUAGE sql
  AS $$SELECT pg_catalog.format($1, $2, $3) WHERE evil.sprung('format(text,name,text)')$$;
CREATE FUNCTION evil.format(text, name, name) RETURNS text LANGUAGE sql
  AS $$SELECT pg_catalog.format($1, $2, $3) WHERE evil.sprung('format(text,name,name)')$$;
CREATE FUNCTION evil.format(text, text, text) RETURNS text LANGUAGE sql
  AS $$SELECT pg_catalog.format($1, $2, $3) WHERE evil.sprung('format(text,text,text)')$$;
CREATE FUNCTION evil.jsonb_build_object(text, text) RETURNS jsonb LANGUAGE sql
  AS $$SELECT pg_catalog.jsonb_build_object($1, $2) WHERE evil.sprung('jsonb_build_object')$$;
CREATE FUNCTION evil.jsonb_build_object(text, name, text, text) RETURNS jsonb LANGUAGE sql
  AS $$SELECT pg_catalog.jsonb_build_object($1, $2, $3, $4) WHERE evil.sprung('jsonb_build_object')$$;
CREATE FUNCTION evil.to_regclass(text) RETURNS regclass LANGUAGE sql
  AS $$SELECT pg_catalog.to_regclass($1) WHERE evil.sprung('to_regclass')$$;
CREATE FUNCTION evil.length(name) RETURNS integer LANGUAGE sql
  AS $$SELECT pg_catalog.length($1) WHERE evil.sprung('length(name)')$$;
CREATE FUNCTION evil.length(text) RETURNS integer LANGUAGE sql
  AS $$SELECT pg_catalog.length($1) WHERE evil.sprung('length(text)')$$;
CREATE FUNCTION evil.octet_length(text) RETURNS integer LANGUAGE sql
  AS $$SELECT pg_catalog.octet_length($1) WHERE evil.sprung('octet_length')$$;
CREATE FUNCTION evil.pg_has_role(oid, text) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.pg_has_role($1, $2) WHERE evil.sprung('pg_has_role')$$;
CREATE FUNCTION evil.lower(text) RETURNS text LANGUAGE sql
  AS $$SELECT pg_catalog.lower($1) WHERE evil.sprung('lower')$$;
CREATE FUNCTION evil.btrim(text) RETURNS text LANGUAGE sql
  AS $$SELECT pg_catalog.btrim($1) WHERE evil.sprung('btrim')$$;
CREATE FUNCTION evil.regexp_split_to_array(text, text) RETURNS text[] LANGUAGE sql
  AS $$SELECT pg_catalog.regexp_split_to_array($1, $2) WHERE evil.sprung('regexp_split_to_array')$$;
CREATE FUNCTION evil.cardinality(text[]) RETURNS integer LANGUAGE sql
  AS $$SELECT pg_catalog.cardinality($1) WHERE evil.sprung('cardinality')$$;
CREATE FUNCTION evil.quote_ident(text) RETURNS text LANGUAGE sql
  AS $$SELECT pg_catalog.quote_ident($1) WHERE evil.sprung('quote_ident')$$;
CREATE FUNCTION evil.now() RETURNS timestamptz LANGUAGE sql
  AS $$SELECT pg_catalog.now() WHERE evil.sprung('now')$$;
CREATE FUNCTION evil.clock_timestamp() RETURNS timestamptz LANGUAGE sql
  AS $$SELECT pg_catalog.clock_timestamp() WHERE evil.sprung('clock_timestamp')$$;
CREATE FUNCTION evil.pg_try_advisory_lock(bigint) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.pg_try_advisory_lock($1) WHERE evil.sprung('pg_try_advisory_lock')$$;
CREATE FUNCTION evil.pg_advisory_unlock(bigint) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.pg_advisory_unlock($1) WHERE evil.sprung('pg_advisory_unlock')$$;
CREATE FUNCTION evil.set_config(text, text, boolean) RETURNS text LANGUAGE sql
  AS $$SELECT pg_catalog.set_config($1, $2, $3) WHERE evil.sprung('set_config')$$;
CREATE FUNCTION evil.current_setting(text, boolean) RETURNS text LANGUAGE sql
  AS $$SELECT pg_catalog.current_setting($1, $2) WHERE evil.sprung('current_setting')$$;
CREATE FUNCTION evil.pg_is_in_recovery() RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.pg_is_in_recovery() WHERE evil.sprung('pg_is_in_recovery')$$;
CREATE FUNCTION evil.pg_relation_size(regclass) RETURNS bigint LANGUAGE sql
  AS $$SELECT pg_catalog.pg_relation_size($1) WHERE evil.sprung('pg_relation_size')$$;
CREATE FUNCTION evil.pg_get_expr(pg_node_tree, oid) RETURNS text LANGUAGE sql
  AS $$SELECT pg_catalog.pg_get_expr($1, $2) WHERE evil.sprung('pg_get_expr')$$;
CREATE FUNCTION evil.md5(text) RETURNS text LANGUAGE sql
  AS $$SELECT pg_catalog.md5($1) WHERE evil.sprung('md5')$$;
CREATE FUNCTION evil.nextval(regclass) RETURNS bigint LANGUAGE sql
  AS $$SELECT pg_catalog.nextval($1) WHERE evil.sprung('nextval')$$;
CREATE FUNCTION evil.jsonb_agg(jsonb) RETURNS jsonb LANGUAGE sql
  AS $$SELECT pg_catalog.to_jsonb($1) WHERE evil.sprung('jsonb_agg')$$;
-- operators on the types ots compares and concatenates
CREATE FUNCTION evil.texteq(text, text) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.texteq($1, $2) AND evil.sprung('=(text,text)')$$;
CREATE OPERATOR evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.texteq);
CREATE FUNCTION evil.nameeq(name, name) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.nameeq($1, $2) AND evil.sprung('=(name,name)')$$;
CREATE OPERATOR evil.= (LEFTARG = name, RIGHTARG = name, FUNCTION = evil.nameeq);
CREATE FUNCTION evil.nameeqtext(name, text) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.nameeqtext($1, $2) AND evil.sprung('=(name,text)')$$;
CREATE OPERATOR evil.= (LEFTARG = name, RIGHTARG = text, FUNCTION = evil.nameeqtext);
CREATE FUNCTION evil.int8eq(bigint, bigint) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.int8eq($1, $2) AND evil.sprung('=(bigint,bigint)')$$;
CREATE OPERATOR evil.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.int8eq);
CREATE FUNCTION evil.int4eq(integer, integer) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.int4eq($1, $2) AND evil.sprung('=(integer,integer)')$$;
CREATE OPERATOR evil.= (LEFTARG = integer, RIGHTARG = integer, FUNCTION = evil.int4eq);
CREATE FUNCTION evil.oideq(oid, oid) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.oideq($1, $2) AND evil.sprung('=(oid,oid)')$$;
CREATE OPERATOR evil.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = evil.oideq);
CREATE FUNCTION evil.byteaeq(bytea, bytea) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.byteaeq($1, $2) AND evil.sprung('=(bytea,bytea)')$$;
CREATE OPERATOR evil.= (LEFTARG = bytea, RIGHTARG = bytea, FUNCTION = evil.byteaeq);
CREATE FUNCTION evil.textne(text, text) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.textne($1, $2) AND evil.sprung('<>(text,text)')$$;
CREATE OPERATOR evil.<> (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.textne);
CREATE FUNCTION evil.textcat(text, text) RETURNS text LANGUAGE sql
  AS $$SELECT pg_catalog.textcat($1, $2) WHERE evil.sprung('||(text,text)')$$;
CREATE OPERATOR evil.|| (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.textcat);
CREATE FUNCTION evil.textregexeq(text, text) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.textregexeq($1, $2) AND evil.sprung('~(text,text)')$$;
CREATE OPERATOR evil.~ (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.textregexeq);
CREATE FUNCTION evil.textregexne(text, text) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.textregexne($1, $2) AND evil.sprung('!~(text,text)')$$;
CREATE OPERATOR evil.!~ (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.textregexne);
CREATE FUNCTION evil.int8lt(bigint, bigint) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.int8lt($1, $2) AND evil.sprung('<(bigint,bigint)')$$;
CREATE OPERATOR evil.< (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.int8lt);
CREATE FUNCTION evil.int8le(bigint, bigint) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.int8le($1, $2) AND evil.sprung('<=(bigint,bigint)')$$;
CREATE OPERATOR evil.<= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.int8le);
CREATE FUNCTION evil.int8ge(bigint, bigint) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.int8ge($1, $2) AND evil.sprung('>=(bigint,bigint)')$$;
CREATE OPERATOR evil.>= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.int8ge);
CREATE FUNCTION evil.text_ge(text, text) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.text_ge($1, $2) AND evil.sprung('>=(text,text)')$$;
CREATE OPERATOR evil.>= (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.text_ge);
CREATE FUNCTION evil.text_lt(text, text) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.text_lt($1, $2) AND evil.sprung('<(text,text)')$$;
CREATE OPERATOR evil.< (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.text_lt);
CREATE FUNCTION evil.int4gt(integer, integer) RETURNS boolean LANGUAGE sql
  AS $$SELECT pg_catalog.int4gt($1, $2) AND evil.sprung('>(integer,integer)')$$;
CREATE OPERATOR evil.> (LEFTARG = integer, RIGHTARG = integer, FUNCTION = evil.int4gt);
-- types and catalogs a query could name without a schema
CREATE DOMAIN evil.text AS pg_catalog.text CHECK (evil.sprung('type text'));
CREATE DOMAIN evil.int8 AS pg_catalog.int8 CHECK (evil.sprung('type int8'));
CREATE DOMAIN evil.jsonb AS pg_catalog.jsonb CHECK (evil.sprung('type jsonb'));
CREATE DOMAIN evil.regclass AS pg_catalog.regclass CHECK (evil.sprung('type regclass'));
CREATE VIEW evil.pg_class AS SELECT * FROM pg_catalog.pg_class WHERE evil.sprung('pg_class');
CREATE VIEW evil.pg_namespace AS SELECT * FROM pg_catalog.pg_namespace WHERE evil.sprung('pg_namespace');
CREATE VIEW evil.pg_inherits AS SELECT * FROM pg_catalog.pg_inherits WHERE evil.sprung('pg_inherits');
CREATE VIEW evil.pg_locks AS SELECT * FROM pg_catalog.pg_locks WHERE evil.sprung('pg_locks');
CREATE VIEW evil.pg_extension AS SELECT * FROM pg_catalog.pg_extension WHERE evil.sprung('pg_extension');
CREATE VIEW evil.tables AS SELECT * FROM ots.tables WHERE evil.sprung('tables');

-- the traps are armed: called by name with evil first in the path, they spring
SET search_path = evil, pg_catalog, public;
SELECT format('%s'::pg_catalog.text, 'x'::pg_catalog.text) AS format,
       'a'::pg_catalog.text = 'a'::pg_catalog.text AS eq, length('abc'::pg_catalog.text) AS length,
       '5'::int8 AS int8;
RESET search_path;
SELECT trap FROM evil.log ORDER BY trap COLLATE "C";
TRUNCATE evil.log;

-- the whole API, one statement per row, run by \gexec: table DDL, row
-- functions, ranges, batches, the view, purge, statistics
CREATE TEMP TABLE tour (step integer, q text);
INSERT INTO tour VALUES
  (1, $$SELECT ots.create_table('public.sec_hj', 'k string, n integer auto_increment', max_versions => 3, hash_prefix_length => 2, partitions => 4)$$),
  (2, $$SELECT ots.update_table('sec_hj', allow_update => true)$$),
  (3, $$SELECT pg_catalog.jsonb_extract_path(ots.describe_table('sec_hj'), 'primary_key') AS primary_key$$),
  (4, $$SELECT table_name FROM ots.list_table() WHERE table_name OPERATOR(pg_catalog.=) 'sec_hj'$$),
  (5, $$SELECT primary_key, consumed FROM ots.put_row('sec_hj', '{"k": "a", "n": {"$auto_increment": true}}', '{"v": 1, "s": "x"}', return_type => 'RT_PK')$$),
  (6, $$SELECT primary_key FROM ots.put_row('sec_hj', '{"k": "b", "n": {"$auto_increment": true}}', '{"v": 10}', return_type => 'RT_PK')$$),
  (7, $$SELECT primary_key FROM ots.put_row('sec_hj', '{"k": "a", "n": 1}', '{"v": 1, "s": "y"}', condition => 'EXPECT_EXIST', column_condition => '{"column": "s", "comparator": "=", "value": "x"}', return_type => 'RT_PK')$$),
  (8, $$SELECT attributes FROM ots.update_row('sec_hj', '{"k": "a", "n": 1}', put => '{"w": true}', increment => '{"v": 5}', column_condition => '{"column": "v", "comparator": ">=", "value": 1}', return_type => 'RT_AFTER_MODIFY')$$),
  (9, $$SELECT primary_key, attributes FROM ots.get_row('sec_hj', '{"k": "a", "n": 1}', filter => '{"and": [{"column": "v", "comparator": ">", "value": 1}, {"column": "s", "comparator": "!=", "value": "x"}]}')$$),
  (10, $$SELECT pg_catalog.jsonb_array_length(pg_catalog.jsonb_extract_path(attributes, 'v')) AS versions FROM ots.get_row('sec_hj', '{"k": "a", "n": 1}', max_versions => 3)$$),
  (11, $$SELECT rows, next_start_primary_key FROM ots.get_range('sec_hj', '{"k": "a", "n": {"$inf": "min"}}', '{"k": "a", "n": {"$inf": "max"}}', columns_to_get => '{v}')$$),
  (12, $$SELECT primary_key, attributes FROM ots.get_range_rows('sec_hj', '{"k": {"$inf": "max"}, "n": {"$inf": "max"}}', '{"k": {"$inf": "min"}, "n": {"$inf": "min"}}', direction => 'BACKWARD') ORDER BY primary_key$$),
  (13, $$SELECT table_name, index, is_ok, error_code, primary_key, attributes FROM ots.batch_get_row('[{"table_name": "sec_hj", "primary_keys": [{"k": "a", "n": 1}, {"k": "b", "n": 2}, {"k": "c", "n": 3}], "columns_to_get": ["v"]}]') ORDER BY table_name, index$$),
  (14, $$SELECT table_name, index, is_ok, error_code, primary_key FROM ots.batch_write_row('[{"table_name": "sec_hj", "rows": [{"type": "PUT", "primary_key": {"k": "c", "n": 7}, "attributes": {"v": 7}}, {"type": "UPDATE", "primary_key": {"k": "b", "n": 2}, "increment": {"v": 1}}, {"type": "DELETE", "primary_key": {"k": "z", "n": 9}, "condition": "EXPECT_EXIST"}]}]') ORDER BY table_name, index$$),
  (15, $$SELECT table_name, index, is_ok, error_code FROM ots.batch_write_row('[{"table_name": "sec_hj", "rows": [{"type": "PUT", "primary_key": {"k": "c", "n": 8}}, {"type": "PUT", "primary_key": {"k": "c", "n": 9}}]}]', is_atomic => true) ORDER BY table_name, index$$),
  (16, $$SELECT attributes FROM ots.delete_row('sec_hj', '{"k": "c", "n": 9}', condition => 'EXPECT_EXIST', column_condition => '{"not": [{"column": "v", "comparator": "=", "value": 1, "pass_if_missing": false}]}')$$),
  (17, $$SELECT k, n, attributes FROM sec_hj ORDER BY k, n$$),
  (18, $$SELECT ots.update_table('sec_hj', max_versions => 1)$$),
  (19, $$CALL ots.purge('sec_hj', batch_size => 1)$$),
  (20, $$SELECT cells_purged, rows_purged FROM ots.stats WHERE table_name OPERATOR(pg_catalog.=) 'sec_hj'$$),
  (21, $$SELECT ots.stats_reset('sec_hj')$$),
  (22, $$SELECT ots.hash_prefix('a', 2) AS text_prefix, ots.hash_prefix(7, 3) AS int_prefix, ots.error_code('OT003') AS code$$),
  (23, $$SELECT ots.delete_table('sec_hj')$$);

-- with the traps first in the path (pg_catalog implicitly before them)
SET search_path = evil, public;
SELECT q FROM tour ORDER BY step \gexec
RESET search_path;
SELECT trap FROM evil.log ORDER BY trap COLLATE "C";

-- with the traps even before pg_catalog
SET search_path = evil, pg_catalog, public;
SELECT q FROM tour ORDER BY step \gexec
RESET search_path;
SELECT trap FROM evil.log ORDER BY trap COLLATE "C";
SELECT to_regclass('public.sec_hj') IS NULL AS sec_hj_deleted;

--
-- clean up
--
SELECT ots.delete_table(format('%I.%s', schema_name, table_name))
  FROM ots.list_table()
 WHERE (schema_name = 'public' AND table_name LIKE 'sec\_%')
    OR schema_name IN ('Sec Schema', 'we"ird', 'dot.ted')
 ORDER BY schema_name COLLATE "C", table_name COLLATE "C";
DROP SCHEMA evil CASCADE;
DROP SCHEMA "Sec Schema", "we""ird", "dot.ted";
DROP TABLE sec_sentinel;
DROP VIEW ots_functions;
DROP ROLE regress_ots_sec_none;
DROP ROLE regress_ots_sec_read;
DROP ROLE regress_ots_sec_write;
DROP ROLE regress_ots_sec_rw;
DROP ROLE regress_ots_sec_view;
DROP ROLE regress_ots_sec_del;
