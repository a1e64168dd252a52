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
-- Rows: put_row, get_row, update_row, delete_row routed to the partition
-- key's shard; batch_get_row and batch_write_row split per shard.
--
-- Each API function resolves the table in the proxy's catalog (table_of),
-- hashes the partition key (route), and calls a PL/Proxy function of the
-- same name in ots_cluster that runs ots's function on the shard holding
-- that hash's partition.  Errors come back through raise_remote, so their
-- SQLSTATE, message, detail and hint are the single node's.

CREATE FUNCTION ots_cluster.put_row(hash integer, table_name text, primary_key jsonb, attributes jsonb,
									condition text, column_condition jsonb, return_type text)
	RETURNS ots.row_result
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.put_row($2, $3, $4, $5, $6, $7);
	$$;
COMMENT ON FUNCTION ots_cluster.put_row(integer, text, jsonb, jsonb, text, jsonb, text) IS
	'ots.put_row on the shard of a routing hash (internal)';

CREATE FUNCTION ots_cluster.get_row(hash integer, table_name text, primary_key jsonb, columns_to_get text[],
									max_versions integer, time_range jsonb, filter jsonb,
									with_timestamps boolean, start_column text, end_column text)
	RETURNS ots.row_result
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.get_row($2, $3, $4, $5, $6, $7, $8, $9, $10);
	$$;
