-- Search indexes (src/search/, src/sql/70_search.sql): the schema read and
-- checked with Tablestore's rules, the lifecycle (create, describe, list,
-- update, delete), and the storage every write keeps exact in the writing
-- transaction, compared with a model: the same rows' values read with
-- plain SQL from the table's view.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;

\i test/search_err.sql
-- listing the search indexes of a missing table is an error, whatever indexes exist
SELECT pg_temp.err($$SELECT * FROM ots.list_search_index('no_such_table')$$);

SELECT ots.create_table('shop', 'id string', max_versions => 1);
SELECT ots.put_row('shop', '{"id": "a"}', '{"name": "Tea House", "city": "hz", "stars": 4, "price": 12.5, "open": true, "tags": "[\"tea\", \"cake\"]", "at": "2024-05-06 10:00:00", "loc": "30.25,120.16", "menu": "[{\"dish\": \"tea\", \"cost\": 3}]"}');
SELECT ots.put_row('shop', '{"id": "b"}', '{"name": "Noodle Bar", "city": "sh", "stars": 5, "price": 30.0, "open": false, "tags": "[\"noodle\"]", "at": 1715000000000, "loc": "31.23,121.47"}');
SELECT ots.put_row('shop', '{"id": "c"}', '{"name": 7, "stars": "five", "price": 1, "loc": "91,0", "tags": "not json", "at": "2024-5-6 10:00:00"}');

SELECT ots.create_search_index('shop', 'idx', '{"field_schemas": [
	{"field_name": "name", "field_type": "TEXT"},
	{"field_name": "city", "field_type": "KEYWORD", "enable_sort_and_agg": true},
	{"field_name": "stars", "field_type": "LONG"},
	{"field_name": "price", "field_type": "DOUBLE"},
	{"field_name": "open", "field_type": "BOOLEAN"},
	{"field_name": "tags", "field_type": "KEYWORD", "is_array": true},
	{"field_name": "at", "field_type": "DATE", "date_formats": ["yyyy-MM-dd HH:mm:ss", "epoch_millis"]},
	{"field_name": "loc", "field_type": "GEO_POINT"},
	{"field_name": "menu", "field_type": "NESTED", "field_schemas": [
		{"field_name": "dish", "field_type": "KEYWORD"}, {"field_name": "cost", "field_type": "LONG"}]}]}');

