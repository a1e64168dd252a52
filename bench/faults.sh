#!/usr/bin/env bash
# bench/faults.sh — minor page faults per transaction of one backend, ots vs
# plain SQL: kernel work that instruction counts (bench/callgrind.sh) miss.
# A call whose peak memory makes glibc give the heap back to the kernel at
# its end pays a page fault for every 4 kB it touches again in the next call.
#
# Usage:
#     BENCH_KEEP=1 BENCH_ONLY=load bench/run.sh    # loads the data, keeps the instance
#     bench/faults.sh DIR [CASE ...]                # DIR = that instance (/tmp/ots-bench.XXXXXX)
#
# CASE: a pair of bench/run.sh's pgbench scripts by id: get put upd batch
# (default: all).  For each side it runs pgbench (1 client,
# synchronous_commit=off) on the instance, reads the backend's minor fault
# count (/proc/PID/stat) and the database's commit count before and after
# 3 seconds, and prints faults per commit.

set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"
DIR=${1:?instance dir (BENCH_KEEP=1 bench/run.sh)}; shift
CASES=${*:-get put upd batch}
PGBIN=${PGBIN:-$OTS_PG_BIN}
[ -d "$DIR/scripts" ] || ots_die "no bench instance in $DIR"
export PGHOST=$DIR PGPORT=${BENCH_PORT:-5498} PGUSER=$(ots_pg_user_name) PGDATABASE=bench
q() { "$PGBIN/psql" -XAtc "$1"; }

# faults SCRIPT: minor faults per commit of one pgbench backend running SCRIPT
faults() {
	local pid a b c0 c1 bench
	PGOPTIONS="-c synchronous_commit=off" "$PGBIN/pgbench" -n -M prepared -c 1 -T 6 \
		-f "$DIR/scripts/$1.sql" >/dev/null 2>&1 &
	bench=$!
	sleep 1
	pid=$(q "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench'")
	[ -n "$pid" ] || ots_die "pgbench on $1 did not start"
	a=$(awk '{ print $10 }' "/proc/$pid/stat"); c0=$(q "SELECT xact_commit FROM pg_stat_database WHERE datname = 'bench'")
	sleep 3
	b=$(awk '{ print $10 }' "/proc/$pid/stat"); c1=$(q "SELECT xact_commit FROM pg_stat_database WHERE datname = 'bench'")
	wait "$bench" || ots_die "pgbench on $1 failed"
	# the second commit count's own query commits too
	awk -v f=$((b - a)) -v n=$((c1 - c0 - 1)) 'BEGIN { printf "%.1f", f / n }'
}

printf '%-6s | %18s | %18s\n' case "ots faults/commit" "plain faults/commit"
for c in $CASES; do
	case $c in
	get) o=ots_get_t p=plain_get_plain_t ;;
	put) o=ots_put p=plain_put ;;
	upd) o=ots_upd p=plain_upd ;;
	batch) o=ots_batch p=plain_batch ;;
	*) ots_die "unknown case $c" ;;
	esac
	printf '%-6s | %18s | %18s\n' "$c" "$(faults $o)" "$(faults $p)"
done
