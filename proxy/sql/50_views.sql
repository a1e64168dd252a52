-- SQL on the proxy: each ots table the proxy knows has a view in the proxy
-- database with the name, schema and columns of the single node's view
-- (src/sql/30_tables.sql, ots.sync_table_view: the key columns as stored,
-- String text COLLATE "C", Integer bigint, Binary bytea; the attributes as
-- jsonb, named "$attributes" when a key or defined column is called
-- attributes; one typed column per defined column), made over
-- ots.get_range_rows of the whole table, so SELECT on it streams every
-- shard's rows, merged in key order.  Nothing in the proxy database holds
-- rows: the view's query calls get_range_rows as the querying role, whose
-- privileges the shards check.  The views are read-only (writes go through
-- the ots API, or the shard's own view).
--
-- The columns are copied from the first shard's view (its names, order and
-- types, which ots keeps in step with the defined columns), the owner from
-- the owner of that view: whoever created the table (PL/Proxy connects as
-- the calling role), when that role exists in the proxy database too.
-- The proxy's DDL keeps a view in step with its table (created, changed,
-- dropped with it: ots_cluster.catalog_changed, for the table's owner);
-- ots_cluster.sync_views() makes every table's, for tables made elsewhere.

-- ots_cluster.view_columns_first: the columns of the view schema.table on
-- the first shard, in order, with the owners of the view and its schema,
-- and whether role_name (when given) is a member of the view's owner
-- (asked as the extension's owner, from sync_view)
CREATE FUNCTION ots_cluster.view_columns_first(schema_arg name, table_arg name, role_name name)
	RETURNS TABLE (column_name text, column_type text, view_owner text, schema_owner text, role_owns boolean)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON 0;
	SELECT a.attname::pg_catalog.text AS column_name, pg_catalog.format_type(a.atttypid, a.atttypmod) AS column_type,
		   pg_catalog.pg_get_userbyid(c.relowner)::pg_catalog.text AS view_owner,
		   pg_catalog.pg_get_userbyid(n.nspowner)::pg_catalog.text AS schema_owner,
		   CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) $3)
				THEN pg_catalog.pg_has_role($3, c.relowner, 'USAGE') ELSE false END AS role_owns
	  FROM pg_catalog.pg_class c
	  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
	  JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.oid
										AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
	 WHERE n.nspname OPERATOR(pg_catalog.=) $1 AND c.relname OPERATOR(pg_catalog.=) $2
	   AND c.relkind OPERATOR(pg_catalog.=) 'v'
	 ORDER BY a.attnum;
	$$;
COMMENT ON FUNCTION ots_cluster.view_columns_first(name, name, name) IS
	'the columns of an ots table''s view on the first shard, the owners of the view and its schema, whether a role owns it (internal)';
REVOKE ALL ON FUNCTION ots_cluster.view_columns_first(name, name, name) FROM PUBLIC;

-- ots_cluster.tables_first: every ots table (and index) of the first shard
CREATE FUNCTION ots_cluster.tables_first() RETURNS TABLE (schema_name name, table_name name)
	LANGUAGE plproxy
	AS $$
	CLUSTER 'ots_cluster';
	RUN ON 0;
	SELECT t.schema_name, t.table_name FROM ots.tables t;
	$$;
COMMENT ON FUNCTION ots_cluster.tables_first() IS 'every ots table of the first shard (internal)';
REVOKE ALL ON FUNCTION ots_cluster.tables_first() FROM PUBLIC;

------------------------------------------------------------------------------
-- A value of the API's jsonb (docs/reference.md) as the view's column types
-- show it: NULL when it is of another type, as a single node's typed column
-- shows a cell written before its column was defined.  Simple SQL
-- functions, inlined into the views' queries.
------------------------------------------------------------------------------
CREATE FUNCTION ots_cluster.value_string(v jsonb) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE WHEN pg_catalog.jsonb_typeof(v) = 'string' THEN v #>> '{}' END;
-- an Integer is a number without a fraction (ots prints a Double with one)
CREATE FUNCTION ots_cluster.value_integer(v jsonb) RETURNS bigint
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE WHEN pg_catalog.jsonb_typeof(v) = 'number' AND pg_catalog.strpos(v::text, '.') = 0
				THEN (v::text)::bigint END;
