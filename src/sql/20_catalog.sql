-- ots.tables: one row per ots table.  Names, never OIDs, so dumps restore.
CREATE TABLE ots.tables (
	schema_name name NOT NULL,
	table_name name NOT NULL,
	pk_names text[] NOT NULL,
	pk_types text[] NOT NULL,
	auto_increment smallint,
	max_versions integer NOT NULL,
	time_to_live bigint NOT NULL,
	max_version_offset bigint NOT NULL,
	allow_update boolean NOT NULL,
	partitions integer NOT NULL,
	hash_prefix_length integer NOT NULL,
	created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	-- expiry (50_expiry.sql): when above max_versions, stored columns may
	-- still hold up to this many cells (max_versions was lowered) and
	-- ots.purge owes the table one full trimming pass; NULL = trimmed
	trimmed_max_versions integer,
	PRIMARY KEY (schema_name, table_name)
);
COMMENT ON TABLE ots.tables IS 'metadata of every ots table (see ots.describe_table)';
SELECT pg_catalog.pg_extension_config_dump('ots.tables', '');

-- ots_owns_table: may the current role manage this ots table's metadata?
CREATE FUNCTION ots.owns_table(schema_name name, table_name name) RETURNS boolean
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT coalesce(pg_catalog.pg_has_role(c.relowner, 'USAGE'), false)
	  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
	 WHERE n.nspname OPERATOR(pg_catalog.=) $1
	   AND c.relname OPERATOR(pg_catalog.=) ($2 OPERATOR(pg_catalog.||) '$data')
$$;
COMMENT ON FUNCTION ots.owns_table(name, name) IS 'whether the current role owns (or is a member of the owner of) an ots table';

-- everyone may read metadata; only a table's owner may change its row
ALTER TABLE ots.tables ENABLE ROW LEVEL SECURITY;
CREATE POLICY tables_read ON ots.tables FOR SELECT USING (true);
CREATE POLICY tables_insert ON ots.tables FOR INSERT WITH CHECK (ots.owns_table(schema_name, table_name));
CREATE POLICY tables_update ON ots.tables FOR UPDATE USING (ots.owns_table(schema_name, table_name));
CREATE POLICY tables_delete ON ots.tables FOR DELETE USING (ots.owns_table(schema_name, table_name));
GRANT SELECT, INSERT, UPDATE, DELETE ON ots.tables TO PUBLIC;

CREATE FUNCTION ots.invalidate_table(storage regclass) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_invalidate_table' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.invalidate_table(regclass) IS 'makes every session reload an ots table''s metadata (internal)';

CREATE FUNCTION ots.error_code(sqlstate text) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_error_code' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.error_code(text) IS 'the Tablestore error code (OTSParameterInvalid, ...) of an ots SQLSTATE';
