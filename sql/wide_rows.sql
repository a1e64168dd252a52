-- wide_rows: a row whose cells pass 4 KB is split: its storage row keeps a
-- head and its cells go into chunks of at most 1 KB in "t$chunk"
-- (docs/design.md, "Wide rows: heads and chunks").  Reads and writes of it
-- behave as on any row; a one-cell write rewrites the head and one chunk.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

SELECT ots.create_table('wr', 'k string', max_versions => 3, max_version_offset => 9223372036854);

-- what a row is stored as: inline or split, its chunks, their sizes and order
CREATE FUNCTION pg_temp.shape(key text) RETURNS TABLE (stored text, chunks bigint, largest integer,
                                                          keyed_by_first_cell boolean, ordered boolean)
LANGUAGE sql AS $$
	SELECT CASE WHEN d."$cells"::text LIKE '{"row_ts": %, "split": %' THEN 'split' ELSE 'inline' END,
	       (SELECT count(*) FROM "wr$chunk" c WHERE c.k = key),
	       (SELECT max(length(ots.cells_send(c."$cells"))) FROM "wr$chunk" c WHERE c.k = key),
	       (SELECT bool_and(c."$column" = f.col AND c."$ts" = f.ts)
	          FROM "wr$chunk" c,
	               LATERAL (SELECT e.key AS col, min((x ->> 'ts')::bigint) AS ts
	                          FROM jsonb_each((c."$cells"::text::jsonb) -> 'cells') e,
	                               jsonb_array_elements(e.value) x
	                         GROUP BY e.key ORDER BY e.key COLLATE "C" LIMIT 1) f
	         WHERE c.k = key),
	       (SELECT bool_and(next_column IS NULL OR (last_column, last_ts) < (next_column, next_ts))
	          FROM (SELECT l.col AS last_column, l.ts AS last_ts,
	                       lead(c."$column") OVER w AS next_column, lead(c."$ts") OVER w AS next_ts
	                  FROM "wr$chunk" c,
	                       LATERAL (SELECT e.key COLLATE "C" AS col, max((x ->> 'ts')::bigint) AS ts
	                                  FROM jsonb_each((c."$cells"::text::jsonb) -> 'cells') e,
	                                       jsonb_array_elements(e.value) x
	                                 GROUP BY e.key ORDER BY e.key COLLATE "C" DESC LIMIT 1) l
	                 WHERE c.k = key
	                WINDOW w AS (ORDER BY c."$column" COLLATE "C", c."$ts")) o)
	  FROM "wr$data" d WHERE d.k = key
$$;

-- 300 columns of 20 characters: about 9 KB of cells
SELECT jsonb_object_agg(format('c%s', lpad(g::text, 3, '0')), left(md5(g::text), 20)) AS attrs
  FROM generate_series(1, 300) g \gset
SELECT consumed FROM ots.put_row('wr', '{"k": "w"}', :'attrs');
SELECT * FROM pg_temp.shape('w');
-- the whole row, and single columns, read back as written
SELECT attributes = :'attrs'::jsonb AS whole_row_same FROM ots.get_row('wr', '{"k": "w"}');
SELECT attributes FROM ots.get_row('wr', '{"k": "w"}', ARRAY['c001', 'c150', 'c300', 'nosuch']);
SELECT attributes FROM ots.get_row('wr', '{"k": "w"}', ARRAY['nosuch']);
-- a page of columns reads the chunks that hold it
SELECT attributes = (SELECT jsonb_object_agg(key, value) FROM jsonb_each(:'attrs'::jsonb)
                      WHERE key COLLATE "C" >= 'c100' AND key COLLATE "C" < 'c200') AS page_same,
       (SELECT count(*) FROM jsonb_object_keys(attributes)) AS columns
  FROM ots.get_row('wr', '{"k": "w"}', start_column => 'c100', end_column => 'c200');
SELECT (SELECT count(*) FROM jsonb_object_keys(attributes)) AS from_c290,
       (SELECT count(*) FROM jsonb_object_keys((ots.get_row('wr', '{"k": "w"}', end_column => 'c011')).attributes)) AS before_c011
  FROM ots.get_row('wr', '{"k": "w"}', start_column => 'c290');
-- a narrow row stays inline
SELECT consumed FROM ots.put_row('wr', '{"k": "n"}', '{"a": 1, "b": "x"}');
SELECT * FROM pg_temp.shape('n');

-- a one-cell update rewrites one chunk (and the head)
CREATE TEMP TABLE before_update AS SELECT ctid AS tid FROM "wr$chunk" WHERE k = 'w';
SELECT consumed FROM ots.update_row('wr', '{"k": "w"}', put => '{"c150": "changed"}');
SELECT count(*) AS chunks_rewritten FROM "wr$chunk" c
 WHERE k = 'w' AND NOT EXISTS (SELECT 1 FROM before_update b WHERE b.tid = c.ctid);
SELECT attributes FROM ots.get_row('wr', '{"k": "w"}', ARRAY['c149', 'c150', 'c151']);
-- new columns of 3 KB each after the last one: new chunks, and no other rewritten
TRUNCATE before_update;
INSERT INTO before_update SELECT ctid FROM "wr$chunk" WHERE k = 'w';
SELECT consumed FROM ots.update_row('wr', '{"k": "w"}', put => jsonb_build_object('x1', repeat('x', 3000), 'x2', repeat('y', 3000)));
SELECT count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM "wr$chunk" c WHERE c.ctid = b.tid)) AS chunks_rewritten,
       (SELECT count(*) FROM "wr$chunk" WHERE k = 'w') - count(*) AS chunks_added
  FROM before_update b;
