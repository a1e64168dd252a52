#!/usr/bin/env bash
# bench/run.sh — ots vs plain SQL benchmark suite (bench/README.md).
#
# Usage (from anywhere; needs PostgreSQL 15 server binaries, pgbench and an
# installed ots extension, i.e. `make install` done):
#
#     bench/run.sh
#
# It starts a private PostgreSQL 15 instance (unix socket only, port 5498,
# data dir under /tmp, run as user `postgres` when invoked as root), loads
# its own data, runs pgbench (-n -M prepared -c 2 -j 2 -T 2) for each case
# on ots and on the equivalent plain SQL against a plain table
# (k1 text COLLATE "C", k2 bigint, attrs jsonb, PRIMARY KEY (k1, k2)),
# back to back in 9 repetitions (the order flipped every repetition; the
# ratio is the median of the 9 per-repetition ratios), prints ONE
# results table plus machine info, draws the ratios against their targets
# into BENCH_PNG (default ./bench-ratios.png, gnuplot; git ignores it), and
# stops/removes the instance on exit (also on failure).
# About 17 minutes on a 2-core VM before the view_* cases, which take about
# 5 more (292 s run alone, BENCH_ONLY="view_select ... view_copy", 2026-11-26),
# and the stream_* cases about 3.3 more (190-196 s run alone, 2026-11-26).
#
# Environment knobs (defaults in brackets; the targets are only meaningful
# with the defaults):
#   BENCH_T        seconds per pgbench run [2]
#   BENCH_REPS     repetitions of each ots/plain pair [9]
#   BENCH_CLIENTS  pgbench -c [2]      BENCH_JOBS  pgbench -j [2]
#   BENCH_PORT     [5498]
#   BENCH_BIG      rows of the large table [1000000]
#   BENCH_VCOPY    rows view_copy copies into the view [1000000]
#   BENCH_VDEL     rows loaded for view_delete to delete [110000 x T x REPS]
#                  (the case reports an error if they run out)
#   BENCH_SREAD    records stream_read reads [100000]
#   BENCH_SCATCH   records stream_catchup writes, then reads [1000000]
#   BENCH_PRELOAD  shared_preload_libraries [ots] (must name ots: CREATE EXTENSION ots
#                  refuses without it; its shared activity counters are on, as in production)
#   BENCH_PNG      where the picture goes [./bench-ratios.png]
#   BENCH_KEEP=1   leave the instance running at the end (for bench/profile.sh);
#                  stop it with the command printed at the end.
#   BENCH_ONLY     space-separated case ids to run (default: all), e.g.
#                  "get range put" — ids: get range view size ver put upd batch
#                  index (secondary index writes and reads) backfill (an
#                  index built over BENCH_BIG rows); typed view columns and
#                  writable views (issue 21): view_select (a point SELECT of
#                  typed columns, against a plain table with those columns
#                  typed), view_insert, view_update, view_delete (INSERT,
#                  UPDATE of one column, DELETE by key through the view,
#                  against put_row EXPECT_NOT_EXIST, update_row, delete_row on
#                  the same table: their "plain" column is the API call),
#                  view_copy (COPY of BENCH_VCOPY rows into the view, against
#                  COPY into a plain typed table with a primary key; times);
#                  Stream (issue 16): stream_put, stream_update (put_row of
#                  a new key, update_row of one column, on ts, a table with
#                  a stream, against the same call on t, the same table
#                  without one: their "plain" column is t), stream_read (one
#                  session reads the BENCH_SREAD records of as many one-row
#                  transactions, every shard, get_stream_record 1000 at a
#                  time: records/s), stream_catchup (a consumer
#                  BENCH_SCATCH records behind, written by batch_write_row
#                  in transactions of 200 rows, reads them all: records/s);
#                  "load" = load all data, run no case (with BENCH_KEEP=1 for
#                  bench/loop.sh and bench/profile.sh)
#
# The plain baseline table is NOT partitioned (the table a user would otherwise make),
# while ots storage is 8 hash partitions (ots.create_table default) with
# fillfactor 90; the plain table uses the default fillfactor 100.
# autovacuum is off; every write case starts after an untimed VACUUM ANALYZE
# of both tables and a CHECKPOINT.

set -euo pipefail

T=${BENCH_T:-2}
REPS=${BENCH_REPS:-9}
CLIENTS=${BENCH_CLIENTS:-2}
JOBS=${BENCH_JOBS:-2}
PORT=${BENCH_PORT:-5498}
BIG=${BENCH_BIG:-1000000}
ONLY=${BENCH_ONLY:-}
VCOPY=${BENCH_VCOPY:-1000000}   # rows of the view_copy case
# rows the view_delete case may delete: its four runs of a repetition (view
# and API, synchronous_commit on and off) took 57,000 per second of -T on the
# 2-core VM; room for about twice that
VDEL=${BENCH_VDEL:-$((110000 * T * REPS))}
SREAD=${BENCH_SREAD:-100000}    # records of the stream_read case
SCATCH=${BENCH_SCATCH:-1000000} # records of the stream_catchup case
MID=100000          # main table rows
SMALL=10000         # small table rows, and rows of the versions tables
CMDLINE="$0${*:+ $*}"
ENVLINE="BENCH_T=$T BENCH_REPS=$REPS BENCH_CLIENTS=$CLIENTS BENCH_JOBS=$JOBS BENCH_BIG=$BIG BENCH_VCOPY=$VCOPY BENCH_VDEL=$VDEL BENCH_SREAD=$SREAD BENCH_SCATCH=$SCATCH${ONLY:+ BENCH_ONLY=\"$ONLY\"}"
T_START=$(date +%s)

PGBIN=${PGBIN:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}
for b in initdb pg_ctl psql pgbench postgres; do
	[ -x "$PGBIN/$b" ] || { echo "run.sh: $PGBIN/$b not found (set PGBIN)" >&2; exit 1; }
done
PGVER=$("$PGBIN/postgres" --version)
case "$PGVER" in *" 15."*) ;; *) echo "run.sh: need PostgreSQL 15, found: $PGVER" >&2; exit 1 ;; esac

OTS_SO="$("$PGBIN/pg_config" --pkglibdir 2>/dev/null || pg_config --pkglibdir)/ots.so"
[ -f "$OTS_SO" ] || { echo "run.sh: $OTS_SO not found: make install first" >&2; exit 1; }
OTS_SO_INFO="$OTS_SO $(date -u -r "$OTS_SO" '+%F %T UTC'), md5 $(md5sum "$OTS_SO" | cut -c1-12)"
WORK=$(mktemp -d /tmp/ots-bench.XXXXXX)
DATA=$WORK/data
SOCK=$WORK
SCRIPTS=$WORK/scripts
LOGS=$WORK/logs
mkdir -p "$SCRIPTS" "$LOGS"

if [ "$(id -u)" = 0 ]; then
	chown postgres: "$WORK"
	chmod 755 "$WORK"
	as_pg() { runuser -u postgres -- "$@"; }
	DBUSER=postgres
else
	as_pg() { "$@"; }
	DBUSER=$(id -un)
fi

