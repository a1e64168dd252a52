-- stream: Tablestore's Stream (change data capture).  Every write path
-- makes its records with the right column operations; only committed
-- transactions, their records together and in write order; resuming from
-- an iterator (also in a new session) reads each record once; expiry and
-- trimming (OTSTrimmedDataAccess); disabling and enabling again; errors;
-- privileges.  Concurrent writers and readers: test/specs/stream_order;
-- pg_dump: test/dump.
--
-- Volatile values never show: a stream id reads as its table's name
-- (pg_temp.masked), a server timestamp in a record as "now" when it is
-- the stored cell's (checked against get_row), positions only as their
-- order (a record's commit number within its shard, "c").
-- Quiet: the extension may already exist, and table DDL reports how expiry
-- is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

-- a statement's SQLSTATE and message, or ok
CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN pg_temp.masked(SQLSTATE || ': ' || SQLERRM);
END
$$;
-- a query's one value, or its SQLSTATE and message
CREATE FUNCTION pg_temp.val(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	v text;
BEGIN
	EXECUTE q INTO v;
	RETURN pg_temp.masked(v);
EXCEPTION WHEN OTHERS THEN
	RETURN pg_temp.masked(SQLSTATE || ': ' || SQLERRM);
END
$$;
-- the stream id of a table (NULL without a stream)
CREATE FUNCTION pg_temp.sid(tbl text) RETURNS text LANGUAGE sql AS $$
	SELECT stream_id FROM ots.list_stream() WHERE table_name = tbl
$$;
-- a text with every stream id of the tables named in it replaced by '<table>'
CREATE FUNCTION pg_temp.masked(s text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT stream_id, table_name FROM ots.list_stream() LOOP
		s := replace(s, r.stream_id, '<' || r.table_name || '>');
	END LOOP;
	-- any other (but the zero UUID): a stream no longer there
	RETURN regexp_replace(s, '(?!0{8}-)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', '<old stream>', 'g');
END
$$;
-- a record's columns with server timestamps (later than 2020) shown as "now"
CREATE FUNCTION pg_temp.ops(cols jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT coalesce(jsonb_agg(CASE WHEN (c ->> 'timestamp')::bigint > 1577836800000
								   THEN jsonb_set(c, '{timestamp}', '"now"') ELSE c END ORDER BY i), '[]')
	  FROM jsonb_array_elements(cols) WITH ORDINALITY e(c, i)
$$;
-- where each shard's reader is: the next iterator of each shard of each table
CREATE TABLE stream_cursor (tbl text, shard integer, iter text, PRIMARY KEY (tbl, shard));
-- every record of tbl since the last call, shard by shard, each shard read
-- from its saved iterator (or its oldest record) until it is caught up, in
-- calls of at most lim records.  c numbers the commits of each shard in
-- this call (records of one transaction share it), pos is the position.
CREATE FUNCTION pg_temp.news(tbl text, lim integer DEFAULT 100)
	RETURNS TABLE (shard integer, c bigint, row_index integer, action text, pk jsonb, cols jsonb,
				   raw jsonb, pos bigint)
	LANGUAGE plpgsql AS $$
DECLARE
	s integer;
	it text;
	res jsonb;
	recs jsonb := '[]';
BEGIN
	FOR s IN SELECT g FROM generate_series(0, (SELECT partitions - 1 FROM ots.tables WHERE table_name = tbl)) g LOOP
		SELECT iter INTO it FROM stream_cursor cur WHERE cur.tbl = news.tbl AND cur.shard = s;
		it := coalesce(it, ots.get_shard_iterator(pg_temp.sid(tbl), s::text));
		LOOP
			res := ots.get_stream_record(it, lim);
			it := res ->> 'next_shard_iterator';
			EXIT WHEN jsonb_array_length(res -> 'stream_records') = 0;
			recs := recs || (SELECT jsonb_agg(r || jsonb_build_object('shard', s))
							   FROM jsonb_array_elements(res -> 'stream_records') r);
		END LOOP;
		INSERT INTO stream_cursor VALUES (tbl, s, it)
			ON CONFLICT ON CONSTRAINT stream_cursor_pkey DO UPDATE SET iter = excluded.iter;
	END LOOP;
	RETURN QUERY
		SELECT (r ->> 'shard')::integer,
			   dense_rank() OVER (PARTITION BY r ->> 'shard' ORDER BY (r -> 'sequence_info' ->> 'timestamp')::bigint),
			   (r -> 'sequence_info' ->> 'row_index')::integer, r ->> 'action_type', r -> 'primary_key',
			   pg_temp.ops(r -> 'columns'), r -> 'columns', (r -> 'sequence_info' ->> 'timestamp')::bigint
		  FROM jsonb_array_elements(recs) WITH ORDINALITY a(r, i)
		 ORDER BY i;
END
$$;
-- the same without the position, as the output shows it
CREATE FUNCTION pg_temp.show(tbl text, lim integer DEFAULT 100)
	RETURNS TABLE (shard integer, c bigint, row_index integer, action text, pk jsonb, cols jsonb)
	LANGUAGE sql AS $$
	SELECT shard, c, row_index, action, pk, cols FROM pg_temp.news(tbl, lim)
$$;
-- how many of the PUTs of a record are a cell stored in the row now, with
-- that timestamp and value
CREATE FUNCTION pg_temp.stored(tbl text, key jsonb, recs jsonb) RETURNS text LANGUAGE sql AS $$
	SELECT count(*) || ' puts, ' || count(*) FILTER (WHERE EXISTS (
			 SELECT FROM jsonb_array_elements((ots.get_row(tbl, key, max_versions => 100, with_timestamps => true)).attributes -> (o ->> 'name')) v
			  WHERE v -> 'ts' = o -> 'timestamp' AND v -> 'value' = o -> 'value')) || ' stored'
	  FROM jsonb_array_elements(recs) o
	 WHERE o ->> 'type' = 'PUT'
$$;

--
-- a table with a stream: two partitions, so two shards
--
SELECT ots.create_table('st', 'k string, n integer', max_versions => 10,
                        max_version_offset => 9223372036854, partitions => 2,
                        stream_enabled => true);
SELECT pg_temp.masked(ots.describe_table('st') -> 'stream_details' ->> 'stream_id') AS stream_id,
       (ots.describe_table('st') -> 'stream_details') - 'stream_id' - 'last_enable_time' AS details,
       (ots.describe_table('st') -> 'stream_details' ->> 'last_enable_time')::bigint
         BETWEEN ots.stream_time(now()) - 60000000 AND ots.stream_time(clock_timestamp()) AS enabled_now;
SELECT pg_temp.masked(stream_id) AS stream_id, schema_name, table_name,
       creation_time = (ots.describe_table('st') -> 'stream_details' ->> 'last_enable_time')::bigint AS creation_time_ok
  FROM ots.list_stream('public.st');
-- an unqualified name is resolved in the caller's search_path, as every
-- table name is
SELECT table_name FROM ots.list_stream('st');
SELECT table_name FROM ots.list_stream('no_such_table');
SELECT pg_temp.masked(d::text)::jsonb - 'creation_time' AS describe_stream,
	   d -> 'creation_time' = (SELECT to_jsonb(creation_time) FROM ots.list_stream('public.st')) AS creation_time_ok
  FROM ots.describe_stream(pg_temp.sid('st')) d;
-- the storage of the stream
SELECT c.relname, c.relkind FROM pg_class c
 WHERE c.relname LIKE 'st$%' AND c.relnamespace = 'public'::regnamespace ORDER BY 1;
-- which shard a key is in: the partition key k decides; a, b, c, d are on
-- shard 0 and e, f, g, h on shard 1
SELECT count(*) AS put FROM unnest(ARRAY['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) k,
  LATERAL ots.put_row('st', jsonb_build_object('k', k, 'n', 0));
SELECT tableoid::regclass AS leaf, string_agg(k, ', ' ORDER BY k) AS keys FROM "st$data" GROUP BY 1 ORDER BY 1;
-- one transaction wrote both shards: in each, one commit, its records in write order
SELECT * FROM pg_temp.show('st');
DELETE FROM "st$data";
SELECT * FROM pg_temp.show('st');

--
-- put_row: PUT_ROW with every cell put, new or replacing a row; a server
-- timestamp is the stored cell's
--
SELECT consumed FROM ots.put_row('st', '{"k": "a", "n": 1}',
  '{"v": [{"value": 1, "ts": 1000}, {"value": 2, "ts": 2000}], "s": {"value": "x", "ts": 1500}}');
SELECT consumed FROM ots.put_row('st', '{"k": "e", "n": 1}', '{"v": 3, "s": "y"}');
SELECT shard, c, row_index, action, pk, cols, pg_temp.stored('st', pk, raw) FROM pg_temp.news('st');
-- replacing a row: the new row's cells only; a row without cells
SELECT consumed FROM ots.put_row('st', '{"k": "a", "n": 1}', '{"w": true}');
SELECT consumed FROM ots.put_row('st', '{"k": "a", "n": 2}');
SELECT shard, c, row_index, action, pk, cols, pg_temp.stored('st', pk, raw) FROM pg_temp.news('st');
SELECT array(SELECT jsonb_object_keys(attributes)) AS columns_left FROM ots.get_row('st', '{"k": "a", "n": 1}', max_versions => 10);

--
-- update_row: UPDATE_ROW with its operations as written (delete all
-- versions, delete one version, put, increment as the put of its value)
--
SELECT consumed FROM ots.put_row('st', '{"k": "b", "n": 1}',
  '{"v": [{"value": 1, "ts": 1000}, {"value": 2, "ts": 2000}], "s": {"value": "x", "ts": 1500}, "t": "gone"}');
SELECT count(*) FROM pg_temp.news('st');
-- put with a timestamp and without (the server's, stored as recorded)
SELECT consumed FROM ots.update_row('st', '{"k": "b", "n": 1}', put => '{"v": {"value": 3, "ts": 3000}, "u": "now"}');
SELECT shard, c, row_index, action, pk, cols, pg_temp.stored('st', pk, raw) FROM pg_temp.news('st');
-- delete one version; delete all versions
SELECT consumed FROM ots.update_row('st', '{"k": "b", "n": 1}', "delete" => '{"v": [1000, 9999]}');
SELECT consumed FROM ots.update_row('st', '{"k": "b", "n": 1}', delete_all => ARRAY['t']);
-- increments: the put of the new value, at its stored timestamp
SELECT consumed FROM ots.update_row('st', '{"k": "b", "n": 1}', increment => '{"cnt": 5}');
SELECT consumed FROM ots.update_row('st', '{"k": "b", "n": 1}', increment => '{"cnt": -7}');
SELECT shard, c, row_index, action, pk, cols, pg_temp.stored('st', pk, raw) FROM pg_temp.news('st');
-- everything in one call: by column name, a column's operations in the order they apply, whatever the order of the arguments
SELECT consumed FROM ots.update_row('st', '{"k": "b", "n": 1}', increment => '{"cnt": 1}',
  put => '{"v": {"value": 4, "ts": 4000}, "z": "new"}', "delete" => '{"v": 2000}', delete_all => ARRAY['s', 'u']);
SELECT shard, c, row_index, action, pk, cols, pg_temp.stored('st', pk, raw) FROM pg_temp.news('st');
SELECT (ots.get_row('st', '{"k": "b", "n": 1}', max_versions => 10)).attributes - 'z' - 'cnt' AS explicit;
-- a missing row: a put or an increment creates it (UPDATE_ROW); deleting
-- from it writes nothing, so it is no record
SELECT consumed FROM ots.update_row('st', '{"k": "f", "n": 1}', put => '{"v": {"value": 1, "ts": 1000}}');
SELECT consumed FROM ots.update_row('st', '{"k": "f", "n": 2}', increment => '{"cnt": 2}');
SELECT consumed FROM ots.update_row('st', '{"k": "f", "n": 3}', delete_all => ARRAY['v']);
SELECT consumed FROM ots.update_row('st', '{"k": "f", "n": 3}', "delete" => '{"v": 1000}');
SELECT * FROM pg_temp.show('st');
SELECT count(*) AS rows FROM "st$data" WHERE k = 'f';

--
-- delete_row: DELETE_ROW of a row there; a missing row is no record
--
SELECT consumed FROM ots.delete_row('st', '{"k": "f", "n": 2}');
SELECT consumed FROM ots.delete_row('st', '{"k": "f", "n": 9}');
SELECT consumed FROM ots.delete_row('st', '{"k": "a", "n": 2}', condition => 'EXPECT_EXIST');
SELECT * FROM pg_temp.show('st');

--
-- batch_write_row
--
-- row by row (a condition, an update): each row's record; a row whose
-- condition fails is none
SELECT index, is_ok, error_code FROM ots.batch_write_row('[{"table_name": "st", "rows": [
	{"type": "PUT", "primary_key": {"k": "c", "n": 1}, "attributes": {"v": {"value": 1, "ts": 1000}}, "condition": "EXPECT_NOT_EXIST"},
	{"type": "PUT", "primary_key": {"k": "a", "n": 1}, "attributes": {"v": {"value": 9, "ts": 9000}}, "condition": "EXPECT_NOT_EXIST"},
	{"type": "UPDATE", "primary_key": {"k": "g", "n": 1}, "put": {"v": {"value": 2, "ts": 2000}}, "increment": {"cnt": 3}},
	{"type": "DELETE", "primary_key": {"k": "f", "n": 1}, "condition": "EXPECT_EXIST"},
	{"type": "DELETE", "primary_key": {"k": "f", "n": 8}, "condition": "IGNORE"}]}]') ORDER BY index;
SELECT * FROM pg_temp.show('st');
-- in bulk: new rows (PUT_ROW), rows replaced (PUT_ROW, not UPDATE_ROW), deletes
SELECT pg_current_xact_id()::text::bigint AS xid0 \gset
SELECT count(*) FILTER (WHERE is_ok) AS ok FROM ots.batch_write_row(jsonb_build_array(jsonb_build_object(
	'table_name', 'st', 'rows', (SELECT jsonb_agg(jsonb_build_object('type', 'PUT',
		'primary_key', jsonb_build_object('k', k, 'n', 10), 'attributes', jsonb_build_object('v', jsonb_build_object('value', k, 'ts', 1000))))
	  FROM unnest(ARRAY['a', 'b', 'e', 'h']) k))));
SELECT count(*) FILTER (WHERE is_ok) AS ok FROM ots.batch_write_row(jsonb_build_array(jsonb_build_object(
	'table_name', 'st', 'rows', jsonb_build_array(
		jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('k', 'a', 'n', 10), 'attributes', jsonb_build_object('w', jsonb_build_object('value', 1, 'ts', 1000))),
		jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('k', 'e', 'n', 10), 'attributes', jsonb_build_object('w', jsonb_build_object('value', 2, 'ts', 1000))),
		jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('k', 'd', 'n', 10), 'attributes', jsonb_build_object('w', jsonb_build_object('value', 3, 'ts', 1000))),
		jsonb_build_object('type', 'DELETE', 'primary_key', jsonb_build_object('k', 'b', 'n', 10)),
		jsonb_build_object('type', 'DELETE', 'primary_key', jsonb_build_object('k', 'h', 'n', 10)),
		jsonb_build_object('type', 'DELETE', 'primary_key', jsonb_build_object('k', 'h', 'n', 11))))));
-- (the bulk way: one subtransaction per call, not one per row)
SELECT pg_current_xact_id()::text::bigint - :xid0 < 6 AS bulk_way;
SELECT * FROM pg_temp.show('st');
-- atomic (one partition key): the rows of the call in one commit; a
-- failing row leaves nothing
SELECT index, is_ok, error_code FROM ots.batch_write_row('[{"table_name": "st", "rows": [
	{"type": "PUT", "primary_key": {"k": "a", "n": 20}, "attributes": {"v": {"value": 1, "ts": 1000}}},
	{"type": "UPDATE", "primary_key": {"k": "a", "n": 21}, "put": {"v": {"value": 2, "ts": 1000}}, "increment": {"cnt": 1}},
	{"type": "DELETE", "primary_key": {"k": "a", "n": 10}}]}]', is_atomic => true) ORDER BY index;
