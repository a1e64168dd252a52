#!/usr/bin/env bash
# bench/gateway.sh — otsd (the Tablestore protocol gateway) with the official
# Node SDK against the same ots calls in SQL over libpq (issue 17).
#
# Usage (from anywhere; needs PostgreSQL 15 server binaries, pgbench, an
# installed ots (`make install`), Node.js + npm, and gateway/otsd, which it
# builds with `make -C gateway` when missing):
#
#     bench/gateway.sh
#
# In one run it starts a private PostgreSQL 15 (unix socket only, port 5497,
# data under /tmp, run as user `postgres` when invoked as root, autovacuum
# off, the settings of bench/run.sh), loads `bench_t (pk1 string, pk2
# integer)` with BENCH_ROWS rows (row i: pk1 'p' || (10000 + i / 100), pk2
# i % 100, the 5 attributes of bench/run.sh: every partition key holds 100
# consecutive rows), creates the role `otsbench` (no superuser: SELECT,
# INSERT, UPDATE on "bench_t$data"), starts otsd on 127.0.0.1 with the access
# key of that role, and runs, for each call, REPS repetitions of a gateway
# run and an SQL run back to back (order flipped every repetition):
#   gateway: GW_PROCS node processes (bench/gateway/client.js, tablestore
#            5.6.5 from bench/gateway/package-lock.json), each keeping GW_CONC
#            requests outstanding, for T seconds;
#   SQL:     pgbench -n -M prepared -c GW_PROCS*GW_CONC -j 2 -T T, as
#            otsbench, the statement otsd runs for that request (the same
#            function, arguments and result columns).
# Calls: PutRow (new keys), GetRow (a random existing row), GetRange (the 100
# rows of a random partition key, limit 100); with GW_CLIENT=c also
# UpdateRow (one attribute of a random existing row) and BatchWriteRow (200
# PutRows of new keys), and "no query": a ListSearchIndex of every table,
# which otsd answers without PostgreSQL, against pgbench's SELECT 1.  Its
# otsd CPU is the HTTP hop's alone, the least any call costs otsd; the
# report sets it beside each call's budget, half of PostgreSQL's CPU for
# the SQL call (what the 1.5 target leaves otsd when PostgreSQL's part
# costs what the SQL call costs).
#
# GW_CLIENT=c replaces the Node SDK with bench/gateway/load.c, a C client that
# builds and signs each request itself and keeps GW_PROCS*GW_CONC keep-alive
# connections each with one request outstanding: the client is then cheap,
# and what is compared is the server's CPU per request, otsd's and
# PostgreSQL's against PostgreSQL's for the SQL call (issue 34's targets: at
# most 1.5 times; throughput at least 0.5 of pgbench's).  Node is not needed
# then; the Node SQL runs are skipped.  A call's ratio is the median
# of its per-repetition ratios gateway / SQL (target >= 0.5); the req/s
# columns are the medians of each side.  It also measures, at the same
# concurrency and with one client, `SELECT 1` (the libpq round trip) and the
# ots calls with -M extended (an unnamed statement parsed for every call, as
# otsd's PQexecParams does), and the CPU time per request of each process:
# the client (node / pgbench), otsd and PostgreSQL (all of the instance's
# processes).  It prints ONE results table plus machine info, draws req/s,
# the ratios and the CPU per request into BENCH_PNG (gnuplot) and
# stops/removes everything on exit.
# About 6.5 minutes with the defaults on the 2-core VM (362 s of runs, 2026-11-26).
#
# Environment knobs (defaults in brackets):
#   GW_T         seconds per run [5]           GW_REPS   repetitions [5]
#   GW_PROCS     node processes [1]            GW_CONC   outstanding requests per process [8]
#   GW_POOL      otsd pool_size [4]            GW_THREADS otsd threads [8]
#   GW_CLIENT    node (the official Node SDK) or c (bench/gateway/load.c) [node]
#   GW_CASES     calls to run ["put get range"; with GW_CLIENT=c "get put update range batch hop"]
#   GW_EXTRA=0   skip the SELECT 1 / -M extended / one-client runs
#   GW_LOG       otsd's log [a file under the instance's directory; /dev/null to drop]
#   BENCH_ROWS   rows loaded [100000]          BENCH_PORT [5497]   GW_PORT otsd's port [8897]
#   BENCH_PRELOAD shared_preload_libraries [ots] (must name ots)
#   OTSD         the otsd binary [gateway/otsd]
#   BENCH_PNG    the picture [./bench-gateway.png]
#   BENCH_KEEP=1 leave PostgreSQL and otsd running at the end (prints how to stop them)
#   PGBIN        PostgreSQL's bindir [pg_config --bindir]

set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
T=${GW_T:-5}
REPS=${GW_REPS:-5}
PROCS=${GW_PROCS:-1}
CONC=${GW_CONC:-8}
POOL=${GW_POOL:-4}
THREADS=${GW_THREADS:-8}
CLIENT=${GW_CLIENT:-node}
case "$CLIENT" in
	node) CASES=${GW_CASES:-put get range} ;;
	c) CASES=${GW_CASES:-get put update range batch hop} ;;
	*) echo "gateway.sh: GW_CLIENT is node or c" >&2; exit 1 ;;
esac
EXTRA=${GW_EXTRA:-1}
ROWS=${BENCH_ROWS:-100000}
PORT=${BENCH_PORT:-5497}
GWPORT=${GW_PORT:-8897}
OTSD=${OTSD:-$ROOT/gateway/otsd}
PNG=${BENCH_PNG:-./bench-gateway.png}
CLIENTS=$((PROCS * CONC))
JOBS=$((CLIENTS < 2 ? CLIENTS : 2))
T_START=$(date +%s)

