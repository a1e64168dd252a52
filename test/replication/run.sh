#!/usr/bin/env bash
# test/replication/run.sh: logical replication of ots tables from a
# publisher instance to a subscriber instance, each its own temporary
# PostgreSQL with ots (test/tempserver.sh; unix sockets only, ports
# $REPL_PORT and $REPL_PORT + 1, default 5497; removed on exit).
#
#   test/replication/run.sh   (root: the servers run as postgres; or as a user
#                              who can run initdb; the current ots installed)
#
# Both run the same ots DDL (setup.sql): a table with an AUTO_INCREMENT key,
# two secondary indexes and defined columns, and a table with a stream. The
# publisher publishes the tables' storage with their chunk relations, and
# the stream's relations, by name (docs/operations.md), and writes
# (writes.sql). Prints "test NAME ... ok|FAILED" lines:
#   replication_sync            the subscriber's rows are the publisher's
#                               after the initial copy and after later
#                               writes, and its indexes, kept by its own
#                               write point from the rows it applied, are
#                               exact and answer reads; a split row's chunks
#                               arrive and it reads whole
#   replication_publish_refused publishing what a subscriber's ots writes
#                               itself is refused on the publisher: an
#                               index's storage, one of its partitions or its
#                               chunk relation, ots's catalog, a schema
#                               holding index storage, FOR ALL TABLES; a
#                               table's storage without its chunk relation
#                               (publishing it alone, dropping the chunk
#                               relation from a publication); create_index under
#                               a schema-wide publication, a partition of an
#                               index's storage moved into such a schema, and
#                               CREATE EXTENSION ots under FOR ALL TABLES
#   replication_index_storage   a publisher that publishes an index's
#                               storage anyway (its guard turned off, as an
#                               older ots would): the subscriber refuses
#                               those rows with a message saying what to
#                               publish, and after that repair (the index
#                               storage dropped from the publication) goes on
#                               with exact indexes
#   replication_stream          the stream's records reach the subscriber
#                               with its relations, and the subscriber records
#                               none of its own for the rows it applies
#   replication_auto_increment  after a failover (the subscription disabled)
#                               writes generating AUTO_INCREMENT keys on the
#                               subscriber, whose sequence PostgreSQL 15 did
#                               not replicate, replace no replicated row
#                               (put_row, update_row, batches, INSERT through
#                               the view); after ots.sync_auto_increment, the
#                               documented failover step, every new key is
#                               past the stored ones
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=tools/lib.sh
. "$here/../../tools/lib.sh"
# shellcheck source=test/tempserver.sh
. "$here/../tempserver.sh"
export LC_ALL=C.UTF-8 LANG=C.UTF-8

port="${REPL_PORT:-5497}"
conf=("shared_preload_libraries = 'ots'" "fsync = off" "wal_level = logical"
	"max_replication_slots = 8" "max_wal_senders = 8" "max_worker_processes = 16"
	"max_logical_replication_workers = 8" "wal_retrieve_retry_interval = '200ms'")

# two instances of test/tempserver.sh: its functions act on TS_DIR / TS_DATA
ts_init repl_pub "$port" "${conf[@]}"
PUB_DIR="$TS_DIR"
PUB_DATA="$TS_DATA"
ts_init repl_sub "$((port + 1))" "${conf[@]}"
SUB_DIR="$TS_DIR"
SUB_DATA="$TS_DATA"
cleanup() {
	TS_DIR="$PUB_DIR" TS_DATA="$PUB_DATA" ts_cleanup
	TS_DIR="$SUB_DIR" TS_DATA="$SUB_DATA" ts_cleanup
}
trap cleanup EXIT
TS_DIR="$PUB_DIR" TS_DATA="$PUB_DATA" ts_start
TS_DIR="$SUB_DIR" TS_DATA="$SUB_DATA" ts_start

pub() { ts_psql -h "$PUB_DIR" -p "$port" -d repl "$@"; }
sub() { ts_psql -h "$SUB_DIR" -p "$((port + 1))" -d repl "$@"; }
# one value of a query
pubv() { pub -At -c "$1"; }
subv() { sub -At -c "$1"; }

status=0
# result NAME CONDITION-TEXT: prints the test line; CONDITION-TEXT is empty when it held
result() {
	if [ -z "$2" ]; then
		echo "test $1 ... ok"
	else
		echo "test $1 ... FAILED ($2)"
		status=1
	fi
}

