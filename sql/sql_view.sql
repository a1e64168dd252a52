-- sql_view: each ots table's view: live rows only, latest attribute values,
-- typed primary-key columns, plain SQL on top (WHERE, JOIN, aggregates),
-- index use on the storage partitions, and bytewise String order.
-- Quiet: the extension may already exist (the files share one database),
-- and table DDL reports how expiry is scheduled; neither is this file's subject.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
\set VERBOSITY terse

-- EXPLAIN output with partition numbers (which depend on hash values) masked
CREATE FUNCTION pg_temp.explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		RETURN NEXT regexp_replace(line, '\$p[0-9]+', '$pN', 'g');
	END LOOP;
END
$$;

--
-- primary-key columns are typed; attributes are jsonb
--
SELECT ots.create_table('sv_types', 's string, i integer, b binary', partitions => 2);
SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type, c.collname
  FROM pg_attribute a LEFT JOIN pg_collation c ON c.oid = a.attcollation
 WHERE a.attrelid = 'sv_types'::regclass AND a.attnum > 0 ORDER BY a.attnum;
SELECT ots.put_row('sv_types', '{"s": "x", "i": -1, "b": {"$binary": "AP8="}}', '{"n": 1}');
SELECT s, i, b, attributes, pg_typeof(s) AS s_type, pg_typeof(i) AS i_type, pg_typeof(b) AS b_type
  FROM sv_types ORDER BY s, i, b;
-- writes on the view are the row API's (view_write tests them in full), so
-- ots's rules hold: a String key's length limit, a key that cannot change
INSERT INTO sv_types (s, i, b) VALUES (repeat('y', 2000), 1, '\x00');
UPDATE sv_types SET s = 'z';
INSERT INTO sv_types (s, i, b) VALUES ('y', 1, '\x00');
SELECT s, i, b, attributes FROM sv_types ORDER BY s, i, b;
DELETE FROM sv_types;
SELECT count(*) FROM sv_types;
SELECT ots.delete_table('sv_types');

--
-- attributes are the latest value of each column; only live rows are shown
--
SELECT ots.create_table('sv_live', 'k string', max_versions => 3,
	max_version_offset => 9223372036854, partitions => 2);
-- "old": cells from 2016; "fresh": cells stamped now; "mixed": one of each;
-- "versions": three versions of one column
SELECT ots.put_row('sv_live', '{"k": "old"}', '{"a": {"value": 1, "ts": 1466762754000}}');
SELECT ots.put_row('sv_live', '{"k": "fresh"}', '{"a": 2}');
SELECT ots.put_row('sv_live', '{"k": "mixed"}',
	'{"a": {"value": "old", "ts": 1466762754000}, "b": "fresh"}');
SELECT ots.put_row('sv_live', '{"k": "versions"}',
	'{"a": [{"value": "v1", "ts": 1000}, {"value": "v3", "ts": 3000}, {"value": "v2", "ts": 2000}]}');
SELECT k, attributes FROM sv_live ORDER BY k;
-- a row with no attributes is a row
SELECT ots.put_row('sv_live', '{"k": "empty"}');
SELECT k, attributes FROM sv_live WHERE k = 'empty' ORDER BY k;
-- max_versions 1: still the latest values
SELECT ots.update_table('sv_live', max_versions => 1);
SELECT k, attributes FROM sv_live ORDER BY k;
-- a TTL of one day hides the 2016 cells at once; rows written just now still
-- exist (their write time is younger than the TTL), with what is left
SELECT ots.update_table('sv_live', time_to_live => 86400);
SELECT k, attributes FROM sv_live ORDER BY k;
-- ... the view agrees with get_row
SELECT k, (ots.get_row('sv_live', jsonb_build_object('k', k))).attributes AS get_row
  FROM (VALUES ('old'), ('fresh'), ('mixed'), ('versions'), ('empty')) v(k) ORDER BY k;
-- a TTL of one second, a little later: nothing is live; the storage still holds the rows
SELECT ots.update_table('sv_live', time_to_live => 1);
SELECT pg_sleep(1.2);
SELECT count(*) AS live FROM sv_live;
SELECT count(*) AS stored FROM "sv_live$data";
SELECT ots.get_row('sv_live', '{"k": "fresh"}');
-- raising the TTL again shows the not yet purged data
SELECT ots.update_table('sv_live', time_to_live => -1, max_versions => 3);
SELECT k, attributes FROM sv_live ORDER BY k;
-- a deleted row is gone
SELECT (ots.delete_row('sv_live', '{"k": "mixed"}')).consumed;
SELECT k FROM sv_live ORDER BY k;
SELECT ots.delete_table('sv_live');

