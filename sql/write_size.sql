-- write_size: Tablestore's 4 MB request limit on single-row writes (issue 12
-- item 13).  put_row and update_row measure their request as batch_write_row
-- measures a batch: key names and values, cell names and values (+8 bytes for
-- an explicit timestamp, decoded bytes for Binary, 8 for an Integer delta),
-- one name per deleted version.  A refused write stores nothing.  (delete_row
-- is measured too, but a key of at most 4 x (255 + 1024) bytes never reaches
-- the limit.)  A row may still grow past 4 MB through several writes.
-- Quiet: the extension may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

SELECT ots.create_table('ws', 'id integer', partitions => 2);
-- a row's column names and value lengths, by name
CREATE FUNCTION pg_temp.shape(k integer) RETURNS text
LANGUAGE sql AS $$
	SELECT coalesce(string_agg(key || ':' || length(value #>> '{}'), ' ' ORDER BY key), '(no row)')
	  FROM ots.get_row('ws', jsonb_build_object('id', k)) g
	  LEFT JOIN LATERAL jsonb_each(g.attributes) ON true
	 WHERE g.attributes IS NOT NULL
$$;

--
-- put_row: key (2 + 8) + 3 names + values = 4194304 is accepted, one byte more is not
--
SELECT consumed FROM ots.put_row('ws', '{"id": 1}', jsonb_build_object(
	'a', repeat('a', 2000000), 'b', repeat('b', 2000000), 'c', repeat('c', 194291)));
SELECT pg_temp.shape(1);
SELECT consumed FROM ots.put_row('ws', '{"id": 2}', jsonb_build_object(
	'a', repeat('a', 2000000), 'b', repeat('b', 2000000), 'c', repeat('c', 194292)));
SELECT pg_temp.shape(2);
-- replacing an existing row: refused, the row keeps its cells
SELECT consumed FROM ots.put_row('ws', '{"id": 1}', jsonb_build_object(
	'x', repeat('a', 2000000), 'y', repeat('b', 2000000), 'z', repeat('c', 194292)));
SELECT pg_temp.shape(1);
-- an explicit timestamp adds 8 bytes; a Binary value counts its decoded bytes
SELECT consumed FROM ots.put_row('ws', '{"id": 3}', jsonb_build_object(
	'a', repeat('a', 2000000), 'b', repeat('b', 2000000),
	'c', jsonb_build_object('value', repeat('c', 194284), 'ts', 1466762754000)));
SELECT consumed FROM ots.put_row('ws', '{"id": 3}', jsonb_build_object(
	'a', repeat('a', 2000000), 'b', repeat('b', 2000000),
	'c', jsonb_build_object('$binary', translate(encode(convert_to(repeat('c', 194292), 'UTF8'), 'base64'), E'\n', ''))));
SELECT pg_temp.shape(3);
-- the request is measured before its cells are parsed: the size error comes first
SELECT consumed FROM ots.put_row('ws', '{"id": 3}', jsonb_build_object(
	'a', repeat('a', 2000000), 'b', repeat('b', 2000000), 'c', repeat('c', 194292),
	'd', '{"$double": "NaN"}'::jsonb));
-- the key is checked first
SELECT consumed FROM ots.put_row('ws', '{"nope": 3}', jsonb_build_object(
	'a', repeat('a', 2000000), 'b', repeat('b', 2000000), 'c', repeat('c', 194292)));

--
-- update_row: key 10 + put 4000003 + Y + increment (1 + 8) + two deleted versions (1 + 1)
--
SELECT consumed FROM ots.update_row('ws', '{"id": 1}',
	put => jsonb_build_object('a', repeat('a', 2000000), 'b', repeat('b', 2000000), 'c', repeat('c', 194281)),
	delete => '{"d": [1000, 2000]}', increment => '{"n": 1}');
SELECT pg_temp.shape(1);
SELECT consumed FROM ots.update_row('ws', '{"id": 4}',
	put => jsonb_build_object('a', repeat('a', 2000000), 'b', repeat('b', 2000000), 'c', repeat('c', 194280)),
	delete => '{"d": [1000, 2000]}', increment => '{"n": 1}');
SELECT pg_temp.shape(4);

--
-- a row grows past 4 MB through several writes, each within the limit
--
SELECT consumed FROM ots.update_row('ws', '{"id": 1}', put => jsonb_build_object('e', repeat('e', 2000000)));
SELECT consumed FROM ots.update_row('ws', '{"id": 1}', put => jsonb_build_object('f', repeat('f', 2000000)));
SELECT pg_temp.shape(1);
-- a small write to it is a small request
SELECT consumed FROM ots.update_row('ws', '{"id": 1}', increment => '{"n": 1}');
SELECT consumed FROM ots.delete_row('ws', '{"id": 1}');
SELECT pg_temp.shape(1);

-- batch_write_row names itself (the same measure: see batch_ops)
SELECT is_ok FROM ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'ws', 'rows',
	jsonb_build_array(jsonb_build_object('type', 'PUT', 'primary_key', '{"id": 5}'::jsonb,
		'attributes', jsonb_build_object('a', repeat('a', 2000000), 'b', repeat('b', 2000000),
										 'c', repeat('c', 194292)))))));

SELECT ots.delete_table('ws');