CREATE FUNCTION ots_cluster.value_double(v jsonb) RETURNS double precision
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE WHEN pg_catalog.jsonb_typeof(v) = 'number' AND pg_catalog.strpos(v::text, '.') > 0
				THEN (v::text)::double precision
				WHEN pg_catalog.jsonb_typeof(v -> '$double') = 'number'
				THEN ((v -> '$double')::text)::double precision END;
CREATE FUNCTION ots_cluster.value_boolean(v jsonb) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE WHEN pg_catalog.jsonb_typeof(v) = 'boolean' THEN v::boolean END;
CREATE FUNCTION ots_cluster.value_binary(v jsonb) RETURNS bytea
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE WHEN pg_catalog.jsonb_typeof(v -> '$binary') = 'string'
				THEN pg_catalog.decode(v ->> '$binary', 'base64') END;
COMMENT ON FUNCTION ots_cluster.value_string(jsonb) IS 'a String value of the API''s jsonb as text, else NULL (the proxy''s views)';
COMMENT ON FUNCTION ots_cluster.value_integer(jsonb) IS 'an Integer value of the API''s jsonb as bigint, else NULL (the proxy''s views)';
COMMENT ON FUNCTION ots_cluster.value_double(jsonb) IS 'a Double value of the API''s jsonb as double precision, else NULL (the proxy''s views)';
COMMENT ON FUNCTION ots_cluster.value_boolean(jsonb) IS 'a Boolean value of the API''s jsonb as boolean, else NULL (the proxy''s views)';
COMMENT ON FUNCTION ots_cluster.value_binary(jsonb) IS 'a Binary value of the API''s jsonb as bytea, else NULL (the proxy''s views)';

-- ots_cluster.view_read_only: the triggers of the proxy's views: before each
-- INSERT, UPDATE, DELETE (and COPY FROM) statement, and instead of each row
CREATE FUNCTION ots_cluster.view_read_only() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
		MESSAGE = pg_catalog.format('cannot %s view %I.%I of ots table %I.%I on an ots cluster''s proxy',
									CASE TG_OP WHEN 'INSERT' THEN 'insert into' WHEN 'UPDATE' THEN 'update'
											   ELSE 'delete from' END,
									TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME),
		DETAIL = 'The proxy''s views are read-only: they read the shards with ots.get_range_rows.',
		HINT = 'Write with the ots API (ots.put_row, ots.update_row, ots.delete_row, ots.batch_write_row) through the proxy, or through the table''s view on its shard.';
END
$$;
COMMENT ON FUNCTION ots_cluster.view_read_only() IS
	'refuses INSERT, UPDATE and DELETE on a proxy''s view of an ots table (0A000)';

-- ots_cluster.is_proxy_view: whether relation oid is a view sync_view made
-- (a view with the view_read_only trigger): the only relations it replaces
-- or drops
CREATE FUNCTION ots_cluster.is_proxy_view(rel oid) RETURNS boolean
	LANGUAGE sql STABLE PARALLEL SAFE
	RETURN EXISTS (SELECT 1 FROM pg_catalog.pg_trigger g
					WHERE g.tgrelid = rel AND g.tgname = 'ots_read_only'
					  AND g.tgfoid = 'ots_cluster.view_read_only()'::pg_catalog.regprocedure);
COMMENT ON FUNCTION ots_cluster.is_proxy_view(oid) IS 'whether a relation is a view of an ots table made by the proxy (internal)';

