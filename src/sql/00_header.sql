-- ots install script, assembled from src/sql/*.sql in name order (see Makefile).
\echo Use "CREATE EXTENSION ots" to load this file. \quit

CREATE SCHEMA ots;
COMMENT ON SCHEMA ots IS 'Tablestore (OTS) wide-column tables: API, metadata and types';
GRANT USAGE ON SCHEMA ots TO PUBLIC;

-- ots needs shared_preload_libraries = 'ots' (src/preload.c): without it,
-- CREATE EXTENSION ots (and ALTER EXTENSION ots UPDATE) stops here
CREATE FUNCTION ots.require_preload() RETURNS void
	AS 'MODULE_PATHNAME', 'ots_require_preload' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION ots.require_preload() IS
	'raises an error unless ots was loaded by shared_preload_libraries, which it needs (CREATE EXTENSION and ALTER EXTENSION UPDATE call it first)';
SELECT ots.require_preload();