COMMENT ON FUNCTION ots_cluster.get_row(integer, text, jsonb, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'ots.get_row on the shard of a routing hash (internal)';

-- an index row lives on its base row's shard, which its own key does not name
CREATE FUNCTION ots_cluster.get_row_all(table_name text, primary_key jsonb, columns_to_get text[],
										max_versions integer, time_range jsonb, filter jsonb,
										with_timestamps boolean, start_column text, end_column text)
	RETURNS SETOF ots.row_result
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON ALL;
	SELECT * FROM ots.get_row($1, $2, $3, $4, $5, $6, $7, $8, $9);
	$$;
COMMENT ON FUNCTION ots_cluster.get_row_all(text, jsonb, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'ots.get_row on every shard (internal: for index tables)';

CREATE FUNCTION ots_cluster.update_row(hash integer, table_name text, primary_key jsonb, put jsonb,
									   delete_cells jsonb, delete_all text[], increment jsonb, condition text,
									   column_condition jsonb, return_type text, return_columns text[])
	RETURNS ots.row_result
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.update_row($2, $3, $4, $5, $6, $7, $8, $9, $10, $11);
	$$;
COMMENT ON FUNCTION ots_cluster.update_row(integer, text, jsonb, jsonb, jsonb, text[], jsonb, text, jsonb, text, text[]) IS
	'ots.update_row on the shard of a routing hash (internal)';

CREATE FUNCTION ots_cluster.delete_row(hash integer, table_name text, primary_key jsonb, condition text,
									   column_condition jsonb, return_type text)
	RETURNS ots.row_result
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.delete_row($2, $3, $4, $5, $6);
	$$;
COMMENT ON FUNCTION ots_cluster.delete_row(integer, text, jsonb, text, jsonb, text) IS
	'ots.delete_row on the shard of a routing hash (internal)';

------------------------------------------------------------------------------
-- The API: single-row calls
------------------------------------------------------------------------------

-- ots.put_row's implementation: names resolved through caller_path, the
-- caller's search_path (ots.put_row passes it)
CREATE FUNCTION ots_cluster.put_row_api(
	caller_path text,
	table_name text,
	primary_key jsonb,
	attributes jsonb,
	condition text,
	column_condition jsonb,
	return_type text)
	RETURNS ots.row_result
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	h integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	h := ots_cluster.route(t, primary_key);
	PERFORM ots_cluster.check_moving(h);
	RETURN ots_cluster.put_row(h, ots_cluster.target(t, table_name), primary_key, attributes,
							   condition, column_condition, return_type);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, ots_cluster.partition_of(h));
END
$$;
COMMENT ON FUNCTION ots_cluster.put_row_api(text, text, jsonb, jsonb, text, jsonb, text) IS
	'ots.put_row with the caller''s search_path (internal)';

CREATE FUNCTION ots.put_row(
	table_name text,
	primary_key jsonb,
	attributes jsonb DEFAULT '{}',
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE') RETURNS ots.row_result
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.put_row_api(pg_catalog.current_setting('search_path'), table_name,
			primary_key, attributes, condition, column_condition, return_type);
COMMENT ON FUNCTION ots.put_row(text, jsonb, jsonb, text, jsonb, text) IS
	'writes a row, replacing all its cells (Tablestore PutRow), on the partition key''s shard';

-- ots.get_row's implementation: names resolved through caller_path, the
-- caller's search_path (ots.get_row passes it)
CREATE FUNCTION ots_cluster.get_row_api(
	caller_path text,
	table_name text,
	primary_key jsonb,
	columns_to_get text[],
	max_versions integer,
	time_range jsonb,
	filter jsonb,
	with_timestamps boolean,
	start_column text,
	end_column text)
	RETURNS ots.row_result
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	h integer := 0;
	r ots.row_result;
	first ots.row_result;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	IF NOT coalesce(t.is_index, false) THEN
		h := ots_cluster.route(t, primary_key);
		RETURN ots_cluster.get_row(h, ots_cluster.target(t, table_name), primary_key, columns_to_get,
								   max_versions, time_range, filter, with_timestamps, start_column, end_column);
	END IF;
	-- An index row is stored on the shard of its base row, whose partition
	-- key the index key need not start with: ask every shard, answer with
	-- the row found (at most one shard has it), else with one shard's empty
	-- result (its capacity units: what one node would report).
	FOR r IN SELECT * FROM ots_cluster.get_row_all(ots_cluster.target(t, table_name), primary_key,
												   columns_to_get, max_versions, time_range, filter,
												   with_timestamps, start_column, end_column) LOOP
		IF r.primary_key IS NOT NULL THEN
			RETURN r;
		END IF;
		first := coalesce(first, r);
	END LOOP;
	RETURN first;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	-- an index's read went to every shard: no partition names the one that failed
	PERFORM ots_cluster.raise_remote(s, m, d, hi,
									 CASE WHEN NOT coalesce(t.is_index, false) THEN ots_cluster.partition_of(h) END);
END
$$;
COMMENT ON FUNCTION ots_cluster.get_row_api(text, text, jsonb, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'ots.get_row with the caller''s search_path (internal)';

CREATE FUNCTION ots.get_row(
	table_name text,
	primary_key jsonb,
	columns_to_get text[] DEFAULT NULL,
	max_versions integer DEFAULT NULL,
	time_range jsonb DEFAULT NULL,
	filter jsonb DEFAULT NULL,
	with_timestamps boolean DEFAULT false,
	start_column text DEFAULT NULL,
	end_column text DEFAULT NULL) RETURNS ots.row_result
	LANGUAGE sql STABLE PARALLEL UNSAFE
	RETURN ots_cluster.get_row_api(pg_catalog.current_setting('search_path'), table_name,
			primary_key, columns_to_get, max_versions, time_range, filter, with_timestamps,
			start_column, end_column);
COMMENT ON FUNCTION ots.get_row(text, jsonb, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'reads one row (Tablestore GetRow) from the partition key''s shard (an index table''s from every shard)';

-- ots.update_row's implementation: names resolved through caller_path, the
-- caller's search_path (ots.update_row passes it)
CREATE FUNCTION ots_cluster.update_row_api(
	caller_path text,
	table_name text,
	primary_key jsonb,
	put jsonb,
	"delete" jsonb,
	delete_all text[],
	increment jsonb,
	condition text,
	column_condition jsonb,
	return_type text,
	return_columns text[])
	RETURNS ots.row_result
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	h integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	h := ots_cluster.route(t, primary_key);
	PERFORM ots_cluster.check_moving(h);
	RETURN ots_cluster.update_row(h, ots_cluster.target(t, table_name), primary_key, put, "delete",
								  delete_all, increment, condition, column_condition, return_type,
								  return_columns);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, ots_cluster.partition_of(h));
END
$$;
COMMENT ON FUNCTION ots_cluster.update_row_api(text, text, jsonb, jsonb, jsonb, text[], jsonb, text, jsonb, text, text[]) IS
	'ots.update_row with the caller''s search_path (internal)';

CREATE FUNCTION ots.update_row(
	table_name text,
	primary_key jsonb,
	put jsonb DEFAULT NULL,
	"delete" jsonb DEFAULT NULL,
	delete_all text[] DEFAULT NULL,
	increment jsonb DEFAULT NULL,
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE',
	return_columns text[] DEFAULT NULL) RETURNS ots.row_result
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.update_row_api(pg_catalog.current_setting('search_path'), table_name,
			primary_key, put, "delete", delete_all, increment, condition, column_condition,
			return_type, return_columns);
COMMENT ON FUNCTION ots.update_row(text, jsonb, jsonb, jsonb, text[], jsonb, text, jsonb, text, text[]) IS
	'changes cells of a row (Tablestore UpdateRow) on the partition key''s shard';

-- ots.delete_row's implementation: names resolved through caller_path, the
-- caller's search_path (ots.delete_row passes it)
CREATE FUNCTION ots_cluster.delete_row_api(
	caller_path text,
	table_name text,
	primary_key jsonb,
	condition text,
	column_condition jsonb,
	return_type text)
	RETURNS ots.row_result
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	h integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	h := ots_cluster.route(t, primary_key);
	PERFORM ots_cluster.check_moving(h);
	RETURN ots_cluster.delete_row(h, ots_cluster.target(t, table_name), primary_key, condition,
								  column_condition, return_type);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, ots_cluster.partition_of(h));
END
$$;
COMMENT ON FUNCTION ots_cluster.delete_row_api(text, text, jsonb, text, jsonb, text) IS
	'ots.delete_row with the caller''s search_path (internal)';

CREATE FUNCTION ots.delete_row(
	table_name text,
	primary_key jsonb,
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE') RETURNS ots.row_result
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.delete_row_api(pg_catalog.current_setting('search_path'), table_name,
			primary_key, condition, column_condition, return_type);
COMMENT ON FUNCTION ots.delete_row(text, jsonb, text, jsonb, text) IS
	'deletes a row (Tablestore DeleteRow) on the partition key''s shard';

------------------------------------------------------------------------------
-- Batches.  A batch is split per shard: one call of ots's batch function per
-- shard database, each its own transaction, with that shard's rows of each
-- table entry (table names qualified as the proxy resolved them).  Results
-- come back in request order with the caller's table names and the rows'
-- original indexes.  A shard that cannot be reached fails only its rows
-- (OTSPartitionUnavailable).  is_atomic routes all rows of an entry by its
-- first row's key: rows of one partition key are on one shard anyway, and
-- rows of several get the single node's OTSDataOutOfRange from that shard.
--
-- What a single node refuses for the whole request (its shape, 100 keys /
-- 200 rows, 4 MB, empty entries, repeated rows with conditions, members of
-- the wrong form) must be refused before any shard writes.  When the rows
-- span several shards, the whole request is first run on the first shard
-- that answers, in a read-only transaction: ots applies every whole-request check before
-- its first write, which the read-only transaction then refuses (25006);
-- any other error is the single node's, raised as is.  A batch whose rows
-- all live on one shard goes there in one call, checks and all.
------------------------------------------------------------------------------

CREATE TYPE ots_cluster.batch_row AS (
	table_name text,
	"index" integer,
	is_ok boolean,
	error_code text,
	error_message text,
	primary_key jsonb,
	attributes jsonb,
	consumed jsonb
);
COMMENT ON TYPE ots_cluster.batch_row IS 'one result row of batch_get_row / batch_write_row (internal)';

CREATE FUNCTION ots_cluster.batch_get_row(p integer, request jsonb)
	RETURNS SETOF ots_cluster.batch_row
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.batch_get_row($2);
	$$;
COMMENT ON FUNCTION ots_cluster.batch_get_row(integer, jsonb) IS 'ots.batch_get_row on the shard of partition p (internal)';

CREATE FUNCTION ots_cluster.batch_write_row(p integer, request jsonb, is_atomic boolean)
	RETURNS SETOF ots_cluster.batch_row
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.batch_write_row($2, $3);
	$$;
COMMENT ON FUNCTION ots_cluster.batch_write_row(integer, jsonb, boolean) IS 'ots.batch_write_row on the shard of partition p (internal)';

-- ots_cluster.batch_write_check: the whole request through ots's checks on
-- the shard of p, in a transaction made read-only first, so nothing is
-- written (its first write raises 25006)
CREATE FUNCTION ots_cluster.batch_write_check(p integer, request jsonb, is_atomic boolean) RETURNS integer
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT pg_catalog.count(*)::integer
	  FROM (SELECT pg_catalog.set_config('transaction_read_only', 'on', true) AS ro) s,
		   LATERAL ots.batch_write_row(CASE WHEN s.ro OPERATOR(pg_catalog.=) 'on' THEN $2 END, $3) b;
	$$;
COMMENT ON FUNCTION ots_cluster.batch_write_check(integer, jsonb, boolean) IS
	'runs ots''s whole-request checks of a batch_write_row request on a shard, writing nothing (internal)';

-- ots_cluster.batch_split: the rows of a batch request (list "primary_keys"
-- or "rows"), each with its entry, index, table, and the shards it goes to
-- (several for an index table's key in a get); NULL when the request's
-- shape is not one ots accepts (then the first shard reports it).  Entries
-- and rows go to the shards with every field the caller gave, so a shard
-- refuses a field ots does not know as the single node does; "$entry", the
-- field that marks a shard's entries here, is such a field, and a request
-- that has it goes to the first shard whole to be refused.
CREATE FUNCTION ots_cluster.batch_split(request jsonb, list_key text, by_first boolean, caller_path text,
										OUT entries jsonb, OUT shards integer[], OUT partitions integer[],
										OUT subrequests jsonb[], OUT positions jsonb[], OUT names text[],
										OUT indexes integer[], OUT hashes integer[], OUT targets text[])
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	part_shard integer[];
	nshards integer;
	e jsonb;
	list jsonb;
	t ots_cluster.table_entry;
	target text;
	h integer;
	pos integer := 0;
	sub jsonb[];
	subpos jsonb[];
	row_key jsonb;
	first_hash integer;
	s integer;
	mask integer;
BEGIN
	IF pg_catalog.jsonb_typeof(request) IS DISTINCT FROM 'array' OR pg_catalog.jsonb_array_length(request) = 0 THEN
		RETURN;
	END IF;
	SELECT pg_catalog.array_agg(x.shard ORDER BY x.part), pg_catalog.max(x.shard)
	  INTO part_shard, nshards
	  FROM (SELECT sh.shard, pt AS part FROM ots_cluster.shards() sh, pg_catalog.unnest(sh.partitions) pt) x;
	SELECT pg_catalog.array_agg(sh.partition ORDER BY sh.shard) INTO partitions FROM ots_cluster.shards() sh;
	-- P - 1: a hash's partition is hash & mask, as PL/Proxy maps it (partition_of, without
	-- counting the map for every row)
	mask := pg_catalog.cardinality(part_shard) - 1;
	sub := pg_catalog.array_fill('[]'::jsonb, ARRAY[nshards]);
	subpos := pg_catalog.array_fill('[]'::jsonb, ARRAY[nshards]);
	names := '{}';
	targets := '{}';
	indexes := '{}';
	hashes := '{}';
	entries := '[]';
	FOR i IN 0 .. pg_catalog.jsonb_array_length(request) - 1 LOOP
		e := request -> i;
		IF pg_catalog.jsonb_typeof(e) IS DISTINCT FROM 'object'
			OR e ? '$entry'
			OR pg_catalog.jsonb_typeof(e -> 'table_name') IS DISTINCT FROM 'string'
			OR pg_catalog.jsonb_typeof(e -> list_key) IS DISTINCT FROM 'array'
			OR pg_catalog.jsonb_array_length(e -> list_key) = 0 THEN
			entries := NULL;
			RETURN;
		END IF;
		t := ots_cluster.table_of(e ->> 'table_name', caller_path);
		target := ots_cluster.target(t, e ->> 'table_name');
		entries := entries || pg_catalog.jsonb_build_array(pg_catalog.jsonb_set(e, '{table_name}', pg_catalog.to_jsonb(target)));
		list := e -> list_key;
		first_hash := NULL;
		FOR r IN 0 .. pg_catalog.jsonb_array_length(list) - 1 LOOP
			pos := pos + 1;
			names := names || (e ->> 'table_name');
			targets := targets || target;
			indexes := indexes || r;
			row_key := CASE WHEN list_key = 'rows' THEN list -> r -> 'primary_key' ELSE list -> r END;
			h := ots_cluster.route(t, row_key);
			IF by_first THEN
				first_hash := coalesce(first_hash, h);
				h := first_hash;
			END IF;
			hashes := hashes || h;
			FOR s IN SELECT x FROM pg_catalog.generate_series(1, nshards) x
					  WHERE x = part_shard[(h & mask) + 1]
						 OR (list_key = 'primary_keys' AND t.is_index) LOOP
				-- the entry's slot on shard s: a new one when this entry has none there yet
				IF pg_catalog.jsonb_array_length(sub[s]) = 0
					OR (sub[s] -> -1 ->> '$entry')::integer <> i THEN
					sub[s] := sub[s] || pg_catalog.jsonb_build_array(
						pg_catalog.jsonb_set(e, '{table_name}', pg_catalog.to_jsonb(target))
						|| pg_catalog.jsonb_build_object('$entry', i, list_key, '[]'::jsonb));
				END IF;
				sub[s] := pg_catalog.jsonb_set(sub[s], ARRAY['-1', list_key],
											   (sub[s] -> -1 -> list_key) || pg_catalog.jsonb_build_array(list -> r));
				subpos[s] := subpos[s] || pg_catalog.to_jsonb(pos);
			END LOOP;
		END LOOP;
	END LOOP;
	shards := '{}';
	subrequests := '{}';
	positions := '{}';
	FOR s IN 1 .. nshards LOOP
		CONTINUE WHEN pg_catalog.jsonb_array_length(sub[s]) = 0;
		shards := shards || s;
		subrequests := subrequests || (SELECT pg_catalog.jsonb_agg(x - '$entry' ORDER BY n)
										 FROM pg_catalog.jsonb_array_elements(sub[s]) WITH ORDINALITY a(x, n));
		positions := positions || subpos[s];
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots_cluster.batch_split(jsonb, text, boolean, text) IS
	'splits a batch request per shard: sub-requests, the request positions of their rows, names, indexes, names sent (internal)';

-- ots_cluster.caller_names: a shard's message with the table name the
-- proxy sent it ('schema.t', quoted so in ots's messages: "No row specified
-- in table: '...'.", "Atomic BatchWriteRow failed: row 0 of table '...'
-- failed.", ...) written back as the caller gave it ('t'); the first entry
-- whose sent name the message quotes wins
CREATE FUNCTION ots_cluster.caller_names(message text, targets text[], names text[]) RETURNS text
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	FOR i IN 1 .. coalesce(pg_catalog.cardinality(targets), 0) LOOP
		IF targets[i] IS DISTINCT FROM names[i] AND pg_catalog.strpos(message, '''' || targets[i] || '''') > 0 THEN
			RETURN pg_catalog.replace(message, '''' || targets[i] || '''', '''' || names[i] || '''');
		END IF;
	END LOOP;
	RETURN message;
END
$$;
COMMENT ON FUNCTION ots_cluster.caller_names(text, text[], text[]) IS
	'a shard''s message with the quoted table names the proxy sent written as the caller gave them (internal)';

-- ots_cluster.batch_unavailable: a row's result when its shard failed
CREATE FUNCTION ots_cluster.batch_unavailable(table_name text, "index" integer) RETURNS ots_cluster.batch_row
	LANGUAGE sql STABLE PARALLEL SAFE
	RETURN ROW(table_name, "index", false, ots.error_code('OT013'), 'The partition is not available.',
			   NULL, NULL, NULL)::ots_cluster.batch_row;
COMMENT ON FUNCTION ots_cluster.batch_unavailable(text, integer) IS
	'the result of a batch row whose shard could not be reached (internal)';

-- ots_cluster.batch_run: runs the split batch, shard by shard; the results
-- in request order.  A shard that cannot be reached fails its rows; any
-- other error of a shard is raised (as the single node raises it).
CREATE FUNCTION ots_cluster.batch_run(plan record, is_write boolean, is_atomic boolean)
	RETURNS SETOF ots_cluster.batch_row
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	results ots_cluster.batch_row[];
	got ots_cluster.batch_row;
	k integer;
	pos integer;
	p integer;
	s text; m text; d text; hi text;
BEGIN
	results := pg_catalog.array_fill(NULL::ots_cluster.batch_row, ARRAY[pg_catalog.cardinality(plan.names)]);
	FOR i IN 1 .. pg_catalog.cardinality(plan.shards) LOOP
		p := plan.partitions[plan.shards[i]];
		BEGIN
			-- a write to a partition being moved: the shard's rows are refused
			IF is_write THEN
				FOR j IN 0 .. pg_catalog.jsonb_array_length(plan.positions[i]) - 1 LOOP
					PERFORM ots_cluster.check_moving(plan.hashes[(plan.positions[i] ->> j)::integer]);
				END LOOP;
			END IF;
			k := 0;
			FOR got IN SELECT * FROM (SELECT * FROM ots_cluster.batch_get_row(p, plan.subrequests[i]) WHERE NOT is_write
									  UNION ALL
									  SELECT * FROM ots_cluster.batch_write_row(p, plan.subrequests[i], is_atomic) WHERE is_write) x LOOP
				pos := (plan.positions[i] ->> k)::integer;
				k := k + 1;
				got.table_name := plan.names[pos];
				got."index" := plan.indexes[pos];
				got.error_message := ots_cluster.caller_names(got.error_message, ARRAY[plan.targets[pos]],
															  ARRAY[plan.names[pos]]);
				-- an index key asked of every shard: the row found wins
				IF results[pos] IS NULL OR ((results[pos]).primary_key IS NULL AND got.primary_key IS NOT NULL) THEN
					results[pos] := got;
				END IF;
			END LOOP;
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
			IF (s = 'XX000' AND m ~ '^PL/Proxy function ') OR s = 'OT013' THEN
				FOR j IN 0 .. pg_catalog.jsonb_array_length(plan.positions[i]) - 1 LOOP
					pos := (plan.positions[i] ->> j)::integer;
					IF results[pos] IS NULL THEN
						results[pos] := ots_cluster.batch_unavailable(plan.names[pos], plan.indexes[pos]);
					END IF;
				END LOOP;
			ELSE
				PERFORM ots_cluster.raise_remote(s, ots_cluster.caller_names(m, plan.targets, plan.names), d, hi, p);
			END IF;
		END;
	END LOOP;
	RETURN QUERY SELECT (results[n]).* FROM pg_catalog.generate_series(1, pg_catalog.cardinality(results)) n ORDER BY n;
END
$$;
COMMENT ON FUNCTION ots_cluster.batch_run(record, boolean, boolean) IS
	'runs a split batch on its shards and returns the results in request order (internal)';

-- ots.batch_get_row's implementation: names resolved through caller_path, the
-- caller's search_path (ots.batch_get_row passes it)
CREATE FUNCTION ots_cluster.batch_get_row_api(
	caller_path text,
	request jsonb)
	RETURNS TABLE (table_name text, "index" integer, is_ok boolean, error_code text,
				   error_message text, primary_key jsonb, attributes jsonb, consumed jsonb)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	plan record;
	targets text[];
	names text[];
	s text; m text; d text; hi text;
BEGIN
	plan := ots_cluster.batch_split(request, 'primary_keys', false, caller_path);
	targets := plan.targets;
	names := plan.names;
	-- a request ots refuses as a whole (shape, 100 keys): the first shard says so
	IF plan.entries IS NULL OR pg_catalog.cardinality(plan.names) > 100 THEN
		RETURN QUERY SELECT * FROM ots_cluster.batch_get_row(0, request);
		RETURN;
	END IF;
	RETURN QUERY SELECT * FROM ots_cluster.batch_run(plan, false, false);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, ots_cluster.caller_names(m, targets, names), d, hi, 0);
END
$$;
COMMENT ON FUNCTION ots_cluster.batch_get_row_api(text, jsonb) IS
	'ots.batch_get_row with the caller''s search_path (internal)';

CREATE FUNCTION ots.batch_get_row(request jsonb) RETURNS TABLE (table_name text, "index" integer, is_ok boolean, error_code text,
				   error_message text, primary_key jsonb, attributes jsonb, consumed jsonb)
	LANGUAGE sql STABLE PARALLEL UNSAFE
	BEGIN ATOMIC
		SELECT * FROM ots_cluster.batch_get_row_api(pg_catalog.current_setting('search_path'),
				request);
	END;
COMMENT ON FUNCTION ots.batch_get_row(jsonb) IS
	'reads up to 100 rows of several tables (Tablestore BatchGetRow), one call per shard, results in request order';

-- ots.batch_write_row's implementation: names resolved through caller_path, the
-- caller's search_path (ots.batch_write_row passes it)
CREATE FUNCTION ots_cluster.batch_write_row_api(
	caller_path text,
	request jsonb,
	is_atomic boolean)
	RETURNS TABLE (table_name text, "index" integer, is_ok boolean, error_code text,
				   error_message text, primary_key jsonb, attributes jsonb, consumed jsonb)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	plan record;
	targets text[];
	names text[];
	p integer;
	s text; m text; d text; hi text;
BEGIN
	plan := ots_cluster.batch_split(request, 'rows', coalesce(is_atomic, false), caller_path);
	targets := plan.targets;
	names := plan.names;
	IF plan.entries IS NOT NULL AND pg_catalog.cardinality(plan.shards) = 1 THEN
		RETURN QUERY SELECT * FROM ots_cluster.batch_run(plan, true, is_atomic);
		RETURN;
	END IF;
	-- several shards: ots's whole-request checks first, on the first shard
	-- that answers, writing nothing
	FOREACH p IN ARRAY coalesce(plan.partitions, ots_cluster.shard_partitions()) LOOP
		BEGIN
			PERFORM ots_cluster.batch_write_check(p, coalesce(plan.entries, request), is_atomic);
			EXIT;
		EXCEPTION
			WHEN SQLSTATE '25006' THEN
				EXIT;
			WHEN SQLSTATE 'XX000' THEN
				GET STACKED DIAGNOSTICS m = MESSAGE_TEXT;
				IF m !~ '^PL/Proxy function ' THEN
					RAISE;
				END IF;
		END;
	END LOOP;
	IF plan.entries IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'OT001', MESSAGE = 'Invalid table entry.',
			DETAIL = 'Each entry is an object with a "table_name" string.';
	END IF;
	RETURN QUERY SELECT * FROM ots_cluster.batch_run(plan, true, is_atomic);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, ots_cluster.caller_names(m, targets, names), d, hi, 0);
END
$$;
COMMENT ON FUNCTION ots_cluster.batch_write_row_api(text, jsonb, boolean) IS
	'ots.batch_write_row with the caller''s search_path (internal)';

CREATE FUNCTION ots.batch_write_row(request jsonb, is_atomic boolean DEFAULT false) RETURNS TABLE (table_name text, "index" integer, is_ok boolean, error_code text,
				   error_message text, primary_key jsonb, attributes jsonb, consumed jsonb)
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	BEGIN ATOMIC
		SELECT * FROM ots_cluster.batch_write_row_api(pg_catalog.current_setting('search_path'),
				request, is_atomic);
	END;
COMMENT ON FUNCTION ots.batch_write_row(jsonb, boolean) IS
	'writes up to 200 rows of several tables (Tablestore BatchWriteRow), one call per shard (each its own transaction), results in request order';
-- Tables, indexes and defined columns: applied on every shard.
--
-- Every DDL first asks each shard (in shard order) whether it has the
-- table, which is also the check that every shard answers: a shard that
-- does not is OTSPartitionUnavailable before anything changes.  Then the
-- statement runs on each shard in order, so that what the single node
-- refuses (bad arguments, privileges) the first shard refuses before any
-- other changed.  Each shard commits its own part: a shard lost half-way
-- leaves the table on some shards, which create_table repairs (it creates
-- the table where it is missing when the others have the same definition)
-- and delete_table finishes.  After each DDL (and each that failed half
-- way) every session forgets what it knew of tables, and the table's view
-- in the proxy database follows it (ots_cluster.catalog_changed).
-- describe_table and list_table answer from the first shard.

-- ots_cluster.find_on: the first of schemas in which the shard of partition
-- p has an ots table (or index) relname the caller may see, or NULL
CREATE FUNCTION ots_cluster.find_on(p integer, schemas name[], relname name) RETURNS name
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT (SELECT s.n FROM pg_catalog.unnest($2) WITH ORDINALITY s(n, i)
			  JOIN ots.tables t ON t.schema_name OPERATOR(pg_catalog.=) s.n
							   AND t.table_name OPERATOR(pg_catalog.=) $3
			 ORDER BY s.i LIMIT 1);
	$$;
COMMENT ON FUNCTION ots_cluster.find_on(integer, name[], name) IS
	'the first of schemas where the shard of partition p has the ots table relname (internal)';

-- ots_cluster.creation_schema_on: where CREATE TABLE would put an
-- unqualified name on the shard of p: the first of schemas it has and the
-- caller may use
CREATE FUNCTION ots_cluster.creation_schema_on(p integer, schemas name[]) RETURNS name
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT (SELECT s.n FROM pg_catalog.unnest($2) WITH ORDINALITY s(n, i)
			  JOIN pg_catalog.pg_namespace ns ON ns.nspname OPERATOR(pg_catalog.=) s.n
			 WHERE pg_catalog.has_schema_privilege(ns.oid, 'USAGE')
			 ORDER BY s.i LIMIT 1);
	$$;
COMMENT ON FUNCTION ots_cluster.creation_schema_on(integer, name[]) IS
	'the schema an unqualified new table goes to on the shard of partition p (internal)';

-- ots_cluster.resolve_on_shards: the schema a table-name argument means,
-- asking every shard (the first that has it in search_path order wins);
-- NULL when none has it.  It also proves that every shard answers.  Every
-- DDL calls it before it changes any shard; it refuses a read-only
-- transaction.
CREATE FUNCTION ots_cluster.resolve_on_shards(table_name text, caller_path text, OUT schema_name name,
											  OUT relname name, OUT present boolean[])
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	n record;
	schemas name[];
	p integer;
	found_in name;
	s text; m text; d text; hi text;
BEGIN
	-- the DDL that asks changes the shards, then the sessions' catalog
	-- (catalog_changed), which a read-only transaction cannot: refused
	-- before any shard is changed
	IF pg_catalog.current_setting('transaction_read_only')::boolean THEN
		RAISE EXCEPTION USING ERRCODE = 'read_only_sql_transaction',
			MESSAGE = 'cannot change ots tables through the proxy in a read-only transaction';
	END IF;
	present := '{}';
	SELECT x.schema_name, x.relname INTO n FROM ots_cluster.split_name(table_name) x;
	IF n.relname IS NULL OR n.relname = '' OR pg_catalog.octet_length(n.relname) >= 64
		OR pg_catalog.octet_length(n.schema_name) >= 64 THEN
		RETURN;
	END IF;
	relname := n.relname;
	schemas := CASE WHEN n.schema_name IS NULL THEN ots_cluster.search_schemas(caller_path) ELSE ARRAY[n.schema_name::name] END;
	BEGIN
		FOREACH p IN ARRAY ots_cluster.shard_partitions() LOOP
			found_in := ots_cluster.find_on(p, schemas, relname);
			present := present || (found_in IS NOT NULL);
			IF schema_name IS NULL OR pg_catalog.array_position(schemas, found_in) < pg_catalog.array_position(schemas, schema_name) THEN
				schema_name := found_in;
			END IF;
		END LOOP;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
		PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
	END;
	-- where each shard has it in that schema (another schema found first elsewhere does not count)
	IF schema_name IS NOT NULL AND pg_catalog.cardinality(schemas) > 1 THEN
		present := '{}';
		FOREACH p IN ARRAY ots_cluster.shard_partitions() LOOP
			present := present || (ots_cluster.find_on(p, ARRAY[schema_name], relname) IS NOT NULL);
		END LOOP;
	END IF;
END
$$;
COMMENT ON FUNCTION ots_cluster.resolve_on_shards(text, text) IS
	'the schema a table-name argument resolves to on the shards, and which shards have it (internal)';

------------------------------------------------------------------------------
-- PL/Proxy calls of ots's DDL on the shard of partition p
------------------------------------------------------------------------------
CREATE FUNCTION ots_cluster.create_table_on(p integer, table_name text, primary_key text, max_versions integer,
											time_to_live bigint, max_version_offset bigint, allow_update boolean,
											partitions integer, hash_prefix_length integer, defined_columns text,
											stream_enabled boolean, stream_expiration_hours integer) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.create_table($2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12);
	$$;

CREATE FUNCTION ots_cluster.update_table_on(p integer, table_name text, max_versions integer, time_to_live bigint,
											max_version_offset bigint, allow_update boolean, stream_enabled boolean,
											stream_expiration_hours integer) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.update_table($2, $3, $4, $5, $6, $7, $8);
	$$;

CREATE FUNCTION ots_cluster.delete_table_on(p integer, table_name text) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.delete_table($2);
	$$;

CREATE FUNCTION ots_cluster.describe_table_on(p integer, table_name text) RETURNS jsonb
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.describe_table($2);
	$$;

CREATE FUNCTION ots_cluster.list_table_on(p integer) RETURNS TABLE (schema_name name, table_name name)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.list_table();
	$$;

CREATE FUNCTION ots_cluster.create_index_on(p integer, table_name text, index_name text, primary_key text[],
											defined_columns text[], index_type text, include_base_data boolean)
	RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.create_index($2, $3, $4, $5, $6, $7);
	$$;

CREATE FUNCTION ots_cluster.delete_index_on(p integer, table_name text, index_name text) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.delete_index($2, $3);
	$$;

CREATE FUNCTION ots_cluster.add_defined_column_on(p integer, table_name text, defined_columns text) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.add_defined_column($2, $3);
	$$;

CREATE FUNCTION ots_cluster.delete_defined_column_on(p integer, table_name text, column_names text[]) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.delete_defined_column($2, $3);
	$$;

-- the steps of ots.build_index, each committed on its shard as build_index commits them
CREATE FUNCTION ots_cluster.index_check_on(p integer, schema_arg name, table_arg name, index_arg text)
	RETURNS name
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT i.table_name FROM ots.index_of($2, $3, $4) i;
	$$;

CREATE FUNCTION ots_cluster.index_build_begin_on(p integer, schema_name name, index_name name) RETURNS SETOF text
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.index_build_begin($2, $3);
	$$;

CREATE FUNCTION ots_cluster.index_backfill_batch_on(p integer, schema_arg name, index_arg name, leaf text,
													first_block bigint, seen_filenode oid,
													OUT next_block bigint, OUT filenode oid)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT r.next_block, r.filenode
	  FROM ots.index_backfill_batch($2, $3, pg_catalog.to_regclass($4), $5, ots.index_build_blocks(), $6) r;
	$$;

CREATE FUNCTION ots_cluster.index_build_end_on(p integer, schema_name name, index_name name) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.index_build_end($2, $3);
	$$;

------------------------------------------------------------------------------
-- The API
------------------------------------------------------------------------------

-- ots_cluster.same_definition: two shards' describe_table of one table
-- describe the same table (what may differ: creation time, indexes, which
-- create_index repairs on its own, and the stream's id and times)
CREATE FUNCTION ots_cluster.same_definition(a jsonb, b jsonb) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN (a - 'creation_time' - 'index_metas' - 'stream_details')
		   || pg_catalog.jsonb_build_object('stream', a #> '{stream_details,enable_stream}',
											'hours', a #> '{stream_details,expiration_time}')
		 = (b - 'creation_time' - 'index_metas' - 'stream_details')
		   || pg_catalog.jsonb_build_object('stream', b #> '{stream_details,enable_stream}',
											'hours', b #> '{stream_details,expiration_time}');
COMMENT ON FUNCTION ots_cluster.same_definition(jsonb, jsonb) IS
	'whether two describe_table answers describe the same table definition (internal)';

-- ots.create_table's implementation: names resolved through caller_path, the
-- caller's search_path (ots.create_table passes it)
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
	stream_expiration_hours integer)
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
											defined_columns, stream_enabled, stream_expiration_hours);
	END IF;
	IF r.schema_name IS NOT NULL THEN
		existing := ots_cluster.describe_table_on(ps[pg_catalog.array_position(r.present, true)], target);
	END IF;
	FOR i IN 1 .. pg_catalog.cardinality(ps) LOOP
		CONTINUE WHEN r.present[i];
		p := ps[i];
		PERFORM ots_cluster.create_table_on(p, target, primary_key, max_versions, time_to_live,
											max_version_offset, allow_update, partitions, hash_prefix_length,
											defined_columns, stream_enabled, stream_expiration_hours);
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
COMMENT ON FUNCTION ots_cluster.create_table_api(text, text, text, integer, bigint, bigint, boolean, integer, integer, text, boolean, integer) IS
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
	stream_expiration_hours integer DEFAULT NULL) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.create_table_api(pg_catalog.current_setting('search_path'), table_name,
			primary_key, max_versions, time_to_live, max_version_offset, allow_update, partitions,
			hash_prefix_length, defined_columns, stream_enabled, stream_expiration_hours);
COMMENT ON FUNCTION ots.create_table(text, text, integer, bigint, bigint, boolean, integer, integer, text, boolean, integer) IS
	'creates an ots table on every shard; where some shards already have it (a create cut short), on the others';

-- ots.update_table's implementation: names resolved through caller_path, the
-- caller's search_path (ots.update_table passes it)
CREATE FUNCTION ots_cluster.update_table_api(
	caller_path text,
	table_name text,
	max_versions integer,
	time_to_live bigint,
	max_version_offset bigint,
	allow_update boolean,
	stream_enabled boolean,
	stream_expiration_hours integer)
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
											allow_update, stream_enabled, stream_expiration_hours);
	END LOOP;
	PERFORM ots_cluster.table_changed(target);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	-- some shards may have changed: every session forgets what it knew
	PERFORM ots_cluster.catalog_changed();
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.update_table_api(text, text, integer, bigint, bigint, boolean, boolean, integer) IS
	'ots.update_table with the caller''s search_path (internal)';

CREATE FUNCTION ots.update_table(
	table_name text,
	max_versions integer DEFAULT NULL,
	time_to_live bigint DEFAULT NULL,
	max_version_offset bigint DEFAULT NULL,
	allow_update boolean DEFAULT NULL,
	stream_enabled boolean DEFAULT NULL,
	stream_expiration_hours integer DEFAULT NULL) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.update_table_api(pg_catalog.current_setting('search_path'), table_name,
			max_versions, time_to_live, max_version_offset, allow_update, stream_enabled,
			stream_expiration_hours);
COMMENT ON FUNCTION ots.update_table(text, integer, bigint, bigint, boolean, boolean, integer) IS
	'changes table options and the stream on every shard; omitted options keep their values';

-- ots.delete_table's implementation: names resolved through caller_path, the
-- caller's search_path (ots.delete_table passes it)
CREATE FUNCTION ots_cluster.delete_table_api(
	caller_path text,
	table_name text)
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	ps integer[] := ots_cluster.shard_partitions();
	r record;
	target text := table_name;
	indexes text[];
	p integer := 0;
	s text; m text; d text; hi text;
BEGIN
	r := ots_cluster.resolve_on_shards(table_name, caller_path);
	IF r.schema_name IS NULL THEN
		-- nowhere: the single node's error, from the first shard
		p := ps[1];
		PERFORM ots_cluster.delete_table_on(p, table_name);
	ELSE
		target := ots_cluster.qualified(r.schema_name, r.relname);
		-- its indexes go with it (their views too)
		p := ps[pg_catalog.array_position(r.present, true)];
		indexes := ARRAY(SELECT x.meta ->> 'name'
						   FROM pg_catalog.jsonb_array_elements(ots_cluster.describe_table_on(p, target) -> 'index_metas') x(meta));
		FOR i IN 1 .. pg_catalog.cardinality(ps) LOOP
			CONTINUE WHEN NOT r.present[i];
			p := ps[i];
			PERFORM ots_cluster.delete_table_on(p, target);
		END LOOP;
		-- the table and its indexes (and their views in the proxy database)
		PERFORM ots_cluster.table_changed(target);
		PERFORM ots_cluster.table_changed(ots_cluster.qualified(r.schema_name, i::name))
		   FROM pg_catalog.unnest(indexes) i;
	END IF;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	-- some shards may have changed: every session forgets what it knew
	PERFORM ots_cluster.catalog_changed();
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.delete_table_api(text, text) IS
	'ots.delete_table with the caller''s search_path (internal)';

CREATE FUNCTION ots.delete_table(table_name text) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.delete_table_api(pg_catalog.current_setting('search_path'), table_name);
COMMENT ON FUNCTION ots.delete_table(text) IS
	'drops an ots table on every shard that has it';

-- ots.describe_table's implementation: names resolved through caller_path, the
-- caller's search_path (ots.describe_table passes it)
CREATE FUNCTION ots_cluster.describe_table_api(
	caller_path text,
	table_name text)
	RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	RETURN ots_cluster.describe_table_on(0, ots_cluster.target(t, table_name));
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, 0);
END
$$;
COMMENT ON FUNCTION ots_cluster.describe_table_api(text, text) IS
	'ots.describe_table with the caller''s search_path (internal)';

CREATE FUNCTION ots.describe_table(table_name text) RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL UNSAFE
	RETURN ots_cluster.describe_table_api(pg_catalog.current_setting('search_path'), table_name);
COMMENT ON FUNCTION ots.describe_table(text) IS
	'primary-key schema, options, partitions and creation time of an ots table, as the first shard has it';

CREATE FUNCTION ots.list_table() RETURNS TABLE (schema_name name, table_name name)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	s text; m text; d text; hi text;
BEGIN
	RETURN QUERY SELECT l.schema_name, l.table_name FROM ots_cluster.list_table_on(0) l
				  ORDER BY l.schema_name COLLATE "C", l.table_name COLLATE "C";
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, 0);
END
$$;
COMMENT ON FUNCTION ots.list_table() IS 'every ots table the caller may see, as the first shard lists them';

-- ots.create_index's implementation: names resolved through caller_path, the
-- caller's search_path (ots.create_index passes it)
CREATE FUNCTION ots_cluster.create_index_api(
	caller_path text,
	table_name text,
	index_name text,
	primary_key text[],
	defined_columns text[],
	index_type text,
	include_base_data boolean)
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	ps integer[] := ots_cluster.shard_partitions();
	t ots_cluster.table_entry;
	target text;
	r record;
	p integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	target := ots_cluster.target(t, table_name);
	-- the index is an ots table beside its base: created where it is missing
	r := ots_cluster.resolve_on_shards(CASE WHEN t.table_name IS NULL OR index_name IS NULL THEN NULL
											ELSE ots_cluster.qualified(t.schema_name, index_name::name) END, caller_path);
	IF r.schema_name IS NULL THEN
		r.present := pg_catalog.array_fill(false, ARRAY[pg_catalog.cardinality(ps)]);
		PERFORM ots_cluster.resolve_on_shards(target, caller_path);
	END IF;
	FOR i IN 1 .. pg_catalog.cardinality(ps) LOOP
		-- present everywhere: the first shard says so as the single node does
		CONTINUE WHEN r.present[i] AND NOT (i = 1 AND true = ALL (r.present));
		p := ps[i];
		PERFORM ots_cluster.create_index_on(p, target, index_name, primary_key, defined_columns, index_type,
											include_base_data);
	END LOOP;
	IF t.table_name IS NOT NULL AND index_name IS NOT NULL THEN
		PERFORM ots_cluster.table_changed(ots_cluster.qualified(t.schema_name, index_name::name));
	END IF;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	-- some shards may have changed: every session forgets what it knew
	PERFORM ots_cluster.catalog_changed();
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.create_index_api(text, text, text, text[], text[], text, boolean) IS
	'ots.create_index with the caller''s search_path (internal)';

CREATE FUNCTION ots.create_index(table_name text, index_name text, primary_key text[],
								 defined_columns text[] DEFAULT '{}', index_type text DEFAULT 'GLOBAL',
								 include_base_data boolean DEFAULT true) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.create_index_api(pg_catalog.current_setting('search_path'), table_name,
			index_name, primary_key, defined_columns, index_type, include_base_data);
COMMENT ON FUNCTION ots.create_index(text, text, text[], text[], text, boolean) IS
	'creates a secondary index on every shard (where it is missing); each shard fills its own in the background';

-- ots.delete_index's implementation: names resolved through caller_path, the
-- caller's search_path (ots.delete_index passes it)
CREATE FUNCTION ots_cluster.delete_index_api(
	caller_path text,
	table_name text,
	index_name text)
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	ps integer[] := ots_cluster.shard_partitions();
	t ots_cluster.table_entry;
	target text;
	r record;
	p integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	target := ots_cluster.target(t, table_name);
	r := ots_cluster.resolve_on_shards(CASE WHEN t.table_name IS NULL OR index_name IS NULL THEN NULL
											ELSE ots_cluster.qualified(t.schema_name, index_name::name) END, caller_path);
	PERFORM ots_cluster.resolve_on_shards(target, caller_path);
	FOR i IN 1 .. pg_catalog.cardinality(ps) LOOP
		-- missing everywhere: the first shard raises the single node's error
		CONTINUE WHEN r.schema_name IS NOT NULL AND NOT r.present[i];
		p := ps[i];
		PERFORM ots_cluster.delete_index_on(p, target, index_name);
		EXIT WHEN r.schema_name IS NULL;
	END LOOP;
	IF t.table_name IS NOT NULL AND index_name IS NOT NULL THEN
		PERFORM ots_cluster.table_changed(ots_cluster.qualified(t.schema_name, index_name::name));
	END IF;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	-- some shards may have changed: every session forgets what it knew
	PERFORM ots_cluster.catalog_changed();
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.delete_index_api(text, text, text) IS
	'ots.delete_index with the caller''s search_path (internal)';

CREATE FUNCTION ots.delete_index(table_name text, index_name text) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.delete_index_api(pg_catalog.current_setting('search_path'), table_name,
			index_name);
COMMENT ON FUNCTION ots.delete_index(text, text) IS 'drops a secondary index on every shard that has it';

-- ots_cluster.change_defined_columns: add_defined_column (adding) or
-- delete_defined_column on every shard
CREATE FUNCTION ots_cluster.change_defined_columns(caller_path text, table_name text, adding boolean,
												   defined_columns text, column_names text[]) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	target text;
	p integer := 0;
	s text; m text; d text; hi text;
BEGIN
	target := ots_cluster.target(ots_cluster.table_of(table_name, caller_path), table_name);
	PERFORM ots_cluster.resolve_on_shards(target, caller_path);
	FOREACH p IN ARRAY ots_cluster.shard_partitions() LOOP
		IF adding THEN
			PERFORM ots_cluster.add_defined_column_on(p, target, defined_columns);
		ELSE
			PERFORM ots_cluster.delete_defined_column_on(p, target, column_names);
		END IF;
	END LOOP;
	-- the view in the proxy database gains or loses the columns
	PERFORM ots_cluster.table_changed(target);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	-- some shards may have changed: every session forgets what it knew
	PERFORM ots_cluster.catalog_changed();
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.change_defined_columns(text, text, boolean, text, text[]) IS
	'adds or removes defined columns of an ots table on every shard (internal)';

CREATE FUNCTION ots.add_defined_column(table_name text, defined_columns text) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	BEGIN ATOMIC
		SELECT ots_cluster.change_defined_columns(pg_catalog.current_setting('search_path'), table_name, true,
												  defined_columns, NULL);
	END;
COMMENT ON FUNCTION ots.add_defined_column(text, text) IS 'adds defined columns to an ots table on every shard';

CREATE FUNCTION ots.delete_defined_column(table_name text, column_names text[]) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	BEGIN ATOMIC
		SELECT ots_cluster.change_defined_columns(pg_catalog.current_setting('search_path'), table_name, false,
												  NULL, column_names);
	END;
COMMENT ON FUNCTION ots.delete_defined_column(text, text[]) IS 'removes defined columns of an ots table on every shard';

-- ots.build_index: ots's build_index, shard after shard, its steps called
-- through PL/Proxy (each committed on its shard, as build_index commits them).
-- Not pinned: it reads the caller's search_path; it names only qualified
-- functions and no operator (10_cluster.sql).
CREATE PROCEDURE ots.build_index(table_name text, index_name text)
	LANGUAGE plpgsql
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	target text;
	p integer := 0;
	leaf text;
	b record;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, pg_catalog.current_setting('search_path'));
	target := ots_cluster.target(t, table_name);
	PERFORM ots_cluster.resolve_on_shards(target, pg_catalog.current_setting('search_path'));
	BEGIN
		IF t.table_name IS NULL THEN
			-- the single node's OTSObjectNotExist, from the first shard
			PERFORM ots_cluster.describe_table_on(0, target);
		END IF;
		FOREACH p IN ARRAY ots_cluster.shard_partitions() LOOP
			PERFORM ots_cluster.index_check_on(p, t.schema_name, t.table_name, index_name);
		END LOOP;
		FOREACH p IN ARRAY ots_cluster.shard_partitions() LOOP
			FOR leaf IN SELECT l FROM ots_cluster.index_build_begin_on(p, t.schema_name, index_name::name) l LOOP
				SELECT 0::bigint AS next_block, 0::oid AS filenode INTO b;
				LOOP
					SELECT r.next_block, r.filenode INTO b
					  FROM ots_cluster.index_backfill_batch_on(p, t.schema_name, index_name::name, leaf,
															   b.next_block, b.filenode) r;
					EXIT WHEN b.next_block IS NULL;
				END LOOP;
			END LOOP;
			PERFORM ots_cluster.index_build_end_on(p, t.schema_name, index_name::name);
		END LOOP;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
		PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
	END;