-- ots_cluster.sync_view: makes the view of schema.table in the proxy
-- database match the table as the first shard has it (asked as the
-- extension's owner) and that shard's view: created, its columns changed
-- (made again when one goes, keeping owner and grants), or dropped when the
-- table is gone.  A relation of that name that the proxy did not make is
-- left alone (a warning says so).  With for_role, only for a member of the
-- table's owner (of the view's, when the table is gone): the proxy's DDL
-- passes the role that called it (catalog_changed); another role's view is
-- left as it is, with a warning.  Returns what it did.
CREATE FUNCTION ots_cluster.sync_view(schema_name name, table_name name, for_role oid) RETURNS text
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	entry ots_cluster.table_entry;
	view_name text := pg_catalog.format('%I.%I', schema_name, table_name);
	rel oid;
	cols record;
	names text[];
	types text[];
	have_names text[];
	have_types text[];
	owner_name text;
	nsp_owner text;
	role_owns boolean;
	select_list text := '';
	query text;
	saved_owner text;
	saved_acl aclitem[];
	g record;
BEGIN
	BEGIN
		entry := ots_cluster.entry_of(ots_cluster.describe_any(schema_name, table_name));
	EXCEPTION WHEN SQLSTATE 'OT004' THEN
		-- a relation of that name on the shard that is no ots table
		entry := NULL;
	END;
	SELECT c.oid INTO rel FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	 WHERE n.nspname = sync_view.schema_name AND c.relname = sync_view.table_name;
	IF rel IS NOT NULL AND NOT ots_cluster.is_proxy_view(rel) THEN
		IF entry.table_name IS NOT NULL THEN
			RAISE WARNING 'the proxy database has a relation % of its own: ots table % gets no view there', view_name, view_name;
		END IF;
		RETURN 'skipped: a relation of the proxy database';
	END IF;
	IF entry.table_name IS NULL THEN
		IF rel IS NULL THEN
			RETURN 'none';
		END IF;
		IF for_role IS NOT NULL
		   AND NOT pg_catalog.pg_has_role(for_role, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = rel), 'USAGE') THEN
			RAISE WARNING 'the view % in the proxy database is left as it is: role % does not own it', view_name,
				pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(for_role))
				USING HINT = 'ots_cluster.sync_views() (superuser) brings every view in step.';
			RETURN 'skipped: another role''s';
		END IF;
		EXECUTE pg_catalog.format('DROP VIEW %s', view_name);
		RETURN 'dropped';
	END IF;
	SELECT pg_catalog.array_agg(v.column_name ORDER BY v.n), pg_catalog.array_agg(v.column_type ORDER BY v.n),
		   pg_catalog.min(v.view_owner), pg_catalog.min(v.schema_owner), pg_catalog.bool_and(v.role_owns)
	  INTO names, types, owner_name, nsp_owner, role_owns
	  FROM ots_cluster.view_columns_first(schema_name, table_name, pg_catalog.pg_get_userbyid(for_role))
		   WITH ORDINALITY v(column_name, column_type, view_owner, schema_owner, role_owns, n);
	IF names IS NULL OR pg_catalog.cardinality(names) <= pg_catalog.cardinality(entry.pk_names) THEN
		RETURN 'skipped: the first shard has no view';
	END IF;
	IF for_role IS NOT NULL AND NOT role_owns THEN
		RAISE WARNING 'the view % in the proxy database is left as it is: role % does not own ots table %', view_name,
			pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(for_role)), view_name
			USING HINT = 'ots_cluster.sync_views() (superuser) brings every view in step.';
		RETURN 'skipped: another role''s';
	END IF;
	IF rel IS NOT NULL THEN
		SELECT pg_catalog.array_agg(a.attname::text ORDER BY a.attnum),
			   pg_catalog.array_agg(pg_catalog.format_type(a.atttypid, a.atttypmod) ORDER BY a.attnum)
		  INTO have_names, have_types
		  FROM pg_catalog.pg_attribute a WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped;
		IF have_names = names AND have_types = types THEN
			RETURN 'unchanged';
		END IF;
	END IF;
	FOR i IN 1 .. pg_catalog.cardinality(names) LOOP
		select_list := select_list || CASE WHEN i > 1 THEN ', ' ELSE '' END || CASE
			WHEN i <= pg_catalog.cardinality(entry.pk_names) THEN
				pg_catalog.format(CASE entry.pk_types[i]
									  WHEN 'STRING' THEN 'ots_cluster.value_string(r.primary_key -> %L) COLLATE "C"'
									  WHEN 'INTEGER' THEN 'ots_cluster.value_integer(r.primary_key -> %L)'
									  ELSE 'ots_cluster.value_binary(r.primary_key -> %L)' END, names[i])
			WHEN i = pg_catalog.cardinality(entry.pk_names) + 1 THEN 'r.attributes'
			ELSE pg_catalog.format(CASE types[i]
									   WHEN 'text' THEN 'ots_cluster.value_string(r.attributes -> %L)'
									   WHEN 'bigint' THEN 'ots_cluster.value_integer(r.attributes -> %L)'
									   WHEN 'double precision' THEN 'ots_cluster.value_double(r.attributes -> %L)'
									   WHEN 'boolean' THEN 'ots_cluster.value_boolean(r.attributes -> %L)'
									   ELSE 'ots_cluster.value_binary(r.attributes -> %L)' END, names[i])
			END || pg_catalog.format(' AS %I', names[i]);
	END LOOP;
	query := pg_catalog.format('SELECT %s FROM ots.get_range_rows(%L, %L::jsonb, %L::jsonb) r', select_list,
							   ots_cluster.qualified(schema_name, table_name),
							   (SELECT pg_catalog.jsonb_object_agg(k, '{"$inf": "min"}'::jsonb) FROM pg_catalog.unnest(entry.pk_names) k),
							   (SELECT pg_catalog.jsonb_object_agg(k, '{"$inf": "max"}'::jsonb) FROM pg_catalog.unnest(entry.pk_names) k));
	-- its schema, owned as on the shard (else by the extension's owner)
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n WHERE n.nspname = schema_name) THEN
		EXECUTE pg_catalog.format('CREATE SCHEMA %I', schema_name);
		IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = nsp_owner) THEN
			EXECUTE pg_catalog.format('ALTER SCHEMA %I OWNER TO %I', schema_name, nsp_owner);
		END IF;
	END IF;
	IF rel IS NOT NULL THEN
		BEGIN
			EXECUTE pg_catalog.format('CREATE OR REPLACE VIEW %s WITH (security_barrier) AS %s', view_name, query);
			RETURN 'changed';
		EXCEPTION WHEN invalid_table_definition THEN
			-- a column goes or changes: made again, with its owner and grants
			-- (what depends on it makes the DROP fail, naming it)
			SELECT pg_catalog.pg_get_userbyid(c.relowner)::text, c.relacl INTO saved_owner, saved_acl
			  FROM pg_catalog.pg_class c WHERE c.oid = rel;
			EXECUTE pg_catalog.format('DROP VIEW %s', view_name);
		END;
	END IF;
	EXECUTE pg_catalog.format('CREATE VIEW %s WITH (security_barrier) AS %s', view_name, query);
	-- refused before a row is read (the statement trigger), or the view's
	-- natural error (its row trigger lets the statement trigger fire)
	EXECUTE pg_catalog.format('CREATE TRIGGER ots_read_only INSTEAD OF INSERT OR UPDATE OR DELETE ON %s'
							  ' FOR EACH ROW EXECUTE FUNCTION ots_cluster.view_read_only()', view_name);
	EXECUTE pg_catalog.format('CREATE TRIGGER ots_read_only_statement BEFORE INSERT OR UPDATE OR DELETE ON %s'
							  ' FOR EACH STATEMENT EXECUTE FUNCTION ots_cluster.view_read_only()', view_name);
	EXECUTE pg_catalog.format('COMMENT ON VIEW %s IS %L', view_name,
							  'ots table through the cluster''s proxy: live rows of every shard, read-only');
	EXECUTE pg_catalog.format('REVOKE ALL ON %s FROM PUBLIC', view_name);
	owner_name := coalesce(saved_owner, owner_name);
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = owner_name) AND owner_name <> current_user THEN
		EXECUTE pg_catalog.format('ALTER VIEW %s OWNER TO %I', view_name, owner_name);
	END IF;
	IF saved_acl IS NOT NULL THEN
		EXECUTE pg_catalog.format('REVOKE ALL ON %s FROM %I', view_name, owner_name);
		FOR g IN SELECT a.privilege_type, a.grantee, a.is_grantable FROM pg_catalog.aclexplode(saved_acl) a LOOP
			EXECUTE pg_catalog.format('GRANT %s ON %s TO %s%s', g.privilege_type, view_name,
									  CASE g.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(g.grantee)) END,
									  CASE WHEN g.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
		END LOOP;
	END IF;
	RETURN CASE WHEN saved_owner IS NULL THEN 'created' ELSE 'changed' END;
