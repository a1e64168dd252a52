-- storage_guard: ots writes rows through its own functions, which do not
-- run triggers or rules and do not apply defaults or constraints, and ots
-- finds a table's view and storage by name.  So DDL that would add such
-- things to an ots table's storage (the partitioned "t$data" and each of
-- its partitions) or its view, or that would rename or move them, is
-- refused (an event trigger), for the owner and for a superuser alike;
-- what cannot hurt (row-level security, storage options,
-- statistics, indexes, policies, comments, grants, detach) stays allowed.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

CREATE ROLE regress_ots_guard_owner;
CREATE SCHEMA sg AUTHORIZATION regress_ots_guard_owner;
CREATE SCHEMA sg_other AUTHORIZATION regress_ots_guard_owner;

-- the SQLSTATE and message of a statement's error, or "ok"
CREATE FUNCTION pg_temp.try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

-- the same, with the error's DETAIL
CREATE FUNCTION pg_temp.try_why(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	detail text;
BEGIN
	EXECUTE query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END
$$;

-- a statement (%1$s: the relation, %2$s: its primary-key constraint) on
-- each relation (S: the storage, L: a leaf, V: the view): what happened
CREATE FUNCTION pg_temp.try_each(statement text, relations text[])
	RETURNS TABLE (relation text, result text) LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY relations LOOP
		relation := CASE r WHEN 'S' THEN 'sg."g$data"' WHEN 'L' THEN 'sg."g$p0"' ELSE 'sg.g' END;
		result := pg_temp.try(format(statement, relation,
									 CASE r WHEN 'S' THEN '"g$data_pkey"' ELSE '"g$p0_pkey"' END));
		RETURN NEXT;
	END LOOP;
END
$$;

SET ROLE regress_ots_guard_owner;
SELECT ots.create_table('sg.g', 'k string, n integer', partitions => 2);
SELECT count(*) AS written FROM ots.put_row('sg.g', '{"k": "a", "n": 1}', '{"v": 1}');
CREATE FUNCTION sg.trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
CREATE TABLE sg.ref (k text COLLATE "C" PRIMARY KEY);
CREATE TABLE sg.parent (x int);
CREATE TYPE sg.typ AS (k text, n bigint);
RESET ROLE;

-- the storage keeps the shape ots.create_table gave it
CREATE TEMP TABLE refused (n serial, statement text, relations text[]);
GRANT SELECT ON refused TO PUBLIC;
INSERT INTO refused (statement, relations) VALUES
	('CREATE TRIGGER g_trg BEFORE INSERT ON %1$s FOR EACH ROW EXECUTE FUNCTION sg.trg()', '{S,L}'),
	('CREATE TRIGGER g_trg AFTER DELETE ON %1$s EXECUTE FUNCTION sg.trg()', '{S,L}'),
	('CREATE RULE g_rule AS ON INSERT TO %1$s DO INSTEAD NOTHING', '{S,L}'),
	-- the original problem: a NOT NULL column with a DEFAULT that ots's writes would leave NULL
	('ALTER TABLE %1$s ADD COLUMN extra int NOT NULL DEFAULT 0', '{S,L}'),
	('ALTER TABLE %1$s ADD COLUMN extra text', '{S,L}'),
	('ALTER TABLE %1$s DROP COLUMN "$oldest_ts"', '{S,L}'),
	('ALTER TABLE %1$s ALTER COLUMN "$oldest_ts" TYPE numeric', '{S,L}'),
	('ALTER TABLE %1$s ALTER COLUMN "$oldest_ts" SET DEFAULT 0', '{S,L}'),
	('ALTER TABLE %1$s ALTER COLUMN "$oldest_ts" DROP DEFAULT', '{S,L}'),
	('ALTER TABLE %1$s ALTER COLUMN "$oldest_ts" DROP NOT NULL', '{S,L}'),
	('ALTER TABLE %1$s ALTER COLUMN "$oldest_ts" SET NOT NULL', '{S,L}'),
	('ALTER TABLE %1$s ALTER COLUMN n ADD GENERATED ALWAYS AS IDENTITY', '{S,L}'),
	('ALTER TABLE %1$s ALTER COLUMN n DROP EXPRESSION', '{S,L}'),
	('ALTER TABLE %1$s ADD CONSTRAINT g_check CHECK (k <> '''')', '{S,L}'),
	('ALTER TABLE %1$s ADD CONSTRAINT g_check CHECK (k <> '''') NOT VALID', '{S,L}'),
	('ALTER TABLE %1$s ADD CONSTRAINT g_fk FOREIGN KEY (k) REFERENCES sg.ref (k)', '{S,L}'),
	('ALTER TABLE %1$s ADD CONSTRAINT g_unique UNIQUE (k, n)', '{S,L}'),
	('ALTER TABLE %1$s ADD CONSTRAINT g_excl EXCLUDE (k WITH =)', '{S,L}'),
	('ALTER TABLE %1$s DROP CONSTRAINT %2$s', '{S}'),
	('ALTER TABLE %1$s ENABLE RULE g_rule', '{S,L}'),
	('ALTER TABLE %1$s INHERIT sg.parent', '{S,L}'),
	('ALTER TABLE %1$s NO INHERIT sg.parent', '{S,L}'),
	('ALTER TABLE %1$s OF sg.typ', '{S,L}'),
	('ALTER TABLE %1$s NOT OF', '{S,L}'),
	('ALTER TABLE %1$s SET ACCESS METHOD heap', '{L}'),
	('ALTER TABLE %1$s RENAME COLUMN n TO m', '{S,L}'),
	('ALTER TABLE %1$s RENAME TO g_renamed', '{S}'),
	('ALTER TABLE %1$s SET SCHEMA sg_other', '{S}'),
	-- another table may not reference the storage either (its foreign key would put triggers there)
	('CREATE TABLE sg.referencing (k text COLLATE "C", n bigint, FOREIGN KEY (k, n) REFERENCES %1$s)', '{S,L}'),
	('ALTER TABLE sg.ref ADD COLUMN n bigint REFERENCES %1$s (n)', '{S}'),
	-- nor may the storage become a partition of another table
	('ALTER TABLE sg.outer_p ATTACH PARTITION %1$s DEFAULT', '{S}'),
	-- the storage's comment carries the table's definition (a dump of it alone restores the table)
	('COMMENT ON TABLE %1$s IS ''commented''', '{S}'),
	-- the view of an ots table: no triggers, rules, defaults, renames
	('CREATE TRIGGER g_trg INSTEAD OF INSERT ON %1$s FOR EACH ROW EXECUTE FUNCTION sg.trg()', '{V}'),
	('CREATE RULE g_rule AS ON INSERT TO %1$s DO INSTEAD NOTHING', '{V}'),
	('ALTER VIEW %1$s ALTER COLUMN k SET DEFAULT ''x''', '{V}'),
	('ALTER VIEW %1$s RENAME TO g_renamed', '{V}'),
	('ALTER TABLE %1$s RENAME COLUMN k TO k2', '{V}'),
	('ALTER VIEW %1$s SET SCHEMA sg_other', '{V}');
CREATE TABLE sg.outer_p (k text COLLATE "C", n bigint, "$cells" ots.cells, "$oldest_ts" bigint) PARTITION BY LIST (k);
ALTER TABLE sg.outer_p OWNER TO regress_ots_guard_owner;

-- as the owner
SET ROLE regress_ots_guard_owner;
SELECT s.statement, t.relation, t.result FROM refused s, pg_temp.try_each(s.statement, s.relations) t
 ORDER BY s.n, t.relation COLLATE "C";
RESET ROLE;
-- as a superuser
SELECT s.statement, t.relation, t.result FROM refused s, pg_temp.try_each(s.statement, s.relations) t
 ORDER BY s.n, t.relation COLLATE "C";
-- the error says why and what to do instead
\set VERBOSITY default
ALTER TABLE sg."g$data" ADD COLUMN extra int NOT NULL DEFAULT 0;
\set VERBOSITY terse
-- pg_restore --clean drops the primary keys of the leaves and the storage
-- before the tables: in a session running a dump's script (pg_dump's
-- preamble) the key stays, and says so; outside one, the drop is refused
-- (PostgreSQL refuses it on a leaf itself)
SET ROLE regress_ots_guard_owner;
SELECT pg_temp.try('ALTER TABLE sg."g$p0" DROP CONSTRAINT "g$p0_pkey"');
BEGIN;
SET LOCAL row_security = off;
SET LOCAL check_function_bodies = off;
SELECT pg_catalog.set_config('search_path', '', true);
ALTER TABLE IF EXISTS ONLY sg."g$p0" DROP CONSTRAINT IF EXISTS "g$p0_pkey";
ALTER TABLE ONLY sg."g$data" DROP CONSTRAINT "g$data_pkey";
COMMIT;
RESET ROLE;
SELECT conrelid::regclass AS relation, conname FROM pg_constraint
 WHERE conrelid IN ('sg."g$data"'::regclass, 'sg."g$p0"'::regclass) AND contype = 'p' ORDER BY 1::text;

