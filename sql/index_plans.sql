-- index_plans: plain SQL on a table's view by indexed columns is planned
-- through the secondary index (Lindorm's secondary index; src/view/index_plan.c):
-- the plans on 100,000 rows, leftmost-prefix matching, the same rows with
-- the index and without, what is not planned through an index; the index's
-- own view answering ranges of its key; a sparse index read only by a WHERE
-- that requires each of its columns.
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
-- (an index of (seller, status) holds only rows with both: WHERE seller = ... alone reads ip_by_seller)
SELECT ots.create_index('ip', 'ip_by_seller', '{seller}');
SELECT ots.create_index('ip', 'ip_amount', '{amount}');
SELECT ots.create_index('ip', 'ip_note', '{note}', include_base_data => false);
-- an index still being built is not read: the table's rows are
EXPLAIN (COSTS OFF) SELECT id FROM ip WHERE attributes ->> 'seller' = 's42';
CALL ots.build_index('ip', 'ip_seller');
CALL ots.build_index('ip', 'ip_by_seller');
CALL ots.build_index('ip', 'ip_amount');
SELECT table_name, index_phase, (SELECT count(*) FROM "ip_seller") AS entries
  FROM ots.tables WHERE index_of = 'ip' ORDER BY table_name;
VACUUM ANALYZE "ip$data", "ip_seller$data", "ip_by_seller$data", "ip_amount$data";

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

-- An index holds only the rows that have each of its indexed columns (a
-- sparse index): a query goes through it only where its WHERE fails for a
-- row lacking any of them, not only the columns it fixes.  Each query: its
-- rows with every rewrite, whether they equal the rows without the index,
-- and whether the plan read an index.
CREATE FUNCTION pg_temp.through_index(query text, OUT ids bigint[], OUT same boolean, OUT indexed boolean)
	LANGUAGE plpgsql AS $$
DECLARE
	plan text := '';
	line text;
	without bigint[];
BEGIN
	EXECUTE format('SELECT array_agg(id ORDER BY id) FROM (%s) q', query) INTO ids;
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		plan := plan || line;
	END LOOP;
	indexed := plan LIKE '%ots_index%';
	SET LOCAL ots.index_scan = off;
	EXECUTE format('SELECT array_agg(id ORDER BY id) FROM (%s) q', query) INTO without;
	SET LOCAL ots.index_scan = on;
	same := ids IS NOT DISTINCT FROM without;
END
$$;
SELECT ots.create_table('ip_sparse', 'a string, id integer', partitions => 2,
						defined_columns => 'n integer, s string, b binary');
SELECT count(*) FROM (VALUES ('{"a": "k", "id": 1}', '{"n": 5, "s": "x"}'),
							 ('{"a": "k", "id": 2}', '{"s": "x"}'),
							 ('{"a": "k", "id": 3}', '{"u": 5}'),
							 ('{"a": "k", "id": 4}', '{"n": 6, "s": "y", "b": {"$binary": "AQ=="}}'),
							 ('{"a": "j", "id": 5}', '{"n": 5, "s": "x", "b": {"$binary": "AQ=="}}')) v(k, a),
	LATERAL ots.put_row('ip_sparse', v.k::jsonb, v.a::jsonb);
SELECT ots.create_index('ip_sparse', 'ip_sparse_an', '{a, n}', index_type => 'LOCAL');
SELECT ots.create_index('ip_sparse', 'ip_sparse_sn', '{s, n}');
SELECT ots.create_index('ip_sparse', 'ip_sparse_snb', '{s, n, b}');
CALL ots.build_index('ip_sparse', 'ip_sparse_an');
CALL ots.build_index('ip_sparse', 'ip_sparse_sn');
CALL ots.build_index('ip_sparse', 'ip_sparse_snb');
-- each index's entries: only the rows that have all its columns
SELECT 'ip_sparse_an' AS index, array_agg(id ORDER BY id) AS ids FROM "ip_sparse_an$data"
UNION ALL SELECT 'ip_sparse_sn', array_agg(id ORDER BY id) FROM "ip_sparse_sn$data"
UNION ALL SELECT 'ip_sparse_snb', array_agg(id ORDER BY id) FROM "ip_sparse_snb$data";
-- the key column alone, or a column the WHERE does not require: every row, no index
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE a = 'k'$$);
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE attributes ->> 's' = 'x'$$);
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE s = 'x' AND n IS NULL$$);
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE s = 'x' AND coalesce(n, 0) = 0$$);
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE s = 'x' AND (n = 5 OR s = 'y')$$);
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE a = 'k' AND attributes ? 'n'$$);
-- (PostgreSQL's proof of a column never NULL does not read NOT (n IS NULL) as n IS NOT NULL)
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE s = 'x' AND NOT (n IS NULL)$$);
-- a WHERE that fails without the column: the index
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE a = 'k' AND n IS NOT NULL$$);
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE a = 'k' AND attributes ->> 'n' IS NOT NULL$$);
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE a = 'k' AND (attributes -> 'n') IS NOT NULL$$);
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE s = 'x' AND n > 0$$);
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE s = 'x' AND (n = 5 OR n = 6)$$);
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE attributes ->> 's' = 'x' AND (attributes ->> 'n')::int = 5$$);
-- three indexed columns: the third required too (the longer index wins only then)
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE s = 'x' AND n = 5 AND b IS NOT NULL$$);
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_sparse WHERE s = 'x' AND n = 5$$);
-- a prepared statement's generic plan decides the same way
PREPARE sparse_by_a(text) AS SELECT array_agg(id ORDER BY id) FROM ip_sparse WHERE a = $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE sparse_by_a('k');
EXECUTE sparse_by_a('k');
RESET plan_cache_mode;
DEALLOCATE sparse_by_a;
SELECT ots.delete_table('ip_sparse');

-- TTL: an entry stays in the index's storage after its row's indexed cell
-- expired (purge removes both); the row then lacks the column, and a WHERE
-- that requires it leaves the row out with the index as without it
SELECT ots.create_table('ip_ttl', 'a string, id integer', time_to_live => 86400, allow_update => false,
						partitions => 1, defined_columns => 'n integer');
SELECT ots.create_index('ip_ttl', 'ip_ttl_an', '{a, n}', index_type => 'LOCAL');
CALL ots.build_index('ip_ttl', 'ip_ttl_an');
SELECT (extract(epoch FROM now()) * 1000)::bigint AS now_ms \gset
-- row 1: its n expired 2 days ago; row 2: fresh; row 3: its marker and cell expired
INSERT INTO "ip_ttl$data" (a, id, "$cells", "$oldest_ts")
VALUES ('k', 1, format('{"row_ts": %s, "cells": {"n": [{"ts": %s, "value": 5}]}}', :now_ms, :now_ms - 2 * 86400000)::ots.cells, :now_ms - 2 * 86400000),
	   ('k', 2, format('{"row_ts": %s, "cells": {"n": [{"ts": %s, "value": 5}]}}', :now_ms, :now_ms)::ots.cells, :now_ms),
	   ('k', 3, format('{"row_ts": %s, "cells": {"n": [{"ts": %s, "value": 5}]}}', :now_ms - 3 * 86400000, :now_ms - 3 * 86400000)::ots.cells, :now_ms - 3 * 86400000);
SELECT a, n, id FROM "ip_ttl_an$data" ORDER BY id;
SELECT id, attributes FROM ip_ttl ORDER BY id;
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_ttl WHERE a = 'k' AND n = 5$$);
SELECT * FROM pg_temp.through_index($$SELECT id FROM ip_ttl WHERE a = 'k'$$);
SELECT ots.delete_table('ip_ttl');
