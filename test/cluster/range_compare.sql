-- test/cluster/range_compare.sql: ranges through the proxy against a single
-- node (test/cluster/range_compare.sh runs it in the proxy database with
-- -v ref=CONNSTR, a database running ots, and -v seed=S, -v ranges=N).
--
-- The same rows are written through the proxy (ots.put_row) and to the
-- reference node; then N random ranges (bounds with $inf, both directions,
-- limits, filters, columns_to_get, max_versions; String, Integer and Binary
-- keys, a hash-prefixed table, rows big enough for the 4 MB cap) are read:
-- the proxy's get_range paged to the end must give exactly the reference's
-- rows (its get_range_rows), each proxy page within its caps (rows, and
-- 4 MB as ots counts it, computed here independently and itself checked
-- against the reference's own page cuts); get_range_rows through the proxy
-- with a limit must give the reference's first rows; an invalid range must
-- fail with the reference's error.  Prints the failures, then one line
-- "failures: n".
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

-- The reference node over PL/Proxy (CONNECT), built with its connstr quoted.
SELECT pg_catalog.format($f$
CREATE FUNCTION pg_temp.ref_create(tbl text, pk text, maxv integer, prefix integer) RETURNS text
	LANGUAGE plproxy AS $$
	CONNECT %1$L;
	SELECT ots.create_table($1, $2, max_versions => $3, hash_prefix_length => $4)::text;
	$$;
CREATE FUNCTION pg_temp.ref_drop(tbl text) RETURNS SETOF text
	LANGUAGE plproxy AS $$
	CONNECT %1$L;
	SELECT ots.delete_table(t.table_name)::text FROM ots.list_table() t WHERE t.schema_name = 'public' AND t.table_name = $1;
	$$;
CREATE FUNCTION pg_temp.ref_put_all(table_name text, rows jsonb) RETURNS bigint
	LANGUAGE plproxy AS $$
	CONNECT %1$L;
	SELECT pg_catalog.count(ots.put_row($1, r -> 'pk', r -> 'attrs')) FROM pg_catalog.jsonb_array_elements($2) AS r;
	$$;
CREATE FUNCTION pg_temp.ref_rows(table_name text, s jsonb, e jsonb, direction text, lim integer,
								 columns_to_get text[], max_versions integer, filter jsonb) RETURNS jsonb
	LANGUAGE plproxy AS $$
	CONNECT %1$L;
	SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('primary_key', r.primary_key,
																	   'attributes', r.attributes) ORDER BY r.n), '[]')
	  FROM ots.get_range_rows($1, $2, $3, $4, $5, $6, $7, NULL, $8) WITH ORDINALITY AS r(primary_key, attributes, n);
	$$;
CREATE FUNCTION pg_temp.ref_page(table_name text, s jsonb, e jsonb, direction text, lim integer,
								 OUT rows jsonb, OUT next_start_primary_key jsonb, OUT consumed jsonb)
	LANGUAGE plproxy AS $$
	CONNECT %1$L;
	SELECT g.rows, g.next_start_primary_key, g.consumed FROM ots.get_range($1, $2, $3, $4, $5) g;
	$$;
$f$, :'ref') \gexec

-- the tables: name, key (for create_table), key columns and types, options
CREATE TEMP TABLE tdef (tbl text PRIMARY KEY, pk text, names text[], types text[],
						max_versions integer, hash_prefix_length integer, nrows integer);
INSERT INTO tdef VALUES
	('rc_s', 'a string, b integer', '{a,b}', '{STRING,INTEGER}', 1, 0, 5300),
	('rc_h', 'p integer, q string', '{p,q}', '{INTEGER,STRING}', 1, 3, 800),
	('rc_b', 'k binary, n integer, m string', '{k,n,m}', '{BINARY,INTEGER,STRING}', 1, 0, 800),
	('rc_v', 'a integer, b binary', '{a,b}', '{INTEGER,BINARY}', 3, 0, 300),
	('rc_big', 'id string', '{id}', '{STRING}', 1, 0, 40);

SELECT pg_catalog.setseed(:seed) \g /dev/null
SET rc.ranges = :ranges;