# wait_sub QUERY: until QUERY is true on the subscriber, at most 60 s; false after
wait_sub() {
	local i
	for ((i = 0; i < 300; i++)); do
		if [ "$(subv "$1")" = t ]; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

# the rows of a table's view, as one text (same on both sides when in sync)
rows_sql() { echo "SELECT count(*) || ':' || coalesce(md5(string_agg(v::text, ',' ORDER BY v::text)), '') FROM $1 v"; }
# in_sync TABLE: the subscriber's rows are the publisher's
in_sync() { wait_sub "SELECT ($(rows_sql "$1")) = '$(pubv "$(rows_sql "$1")")'"; }

pub -d postgres -c "CREATE DATABASE repl" >/dev/null
sub -d postgres -c "CREATE DATABASE repl" >/dev/null
pub -f "$here/setup.sql" >/dev/null
sub -f "$here/setup.sql" >/dev/null
pub -f "$here/writes.sql" -v round=1 >/dev/null
# each table's storage with its chunk relation (the guard refuses one without the other)
pub -c 'CREATE PUBLICATION repl_pub FOR TABLE "orders$data", "orders$chunk", "events$data", "events$chunk",
	"events$log", "events$rec" WITH (publish_via_partition_root = true)' >/dev/null
# a split row with its indexes' columns before the subscription: the initial copy copies
# the storage and the chunk relation in transactions of their own; the chunk relation's
# waits here (a lock on the subscriber) until the storage's is done, so the head arrives
# first and the row's entries are made again when its chunks come
pub -c "SELECT ots.put_row('orders', '{\"shop\": \"early\", \"seq\": {\"\$auto_increment\": true}}',
	(SELECT jsonb_object_agg('c' || g, repeat('y', 100)) FROM generate_series(1, 60) g)
	|| '{\"status\": \"early\", \"amount\": 5}')" >/dev/null
sub -c 'BEGIN' -c 'LOCK TABLE "orders$chunk" IN SHARE MODE' -c 'SELECT pg_sleep(4)' -c 'COMMIT' >/dev/null &
locker=$!
sleep 0.5
conninfo="host=$PUB_DIR port=$port dbname=repl user=$(ots_pg_user_name)"
sub -c "CREATE SUBSCRIPTION repl_sub CONNECTION '$conninfo' PUBLICATION repl_pub" >/dev/null 2>&1
wait "$locker" || true

# --- the initial copy and later writes, indexes kept by the subscriber ---
why=""
if ! wait_sub "SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate <> 'r'"; then
	why="the initial copy did not finish"
elif ! in_sync orders; then
	why="the copied rows differ"
fi
if [ -z "$why" ]; then
	pub -f "$here/writes.sql" -v round=2 >/dev/null
	in_sync orders || why="later writes did not arrive"
fi
# a split row's chunks (a row past 4 KB, its indexes' columns among them) arrive as they
# are, passing the subscriber's write point, and its row reads whole there; the
# subscriber's index entries, made as the apply commits (the chunks come after the
# head), follow the put and then an update of the split row
chunk_sql="SELECT count(*) || ' ' || coalesce(md5(string_agg(x::text, ',' ORDER BY x::text)), '') FROM \"orders\$chunk\" x"
if [ -z "$why" ]; then
	pub -c "SELECT ots.put_row('orders', '{\"shop\": \"wide\", \"seq\": {\"\$auto_increment\": true}}',
		(SELECT jsonb_object_agg('c' || g, repeat('x', 100)) FROM generate_series(1, 60) g)
		|| '{\"status\": \"wide\", \"amount\": 7}')" \
		-c "SELECT ots.update_row('orders', jsonb_build_object('shop', 'wide', 'seq', seq),
		                          put => '{\"status\": \"wider\", \"amount\": 8}') FROM orders WHERE shop = 'wide'" >/dev/null
	wait_sub "SELECT ($chunk_sql) = '$(pubv "$chunk_sql")' AND ($chunk_sql) NOT LIKE '0 %'" ||
		why="a split row's chunks did not arrive: $(subv "$chunk_sql" | cut -c1-80)"
	[ -n "$why" ] || in_sync orders || why="the split row does not read the same on the subscriber"
fi
if [ -z "$why" ]; then
	bad="$(sub -At -f "$here/check_indexes.sql")"
	[ "$bad" = "0|0|0|0" ] || why="the subscriber's indexes are not exact (stale|missing of each: $bad)"
