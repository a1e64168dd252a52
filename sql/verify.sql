-- verify: ots.verify checks ots storage as amcheck checks heap tables and
-- more: the heap pages and btree indexes of every leaf (amcheck's own
-- checks; verify_heapam alone refuses ots leaves), every stored row's
-- cells and key, every secondary index against its table, every stream's
-- records.  Clean tables report nothing; each kind of damage, made here on
-- purpose as a superuser (pages written below PostgreSQL, rows changed
-- below the write point, index and stream rows changed with plain SQL), is
-- reported; only a table's owner may check it.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
CREATE EXTENSION IF NOT EXISTS amcheck;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;
\set VERBOSITY terse

-- tables of every kind: TOASTed cells, a hash prefix, two indexes (one
-- LOCAL, one covering a column), a stream with a transaction large enough
-- to spill its records
SET client_min_messages = warning;
SELECT ots.create_table('vf_plain', 'id string', partitions => 2);
SELECT ots.create_table('vf_hash', 'k string', hash_prefix_length => 4, partitions => 2);
SELECT ots.create_table('vf_ix', 'id string, n integer', partitions => 2,
	defined_columns => 'c string, d integer');
SELECT ots.create_index('vf_ix', 'vf_ix_c', '{c}', defined_columns => '{d}');
SELECT ots.create_index('vf_ix', 'vf_ix_l', '{id, d}', index_type => 'LOCAL');
SELECT ots.create_table('vf_st', 'id string', partitions => 2, stream_enabled => true);
RESET client_min_messages;
SELECT count(ots.put_row('vf_plain', jsonb_build_object('id', 'p' || i),
	jsonb_build_object('v', i, 'big', (SELECT string_agg(md5(i::text || j::text), '') FROM generate_series(1, 2000) j))))
  FROM generate_series(1, 20) i;
SELECT count(ots.put_row('vf_hash', jsonb_build_object('k', 'h' || i), jsonb_build_object('v', i)))
  FROM generate_series(1, 20) i;
SELECT count(ots.put_row('vf_ix', jsonb_build_object('id', 'k' || i % 5, 'n', i), jsonb_build_object('c', 'c' || i, 'd', i)))
  FROM generate_series(1, 40) i;
SELECT count(ots.put_row('vf_ix', jsonb_build_object('id', 'x', 'n', 99), '{"d": 1}'));	-- no c: in vf_ix_l only
SELECT count(ots.put_row('vf_st', jsonb_build_object('id', 's' || i), jsonb_build_object('v', repeat('y', 2000))))
  FROM generate_series(1, 300) i;
-- then entries of one record each, in both shards
SELECT (ots.update_row('vf_st', '{"id": "s1"}', put => '{"w": 1}', delete_all => '{v}')).consumed;
SELECT (ots.delete_row('vf_st', '{"id": "s2"}')).consumed;
SELECT (ots.update_row('vf_st', '{"id": "s3"}', put => '{"w": 3}')).consumed;
SELECT (ots.update_row('vf_st', '{"id": "s4"}', put => '{"w": 4}')).consumed;
SELECT (ots.update_row('vf_st', '{"id": "s5"}', put => '{"w": 5}')).consumed;
SELECT (ots.update_row('vf_st', '{"id": "s6"}', put => '{"w": 6}')).consumed;
SELECT shard, count(*) FILTER (WHERE spilled = 0 AND cardinality(records) = 1) AS small_entries
  FROM "vf_st$log" GROUP BY shard ORDER BY shard;
-- (the rows of vf_plain are split: their 64 KB values are TOASTed in the chunk relation)
SELECT count(*) > 0 AS toasted FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid
 WHERE (c.relname LIKE 'vf_plain$p%' OR c.relname = 'vf_plain$chunk') AND pg_relation_size(t.oid) > 0;
SELECT count(*) > 0 AS spilled FROM "vf_st$rec";

-- amcheck alone refuses ots leaves (and pg_amcheck skips them)
SELECT * FROM verify_heapam('"vf_plain$p0"');

