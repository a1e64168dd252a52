-- ots.search's sort by geo distance, collapse, date histograms and top rows
-- (src/search/search_query.c, search_exec.c, search_agg.c): random requests
-- on sparse rows against a model of each, the same rows asked with plain
-- SQL over the table's view, every page compared in order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;

\i test/search_err.sql
CREATE FUNCTION pg_temp.pick(a anyarray) RETURNS anyelement LANGUAGE sql VOLATILE AS
	$$ SELECT a[1 + floor(random() * cardinality(a))::int] $$;

SELECT ots.create_table('sf', 'id integer');
SELECT ots.create_search_index('sf', 'ix', '{"field_schemas": [
	{"field_name": "city", "field_type": "KEYWORD"},
	{"field_name": "n", "field_type": "LONG"},
	{"field_name": "at", "field_type": "DATE", "date_formats": ["epoch_millis"]},
	{"field_name": "loc", "field_type": "GEO_POINT"},
	{"field_name": "spots", "field_type": "GEO_POINT", "is_array": true}]}');
-- 150 rows, each field missing from about a fifth of them; times from 1970 to 2026,
-- many near the turns of months and weeks and of 1970, some before (not a DATE)
SELECT setseed(0.42);
SELECT count(ots.put_row('sf', jsonb_build_object('id', g), jsonb_strip_nulls(jsonb_build_object(
	'city', CASE WHEN random() < 0.8 THEN pg_temp.pick(ARRAY['hz', 'sh', 'bj', 'hk', 'gz']) END,
	'n', CASE WHEN random() < 0.8 THEN floor(random() * 12)::int END,
	'at', CASE WHEN random() < 0.8 THEN pg_temp.pick(ARRAY[
		floor(random() * 1800000000000)::bigint, floor(random() * 1800000000000)::bigint,
		(extract(epoch FROM pg_temp.pick(ARRAY[timestamp '2024-03-01', '2024-12-30', '1970-01-01', '1969-12-29', '2025-01-01']))
		 * 1000)::bigint + floor(random() * 172800000)::bigint - 86400000,
		(extract(epoch FROM pg_temp.pick(ARRAY[timestamp '2024-03-01', '2024-12-30', '1970-01-01', '1970-01-05', '2025-01-01']))
		 * 1000)::bigint + floor(random() * 172800000)::bigint,
		-floor(random() * 40000000000)::bigint]) END,
	'loc', CASE WHEN random() < 0.8 THEN format('%s,%s', round((30 + random())::numeric, 4), round((120 + random())::numeric, 4)) END,
	'spots', CASE WHEN random() < 0.8 THEN (SELECT jsonb_agg(format('%s,%s', round((30 + random())::numeric, 4), round((120 + random())::numeric, 4)))::text
											  FROM generate_series(1, 1 + floor(random() * 3)::int)) END))))
  FROM generate_series(1, 150) g;

-- the view's values as the model reads them
CREATE FUNCTION pg_temp.pt(s text) RETURNS point LANGUAGE sql IMMUTABLE AS
	$$ SELECT point(split_part(s, ',', 2)::float8, split_part(s, ',', 1)::float8) $$;
CREATE TEMP VIEW m AS
SELECT id, attributes ->> 'city' AS city, (attributes ->> 'n')::int AS n,
	   -- a DATE is from 1970 on: an earlier time leaves the field empty
	   CASE WHEN (attributes ->> 'at')::bigint >= 0 THEN (attributes ->> 'at')::bigint END AS at,
	   pg_temp.pt(attributes ->> 'loc') AS loc,
	   ARRAY(SELECT pg_temp.pt(e) FROM jsonb_array_elements_text((attributes ->> 'spots')::jsonb) e) AS spots
  FROM sf;
SELECT count(*) AS rows, count(city) AS city, count(n) AS n, count(at) AS at, count(loc) AS loc,
	   count(*) FILTER (WHERE cardinality(spots) > 0) AS spots,
	   count(*) FILTER (WHERE (attributes ->> 'at')::bigint < 0) AS before_1970
  FROM m JOIN sf USING (id);

-- every page of a search by its tokens: the keys in order
CREATE FUNCTION pg_temp.all_pages(q jsonb, lim int) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	page jsonb;
	ids int[] := '{}';
