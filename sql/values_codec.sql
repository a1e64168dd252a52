-- values_codec: the jsonb encoding of the five value types through put_row /
-- get_row, cells with timestamps, and the ots.cells type's text and binary I/O.
-- Quiet: the extension may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

-- max_version_offset => INT64_MAX/1000000 seconds accepts any historical timestamp
SELECT ots.create_table('vc', 'k string', max_versions => 10,
	max_version_offset => 9223372036854, partitions => 1);

--
-- round trips of every type
--
-- String: ASCII, unicode (2-, 3- and 4-byte UTF-8), empty, JSON escapes
SELECT ots.put_row('vc', '{"k": "str"}',
	'{"ascii": "hello", "unicode": "héllo 世界 🎉", "empty": "", "escapes": "a\"b\\c\n\t\u0001"}');
SELECT (ots.get_row('vc', '{"k": "str"}')).attributes;
SELECT octet_length((ots.get_row('vc', '{"k": "str"}')).attributes ->> 'unicode') AS unicode_bytes;
-- Integer: 0, -1, int64 min and max
SELECT ots.put_row('vc', '{"k": "int"}',
	'{"zero": 0, "minus_one": -1, "min": -9223372036854775808, "max": 9223372036854775807}');
SELECT (ots.get_row('vc', '{"k": "int"}')).attributes;
-- a number written with an exponent but no fraction in its jsonb form is an Integer
SELECT ots.put_row('vc', '{"k": "int"}', '{"e": 1E+2, "e2": 1.0e15}');
SELECT (ots.get_row('vc', '{"k": "int"}')).attributes;
-- Double: a fraction in the jsonb text, or {"$double": n}; whole Doubles print as n.0
SELECT ots.put_row('vc', '{"k": "dbl"}',
	'{"half": 2.5, "three": 3.0, "neg": -0.5, "small": 1e-7, "tenth": 0.1,
	  "sum": 0.30000000000000004, "whole": {"$double": 3}, "zero": 0.0,
	  "huge": {"$double": 1e300}, "neg_huge": {"$double": -1e300},
	  "max": {"$double": 1.7976931348623157e308}, "denorm": {"$double": 5e-324},
	  "e15": {"$double": 1e15}}');
SELECT key, value, jsonb_typeof(value) AS json_type
  FROM jsonb_each((ots.get_row('vc', '{"k": "dbl"}')).attributes) ORDER BY key COLLATE "C";
