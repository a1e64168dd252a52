-- Range reads on the proxy: ots.get_range and ots.get_range_rows over the
-- shards, their merges in C (ots_proxy.so, proxy/*.c).
--
-- A range within one partition key (the first key column equal in both
-- bounds and not $inf) lives on one shard and goes there, its page passed
-- through (so does any range of a cluster of one database).  Any other
-- range is asked of every shard database, each answering with its own
-- Tablestore page, and the pages are merged in ots's stored key order
-- (proxy/range_key.c: the hash prefix first on a hash-prefixed table, then
-- String bytewise, Integer signed, Binary bytewise): what get_range returns
-- is what one node holding all the rows could return as a page, and its
-- next_start_primary_key resumes without loss or repetition
-- (proxy/range_merge.c says how).  get_range_rows pages every shard the
-- same way and streams the merge, holding one page per shard
-- (proxy/range_rows.c).  Both read pages through ots_cluster.range_read.
--
-- The page caps (5000 rows, 4 MB) are the shards' own: each shard sends
-- them beside its page (ots.limit of src/ots_limits.h), so the proxy spells
-- no limit and cannot disagree with the shards about one.

-- the result of get_range, as on a single node (src/sql/40_rows.sql)
CREATE TYPE ots.range_result AS (
	rows jsonb,
	next_start_primary_key jsonb,
	consumed jsonb
);
COMMENT ON TYPE ots.range_result IS
	'one get_range page: rows [{primary_key, attributes}], the key to continue from (NULL when done), capacity units';

-- ots_cluster.range_pages: one get_range page of each shard named by a
-- routing hash of hashes, from its own start (starts, in the same order),
-- all asked in parallel (PL/Proxy's SPLIT: each shard gets its elements),
-- each answered with its hash and its page caps (ots.limit of
-- src/ots_limits.h, so the proxy spells no limit).  The proxy merges pages
-- by row, so a shard's page ends between rows (whole_rows): a wide row
-- comes whole, as the page's last row, past the byte cap if it must.
CREATE FUNCTION ots_cluster.range_pages(
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

-- ots_cluster.range_route is the routing hash to send a range to when one
-- shard holds all of it: the partition key's when both bounds fix it (not on
-- an index, whose first column is not the partition key), 0 when the table
-- is unknown (the first shard raises the single node's error); NULL when
-- every shard must be asked.
CREATE FUNCTION ots_cluster.range_route(t ots_cluster.table_entry, inclusive_start_primary_key jsonb,
										exclusive_end_primary_key jsonb) RETURNS integer
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE
		WHEN t.table_name IS NULL THEN 0
		WHEN NOT t.is_index
			 AND pg_catalog.jsonb_typeof(inclusive_start_primary_key) = 'object'
			 AND pg_catalog.jsonb_typeof(exclusive_end_primary_key) = 'object'
			 AND inclusive_start_primary_key -> t.pk_names[1] = exclusive_end_primary_key -> t.pk_names[1]
			 AND NOT coalesce(inclusive_start_primary_key -> t.pk_names[1] ? '$inf', false)
			THEN ots_cluster.route(t, inclusive_start_primary_key)
		END;
COMMENT ON FUNCTION ots_cluster.range_route(ots_cluster.table_entry, jsonb, jsonb) IS
	'the routing hash of the one shard a range goes to (one partition key, or an unknown table), NULL when it spans shards';

-- ots_cluster.range_hashes: the routing hashes of the shards a range reads:
-- the one range_route names, else a partition of every shard database
CREATE FUNCTION ots_cluster.range_hashes(t ots_cluster.table_entry, inclusive_start_primary_key jsonb,
										 exclusive_end_primary_key jsonb) RETURNS integer[]
	LANGUAGE sql STABLE PARALLEL SAFE
	RETURN CASE WHEN ots_cluster.range_route(t, inclusive_start_primary_key, exclusive_end_primary_key) IS NOT NULL
				THEN ARRAY[ots_cluster.range_route(t, inclusive_start_primary_key, exclusive_end_primary_key)]
				ELSE ARRAY(SELECT sh.partition FROM ots_cluster.shards() AS sh ORDER BY sh.shard) END;
COMMENT ON FUNCTION ots_cluster.range_hashes(ots_cluster.table_entry, jsonb, jsonb) IS
	'the routing hashes of the shards a range reads: its partition key''s, or one per shard database (internal)';

-- get_range_rows streams the merge in C (proxy/range_rows.c, ots_proxy.so):
-- it holds one page per shard, each read from the shard's own next key
-- through ots_cluster.range_read when its rows are used up, and returns
-- the row that comes first in the stored key order (proxy/range_key.c),
-- one per key, until the limit or the end of every shard.  Nothing holds
-- the rows returned (no tuplestore, no temporary file): ots.get_range_rows
-- calls it in its SELECT list, and is an SQL function PostgreSQL inlines
-- into the caller's query, so its rows flow to the caller one at a time
-- and a caller that stops reading (a LIMIT) stops the reads.
CREATE TYPE ots_cluster.range_row AS (primary_key jsonb, attributes jsonb);
COMMENT ON TYPE ots_cluster.range_row IS 'a row of get_range_rows (internal)';

-- ots_cluster.range_read: one get_range page of each shard of hashes from
-- its start in starts, read in parallel (ots_cluster.range_pages), as
-- arrays in the order the pages came, with the smallest page caps; a
-- shard's error is raised as the single node's.  What ots_proxy.so reads
-- pages with; one row, not a set, so no tuplestore holds the pages.
CREATE FUNCTION ots_cluster.range_read(
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
	OUT read_hashes integer[], OUT pages jsonb[], OUT nexts jsonb[], OUT consumed jsonb[],
	OUT max_rows bigint, OUT max_bytes bigint)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	err_state text;
	err_message text;
	err_detail text;
	err_hint text;
BEGIN
	SELECT pg_catalog.array_agg((p.p).hash), pg_catalog.array_agg((p.p).rows),
		   pg_catalog.array_agg((p.p).next_start_primary_key), pg_catalog.array_agg((p.p).consumed),
		   pg_catalog.min((p.p).max_rows), pg_catalog.min((p.p).max_bytes)
	  INTO read_hashes, pages, nexts, consumed, max_rows, max_bytes
	  -- in the SELECT list, so no tuplestore holds the pages
	  FROM (SELECT ots_cluster.range_pages(hashes, table_name, starts, exclusive_end_primary_key, direction,
										   "limit", columns_to_get, max_versions, time_range, filter,
										   with_timestamps, start_column, end_column) AS p) p;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_message = MESSAGE_TEXT,
		err_detail = PG_EXCEPTION_DETAIL, err_hint = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(err_state, err_message, err_detail, err_hint,
									 CASE WHEN pg_catalog.cardinality(hashes) = 1 THEN ots_cluster.partition_of(hashes[1]) END);
END
$$;
COMMENT ON FUNCTION ots_cluster.range_read(integer[], text, jsonb[], jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'one get_range page of each shard of hashes from its start, in parallel, as arrays, errors as the single node''s (internal)';

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
	LANGUAGE c STABLE PARALLEL UNSAFE		-- STABLE as on a single node
	AS 'MODULE_PATHNAME', 'ots_get_range';
COMMENT ON FUNCTION ots.get_range(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'one page of a primary-key range: at most 5000 rows and 4 MB, with next_start_primary_key (Tablestore GetRange), merged over the shards';

CREATE FUNCTION ots_cluster.range_rows(
	table_name text,
	inclusive_start_primary_key jsonb,
	exclusive_end_primary_key jsonb,
	direction text,
	"limit" integer,
	columns_to_get text[],
	max_versions integer,
	time_range jsonb,
	filter jsonb,
	with_timestamps boolean,
	start_column text,
	end_column text) RETURNS SETOF ots_cluster.range_row
	LANGUAGE c VOLATILE PARALLEL UNSAFE ROWS 1000
	AS 'MODULE_PATHNAME', 'ots_range_rows';
COMMENT ON FUNCTION ots_cluster.range_rows(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'the rows of a range merged over the shards in stored key order, streamed holding one page per shard (internal)';

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
	LANGUAGE sql STABLE PARALLEL UNSAFE ROWS 1000
	AS $$
	SELECT (m.r).primary_key, (m.r).attributes
	  FROM (SELECT ots_cluster.range_rows(table_name, inclusive_start_primary_key, exclusive_end_primary_key,
										  direction, "limit", columns_to_get, max_versions, time_range, filter,
										  with_timestamps, start_column, end_column) AS r) m
$$;
COMMENT ON FUNCTION ots.get_range_rows(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'every row of a primary-key range as a set, merged over the shards in key order, streamed one page per shard at a time';

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