END
$$;
COMMENT ON PROCEDURE ots.build_index(text, text) IS
	'fills a secondary index on every shard, in batches each committed on its shard, and lets it answer reads';

-- ots.hash_prefix: as ots computes it (src/storage.c): the first n hex
-- digits of the MD5 of the value (String: its bytes; Integer: its decimal
-- text; Binary: its bytes), computed here without asking a shard
CREATE FUNCTION ots_cluster.hash_prefix_md5(md5 text, n integer) RETURNS text
	LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF n < 1 OR n > 8 THEN
		RAISE EXCEPTION USING ERRCODE = 'OT001', MESSAGE = format('Invalid hash prefix length: %s.', n),
			DETAIL = 'The length is a number of hex digits from 1 to 8.';
	END IF;
	RETURN left(md5, n);
END
$$;
COMMENT ON FUNCTION ots_cluster.hash_prefix_md5(text, integer) IS 'the first n of 32 MD5 hex digits, n checked as ots does (internal)';

CREATE FUNCTION ots.hash_prefix(value text, n integer) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN ots_cluster.hash_prefix_md5(pg_catalog.md5(value), n);
CREATE FUNCTION ots.hash_prefix(value bigint, n integer) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN ots_cluster.hash_prefix_md5(pg_catalog.md5(value::text), n);
CREATE FUNCTION ots.hash_prefix(value bytea, n integer) RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN ots_cluster.hash_prefix_md5(pg_catalog.md5(value), n);

