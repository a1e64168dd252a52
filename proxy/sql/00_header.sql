-- ots_proxy install script, assembled from proxy/sql/*.sql in name order (see Makefile).
\echo Use "CREATE EXTENSION ots_proxy" to load this file. \quit

-- The cluster, one concern a file: which shard database holds which
-- partition and the PL/Proxy cluster made of it (10_map.sql), routing by the
-- partition key (12_routing.sql), the catalog of tables the proxy knows
-- (14_catalog.sql), the one place shards' errors are turned back into the
-- single node's (16_errors.sql); then the API over them (20_rows.sql on).
--
-- Schema ots holds the API, the same names, arguments and result types as
-- the ots extension; schema ots_cluster everything else.  The API functions
-- run as the caller (PL/Proxy connects to the shards as current_user, so
-- privileges and row security apply there as for that role); they call
-- PL/Proxy functions in ots_cluster.
--
-- No caller setting may make this code run someone else's code
-- (docs/security.md, A cluster's proxy).  PL/pgSQL plans a statement when it
-- first runs, with the search_path of that moment: an operator or function
-- it names unqualified could be one of a schema the caller put first.  So,
-- in every file of ots_proxy:
-- - every PL/pgSQL function pins its search_path (SET search_path =
--   pg_catalog, pg_temp), but one: the procedure ots.build_index, which
--   reads the caller's search_path itself and names only qualified
--   functions and no operator;
-- - the API functions that resolve table names as ots does, through the
--   caller's search_path, are SQL-standard functions (RETURN or BEGIN
--   ATOMIC: parsed once, at CREATE EXTENSION) that pass
--   pg_catalog.current_setting('search_path') to their implementation
--   ots_cluster.<name>_api(caller_path, ...), which is pinned; table_of,
--   search_schemas and resolve_on_shards take that setting as an argument;
-- - other SQL functions have SQL-standard bodies, or string bodies that
--   name only qualified functions and no operator (ots.get_range_rows,
--   which PostgreSQL inlines);
-- - the SPI queries of the C functions (ots.get_range, range_rows) name
--   only qualified functions and no operator (proxy/range_fetch.c);
-- - a PL/Proxy function's query runs on a shard, in the shard's session
--   (PL/Proxy sends no search_path); they qualify their operators too.

CREATE SCHEMA ots;
COMMENT ON SCHEMA ots IS 'Tablestore (OTS) API of an ots cluster''s proxy: routed to the shards with PL/Proxy';
GRANT USAGE ON SCHEMA ots TO PUBLIC;

CREATE SCHEMA ots_cluster;
COMMENT ON SCHEMA ots_cluster IS 'ots cluster: partition map, catalog, routing (internal to ots_proxy)';
GRANT USAGE ON SCHEMA ots_cluster TO PUBLIC;

-- the result type of every single-row call, as in the ots extension
CREATE TYPE ots.row_result AS (
	primary_key jsonb,
	attributes jsonb,
	consumed jsonb
);
COMMENT ON TYPE ots.row_result IS 'result of an ots row call: the row (or NULLs), and capacity units consumed';
