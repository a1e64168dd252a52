#!/usr/bin/env bash
# test/cluster/range_compare.sh: get_range and get_range_rows through the
# proxy against a single node, over random ranges (range_compare.sql says
# what is compared). Prints "test range_compare ... ok|FAILED".
#
# By itself it starts its own cluster (test/cluster/lib.sh: a proxy over 2
# shards, ports from $RANGE_COMPARE_PORT, default 5570) and makes the single
# node a database of the first shard's instance. Or give it databases made
# beforehand (empty of tables named rc_*):
#   RC_PROXY=CONNSTR RC_REF=CONNSTR test/cluster/range_compare.sh
# RC_SEED (default 0.42) seeds the ranges, RC_RANGES (default 120) counts them.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
seed="${RC_SEED:-0.42}"
ranges="${RC_RANGES:-120}"
out="$(mktemp /tmp/range_compare.XXXXXX)"

if [ -n "${RC_PROXY:-}" ]; then
	psql -X -q -d "$RC_PROXY" -v ref="$RC_REF" -v seed="$seed" -v ranges="$ranges" \
		-f "$here/range_compare.sql" >"$out" 2>&1 || true
else
	# shellcheck source=tools/lib.sh
	. "$here/../../tools/lib.sh"
	# shellcheck source=test/cluster/lib.sh
	. "$here/lib.sh"
	trap tc_cleanup EXIT
	tc_start range_compare 2 "${RANGE_COMPARE_PORT:-5570}"
	tc_shard 0 -d postgres -c "CREATE DATABASE rc_ref"
	tc_shard 0 -d rc_ref -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots"
	chmod 777 "$out"
	tc_proxy -v ref="host=$(clu_dir shard0) port=$(clu_port shard0) dbname=rc_ref" \
		-v seed="$seed" -v ranges="$ranges" -f "$here/range_compare.sql" >"$out" 2>&1 || true
fi

if grep -qx ' *failures: 0' "$out"; then
	echo "test range_compare ... ok ($(sed -n 's/^ *\([0-9]* ranges .*\)/\1/p' "$out"))"
	rm -f "$out"
else
	echo "test range_compare ... FAILED (see $out)"
	sed -n '1,30p' "$out" >&2
	exit 1
fi
