-- Range reads on the proxy: ots.get_range and ots.get_range_rows over the shards.
--
-- A range within one partition key (the first key column equal in both
-- bounds and not $inf) lives on one shard and goes there, its page passed
-- through (so does any range of a cluster of one database).  Any other range is asked of every shard database, each
-- answering with its own Tablestore page, and the pages are merged in the
-- stored key order (ots_cluster.range_key_sql): what get_range returns is what
-- one node holding all the rows could return as a page, and its
-- next_start_primary_key resumes without loss or repetition
-- (ots_cluster.range_merge says how).  get_range_rows pages every shard
-- the same way and streams the merge, holding one page per shard.
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

-- ots_cluster.range_key_sql: the stored order of a table's keys as SQL: the
-- typed expressions, over the jsonb primary key that SQL expression k
-- yields, whose order (ascending, column after column) is ots's: the hash
-- prefix first on a hash-prefixed table (its n hex digits, ots.hash_prefix,
-- which sort as the integer ots stores), then each key column as stored:
-- String text COLLATE "C" (bytewise), Integer int8 (signed), Binary bytea
-- (bytewise).  BACKWARD reverses it.  The merge builds its SQL from them per
-- call, so that it is one plain ORDER BY: a generic key (a record of every
-- possible column, compared as a record) made a 5000-row merge ten times
-- slower.
CREATE FUNCTION ots_cluster.range_column_sql(k text, name text, type text) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN pg_catalog.format(CASE type
		WHEN 'STRING' THEN '((%s) ->> %L) COLLATE "C"'
		WHEN 'INTEGER' THEN 'pg_catalog.int8((%s) ->> %L)'
		ELSE 'pg_catalog.decode((%s) -> %L ->> ''$binary'', ''base64'')' END, k, name);
COMMENT ON FUNCTION ots_cluster.range_column_sql(text, text, text) IS
	'SQL of key column name of the jsonb primary key k, typed as ots stores it (internal)';

CREATE FUNCTION ots_cluster.range_key_sql(t ots_cluster.tables, k text) RETURNS text[]
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN ARRAY(
		SELECT c.expr
		  FROM (SELECT 0::bigint AS i,
					   pg_catalog.format('ots.hash_prefix(%s, %s) COLLATE "C"',
										 ots_cluster.range_column_sql(k, t.pk_names[1], t.pk_types[1]),
										 t.hash_prefix_length) AS expr
				 WHERE t.hash_prefix_length > 0
				UNION ALL
				SELECT c.i, ots_cluster.range_column_sql(k, c.name, c.type)
				  FROM ROWS FROM (pg_catalog.unnest(t.pk_names), pg_catalog.unnest(t.pk_types))
					   WITH ORDINALITY AS c(name, type, i)) c
		 ORDER BY c.i);
COMMENT ON FUNCTION ots_cluster.range_key_sql(ots_cluster.tables, text) IS
	'the typed SQL expressions over primary key k whose ascending order is table t''s stored order (internal)';

-- ots_cluster.range_order_sql: an ORDER BY list of keys in the range's direction
CREATE FUNCTION ots_cluster.range_order_sql(keys text[], backward boolean) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN (SELECT pg_catalog.string_agg(k.expr || CASE WHEN backward THEN ' DESC' ELSE '' END, ', ' ORDER BY k.n)
			  FROM pg_catalog.unnest(keys) WITH ORDINALITY AS k(expr, n));
COMMENT ON FUNCTION ots_cluster.range_order_sql(text[], boolean) IS
	'ORDER BY list of key expressions, DESC when backward (internal)';

-- ots_cluster.range_before_sql: SQL that is true when key a comes before key
-- b in the range's direction (a row comparison of their stored forms)
CREATE FUNCTION ots_cluster.range_before_sql(t ots_cluster.tables, a text, b text, backward boolean) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN pg_catalog.format('ROW(%s) %s ROW(%s)',
							 pg_catalog.array_to_string(ots_cluster.range_key_sql(t, a), ', '),
							 CASE WHEN backward THEN '>' ELSE '<' END,
							 pg_catalog.array_to_string(ots_cluster.range_key_sql(t, b), ', '));
