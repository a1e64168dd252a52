-- The catalog: what the proxy knows of each table (its key, for routing).
-- Each session keeps its own, per role, in memory (proxy/catalog_cache.c):
-- a lookup writes nothing other sessions share (so an open transaction
-- holds no lock another role's DDL would wait for, and nobody's lookups
-- make anything shared grow), and the shards are asked as the calling role,
-- who learns a table's key only where describe_table shows it the table.
-- Entries come only from the shards' answers (catalog_ask asks and records
-- in one call).  The proxy's DDL moves a generation every session checks,
-- so each forgets what it knew at its next lookup (catalog_changed).
-- A table's entry gives what the API sends a shard: a key's routing hash
-- (route, over 12_routing.sql's key_hash) and the table's name (target).

-- what the proxy knows of a table: its key (the first column routes), the
-- hash prefix, whether it is a secondary index
CREATE TYPE ots_cluster.table_entry AS (
	schema_name name,
	table_name name,
	pk_names text[],
	pk_types text[],
	hash_prefix_length integer,
	is_index boolean
);
COMMENT ON TYPE ots_cluster.table_entry IS
	'an ots table as the proxy routes to it: primary key, hash prefix, whether an index (as the shards describe it)';

-- the generation of what sessions know: bumped by the proxy's DDL and by
-- catalog_reset, read at every lookup (proxy/catalog_cache.c); every role
-- may read it, none but the extension's owner bump it directly
CREATE SEQUENCE ots_cluster.catalog_generation;
COMMENT ON SEQUENCE ots_cluster.catalog_generation IS
	'the generation of the sessions'' catalog caches: a session forgets what it knew when it moves';
REVOKE ALL ON SEQUENCE ots_cluster.catalog_generation FROM PUBLIC;
GRANT SELECT ON SEQUENCE ots_cluster.catalog_generation TO PUBLIC;
SELECT pg_catalog.nextval('ots_cluster.catalog_generation');

-- ots_cluster.qualified: the table-name argument naming schema.table for ots
-- (the schema part quoted as an identifier, the table part literal)
CREATE FUNCTION ots_cluster.qualified(schema_name name, table_name name) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN pg_catalog.quote_ident(schema_name) || '.' || table_name;
COMMENT ON FUNCTION ots_cluster.qualified(name, name) IS
	'the ots table-name argument for schema_name.table_name';

-- ots_cluster.describe_on: ots.describe_table of schema.table on the shard
-- of partition p, as the calling role: NULL when the role can name no
-- relation of that name there (none, or no USAGE on the schema: as
-- search_path skips such a schema); the single node's error when the role
-- may not see it (42501) or it is not an ots table (OTSObjectNotExist)
CREATE FUNCTION ots_cluster.describe_on(p integer, schema_arg name, table_arg name) RETURNS jsonb
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_class c
							   JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
							  WHERE n.nspname OPERATOR(pg_catalog.=) $2 AND c.relname OPERATOR(pg_catalog.=) $3
								AND pg_catalog.has_schema_privilege(n.oid, 'USAGE'))
				THEN ots.describe_table(pg_catalog.concat(pg_catalog.quote_ident($2), '.', $3)) END;
	$$;
COMMENT ON FUNCTION ots_cluster.describe_on(integer, name, name) IS
	'ots.describe_table of schema.table on the shard of partition p as the caller, NULL when it can name none (internal)';

-- ots_cluster.describe_any: describe_on the first shard that answers (every
-- shard has every table: a shard that is down must not stop the proxy from
-- resolving names on the others); the first shard's error when none does
CREATE FUNCTION ots_cluster.describe_any(schema_arg name, table_arg name) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	parts integer[] := ots_cluster.shard_partitions();
	s text; m text; d text; hi text;
	first_error text[];
BEGIN
	FOR i IN 1 .. pg_catalog.cardinality(parts) LOOP
		BEGIN
			RETURN ots_cluster.describe_on(parts[i], schema_arg, table_arg);
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
			IF first_error IS NULL THEN
				first_error := ARRAY[s, m, d, hi, parts[i]::text];
			END IF;
			-- only a shard that cannot be reached is passed over
			IF s <> 'XX000' THEN
				EXIT;
			END IF;
		END;
	END LOOP;
	PERFORM ots_cluster.raise_remote(first_error[1], first_error[2], first_error[3], first_error[4],
									 first_error[5]::integer);
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION ots_cluster.describe_any(name, name) IS
	'ots.describe_table of schema.table on the first shard that answers, as the caller; NULL when it can name none (internal)';

-- ots_cluster.entry_of: the catalog entry of a describe_table answer
CREATE FUNCTION ots_cluster.entry_of(d jsonb) RETURNS ots_cluster.table_entry
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN ROW(d ->> 'schema_name', d ->> 'table_name',
			   ARRAY(SELECT k ->> 'name' FROM pg_catalog.jsonb_array_elements(d -> 'primary_key') WITH ORDINALITY e(k, n) ORDER BY n),
			   ARRAY(SELECT k ->> 'type' FROM pg_catalog.jsonb_array_elements(d -> 'primary_key') WITH ORDINALITY e(k, n) ORDER BY n),
			   coalesce((d ->> 'hash_prefix_length')::integer, 0),
			   d ? 'index_of')::ots_cluster.table_entry;
