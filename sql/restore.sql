-- restore: what a restore relies on, and what no one else can use.
--  1. A row a dump's script loads (a session set up as pg_dump's preamble
--     sets it: row_security off, an empty search_path, check_function_bodies
--     off) is a restored row, no new change: no index entry, no stream
--     record (the dump brings them) -- only when both the role writing it
--     and the session's login role may act as the table's owner, in a
--     statement of the script itself (pg_restore --role=owner too).  An
--     ordinary role with INSERT on the storage, directly, through the
--     owner's SECURITY DEFINER function, through its own SECURITY DEFINER
--     function the owner calls, or as the role a member of the owner SET
--     ROLE to, writes ordinary changes.  (test/dump restores every form.)
--  2. The storage's comment carries the table's definition, which ots
--     writes; a restore's COMMENT on storage not registered yet registers
--     the table: only its owner's, only real ots storage, never as an
--     index of another role's table or with another table's stream id.
--  3. A DROP of a leaf in such a session takes its rows' index entries
--     with it, or is refused (a table with a stream), as in any session;
--     only a leaf whose primary key the session dropped first, as
--     pg_restore --clean does right before it drops the leaf and its
--     table, goes without.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

CREATE FUNCTION pg_temp.try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

CREATE ROLE regress_ots_rs_owner LOGIN;
CREATE ROLE regress_ots_rs_writer LOGIN;
CREATE ROLE regress_ots_rs_other LOGIN;
-- logs in as itself, then SET ROLE to the owner (pg_restore --role) or the writer
CREATE ROLE regress_ots_rs_member LOGIN IN ROLE regress_ots_rs_owner, regress_ots_rs_writer;
CREATE SCHEMA rs AUTHORIZATION regress_ots_rs_owner;
GRANT USAGE, CREATE ON SCHEMA rs TO regress_ots_rs_writer, regress_ots_rs_other;

SET ROLE regress_ots_rs_owner;
SET ots.index_build_worker = off;
SELECT ots.create_table('rs.t', 'k string', partitions => 2, defined_columns => 'v integer',
						stream_enabled => true);
