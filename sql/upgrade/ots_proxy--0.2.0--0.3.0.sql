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
