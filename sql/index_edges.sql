-- index_edges: secondary indexes at their edges (each case failed before
-- its fix): plain DROP of a table or an index, the owner of an index,
-- cells stored before their column was defined, an attribute named as a
-- key column, index keys over 1 KB, a table rewritten during a build, a
-- TTL set after the rows, security_invoker views, who may start a build.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
RESET client_min_messages;
SET ots.index_build_worker = off;

CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

--
-- a plain DROP of a table drops its indexes; one of an index leaves the
-- table writable, without the index
--
SELECT ots.create_table('ed', 'id string', partitions => 2, defined_columns => 'seller string, card string');
SELECT ots.create_index('ed', 'ed_seller', '{seller}', '{card}', include_base_data => false);
SELECT ots.create_index('ed', 'ed_card', '{card}', include_base_data => false);
SELECT consumed FROM ots.put_row('ed', '{"id": "a1"}', '{"seller": "shop", "card": "4111"}');
DROP VIEW ed_card;
SELECT consumed FROM ots.put_row('ed', '{"id": "a2"}', '{"seller": "shop", "card": "4222"}');
SELECT table_name FROM ots.tables WHERE table_name LIKE 'ed%' ORDER BY 1;
SELECT relname FROM pg_class WHERE relname LIKE 'ed\_card%' ORDER BY 1;
DROP TABLE "ed$data" CASCADE;
SELECT table_name FROM ots.tables WHERE table_name LIKE 'ed%' ORDER BY 1;
SELECT relname FROM pg_class WHERE relname LIKE 'ed%' ORDER BY 1;
-- the name serves a new table, with another key type, and no index of the old one
SELECT ots.create_table('ed', 'id integer', partitions => 1);
SELECT ots.describe_table('ed') -> 'index_metas' AS index_metas;
SELECT consumed FROM ots.put_row('ed', '{"id": 42}', '{"seller": "x"}');
SELECT pg_temp.try($$SELECT ots.get_row('ed_seller', '{"seller": "shop", "id": "a1"}')$$);
SELECT ots.delete_table('ed');

--
-- an index is its table's owner's, and follows OWNER TO of the table
--
CREATE ROLE ed_alice;
CREATE ROLE ed_bob;
GRANT CREATE ON SCHEMA public TO ed_alice;
SET ROLE ed_alice;
SELECT ots.create_table('eo', 'id string', partitions => 1, defined_columns => 'seller string');
SELECT consumed FROM ots.put_row('eo', '{"id": "a"}', '{"seller": "x"}');
RESET ROLE;
-- made by a superuser, the index is alice's
SELECT ots.create_index('eo', 'eo_seller', '{seller}');
CALL ots.build_index('eo', 'eo_seller');
SELECT c.relname, c.relowner::regrole FROM pg_class c
 WHERE c.relname LIKE 'eo%' AND c.relkind IN ('r', 'p', 'v') ORDER BY 1;
SET ROLE ed_alice;
SELECT id FROM eo WHERE attributes ->> 'seller' = 'x';
SELECT primary_key FROM ots.get_row('eo_seller', '{"seller": "x", "id": "a"}');
RESET ROLE;
ALTER TABLE "eo$data" OWNER TO ed_bob;
SELECT c.relname, c.relowner::regrole FROM pg_class c
 WHERE c.relname LIKE 'eo%' AND c.relkind IN ('r', 'p', 'v') ORDER BY 1;
SET ROLE ed_alice;
SELECT pg_temp.try($$SELECT count(*) FROM "eo_seller$data"$$);
RESET ROLE;
-- the index alone changes owner only to its table's
SELECT pg_temp.try($$ALTER TABLE "eo_seller$data" OWNER TO ed_alice$$);
SET ROLE ed_bob;
SELECT id FROM eo WHERE attributes ->> 'seller' = 'x';
RESET ROLE;
-- a view of the index's view goes with DROP ... CASCADE of the table
CREATE VIEW eo_user AS SELECT * FROM eo_seller;
DROP TABLE "eo$data" CASCADE;
SELECT count(*) FROM pg_class WHERE relname LIKE 'eo%';
REVOKE CREATE ON SCHEMA public FROM ed_alice;
DROP ROLE ed_alice;
DROP ROLE ed_bob;

