-- test/dump/schema_only.sql: after a schema-only restore (no rows), ots
-- knows every table (run.sh compares their definitions with the source's)
-- and the row API works on them: a put and a get, an index that takes the
-- entry of a row written now and answers a read through it, a stream that
-- records the write.  Prints one line: "ok: ..." or "FAILED: ...".
CREATE FUNCTION pg_temp.stream_records(tbl text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	recs jsonb := '[]';
	s record;
BEGIN
	FOR s IN SELECT l.stream_id, g FROM ots.list_stream(tbl) l,
			 generate_series(0, jsonb_array_length(ots.describe_table(tbl) -> 'partitions') - 1) g LOOP
		recs := recs || (ots.get_stream_record(ots.get_shard_iterator(s.stream_id, s.g::text)) -> 'stream_records');
	END LOOP;
	RETURN recs;
END
$$;
SELECT count(*) AS tables FROM ots.list_table() \gset
SELECT (ots.put_row('many', '{"id": 7}', '{"v": 7}')).consumed IS NOT NULL AS put_many \gset
SELECT (ots.get_row('many', '{"id": 7}')).attributes::text AS got_many \gset
SELECT (ots.put_row('indexed', '{"k": "new", "n": 1}', '{"seller": "fresh", "amount": 5}')).consumed IS NOT NULL AS put_indexed \gset
SELECT count(*) AS by_index FROM ots.get_range_rows('indexed_seller', '{"seller": "fresh", "k": {"$inf": "min"}, "n": {"$inf": "min"}}',
	'{"seller": "fresh", "k": {"$inf": "max"}, "n": {"$inf": "max"}}') \gset
SELECT count(*) AS by_view FROM indexed WHERE seller = 'fresh' \gset
SELECT ots.search('indexed', 'indexed_search', '{"query": {"term_query": {"field_name": "seller", "term": "fresh"}}, "get_total_count": true}')
	->> 'total_count' AS by_search \gset
SELECT (ots.put_row('streamed', '{"k": "k0", "n": 1}', '{"v": 1}')).consumed IS NOT NULL AS put_streamed \gset
SELECT jsonb_array_length(pg_temp.stream_records('streamed')) AS records,
	   pg_temp.stream_records('streamed') -> 0 ->> 'action_type' AS action \gset
SELECT ots.describe_table('whole_rows') -> 'table_options' ->> 'update_full_row' AS whole_rows \gset
SELECT CASE WHEN :tables = 10 AND :'whole_rows' = 'true' AND :'put_many'::boolean AND :'got_many' = '{"v": 7}' AND :'put_indexed'::boolean
			 AND :by_index = 1 AND :by_view = 1 AND :by_search = 1 AND :'put_streamed'::boolean AND :records = 1 AND :'action' = 'PUT_ROW'
			THEN 'ok: ' ELSE 'FAILED: ' END
	|| format('%s tables; whole_rows update_full_row: %s; many: %s; indexed_seller entries of a new row: %s (view through the index: %s; search: %s); streamed: %s record (%s)',
			  :tables, :'whole_rows', :'got_many', :by_index, :by_view, :by_search, :records, :'action');
