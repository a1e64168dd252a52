-- test/replication/writes.sql: writes on the publisher, round :round of
-- them (generated keys, updates that move index entries, deletes)
SELECT count(*) FROM generate_series(1, 10) i,
	LATERAL ots.put_row('orders', jsonb_build_object('shop', 's' || (i % 3), 'seq', '{"$auto_increment": true}'::jsonb),
						jsonb_build_object('amount', i * :round, 'status', CASE WHEN i % 4 = 0 THEN 'paid' ELSE 'new' END));
UPDATE orders SET status = 'shipped', amount = amount + 1 WHERE seq % 5 = :round;
DELETE FROM orders WHERE seq % 7 = :round;
SELECT ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'orders', 'rows', jsonb_build_array(
	jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('shop', 's9', 'seq', :round),
					   'attributes', jsonb_build_object('amount', :round, 'status', 'batch'))))));
SELECT count(*) FROM generate_series(1, 5) i,
	LATERAL ots.put_row('events', jsonb_build_object('k', 'e' || :round || '-' || i), jsonb_build_object('v', i));
