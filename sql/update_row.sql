-- update_row: put / delete one version / delete all versions / increment,
-- row creation rules, allow_update, return types and capacity units.
-- Quiet: the extension may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

SELECT ots.create_table('upd', 'pk string', max_versions => 3,
                        max_version_offset => 9223372036854);

-- put, delete one version, delete all versions and increment in one call
SELECT consumed FROM ots.put_row('upd', '{"pk": "all"}',
  '{"a": [{"value": 1, "ts": 1466762754000}, {"value": 2, "ts": 1466762754001}],
    "b": {"value": "x", "ts": 1466762754000}, "c": {"value": 5, "ts": 1466762754000},
    "e": {"value": "keep", "ts": 1466762754000}}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "all"}',
  put => '{"d": {"value": "new", "ts": 1466762754005}}',
  "delete" => '{"a": 1466762754001}', delete_all => ARRAY['b'], increment => '{"c": 10}');
SELECT primary_key, attributes FROM ots.get_row('upd', '{"pk": "all"}');
SELECT jsonb_path_query_array(attributes, '$.a[*].ts') AS a_versions,
       jsonb_path_query_array(attributes, '$.c[*].value') AS c_values
  FROM ots.get_row('upd', '{"pk": "all"}', max_versions => 3);
-- delete accepts a list of versions
SELECT consumed FROM ots.update_row('upd', '{"pk": "all"}',
  put => '{"a": [{"value": 7, "ts": 1466762754007}, {"value": 8, "ts": 1466762754008}]}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "all"}',
  "delete" => '{"a": [1466762754000, 1466762754008]}');
SELECT attributes->'a' AS a FROM ots.get_row('upd', '{"pk": "all"}', max_versions => 3);
-- deleting a version that does not exist changes nothing
SELECT consumed FROM ots.update_row('upd', '{"pk": "all"}', "delete" => '{"a": 1, "zz": 2}');
SELECT attributes->'a' AS a FROM ots.get_row('upd', '{"pk": "all"}', max_versions => 3);

-- increments +10, +10, -30 give 10, 20, -10 (RT_AFTER_MODIFY returns the new value)
SELECT attributes FROM ots.update_row('upd', '{"pk": "inc"}', increment => '{"n": 10}', return_type => 'RT_AFTER_MODIFY');
SELECT attributes FROM ots.update_row('upd', '{"pk": "inc"}', increment => '{"n": 10}', return_type => 'RT_AFTER_MODIFY');
SELECT attributes FROM ots.update_row('upd', '{"pk": "inc"}', increment => '{"n": -30}', return_type => 'RT_AFTER_MODIFY');
SELECT jsonb_path_query_array(attributes, '$.n[*].value') AS n_versions
  FROM ots.get_row('upd', '{"pk": "inc"}', max_versions => 3);

-- increment on a missing row creates it, starting from 0
SELECT primary_key IS NULL AS missing FROM ots.get_row('upd', '{"pk": "inc2"}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "inc2"}', increment => '{"n": 5}');
SELECT primary_key, attributes FROM ots.get_row('upd', '{"pk": "inc2"}');
-- increment on a missing column of an existing row starts from 0
SELECT attributes FROM ots.update_row('upd', '{"pk": "inc2"}', increment => '{"m": -3}',
  return_type => 'RT_AFTER_MODIFY');
SELECT attributes FROM ots.get_row('upd', '{"pk": "inc2"}');
-- increment after delete_all of the column in the same call starts from 0
SELECT attributes FROM ots.update_row('upd', '{"pk": "inc2"}', delete_all => ARRAY['n'],
  increment => '{"n": 1}', return_type => 'RT_AFTER_MODIFY');
-- increment builds on the latest version even when it has an older explicit timestamp
SELECT consumed FROM ots.update_row('upd', '{"pk": "inc2"}',
  put => '{"old": {"value": 100, "ts": 1466762754000}}');
SELECT attributes FROM ots.update_row('upd', '{"pk": "inc2"}', increment => '{"old": 1}',
  return_type => 'RT_AFTER_MODIFY');
