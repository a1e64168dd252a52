#!/usr/bin/env bash
# bench/loop.sh — server-side cost per operation, without the client round
# trip: each case runs N times in one PL/pgSQL loop in one backend
# (bench/loop.sql), ots and plain interleaved, 3 rounds, median µs/op.
# Writes in a loop share one transaction, so no per-operation commit.
#
# Usage:
#     BENCH_KEEP=1 BENCH_ONLY=load bench/run.sh   # loads data, leaves the instance up
#     bench/loop.sh DIR [N]                       # DIR = its socket dir; N [10000]
set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"
DIR=${1:?socket dir}; N=${2:-10000}
export PGHOST=$DIR PGPORT=${BENCH_PORT:-5498} PGUSER=${PGUSER:-$(ots_pg_user_name)} PGDATABASE=bench
PSQL=(psql -qXAt -v ON_ERROR_STOP=1)
"${PSQL[@]}" -f "$(dirname "$0")/loop.sql"
# case ots plain iterations-divisor
PAIRS="get:ots_get:plain_get:1 put:ots_put:plain_put:1 update:ots_upd:plain_upd:1
range100_jsonb:ots_range:plain_range:50 range100_rows:ots_range_rows:plain_range_rows:50
batch200:ots_batch:plain_batch:200 batch200_atomic:ots_batch_atomic:plain_batch:200
get_v1_vs_plain:ots_get_v1:plain_get:1 get_v100_vs_plain:ots_get_v100:plain_get:1
key_jsonb_only:noop:noop:1 batch_request_only:batch_req:batch_req:200"
declare -A R
for _ in 1 2 3; do
	for p in $PAIRS; do
		IFS=: read -r name o pl div <<<"$p"
		n=$(( N / div )); [ $n -ge 20 ] || n=20
		for c in "$o" "$pl"; do
			R[$name.$c]+="$("${PSQL[@]}" -c "SELECT bench_loop('$c', greatest($n / 10, 5))" -c "SELECT bench_loop('$c', $n)" | tail -1) "
		done
	done
done
med() { printf '%s\n' $1 | sort -g | awk '{ a[NR] = $1 } END { printf "%.2f", a[int((NR + 1) / 2)] }'; }
printf '%-20s %12s %12s %8s\n' case "ots µs/op" "plain µs/op" "ots/plain"
for p in $PAIRS; do
	IFS=: read -r name o pl div <<<"$p"
	a=$(med "${R[$name.$o]}"); b=$(med "${R[$name.$pl]}")
	printf '%-20s %12s %12s %8s\n' "$name" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')"
done
