#!/usr/bin/env bash
# bench/profile.sh — profile one ots hot path (or its plain-SQL baseline)
# inside one backend with perf, and time it per operation.
#
# Usage:
#     BENCH_KEEP=1 BENCH_ONLY=load bench/run.sh    # loads data, leaves the instance up,
#                                                 # prints its psql line (-h DIR -p 5498)
#     bench/profile.sh DIR CASE [N]                 # DIR = that socket dir (/tmp/ots-bench.XXXXXX)
#
# CASE: ots_get plain_get ots_range plain_range plain_range_rows ots_upd
#       plain_upd ots_put plain_put ots_batch plain_batch ots_get_v100 ...
#       (see the CASE list of bench_loop in bench/loop.sql); N = iterations [20000].
# Prints µs/op from an in-server PL/pgSQL loop (no client round trip), then
# the top self-cost symbols and the top inclusive (children) symbols of
# `perf record --call-graph dwarf` on that backend, and how the ots entry
# point's time splits among its callees (bench/perf_callees.py).  The perf data stays in
# /tmp/ots-prof.CASE.data for `perf report -i ...`.
# Needs perf (Debian: apt-get install -y linux-perf); run as root.

set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"
DIR=${1:?socket dir}; CASE=${2:?case}; N=${3:-20000}
export PGHOST=$DIR PGPORT=${BENCH_PORT:-5498} PGUSER=${PGUSER:-$(ots_pg_user_name)} PGDATABASE=bench
PSQL=(psql -qXAt -v ON_ERROR_STOP=1)

"${PSQL[@]}" -f "$(dirname "$0")/loop.sql"

OUT=/tmp/ots-prof.$CASE
rm -f "$OUT.pid" "$OUT.go" "$OUT.data"
# one session: warm up (plans, caches), publish the pid, wait for perf, run the loop
"${PSQL[@]}" >"$OUT.us" <<EOF &
SELECT bench_loop('$CASE', 200) \\g /dev/null
\\o $OUT.pid
SELECT pg_backend_pid();
\\o
\\! while [ ! -f $OUT.go ]; do sleep 0.05; done
SELECT round(bench_loop('$CASE', $N)::numeric, 2);
EOF
PSQL_PID=$!
while [ ! -s "$OUT.pid" ]; do
	kill -0 "$PSQL_PID" 2>/dev/null || ots_die "the $CASE session ended early (unknown case?)"
	sleep 0.05
done
BPID=$(tr -d ' \n' <"$OUT.pid")
if grep -q 'ots.so (deleted)' "/proc/$BPID/maps" 2>/dev/null; then
	echo "WARNING: the server runs an ots.so that was since replaced on disk (make install);" \
	     "ots symbols will not resolve: restart the instance (pg_ctl restart) and rerun" >&2
fi
perf record -q --call-graph dwarf,16384 -F 1999 -p "$BPID" -o "$OUT.data" 2>"$OUT.perf.log" &
PERF_PID=$!
sleep 0.5
touch "$OUT.go"
wait $PSQL_PID
kill -INT $PERF_PID 2>/dev/null || true
wait $PERF_PID 2>/dev/null || true
echo "== $CASE: $(cat "$OUT.us") us/op (in-server loop, N=$N, backend $BPID)"
echo "-- self (top 25): perf report -i $OUT.data --no-children --sort symbol"
perf report -i "$OUT.data" --no-children --sort symbol --stdio -g none --percent-limit 0.8 2>/dev/null \
	| grep -v '^#' | grep -v '^$' | grep -v '\] 0x0000' | head -25 || true
echo "-- inclusive (top 45): perf report -i $OUT.data --children --sort symbol"
perf report -i "$OUT.data" --children --sort symbol --stdio -g none --percent-limit 2 2>/dev/null \
	| grep -v '^#' | grep -v '^$' | grep -vE '\] (0x0000|_start|main|__libc_start|PostmasterMain|PostgresMain|PortalRun|plpgsql_)' | head -40 || true
case $CASE in
	ots_get*) F=ots_get_row ;; ots_put) F=ots_put_row ;; ots_upd) F=ots_update_row ;;
	ots_range) F=ots_get_range ;; ots_range_rows) F=ots_get_range_rows ;; ots_batch*) F=ots_batch_write_row ;;
	*) F=standard_ExecutorRun ;;
esac
echo "-- where $F spends (2 levels): bench/perf_callees.py $OUT.data $F 2"
python3 "$(dirname "$0")/perf_callees.py" "$OUT.data" "$F" 2
rm -f "$OUT.pid" "$OUT.go" "$OUT.us"
