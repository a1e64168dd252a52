-- test/dump/data.sql: rows that reached every edge through ordinary writes
-- of the row API, for test/dump/run.sh to dump and restore.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;

-- 1000 rows in one leaf; one of them grew past 1024 cells through two
-- updates of 600 columns each (one write may carry at most 1024)
SELECT ots.create_table('many', 'id integer', partitions => 1);
SELECT count(*) AS put FROM generate_series(1, 1000) g,
  LATERAL ots.put_row('many', jsonb_build_object('id', g), jsonb_build_object('v', g, 's', 'row ' || g));
SELECT count(*) AS updated FROM generate_series(0, 1) u,
  LATERAL ots.update_row('many', '{"id": 500}',
    put => (SELECT jsonb_object_agg('c' || (u * 600 + g), g) FROM generate_series(1, 600) g));

-- explicit timestamps anywhere in [0, INT64_MAX/1000), room for many versions
SELECT ots.create_table('edges', 'k string, n integer', max_versions => 2000,
                        max_version_offset => 9223372036854, partitions => 2);
-- 1200 versions of one column, 600 per update
SELECT count(*) AS updated FROM generate_series(0, 1) u,
  LATERAL ots.update_row('edges', '{"k": "versions", "n": 1}',
    put => jsonb_build_object('v', (SELECT jsonb_agg(jsonb_build_object('value', u * 600 + g, 'ts', u * 600 + g))
                                     FROM generate_series(1, 600) g)));
-- more than 6 MB: three values of 2 MB (the largest a write may carry), one per update
SELECT count(*) AS updated FROM generate_series(1, 3) u,
  LATERAL ots.update_row('edges', '{"k": "big", "n": 1}',
    put => jsonb_build_object('s' || u, repeat(chr(96 + u), 2097152)));
-- every type, the first and the last valid millisecond, extreme values
SELECT consumed FROM ots.put_row('edges', '{"k": "types", "n": 1}', '{
  "s": {"value": "text ü \" \\ \n", "ts": 0},
  "i": [{"value": -9223372036854775808, "ts": 9223372036854774}, {"value": 9223372036854775807, "ts": 1}],
  "d": [{"value": {"$double": 1.7976931348623157e308}, "ts": 3}, {"value": {"$double": 5e-324}, "ts": 2}, {"value": 3.0, "ts": 1}],
  "b": {"value": false, "ts": 9223372036854774},
  "x": {"value": {"$binary": "AP8A/w=="}, "ts": 5},
  "e": [{"value": "", "ts": 2}, {"value": {"$binary": ""}, "ts": 1}]}');
-- an empty row (only its row marker), and server-stamped versions
SELECT consumed FROM ots.put_row('edges', '{"k": "empty", "n": 1}');
SELECT count(*) AS updated FROM generate_series(1, 5) g,
  LATERAL ots.update_row('edges', '{"k": "stamped", "n": 1}', put => jsonb_build_object('v', g), increment => '{"i": 1}');

-- a chunk in the table's chunk relation (issue 33: the cells of a split
-- row), written by plain SQL as the table's owner; restored byte for byte
INSERT INTO "edges$chunk" VALUES ('chunked', 1, 'c', 5,
  '{"row_ts": 9, "cells": {"c": [{"ts": 7, "value": "x"}, {"ts": 5, "value": 2}], "d": [{"ts": 9, "value": {"$binary": "AP8="}}]}}', 5);

-- a Binary key with a hash prefix
SELECT ots.create_table('hashed', 'b binary, n integer', hash_prefix_length => 2, partitions => 4);
SELECT count(*) AS put FROM generate_series(0, 255) g,
  LATERAL ots.put_row('hashed', jsonb_build_object('b', jsonb_build_object('$binary', encode(set_byte('\x00'::bytea, 0, g), 'base64')), 'n', g),
                      jsonb_build_object('v', g));

-- a table with defined columns and two secondary indexes (one built from
-- the table's rows, one made without them); restored, both keep working
SET ots.index_build_worker = off;
SELECT ots.create_table('indexed', 'k string, n integer', partitions => 2,
                        defined_columns => 'seller string, amount integer, note binary');
SELECT count(*) AS put FROM generate_series(1, 300) g,
  LATERAL ots.put_row('indexed', jsonb_build_object('k', 'r' || g % 7, 'n', g),
                      jsonb_build_object('seller', 's' || g % 10, 'amount', g));
SELECT ots.create_index('indexed', 'indexed_seller', '{seller}', '{amount}');
CALL ots.build_index('indexed', 'indexed_seller');
SELECT ots.create_index('indexed', 'indexed_local', '{k, amount}', index_type => 'LOCAL', include_base_data => false);
SELECT count(*) AS updated FROM generate_series(1, 300, 3) g,
  LATERAL ots.update_row('indexed', jsonb_build_object('k', 'r' || g % 7, 'n', g), put => jsonb_build_object('seller', 'moved'));
-- and a search index, filled from the rows and kept by the writes after it;
-- restored by its storage's comment, its entries as they were
SELECT ots.create_search_index('indexed', 'indexed_search', '{"field_schemas": [
  {"field_name": "seller", "field_type": "KEYWORD"}, {"field_name": "amount", "field_type": "LONG"},
  {"field_name": "n", "field_type": "LONG"}]}');
