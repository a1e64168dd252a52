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