--
-- partitions: only as ots makes them
--
SET ROLE regress_ots_guard_owner;
ALTER TABLE sg."g$data" DETACH PARTITION sg."g$p1";
-- a partition with a CHECK constraint, a default, a trigger, a rule, an
-- extra column, an identity column, or of another kind is not attached
CREATE TABLE sg.bad (LIKE sg."g$data") USING ots;
ALTER TABLE sg.bad ADD CONSTRAINT bad_check CHECK (n > 0);
SELECT pg_temp.try_why($$ALTER TABLE sg."g$data" ATTACH PARTITION sg.bad FOR VALUES WITH (MODULUS 2, REMAINDER 1)$$);
DROP TABLE sg.bad;
CREATE TABLE sg.bad (LIKE sg."g$data") USING ots;
ALTER TABLE sg.bad ALTER COLUMN n SET DEFAULT 7;
SELECT pg_temp.try_why($$ALTER TABLE sg."g$data" ATTACH PARTITION sg.bad FOR VALUES WITH (MODULUS 2, REMAINDER 1)$$);
DROP TABLE sg.bad;
CREATE TABLE sg.bad (LIKE sg."g$data") USING ots;
CREATE TRIGGER bad_trg BEFORE INSERT ON sg.bad FOR EACH ROW EXECUTE FUNCTION sg.trg();
SELECT pg_temp.try_why($$ALTER TABLE sg."g$data" ATTACH PARTITION sg.bad FOR VALUES WITH (MODULUS 2, REMAINDER 1)$$);
DROP TABLE sg.bad;
CREATE TABLE sg.bad (LIKE sg."g$data") USING ots;
CREATE RULE bad_rule AS ON INSERT TO sg.bad DO INSTEAD NOTHING;
SELECT pg_temp.try_why($$ALTER TABLE sg."g$data" ATTACH PARTITION sg.bad FOR VALUES WITH (MODULUS 2, REMAINDER 1)$$);
DROP TABLE sg.bad;
CREATE TABLE sg.bad (LIKE sg."g$data", extra int) USING ots;
SELECT pg_temp.try_why($$ALTER TABLE sg."g$data" ATTACH PARTITION sg.bad FOR VALUES WITH (MODULUS 2, REMAINDER 1)$$);
DROP TABLE sg.bad;
CREATE TABLE sg.bad (LIKE sg."g$data") USING ots;
ALTER TABLE sg.bad ALTER COLUMN n ADD GENERATED BY DEFAULT AS IDENTITY;
SELECT pg_temp.try_why($$ALTER TABLE sg."g$data" ATTACH PARTITION sg.bad FOR VALUES WITH (MODULUS 2, REMAINDER 1)$$);
DROP TABLE sg.bad;
CREATE TABLE sg.bad (LIKE sg."g$data") PARTITION BY LIST (k);
SELECT pg_temp.try_why($$ALTER TABLE sg."g$data" ATTACH PARTITION sg.bad FOR VALUES WITH (MODULUS 2, REMAINDER 1)$$);
DROP TABLE sg.bad;
-- nor is a partition created with constraints, defaults or sub-partitions
SELECT pg_temp.try($$CREATE TABLE sg.bad PARTITION OF sg."g$data" (CHECK (n > 0)) FOR VALUES WITH (MODULUS 2, REMAINDER 1)$$);
SELECT pg_temp.try($$CREATE TABLE sg.bad PARTITION OF sg."g$data" (n DEFAULT 7) FOR VALUES WITH (MODULUS 2, REMAINDER 1)$$);
SELECT pg_temp.try($$CREATE TABLE sg.bad PARTITION OF sg."g$data" FOR VALUES WITH (MODULUS 2, REMAINDER 1) PARTITION BY LIST (k)$$);
-- a table shaped as ots makes them is: the detached partition, a copy
-- made with LIKE, or a plain PARTITION OF
ALTER TABLE sg."g$data" ATTACH PARTITION sg."g$p1" FOR VALUES WITH (MODULUS 2, REMAINDER 1);
ALTER TABLE sg."g$data" DETACH PARTITION sg."g$p1";
CREATE TABLE sg.good (LIKE sg."g$data") USING ots;
ALTER TABLE sg."g$data" ATTACH PARTITION sg.good FOR VALUES WITH (MODULUS 2, REMAINDER 1);
ALTER TABLE sg."g$data" DETACH PARTITION sg.good;
DROP TABLE sg.good;
CREATE TABLE sg.good PARTITION OF sg."g$data" FOR VALUES WITH (MODULUS 2, REMAINDER 1) USING ots WITH (fillfactor = 90);
ALTER TABLE sg."g$data" DETACH PARTITION sg.good;
DROP TABLE sg.good;
-- pg_restore names the access method through default_table_access_method
SET default_table_access_method = ots;
CREATE TABLE sg.good PARTITION OF sg."g$data" FOR VALUES WITH (MODULUS 2, REMAINDER 1);
ALTER TABLE sg."g$data" DETACH PARTITION sg.good;
DROP TABLE sg.good;
RESET default_table_access_method;
-- a leaf off the ots access method would escape its write point: refused
CREATE TABLE sg.bad (LIKE sg."g$data") USING heap;
SELECT pg_temp.try_why($$ALTER TABLE sg."g$data" ATTACH PARTITION sg.bad FOR VALUES WITH (MODULUS 2, REMAINDER 1)$$);
DROP TABLE sg.bad;
SELECT pg_temp.try_why($$CREATE TABLE sg.bad PARTITION OF sg."g$data" FOR VALUES WITH (MODULUS 2, REMAINDER 1)$$);
SELECT pg_temp.try_why($$CREATE TABLE sg.bad PARTITION OF sg."g$data" FOR VALUES WITH (MODULUS 2, REMAINDER 1) USING heap$$);
-- (also from inside CREATE SCHEMA, whose statements fire no event trigger
-- of their own; the owner may not create schemas, a superuser tries)
RESET ROLE;
SELECT pg_temp.try_why($$CREATE SCHEMA sg_evil CREATE TABLE bad PARTITION OF sg."g$data" FOR VALUES WITH (MODULUS 2, REMAINDER 1) USING heap$$);
-- a leaf made on ots inside CREATE SCHEMA may not get a trigger from it either
SELECT pg_temp.try_why($$CREATE SCHEMA sg_evil CREATE TABLE bad PARTITION OF sg."g$data" FOR VALUES WITH (MODULUS 2, REMAINDER 1) USING ots
	CREATE TRIGGER bad_trg BEFORE INSERT ON bad FOR EACH ROW EXECUTE FUNCTION sg.trg()$$);
