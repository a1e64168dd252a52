#!/usr/bin/env bash
# test/cluster/range_compare.sh: get_range and get_range_rows through the
# proxy against a single node, over random ranges (range_compare.sql says
# what is compared). Prints "test range_compare ... ok|FAILED".
#
# By itself it starts its own cluster (ports from $RANGE_COMPARE_PORT,
# default 5570); or give it databases made beforehand (empty of tables
# named rc_*): COMPARE_PROXY=CONNSTR COMPARE_REF=CONNSTR (test/cluster/compare_lib.sh).
# RC_SEED (default 0.42) seeds the ranges, RC_RANGES (default 120) counts them.
set -euo pipefail

# shellcheck source=test/cluster/compare_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/compare_lib.sh"
compare_run range_compare "${RANGE_COMPARE_PORT:-5570}" 's/^ *\([0-9]* ranges .*\)/\1/p' \
	-v seed="${RC_SEED:-0.42}" -v ranges="${RC_RANGES:-120}"