cleanup() {
	local rc=$?
	if [ "${BENCH_KEEP:-0}" = 1 ] && [ $rc = 0 ]; then
		echo
		echo "instance kept: psql -h $SOCK -p $PORT -U $DBUSER bench"
		echo "stop it with:  $( [ "$(id -u)" = 0 ] && echo 'runuser -u postgres -- ')$PGBIN/pg_ctl -D $DATA stop -m fast && rm -rf $WORK"
		return
	fi
	if [ -f "$DATA/postmaster.pid" ]; then
		as_pg "$PGBIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null 2>&1 || true
	fi
	if [ $rc != 0 ]; then
		echo "run.sh: FAILED (rc=$rc); server log tail:" >&2
		tail -n 30 "$WORK/server.log" >&2 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- instance
SETTINGS=(
	"shared_buffers=512MB"
	"shared_preload_libraries='${BENCH_PRELOAD-ots}'"
	"max_connections=20"
	"work_mem=16MB"
	"maintenance_work_mem=256MB"
	"wal_buffers=16MB"
	"max_wal_size=8GB"
	"min_wal_size=1GB"
	"checkpoint_timeout=30min"
	"checkpoint_completion_target=0.9"
	"fsync=on"
	"full_page_writes=on"
	"random_page_cost=1.1"
	"effective_cache_size=4GB"
	"jit=off"
	"max_parallel_workers_per_gather=0"
	"autovacuum=off"
	"track_io_timing=off"
	"listen_addresses=''"
	"port=$PORT"
	"unix_socket_directories='$SOCK'"
	"lc_messages='C'"
	"timezone='UTC'"
)
as_pg "$PGBIN/initdb" -D "$DATA" -U "$DBUSER" --auth=trust -E UTF8 --locale=C >"$LOGS/initdb.log" 2>&1 \
	|| { cat "$LOGS/initdb.log" >&2; exit 1; }
for s in "${SETTINGS[@]}"; do echo "$s" >>"$DATA/postgresql.conf"; done
as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$WORK/server.log" -w -t 60 start >/dev/null

export PGHOST=$SOCK PGPORT=$PORT PGUSER=$DBUSER
unset PGOPTIONS PGDATABASE PGPASSWORD || true
"$PGBIN/psql" -qX -d postgres -c "CREATE DATABASE bench" >/dev/null
export PGDATABASE=bench
PSQL=("$PGBIN/psql" -qXAt -v ON_ERROR_STOP=1)
sql() { "${PSQL[@]}" -c "$1"; }

want() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }
want_data() { want "$1" || want load; }

# ---------------------------------------------------------------- data
# Keys: row i (0-based) of a table has k1 = 'u' || (100000 + i/100),
# k2 = i % 100, so each k1 holds 100 rows and text order = numeric order.
# Attributes (5): a1 string(20), a2 integer (= i), a3 double, a4 bool, a5 string(20).
ATTRS_SQL="jsonb_build_object('a1', 'abcdefghijklmnopqrst', 'a2', i, 'a3', 1.5, 'a4', true, 'a5', 'ABCDEFGHIJKLMNOPQRST')"
ATTRS_LIT='{"a1": "abcdefghijklmnopqrst", "a2": 12345, "a3": 1.5, "a4": true, "a5": "ABCDEFGHIJKLMNOPQRST"}'
# the same with g, the indexed attribute of the index cases: 100 rows per value
ATTRS_G_SQL="$ATTRS_SQL || jsonb_build_object('g', 'g' || (i / 100) % 1000)"

sql "CREATE EXTENSION ots; CREATE EXTENSION pg_prewarm;" >/dev/null

# load_plain NAME ROWS [attributes SQL]
load_plain() {
	sql "CREATE TABLE $1 (k1 text COLLATE \"C\", k2 bigint, attrs jsonb, PRIMARY KEY (k1, k2));
	     INSERT INTO $1 SELECT 'u' || (100000 + i / 100), i % 100, ${3:-$ATTRS_SQL}
	       FROM generate_series(0, $2 - 1) i;"
}

# load_ots NAME ROWS [create_table options [attributes SQL [key SQL]]]: batch_write_row,
# 200 rows a call, non-atomic (as a client would), split across two sessions
# (2 cores).
load_ots() {
	sql "SELECT ots.create_table('$1', 'k1 string, k2 integer'${3:-})" >/dev/null
	fill_ots "$1" "$2" "${4:-$ATTRS_SQL}" "${5:-}"
}
# fill_ots NAME ROWS ATTRS_SQL [KEY_SQL]: the rows i = 0 .. ROWS - 1 into the
# existing ots table NAME, as load_ots does; KEY_SQL is row i's primary key
# (default: k1 'u' || (100000 + i / 100), k2 i % 100)
fill_ots() {
	local name=$1 rows=$2 attrs=$3 key=${4:-}
	[ -n "$key" ] || key="jsonb_build_object('k1', 'u' || (100000 + i / 100), 'k2', i % 100)"
	local calls=$(( (rows + 199) / 200 )) half
	half=$(( calls / 2 ))
	local q="SELECT count(*) FILTER (WHERE NOT b.is_ok) FROM generate_series(@LO@, @HI@) c,
	  LATERAL ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', '$name', 'rows',
	    (SELECT jsonb_agg(jsonb_build_object('type', 'PUT',
	        'primary_key', $key,
	        'attributes', $attrs))
	       FROM generate_series(c * 200, least(c * 200 + 199, $rows - 1)) i)))) b"
	local f1 f2 q1
	f1=$(mktemp "$WORK/load.XXXX"); f2=$(mktemp "$WORK/load.XXXX")
	q1=${q/@LO@/0}; "${PSQL[@]}" -c "${q1/@HI@/$((half - 1))}" >"$f1" &
	local p1=$!
	q1=${q/@LO@/$half}; "${PSQL[@]}" -c "${q1/@HI@/$((calls - 1))}" >"$f2" &
	local p2=$!
	wait $p1; wait $p2
	local bad=$(( $(cat "$f1") + $(cat "$f2") ))
	[ "$bad" = 0 ] || { echo "fill_ots $name: $bad rows failed" >&2; exit 1; }
}

# load_versions NAME NVERSIONS: SMALL rows, 5 attributes, each cell with
# NVERSIONS versions at explicit timestamps; max_versions 100.
load_versions() {
	local name=$1 nv=$2
	sql "SELECT ots.create_table('$name', 'k1 string, k2 integer', max_versions => 100,
	                             max_version_offset => 9223372036854)" >/dev/null
	local per=$(( nv >= 100 ? 20 : 200 ))
	local calls=$(( SMALL / per )) half
	half=$(( calls / 2 ))
	local cell="(SELECT jsonb_agg(jsonb_build_object('value', %VAL%, 'ts', 1600000000000 + v * 1000)) FROM generate_series(1, $nv) v)"
	local a="jsonb_build_object('a1', ${cell//%VAL%/\'abcdefghijklmnopqrst\'}, 'a2', ${cell//%VAL%/i * 1000 + v},
	   'a3', ${cell//%VAL%/1.5}, 'a4', ${cell//%VAL%/true}, 'a5', ${cell//%VAL%/\'ABCDEFGHIJKLMNOPQRST\'})"
	local q="SELECT count(*) FILTER (WHERE NOT b.is_ok) FROM generate_series(@LO@, @HI@) c,
	  LATERAL ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', '$name', 'rows',
	    (SELECT jsonb_agg(jsonb_build_object('type', 'PUT',
	        'primary_key', jsonb_build_object('k1', 'u' || (100000 + i / 100), 'k2', i % 100),
	        'attributes', $a))
	       FROM generate_series(c * $per, c * $per + $per - 1) i)))) b"
	local f1 f2 q1
	f1=$(mktemp "$WORK/load.XXXX"); f2=$(mktemp "$WORK/load.XXXX")
	q1=${q/@LO@/0}; "${PSQL[@]}" -c "${q1/@HI@/$((half - 1))}" >"$f1" &
	local p1=$!
	q1=${q/@LO@/$half}; "${PSQL[@]}" -c "${q1/@HI@/$((calls - 1))}" >"$f2" &
	local p2=$!
	wait $p1; wait $p2
	local bad=$(( $(cat "$f1") + $(cat "$f2") ))
	[ "$bad" = 0 ] || { echo "load_versions $name: $bad rows failed" >&2; exit 1; }
}

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
LOADINFO=()