------------------------------------------------------------------------------
-- Streams are not routed through the proxy (yet): ask a shard directly
------------------------------------------------------------------------------
CREATE FUNCTION ots_cluster.stream_not_routed(fn text) RETURNS void
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
		MESSAGE = format('%s is not available through an ots cluster''s proxy', fn),
		DETAIL = 'Streams are not routed to the shards: each shard keeps the stream of its own rows.',
		HINT = 'Call the stream functions on each shard database (ots_cluster.shards() lists them).';
END
$$;
COMMENT ON FUNCTION ots_cluster.stream_not_routed(text) IS 'raises 0A000 for a stream function called on the proxy (internal)';

CREATE FUNCTION ots.list_stream(table_name text DEFAULT NULL)
	RETURNS TABLE (stream_id text, schema_name name, table_name name, creation_time bigint)
	LANGUAGE sql STABLE PARALLEL SAFE
	AS $$ SELECT ots_cluster.stream_not_routed('ots.list_stream')::text, NULL::name, NULL::name, NULL::bigint $$;
COMMENT ON FUNCTION ots.list_stream(text) IS 'not routed in a cluster: raises feature_not_supported';

CREATE FUNCTION ots.describe_stream(stream_id text, inclusive_start_shard_id text DEFAULT NULL,
									shard_limit integer DEFAULT NULL) RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$ BEGIN PERFORM ots_cluster.stream_not_routed('ots.describe_stream'); RETURN NULL; END $$;