fi
if [ -z "$why" ] &&
	[ "$(subv "SELECT count(*) FROM ots.get_range_rows('orders_status', '{\"status\": {\"\$inf\": \"min\"}, \"shop\": {\"\$inf\": \"min\"}, \"seq\": {\"\$inf\": \"min\"}}', '{\"status\": {\"\$inf\": \"max\"}, \"shop\": {\"\$inf\": \"max\"}, \"seq\": {\"\$inf\": \"max\"}}')")" != \
	"$(pubv "SELECT count(*) FROM orders WHERE status IS NOT NULL")" ]; then
	why="the subscriber's index does not answer with every row"
fi
result replication_sync "$why"

# --- publishing what a subscriber's ots writes itself is refused ---
why=""
# each statement, and what undoes it when it was accepted
while IFS='|' read -r stmt undo; do
	if out="$(pub -c "$stmt" 2>&1)"; then
		why="${why:+$why; }accepted: $stmt"
		pub -c "$undo" >/dev/null
	elif ! grep -q 'ERROR:  cannot \(publish\|create\|keep\)' <<<"$out"; then
		why="${why:+$why; }$stmt: $out"
	fi
done <<'EOF'
ALTER PUBLICATION repl_pub ADD TABLE "orders_status$data"|ALTER PUBLICATION repl_pub DROP TABLE "orders_status$data"
ALTER PUBLICATION repl_pub ADD TABLE "orders_status$chunk"|ALTER PUBLICATION repl_pub DROP TABLE "orders_status$chunk"
CREATE PUBLICATION repl_nochunk FOR TABLE "orders$data"|DROP PUBLICATION repl_nochunk
ALTER PUBLICATION repl_pub DROP TABLE "orders$chunk"|ALTER PUBLICATION repl_pub ADD TABLE "orders$chunk"
ALTER PUBLICATION repl_pub ADD TABLE "orders_amount$p0"|ALTER PUBLICATION repl_pub DROP TABLE "orders_amount$p0"
ALTER PUBLICATION repl_pub ADD TABLE ots.tables|ALTER PUBLICATION repl_pub DROP TABLE ots.tables
CREATE PUBLICATION repl_all FOR ALL TABLES|DROP PUBLICATION repl_all
CREATE PUBLICATION repl_schema FOR TABLES IN SCHEMA public|DROP PUBLICATION repl_schema
CREATE PUBLICATION repl_ots FOR TABLES IN SCHEMA ots|DROP PUBLICATION repl_ots
EOF
# a schema published whole takes in every table made in it: no index there
pub -c "CREATE SCHEMA spare" -c "SELECT ots.create_table('spare.t', 'k string', defined_columns => 'v integer')" \
	-c "CREATE PUBLICATION repl_spare FOR TABLES IN SCHEMA spare" >/dev/null 2>&1
if out="$(pub -c "SELECT ots.create_index('spare.t', 't_v', ARRAY['v'])" 2>&1)"; then
	why="${why:+$why; }create_index in a schema published whole was accepted"
elif ! grep -q 'ERROR:  cannot create ots index' <<<"$out"; then
	why="${why:+$why; }create_index: $out"
fi
# nor is ots created under a publication FOR ALL TABLES
pub -d postgres -c "CREATE DATABASE repl_all" >/dev/null
if out="$(pub -d repl_all -c "CREATE PUBLICATION every FOR ALL TABLES" -c "CREATE EXTENSION ots" 2>&1)"; then
	why="${why:+$why; }CREATE EXTENSION ots under a publication FOR ALL TABLES was accepted"
elif ! grep -q 'ERROR:  cannot create extension ots' <<<"$out"; then
	why="${why:+$why; }CREATE EXTENSION ots: $out"
fi
# nor may a partition of an index's storage move into such a schema
pub -c "CREATE SCHEMA spare2" -c "CREATE PUBLICATION repl_spare2 FOR TABLES IN SCHEMA spare2" >/dev/null 2>&1
if out="$(pub -c 'ALTER TABLE "orders_status$p0" SET SCHEMA spare2' 2>&1)"; then
	why="${why:+$why; }a partition of index storage moved into a schema published whole"
	pub -c 'ALTER TABLE spare2."orders_status$p0" SET SCHEMA public' >/dev/null
elif ! grep -q 'ERROR:  cannot publish' <<<"$out"; then
	why="${why:+$why; }moving an index partition: $out"
fi
result replication_publish_refused "$why"

# --- an index's storage published anyway: refused on the subscriber, repaired ---
why=""
pub -c "ALTER EVENT TRIGGER ots_storage_guard DISABLE" \
	-c 'ALTER PUBLICATION repl_pub ADD TABLE "orders_status$data"' \
	-c "ALTER EVENT TRIGGER ots_storage_guard ENABLE" >/dev/null
