-- Routing.  A row lives in partition key_hash(partition key) & (P - 1), as
-- PL/Proxy maps a RUN ON hash.  The hash is hashtext() of the key's
-- canonical text, so that a shard can compute it over its stored keys
-- (storage_hash_sql): the partition mover selects a partition's rows so.

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
