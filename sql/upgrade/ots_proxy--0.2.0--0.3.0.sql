-- ots_proxy 0.2.0 -> 0.3.0.
-- Every change here is also made in proxy/sql/ (what a fresh 0.3.0 install
-- runs), and an error code added to src/ots_error_codes.h gets its row of
-- ots_cluster.error_codes here; test/upgrade/run.sh shows the two arrive at
-- the same objects and rows.
\echo Use "ALTER EXTENSION ots_proxy UPDATE TO '0.3.0'" to load this file. \quit

-- a node's get_range page may end inside a wide row (ots 0.3.0, next_token);
-- the proxy merges the shards' pages by row, so it asks for pages that end
-- between rows (whole_rows)
CREATE OR REPLACE FUNCTION ots_cluster.range_pages(
	hashes integer[],
	table_name text,
	starts jsonb[],
	exclusive_end_primary_key jsonb,
	direction text,
	"limit" integer,
	columns_to_get text[],
	max_versions integer,
	time_range jsonb,
	filter jsonb,
	with_timestamps boolean,
	start_column text,
	end_column text,
	OUT hash integer, OUT rows jsonb, OUT next_start_primary_key jsonb, OUT consumed jsonb,
	OUT max_rows bigint, OUT max_bytes bigint) RETURNS SETOF record
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	SPLIT hashes, starts;
	RUN ON hashes;
	SELECT ($1)[1] AS hash, g.rows, g.next_start_primary_key, g.consumed,
		   ots.limit('max_range_rows') AS max_rows, ots.limit('max_range_bytes') AS max_bytes
	  FROM ots.get_range($2, ($3)[1], $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, whole_rows => true) AS g;
