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

-- ots.storage_key_columns: the stored key columns of an ots table (or
-- index) as its storage and chunk relation have them, for CREATE TABLE
-- ("$hash" first when hash-prefixed; String text COLLATE "C", Integer int8,
-- Binary bytea; all NOT NULL, each followed by a comma), and their names
-- as a list (src/meta/storage.h)
CREATE FUNCTION ots.storage_key_columns(pk_names text[], pk_types text[], hash_prefix_length integer,
										OUT columns text, OUT key_columns text)
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT CASE WHEN hash_prefix_length > 0 THEN '"$hash" pg_catalog.int8 NOT NULL, ' ELSE '' END
		   || string_agg(format('%I %s NOT NULL, ', k.name,
								CASE k.type WHEN 'STRING' THEN 'pg_catalog.text COLLATE "C"'
											WHEN 'INTEGER' THEN 'pg_catalog.int8' ELSE 'pg_catalog.bytea' END),
						 '' ORDER BY k.i),
		   CASE WHEN hash_prefix_length > 0 THEN '"$hash", ' ELSE '' END
		   || string_agg(format('%I', k.name), ', ' ORDER BY k.i)
	  FROM unnest(pk_names, pk_types) WITH ORDINALITY AS k(name, type, i)
$$;
COMMENT ON FUNCTION ots.storage_key_columns(text[], text[], integer) IS
	'the stored key columns of an ots table''s storage and chunk relation, as CREATE TABLE columns and as a list (internal)';

-- ots.create_table_storage: an ots table's storage table "<table>$data",
-- partitioned by the partition key's hash (or by equal ranges of "$hash"
-- with a hash prefix), its leaves "<table>$p<i>", its chunk relation
-- "<table>$chunk" and the AUTO_INCREMENT sequence "<table>$seq"
CREATE FUNCTION ots.create_table_storage(schema_name name, table_name name, pk_names text[],
										 pk_types text[], auto_col smallint, partitions integer,
										 hash_prefix_length integer) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	storage text := format('%I.%I', schema_name, table_name || '$data');
	k record;
	key_space bigint := CASE WHEN hash_prefix_length > 0 THEN 16::bigint ^ hash_prefix_length END;
