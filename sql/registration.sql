-- registration: what registering an ots table from the comment a restore
-- gives its storage may take, and what it leaves to other roles.
--  1. The names the table claims (its view, "t$seq", "t$log", "t$rec"):
--     registration is refused while another role holds one of them; a
--     relation of another role made under such a name later stays that
--     role's: the storage guard, the drop clean-up and OWNER TO on the
--     storage take a relation for a part of the table only when it has the
--     storage's owner.
--  2. A stream id: never one another table has, or had (a consumer of that
--     stream would be handed these records); its owner's own again (a
--     table dropped and restored, as pg_restore --clean does).
--  3. A table left half registered (its storage and comment, as a restore
--     stopped half way leaves it, or any role with CREATE can make it)
--     stops no database-wide loop: ots.verify reports it, ots.purge and
--     ots.sync_auto_increment pass it by.
--  4. A definition ots would not have written is bad input (22023), not a
--     damaged table (XX001).
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
GRANT EXECUTE ON FUNCTION pg_temp.try(text) TO PUBLIC;

-- storage as a restore makes it, in schema rg, and the comment that
-- registers it: a definition of one String key, with extra's fields
CREATE FUNCTION pg_temp.storage(name text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE rg.%I (k text COLLATE "C" NOT NULL, "$cells" ots.cells NOT NULL,'
				   ' "$oldest_ts" bigint NOT NULL) PARTITION BY HASH (k)', name || '$data');
END
$$;
CREATE FUNCTION pg_temp.register(name text, extra jsonb DEFAULT '{}') RETURNS text LANGUAGE sql AS $$
	SELECT pg_temp.try(format('COMMENT ON TABLE rg.%I IS %L', name || '$data',
		E'restored\nots definition: ' || ('{"pk_names": ["k"], "pk_types": ["STRING"], "max_versions": 1,'
			' "time_to_live": -1, "max_version_offset": 86400, "allow_update": true, "partitions": 1,'
			' "hash_prefix_length": 0, "created_at": "2024-01-01T00:00:00+00:00", "defined_names": [],'
			' "defined_types": []}'::jsonb || extra)::text))
$$;
-- the rest a restore makes of a table: a leaf, the key, the view
CREATE FUNCTION pg_temp.complete(name text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	SET LOCAL default_table_access_method = ots;
	EXECUTE format('CREATE TABLE rg.%I PARTITION OF rg.%I FOR VALUES WITH (MODULUS 1, REMAINDER 0)',
				   name || '$p0', name || '$data');
	EXECUTE format('ALTER TABLE rg.%I ADD PRIMARY KEY (k)', name || '$data');
	EXECUTE format('CREATE VIEW rg.%I WITH (security_barrier) AS SELECT d.k,'
				   ' ots.row_attributes(d."$cells", %L::regclass) AS attributes FROM rg.%I d'
				   ' WHERE ots.row_exists(d."$cells", %L::regclass)',
				   name, format('rg.%I', name || '$data'), name || '$data', format('rg.%I', name || '$data'));
END
$$;
GRANT EXECUTE ON FUNCTION pg_temp.storage(text), pg_temp.register(text, jsonb), pg_temp.complete(text) TO PUBLIC;

CREATE ROLE regress_ots_rg_victim LOGIN;
CREATE ROLE regress_ots_rg_attacker LOGIN;
CREATE ROLE regress_ots_rg_consumer LOGIN;
CREATE SCHEMA rg;
GRANT USAGE, CREATE ON SCHEMA rg TO regress_ots_rg_victim, regress_ots_rg_attacker;
GRANT USAGE ON SCHEMA rg TO regress_ots_rg_consumer;

-- 1. names.  The victim's view "report" and sequence "report$seq": the
-- attacker's storage "report$data" is not registered over them
SET ROLE regress_ots_rg_victim;
CREATE TABLE rg.base (a integer);
CREATE VIEW rg.report AS SELECT a FROM rg.base;
CREATE SEQUENCE rg."report$seq";
CREATE TABLE rg."other$log" (a integer);
SET ROLE regress_ots_rg_attacker;
SELECT pg_temp.storage('report');
SELECT pg_temp.register('report');
SELECT pg_temp.storage('other');
SELECT pg_temp.register('other');
-- storage under names no one holds: registered, without a view yet (as
-- during a restore)
SELECT pg_temp.storage('late');
SELECT pg_temp.register('late');
RESET ROLE;
SELECT table_name FROM ots.tables WHERE schema_name = 'rg' ORDER BY 1;
-- the victim makes relations under the names "late" claims: they stay the
-- victim's to rename, to give a rule, to drop, and the attacker's table
-- stays registered
SET ROLE regress_ots_rg_victim;
CREATE VIEW rg.late AS SELECT a FROM rg.base;
CREATE SEQUENCE rg."late$seq";
CREATE TABLE rg."late$log" (a integer);
SELECT pg_temp.try($$ALTER VIEW rg.late RENAME TO late2$$);
SELECT pg_temp.try($$ALTER VIEW rg.late2 RENAME TO late$$);
SELECT pg_temp.try($$CREATE RULE r AS ON INSERT TO rg.late DO INSTEAD NOTHING$$);
SELECT pg_temp.try($$ALTER SEQUENCE rg."late$seq" RENAME TO s2$$);
SELECT pg_temp.try($$ALTER SEQUENCE rg.s2 RENAME TO "late$seq"$$);
SELECT pg_temp.try($$DROP VIEW rg.late$$);
CREATE VIEW rg.late AS SELECT a FROM rg.base;
RESET ROLE;
SELECT count(*) AS late_registered FROM ots.tables WHERE schema_name = 'rg' AND table_name = 'late';
-- OWNER TO on the attacker's storage, and dropping it (here by a
-- superuser), take none of the victim's relations along
ALTER TABLE rg."late$data" OWNER TO regress_ots_rg_consumer;
DROP TABLE rg."late$data";
SELECT c.relname, c.relowner::regrole AS owner FROM pg_class c
 WHERE c.relnamespace = 'rg'::regnamespace AND c.relname IN ('late', 'late$seq', 'late$log', 'late$data')
 ORDER BY 1;
SELECT count(*) AS late_registered FROM ots.tables WHERE schema_name = 'rg' AND table_name = 'late';

-- 2. stream ids.  The victim's table with a stream, read by a consumer;
-- its stream disabled, then another table with its stream
SET ROLE regress_ots_rg_victim;
SELECT ots.create_table('rg.orders', 'k string', stream_enabled => true);
SELECT (ots.put_row('rg.orders', '{"k": "real"}', '{"v": 1}')).consumed IS NOT NULL AS put;
GRANT SELECT ON rg."orders$data" TO regress_ots_rg_consumer;
RESET ROLE;
SELECT stream_id AS sid FROM ots.list_stream('rg.orders') \gset
SET ROLE regress_ots_rg_victim;
SELECT ots.create_table('rg.current', 'k string', stream_enabled => true);
SELECT ots.update_table('rg.orders', stream_enabled => false);
RESET ROLE;
SELECT stream_id AS current_sid FROM ots.list_stream('rg.current') \gset
-- the attacker's table, carrying the retired id, or the current one of
-- another table: refused, so the consumer's id stays invalid
SET ROLE regress_ots_rg_attacker;
SELECT pg_temp.storage('fake');
SELECT pg_temp.register('fake', jsonb_build_object('stream_id', :'sid', 'stream_expiration_hours', 24,
												   'stream_enabled_at', '2024-01-01T00:00:00+00:00'));
SELECT pg_temp.register('fake', jsonb_build_object('stream_id', :'current_sid', 'stream_expiration_hours', 24,
												   'stream_enabled_at', '2024-01-01T00:00:00+00:00'));
DROP TABLE rg."fake$data";
-- nor by ots.catalog_set_stream on a table of its own
SELECT ots.create_table('rg.own', 'k string');
SELECT pg_temp.try(format('SELECT ots.catalog_set_stream(%L, %L, %L, 24, NULL)', 'rg', 'own', :'sid'));
SET ROLE regress_ots_rg_consumer;
SELECT pg_temp.try(format('SELECT ots.get_shard_iterator(%L, %L)', :'sid', '0')) ~ 'Invalid stream id' AS invalid;
RESET ROLE;
-- the victim's own id comes back to its own table restored (as after a
-- pg_restore --clean): the table dropped, its storage made again
SET ROLE regress_ots_rg_victim;
SELECT ots.delete_table('rg.current');
SELECT pg_temp.storage('current');
SELECT pg_temp.register('current', jsonb_build_object('stream_id', :'current_sid', 'stream_expiration_hours', 24,
													  'stream_enabled_at', '2024-01-01T00:00:00+00:00'));