PGBIN=${PGBIN:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}
for b in initdb pg_ctl psql pgbench postgres; do
	[ -x "$PGBIN/$b" ] || { echo "gateway.sh: $PGBIN/$b not found (set PGBIN)" >&2; exit 1; }
done
PGVER=$("$PGBIN/postgres" --version)
case "$PGVER" in *" 15."*) ;; *) echo "gateway.sh: need PostgreSQL 15, found: $PGVER" >&2; exit 1 ;; esac
OTS_SO="$("$PGBIN/pg_config" --pkglibdir 2>/dev/null || pg_config --pkglibdir)/ots.so"
[ -f "$OTS_SO" ] || { echo "gateway.sh: $OTS_SO not found: make install first" >&2; exit 1; }
[ "$CLIENT" = c ] || { command -v node >/dev/null && command -v npm >/dev/null; } \
	|| { echo "gateway.sh: node and npm needed (Debian: nodejs npm)" >&2; exit 1; }
if [ ! -x "$OTSD" ]; then
	echo "building otsd: make -C $ROOT/gateway" >&2
	make -s -C "$ROOT/gateway" >&2
fi
if [ "$CLIENT" = node ] && { [ ! -d "$HERE/gateway/node_modules/tablestore" ] || [ ! -d "$HERE/gateway/node_modules/pg-native" ]; }; then
	echo "installing the clients' packages: npm ci in bench/gateway" >&2
	# no package's install script runs but libpq's, which builds pg-native's
	# binding of libpq (node-gyp: make, g++, python3, libpq-dev)
	(cd "$HERE/gateway" && npm ci --no-audit --no-fund --ignore-scripts >&2 && npm rebuild libpq >&2)
fi
if [ "$CLIENT" = node ]; then
	SDK_VERSION=$(node -p "require('$HERE/gateway/node_modules/tablestore/package.json').version")
	CLIENT_NAME="Node SDK $SDK_VERSION"
	NODE_VERSION=$(node --version)
else
	CLIENT_NAME="C client (bench/gateway/load.c)"
	NODE_VERSION="(not used)"
fi

WORK=$(mktemp -d /tmp/ots-gwbench.XXXXXX)
DATA=$WORK/data
SOCK=$WORK
LOGS=$WORK/logs
SCRIPTS=$WORK/scripts
mkdir -p "$LOGS" "$SCRIPTS"
if [ "$CLIENT" = c ]; then
	cc -O2 -Wall -Wextra -I"$ROOT/src" -o "$WORK/load" "$HERE/gateway/load.c" -lcrypto \
		|| { echo "gateway.sh: cannot build bench/gateway/load.c (needs libssl-dev)" >&2; exit 1; }
fi
GWLOG=${GW_LOG:-$WORK/otsd.log}
OTSD_PID=

if [ "$(id -u)" = 0 ]; then
	chown postgres: "$WORK"
	chmod 755 "$WORK"
	as_pg() { runuser -u postgres -- "$@"; }
	DBUSER=postgres
else
	as_pg() { "$@"; }
	DBUSER=$(id -un)
fi

stop_otsd() {
	if [ -n "$OTSD_PID" ] && kill -0 "$OTSD_PID" 2>/dev/null; then
		kill -TERM "$OTSD_PID" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$OTSD_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$OTSD_PID" 2>/dev/null || true
	fi
}
cleanup() {
	local rc=$?
	if [ "${BENCH_KEEP:-0}" = 1 ] && [ $rc = 0 ]; then
		echo
		echo "kept: psql -h $SOCK -p $PORT -U otsbench bench; otsd pid $OTSD_PID on 127.0.0.1:$GWPORT"
		echo "stop with: kill $OTSD_PID; $( [ "$(id -u)" = 0 ] && echo 'runuser -u postgres -- ')$PGBIN/pg_ctl -D $DATA stop -m fast && rm -rf $WORK"
		return
	fi
	stop_otsd
	if [ -f "$DATA/postmaster.pid" ]; then
		as_pg "$PGBIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null 2>&1 || true
	fi
	if [ $rc != 0 ]; then
		echo "gateway.sh: FAILED (rc=$rc); server log tail:" >&2
		tail -n 20 "$WORK/server.log" >&2 2>/dev/null || true
		echo "otsd log tail:" >&2
		tail -n 10 "$WORK/otsd.out" >&2 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- PostgreSQL
# bench/run.sh's settings; max_connections for the pool, pgbench and psql
SETTINGS=(
	"shared_buffers=512MB"
	"shared_preload_libraries='${BENCH_PRELOAD-ots}'"
	"max_connections=$((CLIENTS + POOL + 10))"
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
PG_PID=$(head -1 "$DATA/postmaster.pid")

export PGHOST=$SOCK PGPORT=$PORT PGUSER=$DBUSER
unset PGOPTIONS PGDATABASE PGPASSWORD || true
"$PGBIN/psql" -qX -d postgres -c "CREATE DATABASE bench" >/dev/null
export PGDATABASE=bench
PSQL=("$PGBIN/psql" -qXAt -v ON_ERROR_STOP=1)
sql() { "${PSQL[@]}" -c "$1"; }

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------- data
# row i: pk1 'p' || (10000 + i / 100), pk2 i % 100: 100 rows per partition
# key, so a GetRange of one partition key reads 100 consecutive rows
t0=$(now)
sql "CREATE EXTENSION ots; CREATE EXTENSION pg_prewarm;" >/dev/null
sql "SELECT ots.create_table('bench_t', 'pk1 string, pk2 integer')" >/dev/null
CALLS=$(((ROWS + 199) / 200))
HALF=$((CALLS / 2))
LOADQ="SELECT count(*) FILTER (WHERE NOT b.is_ok) FROM generate_series(@LO@, @HI@) c,
  LATERAL ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'bench_t', 'rows',
    (SELECT jsonb_agg(jsonb_build_object('type', 'PUT',
        'primary_key', jsonb_build_object('pk1', 'p' || (10000 + i / 100), 'pk2', i % 100),
        'attributes', jsonb_build_object('a1', 'abcdefghijklmnopqrst', 'a2', i, 'a3', 1.5,
                                         'a4', true, 'a5', 'ABCDEFGHIJKLMNOPQRST')))
       FROM generate_series(c * 200, least(c * 200 + 199, $ROWS - 1)) i)))) b"