t0=$(now); load_ots t $MID;           LOADINFO+=("ots t ($MID rows): $(secs $t0 "$(now)") s")
t0=$(now); load_plain plain_t $MID;   LOADINFO+=("plain plain_t ($MID rows): $(secs $t0 "$(now)") s")
if want_data size; then
	t0=$(now); load_ots t4 $SMALL;        LOADINFO+=("ots t4 ($SMALL rows): $(secs $t0 "$(now)") s")
	t0=$(now); load_plain plain4 $SMALL;  LOADINFO+=("plain plain4 ($SMALL rows): $(secs $t0 "$(now)") s")
	t0=$(now); load_ots t6 $BIG;          LOADINFO+=("ots t6 ($BIG rows, batch_write_row x200, 2 sessions): $(secs $t0 "$(now)") s")
	t0=$(now); load_plain plain6 $BIG;    LOADINFO+=("plain plain6 ($BIG rows, INSERT..SELECT): $(secs $t0 "$(now)") s")
fi
if want_data view; then
	# the join reads the 10^4-row tables of the size cases
	if [ -z "$(sql "SELECT to_regclass('t4')")" ]; then
		t0=$(now); load_ots t4 $SMALL;        LOADINFO+=("ots t4 ($SMALL rows): $(secs $t0 "$(now)") s")
	fi
	[ -n "$(sql "SELECT to_regclass('plain4')")" ] || load_plain plain4 $SMALL
fi
if want_data ver; then
	[ -n "$(sql "SELECT to_regclass('plain4')")" ] || load_plain plain4 $SMALL
	for nv in 1 10 100; do
		t0=$(now); load_versions v$nv $nv; LOADINFO+=("ots v$nv ($SMALL rows x 5 cells x $nv versions): $(secs $t0 "$(now)") s")
	done
fi
if want_data index; then
	# secondary index (issue 15): the same rows plus g, 100 rows per value
	# (1000 values); ots: index tw_g on g covering a1, built after the load;
	# plain: a btree on the expression attrs->>'g'
	t0=$(now); load_ots tw $MID ", defined_columns => 'g string, a1 string'" "$ATTRS_G_SQL"
	PGOPTIONS="-c ots.index_build_worker=off" sql "SELECT ots.create_index('tw', 'tw_g', '{g}', '{a1}')" >/dev/null
	sql "CALL ots.build_index('tw', 'tw_g')"
	LOADINFO+=("ots tw ($MID rows, then index tw_g built): $(secs $t0 "$(now)") s")
	t0=$(now); load_plain pw $MID "$ATTRS_G_SQL"; sql "CREATE INDEX pw_g ON pw ((attrs->>'g'))"
	LOADINFO+=("plain pw ($MID rows, then index on attrs->>'g'): $(secs $t0 "$(now)") s")
fi
# Stream (issue 16): ts, the rows of t in a table with a stream (loading
# them writes their records, in 2 transactions); the put and update cases
# compare it with t
if want_data stream_put || want_data stream_update; then
	t0=$(now); load_ots ts $MID ", stream_enabled => true"
	LOADINFO+=("ots ts ($MID rows, stream enabled): $(secs $t0 "$(now)") s")
fi
# typed view columns and writable views (issue 21): tv, the same rows as t
# with the 5 attributes as defined columns (typed columns of its view), and
# pv, a plain table with those columns typed; tvd holds the rows the
# view_delete case deletes (k1 'd' || i, k2 0, i = 0 .. VDEL - 1), taken in
# order from one sequence by both sides, so every transaction deletes a row
VIEW_DEFS="a1 string, a2 integer, a3 double, a4 boolean, a5 string"
VIEW_PLAIN="(k1 text COLLATE \"C\", k2 bigint, a1 text, a2 bigint, a3 double precision, a4 boolean, a5 text,
	PRIMARY KEY (k1, k2))"
VIEW_CASES="view_select view_insert view_update view_delete view_copy"
want_view() { local c; for c in $VIEW_CASES; do want_data "$c" && return 0; done; return 1; }
# load_view: the tables of the view cases that are not there yet, then
# VACUUM ANALYZE and pg_prewarm of tv and pv.  Called just before those
# cases (and here for BENCH_ONLY=load, which runs none), so that tvd (about
# 0.5 GB at the default BENCH_VDEL) does not take shared_buffers from the
# cases that run before.
load_view() {
	local loaded=
	if want_data view_delete && [ -z "$(sql "SELECT to_regclass('tvd')")" ]; then
		t0=$(now); load_ots tvd $VDEL ", defined_columns => '$VIEW_DEFS'" "$ATTRS_SQL" \
			"jsonb_build_object('k1', 'd' || i, 'k2', 0)"
		LOADINFO+=("ots tvd ($VDEL rows to delete, before the view cases): $(secs $t0 "$(now)") s")
		loaded=1
	fi
	if [ -z "$(sql "SELECT to_regclass('tv')")" ]; then
		t0=$(now); load_ots tv $MID ", defined_columns => '$VIEW_DEFS'"
		LOADINFO+=("ots tv ($MID rows, 5 defined columns, before the view cases): $(secs $t0 "$(now)") s")
		t0=$(now); sql "CREATE TABLE pv $VIEW_PLAIN;
		     INSERT INTO pv SELECT 'u' || (100000 + i / 100), i % 100, 'abcdefghijklmnopqrst', i, 1.5, true,
		       'ABCDEFGHIJKLMNOPQRST' FROM generate_series(0, $MID - 1) i"
		LOADINFO+=("plain pv ($MID rows, typed columns, before the view cases): $(secs $t0 "$(now)") s")
		loaded=1
	fi
	[ -n "$loaded" ] || return 0
	sql "VACUUM ANALYZE pv, \"tv\$data\"$(want_data view_delete && echo ', "tvd$data"')"
	sql "SELECT count(pg_prewarm(c.oid)) FROM pg_class c
	     WHERE c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = '\"tv\$data\"'::regclass)
	        OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid IN (SELECT inhrelid FROM pg_inherits
	                     WHERE inhparent = '\"tv\$data\"'::regclass) OR indrelid = 'pv'::regclass)
	        OR c.oid = 'pv'::regclass" >/dev/null
}
if [[ " $ONLY " == *" load "* ]]; then load_view; fi
sql "CREATE SEQUENCE vins_seq; CREATE SEQUENCE vdel_seq MINVALUE 0 START 0;"
sql "CREATE SEQUENCE put_seq; CREATE SEQUENCE put_seq_plain;
     CREATE SEQUENCE batch_seq; CREATE SEQUENCE batch_seq_plain;
     CREATE SEQUENCE iput_seq; CREATE SEQUENCE iput_seq_plain;
     CREATE SEQUENCE sput_seq; CREATE SEQUENCE sread_seq; CREATE SEQUENCE scatch_seq;"
t0=$(now)
"$PGBIN/vacuumdb" -q -z -d bench
sql "CHECKPOINT"
LOADINFO+=("VACUUM ANALYZE + CHECKPOINT: $(secs $t0 "$(now)") s")

# storage: same 10^5 rows with 5 attributes, after VACUUM
OTS_BYTES=$(sql "SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits WHERE inhparent = '\"t\$data\"'::regclass")
PLAIN_BYTES=$(sql "SELECT pg_total_relation_size('plain_t')")
OTS_HEAP=$(sql "SELECT sum(pg_relation_size(inhrelid)) FROM pg_inherits WHERE inhparent = '\"t\$data\"'::regclass")
PLAIN_HEAP=$(sql "SELECT pg_relation_size('plain_t')")

# prewarm every table and index into shared_buffers
sql "SELECT count(pg_prewarm(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i', 't')
        OR c.oid IN (SELECT reltoastrelid FROM pg_class WHERE relnamespace = 'public'::regnamespace)" >/dev/null