SELECT count(*) AS evil_schemas FROM pg_namespace WHERE nspname = 'sg_evil';
SET ROLE regress_ots_guard_owner;
ALTER TABLE sg."g$data" ATTACH PARTITION sg."g$p1" FOR VALUES WITH (MODULUS 2, REMAINDER 1);
RESET ROLE;

--
-- what cannot hurt is allowed, on the storage and on a partition
--
CREATE TEMP TABLE allowed (n serial, statement text, relations text[]);
GRANT SELECT ON allowed TO PUBLIC;
INSERT INTO allowed (statement, relations) VALUES
	('ALTER TABLE %1$s OWNER TO regress_ots_guard_owner', '{S,L,V}'),
	('ALTER TABLE %1$s ENABLE ROW LEVEL SECURITY', '{S,L}'),
	('ALTER TABLE %1$s FORCE ROW LEVEL SECURITY', '{S,L}'),
	('ALTER TABLE %1$s NO FORCE ROW LEVEL SECURITY', '{S,L}'),
	('ALTER TABLE %1$s DISABLE ROW LEVEL SECURITY', '{S,L}'),
	('ALTER TABLE %1$s SET (fillfactor = 80)', '{L}'),
	('ALTER TABLE %1$s RESET (fillfactor)', '{L}'),
	('ALTER VIEW %1$s SET (security_barrier = true)', '{V}'),
	('ALTER VIEW %1$s RESET (security_barrier)', '{V}'),
	('ALTER TABLE %1$s ALTER COLUMN k SET STATISTICS 200', '{S,L}'),
	('ALTER TABLE %1$s ALTER COLUMN k SET (n_distinct = 100)', '{S,L}'),
	('ALTER TABLE %1$s ALTER COLUMN k RESET (n_distinct)', '{S,L}'),
	('ALTER TABLE %1$s ALTER COLUMN "$cells" SET STORAGE EXTENDED', '{S,L}'),
	('ALTER TABLE %1$s ALTER COLUMN "$cells" SET COMPRESSION lz4', '{S,L}'),
	('ALTER TABLE %1$s REPLICA IDENTITY FULL', '{L}'),
	('ALTER TABLE %1$s REPLICA IDENTITY DEFAULT', '{L}'),
	('ALTER TABLE %1$s CLUSTER ON %2$s', '{L}'),
	('ALTER TABLE %1$s SET WITHOUT CLUSTER', '{L}'),
	('ALTER TABLE %1$s SET TABLESPACE pg_default', '{L}'),
	('ALTER TABLE %1$s SET LOGGED', '{L}'),
	('ALTER TABLE %1$s DISABLE TRIGGER ALL', '{S,L}'),
	('ALTER TABLE %1$s ENABLE TRIGGER ALL', '{S,L}'),
	('CREATE INDEX g_extra ON %1$s ("$oldest_ts")', '{S}'),
	('DROP INDEX sg.g_extra', '{S}'),
	('CREATE STATISTICS sg.g_stat ON k, n FROM %1$s', '{L}'),
	('DROP STATISTICS sg.g_stat', '{L}'),
	('CREATE POLICY g_pol ON %1$s USING (true)', '{S,L}'),
	('DROP POLICY g_pol ON %1$s', '{S,L}'),
	('COMMENT ON TABLE %1$s IS ''commented''', '{L}'),
	('GRANT SELECT ON %1$s TO PUBLIC', '{S,L,V}'),
	('REVOKE SELECT ON %1$s FROM PUBLIC', '{S,L,V}'),
	-- a partition may be renamed or moved: ots finds partitions through the storage
	('ALTER TABLE %1$s RENAME TO "g$p0_renamed"', '{L}'),
	('ALTER TABLE sg."g$p0_renamed" RENAME TO "g$p0"', '{L}'),
	('ALTER TABLE %1$s DETACH PARTITION sg."g$p1"', '{S}'),
	('ALTER TABLE %1$s ATTACH PARTITION sg."g$p1" FOR VALUES WITH (MODULUS 2, REMAINDER 1)', '{S}');
