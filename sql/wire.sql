-- The wire functions otsd calls (src/api/wire.c): ots's row operations with
-- rows returned in Tablestore's PlainBuffer.  The bytes below are checked by
-- hand against the format (src/format/plainbuffer_wire.h); the gateway suite
-- decodes them with the official Node SDK (test/gateway/sdk_rows.test.js).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
RESET client_min_messages;

SELECT ots.create_table('wire_t', 'id integer, k string', max_versions => 3,
	max_version_offset => 9223372036854);
SELECT ots.put_row('wire_t', '{"id": 1, "k": "a"}', '{"s": [{"ts": 1000, "value": "x"}]}');

-- one string version at ts 1000:
--   75000000                  header
--   01                        key
--   03 04 02000000 6964 05 09000000 00 0100000000000000 0a <crc>          id = 1
--   03 04 01000000 6b 05 06000000 03 01000000 61 0a <crc>                 k = 'a'
--   02                        attributes
--   03 04 01000000 73 05 06000000 03 01000000 78 07 e803000000000000 0a <crc>  s = 'x' @ 1000
--   09 <row crc>
SELECT "row", read_cu, write_cu FROM ots.wire_get_row('wire_t', '{"id": 1, "k": "a"}');

-- every type, two versions newest first, columns in name order
SELECT ots.update_row('wire_t', '{"id": 1, "k": "a"}',
	put => '{"s": [{"ts": 2000, "value": "yz"}], "i": [{"ts": 1500, "value": -2}],
	         "d": [{"ts": 1500, "value": 1.5}], "b": [{"ts": 1500, "value": true}],
	         "x": [{"ts": 1500, "value": {"$binary": "AAE="}}]}');
SELECT "row" FROM ots.wire_get_row('wire_t', '{"id": 1, "k": "a"}', max_versions => 3);
-- what get_row returns of it
SELECT attributes FROM ots.get_row('wire_t', '{"id": 1, "k": "a"}', max_versions => 3,
	with_timestamps => true);
-- the same read options as get_row: one version, two columns
SELECT "row" FROM ots.wire_get_row('wire_t', '{"id": 1, "k": "a"}', max_versions => 1,
	columns_to_get => '{s,b}');
-- no row: no bytes, one read unit, as GetRow answers
SELECT "row", length("row"), read_cu, write_cu FROM ots.wire_get_row('wire_t', '{"id": 2, "k": "a"}');
-- a filter that drops the row
SELECT length("row") FROM ots.wire_get_row('wire_t', '{"id": 1, "k": "a"}',
	filter => '{"column": "i", "comparator": ">", "value": 0}');

-- errors and privileges are get_row's
SELECT * FROM ots.wire_get_row('wire_t', '{"id": 1}');
SELECT * FROM ots.wire_get_row('no_such_table', '{"id": 1, "k": "a"}');
CREATE ROLE wire_nobody;
SET ROLE wire_nobody;
SELECT * FROM ots.wire_get_row('wire_t', '{"id": 1, "k": "a"}');
RESET ROLE;
DROP ROLE wire_nobody;

SELECT ots.delete_table('wire_t');
