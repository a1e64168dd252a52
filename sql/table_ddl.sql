-- table_ddl: ots.create_table / update_table / describe_table / list_table /
-- delete_table: the primary-key schema, names, options, errors and ownership.
-- Quiet: the extension may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

-- the SQLSTATE and message of a statement's error, or "ok"
CREATE FUNCTION pg_temp.try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

-- the PostgreSQL type each ots primary-key type is stored as
CREATE FUNCTION pg_temp.storage_columns(rel text) RETURNS TABLE (col name, typ text, coll name)
LANGUAGE sql AS $$
	SELECT a.attname, format_type(a.atttypid, a.atttypmod), c.collname
	  FROM pg_attribute a LEFT JOIN pg_collation c ON c.oid = a.attcollation
	 WHERE a.attrelid = rel::regclass AND a.attnum > 0 AND NOT a.attisdropped
	 ORDER BY a.attnum
$$;

--
-- primary-key types and their aliases (case-insensitive)
--
SELECT ots.create_table('ddl_types',
	'k1 string, k2 STRING, k3 text, k4 Text', partitions => 1);
SELECT * FROM pg_temp.storage_columns('"ddl_types$data"');
SELECT ots.describe_table('ddl_types') -> 'primary_key' AS primary_key;
SELECT ots.delete_table('ddl_types');
SELECT ots.create_table('ddl_types',
	'k1 integer, k2 INT, k3 bigint, k4 Int8', partitions => 1);
SELECT * FROM pg_temp.storage_columns('"ddl_types$data"');
SELECT ots.describe_table('ddl_types') -> 'primary_key' AS primary_key;
SELECT ots.delete_table('ddl_types');
SELECT ots.create_table('ddl_types',
	'k1 binary, k2 BYTEA, k3 blob, k4 Binary', partitions => 1);
SELECT * FROM pg_temp.storage_columns('"ddl_types$data"');
SELECT ots.describe_table('ddl_types') -> 'primary_key' AS primary_key;
SELECT ots.delete_table('ddl_types');
-- extra whitespace around names, types and commas is accepted
SELECT ots.create_table('ddl_types', E'  k1\tstring ,k2   integer  ', partitions => 1);
SELECT ots.describe_table('ddl_types') -> 'primary_key' AS primary_key;
SELECT ots.delete_table('ddl_types');
-- Double and Boolean cannot be primary-key types, under any of their names
SELECT ots.create_table('ddl_bad', 'k double');
SELECT ots.create_table('ddl_bad', 'k float8');
SELECT ots.create_table('ddl_bad', 'k1 string, k2 boolean');
SELECT ots.create_table('ddl_bad', 'k bool');
-- an unknown type name
SELECT ots.create_table('ddl_bad', 'k varchar');
-- a column without a type, or with an unknown option
SELECT ots.create_table('ddl_bad', 'k');
SELECT ots.create_table('ddl_bad', 'k string primary');
-- an empty column between commas
SELECT ots.create_table('ddl_bad', 'k1 string,, k2 string');

--
-- number of primary-key columns: 1 to 4
--
SELECT ots.create_table('ddl_one', 'k string', partitions => 1);
SELECT ots.create_table('ddl_four', 'a string, b integer, c binary, d string', partitions => 1);
SELECT table_name, jsonb_array_length(ots.describe_table(table_name) -> 'primary_key') AS pk_columns
  FROM ots.list_table() WHERE table_name LIKE 'ddl\_%' ORDER BY table_name;
-- zero columns: empty, blank and NULL schemas
SELECT ots.create_table('ddl_bad', '');
SELECT ots.create_table('ddl_bad', '   ');
SELECT ots.create_table('ddl_bad', NULL);
-- five columns
SELECT ots.create_table('ddl_bad', 'a string, b integer, c binary, d string, e string');
-- duplicate primary-key column names
SELECT ots.create_table('ddl_bad', 'PK0 string, PK1 integer, PK0 integer');
-- names are case-sensitive, so "a" and "A" are two columns
SELECT ots.create_table('ddl_case_cols', 'a string, A integer', partitions => 1);
SELECT * FROM pg_temp.storage_columns('"ddl_case_cols$data"');
SELECT ots.delete_table('ddl_case_cols');

--
-- AUTO_INCREMENT
--
SELECT ots.create_table('ddl_auto', 'user_id string, seq integer AUTO_INCREMENT, n integer',
	partitions => 1);
