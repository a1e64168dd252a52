-- put_row and get_row: whole-row replacement, versions, read selectors,
-- capacity units, limits and primary-key validation.
-- Quiet: the extension may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

SELECT ots.create_table('pgr', 'pk1 string, pk2 integer', max_versions => 3,
                        max_version_offset => 9223372036854);

-- put replaces the whole row: the columns and versions of the previous put are gone
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "r1", "pk2": 1}',
  '{"a": [{"value": 1, "ts": 1466762754000}, {"value": 2, "ts": 1466762754001}], "b": {"value": "x", "ts": 1466762754000}}');
SELECT primary_key, attributes FROM ots.get_row('pgr', '{"pk1": "r1", "pk2": 1}', max_versions => 3);
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "r1", "pk2": 1}',
  '{"c": {"value": true, "ts": 1466762754005}}');
SELECT primary_key, attributes FROM ots.get_row('pgr', '{"pk1": "r1", "pk2": 1}', max_versions => 3);

-- primary-key columns may be given in any jsonb key order
SELECT primary_key, attributes FROM ots.get_row('pgr', '{"pk2": 1, "pk1": "r1"}');

-- a row with zero attribute columns exists: get_row returns its key and {}
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "empty", "pk2": 0}');
SELECT primary_key, attributes, consumed FROM ots.get_row('pgr', '{"pk1": "empty", "pk2": 0}');
SELECT pk1, pk2, attributes FROM pgr WHERE pk1 = 'empty' ORDER BY pk1, pk2;

-- several versions of one column in one put, returned newest first
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "v", "pk2": 1}',
  '{"a": [{"value": "old", "ts": 1466762754000}, {"value": "new", "ts": 1466762754002}, {"value": "mid", "ts": 1466762754001}]}');
SELECT attributes FROM ots.get_row('pgr', '{"pk1": "v", "pk2": 1}', max_versions => 3);
-- without a version selector the latest version, as a flat map
SELECT attributes FROM ots.get_row('pgr', '{"pk1": "v", "pk2": 1}');
-- max_versions 1 is the latest version, as a flat map
SELECT attributes FROM ots.get_row('pgr', '{"pk1": "v", "pk2": 1}', max_versions => 1);
-- max_versions 2 is the newest two, with timestamps
SELECT attributes FROM ots.get_row('pgr', '{"pk1": "v", "pk2": 1}', max_versions => 2);
-- with_timestamps alone: the latest version with its timestamp
SELECT attributes FROM ots.get_row('pgr', '{"pk1": "v", "pk2": 1}', with_timestamps => true);
-- max_versions 0 is an error
SELECT attributes FROM ots.get_row('pgr', '{"pk1": "v", "pk2": 1}', max_versions => 0);

-- server-stamped writes: the cell timestamp is the time of the write
CREATE TEMP TABLE pgr_clock AS
  SELECT floor(extract(epoch from clock_timestamp()) * 1000)::bigint AS before_ms;
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "srv", "pk2": 1}', '{"a": 1, "b": 2}');
SELECT (g.attributes->'a'->0->>'ts')::bigint BETWEEN c.before_ms
         AND floor(extract(epoch from clock_timestamp()) * 1000)::bigint AS a_stamped_now,
       g.attributes->'a'->0->'ts' = g.attributes->'b'->0->'ts' AS one_stamp_per_write
  FROM ots.get_row('pgr', '{"pk1": "srv", "pk2": 1}', with_timestamps => true) g, pgr_clock c;
-- a later server-stamped put of the row gets a later timestamp
CREATE TEMP TABLE pgr_first AS
  SELECT (attributes->'a'->0->>'ts')::bigint AS ts
    FROM ots.get_row('pgr', '{"pk1": "srv", "pk2": 1}', with_timestamps => true);
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "srv", "pk2": 1}', '{"a": 2}');
SELECT jsonb_array_length(attributes->'a') AS versions,
       (attributes->'a'->0->>'ts')::bigint > (SELECT ts FROM pgr_first) AS later
  FROM ots.get_row('pgr', '{"pk1": "srv", "pk2": 1}', max_versions => 3);

