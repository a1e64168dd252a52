-- test/dump/rows.sql: one line per ots table and view of what it holds:
-- its definition (describe_table: key, options, defined columns, indexes,
-- partitions, stream, creation time), rows stored (keys and cells as
-- text), the chunks of its chunk relation (as text, and their cells' bytes
-- as ots.cells_send writes them), rows the view shows, and every version
-- get_range_rows reads; with
-- a count and an md5 of each, so the source and the restored database can
-- be compared line by line (an index is a table: its entries are its
-- stored rows).  For a
-- table with a stream, one line per shard of what a reader gets: its
-- stream id, every record from a fresh iterator (read 3 at a time, with
-- their sequence info), and what an iterator at position 0 gets (the
-- records trimmed).
CREATE FUNCTION pg_temp.fingerprint(tbl text, what text, query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
	digest text;
BEGIN
	-- each row's md5 first: a row of hundreds of MB (DUMP_HUGE_ROW) hashes alone
	EXECUTE format('SELECT count(*), md5(coalesce(string_agg(md5(r), E''\n'' ORDER BY md5(r)), '''')) FROM (%s) s(r)', query)
		INTO n, digest;
	RETURN format('%s %s: %s rows, md5 %s', tbl, what, n, digest);
END
$$;
SELECT pg_temp.fingerprint(t.table_name, f.what, f.query)
  FROM ots.tables t,
  LATERAL (SELECT jsonb_object_agg(p, '{"$inf": "min"}'::jsonb) AS lo, jsonb_object_agg(p, '{"$inf": "max"}'::jsonb) AS hi
             FROM unnest(t.pk_names) p) b,
  LATERAL (VALUES
    (0, 'definition', format('SELECT ots.describe_table(%L)::text', format('%I.%I', t.schema_name, t.table_name))),
    (1, 'stored', format('SELECT x::text FROM %I.%I x', t.schema_name, t.table_name || '$data')),
    (2, 'chunks', CASE WHEN to_regclass(format('%I.%I', t.schema_name, t.table_name || '$chunk')) IS NULL
                       THEN 'SELECT ''no chunk relation'''
                       ELSE format('SELECT x::text || '' '' || encode(ots.cells_send(x."$cells"), ''hex'') FROM %I.%I x',
                                   t.schema_name, t.table_name || '$chunk') END),
    (3, 'view', format('SELECT v::text FROM %I.%I v', t.schema_name, t.table_name)),
    (4, 'get_range_rows', format('SELECT r::text FROM ots.get_range_rows(%L, %L, %L, max_versions => 2000, with_timestamps => true) r',
                                 format('%I.%I', t.schema_name, t.table_name), b.lo, b.hi))) f(n, what, query)
 ORDER BY t.schema_name, t.table_name, f.n;

-- every record of a shard from a fresh iterator, read 3 at a time
CREATE FUNCTION pg_temp.stream_records(stream_id text, shard integer) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	it text := ots.get_shard_iterator(stream_id, shard::text);
	res jsonb;
	recs jsonb := '[]';
BEGIN
	LOOP
		res := ots.get_stream_record(it, 3);
		EXIT WHEN jsonb_array_length(res -> 'stream_records') = 0;
		recs := recs || (res -> 'stream_records');
		it := res ->> 'next_shard_iterator';
	END LOOP;
	RETURN recs;
END
$$;
-- what get_stream_record answers from an iterator at position 0 of a shard
CREATE FUNCTION pg_temp.stream_from_zero(stream_id text, shard integer) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	RETURN format('%s records', jsonb_array_length(ots.get_stream_record(format('%s:%s:0:0', stream_id, shard)) -> 'stream_records'));
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ' ' || SQLERRM;
END
$$;
SELECT format('%s stream shard %s: %s, %s records, md5 %s; from position 0: %s', s.table_name, g.shard, s.stream_id,
			  jsonb_array_length(r.recs), md5(r.recs::text), pg_temp.stream_from_zero(s.stream_id, g.shard))
  FROM ots.list_stream() s
  JOIN ots.tables t USING (schema_name, table_name),
  LATERAL generate_series(0, t.partitions - 1) g(shard),
  LATERAL (SELECT pg_temp.stream_records(s.stream_id, g.shard) AS recs) r
 ORDER BY s.schema_name, s.table_name, g.shard;

-- every search index: its definition (but when it was made: a restore
-- registers it anew) and its entries, its storage's rows
SELECT pg_temp.fingerprint(s.table_name || ' search ' || s.index_name, f.what, f.query)
  FROM ots.search_indexes s,
  LATERAL (VALUES
    (0, 'definition', format('SELECT (ots.describe_search_index(%L, %L) - ''sync_stat'' - ''create_time'' - ''metering_info'')::text',
                             format('%I.%I', s.schema_name, s.table_name), s.index_name)),
    (1, 'entries', format('SELECT x::text FROM %I.%I x', s.schema_name, s.storage_name)),
    (2, 'phase', format('SELECT sync_phase FROM ots.search_indexes WHERE schema_name = %L AND storage_name = %L',
                        s.schema_name, s.storage_name))) f(n, what, query)
 ORDER BY s.schema_name, s.table_name, s.index_name, f.n;

-- every AUTO_INCREMENT sequence's position
SELECT format('%s sequence: last_value %s', t.table_name,
			  (xpath('/row/last_value/text()', query_to_xml(format('SELECT last_value FROM %I.%I', t.schema_name, t.table_name || '$seq'),
															false, true, '')))[1]::text)
  FROM ots.tables t WHERE t.auto_increment IS NOT NULL
 ORDER BY t.schema_name, t.table_name;
