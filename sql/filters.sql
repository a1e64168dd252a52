-- filters: read filters on get_row and get_range (single-column conditions,
-- missing columns, latest_version_only, type mismatch, primary-key columns,
-- AND/OR/NOT and their limits), column pagination, start_column /
-- end_column, and regex filters with EXIST / NOT_EXIST.
-- Quiet: the extension may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

SELECT ots.create_table('flt', 'id integer', max_versions => 10,
						max_version_offset => 9223372036854, partitions => 2);
SELECT consumed FROM ots.put_row('flt', '{"id": 1}',
	'{"i": 10, "s": "abc", "d": 2.5, "b": true, "bin": {"$binary": "AQI="},
	  "ver": [{"value": 0, "ts": 1000}, {"value": 1, "ts": 1001}, {"value": 2, "ts": 1002},
			  {"value": 3, "ts": 1003}, {"value": 4, "ts": 1004}, {"value": 5, "ts": 1005},
			  {"value": 6, "ts": 1006}, {"value": 7, "ts": 1007}, {"value": 8, "ts": 1008},
			  {"value": 9, "ts": 1009}]}');
SELECT consumed FROM ots.put_row('flt', '{"id": 2}', '{"i": 20, "s": "B"}');
SELECT consumed FROM ots.put_row('flt', '{"id": 3}');