-- clean tables: nothing, with and without amcheck's checks, for one table
-- and for an index alone
-- (every table the caller owns is ots.verify(); here only this file's)
SELECT v.* FROM unnest('{vf_plain,vf_hash,vf_ix,vf_st}'::text[]) t, ots.verify(t) v;
SELECT * FROM ots.verify('vf_ix_c');
SELECT v.* FROM unnest('{vf_plain,vf_hash,vf_ix,vf_st}'::text[]) t, ots.verify(t, amcheck => false) v;
-- what amcheck checks of a table
SELECT coalesce((SELECT 'TOAST of ' || c.oid::regclass FROM pg_class c WHERE c.reltoastrelid = r), r::text) AS checked
  FROM ots.verify_relations('public', 'vf_ix') r;
SELECT coalesce((SELECT 'TOAST of ' || c.oid::regclass FROM pg_class c WHERE c.reltoastrelid = r), r::text) AS checked
  FROM ots.verify_relations('public', 'vf_st') r;

--
-- pages damaged below PostgreSQL: a tuple header (heap), a key (btree: the
-- heap row no longer has its index entry), a cells value (cells).  The page
-- is written to the leaf's file with lo_export after a CHECKPOINT, and read
-- from there by SET TABLESPACE, which copies the file as it is
--
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE regress_ots_verify LOCATION '';
SELECT ots.create_table('vf_page', 'id string', partitions => 1);
SELECT count(ots.put_row('vf_page', jsonb_build_object('id', id), jsonb_build_object('v', v)))
  FROM (VALUES ('a', 'header'), ('b', 'cellsdamage'), ('c', 'keydamage')) x(id, v);
VACUUM FREEZE "vf_page$p0";
CHECKPOINT;
CREATE TEMP TABLE page AS SELECT get_raw_page('"vf_page$p0"', 0) AS p;
-- row a: t_infomask (at 20) gets HEAP_XMAX_COMMITTED and HEAP_XMAX_IS_MULTI
UPDATE page SET p = set_byte(p, (SELECT lp_off + 21 FROM heap_page_items(p) WHERE lp = 1),
	(((SELECT t_infomask FROM heap_page_items(p) WHERE lp = 1) | x'1400'::int) >> 8) & 255);
-- row b: its string value is no longer UTF-8
UPDATE page SET p = set_byte(p, position('cellsdamage'::bytea IN p) - 1, 255);
-- row c: its key 'c' becomes 'z'
UPDATE page SET p = set_byte(p, (SELECT lp_off + t_hoff + 1 FROM heap_page_items(p) WHERE lp = 3), ascii('z'));
SELECT lo_from_bytea(0, p) AS lo FROM page \gset
SELECT lo_export(:lo, pg_relation_filepath('"vf_page$p0"')) AS written;
SELECT lo_unlink(:lo);
ALTER TABLE "vf_page$p0" SET TABLESPACE regress_ots_verify;
-- reads do not notice: row b reads without its damaged byte, row c under its new key
SELECT id, attributes->>'v' AS v FROM vf_page ORDER BY id;
SELECT DISTINCT relation, kind, location, problem, detail FROM ots.verify('vf_page')
 ORDER BY kind, location, problem;
-- without amcheck, only the cells
SELECT relation, kind, location, problem FROM ots.verify('vf_page', amcheck => false);

--
-- rows changed below the write point (a leaf moved off the access method
-- with the guard switched off, as sql/write_point.sql does): "$oldest_ts"
-- not the oldest cell's, "$hash" not the key's hash prefix
--
BEGIN;
ALTER EVENT TRIGGER ots_storage_guard DISABLE;
ALTER TABLE "vf_hash$p0" SET ACCESS METHOD heap;
UPDATE "vf_hash$p0" SET "$oldest_ts" = "$oldest_ts" - 1 WHERE k = (SELECT min(k) FROM "vf_hash$p0");
UPDATE "vf_hash$p0" SET "$hash" = "$hash" # 1 WHERE k = (SELECT max(k) FROM "vf_hash$p0");
ALTER TABLE "vf_hash$p0" SET ACCESS METHOD ots;
ALTER EVENT TRIGGER ots_storage_guard ENABLE;
SELECT relation, kind, location, problem FROM ots.verify('vf_hash') ORDER BY location;
ROLLBACK;

--
-- secondary indexes: an entry deleted (missing), an entry given another
-- row's covered cells (stale), an entry under another key (wrong), and a
-- base row changed below the write point (its old entry is now wrong, its
-- new one missing)
--
BEGIN;
DELETE FROM "vf_ix_c$data" WHERE c = 'c7';
UPDATE "vf_ix_c$data" SET ("$cells", "$oldest_ts") = (SELECT x."$cells", x."$oldest_ts" FROM "vf_ix_c$data" x WHERE x.c = 'c10')
 WHERE c = 'c9';
INSERT INTO "vf_ix_c$data" SELECT 'zz', id, n, "$cells", "$oldest_ts" FROM "vf_ix_c$data" WHERE c = 'c8';
SELECT relation, kind, location, problem FROM ots.verify('vf_ix') ORDER BY relation::text, location, problem;
-- an index checked alone finds the same of it
SELECT relation, kind, location, problem FROM ots.verify('vf_ix_c') ORDER BY relation::text, location, problem;
ROLLBACK;
BEGIN;
ALTER EVENT TRIGGER ots_storage_guard DISABLE;
ALTER TABLE "vf_ix$p0" SET ACCESS METHOD heap;
-- (the row of the smallest n of the leaf gets the cells of its largest)
UPDATE "vf_ix$p0" SET ("$cells", "$oldest_ts") = (SELECT x."$cells", x."$oldest_ts" FROM "vf_ix$p0" x
												 WHERE x.n = (SELECT max(n) FROM "vf_ix$p0" WHERE n < 99))
 WHERE n = (SELECT min(n) FROM "vf_ix$p0");
ALTER TABLE "vf_ix$p0" SET ACCESS METHOD ots;
ALTER EVENT TRIGGER ots_storage_guard ENABLE;
SELECT relation, kind, location, problem FROM ots.verify('vf_ix') ORDER BY relation::text, location, problem;
ROLLBACK;

--
-- streams: a record altered, a record of a key another shard holds, a
-- trim marker after a shard's first entry, an entry of a shard the table
-- does not have, a spilled record gone, one of no entry
--
CREATE FUNCTION pg_temp.stream_problems() RETURNS TABLE (relation regclass, location text, problem text)
LANGUAGE sql AS $$
	SELECT v.relation, regexp_replace(v.location, 'position \d+', 'position P'), v.problem
	  FROM ots.verify('vf_st') v
	 ORDER BY 1, 2, 3
$$;
-- (the last entry of a shard holds one record: an update_row)
CREATE VIEW pg_temp.last_entry AS
SELECT shard, max(position) AS position FROM "vf_st$log" WHERE spilled = 0 AND cardinality(records) = 1
 GROUP BY shard;
BEGIN;
UPDATE "vf_st$log" SET records[1] = jsonb_set(records[1], '{action_type}', '"BOGUS"')
 WHERE (shard, position) = (SELECT shard, position FROM pg_temp.last_entry WHERE shard = 0);
UPDATE "vf_st$log" SET records[1] = jsonb_set(records[1], '{primary_key,id}', '7')
 WHERE (shard, position) = (SELECT shard, position FROM pg_temp.last_entry WHERE shard = 1);
SELECT * FROM pg_temp.stream_problems();
ROLLBACK;
BEGIN;
UPDATE "vf_st$log" SET records[1] = records[1] || '{"columns": [{"name": "w", "type": "PUT", "value": 1}]}'
 WHERE (shard, position) = (SELECT shard, position FROM pg_temp.last_entry WHERE shard = 0);
UPDATE "vf_st$log" SET records[1] = records[1] || '{"extra": 1}'
 WHERE (shard, position) = (SELECT shard, position FROM pg_temp.last_entry WHERE shard = 1);
SELECT * FROM pg_temp.stream_problems();
ROLLBACK;
BEGIN;
INSERT INTO "vf_st$log" SELECT 1, position + 1, 0, 0, '{}' FROM pg_temp.last_entry WHERE shard = 1;
INSERT INTO "vf_st$log" SELECT 5, l.position, l.id, 0, l.records FROM "vf_st$log" l
 WHERE (l.shard, l.position) = (SELECT shard, position FROM pg_temp.last_entry WHERE shard = 0);
UPDATE "vf_st$log" SET shard = 1
 WHERE (shard, position) = (SELECT shard, position FROM pg_temp.last_entry WHERE shard = 0);
SELECT * FROM pg_temp.stream_problems();
ROLLBACK;
BEGIN;
DELETE FROM "vf_st$rec" WHERE (shard, id, n) = (SELECT shard, id, 1 FROM "vf_st$rec" ORDER BY shard, id, n LIMIT 1);
INSERT INTO "vf_st$rec" SELECT shard, 42, 0, record FROM "vf_st$rec" ORDER BY shard, id, n LIMIT 1;
SELECT * FROM pg_temp.stream_problems();
ROLLBACK;

--
-- who may check what: a table's owner, its own tables; amcheck's
-- functions only with EXECUTE on them, granted to no one by amcheck
--
CREATE ROLE regress_ots_verifier LOGIN;
CREATE SCHEMA vf_own AUTHORIZATION regress_ots_verifier;
SET ROLE regress_ots_verifier;
SELECT * FROM ots.verify('public.vf_plain');
SELECT * FROM ots.verify_relation('"vf_plain$p0"');
SELECT * FROM ots.verify_rows('public', 'vf_plain');
SELECT * FROM ots.verify();
SELECT ots.create_table('vf_own.mine', 'id string', partitions => 1, defined_columns => 'v integer');
SELECT ots.create_index('vf_own.mine', 'mine_v', '{v}', include_base_data => false);
SELECT count(ots.put_row('vf_own.mine', '{"id": "a"}', '{"v": 1}'));
SELECT * FROM ots.verify();
SELECT * FROM ots.verify(amcheck => false);
RESET ROLE;
GRANT EXECUTE ON FUNCTION verify_heapam(regclass, boolean, boolean, text, bigint, bigint),
	bt_index_check(regclass, boolean) TO regress_ots_verifier;
SET ROLE regress_ots_verifier;
SELECT * FROM ots.verify();
RESET ROLE;
-- a problem in the one table the verifier owns (an index entry moved to
-- another key below the write point) is reported once by ots.verify() of
-- every table, as by ots.verify of the table
BEGIN;
UPDATE vf_own."mine_v$data" SET v = 2;
SET ROLE regress_ots_verifier;
SELECT ots_table, relation, kind, location, problem FROM ots.verify();
SELECT ots_table, relation, kind, location, problem FROM ots.verify(amcheck => false);
SELECT ots_table, relation, kind, location, problem FROM ots.verify('vf_own.mine');
ROLLBACK;
REVOKE EXECUTE ON FUNCTION verify_heapam(regclass, boolean, boolean, text, bigint, bigint),
	bt_index_check(regclass, boolean) FROM regress_ots_verifier;
SELECT ots.delete_table('vf_own.mine');
DROP SCHEMA vf_own;
DROP ROLE regress_ots_verifier;

-- without amcheck: its checks need it, the others do not
DROP EXTENSION pageinspect;
DROP EXTENSION amcheck;
SELECT * FROM ots.verify('vf_plain');
SELECT * FROM ots.verify('vf_plain', amcheck => false);

DROP VIEW pg_temp.last_entry;
SET client_min_messages = warning;
SELECT ots.delete_table(t) FROM unnest('{vf_plain,vf_hash,vf_ix,vf_st,vf_page}'::text[]) t;
RESET client_min_messages;
DROP TABLESPACE regress_ots_verify;
