-- tap_rows: pgTAP checks of the single-row API: every row-API error with its
-- SQLSTATE and exact Tablestore text, and the core behaviours.
-- Quiet: the extensions may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
CREATE EXTENSION IF NOT EXISTS pgtap;
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off

BEGIN;
SELECT plan(82);

-- fixtures
DO $$
BEGIN
  PERFORM ots.create_table('tap', 'pk1 string, pk2 integer', max_versions => 3,
                           max_version_offset => 9223372036854);
  PERFORM ots.create_table('tap_ai', 'part string, id integer auto_increment');
  PERFORM ots.create_table('tap_ro', 'pk integer', allow_update => false);
  PERFORM ots.create_table('tap_win', 'pk integer', max_version_offset => 10);
  PERFORM ots.put_row('tap', '{"pk1": "a", "pk2": 1}',
    '{"n": [{"value": 1, "ts": 1466762754001}, {"value": 2, "ts": 1466762754002}], "s": "text"}');
END $$;

-- table and primary key
SELECT throws_ok($$SELECT ots.put_row('tap_none', '{"pk": 1}')$$,
  'OT004', 'Requested table does not exist.', 'put_row on a missing table');
SELECT throws_ok($$SELECT ots.get_row('tap_none', '{"pk": 1}')$$,
  'OT004', 'Requested table does not exist.', 'get_row on a missing table');
SELECT throws_ok($$SELECT ots.update_row('tap_none', '{"pk": 1}', put => '{"a": 1}')$$,
  'OT004', 'Requested table does not exist.', 'update_row on a missing table');
SELECT throws_ok($$SELECT ots.delete_row('tap_none', '{"pk": 1}')$$,
  'OT004', 'Requested table does not exist.', 'delete_row on a missing table');
SELECT throws_ok($$SELECT ots.put_row(NULL, '{"pk": 1}')$$,
  'OT001', 'Parameter table_name is missing.', 'NULL table name');
SELECT throws_ok($$SELECT ots.put_row('tap', NULL)$$,
  'OT001', 'Parameter primary_key is missing.', 'NULL primary key');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": "a"}')$$,
  'OT002', 'Validate PK size fail. Input: 1, Meta: 2.', 'too few pk columns');
SELECT throws_ok($$SELECT ots.get_row('tap', '{"pk1": "a", "pk2": 1, "pk3": 1}')$$,
  'OT002', 'Validate PK size fail. Input: 3, Meta: 2.', 'too many pk columns');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": "a", "PK2": 1}')$$,
  'OT002', 'Validate PK name fail. Input: PK2, Meta: pk2.', 'pk name mismatch');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": "a", "pk2": "1"}')$$,
  'OT002', 'Validate PK type fail. Input: VT_STRING, Meta: VT_INTEGER.', 'pk type mismatch');
SELECT throws_ok($$SELECT ots.delete_row('tap', '{"pk1": {"$binary": "AA=="}, "pk2": 1}')$$,
  'OT002', 'Validate PK type fail. Input: VT_BLOB, Meta: VT_STRING.', 'binary for a string pk');
SELECT throws_ok($$SELECT ots.put_row('tap', '{}')$$,
  'OT001', 'The number of primary key columns must be in range: [1, 4].', 'empty pk');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"a": 1, "b": 1, "c": 1, "d": 1, "e": 1}')$$,
  'OT001', 'The number of primary key columns must be in range: [1, 4].', 'five pk columns');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": {"$inf": "min"}, "pk2": 1}')$$,
  'OT001', 'VT_INF_MIN is an invalid type for the primary key.', 'INF_MIN in put_row');
SELECT throws_ok($$SELECT ots.get_row('tap', '{"pk1": "a", "pk2": {"$inf": "max"}}')$$,
  'OT001', 'VT_INF_MAX is an invalid type for the primary key.', 'INF_MAX in get_row');
SELECT throws_ok(format($$SELECT ots.put_row('tap', %L)$$, jsonb_build_object('pk1', repeat('p', 1025), 'pk2', 1)),
  'OT001', 'The length of primary key column: ''pk1'' exceeds the MaxLength:1024 with CurrentLength:1025.',
  'pk value of 1025 bytes');