SELECT attributes->'old' AS old FROM ots.get_row('upd', '{"pk": "inc2"}');
-- increment on a String cell is an error
SELECT consumed FROM ots.update_row('upd', '{"pk": "all"}', increment => '{"d": 1}');
-- increment on a Double cell is an error
SELECT consumed FROM ots.put_row('upd', '{"pk": "dbl"}', '{"x": 1.5}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "dbl"}', increment => '{"x": 1}');
-- the delta must be an Integer
SELECT consumed FROM ots.update_row('upd', '{"pk": "inc2"}', increment => '{"m": 1.5}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "inc2"}', increment => '{"m": "1"}');
-- increment overflow is an error and writes nothing
SELECT consumed FROM ots.put_row('upd', '{"pk": "big"}', '{"n": 9223372036854775807, "s": 1}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "big"}', put => '{"s": 2}', increment => '{"n": 1}');
SELECT attributes FROM ots.get_row('upd', '{"pk": "big"}');
SELECT consumed FROM ots.put_row('upd', '{"pk": "big"}', '{"n": -9223372036854775808}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "big"}', increment => '{"n": -1}');
SELECT attributes FROM ots.update_row('upd', '{"pk": "big"}', increment => '{"n": 9223372036854775807}',
  return_type => 'RT_AFTER_MODIFY');

-- a delete-only update of a missing row does not create it
SELECT consumed FROM ots.update_row('upd', '{"pk": "ghost"}', "delete" => '{"a": 1466762754000}',
  delete_all => ARRAY['b']);
SELECT primary_key IS NULL AS no_row FROM ots.get_row('upd', '{"pk": "ghost"}');
SELECT count(*) AS view_rows FROM upd WHERE pk = 'ghost';

-- deleting every column leaves a PK-only row that still exists
SELECT consumed FROM ots.put_row('upd', '{"pk": "shell"}', '{"a": 1, "b": 2}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "shell"}', delete_all => ARRAY['a', 'b']);
SELECT primary_key, attributes FROM ots.get_row('upd', '{"pk": "shell"}');
SELECT pk, attributes FROM upd WHERE pk = 'shell' ORDER BY pk;
-- ... and EXPECT_EXIST still sees it
SELECT consumed FROM ots.update_row('upd', '{"pk": "shell"}', put => '{"c": 3}', condition => 'EXPECT_EXIST');
SELECT attributes FROM ots.get_row('upd', '{"pk": "shell"}');

-- an update with no operation
SELECT consumed FROM ots.update_row('upd', '{"pk": "all"}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "all"}', put => '{}', delete_all => ARRAY[]::text[]);
-- DELETE_ONE_VERSION needs a timestamp
SELECT consumed FROM ots.update_row('upd', '{"pk": "all"}', "delete" => '{"a": null}');

-- an explicit timestamp equal to an existing version overwrites that version
SELECT consumed FROM ots.put_row('upd', '{"pk": "ow"}',
  '{"a": [{"value": "v1", "ts": 1466762754001}, {"value": "v2", "ts": 1466762754002}]}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "ow"}', put => '{"a": {"value": "v1b", "ts": 1466762754001}}');
SELECT attributes FROM ots.get_row('upd', '{"pk": "ow"}', max_versions => 3);
-- other columns are untouched by an update
SELECT consumed FROM ots.update_row('upd', '{"pk": "ow"}', put => '{"b": {"value": 0, "ts": 1466762754000}}');
SELECT attributes FROM ots.get_row('upd', '{"pk": "ow"}', max_versions => 3);

-- three updates of one column without timestamps leave three versions
SELECT consumed FROM ots.update_row('upd', '{"pk": "three"}', put => '{"a": 1}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "three"}', put => '{"a": 2}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "three"}', put => '{"a": 3}');
SELECT jsonb_path_query_array(attributes, '$.a[*].value') AS newest_first,
       (attributes->'a'->0->>'ts')::bigint > (attributes->'a'->1->>'ts')::bigint
       AND (attributes->'a'->1->>'ts')::bigint > (attributes->'a'->2->>'ts')::bigint AS ts_decreasing
  FROM ots.get_row('upd', '{"pk": "three"}', max_versions => 3);