-- a random value of a key column type, from small domains so that keys repeat
CREATE FUNCTION pg_temp.rand_value(type text) RETURNS jsonb LANGUAGE sql VOLATILE AS $$
	SELECT CASE type
		WHEN 'STRING' THEN pg_catalog.to_jsonb((ARRAY['a', 'a b', 'aa', 'ab', 'B', 'b', 'é', 'z', '~', 'Ω', 'b0', 'zz'])
											   [1 + pg_catalog.floor(pg_catalog.random() * 12)::int])
		WHEN 'INTEGER' THEN pg_catalog.to_jsonb((ARRAY[-9223372036854775808, -1000000, -5, -1, 0, 1, 7, 64, 100, 4096,
													   9223372036854775807])[1 + pg_catalog.floor(pg_catalog.random() * 11)::int])
		ELSE pg_catalog.jsonb_build_object('$binary', pg_catalog.encode((ARRAY['\x00'::bytea, '\x0000', '\x0001', '\x01',
																		  '\x7f', '\x80', '\xff', '\xff00', '\x616263'])
																	[1 + pg_catalog.floor(pg_catalog.random() * 9)::int], 'base64'))
	END $$;

-- the rows: keys random (duplicates collapse), attributes of several kinds
CREATE TEMP TABLE data (tbl text, pk jsonb, attrs jsonb, PRIMARY KEY (tbl, pk));
INSERT INTO data
SELECT d.tbl, k.pk,
	   CASE WHEN d.tbl = 'rc_big' THEN pg_catalog.jsonb_build_object('v', g, 'blob', pg_catalog.repeat('x', 200000 + (pg_catalog.random() * 400000)::int))
			WHEN d.tbl = 'rc_v' THEN pg_catalog.jsonb_build_object('v', pg_catalog.jsonb_build_array(
						pg_catalog.jsonb_build_object('value', g, 'ts', n.ms - 3000 + g),
						pg_catalog.jsonb_build_object('value', g + 1, 'ts', n.ms - 2000 + g),
						pg_catalog.jsonb_build_object('value', pg_catalog.md5(g::text), 'ts', n.ms - 1000 + g)), 's', 'x')
			WHEN g % 7 = 0 THEN pg_catalog.jsonb_build_object('s', pg_catalog.md5(g::text))
			ELSE pg_catalog.jsonb_build_object('v', g % 1000, 's', pg_catalog.md5(g::text), 'd', g + 0.5, 'f', g % 2 = 0) END
  FROM tdef d, pg_catalog.generate_series(1, d.nrows) AS g,
	   (SELECT (extract(epoch FROM pg_catalog.now()) * 1000)::bigint - 60000 AS ms) n,
	   LATERAL (SELECT pg_catalog.jsonb_object_agg(n, CASE
					WHEN d.tbl = 'rc_big' THEN pg_catalog.to_jsonb('id' || g)
					WHEN i = 1 AND d.tbl <> 'rc_v' THEN pg_temp.rand_value(t)	-- partition keys repeat
					WHEN t = 'INTEGER' THEN pg_catalog.to_jsonb((pg_catalog.random() * 2000000 - 1000000)::bigint)
					WHEN t = 'STRING' THEN pg_catalog.to_jsonb(pg_catalog.left(pg_catalog.md5(pg_catalog.random()::text), (pg_catalog.random() * 4)::int))
					ELSE pg_catalog.jsonb_build_object('$binary', pg_catalog.encode(pg_catalog.decode(pg_catalog.left(
							pg_catalog.md5(pg_catalog.random()::text), 2 * (pg_catalog.random() * 3)::int), 'hex'), 'base64')) END) AS pk
				  FROM ROWS FROM (pg_catalog.unnest(d.names), pg_catalog.unnest(d.types)) WITH ORDINALITY AS c(n, t, i)
				 WHERE g > 0) k
ON CONFLICT DO NOTHING;
-- every cell with its timestamp, so that both sides store the same versions
UPDATE data SET attrs = (SELECT pg_catalog.jsonb_object_agg(a.key, CASE WHEN pg_catalog.jsonb_typeof(a.value) = 'array' THEN a.value
						 ELSE pg_catalog.jsonb_build_object('value', a.value, 'ts', (extract(epoch FROM pg_catalog.now()) * 1000)::bigint - 30000) END)
						 FROM pg_catalog.jsonb_each(attrs) AS a);