BEGIN
	SELECT * INTO k FROM ots.storage_key_columns(pk_names, pk_types, hash_prefix_length) c;
	-- lz4: a read of the latest versions decompresses the whole (large) row, several times faster than pglz
	BEGIN
		EXECUTE format('CREATE TABLE %s (%s"$cells" ots.cells COMPRESSION lz4 NOT NULL, "$oldest_ts" pg_catalog.int8 NOT NULL,'
					   ' PRIMARY KEY (%s)) PARTITION BY %s',
					   storage, k.columns, k.key_columns,
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
	PERFORM ots.create_chunk_relation(schema_name, table_name, pk_names, pk_types, hash_prefix_length);
	IF auto_col IS NOT NULL THEN
		EXECUTE format('CREATE SEQUENCE %I.%I', schema_name, table_name || '$seq');
	END IF;
	-- the storage's comment is written with the table's row of ots.tables (src/ddl/catalog_write.c)
END
$$;
COMMENT ON FUNCTION ots.create_table_storage(name, name, text[], text[], smallint, integer, integer) IS
	'creates the storage, leaf partitions, chunk relation and sequence of a new ots table (internal)';

-- ots.create_chunk_relation: the chunk relation "<table>$chunk" beside the
-- storage of an ots table or index, which holds the cells of its split
-- rows (docs/design.md, "Wide rows: heads and chunks"; src/meta/storage.h):
-- the stored key columns as the storage has them, the first cell of a
-- chunk ("$column", "$ts"), its cells and their oldest timestamp, keyed by
-- the three; unpartitioned, on the ots access method, toast_tuple_target at
-- its largest (a chunk stays in its tuple, uncompressed, read in place);
-- with its TTL index where the table is registered with a TTL.  Made by
-- the current role (create_table's, a restore's, or the update's as the
-- storage's owner), given the storage's owner when that is another.
CREATE FUNCTION ots.create_chunk_relation(schema_name name, table_name name, pk_names text[],
										  pk_types text[], hash_prefix_length integer) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	k record;
	chunk text := format('%I.%I', schema_name, table_name || '$chunk');
	owner_name text;
BEGIN
	SELECT * INTO k FROM ots.storage_key_columns(pk_names, pk_types, hash_prefix_length) c;
	EXECUTE format('CREATE TABLE %s (%s"$column" pg_catalog.text COLLATE "C" NOT NULL, "$ts" pg_catalog.int8 NOT NULL,'
				   ' "$cells" ots.cells COMPRESSION lz4 NOT NULL, "$oldest_ts" pg_catalog.int8 NOT NULL,'
				   ' PRIMARY KEY (%s, "$column", "$ts")) USING ots WITH (fillfactor = 90, toast_tuple_target = 8160)',
				   chunk, k.columns, k.key_columns);
	SELECT c.relowner::regrole::text INTO owner_name FROM pg_class c
	 WHERE c.oid = to_regclass(format('%I.%I', schema_name, table_name || '$data'));
	IF owner_name IS NOT NULL AND owner_name <> current_user::text THEN
		EXECUTE format('ALTER TABLE %s OWNER TO %s', chunk, owner_name);
	END IF;
	-- its grants and row security are the storage's (src/ddl/guard_access.c)
	PERFORM ots.chunk_relation_follow(chunk::regclass);
	-- its TTL index, for a table registered already (create_table's has expiry_sync make it)
	PERFORM ots.expiry_sync_chunk(t.schema_name, t.table_name, t.time_to_live)
	   FROM ots.tables t
	  WHERE t.schema_name = create_chunk_relation.schema_name AND t.table_name = create_chunk_relation.table_name;
END
$$;
COMMENT ON FUNCTION ots.create_chunk_relation(name, name, text[], text[], integer) IS
	'creates the chunk relation of an ots table''s or index''s storage (internal)';

-- ots.view_write: the INSTEAD OF trigger of every table view; INSERT,
-- UPDATE, DELETE and COPY on the view are the row API's writes (src/view/view_write.c)
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
		-- INSERT, UPDATE, DELETE and COPY on the view are the row API's writes (src/view/view_write.c)
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
	stream_expiration_hours integer,
	update_full_row boolean,
	stream_original_columns text[]) RETURNS void
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
	IF update_full_row IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Table options must not be NULL.',
						  'Omit an option to get its default.');
	END IF;
	SELECT p.names, p.types INTO defined FROM ots.parse_defined_columns(defined_columns, pk_names) p;

	IF EXISTS (SELECT 1 FROM ots.tables t
				WHERE t.schema_name = create_table_internal.schema_name
				  AND t.table_name = create_table_internal.table_name)
	   OR to_regclass(view_name) IS NOT NULL
	   OR to_regclass(format('%I.%I', schema_name, table_name || '$data')) IS NOT NULL THEN
		PERFORM ots.raise('OTSObjectAlreadyExist', 'Requested table already exists.',
						  format('A relation named %s already exists.', view_name));
	END IF;
	IF to_regclass(format('%I.%I', schema_name, table_name || '$chunk')) IS NOT NULL THEN
		PERFORM ots.raise('OTSObjectAlreadyExist', 'Requested table already exists.',
						  format('A relation named %I.%I, the name of the table''s chunk relation, already exists.',
								 schema_name, table_name || '$chunk'));
	END IF;

	PERFORM ots.create_table_storage(schema_name, table_name, pk_names, pk_types, auto_col, partitions,
									 hash_prefix_length);
	PERFORM ots.sync_table_view(schema_name, table_name, pk_names, defined.names, defined.types);
	PERFORM ots.catalog_insert(create_table_internal.schema_name, create_table_internal.table_name, pk_names,
							   pk_types, auto_col, max_versions, time_to_live, max_version_offset,
							   allow_update, partitions, hash_prefix_length, update_full_row);
	IF cardinality(defined.names) > 0 THEN
		PERFORM ots.catalog_set_defined(create_table_internal.schema_name, create_table_internal.table_name,
										defined.names, defined.types);
	END IF;
	-- Stream (45_stream.sql)
	IF stream_enabled IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Table options must not be NULL.',
						  'Omit an option to get its default.');
	END IF;
	IF stream_enabled OR stream_expiration_hours IS NOT NULL OR stream_original_columns IS NOT NULL THEN
		PERFORM ots.stream_sync(create_table_internal.schema_name, create_table_internal.table_name,
								stream_enabled, stream_expiration_hours, stream_original_columns);
	END IF;
	-- expiry hook (50_expiry.sql): "$oldest_ts" index and purge job when there is a TTL or a stream
	PERFORM ots.expiry_sync(create_table_internal.schema_name, create_table_internal.table_name, true);
