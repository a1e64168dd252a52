-- Defined columns and secondary indexes (Tablestore's CreateIndex /
-- DropIndex, AddDefinedColumn / DeleteDefinedColumn).
--
-- An index is an ots table of its own name (its row in ots.tables names
-- the table it indexes in index_of), keyed by the columns it was given
-- and then the base key's others, holding the covered defined columns.
-- Every write of the base table keeps it exact in the writing transaction
-- (src/index/index_write.c, from the write point); the row functions refuse to
-- write it and read it with the base table's rights; create_index on a
-- table with rows fills it in the background (src/index/index_build.c).

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
											 coalesce(allow_update, t.allow_update), t.update_full_row);
	END IF;
END
$$;
COMMENT ON FUNCTION ots.index_check_options(name, name, integer, bigint, boolean) IS
	'refuses options an index or a table with indexes cannot have (internal; update_table)';

-- ots.index_check_base_options: the options a table with indexes must have
-- (a table that updates whole rows keeps its index entries' TTL exact)
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
	SELECT t.defined_names || added.names AS names, t.defined_types || added.types AS types INTO merged;
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
	PERFORM ots.drop_chunk_relation(i.schema_name, i.table_name);
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
-- backfill (src/index/index_build.c)
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
CREATE PROCEDURE ots.build_index(table_name text, index_name text)
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
