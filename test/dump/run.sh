#!/usr/bin/env bash
# test/dump/run.sh: ots tables whose rows reached every edge through
# ordinary writes dump and restore, every row, index entry and stream
# record intact and none twice, by every path pg_dump and pg_restore offer
# (docs/security.md: anything ots stores reads back through its I/O; every
# restore path works or refuses clearly, none duplicates a stream record or
# index row).
#
#   test/dump/run.sh       (root: the server runs as postgres; or as a user
#                           who can run initdb; the current ots installed)
#
# Starts a temporary server (/tmp/ots-dump.*, unix socket only, port
# $DUMP_PORT, default 5493; removed on exit), writes data.sql through the row
# API into database dump_src (a leaf of 1000 rows where one row grew past 1024
# cells, 1200 versions of a column, a row of more than 6 MB, every type, the
# first and last valid millisecond, an empty row, a hashed Binary key, a
# table with defined columns and two secondary indexes, a table with a
# stream, a chunk written by plain SQL into a table's chunk relation; with
# DUMP_HUGE_ROW=1 also huge.sql, a row of 314 MB, past the 266 MB one value
# carried before 0.3.0, and "test pg_dump_row_size": it is stored split, no
# value over a 2 MB cell's chunk; about 8 minutes, and only the one-step
# restore runs), dumps it and restores it.  Every form compares, per table, its
# definition (describe_table), the stored rows, its chunk relation's chunks
# (byte for byte), the view and get_range_rows (an index's entries are its
# rows) and every record of a stream with the source (rows.sql: counts and
# md5s), and requires each step to exit 0 without an error:
#   pg_dump_restore          pg_dump -Fc, pg_restore into a new database;
#                            then pg_restore_write_point (every restored
#                            leaf on the ots access method, its write
#                            point saw every row: write_point.sql),
#                            pg_dump_rows, pg_restore_indexes (indexes
#                            follow writes after the restore),
#                            pg_restore_view_writes and pg_restore_stream
#                            (writes after the restore are the stream's
#                            next records: stream.sql)
#   pg_restore_directory_j2  pg_dump -Fd -j 2, pg_restore -j 2
#   pg_restore_plain_psql    pg_dump -Fp run by psql -v ON_ERROR_STOP=1
#   pg_restore_two_step      pg_restore --schema-only, then --data-only
#   pg_restore_two_step_disable_triggers   the same, data with --disable-triggers
#   pg_restore_two_step_j2   --schema-only, then --data-only -j 2 (-Fd)
#   pg_restore_schema_only   pg_dump --schema-only run by psql: every table
#                            known with its definition, and the row API,
#                            an index and a stream work on it (schema_only.sql)
#   pg_restore_one_table     pg_dump -t of two tables' relations (one with
#                            a stream, one with its two indexes) restored
#                            into a database where ots exists
#   pg_restore_clean_if_exists, pg_restore_clean
#                            pg_restore --clean [--if-exists] over the
#                            one-step database, written to since
#   pg_dump_database_owner   a role that owns a database and its ots
#                            tables, not a superuser, dumps it and restores
#                            it into a database it owns where a superuser
#                            created ots
#   pg_restore_role          pg_restore --role=owner by a role that logs in
#                            as itself, a member of the owner's role, not a
#                            superuser, in two steps (--schema-only, then
#                            --data-only, whose rows must be the owner's
#                            restored ones: no index entry, no stream
#                            record of their own)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=tools/lib.sh
. "$here/../../tools/lib.sh"
# shellcheck source=test/tempserver.sh
. "$here/../tempserver.sh"
export LC_ALL=C.UTF-8 LANG=C.UTF-8

ts_init dump "${DUMP_PORT:-5493}" "shared_preload_libraries = 'ots'" "fsync = off" \
	"ots.count_writes = on"
trap ts_cleanup EXIT
ts_start

ts_psql -c "CREATE DATABASE dump_src" -c "CREATE DATABASE dump_dst" >/dev/null
data=("$here/data.sql")
if [ "${DUMP_HUGE_ROW:-0}" = 1 ]; then
	data+=("$here/huge.sql")
