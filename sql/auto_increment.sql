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

SELECT ots.delete_table('ai');
SELECT ots.delete_table('ai_plain');