SELECT consumed FROM ots.update_row('wr', '{"k": "w"}', delete_all => ARRAY['x1', 'x2']);
SELECT jsonb_array_length(attributes -> 'c150') AS versions
  FROM ots.get_row('wr', '{"k": "w"}', ARRAY['c150'], max_versions => 3);
SELECT attributes - 'c150' = :'attrs'::jsonb - 'c150' AS others_same FROM ots.get_row('wr', '{"k": "w"}');

-- increments, deletes of a version and of a column, on a split row
SELECT attributes FROM ots.update_row('wr', '{"k": "w"}', increment => '{"counter": 5}',
                                      return_type => 'RT_AFTER_MODIFY');
SELECT attributes FROM ots.update_row('wr', '{"k": "w"}', increment => '{"counter": 2}',
                                      return_type => 'RT_AFTER_MODIFY');
SELECT consumed FROM ots.update_row('wr', '{"k": "w"}', delete_all => ARRAY['c001', 'c002']);
SELECT attributes FROM ots.get_row('wr', '{"k": "w"}', ARRAY['c001', 'c002', 'c003']);
SELECT (SELECT count(*) FROM jsonb_object_keys(attributes)) AS columns FROM ots.get_row('wr', '{"k": "w"}');

-- conditions on a split row
SELECT consumed FROM ots.update_row('wr', '{"k": "w"}', put => '{"c200": "cond"}', condition => 'EXPECT_EXIST',
  column_condition => '{"column": "c300", "comparator": "=", "value": "94f6d7e04a4d452035300"}');
SELECT consumed FROM ots.update_row('wr', '{"k": "w"}', put => '{"c200": "cond"}', condition => 'EXPECT_EXIST',
  column_condition => format('{"column": "c300", "comparator": "=", "value": "%s"}', left(md5('300'), 20))::jsonb);
SELECT attributes FROM ots.get_row('wr', '{"k": "w"}', ARRAY['c200']);
SELECT consumed FROM ots.put_row('wr', '{"k": "w"}', '{"x": 1}', condition => 'EXPECT_NOT_EXIST');
-- a filter reads the column it names (one columns_to_get leaves out is missing: it passes)
SELECT attributes FROM ots.get_row('wr', '{"k": "w"}', ARRAY['c010', 'c299'],
  filter => '{"column": "c299", "comparator": "=", "value": "nope"}');
SELECT attributes FROM ots.get_row('wr', '{"k": "w"}', ARRAY['c010', 'c299'],
  filter => format('{"column": "c299", "comparator": "=", "value": "%s"}', left(md5('299'), 20))::jsonb);
SELECT attributes FROM ots.get_row('wr', '{"k": "w"}', ARRAY['c010'],
  filter => '{"column": "c299", "comparator": "=", "value": "nope"}');

-- plain SQL on the storage: a head must hold its own row's key
SELECT "$cells"::text AS head FROM "wr$data" WHERE k = 'w' \gset
UPDATE "wr$data" SET "$cells" = replace(:'head', '"string": "w"', '"string": "other"')::ots.cells WHERE k = 'w';
UPDATE "wr$data" SET "$cells" = :'head'::ots.cells WHERE k = 'w';
SELECT attributes FROM ots.get_row('wr', '{"k": "w"}', ARRAY['c200']);

-- a split row that shrinks to half the bound is inline again
SELECT consumed FROM ots.update_row('wr', '{"k": "w"}',
  delete_all => (SELECT array_agg(format('c%s', lpad(g::text, 3, '0'))) FROM generate_series(3, 295) g));
SELECT * FROM pg_temp.shape('w');
SELECT attributes FROM ots.get_row('wr', '{"k": "w"}');
SELECT consumed FROM ots.update_row('wr', '{"k": "w"}',
  put => (SELECT jsonb_object_agg(format('c%s', lpad(g::text, 3, '0')), left(md5(g::text), 20)) FROM generate_series(1, 300) g));
SELECT * FROM pg_temp.shape('w');

-- a put over a split row replaces every chunk; a small one makes it inline again
SELECT consumed FROM ots.put_row('wr', '{"k": "w"}', '{"only": 1}');
SELECT * FROM pg_temp.shape('w');
SELECT attributes FROM ots.get_row('wr', '{"k": "w"}');
-- an inline row that grows past the bound through updates is split
SELECT count(*) AS updates FROM generate_series(0, 2) u,
  LATERAL ots.update_row('wr', '{"k": "w"}',
    put => (SELECT jsonb_object_agg(format('u%s', u * 100 + g), repeat('y', 30)) FROM generate_series(1, 100) g));
SELECT * FROM pg_temp.shape('w');
SELECT (SELECT count(*) FROM jsonb_object_keys(attributes)) AS columns FROM ots.get_row('wr', '{"k": "w"}');

-- deleting a split row deletes its chunks
SELECT consumed FROM ots.delete_row('wr', '{"k": "w"}');
SELECT count(*) AS heads FROM "wr$data" WHERE k = 'w';
SELECT count(*) AS chunks FROM "wr$chunk" WHERE k = 'w';
SELECT attributes FROM ots.get_row('wr', '{"k": "w"}');

