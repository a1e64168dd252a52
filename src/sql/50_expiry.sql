-- Expiry: physical removal of what reads no longer see (expired cells,
-- cells beyond max_versions, rows left with nothing visible) and the
-- pg_cron jobs that run it.
--
-- Reads hide expired and over-max cells at once (src/format/visibility.c); this file
-- removes them later, in small committed batches:
--  * TTL pass: rows whose "$oldest_ts" (oldest cell, or row marker when the
--    row has no cells) is at or before now - time_to_live are found through
--    the index "<table>$ttl" on "$oldest_ts", which exists exactly while the
--    table has a TTL; the cost follows the rows purged, not the table size.
--    The chunk relation's "<table>$cttl" on its "$oldest_ts" exists with it
--    (for the chunks of split rows: docs/design.md, "Wide rows: heads and
--    chunks").
--  * trim pass: only after max_versions was lowered (writes trim on their
--    own), one walk over every leaf by block ranges; ots.tables records the
--    pending bound in trimmed_max_versions.
-- Each batch is one statement per leaf (ots.purge_batch, src/expiry/purge.c) that
-- deletes rows no longer existing by the row rule and rewrites the others
-- with ots.purge_row, reaching its candidates by TID.  It runs as the
-- table's owner in a security-restricted operation, whoever purges (a
-- superuser's CALL, a pg_cron job): code on the table never runs with more
-- rights than its owner's.  Its WHERE and SET read the row being changed, and
-- a row another session changed since the batch chose it fails the TID
-- recheck under READ COMMITTED: the batch leaves it alone (after waiting
-- for that writer) and the next batch takes the new version if it still
-- has expired cells.  So no write is ever lost or overwritten, and a write
-- that comes while a batch holds the row waits and applies on top of it.
-- Each batch holds ots.tables' row FOR SHARE, so options cannot change
-- (update_table waits) between reading them and committing the batch.
--
-- pg_cron is optional and never referenced statically: every call goes
-- through EXECUTE after a pg_extension check.  One job per table, named by
-- ots.purge_job_name, created by create_table / update_table while the
-- table needs purging (and for tables made before pg_cron, by CREATE
-- EXTENSION pg_cron, an event trigger, or ots.schedule_all), removed by
-- delete_table, by the purge itself once nothing is left to do, and by
-- DROP EXTENSION ots (event trigger).  A job runs as the table's owner
-- when the role scheduling it may say so (see ots.expiry_schedule).
--
-- ots.purge and ots.purge_table COMMIT, so they cannot pin search_path:
-- they call only schema-qualified objects and use no operators; the work
-- is done by the helper functions here, which do pin it.

-- ---------------------------------------------------------------------
-- Per-row primitives (src/expiry/purge.c)
-- ---------------------------------------------------------------------

CREATE FUNCTION ots.purge_row(cells ots.cells, time_to_live bigint, max_versions integer, now_ms bigint,
							  OUT purged ots.cells, OUT oldest_ts bigint)
	AS 'MODULE_PATHNAME', 'ots_purge_row' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.purge_row(ots.cells, bigint, integer, bigint) IS
	'what the purge stores for a row: the cells reads see under these options at now_ms (row marker kept) and their "$oldest_ts", as the cells builder reports it (NULLs when the row no longer exists)';

CREATE FUNCTION ots.purge_chunk(cells ots.cells, time_to_live bigint, max_versions integer, now_ms bigint,
								newer bigint, OUT purged ots.cells, OUT oldest_ts bigint, OUT first_column text,
								OUT first_ts bigint)
	AS 'MODULE_PATHNAME', 'ots_purge_chunk' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.purge_chunk(ots.cells, bigint, integer, bigint, bigint) IS
	'what the purge stores for a chunk of a split row, newer cells of its last column being in later chunks: ots.purge_row''s cells and "$oldest_ts", and the chunk''s key, its first cell (NULLs when the chunk goes)';

CREATE FUNCTION ots.chunk_purgeable(cells ots.cells, time_to_live bigint, max_versions integer,
									now_ms bigint, newer bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_chunk_purgeable' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.chunk_purgeable(ots.cells, bigint, integer, bigint, bigint) IS
	'whether ots.purge_chunk would change the chunk';

CREATE FUNCTION ots.cells_last_column(cells ots.cells) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_cells_last_column' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.cells_last_column(ots.cells) IS 'the name of the last column of these cells, NULL without one';

CREATE FUNCTION ots.cells_column_count(cells ots.cells, name text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_cells_column_count' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.cells_column_count(ots.cells, text) IS 'how many cells the named column has in these cells';

CREATE FUNCTION ots.cells_oldest_ts(cells ots.cells) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_cells_oldest_ts' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.cells_oldest_ts(ots.cells) IS
	'what "$oldest_ts" holds for these cells: the oldest cell''s timestamp, or the row marker when there are no cells';

CREATE FUNCTION ots.cells_row_exists(cells ots.cells, time_to_live bigint, now_ms bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_cells_row_exists' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.cells_row_exists(ots.cells, bigint, bigint) IS
	'the row rule: a visible cell, or a row marker younger than time_to_live, at now_ms';

CREATE FUNCTION ots.cells_purgeable(cells ots.cells, time_to_live bigint, max_versions integer,
									now_ms bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_cells_purgeable' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.cells_purgeable(ots.cells, bigint, integer, bigint) IS
	'whether ots.purge_row would change the row (remove a cell or the row)';

CREATE FUNCTION ots.cells_count(cells ots.cells) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_cells_count' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.cells_count(ots.cells) IS 'number of cells stored in a row, visible or not';

-- ---------------------------------------------------------------------
-- Bookkeeping
-- ---------------------------------------------------------------------

-- ots.purge_stats: what ots.purge removed, per table (names, never OIDs)
CREATE TABLE ots.purge_stats (
	schema_name name NOT NULL,
	table_name name NOT NULL,
	cells_purged bigint NOT NULL DEFAULT 0,
	rows_purged bigint NOT NULL DEFAULT 0,
	purges bigint NOT NULL DEFAULT 0,
	last_purge timestamptz,
	last_purge_duration interval,
	PRIMARY KEY (schema_name, table_name)
);
COMMENT ON TABLE ots.purge_stats IS 'cells and rows removed by ots.purge, and its last run, per ots table';
ALTER TABLE ots.purge_stats ENABLE ROW LEVEL SECURITY;
CREATE POLICY purge_stats_read ON ots.purge_stats FOR SELECT USING (ots.table_visible(schema_name, table_name));
CREATE POLICY purge_stats_insert ON ots.purge_stats FOR INSERT
	WITH CHECK (ots.owns_table(schema_name, table_name));
CREATE POLICY purge_stats_update ON ots.purge_stats FOR UPDATE
	USING (ots.owns_table(schema_name, table_name));
CREATE POLICY purge_stats_delete ON ots.purge_stats FOR DELETE
	USING (ots.owns_table(schema_name, table_name));
GRANT SELECT, INSERT, UPDATE, DELETE ON ots.purge_stats TO PUBLIC;

-- ots.trimmed_after_update: ots.tables.trimmed_max_versions after update_table
CREATE FUNCTION ots.trimmed_after_update(trimmed integer, old_max integer, new_max integer)
	RETURNS integer
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	-- stored columns hold at most greatest(trimmed or old max, new max) cells;
	-- only a bound above the new max_versions is worth remembering
	SELECT nullif(greatest(coalesce($1, $2), coalesce($3, $2)), coalesce($3, $2))
$$;
COMMENT ON FUNCTION ots.trimmed_after_update(integer, integer, integer) IS
	'the bound on stored versions per column after max_versions changes, NULL when within it (internal)';

-- ots.expiry_needed: does the table have data to purge now or in the future?
CREATE FUNCTION ots.expiry_needed(schema_name name, table_name name) RETURNS boolean
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	-- an index's entries go with its base table's rows (src/index/index_write.c): it is never purged itself
	SELECT coalesce(bool_or(t.time_to_live <> -1 OR t.trimmed_max_versions > t.max_versions
							OR t.stream_id IS NOT NULL), false)
	  FROM ots.tables t
	 WHERE t.schema_name = $1 AND t.table_name = $2 AND t.index_of IS NULL
$$;
COMMENT ON FUNCTION ots.expiry_needed(name, name) IS
	'whether an ots table has a TTL or versions beyond max_versions left to trim (internal)';

-- ---------------------------------------------------------------------
-- pg_cron jobs
-- ---------------------------------------------------------------------

CREATE FUNCTION ots.purge_job_name(schema_name name, table_name name) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	-- cron.job.jobname is a name (63 bytes): very long names get a digest
	SELECT CASE WHEN octet_length('ots.purge ' || q) <= 63 THEN 'ots.purge ' || q
				ELSE 'ots.purge ' || md5(q) END
	  FROM (SELECT format('%I.%s', $1, $2) AS q) s
$$;
COMMENT ON FUNCTION ots.purge_job_name(name, name) IS
	'name of the pg_cron job that purges an ots table: ''ots.purge <schema>.<table>''';

-- ots.cron_ready: can jobs for this database be scheduled? NOTICE when not.
-- (PARALLEL UNSAFE: its EXCEPTION block is a subtransaction)
CREATE FUNCTION ots.cron_ready(notify boolean) RETURNS boolean
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cron_database text;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_cron') THEN
		IF notify THEN
			RAISE NOTICE 'pg_cron is not installed in this database: expired and over-max data are hidden from reads but only removed by CALL ots.purge()'
				USING HINT = 'Schedule CALL ots.purge() with an external scheduler, or install pg_cron in this database.';
		END IF;
		RETURN false;
	END IF;
	-- jobs belong to the role that schedules them, which needs pg_cron's API
	IF NOT has_schema_privilege('cron', 'USAGE') THEN
		IF notify THEN
			RAISE NOTICE 'role "%" may not use pg_cron: no purge job scheduled', current_user
				USING HINT = 'GRANT USAGE ON SCHEMA cron to the table owner, or schedule CALL ots.purge() elsewhere.';
		END IF;
		RETURN false;
	END IF;
	-- pg_cron 1.4 runs jobs scheduled with cron.schedule in cron.database_name
	-- only, the one database it can be installed in (but for PGXS's
	-- contrib_regression); only privileged roles may read that setting
	BEGIN
		cron_database := current_setting('cron.database_name', true);
	EXCEPTION WHEN insufficient_privilege THEN
		cron_database := current_database();
	END;
	IF cron_database IS DISTINCT FROM current_database() THEN
		IF notify THEN
			RAISE NOTICE 'pg_cron runs jobs in database "%" only: no purge job scheduled for this database',
				cron_database
				USING HINT = 'Schedule CALL ots.purge() in this database with an external scheduler.';
		END IF;
		RETURN false;
	END IF;
	RETURN true;
END
$$;
COMMENT ON FUNCTION ots.cron_ready(boolean) IS
	'whether ots can schedule pg_cron jobs for this database (internal)';

-- ots.unschedule_purge removes the table's job (of every role the caller may see)
CREATE FUNCTION ots.unschedule_purge(schema_name name, table_name name) RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	n integer := 0;
BEGIN
	IF ots.cron_ready(false) THEN
		BEGIN
			EXECUTE 'SELECT count(cron.unschedule(j.jobid)) FROM cron.job j'
					' WHERE j.jobname OPERATOR(pg_catalog.=) $1'
					'   AND j.database OPERATOR(pg_catalog.=) current_database()'
			   INTO n USING ots.purge_job_name(schema_name, table_name);
		EXCEPTION WHEN insufficient_privilege THEN
			RAISE NOTICE 'could not remove the purge job of ots table %.%: %', quote_ident(schema_name),
				table_name, SQLERRM;
		END;
	END IF;
	RETURN n;
END
$$;
COMMENT ON FUNCTION ots.unschedule_purge(name, name) IS
	'removes the pg_cron job purging an ots table; returns the number of jobs removed (internal)';

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

-- ots.expiry_sync_chunk: make the TTL index "<table>$cttl" of an ots
-- table's chunk relation match its time_to_live (NULL: not registered yet,
-- nothing to do), where the table has a chunk relation of its storage's
-- owner: expiry_sync, and ots.create_chunk_relation for a table registered
-- already (the update to 0.3.0, a restore)
CREATE FUNCTION ots.expiry_sync_chunk(schema_name name, table_name name, time_to_live bigint) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	has_index boolean := to_regclass(format('%I.%I', schema_name, table_name || '$cttl')) IS NOT NULL;
BEGIN
	IF time_to_live <> -1 AND NOT has_index
	   AND ots.relation_owner(schema_name, table_name || '$chunk')
		   = ots.relation_owner(schema_name, table_name || '$data') THEN
		EXECUTE format('CREATE INDEX %I ON %I.%I ("$oldest_ts")',
					   table_name || '$cttl', schema_name, table_name || '$chunk');
	ELSIF time_to_live = -1 AND has_index THEN
		EXECUTE format('DROP INDEX %I.%I', schema_name, table_name || '$cttl');
	END IF;
END
$$;
COMMENT ON FUNCTION ots.expiry_sync_chunk(name, name, bigint) IS
	'creates or drops the "$oldest_ts" index of an ots table''s chunk relation to match its time_to_live (internal)';

-- ots.expiry_sync: make the indexes and the job match the table's options
CREATE FUNCTION ots.expiry_sync(schema_name name, table_name name, notify boolean) RETURNS void
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
	-- the indexes serve the TTL pass only; without a TTL they would just slow writes
	IF ttl <> -1 AND NOT has_index THEN
		EXECUTE format('CREATE INDEX %I ON %I.%I ("$oldest_ts")',
					   table_name || '$ttl', schema_name, table_name || '$data');
	ELSIF ttl = -1 AND has_index THEN
		EXECUTE format('DROP INDEX %I.%I', schema_name, table_name || '$ttl');
	END IF;
	PERFORM ots.expiry_sync_chunk(schema_name, table_name, ttl);
	PERFORM ots.expiry_schedule(schema_name, table_name, notify);
END
$$;
COMMENT ON FUNCTION ots.expiry_sync(name, name, boolean) IS
	'creates or drops an ots table''s "$oldest_ts" indexes (of its storage and its chunk relation) and purge job to match its options (internal)';

-- ots.expiry_forget: delete_table's cleanup, run before the storage goes
CREATE FUNCTION ots.expiry_forget(schema_name name, table_name name) RETURNS void
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
COMMENT ON FUNCTION ots.expiry_forget(name, name) IS
	'removes an ots table''s purge job, purge statistics and activity counters (internal)';

CREATE FUNCTION ots.unschedule_all() RETURNS integer
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	n integer := 0;
BEGIN
	IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_cron') THEN
		BEGIN
			EXECUTE 'SELECT count(cron.unschedule(j.jobid)) FROM cron.job j'
					' WHERE j.jobname OPERATOR(pg_catalog.~~) ''ots.purge %'''
					'   AND j.command OPERATOR(pg_catalog.~~) ''CALL ots.purge(%'''
					'   AND j.database OPERATOR(pg_catalog.=) current_database()'
			   INTO n;
		EXCEPTION WHEN insufficient_privilege THEN
			RAISE NOTICE 'could not remove the purge jobs of ots: %', SQLERRM;
		END;
	END IF;
	RETURN n;
END
$$;
COMMENT ON FUNCTION ots.unschedule_all() IS
	'removes every pg_cron purge job of ots in this database (those the caller may see); DROP EXTENSION ots runs it';

CREATE FUNCTION ots.drop_extension_trigger() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'ots_drop_extension_trigger' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.drop_extension_trigger() IS
	'event trigger: DROP EXTENSION ots first removes its pg_cron jobs (internal)';

-- ddl_command_start: the extension (and this trigger) still exist then
CREATE EVENT TRIGGER ots_drop_extension ON ddl_command_start
	WHEN TAG IN ('DROP EXTENSION')
	EXECUTE FUNCTION ots.drop_extension_trigger();

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

-- ---------------------------------------------------------------------
-- Purge
-- ---------------------------------------------------------------------

-- ots.purge_targets: the tables CALL ots.purge() (all tables) works on
CREATE FUNCTION ots.purge_targets() RETURNS TABLE (schema_name name, table_name name)
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT t.schema_name, t.table_name FROM ots.tables t
	 WHERE ots.expiry_needed(t.schema_name, t.table_name)
	   AND coalesce(ots.owns_table(t.schema_name, t.table_name), false)
	 ORDER BY t.schema_name COLLATE "C", t.table_name COLLATE "C"
$$;
COMMENT ON FUNCTION ots.purge_targets() IS
	'ots tables the current role owns that have data to purge (internal)';

-- ots.purge_leaves: an ots table's leaf partitions, qualified, in name order
CREATE FUNCTION ots.purge_leaves(schema_name name, table_name name) RETURNS SETOF text
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT format('%I.%I', n.nspname, c.relname)
	  FROM pg_inherits i
	  JOIN pg_class c ON c.oid = i.inhrelid
	  JOIN pg_namespace n ON n.oid = c.relnamespace
	 WHERE i.inhparent = to_regclass(format('%I.%I', $1, $2 || '$data'))
	 ORDER BY c.relname COLLATE "C"
$$;
COMMENT ON FUNCTION ots.purge_leaves(name, name) IS 'leaf partitions of an ots table (internal)';

-- ots.purge_relations: what the purge goes over, batch by batch: an ots
-- table's leaves (ots.purge_leaves), then its chunk relation, which holds
-- the chunks of its split rows (docs/design.md, "Wide rows: heads and
-- chunks"), when it is its storage's owner's (a relation of that name
-- another role made is none of the table's)
CREATE FUNCTION ots.purge_relations(schema_name name, table_name name) RETURNS SETOF text
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT l.leaf FROM ots.purge_leaves($1, $2) AS l(leaf)
	UNION ALL
	SELECT pg_catalog.format('%I.%I', $1, $2 OPERATOR(pg_catalog.||) '$chunk')
	  FROM pg_catalog.pg_class c, pg_catalog.pg_class d
	 WHERE c.oid OPERATOR(pg_catalog.=)
	       pg_catalog.to_regclass(pg_catalog.format('%I.%I', $1, $2 OPERATOR(pg_catalog.||) '$chunk'))
	   AND d.oid OPERATOR(pg_catalog.=)
	       pg_catalog.to_regclass(pg_catalog.format('%I.%I', $1, $2 OPERATOR(pg_catalog.||) '$data'))
	   AND c.relowner OPERATOR(pg_catalog.=) d.relowner
$$;
COMMENT ON FUNCTION ots.purge_relations(name, name) IS
	'the leaf partitions of an ots table, then its chunk relation: what the purge goes over (internal)';

-- ots.purge_lock takes the table's purge lock (owner only), an advisory
-- lock SQL's pg_advisory_* functions cannot take (src/expiry/purge.c)
CREATE FUNCTION ots.purge_lock(schema_name name, table_name name) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_purge_lock' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.purge_lock(name, name) IS
	'takes the purge lock of an ots table for the session (owner only): its key, or NULL when another session holds it (internal)';

-- ots.purge_unlock releases the purge lock, however many times this session took it
CREATE FUNCTION ots.purge_unlock(lock_key bigint) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_purge_unlock' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.purge_unlock(bigint) IS 'releases the purge lock of a table (internal)';

-- ots.purge_start: checks, lock, "now" and the passes a table's purge makes
CREATE FUNCTION ots.purge_start(schema_name name, table_name name, batch_size integer,
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

-- ots.purge_batch: one batch of one pass over one leaf, run as the table's
-- owner in a security-restricted operation (src/expiry/purge.c)
CREATE FUNCTION ots.purge_batch(leaf regclass, trimming boolean, now_ms bigint, time_to_live bigint,
								max_versions integer, batch_size integer, from_block bigint, to_block bigint,
								OUT candidates bigint, OUT rows_deleted bigint, OUT rows_rewritten bigint,
								OUT cells bigint)
	AS 'MODULE_PATHNAME', 'ots_purge_batch' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.purge_batch(regclass, boolean, bigint, bigint, integer, integer, bigint, bigint) IS
	'purges one batch of a leaf of an ots table as its owner (owner only; internal)';

-- ots.purge_step: one committed-sized batch of one pass over one leaf
CREATE FUNCTION ots.purge_step(schema_name name, table_name name, leaf text, trimming boolean,
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

-- ots.purge_finish: statistics, trimmed marker, job and lock at the end
CREATE FUNCTION ots.purge_finish(schema_name name, table_name name, lock_key bigint,
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
COMMENT ON FUNCTION ots.purge_finish(name, name, bigint, timestamptz, boolean, text) IS
	'ends the purge of an ots table: statistics, trim marker, self-removing job, lock (internal)';

CREATE PROCEDURE ots.purge_table(schema_name name, table_name name, batch_size integer)
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
		FOR leaf IN SELECT l.leaf FROM ots.purge_relations(schema_name, table_name) AS l(leaf) LOOP
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

CREATE PROCEDURE ots.purge(table_name text DEFAULT NULL, batch_size integer DEFAULT 1000)
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
COMMENT ON PROCEDURE ots.purge(text, integer) IS
	'removes expired and over-max cells and rows left empty, of one ots table or all the caller owns, in committed batches';