COMMENT ON FUNCTION ots.describe_stream(text, text, integer) IS 'not routed in a cluster: raises feature_not_supported';

CREATE FUNCTION ots.get_shard_iterator(stream_id text, shard_id text, "timestamp" bigint DEFAULT NULL)
	RETURNS text
	LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $$ BEGIN PERFORM ots_cluster.stream_not_routed('ots.get_shard_iterator'); RETURN NULL; END $$;
COMMENT ON FUNCTION ots.get_shard_iterator(text, text, bigint) IS 'not routed in a cluster: raises feature_not_supported';

CREATE FUNCTION ots.get_stream_record(shard_iterator text, "limit" integer DEFAULT NULL) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $$ BEGIN PERFORM ots_cluster.stream_not_routed('ots.get_stream_record'); RETURN NULL; END $$;
COMMENT ON FUNCTION ots.get_stream_record(text, integer) IS 'not routed in a cluster: raises feature_not_supported';
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
-- src/ots_limits.h, so the proxy spells no limit).
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
	  FROM ots.get_range($2, ($3)[1], $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) AS g;
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
-- SQL on the proxy: each ots table the proxy knows has a view in the proxy
-- database with the name, schema and columns of the single node's view
-- (src/sql/30_tables.sql, ots.sync_table_view: the key columns as stored,
-- String text COLLATE "C", Integer bigint, Binary bytea; the attributes as
-- jsonb, named "$attributes" when a key or defined column is called
-- attributes; one typed column per defined column), made over
-- ots.get_range_rows of the whole table, so SELECT on it streams every
-- shard's rows, merged in key order.  Nothing in the proxy database holds
-- rows: the view's query calls get_range_rows as the querying role, whose
-- privileges the shards check.  The views are read-only (writes go through
-- the ots API, or the shard's own view).
--
-- The columns are copied from the first shard's view (its names, order and
-- types, which ots keeps in step with the defined columns), the owner from
-- the owner of that view: whoever created the table (PL/Proxy connects as
-- the calling role), when that role exists in the proxy database too.
-- The proxy's DDL keeps a view in step with its table (created, changed,
-- dropped with it: ots_cluster.catalog_changed, for the table's owner);
-- ots_cluster.sync_views() makes every table's, for tables made elsewhere.