BEGIN
	page := ots.search('sf', 'ix', q || jsonb_build_object('limit', lim));
	LOOP
		ids := ids || ARRAY(SELECT (r #>> '{primary_key,id}')::int FROM jsonb_array_elements(page -> 'rows') WITH ORDINALITY x(r, o) ORDER BY o);
		EXIT WHEN page ->> 'next_token' IS NULL OR cardinality(ids) > 1000;
		page := ots.search('sf', 'ix', jsonb_build_object('query', q -> 'query', 'token', page ->> 'next_token', 'limit', lim)
										|| CASE WHEN q ? 'collapse' THEN jsonb_build_object('collapse', q -> 'collapse') ELSE '{}' END);
	END LOOP;
	RETURN ids;
END $$;

-- ---------------------------------------------------------------------
-- geo_distance_sort: the least, greatest or mean distance from 1 or 2
-- points, either way, a row without the field last; with a field sort
-- before it half the time
-- ---------------------------------------------------------------------
CREATE TEMP TABLE geo_trials (n int, request jsonb, got int[], expected int[]);
DO $$
DECLARE
	p1 point;
	p2 point;
	two boolean;
	field text;
	mode text;
	desc_ boolean;
	by_city boolean;
	sorters jsonb;
	agg text;
	expected int[];
BEGIN
	FOR i IN 1 .. 60 LOOP
		p1 := point(120 + random(), 30 + random());
		p2 := point(120 + random(), 30 + random());
		two := random() < 0.5;
		field := pg_temp.pick(ARRAY['loc', 'spots']);
		mode := pg_temp.pick(ARRAY[NULL, 'MIN', 'MAX', 'AVG']);
		desc_ := random() < 0.5;
		by_city := random() < 0.5;
		sorters := jsonb_build_array(jsonb_build_object('geo_distance_sort', jsonb_strip_nulls(jsonb_build_object(
			'field_name', field, 'order', CASE WHEN desc_ THEN 'DESC' ELSE 'ASC' END, 'mode', mode,
			'points', CASE WHEN two THEN jsonb_build_array(format('%s,%s', p1[1], p1[0]), format('%s,%s', p2[1], p2[0]))
						   ELSE jsonb_build_array(format('%s,%s', p1[1], p1[0])) END))));
		IF by_city THEN
			sorters := '[{"field_sort": {"field_name": "city"}}]'::jsonb || sorters;
		END IF;
		agg := CASE WHEN mode = 'AVG' THEN 'avg' WHEN mode = 'MAX' OR (mode IS NULL AND desc_) THEN 'max' ELSE 'min' END;
		EXECUTE format($q$SELECT array_agg(id ORDER BY CASE WHEN $3 THEN city END COLLATE "C" NULLS LAST,
				CASE WHEN NOT $4 THEN d END ASC NULLS LAST, CASE WHEN $4 THEN d END DESC NULLS LAST, id)
			  FROM (SELECT id, city, (SELECT %s(ots.search_geo_distance(e, p))
										FROM unnest(CASE WHEN $5 = 'loc' THEN ARRAY[loc] ELSE spots END) e,
											 unnest(CASE WHEN $6 THEN ARRAY[$1, $2] ELSE ARRAY[$1] END) p) AS d
					  FROM m) x$q$, agg)
		  INTO expected USING p1, p2, by_city, desc_, field, two;
		INSERT INTO geo_trials VALUES (i, jsonb_build_object('query', '{"match_all_query": {}}'::jsonb, 'sort', jsonb_build_object('sorters', sorters)),
			pg_temp.all_pages(jsonb_build_object('query', '{"match_all_query": {}}'::jsonb, 'sort', jsonb_build_object('sorters', sorters)),
							  1 + floor(random() * 40)::int),
			expected);
	END LOOP;
END $$;
SELECT count(*) AS trials, count(*) FILTER (WHERE got IS DISTINCT FROM expected) AS differing FROM geo_trials;
SELECT * FROM geo_trials WHERE got IS DISTINCT FROM expected ORDER BY n LIMIT 2;

-- ---------------------------------------------------------------------
-- collapse: the first row of each value (rows without it one more group)
-- in the order, paged by tokens; the total counts every matching row
-- ---------------------------------------------------------------------
CREATE TEMP TABLE collapse_trials (n int, request jsonb, got int[], total bigint, expected int[], expected_total bigint);
DO $$
DECLARE
	q jsonb;
	cond text;
	coll text;
	sf text;
	desc_ boolean;
	r jsonb;
	expected int[];
	expected_total bigint;
	k int;
BEGIN
	FOR i IN 1 .. 60 LOOP
		k := floor(random() * 12)::int;
		CASE floor(random() * 3)::int
			WHEN 0 THEN q := '{"match_all_query": {}}'; cond := 'true';
			WHEN 1 THEN q := jsonb_build_object('range_query', jsonb_build_object('field_name', 'n', 'range_from', k, 'include_lower', true)); cond := format('n >= %s', k);
			ELSE q := '{"terms_query": {"field_name": "city", "terms": ["hz", "sh", "gz"]}}'; cond := $c$city IN ('hz', 'sh', 'gz')$c$;
		END CASE;
		coll := pg_temp.pick(ARRAY['city', 'n']);
		sf := pg_temp.pick(ARRAY['n', 'at', 'city']);
		desc_ := random() < 0.5;
		r := jsonb_build_object('query', q, 'collapse', jsonb_build_object('field_name', coll),
			'sort', jsonb_build_object('sorters', jsonb_build_array(jsonb_build_object('field_sort',
				jsonb_build_object('field_name', sf, 'order', CASE WHEN desc_ THEN 'DESC' ELSE 'ASC' END)))));
		EXECUTE format($q$SELECT array_agg(id ORDER BY %1$s, id) FROM (
				SELECT id, city, n, at, row_number() OVER (PARTITION BY %2$s ORDER BY %1$s, id) AS rank FROM m WHERE %3$s) x WHERE rank = 1$q$,
			CASE WHEN sf = 'city' THEN format('city COLLATE "C" %s NULLS LAST', CASE WHEN desc_ THEN 'DESC' ELSE 'ASC' END)
				 ELSE format('%I %s NULLS LAST', sf, CASE WHEN desc_ THEN 'DESC' ELSE 'ASC' END) END, coll, cond)
		  INTO expected;
		EXECUTE format('SELECT count(*) FROM m WHERE %s', cond) INTO expected_total;
		INSERT INTO collapse_trials VALUES (i, r, pg_temp.all_pages(r, 1 + floor(random() * 4)::int),
			(ots.search('sf', 'ix', r || '{"get_total_count": true, "limit": 1}') ->> 'total_count')::bigint,
			coalesce(expected, '{}'), expected_total);
	END LOOP;
END $$;
SELECT count(*) AS trials, count(*) FILTER (WHERE cardinality(expected) > 1) AS several,
	   count(*) FILTER (WHERE got IS DISTINCT FROM expected OR total <> expected_total) AS differing FROM collapse_trials;
SELECT * FROM collapse_trials WHERE got IS DISTINCT FROM expected OR total <> expected_total ORDER BY n LIMIT 2;

-- ---------------------------------------------------------------------
-- date_histogram: fixed intervals counted from 1970-01-01 00:00 in the
-- time zone (weeks from Monday), months from January 1970, moved by an
-- offset; each bucket's first millisecond, its row count, a count under it
-- ---------------------------------------------------------------------
CREATE FUNCTION pg_temp.date_model(unit text, val int, tz_minutes int, offset_ms bigint, min_doc bigint, cond text)
	RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	local_ts text := format('(to_timestamp(at / 1000.0) AT TIME ZONE ''UTC'' + interval ''%s minutes'' - interval ''%s milliseconds'')',
							tz_minutes, offset_ms);
	bucket text;
	result jsonb;
BEGIN
	-- the bucket's first local moment: date_bin from the epoch (a Monday for weeks), or whole months
	bucket := CASE
		WHEN unit IN ('MONTH', 'QUARTER_YEAR', 'YEAR') THEN format(
			'timestamp ''1970-01-01'' + make_interval(months => (floor(((extract(year FROM %1$s) - 1970) * 12 + extract(month FROM %1$s) - 1) / %2$s) * %2$s)::int)',
			local_ts, val * CASE unit WHEN 'YEAR' THEN 12 WHEN 'QUARTER_YEAR' THEN 3 ELSE 1 END)
		ELSE format('date_bin(%L::interval, %s, timestamp %L)',
					format('%s %s', val * CASE unit WHEN 'WEEK' THEN 7 ELSE 1 END,
						   CASE unit WHEN 'WEEK' THEN 'days' WHEN 'DAY' THEN 'days' WHEN 'HOUR' THEN 'hours' WHEN 'MINUTE' THEN 'minutes'
									 WHEN 'SECOND' THEN 'seconds' ELSE 'milliseconds' END),
					local_ts, CASE unit WHEN 'WEEK' THEN '1969-12-29' ELSE '1970-01-01' END) END;
	EXECUTE format($q$SELECT coalesce(jsonb_agg(jsonb_build_object('timestamp', ts, 'row_count', c,
				'sub_aggs', jsonb_build_array(jsonb_build_object('name', 'ns', 'type', 'count', 'value', cn))) ORDER BY ts), '[]')
		  FROM (SELECT (extract(epoch FROM (b - interval '%s minutes' + interval '%s milliseconds')) * 1000)::bigint AS ts, count(*) AS c, count(n) AS cn
				  FROM (SELECT %s AS b, n FROM m WHERE at IS NOT NULL AND %s) x GROUP BY 1) y WHERE c >= %s$q$,
		tz_minutes, offset_ms, bucket, cond, min_doc)
	  INTO result;
	RETURN result;
END $$;
CREATE TEMP TABLE date_trials (n int, request jsonb, got jsonb, expected jsonb);
DO $$
DECLARE
	unit text;
	val int;
	tz int;
	off bigint;
	min_doc int;
	k int;
	g jsonb;
	q jsonb;
	cond text;
BEGIN
	FOR i IN 1 .. 50 LOOP
		unit := pg_temp.pick(ARRAY['YEAR', 'QUARTER_YEAR', 'MONTH', 'WEEK', 'DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND']);
		val := CASE WHEN random() < 0.5 THEN 1 ELSE 1 + floor(random() * 5)::int END;
		-- enough of each unit that the buckets stay within the limit (2,000): seconds
		-- and milliseconds over the two days around 2024-03-01 only
		val := val * CASE unit WHEN 'DAY' THEN 30 WHEN 'HOUR' THEN 720 WHEN 'MINUTE' THEN 43200 WHEN 'SECOND' THEN 300
							   WHEN 'MILLISECOND' THEN 200000 WHEN 'WEEK' THEN 5 ELSE 1 END;
		tz := pg_temp.pick(ARRAY[0, 480, -300, 330, -720]);
		off := pg_temp.pick(ARRAY[0, 0, 3600000, 86400000 * 2, 1, -7200000]);
		min_doc := pg_temp.pick(ARRAY[1, 1, 2, 3]);
		k := floor(random() * 12)::int;
		IF unit IN ('SECOND', 'MILLISECOND') THEN
			q := '{"range_query": {"field_name": "at", "range_from": 1709164800000, "range_to": 1709337600000}}';
			cond := 'at > 1709164800000 AND at < 1709337600000';
		ELSIF random() < 0.5 THEN
			q := '{"match_all_query": {}}'; cond := 'true';
		ELSE
			q := jsonb_build_object('range_query', jsonb_build_object('field_name', 'n', 'range_to', k)); cond := format('n < %s', k);
		END IF;
		g := jsonb_build_object('name', 'd', 'type', 'date_histogram', 'field_name', 'at',
			'interval', jsonb_build_object('value', val, 'unit', unit),
			'time_zone', format('%s%s:%s', CASE WHEN tz < 0 THEN '-' ELSE '+' END, lpad((abs(tz) / 60)::text, 2, '0'), lpad((abs(tz) % 60)::text, 2, '0')),
			'offset', jsonb_build_object('value', off, 'unit', 'MILLISECOND'), 'min_doc_count', min_doc,
			'sub_aggs', '[{"name": "ns", "type": "count", "field_name": "n"}]'::jsonb);
		IF off = 0 THEN
			g := g - 'offset';
		END IF;
		INSERT INTO date_trials VALUES (i, g,
			ots.search('sf', 'ix', jsonb_build_object('query', q, 'limit', 0, 'group_bys', jsonb_build_array(g))) #> '{group_bys,0,items}',
			pg_temp.date_model(unit, val, tz, off, min_doc, cond));
	END LOOP;
END $$;
SELECT count(*) AS trials, round(avg(jsonb_array_length(expected))) AS mean_buckets,
	   count(*) FILTER (WHERE got IS DISTINCT FROM expected) AS differing FROM date_trials;
SELECT * FROM date_trials WHERE got IS DISTINCT FROM expected ORDER BY n LIMIT 2;
-- a month is a calendar month: the turns of 2024's months in +08:00, and a sort by row count
SELECT i ->> 'timestamp' AS ms, to_timestamp((i ->> 'timestamp')::bigint / 1000.0) AT TIME ZONE '-08:00' AS local_start, i ->> 'row_count' AS row_count
  FROM jsonb_array_elements(ots.search('sf', 'ix', '{"query": {"range_query": {"field_name": "at", "range_from": 1704067200000, "range_to": 1735689600000}}, "limit": 0,
	"group_bys": [{"name": "d", "type": "date_histogram", "field_name": "at", "interval": {"value": 1, "unit": "MONTH"}, "time_zone": "+08:00",
				   "sort": {"sorters": [{"row_count_sort": {"order": "DESC"}}]}}]}') #> '{group_bys,0,items}') i;
SELECT pg_temp.err($$SELECT ots.search('sf', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "d", "type": "date_histogram", "field_name": "n", "interval": {"value": 1, "unit": "DAY"}}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sf', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "d", "type": "date_histogram", "field_name": "at", "interval": {"value": 1, "unit": "FORTNIGHT"}}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sf', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "d", "type": "date_histogram", "field_name": "at", "interval": {"value": 0, "unit": "DAY"}}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sf', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "d", "type": "date_histogram", "field_name": "at", "interval": {"value": 1, "unit": "DAY"}, "time_zone": "+8"}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sf', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "d", "type": "date_histogram", "field_name": "at", "interval": {"value": 1, "unit": "DAY"}, "offset": {"value": 1, "unit": "MONTH"}}]}')$$);

