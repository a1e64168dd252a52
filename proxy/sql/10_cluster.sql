-- ots_proxy install script, assembled from proxy/sql/*.sql in name order (see Makefile).
\echo Use "CREATE EXTENSION ots_proxy" to load this file. \quit

-- The cluster: which shard database holds which partition, the PL/Proxy
-- cluster made of it, routing by the partition key, the catalog of tables
-- the proxy knows, and the one place shards' errors are turned back into
-- the single node's.
--
-- Schema ots holds the API, the same names, arguments and result types as
-- the ots extension; schema ots_cluster everything else.  The API functions
-- run as the caller (PL/Proxy connects to the shards as current_user, so
-- privileges and row security apply there as for that role); they call
-- PL/Proxy functions in ots_cluster.
--
-- No caller setting may make this code run someone else's code (DESIGN
-- §9).  PL/pgSQL plans a statement when it first runs, with the search_path
-- of that moment: an operator or function it names unqualified could be one
-- of a schema the caller put first.  So, in every file of ots_proxy:
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

------------------------------------------------------------------------------
-- The map: P partitions (a power of two), each in one shard database.  Whole
-- partitions move when shards are added.  PL/Proxy reads the cluster
-- 'ots_cluster' from this table through its configuration functions
-- (plproxy.get_cluster_version, get_cluster_partitions, get_cluster_config,
-- below): no foreign server, no user mappings, so no role can make PL/Proxy
-- connect as another (a user mapping would).  PL/Proxy appends
-- user=current_user to every connstr, so each call reaches the shards as
-- the calling role.  The connstrs hold no secret and no user (refused, as
-- libpq's parser reads them: every role that calls the API can read what
-- PL/Proxy reads); passwords go in the proxy server's ~/.pgpass
-- (docs/cluster.md, Security).
------------------------------------------------------------------------------

-- ots_cluster.check_connstr: the connstr, or an error saying why the map
-- cannot hold it: NULL, a URI (PL/Proxy appends " user='role'" to it), not
-- one libpq's parser reads (PQconninfoParse), a secret (password,
-- sslpassword: every keyword libpq marks secret; every role calling the
-- API can read the map's connstrs through plproxy.get_cluster_partitions)
-- or a user (PL/Proxy would then not append the calling role: every call
-- would connect as that user; PL/Proxy looks for "user=" anywhere in the
-- string).  C, with libpq (proxy/connstr.c).
CREATE FUNCTION ots_cluster.check_connstr(connstr text) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_proxy_check_connstr'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION ots_cluster.check_connstr(text) IS
	'a connstr fit for the map (libpq key=value pairs, no secret, no user), or an error';

-- ots_cluster.connstr_sets: whether a connstr gives a libpq keyword a value
-- (as libpq reads it)
CREATE FUNCTION ots_cluster.connstr_sets(connstr text, keyword text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_proxy_connstr_sets'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots_cluster.connstr_sets(text, text) IS
	'whether a libpq connstr sets the keyword (PQconninfoParse)';

-- A partition being moved by the partition mover (tools/cluster_lib.sh)
-- has moving on and records both ends of the move, so that a move stopped
-- half way can be told where it stands and completed (docs/cluster.md,
-- Recovering a move): before the switch connstr is move_from, after it
-- move_to; set_moving(false) ends the move and clears them.
CREATE TABLE ots_cluster.partitions (
	partition integer PRIMARY KEY CHECK (partition >= 0),
	connstr text NOT NULL CHECK (ots_cluster.check_connstr(connstr) IS NOT NULL),
	moving boolean NOT NULL DEFAULT false,
	move_from text CHECK (move_from IS NULL OR ots_cluster.check_connstr(move_from) IS NOT NULL),
	move_to text CHECK (move_to IS NULL OR ots_cluster.check_connstr(move_to) IS NOT NULL),
	CHECK (moving OR (move_from IS NULL AND move_to IS NULL)),
	CHECK ((move_from IS NULL) = (move_to IS NULL))
);
COMMENT ON TABLE ots_cluster.partitions IS
	'the cluster map: the shard database (libpq connstr) of each partition, whether it is being moved, and from where to where';
-- the moving check on every write probes this index, nearly always empty
CREATE INDEX partitions_moving ON ots_cluster.partitions (partition) WHERE moving;
REVOKE ALL ON ots_cluster.partitions FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('ots_cluster.partitions', '');

-- ots_cluster.map_version: the version of the map PL/Proxy compares with
-- the one it has loaded, at every call (plproxy.get_cluster_version).  A
-- row of a table, not a sequence: the bump commits with the map's change,
-- so no session loads a map older than the version it records.
CREATE TABLE ots_cluster.map_version (
	one boolean PRIMARY KEY DEFAULT true CHECK (one),
	version integer NOT NULL
);
COMMENT ON TABLE ots_cluster.map_version IS
	'the version of the cluster map, bumped by every change of a partition''s connstr (PL/Proxy reloads on a change)';
INSERT INTO ots_cluster.map_version VALUES (true, 1);
REVOKE ALL ON ots_cluster.map_version FROM PUBLIC;

-- ots_cluster.bump_map_version: after any change of the map's connstrs
-- (the admin functions' or a superuser's own UPDATE)
CREATE FUNCTION ots_cluster.bump_map_version() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	UPDATE ots_cluster.map_version v SET version = v.version + 1;
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION ots_cluster.bump_map_version() IS
	'bumps the map''s version after a change of ots_cluster.partitions (trigger, internal)';
REVOKE ALL ON FUNCTION ots_cluster.bump_map_version() FROM PUBLIC;
CREATE TRIGGER bump_map_version AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF partition, connstr
	ON ots_cluster.partitions FOR EACH STATEMENT EXECUTE FUNCTION ots_cluster.bump_map_version();

-- ots_cluster.session_connstr: the connstr PL/Proxy connects with: the
-- map's, with an empty search_path for the shard session (options='-c
-- search_path='), so that no function or operator of a schema a role can
-- create in can run in the remote queries (pg_catalog alone is searched;
-- an unqualified table name finds no table, and a new one no schema, as on
-- a node whose search_path has no usable schema).  A connstr that sets
-- options itself is left as it is: its options replace these.
CREATE FUNCTION ots_cluster.session_connstr(connstr text) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN CASE WHEN ots_cluster.connstr_sets(connstr, 'options') THEN connstr
				ELSE connstr OPERATOR(pg_catalog.||) ' options=''-c search_path='''
		   END;
COMMENT ON FUNCTION ots_cluster.session_connstr(text) IS
	'the connstr PL/Proxy gets for a map connstr: the shard session''s search_path emptied unless it sets options';

-- PL/Proxy's configuration functions (docs: config.md of PL/Proxy), for
-- the cluster 'ots_cluster' only.  PL/Proxy calls them as the calling role
-- (through SPI, get_cluster_version at every call), so every role may
-- execute them; they run as the extension's owner to read the map.
CREATE SCHEMA plproxy;
COMMENT ON SCHEMA plproxy IS 'PL/Proxy''s cluster configuration functions (of ots_proxy: the cluster ots_cluster)';
GRANT USAGE ON SCHEMA plproxy TO PUBLIC;

-- plproxy.get_cluster_version: the map's version (PL/Proxy reloads the
-- partitions when it differs from the one it loaded); called at every call
CREATE FUNCTION plproxy.get_cluster_version(cluster_name text) RETURNS integer
	LANGUAGE plpgsql STABLE PARALLEL SAFE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF cluster_name = 'ots_cluster' THEN
		RETURN (SELECT v.version FROM ots_cluster.map_version v);
	END IF;
	-- what PL/Proxy says of a cluster nobody defined
	RAISE EXCEPTION USING ERRCODE = 'XX000', MESSAGE = pg_catalog.format('Pl/Proxy: cluster not found: %s', cluster_name);
END
$$;
COMMENT ON FUNCTION plproxy.get_cluster_version(text) IS
	'PL/Proxy: the version of the cluster ots_cluster''s map (ots_proxy)';

-- plproxy.get_cluster_partitions: the connstr of each partition, in order
CREATE FUNCTION plproxy.get_cluster_partitions(cluster_name text) RETURNS SETOF text
	LANGUAGE plpgsql STABLE PARALLEL SAFE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF cluster_name IS DISTINCT FROM 'ots_cluster' THEN
		RAISE EXCEPTION USING ERRCODE = 'XX000', MESSAGE = pg_catalog.format('Pl/Proxy: cluster not found: %s', cluster_name);
	END IF;
	RETURN QUERY SELECT ots_cluster.session_connstr(p.connstr) FROM ots_cluster.partitions p ORDER BY p.partition;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'XX000', MESSAGE = 'Pl/Proxy: cluster not found: ots_cluster',
			DETAIL = 'The ots cluster has no partitions yet.', HINT = 'Make it with ots_cluster.create_cluster.';
	END IF;
END
$$;
COMMENT ON FUNCTION plproxy.get_cluster_partitions(text) IS
	'PL/Proxy: the connstrs of the cluster ots_cluster''s partitions, in order (ots_proxy)';

-- plproxy.get_cluster_config: no settings (PL/Proxy's defaults)
CREATE FUNCTION plproxy.get_cluster_config(cluster_name text, OUT key text, OUT val text) RETURNS SETOF record
	LANGUAGE sql STABLE PARALLEL SAFE
	BEGIN ATOMIC
		SELECT NULL::text, NULL::text WHERE false;
	END;
COMMENT ON FUNCTION plproxy.get_cluster_config(text) IS
	'PL/Proxy: the settings of the cluster ots_cluster: none (ots_proxy)';

-- ots_cluster.partition_count: P, from the map
--
-- The functions on the path of every call are PL/pgSQL or SQL functions
-- simple enough to be inlined: PostgreSQL plans the body of any other SQL
-- function anew at each statement that calls it, which costs more than
-- the whole routing.
CREATE FUNCTION ots_cluster.partition_count() RETURNS integer
	LANGUAGE plpgsql STABLE PARALLEL SAFE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	RETURN (SELECT pg_catalog.count(*)::integer FROM ots_cluster.partitions);
END
$$;
COMMENT ON FUNCTION ots_cluster.partition_count() IS 'the number of partitions of the cluster (a power of two)';

-- ots_cluster.shards: one row per shard database, numbered from 1 in the
-- order of their lowest partition (shard 1 holds partition 0)
CREATE FUNCTION ots_cluster.shards()
	RETURNS TABLE (shard integer, partition integer, connstr text, partitions integer[])
	LANGUAGE plpgsql STABLE PARALLEL SAFE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	RETURN QUERY
		SELECT (pg_catalog.row_number() OVER (ORDER BY pg_catalog.min(p.partition)))::integer,
			   pg_catalog.min(p.partition),
			   p.connstr,
			   pg_catalog.array_agg(p.partition ORDER BY p.partition)
		  FROM ots_cluster.partitions p
		 GROUP BY p.connstr
		 ORDER BY 2;
END
$$;
COMMENT ON FUNCTION ots_cluster.shards() IS
	'the shard databases: number, a partition to RUN ON, connstr, all their partitions';

-- ots_cluster.shard_partitions: a partition of each shard, in shard order
CREATE FUNCTION ots_cluster.shard_partitions() RETURNS integer[]
	LANGUAGE sql STABLE PARALLEL SAFE
	RETURN ARRAY(SELECT s.partition FROM ots_cluster.shards() s ORDER BY s.shard);
COMMENT ON FUNCTION ots_cluster.shard_partitions() IS 'a partition to RUN ON for each shard, in shard order';

-- ots_cluster.create_cluster: a new map, partitions dealt round-robin to
-- the shards (partition i in shards[i % N + 1]); the catalog starts empty
CREATE FUNCTION ots_cluster.create_cluster(shards text[], partitions integer DEFAULT 64) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	n integer := pg_catalog.cardinality(shards);
BEGIN
	IF n IS NULL OR n = 0 OR pg_catalog.array_position(shards, NULL) IS NOT NULL THEN
		RAISE EXCEPTION 'an ots cluster needs at least one shard connstr, none NULL';
	END IF;
	IF partitions IS NULL OR partitions < n OR partitions > 65536
		OR (partitions & (partitions - 1)) <> 0 THEN
		RAISE EXCEPTION 'invalid number of partitions: %', partitions
			USING DETAIL = pg_catalog.format('The number of partitions is a power of two from the number of shards (%s) to 65536.', n);
	END IF;
	PERFORM ots_cluster.check_connstr(c) FROM pg_catalog.unnest(shards) c;
	DELETE FROM ots_cluster.partitions;
	INSERT INTO ots_cluster.partitions (partition, connstr)
		SELECT i, shards[i % n + 1] FROM pg_catalog.generate_series(0, partitions - 1) i;
	PERFORM ots_cluster.catalog_reset();
END
$$;
COMMENT ON FUNCTION ots_cluster.create_cluster(text[], integer) IS
	'makes the cluster map: shard connstrs (libpq, no password or user), partitions (a power of two, 64 by default) dealt round-robin';
REVOKE ALL ON FUNCTION ots_cluster.create_cluster(text[], integer) FROM PUBLIC;

-- ots_cluster.set_partition: moves partition N to another shard in the map
CREATE FUNCTION ots_cluster.set_partition(partition integer, connstr text) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	PERFORM ots_cluster.check_connstr(connstr);
	UPDATE ots_cluster.partitions p SET connstr = set_partition.connstr
	 WHERE p.partition = set_partition.partition;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'partition % does not exist', partition
			USING DETAIL = pg_catalog.format('Partitions are 0 to %s.', ots_cluster.partition_count() - 1);
	END IF;
END
$$;
COMMENT ON FUNCTION ots_cluster.set_partition(integer, text) IS
	'points a partition at another shard database (after its rows were copied there)';
REVOKE ALL ON FUNCTION ots_cluster.set_partition(integer, text) FROM PUBLIC;

-- ots_cluster.set_moving: marks partitions as moving (writes to them are
-- refused with OTSPartitionUnavailable) or no longer moving
CREATE FUNCTION ots_cluster.set_moving(partitions integer[], moving boolean) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	missing integer;
BEGIN
	SELECT m INTO missing FROM pg_catalog.unnest(partitions) m
	 WHERE NOT EXISTS (SELECT 1 FROM ots_cluster.partitions p WHERE p.partition = m) LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'partition % does not exist', missing;
	END IF;
	UPDATE ots_cluster.partitions p SET moving = coalesce(set_moving.moving, false),
		   move_from = CASE WHEN set_moving.moving THEN p.move_from END,
		   move_to = CASE WHEN set_moving.moving THEN p.move_to END
	 WHERE p.partition = ANY (partitions);
END
$$;
COMMENT ON FUNCTION ots_cluster.set_moving(integer[], boolean) IS
	'marks partitions as moving to another shard (writes refused, OT013) or done (the move''s ends forgotten)';
REVOKE ALL ON FUNCTION ots_cluster.set_moving(integer[], boolean) FROM PUBLIC;

-- ots_cluster.begin_move: the partition mover starts moving a partition to
-- the shard destination: its writes are refused (moving) and the map
-- records where it moves from and to until set_moving(false).  Again for
-- the same destination, it changes nothing (a move run again); a partition
-- already there, or moving elsewhere, is refused.
CREATE FUNCTION ots_cluster.begin_move(partition integer, destination text) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	p ots_cluster.partitions;
BEGIN
	PERFORM ots_cluster.check_connstr(destination);
	SELECT * INTO p FROM ots_cluster.partitions m WHERE m.partition = begin_move.partition FOR UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'partition % does not exist', partition;
	END IF;
	IF p.move_to = destination THEN
		RETURN;
	ELSIF p.move_to IS NOT NULL THEN
		RAISE EXCEPTION 'partition % is moving from % to another shard, %', partition, p.move_from, p.move_to
			USING HINT = 'Complete that move or abort it first (docs/cluster.md, Recovering a move).';
	ELSIF p.connstr = destination THEN
		RAISE EXCEPTION 'partition % is on that shard already', partition;
	END IF;
	UPDATE ots_cluster.partitions m SET moving = true, move_from = m.connstr, move_to = destination
	 WHERE m.partition = begin_move.partition;
END
$$;
COMMENT ON FUNCTION ots_cluster.begin_move(integer, text) IS
	'starts moving a partition to another shard: writes refused, both ends recorded until set_moving(false)';
REVOKE ALL ON FUNCTION ots_cluster.begin_move(integer, text) FROM PUBLIC;

------------------------------------------------------------------------------
-- Routing.  A row lives in partition key_hash(partition key) & (P - 1), as
-- PL/Proxy maps a RUN ON hash.  The hash is hashtext() of the key's
-- canonical text, so that a shard can compute it over its stored keys
-- (storage_hash_sql): the partition mover selects a partition's rows so.
------------------------------------------------------------------------------

-- ots_cluster.key_hash: the routing hash of a partition-key value (jsonb as
-- the API takes it); 0 when the value is not one of the type, so that the
-- shard holding partition 0 reports the single node's error
CREATE FUNCTION ots_cluster.key_hash(value jsonb, pk_type text) RETURNS integer
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE
		WHEN pk_type = 'STRING' AND pg_catalog.jsonb_typeof(value) = 'string'
			THEN pg_catalog.hashtext(value #>> '{}')
		-- nested CASEs: each test only runs when the one before held
		WHEN pk_type = 'INTEGER' AND pg_catalog.jsonb_typeof(value) = 'number' THEN
			CASE WHEN (value #>> '{}') ~ '^-?[0-9]{1,19}$' THEN
				CASE WHEN (value #>> '{}')::numeric BETWEEN -9223372036854775808 AND 9223372036854775807
					 THEN pg_catalog.hashtext(((value #>> '{}')::bigint)::text)
					 ELSE 0 END
				ELSE 0 END
		WHEN pk_type = 'BINARY' AND pg_catalog.jsonb_typeof(value) = 'object' THEN
			CASE WHEN pg_catalog.jsonb_typeof(value -> '$binary') = 'string' THEN
				CASE WHEN (value - '$binary') = '{}'::jsonb
						  AND (value ->> '$binary') ~ '^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$'
					 THEN pg_catalog.hashtext(pg_catalog.encode(pg_catalog.decode(value ->> '$binary', 'base64'), 'hex'))
					 ELSE 0 END
				ELSE 0 END
		ELSE 0
	END;
COMMENT ON FUNCTION ots_cluster.key_hash(jsonb, text) IS
	'routing hash of a partition-key value: hashtext of its text (STRING), int8 decimal text (INTEGER) or lowercase hex (BINARY); 0 when invalid';

-- ots_cluster.storage_hash_sql: the SQL expression computing key_hash over a
-- stored partition-key column (text, int8 or bytea) on a shard
CREATE FUNCTION ots_cluster.storage_hash_sql(column_sql text, pk_type text) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN CASE pk_type
		WHEN 'STRING' THEN pg_catalog.format('pg_catalog.hashtext(%s)', column_sql)
		WHEN 'INTEGER' THEN pg_catalog.format('pg_catalog.hashtext((%s)::pg_catalog.text)', column_sql)
		WHEN 'BINARY' THEN pg_catalog.format('pg_catalog.hashtext(pg_catalog.encode(%s, ''hex''))', column_sql)
	END;
COMMENT ON FUNCTION ots_cluster.storage_hash_sql(text, text) IS
	'SQL expression of key_hash over a stored partition-key column (text, int8, bytea), for queries on shards';

-- ots_cluster.partition_of: the partition a routing hash lands in
CREATE FUNCTION ots_cluster.partition_of(hash integer) RETURNS integer
	LANGUAGE sql STABLE PARALLEL SAFE
	RETURN hash & (ots_cluster.partition_count() - 1);
COMMENT ON FUNCTION ots_cluster.partition_of(integer) IS 'the partition of a routing hash: hash & (P - 1)';

-- ots_cluster.check_moving: refuses a write to a partition being moved
-- (one probe of an index that is empty unless partitions are moving)
CREATE FUNCTION ots_cluster.check_moving(hash integer) RETURNS void
	LANGUAGE plpgsql STABLE PARALLEL SAFE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	moving integer;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM ots_cluster.partitions p WHERE p.moving) THEN
		RETURN;
	END IF;
	SELECT p.partition INTO moving FROM ots_cluster.partitions p
	 WHERE p.moving AND p.partition = hash & (ots_cluster.partition_count() - 1);
	IF FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'OT013', MESSAGE = 'The partition is not available.',
			DETAIL = pg_catalog.format('partition %s is moving to another shard; retry', moving);
	END IF;
END
$$;
COMMENT ON FUNCTION ots_cluster.check_moving(integer) IS
	'raises OTSPartitionUnavailable (OT013) when the partition of a routing hash is moving';

------------------------------------------------------------------------------
-- The catalog: what the proxy knows of each table (its key, for routing).
-- Each session keeps its own, per role, in memory (proxy/catalog_cache.c):
-- a lookup writes nothing other sessions share (so an open transaction
-- holds no lock another role's DDL would wait for, and nobody's lookups
-- make anything shared grow), and the shards are asked as the calling role,
-- who learns a table's key only where describe_table shows it the table.
-- Entries come only from the shards' answers (catalog_ask asks and records
-- in one call).  The proxy's DDL moves a generation every session checks,
-- so each forgets what it knew at its next lookup (catalog_changed).
------------------------------------------------------------------------------

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

------------------------------------------------------------------------------
-- Errors.  PL/Proxy re-raises a shard's error with its SQLSTATE but a
-- decorated message ("f(6): [shard0] REMOTE ERROR: msg", "Remote detail:
-- ...", "Remote hint: ..."); a shard it cannot reach is its own XX000
-- ("PL/Proxy function f(6): [shard0] PQconnectPoll: ...").
------------------------------------------------------------------------------

-- Tablestore's error codes by SQLSTATE; the Makefile appends the rows from
-- src/ots_error_codes.h, the list's one owner
CREATE TABLE ots_cluster.error_codes (
	sqlstate text PRIMARY KEY,
	code text NOT NULL
);
COMMENT ON TABLE ots_cluster.error_codes IS 'Tablestore error codes of ots''s SQLSTATEs (from src/ots_error_codes.h)';
GRANT SELECT ON ots_cluster.error_codes TO PUBLIC;

CREATE FUNCTION ots.error_code(sqlstate text) RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	RETURN (SELECT e.code FROM ots_cluster.error_codes e WHERE e.sqlstate = error_code.sqlstate);
END
$$;
COMMENT ON FUNCTION ots.error_code(text) IS 'the Tablestore error code (OTSParameterInvalid, ...) of an ots SQLSTATE';

-- ots_cluster.raise_remote: raises an error caught around a PL/Proxy call as
-- the single node would: a shard's error with its own message, detail and
-- hint; an unreachable shard as OTSPartitionUnavailable (OT013); anything
-- else unchanged.  partition: the partition called, to name the shard.
CREATE FUNCTION ots_cluster.raise_remote(sqlstate text, message text, detail text, hint text,
										 partition integer DEFAULT NULL) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	m text[];
	shard text;
BEGIN
	IF sqlstate = 'XX000' THEN
		m := pg_catalog.regexp_match(message,
			'^PL/Proxy function [^ ]+\(\d+\): \[([^]]*)\] (PQconnectPoll|PQconnectStart|PQsendQuery|PQconsumeInput|PQsendQueryParams|PQflush)[^:]*: (.*)$', 's');
		IF m IS NULL THEN
			m := pg_catalog.regexp_match(message, '^PL/Proxy function [^ ]+\(\d+\): ()((?:connect|query) timeout[^:]*)(.*)$', 's');
		END IF;
		IF m IS NOT NULL THEN
			shard := (SELECT s.connstr FROM ots_cluster.shards() s WHERE raise_remote.partition = ANY (s.partitions));
			RAISE EXCEPTION USING ERRCODE = 'OT013', MESSAGE = 'The partition is not available.',
				DETAIL = pg_catalog.format('shard %s: %s',
					coalesce(shard, CASE WHEN m[1] <> '' THEN 'dbname=' || m[1] END, '?'),
					pg_catalog.rtrim(coalesce(nullif(m[3], ''), m[2]), E'\n '));
		END IF;
	END IF;
	m := pg_catalog.regexp_match(message, '^[^ ]+\(\d+\): \[[^]]*\] REMOTE [A-Z]+: (.*)$', 's');
	IF m IS NOT NULL THEN
		message := m[1];
		detail := pg_catalog.regexp_replace(detail, '^Remote detail: ', '');
		hint := pg_catalog.regexp_replace(hint, '^Remote hint: ', '');
	END IF;
	IF coalesce(detail, '') = '' AND coalesce(hint, '') = '' THEN
		RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message;
	ELSIF coalesce(hint, '') = '' THEN
		RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, DETAIL = detail;
	ELSIF coalesce(detail, '') = '' THEN
		RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, HINT = hint;
	END IF;
	RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, DETAIL = detail, HINT = hint;
END
$$;
COMMENT ON FUNCTION ots_cluster.raise_remote(text, text, text, text, integer) IS
	'raises an error caught around a PL/Proxy call as the single node would (OT013 for an unreachable shard)';