END
$$;
COMMENT ON FUNCTION ots_cluster.sync_view(name, name, oid) IS
	'creates, changes or drops the proxy''s read-only view of ots table schema.table as the first shard has it (internal)';
REVOKE ALL ON FUNCTION ots_cluster.sync_view(name, name, oid) FROM PUBLIC;

-- ots_cluster.view_follow: sync_view for the proxy's DDL, as the extension's
-- owner (ots_cluster.catalog_changed) for the role that called the DDL; a
-- view that cannot follow (what depends on it, a concurrent sync, a shard
-- that does not answer) is a warning, not the DDL's failure
CREATE FUNCTION ots_cluster.view_follow(schema_name name, table_name name, for_role oid) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	message text;
BEGIN
	PERFORM ots_cluster.sync_view(schema_name, table_name, for_role);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS message = MESSAGE_TEXT;
	RAISE WARNING 'the view of ots table %.% in the proxy database was not synced: %',
		pg_catalog.quote_ident(schema_name), pg_catalog.quote_ident(table_name), message;
END
$$;
COMMENT ON FUNCTION ots_cluster.view_follow(name, name, oid) IS
	'sync_view after the proxy''s DDL, for the role that called it; a failure is a warning (internal)';
REVOKE ALL ON FUNCTION ots_cluster.view_follow(name, name, oid) FROM PUBLIC;