fi
if ! out="$(for f in "${data[@]}"; do ts_psql -d dump_src -f "$f" || exit 1; done 2>&1)"; then
	echo "$out"
	echo "test pg_dump_restore ... FAILED (writing the source rows)"
	echo "test pg_dump_rows ... FAILED (no source rows)"
	exit 1
fi
ts_psql -d dump_src -At -f "$here/rows.sql" >"$TS_DIR/rows.src"
if [ ! -s "$TS_DIR/rows.src" ]; then
	echo "test pg_dump_restore ... FAILED (the source rows read back as nothing)"
	echo "test pg_dump_rows ... FAILED (nothing to compare)"
	exit 1
fi
status=0

# a row past what one value carried before 0.3.0 is stored split, in values of a chunk each
if [ "${DUMP_HUGE_ROW:-0}" = 1 ]; then
	shape="$(ts_psql -d dump_src -At -c 'SELECT count(*), sum(ots.cells_count("$cells")),
		max(length(ots.cells_send("$cells"))) <= 2097152 + 1024 FROM "huge$chunk"')"
	if [ "$shape" = "150|150|t" ]; then
		echo "test pg_dump_row_size ... ok (a row of 150 values of 2 MB, 314 MB, is stored split: 150 chunks, none over a value's)"
	else
		echo "test pg_dump_row_size ... FAILED (chunks, cells, bounded: $shape)"
		status=1
	fi
fi

# the dump and the restore, as the server's superuser
"$TS_BIN/pg_dump" -Fc -d dump_src -f "$TS_DIR/dump_src.dump"
if "$TS_BIN/pg_restore" -d dump_dst "$TS_DIR/dump_src.dump" >"$TS_DIR/restore.log" 2>&1; then
	echo "test pg_dump_restore ... ok (pg_dump -Fc, $(du -h "$TS_DIR/dump_src.dump" | cut -f1); pg_restore without an error)"
else
	echo "test pg_dump_restore ... FAILED (pg_restore reported errors)"
	grep -E 'ERROR|error' "$TS_DIR/restore.log" | head -n 20 | cut -c1-300 | sed 's/^/  /'
	status=1
fi

# every restored row reached the write point of the ots access method,
# which every restored leaf uses
check="$(ts_psql -d dump_dst -At -f "$here/write_point.sql" 2>&1 || true)"
if [ -n "$check" ] && ! grep -qv ' ok$' <<<"$check"; then
	echo "test pg_restore_write_point ... ok ($(wc -l <<<"$check") tables: every leaf on the ots access method, every restored row seen by the write point)"
else
	echo "test pg_restore_write_point ... FAILED"
	sed 's/^/  /' <<<"$check"
	status=1
fi

ts_psql -d dump_dst -At -f "$here/rows.sql" >"$TS_DIR/rows.dst"
if diff -u --label source --label restored "$TS_DIR/rows.src" "$TS_DIR/rows.dst" >"$TS_DIR/rows.diff"; then
	echo "test pg_dump_rows ... ok ($(wc -l <"$TS_DIR/rows.src") facets of $(cut -d' ' -f1 "$TS_DIR/rows.src" | sort -u | wc -l) tables identical: $(grep ' stored:' "$TS_DIR/rows.src" | sed 's/ stored: \([0-9]*\) rows.*/ \1/' | paste -sd, - | sed 's/,/, /g') rows)"
else
	echo "test pg_dump_rows ... FAILED (- source, + restored)"
	sed 's/^/  /' "$TS_DIR/rows.diff"
	status=1
fi
# (after the rows were compared) restored indexes keep their definitions, answer reads and follow writes:
# a row written after the restore gets its entry in both
index_check="SELECT (SELECT jsonb_agg(m ORDER BY m->>'name') FROM jsonb_array_elements(ots.describe_table('indexed')->'index_metas') m)::text
	|| ' ' || (SELECT count(*) FROM indexed_seller WHERE seller = 'moved') || ' ' || (SELECT count(*) FROM indexed_local)"
