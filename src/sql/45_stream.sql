-- ---------------------------------------------------------------------
-- Stream: Tablestore's change data capture (src/stream*.c)
-- ---------------------------------------------------------------------
-- A table's stream is enabled by create_table / update_table
-- (stream_enabled, stream_expiration_hours).  Its records are made at the
-- write point in the writing transaction; each committing transaction gets
-- its place in each shard (a partition) it wrote, an entry of "<table>$log"
-- holding its records ("<table>$rec" takes those of large transactions;
-- src/stream/stream_storage.h).  Consumers read them with
-- list_stream, describe_stream, get_shard_iterator and get_stream_record,
-- as Tablestore's SDKs do; ots.purge removes expired records.

-- ots.stream_create_storage: the log and records of a new stream, owned by
-- the table's owner, as src/stream/stream_storage.c reads and writes them
CREATE FUNCTION ots.stream_create_storage(schema_name name, table_name name) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	owner_name name;
BEGIN
	EXECUTE format('CREATE TABLE %I.%I (shard pg_catalog.int4 NOT NULL, position pg_catalog.int8 NOT NULL,'
				   ' id pg_catalog.int8 NOT NULL, spilled pg_catalog.int4 NOT NULL,'
				   ' records pg_catalog.jsonb[] NOT NULL, CONSTRAINT %I PRIMARY KEY (shard, position))',
				   schema_name, table_name || '$log', table_name || '$logk');
	EXECUTE format('CREATE TABLE %I.%I (shard pg_catalog.int4 NOT NULL, id pg_catalog.int8 NOT NULL,'
				   ' n pg_catalog.int4 NOT NULL, record pg_catalog.jsonb NOT NULL,'
				   ' CONSTRAINT %I PRIMARY KEY (shard, id, n))',
				   schema_name, table_name || '$rec', table_name || '$reck');
	EXECUTE format('COMMENT ON TABLE %I.%I IS %L', schema_name, table_name || '$log',
				   format('stream of ots table %I.%I: each commit''s place in its shard, and its records; read them with ots.get_stream_record',
						  schema_name, table_name));
	EXECUTE format('COMMENT ON TABLE %I.%I IS %L', schema_name, table_name || '$rec',
				   format('stream of ots table %I.%I: records of large transactions, written as they ran; read them with ots.get_stream_record',
						  schema_name, table_name));
	-- a member of the owner's role enabling the stream makes them the owner's
	SELECT r.rolname INTO owner_name
	  FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner
	 WHERE c.oid = format('%I.%I', schema_name, table_name || '$data')::regclass;
	IF owner_name <> current_user THEN
		EXECUTE format('ALTER TABLE %I.%I OWNER TO %I', schema_name, table_name || '$log', owner_name);
		EXECUTE format('ALTER TABLE %I.%I OWNER TO %I', schema_name, table_name || '$rec', owner_name);
	END IF;
END
$$;
COMMENT ON FUNCTION ots.stream_create_storage(name, name) IS
	'creates the log and records of an ots table''s new stream (internal)';

-- ots.stream_drop_storage: a stream's relations, if there are any (with
-- the owner of the table's storage, which may be gone already: the owner it
-- had, ots.relation_owner)
CREATE FUNCTION ots.stream_drop_storage(schema_name name, table_name name) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	rel name;
BEGIN
	FOREACH rel IN ARRAY ARRAY[table_name || '$log', table_name || '$rec']::name[] LOOP
		IF to_regclass(format('%I.%I', schema_name, rel)) IS NOT NULL
		   AND ots.relation_owner(schema_name, rel) = ots.relation_owner(schema_name, table_name || '$data') THEN
			EXECUTE format('DROP TABLE %I.%I', schema_name, rel);
		END IF;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.stream_drop_storage(name, name) IS
	'drops the log and records of an ots table''s stream (internal)';

