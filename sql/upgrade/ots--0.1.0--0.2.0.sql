-- ots 0.1.0 -> 0.2.0: security and data safety (issue 12), the ots table
-- access method (issue 20), SQL over live data at plain-table speed (issue 14),
-- secondary indexes (issue 15), typed columns and writable views (issue 21),
-- Stream (issue 16).
-- Every change here is also made in src/sql/ (what a fresh 0.2.0 install
-- runs); test/upgrade/run.sh shows the two arrive at the same objects.
\echo Use "ALTER EXTENSION ots UPDATE TO '0.2.0'" to load this file. \quit

-- issue 31 item 20: ots needs shared_preload_libraries = 'ots'
-- (src/preload.c): without it the update stops here, before any change
CREATE OR REPLACE FUNCTION ots.require_preload() RETURNS void
	AS 'MODULE_PATHNAME', 'ots_require_preload' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION ots.require_preload() IS
	'raises an error unless ots was loaded by shared_preload_libraries, which it needs (CREATE EXTENSION and ALTER EXTENSION UPDATE call it first)';
SELECT ots.require_preload();

-- issue 31: 0.1.0 let any role write ots.tables (a row needed only that its
-- role own some relation named "<table>$data"), so every row of it is
-- untrusted input, and nothing below reads or changes a relation a row
-- names before ots.upgrade_table_fault has found it to be an ots table as
-- 0.1.0's create_table made it.  A row that is not one (another role's
-- table, a view, other columns, ...) goes with its purge statistics and
-- purge job, named in a WARNING; its relations are left untouched.  Rows
-- whose storage is gone are removed further down, with the tables plain
-- DDL broke.  Rows are checked again once ots.tables is locked against
-- writes and each storage (with its leaves) against DDL until the update
-- commits, so what was checked stays so.  Neither function here is made
-- by a fresh install: each is dropped once used (docs/development.md,
-- Releases, has the rule for upgrade scripts).
CREATE FUNCTION ots.upgrade_table_fault(t ots.tables) RETURNS text
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	nsp oid := (SELECT n.oid FROM pg_namespace n WHERE n.nspname = t.schema_name);
	storage pg_class;
	rel pg_class;
	npk integer;
	keys smallint[] := '{}';
	col_attnum smallint;
	col record;
BEGIN
	-- "<table>$data" and "<table>$seq" must fit a name, or SQL would find a truncated one
	IF octet_length(t.table_name) > 63 - length('$data') THEN
		RETURN 'its name leaves no room for "$data" in a relation name';
	END IF;
	SELECT * INTO storage FROM pg_class s
	 WHERE s.relnamespace = nsp AND s.relname = t.table_name || '$data';
	IF NOT FOUND THEN
		RETURN NULL;			-- gone: its row goes below, and nothing of it is read
	END IF;
	IF t.schema_name LIKE 'pg\_%' THEN
		RETURN 'it is in a system or temporary schema';
	END IF;

	-- the key it records
	npk := cardinality(t.pk_names);
	IF array_ndims(t.pk_names) IS DISTINCT FROM 1 OR array_ndims(t.pk_types) IS DISTINCT FROM 1
	   OR array_lower(t.pk_names, 1) <> 1 OR array_lower(t.pk_types, 1) <> 1
	   OR npk NOT BETWEEN 1 AND 4 OR cardinality(t.pk_types) <> npk
	   OR EXISTS (SELECT 1 FROM unnest(t.pk_names, t.pk_types) k(name, type)
				   WHERE k.name IS NULL OR k.name !~ '^[A-Za-z_][A-Za-z0-9_]*$' OR octet_length(k.name) > 63
					  OR k.type IS NULL OR k.type NOT IN ('STRING', 'INTEGER', 'BINARY'))
	   OR (SELECT count(DISTINCT k.name) FROM unnest(t.pk_names) k(name)) <> npk
	   OR t.hash_prefix_length NOT BETWEEN 0 AND 8
	   OR (t.auto_increment IS NOT NULL
		   AND (t.auto_increment NOT BETWEEN 2 AND npk OR t.pk_types[t.auto_increment] <> 'INTEGER')) THEN
		RETURN 'its primary key, hash prefix or AUTO_INCREMENT column in ots.tables is not one create_table makes';
	END IF;

	-- the storage: a partitioned table with the key's columns, "$cells" and "$oldest_ts"
	IF storage.relkind <> 'p' OR storage.relispartition THEN
		RETURN format('%I.%I is not a partitioned table of its own', t.schema_name, storage.relname);
	END IF;
	IF t.hash_prefix_length = 0
	   AND EXISTS (SELECT 1 FROM pg_attribute a
				   WHERE a.attrelid = storage.oid AND a.attname = '$hash' AND NOT a.attisdropped) THEN
		RETURN 'its storage has a "$hash" column but no hash prefix';
	END IF;
	FOR col IN
		SELECT e.name, e.type::regtype, e.coll, e.is_key
		  FROM (SELECT '$hash'::text, 'int8'::regtype, 0::oid, true, 0 WHERE t.hash_prefix_length > 0
				UNION ALL
				SELECT k.name, CASE k.type WHEN 'STRING' THEN 'text'::regtype WHEN 'INTEGER' THEN 'int8'::regtype
										   ELSE 'bytea'::regtype END,
					   CASE k.type WHEN 'STRING' THEN 'pg_catalog."C"'::regcollation::oid ELSE 0 END, true, k.n
				  FROM unnest(t.pk_names, t.pk_types) WITH ORDINALITY k(name, type, n)
				UNION ALL
				SELECT '$cells', 'ots.cells'::regtype, 0, false, npk + 1
				UNION ALL
				SELECT '$oldest_ts', 'int8'::regtype, 0, false, npk + 2) e(name, type, coll, is_key, n)
		 ORDER BY e.n
	LOOP
		SELECT a.attnum INTO col_attnum FROM pg_attribute a
		 WHERE a.attrelid = storage.oid AND a.attname = col.name AND NOT a.attisdropped
		   AND a.atttypid = col.type AND a.attcollation = col.coll AND a.attnotnull AND a.attgenerated = '';
		IF NOT FOUND THEN
			RETURN format('its storage has no column %I of type %s%s NOT NULL', col.name, col.type,
						  CASE WHEN col.coll <> 0 THEN ' COLLATE "C"' ELSE '' END);
		END IF;
		IF col.is_key THEN
			keys := keys || col_attnum;
		END IF;
	END LOOP;
	IF NOT EXISTS (SELECT 1 FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid
					WHERE i.indrelid = storage.oid AND i.indisprimary AND i.indnatts = cardinality(keys)
					  AND i.indnkeyatts = cardinality(keys) AND ARRAY(SELECT unnest(i.indkey::int2[])) = keys
					  AND x.relam = (SELECT a.oid FROM pg_am a WHERE a.amname = 'btree')) THEN
		RETURN 'the primary key of its storage is not a btree on its key columns';
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_partitioned_table p
					WHERE p.partrelid = storage.oid AND p.partnatts = 1 AND p.partexprs IS NULL
					  AND p.partattrs[0] = keys[1]
					  AND p.partstrat = CASE WHEN t.hash_prefix_length > 0 THEN 'r' ELSE 'h' END) THEN
		RETURN format('its storage is not partitioned by %s',
					  CASE WHEN t.hash_prefix_length > 0 THEN 'RANGE ("$hash")'
						   ELSE format('HASH (%I)', t.pk_names[1]) END);
	END IF;
	-- its leaves: heap tables, as 0.1.0 made them (of any owner: only the storage's owner, or a
	-- role with the rights of both, can make a table a partition of it or give a partition away)
	SELECT l.* INTO rel FROM pg_inherits i JOIN pg_class l ON l.oid = i.inhrelid
	 WHERE i.inhparent = storage.oid
	   AND (l.relkind <> 'r' OR l.relam <> (SELECT a.oid FROM pg_am a WHERE a.amname = 'heap'))
	 ORDER BY l.relname LIMIT 1;
	IF FOUND THEN
		RETURN format('partition %I of its storage is not a heap table', rel.relname);
	END IF;

	-- the view and the sequence, found by name, have the storage's owner
	SELECT * INTO rel FROM pg_class v WHERE v.relnamespace = nsp AND v.relname = t.table_name;
	IF FOUND AND (rel.relkind <> 'v' OR rel.relowner <> storage.relowner) THEN
		RETURN format('%I.%I is not a view of its storage''s owner', t.schema_name, rel.relname);
	END IF;
	IF t.auto_increment IS NOT NULL THEN
		SELECT * INTO rel FROM pg_class q WHERE q.relnamespace = nsp AND q.relname = t.table_name || '$seq';
		IF NOT FOUND OR rel.relkind <> 'S' OR rel.relowner <> storage.relowner THEN
			RETURN format('its AUTO_INCREMENT sequence %I.%I is missing or not its storage''s owner''s',
						  t.schema_name, t.table_name || '$seq');
		END IF;
	END IF;
	RETURN NULL;
END
$$;

DO $$
DECLARE
	t ots.tables;
	fault text;
BEGIN
	LOCK TABLE ots.tables, ots.purge_stats IN EXCLUSIVE MODE;
	FOR pass IN 1 .. 2 LOOP
		FOR t IN SELECT o.* FROM ots.tables o ORDER BY o.schema_name, o.table_name LOOP
			fault := ots.upgrade_table_fault(t);
			IF fault IS NOT NULL THEN
				PERFORM ots.unschedule_purge(t.schema_name, t.table_name);
				DELETE FROM ots.purge_stats p WHERE p.schema_name = t.schema_name AND p.table_name = t.table_name;
				DELETE FROM ots.tables o WHERE o.schema_name = t.schema_name AND o.table_name = t.table_name;
				RAISE WARNING 'ots.tables names %.% as an ots table, but %: its metadata is removed',
					quote_ident(t.schema_name), quote_ident(t.table_name), fault
					USING DETAIL = 'ots 0.1.0 let any role add rows to ots.tables. The update left the relations this row names as they are: it read none of their rows and ran none of their code.',
						  HINT = 'If it is an ots table of yours, copy its rows into a new ots table and drop what is left of it.';
			ELSIF pass = 1 AND to_regclass(format('%I.%I', t.schema_name, t.table_name || '$data')) IS NOT NULL THEN
				BEGIN
					EXECUTE format('LOCK TABLE %I.%I IN ACCESS EXCLUSIVE MODE', t.schema_name, t.table_name || '$data');
				EXCEPTION WHEN insufficient_privilege THEN
					NULL;		-- replaced since by a view of tables its owner may not lock: pass 2 finds it
				END;
			END IF;
		END LOOP;
	END LOOP;
END
$$;
DROP FUNCTION ots.upgrade_table_fault(ots.tables);

-- issue 20: every leaf of ots storage moves onto the ots table access method
-- (src/sql/15_tableam.sql), first, before anything here reads a table's
-- storage the way 0.2.0 does (it reports heap leaves as damaged).  SET
-- ACCESS METHOD rewrites each leaf below the write point: rows are copied
-- as they are.
-- The ots table access method: heap storage whose write callbacks are the one write
-- point of ots storage (src/tableam.c, src/storage_write.c). Every leaf of ots storage uses it.
CREATE FUNCTION ots.tableam_handler(internal) RETURNS table_am_handler
	AS 'MODULE_PATHNAME', 'ots_tableam_handler' LANGUAGE C STRICT;
COMMENT ON FUNCTION ots.tableam_handler(internal) IS
	'handler of the ots table access method: heap, with ots''s write point behind its write callbacks';

CREATE ACCESS METHOD ots TYPE TABLE HANDLER ots.tableam_handler;
COMMENT ON ACCESS METHOD ots IS
	'heap storage whose every row change passes ots''s write point, which refuses rows ots could not read back';

CREATE FUNCTION ots.write_point_counts(storage regclass, OUT origin text, OUT callback text,
									   OUT rows bigint, OUT with_old_cells bigint,
									   OUT with_new_cells bigint)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'ots_write_point_counts' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.write_point_counts(regclass) IS
	'row changes of an ots table''s storage that its write point saw, by origin and table AM callback (while ots.count_writes is on; needs ots preloaded)';

DO $$
DECLARE
	leaf regclass;
BEGIN
	FOR leaf IN
		SELECT l.oid::regclass
		  FROM ots.tables t
		  JOIN pg_catalog.pg_namespace n ON n.nspname OPERATOR(pg_catalog.=) t.schema_name
		  JOIN pg_catalog.pg_class s ON s.relnamespace OPERATOR(pg_catalog.=) n.oid
			   AND s.relname OPERATOR(pg_catalog.=) (t.table_name OPERATOR(pg_catalog.||) '$data')
		  JOIN pg_catalog.pg_inherits i ON i.inhparent OPERATOR(pg_catalog.=) s.oid
		  JOIN pg_catalog.pg_class l ON l.oid OPERATOR(pg_catalog.=) i.inhrelid
		 WHERE l.relkind OPERATOR(pg_catalog.=) 'r'
		   AND l.relam OPERATOR(pg_catalog.<>) (SELECT a.oid FROM pg_catalog.pg_am a
												 WHERE a.amname OPERATOR(pg_catalog.=) 'ots')
		 ORDER BY l.oid
	LOOP
		EXECUTE pg_catalog.format('ALTER TABLE %s SET ACCESS METHOD ots', leaf);
	END LOOP;
END
$$;

-- issue 12 items 4, 11: purge works as each table's owner, whoever runs it
-- (ots.purge_batch runs each batch as the owner in a security-restricted
-- operation); pg_cron jobs a superuser schedules run as the table's owner
-- (ots.expiry_sync); the purge lock is ots's own (ots.purge_lock, owner
-- only) instead of an advisory key anyone could hold (ots.purge_lock_key goes)
DROP FUNCTION ots.purge_lock_key(name, name);

CREATE FUNCTION ots.purge_lock(schema_name name, table_name name) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_purge_lock' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.purge_lock(name, name) IS
	'takes the purge lock of an ots table for the session (owner only): its key, or NULL when another session holds it (internal)';

CREATE OR REPLACE FUNCTION ots.purge_unlock(lock_key bigint) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_purge_unlock' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.purge_unlock(bigint) IS 'releases the purge lock of a table (internal)';

CREATE OR REPLACE FUNCTION ots.purge_start(schema_name name, table_name name, batch_size integer,
								OUT lock_key bigint, OUT now_ms bigint, OUT started timestamptz,
								OUT passes boolean[], OUT options_xmin text)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
BEGIN
	IF batch_size IS NULL OR batch_size < 1 THEN
		RAISE EXCEPTION 'batch_size must be at least 1' USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF NOT coalesce(ots.owns_table(schema_name, table_name), false) THEN
		RAISE EXCEPTION 'must be owner of ots table %.% to purge it', quote_ident(schema_name), table_name
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	lock_key := ots.purge_lock(schema_name, table_name);
	IF lock_key IS NULL THEN
		RAISE NOTICE 'ots table %.% is being purged by another session, skipping', quote_ident(schema_name),
			table_name;
		lock_key := NULL;
		RETURN;
	END IF;
	-- reads later than this see a later now, so they never see what this purge removes
	started := clock_timestamp();
	now_ms := floor(extract(epoch FROM started) * 1000)::bigint;
	SELECT o.time_to_live, o.max_versions, o.trimmed_max_versions, o.xmin::text AS xmin INTO t
	  FROM ots.tables o
	 WHERE o.schema_name = purge_start.schema_name AND o.table_name = purge_start.table_name;
	passes := '{}';
	IF t.time_to_live <> -1 THEN
		passes := passes || false;
	END IF;
	IF t.trimmed_max_versions > t.max_versions THEN
		passes := passes || true;
	END IF;
	options_xmin := t.xmin;
END
$$;
COMMENT ON FUNCTION ots.purge_start(name, name, integer) IS
	'starts purging an ots table: privileges, purge lock (NULL key when busy), now, passes (internal)';

CREATE FUNCTION ots.purge_batch(leaf regclass, trimming boolean, now_ms bigint, time_to_live bigint,
								max_versions integer, batch_size integer, from_block bigint, to_block bigint,
								OUT candidates bigint, OUT rows_deleted bigint, OUT rows_rewritten bigint,
								OUT cells bigint)
	AS 'MODULE_PATHNAME', 'ots_purge_batch' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.purge_batch(regclass, boolean, bigint, bigint, integer, integer, bigint, bigint) IS
	'purges one batch of a leaf of an ots table as its owner (owner only; internal)';


CREATE OR REPLACE FUNCTION ots.expiry_sync(schema_name name, table_name name, notify boolean) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	ttl bigint;
	has_index boolean := to_regclass(format('%I.%I', schema_name, table_name || '$ttl')) IS NOT NULL;
	owner_name name;
	job_user name := current_user;
BEGIN
	SELECT t.time_to_live INTO ttl FROM ots.tables t
	 WHERE t.schema_name = expiry_sync.schema_name AND t.table_name = expiry_sync.table_name;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	-- the index serves the TTL pass only; without a TTL it would just slow writes
	IF ttl <> -1 AND NOT has_index THEN
		EXECUTE format('CREATE INDEX %I ON %I.%I ("$oldest_ts")',
					   table_name || '$ttl', schema_name, table_name || '$data');
	ELSIF ttl = -1 AND has_index THEN
		EXECUTE format('DROP INDEX %I.%I', schema_name, table_name || '$ttl');
	END IF;

	IF NOT ots.expiry_needed(schema_name, table_name) THEN
		PERFORM ots.unschedule_purge(schema_name, table_name);
	ELSIF ots.cron_ready(notify) THEN
		-- the job runs as the table's owner.  pg_cron lets only a superuser
		-- schedule a job for another role, and runs jobs only as roles that
		-- may log in to the database: otherwise the job is the caller's (the
		-- purge still runs each batch as the owner)
		SELECT r.rolname INTO owner_name
		  FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner
		 WHERE c.oid = to_regclass(format('%I.%I', schema_name, table_name || '$data'));
		IF owner_name <> current_user
		   AND (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user)
		   AND (SELECT r.rolcanlogin FROM pg_roles r WHERE r.rolname = owner_name)
		   AND has_database_privilege(owner_name, current_database(), 'CONNECT') THEN
			job_user := owner_name;
		END IF;
		BEGIN
			-- one job per table: another role's job of that name (the caller
			-- may see) goes; named jobs are upserted on (jobname, username),
			-- so scheduling again is idempotent
			EXECUTE 'SELECT count(cron.unschedule(j.jobid)) FROM cron.job j'
					' WHERE j.jobname OPERATOR(pg_catalog.=) $1'
					'   AND j.database OPERATOR(pg_catalog.=) current_database()'
					'   AND j.username OPERATOR(pg_catalog.<>) $2'
			  USING ots.purge_job_name(schema_name, table_name), job_user::text;
			IF job_user = current_user THEN
				EXECUTE 'SELECT cron.schedule($1, $2, $3)'
				  USING ots.purge_job_name(schema_name, table_name),
						current_setting('ots.purge_schedule'),
						format('CALL ots.purge(%L)', format('%I.%s', schema_name, table_name));
			ELSE
				EXECUTE 'SELECT cron.schedule_in_database($1, $2, $3, current_database(), $4)'
				  USING ots.purge_job_name(schema_name, table_name),
						current_setting('ots.purge_schedule'),
						format('CALL ots.purge(%L)', format('%I.%s', schema_name, table_name)),
						job_user::text;
			END IF;
		EXCEPTION WHEN insufficient_privilege THEN
			RAISE NOTICE 'could not schedule the purge of ots table %.%: %', quote_ident(schema_name),
				table_name, SQLERRM
				USING HINT = 'Schedule CALL ots.purge() elsewhere.';
		END;
	END IF;
END
$$;
COMMENT ON FUNCTION ots.expiry_sync(name, name, boolean) IS
	'creates or drops an ots table''s "$oldest_ts" index and purge job to match its options (internal)';

-- issue 12 item 7: what starts subtransactions (batch_get_row's per-row
-- errors, a PL/pgSQL EXCEPTION block) cannot run in parallel mode
ALTER FUNCTION ots.batch_get_row(jsonb) PARALLEL UNSAFE;
ALTER FUNCTION ots.cron_ready(boolean) PARALLEL UNSAFE;

-- issue 12 items 2, 9, 10, 14: ots.tables is written only through ots's
-- functions (src/catalog_write.c), each role sees only the ots tables it may
-- see (ots.table_visible), table views are security barriers, create_table
-- reports a concurrent create of the same name as OTSObjectAlreadyExist
CREATE FUNCTION ots.table_visible(schema_name name, table_name name) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_table_visible' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.table_visible(name, name) IS
	'whether the current role may see an ots table: its owner, or USAGE on its schema and a privilege on its view or storage';

ALTER POLICY tables_read ON ots.tables USING (ots.table_visible(schema_name, table_name));
DROP POLICY tables_insert ON ots.tables;
DROP POLICY tables_update ON ots.tables;
DROP POLICY tables_delete ON ots.tables;
REVOKE INSERT, UPDATE, DELETE ON ots.tables FROM PUBLIC;

CREATE FUNCTION ots.catalog_insert(schema_name name, table_name name, pk_names text[], pk_types text[],
								   auto_increment smallint, max_versions integer, time_to_live bigint,
								   max_version_offset bigint, allow_update boolean, partitions integer,
								   hash_prefix_length integer) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_insert' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_insert(name, name, text[], text[], smallint, integer, bigint, bigint, boolean, integer, integer) IS
	'registers the ots table whose storage the caller made and owns in ots.tables (internal; create_table)';
CREATE FUNCTION ots.catalog_update(schema_name name, table_name name, max_versions integer,
								   time_to_live bigint, max_version_offset bigint, allow_update boolean)
	RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_update' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_update(name, name, integer, bigint, bigint, boolean) IS
	'changes the options of an ots table the caller owns (NULL keeps one) and makes every session reload them (internal; update_table)';
CREATE FUNCTION ots.catalog_delete(schema_name name, table_name name) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_delete' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_delete(name, name) IS
	'removes the metadata of an ots table the caller owns (internal; delete_table)';
CREATE FUNCTION ots.catalog_lock_options(schema_name name, table_name name)
	RETURNS TABLE (time_to_live bigint, max_versions integer)
	AS 'MODULE_PATHNAME', 'ots_catalog_lock_options' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE ROWS 1;
COMMENT ON FUNCTION ots.catalog_lock_options(name, name) IS
	'the TTL and max_versions of an ots table the caller owns, its metadata locked FOR SHARE; no row when gone (internal; purge)';
CREATE FUNCTION ots.catalog_clear_trimmed(schema_name name, table_name name, options_xmin text) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_clear_trimmed' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_clear_trimmed(name, name, text) IS
	'clears trimmed_max_versions of an ots table the caller owns unless its metadata changed since options_xmin (internal; purge)';

