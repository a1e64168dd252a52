#!/usr/bin/env bash
# test/cluster/search_compare.sh: ots.search and the search index DDL
# through the proxy against a single node, over random searches
# (search_compare.sql says what is compared). Prints "test search_compare
# ... ok|FAILED".
#
# By itself it starts its own cluster (ports from $SEARCH_COMPARE_PORT,
# default 5575); or give it databases made beforehand (empty of tables
# named sc_*): COMPARE_PROXY=CONNSTR COMPARE_REF=CONNSTR (test/cluster/compare_lib.sh).
# SC_SEED (default 0.42) seeds the searches, SC_SEARCHES (default 300) counts them.
set -euo pipefail

# shellcheck source=test/cluster/compare_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/compare_lib.sh"
compare_run search_compare "${SEARCH_COMPARE_PORT:-5575}" 's/^.*NOTICE: *\([0-9]* searches .*\)/\1/p' \
	-v seed="${SC_SEED:-0.42}" -v searches="${SC_SEARCHES:-300}"