SELECT ots.describe_table('ddl_auto') -> 'primary_key' AS primary_key;
SELECT relname, relkind FROM pg_class WHERE relname = 'ddl_auto$seq';
-- the auto_increment column must be an Integer
SELECT ots.create_table('ddl_bad', 'k string, s string auto_increment');
SELECT ots.create_table('ddl_bad', 'k string, s binary auto_increment');
-- at most one auto_increment column
SELECT ots.create_table('ddl_bad', 'k string, a integer auto_increment, b integer auto_increment');
-- the partition key (first column) cannot be auto_increment
SELECT ots.create_table('ddl_bad', 'k integer auto_increment, s string');
-- the option must be spelled auto_increment
SELECT ots.create_table('ddl_bad', 'k string, s integer autoincrement');

--
-- table names: [A-Za-z_][A-Za-z0-9_]*, case-sensitive, 57 bytes at most
--
-- invalid names
SELECT ots.create_table('', 'k string');
SELECT ots.create_table('0', 'k string');
SELECT ots.create_table('#', 'k string');
SELECT ots.create_table('3t', 'k string');
SELECT ots.create_table('T#', 'k string');
SELECT ots.create_table('#abc', 'k string');
SELECT ots.create_table('-', 'k string');
SELECT ots.create_table('中文', 'k string');
SELECT ots.create_table('a b', 'k string');
SELECT ots.create_table('t$data', 'k string');
-- 256 bytes: longer than Tablestore allows
SELECT ots.create_table(repeat('n', 256), 'k string');
-- 255 and 58 bytes: valid for Tablestore, but longer than ots's 57 (DETAIL says why)
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT ots.create_table(repeat('n', 255), 'k string');
SELECT ots.create_table(repeat('n', 58), 'k string');
\set VERBOSITY terse
-- 57 bytes: the longest name, with room for "$data" and "$p1023"
SELECT ots.create_table(repeat('n', 57), 'k string', partitions => 2);
SELECT substr(relname, 58) AS suffix, relkind FROM pg_class
 WHERE relname LIKE repeat('n', 57) || '%' ORDER BY relname COLLATE "C";
SELECT ots.delete_table(repeat('n', 57));
-- "_" may start a name
SELECT ots.create_table('_ddl_9', 'k string', partitions => 1);
SELECT ots.delete_table('_ddl_9');

--
-- column names
--
-- invalid primary-key column names
SELECT ots.create_table('ddl_bad', '0k string');
SELECT ots.create_table('ddl_bad', 'k# string');
SELECT ots.create_table('ddl_bad', '"k" string');
SELECT ots.create_table('ddl_bad', repeat('c', 256) || ' string');
-- 64 bytes: valid for Tablestore, longer than a PostgreSQL column name
\set VERBOSITY default
SELECT ots.create_table('ddl_bad', repeat('c', 64) || ' string');
\set VERBOSITY terse
-- 63 bytes is fine
SELECT ots.create_table('ddl_long_col', repeat('c', 63) || ' string', partitions => 1);
SELECT length(ots.describe_table('ddl_long_col') -> 'primary_key' -> 0 ->> 'name');
SELECT ots.delete_table('ddl_long_col');
-- a primary-key column named "attributes" renames the view's attribute column
SELECT ots.create_table('ddl_attrs', 'attributes string', partitions => 1);
SELECT attname FROM pg_attribute WHERE attrelid = 'ddl_attrs'::regclass AND attnum > 0 ORDER BY attnum;
SELECT ots.delete_table('ddl_attrs');

--
-- schemas: qualified, quoted, search_path
--
CREATE SCHEMA ddl_s;
CREATE SCHEMA "DDL Schema";
SELECT ots.create_table('ddl_s.q1', 'k string', partitions => 1);
SELECT ots.create_table('"DDL Schema".q2', 'k integer', partitions => 1);
-- an unqualified name is created in the first schema of search_path
SET search_path = ddl_s, public;
SELECT ots.create_table('q3', 'k binary', partitions => 1);
RESET search_path;
SELECT relnamespace::regnamespace AS schema, relname, relkind FROM pg_class
 WHERE relname IN ('q1', 'q2', 'q3', 'q1$data', 'q2$data', 'q3$data')
 ORDER BY relnamespace::regnamespace::text COLLATE "C", relname COLLATE "C";
