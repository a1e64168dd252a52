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
