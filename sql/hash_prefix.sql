-- hash_prefix: ots.hash_prefix(value, n), and tables created with
-- hash_prefix_length, whose rows are stored and partitioned by the prefix of
-- their partition key while callers use natural keys.
-- Quiet: the extension may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

--
-- ots.hash_prefix: the first n hex digits of the MD5 of the key's text form
--
-- String: MD5 of the UTF-8 bytes
SELECT v, ots.hash_prefix(v, 4) AS prefix, left(md5(v), 4) AS md5,
       ots.hash_prefix(v, 4) = left(md5(v), 4) AS same
  FROM (VALUES ('x'), (''), ('user1'), ('世界')) t(v) ORDER BY v COLLATE "C";
-- Integer: MD5 of the decimal text
SELECT v, ots.hash_prefix(v, 8) AS prefix, left(md5(v::text), 8) AS md5,
       ots.hash_prefix(v, 8) = left(md5(v::text), 8) AS same
  FROM (VALUES (0::bigint), (123), (-1), (-9223372036854775808), (9223372036854775807)) t(v)
 ORDER BY v;
-- Binary: MD5 of the bytes
SELECT v, ots.hash_prefix(v, 3) AS prefix, left(md5(v), 3) AS md5,
       ots.hash_prefix(v, 3) = left(md5(v), 3) AS same
  FROM (VALUES ('\x'::bytea), ('\x00ff'), ('\x78')) t(v) ORDER BY v;
-- the text 'x' and the bytes 0x78 have the same prefix; the number 5 and the text '5' too
SELECT ots.hash_prefix('x'::text, 6) = ots.hash_prefix('\x78'::bytea, 6) AS text_eq_bytes,
       ots.hash_prefix(5, 6) = ots.hash_prefix('5'::text, 6) AS int_eq_text;
-- n from 1 to 8
SELECT n, ots.hash_prefix('x', n) FROM generate_series(1, 8) n ORDER BY n;
-- n out of range
SELECT ots.hash_prefix('x', 0);
SELECT ots.hash_prefix('x', 9);
SELECT ots.hash_prefix(1, -1);
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT ots.hash_prefix('\x00'::bytea, 33);
\set VERBOSITY terse
-- NULL in, NULL out
SELECT ots.hash_prefix(NULL::text, 4) IS NULL AS null_value, ots.hash_prefix('x', NULL) IS NULL AS null_n;

--
-- a String-keyed table with hash_prefix_length 4 and 4 partitions
--
SELECT ots.create_table('hp', 'k string, n integer', hash_prefix_length => 4, partitions => 4);
-- the 16^4 prefixes are split into 4 equal RANGE partitions
SELECT ots.describe_table('hp') -> 'hash_prefix_length' AS hash_prefix_length;
SELECT p ->> 'name' AS name, p ->> 'bound' AS bound
  FROM jsonb_array_elements(ots.describe_table('hp') -> 'partitions') p
 ORDER BY p ->> 'name' COLLATE "C";
SELECT pg_get_partkeydef('"hp$data"'::regclass) AS partition_key;
SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
 WHERE i.indrelid = '"hp$data"'::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum);
-- callers write natural keys
SELECT count(*) FROM generate_series(1, 200) g,
	LATERAL ots.put_row('hp', jsonb_build_object('k', 'user' || g, 'n', g), jsonb_build_object('v', g));
SELECT count(*) FROM generate_series(1, 200) g,
	LATERAL ots.put_row('hp', jsonb_build_object('k', 'user' || g, 'n', -g), jsonb_build_object('v', -g));
-- every stored row has "$hash" = the prefix of its key read as a number ...
SELECT count(*) AS stored,
       count(*) FILTER (WHERE "$hash" = ('x' || ots.hash_prefix(k, 4))::bit(16)::int) AS hash_ok
  FROM "hp$data";
-- ... and lies in the partition whose range holds that number
SELECT d.tableoid::regclass AS partition, count(*) AS rows,
       min("$hash") AS min_hash, max("$hash") AS max_hash,
       bool_and(d.tableoid::regclass::text = format('"hp$p%s"', "$hash" / 16384)) AS right_partition
  FROM "hp$data" d GROUP BY d.tableoid ORDER BY d.tableoid::regclass::text;
-- both rows of one partition key share a partition
SELECT count(*) AS keys_split_across_partitions FROM (
	SELECT k FROM "hp$data" GROUP BY k HAVING count(DISTINCT tableoid) > 1) s;
