#!/usr/bin/env bash
# test/crash/run.sh: acknowledged writes survive a crash, atomic ones whole.
#
#   sudo test/crash/run.sh       (root: the server runs as postgres; or as a
#                                 user who can run initdb; ots installed)
#
# Starts its own server (as postgres in /tmp/ots-crash.*, unix socket only,
# port $CRASH_PORT, default 5496, synchronous_commit = on, ots preloaded),
# creates crash_t (g string, n integer), then CRASH_CYCLES times (default 3):
#   1. CRASH_CLIENTS writers (default 4), each one psql session fed by
#      `workload.pl gen`, write in autocommit: put_row / delete_row,
#      update_row (put + increment), increments of shared counters,
#      batch_write_row with is_atomic, and two put_row calls in one statement;
#      each logs every write before sending it and once the server
#      acknowledged it (see workload.pl);
#   2. after a random 3 to CRASH_SECONDS (default 8) seconds, kill -9 the
#      postmaster and every server process;
#   3. restart (crash recovery) and check with `workload.pl check`: each
#      written key holds its last acknowledged state or the in-flight write's,
#      whole (all attributes of a put, put and increment of one update_row,
#      all rows of an atomic batch or statement); each counter column lies
#      within [acknowledged, acknowledged + in flight] and the row's total
#      equals the sum of its columns; untouched rows are unchanged; the view
#      and get_range_rows agree and every index passes amcheck.
# Prints the figures per cycle and "test crash_recovery ... ok|FAILED";
# exits non-zero on any violation (logs and data kept in the printed
# directory then). CRASH_SEED repeats a run's choices (not its timing).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=tools/lib.sh
. "$here/../../tools/lib.sh"
# shellcheck source=test/tempserver.sh
. "$here/../tempserver.sh"
export LC_ALL=C.UTF-8 LANG=C.UTF-8

clients="${CRASH_CLIENTS:-4}"
cycles="${CRASH_CYCLES:-3}"
max_seconds="${CRASH_SECONDS:-8}"
seed="${CRASH_SEED:-$(((RANDOM << 15) | RANDOM))}"
[ "$max_seconds" -ge 3 ] || ots_die "CRASH_SECONDS must be at least 3"

ts_init crash "${CRASH_PORT:-5496}" \
	"shared_preload_libraries = 'ots'" "synchronous_commit = on" "fsync = on" \
	"restart_after_crash = off" "max_connections = 50"
status=1
# shellcheck disable=SC2317 # called by the EXIT trap
finish() {
	if [ "$status" -ne 0 ]; then
		TS_KEEP=1
	fi
	ts_cleanup
}
trap finish EXIT
ts_start

ts_psql <<-'EOF' >/dev/null
	CREATE EXTENSION ots;
	CREATE EXTENSION amcheck;
	SELECT ots.create_table('crash_t', 'g string, n integer', partitions => 4);
	-- crash_batch: an atomic batch that raises unless every row succeeded
	CREATE FUNCTION crash_batch(request jsonb) RETURNS void LANGUAGE plpgsql AS $$
	DECLARE bad text;
	BEGIN
		SELECT string_agg(error_code || ' ' || error_message, '; ') INTO bad
		FROM ots.batch_write_row(request, is_atomic => true) WHERE NOT is_ok;
		IF bad IS NOT NULL THEN
			RAISE EXCEPTION 'batch rows failed: %', bad;
		END IF;
	END $$;
EOF

