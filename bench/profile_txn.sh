#!/usr/bin/env bash
# bench/profile_txn.sh — profile one of bench/run.sh's pgbench scripts as
# pgbench runs it: one client, each statement its own transaction, commit
# included (bench/profile.sh runs its loop in one transaction, so what a
# commit does, e.g. a stream's positions, is not in its profile).
#
# Usage:
#     BENCH_KEEP=1 BENCH_ONLY=load bench/run.sh     # loads data, keeps the instance
#     bench/profile_txn.sh DIR SCRIPT [SECONDS [FUNCTION]]
#
# DIR = that instance (/tmp/ots-bench.XXXXXX); SCRIPT = a script of
# DIR/scripts without .sql (ots_sput, ots_put, ots_supd, ots_upd, ...);
# SECONDS of perf record [10]; FUNCTION whose callees to split
# [stream_write_change].  Runs pgbench -c 1 with synchronous_commit off for
# SECONDS + 4 s, records its backend with perf record --call-graph dwarf,
# prints the tps, the top inclusive symbols and the split of FUNCTION and of
# CommitTransactionCommand (bench/perf_callees.py).  The perf data stays in
# /tmp/ots-prof-txn.SCRIPT.data.  Needs perf; run as root.

set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"
DIR=${1:?instance dir}; SCRIPT=${2:?script}; SECS=${3:-10}; FN=${4:-stream_write_change}
PGBIN=${PGBIN:-$OTS_PG_BIN}
export PGHOST=$DIR PGPORT=${BENCH_PORT:-5498} PGUSER=${PGUSER:-$(ots_pg_user_name)} PGDATABASE=bench
[ -f "$DIR/scripts/$SCRIPT.sql" ] || ots_die "no script $DIR/scripts/$SCRIPT.sql"
OUT=/tmp/ots-prof-txn.$SCRIPT

PGAPPNAME=profile_txn PGOPTIONS="-c synchronous_commit=off" "$PGBIN/pgbench" -n -M prepared \
	-c 1 -T $((SECS + 4)) -f "$DIR/scripts/$SCRIPT.sql" >"$OUT.pgbench" 2>&1 &
PB=$!
BPID=
for _ in $(seq 40); do
	sleep 0.1
	BPID=$("$PGBIN/psql" -qXAt -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'profile_txn'")
	[ -z "$BPID" ] || break
done
[ -n "$BPID" ] || ots_die "the pgbench backend did not show up"
sleep 1
perf record -q --call-graph dwarf,16384 -F 999 -p "$BPID" -o "$OUT.data" -- sleep "$SECS" 2>"$OUT.perf.log"
wait $PB
echo "== $SCRIPT: $(grep -m1 '^tps' "$OUT.pgbench") (one client, synchronous_commit off; backend $BPID)"
echo "-- inclusive (top 40): perf report -i $OUT.data --children --sort symbol"
perf report -i "$OUT.data" --children --sort symbol --stdio -g none --percent-limit 2 2>/dev/null \
	| grep -v '^#' | grep -v '^$' | grep -vE '\] (0x0000|_start|main|__libc_start|PostmasterMain|PostgresMain)' | head -40 || true
for f in "$FN" CommitTransactionCommand; do
	echo "-- where $f spends (2 levels): bench/perf_callees.py $OUT.data $f 2"
	python3 "$(dirname "$0")/perf_callees.py" "$OUT.data" "$f" 2
done
