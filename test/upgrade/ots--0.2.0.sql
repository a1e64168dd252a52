-- ots install script, assembled from src/sql/*.sql in name order (see Makefile).
\echo Use "CREATE EXTENSION ots" to load this file. \quit

CREATE SCHEMA ots;
COMMENT ON SCHEMA ots IS 'Tablestore (OTS) wide-column tables: API, metadata and types';
GRANT USAGE ON SCHEMA ots TO PUBLIC;

-- ots needs shared_preload_libraries = 'ots' (src/preload.c): without it,
-- CREATE EXTENSION ots (and ALTER EXTENSION ots UPDATE) stops here
CREATE FUNCTION ots.require_preload() RETURNS void
	AS 'MODULE_PATHNAME', 'ots_require_preload' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION ots.require_preload() IS
	'raises an error unless ots was loaded by shared_preload_libraries, which it needs (CREATE EXTENSION and ALTER EXTENSION UPDATE call it first)';
SELECT ots.require_preload();
-- ots.cells: all attribute cells of one row (src/cells.h has the format).
CREATE TYPE ots.cells;

CREATE FUNCTION ots.cells_in(cstring) RETURNS ots.cells
	AS 'MODULE_PATHNAME', 'ots_cells_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ots.cells_out(ots.cells) RETURNS cstring
	AS 'MODULE_PATHNAME', 'ots_cells_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ots.cells_recv(internal) RETURNS ots.cells
	AS 'MODULE_PATHNAME', 'ots_cells_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ots.cells_send(ots.cells) RETURNS bytea
	AS 'MODULE_PATHNAME', 'ots_cells_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- read with memcpy; short values are stored unaligned with 1-byte headers
CREATE TYPE ots.cells (
	INPUT = ots.cells_in,
	OUTPUT = ots.cells_out,
	RECEIVE = ots.cells_recv,
	SEND = ots.cells_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
);
COMMENT ON TYPE ots.cells IS 'all attribute cells of one ots row: columns by name, versions newest first';

-- what every row function returns
CREATE TYPE ots.row_result AS (
	primary_key jsonb,
	attributes jsonb,
	consumed jsonb
);
COMMENT ON TYPE ots.row_result IS 'result of an ots row call: the row (or NULLs), and capacity units consumed';
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
-- ots.tables: one row per ots table.  Names, never OIDs.  It is no part of
-- a dump: each row is carried by the comment of its table's storage
-- (src/catalog_write.c), which pg_dump writes with the storage in every form
-- (whole, --schema-only, -t), and which registers the table again as a
-- restore writes it (src/ddl_guard.c).  A role restoring its own tables
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
	-- predefined (defined) columns: names in bytewise order, their types
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
-- below write, as the owner of ots.tables (src/catalog_write.c)
ALTER TABLE ots.tables ENABLE ROW LEVEL SECURITY;
-- an index is visible with its table
CREATE POLICY tables_read ON ots.tables FOR SELECT
	USING (ots.table_visible(schema_name, coalesce(index_of, table_name)));
GRANT SELECT ON ots.tables TO PUBLIC;

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
										stream_expiration_hours integer) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_set_stream' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_set_stream(name, name, text, integer) IS
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
-- Table operations: create, update, describe, list and delete ots tables.
--
-- Each public function is a SQL-standard body (parsed once, at install, so
-- nothing in it can be redirected by a caller's search_path) that resolves
-- the table name in the caller's search_path through ots.resolve_name and
-- hands the rest to an internal PL/pgSQL function with a pinned path.

CREATE FUNCTION ots.resolve_name(table_name text, for_create boolean,
								 OUT schema_name name, OUT table_name name)
	AS 'MODULE_PATHNAME', 'ots_resolve_name' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.resolve_name(text, boolean) IS
	'the schema and name an ots table-name argument means in the current search_path';

-- ots.raise: raises an OTS error (Tablestore's code and message) from SQL
CREATE FUNCTION ots.raise(ots_code text, message text, detail text DEFAULT NULL) RETURNS void
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	state text := CASE ots_code
		WHEN 'OTSParameterInvalid' THEN 'OT001'
		WHEN 'OTSInvalidPK' THEN 'OT002'
		WHEN 'OTSConditionCheckFail' THEN 'OT003'
		WHEN 'OTSObjectNotExist' THEN 'OT004'
		WHEN 'OTSObjectAlreadyExist' THEN 'OT005'
		WHEN 'OTSQuotaExhausted' THEN 'OT007'
		END;
BEGIN
	IF state IS NULL THEN
		RAISE EXCEPTION 'unknown OTS error code %', ots_code;
	END IF;
	IF detail IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = state, MESSAGE = message;
	END IF;
	RAISE EXCEPTION USING ERRCODE = state, MESSAGE = message, DETAIL = detail;
END
$$;
COMMENT ON FUNCTION ots.raise(text, text, text) IS 'raises an OTS error with its SQLSTATE (internal)';

-- ots.limit: a limit of src/ots_limits.h, which SQL never spells itself
CREATE FUNCTION ots.limit(name text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_limit' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.limit(text) IS
	'the value of the ots limit OTS_<NAME> (e.g. ''max_pk_columns'') of src/ots_limits.h (internal)';

-- ots.check_column_name: Tablestore's rule for column names, as C applies it
CREATE FUNCTION ots.check_column_name(name text) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_check_column_name' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.check_column_name(text) IS
	'raises OTSParameterInvalid unless name is a valid column name (internal)';

-- ots.check_table_options: Tablestore's rules for table options (NULL = not given)
CREATE FUNCTION ots.check_table_options(max_versions integer, time_to_live bigint,
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

-- ots.value_type_named: the Tablestore type a type word of create_table's
-- primary_key or defined_columns argument names (Tablestore's, or
-- PostgreSQL's for it), NULL for none
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

-- ots.create_table_parse_pk: create_table's primary_key argument as column
-- names, Tablestore types and the AUTO_INCREMENT column (its position, NULL
-- for none), with Tablestore's checks and messages
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

-- ots.parse_defined_columns: a defined_columns argument ('name type, ...')
-- as names and Tablestore types, with Tablestore's checks; pk_names is the
-- table's key, existing its defined columns so far
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

-- ots.sort_defined_columns: defined columns in the order ots.tables keeps them (bytewise by name)
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

-- ots.create_table_check_options: create_table's options, none of them NULL,
-- by Tablestore's rules (ots.check_table_options) and ots's own
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

-- ots.create_table_storage: an ots table's storage table "<table>$data",
-- partitioned by the partition key's hash (or by equal ranges of "$hash"
-- with a hash prefix), its leaves "<table>$p<i>" and the AUTO_INCREMENT
-- sequence "<table>$seq"
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

-- ots.view_write: the INSTEAD OF trigger of every table view; INSERT,
-- UPDATE, DELETE and COPY on the view are the row API's writes (src/view_write.c)
CREATE FUNCTION ots.view_write() RETURNS trigger
	AS 'MODULE_PATHNAME', 'ots_view_write' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.view_write() IS
	'INSERT, UPDATE and DELETE on an ots table''s view as put, update and delete of rows (internal)';

-- ots.view_write_rejected: 0.1.0's name of the view trigger, which a dump
-- of a 0.1.0 database gives each view: the same function, so such a view,
-- restored, takes writes as every view does
CREATE FUNCTION ots.view_write_rejected() RETURNS trigger
	AS 'MODULE_PATHNAME', 'ots_view_write' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.view_write_rejected() IS
	'ots.view_write under its 0.1.0 name, for views restored from a 0.1.0 dump (internal)';

-- ots.view_column_function: the function a view column of a defined
-- column of this Tablestore type reads its cell with
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

-- ots.sync_table_view: makes the view of an ots table (or index) show its
-- live rows: the primary key columns, the latest attributes as jsonb
-- ("$attributes" when a key or defined column is called attributes), then
-- one typed column per defined column.  A view that exists keeps its
-- columns in their order, new ones added at the end, so what depends on
-- it still works; a removed column means the view is made again, refused
-- while other objects depend on it (naming them), with its owner, grants
-- and comments.  An index's view (is_index) answers only once the index is
-- complete.
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

CREATE FUNCTION ots.describe_table_internal(schema_name name, table_name name) RETURNS jsonb
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

CREATE FUNCTION ots.describe_table(table_name text) RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT ots.describe_table_internal(r.schema_name, r.table_name)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.describe_table(text) IS
	'primary-key schema, options, partitions and creation time of an ots table';

CREATE FUNCTION ots.list_table() RETURNS TABLE (schema_name name, table_name name)
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT t.schema_name, t.table_name FROM ots.tables t
	 ORDER BY t.schema_name COLLATE "C", t.table_name COLLATE "C"
$$;
COMMENT ON FUNCTION ots.list_table() IS 'every ots table of the database the caller may see (ots.table_visible)';

CREATE FUNCTION ots.delete_table_internal(schema_name name, table_name name) RETURNS void
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

CREATE FUNCTION ots.delete_table(table_name text) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.delete_table_internal(r.schema_name, r.table_name)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.delete_table(text) IS 'drops an ots table: its storage, view and metadata';

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

CREATE FUNCTION ots.hash_prefix(value text, n integer) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_hash_prefix_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ots.hash_prefix(value bigint, n integer) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_hash_prefix_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ots.hash_prefix(value bytea, n integer) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_hash_prefix_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.hash_prefix(text, integer) IS 'first n hex digits of the MD5 of a String partition key';
COMMENT ON FUNCTION ots.hash_prefix(bigint, integer) IS 'first n hex digits of the MD5 of an Integer partition key''s decimal text';
COMMENT ON FUNCTION ots.hash_prefix(bytea, integer) IS 'first n hex digits of the MD5 of a Binary partition key';
-- Defined columns and secondary indexes (Tablestore's CreateIndex /
-- DropIndex, AddDefinedColumn / DeleteDefinedColumn).
--
-- An index is an ots table of its own name (its row in ots.tables names
-- the table it indexes in index_of), keyed by the columns it was given
-- and then the base key's others, holding the covered defined columns.
-- Every write of the base table keeps it exact in the writing transaction
-- (src/index_write.c, from the write point); the row functions refuse to
-- write it and read it with the base table's rights; create_index on a
-- table with rows fills it in the background (src/index_build.c).

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
-- Single-row API.  Every function returns ots.row_result: the row's primary
-- key and attributes (NULL when there is no row or nothing is returned) and
-- the capacity units consumed, {"read": r, "write": w}.

CREATE FUNCTION ots.put_row(
	table_name text,
	primary_key jsonb,
	attributes jsonb DEFAULT '{}',
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE') RETURNS ots.row_result
	AS 'MODULE_PATHNAME', 'ots_put_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.put_row(text, jsonb, jsonb, text, jsonb, text) IS
	'writes a row, replacing all its cells (Tablestore PutRow)';

CREATE FUNCTION ots.get_row(
	table_name text,
	primary_key jsonb,
	columns_to_get text[] DEFAULT NULL,
	max_versions integer DEFAULT NULL,
	time_range jsonb DEFAULT NULL,
	filter jsonb DEFAULT NULL,
	with_timestamps boolean DEFAULT false,
	start_column text DEFAULT NULL,
	end_column text DEFAULT NULL) RETURNS ots.row_result
	AS 'MODULE_PATHNAME', 'ots_get_row' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION ots.get_row(text, jsonb, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'reads one row: the latest values, or versions with max_versions / time_range (Tablestore GetRow)';

CREATE FUNCTION ots.update_row(
	table_name text,
	primary_key jsonb,
	put jsonb DEFAULT NULL,
	"delete" jsonb DEFAULT NULL,
	delete_all text[] DEFAULT NULL,
	increment jsonb DEFAULT NULL,
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE',
	return_columns text[] DEFAULT NULL) RETURNS ots.row_result
	AS 'MODULE_PATHNAME', 'ots_update_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.update_row(text, jsonb, jsonb, jsonb, text[], jsonb, text, jsonb, text, text[]) IS
	'changes cells of a row: put, delete one version, delete all versions, increment (Tablestore UpdateRow)';

CREATE FUNCTION ots.delete_row(
	table_name text,
	primary_key jsonb,
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE') RETURNS ots.row_result
	AS 'MODULE_PATHNAME', 'ots_delete_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.delete_row(text, jsonb, text, jsonb, text) IS
	'deletes a row and all its cells (Tablestore DeleteRow)';

-- per-row functions of each table's view
CREATE FUNCTION ots.row_attributes(cells ots.cells, storage regclass) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'ots_row_attributes' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_attributes(ots.cells, regclass) IS
	'latest visible value of every attribute column of a stored row (used by table views)';
CREATE FUNCTION ots.row_attribute_text(cells ots.cells, storage regclass, name text) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_row_attribute_text' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_attribute_text(ots.cells, regclass, text) IS
	'ots.row_attributes(cells, storage) ->> name, rendering that column only (what a view''s attributes ->> name is planned as)';
CREATE FUNCTION ots.row_attribute(cells ots.cells, storage regclass, name text) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'ots_row_attribute' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_attribute(ots.cells, regclass, text) IS
	'ots.row_attributes(cells, storage) -> name, rendering that column only (what a view''s attributes -> name is planned as)';
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
CREATE FUNCTION ots.row_exists_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'ots_row_exists_support' LANGUAGE C STRICT;
COMMENT ON FUNCTION ots.row_exists_support(internal) IS
	'planner support of ots.row_exists: a stored row is estimated to exist';
CREATE FUNCTION ots.row_exists(cells ots.cells, storage regclass) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_row_exists' LANGUAGE C STABLE STRICT PARALLEL SAFE
	SUPPORT ots.row_exists_support;
COMMENT ON FUNCTION ots.row_exists(ots.cells, regclass) IS
	'whether a stored row is visible under its table''s TTL (used by table views)';
CREATE FUNCTION ots.index_readable(storage regclass) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_index_readable' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.index_readable(regclass) IS
	'true unless storage is an index''s that does not answer reads yet (being built, or completed after the statement''s snapshot), which raises get_row''s error: the gate of an index''s view (internal)';

-- Range reads
CREATE TYPE ots.range_result AS (
	rows jsonb,
	next_start_primary_key jsonb,
	consumed jsonb
);
COMMENT ON TYPE ots.range_result IS
	'one get_range page: rows [{primary_key, attributes}], the key to continue from (NULL when done), capacity units';

CREATE FUNCTION ots.get_range(
	table_name text,
	inclusive_start_primary_key jsonb,
	exclusive_end_primary_key jsonb,
	direction text DEFAULT 'FORWARD',
	"limit" integer DEFAULT NULL,
	columns_to_get text[] DEFAULT NULL,
	max_versions integer DEFAULT NULL,
	time_range jsonb DEFAULT NULL,
	filter jsonb DEFAULT NULL,
	with_timestamps boolean DEFAULT false,
	start_column text DEFAULT NULL,
	end_column text DEFAULT NULL) RETURNS ots.range_result
	AS 'MODULE_PATHNAME', 'ots_get_range' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION ots.get_range(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'one page of a primary-key range: at most 5000 rows and 4 MB, with next_start_primary_key (Tablestore GetRange)';

CREATE FUNCTION ots.get_range_rows(
	table_name text,
	inclusive_start_primary_key jsonb,
	exclusive_end_primary_key jsonb,
	direction text DEFAULT 'FORWARD',
	"limit" integer DEFAULT NULL,
	columns_to_get text[] DEFAULT NULL,
	max_versions integer DEFAULT NULL,
	time_range jsonb DEFAULT NULL,
	filter jsonb DEFAULT NULL,
	with_timestamps boolean DEFAULT false,
	start_column text DEFAULT NULL,
	end_column text DEFAULT NULL) RETURNS TABLE (primary_key jsonb, attributes jsonb)
	AS 'MODULE_PATHNAME', 'ots_get_range_rows' LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION ots.get_range_rows(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'every row of a primary-key range as a set, streamed in constant memory';

-- Batches: one result row per requested row, in request order.  batch_get_row
-- catches each row's error in a subtransaction, which parallel mode forbids
-- (even in the leader), hence PARALLEL UNSAFE.
CREATE FUNCTION ots.batch_get_row(request jsonb)
	RETURNS TABLE (table_name text, "index" integer, is_ok boolean, error_code text,
				   error_message text, primary_key jsonb, attributes jsonb, consumed jsonb)
	AS 'MODULE_PATHNAME', 'ots_batch_get_row' LANGUAGE C STABLE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.batch_get_row(jsonb) IS
	'reads up to 100 rows of several tables: [{"table_name", "primary_keys": [...], read options}] (Tablestore BatchGetRow)';

CREATE FUNCTION ots.batch_write_row(request jsonb, is_atomic boolean DEFAULT false)
	RETURNS TABLE (table_name text, "index" integer, is_ok boolean, error_code text,
				   error_message text, primary_key jsonb, attributes jsonb, consumed jsonb)
	AS 'MODULE_PATHNAME', 'ots_batch_write_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.batch_write_row(jsonb, boolean) IS
	'writes up to 200 rows of several tables: [{"table_name", "rows": [{"type": "PUT"|"UPDATE"|"DELETE", ...}]}] (Tablestore BatchWriteRow)';
-- ---------------------------------------------------------------------
-- Stream: Tablestore's change data capture (src/stream*.c)
-- ---------------------------------------------------------------------
-- A table's stream is enabled by create_table / update_table
-- (stream_enabled, stream_expiration_hours).  Its records are made at the
-- write point in the writing transaction; each committing transaction gets
-- its place in each shard (a partition) it wrote, an entry of "<table>$log"
-- holding its records ("<table>$rec" takes those of large transactions;
-- src/stream_storage.h).  Consumers read them with
-- list_stream, describe_stream, get_shard_iterator and get_stream_record,
-- as Tablestore's SDKs do; ots.purge removes expired records.

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

-- ots.stream_drop_storage: a stream's relations, if there are any (with
-- the owner of the table's storage, which may be gone already: the owner it
-- had, ots.relation_owner)
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
-- Expiry: physical removal of what reads no longer see (expired cells,
-- cells beyond max_versions, rows left with nothing visible) and the
-- pg_cron jobs that run it.
--
-- Reads hide expired and over-max cells at once (read_select.c); this file
-- removes them later, in small committed batches:
--  * TTL pass: rows whose "$oldest_ts" (oldest cell, or row marker when the
--    row has no cells) is at or before now - time_to_live are found through
--    the index "<table>$ttl" on "$oldest_ts", which exists exactly while the
--    table has a TTL; the cost follows the rows purged, not the table size.
--  * trim pass: only after max_versions was lowered (writes trim on their
--    own), one walk over every leaf by block ranges; ots.tables records the
--    pending bound in trimmed_max_versions.
-- Each batch is one statement per leaf (ots.purge_batch, src/purge.c) that
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
-- Per-row primitives (src/purge.c)
-- ---------------------------------------------------------------------

CREATE FUNCTION ots.purge_row(cells ots.cells, time_to_live bigint, max_versions integer, now_ms bigint,
							  OUT purged ots.cells, OUT oldest_ts bigint)
	AS 'MODULE_PATHNAME', 'ots_purge_row' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.purge_row(ots.cells, bigint, integer, bigint) IS
	'what the purge stores for a row: the cells reads see under these options at now_ms (row marker kept) and their "$oldest_ts", as the cells builder reports it (NULLs when the row no longer exists)';

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
	-- an index's entries go with its base table's rows (src/index_write.c): it is never purged itself
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

-- ots.expiry_sync: make the index and the job match the table's options
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

-- ots.purge_lock takes the table's purge lock (owner only), an advisory
-- lock SQL's pg_advisory_* functions cannot take (src/purge.c)
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
-- owner in a security-restricted operation (src/purge.c)
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
-- Statistics: the ots.stats view, per ots table: estimated live rows, the
-- row API's activity counters (src/stats.c, shared memory, reset by a
-- restart) and what ots.purge removed (ots.purge_stats, 50_expiry.sql).

CREATE FUNCTION ots.stats_counters(storage regclass, OUT rows_read bigint, OUT rows_written bigint,
								   OUT read_cu bigint, OUT write_cu bigint)
	AS 'MODULE_PATHNAME', 'ots_stats_counters' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.stats_counters(regclass) IS
	'row API activity of an ots table since server start; NULLs unless ots is in shared_preload_libraries';

CREATE FUNCTION ots.stats_forget(storage regclass) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_stats_forget' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.stats_forget(regclass) IS
	'drops the activity counters of an ots table''s storage (internal)';

-- ots.stats_forget_table: what ots.stats counts for one table goes (storage
-- NULL: its activity counters went with it)
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

-- ots.stats_reset_internal: one resolved table, or (NULLs) all the caller owns
CREATE FUNCTION ots.stats_reset_internal(schema_name name, table_name name) RETURNS void
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
COMMENT ON FUNCTION ots.stats_reset_internal(name, name) IS
	'zeroes the ots.stats counters of a resolved ots table, or of all the caller owns (internal)';

CREATE FUNCTION ots.stats_reset(table_name text DEFAULT NULL) RETURNS void
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
COMMENT ON FUNCTION ots.stats_reset(text) IS
	'zeroes the ots.stats counters (activity and purge) of one ots table, or of all the caller owns';

-- rows as the reader may see them (ots.table_visible, through RLS)
CREATE VIEW ots.stats WITH (security_invoker) AS
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
COMMENT ON VIEW ots.stats IS
	'per ots table: estimated live rows (ANALYZE), row API activity since server start (NULL unless ots is preloaded), purge results';
GRANT SELECT ON ots.stats TO PUBLIC;
-- Plain DDL on ots tables: two event triggers keep an ots table's storage
-- and view in the shape ots made them, and ots's metadata in step with
-- DROP.  Both are extension members, gone with DROP EXTENSION ots.

-- ots.storage_guard refuses DDL that ots's writes would bypass (triggers,
-- rules, columns, defaults, constraints) or that would lose an ots table
-- (renaming or moving its view or storage), keeps indexes in step with
-- rows that ATTACH, DETACH and DROP of a partition move, refuses
-- publications of what a subscriber's ots writes itself, and registers a
-- restored table from the comment a restore gives its storage: see
-- src/ddl_guard.c
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
				 'CREATE PUBLICATION', 'ALTER PUBLICATION')
	EXECUTE FUNCTION ots.storage_guard();

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
-- that name this transaction dropped (src/dropped.c).  The relations ots
-- finds by name beside a table's storage (its view, sequence, stream's log
-- and records) are the table's only when they have the storage's owner:
-- the drop clean-up below acts on no other.
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
-- DROP left of them (the storage when only the view went, the
-- AUTO_INCREMENT sequence, an index's view and storage, the stream; each
-- with the storage's owner, ots.relation_owner) is dropped with the rights
-- of the role that dropped the rest.  A DROP of a stream's log or records
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

CREATE EVENT TRIGGER ots_storage_dropped ON sql_drop
	EXECUTE FUNCTION ots.storage_dropped();
-- Checking ots storage: ots.verify and its parts (src/verify.c).
--
-- ots.verify checks each ots table the caller owns (or the one it names):
-- with amcheck, the heap pages of every leaf of its storage, of its
-- indexes' storage and of its stream's relations, TOAST included
-- (verify_heapam, each ots leaf presented to it as heap), and their btree
-- indexes (bt_index_check with heapallindexed); then what only ots can
-- check: every stored row as the write point's guard checks a new one,
-- every secondary index against its entries recomputed from the table
-- (missing, stale and wrong entries), every stream's log and records.
-- One row per problem, nothing when all is well.  Only a table's owner
-- (a member of its role, or a superuser) may check it, as only it may
-- purge it; amcheck's functions run as the caller, who needs EXECUTE on
-- them.

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

-- ots.verify_tables: ots.verify of a resolved table, or of every table the
-- caller owns (NULLs), where one that does not load is a problem of its own
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
