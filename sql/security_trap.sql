-- security_trap: code ots runs as another role (a table's owner) cannot be
-- made to run an attacker's operators or functions.  An unprivileged LOGIN
-- role with DML on tables a superuser owns puts a schema of its own first
-- on its search_path (before pg_catalog), holding every comparison operator
-- on text, bigint and bytea, and unnest.  Each trap records current_user
-- and, when it runs as anyone else, tries to make the attacker superuser.
-- The attacker then drives every row path; no trap may run as another role.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
RESET client_min_messages;
\set VERBOSITY terse

CREATE ROLE regress_ots_trap_atk LOGIN;
CREATE SCHEMA regress_ots_trap AUTHORIZATION regress_ots_trap_atk;

-- the tables, owned by the (superuser) regress role: one key of each type
-- (alone: a one-column row comparison takes any operator, several columns
-- need btree ones), all three, a hash-prefixed one, an auto-increment one
SET client_min_messages = warning;
SELECT ots.create_table('trap_s', 'k string', partitions => 2);
SELECT ots.create_table('trap_i', 'k integer', partitions => 2);
SELECT ots.create_table('trap_b', 'k binary', partitions => 2);
SELECT ots.create_table('trap_k', 'ks string, ki integer, kb binary', max_versions => 3, partitions => 2);
SELECT ots.create_table('trap_h', 'ks string, ki integer', hash_prefix_length => 2, partitions => 2);
SELECT ots.create_table('trap_a', 'ks string, ki integer auto_increment', partitions => 2);
RESET client_min_messages;
GRANT SELECT, INSERT, UPDATE, DELETE ON "trap_s$data", "trap_i$data", "trap_b$data", "trap_k$data",
	"trap_h$data", "trap_a$data" TO regress_ots_trap_atk;
GRANT SELECT ON trap_s, trap_i, trap_b, trap_k, trap_h, trap_a TO regress_ots_trap_atk;

-- the attacker's traps, in its own schema
SET ROLE regress_ots_trap_atk;
CREATE TABLE regress_ots_trap.log (who name, trap text);
-- (writable by whichever role a trap runs as)
GRANT INSERT ON regress_ots_trap.log TO PUBLIC;
GRANT USAGE ON SCHEMA regress_ots_trap TO PUBLIC;
CREATE FUNCTION regress_ots_trap.sprung(trap text) RETURNS boolean LANGUAGE plpgsql
SET search_path = pg_catalog AS $$
BEGIN
	INSERT INTO regress_ots_trap.log VALUES (current_user, trap);
	IF current_user <> 'regress_ots_trap_atk' THEN
		BEGIN
			EXECUTE 'ALTER ROLE regress_ots_trap_atk SUPERUSER';
		EXCEPTION WHEN OTHERS THEN
			NULL;
		END;
	END IF;
	RETURN true;
END
$$;
GRANT EXECUTE ON FUNCTION regress_ots_trap.sprung(text) TO PUBLIC;
DO $$
DECLARE
	ops text[] := '{=,<>,<,<=,>,>=}';
	op text;
	typ text;
	n integer := 0;
BEGIN
	FOREACH typ IN ARRAY '{text,bigint,bytea}'::text[] LOOP
		FOREACH op IN ARRAY ops LOOP
			n := n + 1;
			EXECUTE format('CREATE FUNCTION regress_ots_trap.op%s(a %s, b %s) RETURNS boolean'
						   ' LANGUAGE plpgsql AS $f$ BEGIN PERFORM regress_ots_trap.sprung(%L);'
						   ' RETURN a OPERATOR(pg_catalog.%s) b; END $f$',
						   n, typ, typ, format('%s(%s)', op, typ), op);
			EXECUTE format('CREATE OPERATOR regress_ots_trap.%s (LEFTARG = %s, RIGHTARG = %s,'
						   ' FUNCTION = regress_ots_trap.op%s)', op, typ, typ, n);
		END LOOP;
		EXECUTE format('CREATE FUNCTION regress_ots_trap.unnest(a %s[]) RETURNS SETOF %s'
					   ' LANGUAGE plpgsql AS $f$ BEGIN PERFORM regress_ots_trap.sprung(%L);'
					   ' RETURN QUERY SELECT pg_catalog.unnest(a); END $f$',
					   typ, typ, format('unnest(%s[])', typ));
	END LOOP;
END
$$;
CREATE FUNCTION regress_ots_trap.unnest(a anyarray) RETURNS SETOF anyelement LANGUAGE plpgsql AS $$
BEGIN
	PERFORM regress_ots_trap.sprung('unnest(anyarray)');
	RETURN QUERY SELECT pg_catalog.unnest(a);
END
$$;

-- the traps are armed: the attacker's own statements spring them (as itself)
SET search_path = regress_ots_trap, pg_catalog, public;
SELECT 'a'::text = 'a'::text AS "=", 1::bigint < 2::bigint AS "<", '\x01'::bytea >= '\x01'::bytea AS ">=";
SELECT * FROM unnest('{x}'::text[]);
SELECT * FROM unnest('{1}'::bigint[]);
SELECT * FROM unnest('{t}'::boolean[]);
RESET search_path;
SELECT who, trap FROM regress_ots_trap.log ORDER BY trap COLLATE "C";
TRUNCATE regress_ots_trap.log;

-- every row path, with the traps first on the path
SET search_path = regress_ots_trap, pg_catalog, public;
-- put_row: new rows, an existing row, with a condition
SELECT consumed FROM ots.put_row('trap_k', '{"ks": "a", "ki": 1, "kb": {"$binary": "AQ=="}}', '{"v": 1}');
SELECT consumed FROM ots.put_row('trap_k', '{"ks": "b", "ki": 2, "kb": {"$binary": "Ag=="}}', '{"v": 2}');
SELECT consumed FROM ots.put_row('trap_k', '{"ks": "a", "ki": 1, "kb": {"$binary": "AQ=="}}', '{"v": 3}',
	condition => 'EXPECT_EXIST', column_condition => '{"column": "v", "comparator": "=", "value": 1}');
SELECT consumed FROM ots.put_row('trap_h', '{"ks": "a", "ki": 1}', '{"v": 1}');
SELECT consumed FROM ots.put_row('trap_h', '{"ks": "b", "ki": 2}', '{"v": 2}');
SELECT primary_key FROM ots.put_row('trap_a', '{"ks": "a", "ki": {"$auto_increment": true}}', '{"v": 1}',
	return_type => 'RT_PK');
-- update_row, delete_row
SELECT attributes FROM ots.update_row('trap_k', '{"ks": "a", "ki": 1, "kb": {"$binary": "AQ=="}}',
	put => '{"w": 1}', increment => '{"n": 1}', return_type => 'RT_AFTER_MODIFY', return_columns => '{n}');
SELECT consumed FROM ots.update_row('trap_h', '{"ks": "a", "ki": 1}', put => '{"w": 1}');
SELECT consumed FROM ots.update_row('trap_a', '{"ks": "a", "ki": 1}', put => '{"w": 1}');
SELECT consumed FROM ots.delete_row('trap_k', '{"ks": "b", "ki": 2, "kb": {"$binary": "Ag=="}}');
SELECT consumed FROM ots.delete_row('trap_h', '{"ks": "b", "ki": 2}', condition => 'EXPECT_EXIST');
-- get_row
SELECT attributes FROM ots.get_row('trap_k', '{"ks": "a", "ki": 1, "kb": {"$binary": "AQ=="}}');
SELECT attributes FROM ots.get_row('trap_h', '{"ks": "a", "ki": 1}',
	filter => '{"column": "v", "comparator": ">=", "value": 1}');
SELECT attributes FROM ots.get_row('trap_a', '{"ks": "a", "ki": 1}');
-- get_range and get_range_rows: whole tables, bounds on every key column,
-- one partition key (pruned to its leaf), backwards
SELECT rows, next_start_primary_key FROM ots.get_range('trap_k',
	'{"ks": {"$inf": "min"}, "ki": {"$inf": "min"}, "kb": {"$inf": "min"}}',
	'{"ks": {"$inf": "max"}, "ki": {"$inf": "max"}, "kb": {"$inf": "max"}}');
SELECT jsonb_array_length(rows) AS n FROM ots.get_range('trap_k',
	'{"ks": "a", "ki": 0, "kb": {"$binary": "AA=="}}', '{"ks": "a", "ki": 9, "kb": {"$binary": "/w=="}}');
SELECT jsonb_array_length(rows) AS n FROM ots.get_range('trap_k',
	'{"ks": "z", "ki": 9, "kb": {"$binary": "/w=="}}', '{"ks": "a", "ki": 0, "kb": {"$binary": "AA=="}}',
	direction => 'BACKWARD', "limit" => 1);
SELECT jsonb_array_length(rows) AS n FROM ots.get_range('trap_h',
	'{"ks": "a", "ki": {"$inf": "min"}}', '{"ks": "a", "ki": {"$inf": "max"}}');
SELECT primary_key FROM ots.get_range_rows('trap_k',
	'{"ks": "a", "ki": 0, "kb": {"$inf": "min"}}', '{"ks": "b", "ki": {"$inf": "max"}, "kb": {"$inf": "max"}}');
SELECT primary_key FROM ots.get_range_rows('trap_h',
	'{"ks": {"$inf": "min"}, "ki": {"$inf": "min"}}', '{"ks": {"$inf": "max"}, "ki": {"$inf": "max"}}');
SELECT primary_key FROM ots.get_range_rows('trap_a',
	'{"ks": {"$inf": "max"}, "ki": {"$inf": "max"}}', '{"ks": {"$inf": "min"}, "ki": {"$inf": "min"}}',
	direction => 'BACKWARD', "limit" => 5);
-- batch_get_row
SELECT table_name, index, is_ok, primary_key FROM ots.batch_get_row('[
	{"table_name": "trap_k", "primary_keys": [{"ks": "a", "ki": 1, "kb": {"$binary": "AQ=="}}]},
	{"table_name": "trap_h", "primary_keys": [{"ks": "a", "ki": 1}, {"ks": "c", "ki": 3}]},
	{"table_name": "trap_a", "primary_keys": [{"ks": "a", "ki": 1}]}]')
 ORDER BY table_name COLLATE "C", index;
-- batch_write_row, the bulk way: PUT of new keys (straight into the leaves)
SELECT table_name, index, is_ok FROM ots.batch_write_row('[
	{"table_name": "trap_k", "rows": [
		{"type": "PUT", "primary_key": {"ks": "p", "ki": 1, "kb": {"$binary": "AQ=="}}, "attributes": {"v": 1}},
		{"type": "PUT", "primary_key": {"ks": "q", "ki": 2, "kb": {"$binary": "Ag=="}}, "attributes": {"v": 2}}]},
	{"table_name": "trap_h", "rows": [
		{"type": "PUT", "primary_key": {"ks": "p", "ki": 1}, "attributes": {"v": 1}},
		{"type": "PUT", "primary_key": {"ks": "q", "ki": 2}, "attributes": {"v": 2}}]}]')
 ORDER BY table_name COLLATE "C", index;
-- ... a PUT that meets an existing key (then key by key, as put_row)
SELECT table_name, index, is_ok FROM ots.batch_write_row('[
	{"table_name": "trap_k", "rows": [
		{"type": "PUT", "primary_key": {"ks": "p", "ki": 1, "kb": {"$binary": "AQ=="}}, "attributes": {"v": 11}},
		{"type": "PUT", "primary_key": {"ks": "r", "ki": 3, "kb": {"$binary": "Aw=="}}, "attributes": {"v": 3}}]},
	{"table_name": "trap_h", "rows": [
		{"type": "PUT", "primary_key": {"ks": "p", "ki": 1}, "attributes": {"v": 11}}]}]')
 ORDER BY table_name COLLATE "C", index;
-- ... DELETE (key by key, as delete_row)
SELECT table_name, index, is_ok FROM ots.batch_write_row('[
	{"table_name": "trap_k", "rows": [
		{"type": "DELETE", "primary_key": {"ks": "q", "ki": 2, "kb": {"$binary": "Ag=="}}},
		{"type": "DELETE", "primary_key": {"ks": "x", "ki": 9, "kb": {"$binary": "CQ=="}}}]},
	{"table_name": "trap_h", "rows": [
		{"type": "DELETE", "primary_key": {"ks": "q", "ki": 2}}]}]')
 ORDER BY table_name COLLATE "C", index;
-- ... the per-row way (conditions, UPDATE, auto-increment) and atomic batches
SELECT table_name, index, is_ok FROM ots.batch_write_row('[
	{"table_name": "trap_k", "rows": [
		{"type": "UPDATE", "primary_key": {"ks": "p", "ki": 1, "kb": {"$binary": "AQ=="}}, "put": {"u": 1}},
		{"type": "DELETE", "primary_key": {"ks": "r", "ki": 3, "kb": {"$binary": "Aw=="}}, "condition": "EXPECT_EXIST"}]},
	{"table_name": "trap_a", "rows": [
		{"type": "PUT", "primary_key": {"ks": "b", "ki": {"$auto_increment": true}}, "attributes": {"v": 2}}]}]')
 ORDER BY table_name COLLATE "C", index;
SELECT table_name, index, is_ok FROM ots.batch_write_row('[
	{"table_name": "trap_h", "rows": [
		{"type": "PUT", "primary_key": {"ks": "s", "ki": 1}, "attributes": {"v": 1}},
		{"type": "DELETE", "primary_key": {"ks": "s", "ki": 2}}]}]', is_atomic => true)
 ORDER BY table_name COLLATE "C", index;
-- one key column of each type: every path
SELECT table_name, index, is_ok FROM ots.batch_write_row('[
	{"table_name": "trap_s", "rows": [{"type": "PUT", "primary_key": {"k": "a"}, "attributes": {"v": 1}},
									  {"type": "PUT", "primary_key": {"k": "b"}, "attributes": {"v": 2}}]},
	{"table_name": "trap_i", "rows": [{"type": "PUT", "primary_key": {"k": 1}, "attributes": {"v": 1}},
									  {"type": "PUT", "primary_key": {"k": 2}, "attributes": {"v": 2}}]},
	{"table_name": "trap_b", "rows": [{"type": "PUT", "primary_key": {"k": {"$binary": "AQ=="}}, "attributes": {"v": 1}},
									  {"type": "PUT", "primary_key": {"k": {"$binary": "Ag=="}}, "attributes": {"v": 2}}]}]')
 ORDER BY table_name COLLATE "C", index;
SELECT table_name, index, is_ok FROM ots.batch_write_row('[
	{"table_name": "trap_s", "rows": [{"type": "PUT", "primary_key": {"k": "a"}, "attributes": {"v": 11}},
									  {"type": "PUT", "primary_key": {"k": "c"}, "attributes": {"v": 3}}]},
	{"table_name": "trap_i", "rows": [{"type": "PUT", "primary_key": {"k": 1}, "attributes": {"v": 11}},
									  {"type": "PUT", "primary_key": {"k": 3}, "attributes": {"v": 3}}]},
	{"table_name": "trap_b", "rows": [{"type": "PUT", "primary_key": {"k": {"$binary": "AQ=="}}, "attributes": {"v": 11}},
									  {"type": "PUT", "primary_key": {"k": {"$binary": "Aw=="}}, "attributes": {"v": 3}}]}]')
 ORDER BY table_name COLLATE "C", index;
SELECT table_name, index, is_ok FROM ots.batch_write_row('[
	{"table_name": "trap_s", "rows": [{"type": "DELETE", "primary_key": {"k": "b"}}]},
	{"table_name": "trap_i", "rows": [{"type": "DELETE", "primary_key": {"k": 2}}]},
	{"table_name": "trap_b", "rows": [{"type": "DELETE", "primary_key": {"k": {"$binary": "Ag=="}}}]}]')
 ORDER BY table_name COLLATE "C", index;
SELECT consumed FROM ots.put_row('trap_s', '{"k": "d"}', '{"v": 4}');
SELECT consumed FROM ots.update_row('trap_i', '{"k": 4}', put => '{"v": 4}');
SELECT consumed FROM ots.delete_row('trap_b', '{"k": {"$binary": "Aw=="}}');
SELECT attributes FROM ots.get_row('trap_s', '{"k": "a"}');
SELECT rows FROM ots.get_range('trap_s', '{"k": "a"}', '{"k": "c"}');
SELECT rows FROM ots.get_range('trap_i', '{"k": 9}', '{"k": 0}', direction => 'BACKWARD');
SELECT primary_key, attributes FROM ots.get_range_rows('trap_b', '{"k": {"$binary": "AA=="}}', '{"k": {"$inf": "max"}}');
SELECT table_name, index, is_ok, attributes FROM ots.batch_get_row('[
	{"table_name": "trap_s", "primary_keys": [{"k": "a"}, {"k": "b"}]},
	{"table_name": "trap_i", "primary_keys": [{"k": 1}]}]')
 ORDER BY table_name COLLATE "C", index;
-- the views
SELECT k, attributes FROM trap_s ORDER BY k;
SELECT k, attributes FROM trap_i ORDER BY k;
SELECT k, attributes FROM trap_b ORDER BY k;
SELECT ks, ki, kb, attributes FROM trap_k ORDER BY ks, ki, kb;
SELECT ks, ki, attributes FROM trap_h ORDER BY ks, ki;
SELECT ks, ki, attributes FROM trap_a ORDER BY ks, ki;
-- purge: only the owner may purge; the attacker owns nothing to purge
CALL ots.purge('trap_k');
CALL ots.purge();
RESET search_path;
RESET ROLE;

-- a superuser's purge with the traps first on its path, with work for both
-- passes and both statements: a row with two versions of a column (the
-- trim pass rewrites it), a row whose only cell is from 2016 (the TTL pass
-- rewrites it: its row marker, the time of its last write, keeps it for a
-- TTL) and a row whose cell and row marker are from 2016 (deleted)
SET ots.purge_schedule = '0 0 31 2 *';	-- no pg_cron run during the test
SET client_min_messages = warning;
SELECT ots.update_table('trap_k', max_version_offset => 9223372036854);
RESET client_min_messages;
SELECT consumed FROM ots.update_row('trap_k', '{"ks": "t", "ki": 1, "kb": {"$binary": "AQ=="}}', put => '{"w": 1}');
SELECT consumed FROM ots.update_row('trap_k', '{"ks": "t", "ki": 1, "kb": {"$binary": "AQ=="}}', put => '{"w": 2}');
SELECT consumed FROM ots.put_row('trap_k', '{"ks": "t", "ki": 2, "kb": {"$binary": "AQ=="}}',
	'{"w": {"value": 0, "ts": 1466762754000}}');
INSERT INTO "trap_k$data" (ks, ki, kb, "$cells", "$oldest_ts")
SELECT 't', 3, '\x01', c, ots.cells_oldest_ts(c)
  FROM (SELECT '{"row_ts": 1466762754000, "cells": {"w": [{"ts": 1466762754000, "value": 0}]}}'::ots.cells c) s;
SET search_path = regress_ots_trap, pg_catalog, public;
SET client_min_messages = warning;
SELECT ots.update_table('trap_k', max_versions => 1, time_to_live => 86400);
RESET client_min_messages;
CALL ots.purge('trap_k', batch_size => 1);
RESET search_path;
RESET ots.purge_schedule;
SELECT cells_purged >= 2 AS cells_purged, rows_purged, purges FROM ots.purge_stats WHERE table_name = 'trap_k';
SELECT ks, ki, ots.cells_count("$cells") AS cells FROM "trap_k$data" WHERE ks = 't' ORDER BY ki;

-- no trap ran at all (the attacker's own calls name no operator), none as
-- another role, and the attacker is not superuser
SELECT who, trap FROM regress_ots_trap.log ORDER BY trap COLLATE "C";
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_ots_trap_atk';

SET client_min_messages = warning;
SELECT ots.delete_table('trap_s');
SELECT ots.delete_table('trap_i');
SELECT ots.delete_table('trap_b');
SELECT ots.delete_table('trap_k');
SELECT ots.delete_table('trap_h');
SELECT ots.delete_table('trap_a');
DROP SCHEMA regress_ots_trap CASCADE;
RESET client_min_messages;
DROP ROLE regress_ots_trap_atk;
