#!/usr/bin/env bash
# test/pg_upgrade/run.sh: an ots database survives pg_upgrade (PostgreSQL 15
# to 15, a new data directory, copy and --link) and point-in-time recovery
# exactly: every stored row, view row, index entry, stream record, sequence,
# table definition, pg_cron job and row-level security policy as it was,
# ots's catalog with one row per table, and writes work after (docs/security.md:
# whatever ots stores comes back; docs/operations.md).
#
#   test/pg_upgrade/run.sh   (root: the servers run as postgres; or as a user
#                             who can run initdb; the current ots installed,
#                             the binaries of OTS_PG_CONFIG's directory)
#
# Everything lives in one temporary directory (/tmp/ots-pgupgrade.*, unix
# sockets only, ports from $PG_UPGRADE_PORT, default 5486; removed on exit).
# The old cluster (ots preloaded, pg_cron too where it is installed, WAL
# archived) gets data.sql in database app: tables of every key type, a hash
# prefix (and a chunk in its chunk relation), AUTO_INCREMENT, multi-version
# cells with a TTL, defined columns with a global and a local secondary
# index and a stream, another role's table with a row-level security
# policy, and their pg_cron jobs. Then a base backup (pg_basebackup -X
# none), writes (index entries, stream records, an AUTO_INCREMENT key, a
# delete), a transaction left open, the facts taken (test/dump/rows.sql:
# every table's definition, stored rows, chunks, view rows, get_range_rows,
# stream records and sequence; state.sql: ots's
# catalog, the definitions the storage carries, the cron jobs, what a role
# under a policy reads), a restore point, the open transaction committed,
# more writes of every kind, the facts taken again with a reader's
# iterators kept (iterators.sql). Prints:
#   test pitr_recovery ... ok|FAILED   the base backup, recovered from the
#                                      archive to the restore point, is promoted
#   test pitr_rows ... ok|FAILED       its facts are those at the restore point
#                                      (and differ from the last ones)
#   test pitr_verify ... ok|FAILED     ots.verify() reports nothing
#   test pitr_writes ... ok|FAILED     writes work after (writes.sql)
#   test pg_upgrade_copy ... ok|FAILED pg_upgrade --check, then pg_upgrade into
#                                      a new data directory (ots preloaded there)
#   test pg_upgrade_copy_rows, _verify, _writes
#                                      started, and vacuumdb --all
#                                      --analyze-in-stages run, its facts are
#                                      the old cluster's, ots.verify() reports
#                                      nothing, writes work and the iterators
#                                      of before read on
#   test pg_upgrade_link ... (and _rows, _verify, _writes)   the same, --link
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=tools/lib.sh
. "$here/../../tools/lib.sh"
# shellcheck source=test/tempserver.sh
. "$here/../tempserver.sh"
export LC_ALL=C.UTF-8 LANG=C.UTF-8

port="${PG_UPGRADE_PORT:-5486}"
preload=ots
cron=off
if [ -f "$("$OTS_PG_CONFIG" --pkglibdir)/pg_cron.so" ]; then
	preload=pg_cron,ots
	cron=on
fi
ts_init pgupgrade "$port" "shared_preload_libraries = '$preload'" "cron.database_name = 'app'" \
	"fsync = off"
trap ts_cleanup EXIT
old="$TS_DATA"
archive="$TS_DIR/archive"
ots_as_pg_user mkdir "$archive"
printf '%s\n' "archive_mode = on" "archive_command = 'cp %p $archive/%f'" |
	ots_as_pg_user tee -a "$old/postgresql.conf" >/dev/null
ts_start
status=0

# result NAME PROBLEMS [WHAT]: "ok (WHAT)" when PROBLEMS is empty, else
# FAILED and PROBLEMS
result() {
	if [ -z "$2" ]; then
		echo "test $1 ... ok${3:+ ($3)}"
	else
		echo "test $1 ... FAILED"
		printf '%s\n' "$2" | sed 's/^/    /'
		status=1
	fi
}

# app ARGS...: psql to database app of the current instance
app() {
	ts_psql -d app -v cron="$cron" "$@"
}

# facts FILE: what the current instance holds (rows.sql, state.sql) into FILE
facts() {
	{ app -At -f "$here/../dump/rows.sql" && app -At -f "$here/state.sql"; } >"$1" 2>&1 || true
}

