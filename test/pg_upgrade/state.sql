-- test/pg_upgrade/state.sql: what a database holds for ots besides its
-- tables' rows (test/dump/rows.sql has those), one line per fact, for
-- test/pg_upgrade/run.sh to compare before and after: ots's catalog and the
-- definition each storage's comment carries (one row per table, none
-- without its storage, none twice), the relations, the pg_cron jobs (psql
-- variable cron), and what a role under a row-level security policy reads.
-- ots.tables, every row and column
SELECT format('ots.tables: %s rows, md5 %s', count(*),
			  md5(coalesce(string_agg(t::text, E'\n' ORDER BY t.schema_name, t.table_name), '')))
  FROM ots.tables t;
-- each table's storage carries its row; each storage carrying a definition is registered
SELECT format('registered %s.%s: %s', coalesce(t.schema_name, s.nspname), coalesce(t.table_name, s.table_name),
			  CASE WHEN s.definition IS NULL THEN 'no storage carrying its definition'
				   WHEN t.table_name IS NULL THEN 'storage carries a definition, no row in ots.tables'
				   WHEN s.definition = to_jsonb(t) - 'schema_name' - 'table_name' THEN 'its storage carries its row'
				   ELSE 'its storage carries another definition: ' || s.definition::text END)
  FROM ots.tables t
  FULL JOIN (SELECT n.nspname, left(c.relname, -length('$data')) AS table_name,
					(regexp_match(d.description, E'\nots definition: (.*)$'))[1]::jsonb AS definition
			   FROM pg_class c
			   JOIN pg_namespace n ON n.oid = c.relnamespace
			   JOIN pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0
			  WHERE c.relkind = 'p' AND d.description LIKE E'%\nots definition: %') s
	ON s.nspname = t.schema_name AND s.table_name = t.table_name
 ORDER BY 1;
-- every relation of the schemas holding ots tables (storage, leaves, views,
-- sequences, streams' relations, indexes), none more and none less
SELECT format('relation %s.%s: %s %s', n.nspname, c.relname, c.relkind, coalesce(a.amname, '-'))
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_am a ON a.oid = c.relam
 WHERE n.nspname IN ('public', 'tenant')
 ORDER BY 1;
\if :cron
SELECT format('cron job %s: %s %s as %s in %s, active %s', j.jobname, j.schedule, j.command, j.username,
			  j.database, j.active)
  FROM cron.job j
 ORDER BY j.jobname, j.username;
\endif
-- a role under a row-level security policy of another role's table
CREATE FUNCTION pg_temp.try(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	v text;
BEGIN
	EXECUTE query INTO v;
	RETURN v;
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ' ' || SQLERRM;
END
$$;
SET ROLE reader;
SELECT format('reader: storage %s, view %s, get_row: %s',
			  pg_temp.try('SELECT count(*) || '' rows, md5 '' || md5(string_agg(k || n, '','' ORDER BY k, n)) FROM tenant."notes$data"'),
			  pg_temp.try('SELECT count(*) || '' rows'' FROM tenant.notes'),
			  pg_temp.try($$SELECT (ots.get_row('tenant.notes', '{"k": "pub0", "n": 15}')).attributes::text$$));
RESET ROLE;
