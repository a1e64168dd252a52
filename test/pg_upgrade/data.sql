-- test/pg_upgrade/data.sql: the ots tables of the cluster test/pg_upgrade/run.sh
-- upgrades and recovers (database app; psql variable cron: pg_cron is
-- preloaded, its jobs are part of what must survive).
SET client_min_messages = warning;
CREATE EXTENSION ots;
CREATE EXTENSION amcheck;
\if :cron
CREATE EXTENSION pg_cron;
\endif

-- every key type, two partitions
SELECT ots.create_table('keys', 's string, i integer, b binary', partitions => 2);
SELECT count(*) AS put FROM generate_series(1, 60) g,
  LATERAL ots.put_row('keys', jsonb_build_object('s', 'k' || g % 5, 'i', g - 30,
                                                 'b', jsonb_build_object('$binary', encode(int4send(g), 'base64'))),
                      jsonb_build_object('v', g, 'f', g / 7.0, 'ok', g % 2 = 0));

-- a hash prefix
SELECT ots.create_table('hashed', 'h string, n integer', hash_prefix_length => 2, partitions => 4);
SELECT count(*) AS put FROM generate_series(1, 80) g,
  LATERAL ots.put_row('hashed', jsonb_build_object('h', 'user' || g % 9, 'n', g), jsonb_build_object('v', g));
-- a chunk of its chunk relation (the cells of a split row; written by plain
-- SQL as the owner, as no row is split yet), its "$hash" that of 'user1'
INSERT INTO "hashed$chunk"
SELECT ('x' || lpad(ots.hash_prefix('user1'::text, 2), 16, '0'))::bit(64)::bigint, 'user1', 1, 'c', 5,
       '{"row_ts": 7, "cells": {"c": [{"ts": 7, "value": "seven"}, {"ts": 5, "value": 5}]}}', 5;

-- AUTO_INCREMENT
SELECT ots.create_table('counted', 'k string, id integer auto_increment', partitions => 1);
SELECT count(*) AS put FROM generate_series(1, 5) g,
  LATERAL ots.put_row('counted', jsonb_build_object('k', 'a', 'id', '{"$auto_increment": true}'::jsonb),
                      jsonb_build_object('v', g));

-- multi-version cells and a TTL (a purge job with pg_cron): at most
-- max_versions versions and nothing expired, so a purge the job may run
-- meanwhile changes no row
SELECT ots.create_table('versions', 'k string', max_versions => 3, time_to_live => 31536000,
                        max_version_offset => 31536000, partitions => 2);
SELECT count(*) AS updated FROM generate_series(1, 20) g, generate_series(1, 3) v,
  LATERAL ots.update_row('versions', jsonb_build_object('k', 'r' || g),
                         put => jsonb_build_object('c', jsonb_build_object('value', g * 10 + v,
                                                                          'ts', (extract(epoch FROM now()) * 1000)::bigint - 1000 * v)));

-- defined columns, a global and a local secondary index, a stream with
-- records of every action
SET ots.index_build_worker = off;
SELECT ots.create_table('orders', 'customer string, id integer', partitions => 2,
                        defined_columns => 'status string, amount integer', stream_enabled => true);
SELECT count(*) AS put FROM generate_series(1, 120) g,
  LATERAL ots.put_row('orders', jsonb_build_object('customer', 'c' || g % 11, 'id', g),
                      jsonb_build_object('status', 's' || g % 4, 'amount', g));
SELECT ots.create_index('orders', 'orders_by_status', '{status}', '{amount}');
CALL ots.build_index('orders', 'orders_by_status');
SELECT ots.create_index('orders', 'orders_local', '{customer, amount}', index_type => 'LOCAL', include_base_data => false);
SELECT count(*) AS updated FROM generate_series(1, 120, 5) g,
  LATERAL ots.update_row('orders', jsonb_build_object('customer', 'c' || g % 11, 'id', g),
                         put => '{"status": "shipped"}', increment => '{"amount": 1000}');
SELECT count(*) AS deleted FROM generate_series(2, 120, 9) g,
  LATERAL ots.delete_row('orders', jsonb_build_object('customer', 'c' || g % 11, 'id', g));
INSERT INTO orders (customer, id, status, amount) VALUES ('view', 1, 'new', 7);

-- another role's table in its own schema, with a purge job of its own and
-- a row-level security policy on its storage for a third role
CREATE ROLE tenant LOGIN;
CREATE ROLE reader LOGIN;
CREATE SCHEMA tenant AUTHORIZATION tenant;
GRANT USAGE ON SCHEMA tenant TO reader;
\if :cron
GRANT USAGE ON SCHEMA cron TO tenant;
\endif
SET ROLE tenant;
SELECT ots.create_table('tenant.notes', 'k string, n integer', time_to_live => 31536000, partitions => 2);
SELECT count(*) AS put FROM generate_series(1, 40) g,
  LATERAL ots.put_row('tenant.notes', jsonb_build_object('k', CASE WHEN g % 3 = 0 THEN 'pub' ELSE 'own' END || g % 5, 'n', g),
                      jsonb_build_object('text', 'note ' || g));
ALTER TABLE tenant."notes$data" ENABLE ROW LEVEL SECURITY;
CREATE POLICY public_notes ON tenant."notes$data" FOR SELECT TO reader USING (k LIKE 'pub%');
GRANT SELECT ON tenant.notes, tenant."notes$data" TO reader;
RESET ROLE;
