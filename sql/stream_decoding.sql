-- Stream for logical decoding consumers: with wal_level = logical (test/ots.conf)
-- every stream record is also a transactional logical decoding message, prefix
-- 'ots', content the record as JSON.  Read here through pgoutput (the binary
-- protocol, 'M' messages, as Debezium and other pgoutput clients read them) and
-- through test_decoding (text): they arrive at commit, in commit order, a
-- rolled-back transaction or savepoint sends nothing, and each message holds
-- what get_stream_record returns for the record.
-- Quiet: the extension may already exist (the files share one database).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ots;
CREATE EXTENSION IF NOT EXISTS dblink;
\set VERBOSITY terse

SHOW wal_level;

SELECT ots.create_table('decode_t', 'k string', partitions => 2, stream_enabled => true,
                        max_version_offset => 9223372036854);
CREATE TEMP TABLE decode_stream AS
  SELECT ots.describe_table('decode_t')->'stream_details'->>'stream_id' AS stream_id;
-- pgoutput sends messages whatever tables the publication names; it needs one
CREATE PUBLICATION decode_pub;
SELECT 'init' FROM pg_create_logical_replication_slot('decode_po', 'pgoutput');
SELECT 'init' FROM pg_create_logical_replication_slot('decode_td', 'test_decoding');

-- an Int64 LSN of the pgoutput protocol at byte offset off
CREATE FUNCTION decode_lsn(data bytea, off integer) RETURNS pg_lsn LANGUAGE sql IMMUTABLE AS $$
SELECT format('%s/%s', encode(substr(data, off + 1, 4), 'hex'), encode(substr(data, off + 5, 4), 'hex'))::pg_lsn
$$;
-- the pgoutput stream of the slot, every protocol message in order, decoded
-- where it is a logical decoding message ('M': Int8 flags, Int64 LSN,
-- String prefix, Int32 length, Byte<length> content; protocol version 1),
-- with the commit LSN of a BEGIN ('B': Int64 final LSN, ...) or COMMIT
-- ('C': Int8 flags, Int64 commit LSN, ...)
CREATE FUNCTION decode_pgoutput()
  RETURNS TABLE (n bigint, lsn pg_lsn, xid xid, kind text, commit_lsn pg_lsn, flags integer,
                 msg_lsn pg_lsn, prefix text, len integer, rest integer, content jsonb)
  LANGUAGE sql VOLATILE AS $$
SELECT c.n, c.lsn, c.xid, chr(get_byte(c.data, 0)),
       CASE chr(get_byte(c.data, 0)) WHEN 'B' THEN decode_lsn(c.data, 1)
                                     WHEN 'C' THEN decode_lsn(c.data, 2) END,
       m.flags, m.msg_lsn, convert_from(substr(c.data, 11, m.plen), 'UTF8'),
       m.len, octet_length(c.data) - (10 + m.plen + 1 + 4),
       convert_from(substr(c.data, 10 + m.plen + 1 + 4 + 1), 'UTF8')::jsonb
  FROM pg_logical_slot_peek_binary_changes('decode_po', NULL, NULL, 'proto_version', '1',
         'publication_names', 'decode_pub', 'messages', 'true') WITH ORDINALITY c(lsn, xid, data, n)
  LEFT JOIN LATERAL (
    SELECT get_byte(c.data, 1) AS flags,
           decode_lsn(c.data, 2) AS msg_lsn,
           position('\x00'::bytea IN substr(c.data, 11)) - 1 AS plen,
           ('x' || encode(substr(c.data, 10 + position('\x00'::bytea IN substr(c.data, 11)) + 1, 4), 'hex'))::bit(32)::integer AS len
  ) m ON get_byte(c.data, 0) = ascii('M')
$$;
-- the 'M' messages of ots for this table, numbered by the transaction they
-- came in (count of pgoutput BEGINs so far), with its commit LSN
CREATE FUNCTION decode_po_messages()
  RETURNS TABLE (n bigint, txn bigint, commit_lsn pg_lsn, lsn pg_lsn, flags integer, msg_lsn pg_lsn,
                 prefix text, len integer, rest integer, content jsonb)
  LANGUAGE sql VOLATILE AS $$
SELECT n, txn, txn_commit_lsn, lsn, flags, msg_lsn, prefix, len, rest, content
  FROM (SELECT d.*, max(commit_lsn) OVER (PARTITION BY txn) AS txn_commit_lsn
          FROM (SELECT d.*, count(*) FILTER (WHERE kind = 'B') OVER (ORDER BY n) AS txn
                  FROM decode_pgoutput() d) d) d
 WHERE kind = 'M' AND content->>'stream_id' = (SELECT stream_id FROM decode_stream)
 ORDER BY n
$$;
-- the test_decoding text of the messages of this table
CREATE FUNCTION decode_td_messages()
  RETURNS TABLE (n bigint, lsn pg_lsn, head text, sz integer, content text)
  LANGUAGE sql VOLATILE AS $$