--
-- plain SQL: WHERE, JOIN, aggregates, on 100 000 rows of a Lindorm-style table
--
SELECT ots.create_table('orders', 'channel string, id string, ts integer', partitions => 8);
-- 4 channels x 100 ids x 250 timestamps, loaded through ots.put_row (about two seconds)
SELECT count(*) FROM generate_series(0, 99999) g,
	LATERAL ots.put_row('orders',
		jsonb_build_object('channel', (ARRAY['alipay', 'wechat', 'card', 'cash'])[g % 4 + 1],
						   'id', 'a' || lpad(((g / 4) % 100)::text, 4, '0'),
						   'ts', 1705786502000 + (g / 400) * 1000),
		jsonb_build_object('amount', g % 1000, 'status', CASE WHEN g % 10 = 0 THEN 'refunded' ELSE 'paid' END));
ANALYZE "orders$data";
SELECT count(*) FROM orders;
-- the query: the key scan reads the channel's leaf, from id 'a0089' on, in key order
SELECT * FROM pg_temp.explain($$
	SELECT * FROM orders WHERE channel = 'alipay' AND id > 'a0089' AND ts = 1705786502000$$);
SELECT count(*), min(id), max(id)
  FROM orders WHERE channel = 'alipay' AND id > 'a0089' AND ts = 1705786502000;
SELECT * FROM orders WHERE channel = 'alipay' AND id > 'a0089' AND ts = 1705786502000
 ORDER BY channel, id, ts;
-- a point query: the key scan on all three key columns
SELECT * FROM pg_temp.explain($$
	SELECT * FROM orders WHERE channel = 'card' AND id = 'a0050' AND ts = 1705786502000$$);
SELECT * FROM orders WHERE channel = 'card' AND id = 'a0050' AND ts = 1705786502000
 ORDER BY channel, id, ts;
-- a range of one key: the key scan on its first two columns
SELECT * FROM pg_temp.explain($$
	SELECT count(*) FROM orders WHERE channel = 'cash' AND id = 'a0007'$$);
SELECT count(*), min(ts), max(ts) FROM orders WHERE channel = 'cash' AND id = 'a0007';
-- aggregates over attributes
SELECT channel, count(*) AS orders, sum((attributes ->> 'amount')::int) AS amount,
       count(*) FILTER (WHERE attributes ->> 'status' = 'refunded') AS refunded
  FROM orders GROUP BY channel ORDER BY channel;
-- a JOIN with a plain table
CREATE TABLE sv_channels (channel text PRIMARY KEY, label text);
INSERT INTO sv_channels VALUES ('alipay', 'Alipay'), ('wechat', 'WeChat Pay'), ('paypal', 'PayPal');
SELECT c.label, count(o.id) AS orders
  FROM sv_channels c LEFT JOIN orders o ON o.channel = c.channel AND o.id < 'a0010'
 GROUP BY c.label ORDER BY c.label;
-- a view over the view
CREATE VIEW sv_refunds AS
	SELECT channel, id, ts, (attributes ->> 'amount')::int AS amount
	  FROM orders WHERE attributes ->> 'status' = 'refunded';
SELECT * FROM sv_refunds WHERE channel = 'card' ORDER BY channel, id, ts LIMIT 3;
DROP VIEW sv_refunds;
DROP TABLE sv_channels;
SELECT ots.delete_table('orders');

--
-- Strings sort bytewise, whatever the database collation
--
SELECT ots.create_table('sv_order', 's string', partitions => 1);
SELECT count(*) FROM unnest(ARRAY['a', 'B', 'ab', 'b', 'A', 'Z', 'z', '_', '0', '', 'é', 'ä', '中', 'aB', 'a b'])
	AS v(s), LATERAL ots.put_row('sv_order', jsonb_build_object('s', s));
SELECT s, convert_to(s, 'UTF8') AS utf8 FROM sv_order ORDER BY s;
-- the same order in a database whose default collation is ICU's en-US
-- (where a plain text column sorts 'a' < 'B')
CREATE DATABASE ots_icu TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8';
\c ots_icu
SET client_min_messages = warning;
CREATE EXTENSION ots;
\set VERBOSITY terse
SELECT datlocprovider, daticulocale FROM pg_database WHERE datname = current_database();
CREATE TABLE plain (s text);
INSERT INTO plain VALUES ('a'), ('B'), ('ab'), ('b'), ('A'), ('Z'), ('z'), ('é'), ('ä');
SELECT s FROM plain ORDER BY s;
SELECT ots.create_table('sv_order', 's string', partitions => 1);
SELECT count(*) FROM plain, LATERAL ots.put_row('sv_order', jsonb_build_object('s', s));
SELECT s FROM sv_order ORDER BY s;
-- comparisons too: 'B' < 'a' in the view's column
SELECT count(*) FILTER (WHERE s < 'a') AS below_a FROM sv_order;
SELECT count(*) FILTER (WHERE s < 'a') AS below_a FROM plain;
\c contrib_regression
SET client_min_messages = warning;
DROP DATABASE ots_icu;
SELECT ots.delete_table('sv_order');
