-- Single-row API.  Every function returns ots.row_result: the row's primary
-- key and attributes (NULL when there is no row or nothing is returned) and
-- the capacity units consumed, {"read": r, "write": w}.

CREATE FUNCTION ots.put_row(
	table_name text,
	primary_key jsonb,
	attributes jsonb DEFAULT '{}',
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE') RETURNS ots.row_result
	AS 'MODULE_PATHNAME', 'ots_put_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.put_row(text, jsonb, jsonb, text, jsonb, text) IS
	'writes a row, replacing all its cells (Tablestore PutRow)';

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
	AS 'MODULE_PATHNAME', 'ots_get_row' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION ots.get_row(text, jsonb, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'reads one row: the latest values, or versions with max_versions / time_range (Tablestore GetRow)';

-- The wire functions: the row API as otsd calls it, rows in Tablestore's
-- PlainBuffer (docs/gateway.md, "How otsd calls ots").
CREATE FUNCTION ots.wire_get_row(
	table_name text,
	primary_key jsonb,
	columns_to_get text[] DEFAULT NULL,
	max_versions integer DEFAULT NULL,
	time_range jsonb DEFAULT NULL,
	filter jsonb DEFAULT NULL,
	start_column text DEFAULT NULL,
	end_column text DEFAULT NULL,
	OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	AS 'MODULE_PATHNAME', 'ots_wire_get_row' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION ots.wire_get_row(text, jsonb, text[], integer, jsonb, jsonb, text, text) IS
	'get_row with timestamps, the row as Tablestore''s PlainBuffer (empty: none) and its capacity units: what otsd calls for GetRow';

CREATE FUNCTION ots.wire_get_range(
	table_name text,
	inclusive_start_primary_key jsonb,
	exclusive_end_primary_key jsonb,
	direction text DEFAULT 'FORWARD',
	"limit" integer DEFAULT NULL,
	columns_to_get text[] DEFAULT NULL,
	max_versions integer DEFAULT NULL,
	time_range jsonb DEFAULT NULL,
	filter jsonb DEFAULT NULL,
	start_column text DEFAULT NULL,
	end_column text DEFAULT NULL,
	token text DEFAULT NULL,
	OUT "rows" bytea, OUT next_start_primary_key bytea, OUT next_token text,
	OUT read_cu integer, OUT write_cu integer)
	AS 'MODULE_PATHNAME', 'ots_wire_get_range' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION ots.wire_get_range(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, text, text, text) IS
	'get_range''s page with timestamps, rows and next key as Tablestore''s PlainBuffer, and its capacity units: what otsd calls for GetRange';

CREATE FUNCTION ots.wire_put_row(
	table_name text,
	put_row bytea,
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE',
	OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	AS 'MODULE_PATHNAME', 'ots_wire_put_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.wire_put_row(text, bytea, text, jsonb, text) IS
	'put_row of a PutRow request''s PlainBuffer row, the returned row as PlainBuffer (empty: none) and its capacity units: what otsd calls for PutRow';

CREATE FUNCTION ots.wire_update_row(
	table_name text,
	row_change bytea,
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE',
	return_columns text[] DEFAULT NULL,
	OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	AS 'MODULE_PATHNAME', 'ots_wire_update_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.wire_update_row(text, bytea, text, jsonb, text, text[]) IS
	'update_row of an UpdateRow request''s PlainBuffer row_change, the returned row as PlainBuffer (empty: none) and its capacity units: what otsd calls for UpdateRow';

CREATE FUNCTION ots.wire_delete_row(
	table_name text,
	primary_key bytea,
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE',
	OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	AS 'MODULE_PATHNAME', 'ots_wire_delete_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.wire_delete_row(text, bytea, text, jsonb, text) IS
	'delete_row of a DeleteRow request''s PlainBuffer primary_key, the returned row as PlainBuffer (empty: none) and its capacity units: what otsd calls for DeleteRow';

CREATE FUNCTION ots.wire_batch_write_row(
	request jsonb,
	"rows" bytea[],
	is_atomic boolean DEFAULT false)
	RETURNS TABLE (table_name text, index integer, is_ok boolean, error_code text,
				   error_message text, "row" bytea, read_cu integer, write_cu integer)
	AS 'MODULE_PATHNAME', 'ots_wire_batch_write_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.wire_batch_write_row(jsonb, bytea[], boolean) IS
	'batch_write_row of a request whose rows leave out their key and cells, with each row''s PlainBuffer bytes in "rows" (in request order), returned rows as PlainBuffer and capacity units as integers: what otsd calls for BatchWriteRow';

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
	AS 'MODULE_PATHNAME', 'ots_update_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.update_row(text, jsonb, jsonb, jsonb, text[], jsonb, text, jsonb, text, text[]) IS
	'changes cells of a row: put, delete one version, delete all versions, increment (Tablestore UpdateRow)';

CREATE FUNCTION ots.delete_row(
	table_name text,
	primary_key jsonb,
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE') RETURNS ots.row_result
	AS 'MODULE_PATHNAME', 'ots_delete_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.delete_row(text, jsonb, text, jsonb, text) IS
	'deletes a row and all its cells (Tablestore DeleteRow)';

-- per-row functions of each table's view
CREATE FUNCTION ots.row_attributes(cells ots.cells, storage regclass) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'ots_row_attributes' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_attributes(ots.cells, regclass) IS
	'latest visible value of every attribute column of a stored row (used by table views)';
CREATE FUNCTION ots.row_attribute_text(cells ots.cells, storage regclass, name text) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_row_attribute_text' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_attribute_text(ots.cells, regclass, text) IS
	'ots.row_attributes(cells, storage) ->> name, rendering that column only (what a view''s attributes ->> name is planned as)';
CREATE FUNCTION ots.row_attribute(cells ots.cells, storage regclass, name text) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'ots_row_attribute' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_attribute(ots.cells, regclass, text) IS
	'ots.row_attributes(cells, storage) -> name, rendering that column only (what a view''s attributes -> name is planned as)';
CREATE FUNCTION ots.row_string(cells ots.cells, storage regclass, name text) RETURNS text
	AS 'MODULE_PATHNAME', 'ots_row_string' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_string(ots.cells, regclass, text) IS
	'latest visible value of column name when it is a String, else NULL (a typed view column of a defined column)';
CREATE FUNCTION ots.row_integer(cells ots.cells, storage regclass, name text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_row_integer' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_integer(ots.cells, regclass, text) IS
	'latest visible value of column name when it is a Integer, else NULL (a typed view column of a defined column)';
CREATE FUNCTION ots.row_double(cells ots.cells, storage regclass, name text) RETURNS double precision
	AS 'MODULE_PATHNAME', 'ots_row_double' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_double(ots.cells, regclass, text) IS
	'latest visible value of column name when it is a Double, else NULL (a typed view column of a defined column)';
CREATE FUNCTION ots.row_boolean(cells ots.cells, storage regclass, name text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_row_boolean' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_boolean(ots.cells, regclass, text) IS
	'latest visible value of column name when it is a Boolean, else NULL (a typed view column of a defined column)';
CREATE FUNCTION ots.row_binary(cells ots.cells, storage regclass, name text) RETURNS bytea
	AS 'MODULE_PATHNAME', 'ots_row_binary' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.row_binary(ots.cells, regclass, text) IS
	'latest visible value of column name when it is a Binary, else NULL (a typed view column of a defined column)';
CREATE FUNCTION ots.row_exists_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'ots_row_exists_support' LANGUAGE C STRICT;
COMMENT ON FUNCTION ots.row_exists_support(internal) IS
	'planner support of ots.row_exists: a stored row is estimated to exist';
CREATE FUNCTION ots.row_exists(cells ots.cells, storage regclass) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_row_exists' LANGUAGE C STABLE STRICT PARALLEL SAFE
	SUPPORT ots.row_exists_support;
COMMENT ON FUNCTION ots.row_exists(ots.cells, regclass) IS
	'whether a stored row is visible under its table''s TTL (used by table views)';
CREATE FUNCTION ots.index_readable(storage regclass) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_index_readable' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.index_readable(regclass) IS
	'true unless storage is an index''s that does not answer reads yet (being built, or completed after the statement''s snapshot), which raises get_row''s error: the gate of an index''s view (internal)';

-- Range reads
CREATE TYPE ots.range_result AS (
	rows jsonb,
	next_start_primary_key jsonb,
	consumed jsonb,
	next_token text
);
COMMENT ON TYPE ots.range_result IS
	'one get_range page: rows [{primary_key, attributes}], the key to continue from (NULL when done), capacity units, and where a page that ended inside that row goes on in it';

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
	end_column text DEFAULT NULL,
	token text DEFAULT NULL,
	whole_rows boolean DEFAULT false) RETURNS ots.range_result
	AS 'MODULE_PATHNAME', 'ots_get_range' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION ots.get_range(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text, text, boolean) IS
	'one page of a primary-key range: at most 5000 rows and 4 MB, with next_start_primary_key and, inside a wide row, next_token (Tablestore GetRange)';

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
	AS 'MODULE_PATHNAME', 'ots_get_range_rows' LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION ots.get_range_rows(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'every row of a primary-key range as a set, streamed in constant memory';

-- Batches: one result row per requested row, in request order.  batch_get_row
-- catches each row's error in a subtransaction, which parallel mode forbids
-- (even in the leader), hence PARALLEL UNSAFE.
CREATE FUNCTION ots.batch_get_row(request jsonb)
	RETURNS TABLE (table_name text, "index" integer, is_ok boolean, error_code text,
				   error_message text, primary_key jsonb, attributes jsonb, consumed jsonb)
	AS 'MODULE_PATHNAME', 'ots_batch_get_row' LANGUAGE C STABLE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.batch_get_row(jsonb) IS
	'reads up to 100 rows of several tables: [{"table_name", "primary_keys": [...], read options}] (Tablestore BatchGetRow)';

CREATE FUNCTION ots.batch_write_row(request jsonb, is_atomic boolean DEFAULT false)
	RETURNS TABLE (table_name text, "index" integer, is_ok boolean, error_code text,
				   error_message text, primary_key jsonb, attributes jsonb, consumed jsonb)
	AS 'MODULE_PATHNAME', 'ots_batch_write_row' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.batch_write_row(jsonb, boolean) IS
	'writes up to 200 rows of several tables: [{"table_name", "rows": [{"type": "PUT"|"UPDATE"|"DELETE", ...}]}] (Tablestore BatchWriteRow)';

CREATE FUNCTION ots.check_readable(storage regclass) RETURNS void
	AS 'MODULE_PATHNAME', 'ots_check_readable' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.check_readable(regclass) IS
	'refuses, as get_range does, a caller who may not read the rows of the table of this storage (internal; compute_split_points)';
CREATE FUNCTION ots.cells_size(cells ots.cells) RETURNS bigint
	AS 'MODULE_PATHNAME', 'ots_cells_size' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.cells_size(ots.cells) IS
	'the encoded bytes of a row''s cells, a split row''s chunks included (internal; compute_split_points)';

-- ots.compute_split_points: Tablestore's ComputeSplitPointsBySize.  Values of
-- the partition key that cut the table, in primary-key order, into ranges
-- of about split_size bytes each (the last may be smaller): [{"pk": v}, ...],
-- increasing, at most split_point_limit of them (NULL: no limit but 10000).
-- They come from a sample of the stored rows (TABLESAMPLE SYSTEM, about
-- 10,000 rows and 64 pages a split), each weighted by its size (its key and
-- its cells' bytes, a split row's chunks included: ots.cells_size); the
-- sample reads as the caller, with its privileges and row-level security,
-- as get_range does.
CREATE FUNCTION ots.compute_split_points_internal(schema_name name, table_name name, split_size bigint,
												  split_point_limit integer) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t ots.tables;
	storage regclass;
	chunk regclass;
	total_bytes numeric;
	pages numeric;
	estimated_rows numeric;
	splits bigint;
	percent float8;
	value_sql text;
	points jsonb;
BEGIN
	IF split_size IS NULL OR split_size <= 0 THEN
		PERFORM ots.raise('OTSParameterInvalid', format('Invalid split size: %s.', coalesce(split_size::text, 'NULL')),
						  'split_size is a number of bytes above 0.');
	END IF;
	IF split_point_limit IS NOT NULL AND split_point_limit < 0 THEN
		PERFORM ots.raise('OTSParameterInvalid', format('Invalid split point limit: %s.', split_point_limit));
	END IF;
	-- ots.resolve_name is STRICT: a NULL table name arrives as NULLs
	IF schema_name IS NULL OR table_name IS NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'Parameter table_name is missing.', 'table_name must not be NULL.');
	END IF;
	storage := to_regclass(format('%I.%I', schema_name, table_name || '$data'));
	IF storage IS NULL THEN
		PERFORM ots.raise('OTSObjectNotExist', 'Requested table does not exist.');
	END IF;
	-- a read, refused as get_range refuses it (privileges, row-level security)
	PERFORM ots.check_readable(storage);
	SELECT * INTO t FROM ots.tables o
	 WHERE o.schema_name = compute_split_points_internal.schema_name
	   AND o.table_name = compute_split_points_internal.table_name;
	IF NOT FOUND THEN
		PERFORM ots.raise('OTSObjectNotExist', 'Requested table does not exist.');
	END IF;
	-- (an index's storage is its owner's alone, which the sample would read)
	IF t.index_of IS NOT NULL THEN
		PERFORM ots.raise('OTSParameterInvalid', 'ComputeSplitPointsBySize is not supported on an index table.',
						  'Compute the split points of its table.');
	END IF;
	chunk := to_regclass(format('%I.%I', schema_name, table_name || '$chunk'));
	SELECT sum(pg_catalog.pg_total_relation_size(c.oid)),
		   sum(pg_catalog.pg_relation_size(c.oid) / 8192.0),
		   -- rows now: the last analysis's rows a page times the pages now, as the
		   -- planner estimates (a leaf never analyzed: 50 rows a page)
		   sum(pg_catalog.pg_relation_size(c.oid) / 8192.0 *
			   CASE WHEN c.reltuples >= 0 AND c.relpages > 0 THEN c.reltuples / c.relpages ELSE 50 END)
	  INTO total_bytes, pages, estimated_rows
	  FROM pg_catalog.pg_partition_tree(storage) p
	  JOIN pg_catalog.pg_class c ON c.oid = p.relid
	 WHERE p.isleaf;
	total_bytes := coalesce(total_bytes, 0) + coalesce(pg_catalog.pg_total_relation_size(chunk), 0);
	-- a page sample of about 10,000 rows, and of 64 pages a split (splits as
	-- the relations' size on disk suggests: a page's rows come together, so
	-- the pages make the quantiles), at most 100,000 pages; all of a small table
	splits := least(ceil(total_bytes / split_size)::bigint, 10000);
	percent := least(100, 100.0 * least(greatest(10000 * greatest(pages, 1) / greatest(estimated_rows, 1),
												 64 * (splits + 1)), 100000) / greatest(pages, 1));
	-- a key as get_row takes it: a Binary one as {"$binary": base64}
	value_sql := CASE t.pk_types[1]
					 WHEN 'BINARY' THEN $v$pg_catalog.jsonb_build_object('$binary', pg_catalog.translate(pg_catalog.encode(key, 'base64'), E'\n', ''))$v$
					 ELSE 'pg_catalog.to_jsonb(key)' END;
	-- the table's bytes, extrapolated from the sample's, make the number of
	-- splits; each point is the first key at or past k / splits of the
	-- sample's weight (weighing the rows before it: a range never starts
	-- empty), in the stored order: on a hash-prefixed table, prefix first,
	-- as its ranges go
	EXECUTE format($q$
		WITH sample AS (
			SELECT %5$s AS pos, d.%1$I AS key,
				   (pg_catalog.pg_column_size(d.*) - pg_catalog.pg_column_size(d."$cells")
					+ ots.cells_size(d."$cells"))::numeric AS weight
			  FROM %2$s d TABLESAMPLE SYSTEM (%3$s)
			 -- (rows whose cells all expired are no rows: no point is one of them)
			 WHERE ots.row_exists(d."$cells", %6$L::regclass)),
		n AS (
			SELECT least(ceil(sum(weight) * 100 / %3$s / $1)::bigint - 1, $3) AS points, sum(weight) AS total
			  FROM sample),
		running AS (
			SELECT pos, key,
				   coalesce(sum(weight) OVER (ORDER BY pos, key ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
					   AS before
			  FROM sample),
		cut AS (
			SELECT DISTINCT ON (k) k, pos, key
			  FROM (SELECT pos, key, floor(before * (n.points + 1) / n.total)::bigint AS k FROM running, n) x, n
			 WHERE k BETWEEN 1 AND n.points
			 ORDER BY k, pos, key)
		SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object($2, %4$s) ORDER BY pos, key), '[]')
		  FROM (SELECT DISTINCT pos, key FROM cut) points
		$q$, t.pk_names[1], storage, percent, value_sql,
		CASE WHEN t.hash_prefix_length > 0 THEN 'd."$hash"' ELSE '0::int8' END, storage::text)
	  INTO points USING split_size, t.pk_names[1], least(coalesce(split_point_limit, 10000), 10000);
	RETURN points;
END
$$;
COMMENT ON FUNCTION ots.compute_split_points_internal(name, name, bigint, integer) IS
	'ots.compute_split_points of a resolved table (internal)';

CREATE FUNCTION ots.compute_split_points(table_name text, split_size bigint,
										 split_point_limit integer DEFAULT NULL) RETURNS jsonb
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.compute_split_points_internal(r.schema_name, r.table_name, split_size, split_point_limit)
	  FROM ots.resolve_name(table_name, false) r;
END;
COMMENT ON FUNCTION ots.compute_split_points(text, bigint, integer) IS
	'values of the partition key cutting the table into ranges of about split_size bytes, from a sample (Tablestore ComputeSplitPointsBySize)';