before="$(ts_psql -d dump_src -At -c "$index_check" 2>&1 || true)"
after="$(ts_psql -d dump_dst -At -c "$index_check" 2>&1 || true)"
ts_psql -d dump_dst -At -c "SELECT ots.update_row('indexed', '{\"k\": \"r2\", \"n\": 2}', put => '{\"seller\": \"moved\"}')" >/dev/null 2>&1 || true
written="$(ts_psql -d dump_dst -At -c "$index_check" 2>&1 || true)"
counts=(${before##*\]})
if [ -n "$before" ] && [ "$before" = "$after" ] && [ "${written##*\]}" = " $(( counts[0] + 1 )) $(( counts[1] + 1 ))" ]; then
	echo "test pg_restore_indexes ... ok (2 indexes restored as they were, with ${counts[0]} and ${counts[1]} entries; a write after the restore reaches both)"
else
	echo "test pg_restore_indexes ... FAILED (source: $before; restored: $after; after a write: $written)"
	status=1
fi

# a restored view has its typed columns and its write trigger: SQL writes
# through it reach the row and the index
view_writes="$(ts_psql -d dump_dst -At -c "INSERT INTO indexed (k, n, seller, amount) VALUES ('sql', 1, 'viewed', 7)" \
	-c "UPDATE indexed SET amount = amount + 1 WHERE k = 'sql' AND n = 1 RETURNING amount" \
	-c "SELECT count(*) FROM indexed_seller WHERE seller = 'viewed'" \
	-c "SELECT (ots.get_row('indexed', '{\"k\": \"sql\", \"n\": 1}')).attributes" 2>&1 || true)"
if [ "$view_writes" = $'8\n1\n{"amount": 8, "seller": "viewed"}' ]; then
	echo "test pg_restore_view_writes ... ok (INSERT and UPDATE through a restored view with typed columns reach the row and its index)"
else
	echo "test pg_restore_view_writes ... FAILED (got: $view_writes)"
	status=1
fi

# (after the rows were compared) a restored stream goes on after its restored records
stream="$(ts_psql -d dump_dst -At -f "$here/stream.sql" 2>&1 || true)"
if [[ "$stream" == "ok: "* ]] && grep -q ' stream shard ' "$TS_DIR/rows.src"; then
	echo "test pg_restore_stream ... ok ($(grep -c ' stream shard ' "$TS_DIR/rows.src") shards' records identical; ${stream#ok: })"
else
	echo "test pg_restore_stream ... FAILED ($stream)"
	status=1
fi


# --- every other form: each restores into a database of its own and is
# --- compared with the source
if [ "${DUMP_HUGE_ROW:-0}" = 1 ]; then
	exit "$status"
fi

# run LOG CMD...: runs a restore step, its output appended to LOG; its exit status
run() {
	local log="$1"
	shift
	echo "### $*" >>"$log"
	"$@" >>"$log" 2>&1
}

# new_db NAME [OWNER]: an empty database (ots not created)
new_db() {
	ts_psql -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $1" \
		-c "CREATE DATABASE $1${2:+ OWNER $2}" >/dev/null
}

# compare_rows DB EXPECTED PATTERN: rows.sql of DB against the lines of
# EXPECTED that match PATTERN (an ERE); the diff in $TS_DIR/rows.DB.diff
compare_rows() {
	local db="$1" expected="$2" pattern="$3"
	ts_psql -d "$db" -At -f "$here/rows.sql" 2>&1 | grep -E "$pattern|ERROR" >"$TS_DIR/rows.$db" || true
	grep -E "$pattern" "$expected" |
		diff -u --label source --label "$db" - "$TS_DIR/rows.$db" >"$TS_DIR/rows.$db.diff"
}

# check_form NAME WHAT DB RC [EXPECTED [PATTERN]]: the test line of a form:
# ok when its steps exited 0 (RC) and printed no error ($TS_DIR/DB.log), and
# DB's rows are EXPECTED's (the source's) lines matching PATTERN
check_form() {
	local name="$1" what="$2" db="$3" rc="$4" expected="${5:-$TS_DIR/rows.src}" pattern="${6:-.}"
	local errors
	errors="$(grep -v '^### ' "$TS_DIR/$db.log" | grep -iE '(^|[^a-z_])(error|fatal)' | head -n 8 | cut -c1-300 || true)"
	if compare_rows "$db" "$expected" "$pattern" && [ "$rc" = 0 ] && [ -z "$errors" ]; then
		echo "test $name ... ok ($what: exit status 0, no error; $(wc -l <"$TS_DIR/rows.$db") facets of $(cut -d' ' -f1 "$TS_DIR/rows.$db" | sort -u | wc -l) tables identical)"
	else
		echo "test $name ... FAILED ($what: exit status $rc)"
		[ -z "$errors" ] || sed 's/^/  /' <<<"$errors"
		head -n 40 "$TS_DIR/rows.$db.diff" | cut -c1-300 | sed 's/^/  /'
		status=1
	fi
}

pg_dump="$TS_BIN/pg_dump"
pg_restore="$TS_BIN/pg_restore"
psql=("$TS_BIN/psql" -X -q -v ON_ERROR_STOP=1)
"$pg_dump" -Fd -j 2 -d dump_src -f "$TS_DIR/dump_src.dir"
"$pg_dump" -Fp -d dump_src -f "$TS_DIR/dump_src.sql"

new_db r_dir
rc=0
run "$TS_DIR/r_dir.log" "$pg_restore" -j 2 -d r_dir "$TS_DIR/dump_src.dir" || rc=$?
check_form pg_restore_directory_j2 "pg_dump -Fd -j 2, pg_restore -j 2" r_dir "$rc"

new_db r_plain
rc=0
run "$TS_DIR/r_plain.log" "${psql[@]}" -d r_plain -f "$TS_DIR/dump_src.sql" || rc=$?
check_form pg_restore_plain_psql "pg_dump -Fp run by psql" r_plain "$rc"

# two steps: the schema, then the data; the rows the data step loads are
# restored, not new changes: no stream record, no index entry of their own
new_db r_two
rc=0
run "$TS_DIR/r_two.log" "$pg_restore" --schema-only -d r_two "$TS_DIR/dump_src.dump" || rc=$?
run "$TS_DIR/r_two.log" "$pg_restore" --data-only -d r_two "$TS_DIR/dump_src.dump" || rc=$?
check_form pg_restore_two_step "pg_restore --schema-only, then --data-only" r_two "$rc"

new_db r_two_dt
rc=0
run "$TS_DIR/r_two_dt.log" "$pg_restore" --schema-only -d r_two_dt "$TS_DIR/dump_src.dump" || rc=$?
run "$TS_DIR/r_two_dt.log" "$pg_restore" --data-only --disable-triggers -d r_two_dt "$TS_DIR/dump_src.dump" || rc=$?
check_form pg_restore_two_step_disable_triggers "pg_restore --schema-only, then --data-only --disable-triggers" r_two_dt "$rc"

new_db r_two_j
rc=0
run "$TS_DIR/r_two_j.log" "$pg_restore" --schema-only -d r_two_j "$TS_DIR/dump_src.dir" || rc=$?
run "$TS_DIR/r_two_j.log" "$pg_restore" --data-only -j 2 -d r_two_j "$TS_DIR/dump_src.dir" || rc=$?
check_form pg_restore_two_step_j2 "pg_restore --schema-only, then --data-only -j 2 (-Fd)" r_two_j "$rc"

# the schema alone: every table known as it was defined, and usable
new_db r_schema
rc=0
"$pg_dump" --schema-only -d dump_src -f "$TS_DIR/schema_src.sql"
run "$TS_DIR/r_schema.log" "${psql[@]}" -d r_schema -f "$TS_DIR/schema_src.sql" || rc=$?
used="$(ts_psql -d r_schema -At -f "$here/schema_only.sql" 2>&1 || true)"
if [[ "$used" != "ok: "* ]]; then
	echo "$used" >>"$TS_DIR/r_schema.log"
	[ "$rc" != 0 ] || rc="API: $used"
fi
check_form pg_restore_schema_only "pg_dump --schema-only run by psql, then the API: ${used#ok: }" r_schema "$rc" \
	"$TS_DIR/rows.src" '^[^ ]+ definition: '

# one table: its view, storage, leaves and stream (-t 's.t' -t 's.t$*'), and
# one with its indexes (named after it here, so one pattern takes them all)
new_db r_table
rc=0
"$pg_dump" -Fc -t 'public.streamed' -t 'public.streamed$*' -t 'public.indexed*' -d dump_src -f "$TS_DIR/table_src.dump"
run "$TS_DIR/r_table.log" "${psql[@]}" -d r_table -c "CREATE EXTENSION ots" || rc=$?
run "$TS_DIR/r_table.log" "$pg_restore" -d r_table "$TS_DIR/table_src.dump" || rc=$?
check_form pg_restore_one_table "pg_dump -t 'public.streamed' -t 'public.streamed\$*' -t 'public.indexed*', pg_restore into a database with ots" \
	r_table "$rc" "$TS_DIR/rows.src" '^(streamed|indexed|indexed_seller|indexed_local) '

# --clean over the one-step database, which the checks above wrote to
rc=0
run "$TS_DIR/dump_dst.log" "$pg_restore" --clean --if-exists -d dump_dst "$TS_DIR/dump_src.dump" || rc=$?
check_form pg_restore_clean_if_exists "pg_restore --clean --if-exists over the restored database, written to since" dump_dst "$rc"
rm -f "$TS_DIR/dump_dst.log"
ts_psql -d dump_dst -c "SELECT ots.put_row('many', '{\"id\": 5000}', '{\"v\": 1}')" >/dev/null
rc=0
run "$TS_DIR/dump_dst.log" "$pg_restore" --clean -d dump_dst "$TS_DIR/dump_src.dump" || rc=$?
check_form pg_restore_clean "pg_restore --clean over it again, written to since" dump_dst "$rc"

# a database owner who is not a superuser: its own tables, dumped and
# restored into another database it owns, where a superuser created ots
ts_psql -c "CREATE ROLE dump_owner LOGIN" >/dev/null
new_db dump_own dump_owner
new_db r_own dump_owner
ts_psql -d dump_own -c "CREATE EXTENSION ots" >/dev/null
ts_psql -d r_own -c "CREATE EXTENSION ots" >/dev/null
rc=0
run "$TS_DIR/r_own.log" "${psql[@]}" -U dump_owner -d dump_own -f "$here/data.sql" || rc=$?
ts_psql -d dump_own -At -f "$here/rows.sql" >"$TS_DIR/rows.own"
run "$TS_DIR/r_own.log" "$pg_dump" -U dump_owner -Fc -d dump_own -f "$TS_DIR/own.dump" || rc=$?
run "$TS_DIR/r_own.log" "$pg_restore" -U dump_owner -d r_own "$TS_DIR/own.dump" || rc=$?
check_form pg_dump_database_owner "pg_dump and pg_restore by the owner of the databases and tables, not a superuser" \
	r_own "$rc" "$TS_DIR/rows.own"

# the same dump restored by a member of the owner's role, logged in as
# itself, in two steps: the data step loads rows into complete tables
ts_psql -c "CREATE ROLE dump_member LOGIN IN ROLE dump_owner" >/dev/null
new_db r_role dump_owner
ts_psql -d r_role -c "CREATE EXTENSION ots" >/dev/null
rc=0
for section in --schema-only --data-only; do
	run "$TS_DIR/r_role.log" "$pg_restore" -U dump_member --role=dump_owner "$section" -d r_role "$TS_DIR/own.dump" || rc=$?
done
check_form pg_restore_role "pg_restore --role=dump_owner --schema-only, then --data-only, by dump_member, a member of it, not a superuser" \
	r_role "$rc" "$TS_DIR/rows.own"

exit "$status"
