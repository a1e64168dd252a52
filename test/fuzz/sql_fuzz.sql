-- test/fuzz/sql_fuzz.sql: tables and runner of test/fuzz/sql_fuzz.sh.
--
-- fuzz_input holds the generated inputs (sql_fuzz_gen.pl); fuzz_chunk(lo, hi)
-- feeds each to its target and records in fuzz_result either 'OK' or the
-- SQLSTATE and message of the error it raised. 'FZ001' marks an accepted
-- ots.cells text whose text form does not read back to the same value,
-- 'FZ002' an accepted request with a field its shape does not know.
CREATE EXTENSION ots;
CREATE EXTENSION amcheck;

SELECT ots.create_table('fz_s', 'id string', stream_enabled => true);
SELECT ots.create_table('fz_i', 'a integer, b string', max_versions => 2);
SELECT ots.create_table('fz_b', 'k binary, n integer auto_increment', partitions => 2);
SELECT ots.create_table('fz_h', 'p string, q integer', hash_prefix_length => 2, partitions => 4);
SELECT ots.create_table('fz_v', 'id string, seq integer', max_versions => 3, time_to_live => 86400,
						stream_enabled => true);
-- a search index on fz_s, whose writes keep it (every write target's values reach its fields)
-- and which the search target searches
SELECT ots.create_search_index('fz_s', 'fx', '{"field_schemas": [
	{"field_name": "a", "field_type": "TEXT"}, {"field_name": "b", "field_type": "KEYWORD"},
	{"field_name": "c", "field_type": "LONG"}, {"field_name": "price", "field_type": "DOUBLE"},
	{"field_name": "status", "field_type": "KEYWORD", "is_array": true}, {"field_name": "location", "field_type": "GEO_POINT"},
	{"field_name": "value", "field_type": "DATE", "date_formats": ["epoch_millis", "yyyy-MM-dd"]},
	{"field_name": "col_1", "field_type": "NESTED", "field_schemas": [{"field_name": "k", "field_type": "KEYWORD"}]},
	{"field_name": "Z9", "field_type": "BOOLEAN"}, {"field_name": "id", "field_type": "KEYWORD"}]}');

CREATE FUNCTION fuzz_seed_key(tbl text, i int) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE tbl
		WHEN 'fz_s' THEN jsonb_build_object('id', 'k' || i)
		WHEN 'fz_i' THEN jsonb_build_object('a', i, 'b', 'k' || i)
		WHEN 'fz_h' THEN jsonb_build_object('p', 'k' || i, 'q', i)
		ELSE jsonb_build_object('id', 'k' || i, 'seq', i) END
$$;

-- seeds of the wire_row target: rows 0..4 of every table, with cells of every type, which
-- ots.wire_get_range returns as PlainBuffer (fz_b generates its second key column)
SELECT ots.put_row(t, CASE t WHEN 'fz_b' THEN jsonb_build_object('k', jsonb_build_object('$binary', encode(int4send(i), 'base64')),
																 'n', jsonb_build_object('$auto_increment', true))
							ELSE fuzz_seed_key(t, i) END,
				   jsonb_build_object('s', repeat('é', i), 'i', i - 2, 'd', i * 0.5, 'b', i % 2 = 0,
									  'x', jsonb_build_object('$binary', encode(int4send(i), 'base64'))))
  FROM unnest(ARRAY['fz_s', 'fz_i', 'fz_b', 'fz_h', 'fz_v']) t, generate_series(0, 4) i;

CREATE TABLE fuzz_input (id bigserial PRIMARY KEY, kind text NOT NULL, tbl text NOT NULL, input text NOT NULL);
CREATE TABLE fuzz_result (id bigint PRIMARY KEY, sqlstate text NOT NULL, message text);

-- fuzz_key: a valid primary key of table tbl, number i of 20
CREATE FUNCTION fuzz_key(tbl text, i int) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE tbl
		WHEN 'fz_s' THEN jsonb_build_object('id', 'k' || i)
		WHEN 'fz_i' THEN jsonb_build_object('a', i, 'b', 'k' || i)
		WHEN 'fz_b' THEN jsonb_build_object('k', jsonb_build_object('$binary', encode(int4send(i), 'base64')), 'n', i)
		WHEN 'fz_h' THEN jsonb_build_object('p', 'k' || i, 'q', i)
		ELSE jsonb_build_object('id', 'k' || i, 'seq', i) END
$$;

-- fuzz_bound: the whole-table range bound ({"$inf": "min"|"max"} for every key column)
CREATE FUNCTION fuzz_bound(tbl text, side text) RETURNS jsonb LANGUAGE sql STABLE AS $$
	SELECT jsonb_object_agg(c->>'name', jsonb_build_object('$inf', side))
	FROM jsonb_array_elements(ots.describe_table(tbl)->'primary_key') c
