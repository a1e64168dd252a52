#!/usr/bin/env bash
# bench/stream_decoding.sh — what wal_level = logical costs a table with a
# stream: with it, every stream record is also a logical decoding message
# (docs/stream-decoding.md).
#
#     bench/stream_decoding.sh
#
# Starts a private PostgreSQL 15 instance (unix socket only, port 5499, data
# under /tmp, run as `postgres` when invoked as root; the settings of
# bench/run.sh) and, for wal_level = replica and logical in turn
# (STREAMDEC_REPS rounds, the order flipped every round), restarts it with
# that wal_level and on a fresh table with a stream (k1 string, k2 integer,
# 8 partitions, 10^5 rows loaded before the stream is enabled):
#   1. WAL bytes per put_row: pg_current_wal_lsn() before and after
#      pgbench -n -M prepared -c 2 -j 2 -t STREAMDEC_CALLS (per client),
#      divided by the calls, after a CHECKPOINT;
#   2. put_row tps: pgbench -n -M prepared -c 2 -j 2 -T STREAMDEC_T, after a
#      CHECKPOINT, and the WAL bytes per put_row of that run.
# Each put_row writes a new row of bench/run.sh's put case (5 attributes).
# No replication slot exists: this is the cost of writing the messages, not
# of decoding them.  Prints one line per run and stops the instance on exit.
#
#   STREAMDEC_T      seconds of the tps run [30]
#   STREAMDEC_CALLS  put_row calls per client of the WAL run [5000]
#   STREAMDEC_REPS   rounds [2]
#   STREAMDEC_PORT   [5499]
set -euo pipefail

T=${STREAMDEC_T:-30}
CALLS=${STREAMDEC_CALLS:-5000}
REPS=${STREAMDEC_REPS:-2}
PORT=${STREAMDEC_PORT:-5499}
PGBIN=${PGBIN:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}
WORK=$(mktemp -d /tmp/ots-streamdec.XXXXXX)
DATA=$WORK/data
if [ "$(id -u)" = 0 ]; then
	chown postgres: "$WORK"
	chmod 755 "$WORK"
	as_pg() { runuser -u postgres -- "$@"; }
	DBUSER=postgres
else
	as_pg() { "$@"; }
	DBUSER=$(id -un)
fi
cleanup() {
	if [ -f "$DATA/postmaster.pid" ]; then
		as_pg "$PGBIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

as_pg "$PGBIN/initdb" -D "$DATA" -U "$DBUSER" --auth=trust -E UTF8 --locale=C >"$WORK/initdb.log" 2>&1 \
	|| { cat "$WORK/initdb.log" >&2; exit 1; }
cat >>"$DATA/postgresql.conf" <<EOF
shared_buffers=512MB
shared_preload_libraries='ots'
max_connections=20
wal_buffers=16MB
max_wal_size=8GB
min_wal_size=1GB
checkpoint_timeout=30min
checkpoint_completion_target=0.9
fsync=on
full_page_writes=on
jit=off
max_parallel_workers_per_gather=0
autovacuum=off
listen_addresses=''
port=$PORT
unix_socket_directories='$WORK'
lc_messages='C'
timezone='UTC'
EOF
export PGHOST=$WORK PGPORT=$PORT PGUSER=$DBUSER PGDATABASE=bench
sql() { "$PGBIN/psql" -qXAt -v ON_ERROR_STOP=1 -c "$1"; }

as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$WORK/server.log" -w start >/dev/null
"$PGBIN/psql" -qX -d postgres -c "CREATE DATABASE bench"
sql "CREATE EXTENSION ots" >/dev/null

ATTRS='{"a1": "abcdefghijklmnopqrst", "a2": 12345, "a3": 1.5, "a4": true, "a5": "ABCDEFGHIJKLMNOPQRST"}'
cat >"$WORK/put.sql" <<EOF
\\set a random(0, 999)
SELECT ots.put_row('s', ('{"k1": "n' || :a || '", "k2": ' || nextval('put_seq') || '}')::jsonb, '$ATTRS');
EOF

# run LEVEL: one measurement of both figures at wal_level LEVEL
run() {
	local level=$1 lsn0 lsn1 bytes bytes_t tps n
	sql "ALTER SYSTEM SET wal_level = $level" >/dev/null
	as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$WORK/server.log" -m fast -w restart >/dev/null
	[ "$(sql 'SHOW wal_level')" = "$level" ] || { echo "wal_level is not $level" >&2; exit 1; }
	sql "SET client_min_messages = warning;
	     SELECT ots.delete_table('s') WHERE EXISTS (SELECT FROM ots.tables WHERE table_name = 's');
	     DROP SEQUENCE IF EXISTS put_seq; CREATE SEQUENCE put_seq;
	     SELECT ots.create_table('s', 'k1 string, k2 integer');
	     SELECT count(*) FROM generate_series(0, 99999) i,
	       LATERAL ots.put_row('s', jsonb_build_object('k1', 'u' || (100000 + i / 100), 'k2', i % 100), '$ATTRS');
	     SELECT ots.update_table('s', stream_enabled => true);" >/dev/null
	sql "VACUUM ANALYZE"
	sql "CHECKPOINT"
	lsn0=$(sql "SELECT pg_current_wal_lsn()")
	"$PGBIN/pgbench" -n -M prepared -c 2 -j 2 -t "$CALLS" -f "$WORK/put.sql" >/dev/null
	lsn1=$(sql "SELECT pg_current_wal_lsn()")
	bytes=$(sql "SELECT round(pg_wal_lsn_diff('$lsn1', '$lsn0') / (2 * $CALLS))")
	sql "CHECKPOINT"
	lsn0=$(sql "SELECT pg_current_wal_lsn()")
	"$PGBIN/pgbench" -n -M prepared -c 2 -j 2 -T "$T" -f "$WORK/put.sql" >"$WORK/pgbench.out"
	lsn1=$(sql "SELECT pg_current_wal_lsn()")
	tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$WORK/pgbench.out")
	n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$WORK/pgbench.out")
	bytes_t=$(sql "SELECT round(pg_wal_lsn_diff('$lsn1', '$lsn0') / $n)")
	printf '%-8s  put_row tps %6.0f   WAL bytes per put_row %5s (%s in the tps run)   stream records %s\n' \
		"$level" "$tps" "$bytes" "$bytes_t" \
		"$(sql 'SELECT count(*) FROM "s$rec"')"
}

echo "$("$PGBIN/postgres" --version); $(nproc) CPUs; -M prepared -c 2 -j 2, $T s, WAL over 2 x $CALLS calls"
for r in $(seq 1 "$REPS"); do
	if [ $((r % 2)) = 1 ]; then run replica; run logical; else run logical; run replica; fi
done
