-- ots 0.2.0 -> 0.3.0.
-- Every change here is also made in src/sql/ (what a fresh 0.3.0 install
-- runs); test/upgrade/run.sh shows the two arrive at the same objects, from
-- 0.2.0 and from 0.1.0 through 0.2.0. docs/development.md, Releases, has the
-- rules an upgrade script follows (0.2.0's ots.tables is written only by
-- ots's own functions, but ots.purge_stats still takes rows from any role
-- that owns a relation named "<table>$data": its rows are input).
\echo Use "ALTER EXTENSION ots UPDATE TO '0.3.0'" to load this file. \quit

-- update_full_row (issue 34), first: ots.so reads it with every table's row
-- (catalog.h, CATALOG_ROW_COLUMNS), and statements below load tables
ALTER TABLE ots.tables ADD COLUMN update_full_row boolean NOT NULL DEFAULT false;

-- Stream's original columns (issue 34): ots.tables keeps them (read by ots.so
-- like update_full_row), catalog_set_stream sets them, describe_table shows them
ALTER TABLE ots.tables ADD COLUMN stream_original_columns text[];
DROP FUNCTION ots.catalog_set_stream(name, name, text, integer);
CREATE FUNCTION ots.catalog_set_stream(schema_name name, table_name name, stream_id text,
										stream_expiration_hours integer,
										stream_original_columns text[]) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_set_stream' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_set_stream(name, name, text, integer, text[]) IS
	'sets the stream of an ots table the caller owns, whose relations ots.stream_sync made (NULLs: none) (internal)';
CREATE OR REPLACE FUNCTION ots.stream_details(t ots.tables) RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT CASE WHEN t.stream_id IS NULL THEN jsonb_build_object('enable_stream', false)
				ELSE jsonb_build_object('enable_stream', true, 'stream_id', t.stream_id,
										'expiration_time', t.stream_expiration_hours,
										'last_enable_time', ots.stream_time(t.stream_enabled_at))
					 OPERATOR(pg_catalog.||)
					 CASE WHEN t.stream_original_columns IS NOT NULL
						  THEN jsonb_build_object('original_columns', t.stream_original_columns)
						  ELSE '{}' END END
$$;
COMMENT ON FUNCTION ots.stream_details(ots.tables) IS
	'the stream_details of describe_table: enable_stream, stream_id, expiration_time (hours), last_enable_time (µs), original_columns when set (internal)';