END
$$;
COMMENT ON FUNCTION ots.create_table_internal(name, name, text, integer, bigint, bigint, boolean, integer, integer, text, boolean, integer, boolean, text[])
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
	stream_expiration_hours integer DEFAULT NULL,
	update_full_row boolean DEFAULT false,
	stream_original_columns text[] DEFAULT NULL) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.create_table_internal(r.schema_name, r.table_name, primary_key, max_versions,
									 time_to_live, max_version_offset, allow_update, partitions,
									 hash_prefix_length, defined_columns, stream_enabled,
									 stream_expiration_hours, update_full_row, stream_original_columns)
	  FROM ots.resolve_name(table_name, true) r;
END;
COMMENT ON FUNCTION ots.create_table(text, text, integer, bigint, bigint, boolean, integer, integer, text, boolean, integer, boolean, text[]) IS
	'creates an ots table: primary_key => ''name type, ...'' (string, integer, binary; integer auto_increment); defined_columns => ''name type, ...''; stream_enabled, stream_expiration_hours (24), stream_original_columns; update_full_row (fixed)';

CREATE FUNCTION ots.update_table_internal(
	schema_name name,
	table_name name,
	max_versions integer,
	time_to_live bigint,
	max_version_offset bigint,
	allow_update boolean,
	stream_enabled boolean,
	stream_expiration_hours integer,
	update_full_row boolean,
	stream_original_columns text[]) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	-- fixed at create_table, as Tablestore's; the same value again changes nothing (a
	-- missing table or an index gets its own error below)
	IF update_full_row IS NOT NULL AND update_full_row <>
	   (SELECT t.update_full_row FROM ots.tables t
		 WHERE t.schema_name = update_table_internal.schema_name AND t.table_name = update_table_internal.table_name
		   AND t.index_of IS NULL) THEN
		PERFORM ots.raise('OTSParameterInvalid', 'UpdateFullRow can''t be modified.',
						  'update_full_row is set by create_table only.');
	END IF;
	IF max_versions IS NULL AND time_to_live IS NULL AND max_version_offset IS NULL
	   AND allow_update IS NULL AND stream_enabled IS NULL AND stream_expiration_hours IS NULL
	   AND update_full_row IS NULL AND stream_original_columns IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'No parameter is specified in table options.');
	END IF;
	IF max_versions IS NULL AND time_to_live IS NULL AND max_version_offset IS NULL
	   AND allow_update IS NULL THEN
		IF stream_enabled IS NULL AND stream_expiration_hours IS NULL AND stream_original_columns IS NULL THEN
			-- update_full_row alone, the table's own value: the owner's call changes nothing
			PERFORM ots.ddl_table(update_table_internal.schema_name, update_table_internal.table_name,
								  'Can''t update index table directly.');
			RETURN;
		END IF;
		-- the stream alone (45_stream.sql); ots.catalog_set_stream checks that the caller owns the table
		PERFORM ots.stream_sync(update_table_internal.schema_name, update_table_internal.table_name,
								stream_enabled, stream_expiration_hours, stream_original_columns);
		PERFORM ots.expiry_sync(update_table_internal.schema_name, update_table_internal.table_name, true);
		RETURN;
	END IF;
	PERFORM ots.check_table_options(max_versions, time_to_live, max_version_offset);
	-- an index takes its options from its table; a table's indexes keep it within their rule
	PERFORM ots.index_check_options(update_table_internal.schema_name, update_table_internal.table_name,
									max_versions, time_to_live, allow_update);
	-- and its search indexes within theirs (70_search.sql)
	IF EXISTS (SELECT 1 FROM ots.search_indexes s
				WHERE s.schema_name = update_table_internal.schema_name
				  AND s.table_name = update_table_internal.table_name) THEN
		PERFORM ots.search_check_options(o.schema_name, o.table_name,
										 coalesce(update_table_internal.max_versions, o.max_versions),
										 coalesce(update_table_internal.time_to_live, o.time_to_live),
										 coalesce(update_table_internal.allow_update, o.allow_update))
		   FROM ots.tables o
		  WHERE o.schema_name = update_table_internal.schema_name
			AND o.table_name = update_table_internal.table_name;
	END IF;
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
							stream_enabled, stream_expiration_hours, stream_original_columns);
	PERFORM ots.expiry_sync(update_table_internal.schema_name, update_table_internal.table_name,
							time_to_live IS NOT NULL OR max_versions IS NOT NULL OR stream_enabled IS NOT NULL);
