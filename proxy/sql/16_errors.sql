-- Errors.  PL/Proxy re-raises a shard's error with its SQLSTATE but a
-- decorated message ("f(6): [shard0] REMOTE ERROR: msg", "Remote detail:
-- ...", "Remote hint: ..."); a shard it cannot reach is its own XX000
-- ("PL/Proxy function f(6): [shard0] PQconnectPoll: ...").

-- Tablestore's error codes by SQLSTATE; the Makefile appends the rows from
-- src/ots_error_codes.h, the list's one owner
CREATE TABLE ots_cluster.error_codes (
	sqlstate text PRIMARY KEY,
	code text NOT NULL
);
COMMENT ON TABLE ots_cluster.error_codes IS 'Tablestore error codes of ots''s SQLSTATEs (from src/ots_error_codes.h)';
GRANT SELECT ON ots_cluster.error_codes TO PUBLIC;

CREATE FUNCTION ots.error_code(sqlstate text) RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	RETURN (SELECT e.code FROM ots_cluster.error_codes e WHERE e.sqlstate = error_code.sqlstate);
END
$$;
COMMENT ON FUNCTION ots.error_code(text) IS 'the Tablestore error code (OTSParameterInvalid, ...) of an ots SQLSTATE';

-- ots_cluster.raise_remote: raises an error caught around a PL/Proxy call as
-- the single node would: a shard's error with its own message, detail and
-- hint; an unreachable shard as OTSPartitionUnavailable (OT013); anything
-- else unchanged.  partition: the partition called, to name the shard.
CREATE FUNCTION ots_cluster.raise_remote(sqlstate text, message text, detail text, hint text,
										 partition integer DEFAULT NULL) RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	m text[];
	shard text;
BEGIN
	IF sqlstate = 'XX000' THEN
		m := pg_catalog.regexp_match(message,
			'^PL/Proxy function [^ ]+\(\d+\): \[([^]]*)\] (PQconnectPoll|PQconnectStart|PQsendQuery|PQconsumeInput|PQsendQueryParams|PQflush)[^:]*: (.*)$', 's');
		IF m IS NULL THEN
			m := pg_catalog.regexp_match(message, '^PL/Proxy function [^ ]+\(\d+\): ()((?:connect|query) timeout[^:]*)(.*)$', 's');
		END IF;
		IF m IS NOT NULL THEN
			shard := (SELECT s.connstr FROM ots_cluster.shards() s WHERE raise_remote.partition = ANY (s.partitions));
			RAISE EXCEPTION USING ERRCODE = 'OT013', MESSAGE = 'The partition is not available.',
				DETAIL = pg_catalog.format('shard %s: %s',
					coalesce(shard, CASE WHEN m[1] <> '' THEN 'dbname=' || m[1] END, '?'),
					pg_catalog.rtrim(coalesce(nullif(m[3], ''), m[2]), E'\n '));
		END IF;
	END IF;
	m := pg_catalog.regexp_match(message, '^[^ ]+\(\d+\): \[[^]]*\] REMOTE [A-Z]+: (.*)$', 's');
	IF m IS NOT NULL THEN
		message := m[1];
		detail := pg_catalog.regexp_replace(detail, '^Remote detail: ', '');
		hint := pg_catalog.regexp_replace(hint, '^Remote hint: ', '');
	END IF;
	IF coalesce(detail, '') = '' AND coalesce(hint, '') = '' THEN
		RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message;
	ELSIF coalesce(hint, '') = '' THEN
		RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, DETAIL = detail;
	ELSIF coalesce(detail, '') = '' THEN
		RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, HINT = hint;
	END IF;
	RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, DETAIL = detail, HINT = hint;
END
$$;
COMMENT ON FUNCTION ots_cluster.raise_remote(text, text, text, text, integer) IS
	'raises an error caught around a PL/Proxy call as the single node would (OT013 for an unreachable shard)';
