-- test/upgrade/untrusted_0.1.0.sql: under 0.1.0, whose ots.tables any role
-- could write (its policy asked only that the role own a relation named
-- "<table>$data"), unprivileged LOGIN roles plant rows naming relations that
-- are not ots tables, and one tenant gives its genuine ots table code the
-- planner runs; test/upgrade/run.sh then runs ALTER EXTENSION ots UPDATE as a
-- superuser and untrusted_after.sql checks that no planted code ran as anyone
-- but its tenant and that nothing of another role changed.
-- Run as a superuser with psql variables db (the database the update
-- completes in) and db_columns (the one whose planted row has other columns).

-- the roles and what they share: a log every planted function writes to,
-- through a function (of the caller's rights) that also tries to make the
-- tenant a superuser
SELECT current_user AS superuser \gset
CREATE ROLE upg_tenant_view LOGIN;
CREATE ROLE upg_tenant_index LOGIN;
CREATE ROLE upg_tenant_columns LOGIN;
CREATE ROLE upg_victim LOGIN;
\c :db
CREATE TABLE public.upg_log (tenant name, tag text, usr name, sess name);
GRANT INSERT ON public.upg_log TO PUBLIC;
CREATE FUNCTION public.upg_escalate(tenant name, tag text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.upg_log VALUES (tenant, tag, current_user, session_user);
	BEGIN
		EXECUTE format('ALTER ROLE %I SUPERUSER', tenant);
	EXCEPTION WHEN OTHERS THEN
		NULL;
	END;
	RETURN 1;
END
$$;
CREATE SCHEMA upg_tenant_view AUTHORIZATION upg_tenant_view;
CREATE SCHEMA upg_tenant_index AUTHORIZATION upg_tenant_index;
CREATE SCHEMA upg_victim AUTHORIZATION upg_victim;
CREATE SCHEMA upg_shared;
GRANT USAGE, CREATE ON SCHEMA upg_shared TO upg_tenant_view, upg_victim;

-- (a) a tenant registers its own view as a table's storage: reading it runs
-- a function that logs who runs it and tries to make the tenant a superuser
\c - upg_tenant_view
CREATE VIEW upg_tenant_view."planted$data" AS
	SELECT 'k'::text AS k, NULL::ots.cells AS "$cells",
		   public.upg_escalate('upg_tenant_view', 'view')::bigint AS "$oldest_ts";
CREATE VIEW upg_tenant_view.planted AS SELECT 'k'::text AS k;
INSERT INTO ots.tables (schema_name, table_name, pk_names, pk_types, max_versions, time_to_live,
						max_version_offset, allow_update, partitions, hash_prefix_length)
VALUES ('upg_tenant_view', 'planted', '{k}', '{STRING}', 1, -1, 86400, true, 1, 0);

-- (b) the same tenant names a relation in a shared schema that it owned
-- when it wrote the row, and another role's ordinary partitioned table has
-- that name now
CREATE TABLE upg_shared."taken$data" (k text);
INSERT INTO ots.tables (schema_name, table_name, pk_names, pk_types, max_versions, time_to_live,
						max_version_offset, allow_update, partitions, hash_prefix_length)
VALUES ('upg_shared', 'taken', '{k}', '{STRING}', 1, -1, 86400, true, 1, 0);
DROP TABLE upg_shared."taken$data";
-- (c) and storage of its own, shaped as ots's, under another role's view's name
CREATE TABLE upg_shared."shown$data" (k text COLLATE "C" NOT NULL PRIMARY KEY, "$cells" ots.cells NOT NULL,
									  "$oldest_ts" int8 NOT NULL) PARTITION BY HASH (k);
CREATE TABLE upg_shared."shown$p0" PARTITION OF upg_shared."shown$data" FOR VALUES WITH (MODULUS 1, REMAINDER 0);
INSERT INTO ots.tables (schema_name, table_name, pk_names, pk_types, max_versions, time_to_live,
						max_version_offset, allow_update, partitions, hash_prefix_length)
VALUES ('upg_shared', 'shown', '{k}', '{STRING}', 1, -1, 86400, true, 1, 0);
\c - upg_victim
CREATE TABLE upg_shared."taken$data" (k text PRIMARY KEY, v integer) PARTITION BY HASH (k);
CREATE TABLE upg_shared."taken$p0" PARTITION OF upg_shared."taken$data" FOR VALUES WITH (MODULUS 1, REMAINDER 0);
INSERT INTO upg_shared."taken$data" VALUES ('a', 1), ('b', 2);
CREATE VIEW upg_shared.shown AS SELECT 1 AS one;
COMMENT ON VIEW upg_shared.shown IS 'the victim''s view';
-- and a genuine ots table of its own, one of whose leaves it may not read
SELECT ots.create_table('upg_victim.mine', 'k string');
SELECT consumed IS NOT NULL FROM ots.put_row('upg_victim.mine', '{"k": "v1"}', '{"n": 1}');
REVOKE SELECT ON upg_victim."mine$p3" FROM upg_victim;

-- (d) another tenant's genuine ots table, one of whose leaves has an index
-- expression, a CHECK constraint and extended statistics with an immutable
-- call of a constant: rewriting the leaf rebuilds the index, and the
-- planner evaluates such calls for whoever plans a query on the table.
-- The call also sets the session's search_path to put first the tenant's
-- schema, where a function takes the name of pg_catalog's to_regclass,
-- which the update calls
\c - upg_tenant_index
CREATE FUNCTION upg_tenant_index.to_regclass(text) RETURNS regclass LANGUAGE plpgsql AS $$
BEGIN
	PERFORM public.upg_escalate('upg_tenant_index', 'search_path');
	RETURN pg_catalog.to_regclass($1);
END
$$;
CREATE FUNCTION upg_tenant_index.folded(tag text) RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'upg_tenant_index, pg_catalog', false);
	RETURN public.upg_escalate('upg_tenant_index', tag);
END
$$;
SELECT ots.create_table('upg_tenant_index.owned', 'k string', partitions => 2);
-- (no autovacuum: its ANALYZE would run the expressions too, as the owner)
ALTER TABLE upg_tenant_index."owned$p0" SET (autovacuum_enabled = false);
SELECT count(p.consumed) FROM generate_series(1, 4) i,
	LATERAL ots.put_row('upg_tenant_index.owned', jsonb_build_object('k', 'o' || i), jsonb_build_object('n', i)) p;
CREATE INDEX owned_folded ON upg_tenant_index."owned$p0" ((k || upg_tenant_index.folded('index')));
ALTER TABLE upg_tenant_index."owned$p0" ADD CONSTRAINT owned_folded CHECK (upg_tenant_index.folded('check') > 0);
CREATE STATISTICS upg_tenant_index.owned_folded ON (k || upg_tenant_index.folded('statistics')), k
	FROM upg_tenant_index."owned$p0";
\c - :superuser
TRUNCATE public.upg_log;

-- (e) in another database (where the update failed before issue 31, which
-- would hide what it did elsewhere): a tenant's own partitioned table, with a
-- view, registered with other columns than ots's
\c :db_columns
CREATE SCHEMA upg_tenant_columns AUTHORIZATION upg_tenant_columns;
\c - upg_tenant_columns
CREATE TABLE upg_tenant_columns."other$data" (k text COLLATE "C" PRIMARY KEY, v integer) PARTITION BY HASH (k);
CREATE TABLE upg_tenant_columns."other$p0" PARTITION OF upg_tenant_columns."other$data"
	FOR VALUES WITH (MODULUS 1, REMAINDER 0);
INSERT INTO upg_tenant_columns."other$data" VALUES ('a', 1), ('b', 2);
CREATE VIEW upg_tenant_columns.other AS SELECT k, v FROM upg_tenant_columns."other$data";
INSERT INTO ots.tables (schema_name, table_name, pk_names, pk_types, max_versions, time_to_live,
						max_version_offset, allow_update, partitions, hash_prefix_length)
VALUES ('upg_tenant_columns', 'other', '{k}', '{STRING}', 1, -1, 86400, true, 1, 0);
-- and genuine ots tables of its own, one with every key type, AUTO_INCREMENT and a hash prefix
SELECT ots.create_table('upg_tenant_columns.mine', 'k string');
SELECT consumed IS NOT NULL FROM ots.put_row('upg_tenant_columns.mine', '{"k": "c1"}', '{"n": 1}');
SELECT ots.create_table('upg_tenant_columns.keys', 's string, b binary, i integer, n integer auto_increment',
						hash_prefix_length => 3, partitions => 3);
SELECT consumed IS NOT NULL
  FROM ots.put_row('upg_tenant_columns.keys', '{"s": "x", "b": {"$binary": "AAE="}, "i": 7, "n": {"$auto_increment": true}}',
				   '{"v": 1}');