END
$$;
COMMENT ON FUNCTION ots.update_table_internal(name, name, integer, bigint, bigint, boolean, boolean, integer, boolean, text[])
	IS 'changes the options of a resolved ots table (internal; call ots.update_table)';

CREATE FUNCTION ots.update_table(
	table_name text,
	max_versions integer DEFAULT NULL,
	time_to_live bigint DEFAULT NULL,
	max_version_offset bigint DEFAULT NULL,
	allow_update boolean DEFAULT NULL,
	stream_enabled boolean DEFAULT NULL,
	stream_expiration_hours integer DEFAULT NULL,
	update_full_row boolean DEFAULT NULL,
	stream_original_columns text[] DEFAULT NULL) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.update_table_internal(r.schema_name, r.table_name, max_versions, time_to_live,
									 max_version_offset, allow_update, stream_enabled,
									 stream_expiration_hours, update_full_row, stream_original_columns)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.update_table(text, integer, bigint, bigint, boolean, boolean, integer, boolean, text[]) IS
	'changes table options and the stream (stream_original_columns => ''{}'' clears them); omitted options keep their values; every session sees the change at once; update_full_row cannot change';

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
											'allow_update', t.allow_update,
											'update_full_row', t.update_full_row),
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
		'search_indexes', (SELECT coalesce(jsonb_agg(s.index_name ORDER BY s.index_name COLLATE "C"), '[]')
							 FROM ots.search_indexes s
							WHERE s.schema_name = t.schema_name AND s.table_name = t.table_name),
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

-- ots.drop_chunk_relation: drops the chunk relation beside an ots table's
-- or index's storage, when it is the table's (it has the storage's owner;
-- ots.relation_owner, src/sql/60_ddl.sql): delete_table, delete_index and
-- the drop clean-up, once the table is forgotten
CREATE FUNCTION ots.drop_chunk_relation(schema_name name, table_name name) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF to_regclass(format('%I.%I', schema_name, table_name || '$chunk')) IS NOT NULL
	   AND ots.relation_owner(schema_name, table_name || '$chunk')
		   = ots.relation_owner(schema_name, table_name || '$data') THEN
		EXECUTE format('DROP TABLE %I.%I', schema_name, table_name || '$chunk');
	END IF;
END
$$;
COMMENT ON FUNCTION ots.drop_chunk_relation(name, name) IS
	'drops the chunk relation of an ots table or index that is gone from ots.tables (internal)';

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
	-- as in Tablestore, a table's search indexes are deleted first (70_search.sql)
	IF EXISTS (SELECT 1 FROM ots.search_indexes s
				WHERE s.schema_name = delete_table_internal.schema_name
				  AND s.table_name = delete_table_internal.table_name) THEN
		PERFORM ots.raise('OTSParameterInvalid', 'The table has search indexes: delete them first.',
						  'Delete each with ots.delete_search_index(table, index_name) (ots.list_search_index lists them).');
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
	PERFORM ots.drop_chunk_relation(schema_name, table_name);
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
