-- view_write: a table's view shows each defined column as a typed column,
-- and INSERT, UPDATE, DELETE and COPY on it are the row API's put, update
-- and delete, with their rules, errors and privileges.
-- (quiet: the extension may already exist, the files share one database)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

-- the SQLSTATE and message of a statement's error, or "ok"
CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;
-- what the row API reads of a row (every version, no timestamps)
CREATE FUNCTION pg_temp.api(tbl text, pk jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT (ots.get_row(tbl, pk)).attributes
$$;

--
-- typed columns: one per defined column, after the key and attributes
--
SELECT ots.create_table('vw', 'channel string, id string', partitions => 2, max_version_offset => 9223372036854,
	defined_columns => 'status string, price double, qty integer, paid boolean, tag binary');
SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type
  FROM pg_attribute a WHERE a.attrelid = 'vw'::regclass AND a.attnum > 0 ORDER BY a.attnum;
SELECT ots.put_row('vw', '{"channel": "alipay", "id": "a1"}',
	'{"status": "new", "price": 2.5, "qty": 3, "paid": false, "tag": {"$binary": "AQI="}, "note": "n"}');
SELECT * FROM vw;
-- a column the row does not have is NULL
SELECT ots.put_row('vw', '{"channel": "alipay", "id": "a2"}', '{"note": "only"}');
SELECT channel, id, status, price, qty, paid, tag FROM vw WHERE id = 'a2';
-- the latest visible value: versions and TTL as the view applies them elsewhere
SELECT ots.update_table('vw', max_versions => 3);
SELECT ots.update_row('vw', '{"channel": "alipay", "id": "a1"}',
	put => '{"qty": [{"value": 1, "ts": 1000}, {"value": 9, "ts": 9000}]}');
SELECT qty FROM vw WHERE id = 'a1';
-- WHERE on typed columns and keys
SELECT id FROM vw WHERE status = 'new' AND price > 2 AND qty = 9 AND NOT paid AND tag = '\x0102';
SELECT id FROM vw WHERE channel = 'alipay' AND id > 'a1';

-- a cell of another type in a defined column (written before the column was
-- defined): NULL in the typed column, the cell stays in attributes
SELECT ots.create_table('vw_late', 'k string');
SELECT ots.put_row('vw_late', '{"k": "x"}', '{"score": "high"}');
SELECT ots.add_defined_column('vw_late', 'score integer');
SELECT k, score, attributes FROM vw_late;
-- a new write of another type is refused, as the row API refuses it
SELECT pg_temp.try($$UPDATE vw_late SET attributes = '{"score": "low"}'$$);
UPDATE vw_late SET score = 7;
SELECT k, score, attributes FROM vw_late;

--
-- INSERT: a PutRow expecting a new row
--
INSERT INTO vw (channel, id, status, price, qty, paid, tag)
	VALUES ('wx', 'w1', 'new', 1.0, -9223372036854775808, true, '\x');
SELECT pg_temp.api('vw', '{"channel": "wx", "id": "w1"}');
-- typed columns and attributes together; cells with timestamps in attributes
INSERT INTO vw (channel, id, status, attributes)
	VALUES ('wx', 'w2', 'open', '{"note": "x", "whole": 3.0, "old": {"value": 1, "ts": 1000}}')
	RETURNING *;
SELECT pg_temp.api('vw', '{"channel": "wx", "id": "w2"}');
-- every type's NULL is no cell
INSERT INTO vw (channel, id, status, price, qty, paid, tag) VALUES ('wx', 'w3', NULL, NULL, NULL, NULL, NULL);
SELECT pg_temp.api('vw', '{"channel": "wx", "id": "w3"}');
-- an existing key: a unique violation with Tablestore's message, nothing written
\set VERBOSITY default
INSERT INTO vw (channel, id, status) VALUES ('wx', 'w1', 'again');
\set VERBOSITY terse
SELECT status FROM vw WHERE id = 'w1';
-- several rows: all or none
SELECT pg_temp.try($$INSERT INTO vw (channel, id, status) VALUES ('wx', 'w4', 'a'), ('wx', 'w1', 'b')$$);
SELECT count(*) FROM vw WHERE id = 'w4';
-- bad input: the row API's errors
SELECT pg_temp.try($$INSERT INTO vw (channel, status) VALUES ('wx', 'no id')$$);
SELECT pg_temp.try($$INSERT INTO vw (channel, id, attributes) VALUES ('wx', 'w5', '{"qty": "nine"}')$$);
SELECT pg_temp.try($$INSERT INTO vw (channel, id, attributes) VALUES ('wx', 'w5', '[1, 2]')$$);
SELECT pg_temp.try($$INSERT INTO vw (channel, id, status, attributes) VALUES ('wx', 'w5', 'a', '{"status": "b"}')$$);
SELECT pg_temp.try($$INSERT INTO vw (channel, id, price) VALUES ('wx', 'w5', 'NaN')$$);
SELECT pg_temp.try($$INSERT INTO vw (channel, id, price) VALUES ('wx', 'w5', '-Infinity')$$);
SELECT pg_temp.try($$INSERT INTO vw (channel, id, status) VALUES (repeat('c', 1025), 'w5', 'a')$$);
SELECT pg_temp.try($$INSERT INTO vw (channel, id, attributes) VALUES ('wx', 'w5', '{"bad name": 1}')$$);
SELECT pg_temp.try($$INSERT INTO vw (channel, id, attributes) VALUES ('wx', 'w5', '{"note": {"value": "a", "tz": 1}}')$$);
SELECT count(*) FROM vw WHERE id = 'w5';
-- the same defined column named twice is fine when attributes leaves it out
INSERT INTO vw (channel, id, status, attributes) VALUES ('wx', 'w5', NULL, '{"status": "from attributes"}');
SELECT status FROM vw WHERE id = 'w5';

-- ON CONFLICT DO NOTHING: an existing row is left alone, not counted
INSERT INTO vw (channel, id, status) VALUES ('wx', 'w1', 'skip'), ('wx', 'w6', 'new')
	ON CONFLICT DO NOTHING RETURNING id, status;
INSERT INTO vw (channel, id, status) VALUES ('wx', 'w1', 'skip') ON CONFLICT (id, channel) DO NOTHING;
SELECT id, status FROM vw WHERE id IN ('w1', 'w6') ORDER BY id;
-- ON CONFLICT DO UPDATE SET c = EXCLUDED.c: Lindorm's UPSERT merges the
-- columns SET into an existing row (NULL deletes), and puts a new row whole
INSERT INTO vw (channel, id, status, price, qty) VALUES ('wx', 'w1', 'merged', NULL, 5), ('wx', 'w7', 'fresh', 7.5, 7)
	ON CONFLICT (channel, id) DO UPDATE SET status = EXCLUDED.status, price = EXCLUDED.price
	RETURNING id, status, price, qty, paid;
-- what ON CONFLICT the trigger cannot carry out is refused
SELECT pg_temp.try($$INSERT INTO vw (channel, id, status) VALUES ('wx', 'w1', 'x')
	ON CONFLICT (channel, id) DO UPDATE SET status = vw.status || 'x'$$);
SELECT pg_temp.try($$INSERT INTO vw (channel, id, status) VALUES ('wx', 'w1', 'x')
	ON CONFLICT (channel, id) DO UPDATE SET status = EXCLUDED.status WHERE vw.qty > 1$$);
SELECT pg_temp.try($$INSERT INTO vw (channel, id, status) VALUES ('wx', 'w1', 'x')
	ON CONFLICT (id) DO NOTHING$$);
SELECT pg_temp.try($$INSERT INTO vw (channel, id, status) VALUES ('wx', 'w1', 'x')
	ON CONFLICT (channel, id) DO UPDATE SET id = EXCLUDED.id$$);
SELECT status FROM vw WHERE id = 'w1';

--
-- UPDATE: an UpdateRow of the columns that change
--
UPDATE vw SET status = 'paid', paid = true WHERE channel = 'wx' AND id = 'w1' RETURNING id, status, paid, attributes;
-- NULL deletes every version of the column
UPDATE vw SET price = NULL WHERE id = 'w7' RETURNING id, price, attributes;
SELECT (ots.get_row('vw', '{"channel": "wx", "id": "w7"}', max_versions => 5)).attributes ? 'price' AS price_kept;
-- expressions over the row, WHERE on typed columns, several rows
UPDATE vw SET qty = qty + 1 WHERE channel = 'wx' AND qty IS NOT NULL RETURNING id, qty;
-- attributes: new and changed keys put, removed keys deleted
UPDATE vw SET attributes = attributes - 'note' || '{"extra": true}' WHERE id = 'w2' RETURNING attributes;
SELECT pg_temp.api('vw', '{"channel": "wx", "id": "w2"}');
-- a key cannot change; a column changed twice ways is refused; nothing written
SELECT pg_temp.try($$UPDATE vw SET id = 'zz' WHERE id = 'w1'$$);
SELECT pg_temp.try($$UPDATE vw SET status = 'a', attributes = attributes || '{"status": "b"}' WHERE id = 'w1'$$);
SELECT pg_temp.try($$UPDATE vw SET attributes = '"x"' WHERE id = 'w1'$$);
SELECT pg_temp.try($$UPDATE vw SET qty = 1 WHERE channel = 'wx'$$) AS all_rows;
SELECT id, status, qty FROM vw WHERE channel = 'wx' ORDER BY id;
-- a SET that changes nothing writes nothing; a missing row is no row
UPDATE vw SET channel = channel, status = status WHERE id = 'w1';
UPDATE vw SET status = 'none' WHERE id = 'missing';
-- a typed column set to its value in another type
UPDATE vw SET qty = '12' WHERE id = 'w1' RETURNING qty;
-- each updated row is an UpdateRow: allow_update false refuses it
SELECT ots.create_table('vw_noupd', 'k integer', allow_update => false, defined_columns => 'v string');
INSERT INTO vw_noupd VALUES (1, NULL, 'a');
SELECT pg_temp.try($$UPDATE vw_noupd SET v = 'b'$$);

--
-- DELETE: a DeleteRow per row
--
DELETE FROM vw WHERE channel = 'wx' AND id = 'w3' RETURNING id;
SELECT pg_temp.api('vw', '{"channel": "wx", "id": "w3"}');
DELETE FROM vw WHERE status = 'fresh' RETURNING id;
DELETE FROM vw WHERE id = 'missing';
SELECT channel, id FROM vw ORDER BY channel, id;

--
-- COPY FROM: one INSERT per row
--
COPY vw (channel, id, status, qty, attributes) FROM stdin;
copy	c1	loaded	1	{"src": "copy"}
copy	c2	\N	2	{}
\.
SELECT channel, id, status, qty, attributes FROM vw WHERE channel = 'copy' ORDER BY id;
SELECT pg_temp.try($$COPY vw (channel, id) FROM PROGRAM 'printf "copy\tc1\n"'$$);

-- a COPY hands its rows to the batch path a thousand at a time; a key that
-- exists, in any batch, fails the whole COPY; so does one given twice
SELECT ots.create_table('vw_copy', 'k integer', partitions => 2, defined_columns => 'v string');
COPY vw_copy (k, v) FROM PROGRAM $$awk 'BEGIN { for (i = 1; i <= 2500; i++) printf "%d\tv%d\n", i, i }'$$;
SELECT count(*), min(k), max(k), count(DISTINCT v) FROM vw_copy;
SELECT pg_temp.try($q$COPY vw_copy (k, v) FROM PROGRAM $$awk 'BEGIN { for (i = 2501; i <= 4000; i++) printf "%d\tv\n", i; print "2500\tagain" }'$$$q$);
SELECT pg_temp.try($q$COPY vw_copy (k, v) FROM PROGRAM $$printf '9001\ta\n9001\tb\n'$$$q$);
SELECT count(*), max(k) FROM vw_copy;
-- a row the batch path refuses, as INSERT refuses it, alone (row_write) or
-- among others (the bulk path): a key column NULL, a key or a cell too
-- long, a request too large, a bad attribute name, a column given twice
SELECT pg_temp.try($q$COPY vw_copy (k, v) FROM PROGRAM $$printf '9101\ta\n\\N\tb\n'$$$q$);
SELECT pg_temp.try($q$COPY vw_copy (k, v) FROM PROGRAM $$printf '\\N\tb\n'$$$q$);
SELECT pg_temp.try($q$COPY vw (channel, id) FROM PROGRAM $$awk 'BEGIN { print "copy\tc9"; printf "copy\t%01100d\n", 0 }'$$$q$);
SELECT pg_temp.try($q$COPY vw_copy (k, v) FROM PROGRAM $$awk 'BEGIN { print "9201\ta"; printf "9202\t%02100000d\n", 0 }'$$$q$);
SELECT pg_temp.try($q$COPY vw (channel, id, status, attributes) FROM PROGRAM $$awk 'BEGIN { print "copy\tc9\ta\t{}"; printf "copy\tc10\t%01500000d\t{\"a\": \"%01500000d\", \"b\": \"%01500000d\"}\n", 0, 0, 0 }'$$$q$);
SELECT pg_temp.try($q$COPY vw (channel, id, attributes) FROM PROGRAM $$printf 'copy\tc9\t{}\ncopy\tc10\t{"bad name": 1}\n'$$$q$);
SELECT pg_temp.try($q$COPY vw (channel, id, qty, attributes) FROM PROGRAM $$printf 'copy\tc9\t1\t{}\ncopy\tc10\t1\t{"qty": 2}\n'$$$q$);
SELECT count(*) FROM vw WHERE channel = 'copy' AND id IN ('c9', 'c10');
-- what the bulk path stores: typed cells among the attributes, -0 as 0
COPY vw (channel, id, price, qty, attributes) FROM stdin;
copyz	z1	-0	\N	{"note": "a", "zz": true}
copyz	z2	1.5	7	{}
copyz	z3	\N	\N	\N
\.
SELECT channel, id, price, qty, attributes FROM vw WHERE channel = 'copyz' ORDER BY id;
SELECT pg_temp.api('vw', '{"channel": "copyz", "id": "z1"}');
DELETE FROM vw WHERE channel = 'copyz';
SELECT ots.delete_table('vw_copy');

-- data-modifying WITH: a write of the view in a CTE; two writes of one kind
-- are refused (the trigger could not tell their ON CONFLICT apart)
WITH gone AS (DELETE FROM vw WHERE channel = 'copy' RETURNING id) SELECT array_agg(id ORDER BY id) FROM gone;
SELECT pg_temp.try($$WITH a AS (INSERT INTO vw (channel, id) VALUES ('cte', '1') RETURNING id)
	INSERT INTO vw (channel, id) VALUES ('cte', '2')$$);
SELECT count(*) FROM vw WHERE channel = 'cte';

--
-- AUTO_INCREMENT, hash prefix, Integer and Binary keys
--
SELECT ots.create_table('vw_auto', 'p string, n integer auto_increment', defined_columns => 'v string');
INSERT INTO vw_auto (p, v) VALUES ('x', 'one'), ('x', 'two') RETURNING p, n > 0 AS generated, v;
SELECT count(DISTINCT n) FROM vw_auto;
SELECT ots.create_table('vw_hash', 'k string', hash_prefix_length => 2, defined_columns => 'v integer');
INSERT INTO vw_hash VALUES ('a', NULL, 1), ('b', NULL, 2);
UPDATE vw_hash SET v = v * 10;
SELECT k, v FROM vw_hash ORDER BY k;
SELECT (ots.get_row('vw_hash', '{"k": "b"}')).attributes;
SELECT ots.create_table('vw_bin', 'b binary, i integer', defined_columns => 'v boolean');
INSERT INTO vw_bin VALUES ('\x00ff', -1, NULL, true);
UPDATE vw_bin SET v = false WHERE b = '\x00ff' AND i = -1;
SELECT b, i, v FROM vw_bin;

-- a table name SQL must quote (Tablestore's names are case-sensitive)
SELECT ots.create_table('CamelOrders', 'Id string', defined_columns => 'Status string');
INSERT INTO "CamelOrders" ("Id", "Status") VALUES ('x', 'new');
UPDATE "CamelOrders" SET "Status" = 'paid' RETURNING "Id", "Status";
INSERT INTO "CamelOrders" ("Id", "Status") VALUES ('x', 'again') ON CONFLICT ("Id") DO UPDATE SET "Status" = EXCLUDED."Status";
SELECT (ots.get_row('CamelOrders', '{"Id": "x"}')).attributes;
DELETE FROM "CamelOrders";
SELECT ots.delete_table('CamelOrders');
-- an attribute changing type only (3 to 3.0: an Integer to a Double) is a change
SELECT ots.create_table('vw_num', 'k string');
SELECT ots.put_row('vw_num', '{"k": "a"}', '{"x": 3, "y": 1.0}');
UPDATE vw_num SET attributes = '{"x": 3.0, "y": 1}' RETURNING attributes;
SELECT ots.delete_table('vw_num');

--
-- capacity units: each row written counts as the row API's call would
--
SELECT ots.create_table('vw_cu', 'k string', defined_columns => 'v string');
SELECT ots.stats_reset('vw_cu');
INSERT INTO vw_cu VALUES ('a', NULL, 'x'), ('b', NULL, 'y');
UPDATE vw_cu SET v = 'z';
DELETE FROM vw_cu WHERE k = 'a';
SELECT rows_written, write_cu FROM ots.stats WHERE table_name = 'vw_cu';

--
-- an index's view is read-only
--
SELECT ots.create_table('vw_ix', 'k string', defined_columns => 'a string');
SELECT ots.create_index('vw_ix', 'vw_ix_a', '{a}', include_base_data => false);
INSERT INTO vw_ix VALUES ('k1', NULL, 'x');
SELECT * FROM vw_ix_a;
SELECT pg_temp.try($$INSERT INTO vw_ix_a VALUES ('y', 'k9', '{}')$$);
SELECT pg_temp.try($$DELETE FROM vw_ix_a$$);
-- and the table's view keeps its index exact
UPDATE vw_ix SET a = 'y';
SELECT * FROM vw_ix_a;

--
-- defined columns come and go; the view follows
--
SELECT ots.create_table('vw_dd', 'k string', defined_columns => 'b string');
INSERT INTO vw_dd VALUES ('r', NULL, 'bee');
CREATE VIEW vw_dd_b AS SELECT k, b FROM vw_dd;
GRANT SELECT, INSERT ON vw_dd TO PUBLIC;
-- added: a new column at the end, what depends on the view keeps working
SELECT ots.add_defined_column('vw_dd', 'a integer, c double');
SELECT a.attname FROM pg_attribute a WHERE a.attrelid = 'vw_dd'::regclass AND a.attnum > 0 ORDER BY a.attnum;
SELECT * FROM vw_dd_b;
-- removed while a view depends on the table's view: refused, naming it
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT ots.delete_defined_column('vw_dd', '{b}');
\set VERBOSITY terse
DROP VIEW vw_dd_b;
SELECT ots.delete_defined_column('vw_dd', '{b}');
SELECT a.attname FROM pg_attribute a WHERE a.attrelid = 'vw_dd'::regclass AND a.attnum > 0 ORDER BY a.attnum;
-- the table is still there, its grants, owner and trigger kept
SELECT k, attributes, a, c FROM vw_dd;
SELECT relacl FROM pg_class WHERE oid = 'vw_dd'::regclass;
SELECT tgname FROM pg_trigger WHERE tgrelid = 'vw_dd'::regclass;
SELECT count(*) FROM ots.tables WHERE table_name = 'vw_dd';
INSERT INTO vw_dd (k, a) VALUES ('s', 1);
SELECT k, a FROM vw_dd ORDER BY k;
-- column grants and comments stay with the columns kept
GRANT SELECT (k, a), UPDATE (a) ON vw_dd TO PUBLIC;
COMMENT ON VIEW vw_dd IS 'my orders';
COMMENT ON COLUMN vw_dd.a IS 'column a';
SELECT ots.delete_defined_column('vw_dd', '{c}');
SELECT a.attname, a.attacl, col_description(a.attrelid, a.attnum)
  FROM pg_attribute a WHERE a.attrelid = 'vw_dd'::regclass AND a.attnum > 0 ORDER BY a.attnum;
SELECT obj_description('vw_dd'::regclass, 'pg_class');
-- what takes the view's row type depends on it too
CREATE FUNCTION vw_dd_f(vw_dd) RETURNS text LANGUAGE sql AS 'SELECT $1.k';
SELECT pg_temp.try($$SELECT ots.delete_defined_column('vw_dd', '{a}')$$);
DROP FUNCTION vw_dd_f(vw_dd);
-- a defined column called attributes: the jsonb column is "$attributes"
SELECT ots.create_table('vw_attr', 'k string', defined_columns => 'attributes string');
INSERT INTO vw_attr (k, attributes) VALUES ('x', 'typed');
SELECT * FROM vw_attr;
-- and it can go again
SELECT ots.delete_defined_column('vw_attr', '{attributes}');
SELECT * FROM vw_attr;
SELECT pg_temp.try($$SELECT ots.add_defined_column('vw_dd', 'attributes string')$$);

--
-- transactions: a failed statement changes nothing, savepoints work
--
BEGIN;
INSERT INTO vw_cu VALUES ('t1', NULL, 'in');
SAVEPOINT s;
INSERT INTO vw_cu VALUES ('t1', NULL, 'dup');
ROLLBACK TO s;
UPDATE vw_cu SET v = 'updated' WHERE k = 't1';
COMMIT;
SELECT k, v FROM vw_cu WHERE k = 't1';
BEGIN;
DELETE FROM vw_cu;
ROLLBACK;
SELECT count(*) FROM vw_cu;

--
-- privileges: the view's, and the row API's on the storage
--
CREATE ROLE regress_ots_vw_owner;
CREATE ROLE regress_ots_vw_user;
-- a leaky function: it tells what rows it is given; and an operator made
-- of it, whose estimates read the statistics of what it compares
CREATE FUNCTION vw_leak(text) RETURNS boolean LANGUAGE plpgsql COST 0.0001 AS $$
BEGIN
	RAISE WARNING 'vw_leak saw %', $1;
	RETURN true;
END
$$;
CREATE FUNCTION vw_leak2(text, text) RETURNS boolean LANGUAGE plpgsql COST 0.0001 AS $$
BEGIN
	RAISE WARNING 'vw_leak2 saw %', $1;
	RETURN true;
END
$$;
CREATE OPERATOR <<< (LEFTARG = text, RIGHTARG = text, PROCEDURE = vw_leak2, RESTRICT = scalarltsel);
CREATE SCHEMA vws AUTHORIZATION regress_ots_vw_owner;
GRANT USAGE ON SCHEMA vws TO regress_ots_vw_user;
SET ROLE regress_ots_vw_owner;
SELECT ots.create_table('vws.t', 'tenant string, k integer', defined_columns => 'v string');
INSERT INTO vws.t VALUES ('a', 1, NULL, 'x'), ('b', 1, NULL, 'y');
ANALYZE vws."t$data";
-- the view's privileges only: the storage refuses the row API's writes
GRANT SELECT, INSERT, UPDATE, DELETE ON vws.t TO regress_ots_vw_user;
RESET ROLE;
SET ROLE regress_ots_vw_user;
SELECT pg_temp.try($$INSERT INTO vws.t VALUES ('a', 2, NULL, 'z')$$);
SELECT pg_temp.try($$UPDATE vws.t SET v = 'z'$$);
SELECT pg_temp.try($$DELETE FROM vws.t$$);
-- UPDATE and DELETE read the rows without the view's barrier: they refuse
-- before reading any row, so a function in the WHERE sees nothing
SELECT pg_temp.try($$UPDATE vws.t SET v = 'z' WHERE vw_leak(tenant)$$);
SELECT pg_temp.try($$DELETE FROM vws.t WHERE vw_leak(tenant)$$);
-- nor does EXPLAIN: the view keeps its barrier when the role may not read the storage
SELECT pg_temp.try($$EXPLAIN UPDATE vws.t SET v = 'z' WHERE tenant <<< 'z'$$);
RESET ROLE;
-- the storage's privileges only: the view refuses
SET ROLE regress_ots_vw_owner;
REVOKE ALL ON vws.t FROM regress_ots_vw_user;
GRANT SELECT ON vws.t TO regress_ots_vw_user;
GRANT SELECT, INSERT, UPDATE, DELETE ON vws."t$data" TO regress_ots_vw_user;
RESET ROLE;
SET ROLE regress_ots_vw_user;
SELECT pg_temp.try($$INSERT INTO vws.t VALUES ('a', 2, NULL, 'z')$$);
SELECT pg_temp.try($$UPDATE vws.t SET v = 'z'$$);
RESET ROLE;
-- both: writes work
SET ROLE regress_ots_vw_owner;
GRANT INSERT, UPDATE, DELETE ON vws.t TO regress_ots_vw_user;
RESET ROLE;
SET ROLE regress_ots_vw_user;
INSERT INTO vws.t VALUES ('a', 2, NULL, 'z');
UPDATE vws.t SET v = v || '!' WHERE tenant = 'a';
DELETE FROM vws.t WHERE k = 2;
RESET ROLE;
-- the storage's privileges are checked once, as the statement starts, for
-- what the row API's write of each of its rows needs (the detail says what)
CREATE FUNCTION pg_temp.try_detail(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	detail text;
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	RETURN SQLSTATE || ': ' || SQLERRM || ' (' || detail || ')';
END
$$;
SET ROLE regress_ots_vw_owner;
SELECT ots.create_table('vws.ai', 'p string, n integer auto_increment', defined_columns => 'v string');
GRANT SELECT, INSERT, UPDATE, DELETE ON vws.ai TO regress_ots_vw_user;
REVOKE ALL ON vws."t$data" FROM regress_ots_vw_user;
GRANT INSERT, UPDATE ON vws."t$data", vws."ai$data" TO regress_ots_vw_user;
RESET ROLE;
SET ROLE regress_ots_vw_user;
-- INSERT and UPDATE, no SELECT: an INSERT that names its key reads the
-- row (EXPECT_NOT_EXIST), which needs SELECT; a generated key reads nothing
SELECT pg_temp.try_detail($$INSERT INTO vws.t VALUES ('c', 1, NULL, 'no')$$);
SELECT pg_temp.try_detail($$INSERT INTO vws.ai VALUES ('c', NULL, NULL, 'yes'), ('c', NULL, NULL, 'yes')$$);
SELECT pg_temp.try_detail($$INSERT INTO vws.ai VALUES ('c', NULL, NULL, 'yes'), ('c', 1, NULL, 'no')$$);
SELECT pg_temp.try_detail($$UPDATE vws.t SET v = 'no'$$);
SELECT pg_temp.try_detail($$DELETE FROM vws.t$$);
RESET ROLE;
SET ROLE regress_ots_vw_owner;
REVOKE ALL ON vws."t$data" FROM regress_ots_vw_user;
GRANT SELECT, DELETE ON vws."t$data" TO regress_ots_vw_user;
RESET ROLE;
SET ROLE regress_ots_vw_user;
-- SELECT and DELETE: DELETE only; a statement is refused before its first
-- row, also one that writes none, as on a table
SELECT pg_temp.try_detail($$INSERT INTO vws.t SELECT * FROM vws.t WHERE false$$);
SELECT pg_temp.try_detail($$UPDATE vws.t SET v = 'no' WHERE k = 99$$);
SELECT pg_temp.try_detail($$DELETE FROM vws.t WHERE k = 99$$);
RESET ROLE;
-- a row written as another role than the one the statement started as (a
-- SET ROLE inside it) is checked as its own role
CREATE FUNCTION pg_temp.vw_become(r text, v text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SET ROLE %I', r);
	RETURN v;
END
$$;
SET ROLE regress_ots_vw_owner;
REVOKE ALL ON vws."t$data" FROM regress_ots_vw_user;
RESET ROLE;
SELECT pg_temp.try_detail($$INSERT INTO vws.t VALUES ('c', 1, NULL, pg_temp.vw_become('regress_ots_vw_user', 'no'))$$);
RESET ROLE;
SELECT pg_temp.try_detail($$UPDATE vws.t SET v = pg_temp.vw_become('regress_ots_vw_user', 'no') WHERE tenant = 'a'$$);
RESET ROLE;
SELECT pg_temp.try_detail($$DELETE FROM vws.t WHERE pg_temp.vw_become('regress_ots_vw_user', tenant) = 'a'$$);
RESET ROLE;
SELECT tenant, k, v FROM vws.t ORDER BY tenant, k;
SELECT p, v FROM vws.ai ORDER BY n;
SET ROLE regress_ots_vw_owner;
GRANT SELECT, INSERT, UPDATE, DELETE ON vws."t$data" TO regress_ots_vw_user;
SELECT ots.delete_table('vws.ai');
RESET ROLE;
-- a security barrier view over the table's view, as a tenant's: its writes
-- change the rows it shows, no other
SET ROLE regress_ots_vw_owner;
CREATE VIEW vws.t_a WITH (security_barrier) AS SELECT * FROM vws.t WHERE tenant = 'a';
GRANT SELECT, UPDATE, DELETE ON vws.t_a TO regress_ots_vw_user;
RESET ROLE;
SET ROLE regress_ots_vw_user;
UPDATE vws.t_a SET v = v || '+' RETURNING tenant, k, v;
DELETE FROM vws.t_a WHERE tenant = 'b' RETURNING tenant, k;
RESET ROLE;
SELECT tenant, k, v FROM vws.t ORDER BY tenant, k;
SET ROLE regress_ots_vw_owner;
DROP VIEW vws.t_a;
RESET ROLE;
-- row-level security on the storage applies to the writer: where its
-- policies apply, the row API refuses, and so does the view
SET ROLE regress_ots_vw_owner;
CREATE POLICY tenant_a ON vws."t$data" TO regress_ots_vw_user USING (tenant = 'a') WITH CHECK (tenant = 'a');
ALTER TABLE vws."t$data" ENABLE ROW LEVEL SECURITY;
RESET ROLE;
SET ROLE regress_ots_vw_user;
SELECT pg_temp.try($$SELECT ots.put_row('vws.t', '{"tenant": "b", "k": 5}')$$) AS api;
SELECT pg_temp.try($$INSERT INTO vws.t VALUES ('b', 5, NULL, 'no')$$) AS view_insert;
SELECT pg_temp.try($$UPDATE vws.t SET v = 'no' WHERE tenant = 'b'$$) AS view_update;
SELECT pg_temp.try($$DELETE FROM vws.t WHERE tenant = 'b'$$) AS view_delete;
SELECT pg_temp.try($$UPDATE vws.t SET v = 'no' WHERE vw_leak(tenant)$$) AS view_update_leak;
RESET ROLE;
SELECT tenant, k, v FROM vws.t ORDER BY tenant, k;

-- clean up
SELECT ots.delete_table('vws.t');
DROP SCHEMA vws;
DROP ROLE regress_ots_vw_owner;
DROP ROLE regress_ots_vw_user;
DROP OPERATOR <<< (text, text);
DROP FUNCTION vw_leak(text);
DROP FUNCTION vw_leak2(text, text);
SELECT ots.delete_table(t) FROM unnest(ARRAY['vw', 'vw_late', 'vw_noupd', 'vw_auto', 'vw_hash', 'vw_bin',
	'vw_cu', 'vw_ix', 'vw_dd', 'vw_attr']) t;
