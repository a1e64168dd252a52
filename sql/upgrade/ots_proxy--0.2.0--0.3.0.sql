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
