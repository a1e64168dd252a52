-- test/cluster/routing.sql: run on the proxy by test/cluster/run.sh (routing).
-- Writes keys of every partition-key type through the proxy (STRING, INTEGER,
-- BINARY, a hash-prefixed table and a two-column key), then prints, per key,
-- the table, the key as the shards' check prints it (text; int8 text; lowercase
-- hex) and the shard its partition maps to: the run compares that with where
-- a direct query of each shard's view finds it.
SET client_min_messages = warning;
\set ON_ERROR_STOP 1
SELECT ots.create_table('r_str', 'k string');
SELECT ots.create_table('r_int', 'k integer');
SELECT ots.create_table('r_bin', 'k binary');
SELECT ots.create_table('r_hash', 'k string', hash_prefix_length => 2, partitions => 4);
SELECT ots.create_table('r_two', 'k integer, s string');

CREATE TEMP TABLE keys AS
SELECT 'r_str' AS t, 'STRING' AS type, to_jsonb(v) AS key, v AS text
  FROM (SELECT CASE WHEN i % 3 = 0 THEN 'ключ-' || i WHEN i % 3 = 1 THEN 'k' || i ELSE md5(i::text) END AS v
          FROM generate_series(1, 400) i) s
UNION ALL
SELECT 'r_int', 'INTEGER', to_jsonb(v), v::text
  FROM (SELECT (i - 200)::bigint * 46116860184273879 AS v FROM generate_series(1, 400) i) s
UNION ALL
SELECT 'r_bin', 'BINARY', jsonb_build_object('$binary', encode(v, 'base64')), encode(v, 'hex')
  FROM (SELECT int2send(i::int2) || decode(substr(md5(i::text), 1, 2 * (i % 15)), 'hex') AS v
          FROM generate_series(1, 400) i) s
UNION ALL
SELECT 'r_hash', 'STRING', to_jsonb(v), v
  FROM (SELECT 'h' || i AS v FROM generate_series(1, 400) i) s
UNION ALL
SELECT 'r_two', 'INTEGER', to_jsonb(v), v::text
  FROM (SELECT i AS v FROM generate_series(1, 400) i) s;

-- one write per key (r_two: two rows per partition key, both on its shard)
SELECT count(*) AS written FROM keys k,
  LATERAL ots.put_row(k.t, CASE WHEN k.t = 'r_two' THEN jsonb_build_object('k', k.key, 's', 'a')
                                ELSE jsonb_build_object('k', k.key) END, '{"v": 1}');
SELECT count(*) AS written FROM keys k,
  LATERAL ots.put_row(k.t, jsonb_build_object('k', k.key, 's', 'b'), '{"v": 2}')
 WHERE k.t = 'r_two';

\pset format unaligned
\pset tuples_only on
\pset fieldsep '|'
\o :out
SELECT k.t, k.text, p.connstr
  FROM keys k
  JOIN ots_cluster.partitions p
    ON p.partition = ots_cluster.key_hash(k.key, k.type) & (SELECT count(*) - 1 FROM ots_cluster.partitions)::int
 CROSS JOIN generate_series(1, CASE WHEN k.t = 'r_two' THEN 2 ELSE 1 END)
 ORDER BY 1, 2, 3;
\o
