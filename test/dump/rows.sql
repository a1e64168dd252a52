-- test/dump/rows.sql: one line per ots table and view of what it holds:
-- rows stored (keys and cells as text), rows the view shows, and every
-- version get_range_rows reads; with a count and an md5 of each, so the
-- source and the restored database can be compared line by line.
CREATE FUNCTION pg_temp.fingerprint(tbl text, what text, query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
	digest text;
BEGIN
	EXECUTE format('SELECT count(*), md5(coalesce(string_agg(r, E''\n'' ORDER BY r COLLATE "C"), '''')) FROM (%s) s(r)', query)
		INTO n, digest;
	RETURN format('%s %s: %s rows, md5 %s', tbl, what, n, digest);
END
$$;
SELECT pg_temp.fingerprint(t.table_name, f.what, f.query)
  FROM ots.tables t,
  LATERAL (SELECT jsonb_object_agg(p, '{"$inf": "min"}'::jsonb) AS lo, jsonb_object_agg(p, '{"$inf": "max"}'::jsonb) AS hi
             FROM unnest(t.pk_names) p) b,
  LATERAL (VALUES
    (1, 'stored', format('SELECT x::text FROM %I.%I x', t.schema_name, t.table_name || '$data')),
    (2, 'view', format('SELECT v::text FROM %I.%I v', t.schema_name, t.table_name)),
    (3, 'get_range_rows', format('SELECT r::text FROM ots.get_range_rows(%L, %L, %L, max_versions => 2000, with_timestamps => true) r',
                                 format('%I.%I', t.schema_name, t.table_name), b.lo, b.hi))) f(n, what, query)
 ORDER BY t.schema_name, t.table_name, f.n;