COMMENT ON FUNCTION ots.invalidate_table(regclass) IS 'makes every session reload an ots table''s metadata; its owner only (internal)';

CREATE OR REPLACE FUNCTION ots.create_table_internal(
	schema_name name,
	table_name name,
	primary_key text,
	max_versions integer,
	time_to_live bigint,
	max_version_offset bigint,
	allow_update boolean,
	partitions integer,
	hash_prefix_length integer) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	pk_names text[];
	pk_types text[];
	auto_col smallint;
	view_name text;
BEGIN
	-- ots.resolve_name is STRICT: a NULL table name arrives as NULLs
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	view_name := format('%I.%I', schema_name, table_name);
	SELECT p.pk_names, p.pk_types, p.auto_col INTO pk_names, pk_types, auto_col
	  FROM ots.create_table_parse_pk(primary_key, table_name) p;
	PERFORM ots.create_table_check_options(max_versions, time_to_live, max_version_offset, allow_update,
										   partitions, hash_prefix_length);

	IF EXISTS (SELECT 1 FROM ots.tables t
				WHERE t.schema_name = create_table_internal.schema_name
				  AND t.table_name = create_table_internal.table_name)
	   OR to_regclass(view_name) IS NOT NULL
	   OR to_regclass(format('%I.%I', schema_name, table_name || '$data')) IS NOT NULL THEN
		PERFORM ots.raise('OTSObjectAlreadyExist', 'Requested table already exists.',
						  format('A relation named %s already exists.', view_name));
	END IF;

	PERFORM ots.create_table_storage(schema_name, table_name, pk_names, pk_types, auto_col, partitions,
									 hash_prefix_length);
	PERFORM ots.create_table_view(schema_name, table_name, pk_names);
	PERFORM ots.catalog_insert(create_table_internal.schema_name, create_table_internal.table_name, pk_names,
							   pk_types, auto_col, max_versions, time_to_live, max_version_offset,
							   allow_update, partitions, hash_prefix_length);
	-- expiry hook (50_expiry.sql): "$oldest_ts" index and purge job when there is a TTL
	PERFORM ots.expiry_sync(create_table_internal.schema_name, create_table_internal.table_name, true);
END
$$;
COMMENT ON FUNCTION ots.create_table_internal(name, name, text, integer, bigint, bigint, boolean, integer, integer)
	IS 'creates an ots table in a resolved schema (internal; call ots.create_table)';

CREATE OR REPLACE FUNCTION ots.update_table_internal(
	schema_name name,
	table_name name,
	max_versions integer,
	time_to_live bigint,
	max_version_offset bigint,
	allow_update boolean) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	IF max_versions IS NULL AND time_to_live IS NULL AND max_version_offset IS NULL
	   AND allow_update IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'No parameter is specified in table options.');
	END IF;
	PERFORM ots.check_table_options(max_versions, time_to_live, max_version_offset);
	-- owner only; also remembers a lowered max_versions until purged (ots.trimmed_after_update)
	PERFORM ots.catalog_update(update_table_internal.schema_name, update_table_internal.table_name,
							   max_versions, time_to_live, max_version_offset, allow_update);
	-- expiry hook (50_expiry.sql): index and purge job follow the new options
	PERFORM ots.expiry_sync(update_table_internal.schema_name, update_table_internal.table_name,
							time_to_live IS NOT NULL OR max_versions IS NOT NULL);
END
$$;


COMMENT ON FUNCTION ots.list_table() IS 'every ots table of the database the caller may see (ots.table_visible)';

-- review of issue 12, item 2: 0.1.0 let plain DDL drop an ots table's view
-- or storage and kept its metadata (0.2.0's sql_drop trigger forgets it):
-- such metadata, purge statistics and purge job go now, so the name can be
-- created again.  What is left of the table (storage, view, sequence) is
-- kept, named in a WARNING, for its owner to copy or drop.
DO $$
DECLARE
	t record;
	left_over text;
BEGIN
	FOR t IN SELECT o.schema_name, o.table_name FROM ots.tables o
			  WHERE to_regclass(format('%I.%I', o.schema_name, o.table_name)) IS NULL
				 OR to_regclass(format('%I.%I', o.schema_name, o.table_name || '$data')) IS NULL
			  ORDER BY o.schema_name, o.table_name LOOP
		PERFORM ots.unschedule_purge(t.schema_name, t.table_name);
		DELETE FROM ots.purge_stats p WHERE p.schema_name = t.schema_name AND p.table_name = t.table_name;
		DELETE FROM ots.tables o WHERE o.schema_name = t.schema_name AND o.table_name = t.table_name;
		SELECT string_agg(format('%I.%I', n.nspname, c.relname), ', ' ORDER BY c.relname) INTO left_over
		  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		 WHERE n.nspname = t.schema_name
		   AND c.relname IN (t.table_name, t.table_name || '$data', t.table_name || '$seq');
		RAISE WARNING 'ots table %.% had lost its view or storage to plain DDL: its metadata is removed',
			quote_ident(t.schema_name), quote_ident(t.table_name)
			USING DETAIL = coalesce('Left in place: ' || left_over || '.', 'Nothing of it is left.'),
				  HINT = 'Drop what is left, or copy its rows into a new ots table.';
	END LOOP;
END
$$;

-- review of issue 12, item 2: 0.2.0's storage guard refuses triggers,
-- rules, defaults and CHECK constraints on ots storage, which ots's writes
-- bypass; those 0.1.0 let in stay, and are named here
DO $$
DECLARE
	found text;
BEGIN
	SELECT string_agg(format('%s: %s', r.rel, r.what), '; ' ORDER BY r.rel, r.what) INTO found
	  FROM (SELECT DISTINCT c.oid::pg_catalog.regclass::text AS rel, x.what
			  FROM ots.tables o
			  JOIN pg_catalog.pg_namespace n ON n.nspname = o.schema_name
			  JOIN pg_catalog.pg_class s ON s.relnamespace = n.oid AND s.relname = o.table_name || '$data'
			  JOIN pg_catalog.pg_class c ON c.oid = s.oid
				OR c.oid IN (SELECT i.inhrelid FROM pg_catalog.pg_inherits i WHERE i.inhparent = s.oid)
			  CROSS JOIN LATERAL (
					SELECT 'trigger ' || quote_ident(g.tgname) FROM pg_catalog.pg_trigger g
					 WHERE g.tgrelid = c.oid AND NOT g.tgisinternal
					UNION ALL
					SELECT 'rule ' || quote_ident(w.rulename) FROM pg_catalog.pg_rewrite w
					 WHERE w.ev_class = c.oid
					UNION ALL
					SELECT 'default of ' || quote_ident(a.attname) FROM pg_catalog.pg_attrdef d
					  JOIN pg_catalog.pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
					 WHERE d.adrelid = c.oid
					UNION ALL
					SELECT 'constraint ' || quote_ident(k.conname) FROM pg_catalog.pg_constraint k
					 WHERE k.conrelid = c.oid AND k.contype <> 'p') x(what)) r;
	IF found IS NOT NULL THEN
		RAISE WARNING 'ots storage carries triggers, rules, defaults or constraints that ots''s writes bypass'
			USING DETAIL = found || '.',
				  HINT = 'Drop them: ots 0.2.0 refuses new ones (see "Storage" in the README).';
	END IF;
END
$$;

-- review of issue 12, item 1: 0.2.0 reports an ots table whose storage,
-- partitions, view and sequence have different owners as damaged; 0.1.0
-- let OWNER TO change them one by one, so such tables are named here
DO $$
DECLARE
	found text;
BEGIN
	SELECT string_agg(format('%I.%I', o.schema_name, o.table_name), ', '
					  ORDER BY o.schema_name, o.table_name) INTO found
	  FROM ots.tables o
	  JOIN pg_catalog.pg_namespace n ON n.nspname = o.schema_name
	  JOIN pg_catalog.pg_class s ON s.relnamespace = n.oid AND s.relname = o.table_name || '$data'
	 WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_class c
					WHERE c.relowner <> s.relowner
					  AND ((c.relnamespace = n.oid
							AND c.relname IN (o.table_name, o.table_name || '$seq'))
						   OR c.oid IN (SELECT i.inhrelid FROM pg_catalog.pg_inherits i
										 WHERE i.inhparent = s.oid)));
	IF found IS NOT NULL THEN
		RAISE WARNING 'ots tables whose storage, partitions, view and sequence have different owners: %', found
			USING DETAIL = 'ots reports them as damaged until they have one owner.',
				  HINT = 'Run ALTER TABLE "<table>$data" OWNER TO <role>, which gives all of them that owner.';
	END IF;
END
$$;

-- views of existing tables become security barriers, as create_table makes
-- them: only views whose storage exists and has the view's owner
DO $$
DECLARE
	t record;
BEGIN
	FOR t IN SELECT o.schema_name, o.table_name FROM ots.tables o
			  WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_class c
							  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
							  JOIN pg_catalog.pg_class d ON d.relnamespace = n.oid
							   AND d.relname = o.table_name || '$data' AND d.relkind = 'p'
							   AND d.relowner = c.relowner
							 WHERE n.nspname = o.schema_name AND c.relname = o.table_name
							   AND c.relkind = 'v') LOOP
		EXECUTE format('ALTER VIEW %I.%I SET (security_barrier)', t.schema_name, t.table_name);
	END LOOP;
END
$$;


CREATE OR REPLACE FUNCTION ots.purge_finish(schema_name name, table_name name, lock_key bigint,
								 started timestamptz, trimmed boolean, options_xmin text)
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	INSERT INTO ots.purge_stats AS p (schema_name, table_name, purges, last_purge, last_purge_duration)
	VALUES (purge_finish.schema_name, purge_finish.table_name, 1, started, clock_timestamp() - started)
	ON CONFLICT ON CONSTRAINT purge_stats_pkey DO UPDATE
	   SET purges = p.purges + 1,
		   last_purge = excluded.last_purge,
		   last_purge_duration = excluded.last_purge_duration;
	-- the trim pass used the options of its start only if no update_table
	-- touched the row since (xmin unchanged)
	IF trimmed THEN
		PERFORM ots.catalog_clear_trimmed(purge_finish.schema_name, purge_finish.table_name, options_xmin);
	END IF;
	IF NOT ots.expiry_needed(schema_name, table_name) THEN
		PERFORM ots.unschedule_purge(schema_name, table_name);
	END IF;
	PERFORM ots.purge_unlock(lock_key);
END
$$;

ALTER POLICY purge_stats_read ON ots.purge_stats USING (ots.table_visible(schema_name, table_name));

-- rows as the reader may see them (ots.table_visible, through RLS)
CREATE OR REPLACE VIEW ots.stats WITH (security_invoker) AS
SELECT t.schema_name,
	   t.table_name,
	   l.live_rows,
	   s.rows_read,
	   s.rows_written,
	   s.read_cu,
	   s.write_cu,
	   coalesce(p.cells_purged, 0) AS cells_purged,
	   coalesce(p.rows_purged, 0) AS rows_purged,
	   p.last_purge,
	   p.last_purge_duration
  FROM ots.tables t
  CROSS JOIN LATERAL (SELECT (SELECT c.oid FROM pg_catalog.pg_class c
								JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
							   WHERE n.nspname OPERATOR(pg_catalog.=) t.schema_name
								 AND c.relname OPERATOR(pg_catalog.=) (t.table_name OPERATOR(pg_catalog.||) '$data')
							 )::pg_catalog.regclass AS storage) d
  LEFT JOIN LATERAL ots.stats_counters(d.storage) s ON true
  LEFT JOIN LATERAL (SELECT pg_catalog.sum(c.reltuples) FILTER (WHERE c.reltuples OPERATOR(pg_catalog.>=) 0)::bigint AS live_rows
					   FROM pg_catalog.pg_inherits i
					   JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) i.inhrelid
					  WHERE i.inhparent OPERATOR(pg_catalog.=) d.storage) l ON true
  LEFT JOIN ots.purge_stats p
	ON p.schema_name OPERATOR(pg_catalog.=) t.schema_name AND p.table_name OPERATOR(pg_catalog.=) t.table_name;

-- issue 12 items 2 and 4 together: ots.purge_step reads the options through
-- ots.catalog_lock_options and runs its batch through ots.purge_batch
CREATE OR REPLACE FUNCTION ots.purge_step(schema_name name, table_name name, leaf text, trimming boolean,
							   now_ms bigint, batch_size integer, from_block bigint, end_block bigint,
							   OUT done boolean, OUT next_block bigint, OUT last_block bigint)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	-- join the batch to its leaf by TID (Tid Scan), never by hashing the leaf
	SET enable_hashjoin = off
	SET enable_mergejoin = off
	AS $$
DECLARE
	o record;
	res record;
	blocks bigint;
BEGIN
	done := true;
	-- the batch commits without waiting for its WAL flush: a crash can only
	-- bring back rows reads do not see, which the next purge removes again
	PERFORM set_config('synchronous_commit', 'off', true);
	-- hold the options until this batch commits: update_table waits for it
	SELECT t.time_to_live, t.max_versions INTO o
	  FROM ots.catalog_lock_options(purge_step.schema_name, purge_step.table_name) t;
	IF NOT FOUND THEN
		RETURN;					-- the table was deleted meanwhile
	END IF;

	IF NOT trimming THEN
		IF o.time_to_live = -1 THEN
			RETURN;				-- TTL removed meanwhile
		END IF;
	ELSE
		-- walk the blocks the leaf had when the pass began; rows written
		-- since are trimmed by their writers
		last_block := coalesce(end_block,
							   pg_relation_size(leaf::regclass) / current_setting('block_size')::bigint);
		IF from_block >= last_block THEN
			RETURN;
		END IF;
		SELECT greatest(1, CASE WHEN c.relpages > 0 AND c.reltuples > 0
								THEN (batch_size * c.relpages / c.reltuples)::bigint
								ELSE batch_size / 50 END)
		  INTO blocks
		  FROM pg_class c WHERE c.oid = leaf::regclass;
		next_block := from_block + blocks;
	END IF;

	-- the leaf's own statement, as the table's owner: the table's code
	-- (index expressions, triggers) runs with its owner's rights only
	SELECT * INTO res
	  FROM ots.purge_batch(leaf::regclass, trimming, now_ms, o.time_to_live, o.max_versions, batch_size,
						   from_block, next_block);

	IF res.rows_deleted + res.rows_rewritten > 0 THEN
		INSERT INTO ots.purge_stats AS p (schema_name, table_name, cells_purged, rows_purged)
		VALUES (purge_step.schema_name, purge_step.table_name, res.cells, res.rows_deleted)
		ON CONFLICT ON CONSTRAINT purge_stats_pkey DO UPDATE
		   SET cells_purged = p.cells_purged + excluded.cells_purged,
			   rows_purged = p.rows_purged + excluded.rows_purged;
	END IF;

	IF trimming THEN
		done := next_block >= last_block;
	ELSE
		-- a short batch that handled every candidate ends the pass.  A row
		-- written concurrently since the batch read it is skipped (its TID
		-- changed) and stays a candidate if it still holds expired cells:
		-- the next batch takes it, unless a batch changed nothing at all
		-- (rows rewritten faster than purge gets them: the next run does)
		done := res.rows_deleted + res.rows_rewritten = 0
				OR (res.candidates < batch_size
					AND res.rows_deleted + res.rows_rewritten = res.candidates);
	END IF;
END
$$;
COMMENT ON FUNCTION ots.purge_step(name, name, text, boolean, bigint, integer, bigint, bigint) IS
	'purges one batch of one leaf of an ots table (internal; ots.purge commits after each)';

-- issue 12 items 6, 8, 18: plain DDL on ots tables.  describe_table(NULL)
-- raises "Parameter table_name is missing." as the other table functions
-- do; delete_table forgets the metadata before its DROPs; an event trigger
-- refuses DDL on storage and views that ots's writes would bypass, and
-- another one drops and forgets the whole ots table when its view or
-- storage is dropped with plain DDL (src/sql/60_ddl.sql).
CREATE OR REPLACE FUNCTION ots.describe_table_internal(schema_name name, table_name name) RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	description jsonb;
BEGIN
	-- ots.resolve_name is STRICT: a NULL table name arrives as NULLs
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	description := (SELECT jsonb_build_object(
		'table_name', t.table_name,
		'schema_name', t.schema_name,
		'primary_key', (SELECT jsonb_agg(CASE WHEN k.n = t.auto_increment
											  THEN jsonb_build_object('name', k.name, 'type', t.pk_types[k.n],
																	  'option', 'AUTO_INCREMENT')
											  ELSE jsonb_build_object('name', k.name, 'type', t.pk_types[k.n])
										 END ORDER BY k.n)
						  FROM unnest(t.pk_names) WITH ORDINALITY AS k(name, n)),
		'table_options', jsonb_build_object('max_versions', t.max_versions,
											'time_to_live', t.time_to_live,
											'max_version_offset', t.max_version_offset,
											'allow_update', t.allow_update),
		'hash_prefix_length', t.hash_prefix_length,
		'partitions', (SELECT jsonb_agg(jsonb_build_object('name', c.relname,
														   'bound', pg_get_expr(c.relpartbound, c.oid))
										ORDER BY length(c.relname), c.relname COLLATE "C")
						 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
						WHERE i.inhparent = format('%I.%I', t.schema_name, t.table_name || '$data')::regclass),
		'creation_time', extract(epoch FROM t.created_at)::bigint)
	  FROM ots.tables t
	 WHERE t.schema_name = $1 AND t.table_name = $2);
	IF description IS NULL THEN
		-- ots.tables shows each role only the tables it may see (ots.table_visible)
		IF ots.table_visible(schema_name, table_name) THEN
			PERFORM ots.raise('OTSObjectNotExist', 'Requested table does not exist.');
		END IF;
		RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
			MESSAGE = format('permission denied for ots table %I.%I', schema_name, table_name),
			DETAIL = 'describe_table needs a privilege on the table''s view or storage (and USAGE on its schema), or ownership.';
	END IF;
	RETURN description;
END
$$;


-- Plain DDL on ots tables: two event triggers keep an ots table's storage
-- and view in the shape ots made them, and ots's metadata in step with
-- DROP.  Both are extension members, gone with DROP EXTENSION ots.

-- ots.storage_guard refuses DDL that ots's writes would bypass (triggers,
-- rules, columns, defaults, constraints) or that would lose an ots table
-- (renaming or moving its view or storage): see src/ddl_guard.c
CREATE FUNCTION ots.storage_guard() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'ots_storage_guard' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.storage_guard() IS
	'event trigger: refuses DDL on ots storage and views that ots''s writes would bypass (internal)';

CREATE EVENT TRIGGER ots_storage_guard ON ddl_command_start
	WHEN TAG IN ('ALTER TABLE', 'ALTER VIEW', 'ALTER FOREIGN TABLE', 'CREATE TABLE',
				 'CREATE FOREIGN TABLE', 'CREATE TRIGGER', 'CREATE RULE')
	EXECUTE FUNCTION ots.storage_guard();

