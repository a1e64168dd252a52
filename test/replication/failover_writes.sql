-- test/replication/failover_writes.sql: writes on the subscriber after a
-- failover, generating keys with a sequence PostgreSQL 15 did not
-- replicate; :status marks the rows written
SELECT ots.put_row('orders', '{"shop": "s1", "seq": {"$auto_increment": true}}',
				   jsonb_build_object('amount', 1, 'status', :status));
SELECT ots.update_row('orders', '{"shop": "s2", "seq": {"$auto_increment": true}}',
					  put => jsonb_build_object('amount', 2, 'status', :status));
SELECT ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'orders', 'rows', jsonb_build_array(
	jsonb_build_object('type', 'PUT', 'primary_key', '{"shop": "s0", "seq": {"$auto_increment": true}}'::jsonb,
					   'attributes', jsonb_build_object('amount', 3, 'status', :status))))));
INSERT INTO orders (shop, amount, status) VALUES ('s1', 4, :status), ('s0', 5, :status);
