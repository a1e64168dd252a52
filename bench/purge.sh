#!/usr/bin/env bash
# bench/purge.sh — ots.purge against a plain DELETE (the target: purge
# removes expired rows at least half as fast as `DELETE ... WHERE` on an
# indexed timestamp), and proof that purge finds its work through the
# "$oldest_ts" index instead of scanning the table.
#
# Usage (needs PostgreSQL 15 server binaries and an installed ots, i.e.
# `make install` done):
#
#     bench/purge.sh
#
# It starts a private PostgreSQL 15 instance (unix socket only, port 5497,
# data under /tmp, run as user `postgres` when invoked as root, ots
# preloaded), and loads the same data twice:
#   * ots table bp (id string, 8 partitions, TTL 1 day): BENCH_ROWS rows of
#     one Integer cell each, loaded straight into its storage;
#   * plain table bp_plain (id text COLLATE "C" PRIMARY KEY, ts bigint,
#     attrs jsonb) with an index on ts.
# BENCH_PCT percent of the rows (spread over the key space) are two days
# old: expired cells and expired row markers.  Each repetition then times
# `CALL ots.purge('bp')` and `DELETE FROM bp_plain WHERE ts <= cutoff` (the
# plain table's equivalent), alternating which goes first, after a VACUUM,
# ANALYZE and CHECKPOINT, and reloads the expired rows afterwards.  It
# prints the rows/s of each, their ratio (median of the repetitions), the
# plan of purge's candidate lookup on one leaf, and the table and index
# access counters of one purge run (no sequential scan; index tuples read
# = rows purged).  The instance is stopped and removed on exit.
#
# Environment knobs [defaults]:
#   BENCH_ROWS  rows of each table [1000000]
#   BENCH_PCT   percent expired [1]
#   BENCH_REPS  repetitions [3]
#   BENCH_BATCH ots.purge batch_size [1000]
#   BENCH_PORT  [5497]
#   PGBIN       PostgreSQL 15 server binaries [/usr/lib/postgresql/15/bin]
set -euo pipefail

ROWS=${BENCH_ROWS:-1000000}
PCT=${BENCH_PCT:-1}
REPS=${BENCH_REPS:-3}
BATCH=${BENCH_BATCH:-1000}
PORT=${BENCH_PORT:-5497}
BIN=${PGBIN:-/usr/lib/postgresql/15/bin}
DIR=$(mktemp -d /tmp/ots-bench-purge.XXXXXX)

as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}
[ "$(id -u)" -eq 0 ] && chown postgres: "$DIR"

cleanup() {
	as_pg "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$DIR"
}
trap cleanup EXIT

psql_() { as_pg "$BIN/psql" -h "$DIR" -p "$PORT" -d bench -X -q -v ON_ERROR_STOP=1 "$@"; }

as_pg "$BIN/initdb" -D "$DIR/data" -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
cat >>"$DIR/data/postgresql.conf" <<EOF
port = $PORT
listen_addresses = ''
unix_socket_directories = '$DIR'
shared_preload_libraries = 'ots'
shared_buffers = 512MB
max_wal_size = 8GB
checkpoint_timeout = 30min
autovacuum = off
track_io_timing = on
EOF
as_pg "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w start >/dev/null
as_pg "$BIN/createdb" -h "$DIR" -p "$PORT" bench

# every 100/PCT-th row is expired: 2 days old, against a TTL of 1 day
STEP=$((100 / PCT))
echo "loading $ROWS rows per table, $PCT% expired ..."
psql_ <<EOF
CREATE EXTENSION ots;
SET client_min_messages = warning;
SELECT ots.create_table('bp', 'id string', time_to_live => 86400);
CREATE TABLE bp_plain (id text COLLATE "C" PRIMARY KEY, ts bigint NOT NULL, attrs jsonb NOT NULL);
CREATE INDEX bp_plain_ts ON bp_plain (ts);

-- the data: one Integer cell per row; expired rows are 2 days old
CREATE TABLE bp_src AS
SELECT 'row' || lpad(i::text, 8, '0') AS id, i AS v,
	   CASE WHEN i % $STEP = 0 THEN 2 * 86400000 ELSE 60000 END + i % 1000 AS age_ms
  FROM generate_series(1, $ROWS) i;

-- reload: both tables from scratch, same rows, same physical order
CREATE PROCEDURE reload() LANGUAGE plpgsql AS \$\$
DECLARE
	now_ms bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