q=${LOADQ/@LO@/0}; "${PSQL[@]}" -c "${q/@HI@/$((HALF - 1))}" >"$WORK/load1" &
p1=$!
q=${LOADQ/@LO@/$HALF}; "${PSQL[@]}" -c "${q/@HI@/$((CALLS - 1))}" >"$WORK/load2" &
p2=$!
wait $p1; wait $p2
[ "$(( $(cat "$WORK/load1") + $(cat "$WORK/load2") ))" = 0 ] || { echo "gateway.sh: rows failed to load" >&2; exit 1; }
# otsd's role: no superuser, the privileges its calls need (security.md):
# put_row INSERT and UPDATE, get_row and get_range SELECT, on the storage
sql "CREATE ROLE otsbench LOGIN;
     GRANT SELECT, INSERT, UPDATE ON \"bench_t\$data\" TO otsbench;
     CREATE SEQUENCE put_seq; GRANT USAGE ON SEQUENCE put_seq TO otsbench;" >/dev/null
sql "VACUUM ANALYZE" >/dev/null; sql "CHECKPOINT" >/dev/null
sql "SELECT sum(pg_prewarm(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')" >/dev/null
LOADED=$(sql "SELECT count(*) FROM ots.get_range_rows('bench_t', '{\"pk1\": {\"\$inf\": \"min\"}, \"pk2\": {\"\$inf\": \"min\"}}',
                                                   '{\"pk1\": {\"\$inf\": \"max\"}, \"pk2\": {\"\$inf\": \"max\"}}')")
[ "$LOADED" = "$ROWS" ] || { echo "gateway.sh: loaded $LOADED rows, expected $ROWS" >&2; exit 1; }
LOAD_S=$(secs "$t0" "$(now)")
echo "loaded $ROWS rows in $LOAD_S s" >&2

# ---------------------------------------------------------------- otsd
KEY_ID=benchkey
KEY_SECRET=benchsecret
cat >"$WORK/otsd.conf" <<EOF
listen = 127.0.0.1:$GWPORT
database = host=$SOCK port=$PORT dbname=bench
instance = bench
access_key = $KEY_ID $KEY_SECRET otsbench
pool_size = $POOL
threads = $THREADS
log = $GWLOG
EOF
setsid "$OTSD" -c "$WORK/otsd.conf" >"$WORK/otsd.out" 2>&1 &
OTSD_PID=$!
for _ in $(seq 100); do
	(exec 3<>"/dev/tcp/127.0.0.1/$GWPORT") 2>/dev/null && break
	kill -0 "$OTSD_PID" 2>/dev/null || { echo "gateway.sh: otsd exited:" >&2; cat "$WORK/otsd.out" >&2; exit 1; }
	sleep 0.1
done
OTSD_INFO="$OTSD, md5 $(md5sum "$OTSD" | cut -c1-12), $(date -u -r "$OTSD" '+%F %T UTC')"
export OTS_ENDPOINT="http://127.0.0.1:$GWPORT" OTS_INSTANCE=bench OTS_KEY_ID=$KEY_ID
export OTS_KEY_SECRET=$KEY_SECRET BENCH_ROWS=$ROWS

# ---------------------------------------------------------------- the SQL side
# What otsd runs for each request (gateway/action_write.c, action_read.c: the
# function, its arguments by position or name, the result columns as text).  otsd sends
# them as text parameters of an unnamed statement; pgbench -M prepared
# prepares them once per connection.
ATTRS='{"a1": "abcdefghijklmnopqrst", "a2": 12345, "a3": 1.5, "a4": true, "a5": "ABCDEFGHIJKLMNOPQRST"}'
cat >"$SCRIPTS/put.sql" <<EOF
SELECT primary_key::text, consumed::text FROM ots.put_row('bench_t'::text, ('{"pk1": "s' || :client_id || '", "pk2": ' || nextval('put_seq') || '}')::jsonb, '$ATTRS'::jsonb, condition => 'IGNORE'::text);
EOF
cat >"$SCRIPTS/get.sql" <<EOF
\set i random(0, $((ROWS - 1)))
\set p 10000 + :i / 100
\set k :i % 100
SELECT primary_key::text, attributes::text, consumed::text FROM ots.get_row('bench_t'::text, ('{"pk1": "p' || :p || '", "pk2": ' || :k || '}')::jsonb, max_versions => 1::integer, with_timestamps => true::boolean);
EOF
cat >"$SCRIPTS/range.sql" <<EOF
\set p 10000 + random(0, $((ROWS / 100 - 1)))
SELECT rows::text, next_start_primary_key::text, consumed::text FROM ots.get_range('bench_t'::text, ('{"pk1": "p' || :p || '", "pk2": {"\$inf": "min"}}')::jsonb, ('{"pk1": "p' || :p || '", "pk2": {"\$inf": "max"}}')::jsonb, direction => 'FORWARD'::text, "limit" => 100::integer, max_versions => 1::integer, with_timestamps => true::boolean);
EOF
cat >"$SCRIPTS/update.sql" <<EOF
\set i random(0, $((ROWS - 1)))
\set p 10000 + :i / 100
\set k :i % 100
SELECT primary_key::text, attributes::text, consumed::text FROM ots.update_row('bench_t'::text, ('{"pk1": "p' || :p || '", "pk2": ' || :k || '}')::jsonb, put => ('{"a2": ' || :i || '}')::jsonb, condition => 'IGNORE'::text);
EOF
# BatchWriteRow: the request otsd builds for 200 PutRows of new keys (its
# jsonb text, the keys' prefix replaced per call: the only SQL work that
# otsd's call does not do)
BATCH_ROWS=$(for ((r = 0; r < 200; r++)); do
	printf '%s{"type": "PUT", "primary_key": {"pk1": "@K@", "pk2": %d}, "attributes": %s, "condition": "IGNORE"}' \
		"$([ $r = 0 ] || echo ', ')" "$r" "$ATTRS"
done)
cat >"$SCRIPTS/batch.sql" <<EOF
SELECT table_name, index, is_ok, error_code, error_message, primary_key::text, attributes::text, consumed::text FROM ots.batch_write_row(pg_catalog.replace('[{"table_name": "bench_t", "rows": [$BATCH_ROWS]}]', '@K@', 'b' || :client_id || '_' || nextval('put_seq'))::jsonb);
EOF
echo 'SELECT 1;' >"$SCRIPTS/select1.sql"
# "no query": otsd answers it without PostgreSQL; the SQL side is the libpq round trip alone
cp "$SCRIPTS/select1.sql" "$SCRIPTS/hop.sql"