--
-- cells stored before their column was defined: an indexed one of another
-- type stops the build by name (so a complete index lacks no row that has
-- the column); a covered one of another type is left out of the entry
--
SELECT ots.create_table('el', 'id string', partitions => 1);
SELECT consumed FROM ots.put_row('el', '{"id": "a"}', '{"seller": 5, "amount": 5}');
SELECT consumed FROM ots.put_row('el', '{"id": "b"}', '{"seller": "5", "amount": "five"}');
SELECT ots.add_defined_column('el', 'seller string, amount string');
SELECT ots.create_index('el', 'el_seller', '{seller}');
CALL ots.build_index('el', 'el_seller');
SELECT index_phase FROM ots.tables WHERE table_name = 'el_seller';
SELECT id FROM el WHERE attributes ->> 'seller' = '5' ORDER BY id;
-- the row written again with the column's type, the build completes
SELECT consumed FROM ots.update_row('el', '{"id": "a"}', put => '{"seller": "5"}');
CALL ots.build_index('el', 'el_seller');
SELECT seller, id FROM el_seller ORDER BY id;
SELECT id FROM el WHERE attributes ->> 'seller' = '5' ORDER BY id;
-- an index covering amount: a's Integer 5 is not an amount of the index
SELECT ots.create_index('el', 'el_cover', '{seller}', '{amount}');
CALL ots.build_index('el', 'el_cover');
SELECT id, attributes FROM el_cover ORDER BY id;
SELECT consumed FROM ots.update_row('el', '{"id": "a"}', put => '{"seller": "6"}');
SELECT seller, id, attributes FROM el_cover ORDER BY id;
SELECT ots.delete_table('el');
-- a Double and a Boolean stored before their columns were defined (as
-- String) stay as they are through writes of other columns
SELECT ots.create_table('el', 'id string', partitions => 1);
SELECT consumed FROM ots.put_row('el', '{"id": "a"}', '{"d": 1.5, "b": true, "s": "x"}');
SELECT ots.add_defined_column('el', 'd string, b string');
SELECT consumed FROM ots.update_row('el', '{"id": "a"}', put => '{"s": "y"}');
SELECT consumed FROM ots.update_row('el', '{"id": "a"}', put => '{"s": "z"}');
SELECT attributes FROM el;
-- a new cell of another type is refused
SELECT consumed FROM ots.update_row('el', '{"id": "a"}', put => '{"d": 2.5}');
SELECT ots.delete_table('el');

--
-- an attribute named as a key column is not that key column
--
SELECT ots.create_table('ek', 'id string, k integer', partitions => 2, defined_columns => 'seller string');
SELECT consumed FROM ots.put_row('ek', '{"id": "a", "k": 1}', '{"id": "zzz", "k": 5, "seller": "s"}');
SELECT ots.create_index('ek', 'ek_id', '{id}', include_base_data => false);
SELECT ots.create_index('ek', 'ek_k', '{k, seller}');
CALL ots.build_index('ek', 'ek_k');
SELECT id, k FROM ek WHERE attributes ->> 'id' = 'zzz';
SELECT id, k FROM ek WHERE (attributes ->> 'k')::int8 = 5;
SELECT id, k FROM ek WHERE k = 1 AND attributes ->> 'seller' = 's';
EXPLAIN (COSTS OFF) SELECT id FROM ek WHERE k = 1 AND attributes ->> 'seller' = 's';
SELECT ots.delete_table('ek');

--
-- an index key is a primary key value: 1 KB at most
--
SELECT ots.create_table('eb', 'id string', partitions => 1, defined_columns => 'seller string');
SELECT consumed FROM ots.put_row('eb', '{"id": "long"}', format('{"seller": "%s"}', repeat('x', 2000))::jsonb);
SELECT ots.create_index('eb', 'eb_seller', '{seller}');
CALL ots.build_index('eb', 'eb_seller');
SELECT consumed FROM ots.delete_row('eb', '{"id": "long"}');
CALL ots.build_index('eb', 'eb_seller');
-- in a batch, such a row fails alone (the bulk way and per row)
SELECT index, is_ok, error_code FROM ots.batch_write_row(format('[{"table_name": "eb", "rows": [
	{"type": "PUT", "primary_key": {"id": "b1"}, "attributes": {"seller": "ok"}},
	{"type": "PUT", "primary_key": {"id": "b2"}, "attributes": {"seller": "%s"}},
	{"type": "UPDATE", "primary_key": {"id": "b3"}, "put": {"seller": "%s"}}]}]', repeat('y', 1025), repeat('z', 1025))::jsonb);