$$;

-- fuzz_unknown_field: the first field of a batch request (its entries and
-- rows) or of a time range that ots does not know, NULL when there is none:
-- what the shapes of docs/reference.md allow, an oracle written apart from
-- ots's own lists (src/api/batch_request.c, src/api/read_select.c)
CREATE FUNCTION fuzz_unknown_field(kind text, doc jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT min(f) FROM (
		SELECT k AS f FROM jsonb_array_elements(CASE WHEN kind IN ('batch_write', 'batch_get')
														AND jsonb_typeof(doc) = 'array' THEN doc END) e,
						   jsonb_object_keys(CASE WHEN jsonb_typeof(e) = 'object' THEN e END) k
		 WHERE k <> ALL (CASE kind WHEN 'batch_write' THEN ARRAY['table_name', 'rows']
							  ELSE ARRAY['table_name', 'primary_keys', 'columns_to_get', 'max_versions', 'time_range',
										 'filter', 'with_timestamps', 'start_column', 'end_column'] END)
		UNION ALL
		SELECT k FROM jsonb_array_elements(CASE WHEN kind = 'batch_write' AND jsonb_typeof(doc) = 'array' THEN doc END) e,
					  jsonb_array_elements(CASE WHEN jsonb_typeof(e->'rows') = 'array' THEN e->'rows' END) r,
					  jsonb_object_keys(CASE WHEN jsonb_typeof(r) = 'object' THEN r END) k
		 WHERE k <> ALL (ARRAY['type', 'primary_key', 'condition', 'column_condition', 'return_type']
						 || CASE upper(r->>'type') WHEN 'PUT' THEN ARRAY['attributes']
							WHEN 'UPDATE' THEN ARRAY['put', 'delete', 'delete_all', 'increment', 'return_columns']
							ELSE '{}' END)
		UNION ALL
		SELECT k FROM jsonb_object_keys(CASE WHEN kind = 'time_range' AND jsonb_typeof(doc) = 'object' THEN doc END) k
		 WHERE k <> ALL (ARRAY['start_time', 'end_time', 'specific_time'])) s
$$;

-- fuzz_one: feeds one input to its target; raises whatever the target raises
CREATE FUNCTION fuzz_one(id bigint, kind text, tbl text, input text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	key jsonb := fuzz_key(tbl, (id % 20)::int);
	doc jsonb;
	c ots.cells;
	seed bytea;
	other bytea;
	m jsonb;
BEGIN
	IF kind = 'cells_text' THEN
		c := input::ots.cells;
		IF ots.cells_send(c::text::ots.cells) IS DISTINCT FROM ots.cells_send(c) THEN
			RAISE EXCEPTION 'text round trip differs: %', c::text USING ERRCODE = 'FZ001';
		END IF;
		RETURN;
	END IF;
	IF kind = 'stream_read' THEN
		-- an iterator of the table's stream (or of none), read with limits valid and not
		input := replace(input, '@SID@', coalesce((SELECT stream_id FROM ots.list_stream(tbl)), 'none'));
		IF id % 3 = 0 THEN
			input := ots.get_shard_iterator(split_part(input, ':', 1), split_part(input, ':', 2),
											CASE WHEN split_part(input, ':', 3) ~ '^-?[0-9]{1,18}$'
												 THEN split_part(input, ':', 3)::bigint END);
		END IF;
		PERFORM ots.get_stream_record(input, CASE WHEN id % 5 = 0 THEN NULL ELSE (id % 12)::int * 100 - 100 END);
		RETURN;
	END IF;
	doc := input::jsonb;
	IF kind = 'wire_row' THEN
		-- a stored row as ots.wire_get_range returns it (the next one's when it
		-- is gone, or just a header), its bytes damaged as the input says,
		-- through a wire write
		SELECT w."rows" INTO seed
		  FROM ots.wire_get_range(tbl, fuzz_key(tbl, (doc->>'k')::int % 5), fuzz_bound(tbl, 'max'), "limit" => 1) w;
		seed := coalesce(nullif(seed, ''), '\x75000000'::bytea);
		FOR m IN SELECT e FROM jsonb_array_elements(doc->'m') e LOOP
			seed := set_byte(seed, (m->>0)::int % length(seed), (m->>1)::int % 256);
		END LOOP;
		IF doc ? 'cut' THEN
			seed := substr(seed, 1, (doc->>'cut')::int);
		END IF;
		CASE doc->>'op'
		WHEN 'put' THEN
			PERFORM ots.wire_put_row(tbl, seed, doc->>'cond', NULL, doc->>'rt');
		WHEN 'update' THEN
			PERFORM ots.wire_update_row(tbl, seed, doc->>'cond', NULL, doc->>'rt',
										CASE WHEN doc->>'rt' = 'RT_AFTER_MODIFY' THEN '{s, i}'::text[] END);
		WHEN 'delete' THEN
			PERFORM ots.wire_delete_row(tbl, seed, doc->>'cond', NULL, doc->>'rt');
		ELSE
			-- with the next seed row, undamaged: two keys, so the bulk way too;
			-- a row's internal error is its result, so it is looked for there
			SELECT w."rows" INTO other
			  FROM ots.wire_get_range(tbl, fuzz_key(tbl, ((doc->>'k')::int + 1) % 5), fuzz_bound(tbl, 'max'), "limit" => 1) w;
			IF EXISTS (SELECT FROM ots.wire_batch_write_row(
							jsonb_build_array(jsonb_build_object('table_name', tbl, 'rows',
								jsonb_build_array(jsonb_build_object('type', upper(coalesce(doc->>'type', 'PUT')), 'condition', 'IGNORE'),
												  jsonb_build_object('type', 'PUT', 'condition', 'IGNORE')))),
							ARRAY[seed, coalesce(nullif(other, ''), seed)], doc->>'atomic' = 'true') b
						WHERE b.error_code = 'OTSInternalServerError') THEN
				RAISE EXCEPTION 'a batch row failed with OTSInternalServerError' USING ERRCODE = 'OT011';
			END IF;
		END CASE;
		RETURN;
	END IF;
	IF kind = 'analyze' THEN
		-- tokens are never empty and their positions count from 0 without a gap
		-- (fuzzy's runs from one character share a position)
		IF EXISTS (SELECT FROM (SELECT token, "position", dense_rank() OVER (ORDER BY "position") - 1 AS n
								  FROM ots.search_analyze(doc->>'t', doc->>'a', doc->'p')) t
					WHERE t.token = '' OR t."position" <> t.n) THEN
			RAISE EXCEPTION 'an empty token or a gap in positions' USING ERRCODE = 'FZ003';
		END IF;
		-- case-sensitive split and fuzzy against models in SQL: string_to_table's
		-- pieces, and every substring of the first 1,024 characters
		IF jsonb_typeof(doc->'p') = 'object' AND doc->'p'->'case_sensitive' = 'true' AND
		   ((doc->>'a' = 'split' AND jsonb_typeof(doc->'p'->'delimiter') = 'string' AND
			 ARRAY(SELECT token FROM ots.search_analyze(doc->>'t', 'split', doc->'p') ORDER BY "position")
			 IS DISTINCT FROM
			 ARRAY(SELECT x FROM string_to_table(doc->>'t', doc->'p'->>'delimiter') WITH ORDINALITY AS p(x, i)
					WHERE x <> '' ORDER BY i)) OR
			(doc->>'a' = 'fuzzy' AND
			 ARRAY(SELECT token || '@' || "position" FROM ots.search_analyze(doc->>'t', 'fuzzy', doc->'p')
					ORDER BY "position", char_length(token))
			 IS DISTINCT FROM
			 ARRAY(SELECT substr(t1, s, l) || '@' || (s - 1)
					 FROM left(doc->>'t', 1024) t1,
						  generate_series(1, length(t1)) s,
						  generate_series(coalesce((doc->'p'->>'min_chars')::int, 1),
										  coalesce((doc->'p'->>'max_chars')::int, 7)) l
					WHERE s + l - 1 <= length(t1) ORDER BY s, l))) THEN
			RAISE EXCEPTION 'tokens differ from the model' USING ERRCODE = 'FZ004';
		END IF;
		RETURN;
	END IF;
	CASE kind
	WHEN 'put_pk' THEN
		PERFORM ots.put_row(tbl, doc, '{"a": 1}', return_type => CASE WHEN id % 3 = 0 THEN 'RT_PK' ELSE 'RT_NONE' END);
	WHEN 'delete_pk' THEN
		PERFORM ots.delete_row(tbl, doc);
	WHEN 'put_attrs' THEN
		PERFORM ots.put_row(tbl, key, doc);
	WHEN 'put_cond' THEN
		PERFORM ots.put_row(tbl, key, '{"a": 1, "b": "x"}',
							condition => CASE WHEN id % 2 = 0 THEN 'IGNORE' ELSE 'EXPECT_EXIST' END,
							column_condition => doc);
	WHEN 'update_ops' THEN
		PERFORM ots.update_row(tbl, key, put => doc->'put', "delete" => doc->'delete',
							   delete_all => CASE WHEN jsonb_typeof(doc->'delete_all') = 'array' THEN
								   ARRAY(SELECT jsonb_array_elements_text(doc->'delete_all')) END,
							   increment => doc->'increment',
							   return_type => CASE WHEN id % 2 = 0 THEN 'RT_AFTER_MODIFY' ELSE 'RT_NONE' END);
	WHEN 'update_cond' THEN
		PERFORM ots.update_row(tbl, key, put => '{"a": 2}', increment => '{"c": 1}', column_condition => doc);
	WHEN 'get_filter' THEN
		PERFORM ots.get_row(tbl, key, filter => doc,
							max_versions => CASE WHEN id % 3 = 0 THEN 2 END,
							columns_to_get => CASE WHEN id % 4 = 0 THEN ARRAY['a', 'c', 'price'] END);
	WHEN 'range_filter' THEN
		PERFORM ots.get_range(tbl, fuzz_bound(tbl, 'min'), fuzz_bound(tbl, 'max'), filter => doc,
							  "limit" => CASE WHEN id % 2 = 0 THEN 3 END,
							  with_timestamps => id % 3 = 0);
	WHEN 'range_bounds' THEN
		IF id % 2 = 0 THEN
			PERFORM ots.get_range(tbl, doc->0, doc->1,
								  direction => CASE WHEN id % 4 = 0 THEN 'BACKWARD' ELSE 'FORWARD' END,
								  "limit" => CASE WHEN id % 3 = 0 THEN 2 END);
		ELSE
			PERFORM count(*) FROM ots.get_range_rows(tbl, doc->0, doc->1,
								  direction => CASE WHEN id % 4 = 1 THEN 'BACKWARD' ELSE 'FORWARD' END);
		END IF;
	WHEN 'time_range' THEN
		IF id % 2 = 0 THEN
			PERFORM ots.get_row(tbl, key, time_range => doc);
		ELSE
			PERFORM ots.get_range(tbl, fuzz_bound(tbl, 'min'), fuzz_bound(tbl, 'max'), time_range => doc);
		END IF;
	-- a batch reports a row's error as that row's result: an internal one is looked for there
	WHEN 'batch_write' THEN
		IF EXISTS (SELECT FROM ots.batch_write_row(doc, is_atomic => id % 5 = 0) b
					WHERE b.error_code = 'OTSInternalServerError') THEN
			RAISE EXCEPTION 'a batch row failed with OTSInternalServerError' USING ERRCODE = 'OT011';
		END IF;
	WHEN 'search' THEN
		PERFORM ots.search('fz_s', 'fx', doc, CASE WHEN id % 3 = 0 THEN '{"return_type": "RETURN_ALL"}'::jsonb END);
	WHEN 'batch_get' THEN
		IF EXISTS (SELECT FROM ots.batch_get_row(doc) b WHERE b.error_code = 'OTSInternalServerError') THEN
			RAISE EXCEPTION 'a batch row failed with OTSInternalServerError' USING ERRCODE = 'OT011';
		END IF;
	END CASE;
	-- an accepted request has no field its shape does not know (a batch row
	-- with one used to be written as if the field were not there)
	IF fuzz_unknown_field(kind, doc) IS NOT NULL THEN
		RAISE EXCEPTION 'accepted the unknown field %', fuzz_unknown_field(kind, doc) USING ERRCODE = 'FZ002';
	END IF;
END
$$;

-- fuzz_chunk: runs inputs lo..hi, each in its own subtransaction
CREATE FUNCTION fuzz_chunk(lo bigint, hi bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	r record;
	state text;
	msg text;
BEGIN
	FOR r IN SELECT * FROM fuzz_input WHERE id BETWEEN lo AND hi ORDER BY id LOOP
		BEGIN
			PERFORM fuzz_one(r.id, r.kind, r.tbl, r.input);
			state := 'OK';
			msg := NULL;
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
		END;
		INSERT INTO fuzz_result VALUES (r.id, state, left(msg, 300))
			ON CONFLICT (id) DO UPDATE SET sqlstate = excluded.sqlstate, message = excluded.message;
	END LOOP;
END
$$;

-- fuzz_expected: whether a bad input may legitimately raise this error
CREATE FUNCTION fuzz_expected(state text, message text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT state = 'OK'
		-- the jsonb parser on a number like 1e999999 (ots's own range errors are OTS errors)
		OR (state = '22003' AND message = 'value overflows numeric format')
		OR (state LIKE 'OT%' AND state <> 'OT011')  -- OTS errors, except OTSInternalServerError
		OR state IN ('22P02',   -- invalid_text_representation (jsonb and ots.cells syntax)
					 '22023',   -- invalid_parameter_value
					 '22P05',   -- untranslatable_character (\u0000 in jsonb)
					 '54000',   -- program_limit_exceeded
					 '54001')   -- statement_too_complex (nesting depth)
$$;