# ---------------------------------------------------------------- CPU accounting
# ticks (1/CLK_TCK s) of user + system time of some processes
ticks_of() {
	local sum=0 p f
	for p in "$@"; do
		f=$(cut -d')' -f2- "/proc/$p/stat" 2>/dev/null) || continue
		sum=$((sum + $(awk '{ print $12 + $13 }' <<<"$f")))
	done
	echo "$sum"
}
# every process of the instance: the postmaster, its children (backends,
# walwriter, checkpointer ...) and the CPU time its exited children left it
pg_ticks() {
	local kids
	kids=$(cat "/proc/$PG_PID/task/$PG_PID/children" 2>/dev/null || true)
	local live dead
	# shellcheck disable=SC2086
	live=$(ticks_of "$PG_PID" $kids)
	dead=$(cut -d')' -f2- "/proc/$PG_PID/stat" | awk '{ print $14 + $15 }')
	echo $((live + dead))
}
HZ=$(getconf CLK_TCK)
# us_per PER_TICKS REQUESTS: µs of CPU per request
us_per() { awk -v t="$1" -v n="$2" -v hz="$HZ" 'BEGIN { if (n + 0 == 0) print "-"; else printf "%.0f", t * 1e6 / hz / n }'; }

# ---------------------------------------------------------------- runners
# Each run appends "client otsd postgres" (µs of CPU per request; "-" where
# that side has no otsd) to $WORK/cpu.<label> and prints req/s (or ERR).
cpu_note() { echo "$2" >>"$WORK/cpu.${1// /_}"; }
# gw ACTION TAG PROCS CONC: the gateway side
gw() {
	local action=$1 tag=$2_$RANDOM procs=$3 conc=$4 start p pids=() ok=1 total=0 n=0 c_us=0 o0 o1 g0 g1 f a b c
	start=$(( $(date +%s%3N) + 1500 ))
	for ((p = 0; p < procs; p++)); do
		node "$HERE/gateway/client.js" "$action" "$T" "$conc" "$start" "${tag}_$p" \
			>"$LOGS/gw.$action.$tag.$p.json" 2>"$LOGS/gw.$action.$tag.$p.err" &
		pids+=($!)
	done
	sleep "$(awk -v s="$start" -v n="$(date +%s%3N)" 'BEGIN { d = (s - n) / 1000; print (d > 0 ? d : 0) }')"
	o0=$(ticks_of "$OTSD_PID"); g0=$(pg_ticks)
	for p in "${pids[@]}"; do wait "$p" || ok=0; done
	o1=$(ticks_of "$OTSD_PID"); g1=$(pg_ticks)
	for ((p = 0; p < procs; p++)); do
		f=$LOGS/gw.$action.$tag.$p.json
		if [ ! -s "$f" ]; then ok=0; continue; fi
		read -r a b c < <(node -e "const r = JSON.parse(require('fs').readFileSync('$f')); console.log(r.rps, r.requests, r.cpu_us)")
		total=$(awk -v x="$total" -v y="$a" 'BEGIN { print x + y }')
		n=$((n + b)); c_us=$((c_us + c))
	done
	if [ $ok = 0 ]; then
		echo "gateway $action ($tag): $(cat "$LOGS"/gw."$action"."$tag".*.err "$LOGS"/gw."$action"."$tag".*.json 2>/dev/null | head -c 400 | tr '\n' ' ')" >>"$WORK/errors"
		echo ERR
		return
	fi
	cpu_note "gw $action $procs $conc" "$(awk -v c="$c_us" -v n="$n" 'BEGIN { printf "%.0f", c / n }') $(us_per $((o1 - o0)) "$n") $(us_per $((g1 - g0)) "$n")"
	printf '%.1f\n' "$total"
}
# gc ACTION TAG PROCS CONC: the gateway side with the C client, PROCS*CONC connections
gc() {
	local action=$1 tag=$2_$RANDOM conns=$(($3 * $4)) start o0 o1 g0 g1 f n c_us rps pid
	start=$(( $(date +%s%3N) + 500 ))
	f=$LOGS/gc.$action.$tag.json
	"$WORK/load" 127.0.0.1 "$GWPORT" "$action" "$T" "$conns" "$start" "$tag" >"$f" 2>"$f.err" &
	pid=$!
	sleep "$(awk -v s="$start" -v n="$(date +%s%3N)" 'BEGIN { d = (s - n) / 1000; print (d > 0 ? d : 0) }')"
	o0=$(ticks_of "$OTSD_PID"); g0=$(pg_ticks)
	if ! wait "$pid" || [ ! -s "$f" ]; then
		echo "gateway (C client) $action ($tag): $(head -c 400 "$f.err" "$f" | tr '\n' ' ')" >>"$WORK/errors"
		echo ERR
		return
	fi
	o1=$(ticks_of "$OTSD_PID"); g1=$(pg_ticks)
	read -r rps n c_us < <(sed -E 's/.*"rps": ([0-9.]+), "requests": ([0-9]+), "errors": [0-9]+, "cpu_us": ([0-9]+).*/\1 \2 \3/' "$f")
	cpu_note "gw $action $3 $4" "$(awk -v c="$c_us" -v n="$n" 'BEGIN { printf "%.0f", c / n }') $(us_per $((o1 - o0)) "$n") $(us_per $((g1 - g0)) "$n")"
	printf '%.1f\n' "$rps"
}
# gwc: the gateway side with the chosen client
gwc() { if [ "$CLIENT" = c ]; then gc "$@"; else gw "$@"; fi; }
# ns ACTION TAG: the SQL side as a Node application runs it (sql_client.js:
# otsd's statements, prepared, over libpq by pg-native, CONC connections)
ns() {
	local action=$1 tag=$2_$RANDOM start f g0 g1 a b c
	start=$(( $(date +%s%3N) + 1500 ))
	f=$LOGS/ns.$action.$tag.json
	g0=$(pg_ticks)
	if ! OTS_CONNINFO="host=$SOCK port=$PORT dbname=bench user=otsbench" ATTRS="$ATTRS" BENCH_ROWS=$ROWS \
		node "$HERE/gateway/sql_client.js" "$action" "$T" "$CONC" "$start" "$tag" >"$f" 2>"$f.err"; then
		echo "node SQL $action ($tag): $(head -c 400 "$f.err" "$f" | tr '\n' ' ')" >>"$WORK/errors"
		echo ERR
		return
	fi
	g1=$(pg_ticks)
	read -r a b c < <(node -e "const r = JSON.parse(require('fs').readFileSync('$f')); console.log(r.rps, r.requests, r.cpu_us)")
	cpu_note "nsql $action $CONC" "$(awk -v c="$c" -v n="$b" 'BEGIN { printf "%.0f", c / n }') - $(us_per $((g1 - g0)) "$b")"
	printf '%.1f\n' "$a"
}
# sq SCRIPT MODE CLIENTS: pgbench as otsbench
sq() {
	local script=$1 mode=$2 clients=$3 log g0 g1 c1 n jobs
	log=$LOGS/sql.$script.$mode.$clients.$RANDOM.log
	jobs=$((clients < 2 ? clients : 2))
	g0=$(pg_ticks)
	# the subshell's `times` gives pgbench's CPU time (its only child)
	if ( "$PGBIN/pgbench" -n -U otsbench -M "$mode" -c "$clients" -j "$jobs" -T "$T" \
			-f "$SCRIPTS/$script.sql" >"$log" 2>&1; rc=$?; times >"$log.times"; exit $rc ) \
		&& grep -q '^tps = ' "$log"; then
		g1=$(pg_ticks)
		n=$(awk '/^number of transactions actually processed:/ { print $6 }' "$log")
		c1=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); print (u[1] * 60 + u[2]) + (s[1] * 60 + s[2]) }' "$log.times")
		cpu_note "sql $script $mode $clients" "$(awk -v c="$c1" -v n="$n" 'BEGIN { printf "%.0f", c * 1e6 / n }') - $(us_per $((g1 - g0)) "$n")"
		awk '/^tps = / { printf "%.1f\n", $3; exit }' "$log"
	else
		echo "sql $script ($mode, -c $clients): $(grep -m3 -iE 'error|abort' "$log" | tr '\n' ' ')" >>"$WORK/errors"
		echo ERR
	fi
}
# median [-f FORMAT] VALUE...: the median of the values that are not ERR
median() {
	local fmt=%.1f
	if [ "$1" = -f ]; then fmt=$2; shift 2; fi
	printf '%s\n' "$@" | { grep -v ERR || true; } | sort -g | awk -v f="$fmt\n" '{ a[NR] = $1 } END {
	if (NR == 0) print "ERR"; else if (NR % 2) printf f, a[(NR + 1) / 2]; else printf f, (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
ratio3() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "ERR" || b == "ERR" || b + 0 == 0) print "ERR"; else printf "%.3f", a / b }'; }
# cpu LABEL: the median of each column of the label's "client otsd postgres" notes
cpu() {
	local f=$WORK/cpu.${1// /_} col out=()
	for col in 1 2 3; do
		out+=("$( { [ -f "$f" ] && awk -v c=$col '{ print $c }' "$f"; } | grep -v '^-$' | sort -g \
			| awk '{ a[NR] = $1 } END { if (NR == 0) print "-"; else print a[int((NR + 1) / 2)] }')")
	done
	echo "${out[*]}"
}
# µs per request at the median req/s of one client (latency)
lat() { awk -v r="$1" 'BEGIN { if (r == "ERR" || r + 0 == 0) print "-"; else printf "%.0f", 1e6 / r }'; }

declare -A GW_RPS SQL_RPS NSQL_RPS RATIO NRATIO RAW X LABEL
LABEL=([put]=PutRow [get]=GetRow [range]="GetRange 100" [update]=UpdateRow [batch]="BatchWriteRow 200"
	[hop]="no query")
echo "running (T=${T}s, reps=$REPS; gateway ($CLIENT_NAME): $PROCS process(es) x $CONC outstanding, otsd pool_size $POOL threads $THREADS; SQL: pgbench -M prepared -c $CLIENTS -j $JOBS) ..." >&2
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
T_BENCH=$(now)
checkpoint_if_put() { case "$1" in put | update | batch) sql "CHECKPOINT" >/dev/null ;; esac; }
# nsq: the Node SQL run, with the Node client only
nsq() { if [ "$CLIENT" = node ]; then checkpoint_if_put "$1"; ns "$@"; else echo ERR; fi; }
for a in $CASES; do
	gs=() ss=() rs=() zs=() rz=()
	for ((r = 1; r <= REPS; r++)); do
		# writes: each side starts after a checkpoint (full-page images alike)
		if ((r % 2)); then
			checkpoint_if_put "$a"; x=$(gwc "$a" "r$r" "$PROCS" "$CONC")
			checkpoint_if_put "$a"; y=$(sq "$a" prepared "$CLIENTS")
			z=$(nsq "$a" "r$r")
		else
			z=$(nsq "$a" "r$r")
			checkpoint_if_put "$a"; y=$(sq "$a" prepared "$CLIENTS")
			checkpoint_if_put "$a"; x=$(gwc "$a" "r$r" "$PROCS" "$CONC")
		fi
		gs+=("$x"); ss+=("$y"); zs+=("$z"); rs+=("$(ratio3 "$x" "$y")"); rz+=("$(ratio3 "$x" "$z")")
	done
	GW_RPS[$a]=$(median "${gs[@]}"); SQL_RPS[$a]=$(median "${ss[@]}"); NSQL_RPS[$a]=$(median "${zs[@]}")
	RATIO[$a]=$(median -f %.2f "${rs[@]}"); NRATIO[$a]=$(median -f %.2f "${rz[@]}")
	RAW[$a]="gateway ${gs[*]} / SQL ${ss[*]} / ratios ${rs[*]} / node SQL ${zs[*]} / ratios ${rz[*]}"
	printf '  %-13s gateway %-40s SQL %-40s ratios %s node SQL %s ratios %s\n' "${LABEL[$a]}" "${gs[*]}" "${ss[*]}" "${rs[*]}" "${zs[*]}" "${rz[*]}" >&2
