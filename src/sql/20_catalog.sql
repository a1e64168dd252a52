-- ots.tables: one row per ots table.  Names, never OIDs.  It is no part of
-- a dump: each row is carried by the comment of its table's storage
-- (src/ddl/catalog_write.c), which pg_dump writes with the storage in every form
-- (whole, --schema-only, -t), and which registers the table again as a
-- restore writes it (src/ddl/ddl_guard.c).  A role restoring its own tables
-- needs no right on ots.tables, nor reads its row-level security.
CREATE TABLE ots.tables (
	schema_name name NOT NULL,
	table_name name NOT NULL,
	pk_names text[] NOT NULL,
	pk_types text[] NOT NULL,
	auto_increment smallint,
	max_versions integer NOT NULL,
	time_to_live bigint NOT NULL,
	max_version_offset bigint NOT NULL,
	allow_update boolean NOT NULL,
	partitions integer NOT NULL,
	hash_prefix_length integer NOT NULL,
	created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	-- expiry (50_expiry.sql): when above max_versions, stored columns may
	-- still hold up to this many cells (max_versions was lowered) and
	-- ots.purge owes the table one full trimming pass; NULL = trimmed
	trimmed_max_versions integer,
	-- predefined (defined) columns in the order they were defined (tables
	-- made before 0.3.0: bytewise by name), their types
	defined_names text[] NOT NULL DEFAULT '{}',
	defined_types text[] NOT NULL DEFAULT '{}',
	-- a secondary index (35_indexes.sql): the table it indexes, GLOBAL or
	-- LOCAL, how many of pk_names it was given (the base key's others
	-- follow), and FULL while its backfill runs, INCR once complete,
	-- INCR_ONLY when made without the rows before it (include_base_data)
	index_of name,
	index_type text,
	index_key_count smallint,
	index_phase text,
	-- Stream (45_stream.sql): its id while enabled (NULL: none), how many
	-- hours it keeps records, when it was enabled
	stream_id text,
	stream_expiration_hours integer,
	stream_enabled_at timestamptz,
	-- Tablestore's update_full_row (0.3.0): an update writes every column of
	-- the row at its version (src/api/row_update.c); fixed at create_table
	update_full_row boolean NOT NULL DEFAULT false,
	-- Stream's original columns (0.3.0, Tablestore's OriginColumnsToGet): the
	-- columns whose values before a change its record carries (stream_record.c);
	-- NULL: none
	stream_original_columns text[],
	PRIMARY KEY (schema_name, table_name)
);
COMMENT ON TABLE ots.tables IS 'metadata of every ots table (see ots.describe_table)';

-- ots.owns_table: may the current role manage this ots table's metadata?
CREATE FUNCTION ots.owns_table(schema_name name, table_name name) RETURNS boolean
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT coalesce(pg_catalog.pg_has_role(c.relowner, 'USAGE'), false)
	  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
	 WHERE n.nspname OPERATOR(pg_catalog.=) $1
	   AND c.relname OPERATOR(pg_catalog.=) ($2 OPERATOR(pg_catalog.||) '$data')
$$;
COMMENT ON FUNCTION ots.owns_table(name, name) IS 'whether the current role owns (or is a member of the owner of) an ots table';

CREATE FUNCTION ots.table_visible(schema_name name, table_name name) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_table_visible' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.table_visible(name, name) IS
	'whether the current role may see an ots table: its owner, or USAGE on its schema and a privilege on its view or storage';

-- ots.table_problem: why a registered table does not load (not whole, as a
-- restore that stopped half way leaves it, or damaged), NULL when it does;
-- the calls that act on every table a role owns go on past such a table
CREATE FUNCTION ots.table_problem(schema_name name, table_name name) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_table_problem' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.table_problem(name, name) IS
	'why a registered ots table does not load (not whole, or damaged), NULL when it does (internal)';

-- each role reads the rows of the tables it may see; only the functions
-- below write, as the owner of ots.tables (src/ddl/catalog_write.c)
ALTER TABLE ots.tables ENABLE ROW LEVEL SECURITY;
-- an index is visible with its table
CREATE POLICY tables_read ON ots.tables FOR SELECT
	USING (ots.table_visible(schema_name, coalesce(index_of, table_name)));
GRANT SELECT ON ots.tables TO PUBLIC;

CREATE FUNCTION ots.catalog_insert(schema_name name, table_name name, pk_names text[], pk_types text[],
								   auto_increment smallint, max_versions integer, time_to_live bigint,
								   max_version_offset bigint, allow_update boolean, partitions integer,
								   hash_prefix_length integer, update_full_row boolean) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_insert' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_insert(name, name, text[], text[], smallint, integer, bigint, bigint, boolean, integer, integer, boolean) IS
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
CREATE FUNCTION ots.catalog_set_stream(schema_name name, table_name name, stream_id text,
										stream_expiration_hours integer,
										stream_original_columns text[]) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_set_stream' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_set_stream(name, name, text, integer, text[]) IS
	'sets the stream of an ots table the caller owns, whose relations ots.stream_sync made (NULLs: none) (internal)';

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
CREATE FUNCTION ots.catalog_lock_options(schema_name name, table_name name)
	RETURNS TABLE (time_to_live bigint, max_versions integer)
	AS 'MODULE_PATHNAME', 'ots_catalog_lock_options' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE ROWS 1;
COMMENT ON FUNCTION ots.catalog_lock_options(name, name) IS
	'the TTL and max_versions of an ots table the caller owns, its metadata locked FOR SHARE; no row when gone (internal; purge)';
CREATE FUNCTION ots.catalog_clear_trimmed(schema_name name, table_name name, options_xmin text) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_clear_trimmed' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_clear_trimmed(name, name, text) IS
	'clears trimmed_max_versions of an ots table the caller owns unless its metadata changed since options_xmin (internal; purge)';

CREATE FUNCTION ots.catalog_carry(schema_name name, table_name name) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_carry' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_carry(name, name) IS
	'makes the comment of an ots table''s storage carry its definition as ots.tables has it, for a restore (internal; the drop clean-up)';
REVOKE EXECUTE ON FUNCTION ots.catalog_carry(name, name) FROM PUBLIC;

CREATE FUNCTION ots.invalidate_table(storage regclass) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_invalidate_table' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.invalidate_table(regclass) IS 'makes every session reload an ots table''s metadata; its owner only (internal)';

CREATE FUNCTION ots.error_code(sqlstate text) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_error_code' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.error_code(text) IS 'the Tablestore error code (OTSParameterInvalid, ...) of an ots SQLSTATE';