-- the sequential keys spread over all partitions
SELECT count(DISTINCT tableoid) AS partitions_used FROM "hp$data";
-- a row read, updated and deleted by its natural key
SELECT * FROM ots.get_row('hp', '{"k": "user7", "n": 7}');
SELECT (ots.update_row('hp', '{"k": "user7", "n": 7}', put => '{"w": "x"}')).consumed;
SELECT (ots.get_row('hp', '{"n": 7, "k": "user7"}')).attributes;
SELECT ots.put_row('hp', '{"k": "user7", "n": 7}', '{"v": 70}');
SELECT (ots.get_row('hp', '{"k": "user7", "n": 7}')).attributes;
SELECT (ots.delete_row('hp', '{"k": "user7", "n": -7}')).consumed;
SELECT ots.get_row('hp', '{"k": "user7", "n": -7}');
SELECT count(*) FROM "hp$data" WHERE k = 'user7';
-- the prefix is never part of the API: it is not a key column
SELECT ots.get_row('hp', '{"$hash": 1, "k": "user7", "n": 7}');
SELECT ots.put_row('hp', '{"$hash": 1, "k": "user7"}');
-- the view shows the natural key only
SELECT attname FROM pg_attribute WHERE attrelid = 'hp'::regclass AND attnum > 0 ORDER BY attnum;
SELECT * FROM hp WHERE k IN ('user7', 'user8') ORDER BY k, n;
SELECT count(*) FROM hp;

--
-- Integer and Binary partition keys
--
SELECT ots.create_table('hp_int', 'id integer', hash_prefix_length => 2, partitions => 3);
SELECT p ->> 'name' AS name, p ->> 'bound' AS bound
  FROM jsonb_array_elements(ots.describe_table('hp_int') -> 'partitions') p
 ORDER BY p ->> 'name' COLLATE "C";
SELECT count(*) FROM generate_series(-50, 49) g, LATERAL ots.put_row('hp_int', jsonb_build_object('id', g));
SELECT count(*) AS stored,
       count(*) FILTER (WHERE "$hash" = ('x' || ots.hash_prefix(id, 2))::bit(8)::int) AS hash_ok,
       count(*) FILTER (WHERE "$hash" >= 0 AND "$hash" < 256) AS in_range
  FROM "hp_int$data";
SELECT tableoid::regclass AS partition, count(*) AS rows, min("$hash") AS min_hash, max("$hash") AS max_hash
  FROM "hp_int$data" GROUP BY tableoid ORDER BY tableoid::regclass::text;
SELECT (ots.get_row('hp_int', '{"id": -50}')).primary_key;

SELECT ots.create_table('hp_bin', 'b binary, s string', hash_prefix_length => 8, partitions => 3);
SELECT p ->> 'name' AS name, p ->> 'bound' AS bound
  FROM jsonb_array_elements(ots.describe_table('hp_bin') -> 'partitions') p
 ORDER BY p ->> 'name' COLLATE "C";
SELECT count(*) FROM generate_series(0, 255) g,
	LATERAL ots.put_row('hp_bin', jsonb_build_object('b', jsonb_build_object('$binary',
		encode(set_byte('\x00'::bytea, 0, g), 'base64')), 's', 'x'));
SELECT count(*) AS stored,
       count(*) FILTER (WHERE "$hash" = ('x' || ots.hash_prefix(b, 8))::bit(32)::bigint) AS hash_ok
  FROM "hp_bin$data";
SELECT tableoid::regclass AS partition, count(*) AS rows,
       bool_and("$hash" >= 4294967296 * substring(tableoid::regclass::text FROM '[0-9]+')::int / 3
            AND "$hash" < 4294967296 * (substring(tableoid::regclass::text FROM '[0-9]+')::int + 1) / 3)
       AS in_bounds
  FROM "hp_bin$data" GROUP BY tableoid ORDER BY tableoid::regclass::text;
SELECT (ots.get_row('hp_bin', '{"b": {"$binary": "/w=="}, "s": "x"}')).primary_key;
SELECT * FROM hp_bin WHERE b = '\xff' ORDER BY b, s;

--
-- clean up
--
SELECT ots.delete_table('hp');
SELECT ots.delete_table('hp_int');
SELECT ots.delete_table('hp_bin');
