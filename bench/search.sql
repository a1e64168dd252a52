-- bench/search.sql: the tables bench/search.sh measures (psql -v rows=N).
SET client_min_messages = warning;
CREATE EXTENSION ots;
-- every index filled in its creating transaction, whatever the table's size
SET ots.search_backfill_blocks = 2147483647;

-- a row's attributes from its number: 8 columns, a name of 3 of 200 words
CREATE FUNCTION bench_row(k bigint) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT jsonb_build_object('name', format('w%s w%s w%s', k % 200, k / 7 % 200, k / 13 % 200),
		'city', 'c' || k % 50, 'stars', k % 5, 'price', k % 1000 + 0.5, 'open', k % 2 = 0,
		'tags', format('["t%s", "t%s"]', k % 10, k % 7), 'at', 1700000000000 + k,
		'loc', format('%s,%s', 30 + k % 100 * 0.01, 120 + k % 77 * 0.01))
$$;

-- put: a table without a search index and one with a search index of 8 fields
SELECT ots.create_table('put_plain', 'id string', max_versions => 1);
SELECT ots.create_table('put_search', 'id string', max_versions => 1);
SELECT ots.create_search_index('put_search', 'ix', '{"field_schemas": [
	{"field_name": "name", "field_type": "TEXT"}, {"field_name": "city", "field_type": "KEYWORD"},
	{"field_name": "stars", "field_type": "LONG"}, {"field_name": "price", "field_type": "DOUBLE"},
	{"field_name": "open", "field_type": "BOOLEAN"}, {"field_name": "tags", "field_type": "KEYWORD", "is_array": true},
	{"field_name": "at", "field_type": "DATE", "date_formats": ["epoch_millis"]},
	{"field_name": "loc", "field_type": "GEO_POINT"}]}');

-- the query cases: the same rows in an ots table with a search index and in a plain table
SELECT ots.create_table('shop', 'id string', max_versions => 1);
INSERT INTO shop (id, attributes)
	SELECT g::text, jsonb_build_object('name', r -> 'name', 'city', r -> 'city', 'stars', r -> 'stars', 'price', r -> 'price')
	  FROM generate_series(1, :rows) g, LATERAL bench_row(g) r;
SELECT ots.create_search_index('shop', 'ix', '{"field_schemas": [
	{"field_name": "name", "field_type": "TEXT"}, {"field_name": "city", "field_type": "KEYWORD"},
	{"field_name": "stars", "field_type": "LONG"}, {"field_name": "price", "field_type": "DOUBLE"}]}');
CREATE TABLE shop_plain (id text COLLATE "C" PRIMARY KEY, name text, city text COLLATE "C", stars bigint, price float8);
-- in the order of the keys' hash, as the search index's storage is filled from
-- the table's hash-partitioned leaves: neither side gets the numbers' order
-- for free (price is the row's number modulo 1000)
INSERT INTO shop_plain
	SELECT g::text, r ->> 'name', r ->> 'city', (r ->> 'stars')::bigint, (r ->> 'price')::float8
	  FROM generate_series(1, :rows) g, LATERAL bench_row(g) r
	 ORDER BY md5(g::text);
CREATE INDEX ON shop_plain (city);
CREATE INDEX ON shop_plain (stars);
CREATE INDEX ON shop_plain (price);
CREATE INDEX ON shop_plain USING gin (to_tsvector('simple', name));

-- the consistency run: a search index of one field, and the misses
SELECT ots.create_table('pairs', 'id string', max_versions => 1);
SELECT ots.create_search_index('pairs', 'ix', '{"field_schemas": [{"field_name": "tag", "field_type": "KEYWORD"}]}');
CREATE TABLE misses (k bigint, client int);
VACUUM ANALYZE;