-- read as float8 (which prints the shortest exact form) they are the doubles written
SELECT key,
       coalesce(value ->> '$double', value #>> '{}')::float8 AS as_float8
  FROM jsonb_each((ots.get_row('vc', '{"k": "dbl"}')).attributes) ORDER BY key COLLATE "C";
-- and writing get_row's output back stores the same values (same types)
SELECT ots.put_row('vc', '{"k": "dbl2"}', (ots.get_row('vc', '{"k": "dbl"}')).attributes);
SELECT (ots.get_row('vc', '{"k": "dbl2"}')).attributes::text = (ots.get_row('vc', '{"k": "dbl"}')).attributes::text
       AS same_output,
       ((ots.get_row('vc', '{"k": "dbl2"}')).attributes -> 'huge' ->> '$double')::float8 = 1e300
       AS huge_is_1e300;
-- Doubles printed without an exponent are built from their digits when 18 or
-- fewer (17 significant, leading zeros, negative whole), else parsed as text;
-- Integers either side of the int32 range take both conversion paths
SELECT ots.put_row('vc', '{"k": "digits"}',
	'{"sig17": 123456789.12345679, "lead0": 0.00012345678901234567, "neg_whole": -2.0,
	  "trailing": 100.000, "e14": 99999999999999.5, "i32max": 2147483647, "above": 2147483648,
	  "i32min": -2147483648, "below": -2147483649}');
SELECT key, value, jsonb_typeof(value) AS json_type, value::text::float8 AS as_float8
  FROM jsonb_each((ots.get_row('vc', '{"k": "digits"}')).attributes) ORDER BY key COLLATE "C";
-- get_row writes the latest-values map in jsonb's binary form itself: a map
-- of 70 columns (140 entries: several JEntry offset strides of 32), keys of
-- 2 to 9 bytes, every type, each value as written; it must equal, contain
-- and be contained in the map PostgreSQL builds, print the same and have
-- the same size (same layout and padding)
SELECT jsonb_object_agg(repeat('k', i % 7 + 1) || i,
	CASE i % 6 WHEN 0 THEN to_jsonb(i - 35) WHEN 1 THEN to_jsonb(i + 0.5)
	           WHEN 2 THEN to_jsonb(repeat('s', i % 9)) WHEN 3 THEN to_jsonb(i % 2 = 0)
	           WHEN 4 THEN jsonb_build_object('$binary', encode(decode(repeat('ab', i % 5), 'hex'), 'base64'))
	           ELSE jsonb_build_object('$double', 1e300) END) AS wide
  FROM generate_series(0, 69) i \gset
SELECT ots.put_row('vc', '{"k": "wide"}', :'wide');
SELECT a = w AS equal, a @> w AND w @> a AS contain_each_other, a::text = w::text AS same_text,
       pg_column_size(a) = pg_column_size(w) AS same_size,
       (SELECT count(*) FROM jsonb_each(a)) AS pairs,
       a -> 'kkkkkkk69' AS last, a -> 'k63' AS after_stride
  FROM (SELECT (ots.get_row('vc', '{"k": "wide"}')).attributes AS a, :'wide'::jsonb AS w) s;
SELECT ots.delete_row('vc', '{"k": "wide"}');
-- Boolean
SELECT ots.put_row('vc', '{"k": "bool"}', '{"yes": true, "no": false}');
SELECT (ots.get_row('vc', '{"k": "bool"}')).attributes;
-- Binary: {"$binary": base64}, empty too
SELECT ots.put_row('vc', '{"k": "bin"}',
	'{"bytes": {"$binary": "AAEC/w=="}, "empty": {"$binary": ""}, "text": {"$binary": "aGk="}}');
SELECT (ots.get_row('vc', '{"k": "bin"}')).attributes;
SELECT decode((ots.get_row('vc', '{"k": "bin"}')).attributes -> 'bytes' ->> '$binary', 'base64') AS bytes;
-- one column may hold different types in different versions
SELECT ots.put_row('vc', '{"k": "mixed"}',
	'{"c": [{"value": 1, "ts": 1000}, {"value": "one", "ts": 2000}, {"value": 1.0, "ts": 3000},
	        {"value": true, "ts": 4000}, {"value": {"$binary": "AQ=="}, "ts": 5000}]}');
SELECT (ots.get_row('vc', '{"k": "mixed"}', max_versions => 10)).attributes;
-- the view shows the same encoding
SELECT k, attributes FROM vc WHERE k IN ('bool', 'bin', 'mixed') ORDER BY k;

--
-- primary-key values use the same encoding
--
SELECT ots.create_table('vc_pk', 's string, i integer, b binary', partitions => 2);
SELECT ots.put_row('vc_pk', '{"s": "", "i": -9223372036854775808, "b": {"$binary": ""}}', '{"n": 1}');
SELECT ots.put_row('vc_pk', '{"s": "世界", "i": 9223372036854775807, "b": {"$binary": "/wA="}}', '{"n": 2}',
	return_type => 'RT_PK');
SELECT * FROM ots.get_row('vc_pk', '{"s": "", "i": -9223372036854775808, "b": {"$binary": ""}}');
SELECT * FROM ots.get_row('vc_pk', '{"b": {"$binary": "/wA="}, "i": 9223372036854775807, "s": "世界"}');
SELECT * FROM vc_pk ORDER BY s, i, b;
-- an Integer key written as a Double, out of range, invalid base64, null
SELECT ots.put_row('vc_pk', '{"s": "x", "i": 1.5, "b": {"$binary": ""}}');
SELECT ots.put_row('vc_pk', '{"s": "x", "i": {"$double": 1}, "b": {"$binary": ""}}');
SELECT ots.put_row('vc_pk', '{"s": "x", "i": 9223372036854775808, "b": {"$binary": ""}}');
SELECT ots.put_row('vc_pk', '{"s": "x", "i": 1, "b": {"$binary": "!"}}');
SELECT ots.put_row('vc_pk', '{"s": null, "i": 1, "b": {"$binary": ""}}');
SELECT ots.delete_table('vc_pk');

