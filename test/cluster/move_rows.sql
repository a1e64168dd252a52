-- test/cluster/move_rows.sql: every row of move.sql's tables (not the
-- writer's) through the proxy, every version, and searches of m_idx's
-- search index: printed before and after a shard is added, and compared.
SET client_min_messages = warning;
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
SELECT 'm_ver', r.primary_key, r.attributes
  FROM generate_series(1, 300) i, LATERAL ots.get_row('m_ver', jsonb_build_object('k', 'key' || i, 'n', i % 7),
                                                       max_versions => 5) r ORDER BY 2;
SELECT 'm_hash', r.primary_key, r.attributes
  FROM generate_series(-150, 149) i, LATERAL ots.get_row('m_hash', jsonb_build_object('k', i * 1000003)) r ORDER BY 2;
SELECT 'm_idx', r.primary_key, r.attributes
  FROM generate_series(1, 340) i,
       LATERAL ots.get_row('m_idx', jsonb_build_object('k', jsonb_build_object('$binary', encode(int4send(i), 'base64')))) r
 ORDER BY 2;
SELECT 'm_st', r.primary_key, r.attributes
  FROM generate_series(1, 60) i, LATERAL ots.get_row('m_st', jsonb_build_object('k', 'st' || i)) r ORDER BY 2;
SELECT 'm_idx_search', ots.search('m_idx', 'm_idx_search',
                                  '{"query": {"range_query": {"field_name": "age", "range_from": 100}},
                                    "sort": {"sorters": [{"field_sort": {"field_name": "city"}}]},
                                    "limit": 100, "get_total_count": true,
                                    "aggs": [{"name": "ages", "type": "sum", "field_name": "age"}],
                                    "group_bys": [{"name": "cities", "type": "field", "field_name": "city", "size": 20}]}',
                                  '{"return_type": "RETURN_ALL_FROM_INDEX"}');
