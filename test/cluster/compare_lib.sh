# shellcheck shell=bash
# test/cluster/compare_lib.sh: what each test/cluster/*_compare.sh shares:
# its SQL file run in a proxy database against a single node holding the
# same rows, the verdict from its last line "failures: n".
#
#   compare_run NAME PORT SUMMARY PSQL_VARS...
#     runs test/cluster/NAME.sql with -v ref=CONNSTR and PSQL_VARS (-v k=v):
#     in $<PREFIX>_PROXY with ref $<PREFIX>_REF when the caller set
#     COMPARE_PROXY and COMPARE_REF (databases made beforehand), else in a
#     cluster of its own (a proxy over 2 shards, ports from PORT) with the
#     single node a database of the first shard's instance.  Prints
#     "test NAME ... ok (SUMMARY's match)" or FAILED with the output's head;
#     SUMMARY is a sed expression printing the line to show.
compare_run() {
	local name="$1" port="$2" summary="$3" here out
	shift 3
	here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
	out="$(mktemp "/tmp/$name.XXXXXX")"
	if [ -n "${COMPARE_PROXY:-}" ]; then
		psql -X -q -d "$COMPARE_PROXY" -v ref="$COMPARE_REF" "$@" -f "$here/$name.sql" >"$out" 2>&1 || true
	else
		# shellcheck source=tools/lib.sh
		. "$here/../../tools/lib.sh"
		# shellcheck source=test/cluster/lib.sh
		. "$here/lib.sh"
		trap tc_cleanup EXIT
		tc_start "$name" 2 "$port"
		tc_shard 0 -d postgres -c "CREATE DATABASE compare_ref"
		tc_shard 0 -d compare_ref -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots"
		chmod 777 "$out"
		tc_proxy -v ref="host=$(clu_dir shard0) port=$(clu_port shard0) dbname=compare_ref" \
			"$@" -f "$here/$name.sql" >"$out" 2>&1 || true
	fi
	if grep -qx ' *failures: 0' "$out"; then
		echo "test $name ... ok ($(sed -n "$summary" "$out"))"
		rm -f "$out"
	else
		echo "test $name ... FAILED (see $out)"
		sed -n '1,30p' "$out" >&2
		return 1
	fi
}