done

# extra runs (3 repetitions each, medians): what a libpq round trip costs
# (SELECT 1), what otsd's unnamed statements cost (-M extended), and the
# latency of one client
XREPS=3
xrun() { # KEY COMMAND...: median of XREPS runs into X[KEY]
	local key=$1 v=() i; shift
	for ((i = 1; i <= XREPS; i++)); do checkpoint_if_put "${key%% *}"; v+=("$("$@")"); done
	X[$key]=$(median "${v[@]}"); RAW["x $key"]="${v[*]}"
	printf '  %-26s %s\n' "$key" "${v[*]}" >&2
}
if [ "$EXTRA" = 1 ]; then
	xrun "select1 $CLIENTS" sq select1 prepared "$CLIENTS"
	xrun "select1 1" sq select1 prepared 1
	for a in $CASES; do
		xrun "$a extended" sq "$a" extended "$CLIENTS"
		xrun "$a sql1" sq "$a" prepared 1
		xrun "$a gw1" gwc "$a" "one$RANDOM" 1 1
	done
fi
T_BENCH_END=$(now)

# ---------------------------------------------------------------- report
GIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')
GIT_DIRTY=$(git -C "$ROOT" status --porcelain -- gateway bench 2>/dev/null | grep -q . && echo ' (+ uncommitted changes in gateway/ or bench/)' || true)
T_END=$(date +%s)
met() { awk -v r="$1" 'BEGIN { if (r == "ERR") print "ERR"; else print (r >= 0.5 ? "yes" : "NO") }'; }
echo
echo "== otsd ($CLIENT_NAME) vs the same ots calls in SQL (pgbench -M prepared), $(date -u '+%F %H:%M UTC'), git $GIT$GIT_DIRTY"
echo
# server CPU ratio: PostgreSQL's CPU per SQL request / (otsd's + PostgreSQL's)
# per gateway request, what the ratio would be with the client elsewhere
server_ratio() {
	local gc go gg sc so sg
	read -r gc go gg <<<"$(cpu "gw $1 $PROCS $CONC")"
	read -r sc so sg <<<"$(cpu "sql $1 prepared $CLIENTS")"
	awk -v o="$go" -v g="$gg" -v s="$sg" 'BEGIN { if (o == "-" || g == "-" || s == "-" || o + g == 0) print "-"; else printf "%.2f", s / (o + g) }'
}
# server CPU per request, gateway ÷ SQL: (otsd's + PostgreSQL's) / PostgreSQL's (target <= 1.5)
server_cost() {
	awk -v r="$(server_ratio "$1")" 'BEGIN { if (r == "-" || r + 0 == 0) print "-"; else printf "%.2f", 1 / r }'
}
cost_met() { awk -v c="$1" 'BEGIN { if (c == "-") print "-"; else print (c <= 1.5 ? "yes" : "NO") }'; }
if [ "$CLIENT" = c ]; then
	echo "| call | gateway req/s | SQL req/s (pgbench) | ratio gateway/SQL | target | met? | server CPU per request, gateway ÷ SQL | target | met? |"
	echo "|---|---:|---:|---:|---:|---|---:|---:|---|"
	for a in $CASES; do
		if [ "$a" = hop ]; then
			echo "| no query (ListSearchIndex; SQL: SELECT 1) | ${GW_RPS[$a]} | ${SQL_RPS[$a]} | ${RATIO[$a]} | - | - | $(server_cost "$a") | - | - |"
		else
			echo "| ${LABEL[$a]} | ${GW_RPS[$a]} | ${SQL_RPS[$a]} | ${RATIO[$a]} | 0.5 | $(met "${RATIO[$a]}") | $(server_cost "$a") | 1.5 | $(cost_met "$(server_cost "$a")") |"
		fi
	done
	echo
	echo "gateway: bench/gateway/load.c, $CLIENTS keep-alive connections each with one request outstanding, otsd pool_size $POOL, threads $THREADS;"