--
-- cells with timestamps and arrays of versions
--
-- versions come back newest first, whatever the order written
SELECT ots.put_row('vc', '{"k": "ver"}',
	'{"a": [{"value": 1, "ts": 1000}, {"value": 3, "ts": 3000}, {"value": 2, "ts": 2000}],
	  "b": {"value": "one", "ts": 1466762754000}}');
SELECT (ots.get_row('vc', '{"k": "ver"}', max_versions => 10)).attributes;
-- without max_versions: the latest values, flat
SELECT (ots.get_row('vc', '{"k": "ver"}')).attributes;
-- two cells with the same timestamp in one write: the later one wins
SELECT ots.put_row('vc', '{"k": "ver"}', '{"a": [{"value": 1, "ts": 1000}, {"value": 2, "ts": 1000}]}');
SELECT (ots.get_row('vc', '{"k": "ver"}', max_versions => 10)).attributes;
-- plain values and cells without ts are stamped by the server (newest, so first)
SELECT ots.put_row('vc', '{"k": "ver"}', '{"a": [{"value": 1, "ts": 1000}, {"value": "now"}]}');
SELECT jsonb_path_query_array((ots.get_row('vc', '{"k": "ver"}', max_versions => 10)).attributes,
	'$.a[*].value') AS values_newest_first;
-- timestamps at the ends of [0, INT64_MAX/1000)
SELECT ots.put_row('vc', '{"k": "ts"}',
	'{"a": [{"value": "first", "ts": 0}, {"value": "last", "ts": 9223372036854774}]}');
SELECT (ots.get_row('vc', '{"k": "ts"}', max_versions => 10)).attributes;
-- timestamp -1
SELECT ots.put_row('vc', '{"k": "bad"}', '{"a": {"value": 1, "ts": -1}}');
-- timestamp INT64_MAX/1000
SELECT ots.put_row('vc', '{"k": "bad"}', '{"a": {"value": 1, "ts": 9223372036854775}}');
-- timestamp beyond int64
SELECT ots.put_row('vc', '{"k": "bad"}', '{"a": {"value": 1, "ts": 92233720368547758070}}');
-- a fractional or string timestamp
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT ots.put_row('vc', '{"k": "bad"}', '{"a": {"value": 1, "ts": 1.5}}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"a": {"value": 1, "ts": "1000"}}');
\set VERBOSITY terse
-- INT64_MAX/1000 - 1 is outside the default max_version_offset (one day) of another table
SELECT ots.create_table('vc_default', 'k string', partitions => 1);
SELECT ots.put_row('vc_default', '{"k": "bad"}', '{"late": {"value": 1, "ts": 9223372036854774}}');
-- and so is a timestamp from 2016
SELECT ots.put_row('vc_default', '{"k": "bad"}', '{"early": {"value": 1, "ts": 1466762754000}}');
-- the whole write is rejected: nothing was stored
SELECT ots.get_row('vc_default', '{"k": "bad"}');
SELECT ots.delete_table('vc_default');

