-- bench/wide.sql — the functions bench/wide.sh measures wide and deep rows with
-- (issue 33's baseline): one ots table per row shape, each holding one row, and
-- the entity-attribute-value table a PostgreSQL user would build instead.
--
-- Shape C x V: a row of C columns c0 .. c<C-1>, each with V versions at
-- timestamps 1600000000000 + v * 1000 ms (v = 1 .. V), values 20-character
-- strings; the ots table wide_<C>_<V> (max_versions V, so an update keeps the
-- depth) has the row k = 'row'; eav holds the same cells under pk 'wide_<C>_<V>'.

CREATE TABLE eav (pk text, col text, ts bigint, value jsonb);
CREATE INDEX eav_pk_col_ts ON eav (pk, col, ts DESC);

-- wide_value(c, v): the 20-character string cell v of column c holds
CREATE FUNCTION wide_value(c int, v int) RETURNS text LANGUAGE sql IMMUTABLE
	RETURN left(md5(c || ':' || v), 20);

-- wide_build(c, v): creates wide_<c>_<v> and its row, written as Tablestore
-- allows (a put_row, then update_rows, each of at most 1,024 cells, column by
-- column), and inserts the same cells into eav
CREATE FUNCTION wide_build(ncols int, nver int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE tbl text := format('wide_%s_%s', ncols, nver); okey jsonb := '{"k": "row"}';
  ncells bigint := ncols::bigint * nver; first bigint; cells jsonb;
BEGIN
  -- c1 a defined column: the typed view column a one-column SELECT reads
  PERFORM ots.create_table(tbl, 'k string', max_versions => nver, max_version_offset => 9223372036854,
                           defined_columns => 'c1 string');
  first := 0;
  WHILE first < ncells LOOP
    -- cells first .. first + 1023 in column-major order, grouped by column
    SELECT jsonb_object_agg('c' || c, vs) INTO cells FROM (
      SELECT n / nver AS c, jsonb_agg(jsonb_build_object('value', wide_value((n / nver)::int, (n % nver + 1)::int),
                                                         'ts', 1600000000000 + (n % nver + 1) * 1000) ORDER BY n) AS vs
      FROM generate_series(first, least(first + 1024, ncells) - 1) n GROUP BY n / nver) g;
    IF first = 0 THEN
      PERFORM ots.put_row(tbl, okey, cells);
    ELSE
      PERFORM ots.update_row(tbl, okey, put => cells);
    END IF;
    first := first + 1024;
  END LOOP;
  INSERT INTO eav SELECT tbl, 'c' || c, 1600000000000 + v * 1000, to_jsonb(wide_value(c, v))
    FROM generate_series(0, ncols - 1) c, generate_series(1, nver) v;
END $$;

-- wide_loop(what, c, v, ms, commit_every): repeats one operation on shape c x v
-- in this backend until ms milliseconds have passed (at least 5 calls) and
-- returns ms per call.  Column j of the loop is c<(j * 7919) mod C>, so
-- successive calls touch different columns.  Writes commit every commit_every
-- calls (included in the time), as a client's writes would, so that neither
-- side keeps scanning its own deleted versions of one transaction.
--   ots_update  ots.update_row(wide_c_v, row, put => {col: value}) (server time)
--   eav_update  DELETE the column's oldest version, INSERT the new one
--   ots_get     ots.get_row(wide_c_v, row, columns_to_get => {col})
--   eav_get     SELECT value .. WHERE pk AND col ORDER BY ts DESC LIMIT 1
CREATE PROCEDURE wide_loop(what text, ncols int, nver int, ms float8, commit_every int, INOUT ms_per_call float8 DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE tbl text := format('wide_%s_%s', ncols, nver); okey jsonb := '{"k": "row"}';
  t0 timestamptz := clock_timestamp(); j int := 0; cname text; val text; r record;
BEGIN
  LOOP
    j := j + 1;
    cname := 'c' || (j::int8 * 7919) % ncols;
    val := wide_value(-1, j);
    CASE what
    WHEN 'ots_update' THEN PERFORM ots.update_row(tbl, okey, put => jsonb_build_object(cname, val));
    WHEN 'eav_update' THEN
      DELETE FROM eav WHERE pk = tbl AND col = cname AND ts = (SELECT min(ts) FROM eav WHERE pk = tbl AND col = cname);
      -- a new version's ts: microseconds of the clock, newer than every stored one and unique
      INSERT INTO eav VALUES (tbl, cname, (extract(epoch FROM clock_timestamp()) * 1e6)::bigint, to_jsonb(val));
    WHEN 'ots_get' THEN PERFORM ots.get_row(tbl, okey, ARRAY[cname]);
    WHEN 'eav_get' THEN SELECT value INTO r FROM eav WHERE pk = tbl AND col = cname ORDER BY ts DESC LIMIT 1;
    ELSE RAISE EXCEPTION 'wide_loop: unknown case %', what;
    END CASE;
    IF what LIKE '%update' AND j % commit_every = 0 THEN
      COMMIT;
    END IF;
    EXIT WHEN j >= 5 AND clock_timestamp() - t0 >= ms * interval '1 ms';
  END LOOP;
  ms_per_call := extract(epoch FROM clock_timestamp() - t0) * 1000 / j;
END $$;

-- wide_grow(mb): grows one row of table grow by updates of two 2 MB values
-- each (just under 4 MB, Tablestore's request limit), committing each, to about mb MB,
-- and records each update's ms in grow_times (n, ms); then the time of a
-- page of 8 columns (16 MB) and of one column read from it, as
-- grow_times rows -1 and -2.  The values are random bytes as hex, which
-- lz4 cannot shrink.
CREATE TABLE grow_times (n int PRIMARY KEY, ms float8);
CREATE PROCEDURE wide_grow(mb int)
LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; val text; r record;
BEGIN
  PERFORM ots.create_table('grow', 'k string');
  -- 2 MB of hex, made once: each update writes it under two new column names
  val := (SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 65535));
  FOR u IN 1 .. mb / 4 LOOP
    t0 := clock_timestamp();
    PERFORM ots.update_row('grow', '{"k": "big"}',
      put => jsonb_build_object(format('g%s_a', lpad(u::text, 5, '0')), val,
                                format('g%s_b', lpad(u::text, 5, '0')), val));
    INSERT INTO grow_times VALUES (u, extract(epoch FROM clock_timestamp() - t0) * 1000);
    COMMIT;
  END LOOP;
  t0 := clock_timestamp();
  SELECT * INTO r FROM ots.get_row('grow', '{"k": "big"}', start_column => 'g00100_a', end_column => 'g00104_a');
  INSERT INTO grow_times VALUES (-1, extract(epoch FROM clock_timestamp() - t0) * 1000);
  t0 := clock_timestamp();
  SELECT * INTO r FROM ots.get_row('grow', '{"k": "big"}', ARRAY['g00200_b']);
  INSERT INTO grow_times VALUES (-2, extract(epoch FROM clock_timestamp() - t0) * 1000);
  COMMIT;
END $$;

-- wide_grow_report(seconds): one line on what wide_grow measured
CREATE FUNCTION wide_grow_report(seconds int) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN (WITH u AS (SELECT n, ms, ntile(10) OVER (ORDER BY n) AS decile FROM grow_times WHERE n > 0),
       d AS (SELECT decile, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS med FROM u GROUP BY decile)
  SELECT format('row grown to %s (%s stored) by %s updates of 4 MB in %s s: median ms per update by tenth of the growth %s (last/first %s, max/min %s); a page of 8 columns (16 MB) %s ms, one column (2 MB) %s ms',
                pg_size_pretty((SELECT sum(pg_column_size(c."$cells")) FROM "grow$chunk" c)),
                pg_size_pretty(pg_total_relation_size('"grow$chunk"')),
                (SELECT count(*) FROM u), seconds,
                (SELECT string_agg(round(med::numeric, 1)::text, ' ' ORDER BY decile) FROM d),
                round(((SELECT med FROM d WHERE decile = 10) / (SELECT med FROM d WHERE decile = 1))::numeric, 2),
                round(((SELECT max(med) FROM d) / (SELECT min(med) FROM d))::numeric, 2),
                round((SELECT ms FROM grow_times WHERE n = -1)::numeric, 1),
                round((SELECT ms FROM grow_times WHERE n = -2)::numeric, 2)));
END $$;
