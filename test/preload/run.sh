#!/usr/bin/env bash
# test/preload/run.sh: ots needs shared_preload_libraries = 'ots' (its
# planner and executor hooks must be in place before a session's first
# statement is planned), and says so rather than letting a statement fail
# the first time and succeed the second (docs/design.md, "Writes through a
# table's view", Locking).
#
#   test/preload/run.sh     (root: the server runs as postgres; or as a user
#                            who can run initdb; the current ots installed)
#
# One temporary server (/tmp/ots-preload.*, unix socket only, port
# $PRELOAD_PORT, default 5491; removed on exit), restarted with and without
# ots in shared_preload_libraries. Prints:
#   test preload_create_extension ... ok|FAILED
#       not preloaded: CREATE EXTENSION ots refuses, naming the setting, the
#       line to add and the configuration file, and creates nothing
#   test preload_first_statement ... ok|FAILED
#       preloaded: UPDATE, DELETE and INSERT ... ON CONFLICT through a
#       table's view each work as a session's first statement
#   test preload_view_writes ... ok|FAILED
#       the same server restarted without ots preloaded: a write through the
#       view fails with the same refusal the first and the second time in a
#       session, and changes nothing
#   test preload_update_extension ... ok|FAILED
#       not preloaded: ALTER EXTENSION ots UPDATE refuses before its script
#       changes anything (the installed version is marked 0.1.0 by hand, so
#       that the update runs sql/upgrade/ots--0.1.0--<current>.sql)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=tools/lib.sh
. "$here/../../tools/lib.sh"
# shellcheck source=test/tempserver.sh
. "$here/../tempserver.sh"
export LC_ALL=C.UTF-8 LANG=C.UTF-8

ts_init preload "${PRELOAD_PORT:-5491}"
trap ts_cleanup EXIT
status=0

# result NAME OUTPUT: "ok" when OUTPUT is empty, else FAILED and OUTPUT
result() {
	if [ -z "$2" ]; then
		echo "test $1 ... ok"
	else
		echo "test $1 ... FAILED"
		sed 's/^/    /' <<<"$2"
		status=1
	fi
}

# restart_with LIBRARIES: the server runs again with shared_preload_libraries = 'LIBRARIES'
restart_with() {
	ts_stop
	echo "shared_preload_libraries = '$1'" | ots_as_pg_user tee -a "$TS_DATA/postgresql.conf" >/dev/null
	ts_start
}

# refusal OUTPUT: what OUTPUT lacks of the refusal (the error, the setting,
# the line to add, the file), nothing when it is all there
refusal() {
	local want
	for want in "ERROR:  ots must be loaded by shared_preload_libraries" \
		"HINT:  Add this line to $TS_DATA/postgresql.conf and restart the server: shared_preload_libraries = 'ots'"; do
		grep -qF "$want" <<<"$1" || echo "expected \"$want\" in: $1"
	done
}

# fresh SQL: SQL as the first statement of a new session; prints its errors
fresh() {
	ts_psql -c "$1" 2>&1 >/dev/null || true
}

# 1. not preloaded: CREATE EXTENSION ots refuses
restart_with ''
out="$(ts_psql -c "CREATE EXTENSION ots" 2>&1 || true)"
problems="$(refusal "$out")"
if [ "$(ts_psql -Atc "SELECT count(*) FROM pg_extension WHERE extname = 'ots'")" != 0 ]; then
	problems+=$'\n'"CREATE EXTENSION ots created the extension"
	ts_psql -c "DROP EXTENSION ots CASCADE" >/dev/null 2>&1
fi
result preload_create_extension "$problems"

# 2. preloaded: writes through a view, each a session's first statement
restart_with ots
ts_psql -c "CREATE EXTENSION ots" \
	-c "SELECT ots.create_table('cards', 'id string', defined_columns => 'balance integer')" \
	-c "INSERT INTO cards (id, balance) VALUES ('a', 100), ('b', 100), ('c', 100)" >/dev/null
problems="$(fresh "UPDATE cards SET balance = balance - 10 WHERE id = 'a'")"
problems+="$(fresh "DELETE FROM cards WHERE id = 'b'")"
problems+="$(fresh "INSERT INTO cards (id, balance) VALUES ('c', 1) ON CONFLICT DO NOTHING")"
problems+="$(fresh "INSERT INTO cards (id, balance) VALUES ('a', 1) ON CONFLICT (id) DO UPDATE SET balance = EXCLUDED.balance")"
rows="$(ts_psql -Atc "SELECT string_agg(id || '=' || balance, ' ' ORDER BY id) FROM cards")"
[ "$rows" = "a=1 c=100" ] || problems+=$'\n'"rows after the writes: $rows (expected a=1 c=100)"
result preload_first_statement "$problems"

# 3. the server restarted without it: refused every time, not only the first
restart_with ''
out="$(ts_psql -v ON_ERROR_STOP=0 -c "UPDATE cards SET balance = balance - 10 WHERE id = 'c'" \
	-c "UPDATE cards SET balance = balance - 10 WHERE id = 'c'" \
	-c "DELETE FROM cards WHERE id = 'c'" \
	-c "INSERT INTO cards (id, balance) VALUES ('d', 1)" 2>&1 || true)"
problems="$(refusal "$out")"
n="$(grep -c "ERROR:  ots must be loaded by shared_preload_libraries" <<<"$out" || true)"
[ "$n" = 4 ] || problems+=$'\n'"expected 4 refusals, got $n: $out"
rows="$(ts_psql -Atc "SELECT string_agg(id || '=' || balance, ' ' ORDER BY id) FROM cards")"
[ "$rows" = "a=1 c=100" ] || problems+=$'\n'"rows after the refused writes: $rows (expected a=1 c=100)"
result preload_view_writes "$problems"

# 4. not preloaded: ALTER EXTENSION ots UPDATE refuses before any change
current="$(ts_psql -Atc "SELECT extversion FROM pg_extension WHERE extname = 'ots'")"
ts_psql -c "UPDATE pg_extension SET extversion = '0.1.0' WHERE extname = 'ots'" >/dev/null
out="$(ts_psql -c "ALTER EXTENSION ots UPDATE TO '$current'" 2>&1 || true)"
problems="$(refusal "$out")"
got="$(ts_psql -Atc "SELECT extversion FROM pg_extension WHERE extname = 'ots'")"
[ "$got" = 0.1.0 ] || problems+=$'\n'"the update ran: version $got"
ts_psql -c "UPDATE pg_extension SET extversion = '$current' WHERE extname = 'ots'" >/dev/null
result preload_update_extension "$problems"

exit "$status"