-- ---------------------------------------------------------------------
-- top_rows: in each city's bucket, the first rows by n descending (key
-- ascending among equals), with all their columns
-- ---------------------------------------------------------------------
CREATE TEMP TABLE top_trials (n int, lim int, got jsonb, expected jsonb);
DO $$
DECLARE
	lim int;
	k int;
BEGIN
	FOR i IN 1 .. 20 LOOP
		lim := 1 + floor(random() * 6)::int;
		k := floor(random() * 12)::int;
		INSERT INTO top_trials VALUES (i, lim,
			(SELECT jsonb_agg(jsonb_build_object('city', it ->> 'key', 'top', it #> '{sub_aggs,0,rows}')) FROM jsonb_array_elements(
				ots.search('sf', 'ix', jsonb_build_object('query', jsonb_build_object('range_query', jsonb_build_object('field_name', 'n', 'range_to', k)),
					'limit', 0, 'group_bys', jsonb_build_array(jsonb_build_object('name', 'g', 'type', 'field', 'field_name', 'city',
						'sort', '{"sorters": [{"group_key_sort": {}}]}'::jsonb,
						'sub_aggs', jsonb_build_array(jsonb_build_object('name', 't', 'type', 'top_rows', 'limit', lim,
							'sort', '{"sorters": [{"field_sort": {"field_name": "n", "order": "DESC"}}]}'::jsonb)))))) #> '{group_bys,0,items}') it),
			(SELECT jsonb_agg(jsonb_build_object('city', c, 'top', (
					SELECT jsonb_agg(jsonb_build_object('primary_key', jsonb_build_object('id', id), 'attributes', attributes) ORDER BY (attributes ->> 'n')::int DESC, id)
					  FROM (SELECT * FROM sf WHERE attributes ->> 'city' = c AND (attributes ->> 'n')::int < k
							 ORDER BY (attributes ->> 'n')::int DESC, id LIMIT lim) t)) ORDER BY c COLLATE "C")
			   FROM (SELECT DISTINCT attributes ->> 'city' AS c FROM sf WHERE attributes ? 'city' AND (attributes ->> 'n')::int < k) cs));
	END LOOP;
END $$;
SELECT count(*) AS trials, count(*) FILTER (WHERE got IS DISTINCT FROM expected) AS differing FROM top_trials;
SELECT * FROM top_trials WHERE got IS DISTINCT FROM expected ORDER BY n LIMIT 1;
-- by default one row, in the index's presort (the key ascending)
SELECT (s #>> '{aggs,0,rows,0,primary_key,id}')::int AS top, (SELECT min(id) FROM m WHERE n = 3) AS least_id_with_n_3,
	   jsonb_array_length(s #> '{aggs,0,rows}') AS rows
  FROM ots.search('sf', 'ix', '{"query": {"term_query": {"field_name": "n", "term": 3}}, "limit": 0,
	"aggs": [{"name": "t", "type": "top_rows"}]}') s;
SELECT pg_temp.err($$SELECT ots.search('sf', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "t", "type": "top_rows", "limit": 101}]}')$$);

DROP VIEW m;
SELECT ots.delete_search_index('sf', 'ix'), ots.delete_table('sf');
