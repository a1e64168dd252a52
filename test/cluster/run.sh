#!/usr/bin/env bash
# test/cluster/run.sh: the cluster suite (docs/cluster.md): ots_proxy in a
# proxy instance over shard instances running ots, each its own PostgreSQL
# (test/cluster/lib.sh; /tmp/ots-cluster-*, unix sockets only, ports from
# $CLUSTER_PORT, default 5580; removed on exit, TC_KEEP=1 keeps them).
# Prints "test NAME ... ok|FAILED" lines:
#
#   regress2/FILE, regress4/FILE  (a, b) the regression files that use only the
#       ots API (REGRESS_API below), run with pg_regress --use-existing in a proxy
#       database over 2 and over 4 shards, each file's output compared with the
#       single node's expected/FILE.out with CONTEXT lines taken out of both
#       (a call raises in another backend, so its CONTEXT differs), nothing else;
#       CREATE EXTENSION IF NOT EXISTS ots reads ots_proxy in both
#   cluster_sql/FILE  (c) test/cluster/sql/FILE.sql vs test/cluster/expected/FILE.out,
#       exactly, over 2 shards
#   cluster_routing  (d) keys of every partition-key type written through the
#       proxy, each found by a direct query of the shards' views on exactly
#       the shard its partition maps to (routing.sql)
#   cluster_add_shard_*  (e) a third shard added while a client writes: every
#       row and version identical before and after (through the proxy and in
#       the shards' storage), indexes and AUTO_INCREMENT followed, each key on
#       the shard the new map names, the writer's calls all acknowledged and
#       present or refused with OTSPartitionUnavailable (move.sql); and
#       cluster_add_shard_from_one_node: a node's tables made before any cluster,
#       served through a proxy of one shard, then of two (move.sh)
#   cluster_move_*  (e) the mover runs the owner's code as the owner, copies
#       row-level security, does not finish under a transaction open across
#       its switch, and, stopped by a shard down, says where the move stands
#       and how to complete or abort it, which then works (mover.sh)
#   cluster_down_*  (f) a shard stopped and started again (down.sql)
#   cluster_failover  (g) a shard's primary stopped, its streaming standby
#       promoted; the proxy's map names both (host=a,b target_session_attrs=
#       read-write) and its calls on that shard's keys work again
#   NAME from test/cluster/*_compare.sh  (h) scripts the others add, run as they are
#   cluster_tools_start_count  (i) tools/cluster start 2 where .cluster/ holds a
#       cluster of 3 shards: refused, before anything is installed or started,
#       naming its 3 shards and the commands that remove it
#
#   CLUSTER_PARTS="regress2 regress4 sql routing add_shard down failover compare tools"
#   (the parts to run, default all); REGRESS_API="put_get_row ..." these files only
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=tools/lib.sh
. "$here/../../tools/lib.sh"
# shellcheck source=test/cluster/lib.sh
. "$here/lib.sh"
export LC_ALL=C.UTF-8 LANG=C.UTF-8
root="$OTS_ROOT"

# The regression files that use only the ots API, or read tables with plain
# SQL (each table's view in the proxy database, proxy/sql/50_views.sql),
# whose output through the proxy is the single node's apart from CONTEXT
# lines (every sql/*.sql was run so; REGRESS_API="$(ls sql | sed -n
# 's/\.sql$//p')" runs them all again). The others, each with the first
# reason it differs:
# - they read or write a table's storage ("t$data", "t$p0": on the shards,
#   not in the proxy database): versions_ttl (LOCK TABLE "vt$data"),
#   hash_prefix ("hp$data"'s partition key), bad_input (its row dump reads
#   "bi$data"), table_ddl (the storage's columns), batch_ops (its bulk-path
#   checks count "bt_bulk$data"'s partitions), cells_roundtrip ("rt$data"'s
#   cells), transactions ("tx1$data"), leaf_cache ("lc_t$data"),
#   index_plans (loads "ip$data" directly), security_trap (grants on
#   "trap_s$data" in the proxy database), planner_security (grants on
#   "pl_secret$data"), owner_settings (an index on "t$data");
# - they write through a table's view, read-only in the proxy database:
#   sql_view, view_write, view_procedure;
# - auto_increment: each shard has its own AUTO_INCREMENT sequence, so two
#   shards hand out the same value (4 distinct ids for 6 rows);
# - get_range: capacity units summed over shards give {"read": 2} where the
#   node gives 1 for a range that reads nothing or little (then its
#   scan-cost checks);
# - they use ots internals the proxy does not have (ots.tables, ots.cells,
#   ots.error_code, ots.stats, purge, the write point's counters, pg_cron,
#   logical decoding, pg_dump): values_codec (ots.cells), index_edges and
#   secondary_index (ots.tables), stats (ots.stats), view_plans (pg_cron,
#   plans over the storage), catalog_integrity, purge, purge_lock,
#   purge_owner, tap_tables, write_point, storage_drop, expiry_cron,
#   parallel_query, dump_restore, tableam, stream_decoding;
# - they create roles and schemas in the proxy database only (a role must
#   exist on every node, docs/cluster.md): catalog_visibility, row_security,
#   security, storage_guard, restore;
# - stream: the stream functions are not routed (0A000 through the proxy).
REGRESS_API="${REGRESS_API:-conditions filters write_size put_get_row update_row delete_row tap_rows request_fields}"

