-- test/replication/check_indexes.sql: each index of orders against a
-- recomputation from the table's rows: stale|missing entries of
-- orders_status, then of orders_amount ("0|0|0|0" when exact)
SELECT (SELECT count(*) FROM orders_status i
		 WHERE NOT EXISTS (SELECT 1 FROM orders t WHERE t.shop = i.shop AND t.seq = i.seq
							 AND t.status = i.status AND t.amount IS NOT DISTINCT FROM i.amount)),
	   (SELECT count(*) FROM orders t WHERE t.status IS NOT NULL
		   AND NOT EXISTS (SELECT 1 FROM orders_status i WHERE t.shop = i.shop AND t.seq = i.seq
							 AND t.status = i.status AND t.amount IS NOT DISTINCT FROM i.amount)),
	   (SELECT count(*) FROM orders_amount i
		 WHERE NOT EXISTS (SELECT 1 FROM orders t WHERE t.shop = i.shop AND t.seq = i.seq AND t.amount = i.amount)),
	   (SELECT count(*) FROM orders t WHERE t.amount IS NOT NULL
		   AND NOT EXISTS (SELECT 1 FROM orders_amount i WHERE t.shop = i.shop AND t.seq = i.seq AND t.amount = i.amount));