--
-- invalid values
--
\set VERBOSITY default
-- int64 max + 1 and min - 1
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": 9223372036854775808}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": -9223372036854775809}');
-- NaN and infinities
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"$double": "NaN"}}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"$double": "Infinity"}}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"$double": "-Infinity"}}');
-- a number beyond the double range is refused, not rounded to infinity
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"$double": 1e400}}');
-- "$double" takes a number or NaN/Infinity, nothing else
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"$double": true}}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"$double": "abc"}}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"$double": "1.5xyz"}}');
-- null is not a value
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": null}');
-- invalid base64, a non-string "$binary"
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"$binary": "!!!"}}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"$binary": "AAE"}}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"$binary": 5}}');
-- an object that is no value and no cell; a nested array
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"a": 1}}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"$binary": "AA==", "$double": 1}}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": [[1]]}');
-- invalid cells: an extra key, ts without value, an empty array of versions
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"value": 1, "ts": 1, "x": 2}}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"ts": 1}}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": []}');
-- a cell's value must itself be a value
SELECT ots.put_row('vc', '{"k": "bad"}', '{"x": {"value": {"value": 1}, "ts": 1}}');
-- attributes must be an object
SELECT ots.put_row('vc', '{"k": "bad"}', '[1]');
SELECT ots.put_row('vc', '{"k": "bad"}', '"x"');
\set VERBOSITY terse
-- invalid column names
SELECT ots.put_row('vc', '{"k": "bad"}', '{"0x": 1}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"": 1}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"a-b": 1}');
SELECT ots.put_row('vc', '{"k": "bad"}', '{"中文": 1}');
SELECT ots.put_row('vc', '{"k": "bad"}', jsonb_build_object(repeat('c', 256), 1));
-- 255 bytes is the longest column name
SELECT ots.put_row('vc', '{"k": "longname"}', jsonb_build_object(repeat('c', 255), 1));
SELECT length(key) FROM jsonb_each((ots.get_row('vc', '{"k": "longname"}')).attributes) ORDER BY key;
-- none of the failed writes stored a row
SELECT ots.get_row('vc', '{"k": "bad"}');

--
-- ots.cells text form: {"row_ts": ms, "cells": {"col": [{"ts": ms, "value": v}, ...]}}
--
SELECT '{"row_ts": 5, "cells": {"a": [{"ts": 2, "value": 1}, {"ts": 1, "value": "x"}]}}'::ots.cells;
-- input in any order comes out sorted: columns by name, versions newest first
SELECT '{"cells": {"b": {"ts": 9, "value": {"$binary": "AA=="}}, "a": [{"ts": 1, "value": 1.0}, {"ts": 3, "value": false}]}, "row_ts": 5}'::ots.cells;
-- a row without columns
SELECT '{"row_ts": 0, "cells": {}}'::ots.cells;
-- the text form of every stored row reads back to the same value
SELECT count(*) AS rows,
       count(*) FILTER (WHERE "$cells"::text::ots.cells::text = "$cells"::text) AS same
  FROM "vc$data" WHERE k <> 'bad';
\set VERBOSITY default
-- a cell without ts
SELECT '{"row_ts": 5, "cells": {"a": 1}}'::ots.cells;
SELECT '{"row_ts": 5, "cells": {"a": {"value": 1}}}'::ots.cells;
-- two cells of a column with the same ts
SELECT '{"row_ts": 5, "cells": {"a": [{"ts": 1, "value": 1}, {"ts": 1, "value": 2}]}}'::ots.cells;
-- wrong shapes
SELECT '{"row_ts": 5}'::ots.cells;
SELECT '{"row_ts": 5, "cells": {}, "x": 1}'::ots.cells;
SELECT '{"row_ts": 5, "cells": 1}'::ots.cells;
SELECT '{"row_ts": 5, "cells": []}'::ots.cells;
SELECT '[]'::ots.cells;
SELECT 'nonsense'::ots.cells;
-- row_ts out of range, or not a number
SELECT '{"row_ts": -1, "cells": {}}'::ots.cells;
SELECT '{"row_ts": "5", "cells": {}}'::ots.cells;
-- values and names are checked as in put_row
SELECT '{"row_ts": 5, "cells": {"0a": {"ts": 1, "value": 1}}}'::ots.cells;
SELECT '{"row_ts": 5, "cells": {"a": {"ts": 1, "value": {"$double": "NaN"}}}}'::ots.cells;
\set VERBOSITY terse

