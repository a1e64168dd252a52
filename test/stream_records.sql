-- test/stream_records.sql: pg_temp.records(table): every record of the
-- table's stream, shard by shard, as get_stream_record returns them (for
-- sql/wide_rows.sql and test/cluster/move.sh)
CREATE FUNCTION pg_temp.records(tbl text) RETURNS SETOF jsonb LANGUAGE plpgsql AS $$
DECLARE
	sid text := (SELECT stream_id FROM ots.list_stream() WHERE table_name = tbl);
	it text;
	res jsonb;
BEGIN
	FOR s IN 0 .. (SELECT partitions - 1 FROM ots.tables WHERE table_name = tbl) LOOP
		it := ots.get_shard_iterator(sid, s::text);
		LOOP
			res := ots.get_stream_record(it, 100);
			EXIT WHEN jsonb_array_length(res -> 'stream_records') = 0;
			RETURN QUERY SELECT r FROM jsonb_array_elements(res -> 'stream_records') r;
			it := res ->> 'next_shard_iterator';
		END LOOP;
	END LOOP;
END
$$;