SELECT schema_name, table_name, ots.describe_table(format('%I.%s', schema_name, table_name)) ->> 'schema_name' AS described
  FROM ots.list_table() WHERE table_name IN ('q1', 'q2', 'q3')
 ORDER BY schema_name COLLATE "C", table_name COLLATE "C";
-- unqualified q3 is not found outside its schema
SELECT ots.describe_table('q3');
SET search_path = ddl_s, public;
SELECT ots.describe_table('q3') ->> 'schema_name' AS schema_name;
RESET search_path;
-- a qualified name finds it whatever the search_path
SELECT ots.describe_table('ddl_s.q3') ->> 'table_name' AS table_name;
-- a schema that does not exist
SELECT ots.create_table('ddl_nope.q4', 'k string');
-- the table part of a qualified name must be valid
SELECT ots.create_table('ddl_s.', 'k string');
SELECT ots.create_table('ddl_s.4q', 'k string');
-- rows of a table in a quoted schema
SELECT ots.put_row('"DDL Schema".q2', '{"k": 1}', '{"c": "in a quoted schema"}');
SELECT (ots.get_row('"DDL Schema".q2', '{"k": 1}')).attributes;
SELECT * FROM "DDL Schema".q2 ORDER BY k;

--
-- case-sensitive table names
--
SELECT ots.create_table('StudentCard', 'CardID string, OrderNumber integer auto_increment',
	partitions => 2);
SELECT ots.put_row('StudentCard', '{"CardID": "c1", "OrderNumber": {"$auto_increment": true}}',
	'{"amount": 10}');
SELECT "CardID", attributes FROM "StudentCard" ORDER BY "CardID";
SELECT relname FROM pg_class WHERE relname LIKE 'StudentCard%' ORDER BY relname COLLATE "C";
-- another case is another (missing) table
SELECT ots.describe_table('studentcard');
-- the table part is taken literally: quotes are not part of a valid name
SELECT ots.describe_table('"StudentCard"');
SELECT ots.get_row('STUDENTCARD', '{"CardID": "c1", "OrderNumber": 1}');
-- and can be created beside it
SELECT ots.create_table('studentcard', 'id integer', partitions => 1);
SELECT schema_name, table_name FROM ots.list_table()
 WHERE lower(table_name) = 'studentcard' ORDER BY table_name COLLATE "C";
SELECT ots.delete_table('studentcard');

--
-- table options
--
SELECT ots.create_table('ddl_opts', 'k string', max_versions => 3, time_to_live => 86400,
	max_version_offset => 3600, allow_update => false, partitions => 2);
SELECT jsonb_pretty(ots.describe_table('ddl_opts') - 'creation_time');
-- creation_time is the creation's epoch second
SELECT abs((ots.describe_table('ddl_opts') ->> 'creation_time')::numeric
           - extract(epoch FROM now())) < 300 AS recent;
-- Tablestore's limits on max_versions, time_to_live and max_version_offset
SELECT ots.create_table('ddl_bad', 'k string', max_versions => 0);
SELECT ots.create_table('ddl_bad', 'k string', max_versions => -1);
SELECT ots.create_table('ddl_bad', 'k string', time_to_live => 0);
SELECT ots.create_table('ddl_bad', 'k string', time_to_live => -2);
SELECT ots.create_table('ddl_bad', 'k string', time_to_live => 2147483648);
SELECT ots.create_table('ddl_bad', 'k string', max_version_offset => -1);
SELECT ots.create_table('ddl_bad', 'k string', max_version_offset => 9223372036855);
-- the extremes are accepted (unlike Tablestore, a TTL below one day too)
SELECT ots.create_table('ddl_ext', 'k string', max_versions => 2147483647, time_to_live => 1,
	max_version_offset => 9223372036854, partitions => 1);
