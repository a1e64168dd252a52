-- test/replication/setup.sql: the same ots DDL on the publisher and the
-- subscriber (logical replication carries rows, not DDL or sequences)
SET client_min_messages = warning;
CREATE EXTENSION ots;
SELECT ots.create_table('orders', 'shop string, seq integer auto_increment', partitions => 4,
						defined_columns => 'amount integer, status string');
SET ots.index_build_worker = off;
SELECT ots.create_index('orders', 'orders_status', ARRAY['status'], ARRAY['amount']);
SELECT ots.create_index('orders', 'orders_amount', ARRAY['shop', 'amount'], index_type => 'LOCAL');
CALL ots.build_index('orders', 'orders_status');
CALL ots.build_index('orders', 'orders_amount');
SELECT ots.create_table('events', 'k string', partitions => 2, stream_enabled => true);

-- every record of the events table's stream, shard by shard
CREATE FUNCTION events_records() RETURNS SETOF jsonb LANGUAGE plpgsql AS $$
DECLARE
	s integer;
	it text;
	res jsonb;
BEGIN
	FOR s IN 0 .. 1 LOOP
		it := ots.get_shard_iterator((SELECT l.stream_id FROM ots.list_stream('events') l), s::text);
		LOOP
			res := ots.get_stream_record(it, 100);
			it := res ->> 'next_shard_iterator';
			EXIT WHEN jsonb_array_length(res -> 'stream_records') = 0;
			RETURN QUERY SELECT r FROM jsonb_array_elements(res -> 'stream_records') r;
		END LOOP;
	END LOOP;
END
$$;
