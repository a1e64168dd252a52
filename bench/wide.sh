#!/usr/bin/env bash
# bench/wide.sh — wide rows and deep versions (issue 33's baseline): what
# update_row of one cell and get_row of one column cost as a row grows wider
# or deeper, against the entity-attribute-value table a PostgreSQL user would
# build instead (bench/README.md, "Wide rows and deep versions").
#
# Usage (needs PostgreSQL 15 server binaries and an installed ots):
#
#     bench/wide.sh
#
# It starts a private instance in /tmp (unix socket only, run as postgres when
# invoked as root), stops and removes it on exit, failure or Ctrl-C.  For each
# row shape C x V (C columns, V versions per cell) it builds one ots table
# wide_<C>_<V> (max_versions V) holding one row, written with a put_row and
# update_rows of at most 1,024 cells each (Tablestore's per-write limit), and
# the same cells in eav (pk text, col text, ts bigint, value jsonb) with a
# btree on (pk, col, ts DESC) (bench/wide.sql).  Then, in 3 rounds (ots and
# eav in alternating order, an untimed VACUUM before each round), each case
# runs in one backend as a PL/pgSQL loop for WIDE_MS milliseconds after a
# warm-up of a tenth of that, and reports ms per call:
#   update  ots.update_row of one cell (server time; with V versions the
#           oldest drops) | eav: DELETE the column's oldest version + INSERT
#           the new one; writes commit every WIDE_COMMIT calls (timed)
#   get     ots.get_row with columns_to_get of one column | eav: SELECT value
#           .. WHERE pk AND col ORDER BY ts DESC LIMIT 1
# successive calls touch different columns.  It prints one table: per shape
# the medians of ots and eav, eav/ots (above 1: ots is faster) and ots
# relative to the first shape (the 10-column row by default).
# About 2 minutes with the defaults (2-core VM).
#
# Environment knobs (defaults in brackets):
#   WIDE_SHAPES  row shapes, COLUMNSxVERSIONS
#                [10x1 1000x1 10000x1 50000x1 10000x10 5x1000 5x10000]
#   WIDE_MS      milliseconds each measurement runs [300]
#   WIDE_ROUNDS  rounds; the median is reported [3]
#   WIDE_COMMIT  writes per commit in the loop [100]
#   WIDE_GROW_MB grow one row to this many MB by 4 MB updates, timing each,
#                then a page of 8 columns and one column of it [0: skip;
#                the 2 GB case is WIDE_GROW_MB=2048]
#   WIDE_DUMP    1: then dump that table (pg_dump -Fd -j 2) and restore it
#                (pg_restore -j 2) into a new database, timing both, and
#                compare the row read back in both [0]
#   WIDE_CALLGRIND  1: also count instructions per call with callgrind, as
#                bench/callgrind.sh does (a single-user backend on a copy of
#                the data, (Ir(N2) - Ir(N1)) / (N2 - N1), each call its own
#                transaction): update, get and vget (SELECT c1 FROM the view,
#                a defined column, against EAV's read of c1) per shape of
#                WIDE_CG_SHAPES [10x1 50000x1 10000x10 5x10000]; about 5 minutes
#   WIDE_PNG     draw ms per call by shape (log scale): ots's update and get,
#                EAV's, and ots's before split rows from WIDE_BEFORE
#                [bench/wide-before.dat]; gnuplot [none drawn]
#   WIDE_PORT    [5496]
#   PGBIN        PostgreSQL 15's bindir [the bindir of OTS_PG_CONFIG, tools/lib.sh]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=tools/lib.sh
. "$HERE/../tools/lib.sh"
SHAPES=${WIDE_SHAPES:-10x1 1000x1 10000x1 50000x1 10000x10 5x1000 5x10000}
MS=${WIDE_MS:-300}
ROUNDS=${WIDE_ROUNDS:-3}
COMMIT_EVERY=${WIDE_COMMIT:-100}
PORT=${WIDE_PORT:-5496}
GROW_MB=${WIDE_GROW_MB:-0}
PGBIN=${PGBIN:-$OTS_PG_BIN}
for b in initdb pg_ctl psql postgres; do
	[ -x "$PGBIN/$b" ] || ots_die "$PGBIN/$b not found (set PGBIN)"