-- columns_to_get
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "cols", "pk2": 1}',
  '{"a": 1, "b": "two", "c": 3.5, "d": false}');
-- a subset
SELECT primary_key, attributes FROM ots.get_row('pgr', '{"pk1": "cols", "pk2": 1}',
  columns_to_get => ARRAY['b', 'd']);
-- unknown names only: no row
SELECT primary_key IS NULL AS no_pk, attributes IS NULL AS no_attributes
  FROM ots.get_row('pgr', '{"pk1": "cols", "pk2": 1}', columns_to_get => ARRAY['zz', 'yy']);
-- known and unknown names: the known ones
SELECT attributes FROM ots.get_row('pgr', '{"pk1": "cols", "pk2": 1}',
  columns_to_get => ARRAY['zz', 'a']);
-- a primary-key column name: the row is returned with its key
SELECT primary_key, attributes FROM ots.get_row('pgr', '{"pk1": "cols", "pk2": 1}',
  columns_to_get => ARRAY['pk2']);
SELECT primary_key, attributes FROM ots.get_row('pgr', '{"pk1": "cols", "pk2": 1}',
  columns_to_get => ARRAY['pk1', 'c']);
-- duplicate names collapse
SELECT attributes FROM ots.get_row('pgr', '{"pk1": "cols", "pk2": 1}',
  columns_to_get => ARRAY['a', 'a', 'c', 'a']);
-- an empty array means all columns
SELECT attributes FROM ots.get_row('pgr', '{"pk1": "cols", "pk2": 1}',
  columns_to_get => ARRAY[]::text[]);
-- 1024 names are accepted, 1025 are not
SELECT attributes FROM ots.get_row('pgr', '{"pk1": "cols", "pk2": 1}',
  columns_to_get => (SELECT array_agg('c' || g) FROM generate_series(1, 1023) g) || ARRAY['a']);
SELECT attributes FROM ots.get_row('pgr', '{"pk1": "cols", "pk2": 1}',
  columns_to_get => (SELECT array_agg('c' || g) FROM generate_series(1, 1025) g));

-- time ranges (TimeRangeTest): 11 versions base..base+10 in a max_versions 10 table
SELECT ots.create_table('pgr_tr', 'pk string', max_versions => 10,
                        max_version_offset => 9223372036854);
SELECT consumed FROM ots.put_row('pgr_tr', '{"pk": "k"}',
  (SELECT jsonb_build_object('col', jsonb_agg(jsonb_build_object('value', 'v' || g, 'ts', 1466762754000 + g)))
     FROM generate_series(0, 10) g));
-- the oldest of the 11 versions is invisible
SELECT jsonb_array_length(attributes->'col') AS visible,
       attributes->'col'->-1->'value' AS oldest_visible
  FROM ots.get_row('pgr_tr', '{"pk": "k"}', max_versions => 100);
-- [base+1, base+5) -> base+4, base+3, base+2, base+1
SELECT jsonb_path_query_array(attributes, '$.col[*].ts') AS ts,
       jsonb_path_query_array(attributes, '$.col[*].value') AS "values"
  FROM ots.get_row('pgr_tr', '{"pk": "k"}',
                   time_range => '{"start_time": 1466762754001, "end_time": 1466762754005}');
-- max_versions 3 inside [base+2, base+5) -> base+4, base+3, base+2
SELECT jsonb_path_query_array(attributes, '$.col[*].ts') AS ts
  FROM ots.get_row('pgr_tr', '{"pk": "k"}', max_versions => 3,
                   time_range => '{"start_time": 1466762754002, "end_time": 1466762754005}');
-- max_versions 2 inside a range keeps the newest two in it
SELECT jsonb_path_query_array(attributes, '$.col[*].ts') AS ts
  FROM ots.get_row('pgr_tr', '{"pk": "k"}', max_versions => 2,
                   time_range => '{"start_time": 1466762754002, "end_time": 1466762754009}');