COMMENT ON FUNCTION ots_cluster.entry_of(jsonb) IS 'the catalog entry of a describe_table answer (internal)';

-- ots_cluster.catalog_ask: the entry of schema.table as the shards describe
-- it to the calling role (describe_any), recorded in the session's cache;
-- NULL when the role can name no such table there
CREATE FUNCTION ots_cluster.catalog_ask(schema_name name, table_name name) RETURNS ots_cluster.table_entry
	AS 'MODULE_PATHNAME', 'ots_proxy_catalog_ask'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots_cluster.catalog_ask(name, name) IS
	'asks the shards (as the caller) for table schema.table and records the answer in the session''s catalog';

-- ots_cluster.cache_lookup: what the session knows, for the calling role,
-- of table_name in schemas, in order: the entry of the first schema that
-- has it, unless a schema before it is not known either way: then its
-- position, to be asked of the shards (catalog_ask)
CREATE FUNCTION ots_cluster.cache_lookup(schemas name[], table_name name,
										 OUT entry ots_cluster.table_entry, OUT unknown_at integer)
	AS 'MODULE_PATHNAME', 'ots_proxy_cache_lookup'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION ots_cluster.cache_lookup(name[], name) IS
	'the session''s catalog entry of table_name in the first of schemas that has it, or the first schema not known either way (internal)';

-- ots_cluster.cache_entries: what the session knows of tables for the
-- calling role (entry NULL: it can name no such table)
CREATE FUNCTION ots_cluster.cache_entries(OUT schema_name name, OUT table_name name,
										  OUT entry ots_cluster.table_entry)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'ots_proxy_cache_entries'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION ots_cluster.cache_entries() IS
	'the tables this session knows for the calling role (entry NULL: none of that name)';

