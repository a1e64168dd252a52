-- ots install script, assembled from src/sql/*.sql in name order (see Makefile).
\echo Use "CREATE EXTENSION ots" to load this file. \quit

CREATE SCHEMA ots;
COMMENT ON SCHEMA ots IS 'Tablestore (OTS) wide-column tables: API, metadata and types';
GRANT USAGE ON SCHEMA ots TO PUBLIC;
