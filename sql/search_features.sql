-- ots.search's sorts by geo distance and by score, collapse, nested
-- queries, date histograms and top rows
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

-- every page of a search of table tbl by its tokens: the keys in order
CREATE FUNCTION pg_temp.all_pages_of(tbl text, q jsonb, lim int) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	page jsonb;
	ids int[] := '{}';
BEGIN
	page := ots.search(tbl, 'ix', q || jsonb_build_object('limit', lim));
	LOOP
		ids := ids || ARRAY(SELECT (r #>> '{primary_key,id}')::int FROM jsonb_array_elements(page -> 'rows') WITH ORDINALITY x(r, o) ORDER BY o);
		EXIT WHEN page ->> 'next_token' IS NULL OR cardinality(ids) > 1000;
		page := ots.search(tbl, 'ix', jsonb_build_object('query', q -> 'query', 'token', page ->> 'next_token', 'limit', lim)
										|| CASE WHEN q ? 'collapse' THEN jsonb_build_object('collapse', q -> 'collapse') ELSE '{}' END);
	END LOOP;
	RETURN ids;
END $$;
CREATE FUNCTION pg_temp.all_pages(q jsonb, lim int) RETURNS int[] LANGUAGE sql AS $$ SELECT pg_temp.all_pages_of('sf', q, lim) $$;

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
SELECT pg_temp.err($$SELECT ots.search('sf', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "d", "type": "date_histogram", "field_name": "at", "interval": {"value": 1, "unit": "YEAR"}, "offset": {"value": 2147483647, "unit": "WEEK"}}]}')$$);

-- ---------------------------------------------------------------------
-- top_rows: in each city's bucket, the first rows by n descending (key
-- ascending among equals), with the columns the search's columns_to_get
-- names (none, all, or n), as Tablestore's
-- ---------------------------------------------------------------------
CREATE TEMP TABLE top_trials (n int, lim int, cols jsonb, got jsonb, expected jsonb);
DO $$
DECLARE
	lim int;
	k int;
	cols jsonb;
