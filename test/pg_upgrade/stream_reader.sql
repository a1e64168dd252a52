-- test/pg_upgrade/stream_reader.sql: pg_temp.read_stream(iterator), every
-- record a reader gets from an iterator on (read 3 at a time) and the
-- iterator after them; included by iterators.sql and writes.sql.
CREATE FUNCTION pg_temp.read_stream(it text, OUT records jsonb, OUT next_iterator text)
LANGUAGE plpgsql AS $$
DECLARE
	res jsonb;
BEGIN
	records := '[]';
	next_iterator := it;
	LOOP
		res := ots.get_stream_record(next_iterator, 3);
		next_iterator := res ->> 'next_shard_iterator';
		EXIT WHEN jsonb_array_length(res -> 'stream_records') = 0;
		records := records || (res -> 'stream_records');
	END LOOP;
END
$$;