-- the backfill: every row, each field or null where the row lacks it or holds another type
-- (a TEXT field's positions null where they are 0, 1, 2, ...), and the entry's times:
-- the row's newest, the oldest of its fields' cells', and no others where they are alike
-- (each row here written at once)
SELECT id, name, "name$pos", city, stars, price, open, tags, at, loc, menu,
	   "$row_ts" = "$fields_ts" AS row_ts_newest, "$ts" IS NULL AS times_alike,
	   "$fields_ts" IS NULL AS no_field
  FROM public."shop$search$idx" ORDER BY id;
SELECT ots.describe_search_index('shop', 'idx') #- '{sync_stat,current_sync_timestamp}' #- '{create_time}' #- '{metering_info}';
SELECT * FROM ots.list_search_index('shop');
SELECT ots.describe_table('shop') -> 'search_indexes';

-- writes keep it: put, update, delete, rollback, plain SQL on the storage
SELECT ots.put_row('shop', '{"id": "d"}', '{"name": "Dumpling King", "stars": 3}');
SELECT consumed FROM ots.update_row('shop', '{"id": "a"}', put => '{"stars": 2}', delete_all => ARRAY['city']);
SELECT ots.delete_row('shop', '{"id": "b"}');
BEGIN;
SELECT ots.put_row('shop', '{"id": "e"}', '{"name": "rolled back"}');
ROLLBACK;
SELECT id, name, city, stars FROM public."shop$search$idx" ORDER BY id;
-- a's stars now younger than its other fields: each field's time is kept
-- (none for city, deleted), the oldest is the fields' oldest, the newest the row's
SELECT id, "$ts" IS NULL AS times_alike, array_positions("$ts", NULL) AS no_cell,
	   "$fields_ts" = (SELECT min(ts) FROM unnest("$ts") ts) AS fields_ts_oldest,
	   "$row_ts" = (SELECT max(ts) FROM unnest("$ts") ts) AS row_ts_newest,
	   "$ts"[3] > "$fields_ts" AS stars_younger
  FROM public."shop$search$idx" ORDER BY id;
DELETE FROM public."shop$data" WHERE id = 'c';
SELECT id, name, city, stars FROM public."shop$search$idx" ORDER BY id;

-- The model: what each field of the index holds for a row, computed with
-- plain SQL from the table's view (its attributes as jsonb), as text.
CREATE FUNCTION pg_temp.as_jsonb(s text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	RETURN s::jsonb;
EXCEPTION WHEN OTHERS THEN
	RETURN NULL;
END $$;
CREATE FUNCTION pg_temp.as_ns(s text) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	IF s !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$' OR s < '1970' THEN
		RETURN NULL;
	END IF;
	RETURN extract(epoch FROM s::timestamp)::bigint * 1000000000;
EXCEPTION WHEN OTHERS THEN
	RETURN NULL;
END $$;
CREATE FUNCTION pg_temp.model(a jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
	SELECT ARRAY[
		-- name: TEXT (single_word), its tokens and positions
		CASE WHEN jsonb_typeof(a->'name') = 'string'
			 THEN (SELECT coalesce(array_agg(token ORDER BY position), '{}')::text FROM ots.search_analyze(a->>'name')) END,
		CASE WHEN jsonb_typeof(a->'name') = 'string'
			 THEN (SELECT CASE WHEN bool_and(position = n - 1) IS NOT FALSE THEN NULL
							   ELSE array_agg(position ORDER BY position)::text END
					 FROM (SELECT position, row_number() OVER (ORDER BY position) n FROM ots.search_analyze(a->>'name')) x) END,
		-- city: KEYWORD
		CASE WHEN jsonb_typeof(a->'city') = 'string' AND octet_length(a->>'city') <= 4096 THEN a->>'city' END,
		-- stars: LONG (an Integer cell: a JSON number without a point)
		CASE WHEN jsonb_typeof(a->'stars') = 'number' AND a->>'stars' ~ '^-?[0-9]+$' THEN a->>'stars' END,
		-- price: DOUBLE
		CASE WHEN jsonb_typeof(a->'price') = 'number' AND a->>'price' !~ '^-?[0-9]+$'
			 THEN (a->>'price')::float8::text END,
		-- open: BOOLEAN
		CASE WHEN jsonb_typeof(a->'open') = 'boolean' THEN (a->>'open')::boolean::text END,
		-- tags: KEYWORD, is_array: a JSON array of strings
		CASE WHEN jsonb_typeof(a->'tags') = 'string' AND jsonb_typeof(pg_temp.as_jsonb(a->>'tags')) = 'array'
				  AND jsonb_array_length(pg_temp.as_jsonb(a->>'tags')) <= 256
				  AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(pg_temp.as_jsonb(a->>'tags')) e WHERE jsonb_typeof(e) <> 'string')
			 THEN (SELECT coalesce(array_agg(e ORDER BY n), '{}')::text
					 FROM jsonb_array_elements_text(pg_temp.as_jsonb(a->>'tags')) WITH ORDINALITY AS x(e, n)) END,
		-- at: DATE, "yyyy-MM-dd HH:mm:ss" or epoch_millis
		CASE WHEN jsonb_typeof(a->'at') = 'string' THEN pg_temp.as_ns(a->>'at')::text
			 WHEN jsonb_typeof(a->'at') = 'number' AND a->>'at' ~ '^[0-9]+$' AND (a->>'at')::numeric < 9223372036854
			 THEN ((a->>'at')::bigint * 1000000)::text END,
		-- loc: GEO_POINT "lat,lon", kept as (lon,lat)
		CASE WHEN jsonb_typeof(a->'loc') = 'string' AND a->>'loc' ~ '^-?[0-9.]+,-?[0-9.]+$'
				  AND abs(split_part(a->>'loc', ',', 1)::float8) <= 90 AND abs(split_part(a->>'loc', ',', 2)::float8) <= 180
			 THEN point(split_part(a->>'loc', ',', 2)::float8, split_part(a->>'loc', ',', 1)::float8)::text END,
		-- menu: NESTED, a JSON array of objects
		CASE WHEN jsonb_typeof(a->'menu') = 'string' AND jsonb_typeof(pg_temp.as_jsonb(a->>'menu')) = 'array'
				  AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(pg_temp.as_jsonb(a->>'menu')) e WHERE jsonb_typeof(e) <> 'object')
			 THEN pg_temp.as_jsonb(a->>'menu')::text END]
$$;
CREATE FUNCTION pg_temp.stored(s public."shop$search$idx") RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
	SELECT ARRAY[s.name::text, s."name$pos"::text, s.city, s.stars::text, s.price::text, s.open::text,
				 s.tags::text, s.at::text, s.loc::text, s.menu::text]
$$;
-- the rows where the index and the model differ (none)
CREATE FUNCTION pg_temp.differences() RETURNS TABLE (id text, in_index text[], in_model text[]) LANGUAGE sql AS $$
	SELECT coalesce(s.id, v.id), pg_temp.stored(s), pg_temp.model(v.attributes)
	  FROM public."shop$search$idx" s FULL JOIN public.shop v ON v.id = s.id
	 WHERE s.id IS NULL OR v.id IS NULL OR pg_temp.stored(s) IS DISTINCT FROM pg_temp.model(v.attributes)
$$;
SELECT * FROM pg_temp.differences();

-- random writes by every path: each field absent, of its type or of
-- another, and the index against the model after each round
CREATE FUNCTION pg_temp.random_value(field text) RETURNS jsonb LANGUAGE sql VOLATILE AS $$
	SELECT CASE floor(random() * 9)::int
		WHEN 0 THEN NULL
		WHEN 1 THEN to_jsonb(floor(random() * 100)::int)
		WHEN 2 THEN to_jsonb(round((random() * 100)::numeric, 2) + 0.5)
		WHEN 3 THEN to_jsonb(random() < 0.5)
		WHEN 4 THEN to_jsonb((ARRAY['Tea House', 'noodle bar 7', '北京烤鸭', 'a', ''])[1 + floor(random() * 5)::int])
		WHEN 5 THEN to_jsonb((ARRAY['["x", "y"]', '[1, 2]', '[]', '[{"dish": "d"}]', '{"a": 1}', '[', 'null'])[1 + floor(random() * 7)::int])
		WHEN 6 THEN to_jsonb((ARRAY['30.5,120.1', '-90,180', '90.5,0', '1,2,3', 'x,y'])[1 + floor(random() * 5)::int])
		WHEN 7 THEN to_jsonb((ARRAY['2024-02-29 23:59:59', '2023-02-29 10:00:00', '1969-12-31 23:59:59', '2024-1-1 00:00:00'])[1 + floor(random() * 4)::int])
		ELSE to_jsonb((ARRAY[0, 1715000000000, 9999999999999999])[1 + floor(random() * 3)::int]) END
$$;
CREATE FUNCTION pg_temp.random_row() RETURNS jsonb LANGUAGE sql VOLATILE AS $$
	SELECT coalesce(jsonb_object_agg(f, v) FILTER (WHERE v IS NOT NULL), '{}')
	  FROM (SELECT f, pg_temp.random_value(f) AS v
			  FROM unnest(ARRAY['name', 'city', 'stars', 'price', 'open', 'tags', 'at', 'loc', 'menu', 'other']) f) x
$$;
CREATE TEMP TABLE rounds (round int, table_rows bigint, differences bigint);
SELECT setseed(0.35);
DO $$
DECLARE
	k text;
BEGIN
	FOR round IN 1 .. 6 LOOP
		FOR i IN 1 .. 40 LOOP
			k := 'r' || floor(random() * 30)::int;
			CASE floor(random() * 6)::int
				WHEN 0 THEN
					PERFORM ots.put_row('shop', jsonb_build_object('id', k), pg_temp.random_row());
				WHEN 1 THEN
					PERFORM ots.update_row('shop', jsonb_build_object('id', k), put => pg_temp.random_row(),
										   delete_all => ARRAY['city', 'tags']);
				WHEN 2 THEN
					PERFORM ots.delete_row('shop', jsonb_build_object('id', k));
				WHEN 3 THEN
					PERFORM * FROM ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'shop', 'rows',
						jsonb_build_array(jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('id', k),
															 'attributes', pg_temp.random_row()),
										  jsonb_build_object('type', 'DELETE', 'primary_key',
															 jsonb_build_object('id', 'r' || floor(random() * 30)::int))))));
				WHEN 4 THEN
					INSERT INTO public.shop (id, attributes) VALUES (k, pg_temp.random_row())
						ON CONFLICT DO NOTHING;
				ELSE
					UPDATE public.shop SET attributes = pg_temp.random_row() WHERE id = k;
			END CASE;
		END LOOP;
		INSERT INTO rounds SELECT round, (SELECT count(*) FROM public.shop), (SELECT count(*) FROM pg_temp.differences());
	END LOOP;
