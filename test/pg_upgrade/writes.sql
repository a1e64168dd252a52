-- test/pg_upgrade/writes.sql: after an upgrade (or a recovery), the tables
-- of data.sql take writes.  One line per check, "ok: ..." or "FAILED: ...":
-- a put reads back; an AUTO_INCREMENT put gets a key after every stored one
-- and replaces nothing; a put into orders reaches both its indexes and is
-- the one new record of its stream, after every older position; with psql
-- variable saved, the iterators iterators.sql kept from before read what a
-- new iterator reads.
\ir stream_reader.sql
SET client_min_messages = warning;
-- where a reader of each shard that has read everything stands now
CREATE TEMP TABLE readers AS
SELECT g AS shard, (pg_temp.read_stream(ots.get_shard_iterator(s.stream_id, g::text))).next_iterator AS it,
	   (SELECT max(l.position) FROM "orders$log" l WHERE l.shard = g) AS last_position
  FROM ots.list_stream('orders') s, generate_series(0, 1) g;
CREATE TEMP TABLE counted_before AS SELECT count(*) AS n, max(id) AS max_id FROM counted;

-- a put
SELECT consumed IS NOT NULL AS put FROM ots.put_row('keys', '{"s": "after", "i": 0, "b": {"$binary": "AA=="}}', '{"v": "after"}') \gset
SELECT CASE WHEN a = '{"v": "after"}' THEN 'ok: ' ELSE 'FAILED: ' END || 'a put reads back: ' || coalesce(a::text, 'no row')
  FROM (SELECT (ots.get_row('keys', '{"s": "after", "i": 0, "b": {"$binary": "AA=="}}')).attributes AS a) r;

-- an AUTO_INCREMENT put
SELECT (primary_key ->> 'id')::bigint AS new_id
  FROM ots.put_row('counted', '{"k": "a", "id": {"$auto_increment": true}}', '{"v": "after"}', return_type => 'RT_PK') \gset
SELECT CASE WHEN :new_id > b.max_id AND c.n = b.n + 1 AND c.written = 1 THEN 'ok: ' ELSE 'FAILED: ' END ||
	   format('an AUTO_INCREMENT put got id %s (stored before: %s rows, the largest id %s; now %s rows, %s with its value)',
			  :new_id, b.n, b.max_id, c.n, c.written)
  FROM counted_before b,
	   (SELECT count(*) AS n, count(*) FILTER (WHERE attributes ->> 'v' = 'after') AS written FROM counted) c;

-- a put into a table with two indexes and a stream
SELECT consumed IS NOT NULL AS put FROM ots.put_row('orders', '{"customer": "after", "id": 1}', '{"status": "upgraded", "amount": 5}') \gset
SELECT CASE WHEN g = 1 AND l = 1 THEN 'ok: ' ELSE 'FAILED: ' END ||
	   format('the put is in the global index (%s entries) and in the local one (%s)', g, l)
  FROM (SELECT (SELECT count(*) FROM orders_by_status WHERE status = 'upgraded' AND customer = 'after' AND id = 1) AS g,
			   (SELECT count(*) FROM orders_local WHERE customer = 'after' AND amount = 5 AND id = 1) AS l) c;
SELECT CASE WHEN count(*) = 1 AND bool_and(x ->> 'action_type' = 'PUT_ROW'
										   AND x -> 'primary_key' = '{"customer": "after", "id": 1}'
										   AND (x -> 'sequence_info' ->> 'timestamp')::bigint > r.last_position)
			THEN 'ok: ' ELSE 'FAILED: ' END ||
	   format('the put is the one new record of the stream, after every older position: %s',
			  coalesce(string_agg(format('%s %s at %s (shard %s: last %s before)', x ->> 'action_type', x -> 'primary_key',
										 x -> 'sequence_info' ->> 'timestamp', r.shard, r.last_position), ', '), 'none'))
  FROM readers r, jsonb_array_elements((pg_temp.read_stream(r.it)).records) x;

\if :saved
-- the iterators of before: at the oldest record, they read what a new
-- iterator reads; at the end, the new record
SELECT CASE WHEN bool_and(s.old = s.new) AND sum(jsonb_array_length(s.old)) > 0 THEN 'ok: ' ELSE 'FAILED: ' END ||
	   format('iterators of before at the oldest records read what new ones read (%s records)',
			  string_agg(jsonb_array_length(s.old) || ' vs ' || jsonb_array_length(s.new), ', ' ORDER BY s.shard))
  FROM (SELECT i.shard, (pg_temp.read_stream(i.from_start)).records AS old,
			   (pg_temp.read_stream(ots.get_shard_iterator(l.stream_id, i.shard::text))).records AS new
		  FROM saved_iterators i, ots.list_stream('orders') l) s;
SELECT CASE WHEN count(*) = 1 AND bool_and(x -> 'primary_key' = '{"customer": "after", "id": 1}')
			THEN 'ok: ' ELSE 'FAILED: ' END ||
	   format('iterators of before at the end read the new record: %s',
			  coalesce(string_agg(format('%s %s', x ->> 'action_type', x -> 'primary_key'), ', '), 'none'))
  FROM saved_iterators i, jsonb_array_elements((pg_temp.read_stream(i.caught_up)).records) x;
\endif
