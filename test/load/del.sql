-- test/load: delete one of the 20 keys of ld_kv if it still holds the tag just read
-- (EXPECT_EXIST plus a column condition on the tag), logging which tag it deleted
\set k random(0, 19)
WITH cur AS (SELECT 'k' || :k AS key, g.attributes->>'tag' AS tag
			 FROM ots.get_row('ld_kv', jsonb_build_object('id', 'k' || :k)) g WHERE g.attributes IS NOT NULL),
	 r AS (SELECT cur.key, cur.tag, b.is_ok, b.error_code
		   FROM cur, ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'ld_kv', 'rows',
				jsonb_build_array(jsonb_build_object('type', 'DELETE', 'primary_key', jsonb_build_object('id', cur.key),
					'condition', 'EXPECT_EXIST', 'column_condition',
					jsonb_build_object('column', 'tag', 'comparator', '=', 'value', cur.tag,
									   'pass_if_missing', false)))))) b)
INSERT INTO ld_log (key, event, tag, error_code)
SELECT key, CASE WHEN is_ok THEN 'delete' ELSE 'delete failed' END, tag, error_code FROM r;