$$;
COMMENT ON FUNCTION ots_cluster.range_pages(integer[], text, jsonb[], jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'one get_range page of each shard of hashes from its start in starts, in parallel, with its hash and page caps (internal)';

-- The SDK path without JSON (issue 34): otsd's GetRow calls ots.wire_get_row.
-- The wire form of get_row (otsd's GetRow): routed as get_row is
CREATE FUNCTION ots_cluster.wire_get_row(hash integer, table_name text, primary_key jsonb,
										 columns_to_get text[], max_versions integer, time_range jsonb,
										 filter jsonb, start_column text, end_column text,
										 OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.wire_get_row($2, $3, $4, $5, $6, $7, $8, $9);
	$$;
COMMENT ON FUNCTION ots_cluster.wire_get_row(integer, text, jsonb, text[], integer, jsonb, jsonb, text, text) IS
	'ots.wire_get_row on the shard of a routing hash (internal)';

CREATE FUNCTION ots_cluster.wire_get_row_all(table_name text, primary_key jsonb, columns_to_get text[],
											 max_versions integer, time_range jsonb, filter jsonb,
											 start_column text, end_column text,
											 OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	RETURNS SETOF record
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON ALL;
	SELECT * FROM ots.wire_get_row($1, $2, $3, $4, $5, $6, $7, $8);
	$$;
COMMENT ON FUNCTION ots_cluster.wire_get_row_all(text, jsonb, text[], integer, jsonb, jsonb, text, text) IS
	'ots.wire_get_row on every shard (internal: for index tables)';

-- ots.wire_get_row's implementation, as get_row_api
CREATE FUNCTION ots_cluster.wire_get_row_api(
	caller_path text,
	table_name text,
	primary_key jsonb,
	columns_to_get text[],
	max_versions integer,
	time_range jsonb,
	filter jsonb,
	start_column text,
	end_column text,
	OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	h integer := 0;
	r record;
	found boolean := false;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	IF NOT coalesce(t.is_index, false) THEN
		h := ots_cluster.route(t, primary_key);
		SELECT * INTO "row", read_cu, write_cu
		  FROM ots_cluster.wire_get_row(h, ots_cluster.target(t, table_name), primary_key, columns_to_get,
										max_versions, time_range, filter, start_column, end_column);
		RETURN;
	END IF;
	-- an index row: the shard that has it, else one shard's empty answer
	FOR r IN SELECT * FROM ots_cluster.wire_get_row_all(ots_cluster.target(t, table_name), primary_key,
														columns_to_get, max_versions, time_range, filter,
														start_column, end_column) LOOP
		IF NOT found OR pg_catalog.length(r."row") OPERATOR(pg_catalog.>) 0 THEN
			"row" := r."row"; read_cu := r.read_cu; write_cu := r.write_cu;
			found := true;
		END IF;
		EXIT WHEN pg_catalog.length(r."row") OPERATOR(pg_catalog.>) 0;
	END LOOP;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi,
									 CASE WHEN NOT coalesce(t.is_index, false) THEN ots_cluster.partition_of(h) END);
END
$$;
COMMENT ON FUNCTION ots_cluster.wire_get_row_api(text, text, jsonb, text[], integer, jsonb, jsonb, text, text) IS
	'ots.wire_get_row with the caller''s search_path (internal)';

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
	LANGUAGE sql STABLE PARALLEL UNSAFE
	RETURN ots_cluster.wire_get_row_api(pg_catalog.current_setting('search_path'), table_name,
			primary_key, columns_to_get, max_versions, time_range, filter, start_column, end_column);
COMMENT ON FUNCTION ots.wire_get_row(text, jsonb, text[], integer, jsonb, jsonb, text, text) IS
	'get_row with timestamps, the row as Tablestore''s PlainBuffer (empty: none) and its capacity units, from the partition key''s shard: what otsd calls for GetRow';

-- same_definition compares the stream's original columns too (issue 34);
-- ots_cluster.same_definition: two shards' describe_table of one table
-- describe the same table (what may differ: creation time, indexes, which
-- create_index repairs on its own, and the stream's id and times)
CREATE OR REPLACE FUNCTION ots_cluster.same_definition(a jsonb, b jsonb) RETURNS boolean
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

-- create_table and update_table take update_full_row and stream_original_columns (ots 0.3.0, issue 34):
-- new signatures, so each goes, with what calls it, and comes back
DROP FUNCTION ots.create_table(text, text, integer, bigint, bigint, boolean, integer, integer, text, boolean, integer);
DROP FUNCTION ots_cluster.create_table_api(text, text, text, integer, bigint, bigint, boolean, integer, integer, text, boolean, integer);
DROP FUNCTION ots_cluster.create_table_on(integer, text, text, integer, bigint, bigint, boolean, integer, integer, text, boolean, integer);
DROP FUNCTION ots.update_table(text, integer, bigint, bigint, boolean, boolean, integer);
DROP FUNCTION ots_cluster.update_table_api(text, text, integer, bigint, bigint, boolean, boolean, integer);
DROP FUNCTION ots_cluster.update_table_on(integer, text, integer, bigint, bigint, boolean, boolean, integer);
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

-- ComputeSplitPointsBySize through the proxy (issue 34): split points merged from every shard
-- Split points over the shards (Tablestore's ComputeSplitPointsBySize, which
-- otsd answers with ots.compute_split_points).  The shards hold disjoint
-- partition keys spread by hash, so each holds about 1/n of every key
-- range: each shard cuts its own rows into ranges of split_size / n, and of
-- all those points, merged in stored key order (the hash prefix first on a
-- hash-prefixed table, then String bytewise, Integer signed, Binary
-- bytewise, as proxy/range_key.c orders rows), every n-th cuts the table
-- into ranges of about split_size.
CREATE FUNCTION ots_cluster.compute_split_points_on(p integer, table_name text, split_size bigint,
													split_point_limit integer) RETURNS jsonb
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.compute_split_points($2, $3, $4);
	$$;

CREATE FUNCTION ots_cluster.compute_split_points_api(caller_path text, table_name text, split_size bigint,
													 split_point_limit integer) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	target text;
	ps integer[] := ots_cluster.shard_partitions();
	n integer := pg_catalog.cardinality(ps);
	limit_points integer := least(coalesce(split_point_limit, 10000), 10000);
	points jsonb := '[]';
	merged jsonb;
	p integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	target := ots_cluster.target(t, table_name);
	-- the first shard checks the arguments as a node does, with its messages
	IF split_size IS NULL OR split_size <= 0 OR split_point_limit <= 0 OR n = 1 THEN
		p := ps[1];
		RETURN ots_cluster.compute_split_points_on(p, target, split_size, split_point_limit);
	END IF;
	FOREACH p IN ARRAY ps LOOP
		points := points || ots_cluster.compute_split_points_on(p, target, greatest(split_size / n, 1), NULL);
	END LOOP;
	WITH keyed AS (
		SELECT x.point,
			   CASE WHEN t.hash_prefix_length > 0 THEN
					CASE t.pk_types[1]
						WHEN 'INTEGER' THEN ots.hash_prefix((x.v #>> '{}')::bigint, t.hash_prefix_length)
						WHEN 'BINARY' THEN ots.hash_prefix(pg_catalog.decode(x.v ->> '$binary', 'base64'),
														   t.hash_prefix_length)
						ELSE ots.hash_prefix(x.v #>> '{}', t.hash_prefix_length) END END AS key_prefix,
			   CASE WHEN t.pk_types[1] = 'INTEGER' THEN (x.v #>> '{}')::bigint END AS key_integer,
			   CASE WHEN t.pk_types[1] = 'STRING' THEN x.v #>> '{}' END AS key_string,
			   CASE WHEN t.pk_types[1] = 'BINARY' THEN pg_catalog.decode(x.v ->> '$binary', 'base64') END AS key_binary
		  FROM pg_catalog.jsonb_array_elements(points) x0(point),
			   LATERAL (SELECT x0.point, x0.point -> t.pk_names[1] AS v) x),
	ordered AS (
		SELECT point, row_number() OVER (ORDER BY key_prefix COLLATE "C", key_integer,
												 key_string COLLATE "C", key_binary) AS rn
		  FROM keyed),
	thinned AS (
		SELECT point, row_number() OVER (ORDER BY rn) AS k, count(*) OVER () AS total
		  FROM ordered WHERE rn % n = 0)
	-- at most the limit, spread over the points
	SELECT coalesce(pg_catalog.jsonb_agg(point ORDER BY k), '[]') INTO merged
	  FROM thinned
	 WHERE k % greatest(ceil(total::numeric / limit_points)::bigint, 1) = 0;
	RETURN merged;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.compute_split_points_api(text, text, bigint, integer) IS
	'ots.compute_split_points with the caller''s search_path (internal)';

CREATE FUNCTION ots.compute_split_points(table_name text, split_size bigint,
										 split_point_limit integer DEFAULT NULL) RETURNS jsonb
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.compute_split_points_api(pg_catalog.current_setting('search_path'), table_name,
												split_size, split_point_limit);
COMMENT ON FUNCTION ots.compute_split_points(text, bigint, integer) IS
	'values of the partition key cutting the table into ranges of about split_size bytes, merged from every shard''s (Tablestore ComputeSplitPointsBySize)';

-- search indexes through the proxy (ots 0.3.0's search index; proxy/sql/60_search.sql)

------------------------------------------------------------------------------
-- PL/Proxy calls on the shards
------------------------------------------------------------------------------

-- ots_cluster.search_parts: each shard's part of a search, in parallel
-- (SPLIT: each shard of hashes gets its own element), with its hash
CREATE FUNCTION ots_cluster.search_parts(hashes integer[], table_name text, index_name text, search_query jsonb,
										 columns_to_get jsonb, OUT hash integer, OUT part jsonb) RETURNS SETOF record
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	SPLIT hashes;
	RUN ON hashes;
	SELECT ($1)[1] AS hash, ots.search_part($2, $3, $4, $5) AS part;
$$;
COMMENT ON FUNCTION ots_cluster.search_parts(integer[], text, text, jsonb, jsonb) IS
	'each shard''s part of a search (its first offset + limit rows, mergeable aggregations), in parallel (internal)';

-- ots_cluster.search_part_rows: the columns of each shard's rows of a page
CREATE FUNCTION ots_cluster.search_part_rows(hashes integer[], table_name text, index_name text, pages jsonb[],
											 columns_to_get jsonb, OUT hash integer, OUT page jsonb) RETURNS SETOF record
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	SPLIT hashes, pages;
	RUN ON hashes;
	SELECT ($1)[1] AS hash, ots.search_part_rows($2, $3, ($4)[1], $5) AS page;
$$;
COMMENT ON FUNCTION ots_cluster.search_part_rows(integer[], text, text, jsonb[], jsonb) IS
	'each shard''s rows of a search''s page read with columns_to_get, in parallel (internal)';

CREATE FUNCTION ots_cluster.search_on(p integer, table_name text, index_name text, search_query jsonb,
									  columns_to_get jsonb) RETURNS jsonb
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.search($2, $3, $4, $5);
	$$;

CREATE FUNCTION ots_cluster.create_search_index_on(p integer, table_name text, index_name text, index_schema jsonb,
												   time_to_live bigint, source_index_name text) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.create_search_index($2, $3, $4, $5, $6);
	$$;

CREATE FUNCTION ots_cluster.update_search_index_on(p integer, table_name text, index_name text,
												   time_to_live bigint, switch_index_name text, query_flow_weights jsonb)
	RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.update_search_index($2, $3, $4, $5, $6);
	$$;

CREATE FUNCTION ots_cluster.delete_search_index_on(p integer, table_name text, index_name text) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.delete_search_index($2, $3);
	$$;

CREATE FUNCTION ots_cluster.describe_search_index_on(p integer, table_name text, index_name text) RETURNS jsonb
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.describe_search_index($2, $3);
	$$;

CREATE FUNCTION ots_cluster.list_search_index_on(p integer, of_table text)
	RETURNS TABLE (schema_name name, table_name name, index_name text)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.list_search_index($2);
	$$;

CREATE FUNCTION ots_cluster.search_index_present_on(p integer, table_name text, index_name text) RETURNS boolean
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT EXISTS (SELECT 1 FROM ots.list_search_index($2) l WHERE l.index_name OPERATOR(pg_catalog.=) $3);
	$$;

CREATE FUNCTION ots_cluster.search_analyze_on(p integer, "text" text, analyzer text, analyzer_parameter jsonb)
	RETURNS TABLE (token text, "position" integer)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.search_analyze($2, $3, $4);
	$$;

------------------------------------------------------------------------------
-- Search index DDL: on every shard
------------------------------------------------------------------------------

-- ots_cluster.search_index_ddl: create (what = 'create'), update or delete a
-- search index on every shard, in shard order.  A create skips the shards
-- that have the index when some do not (a create stopped half way is
-- repaired by calling it again); on all of them, the first shard refuses as
-- a node does.  A delete skips the shards without it; on none, the first
-- shard refuses.  A create from a source index (source_index_name) makes
-- its brother on each shard from that shard's rows; an update's query flow
-- weights and switch (switch_index_name) apply on each shard, a switch only
-- once every shard has both indexes.
CREATE FUNCTION ots_cluster.search_index_ddl(what text, caller_path text, table_name text, index_name text,
											 index_schema jsonb, time_to_live bigint, source_index_name text DEFAULT NULL,
											 switch_index_name text DEFAULT NULL, query_flow_weights jsonb DEFAULT NULL)
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	ps integer[] := ots_cluster.shard_partitions();
	t ots_cluster.table_entry;
	target text;
	present boolean[];
	p integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	target := ots_cluster.target(t, table_name);
	PERFORM ots_cluster.resolve_on_shards(target, caller_path);
	IF what <> 'update' THEN
		present := ARRAY(SELECT CASE WHEN t.table_name IS NULL OR index_name IS NULL THEN false
									 ELSE ots_cluster.search_index_present_on(x.p, target, index_name) END
						   FROM unnest(ps) WITH ORDINALITY AS x(p, n) ORDER BY x.n);
	ELSIF switch_index_name IS NOT NULL AND t.table_name IS NOT NULL AND index_name IS NOT NULL THEN
		-- a switch is not undone by calling it again: each shard has both indexes first
		FOR i IN 1 .. cardinality(ps) LOOP
			p := ps[i];
			IF NOT ots_cluster.search_index_present_on(p, target, index_name)
			   OR NOT ots_cluster.search_index_present_on(p, target, switch_index_name) THEN
				RAISE EXCEPTION USING ERRCODE = (SELECT e.sqlstate FROM ots_cluster.error_codes e WHERE e.code = 'OTSParameterInvalid'),
					MESSAGE = 'The search index or the one to switch to is missing on a shard.',
					DETAIL = 'Make the index from its source (source_index_name) again: it is made on the shards that lack it.';
			END IF;
		END LOOP;
		p := 0;
	END IF;
	FOR i IN 1 .. cardinality(ps) LOOP
		p := ps[i];
		IF what = 'create' THEN
			CONTINUE WHEN present[i] AND NOT (i = 1 AND true = ALL (present));
			PERFORM ots_cluster.create_search_index_on(p, target, index_name, index_schema, time_to_live, source_index_name);
		ELSIF what = 'update' THEN
			PERFORM ots_cluster.update_search_index_on(p, target, index_name, time_to_live, switch_index_name,
														query_flow_weights);
		ELSE
			CONTINUE WHEN NOT present[i] AND NOT (i = 1 AND false = ALL (present));
			PERFORM ots_cluster.delete_search_index_on(p, target, index_name);
		END IF;
	END LOOP;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.search_index_ddl(text, text, text, text, jsonb, bigint, text, text, jsonb) IS
	'create_search_index, update_search_index or delete_search_index on every shard, with the caller''s search_path (internal)';

CREATE FUNCTION ots.create_search_index(table_name text, index_name text, index_schema jsonb,
										time_to_live bigint DEFAULT -1, source_index_name text DEFAULT NULL) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.search_index_ddl('create', pg_catalog.current_setting('search_path'), table_name, index_name,
										index_schema, time_to_live, source_index_name);
COMMENT ON FUNCTION ots.create_search_index(text, text, jsonb, bigint, text) IS
	'creates a search index on every shard (where it is missing), each filled from the shard''s rows and kept exact by its writes; from source_index_name, its brother on each shard';

CREATE FUNCTION ots.update_search_index(table_name text, index_name text, time_to_live bigint DEFAULT NULL,
										switch_index_name text DEFAULT NULL, query_flow_weights jsonb DEFAULT NULL)
	RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.search_index_ddl('update', pg_catalog.current_setting('search_path'), table_name, index_name,
										NULL, time_to_live, NULL, switch_index_name, query_flow_weights);
COMMENT ON FUNCTION ots.update_search_index(text, text, bigint, text, jsonb) IS
	'changes the time_to_live of a search index on every shard, how its searches go to its brother, or switches the two on every shard';

CREATE FUNCTION ots.delete_search_index(table_name text, index_name text) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.search_index_ddl('delete', pg_catalog.current_setting('search_path'), table_name, index_name,
										NULL, NULL);
COMMENT ON FUNCTION ots.delete_search_index(text, text) IS 'drops a search index on every shard that has it';

-- describe and list answer from the first shard, as describe_table does
CREATE FUNCTION ots_cluster.describe_search_index_api(caller_path text, table_name text, index_name text)
	RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry := ots_cluster.table_of(table_name, caller_path);
	p integer;
	one jsonb;
	out jsonb;
	s text; m text; d text; hi text;
BEGIN
	-- the definition as the first shard has it; building (FULL) while any shard is, the
	-- sizes and rows of all shards
	FOREACH p IN ARRAY ots_cluster.shard_partitions() LOOP
		one := ots_cluster.describe_search_index_on(p, ots_cluster.target(t, table_name), index_name);
		IF out IS NULL THEN
			out := one;
		ELSE
			IF one #>> '{sync_stat,sync_phase}' = 'FULL' THEN
				out := jsonb_set(out, '{sync_stat,sync_phase}', '"FULL"');
			END IF;
			out := jsonb_set(out, '{metering_info}', jsonb_build_object(
				'storage_size', (out #>> '{metering_info,storage_size}')::bigint + (one #>> '{metering_info,storage_size}')::bigint,
				'row_count', (out #>> '{metering_info,row_count}')::bigint + (one #>> '{metering_info,row_count}')::bigint));
		END IF;
	END LOOP;
	RETURN out;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.describe_search_index_api(text, text, text) IS
	'ots.describe_search_index with the caller''s search_path: the first shard''s definition, FULL while any shard builds, every shard''s sizes (internal)';

CREATE FUNCTION ots.describe_search_index(table_name text, index_name text) RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL UNSAFE
	RETURN ots_cluster.describe_search_index_api(pg_catalog.current_setting('search_path'), table_name, index_name);
COMMENT ON FUNCTION ots.describe_search_index(text, text) IS
	'a search index''s schema, sync phase and timestamp, TTL and creation time, as the first shard describes it';

CREATE FUNCTION ots_cluster.list_search_index_api(caller_path text, of_table text)
	RETURNS TABLE (schema_name name, table_name name, index_name text)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	p integer := (ots_cluster.shard_partitions())[1];
	target text;
	s text; m text; d text; hi text;
BEGIN
	IF of_table IS NOT NULL THEN
		target := ots_cluster.target(ots_cluster.table_of(of_table, caller_path), of_table);
	END IF;
	RETURN QUERY SELECT l.schema_name, l.table_name, l.index_name FROM ots_cluster.list_search_index_on(p, target) l;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.list_search_index_api(text, text) IS
	'ots.list_search_index with the caller''s search_path, from the first shard (internal)';

CREATE FUNCTION ots.list_search_index(of_table text DEFAULT NULL)
	RETURNS TABLE (schema_name name, table_name name, index_name text)
	LANGUAGE sql STABLE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT l.schema_name, l.table_name, l.index_name
	  FROM ots_cluster.list_search_index_api(pg_catalog.current_setting('search_path'), of_table) l;
END;
COMMENT ON FUNCTION ots.list_search_index(text) IS
	'the search indexes of ots table of_table, or of every table the caller may see (NULL), as the first shard lists them';

CREATE FUNCTION ots.search_analyze("text" text, analyzer text DEFAULT 'single_word', analyzer_parameter jsonb DEFAULT NULL)
	RETURNS TABLE (token text, "position" integer)
	LANGUAGE sql STABLE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT a.token, a."position"
	  FROM ots_cluster.search_analyze_on((ots_cluster.shard_partitions())[1], "text", analyzer, analyzer_parameter) a;
END;
COMMENT ON FUNCTION ots.search_analyze(text, text, jsonb) IS
	'the tokens, with their positions, that a TEXT field''s analyzer makes of a text, as the first shard cuts them';

------------------------------------------------------------------------------
-- Merging the shards' aggregations (each list in the request's order; a
-- shard's result for request element i is element i of its list)
------------------------------------------------------------------------------

-- ots_cluster.search_value_order: a sort key of an aggregation's value (a
-- LONG, DOUBLE or DATE as a jsonb number, or NaN and the infinities as
-- strings), numerically as the shards order them
CREATE FUNCTION ots_cluster.search_value_order(v jsonb) RETURNS numeric
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN (v OPERATOR(pg_catalog.#>>) '{}')::numeric;
COMMENT ON FUNCTION ots_cluster.search_value_order(jsonb) IS
	'an aggregation''s numeric value as a numeric, ordered as the shards order it (internal)';

CREATE FUNCTION ots_cluster.search_merge_aggs(requests jsonb, results jsonb[]) RETURNS jsonb
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	merged jsonb := '[]';
	req jsonb;
	kind text;
	one jsonb;
	parts jsonb[];
	n bigint;
BEGIN
	FOR i IN 0 .. jsonb_array_length(requests) - 1 LOOP
		req := requests -> i;
		kind := req ->> 'type';
		parts := ARRAY(SELECT r -> i FROM unnest(results) AS r);
		one := jsonb_build_object('name', req -> 'name', 'type', kind);
		IF kind = 'count' THEN
			one := one || jsonb_build_object('value', (SELECT sum((x ->> 'value')::bigint) FROM unnest(parts) x));
		ELSIF kind = 'sum' THEN
			one := one || jsonb_build_object('value',
				CASE WHEN (parts[1] ->> 'double')::boolean
					 THEN (SELECT to_jsonb(sum((x ->> 'value')::float8)) FROM unnest(parts) x)
					 ELSE (SELECT to_jsonb(sum((x ->> 'value')::numeric)) FROM unnest(parts) x) END);
		ELSIF kind IN ('min', 'max') THEN
			one := one || jsonb_build_object('value',
				(SELECT x -> 'value' FROM unnest(parts) x WHERE jsonb_typeof(x -> 'value') <> 'null'
				  ORDER BY CASE WHEN kind = 'min' THEN ots_cluster.search_value_order(x -> 'value') END,
						   ots_cluster.search_value_order(x -> 'value') DESC LIMIT 1));
		ELSIF kind = 'avg' THEN
			n := (SELECT sum((x ->> 'count')::bigint) FROM unnest(parts) x);
			one := one || jsonb_build_object('value',
				CASE WHEN n = 0 THEN NULL
					 WHEN (parts[1] ->> 'double')::boolean
					 THEN (SELECT to_jsonb(sum((x ->> 'sum')::float8) / n) FROM unnest(parts) x)
					 ELSE (SELECT to_jsonb((sum((x ->> 'sum')::numeric) / n)::float8) FROM unnest(parts) x) END);
		ELSIF kind = 'distinct_count' THEN
			one := one || jsonb_build_object('value',
				(SELECT count(DISTINCT v) FROM unnest(parts) x, jsonb_array_elements(x -> 'values') v));
		ELSIF kind = 'percentiles' THEN
			-- as each node computes it: at position p/100 * (count - 1) of all
			-- the shards' values, interpolated between the two values around
			-- it, a LONG's or DATE's truncated toward zero; keys ascending
			one := one || jsonb_build_object('items', (
				WITH vals AS (
					SELECT e -> 0 AS v, sum((e ->> 1)::bigint) AS c
					  FROM unnest(parts) x, jsonb_array_elements(x -> 'values') e
					 GROUP BY 1),
				cum AS (
					SELECT v, sum(c) OVER (ORDER BY ots_cluster.search_value_order(v)) AS upto, sum(c) OVER () AS total
					  FROM vals),
				pos AS (
					SELECT p.k, p.n, (p.k #>> '{}')::numeric / 100 * ((SELECT max(total) FROM cum) - 1) AS at
					  FROM jsonb_array_elements(req -> 'percentiles') WITH ORDINALITY AS p(k, n)),
				ends AS (
					SELECT pos.k, pos.n, pos.at - floor(pos.at) AS frac,
						   (SELECT cum.v #>> '{}' FROM cum WHERE cum.upto > floor(pos.at) ORDER BY cum.upto LIMIT 1) AS lo,
						   (SELECT cum.v #>> '{}' FROM cum WHERE cum.upto > ceil(pos.at) ORDER BY cum.upto LIMIT 1) AS hi
					  FROM pos)
				SELECT jsonb_agg(jsonb_build_object('key', e.k, 'value',
						CASE WHEN (SELECT bool_or((x ->> 'double')::boolean) FROM unnest(parts) x)
							 THEN to_jsonb(e.lo::float8 + (e.hi::float8 * 0.5 - e.lo::float8 * 0.5) * (2 * e.frac)::float8)
							 ELSE to_jsonb(trunc(e.lo::numeric + (e.hi::numeric - e.lo::numeric) * e.frac)::bigint) END)
						ORDER BY e.k, e.n)
				  FROM ends e));
		ELSIF kind = 'top_rows' THEN
			one := one || jsonb_build_object('rows', coalesce((
				SELECT jsonb_agg(r.row - '$order' ORDER BY r.place)
				  FROM (SELECT row, decode(row ->> '$order', 'hex') AS place
						  FROM unnest(parts) x, jsonb_array_elements(x -> 'rows') row
						 ORDER BY place
						 LIMIT coalesce((req ->> 'limit')::numeric, 1)) r), '[]'));
		END IF;
		merged := merged || jsonb_build_array(one);
	END LOOP;
	RETURN merged;
END
$$;
COMMENT ON FUNCTION ots_cluster.search_merge_aggs(jsonb, jsonb[]) IS
	'a search''s aggregations merged from the shards'' parts (internal)';

-- ots_cluster.search_bucket_order: ORDER BY's list for a group-by's merged
-- buckets y (y.c the row count; y.k, y.ks, y.kb the key if a number, a
-- string in the shards' "C" order, a boolean): its sorters, then the
-- default (a field's: most rows first, then keys; a histogram's: keys)
CREATE FUNCTION ots_cluster.search_bucket_order(g jsonb) RETURNS text
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	items text[] := '{}';
	sorter jsonb;
	dir text;
BEGIN
	FOR sorter IN SELECT e FROM jsonb_array_elements(coalesce(g #> '{sort,sorters}', '[]')) e LOOP
		dir := CASE WHEN coalesce(coalesce(sorter -> 'row_count_sort', sorter -> 'group_key_sort', sorter -> 'sub_agg_sort') ->> 'order', 'ASC')
						 IN ('DESC', 'SORT_ORDER_DESC') THEN 'DESC' ELSE 'ASC' END;
		items := items || CASE WHEN sorter ? 'row_count_sort' THEN format('y.c %s', dir)
							   -- a sub-aggregation's merged value as a node compares it, a bucket without one last
							   WHEN sorter ? 'sub_agg_sort' THEN format(
									'(SELECT (a ->> ''value'')::float8 FROM jsonb_array_elements(y.item -> ''sub_aggs'') a'
									' WHERE a ->> ''name'' = %L) %s NULLS LAST', sorter #>> '{sub_agg_sort,sub_agg_name}', dir)
							   ELSE format('y.k %1$s, y.ks %1$s, y.kb %1$s', dir) END;
	END LOOP;
	IF g ->> 'type' = 'field' THEN
		items := items || 'y.c DESC'::text;
	END IF;
	RETURN array_to_string(items || 'y.k, y.ks, y.kb'::text, ', ');
END
$$;
COMMENT ON FUNCTION ots_cluster.search_bucket_order(jsonb) IS
	'the ORDER BY list of a group-by''s merged buckets, from its sorters (internal)';

CREATE FUNCTION ots_cluster.search_merge_group_bys(requests jsonb, results jsonb[]) RETURNS jsonb
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	merged jsonb := '[]';
	g jsonb;
	kind text;
	parts jsonb[];
	key_name text;
	items jsonb;
	nitems bigint;
	code text;
BEGIN
	FOR i IN 0 .. jsonb_array_length(requests) - 1 LOOP
		g := requests -> i;
		kind := g ->> 'type';
		parts := ARRAY(SELECT r -> i FROM unnest(results) AS r);
		IF kind IN ('range', 'geo_distance', 'filter') THEN
			-- the same buckets on every shard, in the request's order
			items := (SELECT jsonb_agg(ots_cluster.search_merge_bucket(g, b.items) ORDER BY b.n)
						FROM (SELECT e.n, array_agg(e.item) AS items
								FROM unnest(parts) x, jsonb_array_elements(x -> 'items') WITH ORDINALITY AS e(item, n)
							   GROUP BY e.n) b);
		ELSE
			-- buckets by key (a field's values, a histogram's intervals), at
			-- least min_doc_count rows each, in order, a field's first size
			key_name := CASE kind WHEN 'date_histogram' THEN 'timestamp' ELSE 'key' END;
			EXECUTE format(
				'SELECT jsonb_agg(z.item ORDER BY z.n), count(*)
				   FROM (SELECT y.item, row_number() OVER (ORDER BY %s) AS n
						   FROM (SELECT ots_cluster.search_merge_bucket($1, array_agg(e)) AS item,
										sum((e ->> ''row_count'')::bigint) AS c,
										CASE jsonb_typeof(e -> $4) WHEN ''number'' THEN (e -> $4)::numeric END AS k,
										CASE jsonb_typeof(e -> $4) WHEN ''string'' THEN (e -> $4) #>> ''{}'' END COLLATE "C" AS ks,
										CASE jsonb_typeof(e -> $4) WHEN ''boolean'' THEN (e -> $4)::boolean END AS kb
								   FROM unnest($2) x, jsonb_array_elements(x -> ''items'') e
								  GROUP BY e -> $4
								 HAVING sum((e ->> ''row_count'')::bigint) >= $3) y) z
				  WHERE z.n <= $5',
				ots_cluster.search_bucket_order(g))
			  INTO items, nitems
			  USING g, parts, greatest(coalesce((g ->> 'min_doc_count')::numeric, 1), 1), key_name,
					CASE WHEN kind = 'field' THEN coalesce((g ->> 'size')::numeric, 10) ELSE 'Infinity'::numeric END;
			IF kind IN ('histogram', 'date_histogram') AND nitems > (parts[1] ->> 'max_buckets')::integer THEN
				code := (SELECT e.sqlstate FROM ots_cluster.error_codes e WHERE e.code = 'OTSParameterInvalid');
				RAISE EXCEPTION USING ERRCODE = code,
					MESSAGE = format('group_by_%s has more than %s buckets: a larger interval, or a field_range.',
									 kind, parts[1] ->> 'max_buckets'),
					DETAIL = 'See docs/reference.md, "Search", aggregations.';
			END IF;
		END IF;
		merged := merged || jsonb_build_array(jsonb_build_object('name', g -> 'name', 'type', kind,
																 'items', coalesce(items, '[]')));
	END LOOP;
	RETURN merged;
END
$$;
COMMENT ON FUNCTION ots_cluster.search_merge_group_bys(jsonb, jsonb[]) IS
	'a search''s group-bys merged from the shards'' parts (internal)';

-- ots_cluster.search_merge_bucket: one bucket of group-by g from the
-- shards' buckets of the same key (or range, or filter): row counts added,
-- sub-aggregations and sub-group-bys merged
CREATE FUNCTION ots_cluster.search_merge_bucket(g jsonb, buckets jsonb[]) RETURNS jsonb
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	bucket jsonb := buckets[1] - 'sub_aggs' - 'sub_group_bys';
BEGIN
	bucket := bucket || jsonb_build_object('row_count', (SELECT sum((b ->> 'row_count')::bigint) FROM unnest(buckets) b));
	IF g ? 'sub_aggs' AND jsonb_typeof(g -> 'sub_aggs') = 'array' THEN
		bucket := bucket || jsonb_build_object('sub_aggs', ots_cluster.search_merge_aggs(g -> 'sub_aggs',
			ARRAY(SELECT b -> 'sub_aggs' FROM unnest(buckets) b)));
	END IF;
	IF g ? 'sub_group_bys' AND jsonb_typeof(g -> 'sub_group_bys') = 'array' THEN
		bucket := bucket || jsonb_build_object('sub_group_bys', ots_cluster.search_merge_group_bys(g -> 'sub_group_bys',
			ARRAY(SELECT b -> 'sub_group_bys' FROM unnest(buckets) b)));
	END IF;
	RETURN bucket;
END
$$;
COMMENT ON FUNCTION ots_cluster.search_merge_bucket(jsonb, jsonb[]) IS
	'a group-by''s bucket merged from the shards'' buckets of one key (internal)';

------------------------------------------------------------------------------
-- ots.search
------------------------------------------------------------------------------

-- ots_cluster.search_api: ots.search with the caller's search_path
CREATE FUNCTION ots_cluster.search_api(caller_path text, table_name text, index_name text, search_query jsonb,
									   columns_to_get jsonb) RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	target text;
	hashes integer[];
	query jsonb := search_query;
	token jsonb;
	parts jsonb[];
	part_hashes integer[];
	parts_read_columns boolean;
	off integer;
	lim integer;
	collapsed boolean;
	page jsonb;
	matched bigint;
	more boolean;
	result jsonb;
	pns integer[];
	p integer;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	target := ots_cluster.target(t, table_name);
	hashes := ots_cluster.range_hashes(t, NULL, NULL);
	p := hashes[1];
	-- one shard database (or a table the proxy does not know: the node's error)
	IF cardinality(hashes) = 1 THEN
		RETURN ots_cluster.search_on(hashes[1], target, index_name, search_query, columns_to_get);
	END IF;
	p := NULL;
	-- a collapsed page's token is the proxy's: the next page's offset
	IF jsonb_typeof(query -> 'token') = 'string' THEN
		BEGIN
			token := convert_from(decode(query ->> 'token', 'base64'), 'UTF8')::jsonb;
		EXCEPTION WHEN OTHERS THEN
			token := NULL;		-- not the proxy's: the shards say what it is
		END;
		-- the rows the pages before took, then the query's own offset, as a node skips it after a token
		IF jsonb_typeof(token) = 'object' AND jsonb_typeof(token -> '$cluster_offset') = 'number' AND query ? 'collapse' THEN
			query := query - 'token' || jsonb_build_object('offset',
				(token ->> '$cluster_offset')::numeric + CASE WHEN jsonb_typeof(query -> 'offset') = 'number'
															  THEN (query ->> 'offset')::numeric ELSE 0 END);
		END IF;
	END IF;
	-- columns with the rows from the start; past an offset, for the page's rows
	-- only, and the parts read their top rows' alone ("$aggs_only")
	parts_read_columns := coalesce(query -> 'offset', '0') = '0';
	SELECT array_agg(x.part ORDER BY x.hash), array_agg(x.hash ORDER BY x.hash)
	  INTO parts, part_hashes
	  FROM ots_cluster.search_parts(hashes, target, index_name, query,
									CASE WHEN parts_read_columns THEN columns_to_get
										 WHEN jsonb_path_exists(query, 'strict $.**.type ? (@ == "top_rows")')
										 THEN columns_to_get || '{"$aggs_only": true}' END) x;
	off := (parts[1] ->> 'offset')::integer;
	lim := (parts[1] ->> 'limit')::integer;
	collapsed := query ? 'collapse';
	WITH found AS (
		SELECT r, x.n AS part_no, decode(r ->> '$order', 'hex') AS place
		  FROM unnest(parts) WITH ORDINALITY AS x(part, n), jsonb_array_elements(x.part -> 'rows') r),
	firsts AS (
		SELECT f.*, row_number() OVER (PARTITION BY CASE WHEN collapsed THEN f.r -> '$collapse' END ORDER BY f.place) AS rank
		  FROM found f),
	merged AS (
		SELECT f.*, row_number() OVER (ORDER BY f.place) AS n
		  FROM firsts f WHERE NOT collapsed OR f.rank = 1)
	SELECT coalesce(jsonb_agg(mm.r || jsonb_build_object('$part', mm.part_no, '$n', mm.n) ORDER BY mm.n)
						FILTER (WHERE mm.n > off AND mm.n <= off + lim), '[]'),
		   count(*)
	  INTO page, matched
	  FROM merged mm;
	more := matched > off + lim OR EXISTS (SELECT 1 FROM unnest(parts) x WHERE jsonb_typeof(x -> 'next_token') = 'string');
	result := jsonb_build_object(
		'total_count', CASE WHEN EXISTS (SELECT 1 FROM unnest(parts) x WHERE (x ->> 'total_count')::bigint < 0) THEN -1
							ELSE (SELECT sum((x ->> 'total_count')::bigint) FROM unnest(parts) x) END,
		'next_token', CASE WHEN more AND jsonb_array_length(page) > 0 THEN
							CASE WHEN collapsed
								 THEN to_jsonb(translate(encode(convert_to(jsonb_build_object('$cluster_offset', off + lim)::text,
																			'UTF8'), 'base64'), E'\n', ''))
								 ELSE page -> -1 -> '$token' END END);
	IF NOT parts_read_columns AND columns_to_get IS NOT NULL THEN
		-- the page's rows read on their shards (the first checks columns_to_get when there are none)
		pns := ARRAY(SELECT DISTINCT (r ->> '$part')::integer FROM jsonb_array_elements(page) r ORDER BY 1);
		IF cardinality(pns) = 0 THEN
			pns := ARRAY[1];
		END IF;
		SELECT coalesce(jsonb_agg(r), '[]')
		  INTO page
		  FROM ots_cluster.search_part_rows(
				ARRAY(SELECT part_hashes[u.pn] FROM unnest(pns) WITH ORDINALITY AS u(pn, k) ORDER BY u.k),
				target, index_name,
				ARRAY(SELECT jsonb_build_object('rows', coalesce((SELECT jsonb_agg(r) FROM jsonb_array_elements(page) r
																	WHERE (r ->> '$part')::integer = u.pn), '[]'))
						FROM unnest(pns) WITH ORDINALITY AS u(pn, k) ORDER BY u.k),
				columns_to_get) x, jsonb_array_elements(x.page -> 'rows') r;
	END IF;
	result := result || jsonb_build_object('rows', coalesce(
		(SELECT jsonb_agg(r - '$order' - '$token' - '$collapse' - '$part' - '$n' ORDER BY (r ->> '$n')::bigint)
		   FROM jsonb_array_elements(page) r), '[]'));
	IF jsonb_typeof(query -> 'aggs') = 'array' THEN
		result := result || jsonb_build_object('aggs', ots_cluster.search_merge_aggs(query -> 'aggs',
			ARRAY(SELECT x -> 'aggs' FROM unnest(parts) x)));
	END IF;
	IF jsonb_typeof(query -> 'group_bys') = 'array' THEN
		result := result || jsonb_build_object('group_bys', ots_cluster.search_merge_group_bys(query -> 'group_bys',
			ARRAY(SELECT x -> 'group_bys' FROM unnest(parts) x)));
	END IF;
	RETURN result;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.search_api(text, text, text, jsonb, jsonb) IS
	'ots.search with the caller''s search_path: every shard''s part, merged (internal)';

CREATE FUNCTION ots.search(table_name text, index_name text, search_query jsonb, columns_to_get jsonb DEFAULT NULL)
	RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL UNSAFE
	RETURN ots_cluster.search_api(pg_catalog.current_setting('search_path'), table_name, index_name, search_query,
								  columns_to_get);
COMMENT ON FUNCTION ots.search(text, text, jsonb, jsonb) IS
	'searches a search index on every shard (Tablestore''s SearchQuery as jsonb), the pages merged: rows in order with columns_to_get, the total count when asked, the next page''s token, aggregations';