END $$;
SELECT * FROM rounds ORDER BY round;
SELECT * FROM pg_temp.differences();

-- refusals: the table's options, the schema, names, TTLs
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'idx', '{"field_schemas": [{"field_name": "city", "field_type": "KEYWORD"}]}')$$);
SELECT pg_temp.err($$SELECT ots.update_table('shop', max_versions => 2)$$);
SELECT pg_temp.err($$SELECT ots.update_table('shop', time_to_live => 86400)$$);
SELECT pg_temp.err($$SELECT ots.delete_table('shop')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "VECTOR"}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "VECTOR", "vector_options": {"data_type": "FLOAT_32", "dimension": 0, "metric_type": "COSINE"}}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "VECTOR", "vector_options": {"data_type": "FLOAT_64", "dimension": 4, "metric_type": "COSINE"}}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "VECTOR", "is_array": true, "vector_options": {"data_type": "FLOAT_32", "dimension": 4, "metric_type": "COSINE"}}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "LONG", "vector_options": {"dimension": 4}}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "TEXT", "enable_sort_and_agg": true}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "DATE"}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "DATE", "date_formats": ["yyyy-MM-dd hh"]}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "KEYWORD"}, {"field_name": "v", "field_type": "LONG"}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "KEYWORD", "analyzer": "split"}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "NESTED"}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "LONG", "colour": 1}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "LONG"}], "index_setting": {"routing_fields": ["v"]}}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "LONG"}], "index_sort": [{"field_sort": {"field_name": "w"}}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "LONG"}]}', time_to_live => 100)$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "LONG"}]}', time_to_live => 86400)$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "xmin", "field_type": "LONG"}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "id", "field_type": "TEXT"}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "LONG"}], "index_setting": {"number_of_shards": 1e20}}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'x', '{"field_schemas": [{"field_name": "v", "field_type": "DATE", "date_formats": ["yyyyyyyyyyyyyyyyyyyy"]}]}')$$);
-- a name as long as a table's may be (its storage's name is cut), a longer one is refused
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', repeat('x', 300), '{"field_schemas": [{"field_name": "v", "field_type": "LONG"}]}')$$);
SELECT pg_temp.err($$SELECT ots.catalog_set_search_index_ttl('public', 'shop', 'idx', 5)$$);
SELECT pg_temp.err($$SELECT ots.update_search_index('shop', 'nope', 86400)$$);
SELECT pg_temp.err($$SELECT ots.describe_search_index('shop', 'nope')$$);