# check_facts NAME EXPECTED GOT [SEQUENCES [PROBLEMS]]: the test line of a
# comparison of facts; with SEQUENCES "ahead", a sequence may be past its
# value in EXPECTED (never behind it); PROBLEMS found before, if any
check_facts() {
	local problems=() line want got
	[ -z "${5:-}" ] || problems+=("$5")
	cp "$2" "$2.compared"
	cp "$3" "$3.compared"
	if [ "${4:-}" = ahead ]; then
		# a recovery replays a sequence's WAL record, which runs 32 values
		# ahead of the values used (PostgreSQL's SEQ_LOG_VALS)
		while IFS= read -r line; do
			want="${line##* }"
			got="$(grep -F "${line% *} " "$3" | sed 's/.* //')"
			if [ -z "$got" ] || [ "$got" -lt "$want" ]; then
				problems+=("${line}: recovered as ${got:-nothing}")
			fi
		done < <(grep ' sequence: last_value ' "$2")
		grep -v ' sequence: last_value ' "$2" >"$2.compared" || true
		grep -v ' sequence: last_value ' "$3" >"$3.compared" || true
	fi
	if ! diff -u --label before --label after "$2.compared" "$3.compared" >"$3.diff"; then
		problems+=("$(cat "$3.diff")")
	fi
	# one row of ots.tables per table, carried by its storage: before as after
	problems+=("$(grep -h '^registered ' "$2" "$3" | grep -v ': its storage carries its row$' || true)")
	# facts that failed to be taken are no facts, even when both failed alike
	problems+=("$(grep -H -E 'ERROR|FATAL' "$2" "$3" || true)")
	grep -q ' rows, md5 ' "$2" || problems+=("no rows in $2")
	result "$1" "$(printf '%s\n' "${problems[@]}" | sed '/^$/d')" "$(grep -c ' rows, md5 ' "$2") row sets, $(grep -c ' stream shard ' "$2") stream shards, $(grep -c ' sequence: ' "$2") sequences, $(grep -c '^registered ' "$2") tables registered, $(grep -c '^cron job ' "$2") cron jobs: as before${4:+ (sequences not behind)}"
}

# check_verify NAME: ots.verify() of the current instance reports nothing
check_verify() {
	local out
	out="$(app -At -c "SELECT format('%s %s %s: %s %s', ots_table, relation, kind, problem, detail) FROM ots.verify()" 2>&1 || true)"
	result "$1" "$out" "ots.verify() reports nothing"
}

# check_writes NAME SAVED: writes.sql on the current instance (SAVED: on when
# the iterators of before are there)
check_writes() {
	local out
	out="$(app -At -v saved="$2" -f "$here/writes.sql" 2>&1 || true)"
	if [ -n "$out" ] && ! grep -qv '^ok: ' <<<"$out"; then
		result "$1" "" "$(wc -l <<<"$out") checks of writes.sql"
		printf '%s\n' "$out" | sed 's/^ok: /    /'
	else
		result "$1" "$out"
	fi
}

# --- the old cluster
ts_psql -c "CREATE DATABASE app" >/dev/null
if ! out="$(app -f "$here/data.sql" 2>&1)"; then
	echo "$out"
	for t in pitr_recovery pg_upgrade_copy pg_upgrade_link; do
		echo "test $t ... FAILED (writing the old cluster's tables)"
	done
	exit 1
fi
ots_as_pg_user "$TS_BIN/pg_basebackup" -h "$TS_DIR" -p "$port" -U "$(ots_pg_user_name)" \
	-D "$TS_DIR/pitr" -X none -c fast >"$TS_DIR/pg_basebackup.log" 2>&1 ||
	{ cat "$TS_DIR/pg_basebackup.log"; ots_die "pg_basebackup failed"; }

# writes after the base backup, all in the archived WAL
app -q -c "SELECT count(*) FROM generate_series(121, 160) g,
	LATERAL ots.put_row('orders', jsonb_build_object('customer', 'c' || g % 11, 'id', g),
	                    jsonb_build_object('status', 'backed_up', 'amount', g))" \
	-c "SELECT ots.delete_row('orders', '{\"customer\": \"c3\", \"id\": 3}')" \
	-c "SELECT ots.put_row('counted', '{\"k\": \"a\", \"id\": {\"\$auto_increment\": true}}', '{\"v\": \"backed_up\"}')" \
	-c "SELECT ots.update_row('versions', '{\"k\": \"r1\"}', put => '{\"c\": \"backed_up\"}')" >/dev/null
# a transaction that writes before the restore point and commits after it
mkfifo "$TS_DIR/open.fifo"
app -At -c "SET application_name = 'open_tx'" -f "$TS_DIR/open.fifo" >"$TS_DIR/open.out" 2>&1 &
open_pid=$!
exec 7>"$TS_DIR/open.fifo"
echo "BEGIN; SELECT (ots.put_row('orders', '{\"customer\": \"open\", \"id\": 1}', '{\"status\": \"open\", \"amount\": 1}')).consumed IS NOT NULL;" >&7
for _ in $(seq 1 300); do
	[ "$(app -At -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'open_tx' AND state = 'idle in transaction'")" = 1 ] && break
	sleep 0.1
done
facts "$TS_DIR/facts.target"
app -q -c "SELECT pg_create_restore_point('pg_upgrade_test')" >/dev/null
echo "COMMIT;" >&7
exec 7>&-
wait "$open_pid" || true
# writes after the restore point: none may be in the recovered cluster
app -q -c "SELECT count(*) FROM generate_series(161, 170) g,
	LATERAL ots.put_row('orders', jsonb_build_object('customer', 'c' || g % 11, 'id', g),
	                    jsonb_build_object('status', 'late', 'amount', g))" \
	-c "SELECT ots.update_row('orders', '{\"customer\": \"c1\", \"id\": 1}', put => '{\"status\": \"late\"}')" \
	-c "SELECT ots.delete_row('orders', '{\"customer\": \"c5\", \"id\": 5}')" \
	-c "SELECT ots.put_row('counted', '{\"k\": \"a\", \"id\": {\"\$auto_increment\": true}}', '{\"v\": \"late\"}')" \
	-c "SELECT ots.put_row('keys', '{\"s\": \"late\", \"i\": 1, \"b\": {\"\$binary\": \"AQ==\"}}', '{\"v\": 1}')" \
	-c "SET ROLE tenant" -c "SELECT ots.put_row('tenant.notes', '{\"k\": \"pub9\", \"n\": 1}', '{\"text\": \"late\"}')" >/dev/null