-- ots_cluster.catalog_changed: called by the proxy's DDL once the shards
-- changed: every session forgets what it knew of tables at its next
-- lookup, and the view of schema.table in the proxy database follows the
-- table (ots_cluster.view_follow, when the caller may change it); with
-- NULLs, only the former.  C: it runs both as the extension's owner and
-- passes on the calling role, which no caller can choose.
CREATE FUNCTION ots_cluster.catalog_changed(schema_name name DEFAULT NULL, table_name name DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'ots_proxy_catalog_changed'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots_cluster.catalog_changed(name, name) IS
	'after the proxy''s DDL: every session forgets its catalog, and the table''s view in the proxy database follows it';

-- ots_cluster.split_name: a table-name argument as ots reads it: the part
-- after the last dot is the table, literally; before it, the schema, taken
-- literally or between double quotes ("" for one quote); no dot, no schema
CREATE FUNCTION ots_cluster.split_name(table_name text, OUT schema_name text, OUT relname text)
	LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	dot integer := pg_catalog.strpos(pg_catalog.reverse(table_name), '.');
BEGIN
	IF dot = 0 THEN
		relname := table_name;
		RETURN;
	END IF;
	dot := pg_catalog.length(table_name) - dot + 1;
	relname := pg_catalog.substr(table_name, dot + 1);
	schema_name := pg_catalog.substr(table_name, 1, dot - 1);
	IF pg_catalog.length(schema_name) >= 2 AND schema_name LIKE '"%"' THEN
		schema_name := pg_catalog.replace(pg_catalog.substr(schema_name, 2, pg_catalog.length(schema_name) - 2), '""', '"');
	END IF;
END
$$;
COMMENT ON FUNCTION ots_cluster.split_name(text) IS
	'the schema (NULL when unqualified) and table of a table-name argument, as ots reads them';

-- ots_cluster.table_changed: catalog_changed for a table-name argument the
-- proxy's DDL resolved (schema.table), or for none
CREATE FUNCTION ots_cluster.table_changed(qualified text) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	n record;
BEGIN
	SELECT x.schema_name, x.relname INTO n FROM ots_cluster.split_name(qualified) x;
	IF n.schema_name IS NULL OR pg_catalog.octet_length(n.schema_name) >= 64
		OR n.relname = '' OR pg_catalog.octet_length(n.relname) >= 64 THEN
		PERFORM ots_cluster.catalog_changed();
	ELSE
		PERFORM ots_cluster.catalog_changed(n.schema_name::name, n.relname::name);
	END IF;
END
$$;
COMMENT ON FUNCTION ots_cluster.table_changed(text) IS
	'catalog_changed for a schema.table argument the proxy''s DDL changed (internal)';

-- ots_cluster.catalog_reset: every session forgets what it knew of tables;
-- each table is asked of the shards again at its next use.  For DDL made
-- elsewhere (on the shards, through another proxy).
CREATE FUNCTION ots_cluster.catalog_reset() RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	BEGIN ATOMIC
		SELECT ots_cluster.catalog_changed();
	END;
COMMENT ON FUNCTION ots_cluster.catalog_reset() IS
	'every session forgets the proxy''s catalog (after DDL elsewhere): tables are looked up again';
REVOKE ALL ON FUNCTION ots_cluster.catalog_reset() FROM PUBLIC;

-- ots_cluster.search_schemas: the schemas of a search_path setting (the
-- caller's, passed down by the API functions), in order, "$user" as the
-- current role's name (schemas that exist only on the shards count too:
-- the proxy need not have them)
CREATE FUNCTION ots_cluster.search_schemas(search_path text) RETURNS name[]
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	RETURN ARRAY(
		SELECT CASE WHEN m[1] = '"$user"' OR m[1] = '$user' THEN current_user::name
					WHEN m[1] LIKE '"%"' THEN pg_catalog.replace(pg_catalog.substr(m[1], 2, pg_catalog.length(m[1]) - 2), '""', '"')::name
					ELSE pg_catalog.lower(m[1])::name END
		  FROM pg_catalog.regexp_matches(search_schemas.search_path,
										 '\s*("(?:[^"]|"")*"|[^,\s]+)\s*(?:,|$)', 'g') WITH ORDINALITY r(m, n)
		 WHERE m[1] NOT IN ('pg_temp', 'pg_catalog')
		 ORDER BY n);
END
$$;
COMMENT ON FUNCTION ots_cluster.search_schemas(text) IS
	'the schemas of search_path in order, "$user" resolved (internal)';

-- ots_cluster.table_of: the catalog entry a table-name argument means to
-- the calling role: a qualified name (schema.table, schema possibly quoted)
-- or an unqualified one through search_path (the caller's, passed down):
-- the first schema that has the table, each schema the session does not
-- know either way asked of the shards (catalog_ask); NULL when no table
-- matches (the caller then lets the first shard raise the error)
CREATE FUNCTION ots_cluster.table_of(table_name text, search_path text) RETURNS ots_cluster.table_entry
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	schema_part text;
	schemas name[];
	relname text;
	entry ots_cluster.table_entry;
	found record;
BEGIN
	IF table_name IS NULL THEN
		RETURN NULL;
	END IF;
	SELECT n.schema_name, n.relname INTO schema_part, relname FROM ots_cluster.split_name(table_name) n;
	IF pg_catalog.octet_length(relname) >= 64 OR relname = '' OR pg_catalog.octet_length(schema_part) >= 64 THEN
		RETURN NULL;
	END IF;
	schemas := CASE WHEN schema_part IS NULL THEN ots_cluster.search_schemas(table_of.search_path) ELSE ARRAY[schema_part::name] END;
	-- the first schema in order that has it: known to the session, or
	-- asked of the shards for each schema not known either way
	LOOP
		SELECT * INTO found FROM ots_cluster.cache_lookup(schemas, relname::name);
		IF (found.entry).table_name IS NOT NULL THEN
			RETURN found.entry;
		ELSIF found.unknown_at IS NULL THEN
			-- known absent everywhere: a miss is the error path, so ask again
			-- rather than route a table made since (elsewhere) to partition 0
			FOR i IN 1 .. coalesce(pg_catalog.cardinality(schemas), 0) LOOP
				entry := ots_cluster.catalog_ask(schemas[i], relname::name);
				IF entry.table_name IS NOT NULL THEN
					RETURN entry;
				END IF;
			END LOOP;
			RETURN NULL;
		END IF;
		entry := ots_cluster.catalog_ask(schemas[found.unknown_at], relname::name);
		IF entry.table_name IS NOT NULL THEN
			RETURN entry;
		END IF;
		-- (when the generation moved, the answer was not recorded: go on after it)
		schemas := schemas[found.unknown_at + 1 :];
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots_cluster.table_of(text, text) IS
	'the catalog entry of a table-name argument (search_path as ots resolves it) for the caller, asking the shards on a miss';

-- ots_cluster.route: the routing hash of a primary key of a table (0 when
-- the table is unknown or the key has no valid partition key)
CREATE FUNCTION ots_cluster.route(t ots_cluster.table_entry, primary_key jsonb) RETURNS integer
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE WHEN t.table_name IS NULL OR pg_catalog.jsonb_typeof(primary_key) <> 'object' THEN 0
				ELSE coalesce(ots_cluster.key_hash(primary_key -> t.pk_names[1], t.pk_types[1]), 0) END;
COMMENT ON FUNCTION ots_cluster.route(ots_cluster.table_entry, jsonb) IS
	'the routing hash of a primary key of table t (0 when t is unknown or the key invalid)';

-- ots_cluster.target: the table-name argument to send to a shard: the
-- qualified name the proxy resolved, or the caller's when it found none
CREATE FUNCTION ots_cluster.target(t ots_cluster.table_entry, table_name text) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE WHEN t.table_name IS NULL THEN table_name
				ELSE ots_cluster.qualified(t.schema_name, t.table_name) END;
COMMENT ON FUNCTION ots_cluster.target(ots_cluster.table_entry, text) IS
	'the table name to pass to a shard: qualified when resolved, else as given';
