-- tools/demo.sql: a tour of ots with student-card purchase records through
-- the API, then Lindorm's orders table (shop_orders) written and queried in
-- SQL only.
-- Run by tools/demo in the database ots_demo; safe to re-run there.
\set ON_ERROR_STOP on
\pset footer off
\echo
\echo '== extensions in this database'
SELECT extname, extversion FROM pg_extension ORDER BY extname;

-- A card's purchases: partition key card_id, then an auto-increment order number.
-- Keep 3 versions of every cell for 30 days.
SELECT ots.create_table('student_card_orders',
                        'card_id string, order_no integer auto_increment',
                        max_versions => 3, time_to_live => 30 * 86400);

\echo '== put_row with a generated order number (RT_PK returns it)'
SELECT primary_key, consumed
  FROM ots.put_row('student_card_orders',
                   '{"card_id": "card-0001", "order_no": {"$auto_increment": true}}',
                   '{"shop": "canteen", "amount": 12.5, "items": 2, "paid": true}',
                   return_type => 'RT_PK');
SELECT primary_key
  FROM ots.put_row('student_card_orders',
                   '{"card_id": "card-0001", "order_no": {"$auto_increment": true}}',
                   '{"shop": "library cafe", "amount": 4.0, "items": 1, "paid": false}',
                   return_type => 'RT_PK');
SELECT primary_key
  FROM ots.put_row('student_card_orders',
                   '{"card_id": "card-0002", "order_no": {"$auto_increment": true}}',
                   '{"shop": "canteen", "amount": 9.0, "items": 1, "paid": true}',
                   return_type => 'RT_PK');

\echo '== update_row: pay the second order (only if still unpaid) and count a reprint'
SELECT attributes AS after_modify, consumed
  FROM ots.update_row('student_card_orders', '{"card_id": "card-0001", "order_no": 2}',
                      put => '{"paid": true}',
                      increment => '{"receipts_printed": 1}',
                      column_condition => '{"column": "paid", "comparator": "=", "value": false}',
                      return_type => 'RT_AFTER_MODIFY');

\echo '== a second attempt fails its condition: OTSConditionCheckFail (SQLSTATE OT003)'
DO $$
BEGIN
	PERFORM ots.update_row('student_card_orders', '{"card_id": "card-0001", "order_no": 2}',
						   put => '{"paid": true}',
						   column_condition => '{"column": "paid", "comparator": "=", "value": false}');
EXCEPTION WHEN SQLSTATE 'OT003' THEN
	RAISE NOTICE 'caught %: %', ots.error_code(SQLSTATE), SQLERRM;
END
$$;

\echo '== get_row: latest values, then every version of "paid"'
SELECT attributes FROM ots.get_row('student_card_orders', '{"card_id": "card-0001", "order_no": 2}');
SELECT jsonb_array_length(attributes -> 'paid') AS versions_of_paid
  FROM ots.get_row('student_card_orders', '{"card_id": "card-0001", "order_no": 2}',
                   columns_to_get => '{paid}', max_versions => 3);

\echo '== get_range: all orders of card-0001, newest first'
SELECT r -> 'primary_key' ->> 'order_no' AS order_no, r -> 'attributes' ->> 'shop' AS shop
  FROM ots.get_range('student_card_orders',
                     '{"card_id": "card-0001", "order_no": {"$inf": "max"}}',
                     '{"card_id": "card-0001", "order_no": {"$inf": "min"}}',
                     direction => 'BACKWARD') g,
       jsonb_array_elements(g.rows) r;

\echo '== batch_write_row: three rows, one fails, the others are applied'
SELECT table_name, index, is_ok, error_code
  FROM ots.batch_write_row('[{"table_name": "student_card_orders", "rows": [
      {"type": "PUT", "primary_key": {"card_id": "card-0003", "order_no": 1}, "attributes": {"shop": "gym", "amount": 30.0}},
      {"type": "UPDATE", "primary_key": {"card_id": "card-0009", "order_no": 1}, "put": {"amount": 1.0}, "condition": "EXPECT_EXIST"},
      {"type": "DELETE", "primary_key": {"card_id": "card-0002", "order_no": 3}}]}]');

