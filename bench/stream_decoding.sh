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
#      divided by the calls, after a CHECKPOINT, and the part of it that
#      is logical decoding messages (pg_waldump --stats=record);
#   2. put_row tps: pgbench -n -M prepared -c 2 -j 2 -T STREAMDEC_T, after a
#      CHECKPOINT, and the WAL bytes per put_row of that run.
# Each put_row writes a new row of bench/run.sh's put case (5 attributes).
# No replication slot exists: this is the cost of writing the messages, not
# of decoding them.  Prints one line per run.
# Then, where valgrind is installed, the server's instructions per put_row
# at each wal_level, which pgbench's tps on a shared machine cannot resolve:
# on a copy of the data with a fresh table, a single-user backend
# (synchronous_commit=off) under callgrind runs PREPARE + N x EXECUTE for
# N = 100 and 1100; (Ir(1100) - Ir(100)) / 1000 (bench/callgrind.sh's method).
# Stops and removes the instance on exit.
#
#   STREAMDEC_T      seconds of the tps run [30]
#   STREAMDEC_CALLS  put_row calls per client of the WAL run [5000]
#   STREAMDEC_REPS   rounds [2]
#   STREAMDEC_CALLGRIND  0 to skip the instruction counts [1]
#   STREAMDEC_PORT   [5499]
set -euo pipefail

T=${STREAMDEC_T:-30}
CALLS=${STREAMDEC_CALLS:-5000}
REPS=${STREAMDEC_REPS:-2}
CALLGRIND=${STREAMDEC_CALLGRIND:-1}
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

# fresh_table: the table s with a stream, 10^5 rows loaded before the stream
# is enabled, vacuumed, and put_row's sequence
fresh_table() {
	sql "SET client_min_messages = warning;
	     SELECT ots.delete_table('s') WHERE EXISTS (SELECT FROM ots.tables WHERE table_name = 's');
	     DROP SEQUENCE IF EXISTS put_seq; CREATE SEQUENCE put_seq;
	     SELECT ots.create_table('s', 'k1 string, k2 integer');
	     SELECT count(*) FROM generate_series(0, 99999) i,
	       LATERAL ots.put_row('s', jsonb_build_object('k1', 'u' || (100000 + i / 100), 'k2', i % 100), '$ATTRS');
	     SELECT ots.update_table('s', stream_enabled => true);" >/dev/null
	sql "VACUUM ANALYZE"
}

# run LEVEL: one measurement of both figures at wal_level LEVEL
run() {
	local level=$1 lsn0 lsn1 bytes bytes_t msg tps n
	sql "ALTER SYSTEM SET wal_level = $level" >/dev/null
	as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$WORK/server.log" -m fast -w restart >/dev/null
	[ "$(sql 'SHOW wal_level')" = "$level" ] || { echo "wal_level is not $level" >&2; exit 1; }
	fresh_table
	sql "CHECKPOINT"
	lsn0=$(sql "SELECT pg_current_wal_lsn()")
	"$PGBIN/pgbench" -n -M prepared -c 2 -j 2 -t "$CALLS" -f "$WORK/put.sql" >/dev/null
	lsn1=$(sql "SELECT pg_current_wal_lsn()")
	bytes=$(sql "SELECT round(pg_wal_lsn_diff('$lsn1', '$lsn0') / (2 * $CALLS))")
	# of which the logical decoding messages (pg_waldump's record statistics)
	msg=$(as_pg "$PGBIN/pg_waldump" --stats=record -s "$lsn0" -e "$lsn1" -p "$DATA/pg_wal" 2>/dev/null \
		| awk -v n=$((2 * CALLS)) '{ gsub(/\([^)]*\)/, "") } $1 == "LogicalMessage/MESSAGE" { b = $3 } END { printf "%.0f", b / n }')
	sql "CHECKPOINT"
	lsn0=$(sql "SELECT pg_current_wal_lsn()")
	"$PGBIN/pgbench" -n -M prepared -c 2 -j 2 -T "$T" -f "$WORK/put.sql" >"$WORK/pgbench.out"
	lsn1=$(sql "SELECT pg_current_wal_lsn()")
	tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$WORK/pgbench.out")
	n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$WORK/pgbench.out")
	bytes_t=$(sql "SELECT round(pg_wal_lsn_diff('$lsn1', '$lsn0') / $n)")
	printf '%-8s  put_row tps %6.0f   WAL bytes per put_row %5s (messages %s; %s in the tps run)\n' \
		"$level" "$tps" "$bytes" "$msg" "$bytes_t"
}

echo "$("$PGBIN/postgres" --version); $(nproc) CPUs; -M prepared -c 2 -j 2, $T s, WAL over 2 x $CALLS calls"
for r in $(seq 1 "$REPS"); do
	if [ $((r % 2)) = 1 ]; then run replica; run logical; else run logical; run replica; fi
done

# instructions LEVEL N: total Ir of a single-user backend running N put_rows
# at wal_level LEVEL on a fresh copy of the data
instructions() {
	local f=$WORK/cg.$1.$2
	rm -rf "$WORK/cgdata"
	cp -a "$WORK/cgbase" "$WORK/cgdata"
	{ echo "PREPARE p(int) AS SELECT ots.put_row('s', ('{\"k1\": \"n' || \$1 % 1000 || '\", \"k2\": ' || nextval('put_seq') || '}')::jsonb, '$ATTRS');"
	  for ((j = 1; j <= $2; j++)); do echo "EXECUTE p($(( (j * 7919) % 99900 )));"; done; } >"$f.sql"
	as_pg valgrind --tool=callgrind --callgrind-out-file="$f.out" \
		"$PGBIN/postgres" --single -D "$WORK/cgdata" -c wal_level="$1" -c synchronous_commit=off \
		-c autovacuum=off bench <"$f.sql" >"$f.log" 2>&1
	if grep -qE 'ERROR|FATAL|PANIC' "$f.log"; then echo "callgrind run $1 $2 failed:" >&2; cat "$f.log" >&2; exit 1; fi
	awk '/^summary:/ { print $2 }' "$f.out"
}

if [ "$CALLGRIND" = 1 ] && command -v valgrind >/dev/null; then
	fresh_table
	as_pg "$PGBIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null
	cp -a "$DATA" "$WORK/cgbase"
	declare -A per=()
	for level in replica logical; do
		a=$(instructions $level 100)
		b=$(instructions $level 1100)
		per[$level]=$(( (b - a) / 1000 ))
	done
	printf 'instructions per put_row: replica %s, logical %s (%+.1f %%)\n' "${per[replica]}" "${per[logical]}" \
		"$(awk -v r="${per[replica]}" -v l="${per[logical]}" 'BEGIN { print (l - r) * 100 / r }')"
fi