-- wide rows: a row past 4 KB is split into chunks; its entry is made from
-- all its cells, whether the write is ots's or plain SQL's, and the backfill
-- reads them too
SELECT ots.put_row('shop', '{"id": "w"}', jsonb_build_object('name', 'wide ' || repeat('y', 5000), 'pad', repeat('p', 3000), 'city', 'far'));
SELECT consumed FROM ots.update_row('shop', '{"id": "w"}', put => '{"stars": 9}');
SELECT id, name[1] AS first_token, city, stars FROM public."shop$search$idx" WHERE id = 'w';
UPDATE public.shop SET attributes = attributes || '{"stars": 10}' WHERE id = 'w';
SELECT id, name[1] AS first_token, city, stars FROM public."shop$search$idx" WHERE id = 'w';
SELECT * FROM pg_temp.differences();

-- an index of more fields than a write of a split row loads by name (256):
-- the write loads the whole row
SELECT ots.create_table('many_fields', 'id string', max_versions => 1);
SELECT ots.create_search_index('many_fields', 'all300', jsonb_build_object('field_schemas',
	(SELECT jsonb_agg(jsonb_build_object('field_name', 'f' || g, 'field_type', 'LONG')) FROM generate_series(1, 300) g)));
SELECT ots.put_row('many_fields', '{"id": "w"}',
	(SELECT jsonb_object_agg('f' || g, g) FROM generate_series(1, 300) g) || jsonb_build_object('pad', repeat('p', 5000)));
SELECT consumed FROM ots.update_row('many_fields', '{"id": "w"}', put => '{"f150": -150}');
SELECT f1, f150, f300 FROM public."many_fields$search$all300";
SELECT ots.delete_search_index('many_fields', 'all300'), ots.delete_table('many_fields');

-- a hash-prefixed table: the index is keyed by the table's key columns alone
SELECT ots.create_table('hp', 'p string, q integer', hash_prefix_length => 2, partitions => 4, max_versions => 1);
SELECT count(ots.put_row('hp', jsonb_build_object('p', 'k' || g, 'q', g), jsonb_build_object('c', 'c' || g % 3))) FROM generate_series(1, 20) g;
SELECT ots.create_search_index('hp', 'ix', '{"field_schemas": [{"field_name": "c", "field_type": "KEYWORD"}]}');
SELECT ots.delete_row('hp', '{"p": "k1", "q": 1}');
SELECT (ots.search('hp', 'ix', '{"query": {"term_query": {"field_name": "c", "term": "c1"}}, "get_total_count": true, "limit": 0}') ->> 'total_count')::int
	   = (SELECT count(*) FROM hp WHERE attributes ->> 'c' = 'c1') AS counts_alike;
SELECT ots.delete_search_index('hp', 'ix'), ots.delete_table('hp');

