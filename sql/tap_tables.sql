-- tap_tables: pgTAP checks of table DDL: every OTS error of create_table /
-- update_table / describe_table / delete_table with its SQLSTATE and exact
-- message, the objects a table consists of, and describe_table's fields.
-- Everything, pgTAP included, runs in one transaction that is rolled back.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set ECHO none
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off

BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
-- (client_min_messages stays at warning: only the test lines are output)
SELECT plan(75);

-- the SQLSTATEs and their Tablestore codes
SELECT is(ots.error_code('OT001'), 'OTSParameterInvalid', 'OT001 is OTSParameterInvalid');
SELECT is(ots.error_code('OT004'), 'OTSObjectNotExist', 'OT004 is OTSObjectNotExist');
SELECT is(ots.error_code('OT005'), 'OTSObjectAlreadyExist', 'OT005 is OTSObjectAlreadyExist');

--
-- create_table errors
--
-- table names
SELECT throws_ok($$SELECT ots.create_table('', 'k string')$$,
	'OT001', 'Invalid table name: ''''.', 'empty table name');
SELECT throws_ok($$SELECT ots.create_table('0', 'k string')$$,
	'OT001', 'Invalid table name: ''0''.', 'table name "0"');
SELECT throws_ok($$SELECT ots.create_table('#', 'k string')$$,
	'OT001', 'Invalid table name: ''#''.', 'table name "#"');
SELECT throws_ok($$SELECT ots.create_table('3t', 'k string')$$,
	'OT001', 'Invalid table name: ''3t''.', 'table name starting with a digit');
SELECT throws_ok($$SELECT ots.create_table('中文', 'k string')$$,
	'OT001', 'Invalid table name: ''中文''.', 'non-ASCII table name');
SELECT throws_ok($$SELECT ots.create_table(repeat('t', 256), 'k string')$$,
	'OT001', 'Invalid table name: ''' || repeat('t', 256) || '''.', '256-byte table name');
SELECT throws_ok($$SELECT ots.create_table(repeat('t', 58), 'k string')$$,
	'OT001', 'Invalid table name: ''' || repeat('t', 58) || '''.', '58-byte table name (ots limit 57)');
SELECT throws_ok($$SELECT ots.create_table('tap_missing_schema.t', 'k string')$$,
	'3F000', 'schema "tap_missing_schema" does not exist', 'missing schema');
-- column names
SELECT throws_ok($$SELECT ots.create_table('tap_t', '0k string')$$,
	'OT001', 'Invalid column name: ''0k''.', 'column name starting with a digit');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k# string')$$,
	'OT001', 'Invalid column name: ''k#''.', 'column name with "#"');
SELECT throws_ok($$SELECT ots.create_table('tap_t', repeat('c', 64) || ' string')$$,
	'OT001', 'Invalid column name: ''' || repeat('c', 64) || '''.', '64-byte primary-key column name');
-- primary-key types
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k double')$$,
	'OT001', 'DOUBLE is an invalid type for the primary key.', 'Double primary key');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k boolean')$$,
	'OT001', 'BOOLEAN is an invalid type for the primary key.', 'Boolean primary key');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k varchar')$$,
	'OT001', 'Invalid primary key type: ''varchar''.', 'unknown primary-key type');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k')$$,
	'OT001', 'Invalid primary key definition: ''k''.', 'column without a type');
-- number of primary-key columns
SELECT throws_ok($$SELECT ots.create_table('tap_t', '')$$,
	'OT001', 'The number of primary key columns must be in range: [1, 4].', 'no primary-key column');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'a string, b string, c string, d string, e string')$$,
	'OT001', 'The number of primary key columns must be in range: [1, 4].', 'five primary-key columns');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'PK0 string, PK0 integer')$$,
	'OT001', 'Duplicated primary key name: ''PK0''.', 'duplicate primary-key column');
-- auto_increment
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k string, s string auto_increment')$$,
	'OT001', 'AUTO_INCREMENT primary key must be integer.', 'auto_increment String column');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k string, a integer auto_increment, b integer auto_increment')$$,
	'OT001', 'AUTO_INCREMENT primary key count must <= 1.', 'two auto_increment columns');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k integer auto_increment')$$,
	'OT001', 'First primary key can''t be auto increment, table: tap_t.', 'auto_increment partition key');
-- options
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k string', max_versions => 0)$$,
	'OT001', 'MaxVersions must be greater than 0.', 'max_versions 0');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k string', time_to_live => 0)$$,
	'OT001', 'TimeToLive cannot be 0 or less than -1.', 'time_to_live 0');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k string', time_to_live => -2)$$,
	'OT001', 'TimeToLive cannot be 0 or less than -1.', 'time_to_live -2');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k string', max_version_offset => -1)$$,
	'OT001', 'The maximum deviation must be in range [0, INT64_MAX/1000000].', 'max_version_offset -1');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k string', partitions => 0)$$,
	'OT001', 'Invalid number of partitions: 0.', 'partitions 0');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k string', partitions => 1025)$$,
	'OT001', 'Invalid number of partitions: 1025.', 'partitions 1025');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k string', hash_prefix_length => 9)$$,
	'OT001', 'Invalid hash prefix length: 9.', 'hash_prefix_length 9');
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k string', hash_prefix_length => 1, partitions => 17)$$,
	'OT001', 'Invalid number of partitions: 17.', 'more partitions than prefixes');
SELECT hasnt_view('public', 'tap_t', 'no failed creation left a view behind');
SELECT hasnt_table('public', 'tap_t$data', 'no failed creation left a storage table behind');

--
-- a table and its objects
--
SELECT lives_ok($$SELECT ots.create_table('tap_t', 'k string, n integer auto_increment, b binary',
	max_versions => 2, time_to_live => 86400, max_version_offset => 60, allow_update => false,
	partitions => 3)$$, 'create_table');
SELECT has_view('public', 'tap_t', 'the table is a view');
SELECT has_table('public', 'tap_t$data', 'stored in a table');
SELECT is_partitioned('public', 'tap_t$data', 'which is partitioned');
-- (pgTAP compares partition names quoted as identifiers)
SELECT partitions_are('public', 'tap_t$data', ARRAY['"tap_t$p0"', '"tap_t$p1"', '"tap_t$p2"'],
	'into the requested number of partitions');
SELECT has_sequence('public', 'tap_t$seq', 'auto_increment has a sequence');
SELECT col_type_is('public', 'tap_t', 'k', 'text', 'String key column is text');
SELECT col_type_is('public', 'tap_t', 'n', 'bigint', 'Integer key column is bigint');
SELECT col_type_is('public', 'tap_t', 'b', 'bytea', 'Binary key column is bytea');
SELECT col_type_is('public', 'tap_t', 'attributes', 'jsonb', 'attributes are jsonb');
SELECT is((SELECT c.collname FROM pg_attribute a JOIN pg_collation c ON c.oid = a.attcollation
			WHERE a.attrelid = 'tap_t'::regclass AND a.attname = 'k'),
	'C'::name, 'String key column sorts with collation "C"');
SELECT col_not_null('public', 'tap_t$data', 'k', 'key columns are NOT NULL in storage');
SELECT col_type_is('public', 'tap_t$data', '$cells', 'ots', 'cells', 'cells are stored as ots.cells');

--
-- describe_table
--
SELECT is(ots.describe_table('tap_t') ->> 'table_name', 'tap_t', 'describe_table: table_name');
SELECT is(ots.describe_table('tap_t') ->> 'schema_name', 'public', 'describe_table: schema_name');
SELECT is(ots.describe_table('tap_t') -> 'primary_key',
	'[{"name": "k", "type": "STRING"}, {"name": "n", "type": "INTEGER", "option": "AUTO_INCREMENT"},
	  {"name": "b", "type": "BINARY"}]'::jsonb, 'describe_table: primary_key');
SELECT is(ots.describe_table('tap_t') -> 'table_options',
	'{"max_versions": 2, "time_to_live": 86400, "max_version_offset": 60, "allow_update": false, "update_full_row": false}'::jsonb,
	'describe_table: table_options');
SELECT is(ots.describe_table('tap_t') -> 'hash_prefix_length', '0'::jsonb, 'describe_table: hash_prefix_length');
SELECT is(jsonb_array_length(ots.describe_table('tap_t') -> 'partitions'), 3, 'describe_table: partitions');
SELECT is(ots.describe_table('tap_t') -> 'partitions' -> 0,
	'{"name": "tap_t$p0", "bound": "FOR VALUES WITH (modulus 3, remainder 0)"}'::jsonb,
	'describe_table: a partition and its bound');
SELECT ok(abs((ots.describe_table('tap_t') ->> 'creation_time')::numeric - extract(epoch FROM now())) < 300,
	'describe_table: creation_time is the epoch second of creation');
SELECT is((SELECT count(*) FROM ots.list_table() WHERE table_name = 'tap_t'), 1::bigint,
	'list_table lists it');

--
-- already exists, update_table
--
SELECT throws_ok($$SELECT ots.create_table('tap_t', 'k string')$$,
	'OT005', 'Requested table already exists.', 'create_table of an existing table');
CREATE TABLE tap_plain (x int);
SELECT throws_ok($$SELECT ots.create_table('tap_plain', 'k string')$$,
	'OT005', 'Requested table already exists.', 'create_table over a plain table');
SELECT throws_ok($$SELECT ots.update_table('tap_t')$$,
	'OT001', 'No parameter is specified in table options.', 'update_table without options');
SELECT throws_ok($$SELECT ots.update_table('tap_t', max_versions => 0)$$,
	'OT001', 'MaxVersions must be greater than 0.', 'update_table with max_versions 0');
SELECT throws_ok($$SELECT ots.update_table('tap_t', time_to_live => 0)$$,
	'OT001', 'TimeToLive cannot be 0 or less than -1.', 'update_table with time_to_live 0');
SELECT lives_ok($$SELECT ots.update_table('tap_t', time_to_live => -1)$$, 'update_table of one option');
SELECT is(ots.describe_table('tap_t') -> 'table_options',
	'{"max_versions": 2, "time_to_live": -1, "max_version_offset": 60, "allow_update": false, "update_full_row": false}'::jsonb,
	'update_table changed only that option');

--
-- ownership
--
CREATE ROLE regress_tap_owner;
CREATE ROLE regress_tap_other;
CREATE SCHEMA tap_own AUTHORIZATION regress_tap_owner;
GRANT USAGE ON SCHEMA tap_own TO regress_tap_other;
CREATE FUNCTION tap_own.create_owned() RETURNS void SECURITY DEFINER LANGUAGE sql
	AS $$ SELECT ots.create_table('tap_own.owned', 'k string', partitions => 1) $$;
ALTER FUNCTION tap_own.create_owned() OWNER TO regress_tap_owner;
CREATE FUNCTION public.tap_update_owned() RETURNS void SECURITY DEFINER LANGUAGE sql
	AS $$ SELECT ots.update_table('tap_own.owned', max_versions => 2) $$;
ALTER FUNCTION public.tap_update_owned() OWNER TO regress_tap_other;
SELECT lives_ok($$SELECT tap_own.create_owned()$$, 'a role creates a table');
SELECT is((SELECT relowner::regrole::text FROM pg_class WHERE oid = 'tap_own."owned$data"'::regclass),
	'regress_tap_owner', 'that role owns its storage');
SELECT throws_ok($$SELECT public.tap_update_owned()$$,
	'42501', 'must be owner of ots table tap_own.owned', 'another role may not update_table it');

--
-- delete_table
--
SELECT lives_ok($$SELECT ots.delete_table('tap_t')$$, 'delete_table');
SELECT hasnt_view('public', 'tap_t', 'its view is gone');
SELECT hasnt_table('public', 'tap_t$data', 'its storage is gone');
SELECT hasnt_sequence('public', 'tap_t$seq', 'its sequence is gone');
SELECT throws_ok($$SELECT ots.delete_table('tap_t')$$,
	'OT004', 'Requested table does not exist.', 'delete_table of a deleted table');
SELECT throws_ok($$SELECT ots.describe_table('tap_t')$$,
	'OT004', 'Requested table does not exist.', 'describe_table of a deleted table');
SELECT throws_ok($$SELECT ots.update_table('tap_t', max_versions => 2)$$,
	'OT004', 'Requested table does not exist.', 'update_table of a deleted table');
SELECT throws_ok($$SELECT ots.get_row('tap_t', '{"k": "x", "n": 1, "b": {"$binary": ""}}')$$,
	'OT004', 'Requested table does not exist.', 'get_row on a deleted table');
SELECT throws_ok($$SELECT ots.describe_table('tap_plain')$$,
	'OT004', 'Requested table does not exist.', 'a plain table is no ots table');

SELECT * FROM finish();
ROLLBACK;