-- the tables on both sides (through the proxy's DDL when it has one), after a run's leftovers
\o /dev/null
SELECT pg_temp.ref_drop(tbl) FROM tdef ORDER BY tbl;
SELECT ots.delete_table(t.table_name) FROM ots.list_table() t JOIN tdef ON t.schema_name = 'public' AND t.table_name = tdef.tbl;
\o
SELECT pg_temp.ref_create(tbl, pk, max_versions, hash_prefix_length) FROM tdef ORDER BY tbl \g /dev/null
-- (until the proxy has DDL: on every shard, then known to the proxy's catalog on first use)
CREATE FUNCTION pg_temp.shards_create(tbl text, pk text, maxv integer, prefix integer) RETURNS SETOF text
	LANGUAGE plproxy AS $$
	CLUSTER 'ots_cluster';
	RUN ON ALL;
	SELECT ots.create_table($1, $2, max_versions => $3, hash_prefix_length => $4)::text;
	$$;
\o /dev/null
SELECT pg_catalog.format(CASE WHEN pg_catalog.to_regproc('ots.create_table') IS NOT NULL
							  THEN 'SELECT ots.create_table(%L, %L, max_versions => %s, hash_prefix_length => %s)'
							  ELSE 'SELECT pg_temp.shards_create(%L, %L, %s, %s)' END,
						 tbl, pk, max_versions, hash_prefix_length)
  FROM tdef ORDER BY tbl \gexec
\o
SELECT pg_temp.ref_put_all(tbl, pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('pk', pk, 'attrs', attrs)))
  FROM data GROUP BY tbl ORDER BY tbl \g /dev/null
SELECT pg_catalog.count(ots.put_row(tbl, pk, attrs)) FROM data \g /dev/null

CREATE TEMP TABLE failures (n serial, what text);
CREATE TEMP TABLE summary (what text);

-- size: a get_range row's size as ots counts it (src/api/range_read.c
-- range_row_size), written here apart from the proxy's
CREATE FUNCTION pg_temp.row_size(r jsonb) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
	SELECT pg_catalog.sum(pg_catalog.octet_length(k.key) + CASE
			WHEN pg_catalog.jsonb_typeof(k.value) = 'string' THEN pg_catalog.octet_length(k.value #>> '{}')
			WHEN pg_catalog.jsonb_typeof(k.value) = 'number' THEN 8
			ELSE pg_catalog.length(pg_catalog.decode(k.value ->> '$binary', 'base64')) END)
		   + pg_catalog.pg_column_size(r -> 'attributes')
	  FROM pg_catalog.jsonb_each(r -> 'primary_key') AS k $$;

-- the size formula against ots's own cuts: each page of rc_big the reference
-- cuts below 5000 rows stops where the next row would pass 4 MB
DO $$
DECLARE
	s jsonb := '{"id": {"$inf": "min"}}';
	p record;
	prev jsonb;
	pages integer := 0;
	cut integer := 0;
BEGIN
	LOOP
		p := pg_temp.ref_page('rc_big', s, '{"id": {"$inf": "max"}}', 'FORWARD', NULL);
		IF prev IS NOT NULL THEN
			IF (SELECT pg_catalog.sum(pg_temp.row_size(r)) FROM pg_catalog.jsonb_array_elements(prev) r) > 4194304
			   OR (SELECT pg_catalog.sum(pg_temp.row_size(r)) FROM pg_catalog.jsonb_array_elements(prev) r)
				  + pg_temp.row_size(p.rows -> 0) <= 4194304 THEN
				INSERT INTO failures (what) VALUES ('the size formula disagrees with the reference''s cut after '
													|| pg_catalog.jsonb_array_length(prev) || ' rows');
			END IF;
			cut := cut + 1;
		END IF;
		pages := pages + 1;
		EXIT WHEN p.next_start_primary_key IS NULL;
		prev := p.rows;
		s := p.next_start_primary_key;
	END LOOP;
	IF cut < 2 THEN
		INSERT INTO failures (what) VALUES ('rc_big: the reference cut only ' || cut || ' pages by size');
	END IF;
END
$$;

-- the random ranges
DO $$
DECLARE
	nranges integer := current_setting('rc.ranges')::integer;
	d tdef;
	s jsonb; e jsonb; tmp jsonb;
	direction text;
	lim integer; cols text[]; maxv integer; filt jsonb;
	truth jsonb;
	got jsonb;
	p ots.range_result;
	start jsonb;
	pages integer;
	ref_err text; prx_err text;
	page_cap integer;
	bytes bigint;
	label text;
	streamed jsonb;
	stats_pages integer := 0;
	stats_rows bigint := 0;
	stats_multi integer := 0;
	stats_err integer := 0;
	stats_big integer := 0;
BEGIN
	FOR i IN 1 .. nranges LOOP
		SELECT * INTO d FROM tdef ORDER BY pg_catalog.random() LIMIT 1;
		-- bounds: each column a value of a stored key or a random one, or $inf
		s := '{}'; e := '{}';
		FOR c IN 1 .. pg_catalog.cardinality(d.names) LOOP
			s := s || pg_catalog.jsonb_build_object(d.names[c], CASE
					WHEN pg_catalog.random() < 0.25 THEN '{"$inf": "min"}'::jsonb
					WHEN pg_catalog.random() < 0.2 THEN '{"$inf": "max"}'::jsonb
					WHEN pg_catalog.random() < 0.5 THEN (SELECT x.pk -> d.names[c] FROM data x WHERE x.tbl = d.tbl ORDER BY pg_catalog.random() LIMIT 1)
					ELSE pg_temp.rand_value(d.types[c]) END);
			e := e || pg_catalog.jsonb_build_object(d.names[c], CASE
					WHEN c = 1 AND pg_catalog.random() < 0.3 THEN s -> d.names[1]	-- one partition key
					WHEN pg_catalog.random() < 0.25 THEN '{"$inf": "max"}'::jsonb
					WHEN pg_catalog.random() < 0.2 THEN '{"$inf": "min"}'::jsonb
					WHEN pg_catalog.random() < 0.5 THEN (SELECT x.pk -> d.names[c] FROM data x WHERE x.tbl = d.tbl ORDER BY pg_catalog.random() LIMIT 1)
					ELSE pg_temp.rand_value(d.types[c]) END);
		END LOOP;
		direction := CASE WHEN pg_catalog.random() < 0.5 THEN 'FORWARD' ELSE 'BACKWARD' END;
		lim := (ARRAY[NULL, NULL, NULL, 1, 3, 17, 600, 5000, 9000])[1 + pg_catalog.floor(pg_catalog.random() * 9)::int];
		cols := (ARRAY[NULL, NULL, '{v}', '{s,v}', '{blob}', '{nothing}'])[1 + pg_catalog.floor(pg_catalog.random() * 6)::int];
		maxv := (ARRAY[NULL, NULL, 1, 2])[1 + pg_catalog.floor(pg_catalog.random() * 4)::int];
		filt := (ARRAY[NULL, NULL, NULL, '{"column": "v", "comparator": ">", "value": 900, "pass_if_missing": false}',
					   '{"column": "s", "comparator": "<", "value": "8", "pass_if_missing": true}'])[1 + pg_catalog.floor(pg_catalog.random() * 5)::int];
		ref_err := NULL; prx_err := NULL;
		FOR attempt IN 1 .. 2 LOOP
			BEGIN
				truth := pg_temp.ref_rows(d.tbl, s, e, direction, NULL, cols, maxv, filt);
				ref_err := NULL;
			EXCEPTION WHEN OTHERS THEN
				ref_err := SQLSTATE || ' ' || pg_catalog.regexp_replace(SQLERRM, '^.*REMOTE ERROR: ', '');
			END;
			-- bounds in the wrong order for the direction: mostly swapped, some kept
			EXIT WHEN ref_err IS NULL OR attempt = 2 OR pg_catalog.random() < 0.1;
			tmp := s; s := e; e := tmp;
		END LOOP;
		label := pg_catalog.format('range %s: %s %s..%s %s limit %s cols %s maxv %s filter %s', i, d.tbl, s, e, direction,
								   lim, cols, maxv, filt);
		-- the proxy, paged to the end (at most 40 pages; then the rows so far are a prefix)
		got := '[]'; start := s; pages := 0;
		BEGIN
			LOOP
				p := ots.get_range(d.tbl, start, e, direction, lim, cols, maxv, NULL, filt);
				pages := pages + 1;
				page_cap := LEAST(coalesce(lim, 5000), 5000);
				IF pg_catalog.jsonb_array_length(p.rows) > page_cap THEN
					INSERT INTO failures (what) VALUES (label || ': a page of ' || pg_catalog.jsonb_array_length(p.rows) || ' rows');
				END IF;
				SELECT pg_catalog.sum(pg_temp.row_size(r)) INTO bytes FROM pg_catalog.jsonb_array_elements(p.rows) r;
				IF p.next_start_primary_key IS NOT NULL AND bytes > 4194304 - 600000 THEN
					stats_big := stats_big + 1;
				END IF;
				IF bytes > 4194304 AND pg_catalog.jsonb_array_length(p.rows) > 1 THEN
					INSERT INTO failures (what) VALUES (label || ': a page of ' || bytes || ' bytes');
				END IF;
				got := got || p.rows;
				EXIT WHEN p.next_start_primary_key IS NULL OR pages >= 40;
				start := p.next_start_primary_key;
			END LOOP;
		EXCEPTION WHEN OTHERS THEN
			prx_err := SQLSTATE || ' ' || SQLERRM;
		END;
		IF ref_err IS NOT NULL OR prx_err IS NOT NULL THEN
			stats_err := stats_err + 1;
			IF ref_err IS DISTINCT FROM prx_err THEN
				INSERT INTO failures (what) VALUES (label || ': reference ' || coalesce(ref_err, 'ok') || ', proxy ' || coalesce(prx_err, 'ok'));
			END IF;
			CONTINUE;
		END IF;
		stats_pages := stats_pages + pages;
		stats_rows := stats_rows + pg_catalog.jsonb_array_length(got);
		IF pages > 1 THEN
			stats_multi := stats_multi + 1;
		END IF;
		IF p.next_start_primary_key IS NULL AND got <> truth THEN
			INSERT INTO failures (what) VALUES (label || pg_catalog.format(': %s rows through the proxy, %s on the reference',
																		  pg_catalog.jsonb_array_length(got), pg_catalog.jsonb_array_length(truth)));
		ELSIF p.next_start_primary_key IS NOT NULL
			  AND got <> (SELECT coalesce(pg_catalog.jsonb_agg(x.r ORDER BY x.n), '[]') FROM pg_catalog.jsonb_array_elements(truth) WITH ORDINALITY x(r, n)
						  WHERE x.n <= pg_catalog.jsonb_array_length(got)) THEN
			INSERT INTO failures (what) VALUES (label || ': the proxy''s first ' || pg_catalog.jsonb_array_length(got) || ' rows differ');
		END IF;
		-- get_range_rows through the proxy, with a limit, against the reference's first rows
		IF i % 3 = 0 THEN
			SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('primary_key', r.primary_key, 'attributes', r.attributes)
										 ORDER BY r.n), '[]') INTO streamed
			  FROM ots.get_range_rows(d.tbl, s, e, direction, lim, cols, maxv, NULL, filt) WITH ORDINALITY AS r(primary_key, attributes, n);
			IF streamed <> (SELECT coalesce(pg_catalog.jsonb_agg(x.r ORDER BY x.n), '[]') FROM pg_catalog.jsonb_array_elements(truth) WITH ORDINALITY x(r, n)
							WHERE lim IS NULL OR x.n <= lim) THEN
				INSERT INTO failures (what) VALUES (label || ': get_range_rows gave ' || pg_catalog.jsonb_array_length(streamed) || ' rows');
			END IF;
		END IF;
	END LOOP;
	INSERT INTO summary VALUES (pg_catalog.format('%s ranges (%s failed alike on both), %s proxy pages, %s rows, %s ranges of several pages, %s pages cut at 4 MB',
												 nranges, stats_err, stats_pages, stats_rows, stats_multi, stats_big));
END
$$;

\pset tuples_only on
SELECT what FROM summary;
SELECT what FROM failures ORDER BY n LIMIT 20;
SELECT 'failures: ' || pg_catalog.count(*) FROM failures;