-- ots.stream_sync: create_table's and update_table's stream arguments
-- (NULL: unchanged).  Enabling makes a new stream; disabling drops it and
-- its records; enabling it again makes another, whose id differs, so
-- iterators of the old one are refused.  The expiration and the original
-- columns are checked here with the rest of the options, and may change
-- while the stream is on.
CREATE FUNCTION ots.stream_sync(schema_name name, table_name name, stream_enabled boolean,
								stream_expiration_hours integer,
								stream_original_columns text[]) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t ots.tables;
	original text[];
BEGIN
	IF stream_enabled IS NULL AND stream_expiration_hours IS NULL AND stream_original_columns IS NULL THEN
		RETURN;
	END IF;
	-- the caller's own table, not an index; one change of its definition at a time
	t := ots.ddl_table(stream_sync.schema_name, stream_sync.table_name,
					   'Stream is not supported on an index table.');
	IF stream_expiration_hours IS NOT NULL
	   AND stream_expiration_hours NOT BETWEEN 1 AND ots.limit('max_stream_expiration_hours') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('The expiration time of stream must be in range: [1, %s].',
								 ots.limit('max_stream_expiration_hours')),
						  'stream_expiration_hours is a number of hours.');
	END IF;
	IF stream_enabled IS NULL AND t.stream_id IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Stream is not enabled on this table.',
						  'Pass stream_enabled => true to enable it.');
	END IF;
	IF stream_original_columns IS NOT NULL THEN
		original := ots.stream_check_original_columns(stream_original_columns, t.pk_names);
		IF stream_enabled IS false AND original IS NOT NULL THEN
			PERFORM ots.raise('OTSParameterInvalid', 'Original columns can only be set on a table with a stream.',
							  'Enable the stream (stream_enabled => true) with them.');
		END IF;
	ELSIF t.stream_id IS NOT NULL THEN
		original := t.stream_original_columns;
	END IF;

	-- writers of the table hold its storage with ROW EXCLUSIVE (the write
	-- point, src/writepoint/storage_write.c): those in flight finish first, new ones
	-- wait for this change, so a transaction's changes are all recorded or
	-- none, and each record carries the original columns of one setting.
	-- The storage alone, not its partitions: a writer holding one partition
	-- and waiting for another cannot deadlock with this.
	IF stream_enabled IS NOT NULL OR stream_original_columns IS NOT NULL THEN
		EXECUTE format('LOCK TABLE ONLY %I.%I IN SHARE MODE', stream_sync.schema_name,
					   stream_sync.table_name || '$data');
	END IF;
	IF stream_enabled IS false THEN
		IF t.stream_id IS NOT NULL THEN
			PERFORM ots.catalog_set_stream(stream_sync.schema_name, stream_sync.table_name, NULL, NULL, NULL);
			PERFORM ots.stream_drop_storage(stream_sync.schema_name, stream_sync.table_name);
		END IF;
	ELSIF t.stream_id IS NULL THEN
		PERFORM ots.stream_create_storage(stream_sync.schema_name, stream_sync.table_name);
		PERFORM ots.catalog_set_stream(stream_sync.schema_name, stream_sync.table_name,
									   gen_random_uuid()::text, coalesce(stream_expiration_hours, 24), original);
	ELSE
		PERFORM ots.catalog_set_stream(stream_sync.schema_name, stream_sync.table_name, t.stream_id,
									   coalesce(stream_expiration_hours, t.stream_expiration_hours), original);
	END IF;
END
$$;
COMMENT ON FUNCTION ots.stream_sync(name, name, boolean, integer, text[]) IS
	'enables, disables or changes the stream of an ots table the caller owns (internal; create_table, update_table)';