-- attribute values and cells
SELECT throws_ok(format($$SELECT ots.put_row('tap', '{"pk1": "b", "pk2": 1}', %L)$$,
                        jsonb_build_object('a', repeat('z', 2097153))),
  'OT001', 'The length of attribute column: ''a'' exceeds the MaxLength:2097152 with CurrentLength:2097153.',
  'attribute of 2 MB + 1');
SELECT throws_ok(format($$SELECT ots.put_row('tap', '{"pk1": "b", "pk2": 1}', %L)$$,
                        (SELECT jsonb_object_agg('c' || g, g) FROM generate_series(1, 1025) g)),
  'OT001', 'The number of attribute columns exceeds the limit, limit count: 1024, column count: 1025.',
  '1025 cells in put_row');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": "b", "pk2": 1}', '{"1a": 1}')$$,
  'OT001', 'Invalid column name: ''1a''.', 'invalid column name');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": "b", "pk2": 1}', '{"d": {"$double": "NaN"}}')$$,
  'OT001', 'NaN can''t be set to double value.', 'NaN');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": "b", "pk2": 1}', '{"d": {"$double": "-Infinity"}}')$$,
  'OT001', 'Infinity can''t be set to double value.', 'Infinity');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": "b", "pk2": 1}', '{"a": {"value": 1, "ts": 9223372036854775}}')$$,
  'OT001', 'Timestamp must be in range [0, INT64_MAX/1000).', 'timestamp INT64_MAX/1000');
SELECT throws_ok($$SELECT ots.put_row('tap_win', '{"pk": 1}', '{"old": {"value": 1, "ts": 1466762754000}}')$$,
  'OT001', 'Invalid timestamp. Cell:old', 'timestamp outside max_version_offset');

-- conditions and return types
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": "a", "pk2": 1}', condition => 'EXPECT_NOT_EXIST')$$,
  'OT003', 'Condition check failed.', 'put_row EXPECT_NOT_EXIST on an existing row');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": "zz", "pk2": 1}', condition => 'EXPECT_EXIST')$$,
  'OT003', 'Condition check failed.', 'put_row EXPECT_EXIST on a missing row');
SELECT throws_ok($$SELECT ots.update_row('tap', '{"pk1": "a", "pk2": 1}', put => '{"x": 1}',
                    column_condition => '{"column": "s", "comparator": "!=", "value": "text"}')$$,
  'OT003', 'Condition check failed.', 'update_row with a false column condition');
SELECT throws_ok($$SELECT ots.delete_row('tap', '{"pk1": "zz", "pk2": 1}', condition => 'EXPECT_EXIST')$$,
  'OT003', 'Condition check failed.', 'delete_row EXPECT_EXIST on a missing row');
SELECT throws_ok($$SELECT ots.delete_row('tap', '{"pk1": "a", "pk2": 1}', condition => 'EXPECT_NOT_EXIST')$$,
  'OT001', 'Invalid condition: EXPECT_NOT_EXIST while deleting row.', 'delete_row EXPECT_NOT_EXIST');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": "a", "pk2": 1}', condition => 'MAYBE')$$,
  'OT001', 'Invalid row existence expectation: ''MAYBE''.', 'unknown row existence expectation');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": "a", "pk2": 1}', return_type => 'RT_ALL')$$,
  'OT001', 'Invalid return type: ''RT_ALL''.', 'unknown return type');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": "a", "pk2": 1}', return_type => 'RT_AFTER_MODIFY')$$,
  'OT001', 'RT_AFTER_MODIFY is not supported by PutRow.', 'put_row RT_AFTER_MODIFY');
SELECT throws_ok($$SELECT ots.delete_row('tap', '{"pk1": "a", "pk2": 1}', return_type => 'RT_AFTER_MODIFY')$$,
  'OT001', 'RT_AFTER_MODIFY is not supported by DeleteRow.', 'delete_row RT_AFTER_MODIFY');

-- filters and column conditions
SELECT throws_ok(format($$SELECT ots.get_row('tap', '{"pk1": "a", "pk2": 1}', filter => %L)$$,
    jsonb_build_object('or', (SELECT jsonb_agg(jsonb_build_object('column', 'n', 'comparator', '=', 'value', g))
                                FROM generate_series(1, 32) g))),
  'OT001', 'The count of filter exceeds the max: 32.', 'filter of 33 nodes');