\echo '== plain SQL over the live rows: spending per card'
SELECT card_id, count(*) AS orders, sum((attributes ->> 'amount')::numeric) AS spent
  FROM student_card_orders
 GROUP BY card_id
 ORDER BY card_id;

\echo '== the table as Tablestore describes it'
SELECT jsonb_pretty(ots.describe_table('student_card_orders') - 'partitions' - 'creation_time');

-- Lindorm's orders table, as shop_orders (README's Getting started, which
-- runs here too, makes orders): defined columns are typed columns of the
-- view, and INSERT, UPDATE and DELETE on it are the row API's writes
-- (docs/reference.md, "SQL on a table's view: typed columns and writes").
-- With a stream: every change is also a record consumers read (Stream, below).
SELECT ots.create_table('shop_orders', 'channel string, id string, ts integer',
                        defined_columns => 'status string, location string, price double',
                        stream_enabled => true);

\echo '== SQL only: INSERT 100 orders of two channels into the view shop_orders'
INSERT INTO shop_orders (channel, id, ts, status, location, price)
SELECT CASE WHEN g % 4 = 0 THEN 'wechat' ELSE 'alipay' END, 'a' || lpad(g::text, 4, '0'),
       1705786502000 + g * 1000, 'new', (ARRAY['shanghai', 'hangzhou', 'beijing'])[g % 3 + 1], g * 1.5
  FROM generate_series(1, 100) g;

\echo '== SELECT ... WHERE channel = ''alipay'' AND id > ''a0089'' (reads one partition)'
SELECT id, ts, status, location, price
  FROM shop_orders
 WHERE channel = 'alipay' AND id > 'a0089'
 ORDER BY id;

\echo '== UPDATE some of them (RETURNING shows the rows as they now are)'
UPDATE shop_orders SET status = 'paid'
 WHERE channel = 'alipay' AND id > 'a0089' AND price < 145
RETURNING id, status, price;

\echo '== INSERT ... ON CONFLICT DO UPDATE: Lindorm''s UPSERT; a0101 is new, a0090 takes only the SET column'
INSERT INTO shop_orders (channel, id, ts, status, location)
VALUES ('alipay', 'a0090', 1705786592000, 'shipped', 'suzhou'),
       ('alipay', 'a0101', 1705786603000, 'new', 'shanghai')
ON CONFLICT (channel, id, ts) DO UPDATE SET status = EXCLUDED.status
RETURNING id, status, location, price;

\echo '== a plain INSERT of an existing key: unique_violation (SQLSTATE 23505)'
DO $$
BEGIN
	INSERT INTO shop_orders (channel, id, ts, status) VALUES ('alipay', 'a0090', 1705786592000, 'new');
EXCEPTION WHEN unique_violation THEN
	RAISE NOTICE 'caught %: %', SQLSTATE, SQLERRM;
END
$$;

\echo '== DELETE the cheap wechat orders, then totals per channel and status'
DELETE FROM shop_orders WHERE channel = 'wechat' AND price < 60;
SELECT channel, status, count(*) AS orders, sum(price) AS total
  FROM shop_orders
 GROUP BY channel, status
 ORDER BY channel, status;

\echo '== Stream: every change of shop_orders, read shard by shard with iterators, as a Tablestore consumer does'
CREATE TEMP VIEW order_records AS
SELECT sh ->> 'shard_id' AS shard, r
  FROM ots.list_stream('shop_orders') s,
       jsonb_array_elements(ots.describe_stream(s.stream_id) -> 'shards') sh,
       jsonb_array_elements(ots.get_stream_record(ots.get_shard_iterator(s.stream_id, sh ->> 'shard_id'),
                                                  1000) -> 'stream_records') r;
SELECT r ->> 'action_type' AS action, count(*) AS records FROM order_records GROUP BY 1 ORDER BY 1;
\echo '== the records of order a0090: put by INSERT, status paid by UPDATE, shipped by the UPSERT'
SELECT r ->> 'action_type' AS action, jsonb_path_query_array(r -> 'columns', '$[*].name') AS columns,
       jsonb_path_query_array(r -> 'columns', '$[*].type') AS operations,
       jsonb_path_query_array(r -> 'columns', '$[*].value') AS "values"
  FROM order_records WHERE r -> 'primary_key' ->> 'id' = 'a0090';