else
	echo "| call | gateway req/s | SQL req/s (pgbench) | ratio gateway/SQL | target | met? | server CPU ratio | SQL req/s (Node, libpq) | ratio gateway/Node SQL |"
	echo "|---|---:|---:|---:|---:|---|---:|---:|---:|"
	for a in $CASES; do
		echo "| ${LABEL[$a]} | ${GW_RPS[$a]} | ${SQL_RPS[$a]} | ${RATIO[$a]} | 0.5 | $(met "${RATIO[$a]}") | $(server_ratio "$a") | ${NSQL_RPS[$a]} | ${NRATIO[$a]} |"
	done
	echo
	echo "gateway: $PROCS node process(es) x $CONC outstanding requests (client.js, tablestore $SDK_VERSION, keep-alive), otsd pool_size $POOL, threads $THREADS;"
fi
echo "SQL: pgbench -n -M prepared -c $CLIENTS -j $JOBS, user otsbench; ${T} s runs, $REPS repetitions alternating (order flipped each), medians."
echo "server CPU ratio: PostgreSQL's CPU per SQL request / (otsd's + PostgreSQL's) per gateway request: the ratio with the client on other cores."
[ "$CLIENT" = c ] || echo "Node SQL: one Node process (sql_client.js) with $CONC libpq connections (pg-native), otsd's statements prepared: what a Node application would run instead of the SDK."
echo
echo "CPU time per request (µs, medians over the runs; client = node, load.c or pgbench, postgres = every process of the instance):"
echo
echo "| run | client | otsd | postgres | total | 2 cores / req/s |"
echo "|---|---:|---:|---:|---:|---:|"
cpu_row() { # TITLE LABEL REQ/S
	local c o g
	read -r c o g <<<"$(cpu "$2")"
	echo "| $1 | $c | $o | $g | $(awk -v c="$c" -v o="$o" -v g="$g" 'BEGIN { printf "%.0f", c + o + g }') | $(awk -v r="$3" 'BEGIN { if (r == "ERR" || r + 0 == 0) print "-"; else printf "%.0f", 2e6 / r }') |"
}
for a in $CASES; do
	cpu_row "${LABEL[$a]} gateway" "gw $a $PROCS $CONC" "${GW_RPS[$a]}"
	cpu_row "${LABEL[$a]} SQL" "sql $a prepared $CLIENTS" "${SQL_RPS[$a]}"
	[ "$CLIENT" = c ] || cpu_row "${LABEL[$a]} Node SQL" "nsql $a $CONC" "${NSQL_RPS[$a]}"