SELECT index, is_ok, error_code FROM ots.batch_write_row('[{"table_name": "st", "rows": [
	{"type": "PUT", "primary_key": {"k": "a", "n": 22}, "attributes": {"v": {"value": 1, "ts": 1000}}},
	{"type": "PUT", "primary_key": {"k": "a", "n": 20}, "condition": "EXPECT_NOT_EXIST"}]}]', is_atomic => true) ORDER BY index;
SELECT * FROM pg_temp.show('st');

--
-- the table's view: INSERT, UPDATE, DELETE and COPY go through the row API
--
INSERT INTO st (k, n, attributes) VALUES ('c', 30, '{"v": 1}'), ('g', 30, '{"v": 2}');
UPDATE st SET attributes = '{"v": 3, "w": 4}' WHERE k = 'c' AND n = 30;
DELETE FROM st WHERE k = 'g' AND n = 30;
COPY st (k, n, attributes) FROM stdin;
d	31	{"v": 5}
h	31	{"v": 6}
\.
SELECT * FROM pg_temp.show('st');

--
-- plain SQL on the storage (as its owner): INSERT is PUT_ROW, DELETE
-- DELETE_ROW, UPDATE the UPDATE_ROW of what differs
--
INSERT INTO "st$data" (k, n, "$cells", "$oldest_ts")
	SELECT k, 40, "$cells", "$oldest_ts" FROM "st$data" WHERE k = 'b' AND n = 1;
