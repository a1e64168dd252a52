-- test/upgrade/untrusted_after.sql: after ALTER EXTENSION ots UPDATE of the
-- databases untrusted_<version>.sql planted rows in (expected output:
-- untrusted_after.out). Run as a superuser with psql variables db and
-- db_columns.
SELECT current_user AS superuser \gset
\c :db
-- no tenant became a superuser
SELECT rolname, rolsuper FROM pg_roles WHERE rolname LIKE 'upg\_tenant\_%' OR rolname = 'upg_victim' ORDER BY 1;
-- planted code ran as its tenant only: (a)'s view never ran; of (d)'s, the
-- index and statistics expressions ran as the leaf's owner when the update
-- rewrote the leaf onto the ots access method (PostgreSQL rebuilds its
-- indexes as the owner, planning the build too) and the statistics' when it
-- read the leaf's rows as its owner, and the search_path they set was
-- undone each time (the tenant's to_regclass never ran); the CHECK
-- constraint never ran (the update reads each leaf alone, which constraint
-- exclusion does not check)
SELECT tenant, tag, CASE WHEN usr = tenant THEN 'its tenant' ELSE 'another role: ' || usr END AS ran_as,
	   CASE WHEN sess = :'superuser' THEN 'the update''s session' ELSE sess END AS session
  FROM public.upg_log GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4;
-- the planted rows are gone, the genuine tables stay
SELECT schema_name, table_name FROM ots.tables ORDER BY 1, 2;
-- (b) the other role's table is as it was: its leaf on heap, its rows
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.relnamespace = 'upg_shared'::regnamespace AND c.relkind = 'r' AND c.relname LIKE 'taken%' ORDER BY 1;
SELECT k, v FROM upg_shared."taken$data" ORDER BY k;
-- (c) the other role's view is as it was: no trigger, no option, its comment
SELECT c.relname, c.reloptions, (SELECT count(*) FROM pg_trigger g WHERE g.tgrelid = c.oid) AS triggers,
	   obj_description(c.oid, 'pg_class')
  FROM pg_class c WHERE c.oid = 'upg_shared.shown'::regclass;
-- (a) the tenant's views are as they were: no trigger, no option added
SELECT c.relname, c.relkind, c.reloptions, (SELECT count(*) FROM pg_trigger g WHERE g.tgrelid = c.oid) AS triggers
  FROM pg_class c WHERE c.relnamespace = 'upg_tenant_view'::regnamespace ORDER BY 1;
-- the genuine tables were updated as every table is: leaves on the ots
-- access method, their views security barriers with the write trigger
SELECT n.nspname, c.relname, a.amname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_am a ON a.oid = c.relam
 WHERE c.relispartition AND c.relkind = 'r' AND n.nspname IN ('upg_tenant_index', 'upg_victim') ORDER BY 1, 2;
SELECT c.oid::regclass, c.reloptions, (SELECT string_agg(g.tgname, ',') FROM pg_trigger g WHERE g.tgrelid = c.oid)
  FROM pg_class c WHERE c.oid IN ('upg_tenant_index.owned'::regclass, 'upg_victim.mine'::regclass) ORDER BY 1;
-- each reads and takes writes as its owner
\c - upg_victim
SELECT consumed IS NOT NULL FROM ots.put_row('upg_victim.mine', '{"k": "v2"}', '{"n": 2}');
SELECT k, attributes FROM upg_victim.mine ORDER BY k;
\c - upg_tenant_index
SELECT consumed IS NOT NULL FROM ots.put_row('upg_tenant_index.owned', '{"k": "o5"}', '{"n": 5}');
SELECT k, attributes FROM upg_tenant_index.owned ORDER BY k;
\c - :superuser

\c :db_columns
-- (e) the row naming a table of other columns is gone, the genuine tables stay
SELECT schema_name, table_name FROM ots.tables ORDER BY 1, 2;
-- the tenant's table is as it was: its leaf on heap, its rows, its view without a trigger
SELECT n.nspname, c.relname, a.amname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_am a ON a.oid = c.relam
 WHERE c.relispartition AND c.relkind = 'r' AND n.nspname = 'upg_tenant_columns' ORDER BY 1, 2;
SELECT k, v FROM upg_tenant_columns."other$data" ORDER BY k;
SELECT count(*) AS triggers FROM pg_trigger g WHERE g.tgrelid = 'upg_tenant_columns.other'::regclass;
\c - upg_tenant_columns
SELECT consumed IS NOT NULL FROM ots.put_row('upg_tenant_columns.mine', '{"k": "c2"}', '{"n": 2}');
SELECT k, attributes FROM upg_tenant_columns.mine ORDER BY k;
SELECT consumed IS NOT NULL
  FROM ots.put_row('upg_tenant_columns.keys', '{"s": "y", "b": {"$binary": "AAI="}, "i": 8, "n": {"$auto_increment": true}}',
				   '{"v": 2}');
SELECT s, b, i, attributes FROM upg_tenant_columns.keys ORDER BY s;
