-- test/upgrade/data_after.sql: after ALTER EXTENSION ots UPDATE, the rows
-- data_before.sql wrote read the same and its tables take new writes; then
-- test/upgrade/run.sh runs data_after_<V>.sql, the checks of what release V
-- alone wrote, in the same session (expected output of both:
-- data_after_<V>.out).
-- every leaf of an ots table is on the ots access method (0.1.0's moved
-- there by the update, up_stale's too: the update moves the leaves before
-- it removes that table's metadata)
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.relispartition AND c.relkind = 'r' AND c.relname LIKE 'up\_%' ORDER BY 1;
-- pg_temp.try(query): 'ok', or the error it raised (data_after_<V>.sql uses it too)
CREATE FUNCTION pg_temp.try(query text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$f$;
SELECT attributes FROM ots.get_row('up_orders', '{"channel": "a", "id": 1}');
SELECT attributes FROM ots.update_row('up_orders', '{"channel": "a", "id": 1}', increment => '{"status": 1}',
									  return_type => 'RT_AFTER_MODIFY');
SELECT id, attributes FROM up_orders ORDER BY id;
SELECT consumed IS NOT NULL FROM ots.put_row('up_hash', '{"k": "h4"}', '{"v": 4}');
SELECT primary_key, attributes
FROM ots.get_range_rows('up_hash', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}') ORDER BY primary_key->>'k';
SELECT (primary_key->>'n')::bigint > (SELECT max(n) FROM up_auto WHERE k = 't' AND attributes->'v' = 'true')
FROM ots.put_row('up_auto', '{"k": "t", "n": {"$auto_increment": true}}', '{"v": false}', return_type => 'RT_PK');
SELECT count(*) FROM up_auto;
SELECT ots.describe_table('up_orders')->'table_options';
SELECT table_name FROM ots.list_table() ORDER BY 1;
SELECT table_name FROM ots.stats ORDER BY 1;
-- a table the release made takes defined columns and an index over its
-- rows (a row without v, h0, has no entry)
SELECT ots.add_defined_column('up_hash', 'v integer');
SET ots.index_build_worker = off;
SELECT ots.create_index('up_hash', 'up_hash_v', '{v}');
CALL ots.build_index('up_hash', 'up_hash_v');
SELECT v, k FROM up_hash_v ORDER BY v, k;
SELECT k, attributes FROM up_hash ORDER BY k;
SELECT ots.describe_table('up_hash')->'index_metas'->0->>'index_sync_phase';
-- its view shows the new defined column typed and takes writes in SQL (a
-- 0.1.0 view's read-only trigger gave way to ots_write)
SELECT k, v FROM up_hash WHERE v >= 3 ORDER BY k;
INSERT INTO up_hash (k, v) VALUES ('h5', 5);
UPDATE up_hash SET v = v * 10 WHERE k IN ('h1', 'h5') RETURNING k, v;
DELETE FROM up_hash WHERE k = 'h2';
SELECT primary_key ->> 'k' AS k, attributes FROM ots.get_range_rows('up_hash', '{"k": {"$inf": "min"}}', '{"k": {"$inf": "max"}}') ORDER BY 1;
SELECT v, k FROM up_hash_v ORDER BY v, k;
SELECT tgname FROM pg_trigger WHERE tgrelid = 'up_orders'::regclass;
INSERT INTO up_orders (channel, id, attributes) VALUES ('sql', 1, '{"via": "view"}');
SELECT attributes FROM ots.get_row('up_orders', '{"channel": "sql", "id": 1}');
-- wide and deep rows written before 0.3.0 read back as written, stored as
-- they were (inline) until a write splits them (docs/design.md, "Wide rows")
CREATE FUNCTION pg_temp.up_shape(key text) RETURNS text LANGUAGE sql AS $$
	SELECT CASE WHEN d."$cells"::text LIKE '{"row_ts": %, "split": %' THEN 'split' ELSE 'inline' END
	       || ', ' || (SELECT count(*) FROM "up_wide$chunk" c WHERE c.k = key) || ' chunks'
	  FROM "up_wide$data" d WHERE d.k = key
$$;
SELECT k, pg_temp.up_shape(k) FROM "up_wide$data" ORDER BY k;
SELECT (ots.get_row('up_wide', '{"k": "wide"}')).attributes =
       (SELECT jsonb_object_agg(format('c%s', lpad(g::text, 3, '0')), left(md5(g::text), 20)) FROM generate_series(1, 300) g)
       AS wide_same;
SELECT jsonb_array_length((ots.get_row('up_wide', '{"k": "deep"}', max_versions => 1000)).attributes -> 'd') AS deep_versions;
SELECT length((ots.get_row('up_wide', '{"k": "big"}')).attributes ->> 'b') AS big_length;
SELECT (ots.update_row('up_wide', '{"k": "wide"}', put => '{"c150": "changed"}')).consumed;
SELECT (ots.update_row('up_wide', '{"k": "deep"}', put => '{"d": {"value": "version 0", "ts": 1000}}')).consumed;
SELECT (ots.update_row('up_wide', '{"k": "big"}', increment => '{"small": 1}')).consumed;
SELECT k, pg_temp.up_shape(k) FROM "up_wide$data" ORDER BY k;
SELECT (ots.get_row('up_wide', '{"k": "wide"}')).attributes =
       (SELECT jsonb_object_agg(format('c%s', lpad(g::text, 3, '0')), left(md5(g::text), 20)) FROM generate_series(1, 300) g)
       || '{"c150": "changed"}' AS wide_same_after;
SELECT jsonb_array_length((ots.get_row('up_wide', '{"k": "deep"}', max_versions => 1000)).attributes -> 'd') AS deep_versions_after;
SELECT (ots.get_row('up_wide', '{"k": "big"}', ARRAY['small'])).attributes AS big_small_after;
