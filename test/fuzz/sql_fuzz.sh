#!/usr/bin/env bash
# test/fuzz/sql_fuzz.sh: SQL-level fuzzing of ots's text and jsonb inputs.
#
#   test/fuzz/sql_fuzz.sh           (as root, or as any user who can run initdb)
#
# Starts a temporary server (as postgres in /tmp/ots-sqlfuzz.*, unix socket
# only, port $SQL_FUZZ_PORT, default 5494; stopped and removed on exit), then
# feeds SQL_FUZZ_COUNT (default 20000) inputs from sql_fuzz_gen.pl to
# `::ots.cells`, to the jsonb arguments of put_row, update_row, delete_row,
# get_row, get_range(_rows), batch_write_row and batch_get_row (keys,
# attribute maps, update operations, filters, column conditions, range bounds,
# time ranges, batch requests) on five tables of different key schemas (two
# of them with a stream, which every write also records), and shard
# iterators to get_shard_iterator and get_stream_record.
#
# Passes when every call either succeeds or raises an ERROR whose SQLSTATE is
# expected (fuzz_expected() in sql_fuzz.sql: OT001-OT010, 22P02, 22023,
# 22P05, 54000, 54001, and 22003 from the jsonb parser), an accepted ots.cells text reads back identically,
# an accepted batch request or time range has no field ots does not know,
# no backend crashed (postmaster start time unchanged, nothing in the server
# log) and afterwards every stored row still decodes and every index passes
# amcheck. Prints one "test sql_fuzz_<target> ... ok|FAILED" line per target
# (tools/test counts them) and the figures. Inputs that crashed the server
# or raised an unexpected SQLSTATE are written to $SQL_FUZZ_OUT (default
# test/fuzz/sql-fuzz-failures/). SQL_FUZZ_SEED replays a run;
# SQL_FUZZ_VERBOSE=1 also lists the most frequent error messages.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=tools/lib.sh
. "$here/../../tools/lib.sh"
# shellcheck source=test/tempserver.sh
. "$here/../tempserver.sh"
export LC_ALL=C.UTF-8 LANG=C.UTF-8

count="${SQL_FUZZ_COUNT:-20000}"
seed="${SQL_FUZZ_SEED:-$(((RANDOM << 15) | RANDOM))}"
chunk="${SQL_FUZZ_CHUNK:-500}"
out="${SQL_FUZZ_OUT:-$here/sql-fuzz-failures}"

ts_init sqlfuzz "${SQL_FUZZ_PORT:-5494}" \
	"shared_preload_libraries = 'ots'" "fsync = off" "restart_after_crash = on" \
	"statement_timeout = '600s'" "log_min_messages = 'warning'"
trap ts_cleanup EXIT
ts_start

started=$SECONDS
ts_psql -f "$here/sql_fuzz.sql" >/dev/null
perl "$here/sql_fuzz_gen.pl" "$count" "$seed" "$(date +%s%3N)" >"$TS_DIR/inputs.copy"
ts_psql -c "\\copy fuzz_input (kind, tbl, input) FROM '$TS_DIR/inputs.copy'"
pm_start="$(ts_psql -Atc 'SELECT pg_postmaster_start_time()')"
echo "sql fuzz: $count inputs, seed $seed (SQL_FUZZ_SEED=$seed $0 replays them)"

# wait_ready: waits until the server accepts connections again (after a
# backend crash the postmaster reinitializes)
wait_ready() {
	local i
	for i in $(seq 1 120); do
		if ts_psql -Atc 'SELECT 1' >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.5
	done
	ots_die "the server did not come back (log: $TS_DIR/server.log)"
}

# save_input ID WHAT: keeps input ID for replay in $out
save_input() {
	mkdir -p "$out"
	ts_psql -Atc "SELECT kind || ' ' || tbl || E'\\n' || input FROM fuzz_input WHERE id = $1" \
		>"$out/$2-$1.txt" 2>/dev/null || true
}

crashed=0
for ((lo = 1; lo <= count; lo += chunk)); do
	hi=$((lo + chunk - 1))
	if ts_psql -c "SELECT fuzz_chunk($lo, $hi)" >/dev/null 2>"$TS_DIR/chunk.err"; then
		continue
	fi
	# a call ended the session (or was cancelled): find it, one input per session
	echo "inputs $lo..$hi: $(head -n 1 "$TS_DIR/chunk.err"); replaying them one by one"
	wait_ready
	for ((i = lo; i <= hi; i++)); do
		if ! ts_psql -c "SELECT fuzz_chunk($i, $i)" >/dev/null 2>"$TS_DIR/one.err"; then
			crashed=$((crashed + 1))
			echo "input $i: $(tr '\n' ' ' <"$TS_DIR/one.err")"
			wait_ready
			save_input "$i" crash
			ts_psql -c "INSERT INTO fuzz_result VALUES ($i, 'CRASH', 'the session ended')
				ON CONFLICT (id) DO UPDATE SET sqlstate = 'CRASH'" >/dev/null
		fi
	done
done
elapsed=$((SECONDS - started))

