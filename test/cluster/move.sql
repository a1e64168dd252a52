-- test/cluster/move.sql: run on the proxy by test/cluster/move.sh before a
-- shard is added: tables of every kind the partition mover must carry
-- (several versions per column, a hash-prefixed table, a defined column with
-- a secondary index, a search index and split rows, an AUTO_INCREMENT column, a stream and
-- split rows), written through the proxy, and the table the concurrent
-- writer uses.
SET client_min_messages = warning;
\set ON_ERROR_STOP 1
SELECT ots.create_table('m_ver', 'k string, n integer', max_versions => 5,
                        max_version_offset => 9223372036854);
SELECT ots.create_table('m_hash', 'k integer', hash_prefix_length => 3, partitions => 4);
SELECT ots.create_table('m_idx', 'k binary', defined_columns => 'city string, age integer');
SELECT ots.create_index('m_idx', 'm_idx_city', ARRAY['city'], ARRAY['age']);
SELECT ots.create_search_index('m_idx', 'm_idx_search', '{"field_schemas": [{"field_name": "city", "field_type": "KEYWORD"},
                                                                            {"field_name": "age", "field_type": "LONG"}]}');
SELECT ots.create_table('m_ai', 'part string, id integer auto_increment');
SELECT ots.create_table('m_st', 'k string', stream_enabled => true);
SELECT ots.create_table('m_w', 'k string');

-- three versions of two columns in every row of m_ver
SELECT count(*) FROM generate_series(1, 300) i, generate_series(1, 3) v,
  LATERAL ots.update_row('m_ver', jsonb_build_object('k', 'key' || i, 'n', i % 7),
                         put => jsonb_build_object('a', jsonb_build_object('value', i * 10 + v, 'ts', 1700000000000 + v),
                                                   'b', jsonb_build_object('value', repeat('x', v) || i, 'ts', 1700000000000 + v)));
SELECT count(*) FROM generate_series(-150, 149) i,
  LATERAL ots.put_row('m_hash', jsonb_build_object('k', i * 1000003), jsonb_build_object('v', i));
SELECT count(*) FROM generate_series(1, 300) i,
  LATERAL ots.put_row('m_idx', jsonb_build_object('k', jsonb_build_object('$binary', encode(int4send(i), 'base64'))),
                      jsonb_build_object('city', 'c' || (i % 17), 'age', i));
-- 40 of them split (past 4 KB: a head and its chunks, which move with it)
SELECT count(*) FROM generate_series(301, 340) i,
  LATERAL ots.put_row('m_idx', jsonb_build_object('k', jsonb_build_object('$binary', encode(int4send(i), 'base64'))),
                      jsonb_build_object('city', 'c' || (i % 17), 'age', i, 'pad', repeat(md5(i::text), 200)));
SELECT count(*) FROM generate_series(1, 200) i, generate_series(1, 3) j,
  LATERAL ots.put_row('m_ai', jsonb_build_object('part', 'p' || i, 'id', '{"$auto_increment": true}'::jsonb),
                      jsonb_build_object('v', j));
-- 60 rows of a table with a stream, half of them split, six of those
-- past 2 MB (recorded on the new shard in several records)
SELECT count(*) FROM generate_series(1, 60) i,
  LATERAL ots.put_row('m_st', jsonb_build_object('k', 'st' || i),
                      jsonb_build_object('v', i) ||
                      CASE WHEN i % 2 = 0 THEN jsonb_build_object('pad', repeat(md5(i::text), 200)) ELSE '{}' END);
SELECT count(*) FROM generate_series(10, 60, 10) i, generate_series(1, 2) c,
  LATERAL ots.update_row('m_st', jsonb_build_object('k', 'st' || i),
                         put => jsonb_build_object('big' || c, repeat(chr(64 + c), 1048576 + i)));