-- issue 20: ots.stats_forget_table forgets what ots.stats counts for a
-- table, for delete_table's ots.expiry_forget, ots.stats_reset and
-- ots.forget_dropped_tables (a DROP of the table's storage or view)
CREATE FUNCTION ots.stats_forget_table(schema_name name, table_name name, storage regclass)
	RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	DELETE FROM ots.purge_stats p WHERE p.schema_name = $1 AND p.table_name = $2;
	SELECT ots.stats_forget($3);
$$;
COMMENT ON FUNCTION ots.stats_forget_table(name, name, regclass) IS
	'drops the purge statistics and activity counters of an ots table (internal)';

CREATE OR REPLACE FUNCTION ots.expiry_forget(schema_name name, table_name name) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF NOT coalesce(ots.owns_table(schema_name, table_name), false) THEN
		RETURN;					-- delete_table's DROP reports the error
	END IF;
	PERFORM ots.unschedule_purge(schema_name, table_name);
	PERFORM ots.stats_forget_table(schema_name, table_name,
								   to_regclass(format('%I.%I', schema_name, table_name || '$data')));
END
$$;

CREATE OR REPLACE FUNCTION ots.stats_reset_internal(schema_name name, table_name name) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
BEGIN
	FOR t IN SELECT o.schema_name, o.table_name FROM ots.tables o
			  WHERE coalesce(ots.owns_table(o.schema_name, o.table_name), false)
				AND (stats_reset_internal.table_name IS NULL
					 OR (o.schema_name = stats_reset_internal.schema_name
						 AND o.table_name = stats_reset_internal.table_name)) LOOP
		PERFORM ots.stats_forget_table(t.schema_name, t.table_name,
									   format('%I.%I', t.schema_name, t.table_name || '$data')::regclass);
	END LOOP;
END
$$;

-- ots.forget_dropped_tables: the ots tables whose view or storage the
-- current DROP removed, after removing their metadata, purge job, purge
-- statistics and activity counters.  SECURITY DEFINER, as ots's catalog is
-- not the dropping role's to write; it acts only on what
-- pg_event_trigger_dropped_objects() reports, so it does nothing outside
-- an sql_drop event trigger (it raises an error there).
CREATE FUNCTION ots.forget_dropped_tables() RETURNS TABLE (schema_name name, table_name name)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
BEGIN
	FOR t IN
		SELECT o.schema_name, o.table_name,
			   max(d.objid) FILTER (WHERE d.object_type = 'table') AS storage
		  FROM pg_event_trigger_dropped_objects() d
		  -- a temporary relation is reported in schema "pg_temp"
		  CROSS JOIN LATERAL (SELECT CASE WHEN d.is_temporary
										  THEN (SELECT n.nspname FROM pg_namespace n
												 WHERE n.oid = pg_my_temp_schema())
										  ELSE d.schema_name END AS name) s
		  JOIN ots.tables o
			ON o.schema_name = s.name
		   AND ((d.object_type = 'view' AND d.object_name = o.table_name)
				OR (d.object_type = 'table' AND d.object_name = o.table_name || '$data'))
		 WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0
		 GROUP BY o.schema_name, o.table_name
	LOOP
		-- what ots.expiry_forget removes for delete_table, here by the dropped OID
		PERFORM ots.unschedule_purge(t.schema_name, t.table_name);
		PERFORM ots.stats_forget_table(t.schema_name, t.table_name,
									   coalesce(t.storage::regclass,
												to_regclass(format('%I.%I', t.schema_name, t.table_name || '$data'))));
		DELETE FROM ots.tables o
		 WHERE o.schema_name = t.schema_name AND o.table_name = t.table_name;
		schema_name := t.schema_name;
		table_name := t.table_name;
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.forget_dropped_tables() IS
	'in an sql_drop event trigger: forgets the ots tables whose view or storage was dropped (internal)';

-- ots.storage_dropped: a DROP of an ots table's view or storage drops the
-- ots table: its bookkeeping is forgotten, and what the DROP left of it
-- (the storage when only the view went, the AUTO_INCREMENT sequence) is
-- dropped with the rights of the role that dropped the rest.
-- ots.delete_table forgets the table first, so this finds nothing to do.
CREATE FUNCTION ots.storage_dropped() RETURNS event_trigger
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
BEGIN
	FOR t IN SELECT f.schema_name, f.table_name FROM ots.forget_dropped_tables() f LOOP
		IF to_regclass(format('%I.%I', t.schema_name, t.table_name || '$data')) IS NOT NULL THEN
			EXECUTE format('DROP TABLE %I.%I', t.schema_name, t.table_name || '$data');
		END IF;
		IF to_regclass(format('%I.%I', t.schema_name, t.table_name || '$seq')) IS NOT NULL THEN
			EXECUTE format('DROP SEQUENCE %I.%I', t.schema_name, t.table_name || '$seq');
		END IF;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.storage_dropped() IS
	'event trigger: dropping an ots table''s view or storage drops the ots table and forgets it (internal)';

CREATE EVENT TRIGGER ots_storage_dropped ON sql_drop
	EXECUTE FUNCTION ots.storage_dropped();

-- issue 12 items 2 and 8 together: delete_table removes its metadata through
-- ots.catalog_delete before its DROPs, so the sql_drop event trigger has nothing left to do
CREATE OR REPLACE FUNCTION ots.delete_table_internal(schema_name name, table_name name) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	-- expiry hook (50_expiry.sql): purge job, purge and activity counters go first
	PERFORM ots.expiry_forget(delete_table_internal.schema_name, delete_table_internal.table_name);
	-- metadata before the DROPs: the storage still shows who owns the table,
	-- and the sql_drop event trigger (60_ddl.sql) has nothing left to do
	PERFORM ots.catalog_delete(delete_table_internal.schema_name, delete_table_internal.table_name);
	EXECUTE format('DROP VIEW %I.%I', schema_name, table_name);
	EXECUTE format('DROP TABLE %I.%I', schema_name, table_name || '$data');
	IF to_regclass(format('%I.%I', schema_name, table_name || '$seq')) IS NOT NULL THEN
		EXECUTE format('DROP SEQUENCE %I.%I', schema_name, table_name || '$seq');
	END IF;
END
$$;
COMMENT ON FUNCTION ots.delete_table_internal(name, name) IS 'drops a resolved ots table (internal)';

-- review of issue 12, item 1: OWNER TO on the storage carries the
-- partitions, view and sequence along, and a part alone keeps the
-- storage's owner; the guard also sees ALTER SEQUENCE (and, issue 20, CREATE
-- SCHEMA, whose CREATE TABLE ... PARTITION OF fires no trigger of its own).
-- issue 31: COMMENT (a restore registers its tables from the storage's
-- comment, items 12-15); DROP TABLE and DROP SCHEMA (a leaf's rows leave
-- its table's indexes, item 10); CREATE and ALTER PUBLICATION (what a
-- subscriber's ots writes itself is not published, item 16)
DROP EVENT TRIGGER ots_storage_guard;
CREATE EVENT TRIGGER ots_storage_guard ON ddl_command_start
	WHEN TAG IN ('ALTER TABLE', 'ALTER VIEW', 'ALTER FOREIGN TABLE', 'CREATE TABLE',
				 'CREATE FOREIGN TABLE', 'CREATE TRIGGER', 'CREATE RULE', 'ALTER SEQUENCE',
				 'CREATE SCHEMA', 'COMMENT', 'DROP TABLE', 'DROP SCHEMA',
				 'CREATE PUBLICATION', 'ALTER PUBLICATION')
	EXECUTE FUNCTION ots.storage_guard();

-- issue 20 item 7: the install script's PL/pgSQL takes Tablestore's limits and
-- the column-name rule from C (ots.limit, ots.check_column_name over
-- src/ots_limits.h and catalog.c) instead of spelling them again
CREATE FUNCTION ots.limit(name text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_limit' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.limit(text) IS
	'the value of the ots limit OTS_<NAME> (e.g. ''max_pk_columns'') of src/ots_limits.h (internal)';

CREATE FUNCTION ots.check_column_name(name text) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_check_column_name' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.check_column_name(text) IS
	'raises OTSParameterInvalid unless name is a valid column name (internal)';

CREATE OR REPLACE FUNCTION ots.check_table_options(max_versions integer, time_to_live bigint,
										max_version_offset bigint) RETURNS void
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF max_versions IS NOT NULL AND max_versions < 1 THEN
		PERFORM ots.raise('OTSParameterInvalid', 'MaxVersions must be greater than 0.',
						  format('max_versions was %s.', max_versions));
	END IF;
	IF time_to_live IS NOT NULL AND (time_to_live = 0 OR time_to_live < -1) THEN
		PERFORM ots.raise('OTSParameterInvalid', 'TimeToLive cannot be 0 or less than -1.');
	END IF;
	IF time_to_live IS NOT NULL AND time_to_live > ots.limit('max_time_to_live') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('TimeToLive must be in range [1, %s] or -1.', ots.limit('max_time_to_live')),
						  format('time_to_live was %s seconds.', time_to_live));
	END IF;
	IF max_version_offset IS NOT NULL
	   AND (max_version_offset < 0 OR max_version_offset > ots.limit('max_version_offset')) THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  'The maximum deviation must be in range [0, INT64_MAX/1000000].');
	END IF;
END
$$;
COMMENT ON FUNCTION ots.check_table_options(integer, bigint, bigint) IS 'validates table options (internal)';

-- issue 20 item 7: create_table_internal split at its seams (primary key,
-- options, storage, view)
CREATE FUNCTION ots.create_table_parse_pk(primary_key text, table_name name, OUT pk_names text[],
										  OUT pk_types text[], OUT auto_col smallint)
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	specs text[];
	words text[];
	pk_name text;
	pk_type text;
BEGIN
	pk_names := '{}';
	pk_types := '{}';
	specs := regexp_split_to_array(nullif(btrim(primary_key), ''), '\s*,\s*');
	IF coalesce(cardinality(specs), 0) NOT BETWEEN ots.limit('min_pk_columns') AND ots.limit('max_pk_columns') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('The number of primary key columns must be in range: [%s, %s].',
								 ots.limit('min_pk_columns'), ots.limit('max_pk_columns')));
	END IF;

	FOR i IN 1 .. cardinality(specs) LOOP
		words := regexp_split_to_array(btrim(specs[i]), '\s+');
		IF cardinality(words) NOT IN (2, 3)
		   OR (cardinality(words) = 3 AND lower(words[3]) <> 'auto_increment') THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Invalid primary key definition: ''%s''.', specs[i]),
							  'Each primary key column is "<name> <type>" or "<name> integer auto_increment", separated by commas.');
		END IF;
		pk_name := words[1];
		PERFORM ots.check_column_name(pk_name);
		IF octet_length(pk_name) > 63 THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Invalid column name: ''%s''.', pk_name),
							  'ots primary key column names are limited to 63 bytes, as PostgreSQL column names are.');
		END IF;
		pk_type := CASE lower(words[2])
			WHEN 'string' THEN 'STRING' WHEN 'text' THEN 'STRING'
			WHEN 'integer' THEN 'INTEGER' WHEN 'int' THEN 'INTEGER' WHEN 'bigint' THEN 'INTEGER'
			WHEN 'int8' THEN 'INTEGER'
			WHEN 'binary' THEN 'BINARY' WHEN 'bytea' THEN 'BINARY' WHEN 'blob' THEN 'BINARY'
			WHEN 'double' THEN 'DOUBLE' WHEN 'float8' THEN 'DOUBLE' WHEN 'float' THEN 'DOUBLE'
			WHEN 'boolean' THEN 'BOOLEAN' WHEN 'bool' THEN 'BOOLEAN'
			END;
		IF pk_type IN ('DOUBLE', 'BOOLEAN') THEN
			PERFORM ots.raise('OTSParameterInvalid', format('%s is an invalid type for the primary key.', pk_type));
		ELSIF pk_type IS NULL THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Invalid primary key type: ''%s''.', words[2]),
							  'Primary key types are string, integer and binary (or text, bigint, bytea).');
		END IF;
		IF pk_name = ANY (pk_names) THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Duplicated primary key name: ''%s''.', pk_name));
		END IF;
		IF cardinality(words) = 3 THEN
			IF pk_type <> 'INTEGER' THEN
				PERFORM ots.raise('OTSParameterInvalid', 'AUTO_INCREMENT primary key must be integer.');
			END IF;
			IF auto_col IS NOT NULL THEN
				PERFORM ots.raise('OTSParameterInvalid', 'AUTO_INCREMENT primary key count must <= 1.');
			END IF;
			IF i = 1 THEN
				PERFORM ots.raise('OTSParameterInvalid',
								  format('First primary key can''t be auto increment, table: %s.', table_name));
			END IF;
			auto_col := i;
		END IF;
		pk_names := pk_names || pk_name;
		pk_types := pk_types || pk_type;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.create_table_parse_pk(text, name) IS
	'the primary key columns, types and AUTO_INCREMENT column of create_table''s primary_key argument (internal)';

CREATE FUNCTION ots.create_table_check_options(max_versions integer, time_to_live bigint,
											   max_version_offset bigint, allow_update boolean,
											   partitions integer, hash_prefix_length integer) RETURNS void
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	PERFORM ots.check_table_options(max_versions, time_to_live, max_version_offset);
	IF max_versions IS NULL OR time_to_live IS NULL OR max_version_offset IS NULL OR allow_update IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Table options must not be NULL.',
						  'Omit an option to get its default.');
	END IF;
	IF hash_prefix_length IS NULL OR hash_prefix_length < 0 OR hash_prefix_length > ots.limit('max_hash_prefix_len') THEN
		PERFORM ots.raise('OTSParameterInvalid', format('Invalid hash prefix length: %s.', coalesce(hash_prefix_length::text, 'NULL')),
						  format('hash_prefix_length is 0 (no prefix) or a number of hex digits from 1 to %s.',
								 ots.limit('max_hash_prefix_len')));
	END IF;
	IF partitions IS NULL OR partitions < 1 OR partitions > ots.limit('max_partitions')
	   OR (hash_prefix_length > 0 AND partitions > 16::bigint ^ hash_prefix_length) THEN
		PERFORM ots.raise('OTSParameterInvalid', format('Invalid number of partitions: %s.', coalesce(partitions::text, 'NULL')),
						  format('partitions is from 1 to %s, and at most 16^hash_prefix_length.',
								 ots.limit('max_partitions')));
	END IF;
END
$$;
COMMENT ON FUNCTION ots.create_table_check_options(integer, bigint, bigint, boolean, integer, integer) IS
	'validates create_table''s options (internal)';

CREATE FUNCTION ots.create_table_storage(schema_name name, table_name name, pk_names text[],
										 pk_types text[], auto_col smallint, partitions integer,
										 hash_prefix_length integer) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	storage text := format('%I.%I', schema_name, table_name || '$data');
	columns text;
	key_columns text;
	key_space bigint := CASE WHEN hash_prefix_length > 0 THEN 16::bigint ^ hash_prefix_length END;
BEGIN
	SELECT string_agg(format('%I %s NOT NULL, ', k.name,
							 CASE k.type WHEN 'STRING' THEN 'pg_catalog.text COLLATE "C"'
										 WHEN 'INTEGER' THEN 'pg_catalog.int8' ELSE 'pg_catalog.bytea' END),
					  '' ORDER BY k.i),
		   string_agg(format('%I', k.name), ', ' ORDER BY k.i)
	  INTO columns, key_columns
	  FROM unnest(pk_names, pk_types) WITH ORDINALITY AS k(name, type, i);
	IF hash_prefix_length > 0 THEN
		columns := '"$hash" pg_catalog.int8 NOT NULL, ' || columns;
		key_columns := '"$hash", ' || key_columns;
	END IF;
	-- lz4: a read of the latest versions decompresses the whole (large) row, several times faster than pglz
	BEGIN
		EXECUTE format('CREATE TABLE %s (%s"$cells" ots.cells COMPRESSION lz4 NOT NULL, "$oldest_ts" pg_catalog.int8 NOT NULL,'
					   ' PRIMARY KEY (%s)) PARTITION BY %s',
					   storage, columns, key_columns,
					   CASE WHEN hash_prefix_length > 0 THEN 'RANGE ("$hash")'
							ELSE format('HASH (%I)', pk_names[1]) END);
	EXCEPTION WHEN unique_violation THEN
		-- a concurrent create_table of this name committed while this one waited
		PERFORM ots.raise('OTSObjectAlreadyExist', 'Requested table already exists.',
						  format('A relation named %I.%I already exists.', schema_name, table_name));
	END;
	FOR i IN 0 .. partitions - 1 LOOP
		EXECUTE format('CREATE TABLE %I.%I PARTITION OF %s FOR VALUES %s USING ots WITH (fillfactor = 90)',
					   schema_name, table_name || '$p' || i, storage,
					   CASE WHEN hash_prefix_length > 0
							THEN format('FROM (%s) TO (%s)', key_space * i / partitions,
										key_space * (i + 1) / partitions)
							ELSE format('WITH (MODULUS %s, REMAINDER %s)', partitions, i) END);
	END LOOP;
	IF auto_col IS NOT NULL THEN
		EXECUTE format('CREATE SEQUENCE %I.%I', schema_name, table_name || '$seq');
	END IF;
	-- the storage's comment is written with the table's row of ots.tables (src/catalog_write.c)
END
$$;
COMMENT ON FUNCTION ots.create_table_storage(name, name, text[], text[], smallint, integer, integer) IS
	'creates the storage, leaf partitions and sequence of a new ots table (internal)';

CREATE FUNCTION ots.create_table_view(schema_name name, table_name name, pk_names text[]) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	storage text := format('%I.%I', schema_name, table_name || '$data');
	view_name text := format('%I.%I', schema_name, table_name);
	view_columns text;
	attributes_column text := CASE WHEN 'attributes' = ANY (pk_names) THEN '$attributes' ELSE 'attributes' END;
BEGIN
	SELECT string_agg(format('d.%I, ', k.name), '' ORDER BY k.i) INTO view_columns
	  FROM unnest(pk_names) WITH ORDINALITY AS k(name, i);
	-- a security barrier: a caller's leaky function never sees rows the view hides
	EXECUTE format('CREATE VIEW %s WITH (security_barrier) AS SELECT %sots.row_attributes(d."$cells", %L::pg_catalog.regclass) AS %I'
				   ' FROM %s d WHERE ots.row_exists(d."$cells", %L::pg_catalog.regclass)',
				   view_name, view_columns, storage, attributes_column, storage, storage);
	-- the view is read-only: plain DML would bypass ots's rules (limits, hash prefix, cells)
	EXECUTE format('CREATE TRIGGER "ots_read_only" INSTEAD OF INSERT OR UPDATE OR DELETE ON %s'
				   ' FOR EACH ROW EXECUTE FUNCTION ots.view_write_rejected()', view_name);
	EXECUTE format('COMMENT ON VIEW %s IS %L', view_name,
				   'ots table: live rows (TTL and max_versions applied), primary key columns and latest attributes');
END
$$;
COMMENT ON FUNCTION ots.create_table_view(name, name, text[]) IS
	'creates the view of a new ots table (internal)';

-- issue 20 item 7: a purge batch rewrites a row with ots.purge_row, whose
-- "$oldest_ts" the cells builder reports, instead of ots.purge_cells and
-- ots.purge_oldest_ts, which decoded the row again (they go)
CREATE FUNCTION ots.purge_row(cells ots.cells, time_to_live bigint, max_versions integer, now_ms bigint,
							  OUT purged ots.cells, OUT oldest_ts bigint)
	AS 'MODULE_PATHNAME', 'ots_purge_row' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.purge_row(ots.cells, bigint, integer, bigint) IS
	'what the purge stores for a row: the cells reads see under these options at now_ms (row marker kept) and their "$oldest_ts", as the cells builder reports it (NULLs when the row no longer exists)';
DROP FUNCTION ots.purge_cells(ots.cells, bigint, integer, bigint);
DROP FUNCTION ots.purge_oldest_ts(ots.cells, bigint, integer, bigint);
COMMENT ON FUNCTION ots.cells_purgeable(ots.cells, bigint, integer, bigint) IS
	'whether ots.purge_row would change the row (remove a cell or the row)';

-- issue 20: plain SQL could store rows in 0.1.0 that 0.2.0's write point
-- refuses ("$oldest_ts" not the timestamp of the row's oldest cell, "$hash"
-- not the hash prefix of its partition key); SET ACCESS METHOD above
-- copied them as they were, and a pg_restore of a dump would refuse them:
-- they are named here, with the statement that repairs them.  issue 31:
-- each leaf is read alone, as its owner, in a security-restricted
-- operation (ots.upgrade_count_as_owner, src/upgrade.c): planning a query
-- runs the leaf's owner's code (immutable calls in its indexes' expressions
-- and predicates, its extended statistics, a partition's CHECK constraints),
-- which must never run as the superuser who updates
CREATE FUNCTION ots.upgrade_count_as_owner(relation regclass, query text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_upgrade_count_as_owner' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
DO $$
DECLARE
	t record;
	leaf record;
	storage text;
	hash_fix text := '';
	hash_bad text := '';
	bad bigint;
BEGIN
	FOR t IN
		SELECT tb.schema_name, tb.table_name, tb.pk_names[1] AS partition_key,
			   tb.hash_prefix_length
		  FROM ots.tables tb
		 ORDER BY tb.schema_name, tb.table_name
	LOOP
		storage := pg_catalog.format('%I.%I', t.schema_name, t.table_name OPERATOR(pg_catalog.||) '$data');
		CONTINUE WHEN pg_catalog.to_regclass(storage) IS NULL;
		IF t.hash_prefix_length > 0 THEN
			hash_fix := pg_catalog.format(', "$hash" = (''x'' || lpad(ots.hash_prefix(%I, %s), 16, ''0''))::bit(64)::int8',
										  t.partition_key, t.hash_prefix_length);
			hash_bad := pg_catalog.format(' OR "$hash" <> (''x'' || lpad(ots.hash_prefix(%I, %s), 16, ''0''))::bit(64)::int8',
										  t.partition_key, t.hash_prefix_length);
		ELSE
			hash_fix := '';
			hash_bad := '';
		END IF;
		-- the check runs qualified; the repair it prints is for a person to run
		bad := 0;
		BEGIN
			FOR leaf IN SELECT i.inhrelid AS oid, pg_catalog.format('%I.%I', n.nspname, c.relname) AS name
						  FROM pg_catalog.pg_inherits i
						  JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) i.inhrelid
						  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
						 WHERE i.inhparent OPERATOR(pg_catalog.=) pg_catalog.to_regclass(storage)
						 ORDER BY c.relname LOOP
				bad := bad OPERATOR(pg_catalog.+) ots.upgrade_count_as_owner(leaf.oid, pg_catalog.format(
					'SELECT pg_catalog.count(*) FROM ONLY %s d WHERE d."$oldest_ts" OPERATOR(pg_catalog.<>) ots.cells_oldest_ts(d."$cells")%s',
					leaf.name,
					CASE WHEN t.hash_prefix_length > 0 THEN pg_catalog.format(
						' OR d."$hash" OPERATOR(pg_catalog.<>) (''x'' OPERATOR(pg_catalog.||) pg_catalog.lpad(ots.hash_prefix(d.%I, %s), 16, ''0''))::pg_catalog.bit(64)::pg_catalog.int8',
						t.partition_key, t.hash_prefix_length) ELSE '' END));
			END LOOP;
		EXCEPTION WHEN OTHERS THEN
			-- its owner's code (or rights) failed the read: the table is not checked, the update goes on
			RAISE WARNING 'could not check the rows of ots table %.%: %', pg_catalog.quote_ident(t.schema_name),
				pg_catalog.quote_ident(t.table_name), SQLERRM
				USING HINT = 'Count the rows ots 0.2.0 would not store as the table''s owner: SELECT count(*) FROM '
					|| storage || ' WHERE "$oldest_ts" <> ots.cells_oldest_ts("$cells")' || hash_bad || ';';
			CONTINUE;
		END;
		IF bad > 0 THEN
			RAISE WARNING 'ots table %.% has % rows that ots 0.2.0 would not store',
				pg_catalog.quote_ident(t.schema_name), pg_catalog.quote_ident(t.table_name), bad
				USING DETAIL = 'Their "$oldest_ts" is not the timestamp of their oldest cell'
					|| CASE WHEN t.hash_prefix_length > 0 THEN ', or their "$hash" not the hash prefix of their partition key' ELSE '' END
					|| ': plain SQL stored them under 0.1.0. Any write that keeps them is refused, and a dump whose "$oldest_ts" is wrong does not restore.',
					  HINT = pg_catalog.format('Repair them: UPDATE %s SET "$oldest_ts" = ots.cells_oldest_ts("$cells")%s WHERE "$oldest_ts" <> ots.cells_oldest_ts("$cells")%s',
											   storage, hash_fix, hash_bad);
		END IF;
	END LOOP;
END
$$;
DROP FUNCTION ots.upgrade_count_as_owner(regclass, text);

-- issue 14: ots.row_exists, the row rule of every view, gets a planner
-- support function (src/planner.c): a stored row is estimated to exist,
-- where PostgreSQL's default for a boolean function is a third.
CREATE FUNCTION ots.row_exists_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'ots_row_exists_support' LANGUAGE C STRICT;
COMMENT ON FUNCTION ots.row_exists_support(internal) IS
	'planner support of ots.row_exists: a stored row is estimated to exist';
ALTER FUNCTION ots.row_exists(ots.cells, regclass) SUPPORT ots.row_exists_support;

-- issue 14: one attribute of a view's row, what attributes ->> name and
-- attributes -> name are planned as (src/attribute_pushdown.c)
CREATE FUNCTION ots.row_attribute_text(cells ots.cells, storage regclass, name text) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_row_attribute_text' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_attribute_text(ots.cells, regclass, text) IS
	'ots.row_attributes(cells, storage) ->> name, rendering that column only (what a view''s attributes ->> name is planned as)';
CREATE FUNCTION ots.row_attribute(cells ots.cells, storage regclass, name text) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'ots_row_attribute' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_attribute(ots.cells, regclass, text) IS
	'ots.row_attributes(cells, storage) -> name, rendering that column only (what a view''s attributes -> name is planned as)';

-- issue 15: defined (predefined) columns and secondary indexes
-- (src/sql/35_indexes.sql, src/index_write.c, src/index_build.c).  An
-- index is an ots table of its own, registered in ots.tables with the
-- table it indexes; every write keeps it exact.
ALTER TABLE ots.tables
	ADD COLUMN defined_names text[] NOT NULL DEFAULT '{}',
	ADD COLUMN defined_types text[] NOT NULL DEFAULT '{}',
	ADD COLUMN index_of name,
	ADD COLUMN index_type text,
	ADD COLUMN index_key_count smallint,
	ADD COLUMN index_phase text;
-- an index is visible with its table
ALTER POLICY tables_read ON ots.tables
	USING (ots.table_visible(schema_name, coalesce(index_of, table_name)));

CREATE FUNCTION ots.catalog_set_defined(schema_name name, table_name name, defined_names text[],
										defined_types text[]) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_set_defined' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_set_defined(name, name, text[], text[]) IS
	'sets the defined columns of an ots table the caller owns (internal; create_table, add_defined_column, delete_defined_column)';

CREATE FUNCTION ots.catalog_insert_index(schema_name name, index_name name, table_name name,
										 pk_names text[], pk_types text[], defined_names text[],
										 defined_types text[], index_type text, index_key_count smallint,
										 index_phase text) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_insert_index' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_insert_index(name, name, name, text[], text[], text[], text[], text, smallint, text) IS
	'registers the index table whose storage the caller made, of a table the caller owns (internal; create_index)';

CREATE FUNCTION ots.catalog_set_index_phase(schema_name name, index_name name, index_phase text) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_set_index_phase' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_set_index_phase(name, name, text) IS
	'marks an index the caller owns as building (FULL) or complete (INCR) (internal; create_index, build_index)';

CREATE FUNCTION ots.catalog_index_forgotten(schema_name name, table_name name) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_index_forgotten' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_index_forgotten(name, name) IS
	'makes every session reload an ots table one of whose indexes a DROP removed (internal; the drop clean-up)';

REVOKE EXECUTE ON FUNCTION ots.catalog_index_forgotten(name, name) FROM PUBLIC;

-- create_table takes defined_columns
DROP FUNCTION ots.create_table(text, text, integer, bigint, bigint, boolean, integer, integer);
DROP FUNCTION ots.create_table_internal(name, name, text, integer, bigint, bigint, boolean, integer, integer);

CREATE FUNCTION ots.value_type_named(word text) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT CASE lower(word)
		WHEN 'string' THEN 'STRING' WHEN 'text' THEN 'STRING'
		WHEN 'integer' THEN 'INTEGER' WHEN 'int' THEN 'INTEGER' WHEN 'bigint' THEN 'INTEGER'
		WHEN 'int8' THEN 'INTEGER'
		WHEN 'binary' THEN 'BINARY' WHEN 'bytea' THEN 'BINARY' WHEN 'blob' THEN 'BINARY'
		WHEN 'double' THEN 'DOUBLE' WHEN 'float8' THEN 'DOUBLE' WHEN 'float' THEN 'DOUBLE'
		WHEN 'boolean' THEN 'BOOLEAN' WHEN 'bool' THEN 'BOOLEAN'
		END
$$;
COMMENT ON FUNCTION ots.value_type_named(text) IS
	'the Tablestore type (STRING, INTEGER, BINARY, DOUBLE, BOOLEAN) a type word names (internal)';

CREATE OR REPLACE FUNCTION ots.create_table_parse_pk(primary_key text, table_name name, OUT pk_names text[],
										  OUT pk_types text[], OUT auto_col smallint)
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	specs text[];
	words text[];
	pk_name text;
	pk_type text;
BEGIN
	pk_names := '{}';
	pk_types := '{}';
	specs := regexp_split_to_array(nullif(btrim(primary_key), ''), '\s*,\s*');
	IF coalesce(cardinality(specs), 0) NOT BETWEEN ots.limit('min_pk_columns') AND ots.limit('max_pk_columns') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('The number of primary key columns must be in range: [%s, %s].',
								 ots.limit('min_pk_columns'), ots.limit('max_pk_columns')));
	END IF;

	FOR i IN 1 .. cardinality(specs) LOOP
		words := regexp_split_to_array(btrim(specs[i]), '\s+');
		IF cardinality(words) NOT IN (2, 3)
		   OR (cardinality(words) = 3 AND lower(words[3]) <> 'auto_increment') THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Invalid primary key definition: ''%s''.', specs[i]),
							  'Each primary key column is "<name> <type>" or "<name> integer auto_increment", separated by commas.');
		END IF;
		pk_name := words[1];
		PERFORM ots.check_column_name(pk_name);
		IF octet_length(pk_name) > 63 THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Invalid column name: ''%s''.', pk_name),
							  'ots primary key column names are limited to 63 bytes, as PostgreSQL column names are.');
		END IF;
		pk_type := ots.value_type_named(words[2]);
		IF pk_type IN ('DOUBLE', 'BOOLEAN') THEN
			PERFORM ots.raise('OTSParameterInvalid', format('%s is an invalid type for the primary key.', pk_type));
		ELSIF pk_type IS NULL THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Invalid primary key type: ''%s''.', words[2]),
							  'Primary key types are string, integer and binary (or text, bigint, bytea).');
		END IF;
		IF pk_name = ANY (pk_names) THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Duplicated primary key name: ''%s''.', pk_name));
		END IF;
		IF cardinality(words) = 3 THEN
			IF pk_type <> 'INTEGER' THEN
				PERFORM ots.raise('OTSParameterInvalid', 'AUTO_INCREMENT primary key must be integer.');
			END IF;
			IF auto_col IS NOT NULL THEN
				PERFORM ots.raise('OTSParameterInvalid', 'AUTO_INCREMENT primary key count must <= 1.');
			END IF;
			IF i = 1 THEN
				PERFORM ots.raise('OTSParameterInvalid',
								  format('First primary key can''t be auto increment, table: %s.', table_name));
			END IF;
			auto_col := i;
		END IF;
		pk_names := pk_names || pk_name;
		pk_types := pk_types || pk_type;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.create_table_parse_pk(text, name) IS
	'the primary key columns, types and AUTO_INCREMENT column of create_table''s primary_key argument (internal)';