SELECT count(*) AS updated FROM generate_series(4, 300, 5) g,
  LATERAL ots.update_row('indexed', jsonb_build_object('k', 'r' || g % 7, 'n', g), put => jsonb_build_object('amount', -g));
-- a search index whose table and index names together pass PostgreSQL's
-- 63 bytes: its storage is named by both cut and a hash of both
SELECT ots.create_search_index('indexed', 'a_search_index_whose_storage_name_is_long_enough_to_cut',
  '{"field_schemas": [{"field_name": "seller", "field_type": "KEYWORD"}]}');
-- an index made from indexed_search (its brother) and half its searches:
-- restored brothers, with their weights
SELECT ots.create_search_index('indexed', 'indexed_search_reindex', '{"field_schemas": [
  {"field_name": "seller", "field_type": "KEYWORD"}, {"field_name": "n", "field_type": "LONG"}]}',
  source_index_name => 'indexed_search');
SELECT ots.update_search_index('indexed', 'indexed_search', query_flow_weights =>
  '[{"index_name": "indexed_search", "weight": 50}, {"index_name": "indexed_search_reindex", "weight": 50}]');
-- a search index still being built (sync phase FULL), with the entry of the
-- one row written since: restored building, with that entry
SET ots.index_build_worker = off;
SET ots.search_backfill_blocks = 0;
SELECT ots.create_search_index('indexed', 'indexed_building', '{"field_schemas": [{"field_name": "amount", "field_type": "LONG"}]}');
RESET ots.search_backfill_blocks;
RESET ots.index_build_worker;
SELECT consumed FROM ots.update_row('indexed', '{"k": "r1", "n": 1}', put => '{"amount": 1001}');

-- a table that updates whole rows (update_full_row), which lets it have a
-- TTL, updates and an index; restored, it still does (describe_table)
SELECT ots.create_table('whole_rows', 'k string', partitions => 1, time_to_live => 31536000,
                        defined_columns => 'tag string', update_full_row => true);
SELECT ots.create_index('whole_rows', 'whole_rows_tag', '{tag}');
CALL ots.build_index('whole_rows', 'whole_rows_tag');
SELECT count(*) AS put FROM generate_series(1, 20) g,
  LATERAL ots.put_row('whole_rows', jsonb_build_object('k', 'w' || g), jsonb_build_object('tag', 't' || g % 3, 'n', g));
SELECT count(*) AS updated FROM generate_series(1, 20, 2) g,
  LATERAL ots.update_row('whole_rows', jsonb_build_object('k', 'w' || g), put => jsonb_build_object('n', -g));

-- a table with a stream: records of several commits on both shards, of
-- every action; the first commit aged past the expiration and trimmed by
-- purge (a trim marker on each shard).  Restored, a reader gets the same
-- records from a fresh iterator of each shard (rows.sql), and writes after
-- the restore come after them (run.sh).  Its original columns: describe_table
-- shows them, and the records of changes of existing rows carry them
SELECT ots.create_table('streamed', 'k string, n integer', partitions => 2, max_versions => 5,
                        max_version_offset => 9223372036854, stream_enabled => true,
                        stream_original_columns => '{v, w}');
SELECT count(*) AS put FROM generate_series(1, 8) g,
  LATERAL ots.put_row('streamed', jsonb_build_object('k', 'k' || g % 4, 'n', g), jsonb_build_object('v', g));
UPDATE "streamed$log" SET position = position - 25 * 3600 * 1000000::bigint;
CALL ots.purge('streamed');
SELECT count(*) AS put FROM generate_series(1, 20) g,
  LATERAL ots.put_row('streamed', jsonb_build_object('k', 'k' || g % 4, 'n', g), jsonb_build_object('v', g));
SELECT consumed FROM ots.update_row('streamed', '{"k": "k1", "n": 1}', put => '{"w": {"value": 1, "ts": 1000}}',
                                    "delete" => '{"v": 1}', delete_all => ARRAY['x'], increment => '{"c": 2}');
SELECT consumed FROM ots.delete_row('streamed', '{"k": "k2", "n": 2}');
INSERT INTO streamed (k, n, attributes) VALUES ('k3', 100, '{"s": "view"}');

-- an AUTO_INCREMENT table: its sequence is dumped and restored with it, and
-- dropped with it by pg_restore --clean
SELECT ots.create_table('counted', 'k string, id integer auto_increment', partitions => 1);
SELECT count(*) AS put FROM generate_series(1, 3) g,
  LATERAL ots.put_row('counted', '{"k": "a", "id": {"$auto_increment": true}}', jsonb_build_object('v', g));