done
if [ "$CLIENT" = c ] && [[ " $CASES " == *" hop "* ]]; then
	read -r _ HOP _ <<<"$(cpu "gw hop $PROCS $CONC")"
	echo
	echo "otsd's budget: what the 1.5 target leaves otsd (half of PostgreSQL's CPU for the SQL call, when PostgreSQL's part through otsd"
	echo "costs what the SQL call costs) against otsd's CPU for the call and for a request it answers without PostgreSQL (µs):"
	echo
	echo "| call | otsd's budget | otsd | otsd, no query |"
	echo "|---|---:|---:|---:|"
	for a in $CASES; do
		[ "$a" = hop ] && continue
		read -r _ o _ <<<"$(cpu "gw $a $PROCS $CONC")"
		read -r _ _ g <<<"$(cpu "sql $a prepared $CLIENTS")"
		echo "| ${LABEL[$a]} | $(awk -v g="$g" 'BEGIN { if (g == "-") print "-"; else printf "%.0f", g / 2 }') | $o | $HOP |"
	done
fi
if [ "$EXTRA" = 1 ]; then
	echo
	echo "the libpq round trip, otsd's way of calling (-M extended: an unnamed statement parsed every call), one client:"
	echo
	echo "| run | req/s at -c $CLIENTS | CPU µs/req (client / postgres) | one client: req/s | µs/req |"
	echo "|---|---:|---:|---:|---:|"
	echo "| SELECT 1 (-M prepared) | ${X["select1 $CLIENTS"]} | $(cpu "sql select1 prepared $CLIENTS" | awk '{ print $1 " / " $3 }') | ${X["select1 1"]} | $(lat "${X["select1 1"]}") |"
	for a in $CASES; do
		echo "| ${LABEL[$a]} SQL -M prepared | ${SQL_RPS[$a]} | $(cpu "sql $a prepared $CLIENTS" | awk '{ print $1 " / " $3 }') | ${X["$a sql1"]} | $(lat "${X["$a sql1"]}") |"
		echo "| ${LABEL[$a]} SQL -M extended | ${X["$a extended"]} | $(cpu "sql $a extended $CLIENTS" | awk '{ print $1 " / " $3 }') | | |"
		echo "| ${LABEL[$a]} gateway, 1 process x 1 | | $(cpu "gw $a 1 1" | awk '{ print $1 " (otsd " $2 ") / " $3 }') | ${X["$a gw1"]} | $(lat "${X["$a gw1"]}") |"
	done