-- a fourth drops the oldest (max_versions 3)
SELECT consumed FROM ots.update_row('upd', '{"pk": "three"}', put => '{"a": 4}');
SELECT jsonb_path_query_array(attributes, '$.a[*].value') AS newest_first
  FROM ots.get_row('upd', '{"pk": "three"}', max_versions => 10);

-- RT_AFTER_MODIFY without return_columns returns every incremented column
SELECT primary_key, attributes FROM ots.update_row('upd', '{"pk": "rt"}',
  put => '{"p": 1}', increment => '{"x": 1, "y": 2}', return_type => 'RT_AFTER_MODIFY');
-- with return_columns only those
SELECT primary_key, attributes FROM ots.update_row('upd', '{"pk": "rt"}',
  increment => '{"x": 1, "y": 2}', return_type => 'RT_AFTER_MODIFY', return_columns => ARRAY['y']);
-- RT_AFTER_MODIFY without increments returns an empty map
SELECT primary_key, attributes FROM ots.update_row('upd', '{"pk": "rt"}',
  put => '{"p": 2}', return_type => 'RT_AFTER_MODIFY');
-- return_columns naming a column that is not incremented fails the whole request
SELECT consumed FROM ots.update_row('upd', '{"pk": "rt"}',
  put => '{"p": 3}', increment => '{"x": 1}', return_type => 'RT_AFTER_MODIFY',
  return_columns => ARRAY['x', 'p']);
SELECT attributes FROM ots.get_row('upd', '{"pk": "rt"}');
-- return_columns with RT_PK or RT_NONE is an error
SELECT consumed FROM ots.update_row('upd', '{"pk": "rt"}', increment => '{"x": 1}',
  return_type => 'RT_PK', return_columns => ARRAY['x']);
SELECT consumed FROM ots.update_row('upd', '{"pk": "rt"}', increment => '{"x": 1}',
  return_columns => ARRAY['x']);
SELECT attributes FROM ots.get_row('upd', '{"pk": "rt"}');
-- RT_PK returns the primary key only
SELECT primary_key, attributes FROM ots.update_row('upd', '{"pk": "rt"}', increment => '{"x": 1}',
  return_type => 'RT_PK');
-- RT_NONE returns nothing
SELECT primary_key, attributes FROM ots.update_row('upd', '{"pk": "rt"}', increment => '{"x": 1}');
-- an unknown return type
SELECT consumed FROM ots.update_row('upd', '{"pk": "rt"}', increment => '{"x": 1}',
  return_type => 'RT_ALL');

-- capacity units: pk "pk"+"cu" = 4 bytes
-- put: 4 + "a"+1000 -> 1 write, no read
SELECT consumed FROM ots.update_row('upd', '{"pk": "cu"}', put => jsonb_build_object('a', repeat('x', 1000)));
-- put of 4092 bytes of name+value: exactly 4096 -> 1 write; one more byte -> 2
SELECT consumed FROM ots.update_row('upd', '{"pk": "cu"}', put => jsonb_build_object('a', repeat('x', 4091)));
SELECT consumed FROM ots.update_row('upd', '{"pk": "cu"}', put => jsonb_build_object('a', repeat('x', 4092)));
-- deletes count only column names: 4 + 1 + 1 -> 1 write
SELECT consumed FROM ots.update_row('upd', '{"pk": "cu"}', "delete" => '{"a": 1466762754000}', delete_all => ARRAY['b']);
-- increment counts name + 8 and reads the row: 4 + 1 + 8 -> 1 write, 1 read
SELECT consumed FROM ots.update_row('upd', '{"pk": "cu"}', increment => '{"n": 1}');
-- a condition reads ceil(pk/4096)
SELECT consumed FROM ots.update_row('upd', '{"pk": "cu"}', put => '{"a": 1}', condition => 'EXPECT_EXIST');
SELECT consumed FROM ots.update_row('upd', '{"pk": "cu"}', put => '{"a": 1}',
  column_condition => '{"column": "a", "comparator": "=", "value": 1}');
