-- The wire functions otsd calls (src/api/wire.c): ots's row operations with
-- rows returned in Tablestore's PlainBuffer.  The bytes below are checked by
-- hand against the format (src/format/plainbuffer_wire.h); the gateway suite
-- decodes them with the official Node SDK (test/gateway/sdk_rows.test.js).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
RESET client_min_messages;

SELECT ots.create_table('wire_t', 'id integer, k string', max_versions => 3,
	max_version_offset => 9223372036854);
SELECT ots.put_row('wire_t', '{"id": 1, "k": "a"}', '{"s": [{"ts": 1000, "value": "x"}]}');

-- one string version at ts 1000:
--   75000000                  header
--   01                        key
--   03 04 02000000 6964 05 09000000 00 0100000000000000 0a <crc>          id = 1
--   03 04 01000000 6b 05 06000000 03 01000000 61 0a <crc>                 k = 'a'
--   02                        attributes
--   03 04 01000000 73 05 06000000 03 01000000 78 07 e803000000000000 0a <crc>  s = 'x' @ 1000
--   09 <row crc>
SELECT "row", read_cu, write_cu FROM ots.wire_get_row('wire_t', '{"id": 1, "k": "a"}');

-- every type, two versions newest first, columns in name order
SELECT ots.update_row('wire_t', '{"id": 1, "k": "a"}',
	put => '{"s": [{"ts": 2000, "value": "yz"}], "i": [{"ts": 1500, "value": -2}],
	         "d": [{"ts": 1500, "value": 1.5}], "b": [{"ts": 1500, "value": true}],
	         "x": [{"ts": 1500, "value": {"$binary": "AAE="}}]}');
SELECT "row" FROM ots.wire_get_row('wire_t', '{"id": 1, "k": "a"}', max_versions => 3);
-- what get_row returns of it
SELECT attributes FROM ots.get_row('wire_t', '{"id": 1, "k": "a"}', max_versions => 3,
	with_timestamps => true);
-- the same read options as get_row: one version, two columns
SELECT "row" FROM ots.wire_get_row('wire_t', '{"id": 1, "k": "a"}', max_versions => 1,
	columns_to_get => '{s,b}');
-- no row: no bytes, one read unit, as GetRow answers
SELECT "row", length("row"), read_cu, write_cu FROM ots.wire_get_row('wire_t', '{"id": 2, "k": "a"}');
-- a filter that drops the row
SELECT length("row") FROM ots.wire_get_row('wire_t', '{"id": 1, "k": "a"}',
	filter => '{"column": "i", "comparator": ">", "value": 0}');

-- errors and privileges are get_row's
SELECT * FROM ots.wire_get_row('wire_t', '{"id": 1}');
SELECT * FROM ots.wire_get_row('no_such_table', '{"id": 1, "k": "a"}');
CREATE ROLE wire_nobody;
SET ROLE wire_nobody;
SELECT * FROM ots.wire_get_row('wire_t', '{"id": 1, "k": "a"}');
RESET ROLE;
DROP ROLE wire_nobody;

