-- planner_security: ots's planner rewrites (attribute pushdown, the index
-- plan, the key scan) never let a role learn more than plain SQL on the
-- same view tells it.  A rewrite recognises a table's view by the catalog's
-- record of it (the view ots made for the table, over that table's
-- storage), never by the functions a query calls, and reads an index only
-- where the unrewritten plan's privilege checks cover what the index holds,
-- with no row-level security on the storage.  The attacks run as an
-- unprivileged LOGIN role that may read only the key column of a table's
-- storage; each answer must be plain SQL's (every row of the look-alike
-- view), not the rows whose hidden column has the value asked for.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
RESET client_min_messages;
SET ots.index_build_worker = off;
SET enable_bitmapscan = off;
SELECT current_user AS regress_user \gset

CREATE ROLE regress_ots_pl_tenant LOGIN;
CREATE ROLE regress_ots_pl_owner LOGIN;
CREATE SCHEMA regress_ots_pl AUTHORIZATION regress_ots_pl_tenant;
GRANT CREATE ON SCHEMA public TO regress_ots_pl_owner;

-- a table with a secret String column and a secret Integer column, both indexed
SELECT ots.create_table('pl_secret', 'id integer', partitions => 2,
						defined_columns => 'secret string, level integer');
SELECT count(*) FROM generate_series(1, 6) i,
	LATERAL ots.put_row('pl_secret', jsonb_build_object('id', i),
						jsonb_build_object('secret', 'v' || i, 'level', i * 10));
SELECT ots.create_index('pl_secret', 'pl_secret_by_secret', '{secret}');
SELECT ots.create_index('pl_secret', 'pl_secret_by_level', '{level}');
CALL ots.build_index('pl_secret', 'pl_secret_by_secret');
CALL ots.build_index('pl_secret', 'pl_secret_by_level');
-- the tenant may read the storage's key column, nothing else
GRANT SELECT (id) ON "pl_secret$data" TO regress_ots_pl_tenant;

-- the owner's answers, for reference: id 3 has secret v3 and level 30
SELECT id, secret, level FROM pl_secret WHERE secret = 'v3';
SELECT id FROM pl_secret WHERE (attributes ->> 'level')::int = 30;

\c - regress_ots_pl_tenant
SET search_path = regress_ots_pl, public;
SET enable_bitmapscan = off;
\set VERBOSITY terse
-- plain SQL: the key column, and nothing else
SELECT array_agg(id ORDER BY id) AS ids FROM "pl_secret$data";
SELECT "$cells" FROM "pl_secret$data" WHERE id = 3;
SELECT count(*) FROM pl_secret;
SELECT count(*) FROM "pl_secret_by_secret$data";

-- 1. the oracle: a security-barrier view of the storage's key column whose
-- attributes are a constant claiming secret v3 and level 30 for every row.
-- Plain SQL answers every row; a rewrite that took it for the table's view
-- read the index and answered id 3.
CREATE VIEW spy WITH (security_barrier) AS
	SELECT d.id, ots.row_attributes('{"row_ts": 1, "cells": {"level": [{"ts": 1, "value": 30}], "secret": [{"ts": 1, "value": "v3"}]}}'::ots.cells,
									'public."pl_secret$data"'::regclass) AS attributes
	  FROM "pl_secret$data" d;
SELECT array_agg(id ORDER BY id) AS ids FROM spy WHERE attributes ->> 'secret' = 'v3';
SELECT array_agg(id ORDER BY id) AS ids FROM spy WHERE (attributes ->> 'level')::int = 30;
-- a parameter, as a prepared statement passes it, custom and generic plans
PREPARE spy_secret(text) AS SELECT array_agg(id ORDER BY id) AS ids FROM spy WHERE attributes ->> 'secret' = $1;
EXECUTE spy_secret('v3');
SET plan_cache_mode = force_generic_plan;
EXECUTE spy_secret('v3');
RESET plan_cache_mode;
-- no plan reads an index: the look-alike is not the table's view
EXPLAIN (COSTS OFF) SELECT id FROM spy WHERE attributes ->> 'secret' = 'v3';

-- 2. the same through typed columns (ots.row_string, ots.row_integer)
CREATE VIEW spy_typed WITH (security_barrier) AS
	SELECT d.id, ots.row_attributes(NULL, 'public."pl_secret$data"'::regclass) AS attributes,
		   ots.row_string('{"row_ts": 1, "cells": {"secret": [{"ts": 1, "value": "v3"}]}}'::ots.cells,
						  'public."pl_secret$data"'::regclass, 'secret') AS secret,
		   ots.row_integer('{"row_ts": 1, "cells": {"level": [{"ts": 1, "value": 30}]}}'::ots.cells,
						   'public."pl_secret$data"'::regclass, 'level') AS level
	  FROM "pl_secret$data" d;
SELECT array_agg(id ORDER BY id) AS ids FROM spy_typed WHERE secret = 'v3';
SELECT array_agg(id ORDER BY id) AS ids FROM spy_typed WHERE level = 30;

-- 3. the tenant's own ots table, its view made again by its owner (the
-- tenant) to read the other table's storage: the catalog knows the view, but
-- as the view of the tenant's table, over the tenant's storage
SELECT ots.create_table('regress_ots_pl.mine', 'id integer', partitions => 1,
						defined_columns => 'secret string');
