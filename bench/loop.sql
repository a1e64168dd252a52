-- bench/loop.sql — bench_loop(case, n): runs one operation n times inside
-- one backend (PL/pgSQL loop, no client round trip) and returns µs/op.
-- Used by bench/loop.sh and bench/profile.sh against the data bench/run.sh
-- loads (tables t, plain_t, v1, v100, tv, pv, tvd, sequences put_seq*, batch_seq*,
-- vins_seq, vdel_seq).
-- Keys cycle through rows 0..99899 of t / plain_t (stride 7919).
CREATE OR REPLACE FUNCTION bench_loop(what text, n int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp(); i int; j int; r record;
  a jsonb := '{"a1": "abcdefghijklmnopqrst", "a2": 12345, "a3": 1.5, "a4": true, "a5": "ABCDEFGHIJKLMNOPQRST"}';
  inf jsonb := '{"k1": {"$inf": "max"}, "k2": {"$inf": "max"}}';
BEGIN
  FOR j IN 1..n LOOP
    i := (j * 7919) % 99900;
    CASE what
    WHEN 'ots_get' THEN PERFORM ots.get_row('t', jsonb_build_object('k1', 'u' || (100000 + i / 100), 'k2', (i % 100)::int8));
    WHEN 'ots_get_v1' THEN PERFORM ots.get_row('v1', jsonb_build_object('k1', 'u' || (100000 + i % 10000 / 100), 'k2', (i % 100)::int8));
    WHEN 'ots_get_v100' THEN PERFORM ots.get_row('v100', jsonb_build_object('k1', 'u' || (100000 + i % 10000 / 100), 'k2', (i % 100)::int8));
    WHEN 'plain_get' THEN SELECT k1, k2, attrs INTO r FROM plain_t WHERE k1 = 'u' || (100000 + i / 100) AND k2 = (i % 100)::int8;
    WHEN 'ots_range' THEN PERFORM ots.get_range('t', jsonb_build_object('k1', 'u' || (100000 + i / 100), 'k2', (i % 100)::int8), inf, 'FORWARD', 100);
    WHEN 'plain_range' THEN PERFORM (SELECT jsonb_agg(jsonb_build_object('primary_key', jsonb_build_object('k1', k1, 'k2', k2), 'attributes', attrs))
        FROM (SELECT k1, k2, attrs FROM plain_t WHERE (k1, k2) >= ('u' || (100000 + i / 100), (i % 100)::int8) ORDER BY k1, k2 LIMIT 100) s);
    WHEN 'ots_range_rows' THEN PERFORM count(attributes) FROM ots.get_range_rows('t', jsonb_build_object('k1', 'u' || (100000 + i / 100), 'k2', (i % 100)::int8), inf, 'FORWARD', 100);
    WHEN 'plain_range_rows' THEN PERFORM count(attrs) FROM (SELECT k1, k2, attrs FROM plain_t WHERE (k1, k2) >= ('u' || (100000 + i / 100), (i % 100)::int8) ORDER BY k1, k2 LIMIT 100) s;
    WHEN 'noop' THEN PERFORM jsonb_build_object('k1', 'u' || (100000 + i / 100), 'k2', (i % 100)::int8);
    WHEN 'ots_upd' THEN PERFORM ots.update_row('t', jsonb_build_object('k1', 'u' || (100000 + i / 100), 'k2', (i % 100)::int8), jsonb_build_object('a2', j::int8));
    WHEN 'plain_upd' THEN UPDATE plain_t SET attrs = attrs || jsonb_build_object('a2', j::int8) WHERE k1 = 'u' || (100000 + i / 100) AND k2 = (i % 100)::int8;
    WHEN 'ots_put' THEN PERFORM ots.put_row('t', jsonb_build_object('k1', 'n' || (j % 1000), 'k2', nextval('put_seq')), a);
    WHEN 'plain_put' THEN INSERT INTO plain_t VALUES ('n' || (j % 1000), nextval('put_seq_plain'), a);
    WHEN 'ots_batch' THEN PERFORM count(*) FROM ots.batch_write_row(('[{"table_name": "t", "rows": [' || (SELECT string_agg(
        '{"type": "PUT", "primary_key": {"k1": "b' || g % 1000 || '", "k2": ' || nextval('batch_seq') || '}, "attributes": ' || a::text || '}', ',')
        FROM generate_series(1, 200) g) || ']}]')::jsonb);
    WHEN 'ots_batch_atomic' THEN PERFORM count(*) FROM ots.batch_write_row(('[{"table_name": "t", "rows": [' || (SELECT string_agg(
        '{"type": "PUT", "primary_key": {"k1": "b' || g % 1000 || '", "k2": ' || nextval('batch_seq') || '}, "attributes": ' || a::text || '}', ',')
        FROM generate_series(1, 200) g) || ']}]')::jsonb, true);
    WHEN 'batch_req' THEN PERFORM (('[{"table_name": "t", "rows": [' || (SELECT string_agg(
        '{"type": "PUT", "primary_key": {"k1": "b' || g % 1000 || '", "k2": ' || nextval('batch_seq') || '}, "attributes": ' || a::text || '}', ',')
        FROM generate_series(1, 200) g) || ']}]')::jsonb);
    WHEN 'plain_batch' THEN INSERT INTO plain_t SELECT 'b' || g % 1000, nextval('batch_seq_plain'), a FROM generate_series(1, 200) g;
    -- typed view columns and writable views: through the view of tv / tvd, against
    -- the plain typed table pv (read) or the row API on the same table (writes)
    WHEN 'ots_vsel' THEN SELECT a1, a2, a3, a4, a5 INTO r FROM tv WHERE k1 = 'u' || (100000 + i / 100) AND k2 = (i % 100)::int8;
    WHEN 'plain_vsel' THEN SELECT a1, a2, a3, a4, a5 INTO r FROM pv WHERE k1 = 'u' || (100000 + i / 100) AND k2 = (i % 100)::int8;
    WHEN 'ots_vins' THEN INSERT INTO tv (k1, k2, a1, a2, a3, a4, a5) VALUES ('n' || (j % 1000), nextval('vins_seq'),
        'abcdefghijklmnopqrst', 12345, 1.5, true, 'ABCDEFGHIJKLMNOPQRST');
    WHEN 'api_vins' THEN PERFORM ots.put_row('tv', jsonb_build_object('k1', 'n' || (j % 1000), 'k2', nextval('vins_seq')), a, 'EXPECT_NOT_EXIST');
    WHEN 'ots_vupd' THEN UPDATE tv SET a2 = (random() * 1e9)::int8 WHERE k1 = 'u' || (100000 + i / 100) AND k2 = (i % 100)::int8;
    WHEN 'api_vupd' THEN PERFORM ots.update_row('tv', jsonb_build_object('k1', 'u' || (100000 + i / 100), 'k2', (i % 100)::int8),
        jsonb_build_object('a2', (random() * 1e9)::int8));
    WHEN 'ots_vdel' THEN i := nextval('vdel_seq'); DELETE FROM tvd WHERE k1 = 'd' || i AND k2 = 0;
    WHEN 'api_vdel' THEN i := nextval('vdel_seq'); PERFORM ots.delete_row('tvd', jsonb_build_object('k1', 'd' || i, 'k2', 0));
    ELSE RAISE EXCEPTION 'bench_loop: unknown case %', what;
    END CASE;
  END LOOP;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1e6 / n;
END $$;