CREATE FUNCTION ots.parse_defined_columns(defined_columns text, pk_names text[],
										  existing text[] DEFAULT '{}',
										  OUT names text[], OUT types text[])
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	specs text[] := coalesce(regexp_split_to_array(nullif(btrim(defined_columns), ''), '\s*,\s*'), '{}');
	spec text;
	words text[];
	col_type text;
BEGIN
	names := '{}';
	types := '{}';
	IF cardinality(specs) + cardinality(existing) > ots.limit('max_defined_columns') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('The number of defined columns must be in range: [0, %s].',
								 ots.limit('max_defined_columns')));
	END IF;
	FOREACH spec IN ARRAY specs LOOP
		words := regexp_split_to_array(btrim(spec), '\s+');
		IF cardinality(words) <> 2 THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Invalid defined column definition: ''%s''.', spec),
							  'Each defined column is "<name> <type>", separated by commas.');
		END IF;
		PERFORM ots.check_column_name(words[1]);
		IF octet_length(words[1]) > 63 THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Invalid column name: ''%s''.', words[1]),
							  'ots defined column names are limited to 63 bytes, as PostgreSQL column names are.');
		END IF;
		IF words[1] = ANY (pk_names) OR words[1] = ANY (existing) OR words[1] = ANY (names) THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Duplicated column name: ''%s''.', words[1]));
		END IF;
		col_type := ots.value_type_named(words[2]);
		IF col_type IS NULL THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Invalid defined column type: ''%s''.', words[2]),
							  'Defined column types are string, integer, double, boolean and binary.');
		END IF;
		names := names || words[1];
		types := types || col_type;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.parse_defined_columns(text, text[], text[]) IS
	'the names and types of a defined_columns argument (internal)';

CREATE FUNCTION ots.sort_defined_columns(text[], text[], OUT names text[], OUT types text[])
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT coalesce(array_agg(d.name ORDER BY d.name COLLATE "C"), '{}'),
		   coalesce(array_agg(d.type ORDER BY d.name COLLATE "C"), '{}')
	  FROM unnest($1, $2) AS d(name, type)
$$;
COMMENT ON FUNCTION ots.sort_defined_columns(text[], text[]) IS
	'defined columns sorted bytewise by name (internal)';

CREATE FUNCTION ots.create_table_internal(
	schema_name name,
	table_name name,
	primary_key text,
	max_versions integer,
	time_to_live bigint,
	max_version_offset bigint,
	allow_update boolean,
	partitions integer,
	hash_prefix_length integer,
	defined_columns text) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	pk_names text[];
	pk_types text[];
	auto_col smallint;
	view_name text;
	defined record;
BEGIN
	-- ots.resolve_name is STRICT: a NULL table name arrives as NULLs
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	view_name := format('%I.%I', schema_name, table_name);
	SELECT p.pk_names, p.pk_types, p.auto_col INTO pk_names, pk_types, auto_col
	  FROM ots.create_table_parse_pk(primary_key, table_name) p;
	PERFORM ots.create_table_check_options(max_versions, time_to_live, max_version_offset, allow_update,
										   partitions, hash_prefix_length);
	SELECT o.names, o.types INTO defined
	  FROM ots.parse_defined_columns(defined_columns, pk_names) p,
		   ots.sort_defined_columns(p.names, p.types) o;

	IF EXISTS (SELECT 1 FROM ots.tables t
				WHERE t.schema_name = create_table_internal.schema_name
				  AND t.table_name = create_table_internal.table_name)
	   OR to_regclass(view_name) IS NOT NULL
	   OR to_regclass(format('%I.%I', schema_name, table_name || '$data')) IS NOT NULL THEN
		PERFORM ots.raise('OTSObjectAlreadyExist', 'Requested table already exists.',
						  format('A relation named %s already exists.', view_name));
	END IF;

	PERFORM ots.create_table_storage(schema_name, table_name, pk_names, pk_types, auto_col, partitions,
									 hash_prefix_length);
	PERFORM ots.sync_table_view(schema_name, table_name, pk_names, defined.names, defined.types);
	PERFORM ots.catalog_insert(create_table_internal.schema_name, create_table_internal.table_name, pk_names,
							   pk_types, auto_col, max_versions, time_to_live, max_version_offset,
							   allow_update, partitions, hash_prefix_length);
	IF cardinality(defined.names) > 0 THEN
		PERFORM ots.catalog_set_defined(create_table_internal.schema_name, create_table_internal.table_name,
										defined.names, defined.types);
	END IF;
	-- expiry hook (50_expiry.sql): "$oldest_ts" index and purge job when there is a TTL
	PERFORM ots.expiry_sync(create_table_internal.schema_name, create_table_internal.table_name, true);
END
$$;
COMMENT ON FUNCTION ots.create_table_internal(name, name, text, integer, bigint, bigint, boolean, integer, integer, text)
	IS 'creates an ots table in a resolved schema (internal; call ots.create_table)';

CREATE FUNCTION ots.create_table(
	table_name text,
	primary_key text,
	max_versions integer DEFAULT 1,
	time_to_live bigint DEFAULT -1,
	max_version_offset bigint DEFAULT 86400,
	allow_update boolean DEFAULT true,
	partitions integer DEFAULT 8,
	hash_prefix_length integer DEFAULT 0,
	defined_columns text DEFAULT NULL) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.create_table_internal(r.schema_name, r.table_name, primary_key, max_versions,
									 time_to_live, max_version_offset, allow_update, partitions,
									 hash_prefix_length, defined_columns)
	  FROM ots.resolve_name(table_name, true) r;
END;
COMMENT ON FUNCTION ots.create_table(text, text, integer, bigint, bigint, boolean, integer, integer, text) IS
	'creates an ots table: primary_key => ''name type, ...'' (string, integer, binary; integer auto_increment); defined_columns => ''name type, ...''';

-- update_table keeps indexes within their rule, describe_table lists defined
-- columns and indexes, delete_table deletes a table's indexes with it

CREATE OR REPLACE FUNCTION ots.update_table_internal(
	schema_name name,
	table_name name,
	max_versions integer,
	time_to_live bigint,
	max_version_offset bigint,
	allow_update boolean) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	IF max_versions IS NULL AND time_to_live IS NULL AND max_version_offset IS NULL
	   AND allow_update IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'No parameter is specified in table options.');
	END IF;
	PERFORM ots.check_table_options(max_versions, time_to_live, max_version_offset);
	-- an index takes its options from its table; a table's indexes keep it within their rule
	PERFORM ots.index_check_options(update_table_internal.schema_name, update_table_internal.table_name,
									max_versions, time_to_live, allow_update);
	-- owner only; also remembers a lowered max_versions until purged (ots.trimmed_after_update)
	PERFORM ots.catalog_update(update_table_internal.schema_name, update_table_internal.table_name,
							   max_versions, time_to_live, max_version_offset, allow_update);
	-- the indexes' entries expire with their rows: same TTL and max_version_offset
	PERFORM ots.catalog_update(i.schema_name, i.table_name, NULL, update_table_internal.time_to_live,
							   update_table_internal.max_version_offset, NULL)
	   FROM ots.tables i
	  WHERE i.schema_name = update_table_internal.schema_name
		AND i.index_of = update_table_internal.table_name;
	-- expiry hook (50_expiry.sql): index and purge job follow the new options
	PERFORM ots.expiry_sync(update_table_internal.schema_name, update_table_internal.table_name,
							time_to_live IS NOT NULL OR max_versions IS NOT NULL);
END
$$;
COMMENT ON FUNCTION ots.update_table_internal(name, name, integer, bigint, bigint, boolean)
	IS 'changes the options of a resolved ots table (internal; call ots.update_table)';

CREATE OR REPLACE FUNCTION ots.describe_table_internal(schema_name name, table_name name) RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	description jsonb;
BEGIN
	-- ots.resolve_name is STRICT: a NULL table name arrives as NULLs
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	description := (SELECT jsonb_build_object(
		'table_name', t.table_name,
		'schema_name', t.schema_name,
		'primary_key', (SELECT jsonb_agg(CASE WHEN k.n = t.auto_increment
											  THEN jsonb_build_object('name', k.name, 'type', t.pk_types[k.n],
																	  'option', 'AUTO_INCREMENT')
											  ELSE jsonb_build_object('name', k.name, 'type', t.pk_types[k.n])
										 END ORDER BY k.n)
						  FROM unnest(t.pk_names) WITH ORDINALITY AS k(name, n)),
		'table_options', jsonb_build_object('max_versions', t.max_versions,
											'time_to_live', t.time_to_live,
											'max_version_offset', t.max_version_offset,
											'allow_update', t.allow_update),
		'defined_columns', (SELECT coalesce(jsonb_agg(jsonb_build_object('name', d.name, 'type', d.type)
													  ORDER BY d.n), '[]')
							  FROM unnest(t.defined_names, t.defined_types) WITH ORDINALITY AS d(name, type, n)),
		'index_metas', (SELECT coalesce(jsonb_agg(ots.index_meta(i) ORDER BY i.table_name COLLATE "C"), '[]')
						  FROM ots.tables i
						 WHERE i.schema_name = t.schema_name AND i.index_of = t.table_name),
		'hash_prefix_length', t.hash_prefix_length,
		'partitions', (SELECT jsonb_agg(jsonb_build_object('name', c.relname,
														   'bound', pg_get_expr(c.relpartbound, c.oid))
										ORDER BY length(c.relname), c.relname COLLATE "C")
						 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
						WHERE i.inhparent = format('%I.%I', t.schema_name, t.table_name || '$data')::regclass),
		'creation_time', extract(epoch FROM t.created_at)::bigint)
		|| CASE WHEN t.index_of IS NOT NULL
				THEN jsonb_build_object('index_of', t.index_of, 'index_meta', ots.index_meta(t))
				ELSE '{}' END
	  FROM ots.tables t
	 WHERE t.schema_name = $1 AND t.table_name = $2);
	IF description IS NULL THEN
		-- ots.tables shows each role only the tables it may see (ots.table_visible)
		IF ots.table_visible(schema_name, table_name) THEN
			PERFORM ots.raise('OTSObjectNotExist', 'Requested table does not exist.');
		END IF;
		RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
			MESSAGE = format('permission denied for ots table %I.%I', schema_name, table_name),
			DETAIL = 'describe_table needs a privilege on the table''s view or storage (and USAGE on its schema), or ownership.';
	END IF;
	RETURN description;
END
$$;
COMMENT ON FUNCTION ots.describe_table_internal(name, name) IS 'describes a resolved ots table (internal)';

CREATE OR REPLACE FUNCTION ots.delete_table_internal(schema_name name, table_name name) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	IF EXISTS (SELECT 1 FROM ots.tables i
				WHERE i.schema_name = delete_table_internal.schema_name
				  AND i.table_name = delete_table_internal.table_name AND i.index_of IS NOT NULL) THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Can''t delete index table directly.',
						  'Delete an index with ots.delete_index(table, index_name).');
	END IF;
	-- a table's indexes go with it (35_indexes.sql)
	PERFORM ots.delete_index_internal(i.schema_name, i.index_of, i.table_name)
	   FROM ots.tables i
	  WHERE i.schema_name = delete_table_internal.schema_name
		AND i.index_of = delete_table_internal.table_name;
	-- expiry hook (50_expiry.sql): purge job, purge and activity counters go first
	PERFORM ots.expiry_forget(delete_table_internal.schema_name, delete_table_internal.table_name);
	-- metadata before the DROPs: the storage still shows who owns the table,
	-- and the sql_drop event trigger (60_ddl.sql) has nothing left to do
	PERFORM ots.catalog_delete(delete_table_internal.schema_name, delete_table_internal.table_name);
	EXECUTE format('DROP VIEW %I.%I', schema_name, table_name);
	EXECUTE format('DROP TABLE %I.%I', schema_name, table_name || '$data');
	IF to_regclass(format('%I.%I', schema_name, table_name || '$seq')) IS NOT NULL THEN
		EXECUTE format('DROP SEQUENCE %I.%I', schema_name, table_name || '$seq');
	END IF;
END
$$;
COMMENT ON FUNCTION ots.delete_table_internal(name, name) IS 'drops a resolved ots table (internal)';

-- review of issue 31, finding 2 (defined here, before the drop clean-up below uses it)
-- ots.relation_owner: the owner of a relation, or of the last relation of
-- that name this transaction dropped (src/dropped.c).  The relations ots
-- finds by name beside a table's storage (its view, sequence, stream's log
-- and records) are the table's only when they have the storage's owner:
-- the drop clean-up below acts on no other.
CREATE FUNCTION ots.relation_owner(schema_name name, relation_name name) RETURNS oid
	AS 'MODULE_PATHNAME', 'ots_relation_owner' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION ots.relation_owner(name, name) IS
	'the owner of a relation, or of the last one of that name this transaction dropped (internal; the drop clean-up)';

-- a DROP of a table's view or storage drops its indexes too
CREATE OR REPLACE FUNCTION ots.forget_dropped_tables() RETURNS TABLE (schema_name name, table_name name)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
	i record;
	base name;
BEGIN
	FOR t IN
		SELECT o.schema_name, o.table_name,
			   max(d.objid) FILTER (WHERE d.object_type = 'table') AS storage
		  FROM pg_event_trigger_dropped_objects() d
		  -- a temporary relation is reported in schema "pg_temp"
		  CROSS JOIN LATERAL (SELECT CASE WHEN d.is_temporary
										  THEN (SELECT n.nspname FROM pg_namespace n
												 WHERE n.oid = pg_my_temp_schema())
										  ELSE d.schema_name END AS name) s
		  JOIN ots.tables o
			ON o.schema_name = s.name
		   AND ((d.object_type = 'view' AND d.object_name = o.table_name)
				OR (d.object_type = 'table' AND d.object_name = o.table_name || '$data'))
		 WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0
		   -- a view ots.sync_table_view makes again is not its table dropped
		   AND d.objid <> ots.view_replaced()
		   AND ots.relation_owner(s.name, d.object_name) = ots.relation_owner(s.name, o.table_name || '$data')
		 GROUP BY o.schema_name, o.table_name
	LOOP
		-- what ots.expiry_forget removes for delete_table, here by the dropped OID
		PERFORM ots.unschedule_purge(t.schema_name, t.table_name);
		PERFORM ots.stats_forget_table(t.schema_name, t.table_name,
									   coalesce(t.storage::regclass,
												to_regclass(format('%I.%I', t.schema_name, t.table_name || '$data'))));
		DELETE FROM ots.tables o
		 WHERE o.schema_name = t.schema_name AND o.table_name = t.table_name
		RETURNING o.index_of INTO base;
		-- an index gone: its table's writers stop maintaining it
		IF base IS NOT NULL THEN
			PERFORM ots.catalog_index_forgotten(t.schema_name, base);
		END IF;
		schema_name := t.schema_name;
		table_name := t.table_name;
		RETURN NEXT;
		-- a table gone: its indexes go with it (their relations are the caller's to drop)
		FOR i IN DELETE FROM ots.tables o
				  WHERE o.schema_name = t.schema_name AND o.index_of = t.table_name
				 RETURNING o.table_name LOOP
			table_name := i.table_name;
			RETURN NEXT;
		END LOOP;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.forget_dropped_tables() IS
	'in an sql_drop event trigger: forgets the ots tables whose view or storage was dropped (internal)';

CREATE OR REPLACE FUNCTION ots.storage_dropped() RETURNS event_trigger
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
BEGIN
	FOR t IN SELECT f.schema_name, f.table_name FROM ots.forget_dropped_tables() f LOOP
		-- the view of an index whose table went (a table's view goes with its storage), with
		-- what depends on it: the table it indexes is what the DROP asked to remove
		IF (SELECT c.relkind FROM pg_class c
			 WHERE c.oid = to_regclass(format('%I.%I', t.schema_name, t.table_name))) = 'v' THEN
			EXECUTE format('DROP VIEW %I.%I CASCADE', t.schema_name, t.table_name);
		END IF;
		IF to_regclass(format('%I.%I', t.schema_name, t.table_name || '$data')) IS NOT NULL THEN
			EXECUTE format('DROP TABLE %I.%I', t.schema_name, t.table_name || '$data');
		END IF;
		IF to_regclass(format('%I.%I', t.schema_name, t.table_name || '$seq')) IS NOT NULL THEN
			EXECUTE format('DROP SEQUENCE %I.%I', t.schema_name, t.table_name || '$seq');
		END IF;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.storage_dropped() IS
	'event trigger: dropping an ots table''s view or storage drops the ots table and forgets it (internal)';

-- an index is never purged itself: its entries go with its table's rows

CREATE OR REPLACE FUNCTION ots.expiry_needed(schema_name name, table_name name) RETURNS boolean
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	-- an index's entries go with its base table's rows (src/index_write.c): it is never purged itself
	SELECT coalesce(bool_or(t.time_to_live <> -1 OR t.trimmed_max_versions > t.max_versions), false)
	  FROM ots.tables t
	 WHERE t.schema_name = $1 AND t.table_name = $2 AND t.index_of IS NULL
$$;
COMMENT ON FUNCTION ots.expiry_needed(name, name) IS
	'whether an ots table has a TTL or versions beyond max_versions left to trim (internal)';

-- ots.index_meta: an index's description, as describe_table lists it
CREATE FUNCTION ots.index_meta(i ots.tables) RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT jsonb_build_object(
		'name', i.table_name,
		'primary_key', to_jsonb(i.pk_names[1:i.index_key_count]),
		'defined_column', to_jsonb(i.defined_names),
		'index_type', i.index_type,
		-- both kinds are kept in the writing transaction
		'index_update_mode', 'IUM_SYNC_INDEX',
		'index_sync_phase', CASE i.index_phase WHEN 'FULL' THEN 'FULL' ELSE 'INCR' END,
		-- an index made without the rows before it lists only rows written since
		'include_base_data', i.index_phase <> 'INCR_ONLY')
$$;
COMMENT ON FUNCTION ots.index_meta(ots.tables) IS 'an index''s name, key, covered columns, type and phase (internal)';

-- ots.index_check_options: update_table's new options against the indexes'
-- rule (max_versions 1; no TTL, or no updates), and no options of an index
CREATE FUNCTION ots.index_check_options(schema_name name, table_name name, max_versions integer,
										time_to_live bigint, allow_update boolean) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t ots.tables;
BEGIN
	SELECT * INTO t FROM ots.tables o WHERE o.schema_name = $1 AND o.table_name = $2;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	IF t.index_of IS NOT NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Can''t update index table directly.',
						  'An index takes its options from its table.');
	END IF;
	IF coalesce(ots.owns_table(t.schema_name, t.table_name), false) THEN
		-- a create_index in progress finishes first (or waits for this); others fail in catalog_update
		t := ots.ddl_table(schema_name, table_name, 'Can''t update index table directly.');
	END IF;
	IF EXISTS (SELECT 1 FROM ots.tables i WHERE i.schema_name = $1 AND i.index_of = $2) THEN
		PERFORM ots.index_check_base_options(coalesce(max_versions, t.max_versions),
											 coalesce(time_to_live, t.time_to_live),
											 coalesce(allow_update, t.allow_update));
	END IF;
END
$$;
COMMENT ON FUNCTION ots.index_check_options(name, name, integer, bigint, boolean) IS
	'refuses options an index or a table with indexes cannot have (internal; update_table)';

-- ots.index_check_base_options: the options a table with indexes must have
CREATE FUNCTION ots.index_check_base_options(max_versions integer, time_to_live bigint,
											 allow_update boolean) RETURNS void
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF max_versions <> 1 THEN
		PERFORM ots.raise('OTSParameterInvalid', 'The max version of table with index must be 1.',
						  format('max_versions would be %s.', max_versions));
	END IF;
	IF time_to_live <> -1 AND allow_update THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  'The table with index must have TTL -1, or disallow updates (allow_update = false).');
	END IF;