# dump_state FILE: the table as g<TAB>n<TAB>attributes, read through ots
# (get_range_rows), after checking that the SQL view shows the same rows
dump_state() {
	ts_psql -At -F $'\t' -c "
		SELECT r.primary_key->>'g', r.primary_key->>'n', r.attributes
		FROM ots.get_range_rows('crash_t', '{\"g\": {\"\$inf\": \"min\"}, \"n\": {\"\$inf\": \"min\"}}',
								'{\"g\": {\"\$inf\": \"max\"}, \"n\": {\"\$inf\": \"max\"}}') r
		ORDER BY 1, 2::int" >"$1"
	local differ
	differ="$(ts_psql -At -c "
		SELECT count(*) FROM (
			(SELECT g, n, attributes FROM crash_t
			 EXCEPT SELECT r.primary_key->>'g', (r.primary_key->>'n')::bigint, r.attributes
			 FROM ots.get_range_rows('crash_t', '{\"g\": {\"\$inf\": \"min\"}, \"n\": {\"\$inf\": \"min\"}}',
									 '{\"g\": {\"\$inf\": \"max\"}, \"n\": {\"\$inf\": \"max\"}}') r)
			UNION ALL
			(SELECT r.primary_key->>'g', (r.primary_key->>'n')::bigint, r.attributes
			 FROM ots.get_range_rows('crash_t', '{\"g\": {\"\$inf\": \"min\"}, \"n\": {\"\$inf\": \"min\"}}',
									 '{\"g\": {\"\$inf\": \"max\"}, \"n\": {\"\$inf\": \"max\"}}') r
			 EXCEPT SELECT g, n, attributes FROM crash_t)) d")"
	if [ "$differ" != 0 ]; then
		echo "  VIOLATION: the view and get_range_rows differ in $differ rows"
		return 1
	fi
}

# check_indexes: amcheck (with heapallindexed) on every btree index
check_indexes() {
	ts_psql -At -c "
		SELECT count(bt_index_check(c.oid, true)) FROM pg_class c JOIN pg_am a ON a.oid = c.relam
		WHERE c.relkind = 'i' AND a.amname = 'btree' AND c.relnamespace = 'public'::regnamespace"
}

: >"$TS_DIR/state.0"
failed=0
echo "crash test: $clients writers, $cycles crashes, seed $seed (data and logs in $TS_DIR)"
for ((cycle = 1; cycle <= cycles; cycle++)); do
	pids=()
	for ((c = 1; c <= clients; c++)); do
		perl "$here/workload.pl" gen "$c" "$cycle" "$seed" |
			ts_psql -v ON_ERROR_STOP=0 >"$TS_DIR/cycle$cycle.client$c.log" 2>"$TS_DIR/cycle$cycle.client$c.err" &
		pids+=($!)
	done
	sleep_ms=$((3000 + (seed * 7 + cycle * 1009) % ((max_seconds - 3) * 1000 + 1)))
	sleep "$((sleep_ms / 1000)).$(printf '%03d' $((sleep_ms % 1000)))"
	ts_crash
	for pid in "${pids[@]}"; do
		wait "$pid" || true # psql exits with status 2 when the server goes away
	done
	ts_start
	echo "cycle $cycle: killed the server after ${sleep_ms} ms; recovered"
	if ! dump_state "$TS_DIR/state.$cycle"; then
		failed=1
	fi
	if ! perl "$here/workload.pl" check "$TS_DIR/state.$((cycle - 1))" "$TS_DIR/state.$cycle" \
		"$TS_DIR"/cycle$cycle.client*.log; then
		failed=1
	fi
	if ! n="$(check_indexes 2>&1)"; then
		echo "  VIOLATION: amcheck: $n"
		failed=1
	else
		echo "  amcheck: $n indexes verified"
	fi
	for ((c = 1; c <= clients; c++)); do
		if ! grep -q '^A ' "$TS_DIR/cycle$cycle.client$c.log"; then
			echo "  VIOLATION: writer $c had no write acknowledged: $(head -c 300 "$TS_DIR/cycle$cycle.client$c.err")"
			failed=1
		fi
	done
done

if [ "$failed" -eq 0 ]; then
	echo "test crash_recovery ... ok"
	status=0
else
	echo "test crash_recovery ... FAILED (logs, states and the data directory kept in $TS_DIR)"
fi
exit "$status"