--
-- random operations on a split row against a model: after each, the row
-- read whole (all versions) and the column written read as the model says.
-- Timestamps 1 to 6 under max_versions 10: no version is ever over the
-- limit, whose cells a split row keeps until purge where an inline row
-- drops them at once (docs/design.md, "Wide rows: heads and chunks").
--
SELECT ots.create_table('wm', 'k string', max_versions => 10, max_version_offset => 9223372036854);
CREATE TEMP TABLE model (col text, ts bigint, val text, PRIMARY KEY (col, ts));
CREATE FUNCTION pg_temp.expected() RETURNS jsonb LANGUAGE sql AS $$
	SELECT coalesce(jsonb_object_agg(col, cells), '{}') FROM (
	  SELECT col, jsonb_agg(jsonb_build_object('value', val, 'ts', ts) ORDER BY ts DESC) AS cells
	    FROM model GROUP BY col) g
$$;
CREATE FUNCTION pg_temp.random_ops(n int, seed float8) RETURNS TABLE (ops int, mismatches int, split_at_end boolean)
LANGUAGE plpgsql AS $$
DECLARE
	i int; op int; c text; t bigint; v text; got jsonb; exp jsonb; bad int := 0;
BEGIN
	PERFORM setseed(seed);
	-- 250 columns of 3 versions to begin with: a split row
	INSERT INTO model SELECT format('c%s', g), ts, md5(g::text || ts::text)
	  FROM generate_series(1, 250) g, generate_series(1, 3) ts;
	PERFORM ots.put_row('wm', '{"k": "m"}', (
	  SELECT jsonb_object_agg(col, cells) FROM (
	    SELECT col, jsonb_agg(jsonb_build_object('value', val, 'ts', ts)) AS cells FROM model GROUP BY col) g));
	FOR i IN 1 .. n LOOP
		op := floor(random() * 10);
		c := format('c%s', 1 + floor(random() * 300)::int);
		t := 1 + floor(random() * 6)::int;
		v := md5(random()::text);
		IF op < 5 THEN
			PERFORM ots.update_row('wm', '{"k": "m"}', put => jsonb_build_object(c, jsonb_build_object('value', v, 'ts', t)));
			INSERT INTO model VALUES (c, t, v) ON CONFLICT (col, ts) DO UPDATE SET val = excluded.val;
		ELSIF op < 7 THEN
			PERFORM ots.update_row('wm', '{"k": "m"}', "delete" => jsonb_build_object(c, t));
			DELETE FROM model WHERE col = c AND ts = t;
		ELSIF op < 8 THEN
			PERFORM ots.update_row('wm', '{"k": "m"}', delete_all => ARRAY[c]);
			DELETE FROM model WHERE col = c;
		ELSE
			-- a put of several columns at once, one of them new
			PERFORM ots.update_row('wm', '{"k": "m"}', put => jsonb_build_object(c, jsonb_build_object('value', v, 'ts', t),
			  c || 'x', jsonb_build_object('value', v, 'ts', t)));
			INSERT INTO model VALUES (c, t, v), (c || 'x', t, v) ON CONFLICT (col, ts) DO UPDATE SET val = excluded.val;
		END IF;
		exp := pg_temp.expected();
		got := coalesce((ots.get_row('wm', '{"k": "m"}', max_versions => 10)).attributes, '{}');
		IF got IS DISTINCT FROM exp THEN
			bad := bad + 1;
		END IF;
		got := coalesce((ots.get_row('wm', '{"k": "m"}', ARRAY[c], max_versions => 10)).attributes, '{}');
		IF got IS DISTINCT FROM coalesce((SELECT jsonb_build_object(c, exp -> c) WHERE exp ? c), '{}') THEN
			bad := bad + 1;
		END IF;
	END LOOP;
	ops := n;
	mismatches := bad;
	SELECT "$cells"::text LIKE '{"row_ts": %, "split": %' INTO split_at_end FROM "wm$data" WHERE k = 'm';
	RETURN NEXT;
END
$$;
SELECT * FROM pg_temp.random_ops(400, 0.33);
-- every chunk within the bound, and as the guard would take it (ots.verify: key, marker, oldest)
SELECT count(*) > 1 AS several_chunks, max(length(ots.cells_send("$cells"))) <= 1024 AS within_bound
  FROM "wm$chunk";
SELECT * FROM ots.verify('wm', amcheck => false);

--
-- purge on split rows: expired cells go chunk by chunk (a chunk's key moves
-- to its first cell left, an empty chunk goes); a row without a live cell or
-- marker goes with its chunks; versions over max_versions go, counted over
-- the chunks a deep column spans
--
SELECT ots.create_table('wp', 'k string', max_versions => 5, time_to_live => 2000000000,
                        max_version_offset => 9223372036854);
-- row "old": 200 columns at ts 1000; row "mixed": the same, and 100 more at
-- ts 4000000000000 (2096); a column "d" of 12 versions in "mixed"
SELECT consumed FROM ots.put_row('wp', '{"k": "old"}',
  (SELECT jsonb_object_agg(format('c%s', g), jsonb_build_object('value', repeat('o', 20), 'ts', 1000))
     FROM generate_series(1, 200) g));