-- ots_cluster.view_columns_first: the columns of the view schema.table on
-- the first shard, in order, with the owners of the view and its schema,
-- and whether role_name (when given) is a member of the view's owner
-- (asked as the extension's owner, from sync_view)
CREATE FUNCTION ots_cluster.view_columns_first(schema_arg name, table_arg name, role_name name)
	RETURNS TABLE (column_name text, column_type text, view_owner text, schema_owner text, role_owns boolean)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON 0;
	SELECT a.attname::pg_catalog.text AS column_name, pg_catalog.format_type(a.atttypid, a.atttypmod) AS column_type,
		   pg_catalog.pg_get_userbyid(c.relowner)::pg_catalog.text AS view_owner,
		   pg_catalog.pg_get_userbyid(n.nspowner)::pg_catalog.text AS schema_owner,
		   CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) $3)
				THEN pg_catalog.pg_has_role($3, c.relowner, 'USAGE') ELSE false END AS role_owns
	  FROM pg_catalog.pg_class c
	  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
	  JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.oid
										AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
	 WHERE n.nspname OPERATOR(pg_catalog.=) $1 AND c.relname OPERATOR(pg_catalog.=) $2
	   AND c.relkind OPERATOR(pg_catalog.=) 'v'
	 ORDER BY a.attnum;
	$$;
