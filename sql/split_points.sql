-- split_points: ots.compute_split_points (Tablestore's ComputeSplitPointsBySize):
-- partition-key values cutting a table into ranges of about split_size bytes,
-- increasing, each a key the table has; none for a table within one split.
-- Most tables here are small, so the sample is the whole table and the
-- points are exact; one is larger than the sample.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;
-- how a table's rows fall into the ranges the points make, and whether each
-- range after a point starts at a row of that partition key
CREATE FUNCTION pg_temp.ranges(tbl text, points jsonb, OUT n_points integer, OUT rows_per_range text,
							   OUT total bigint, OUT starts_at_points boolean)
LANGUAGE plpgsql AS $$
DECLARE
	keys jsonb := ots.describe_table(tbl) -> 'primary_key';
	pk text := keys -> 0 ->> 'name';
	bounds jsonb := '[null]'::jsonb || points || '[null]'::jsonb;
	counts text[] := '{}';
	lo jsonb;
	hi jsonb;
	c bigint;
	first_key jsonb;
BEGIN
	n_points := jsonb_array_length(points);
	total := 0;
	starts_at_points := true;
	FOR i IN 0 .. n_points LOOP
		-- a bound: the point's partition key and INF_MIN for the other key columns
		lo := coalesce(bounds -> i, jsonb_build_object(pk, '{"$inf": "min"}'::jsonb));
		hi := coalesce(bounds -> (i + 1), jsonb_build_object(pk, '{"$inf": "max"}'::jsonb));
		IF bounds -> i = 'null' THEN lo := jsonb_build_object(pk, '{"$inf": "min"}'::jsonb); END IF;
		IF bounds -> (i + 1) = 'null' THEN hi := jsonb_build_object(pk, '{"$inf": "max"}'::jsonb); END IF;
		lo := lo || (SELECT coalesce(jsonb_object_agg(k ->> 'name', '{"$inf": "min"}'::jsonb), '{}')
					   FROM jsonb_array_elements(keys) WITH ORDINALITY AS e(k, n) WHERE n > 1);
		hi := hi || (SELECT coalesce(jsonb_object_agg(k ->> 'name', '{"$inf": "min"}'::jsonb), '{}')
					   FROM jsonb_array_elements(keys) WITH ORDINALITY AS e(k, n) WHERE n > 1);
		SELECT count(*), (array_agg(primary_key -> pk ORDER BY ord))[1] INTO c, first_key
		  FROM ots.get_range_rows(tbl, lo, hi) WITH ORDINALITY AS r(primary_key, attributes, ord);
		counts := counts || c::text;
		total := total + c;
		IF i > 0 AND first_key IS DISTINCT FROM (points -> (i - 1) -> pk) THEN
			starts_at_points := false;
		END IF;
	END LOOP;
	rows_per_range := array_to_string(counts, ' ');
END
$$;

-- 2000 rows of about 1 KB, an Integer partition key
SELECT ots.create_table('sp_int', 'id integer', partitions => 4);
SELECT count(ots.put_row('sp_int', jsonb_build_object('id', i), jsonb_build_object('v', repeat('x', 1000))))
  FROM generate_series(1, 2000) i;
ANALYZE "sp_int$data";
SELECT * FROM pg_temp.ranges('sp_int', ots.compute_split_points('sp_int', 500000));
SELECT ots.compute_split_points('sp_int', 500000);
-- a table within one split has no points; a limit caps them
SELECT ots.compute_split_points('sp_int', 100000000) AS one_split;
SELECT jsonb_array_length(ots.compute_split_points('sp_int', 100000)) AS many,
	   jsonb_array_length(ots.compute_split_points('sp_int', 100000, 3)) AS limited,
	   jsonb_array_length(ots.compute_split_points('sp_int', 1)) AS at_most_the_keys;

-- String and Binary keys, a second key column (points name the first only),
-- rows of different sizes (the ranges hold about the same bytes: fewer of the
-- large rows), a hash prefix (points in the stored order, prefix first)
SELECT ots.create_table('sp_str', 'k string, n integer', partitions => 2);
-- (values of random hex digits, which compress little: sizes are stored sizes)
SELECT count(ots.put_row('sp_str', jsonb_build_object('k', 'key' || lpad(i::text, 4, '0'), 'n', j),
						 jsonb_build_object('v', (SELECT string_agg(md5(i::text || j::text || g::text), '')
													FROM generate_series(1, CASE WHEN i <= 100 THEN 150 ELSE 3 END) g))))
  FROM generate_series(1, 1000) i, generate_series(1, 2) j;
ANALYZE "sp_str$data";
SELECT * FROM pg_temp.ranges('sp_str', ots.compute_split_points('sp_str', 400000));
SELECT ots.create_table('sp_bin', 'b binary', partitions => 2, hash_prefix_length => 2);
SELECT count(ots.put_row('sp_bin', jsonb_build_object('b', jsonb_build_object('$binary', encode(int4send(i), 'base64'))),
						 jsonb_build_object('v', repeat('z', 500))))
  FROM generate_series(1, 1000) i;
SELECT ots.compute_split_points('sp_bin', 200000) -> 0 AS first_point;
SELECT * FROM pg_temp.ranges('sp_bin', ots.compute_split_points('sp_bin', 200000));

-- a table larger than the sample (about 10,000 rows): the sample's weight,
-- scaled to the table, makes about the splits asked for, each about as heavy
SELECT ots.create_table('sp_big', 'id integer', partitions => 2);
-- (in no key order: a page holds keys from all over, as a hash-partitioned table's do)
SELECT count(ots.put_row('sp_big', jsonb_build_object('id', i), jsonb_build_object('v', md5(i::text))))
  FROM (SELECT i FROM generate_series(1, 30000) i ORDER BY hashint4(i)) s;
ANALYZE "sp_big$data";
SELECT (sum(pg_column_size(d.*) - pg_column_size(d."$cells") + ots.cells_size(d."$cells")) / 6)::bigint AS sixth
  FROM "sp_big$data" d \gset
SELECT r.n_points BETWEEN 4 AND 6 AS about_five_points, r.total, r.starts_at_points,
	   (SELECT max(x::numeric) / min(x::numeric) FROM unnest(string_to_array(r.rows_per_range, ' ')) x) < 1.3
		 AS ranges_alike
  FROM pg_temp.ranges('sp_big', ots.compute_split_points('sp_big', :sixth)) r;

-- rows whose cells all expired are no rows: no point is one of them
SELECT ots.create_table('sp_ttl', 'id integer', partitions => 1, time_to_live => 1);
SELECT count(ots.put_row('sp_ttl', jsonb_build_object('id', i), jsonb_build_object('v', repeat('t', 500))))
  FROM generate_series(1, 1000) i;
SELECT pg_sleep(1.2);
SELECT count(ots.put_row('sp_ttl', jsonb_build_object('id', i), jsonb_build_object('v', repeat('t', 500))))
  FROM generate_series(1001, 2000) i;
SELECT jsonb_array_length(p) > 1 AS points, (SELECT bool_and((e ->> 'id')::int > 1000) FROM jsonb_array_elements(p) e)
		 AS all_of_living_rows
  FROM ots.compute_split_points('sp_ttl', 100000) p;

-- an empty table, errors
SELECT ots.create_table('sp_empty', 'id integer', partitions => 1);
SELECT ots.compute_split_points('sp_empty', 1) AS empty;
SELECT pg_temp.try($$SELECT ots.compute_split_points('sp_int', 0)$$);
SELECT pg_temp.try($$SELECT ots.compute_split_points('sp_int', 10, -1)$$);
SELECT pg_temp.try($$SELECT ots.compute_split_points('sp_none', 10)$$);
SELECT pg_temp.try($$SELECT ots.compute_split_points(NULL, 10)$$);
-- an index is refused (its storage is its owner's alone)
SELECT ots.create_table('sp_ix', 'id integer', partitions => 1, defined_columns => 'c string');
SELECT ots.create_index('sp_ix', 'sp_ix_c', '{c}');
CALL ots.build_index('sp_ix', 'sp_ix_c');
SELECT pg_temp.try($$SELECT ots.compute_split_points('sp_ix_c', 10)$$);
-- the sample reads as the caller: without SELECT on the storage, refused
CREATE ROLE regress_ots_sp_other;
GRANT USAGE ON SCHEMA public TO regress_ots_sp_other;
SET ROLE regress_ots_sp_other;
SELECT pg_temp.try($$SELECT ots.compute_split_points('sp_int', 500000)$$);
RESET ROLE;
-- ... and, with SELECT, where row-level security applies to it, as get_range is
GRANT SELECT ON "sp_int$data" TO regress_ots_sp_other;
ALTER TABLE "sp_int$data" ENABLE ROW LEVEL SECURITY;
CREATE POLICY sp_some ON "sp_int$data" USING (id < 100);
SET ROLE regress_ots_sp_other;
SELECT pg_temp.try($$SELECT ots.compute_split_points('sp_int', 500000)$$) AS split_points,
	   pg_temp.try($$SELECT ots.get_range('sp_int', '{"id": {"$inf": "min"}}', '{"id": {"$inf": "max"}}')$$) AS get_range;
RESET ROLE;
DROP POLICY sp_some ON "sp_int$data";
ALTER TABLE "sp_int$data" DISABLE ROW LEVEL SECURITY;
REVOKE SELECT ON "sp_int$data" FROM regress_ots_sp_other;
REVOKE USAGE ON SCHEMA public FROM regress_ots_sp_other;
DROP ROLE regress_ots_sp_other;

SELECT ots.delete_table(t) FROM unnest(ARRAY['sp_int', 'sp_str', 'sp_bin', 'sp_empty', 'sp_big', 'sp_ttl', 'sp_ix']) t;