BEGIN
	FOR i IN 1 .. 30 LOOP
		lim := 1 + floor(random() * 6)::int;
		k := floor(random() * 12)::int;
		cols := (ARRAY[NULL, '{"return_type": "RETURN_ALL"}', '{"return_type": "RETURN_SPECIFIED", "column_names": ["n", "none"]}'])[1 + i % 3];
		INSERT INTO top_trials VALUES (i, lim, cols,
			(SELECT jsonb_agg(jsonb_build_object('city', it ->> 'key', 'top', it #> '{sub_aggs,0,rows}')) FROM jsonb_array_elements(
				ots.search('sf', 'ix', jsonb_build_object('query', jsonb_build_object('range_query', jsonb_build_object('field_name', 'n', 'range_to', k)),
					'limit', 0, 'group_bys', jsonb_build_array(jsonb_build_object('name', 'g', 'type', 'field', 'field_name', 'city',
						'sort', '{"sorters": [{"group_key_sort": {}}]}'::jsonb,
						'sub_aggs', jsonb_build_array(jsonb_build_object('name', 't', 'type', 'top_rows', 'limit', lim,
							'sort', '{"sorters": [{"field_sort": {"field_name": "n", "order": "DESC"}}]}'::jsonb))))), cols) #> '{group_bys,0,items}') it),
			(SELECT jsonb_agg(jsonb_build_object('city', c, 'top', (
					SELECT jsonb_agg(jsonb_build_object('primary_key', jsonb_build_object('id', id))
									 || CASE WHEN cols IS NULL THEN '{}'
											 WHEN cols ? 'column_names' THEN jsonb_build_object('attributes', jsonb_build_object('n', attributes -> 'n'))
											 ELSE jsonb_build_object('attributes', attributes) END
									 ORDER BY (attributes ->> 'n')::int DESC, id)
					  FROM (SELECT * FROM sf WHERE attributes ->> 'city' = c AND (attributes ->> 'n')::int < k
							 ORDER BY (attributes ->> 'n')::int DESC, id LIMIT lim) t)) ORDER BY c COLLATE "C")
			   FROM (SELECT DISTINCT attributes ->> 'city' AS c FROM sf WHERE attributes ? 'city' AND (attributes ->> 'n')::int < k) cs));
	END LOOP;
END $$;
SELECT cols ->> 'return_type' AS columns, count(*) AS trials, count(*) FILTER (WHERE got IS DISTINCT FROM expected) AS differing
  FROM top_trials GROUP BY 1 ORDER BY 1;
SELECT * FROM top_trials WHERE got IS DISTINCT FROM expected ORDER BY n LIMIT 1;
-- by default one row, in the index's presort (the key ascending)
SELECT (s #>> '{aggs,0,rows,0,primary_key,id}')::int AS top, (SELECT min(id) FROM m WHERE n = 3) AS least_id_with_n_3,
	   jsonb_array_length(s #> '{aggs,0,rows}') AS rows
  FROM ots.search('sf', 'ix', '{"query": {"term_query": {"field_name": "n", "term": 3}}, "limit": 0,
	"aggs": [{"name": "t", "type": "top_rows"}]}') s;
SELECT pg_temp.err($$SELECT ots.search('sf', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "t", "type": "top_rows", "limit": 101}]}')$$);
-- of a table whose name has capitals (ots's table-name arguments take it unquoted)
SELECT ots.create_table('TopUp', 'id integer');
SELECT ots.create_search_index('TopUp', 'ix', '{"field_schemas": [{"field_name": "n", "field_type": "LONG"}]}');
SELECT count(ots.put_row('TopUp', '{"id": 1}', '{"n": 1}'));
SELECT s #> '{aggs,0,rows}' FROM ots.search('TopUp', 'ix', '{"query": {"match_all_query": {}}, "limit": 0, "aggs": [{"name": "t", "type": "top_rows"}]}',
	'{"return_type": "RETURN_ALL"}') s;
SELECT ots.delete_search_index('TopUp', 'ix'), ots.delete_table('TopUp');

-- ---------------------------------------------------------------------
-- count and distinct_count of GEO_POINT fields (Tablestore counts points;
-- other aggregations of them are refused), on random ranges of n
-- ---------------------------------------------------------------------
CREATE TEMP TABLE geo_count_trials (n int, k int, got jsonb, expected jsonb);
DO $$
DECLARE
	k int;
BEGIN
	FOR i IN 1 .. 10 LOOP
		k := floor(random() * 13)::int;
		INSERT INTO geo_count_trials VALUES (i, k,
			(SELECT jsonb_agg(a -> 'value' ORDER BY o) FROM jsonb_array_elements(
				ots.search('sf', 'ix', jsonb_build_object('query', jsonb_build_object('range_query', jsonb_build_object('field_name', 'n', 'range_to', k)),
					'limit', 0, 'aggs', '[{"name": "c", "type": "count", "field_name": "loc"}, {"name": "d", "type": "distinct_count", "field_name": "loc"},
										  {"name": "cs", "type": "count", "field_name": "spots"}, {"name": "ds", "type": "distinct_count", "field_name": "spots"}]'::jsonb))
					-> 'aggs') WITH ORDINALITY x(a, o)),
			(SELECT jsonb_build_array(count(loc), count(DISTINCT loc::text),
									  (SELECT count(*) FROM m m2, unnest(m2.spots) e WHERE m2.n < k),
									  (SELECT count(DISTINCT e::text) FROM m m2, unnest(m2.spots) e WHERE m2.n < k))
			   FROM m WHERE n < k));
	END LOOP;
END $$;
SELECT count(*) AS trials, sum((expected ->> 0)::int) AS points, sum((expected ->> 2)::int) AS array_points,
	   count(*) FILTER (WHERE got IS DISTINCT FROM expected) AS differing FROM geo_count_trials;
SELECT * FROM geo_count_trials WHERE got IS DISTINCT FROM expected ORDER BY n LIMIT 2;
SELECT pg_temp.err($$SELECT ots.search('sf', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "a", "type": "max", "field_name": "loc"}]}')$$);
-- a missing point counts a row without one; a missing that is no point is refused
SELECT (s #>> '{aggs,0,value}')::int AS counted, (SELECT count(*) FROM m) AS rows
  FROM ots.search('sf', 'ix', '{"query": {"match_all_query": {}}, "limit": 0, "aggs": [{"name": "a", "type": "count", "field_name": "loc", "missing": "31,121"}]}') s;
SELECT pg_temp.err($$SELECT ots.search('sf', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "a", "type": "count", "field_name": "loc", "missing": "north"}]}')$$);

DROP VIEW m;
SELECT ots.delete_search_index('sf', 'ix'), ots.delete_table('sf');

-- ---------------------------------------------------------------------
-- nested_query: a row whose NESTED field has one document matching every
-- condition of the query (sub-fields of the wrong type left out of their
-- document, a field that is no array of objects left out of the row),
-- two levels deep, mixed with a condition on the row
-- ---------------------------------------------------------------------
SELECT ots.create_table('sn', 'id integer');
SELECT ots.create_search_index('sn', 'ix', '{"field_schemas": [
	{"field_name": "city", "field_type": "KEYWORD"},
	{"field_name": "menu", "field_type": "NESTED", "field_schemas": [
		{"field_name": "dish", "field_type": "KEYWORD"},
		{"field_name": "cost", "field_type": "LONG"},
		{"field_name": "note", "field_type": "TEXT"},
		{"field_name": "tags", "field_type": "KEYWORD", "is_array": true},
		{"field_name": "sides", "field_type": "NESTED", "field_schemas": [
			{"field_name": "name", "field_type": "KEYWORD"}, {"field_name": "grams", "field_type": "LONG"}]}]}]}');
CREATE FUNCTION pg_temp.doc() RETURNS jsonb LANGUAGE sql VOLATILE AS $$
	SELECT jsonb_strip_nulls(jsonb_build_object(
		'dish', CASE WHEN random() < 0.85 THEN to_jsonb(pg_temp.pick(ARRAY['tea', 'rice', 'noodle', 'cake'])) WHEN random() < 0.5 THEN '7' END,
		'cost', CASE WHEN random() < 0.8 THEN to_jsonb(floor(random() * 10)::int) WHEN random() < 0.5 THEN '"5"' ELSE '2.5' END,
		'note', CASE WHEN random() < 0.7 THEN to_jsonb(pg_temp.pick(ARRAY['Hot green tea', 'cold noodle soup', 'green Rice', 'sweet cake'])) END,
		'tags', CASE WHEN random() < 0.7 THEN pg_temp.pick(ARRAY['["a", "b"]', '["b"]', '[]', '["a", 1]'])::jsonb END,
		'sides', CASE WHEN random() < 0.6 THEN (SELECT jsonb_agg(jsonb_build_object('name', pg_temp.pick(ARRAY['cake', 'soup', 'bun']),
																	 'grams', floor(random() * 300)::int))
												FROM generate_series(1, 1 + floor(random() * 2)::int)) WHEN random() < 0.3 THEN '["cake"]' END))
$$;
SELECT setseed(0.7);
SELECT count(ots.put_row('sn', jsonb_build_object('id', g), jsonb_strip_nulls(jsonb_build_object(
	'city', pg_temp.pick(ARRAY['hz', 'sh']),
	'menu', CASE WHEN random() < 0.9 THEN
		(SELECT jsonb_agg(pg_temp.doc()) FROM generate_series(1, 1 + floor(random() * 3)::int + 0 * g))::text
		WHEN random() < 0.5 THEN '[{"dish": "tea"}, 3]' ELSE 'not json' END))))
  FROM generate_series(1, 120) g;
-- the model: a NESTED field's documents, when its value is a JSON array of
-- objects; a document's sub-field as the index takes it (of its type, or absent)
CREATE FUNCTION pg_temp.json_array_of_objects(j jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT jsonb_typeof(j) = 'array' AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(j) e WHERE jsonb_typeof(e) <> 'object')
$$;
CREATE FUNCTION pg_temp.docs(t text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	RETURN CASE WHEN pg_temp.json_array_of_objects(t::jsonb) THEN t::jsonb END;
EXCEPTION WHEN invalid_text_representation THEN
	RETURN NULL;
END $$;
CREATE FUNCTION pg_temp.nm(q jsonb, d jsonb) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	k text := (SELECT min(x) FROM jsonb_object_keys(q) x);
	b jsonb := q -> k;
	f text := split_part(b ->> 'field_name', '.', 2);
	v jsonb := d -> f;
	r boolean := true;
BEGIN
	CASE k
		WHEN 'term_query' THEN RETURN jsonb_typeof(v) = 'string' AND v = b -> 'term';
		WHEN 'range_query' THEN
			IF jsonb_typeof(v) <> 'number' OR v::numeric <> trunc(v::numeric) THEN RETURN false; END IF;
			IF b ? 'range_from' THEN r := r AND v::numeric >= (b ->> 'range_from')::numeric; END IF;
			IF b ? 'range_to' THEN r := r AND v::numeric < (b ->> 'range_to')::numeric; END IF;
			RETURN r;
		WHEN 'exists_query' THEN RETURN jsonb_typeof(v) = 'string';
		WHEN 'match_query' THEN RETURN jsonb_typeof(v) = 'string' AND (b ->> 'text') = ANY (regexp_split_to_array(lower(v #>> '{}'), ' '));
		WHEN 'terms_query' THEN
			RETURN jsonb_typeof(v) = 'array' AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(v) e WHERE jsonb_typeof(e) <> 'string')
				   AND v ? (b -> 'terms' ->> 0);
		WHEN 'bool_query' THEN
			RETURN coalesce((SELECT bool_and(coalesce(pg_temp.nm(x, d), false)) FROM jsonb_array_elements(b -> 'must_queries') x), true)
			   AND coalesce((SELECT NOT bool_or(coalesce(pg_temp.nm(x, d), false)) FROM jsonb_array_elements(b -> 'must_not_queries') x), true);
		WHEN 'nested_query' THEN
			-- menu.sides: a side of this document named so
			RETURN pg_temp.json_array_of_objects(d -> 'sides')
			   AND EXISTS (SELECT 1 FROM jsonb_array_elements(d -> 'sides') x
						   WHERE jsonb_typeof(x -> 'name') = 'string' AND x -> 'name' = b #> '{query,term_query,term}');
	END CASE;
END $$;
CREATE FUNCTION pg_temp.random_leaf() RETURNS jsonb LANGUAGE sql VOLATILE AS $$
	SELECT (ARRAY[
		jsonb_build_object('term_query', jsonb_build_object('field_name', 'menu.dish', 'term', pg_temp.pick(ARRAY['tea', 'rice', 'noodle', 'cake', '7']))),
		jsonb_build_object('range_query', jsonb_build_object('field_name', 'menu.cost', 'range_from', floor(random() * 10)::int, 'include_lower', true)),
		jsonb_build_object('range_query', jsonb_build_object('field_name', 'menu.cost', 'range_to', floor(random() * 10)::int)),
		'{"exists_query": {"field_name": "menu.note"}}'::jsonb,
		jsonb_build_object('match_query', jsonb_build_object('field_name', 'menu.note', 'text', pg_temp.pick(ARRAY['green', 'tea', 'noodle', 'rice']))),
		jsonb_build_object('terms_query', jsonb_build_object('field_name', 'menu.tags', 'terms', jsonb_build_array(pg_temp.pick(ARRAY['a', 'b']))))
	])[1 + floor(random() * 6)::int]
$$;
CREATE TEMP TABLE nested_trials (n int, query jsonb, got int[], expected int[]);
DO $$
DECLARE
	inner_q jsonb;
	q jsonb;
	side text;
	city text;
	model text;
BEGIN
	FOR i IN 1 .. 80 LOOP
		inner_q := jsonb_build_object('bool_query', jsonb_build_object(
			'must_queries', (SELECT jsonb_agg(pg_temp.random_leaf()) FROM generate_series(1, 1 + floor(random() * 2)::int)),
			'must_not_queries', CASE WHEN random() < 0.3 THEN jsonb_build_array(pg_temp.random_leaf()) ELSE '[]' END));
		IF random() < 0.25 THEN
			-- two levels: a side of a document
			side := pg_temp.pick(ARRAY['cake', 'soup', 'bun']);
			inner_q := jsonb_build_object('bool_query', jsonb_build_object('must_queries', (inner_q #> '{bool_query,must_queries}')
				|| jsonb_build_array(jsonb_build_object('nested_query', jsonb_build_object('path', 'menu.sides', 'score_mode', 'Max',
					'query', jsonb_build_object('term_query', jsonb_build_object('field_name', 'menu.sides.name', 'term', side))))),
				'must_not_queries', inner_q #> '{bool_query,must_not_queries}'));
		END IF;
		q := jsonb_build_object('nested_query', jsonb_build_object('path', 'menu', 'query', inner_q));
		city := CASE WHEN random() < 0.3 THEN pg_temp.pick(ARRAY['hz', 'sh']) END;
		IF city IS NOT NULL THEN
			q := jsonb_build_object('bool_query', jsonb_build_object('must_queries', jsonb_build_array(q,
				jsonb_build_object('term_query', jsonb_build_object('field_name', 'city', 'term', city)))));
		END IF;
		INSERT INTO nested_trials VALUES (i, q,
			ARRAY(SELECT (r #>> '{primary_key,id}')::int FROM jsonb_array_elements(
				ots.search('sn', 'ix', jsonb_build_object('query', q, 'limit', 100)) -> 'rows') WITH ORDINALITY x(r, o) ORDER BY o),
			ARRAY(SELECT id FROM sn
				   WHERE (city IS NULL OR attributes ->> 'city' = city)
					 AND EXISTS (SELECT 1 FROM jsonb_array_elements(pg_temp.docs(attributes ->> 'menu')) d WHERE pg_temp.nm(inner_q, d))
				   ORDER BY id));
	END LOOP;
END $$;
SELECT count(*) AS trials, count(*) FILTER (WHERE cardinality(expected) > 0) AS with_rows,
	   count(*) FILTER (WHERE query::text LIKE '%menu.sides%') AS two_levels,
	   count(*) FILTER (WHERE got IS DISTINCT FROM expected) AS differing FROM nested_trials;
SELECT * FROM nested_trials WHERE got IS DISTINCT FROM expected ORDER BY n LIMIT 2;
-- aggregations of a NESTED field's sub-fields: every document's value
-- counts (a row's documents each), missing standing in for a document's
-- absent one; two levels down too; over the rows of each trial's query.
-- A LONG's percentile: interpolated between the values around it, truncated.
CREATE FUNCTION pg_temp.doc_long(d jsonb, f text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN jsonb_typeof(d -> f) = 'number' AND (d ->> f)::numeric = trunc((d ->> f)::numeric) THEN (d ->> f)::bigint END
$$;
CREATE TEMP TABLE nested_agg_trials (n int, got jsonb, expected jsonb);
INSERT INTO nested_agg_trials
SELECT t.n,
	   (SELECT jsonb_agg(coalesce(a -> 'value', a -> 'items') ORDER BY o) FROM jsonb_array_elements(
			ots.search('sn', 'ix', jsonb_build_object('query', t.query, 'limit', 0, 'aggs', '[
				{"name": "s", "type": "sum", "field_name": "menu.cost"},
				{"name": "c", "type": "count", "field_name": "menu.dish"},
				{"name": "d", "type": "distinct_count", "field_name": "menu.dish"},
				{"name": "t", "type": "count", "field_name": "menu.tags"},
				{"name": "g", "type": "max", "field_name": "menu.sides.grams"}]'::jsonb)) -> 'aggs') WITH ORDINALITY x(a, o))
	|| (SELECT jsonb_agg(coalesce(a -> 'value', a -> 'items') ORDER BY o) FROM jsonb_array_elements(
			ots.search('sn', 'ix', jsonb_build_object('query', t.query, 'limit', 0, 'aggs', '[
				{"name": "m", "type": "min", "field_name": "menu.cost", "missing": -1},
				{"name": "p", "type": "percentiles", "field_name": "menu.cost", "percentiles": [90, 10, 50]},
				{"name": "dt", "type": "distinct_count", "field_name": "menu.tags"}]'::jsonb)) -> 'aggs') WITH ORDINALITY x(a, o)),
	   (WITH docs AS (SELECT d FROM sn, jsonb_array_elements(pg_temp.docs(sn.attributes ->> 'menu')) d WHERE sn.id = ANY (t.expected)),
			 tags AS (SELECT e FROM docs, jsonb_array_elements_text(docs.d -> 'tags') e
					   WHERE jsonb_typeof(docs.d -> 'tags') = 'array'
						 AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(docs.d -> 'tags') x WHERE jsonb_typeof(x) <> 'string')),
			 costs AS (SELECT pg_temp.doc_long(d, 'cost') AS v FROM docs)
		SELECT jsonb_build_array(
			(SELECT coalesce(sum(v), 0) FROM costs),
			(SELECT count(*) FROM docs WHERE jsonb_typeof(d -> 'dish') = 'string'),
			(SELECT count(DISTINCT d ->> 'dish') FROM docs WHERE jsonb_typeof(d -> 'dish') = 'string'),
			(SELECT count(*) FROM tags),
			(SELECT max(pg_temp.doc_long(x, 'grams')) FROM docs, jsonb_array_elements(docs.d -> 'sides') x
			  WHERE pg_temp.json_array_of_objects(docs.d -> 'sides')),
			(SELECT min(coalesce(v, -1)) FROM costs),
			(SELECT CASE WHEN count(v) > 0 THEN jsonb_build_array(
						jsonb_build_object('key', 10, 'value', trunc(round((percentile_cont(0.1) WITHIN GROUP (ORDER BY v))::numeric, 9))::bigint),
						jsonb_build_object('key', 50, 'value', trunc(round((percentile_cont(0.5) WITHIN GROUP (ORDER BY v))::numeric, 9))::bigint),
						jsonb_build_object('key', 90, 'value', trunc(round((percentile_cont(0.9) WITHIN GROUP (ORDER BY v))::numeric, 9))::bigint))
					ELSE '[{"key": 10, "value": null}, {"key": 50, "value": null}, {"key": 90, "value": null}]' END
			   FROM costs),
			(SELECT count(DISTINCT e) FROM tags)))
  FROM nested_trials t WHERE t.n <= 40;
SELECT count(*) AS trials, count(*) FILTER (WHERE expected -> 0 <> '0') AS with_costs,
	   count(*) FILTER (WHERE got IS DISTINCT FROM expected) AS differing FROM nested_agg_trials;
SELECT * FROM nested_agg_trials WHERE got IS DISTINCT FROM expected ORDER BY n LIMIT 2;
-- group_by_field of a sub-field: a bucket per value in the documents, a row
-- counted once in each (two levels down too); its sub-aggregations over the
-- bucket's rows, all their documents
CREATE TEMP TABLE nested_group_trials (n int, got jsonb, expected jsonb);
INSERT INTO nested_group_trials
SELECT t.n,
	   (SELECT jsonb_agg(jsonb_build_array(x.g ->> 'name', (SELECT jsonb_agg(jsonb_build_array(i -> 'key', i -> 'row_count', i #> '{sub_aggs,0,value}'))
															  FROM jsonb_array_elements(x.g -> 'items') i)) ORDER BY x.o)
		  FROM jsonb_array_elements(ots.search('sn', 'ix', jsonb_build_object('query', t.query, 'limit', 0, 'group_bys', '[
				{"name": "dish", "type": "field", "field_name": "menu.dish", "sub_aggs": [{"name": "s", "type": "sum", "field_name": "menu.cost"}]},
				{"name": "side", "type": "field", "field_name": "menu.sides.name", "size": 2, "sub_aggs": [{"name": "c", "type": "count", "field_name": "city"}]}]'::jsonb))
				-> 'group_bys') WITH ORDINALITY x(g, o)),
	   (WITH rows AS (SELECT sn.id, sn.attributes, pg_temp.docs(sn.attributes ->> 'menu') AS docs FROM sn WHERE sn.id = ANY (t.expected)),
			 dishes AS (SELECT DISTINCT r.id, d ->> 'dish' AS k FROM rows r, jsonb_array_elements(r.docs) d WHERE jsonb_typeof(d -> 'dish') = 'string'),
			 sides AS (SELECT DISTINCT r.id, x ->> 'name' AS k FROM rows r, jsonb_array_elements(r.docs) d, jsonb_array_elements(d -> 'sides') x
						WHERE pg_temp.json_array_of_objects(d -> 'sides') AND jsonb_typeof(x -> 'name') = 'string')
		SELECT jsonb_build_array(
			jsonb_build_array('dish', (SELECT jsonb_agg(jsonb_build_array(k, c, (
						SELECT coalesce(sum(pg_temp.doc_long(d, 'cost')), 0) FROM rows r, jsonb_array_elements(r.docs) d
						 WHERE r.id IN (SELECT id FROM dishes WHERE dishes.k = g.k))) ORDER BY c DESC, k COLLATE "C")
				  FROM (SELECT k, count(*) AS c FROM dishes GROUP BY k ORDER BY 2 DESC, k COLLATE "C" LIMIT 10) g)),
			jsonb_build_array('side', (SELECT jsonb_agg(jsonb_build_array(k, c, (
						SELECT count(*) FROM rows r WHERE r.id IN (SELECT id FROM sides WHERE sides.k = g.k) AND r.attributes ? 'city')) ORDER BY c DESC, k COLLATE "C")
				  FROM (SELECT k, count(*) AS c FROM sides GROUP BY k ORDER BY 2 DESC, k COLLATE "C" LIMIT 2) g))))
  FROM nested_trials t WHERE t.n <= 30;
SELECT count(*) AS trials, count(*) FILTER (WHERE got #> '{0,1}' <> 'null') AS with_groups,
	   count(*) FILTER (WHERE got IS DISTINCT FROM expected) AS differing FROM nested_group_trials;
SELECT * FROM nested_group_trials WHERE got IS DISTINCT FROM expected ORDER BY n LIMIT 2;
-- a sub-field that is none, a NESTED one, a TEXT one: refused
SELECT pg_temp.err($$SELECT ots.search('sn', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "a", "type": "sum", "field_name": "menu..cost"}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sn', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "a", "type": "sum", "field_name": "menu", "missing": 1}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sn', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "a", "type": "sum", "field_name": "menu.price"}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sn', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "a", "type": "count", "field_name": "menu.sides"}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('sn', 'ix', '{"query": {"match_all_query": {}}, "aggs": [{"name": "a", "type": "count", "field_name": "menu.note"}]}')$$);
-- what the index keeps of a document: its sub-fields of their types, normalized
SELECT attributes ->> 'menu' AS cell, (SELECT menu FROM "sn$search$ix" x WHERE x.id = sn.id) AS kept
  FROM sn WHERE id IN (1, 2) ORDER BY id;
SELECT pg_temp.err($$SELECT ots.search('sn', 'ix', '{"query": {"term_query": {"field_name": "menu.dish", "term": "tea"}}}')$$);
SELECT pg_temp.err($$SELECT ots.search('sn', 'ix', '{"query": {"nested_query": {"path": "menu", "query": {"term_query": {"field_name": "city", "term": "hz"}}}}}')$$);
SELECT pg_temp.err($$SELECT ots.search('sn', 'ix', '{"query": {"nested_query": {"path": "city", "query": {"match_all_query": {}}}}}')$$);
SELECT pg_temp.err($$SELECT ots.search('sn', 'ix', '{"query": {"nested_query": {"path": "menu", "score_mode": "Most", "query": {"match_all_query": {}}}}}')$$);
SELECT pg_temp.err($$SELECT ots.search('sn', 'ix', '{"query": {"nested_query": {"path": "menu", "query": {"nested_query": {"path": "menu", "query": {"match_all_query": {}}}}}}}')$$);
SELECT ots.delete_search_index('sn', 'ix'), ots.delete_table('sn');
-- a nested DOUBLE keeps its exact value, as a top-level one does
SELECT ots.create_table('nd', 'id integer');
SELECT ots.create_search_index('nd', 'ix', '{"field_schemas": [{"field_name": "price", "field_type": "DOUBLE"},
	{"field_name": "menu", "field_type": "NESTED", "field_schemas": [{"field_name": "cost", "field_type": "DOUBLE"}]}]}');
SELECT count(ots.put_row('nd', jsonb_build_object('id', i), jsonb_build_object('price', v, 'menu', format('[{"cost": %s}]', v))))
  FROM (VALUES (1, 0.30000000000000004::float8), (2, 0.3::float8)) x(i, v);
SELECT q, (SELECT array_agg((r #>> '{primary_key,id}')::int ORDER BY 1) FROM jsonb_array_elements(ots.search('nd', 'ix', jsonb_build_object('query', q)) -> 'rows') r) AS ids
  FROM (VALUES ('{"term_query": {"field_name": "price", "term": 0.30000000000000004}}'::jsonb),
			   ('{"nested_query": {"path": "menu", "query": {"term_query": {"field_name": "menu.cost", "term": 0.30000000000000004}}}}'),
			   ('{"nested_query": {"path": "menu", "query": {"term_query": {"field_name": "menu.cost", "term": 0.3}}}}'),
			   ('{"nested_query": {"path": "menu", "query": {"range_query": {"field_name": "menu.cost", "range_from": 0.3}}}}')) v(q);
SELECT ots.delete_search_index('nd', 'ix'), ots.delete_table('nd');

-- ---------------------------------------------------------------------
-- score_sort: a match query's BM25 (k1 1.2, b 0.75, the index's
-- statistics), a bool's sum of its must and matching should queries',
-- 1 for other queries; the best first, pages by token
-- ---------------------------------------------------------------------
SELECT ots.create_table('ss', 'id integer');
SELECT ots.create_search_index('ss', 'ix', '{"field_schemas": [
	{"field_name": "body", "field_type": "TEXT"}, {"field_name": "k", "field_type": "KEYWORD"}]}');
SELECT setseed(0.9);
SELECT count(ots.put_row('ss', jsonb_build_object('id', g), jsonb_strip_nulls(jsonb_build_object(
	'body', CASE WHEN random() < 0.9 THEN (SELECT string_agg(pg_temp.pick(ARRAY['tea', 'coffee', 'green', 'black', 'milk', 'honey', 'lemon', 'ice']), ' ')
										   FROM generate_series(1, 1 + floor(random() * 8)::int + 0 * g)) END,
	'k', CASE WHEN random() < 0.7 THEN pg_temp.pick(ARRAY['x', 'y']) END))))
  FROM generate_series(1, 100) g;
-- the model: each row's words, and BM25 of some words over them
CREATE TEMP TABLE words AS
SELECT id, regexp_split_to_array(attributes ->> 'body', ' ') AS w, attributes ->> 'k' AS k FROM ss WHERE attributes ? 'body'
UNION ALL SELECT id, NULL, attributes ->> 'k' FROM ss WHERE NOT attributes ? 'body';
CREATE FUNCTION pg_temp.bm25(w text[], q text[]) RETURNS float8 LANGUAGE sql STABLE AS $$
	SELECT coalesce(sum(ln(1 + (st.n - df.c + 0.5) / (df.c + 0.5)) * tf.c * 2.2
						/ (tf.c + 1.2 * (0.25 + 0.75 * cardinality(w) / st.avgdl))), 0)
	  FROM (SELECT DISTINCT t FROM unnest(q) t) qt,
		   LATERAL (SELECT count(*) AS c FROM unnest(w) x WHERE x = qt.t) tf,
		   LATERAL (SELECT count(*) AS c FROM words WHERE qt.t = ANY (words.w)) df,
		   (SELECT count(*) AS n, avg(cardinality(w)) AS avgdl FROM words WHERE w IS NOT NULL) st
	 WHERE tf.c > 0
$$;
CREATE TEMP TABLE score_trials (n int, request jsonb, got int[], expected int[], in_order boolean);
DO $$
DECLARE
	q jsonb;
	a text[];
	b text;
	kind int;
	desc_ boolean;
	got int[];
	expected int[];
	scores float8[];
	in_order boolean;
	r jsonb;
BEGIN
	FOR i IN 1 .. 40 LOOP
		a := ARRAY(SELECT pg_temp.pick(ARRAY['tea', 'coffee', 'green', 'black', 'milk', 'honey', 'lemon', 'ice', 'water'])
					 FROM generate_series(1, 1 + floor(random() * 3)::int));
		b := pg_temp.pick(ARRAY['tea', 'coffee', 'green', 'black', 'milk', 'honey', 'lemon', 'ice']);
		kind := floor(random() * 2)::int;
		desc_ := random() < 0.8;
		q := CASE kind WHEN 0 THEN jsonb_build_object('match_query', jsonb_build_object('field_name', 'body', 'text', array_to_string(a, ' ')))
			ELSE jsonb_build_object('bool_query', jsonb_build_object(
				'must_queries', jsonb_build_array(jsonb_build_object('match_query', jsonb_build_object('field_name', 'body', 'text', array_to_string(a, ' ')))),
				'should_queries', jsonb_build_array(jsonb_build_object('match_query', jsonb_build_object('field_name', 'body', 'text', b)),
													'{"term_query": {"field_name": "k", "term": "x"}}'::jsonb))) END;
		r := jsonb_build_object('query', q, 'sort', jsonb_build_object('sorters', jsonb_build_array(jsonb_build_object('score_sort',
			CASE WHEN desc_ THEN '{}'::jsonb ELSE '{"order": "ASC"}'::jsonb END))));
		got := pg_temp.all_pages_of('ss', r, 1 + floor(random() * 15)::int);
		-- the model's rows and scores, in the search's order
		SELECT array_agg(id ORDER BY id) INTO expected FROM words WHERE w && a;
		SELECT array_agg(pg_temp.bm25(w, a) + CASE WHEN kind = 1 THEN pg_temp.bm25(w, ARRAY[b]) + CASE WHEN k = 'x' THEN 1 ELSE 0 END ELSE 0 END
						 ORDER BY o)
		  INTO scores FROM unnest(got) WITH ORDINALITY g(id, o) JOIN words USING (id);
		-- each next row's score no better (worse, ascending), equal scores by key
		SELECT coalesce(bool_and(CASE WHEN abs(s1 - s2) < 1e-9 THEN s1 <> s2 OR id1 < id2
									  WHEN desc_ THEN s1 > s2 ELSE s1 < s2 END), true)
		  INTO in_order
		  FROM (SELECT got[o] AS id1, got[o + 1] AS id2, scores[o] AS s1, scores[o + 1] AS s2
				  FROM generate_series(1, cardinality(got) - 1) o) x;
		INSERT INTO score_trials VALUES (i, r, got, coalesce(expected, '{}'), in_order);
	END LOOP;
END $$;
SELECT count(*) AS trials, count(*) FILTER (WHERE cardinality(expected) > 1) AS several,
	   count(*) FILTER (WHERE ARRAY(SELECT unnest(got) ORDER BY 1) IS DISTINCT FROM expected OR NOT in_order) AS differing
  FROM score_trials;
SELECT * FROM score_trials WHERE ARRAY(SELECT unnest(got) ORDER BY 1) IS DISTINCT FROM expected OR NOT in_order ORDER BY n LIMIT 2;
-- the scores themselves: the model's first three for "tea coffee", the best first
SELECT id, round(pg_temp.bm25(w, '{tea,coffee}')::numeric, 6) AS score
  FROM unnest(pg_temp.all_pages_of('ss', '{"query": {"match_query": {"field_name": "body", "text": "tea coffee"}},
	"sort": {"sorters": [{"score_sort": {}}]}}', 3)) WITH ORDINALITY g(id, o) JOIN words USING (id)
 ORDER BY o LIMIT 3;
SELECT pg_temp.err($$SELECT ots.search('ss', 'ix', '{"query": {"match_all_query": {}}, "sort": {"sorters": [{"score_sort": {"order": "UP"}}]}}')$$);
SELECT ots.delete_search_index('ss', 'ix'), ots.delete_table('ss');

-- group_by_geo_grid: a bucket per geohash cell, the most rows first, then the
-- key; against geohashes computed here in plpgsql, at every precision 1 to 5
CREATE FUNCTION pg_temp.geohash(lat float8, lon float8, n int) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	digits text := '0123456789bcdefghjkmnpqrstuvwxyz';
	la float8[] := ARRAY[-90, 90];
	lo float8[] := ARRAY[-180, 180];
	even bool := true;
	b int := 0;
	d int := 0;
	hash text := '';
	mid float8;
BEGIN
	WHILE length(hash) < n LOOP
		IF even THEN
			mid := (lo[1] + lo[2]) / 2;
			IF lon >= mid THEN d := d * 2 + 1; lo[1] := mid; ELSE d := d * 2; lo[2] := mid; END IF;
		ELSE
			mid := (la[1] + la[2]) / 2;
			IF lat >= mid THEN d := d * 2 + 1; la[1] := mid; ELSE d := d * 2; la[2] := mid; END IF;
		END IF;
		even := NOT even;
		b := b + 1;
		IF b = 5 THEN hash := hash || substr(digits, d + 1, 1); b := 0; d := 0; END IF;
	END LOOP;
	RETURN hash;
END $$;
SELECT ots.create_table('ggt', 'id integer', max_versions => 1);
SELECT setseed(0.61);
SELECT count(ots.put_row('ggt', jsonb_build_object('id', g),
		CASE WHEN g % 9 = 0 THEN '{"n": 1}'::jsonb
			 ELSE jsonb_build_object('loc', format('%s,%s', round((30 + random() * 20 - 10)::numeric, 5), round((120 + random() * 30 - 15)::numeric, 5)), 'n', g) END))
  FROM generate_series(1, 300) g;
SELECT ots.create_search_index('ggt', 'ix', '{"field_schemas": [{"field_name": "loc", "field_type": "GEO_POINT"}, {"field_name": "n", "field_type": "LONG"}]}');
SELECT p AS precision,
	   (SELECT string_agg(i ->> 'key' || ':' || (i ->> 'row_count') || ':' || (i #>> '{sub_aggs,0,value}'), ' ' ORDER BY o)
		  FROM jsonb_array_elements(ots.search('ggt', 'ix', jsonb_build_object('query', '{"match_all_query": {}}'::jsonb, 'limit', 0,
				'group_bys', jsonb_build_array(jsonb_build_object('name', 'g', 'type', 'geo_grid', 'field_name', 'loc', 'precision', p, 'size', 10,
					'sub_aggs', '[{"name": "s", "type": "sum", "field_name": "n"}]'::jsonb)))) #> '{group_bys,0,items}') WITH ORDINALITY AS x(i, o))
	   = (SELECT string_agg(k || ':' || c || ':' || s, ' ' ORDER BY c DESC, k COLLATE "C")
		    FROM (SELECT k, count(*) AS c, sum(n) AS s
				    FROM (SELECT pg_temp.geohash(split_part(attributes ->> 'loc', ',', 1)::float8, split_part(attributes ->> 'loc', ',', 2)::float8, p) AS k,
								 (attributes ->> 'n')::bigint AS n
						    FROM ggt WHERE attributes ? 'loc') y
				   GROUP BY k ORDER BY c DESC, k COLLATE "C" LIMIT 10) z) AS same_as_model
  FROM generate_series(1, 5) p;
-- a cell's corners (the Go SDK's own test's point and expected cell), precision by Tablestore's name
SELECT ots.put_row('ggt', '{"id": 1000}', '{"loc": "30.137817,120.08681", "n": -5}');
SELECT i -> 'key' AS key, i -> 'geo_grid' AS cell
  FROM jsonb_array_elements(ots.search('ggt', 'ix', '{"query": {"term_query": {"field_name": "n", "term": -5}}, "limit": 0,
		"group_bys": [{"name": "g", "type": "geo_grid", "field_name": "loc", "precision": "GHP_156KM_156KM_3"}]}') #> '{group_bys,0,items}') i;
SELECT pg_temp.err($$SELECT ots.search('ggt', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "g", "type": "geo_grid", "field_name": "loc", "precision": 13}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('ggt', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "g", "type": "geo_grid", "field_name": "loc"}]}')$$);
SELECT pg_temp.err($$SELECT ots.search('ggt', 'ix', '{"query": {"match_all_query": {}}, "group_bys": [{"name": "g", "type": "geo_grid", "field_name": "n", "precision": 3}]}')$$);
SELECT ots.delete_search_index('ggt', 'ix'), ots.delete_table('ggt');