SELECT seller, id FROM eb_seller ORDER BY id;
SELECT ots.delete_table('eb');

--
-- a leaf rewritten between two batches of a build (VACUUM FULL moves rows
-- into blocks already read): the build reads the leaf again
--
SELECT ots.create_table('ev', 'id integer', partitions => 1, defined_columns => 'tag string');
INSERT INTO "ev$data" (id, "$cells", "$oldest_ts")
SELECT i, format('{"row_ts": 1, "cells": {"tag": [{"ts": 1, "value": "t%s"}]}}', i % 10)::ots.cells, 1
  FROM generate_series(1, 3000) i;
SELECT ots.create_index('ev', 'ev_tag', '{tag}');
SELECT next_block FROM ots.index_backfill_batch('public', 'ev_tag', '"ev$p0"', 0, 10, 0) b \gset
SELECT filenode AS seen FROM ots.index_backfill_batch('public', 'ev_tag', '"ev$p0"', 0, 10, 0) b \gset
DELETE FROM "ev$data" WHERE id <= 250;
VACUUM FULL "ev$p0";
-- (the batch after block 10 starts at block 0 again: its next block is 10)
SELECT filenode <> :seen AS rewritten, next_block FROM ots.index_backfill_batch('public', 'ev_tag', '"ev$p0"', :next_block, 10, :seen) b;
CALL ots.build_index('ev', 'ev_tag');
SELECT (SELECT count(*) FROM ev) AS rows, (SELECT count(*) FROM ev_tag) AS entries;
SELECT ots.delete_table('ev');

--
-- a TTL set after the rows were written: entries stay visible with their rows
--
SELECT ots.create_table('et', 'id string', partitions => 1, allow_update => false,
						defined_columns => 'seller string');
SELECT (extract(epoch FROM now()) * 1000)::bigint + 3600000 AS later \gset
SELECT consumed FROM ots.put_row('et', '{"id": "a"}', format('{"seller": {"value": "x", "ts": %s}}', :later)::jsonb);
SELECT ots.create_index('et', 'et_seller', '{seller}');
CALL ots.build_index('et', 'et_seller');
SET client_min_messages = warning;
SELECT ots.update_table('et', time_to_live => 2);
RESET client_min_messages;
SELECT pg_sleep(3);
SELECT id, attributes FROM et;
SELECT seller, id FROM et_seller;
SELECT ots.delete_table('et');

--
-- a security_invoker view reads through the index with the reader's rights
-- on the table; none are needed on the index
--
SELECT ots.create_table('es', 'id string', partitions => 1, defined_columns => 'seller string');
SELECT consumed FROM ots.put_row('es', '{"id": "a"}', '{"seller": "x"}');
SELECT ots.create_index('es', 'es_seller', '{seller}');
CALL ots.build_index('es', 'es_seller');
ALTER VIEW es SET (security_invoker = true);
CREATE ROLE es_reader;
GRANT SELECT ON es, "es$data" TO es_reader;
SET ROLE es_reader;
SELECT id FROM es WHERE attributes ->> 'seller' = 'x';
RESET ROLE;
REVOKE ALL ON es, "es$data" FROM es_reader;
DROP ROLE es_reader;
SELECT ots.delete_table('es');

--
-- the build worker: started when the transaction that creates an index
-- commits, by that transaction only
--
SELECT ots.create_table('ew', 'id string', partitions => 2, defined_columns => 'seller string');
SELECT count(*) FROM generate_series(1, 500) i,
  LATERAL ots.put_row('ew', jsonb_build_object('id', 'r' || i), jsonb_build_object('seller', 's' || i % 7)) p;
SET ots.index_build_worker = on;
SELECT ots.create_index('ew', 'ew_seller', '{seller}');
SET ots.index_build_worker = off;
DO $$
BEGIN
	FOR i IN 1 .. 600 LOOP
		EXIT WHEN (SELECT index_phase FROM ots.tables WHERE table_name = 'ew_seller') = 'INCR';
		PERFORM pg_sleep(0.1);
	END LOOP;
END
$$;
SELECT index_phase, (SELECT count(*) FROM ew_seller) AS entries FROM ots.tables WHERE table_name = 'ew_seller';
SELECT pg_temp.try($$SELECT ots.index_build_launch('public', 'ew_seller')$$);
SELECT ots.delete_table('ew');
