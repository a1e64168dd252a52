-- test/pg_upgrade/iterators.sql: before the upgrade, a reader's iterators
-- of each shard of table orders's stream, kept in table saved_iterators: one
-- at the shard's oldest record, one after its last (where a reader that has
-- read everything stands); writes.sql reads from both after the upgrade.
\ir stream_reader.sql
CREATE TABLE saved_iterators AS
SELECT g AS shard, ots.get_shard_iterator(s.stream_id, g::text) AS from_start,
	   (pg_temp.read_stream(ots.get_shard_iterator(s.stream_id, g::text))).next_iterator AS caught_up
  FROM ots.list_stream('orders') s, generate_series(0, 1) g;