# ---------------------------------------------------------------- pgbench scripts
# pk of row :i of a table: k1 = 'u' || (100000 + i/100), k2 = i % 100
mk() { cat >"$SCRIPTS/$1.sql"; }
keyvars() {   # keyvars ROWS [margin]
	cat <<EOF
\\set i random(0, $1 - 1 - ${2:-0})
\\set ka 100000 + :i / 100
\\set kb :i % 100
EOF
}
# ots calls get their key as JSON text cast to jsonb: what a client passing the
# key as a parameter costs the server (jsonb_in), plus the concatenation that
# pgbench, which has no string variables, needs to build the text; building it
# with jsonb_build_object instead costs about 6.5k instructions more a call
KEY="('{\"k1\": \"u' || :ka || '\", \"k2\": ' || :kb || '}')::jsonb"
for n in $SMALL $MID $BIG; do
	case $n in "$SMALL") o=t4 p=plain4 ;; "$MID") o=t p=plain_t ;; *) o=t6 p=plain6 ;; esac
	{ keyvars $n; echo "SELECT ots.get_row('$o', $KEY);"; } | mk ots_get_$o
	{ keyvars $n; echo "SELECT k1, k2, attrs FROM $p WHERE k1 = 'u' || :ka AND k2 = :kb::int8;"; } | mk plain_get_$p
done
for nv in 1 10 100; do
	{ keyvars $SMALL; echo "SELECT ots.get_row('v$nv', $KEY);"; } | mk ots_get_v$nv
