-- Tables, indexes and defined columns: applied on every shard.
--
-- Every DDL first asks each shard (in shard order) whether it has the
-- table, which is also the check that every shard answers: a shard that
-- does not is OTSPartitionUnavailable before anything changes.  Then the
-- statement runs on each shard in order, so that what the single node
-- refuses (bad arguments, privileges) the first shard refuses before any
-- other changed.  Each shard commits its own part: a shard lost half-way
-- leaves the table on some shards, which create_table repairs (it creates
-- the table where it is missing when the others have the same definition)
-- and delete_table finishes.  After each DDL (and each that failed half
-- way) every session forgets what it knew of tables, and the table's view
-- in the proxy database follows it (ots_cluster.catalog_changed).
-- describe_table and list_table answer from the first shard.

-- ots_cluster.find_on: the first of schemas in which the shard of partition
-- p has an ots table (or index) relname the caller may see, or NULL
CREATE FUNCTION ots_cluster.find_on(p integer, schemas name[], relname name) RETURNS name
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT (SELECT s.n FROM pg_catalog.unnest($2) WITH ORDINALITY s(n, i)
			  JOIN ots.tables t ON t.schema_name OPERATOR(pg_catalog.=) s.n
							   AND t.table_name OPERATOR(pg_catalog.=) $3
			 ORDER BY s.i LIMIT 1);
	$$;
COMMENT ON FUNCTION ots_cluster.find_on(integer, name[], name) IS
	'the first of schemas where the shard of partition p has the ots table relname (internal)';

-- ots_cluster.creation_schema_on: where CREATE TABLE would put an
-- unqualified name on the shard of p: the first of schemas it has and the
-- caller may use
CREATE FUNCTION ots_cluster.creation_schema_on(p integer, schemas name[]) RETURNS name
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT (SELECT s.n FROM pg_catalog.unnest($2) WITH ORDINALITY s(n, i)
			  JOIN pg_catalog.pg_namespace ns ON ns.nspname OPERATOR(pg_catalog.=) s.n
			 WHERE pg_catalog.has_schema_privilege(ns.oid, 'USAGE')
			 ORDER BY s.i LIMIT 1);
	$$;
COMMENT ON FUNCTION ots_cluster.creation_schema_on(integer, name[]) IS
	'the schema an unqualified new table goes to on the shard of partition p (internal)';

-- ots_cluster.resolve_on_shards: the schema a table-name argument means,
-- asking every shard (the first that has it in search_path order wins);
-- NULL when none has it.  It also proves that every shard answers.  Every
-- DDL calls it before it changes any shard; it refuses a read-only
-- transaction.
CREATE FUNCTION ots_cluster.resolve_on_shards(table_name text, caller_path text, OUT schema_name name,
											  OUT relname name, OUT present boolean[])
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	n record;
	schemas name[];
	p integer;
	found_in name;
	s text; m text; d text; hi text;
BEGIN
	-- the DDL that asks changes the shards, then the sessions' catalog
	-- (catalog_changed), which a read-only transaction cannot: refused
	-- before any shard is changed
	IF pg_catalog.current_setting('transaction_read_only')::boolean THEN
		RAISE EXCEPTION USING ERRCODE = 'read_only_sql_transaction',
			MESSAGE = 'cannot change ots tables through the proxy in a read-only transaction';
	END IF;
	present := '{}';
	SELECT x.schema_name, x.relname INTO n FROM ots_cluster.split_name(table_name) x;
	IF n.relname IS NULL OR n.relname = '' OR pg_catalog.octet_length(n.relname) >= 64
		OR pg_catalog.octet_length(n.schema_name) >= 64 THEN
		RETURN;
	END IF;
	relname := n.relname;
	schemas := CASE WHEN n.schema_name IS NULL THEN ots_cluster.search_schemas(caller_path) ELSE ARRAY[n.schema_name::name] END;
	BEGIN
		FOREACH p IN ARRAY ots_cluster.shard_partitions() LOOP
			found_in := ots_cluster.find_on(p, schemas, relname);
			present := present || (found_in IS NOT NULL);
			IF schema_name IS NULL OR pg_catalog.array_position(schemas, found_in) < pg_catalog.array_position(schemas, schema_name) THEN
				schema_name := found_in;
			END IF;
		END LOOP;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
		PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
	END;
	-- where each shard has it in that schema (another schema found first elsewhere does not count)
	IF schema_name IS NOT NULL AND pg_catalog.cardinality(schemas) > 1 THEN
		present := '{}';
		FOREACH p IN ARRAY ots_cluster.shard_partitions() LOOP
			present := present || (ots_cluster.find_on(p, ARRAY[schema_name], relname) IS NOT NULL);
		END LOOP;
	END IF;