COMMENT ON FUNCTION ots_cluster.range_before_sql(ots_cluster.tables, text, text, boolean) IS
	'SQL: key a comes before key b in the range''s direction (internal)';

-- ots_cluster.range_size_sql: SQL of a get_range row's size (row r, jsonb
-- {primary_key, attributes}) as ots counts it for the 4 MB page cap
-- (range_row_size in src/range_read.c): each key column's name and value
-- (String and Binary their bytes, Integer 8), plus the attributes' jsonb.
CREATE FUNCTION ots_cluster.range_size_sql(t ots_cluster.tables, r text) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN (SELECT pg_catalog.string_agg(pg_catalog.format(CASE c.type
					WHEN 'INTEGER' THEN '%s + 8'
					WHEN 'STRING' THEN '%s + pg_catalog.octet_length((%s) -> ''primary_key'' ->> %L)'
					ELSE '%s + pg_catalog.length(pg_catalog.decode((%s) -> ''primary_key'' -> %L ->> ''$binary'', ''base64''))' END,
					pg_catalog.octet_length(c.name), r, c.name), ' + ')
			  FROM ROWS FROM (pg_catalog.unnest(t.pk_names), pg_catalog.unnest(t.pk_types)) AS c(name, type))
		   || pg_catalog.format(' + pg_catalog.pg_column_size((%s) -> ''attributes'')', r);
COMMENT ON FUNCTION ots_cluster.range_size_sql(ots_cluster.tables, text) IS
	'SQL of the size of get_range row r as ots counts it for the 4 MB page cap (internal)';

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