-- specific_time selects one version
SELECT attributes FROM ots.get_row('pgr_tr', '{"pk": "k"}',
  time_range => '{"specific_time": 1466762754007}');
-- a range holding no version: the row is still returned, without columns
SELECT primary_key, attributes FROM ots.get_row('pgr_tr', '{"pk": "k"}',
  time_range => '{"start_time": 1000, "end_time": 2000}');
-- ... but not when columns_to_get names a column with no cell in the range
SELECT primary_key IS NULL AS no_row FROM ots.get_row('pgr_tr', '{"pk": "k"}',
  columns_to_get => ARRAY['col'], time_range => '{"start_time": 1000, "end_time": 2000}');
-- specific_time with max_versions is an error
SELECT attributes FROM ots.get_row('pgr_tr', '{"pk": "k"}', max_versions => 2,
  time_range => '{"specific_time": 1466762754007}');
-- only start_time (or only end_time) is an error
SELECT attributes FROM ots.get_row('pgr_tr', '{"pk": "k"}',
  time_range => '{"start_time": 1466762754001}');
SELECT attributes FROM ots.get_row('pgr_tr', '{"pk": "k"}',
  time_range => '{"end_time": 1466762754001}');

-- a missing row: NULL key and attributes, one read CU
SELECT primary_key, attributes, consumed FROM ots.get_row('pgr', '{"pk1": "nobody", "pk2": 1}');

-- capacity units (PutRowTest testWrite10CUConsumed): PK (PK1=1, PK2='a1') plus a
-- 36872-byte String att2 is 11+5+4+36872 = 36892 bytes -> 10 write CU
SELECT ots.create_table('pgr_cu', 'PK1 integer, PK2 string');
SELECT consumed FROM ots.put_row('pgr_cu', '{"PK1": 1, "PK2": "a1"}',
  jsonb_build_object('att2', repeat('x', 36872)));
-- get_row reads ceil((pk + returned data) / 4096)
SELECT consumed FROM ots.get_row('pgr_cu', '{"PK1": 1, "PK2": "a1"}');
SELECT consumed FROM ots.get_row('pgr_cu', '{"PK1": 1, "PK2": "a1"}', columns_to_get => ARRAY['PK1']);
-- exactly 4096 bytes is one CU, 4097 two: pk (3+8)+(3+0), name 4, value
SELECT consumed FROM ots.put_row('pgr_cu', '{"PK1": 2, "PK2": ""}',
  jsonb_build_object('att2', repeat('y', 4096 - 18)));
SELECT consumed FROM ots.put_row('pgr_cu', '{"PK1": 2, "PK2": ""}',
  jsonb_build_object('att2', repeat('y', 4097 - 18)));
-- Integer and Double count 8 bytes, Boolean 1: pk 14 + i 9 + d 9 + b 2 + s (1 + n)
SELECT consumed FROM ots.put_row('pgr_cu', '{"PK1": 3, "PK2": ""}',
  jsonb_build_object('i', 1, 'd', 1.5, 'b', true, 's', repeat('s', 4096 - 35)));
SELECT consumed FROM ots.put_row('pgr_cu', '{"PK1": 3, "PK2": ""}',
  jsonb_build_object('i', 1, 'd', 1.5, 'b', true, 's', repeat('s', 4097 - 35)));

-- primary-key String values: 1024 bytes ok, 1025 bytes an error
SELECT consumed FROM ots.put_row('pgr', jsonb_build_object('pk1', repeat('p', 1024), 'pk2', 1));
SELECT length(primary_key->>'pk1') FROM ots.get_row('pgr', jsonb_build_object('pk1', repeat('p', 1024), 'pk2', 1));
SELECT consumed FROM ots.put_row('pgr', jsonb_build_object('pk1', repeat('p', 1025), 'pk2', 1));
SELECT consumed FROM ots.get_row('pgr', jsonb_build_object('pk1', repeat('p', 1025), 'pk2', 1));
-- multibyte: 512 two-byte characters = 1024 bytes ok, 513 = 1026 bytes an error
SELECT consumed FROM ots.put_row('pgr', jsonb_build_object('pk1', repeat('é', 512), 'pk2', 1));
SELECT consumed FROM ots.put_row('pgr', jsonb_build_object('pk1', repeat('é', 513), 'pk2', 1));