SET ROLE regress_ots_guard_owner;
SELECT s.statement, t.relation, t.result FROM allowed s, pg_temp.try_each(s.statement, s.relations) t
 ORDER BY s.n, t.relation COLLATE "C";
RESET ROLE;
SELECT s.statement, t.relation, t.result FROM allowed s, pg_temp.try_each(s.statement, s.relations) t
 ORDER BY s.n, t.relation COLLATE "C";

-- OWNER TO: the storage takes its partitions, view and sequence along (a
-- partitioned table alone would keep the old owner on its partitions); a
-- partition, the view or the sequence alone may only be given the
-- storage's owner (as pg_restore does), never another one
CREATE ROLE regress_ots_guard_other;
GRANT USAGE ON SCHEMA sg TO regress_ots_guard_other;
SET ROLE regress_ots_guard_owner;
SELECT ots.create_table('sg.o', 'k string, id integer auto_increment', partitions => 2);
RESET ROLE;
SELECT pg_temp.try('ALTER TABLE sg."o$p0" OWNER TO regress_ots_guard_other');
SELECT pg_temp.try('ALTER VIEW sg.o OWNER TO regress_ots_guard_other');
SELECT pg_temp.try('ALTER SEQUENCE sg."o$seq" OWNER TO regress_ots_guard_other');
SELECT pg_temp.try('ALTER TABLE sg."o$seq" OWNER TO regress_ots_guard_other');
SELECT pg_temp.try('ALTER TABLE sg."o$p1" OWNER TO regress_ots_guard_owner');
ALTER TABLE sg."o$data" OWNER TO regress_ots_guard_other;
SELECT c.relname, pg_get_userbyid(c.relowner) AS owner FROM pg_class c
 WHERE c.relnamespace = 'sg'::regnamespace AND c.relname IN ('o', 'o$data', 'o$p0', 'o$p1', 'o$seq')
 ORDER BY c.relname COLLATE "C";
