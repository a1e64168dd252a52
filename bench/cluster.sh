#!/usr/bin/env bash
# bench/cluster.sh — the ots API through the PL/Proxy proxy (ots_proxy, issue
# 18) against the same calls on one shard directly, and clusters of 1, 2 and
# 4 shards, all on this machine.
#
# Usage (from anywhere; needs PostgreSQL 15 server binaries, pgbench, plproxy
# (Debian postgresql-15-plproxy) and ots + ots_proxy installed in them
# (`make install`)):
#
#     bench/cluster.sh
#
# In one run it starts 1 + max(CB_SHARDS) private PostgreSQL 15 instances
# as tools/cluster_lib.sh makes them (unix sockets only, each in its own
# directory under one /tmp directory, run as `postgres` when invoked as
# root) with bench/run.sh's settings (autovacuum off): the proxy instance
# (port BENCH_PORT) with one database per cluster (c1, c2, c4: ots_proxy,
# ots_cluster.create_cluster over that cluster's shard databases,
# CB_PARTITIONS partitions), and shard instances shard0..shard3 (ports
# BENCH_PORT+1...) holding the shard databases c1 (on shard0), c2 (shard0,
# shard1), c4 (shard0..shard3), each with ots.  Every cluster gets
# `bench_t (pk1 string, pk2 integer)` by the proxy's ots.create_table and
# BENCH_ROWS rows (bench/gateway.sh's rows: row i has pk1 'p' || (10000 +
# i / 100), pk2 i % 100 and bench/run.sh's 5 attributes: 100 rows per
# partition key), written by ots.batch_write_row straight into the shard
# the proxy's map gives each partition key.  "direct" is the 1-shard
# cluster's shard database (shard0/c1) without the proxy: the same rows on
# the same instance.  Before timing it checks that the proxies answer
# exactly what the direct database answers (get_row of 20 keys spread over
# the table, get_range of one partition key, the 5000-row range across
# partition keys).
#
# Then, each pgbench run `pgbench -n -M prepared -c C -j min(C,2) -T CB_T`,
# CB_REPS repetitions with the order of the targets rotated every repetition
# (so drift from other work on the shared machine hits all alike), medians:
#   1. overhead: put_row (a new partition key), get_row (a random row),
#      update_row (increment of a2), batch_write_row (10 new rows, 10
#      partition keys), get_range (the 100 rows of one partition key), direct
#      against the 1-shard cluster and against bare PL/Proxy functions over
#      the same shard, at each of CB_OVERHEAD_CLIENTS;
#   2. throughput: get_row and put_row, direct and clusters of 1, 2, 4 shards
#      at each of CB_CLIENTS (all on this machine's cores: this shows the
#      cost of more shards, not scaling);
#   3. merge: get_range of 5000 rows across partition keys (limit 5000 from
#      a random partition key on), direct and the clusters, CB_MERGE_CLIENTS.
# For every run it takes the CPU time of pgbench (`times`), of the proxy
# instance and of the shard instances (postmaster, live children and what
# exited children left, from /proc), per call.  It prints the tables, a
# scaling model's inputs (proxy and shard CPU per call, shards one proxy
# core feeds, merge cost per row), machine info, raw runs and the command,
# and draws BENCH_PNG (gnuplot).  Everything is removed on exit.
# About 9 minutes with the defaults on the 2-core VM (534 s of runs, 2026-11-26).
#
# Environment knobs (defaults in brackets):
#   CB_T                  seconds per run [3]       CB_REPS  repetitions [3]
#   CB_CASES              overhead calls ["put get update batch range"]
#   CB_OVERHEAD_CLIENTS   client counts of part 1 ["1 4"]
#   CB_CLIENTS            client counts of part 2 ["2 8"]
#   CB_MERGE_CLIENTS      client counts of part 3 ["1"]
#   CB_SHARDS             cluster sizes ["1 2 4"] (1 is always built: it is
#                         the overhead's cluster and holds the direct rows)
#   CB_PARTS              parts to run ["overhead throughput merge"]
#   CB_PARTITIONS         PL/Proxy partitions per cluster [64]
#   CB_BARE=0             no "bare PL/Proxy" target in part 1 (plain plproxy
#                         functions, RUN ON 0, over the same shard: what
#                         PL/Proxy itself costs, without ots_proxy)
#   CB_EXTENDED=1         add a "direct -M extended" target to part 1 (at its
#                         lowest client count: the direct call sent as
#                         PL/Proxy sends it, parsed and planned every call)
#   CB_TCP=1              the proxies reach the shards over TCP on 127.0.0.1
#                         instead of unix sockets (what separate machines do)
#   BENCH_ROWS            rows per cluster [100000]
#   BENCH_PORT            the proxy's port; shards use the next ones [5490]
#   BENCH_PNG             the picture [./bench-cluster.png]
#   BENCH_KEEP=1          leave the instances running (prints how to stop them)
#   PGBIN                 PostgreSQL's bindir [pg_config --bindir]

set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
T=${CB_T:-3}
REPS=${CB_REPS:-3}
CASES=${CB_CASES:-put get update batch range}
OVER_CLIENTS=${CB_OVERHEAD_CLIENTS:-1 4}
TPUT_CLIENTS=${CB_CLIENTS:-2 8}
MERGE_CLIENTS=${CB_MERGE_CLIENTS:-1}
PARTS_RUN=${CB_PARTS:-overhead throughput merge}
PARTITIONS=${CB_PARTITIONS:-64}
TCP=${CB_TCP:-0}
BARE=${CB_BARE:-1}
EXTENDED=${CB_EXTENDED:-0}
ROWS=${BENCH_ROWS:-100000}
PORT=${BENCH_PORT:-5490}
PNG=${BENCH_PNG:-./bench-cluster.png}
T_START=$(date +%s)
# cluster sizes, 1 first and always
SIZES=$(printf '%s\n' 1 ${CB_SHARDS:-1 2 4} | awk '!seen[$1]++' | tr '\n' ' ' | sed 's/ $//')
MAXS=$(printf '%s\n' $SIZES | sort -n | tail -1)
PKEYS=$((ROWS / 100))
[ "$PKEYS" -ge 60 ] || { echo "cluster.sh: BENCH_ROWS must be at least 6000 (the merge reads 5000 rows)" >&2; exit 1; }
ROWS=$((PKEYS * 100))
maxc() { printf '%s\n' "$@" | sort -n | tail -1; }
MAXCLIENTS=$(maxc $OVER_CLIENTS $TPUT_CLIENTS $MERGE_CLIENTS)

