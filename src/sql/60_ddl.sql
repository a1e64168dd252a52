-- Plain DDL on ots tables: event triggers keep an ots table's storage and
-- view in the shape ots made them, its chunk relation's access its
-- storage's, and ots's metadata in step with DROP.  All are extension
-- members, gone with DROP EXTENSION ots.

-- ots.storage_guard refuses DDL that ots's writes would bypass (triggers,
-- rules, columns, defaults, constraints) or that would lose an ots table
-- (renaming or moving its view or storage), keeps indexes in step with
-- rows that ATTACH, DETACH and DROP of a partition move, refuses
-- publications of what a subscriber's ots writes itself, and registers a
-- restored table from the comment a restore gives its storage: see
-- src/ddl/ddl_guard.c
CREATE FUNCTION ots.storage_guard() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'ots_storage_guard' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.storage_guard() IS
	'event trigger: refuses DDL on ots storage and views that ots''s writes would bypass (internal)';

-- a publication FOR ALL TABLES would publish ots's catalog and the storage
-- of secondary indexes, which each database's ots writes itself: the guard
-- refuses it once ots exists, and ots is not created under one
DO $$
BEGIN
	IF EXISTS (SELECT FROM pg_catalog.pg_publication p WHERE p.puballtables) THEN
		RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
			MESSAGE = 'cannot create extension ots in a database with a publication FOR ALL TABLES',
			DETAIL = 'It would publish ots''s catalog and the storage of secondary indexes, which each database''s ots writes itself.',
			HINT = 'Publish tables by name (FOR TABLE), then create ots; publish the storage of ots tables ("t$data") by name.';
	END IF;
END
$$;

CREATE EVENT TRIGGER ots_storage_guard ON ddl_command_start
	WHEN TAG IN ('ALTER TABLE', 'ALTER VIEW', 'ALTER FOREIGN TABLE', 'CREATE TABLE',
				 'CREATE FOREIGN TABLE', 'CREATE TRIGGER', 'CREATE RULE', 'ALTER SEQUENCE',
				 'CREATE SCHEMA', 'COMMENT', 'DROP TABLE', 'DROP SCHEMA',
				 'CREATE PUBLICATION', 'ALTER PUBLICATION', 'GRANT', 'REVOKE')
	EXECUTE FUNCTION ots.storage_guard();

-- ots.storage_access_follow: GRANT, REVOKE and ALTER TABLE ... ROW LEVEL
-- SECURITY on a table's storage end with its chunk relation given the
-- storage's privileges and row security: a split row's cells are readable
-- exactly where its head is (src/ddl/guard_access.c)
CREATE FUNCTION ots.storage_access_follow() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'ots_storage_access_follow' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.storage_access_follow() IS
	'event trigger: gives the chunk relations of the storages a statement changed their privileges and row security (internal)';
CREATE EVENT TRIGGER ots_storage_access ON ddl_command_end
	WHEN TAG IN ('GRANT', 'REVOKE', 'ALTER TABLE')
	EXECUTE FUNCTION ots.storage_access_follow();

-- ots.chunk_relation_follow: a chunk relation made beside an existing
-- storage takes its grants and row security (its owner's only;
-- ots.create_chunk_relation); ots.storage_access_follow keeps them so
-- (src/ddl/guard_access.c)
CREATE FUNCTION ots.chunk_relation_follow(chunk regclass) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_chunk_relation_follow' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.chunk_relation_follow(regclass) IS
	'gives an ots table''s chunk relation the privileges and row security of its storage (internal)';

-- ots.view_replacing / ots.view_replaced: the view ots.sync_table_view
-- drops and makes again in this transaction (its owner only), which
-- ots.forget_dropped_tables does not take for a dropped table
CREATE FUNCTION ots.view_replacing(view oid) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_view_replacing' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.view_replacing(oid) IS
	'marks a table view the caller owns as being made again in this transaction (internal)';
CREATE FUNCTION ots.view_replaced() RETURNS oid
	AS 'MODULE_PATHNAME', 'ots_view_replaced' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.view_replaced() IS
	'the table view being made again in this transaction, or 0 (internal)';

-- ots.relation_owner: the owner of a relation, or of the last relation of
-- that name this transaction dropped (src/ddl/dropped.c).  The relations ots
-- finds by name beside a table's storage (its view, sequence, chunk
-- relation, stream's log and records) are the table's only when they have
-- the storage's owner: the drop clean-up below acts on no other.
CREATE FUNCTION ots.relation_owner(schema_name name, relation_name name) RETURNS oid
	AS 'MODULE_PATHNAME', 'ots_relation_owner' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION ots.relation_owner(name, name) IS
	'the owner of a relation, or of the last one of that name this transaction dropped (internal; the drop clean-up)';

-- ots.forget_dropped_tables: the ots tables whose view or storage the
-- current DROP removed, and the indexes of those tables, after removing
-- their metadata, purge job, purge statistics and activity counters.  SECURITY DEFINER, as ots's catalog is
-- not the dropping role's to write; it acts only on what
-- pg_event_trigger_dropped_objects() reports, so it does nothing outside
-- an sql_drop event trigger (it raises an error there).  A dropped view
-- named as a table's is its view only with its storage's owner.
CREATE FUNCTION ots.forget_dropped_tables() RETURNS TABLE (schema_name name, table_name name)
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

-- ots.forget_dropped_streams: the ots tables one of whose stream's
-- relations ("$log", "$rec", with the storage's owner) the current DROP
-- removed: their stream is disabled (every session stops writing it) and
-- returned, so the rest of it goes too.  SECURITY DEFINER, and only in an
-- sql_drop event trigger, as ots.forget_dropped_tables.
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

-- ots.storage_dropped: a DROP of an ots table's view or storage drops the
-- ots table and its indexes: their bookkeeping is forgotten, and what the
-- DROP left of them (the storage when only the view went, the chunk
-- relation, the AUTO_INCREMENT sequence, an index's view and storage, the
-- stream; each with the storage's owner, ots.relation_owner) is dropped
-- with the rights of the role that dropped the rest.  A DROP of a stream's log or records
-- disables the stream.
-- ots.delete_table forgets the table first, so this finds nothing to do.
CREATE FUNCTION ots.storage_dropped() RETURNS event_trigger
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
	owner oid;
BEGIN
	-- a table's search indexes go with it, and one whose storage went is forgotten (70_search.sql)
	FOR t IN SELECT f.schema_name, f.storage_name, f.owner FROM ots.forget_dropped_search_indexes() f LOOP
		IF to_regclass(format('%I.%I', t.schema_name, t.storage_name)) IS NOT NULL
		   AND ots.relation_owner(t.schema_name, t.storage_name) = t.owner THEN
			EXECUTE format('DROP TABLE %I.%I', t.schema_name, t.storage_name);
		END IF;
	END LOOP;
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
		PERFORM ots.drop_chunk_relation(t.schema_name, t.table_name);
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

CREATE EVENT TRIGGER ots_storage_dropped ON sql_drop
	EXECUTE FUNCTION ots.storage_dropped();
