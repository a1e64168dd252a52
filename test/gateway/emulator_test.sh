#!/usr/bin/env bash
# test/gateway/emulator_test.sh: tools/emulator, as a CI job would use it.
# Called by run.sh (part "emulator") with OTSD naming the otsd to test and
# OTS_PG_CONFIG the PostgreSQL with ots installed; prints "test NAME ...
# ok|FAILED" lines, exit status 1 when one failed.
#   emulator_run         `tools/emulator run -- node emulator_check.js`: the
#                        official Node SDK works against it with only the
#                        exported variables; afterwards its directory and
#                        processes are gone
#   emulator_start_stop  the same through `eval "$(tools/emulator start)"` and
#                        `tools/emulator stop`
#   emulator_exit_status a failing command's status is run's, and leaves
#                        nothing behind either
#   emulator_stop_refuses stop removes only an emulator's directory (not through
#                        ".." or a symlink named like one)
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$here/../.." && pwd -P)"
emulator="$root/tools/emulator"
check="$here/emulator_check.js"
status=0
err="$(mktemp)"
trap 'rm -f "$err"' EXIT

report() {
	if [ "$2" = ok ]; then
		echo "test $1 ... ok ($3)"
	else
		echo "test $1 ... FAILED ($3)"
		sed 's/^/    /' "$err" | tail -n 15
		status=1
	fi
}

# gone DIR: nothing of the emulator in DIR is left: the directory, a process
# started from it (otsd's copy, the postmaster and its children, named by -D)
gone() {
	local p
	[ -n "$1" ] && [ ! -e "$1" ] || return 1
	for p in /proc/[0-9]*; do
		if tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF "$1/"; then
			return 1
		fi
	done
}

# ready_ms: the start time the emulator logged
ready_ms() {
	sed -n 's/.*emulator ready in \([0-9]*\) ms.*/\1/p' "$err" | head -n 1
}

# 1. run -- CMD
out="$(cd "$here" && "$emulator" run -- node "$check" 2>"$err")"
rc=$?
dir="$(sed -n 's/^dir=//p' <<<"$out")"
if [ "$rc" -eq 0 ] && [[ "$out" == *$'\nok' ]] && [[ "$dir" == /tmp/ots-emulator.* ]] && gone "$dir"; then
	report emulator_run ok "ready in $(ready_ms) ms; the Node SDK made a table and read its row back; $dir and its processes gone"
else
	report emulator_run FAILED "exit $rc, output: $(tr '\n' ' ' <<<"$out"), dir ${dir:-none}$(gone "$dir" || echo ': it or a process of it is left')"
fi

# 2. start, then stop
exports="$("$emulator" start 2>"$err")"
rc=$?
dir="$(sed -n 's/^export OTS_EMULATOR_DIR=//p' <<<"$exports")"
if [ "$rc" -ne 0 ] || [ -z "$dir" ]; then
	report emulator_start_stop FAILED "start exited $rc, printed: $(tr '\n' ' ' <<<"$exports")"
else
	out="$(cd "$here" && eval "$exports" && node "$check" 2>&1)"
	rc=$?
	running=no
	[ -d "$dir/data" ] && running=yes
	(eval "$exports" && "$emulator" stop) 2>>"$err"
	stop_rc=$?
	if [ "$rc" -eq 0 ] && [[ "$out" == *$'\nok' ]] && [ "$running" = yes ] && [ "$stop_rc" -eq 0 ] && gone "$dir"; then
		report emulator_start_stop ok "ran between start and stop; $dir and its processes gone after stop"
	else
		report emulator_start_stop FAILED "check exit $rc ($(tr '\n' ' ' <<<"$out")), running $running, stop exit $stop_rc$(gone "$dir" || echo ", $dir or a process of it is left")"
	fi
fi

# 3. a failing command
# shellcheck disable=SC2016 # expanded by the command's shell, in the emulator
out="$("$emulator" run -- sh -c 'echo "dir=$OTS_EMULATOR_DIR"; exit 7' 2>"$err")"
rc=$?
dir="$(sed -n 's/^dir=//p' <<<"$out")"
if [ "$rc" -eq 7 ] && [[ "$dir" == /tmp/ots-emulator.* ]] && gone "$dir"; then
	report emulator_exit_status ok "run exits 7 as its command did; $dir gone"
else
	report emulator_exit_status FAILED "exit $rc, dir ${dir:-none}"
fi

# 4. stop touches only an emulator's directory: not another directory, not
# one reached through "..", not a symlink named like an emulator's (another
# user's, in /tmp) to a directory that looks like one
keep="$(mktemp -d)"
mkdir -p "$keep/data"
touch "$keep/otsd.conf" "$keep/data/PG_VERSION"
link="/tmp/ots-emulator.$(head -c 64 /dev/urandom | base64 -w0 | tr -dc 'A-Za-z0-9' | head -c 6)"
ln -s "$keep" "$link"
refused=0
for target in "$keep" "/tmp/ots-emulator.AAAAAA/../..$keep" "$link" "$link/"; do
	if "$emulator" stop "$target" 2>"$err"; then
		echo "    stop $target: exit 0"
	elif grep -q "is not an emulator's directory" "$err" &&
		[ -f "$keep/otsd.conf" ] && [ -f "$keep/data/PG_VERSION" ]; then
		refused=$((refused + 1))
	else
		echo "    stop $target: $(cat "$err")"
	fi
done
if [ "$refused" -eq 4 ]; then
	report emulator_stop_refuses ok "stop refused a plain directory, a path through .., a symlink named like an emulator's (with and without /); $keep kept"
else
	report emulator_stop_refuses FAILED "$refused of 4 refused with $keep kept"
fi
rm -f "$link"
rm -rf "$keep"
exit "$status"