--
-- ots.cells binary form (send/recv): the raw format of src/format/cells.h
--
SELECT ots.cells_send('{"row_ts": 5, "cells": {"a": [{"ts": 2, "value": 1}, {"ts": 1, "value": "x"}]}}');
-- byte by byte (src/format/cells.h):
--   01                  version 1
--   05 00 00 00 00 00 00 00   row_ts = 5 (int64 little-endian)
--   01 00 00 00         ncols = 1 (uint32 LE)
--   00 00 00 00         offset[0] = 0
--   column "a":
--     01 61             name_len 1, "a"
--     02                ncells 2
--     cell ts 2:  06    zigzag varint of row_ts - ts = 3
--                 02    type INTEGER (2)
--                 02    zigzag varint of 1
--     cell ts 1:  01    varint of previous ts - ts = 1
--                 01    type STRING (1)
--                 01 78 length 1, "x"
SELECT ots.cells_send('{"row_ts": 0, "cells": {}}') AS empty_row;
-- version, row_ts 0, ncols 0 and nothing else

-- a binary COPY out and in keeps every value
CREATE TABLE vc_cells (id int PRIMARY KEY, c ots.cells);
INSERT INTO vc_cells
SELECT row_number() OVER (ORDER BY k), "$cells" FROM "vc$data" WHERE k <> 'bad';
INSERT INTO vc_cells VALUES
	(100, '{"row_ts": 0, "cells": {}}'),
	(101, '{"row_ts": 9223372036854774, "cells": {"a": [{"ts": 9223372036854774, "value": -9223372036854775808}, {"ts": 0, "value": 9223372036854775807}]}}'),
	(102, '{"row_ts": 0, "cells": {"a": {"ts": 9223372036854774, "value": "future"}}}');
SELECT current_setting('data_directory') || '/ots_values_codec.bin' AS cells_file \gset
COPY (SELECT id, c FROM vc_cells ORDER BY id) TO :'cells_file' (FORMAT binary);
CREATE TABLE vc_cells_in (id int PRIMARY KEY, c ots.cells);
COPY vc_cells_in FROM :'cells_file' (FORMAT binary);
SELECT count(*) AS copied,
       count(*) FILTER (WHERE i.c::text = o.c::text
                          AND ots.cells_send(i.c) = ots.cells_send(o.c)) AS identical
  FROM vc_cells o JOIN vc_cells_in i USING (id);
SELECT id, c FROM vc_cells_in WHERE id >= 100 ORDER BY id;