SELECT ots.create_index('rs.t', 't_v', '{v}');
GRANT INSERT ON rs."t$data" TO regress_ots_rs_writer;
-- the owner's function that writes the storage, for anyone (every name
-- qualified, and no search_path of its own: it runs with its caller's)
CREATE FUNCTION rs.owner_insert(k text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	INSERT INTO rs."t$data" (k, "$cells", "$oldest_ts")
	VALUES (k, '{"row_ts": 1000, "cells": {"v": [{"ts": 1000, "value": 1}]}}', 1000);
END
$$;
GRANT EXECUTE ON FUNCTION rs.owner_insert(text) TO regress_ots_rs_writer;
RESET ROLE;

-- how many entries the index has, and stream records the table, of each key
CREATE FUNCTION pg_temp.seen() RETURNS TABLE (k text, stored boolean, indexed boolean, records bigint)
	LANGUAGE sql AS $$
	WITH recs AS (
		SELECT r
		  FROM ots.list_stream('rs.t') s, generate_series(0, 1) g,
			   LATERAL jsonb_array_elements(ots.get_stream_record(ots.get_shard_iterator(s.stream_id, g::text), 1000)
											-> 'stream_records') r)
	SELECT x.k, EXISTS (SELECT FROM rs.t WHERE t.k = x.k),
		   EXISTS (SELECT FROM rs."t_v$data" i WHERE i.k = x.k),
		   (SELECT count(*) FROM recs WHERE recs.r -> 'primary_key' ->> 'k' = x.k)
	  FROM unnest(ARRAY['normal', 'writer', 'writer_copy', 'definer', 'owner', 'owner_copy', 'owner_rls_on',
						'writer_definer', 'owner_definer', 'member_as_writer', 'member_as_owner']) x(k)
	 ORDER BY x.k
$$;

-- a row as a dump's script loads it: the preamble, then INSERT or COPY
CREATE FUNCTION pg_temp.dump_insert(k text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_catalog.set_config('row_security', 'off', true);
	PERFORM pg_catalog.set_config('check_function_bodies', 'off', true);
	PERFORM pg_catalog.set_config('search_path', '', true);
	EXECUTE pg_catalog.format('INSERT INTO rs."t$data" (k, "$cells", "$oldest_ts") VALUES (%L, %L, 1000)', k,
							  '{"row_ts": 1000, "cells": {"v": [{"ts": 1000, "value": 1}]}}');
END
$$;
GRANT EXECUTE ON FUNCTION pg_temp.dump_insert(text) TO PUBLIC;

-- 1. ordinary changes: a plain INSERT; the writer (INSERT on the storage,
-- not its owner; logged in as itself) with the preamble, by INSERT, by COPY
-- and through the owner's SECURITY DEFINER function
SET SESSION AUTHORIZATION regress_ots_rs_writer;
INSERT INTO rs."t$data" (k, "$cells", "$oldest_ts")
	VALUES ('normal', '{"row_ts": 1000, "cells": {"v": [{"ts": 1000, "value": 1}]}}', 1000);
BEGIN;
SELECT pg_temp.dump_insert('writer');
COPY rs."t$data" (k, "$cells", "$oldest_ts") FROM stdin;
writer_copy	{"row_ts": 1000, "cells": {"v": [{"ts": 1000, "value": 1}]}}	1000
\.
SELECT rs.owner_insert('definer');
COMMIT;
RESET SESSION AUTHORIZATION;
-- 2. restored rows: the owner (logged in as itself) loading with the preamble
SET SESSION AUTHORIZATION regress_ots_rs_owner;
BEGIN;
SELECT pg_temp.dump_insert('owner');
COPY rs."t$data" (k, "$cells", "$oldest_ts") FROM stdin;
owner_copy	{"row_ts": 1000, "cells": {"v": [{"ts": 1000, "value": 1}]}}	1000
\.
COMMIT;
-- without the whole preamble (row_security on), the owner's row is a change
BEGIN;
SET LOCAL check_function_bodies = off;
SELECT pg_catalog.set_config('search_path', '', true);
INSERT INTO rs."t$data" (k, "$cells", "$oldest_ts")
	VALUES ('owner_rls_on', '{"row_ts": 1000, "cells": {"v": [{"ts": 1000, "value": 1}]}}', 1000);
COMMIT;
RESET SESSION AUTHORIZATION;
-- the writer's SECURITY DEFINER function that sets the preamble itself (its
-- SET clauses), called by the owner: its rows are the writer's, ordinary
-- changes, held to the defined types
SET SESSION AUTHORIZATION regress_ots_rs_writer;
CREATE FUNCTION rs.writer_helper(k text, v jsonb) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
	SET row_security = off SET check_function_bodies = off SET search_path = '' AS $$
BEGIN
	INSERT INTO rs."t$data" (k, "$cells", "$oldest_ts")
	VALUES (k, pg_catalog.jsonb_build_object('row_ts', 1000, 'cells',
			pg_catalog.jsonb_build_object('v', pg_catalog.jsonb_build_array(
				pg_catalog.jsonb_build_object('ts', 1000, 'value', v))))::pg_catalog.text::ots.cells, 1000);
END
$$;
GRANT EXECUTE ON FUNCTION rs.writer_helper(text, jsonb) TO regress_ots_rs_owner;
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION regress_ots_rs_owner;
SELECT pg_temp.try($$SELECT rs.writer_helper('writer_wrong_type', '"not an integer"')$$);
SELECT rs.writer_helper('writer_definer', '1');
-- the owner's own SECURITY DEFINER function, in a session with the
-- preamble: a function, not a statement of the script
BEGIN;
SELECT pg_catalog.set_config('row_security', 'off', true), pg_catalog.set_config('check_function_bodies', 'off', true),
	   pg_catalog.set_config('search_path', '', true);
SELECT rs.owner_insert('owner_definer');
COMMIT;
RESET SESSION AUTHORIZATION;
-- a member of the owner's role logged in as itself: as the owner (SET ROLE,
-- as pg_restore --role=owner runs) its rows are restored; as the writer,
-- whom it may also become, they are the writer's changes
SET SESSION AUTHORIZATION regress_ots_rs_member;
BEGIN;
SET LOCAL ROLE regress_ots_rs_writer;
SELECT pg_temp.dump_insert('member_as_writer');
COMMIT;
BEGIN;
SET LOCAL ROLE regress_ots_rs_owner;
SELECT pg_temp.dump_insert('member_as_owner');
COMMIT;
RESET SESSION AUTHORIZATION;
SELECT * FROM pg_temp.seen();