END
$$;
COMMENT ON FUNCTION ots.index_check_base_options(integer, bigint, boolean) IS
	'refuses options a table with secondary indexes cannot have (internal)';

-- ots.index_of: the index index_name of table schema.table_name;
-- OTSObjectNotExist when the table has no such index
CREATE FUNCTION ots.index_of(schema_name name, table_name name, index_name text) RETURNS ots.tables
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	i ots.tables;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM ots.tables t
					WHERE t.schema_name = $1 AND t.table_name = $2 AND t.index_of IS NULL) THEN
		PERFORM ots.raise('OTSObjectNotExist', 'Requested table does not exist.');
	END IF;
	SELECT * INTO i FROM ots.tables t
	 WHERE t.schema_name = $1 AND t.table_name = $3 AND t.index_of = $2;
	IF NOT FOUND THEN
		PERFORM ots.raise('OTSObjectNotExist', 'Requested table does not exist.',
						  format('Table %I.%I has no index %s.', schema_name, table_name, quote_ident(index_name)));
	END IF;
	RETURN i;
END
$$;
COMMENT ON FUNCTION ots.index_of(name, name, text) IS 'an index of an ots table (internal)';

-- ots.require_owner: raises insufficient_privilege, naming table shown,
-- unless the caller owns ots table schema.table_name
CREATE FUNCTION ots.require_owner(schema_name name, table_name name, shown name) RETURNS void
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF NOT coalesce(ots.owns_table(schema_name, table_name), false) THEN
		RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
			MESSAGE = format('must be owner of ots table %I.%I', schema_name, shown);
	END IF;
END
$$;
COMMENT ON FUNCTION ots.require_owner(name, name, name) IS
	'refuses a caller that does not own an ots table (internal)';

-- ots.ddl_table: the row of table schema.table_name, for a change of its
-- definition by its owner, with its storage locked SHARE UPDATE EXCLUSIVE
-- (one such change at a time; readers and writers go on) and read again
-- after the lock; on an index, index_error
CREATE FUNCTION ots.ddl_table(schema_name name, table_name name, index_error text) RETURNS ots.tables
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t ots.tables;
BEGIN
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	SELECT * INTO t FROM ots.tables o WHERE o.schema_name = $1 AND o.table_name = $2;
	IF NOT FOUND THEN
		PERFORM ots.raise('OTSObjectNotExist', 'Requested table does not exist.');
	END IF;
	IF t.index_of IS NOT NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', index_error);
	END IF;
	PERFORM ots.require_owner(t.schema_name, t.table_name, t.table_name);
	EXECUTE format('LOCK TABLE %I.%I IN SHARE UPDATE EXCLUSIVE MODE', t.schema_name, t.table_name || '$data');
	SELECT * INTO t FROM ots.tables o WHERE o.schema_name = $1 AND o.table_name = $2;
	IF NOT FOUND THEN
		PERFORM ots.raise('OTSObjectNotExist', 'Requested table does not exist.');
	END IF;
	RETURN t;
END
$$;
COMMENT ON FUNCTION ots.ddl_table(name, name, text) IS
	'an ots table the caller owns, locked against other changes of its definition (internal)';

-- ---------------------------------------------------------------------
-- defined columns
-- ---------------------------------------------------------------------

CREATE FUNCTION ots.add_defined_column_internal(schema_name name, table_name name, defined_columns text)
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t ots.tables;
	added record;
	merged record;
BEGIN
	t := ots.ddl_table(schema_name, table_name, 'Can''t update index table directly.');
	IF nullif(btrim(defined_columns), '') IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'No defined column is specified.');
	END IF;
	SELECT p.names, p.types INTO added FROM ots.parse_defined_columns(defined_columns, t.pk_names, t.defined_names) p;
	SELECT o.names, o.types INTO merged
	  FROM ots.sort_defined_columns(t.defined_names || added.names, t.defined_types || added.types) o;
	-- owner only; every session reloads the table
	PERFORM ots.catalog_set_defined(t.schema_name, t.table_name, merged.names, merged.types);
	PERFORM ots.sync_table_view(t.schema_name, t.table_name, t.pk_names, merged.names, merged.types);
END
$$;
COMMENT ON FUNCTION ots.add_defined_column_internal(name, name, text) IS
	'adds defined columns to a resolved ots table (internal; call ots.add_defined_column)';

CREATE FUNCTION ots.add_defined_column(table_name text, defined_columns text) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.add_defined_column_internal(r.schema_name, r.table_name, defined_columns)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.add_defined_column(text, text) IS
	'adds defined columns (''name type, ...'': string, integer, double, boolean, binary) to an ots table';

CREATE FUNCTION ots.delete_defined_column_internal(schema_name name, table_name name, column_names text[])
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t ots.tables;
	col text;
	used_by name;
	kept record;
BEGIN
	t := ots.ddl_table(schema_name, table_name, 'Can''t update index table directly.');
	IF coalesce(cardinality(column_names), 0) = 0 THEN
		PERFORM ots.raise('OTSParameterInvalid', 'No defined column is specified.');
	END IF;
	FOREACH col IN ARRAY column_names LOOP
		IF col IS NULL OR NOT col = ANY (t.defined_names) THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Defined column ''%s'' does not exist.', col));
		END IF;
		SELECT i.table_name INTO used_by FROM ots.tables i
		 WHERE i.schema_name = t.schema_name AND i.index_of = t.table_name
		   AND (col = ANY (i.pk_names) OR col = ANY (i.defined_names))
		 ORDER BY i.table_name COLLATE "C" LIMIT 1;
		IF FOUND THEN
			PERFORM ots.raise('OTSParameterInvalid',
							  format('Defined column ''%s'' is used by index ''%s''.', col, used_by),
							  'Delete the index first.');
		END IF;
	END LOOP;
	SELECT coalesce(array_agg(d.name ORDER BY d.n), '{}') AS names,
		   coalesce(array_agg(d.type ORDER BY d.n), '{}') AS types INTO kept
	  FROM unnest(t.defined_names, t.defined_types) WITH ORDINALITY AS d(name, type, n)
	 WHERE NOT d.name = ANY (column_names);
	PERFORM ots.catalog_set_defined(t.schema_name, t.table_name, kept.names, kept.types);
	PERFORM ots.sync_table_view(t.schema_name, t.table_name, t.pk_names, kept.names, kept.types);
END
$$;
COMMENT ON FUNCTION ots.delete_defined_column_internal(name, name, text[]) IS
	'removes defined columns of a resolved ots table (internal; call ots.delete_defined_column)';

CREATE FUNCTION ots.delete_defined_column(table_name text, column_names text[]) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.delete_defined_column_internal(r.schema_name, r.table_name, column_names)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.delete_defined_column(text, text[]) IS
	'removes defined columns of an ots table (not those an index uses); their cells stay attributes';

-- ---------------------------------------------------------------------
-- indexes
-- ---------------------------------------------------------------------

-- ots.index_key: an index's whole key, the columns it was given and then
-- the base key's others in order, with their types; Tablestore's checks
CREATE FUNCTION ots.index_key(t ots.tables, primary_key text[], defined_columns text[], local boolean,
							  OUT pk_names text[], OUT pk_types text[], OUT defined_names text[],
							  OUT defined_types text[])
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	col text;
	col_type text;
	pos integer;
BEGIN
	IF coalesce(cardinality(primary_key), 0) NOT BETWEEN 1 AND ots.limit('max_index_pk_columns') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('The number of primary key columns must be in range: [1, %s] in index.',
								 ots.limit('max_index_pk_columns')));
	END IF;
	IF coalesce(cardinality(defined_columns), 0) > ots.limit('max_index_attr_columns') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('The number of attribute columns must be in range: [0, %s] in index.',
								 ots.limit('max_index_attr_columns')));
	END IF;
	pk_names := '{}';
	pk_types := '{}';
	FOREACH col IN ARRAY primary_key LOOP
		pos := array_position(t.pk_names, col);
		col_type := CASE WHEN pos IS NOT NULL THEN t.pk_types[pos]
						 ELSE t.defined_types[array_position(t.defined_names, col)] END;
		IF col IS NULL OR col_type IS NULL THEN
			PERFORM ots.raise('OTSParameterInvalid',
							  format('Column ''%s'' of the index is neither a primary key column nor a defined column of table ''%s''.',
									 col, t.table_name));
		END IF;
		IF col = ANY (pk_names) THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Duplicated primary key name: ''%s''.', col));
		END IF;
		IF col_type IN ('DOUBLE', 'BOOLEAN') THEN
			PERFORM ots.raise('OTSParameterInvalid', format('%s is an invalid type for the primary key.', col_type));
		END IF;
		pk_names := pk_names || col;
		pk_types := pk_types || col_type;
	END LOOP;
	IF local AND pk_names[1] <> t.pk_names[1] THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('The first primary key of a local index must be the first primary key of the table: ''%s''.',
								 t.pk_names[1]));
	END IF;
	-- the base key's other columns follow, so each entry names its row
	FOR pos IN 1 .. cardinality(t.pk_names) LOOP
		IF NOT t.pk_names[pos] = ANY (pk_names) THEN
			pk_names := pk_names || t.pk_names[pos];
			pk_types := pk_types || t.pk_types[pos];
		END IF;
	END LOOP;
	defined_names := '{}';
	defined_types := '{}';
	FOREACH col IN ARRAY coalesce(defined_columns, '{}') LOOP
		pos := array_position(t.defined_names, col);
		IF col IS NULL OR pos IS NULL THEN
			PERFORM ots.raise('OTSParameterInvalid',
							  format('Column ''%s'' of the index is not a defined column of table ''%s''.',
									 col, t.table_name));
		END IF;
		IF col = ANY (pk_names) OR col = ANY (defined_names) THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Duplicated column name: ''%s''.', col));
		END IF;
		defined_names := defined_names || col;
		defined_types := defined_types || t.defined_types[pos];
	END LOOP;
	SELECT o.names, o.types INTO defined_names, defined_types
	  FROM ots.sort_defined_columns(defined_names, defined_types) o;
END
$$;
COMMENT ON FUNCTION ots.index_key(ots.tables, text[], text[], boolean) IS
	'the key and covered columns of a new index, checked (internal; create_index)';

CREATE FUNCTION ots.create_index_internal(schema_name name, table_name name, index_name text,
										  primary_key text[], defined_columns text[], index_type text,
										  include_base_data boolean) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t ots.tables;
	k record;
	kind text := upper(index_type);
	index_rel name;
	owner_name text;
BEGIN
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	IF index_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter index_name is missing.', 'index_name must not be NULL.');
	END IF;
	-- Tablestore's table name rule; the index lives in its table's schema
	SELECT r.table_name INTO index_rel FROM ots.resolve_name(format('%I.%s', schema_name, index_name), true) r;
	IF kind IN ('IT_GLOBAL_INDEX', 'IT_LOCAL_INDEX') THEN
		kind := substr(kind, 4, length(kind) - 9);
	END IF;
	IF kind IS NULL OR kind NOT IN ('GLOBAL', 'LOCAL') THEN
		PERFORM ots.raise('OTSParameterInvalid', format('Invalid index type: ''%s''.', coalesce(index_type, 'NULL')),
						  'index_type is GLOBAL or LOCAL.');
	END IF;
	IF include_base_data IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'include_base_data must not be NULL.');
	END IF;
	-- two create_index calls count each other's index, update_table waits
	t := ots.ddl_table(schema_name, table_name, 'Can''t create index on an index table.');
	IF (SELECT count(*) FROM ots.tables i WHERE i.schema_name = t.schema_name AND i.index_of = t.table_name)
	   >= ots.limit('max_indexes') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('Number of index per table exceeds the quota:%s.', ots.limit('max_indexes')));
	END IF;
	PERFORM ots.index_check_base_options(t.max_versions, t.time_to_live, t.allow_update);
	SELECT * INTO k FROM ots.index_key(t, primary_key, defined_columns, kind = 'LOCAL');
	IF EXISTS (SELECT 1 FROM ots.tables o WHERE o.schema_name = t.schema_name AND o.table_name = index_rel)
	   OR to_regclass(format('%I.%I', t.schema_name, index_rel)) IS NOT NULL
	   OR to_regclass(format('%I.%I', t.schema_name, index_rel || '$data')) IS NOT NULL THEN
		PERFORM ots.raise('OTSObjectAlreadyExist', 'Requested table already exists.',
						  format('A relation named %I.%I already exists.', t.schema_name, index_rel));
	END IF;

	-- an index table is stored as a table is, partitioned by its first column
	PERFORM ots.create_table_storage(t.schema_name, index_rel, k.pk_names, k.pk_types, NULL, t.partitions, 0);
	PERFORM ots.sync_table_view(t.schema_name, index_rel, k.pk_names, k.defined_names, k.defined_types,
								is_index => true);
	EXECUTE format('COMMENT ON VIEW %I.%I IS %L', t.schema_name, index_rel,
				   format('ots index of %I.%I: live entries, read-only', t.schema_name, t.table_name));

	-- from this commit on, every writer of the table keeps the index
	PERFORM ots.catalog_insert_index(t.schema_name, index_rel, t.table_name, k.pk_names, k.pk_types,
									 k.defined_names, k.defined_types, kind,
									 cardinality(primary_key)::smallint,
									 CASE WHEN include_base_data THEN 'FULL' ELSE 'INCR_ONLY' END);
	-- an index is its table's owner's, whoever (a member of that role) made it: OWNER TO on
	-- its storage, registered, carries its partitions and view along (src/ddl_guard.c)
	SELECT c.relowner::regrole::text INTO owner_name FROM pg_class c
	 WHERE c.oid = format('%I.%I', t.schema_name, t.table_name || '$data')::regclass;
	IF owner_name <> current_user THEN
		EXECUTE format('ALTER TABLE %I.%I OWNER TO %s', t.schema_name, index_rel || '$data', owner_name);
	END IF;
	-- the owner's build worker starts when this transaction commits (unless ots.index_build_worker is off)
	IF include_base_data THEN
		PERFORM ots.index_build_launch(t.schema_name, index_rel);
	END IF;
END
$$;
COMMENT ON FUNCTION ots.create_index_internal(name, name, text, text[], text[], text, boolean) IS
	'creates a secondary index of a resolved ots table (internal; call ots.create_index)';

CREATE FUNCTION ots.create_index(table_name text, index_name text, primary_key text[],
								 defined_columns text[] DEFAULT '{}', index_type text DEFAULT 'GLOBAL',
								 include_base_data boolean DEFAULT true) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.create_index_internal(r.schema_name, r.table_name, index_name, primary_key, defined_columns,
									 index_type, include_base_data)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.create_index(text, text, text[], text[], text, boolean) IS
	'creates a secondary index: a read-only ots table keyed by primary_key (base key and defined columns), then the base key, covering defined_columns; kept exact by every write; with include_base_data, filled in the background';

CREATE FUNCTION ots.delete_index_internal(schema_name name, table_name name, index_name text) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	i ots.tables;
BEGIN
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	IF index_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter index_name is missing.', 'index_name must not be NULL.');
	END IF;
	PERFORM ots.ddl_table(schema_name, table_name, 'Can''t update index table directly.');
	i := ots.index_of(schema_name, table_name, index_name);
	-- writers of the table that still maintain the index finish first; later ones reload the table
	EXECUTE format('LOCK TABLE %I.%I IN SHARE MODE', schema_name, table_name || '$data');
	PERFORM ots.catalog_delete(i.schema_name, i.table_name);
	EXECUTE format('DROP VIEW %I.%I', i.schema_name, i.table_name);
	EXECUTE format('DROP TABLE %I.%I', i.schema_name, i.table_name || '$data');
END
$$;
COMMENT ON FUNCTION ots.delete_index_internal(name, name, text) IS
	'drops a secondary index of a resolved ots table (internal; call ots.delete_index)';

CREATE FUNCTION ots.delete_index(table_name text, index_name text) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.delete_index_internal(r.schema_name, r.table_name, index_name)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.delete_index(text, text) IS 'drops a secondary index of an ots table';

-- ---------------------------------------------------------------------
-- backfill (src/index_build.c)
-- ---------------------------------------------------------------------

CREATE FUNCTION ots.index_backfill_batch(schema_name name, index_name name, leaf regclass,
										 first_block bigint, nblocks integer, seen_filenode oid,
										 OUT next_block bigint, OUT filenode oid)
	AS 'MODULE_PATHNAME', 'ots_index_backfill_batch' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.index_backfill_batch(name, name, regclass, bigint, integer, oid) IS
	'writes the index entries of a block range of a leaf of the indexed table, the leaf SHARE locked until commit; the next block (NULL at its end) and the leaf''s file node, from the first block again when the leaf was rewritten since seen_filenode (internal)';

CREATE FUNCTION ots.index_build_launch(schema_name name, index_name name) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_index_build_launch' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.index_build_launch(name, name) IS
	'has the build worker of the index''s owner in the database start when the transaction that creates the index commits (internal)';

-- ots.index_build_blocks: the blocks one backfill batch reads (and locks its leaf for)
CREATE FUNCTION ots.index_build_blocks() RETURNS integer
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS 'SELECT 64';
COMMENT ON FUNCTION ots.index_build_blocks() IS 'blocks per index backfill batch (internal)';

-- ots.index_build_begin: the leaves to backfill, once the writers that did
-- not know the index have finished; none when the index is complete
CREATE FUNCTION ots.index_build_begin(schema_name name, index_name name) RETURNS SETOF text
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	i ots.tables;
BEGIN
	SELECT * INTO i FROM ots.tables o
	 WHERE o.schema_name = $1 AND o.table_name = $2 AND o.index_of IS NOT NULL;
	IF NOT FOUND OR i.index_phase <> 'FULL' THEN
		RETURN;
	END IF;
	PERFORM ots.require_owner(i.schema_name, i.table_name, i.table_name);
	EXECUTE format('LOCK TABLE %I.%I IN SHARE MODE', i.schema_name, i.index_of || '$data');
	RETURN QUERY SELECT l.leaf FROM ots.purge_leaves(i.schema_name, i.index_of) AS l(leaf);
END
$$;
COMMENT ON FUNCTION ots.index_build_begin(name, name) IS
	'waits out the writers of an index''s table that may not maintain it; its leaves to backfill (internal)';

-- ots.index_build_end: the index answers reads
CREATE FUNCTION ots.index_build_end(schema_name name, index_name name) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT ots.catalog_set_index_phase($1, $2, 'INCR')
	  FROM ots.tables o
	 WHERE o.schema_name = $1 AND o.table_name = $2 AND o.index_phase = 'FULL'
$$;
COMMENT ON FUNCTION ots.index_build_end(name, name) IS 'marks a backfilled index complete (internal)';

-- ots.build_index: builds an index in this session, in committed batches
-- (what the background worker create_index starts does)
CREATE PROCEDURE ots.build_index(table_name text, index_name text)
	LANGUAGE plpgsql
	AS $$
DECLARE
	t pg_catalog.record;
	i ots.tables;
	leaf pg_catalog.text;
	b pg_catalog.record;