PGBIN=${PGBIN:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}
for b in initdb pg_ctl psql pgbench postgres pg_config; do
	[ -x "$PGBIN/$b" ] || { echo "cluster.sh: $PGBIN/$b not found (set PGBIN)" >&2; exit 1; }
done
PGVER=$("$PGBIN/postgres" --version)
case "$PGVER" in *" 15."*) ;; *) echo "cluster.sh: need PostgreSQL 15, found: $PGVER" >&2; exit 1 ;; esac
PKGLIB=$("$PGBIN/pg_config" --pkglibdir)
SHAREDIR=$("$PGBIN/pg_config" --sharedir)
for f in "$PKGLIB/ots.so" "$PKGLIB/plproxy.so" "$SHAREDIR/extension/ots_proxy.control" "$SHAREDIR/extension/plproxy.control"; do
	[ -f "$f" ] || { echo "cluster.sh: $f not found (plproxy: Debian postgresql-15-plproxy; ots, ots_proxy: make install)" >&2; exit 1; }
done

WORK=$(mktemp -d /tmp/ots-cbench.XXXXXX)
chmod 755 "$WORK"
LOGS=$WORK/logs
SCRIPTS=$WORK/scripts
mkdir -p "$LOGS" "$SCRIPTS"
# the instances as tools/cluster_lib.sh makes them (tools/cluster and
# test/cluster use it too): one directory each under $WORK (its data, port,
# server.log, and its unix socket), run as postgres when we are root
export OTS_PG_CONFIG=$PGBIN/pg_config
# shellcheck source=tools/lib.sh
. "$ROOT/tools/lib.sh"
# shellcheck source=tools/cluster_lib.sh
. "$ROOT/tools/cluster_lib.sh"
CLU_BASE=$WORK
[ "$OTS_PG_BIN" = "$PGBIN" ] || { echo "cluster.sh: tools/lib.sh uses $OTS_PG_BIN, not $PGBIN" >&2; exit 1; }
DBUSER=$(ots_pg_user_name)
INSTANCES=(proxy)
for ((i = 0; i < MAXS; i++)); do INSTANCES+=("shard$i"); done
declare -A IPID