-- binary input is validated: corrupted payloads, sent through a bytea column
-- (binary COPY writes a bytea and an ots.cells value as the same raw bytes)
CREATE TABLE vc_raw (id int, c bytea);
-- a valid payload written by hand is accepted
INSERT INTO vc_raw VALUES (1, '\x010500000000000000010000000000000001610206020201010178');
COPY vc_raw TO :'cells_file' (FORMAT binary);
TRUNCATE vc_cells_in;
COPY vc_cells_in FROM :'cells_file' (FORMAT binary);
SELECT * FROM vc_cells_in ORDER BY id;
-- each corruption of that payload (or of another one) is rejected, naming the defect
CREATE TABLE vc_bad (id int PRIMARY KEY, what text, c bytea);
INSERT INTO vc_bad (id, what, c)
SELECT n, what, c FROM (VALUES
	(1, 'empty', '\x'::bytea),
	(2, 'version 3', '\x030500000000000000010000000000000001610206020201010178'),
	(3, 'truncated', '\x0105000000000000000100000000000000016102060202010101'),
	(4, 'trailing byte', '\x01050000000000000001000000000000000161020602020101017800'),
	(5, 'negative row_ts', '\x01ffffffffffffffff0000000000'),
	(6, 'ncols 2^32-1', '\x010500000000000000ffffffff0000000001610206020201010178'),
	(7, 'offset[0] 1', '\x010500000000000000010000000100000001610206020201010178'),
	(8, 'name length 0', '\x010500000000000000010000000000000000610206020201010178'),
	(9, 'name "#"', '\x010500000000000000010000000000000001230206020201010178'),
	(10, 'name starting with a digit', '\x010500000000000000010000000000000001300206020201010178'),
	(11, 'ncells 0', '\x010500000000000000010000000000000001610006020201010178'),
	(12, 'cell ts -1', '\x01050000000000000001000000000000000161020c020201010178'),
	(13, 'equal timestamps', '\x010500000000000000010000000000000001610206020200010178'),
	(14, 'type 9', '\x010500000000000000010000000000000001610206090201010178'),
	(15, 'type 0', '\x010500000000000000010000000000000001610206000201010178'),
	(16, 'non-canonical varint', '\x01050000000000000001000000000000000161020602820001010178'),
	(17, 'string length past the end', '\x010500000000000000010000000000000001610206020201010578'),
	(18, 'invalid UTF-8', '\x0105000000000000000100000000000000016102060202010101ff'),
	(19, 'boolean 2', '\x0105000000000000000100000000000000016101060402'),
	(20, 'double NaN', '\x01050000000000000001000000000000000161010603000000000000f87f'),
	(21, 'double infinity', '\x01050000000000000001000000000000000161010603000000000000f07f'),
	(22, 'columns out of order', '\x010500000000000000020000000000000006000000016201060401016101060401'),
	(23, 'duplicate columns', '\x010500000000000000020000000000000006000000016101060401016101060401'),
	(24, 'ncols 2 with one block', '\x010500000000000000020000000000000006000000016101060401'),
	(25, 'varint of 11 bytes', '\x01050000000000000001000000000000000161010602ffffffffffffffffffff01'),
	(26, 'equal offsets', '\x010500000000000000020000000000000000000000016101060401016201060401'),
	(27, 'offset past the end', '\x01050000000000000002000000000000006400000001610106040101620106040100'),
	(28, 'offset inside a block', '\x010500000000000000020000000000000005000000016101060401016201060401'),
	-- a split row's head (version 2; a good one: \x0205000000000000000700000000000000000101020178)
	(29, 'head: key of kind 6', '\x020500000000000000010000000000000001610206020201010178'),
	(30, 'head: flags 0x04', '\x0205000000000000000700000000000000040101020178'),
	(31, 'head: no key column', '\x0205000000000000000700000000000000000100'),
	(32, 'head: key past the end', '\x0205000000000000000700000000000000000101020278'),
	(33, 'head: trailing byte', '\x020500000000000000070000000000000000010102017800'),
	(34, 'head: key not UTF-8', '\x02050000000000000007000000000000000001010201ff'),
	(35, 'head: newest_ts -1', '\x020500000000000000ffffffffffffffff000101020178')
) v(n, what, c);
-- (for reference: a Boolean cell and a row of two columns as sent)
SELECT ots.cells_send('{"row_ts": 5, "cells": {"a": {"ts": 2, "value": true}}}') AS boolean_row,
       ots.cells_send('{"row_ts": 5, "cells": {"a": {"ts": 2, "value": true}, "b": {"ts": 2, "value": true}}}') AS two_columns;
-- each row of vc_bad goes through a binary COPY into the ots.cells column
CREATE FUNCTION pg_temp.copy_in(bad_id int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	file text := current_setting('data_directory') || '/ots_values_codec.bin';
	detail text;
BEGIN
	EXECUTE format('COPY (SELECT id, c FROM vc_bad WHERE id = %s) TO %L (FORMAT binary)', bad_id, file);
	EXECUTE format('COPY vc_cells_in FROM %L (FORMAT binary)', file);
	RETURN 'accepted';
EXCEPTION WHEN invalid_binary_representation THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	RETURN SQLERRM || ': ' || detail;
END
$$;
SELECT id, what, pg_temp.copy_in(id) AS result FROM vc_bad ORDER BY id;
SELECT count(*) AS stored FROM vc_cells_in WHERE id > 1;

--
-- clean up
--
DROP TABLE vc_cells, vc_cells_in, vc_raw, vc_bad;
SELECT ots.delete_table('vc');