--
-- wire_get_range: get_range's pages in PlainBuffer.  pb_cells decodes a
-- buffer (checksums aside: the gateway suite's SDK checks them) into one
-- line per cell, so that pages compare with get_range's jsonb.
--
CREATE FUNCTION pb_le(b bytea, p int, n int) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE v numeric := 0;
BEGIN
	FOR i IN REVERSE n - 1 .. 0 LOOP
		v := v * 256 + get_byte(b, p + i);
	END LOOP;
	IF n = 8 AND v >= 9223372036854775808 THEN
		v := v - 18446744073709551616;	-- two's complement
	END IF;
	RETURN v::bigint;
END $$;
CREATE FUNCTION pb_cells(b bytea)
	RETURNS TABLE (row_no int, part text, name text, value text, ts bigint)
	LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	p int := 4;
	n int;
	t int;
BEGIN
	IF length(b) = 0 THEN
		RETURN;
	END IF;
	IF pb_le(b, 0, 4) <> 117 THEN
		RAISE EXCEPTION 'no PlainBuffer header';
	END IF;
	row_no := 0;
	WHILE p < length(b) LOOP
		IF get_byte(b, p) <> 1 THEN RAISE EXCEPTION 'no row at %', p; END IF;
		p := p + 1;
		row_no := row_no + 1;
		part := 'key';
		LOOP
			IF get_byte(b, p) = 2 THEN
				part := 'attr';
				p := p + 1;
			END IF;
			EXIT WHEN get_byte(b, p) <> 3;
			n := pb_le(b, p + 2, 4);
			name := convert_from(substring(b FROM p + 7 FOR n), 'UTF8');
			p := p + 6 + n;
			IF get_byte(b, p) <> 5 THEN RAISE EXCEPTION 'no value at %', p; END IF;
			n := pb_le(b, p + 1, 4);
			t := get_byte(b, p + 5);
			value := CASE t WHEN 0 THEN pb_le(b, p + 6, 8)::text
							WHEN 2 THEN (get_byte(b, p + 6) = 1)::text
							WHEN 3 THEN convert_from(substring(b FROM p + 11 FOR n - 5), 'UTF8')
							ELSE t || ':' || encode(substring(b FROM p + 7 FOR n - 1), 'hex') END;
			p := p + 5 + n;
			ts := NULL;
			IF get_byte(b, p) = 7 THEN
				ts := pb_le(b, p + 1, 8);
				p := p + 9;
			END IF;
			IF get_byte(b, p) <> 10 THEN RAISE EXCEPTION 'no cell checksum at %', p; END IF;
			p := p + 2;
			RETURN NEXT;
		END LOOP;
		IF get_byte(b, p) <> 9 THEN RAISE EXCEPTION 'no row checksum at %', p; END IF;
		p := p + 2;
	END LOOP;
END $$;
-- the same lines from get_range's jsonb
CREATE FUNCTION jsonb_cells(rows jsonb)
	RETURNS TABLE (row_no int, part text, name text, value text, ts bigint)
	LANGUAGE sql IMMUTABLE AS $$
	SELECT r.i::int, 'key', k.key, k.value #>> '{}', NULL::bigint
	  FROM jsonb_array_elements(rows) WITH ORDINALITY r(x, i), jsonb_each(r.x -> 'primary_key') k
	UNION ALL
	SELECT r.i::int, 'attr', a.key, c.value -> 'value' #>> '{}', (c.value ->> 'ts')::bigint
	  FROM jsonb_array_elements(rows) WITH ORDINALITY r(x, i), jsonb_each(r.x -> 'attributes') a,
		   jsonb_array_elements(a.value) c
$$;
SELECT * FROM pb_cells((SELECT "row" FROM ots.wire_get_row('wire_t', '{"id": 1, "k": "a"}', max_versions => 3)));

-- sparse rows: 60 keys, each of some of 6 columns, some with 2 versions
SELECT ots.create_table('wire_r', 'p integer, q string', max_versions => 2,
	max_version_offset => 9223372036854);
SELECT setseed(0.34);
SELECT count(*) AS written
  FROM generate_series(1, 60) i,
	   LATERAL (SELECT jsonb_object_agg('c' || c,
					CASE WHEN c % 2 = 0
						 THEN jsonb_build_array(jsonb_build_object('ts', 1000 + i, 'value', 'v' || i || c),
												jsonb_build_object('ts', 500 + i, 'value', i * c))
						 ELSE jsonb_build_array(jsonb_build_object('ts', 1000 + i, 'value', c > 3)) END) AS attrs
				  FROM generate_series(1, 6) c WHERE random() < 0.5) a,
	   LATERAL ots.put_row('wire_r', jsonb_build_object('p', i / 10, 'q', 'k' || lpad(i::text, 2, '0')),
						   coalesce(a.attrs, '{}'));
-- 300 random pages, each compared whole with get_range's: cells, next key, units
CREATE TEMP TABLE wire_cases AS
SELECT n, s.v AS start_key, e.v AS end_key, d.dir,
	   CASE WHEN random() < 0.6 THEN 1 + floor(random() * 12)::int END AS lim,
	   CASE WHEN random() < 0.3 THEN ARRAY['c2', 'c5', 'p'] END AS cols,
	   CASE WHEN random() < 0.5 THEN 1 ELSE 2 END AS versions,
	   CASE WHEN random() < 0.2 THEN '{"column": "c1", "comparator": "=", "value": true}'::jsonb END AS filt
  FROM generate_series(1, 300) n,
	   -- each LATERAL names n: one draw per case, not one for all
	   LATERAL (SELECT CASE WHEN random() + 0 * n < 0.5 THEN 'FORWARD' ELSE 'BACKWARD' END AS dir) d,
	   LATERAL (SELECT CASE WHEN random() + 0 * n < 0.15 THEN jsonb_build_object('p', jsonb_build_object('$inf', CASE d.dir WHEN 'FORWARD' THEN 'min' ELSE 'max' END),
																		'q', jsonb_build_object('$inf', 'min'))
						ELSE jsonb_build_object('p', floor(random() * 7)::int, 'q', 'k' || lpad(floor(random() * 61)::text, 2, '0')) END AS v) s,
	   LATERAL (SELECT CASE WHEN random() + 0 * n < 0.15 THEN jsonb_build_object('p', jsonb_build_object('$inf', CASE d.dir WHEN 'FORWARD' THEN 'max' ELSE 'min' END),
																		'q', jsonb_build_object('$inf', 'max'))
						ELSE jsonb_build_object('p', floor(random() * 7)::int, 'q', 'k' || lpad(floor(random() * 61)::text, 2, '0')) END AS v) e;
CREATE FUNCTION try_range(c wire_cases, wire boolean) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	g ots.range_result;
	w record;
BEGIN
	IF wire THEN
		SELECT * INTO w FROM ots.wire_get_range('wire_r', c.start_key, c.end_key, c.dir, c.lim, c.cols, c.versions,
												filter => c.filt);
		RETURN jsonb_build_object('cells', (SELECT jsonb_agg(x ORDER BY x::text) FROM pb_cells(w."rows") x),
								  'next', (SELECT jsonb_object_agg(x.name, x.value) FROM pb_cells(w.next_start_primary_key) x),
								  'token', w.next_token, 'read', w.read_cu, 'write', w.write_cu);
	END IF;
	g := ots.get_range('wire_r', c.start_key, c.end_key, c.dir, c.lim, c.cols, c.versions,
					   filter => c.filt, with_timestamps => true);
	RETURN jsonb_build_object('cells', (SELECT jsonb_agg(x ORDER BY x::text) FROM jsonb_cells(g.rows) x),
							  'next', (SELECT jsonb_object_agg(k.key, k.value #>> '{}') FROM jsonb_each(g.next_start_primary_key) k),
							  'token', g.next_token, 'read', (g.consumed ->> 'read')::int,
							  'write', (g.consumed ->> 'write')::int);
EXCEPTION WHEN OTHERS THEN
	RETURN jsonb_build_object('error', SQLSTATE || ': ' || SQLERRM);
END $$;
SELECT count(*) AS cases,
	   count(*) FILTER (WHERE try_range(c, true) = try_range(c, false)) AS same,
	   count(*) FILTER (WHERE try_range(c, false) ? 'error') AS errors,
	   count(*) FILTER (WHERE jsonb_typeof(try_range(c, false) -> 'cells') = 'array') AS with_rows,
	   count(*) FILTER (WHERE try_range(c, false) -> 'next' <> 'null') AS with_next
  FROM wire_cases c;
-- one page of it, decoded
SELECT * FROM pb_cells((SELECT "rows" FROM ots.wire_get_range('wire_r', '{"p": 1, "q": "k15"}', '{"p": 1, "q": "k18"}',
															 max_versions => 2)));
SELECT x.*, w.next_token, w.read_cu
  FROM ots.wire_get_range('wire_r', '{"p": 1, "q": "k15"}', '{"p": 9, "q": "k99"}', "limit" => 1,
						  max_versions => 1) w, pb_cells(w.next_start_primary_key) x;
-- nothing in range: no bytes, no next key
SELECT length("rows"), next_start_primary_key, next_token, read_cu
  FROM ots.wire_get_range('wire_r', '{"p": 1, "q": "a"}', '{"p": 1, "q": "b"}', max_versions => 1);
SELECT * FROM ots.wire_get_range('wire_r', '{"p": 1, "q": "b"}', '{"p": 1, "q": "a"}', max_versions => 1);
SELECT ots.delete_table('wire_r');

-- a row larger than a page: pages end inside it with next_token, as
-- get_range's do, and every column comes once
SELECT ots.create_table('wire_w', 'k string');
SELECT count(*) AS written
  FROM generate_series(0, 9) g,
	   LATERAL ots.update_row('wire_w', '{"k": "w"}',
							  put => jsonb_build_object(format('c%s', g), repeat(chr(65 + g), 1048576)));
SELECT consumed FROM ots.put_row('wire_w', '{"k": "z"}', '{"v": 1}');
DO $$
DECLARE
	start jsonb := '{"k": {"$inf": "min"}}';
	tok text;
	w record;
	g ots.range_result;
	n int := 0;
BEGIN
	LOOP
		n := n + 1;
		SELECT * INTO w FROM ots.wire_get_range('wire_w', start, '{"k": {"$inf": "max"}}', token => tok,
												max_versions => 1);
		g := ots.get_range('wire_w', start, '{"k": {"$inf": "max"}}', token => tok, max_versions => 1,
						   with_timestamps => true);
		RAISE NOTICE 'page %: % (get_range: %), next %, token %', n,
			(SELECT string_agg(x.name, ',' ORDER BY x.row_no, x.name) FROM pb_cells(w."rows") x WHERE x.part = 'attr'),
			(SELECT string_agg(x.name, ',' ORDER BY x.row_no, x.name) FROM jsonb_cells(g.rows) x WHERE x.part = 'attr'),
			(SELECT string_agg(x.value, ',') FROM pb_cells(w.next_start_primary_key) x),
			w.next_token IS NOT DISTINCT FROM g.next_token;
		EXIT WHEN w.next_start_primary_key IS NULL OR n > 10;
		start := jsonb_build_object('k', (SELECT x.value FROM pb_cells(w.next_start_primary_key) x));
		tok := w.next_token;
	END LOOP;
END
$$;
SELECT ots.delete_table('wire_w');

-- pages cut at 4 MB between rows: 20 rows of 300 KB; each page's PlainBuffer
-- stays within 4 MB and one row, every row comes once, in order
SELECT ots.create_table('wire_m', 'k integer');
SELECT count(*) AS written
  FROM generate_series(1, 20) i,
	   LATERAL ots.put_row('wire_m', jsonb_build_object('k', i), jsonb_build_object('v', repeat('x', 300000)));
CREATE TEMP TABLE wire_m_pages (page int, keys int[], bytes int);
DO $$
DECLARE
	start jsonb := '{"k": {"$inf": "min"}}';
	w record;
	n int := 0;
BEGIN
	LOOP
		n := n + 1;
		SELECT * INTO w FROM ots.wire_get_range('wire_m', start, '{"k": {"$inf": "max"}}', max_versions => 1);
		INSERT INTO wire_m_pages
		SELECT n, array_agg(x.value::int ORDER BY x.row_no), length(w."rows")
		  FROM pb_cells(w."rows") x WHERE x.part = 'key';
		EXIT WHEN w.next_start_primary_key IS NULL OR n > 10;
		start := jsonb_build_object('k', (SELECT x.value::int FROM pb_cells(w.next_start_primary_key) x));
	END LOOP;
END
$$;
SELECT page, array_length(keys, 1) AS rows, bytes <= 4 * 1024 * 1024 + 300100 AS within_4_mb_and_a_row
  FROM wire_m_pages ORDER BY page;
SELECT array_agg(k ORDER BY page, o) = ARRAY(SELECT generate_series(1, 20)) AS every_row_once_in_order
  FROM wire_m_pages, unnest(keys) WITH ORDINALITY u(k, o);
SELECT ots.delete_table('wire_m');

--
-- wire_put_row, wire_update_row and wire_delete_row (src/api/wire_write.c):
-- the writes of a request's PlainBuffer row, here rows wire_get_row and
-- wire_get_range wrote.  The gateway suite compares them with the jsonb
-- functions on random and malformed rows (test/gateway/protocol_test.py,
-- wire_writes_match_jsonb).
--
SELECT ots.create_table('wire_c', 'id integer, k string', max_versions => 3,
	max_version_offset => 9223372036854);
CREATE TEMP TABLE wire_rows AS
SELECT "row" AS whole FROM ots.wire_get_row('wire_t', '{"id": 1, "k": "a"}', max_versions => 3);
-- wire_t's row, every type and its versions, put as it came: the same row
SELECT length("row"), read_cu, write_cu FROM ots.wire_put_row('wire_c', (SELECT whole FROM wire_rows));
SELECT (SELECT attributes FROM ots.get_row('wire_c', '{"id": 1, "k": "a"}', max_versions => 3,
										   with_timestamps => true)) =
	   (SELECT attributes FROM ots.get_row('wire_t', '{"id": 1, "k": "a"}', max_versions => 3,
										   with_timestamps => true)) AS same_row;
-- RT_PK returns the key, in the request's order
SELECT x.* FROM ots.wire_put_row('wire_c', (SELECT whole FROM wire_rows), return_type => 'RT_PK') w,
	   pb_cells(w."row") x;
-- conditions are put_row's
SELECT * FROM ots.wire_put_row('wire_c', (SELECT whole FROM wire_rows), condition => 'EXPECT_NOT_EXIST');
SELECT length("row"), write_cu FROM ots.wire_update_row('wire_c', (SELECT whole FROM wire_rows),
														condition => 'EXPECT_EXIST');
SELECT * FROM ots.wire_update_row('wire_c', (SELECT whole FROM wire_rows),
								  column_condition => '{"column": "i", "comparator": ">", "value": 0}');
-- a key-only row (a next_start_primary_key) deletes the row, RT_PK returning its key
SELECT ots.put_row('wire_c', '{"id": 2, "k": "b"}', '{"v": 1}');
INSERT INTO wire_rows
SELECT next_start_primary_key FROM ots.wire_get_range('wire_c', '{"id": {"$inf": "min"}, "k": {"$inf": "min"}}',
	'{"id": {"$inf": "max"}, "k": {"$inf": "max"}}', "limit" => 1, max_versions => 1);
SELECT x.*, w.write_cu FROM ots.wire_delete_row('wire_c', (SELECT whole FROM wire_rows OFFSET 1),
												return_type => 'RT_PK') w, pb_cells(w."row") x;
SELECT count(*) AS rows_left FROM "wire_c";
-- what a request's row may not be: errors as otsd's reading of it answers
SELECT * FROM ots.wire_put_row('wire_c', '\x');
SELECT * FROM ots.wire_put_row('wire_c', NULL);
SELECT * FROM ots.wire_put_row('wire_c', '\x76000000');
SELECT * FROM ots.wire_put_row('wire_c', '\x75000000');
-- a flipped row checksum, a cut row, two rows
SELECT * FROM ots.wire_put_row('wire_c', (SELECT set_byte(whole, length(whole) - 1,
														 get_byte(whole, length(whole) - 1) # 1) FROM wire_rows LIMIT 1));
SELECT * FROM ots.wire_put_row('wire_c', (SELECT substring(whole FROM 1 FOR 40) FROM wire_rows LIMIT 1));
SELECT * FROM ots.wire_put_row('wire_c', (SELECT whole || substring(whole FROM 5) FROM wire_rows LIMIT 1));
-- trailing zero bytes are allowed (the Node SDK sends them)
SELECT write_cu FROM ots.wire_put_row('wire_c', (SELECT whole || '\x0000'::bytea FROM wire_rows LIMIT 1));
-- a key-only row has nothing to update; a table's errors are put_row's
SELECT * FROM ots.wire_update_row('wire_c', (SELECT whole FROM wire_rows OFFSET 1));
SELECT * FROM ots.wire_put_row('no_such_table', (SELECT whole FROM wire_rows LIMIT 1));
-- privileges are put_row's
SELECT (SELECT whole FROM wire_rows LIMIT 1) AS whole_row,
	   (SELECT whole FROM wire_rows OFFSET 1) AS key_row \gset
CREATE ROLE wire_writer;
SET ROLE wire_writer;
SELECT * FROM ots.wire_put_row('wire_c', :'whole_row');
SELECT * FROM ots.wire_delete_row('wire_c', :'key_row');
RESET ROLE;
DROP ROLE wire_writer;

-- wire_batch_write_row (src/api/wire_batch.c): batch_write_row of a request
-- whose rows leave out their key and cells, each row's bytes in "rows" in
-- request order; batch_write_row's results, returned rows as PlainBuffer
SELECT table_name, index, is_ok, error_code, error_message, length("row") AS row_bytes, read_cu, write_cu
  FROM ots.wire_batch_write_row(
	'[{"table_name": "wire_c", "rows": [{"type": "PUT", "condition": "IGNORE", "return_type": "RT_PK"},
										{"type": "DELETE", "condition": "EXPECT_EXIST"}]},
	  {"table_name": "no_such_table", "rows": [{"type": "UPDATE", "condition": "IGNORE"}]}]',
	ARRAY[:'whole_row', :'key_row', :'whole_row']::bytea[]);
-- what batch_write_row says of the same rows as jsonb
SELECT table_name, index, is_ok, error_code, error_message, primary_key, consumed
  FROM ots.batch_write_row(
	'[{"table_name": "wire_c", "rows": [{"type": "PUT", "primary_key": {"id": 1, "k": "a"}, "attributes": {},
										 "condition": "IGNORE", "return_type": "RT_PK"},
										{"type": "DELETE", "primary_key": {"id": 2, "k": "b"}, "condition": "EXPECT_EXIST"}]},
	  {"table_name": "no_such_table", "rows": [{"type": "UPDATE", "primary_key": {"id": 1, "k": "a"},
												"put": {"s": "x"}, "condition": "IGNORE"}]}]');