done
{ keyvars $MID 100; echo "SELECT ots.get_range('t', $KEY,
  '{\"k1\": {\"\$inf\": \"max\"}, \"k2\": {\"\$inf\": \"max\"}}', 'FORWARD', 100);"; } | mk ots_range
{ keyvars $MID 100; echo "SELECT jsonb_agg(jsonb_build_object('primary_key', jsonb_build_object('k1', k1, 'k2', k2), 'attributes', attrs))
  FROM (SELECT k1, k2, attrs FROM plain_t WHERE (k1, k2) >= ('u' || :ka, :kb::int8) ORDER BY k1, k2 LIMIT 100) s;"; } | mk plain_range
{ keyvars $MID 100; echo "SELECT * FROM ots.get_range_rows('t', $KEY,
  '{\"k1\": {\"\$inf\": \"max\"}, \"k2\": {\"\$inf\": \"max\"}}', 'FORWARD', 100);"; } | mk ots_range_rows
{ keyvars $MID 100; echo "SELECT k1, k2, attrs FROM plain_t WHERE (k1, k2) >= ('u' || :ka, :kb::int8) ORDER BY k1, k2 LIMIT 100;"; } | mk plain_range_rows
# SQL over the views (issue 14): the same statements a user writes on a plain table
{ keyvars $MID; echo "SELECT attributes FROM t WHERE k1 = 'u' || :ka AND k2 = :kb::int8;"; } | mk ots_vget
{ keyvars $MID; echo "SELECT attrs FROM plain_t WHERE k1 = 'u' || :ka AND k2 = :kb::int8;"; } | mk plain_vget
{ keyvars $MID; echo "SELECT k1, k2, attributes FROM t WHERE k1 = 'u' || :ka ORDER BY k2 LIMIT 100;"; } | mk ots_vrange
{ keyvars $MID; echo "SELECT k1, k2, attrs FROM plain_t WHERE k1 = 'u' || :ka ORDER BY k2 LIMIT 100;"; } | mk plain_vrange
echo "SELECT count(*), sum((attributes->>'a2')::int8) FROM t WHERE attributes->>'a1' = 'abcdefghijklmnopqrst';" | mk ots_vscan
echo "SELECT count(*), sum((attrs->>'a2')::int8) FROM plain_t WHERE attrs->>'a1' = 'abcdefghijklmnopqrst';" | mk plain_vscan
# a JOIN of two tables on their keys: the 100 rows of one partition key of t4 with their rows in t
{ keyvars $SMALL; echo "SELECT a.k2, a.attributes->>'a1', b.attributes->>'a2' FROM t4 a JOIN t b ON b.k1 = a.k1 AND b.k2 = a.k2 WHERE a.k1 = 'u' || :ka;"; } | mk ots_vjoin
{ keyvars $SMALL; echo "SELECT a.k2, a.attrs->>'a1', b.attrs->>'a2' FROM plain4 a JOIN plain_t b ON b.k1 = a.k1 AND b.k2 = a.k2 WHERE a.k1 = 'u' || :ka;"; } | mk plain_vjoin
mk ots_put <<EOF
\\set a random(0, 999)
SELECT ots.put_row('t', ('{"k1": "n' || :a || '", "k2": ' || nextval('put_seq') || '}')::jsonb, '$ATTRS_LIT');
EOF
mk plain_put <<EOF
\\set a random(0, 999)
INSERT INTO plain_t VALUES ('n' || :a, nextval('put_seq_plain'), '$ATTRS_LIT');
EOF
{ keyvars $MID; echo '\set v random(1, 1000000000)'
  echo "SELECT ots.update_row('t', $KEY, jsonb_build_object('a2', :v::int8));"; } | mk ots_upd
{ keyvars $MID; echo '\set v random(1, 1000000000)'
  echo "UPDATE plain_t SET attrs = attrs || jsonb_build_object('a2', :v::int8) WHERE k1 = 'u' || :ka AND k2 = :kb::int8;"; } | mk plain_upd
# the request is built as JSON text and cast once (what a client sending the
# request as a parameter costs the server: one jsonb parse), ~2x cheaper than
# jsonb_agg(jsonb_build_object(..)) in SQL
mk ots_batch <<EOF
SELECT count(*) FROM ots.batch_write_row(('[{"table_name": "t", "rows": [' || (SELECT string_agg(
  '{"type": "PUT", "primary_key": {"k1": "b' || g % 1000 || '", "k2": ' || nextval('batch_seq') || '}, "attributes": $ATTRS_LIT}', ',')
  FROM generate_series(1, 200) g) || ']}]')::jsonb);
EOF
# the plain side gets the same 200-row JSON request and inserts its rows: both
# sides pay for building and parsing the payload, so the ratio is ots's own cost
mk plain_batch <<EOF
INSERT INTO plain_t SELECT r->'primary_key'->>'k1', (r->'primary_key'->>'k2')::int8, r->'attributes'
  FROM jsonb_array_elements(('[' || (SELECT string_agg(
  '{"type": "PUT", "primary_key": {"k1": "b' || g % 1000 || '", "k2": ' || nextval('batch_seq_plain') || '}, "attributes": $ATTRS_LIT}', ',')
  FROM generate_series(1, 200) g) || ']')::jsonb) r;
EOF

# secondary index (issue 15): writes of the indexed column g, reads by its value
mk ots_iput <<EOF2
\\set a random(0, 999)
\\set v random(0, 999)
SELECT ots.put_row('tw', ('{"k1": "n' || :a || '", "k2": ' || nextval('iput_seq') || '}')::jsonb,
  ('{"a1": "abcdefghijklmnopqrst", "a2": 12345, "a3": 1.5, "a4": true, "a5": "ABCDEFGHIJKLMNOPQRST", "g": "g' || :v || '"}')::jsonb);
EOF2
mk plain_iput <<EOF2
\\set a random(0, 999)
\\set v random(0, 999)
INSERT INTO pw VALUES ('n' || :a, nextval('iput_seq_plain'),
  ('{"a1": "abcdefghijklmnopqrst", "a2": 12345, "a3": 1.5, "a4": true, "a5": "ABCDEFGHIJKLMNOPQRST", "g": "g' || :v || '"}')::jsonb);
EOF2
{ keyvars $MID; echo '\set v random(0, 999)'
  echo "SELECT ots.update_row('tw', $KEY, jsonb_build_object('g', 'g' || :v));"; } | mk ots_iupd
{ keyvars $MID; echo '\set v random(0, 999)'
  echo "UPDATE pw SET attrs = attrs || jsonb_build_object('g', 'g' || :v) WHERE k1 = 'u' || :ka AND k2 = :kb::int8;"; } | mk plain_iupd
# by the index's key: ots reads the index (its entries hold k1, k2 and a1),
# plain its expression index and the rows it points to
IRANGE="('{\"g\": \"g' || :v || '\", \"k1\": {\"\$inf\": \"min\"}, \"k2\": {\"\$inf\": \"min\"}}')::jsonb,
  ('{\"g\": \"g' || :v || '\", \"k1\": {\"\$inf\": \"max\"}, \"k2\": {\"\$inf\": \"max\"}}')::jsonb"
for n in 1 100; do
	{ echo '\set v random(0, 999)'
	  echo "SELECT * FROM ots.get_range_rows('tw_g', $IRANGE, 'FORWARD', $n);"; } | mk ots_iget$n
	{ echo '\set v random(0, 999)'
	  echo "SELECT k1, k2, attrs->>'a1' FROM pw WHERE attrs->>'g' = 'g' || :v LIMIT $n;"; } | mk plain_iget$n
done
# the same reads in plain SQL on the index's view (its key fixed: the ots key scan)
for n in 1 100; do
	{ echo '\set v random(0, 999)'
	  echo "SELECT k1, k2, attributes->>'a1' FROM tw_g WHERE g = 'g' || :v LIMIT $n;"; } | mk ots_ivget$n
done
# plain SQL on the table's view by the indexed attribute, planned through the index
{ echo '\set v random(0, 999)'
  echo "SELECT k1, k2, attributes->>'a1' FROM tw WHERE attributes->>'g' = 'g' || :v;"; } | mk ots_isql
{ echo '\set v random(0, 999)'
  echo "SELECT k1, k2, attrs->>'a1' FROM pw WHERE attrs->>'g' = 'g' || :v;"; } | mk plain_isql

# typed view columns and writable views (issue 21): SQL through the view of
# tv against the same SQL on the plain typed table pv (reads), or against the
# row API's call on tv itself (writes: its "plain" side is api_*)
VCOLS="a1, a2, a3, a4, a5"
{ keyvars $MID; echo "SELECT $VCOLS FROM tv WHERE k1 = 'u' || :ka AND k2 = :kb::int8;"; } | mk ots_vsel
{ keyvars $MID; echo "SELECT $VCOLS FROM pv WHERE k1 = 'u' || :ka AND k2 = :kb::int8;"; } | mk plain_vsel
# INSERT is a put_row with EXPECT_NOT_EXIST: new keys as the put case makes
# them, k2 from one sequence for both sides
mk ots_vins <<EOF
\\set a random(0, 999)
INSERT INTO tv (k1, k2, $VCOLS) VALUES ('n' || :a, nextval('vins_seq'),
  'abcdefghijklmnopqrst', 12345, 1.5, true, 'ABCDEFGHIJKLMNOPQRST');
EOF
mk api_vins <<EOF
\\set a random(0, 999)
SELECT ots.put_row('tv', ('{"k1": "n' || :a || '", "k2": ' || nextval('vins_seq') || '}')::jsonb,
  '$ATTRS_LIT', 'EXPECT_NOT_EXIST');
EOF
{ keyvars $MID; echo '\set v random(1, 1000000000)'
  echo "UPDATE tv SET a2 = :v::int8 WHERE k1 = 'u' || :ka AND k2 = :kb::int8;"; } | mk ots_vupd
{ keyvars $MID; echo '\set v random(1, 1000000000)'
  echo "SELECT ots.update_row('tv', $KEY, jsonb_build_object('a2', :v::int8));"; } | mk api_vupd
# the next row of tvd: its number from the sequence first (\gset, one more
# statement on both sides), so that the DELETE gets its key as parameters,
# as a client's DELETE ... WHERE k1 = $1 AND k2 = $2 does
VNEXT="SELECT nextval('vdel_seq') AS i \\gset"
printf '%s\n' "$VNEXT" "DELETE FROM tvd WHERE k1 = 'd' || :i AND k2 = 0;" | mk ots_vdel
printf '%s\n' "$VNEXT" "SELECT ots.delete_row('tvd', ('{\"k1\": \"d' || :i || '\", \"k2\": 0}')::jsonb);" | mk api_vdel

# Stream (issue 16): the put and update cases on ts, the same calls as
# ots_put and ots_upd on t (new keys from their own sequence, as ots_put's)
mk ots_sput <<EOF
\\set a random(0, 999)
SELECT ots.put_row('ts', ('{"k1": "n' || :a || '", "k2": ' || nextval('sput_seq') || '}')::jsonb, '$ATTRS_LIT');
EOF
{ keyvars $MID; echo '\set v random(1, 1000000000)'
  echo "SELECT ots.update_row('ts', $KEY, jsonb_build_object('a2', :v::int8));"; } | mk ots_supd
# the writers of the read cases: one-row transactions (put_row of a new key)
# into tsr, transactions of 200 rows (batch_write_row of new keys) into tsc
mk sread_put <<EOF
SELECT ots.put_row('tsr', ('{"k1": "r' || nextval('sread_seq') % 1000 || '", "k2": ' || currval('sread_seq') || '}')::jsonb, '$ATTRS_LIT');
EOF
mk scatch_batch <<EOF
SELECT count(*) FROM ots.batch_write_row(('[{"table_name": "tsc", "rows": [' || (SELECT string_agg(
  '{"type": "PUT", "primary_key": {"k1": "c' || g % 1000 || '", "k2": ' || nextval('scatch_seq') || '}, "attributes": $ATTRS_LIT}', ',')
  FROM generate_series(1, 200) g) || ']}]')::jsonb);
EOF
# a consumer in one session: every shard of the table's stream from its
# oldest record, get_stream_record LIM records at a time, following
# next_shard_iterator until a call returns none; returns the records read
sql 'CREATE FUNCTION bench_stream_read(tab text, lim integer) RETURNS bigint LANGUAGE plpgsql AS $f$
DECLARE
	sid text;
	shard jsonb;
	it text;
	r jsonb;
	k integer;
	n bigint := 0;
BEGIN
	SELECT l.stream_id INTO sid FROM ots.list_stream(tab) l;
	FOR shard IN SELECT jsonb_array_elements(ots.describe_stream(sid)->$$shards$$) LOOP
		it := ots.get_shard_iterator(sid, shard->>$$shard_id$$);
		LOOP
			r := ots.get_stream_record(it, lim);
			k := jsonb_array_length(r->$$stream_records$$);
			EXIT WHEN k = 0;
			n := n + k;
			it := r->>$$next_shard_iterator$$;
		END LOOP;
	END LOOP;
	RETURN n;
END
$f$'

# ---------------------------------------------------------------- runner
# pgb SCRIPT SYNC -> prints tps (or ERR)
pgb() {
	local log=$LOGS/$1.$RANDOM.log
	if PGOPTIONS="-c synchronous_commit=$2" "$PGBIN/pgbench" -n -M prepared -c "$CLIENTS" -j "$JOBS" -T "$T" \
		-f "$SCRIPTS/$1.sql" >"$log" 2>&1 && grep -q '^tps = ' "$log"; then
		awk '/^tps = / { print $3; exit }' "$log"
	else
		echo "$1 (sync=$2): $(grep -m3 -iE 'error|abort' "$log" | tr '\n' ' ')" >>"$WORK/errors"
		echo ERR
	fi
}
# median [-f FORMAT] VALUE...: the median of the values that are not ERR
median() {
	local fmt=%.1f
	if [ "$1" = -f ]; then fmt=$2; shift 2; fi
	printf '%s\n' "$@" | grep -v ERR | sort -g | awk -v f="$fmt\n" '{ a[NR] = $1 } END {
	if (NR == 0) print "ERR"; else if (NR % 2) printf f, a[(NR + 1) / 2]; else printf f, (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

declare -A OTS_TPS PLAIN_TPS RATIO RAW
# pair ID OTS_SCRIPT PLAIN_SCRIPT SYNC: REPS back-to-back ots/plain runs (order
# flipped every repetition); the case's ratio is the median of the REPS
# per-repetition ratios, so load drift on the shared machine, which moves
# both runs of a repetition alike, cancels; tps columns are medians per side
pair() {
	local id=$1 o=$2 p=$3 sync=$4 os=() ps=() rs=() r x y
	for ((r = 1; r <= REPS; r++)); do
		if ((r % 2)); then x=$(pgb "$o" "$sync"); y=$(pgb "$p" "$sync")
		else y=$(pgb "$p" "$sync"); x=$(pgb "$o" "$sync"); fi
		os+=("$x"); ps+=("$y"); rs+=("$(ratio3 "$x" "$y")")
	done
	OTS_TPS[$id]=$(median "${os[@]}"); PLAIN_TPS[$id]=$(median "${ps[@]}")
	RATIO[$id]=$(median -f %.2f "${rs[@]}")
	RAW[$id]="ots ${os[*]} / plain ${ps[*]} / ratios ${rs[*]}"
	printf '  %-28s ots %-30s plain %-30s ratios %s\n' "$id" "${os[*]}" "${ps[*]}" "${rs[*]}" >&2
}
ratio3() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "ERR" || b == "ERR" || b + 0 == 0) print "ERR"; else printf "%.3f", a / b }'; }

echo "running cases (T=${T}s, reps=$REPS, -c $CLIENTS -j $JOBS) ..." >&2
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
T_BENCH=$(now)
want get   && pair "get_row latest"            ots_get_t      plain_get_plain_t on
want range && pair "get_range 100"             ots_range      plain_range       on
want range && pair "get_range_rows 100"        ots_range_rows plain_range_rows  on
want view  && pair "view: point"               ots_vget       plain_vget        on
want view  && pair "view: range 100"           ots_vrange     plain_vrange      on
want view  && pair "view: scan + aggregate"    ots_vscan      plain_vscan       on
want view  && pair "view: join 100 on keys"    ots_vjoin      plain_vjoin       on
if want size; then
	pair "get_row 1e4 rows"  ots_get_t4 plain_get_plain4 on
	OTS_TPS["get_row 1e5 rows"]=${OTS_TPS["get_row latest"]:-}
	PLAIN_TPS["get_row 1e5 rows"]=${PLAIN_TPS["get_row latest"]:-}
	RATIO["get_row 1e5 rows"]=${RATIO["get_row latest"]:-}
	[ -n "${OTS_TPS["get_row 1e5 rows"]}" ] || pair "get_row 1e5 rows" ots_get_t plain_get_plain_t on
	pair "get_row 1e6 rows"  ots_get_t6 plain_get_plain6 on
fi
if want ver; then
	for nv in 1 10 100; do pair "get_row $nv versions" ots_get_v$nv plain_get_plain4 on; done
fi
# settle: before a write case, untimed, VACUUM ANALYZE what the write cases
# change and CHECKPOINT, so both sides start from the same state (autovacuum
# is off: a worker that starts on one side's table during a 2-s run takes a
# core of two from that side only)
settle() { sql 'VACUUM ANALYZE "t$data", plain_t' && sql "CHECKPOINT"; }
for s in on off; do
	want put   && settle && pair "put_row sync=$s"     ots_put   plain_put   $s
	want upd   && settle && pair "update_row sync=$s"  ots_upd   plain_upd   $s
	want batch && settle && pair "batch 200 sync=$s"   ots_batch plain_batch $s
done
# secondary index (issue 15): reads by the index's key, then writes of the
# indexed column, each side keeping its index
want index && pair "index: get_range_rows 1 by key"   ots_iget1    plain_iget1   on
want index && pair "index: get_range_rows 100 by key" ots_iget100  plain_iget100 on
want index && pair "index: SQL on index, 1 row"       ots_ivget1   plain_iget1   on
want index && pair "index: SQL on index, 100 rows"    ots_ivget100 plain_iget100 on
want index && pair "index: SQL on table by attribute" ots_isql     plain_isql    on
settle_index() { sql 'VACUUM ANALYZE "tw$data", "tw_g$data", pw' && sql "CHECKPOINT"; }
want index && settle_index && pair "index: put_row"          ots_iput plain_iput on
want index && settle_index && pair "index: update_row of g"  ots_iupd plain_iupd on
# backfill: an index on a2 of a BIG-row table (its own copy, loaded here),
# built by CALL ots.build_index, against CREATE INDEX on the expression
# (attrs->>'a2')::bigint of the plain one (PostgreSQL's default
# max_parallel_maintenance_workers applies)
BF_OTS= BF_PLAIN=
if want backfill; then
	[ -n "$(sql "SELECT to_regclass('t6')")" ] || load_ots t6 $BIG
	[ -n "$(sql "SELECT to_regclass('plain6')")" ] || load_plain plain6 $BIG
	sql 'VACUUM ANALYZE "t6$data", plain6' >/dev/null
	sql "SELECT ots.add_defined_column('t6', 'a2 integer')" >/dev/null
	PGOPTIONS="-c ots.index_build_worker=off" sql "SELECT ots.create_index('t6', 't6_a2', '{a2}')" >/dev/null
	sql "CHECKPOINT"
	t0=$(now); sql "CALL ots.build_index('t6', 't6_a2')"; BF_OTS=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
	sql "CHECKPOINT"
	t0=$(now); sql "CREATE INDEX plain6_a2 ON plain6 (((attrs->>'a2')::bigint))"
	BF_PLAIN=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
	echo "  index backfill of $BIG rows: ots ${BF_OTS} s, plain CREATE INDEX ${BF_PLAIN} s" >&2
fi
# typed view columns and writable views (issue 21): the point read first
# (tv then holds the rows pv holds), then the writes, each after an untimed
# VACUUM ANALYZE and CHECKPOINT like the other write cases
settle_view() { sql "VACUUM ANALYZE \"tv\$data\"$(want view_delete && echo ', "tvd$data"')" && sql "CHECKPOINT"; }
want_view && load_view && sql "CHECKPOINT"
want view_select && pair "view_select" ots_vsel plain_vsel on
for s in on off; do
	want view_insert && settle_view && pair "view_insert sync=$s" ots_vins api_vins $s
	want view_update && settle_view && pair "view_update sync=$s" ots_vupd api_vupd $s
	if want view_delete; then
		settle_view && pair "view_delete sync=$s" ots_vdel api_vdel $s
		# a transaction past the last row would delete nothing
		if [ "$(sql "SELECT last_value >= $VDEL FROM vdel_seq")" = t ]; then
			echo "view_delete sync=$s: the $VDEL rows of tvd ran out (raise BENCH_VDEL)" >>"$WORK/errors"
			RATIO["view_delete sync=$s"]=ERR
		fi
	fi
done
# COPY of VCOPY rows into the view of an empty ots table (each row the
# INSERT above) against COPY into an empty plain table with the same typed
# columns and primary key; one run each, from the same server-side file
VC_OTS= VC_PLAIN=
if want view_copy; then
	sql "SELECT ots.create_table('tvc', 'k1 string, k2 integer', defined_columns => '$VIEW_DEFS')" >/dev/null
	sql "CREATE TABLE pvc $VIEW_PLAIN"
	sql "COPY (SELECT 'u' || (100000 + i / 100), i % 100, 'abcdefghijklmnopqrst', i, 1.5, true,
	       'ABCDEFGHIJKLMNOPQRST' FROM generate_series(0, $VCOPY - 1) i) TO '$WORK/vcopy.dat'"
	sql "CHECKPOINT"
	t0=$(now); sql "COPY tvc (k1, k2, $VCOLS) FROM '$WORK/vcopy.dat'"
	VC_OTS=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
	sql "CHECKPOINT"
	t0=$(now); sql "COPY pvc (k1, k2, $VCOLS) FROM '$WORK/vcopy.dat'"
	VC_PLAIN=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
	rm -f "$WORK/vcopy.dat"
	echo "  COPY of $VCOPY rows: into the view ${VC_OTS} s, into the plain table ${VC_PLAIN} s" >&2