-- b/40 becomes b/41: columns gone (DELETE_ALL_VERSIONS), versions gone
-- (DELETE_ONE_VERSION), versions new or with another value (PUT)
SELECT consumed FROM ots.put_row('st', '{"k": "b", "n": 41}',
  '{"v": [{"value": 5, "ts": 4000}, {"value": 2, "ts": 2000}], "w": {"value": "w", "ts": 1000}}');
SELECT n, (ots.get_row('st', jsonb_build_object('k', k, 'n', n), max_versions => 10)).attributes - 'cnt' - 'z' AS explicit
  FROM (VALUES ('b', 40), ('b', 41)) r(k, n);
UPDATE "st$data" SET ("$cells", "$oldest_ts") = (SELECT "$cells", "$oldest_ts" FROM "st$data" WHERE k = 'b' AND n = 41)
 WHERE k = 'b' AND n = 40;
-- an UPDATE that changes nothing is an UPDATE_ROW without operations
UPDATE "st$data" SET "$oldest_ts" = "$oldest_ts" WHERE k = 'b' AND n = 40;
DELETE FROM "st$data" WHERE k = 'b' AND n = 40;
SELECT * FROM pg_temp.show('st');
-- TRUNCATE would change rows no record names
TRUNCATE "st$p0";
TRUNCATE "st$data";
SELECT count(*) > 0 AS rows_kept FROM "st$p0";

--
-- committed transactions only; a transaction's records are together, in
-- write order
--
BEGIN;
SELECT consumed FROM ots.put_row('st', '{"k": "a", "n": 50}');
ROLLBACK;
BEGIN;
SELECT consumed FROM ots.put_row('st', '{"k": "a", "n": 51}', '{"v": {"value": 1, "ts": 1000}}');
SAVEPOINT s1;
SELECT consumed FROM ots.put_row('st', '{"k": "a", "n": 52}');
SELECT consumed FROM ots.put_row('st', '{"k": "e", "n": 52}');
ROLLBACK TO SAVEPOINT s1;
SELECT consumed FROM ots.update_row('st', '{"k": "a", "n": 1}', put => '{"x": {"value": 1, "ts": 1000}}');
SELECT consumed FROM ots.put_row('st', '{"k": "e", "n": 51}', '{"v": {"value": 1, "ts": 1000}}');
SELECT consumed FROM ots.delete_row('st', '{"k": "a", "n": 51}');
COMMIT;
-- a failed statement's records go with it
INSERT INTO st (k, n, attributes) VALUES ('a', 53, '{}'), ('e', 53, '{}'), ('a', 54, '{"v": {"value": 1, "ts": -1}}');
SELECT * FROM pg_temp.show('st');
-- two commits in a shard: the later has the later position
SELECT consumed FROM ots.put_row('st', '{"k": "c", "n": 54}');
SELECT consumed FROM ots.put_row('st', '{"k": "d", "n": 54}');
SELECT c, pk, pos > lag(pos) OVER (ORDER BY c) AS later FROM pg_temp.news('st');

