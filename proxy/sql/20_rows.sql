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

CREATE FUNCTION ots.put_row(
	table_name text,
	primary_key jsonb,
	attributes jsonb DEFAULT '{}',
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE') RETURNS ots.row_result
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.tables;
	h integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name);
	h := ots_cluster.route(t, primary_key);
	PERFORM ots_cluster.check_moving(h);
	RETURN ots_cluster.put_row(h, ots_cluster.target(t, table_name), primary_key, attributes,
							   condition, column_condition, return_type);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, ots_cluster.partition_of(h));
END
$$;
COMMENT ON FUNCTION ots.put_row(text, jsonb, jsonb, text, jsonb, text) IS
	'writes a row, replacing all its cells (Tablestore PutRow), on the partition key''s shard';

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
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.tables;
	h integer := 0;
	r ots.row_result;
	first ots.row_result;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name);
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
	PERFORM ots_cluster.raise_remote(s, m, d, hi, ots_cluster.partition_of(h));
END
$$;
COMMENT ON FUNCTION ots.get_row(text, jsonb, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'reads one row (Tablestore GetRow) from the partition key''s shard (an index table''s from every shard)';

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
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.tables;
	h integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name);
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
COMMENT ON FUNCTION ots.update_row(text, jsonb, jsonb, jsonb, text[], jsonb, text, jsonb, text, text[]) IS
	'changes cells of a row (Tablestore UpdateRow) on the partition key''s shard';

CREATE FUNCTION ots.delete_row(
	table_name text,
	primary_key jsonb,
	condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE') RETURNS ots.row_result
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.tables;
	h integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name);
	h := ots_cluster.route(t, primary_key);
	PERFORM ots_cluster.check_moving(h);
	RETURN ots_cluster.delete_row(h, ots_cluster.target(t, table_name), primary_key, condition,
								  column_condition, return_type);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, ots_cluster.partition_of(h));
END
$$;
COMMENT ON FUNCTION ots.delete_row(text, jsonb, text, jsonb, text) IS
	'deletes a row (Tablestore DeleteRow) on the partition key''s shard';