SELECT ots.describe_table('ddl_ext') -> 'table_options' AS table_options;
SELECT ots.delete_table('ddl_ext');
-- options may not be NULL
SELECT ots.create_table('ddl_bad', 'k string', max_versions => NULL);
SELECT ots.create_table('ddl_bad', 'k string', allow_update => NULL);
-- partitions: 1 to 1024
SELECT ots.create_table('ddl_bad', 'k string', partitions => 0);
SELECT ots.create_table('ddl_bad', 'k string', partitions => 1025);
-- hash_prefix_length: 0 to 8 hex digits
SELECT ots.create_table('ddl_bad', 'k string', hash_prefix_length => 9);
SELECT ots.create_table('ddl_bad', 'k string', hash_prefix_length => -1);
-- with a hash prefix of n digits, at most 16^n partitions
SELECT ots.create_table('ddl_bad', 'k string', hash_prefix_length => 1, partitions => 17);
SELECT ots.create_table('ddl_hash', 'k string', hash_prefix_length => 1, partitions => 16);
SELECT p ->> 'name' AS name, p ->> 'bound' AS bound
  FROM jsonb_array_elements(ots.describe_table('ddl_hash') -> 'partitions') p
 ORDER BY substring(p ->> 'name' FROM '[0-9]+$')::int;
SELECT ots.delete_table('ddl_hash');
-- 1024 partitions
SELECT ots.create_table('ddl_many', 'k integer', partitions => 1024);
SELECT count(*) FROM pg_inherits WHERE inhparent = '"ddl_many$data"'::regclass;
SELECT ots.delete_table('ddl_many');
-- nothing of the failed creations was left behind
SELECT count(*) FROM pg_class WHERE relname LIKE 'ddl\_bad%';
SELECT count(*) FROM ots.tables WHERE table_name = 'ddl_bad';

--
-- already exists
--
SELECT ots.create_table('ddl_opts', 'k string');
-- also with another primary-key schema
SELECT ots.create_table('ddl_opts', 'x integer, y integer');
-- a plain table or view of that name blocks creation too
CREATE TABLE ddl_plain (x int);
\set VERBOSITY default
SELECT ots.create_table('ddl_plain', 'k string');
\set VERBOSITY terse
CREATE VIEW ddl_plain_view AS SELECT 1 AS x;
SELECT ots.create_table('ddl_plain_view', 'k string');
-- so does a relation named like its storage table
CREATE TABLE "ddl_plain2$data" (x int);
SELECT ots.create_table('ddl_plain2', 'k string');
SELECT count(*) FROM ots.tables WHERE table_name LIKE 'ddl\_plain%';
-- a plain table is not an ots table
SELECT ots.describe_table('ddl_plain');
SELECT ots.update_table('ddl_plain', max_versions => 2);
SELECT ots.delete_table('ddl_plain');
SELECT ots.get_row('ddl_plain', '{"x": 1}');
DROP TABLE ddl_plain, "ddl_plain2$data";
DROP VIEW ddl_plain_view;

--
-- update_table: partial updates, immediately visible in describe_table
--
SELECT ots.update_table('ddl_opts', max_versions => 5);
SELECT ots.describe_table('ddl_opts') -> 'table_options' AS table_options;
SELECT ots.update_table('ddl_opts', time_to_live => -1);
SELECT ots.describe_table('ddl_opts') -> 'table_options' AS table_options;
SELECT ots.update_table('ddl_opts', max_version_offset => 0);
SELECT ots.describe_table('ddl_opts') -> 'table_options' AS table_options;
SELECT ots.update_table('ddl_opts', allow_update => true);
SELECT ots.describe_table('ddl_opts') -> 'table_options' AS table_options;
SELECT ots.update_table('ddl_opts', max_versions => 1, time_to_live => 172800,
	max_version_offset => 86400, allow_update => false);
SELECT ots.describe_table('ddl_opts') -> 'table_options' AS table_options;
-- the primary key, partitions and hash prefix are unchanged
SELECT ots.describe_table('ddl_opts') -> 'primary_key' AS primary_key,
       jsonb_array_length(ots.describe_table('ddl_opts') -> 'partitions') AS partitions,
       ots.describe_table('ddl_opts') -> 'hash_prefix_length' AS hash_prefix_length;
-- no option given
SELECT ots.update_table('ddl_opts');
SELECT ots.update_table('ddl_opts', NULL, NULL, NULL, NULL);
-- invalid options; a failed update changes nothing
SELECT ots.update_table('ddl_opts', max_versions => 0);
SELECT ots.update_table('ddl_opts', max_versions => 2, time_to_live => 0);
SELECT ots.update_table('ddl_opts', time_to_live => -2);
SELECT ots.update_table('ddl_opts', max_version_offset => -1);
SELECT ots.describe_table('ddl_opts') -> 'table_options' AS table_options;
-- a missing table, an invalid name
SELECT ots.update_table('ddl_missing', max_versions => 2);
SELECT ots.update_table('3t', max_versions => 2);
-- a NULL table name: every table function says the parameter is missing
SELECT ots.describe_table(NULL);
SELECT ots.update_table(NULL, max_versions => 2);
SELECT ots.delete_table(NULL);
SELECT ots.create_table(NULL, 'k string');