cleanup() {
	local rc=$? n
	if [ "${BENCH_KEEP:-0}" = 1 ] && { [ $rc = 0 ] || [ $rc = 2 ]; }; then
		echo
		echo "kept: psql -h $WORK/proxy -p $PORT -U $DBUSER c1 (the proxy's c1, c2, c4, bare1; shards: $WORK/shard<i>, ports $((PORT + 1))..$((PORT + MAXS)), databases c1 c2 c4)"
		echo "stop with: for d in $WORK/*/data; do $(ots_is_root && echo 'runuser -u postgres -- ')$PGBIN/pg_ctl -D \$d stop -m fast; done; rm -rf $WORK"
		return
	fi
	clu_stop_all
	if [ $rc != 0 ] && [ $rc != 2 ]; then
		echo "cluster.sh: FAILED (rc=$rc); server log tails:" >&2
		for n in "${INSTANCES[@]}"; do
			[ -f "$WORK/$n/server.log" ] && { echo "-- $n" >&2; tail -n 8 "$WORK/$n/server.log" >&2; }
		done
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- instances
# bench/run.sh's settings (shared_buffers split between the instances) after
# cluster_lib's own; CB_TCP=1 listens on 127.0.0.1 too
BENCH_CONF=(
	"max_connections = $((4 * MAXCLIENTS + 20))"
	"work_mem = 16MB"
	"maintenance_work_mem = 128MB"
	"wal_buffers = 16MB"
	"max_wal_size = 4GB"
	"min_wal_size = 512MB"
	"checkpoint_timeout = 30min"
	"checkpoint_completion_target = 0.9"
	"fsync = on"
	"full_page_writes = on"
	"random_page_cost = 1.1"
	"effective_cache_size = 2GB"
	"jit = off"
	"max_parallel_workers_per_gather = 0"
	"autovacuum = off"
	"track_io_timing = off"
)
[ "$TCP" = 1 ] && BENCH_CONF+=("listen_addresses = '127.0.0.1'")
clu_create proxy "$PORT" "${CLU_PROXY_CONF[@]}" "${BENCH_CONF[@]}" "shared_buffers = 128MB"
for ((i = 0; i < MAXS; i++)); do
	clu_create "shard$i" $((PORT + 1 + i)) "${CLU_SHARD_CONF[@]}" "${BENCH_CONF[@]}" "shared_buffers = 256MB"
done
for n in "${INSTANCES[@]}"; do
	clu_start "$n"
	IPID[$n]=$(head -1 "$WORK/$n/data/postmaster.pid")
done

unset PGHOST PGPORT PGOPTIONS PGDATABASE PGPASSWORD || true
export PGUSER=$DBUSER
PSQL=("$PGBIN/psql" -qXAt -v ON_ERROR_STOP=1)
q() { "${PSQL[@]}" -h "$WORK/$1" -p "$(clu_port "$1")" -d "$2" -c "$3"; } # INSTANCE DB SQL
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------- clusters and data
# cluster N: shard databases cN on shard0..shard<N-1> and the proxy's
# database cN over them (cluster_lib's clu_shard_db, clu_proxy_db), the table by
# the proxy's create_table
t0=$(now)
export CLU_PARTITIONS=$PARTITIONS
for n in $SIZES; do
	CLU_DB=c$n
	shards=()
	for ((i = 0; i < n; i++)); do clu_shard_db "shard$i" >/dev/null; shards+=("shard$i"); done
	clu_proxy_db "${shards[@]}" >/dev/null
	q proxy "c$n" "SELECT ots.create_table('bench_t', 'pk1 string, pk2 integer')" >/dev/null
	q proxy "c$n" "CREATE SEQUENCE put_seq" >/dev/null
	for ((i = 0; i < n; i++)); do q "shard$i" "c$n" "CREATE EXTENSION pg_prewarm" >/dev/null; done
done
q shard0 c1 "CREATE SEQUENCE put_seq" >/dev/null
# bare1: the same calls as bare PL/Proxy functions (no ots_proxy: no
# wrapper, no catalog, no error handling) over the 1-shard cluster's shard,
# to split the overhead into PL/Proxy's and ots_proxy's
if [ "$BARE" = 1 ]; then
	q proxy postgres "CREATE DATABASE bare1" >/dev/null
	CLU_DB=c1
	q proxy bare1 "CREATE EXTENSION plproxy;
CREATE SERVER bare FOREIGN DATA WRAPPER plproxy OPTIONS (p0 '$(clu_connstr shard0)');
CREATE USER MAPPING FOR PUBLIC SERVER bare;
CREATE SCHEMA ots;
CREATE SEQUENCE put_seq;
CREATE TYPE ots.row_result AS (primary_key jsonb, attributes jsonb, consumed jsonb);
CREATE TYPE ots.range_result AS (rows jsonb, next_start_primary_key jsonb, consumed jsonb);
CREATE FUNCTION ots.put_row(table_name text, primary_key jsonb, attributes jsonb DEFAULT '{}', condition text DEFAULT 'IGNORE',
	column_condition jsonb DEFAULT NULL, return_type text DEFAULT 'RT_NONE') RETURNS ots.row_result
	LANGUAGE plproxy AS \$\$ CLUSTER 'bare'; RUN ON 0; \$\$;
CREATE FUNCTION ots.get_row(table_name text, primary_key jsonb, columns_to_get text[] DEFAULT NULL, max_versions integer DEFAULT NULL,
	time_range jsonb DEFAULT NULL, filter jsonb DEFAULT NULL, with_timestamps boolean DEFAULT false, start_column text DEFAULT NULL,
	end_column text DEFAULT NULL) RETURNS ots.row_result
	LANGUAGE plproxy AS \$\$ CLUSTER 'bare'; RUN ON 0; \$\$;
CREATE FUNCTION ots.update_row(table_name text, primary_key jsonb, put jsonb DEFAULT NULL, \"delete\" jsonb DEFAULT NULL,
	delete_all text[] DEFAULT NULL, increment jsonb DEFAULT NULL, condition text DEFAULT 'IGNORE', column_condition jsonb DEFAULT NULL,
	return_type text DEFAULT 'RT_NONE', return_columns text[] DEFAULT NULL) RETURNS ots.row_result
	LANGUAGE plproxy AS \$\$ CLUSTER 'bare'; RUN ON 0; \$\$;
CREATE FUNCTION ots.get_range(table_name text, inclusive_start_primary_key jsonb, exclusive_end_primary_key jsonb,
	direction text DEFAULT 'FORWARD', \"limit\" integer DEFAULT NULL, columns_to_get text[] DEFAULT NULL, max_versions integer DEFAULT NULL,
	time_range jsonb DEFAULT NULL, filter jsonb DEFAULT NULL, with_timestamps boolean DEFAULT false, start_column text DEFAULT NULL,
	end_column text DEFAULT NULL) RETURNS ots.range_result
	LANGUAGE plproxy AS \$\$ CLUSTER 'bare'; RUN ON 0; \$\$;
CREATE FUNCTION ots.batch_write_row(request jsonb, is_atomic boolean DEFAULT false)
	RETURNS TABLE (table_name text, \"index\" integer, is_ok boolean, error_code text,
	               error_message text, primary_key jsonb, attributes jsonb, consumed jsonb)
	LANGUAGE plproxy AS \$\$ CLUSTER 'bare'; RUN ON 0; \$\$;" >/dev/null
fi
# The rows go straight to the shard the proxy's map gives their partition
# key (ots_cluster.key_hash, partition_of, partitions: what the proxy's
# calls route by), by ots.batch_write_row on that shard, 100 rows (one
# partition key) a call, the shards in parallel; loading is not what is
# measured.  The checks below read them back through the proxies.
LOADQ="SELECT count(*) FILTER (WHERE NOT b.is_ok) FROM unnest('{@KEYS@}'::int[]) p,
  LATERAL ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'bench_t', 'rows',
    (SELECT jsonb_agg(jsonb_build_object('type', 'PUT',
        'primary_key', jsonb_build_object('pk1', 'p' || (10000 + i / 100), 'pk2', i % 100),
        'attributes', jsonb_build_object('a1', 'abcdefghijklmnopqrst', 'a2', i, 'a3', 1.5,
                                         'a4', true, 'a5', 'ABCDEFGHIJKLMNOPQRST')))
       FROM generate_series(p * 100, p * 100 + 99) i)))) b"
