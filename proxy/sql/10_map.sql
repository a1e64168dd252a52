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
