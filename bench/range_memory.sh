#!/usr/bin/env bash
# bench/range_memory.sh — does ots.get_range_rows stream in constant memory?
#
# Starts a private instance in /tmp (as postgres when run as root), loads a
# 10^4-row and a 10^6-row ots table (ots.put_row over generate_series, 10^5
# rows a statement; load time printed), then for each table runs
#     SELECT count(*) FROM ots.get_range_rows(t, INF_MIN, INF_MAX)
# in a fresh backend while sampling that backend's /proc/<pid>/status every
# 20 ms, and asks it mid-query for pg_log_backend_memory_contexts.  Reported
# per table: peak RssAnon (private memory, what streaming must keep flat),
# VmHWM (peak RSS, includes touched shared buffers), the memory-context grand
# total mid-query, and the query time.  Stops and removes the instance on exit.
#
# Usage: bench/range_memory.sh [ROWS]     (ROWS of the big table, default 1000000)
set -euo pipefail
ROWS=${1:-1000000}
PGBIN=${PGBIN:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}
PORT=${BENCH_PORT:-5497}
DIR=$(mktemp -d /tmp/ots-range-mem.XXXXXX)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres: "$DIR"
stop() {
	as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$DIR"
}
trap stop EXIT

as_pg "$PGBIN/initdb" -D "$DIR/data" -A trust -U postgres >/dev/null
cat >>"$DIR/data/postgresql.conf" <<EOF
port = $PORT
listen_addresses = ''
unix_socket_directories = '$DIR'
shared_preload_libraries = 'ots'
shared_buffers = 128MB
fsync = off
synchronous_commit = off
max_wal_size = 4GB
jit = off
max_parallel_workers_per_gather = 0
log_min_messages = log
EOF
as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w start >/dev/null
PSQL=(as_pg "$PGBIN/psql" -h "$DIR" -p "$PORT" -U postgres -d postgres -qXAt -v ON_ERROR_STOP=1)

"${PSQL[@]}" -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots" \
	-c "SELECT ots.create_table('mem_small', 'id integer', partitions => 8)" \
	-c "SELECT ots.create_table('mem_big', 'id integer', partitions => 8)" >/dev/null

# load: a 100-byte string, an integer and a double per row
load() {
	local table=$1 n=$2 chunk=100000 from=1 t0 t1
	t0=$(date +%s.%N)
	while [ "$from" -le "$n" ]; do
		local to=$(( from + chunk - 1 )); [ "$to" -le "$n" ] || to=$n
		"${PSQL[@]}" -c "SELECT count(*) FROM generate_series($from, $to) i,
			LATERAL ots.put_row('$table', jsonb_build_object('id', i),
				jsonb_build_object('s', repeat('x', 100), 'n', i, 'd', i + 0.5)) r" >/dev/null
		from=$(( to + 1 ))
	done
	"${PSQL[@]}" -c "VACUUM ANALYZE \"$table\$data\"" >/dev/null
	t1=$(date +%s.%N)
	printf '%-10s %8d rows loaded in %7.1f s (%6.0f rows/s), storage %s\n' "$table" "$n" \
		"$(echo "$t1 - $t0" | bc)" "$(echo "$n / ($t1 - $t0)" | bc -l)" \
		"$("${PSQL[@]}" -c "SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid)))
			FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
			WHERE i.inhparent = '\"$table\$data\"'::regclass")"
}
load mem_small 10000
load mem_big "$ROWS"

# kB value of a field in /proc/<pid>/status
field() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$2/status" 2>/dev/null || true; }

measure() {
	local table=$1 app="range_mem_$1" pid="" base_anon peak_anon=0 hwm=0 qpid asked=0 t0
	# the backend sleeps first so that the sampler finds it before the scan starts
	"${PSQL[@]}" -c "SET application_name = '$app'" -c "SELECT pg_sleep(1)" -c '\timing on' \
		-c "SELECT count(*) FROM ots.get_range_rows('$table', '{\"id\": {\"\$inf\": \"min\"}}', '{\"id\": {\"\$inf\": \"max\"}}')" \
		-c '\timing off' -c "SELECT pg_sleep(0.5)" >"$DIR/$table.out" &
	qpid=$!
	while [ -z "$pid" ]; do
		pid=$("${PSQL[@]}" -c "SELECT pid FROM pg_stat_activity WHERE application_name = '$app'")
	done
	base_anon=$(field RssAnon "$pid")
	t0=$(date +%s.%N)
	while kill -0 "$qpid" 2>/dev/null && [ -e "/proc/$pid" ]; do
		local a h
		a=$(field RssAnon "$pid"); h=$(field VmHWM "$pid")
		[ -n "$a" ] && [ "$a" -gt "$peak_anon" ] && peak_anon=$a
		[ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
		# well into the big scan, log the backend's memory contexts
		if [ $asked = 0 ] && [ "$(echo "$(date +%s.%N) - $t0 > 2.5" | bc)" = 1 ]; then
			"${PSQL[@]}" -c "SELECT pg_log_backend_memory_contexts($pid)" >/dev/null
			asked=1
		fi
		sleep 0.02
	done
	wait "$qpid"
	local contexts
	contexts=$(grep "\[$pid\]" "$DIR/server.log" | grep -o 'Grand total: [0-9]* bytes' | tail -1 || true)
	printf '%-10s count %8s in %9s  RssAnon %6d kB before, peak %6d kB (+%d kB)  VmHWM %6d kB  mid-scan contexts: %s\n' \
		"$table" "$(grep -x "[0-9]*" "$DIR/$table.out" | grep . | head -1)" "$(grep -o 'Time: [0-9.]* ms' "$DIR/$table.out" | cut -d' ' -f2-)" \
		"$base_anon" "$peak_anon" $(( peak_anon - base_anon )) "$hwm" "${contexts:-(scan ended first)}"
}
measure mem_small
measure mem_big