declare -A LOADED_S DIST
for n in $SIZES; do
	t1=$(now)
	CLU_DB=c$n
	pids=()
	for ((i = 0; i < n; i++)); do
		keys=$(q proxy "c$n" "SELECT string_agg(p::text, ',') FROM generate_series(0, $((PKEYS - 1))) p
			JOIN ots_cluster.partitions m
			  ON m.partition = ots_cluster.partition_of(ots_cluster.key_hash(to_jsonb('p' || (10000 + p)), 'STRING'))
			WHERE m.connstr = '$(clu_connstr "shard$i")'")
		q "shard$i" "c$n" "${LOADQ/@KEYS@/$keys}" >"$WORK/load.$i" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	LOADED_S[$n]=$(secs "$t1" "$(now)")
	# each shard holds its share, the shares add up to ROWS
	tot=0 d=()
	for ((i = 0; i < n; i++)); do
		[ "$(cat "$WORK/load.$i")" = 0 ] || { echo "cluster.sh: rows failed to load into cluster $n, shard $i" >&2; exit 1; }
		c=$(q "shard$i" "c$n" 'SELECT count(*) FROM "bench_t$data"')
		tot=$((tot + c)); d+=("$c")
	done
	DIST[$n]="${d[*]}"
	[ "$tot" = "$ROWS" ] || { echo "cluster.sh: cluster $n holds $tot rows on its shards (${d[*]}), expected $ROWS" >&2; exit 1; }
done
# CB_TCP=1: the proxies' maps name the shards by 127.0.0.1
if [ "$TCP" = 1 ]; then
	for n in $SIZES; do
		q proxy "c$n" "SELECT count(ots_cluster.set_partition(partition, regexp_replace(connstr, 'host=\S+', 'host=127.0.0.1')))
		                   FROM ots_cluster.partitions" >/dev/null
	done
	[ "$BARE" = 1 ] && q proxy bare1 "ALTER SERVER bare OPTIONS (SET p0 'host=127.0.0.1 port=$((PORT + 1)) dbname=c1')" >/dev/null
fi
for n in "${INSTANCES[@]}"; do
	for db in $(q "$n" postgres "SELECT datname FROM pg_database WHERE datname ~ '^(c|proxy)[0-9]+$'"); do
		q "$n" "$db" "VACUUM ANALYZE" >/dev/null
		if [ "$n" != proxy ]; then
			q "$n" "$db" "SELECT sum(pg_prewarm(c.oid)) FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
			              WHERE s.nspname = 'public' AND c.relkind IN ('r', 'i')" >/dev/null
		fi
	done
	q "$n" postgres "CHECKPOINT" >/dev/null
done
LOAD_S=$(secs "$t0" "$(now)")
echo "loaded $ROWS rows into each of the clusters $SIZES in $LOAD_S s (per cluster: $(for n in $SIZES; do printf '%s: %s s; ' "$n" "${LOADED_S[$n]}"; done))" >&2

# ---------------------------------------------------------------- the calls
ATTRS='{"a1": "abcdefghijklmnopqrst", "a2": 12345, "a3": 1.5, "a4": true, "a5": "ABCDEFGHIJKLMNOPQRST"}'
cat >"$SCRIPTS/put.sql" <<EOF
SELECT * FROM ots.put_row('bench_t', ('{"pk1": "n' || current_database() || '_' || nextval('put_seq') || '", "pk2": ' || :client_id || '}')::jsonb, '$ATTRS'::jsonb);
EOF
# a random existing row: its key is pk1 "p<p>", pk2 <k>
KEYSET="\\set i random(0, $((ROWS - 1)))
\\set p 10000 + :i / 100
\\set k :i % 100"
cat >"$SCRIPTS/get.sql" <<EOF
$KEYSET
SELECT * FROM ots.get_row('bench_t', ('{"pk1": "p' || :p || '", "pk2": ' || :k || '}')::jsonb);
EOF
cat >"$SCRIPTS/update.sql" <<EOF
$KEYSET
SELECT * FROM ots.update_row('bench_t', ('{"pk1": "p' || :p || '", "pk2": ' || :k || '}')::jsonb, increment => '{"a2": 1}'::jsonb);
EOF
# 10 new rows of 10 partition keys (b<n>a .. b<n>j), the request as JSON text
# cast once (what a client's parameter costs)
{
	echo '\set n random(1, 1000000000000)'
	printf "SELECT count(*) FILTER (WHERE is_ok) FROM ots.batch_write_row(('[{\"table_name\": \"bench_t\", \"rows\": ["
	for j in a b c d e f g h i j; do
		[ "$j" = a ] || printf ', '
		printf "{\"type\": \"PUT\", \"primary_key\": {\"pk1\": \"b' || :n || '%s\", \"pk2\": 0}, \"attributes\": %s}" "$j" "$ATTRS"
	done
	printf "]}]')::jsonb);\n"
} >"$SCRIPTS/batch.sql"
cat >"$SCRIPTS/range.sql" <<EOF
\set p 10000 + random(0, $((PKEYS - 1)))
SELECT * FROM ots.get_range('bench_t', ('{"pk1": "p' || :p || '", "pk2": {"\$inf": "min"}}')::jsonb, ('{"pk1": "p' || :p || '", "pk2": {"\$inf": "max"}}')::jsonb, 'FORWARD', 100);
EOF
# 5000 rows from a random partition key on: 50 partition keys, on every shard
cat >"$SCRIPTS/merge.sql" <<EOF
\set p 10000 + random(0, $((PKEYS - 51)))
SELECT * FROM ots.get_range('bench_t', ('{"pk1": "p' || :p || '", "pk2": {"\$inf": "min"}}')::jsonb, '{"pk1": {"\$inf": "max"}, "pk2": {"\$inf": "max"}}'::jsonb, 'FORWARD', 5000);
EOF
declare -A LABEL=([put]="put_row" [get]="get_row" [update]="update_row (increment)" [batch]="batch_write_row 10" [range]="get_range 100 (one key)" [merge]="get_range 5000 (all keys)")

# target: direct = shard0/c1 without the proxy; p<N> = the proxy's c<N>; bare = the proxy's bare1
tinst() { case $1 in direct*) echo shard0 ;; *) echo proxy ;; esac; }
tport() { clu_port "$(tinst "$1")"; }
tdb() { case $1 in bare) echo bare1 ;; direct*) echo c1 ;; *) echo "c${1#p}" ;; esac; }
tmode() { [ "$1" = directx ] && echo extended || echo prepared; }
tname() { case $1 in direct) echo direct ;; directx) echo "direct -M extended" ;; bare) echo "bare PL/Proxy" ;; *) echo "${1#p} shard$([ "${1#p}" = 1 ] || echo s)" ;; esac; }

# ---------------------------------------------------------------- same answers
# every proxy answers what the direct database answers
MERGE_OK=1
same() { # LABEL SQL [merge]
	local d p n
	d=$(q shard0 c1 "$2" 2>&1) || { echo "cluster.sh: direct: $1: $d" >&2; exit 1; }
	for n in $SIZES; do
		if ! p=$(q proxy "c$n" "$2" 2>&1) || [ "$p" != "$d" ]; then
			if [ "${3:-}" = merge ]; then
				echo "$1 through the proxy's c$n differs from direct (${p:0:300}); the merge part is skipped" >>"$WORK/errors"
				MERGE_OK=0
				return
			fi
			echo "cluster.sh: $1 through the proxy's c$n differs from direct:" >&2
			echo "  direct: ${d:0:300}" >&2
			echo "  proxy:  ${p:0:300}" >&2
			exit 1
		fi
	done
}
same "get_row of 20 keys" "SELECT count(*), md5(string_agg(r.primary_key::text || r.attributes::text, ',' ORDER BY p))
  FROM generate_series(0, $((PKEYS - 1)), $((PKEYS / 20))) p,
       ots.get_row('bench_t', jsonb_build_object('pk1', 'p' || (10000 + p), 'pk2', p % 100)) r WHERE r.primary_key IS NOT NULL"
same "get_range 100" "SELECT rows, next_start_primary_key FROM ots.get_range('bench_t', '{\"pk1\": \"p10017\", \"pk2\": {\"\$inf\": \"min\"}}', '{\"pk1\": \"p10017\", \"pk2\": {\"\$inf\": \"max\"}}', 'FORWARD', 100)"
same "get_range 5000" "SELECT md5(rows::text), jsonb_array_length(rows), next_start_primary_key FROM ots.get_range('bench_t', '{\"pk1\": \"p10003\", \"pk2\": {\"\$inf\": \"min\"}}', '{\"pk1\": {\"\$inf\": \"max\"}, \"pk2\": {\"\$inf\": \"max\"}}', 'FORWARD', 5000)" merge
# the scripts run once on every target (errors show here, not as 0 tps); a
# part-1 call that fails is left out of the runs and named under ERRORS
ok_cases=()
for s in $(printf '%s\n' $CASES get put merge | awk '!seen[$1]++'); do
	ok=1
	for tg in direct $(for n in $SIZES; do echo "p$n"; done) $([ "$BARE" = 1 ] && echo bare); do
		[ "$s" = merge ] && { [ "$tg" = bare ] || [ "$MERGE_OK" = 0 ]; } && continue
		if ! "$PGBIN/pgbench" -n -M prepared -t 1 -h "$WORK/$(tinst "$tg")" -p "$(tport "$tg")" -f "$SCRIPTS/$s.sql" "$(tdb "$tg")" \
				>"$LOGS/try.$s.$tg" 2>&1; then
			case $s in
			get | put) echo "cluster.sh: $s on $(tname "$tg") fails:" >&2; grep -m3 -iE 'error|abort' "$LOGS/try.$s.$tg" >&2; exit 1 ;;
			merge) MERGE_OK=0 ;;
			esac
			echo "${LABEL[$s]} on $(tname "$tg") fails, not run: $(grep -m1 -iE 'error' "$LOGS/try.$s.$tg")" >>"$WORK/errors"
			ok=0
			break
		fi
	done
	[ $ok = 1 ] && case " $CASES " in *" $s "*) ok_cases+=("$s") ;; esac