-- ots_cluster.range_merge merges shard pages (jsonb arrays of rows, each in
-- the range's order) into one page: the rows before cutoff (every row when
-- it is NULL), one per key (a partition being moved is briefly on two
-- shards, its copies identical), in the range's order, cut after max_rows
-- rows (NULL: no cap) and at max_bytes (NULL: no cap; a first row always
-- fits, as on a single node).  next_key is the key of the first row cut, or
-- NULL when none was.  Paging is exact when cutoff is the smallest next key
-- of the shards whose page was cut: every row before it is in the pages
-- (a shard's page holds all its rows before its own next key, an uncut
-- shard's all of them), so the page followed by the range from next_key
-- (or from cutoff) is the whole range.  One query: the sort keys are
-- columns of the innermost query, whose sort orders the window too.
CREATE FUNCTION ots_cluster.range_merge(t ots_cluster.tables, pages jsonb[], cutoff jsonb,
										backward boolean, max_rows bigint, max_bytes bigint,
										OUT rows jsonb, OUT next_key jsonb, OUT returned bigint)
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	AS $$
DECLARE
	keys text[] := ots_cluster.range_key_sql(t, 'x.e -> ''primary_key''');
	cols text;
	names text;
BEGIN
	SELECT pg_catalog.string_agg(pg_catalog.format('%s AS o%s', k.expr, k.n), ', ' ORDER BY k.n),
		   pg_catalog.string_agg('o' || k.n, ', ' ORDER BY k.n)
	  INTO cols, names
	  FROM pg_catalog.unnest(keys) WITH ORDINALITY AS k(expr, n);
	EXECUTE pg_catalog.format($q$
		SELECT coalesce(pg_catalog.jsonb_agg(c.e ORDER BY c.rn) FILTER (WHERE c.taken), '[]'),
			   (pg_catalog.array_agg(c.e -> 'primary_key') FILTER (WHERE c.first_cut))[1],
			   pg_catalog.count(*) FILTER (WHERE c.taken)
		  FROM (SELECT m.e, m.rn, m.taken,
					   -- the taken rows are a prefix: the first cut row is the one after it
					   NOT m.taken AND (m.rn = 1 OR (($3 IS NULL OR m.rn - 1 <= $3)
													 AND ($4 IS NULL OR m.rn - 1 = 1 OR m.bytes - m.size <= $4))) AS first_cut
				  FROM (SELECT m.*, ($3 IS NULL OR m.rn <= $3) AND ($4 IS NULL OR m.rn = 1 OR m.bytes <= $4) AS taken
						  FROM (SELECT d.e, d.size, pg_catalog.row_number() OVER w AS rn, pg_catalog.sum(d.size) OVER w AS bytes
								  FROM (SELECT DISTINCT ON (%s) x.e, CASE WHEN $4 IS NOT NULL THEN %s END AS size, %s
										  FROM pg_catalog.unnest($1) AS p(page), pg_catalog.jsonb_array_elements(p.page) AS x(e)
										 WHERE $2 IS NULL OR %s
										 ORDER BY %s) d
								WINDOW w AS (ORDER BY %s ROWS UNBOUNDED PRECEDING)) m) m) c
		$q$, names, ots_cluster.range_size_sql(t, 'x.e'), cols,
			 ots_cluster.range_before_sql(t, 'x.e -> ''primary_key''', '$2', backward),
			 ots_cluster.range_order_sql(pg_catalog.string_to_array(names, ', '), backward),
			 ots_cluster.range_order_sql(pg_catalog.string_to_array(names, ', '), backward))
	  INTO rows, next_key, returned
	  USING pages, cutoff, max_rows, max_bytes;
END
$$;
COMMENT ON FUNCTION ots_cluster.range_merge(ots_cluster.tables, jsonb[], jsonb, boolean, bigint, bigint) IS
	'merges shard pages of a range into one page in stored key order: rows before cutoff, deduplicated, capped; next_key is the first row cut';

-- ots_cluster.range_first is the key of keys (NULL elements ignored) that
-- comes first in the range's direction, NULL when there is none.
CREATE FUNCTION ots_cluster.range_first(t ots_cluster.tables, keys jsonb[], backward boolean) RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	AS $$
DECLARE
	first jsonb;
BEGIN
	IF NOT EXISTS (SELECT FROM pg_catalog.unnest(keys) AS k(key) WHERE k.key IS NOT NULL) THEN
		RETURN NULL;
	END IF;
	EXECUTE pg_catalog.format('SELECT k.key FROM pg_catalog.unnest($1) AS k(key) WHERE k.key IS NOT NULL ORDER BY %s LIMIT 1',
							  ots_cluster.range_order_sql(ots_cluster.range_key_sql(t, 'k.key'), backward))
	  INTO first USING keys;
	RETURN first;
END
$$;
COMMENT ON FUNCTION ots_cluster.range_first(ots_cluster.tables, jsonb[], boolean) IS
	'the key among keys that comes first in the range''s direction (the merge''s cutoff)';

-- ots_cluster.range_from: the rows of a page (in the range's order) from key on
CREATE FUNCTION ots_cluster.range_from(t ots_cluster.tables, page jsonb, key jsonb, backward boolean) RETURNS jsonb
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	AS $$
DECLARE
	rest jsonb;
BEGIN
	EXECUTE pg_catalog.format('SELECT pg_catalog.jsonb_agg(x.e ORDER BY x.n)
								 FROM pg_catalog.jsonb_array_elements($1) WITH ORDINALITY AS x(e, n)
								WHERE NOT %s',
							  ots_cluster.range_before_sql(t, 'x.e -> ''primary_key''', '$2', backward))
	  INTO rest USING page, key;
	RETURN rest;
END
$$;
COMMENT ON FUNCTION ots_cluster.range_from(ots_cluster.tables, jsonb, jsonb, boolean) IS
	'the rows of a page from key on, in the range''s direction (internal)';

-- ots_cluster.range_route is the routing hash to send a range to when one
-- shard holds all of it: the partition key's when both bounds fix it (not on
-- an index, whose first column is not the partition key), 0 when the table
-- is unknown (the first shard raises the single node's error); NULL when
-- every shard must be asked.
CREATE FUNCTION ots_cluster.range_route(t ots_cluster.tables, inclusive_start_primary_key jsonb,
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
COMMENT ON FUNCTION ots_cluster.range_route(ots_cluster.tables, jsonb, jsonb) IS
	'the routing hash of the one shard a range goes to (one partition key, or an unknown table), NULL when it spans shards';

-- ots_cluster.range_hashes: the routing hashes of the shards a range reads:
-- the one range_route names, else a partition of every shard database
CREATE FUNCTION ots_cluster.range_hashes(t ots_cluster.tables, inclusive_start_primary_key jsonb,
										 exclusive_end_primary_key jsonb) RETURNS integer[]
	LANGUAGE sql STABLE PARALLEL SAFE
	RETURN CASE WHEN ots_cluster.range_route(t, inclusive_start_primary_key, exclusive_end_primary_key) IS NOT NULL
				THEN ARRAY[ots_cluster.range_route(t, inclusive_start_primary_key, exclusive_end_primary_key)]
				ELSE ARRAY(SELECT sh.partition FROM ots_cluster.shards() AS sh ORDER BY sh.shard) END;
COMMENT ON FUNCTION ots_cluster.range_hashes(ots_cluster.tables, jsonb, jsonb) IS
	'the routing hashes of the shards a range reads: its partition key''s, or one per shard database (internal)';

-- ots_cluster.consumed_sum adds capacity units {"read": r, "write": w}
CREATE FUNCTION ots_cluster.consumed_sum(consumed jsonb[]) RETURNS jsonb
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	AS $$
	SELECT pg_catalog.jsonb_build_object('read', coalesce(pg_catalog.sum((c ->> 'read')::bigint), 0),
										 'write', coalesce(pg_catalog.sum((c ->> 'write')::bigint), 0))
	  FROM pg_catalog.unnest(consumed) AS c
$$;
COMMENT ON FUNCTION ots_cluster.consumed_sum(jsonb[]) IS
	'the sum of capacity units {"read", "write"}';

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
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET client_min_messages = warning
	AS $$
DECLARE
	t ots_cluster.tables := ots_cluster.table_of(table_name);
	hashes integer[] := ots_cluster.range_hashes(t, inclusive_start_primary_key, exclusive_end_primary_key);
	backward boolean := pg_catalog.upper(direction) = 'BACKWARD';
	pages jsonb[];
	nexts jsonb[];
	consumed jsonb[];
	max_rows bigint;
	max_bytes bigint;
	cutoff jsonb;
	merged record;
	err_state text;
	err_message text;
	err_detail text;
	err_hint text;
BEGIN
	SELECT pg_catalog.array_agg(p.rows), pg_catalog.array_agg(p.next_start_primary_key),
		   pg_catalog.array_agg(p.consumed), pg_catalog.min(p.max_rows), pg_catalog.min(p.max_bytes)
	  INTO pages, nexts, consumed, max_rows, max_bytes
	  FROM ots_cluster.range_pages(hashes, ots_cluster.target(t, table_name),
								   pg_catalog.array_fill(inclusive_start_primary_key, ARRAY[pg_catalog.cardinality(hashes)]),
								   exclusive_end_primary_key, direction, "limit", columns_to_get, max_versions,
								   time_range, filter, with_timestamps, start_column, end_column) AS p;
	IF pg_catalog.cardinality(hashes) = 1 THEN
		-- one shard's page, as it sent it
		RETURN ROW(pages[1], nexts[1], consumed[1]);
	END IF;
	cutoff := ots_cluster.range_first(t, nexts, backward);
	merged := ots_cluster.range_merge(t, pages, cutoff, backward, least("limit", max_rows), max_bytes);
	RETURN ROW(merged.rows, coalesce(merged.next_key, cutoff), ots_cluster.consumed_sum(consumed));
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_message = MESSAGE_TEXT,
		err_detail = PG_EXCEPTION_DETAIL, err_hint = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(err_state, err_message, err_detail, err_hint,
									 CASE WHEN pg_catalog.cardinality(hashes) = 1 THEN ots_cluster.partition_of(hashes[1]) END);
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION ots.get_range(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'one page of a primary-key range: at most 5000 rows and 4 MB, with next_start_primary_key (Tablestore GetRange), merged over the shards';

-- get_range_rows: a recursion of steps (ots_cluster.range_rows_step), each
-- emitting the rows it may in order, carrying what it holds in a state.
CREATE TYPE ots_cluster.range_rows_state AS (
	tbl ots_cluster.tables,		-- the table (NULL fields when unknown)
	hashes integer[],			-- the shards, by a partition of each
	bufs jsonb[],				-- each shard's rows not emitted yet, in order
	nexts jsonb[],				-- where each shard's next page starts; NULL when it is done
	remaining bigint,			-- rows still to emit; NULL: no limit
	emit jsonb					-- the rows this step emits, in order
);
COMMENT ON TYPE ots_cluster.range_rows_state IS
	'the state of a get_range_rows merge between its steps (internal)';

-- ots_cluster.range_rows_start is the state before the first step: every
-- shard that can hold rows of the range is to be read from its start.
CREATE FUNCTION ots_cluster.range_rows_start(table_name text, inclusive_start_primary_key jsonb,
											 exclusive_end_primary_key jsonb, "limit" integer)
	RETURNS ots_cluster.range_rows_state
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	AS $$
DECLARE
	s ots_cluster.range_rows_state;
BEGIN
	s.tbl := ots_cluster.table_of(table_name);
	s.hashes := ots_cluster.range_hashes(s.tbl, inclusive_start_primary_key, exclusive_end_primary_key);
	s.bufs := pg_catalog.array_fill(NULL::jsonb, ARRAY[cardinality(s.hashes)]);
	s.nexts := pg_catalog.array_fill(inclusive_start_primary_key, ARRAY[cardinality(s.hashes)]);
	s.remaining := "limit";
	RETURN s;
END
$$;
COMMENT ON FUNCTION ots_cluster.range_rows_start(text, jsonb, jsonb, integer) IS
	'the state of a get_range_rows merge before its first step (internal)';

-- ots_cluster.range_rows_step reads the next page of each shard whose rows
-- were all emitted, then emits every held row before the smallest next key
-- (all of them when every shard is done), in order and one per key, up to
-- the limit, keeping the others.  A shard whose next key is that cutoff has
-- nothing left held, so each step reads at least one page and holds at most
-- one page per shard.
CREATE FUNCTION ots_cluster.range_rows_step(
	s ots_cluster.range_rows_state,
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
	end_column text) RETURNS ots_cluster.range_rows_state
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET client_min_messages = warning
	AS $$
DECLARE
	backward boolean := pg_catalog.upper(direction) = 'BACKWARD';
	reading integer[];			-- the shards read in this step
	page record;
	cutoff jsonb;
	merged record;
	err_state text;
	err_message text;
	err_detail text;
	err_hint text;
BEGIN
	-- the shards whose held rows were all emitted and that have more, read in parallel
	SELECT pg_catalog.array_agg(s.hashes[i]) INTO reading
	  FROM pg_catalog.generate_subscripts(s.hashes, 1) AS i
	 WHERE s.nexts[i] IS NOT NULL AND coalesce(pg_catalog.jsonb_array_length(s.bufs[i]), 0) = 0;
	IF reading IS NOT NULL THEN
		FOR page IN
			SELECT * FROM ots_cluster.range_pages(reading, ots_cluster.target(s.tbl, table_name),
												  ARRAY(SELECT s.nexts[pg_catalog.array_position(s.hashes, h)] FROM pg_catalog.unnest(reading) AS h),
												  exclusive_end_primary_key, direction,
												  least(s.remaining, pg_catalog.int4(2147483647))::integer,
												  columns_to_get, max_versions, time_range, filter, with_timestamps,
												  start_column, end_column) LOOP
			s.bufs[pg_catalog.array_position(s.hashes, page.hash)] := page.rows;
			s.nexts[pg_catalog.array_position(s.hashes, page.hash)] := page.next_start_primary_key;
		END LOOP;
	END IF;
	cutoff := ots_cluster.range_first(s.tbl, s.nexts, backward);
	merged := ots_cluster.range_merge(s.tbl, s.bufs, cutoff, backward, s.remaining, NULL);
	s.emit := merged.rows;
	s.remaining := s.remaining - merged.returned;
	FOR i IN 1 .. cardinality(s.hashes) LOOP
		IF cutoff IS NULL OR s.remaining = 0 THEN
			s.bufs[i] := NULL;
		ELSIF s.bufs[i] IS NOT NULL THEN
			-- what is held from cutoff on (rows before it were emitted)
			s.bufs[i] := ots_cluster.range_from(s.tbl, s.bufs[i], cutoff, backward);
		END IF;
	END LOOP;
	RETURN s;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_message = MESSAGE_TEXT,
		err_detail = PG_EXCEPTION_DETAIL, err_hint = PG_EXCEPTION_HINT;
	PERFORM ots_cluster.raise_remote(err_state, err_message, err_detail, err_hint,
									 CASE WHEN pg_catalog.cardinality(reading) = 1 THEN ots_cluster.partition_of(reading[1]) END);
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION ots_cluster.range_rows_step(ots_cluster.range_rows_state, text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'one step of a get_range_rows merge: reads the pages it needs, emits the rows it may (internal)';

-- ots_cluster.range_rows_more: whether a get_range_rows merge goes on after state s
CREATE FUNCTION ots_cluster.range_rows_more(s ots_cluster.range_rows_state) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	AS $$
	SELECT (s.remaining IS NULL OR s.remaining > 0)
		   AND EXISTS (SELECT FROM ROWS FROM (pg_catalog.unnest(s.nexts), pg_catalog.unnest(s.bufs)) AS x(n, b)
					   WHERE x.n IS NOT NULL OR coalesce(pg_catalog.jsonb_array_length(x.b), 0) > 0)
$$;
COMMENT ON FUNCTION ots_cluster.range_rows_more(ots_cluster.range_rows_state) IS
	'whether a get_range_rows merge has rows left to emit (internal)';

-- A recursive query, so the rows stream: a caller that stops reading (a
-- LIMIT) stops the steps, and each step holds one page per shard.  SQL,
-- STABLE and not STRICT, so a call in FROM is inlined into the caller's
-- query.
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
	WITH RECURSIVE steps AS (
		SELECT ots_cluster.range_rows_step(
				   ots_cluster.range_rows_start(table_name, inclusive_start_primary_key,
												exclusive_end_primary_key, "limit"),
				   table_name, inclusive_start_primary_key, exclusive_end_primary_key, direction, "limit", columns_to_get, max_versions, time_range, filter, with_timestamps, start_column, end_column) AS s
		UNION ALL
		SELECT ots_cluster.range_rows_step(steps.s, table_name, inclusive_start_primary_key, exclusive_end_primary_key, direction, "limit", columns_to_get, max_versions, time_range, filter, with_timestamps, start_column, end_column)
		  FROM steps
		 WHERE ots_cluster.range_rows_more(steps.s)
	)
	SELECT r.e -> 'primary_key', r.e -> 'attributes'
	  FROM steps, pg_catalog.jsonb_array_elements((steps.s).emit) AS r(e)
$$;
COMMENT ON FUNCTION ots.get_range_rows(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, boolean, text, text) IS
	'every row of a primary-key range as a set, merged over the shards in key order, streamed one page per shard at a time';