-- the storage runs nothing of its owner's as a writer: an index ots did not
-- make is damage, and no write goes on past it
CREATE FUNCTION public.owner_code(text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT lower($1)';
CREATE INDEX shop_owner_code ON public."shop$search$idx" (public.owner_code(city));
SELECT pg_temp.err($$SELECT ots.put_row('shop', '{"id": "x"}', '{"city": "Y"}')$$);
DROP INDEX public.shop_owner_code;
DROP FUNCTION public.owner_code(text);
SELECT ots.put_row('shop', '{"id": "x"}', '{"city": "Y"}');
SELECT id, city FROM public."shop$search$idx" WHERE id = 'x';

-- other roles: only the table's owner makes, changes or drops its search
-- indexes; a writer keeps them without any right on their storage
CREATE ROLE search_writer;
CREATE ROLE search_other;
GRANT INSERT, UPDATE, DELETE, SELECT ON public."shop$data" TO search_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.shop TO search_writer;
SET ROLE search_writer;
SELECT ots.put_row('shop', '{"id": "y"}', '{"city": "by the writer"}');
SELECT pg_temp.err($$SELECT count(*) FROM public."shop$search$idx"$$);
SELECT pg_temp.err($$SELECT ots.delete_search_index('shop', 'idx')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('shop', 'mine', '{"field_schemas": [{"field_name": "city", "field_type": "KEYWORD"}]}')$$);
SELECT pg_temp.err($$SELECT ots.catalog_delete_search_index('public', 'shop', 'idx')$$);
SELECT pg_temp.err($$SELECT ots.search_backfill('public', 'shop', 'shop$search$idx')$$);
SELECT pg_temp.err($$SELECT ots.catalog_set_search_index_flow('public', 'shop', 'idx', '[]')$$);
SELECT pg_temp.err($$SELECT ots.catalog_switch_search_index('public', 'shop', 'idx', 'idx_reindex')$$);
SELECT pg_temp.err($$SELECT ots.update_search_index('shop', 'idx', switch_index_name => 'idx_reindex')$$);
SELECT * FROM ots.list_search_index('shop');
RESET ROLE;
SET ROLE search_other;
SELECT count(*) AS seen_by_other FROM ots.search_indexes;
RESET ROLE;
SELECT id, city FROM public."shop$search$idx" WHERE id = 'y';

-- a table with a TTL takes search indexes only without updates, their TTL within the table's
SELECT ots.create_table('events', 'id string', max_versions => 1, time_to_live => 864000, allow_update => false);
SELECT pg_temp.err($$SELECT ots.create_search_index('events', 'forever', '{"field_schemas": [{"field_name": "k", "field_type": "KEYWORD"}]}')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('events', 'longer', '{"field_schemas": [{"field_name": "k", "field_type": "KEYWORD"}]}', time_to_live => 864001)$$);
SELECT ots.create_search_index('events', 'ev', '{"field_schemas": [{"field_name": "k", "field_type": "KEYWORD"}]}', time_to_live => 432000);
SELECT ots.describe_search_index('events', 'ev') -> 'time_to_live' AS ttl;
SELECT ots.update_search_index('events', 'ev', 864000);
SELECT ots.describe_search_index('events', 'ev') -> 'time_to_live' AS ttl;
SELECT pg_temp.err($$SELECT ots.update_table('events', time_to_live => 86400)$$);
SELECT pg_temp.err($$SELECT ots.update_table('events', allow_update => true)$$);
SELECT ots.update_search_index('events', 'ev', 86400);
SELECT ots.update_table('events', time_to_live => 86400);
SELECT ots.describe_search_index('events', 'ev') #- '{sync_stat,current_sync_timestamp}' #- '{create_time}' #- '{metering_info}';
SELECT ots.delete_search_index('events', 'ev');
SELECT ots.delete_table('events');

-- cells no JSON array takes leave their field empty, never fail the write
SELECT ots.put_row('shop', '{"id": "j1"}', '{"tags": "[1e1000000]", "menu": "[{\"a\": \"\\u0000\"}]", "city": "j"}');
SELECT ots.put_row('shop', '{"id": "j2"}', jsonb_build_object('tags', repeat('[', 5000) || repeat(']', 5000), 'menu', '[{"a": 1e-99999}]'));
SELECT id, tags, menu, city FROM public."shop$search$idx" WHERE id IN ('j1', 'j2') ORDER BY id;
SELECT * FROM pg_temp.differences() WHERE id NOT IN ('j1', 'j2');

-- indexes of the storage: a plain one its owner adds is kept too; one with
-- INCLUDE columns, or an exclusion constraint, is damage
CREATE INDEX shop_extra ON public."shop$search$idx" (stars);
SELECT ots.put_row('shop', '{"id": "x2"}', '{"stars": 7}');
SELECT count(*) FROM public."shop$search$idx" WHERE stars = 7;
DROP INDEX public.shop_extra;
CREATE INDEX shop_include ON public."shop$search$idx" (stars) INCLUDE (city);
SELECT pg_temp.err($$SELECT ots.put_row('shop', '{"id": "x3"}', '{"stars": 8}')$$);
DROP INDEX public.shop_include;

DROP FUNCTION pg_temp.differences();
DROP FUNCTION pg_temp.stored(public."shop$search$idx");
-- a primary-key column is a field: its values are the key's
SELECT ots.create_search_index('shop', 'by_id', '{"field_schemas": [{"field_name": "id", "field_type": "KEYWORD"}, {"field_name": "stars", "field_type": "LONG"}]}');
SELECT ots.search('shop', 'by_id', '{"query": {"prefix_query": {"field_name": "id", "prefix": "x"}}, "get_total_count": true}', '{"return_type": "RETURN_SPECIFIED", "column_names": ["stars"]}');
-- its storage dropped by hand: the index is forgotten, writes go on
DROP TABLE public."shop$search$by_id";
SELECT index_name FROM ots.list_search_index('shop');
SELECT ots.put_row('shop', '{"id": "x4"}', '{"stars": 1}');

-- OWNER TO on the storage takes the search indexes' storages along, one
-- whose name is cut too (the catalog names them)
SELECT ots.create_search_index('shop', 'an_index_name_long_enough_to_need_a_cut_storage_name', '{"field_schemas": [{"field_name": "stars", "field_type": "LONG"}]}');
CREATE ROLE search_heir;
ALTER TABLE public."shop$data" OWNER TO search_heir;
SELECT c.relname, c.relowner::regrole FROM pg_class c
 WHERE c.relname IN ('shop$data', 'shop$search$idx')
	OR c.relname IN (SELECT storage_name FROM ots.search_indexes WHERE index_name LIKE 'an_index%') ORDER BY 1;
SELECT ots.put_row('shop', '{"id": "x5"}', '{"stars": 2}');
ALTER TABLE public."shop$data" OWNER TO CURRENT_USER;
DROP ROLE search_heir;

-- a role without BYPASSRLS gives its table away with row_security off, as
-- pg_restore's scripts run (the guard reads ots.search_indexes past its
-- row-level security, as it reads ots.tables)
CREATE ROLE search_restorer;
GRANT CREATE ON SCHEMA public TO search_restorer;
SET ROLE search_restorer;
SELECT ots.create_table('restorers', 'id integer');
SELECT ots.create_search_index('restorers', 'ix', '{"field_schemas": [{"field_name": "n", "field_type": "LONG"}]}');
SET row_security = off;
ALTER TABLE public."restorers$data" OWNER TO search_restorer;
RESET row_security;
SELECT ots.delete_search_index('restorers', 'ix'), ots.delete_table('restorers');
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM search_restorer;
DROP ROLE search_restorer;

