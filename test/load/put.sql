-- test/load: create one of the 20 keys of ld_kv unless it exists (EXPECT_NOT_EXIST), with a
-- unique tag; batch_write_row reports the condition failure in its result instead of raising
\set k random(0, 19)
WITH t AS (SELECT 'k' || :k AS key, :client_id || '-' || nextval('ld_tag') AS tag),
	 r AS (SELECT t.key, t.tag, b.is_ok, b.error_code
		   FROM t, ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'ld_kv', 'rows',
				jsonb_build_array(jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('id', t.key),
					'attributes', jsonb_build_object('tag', t.tag, 'x', t.tag, 'n', 1),
					'condition', 'EXPECT_NOT_EXIST'))))) b)
INSERT INTO ld_log (key, event, tag, error_code)
SELECT key, CASE WHEN is_ok THEN 'create' ELSE 'create failed' END, tag, error_code FROM r;