BEGIN
	SELECT r.schema_name, r.table_name INTO t FROM ots.resolve_name(table_name, false) r;
	i := ots.index_of(t.schema_name, t.table_name, index_name);
	PERFORM ots.require_owner(i.schema_name, i.table_name, i.index_of);
	-- fails here, inside a transaction block
	COMMIT;
	FOR leaf IN SELECT l FROM ots.index_build_begin(i.schema_name, i.table_name) l LOOP
		COMMIT;
		SELECT 0::pg_catalog.int8 AS next_block, 0::pg_catalog.oid AS filenode INTO b;
		LOOP
			SELECT r.next_block, r.filenode INTO b
			  FROM ots.index_backfill_batch(i.schema_name, i.table_name, pg_catalog.to_regclass(leaf),
											b.next_block, ots.index_build_blocks(), b.filenode) r;
			COMMIT;
			EXIT WHEN b.next_block IS NULL;
		END LOOP;
	END LOOP;
	PERFORM ots.index_build_end(i.schema_name, i.table_name);
	COMMIT;
END
$$;
COMMENT ON PROCEDURE ots.build_index(text, text) IS
	'fills a secondary index created on a table with rows, in committed batches, and lets it answer reads';

-- issue 21: typed view columns and writable views (src/view_write.c,
-- src/view_plan.c).  A view shows each defined column as a typed column;
-- INSERT, UPDATE, DELETE and COPY on it are the row API's writes.

CREATE FUNCTION ots.row_string(cells ots.cells, storage regclass, name text) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_row_string' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_string(ots.cells, regclass, text) IS
	'latest visible value of column name when it is a String, else NULL (a typed view column of a defined column)';

CREATE FUNCTION ots.row_integer(cells ots.cells, storage regclass, name text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_row_integer' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_integer(ots.cells, regclass, text) IS
	'latest visible value of column name when it is a Integer, else NULL (a typed view column of a defined column)';

CREATE FUNCTION ots.row_double(cells ots.cells, storage regclass, name text) RETURNS double precision
	AS 'MODULE_PATHNAME', 'ots_row_double' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_double(ots.cells, regclass, text) IS
	'latest visible value of column name when it is a Double, else NULL (a typed view column of a defined column)';

CREATE FUNCTION ots.row_boolean(cells ots.cells, storage regclass, name text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_row_boolean' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_boolean(ots.cells, regclass, text) IS
	'latest visible value of column name when it is a Boolean, else NULL (a typed view column of a defined column)';

CREATE FUNCTION ots.row_binary(cells ots.cells, storage regclass, name text) RETURNS bytea
	AS 'MODULE_PATHNAME', 'ots_row_binary' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_binary(ots.cells, regclass, text) IS
	'latest visible value of column name when it is a Binary, else NULL (a typed view column of a defined column)';

CREATE FUNCTION ots.view_write() RETURNS trigger
	AS 'MODULE_PATHNAME', 'ots_view_write' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.view_write() IS
	'INSERT, UPDATE and DELETE on an ots table''s view as put, update and delete of rows (internal)';

CREATE FUNCTION ots.view_column_function(value_type text) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT CASE value_type WHEN 'STRING' THEN 'ots.row_string' WHEN 'INTEGER' THEN 'ots.row_integer'
		   WHEN 'DOUBLE' THEN 'ots.row_double' WHEN 'BOOLEAN' THEN 'ots.row_boolean'
		   WHEN 'BINARY' THEN 'ots.row_binary' END
$$;
COMMENT ON FUNCTION ots.view_column_function(text) IS
	'the per-row function of a typed view column (internal)';

CREATE FUNCTION ots.sync_table_view(schema_name name, table_name name, pk_names text[],
									defined_names text[], defined_types text[],
									is_index boolean DEFAULT false) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	storage text := format('%I.%I', schema_name, table_name || '$data');
	view_name text := format('%I.%I', schema_name, table_name);
	view_oid oid := to_regclass(format('%I.%I', schema_name, table_name));
	attributes_column text;
	existing text[];
	columns text[];
	select_list text;
	saved_owner text;
	saved_acl aclitem[];
	saved_comment text;
	saved_column_acls jsonb;
	saved_column_comments jsonb;
	dependents text;
	g record;
BEGIN
	IF view_oid IS NOT NULL THEN
		SELECT array_agg(a.attname::text ORDER BY a.attnum) INTO existing
		  FROM pg_attribute a WHERE a.attrelid = view_oid AND a.attnum > 0 AND NOT a.attisdropped;
	END IF;
	-- the jsonb column keeps the name it has; a new view's is "$attributes" when a key or
	-- defined column is called attributes
	attributes_column := coalesce(existing[cardinality(pk_names) + 1],
								  CASE WHEN 'attributes' = ANY (pk_names) OR 'attributes' = ANY (defined_names)
									   THEN '$attributes' ELSE 'attributes' END);
	IF attributes_column = ANY (defined_names) THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('Defined column name ''%s'' is taken by the view''s jsonb column.', attributes_column),
						  format('The view %s shows a row''s attributes in that column.', view_name));
	END IF;
	-- keys, attributes, defined columns the view has in its order, then new ones
	columns := pk_names || attributes_column
			   || coalesce((SELECT array_agg(e.name ORDER BY e.n)
							  FROM unnest(existing) WITH ORDINALITY AS e(name, n)
							 WHERE e.n > cardinality(pk_names) + 1 AND e.name = ANY (defined_names)), '{}')
			   || coalesce((SELECT array_agg(d.name ORDER BY d.n)
							  FROM unnest(defined_names) WITH ORDINALITY AS d(name, n)
							 WHERE existing IS NULL OR NOT d.name = ANY (existing)), '{}');
	SELECT string_agg(CASE
						  WHEN c.name = ANY (pk_names) THEN format('d.%I', c.name)
						  WHEN c.n = cardinality(pk_names) + 1
							  THEN format('ots.row_attributes(d."$cells", %L::pg_catalog.regclass) AS %I', storage, c.name)
						  ELSE format('%s(d."$cells", %L::pg_catalog.regclass, %L) AS %I',
									  ots.view_column_function(defined_types[array_position(defined_names, c.name)]),
									  storage, c.name, c.name)
					  END, ', ' ORDER BY c.n) INTO select_list
	  FROM unnest(columns) WITH ORDINALITY AS c(name, n);

	IF view_oid IS NOT NULL AND existing <> columns[1:cardinality(existing)] THEN
		-- a column goes: PostgreSQL cannot drop a view's column, so the view is made
		-- again; what depends on it (on its row type too) would go with it
		SELECT string_agg(DISTINCT CASE WHEN r.oid IS NULL THEN pg_describe_object(d.classid, d.objid, d.objsubid)
										ELSE pg_describe_object('pg_class'::regclass, r.ev_class, 0) END, ', ')
		  INTO dependents
		  FROM pg_depend d
		  LEFT JOIN pg_rewrite r ON d.classid = 'pg_rewrite'::regclass AND r.oid = d.objid
		 WHERE ((d.refclassid = 'pg_class'::regclass AND d.refobjid = view_oid)
				OR (d.refclassid = 'pg_type'::regclass
					AND d.refobjid IN (SELECT t.oid FROM pg_type t WHERE t.typrelid = view_oid
									   UNION ALL
									   SELECT t.typarray FROM pg_type t WHERE t.typrelid = view_oid)))
		   AND d.deptype = 'n' AND coalesce(r.ev_class <> view_oid, true);
		IF dependents IS NOT NULL THEN
			PERFORM ots.raise('OTSParameterInvalid',
							  format('The view %s cannot lose a column while other objects depend on it.', view_name),
							  format('Depending on it: %s. Drop or change them first, or keep the defined column.',
									 dependents));
		END IF;
		-- what the view carries besides its query: owner, grants (of the view and of the
		-- columns it keeps), comments
		SELECT c.relowner::regrole::text, c.relacl, obj_description(view_oid, 'pg_class'),
			   (SELECT jsonb_object_agg(a.attname, a.attacl::text[]) FROM pg_attribute a
				 WHERE a.attrelid = view_oid AND a.attnum > 0 AND a.attacl IS NOT NULL),
			   (SELECT jsonb_object_agg(a.attname, col_description(view_oid, a.attnum)) FROM pg_attribute a
				 WHERE a.attrelid = view_oid AND a.attnum > 0 AND col_description(view_oid, a.attnum) IS NOT NULL)
		  INTO saved_owner, saved_acl, saved_comment, saved_column_acls, saved_column_comments
		  FROM pg_class c WHERE c.oid = view_oid;
		PERFORM ots.view_replacing(view_oid);
		EXECUTE format('DROP VIEW %s', view_name);
		PERFORM ots.view_replacing(0);
	END IF;
	-- a security barrier: a caller's leaky function never sees rows the view hides; an
	-- index's view first passes its gate, once per execution whatever rows it reads: an
	-- index answers only once complete (ots.index_readable)
	EXECUTE format('CREATE OR REPLACE VIEW %s WITH (security_barrier) AS SELECT %s FROM %s d'
				   ' WHERE %sots.row_exists(d."$cells", %L::pg_catalog.regclass)',
				   view_name, select_list, storage,
				   CASE WHEN is_index THEN format('ots.index_readable(%L::pg_catalog.regclass) AND ', storage)
						ELSE '' END,
				   storage);
	IF view_oid IS NULL OR saved_owner IS NOT NULL THEN
		-- INSERT, UPDATE, DELETE and COPY on the view are the row API's writes (src/view_write.c)
		EXECUTE format('CREATE TRIGGER "ots_write" INSTEAD OF INSERT OR UPDATE OR DELETE ON %s'
					   ' FOR EACH ROW EXECUTE FUNCTION ots.view_write()', view_name);
		EXECUTE format('COMMENT ON VIEW %s IS %L', view_name,
					   coalesce(saved_comment, 'ots table: live rows (TTL and max_versions applied), primary key columns, latest attributes, defined columns'));
	END IF;
	IF saved_owner IS NOT NULL THEN
		IF saved_owner <> current_user THEN
			EXECUTE format('ALTER VIEW %s OWNER TO %s', view_name, saved_owner);
		END IF;
		IF saved_acl IS NOT NULL THEN
			EXECUTE format('REVOKE ALL ON %s FROM %s', view_name, saved_owner);
			FOR g IN SELECT a.privilege_type, a.grantee, a.is_grantable FROM aclexplode(saved_acl) a LOOP
				EXECUTE format('GRANT %s ON %s TO %s%s', g.privilege_type, view_name,
							   CASE g.grantee WHEN 0 THEN 'PUBLIC' ELSE g.grantee::regrole::text END,
							   CASE WHEN g.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
			END LOOP;
		END IF;
		FOR g IN SELECT c.key AS col, a.privilege_type, a.grantee, a.is_grantable
				   FROM jsonb_each(coalesce(saved_column_acls, '{}')) c,
						aclexplode(ARRAY(SELECT jsonb_array_elements_text(c.value))::aclitem[]) a
				  WHERE c.key = ANY (columns) LOOP
			EXECUTE format('GRANT %s (%I) ON %s TO %s%s', g.privilege_type, g.col, view_name,
						   CASE g.grantee WHEN 0 THEN 'PUBLIC' ELSE g.grantee::regrole::text END,
						   CASE WHEN g.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
		END LOOP;
		FOR g IN SELECT c.key AS col, c.value AS comment FROM jsonb_each_text(coalesce(saved_column_comments, '{}')) c
				  WHERE c.key = ANY (columns) LOOP
			EXECUTE format('COMMENT ON COLUMN %s.%I IS %L', view_name, g.col, g.comment);
		END LOOP;
	END IF;
END
$$;
COMMENT ON FUNCTION ots.sync_table_view(name, name, text[], text[], text[], boolean) IS
	'creates or updates the view of an ots table (internal)';

-- 0.1.0's read-only trigger function becomes the write trigger under its old name

CREATE OR REPLACE FUNCTION ots.view_write_rejected() RETURNS trigger
	AS 'MODULE_PATHNAME', 'ots_view_write' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.view_write_rejected() IS
	'ots.view_write under its 0.1.0 name, for views restored from a 0.1.0 dump (internal)';

CREATE FUNCTION ots.view_replacing(view oid) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_view_replacing' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.view_replacing(oid) IS
	'marks a table view the caller owns as being made again in this transaction (internal)';

CREATE FUNCTION ots.view_replaced() RETURNS oid
	AS 'MODULE_PATHNAME', 'ots_view_replaced' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.view_replaced() IS
	'the table view being made again in this transaction, or 0 (internal)';

-- every table's and index's view takes its write trigger in place of the
-- read-only one (0.1.0 tables have no defined columns: their columns stay)
DO $$
DECLARE
	t record;
BEGIN
	FOR t IN SELECT o.schema_name, o.table_name FROM ots.tables o LOOP
		-- the view checked at the top, unless its owner replaced it since (issue 31)
		IF (SELECT c.relkind FROM pg_catalog.pg_class c
			 WHERE c.oid = to_regclass(format('%I.%I', t.schema_name, t.table_name))) IS DISTINCT FROM 'v' THEN
			CONTINUE;
		END IF;
		EXECUTE format('DROP TRIGGER IF EXISTS "ots_read_only" ON %I.%I', t.schema_name, t.table_name);
		EXECUTE format('CREATE TRIGGER "ots_write" INSTEAD OF INSERT OR UPDATE OR DELETE ON %I.%I'
					   ' FOR EACH ROW EXECUTE FUNCTION ots.view_write()', t.schema_name, t.table_name);
		EXECUTE format('COMMENT ON VIEW %I.%I IS %L', t.schema_name, t.table_name,
					   'ots table: live rows (TTL and max_versions applied), primary key columns, latest attributes, defined columns');
	END LOOP;
END
$$;
DROP FUNCTION ots.create_table_view(name, name, text[]);

-- issue 16: Stream, Tablestore's change data capture (src/stream*.c,
-- src/sql/45_stream.sql): ots.tables keeps each table's stream; create_table
-- and update_table take stream_enabled and stream_expiration_hours;
-- describe_table shows stream_details; ots.purge trims expired records.
ALTER TABLE ots.tables
	ADD COLUMN stream_id text,
	ADD COLUMN stream_expiration_hours integer,
	ADD COLUMN stream_enabled_at timestamptz;

CREATE FUNCTION ots.catalog_set_stream(schema_name name, table_name name, stream_id text,
										stream_expiration_hours integer) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_set_stream' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_set_stream(name, name, text, integer) IS
	'sets the stream of an ots table the caller owns, whose relations ots.stream_sync made (NULLs: none) (internal)';

-- ots.stream_create_storage: the log and records of a new stream, owned by
-- the table's owner, as src/stream_storage.c reads and writes them
CREATE FUNCTION ots.stream_create_storage(schema_name name, table_name name) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	owner_name name;
BEGIN
	EXECUTE format('CREATE TABLE %I.%I (shard pg_catalog.int4 NOT NULL, position pg_catalog.int8 NOT NULL,'
				   ' id pg_catalog.int8 NOT NULL, spilled pg_catalog.int4 NOT NULL,'
				   ' records pg_catalog.jsonb[] NOT NULL, CONSTRAINT %I PRIMARY KEY (shard, position))',
				   schema_name, table_name || '$log', table_name || '$logk');
	EXECUTE format('CREATE TABLE %I.%I (shard pg_catalog.int4 NOT NULL, id pg_catalog.int8 NOT NULL,'
				   ' n pg_catalog.int4 NOT NULL, record pg_catalog.jsonb NOT NULL,'
				   ' CONSTRAINT %I PRIMARY KEY (shard, id, n))',
				   schema_name, table_name || '$rec', table_name || '$reck');
	EXECUTE format('COMMENT ON TABLE %I.%I IS %L', schema_name, table_name || '$log',
				   format('stream of ots table %I.%I: each commit''s place in its shard, and its records; read them with ots.get_stream_record',
						  schema_name, table_name));
	EXECUTE format('COMMENT ON TABLE %I.%I IS %L', schema_name, table_name || '$rec',
				   format('stream of ots table %I.%I: records of large transactions, written as they ran; read them with ots.get_stream_record',
						  schema_name, table_name));
	-- a member of the owner's role enabling the stream makes them the owner's
	SELECT r.rolname INTO owner_name
	  FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner
	 WHERE c.oid = format('%I.%I', schema_name, table_name || '$data')::regclass;
	IF owner_name <> current_user THEN
		EXECUTE format('ALTER TABLE %I.%I OWNER TO %I', schema_name, table_name || '$log', owner_name);
		EXECUTE format('ALTER TABLE %I.%I OWNER TO %I', schema_name, table_name || '$rec', owner_name);
	END IF;
END
$$;
COMMENT ON FUNCTION ots.stream_create_storage(name, name) IS
	'creates the log and records of an ots table''s new stream (internal)';

-- ots.stream_drop_storage: a stream's relations, if there are any
CREATE FUNCTION ots.stream_drop_storage(schema_name name, table_name name) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	rel name;
BEGIN
	FOREACH rel IN ARRAY ARRAY[table_name || '$log', table_name || '$rec']::name[] LOOP
		IF to_regclass(format('%I.%I', schema_name, rel)) IS NOT NULL
		   AND ots.relation_owner(schema_name, rel) = ots.relation_owner(schema_name, table_name || '$data') THEN
			EXECUTE format('DROP TABLE %I.%I', schema_name, rel);
		END IF;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.stream_drop_storage(name, name) IS
	'drops the log and records of an ots table''s stream (internal)';

-- ots.stream_sync: create_table's and update_table's stream arguments
-- (NULL: unchanged).  Enabling makes a new stream; disabling drops it and
-- its records; enabling it again makes another, whose id differs, so
-- iterators of the old one are refused.  The expiration is checked here
-- with the rest of the options, and may change while the stream is on.
CREATE FUNCTION ots.stream_sync(schema_name name, table_name name, stream_enabled boolean,
								stream_expiration_hours integer) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t ots.tables;
BEGIN
	IF stream_enabled IS NULL AND stream_expiration_hours IS NULL THEN
		RETURN;
	END IF;
	-- the caller's own table, not an index; one change of its definition at a time
	t := ots.ddl_table(stream_sync.schema_name, stream_sync.table_name,
					   'Stream is not supported on an index table.');
	IF stream_expiration_hours IS NOT NULL
	   AND stream_expiration_hours NOT BETWEEN 1 AND ots.limit('max_stream_expiration_hours') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('The expiration time of stream must be in range: [1, %s].',
								 ots.limit('max_stream_expiration_hours')),
						  'stream_expiration_hours is a number of hours.');
	END IF;
	IF stream_enabled IS NULL AND t.stream_id IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Stream is not enabled on this table.',
						  'Pass stream_enabled => true to enable it.');
	END IF;

	-- writers of the table hold its storage with ROW EXCLUSIVE (the write
	-- point, src/storage_write.c): those in flight finish first, new ones
	-- wait for this change, so a transaction's changes are all recorded or
	-- none.  The storage alone, not its partitions: a writer holding one
	-- partition and waiting for another cannot deadlock with this.
	IF stream_enabled IS NOT NULL THEN
		EXECUTE format('LOCK TABLE ONLY %I.%I IN SHARE MODE', stream_sync.schema_name,
					   stream_sync.table_name || '$data');
	END IF;
	IF stream_enabled IS false THEN
		IF t.stream_id IS NOT NULL THEN
			PERFORM ots.catalog_set_stream(stream_sync.schema_name, stream_sync.table_name, NULL, NULL);
			PERFORM ots.stream_drop_storage(stream_sync.schema_name, stream_sync.table_name);
		END IF;
	ELSIF t.stream_id IS NULL THEN
		PERFORM ots.stream_create_storage(stream_sync.schema_name, stream_sync.table_name);
		PERFORM ots.catalog_set_stream(stream_sync.schema_name, stream_sync.table_name,
									   gen_random_uuid()::text, coalesce(stream_expiration_hours, 24));
	ELSE
		PERFORM ots.catalog_set_stream(stream_sync.schema_name, stream_sync.table_name, t.stream_id,
									   coalesce(stream_expiration_hours, t.stream_expiration_hours));
	END IF;
END
$$;
COMMENT ON FUNCTION ots.stream_sync(name, name, boolean, integer) IS
	'enables, disables or changes the stream of an ots table the caller owns (internal; create_table, update_table)';

-- ots.stream_time: a time as Tablestore's streams give it, Unix microseconds
CREATE FUNCTION ots.stream_time(t timestamptz) RETURNS bigint
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT (extract(epoch FROM t) * 1000000)::bigint
$$;
COMMENT ON FUNCTION ots.stream_time(timestamptz) IS 'a time as Unix microseconds, as stream times are given (internal)';

-- ots.stream_details: describe_table's stream_details
CREATE FUNCTION ots.stream_details(t ots.tables) RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT CASE WHEN t.stream_id IS NULL THEN jsonb_build_object('enable_stream', false)
				ELSE jsonb_build_object('enable_stream', true, 'stream_id', t.stream_id,
										'expiration_time', t.stream_expiration_hours,
										'last_enable_time', ots.stream_time(t.stream_enabled_at)) END
$$;
COMMENT ON FUNCTION ots.stream_details(ots.tables) IS
	'the stream_details of describe_table: enable_stream, stream_id, expiration_time (hours), last_enable_time (µs) (internal)';

-- ots.list_stream: the streams of the tables the caller may see (ListStream)
CREATE FUNCTION ots.list_stream(table_name text DEFAULT NULL)
	RETURNS TABLE (stream_id text, schema_name name, table_name name, creation_time bigint)
	LANGUAGE sql STABLE PARALLEL SAFE
-- a SQL-standard body: the table name resolves on the caller's search_path,
-- everything else was bound at CREATE EXTENSION
BEGIN ATOMIC
	-- Tablestore's errors for a table that is not there (or not visible)
	SELECT ots.describe_table(list_stream.table_name) WHERE list_stream.table_name IS NOT NULL;
	-- ots.tables shows each role only the tables it may see
	SELECT o.stream_id, o.schema_name, o.table_name, ots.stream_time(o.stream_enabled_at)
	  FROM ots.tables o
	 WHERE o.stream_id IS NOT NULL
	   AND (list_stream.table_name IS NULL
			OR (o.schema_name, o.table_name) IN (SELECT r.schema_name, r.table_name
												  FROM ots.resolve_name(list_stream.table_name, false) r))
	 ORDER BY o.schema_name COLLATE "C", o.table_name COLLATE "C";
END;
COMMENT ON FUNCTION ots.list_stream(text) IS
	'the streams of every ots table the caller may see, or of one table: stream_id, table, creation_time (µs)';

-- ots.describe_stream: a stream and its shards (DescribeStream).  A shard
-- is a partition of the table's storage, so it holds a fixed set of
-- partition keys; shards never split or merge, so none has a parent.
CREATE FUNCTION ots.describe_stream(stream_id text, inclusive_start_shard_id text DEFAULT NULL,
									shard_limit integer DEFAULT NULL) RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
	first integer := 0;
	last integer;