-- the RT_PK row, decoded
SELECT x.* FROM ots.wire_batch_write_row('[{"table_name": "wire_c", "rows": [{"type": "PUT", "return_type": "RT_PK"}]}]',
										 ARRAY[:'whole_row']::bytea[]) w, pb_cells(w."row") x;
-- the rows' bytes must match the request's rows; a bad row refuses the whole batch
SELECT * FROM ots.wire_batch_write_row('[{"table_name": "wire_c", "rows": [{"type": "PUT"}]}]', '{}');
SELECT * FROM ots.wire_batch_write_row('[{"table_name": "wire_c", "rows": [{"type": "PUT"}]}]',
									   ARRAY[:'whole_row', :'whole_row']::bytea[]);
SELECT * FROM ots.wire_batch_write_row('[{"table_name": "wire_c", "rows": [{"type": "PUT"}, {"type": "PUT"}]}]',
									   ARRAY[:'key_row', '\x75000000']::bytea[]);
SELECT * FROM ots.wire_batch_write_row('[{"table_name": "wire_c", "rows": [{"type": "PUT"}]}]', NULL);
-- more rows than a batch may have: refused before any is read
SELECT * FROM ots.wire_batch_write_row('[{"table_name": "wire_c", "rows": [{"type": "PUT"}]}]',
									   array_fill('\x00'::bytea, ARRAY[201]));
-- a type in any case, as batch_write_row reads it: the row's cells are written
SELECT consumed FROM ots.delete_row('wire_c', '{"id": 1, "k": "a"}');
SELECT is_ok, write_cu FROM ots.wire_batch_write_row('[{"table_name": "wire_c", "rows": [{"type": "put"}]}]',
													 ARRAY[:'whole_row']::bytea[]);
SELECT (SELECT attributes FROM ots.get_row('wire_c', '{"id": 1, "k": "a"}', max_versions => 3,
										   with_timestamps => true)) =
	   (SELECT attributes FROM ots.get_row('wire_t', '{"id": 1, "k": "a"}', max_versions => 3,
										   with_timestamps => true)) AS same_row;
SELECT ots.delete_table('wire_c');
SELECT ots.delete_table('wire_t');
