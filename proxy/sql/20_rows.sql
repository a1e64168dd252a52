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

-- The wire form of get_row (otsd's GetRow): routed as get_row is
CREATE FUNCTION ots_cluster.wire_get_row(hash integer, table_name text, primary_key jsonb,
										 columns_to_get text[], max_versions integer, time_range jsonb,
										 filter jsonb, start_column text, end_column text,
										 OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.wire_get_row($2, $3, $4, $5, $6, $7, $8, $9);
	$$;
COMMENT ON FUNCTION ots_cluster.wire_get_row(integer, text, jsonb, text[], integer, jsonb, jsonb, text, text) IS
	'ots.wire_get_row on the shard of a routing hash (internal)';

CREATE FUNCTION ots_cluster.wire_get_row_all(table_name text, primary_key jsonb, columns_to_get text[],
											 max_versions integer, time_range jsonb, filter jsonb,
											 start_column text, end_column text,
											 OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	RETURNS SETOF record
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON ALL;
	SELECT * FROM ots.wire_get_row($1, $2, $3, $4, $5, $6, $7, $8);
	$$;
COMMENT ON FUNCTION ots_cluster.wire_get_row_all(text, jsonb, text[], integer, jsonb, jsonb, text, text) IS
	'ots.wire_get_row on every shard (internal: for index tables)';

-- ots.wire_get_row's implementation, as get_row_api
CREATE FUNCTION ots_cluster.wire_get_row_api(
	caller_path text,
	table_name text,
	primary_key jsonb,
	columns_to_get text[],
	max_versions integer,
	time_range jsonb,
	filter jsonb,
	start_column text,
	end_column text,
	OUT "row" bytea, OUT read_cu integer, OUT write_cu integer)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	h integer := 0;
	r record;
	found boolean := false;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	IF NOT coalesce(t.is_index, false) THEN
		h := ots_cluster.route(t, primary_key);
		SELECT * INTO "row", read_cu, write_cu
		  FROM ots_cluster.wire_get_row(h, ots_cluster.target(t, table_name), primary_key, columns_to_get,
										max_versions, time_range, filter, start_column, end_column);
		RETURN;
	END IF;
	-- an index row: the shard that has it, else one shard's empty answer
	FOR r IN SELECT * FROM ots_cluster.wire_get_row_all(ots_cluster.target(t, table_name), primary_key,
														columns_to_get, max_versions, time_range, filter,
														start_column, end_column) LOOP
		IF NOT found OR pg_catalog.length(r."row") OPERATOR(pg_catalog.>) 0 THEN
			"row" := r."row"; read_cu := r.read_cu; write_cu := r.write_cu;
			found := true;
		END IF;
		EXIT WHEN pg_catalog.length(r."row") OPERATOR(pg_catalog.>) 0;
	END LOOP;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi,
									 CASE WHEN NOT coalesce(t.is_index, false) THEN ots_cluster.partition_of(h) END);
END
$$;
COMMENT ON FUNCTION ots_cluster.wire_get_row_api(text, text, jsonb, text[], integer, jsonb, jsonb, text, text) IS
	'ots.wire_get_row with the caller''s search_path (internal)';

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
	LANGUAGE sql STABLE PARALLEL UNSAFE
	RETURN ots_cluster.wire_get_row_api(pg_catalog.current_setting('search_path'), table_name,
			primary_key, columns_to_get, max_versions, time_range, filter, start_column, end_column);
COMMENT ON FUNCTION ots.wire_get_row(text, jsonb, text[], integer, jsonb, jsonb, text, text) IS
	'get_row with timestamps, the row as Tablestore''s PlainBuffer (empty: none) and its capacity units, from the partition key''s shard: what otsd calls for GetRow';

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
