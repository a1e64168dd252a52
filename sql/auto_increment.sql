-- auto_increment: generated primary-key values ({"$auto_increment": true})
-- returned by RT_PK, increasing per partition key, and the placeholder's rules.
-- Generated values are printed only as relative order.
-- Quiet: the extension may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

SELECT ots.create_table('ai', 'part string, id integer auto_increment, sub integer');

-- put_row with the placeholder and RT_PK returns the whole generated key
CREATE TEMP TABLE ai_keys (n serial, pk jsonb);
WITH r AS (
  SELECT * FROM ots.put_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 0}',
                            '{"v": 1}', return_type => 'RT_PK')
), saved AS (
  INSERT INTO ai_keys (pk) SELECT primary_key FROM r
)
SELECT primary_key - 'id' AS key_without_id, jsonb_typeof(primary_key->'id') AS id_type,
       attributes IS NULL AS no_attributes, consumed
  FROM r;
-- more rows in two partitions, interleaved
INSERT INTO ai_keys (pk)
  SELECT primary_key FROM ots.put_row('ai', '{"part": "p2", "id": {"$auto_increment": true}, "sub": 0}',
                                      '{"v": 2}', return_type => 'RT_PK');
INSERT INTO ai_keys (pk)
  SELECT primary_key FROM ots.put_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 0}',
                                      '{"v": 3}', return_type => 'RT_PK');
INSERT INTO ai_keys (pk)
  SELECT primary_key FROM ots.put_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 1}',
                                      '{"v": 4}', return_type => 'RT_PK');
INSERT INTO ai_keys (pk)
  SELECT primary_key FROM ots.put_row('ai', '{"part": "p2", "id": {"$auto_increment": true}, "sub": 0}',
                                      '{"v": 5}', return_type => 'RT_PK');
-- update_row may generate a key too
INSERT INTO ai_keys (pk)
  SELECT primary_key FROM ots.update_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 0}',
                                         put => '{"v": 6}', return_type => 'RT_PK');
-- within each partition key the values increase in write order, and all are distinct
SELECT pk->>'part' AS part, n AS write_order,
       (pk->>'id')::bigint > lag((pk->>'id')::bigint) OVER (PARTITION BY pk->>'part' ORDER BY n) AS greater_than_previous
  FROM ai_keys ORDER BY part, n;
SELECT count(DISTINCT pk->'id') AS distinct_ids, count(*) AS keys FROM ai_keys;
-- every returned key reads back its row
SELECT k.n, g.attributes
  FROM ai_keys k, LATERAL ots.get_row('ai', k.pk) g ORDER BY k.n;
-- the view shows the generated keys as plain int8 values
SELECT part, sub, attributes, rank() OVER (PARTITION BY part ORDER BY id) AS id_rank
  FROM ai ORDER BY part, id;

-- without RT_PK the row is written and nothing is returned
SELECT primary_key, attributes FROM ots.put_row('ai', '{"part": "p3", "id": {"$auto_increment": true}, "sub": 0}', '{"v": 7}');
SELECT count(*) AS p3_rows FROM ai WHERE part = 'p3';
-- capacity units count the generated Integer as 8 bytes: 4+2 + 2+8 + 3+8 + v 9 = 36 -> 1
SELECT consumed FROM ots.put_row('ai', '{"part": "p3", "id": {"$auto_increment": true}, "sub": 0}', '{"v": 8}');

-- an explicit value for the auto-increment column is a normal write
SELECT primary_key, consumed FROM ots.put_row('ai', '{"part": "p4", "id": 1000000, "sub": 0}', '{"v": 9}',
  return_type => 'RT_PK');
SELECT attributes FROM ots.get_row('ai', '{"part": "p4", "id": 1000000, "sub": 0}');
-- ... and may carry conditions
SELECT consumed FROM ots.update_row('ai', '{"part": "p4", "id": 1000000, "sub": 0}', put => '{"w": 1}',
  condition => 'EXPECT_EXIST', column_condition => '{"column": "v", "comparator": "=", "value": 9}');
SELECT consumed FROM ots.delete_row('ai', '{"part": "p4", "id": 1000000, "sub": 0}', condition => 'EXPECT_EXIST');

-- the placeholder allows only row existence IGNORE ...
SELECT consumed FROM ots.put_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 0}', '{"v": 0}',
  condition => 'EXPECT_EXIST');
SELECT consumed FROM ots.put_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 0}', '{"v": 0}',
  condition => 'EXPECT_NOT_EXIST');
SELECT consumed FROM ots.update_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 0}',
  put => '{"v": 0}', condition => 'EXPECT_EXIST');
SELECT consumed FROM ots.update_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 0}',
  put => '{"v": 0}', condition => 'EXPECT_NOT_EXIST');
-- ... and no column condition
SELECT consumed FROM ots.put_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 0}', '{"v": 0}',
  column_condition => '{"column": "v", "comparator": "=", "value": 1}');