CREATE OR REPLACE VIEW mine WITH (security_barrier) AS
	SELECT d.id, ots.row_attributes('{"row_ts": 1, "cells": {"secret": [{"ts": 1, "value": "v3"}]}}'::ots.cells,
									'public."pl_secret$data"'::regclass) AS attributes,
		   ots.row_string('{"row_ts": 1, "cells": {"secret": [{"ts": 1, "value": "v3"}]}}'::ots.cells,
						  'public."pl_secret$data"'::regclass, 'secret') AS secret
	  FROM "pl_secret$data" d;
SELECT array_agg(id ORDER BY id) AS ids FROM mine WHERE attributes ->> 'secret' = 'v3';
SELECT array_agg(id ORDER BY id) AS ids FROM mine WHERE secret = 'v3';
-- ... and the tenant's view over its own storage, naming the other table's
-- storage in its calls
CREATE OR REPLACE VIEW mine WITH (security_barrier) AS
	SELECT d.id, ots.row_attributes(d."$cells", 'public."pl_secret$data"'::regclass) AS attributes,
		   ots.row_string(d."$cells", 'public."pl_secret$data"'::regclass, 'secret') AS secret
	  FROM "mine$data" d, "pl_secret$data" s WHERE d.id = s.id;
SELECT count(*) FROM generate_series(1, 6) i,
	LATERAL ots.put_row('regress_ots_pl.mine', jsonb_build_object('id', i), '{"secret": "v3"}');
SELECT array_agg(id ORDER BY id) AS ids FROM mine WHERE attributes ->> 'secret' = 'v3';

-- 4. functions of the same names in the tenant's schema, first on its
-- search_path: not ots's functions, whatever their names
CREATE FUNCTION regress_ots_pl.row_attributes(cells ots.cells, storage regclass) RETURNS jsonb
	LANGUAGE sql IMMUTABLE AS $$ SELECT '{"secret": "v3"}'::jsonb $$;
CREATE FUNCTION regress_ots_pl.row_attribute_text(cells ots.cells, storage regclass, name text) RETURNS text
	LANGUAGE sql IMMUTABLE AS $$ SELECT 'v3' $$;
CREATE VIEW spy_named WITH (security_barrier) AS
	SELECT d.id, regress_ots_pl.row_attributes(NULL, 'public."pl_secret$data"'::regclass) AS attributes
	  FROM "pl_secret$data" d;
SELECT array_agg(id ORDER BY id) AS ids FROM spy_named WHERE attributes ->> 'secret' = 'v3';

-- 5. the key scan reads the storage with the storage's privileges: the key
-- column through a look-alike view, never a column the role may not read
EXPLAIN (COSTS OFF) SELECT id FROM spy WHERE id = 3;
SELECT id FROM spy WHERE id = 3;
CREATE VIEW spy_cells WITH (security_barrier) AS SELECT d.id, d."$cells" FROM "pl_secret$data" d;
SELECT id FROM spy_cells WHERE id = 3;

-- 6. a role granted the view's key column only: the typed column and the
-- attributes it may not read stay refused, with the index as without it
\c - :"regress_user"
\set VERBOSITY terse
GRANT SELECT (id) ON pl_secret TO regress_ots_pl_tenant;
\c - regress_ots_pl_tenant
\set VERBOSITY terse
SELECT id FROM public.pl_secret WHERE secret = 'v3';
SELECT id FROM public.pl_secret WHERE attributes ->> 'secret' = 'v3';
SELECT count(*) FROM public.pl_secret WHERE id = 3;

-- 7. row-level security on the storage: the view's owner sees only some
-- rows.  Through the index, EXPLAIN ANALYZE would count the index entries of
-- rows the policy hides; so no index is read where a policy applies.
\c - regress_ots_pl_owner
\set VERBOSITY terse
SET ots.index_build_worker = off;
SET enable_bitmapscan = off;
SELECT ots.create_table('pl_rls', 'id integer', partitions => 2, defined_columns => 'secret string');
SELECT count(*) FROM generate_series(1, 6) i,
	LATERAL ots.put_row('pl_rls', jsonb_build_object('id', i), jsonb_build_object('secret', 'v' || i));
SELECT ots.create_index('pl_rls', 'pl_rls_by_secret', '{secret}');
CALL ots.build_index('pl_rls', 'pl_rls_by_secret');
ALTER TABLE "pl_rls$data" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "pl_rls$data" FORCE ROW LEVEL SECURITY;
CREATE POLICY not_three ON "pl_rls$data" USING (id <> 3);
GRANT SELECT ON pl_rls TO regress_ots_pl_tenant;
\c - regress_ots_pl_tenant
\set VERBOSITY terse
SET enable_bitmapscan = off;
SELECT array_agg(id ORDER BY id) AS ids FROM public.pl_rls;
SELECT array_agg(id ORDER BY id) AS ids FROM public.pl_rls WHERE secret = 'v3';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM public.pl_rls WHERE secret = 'v3';
-- without a policy for this role's reads (the owner lifts FORCE), the index serves again
\c - regress_ots_pl_owner
ALTER TABLE "pl_rls$data" NO FORCE ROW LEVEL SECURITY;
\c - regress_ots_pl_tenant
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM public.pl_rls WHERE secret = 'v3';
SELECT array_agg(id ORDER BY id) AS ids FROM public.pl_rls WHERE secret = 'v3';

\c - :"regress_user"
SET client_min_messages = warning;
SELECT ots.delete_table('regress_ots_pl.mine');
DROP SCHEMA regress_ots_pl CASCADE;
SELECT ots.delete_table('pl_secret');
SELECT ots.delete_table('pl_rls');
REVOKE CREATE ON SCHEMA public FROM regress_ots_pl_owner;
DROP ROLE regress_ots_pl_tenant;
DROP ROLE regress_ots_pl_owner;
