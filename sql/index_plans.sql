-- index_plans: plain SQL on a table's view by indexed columns is planned
-- through the secondary index (Lindorm's secondary index; src/index_plan.c):
-- the plans on 100,000 rows, leftmost-prefix matching, the same rows with
-- the index and without, what is not planned through an index; the index's
-- own view answering ranges of its key.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
RESET client_min_messages;
SET ots.index_build_worker = off;
-- plans that do not hang on ANALYZE's sample
SET max_parallel_workers_per_gather = 0;
SET enable_bitmapscan = off;

SELECT ots.create_table('ip', 'id integer', partitions => 2, defined_columns => 'seller string, status string, amount integer, note string');
-- 100,000 rows, written through the storage (the write point checks them)
INSERT INTO "ip$data" (id, "$cells", "$oldest_ts")
SELECT i, format('{"row_ts": 1000, "cells": {"amount": [{"ts": 1000, "value": %s}], "seller": [{"ts": 1000, "value": "s%s"}], "status": [{"ts": 1000, "value": "%s"}]}}',
				 i % 5000, i % 1000, (ARRAY['new', 'paid', 'sent'])[i % 3 + 1])::ots.cells, 1000
  FROM generate_series(1, 100000) i;
SELECT ots.create_index('ip', 'ip_seller', '{seller, status}', '{amount}');
SELECT ots.create_index('ip', 'ip_amount', '{amount}');
SELECT ots.create_index('ip', 'ip_note', '{note}', include_base_data => false);
CALL ots.build_index('ip', 'ip_seller');
CALL ots.build_index('ip', 'ip_amount');
SELECT table_name, index_phase, (SELECT count(*) FROM "ip_seller") AS entries
  FROM ots.tables WHERE index_of = 'ip' ORDER BY table_name;
VACUUM ANALYZE "ip$data", "ip_seller$data", "ip_amount$data";

-- the first index column fixed: the index is read by its key, then the rows by theirs
EXPLAIN (COSTS OFF) SELECT id, attributes ->> 'amount' AS amount FROM ip WHERE attributes ->> 'seller' = 's42';
SELECT count(*), sum((attributes ->> 'amount')::int) FROM ip WHERE attributes ->> 'seller' = 's42';
-- both index columns (leftmost prefix of two)
EXPLAIN (COSTS OFF) SELECT id FROM ip WHERE attributes ->> 'seller' = 's42' AND attributes ->> 'status' = 'paid';
SELECT count(*) FROM ip WHERE attributes ->> 'seller' = 's42' AND attributes ->> 'status' = 'paid';
-- an Integer column, through its cast
EXPLAIN (COSTS OFF) SELECT id FROM ip WHERE (attributes ->> 'amount')::bigint = 17;
SELECT array_agg(id ORDER BY id) FROM ip WHERE (attributes ->> 'amount')::int = 17;
-- the typed columns of the defined columns, the way SQL users write it
EXPLAIN (COSTS OFF) SELECT id, amount FROM ip WHERE seller = 's42' AND status = 'paid';
SELECT count(*), sum(amount) FROM ip WHERE seller = 's42' AND status = 'paid';
EXPLAIN (COSTS OFF) SELECT id FROM ip WHERE amount = 17;
SELECT array_agg(id ORDER BY id) FROM ip WHERE amount = 17;
-- a parameter, as a prepared statement passes it
PREPARE by_seller(text) AS SELECT count(*) FROM ip WHERE attributes ->> 'seller' = $1;
EXPLAIN (COSTS OFF) EXECUTE by_seller('s7');
-- an expression of parameters and constants ('s' || $1) is a value too
PREPARE by_number(int) AS SELECT count(*) FROM ip WHERE attributes ->> 'seller' = 's' || $1;
EXPLAIN (COSTS OFF) EXECUTE by_number(7);
EXECUTE by_number(7);
EXECUTE by_seller('s7');
-- not through an index: the second column alone (no leftmost prefix), a
-- range, a column no complete index has, a volatile value, the setting off
EXPLAIN (COSTS OFF) SELECT count(*) FROM ip WHERE attributes ->> 'status' = 'paid';
EXPLAIN (COSTS OFF) SELECT count(*) FROM ip WHERE attributes ->> 'seller' > 's98';
EXPLAIN (COSTS OFF) SELECT count(*) FROM ip WHERE attributes ->> 'note' = 'x';
-- a value computed anew for each row (volatile)
EXPLAIN (COSTS OFF) SELECT count(*) FROM ip WHERE attributes ->> 'seller' = 's' || floor(random() * 0)::int;
SET ots.index_scan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ip WHERE attributes ->> 'seller' = 's42';
-- the same rows either way, after writes of every kind
RESET ots.index_scan;
SELECT consumed FROM ots.update_row('ip', '{"id": 42}', put => '{"seller": "s7"}');
SELECT consumed FROM ots.delete_row('ip', '{"id": 1007}');
SELECT consumed FROM ots.put_row('ip', '{"id": 200000}', '{"seller": "s7", "status": "new", "amount": 1}');
-- (each value a constant: a value from an outer query is not planned through an index)
CREATE TEMP VIEW by_three AS
	SELECT 's7' AS seller, (SELECT array_agg(id ORDER BY id) FROM ip WHERE attributes ->> 'seller' = 's7') AS ids
	UNION ALL SELECT 's42', (SELECT array_agg(id ORDER BY id) FROM ip WHERE attributes ->> 'seller' = 's42')
	UNION ALL SELECT 'none', (SELECT array_agg(id ORDER BY id) FROM ip WHERE attributes ->> 'seller' = 'none');
EXPLAIN (COSTS OFF) SELECT * FROM by_three;
CREATE TEMP TABLE with_index AS SELECT * FROM by_three;
SET ots.index_scan = off;
SELECT w.seller, cardinality(w.ids) AS rows, w.ids IS NOT DISTINCT FROM b.ids AS same
  FROM with_index w JOIN by_three b USING (seller) ORDER BY w.seller;
RESET ots.index_scan;

-- the index's own view: a range of its key reads its primary key
EXPLAIN (COSTS OFF) SELECT seller, status, id FROM ip_seller WHERE seller = 's5' AND status >= 'p' ORDER BY status, id;
SELECT count(*) FROM ip_seller WHERE seller = 's5' AND status >= 'p';
EXPLAIN (COSTS OFF) SELECT amount, id FROM ip_amount WHERE amount BETWEEN 10 AND 12;
SELECT amount, count(*) FROM ip_amount WHERE amount BETWEEN 10 AND 12 GROUP BY amount ORDER BY amount;

-- a role that may read the table's view reads it through the index, whose
-- storage is read with the view owner's rights, as the table's is
CREATE ROLE ip_reader;
GRANT SELECT ON ip TO ip_reader;
SET ROLE ip_reader;
SELECT count(*) FROM ip WHERE attributes ->> 'seller' = 's42';
SELECT count(*) FROM "ip_seller$data";
RESET ROLE;
REVOKE ALL ON ip FROM ip_reader;
DROP ROLE ip_reader;
DROP VIEW by_three;
SELECT ots.delete_table('ip');
