# shellcheck shell=bash
# test/tempserver.sh: a throwaway PostgreSQL 15 instance for the scripted
# suites (test/crash, test/load, test/upgrade, test/fuzz/sql_fuzz.sh) and
# for tools/emulator.
# Source it after tools/lib.sh from a bash script running with
# `set -euo pipefail`.
#
#   ts_init NAME PORT [CONF-LINE...]   initdb in a new /tmp/ots-NAME.XXXXXX
#   ts_start / ts_stop / ts_crash      start; stop (fast); kill -9 the postmaster
#                                      and every process it started
#   ts_psql ARGS...                    psql (-X, ON_ERROR_STOP) to that instance
#   ts_cleanup                         stop every instance and remove the
#                                      directory; run from an EXIT trap
#                                      (TS_KEEP=1 keeps it)
# A suite that needs more than one instance (test/pg_upgrade) makes the
# others in the same directory:
#   ts_initdb DATA PORT [CONF-LINE...] initdb DATA, configured as ts_init's
#                                      instance (its CONF-LINEs, then these)
#   ts_use DATA PORT                   the instance ts_start, ts_stop, ts_crash
#                                      and ts_psql act on from now
#
# The server runs as the postgres system user when the caller is root (initdb
# refuses root), else as the caller; it listens only on a unix socket in its
# own directory, so PORT never collides with another instance. Clients run as
# the caller with PGHOST, PGPORT and PGUSER exported (trust authentication).

TS_DIR=""
TS_DATA=""
TS_BIN="${OTS_PG_BIN:-/usr/lib/postgresql/15/bin}"
TS_POSTGRES="$TS_BIN/postgres"

TS_CONF=()

# ts_init NAME PORT [CONF-LINE...]: creates and configures the instance.
ts_init() {
	local name="$1" port="$2"
	shift 2
	TS_DIR="$(mktemp -d "/tmp/ots-$name.XXXXXX")"
	if ots_is_root; then
		chown "$OTS_PG_USER:" "$TS_DIR"
	fi
	TS_CONF=("$@")
	ts_initdb "$TS_DIR/data" "$port"
	ts_use "$TS_DIR/data" "$port"
	PGUSER="$(ots_pg_user_name)"
	export PGHOST="$TS_DIR" PGUSER PGDATABASE=postgres
}

# ts_initdb DATA PORT [CONF-LINE...]: creates and configures an instance in
# directory DATA (in $TS_DIR), as ts_init's with these CONF-LINEs after its own.
ts_initdb() {
	local data="$1" port="$2" line
	shift 2
	ots_as_pg_user "$TS_BIN/initdb" -D "$data" -U "$(ots_pg_user_name)" \
		--auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$data.initdb.log" 2>&1 ||
		{ cat "$data.initdb.log" >&2; ots_die "initdb failed in $data"; }
	{
		echo "listen_addresses = ''"
		echo "port = $port"
		echo "unix_socket_directories = '$TS_DIR'"
		echo "lc_messages = 'C'"
		echo "timezone = 'UTC'"
		echo "max_locks_per_transaction = 256"
		for line in "${TS_CONF[@]}" "$@"; do
			echo "$line"
		done
	} | ots_as_pg_user tee -a "$data/postgresql.conf" >/dev/null
}

# ts_use DATA PORT: later calls act on the instance in directory DATA,
# listening on PORT (its log: $TS_DIR/server.log for ts_init's, else DATA.log).
ts_use() {
	TS_DATA="$1"
	TS_LOG="$1.log"
	if [ "$1" = "$TS_DIR/data" ]; then
		TS_LOG="$TS_DIR/server.log"
	fi
	export PGPORT="$2"
}

# ts_start: starts the instance and waits until it accepts connections (crash
# recovery included).
ts_start() {
	ots_as_pg_user "$TS_BIN/pg_ctl" -D "$TS_DATA" -l "$TS_LOG" \
		-p "$TS_POSTGRES" -w -t 300 start >"$TS_DIR/pg_ctl.log" 2>&1 ||
		{ cat "$TS_DIR/pg_ctl.log" >&2; tail -n 30 "$TS_LOG" >&2; ots_die "the server in $TS_DATA did not start"; }
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

# ts_cleanup: stops every instance in the directory and removes it (kept,
# with the server logs, when TS_KEEP=1).
ts_cleanup() {
	local pidfile
	ts_stop
	if [ -n "$TS_DIR" ] && [ -d "$TS_DIR" ]; then
		for pidfile in "$TS_DIR"/*/postmaster.pid; do
			if [ -f "$pidfile" ]; then
				TS_DATA="${pidfile%/postmaster.pid}"
				ts_stop
			fi
		done
		if [ "${TS_KEEP:-0}" = 1 ]; then
			echo "kept $TS_DIR (server logs: $TS_DIR/*.log)" >&2
		else
			rm -rf "$TS_DIR"
		fi
	fi
}