COMMENT ON FUNCTION ots_cluster.view_columns_first(name, name, name) IS
	'the columns of an ots table''s view on the first shard, the owners of the view and its schema, whether a role owns it (internal)';
REVOKE ALL ON FUNCTION ots_cluster.view_columns_first(name, name, name) FROM PUBLIC;

-- ots_cluster.tables_first: every ots table (and index) of the first shard
CREATE FUNCTION ots_cluster.tables_first() RETURNS TABLE (schema_name name, table_name name)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON 0;
	SELECT t.schema_name, t.table_name FROM ots.tables t;
	$$;
COMMENT ON FUNCTION ots_cluster.tables_first() IS 'every ots table of the first shard (internal)';
REVOKE ALL ON FUNCTION ots_cluster.tables_first() FROM PUBLIC;

------------------------------------------------------------------------------
-- A value of the API's jsonb (docs/reference.md) as the view's column types
-- show it: NULL when it is of another type, as a single node's typed column
-- shows a cell written before its column was defined.  Simple SQL
-- functions, inlined into the views' queries.
------------------------------------------------------------------------------
CREATE FUNCTION ots_cluster.value_string(v jsonb) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE WHEN pg_catalog.jsonb_typeof(v) = 'string' THEN v #>> '{}' END;
-- an Integer is a number without a fraction (ots prints a Double with one)
CREATE FUNCTION ots_cluster.value_integer(v jsonb) RETURNS bigint
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE WHEN pg_catalog.jsonb_typeof(v) = 'number' AND pg_catalog.strpos(v::text, '.') = 0
				THEN (v::text)::bigint END;
CREATE FUNCTION ots_cluster.value_double(v jsonb) RETURNS double precision
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE WHEN pg_catalog.jsonb_typeof(v) = 'number' AND pg_catalog.strpos(v::text, '.') > 0
				THEN (v::text)::double precision
				WHEN pg_catalog.jsonb_typeof(v -> '$double') = 'number'
				THEN ((v -> '$double')::text)::double precision END;
CREATE FUNCTION ots_cluster.value_boolean(v jsonb) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE WHEN pg_catalog.jsonb_typeof(v) = 'boolean' THEN v::boolean END;
CREATE FUNCTION ots_cluster.value_binary(v jsonb) RETURNS bytea
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE WHEN pg_catalog.jsonb_typeof(v -> '$binary') = 'string'
				THEN pg_catalog.decode(v ->> '$binary', 'base64') END;
COMMENT ON FUNCTION ots_cluster.value_string(jsonb) IS 'a String value of the API''s jsonb as text, else NULL (the proxy''s views)';
COMMENT ON FUNCTION ots_cluster.value_integer(jsonb) IS 'an Integer value of the API''s jsonb as bigint, else NULL (the proxy''s views)';
COMMENT ON FUNCTION ots_cluster.value_double(jsonb) IS 'a Double value of the API''s jsonb as double precision, else NULL (the proxy''s views)';
COMMENT ON FUNCTION ots_cluster.value_boolean(jsonb) IS 'a Boolean value of the API''s jsonb as boolean, else NULL (the proxy''s views)';
COMMENT ON FUNCTION ots_cluster.value_binary(jsonb) IS 'a Binary value of the API''s jsonb as bytea, else NULL (the proxy''s views)';

-- ots_cluster.view_read_only: the triggers of the proxy's views: before each
-- INSERT, UPDATE, DELETE (and COPY FROM) statement, and instead of each row
CREATE FUNCTION ots_cluster.view_read_only() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
		MESSAGE = pg_catalog.format('cannot %s view %I.%I of ots table %I.%I on an ots cluster''s proxy',
									CASE TG_OP WHEN 'INSERT' THEN 'insert into' WHEN 'UPDATE' THEN 'update'
											   ELSE 'delete from' END,
									TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME),
		DETAIL = 'The proxy''s views are read-only: they read the shards with ots.get_range_rows.',
		HINT = 'Write with the ots API (ots.put_row, ots.update_row, ots.delete_row, ots.batch_write_row) through the proxy, or through the table''s view on its shard.';
END
$$;
COMMENT ON FUNCTION ots_cluster.view_read_only() IS
	'refuses INSERT, UPDATE and DELETE on a proxy''s view of an ots table (0A000)';

-- ots_cluster.is_proxy_view: whether relation oid is a view sync_view made
-- (a view with the view_read_only trigger): the only relations it replaces
-- or drops
CREATE FUNCTION ots_cluster.is_proxy_view(rel oid) RETURNS boolean
	LANGUAGE sql STABLE PARALLEL SAFE
	RETURN EXISTS (SELECT 1 FROM pg_catalog.pg_trigger g
					WHERE g.tgrelid = rel AND g.tgname = 'ots_read_only'
					  AND g.tgfoid = 'ots_cluster.view_read_only()'::pg_catalog.regprocedure);
COMMENT ON FUNCTION ots_cluster.is_proxy_view(oid) IS 'whether a relation is a view of an ots table made by the proxy (internal)';

-- ots_cluster.sync_view: makes the view of schema.table in the proxy
-- database match the table as the first shard has it (asked as the
-- extension's owner) and that shard's view: created, its columns changed
-- (made again when one goes, keeping owner and grants), or dropped when the
-- table is gone.  A relation of that name that the proxy did not make is
-- left alone (a warning says so).  With for_role, only for a member of the
-- table's owner (of the view's, when the table is gone): the proxy's DDL
-- passes the role that called it (catalog_changed); another role's view is
-- left as it is, with a warning.  Returns what it did.
CREATE FUNCTION ots_cluster.sync_view(schema_name name, table_name name, for_role oid) RETURNS text
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	entry ots_cluster.table_entry;
	view_name text := pg_catalog.format('%I.%I', schema_name, table_name);
	rel oid;
	cols record;
	names text[];
	types text[];
	have_names text[];
	have_types text[];
	owner_name text;
	nsp_owner text;
	role_owns boolean;
	select_list text := '';
	query text;
	saved_owner text;
	saved_acl aclitem[];
	g record;