-- the ids of the rows that pass a filter: by get_range, and by get_row on each
-- key (reading the latest version, or mv versions)
CREATE FUNCTION pg_temp.by_range(f jsonb, mv integer) RETURNS text
LANGUAGE sql AS $$
	SELECT coalesce(string_agg(e #>> '{primary_key,id}', ',' ORDER BY n), '-')
	  FROM ots.get_range('flt', '{"id": {"$inf": "min"}}', '{"id": {"$inf": "max"}}',
						 filter => f, max_versions => mv) g,
		   jsonb_array_elements(g.rows) WITH ORDINALITY AS a(e, n)
$$;
CREATE FUNCTION pg_temp.by_row(f jsonb, mv integer) RETURNS text
LANGUAGE sql AS $$
	SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '-')
	  FROM generate_series(1, 3) id
	 WHERE (ots.get_row('flt', jsonb_build_object('id', id), filter => f,
						max_versions => mv)).primary_key IS NOT NULL
$$;
CREATE FUNCTION pg_temp.passes(f jsonb, mv integer DEFAULT NULL, OUT by_range text, OUT by_row text)
LANGUAGE sql AS $$ SELECT pg_temp.by_range(f, mv), pg_temp.by_row(f, mv) $$;

--
-- the six comparators, every spelling (i: row 1 = 10, row 2 = 20, row 3 has none)
--
SELECT c, v, (pg_temp.passes(jsonb_build_object('column', 'i', 'comparator', c, 'value', v,
												'pass_if_missing', false))).*
  FROM unnest(ARRAY['EQUAL', '=', '==', 'equal', 'NOT_EQUAL', '!=', '<>', 'GREATER_THAN', '>',
					'GREATER_EQUAL', '>=', 'LESS_THAN', '<', 'LESS_EQUAL', '<=']) WITH ORDINALITY AS o(c, n),
	   unnest(ARRAY[10, 15, 20]) AS v
 ORDER BY n, v;
-- Strings compare bytewise ("B" < "ab" < "abc")
SELECT c, v, (pg_temp.passes(jsonb_build_object('column', 's', 'comparator', c, 'value', v,
												'pass_if_missing', false))).*
  FROM unnest(ARRAY['=', '!=', '>', '>=', '<', '<=']) WITH ORDINALITY AS o(c, n),
	   unnest(ARRAY['B', 'ab', 'abc']) AS v
 ORDER BY n, v;
-- Double, Boolean and Binary values
SELECT f, (pg_temp.passes(f::jsonb)).*
  FROM (VALUES ('{"column": "d", "comparator": ">", "value": 2.0, "pass_if_missing": false}'),
			   ('{"column": "d", "comparator": "=", "value": 2.50, "pass_if_missing": false}'),
			   ('{"column": "d", "comparator": "<", "value": {"$double": 1e300}, "pass_if_missing": false}'),
			   ('{"column": "d", "comparator": ">", "value": {"$double": 1e300}, "pass_if_missing": false}'),
			   ('{"column": "d", "comparator": "<", "value": -1.5, "pass_if_missing": false}'),
			   ('{"column": "b", "comparator": "=", "value": true, "pass_if_missing": false}'),
			   ('{"column": "b", "comparator": "!=", "value": false, "pass_if_missing": false}'),
			   ('{"column": "b", "comparator": ">", "value": false, "pass_if_missing": false}'),
			   ('{"column": "bin", "comparator": "=", "value": {"$binary": "AQI="}, "pass_if_missing": false}'),
			   ('{"column": "bin", "comparator": ">", "value": {"$binary": "AQ=="}, "pass_if_missing": false}'),
			   ('{"column": "bin", "comparator": "<", "value": {"$binary": "Ag=="}, "pass_if_missing": false}'),
			   ('{"column": "bin", "comparator": "<", "value": {"$binary": "AQ=="}, "pass_if_missing": false}'),
			   ('{"column": "b", "comparator": "=", "value": false, "pass_if_missing": false}')) AS t(f)
 ORDER BY f COLLATE "C";
-- values of another type never match, under any comparator
SELECT f, (pg_temp.passes(f::jsonb)).*
  FROM (VALUES ('{"column": "i", "comparator": "=", "value": "10", "pass_if_missing": false}'),
			   ('{"column": "i", "comparator": "!=", "value": "10", "pass_if_missing": false}'),
			   ('{"column": "i", "comparator": "<", "value": "10", "pass_if_missing": false}'),
			   ('{"column": "i", "comparator": "=", "value": 10.0, "pass_if_missing": false}'),
			   ('{"column": "i", "comparator": "!=", "value": 10.0, "pass_if_missing": false}'),
			   ('{"column": "s", "comparator": "!=", "value": 1, "pass_if_missing": false}'),
			   ('{"column": "d", "comparator": "!=", "value": 2, "pass_if_missing": false}'),
			   ('{"column": "d", "comparator": ">=", "value": 2, "pass_if_missing": false}'),
			   ('{"column": "b", "comparator": "!=", "value": 1, "pass_if_missing": false}'),
			   ('{"column": "bin", "comparator": "!=", "value": "AQI=", "pass_if_missing": false}')) AS t(f)
 ORDER BY f COLLATE "C";

--
-- missing columns pass iff pass_if_missing (default true)
--
SELECT f, (pg_temp.passes(f::jsonb)).*
  FROM (VALUES ('{"column": "zzz", "comparator": "=", "value": 1}'),
			   ('{"column": "zzz", "comparator": "=", "value": 1, "pass_if_missing": true}'),
			   ('{"column": "zzz", "comparator": "=", "value": 1, "pass_if_missing": false}'),
			   ('{"column": "d", "comparator": "=", "value": 9.5}'),
			   ('{"column": "d", "comparator": "=", "value": 9.5, "pass_if_missing": false}'),
			   ('{"column": "d", "comparator": "=", "value": 2.5}'),
			   ('{"column": "d", "comparator": "=", "value": 2.5, "pass_if_missing": false}')) AS t(f)
 ORDER BY f COLLATE "C";
-- a column outside columns_to_get is missing
SELECT (ots.get_row('flt', '{"id": 1}', columns_to_get => '{s}',
	filter => '{"column": "i", "comparator": "=", "value": 10, "pass_if_missing": false}')).attributes;
SELECT (ots.get_row('flt', '{"id": 1}', columns_to_get => '{s}',
	filter => '{"column": "i", "comparator": "!=", "value": 10}')).attributes;
SELECT (ots.get_row('flt', '{"id": 1}', columns_to_get => '{s,i}',
	filter => '{"column": "i", "comparator": "=", "value": 10, "pass_if_missing": false}')).attributes;
-- ... and so is a column without a cell in the requested time range
SELECT (ots.get_row('flt', '{"id": 1}', time_range => '{"start_time": 1000, "end_time": 1005}',
	filter => '{"column": "i", "comparator": "=", "value": 10, "pass_if_missing": false}')).attributes;
SELECT (ots.get_row('flt', '{"id": 1}', time_range => '{"start_time": 1000, "end_time": 1002}',
	filter => '{"column": "i", "comparator": "=", "value": 10}')).attributes;

--
-- latest_version_only (default true), ver holds the values 0..9 at ts 1000..1009;
-- reading 10 versions, the filter sees all of them
--
SELECT f, (pg_temp.passes(f::jsonb, 10)).*
  FROM (VALUES ('{"column": "ver", "comparator": "=", "value": 1, "pass_if_missing": false}'),
			   ('{"column": "ver", "comparator": "=", "value": 1, "pass_if_missing": false, "latest_version_only": true}'),
			   ('{"column": "ver", "comparator": "=", "value": 1, "pass_if_missing": false, "latest_version_only": false}'),
			   ('{"column": "ver", "comparator": "=", "value": 9, "pass_if_missing": false}'),
			   ('{"column": "ver", "comparator": "=", "value": 9, "pass_if_missing": false, "latest_version_only": false}'),
			   ('{"column": "ver", "comparator": "<", "value": 1, "pass_if_missing": false, "latest_version_only": false}'),
			   ('{"column": "ver", "comparator": ">", "value": 9, "pass_if_missing": false, "latest_version_only": false}'),
			   ('{"column": "ver", "comparator": "!=", "value": 9, "pass_if_missing": false, "latest_version_only": false}'),
			   ('{"column": "ver", "comparator": "!=", "value": 9, "pass_if_missing": false, "latest_version_only": true}'),
			   ('{"not": [{"column": "ver", "comparator": "=", "value": 1, "pass_if_missing": false, "latest_version_only": false}]}')) AS t(f)
 ORDER BY f COLLATE "C";
-- reading the latest version (the default), only that version is selected
SELECT f, (pg_temp.passes(f::jsonb)).*
  FROM (VALUES ('{"column": "ver", "comparator": "=", "value": 1, "pass_if_missing": false, "latest_version_only": false}'),
			   ('{"column": "ver", "comparator": "=", "value": 9, "pass_if_missing": false, "latest_version_only": false}')) AS t(f)
 ORDER BY f COLLATE "C";
-- a write's condition sees every visible version (Tablestore's conditional-update test)
SELECT * FROM ots.update_row('flt', '{"id": 1}', put => '{"t": 1}',
	column_condition => '{"column": "ver", "comparator": "=", "value": 1}');
