-- test/dump/stream.sql: after the restore (and the comparison of rows.sql),
-- the stream of table streamed goes on: a reader caught up on every shard
-- gets, after new writes, exactly their records, with positions after every
-- restored one.  Prints one line: "ok: ..." or "FAILED: ...".
CREATE FUNCTION pg_temp.caught_up(stream_id text, shard integer) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	it text := ots.get_shard_iterator(stream_id, shard::text);
	res jsonb;
BEGIN
	LOOP
		res := ots.get_stream_record(it, 100);
		it := res ->> 'next_shard_iterator';
		EXIT WHEN jsonb_array_length(res -> 'stream_records') = 0;
	END LOOP;
	RETURN it;
END
$$;
CREATE TEMP TABLE readers AS
	SELECT g AS shard, pg_temp.caught_up(s.stream_id, g) AS it, s.stream_id,
		   (SELECT max(position) FROM "streamed$log" l WHERE l.shard = g) AS last_restored
	  FROM ots.list_stream() s, generate_series(0, 1) g WHERE s.table_name = 'streamed';
SELECT count(*) AS written FROM (VALUES ('k0'), ('k1'), ('k2'), ('k3')) v(k),
	LATERAL ots.put_row('streamed', jsonb_build_object('k', k, 'n', 1000), '{"after": "restore"}') \gset
SELECT consumed IS NOT NULL AS updated FROM ots.update_row('streamed', '{"k": "k1", "n": 1}', increment => '{"c": 1}') \gset
WITH recs AS (
	SELECT r.shard, x, r.last_restored
	  FROM readers r, jsonb_array_elements(ots.get_stream_record(r.it) -> 'stream_records') x)
SELECT CASE WHEN count(*) = 5
			 AND count(*) FILTER (WHERE x ->> 'action_type' = 'PUT_ROW' AND x -> 'primary_key' ->> 'n' = '1000') = 4
			 AND count(*) FILTER (WHERE x ->> 'action_type' = 'UPDATE_ROW'
								  AND x -> 'columns' -> 0 ->> 'name' = 'c' AND x -> 'columns' -> 0 ->> 'value' = '3') = 1
			 AND bool_and((x -> 'sequence_info' ->> 'timestamp')::bigint > last_restored)
			 AND count(DISTINCT shard) = 2
			THEN 'ok: ' ELSE 'FAILED: ' END ||
	   format('%s records after the restore on %s shards, %s of them after every restored position: %s',
			  count(*), count(DISTINCT shard),
			  count(*) FILTER (WHERE (x -> 'sequence_info' ->> 'timestamp')::bigint > last_restored),
			  string_agg(format('%s %s', x ->> 'action_type', x -> 'primary_key'), ', ' ORDER BY shard, x -> 'sequence_info' ->> 'timestamp', x -> 'sequence_info' ->> 'row_index'))
  FROM recs;
