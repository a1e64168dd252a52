-- dump_restore: pg_dump of a database with ots tables restores into a fresh
-- database with every table, option, cell, sequence, index and pending trim
-- intact (the purge statistics, like PostgreSQL's own, are not dumped), and
-- the pg_cron jobs (which stay in this database, the only one pg_cron may
-- live in) name the tables so that their commands work in the restored
-- database too.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
CREATE EXTENSION IF NOT EXISTS pg_cron;
RESET client_min_messages;
\set VERBOSITY terse
-- jobs that never fire (February 31st): nothing runs behind the test's back
SET ots.purge_schedule = '0 0 31 2 *';

CREATE SCHEMA dr;
SELECT ots.create_table('dr.multi', 'id string, n integer', max_versions => 3, partitions => 3,
	max_version_offset => 9223372036854);
SELECT ots.create_table('dr.expiring', 'id string', max_versions => 2, time_to_live => 2000000000, partitions => 2,
	max_version_offset => 9223372036854);
SELECT ots.create_table('dr.auto', 'p string, seq integer auto_increment', partitions => 2);
SELECT ots.create_table('dr.Hashed', 'k binary', hash_prefix_length => 2, partitions => 4,
	allow_update => false);

-- every value type, several versions, a row without cells
SELECT (ots.put_row('dr.multi', jsonb_build_object('id', 'a', 'n', i),
	jsonb_build_object(
		's', jsonb_build_array(jsonb_build_object('value', 'v1', 'ts', 1000),
							   jsonb_build_object('value', 'v2', 'ts', 2000),
							   jsonb_build_object('value', 'v3', 'ts', 3000)),
		'i', jsonb_build_object('value', -9223372036854775808, 'ts', 1000),
		'd', jsonb_build_object('value', 2.5, 'ts', 1000),
		'b', jsonb_build_object('value', true, 'ts', 1000),
		'x', jsonb_build_object('value', jsonb_build_object('$binary', 'AP8='), 'ts', 1000)))).consumed
  FROM generate_series(1, 3) i;
SELECT (ots.put_row('dr.multi', '{"id": "empty", "n": 0}')).consumed;
SELECT (ots.put_row('dr.expiring', jsonb_build_object('id', 'e' || i),
	jsonb_build_object('c', jsonb_build_array(jsonb_build_object('value', i, 'ts', 1466762754000),
											  jsonb_build_object('value', -i, 'ts', 1700000000000)))))
	.consumed
  FROM generate_series(1, 2) i;
SELECT (ots.put_row('dr.auto', '{"p": "x", "seq": {"$auto_increment": true}}', '{"v": 1}',
	return_type => 'RT_PK')).primary_key
  FROM generate_series(1, 3);
SELECT (ots.put_row('dr.Hashed', jsonb_build_object('k', jsonb_build_object('$binary', b)),
	'{"v": "h"}')).consumed
  FROM unnest(ARRAY['AA==', 'AQ==', '/w==']) b;
-- a purge that ran (statistics), and a trim still owed (max_versions lowered)
SELECT ots.update_table('dr.expiring', time_to_live =>
	(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint - 1550000000000) / 1000);
CALL ots.purge('dr.expiring');
SELECT ots.update_table('dr.multi', max_versions => 2);

-- what must survive, as one text: metadata, describe_table, stored rows
-- (cells as stored), view rows, indexes, sequences
CREATE FUNCTION dr.fingerprint() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t record;
	part text;
	result text := '';
BEGIN
	FOR t IN SELECT * FROM ots.tables WHERE schema_name = 'dr' ORDER BY table_name COLLATE "C" LOOP
		EXECUTE format('SELECT string_agg(s::text, '','' ORDER BY s::text COLLATE "C") FROM %I.%I s',
					   t.schema_name, t.table_name || '$data') INTO part;
		result := result || row_to_json(t)::text
			|| ots.describe_table(format('%I.%s', t.schema_name, t.table_name))::text || part;
		EXECUTE format('SELECT string_agg(v::text, '','' ORDER BY v::text COLLATE "C") FROM %I.%I v',
					   t.schema_name, t.table_name) INTO part;
		result := result || coalesce(part, '');
	END LOOP;
	RETURN result
		|| (SELECT string_agg(indexname || indexdef, ',' ORDER BY indexname COLLATE "C")
			  FROM pg_indexes WHERE schemaname = 'dr')
		|| (SELECT string_agg(sequencename || last_value, ',' ORDER BY sequencename COLLATE "C")
			  FROM pg_sequences WHERE schemaname = 'dr');
END
$$;
SELECT dr.fingerprint() AS source_fingerprint \gset

-- the jobs name their tables; they are dumped with pg_cron's own tables
SELECT jobname, schedule, command FROM cron.job WHERE jobname LIKE 'ots.purge dr.%' ORDER BY jobname;
SELECT string_agg(command, '; ' ORDER BY jobname) AS job_commands
  FROM cron.job WHERE jobname LIKE 'ots.purge dr.%' \gset

-- dump, and restore into a new database, showing any error but those of
-- pg_cron's part of the dump (pg_cron cannot be created there)
CREATE DATABASE ots_restore TEMPLATE template0;
\! PATH=/usr/lib/postgresql/15/bin:$PATH; pg_dump -d contrib_regression | psql -X -q -d ots_restore 2>&1 | grep ERROR | grep -v -e pg_cron -e '"cron"' -e 'extension in database contrib_regression'; echo restored
\c ots_restore
SET client_min_messages = warning;

-- everything came back, byte for byte
SELECT dr.fingerprint() = :'source_fingerprint' AS identical;
SELECT schema_name, table_name FROM ots.list_table() WHERE schema_name = 'dr' ORDER BY 1, 2;
SELECT table_name, max_versions, time_to_live > 0 AS has_ttl, allow_update, partitions,
	   hash_prefix_length, trimmed_max_versions
  FROM ots.tables WHERE schema_name = 'dr' ORDER BY table_name COLLATE "C";
SELECT id, n, attributes FROM dr.multi ORDER BY id, n;
SELECT (ots.get_row('dr.multi', '{"id": "a", "n": 1}', max_versions => 5)).attributes -> 's' AS versions;
SELECT id, attributes FROM dr.expiring ORDER BY id;
SELECT k, attributes FROM dr."Hashed" ORDER BY k;
-- purge statistics start again
SELECT cells_purged, rows_purged, purges FROM ots.purge_stats WHERE schema_name = 'dr'
 ORDER BY table_name COLLATE "C";
SELECT indexname FROM pg_indexes WHERE schemaname = 'dr' AND indexname LIKE '%ttl' ORDER BY 1;

-- the restored database works: AUTO_INCREMENT continues after the restored
-- keys, writes and reads go through, and the jobs' commands purge
SELECT (ots.put_row('dr.auto', '{"p": "x", "seq": {"$auto_increment": true}}', '{"v": 2}',
	return_type => 'RT_PK')).primary_key;
SELECT p, seq, attributes FROM dr.auto ORDER BY p, seq;
SELECT id, n, ots.cells_count("$cells") AS stored_cells FROM dr."multi$data" ORDER BY id, n;
:job_commands;
SELECT id, n, ots.cells_count("$cells") AS stored_cells FROM dr."multi$data" ORDER BY id, n;
SELECT (ots.get_row('dr.multi', '{"id": "a", "n": 1}', max_versions => 5)).attributes -> 's' AS versions;
SELECT t.table_name, t.trimmed_max_versions, p.purges
  FROM ots.tables t LEFT JOIN ots.purge_stats p USING (schema_name, table_name)
 WHERE t.schema_name = 'dr' ORDER BY t.table_name COLLATE "C";

\c contrib_regression
DROP DATABASE ots_restore;
SET client_min_messages = warning;
SELECT ots.delete_table('dr.' || table_name) FROM ots.tables
 WHERE schema_name = 'dr' ORDER BY table_name COLLATE "C";
DROP SCHEMA dr CASCADE;
SELECT count(*) AS jobs_left FROM cron.job WHERE jobname LIKE 'ots.purge dr.%';
DROP EXTENSION pg_cron;