END
$$;
COMMENT ON FUNCTION ots_cluster.resolve_on_shards(text, text) IS
	'the schema a table-name argument resolves to on the shards, and which shards have it (internal)';

------------------------------------------------------------------------------
-- PL/Proxy calls of ots's DDL on the shard of partition p
------------------------------------------------------------------------------
CREATE FUNCTION ots_cluster.create_table_on(p integer, table_name text, primary_key text, max_versions integer,
											time_to_live bigint, max_version_offset bigint, allow_update boolean,
											partitions integer, hash_prefix_length integer, defined_columns text,
											stream_enabled boolean, stream_expiration_hours integer,
											update_full_row boolean, stream_original_columns text[]) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.create_table($2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14);
	$$;

CREATE FUNCTION ots_cluster.update_table_on(p integer, table_name text, max_versions integer, time_to_live bigint,
											max_version_offset bigint, allow_update boolean, stream_enabled boolean,
											stream_expiration_hours integer, update_full_row boolean,
											stream_original_columns text[]) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.update_table($2, $3, $4, $5, $6, $7, $8, $9, $10);
	$$;

CREATE FUNCTION ots_cluster.delete_table_on(p integer, table_name text) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.delete_table($2);
	$$;

CREATE FUNCTION ots_cluster.describe_table_on(p integer, table_name text) RETURNS jsonb
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.describe_table($2);
	$$;

CREATE FUNCTION ots_cluster.list_table_on(p integer) RETURNS TABLE (schema_name name, table_name name)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.list_table();
	$$;

CREATE FUNCTION ots_cluster.create_index_on(p integer, table_name text, index_name text, primary_key text[],
											defined_columns text[], index_type text, include_base_data boolean)
	RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.create_index($2, $3, $4, $5, $6, $7);
	$$;

CREATE FUNCTION ots_cluster.delete_index_on(p integer, table_name text, index_name text) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.delete_index($2, $3);
	$$;

CREATE FUNCTION ots_cluster.add_defined_column_on(p integer, table_name text, defined_columns text) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.add_defined_column($2, $3);
	$$;

CREATE FUNCTION ots_cluster.delete_defined_column_on(p integer, table_name text, column_names text[]) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.delete_defined_column($2, $3);
	$$;

-- the steps of ots.build_index, each committed on its shard as build_index commits them
CREATE FUNCTION ots_cluster.index_check_on(p integer, schema_arg name, table_arg name, index_arg text)
	RETURNS name
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT i.table_name FROM ots.index_of($2, $3, $4) i;
	$$;

CREATE FUNCTION ots_cluster.index_build_begin_on(p integer, schema_name name, index_name name) RETURNS SETOF text
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.index_build_begin($2, $3);
	$$;

CREATE FUNCTION ots_cluster.index_backfill_batch_on(p integer, schema_arg name, index_arg name, leaf text,
													first_block bigint, seen_filenode oid,
													OUT next_block bigint, OUT filenode oid)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT r.next_block, r.filenode
	  FROM ots.index_backfill_batch($2, $3, pg_catalog.to_regclass($4), $5, ots.index_build_blocks(), $6) r;
	$$;

CREATE FUNCTION ots_cluster.index_build_end_on(p integer, schema_name name, index_name name) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.index_build_end($2, $3);
	$$;

------------------------------------------------------------------------------
-- The API
------------------------------------------------------------------------------