-- attribute String values: 2 MB ok, 2 MB + 1 an error
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "big", "pk2": 1}',
  jsonb_build_object('attr', repeat('z', 2097152)));
SELECT length(attributes->>'attr') FROM ots.get_row('pgr', '{"pk1": "big", "pk2": 1}');
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "big", "pk2": 2}',
  jsonb_build_object('attr', repeat('z', 2097153)));

-- 1024 cells in one put ok, 1025 an error
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "wide", "pk2": 1}',
  (SELECT jsonb_object_agg('c' || g, g) FROM generate_series(1, 1024) g));
SELECT (SELECT count(*) FROM jsonb_object_keys(attributes)) AS columns
  FROM ots.get_row('pgr', '{"pk1": "wide", "pk2": 1}');
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "wide", "pk2": 2}',
  (SELECT jsonb_object_agg('c' || g, g) FROM generate_series(1, 1025) g));
-- versions count as cells: 1024 columns + 1 extra version is 1025
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "wide", "pk2": 3}',
  (SELECT jsonb_object_agg('c' || g, g) FROM generate_series(1, 1023) g)
  || '{"v": [{"value": 1, "ts": 1466762754000}, {"value": 2, "ts": 1466762754001}]}');

-- primary-key validation: count, then names, then types
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "a"}');
SELECT consumed FROM ots.get_row('pgr', '{"pk1": "a", "pk2": 1, "pk3": 2}');
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "a", "PK2": 1}');
SELECT consumed FROM ots.put_row('pgr', '{"pk1": 1, "pk2": 1}');
SELECT consumed FROM ots.put_row('pgr', '{"pk1": "a", "pk2": "1"}');
SELECT consumed FROM ots.get_row('pgr', '{"pk1": "a", "pk2": 1.5}');
SELECT consumed FROM ots.get_row('pgr', '{"pk1": "a", "pk2": true}');
SELECT consumed FROM ots.get_row('pgr', '{"pk1": {"$binary": "AAE="}, "pk2": 1}');
SELECT consumed FROM ots.put_row('pgr', '{}');
SELECT consumed FROM ots.put_row('pgr', '{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}');
-- INF_MIN / INF_MAX only in range bounds
SELECT consumed FROM ots.put_row('pgr', '{"pk1": {"$inf": "min"}, "pk2": 1}');
SELECT consumed FROM ots.get_row('pgr', '{"pk1": "a", "pk2": {"$inf": "max"}}');
-- a table that does not exist
SELECT consumed FROM ots.put_row('pgr_missing', '{"pk": "a"}');
SELECT consumed FROM ots.get_row('pgr_missing', '{"pk": "a"}');

-- a put of 3 versions into a max_versions 2 table keeps the newest 2
SELECT ots.create_table('pgr_mv2', 'pk integer', max_versions => 2,
                        max_version_offset => 9223372036854);
SELECT consumed FROM ots.put_row('pgr_mv2', '{"pk": 1}',
  '{"a": [{"value": 1, "ts": 1466762754001}, {"value": 3, "ts": 1466762754003}, {"value": 2, "ts": 1466762754002}]}');
SELECT attributes FROM ots.get_row('pgr_mv2', '{"pk": 1}', max_versions => 5);
-- the dropped version stays gone when max_versions is raised
SELECT ots.update_table('pgr_mv2', max_versions => 5);
SELECT attributes FROM ots.get_row('pgr_mv2', '{"pk": 1}', max_versions => 5);

-- the view shows the latest visible values of every row
SELECT pk1, pk2, attributes FROM pgr WHERE pk1 IN ('r1', 'v', 'cols', 'empty') ORDER BY pk1, pk2;

SELECT ots.delete_table('pgr');
SELECT ots.delete_table('pgr_tr');
SELECT ots.delete_table('pgr_cu');
SELECT ots.delete_table('pgr_mv2');