-- 3. the storage's comment carries the definition, and is ots's to write
SELECT split_part(obj_description('rs."t$data"'::regclass, 'pg_class'), E'\n', 1) AS first_line,
	   (split_part(obj_description('rs."t$data"'::regclass, 'pg_class'), E'\nots definition: ', 2)::jsonb
		- 'created_at' - 'stream_id' - 'stream_enabled_at') AS definition;
SET ROLE regress_ots_rs_owner;
SELECT pg_temp.try($$COMMENT ON TABLE rs."t$data" IS 'mine'$$);
SELECT pg_temp.try($$COMMENT ON TABLE rs."t_v$data" IS 'mine'$$);
-- the comment follows the table's changes
SELECT ots.update_table('rs.t', max_version_offset => 1000);
SELECT split_part(obj_description('rs."t$data"'::regclass, 'pg_class'), E'\nots definition: ', 2)::jsonb
	   -> 'max_version_offset' AS carried_offset;
RESET ROLE;

-- 4. registration by a restore's comment: storage made as a restore makes
-- it, then its comment, registers the table for its owner
SET ROLE regress_ots_rs_other;
CREATE TABLE rs."r$data" (k text COLLATE "C" NOT NULL, "$cells" ots.cells NOT NULL, "$oldest_ts" bigint NOT NULL)
	PARTITION BY HASH (k);
COMMENT ON TABLE rs."r$data" IS E'restored\nots definition: {"pk_names": ["k"], "pk_types": ["STRING"], "max_versions": 2, "time_to_live": -1, "max_version_offset": 86400, "allow_update": true, "partitions": 1, "hash_prefix_length": 0, "created_at": "2024-01-01T00:00:00+00:00", "defined_names": [], "defined_types": []}';
SET default_table_access_method = ots;
CREATE TABLE rs."r$p0" PARTITION OF rs."r$data" FOR VALUES WITH (MODULUS 1, REMAINDER 0);
RESET default_table_access_method;
ALTER TABLE rs."r$data" ADD PRIMARY KEY (k);
CREATE VIEW rs.r WITH (security_barrier) AS SELECT d.k, ots.row_attributes(d."$cells", 'rs."r$data"'::regclass) AS attributes
  FROM rs."r$data" d WHERE ots.row_exists(d."$cells", 'rs."r$data"'::regclass);
SELECT ots.describe_table('rs.r') -> 'table_options' AS options;
SELECT (ots.put_row('rs.r', '{"k": "a"}', '{"x": 1}')).consumed IS NOT NULL AS put;
SELECT (ots.get_row('rs.r', '{"k": "a"}')).attributes AS got;

-- attacks: as an index of another role's table (pending, never registered:
-- the storage is not its table owner's); with another table's stream id;
-- storage that is not ots storage; another role's storage
CREATE TABLE rs."evil$data" (v bigint NOT NULL, k text COLLATE "C" NOT NULL, "$cells" ots.cells NOT NULL,
							  "$oldest_ts" bigint NOT NULL) PARTITION BY HASH (v);
SELECT pg_temp.try(format($$COMMENT ON TABLE rs."evil$data" IS %L$$,
	E'x\nots definition: {"pk_names": ["v", "k"], "pk_types": ["INTEGER", "STRING"], "max_versions": 1, "time_to_live": -1, "max_version_offset": 86400, "allow_update": false, "partitions": 2, "hash_prefix_length": 0, "created_at": "2024-01-01T00:00:00+00:00", "defined_names": [], "defined_types": [], "index_of": "t", "index_type": "GLOBAL", "index_key_count": 1, "index_phase": "INCR"}'));
SELECT count(*) AS registered FROM ots.tables WHERE schema_name = 'rs' AND table_name = 'evil';
DROP TABLE rs."evil$data";
RESET ROLE;
SELECT stream_id AS t_stream FROM ots.list_stream('rs.t') \gset
SET ROLE regress_ots_rs_other;
CREATE TABLE rs."s$data" (k text COLLATE "C" NOT NULL, "$cells" ots.cells NOT NULL, "$oldest_ts" bigint NOT NULL)
	PARTITION BY HASH (k);