fi
# Stream (issue 16): put_row and update_row on ts (a stream) against the
# same calls on t (none), each after an untimed VACUUM ANALYZE of both
# tables and the stream's relations and a CHECKPOINT
settle_stream() { sql 'VACUUM ANALYZE "t$data", "ts$data", "ts$rec", "ts$log"' && sql "CHECKPOINT"; }
for s in on off; do
	want stream_put    && settle_stream && pair "stream_put sync=$s"    ots_sput ots_put $s
	want stream_update && settle_stream && pair "stream_update sync=$s" ots_supd ots_upd $s
done
# stream_read, stream_catchup: a table with a stream, its records written
# by pgbench (CLIENTS sessions, synchronous_commit off), then read by one
# session (bench_stream_read, 1000 records a call) SREADS times: the first
# read is the consumer's catching up (hint bits of the new rows not set
# yet), the others read the same records again.  Records/s of each read.
SREADS=3
declare -A SRATE SFIRST
# stream_reads ID TABLE RECORDS WRITER ROWS_PER_TXN
stream_reads() {
	local id=$1 tab=$2 recs=$3 writer=$4 per=$5 t0 w n rates=() el
	recs=$(( recs / per / CLIENTS * per * CLIENTS ))   # whole transactions per session
	sql "SELECT ots.create_table('$tab', 'k1 string, k2 integer', stream_enabled => true)" >/dev/null
	sql "CHECKPOINT"
	t0=$(now)
	PGOPTIONS="-c synchronous_commit=off" "$PGBIN/pgbench" -n -M prepared -c "$CLIENTS" -j "$JOBS" \
		-t $(( recs / per / CLIENTS )) -f "$SCRIPTS/$writer.sql" >"$LOGS/$writer.log" 2>&1 \
		|| { echo "$id: writing failed: $(grep -m3 -iE 'error|abort' "$LOGS/$writer.log" | tr '\n' ' ')" >>"$WORK/errors"; return 0; }
	w=$(awk -v a="$t0" -v b="$(now)" -v n="$recs" 'BEGIN { printf "%.0f", n / (b - a) }')
	LOADINFO+=("ots $tab ($recs records, $((recs / per)) transactions of $per rows, $CLIENTS sessions): $(secs $t0 "$(now)") s, $w records/s written")
	sql "CHECKPOINT"
	for ((i = 1; i <= SREADS; i++)); do
		t0=$(now)
		n=$(sql "SELECT bench_stream_read('$tab', 1000)")
		el=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
		if [ "$n" != "$recs" ]; then
			echo "$id: read $n records of the $recs written" >>"$WORK/errors"
			return 0
		fi
		rates+=("$(awk -v n="$n" -v e="$el" 'BEGIN { printf "%.0f", n / e }')")
	done
	SFIRST[$id]=${rates[0]}
	SRATE[$id]=$(median -f %.0f "${rates[@]}")
	RAW[$id]="records/s of the $SREADS reads of $recs records: ${rates[*]}"
	printf '  %-28s records/s %s\n' "$id" "${rates[*]}" >&2
}
want stream_read    && stream_reads stream_read    tsr "$SREAD"  sread_put    1
want stream_catchup && stream_reads stream_catchup tsc "$SCATCH" scatch_batch 200
T_BENCH_END=$(now)