sub -c "ALTER SUBSCRIPTION repl_sub REFRESH PUBLICATION" >/dev/null 2>&1
refused=0
for ((i = 0; i < 300; i++)); do
	if grep -q 'logical replication cannot write the storage of ots index public.orders_status' "$SUB_DIR/server.log"; then
		refused=1
		break
	fi
	sleep 0.2
done
if [ "$refused" = 0 ]; then
	why="the subscriber did not refuse the index's rows ($(grep -c 'duplicate key value violates unique constraint' "$SUB_DIR/server.log" || true) duplicate-key errors in its log)"
fi
pub -c 'ALTER PUBLICATION repl_pub DROP TABLE "orders_status$data"' >/dev/null
sub -c "ALTER SUBSCRIPTION repl_sub REFRESH PUBLICATION" >/dev/null 2>&1
pub -f "$here/writes.sql" -v round=3 >/dev/null
if [ -z "$why" ] && ! in_sync orders; then
	why="after the repair, writes did not arrive"
fi
if [ -z "$why" ]; then
	bad="$(sub -At -f "$here/check_indexes.sql")"
	[ "$bad" = "0|0|0|0" ] || why="after the repair, the indexes are not exact (stale|missing of each: $bad)"
fi
result replication_index_storage "$why"

# --- the stream's records come with its relations; applied rows record none ---
why=""
records_sql="SELECT count(*) FROM events_records()"
if ! in_sync events; then
	why="the stream table's rows differ"
elif ! wait_sub "SELECT ($records_sql) = $(pubv "$records_sql")"; then
	why="the subscriber reads $(subv "$records_sql") records, the publisher $(pubv "$records_sql")"
else
	sub -c "ALTER SUBSCRIPTION repl_sub DISABLE" >/dev/null
	sub -c "SELECT ots.put_row('events', '{\"k\": \"after\"}', '{\"v\": 1}')" >/dev/null
	[ "$(subv "$records_sql")" = "$(($(pubv "$records_sql") + 1))" ] ||
		why="after the failover, a write on the subscriber is not its stream's next record"
fi
result replication_stream "$why"

# --- after a failover, generated keys replace no replicated row ---
why=""
replicated="SELECT count(*) || ':' || coalesce(md5(string_agg(v::text, ',' ORDER BY v::text)), '') FROM orders v
	WHERE v.status IS NULL OR v.status NOT LIKE 'after failover%'"
# new rows (status $1) whose key is past every replicated one of its partition key (shop), of all new rows
past_sql() {
	echo "SELECT count(*) FILTER (WHERE n.seq > (SELECT max(o.seq) FROM orders o
		WHERE o.shop = n.shop AND (o.status IS NULL OR o.status NOT LIKE 'after failover%'))) || '/' || count(*)
		FROM orders n WHERE n.status = '$1'"
}
before="$(subv "$replicated")"
# the sequence is where the subscriber's own writes left it: at its start
sub -f "$here/failover_writes.sql" -v status="'after failover'" >/dev/null || true
kept="$(subv "$replicated")"
written="$(subv "SELECT count(*) FROM orders WHERE status = 'after failover'")"
if [ "$kept" != "$before" ]; then
	why="replicated rows were replaced (before $before, after $kept)"
elif [ "$written" != 5 ]; then
	why="$written of 5 new rows written"
else
	bad="$(sub -At -f "$here/check_indexes.sql")"
	[ "$bad" = "0|0|0|0" ] || why="the indexes are not exact after the failover writes ($bad)"
fi
# the documented failover step: every new key past every stored one
if [ -z "$why" ]; then
	synced="$(subv "SELECT last_value = (SELECT max(seq) FROM orders) FROM ots.sync_auto_increment('orders')" || true)"
	sub -f "$here/failover_writes.sql" -v status="'after failover, synced'" >/dev/null
	past="$(subv "$(past_sql 'after failover, synced')")"
	if [ "$synced" != t ]; then
		why="ots.sync_auto_increment did not move the sequence to the largest value stored"
	elif [ "$past" != 5/5 ]; then
		why="after ots.sync_auto_increment, new keys past the stored ones of their partition key / written: $past"
	elif [ "$(subv "$replicated")" != "$before" ]; then
		why="replicated rows were replaced after ots.sync_auto_increment"
	fi
fi
result replication_auto_increment "$why"

sub -c "DROP SUBSCRIPTION repl_sub" >/dev/null 2>&1 || true
exit "$status"
