-- test/differential/differential.sql: the checker of the differential test
-- (run.sh).  gen.py writes, per seed, tables with rows and the same rows in
-- plain tables, then one diff.check call per query; diff.check runs the
-- query over the ots views with every ots rewrite on, off and each one off
-- alone, each as a plain statement and as a prepared statement with a custom
-- and a generic plan, and compares every answer with the plain tables'.
-- What differs lands in diff.failures, which run.sh prints.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
CREATE SCHEMA diff;

CREATE TABLE diff.failures (
	seed integer,
	qid integer,
	config text,
	mode text,
	query text,
	params text,
	missing text[],				-- rows of the plain tables' answer the run did not return
	extra text[],				-- rows the run returned that the plain tables' answer has not
	error text,
	plan text					-- the run's plan
);

-- what each query's plan (every rewrite on, a plain statement) used: the
-- test's coverage of the rewrites
CREATE TABLE diff.coverage (
	seed integer,
	qid integer,
	key_scan boolean,
	pushdown boolean,
	index_scan boolean,
	search_scan boolean
);

-- the rewrites' settings: every one on, every one off, each one off alone
CREATE TABLE diff.configs (name text PRIMARY KEY, key_scan text, attribute_pushdown text, index_scan text,
						   search_scan text);
INSERT INTO diff.configs VALUES
	('all on', 'on', 'on', 'on', 'on'),
	('all off', 'off', 'off', 'off', 'off'),
	('key_scan off', 'off', 'on', 'on', 'on'),
	('attribute_pushdown off', 'on', 'off', 'on', 'on'),
	('index_scan off', 'on', 'on', 'off', 'on'),
	('search_scan off', 'on', 'on', 'on', 'off');

-- diff.capture runs stmt (a SELECT, or EXECUTE of a prepared statement) into
-- a temporary table and returns its rows as text, in the order the
-- statement returned them when ordered, else sorted; or the error it raised
CREATE FUNCTION diff.capture(stmt text, ordered boolean, OUT rows text[], OUT error text)
	LANGUAGE plpgsql AS $$
BEGIN
	DROP TABLE IF EXISTS pg_temp.diff_rows;
	EXECUTE 'CREATE TEMP TABLE diff_rows AS ' || stmt;
	IF ordered THEN
		SELECT coalesce(array_agg(r::text ORDER BY r.ctid), '{}') INTO rows FROM pg_temp.diff_rows r;
	ELSE
		SELECT coalesce(array_agg(r::text ORDER BY r::text COLLATE "C"), '{}') INTO rows FROM pg_temp.diff_rows r;
	END IF;
	DROP TABLE pg_temp.diff_rows;
EXCEPTION WHEN OTHERS THEN
	rows := NULL;
	error := SQLSTATE || ': ' || SQLERRM;
END
$$;

-- diff.minus: the elements of a not in b, as multisets
CREATE FUNCTION diff.minus(a text[], b text[]) RETURNS text[]
	LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(array_agg(x ORDER BY x COLLATE "C"), '{}')
	  FROM (SELECT unnest(a) AS x EXCEPT ALL SELECT unnest(b)) d
$$;

-- diff.plan: the plan of stmt, as EXPLAIN shows it
CREATE FUNCTION diff.plan(stmt text) RETURNS text
	LANGUAGE plpgsql AS $$
DECLARE
	plan text := '';
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || stmt LOOP
		plan := plan || line || E'\n';
	END LOOP;
	RETURN plan;
EXCEPTION WHEN OTHERS THEN
	RETURN SQLERRM;
END
$$;

-- diff.deallocate forgets the prepared statement of a query, if there is one
CREATE FUNCTION diff.deallocate() RETURNS void
	LANGUAGE plpgsql AS $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_prepared_statements WHERE name = 'diff_q') THEN
		DEALLOCATE diff_q;
	END IF;
END
$$;

-- diff.check: one query.  ots_sql and plain_sql take parameters $1..$n of
-- ptypes ('text, bigint'); ots_lit and plain_lit are the same with the
-- values pvals written in; ordered says the query's ORDER BY fixes its
-- rows' order.
CREATE FUNCTION diff.check(seed integer, qid integer, ordered boolean, ots_sql text, ots_lit text,
						   plain_lit text, ptypes text, pvals text) RETURNS void
	LANGUAGE plpgsql AS $$
DECLARE
	expected text[];
	got text[];
	err text;
	c diff.configs;
	mode text;
	plan text;
	stmt text;
BEGIN
	SELECT r.rows, r.error INTO expected, err FROM diff.capture(plain_lit, ordered) r;
	IF err IS NOT NULL THEN
		INSERT INTO diff.failures VALUES (seed, qid, 'plain tables', 'plain', plain_lit, pvals, NULL, NULL, err, NULL);
		RETURN;
	END IF;
	FOR c IN SELECT * FROM diff.configs ORDER BY name LOOP
		PERFORM set_config('ots.key_scan', c.key_scan, true);
		PERFORM set_config('ots.attribute_pushdown', c.attribute_pushdown, true);
		PERFORM set_config('ots.index_scan', c.index_scan, true);
		PERFORM set_config('ots.search_scan', c.search_scan, true);
		IF c.name = 'all on' THEN
			plan := diff.plan(ots_lit);
			INSERT INTO diff.coverage
			VALUES (seed, qid, plan LIKE '%OtsKeyScan%', plan ~ 'ots\.row_attribute(_text)?\(',
					plan LIKE '%ots_index%', plan LIKE '%$search$%');
		END IF;
		FOREACH mode IN ARRAY '{plain, custom, generic}'::text[] LOOP
			IF mode = 'plain' THEN
				stmt := ots_lit;
			ELSE
				PERFORM diff.deallocate();
				EXECUTE format('PREPARE diff_q%s AS %s',
							   CASE WHEN ptypes = '' THEN '' ELSE '(' || ptypes || ')' END, ots_sql);
				PERFORM set_config('plan_cache_mode',
								   CASE mode WHEN 'custom' THEN 'force_custom_plan' ELSE 'force_generic_plan' END, true);
				stmt := format('EXECUTE diff_q%s', CASE WHEN pvals = '' THEN '' ELSE '(' || pvals || ')' END);
			END IF;
			SELECT r.rows, r.error INTO got, err FROM diff.capture(stmt, ordered) r;
			IF err IS NOT NULL OR got IS DISTINCT FROM expected THEN
				INSERT INTO diff.failures
				VALUES (seed, qid, c.name, mode, CASE mode WHEN 'plain' THEN ots_lit ELSE ots_sql END, pvals,
						diff.minus(expected, got), diff.minus(got, expected), err, diff.plan(stmt));
			END IF;
			IF mode <> 'plain' THEN
				PERFORM set_config('plan_cache_mode', 'auto', true);
				PERFORM diff.deallocate();
			END IF;
		END LOOP;
	END LOOP;
	PERFORM set_config('ots.key_scan', 'on', true);
	PERFORM set_config('ots.attribute_pushdown', 'on', true);
	PERFORM set_config('ots.index_scan', 'on', true);
	PERFORM set_config('ots.search_scan', 'on', true);
END
$$;
