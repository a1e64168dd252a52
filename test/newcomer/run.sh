#!/usr/bin/env bash
# test/newcomer/run.sh: a newcomer's path through README, run twice:
# tools/demo, tools/otsd, README's Node.js program with the key tools/otsd
# printed; then tools/demo again (it recreates ots_demo), the program again,
# tools/otsd again, the program again.  Each run of the program must print
# "new" (after the second tools/demo, otsd answered 403 "permission denied
# for schema public"), and each tools/otsd must print the same key as export
# lines.
#
#   test/newcomer/run.sh    (as root, or with sudo, as the tools it runs:
#                            they install packages, build and install ots,
#                            and run this tree's demo server and otsd)
#
# tools/test runs it last, in its private copy of the tree, so the demo
# server and otsd it starts are that copy's, not a checkout's.  OTSD_LISTEN
# (default: a free loopback port) and OTS_PG_CONFIG are passed to the tools.
# Like tools/demo, it recreates the database ots_demo (twice).  The demo
# server and otsd are stopped at the end unless they were running before.  Prints "test NAME ... ok|FAILED" lines; the exit status is
# non-zero when one failed.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
# README's program runs beside the Tablestore SDK of the gateway suite
sdk="$root/test/gateway"
status=0
log="$(mktemp -d /tmp/ots-newcomer.XXXXXX)"

report() {
	echo "test $1 ... $2${3:+ ($3)}"
	[ "$2" = ok ] || status=1
}

# leave the tree's demo server and otsd as they were found
running_before() { "$root/tools/$1" status 2>/dev/null | grep -q ': running'; }
demo_before=0 otsd_before=0
running_before demo && demo_before=1
running_before otsd && otsd_before=1
# the endpoint: OTSD_LISTEN, else where a running otsd listens, else a free loopback port
if [ -z "${OTSD_LISTEN:-}" ] && [ "$otsd_before" = 1 ]; then
	OTSD_LISTEN="$("$root/tools/otsd" status | sed -n 's|^ *endpoint: *http://||p' | head -n 1)"
fi
if [ -z "${OTSD_LISTEN:-}" ]; then
	OTSD_LISTEN="127.0.0.1:$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
fi
export OTSD_LISTEN
endpoint="http://$OTSD_LISTEN"
program="$sdk/.newcomer_program.js"
# shellcheck disable=SC2317 # called by the EXIT trap
finish() {
	rm -f "$program"
	[ "$otsd_before" = 1 ] || "$root/tools/otsd" stop >/dev/null 2>&1 || true
	[ "$demo_before" = 1 ] || "$root/tools/demo" stop >/dev/null 2>&1 || true
}
trap finish EXIT

# README's program, as printed but for the endpoint
if [ ! -d "$sdk/node_modules/tablestore" ]; then
	(cd "$sdk" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >"$log/npm.log" 2>&1 ||
		{ cat "$log/npm.log"; report newcomer_npm FAILED "npm ci failed"; exit 1; }
fi
if ! python3 - "$root/README.md" "$endpoint" >"$program" 2>"$log/readme.log" <<'EOF'
import re, sys
readme = open(sys.argv[1]).read().split("## Tablestore SDKs: the protocol gateway")[1]
print(re.search(r"```js\n(.*?)```", readme, re.S).group(1).replace("'http://127.0.0.1:8800'", repr(sys.argv[2])))
EOF
then
	report newcomer_readme_program FAILED "README's Node.js program not found: $(tail -n 1 "$log/readme.log")"
	exit 1
fi

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
	# the values as printed (bare or quoted), never evaluated
	OTS_KEY_ID="$(sed -n "s/^  export OTS_KEY_ID=//p" <<<"$exports" | tr -d "'\"")"
	OTS_SECRET="$(sed -n "s/^  export OTS_SECRET=//p" <<<"$exports" | tr -d "'\"")"
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
	out="$(cd "$sdk" && node "$program" 2>&1)"
	if [ "$out" = new ]; then
		report "$1" ok "printed new"
	else
		report "$1" FAILED "$(head -c 300 <<<"$out" | tr '\n' ' ')"
	fi
}

run_demo newcomer_first_demo
run_otsd newcomer_first_otsd
run_program newcomer_program
run_program newcomer_program_again
run_demo newcomer_demo_again
run_program newcomer_program_after_demo
key_before="${OTS_KEY_ID:-}"
run_otsd newcomer_otsd_again
if [ -n "$key_before" ] && [ "${OTS_KEY_ID:-}" = "$key_before" ]; then
	report newcomer_same_key ok "$key_before"
else
	report newcomer_same_key FAILED "${key_before:-none}, then ${OTS_KEY_ID:-none}"
fi
run_program newcomer_program_after_otsd
if [ "$status" = 0 ]; then
	rm -rf "$log"
else
	echo "the tools' output: $log"
fi
exit "$status"