SELECT consumed FROM ots.put_row('wp', '{"k": "mixed"}',
  (SELECT jsonb_object_agg(format('c%s', g), jsonb_build_object('value', repeat('m', 20), 'ts', CASE WHEN g <= 200 THEN 1000 ELSE 4000000000000 END))
     FROM generate_series(1, 300) g)
  || jsonb_build_object('d', (SELECT jsonb_agg(jsonb_build_object('value', repeat('d', 300), 'ts', 4000000000000 + v))
                               FROM generate_series(1, 12) v)));
SELECT k, count(*) AS chunks FROM "wp$chunk" GROUP BY k ORDER BY k;
-- cells at ts 1000 expire (the markers, written now, stay young)
SELECT ots.update_table('wp', time_to_live => (floor(extract(epoch FROM clock_timestamp()))::bigint - 2));
CALL ots.purge('wp');
SELECT k, count(*) AS chunks, sum(ots.cells_count("$cells")) AS cells FROM "wp$chunk" GROUP BY k ORDER BY k;
SELECT k, bool_and(c."$column" = (SELECT min(e.key COLLATE "C") FROM jsonb_object_keys((c."$cells"::text::jsonb) -> 'cells') e(key)))
         AS keyed_by_first_column
  FROM "wp$chunk" c GROUP BY k ORDER BY k;
SELECT (ots.get_row('wp', '{"k": "old"}')).attributes AS old_row;
SELECT (SELECT count(*) FROM jsonb_object_keys(attributes)) AS mixed_columns,
       jsonb_array_length(attributes -> 'd') AS d_versions
  FROM ots.get_row('wp', '{"k": "mixed"}', max_versions => 20);
-- "old" has no cell left, only its young marker: its head stays, as an inline row's would
SELECT k, "$cells"::text LIKE '{"row_ts": %, "split": %' AS split FROM "wp$data" ORDER BY k;
-- max_versions 2: the trim pass drops d's older versions, counting, for a
-- chunk's last column, its cells in the chunks after it: d spans two chunks,
-- and only the newest two of its versions stay
SELECT ots.update_table('wp', max_versions => 2);
CALL ots.purge('wp');
SELECT jsonb_array_length(attributes -> 'd') AS d_versions
  FROM ots.get_row('wp', '{"k": "mixed"}', max_versions => 20);
SELECT count(*) AS d_cells_stored FROM "wp$chunk" c, jsonb_each((c."$cells"::text::jsonb) -> 'cells') e, jsonb_array_elements(e.value)
 WHERE e.key = 'd';
-- a column of 60 versions over many chunks, trimmed to 3 without rewriting the others
SELECT ots.update_table('wp', max_versions => 100);
SELECT consumed FROM ots.update_row('wp', '{"k": "mixed"}',
  put => jsonb_build_object('e', (SELECT jsonb_agg(jsonb_build_object('value', repeat('e', 100), 'ts', 4000000000000 + v))
                                   FROM generate_series(1, 60) v)));
SELECT count(DISTINCT c.ctid) AS chunks_with_e FROM "wp$chunk" c, jsonb_object_keys((c."$cells"::text::jsonb) -> 'cells') e
 WHERE c.k = 'mixed' AND e = 'e';
SELECT ots.update_table('wp', max_versions => 3);
CALL ots.purge('wp');
SELECT jsonb_path_query_array(attributes -> 'e', '$[*].ts') AS e_seen
  FROM ots.get_row('wp', '{"k": "mixed"}', ARRAY['e'], max_versions => 100);
SELECT count(*) AS e_cells_stored FROM "wp$chunk" c, jsonb_each((c."$cells"::text::jsonb) -> 'cells') e, jsonb_array_elements(e.value)
 WHERE e.key = 'e';
SELECT * FROM ots.verify('wp', amcheck => false);
-- a head deleted by plain SQL (as the owner) takes its chunks with it
DELETE FROM "wp$data" WHERE k = 'mixed';
SELECT count(*) AS chunks_left FROM "wp$chunk" WHERE k = 'mixed';
SELECT ots.delete_table('wp');

--
-- a secondary index and a stream on a table of split rows: the index keeps
-- the defined columns a write changes (read from the chunks), a record
-- names only the cells a write changed
--
SELECT ots.create_table('wi', 'k string', defined_columns => 'seller string', stream_enabled => true);
SELECT ots.create_index('wi', 'wi_seller', '{seller}', include_base_data => false);
SELECT consumed FROM ots.put_row('wi', '{"k": "w"}',
  (SELECT jsonb_object_agg(format('c%s', g), repeat('i', 20)) FROM generate_series(1, 300) g)
  || '{"seller": "alice"}');
SELECT "$cells"::text LIKE '{"row_ts": %, "split": %' AS split FROM "wi$data";
SELECT k, seller FROM wi_seller;
-- an update of another column keeps the entry; one of seller moves it
SELECT consumed FROM ots.update_row('wi', '{"k": "w"}', put => '{"c150": "x"}');
SELECT k, seller FROM wi_seller;
SELECT consumed FROM ots.update_row('wi', '{"k": "w"}', put => '{"seller": "bob"}');
SELECT k, seller FROM wi_seller;
SELECT seller FROM wi WHERE seller = 'bob';
-- the stream's records: the put whole, then each update's one cell
\i test/stream_records.sql
SELECT r ->> 'action_type' AS action, jsonb_array_length(r -> 'columns') AS columns,
       (SELECT jsonb_agg(jsonb_build_array(c ->> 'name', c ->> 'type', c -> 'value')) FROM jsonb_array_elements(r -> 'columns') c
         WHERE jsonb_array_length(r -> 'columns') < 5) AS cells
  FROM pg_temp.records('wi') r;