SELECT consumed FROM ots.update_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 0}',
  put => '{"v": 0}', column_condition => '{"column": "v", "comparator": "=", "value": 1}');
-- it cannot be read or deleted
SELECT consumed FROM ots.get_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 0}');
SELECT consumed FROM ots.delete_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 0}');
SELECT consumed FROM ots.delete_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 0}',
  condition => 'EXPECT_EXIST');
-- on a column that is not AUTO_INCREMENT it is a type mismatch
SELECT consumed FROM ots.put_row('ai', '{"part": {"$auto_increment": true}, "id": 1, "sub": 0}', '{"v": 0}');
SELECT consumed FROM ots.put_row('ai', '{"part": "p1", "id": 1, "sub": {"$auto_increment": true}}', '{"v": 0}');
SELECT ots.create_table('ai_plain', 'part string, id integer');
SELECT consumed FROM ots.put_row('ai_plain', '{"part": "p1", "id": {"$auto_increment": true}}', '{"v": 0}');
-- none of the rejected writes left a row
SELECT part, count(*) AS rows FROM ai GROUP BY part ORDER BY part;
SELECT count(*) AS rows FROM ai_plain;

-- a generated key never replaces a stored row.  PostgreSQL 15's logical
-- replication does not carry sequences, so on a subscriber (as after a
-- data-only restore or a setval) the sequence can be behind the rows: a
-- write generating a key a row holds gets a value past the rows of its
-- partition key, on every write path; the sequence, one for every
-- partition key, is not moved to one partition key's rows
SELECT ots.create_table('ai_behind', 'part string, id integer auto_increment', partitions => 2,
						defined_columns => 'v integer');
SELECT count(*) AS written
  FROM generate_series(1, 10) i,
	   LATERAL ots.put_row('ai_behind', '{"part": "p1", "id": {"$auto_increment": true}}', jsonb_build_object('v', i));
CREATE FUNCTION pg_temp.behind() RETURNS bigint LANGUAGE sql AS $$ SELECT setval('"ai_behind$seq"', 1, false) $$;
SELECT pg_temp.behind();
SELECT primary_key FROM ots.put_row('ai_behind', '{"part": "p1", "id": {"$auto_increment": true}}', '{"v": 101}',
  return_type => 'RT_PK');
SELECT pg_temp.behind();
SELECT primary_key FROM ots.update_row('ai_behind', '{"part": "p1", "id": {"$auto_increment": true}}',
  put => '{"v": 102}', return_type => 'RT_PK');
SELECT pg_temp.behind();
SELECT "index", is_ok, primary_key
  FROM ots.batch_write_row('[{"table_name": "ai_behind", "rows": [
	{"type": "PUT", "primary_key": {"part": "p1", "id": {"$auto_increment": true}}, "attributes": {"v": 103}, "return_type": "RT_PK"},
	{"type": "PUT", "primary_key": {"part": "p1", "id": {"$auto_increment": true}}, "attributes": {"v": 104}, "return_type": "RT_PK"}]}]')
 ORDER BY "index";
SELECT pg_temp.behind();
SELECT "index", is_ok, primary_key
  FROM ots.batch_write_row('[{"table_name": "ai_behind", "rows": [
	{"type": "PUT", "primary_key": {"part": "p1", "id": {"$auto_increment": true}}, "attributes": {"v": 105}, "return_type": "RT_PK"}]}]',
	is_atomic => true);
SELECT pg_temp.behind();
INSERT INTO ai_behind (part, v) VALUES ('p1', 106) RETURNING part, id, v;
SELECT pg_temp.behind();
COPY ai_behind (part, v) FROM stdin;
p1	107
p1	108
\.
-- every row is there, none replaced; the sequence is where the writes'
-- nextval calls left it (behind() set it back before each)
SELECT part, id, v FROM ai_behind ORDER BY part, id;
SELECT last_value FROM "ai_behind$seq";
-- a partition key without rows takes the sequence's value as it comes
SELECT pg_temp.behind();
SELECT primary_key FROM ots.put_row('ai_behind', '{"part": "p2", "id": {"$auto_increment": true}}', '{"v": 201}',
  return_type => 'RT_PK');
-- a key column after the AUTO_INCREMENT one: the value passes every row of the partition key
SELECT setval('"ai$seq"', 1, false);
SELECT primary_key - 'part' AS key_without_part
  FROM ots.put_row('ai', '{"part": "p1", "id": {"$auto_increment": true}, "sub": 0}', '{"v": 10}',
				   return_type => 'RT_PK');
SELECT (attributes->>'v')::int = 10 AS newest_is_largest FROM ai WHERE part = 'p1' ORDER BY id DESC LIMIT 1;
SELECT part, count(*) AS rows FROM ai GROUP BY part ORDER BY part;

-- ots.sync_auto_increment moves sequences past the rows (after a failover or
-- a restore): of one table, or of every table the caller owns
SELECT pg_temp.behind();
SELECT * FROM ots.sync_auto_increment('ai_behind');
SELECT primary_key FROM ots.put_row('ai_behind', '{"part": "p2", "id": {"$auto_increment": true}}', '{"v": 202}',
  return_type => 'RT_PK');
