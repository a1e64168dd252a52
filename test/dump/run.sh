#!/usr/bin/env bash
# test/dump/run.sh: a pg_dump -Fc of ots tables whose rows reached every edge
# through ordinary writes restores with pg_restore, every row intact
# (DESIGN.md §9: anything ots stores reads back through its I/O).
#
#   test/dump/run.sh       (root: the server runs as postgres; or as a user
#                           who can run initdb; the current ots installed)
#
# Starts a temporary server (/tmp/ots-dump.*, unix socket only, port
# $DUMP_PORT, default 5493; removed on exit), writes data.sql through the row
# API into database dump_src (a leaf of 1000 rows where one row grew past 1024
# cells, 1200 versions of a column, a row of more than 6 MB, every type, the
# first and last valid millisecond, an empty row, a hashed Binary key; with
# DUMP_HUGE_ROW=1 also huge.sql, the largest row the text form carries, 266 MB,
# and "test pg_dump_row_size": a write making it larger fails with
# OTSOutOfRowSizeLimit; about 8 minutes), dumps
# it with pg_dump -Fc, restores it with pg_restore into a new database
# dump_dst and compares, per table, the stored rows, the view and
# get_range_rows (rows.sql). Prints "test pg_dump_restore ... ok|FAILED" (the
# restore ran without an error), "test pg_restore_write_point ... ok|FAILED"
# (every restored leaf is on the ots access method, and its write point saw
# every restored row: write_point.sql) and "test pg_dump_rows ... ok|FAILED"
# (every row is the same, and every record of a stream: rows.sql),
# "test pg_restore_indexes ... ok|FAILED" (secondary indexes keep their
# definitions and follow writes after the restore) and "test
# pg_restore_stream ... ok|FAILED" (a restored stream keeps its id and
# records, and writes after the restore are its next records: stream.sql).
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

# a write that would make a row too large for the text form fails, and leaves the row alone
if [ "${DUMP_HUGE_ROW:-0}" = 1 ]; then
	out="$(ts_psql -d dump_src -At -c "SELECT ots.update_row('huge', '{\"k\": \"x\"}',
		put => jsonb_build_object('s128', repeat('z', 2097152)))" 2>&1 || true)"
	cells="$(ts_psql -d dump_src -At -c 'SELECT ots.cells_count("$cells") FROM "huge$data"')"
	if [[ "$out" == *"The total data size of columns in one row exceeded the limit."* ]] && [ "$cells" = 127 ]; then
		echo "test pg_dump_row_size ... ok (a 128th value of 2 MB is refused: OTSOutOfRowSizeLimit; the row keeps its 127 cells)"
	else
		echo "test pg_dump_row_size ... FAILED (the row has $cells cells after: $out)"
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

exit "$status"
