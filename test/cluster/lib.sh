# shellcheck shell=bash
# test/cluster/lib.sh: throwaway ots clusters for test/cluster/run.sh: a
# proxy instance running ots_proxy over N shard instances running ots, each
# its own PostgreSQL (tools/cluster_lib.sh: unix sockets in their own
# directories, trust authentication, the postgres user when root).
# Source it after tools/lib.sh from a bash script running with
# `set -euo pipefail`.
#
#   tc_start NAME N [PORT]   a new cluster in /tmp/ots-cluster-NAME.XXXXXX with
#                            N shards (ports PORT+1..PORT+N, proxy PORT) and
#                            database $CLU_DB on each
#   tc_db DB I...            one more cluster on those instances: database DB
#                            on shards I... (ots) and on the proxy (ots_proxy
#                            over them, in that order); sets CLU_DB=DB
#   tc_stop                  stop every instance of it
#   tc_cleanup               stop and remove it; from an EXIT trap
#                            (TC_KEEP=1 keeps it, with its logs)
#   tc_proxy ARGS... / tc_shard I ARGS...   psql to the proxy / shard I
#   tc_keys_on CONNSTR N     String keys the map sends to that shard

# shellcheck source=tools/cluster_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/cluster_lib.sh"

TC_DIRS=()
# test servers need no durability
CLU_COMMON_CONF+=("fsync = off" "synchronous_commit = off" "full_page_writes = off")

# tc_start NAME N [PORT]: starts a new cluster (the previous one, if any,
# stays until tc_cleanup).
tc_start() {
	local name="$1" n="$2" port="${3:-5580}" i
	local -a shards=()
	CLU_BASE="$(mktemp -d "/tmp/ots-cluster-$name.XXXXXX")"
	chmod 755 "$CLU_BASE"
	TC_DIRS+=("$CLU_BASE")
	for ((i = 0; i < n; i++)); do
		clu_new_shard "shard$i" "$((port + 1 + i))"
		shards+=("shard$i")
	done
	clu_new_proxy "$port" "${shards[@]}"
}

# tc_db DB I...: database DB on shard instances I... and on the proxy, a
# cluster of its own (the instances are shared, the data is not).
tc_db() {
	local i
	local -a shards=()
	CLU_DB="$1"
	shift
	for i in "$@"; do
		clu_shard_db "shard$i"
		shards+=("shard$i")
	done
	clu_proxy_db "${shards[@]}"
}

tc_stop() { clu_stop_all; }

# tc_cleanup: stops every cluster tc_start made and removes its directory.
tc_cleanup() {
	local d
	for d in "${TC_DIRS[@]}"; do
		CLU_BASE="$d" clu_stop_all
		if [ "${TC_KEEP:-0}" = 1 ]; then
			echo "kept $d (logs: $d/*/server.log)" >&2
		else
			rm -rf "$d"
		fi
	done
}

# tc_keys_on CONNSTR N: N String keys ('k1', 'k2', ...; first in number
# order) whose partitions the proxy's map gives to that shard, one a line.
tc_keys_on() {
	clu_psql proxy -At -v c="$1" -v n="$2" <<-'EOF'
		SELECT 'k' || i FROM generate_series(1, 10000) i
		 WHERE ots_cluster.key_hash(to_jsonb('k' || i), 'STRING') & (SELECT count(*) - 1 FROM ots_cluster.partitions)::int
		       IN (SELECT partition FROM ots_cluster.partitions WHERE connstr = :'c')
		 ORDER BY i LIMIT :n
	EOF
}

tc_proxy() { clu_psql proxy "$@"; }
tc_shard() {
	local i="$1"
	shift
	clu_psql "shard$i" "$@"
}