-- parts with another owner (the guard off) make the table damaged
ALTER EVENT TRIGGER ots_storage_guard DISABLE;
ALTER TABLE sg."o$p1" OWNER TO regress_ots_guard_owner;
ALTER EVENT TRIGGER ots_storage_guard ENABLE;
SELECT pg_temp.try($$SELECT ots.get_row('sg.o', '{"k": "a", "id": 1}')$$);
ALTER TABLE sg."o$data" OWNER TO regress_ots_guard_other;
SET ROLE regress_ots_guard_other;
SELECT count(*) AS written FROM ots.put_row('sg.o', '{"k": "a", "id": {"$auto_increment": true}}', '{"v": 1}');
SELECT ots.delete_table('sg.o');
RESET ROLE;
REVOKE USAGE ON SCHEMA sg FROM regress_ots_guard_other;
DROP ROLE regress_ots_guard_other;

-- ots's own DDL still works: the TTL index comes and goes with update_table
SET ROLE regress_ots_guard_owner;
SELECT ots.update_table('sg.g', time_to_live => 86400);
SELECT count(*) AS ttl_index FROM pg_class WHERE relname = 'g$ttl';
SELECT ots.update_table('sg.g', time_to_live => -1);
SELECT count(*) AS ttl_index FROM pg_class WHERE relname = 'g$ttl';
-- and the table works as before, with its storage unchanged
SELECT count(*) AS written FROM ots.put_row('sg.g', '{"k": "b", "n": 2}', '{"v": 2}');
SELECT k, n, attributes FROM sg.g ORDER BY k;
SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull, a.atthasdef
  FROM pg_attribute a WHERE a.attrelid = 'sg."g$p0"'::regclass AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY a.attnum;
SELECT count(*) AS triggers FROM pg_trigger WHERE tgrelid IN ('sg."g$data"'::regclass, 'sg."g$p0"'::regclass);
SELECT conrelid::regclass, contype FROM pg_constraint WHERE conrelid IN ('sg."g$data"'::regclass, 'sg."g$p0"'::regclass)
 ORDER BY conrelid::regclass::text, 2;

-- a table that is not an ots table is not guarded, even with a similar name
CREATE TABLE sg."plain$data" (x int);
ALTER TABLE sg."plain$data" ADD COLUMN y int DEFAULT 1;
CREATE TRIGGER plain_trg BEFORE INSERT ON sg."plain$data" FOR EACH ROW EXECUTE FUNCTION sg.trg();
ALTER TABLE sg."plain$data" RENAME TO "plain2$data";
SELECT ots.delete_table('sg.g');
RESET ROLE;

--
-- clean up
--
DROP SCHEMA sg CASCADE;
DROP SCHEMA sg_other CASCADE;
DROP ROLE regress_ots_guard_owner;