SELECT pg_temp.try(format($$COMMENT ON TABLE rs."s$data" IS %L$$,
	E'x\nots definition: ' || jsonb_build_object('pk_names', '{k}'::text[], 'pk_types', '{STRING}'::text[],
		'max_versions', 1, 'time_to_live', -1, 'max_version_offset', 86400, 'allow_update', true,
		'partitions', 2, 'hash_prefix_length', 0, 'created_at', now(), 'defined_names', '{}'::text[],
		'defined_types', '{}'::text[], 'stream_id', :'t_stream',
		'stream_expiration_hours', 24, 'stream_enabled_at', now())::text));
CREATE TABLE rs."w$data" (k bigint NOT NULL, "$cells" ots.cells NOT NULL, "$oldest_ts" bigint NOT NULL)
	PARTITION BY HASH (k);
SELECT pg_temp.try(format($$COMMENT ON TABLE rs."w$data" IS %L$$,
	E'x\nots definition: {"pk_names": ["k"], "pk_types": ["STRING"], "max_versions": 1, "time_to_live": -1, "max_version_offset": 86400, "allow_update": true, "partitions": 1, "hash_prefix_length": 0, "created_at": "2024-01-01T00:00:00+00:00", "defined_names": [], "defined_types": []}'));
RESET ROLE;
SET ROLE regress_ots_rs_owner;
CREATE TABLE rs."u$data" (k text COLLATE "C" NOT NULL, "$cells" ots.cells NOT NULL, "$oldest_ts" bigint NOT NULL)
	PARTITION BY HASH (k);
SET ROLE regress_ots_rs_other;
SELECT pg_temp.try(format($$COMMENT ON TABLE rs."u$data" IS %L$$,
	E'x\nots definition: {"pk_names": ["k"], "pk_types": ["STRING"], "max_versions": 1, "time_to_live": -1, "max_version_offset": 86400, "allow_update": true, "partitions": 1, "hash_prefix_length": 0, "created_at": "2024-01-01T00:00:00+00:00", "defined_names": [], "defined_types": []}'));
RESET ROLE;
SELECT table_name FROM ots.tables WHERE schema_name = 'rs' ORDER BY 1;
SELECT jsonb_array_length(ots.describe_table('rs.t') -> 'index_metas') AS indexes_of_t;

-- 5. a leaf dropped in a session running a dump's script
SET ROLE regress_ots_rs_owner;
SELECT ots.create_table('rs.dt', 'k string', partitions => 2, defined_columns => 'v integer');
SELECT ots.create_index('rs.dt', 'dt_v', '{v}');
CALL ots.build_index('rs.dt', 'dt_v');
SELECT count(*) AS put FROM (SELECT ots.put_row('rs.dt', jsonb_build_object('k', 'k' || g), jsonb_build_object('v', g))
							   FROM generate_series(1, 20) g) p;
SELECT ots.create_table('rs.ds', 'k string', partitions => 2, stream_enabled => true);
SELECT (ots.put_row('rs.ds', '{"k": "a"}', '{"v": 1}')).consumed IS NOT NULL AS put;
BEGIN;
SELECT pg_catalog.set_config('row_security', 'off', true), pg_catalog.set_config('check_function_bodies', 'off', true),
	   pg_catalog.set_config('search_path', '', true);
DROP TABLE rs."dt$p1";
SELECT pg_temp.try($$DROP TABLE rs."ds$p1"$$);
-- as pg_restore --clean drops it: its primary key first (a NOTICE), then the leaf
SET LOCAL client_min_messages = notice;
ALTER TABLE ONLY rs."ds$p1" DROP CONSTRAINT "ds$p1_pkey";
SET LOCAL client_min_messages = warning;
DROP TABLE rs."ds$p1";
COMMIT;
SELECT to_regclass('rs."ds$p1"') IS NULL AS ds_leaf_dropped;
SELECT (SELECT count(*) FROM rs.dt) AS table_rows, (SELECT count(*) FROM rs."dt_v$data") AS index_entries;
SELECT kind, problem, count(*) FROM ots.verify('rs.dt', amcheck => false) GROUP BY 1, 2 ORDER BY 1, 2;
RESET ROLE;

SET client_min_messages = warning;
DROP SCHEMA rs CASCADE;
DROP ROLE regress_ots_rs_owner;
DROP ROLE regress_ots_rs_writer;
DROP ROLE regress_ots_rs_other;
DROP ROLE regress_ots_rs_member;
