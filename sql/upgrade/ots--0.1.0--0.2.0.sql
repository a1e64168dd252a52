-- ots 0.1.0 -> 0.2.0: security and data safety (issue 12).
-- Every change here is also made in src/sql/ (what a fresh 0.2.0 install
-- runs); test/upgrade/run.sh shows the two arrive at the same objects.
\echo Use "ALTER EXTENSION ots UPDATE TO '0.2.0'" to load this file. \quit

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
BEGIN
	-- ots.resolve_name is STRICT: a NULL table name arrives as NULLs
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	RETURN (SELECT jsonb_build_object(
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
END
$$;

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
	-- metadata before the DROPs, so the sql_drop event trigger (60_ddl.sql) has nothing to do
	DELETE FROM ots.tables t
	 WHERE t.schema_name = delete_table_internal.schema_name
	   AND t.table_name = delete_table_internal.table_name;
	EXECUTE format('DROP VIEW %I.%I', schema_name, table_name);
	EXECUTE format('DROP TABLE %I.%I', schema_name, table_name || '$data');
	IF to_regclass(format('%I.%I', schema_name, table_name || '$seq')) IS NOT NULL THEN
		EXECUTE format('DROP SEQUENCE %I.%I', schema_name, table_name || '$seq');
	END IF;
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
		DELETE FROM ots.purge_stats p
		 WHERE p.schema_name = t.schema_name AND p.table_name = t.table_name;
		PERFORM ots.stats_forget(coalesce(t.storage::regclass,
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