SELECT consumed FROM ots.update_row('flt', '{"id": 1}', put => '{"t": 1}',
	column_condition => '{"column": "ver", "comparator": "=", "value": 1, "latest_version_only": false}');
SELECT consumed FROM ots.update_row('flt', '{"id": 1}', delete_all => '{t}');
-- the filter sees the versions the read selects: newest of [1000, 1002) is 1
SELECT (ots.get_row('flt', '{"id": 1}', columns_to_get => '{ver}', time_range => '{"start_time": 1000, "end_time": 1002}',
	filter => '{"column": "ver", "comparator": "=", "value": 1}')).attributes;
SELECT (ots.get_row('flt', '{"id": 1}', columns_to_get => '{ver}', time_range => '{"start_time": 1000, "end_time": 1002}',
	filter => '{"column": "ver", "comparator": "=", "value": 0}')).attributes;
SELECT (ots.get_row('flt', '{"id": 1}', columns_to_get => '{ver}', time_range => '{"start_time": 1000, "end_time": 1002}',
	filter => '{"column": "ver", "comparator": "=", "value": 0, "latest_version_only": false}')).attributes;
-- max_versions 3 selects 9, 8, 7
SELECT (ots.get_row('flt', '{"id": 1}', columns_to_get => '{ver}', max_versions => 3,
	filter => '{"column": "ver", "comparator": "=", "value": 7, "latest_version_only": false}')).attributes;
SELECT (ots.get_row('flt', '{"id": 1}', columns_to_get => '{ver}', max_versions => 3,
	filter => '{"column": "ver", "comparator": "=", "value": 6, "latest_version_only": false}')).attributes;
-- a filter decides whether the row is returned; it does not trim columns
SELECT (ots.get_row('flt', '{"id": 2}', filter => '{"column": "s", "comparator": "=", "value": "B"}')).attributes;

--
-- primary-key columns: compared with the row's key, never missing
--
SELECT f, (pg_temp.passes(f::jsonb)).*
  FROM (VALUES ('{"column": "id", "comparator": ">", "value": 1}'),
			   ('{"column": "id", "comparator": "=", "value": 2, "pass_if_missing": false}'),
			   ('{"column": "id", "comparator": "<=", "value": 2}'),
			   ('{"column": "id", "comparator": "=", "value": "2"}'),
			   ('{"column": "id", "comparator": "!=", "value": "2"}')) AS t(f)
 ORDER BY f COLLATE "C";
SELECT (ots.get_row('flt', '{"id": 1}', columns_to_get => '{s}',
	filter => '{"column": "id", "comparator": "=", "value": 1, "pass_if_missing": false}')).attributes;