-- src/ in folders (issue 32): four functions whose bodies name a C file by
-- its path say the new path; nothing else of them changed (the fifth,
-- ots.create_table_storage, is below with issue 33's change of it).
CREATE OR REPLACE FUNCTION ots.sync_table_view(schema_name name, table_name name, pk_names text[],
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

CREATE OR REPLACE FUNCTION ots.create_index_internal(schema_name name, table_name name, index_name text,
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
	PERFORM ots.index_check_base_options(t.max_versions, t.time_to_live, t.allow_update, t.update_full_row);
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
	-- its storage, registered, carries its partitions and view along (src/ddl/ddl_guard.c)
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

-- Stream's original columns (issue 34): stream_sync takes them, a new signature
DROP FUNCTION ots.stream_sync(name, name, boolean, integer);
CREATE FUNCTION ots.stream_sync(schema_name name, table_name name, stream_enabled boolean,
								stream_expiration_hours integer,
								stream_original_columns text[]) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t ots.tables;
	original text[];
BEGIN
	IF stream_enabled IS NULL AND stream_expiration_hours IS NULL AND stream_original_columns IS NULL THEN
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
	IF stream_original_columns IS NOT NULL THEN
		original := ots.stream_check_original_columns(stream_original_columns, t.pk_names);
		IF stream_enabled IS false AND original IS NOT NULL THEN
			PERFORM ots.raise('OTSParameterInvalid', 'Original columns can only be set on a table with a stream.',
							  'Enable the stream (stream_enabled => true) with them.');
		END IF;
	ELSIF t.stream_id IS NOT NULL THEN
		original := t.stream_original_columns;
	END IF;

	-- writers of the table hold its storage with ROW EXCLUSIVE (the write
	-- point, src/writepoint/storage_write.c): those in flight finish first, new ones
	-- wait for this change, so a transaction's changes are all recorded or
	-- none, and each record carries the original columns of one setting.
	-- The storage alone, not its partitions: a writer holding one partition
	-- and waiting for another cannot deadlock with this.
	IF stream_enabled IS NOT NULL OR stream_original_columns IS NOT NULL THEN
		EXECUTE format('LOCK TABLE ONLY %I.%I IN SHARE MODE', stream_sync.schema_name,
					   stream_sync.table_name || '$data');
	END IF;
	IF stream_enabled IS false THEN
		IF t.stream_id IS NOT NULL THEN
			PERFORM ots.catalog_set_stream(stream_sync.schema_name, stream_sync.table_name, NULL, NULL, NULL);
			PERFORM ots.stream_drop_storage(stream_sync.schema_name, stream_sync.table_name);
		END IF;
	ELSIF t.stream_id IS NULL THEN
		PERFORM ots.stream_create_storage(stream_sync.schema_name, stream_sync.table_name);
		PERFORM ots.catalog_set_stream(stream_sync.schema_name, stream_sync.table_name,
									   gen_random_uuid()::text, coalesce(stream_expiration_hours, 24), original);
	ELSE
		PERFORM ots.catalog_set_stream(stream_sync.schema_name, stream_sync.table_name, t.stream_id,
									   coalesce(stream_expiration_hours, t.stream_expiration_hours), original);
	END IF;
END
$$;
COMMENT ON FUNCTION ots.stream_sync(name, name, boolean, integer, text[]) IS
	'enables, disables or changes the stream of an ots table the caller owns (internal; create_table, update_table)';

-- ots.stream_check_original_columns: a stream's original columns as
-- ots.tables keeps them, distinct and bytewise sorted, NULL for none; each
-- an attribute column name (a key column's value is in every record already)
CREATE FUNCTION ots.stream_check_original_columns(columns text[], pk_names text[]) RETURNS text[]
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	c text;
	sorted text[];
BEGIN
	IF array_ndims(columns) > 1 THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Original columns must be a one-dimensional array.');
	END IF;
	FOREACH c IN ARRAY coalesce(columns, '{}') LOOP
		IF c IS NULL THEN
			PERFORM ots.raise('OTSParameterInvalid', 'The name of an original column must not be NULL.');
		END IF;
		PERFORM ots.check_column_name(c);
		IF c = ANY (pk_names) THEN
			PERFORM ots.raise('OTSParameterInvalid',
							  format('The original column ''%s'' is a primary key column.', c),
							  'Every record carries the primary key already.');
		END IF;
	END LOOP;
	sorted := ARRAY(SELECT DISTINCT u COLLATE "C" FROM unnest(columns) u ORDER BY 1);
	IF cardinality(sorted) > ots.limit('max_stream_original_columns') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('The number of original columns must not exceed %s.',
								 ots.limit('max_stream_original_columns')));
	END IF;
	IF (SELECT sum(octet_length(u)) FROM unnest(sorted) u) > ots.limit('max_stream_original_bytes') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('The names of the original columns must not exceed %s bytes in all.',
								 ots.limit('max_stream_original_bytes')));
	END IF;
	RETURN CASE WHEN cardinality(sorted) > 0 THEN sorted END;
END
$$;
COMMENT ON FUNCTION ots.stream_check_original_columns(text[], text[]) IS
	'checks a stream''s original columns: attribute column names, at most max_stream_original_columns of at most max_stream_original_bytes in all; returns them distinct and sorted, NULL for none (internal)';

CREATE OR REPLACE FUNCTION ots.expiry_needed(schema_name name, table_name name) RETURNS boolean
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	-- an index's entries go with its base table's rows (src/index/index_write.c): it is never purged itself
	SELECT coalesce(bool_or(t.time_to_live <> -1 OR t.trimmed_max_versions > t.max_versions
							OR t.stream_id IS NOT NULL), false)
	  FROM ots.tables t
	 WHERE t.schema_name = $1 AND t.table_name = $2 AND t.index_of IS NULL
$$;

-- issue 33 (wide rows and deep versions), its first part: every ots table
-- and every index's own storage gets its chunk relation "<table>$chunk",
-- which will hold the cells of its split rows (docs/design.md, "Storage
-- layout" and "Wide rows: heads and chunks"; src/meta/storage.h), and,
-- while the table has a TTL, the index "<table>$cttl" on its "$oldest_ts".
-- create_table and create_index make them (ots.create_chunk_relation),
-- delete_table, delete_index and the drop clean-up drop them, a restore of
-- a table whose dump has none makes it (src/ddl/catalog_write.c), and the
-- update makes them for the tables there are, below.

-- ots.chunk_relation_follow: a chunk relation made beside an existing
-- storage takes its grants and row security (its owner's only;
-- ots.create_chunk_relation); ots.storage_access_follow keeps them so
-- (src/ddl/guard_access.c)
CREATE FUNCTION ots.chunk_relation_follow(chunk regclass) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_chunk_relation_follow' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.chunk_relation_follow(regclass) IS
	'gives an ots table''s chunk relation the privileges and row security of its storage (internal)';

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

CREATE OR REPLACE FUNCTION ots.create_table_storage(schema_name name, table_name name, pk_names text[],
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

-- create_table gains update_full_row (issue 34): a new signature, so both go and come back
DROP FUNCTION ots.create_table(text, text, integer, bigint, bigint, boolean, integer, integer, text, boolean, integer);
DROP FUNCTION ots.create_table_internal(name, name, text, integer, bigint, bigint, boolean, integer, integer, text, boolean, integer);
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

CREATE OR REPLACE FUNCTION ots.delete_index_internal(schema_name name, table_name name, index_name text) RETURNS void
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
	PERFORM ots.drop_chunk_relation(i.schema_name, i.table_name);
	EXECUTE format('DROP TABLE %I.%I', i.schema_name, i.table_name || '$data');
END
$$;
COMMENT ON FUNCTION ots.delete_index_internal(name, name, text) IS
	'drops a secondary index of a resolved ots table (internal; call ots.delete_index)';

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

CREATE OR REPLACE FUNCTION ots.verify_relations(schema_name name, table_name name) RETURNS SETOF regclass
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
		UNION ALL
		SELECT 2, c.oid::regclass, c.relname::text
		  FROM ots.tables t
		  JOIN pg_class s ON s.oid = to_regclass(format('%I.%I', t.schema_name, t.table_name || '$data'))
		  JOIN pg_class c ON c.oid = to_regclass(format('%I.%I', t.schema_name, t.table_name || '$chunk'))
		 WHERE t.schema_name = $1 AND (t.table_name = $2 OR t.index_of = $2) AND c.relowner = s.relowner
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
	'the relations of an ots table amcheck checks: leaves of its storage and its indexes'', its stream''s relations, its and its indexes'' chunk relations, their TOAST (internal: ots.verify)';

-- The chunk relation of every table and index ots.tables registers, made as
-- the owner of its storage (who owns the tables ots made of it) by
-- ots.create_chunk_relation, as create_table makes it, with its TTL index
-- where the table has a TTL.  0.2.0's ots.tables is written by ots's own
-- functions only, yet what it names is checked from pg_catalog first: a
-- partitioned storage table in a schema that is neither a system nor a
-- temporary one, and no relation of the chunk relation's name already (a
-- role with CREATE on the schema may have made one: it is left as it is,
-- with a WARNING, and the table goes on without a chunk relation, which
-- ots.verify reports).  ots.tables is locked against writes and each
-- storage against DDL first, so what was checked holds until the update
-- commits.  CREATE TABLE and CREATE INDEX of an empty relation with
-- PostgreSQL's own types and operator classes run no code of the owner's.
-- Made inside ALTER EXTENSION, each relation would be a member of ots: it
-- is the table's, as create_table's are, so it leaves the extension.
DO $$
DECLARE
	t record;
	owner_name text;
BEGIN
	LOCK TABLE ots.tables IN EXCLUSIVE MODE;
	FOR t IN
		SELECT o.schema_name, o.table_name, o.pk_names, o.pk_types, o.hash_prefix_length,
			   s.oid AS storage, s.relowner AS owner
		  FROM ots.tables o
		  JOIN pg_catalog.pg_namespace n ON n.nspname OPERATOR(pg_catalog.=) o.schema_name
		  JOIN pg_catalog.pg_class s ON s.relnamespace OPERATOR(pg_catalog.=) n.oid
			   AND s.relname OPERATOR(pg_catalog.=) (o.table_name OPERATOR(pg_catalog.||) '$data')
		 WHERE s.relkind OPERATOR(pg_catalog.=) 'p' AND NOT s.relispartition
		   AND n.nspname OPERATOR(pg_catalog.!~~) 'pg\_%' AND n.nspname OPERATOR(pg_catalog.<>) 'information_schema'
		   AND pg_catalog.octet_length(o.table_name OPERATOR(pg_catalog.||) '$chunk') OPERATOR(pg_catalog.<=) 63
		 ORDER BY o.schema_name, o.table_name
	LOOP
		EXECUTE pg_catalog.format('LOCK TABLE ONLY %I.%I IN SHARE UPDATE EXCLUSIVE MODE', t.schema_name,
								  t.table_name OPERATOR(pg_catalog.||) '$data');
		-- checked again under the lock: the storage and its owner as the loop read them
		CONTINUE WHEN NOT EXISTS (SELECT FROM pg_catalog.pg_class s
								   WHERE s.oid OPERATOR(pg_catalog.=) t.storage AND s.relowner OPERATOR(pg_catalog.=) t.owner
									 AND s.relkind OPERATOR(pg_catalog.=) 'p');
		IF pg_catalog.to_regclass(pg_catalog.format('%I.%I', t.schema_name,
													t.table_name OPERATOR(pg_catalog.||) '$chunk')) IS NOT NULL THEN
			RAISE WARNING 'ots table %.% gets no chunk relation: a relation named %.% exists already',
				pg_catalog.quote_ident(t.schema_name), pg_catalog.quote_ident(t.table_name),
				pg_catalog.quote_ident(t.schema_name), pg_catalog.quote_ident(t.table_name OPERATOR(pg_catalog.||) '$chunk')
				USING DETAIL = 'ots 0.3.0 keeps the cells of a table''s wide rows in a relation of that name. The update left that relation as it is; the table works on, its rows kept whole in its leaves, and ots.verify reports the chunk relation missing.',
					  HINT = pg_catalog.format('Rename or drop that relation, then, as the table''s owner: SELECT ots.create_chunk_relation(t.schema_name, t.table_name, t.pk_names, t.pk_types, t.hash_prefix_length) FROM ots.tables t WHERE t.schema_name = %L AND t.table_name = %L;',
											   t.schema_name, t.table_name);
			CONTINUE;
		END IF;
		owner_name := pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(t.owner));
		BEGIN
			EXECUTE pg_catalog.format('SET LOCAL ROLE %s', owner_name);
			-- with its TTL index where the table has a TTL
			PERFORM ots.create_chunk_relation(t.schema_name, t.table_name, t.pk_names, t.pk_types,
											  t.hash_prefix_length);
			RESET ROLE;
		EXCEPTION WHEN insufficient_privilege THEN
			-- the role is the update's again, as the block's subtransaction is undone
			RAISE WARNING 'ots table %.% gets no chunk relation: its owner % may not create it: %',
				pg_catalog.quote_ident(t.schema_name), pg_catalog.quote_ident(t.table_name), owner_name, SQLERRM
				USING DETAIL = 'The update makes the chunk relation as the owner of the table''s storage. The table works on, its rows kept whole in its leaves, and ots.verify reports the chunk relation missing.',
					  HINT = pg_catalog.format('Grant its owner CREATE on schema %I, then, as the owner: SELECT ots.create_chunk_relation(t.schema_name, t.table_name, t.pk_names, t.pk_types, t.hash_prefix_length) FROM ots.tables t WHERE t.schema_name = %L AND t.table_name = %L;',
											   t.schema_name, t.schema_name, t.table_name);
			CONTINUE;
		END;
		EXECUTE pg_catalog.format('ALTER EXTENSION ots DROP TABLE %I.%I', t.schema_name,
								  t.table_name OPERATOR(pg_catalog.||) '$chunk');
		-- every session loads the table again, with its chunk relation
		PERFORM ots.invalidate_table(t.storage::pg_catalog.regclass);
	END LOOP;
END
$$;

-- issue 33, split rows (docs/design.md, "Wide rows: heads and chunks"):
-- the purge goes over a table's chunk relation after its leaves
-- (ots.purge_relations), each chunk with ots.purge_chunk, which moves its
-- key to its first cell left
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

-- issue 33: a split row's cells are readable exactly where its head is.
-- GRANT, REVOKE and row security on a table's storage carry to its chunk
-- relation (ots.storage_access_follow), and the guard refuses them on a
-- chunk relation alone; the chunk relations made above took their
-- storage's (ots.chunk_relation_follow)
DROP EVENT TRIGGER ots_storage_guard;
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

-- issue 33: a get_range page may end inside a wide row, at a column, as
-- Tablestore's does: ots.range_result gains next_token, and get_range the
-- token that goes on from there (src/api/range_read.c)
DROP FUNCTION ots.get_range(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text);
ALTER TYPE ots.range_result ADD ATTRIBUTE next_token text;
COMMENT ON TYPE ots.range_result IS
	'one get_range page: rows [{primary_key, attributes}], the key to continue from (NULL when done), capacity units, and where a page that ended inside that row goes on in it';
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
	end_column text DEFAULT NULL,
	token text DEFAULT NULL,
	whole_rows boolean DEFAULT false) RETURNS ots.range_result
	AS 'MODULE_PATHNAME', 'ots_get_range' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION ots.get_range(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text, text, boolean) IS
	'one page of a primary-key range: at most 5000 rows and 4 MB, with next_start_primary_key and, inside a wide row, next_token (Tablestore GetRange)';

-- issue 34: Tablestore's text for an index on a table with a TTL that
-- allows updates (src/sql/35_indexes.sql)
-- ots.index_check_base_options: the options a table with indexes must have
CREATE OR REPLACE FUNCTION ots.index_check_base_options(max_versions integer, time_to_live bigint,
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
						  'Don''t support allow update operation on table with index and ttl',
						  'A table with secondary indexes must have time_to_live -1, or allow_update false.');
	END IF;
END
$$;
COMMENT ON FUNCTION ots.index_check_base_options(integer, bigint, boolean) IS
	'refuses options a table with secondary indexes cannot have (internal)';

-- The SDK path without JSON (issue 34): rows in PlainBuffer for otsd.
CREATE FUNCTION ots.wire_get_row(
	table_name text,
	primary_key jsonb,
	columns_to_get text[] DEFAULT NULL,
	max_versions integer DEFAULT NULL,
	time_range jsonb DEFAULT NULL,
	filter jsonb DEFAULT NULL,
	start_column text DEFAULT NULL,
	end_column text DEFAULT NULL,
	OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	AS 'MODULE_PATHNAME', 'ots_wire_get_row' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION ots.wire_get_row(text, jsonb, text[], integer, jsonb, jsonb, text, text) IS
	'get_row with timestamps, the row as Tablestore''s PlainBuffer (empty: none) and its capacity units: what otsd calls for GetRow';

CREATE FUNCTION ots.wire_get_range(
	table_name text,
	inclusive_start_primary_key jsonb,
	exclusive_end_primary_key jsonb,
	direction text DEFAULT 'FORWARD',
	"limit" integer DEFAULT NULL,
	columns_to_get text[] DEFAULT NULL,
	max_versions integer DEFAULT NULL,
	time_range jsonb DEFAULT NULL,
	filter jsonb DEFAULT NULL,
	start_column text DEFAULT NULL,
	end_column text DEFAULT NULL,
	token text DEFAULT NULL,
	OUT "rows" bytea, OUT next_start_primary_key bytea, OUT next_token text,
	OUT read_cu integer, OUT write_cu integer)
	AS 'MODULE_PATHNAME', 'ots_wire_get_range' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION ots.wire_get_range(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, text, text, text) IS
	'get_range''s page with timestamps, rows and next key as Tablestore''s PlainBuffer, and its capacity units: what otsd calls for GetRange';

CREATE FUNCTION ots.wire_put_row(
	table_name text,
	put_row bytea,
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE',
	OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	AS 'MODULE_PATHNAME', 'ots_wire_put_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.wire_put_row(text, bytea, text, jsonb, text) IS
	'put_row of a PutRow request''s PlainBuffer row, the returned row as PlainBuffer (empty: none) and its capacity units: what otsd calls for PutRow';

CREATE FUNCTION ots.wire_update_row(
	table_name text,
	row_change bytea,
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE',
	return_columns text[] DEFAULT NULL,
	OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	AS 'MODULE_PATHNAME', 'ots_wire_update_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.wire_update_row(text, bytea, text, jsonb, text, text[]) IS
	'update_row of an UpdateRow request''s PlainBuffer row_change, the returned row as PlainBuffer (empty: none) and its capacity units: what otsd calls for UpdateRow';

CREATE FUNCTION ots.wire_delete_row(
	table_name text,
	primary_key bytea,
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE',
	OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	AS 'MODULE_PATHNAME', 'ots_wire_delete_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.wire_delete_row(text, bytea, text, jsonb, text) IS
	'delete_row of a DeleteRow request''s PlainBuffer primary_key, the returned row as PlainBuffer (empty: none) and its capacity units: what otsd calls for DeleteRow';

CREATE FUNCTION ots.wire_batch_write_row(
	request jsonb,
	"rows" bytea[],
	is_atomic boolean DEFAULT false)
	RETURNS TABLE (table_name text, index integer, is_ok boolean, error_code text,
				   error_message text, "row" bytea, read_cu integer, write_cu integer)
	AS 'MODULE_PATHNAME', 'ots_wire_batch_write_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.wire_batch_write_row(jsonb, bytea[], boolean) IS
	'batch_write_row of a request whose rows leave out their key and cells, with each row''s PlainBuffer bytes in "rows" (in request order), returned rows as PlainBuffer and capacity units as integers: what otsd calls for BatchWriteRow';

-- defined columns keep the order they were defined in (tables made before keep theirs, by name)
CREATE OR REPLACE FUNCTION ots.add_defined_column_internal(schema_name name, table_name name, defined_columns text)
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
	SELECT t.defined_names || added.names AS names, t.defined_types || added.types AS types INTO merged;
	-- owner only; every session reloads the table
	PERFORM ots.catalog_set_defined(t.schema_name, t.table_name, merged.names, merged.types);
	PERFORM ots.sync_table_view(t.schema_name, t.table_name, t.pk_names, merged.names, merged.types);
END
$$;

CREATE OR REPLACE FUNCTION ots.index_key(t ots.tables, primary_key text[], defined_columns text[], local boolean,
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
END
$$;

DROP FUNCTION ots.sort_defined_columns(text[], text[]);

-- update_full_row (issue 34): registered by create_table, shown by describe_table,
-- refused as a change by update_table, and a table updating whole rows may have
-- indexes with a TTL and updates
DROP FUNCTION ots.catalog_insert(name, name, text[], text[], smallint, integer, bigint, bigint, boolean, integer, integer);
CREATE FUNCTION ots.catalog_insert(schema_name name, table_name name, pk_names text[], pk_types text[],
								   auto_increment smallint, max_versions integer, time_to_live bigint,
								   max_version_offset bigint, allow_update boolean, partitions integer,
								   hash_prefix_length integer, update_full_row boolean) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_insert' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_insert(name, name, text[], text[], smallint, integer, bigint, bigint, boolean, integer, integer, boolean) IS
	'registers the ots table whose storage the caller made and owns in ots.tables (internal; create_table)';

DROP FUNCTION ots.update_table(text, integer, bigint, bigint, boolean, boolean, integer);
DROP FUNCTION ots.update_table_internal(name, name, integer, bigint, bigint, boolean, boolean, integer);
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

DROP FUNCTION ots.index_check_base_options(integer, bigint, boolean);
CREATE FUNCTION ots.index_check_base_options(max_versions integer, time_to_live bigint,
											 allow_update boolean, update_full_row boolean) RETURNS void
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF max_versions <> 1 THEN
		PERFORM ots.raise('OTSParameterInvalid', 'The max version of table with index must be 1.',
						  format('max_versions would be %s.', max_versions));
	END IF;
	IF time_to_live <> -1 AND allow_update AND NOT update_full_row THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  'Don''t support allow update operation on table with index and ttl',
						  'A table with secondary indexes must have time_to_live -1, allow_update false or update_full_row true.');
	END IF;
END
$$;
COMMENT ON FUNCTION ots.index_check_base_options(integer, bigint, boolean, boolean) IS
	'refuses options a table with secondary indexes cannot have (internal)';

CREATE OR REPLACE FUNCTION ots.index_check_options(schema_name name, table_name name, max_versions integer,
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
											 coalesce(allow_update, t.allow_update), t.update_full_row);
	END IF;
END
$$;
COMMENT ON FUNCTION ots.index_check_options(name, name, integer, bigint, boolean) IS
	'refuses options an index or a table with indexes cannot have (internal; update_table)';

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

CREATE FUNCTION ots.check_readable(storage regclass) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_check_readable' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.check_readable(regclass) IS
	'refuses, as get_range does, a caller who may not read the rows of the table of this storage (internal; compute_split_points)';
CREATE FUNCTION ots.cells_size(cells ots.cells) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_cells_size' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.cells_size(ots.cells) IS
	'the encoded bytes of a row''s cells, a split row''s chunks included (internal; compute_split_points)';

-- ots.compute_split_points: Tablestore's ComputeSplitPointsBySize.  Values of
-- the partition key that cut the table, in primary-key order, into ranges
-- of about split_size bytes each (the last may be smaller): [{"pk": v}, ...],
-- increasing, at most split_point_limit of them (NULL: no limit but 10000).
-- They come from a sample of the stored rows (TABLESAMPLE SYSTEM, about
-- 10,000 rows and 64 pages a split), each weighted by its size (its key and
-- its cells' bytes, a split row's chunks included: ots.cells_size); the
-- sample reads as the caller, with its privileges and row-level security,
-- as get_range does.
CREATE FUNCTION ots.compute_split_points_internal(schema_name name, table_name name, split_size bigint,
												  split_point_limit integer) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t ots.tables;
	storage regclass;
	chunk regclass;
	total_bytes numeric;
	pages numeric;
	estimated_rows numeric;
	splits bigint;
	percent float8;
	value_sql text;
	points jsonb;
BEGIN
	IF split_size IS NULL OR split_size <= 0 THEN
		PERFORM ots.raise('OTSParameterInvalid', format('Invalid split size: %s.', coalesce(split_size::text, 'NULL')),
						  'split_size is a number of bytes above 0.');
	END IF;
	IF split_point_limit IS NOT NULL AND split_point_limit < 0 THEN
		PERFORM ots.raise('OTSParameterInvalid', format('Invalid split point limit: %s.', split_point_limit));
	END IF;
	-- ots.resolve_name is STRICT: a NULL table name arrives as NULLs
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	storage := to_regclass(format('%I.%I', schema_name, table_name || '$data'));
	IF storage IS NULL THEN
		PERFORM ots.raise('OTSObjectNotExist', 'Requested table does not exist.');
	END IF;
	-- a read, refused as get_range refuses it (privileges, row-level security)
	PERFORM ots.check_readable(storage);
	SELECT * INTO t FROM ots.tables o
	 WHERE o.schema_name = compute_split_points_internal.schema_name
	   AND o.table_name = compute_split_points_internal.table_name;
	IF NOT FOUND THEN
		PERFORM ots.raise('OTSObjectNotExist', 'Requested table does not exist.');
	END IF;
	-- (an index's storage is its owner's alone, which the sample would read)
	IF t.index_of IS NOT NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'ComputeSplitPointsBySize is not supported on an index table.',
						  'Compute the split points of its table.');
	END IF;
	chunk := to_regclass(format('%I.%I', schema_name, table_name || '$chunk'));
	SELECT sum(pg_catalog.pg_total_relation_size(c.oid)),
		   sum(pg_catalog.pg_relation_size(c.oid) / 8192.0),
		   -- rows now: the last analysis's rows a page times the pages now, as the
		   -- planner estimates (a leaf never analyzed: 50 rows a page)
		   sum(pg_catalog.pg_relation_size(c.oid) / 8192.0 *
			   CASE WHEN c.reltuples >= 0 AND c.relpages > 0 THEN c.reltuples / c.relpages ELSE 50 END)
	  INTO total_bytes, pages, estimated_rows
	  FROM pg_catalog.pg_partition_tree(storage) p
	  JOIN pg_catalog.pg_class c ON c.oid = p.relid
	 WHERE p.isleaf;
	total_bytes := coalesce(total_bytes, 0) + coalesce(pg_catalog.pg_total_relation_size(chunk), 0);
	-- a page sample of about 10,000 rows, and of 64 pages a split (splits as
	-- the relations' size on disk suggests: a page's rows come together, so
	-- the pages make the quantiles), at most 100,000 pages; all of a small table
	splits := least(ceil(total_bytes / split_size)::bigint, 10000);
	percent := least(100, 100.0 * least(greatest(10000 * greatest(pages, 1) / greatest(estimated_rows, 1),
												 64 * (splits + 1)), 100000) / greatest(pages, 1));
	-- a key as get_row takes it: a Binary one as {"$binary": base64}
	value_sql := CASE t.pk_types[1]
					 WHEN 'BINARY' THEN $v$pg_catalog.jsonb_build_object('$binary', pg_catalog.translate(pg_catalog.encode(key, 'base64'), E'\n', ''))$v$
					 ELSE 'pg_catalog.to_jsonb(key)' END;
	-- the table's bytes, extrapolated from the sample's, make the number of
	-- splits; each point is the first key at or past k / splits of the
	-- sample's weight (weighing the rows before it: a range never starts
	-- empty), in the stored order: on a hash-prefixed table, prefix first,
	-- as its ranges go
	EXECUTE format($q$
		WITH sample AS (
			SELECT %5$s AS pos, d.%1$I AS key,
				   (pg_catalog.pg_column_size(d.*) - pg_catalog.pg_column_size(d."$cells")
					+ ots.cells_size(d."$cells"))::numeric AS weight
			  FROM %2$s d TABLESAMPLE SYSTEM (%3$s)
			 -- (rows whose cells all expired are no rows: no point is one of them)
			 WHERE ots.row_exists(d."$cells", %6$L::regclass)),
		n AS (
			SELECT least(ceil(sum(weight) * 100 / %3$s / $1)::bigint - 1, $3) AS points, sum(weight) AS total
			  FROM sample),
		running AS (
			SELECT pos, key,
				   coalesce(sum(weight) OVER (ORDER BY pos, key ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
					   AS before
			  FROM sample),
		cut AS (
			SELECT DISTINCT ON (k) k, pos, key
			  FROM (SELECT pos, key, floor(before * (n.points + 1) / n.total)::bigint AS k FROM running, n) x, n
			 WHERE k BETWEEN 1 AND n.points
			 ORDER BY k, pos, key)
		SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object($2, %4$s) ORDER BY pos, key), '[]')
		  FROM (SELECT DISTINCT pos, key FROM cut) points
		$q$, t.pk_names[1], storage, percent, value_sql,
		CASE WHEN t.hash_prefix_length > 0 THEN 'd."$hash"' ELSE '0::int8' END, storage::text)
	  INTO points USING split_size, t.pk_names[1], least(coalesce(split_point_limit, 10000), 10000);
	RETURN points;
END
$$;
COMMENT ON FUNCTION ots.compute_split_points_internal(name, name, bigint, integer) IS
	'ots.compute_split_points of a resolved table (internal)';

CREATE FUNCTION ots.compute_split_points(table_name text, split_size bigint,
										 split_point_limit integer DEFAULT NULL) RETURNS jsonb
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.compute_split_points_internal(r.schema_name, r.table_name, split_size, split_point_limit)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.compute_split_points(text, bigint, integer) IS
	'values of the partition key cutting the table into ranges of about split_size bytes, from a sample (Tablestore ComputeSplitPointsBySize)';

-- Search indexes (Tablestore's search index; docs/reference.md, "Search").

CREATE FUNCTION ots.search_analyze(
	"text" text,
	analyzer text DEFAULT 'single_word',
	analyzer_parameter jsonb DEFAULT NULL)
	RETURNS TABLE (token text, "position" integer)
	AS 'MODULE_PATHNAME', 'ots_search_analyze' LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION ots.search_analyze(text, text, jsonb) IS
	'the tokens, with their positions, that a search index''s TEXT field with this analyzer (single_word, split, fuzzy, min_word, max_word) and its parameters makes of a text';

-- ots.search_indexes: one row per search index (Tablestore's
-- CreateSearchIndex).  Names, never OIDs; the schema as
-- describe_search_index shows it (every default filled in, src/search/schema.c).
-- No part of a dump, as ots.tables: each row is carried by the comment of
-- its storage, which registers the index again as a restore writes it
-- (src/ddl/search_catalog.c).
-- An index of table s.t is kept in s."t$search$<index_name>" (storage_name),
-- a table of t's owner that every write of t keeps exact in the writing
-- transaction (src/search/search_write.c, from the write point).
CREATE TABLE ots.search_indexes (
	schema_name name NOT NULL,
	table_name name NOT NULL,
	index_name text NOT NULL,
	storage_name name NOT NULL,
	index_schema jsonb NOT NULL,
	-- seconds, -1 forever
	time_to_live bigint NOT NULL,
	created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	-- FULL while a background build fills it (ots.build_search_index), then INCR
	sync_phase text NOT NULL DEFAULT 'INCR' CHECK (sync_phase IN ('FULL', 'INCR')),
	-- the index made from this one (source_index_name), or the one this was made from
	brother_index_name text,
	-- the searches of this index that its brother answers: [{"index_name", "weight"}, ...]
	query_flow_weights jsonb,
	PRIMARY KEY (schema_name, table_name, index_name),
	UNIQUE (schema_name, storage_name)
);
COMMENT ON TABLE ots.search_indexes IS 'the search indexes of ots tables (see ots.describe_search_index)';
-- each role reads the rows of the tables it may see; only the functions
-- below write, as the owner of ots.search_indexes (src/ddl/search_catalog.c)
ALTER TABLE ots.search_indexes ENABLE ROW LEVEL SECURITY;
CREATE POLICY search_indexes_read ON ots.search_indexes FOR SELECT
	USING (ots.table_visible(schema_name, table_name));
GRANT SELECT ON ots.search_indexes TO PUBLIC;

CREATE FUNCTION ots.catalog_insert_search_index(schema_name name, table_name name, index_name text,
												index_schema jsonb, time_to_live bigint, building boolean,
												source_index_name text) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_insert_search_index' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_insert_search_index(name, name, text, jsonb, bigint, boolean, text) IS
	'registers the search index whose storage the caller made, of a table the caller owns, to be filled in the background when building, made from source_index_name when not NULL (internal; create_search_index)';
CREATE FUNCTION ots.catalog_set_search_index_flow(schema_name name, table_name name, index_name text,
												  query_flow_weights jsonb) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_set_search_index_flow' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_set_search_index_flow(name, name, text, jsonb) IS
	'sets how the searches of a search index of a table the caller owns go to it and to its brother (internal; update_search_index)';
CREATE FUNCTION ots.catalog_switch_search_index(schema_name name, table_name name, index_name text,
												switch_index_name text) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_switch_search_index' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_switch_search_index(name, name, text, text) IS
	'exchanges the names of a search index of a table the caller owns and of its brother, storages included (internal; update_search_index)';
CREATE FUNCTION ots.catalog_set_search_index_built(schema_name name, table_name name, index_name text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_catalog_set_search_index_built' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_set_search_index_built(name, name, text) IS
	'marks a search index of a table the caller owns built in the background complete (sync phase INCR); false when it was (internal; build_search_index)';
CREATE FUNCTION ots.catalog_set_search_index_ttl(schema_name name, table_name name, index_name text,
												 time_to_live bigint) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_set_search_index_ttl' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_set_search_index_ttl(name, name, text, bigint) IS
	'sets the TTL of a search index of a table the caller owns (internal; update_search_index)';
CREATE FUNCTION ots.catalog_delete_search_index(schema_name name, table_name name, index_name text) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_catalog_delete_search_index' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.catalog_delete_search_index(name, name, text) IS
	'forgets a search index of a table the caller owns (internal; delete_search_index)';

-- ots.forget_dropped_search_indexes: in an sql_drop event trigger
-- (ots.storage_dropped), the search indexes the current DROP took away:
-- those of a table whose view or storage went, returned with the owner of
-- that table so their storage goes too, and one whose storage went, whose
-- table every session reloads.  SECURITY DEFINER (it writes
-- ots.search_indexes), and only for relations of the table's owner.
CREATE FUNCTION ots.forget_dropped_search_indexes() RETURNS TABLE (schema_name name, storage_name name, owner oid)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	d record;
	s record;
BEGIN
	FOR d IN SELECT o.objid, o.object_type, o.schema_name AS nsp, o.object_name AS rel
			   FROM pg_event_trigger_dropped_objects() o
			  WHERE o.classid = 'pg_class'::regclass AND o.objsubid = 0 AND NOT o.is_temporary
				AND o.object_type IN ('table', 'view')
				-- a view ots.sync_table_view makes again is not its table dropped
				AND o.objid <> ots.view_replaced()
	LOOP
		FOR s IN DELETE FROM ots.search_indexes x
				  WHERE x.schema_name = d.nsp
					AND ((d.object_type = 'view' AND x.table_name = d.rel)
						 OR (d.object_type = 'table' AND x.table_name || '$data' = d.rel))
					AND ots.relation_owner(d.nsp, d.rel) = ots.relation_owner(x.schema_name, x.table_name || '$data')
				 RETURNING x.schema_name, x.table_name, x.storage_name
		LOOP
			schema_name := s.schema_name;
			storage_name := s.storage_name;
			owner := ots.relation_owner(s.schema_name, s.table_name || '$data');
			RETURN NEXT;
		END LOOP;
		FOR s IN DELETE FROM ots.search_indexes x
				  WHERE d.object_type = 'table' AND x.schema_name = d.nsp AND x.storage_name = d.rel
					AND ots.relation_owner(d.nsp, d.rel) = ots.relation_owner(x.schema_name, x.table_name || '$data')
				 RETURNING x.schema_name, x.table_name, x.index_name
		LOOP
			-- its brother has none now, nor searches going to it
			UPDATE ots.search_indexes y SET brother_index_name = NULL, query_flow_weights = NULL
			 WHERE y.schema_name = s.schema_name AND y.table_name = s.table_name AND y.brother_index_name = s.index_name;
			PERFORM ots.catalog_index_forgotten(s.schema_name, s.table_name);
		END LOOP;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.forget_dropped_search_indexes() IS
	'in an sql_drop event trigger: forgets the search indexes whose table or storage was dropped (internal)';

CREATE FUNCTION ots.search_storage_name(table_name name, index_name text) RETURNS name
	AS 'MODULE_PATHNAME', 'ots_search_storage_name' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.search_storage_name(name, text) IS
	'the relation a search index of a table is kept in, beside the table''s storage (internal)';
CREATE FUNCTION ots.search_schema_check(schema_name name, table_name name, index_schema jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'ots_search_schema_check' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.search_schema_check(name, name, jsonb) IS
	'a search index schema for a table the caller owns, checked, with every default filled in (internal)';
CREATE FUNCTION ots.search_storage_create(schema_name name, table_name name, storage_name name,
										  index_schema jsonb) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_search_storage_create' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.search_storage_create(name, name, name, jsonb) IS
	'makes the storage of a search index of a table the caller owns (internal; create_search_index)';
CREATE FUNCTION ots.search_backfill(schema_name name, table_name name, storage_name name) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_search_backfill' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.search_backfill(name, name, name) IS
	'writes the entries of a table''s rows into its new search index, the table''s writers waited out (internal; create_search_index)';
CREATE FUNCTION ots.search_backfill_batch(storage regclass, leaf regclass, first_block bigint, nblocks integer,
										  seen_filenode oid, OUT next_block bigint, OUT filenode oid)
	AS 'MODULE_PATHNAME', 'ots_search_backfill_batch' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.search_backfill_batch(regclass, regclass, bigint, integer, oid) IS
	'writes the entries of the rows in a range of blocks of a leaf of a table into its search index being built (kept in storage), but of rows whose writers put theirs (internal; build_search_index)';
CREATE FUNCTION ots.search_build_launch(storage regclass) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_search_build_launch' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.search_build_launch(regclass) IS
	'has the build worker of the owner of the search index kept in storage start when the transaction that creates the index commits (internal)';

-- ots.build_in_batches: a build's steps in this session, each committed
-- (what the build worker does, src/index/index_build.c): begin_query gives
-- the leaves (once the writers that do not keep the index have ended),
-- batch_query ($1 leaf, $2 first block, $3 file node seen) one batch, until
-- its next block is null, then end_query lets the index answer
CREATE PROCEDURE ots.build_in_batches(begin_query text, batch_query text, end_query text)
	LANGUAGE plpgsql
	AS $$
DECLARE
	leaf pg_catalog.text;
	b pg_catalog.record;
BEGIN
	FOR leaf IN EXECUTE begin_query LOOP
		COMMIT;
		SELECT 0::pg_catalog.int8 AS next_block, 0::pg_catalog.oid AS filenode INTO b;
		LOOP
			EXECUTE batch_query INTO b USING leaf, b.next_block, b.filenode;
			COMMIT;
			EXIT WHEN b.next_block IS NULL;
		END LOOP;
	END LOOP;
	EXECUTE end_query;
	COMMIT;
END
$$;
COMMENT ON PROCEDURE ots.build_in_batches(text, text, text) IS
	'runs an index build''s steps in committed batches (internal; build_index, build_search_index)';

-- ots.build_index: builds an index in this session, in committed batches
-- (what the background worker create_index starts does)
CREATE OR REPLACE PROCEDURE ots.build_index(table_name text, index_name text)
	LANGUAGE plpgsql
	AS $$
DECLARE
	t pg_catalog.record;
	i ots.tables;
BEGIN
	SELECT r.schema_name, r.table_name INTO t FROM ots.resolve_name(table_name, false) r;
	i := ots.index_of(t.schema_name, t.table_name, index_name);
	PERFORM ots.require_owner(i.schema_name, i.table_name, i.index_of);
	-- fails here, inside a transaction block
	COMMIT;
	CALL ots.build_in_batches(
		pg_catalog.format('SELECT l FROM ots.index_build_begin(%L, %L) l', i.schema_name, i.table_name),
		pg_catalog.format('SELECT r.next_block, r.filenode FROM ots.index_backfill_batch(%L, %L,'
						  ' pg_catalog.to_regclass($1), $2, ots.index_build_blocks(), $3) r', i.schema_name, i.table_name),
		pg_catalog.format('SELECT ots.index_build_end(%L, %L)', i.schema_name, i.table_name));
END
$$;
COMMENT ON PROCEDURE ots.build_index(text, text) IS
	'fills a secondary index created on a table with rows, in committed batches, and lets it answer reads';

-- ots.search_building: the search index kept in storage while it is being
-- built; none once built, or when the storage holds another index now
-- (deleted and made again: a build knows its index by its storage's OID)
CREATE FUNCTION ots.search_building(storage regclass) RETURNS SETOF ots.search_indexes
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT i.* FROM ots.search_indexes i
	  JOIN pg_catalog.pg_namespace n ON n.nspname = i.schema_name
	  JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = i.storage_name
	 WHERE c.oid = $1 AND i.sync_phase = 'FULL'
$$;
COMMENT ON FUNCTION ots.search_building(regclass) IS 'the search index kept in a storage while it is being built (internal)';

-- ots.search_build_lock: the search index kept in storage while it is being
-- built, its table locked SHARE (the writers that did not know the index
-- have finished; a delete or a new index of the table, which lock it first,
-- waits or has ended); NULL when it is built or gone
CREATE FUNCTION ots.search_build_lock(storage regclass) RETURNS ots.search_indexes
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	s ots.search_indexes;
BEGIN
	SELECT * INTO s FROM ots.search_building(storage);
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	PERFORM ots.require_owner(s.schema_name, s.table_name, s.table_name);
	EXECUTE format('LOCK TABLE %I.%I IN SHARE MODE', s.schema_name, s.table_name || '$data');
	-- looked up again: a delete may have committed while this waited
	SELECT * INTO s FROM ots.search_building(storage);
	RETURN s;
END
$$;
COMMENT ON FUNCTION ots.search_build_lock(regclass) IS
	'the search index kept in a storage while it is being built, its table''s writers waited out (internal)';

-- ots.search_build_begin: the leaves to backfill; none when the index is built or gone
CREATE FUNCTION ots.search_build_begin(storage regclass) RETURNS SETOF text
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT l.leaf FROM ots.search_build_lock($1) s, ots.purge_leaves(s.schema_name, s.table_name) AS l(leaf)
	 WHERE s.schema_name IS NOT NULL
$$;
COMMENT ON FUNCTION ots.search_build_begin(regclass) IS
	'waits out the writers of a search index''s table that may not maintain it; its leaves to backfill (internal)';

-- ots.search_build_end: the search index answers searches
CREATE FUNCTION ots.search_build_end(storage regclass) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT ots.catalog_set_search_index_built(s.schema_name, s.table_name, s.index_name)
	  FROM ots.search_build_lock($1) s
	 WHERE s.schema_name IS NOT NULL
$$;
COMMENT ON FUNCTION ots.search_build_end(regclass) IS 'marks a search index built in the background complete (internal)';

-- ots.build_search_index: builds a search index in this session, in
-- committed batches (what the background worker create_search_index starts
-- for a large table does)
CREATE PROCEDURE ots.build_search_index(table_name text, index_name text)
	LANGUAGE plpgsql
	AS $$
DECLARE
	t pg_catalog.record;
	s ots.search_indexes;
	storage pg_catalog.oid;
BEGIN
	SELECT r.schema_name, r.table_name INTO t FROM ots.resolve_name(table_name, false) r;
	s := ots.search_index_of(t.schema_name, t.table_name, index_name);
	PERFORM ots.require_owner(s.schema_name, s.table_name, s.table_name);
	-- the index by its storage's OID: one deleted and made again meanwhile is not this one
	storage := pg_catalog.format('%I.%I', s.schema_name, s.storage_name)::pg_catalog.regclass::pg_catalog.oid;
	-- fails here, inside a transaction block
	COMMIT;
	CALL ots.build_in_batches(
		pg_catalog.format('SELECT l FROM ots.search_build_begin(%s::pg_catalog.regclass) l', storage),
		pg_catalog.format('SELECT r.next_block, r.filenode FROM ots.search_backfill_batch(%s::pg_catalog.regclass,'
						  ' pg_catalog.to_regclass($1), $2, ots.index_build_blocks(), $3) r', storage),
		pg_catalog.format('SELECT ots.search_build_end(%s::pg_catalog.regclass)', storage));
END
$$;
COMMENT ON PROCEDURE ots.build_search_index(text, text) IS
	'fills a search index create_search_index left building (sync phase FULL), in committed batches, and lets it answer searches';

-- ots.search_check_options: the options a table with search indexes, or
-- one about to get one, must have (Tablestore's rule: max_versions 1, and
-- no TTL or no updates), and its search indexes' TTLs within the table's
CREATE FUNCTION ots.search_check_options(schema_name name, table_name name, max_versions integer,
										 time_to_live bigint, allow_update boolean) RETURNS void
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	longer text;
BEGIN
	IF max_versions <> 1 THEN
		PERFORM ots.raise('OTSParameterInvalid', 'The max version of table with search index must be 1.',
						  format('max_versions would be %s.', max_versions));
	END IF;
	IF time_to_live <> -1 AND allow_update THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  'Don''t support allow update operation on table with search index and ttl.',
						  'A table with search indexes must have time_to_live -1 or allow_update false.');
	END IF;
	IF time_to_live <> -1 THEN
		SELECT s.index_name INTO longer FROM ots.search_indexes s
		 WHERE s.schema_name = $1 AND s.table_name = $2 AND (s.time_to_live = -1 OR s.time_to_live > $4)
		 ORDER BY s.index_name COLLATE "C" LIMIT 1;
		IF FOUND THEN
			PERFORM ots.raise('OTSParameterInvalid',
							  'The ttl of search index must be smaller than or equal to the ttl of table.',
							  format('Search index %s would keep rows longer than the table''s time_to_live %s: lower its time_to_live first (ots.update_search_index).',
									 quote_ident(longer), time_to_live));
		END IF;
	END IF;
END
$$;
COMMENT ON FUNCTION ots.search_check_options(name, name, integer, bigint, boolean) IS
	'refuses options a table with search indexes cannot have (internal)';

-- ots.search_index_of: the catalog row of search index index_name of table
-- schema.table_name; OTSObjectNotExist when there is none the caller may see
CREATE FUNCTION ots.search_index_of(schema_name name, table_name name, index_name text) RETURNS ots.search_indexes
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	s ots.search_indexes;
BEGIN
	IF index_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter index_name is missing.', 'index_name must not be NULL.');
	END IF;
	SELECT * INTO s FROM ots.search_indexes o
	 WHERE o.schema_name = $1 AND o.table_name = $2 AND o.index_name = $3;
	IF NOT FOUND THEN
		PERFORM ots.raise('OTSObjectNotExist', format('search index [%s] does not exist', index_name),
						  format('Table %I.%I has no search index %s.', schema_name, table_name, quote_ident(index_name)));
	END IF;
	RETURN s;
END
$$;
COMMENT ON FUNCTION ots.search_index_of(name, name, text) IS 'a search index of an ots table (internal)';

-- ots.search_check_ttl: Tablestore's rule for a search index's TTL on table t
CREATE FUNCTION ots.search_check_ttl(t ots.tables, time_to_live bigint) RETURNS void
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF time_to_live IS NULL OR (time_to_live <> -1 AND time_to_live < ots.limit('min_search_time_to_live'))
	   OR time_to_live > ots.limit('max_time_to_live') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('Invalid time_to_live: %s.', coalesce(time_to_live::text, 'NULL')),
						  format('A search index''s time_to_live is -1 (forever) or %s to %s seconds.',
								 ots.limit('min_search_time_to_live'), ots.limit('max_time_to_live')));
	END IF;
	IF time_to_live <> -1 AND t.allow_update THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  'Don''t support allow update operation on table with search index and ttl.',
						  'A search index has a time_to_live only on a table with allow_update false.');
	END IF;
	IF t.time_to_live <> -1 AND (time_to_live = -1 OR time_to_live > t.time_to_live) THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  'The ttl of search index must be smaller than or equal to the ttl of table.',
						  format('The table''s time_to_live is %s.', t.time_to_live));
	END IF;
END
$$;
COMMENT ON FUNCTION ots.search_check_ttl(ots.tables, bigint) IS 'refuses a TTL a search index cannot have (internal)';

CREATE FUNCTION ots.create_search_index_internal(schema_name name, table_name name, index_name text,
												 index_schema jsonb, time_to_live bigint,
												 source_index_name text DEFAULT NULL) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t ots.tables;
	storage name;
	schema jsonb;
	owner_name text;
	building boolean;
BEGIN
	IF index_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter index_name is missing.', 'index_name must not be NULL.');
	END IF;
	IF index_schema IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter index_schema is missing.', 'index_schema must not be NULL.');
	END IF;
	-- a search index's name follows Tablestore's rule for table names
	PERFORM ots.resolve_name(format('%I.%s', schema_name, index_name), true);
	-- one change of the table's definition at a time; readers and writers go on
	t := ots.ddl_table(schema_name, table_name, 'Can''t create search index on an index table.');
	storage := ots.search_storage_name(t.table_name, index_name);
	IF EXISTS (SELECT 1 FROM ots.search_indexes s
				WHERE s.schema_name = t.schema_name AND s.table_name = t.table_name AND s.index_name = $3) THEN
		PERFORM ots.raise('OTSObjectAlreadyExist', 'Requested search index already exists.');
	END IF;
	IF to_regclass(format('%I.%I', t.schema_name, storage)) IS NOT NULL THEN
		PERFORM ots.raise('OTSObjectAlreadyExist', 'Requested search index already exists.',
						  format('A relation named %I.%I already exists.', t.schema_name, storage));
	END IF;
	IF (SELECT count(*) FROM ots.search_indexes s WHERE s.schema_name = t.schema_name AND s.table_name = t.table_name)
	   >= ots.limit('max_search_indexes') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('Number of search index per table exceeds the quota:%s.', ots.limit('max_search_indexes')));
	END IF;
	PERFORM ots.search_check_options(t.schema_name, t.table_name, t.max_versions, t.time_to_live, t.allow_update);
	PERFORM ots.search_check_ttl(t, time_to_live);
	schema := ots.search_schema_check(t.schema_name, t.table_name, index_schema);
	PERFORM ots.search_storage_create(t.schema_name, t.table_name, storage, schema);
	-- the index is its table's owner's, whoever (a member of that role) made it
	SELECT c.relowner::regrole::text INTO owner_name FROM pg_class c
	 WHERE c.oid = format('%I.%I', t.schema_name, t.table_name || '$data')::regclass;
	IF owner_name <> current_user THEN
		EXECUTE format('ALTER TABLE %I.%I OWNER TO %s', t.schema_name, storage, owner_name);
	END IF;
	-- a table up to ots.search_backfill_blocks (its leaves and its split rows' chunks) is
	-- filled now, a larger one in the background
	SELECT (coalesce(sum(pg_relation_size(l.leaf::regclass)), 0)
			+ coalesce(pg_relation_size(to_regclass(format('%I.%I', t.schema_name, t.table_name || '$chunk'))), 0))
		   / current_setting('block_size')::bigint > current_setting('ots.search_backfill_blocks')::bigint
	  INTO building FROM ots.purge_leaves(t.schema_name, t.table_name) AS l(leaf);
	-- from this commit on, every writer of the table keeps the index
	PERFORM ots.catalog_insert_search_index(t.schema_name, t.table_name, index_name, schema, time_to_live, building,
											source_index_name);
	IF building THEN
		PERFORM ots.search_build_launch(format('%I.%I', t.schema_name, storage)::regclass);
	ELSE
		-- the writers that do not know the index finish first; then its rows are written
		PERFORM ots.search_backfill(t.schema_name, t.table_name, storage);
	END IF;
END
$$;
COMMENT ON FUNCTION ots.create_search_index_internal(name, name, text, jsonb, bigint, text) IS
	'creates a search index of a resolved ots table (internal; call ots.create_search_index)';

CREATE FUNCTION ots.create_search_index(table_name text, index_name text, index_schema jsonb,
										time_to_live bigint DEFAULT -1, source_index_name text DEFAULT NULL)
	RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.create_search_index_internal(r.schema_name, r.table_name, index_name, index_schema, time_to_live,
											source_index_name)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.create_search_index(text, text, jsonb, bigint, text) IS
	'creates a search index (Tablestore''s IndexSchema as jsonb): a table of the indexed fields beside the table''s storage, filled from its rows and kept exact by every write in the writing transaction';

CREATE FUNCTION ots.describe_search_index_internal(schema_name name, table_name name, index_name text)
	RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	s ots.search_indexes;
BEGIN
	s := ots.search_index_of(schema_name, table_name, index_name);
	RETURN jsonb_build_object(
		'schema', s.index_schema,
		-- kept in the writing transaction: synchronised up to now, once any
		-- background build (FULL) has ended
		'sync_stat', jsonb_build_object('sync_phase', s.sync_phase,
										'current_sync_timestamp',
										(extract(epoch FROM clock_timestamp()) * 1000000)::bigint * 1000),
		'index_status', jsonb_build_object('status', 'RUNNING', 'status_description', ''),
		'time_to_live', s.time_to_live,
		'brother_index_name', s.brother_index_name,
		'query_flow_weights', coalesce(s.query_flow_weights, '[]'),
		'create_time', (extract(epoch FROM s.created_at) * 1000000)::bigint,
		'metering_info', jsonb_build_object(
			'storage_size', pg_total_relation_size(format('%I.%I', s.schema_name, s.storage_name)::regclass),
			'row_count', (SELECT greatest(c.reltuples, 0)::bigint FROM pg_class c
						   WHERE c.oid = format('%I.%I', s.schema_name, s.storage_name)::regclass)));
END
$$;
COMMENT ON FUNCTION ots.describe_search_index_internal(name, name, text) IS
	'describes a search index of a resolved ots table (internal; call ots.describe_search_index)';

CREATE FUNCTION ots.describe_search_index(table_name text, index_name text) RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT ots.describe_search_index_internal(r.schema_name, r.table_name, index_name)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.describe_search_index(text, text) IS
	'a search index''s schema (every default filled in), sync phase and timestamp, status, TTL, creation time (microseconds) and size';

CREATE FUNCTION ots.list_search_index_internal(schema_name name, table_name name)
	RETURNS TABLE (schema_name name, table_name name, index_name text)
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT s.schema_name, s.table_name, s.index_name FROM ots.search_indexes s
	 WHERE $1 IS NULL OR (s.schema_name = $1 AND s.table_name = $2)
	 ORDER BY s.schema_name COLLATE "C", s.table_name COLLATE "C", s.index_name COLLATE "C"
$$;
COMMENT ON FUNCTION ots.list_search_index_internal(name, name) IS
	'the search indexes of a resolved ots table, or of every table the caller may see (NULLs) (internal; call ots.list_search_index)';
-- the table named is resolved first, whatever indexes exist: a missing one is OTSObjectNotExist
CREATE FUNCTION ots.list_search_index(of_table text DEFAULT NULL)
	RETURNS TABLE (schema_name name, table_name name, index_name text)
	LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
	SELECT l.schema_name, l.table_name, l.index_name FROM ots.list_search_index_internal(NULL, NULL) l
	 WHERE of_table IS NULL
	UNION ALL
	SELECT l.schema_name, l.table_name, l.index_name
	  FROM ots.resolve_name(of_table, false) r, LATERAL ots.list_search_index_internal(r.schema_name, r.table_name) l
	 WHERE of_table IS NOT NULL;
END;
COMMENT ON FUNCTION ots.list_search_index(text) IS
	'the search indexes of ots table of_table, or of every table the caller may see (NULL)';

CREATE FUNCTION ots.delete_search_index_internal(schema_name name, table_name name, index_name text) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	s ots.search_indexes;
BEGIN
	PERFORM ots.ddl_table(schema_name, table_name, 'Can''t delete search index of an index table.');
	s := ots.search_index_of(schema_name, table_name, index_name);
	-- writers of the table that still maintain the index finish first; later ones reload the table
	EXECUTE format('LOCK TABLE %I.%I IN SHARE MODE', schema_name, table_name || '$data');
	PERFORM ots.catalog_delete_search_index(s.schema_name, s.table_name, s.index_name);
	EXECUTE format('DROP TABLE %I.%I', s.schema_name, s.storage_name);
END
$$;
COMMENT ON FUNCTION ots.delete_search_index_internal(name, name, text) IS
	'drops a search index of a resolved ots table (internal; call ots.delete_search_index)';

CREATE FUNCTION ots.delete_search_index(table_name text, index_name text) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.delete_search_index_internal(r.schema_name, r.table_name, index_name)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.delete_search_index(text, text) IS 'drops a search index of an ots table';

CREATE FUNCTION ots.update_search_index_internal(schema_name name, table_name name, index_name text,
												 time_to_live bigint, switch_index_name text DEFAULT NULL,
												 query_flow_weights jsonb DEFAULT NULL) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t ots.tables;
	s ots.search_indexes;
BEGIN
	t := ots.ddl_table(schema_name, table_name, 'Can''t update search index of an index table.');
	s := ots.search_index_of(schema_name, table_name, index_name);
	IF num_nonnulls(time_to_live, switch_index_name, query_flow_weights) = 0 THEN
		PERFORM ots.raise('OTSParameterInvalid', 'No parameter is specified in search index options.',
						  'update_search_index changes time_to_live, query_flow_weights or switches to switch_index_name.');
	END IF;
	IF num_nonnulls(time_to_live, switch_index_name, query_flow_weights) > 1 THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Only one of time_to_live, switch_index_name and query_flow_weights can be set at a time.');
	END IF;
	IF time_to_live IS NOT NULL THEN
		PERFORM ots.search_check_ttl(t, time_to_live);
		PERFORM ots.catalog_set_search_index_ttl(s.schema_name, s.table_name, s.index_name, time_to_live);
	ELSIF query_flow_weights IS NOT NULL THEN
		PERFORM ots.catalog_set_search_index_flow(s.schema_name, s.table_name, s.index_name, query_flow_weights);
	ELSE
		-- its writers and the searches of either index end first (search_catalog.c)
		PERFORM ots.catalog_switch_search_index(s.schema_name, s.table_name, s.index_name, switch_index_name);
	END IF;
END
$$;
COMMENT ON FUNCTION ots.update_search_index_internal(name, name, text, bigint, text, jsonb) IS
	'changes the TTL of a search index of a resolved ots table, how its searches go to its brother, or switches it with its brother (internal; call ots.update_search_index)';

CREATE FUNCTION ots.update_search_index(table_name text, index_name text, time_to_live bigint DEFAULT NULL,
										switch_index_name text DEFAULT NULL, query_flow_weights jsonb DEFAULT NULL)
	RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.update_search_index_internal(r.schema_name, r.table_name, index_name, time_to_live, switch_index_name,
											query_flow_weights)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.update_search_index(text, text, bigint, text, jsonb) IS
	'changes the time_to_live of a search index, how its searches go to the index made from it (query_flow_weights), or switches the two (switch_index_name)';

-- ---------------------------------------------------------------------
-- searching (src/search/search_query.c, search_exec.c)
-- ---------------------------------------------------------------------

CREATE FUNCTION ots.search_phrase(tokens text[], positions integer[], words text[], offsets integer[])
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_search_phrase' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION ots.search_phrase(text[], integer[], text[], integer[]) IS
	'whether words stand at some position plus their offsets among tokens at positions, null positions being 0, 1, 2, ... (a match_phrase_query''s check; internal)';
CREATE FUNCTION ots.search_match(value text, query text, analyzer text DEFAULT 'single_word',
								 analyzer_parameter jsonb DEFAULT NULL) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_search_match' LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION ots.search_match(text, text, text, jsonb) IS
	'whether a text holds every token of a query as an analyzer (single_word, split, fuzzy, min_word, max_word) cuts both: full-text matching, which a WHERE on a table''s view with a search index on that column plans through the index';
CREATE FUNCTION ots.search_match_tokens(query text, analyzer text, analyzer_parameter jsonb) RETURNS text[]
	AS 'MODULE_PATHNAME', 'ots_search_match_tokens' LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION ots.search_match_tokens(text, text, jsonb) IS
	'the distinct tokens an analyzer makes of a query, which every row ots.search_match holds of has in its search index (internal)';
CREATE FUNCTION ots.search_bm25(tokens text[], query text[], df double precision[], n bigint,
								avgdl double precision) RETURNS double precision
	AS 'MODULE_PATHNAME', 'ots_search_bm25' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.search_bm25(text[], text[], double precision[], bigint, double precision) IS
	'the BM25 score of a TEXT field holding tokens for a query''s distinct tokens, df rows of n holding each, fields of avgdl tokens on average (a score_sort''s; internal)';
CREATE FUNCTION ots.search_geo_distance(a point, b point) RETURNS double precision
	AS 'MODULE_PATHNAME', 'ots_search_geo_distance' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.search_geo_distance(point, point) IS
	'the great-circle distance in meters between two points kept as a search index keeps them (x longitude, y latitude) (internal; geo_distance queries, sorts and aggregations)';
CREATE FUNCTION ots.search_geohash(p point, chars integer) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_search_geohash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.search_geohash(point, integer) IS
	'the geohash of 1 to 12 characters of a point kept as a search index keeps it (x longitude, y latitude) (internal; geo_grid group-bys)';
CREATE FUNCTION ots.search_score_bound(x double precision) RETURNS double precision
	AS 'MODULE_PATHNAME', 'ots_search_score_bound' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.search_score_bound(double precision) IS
	'x within [-1e150, 1e150], 0 nearer 0 than 1e-150: a function score''s values kept where double arithmetic raises no error (internal)';
CREATE FUNCTION ots.search_highlight(value text, spec jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'ots_search_highlight' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.search_highlight(text, jsonb) IS
	'the fragments of a TEXT field''s value holding a search''s terms, the terms wrapped in tags (spec: the field''s analyzer, terms and highlight parameters; internal; a search''s highlight)';
CREATE FUNCTION ots.search_keys(schema_name name, table_name name, index_name text, search_query jsonb,
								for_merge boolean DEFAULT false)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'ots_search_keys' LANGUAGE C STABLE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.search_keys(name, name, text, jsonb, boolean) IS
	'the keys of a page of a search, its total count and next token; for_merge, a shard''s part of a cluster''s search (internal; ots.search)';

-- ots.search_read_columns: rows (a jsonb array of objects with a
-- primary_key) each with its attributes read as ots.get_row reads them
-- (names: the columns, NULL for all), its other members kept
CREATE FUNCTION ots.search_read_columns(schema_name name, table_name name, rows jsonb, names text[])
	RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	RETURN (SELECT coalesce(jsonb_agg(k.r || jsonb_build_object('attributes', coalesce(g.attributes, '{}')) ORDER BY k.n), '[]')
			  FROM jsonb_array_elements(rows) WITH ORDINALITY AS k(r, n)
			  -- the table as ots's table-name arguments take it: the schema quoted, the name as it is
			  LEFT JOIN LATERAL ots.get_row(quote_ident(schema_name) || '.' || table_name, k.r -> 'primary_key',
											columns_to_get => names) g ON true);
COMMENT ON FUNCTION ots.search_read_columns(name, name, jsonb, text[]) IS
	'a search''s rows with their columns read (internal; ots.search)';

-- ots.search_read_highlights: a search's rows, each with its "highlight"
-- ({"field": [fragments]}, the fields whose values hold terms) when one of
-- them does; the values read as ots.get_row reads them
CREATE FUNCTION ots.search_read_highlights(schema_name name, table_name name, rows jsonb, fields jsonb)
	RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	RETURN (SELECT coalesce(jsonb_agg(CASE WHEN h.highlight IS NULL THEN k.r ELSE k.r || jsonb_build_object('highlight', h.highlight) END
									  ORDER BY k.n), '[]')
			  FROM jsonb_array_elements(rows) WITH ORDINALITY AS k(r, n)
			  LEFT JOIN LATERAL ots.get_row(quote_ident(schema_name) || '.' || table_name, k.r -> 'primary_key',
											columns_to_get => ARRAY(SELECT f ->> 'field_name' FROM jsonb_array_elements(fields) f)) g ON true
			  LEFT JOIN LATERAL (SELECT jsonb_object_agg(f ->> 'field_name', x.fragments) AS highlight
								   FROM jsonb_array_elements(fields) f,
										LATERAL ots.search_highlight(g.attributes ->> (f ->> 'field_name'), f) AS x(fragments)
								  WHERE jsonb_typeof(g.attributes -> (f ->> 'field_name')) = 'string'
									AND jsonb_array_length(x.fragments) > 0) h ON true);
COMMENT ON FUNCTION ots.search_read_highlights(name, name, jsonb, jsonb) IS
	'a search''s rows with the fragments of their highlighted fields (internal; ots.search)';

-- ots.search_inner_highlights: inner hits (a list of {"path", "hits":
-- [{"offset", "inner_hits"}]}) with each document's "highlight" by specs
-- ({path: [highlight specs]}); container holds each path's documents: a
-- row's attributes (a NESTED cell's JSON text) or an outer document
CREATE FUNCTION ots.search_inner_highlights(container jsonb, inner_hits jsonb, specs jsonb)
	RETURNS jsonb
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	result jsonb := '[]';
	list jsonb;
	hit jsonb;
	hits jsonb;
	docs jsonb;
	doc jsonb;
	spec jsonb;
	fragments jsonb;
	highlight jsonb;
BEGIN
	FOR list IN SELECT * FROM jsonb_array_elements(inner_hits) LOOP
		-- documents only where there are hits: the index parsed those values, so they parse
		IF jsonb_array_length(list -> 'hits') = 0 THEN
			result := result || jsonb_build_array(list);
			CONTINUE;
		END IF;
		docs := container -> regexp_replace(list ->> 'path', '^.*[.]', '');
		IF jsonb_typeof(docs) = 'string' THEN
			docs := (docs #>> '{}')::jsonb;
		END IF;
		hits := '[]';
		FOR hit IN SELECT * FROM jsonb_array_elements(list -> 'hits') LOOP
			doc := docs -> (hit ->> 'offset')::int;
			highlight := '{}';
			FOR spec IN SELECT * FROM jsonb_array_elements(coalesce(specs -> (list ->> 'path'), '[]')) LOOP
				IF jsonb_typeof(doc -> (spec ->> 'doc_field')) = 'string' THEN
					fragments := ots.search_highlight(doc ->> (spec ->> 'doc_field'), spec);
					IF jsonb_array_length(fragments) > 0 THEN
						highlight := highlight || jsonb_build_object(spec ->> 'field_name', fragments);
					END IF;
				END IF;
			END LOOP;
			IF highlight <> '{}' THEN
				hit := hit || jsonb_build_object('highlight', highlight);
			END IF;
			IF jsonb_array_length(hit -> 'inner_hits') > 0 AND jsonb_typeof(doc) = 'object' THEN
				hit := jsonb_set(hit, '{inner_hits}', ots.search_inner_highlights(doc, hit -> 'inner_hits', specs));
			END IF;
			hits := hits || jsonb_build_array(hit);
		END LOOP;
		result := result || jsonb_build_array(jsonb_set(list, '{hits}', hits));
	END LOOP;
	RETURN result;
END
$$;
COMMENT ON FUNCTION ots.search_inner_highlights(jsonb, jsonb, jsonb) IS
	'inner hits with their documents'' highlights (internal; ots.search)';

-- ots.search_read_inner_highlights: a search's rows with their inner hits'
-- documents highlighted, the NESTED fields read as ots.get_row reads them
CREATE FUNCTION ots.search_read_inner_highlights(schema_name name, table_name name, rows jsonb, specs jsonb)
	RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	RETURN (SELECT coalesce(jsonb_agg(CASE WHEN g.attributes IS NULL THEN k.r
										   ELSE jsonb_set(k.r, '{inner_hits}', ots.search_inner_highlights(g.attributes, k.r -> 'inner_hits', specs)) END
									  ORDER BY k.n), '[]')
			  FROM jsonb_array_elements(rows) WITH ORDINALITY AS k(r, n)
			  LEFT JOIN LATERAL ots.get_row(quote_ident(schema_name) || '.' || table_name, k.r -> 'primary_key',
											columns_to_get => ARRAY(SELECT DISTINCT split_part(p, '.', 1) FROM jsonb_object_keys(specs) p)) g
					 ON jsonb_path_exists(k.r, '$.inner_hits[*].hits[0]'));
COMMENT ON FUNCTION ots.search_read_inner_highlights(name, name, jsonb, jsonb) IS
	'a search''s rows with their inner hits'' documents highlighted (internal; ots.search)';

-- ots.search_read_top_rows: a search's aggregation and group-by results
-- (node: a list of them, walked down through items, sub_aggs and
-- sub_group_bys) with each top_rows aggregation's rows read as the page's
-- are (names: the columns, NULL for all)
CREATE FUNCTION ots.search_read_top_rows(schema_name name, table_name name, node jsonb, names text[])
	RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	result jsonb;
BEGIN
	IF jsonb_typeof(node) = 'array' THEN
		SELECT coalesce(jsonb_agg(ots.search_read_top_rows(schema_name, table_name, e, names) ORDER BY n), '[]')
		  INTO result FROM jsonb_array_elements(node) WITH ORDINALITY AS x(e, n);
	ELSIF jsonb_typeof(node) <> 'object' THEN
		result := node;
	ELSIF node ->> 'type' = 'top_rows' AND jsonb_typeof(node -> 'rows') = 'array' THEN
		result := jsonb_set(node, '{rows}', ots.search_read_columns(schema_name, table_name, node -> 'rows', names));
	ELSE
		-- a bucket's or group-by's lists; an aggregation's values (a shard's part holds many) kept
		SELECT jsonb_object_agg(m.key, CASE WHEN m.key IN ('items', 'sub_aggs', 'sub_group_bys')
											THEN ots.search_read_top_rows(schema_name, table_name, m.value, names)
											ELSE m.value END)
		  INTO result FROM jsonb_each(node) m;
		result := coalesce(result, node);
	END IF;
	RETURN result;
END
$$;
COMMENT ON FUNCTION ots.search_read_top_rows(name, name, jsonb, text[]) IS
	'a search''s aggregation results with their top rows read with the search''s columns (internal; ots.search)';

-- ots.search_read_rows: a search's page (of ots.search_keys) with its rows
-- read with columns_to_get ({"return_type": RETURN_NONE | RETURN_SPECIFIED
-- | RETURN_ALL | RETURN_ALL_FROM_INDEX, "column_names": [...]}) as
-- ots.get_row reads them, each row's other members kept
CREATE FUNCTION ots.search_read_rows(schema_name name, table_name name, index_name text, page jsonb,
									 columns_to_get jsonb) RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	return_type text := coalesce(columns_to_get ->> 'return_type', 'RETURN_NONE');
	names text[];
BEGIN
	IF columns_to_get IS NOT NULL AND jsonb_typeof(columns_to_get) <> 'object' THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Invalid columns_to_get: it is not an object.',
						  'columns_to_get is {"return_type": "RETURN_SPECIFIED", "column_names": [...]}.');
	END IF;
	-- highlights: each row's value of each field asked, its fragments (ots.search_highlight)
	IF page ? '$highlight' THEN
		page := jsonb_set(page, '{rows}', ots.search_read_highlights(schema_name, table_name, page -> 'rows',
																	  page -> '$highlight')) - '$highlight';
	END IF;
	IF page ? '$inner_highlight' THEN
		IF page -> '$inner_highlight' <> '{}' THEN
			page := jsonb_set(page, '{rows}', ots.search_read_inner_highlights(schema_name, table_name, page -> 'rows',
																			page -> '$inner_highlight'));
		END IF;
		page := page - '$inner_highlight';
	END IF;
	IF return_type = 'RETURN_NONE' THEN
		RETURN page;
	ELSIF return_type = 'RETURN_SPECIFIED' THEN
		IF jsonb_typeof(columns_to_get -> 'column_names') IS DISTINCT FROM 'array'
		   OR jsonb_array_length(columns_to_get -> 'column_names') = 0 THEN
			PERFORM ots.raise('OTSParameterInvalid', 'Missing column_names of columns_to_get.',
							  'RETURN_SPECIFIED names its columns.');
		END IF;
		names := ARRAY(SELECT jsonb_array_elements_text(columns_to_get -> 'column_names'));
	ELSIF return_type = 'RETURN_ALL_FROM_INDEX' THEN
		names := ARRAY(SELECT f ->> 'field_name'
						 FROM ots.search_indexes s, jsonb_array_elements(s.index_schema -> 'field_schemas') f
						WHERE s.schema_name = $1 AND s.table_name = $2 AND s.index_name = $3);
	ELSIF return_type <> 'RETURN_ALL' THEN
		PERFORM ots.raise('OTSParameterInvalid', format('Invalid return_type of columns_to_get: ''%s''.', return_type),
						  'The return_type is RETURN_NONE, RETURN_SPECIFIED, RETURN_ALL or RETURN_ALL_FROM_INDEX.');
	END IF;
	-- "$aggs_only": a cluster's proxy wants the top rows' columns, not the page's (ots_proxy)
	IF (columns_to_get -> '$aggs_only') IS DISTINCT FROM 'true' THEN
		page := jsonb_set(page, '{rows}', ots.search_read_columns(schema_name, table_name, page -> 'rows', names));
	END IF;
	-- top rows carry the columns the page's rows do (Tablestore's), RETURN_NONE their keys alone
	IF jsonb_path_exists(page, 'strict $.**.type ? (@ == "top_rows")') THEN
		IF page ? 'aggs' THEN
			page := jsonb_set(page, '{aggs}', ots.search_read_top_rows(schema_name, table_name, page -> 'aggs', names));
		END IF;
		IF page ? 'group_bys' THEN
			page := jsonb_set(page, '{group_bys}', ots.search_read_top_rows(schema_name, table_name, page -> 'group_bys', names));
		END IF;
	END IF;
	RETURN page;
END
$$;
COMMENT ON FUNCTION ots.search_read_rows(name, name, text, jsonb, jsonb) IS
	'a search''s page with its rows read with columns_to_get (internal; ots.search)';

CREATE FUNCTION ots.search_internal(schema_name name, table_name name, index_name text, search_query jsonb,
									columns_to_get jsonb, for_merge boolean DEFAULT false) RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	RETURN ots.search_read_rows(schema_name, table_name, index_name,
								ots.search_keys(schema_name, table_name, index_name, search_query, for_merge),
								columns_to_get);
COMMENT ON FUNCTION ots.search_internal(name, name, text, jsonb, jsonb, boolean) IS
	'ots.search of a resolved table (internal; call ots.search)';

CREATE FUNCTION ots.search(table_name text, index_name text, search_query jsonb, columns_to_get jsonb DEFAULT NULL)
	RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.search_internal(r.schema_name, r.table_name, index_name, search_query, columns_to_get)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.search(text, text, jsonb, jsonb) IS
	'searches a search index (Tablestore''s SearchQuery as jsonb): a page of rows in order with columns_to_get, the total count when asked, and the next page''s token';

-- ots.search_part and ots.search_part_rows: what a cluster's proxy
-- (ots_proxy, proxy/sql/60_search.sql) asks each shard for: its part of a
-- search (the first offset + limit rows, each with its place in the order,
-- and aggregations that merge; src/search/search_exec.c), then the chosen
-- rows' columns
CREATE FUNCTION ots.search_part(table_name text, index_name text, search_query jsonb, columns_to_get jsonb)
	RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.search_internal(r.schema_name, r.table_name, index_name, search_query, columns_to_get, true)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.search_part(text, text, jsonb, jsonb) IS
	'a shard''s part of a search through a cluster''s proxy: its first offset + limit rows, each with its place in the order, and aggregations in forms that merge (internal; ots_proxy)';
CREATE FUNCTION ots.search_part_rows(table_name text, index_name text, page jsonb, columns_to_get jsonb)
	RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.search_read_rows(r.schema_name, r.table_name, index_name, page, columns_to_get)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.search_part_rows(text, text, jsonb, jsonb) IS
	'rows of a search''s page read with columns_to_get, for a cluster''s proxy (internal; ots_proxy)';

-- ots.search_rows: a search's page of rows as rows of the table's view, in
-- order: SELECT * FROM ots.search_rows(NULL::shop, 'shop_index', '{...}')
CREATE FUNCTION ots.search_rows(table_row anyelement, index_name text, search_query jsonb)
	RETURNS SETOF anyelement
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t ots.tables;
	page jsonb;
	key_match text;
BEGIN
	SELECT o.* INTO t FROM pg_type ty
	  JOIN pg_class c ON c.oid = ty.typrelid
	  JOIN pg_namespace n ON n.oid = c.relnamespace
	  JOIN ots.tables o ON o.schema_name = n.nspname AND o.table_name = c.relname
	 WHERE ty.oid = pg_typeof(table_row) AND c.relkind = 'v' AND o.index_of IS NULL;
	IF NOT FOUND THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('%s is not the row type of an ots table''s view.', pg_typeof(table_row)),
						  'Pass NULL::<table>, the table''s view''s row type.');
	END IF;
	page := ots.search_keys(t.schema_name, t.table_name, index_name, search_query);
	-- each row of the view by its key, in the page's order
	SELECT string_agg(format('v.%I OPERATOR(pg_catalog.=) %s', k.name,
							 CASE k.type WHEN 'INTEGER' THEN format('(p.r #>> %L)::pg_catalog.int8', ARRAY['primary_key', k.name])
										 WHEN 'BINARY' THEN format('pg_catalog.decode(p.r #>> %L, ''base64'')', ARRAY['primary_key', k.name, '$binary'])
										 ELSE format('(p.r #>> %L)', ARRAY['primary_key', k.name]) END), ' AND ')
	  INTO key_match
	  FROM unnest(t.pk_names, t.pk_types) AS k(name, type);
	RETURN QUERY EXECUTE format('SELECT v.* FROM pg_catalog.jsonb_array_elements($1) WITH ORDINALITY AS p(r, n)'
								' JOIN %I.%I v ON %s ORDER BY p.n', t.schema_name, t.table_name, key_match)
		USING page -> 'rows';
END
$$;
COMMENT ON FUNCTION ots.search_rows(anyelement, text, jsonb) IS
	'a search''s page of rows as rows of the table''s view (pass NULL::<table>), in the search''s order: joinable, usable in procedures';

-- the drop clean-up forgets a dropped table's search indexes and drops their storage
CREATE OR REPLACE FUNCTION ots.storage_dropped() RETURNS event_trigger
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

-- describe_table lists a table's search indexes
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
