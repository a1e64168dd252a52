#!/usr/bin/env bash
# tools/check_server_logs.sh DIR: reads the server logs that the pg_regress
# and pg_isolation_regress temporary instances left under DIR (their log/
# directories) for backends that died: a crash fails a test file's output,
# but a backend killed by a signal in a test whose expected output allows
# a lost connection, or in a later session, shows only in the log.
# Prints "test no_backend_crash ... ok|FAILED" and exits non-zero on a crash.
set -euo pipefail
dir="${1:-.}"
mapfile -t logs < <(find "$dir" -path '*/log/*.log' -name 'postmaster.log' 2>/dev/null | sort)
if [ "${#logs[@]}" -eq 0 ]; then
	echo "test no_backend_crash ... FAILED (no server log found under $dir)"
	exit 1
fi
pattern='terminated by signal|terminated by exception|was terminated|PANIC:|TRAP:'
if lines="$(grep -En "$pattern" "${logs[@]}" 2>/dev/null)"; then
	echo "test no_backend_crash ... FAILED"
	printf '%s\n' "$lines" | head -n 20 | sed 's/^/  /'
	exit 1
fi
echo "test no_backend_crash ... ok (${#logs[@]} server logs, no backend terminated)"