SELECT n, lsn, m[1], m[2]::integer, m[3]
  FROM pg_logical_slot_peek_changes('decode_td', NULL, NULL, 'include-xids', '0',
         'skip-empty-xacts', '1') WITH ORDINALITY c(lsn, xid, data, n),
       regexp_match(c.data, '^(message: transactional: \d+ prefix: [^,]*), sz: (\d+) content:(.*)$', 's') m
 WHERE m IS NOT NULL AND m[3]::jsonb->>'stream_id' = (SELECT stream_id FROM decode_stream)
 ORDER BY n
$$;
-- every record get_stream_record returns for the table, shard by shard, in
-- each shard's commit order
CREATE FUNCTION decode_records()
  RETURNS TABLE (shard_id text, i bigint, action_type text, primary_key jsonb, columns jsonb)
  LANGUAGE sql VOLATILE AS $$
SELECT s.shard->>'shard_id', r.i, r.rec->>'action_type', r.rec->'primary_key', r.rec->'columns'
  FROM decode_stream d,
       jsonb_array_elements(ots.describe_stream(d.stream_id)->'shards') s(shard),
       jsonb_array_elements(ots.get_stream_record(ots.get_shard_iterator(d.stream_id, s.shard->>'shard_id'),
                                                  10000)->'stream_records') WITH ORDINALITY r(rec, i)
 ORDER BY 1, 2
$$;

-- a transaction of two puts, an update of every kind of column operation
-- (explicit timestamps: the output is the same on every run), a delete
BEGIN;
SELECT consumed FROM ots.put_row('decode_t', '{"k": "a"}',
  '{"x": {"value": 1, "ts": 1000}, "y": {"value": "s", "ts": 1000}}');
SELECT consumed FROM ots.put_row('decode_t', '{"k": "b"}', '{"x": {"value": 2, "ts": 1000}}');
COMMIT;
SELECT consumed FROM ots.update_row('decode_t', '{"k": "a"}',
  put => '{"z": {"value": true, "ts": 2000}}', "delete" => '{"x": 1000}', delete_all => '{y}');
SELECT consumed FROM ots.delete_row('decode_t', '{"k": "b"}');

-- a rolled-back transaction sends nothing
BEGIN;
SELECT consumed FROM ots.put_row('decode_t', '{"k": "rolled back"}', '{"x": {"value": 3, "ts": 1000}}');
ROLLBACK;
-- a rolled-back savepoint sends nothing; the rest of its transaction is sent
BEGIN;
SELECT consumed FROM ots.put_row('decode_t', '{"k": "before savepoint"}', '{"x": {"value": 4, "ts": 1000}}');
SAVEPOINT s;
SELECT consumed FROM ots.put_row('decode_t', '{"k": "in savepoint"}', '{"x": {"value": 5, "ts": 1000}}');
ROLLBACK TO SAVEPOINT s;
SELECT consumed FROM ots.put_row('decode_t', '{"k": "after savepoint"}', '{"x": {"value": 6, "ts": 1000}}');
COMMIT;

