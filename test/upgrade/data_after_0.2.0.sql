-- test/upgrade/data_after_0.2.0.sql: after data_after.sql, in its session,
-- what data_before_0.2.0.sql wrote with 0.2.0's features reads and takes
-- writes as it did: defined columns and indexes (described, read as views,
-- by range and by plain SQL planned through them), the stream (the
-- consumer's iterators of before read the same records, and resume with the
-- records of writes made since), writes through the view, AUTO_INCREMENT; and
-- a search index of 0.3.0 made over those rows.
SELECT ots.describe_table('up_items') -> 'defined_columns';
SELECT i ->> 'name', i -> 'primary_key', i -> 'defined_column', i ->> 'index_type', i ->> 'index_sync_phase'
  FROM jsonb_array_elements(ots.describe_table('up_items') -> 'index_metas') i ORDER BY 1;
SELECT seller, shop, id, amount FROM up_items_seller ORDER BY 1, 2, 3;
SELECT primary_key, attributes
  FROM ots.get_range_rows('up_items_local', '{"shop": {"$inf": "min"}, "amount": {"$inf": "min"}, "id": {"$inf": "min"}}',
						  '{"shop": {"$inf": "max"}, "amount": {"$inf": "max"}, "id": {"$inf": "max"}}')
 ORDER BY primary_key ->> 'shop', (primary_key ->> 'amount')::int;
-- pg_temp.plan_reads(query, relation): whether the query's plan reads the relation
CREATE FUNCTION pg_temp.plan_reads(query text, relation text) RETURNS boolean LANGUAGE plpgsql AS $f$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF position(relation IN line) > 0 THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END
$f$;
SELECT pg_temp.plan_reads($q$SELECT shop, id FROM up_items WHERE seller = 'p1'$q$, 'up_items_seller');
SELECT shop, id, amount FROM up_items WHERE seller = 'p1' ORDER BY shop, id;
-- the stream: each shard's iterator at its oldest record reads the records
-- read from it before the update; the consumer's next iterator has nothing
-- new yet
SELECT shard, ots.get_stream_record(first_iterator, 1000) -> 'stream_records' = records AS same_records,
	   jsonb_array_length(ots.get_stream_record(next_iterator, 1000) -> 'stream_records') AS new_records
  FROM up_consumer ORDER BY shard;
-- writes after the update, through the API and the view
SELECT consumed IS NOT NULL FROM ots.put_row('up_items', '{"shop": "s1", "id": 8}', '{"seller": "p1", "amount": 80}');
INSERT INTO up_items (shop, id, seller, amount) VALUES ('s2', 9, 'p0', 90);
UPDATE up_items SET amount = amount + 1, seller = 'p2' WHERE shop = 's9' AND id = 1 RETURNING shop, id, seller, amount;
DELETE FROM up_items WHERE shop = 's0' AND id = 6;
SELECT consumed IS NOT NULL FROM ots.update_row('up_items', '{"shop": "s0", "id": 3}', put => '{"seller": "p3"}');
-- the consumer resumes from its iterator of before: the records of those
-- writes, in order within each shard (timestamps left out)
SELECT c.shard, r.n, r.rec ->> 'action_type', r.rec -> 'primary_key',
	   (SELECT jsonb_agg(col - 'timestamp' ORDER BY o) FROM jsonb_array_elements(r.rec -> 'columns') WITH ORDINALITY x(col, o))
  FROM up_consumer c, jsonb_array_elements(ots.get_stream_record(c.next_iterator, 1000) -> 'stream_records') WITH ORDINALITY r(rec, n)
 ORDER BY 1, 2;
-- the indexes followed the writes
SELECT seller, shop, id, amount FROM up_items_seller ORDER BY 1, 2, 3;
SELECT primary_key
  FROM ots.get_range_rows('up_items_local', '{"shop": "s0", "amount": {"$inf": "min"}, "id": {"$inf": "min"}}',
						  '{"shop": "s0", "amount": {"$inf": "max"}, "id": {"$inf": "max"}}')
 ORDER BY (primary_key ->> 'amount')::int;
SELECT pg_temp.try($q$INSERT INTO up_items_seller (seller, shop, id) VALUES ('x', 'x', 1)$q$);
-- AUTO_INCREMENT: new keys come after those of before, the index has every row
SELECT (primary_key ->> 'n')::bigint > (SELECT max(n) FROM up_ids)
  FROM ots.put_row('up_ids', '{"g": "a", "n": {"$auto_increment": true}}', '{"tag": "t4"}', return_type => 'RT_PK');
SELECT tag, g FROM up_ids_tag ORDER BY tag;
SELECT last_value = (SELECT max(n) FROM up_ids) FROM ots.sync_auto_increment('up_ids');
-- a search index (0.3.0) over the rows 0.2.0 wrote, filled from them: its
-- count and its groups as plain SQL on the view finds them
SELECT ots.create_search_index('up_items', 'up_search', '{"field_schemas": [{"field_name": "seller", "field_type": "KEYWORD"}, {"field_name": "amount", "field_type": "LONG"}]}');
SELECT s ->> 'total_count', (SELECT count(*) FROM up_items WHERE amount >= 0),
	   s #> '{group_bys,0,items}' = (SELECT jsonb_agg(jsonb_build_object('key', seller, 'row_count', n) ORDER BY n DESC, seller COLLATE "C")
									  FROM (SELECT seller, count(*) AS n FROM up_items WHERE amount >= 0 AND seller IS NOT NULL
											 GROUP BY seller ORDER BY 2 DESC, seller COLLATE "C" LIMIT 10) g)
  FROM ots.search('up_items', 'up_search', '{"query": {"range_query": {"field_name": "amount", "range_from": 0, "include_lower": true}}, "limit": 0,
	"get_total_count": true, "group_bys": [{"name": "s", "type": "field", "field_name": "seller"}]}') s;
SELECT ots.delete_search_index('up_items', 'up_search');