--
-- AND, OR, NOT
--
SELECT f, (pg_temp.passes(f::jsonb)).*
  FROM (VALUES ('{"and": [{"column": "i", "comparator": ">=", "value": 10}, {"column": "s", "comparator": "=", "value": "B"}]}'),
			   ('{"and": [{"column": "i", "comparator": ">=", "value": 10, "pass_if_missing": false}, {"column": "s", "comparator": "=", "value": "abc"}]}'),
			   ('{"or": [{"column": "i", "comparator": "=", "value": 10}, {"column": "s", "comparator": "=", "value": "B"}]}'),
			   ('{"or": [{"column": "i", "comparator": "=", "value": 10, "pass_if_missing": false}, {"column": "s", "comparator": "=", "value": "B"}]}'),
			   ('{"not": [{"column": "i", "comparator": "=", "value": 10, "pass_if_missing": false}]}'),
			   ('{"not": [{"column": "i", "comparator": "=", "value": 10}]}'),
			   ('{"not": [{"not": [{"column": "i", "comparator": "=", "value": 10}]}]}'),
			   ('{"and": [{"or": [{"column": "id", "comparator": "=", "value": 1}, {"column": "id", "comparator": "=", "value": 3}]},
						  {"not": [{"column": "d", "comparator": "=", "value": 2.5, "pass_if_missing": false}]}]}'),
			   ('{"or": [{"and": [{"column": "ver", "comparator": "=", "value": 3, "latest_version_only": false, "pass_if_missing": false},
								  {"column": "b", "comparator": "=", "value": true}]},
						 {"column": "id", "comparator": "=", "value": 3}]}')) AS t(f)
 ORDER BY f COLLATE "C";
SELECT pg_temp.passes('{"or": [{"and": [{"column": "ver", "comparator": "=", "value": 3, "latest_version_only": false, "pass_if_missing": false},
										{"column": "b", "comparator": "=", "value": true}]},
							   {"column": "id", "comparator": "=", "value": 3}]}', 10);
-- a write's column_condition is the same syntax
SELECT consumed FROM ots.update_row('flt', '{"id": 2}', put => '{"t": 1}',
	column_condition => '{"and": [{"column": "i", "comparator": ">", "value": 15}, {"not": [{"column": "s", "comparator": "=", "value": "abc"}]}]}');
SELECT consumed FROM ots.update_row('flt', '{"id": 2}', put => '{"t": 2}',
	column_condition => '{"or": [{"column": "i", "comparator": "<", "value": 15}, {"column": "zz", "comparator": "=", "value": 1, "pass_if_missing": false}]}');
SELECT (ots.get_row('flt', '{"id": 2}', columns_to_get => '{t}')).attributes;
SELECT consumed FROM ots.update_row('flt', '{"id": 2}', delete_all => '{t}');

--
-- composite limits: at most 32 nodes; NOT takes 1 sub-filter, AND/OR at least 2
--
-- OR of 31 leaves is 32 nodes; of 32 leaves, 33
SELECT pg_temp.passes(jsonb_build_object('or', (SELECT jsonb_agg(jsonb_build_object(
	'column', 'id', 'comparator', '=', 'value', k)) FROM generate_series(1, 31) k)));
SELECT pg_temp.passes(jsonb_build_object('or', (SELECT jsonb_agg(jsonb_build_object(
	'column', 'id', 'comparator', '=', 'value', k)) FROM generate_series(1, 32) k)));
-- NOT(AND(30 leaves)) is 32 nodes; NOT(AND(31 leaves)), 33
SELECT pg_temp.passes(jsonb_build_object('not', jsonb_build_array(jsonb_build_object('and',
	(SELECT jsonb_agg(jsonb_build_object('column', 'id', 'comparator', '!=', 'value', k + 1))
	   FROM generate_series(1, 30) k)))));
SELECT pg_temp.passes(jsonb_build_object('not', jsonb_build_array(jsonb_build_object('and',
	(SELECT jsonb_agg(jsonb_build_object('column', 'id', 'comparator', '!=', 'value', k + 1))
	   FROM generate_series(1, 31) k)))));
-- 33 nodes in a write's column_condition
SELECT * FROM ots.update_row('flt', '{"id": 2}', put => '{"t": 1}',
	column_condition => jsonb_build_object('or', (SELECT jsonb_agg(jsonb_build_object(
		'column', 'id', 'comparator', '=', 'value', k)) FROM generate_series(1, 32) k)));
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"not": [{"column": "i", "comparator": "=", "value": 1},
																 {"column": "i", "comparator": "=", "value": 2}]}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"not": []}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"and": [{"column": "i", "comparator": "=", "value": 1}]}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"or": [{"column": "i", "comparator": "=", "value": 1}]}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"and": []}');
SELECT * FROM ots.get_range('flt', '{"id": 1}', '{"id": 3}', filter => '{"or": [{"not": [{"column": "i", "comparator": "=", "value": 1}]}]}');
SELECT * FROM ots.get_range('flt', '{"id": 1}', '{"id": 3}',
	filter => '{"and": [{"column": "i", "comparator": "=", "value": 1}, {"not": []}]}');