BEGIN
	IF describe_stream.stream_id IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter stream_id is missing.');
	END IF;
	-- ots.tables shows each role only the tables it may see
	SELECT o.* INTO t FROM ots.tables o WHERE o.stream_id = describe_stream.stream_id;
	IF NOT FOUND THEN
		PERFORM ots.raise('OTSParameterInvalid', format('Invalid stream id: ''%s''.', describe_stream.stream_id));
	END IF;
	IF inclusive_start_shard_id IS NOT NULL THEN
		IF inclusive_start_shard_id !~ '^(0|[1-9][0-9]{0,8})$'
		   OR inclusive_start_shard_id::integer >= t.partitions THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Invalid shard id: ''%s''.', inclusive_start_shard_id));
		END IF;
		first := inclusive_start_shard_id::integer;
	END IF;
	IF shard_limit IS NOT NULL AND shard_limit <= 0 THEN
		PERFORM ots.raise('OTSParameterInvalid', 'The limit must be greater than 0.');
	END IF;
	last := least(t.partitions, first::bigint + coalesce(shard_limit, t.partitions)) - 1;
	RETURN jsonb_build_object(
		'stream_id', t.stream_id,
		'schema_name', t.schema_name,
		'table_name', t.table_name,
		'expiration_time', t.stream_expiration_hours,
		'creation_time', ots.stream_time(t.stream_enabled_at),
		'stream_status', 'STREAM_ACTIVE',
		'shards', (SELECT coalesce(jsonb_agg(jsonb_build_object('shard_id', s::text, 'parent_id', NULL,
																 'parent_sibling_id', NULL) ORDER BY s), '[]')
					 FROM generate_series(first, last) s),
		'next_shard_id', CASE WHEN last + 1 < t.partitions THEN to_jsonb((last + 1)::text) ELSE 'null' END);
END
$$;
COMMENT ON FUNCTION ots.describe_stream(text, text, integer) IS
	'a stream of an ots table: status, expiration (hours), creation_time (µs) and shards (one per partition)';

CREATE FUNCTION ots.get_shard_iterator(stream_id text, shard_id text, "timestamp" bigint DEFAULT NULL)
	RETURNS text
	AS 'MODULE_PATHNAME', 'ots_get_shard_iterator' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION ots.get_shard_iterator(text, text, bigint) IS
	'an iterator at the oldest record kept of a shard of a stream, or at the first committed at or after "timestamp" (ms); needs SELECT on the table';

CREATE FUNCTION ots.get_stream_record(shard_iterator text, "limit" integer DEFAULT NULL) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'ots_get_stream_record' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION ots.get_stream_record(text, integer) IS
	'up to "limit" (100) records of a shard from an iterator on, in commit order: {"stream_records": [...], "next_shard_iterator": ...}; needs SELECT on the table';

CREATE FUNCTION ots.stream_trim(schema_name name, table_name name, batch_size integer) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_stream_trim' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.stream_trim(name, name, integer) IS
	'removes up to batch_size expired log entries per shard of an ots table''s stream, and their records (owner only; internal; ots.purge)';

DROP FUNCTION ots.create_table(text, text, integer, bigint, bigint, boolean, integer, integer, text);
DROP FUNCTION ots.create_table_internal(name, name, text, integer, bigint, bigint, boolean, integer, integer, text);
DROP FUNCTION ots.update_table(text, integer, bigint, bigint, boolean);
DROP FUNCTION ots.update_table_internal(name, name, integer, bigint, bigint, boolean);

CREATE FUNCTION ots.create_table_internal(
	schema_name name,
	table_name name,
	primary_key text,
	max_versions integer,
	time_to_live bigint,
	max_version_offset bigint,
	allow_update boolean,
	partitions integer,
	hash_prefix_length integer,
	defined_columns text,
	stream_enabled boolean,
	stream_expiration_hours integer) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	pk_names text[];
	pk_types text[];
	auto_col smallint;
	view_name text;
	defined record;
BEGIN
	-- ots.resolve_name is STRICT: a NULL table name arrives as NULLs
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	view_name := format('%I.%I', schema_name, table_name);
	SELECT p.pk_names, p.pk_types, p.auto_col INTO pk_names, pk_types, auto_col
	  FROM ots.create_table_parse_pk(primary_key, table_name) p;
	PERFORM ots.create_table_check_options(max_versions, time_to_live, max_version_offset, allow_update,
										   partitions, hash_prefix_length);
	SELECT o.names, o.types INTO defined
	  FROM ots.parse_defined_columns(defined_columns, pk_names) p,
		   ots.sort_defined_columns(p.names, p.types) o;

	IF EXISTS (SELECT 1 FROM ots.tables t
				WHERE t.schema_name = create_table_internal.schema_name
				  AND t.table_name = create_table_internal.table_name)
	   OR to_regclass(view_name) IS NOT NULL
	   OR to_regclass(format('%I.%I', schema_name, table_name || '$data')) IS NOT NULL THEN
		PERFORM ots.raise('OTSObjectAlreadyExist', 'Requested table already exists.',
						  format('A relation named %s already exists.', view_name));
	END IF;

	PERFORM ots.create_table_storage(schema_name, table_name, pk_names, pk_types, auto_col, partitions,
									 hash_prefix_length);
	PERFORM ots.sync_table_view(schema_name, table_name, pk_names, defined.names, defined.types);
	PERFORM ots.catalog_insert(create_table_internal.schema_name, create_table_internal.table_name, pk_names,
							   pk_types, auto_col, max_versions, time_to_live, max_version_offset,
							   allow_update, partitions, hash_prefix_length);
	IF cardinality(defined.names) > 0 THEN
		PERFORM ots.catalog_set_defined(create_table_internal.schema_name, create_table_internal.table_name,
										defined.names, defined.types);
	END IF;
	-- Stream (45_stream.sql)
	IF stream_enabled IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Table options must not be NULL.',
						  'Omit an option to get its default.');
	END IF;
	IF stream_enabled OR stream_expiration_hours IS NOT NULL THEN
		PERFORM ots.stream_sync(create_table_internal.schema_name, create_table_internal.table_name,
								stream_enabled, stream_expiration_hours);
	END IF;
	-- expiry hook (50_expiry.sql): "$oldest_ts" index and purge job when there is a TTL or a stream
	PERFORM ots.expiry_sync(create_table_internal.schema_name, create_table_internal.table_name, true);
END
$$;
COMMENT ON FUNCTION ots.create_table_internal(name, name, text, integer, bigint, bigint, boolean, integer, integer, text, boolean, integer)
	IS 'creates an ots table in a resolved schema (internal; call ots.create_table)';

CREATE FUNCTION ots.create_table(
	table_name text,
	primary_key text,
	max_versions integer DEFAULT 1,
	time_to_live bigint DEFAULT -1,
	max_version_offset bigint DEFAULT 86400,
	allow_update boolean DEFAULT true,
	partitions integer DEFAULT 8,
	hash_prefix_length integer DEFAULT 0,
	defined_columns text DEFAULT NULL,
	stream_enabled boolean DEFAULT false,
	stream_expiration_hours integer DEFAULT NULL) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.create_table_internal(r.schema_name, r.table_name, primary_key, max_versions,
									 time_to_live, max_version_offset, allow_update, partitions,
									 hash_prefix_length, defined_columns, stream_enabled,
									 stream_expiration_hours)
	  FROM ots.resolve_name(table_name, true) r;
END;
COMMENT ON FUNCTION ots.create_table(text, text, integer, bigint, bigint, boolean, integer, integer, text, boolean, integer) IS
	'creates an ots table: primary_key => ''name type, ...'' (string, integer, binary; integer auto_increment); defined_columns => ''name type, ...''; stream_enabled, stream_expiration_hours (24)';

CREATE FUNCTION ots.update_table_internal(
	schema_name name,
	table_name name,
	max_versions integer,
	time_to_live bigint,
	max_version_offset bigint,
	allow_update boolean,
	stream_enabled boolean,
	stream_expiration_hours integer) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	IF max_versions IS NULL AND time_to_live IS NULL AND max_version_offset IS NULL
	   AND allow_update IS NULL AND stream_enabled IS NULL AND stream_expiration_hours IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'No parameter is specified in table options.');
	END IF;
	IF max_versions IS NULL AND time_to_live IS NULL AND max_version_offset IS NULL
	   AND allow_update IS NULL THEN
		-- the stream alone (45_stream.sql); ots.catalog_set_stream checks that the caller owns the table
		PERFORM ots.stream_sync(update_table_internal.schema_name, update_table_internal.table_name,
								stream_enabled, stream_expiration_hours);
		PERFORM ots.expiry_sync(update_table_internal.schema_name, update_table_internal.table_name, true);
		RETURN;
	END IF;
	PERFORM ots.check_table_options(max_versions, time_to_live, max_version_offset);
	-- an index takes its options from its table; a table's indexes keep it within their rule
	PERFORM ots.index_check_options(update_table_internal.schema_name, update_table_internal.table_name,
									max_versions, time_to_live, allow_update);
	-- owner only; also remembers a lowered max_versions until purged (ots.trimmed_after_update)
	PERFORM ots.catalog_update(update_table_internal.schema_name, update_table_internal.table_name,
							   max_versions, time_to_live, max_version_offset, allow_update);
	-- the indexes' entries expire with their rows: same TTL and max_version_offset
	PERFORM ots.catalog_update(i.schema_name, i.table_name, NULL, update_table_internal.time_to_live,
							   update_table_internal.max_version_offset, NULL)
	   FROM ots.tables i
	  WHERE i.schema_name = update_table_internal.schema_name
		AND i.index_of = update_table_internal.table_name;
	-- expiry hook (50_expiry.sql): index and purge job follow the new options
	PERFORM ots.stream_sync(update_table_internal.schema_name, update_table_internal.table_name,
							stream_enabled, stream_expiration_hours);
	PERFORM ots.expiry_sync(update_table_internal.schema_name, update_table_internal.table_name,
							time_to_live IS NOT NULL OR max_versions IS NOT NULL OR stream_enabled IS NOT NULL);
END
$$;
COMMENT ON FUNCTION ots.update_table_internal(name, name, integer, bigint, bigint, boolean, boolean, integer)
	IS 'changes the options of a resolved ots table (internal; call ots.update_table)';

CREATE FUNCTION ots.update_table(
	table_name text,
	max_versions integer DEFAULT NULL,
	time_to_live bigint DEFAULT NULL,
	max_version_offset bigint DEFAULT NULL,
	allow_update boolean DEFAULT NULL,
	stream_enabled boolean DEFAULT NULL,
	stream_expiration_hours integer DEFAULT NULL) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.update_table_internal(r.schema_name, r.table_name, max_versions, time_to_live,
									 max_version_offset, allow_update, stream_enabled,
									 stream_expiration_hours)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.update_table(text, integer, bigint, bigint, boolean, boolean, integer) IS
	'changes table options and the stream; omitted options keep their values; every session sees the change at once';

CREATE OR REPLACE FUNCTION ots.describe_table_internal(schema_name name, table_name name) RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	description jsonb;
BEGIN
	-- ots.resolve_name is STRICT: a NULL table name arrives as NULLs
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	description := (SELECT jsonb_build_object(
		'table_name', t.table_name,
		'schema_name', t.schema_name,
		'primary_key', (SELECT jsonb_agg(CASE WHEN k.n = t.auto_increment
											  THEN jsonb_build_object('name', k.name, 'type', t.pk_types[k.n],
																	  'option', 'AUTO_INCREMENT')
											  ELSE jsonb_build_object('name', k.name, 'type', t.pk_types[k.n])
										 END ORDER BY k.n)
						  FROM unnest(t.pk_names) WITH ORDINALITY AS k(name, n)),
		'table_options', jsonb_build_object('max_versions', t.max_versions,
											'time_to_live', t.time_to_live,
											'max_version_offset', t.max_version_offset,
											'allow_update', t.allow_update),
		'defined_columns', (SELECT coalesce(jsonb_agg(jsonb_build_object('name', d.name, 'type', d.type)
													  ORDER BY d.n), '[]')
							  FROM unnest(t.defined_names, t.defined_types) WITH ORDINALITY AS d(name, type, n)),
		'index_metas', (SELECT coalesce(jsonb_agg(ots.index_meta(i) ORDER BY i.table_name COLLATE "C"), '[]')
						  FROM ots.tables i
						 WHERE i.schema_name = t.schema_name AND i.index_of = t.table_name),
		'hash_prefix_length', t.hash_prefix_length,
		'partitions', (SELECT jsonb_agg(jsonb_build_object('name', c.relname,
														   'bound', pg_get_expr(c.relpartbound, c.oid))
										ORDER BY length(c.relname), c.relname COLLATE "C")
						 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
						WHERE i.inhparent = format('%I.%I', t.schema_name, t.table_name || '$data')::regclass),
		'stream_details', ots.stream_details(t),
		'creation_time', extract(epoch FROM t.created_at)::bigint)
		|| CASE WHEN t.index_of IS NOT NULL
				THEN jsonb_build_object('index_of', t.index_of, 'index_meta', ots.index_meta(t))
				ELSE '{}' END
	  FROM ots.tables t
	 WHERE t.schema_name = $1 AND t.table_name = $2);
	IF description IS NULL THEN
		-- ots.tables shows each role only the tables it may see (ots.table_visible)
		IF ots.table_visible(schema_name, table_name) THEN
			PERFORM ots.raise('OTSObjectNotExist', 'Requested table does not exist.');
		END IF;
		RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
			MESSAGE = format('permission denied for ots table %I.%I', schema_name, table_name),
			DETAIL = 'describe_table needs a privilege on the table''s view or storage (and USAGE on its schema), or ownership.';
	END IF;
	RETURN description;
END
$$;
COMMENT ON FUNCTION ots.describe_table_internal(name, name) IS 'describes a resolved ots table (internal)';

CREATE OR REPLACE FUNCTION ots.delete_table_internal(schema_name name, table_name name) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	IF EXISTS (SELECT 1 FROM ots.tables i
				WHERE i.schema_name = delete_table_internal.schema_name
				  AND i.table_name = delete_table_internal.table_name AND i.index_of IS NOT NULL) THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Can''t delete index table directly.',
						  'Delete an index with ots.delete_index(table, index_name).');
	END IF;
	-- a table's indexes go with it (35_indexes.sql)
	PERFORM ots.delete_index_internal(i.schema_name, i.index_of, i.table_name)
	   FROM ots.tables i
	  WHERE i.schema_name = delete_table_internal.schema_name
		AND i.index_of = delete_table_internal.table_name;
	-- expiry hook (50_expiry.sql): purge job, purge and activity counters go first
	PERFORM ots.expiry_forget(delete_table_internal.schema_name, delete_table_internal.table_name);
	-- metadata before the DROPs: the storage still shows who owns the table,
	-- and the sql_drop event trigger (60_ddl.sql) has nothing left to do
	PERFORM ots.catalog_delete(delete_table_internal.schema_name, delete_table_internal.table_name);
	EXECUTE format('DROP VIEW %I.%I', schema_name, table_name);
	EXECUTE format('DROP TABLE %I.%I', schema_name, table_name || '$data');
	IF to_regclass(format('%I.%I', schema_name, table_name || '$seq')) IS NOT NULL THEN
		EXECUTE format('DROP SEQUENCE %I.%I', schema_name, table_name || '$seq');
	END IF;
	PERFORM ots.stream_drop_storage(delete_table_internal.schema_name, delete_table_internal.table_name);
END
$$;
COMMENT ON FUNCTION ots.delete_table_internal(name, name) IS 'drops a resolved ots table (internal)';

CREATE OR REPLACE FUNCTION ots.expiry_needed(schema_name name, table_name name) RETURNS boolean
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	-- an index's entries go with its base table's rows (src/index_write.c): it is never purged itself
	SELECT coalesce(bool_or(t.time_to_live <> -1 OR t.trimmed_max_versions > t.max_versions
							OR t.stream_id IS NOT NULL), false)
	  FROM ots.tables t
	 WHERE t.schema_name = $1 AND t.table_name = $2 AND t.index_of IS NULL
$$;
COMMENT ON FUNCTION ots.expiry_needed(name, name) IS
	'whether an ots table has a TTL or versions beyond max_versions left to trim (internal)';

CREATE OR REPLACE PROCEDURE ots.purge_table(schema_name name, table_name name, batch_size integer)
	LANGUAGE plpgsql
	AS $$
DECLARE
	s pg_catalog.record;
	r pg_catalog.record;
	leaf pg_catalog.text;
	trimming boolean;
	from_block bigint;
	end_block bigint;
	trimmed boolean := false;
	n bigint;
BEGIN
	-- fails here, before any lock is taken, inside a transaction block
	COMMIT;
	SELECT * INTO s FROM ots.purge_start(schema_name, table_name, batch_size);
	IF s.lock_key IS NULL THEN
		RETURN;
	END IF;
	FOREACH trimming IN ARRAY s.passes LOOP
		FOR leaf IN SELECT l.leaf FROM ots.purge_leaves(schema_name, table_name) AS l(leaf) LOOP
			from_block := 0;
			end_block := NULL;
			LOOP
				BEGIN
					SELECT * INTO r
					  FROM ots.purge_step(schema_name, table_name, leaf, trimming, s.now_ms, batch_size,
										  from_block, end_block);
				EXCEPTION WHEN OTHERS OR query_canceled THEN
					PERFORM ots.purge_unlock(s.lock_key);
					RAISE;
				END;
				COMMIT;
				EXIT WHEN r.done;
				from_block := r.next_block;
				end_block := r.last_block;
			END LOOP;
		END LOOP;
		trimmed := trimming;
	END LOOP;
	-- the stream's expired records (45_stream.sql), batch by batch
	LOOP
		BEGIN
			n := ots.stream_trim(schema_name, table_name, batch_size);
		EXCEPTION WHEN OTHERS OR query_canceled THEN
			PERFORM ots.purge_unlock(s.lock_key);
			RAISE;
		END;
		COMMIT;
		EXIT WHEN n < batch_size;
	END LOOP;
	PERFORM ots.purge_finish(schema_name, table_name, s.lock_key, s.started, trimmed, s.options_xmin);
	COMMIT;
END
$$;
COMMENT ON PROCEDURE ots.purge_table(name, name, integer) IS
	'purges one resolved ots table in committed batches (internal; CALL ots.purge)';

CREATE FUNCTION ots.forget_dropped_streams() RETURNS TABLE (schema_name name, table_name name)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
BEGIN
	FOR t IN
		SELECT DISTINCT o.schema_name, o.table_name
		  FROM pg_event_trigger_dropped_objects() d
		  JOIN ots.tables o
			ON o.schema_name = d.schema_name
		   AND d.object_name IN (o.table_name || '$log', o.table_name || '$rec')
		 WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0 AND d.object_type = 'table'
		   AND o.stream_id IS NOT NULL
		   AND ots.relation_owner(d.schema_name, d.object_name)
			   = ots.relation_owner(d.schema_name, o.table_name || '$data')
	LOOP
		UPDATE ots.tables o
		   SET stream_id = NULL, stream_expiration_hours = NULL, stream_enabled_at = NULL
		 WHERE o.schema_name = t.schema_name AND o.table_name = t.table_name;
		PERFORM ots.catalog_carry(t.schema_name, t.table_name);
		IF to_regclass(format('%I.%I', t.schema_name, t.table_name || '$data')) IS NOT NULL THEN
			PERFORM ots.invalidate_table(format('%I.%I', t.schema_name, t.table_name || '$data')::regclass);
		END IF;
		schema_name := t.schema_name;
		table_name := t.table_name;
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.forget_dropped_streams() IS
	'in an sql_drop event trigger: disables the streams of ots tables one of whose stream relations was dropped (internal)';

CREATE OR REPLACE FUNCTION ots.storage_dropped() RETURNS event_trigger
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
	owner oid;
BEGIN
	FOR t IN SELECT f.schema_name, f.table_name FROM ots.forget_dropped_tables() f LOOP
		owner := ots.relation_owner(t.schema_name, t.table_name || '$data');
		-- the view of an index whose table went (a table's view goes with its storage), with
		-- what depends on it: the table it indexes is what the DROP asked to remove
		IF (SELECT c.relkind FROM pg_class c
			 WHERE c.oid = to_regclass(format('%I.%I', t.schema_name, t.table_name))) = 'v'
		   AND ots.relation_owner(t.schema_name, t.table_name) = owner THEN
			EXECUTE format('DROP VIEW %I.%I CASCADE', t.schema_name, t.table_name);
		END IF;
		IF to_regclass(format('%I.%I', t.schema_name, t.table_name || '$data')) IS NOT NULL THEN
			EXECUTE format('DROP TABLE %I.%I', t.schema_name, t.table_name || '$data');
		END IF;
		IF to_regclass(format('%I.%I', t.schema_name, t.table_name || '$seq')) IS NOT NULL
		   AND ots.relation_owner(t.schema_name, t.table_name || '$seq') = owner THEN
			EXECUTE format('DROP SEQUENCE %I.%I', t.schema_name, t.table_name || '$seq');
		END IF;
		PERFORM ots.stream_drop_storage(t.schema_name, t.table_name);
	END LOOP;
	-- a stream whose log or records went is gone whole (45_stream.sql)
	FOR t IN SELECT f.schema_name, f.table_name FROM ots.forget_dropped_streams() f LOOP
		PERFORM ots.stream_drop_storage(t.schema_name, t.table_name);
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.storage_dropped() IS
	'event trigger: dropping an ots table''s view or storage drops the ots table and forgets it (internal)';

-- review of issue 31, findings 2, 3 and 6: a relation found by name beside
-- a table's storage is the table's only with the storage's owner (the drop
-- clean-up asks ots.relation_owner, src/dropped.c, defined above); the
-- calls that act on every table a role owns go on past one that does not
-- load (ots.table_problem); a stream id is never another table's, now or
-- before (the index tables_stream_id, ots.retired_streams and the trigger
-- ots.tables_stream_id).
-- ots.table_problem: why a registered table does not load (not whole, as a
-- restore that stopped half way leaves it, or damaged), NULL when it does;
-- the calls that act on every table a role owns go on past such a table
CREATE FUNCTION ots.table_problem(schema_name name, table_name name) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_table_problem' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.table_problem(name, name) IS
	'why a registered ots table does not load (not whole, or damaged), NULL when it does (internal)';

-- A stream id names one stream of the database for good: a consumer that
-- holds it must never be handed another table's records.  ots makes new
-- ones at random, but a restore's comment carries one (catalog_write.c) and
-- catalog_set_stream takes any, so ots.tables refuses an id another table
-- has (this index, also against two registrations at once) and one that
-- was retired from a table of another owner (ots.retired_streams: its
-- stream disabled or its table dropped).  Its owner's table may take it
-- again: a restore of that table, after pg_restore --clean, say.
CREATE UNIQUE INDEX tables_stream_id ON ots.tables (stream_id) WHERE stream_id IS NOT NULL;
CREATE TABLE ots.retired_streams (
	stream_id text PRIMARY KEY,
	-- the owner of the table's storage when the id was retired (NULL: unknown)
	owner oid
);
COMMENT ON TABLE ots.retired_streams IS
	'stream ids no ots table has any more, with the owner of the last one (only that owner''s tables may take one again)';