segment="$(app -At -c "SELECT pg_walfile_name(pg_switch_wal())")"
for _ in $(seq 1 300); do
	[ -f "$archive/$segment" ] && break
	sleep 0.1
done
app -q -f "$here/iterators.sql"
facts "$TS_DIR/facts.old"
verify_old="$(app -At -c "SELECT count(*) FROM ots.verify()" 2>&1 || true)"
[ "$verify_old" = 0 ] || ots_die "ots.verify() of the old cluster: $verify_old"
ts_stop

# --- point-in-time recovery of the base backup to the restore point
printf '%s\n' "port = $((port + 3))" "archive_mode = off" "restore_command = 'cp $archive/%f %p'" \
	"recovery_target_name = 'pg_upgrade_test'" "recovery_target_action = 'promote'" |
	ots_as_pg_user tee -a "$TS_DIR/pitr/postgresql.conf" >/dev/null
ots_as_pg_user touch "$TS_DIR/pitr/recovery.signal"
ts_use "$TS_DIR/pitr" $((port + 3))
ts_start
for _ in $(seq 1 600); do
	[ "$(ts_psql -At -c "SELECT pg_is_in_recovery()" 2>/dev/null)" = f ] && break
	sleep 0.1
done
if [ "$(ts_psql -At -c "SELECT pg_is_in_recovery()")" = f ] &&
	grep -q 'recovery stopping at restore point "pg_upgrade_test"' "$TS_LOG"; then
	result pitr_recovery "" "recovered to restore point pg_upgrade_test from the archive, promoted"
else
	result pitr_recovery "$(tail -n 20 "$TS_LOG")"
fi
facts "$TS_DIR/facts.pitr"
unproven=""
if diff -q "$TS_DIR/facts.target" "$TS_DIR/facts.old" >/dev/null || [ "$(cat "$TS_DIR/open.out")" != t ]; then
	unproven="the writes around the restore point did not happen (the transaction left open said: $(cat "$TS_DIR/open.out")): the test proves nothing"
fi
check_facts pitr_rows "$TS_DIR/facts.target" "$TS_DIR/facts.pitr" ahead "$unproven"
check_verify pitr_verify
check_writes pitr_writes off
ts_stop

# --- pg_upgrade into a new data directory, copy and --link (the old
# --- cluster is left as it was by copy, and is not started again after --link)
for mode in copy link; do
	new="$TS_DIR/new_$mode"
	new_port=$((port + 1))
	ts_initdb "$new" "$new_port"
	# what a user runs: pg_upgrade --check, then pg_upgrade [--link]
	upgrade=(ots_as_pg_user_in "$TS_DIR" "$TS_BIN/pg_upgrade" -b "$TS_BIN" -B "$TS_BIN" -d "$old" -D "$new"
		-p "$port" -P "$new_port" -s "$TS_DIR" -U "$(ots_pg_user_name)")
	if [ "$mode" = link ]; then
		upgrade+=(--link)
	fi
	if "${upgrade[@]}" --check >"$TS_DIR/pg_upgrade_$mode.log" 2>&1 &&
		"${upgrade[@]}" >>"$TS_DIR/pg_upgrade_$mode.log" 2>&1; then
		result "pg_upgrade_$mode" "" "pg_upgrade --check, then pg_upgrade$([ "$mode" = copy ] || echo " --link"): $(grep -c ' ok$' "$TS_DIR/pg_upgrade_$mode.log") steps ok"
	else
		result "pg_upgrade_$mode" "$(tail -n 15 "$TS_DIR/pg_upgrade_$mode.log"; find "$new/pg_upgrade_output.d" -name '*.log' -exec tail -n 5 {} + 2>/dev/null)"
		continue
	fi
	ts_use "$new" "$new_port"
	ts_start
	# what pg_upgrade tells its user to run next
	vacuumdb=""
	"$TS_BIN/vacuumdb" --all --analyze-in-stages >"$TS_DIR/vacuumdb_$mode.log" 2>&1 ||
		vacuumdb="vacuumdb --all --analyze-in-stages failed: $(cat "$TS_DIR/vacuumdb_$mode.log")"
	facts "$TS_DIR/facts.$mode"
	check_facts "pg_upgrade_${mode}_rows" "$TS_DIR/facts.old" "$TS_DIR/facts.$mode" "" "$vacuumdb"
	check_verify "pg_upgrade_${mode}_verify"
	check_writes "pg_upgrade_${mode}_writes" on
	ts_stop
done

exit "$status"