fi
echo
echo "machine: nproc=$(nproc), CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), RAM $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)"
echo "software: $PGVER; ots $OTS_SO md5 $(md5sum "$OTS_SO" | cut -c1-12); otsd $OTSD_INFO; node $NODE_VERSION; pgbench $("$PGBIN/pgbench" --version | awk '{ print $NF }')"
echo "data: bench_t, $ROWS rows (100 per partition key, 8 hash partitions), loaded in $LOAD_S s; settings: ${SETTINGS[*]}"
echo "otsd log: $GWLOG ($( [ -f "$GWLOG" ] && wc -l <"$GWLOG" || echo 0) lines)"
echo "raw req/s per run:"
for k in "${!RAW[@]}"; do echo "  $k: ${RAW[$k]}"; done | sort
echo "load average (1/5/15 min) before the runs: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews req/s)"
echo "timings: runs $(secs "$T_BENCH" "$T_BENCH_END") s, total $((T_END - T_START)) s; command: GW_CLIENT=$CLIENT GW_T=$T GW_REPS=$REPS GW_PROCS=$PROCS GW_CONC=$CONC GW_POOL=$POOL GW_THREADS=$THREADS $0"

# ---------------------------------------------------------------- picture
if ! command -v gnuplot >/dev/null && [ "$(id -u)" = 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gnuplot-nox >"$LOGS/apt.log" 2>&1 || true
fi
if ! command -v gnuplot >/dev/null; then
	echo "picture: gnuplot not found (Debian: gnuplot-nox), none drawn"
else
	: >"$WORK/rps.dat"; : >"$WORK/cpu.dat"; : >"$WORK/server.dat"
	num() { sed 's/^ERR$/0/; s/^-$/0/; s/^$/0/' <<<"$1"; }
	for a in $CASES; do
		echo "\"${LABEL[$a]}\" $(num "${GW_RPS[$a]}") $(num "${SQL_RPS[$a]}") $(num "${RATIO[$a]}") $(num "$(server_ratio "$a")") $(num "$(server_cost "$a")")" >>"$WORK/rps.dat"
		read -r c o g <<<"$(cpu "gw $a $PROCS $CONC")"
		echo "\"${LABEL[$a]% 100}\\ngateway\" $(num "$c") $(num "$o") $(num "$g")" >>"$WORK/cpu.dat"
		read -r c o g <<<"$(cpu "sql $a prepared $CLIENTS")"
		echo "\"${LABEL[$a]% 100}\\nSQL\" $(num "$c") 0 $(num "$g")" >>"$WORK/cpu.dat"
		# the server's CPU per request: otsd + PostgreSQL against PostgreSQL
		read -r c o g <<<"$(cpu "gw $a $PROCS $CONC")"
		read -r c2 o2 g2 <<<"$(cpu "sql $a prepared $CLIENTS")"
		echo "\"${LABEL[$a]}\" $(awk -v o="$(num "$o")" -v g="$(num "$g")" 'BEGIN { print o + g }') $(num "$g2")" >>"$WORK/server.dat"
	done
	# three panels: req/s (log scale), the ratios against the target, and
	# where each request's CPU time goes
	gnuplot <<GP && echo "picture: $PNG"
set terminal pngcairo size 1500,560 font "sans,10" noenhanced
set output "$PNG"
set multiplot layout 1,3 title "otsd + $CLIENT_NAME vs the same ots calls in SQL (pgbench -M prepared) — $(date -u '+%Y-%m-%d'), $(nproc) cores, git $GIT\n$PROCS process x $CONC outstanding, otsd pool_size $POOL threads $THREADS; pgbench -c $CLIENTS -j $JOBS; medians of $REPS alternating runs of $T s"
set style data histograms
set style fill solid 0.7 border -1
set xtics rotate by -25 offset -1,0
set grid ytics
set bmargin 5
set title "requests per second (log scale)"
set logscale y
set yrange [10:*]
set style histogram clustered gap 1
set boxwidth 0.9
set key top right
plot "$WORK/rps.dat" using 2:xtic(1) title "gateway (otsd, $CLIENT_NAME)" lc rgb "#2e86c1", \
     "" using 3 title "SQL over libpq (pgbench)" lc rgb "#7f8c8d"
unset logscale y
set title "gateway ÷ SQL"
$(if [ "$CLIENT" = c ]; then cat <<C
set yrange [0:3.6]
set key top left
plot "$WORK/rps.dat" using 4:xtic(1) title "req/s ratio (target >= 0.5)" lc rgb "#2e86c1", \
     "" using 6 title "server CPU per request (target <= 1.5)" lc rgb "#85c1e9", \
     0.5 with lines dt 2 lw 2 lc rgb "#2e86c1" title "0.5", \
     1.5 with lines dt 2 lw 2 lc rgb "#c0392b" title "1.5"
C
else cat <<N
set yrange [0:1]
plot "$WORK/rps.dat" using 4:xtic(1) title "req/s ratio" lc rgb "#2e86c1", \
     "" using 5 title "server CPU ratio (client elsewhere)" lc rgb "#85c1e9", \
     0.5 with lines dt 2 lw 2 lc rgb "#c0392b" title "target 0.5"
N
fi)
$(if [ "$CLIENT" = c ]; then cat <<C
set title "server CPU µs per request (log scale)"
set logscale y
set yrange [10:*]
set style histogram clustered gap 1
set boxwidth 0.9
set key top left
plot "$WORK/server.dat" using 2:xtic(1) title "gateway: otsd + PostgreSQL" lc rgb "#2e86c1", \
     "" using 3 title "SQL: PostgreSQL" lc rgb "#7f8c8d"
C
else cat <<N
set title "CPU µs per request, by process"
set yrange [0:*]
set style histogram rowstacked
set boxwidth 0.7
set key top left
plot "$WORK/cpu.dat" using 2:xtic(1) title "client (node / pgbench)" lc rgb "#f5b041", \
     "" using 3 title "otsd" lc rgb "#2e86c1", \
     "" using 4 title "PostgreSQL" lc rgb "#7f8c8d"
N
fi)
unset multiplot
GP
fi
if [ -s "$WORK/errors" ]; then
	echo "ERRORS:"
	sed 's/^/  /' "$WORK/errors"
	exit 2
fi