-- ots_cluster.same_definition: two shards' describe_table of one table
-- describe the same table (what may differ: creation time, indexes, which
-- create_index repairs on its own, and the stream's id and times)
CREATE FUNCTION ots_cluster.same_definition(a jsonb, b jsonb) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN (a - 'creation_time' - 'index_metas' - 'stream_details')
		   || pg_catalog.jsonb_build_object('stream', a #> '{stream_details,enable_stream}',
											'hours', a #> '{stream_details,expiration_time}',
											'original', a #> '{stream_details,original_columns}')
		 = (b - 'creation_time' - 'index_metas' - 'stream_details')
		   || pg_catalog.jsonb_build_object('stream', b #> '{stream_details,enable_stream}',
											'hours', b #> '{stream_details,expiration_time}',
											'original', b #> '{stream_details,original_columns}');
COMMENT ON FUNCTION ots_cluster.same_definition(jsonb, jsonb) IS
	'whether two describe_table answers describe the same table definition (internal)';

-- ots.create_table's implementation: names resolved through caller_path, the
-- caller's search_path (ots.create_table passes it)
CREATE FUNCTION ots_cluster.create_table_api(
	caller_path text,
	table_name text,
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
	stream_original_columns text[])
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	ps integer[] := ots_cluster.shard_partitions();
	n record;
	target text := table_name;
	r record;
	p integer := 0;
	existing jsonb;
	created jsonb;
	s text; m text; d text; hi text;
BEGIN
	-- an unqualified name goes where the first shard would create it
	SELECT x.schema_name, x.relname INTO n FROM ots_cluster.split_name(table_name) x;
	-- (a name too long for PostgreSQL goes as it is: the shard refuses it)
	IF n.relname IS NOT NULL AND n.schema_name IS NULL AND pg_catalog.octet_length(n.relname) < 64 THEN
		n.schema_name := ots_cluster.creation_schema_on(ps[1], ots_cluster.search_schemas(caller_path));
		IF n.schema_name IS NOT NULL THEN
			target := ots_cluster.qualified(n.schema_name, n.relname);
		END IF;
	END IF;
	r := ots_cluster.resolve_on_shards(target, caller_path);
	IF r.schema_name IS NOT NULL AND true = ALL (r.present) THEN
		-- everywhere: the single node's OTSObjectAlreadyExist, from the first shard
		p := ps[1];
		PERFORM ots_cluster.create_table_on(p, target, primary_key, max_versions, time_to_live,
											max_version_offset, allow_update, partitions, hash_prefix_length,
											defined_columns, stream_enabled, stream_expiration_hours, update_full_row,
											stream_original_columns);
	END IF;
	IF r.schema_name IS NOT NULL THEN
		existing := ots_cluster.describe_table_on(ps[pg_catalog.array_position(r.present, true)], target);
	END IF;
	FOR i IN 1 .. pg_catalog.cardinality(ps) LOOP
		CONTINUE WHEN r.present[i];
		p := ps[i];
		PERFORM ots_cluster.create_table_on(p, target, primary_key, max_versions, time_to_live,
											max_version_offset, allow_update, partitions, hash_prefix_length,
											defined_columns, stream_enabled, stream_expiration_hours, update_full_row,
											stream_original_columns);
		IF existing IS NOT NULL THEN
			-- a repair: the shards that have it must have what was asked for
			created := ots_cluster.describe_table_on(p, target);
			IF NOT ots_cluster.same_definition(existing, created) THEN
				PERFORM ots_cluster.delete_table_on(p, target);
				RAISE EXCEPTION USING ERRCODE = 'OT005', MESSAGE = 'Requested table already exists.',
					DETAIL = pg_catalog.format('Table %s exists on some shards with another definition; delete it (ots.delete_table) and create it again.', target);
			END IF;
		END IF;
	END LOOP;
	PERFORM ots_cluster.table_changed(target);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	-- some shards may have changed: every session forgets what it knew
	PERFORM ots_cluster.catalog_changed();
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.create_table_api(text, text, text, integer, bigint, bigint, boolean, integer, integer, text, boolean, integer, boolean, text[]) IS
	'ots.create_table with the caller''s search_path (internal)';

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
	RETURN ots_cluster.create_table_api(pg_catalog.current_setting('search_path'), table_name,
			primary_key, max_versions, time_to_live, max_version_offset, allow_update, partitions,
			hash_prefix_length, defined_columns, stream_enabled, stream_expiration_hours, update_full_row,
			stream_original_columns);
COMMENT ON FUNCTION ots.create_table(text, text, integer, bigint, bigint, boolean, integer, integer, text, boolean, integer, boolean, text[]) IS
	'creates an ots table on every shard; where some shards already have it (a create cut short), on the others';

-- ots.update_table's implementation: names resolved through caller_path, the
-- caller's search_path (ots.update_table passes it)
CREATE FUNCTION ots_cluster.update_table_api(
	caller_path text,
	table_name text,
	max_versions integer,
	time_to_live bigint,
	max_version_offset bigint,
	allow_update boolean,
	stream_enabled boolean,
	stream_expiration_hours integer,
	update_full_row boolean,
	stream_original_columns text[])
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	target text;
	p integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	target := ots_cluster.target(t, table_name);
	PERFORM ots_cluster.resolve_on_shards(target, caller_path);
	FOREACH p IN ARRAY ots_cluster.shard_partitions() LOOP
		PERFORM ots_cluster.update_table_on(p, target, max_versions, time_to_live, max_version_offset,
											allow_update, stream_enabled, stream_expiration_hours,
											update_full_row, stream_original_columns);
	END LOOP;
	PERFORM ots_cluster.table_changed(target);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	-- some shards may have changed: every session forgets what it knew
	PERFORM ots_cluster.catalog_changed();
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.update_table_api(text, text, integer, bigint, bigint, boolean, boolean, integer, boolean, text[]) IS
	'ots.update_table with the caller''s search_path (internal)';

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
	RETURN ots_cluster.update_table_api(pg_catalog.current_setting('search_path'), table_name,
			max_versions, time_to_live, max_version_offset, allow_update, stream_enabled,
			stream_expiration_hours, update_full_row, stream_original_columns);
COMMENT ON FUNCTION ots.update_table(text, integer, bigint, bigint, boolean, boolean, integer, boolean, text[]) IS
	'changes table options and the stream on every shard; omitted options keep their values';

-- ots.delete_table's implementation: names resolved through caller_path, the
-- caller's search_path (ots.delete_table passes it)
CREATE FUNCTION ots_cluster.delete_table_api(
	caller_path text,
	table_name text)
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	ps integer[] := ots_cluster.shard_partitions();
	r record;
	target text := table_name;
	indexes text[];
	p integer := 0;
	s text; m text; d text; hi text;
BEGIN
	r := ots_cluster.resolve_on_shards(table_name, caller_path);
	IF r.schema_name IS NULL THEN
		-- nowhere: the single node's error, from the first shard
		p := ps[1];
		PERFORM ots_cluster.delete_table_on(p, table_name);
	ELSE
		target := ots_cluster.qualified(r.schema_name, r.relname);
		-- its indexes go with it (their views too)
		p := ps[pg_catalog.array_position(r.present, true)];
		indexes := ARRAY(SELECT x.meta ->> 'name'
						   FROM pg_catalog.jsonb_array_elements(ots_cluster.describe_table_on(p, target) -> 'index_metas') x(meta));
		FOR i IN 1 .. pg_catalog.cardinality(ps) LOOP
			CONTINUE WHEN NOT r.present[i];
			p := ps[i];
			PERFORM ots_cluster.delete_table_on(p, target);
		END LOOP;
		-- the table and its indexes (and their views in the proxy database)
		PERFORM ots_cluster.table_changed(target);
		PERFORM ots_cluster.table_changed(ots_cluster.qualified(r.schema_name, i::name))
		   FROM pg_catalog.unnest(indexes) i;
	END IF;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	-- some shards may have changed: every session forgets what it knew
	PERFORM ots_cluster.catalog_changed();
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.delete_table_api(text, text) IS
	'ots.delete_table with the caller''s search_path (internal)';

CREATE FUNCTION ots.delete_table(table_name text) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.delete_table_api(pg_catalog.current_setting('search_path'), table_name);
COMMENT ON FUNCTION ots.delete_table(text) IS
	'drops an ots table on every shard that has it';

-- ots.describe_table's implementation: names resolved through caller_path, the
-- caller's search_path (ots.describe_table passes it)
CREATE FUNCTION ots_cluster.describe_table_api(
	caller_path text,
	table_name text)
	RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	RETURN ots_cluster.describe_table_on(0, ots_cluster.target(t, table_name));
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, 0);
END
$$;
COMMENT ON FUNCTION ots_cluster.describe_table_api(text, text) IS
	'ots.describe_table with the caller''s search_path (internal)';

CREATE FUNCTION ots.describe_table(table_name text) RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL UNSAFE
	RETURN ots_cluster.describe_table_api(pg_catalog.current_setting('search_path'), table_name);
COMMENT ON FUNCTION ots.describe_table(text) IS
	'primary-key schema, options, partitions and creation time of an ots table, as the first shard has it';

CREATE FUNCTION ots.list_table() RETURNS TABLE (schema_name name, table_name name)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	s text; m text; d text; hi text;
BEGIN
	RETURN QUERY SELECT l.schema_name, l.table_name FROM ots_cluster.list_table_on(0) l
				  ORDER BY l.schema_name COLLATE "C", l.table_name COLLATE "C";
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, 0);
END
$$;
COMMENT ON FUNCTION ots.list_table() IS 'every ots table the caller may see, as the first shard lists them';

-- ots.create_index's implementation: names resolved through caller_path, the
-- caller's search_path (ots.create_index passes it)
CREATE FUNCTION ots_cluster.create_index_api(
	caller_path text,
	table_name text,
	index_name text,
	primary_key text[],
	defined_columns text[],
	index_type text,
	include_base_data boolean)
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	ps integer[] := ots_cluster.shard_partitions();
	t ots_cluster.table_entry;
	target text;
	r record;
	p integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	target := ots_cluster.target(t, table_name);
	-- the index is an ots table beside its base: created where it is missing
	r := ots_cluster.resolve_on_shards(CASE WHEN t.table_name IS NULL OR index_name IS NULL THEN NULL
											ELSE ots_cluster.qualified(t.schema_name, index_name::name) END, caller_path);
	IF r.schema_name IS NULL THEN
		r.present := pg_catalog.array_fill(false, ARRAY[pg_catalog.cardinality(ps)]);
		PERFORM ots_cluster.resolve_on_shards(target, caller_path);
	END IF;
	FOR i IN 1 .. pg_catalog.cardinality(ps) LOOP
		-- present everywhere: the first shard says so as the single node does
		CONTINUE WHEN r.present[i] AND NOT (i = 1 AND true = ALL (r.present));
		p := ps[i];
		PERFORM ots_cluster.create_index_on(p, target, index_name, primary_key, defined_columns, index_type,
											include_base_data);
	END LOOP;
	IF t.table_name IS NOT NULL AND index_name IS NOT NULL THEN
		PERFORM ots_cluster.table_changed(ots_cluster.qualified(t.schema_name, index_name::name));
	END IF;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	-- some shards may have changed: every session forgets what it knew
	PERFORM ots_cluster.catalog_changed();
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.create_index_api(text, text, text, text[], text[], text, boolean) IS
	'ots.create_index with the caller''s search_path (internal)';

CREATE FUNCTION ots.create_index(table_name text, index_name text, primary_key text[],
								 defined_columns text[] DEFAULT '{}', index_type text DEFAULT 'GLOBAL',
								 include_base_data boolean DEFAULT true) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.create_index_api(pg_catalog.current_setting('search_path'), table_name,
			index_name, primary_key, defined_columns, index_type, include_base_data);
COMMENT ON FUNCTION ots.create_index(text, text, text[], text[], text, boolean) IS
	'creates a secondary index on every shard (where it is missing); each shard fills its own in the background';

-- ots.delete_index's implementation: names resolved through caller_path, the
-- caller's search_path (ots.delete_index passes it)
CREATE FUNCTION ots_cluster.delete_index_api(
	caller_path text,
	table_name text,
	index_name text)
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	ps integer[] := ots_cluster.shard_partitions();
	t ots_cluster.table_entry;
	target text;
	r record;
	p integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	target := ots_cluster.target(t, table_name);
	r := ots_cluster.resolve_on_shards(CASE WHEN t.table_name IS NULL OR index_name IS NULL THEN NULL
											ELSE ots_cluster.qualified(t.schema_name, index_name::name) END, caller_path);
	PERFORM ots_cluster.resolve_on_shards(target, caller_path);
	FOR i IN 1 .. pg_catalog.cardinality(ps) LOOP
		-- missing everywhere: the first shard raises the single node's error
		CONTINUE WHEN r.schema_name IS NOT NULL AND NOT r.present[i];
		p := ps[i];
		PERFORM ots_cluster.delete_index_on(p, target, index_name);
		EXIT WHEN r.schema_name IS NULL;
	END LOOP;
	IF t.table_name IS NOT NULL AND index_name IS NOT NULL THEN
		PERFORM ots_cluster.table_changed(ots_cluster.qualified(t.schema_name, index_name::name));
	END IF;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	-- some shards may have changed: every session forgets what it knew
	PERFORM ots_cluster.catalog_changed();
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.delete_index_api(text, text, text) IS
	'ots.delete_index with the caller''s search_path (internal)';

CREATE FUNCTION ots.delete_index(table_name text, index_name text) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.delete_index_api(pg_catalog.current_setting('search_path'), table_name,
			index_name);
COMMENT ON FUNCTION ots.delete_index(text, text) IS 'drops a secondary index on every shard that has it';

-- ots_cluster.change_defined_columns: add_defined_column (adding) or
-- delete_defined_column on every shard
CREATE FUNCTION ots_cluster.change_defined_columns(caller_path text, table_name text, adding boolean,
												   defined_columns text, column_names text[]) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	target text;
	p integer := 0;
	s text; m text; d text; hi text;
BEGIN
	target := ots_cluster.target(ots_cluster.table_of(table_name, caller_path), table_name);
	PERFORM ots_cluster.resolve_on_shards(target, caller_path);
	FOREACH p IN ARRAY ots_cluster.shard_partitions() LOOP
		IF adding THEN
			PERFORM ots_cluster.add_defined_column_on(p, target, defined_columns);
		ELSE
			PERFORM ots_cluster.delete_defined_column_on(p, target, column_names);
		END IF;
	END LOOP;
	-- the view in the proxy database gains or loses the columns
	PERFORM ots_cluster.table_changed(target);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	-- some shards may have changed: every session forgets what it knew
	PERFORM ots_cluster.catalog_changed();
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.change_defined_columns(text, text, boolean, text, text[]) IS
	'adds or removes defined columns of an ots table on every shard (internal)';

CREATE FUNCTION ots.add_defined_column(table_name text, defined_columns text) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	BEGIN ATOMIC
		SELECT ots_cluster.change_defined_columns(pg_catalog.current_setting('search_path'), table_name, true,
												  defined_columns, NULL);
	END;
COMMENT ON FUNCTION ots.add_defined_column(text, text) IS 'adds defined columns to an ots table on every shard';

CREATE FUNCTION ots.delete_defined_column(table_name text, column_names text[]) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	BEGIN ATOMIC
		SELECT ots_cluster.change_defined_columns(pg_catalog.current_setting('search_path'), table_name, false,
												  NULL, column_names);
	END;
COMMENT ON FUNCTION ots.delete_defined_column(text, text[]) IS 'removes defined columns of an ots table on every shard';

-- ots.build_index: ots's build_index, shard after shard, its steps called
-- through PL/Proxy (each committed on its shard, as build_index commits them).
-- Not pinned: it reads the caller's search_path; it names only qualified
-- functions and no operator (00_header.sql).
CREATE PROCEDURE ots.build_index(table_name text, index_name text)
	LANGUAGE plpgsql
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	target text;
	p integer := 0;
	leaf text;
	b record;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, pg_catalog.current_setting('search_path'));
	target := ots_cluster.target(t, table_name);
	PERFORM ots_cluster.resolve_on_shards(target, pg_catalog.current_setting('search_path'));
	BEGIN
		IF t.table_name IS NULL THEN
			-- the single node's OTSObjectNotExist, from the first shard
			PERFORM ots_cluster.describe_table_on(0, target);
		END IF;
		FOREACH p IN ARRAY ots_cluster.shard_partitions() LOOP
			PERFORM ots_cluster.index_check_on(p, t.schema_name, t.table_name, index_name);
		END LOOP;
		FOREACH p IN ARRAY ots_cluster.shard_partitions() LOOP
			FOR leaf IN SELECT l FROM ots_cluster.index_build_begin_on(p, t.schema_name, index_name::name) l LOOP
				SELECT 0::bigint AS next_block, 0::oid AS filenode INTO b;
				LOOP
					SELECT r.next_block, r.filenode INTO b
					  FROM ots_cluster.index_backfill_batch_on(p, t.schema_name, index_name::name, leaf,
															   b.next_block, b.filenode) r;
					EXIT WHEN b.next_block IS NULL;
				END LOOP;
			END LOOP;
			PERFORM ots_cluster.index_build_end_on(p, t.schema_name, index_name::name);
		END LOOP;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
		PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
	END;
