-- test/search_err.sql: pg_temp.err(q), what running the statement q raises
-- (SQLSTATE, Tablestore error code, message and detail), or 'no error'
-- (for sql/search_*.sql)
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	detail text;
BEGIN
	EXECUTE q;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	RETURN SQLSTATE || ' ' || coalesce(ots.error_code(SQLSTATE), '-') || ': ' || SQLERRM || ' / ' || detail;
END $$;
