-- Search indexes on the proxy: their DDL applied on every shard, and
-- ots.search asked of every shard and merged.
--
-- Each shard indexes its own rows, kept exact by its own writes.  A search
-- asks every shard database for its part (ots.search_part): its first
-- offset + limit rows, each with its place in the search's order as bytes
-- that compare as the order does (the shard knows each sort key's type and
-- direction, src/search/search_order.c), the token that continues after it
-- and its collapse value; its total count; and its aggregations in forms
-- that merge.  The page is the merged rows offset + 1 to offset + limit:
-- the rows a single node holding every row returns, since each of them is
-- among the first offset + limit of its own shard.  A row's token is the
-- single node's (its sort values and key), so the next page asks every
-- shard for the rows after it.  Collapsed, the first row of each value is
-- the first among the shards' first rows of it; such a page's token (the
-- proxy's own) carries the next offset.  Columns are read with the rows at
-- offset 0, else for the page's rows only, from their shards
-- (ots.search_part_rows).  Aggregations merge exactly (a DOUBLE's sums but
-- for the order they are added in): counts and sums added, min and max, an avg from the sums and counts, distinct_count and
-- percentiles from the shards' distinct values (with their counts), top_rows
-- by place, group-bys bucket by bucket (a field's every group, then its
-- min_doc_count, sort and size), sub-aggregations within.  What differs from
-- one node: a score_sort's scores use each shard's statistics (as
-- Tablestore's and every sharded engine's do), and the shards are not read
-- at one moment (docs/cluster.md, Search).

------------------------------------------------------------------------------
-- PL/Proxy calls on the shards
------------------------------------------------------------------------------

-- ots_cluster.search_parts: each shard's part of a search, in parallel
-- (SPLIT: each shard of hashes gets its own element), with its hash
CREATE FUNCTION ots_cluster.search_parts(hashes integer[], table_name text, index_name text, search_query jsonb,
										 columns_to_get jsonb, OUT hash integer, OUT part jsonb) RETURNS SETOF record
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	SPLIT hashes;
	RUN ON hashes;
	SELECT ($1)[1] AS hash, ots.search_part($2, $3, $4, $5) AS part;
$$;
COMMENT ON FUNCTION ots_cluster.search_parts(integer[], text, text, jsonb, jsonb) IS
	'each shard''s part of a search (its first offset + limit rows, mergeable aggregations), in parallel (internal)';

-- ots_cluster.search_part_rows: the columns of each shard's rows of a page
CREATE FUNCTION ots_cluster.search_part_rows(hashes integer[], table_name text, index_name text, pages jsonb[],
											 columns_to_get jsonb, OUT hash integer, OUT page jsonb) RETURNS SETOF record
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	SPLIT hashes, pages;
	RUN ON hashes;
	SELECT ($1)[1] AS hash, ots.search_part_rows($2, $3, ($4)[1], $5) AS page;
$$;
COMMENT ON FUNCTION ots_cluster.search_part_rows(integer[], text, text, jsonb[], jsonb) IS
	'each shard''s rows of a search''s page read with columns_to_get, in parallel (internal)';

CREATE FUNCTION ots_cluster.search_on(p integer, table_name text, index_name text, search_query jsonb,
									  columns_to_get jsonb) RETURNS jsonb
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.search($2, $3, $4, $5);
	$$;

CREATE FUNCTION ots_cluster.create_search_index_on(p integer, table_name text, index_name text, index_schema jsonb,
												   time_to_live bigint, source_index_name text) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.create_search_index($2, $3, $4, $5, $6);
	$$;

CREATE FUNCTION ots_cluster.update_search_index_on(p integer, table_name text, index_name text,
												   time_to_live bigint, switch_index_name text, query_flow_weights jsonb)
	RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.update_search_index($2, $3, $4, $5, $6);
	$$;

CREATE FUNCTION ots_cluster.delete_search_index_on(p integer, table_name text, index_name text) RETURNS void
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.delete_search_index($2, $3);
	$$;

CREATE FUNCTION ots_cluster.describe_search_index_on(p integer, table_name text, index_name text) RETURNS jsonb
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT ots.describe_search_index($2, $3);
	$$;

CREATE FUNCTION ots_cluster.list_search_index_on(p integer, of_table text)
	RETURNS TABLE (schema_name name, table_name name, index_name text)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.list_search_index($2);
	$$;

CREATE FUNCTION ots_cluster.search_index_present_on(p integer, table_name text, index_name text) RETURNS boolean
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT EXISTS (SELECT 1 FROM ots.list_search_index($2) l WHERE l.index_name OPERATOR(pg_catalog.=) $3);
	$$;

CREATE FUNCTION ots_cluster.search_analyze_on(p integer, "text" text, analyzer text, analyzer_parameter jsonb)
	RETURNS TABLE (token text, "position" integer)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON $1;
	SELECT * FROM ots.search_analyze($2, $3, $4);
	$$;

------------------------------------------------------------------------------
-- Search index DDL: on every shard
------------------------------------------------------------------------------

-- ots_cluster.search_index_ddl: create (what = 'create'), update or delete a
-- search index on every shard, in shard order.  A create skips the shards
-- that have the index when some do not (a create stopped half way is
-- repaired by calling it again); on all of them, the first shard refuses as
-- a node does.  A delete skips the shards without it; on none, the first
-- shard refuses.  A create from a source index (source_index_name) makes
-- its brother on each shard from that shard's rows; an update's query flow
-- weights and switch (switch_index_name) apply on each shard, a switch only
-- once every shard has both indexes.
CREATE FUNCTION ots_cluster.search_index_ddl(what text, caller_path text, table_name text, index_name text,
											 index_schema jsonb, time_to_live bigint, source_index_name text DEFAULT NULL,
											 switch_index_name text DEFAULT NULL, query_flow_weights jsonb DEFAULT NULL)
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	ps integer[] := ots_cluster.shard_partitions();
	t ots_cluster.table_entry;
	target text;
	present boolean[];
	p integer := 0;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	target := ots_cluster.target(t, table_name);
	PERFORM ots_cluster.resolve_on_shards(target, caller_path);
	IF what <> 'update' THEN
		present := ARRAY(SELECT CASE WHEN t.table_name IS NULL OR index_name IS NULL THEN false
									 ELSE ots_cluster.search_index_present_on(x.p, target, index_name) END
						   FROM unnest(ps) WITH ORDINALITY AS x(p, n) ORDER BY x.n);
	ELSIF switch_index_name IS NOT NULL AND t.table_name IS NOT NULL AND index_name IS NOT NULL THEN
		-- a switch is not undone by calling it again: each shard has both indexes first
		FOR i IN 1 .. cardinality(ps) LOOP
			p := ps[i];
			IF NOT ots_cluster.search_index_present_on(p, target, index_name)
			   OR NOT ots_cluster.search_index_present_on(p, target, switch_index_name) THEN
				RAISE EXCEPTION USING ERRCODE = (SELECT e.sqlstate FROM ots_cluster.error_codes e WHERE e.code = 'OTSParameterInvalid'),
					MESSAGE = 'The search index or the one to switch to is missing on a shard.',
					DETAIL = 'Make the index from its source (source_index_name) again: it is made on the shards that lack it.';
			END IF;
		END LOOP;
		p := 0;
	END IF;
	FOR i IN 1 .. cardinality(ps) LOOP
		p := ps[i];
		IF what = 'create' THEN
			CONTINUE WHEN present[i] AND NOT (i = 1 AND true = ALL (present));
			PERFORM ots_cluster.create_search_index_on(p, target, index_name, index_schema, time_to_live, source_index_name);
		ELSIF what = 'update' THEN
			PERFORM ots_cluster.update_search_index_on(p, target, index_name, time_to_live, switch_index_name,
														query_flow_weights);
		ELSE
			CONTINUE WHEN NOT present[i] AND NOT (i = 1 AND false = ALL (present));
			PERFORM ots_cluster.delete_search_index_on(p, target, index_name);
		END IF;
	END LOOP;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.search_index_ddl(text, text, text, text, jsonb, bigint, text, text, jsonb) IS
	'create_search_index, update_search_index or delete_search_index on every shard, with the caller''s search_path (internal)';

CREATE FUNCTION ots.create_search_index(table_name text, index_name text, index_schema jsonb,
										time_to_live bigint DEFAULT -1, source_index_name text DEFAULT NULL) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.search_index_ddl('create', pg_catalog.current_setting('search_path'), table_name, index_name,
										index_schema, time_to_live, source_index_name);
COMMENT ON FUNCTION ots.create_search_index(text, text, jsonb, bigint, text) IS
	'creates a search index on every shard (where it is missing), each filled from the shard''s rows and kept exact by its writes; from source_index_name, its brother on each shard';

CREATE FUNCTION ots.update_search_index(table_name text, index_name text, time_to_live bigint DEFAULT NULL,
										switch_index_name text DEFAULT NULL, query_flow_weights jsonb DEFAULT NULL)
	RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.search_index_ddl('update', pg_catalog.current_setting('search_path'), table_name, index_name,
										NULL, time_to_live, NULL, switch_index_name, query_flow_weights);
COMMENT ON FUNCTION ots.update_search_index(text, text, bigint, text, jsonb) IS
	'changes the time_to_live of a search index on every shard, how its searches go to its brother, or switches the two on every shard';

CREATE FUNCTION ots.delete_search_index(table_name text, index_name text) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	RETURN ots_cluster.search_index_ddl('delete', pg_catalog.current_setting('search_path'), table_name, index_name,
										NULL, NULL);
COMMENT ON FUNCTION ots.delete_search_index(text, text) IS 'drops a search index on every shard that has it';

-- describe and list answer from the first shard, as describe_table does
CREATE FUNCTION ots_cluster.describe_search_index_api(caller_path text, table_name text, index_name text)
	RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry := ots_cluster.table_of(table_name, caller_path);
	p integer;
	one jsonb;
	out jsonb;
	s text; m text; d text; hi text;
BEGIN
	-- the definition as the first shard has it; building (FULL) while any shard is, the
	-- sizes and rows of all shards
	FOREACH p IN ARRAY ots_cluster.shard_partitions() LOOP
		one := ots_cluster.describe_search_index_on(p, ots_cluster.target(t, table_name), index_name);
		IF out IS NULL THEN
			out := one;
		ELSE
			IF one #>> '{sync_stat,sync_phase}' = 'FULL' THEN
				out := jsonb_set(out, '{sync_stat,sync_phase}', '"FULL"');
			END IF;
			out := jsonb_set(out, '{metering_info}', jsonb_build_object(
				'storage_size', (out #>> '{metering_info,storage_size}')::bigint + (one #>> '{metering_info,storage_size}')::bigint,
				'row_count', (out #>> '{metering_info,row_count}')::bigint + (one #>> '{metering_info,row_count}')::bigint));
		END IF;
	END LOOP;
	RETURN out;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.describe_search_index_api(text, text, text) IS
	'ots.describe_search_index with the caller''s search_path: the first shard''s definition, FULL while any shard builds, every shard''s sizes (internal)';

CREATE FUNCTION ots.describe_search_index(table_name text, index_name text) RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL UNSAFE
	RETURN ots_cluster.describe_search_index_api(pg_catalog.current_setting('search_path'), table_name, index_name);
COMMENT ON FUNCTION ots.describe_search_index(text, text) IS
	'a search index''s schema, sync phase and timestamp, TTL and creation time, as the first shard describes it';

CREATE FUNCTION ots_cluster.list_search_index_api(caller_path text, of_table text)
	RETURNS TABLE (schema_name name, table_name name, index_name text)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	p integer := (ots_cluster.shard_partitions())[1];
	target text;
	s text; m text; d text; hi text;
BEGIN
	IF of_table IS NOT NULL THEN
		target := ots_cluster.target(ots_cluster.table_of(of_table, caller_path), of_table);
	END IF;
	RETURN QUERY SELECT l.schema_name, l.table_name, l.index_name FROM ots_cluster.list_search_index_on(p, target) l;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.list_search_index_api(text, text) IS
	'ots.list_search_index with the caller''s search_path, from the first shard (internal)';

CREATE FUNCTION ots.list_search_index(of_table text DEFAULT NULL)
	RETURNS TABLE (schema_name name, table_name name, index_name text)
	LANGUAGE sql STABLE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT l.schema_name, l.table_name, l.index_name
	  FROM ots_cluster.list_search_index_api(pg_catalog.current_setting('search_path'), of_table) l;
END;
COMMENT ON FUNCTION ots.list_search_index(text) IS
	'the search indexes of ots table of_table, or of every table the caller may see (NULL), as the first shard lists them';

CREATE FUNCTION ots.search_analyze("text" text, analyzer text DEFAULT 'single_word', analyzer_parameter jsonb DEFAULT NULL)
	RETURNS TABLE (token text, "position" integer)
	LANGUAGE sql STABLE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT a.token, a."position"
	  FROM ots_cluster.search_analyze_on((ots_cluster.shard_partitions())[1], "text", analyzer, analyzer_parameter) a;
END;
COMMENT ON FUNCTION ots.search_analyze(text, text, jsonb) IS
	'the tokens, with their positions, that a TEXT field''s analyzer makes of a text, as the first shard cuts them';

------------------------------------------------------------------------------
-- Merging the shards' aggregations (each list in the request's order; a
-- shard's result for request element i is element i of its list)
------------------------------------------------------------------------------

-- ots_cluster.search_value_order: a sort key of an aggregation's value (a
-- LONG, DOUBLE or DATE as a jsonb number, or NaN and the infinities as
-- strings), numerically as the shards order them
CREATE FUNCTION ots_cluster.search_value_order(v jsonb) RETURNS numeric
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN (v OPERATOR(pg_catalog.#>>) '{}')::numeric;
COMMENT ON FUNCTION ots_cluster.search_value_order(jsonb) IS
	'an aggregation''s numeric value as a numeric, ordered as the shards order it (internal)';

CREATE FUNCTION ots_cluster.search_merge_aggs(requests jsonb, results jsonb[]) RETURNS jsonb
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	merged jsonb := '[]';
	req jsonb;
	kind text;
	one jsonb;
	parts jsonb[];
	n bigint;
BEGIN
	FOR i IN 0 .. jsonb_array_length(requests) - 1 LOOP
		req := requests -> i;
		kind := req ->> 'type';
		parts := ARRAY(SELECT r -> i FROM unnest(results) AS r);
		one := jsonb_build_object('name', req -> 'name', 'type', kind);
		IF kind = 'count' THEN
			one := one || jsonb_build_object('value', (SELECT sum((x ->> 'value')::bigint) FROM unnest(parts) x));
		ELSIF kind = 'sum' THEN
			one := one || jsonb_build_object('value',
				CASE WHEN (parts[1] ->> 'double')::boolean
					 THEN (SELECT to_jsonb(sum((x ->> 'value')::float8)) FROM unnest(parts) x)
					 ELSE (SELECT to_jsonb(sum((x ->> 'value')::numeric)) FROM unnest(parts) x) END);
		ELSIF kind IN ('min', 'max') THEN
			one := one || jsonb_build_object('value',
				(SELECT x -> 'value' FROM unnest(parts) x WHERE jsonb_typeof(x -> 'value') <> 'null'
				  ORDER BY CASE WHEN kind = 'min' THEN ots_cluster.search_value_order(x -> 'value') END,
						   ots_cluster.search_value_order(x -> 'value') DESC LIMIT 1));
		ELSIF kind = 'avg' THEN
			n := (SELECT sum((x ->> 'count')::bigint) FROM unnest(parts) x);
			one := one || jsonb_build_object('value',
				CASE WHEN n = 0 THEN NULL
					 WHEN (parts[1] ->> 'double')::boolean
					 THEN (SELECT to_jsonb(sum((x ->> 'sum')::float8) / n) FROM unnest(parts) x)
					 ELSE (SELECT to_jsonb((sum((x ->> 'sum')::numeric) / n)::float8) FROM unnest(parts) x) END);
		ELSIF kind = 'distinct_count' THEN
			one := one || jsonb_build_object('value',
				(SELECT count(DISTINCT v) FROM unnest(parts) x, jsonb_array_elements(x -> 'values') v));
		ELSIF kind = 'percentiles' THEN
			-- as each node computes it: at position p/100 * (count - 1) of all
			-- the shards' values, interpolated between the two values around
			-- it, a LONG's or DATE's truncated toward zero; keys ascending
			one := one || jsonb_build_object('items', (
				WITH vals AS (
					SELECT e -> 0 AS v, sum((e ->> 1)::bigint) AS c
					  FROM unnest(parts) x, jsonb_array_elements(x -> 'values') e
					 GROUP BY 1),
				cum AS (
					SELECT v, sum(c) OVER (ORDER BY ots_cluster.search_value_order(v)) AS upto, sum(c) OVER () AS total
					  FROM vals),
				pos AS (
					SELECT p.k, p.n, (p.k #>> '{}')::numeric / 100 * ((SELECT max(total) FROM cum) - 1) AS at
					  FROM jsonb_array_elements(req -> 'percentiles') WITH ORDINALITY AS p(k, n)),
				ends AS (
					SELECT pos.k, pos.n, pos.at - floor(pos.at) AS frac,
						   (SELECT cum.v #>> '{}' FROM cum WHERE cum.upto > floor(pos.at) ORDER BY cum.upto LIMIT 1) AS lo,
						   (SELECT cum.v #>> '{}' FROM cum WHERE cum.upto > ceil(pos.at) ORDER BY cum.upto LIMIT 1) AS hi
					  FROM pos)
				SELECT jsonb_agg(jsonb_build_object('key', e.k, 'value',
						CASE WHEN (SELECT bool_or((x ->> 'double')::boolean) FROM unnest(parts) x)
							 THEN to_jsonb(e.lo::float8 + (e.hi::float8 * 0.5 - e.lo::float8 * 0.5) * (2 * e.frac)::float8)
							 ELSE to_jsonb(trunc(e.lo::numeric + (e.hi::numeric - e.lo::numeric) * e.frac)::bigint) END)
						ORDER BY e.k, e.n)
				  FROM ends e));
		ELSIF kind = 'top_rows' THEN
			one := one || jsonb_build_object('rows', coalesce((
				SELECT jsonb_agg(r.row - '$order' ORDER BY r.place)
				  FROM (SELECT row, decode(row ->> '$order', 'hex') AS place
						  FROM unnest(parts) x, jsonb_array_elements(x -> 'rows') row
						 ORDER BY place
						 LIMIT coalesce((req ->> 'limit')::numeric, 1)) r), '[]'));
		END IF;
		merged := merged || jsonb_build_array(one);
	END LOOP;
	RETURN merged;
END
$$;
COMMENT ON FUNCTION ots_cluster.search_merge_aggs(jsonb, jsonb[]) IS
	'a search''s aggregations merged from the shards'' parts (internal)';

-- ots_cluster.search_bucket_order: ORDER BY's list for a group-by's merged
-- buckets y (y.c the row count; y.k, y.ks, y.kb the key if a number, a
-- string in the shards' "C" order, a boolean): its sorters, then the
-- default (a field's: most rows first, then keys; a histogram's: keys)
CREATE FUNCTION ots_cluster.search_bucket_order(g jsonb) RETURNS text
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	items text[] := '{}';
	sorter jsonb;
	dir text;
BEGIN
	FOR sorter IN SELECT e FROM jsonb_array_elements(coalesce(g #> '{sort,sorters}', '[]')) e LOOP
		dir := CASE WHEN coalesce(coalesce(sorter -> 'row_count_sort', sorter -> 'group_key_sort', sorter -> 'sub_agg_sort') ->> 'order', 'ASC')
						 IN ('DESC', 'SORT_ORDER_DESC') THEN 'DESC' ELSE 'ASC' END;
		items := items || CASE WHEN sorter ? 'row_count_sort' THEN format('y.c %s', dir)
							   -- a sub-aggregation's merged value as a node compares it, a bucket without one last
							   WHEN sorter ? 'sub_agg_sort' THEN format(
									'(SELECT (a ->> ''value'')::float8 FROM jsonb_array_elements(y.item -> ''sub_aggs'') a'
									' WHERE a ->> ''name'' = %L) %s NULLS LAST', sorter #>> '{sub_agg_sort,sub_agg_name}', dir)
							   ELSE format('y.k %1$s, y.ks %1$s, y.kb %1$s', dir) END;
	END LOOP;
	IF g ->> 'type' = 'field' THEN
		items := items || 'y.c DESC'::text;
	END IF;
	RETURN array_to_string(items || 'y.k, y.ks, y.kb'::text, ', ');
END
$$;
COMMENT ON FUNCTION ots_cluster.search_bucket_order(jsonb) IS
	'the ORDER BY list of a group-by''s merged buckets, from its sorters (internal)';

CREATE FUNCTION ots_cluster.search_merge_group_bys(requests jsonb, results jsonb[]) RETURNS jsonb
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	merged jsonb := '[]';
	g jsonb;
	kind text;
	parts jsonb[];
	key_name text;
	items jsonb;
	nitems bigint;
	code text;
BEGIN
	FOR i IN 0 .. jsonb_array_length(requests) - 1 LOOP
		g := requests -> i;
		kind := g ->> 'type';
		parts := ARRAY(SELECT r -> i FROM unnest(results) AS r);
		IF kind IN ('range', 'geo_distance', 'filter') THEN
			-- the same buckets on every shard, in the request's order
			items := (SELECT jsonb_agg(ots_cluster.search_merge_bucket(g, b.items) ORDER BY b.n)
						FROM (SELECT e.n, array_agg(e.item) AS items
								FROM unnest(parts) x, jsonb_array_elements(x -> 'items') WITH ORDINALITY AS e(item, n)
							   GROUP BY e.n) b);
		ELSE
			-- buckets by key (a field's values, a histogram's intervals), at
			-- least min_doc_count rows each, in order, a field's first size
			key_name := CASE kind WHEN 'date_histogram' THEN 'timestamp' ELSE 'key' END;
			EXECUTE format(
				'SELECT jsonb_agg(z.item ORDER BY z.n), count(*)
				   FROM (SELECT y.item, row_number() OVER (ORDER BY %s) AS n
						   FROM (SELECT ots_cluster.search_merge_bucket($1, array_agg(e)) AS item,
										sum((e ->> ''row_count'')::bigint) AS c,
										CASE jsonb_typeof(e -> $4) WHEN ''number'' THEN (e -> $4)::numeric END AS k,
										CASE jsonb_typeof(e -> $4) WHEN ''string'' THEN (e -> $4) #>> ''{}'' END COLLATE "C" AS ks,
										CASE jsonb_typeof(e -> $4) WHEN ''boolean'' THEN (e -> $4)::boolean END AS kb
								   FROM unnest($2) x, jsonb_array_elements(x -> ''items'') e
								  GROUP BY e -> $4
								 HAVING sum((e ->> ''row_count'')::bigint) >= $3) y) z
				  WHERE z.n <= $5',
				ots_cluster.search_bucket_order(g))
			  INTO items, nitems
			  USING g, parts, greatest(coalesce((g ->> 'min_doc_count')::numeric, 1), 1), key_name,
					CASE WHEN kind = 'field' THEN coalesce((g ->> 'size')::numeric, 10) ELSE 'Infinity'::numeric END;
			IF kind IN ('histogram', 'date_histogram') AND nitems > (parts[1] ->> 'max_buckets')::integer THEN
				code := (SELECT e.sqlstate FROM ots_cluster.error_codes e WHERE e.code = 'OTSParameterInvalid');
				RAISE EXCEPTION USING ERRCODE = code,
					MESSAGE = format('group_by_%s has more than %s buckets: a larger interval, or a field_range.',
									 kind, parts[1] ->> 'max_buckets'),
					DETAIL = 'See docs/reference.md, "Search", aggregations.';
			END IF;
		END IF;
		merged := merged || jsonb_build_array(jsonb_build_object('name', g -> 'name', 'type', kind,
																 'items', coalesce(items, '[]')));
	END LOOP;
	RETURN merged;
END
$$;
COMMENT ON FUNCTION ots_cluster.search_merge_group_bys(jsonb, jsonb[]) IS
	'a search''s group-bys merged from the shards'' parts (internal)';

-- ots_cluster.search_merge_bucket: one bucket of group-by g from the
-- shards' buckets of the same key (or range, or filter): row counts added,
-- sub-aggregations and sub-group-bys merged
CREATE FUNCTION ots_cluster.search_merge_bucket(g jsonb, buckets jsonb[]) RETURNS jsonb
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	bucket jsonb := buckets[1] - 'sub_aggs' - 'sub_group_bys';
BEGIN
	bucket := bucket || jsonb_build_object('row_count', (SELECT sum((b ->> 'row_count')::bigint) FROM unnest(buckets) b));
	IF g ? 'sub_aggs' AND jsonb_typeof(g -> 'sub_aggs') = 'array' THEN
		bucket := bucket || jsonb_build_object('sub_aggs', ots_cluster.search_merge_aggs(g -> 'sub_aggs',
			ARRAY(SELECT b -> 'sub_aggs' FROM unnest(buckets) b)));
	END IF;
	IF g ? 'sub_group_bys' AND jsonb_typeof(g -> 'sub_group_bys') = 'array' THEN
		bucket := bucket || jsonb_build_object('sub_group_bys', ots_cluster.search_merge_group_bys(g -> 'sub_group_bys',
			ARRAY(SELECT b -> 'sub_group_bys' FROM unnest(buckets) b)));
	END IF;
	RETURN bucket;
END
$$;
COMMENT ON FUNCTION ots_cluster.search_merge_bucket(jsonb, jsonb[]) IS
	'a group-by''s bucket merged from the shards'' buckets of one key (internal)';

------------------------------------------------------------------------------
-- ots.search
------------------------------------------------------------------------------

-- ots_cluster.search_api: ots.search with the caller's search_path
CREATE FUNCTION ots_cluster.search_api(caller_path text, table_name text, index_name text, search_query jsonb,
									   columns_to_get jsonb) RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.table_entry;
	target text;
	hashes integer[];
	query jsonb := search_query;
	token jsonb;
	parts jsonb[];
	part_hashes integer[];
	parts_read_columns boolean;
	off integer;
	lim integer;
	collapsed boolean;
	page jsonb;
	matched bigint;
	more boolean;
	result jsonb;
	pns integer[];
	p integer;
	s text; m text; d text; hi text;
BEGIN
	t := ots_cluster.table_of(table_name, caller_path);
	target := ots_cluster.target(t, table_name);
	hashes := ots_cluster.range_hashes(t, NULL, NULL);
	p := hashes[1];
	-- one shard database (or a table the proxy does not know: the node's error)
	IF cardinality(hashes) = 1 THEN
		RETURN ots_cluster.search_on(hashes[1], target, index_name, search_query, columns_to_get);
	END IF;
	p := NULL;
	-- a collapsed page's token is the proxy's: the next page's offset
	IF jsonb_typeof(query -> 'token') = 'string' THEN
		BEGIN
			token := convert_from(decode(query ->> 'token', 'base64'), 'UTF8')::jsonb;
		EXCEPTION WHEN OTHERS THEN
			token := NULL;		-- not the proxy's: the shards say what it is
		END;
		-- the rows the pages before took, then the query's own offset, as a node skips it after a token
		IF jsonb_typeof(token) = 'object' AND jsonb_typeof(token -> '$cluster_offset') = 'number' AND query ? 'collapse' THEN
			query := query - 'token' || jsonb_build_object('offset',
				(token ->> '$cluster_offset')::numeric + CASE WHEN jsonb_typeof(query -> 'offset') = 'number'
															  THEN (query ->> 'offset')::numeric ELSE 0 END);
		END IF;
	END IF;
	-- columns with the rows from the start; past an offset, for the page's rows
	-- only, and the parts read their top rows' alone ("$aggs_only")
	parts_read_columns := coalesce(query -> 'offset', '0') = '0';
	SELECT array_agg(x.part ORDER BY x.hash), array_agg(x.hash ORDER BY x.hash)
	  INTO parts, part_hashes
	  FROM ots_cluster.search_parts(hashes, target, index_name, query,
									CASE WHEN parts_read_columns THEN columns_to_get
										 WHEN jsonb_path_exists(query, 'strict $.**.type ? (@ == "top_rows")')
										 THEN columns_to_get || '{"$aggs_only": true}' END) x;
	off := (parts[1] ->> 'offset')::integer;
	lim := (parts[1] ->> 'limit')::integer;
	collapsed := query ? 'collapse';
	WITH found AS (
		SELECT r, x.n AS part_no, decode(r ->> '$order', 'hex') AS place
		  FROM unnest(parts) WITH ORDINALITY AS x(part, n), jsonb_array_elements(x.part -> 'rows') r),
	firsts AS (
		SELECT f.*, row_number() OVER (PARTITION BY CASE WHEN collapsed THEN f.r -> '$collapse' END ORDER BY f.place) AS rank
		  FROM found f),
	merged AS (
		SELECT f.*, row_number() OVER (ORDER BY f.place) AS n
		  FROM firsts f WHERE NOT collapsed OR f.rank = 1)
	SELECT coalesce(jsonb_agg(mm.r || jsonb_build_object('$part', mm.part_no, '$n', mm.n) ORDER BY mm.n)
						FILTER (WHERE mm.n > off AND mm.n <= off + lim), '[]'),
		   count(*)
	  INTO page, matched
	  FROM merged mm;
	more := matched > off + lim OR EXISTS (SELECT 1 FROM unnest(parts) x WHERE jsonb_typeof(x -> 'next_token') = 'string');
	result := jsonb_build_object(
		'total_count', CASE WHEN EXISTS (SELECT 1 FROM unnest(parts) x WHERE (x ->> 'total_count')::bigint < 0) THEN -1
							ELSE (SELECT sum((x ->> 'total_count')::bigint) FROM unnest(parts) x) END,
		'next_token', CASE WHEN more AND jsonb_array_length(page) > 0 THEN
							CASE WHEN collapsed
								 THEN to_jsonb(translate(encode(convert_to(jsonb_build_object('$cluster_offset', off + lim)::text,
																			'UTF8'), 'base64'), E'\n', ''))
								 ELSE page -> -1 -> '$token' END END);
	IF NOT parts_read_columns AND columns_to_get IS NOT NULL THEN
		-- the page's rows read on their shards (the first checks columns_to_get when there are none)
		pns := ARRAY(SELECT DISTINCT (r ->> '$part')::integer FROM jsonb_array_elements(page) r ORDER BY 1);
		IF cardinality(pns) = 0 THEN
			pns := ARRAY[1];
		END IF;
		SELECT coalesce(jsonb_agg(r), '[]')
		  INTO page
		  FROM ots_cluster.search_part_rows(
				ARRAY(SELECT part_hashes[u.pn] FROM unnest(pns) WITH ORDINALITY AS u(pn, k) ORDER BY u.k),
				target, index_name,
				ARRAY(SELECT jsonb_build_object('rows', coalesce((SELECT jsonb_agg(r) FROM jsonb_array_elements(page) r
																	WHERE (r ->> '$part')::integer = u.pn), '[]'))
						FROM unnest(pns) WITH ORDINALITY AS u(pn, k) ORDER BY u.k),
				columns_to_get) x, jsonb_array_elements(x.page -> 'rows') r;
	END IF;
	result := result || jsonb_build_object('rows', coalesce(
		(SELECT jsonb_agg(r - '$order' - '$token' - '$collapse' - '$part' - '$n' ORDER BY (r ->> '$n')::bigint)
		   FROM jsonb_array_elements(page) r), '[]'));
	IF jsonb_typeof(query -> 'aggs') = 'array' THEN
		result := result || jsonb_build_object('aggs', ots_cluster.search_merge_aggs(query -> 'aggs',
			ARRAY(SELECT x -> 'aggs' FROM unnest(parts) x)));
	END IF;
	IF jsonb_typeof(query -> 'group_bys') = 'array' THEN
		result := result || jsonb_build_object('group_bys', ots_cluster.search_merge_group_bys(query -> 'group_bys',
			ARRAY(SELECT x -> 'group_bys' FROM unnest(parts) x)));
	END IF;
	RETURN result;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(s, m, d, hi, p);
END
$$;
COMMENT ON FUNCTION ots_cluster.search_api(text, text, text, jsonb, jsonb) IS
	'ots.search with the caller''s search_path: every shard''s part, merged (internal)';

CREATE FUNCTION ots.search(table_name text, index_name text, search_query jsonb, columns_to_get jsonb DEFAULT NULL)
	RETURNS jsonb
	LANGUAGE sql STABLE PARALLEL UNSAFE
	RETURN ots_cluster.search_api(pg_catalog.current_setting('search_path'), table_name, index_name, search_query,
								  columns_to_get);
COMMENT ON FUNCTION ots.search(text, text, jsonb, jsonb) IS
	'searches a search index on every shard (Tablestore''s SearchQuery as jsonb), the pages merged: rows in order with columns_to_get, the total count when asked, the next page''s token, aggregations';