SELECT lives_ok(format($$SELECT ots.get_row('tap', '{"pk1": "a", "pk2": 1}', filter => %L)$$,
    jsonb_build_object('or', (SELECT jsonb_agg(jsonb_build_object('column', 'n', 'comparator', '=', 'value', g))
                                FROM generate_series(1, 31) g))),
  'filter of 32 nodes');
SELECT throws_ok($$SELECT ots.update_row('tap', '{"pk1": "a", "pk2": 1}', put => '{"x": 1}',
                    column_condition => '{"not": [{"column": "n", "comparator": "=", "value": 1},
                                                  {"column": "n", "comparator": "=", "value": 2}]}')$$,
  'OT001', 'Invalid NOT operator: the number of sub-filters must be 1.', 'NOT with two sub-filters');
SELECT throws_ok($$SELECT ots.get_row('tap', '{"pk1": "a", "pk2": 1}',
                    filter => '{"and": [{"column": "n", "comparator": "=", "value": 1}]}')$$,
  'OT001', 'Invalid AND/OR operator: the number of sub-filters must be more than 1.', 'AND with one sub-filter');
SELECT throws_ok($$SELECT ots.get_row('tap', '{"pk1": "a", "pk2": 1}',
                    filter => '{"column": "n", "comparator": "LIKE", "value": 1}')$$,
  'OT001', 'Invalid comparator: ''LIKE''.', 'unknown comparator');
SELECT throws_ok($$SELECT ots.get_row('tap', '{"pk1": "a", "pk2": 1}',
                    filter => '{"column_pagination": {"offset": -1, "limit": 1}}')$$,
  'OT001', 'Offset in ColumnPaginationFilter must be greater than or equal to 0.', 'negative pagination offset');
SELECT throws_ok($$SELECT ots.get_row('tap', '{"pk1": "a", "pk2": 1}',
                    filter => '{"column_pagination": {"offset": 0, "limit": 0}}')$$,
  'OT001', 'Limit in ColumnPaginationFilter must be greater than 0.', 'zero pagination limit');
SELECT throws_ok($$SELECT ots.delete_row('tap', '{"pk1": "a", "pk2": 1}',
                    column_condition => '{"column_pagination": {"offset": 0, "limit": 1}}')$$,
  'OT001', 'ColumnPaginationFilter is only supported in read operations.', 'pagination as a write condition');

-- read selectors
SELECT throws_ok(format($$SELECT ots.get_row('tap', '{"pk1": "a", "pk2": 1}', columns_to_get => %L)$$,
                        (SELECT array_agg('c' || g) FROM generate_series(1, 1025) g)),
  'OT001', 'The number of columns from the request exceeds the limit, limit count: 1024, column count: 1025.',
  '1025 columns_to_get');
SELECT throws_ok($$SELECT ots.get_row('tap', '{"pk1": "a", "pk2": 1}', max_versions => 0)$$,
  'OT001', 'MaxVersions must be greater than 0.', 'max_versions 0');
SELECT throws_ok($$SELECT ots.get_row('tap', '{"pk1": "a", "pk2": 1}', max_versions => 2,
                    time_range => '{"specific_time": 1466762754001}')$$,
  'OT001', 'Specific tiemstamp and max versions cannot be given at the same time.', 'specific_time with max_versions');
SELECT throws_ok($$SELECT ots.get_row('tap', '{"pk1": "a", "pk2": 1}', time_range => '{"start_time": 1}')$$,
  'OT001', 'Start and end time must be given at the same time.', 'start_time alone');

-- update_row
SELECT throws_ok($$SELECT ots.update_row('tap', '{"pk1": "a", "pk2": 1}')$$,
  'OT001', 'Attribute column is missing.', 'update_row without operations');
SELECT throws_ok($$SELECT ots.update_row('tap_ro', '{"pk": 1}', put => '{"a": 1}')$$,
  'OT001', 'Update operation is not allowed in this table', 'allow_update false');
SELECT throws_ok($$SELECT ots.update_row('tap', '{"pk1": "a", "pk2": 1}', "delete" => '{"n": null}')$$,
  'OT001', 'Timestamp must be given when type is DELETE_ONE_VERSION.', 'delete without a timestamp');
SELECT throws_ok(format($$SELECT ots.update_row('tap', '{"pk1": "a", "pk2": 1}', delete_all => %L)$$,
                        (SELECT array_agg('c' || g) FROM generate_series(1, 1025) g)),
  'OT001', 'The number of attribute columns exceeds the limit, limit count: 1024, column count: 1025.',
  '1025 operations in update_row');