# ---------------------------------------------------------------- report
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "ERR" || b == "ERR" || a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }
met_ge() { awk -v r="$1" -v t="$2" 'BEGIN { if (r == "-") print "?"; else print (r + 0 >= t ? "yes" : "NO") }'; }
spread() { printf '%s\n' "$@" | awk '$1 != "ERR" && $1 != "" { n++; if (n == 1 || $1 > mx) mx = $1; if (n == 1 || $1 < mn) mn = $1 }
	END { if (n < 2 || mx == 0) print "-"; else printf "%.1f%%", 100 * (mx - mn) / mx }'; }

ROWS=()
row() { ROWS+=("$1|$2|$3|$4|$5|$6"); }
caserow() {   # caserow ID TARGET
	[ -n "${OTS_TPS[$1]:-}" ] || return 0
	local r=${RATIO[$1]:-}
	[ "$r" != ERR ] || r=-
	if [ "$2" = info ]; then row "$1" "${OTS_TPS[$1]}" "${PLAIN_TPS[$1]}" "$r" "(none)" "-"; return 0; fi
	row "$1" "${OTS_TPS[$1]}" "${PLAIN_TPS[$1]}" "$r" ">= $2" "$(met_ge "$r" "$2")"
}
# flatrow NAME CASE... : spread (max-min)/max of ots tps, of plain tps, and of
# the ots/plain ratios (each ratio is measured interleaved, so it cancels most
# of the machine's load drift); met? is given for both raw and normalized
flatrow() {
	local name=$1 c o=() p=() r=() sp psp rsp
	shift
	for c in "$@"; do
		o+=("${OTS_TPS[$c]:-ERR}"); p+=("${PLAIN_TPS[$c]:-ERR}")
		r+=("${RATIO[$c]:-ERR}")
	done
	sp=$(spread "${o[@]}"); psp=$(spread "${p[@]}"); rsp=$(spread "${r[@]}")
	row "$name" "$sp" "$psp" "$rsp (of ratios)" "ots <= 20%" \
		"raw $(flatmet "$sp"), ratio $(flatmet "$rsp")"
}
flatmet() { awk -v s="${1%\%}" 'BEGIN { print (s == "-" ? "?" : (s + 0 <= 20 ? "yes" : "NO")) }'; }
caserow "get_row latest" 0.9
for s in on off; do caserow "put_row sync=$s" 0.9; done
for s in on off; do caserow "update_row sync=$s" 0.9; done
caserow "get_range 100" 0.8
caserow "get_range_rows 100" 0.8
caserow "view: point" 0.8
caserow "view: range 100" 0.8
caserow "view: scan + aggregate" 0.6
caserow "view: join 100 on keys" 0.6
for s in on off; do caserow "batch 200 sync=$s" 0.8; done
caserow "index: put_row" 0.8
caserow "index: update_row of g" 0.8
caserow "index: SQL on index, 1 row" 0.8
caserow "index: SQL on index, 100 rows" 0.8
caserow "index: get_range_rows 1 by key" 0.8
caserow "index: get_range_rows 100 by key" 0.8
caserow "index: SQL on table by attribute" info
if [ -n "$BF_OTS" ]; then
	# a time, not a rate: the ratio is plain's time over ots's, so higher is better here too
	bfr=$(ratio "$BF_PLAIN" "$BF_OTS")
	row "index: backfill $BIG rows" "$BF_OTS s" "$BF_PLAIN s" "$bfr" ">= 0.5" "$(met_ge "$bfr" 0.5)"
fi
caserow "view_select" 0.8
for s in on off; do caserow "view_insert sync=$s" 0.8; done
for s in on off; do caserow "view_update sync=$s" 0.8; done
for s in on off; do caserow "view_delete sync=$s" 0.8; done
if [ -n "$VC_OTS" ]; then
	# times, as the backfill's: plain's time over the view's
	vcr=$(ratio "$VC_PLAIN" "$VC_OTS")
	row "view_copy $VCOPY rows" "$VC_OTS s" "$VC_PLAIN s" "$vcr" ">= 0.5" "$(met_ge "$vcr" 0.5)"
fi
for s in on off; do caserow "stream_put sync=$s" 0.7; done
for s in on off; do caserow "stream_update sync=$s" 0.7; done
# the read cases: records/s, against 50,000; in the picture as a bar of
# records/s / 50,000 against 1
STREAM_BARS=()
for c in stream_read stream_catchup; do
	[ -n "${SRATE[$c]:-}" ] || continue
	case $c in
	stream_read) what="stream_read: $SREAD records of 1-row txns" ;;
	*) what="stream_catchup: $SCATCH records of 200-row txns" ;;
	esac
	row "$what, records/s" "${SFIRST[$c]} first, ${SRATE[$c]} median" "-" "-" ">= 50000/s" \
		"$(awk -v a="${SFIRST[$c]}" -v b="${SRATE[$c]}" 'BEGIN { print (a >= 50000 && b >= 50000 ? "yes" : "NO") }')"
	STREAM_BARS+=("$c / 50k rec/s|$(awk -v r="${SFIRST[$c]}" 'BEGIN { printf "%.2f", r / 50000 }')")