-- a copy by plain SQL into a table with a stream, chunk relation first and
-- heads after in one transaction (as the cluster's partition mover copies):
-- a split row's records name every cell once, a page of its chunks (about
-- 1 MB, more by one chunk) each, a PUT_ROW and then UPDATE_ROWs that put
-- the rest (a page may end inside a deep column: its next versions come in
-- the next record); an inline row's PUT_ROW as ever
SELECT ots.create_table('wsrc', 'k string', max_versions => 5000, max_version_offset => 9223372036854);
SELECT ots.create_table('wst', 'k string', max_versions => 5000, max_version_offset => 9223372036854,
                        stream_enabled => true);
SELECT consumed FROM ots.put_row('wsrc', '{"k": "w"}',
  (SELECT jsonb_object_agg(format('a%s', lpad(g::text, 3, '0')), repeat('i', 20)) FROM generate_series(1, 300) g));
SELECT count(*) AS columns FROM generate_series(1, 3) g,
  LATERAL ots.update_row('wsrc', '{"k": "w"}', put => jsonb_build_object(format('c%s', g), repeat(g::text, 1048576)));
-- "d": 3,000 versions of 500 bytes, 1.5 MB of one column
SELECT count(*) AS writes FROM generate_series(0, 2) b,
  LATERAL ots.update_row('wsrc', '{"k": "w"}', put => (
    SELECT jsonb_build_object('d', jsonb_agg(jsonb_build_object('value', repeat(chr(65 + ts % 26), 500), 'ts', ts)))
      FROM generate_series(b * 1000 + 1, b * 1000 + 1000) ts));
SELECT consumed FROM ots.put_row('wsrc', '{"k": "n"}', '{"x": 1}');
BEGIN;
INSERT INTO "wst$chunk" SELECT * FROM "wsrc$chunk";
INSERT INTO "wst$data" SELECT * FROM "wsrc$data";
COMMIT;
SELECT (SELECT ots.get_row('wst', '{"k": "w"}', max_versions => 5000)) = (SELECT ots.get_row('wsrc', '{"k": "w"}', max_versions => 5000))
       AS copy_reads_the_same;
-- the records in the stream's order
SELECT r.n, r.rec -> 'primary_key' ->> 'k' AS k, r.rec ->> 'action_type' AS action,
       jsonb_array_length(r.rec -> 'columns') AS cells,
       (SELECT string_agg(DISTINCT c ->> 'type', ',') FROM jsonb_array_elements(r.rec -> 'columns') c) AS types,
       (SELECT min(c ->> 'name') || '..' || max(c ->> 'name') FROM jsonb_array_elements(r.rec -> 'columns') c) AS names,
       pg_column_size(r.rec) < 3 * 1048576 AS under_3_mb
  FROM pg_temp.records('wst') WITH ORDINALITY r(rec, n) ORDER BY r.n;
-- every cell once, as the row has it (every version)
WITH cells AS (
  SELECT c ->> 'name' AS name, (c ->> 'timestamp')::bigint AS ts, c ->> 'value' AS value
    FROM pg_temp.records('wst') r, jsonb_array_elements(r -> 'columns') c
   WHERE r -> 'primary_key' ->> 'k' = 'w')
SELECT (SELECT count(*) FROM cells) AS cells, (SELECT count(DISTINCT (name, ts)) FROM cells) AS distinct_cells,
       (SELECT md5(string_agg(name || '@' || ts || '=' || value, ',' ORDER BY name, ts)) FROM cells)
     = (SELECT md5(string_agg(a.key || '@' || (v ->> 'ts') || '=' || (v ->> 'value'), ',' ORDER BY a.key, (v ->> 'ts')::bigint))
          FROM ots.get_row('wsrc', '{"k": "w"}', max_versions => 5000) g, jsonb_each(g.attributes) a,
               jsonb_array_elements(a.value) v) AS records_hold_the_row;
-- ots's row code may not write a row over chunks plain SQL brought for it
BEGIN;
INSERT INTO "wst$chunk" SELECT 'z', "$column", "$ts", "$cells", "$oldest_ts" FROM "wsrc$chunk" WHERE k = 'w' AND "$column" = 'c1';
SELECT consumed FROM ots.put_row('wst', '{"k": "z"}', jsonb_build_object('big', repeat('b', 5000)));
ROLLBACK;
SELECT ots.delete_table('wsrc');
SELECT ots.delete_table('wst');
-- the row deleted: its entry goes
SELECT consumed FROM ots.delete_row('wi', '{"k": "w"}');
SELECT count(*) AS entries FROM wi_seller;
SELECT ots.delete_table('wi');

