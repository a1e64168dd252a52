-- ots 0.2.0 -> 0.3.0.
-- Every change here is also made in src/sql/ (what a fresh 0.3.0 install
-- runs); test/upgrade/run.sh shows the two arrive at the same objects, from
-- 0.2.0 and from 0.1.0 through 0.2.0. docs/development.md, Releases, has the
-- rules an upgrade script follows (0.2.0's ots.tables is written only by
-- ots's own functions, but ots.purge_stats still takes rows from any role
-- that owns a relation named "<table>$data": its rows are input).
\echo Use "ALTER EXTENSION ots UPDATE TO '0.3.0'" to load this file. \quit

-- src/ in folders (issue 32): five functions whose bodies name a C file by
-- its path say the new path; nothing else of them changed.
CREATE OR REPLACE FUNCTION ots.create_table_storage(schema_name name, table_name name, pk_names text[],
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
	-- the storage's comment is written with the table's row of ots.tables (src/ddl/catalog_write.c)
END
$$;

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

CREATE OR REPLACE FUNCTION ots.stream_sync(schema_name name, table_name name, stream_enabled boolean,
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
	-- point, src/writepoint/storage_write.c): those in flight finish first, new ones
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