SELECT ots.delete_search_index('shop', 'idx'), ots.delete_search_index('shop', 'an_index_name_long_enough_to_need_a_cut_storage_name');
SELECT to_regclass('public."shop$search$idx"') IS NULL AS dropped, count(*) FROM ots.search_indexes WHERE table_name = 'shop';
SELECT ots.delete_table('shop');
DROP ROLE search_writer;
DROP ROLE search_other;

-- a table dropped by DROP takes its search indexes along
SELECT ots.create_table('gone', 'id string', max_versions => 1);
SELECT ots.create_search_index('gone', 'g', '{"field_schemas": [{"field_name": "a", "field_type": "LONG"}]}');
DROP TABLE public."gone$data" CASCADE;
SELECT count(*) AS rows_left FROM ots.search_indexes WHERE table_name = 'gone';
SELECT to_regclass('public."gone$search$g"') IS NULL AS storage_dropped;
SELECT ots.create_table('gone', 'id string', max_versions => 1);
SELECT ots.put_row('gone', '{"id": "a"}', '{"a": 1}');
SELECT ots.delete_table('gone');

-- names past PostgreSQL's 63 bytes together (Tablestore takes them; the Go
-- SDK's search tests use these): the storage is named by both names cut
-- and a hash of both, which the catalog keeps; two such indexes differ
SELECT ots.create_table('search_api_test_table_without_nested', 'pk1 string', max_versions => 1);
SELECT ots.create_search_index('search_api_test_table_without_nested', 'search_api_test_index_without_nested',
	'{"field_schemas": [{"field_name": "k", "field_type": "KEYWORD"}]}');
SELECT ots.create_search_index('search_api_test_table_without_nested', 'search_api_test_index_without_nested_2',
	'{"field_schemas": [{"field_name": "k", "field_type": "KEYWORD"}]}');
SELECT index_name, storage_name, length(storage_name) FROM ots.search_indexes
 WHERE table_name = 'search_api_test_table_without_nested' ORDER BY 1;
SELECT ots.put_row('search_api_test_table_without_nested', '{"pk1": "a"}', '{"k": "x"}');
SELECT ots.search('search_api_test_table_without_nested', i, '{"query": {"term_query": {"field_name": "k", "term": "x"}}}')
  FROM unnest(ARRAY['search_api_test_index_without_nested', 'search_api_test_index_without_nested_2']) i;
SELECT index_name FROM ots.list_search_index('search_api_test_table_without_nested');
SELECT ots.delete_search_index('search_api_test_table_without_nested', i)
  FROM unnest(ARRAY['search_api_test_index_without_nested', 'search_api_test_index_without_nested_2']) i;
SELECT count(*) AS storages_left FROM pg_class WHERE relname LIKE 'search_api_test_tab%$search$%';
SELECT ots.delete_table('search_api_test_table_without_nested');

-- a VECTOR field is kept in the schema (Tablestore's indexes with one can be
-- made, described and searched by their other fields; its value is the
-- table's, as RETURN_ALL_FROM_INDEX reads it), but it has no column and no
-- query but knn_vector_query searches it, which ots refuses
SELECT ots.create_table('vec', 'id integer', max_versions => 1);
SELECT ots.create_search_index('vec', 'ix', '{"field_schemas": [{"field_name": "k", "field_type": "KEYWORD"},
	{"field_name": "v", "field_type": "VECTOR", "vector_options": {"data_type": "VD_FLOAT_32", "dimension": 3, "metric_type": "VM_COSINE"}}]}');
SELECT ots.describe_search_index('vec', 'ix') #> '{schema,field_schemas}';
SELECT attname FROM pg_attribute WHERE attrelid = 'public."vec$search$ix"'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum;
SELECT count(ots.put_row('vec', jsonb_build_object('id', i), jsonb_build_object('k', 'k' || i % 2, 'v', '[0.1, 0.2, 0.3]'))) FROM generate_series(1, 4) i;
SELECT ots.search('vec', 'ix', '{"query": {"term_query": {"field_name": "k", "term": "k1"}}, "get_total_count": true}',
	'{"return_type": "RETURN_ALL_FROM_INDEX"}');