--
-- get_range pages a row larger than a page: a page of 4 MB ends inside the
-- wide row, after a whole column (which may pass the cap), with the row's
-- key as next_start_primary_key and next_token where the next page goes on
-- in it (Tablestore's next_token); pages never repeat or lose a column
--
SELECT ots.create_table('wg', 'k string');
SELECT consumed FROM ots.put_row('wg', '{"k": "a"}', '{"v": 1}');
SELECT consumed FROM ots.put_row('wg', '{"k": "z"}', '{"v": 26}');
-- row "w": 12 columns of 1 MB (each written in its own request), 12 MB
SELECT count(*) AS written
  FROM generate_series(0, 11) g,
       LATERAL ots.update_row('wg', '{"k": "w"}',
                              put => jsonb_build_object(format('c%s', lpad(g::text, 2, '0')),
                                                        repeat(chr(65 + g), 1048576)));
CREATE TEMP TABLE wg_pages (page int, k text, columns text[], bytes int, next_k text, token boolean);
DO $$
DECLARE
	r ots.range_result;
	start jsonb := '{"k": {"$inf": "min"}}';
	tok text;
	n int := 0;
BEGIN
	LOOP
		n := n + 1;
		r := ots.get_range('wg', start, '{"k": {"$inf": "max"}}', token => tok);
		INSERT INTO wg_pages
		SELECT n, x -> 'primary_key' ->> 'k',
			   ARRAY(SELECT jsonb_object_keys(x -> 'attributes') ORDER BY 1),
			   octet_length(r.rows::text), r.next_start_primary_key ->> 'k', r.next_token IS NOT NULL
		  FROM jsonb_array_elements(r.rows) x;
		EXIT WHEN r.next_start_primary_key IS NULL OR n > 20;
		start := r.next_start_primary_key;
		tok := r.next_token;
	END LOOP;
END
$$;
SELECT page, k, array_to_string(columns, ',') AS columns, bytes <= 4 * 1048576 + 1048576 AS within_a_column_of_4_mb,
       next_k, token
  FROM wg_pages ORDER BY page, k;
-- every column of "w" once, each as get_row reads it
SELECT count(*) AS columns, count(DISTINCT c) AS distinct_columns FROM wg_pages, unnest(columns) c WHERE k = 'w';
SELECT bool_and(v.value = (ots.get_row('wg', '{"k": "w"}', ARRAY[v.key])).attributes -> v.key) AS same_as_get_row
  FROM (SELECT x -> 'attributes' AS attrs
          FROM generate_series(1, 1) g,
               LATERAL (SELECT ots.get_range('wg', '{"k": "w"}', '{"k": "x"}', token => NULL)) p(r),
               jsonb_array_elements((p.r).rows) x) a, jsonb_each(a.attrs) v;
-- a page of columns ([start_column, end_column)) is cut the same way
SELECT x -> 'primary_key' ->> 'k' AS k, ARRAY(SELECT jsonb_object_keys(x -> 'attributes') ORDER BY 1) AS columns,
       (r).next_start_primary_key ->> 'k' AS next_k, (r).next_token IS NOT NULL AS token
  FROM (SELECT ots.get_range('wg', '{"k": "w"}', '{"k": "x"}', start_column => 'c03', end_column => 'c10') AS r) p,
       jsonb_array_elements((p.r).rows) x;
-- whole_rows: a page ends between rows only: the wide row comes whole, as
-- a page's first row, past the cap
SELECT jsonb_array_length((r).rows) AS rows, (r).rows -> 0 -> 'primary_key' AS first,
       (SELECT count(*) FROM jsonb_object_keys((r).rows -> 0 -> 'attributes')) AS first_columns,
       (r).next_start_primary_key, (r).next_token
  FROM (SELECT ots.get_range('wg', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}', whole_rows => true) AS r) p
UNION ALL
SELECT jsonb_array_length((r).rows), (r).rows -> 0 -> 'primary_key',
       (SELECT count(*) FROM jsonb_object_keys((r).rows -> 0 -> 'attributes')),
       (r).next_start_primary_key, (r).next_token
  FROM (SELECT ots.get_range('wg', '{"k": "w"}', '{"k": {"$inf": "max"}}', whole_rows => true) AS r) p;
-- a token applies to the start's row only, and is one ots gave
SELECT x -> 'primary_key' ->> 'k' AS k, (SELECT count(*) FROM jsonb_object_keys(x -> 'attributes')) AS columns
  FROM (SELECT ots.get_range('wg', '{"k": "b"}', '{"k": {"$inf": "max"}}', "limit" => 1,
                             token => (SELECT ots.get_range('wg', '{"k": "w"}', '{"k": "x"}')).next_token) AS r) p,
       jsonb_array_elements((p.r).rows) x;
SELECT ots.get_range('wg', '{"k": "w"}', '{"k": "x"}', token => 'bm90IGEgdG9rZW4=');
-- a whole row is read as one jsonb value: a row whose cells pass what one
-- holds (256 MB) is refused by get_row before anything is loaded, and still
-- read by columns and paged by get_range (here a head that says so, written
-- by the owner with plain SQL)
UPDATE "wg$data" SET "$cells" = regexp_replace("$cells"::text, '"cells_size": [0-9]+', '"cells_size": 300000000')::ots.cells
 WHERE k = 'w';
SELECT ots.get_row('wg', '{"k": "w"}');
SELECT (ots.get_row('wg', '{"k": "w"}', ARRAY['c05'])).attributes ->> 'c05' = repeat('F', 1048576) AS one_column_reads;
SELECT jsonb_array_length((r).rows) AS rows, (r).next_token IS NOT NULL AS token
  FROM (SELECT ots.get_range('wg', '{"k": "w"}', '{"k": "x"}') AS r) p;
SELECT ots.delete_table('wg');

-- a head names its row's chunks: the view's row functions read them only
-- for a role that may read the row (forged from its text, by a role
-- without a grant, it reads nothing; a reader of the view reads it)
SELECT "$cells"::text AS head, '"wm$data"'::regclass::oid AS storage FROM "wm$data" WHERE k = 'm' \gset
CREATE ROLE regress_ots_wide_stranger;
CREATE ROLE regress_ots_wide_reader;
GRANT SELECT ON wm TO regress_ots_wide_reader;
SET ROLE regress_ots_wide_stranger;
SELECT ots.row_attributes(:'head'::ots.cells, :storage::regclass) IS NOT NULL AS leaked;
SELECT ots.row_exists(:'head'::ots.cells, :storage::regclass) AS leaked;
SET ROLE regress_ots_wide_reader;
SELECT jsonb_typeof(attributes) AS attributes FROM wm WHERE k = 'm';
SELECT ots.row_attributes(:'head'::ots.cells, :storage::regclass) IS NOT NULL AS read;
RESET ROLE;
REVOKE SELECT ON wm FROM regress_ots_wide_reader;
DROP ROLE regress_ots_wide_stranger;
DROP ROLE regress_ots_wide_reader;
SELECT ots.delete_table('wm');
SELECT ots.delete_table('wr');

-- ots.chunk_seek: the chunk holding a position is found by one descent of
-- "t$chunk"'s primary key and a binary search of its leaf page
-- (src/store/btree_seek.c), not by an index scan that reads every entry of
-- the row on that page; the rows it returns are the index scan's.  40 rows
-- of 300 columns of 3 versions (some 1,000 chunks over several index
-- pages), changed by updates, deletes and puts that leave dead entries and
-- move chunk keys, then random reads (present, missing, before the first
-- and after the last column; versions, time ranges, pages of columns),
-- each made with the setting on and off
SELECT ots.create_table('wsk', 'k string', max_versions => 3, max_version_offset => 9223372036854);
DO $$
BEGIN
	PERFORM setseed(0.61);
	FOR r IN 1 .. 40 LOOP
		PERFORM ots.put_row('wsk', jsonb_build_object('k', format('r%s', lpad(r::text, 2, '0'))), (
		  SELECT jsonb_object_agg(format('c%s', lpad(g::text, 3, '0')),
		    (SELECT jsonb_agg(jsonb_build_object('value', md5(g::text || ts::text || r::text), 'ts', ts)) FROM generate_series(1, 3) ts))
		    FROM generate_series(1, 300) g));
	END LOOP;
	FOR i IN 1 .. 600 LOOP
		DECLARE
			k jsonb := jsonb_build_object('k', format('r%s', lpad((1 + floor(random() * 40))::text, 2, '0')));
			c text := format('c%s', lpad((1 + floor(random() * 320))::text, 3, '0'));
			op int := floor(random() * 10);
		BEGIN
			IF op < 6 THEN
				PERFORM ots.update_row('wsk', k, put => jsonb_build_object(c, jsonb_build_object('value', md5(random()::text), 'ts', 2 + floor(random() * 3)::int)));
			ELSIF op < 8 THEN
				PERFORM ots.update_row('wsk', k, delete_all => ARRAY[c]);
			ELSE
				PERFORM ots.update_row('wsk', k, put => jsonb_build_object(c, repeat('x', 900), c || 'a', repeat('y', 900)));
			END IF;
		END;
	END LOOP;
END
$$;
SELECT count(*) > 800 AS chunks, pg_relation_size('"wsk$chunk_pkey"') / 8192 > 4 AS index_pages,
       (SELECT count(*) FROM "wsk$data" WHERE "$cells"::text LIKE '{"row_ts": %, "split": %') AS split_rows
  FROM "wsk$chunk";
CREATE FUNCTION pg_temp.seek_differential(n int, seed float8) RETURNS TABLE (reads int, mismatches int, present int)
LANGUAGE plpgsql AS $$
DECLARE
	k jsonb; c text; c2 text; mv int; tr jsonb; kind int; a jsonb; b jsonb; bad int := 0; hits int := 0;
BEGIN
	PERFORM setseed(seed);
	FOR i IN 1 .. n LOOP
		k := jsonb_build_object('k', format('r%s', lpad((1 + floor(random() * 41))::text, 2, '0')));
		c := (ARRAY['a', 'c000', 'zz', format('c%s', lpad((1 + floor(random() * 320))::text, 3, '0'))])[1 + least(3, floor(random() * 8)::int)];
		c2 := format('c%s', lpad((1 + floor(random() * 320))::text, 3, '0'));
		mv := 1 + floor(random() * 3)::int;
		tr := jsonb_build_object('start_time', mv, 'end_time', mv + 1 + floor(random() * 3)::int);
		kind := floor(random() * 4);
		FOR side IN 1 .. 2 LOOP
			PERFORM set_config('ots.chunk_seek', CASE side WHEN 1 THEN 'on' ELSE 'off' END, true);
			b := a;
			a := CASE kind
				WHEN 0 THEN (ots.get_row('wsk', k, ARRAY[c])).attributes
				WHEN 1 THEN (ots.get_row('wsk', k, ARRAY[c, c2], max_versions => mv, with_timestamps => true)).attributes
				WHEN 2 THEN (ots.get_row('wsk', k, ARRAY[c], time_range => tr, with_timestamps => true)).attributes
				ELSE (ots.get_row('wsk', k, start_column => least(c, c2), end_column => greatest(c, c2), max_versions => mv, with_timestamps => true)).attributes
			END;
		END LOOP;
		IF a IS DISTINCT FROM b THEN
			bad := bad + 1;
			RAISE NOTICE 'seek % differs for % %: % against %', kind, k, c, b, a;
		END IF;
		hits := hits + (a IS NOT NULL AND a <> '{}')::int;
	END LOOP;
	-- and the column every chunk begins with, which finds the chunk at the
	-- edges of the index's pages too (and, with versions, the chunk before)
	FOR k, c IN SELECT jsonb_build_object('k', ch.k), ch."$column" FROM "wsk$chunk" ch LOOP
		FOR side IN 1 .. 2 LOOP
			PERFORM set_config('ots.chunk_seek', CASE side WHEN 1 THEN 'on' ELSE 'off' END, true);
			b := a;
			a := (ots.get_row('wsk', k, ARRAY[c], max_versions => 3, with_timestamps => true)).attributes;
		END LOOP;
		IF a IS DISTINCT FROM b THEN
			bad := bad + 1;
			RAISE NOTICE 'seek differs for % %: % against %', k, c, b, a;
		END IF;
		n := n + 1;
	END LOOP;
	reads := n;
	mismatches := bad;
	present := hits;
	RETURN NEXT;
END
$$;
SELECT reads > 2300 AS reads, mismatches, present > 750 AS mostly_present FROM pg_temp.seek_differential(1500, 0.27);
-- a deep column over several index pages of its own (each page's entries
-- all of the row: the search compares the column and timestamp only),
-- read by versions and time ranges, with the setting on and off
SELECT ots.create_table('wdeep', 'k string', max_versions => 30000, max_version_offset => 9223372036854);
SELECT count(*) AS writes FROM generate_series(0, 19) b,
  LATERAL ots.update_row('wdeep', '{"k": "deep"}', put => (
    SELECT jsonb_build_object('d', jsonb_agg(jsonb_build_object('value', md5(ts::text), 'ts', ts)))
      FROM generate_series(b * 1000 + 1, b * 1000 + 1000) ts));
SELECT count(*) > 500 AS chunks, pg_relation_size('"wdeep$chunk_pkey"') / 8192 > 3 AS index_pages FROM "wdeep$chunk";
CREATE FUNCTION pg_temp.deep_differential(n int, seed float8) RETURNS TABLE (reads int, mismatches int, cells bigint)
LANGUAGE plpgsql AS $$
DECLARE
	a jsonb; b jsonb; lo int; hi int; bad int := 0; total bigint := 0;
BEGIN
	PERFORM setseed(seed);
	FOR i IN 1 .. n LOOP
		lo := 1 + floor(random() * 20000)::int;
		hi := lo + 1 + floor(random() * 50)::int;
		FOR side IN 1 .. 2 LOOP
			PERFORM set_config('ots.chunk_seek', CASE side WHEN 1 THEN 'on' ELSE 'off' END, true);
			b := a;
			a := (ots.get_row('wdeep', '{"k": "deep"}', ARRAY['d'], max_versions => 1 + (i % 7),
							  time_range => jsonb_build_object('start_time', lo, 'end_time', hi),
							  with_timestamps => true)).attributes;
		END LOOP;
		IF a IS DISTINCT FROM b THEN
			bad := bad + 1;
			RAISE NOTICE 'deep seek differs from %: % against %', lo, b, a;
		END IF;
		total := total + coalesce(jsonb_array_length(a -> 'd'), 0);
	END LOOP;
	reads := n;
	mismatches := bad;
	cells := total;
	RETURN NEXT;
END
$$;
SELECT reads, mismatches, cells > reads AS found_cells FROM pg_temp.deep_differential(400, 0.5);
-- and the seek answers them itself: PostgreSQL's index scan, which it
-- falls back to at a page's edge, reads index entries the seek does not
CREATE FUNCTION pg_temp.entries_read(seek boolean) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	before bigint;
BEGIN
	PERFORM set_config('ots.chunk_seek', seek::text, true);
	before := pg_stat_get_xact_tuples_returned('"wdeep$chunk_pkey"'::regclass);
	FOR i IN 1 .. 200 LOOP
		PERFORM ots.get_row('wdeep', '{"k": "deep"}', ARRAY['d'], max_versions => 3,
							time_range => jsonb_build_object('start_time', i * 97, 'end_time', i * 97 + 10));
	END LOOP;
	RETURN pg_stat_get_xact_tuples_returned('"wdeep$chunk_pkey"'::regclass) - before;
END
$$;
SELECT pg_temp.entries_read(false) > 200 AS index_scan_reads_entries,
       pg_temp.entries_read(true) * 20 < pg_temp.entries_read(false) AS seek_reads_few;
RESET ots.chunk_seek;
SELECT ots.delete_table('wsk');
SELECT ots.delete_table('wdeep');