done
CASES="${ok_cases[*]}"

# ---------------------------------------------------------------- CPU accounting
ticks_of() {
	local sum=0 p f
	for p in "$@"; do
		f=$(cut -d')' -f2- "/proc/$p/stat" 2>/dev/null) || continue
		sum=$((sum + $(awk '{ print $12 + $13 }' <<<"$f")))
	done
	echo "$sum"
}
# every process of an instance: the postmaster, its children, and what its
# exited children (pgbench's backends, PL/Proxy's connections) left it
inst_ticks() { # INSTANCE...
	local sum=0 n pm kids live dead
	for n in "$@"; do
		pm=${IPID[$n]}
		kids=$(cat "/proc/$pm/task/$pm/children" 2>/dev/null || true)
		# shellcheck disable=SC2086
		live=$(ticks_of "$pm" $kids)
		dead=$(cut -d')' -f2- "/proc/$pm/stat" | awk '{ print $14 + $15 }')
		sum=$((sum + live + dead))
	done
	echo "$sum"
}
SHARD_INST=("${INSTANCES[@]:1}")
HZ=$(getconf CLK_TCK)
checkpoint_all() { local n; for n in "${INSTANCES[@]}"; do q "$n" postgres "CHECKPOINT" >/dev/null; done; }

# run PART CASE TARGET CLIENTS REP: one pgbench run; appends a line
# "part case target clients rep tps latency_ms pgbench_us proxy_us shard_us calls"
# to $WORK/runs and prints tps (or ERR)
run() {
	local part=$1 c=$2 tg=$3 cl=$4 rep=$5 log p0 p1 s0 s1 n tps lat cpu jobs
	log=$LOGS/$part.$c.$tg.$cl.$rep.log
	jobs=$((cl < 2 ? cl : 2))
	case $c in put | update | batch) checkpoint_all ;; esac
	p0=$(inst_ticks proxy); s0=$(inst_ticks "${SHARD_INST[@]}")
	if ( "$PGBIN/pgbench" -n -M "$(tmode "$tg")" -c "$cl" -j "$jobs" -T "$T" -h "$WORK/$(tinst "$tg")" -p "$(tport "$tg")" -f "$SCRIPTS/$c.sql" "$(tdb "$tg")" \
			>"$log" 2>&1; rc=$?; times >"$log.times"; exit $rc ) && grep -q '^tps = ' "$log"; then
		p1=$(inst_ticks proxy); s1=$(inst_ticks "${SHARD_INST[@]}")
		n=$(awk '/^number of transactions actually processed:/ { print $6 }' "$log")
		tps=$(awk '/^tps = / { printf "%.1f", $3; exit }' "$log")
		lat=$(awk '/^latency average = / { print $4; exit }' "$log")
		cpu=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); print (u[1] * 60 + u[2]) + (s[1] * 60 + s[2]) }' "$log.times")
		echo "$part $c $tg $cl $rep $tps $lat $(awk -v c="$cpu" -v n="$n" -v p=$((p1 - p0)) -v s=$((s1 - s0)) -v hz="$HZ" \
			'BEGIN { printf "%.1f %.1f %.1f", c * 1e6 / n, p * 1e6 / hz / n, s * 1e6 / hz / n }') $n" >>"$WORK/runs"
		echo "$tps"
	else
		echo "$part $c on $tg (-c $cl): $(grep -m3 -iE 'error|abort' "$log" | tr '\n' ' ')" >>"$WORK/errors"
		echo ERR
	fi
}
# rotate R TARGET...: the targets, starting at the R-th (order changes every repetition)
rotate() { local r=$1; shift; local a=("$@") i; for ((i = 0; i < ${#a[@]}; i++)); do echo "${a[$(((i + r) % ${#a[@]}))]}"; done; }
# sweep PART CASE CLIENTS TARGET...: REPS repetitions over the targets
sweep() {
	local part=$1 c=$2 cl=$3 r tg out; shift 3
	for ((r = 0; r < REPS; r++)); do
		out=()
		for tg in $(rotate "$r" "$@"); do out+=("$tg $(run "$part" "$c" "$tg" "$cl" "$r")"); done
		printf '  %-9s %-24s -c %-2s rep %s: %s\n' "$part" "${LABEL[$c]}" "$cl" "$((r + 1))" "$(IFS=,; echo "${out[*]}")" >&2
	done
}

echo "running (pgbench -M prepared, ${T} s runs, $REPS repetitions, order rotated) ..." >&2
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
T_BENCH=$(now)
: >"$WORK/runs"
ALLP=$(for n in $SIZES; do echo "p$n"; done | tr '\n' ' ')
case " $PARTS_RUN " in *" overhead "*)
	# -M extended (the lowest client count): the direct call as PL/Proxy
	# sends it, an unnamed statement parsed and planned every call
	cl0=$(printf '%s\n' $OVER_CLIENTS | sort -n | head -1)
	for cl in $OVER_CLIENTS; do for c in $CASES; do
		# shellcheck disable=SC2046 # the optional targets: none or one word each
		sweep overhead "$c" "$cl" direct p1 $([ "$BARE" = 1 ] && echo bare) $([ "$EXTENDED" = 1 ] && [ "$cl" = "$cl0" ] && echo directx)
	done; done ;;
esac
case " $PARTS_RUN " in *" throughput "*)
	for c in get put; do for cl in $TPUT_CLIENTS; do sweep throughput "$c" "$cl" direct $ALLP; done; done ;;
esac
case " $PARTS_RUN " in *" merge "*)
	if [ "$MERGE_OK" = 1 ]; then
		for cl in $MERGE_CLIENTS; do sweep merge merge "$cl" direct $ALLP; done
	fi ;;
esac
T_BENCH_END=$(now)

# ---------------------------------------------------------------- report
# med PART CASE TARGET CLIENTS FIELD: the median of a field over the repetitions
# (fields: 6 tps, 7 latency ms, 8 pgbench µs, 9 proxy µs, 10 shard µs)
med() {
	awk -v p="$1" -v c="$2" -v t="$3" -v l="$4" -v f="$5" '$1 == p && $2 == c && $3 == t && $4 == l { print $f }' "$WORK/runs" \
		| sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
# ratio of the per-repetition tps ratios TARGET / direct, median
mratio() { # PART CASE TARGET CLIENTS
	awk -v p="$1" -v c="$2" -v t="$3" -v l="$4" '$1 == p && $2 == c && $4 == l && ($3 == t || $3 == "direct") { v[$3 " " $5] = $6; r[$5] = 1 }
		END { for (k in r) if ((t " " k) in v && ("direct " k) in v && v["direct " k] > 0) print v[t " " k] / v["direct " k] }' "$WORK/runs" \
		| sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) printf "%.2f\n", a[(NR + 1) / 2]; else printf "%.2f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
f0() { awk -v x="$1" 'BEGIN { if (x == "-") print "-"; else printf "%.0f", x }'; }
f3() { awk -v x="$1" 'BEGIN { if (x == "-") print "-"; else printf "%.3f", x }'; }
sub_() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.0f", (a - b) * 1000 }'; }
GIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')
GIT_DIRTY=$(git -C "$ROOT" status --porcelain -- proxy bench src 2>/dev/null | grep -q . && echo ' (+ uncommitted changes)' || true)
T_END=$(date +%s)
echo
echo "== ots through PL/Proxy (ots_proxy) vs one shard directly, $(date -u '+%F %H:%M UTC'), git $GIT$GIT_DIRTY"
echo "   proxy -> shards over $([ "$TCP" = 1 ] && echo 'TCP on 127.0.0.1' || echo 'unix sockets'); $PARTITIONS partitions; all instances on this machine ($(nproc) cores)"
if [ -s "$WORK/runs" ] && grep -q '^overhead ' "$WORK/runs"; then
	echo
	echo "1. proxy overhead per call: the 1-shard cluster (ots_proxy) and bare PL/Proxy functions against the same shard directly (medians; ratio: median of the per-repetition tps ratios)"
	echo
	echo "| call | clients | direct tps | ots_proxy tps | ratio | bare PL/Proxy tps | ratio | direct ms | ots_proxy ms | bare ms | added µs ots_proxy | added µs bare |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for cl in $OVER_CLIENTS; do for c in $CASES; do
		dl=$(med overhead "$c" direct "$cl" 7); pl=$(med overhead "$c" p1 "$cl" 7); bl=$(med overhead "$c" bare "$cl" 7)
		echo "| ${LABEL[$c]} | $cl | $(med overhead "$c" direct "$cl" 6) | $(med overhead "$c" p1 "$cl" 6) | $(mratio overhead "$c" p1 "$cl") | $(med overhead "$c" bare "$cl" 6) | $(mratio overhead "$c" bare "$cl") | $(f3 "$dl") | $(f3 "$pl") | $(f3 "$bl") | $(sub_ "$pl" "$dl") | $(sub_ "$bl" "$dl") |"
	done; done
	echo
	echo "   CPU µs per call, pgbench / proxy instance / shard instance (every process of each instance, medians):"
	echo
	xh=; xs=
	if [ "$EXTENDED" = 1 ]; then xh=' direct -M extended |'; xs='---:|'; fi
	echo "| call | clients | direct | ots_proxy | bare PL/Proxy |$xh"
	echo "|---|---:|---:|---:|---:|$xs"
	cpu3() { echo "$(f0 "$(med "$1" "$2" "$3" "$4" 8)") / $(f0 "$(med "$1" "$2" "$3" "$4" 9)") / $(f0 "$(med "$1" "$2" "$3" "$4" 10)")"; }
	for cl in $OVER_CLIENTS; do for c in $CASES; do
		echo "| ${LABEL[$c]} | $cl | $(cpu3 overhead "$c" direct "$cl") | $(cpu3 overhead "$c" p1 "$cl") | $(cpu3 overhead "$c" bare "$cl") |$([ "$EXTENDED" = 1 ] && echo " $(cpu3 overhead "$c" directx "$cl") ($(med overhead "$c" directx "$cl" 6) tps) |")"
	done; done
fi
if grep -q '^throughput ' "$WORK/runs"; then
	echo
	echo "2. throughput (tps, medians; in brackets the median ratio to direct) — every instance on the same $(nproc) cores: this is the cost of more shards, not scaling"
	echo
	printf '| call | clients | direct |'; for n in $SIZES; do printf ' %s |' "$(tname "p$n")"; done; echo
	printf '|---|---:|---:|'; for n in $SIZES; do printf -- '---:|'; done; echo
	for c in get put; do for cl in $TPUT_CLIENTS; do
		printf '| %s | %s | %s |' "${LABEL[$c]}" "$cl" "$(med throughput "$c" direct "$cl" 6)"
		for n in $SIZES; do printf ' %s (%s) |' "$(med throughput "$c" "p$n" "$cl" 6)" "$(mratio throughput "$c" "p$n" "$cl")"; done
		echo
	done; done
	echo
	echo "   CPU µs per call (pgbench / proxy / shards), at the highest client count:"
	cl=$(maxc $TPUT_CLIENTS)
	for c in get put; do
		printf '   %-10s direct %s / - / %s' "${LABEL[$c]}" "$(f0 "$(med throughput "$c" direct "$cl" 8)")" "$(f0 "$(med throughput "$c" direct "$cl" 10)")"
		for n in $SIZES; do printf '; %s %s / %s / %s' "$(tname "p$n")" "$(f0 "$(med throughput "$c" "p$n" "$cl" 8)")" "$(f0 "$(med throughput "$c" "p$n" "$cl" 9)")" "$(f0 "$(med throughput "$c" "p$n" "$cl" 10)")"; done
		echo
	done
fi
if grep -q '^merge ' "$WORK/runs"; then
	echo
	echo "3. merge range: get_range of 5000 rows from a random partition key on (50 partition keys), limit 5000"
	echo
	echo "| target | clients | calls/s | ms per call | CPU µs per call: pgbench / proxy / shards | proxy µs per row returned |"
	echo "|---|---:|---:|---:|---:|---:|"
	for cl in $MERGE_CLIENTS; do for tg in direct $ALLP; do
		pu=$(med merge merge "$tg" "$cl" 9)
		echo "| $(tname "$tg") | $cl | $(med merge merge "$tg" "$cl" 6) | $(f3 "$(med merge merge "$tg" "$cl" 7)") | $(f0 "$(med merge merge "$tg" "$cl" 8)") / $([ "$tg" = direct ] && echo - || f0 "$pu") / $(f0 "$(med merge merge "$tg" "$cl" 10)") | $([ "$tg" = direct ] && echo - || awk -v x="$pu" 'BEGIN { printf "%.2f", x / 5000 }') |"
	done; done
fi
# the model's inputs: proxy and shard CPU per call through the 1-shard
# cluster at the lowest overhead client count, and what one proxy core feeds
if grep -q '^overhead ' "$WORK/runs"; then
	cl=$(printf '%s\n' $OVER_CLIENTS | sort -n | head -1)
	echo
	echo "model inputs (1-shard cluster, -c $cl): CPU µs per call on the proxy instance (P), on the shard through the proxy (S) and directly (D); S/P = shard cores one proxy core keeps busy"
	echo
	echo "| call | P proxy | S shard via proxy | D shard direct | S/P | (P + S) / D | P of bare PL/Proxy | S via bare PL/Proxy |$([ "$EXTENDED" = 1 ] && echo ' D with -M extended |')"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|$xs"
	for c in $CASES; do
		P=$(med overhead "$c" p1 "$cl" 9); S=$(med overhead "$c" p1 "$cl" 10); D=$(med overhead "$c" direct "$cl" 10)
		echo "| ${LABEL[$c]} | $(f0 "$P") | $(f0 "$S") | $(f0 "$D") | $(awk -v p="$P" -v s="$S" 'BEGIN { if (p == "-" || p + 0 == 0) print "-"; else printf "%.2f", s / p }') | $(awk -v p="$P" -v s="$S" -v d="$D" 'BEGIN { if (d == "-" || d + 0 == 0) print "-"; else printf "%.2f", (p + s) / d }') | $(f0 "$(med overhead "$c" bare "$cl" 9)") | $(f0 "$(med overhead "$c" bare "$cl" 10)") |$([ "$EXTENDED" = 1 ] && echo " $(f0 "$(med overhead "$c" directx "$cl" 10)") |")"
	done
fi
echo
echo "machine: nproc=$(nproc), CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), RAM $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)"
echo "software: $PGVER; plproxy $(q proxy c1 "SELECT extversion FROM pg_extension WHERE extname = 'plproxy'"); ots_proxy $(q proxy c1 "SELECT extversion FROM pg_extension WHERE extname = 'ots_proxy'"); ots.so md5 $(md5sum "$PKGLIB/ots.so" | cut -c1-12); pgbench $("$PGBIN/pgbench" --version | awk '{ print $NF }')"
echo "data: bench_t, $ROWS rows per cluster (100 per partition key), rows per shard: $(for n in $SIZES; do printf '%s shard(s): %s; ' "$n" "${DIST[$n]}"; done)loaded in $LOAD_S s"
echo "instances: proxy (shared_buffers 128MB, no preload), shards shard0..shard$((MAXS - 1)) (256MB, ots preloaded), bench/run.sh's other settings, autovacuum off; write runs start after a CHECKPOINT of every instance"
echo "raw runs (part case target clients rep tps latency_ms pgbench_us proxy_us shard_us calls):"
sed 's/^/  /' "$WORK/runs"
echo "load average (1/5/15 min) before the runs: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews tps)"
echo "timings: runs $(secs "$T_BENCH" "$T_BENCH_END") s, total $((T_END - T_START)) s"
echo "command: CB_T=$T CB_REPS=$REPS CB_CASES=\"$CASES\" CB_OVERHEAD_CLIENTS=\"$OVER_CLIENTS\" CB_CLIENTS=\"$TPUT_CLIENTS\" CB_MERGE_CLIENTS=\"$MERGE_CLIENTS\" CB_SHARDS=\"$SIZES\" CB_PARTITIONS=$PARTITIONS CB_TCP=$TCP BENCH_ROWS=$ROWS PGBIN=$PGBIN $0"

# ---------------------------------------------------------------- picture
if ! command -v gnuplot >/dev/null && [ "$(id -u)" = 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gnuplot-nox >"$LOGS/apt.log" 2>&1 || true
fi
if ! command -v gnuplot >/dev/null; then
	echo "picture: gnuplot not found (Debian: gnuplot-nox), none drawn"
elif [ -s "$WORK/runs" ]; then
	num() { sed 's/^-$/0/; s/^$/0/' <<<"$1"; }
	cl=$(printf '%s\n' $OVER_CLIENTS | sort -n | head -1)
	: >"$WORK/lat.dat"; : >"$WORK/cpu.dat"; : >"$WORK/tput.dat"; : >"$WORK/merge.dat"
	for c in $CASES; do
		echo "\"${LABEL[$c]% (*}\" $(num "$(med overhead "$c" direct "$cl" 7)") $(num "$(med overhead "$c" p1 "$cl" 7)") $(num "$(med overhead "$c" bare "$cl" 7)")" >>"$WORK/lat.dat"
		for tg in direct bare p1; do
			[ "$tg" = bare ] && [ "$BARE" != 1 ] && continue
			echo "\"$c $(case $tg in direct) echo direct ;; bare) echo bare ;; *) echo proxy ;; esac)\" $(num "$(med overhead "$c" "$tg" "$cl" 8)") $(num "$(med overhead "$c" "$tg" "$cl" 9)") $(num "$(med overhead "$c" "$tg" "$cl" 10)")" >>"$WORK/cpu.dat"
		done
	done
	grep -q '^throughput ' "$WORK/runs" && for c in get put; do for x in $TPUT_CLIENTS; do
		printf '"%s -c %s" %s' "${LABEL[$c]}" "$x" "$(num "$(med throughput "$c" direct "$x" 6)")" >>"$WORK/tput.dat"
		for n in 1 2 4; do printf ' %s' "$(num "$(med throughput "$c" "p$n" "$x" 6)")" >>"$WORK/tput.dat"; done
		echo >>"$WORK/tput.dat"
	done; done
	mc=$(printf '%s\n' $MERGE_CLIENTS | sort -n | head -1)
	ms() { awk -v x="$(num "$1")" 'BEGIN { printf "%.2f", x / 1000 }'; }
	grep -q '^merge ' "$WORK/runs" && for tg in direct p1 p2 p4; do
		echo "\"$(tname "$tg")\" $(ms "$(med merge merge "$tg" "$mc" 8)") $(ms "$(med merge merge "$tg" "$mc" 9)") $(ms "$(med merge merge "$tg" "$mc" 10)")" >>"$WORK/merge.dat"
	done
	# a panel whose part did not run says so
	panel() { # FILE PLOT-COMMAND
		if [ -s "$1" ]; then echo "${2//\$WORK/$WORK}"; else echo 'set label 1 "not run" at graph 0.5, 0.5 center; unset logscale y; set yrange [0:1]; plot NaN notitle; unset label 1'; fi
	}
	gnuplot <<GP && echo "picture: $PNG"
set terminal pngcairo size 1600,900 font "sans,10" noenhanced
set output "$PNG"
set multiplot layout 2,2 title "ots through PL/Proxy (ots_proxy) vs one shard directly — $(date -u '+%Y-%m-%d'), $(nproc) cores, every instance on this machine, git $GIT\npgbench -M prepared, medians of $REPS rotated runs of $T s; proxy -> shard over $([ "$TCP" = 1 ] && echo 'TCP 127.0.0.1' || echo 'unix sockets')"
set style data histograms
set style fill solid 0.7 border -1
set grid ytics
set bmargin 4
set title "1. latency per call, one client (ms)"
set style histogram clustered gap 1
set boxwidth 0.9
set yrange [0:*]
set key top left
$(panel "$WORK/lat.dat" 'plot "$WORK/lat.dat" using 2:xtic(1) title "direct" lc rgb "#7f8c8d", "" using 4 title "bare PL/Proxy (1 shard)" lc rgb "#85c1e9", "" using 3 title "ots_proxy (1 shard)" lc rgb "#2e86c1"')
set title "1. CPU µs per call, one client, by process"
set style histogram rowstacked
set boxwidth 0.7
set xtics font ",8" rotate by -35 left
$(panel "$WORK/cpu.dat" 'plot "$WORK/cpu.dat" using 2:xtic(1) title "pgbench" lc rgb "#f5b041", "" using 3 title "proxy instance" lc rgb "#2e86c1", "" using 4 title "shard instance(s)" lc rgb "#7f8c8d"')
set xtics font ",10" norotate
set title "2. throughput (tps, log scale), all shards on the same $(nproc) cores: the cost of more shards, not scaling"
set logscale y
set yrange [10:*]
set style histogram clustered gap 1
set boxwidth 0.9
set key top right
$(panel "$WORK/tput.dat" 'plot "$WORK/tput.dat" using 2:xtic(1) title "direct" lc rgb "#7f8c8d", "" using 3 title "1 shard" lc rgb "#85c1e9", "" using 4 title "2 shards" lc rgb "#2e86c1", "" using 5 title "4 shards" lc rgb "#1b4f72"')
unset logscale y
set yrange [0:*]
set title "3. get_range 5000 rows across partition keys: CPU ms per call, by process ($mc client)"
set style histogram rowstacked
set boxwidth 0.6
set key top left
$(panel "$WORK/merge.dat" 'plot "$WORK/merge.dat" using 2:xtic(1) title "pgbench" lc rgb "#f5b041", "" using 3 title "proxy instance" lc rgb "#2e86c1", "" using 4 title "shard instances" lc rgb "#7f8c8d"')
unset multiplot
GP
fi
if [ -s "$WORK/errors" ]; then
	echo "ERRORS:"
	sed 's/^/  /' "$WORK/errors"
	exit 2
fi