done
PGVER=$("$PGBIN/postgres" --version)
case "$PGVER" in *" 15."*) ;; *) ots_die "need PostgreSQL 15, found: $PGVER" ;; esac
OTS_SO="$("$PGBIN/pg_config" --pkglibdir)/ots.so"
[ -f "$OTS_SO" ] || ots_die "$OTS_SO not found: make install first"
T_START=$(date +%s)

WORK=$(mktemp -d /tmp/ots-wide.XXXXXX)
chmod 755 "$WORK"
ots_is_root && chown "$OTS_PG_USER": "$WORK"
cleanup() {
	local rc=$?
	if [ -f "$WORK/data/postmaster.pid" ]; then
		ots_as_pg_user "$PGBIN/pg_ctl" -D "$WORK/data" -m fast -w stop >/dev/null 2>&1 || true
	fi
	if [ $rc != 0 ]; then
		echo "wide.sh: FAILED (rc=$rc); server log tail:" >&2
		tail -n 30 "$WORK/server.log" >&2 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

SETTINGS=(
	"shared_buffers=512MB"
	"shared_preload_libraries='ots'"
	"max_wal_size=8GB"
	"checkpoint_timeout=30min"
	"fsync=on"
	"synchronous_commit=off"
	"jit=off"
	"max_parallel_workers_per_gather=0"
	"autovacuum=off"
	"listen_addresses=''"
	"port=$PORT"
	"unix_socket_directories='$WORK'"
	"lc_messages='C'"
)
ots_as_pg_user "$PGBIN/initdb" -D "$WORK/data" -U "$(ots_pg_user_name)" --auth=trust -E UTF8 --locale=C \
	>"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log" >&2; exit 1; }
printf '%s\n' "${SETTINGS[@]}" >>"$WORK/data/postgresql.conf"
ots_as_pg_user "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w -t 60 start >/dev/null

PGUSER=$(ots_pg_user_name)
export PGHOST=$WORK PGPORT=$PORT PGUSER PGDATABASE=postgres
PSQL=("$PGBIN/psql" -qXAt -v ON_ERROR_STOP=1)
"${PSQL[@]}" -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots" -f "$HERE/wide.sql"