BEGIN
	TRUNCATE "bp\$data", bp_plain;
	INSERT INTO "bp\$data" (id, "\$cells", "\$oldest_ts")
	SELECT id, format('{"row_ts": %s, "cells": {"v": [{"ts": %s, "value": %s}]}}',
					  now_ms - age_ms, now_ms - age_ms, v)::ots.cells, now_ms - age_ms
	  FROM bp_src;
	INSERT INTO bp_plain SELECT id, now_ms - age_ms, jsonb_build_object('v', v) FROM bp_src;
END
\$\$;
EOF

# the DELETE gets its cutoff as a constant, so that it can use its index
cutoff() { psql_ -At -c "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint - 86400000"; }

# time_ms SQL: wall time of one statement, in ms
time_ms() {
	psql_ -At -c "SET client_min_messages = warning" -c "\\timing on" -c "$1" |
		sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
}

prepare() {
	psql_ -c "VACUUM ANALYZE" -c "CHECKPOINT"
}

ots_rs=()
plain_rs=()
expired=$(psql_ -At -c "SELECT count(*) FROM bp_src WHERE v % $STEP = 0")
for rep in $(seq 1 "$REPS"); do
	psql_ -c "CALL reload()"
	for which in $([ $((rep % 2)) -eq 1 ] && echo "ots plain" || echo "plain ots"); do
		prepare
		if [ "$which" = ots ]; then
			before=$(psql_ -At -c 'SELECT count(*) FROM "bp$data"')
			ms=$(time_ms "CALL ots.purge('bp', $BATCH)")
			n=$((before - $(psql_ -At -c 'SELECT count(*) FROM "bp$data"')))
			ots_rs+=("$(echo "$n * 1000 / $ms" | bc)")
			echo "rep $rep: CALL ots.purge   removed $n rows in $ms ms"
		else
			before=$(psql_ -At -c 'SELECT count(*) FROM bp_plain')
			ms=$(time_ms "DELETE FROM bp_plain WHERE ts <= $(cutoff)")
			n=$((before - $(psql_ -At -c 'SELECT count(*) FROM bp_plain')))
			plain_rs+=("$(echo "$n * 1000 / $ms" | bc)")
			echo "rep $rep: DELETE ... WHERE removed $n rows in $ms ms"
		fi
		[ "$n" -eq "$expired" ] || { echo "error: $which removed $n rows, expected $expired" >&2; exit 1; }
	done
done

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
o=$(median "${ots_rs[@]}")
p=$(median "${plain_rs[@]}")
echo
echo "== purge throughput ($ROWS rows, $PCT% = $expired expired, batch_size $BATCH, median of $REPS) =="
printf '| %-38s | %12s |\n' "statement" "rows/s"
printf '| %-38s | %12s |\n' "--------------------------------------" "------------"
printf '| %-38s | %12s |\n' "CALL ots.purge('bp')" "$o"
printf '| %-38s | %12s |\n' "DELETE FROM bp_plain WHERE ts <= cutoff" "$p"
printf '| %-38s | %12s |\n' "ratio ots / plain (target >= 0.5)" "$(echo "scale=2; $o / $p" | bc)"

echo
echo "== candidate lookup of one purge batch on leaf bp\$p0 (EXPLAIN ANALYZE) =="
psql_ -c "CALL reload()"
prepare
psql_ <<EOF
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT ctid, ots.cells_count("\$cells") FROM "bp\$p0"
 WHERE "\$oldest_ts" <= $(cutoff) ORDER BY "\$oldest_ts" LIMIT $BATCH;
EOF

echo "== access counters of one CALL ots.purge('bp') (all 8 leaves) =="
psql_ <<EOF
SELECT pg_stat_reset();
EOF
sleep 1
psql_ -c "CALL ots.purge('bp', $BATCH)"
sleep 1
psql_ <<EOF
SELECT sum(t.seq_scan) AS seq_scans, sum(t.seq_tup_read) AS seq_tup_read,
	   sum(t.n_tup_del) AS rows_deleted, sum(t.n_tup_upd) AS rows_updated
  FROM pg_stat_user_tables t WHERE t.relname LIKE 'bp\$p%';
SELECT CASE WHEN i.indexrelname LIKE '%oldest_ts%' THEN '"\$oldest_ts" (purge candidates)'
			ELSE 'primary key' END AS leaf_indexes,
	   sum(i.idx_scan) AS idx_scans, sum(i.idx_tup_read) AS idx_tup_read
  FROM pg_stat_user_indexes i WHERE i.relname LIKE 'bp\$p%'
 GROUP BY 1 ORDER BY 1;
EOF
