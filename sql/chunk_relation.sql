-- chunk_relation: every ots table and every index's own storage has its
-- chunk relation s."t$chunk" (docs/design.md, "Storage layout" and "Wide
-- rows: heads and chunks"), which holds the cells of split rows: the
-- stored key columns as the storage has them, "$column", "$ts", "$cells",
-- "$oldest_ts", keyed by the stored key, "$column" and "$ts"; on the ots
-- access method, unpartitioned, the storage's owner's, with "t$cttl" on
-- "$oldest_ts" while the table has a TTL.  The DDL guard keeps it as ots
-- made it, the write point's guard checks each chunk plain SQL writes,
-- ots.verify checks its shape and its chunks, and it goes with its table.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

CREATE ROLE regress_ots_chunk_owner;
CREATE ROLE regress_ots_chunk_heir;
CREATE ROLE regress_ots_chunk_other;
CREATE SCHEMA ck AUTHORIZATION regress_ots_chunk_owner;
GRANT CREATE ON SCHEMA ck TO regress_ots_chunk_other;

-- the SQLSTATE and message of a statement's error, or "ok"
CREATE FUNCTION pg_temp.try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

-- the shape of relation rel: kind, partition or not, access method, owner
-- (and whether it is the storage's), options, columns with their types,
-- collations and NOT NULL, the primary key's columns in order, and whether
-- it is a member of an extension
CREATE FUNCTION pg_temp.shape(rel regclass, storage regclass)
	RETURNS TABLE (what text, shape text) LANGUAGE sql AS $$
	SELECT 'relation', format('kind %s, partition %s, am %s, storage''s owner %s, options %s, extension member %s',
							  c.relkind, c.relispartition, a.amname, c.relowner = s.relowner, c.reloptions,
							  EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
										 AND d.objid = c.oid AND d.deptype = 'e'))
	  FROM pg_class c JOIN pg_am a ON a.oid = c.relam, pg_class s
	 WHERE c.oid = rel AND s.oid = storage
	UNION ALL
	SELECT 'columns', string_agg(format('%s %s%s%s', a.attname, format_type(a.atttypid, a.atttypmod),
										CASE WHEN a.attcollation <> 0 THEN ' COLLATE ' || quote_ident(l.collname) ELSE '' END,
										CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END), ', ' ORDER BY a.attnum)
	  FROM pg_attribute a LEFT JOIN pg_collation l ON l.oid = a.attcollation
	 WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped
	UNION ALL
	SELECT 'primary key', (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.n)
							 FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
							 JOIN pg_attribute a ON a.attrelid = rel AND a.attnum = k.attnum)
						  || ' (' || am.amname || ')'
	  FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_am am ON am.oid = x.relam
	 WHERE i.indrelid = rel AND i.indisprimary
	UNION ALL
	SELECT 'other indexes', coalesce(string_agg(pg_get_indexdef(i.indexrelid), '; ' ORDER BY i.indexrelid::regclass::text), 'none')
	  FROM pg_index i WHERE i.indrelid = rel AND NOT i.indisprimary
$$;

--
-- the layout, for every shape of key: 1 to 4 key columns of each type, a
-- hash prefix, a TTL, and the storage of a GLOBAL and a LOCAL index
--
SET ROLE regress_ots_chunk_owner;
SELECT ots.create_table('ck.one', 'k string');
SELECT ots.create_table('ck.two', 'k binary, n integer', partitions => 2);
SELECT ots.create_table('ck.three', 'a integer, B string, c binary');
SELECT ots.create_table('ck.four', 'p string, q integer auto_increment, r binary, s string',
						time_to_live => 86400, defined_columns => 'v integer');
SELECT ots.create_table('ck.hashed', 'h integer, k string', hash_prefix_length => 3, partitions => 4);
SET ots.index_build_worker = off;
SELECT ots.create_table('ck.ix', 'k string, n integer', defined_columns => 'v integer, w string');
SELECT ots.create_index('ck.ix', 'ix_v', ARRAY['v'], ARRAY['w']);
SELECT ots.create_index('ck.ix', 'ix_local', ARRAY['k', 'w'], index_type => 'LOCAL');
RESET ROLE;
SELECT t AS "table", s.what, s.shape
  FROM unnest(ARRAY['one', 'two', 'three', 'four', 'hashed', 'ix', 'ix_v', 'ix_local']) WITH ORDINALITY u(t, n),
	   LATERAL pg_temp.shape(format('ck.%I', t || '$chunk')::regclass, format('ck.%I', t || '$data')::regclass) s
 ORDER BY u.n, s.what;