status=0
# per target: inputs, successes, SQLSTATEs seen
ts_psql -P footer=off -c "
	SELECT i.kind AS target, count(*) AS inputs, count(*) FILTER (WHERE r.sqlstate = 'OK') AS ok,
		   count(*) FILTER (WHERE r.sqlstate <> 'OK') AS errors,
		   count(*) FILTER (WHERE NOT fuzz_expected(coalesce(r.sqlstate, 'none'), r.message)) AS unexpected,
		   (SELECT string_agg(s || ':' || n, ' ' ORDER BY n DESC, s)
			  FROM (SELECT r2.sqlstate AS s, count(*) AS n FROM fuzz_input i2 JOIN fuzz_result r2 USING (id)
					 WHERE i2.kind = i.kind AND r2.sqlstate <> 'OK' GROUP BY 1) x) AS sqlstates
	FROM fuzz_input i LEFT JOIN fuzz_result r USING (id)
	GROUP BY i.kind ORDER BY i.kind"

while IFS='|' read -r kind bad; do
	if [ "$bad" -eq 0 ]; then
		echo "test sql_fuzz_$kind ... ok"
	else
		echo "test sql_fuzz_$kind ... FAILED ($bad unexpected)"
		status=1
	fi
done < <(ts_psql -Atc "SELECT i.kind, count(*) FILTER (WHERE NOT fuzz_expected(coalesce(r.sqlstate, 'none'), r.message))
	FROM fuzz_input i LEFT JOIN fuzz_result r USING (id) GROUP BY i.kind ORDER BY i.kind")

unexpected="$(ts_psql -Atc "SELECT id FROM fuzz_input i LEFT JOIN fuzz_result r USING (id)
	WHERE NOT fuzz_expected(coalesce(r.sqlstate, 'none'), r.message) AND r.sqlstate IS DISTINCT FROM 'CRASH' ORDER BY id")"
if [ -n "$unexpected" ]; then
	echo "unexpected errors (first 20):"
	ts_psql -P footer=off -c "SELECT id, kind, tbl, r.sqlstate, r.message, left(input, 160) AS input
		FROM fuzz_input i LEFT JOIN fuzz_result r USING (id)
		WHERE NOT fuzz_expected(coalesce(r.sqlstate, 'none'), r.message) ORDER BY id LIMIT 20"
	for i in $unexpected; do
		save_input "$i" unexpected
	done
fi

if [ "${SQL_FUZZ_VERBOSE:-0}" = 1 ]; then
	ts_psql -P footer=off -c "SELECT kind, sqlstate, left(message, 90) AS message, count(*)
		FROM fuzz_input JOIN fuzz_result USING (id) WHERE sqlstate <> 'OK'
		GROUP BY 1, 2, 3 ORDER BY count(*) DESC LIMIT 60"
fi

# the server: no backend died
now_start="$(ts_psql -Atc 'SELECT pg_postmaster_start_time()')"
deaths="$(grep -cE 'terminated by (signal|exception)|exited with exit code|terminating any other active server processes' \
	"$TS_DIR/server.log" || true)"
if [ "$crashed" -eq 0 ] && [ "$deaths" -eq 0 ] && [ "$now_start" = "$pm_start" ]; then
	echo "test sql_fuzz_server ... ok"
else
	echo "test sql_fuzz_server ... FAILED ($crashed inputs ended their session, $deaths backend deaths in the log)"
	grep -E 'terminated by|exited with exit code|TRAP|PANIC' "$TS_DIR/server.log" | head -n 20 || true
	status=1
fi

# what the fuzzing stored still reads: every row through the view and
# get_range_rows, every ots.cells text form reads back, indexes pass amcheck
if ts_psql -Atc "
	DO \$\$
	DECLARE t text; n bigint; m bigint; bad bigint; idx regclass;
	BEGIN
		FOR t IN SELECT table_name FROM ots.list_table() ORDER BY 1 LOOP
			EXECUTE format('SELECT count(*) FROM %I', t) INTO n;
			SELECT count(*) INTO m FROM ots.get_range_rows(t, fuzz_bound(t, 'min'), fuzz_bound(t, 'max'));
			EXECUTE format('SELECT count(*) FROM %I WHERE ots.cells_send(\"\$cells\"::text::ots.cells)
				IS DISTINCT FROM ots.cells_send(\"\$cells\")', t || '\$data') INTO bad;
			IF n <> m OR bad <> 0 THEN
				RAISE EXCEPTION '%: % rows in the view, % in get_range_rows, % cells not reading back', t, n, m, bad;
			END IF;
			RAISE NOTICE '%: % rows', t, n;
		END LOOP;
		FOR idx IN SELECT i.indexrelid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
				   JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'btree' AND c.relkind = 'i'
				   AND c.relnamespace = 'public'::regnamespace LOOP
			PERFORM bt_index_check(idx, true);
		END LOOP;
	END \$\$" 2>"$TS_DIR/verify.err"; then
	echo "test sql_fuzz_stored_data ... ok ($(grep -o '[a-z_]*: [0-9]* rows' "$TS_DIR/verify.err" | paste -sd, -))"
else
	echo "test sql_fuzz_stored_data ... FAILED"
	cat "$TS_DIR/verify.err"
	status=1
fi

total_ok="$(ts_psql -Atc "SELECT count(*) FILTER (WHERE sqlstate = 'OK') || ' succeeded, '
	|| count(*) FILTER (WHERE sqlstate <> 'OK') || ' raised an error' FROM fuzz_result")"
echo "sql fuzz: $count inputs tried in ${elapsed}s: $total_ok; $crashed ended their session; seed $seed"
if [ "$status" -ne 0 ]; then
	echo "sql fuzz FAILED: failing inputs in $out (replay: SQL_FUZZ_SEED=$seed SQL_FUZZ_COUNT=$count $0)"
fi
exit "$status"
