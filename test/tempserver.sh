# shellcheck shell=bash
# test/tempserver.sh: a throwaway PostgreSQL 15 instance for the scripted
# suites (test/crash, test/load, test/upgrade, test/fuzz/sql_fuzz.sh).
# Source it after tools/lib.sh from a bash script running with
# `set -euo pipefail`.
#
#   ts_init NAME PORT [CONF-LINE...]   initdb in a new /tmp/ots-NAME.XXXXXX
#   ts_start / ts_stop / ts_crash      start; stop (fast); kill -9 the postmaster
#                                      and every process it started
#   ts_psql ARGS...                    psql (-X, ON_ERROR_STOP) to that instance
#   ts_cleanup                         stop and remove the directory; run from
#                                      an EXIT trap (TS_KEEP=1 keeps it)
#
# The server runs as the postgres system user when the caller is root (initdb
# refuses root), else as the caller; it listens only on a unix socket in its
# own directory, so PORT never collides with another instance. Clients run as
# the caller with PGHOST, PGPORT and PGUSER exported (trust authentication).

TS_DIR=""
TS_DATA=""
TS_BIN="${OTS_PG_BIN:-/usr/lib/postgresql/15/bin}"
TS_POSTGRES="$TS_BIN/postgres"

# ts_init NAME PORT [CONF-LINE...]: creates and configures the instance.
ts_init() {
	local name="$1" port="$2" line
	shift 2
	TS_DIR="$(mktemp -d "/tmp/ots-$name.XXXXXX")"
	TS_DATA="$TS_DIR/data"
	if ots_is_root; then
		chown "$OTS_PG_USER:" "$TS_DIR"
	fi
	ots_as_pg_user "$TS_BIN/initdb" -D "$TS_DATA" -U "$(ots_pg_user_name)" \
		--auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$TS_DIR/initdb.log" 2>&1 ||
		{ cat "$TS_DIR/initdb.log" >&2; ots_die "initdb failed in $TS_DATA"; }
	{
		echo "listen_addresses = ''"
		echo "port = $port"
		echo "unix_socket_directories = '$TS_DIR'"
		echo "lc_messages = 'C'"
		echo "timezone = 'UTC'"
		echo "max_locks_per_transaction = 256"
		for line in "$@"; do
			echo "$line"
		done
	} | ots_as_pg_user tee -a "$TS_DATA/postgresql.conf" >/dev/null
	export PGHOST="$TS_DIR" PGPORT="$port" PGUSER
	PGUSER="$(ots_pg_user_name)"
	export PGDATABASE=postgres
}

# ts_start: starts the instance and waits until it accepts connections (crash
# recovery included).
ts_start() {
	ots_as_pg_user "$TS_BIN/pg_ctl" -D "$TS_DATA" -l "$TS_DIR/server.log" \
		-p "$TS_POSTGRES" -w -t 300 start >"$TS_DIR/pg_ctl.log" 2>&1 ||
		{ cat "$TS_DIR/pg_ctl.log" >&2; tail -n 30 "$TS_DIR/server.log" >&2; ots_die "the server in $TS_DATA did not start"; }
}

# ts_stop: fast shutdown, if it runs.
ts_stop() {
	if [ -n "$TS_DATA" ] && [ -f "$TS_DATA/postmaster.pid" ]; then
		ots_as_pg_user "$TS_BIN/pg_ctl" -D "$TS_DATA" -m fast -w -t 120 stop >/dev/null 2>&1 ||
			ots_as_pg_user "$TS_BIN/pg_ctl" -D "$TS_DATA" -m immediate -w stop >/dev/null 2>&1 || true
	fi
}

# ts_postmaster_pid: the running postmaster's PID (empty when none).
ts_postmaster_pid() {
	local pid
	pid="$(head -n 1 "$TS_DATA/postmaster.pid" 2>/dev/null || true)"
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		echo "$pid"
	fi
}

# ts_crash: kill -9 the postmaster, then, by PID, every process it had
# started (orphaned backends would otherwise keep the old shared memory and
# could still commit); waits until they are gone.
ts_crash() {
	local pm children pid
	pm="$(ts_postmaster_pid)"
	[ -n "$pm" ] || ots_die "no postmaster to kill in $TS_DATA"
	children="$(ps -o pid= --ppid "$pm" || true)"
	kill -9 "$pm"
	for pid in $children; do
		kill -9 "$pid" 2>/dev/null || true
	done
	for pid in $pm $children; do
		while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
	done
}

# ts_psql ARGS...: psql to the instance as its superuser.
ts_psql() {
	"$TS_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"
}

# ts_cleanup: stops the instance and removes its directory (kept, with the
# server log, when TS_KEEP=1).
ts_cleanup() {
	ts_stop
	if [ -n "$TS_DIR" ] && [ -d "$TS_DIR" ]; then
		if [ "${TS_KEEP:-0}" = 1 ]; then
			echo "kept $TS_DIR (server log: $TS_DIR/server.log)" >&2
		else
			rm -rf "$TS_DIR"
		fi
	fi
}