SELECT throws_ok($$SELECT ots.update_row('tap', '{"pk1": "a", "pk2": 1}', increment => '{"s": 1}')$$,
  'OT001', 'Increment of column ''s'' failed: its value is not an Integer.', 'increment of a String');
SELECT throws_ok($$SELECT ots.update_row('tap', '{"pk1": "a", "pk2": 1}', increment => '{"n": 9223372036854775807}')$$,
  'OT001', 'Increment of column ''n'' overflows a 64-bit Integer.', 'increment overflow');
SELECT throws_ok($$SELECT ots.update_row('tap', '{"pk1": "a", "pk2": 1}', increment => '{"n": 1}',
                    return_type => 'RT_AFTER_MODIFY', return_columns => ARRAY['s'])$$,
  'OT001', 'Column ''s'' in return_columns is not incremented.', 'return_columns names a column not incremented');

-- auto increment
SELECT throws_ok($$SELECT ots.put_row('tap_ai', '{"part": "p", "id": {"$auto_increment": true}}', condition => 'EXPECT_EXIST')$$,
  'OT001', 'Invalid expect:EXPECT_EXIST when modify row with pk auto increment.', 'auto increment with EXPECT_EXIST');
SELECT throws_ok($$SELECT ots.put_row('tap_ai', '{"part": "p", "id": {"$auto_increment": true}}', condition => 'EXPECT_NOT_EXIST')$$,
  'OT001', 'Invalid expect:EXPECT_NOT_EXIST when modify row with pk auto increment.', 'auto increment with EXPECT_NOT_EXIST');
SELECT throws_ok($$SELECT ots.update_row('tap_ai', '{"part": "p", "id": {"$auto_increment": true}}', put => '{"a": 1}',
                    column_condition => '{"column": "a", "comparator": "=", "value": 1}')$$,
  'OT001', 'Can''t set condition when modify row with pk auto increment.', 'auto increment with a column condition');
SELECT throws_ok($$SELECT ots.get_row('tap_ai', '{"part": "p", "id": {"$auto_increment": true}}')$$,
  'OT001', 'PKAutoIncr can''t be used for read operations.', 'auto increment placeholder in get_row');
SELECT throws_ok($$SELECT ots.delete_row('tap_ai', '{"part": "p", "id": {"$auto_increment": true}}')$$,
  'OT001', 'Invalid row to delete which with pk auto increment.', 'auto increment placeholder in delete_row');
SELECT throws_ok($$SELECT ots.put_row('tap', '{"pk1": "a", "pk2": {"$auto_increment": true}}')$$,
  'OT002', 'Validate PK type fail. Input: VT_AUTO_INCREMENT, Meta: VT_INTEGER.', 'placeholder on a plain column');

-- core behaviours
SELECT is((SELECT attributes FROM ots.get_row('tap', '{"pk1": "a", "pk2": 1}')),
  '{"n": 2, "s": "text"}'::jsonb, 'get_row returns the latest values');
SELECT is((SELECT attributes->'n' FROM ots.get_row('tap', '{"pk1": "a", "pk2": 1}', max_versions => 3)),
  '[{"ts": 1466762754002, "value": 2}, {"ts": 1466762754001, "value": 1}]'::jsonb, 'versions newest first');
SELECT ok((SELECT primary_key IS NULL AND attributes IS NULL FROM ots.get_row('tap', '{"pk1": "zz", "pk2": 1}')),
  'a missing row reads as NULL');
SELECT is((SELECT consumed FROM ots.get_row('tap', '{"pk1": "zz", "pk2": 1}')),
  '{"read": 1, "write": 0}'::jsonb, 'a missing row costs one read');
SELECT is((SELECT consumed FROM ots.put_row('tap', '{"pk1": "cu", "pk2": 1}', jsonb_build_object('att2', repeat('x', 36872)))),
  '{"read": 0, "write": 10}'::jsonb, 'a 36 KB row costs 10 write CU');
SELECT is((SELECT consumed FROM ots.put_row('tap', '{"pk1": "r", "pk2": 1}', '{"a": 1, "b": 2}')),
  '{"read": 0, "write": 1}'::jsonb, 'put_row writes a row');