-- the TTL index follows the table's TTL
SET ROLE regress_ots_chunk_owner;
SELECT ots.update_table('ck.four', time_to_live => -1);
SELECT to_regclass('ck."four$cttl"') AS cttl_without_ttl, to_regclass('ck."four$ttl"') AS ttl_without_ttl;
SELECT ots.update_table('ck.four', time_to_live => 3600);
SELECT indexrelid::regclass AS index, pg_get_indexdef(indexrelid) FROM pg_index
 WHERE indrelid IN ('ck."four$chunk"'::regclass, 'ck."four$data"'::regclass) AND NOT indisprimary ORDER BY 1::text;
RESET ROLE;

--
-- DDL on it is refused as on the storage, for the owner and a superuser alike
--
SELECT s.statement, pg_temp.try(s.statement) AS result
  FROM (VALUES
	('ALTER TABLE ck."one$chunk" ADD COLUMN x integer'),
	('ALTER TABLE ck."one$chunk" DROP COLUMN "$oldest_ts"'),
	('ALTER TABLE ck."one$chunk" ALTER COLUMN "$ts" TYPE numeric'),
	('ALTER TABLE ck."one$chunk" ALTER COLUMN "$column" DROP NOT NULL'),
	('ALTER TABLE ck."one$chunk" ALTER COLUMN "$ts" SET DEFAULT 0'),
	('ALTER TABLE ck."one$chunk" ADD CHECK ("$ts" > 0)'),
	('ALTER TABLE ck."one$chunk" DROP CONSTRAINT "one$chunk_pkey"'),
	('ALTER TABLE ck."one$chunk" SET ACCESS METHOD heap'),
	('ALTER TABLE ck."one$chunk" SET UNLOGGED'),
	('ALTER TABLE ck."one$chunk" RENAME TO other'),
	('ALTER TABLE ck."one$chunk" RENAME COLUMN "$ts" TO ts'),
	('ALTER TABLE ck."one$chunk" SET SCHEMA public'),
	('ALTER TABLE ck."one$chunk" OWNER TO regress_ots_chunk_other'),
	('CREATE TRIGGER t BEFORE INSERT ON ck."one$chunk" FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()'),
	('CREATE RULE r AS ON INSERT TO ck."one$chunk" DO INSTEAD NOTHING'),
	('CREATE TABLE ck.p (k text) PARTITION BY LIST (k)'),
	('ALTER TABLE ck.p ATTACH PARTITION ck."one$chunk" FOR VALUES IN (''a'')'),
	('CREATE TABLE ck.child () INHERITS (ck."one$chunk")'),
	('CREATE TABLE ck.child (k text)'),
	('ALTER TABLE ck.child INHERIT ck."one$chunk"'),
	('ALTER TABLE ck."one$chunk" INHERIT ck.child'),
	('CREATE TABLE ck.r (k text COLLATE "C", c text COLLATE "C", t int8, FOREIGN KEY (k, c, t) REFERENCES ck."one$chunk")'),
	('DROP TABLE ck."one$chunk"'),
	-- what cannot hurt passes
	('CREATE INDEX one_chunk_ts ON ck."one$chunk" ("$ts")'),
	('ALTER TABLE ck."one$chunk" SET (autovacuum_enabled = false)'),
	('ALTER TABLE ck."one$chunk" ENABLE ROW LEVEL SECURITY'),
	('COMMENT ON TABLE ck."one$chunk" IS ''the chunks'''),
	('ANALYZE ck."one$chunk"')
  ) s(statement);
SET ROLE regress_ots_chunk_owner;
SELECT pg_temp.try('ALTER TABLE ck."one$chunk" ADD COLUMN x integer') AS owner_adds_a_column,
	   pg_temp.try('DROP TABLE ck."one$chunk"') AS owner_drops_it;
RESET ROLE;

-- OWNER TO on the storage carries the chunk relations of the table and its indexes
ALTER TABLE ck."ix$data" OWNER TO regress_ots_chunk_heir;
SELECT c.relname, c.relowner::regrole FROM pg_class c
 WHERE c.relnamespace = 'ck'::regnamespace AND c.relname LIKE 'ix%' AND c.relkind IN ('r', 'p', 'v')
 ORDER BY c.relname COLLATE "C";