--
-- filter syntax errors
--
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"column": "i", "comparator": "LIKE", "value": 1}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"column": "i", "comparator": 1, "value": 1}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"column": "i", "value": 1}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"column": "i", "comparator": "="}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"column": "i", "comparator": "=", "value": null}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"comparator": "=", "value": 1}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"column": "1i", "comparator": "=", "value": 1}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"column": "i", "comparator": "=", "value": 1, "pass_if_missing": "yes"}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"column": "i", "comparator": "=", "value": 1, "latest_version_only": 1}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"column": "i", "comparator": "=", "value": 1, "extra": 1}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"column": "i", "comparator": "=", "value": {"$double": "NaN"}}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '[]');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '"i = 1"');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"and": {"column": "i"}}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"and": [{"column": "i", "comparator": "=", "value": 1}, 5]}');
SELECT * FROM ots.get_row('flt', '{"id": 1}', filter => '{"not": [{"column": "i", "comparator": "=", "value": 1}], "column": "i"}');
-- a constant longer than 2 MB
SELECT * FROM ots.get_row('flt', '{"id": 1}',
	filter => jsonb_build_object('column', 's', 'comparator', '=', 'value', repeat('x', 2097153)));
SELECT (ots.get_row('flt', '{"id": 1}',
	filter => jsonb_build_object('column', 's', 'comparator', '<', 'value', repeat('x', 2097152)))).attributes ->> 's';
-- JSON null is no filter
SELECT (ots.get_row('flt', '{"id": 3}', filter => 'null')).primary_key;

--
-- column pagination: offset/limit over a row's columns in name order
--
SELECT ots.create_table('fwide', 'id integer', max_versions => 3,
						max_version_offset => 9223372036854, partitions => 1);