-- ots_cluster.sync_views: every table of the first shard (and every view
-- the proxy made) brought in step: its view made or refreshed, the views
-- of tables gone dropped; every session forgets what it knew of tables.
-- For tables made before the proxy (a node becoming a cluster), or through
-- another proxy.
CREATE FUNCTION ots_cluster.sync_views()
	RETURNS TABLE (schema_name name, table_name name, action text)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
	had boolean;
	has boolean;
BEGIN
	PERFORM ots_cluster.catalog_changed();
	FOR t IN SELECT f.schema_name AS s, f.table_name AS n FROM ots_cluster.tables_first() f
			 UNION
			 SELECT n.nspname, c.relname FROM pg_catalog.pg_class c
			   JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			  WHERE c.relkind = 'v' AND ots_cluster.is_proxy_view(c.oid)
			 ORDER BY 1, 2 LOOP
		had := ots_cluster.is_proxy_view(pg_catalog.to_regclass(pg_catalog.format('%I.%I', t.s, t.n)));
		PERFORM ots_cluster.sync_view(t.s, t.n, NULL);
		has := ots_cluster.is_proxy_view(pg_catalog.to_regclass(pg_catalog.format('%I.%I', t.s, t.n)));
		schema_name := t.s;
		table_name := t.n;
		action := CASE WHEN has AND NOT had THEN 'created' WHEN had AND NOT has THEN 'dropped'
					   WHEN has THEN 'refreshed' ELSE 'no view' END;
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots_cluster.sync_views() IS
	'makes or refreshes the read-only view in the proxy database of every ots table of the first shard; every session forgets its catalog';
REVOKE ALL ON FUNCTION ots_cluster.sync_views() FROM PUBLIC;