SELECT pg_temp.err($$SELECT ots.search('vec', 'ix', '{"query": {"exists_query": {"field_name": "v"}}}')$$);
SELECT pg_temp.err($$SELECT ots.search('vec', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "c", "type": "count", "field_name": "v"}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('vec', 'ix', '{"query": {"match_all_query": {}}, "sort": {"sorters": [{"field_sort": {"field_name": "v"}}]}}')$$);
SELECT pg_temp.err($$SELECT ots.search('vec', 'ix', '{"query": {"knn_vector_query": {"field_name": "v", "top_k": 2, "float32_query_vector": [0.1, 0.2, 0.3]}}}')$$);
SELECT ots.delete_search_index('vec', 'ix'), ots.delete_table('vec');

-- a field name's surrounding spaces are no part of it (the Node SDK's own
-- search test names a field "col_nested2 " and writes and queries
-- col_nested2); spaces inside a name are refused as a column name's
SELECT ots.create_table('sp', 'id integer', max_versions => 1);
SELECT ots.create_search_index('sp', 'ix', '{"field_schemas": [{"field_name": " k  ", "field_type": "KEYWORD"},
	{"field_name": "n ", "field_type": "NESTED", "field_schemas": [{"field_name": " d", "field_type": "LONG"}]}]}');
SELECT ots.describe_search_index('sp', 'ix') #> '{schema,field_schemas}';
SELECT ots.put_row('sp', '{"id": 1}', '{"k": "a", "n": "[{\"d\": 5}]"}');
SELECT ots.search('sp', 'ix', '{"query": {"nested_query": {"path": "n", "query": {"term_query": {"field_name": "n.d", "term": 5}}}}}') -> 'rows';
SELECT pg_temp.err($$SELECT ots.create_search_index('sp', 'iy', '{"field_schemas": [{"field_name": "a b", "field_type": "KEYWORD"}]}')$$);
SELECT ots.delete_search_index('sp', 'ix'), ots.delete_table('sp');

-- a schema changed as Tablestore changes it: an index made from another
-- (source_index_name, named <name>_reindex), the searches of the first
-- shared with it by weight, then the switch, after which each name means
-- what the other did; writes keep both all along
SELECT ots.create_table('rx', 'id integer', max_versions => 1);
SELECT count(ots.put_row('rx', jsonb_build_object('id', g), jsonb_build_object('k', 'k' || g % 3, 'n', g))) FROM generate_series(1, 12) g;
SELECT ots.create_search_index('rx', 'ix', '{"field_schemas": [{"field_name": "k", "field_type": "KEYWORD"}]}');
SELECT pg_temp.err($$SELECT ots.create_search_index('rx', 'ix2', '{"field_schemas": [{"field_name": "n", "field_type": "LONG"}]}', source_index_name => 'ix')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('rx', 'no_reindex', '{"field_schemas": [{"field_name": "n", "field_type": "LONG"}]}', source_index_name => 'no')$$);
SELECT ots.create_search_index('rx', 'ix_reindex', '{"field_schemas": [{"field_name": "k", "field_type": "KEYWORD"},
	{"field_name": "n", "field_type": "LONG"}]}', source_index_name => 'ix');