-- sizes add over every operation: pk 4 + 800 names of 5 bytes + "a" + value
SELECT consumed FROM ots.update_row('upd', '{"pk": "cu"}',
  delete_all => (SELECT array_agg('d' || lpad(g::text, 4, '0')) FROM generate_series(1, 800) g),
  put => jsonb_build_object('a', repeat('x', 91)));
SELECT consumed FROM ots.update_row('upd', '{"pk": "cu"}',
  delete_all => (SELECT array_agg('d' || lpad(g::text, 4, '0')) FROM generate_series(1, 800) g),
  put => jsonb_build_object('a', repeat('x', 92)));

-- 1024 operations are accepted, 1025 are not (all kinds count)
SELECT consumed FROM ots.update_row('upd', '{"pk": "ops"}',
  put => (SELECT jsonb_object_agg('p' || g, g) FROM generate_series(1, 1000) g),
  delete_all => (SELECT array_agg('d' || g) FROM generate_series(1, 20) g),
  "delete" => '{"x": [1466762754000, 1466762754001]}', increment => '{"i": 1, "j": 1}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "ops"}',
  put => (SELECT jsonb_object_agg('p' || g, g) FROM generate_series(1, 1000) g),
  delete_all => (SELECT array_agg('d' || g) FROM generate_series(1, 21) g),
  "delete" => '{"x": [1466762754000, 1466762754001]}', increment => '{"i": 1, "j": 1}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "ops2"}',
  delete_all => (SELECT array_agg('d' || g) FROM generate_series(1, 1025) g));

-- a timestamp outside [0, INT64_MAX/1000) rejects the whole update
SELECT consumed FROM ots.update_row('upd', '{"pk": "all"}',
  put => '{"z": {"value": 1, "ts": 9223372036854775}}');
SELECT consumed FROM ots.update_row('upd', '{"pk": "all"}',
  put => '{"z": {"value": 1, "ts": -1}}');
SELECT attributes ? 'z' AS has_z FROM ots.get_row('upd', '{"pk": "all"}');

-- allow_update = false: update_row is refused, put_row still works
SELECT ots.create_table('upd_ro', 'pk integer', allow_update => false);
SELECT consumed FROM ots.put_row('upd_ro', '{"pk": 1}', '{"a": 1}');
SELECT consumed FROM ots.update_row('upd_ro', '{"pk": 1}', put => '{"a": 2}');
SELECT consumed FROM ots.update_row('upd_ro', '{"pk": 1}', increment => '{"a": 1}');
SELECT consumed FROM ots.put_row('upd_ro', '{"pk": 1}', '{"a": 3}');
SELECT attributes FROM ots.get_row('upd_ro', '{"pk": 1}');
-- ... and allowed again after update_table
SELECT ots.update_table('upd_ro', allow_update => true);
SELECT consumed FROM ots.update_row('upd_ro', '{"pk": 1}', increment => '{"a": 1}');
SELECT attributes FROM ots.get_row('upd_ro', '{"pk": 1}');
-- a timestamp outside max_version_offset (default 1 day) rejects the whole update
SELECT consumed FROM ots.update_row('upd_ro', '{"pk": 1}',
  put => '{"b": 1, "z": {"value": 1, "ts": 1466762754000}}');
SELECT attributes FROM ots.get_row('upd_ro', '{"pk": 1}');

-- the view agrees with get_row
SELECT pk, attributes FROM upd WHERE pk NOT IN ('ops', 'cu') ORDER BY pk;
SELECT pk, (SELECT count(*) FROM jsonb_object_keys(attributes)) AS columns
  FROM upd WHERE pk IN ('ops', 'cu') ORDER BY pk;

SELECT ots.delete_table('upd');
SELECT ots.delete_table('upd_ro');