-- ots.tables_stream_id: the trigger of ots.tables that keeps that rule:
-- before a row takes a stream id, refuses one in use or retired from
-- another owner's table (42710); after a row loses one, retires it
CREATE FUNCTION ots.tables_stream_id() RETURNS trigger
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF TG_WHEN = 'BEFORE' THEN
		IF NEW.stream_id IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.stream_id IS DISTINCT FROM OLD.stream_id) THEN
			IF EXISTS (SELECT FROM ots.tables o WHERE o.stream_id = NEW.stream_id) THEN
				RAISE EXCEPTION 'ots table %.% carries the stream id of another ots table',
					quote_ident(NEW.schema_name), NEW.table_name
					USING ERRCODE = 'duplicate_object', DETAIL = format('Stream id %s is in use.', NEW.stream_id);
			END IF;
			IF EXISTS (SELECT FROM ots.retired_streams r
						WHERE r.stream_id = NEW.stream_id
						  AND r.owner IS DISTINCT FROM ots.relation_owner(NEW.schema_name, NEW.table_name || '$data')) THEN
				RAISE EXCEPTION 'ots table %.% carries the stream id of another role''s ots table',
					quote_ident(NEW.schema_name), NEW.table_name
					USING ERRCODE = 'duplicate_object',
						  DETAIL = format('Stream id %s was retired from a table of another owner.', NEW.stream_id);
			END IF;
		END IF;
		RETURN NEW;
	END IF;
	IF OLD.stream_id IS NOT NULL AND (TG_OP = 'DELETE' OR NEW.stream_id IS DISTINCT FROM OLD.stream_id) THEN
		INSERT INTO ots.retired_streams AS r (stream_id, owner)
		VALUES (OLD.stream_id, ots.relation_owner(OLD.schema_name, OLD.table_name || '$data'))
		ON CONFLICT (stream_id) DO UPDATE SET owner = excluded.owner;
	END IF;
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION ots.tables_stream_id() IS
	'trigger of ots.tables: no stream id another table has or another owner''s table had; ids dropped are retired (internal)';
CREATE TRIGGER stream_id_taken BEFORE INSERT OR UPDATE OF stream_id ON ots.tables
	FOR EACH ROW EXECUTE FUNCTION ots.tables_stream_id();
CREATE TRIGGER stream_id_retired AFTER UPDATE OF stream_id OR DELETE ON ots.tables
	FOR EACH ROW EXECUTE FUNCTION ots.tables_stream_id();

-- issue 31 items 12-15: every restore path works.  ots.tables and
-- ots.purge_stats are no part of a dump any more (a database owner's
-- pg_dump read their row-level security and failed; a restore had to be a
-- superuser's): each table's row is carried by its storage's comment
-- (src/catalog_write.c), which every dump writes with the storage and which
-- registers the table as a restore writes it (src/ddl_guard.c).  The
-- statistics of purges are not restored.
ALTER EXTENSION ots DROP TABLE ots.tables;
ALTER EXTENSION ots ADD TABLE ots.tables;
ALTER EXTENSION ots DROP TABLE ots.purge_stats;
ALTER EXTENSION ots ADD TABLE ots.purge_stats;
CREATE FUNCTION ots.catalog_carry(schema_name name, table_name name) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_carry' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_carry(name, name) IS
	'makes the comment of an ots table''s storage carry its definition as ots.tables has it, for a restore (internal; the drop clean-up)';
REVOKE EXECUTE ON FUNCTION ots.catalog_carry(name, name) FROM PUBLIC;
-- every table's storage carries its definition from now on
SELECT ots.catalog_carry(t.schema_name, t.table_name) FROM ots.tables t
 WHERE to_regclass(format('%I.%I', t.schema_name, t.table_name || '$data')) IS NOT NULL;

-- issue 31 item 17: pg_cron installed after ots tables exist schedules
-- their purge jobs (the event trigger ots_create_extension), and
-- ots.schedule_all() schedules every job again; ots.expiry_sync's job part
-- is ots.expiry_schedule, which both share
-- ots.expiry_schedule: make the table's purge job match its options
CREATE FUNCTION ots.expiry_schedule(schema_name name, table_name name, notify boolean) RETURNS boolean
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	owner_name name;
	job_user name := current_user;
BEGIN
	IF NOT ots.expiry_needed(schema_name, table_name) THEN
		PERFORM ots.unschedule_purge(schema_name, table_name);
		RETURN false;
	END IF;
	IF NOT ots.cron_ready(notify) THEN
		RETURN false;
	END IF;
	-- the job runs as the table's owner.  pg_cron lets only a superuser
	-- schedule a job for another role, and runs jobs only as roles that
	-- may log in to the database: otherwise the job is the caller's (the
	-- purge still runs each batch as the owner)
	SELECT r.rolname INTO owner_name
	  FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner
	 WHERE c.oid = to_regclass(format('%I.%I', schema_name, table_name || '$data'));
	IF owner_name <> current_user
	   AND (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user)
	   AND (SELECT r.rolcanlogin FROM pg_roles r WHERE r.rolname = owner_name)
	   AND has_database_privilege(owner_name, current_database(), 'CONNECT') THEN
		job_user := owner_name;
	END IF;
	BEGIN
		-- one job per table: another role's job of that name (the caller
		-- may see) goes; named jobs are upserted on (jobname, username),
		-- so scheduling again is idempotent
		EXECUTE 'SELECT count(cron.unschedule(j.jobid)) FROM cron.job j'
				' WHERE j.jobname OPERATOR(pg_catalog.=) $1'
				'   AND j.database OPERATOR(pg_catalog.=) current_database()'
				'   AND j.username OPERATOR(pg_catalog.<>) $2'
		  USING ots.purge_job_name(schema_name, table_name), job_user::text;
		IF job_user = current_user THEN
			EXECUTE 'SELECT cron.schedule($1, $2, $3)'
			  USING ots.purge_job_name(schema_name, table_name),
					current_setting('ots.purge_schedule'),
					format('CALL ots.purge(%L)', format('%I.%s', schema_name, table_name));
		ELSE
			EXECUTE 'SELECT cron.schedule_in_database($1, $2, $3, current_database(), $4)'
			  USING ots.purge_job_name(schema_name, table_name),
					current_setting('ots.purge_schedule'),
					format('CALL ots.purge(%L)', format('%I.%s', schema_name, table_name)),
					job_user::text;
		END IF;
	EXCEPTION WHEN insufficient_privilege THEN
		RAISE NOTICE 'could not schedule the purge of ots table %.%: %', quote_ident(schema_name),
			table_name, SQLERRM
			USING HINT = 'Schedule CALL ots.purge() elsewhere.';
		RETURN false;
	END;
	RETURN true;
END
$$;
COMMENT ON FUNCTION ots.expiry_schedule(name, name, boolean) IS
	'schedules or removes an ots table''s purge job to match its options, as its owner where pg_cron allows; whether it has a job now (internal)';

-- ots.expiry_sync: make the index and the job match the table's options
CREATE OR REPLACE FUNCTION ots.expiry_sync(schema_name name, table_name name, notify boolean) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	ttl bigint;
	has_index boolean := to_regclass(format('%I.%I', schema_name, table_name || '$ttl')) IS NOT NULL;
BEGIN
	SELECT t.time_to_live INTO ttl FROM ots.tables t
	 WHERE t.schema_name = expiry_sync.schema_name AND t.table_name = expiry_sync.table_name;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	-- the index serves the TTL pass only; without a TTL it would just slow writes
	IF ttl <> -1 AND NOT has_index THEN
		EXECUTE format('CREATE INDEX %I ON %I.%I ("$oldest_ts")',
					   table_name || '$ttl', schema_name, table_name || '$data');
	ELSIF ttl = -1 AND has_index THEN
		EXECUTE format('DROP INDEX %I.%I', schema_name, table_name || '$ttl');
	END IF;
	PERFORM ots.expiry_schedule(schema_name, table_name, notify);
END
$$;
COMMENT ON FUNCTION ots.expiry_sync(name, name, boolean) IS
	'creates or drops an ots table''s "$oldest_ts" index and purge job to match its options (internal)';

CREATE FUNCTION ots.schedule_all() RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
	n integer := 0;
BEGIN
	IF NOT ots.cron_ready(true) THEN
		RETURN 0;
	END IF;
	-- the tables the caller owns that need purging, as ots.purge() finds them
	FOR t IN SELECT p.schema_name, p.table_name FROM ots.purge_targets() p LOOP
		IF ots.expiry_schedule(t.schema_name, t.table_name, false) THEN
			n := n + 1;
		END IF;
	END LOOP;
	RETURN n;
END
$$;
COMMENT ON FUNCTION ots.schedule_all() IS
	'schedules the pg_cron purge job of every ots table the caller owns that needs one (each as its owner where pg_cron allows); returns how many have one; CREATE EXTENSION pg_cron runs it';

-- ots.create_extension_trigger: pg_cron created after ots tables exist
-- schedules their jobs, as create_table would have (the creator of pg_cron
-- is a superuser: every table, each job as its owner)
CREATE FUNCTION ots.create_extension_trigger() RETURNS event_trigger
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_event_trigger_ddl_commands() c
				WHERE c.classid OPERATOR(pg_catalog.=) 'pg_extension'::regclass
				  AND c.objid OPERATOR(pg_catalog.=) (SELECT e.oid FROM pg_extension e
													   WHERE e.extname OPERATOR(pg_catalog.=) 'pg_cron')) THEN
		PERFORM ots.schedule_all();
	END IF;
END
$$;
COMMENT ON FUNCTION ots.create_extension_trigger() IS
	'event trigger: CREATE EXTENSION pg_cron schedules the purge jobs of existing ots tables (internal)';

CREATE EVENT TRIGGER ots_create_extension ON ddl_command_end
	WHEN TAG IN ('CREATE EXTENSION')
	EXECUTE FUNCTION ots.create_extension_trigger();

-- issue 31 item 18: ots.verify checks ots storage (src/sql/65_verify.sql,
-- src/verify.c): amcheck's heap and btree checks of every leaf, rows,
-- indexes against their tables, stream records
CREATE FUNCTION ots.verify_relation(relation regclass, OUT problem_relation regclass, OUT kind text,
									OUT location text, OUT problem text, OUT detail text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'ots_verify_relation' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.verify_relation(regclass) IS
	'amcheck''s heap check of a relation (an ots leaf presented as heap; TOAST included) and btree check of its indexes, one row per problem; owner only (internal: ots.verify)';

CREATE FUNCTION ots.verify_rows(schema_name name, table_name name, OUT relation regclass,
								OUT kind text, OUT location text, OUT problem text, OUT detail text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'ots_verify_rows' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.verify_rows(name, name) IS
	'ots''s checks of an ots table: its rows'' cells and keys, its indexes against its rows, its stream''s records, one row per problem; owner only (internal: ots.verify)';

-- ots.verify_relations: what amcheck checks of an ots table: the leaves of
-- its storage, of its indexes' (a base table) and its stream's relations,
-- each followed by its TOAST table
CREATE FUNCTION ots.verify_relations(schema_name name, table_name name) RETURNS SETOF regclass
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	WITH parts AS (
		SELECT 0 AS o, l.leaf::regclass AS rel, l.leaf AS name
		  FROM ots.tables t, ots.purge_leaves(t.schema_name, t.table_name) l(leaf)
		 WHERE t.schema_name = $1 AND (t.table_name = $2 OR t.index_of = $2)
		UNION ALL
		SELECT 1, s.rel, s.rel::text
		  FROM (SELECT to_regclass(format('%I.%I', $1, $2 || x)) AS rel
				  FROM unnest(ARRAY['$log', '$rec']) x) s
		 WHERE s.rel IS NOT NULL
	)
	SELECT r.rel FROM (
		SELECT p.o, p.name, 0 AS toast, p.rel FROM parts p
		UNION ALL
		SELECT p.o, p.name, 1, c.reltoastrelid::regclass FROM parts p JOIN pg_class c ON c.oid = p.rel
		 WHERE c.reltoastrelid <> 0
	) r
	 ORDER BY r.o, r.name COLLATE "C", r.toast
$$;
COMMENT ON FUNCTION ots.verify_relations(name, name) IS
	'the relations of an ots table amcheck checks: leaves of its storage and its indexes'', its stream''s relations, their TOAST (internal: ots.verify)';

-- ots.verify_tables: ots.verify of a resolved table, or of every table the caller owns (NULLs)
CREATE FUNCTION ots.verify_tables(schema_name name, table_name name, amcheck boolean)
	RETURNS TABLE (ots_table text, relation regclass, kind text, location text, problem text,
				   detail text)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
	r regclass;
	qualified text;
	why text;
BEGIN
	-- a table the caller may not see (ots.tables shows it no row) is refused all the same
	IF verify_tables.table_name IS NOT NULL
	   AND NOT coalesce(ots.owns_table(verify_tables.schema_name, verify_tables.table_name), false) THEN
		RAISE EXCEPTION 'must be owner of ots table %.% to verify it', quote_ident(verify_tables.schema_name),
			verify_tables.table_name
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	FOR t IN SELECT o.schema_name, o.table_name FROM ots.tables o
			  WHERE (o.schema_name, o.table_name) = (verify_tables.schema_name, verify_tables.table_name)
				 OR (verify_tables.table_name IS NULL AND o.index_of IS NULL
					 AND coalesce(ots.owns_table(o.schema_name, o.table_name), false))
			  ORDER BY o.schema_name COLLATE "C", o.table_name COLLATE "C"
	LOOP
		qualified := format('%I.%s', t.schema_name, t.table_name);
		IF verify_tables.table_name IS NULL THEN
			why := ots.table_problem(t.schema_name, t.table_name);
			IF why IS NOT NULL THEN
				RETURN QUERY SELECT qualified, to_regclass(format('%I.%I', t.schema_name, t.table_name || '$data')),
									'table'::text, NULL::text, 'the table does not load'::text, why;
				CONTINUE;
			END IF;
		END IF;
		IF amcheck THEN
			FOR r IN SELECT x FROM ots.verify_relations(t.schema_name, t.table_name) x LOOP
				RETURN QUERY SELECT qualified, v.problem_relation, v.kind, v.location, v.problem, v.detail
							   FROM ots.verify_relation(r) v;
			END LOOP;
		END IF;
		RETURN QUERY SELECT qualified, v.relation, v.kind, v.location, v.problem, v.detail
					   FROM ots.verify_rows(t.schema_name, t.table_name) v;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.verify_tables(name, name, boolean) IS
	'ots.verify of one resolved ots table, or of every one the caller owns (NULL names) (internal)';

-- resolved in the caller's search_path, as every table-name argument
CREATE FUNCTION ots.verify(table_name text DEFAULT NULL, amcheck boolean DEFAULT true)
	RETURNS TABLE (ots_table text, relation regclass, kind text, location text, problem text,
				   detail text)
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT v.ots_table, v.relation, v.kind, v.location, v.problem, v.detail
	  FROM (SELECT NULL::name AS schema_name, NULL::name AS table_name WHERE table_name IS NULL
			UNION ALL
			-- (resolve_name is STRICT: of a NULL name, a row of NULLs)
			SELECT r.schema_name, r.table_name FROM ots.resolve_name(table_name, false) r
			 WHERE verify.table_name IS NOT NULL) n,
		   LATERAL ots.verify_tables(n.schema_name, n.table_name, amcheck) v;
END;
COMMENT ON FUNCTION ots.verify(text, boolean) IS
	'checks the storage of an ots table, or of every one the caller owns: heap and btree through amcheck (unless amcheck => false), rows, secondary indexes against their tables, stream records; one row per problem, none when all is well';

-- ots.stats_reset() zeroes each table once (resolve_name of a NULL name is a row of NULLs)
CREATE OR REPLACE FUNCTION ots.stats_reset(table_name text DEFAULT NULL) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.stats_reset_internal(r.schema_name, r.table_name)
	  FROM (SELECT NULL::name AS schema_name, NULL::name AS table_name
			 WHERE stats_reset.table_name IS NULL
			UNION ALL
			-- (resolve_name is STRICT: of a NULL name, a row of NULLs)
			SELECT n.schema_name, n.table_name
			  FROM ots.resolve_name(stats_reset.table_name, false) n
			 WHERE stats_reset.table_name IS NOT NULL) r;
END;

-- issue 31 item 9: a generated AUTO_INCREMENT key never replaces a row (src/auto_increment.c);
-- ots.sync_auto_increment moves sequences past the rows after a failover or a restore

-- ots.sync_auto_increment_internal: moves the AUTO_INCREMENT sequence of a
-- resolved table the caller owns past the largest value stored in its
-- column below 2^62; its last value after the call (NULL: no sequence, or
-- none taken).  Larger values, which no sequence reaches by counting (they
-- were written as such), are not followed: the sequence, one for every
-- partition key, would be left near its end for all of them.
CREATE FUNCTION ots.sync_auto_increment_internal(schema_name name, table_name name) RETURNS bigint
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	followed_below CONSTANT bigint := 4611686018427387904;	-- 2^62
	t ots.tables;
	seq regclass;
	stored bigint;
	beyond boolean;
	last bigint;
BEGIN
	SELECT * INTO t FROM ots.tables o WHERE o.schema_name = $1 AND o.table_name = $2;
	IF NOT FOUND THEN
		PERFORM ots.raise('OTSObjectNotExist', 'Requested table does not exist.');
	END IF;
	PERFORM ots.require_owner(t.schema_name, t.table_name, t.table_name);
	IF t.auto_increment IS NULL THEN
		RETURN NULL;
	END IF;
	seq := format('%I.%I', t.schema_name, t.table_name || '$seq')::regclass;
	-- values taken meanwhile are past the rows already; none runs backwards (the
	-- lock keeps out writers of the table until this transaction ends)
	EXECUTE format('LOCK TABLE %I.%I IN SHARE MODE', t.schema_name, t.table_name || '$data');
	EXECUTE format('SELECT pg_catalog.max(%1$I) FILTER (WHERE %1$I OPERATOR(pg_catalog.<) $1),'
				   ' pg_catalog.bool_or(%1$I OPERATOR(pg_catalog.>=) $1) FROM %2$I.%3$I',
				   t.pk_names[t.auto_increment], t.schema_name, t.table_name || '$data')
		INTO stored, beyond USING followed_below;
	IF beyond THEN
		RAISE WARNING 'ots table %.% holds AUTO_INCREMENT values of % and more, which its sequence does not follow',
			quote_ident(t.schema_name), quote_ident(t.table_name), followed_below
			USING DETAIL = 'No sequence reaches them by counting: they were written as such.',
				  HINT = 'A key generated under a partition key holding one is taken past its largest value, and is refused when that is 9223372036854775807.';
	END IF;
	last := pg_catalog.pg_sequence_last_value(seq);
	IF stored OPERATOR(pg_catalog.>) coalesce(last, 0) THEN
		last := pg_catalog.setval(seq, stored);
	END IF;
	RETURN last;
END
$$;
COMMENT ON FUNCTION ots.sync_auto_increment_internal(name, name) IS
	'moves the AUTO_INCREMENT sequence of a resolved ots table past its rows (internal; call ots.sync_auto_increment)';

-- ots.sync_auto_increment: after a logical replication failover or a restore
-- of rows without their sequence, generated keys start past the rows again
CREATE FUNCTION ots.sync_auto_increment(table_name text DEFAULT NULL)
	RETURNS TABLE (schema_name name, table_name name, last_value bigint)
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
-- a SQL-standard body: the table name resolves on the caller's search_path
BEGIN ATOMIC
	SELECT o.schema_name, o.table_name, ots.sync_auto_increment_internal(o.schema_name, o.table_name)
	  FROM ots.tables o
	 WHERE o.auto_increment IS NOT NULL
	   AND CASE WHEN sync_auto_increment.table_name IS NULL
				-- every table the caller owns that loads (one that does not is not whole, or damaged)
				THEN CASE WHEN ots.owns_table(o.schema_name, o.table_name)
						  THEN ots.table_problem(o.schema_name, o.table_name) IS NULL END
				ELSE (o.schema_name, o.table_name) IN (SELECT r.schema_name, r.table_name
														 FROM ots.resolve_name(sync_auto_increment.table_name, false) r)
		   END
	 ORDER BY o.schema_name COLLATE "C", o.table_name COLLATE "C";
END;
COMMENT ON FUNCTION ots.sync_auto_increment(text) IS
	'moves the AUTO_INCREMENT sequence of an ots table (or of every one the caller owns) past the largest value stored below 2^62, as after a logical replication failover or a restore of rows without their sequence';

-- review of issue 31, finding 3: CALL ots.purge() of every table goes on
-- past a table that does not load (a WARNING names it)
CREATE OR REPLACE PROCEDURE ots.purge(table_name text DEFAULT NULL, batch_size integer DEFAULT 1000)
	LANGUAGE plpgsql
	AS $$
DECLARE
	t pg_catalog.record;
	problem pg_catalog.text;
BEGIN
	IF pg_catalog.pg_is_in_recovery() THEN
		RAISE NOTICE 'ots.purge does nothing on a standby: the primary purges, replication follows';
		RETURN;
	END IF;
	IF table_name IS NULL THEN
		FOR t IN SELECT p.schema_name, p.table_name FROM ots.purge_targets() p LOOP
			-- one table that does not load (not whole, or damaged) stops none of the others
			problem := ots.table_problem(t.schema_name, t.table_name);
			IF problem IS NOT NULL THEN
				RAISE WARNING 'ots table %.% is not purged: %', pg_catalog.quote_ident(t.schema_name), pg_catalog.quote_ident(t.table_name),
					problem;
				CONTINUE;
			END IF;
			CALL ots.purge_table(t.schema_name, t.table_name, batch_size);
		END LOOP;
	ELSE
		SELECT r.schema_name, r.table_name INTO t FROM ots.resolve_name(table_name, false) r;
		CALL ots.purge_table(t.schema_name, t.table_name, batch_size);
	END IF;
END
$$;

-- issue 31: an index's view answers only once the index is complete (its
-- gate, which ots.sync_table_view puts first in its WHERE)
CREATE FUNCTION ots.index_readable(storage regclass) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_index_readable' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.index_readable(regclass) IS
	'true unless storage is an index''s that does not answer reads yet (being built, or completed after the statement''s snapshot), which raises get_row''s error: the gate of an index''s view (internal)';