-- 8 columns col1..col8 (Tablestore's Go test)
SELECT consumed FROM ots.put_row('fwide', '{"id": 1}',
	(SELECT jsonb_object_agg('col' || k, k) FROM generate_series(1, 8) k));
SELECT (ots.get_row('fwide', '{"id": 1}', filter => '{"column_pagination": {"offset": 1, "limit": 3}}')).attributes;
SELECT (ots.get_row('fwide', '{"id": 1}', filter => '{"column_pagination": {"offset": 0, "limit": 3}}')).attributes;
SELECT (ots.get_row('fwide', '{"id": 1}', filter => '{"column_pagination": {"limit": 2}}')).attributes;
-- with start_column: counted from there
SELECT (ots.get_row('fwide', '{"id": 1}', start_column => 'col3',
	filter => '{"column_pagination": {"offset": 1, "limit": 3}}')).attributes;
-- with end_column and columns_to_get: counted among them
SELECT (ots.get_row('fwide', '{"id": 1}', end_column => 'col5',
	filter => '{"column_pagination": {"offset": 2, "limit": 5}}')).attributes;
SELECT (ots.get_row('fwide', '{"id": 1}', columns_to_get => '{col2,col4,col6,col8}',
	filter => '{"column_pagination": {"offset": 1, "limit": 2}}')).attributes;
-- past the last column: the row with no columns
SELECT ots.get_row('fwide', '{"id": 1}', filter => '{"column_pagination": {"offset": 8, "limit": 1}}');
SELECT (ots.get_row('fwide', '{"id": 1}', filter => '{"column_pagination": {"offset": 6, "limit": 10}}')).attributes;
-- pagination counts columns, not versions
SELECT consumed FROM ots.put_row('fwide', '{"id": 2}',
	'{"a": [{"value": 1, "ts": 1000}, {"value": 2, "ts": 2000}],
	  "b": [{"value": 3, "ts": 1000}, {"value": 4, "ts": 2000}],
	  "c": [{"value": 5, "ts": 1000}, {"value": 6, "ts": 2000}]}');
SELECT (ots.get_row('fwide', '{"id": 2}', max_versions => 2,
	filter => '{"column_pagination": {"offset": 1, "limit": 1}}')).attributes;
-- ... and only columns with a selected cell
SELECT consumed FROM ots.put_row('fwide', '{"id": 3}',
	'{"a": {"value": 1, "ts": 1000}, "b": {"value": 2, "ts": 2000}, "c": {"value": 3, "ts": 1000},
	  "d": {"value": 4, "ts": 2000}}');
SELECT (ots.get_row('fwide', '{"id": 3}', time_range => '{"specific_time": 2000}',
	filter => '{"column_pagination": {"offset": 1, "limit": 1}}')).attributes;
-- every row of a range is paginated
SELECT jsonb_path_query_array(rows, '$[*].attributes')
  FROM ots.get_range('fwide', '{"id": {"$inf": "min"}}', '{"id": {"$inf": "max"}}',
					 filter => '{"column_pagination": {"offset": 1, "limit": 2}}');
SELECT count(*), jsonb_agg(attributes ORDER BY primary_key) AS attributes
  FROM ots.get_range_rows('fwide', '{"id": {"$inf": "min"}}', '{"id": {"$inf": "max"}}',
						  filter => '{"column_pagination": {"offset": 2, "limit": 1}}');
-- offset >= 0, limit > 0, top level only, reads only
SELECT * FROM ots.get_row('fwide', '{"id": 1}', filter => '{"column_pagination": {"offset": -1, "limit": 3}}');
SELECT * FROM ots.get_row('fwide', '{"id": 1}', filter => '{"column_pagination": {"offset": 0, "limit": 0}}');
SELECT * FROM ots.get_row('fwide', '{"id": 1}', filter => '{"column_pagination": {"offset": 0, "limit": -1}}');
SELECT * FROM ots.get_row('fwide', '{"id": 1}', filter => '{"column_pagination": {"offset": 0}}');
SELECT * FROM ots.get_row('fwide', '{"id": 1}', filter => '{"column_pagination": {"offset": 1.5, "limit": 1}}');
SELECT * FROM ots.get_row('fwide', '{"id": 1}', filter => '{"column_pagination": {"offset": 0, "limit": 1, "page": 2}}');
SELECT * FROM ots.get_row('fwide', '{"id": 1}',
	filter => '{"and": [{"column_pagination": {"offset": 0, "limit": 1}}, {"column": "col1", "comparator": "=", "value": 1}]}');
SELECT * FROM ots.get_range('fwide', '{"id": 1}', '{"id": 2}',
	filter => '{"not": [{"column_pagination": {"offset": 0, "limit": 1}}]}');
SELECT * FROM ots.update_row('fwide', '{"id": 1}', put => '{"x": 1}',
	column_condition => '{"column_pagination": {"offset": 0, "limit": 1}}');

--
-- start_column (inclusive) / end_column (exclusive), Tablestore's WideRow test
--
SELECT consumed FROM ots.put_row('fwide', '{"id": 4}',
	(SELECT jsonb_object_agg('col' || k, k) FROM generate_series(1000, 1009) k));
SELECT (ots.get_row('fwide', '{"id": 4}', start_column => 'col1002', end_column => 'col1007')).attributes;
SELECT (ots.get_row('fwide', '{"id": 4}', start_column => 'col1008')).attributes;
SELECT (ots.get_row('fwide', '{"id": 4}', end_column => 'col1002')).attributes;
-- bounds need not be column names of the row
SELECT (ots.get_row('fwide', '{"id": 4}', start_column => 'col1004x', end_column => 'col1006x')).attributes;
-- with column pagination (start col1003, offset 2, limit 5 -> col1005..col1009)
SELECT (ots.get_row('fwide', '{"id": 4}', start_column => 'col1003',
	filter => '{"column_pagination": {"offset": 2, "limit": 5}}')).attributes;
-- with columns_to_get and versions
SELECT (ots.get_row('fwide', '{"id": 4}', columns_to_get => '{col1001,col1003,col1005}',
	start_column => 'col1002', end_column => 'col1005')).attributes;
SELECT (ots.get_row('fwide', '{"id": 2}', start_column => 'b', max_versions => 2)).attributes;
-- a filter still sees the columns outside the column range
SELECT (ots.get_row('fwide', '{"id": 4}', start_column => 'col1008',
	filter => '{"column": "col1000", "comparator": "=", "value": 1000, "pass_if_missing": false}')).attributes;
-- nothing in the range: the row with no columns (or no row with columns_to_get)
SELECT ots.get_row('fwide', '{"id": 4}', start_column => 'x');
SELECT ots.get_row('fwide', '{"id": 4}', columns_to_get => '{col1001}', start_column => 'col1005');
-- names are checked
SELECT * FROM ots.get_row('fwide', '{"id": 4}', start_column => 'bad name');
SELECT * FROM ots.get_range('fwide', '{"id": 1}', '{"id": 5}', end_column => '');
-- on get_range, every row
SELECT jsonb_path_query_array(rows, '$[*].attributes')
  FROM ots.get_range('fwide', '{"id": 1}', '{"id": 5}', start_column => 'b', end_column => 'col3');

--
-- regex filters (Tablestore's SingleColumnValueRegexFilter: a ValueTransferRule
-- on a single-column filter) and EXIST / NOT_EXIST: the first match of the
-- regex in a String cell (its first group's, if it has groups), cast to
-- cast_type, is what the filter compares; a cell it finds nothing in, or
-- whose match does not cast, counts as no cell
--
SELECT ots.create_table('frx', 'id integer', max_versions => 5, max_version_offset => 9223372036854,
						partitions => 1);
SELECT count(ots.put_row('frx', jsonb_build_object('id', i), a)) AS rows
  FROM (VALUES (1, '{"j": "{cluster:a,lastupdatetime:12345}", "k": 5}'::jsonb),
			   (2, '{"j": "{cluster:b,lastupdatetime:99}"}'),
			   (3, '{"j": "no time here"}'),
			   (4, '{"j": 7}'),
			   (5, '{}'),
			   (6, '{"j": [{"value": "t:500", "ts": 1000}, {"value": "t:1", "ts": 2000}]}'),
			   (7, '{"j": "温度:25;x", "h": "n=0x1p3"}'),
			   (8, '{"h": "n=+8"}'),
			   (9, '{"h": "n=8"}')) AS r(i, a);
CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;
CREATE FUNCTION pg_temp.rx(f jsonb, mv integer DEFAULT NULL, OUT by_range text, OUT by_row text)
LANGUAGE sql AS $$
	SELECT (SELECT coalesce(string_agg(e #>> '{primary_key,id}', ',' ORDER BY n), '-')
			  FROM ots.get_range('frx', '{"id": {"$inf": "min"}}', '{"id": {"$inf": "max"}}',
								 filter => f, max_versions => mv) g,
				   jsonb_array_elements(g.rows) WITH ORDINALITY AS a(e, n)),
		   (SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '-')
			  FROM generate_series(1, 9) id
			 WHERE (ots.get_row('frx', jsonb_build_object('id', id), filter => f,
								max_versions => mv)).primary_key IS NOT NULL)
$$;
SELECT f, (pg_temp.rx(f::jsonb)).*
  FROM (VALUES
	-- a group, cast to INTEGER, compared; the rows without such a value are missing
	('{"column": "j", "regex": "lastupdatetime:([0-9]+)", "cast_type": "INTEGER", "comparator": ">", "value": 100, "pass_if_missing": false}'),
	('{"column": "j", "regex": "lastupdatetime:([0-9]+)", "cast_type": "integer", "comparator": ">", "value": 100}'),
	('{"column": "j", "regex": "lastupdatetime:([0-9]+)", "cast_type": "DOUBLE", "comparator": ">=", "value": 99.0, "pass_if_missing": false}'),
	-- STRING (the default) compares bytewise: "99" > "5", "12345" < "5"
	('{"column": "j", "regex": "lastupdatetime:([0-9]+)", "comparator": ">", "value": "5", "pass_if_missing": false}'),
	-- no group: the whole match
	('{"column": "j", "regex": "cluster:[a-z]", "comparator": "=", "value": "cluster:a", "pass_if_missing": false}'),
	-- the cast type must be the value's type (another type never matches)
	('{"column": "j", "regex": "lastupdatetime:([0-9]+)", "cast_type": "INTEGER", "comparator": "=", "value": "12345", "pass_if_missing": false}'),
	-- a match that does not cast is no value: "cluster" is no Integer
	('{"column": "j", "regex": "([a-z]+):", "cast_type": "INTEGER", "comparator": "!=", "value": 0, "pass_if_missing": false}'),
	-- an optional group that took no part is no value
	('{"column": "j", "regex": "cluster(:z)?", "comparator": "=", "value": ":z", "pass_if_missing": false}'),
	-- characters, not bytes
	('{"column": "j", "regex": "(.):", "comparator": "=", "value": "度", "pass_if_missing": false}'),
	('{"column": "j", "regex": "温度:([0-9]+)", "cast_type": "INTEGER", "comparator": "=", "value": 25, "pass_if_missing": false}'),
	-- EXIST / NOT_EXIST: with a regex, whether it finds a value; without, whether the column is there
	('{"column": "j", "regex": "lastupdatetime:([0-9]+)", "cast_type": "INTEGER", "comparator": "EXIST"}'),
	('{"column": "j", "regex": "lastupdatetime:([0-9]+)", "cast_type": "INTEGER", "comparator": "NOT_EXIST", "pass_if_missing": false}'),
	('{"column": "k", "comparator": "exist", "value": 0}'),
	('{"column": "k", "comparator": "not_exist", "pass_if_missing": false}'),
	-- in a composite
	('{"and": [{"column": "j", "comparator": "EXIST"}, {"column": "j", "regex": "t:([0-9]+)", "cast_type": "INTEGER", "comparator": "NOT_EXIST"}]}'),
	-- a primary-key column is never missing, but its regex may find nothing (an Integer key
	-- is no String)
	('{"column": "id", "regex": "x", "comparator": "EXIST"}')) AS t(f);
-- a String primary-key column, by regex
SELECT ots.create_table('frx_k', 'k string', partitions => 1);
SELECT count(ots.put_row('frx_k', jsonb_build_object('k', k))) FROM unnest(ARRAY['item-7', 'item-12', 'other']) k;
SELECT string_agg(e #>> '{primary_key,k}', ',' ORDER BY e #>> '{primary_key,k}') AS keys
  FROM ots.get_range('frx_k', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}',
	   filter => '{"column": "k", "regex": "item-([0-9]+)", "cast_type": "INTEGER", "comparator": ">", "value": 9, "pass_if_missing": false}') g,
	   jsonb_array_elements(g.rows) e;
SELECT ots.delete_table('frx_k');
-- a number is the whole match, digits with an optional sign: no hexadecimal
SELECT f, (pg_temp.rx(f::jsonb)).*
  FROM (VALUES
	('{"column": "h", "regex": "n=(.*)", "cast_type": "DOUBLE", "comparator": "=", "value": 8.0, "pass_if_missing": false}'),
	('{"column": "h", "regex": "n=(.*)", "cast_type": "INTEGER", "comparator": "=", "value": 8, "pass_if_missing": false}')) AS t(f);
-- latest_version_only: row 6's newest cell is "t:1", an older one "t:500"
SELECT f, (pg_temp.rx(f::jsonb, 5)).*
  FROM (VALUES
	('{"column": "j", "regex": "^t:([0-9]+)", "cast_type": "INTEGER", "comparator": ">", "value": 100, "pass_if_missing": false}'),
	('{"column": "j", "regex": "^t:([0-9]+)", "cast_type": "INTEGER", "comparator": ">", "value": 100, "pass_if_missing": false, "latest_version_only": false}'),
	('{"column": "j", "regex": "^t:5", "comparator": "EXIST"}'),
	('{"column": "j", "regex": "^t:5", "comparator": "EXIST", "latest_version_only": false}')) AS t(f);
-- a write's column_condition takes regexes too
SELECT consumed FROM ots.update_row('frx', '{"id": 1}', put => '{"m": 1}',
	column_condition => '{"column": "j", "regex": "lastupdatetime:([0-9]+)", "cast_type": "INTEGER", "comparator": ">", "value": 100}');
SELECT pg_temp.try($$SELECT ots.update_row('frx', '{"id": 2}', put => '{"m": 1}',
	column_condition => '{"column": "j", "regex": "lastupdatetime:([0-9]+)", "cast_type": "INTEGER", "comparator": ">", "value": 100}')$$);
-- refused: a regex longer than 256 bytes, one that does not compile, a cast
-- type without a regex or unknown, a comparison without a value
SELECT pg_temp.try(format($$SELECT ots.get_row('frx', '{"id": 1}', filter => %L)$$, f))
  FROM (VALUES
	(jsonb_build_object('column', 'j', 'regex', repeat('a', 257), 'comparator', 'EXIST')),
	('{"column": "j", "regex": "(", "comparator": "EXIST"}'),
	('{"column": "j", "regex": "", "comparator": "EXIST"}'),
	('{"column": "j", "regex": 5, "comparator": "EXIST"}'),
	('{"column": "j", "cast_type": "INTEGER", "comparator": "EXIST"}'),
	('{"column": "j", "regex": "a", "cast_type": "BOOLEAN", "comparator": "EXIST"}'),
	('{"column": "j", "regex": "a", "comparator": "="}')) AS t(f);
SELECT pg_temp.try(format($$SELECT ots.get_row('frx', '{"id": 1}', filter => %L)$$,
						  jsonb_build_object('column', 'j', 'regex', repeat('a', 256), 'comparator', 'EXIST')));
DROP FUNCTION pg_temp.rx(jsonb, integer);

SELECT ots.delete_table(t) FROM unnest(ARRAY['flt', 'fwide', 'frx']) t ORDER BY t;
DROP FUNCTION pg_temp.passes(jsonb, integer);
DROP FUNCTION pg_temp.by_range(jsonb, integer);
DROP FUNCTION pg_temp.by_row(jsonb, integer);
