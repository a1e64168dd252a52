-- ots 0.1.0 -> 0.2.0: security and data safety (issue 12).
-- Every change here is also made in src/sql/ (what a fresh 0.2.0 install
-- runs); test/upgrade/run.sh shows the two arrive at the same objects.
\echo Use "ALTER EXTENSION ots UPDATE TO '0.2.0'" to load this file. \quit

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
	SELECT t.time_to_live, t.max_versions INTO o FROM ots.tables t
	 WHERE t.schema_name = purge_step.schema_name AND t.table_name = purge_step.table_name
	   FOR SHARE;
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