SELECT pg_temp.behind();
SELECT setval('"ai$seq"', 1, false);
SELECT * FROM ots.sync_auto_increment() WHERE table_name IN ('ai', 'ai_behind') ORDER BY table_name;
-- a table without rows, or without an AUTO_INCREMENT column
SELECT * FROM ots.sync_auto_increment('ai_plain');
-- only the owner moves a table's sequence
CREATE ROLE regress_ots_ai_other LOGIN;
GRANT USAGE ON SCHEMA public TO regress_ots_ai_other;
GRANT SELECT, INSERT, UPDATE ON "ai_behind$data", ai_behind TO regress_ots_ai_other;
SET ROLE regress_ots_ai_other;
SELECT * FROM ots.sync_auto_increment('ai_behind');
SELECT count(*) AS owned FROM ots.sync_auto_increment();
-- a writer without any right on the sequence gets a value past the rows
RESET ROLE;
SELECT pg_temp.behind();
SET ROLE regress_ots_ai_other;
SELECT primary_key FROM ots.put_row('ai_behind', '{"part": "p2", "id": {"$auto_increment": true}}', '{"v": 203}',
  return_type => 'RT_PK');
RESET ROLE;
SELECT part, id, v FROM ai_behind WHERE part = 'p2' ORDER BY id;

-- one partition key's rows never use up or move the sequence of the others.
-- A writer (INSERT and UPDATE on the table, nothing on the sequence) stores
-- the largest Integer under its own partition key, and a row at the value
-- the sequence hands out next (and the one after): the next key generated
-- there has no value left past its rows and is refused (alone in a batch);
-- the sequence is where plain nextval calls leave it, and the owner's
-- partition keys go on.
SELECT ots.create_table('ai_max', 'part string, id integer auto_increment');
GRANT SELECT, INSERT, UPDATE ON "ai_max$data", ai_max TO regress_ots_ai_other;
SELECT primary_key FROM ots.put_row('ai_max', '{"part": "a", "id": {"$auto_increment": true}}', '{"v": 1}',
  return_type => 'RT_PK');
SET ROLE regress_ots_ai_other;
SELECT consumed FROM ots.put_row('ai_max', '{"part": "x", "id": 9223372036854775807}', '{"v": 1}');
SELECT consumed FROM ots.put_row('ai_max', '{"part": "x", "id": 2}', '{"v": 1}');
SELECT consumed FROM ots.put_row('ai_max', '{"part": "x", "id": 3}', '{"v": 1}');
SELECT primary_key FROM ots.put_row('ai_max', '{"part": "x", "id": {"$auto_increment": true}}', '{"v": 1}',
  return_type => 'RT_PK');
SELECT "index", is_ok, error_code, error_message, primary_key
  FROM ots.batch_write_row('[{"table_name": "ai_max", "rows": [
	{"type": "PUT", "primary_key": {"part": "x", "id": {"$auto_increment": true}}, "attributes": {"v": 2}, "return_type": "RT_PK"},
	{"type": "PUT", "primary_key": {"part": "c", "id": {"$auto_increment": true}}, "attributes": {"v": 2}, "return_type": "RT_PK"}]}]')
 ORDER BY "index";
-- one below the largest: that partition key takes the last value
SELECT consumed FROM ots.put_row('ai_max', '{"part": "y", "id": 9223372036854775806}', '{"v": 1}');
SELECT consumed FROM ots.put_row('ai_max', '{"part": "y", "id": 5}', '{"v": 1}');
SELECT primary_key FROM ots.put_row('ai_max', '{"part": "y", "id": {"$auto_increment": true}}', '{"v": 1}',
  return_type => 'RT_PK');
RESET ROLE;
SELECT primary_key FROM ots.put_row('ai_max', '{"part": "b", "id": {"$auto_increment": true}}', '{"v": 1}',
  return_type => 'RT_PK');
SELECT last_value FROM "ai_max$seq";
SELECT part, id FROM ai_max ORDER BY part, id;
-- ots.sync_auto_increment does not follow values from 2^62 on, which no
-- sequence reaches by counting: it warns and moves past the others
SELECT * FROM ots.sync_auto_increment('ai_max');
SELECT consumed FROM ots.put_row('ai_max', '{"part": "b", "id": 40}', '{"v": 1}');
SELECT * FROM ots.sync_auto_increment('ai_max');
SELECT primary_key FROM ots.put_row('ai_max', '{"part": "b", "id": {"$auto_increment": true}}', '{"v": 1}',
  return_type => 'RT_PK');
SELECT ots.delete_table('ai_max');
SELECT ots.delete_table('ai_behind');
DROP OWNED BY regress_ots_ai_other;
DROP ROLE regress_ots_ai_other;

SELECT ots.delete_table('ai');
SELECT ots.delete_table('ai_plain');