--
-- purge removes what reads no longer see: no records
--
SELECT ots.create_table('st_ttl', 'k string', max_version_offset => 9223372036854,
                        partitions => 1, stream_enabled => true);
SELECT consumed FROM ots.put_row('st_ttl', '{"k": "old"}', '{"v": {"value": 1, "ts": 1000}}');
SELECT consumed FROM ots.put_row('st_ttl', '{"k": "mixed"}', '{"v": [{"value": 1, "ts": 1000}, {"value": 2, "ts": 3000}], "w": "new"}');
SELECT count(*) FROM pg_temp.news('st_ttl');
-- a day's TTL: the cells of 1970 expire
SELECT ots.update_table('st_ttl', time_to_live => 86400);
SELECT k, ots.cells_count("$cells") AS stored_cells FROM "st_ttl$data" ORDER BY k;
CALL ots.purge('st_ttl');
SELECT k, ots.cells_count("$cells") AS stored_cells FROM "st_ttl$data" ORDER BY k;
SELECT k, (SELECT coalesce(jsonb_object_agg(c, jsonb_array_length(v)), '{}')
			 FROM jsonb_each((ots.get_row('st_ttl', jsonb_build_object('k', k), max_versions => 10)).attributes) e(c, v)) AS visible_versions
  FROM "st_ttl$data" ORDER BY k;
SELECT * FROM pg_temp.show('st_ttl');
SELECT coalesce(sum(cardinality(records)), 0) AS records, count(*) AS commits FROM "st_ttl$log" WHERE id <> 0;

--
-- resuming: reading from each next_shard_iterator reads every record once
--
SELECT ots.create_table('st_r', 'k string, n integer', partitions => 2, stream_enabled => true);
-- three transactions of 1, 2 and 3 rows in each shard, 10 ms apart
DO $$
BEGIN
	FOR t IN 1..3 LOOP
		PERFORM ots.put_row('st_r', jsonb_build_object('k', k, 'n', t * 10 + i))
		   FROM unnest(ARRAY['a', 'e']) k, generate_series(1, t) i;
		COMMIT;
		PERFORM pg_sleep(0.01);
	END LOOP;
END
$$;
-- records of shard s from iterator it on, read lim at a time until caught
-- up: the records (without their columns) and the iterator to go on from
CREATE FUNCTION pg_temp.read_all(it text, lim integer, OUT recs jsonb, OUT next text, OUT calls integer)
	LANGUAGE plpgsql AS $$
DECLARE
	res jsonb;
BEGIN
	recs := '[]';
	calls := 0;
	LOOP
		res := ots.get_stream_record(it, lim);
		calls := calls + 1;
		it := res ->> 'next_shard_iterator';
		EXIT WHEN jsonb_array_length(res -> 'stream_records') = 0;
		recs := recs || (res -> 'stream_records');
	END LOOP;
	next := it;