SELECT is((SELECT consumed FROM ots.put_row('tap', '{"pk1": "r", "pk2": 1}', '{"c": 3}', condition => 'EXPECT_EXIST')),
  '{"read": 1, "write": 1}'::jsonb, 'a conditional put_row also reads');
SELECT is((SELECT attributes FROM ots.get_row('tap', '{"pk1": "r", "pk2": 1}')),
  '{"c": 3}'::jsonb, 'put_row replaces the whole row');
SELECT is((SELECT attributes FROM ots.update_row('tap', '{"pk1": "i", "pk2": 1}', increment => '{"n": 10}', return_type => 'RT_AFTER_MODIFY')),
  '{"n": 10}'::jsonb, 'increment starts from 0');
SELECT is((SELECT attributes FROM ots.update_row('tap', '{"pk1": "i", "pk2": 1}', increment => '{"n": 10}', return_type => 'RT_AFTER_MODIFY')),
  '{"n": 20}'::jsonb, 'increment adds');
SELECT is((SELECT attributes FROM ots.update_row('tap', '{"pk1": "i", "pk2": 1}', increment => '{"n": -30}', return_type => 'RT_AFTER_MODIFY')),
  '{"n": -10}'::jsonb, 'increment subtracts');
SELECT lives_ok($$SELECT ots.update_row('tap', '{"pk1": "ghost", "pk2": 1}', delete_all => ARRAY['a'])$$,
  'a delete-only update of a missing row succeeds');
SELECT ok((SELECT primary_key IS NULL FROM ots.get_row('tap', '{"pk1": "ghost", "pk2": 1}')),
  'a delete-only update does not create the row');
SELECT lives_ok($$SELECT ots.update_row('tap', '{"pk1": "r", "pk2": 1}', delete_all => ARRAY['c'])$$,
  'delete_all of the last column');
SELECT is((SELECT attributes FROM ots.get_row('tap', '{"pk1": "r", "pk2": 1}')),
  '{}'::jsonb, 'deleting every column keeps the row');
SELECT is((SELECT primary_key FROM ots.put_row('tap', '{"pk1": "k", "pk2": 7}', return_type => 'RT_PK')),
  '{"pk1": "k", "pk2": 7}'::jsonb, 'RT_PK returns the key');
SELECT ok((SELECT (primary_key->>'id')::bigint > 0 FROM ots.put_row('tap_ai', '{"part": "p", "id": {"$auto_increment": true}}',
                                                                     return_type => 'RT_PK')),
  'RT_PK returns a generated key');
SELECT is((SELECT attributes FROM ots.get_row('tap', '{"pk1": "a", "pk2": 1}', columns_to_get => ARRAY['s', 'zz'])),
  '{"s": "text"}'::jsonb, 'columns_to_get selects columns');
SELECT ok((SELECT primary_key IS NULL FROM ots.get_row('tap', '{"pk1": "a", "pk2": 1}', columns_to_get => ARRAY['zz'])),
  'columns_to_get of unknown columns returns no row');
SELECT ok((SELECT primary_key IS NULL FROM ots.get_row('tap', '{"pk1": "a", "pk2": 1}',
                                                      filter => '{"column": "n", "comparator": ">", "value": 2}')),
  'a filter rejecting the row returns no row');
SELECT lives_ok($$SELECT ots.delete_row('tap', '{"pk1": "zz", "pk2": 1}')$$, 'deleting a missing row with IGNORE');
SELECT is((SELECT consumed FROM ots.delete_row('tap', '{"pk1": "k", "pk2": 7}', condition => 'EXPECT_EXIST')),
  '{"read": 1, "write": 1}'::jsonb, 'delete_row EXPECT_EXIST of an existing row');
SELECT ok((SELECT primary_key IS NULL FROM ots.get_row('tap', '{"pk1": "k", "pk2": 7}')), 'delete_row removes the row');
SELECT is((SELECT jsonb_agg(jsonb_build_array(pk1, pk2, attributes) ORDER BY pk1, pk2)
             FROM tap WHERE pk1 <> 'cu'),
  '[["a", 1, {"n": 2, "s": "text"}], ["i", 1, {"n": -10}], ["r", 1, {}]]'::jsonb,
  'the view shows the latest values of every row');
SELECT is(ots.error_code('OT003'), 'OTSConditionCheckFail', 'error_code maps SQLSTATEs to OTS codes');

SELECT * FROM finish();
ROLLBACK;