parts=" ${CLUSTER_PARTS:-regress2 regress4 sql routing add_shard down failover compare tools} "
want() { [[ "$parts" == *" $1 "* ]]; }
port="${CLUSTER_PORT:-5580}"
status=0
pass() { echo "test $1 ... ok${2:+ ($2)}"; }
fail() {
	echo "test $1 ... FAILED${2:+ ($2)}"
	status=1
}

trap tc_cleanup EXIT
# the instances: a proxy and 4 shards; each part makes its own databases
tc_start cluster 4 "$port"
work="$CLU_BASE/work"
mkdir -p "$work"
chmod 777 "$work"
pg_regress="$("$OTS_PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress"

# no_context FILE: FILE without CONTEXT lines: the "CONTEXT:  " line and the
# lines of further context levels after it (PL/pgSQL function ..., SQL
# statement ..., each on a line of its own without a prefix).
no_context() {
	awk '
		/^CONTEXT:  / { ctx = 1; next }
		ctx && /^(PL\/pgSQL function|SQL statement|SQL function|PL\/Proxy|remote |COPY |parallel worker)/ { next }
		{ ctx = 0; print }' "$1"
}

# run_regress LABEL DB INPUTDIR EXACT FILE...: runs the files with pg_regress
# --use-existing in proxy database DB and prints a line per file; EXACT=1
# compares the output with the expected file as it is, else without CONTEXT.
run_regress() {
	local label="$1" db="$2" indir="$3" exact="$4" f out
	shift 4
	out="$work/$label"
	mkdir -p "$out"
	chmod 777 "$out"
	ots_as_pg_user "$pg_regress" --use-existing --bindir="$OTS_PG_BIN" \
		--host="$(clu_dir proxy)" --port="$(clu_port proxy)" --user="$(ots_pg_user_name)" \
		--dbname="$db" --inputdir="$indir" --outputdir="$out" \
		"$@" >"$out/pg_regress.log" 2>&1 || true
	for f in "$@"; do
		if [ ! -f "$out/results/$f.out" ]; then
			fail "$label/$f" "no output: $out/pg_regress.log"
		elif [ "$exact" = 1 ] && diff -u "$indir/expected/$f.out" "$out/results/$f.out" >"$out/$f.diff"; then
			pass "$label/$f"
		elif [ "$exact" != 1 ] && diff -u <(no_context "$indir/expected/$f.out") \
			<(no_context "$out/results/$f.out") >"$out/$f.diff"; then
			pass "$label/$f"
		else
			fail "$label/$f" "$(grep -c '^[-+][^-+]' "$out/$f.diff") lines differ: $out/$f.diff"
			head -n 40 "$out/$f.diff" | sed 's/^/    /'
		fi
	done
}

# regress_part LABEL SHARD...: (a)/(b): the API files over those shards.
regress_part() {
	local label="$1" in="$work/$1-in" f
	shift
	tc_db "$label" "$@"
	mkdir -p "$in/sql" "$in/expected"
	for f in $REGRESS_API; do
		sed 's/^CREATE EXTENSION IF NOT EXISTS ots;$/CREATE EXTENSION IF NOT EXISTS ots_proxy;/' \
			"$root/sql/$f.sql" >"$in/sql/$f.sql"
		sed 's/^CREATE EXTENSION IF NOT EXISTS ots;$/CREATE EXTENSION IF NOT EXISTS ots_proxy;/' \
			"$root/expected/$f.out" >"$in/expected/$f.out"
	done
	chmod -R a+rX "$in"
	# shellcheck disable=SC2086 # one file per word
	run_regress "$label" "$label" "$in" 0 $REGRESS_API
}

if want regress2; then regress_part regress2 0 1; fi
if want regress4; then regress_part regress4 0 1 2 3; fi