# ---------------------------------------------------------------- load
LOADINFO=()
for s in $SHAPES; do
	c=${s%x*} v=${s#*x}
	t0=$(date +%s.%N)
	"${PSQL[@]}" -c "SELECT wide_build($c, $v)" >/dev/null
	LOADINFO+=("$s: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s")
done
"${PSQL[@]}" -c "VACUUM"
for i in "${!LOADINFO[@]}"; do
	s=${LOADINFO[$i]%%:*}
	LOADINFO[$i]+=", ots table $("${PSQL[@]}" -c "SELECT pg_size_pretty(sum(pg_total_relation_size(i.inhrelid))
		+ pg_total_relation_size('\"wide_${s/x/_}\$chunk\"'::regclass))
		FROM pg_inherits i WHERE i.inhparent = '\"wide_${s/x/_}\$data\"'::regclass")"
done
LOADINFO+=("eav: $("${PSQL[@]}" -c "SELECT count(*) || ' cells, ' || pg_size_pretty(pg_total_relation_size('eav')) FROM eav")")

# ---------------------------------------------------------------- measure
# measure CASE C V: one backend, a warm-up loop then the timed one; ms per call
measure() {
	"${PSQL[@]}" -c "CALL wide_loop('$1', $2, $3, $MS / 10.0, $COMMIT_EVERY)" \
		-c "CALL wide_loop('$1', $2, $3, $MS, $COMMIT_EVERY)" | tail -1
}
declare -A R
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for round in $(seq 1 "$ROUNDS"); do
	"${PSQL[@]}" -c "VACUUM" -c "CHECKPOINT"
	for s in $SHAPES; do
		c=${s%x*} v=${s#*x}
		for op in update get; do
			sides="ots eav"; [ $((round % 2)) = 0 ] && sides="eav ots"
			for side in $sides; do
				R[$s.$side.$op]+="$(measure "${side}_$op" "$c" "$v") "
			done
		done
	done
done

# ---------------------------------------------------------------- grow
GROWINFO=""
if [ "$GROW_MB" -gt 0 ]; then
	t0=$(date +%s)
	"${PSQL[@]}" -c "CALL wide_grow($GROW_MB)"
	GROWINFO=$("${PSQL[@]}" -c "SELECT wide_grow_report($(( $(date +%s) - t0 )))")
fi

# ---------------------------------------------------------------- dump
DUMPINFO=""
if [ "${WIDE_DUMP:-0}" = 1 ] && [ "$GROW_MB" -gt 0 ]; then
	# the grown table as a user dumps one table (reference.md, "Backup and
	# restore"), into a new database with ots, in parallel; then the row read
	# back in both: its chunks' bytes, one column, a page of columns
	row_sql="SELECT (SELECT count(*) || ' chunks, ' || sum(octet_length(\"\$cells\"::text)) || ' bytes of cells' FROM \"grow\$chunk\"),
		md5((ots.get_row('grow', '{\"k\": \"big\"}', ARRAY['g00200_b'])).attributes::text),
		md5((ots.get_row('grow', '{\"k\": \"big\"}', start_column => 'g00400_a', end_column => 'g00404_a')).attributes::text)"
	t0=$(date +%s.%N)
	"$PGBIN/pg_dump" -Fd -j 2 -Z 0 -t grow -t 'grow$*' -f "$WORK/dump" postgres
	t1=$(date +%s.%N)
	"${PSQL[@]}" -c "CREATE DATABASE restored"
	"${PSQL[@]}" -d restored -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots"
	"$PGBIN/pg_restore" -j 2 -d restored "$WORK/dump"
	t2=$(date +%s.%N)
	before=$("${PSQL[@]}" -c "$row_sql")
	after=$("${PSQL[@]}" -d restored -c "$row_sql")
	[ "$before" = "$after" ] || ots_die "the restored row differs: $before | $after"
	DUMPINFO="the $GROW_MB MB row dumped by pg_dump -Fd -j 2 -Z 0 -t grow -t 'grow\$*' in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s ($(du -sh "$WORK/dump" | cut -f1)), restored by pg_restore -j 2 into a new database in $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", b - a }') s; read back the same in both (${before%%|*}, a column and a page of columns)"
	rm -rf "$WORK/dump"
fi

# ---------------------------------------------------------------- callgrind
CGINFO=()
if [ "${WIDE_CALLGRIND:-0}" = 1 ]; then
	command -v valgrind >/dev/null || ots_die "valgrind not found (apt-get install valgrind)"
	CG_SHAPES=${WIDE_CG_SHAPES:-10x1 50000x1 10000x10 5x10000}
	"${PSQL[@]}" -c "VACUUM" -c "CHECKPOINT"
	ots_as_pg_user "$PGBIN/pg_ctl" -D "$WORK/data" -w stop -m fast >/dev/null
	# cg_prepare SIDE OP C V: the PREPARE of one side of a case; $1 picks the column
	cg_prepare() {
		local t="wide_$3_$4" pk="'wide_$3_$4'" col="'c' || (\$1 % $3)"
		case $1_$2 in
		ots_update) echo "PREPARE p(int) AS SELECT ots.update_row('$t', '{\"k\": \"row\"}', put => jsonb_build_object($col, 'v' || \$1));" ;;
		eav_update) echo "PREPARE p(int) AS WITH d AS (DELETE FROM eav WHERE pk = $pk AND col = $col AND ts = (SELECT min(ts) FROM eav WHERE pk = $pk AND col = $col)) INSERT INTO eav VALUES ($pk, $col, 2000000000000 + \$1, to_jsonb('v' || \$1));" ;;
		ots_get) echo "PREPARE p(int) AS SELECT ots.get_row('$t', '{\"k\": \"row\"}', ARRAY[$col]);" ;;
		eav_get) echo "PREPARE p(int) AS SELECT value FROM eav WHERE pk = $pk AND col = $col ORDER BY ts DESC LIMIT 1;" ;;
		ots_vget) echo "PREPARE p(int) AS SELECT c1 FROM $t WHERE k = 'row';" ;;
		eav_vget) echo "PREPARE p(int) AS SELECT value FROM eav WHERE pk = $pk AND col = 'c1' ORDER BY ts DESC LIMIT 1;" ;;
		esac
	}
	# cg_ir SIDE OP C V N: total instructions of a single-user backend making N calls
	cg_ir() {
		local f="$WORK/cg_$1_$2_$3_$4.$5"
		rm -rf "$WORK/cgdata"; cp -a "$WORK/data" "$WORK/cgdata"; rm -f "$WORK/cgdata/postmaster.pid"
		{ cg_prepare "$1" "$2" "$3" "$4"; for ((j = 1; j <= $5; j++)); do echo "EXECUTE p($(( j * 7919 )));"; done; } >"$f.sql"
		ots_as_pg_user valgrind --tool=callgrind --callgrind-out-file="$f.out" \
			"$PGBIN/postgres" --single -D "$WORK/cgdata" -c synchronous_commit=off -c autovacuum=off \
			postgres <"$f.sql" >"$f.log" 2>&1
		if grep -qE 'ERROR|FATAL|PANIC' "$f.log"; then cat "$f.log" >&2; ots_die "callgrind $1 $2 $3x$4 failed"; fi
		awk '/^summary:/ { print $2 }' "$f.out"
	}
	declare -A IR
	for s in $CG_SHAPES; do
		c=${s%x*} v=${s#*x}
		for op in update get vget; do
			for side in ots eav; do
				a=$(cg_ir $side $op "$c" "$v" 20); b=$(cg_ir $side $op "$c" "$v" 120)
				IR[$s.$side.$op]=$(( (b - a) / 100 ))
			done
		done
	done
	CG_FIRST=${CG_SHAPES%% *}
	CGINFO+=("instructions per call (callgrind, single-user backend, each call its own transaction); ots/first: relative to $CG_FIRST; eav/ots above 1: ots runs fewer")
	CGINFO+=("$(printf '| %-9s | %9s | %9s | %8s | %8s | %9s | %9s | %8s | %8s | %9s | %9s | %8s | %8s |' shape "ots upd" "eav upd" "eav/ots" "ots/first" "ots get" "eav get" "eav/ots" "ots/first" "ots vget" "eav vget" "eav/ots" "ots/first")")
	for s in $CG_SHAPES; do
		line="| $(printf '%-9s' "$s") |"
		for op in update get vget; do
			o=${IR[$s.ots.$op]} e=${IR[$s.eav.$op]} f=${IR[$CG_FIRST.ots.$op]}
			line+=$(printf ' %9s | %9s | %8s | %8s |' "$o" "$e" "$(awk -v a="$e" -v b="$o" 'BEGIN { printf "%.2f", a / b }')" "$(awk -v a="$o" -v b="$f" 'BEGIN { printf "%.2f", a / b }')")
		done
		CGINFO+=("$line")
	done
	ots_as_pg_user "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w -t 60 start >/dev/null
fi

# ---------------------------------------------------------------- report
med() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
fmt() { awk -v x="$1" 'BEGIN { if (x >= 10) printf "%.1f", x; else if (x >= 1) printf "%.2f", x; else if (x >= 0.01) printf "%.3f", x; else printf "%.4f", x }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { r = a / b; if (r >= 10) printf "%.0f", r; else printf "%.2g", r }'; }
FIRST=${SHAPES%% *}
echo
echo "ms per call, median of $ROUNDS rounds (PL/pgSQL loop in one backend, ${MS} ms a measurement);"
echo "eav/ots above 1: ots is faster; ots/first: ots's cost relative to the first shape, $FIRST"
printf '| %-9s | %9s | %9s | %8s | %8s | %9s | %9s | %8s | %8s |\n' shape "ots upd" "eav upd" "eav/ots" "ots/first" "ots get" "eav get" "eav/ots" "ots/first"
printf '|%s|\n' "-----------|-----------|-----------|----------|----------|-----------|-----------|----------|----------"
for s in $SHAPES; do
	line="| $(printf '%-9s' "$s") |"
	for op in update get; do
		# shellcheck disable=SC2086 # one value a word
		o=$(med ${R[$s.ots.$op]}); e=$(med ${R[$s.eav.$op]}); f=$(med ${R[$FIRST.ots.$op]})
		line+=$(printf ' %9s | %9s | %8s | %8s |' "$(fmt "$o")" "$(fmt "$e")" "$(div "$e" "$o")" "$(div "$o" "$f")")
	done
	echo "$line"
done
if [ -n "${WIDE_PNG:-}" ]; then
	BEFORE=${WIDE_BEFORE:-$HERE/wide-before.dat}
	for s in $SHAPES; do
		# shellcheck disable=SC2086 # one value a word
		echo "$s $(med ${R[$s.ots.update]}) $(med ${R[$s.eav.update]}) $(med ${R[$s.ots.get]}) $(med ${R[$s.eav.get]}) $(awk -v s="$s" '$1 == s { print $2, $3 }' "$BEFORE")"
	done | awk 'NF == 5 { print $0, "NaN NaN"; next } { print }' >"$WORK/wide.dat"
	gnuplot <<GP && echo "picture: $WIDE_PNG"
set terminal pngcairo size 1100,520 font "sans,10" noenhanced
set output "$WIDE_PNG"
set multiplot layout 1,2 title "one cell's update_row and one column's get_row as a row grows wider and deeper, ms per call (log) — $(date -u '+%Y-%m-%d'), git $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo '?')"
set logscale y
set grid ytics
set xtics rotate by -30 left nomirror
set key top left
set ylabel "ms per call"
set title "update one cell"
plot "$WORK/wide.dat" using 0:6:xtic(1) with linespoints lw 2 lc rgb "#c0392b" title "ots before (one value a row)", \
     "" using 0:2 with linespoints lw 2 lc rgb "#27ae60" title "ots (split rows)", \
     "" using 0:3 with linespoints lw 1 dt 2 lc rgb "#555555" title "EAV table"
set title "get one column"
plot "$WORK/wide.dat" using 0:7:xtic(1) with linespoints lw 2 lc rgb "#c0392b" title "ots before (one value a row)", \
     "" using 0:4 with linespoints lw 2 lc rgb "#27ae60" title "ots (split rows)", \
     "" using 0:5 with linespoints lw 1 dt 2 lc rgb "#555555" title "EAV table"
unset multiplot
GP
fi
echo
echo "raw ms per call per round:"
for k in "${!R[@]}"; do echo "  $k: ${R[$k]}"; done | sort -V
[ -z "$GROWINFO" ] || echo "$GROWINFO"
[ -z "$DUMPINFO" ] || echo "$DUMPINFO"
[ ${#CGINFO[@]} = 0 ] || printf '%s\n' "${CGINFO[@]}"
echo "load (build of each shape's ots row and eav cells; storage after VACUUM):"
printf '  %s\n' "${LOADINFO[@]}"
echo "command: WIDE_SHAPES=\"$SHAPES\" WIDE_MS=$MS WIDE_ROUNDS=$ROUNDS WIDE_COMMIT=$COMMIT_EVERY WIDE_GROW_MB=$GROW_MB WIDE_DUMP=${WIDE_DUMP:-0} $0"
echo "software: $PGVER; ots $("${PSQL[@]}" -c "SELECT extversion FROM pg_extension WHERE extname = 'ots'"), $OTS_SO md5 $(md5sum "$OTS_SO" | cut -c1-12); checkout $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "machine: $(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo); load average before $LOAD_BEFORE, after $(cut -d' ' -f1-3 /proc/loadavg)"
echo "settings: ${SETTINGS[*]:0:9}"
echo "total $(( $(date +%s) - T_START )) s"
