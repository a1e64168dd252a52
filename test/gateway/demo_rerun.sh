#!/usr/bin/env bash
# test/gateway/demo_rerun.sh: a newcomer's path through README, run twice:
# tools/demo, tools/otsd, README's Node.js program with the key tools/otsd
# printed; then tools/demo again (it recreates ots_demo), the program again,
# tools/otsd again, the program again.  Each run of the program must print
# "new" (after the second tools/demo, otsd answered 403 "permission denied
# for schema public"), and each tools/otsd must print the same key as export
# lines.
#
#   test/gateway/demo_rerun.sh     (as root, or with sudo: it is a manual
#                                   test, not part of tools/test: it builds
#                                   and installs ots and runs this checkout's
#                                   demo server and otsd, as the tools do)
#
# OTSD_LISTEN=host:port and OTS_PG_CONFIG are passed to the tools.  Leaves
# the demo server and otsd running.  Prints "test NAME ... ok|FAILED" lines;
# the exit status is non-zero when one failed.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$here/../.." && pwd -P)"
endpoint="http://${OTSD_LISTEN:-127.0.0.1:8800}"
status=0
log="$(mktemp -d /tmp/ots-demo-rerun.XXXXXX)"

report() {
	echo "test $1 ... $2${3:+ ($3)}"
	[ "$2" = ok ] || status=1
}

# README's program, as printed but for the endpoint, beside the SDK of the gateway suite
if [ ! -d "$here/node_modules/tablestore" ]; then
	(cd "$here" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >"$log/npm.log" 2>&1 ||
		{ cat "$log/npm.log"; exit 1; }
fi
program="$here/.demo_rerun_program.js"
trap 'rm -f "$program"' EXIT
python3 - "$root/README.md" "$endpoint" >"$program" <<'EOF'
import re, sys
readme = open(sys.argv[1]).read().split("## Tablestore SDKs: the protocol gateway")[1]
print(re.search(r"```js\n(.*?)```", readme, re.S).group(1).replace("'http://127.0.0.1:8800'", repr(sys.argv[2])))
EOF

# run_otsd NAME: tools/otsd; its export lines set OTS_KEY_ID and OTS_SECRET here
run_otsd() {
	local exports
	if ! "$root/tools/otsd" >"$log/$1.log" 2>&1; then
		report "$1" FAILED "tools/otsd failed: $(tail -n 3 "$log/$1.log" | tr '\n' ' ')"
		return
	fi
	exports="$(grep -E '^  export OTS_(KEY_ID|SECRET)=' "$log/$1.log")"
	if [ "$(grep -c . <<<"$exports")" != 2 ]; then
		report "$1" FAILED "no export lines for OTS_KEY_ID and OTS_SECRET"
		return
	fi
	eval "$exports"
	export OTS_KEY_ID OTS_SECRET
	report "$1" ok "$(grep -E '^otsd (is running|already runs)|restarting' "$log/$1.log" | head -n 1)"
}

run_demo() {
	if "$root/tools/demo" >"$log/$1.log" 2>&1; then
		report "$1" ok "$(grep -E 'otsd runs on' "$log/$1.log" | sed 's/^==> //' || true)"
	else
		report "$1" FAILED "tools/demo failed: $(tail -n 3 "$log/$1.log" | tr '\n' ' ')"
	fi
}

run_program() {
	local out
	out="$(cd "$here" && node "$program" 2>&1)"
	if [ "$out" = new ]; then
		report "$1" ok "printed new"
	else
		report "$1" FAILED "$(head -c 300 <<<"$out" | tr '\n' ' ')"
	fi
}

run_demo demo_rerun_first_demo
run_otsd demo_rerun_first_otsd
run_program demo_rerun_program
run_program demo_rerun_program_again
run_demo demo_rerun_demo_again
run_program demo_rerun_program_after_demo
key_before="${OTS_KEY_ID:-}"
run_otsd demo_rerun_otsd_again
[ "${OTS_KEY_ID:-}" = "$key_before" ] || report demo_rerun_same_key FAILED "$key_before, then ${OTS_KEY_ID:-none}"
run_program demo_rerun_program_after_otsd
[ "$status" = 0 ] && rm -rf "$log" || echo "the tools' output: $log"
exit "$status"