# (c) the cluster's own regression files, exactly
if want sql && compgen -G "$here/sql/*.sql" >/dev/null; then
	tc_db cluster_sql 0 1
	files=()
	for f in "$here"/sql/*.sql; do
		files+=("$(basename "$f" .sql)")
	done
	mkdir -p "$work/sql-in"
	cp -R "$here/sql" "$here/expected" "$work/sql-in/"
	chmod -R a+rX "$work/sql-in"
	# the files run psql on the shards themselves (roles are per instance)
	export OTS_PSQL="$OTS_PG_BIN/psql"
	run_regress cluster_sql cluster_sql "$work/sql-in" 1 "${files[@]}"
fi

# shard_keys CONNSTR...: every key of routing.sql's tables as each shard's
# view holds it, with the connstr of the shard it was found on.
shard_keys() {
	local c
	for c in "$@"; do
		clu_connstr_psql "$c" -At -F '|' -v c="$c" <<-'EOF'
			SELECT 'r_str', k, :'c' FROM r_str
			UNION ALL SELECT 'r_int', k::text, :'c' FROM r_int
			UNION ALL SELECT 'r_bin', encode(k, 'hex'), :'c' FROM r_bin
			UNION ALL SELECT 'r_hash', k, :'c' FROM r_hash
			UNION ALL SELECT 'r_two', k::text, :'c' FROM r_two
		EOF
	done | LC_ALL=C sort
}

# (d) routing: each key on exactly one shard, the one its partition maps to
if want routing; then
	tc_db routing 0 1 2 3
	if ! out="$(clu_psql proxy -v out="$work/routing.expected" -f - <"$here/routing.sql" 2>&1)"; then
		fail cluster_routing "writing the keys: $out"
	else
		LC_ALL=C sort -o "$work/routing.expected" "$work/routing.expected"
		mapfile -t conns < <(clu_proxy_value "SELECT connstr FROM ots_cluster.shards() ORDER BY shard")
		shard_keys "${conns[@]}" >"$work/routing.found"
		n="$(wc -l <"$work/routing.expected")"
		dups="$(sort -u "$work/routing.found" | cut -d'|' -f1,2 | uniq -d | wc -l)"
		per="$(cut -d'|' -f3 "$work/routing.found" | sort | uniq -c | awk '{print $1}' | paste -sd/)"
		# the placement must also spread: routing every key to one shard would match too
		spread="$(cut -d'|' -f3 "$work/routing.found" | sort | uniq -c | awk -v n="$n" '$1 >= n / 8 { k++ } END { print k + 0 }')"
		if [ "$n" -ge 2000 ] && [ "$spread" = 4 ] && diff -q "$work/routing.expected" "$work/routing.found" >/dev/null; then
			pass cluster_routing "$n keys of 5 tables (STRING, INTEGER, BINARY, hash-prefixed, two-column), each on the one shard its partition maps to, $per per shard"
		else
			fail cluster_routing "$n keys expected, $(wc -l <"$work/routing.found") found, $dups on two shards, per shard $per: diff $work/routing.expected $work/routing.found"
			diff "$work/routing.expected" "$work/routing.found" | head -n 10 | sed 's/^/    /'
		fi
	fi
fi

if want add_shard; then
	# shellcheck source=test/cluster/move.sh
	. "$here/move.sh"
	move_test
	grow_test
	# shellcheck source=test/cluster/mover.sh
	. "$here/mover.sh"
	mover_test
	mover_down_test
	mover_abort_test
fi
if want down; then
	# shellcheck source=test/cluster/down.sh
	. "$here/down.sh"
	down_test
fi
if want failover; then
	# shellcheck source=test/cluster/failover.sh
	. "$here/failover.sh"
	failover_test
fi

# (h) the others' comparison scripts, as they are
if want compare; then
	for f in "$here"/*_compare.sh; do
		[ -e "$f" ] || continue
		if ! bash "$f"; then
			fail "$(basename "$f" .sh)" "exit status"
		fi
	done
fi

# (i) tools/cluster start N on an existing cluster of another size: a
# cluster of 3 shards as .cluster/ holds one (its port files), which
# tools/cluster must refuse before it installs, builds or starts anything
if want tools; then
	fake="$root/.cluster"
	if [ -e "$fake" ]; then
		fail cluster_tools_start_count "$fake exists already"
	else
		for d in proxy shard0 shard1 shard2; do
			mkdir -p "$fake/$d"
			echo 1 >"$fake/$d/port"
		done
		rc=0
		out="$(timeout 60 "$root/tools/cluster" start 2 </dev/null 2>&1)" || rc=$?
		rm -rf "$fake"
		if [ "$rc" = 1 ] && grep -q "has 3 shards, not 2" <<<"$out" && grep -q "tools/cluster stop && rm -rf $fake" <<<"$out" &&
			! grep -q "building\|installing\|creating" <<<"$out"; then
			pass cluster_tools_start_count "refused: $(head -n 1 <<<"$out")"
		else
			fail cluster_tools_start_count "exit status $rc: $(tr '\n' ' ' <<<"$out" | cut -c1-400)"
		fi
	fi
fi

exit "$status"