END
$$;
-- by 1, 2 or 5 (a transaction's records over several calls): the same as all at once
SELECT s AS shard, lim, jsonb_array_length(r.recs) AS records, r.calls,
	   r.recs = (pg_temp.read_all(ots.get_shard_iterator(pg_temp.sid('st_r'), s::text), 1000)).recs AS same,
	   (SELECT count(DISTINCT x) FROM jsonb_array_elements(r.recs) x) AS distinct_records
  FROM generate_series(0, 1) s, unnest(ARRAY[1, 2, 5]) lim,
	   LATERAL pg_temp.read_all(ots.get_shard_iterator(pg_temp.sid('st_r'), s::text), lim) r
 ORDER BY 1, 2;
-- the records of shard 0: three commits of 1, 2 and 3 rows
SELECT (x -> 'sequence_info' ->> 'row_index')::integer AS row_index, x -> 'primary_key' AS pk,
	   dense_rank() OVER (ORDER BY (x -> 'sequence_info' ->> 'timestamp')::bigint) AS c
  FROM jsonb_array_elements((pg_temp.read_all(ots.get_shard_iterator(pg_temp.sid('st_r'), '0'), 1000)).recs) x;
-- caught up: no records, and the iterator stays where it is; a new commit then appears
SELECT (pg_temp.read_all(ots.get_shard_iterator(pg_temp.sid('st_r'), '0'), 1000)).next AS caught_up \gset
SELECT r -> 'stream_records' AS records, r ->> 'next_shard_iterator' = :'caught_up' AS same_iterator
  FROM ots.get_stream_record(:'caught_up') r;
SELECT consumed FROM ots.put_row('st_r', '{"k": "b", "n": 1}');
SELECT jsonb_path_query_array(r, '$.stream_records[*].primary_key') AS pks,
	   r ->> 'next_shard_iterator' = :'caught_up' AS same_iterator
  FROM ots.get_stream_record(:'caught_up') r;
-- an iterator in the middle of a transaction's records, kept for a new session (below)
SELECT ots.get_stream_record(ots.get_shard_iterator(pg_temp.sid('st_r'), '0'), 2) ->> 'next_shard_iterator' AS saved_iterator \gset
SELECT jsonb_path_query_array((pg_temp.read_all(:'saved_iterator', 1000)).recs, '$[*].primary_key') AS after_saved;
-- the "timestamp" (ms) of get_shard_iterator: the first commit at or after it
SELECT (x -> 'sequence_info' ->> 'timestamp')::bigint AS second_commit
  FROM jsonb_array_elements((pg_temp.read_all(ots.get_shard_iterator(pg_temp.sid('st_r'), '0'), 1000)).recs) x
 WHERE x -> 'sequence_info' ->> 'row_index' = '0' AND x -> 'primary_key' ->> 'n' = '21' \gset
SELECT ts, jsonb_path_query_array((pg_temp.read_all(ots.get_shard_iterator(pg_temp.sid('st_r'), '0', ms), 1000)).recs,
								  '$[*].primary_key.n') AS n
  FROM (VALUES ('0', 0), ('second commit, floor', :second_commit::bigint / 1000),
			   ('second commit + 1 ms', :second_commit::bigint / 1000 + 1),
			   ('in an hour', (ots.stream_time(now()) / 1000) + 3600000)) v(ts, ms);

--
-- expiry: records older than stream_expiration_hours are gone for readers;
-- positions are commit times (µs), so moving them 25 hours back ages them
--
SELECT ots.create_table('st_x', 'k string, n integer', partitions => 2, stream_enabled => true);
SELECT consumed FROM ots.put_row('st_x', '{"k": "a", "n": 1}');
SELECT consumed FROM ots.put_row('st_x', '{"k": "a", "n": 2}');
SELECT consumed FROM ots.put_row('st_x', '{"k": "a", "n": 3}');
SELECT consumed FROM ots.put_row('st_x', '{"k": "e", "n": 1}');
-- an iterator at the second commit of shard 0
SELECT ots.get_stream_record(ots.get_shard_iterator(pg_temp.sid('st_x'), '0'), 1) ->> 'next_shard_iterator' AS it_x \gset
-- ages an iterator as the log: its position 25 hours back
CREATE FUNCTION pg_temp.aged(it text) RETURNS text LANGUAGE sql AS $$
	SELECT split_part(it, ':', 1) || ':' || split_part(it, ':', 2) || ':' ||
		   (split_part(it, ':', 3)::bigint - 25 * 3600 * 1000000::bigint) || ':' || split_part(it, ':', 4)
$$;
UPDATE "st_x$log" SET position = position - 25 * 3600 * 1000000::bigint WHERE shard = 0;
SELECT consumed FROM ots.put_row('st_x', '{"k": "a", "n": 4}');
-- the aged iterator: its records have expired, but are kept until purge
-- removes them (a record is kept at least its expiration): it reads on
SELECT jsonb_path_query_array((pg_temp.read_all(pg_temp.aged(:'it_x'), 100)).recs, '$[*].primary_key') AS pks;
-- a new iterator starts after the expired entries; shard 1 is untouched
SELECT s AS shard, jsonb_path_query_array((pg_temp.read_all(ots.get_shard_iterator(pg_temp.sid('st_x'), s::text), 100)).recs,
										  '$[*].primary_key') AS pks
  FROM generate_series(0, 1) s;
-- with 48 hours they are there again
SELECT ots.update_table('st_x', stream_expiration_hours => 48);
SELECT jsonb_path_query_array((pg_temp.read_all(pg_temp.aged(:'it_x'), 100)).recs, '$[*].primary_key') AS pks;
SELECT ots.update_table('st_x', stream_expiration_hours => 24);
-- purge removes the expired entries and their records, and leaves a trim
-- marker (id 0) at the last position it removed
SELECT shard, count(*) FILTER (WHERE id <> 0) AS entries, count(*) FILTER (WHERE id = 0) AS markers FROM "st_x$log" GROUP BY 1 ORDER BY 1;
SELECT shard, sum(cardinality(records)) AS records FROM "st_x$log" GROUP BY 1 ORDER BY 1;
SELECT max(position) AS last_expired FROM "st_x$log" WHERE shard = 0 AND id <> 0
   AND position < ots.stream_time(now()) - 24 * 3600 * 1000000::bigint \gset
CALL ots.purge('st_x');
SELECT shard, count(*) FILTER (WHERE id <> 0) AS entries, count(*) FILTER (WHERE id = 0) AS markers,
	   bool_or(id = 0 AND position = :last_expired) AS marker_at_last_removed
  FROM "st_x$log" GROUP BY 1 ORDER BY 1;
SELECT shard, sum(cardinality(records)) AS records FROM "st_x$log" GROUP BY 1 ORDER BY 1;
-- an iterator before the marker is trimmed, even with a longer expiration;
-- one just after it, and a new one, read on
SELECT pg_temp.try(format('SELECT ots.get_stream_record(%L)', pg_temp.sid('st_x') || ':0:0:0'));
SELECT ots.update_table('st_x', stream_expiration_hours => 48);
SELECT pg_temp.masked(ots.describe_table('st_x') -> 'stream_details' ->> 'stream_id') AS stream_id,
	   ots.describe_table('st_x') -> 'stream_details' -> 'expiration_time' AS expiration;
SELECT pg_temp.try(format('SELECT ots.get_stream_record(%L)', pg_temp.aged(:'it_x')));
SELECT jsonb_path_query_array((pg_temp.read_all(format('%s:0:%s:0', pg_temp.sid('st_x'), :last_expired + 1), 100)).recs,
							  '$[*].primary_key') AS after_marker,
	   jsonb_path_query_array((pg_temp.read_all(ots.get_shard_iterator(pg_temp.sid('st_x'), '0'), 100)).recs,
							  '$[*].primary_key') AS new_iterator;
-- purge again: nothing expired, the marker stays
CALL ots.purge('st_x');
SELECT shard, count(*) FILTER (WHERE id <> 0) AS entries, count(*) FILTER (WHERE id = 0) AS markers FROM "st_x$log" GROUP BY 1 ORDER BY 1;

--
-- disabling and enabling again: a new stream, without the old records
--
SELECT pg_temp.sid('st_x') AS old_sid \gset
SELECT ots.get_shard_iterator(:'old_sid', '1') AS old_it \gset
SELECT ots.update_table('st_x', stream_enabled => false);
SELECT ots.describe_table('st_x') -> 'stream_details' AS stream_details;
SELECT count(*) FROM ots.list_stream() WHERE table_name = 'st_x';
SELECT to_regclass('"st_x$log"') AS log, to_regclass('"st_x$rec"') AS rec;
SELECT consumed FROM ots.put_row('st_x', '{"k": "e", "n": 2}');
SELECT pg_temp.try(format('SELECT ots.get_stream_record(%L)', :'old_it')) AS old_iterator;
SELECT pg_temp.try(format('SELECT ots.describe_stream(%L)', :'old_sid')) AS old_stream,
	   pg_temp.try(format('SELECT ots.get_shard_iterator(%L, ''0'')', :'old_sid')) AS old_stream_iterator;
SELECT ots.update_table('st_x', stream_enabled => true);
SELECT pg_temp.sid('st_x') <> :'old_sid' AS new_id,
	   ots.describe_table('st_x') -> 'stream_details' -> 'expiration_time' AS expiration;
SELECT consumed FROM ots.put_row('st_x', '{"k": "e", "n": 3}');
SELECT * FROM pg_temp.show('st_x');
SELECT pg_temp.try(format('SELECT ots.get_stream_record(%L)', :'old_it')) AS old_iterator;
-- the expiration changes, the stream stays
SELECT pg_temp.sid('st_x') AS sid \gset
SELECT ots.update_table('st_x', stream_expiration_hours => 48);
SELECT pg_temp.sid('st_x') = :'sid' AS same_id, ots.describe_table('st_x') -> 'stream_details' -> 'expiration_time' AS expiration;
SELECT * FROM pg_temp.show('st_x');
-- enabling an enabled stream keeps it too
SELECT ots.update_table('st_x', stream_enabled => true);
SELECT pg_temp.sid('st_x') = :'sid' AS same_id;

--
-- errors
--
SELECT pg_temp.sid('st') AS sid \gset
-- iterators: malformed, of another stream, of a shard not there
SELECT what, pg_temp.try(format('SELECT ots.get_stream_record(%L)', it)) AS result
  FROM (VALUES ('empty', ''), ('x', 'x'), ('<st>', :'sid'), ('<st>:0', :'sid' || ':0'), ('<st>:0:1', :'sid' || ':0:1'),
			   ('<st>:0:1:0:0', :'sid' || ':0:1:0:0'), ('<st>:-1:1:0', :'sid' || ':-1:1:0'),
			   ('<st>:0:-1:0', :'sid' || ':0:-1:0'), ('<st>:0:1:-1', :'sid' || ':0:1:-1'), ('<st>:a:1:0', :'sid' || ':a:1:0'),
			   ('<st>:0:1:0 (a trailing space)', :'sid' || ':0:1:0 '), ('<ST>:0:1:0 (upper case)', upper(:'sid') || ':0:1:0'),
			   ('<st>:2:1:0 (no shard 2)', :'sid' || ':2:1:0'),
			   ('zero UUID:0:1:0', '00000000-0000-0000-0000-000000000000:0:1:0'), ('st:0:1:0', 'st:0:1:0')) v(what, it);
SELECT pg_temp.try('SELECT ots.get_stream_record(NULL)') AS null_iterator;
-- limits: at least 1; at most 10000 records a call, and about 4 MB
SELECT lim, pg_temp.val(format('SELECT jsonb_array_length(ots.get_stream_record(''%s:0:0:0'', %s) -> ''stream_records'')',
							  :'sid', coalesce(lim::text, 'NULL'))) AS result
  FROM unnest(ARRAY[0, -1, 1, NULL]) lim;
SELECT ots.create_table('st_big', 'k integer', partitions => 1, stream_enabled => true);
SELECT consumed FROM ots.put_row('st_big', '{"k": 0}', '{"v": 1}');
INSERT INTO "st_big$data" (k, "$cells", "$oldest_ts")
	SELECT g, "$cells", "$oldest_ts" FROM "st_big$data", generate_series(1, 10001) g;
SELECT count(*) AS put FROM generate_series(1, 3) g,
  LATERAL ots.put_row('st_big', jsonb_build_object('k', -g), jsonb_build_object('s', repeat('x', 2097152)));
SELECT lim, jsonb_array_length(r.recs) AS records, r.calls
  FROM unnest(ARRAY[100, 10000, 10001, 2147483647]) lim,
	   LATERAL pg_temp.read_all(ots.get_shard_iterator(pg_temp.sid('st_big'), '0'), lim) r;
-- after 10000 records, the rest: 2 MB records end a call after about 4 MB,
-- the next goes on in the same commit
SELECT ots.get_stream_record(ots.get_shard_iterator(pg_temp.sid('st_big'), '0'), 10001) ->> 'next_shard_iterator' AS it_big \gset
SELECT jsonb_path_query_array(r, '$.stream_records[*].primary_key.k') AS ks,
	   jsonb_path_query_array(r, '$.stream_records[*].sequence_info.row_index') AS row_index,
	   (SELECT jsonb_agg(length(c ->> 'value')) FROM jsonb_path_query(r, '$.stream_records[*].columns[*]') c) AS lengths
  FROM ots.get_stream_record(:'it_big', 10001) r;
SELECT ots.get_stream_record(:'it_big', 10001) ->> 'next_shard_iterator' AS it_big \gset
SELECT jsonb_path_query_array(r, '$.stream_records[*].primary_key.k') AS ks,
	   jsonb_path_query_array(r, '$.stream_records[*].sequence_info.row_index') AS row_index
  FROM ots.get_stream_record(:'it_big') r;
-- shard ids
SELECT shard, pg_temp.try(format('SELECT ots.get_shard_iterator(%L, %L)', :'sid', shard)) AS result
  FROM unnest(ARRAY['0', '1', '2', '-1', '01', '+1', '1 ', '', 'x', '99999999999', NULL]) WITH ORDINALITY u(shard, i)
 ORDER BY i;
SELECT pg_temp.try(format('SELECT ots.get_shard_iterator(%L, ''0'', %s)', :'sid', ms)) AS result
  FROM unnest(ARRAY[-1, 9223372036854775, 9223372036854774]) ms;
-- streams
SELECT sid, pg_temp.try(format('SELECT ots.get_shard_iterator(%L, ''0'')', sid)) AS get_shard_iterator,
	   pg_temp.try(format('SELECT ots.describe_stream(%L)', sid)) AS describe_stream
  FROM unnest(ARRAY['00000000-0000-0000-0000-000000000000', 'st', '', 'x'' OR true --', NULL]) sid;
-- describe_stream pages through the shards
SELECT ots.create_table('st_p', 'k string', partitions => 5, stream_enabled => true);
SELECT start, lim,
	   pg_temp.val(format('SELECT jsonb_path_query_array(d, ''$.shards[*].shard_id'') || jsonb_build_array(d -> ''next_shard_id'')'
						  ' FROM ots.describe_stream(%L, %L, %s) d', pg_temp.sid('st_p'), start, coalesce(lim::text, 'NULL'))) AS shards_then_next
  FROM (VALUES (NULL, NULL), (NULL, 2), ('2', 2), ('4', 2), ('3', NULL), ('0', 5), ('0', 6), ('4', 2147483647),
			   ('5', 1), ('-1', 1), ('01', 1), ('x', 1), ('0', 0), ('0', -1)) v(start, lim);
-- stream options
SELECT pg_temp.try(format('SELECT ots.create_table(%L, ''k string'', stream_enabled => true, stream_expiration_hours => %s)', 'st_e' || replace(h::text, '-', 'm'), h)) AS create_table,
	   pg_temp.try(format('SELECT ots.update_table(''st'', stream_expiration_hours => %s)', h)) AS update_table
  FROM unnest(ARRAY[0, 169, -1, 1, 168]) h;
SELECT table_name, ots.describe_table(table_name) -> 'stream_details' -> 'expiration_time' AS expiration
  FROM ots.list_stream() WHERE table_name LIKE 'st\_e%' ORDER BY 1;
SELECT ots.update_table('st', stream_expiration_hours => 24);
SELECT pg_temp.try('SELECT ots.update_table(''st_p'', stream_enabled => false)') AS disable,
	   pg_temp.try('SELECT ots.update_table(''st_p'', stream_expiration_hours => 2)') AS expiration_without_stream,
	   pg_temp.try('SELECT ots.update_table(''st_p'', stream_enabled => false)') AS disable_again;
-- not on an index table
SELECT ots.create_table('st_i', 'k string', defined_columns => 'v string', stream_enabled => true);
SET ots.index_build_worker = off;
SELECT ots.create_index('st_i', 'st_i_v', ARRAY['v']);
RESET ots.index_build_worker;
SELECT pg_temp.try('SELECT ots.update_table(''st_i_v'', stream_enabled => true)') AS index_stream,
	   pg_temp.try('SELECT ots.update_table(''st_i_v'', stream_expiration_hours => 2)') AS index_expiration;
SELECT count(*) FROM ots.list_stream() WHERE table_name LIKE 'st\_i%';
-- the base table's stream records its writes; the index's are none of it
SELECT consumed FROM ots.put_row('st_i', '{"k": "a"}', '{"v": "x"}');
SELECT * FROM pg_temp.show('st_i');

--
-- privileges: reading a stream needs SELECT on the table's storage, and
-- no row-level security applying; a table the role may not see has no stream for it
--
CREATE ROLE regress_ots_stream_none;
CREATE ROLE regress_ots_stream_write;
CREATE ROLE regress_ots_stream_read;
GRANT INSERT, UPDATE, DELETE ON "st$data" TO regress_ots_stream_write;
GRANT SELECT ON "st$data" TO regress_ots_stream_read;
GRANT SELECT, INSERT, UPDATE, DELETE ON stream_cursor TO regress_ots_stream_none, regress_ots_stream_write, regress_ots_stream_read;
SELECT consumed FROM ots.put_row('st', '{"k": "a", "n": 60}', '{"v": {"value": 1, "ts": 1000}}');
SELECT set_config('stream.sid', :'sid', false) IS NOT NULL AS set,
	   set_config('stream.it', ots.get_shard_iterator(:'sid', '0'), false) IS NOT NULL AS set;
-- every stream call of a role, and what it does
CREATE FUNCTION pg_temp.access(calls text DEFAULT '%') RETURNS TABLE (call text, result text) LANGUAGE sql AS $$
	SELECT call, pg_temp.val(q) FROM (VALUES
		(1, 'list_stream', $q$SELECT string_agg(table_name, ', ' ORDER BY table_name) FROM ots.list_stream() WHERE table_name = 'st'$q$),
		(2, 'list_stream(public.st)', $q$SELECT count(*) FROM ots.list_stream('public.st')$q$),
		(3, 'describe_stream', format($q$SELECT ots.describe_stream(%L) ->> 'table_name'$q$, current_setting('stream.sid'))),
		(4, 'get_shard_iterator', format($q$SELECT ots.get_shard_iterator(%L, '0') IS NOT NULL$q$, current_setting('stream.sid'))),
		(5, 'get_stream_record', format($q$SELECT jsonb_path_query_array(ots.get_stream_record(%L), '$.stream_records[*].primary_key.n')$q$,
								   current_setting('stream.it'))),
		(6, 'update_table stream_enabled', $q$SELECT ots.update_table('st', stream_enabled => false)$q$),
		(7, 'update_table stream_expiration_hours', $q$SELECT ots.update_table('st', stream_expiration_hours => 1)$q$),
		(8, 'stream_trim', $q$SELECT ots.stream_trim('public', 'st', 100)$q$),
		(9, 'SELECT "st$rec"', $q$SELECT count(*) FROM "st$rec"$q$),
		(10, 'DELETE "st$log"', $q$DELETE FROM "st$log"$q$)) v(n, call, q)
	 WHERE call LIKE calls
	 ORDER BY n
$$;
SET ROLE regress_ots_stream_none;
SELECT * FROM pg_temp.access();
CALL ots.purge('st');
RESET ROLE;
SET ROLE regress_ots_stream_write;
SELECT * FROM pg_temp.access();
RESET ROLE;
SET ROLE regress_ots_stream_read;
SELECT * FROM pg_temp.access();
RESET ROLE;
-- row-level security on the storage: refused to all but its owner
ALTER TABLE "st$data" ENABLE ROW LEVEL SECURITY;
CREATE POLICY st_all ON "st$data" USING (true);
SET ROLE regress_ots_stream_read;
SELECT * FROM pg_temp.access('get%');
RESET ROLE;
SELECT * FROM pg_temp.access('get%');
DROP POLICY st_all ON "st$data";
ALTER TABLE "st$data" DISABLE ROW LEVEL SECURITY;
-- the stream is still there, and its records
SELECT pg_temp.sid('st') = :'sid' AS same_id, sum(cardinality(records)) AS records FROM "st$log";
REVOKE ALL ON "st$data", stream_cursor FROM regress_ots_stream_none, regress_ots_stream_write, regress_ots_stream_read;
DROP ROLE regress_ots_stream_none;
DROP ROLE regress_ots_stream_write;
DROP ROLE regress_ots_stream_read;

--
-- a large transaction: its records beyond 256 kB of a shard go to "$rec" as
-- it runs, the rest with its commit; a savepoint rolled back drops its own
-- either way; the reader pages across the two in order, row_index dense
-- where nothing was dropped
--
SELECT ots.create_table('st_spill', 'k integer', stream_enabled => true, partitions => 1);
BEGIN;
SELECT count(*) FROM (SELECT ots.put_row('st_spill', jsonb_build_object('k', i), jsonb_build_object('v', repeat('x', 1000)))
						FROM generate_series(1, 600) i) p;
SAVEPOINT s;
SELECT count(*) FROM (SELECT ots.put_row('st_spill', jsonb_build_object('k', i), '{"v": 1}')
						FROM generate_series(601, 610) i) p;
ROLLBACK TO s;
SELECT count(*) FROM (SELECT ots.put_row('st_spill', jsonb_build_object('k', i), '{"v": 2}')
						FROM generate_series(611, 612) i) p;
COMMIT;
SELECT l.spilled > 0 AS spilled, l.spilled = r.n AS spilled_in_rec, l.spilled + cardinality(l.records) AS records
  FROM "st_spill$log" l, LATERAL (SELECT count(*) AS n FROM "st_spill$rec" r WHERE r.id = l.id) r;
WITH RECURSIVE pages(n, r) AS (
	SELECT 1, ots.get_stream_record(ots.get_shard_iterator(pg_temp.sid('st_spill'), '0'), 250)
	UNION ALL
	SELECT n + 1, ots.get_stream_record(r ->> 'next_shard_iterator', 250) FROM pages
	 WHERE jsonb_array_length(r -> 'stream_records') > 0)
SELECT count(*) AS records,
	   count(DISTINCT e -> 'primary_key') AS keys,
	   bool_and((e -> 'sequence_info' ->> 'row_index')::int = (n - 1) * 250 + o - 1) AS row_index_dense,
	   array_agg((e -> 'primary_key' ->> 'k')::int ORDER BY n, o) FILTER (WHERE (e -> 'primary_key' ->> 'k')::int > 600) AS after_savepoint,
	   count(DISTINCT n) FILTER (WHERE jsonb_array_length(r -> 'stream_records') > 0) AS calls
  FROM pages, jsonb_array_elements(r -> 'stream_records') WITH ORDINALITY x(e, o);
-- in key order, which was the order written
WITH RECURSIVE pages(n, r) AS (
	SELECT 1, ots.get_stream_record(ots.get_shard_iterator(pg_temp.sid('st_spill'), '0'), 250)
	UNION ALL
	SELECT n + 1, ots.get_stream_record(r ->> 'next_shard_iterator', 250) FROM pages
	 WHERE jsonb_array_length(r -> 'stream_records') > 0)
SELECT bool_and(k > prev) AS in_write_order
  FROM (SELECT k, lag(k, 1, 0) OVER (ORDER BY n, o) AS prev
		  FROM pages, jsonb_array_elements(r -> 'stream_records') WITH ORDINALITY x(e, o),
			   LATERAL (SELECT (e -> 'primary_key' ->> 'k')::int AS k) kk) w;
-- purge removes the spilled records with their entry once it expires
UPDATE "st_spill$log" SET position = position - 25 * 3600 * 1000000::bigint;
CALL ots.purge('st_spill');
SELECT (SELECT count(*) FROM "st_spill$rec") AS spilled_left, (SELECT count(*) FROM "st_spill$log" WHERE id <> 0) AS entries_left;

-- records of an outer level stay in memory while a subtransaction runs,
-- however many it writes: its rollback cannot take them along
BEGIN;
SELECT (ots.put_row('st_spill', '{"k": 2000}', '{"v": 5}')).consumed IS NOT NULL AS put;
SAVEPOINT s;
SELECT count(*) FROM (SELECT ots.put_row('st_spill', jsonb_build_object('k', i), jsonb_build_object('v', repeat('y', 1000)))
						FROM generate_series(2001, 2400) i) p;
ROLLBACK TO s;
COMMIT;
SELECT jsonb_path_query_array(ots.get_stream_record(ots.get_shard_iterator(pg_temp.sid('st_spill'), '0')),
							  '$.stream_records[*].primary_key') AS recorded,
	   (SELECT count(*) FROM "st_spill$rec") AS spilled_left;

-- COPY into the view runs its batches of 1,000 rows in subtransactions of
-- its own: what one released is written out as the next one commits, so
-- memory stays bounded (5,000 records of 1 kB)
COPY st_spill (k, attributes) FROM PROGRAM
	$$awk 'BEGIN { s = sprintf("%1000s", ""); gsub(/ /, "z", s); for (i = 5001; i <= 10000; i++) printf "%d\t{\"v\": \"%s\"}\n", i, s }'$$;
SELECT count(*) > 4000 AS most_written_out,
	   (SELECT cardinality(records) < 1000 FROM "st_spill$log" ORDER BY position DESC LIMIT 1) AS small_entry
  FROM "st_spill$rec";
WITH RECURSIVE pages(n, r) AS (
	SELECT 1, ots.get_stream_record(ots.get_shard_iterator(pg_temp.sid('st_spill'), '0'), 10000)
	UNION ALL
	SELECT n + 1, ots.get_stream_record(r ->> 'next_shard_iterator', 10000) FROM pages
	 WHERE jsonb_array_length(r -> 'stream_records') > 0)
SELECT count(*) FILTER (WHERE (e -> 'primary_key' ->> 'k')::int > 5000) AS copied_records
  FROM pages, jsonb_array_elements(r -> 'stream_records') e;

-- a stream relation changed by hand is refused, never read as it is
ALTER TABLE "st_spill$log" ALTER records DROP NOT NULL;
SELECT ots.get_stream_record(ots.get_shard_iterator(pg_temp.sid('st_spill'), '0'));
SELECT ots.put_row('st_spill', '{"k": 3000}', '{"v": 6}');
ALTER TABLE "st_spill$log" ALTER records SET NOT NULL;
-- so is a stored PUT_ROW whose cells were changed by hand (checked before they are read)
UPDATE "st_spill$log" SET records = ARRAY['{"action_type": "PUT_ROW", "primary_key": {"k": 1}, "$cells": "AQID"}'::jsonb]
 WHERE position = (SELECT max(position) FROM "st_spill$log");
SELECT pg_temp.try(format('SELECT pg_temp.read_all(%L, 10000)', ots.get_shard_iterator(pg_temp.sid('st_spill'), '0')));
UPDATE "st_spill$log" SET records = ARRAY['{"action_type": "PUT_ROW", "primary_key": {"k": 1}, "$cells": "not base64!"}'::jsonb]
 WHERE position = (SELECT max(position) FROM "st_spill$log");
SELECT pg_temp.try(format('SELECT pg_temp.read_all(%L, 10000)', ots.get_shard_iterator(pg_temp.sid('st_spill'), '0')));
DELETE FROM "st_spill$log" WHERE position = (SELECT max(position) FROM "st_spill$log");

--
-- changes made with session_replication_role = replica (a logical
-- replication apply, a data-only restore with --disable-triggers) make no
-- records, as ordinary triggers do not fire for them
--
SET session_replication_role = replica;
SELECT (ots.put_row('st_spill', '{"k": 1000}', '{"v": 3}')).consumed IS NOT NULL AS put;
RESET session_replication_role;
SELECT (ots.put_row('st_spill', '{"k": 1001}', '{"v": 4}')).consumed IS NOT NULL AS put;
SELECT jsonb_path_query_array((pg_temp.read_all(ots.get_shard_iterator(pg_temp.sid('st_spill'), '0'), 10000)).recs,
							  '$[*].primary_key ? (@.k < 5000 || @.k > 10000)') AS recorded;

--
-- a new session resumes from a saved iterator: the records after it, once
--
\c
SET client_min_messages = warning;
SELECT jsonb_path_query_array(ots.get_stream_record(:'saved_iterator'), '$.stream_records[*].primary_key') AS after_saved;
-- a reader's next iterator, from an older session, reads on after it
SELECT jsonb_path_query_array(ots.get_stream_record(:'caught_up'), '$.stream_records[*].primary_key') AS after_caught_up;

--
-- dropping the table drops its stream
--
SELECT count(*) AS deleted FROM ots.tables, LATERAL ots.delete_table(table_name) WHERE table_name LIKE 'st%' AND index_of IS NULL;
SELECT count(*) AS streams FROM ots.list_stream();
SELECT count(*) AS relations FROM pg_class WHERE relname LIKE 'st%$log' OR relname LIKE 'st%$rec';
DROP TABLE stream_cursor;