END
$$;
COMMENT ON PROCEDURE ots.build_index(text, text) IS
	'fills a secondary index on every shard, in batches each committed on its shard, and lets it answer reads';

-- ots.hash_prefix: as ots computes it (src/meta/storage.c): the first n hex
-- digits of the MD5 of the value (String: its bytes; Integer: its decimal
-- text; Binary: its bytes), computed here without asking a shard
CREATE FUNCTION ots_cluster.hash_prefix_md5(md5 text, n integer) RETURNS text
	LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF n < 1 OR n > 8 THEN
		RAISE EXCEPTION USING ERRCODE = 'OT001', MESSAGE = format('Invalid hash prefix length: %s.', n),
			DETAIL = 'The length is a number of hex digits from 1 to 8.';
	END IF;
	RETURN left(md5, n);
END
$$;
COMMENT ON FUNCTION ots_cluster.hash_prefix_md5(text, integer) IS 'the first n of 32 MD5 hex digits, n checked as ots does (internal)';

CREATE FUNCTION ots.hash_prefix(value text, n integer) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN ots_cluster.hash_prefix_md5(pg_catalog.md5(value), n);
CREATE FUNCTION ots.hash_prefix(value bigint, n integer) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN ots_cluster.hash_prefix_md5(pg_catalog.md5(value::text), n);
CREATE FUNCTION ots.hash_prefix(value bytea, n integer) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN ots_cluster.hash_prefix_md5(pg_catalog.md5(value), n);

