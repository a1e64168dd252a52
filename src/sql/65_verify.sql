-- Checking ots storage: ots.verify and its parts (src/admin/verify.c).
--
-- ots.verify checks each ots table the caller owns (or the one it names):
-- with amcheck, the heap pages of every leaf of its storage, of its
-- indexes' storage, of its stream's relations and of the chunk relations,
-- TOAST included (verify_heapam, each ots leaf presented to it as heap),
-- and their btree indexes (bt_index_check with heapallindexed); then what
-- only ots can check: every stored row and chunk as the write point's
-- guard checks a new one (a table without its chunk relation is
-- reported), every secondary index against its entries recomputed from
-- the table (missing, stale and wrong entries), every stream's log and
-- records.
-- One row per problem, nothing when all is well.  Only a table's owner
-- (a member of its role, or a superuser) may check it, as only it may
-- purge it; amcheck's functions run as the caller, who needs EXECUTE on
-- them.

CREATE FUNCTION ots.verify_relation(relation regclass, OUT problem_relation regclass, OUT kind text,
									OUT location text, OUT problem text, OUT detail text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'ots_verify_relation' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.verify_relation(regclass) IS
	'amcheck''s heap check of a relation (an ots leaf presented as heap; TOAST included) and btree check of its indexes, one row per problem; owner only (internal: ots.verify)';

CREATE FUNCTION ots.verify_rows(schema_name name, table_name name, OUT relation regclass,
								OUT kind text, OUT location text, OUT problem text, OUT detail text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'ots_verify_rows' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.verify_rows(name, name) IS
	'ots''s checks of an ots table: its rows'' cells and keys, its indexes against its rows, its stream''s records, one row per problem; owner only (internal: ots.verify)';

-- ots.verify_relations: what amcheck checks of an ots table: the leaves of
-- its storage, of its indexes' (a base table) and its stream's relations,
-- then its chunk relation and its indexes' (with the storage's owner), each
-- followed by its TOAST table
CREATE FUNCTION ots.verify_relations(schema_name name, table_name name) RETURNS SETOF regclass
	LANGUAGE sql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	WITH parts AS (
		SELECT 0 AS o, l.leaf::regclass AS rel, l.leaf AS name
		  FROM ots.tables t, ots.purge_leaves(t.schema_name, t.table_name) l(leaf)
		 WHERE t.schema_name = $1 AND (t.table_name = $2 OR t.index_of = $2)
		UNION ALL
		SELECT 1, s.rel, s.rel::text
		  FROM (SELECT to_regclass(format('%I.%I', $1, $2 || x)) AS rel
				  FROM unnest(ARRAY['$log', '$rec']) x) s
		 WHERE s.rel IS NOT NULL
		UNION ALL
		SELECT 2, c.oid::regclass, c.relname::text
		  FROM ots.tables t
		  JOIN pg_class s ON s.oid = to_regclass(format('%I.%I', t.schema_name, t.table_name || '$data'))
		  JOIN pg_class c ON c.oid = to_regclass(format('%I.%I', t.schema_name, t.table_name || '$chunk'))
		 WHERE t.schema_name = $1 AND (t.table_name = $2 OR t.index_of = $2) AND c.relowner = s.relowner
	)
	SELECT r.rel FROM (
		SELECT p.o, p.name, 0 AS toast, p.rel FROM parts p
		UNION ALL
		SELECT p.o, p.name, 1, c.reltoastrelid::regclass FROM parts p JOIN pg_class c ON c.oid = p.rel
		 WHERE c.reltoastrelid <> 0
	) r
	 ORDER BY r.o, r.name COLLATE "C", r.toast
$$;
COMMENT ON FUNCTION ots.verify_relations(name, name) IS
	'the relations of an ots table amcheck checks: leaves of its storage and its indexes'', its stream''s relations, its and its indexes'' chunk relations, their TOAST (internal: ots.verify)';

-- ots.verify_tables: ots.verify of a resolved table, or of every table the
-- caller owns (NULLs), where one that does not load is a problem of its own
CREATE FUNCTION ots.verify_tables(schema_name name, table_name name, amcheck boolean)
	RETURNS TABLE (ots_table text, relation regclass, kind text, location text, problem text,
				   detail text)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
	r regclass;
	qualified text;
	why text;
BEGIN
	-- a table the caller may not see (ots.tables shows it no row) is refused all the same
	IF verify_tables.table_name IS NOT NULL
	   AND NOT coalesce(ots.owns_table(verify_tables.schema_name, verify_tables.table_name), false) THEN
		RAISE EXCEPTION 'must be owner of ots table %.% to verify it', quote_ident(verify_tables.schema_name),
			verify_tables.table_name
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	FOR t IN SELECT o.schema_name, o.table_name FROM ots.tables o
			  WHERE (o.schema_name, o.table_name) = (verify_tables.schema_name, verify_tables.table_name)
				 OR (verify_tables.table_name IS NULL AND o.index_of IS NULL
					 AND coalesce(ots.owns_table(o.schema_name, o.table_name), false))
			  ORDER BY o.schema_name COLLATE "C", o.table_name COLLATE "C"
	LOOP
		qualified := format('%I.%s', t.schema_name, t.table_name);
		IF verify_tables.table_name IS NULL THEN
			why := ots.table_problem(t.schema_name, t.table_name);
			IF why IS NOT NULL THEN
				RETURN QUERY SELECT qualified, to_regclass(format('%I.%I', t.schema_name, t.table_name || '$data')),
									'table'::text, NULL::text, 'the table does not load'::text, why;
				CONTINUE;
			END IF;
		END IF;
		IF amcheck THEN
			FOR r IN SELECT x FROM ots.verify_relations(t.schema_name, t.table_name) x LOOP
				RETURN QUERY SELECT qualified, v.problem_relation, v.kind, v.location, v.problem, v.detail
							   FROM ots.verify_relation(r) v;
			END LOOP;
		END IF;
		RETURN QUERY SELECT qualified, v.relation, v.kind, v.location, v.problem, v.detail
					   FROM ots.verify_rows(t.schema_name, t.table_name) v;
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.verify_tables(name, name, boolean) IS
	'ots.verify of one resolved ots table, or of every one the caller owns (NULL names) (internal)';

-- resolved in the caller's search_path, as every table-name argument
CREATE FUNCTION ots.verify(table_name text DEFAULT NULL, amcheck boolean DEFAULT true)
	RETURNS TABLE (ots_table text, relation regclass, kind text, location text, problem text,
				   detail text)
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT v.ots_table, v.relation, v.kind, v.location, v.problem, v.detail
	  FROM (SELECT NULL::name AS schema_name, NULL::name AS table_name WHERE table_name IS NULL
			UNION ALL
			-- (resolve_name is STRICT: of a NULL name, a row of NULLs)
			SELECT r.schema_name, r.table_name FROM ots.resolve_name(table_name, false) r
			 WHERE verify.table_name IS NOT NULL) n,
		   LATERAL ots.verify_tables(n.schema_name, n.table_name, amcheck) v;
END;
COMMENT ON FUNCTION ots.verify(text, boolean) IS
	'checks the storage of an ots table, or of every one the caller owns: heap and btree through amcheck (unless amcheck => false), rows, secondary indexes against their tables, stream records; one row per problem, none when all is well';
