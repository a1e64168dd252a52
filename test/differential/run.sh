#!/usr/bin/env bash
# test/differential/run.sh: the differential test of ots's planner rewrites.
#
#   test/differential/run.sh        (as root, or as any user who can run initdb)
#
# Starts a temporary server (as postgres in /tmp/ots-differential.*, unix
# socket only, port $DIFF_PORT, default 5493; stopped and removed on exit)
# and, for each seed, runs the SQL gen.py writes for it: random ots tables
# with sparse rows, the same rows in plain tables, and DIFF_QUERIES (default
# 100) random queries over the views, each run by diff.check
# (differential.sql) with every ots rewrite (ots.key_scan,
# ots.attribute_pushdown, ots.index_scan, ots.search_scan) on, off and each one off alone, as
# a plain statement and as a prepared statement with a custom and a generic
# plan, and compared with the same query over the plain tables.
#
# Seeds: DIFF_SEEDS (default "1 2 3 4 5 6", the suite's fixed ones; about a
# minute), or DIFF_SEED_COUNT=N for seeds 1..N (a longer run).  Prints one
# "test differential_seed_S ... ok|FAILED" line per seed (tools/test counts
# them), how many queries each rewrite served, and for every difference the
# seed, the query, its parameters, the settings and plan kind, and the rows
# missing or extra.  DIFF_KEEP=1 keeps the server's directory.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=tools/lib.sh
. "$here/../../tools/lib.sh"
# shellcheck source=test/tempserver.sh
. "$here/../tempserver.sh"
export LC_ALL=C.UTF-8 LANG=C.UTF-8

queries="${DIFF_QUERIES:-100}"
if [ -n "${DIFF_SEED_COUNT:-}" ]; then
	seeds="$(seq 1 "$DIFF_SEED_COUNT")"
else
	seeds="${DIFF_SEEDS:-1 2 3 4 5 6}"
fi
[ "${DIFF_KEEP:-0}" = 1 ] && export TS_KEEP=1

ts_init differential "${DIFF_PORT:-5493}" \
	"shared_preload_libraries = 'ots'" "fsync = off" "log_min_messages = 'warning'" \
	"max_parallel_workers_per_gather = 0"
trap ts_cleanup EXIT
ts_start
ts_psql -q -f "$here/differential.sql" >/dev/null

started=$SECONDS
status=0
for seed in $seeds; do
	# timestamps are placed around the server's clock; everything else comes from the seed
	now_ms="$(ts_psql -Atc "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint")"
	python3 "$here/gen.py" "$seed" "$now_ms" "$queries" >"$TS_DIR/seed-$seed.sql"
	if ! ts_psql -q -f "$TS_DIR/seed-$seed.sql" >"$TS_DIR/seed-$seed.out" 2>&1; then
		echo "test differential_seed_$seed ... FAILED (the seed's SQL failed: $TS_DIR/seed-$seed.out)"
		tail -n 20 "$TS_DIR/seed-$seed.out"
		status=1
		continue
	fi
	read -r n key_scan pushdown index_scan search_scan < <(ts_psql -Atc "
		SELECT count(*), count(*) FILTER (WHERE key_scan), count(*) FILTER (WHERE pushdown),
			   count(*) FILTER (WHERE index_scan), count(*) FILTER (WHERE search_scan)
		  FROM diff.coverage WHERE seed = $seed" | tr '|' ' ')
	bad="$(ts_psql -Atc "SELECT count(DISTINCT qid) FROM diff.failures WHERE seed = $seed")"
	echo "seed $seed: $n queries; plans with the key scan $key_scan, attribute pushdown $pushdown, an index $index_scan, a search index $search_scan"
	if [ "$bad" -eq 0 ]; then
		echo "test differential_seed_$seed ... ok"
	else
		echo "test differential_seed_$seed ... FAILED ($bad of $n queries differ)"
		status=1
		ts_psql -x -P footer=off -c "
			SELECT $seed AS seed, f.qid,
				   string_agg(f.config || ' / ' || f.mode, ', ' ORDER BY f.config, f.mode) AS runs,
				   min(f.query) AS query, min(f.params) AS params,
				   min(array_to_string(f.missing[1:5], ' ')) AS missing,
				   min(array_to_string(f.extra[1:5], ' ')) AS extra, min(f.error) AS error,
				   (array_agg(f.plan ORDER BY f.config, f.mode))[1] AS plan
			  FROM diff.failures f WHERE f.seed = $seed
			 GROUP BY f.qid ORDER BY f.qid LIMIT 20" | cat
	fi
done
echo "differential: $(echo "$seeds" | wc -w) seeds of $queries queries in $((SECONDS - started)) s" \
	"(DIFF_SEEDS=\"...\" or DIFF_SEED_COUNT=N for others)"
exit "$status"