--
-- unqualified names resolve through search_path, like relations
--
SET search_path = ddl_s, public;
SELECT ots.create_table('ddl_opts', 'other integer', partitions => 1);
SELECT ots.describe_table('ddl_opts') ->> 'schema_name' AS schema_name,
       ots.describe_table('ddl_opts') -> 'primary_key' AS primary_key;
SELECT ots.describe_table('public.ddl_opts') ->> 'schema_name' AS schema_name,
       ots.describe_table('public.ddl_opts') -> 'primary_key' AS primary_key;
RESET search_path;
SELECT ots.describe_table('ddl_opts') ->> 'schema_name' AS schema_name;
-- a name resolved once follows later search_path changes, and tables
-- created, shadowing or dropped since (row calls remember resolved names)
SELECT ots.create_table('ddl_nc', 'k integer', partitions => 1);
SELECT (ots.put_row('ddl_nc', '{"k": 1}', '{"in": "public"}')).consumed;
SET search_path = ddl_s, public;
SELECT attributes FROM ots.get_row('ddl_nc', '{"k": 1}');
SELECT ots.create_table('ddl_nc', 'k integer', partitions => 1);
SELECT (ots.put_row('ddl_nc', '{"k": 1}', '{"in": "ddl_s"}')).consumed;
SELECT attributes FROM ots.get_row('ddl_nc', '{"k": 1}');
RESET search_path;
SELECT attributes FROM ots.get_row('ddl_nc', '{"k": 1}');
SET search_path = ddl_s, public;
SELECT attributes FROM ots.get_row('ddl_nc', '{"k": 1}');
SELECT ots.delete_table('ddl_s.ddl_nc');
SELECT attributes FROM ots.get_row('ddl_nc', '{"k": 1}');
RESET search_path;
SELECT ots.delete_table('ddl_nc');
SELECT attributes FROM ots.get_row('ddl_nc', '{"k": 1}');

--
-- list_table
--
SELECT * FROM ots.list_table()
 WHERE schema_name IN ('public', 'ddl_s', 'DDL Schema')
 ORDER BY schema_name COLLATE "C", table_name COLLATE "C";

--
-- delete_table
--
SELECT ots.put_row('ddl_auto', '{"user_id": "u", "seq": {"$auto_increment": true}, "n": 1}', '{"a": 1}');
SELECT ots.delete_table('ddl_auto');
-- view, storage, partitions, sequence and metadata are gone
SELECT count(*) FROM pg_class WHERE relname LIKE 'ddl\_auto%';
SELECT count(*) FROM pg_type WHERE typname LIKE 'ddl\_auto%';
SELECT count(*) FROM ots.tables WHERE table_name = 'ddl_auto';
SELECT count(*) FROM ots.list_table() WHERE table_name = 'ddl_auto';
-- every call on a deleted table: the table does not exist
SELECT ots.get_row('ddl_auto', '{"user_id": "u", "seq": 1, "n": 1}');
SELECT ots.put_row('ddl_auto', '{"user_id": "u", "seq": 1, "n": 1}');
SELECT ots.describe_table('ddl_auto');
SELECT ots.update_table('ddl_auto', max_versions => 2);
SELECT ots.delete_table('ddl_auto');
-- delete_table says nothing about objects a table never had (no sequence
-- without auto_increment, ...)
SELECT ots.create_table('ddl_quiet', 'k string', partitions => 1);
SET client_min_messages = notice;
SELECT ots.delete_table('ddl_quiet');
SET client_min_messages = warning;
-- a table that never existed, in a schema that does not exist
SELECT ots.delete_table('ddl_never');
SELECT ots.delete_table('ddl_nope.ddl_never');
-- re-create with a different schema: nothing of the old table shows through
SELECT ots.create_table('ddl_auto', 'code binary, version integer', max_versions => 2, partitions => 1);
SELECT jsonb_pretty(ots.describe_table('ddl_auto') - 'creation_time');
SELECT * FROM pg_temp.storage_columns('"ddl_auto$data"');
SELECT count(*) FROM ddl_auto;
SELECT ots.get_row('ddl_auto', '{"user_id": "u", "seq": 1, "n": 1}');
SELECT ots.put_row('ddl_auto', '{"code": {"$binary": "AAE="}, "version": 7}', '{"a": "new"}');
SELECT * FROM ddl_auto ORDER BY code, version;
SELECT ots.delete_table('ddl_auto');

