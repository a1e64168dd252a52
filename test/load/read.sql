-- test/load: read both tables with get_range; a row of ld_kv whose attributes are not those
-- of one whole put, more rows than keys, or a counter below 1 is recorded in ld_violations
INSERT INTO ld_violations (what, detail)
SELECT 'ld_kv row not whole', r::text
FROM ots.get_range('ld_kv', '{"id": {"$inf": "min"}}', '{"id": {"$inf": "max"}}') g, jsonb_array_elements(g.rows) r
WHERE r->'attributes'->>'tag' IS DISTINCT FROM r->'attributes'->>'x' OR r->'attributes'->'n' <> '1'
   OR (SELECT count(*) FROM jsonb_object_keys(r->'attributes')) <> 3
UNION ALL
SELECT 'ld_counters page', g.rows::text
FROM ots.get_range('ld_counters', '{"id": {"$inf": "max"}}', '{"id": {"$inf": "min"}}', direction => 'BACKWARD') g
WHERE jsonb_array_length(g.rows) > 20 OR g.next_start_primary_key IS NOT NULL
   OR EXISTS (SELECT FROM jsonb_array_elements(g.rows) r WHERE (r->'attributes'->>'n')::bigint < 1);
