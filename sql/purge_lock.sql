-- purge_lock: a purge that fails after taking its table's session-level
-- purge lock (here in ots.purge_finish, at the very end) releases the lock
-- with the error, so later purges of the table by other sessions do not
-- skip it as "being purged by another session".  The lock shows in
-- pg_locks as an advisory lock with objsubid 28532.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

SELECT ots.create_table('pl_ttl', 'id string', time_to_live => 86400, partitions => 2);
SELECT count(*) AS written FROM ots.put_row('pl_ttl', '{"id": "a"}', '{"v": 1}');

-- the purge lock this session holds
CREATE FUNCTION pg_temp.purge_locks() RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM pg_locks
	 WHERE locktype = 'advisory' AND objsubid = 28532 AND pid = pg_backend_pid() AND granted
$$;

-- purge_finish fails once: its statistics row is refused
CREATE FUNCTION pg_temp.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'purge statistics refused';
END
$$;
CREATE TRIGGER pl_refuse BEFORE INSERT ON ots.purge_stats
	FOR EACH ROW EXECUTE FUNCTION pg_temp.refuse();
CALL ots.purge('pl_ttl');
SELECT pg_temp.purge_locks() AS locks_after_failed_purge;
DROP TRIGGER pl_refuse ON ots.purge_stats;

-- a purge refused before it takes the lock leaves none either
CALL ots.purge('pl_ttl', batch_size => 0);
SELECT pg_temp.purge_locks() AS locks_after_bad_batch_size;

-- the next purge runs (no "being purged" notice) and leaves no lock
SET client_min_messages = notice;
CALL ots.purge('pl_ttl');
SET client_min_messages = warning;
SELECT pg_temp.purge_locks() AS locks_after_purge;
SELECT purges FROM ots.purge_stats WHERE table_name = 'pl_ttl';

SELECT ots.delete_table('pl_ttl');