--
-- ownership: only a table's owner manages it
--
CREATE ROLE regress_ots_ddl_owner;
CREATE ROLE regress_ots_ddl_other;
CREATE SCHEMA ddl_own;
GRANT USAGE, CREATE ON SCHEMA ddl_own TO regress_ots_ddl_owner;
GRANT USAGE ON SCHEMA ddl_own TO regress_ots_ddl_other;
SET ROLE regress_ots_ddl_owner;
SELECT ots.create_table('ddl_own.owned', 'k string', partitions => 1);
RESET ROLE;
SELECT relname, relowner::regrole FROM pg_class
 WHERE relnamespace = 'ddl_own'::regnamespace ORDER BY relname COLLATE "C";
SET ROLE regress_ots_ddl_other;
-- without a privilege on it, the role sees nothing of it (ots.table_visible):
-- describe_table is refused as the row calls are
SELECT ots.describe_table('ddl_own.owned') -> 'table_options' AS table_options;
-- another role may not change it (42501 insufficient_privilege)
SELECT pg_temp.try($$SELECT ots.update_table('ddl_own.owned', max_versions => 2)$$);
-- nor delete it (42501 insufficient_privilege)
SELECT pg_temp.try($$SELECT ots.delete_table('ddl_own.owned')$$);
-- nor change its metadata directly (no role writes ots.tables but through ots's functions)
UPDATE ots.tables SET max_versions = 9 WHERE table_name = 'owned';
DELETE FROM ots.tables WHERE table_name = 'owned';
RESET ROLE;
SELECT ots.describe_table('ddl_own.owned') -> 'table_options' AS table_options;
-- a member of the owning role may
GRANT regress_ots_ddl_owner TO regress_ots_ddl_other;
SET ROLE regress_ots_ddl_other;
SELECT ots.update_table('ddl_own.owned', max_versions => 2);
RESET ROLE;
REVOKE regress_ots_ddl_owner FROM regress_ots_ddl_other;
-- the owner changes and deletes it
SET ROLE regress_ots_ddl_owner;
SELECT ots.update_table('ddl_own.owned', max_versions => 4);
SELECT ots.describe_table('ddl_own.owned') -> 'table_options' ->> 'max_versions' AS max_versions;
SELECT ots.delete_table('ddl_own.owned');
RESET ROLE;
SELECT count(*) FROM pg_class WHERE relnamespace = 'ddl_own'::regnamespace;

--
-- row calls route through a copy of the partition bounds, which must follow
-- partitions changed outside ots in the same session: a detached partition
-- no longer holds its keys, and the key is found again once it is back
--
SELECT ots.create_table('ddl_route', 'k string', partitions => 2);
SELECT (ots.put_row('ddl_route', '{"k": "a"}', '{"v": 1}')).consumed;
SELECT d.tableoid::regclass AS route_leaf, pg_get_expr(c.relpartbound, c.oid) AS route_bound
  FROM "ddl_route$data" d JOIN pg_class c ON c.oid = d.tableoid \gset
ALTER TABLE "ddl_route$data" DETACH PARTITION :route_leaf;
SELECT ots.get_row('ddl_route', '{"k": "a"}');
ALTER TABLE "ddl_route$data" ATTACH PARTITION :route_leaf :route_bound;
SELECT attributes FROM ots.get_row('ddl_route', '{"k": "a"}');

--
-- clean up
--
SELECT ots.delete_table(format('%I.%s', schema_name, table_name))
  FROM ots.list_table()
 WHERE schema_name IN ('public', 'ddl_s', 'DDL Schema')
   AND (table_name LIKE 'ddl\_%' OR table_name IN ('q1', 'q2', 'q3', 'StudentCard'))
 ORDER BY schema_name COLLATE "C", table_name COLLATE "C";
DROP SCHEMA ddl_s, "DDL Schema", ddl_own;
DROP ROLE regress_ots_ddl_owner;
DROP ROLE regress_ots_ddl_other;
SELECT count(*) FROM ots.list_table()
 WHERE table_name LIKE 'ddl\_%' OR table_name IN ('q1', 'q2', 'q3', 'StudentCard');