BEGIN
	BEGIN
		entry := ots_cluster.entry_of(ots_cluster.describe_any(schema_name, table_name));
	EXCEPTION WHEN SQLSTATE 'OT004' THEN
		-- a relation of that name on the shard that is no ots table
		entry := NULL;
	END;
	SELECT c.oid INTO rel FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	 WHERE n.nspname = sync_view.schema_name AND c.relname = sync_view.table_name;
	IF rel IS NOT NULL AND NOT ots_cluster.is_proxy_view(rel) THEN
		IF entry.table_name IS NOT NULL THEN
			RAISE WARNING 'the proxy database has a relation % of its own: ots table % gets no view there', view_name, view_name;
		END IF;
		RETURN 'skipped: a relation of the proxy database';
	END IF;
	IF entry.table_name IS NULL THEN
		IF rel IS NULL THEN
			RETURN 'none';
		END IF;
		IF for_role IS NOT NULL
		   AND NOT pg_catalog.pg_has_role(for_role, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = rel), 'USAGE') THEN
			RAISE WARNING 'the view % in the proxy database is left as it is: role % does not own it', view_name,
				pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(for_role))
				USING HINT = 'ots_cluster.sync_views() (superuser) brings every view in step.';
			RETURN 'skipped: another role''s';
		END IF;
		EXECUTE pg_catalog.format('DROP VIEW %s', view_name);
		RETURN 'dropped';
	END IF;
	SELECT pg_catalog.array_agg(v.column_name ORDER BY v.n), pg_catalog.array_agg(v.column_type ORDER BY v.n),
		   pg_catalog.min(v.view_owner), pg_catalog.min(v.schema_owner), pg_catalog.bool_and(v.role_owns)
	  INTO names, types, owner_name, nsp_owner, role_owns
	  FROM ots_cluster.view_columns_first(schema_name, table_name, pg_catalog.pg_get_userbyid(for_role))
		   WITH ORDINALITY v(column_name, column_type, view_owner, schema_owner, role_owns, n);
	IF names IS NULL OR pg_catalog.cardinality(names) <= pg_catalog.cardinality(entry.pk_names) THEN
		RETURN 'skipped: the first shard has no view';
	END IF;
	IF for_role IS NOT NULL AND NOT role_owns THEN
		RAISE WARNING 'the view % in the proxy database is left as it is: role % does not own ots table %', view_name,
			pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(for_role)), view_name
			USING HINT = 'ots_cluster.sync_views() (superuser) brings every view in step.';
		RETURN 'skipped: another role''s';
	END IF;
	IF rel IS NOT NULL THEN
		SELECT pg_catalog.array_agg(a.attname::text ORDER BY a.attnum),
			   pg_catalog.array_agg(pg_catalog.format_type(a.atttypid, a.atttypmod) ORDER BY a.attnum)
		  INTO have_names, have_types
		  FROM pg_catalog.pg_attribute a WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped;
		IF have_names = names AND have_types = types THEN
			RETURN 'unchanged';
		END IF;
	END IF;
	FOR i IN 1 .. pg_catalog.cardinality(names) LOOP
		select_list := select_list || CASE WHEN i > 1 THEN ', ' ELSE '' END || CASE
			WHEN i <= pg_catalog.cardinality(entry.pk_names) THEN
				pg_catalog.format(CASE entry.pk_types[i]
									  WHEN 'STRING' THEN 'ots_cluster.value_string(r.primary_key -> %L) COLLATE "C"'
									  WHEN 'INTEGER' THEN 'ots_cluster.value_integer(r.primary_key -> %L)'
									  ELSE 'ots_cluster.value_binary(r.primary_key -> %L)' END, names[i])
			WHEN i = pg_catalog.cardinality(entry.pk_names) + 1 THEN 'r.attributes'
			ELSE pg_catalog.format(CASE types[i]
									   WHEN 'text' THEN 'ots_cluster.value_string(r.attributes -> %L)'
									   WHEN 'bigint' THEN 'ots_cluster.value_integer(r.attributes -> %L)'
									   WHEN 'double precision' THEN 'ots_cluster.value_double(r.attributes -> %L)'
									   WHEN 'boolean' THEN 'ots_cluster.value_boolean(r.attributes -> %L)'
									   ELSE 'ots_cluster.value_binary(r.attributes -> %L)' END, names[i])
			END || pg_catalog.format(' AS %I', names[i]);
	END LOOP;
	query := pg_catalog.format('SELECT %s FROM ots.get_range_rows(%L, %L::jsonb, %L::jsonb) r', select_list,
							   ots_cluster.qualified(schema_name, table_name),
							   (SELECT pg_catalog.jsonb_object_agg(k, '{"$inf": "min"}'::jsonb) FROM pg_catalog.unnest(entry.pk_names) k),
							   (SELECT pg_catalog.jsonb_object_agg(k, '{"$inf": "max"}'::jsonb) FROM pg_catalog.unnest(entry.pk_names) k));
	-- its schema, owned as on the shard (else by the extension's owner)
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n WHERE n.nspname = schema_name) THEN
		EXECUTE pg_catalog.format('CREATE SCHEMA %I', schema_name);
		IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = nsp_owner) THEN
			EXECUTE pg_catalog.format('ALTER SCHEMA %I OWNER TO %I', schema_name, nsp_owner);
		END IF;
	END IF;
	IF rel IS NOT NULL THEN
		BEGIN
			EXECUTE pg_catalog.format('CREATE OR REPLACE VIEW %s WITH (security_barrier) AS %s', view_name, query);
			RETURN 'changed';
		EXCEPTION WHEN invalid_table_definition THEN
			-- a column goes or changes: made again, with its owner and grants
			-- (what depends on it makes the DROP fail, naming it)
			SELECT pg_catalog.pg_get_userbyid(c.relowner)::text, c.relacl INTO saved_owner, saved_acl
			  FROM pg_catalog.pg_class c WHERE c.oid = rel;
			EXECUTE pg_catalog.format('DROP VIEW %s', view_name);
		END;
	END IF;
	EXECUTE pg_catalog.format('CREATE VIEW %s WITH (security_barrier) AS %s', view_name, query);
	-- refused before a row is read (the statement trigger), or the view's
	-- natural error (its row trigger lets the statement trigger fire)
	EXECUTE pg_catalog.format('CREATE TRIGGER ots_read_only INSTEAD OF INSERT OR UPDATE OR DELETE ON %s'
							  ' FOR EACH ROW EXECUTE FUNCTION ots_cluster.view_read_only()', view_name);
	EXECUTE pg_catalog.format('CREATE TRIGGER ots_read_only_statement BEFORE INSERT OR UPDATE OR DELETE ON %s'
							  ' FOR EACH STATEMENT EXECUTE FUNCTION ots_cluster.view_read_only()', view_name);
	EXECUTE pg_catalog.format('COMMENT ON VIEW %s IS %L', view_name,
							  'ots table through the cluster''s proxy: live rows of every shard, read-only');
	EXECUTE pg_catalog.format('REVOKE ALL ON %s FROM PUBLIC', view_name);
	owner_name := coalesce(saved_owner, owner_name);
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = owner_name) AND owner_name <> current_user THEN
		EXECUTE pg_catalog.format('ALTER VIEW %s OWNER TO %I', view_name, owner_name);
	END IF;
	IF saved_acl IS NOT NULL THEN
		EXECUTE pg_catalog.format('REVOKE ALL ON %s FROM %I', view_name, owner_name);
		FOR g IN SELECT a.privilege_type, a.grantee, a.is_grantable FROM pg_catalog.aclexplode(saved_acl) a LOOP
			EXECUTE pg_catalog.format('GRANT %s ON %s TO %s%s', g.privilege_type, view_name,
									  CASE g.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(g.grantee)) END,
									  CASE WHEN g.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
		END LOOP;
	END IF;
	RETURN CASE WHEN saved_owner IS NULL THEN 'created' ELSE 'changed' END;
END
$$;
COMMENT ON FUNCTION ots_cluster.sync_view(name, name, oid) IS
	'creates, changes or drops the proxy''s read-only view of ots table schema.table as the first shard has it (internal)';
REVOKE ALL ON FUNCTION ots_cluster.sync_view(name, name, oid) FROM PUBLIC;

-- ots_cluster.view_follow: sync_view for the proxy's DDL, as the extension's
-- owner (ots_cluster.catalog_changed) for the role that called the DDL; a
-- view that cannot follow (what depends on it, a concurrent sync, a shard
-- that does not answer) is a warning, not the DDL's failure
CREATE FUNCTION ots_cluster.view_follow(schema_name name, table_name name, for_role oid) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	message text;
BEGIN
	PERFORM ots_cluster.sync_view(schema_name, table_name, for_role);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS message = MESSAGE_TEXT;
	RAISE WARNING 'the view of ots table %.% in the proxy database was not synced: %',
		pg_catalog.quote_ident(schema_name), pg_catalog.quote_ident(table_name), message;
END
$$;
COMMENT ON FUNCTION ots_cluster.view_follow(name, name, oid) IS
	'sync_view after the proxy''s DDL, for the role that called it; a failure is a warning (internal)';
REVOKE ALL ON FUNCTION ots_cluster.view_follow(name, name, oid) FROM PUBLIC;

-- ots_cluster.sync_views: every table of the first shard (and every view
-- the proxy made) brought in step: its view made or refreshed, the views
-- of tables gone dropped; every session forgets what it knew of tables.
-- For tables made before the proxy (a node becoming a cluster), or through
-- another proxy.
CREATE FUNCTION ots_cluster.sync_views()
	RETURNS TABLE (schema_name name, table_name name, action text)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
	had boolean;
	has boolean;
BEGIN
	PERFORM ots_cluster.catalog_changed();
	FOR t IN SELECT f.schema_name AS s, f.table_name AS n FROM ots_cluster.tables_first() f
			 UNION
			 SELECT n.nspname, c.relname FROM pg_catalog.pg_class c
			   JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			  WHERE c.relkind = 'v' AND ots_cluster.is_proxy_view(c.oid)
			 ORDER BY 1, 2 LOOP
		had := ots_cluster.is_proxy_view(pg_catalog.to_regclass(pg_catalog.format('%I.%I', t.s, t.n)));
		PERFORM ots_cluster.sync_view(t.s, t.n, NULL);
		has := ots_cluster.is_proxy_view(pg_catalog.to_regclass(pg_catalog.format('%I.%I', t.s, t.n)));
		schema_name := t.s;
		table_name := t.n;
		action := CASE WHEN has AND NOT had THEN 'created' WHEN had AND NOT has THEN 'dropped'
					   WHEN has THEN 'refreshed' ELSE 'no view' END;
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots_cluster.sync_views() IS
	'makes or refreshes the read-only view in the proxy database of every ots table of the first shard; every session forgets its catalog';
REVOKE ALL ON FUNCTION ots_cluster.sync_views() FROM PUBLIC;
-- the error codes of src/ots_error_codes.h (written by the Makefile)
INSERT INTO ots_cluster.error_codes VALUES ('OT001', 'OTSParameterInvalid');
INSERT INTO ots_cluster.error_codes VALUES ('OT002', 'OTSInvalidPK');
INSERT INTO ots_cluster.error_codes VALUES ('OT003', 'OTSConditionCheckFail');
INSERT INTO ots_cluster.error_codes VALUES ('OT004', 'OTSObjectNotExist');
INSERT INTO ots_cluster.error_codes VALUES ('OT005', 'OTSObjectAlreadyExist');
INSERT INTO ots_cluster.error_codes VALUES ('OT006', 'OTSDataOutOfRange');
INSERT INTO ots_cluster.error_codes VALUES ('OT007', 'OTSQuotaExhausted');
INSERT INTO ots_cluster.error_codes VALUES ('OT008', 'OTSRowOperationConflict');
INSERT INTO ots_cluster.error_codes VALUES ('OT009', 'OTSOutOfColumnCountLimit');
INSERT INTO ots_cluster.error_codes VALUES ('OT010', 'OTSOutOfRowSizeLimit');
INSERT INTO ots_cluster.error_codes VALUES ('OT011', 'OTSInternalServerError');
INSERT INTO ots_cluster.error_codes VALUES ('OT012', 'OTSTrimmedDataAccess');
INSERT INTO ots_cluster.error_codes VALUES ('OT013', 'OTSPartitionUnavailable');