done
if want size; then
	for c in "get_row 1e4 rows" "get_row 1e5 rows" "get_row 1e6 rows"; do caserow "$c" 0.9; done
	flatrow "get_row flat 1e4->1e6 (spread)" "get_row 1e4 rows" "get_row 1e5 rows" "get_row 1e6 rows"
fi
if want ver; then
	for nv in 1 10 100; do caserow "get_row $nv versions" 0.9; done
	flatrow "get_row flat 1->100 versions (spread)" "get_row 1 versions" "get_row 10 versions" "get_row 100 versions"
fi
ob=$(( OTS_BYTES / MID )); pb=$(( PLAIN_BYTES / MID ))
sr=$(ratio "$ob" "$pb")
row "storage bytes/row (1e5 rows)" "$ob B" "$pb B" "$sr" "<= 1.2" "$(awk -v r="$sr" 'BEGIN { print (r + 0 <= 1.2 ? "yes" : "NO") }')"

T_END=$(date +%s)
echo
echo "ots benchmark — $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine: nproc=$(nproc), CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), RAM $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)"
echo "server: $("${PSQL[@]}" -c 'SELECT version()')"
echo "ots: $(sql "SELECT extversion FROM pg_extension WHERE extname = 'ots'"), preloaded at start: $OTS_SO_INFO; git $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "command: $ENVLINE $CMDLINE"
echo "pgbench: -n -M prepared -c $CLIENTS -j $JOBS -T $T, $REPS repetitions of ots and plain back to back (order flipped each repetition);"
echo "  ratio = median of the per-repetition ratios, tps = median per side; tps excl. connection time"
echo "settings: ${SETTINGS[*]}; synchronous_commit=on for reads, per case for writes"
echo "plain baseline: one unpartitioned table (k1 text COLLATE \"C\", k2 bigint, attrs jsonb, PK (k1, k2)), fillfactor 100;"
echo "  ots: 8 hash partitions on k1 (fillfactor 90). Reads of the 'versions' cases compare against plain4 (1e4 rows)."
if want stream_put || want stream_update; then
	echo "stream_* cases: ots = the call on ts, a table with a stream (10^5 rows); plain = the same call on t, the same"
	echo "  table without one; stream_read/stream_catchup: records/s of one session reading every shard, 1000 a call"
fi
for c in $VIEW_CASES; do
	want "$c" || continue
	echo "view_* cases: ots = SQL through the view of an ots table with 5 defined columns; plain = a plain table with those"
	echo "  columns typed and PK (k1, k2) for view_select and view_copy, the row API's call on the same ots table for"
	echo "  view_insert (put_row EXPECT_NOT_EXIST), view_update (update_row) and view_delete (delete_row)"
	break
done
echo
{
	echo "case|ots tps|plain tps|ratio (ots/plain)|target|met?"
	printf '%s\n' "${ROWS[@]}"
} | awk -F'|' '
	{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; l = length($i); if (l > w[i]) w[i] = l } n = NR; nf = NF }
	END {
		for (r = 1; r <= n; r++) {
			line = ""
			for (i = 1; i <= nf; i++) line = line sprintf(i == 1 ? "%-" w[i] "s" : " | %" w[i] "s", c[r, i])
			print line
			if (r == 1) { s = ""; for (i = 1; i <= nf; i++) { d = ""; for (k = 0; k < w[i] + (i > 1 ? 3 : 0); k++) d = d (i > 1 && k == 1 ? "+" : "-"); s = s d } print s }
		}
	}'

# the picture: each case's ratio against its target, one bar per case
PNG=${BENCH_PNG:-$PWD/bench-ratios.png}
if ! command -v gnuplot >/dev/null && [ "$(id -u)" = 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gnuplot-nox >"$LOGS/apt.log" 2>&1 || true
fi
# case, ratio, target, and the bar's colour: met (green) or not (orange)
printf '%s\n' "${ROWS[@]}" | awk -F'|' '$5 ~ /^>= / && $4 != "-" { t = $5; sub(/^>= /, "", t); gsub(/"/, "", $1);
	printf "\"%s\" %s %s %s\n", $1, $4, t, ($4 + 0 >= t + 0 ? "0x4caf50" : "0xf0a030") }' >"$WORK/ratios.dat"
for b in "${STREAM_BARS[@]}"; do
	awk -v n="${b%|*}" -v r="${b##*|}" 'BEGIN { printf "\"%s\" %s 1 %s\n", n, r, (r + 0 >= 1 ? "0x4caf50" : "0xf0a030") }' >>"$WORK/ratios.dat"
done
if ! command -v gnuplot >/dev/null; then
	echo "picture: gnuplot not found (Debian: gnuplot-nox), none drawn"
elif [ ! -s "$WORK/ratios.dat" ]; then
	echo "picture: no case with a target ran, none drawn"
else
	# the read bars of Stream are records/s over 50,000, against 1
	KEYPOS="top right" YLABEL="tps ratio (ots / plain)"
	if [ ${#STREAM_BARS[@]} -gt 0 ]; then
		KEYPOS="top left" YLABEL="$YLABEL; stream reads: records/s / 50,000"
	fi
	gnuplot <<GP && echo "picture: $PNG"
set terminal pngcairo size 1200,640 font "sans,10" noenhanced
set output "$PNG"
set title "ots ÷ plain PostgreSQL, same data, same run — $(date -u '+%Y-%m-%d'), $(nproc) cores, git $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?')"
set ylabel "$YLABEL"
set yrange [0:*]
set style fill solid 0.6 border -1
set boxwidth 0.6
set xtics rotate by -35 left nomirror
set grid ytics
set key $KEYPOS
set bmargin 9
set rmargin 10
plot "$WORK/ratios.dat" using 0:2:4:xtic(1) with boxes lc rgb variable title "ratio (green: target met)", \
     "" using 0:3 with points pt 7 ps 1.4 lc rgb "#c0392b" title "target (at least)", \
     1 with lines dt 2 lc rgb "#555555" title "plain"
GP
fi
if printf '%s\n' "${ROWS[@]}" | grep -q '|NO$'; then
	echo "targets not met: bench/README.md, \"What remains\", gives each one's profile and what would close it"
fi
echo
echo "storage detail: ots t\$data leaves total $OTS_BYTES B (heap $OTS_HEAP B), plain_t total $PLAIN_BYTES B (heap $PLAIN_HEAP B), $MID rows, after VACUUM ANALYZE"
echo "raw tps per run:"
for k in "${!RAW[@]}"; do echo "  $k: ${RAW[$k]}"; done | sort
echo "load times:"
printf '  %s\n' "${LOADINFO[@]}"
echo "load average (1/5/15 min) before the runs: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews tps)"
echo "timings: benchmark runs $(secs "$T_BENCH" "$T_BENCH_END") s, total $(( T_END - T_START )) s"
if [ -s "$WORK/errors" ]; then
	echo "ERRORS:"
	sed 's/^/  /' "$WORK/errors"
	exit 2
fi