-- two interleaved transactions in two other sessions: "first" writes first
-- and commits last
SELECT dblink_connect('decode_first', format('dbname=%s port=%s host=%s', current_database(),
       current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
SELECT dblink_connect('decode_second', format('dbname=%s port=%s host=%s', current_database(),
       current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
SELECT dblink_exec('decode_first', 'BEGIN');
SELECT dblink_exec('decode_second', 'BEGIN');
SELECT * FROM dblink('decode_first', $q$SELECT (ots.put_row('decode_t', '{"k": "first 1"}',
  '{"x": {"value": 11, "ts": 1000}}')).consumed::text$q$) AS t(consumed text);
SELECT * FROM dblink('decode_second', $q$SELECT (ots.put_row('decode_t', '{"k": "second 1"}',
  '{"x": {"value": 21, "ts": 1000}}')).consumed::text$q$) AS t(consumed text);
SELECT * FROM dblink('decode_first', $q$SELECT (ots.put_row('decode_t', '{"k": "first 2"}',
  '{"x": {"value": 12, "ts": 1000}}')).consumed::text$q$) AS t(consumed text);
SELECT * FROM dblink('decode_second', $q$SELECT (ots.put_row('decode_t', '{"k": "second 2"}',
  '{"x": {"value": 22, "ts": 1000}}')).consumed::text$q$) AS t(consumed text);
SELECT dblink_exec('decode_second', 'COMMIT');
-- at this point "second" has committed and "first" has not: its records are
-- written (in its transaction) but not sent
SELECT content->'primary_key'->>'k' AS k FROM decode_po_messages() WHERE content->'primary_key'->>'k' ~ '^(first|second)';
SELECT content::jsonb->'primary_key'->>'k' AS k FROM decode_td_messages() WHERE content::jsonb->'primary_key'->>'k' ~ '^(first|second)';
SELECT dblink_exec('decode_first', 'COMMIT');
SELECT dblink_disconnect('decode_first');
SELECT dblink_disconnect('decode_second');

-- pgoutput: every message, in commit order, each transaction's together in
-- the order written; transactional (flags 1), prefix ots, the LSN in the
-- message is the position decoding reports for it, the length is the
-- content's; the content names the table, stream and shard
SELECT txn, flags, prefix, msg_lsn = lsn AS lsn_is_position, len = rest AS len_is_content,
       content->>'table' AS "table", content->>'stream_id' = (SELECT stream_id FROM decode_stream) AS stream,
       content->>'shard_id' AS shard, content->>'action_type' AS action,
       content->'primary_key' AS primary_key, content->'columns' AS columns
  FROM decode_po_messages() ORDER BY n;
-- the keys of the content, nothing else
SELECT DISTINCT array(SELECT jsonb_object_keys(content) ORDER BY 1) FROM decode_po_messages();
-- a pgoutput BEGIN ('B') precedes every transaction's messages, a COMMIT ('C')
-- follows them, and both name the same commit LSN
SELECT string_agg(kind, '' ORDER BY n) AS kinds FROM decode_pgoutput();
SELECT bool_and(b.commit_lsn = c.commit_lsn) AS begin_names_commit
  FROM (SELECT commit_lsn, row_number() OVER (ORDER BY n) AS i FROM decode_pgoutput() WHERE kind = 'B') b
  JOIN (SELECT commit_lsn, row_number() OVER (ORDER BY n) AS i FROM decode_pgoutput() WHERE kind = 'C') c USING (i);
-- transactions come in commit order: commit LSNs increase.  A message's own
-- LSN is where it was written, before its commit: the messages of the
-- interleaved transaction committed last were written before the previous
-- transaction's commit, so message LSNs do not increase
SELECT txn, commit_lsn > prev_commit_lsn AS commit_lsn_increases,
       bool_and(msg_lsn < commit_lsn) AS written_before_its_commit,
       bool_and(msg_lsn < prev_commit_lsn) AS written_before_previous_commit
  FROM (SELECT m.*, p.prev_commit_lsn
          FROM decode_po_messages() m
          JOIN (SELECT txn, lag(commit_lsn) OVER (ORDER BY txn) AS prev_commit_lsn
                  FROM decode_po_messages() GROUP BY txn, commit_lsn) p USING (txn)) m
 GROUP BY txn, commit_lsn, prev_commit_lsn ORDER BY txn;

-- test_decoding: the same messages in the same order, as text
SELECT head, sz = octet_length(content) AS sz_is_content, count(*)
  FROM decode_td_messages() GROUP BY 1, 2;
SELECT (SELECT array_agg(content::jsonb ORDER BY n) FROM decode_td_messages())
     = (SELECT array_agg(content ORDER BY n) FROM decode_po_messages()) AS same_as_pgoutput,
       (SELECT array_agg(lsn ORDER BY n) FROM decode_td_messages())
     = (SELECT array_agg(lsn ORDER BY n) FROM decode_po_messages()) AS same_positions;

-- get_stream_record: shard by shard, the messages of the shard in their order
-- are its records in their order, with the same action_type, primary_key and columns
SELECT shard_id, count(*) AS records FROM decode_records() GROUP BY 1 ORDER BY 1;
SELECT s.shard_id,
       (SELECT jsonb_agg(jsonb_build_object('action_type', r.action_type, 'primary_key', r.primary_key,
                                            'columns', r.columns) ORDER BY r.i)
          FROM decode_records() r WHERE r.shard_id = s.shard_id)
     = (SELECT jsonb_agg(m.content - '{table,stream_id,shard_id}'::text[] ORDER BY m.n)
          FROM decode_po_messages() m WHERE m.content->>'shard_id' = s.shard_id) AS messages_are_records
  FROM (SELECT DISTINCT shard_id FROM decode_records()) s ORDER BY 1;

-- a server-stamped write: the message holds the stamp the record holds
SELECT consumed FROM ots.update_row('decode_t', '{"k": "a"}', put => '{"w": 7}', increment => '{"i": 5}');
SELECT r.columns = m.content->'columns' AS same_columns, jsonb_array_length(r.columns) AS columns,
       (r.columns->0->>'timestamp')::bigint
         = ((ots.get_row('decode_t', '{"k": "a"}', with_timestamps => true)).attributes->'w'->0->>'ts')::bigint AS stored_stamp
  FROM decode_records() r, decode_po_messages() m
 WHERE r.primary_key->>'k' = 'a' AND m.content->'primary_key'->>'k' = 'a'
 ORDER BY r.i DESC, m.n DESC LIMIT 1;

-- with the stream disabled, no record and no message
SELECT ots.update_table('decode_t', stream_enabled => false);
SELECT consumed FROM ots.put_row('decode_t', '{"k": "no stream"}', '{"x": {"value": 8, "ts": 1000}}');
SELECT count(*) FROM pg_logical_slot_peek_changes('decode_td', NULL, NULL)
 WHERE data ~ '^message: .* prefix: ots,' AND data LIKE '%no stream%';

SELECT pg_drop_replication_slot('decode_po');
SELECT pg_drop_replication_slot('decode_td');
DROP PUBLICATION decode_pub;
DROP FUNCTION decode_records(), decode_td_messages(), decode_po_messages(), decode_pgoutput(),
  decode_lsn(bytea, integer);
SELECT ots.delete_table('decode_t');
DROP EXTENSION dblink;