ALTER TABLE ck."ix$data" OWNER TO regress_ots_chunk_owner;

-- a name another role took: create_table refuses, and no table claims it
SET ROLE regress_ots_chunk_other;
CREATE TABLE ck."taken$chunk" (x integer);
RESET ROLE;
SET ROLE regress_ots_chunk_owner;
SELECT pg_temp.try($$SELECT ots.create_table('ck.taken', 'k string')$$) AS create_taken;
RESET ROLE;
SELECT pg_temp.try('ALTER TABLE ck."taken$chunk" ADD COLUMN y integer') AS not_guarded;
DROP TABLE ck."taken$chunk";

--
-- a split row's cells are readable exactly where its head is: GRANT,
-- REVOKE and row security on the storage carry to its chunk relation
-- (table and column privileges; "$cells"'s to "$column" and "$ts"), and
-- are refused on the chunk relation alone
--
-- the privileges and row security (enabled/forced) of t's storage and chunk relation
CREATE FUNCTION pg_temp.access(t text) RETURNS TABLE (relation name, acl text, rls text, column_acls text)
	LANGUAGE sql AS $$
	SELECT c.relname, coalesce(c.relacl::text, 'default'), format('%s/%s', c.relrowsecurity, c.relforcerowsecurity),
		   (SELECT string_agg(format('%s=%s', a.attname, a.attacl), ' ' ORDER BY a.attnum)
			  FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attacl IS NOT NULL)
	  FROM pg_class c
	 WHERE c.oid IN (format('ca.%I', t || '$data')::regclass, format('ca.%I', t || '$chunk')::regclass)
	 ORDER BY c.relname COLLATE "C"
$$;
CREATE SCHEMA ca AUTHORIZATION regress_ots_chunk_owner;
SET ROLE regress_ots_chunk_owner;
GRANT USAGE ON SCHEMA ca TO regress_ots_chunk_other, regress_ots_chunk_heir;
SELECT ots.create_table('ca.one', 'k string');
SELECT ots.create_table('ca.two', 'k binary, n integer', partitions => 2);
SELECT consumed FROM ots.put_row('ca.one', '{"k": "wide"}',
								 jsonb_build_object('a', repeat('x', 3000), 'b', repeat('y', 3000)));
SELECT count(*) > 1 AS one_row_split FROM ca."one$chunk";
GRANT SELECT ON ca."one$data" TO regress_ots_chunk_other;
GRANT SELECT (k, "$cells") ON ca."two$data" TO regress_ots_chunk_heir;
RESET ROLE;
SELECT * FROM pg_temp.access('one');
SELECT * FROM pg_temp.access('two');
SET ROLE regress_ots_chunk_other;
SELECT count(*) > 1 AS other_reads_chunks FROM ca."one$chunk";
RESET ROLE;
SET ROLE regress_ots_chunk_owner;
REVOKE SELECT ON ca."one$data" FROM regress_ots_chunk_other;
REVOKE SELECT (k, "$cells") ON ca."two$data" FROM regress_ots_chunk_heir;
RESET ROLE;
SELECT * FROM pg_temp.access('one');
SELECT * FROM pg_temp.access('two');
SET ROLE regress_ots_chunk_other;
SELECT pg_temp.try('SELECT count(*) FROM ca."one$chunk"') AS other_after_revoke;
RESET ROLE;
-- a schema-wide grant reaches both; row security on the storage then
-- hides the chunks as it hides the heads (no policy: nothing)
SET ROLE regress_ots_chunk_owner;
GRANT SELECT ON ALL TABLES IN SCHEMA ca TO regress_ots_chunk_other;
ALTER TABLE ca."one$data" ENABLE ROW LEVEL SECURITY;
RESET ROLE;
SELECT * FROM pg_temp.access('one');
SET ROLE regress_ots_chunk_other;
SELECT (SELECT count(*) FROM ca."one$data") AS heads_seen, (SELECT count(*) FROM ca."one$chunk") AS chunks_seen;
RESET ROLE;
ALTER TABLE ca."one$data" FORCE ROW LEVEL SECURITY;
SELECT * FROM pg_temp.access('one');
-- on the chunk relation alone: refused, for the owner and a superuser alike
SET ROLE regress_ots_chunk_owner;
SELECT s.statement, pg_temp.try(s.statement) AS result
  FROM (VALUES
	('GRANT SELECT ON ca."one$chunk" TO regress_ots_chunk_heir'),
	('REVOKE SELECT ON ca."one$chunk" FROM regress_ots_chunk_other'),
	('GRANT SELECT ON ca."one$data", ca."one$chunk" TO regress_ots_chunk_heir'),
	('ALTER TABLE ca."one$chunk" DISABLE ROW LEVEL SECURITY')
  ) s(statement);
RESET ROLE;
SELECT pg_temp.try('ALTER TABLE ca."one$chunk" NO FORCE ROW LEVEL SECURITY') AS superuser_unforces_chunk;
SELECT * FROM pg_temp.access('one');
SET ROLE regress_ots_chunk_owner;
ALTER TABLE ca."one$data" NO FORCE ROW LEVEL SECURITY, DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON ALL TABLES IN SCHEMA ca FROM regress_ots_chunk_other;
RESET ROLE;
SELECT * FROM pg_temp.access('one');
-- ots.verify reports a chunk relation whose access is not its storage's
-- (here with the event trigger off), and ots.chunk_relation_follow mends it
ALTER EVENT TRIGGER ots_storage_access DISABLE;
GRANT SELECT ON ca."two$data" TO regress_ots_chunk_other;
ALTER EVENT TRIGGER ots_storage_access ENABLE;
SELECT ots_table, relation, kind, problem, detail FROM ots.verify('ca.two', amcheck => false);
SET ROLE regress_ots_chunk_other;
SELECT pg_temp.try($$SELECT ots.chunk_relation_follow('ca."two$chunk"')$$) AS other_follows;
RESET ROLE;
SET ROLE regress_ots_chunk_owner;
SELECT ots.chunk_relation_follow('ca."two$chunk"');
RESET ROLE;
SELECT count(*) AS problems_after_follow FROM ots.verify('ca.two', amcheck => false);
SELECT * FROM pg_temp.access('two');
DROP SCHEMA ca CASCADE;

--
-- publications carry a table's storage (or a leaf) only with its chunk
-- relation, and never an index's
--
SELECT s.statement, pg_temp.try(s.statement) AS result
  FROM (VALUES
	('CREATE PUBLICATION ck_alone FOR TABLE ck."one$data"'),
	('CREATE PUBLICATION ck_leaf FOR TABLE ck."two$p1"'),
	('CREATE PUBLICATION ck_pub FOR TABLE ck."one$data", ck."one$chunk"'),
	('ALTER PUBLICATION ck_pub ADD TABLE ck."two$data"'),
	('ALTER PUBLICATION ck_pub ADD TABLE ck."two$chunk"'),
	('ALTER PUBLICATION ck_pub ADD TABLE ck."two$data"'),
	('ALTER PUBLICATION ck_pub DROP TABLE ck."one$chunk"'),
	('ALTER PUBLICATION ck_pub DROP TABLE ck."one$data"'),
	('ALTER PUBLICATION ck_pub DROP TABLE ck."one$chunk"'),
	('ALTER PUBLICATION ck_pub SET TABLE ck."three$data"'),
	('ALTER PUBLICATION ck_pub ADD TABLE ck."ix_v$chunk"'),
	('DROP PUBLICATION ck_pub')
  ) s(statement);

--
-- the write point takes a chunk relation's rows for chunks: each one plain
-- SQL writes (COPY, INSERT, UPDATE) is checked before it is stored
--
SET ROLE regress_ots_chunk_owner;
-- a good chunk: its first cell (column "B" sorts before "a", bytewise) at
-- its oldest timestamp, its row marker its newest cell, "$oldest_ts" its oldest
SELECT pg_temp.try($$INSERT INTO ck."one$chunk" VALUES ('x', 'B', 5,
	'{"row_ts": 9, "cells": {"B": [{"ts": 7, "value": 1}, {"ts": 5, "value": "b"}], "a": [{"ts": 9, "value": true}, {"ts": 3, "value": 0.5}]}}', 3)$$) AS good;
-- each rule
SELECT s.rule, pg_temp.try(format('INSERT INTO ck."one$chunk" VALUES (%s)', s.chunk)) AS result
  FROM (VALUES
	('no cells', $$'y', 'a', 5, '{"row_ts": 5, "cells": {}}', 5$$),
	('"$column" not the first column (bytewise: "B" < "a")', $$'y', 'a', 5, '{"row_ts": 7, "cells": {"B": [{"ts": 7, "value": 1}], "a": [{"ts": 5, "value": 1}]}}', 5$$),
	('"$ts" the newest of the first column, not its oldest', $$'y', 'c', 7, '{"row_ts": 7, "cells": {"c": [{"ts": 7, "value": 1}, {"ts": 5, "value": 2}]}}', 5$$),
	('"$ts" of another column', $$'y', 'c', 3, '{"row_ts": 7, "cells": {"c": [{"ts": 7, "value": 1}], "d": [{"ts": 3, "value": 2}]}}', 3$$),
	('row marker past the newest cell', $$'y', 'c', 5, '{"row_ts": 8, "cells": {"c": [{"ts": 7, "value": 1}, {"ts": 5, "value": 2}]}}', 5$$),
	('row marker before the newest cell', $$'y', 'c', 5, '{"row_ts": 6, "cells": {"c": [{"ts": 7, "value": 1}, {"ts": 5, "value": 2}]}}', 5$$),
	('"$oldest_ts" not the oldest cell', $$'y', 'c', 7, '{"row_ts": 7, "cells": {"c": [{"ts": 7, "value": 1}], "d": [{"ts": 2, "value": 1}]}}', 7$$),
	('a key longer than Tablestore''s', $$repeat('k', 1025), 'c', 5, '{"row_ts": 5, "cells": {"c": [{"ts": 5, "value": 1}]}}', 5$$)
  ) s(rule, chunk);
-- "$hash" of a hash-prefixed table: the hash prefix of its partition key
SELECT pg_temp.try($$INSERT INTO ck."hashed$chunk" VALUES (0, 7, 'k', 'c', 5, '{"row_ts": 5, "cells": {"c": [{"ts": 5, "value": 1}]}}', 5)$$) AS wrong_hash,
	   pg_temp.try(format($$INSERT INTO ck."hashed$chunk" VALUES (%s, 7, 'k', 'c', 5, '{"row_ts": 5, "cells": {"c": [{"ts": 5, "value": 1}]}}', 5)$$,
						  ('x' || lpad(ots.hash_prefix(7::bigint, 3), 16, '0'))::bit(64)::bigint)) AS right_hash;
-- an UPDATE is checked as an INSERT is, and COPY too
SELECT pg_temp.try($$UPDATE ck."one$chunk" SET "$ts" = 7 WHERE k = 'x'$$) AS bad_update,
	   pg_temp.try($$UPDATE ck."one$chunk" SET "$oldest_ts" = 3 WHERE k = 'x'$$) AS same_update;
COPY ck."one$chunk" FROM stdin;
z	q	1	{"row_ts": 1, "cells": {"q": [{"ts": 1, "value": "copied"}]}}	1
\.
COPY ck."one$chunk" FROM stdin;
w	q	2	{"row_ts": 1, "cells": {"q": [{"ts": 1, "value": "copied"}]}}	1
\.
SELECT k, "$column", "$ts", "$cells", "$oldest_ts" FROM ck."one$chunk" ORDER BY k;
RESET ROLE;
-- TRUNCATE would take the cells of split rows and leave their heads: only
-- with the whole table, in one statement, the storage first
SELECT s.statement, pg_temp.try(s.statement) AS result
  FROM (VALUES
	('TRUNCATE ck."one$chunk"'),
	('TRUNCATE ck."one$chunk", ck."one$data"'),
	('TRUNCATE ck."one$data", ck."one$chunk"')
  ) s(statement);
SELECT count(*) AS chunks_after_truncate FROM ck."one$chunk";
SET ROLE regress_ots_chunk_owner;
INSERT INTO ck."one$chunk" VALUES ('x', 'B', 5,
	'{"row_ts": 9, "cells": {"B": [{"ts": 7, "value": 1}, {"ts": 5, "value": "b"}], "a": [{"ts": 9, "value": true}, {"ts": 3, "value": 0.5}]}}', 3);
RESET ROLE;
-- the write point counted them as the chunk relation's own, not the storage's
SELECT origin, callback, rows, with_old_cells, with_new_cells
  FROM ots.write_point_counts('ck."one$chunk"') ORDER BY 1, 2;
SELECT count(*) AS storage_counts FROM ots.write_point_counts('ck."one$data"');
-- a chunk change reaches no index and no stream (the row code tells them at the head):
-- plain SQL on a chunk of a stored row of a table with an index is refused,
-- and its index is left as it was
SET ROLE regress_ots_chunk_owner;
SELECT consumed FROM ots.put_row('ck.ix', '{"k": "wide", "n": 1}',
								 jsonb_build_object('v', 42, 'w', 'ww', 'pad', repeat('p', 5000)));
SELECT count(*) AS entries FROM ck."ix_v$data";
SELECT pg_temp.try($$INSERT INTO ck."ix$chunk" VALUES ('wide', 1, 'a', 5, '{"row_ts": 5, "cells": {"a": [{"ts": 5, "value": 7}]}}', 5)$$) AS chunk_of_stored_row,
	   pg_temp.try($$UPDATE ck."ix$chunk" SET "$cells" = "$cells" WHERE k = 'wide'$$) AS update_of_chunk,
	   pg_temp.try($$DELETE FROM ck."ix$chunk" WHERE k = 'wide'$$) AS delete_of_chunk;
SELECT count(*) AS entries FROM ck."ix_v$data";
-- a copy may bring a split row's chunks first and its head after them, in
-- one transaction (the cluster's partition mover does): the head's index
-- entries are made from its chunks
SELECT ots.create_table('ck.ix2', 'k string, n integer', defined_columns => 'v integer, w string');
SELECT ots.create_index('ck.ix2', 'ix2_v', ARRAY['v'], ARRAY['w']);
CALL ots.build_index('ck.ix2', 'ix2_v');
BEGIN;
INSERT INTO ck."ix2$chunk" SELECT * FROM ck."ix$chunk" WHERE k = 'wide';
INSERT INTO ck."ix2$data" SELECT * FROM ck."ix$data" WHERE k = 'wide';
COMMIT;
SELECT * FROM ck.ix2_v;
SELECT (SELECT ots.get_row('ck.ix2', '{"k": "wide", "n": 1}')) = (SELECT ots.get_row('ck.ix', '{"k": "wide", "n": 1}'))
	   AS copy_reads_the_same;
-- chunks whose head does not come: the commit fails, and nothing stays;
-- chunks a rolled-back savepoint took need no head
BEGIN;
INSERT INTO ck."ix2$chunk" SELECT 'lost', n, "$column", "$ts", "$cells", "$oldest_ts" FROM ck."ix$chunk" WHERE k = 'wide';
COMMIT;
SELECT count(*) AS lost_chunks FROM ck."ix2$chunk" WHERE k = 'lost';
BEGIN;
SAVEPOINT s;
INSERT INTO ck."ix2$chunk" SELECT 'lost', n, "$column", "$ts", "$cells", "$oldest_ts" FROM ck."ix$chunk" WHERE k = 'wide';
ROLLBACK TO SAVEPOINT s;
COMMIT;
-- nor a prepared transaction's
BEGIN;
INSERT INTO ck."ix2$chunk" SELECT 'lost', n, "$column", "$ts", "$cells", "$oldest_ts" FROM ck."ix$chunk" WHERE k = 'wide';
PREPARE TRANSACTION 'ck_lost';
SELECT (SELECT count(*) FROM pg_prepared_xacts WHERE gid = 'ck_lost') AS prepared,
	   (SELECT count(*) FROM ck."ix2$chunk" WHERE k = 'lost') AS lost_chunks;
-- a chunk after its head, in the same transaction, is a chunk of a stored row: refused
BEGIN;
INSERT INTO ck."ix2$chunk" SELECT 'late', n, "$column", "$ts", "$cells", "$oldest_ts" FROM ck."ix$chunk"
 WHERE k = 'wide' AND "$column" = 'pad';
INSERT INTO ck."ix2$data" SELECT 'late', n, replace("$cells"::text, '"wide"', '"late"')::ots.cells, "$oldest_ts"
  FROM ck."ix$data" WHERE k = 'wide';
INSERT INTO ck."ix2$chunk" SELECT 'late', n, "$column", "$ts", "$cells", "$oldest_ts" FROM ck."ix$chunk"
 WHERE k = 'wide' AND "$column" <> 'pad';
ROLLBACK;
-- nor does ots's row code write a row of the key over them (its indexes
-- and stream would miss their cells)
BEGIN;
INSERT INTO ck."ix2$chunk" SELECT 'lost', n, "$column", "$ts", "$cells", "$oldest_ts" FROM ck."ix$chunk" WHERE k = 'wide';
SELECT consumed FROM ots.put_row('ck.ix2', '{"k": "lost", "n": 1}', '{"v": 1}');
COMMIT;
SELECT count(*) AS lost_rows FROM ck."ix2$data" WHERE k = 'lost';
RESET ROLE;
SELECT ots_table, relation, kind, problem FROM ots.verify('ck.ix2', amcheck => false);
SET ROLE regress_ots_chunk_owner;
-- a head plain SQL deletes takes its chunks and its index entry with it
DELETE FROM ck."ix2$data" WHERE k = 'wide';
SELECT (SELECT count(*) FROM ck."ix2$chunk") AS chunks_left, (SELECT count(*) FROM ck."ix2_v$data") AS entries_left;
SELECT ots.delete_table('ck.ix2');
RESET ROLE;

--
-- ots.verify: the chunks, and a chunk relation missing or not as ots made it
--
CREATE EXTENSION IF NOT EXISTS amcheck;
SELECT ots_table, relation, kind, location, problem FROM ots.verify() WHERE ots_table LIKE 'ck.%' ORDER BY 1, 2, 3, 4;
-- a chunk written past the guard (the guard off, the relation on heap for a moment)
ALTER EVENT TRIGGER ots_storage_guard DISABLE;
ALTER TABLE ck."two$chunk" SET ACCESS METHOD heap;
INSERT INTO ck."two$chunk" VALUES ('\x01', 1, 'c', 7, '{"row_ts": 7, "cells": {"c": [{"ts": 7, "value": 1}, {"ts": 5, "value": 2}]}}', 5);
ALTER TABLE ck."two$chunk" SET ACCESS METHOD ots;
-- a chunk relation with a column of another type, and one without its key's column
ALTER TABLE ck."three$chunk" ALTER COLUMN "$ts" TYPE numeric;
ALTER TABLE ck."hashed$chunk" DROP COLUMN "$hash";
-- one of another role, and one missing
DROP TABLE ck."one$chunk";
ALTER TABLE ck."ix_v$chunk" OWNER TO regress_ots_chunk_other;
ALTER EVENT TRIGGER ots_storage_guard ENABLE;
SELECT ots_table, relation, kind, location, problem, detail FROM ots.verify(amcheck => false)
 WHERE ots_table LIKE 'ck.%' ORDER BY 1, 2, 3, 4;
-- the purge goes over a chunk relation of the table's owner only
SELECT r AS purged_relation FROM ots.purge_relations('ck', 'ix_v') r WHERE r LIKE '%$chunk%'
UNION ALL
SELECT r FROM ots.purge_relations('ck', 'three') r WHERE r LIKE '%$chunk%';
-- the table itself works without one
SELECT (ots.put_row('ck.one', '{"k": "a"}', '{"v": 1}')).consumed IS NOT NULL AS one_writes;

--
-- it goes with its table: delete_index, delete_table, DROP of the storage or the view
--
ALTER EVENT TRIGGER ots_storage_guard DISABLE;
ALTER TABLE ck."ix_v$chunk" OWNER TO regress_ots_chunk_owner;
ALTER EVENT TRIGGER ots_storage_guard ENABLE;
SET ROLE regress_ots_chunk_owner;
SELECT ots.delete_index('ck.ix', 'ix_v');
SELECT to_regclass('ck."ix_v$chunk"') AS index_chunk_after_delete_index;
SELECT ots.delete_table('ck.four');
DROP TABLE ck."two$data" CASCADE;
DROP VIEW ck.ix;
RESET ROLE;
SELECT c.relname FROM pg_class c WHERE c.relnamespace = 'ck'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'i', 'I')
 ORDER BY c.relname COLLATE "C";

SET client_min_messages = warning;
DROP SCHEMA ck CASCADE;
DROP EXTENSION amcheck;
DROP ROLE regress_ots_chunk_owner;
DROP ROLE regress_ots_chunk_heir;
DROP ROLE regress_ots_chunk_other;