SELECT pg_temp.err($$SELECT ots.create_search_index('rx', 'ix2_reindex', '{"field_schemas": [{"field_name": "n", "field_type": "LONG"}]}', source_index_name => 'ix')$$);
SELECT pg_temp.err($$SELECT ots.create_search_index('rx', 'ix_reindex_reindex', '{"field_schemas": [{"field_name": "n", "field_type": "LONG"}]}', source_index_name => 'ix_reindex')$$);
SELECT l.index_name, d -> 'brother_index_name' AS brother, jsonb_array_length(d #> '{schema,field_schemas}') AS fields,
	   d -> 'query_flow_weights' AS weights
  FROM ots.list_search_index('rx') l, LATERAL ots.describe_search_index('rx', l.index_name) d ORDER BY 1;
-- weights: the index and its brother, 0 to 100, not both 0; one change at a time
SELECT pg_temp.err($$SELECT ots.update_search_index('rx', 'ix', query_flow_weights => '[{"index_name": "ix", "weight": 0}, {"index_name": "other", "weight": 100}]')$$);
SELECT pg_temp.err($$SELECT ots.update_search_index('rx', 'ix', query_flow_weights => '[{"index_name": "ix", "weight": 0}, {"index_name": "ix_reindex", "weight": 0}]')$$);
SELECT pg_temp.err($$SELECT ots.update_search_index('rx', 'ix', query_flow_weights => '[{"index_name": "ix", "weight": 101}, {"index_name": "ix_reindex", "weight": 0}]')$$);
SELECT pg_temp.err($$SELECT ots.update_search_index('rx', 'ix', time_to_live => -1, switch_index_name => 'ix_reindex')$$);
-- every search of ix to ix_reindex, which knows n; then every one back to ix, which does not
SELECT ots.update_search_index('rx', 'ix', query_flow_weights => '[{"index_name": "ix", "weight": 0}, {"index_name": "ix_reindex", "weight": 100}]');
SELECT ots.describe_search_index('rx', 'ix') -> 'query_flow_weights' AS weights;
SELECT (SELECT count(*) FROM generate_series(1, 20) g
		 WHERE (ots.search('rx', 'ix', '{"query": {"range_query": {"field_name": "n", "range_from": 10}}, "get_total_count": true}') ->> 'total_count')::int
			   = (SELECT count(*) FROM rx WHERE (attributes ->> 'n')::int > 10)) AS of_20_searches;
-- weights are kept as whole numbers, whatever their JSON (50.0), and in either order
SELECT ots.update_search_index('rx', 'ix', query_flow_weights => '[{"index_name": "ix_reindex", "weight": 0.0}, {"index_name": "ix", "weight": 100.0}]');
SELECT ots.describe_search_index('rx', 'ix') -> 'query_flow_weights' AS weights;
SELECT pg_temp.err($$SELECT ots.search('rx', 'ix', '{"query": {"range_query": {"field_name": "n", "range_from": 10}}}')$$);
-- the switch: ix has ix_reindex's schema and entries (n), ix_reindex ix's; weights cleared
SELECT ots.update_search_index('rx', 'ix', switch_index_name => 'ix_reindex');
SELECT l.index_name, d -> 'brother_index_name' AS brother, jsonb_array_length(d #> '{schema,field_schemas}') AS fields,
	   d -> 'query_flow_weights' AS weights
  FROM ots.list_search_index('rx') l, LATERAL ots.describe_search_index('rx', l.index_name) d ORDER BY 1;
SELECT ots.put_row('rx', '{"id": 13}', '{"k": "k1", "n": 13}');
SELECT ots.search('rx', 'ix', '{"query": {"range_query": {"field_name": "n", "range_from": 10}}, "get_total_count": true}') -> 'total_count' AS ix_n_from_10,
	   (SELECT count(*) FROM rx WHERE (attributes ->> 'n')::int > 10) AS model;
SELECT ots.search('rx', 'ix_reindex', '{"query": {"term_query": {"field_name": "k", "term": "k1"}}, "get_total_count": true}') -> 'total_count' AS reindex_k1,
	   (SELECT count(*) FROM rx WHERE attributes ->> 'k' = 'k1') AS model;
SELECT pg_temp.err($$SELECT ots.search('rx', 'ix_reindex', '{"query": {"range_query": {"field_name": "n", "range_from": 10}}}')$$);
-- each storage's name is its index's again, its comment carrying its index's definition (what a restore registers)
SELECT s.index_name, s.storage_name = ots.search_storage_name('rx', s.index_name) AS storage_named,
	   obj_description(format('public.%I', s.storage_name)::regclass) ~ format('"index_name": "%s"', s.index_name) AS carried,
	   (SELECT count(*) FROM pg_attribute a WHERE a.attrelid = format('public.%I', s.storage_name)::regclass AND a.attname = 'n') AS has_n
  FROM ots.search_indexes s WHERE s.table_name = 'rx' ORDER BY 1;
-- the old one deleted: ix has no brother, nothing to switch to
SELECT ots.delete_search_index('rx', 'ix_reindex');
SELECT ots.describe_search_index('rx', 'ix') -> 'brother_index_name' AS brother;
SELECT pg_temp.err($$SELECT ots.update_search_index('rx', 'ix', switch_index_name => 'ix_reindex')$$);
-- a switch, then at once a delete of the old definition (nothing in between has read either index)
SELECT ots.create_search_index('rx', 'ix_reindex', '{"field_schemas": [{"field_name": "n", "field_type": "LONG"}]}', source_index_name => 'ix');
SELECT ots.update_search_index('rx', 'ix', switch_index_name => 'ix_reindex');
SELECT ots.delete_search_index('rx', 'ix_reindex');
SELECT l.index_name, d -> 'brother_index_name' AS brother, d #> '{schema,field_schemas,0,field_name}' AS first_field
  FROM ots.list_search_index('rx') l, LATERAL ots.describe_search_index('rx', l.index_name) d;
-- a brother whose storage DROP TABLE took away: the other has none, nor weights
SELECT ots.create_search_index('rx', 'ix_reindex', '{"field_schemas": [{"field_name": "k", "field_type": "KEYWORD"}]}', source_index_name => 'ix');
SELECT ots.update_search_index('rx', 'ix', query_flow_weights => '[{"index_name": "ix", "weight": 0}, {"index_name": "ix_reindex", "weight": 100}]');
DROP TABLE public."rx$search$ix_reindex";
SELECT d -> 'brother_index_name' AS brother, d -> 'query_flow_weights' AS weights,
	   ots.search('rx', 'ix', '{"query": {"range_query": {"field_name": "n", "range_from": 10}}, "get_total_count": true}') -> 'total_count' AS found
  FROM ots.describe_search_index('rx', 'ix') d;
SELECT ots.delete_search_index('rx', 'ix'), ots.delete_table('rx');