RESET ROLE;
SELECT table_name, stream_id = :'current_sid' AS same_id FROM ots.tables
 WHERE schema_name = 'rg' AND stream_id IS NOT NULL ORDER BY 1;

-- 3. a half-registered table (storage and comment, no view, no key) of
-- the attacker's, with a TTL and an AUTO_INCREMENT column, and a whole one
-- that is damaged (its stream's relations missing); the attacker also owns
-- a sound table ("done").  Database-wide calls go on past the first two.
SET ROLE regress_ots_rg_attacker;
SELECT pg_temp.storage('dmg');
SELECT pg_temp.register('dmg', jsonb_build_object('time_to_live', 86400, 'stream_id', gen_random_uuid(),
												  'stream_expiration_hours', 24, 'stream_enabled_at', now()));
SELECT pg_temp.complete('dmg');
CREATE TABLE rg."half$data" (p text COLLATE "C" NOT NULL, id bigint NOT NULL, "$cells" ots.cells NOT NULL,
							 "$oldest_ts" bigint NOT NULL) PARTITION BY HASH (p);
SELECT pg_temp.try(format('COMMENT ON TABLE rg."half$data" IS %L', E'x\nots definition: {"pk_names": ["p", "id"], "pk_types": ["STRING", "INTEGER"], "auto_increment": 2, "max_versions": 1, "time_to_live": 86400, "max_version_offset": 86400, "allow_update": true, "partitions": 1, "hash_prefix_length": 0, "created_at": "2024-01-01T00:00:00+00:00", "defined_names": [], "defined_types": []}'));
SELECT ots.create_table('rg.done', 'p string, id integer auto_increment', time_to_live => 86400);
SELECT (ots.put_row('rg.done', '{"p": "a", "id": 7}', '{"v": 1}')).consumed IS NOT NULL AS put;
-- one row for each table that does not load, and none for the others
SELECT ots_table, relation, kind, problem, detail FROM ots.verify(amcheck => false) ORDER BY 1, 2, 3;
SELECT * FROM ots.sync_auto_increment() ORDER BY 1, 2;
CALL ots.purge();
SELECT table_name, last_purge IS NOT NULL AS purged FROM ots.stats WHERE schema_name = 'rg' ORDER BY 1;
-- named, the half-registered table is not there (yet)
SELECT pg_temp.try($$SELECT * FROM ots.verify('rg.half')$$);
SELECT pg_temp.try($$SELECT * FROM ots.sync_auto_increment('rg.half')$$);
-- what is wrong with a table is its owner's to ask
SET ROLE regress_ots_rg_victim;
SELECT pg_temp.try($$SELECT ots.table_problem('rg', 'half')$$);
RESET ROLE;

-- 4. definitions ots would not write, given to storage that matches them
-- or not: bad input
SET ROLE regress_ots_rg_attacker;
SELECT pg_temp.storage('bad');
SELECT pg_temp.register('bad', '{"pk_types": ["FLOAT"]}');
SELECT pg_temp.register('bad', '{"max_versions": 0}');
SELECT pg_temp.register('bad', '{"stream_id": "not-an-id", "stream_expiration_hours": 24}');
SELECT pg_temp.register('bad', '{"pk_types": ["INTEGER"]}');
SELECT pg_temp.register('bad', '{"pk_names": ["k", "k"], "pk_types": ["STRING", "STRING"]}');
SELECT pg_temp.try(format('COMMENT ON TABLE rg."bad$data" IS %L', E'x\nots definition: [1]'));
SELECT pg_temp.try(format('COMMENT ON TABLE rg."bad$data" IS %L', E'x\nots definition: {"max_versions": "many"}'));
SELECT count(*) AS bad_registered FROM ots.tables WHERE schema_name = 'rg' AND table_name = 'bad';
RESET ROLE;

SET client_min_messages = warning;
DROP SCHEMA rg CASCADE;
DROP ROLE regress_ots_rg_victim;
DROP ROLE regress_ots_rg_attacker;
DROP ROLE regress_ots_rg_consumer;