-- ots.stream_check_original_columns: a stream's original columns as
-- ots.tables keeps them, distinct and bytewise sorted, NULL for none; each
-- an attribute column name (a key column's value is in every record already)
CREATE FUNCTION ots.stream_check_original_columns(columns text[], pk_names text[]) RETURNS text[]
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	c text;
	sorted text[];
BEGIN
	IF array_ndims(columns) > 1 THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Original columns must be a one-dimensional array.');
	END IF;
	FOREACH c IN ARRAY coalesce(columns, '{}') LOOP
		IF c IS NULL THEN
			PERFORM ots.raise('OTSParameterInvalid', 'The name of an original column must not be NULL.');
		END IF;
		PERFORM ots.check_column_name(c);
		IF c = ANY (pk_names) THEN
			PERFORM ots.raise('OTSParameterInvalid',
							  format('The original column ''%s'' is a primary key column.', c),
							  'Every record carries the primary key already.');
		END IF;
	END LOOP;
	sorted := ARRAY(SELECT DISTINCT u COLLATE "C" FROM unnest(columns) u ORDER BY 1);
	IF cardinality(sorted) > ots.limit('max_stream_original_columns') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('The number of original columns must not exceed %s.',
								 ots.limit('max_stream_original_columns')));
	END IF;
	IF (SELECT sum(octet_length(u)) FROM unnest(sorted) u) > ots.limit('max_stream_original_bytes') THEN
		PERFORM ots.raise('OTSParameterInvalid',
						  format('The names of the original columns must not exceed %s bytes in all.',
								 ots.limit('max_stream_original_bytes')));
	END IF;
	RETURN CASE WHEN cardinality(sorted) > 0 THEN sorted END;
END
$$;
COMMENT ON FUNCTION ots.stream_check_original_columns(text[], text[]) IS
	'checks a stream''s original columns: attribute column names, at most max_stream_original_columns of at most max_stream_original_bytes in all; returns them distinct and sorted, NULL for none (internal)';

-- ots.stream_time: a time as Tablestore's streams give it, Unix microseconds
CREATE FUNCTION ots.stream_time(t timestamptz) RETURNS bigint
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT (extract(epoch FROM t) * 1000000)::bigint
$$;
COMMENT ON FUNCTION ots.stream_time(timestamptz) IS 'a time as Unix microseconds, as stream times are given (internal)';

-- ots.stream_details: describe_table's stream_details
CREATE FUNCTION ots.stream_details(t ots.tables) RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT CASE WHEN t.stream_id IS NULL THEN jsonb_build_object('enable_stream', false)
				ELSE jsonb_build_object('enable_stream', true, 'stream_id', t.stream_id,
										'expiration_time', t.stream_expiration_hours,
										'last_enable_time', ots.stream_time(t.stream_enabled_at))
					 OPERATOR(pg_catalog.||)
					 CASE WHEN t.stream_original_columns IS NOT NULL
						  THEN jsonb_build_object('original_columns', t.stream_original_columns)
						  ELSE '{}' END END
$$;
COMMENT ON FUNCTION ots.stream_details(ots.tables) IS
	'the stream_details of describe_table: enable_stream, stream_id, expiration_time (hours), last_enable_time (µs), original_columns when set (internal)';

-- ots.list_stream: the streams of the tables the caller may see (ListStream)
CREATE FUNCTION ots.list_stream(table_name text DEFAULT NULL)
	RETURNS TABLE (stream_id text, schema_name name, table_name name, creation_time bigint)
	LANGUAGE sql STABLE PARALLEL SAFE
-- a SQL-standard body: the table name resolves on the caller's search_path,
-- everything else was bound at CREATE EXTENSION
BEGIN ATOMIC
	-- Tablestore's errors for a table that is not there (or not visible)
	SELECT ots.describe_table(list_stream.table_name) WHERE list_stream.table_name IS NOT NULL;
	-- ots.tables shows each role only the tables it may see
	SELECT o.stream_id, o.schema_name, o.table_name, ots.stream_time(o.stream_enabled_at)
	  FROM ots.tables o
	 WHERE o.stream_id IS NOT NULL
	   AND (list_stream.table_name IS NULL
			OR (o.schema_name, o.table_name) IN (SELECT r.schema_name, r.table_name
												  FROM ots.resolve_name(list_stream.table_name, false) r))
	 ORDER BY o.schema_name COLLATE "C", o.table_name COLLATE "C";
