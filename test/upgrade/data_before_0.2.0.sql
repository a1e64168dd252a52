-- test/upgrade/data_before_0.2.0.sql: after data_before.sql, what 0.2.0
-- added, written by 0.2.0: defined columns, a GLOBAL and a LOCAL secondary
-- index, a stream with records and a consumer's iterators on it, writes
-- through a table's view, and an AUTO_INCREMENT table with an index;
-- data_after_0.2.0.sql reads and writes them after the update.
SET ots.index_build_worker = off;
SELECT ots.create_table('up_items', 'shop string, id integer', partitions => 2,
						defined_columns => 'seller string, amount integer', stream_enabled => true);
SELECT ots.create_index('up_items', 'up_items_seller', '{seller}', '{amount}');
SELECT ots.create_index('up_items', 'up_items_local', '{shop, amount}', index_type => 'LOCAL');
CALL ots.build_index('up_items', 'up_items_seller');
CALL ots.build_index('up_items', 'up_items_local');
SELECT count(ots.put_row('up_items', jsonb_build_object('shop', 's' || i % 3, 'id', i),
						 jsonb_build_object('seller', 'p' || i % 2, 'amount', i * 10)))
  FROM generate_series(1, 6) i;
-- a row with no seller has no entry in up_items_seller
SELECT ots.put_row('up_items', '{"shop": "s0", "id": 7}', '{"amount": 70, "note": "no seller"}');
INSERT INTO up_items (shop, id, seller, amount) VALUES ('s9', 1, 'p9', 5);
UPDATE up_items SET amount = amount + 1 WHERE shop = 's1' AND id = 1;
DELETE FROM up_items WHERE shop = 's2' AND id = 2;
SELECT ots.update_row('up_items', '{"shop": "s0", "id": 3}', delete_all => '{seller}');
-- the consumer of the stream: per shard, the iterator at the oldest record,
-- the records read from it, and the iterator it resumes from
CREATE TABLE up_consumer (shard text PRIMARY KEY, first_iterator text, records jsonb, next_iterator text);
INSERT INTO up_consumer
SELECT s ->> 'shard_id', it, r -> 'stream_records', r ->> 'next_shard_iterator'
  FROM ots.list_stream('up_items') l,
	   jsonb_array_elements(ots.describe_stream(l.stream_id) -> 'shards') s,
	   ots.get_shard_iterator(l.stream_id, s ->> 'shard_id') it,
	   ots.get_stream_record(it, 1000) r;
SELECT shard, jsonb_array_length(records) FROM up_consumer ORDER BY shard;
-- AUTO_INCREMENT with a defined column and an index on it
SELECT ots.create_table('up_ids', 'g string, n integer auto_increment', defined_columns => 'tag string');
SELECT ots.create_index('up_ids', 'up_ids_tag', '{tag}');
CALL ots.build_index('up_ids', 'up_ids_tag');
SELECT count(ots.put_row('up_ids', '{"g": "a", "n": {"$auto_increment": true}}', jsonb_build_object('tag', 't' || i)))
  FROM generate_series(1, 3) i;
-- get_range as 0.2.0's SQL declares it (twelve arguments), run by a later version's library
SELECT jsonb_array_length((ots.get_range('up_ids', '{"g": {"$inf": "min"}, "n": {"$inf": "min"}}',
										 '{"g": {"$inf": "max"}, "n": {"$inf": "max"}}')).rows) AS rows;
