-- Statistics: the ots.stats view, per ots table: estimated live rows, the
-- row API's activity counters (src/stats.c, shared memory, reset by a
-- restart) and what ots.purge removed (ots.purge_stats, 50_expiry.sql).

CREATE FUNCTION ots.stats_counters(storage regclass, OUT rows_read bigint, OUT rows_written bigint,
								   OUT read_cu bigint, OUT write_cu bigint)
	AS 'MODULE_PATHNAME', 'ots_stats_counters' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ots.stats_counters(regclass) IS
	'row API activity of an ots table since server start; NULLs unless ots is in shared_preload_libraries';

CREATE FUNCTION ots.stats_forget(storage regclass) RETURNS boolean
	AS 'MODULE_PATHNAME', 'ots_stats_forget' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION ots.stats_forget(regclass) IS
	'drops the activity counters of an ots table''s storage (internal)';

-- ots.stats_forget_table: what ots.stats counts for one table goes (storage
-- NULL: its activity counters went with it)
CREATE FUNCTION ots.stats_forget_table(schema_name name, table_name name, storage regclass)
	RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	DELETE FROM ots.purge_stats p WHERE p.schema_name = $1 AND p.table_name = $2;
	SELECT ots.stats_forget($3);
$$;
COMMENT ON FUNCTION ots.stats_forget_table(name, name, regclass) IS
	'drops the purge statistics and activity counters of an ots table (internal)';

-- ots.stats_reset_internal: one resolved table, or (NULLs) all the caller owns
CREATE FUNCTION ots.stats_reset_internal(schema_name name, table_name name) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	t record;
BEGIN
	FOR t IN SELECT o.schema_name, o.table_name FROM ots.tables o
			  WHERE coalesce(ots.owns_table(o.schema_name, o.table_name), false)
				AND (stats_reset_internal.table_name IS NULL
					 OR (o.schema_name = stats_reset_internal.schema_name
						 AND o.table_name = stats_reset_internal.table_name)) LOOP
		PERFORM ots.stats_forget_table(t.schema_name, t.table_name,
									   format('%I.%I', t.schema_name, t.table_name || '$data')::regclass);
	END LOOP;
END
$$;
COMMENT ON FUNCTION ots.stats_reset_internal(name, name) IS
	'zeroes the ots.stats counters of a resolved ots table, or of all the caller owns (internal)';

CREATE FUNCTION ots.stats_reset(table_name text DEFAULT NULL) RETURNS void
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
BEGIN ATOMIC
	SELECT ots.stats_reset_internal(r.schema_name, r.table_name)
	  FROM (SELECT NULL::name AS schema_name, NULL::name AS table_name
			 WHERE stats_reset.table_name IS NULL
			UNION ALL
			-- (resolve_name is STRICT: of a NULL name, a row of NULLs)
			SELECT n.schema_name, n.table_name
			  FROM ots.resolve_name(stats_reset.table_name, false) n
			 WHERE stats_reset.table_name IS NOT NULL) r;
END;
COMMENT ON FUNCTION ots.stats_reset(text) IS
	'zeroes the ots.stats counters (activity and purge) of one ots table, or of all the caller owns';

-- rows as the reader may see them (ots.table_visible, through RLS)
CREATE VIEW ots.stats WITH (security_invoker) AS
SELECT t.schema_name,
	   t.table_name,
	   l.live_rows,
	   s.rows_read,
	   s.rows_written,
	   s.read_cu,
	   s.write_cu,
	   coalesce(p.cells_purged, 0) AS cells_purged,
	   coalesce(p.rows_purged, 0) AS rows_purged,
	   p.last_purge,
	   p.last_purge_duration
  FROM ots.tables t
  CROSS JOIN LATERAL (SELECT (SELECT c.oid FROM pg_catalog.pg_class c
								JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
							   WHERE n.nspname OPERATOR(pg_catalog.=) t.schema_name
								 AND c.relname OPERATOR(pg_catalog.=) (t.table_name OPERATOR(pg_catalog.||) '$data')
							 )::pg_catalog.regclass AS storage) d
  LEFT JOIN LATERAL ots.stats_counters(d.storage) s ON true
  LEFT JOIN LATERAL (SELECT pg_catalog.sum(c.reltuples) FILTER (WHERE c.reltuples OPERATOR(pg_catalog.>=) 0)::bigint AS live_rows
					   FROM pg_catalog.pg_inherits i
					   JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) i.inhrelid
					  WHERE i.inhparent OPERATOR(pg_catalog.=) d.storage) l ON true
  LEFT JOIN ots.purge_stats p
	ON p.schema_name OPERATOR(pg_catalog.=) t.schema_name AND p.table_name OPERATOR(pg_catalog.=) t.table_name;
COMMENT ON VIEW ots.stats IS
	'per ots table: estimated live rows (ANALYZE), row API activity since server start (NULL unless ots is preloaded), purge results';
GRANT SELECT ON ots.stats TO PUBLIC;