END;
COMMENT ON FUNCTION ots.list_stream(text) IS
	'the streams of every ots table the caller may see, or of one table: stream_id, table, creation_time (µs)';

-- ots.describe_stream: a stream and its shards (DescribeStream).  A shard
-- is a partition of the table's storage, so it holds a fixed set of
-- partition keys; shards never split or merge, so none has a parent.
CREATE FUNCTION ots.describe_stream(stream_id text, inclusive_start_shard_id text DEFAULT NULL,
									shard_limit integer DEFAULT NULL) RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
	first integer := 0;
	last integer;
BEGIN
	IF describe_stream.stream_id IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter stream_id is missing.');
	END IF;
	-- ots.tables shows each role only the tables it may see
	SELECT o.* INTO t FROM ots.tables o WHERE o.stream_id = describe_stream.stream_id;
	IF NOT FOUND THEN
		PERFORM ots.raise('OTSParameterInvalid', format('Invalid stream id: ''%s''.', describe_stream.stream_id));
	END IF;
	IF inclusive_start_shard_id IS NOT NULL THEN
		IF inclusive_start_shard_id !~ '^(0|[1-9][0-9]{0,8})$'
		   OR inclusive_start_shard_id::integer >= t.partitions THEN
			PERFORM ots.raise('OTSParameterInvalid', format('Invalid shard id: ''%s''.', inclusive_start_shard_id));
		END IF;
		first := inclusive_start_shard_id::integer;
	END IF;
	IF shard_limit IS NOT NULL AND shard_limit <= 0 THEN
		PERFORM ots.raise('OTSParameterInvalid', 'The limit must be greater than 0.');
	END IF;
	last := least(t.partitions, first::bigint + coalesce(shard_limit, t.partitions)) - 1;
	RETURN jsonb_build_object(
		'stream_id', t.stream_id,
		'schema_name', t.schema_name,
		'table_name', t.table_name,
		'expiration_time', t.stream_expiration_hours,
		'creation_time', ots.stream_time(t.stream_enabled_at),
		'stream_status', 'STREAM_ACTIVE',
		'shards', (SELECT coalesce(jsonb_agg(jsonb_build_object('shard_id', s::text, 'parent_id', NULL,
																 'parent_sibling_id', NULL) ORDER BY s), '[]')
					 FROM generate_series(first, last) s),
		'next_shard_id', CASE WHEN last + 1 < t.partitions THEN to_jsonb((last + 1)::text) ELSE 'null' END);
END
$$;
COMMENT ON FUNCTION ots.describe_stream(text, text, integer) IS
	'a stream of an ots table: status, expiration (hours), creation_time (µs) and shards (one per partition)';

CREATE FUNCTION ots.get_shard_iterator(stream_id text, shard_id text, "timestamp" bigint DEFAULT NULL)
	RETURNS text
	AS 'MODULE_PATHNAME', 'ots_get_shard_iterator' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION ots.get_shard_iterator(text, text, bigint) IS
	'an iterator at the oldest record kept of a shard of a stream, or at the first committed at or after "timestamp" (ms); needs SELECT on the table';

CREATE FUNCTION ots.get_stream_record(shard_iterator text, "limit" integer DEFAULT NULL) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'ots_get_stream_record' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION ots.get_stream_record(text, integer) IS
	'up to "limit" (100) records of a shard from an iterator on, in commit order: {"stream_records": [...], "next_shard_iterator": ...}; needs SELECT on the table';

CREATE FUNCTION ots.stream_trim(schema_name name, table_name name, batch_size integer) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_stream_trim' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.stream_trim(name, name, integer) IS
	'removes up to batch_size expired log entries per shard of an ots table''s stream, and their records (owner only; internal; ots.purge)';