------------------------------------------------------------------------------
-- Streams are not routed through the proxy (yet): ask a shard directly
------------------------------------------------------------------------------
CREATE FUNCTION ots_cluster.stream_not_routed(fn text) RETURNS void
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
		MESSAGE = format('%s is not available through an ots cluster''s proxy', fn),
		DETAIL = 'Streams are not routed to the shards: each shard keeps the stream of its own rows.',
		HINT = 'Call the stream functions on each shard database (ots_cluster.shards() lists them).';
END
$$;
COMMENT ON FUNCTION ots_cluster.stream_not_routed(text) IS 'raises 0A000 for a stream function called on the proxy (internal)';

CREATE FUNCTION ots.list_stream(table_name text DEFAULT NULL)
	RETURNS TABLE (stream_id text, schema_name name, table_name name, creation_time bigint)
	LANGUAGE sql STABLE PARALLEL SAFE
	AS $$ SELECT ots_cluster.stream_not_routed('ots.list_stream')::text, NULL::name, NULL::name, NULL::bigint $$;
COMMENT ON FUNCTION ots.list_stream(text) IS 'not routed in a cluster: raises feature_not_supported';

CREATE FUNCTION ots.describe_stream(stream_id text, inclusive_start_shard_id text DEFAULT NULL,
									shard_limit integer DEFAULT NULL) RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$ BEGIN PERFORM ots_cluster.stream_not_routed('ots.describe_stream'); RETURN NULL; END $$;
COMMENT ON FUNCTION ots.describe_stream(text, text, integer) IS 'not routed in a cluster: raises feature_not_supported';

CREATE FUNCTION ots.get_shard_iterator(stream_id text, shard_id text, "timestamp" bigint DEFAULT NULL)
	RETURNS text
	LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $$ BEGIN PERFORM ots_cluster.stream_not_routed('ots.get_shard_iterator'); RETURN NULL; END $$;
COMMENT ON FUNCTION ots.get_shard_iterator(text, text, bigint) IS 'not routed in a cluster: raises feature_not_supported';

CREATE FUNCTION ots.get_stream_record(shard_iterator text, "limit" integer DEFAULT NULL) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $$ BEGIN PERFORM ots_cluster.stream_not_routed('ots.get_stream_record'); RETURN NULL; END $$;
COMMENT ON FUNCTION ots.get_stream_record(text, integer) IS 'not routed in a cluster: raises feature_not_supported';
