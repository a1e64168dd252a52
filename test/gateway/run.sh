#!/usr/bin/env bash
# test/gateway/run.sh: otsd, the Tablestore protocol gateway, driven by the
# official Tablestore Node.js SDK (npm tablestore 5.6.5) and by raw HTTP.
#
#   test/gateway/run.sh     (root: the server runs as postgres; or as a user
#                            who can run initdb; the current ots installed)
#
# Installs the SDK and mocha with `npm ci` into test/gateway/node_modules
# (versions pinned by package-lock.json), builds otsd (make -C gateway),
# starts a temporary PostgreSQL with ots (/tmp/ots-gateway.*, unix socket
# only, port $GATEWAY_PG_PORT, default 5492; removed on exit) and creates:
#   - database otsgw with ots;
#   - role gw_app, a plain login role (no superuser, no BYPASSRLS) that may
#     create tables in schema public: the tables the tests make are its own;
#   - role gw_other, a login role with no privilege on gw_app's tables;
#   - role gw_third, a login role whose search_path is its own schema
#     gw_third_s only, so that a table name it spells is another table than
#     gw_app's of that name, or none;
# writes an otsd config (listen 127.0.0.1:<a free port>, instance gwtest,
# access key "gwAppKey" acting as gw_app, "gwOtherKey" as gw_other and
# "gwThirdKey" as gw_third) and starts otsd. Then, each printing "test NAME ... ok|FAILED" lines:
#   a. samples.js: the SDK's own table and row samples, run as they ship
#      (node_modules/tablestore/samples/*.js, configured by the environment
#      variables endpoint, instancename, accessKeyId, secretAccessKey), each
#      failing on a thrown error, an "error:" print or a missing success print;
#   b. our mocha specs (sdk_*.test.js): what the samples do, through the SDK,
#      with assertions on every returned value, errors, privileges, local
#      transactions;
#   c. the SDK's own test/table.test.js and test/data_opration.test.js, run
#      with mocha from inside node_modules/tablestore;
#   d. protocol_test.py: signatures, headers, checksums and error replies at
#      the HTTP level (python3, standard library only), with a second otsd
#      on the same database set to wire = off, to compare both paths;
#   e. doc_examples.js: README's complete Node.js program, as printed
#      (its endpoint, instance and key the test's), must print "new", twice;
#      and README's Getting started, in a database made as tools/demo makes
#      ots_demo (tools/demo.sql run first);
#   f. pb_test.sh: otsd's PlainBuffer and filter codecs against the SDK's
#      encoder and decoder (the SDK just installed), no server needed;
#   g. nowire: the row and range specs against a database without the wire
#      functions (below);
#   h. emulator_test.sh: tools/emulator starts, serves the SDK and goes
#      without a trace (its own PostgreSQL and otsd, not these).
# GATEWAY_PARTS="samples specs sdk protocol docs codec nowire emulator" chooses parts (all by default);
# GATEWAY_KEEP=1 keeps the server directory with otsd's log and config;
# OTSD=/path/to/otsd tests that binary instead of building gateway/;
# GATEWAY_HOLD=1 keeps otsd and PostgreSQL up (for a person) until interrupted.
# The exit status is nonzero when a test failed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$here/../.." && pwd -P)"
# shellcheck source=tools/lib.sh
. "$root/tools/lib.sh"
# shellcheck source=test/tempserver.sh
. "$root/test/tempserver.sh"
export LC_ALL=C.UTF-8 LANG=C.UTF-8

parts=" ${GATEWAY_PARTS:-samples specs sdk protocol docs codec nowire emulator} "
want() { [[ "$parts" == *" $1 "* ]]; }

for tool in node npm python3; do
	command -v "$tool" >/dev/null 2>&1 ||
		ots_die "$tool not found (tools/test installs nodejs, npm and python3 from Debian)"
done

# the SDK and mocha, exactly as package-lock.json pins them; protobufjs' install
# script only prints a notice, so no package script runs
ots_log "npm ci in $here ($(node --version), npm $(npm --version))"
(cd "$here" && npm ci --ignore-scripts --no-audit --no-fund --no-update-notifier --loglevel=error) ||
	ots_die "npm ci failed in $here (the npm registry must be reachable)"

# OTSD=/path/to/otsd tests that binary instead of building gateway/
otsd_bin="${OTSD:-}"
if [ -z "$otsd_bin" ]; then
	ots_log "building otsd"
	make -C "$root/gateway" PG_CONFIG="$OTS_PG_CONFIG" ${CI:+CI=1} >/dev/null ||
		ots_die "make -C gateway failed"
	otsd_bin="$root/gateway/otsd"
fi

ts_init gateway "${GATEWAY_PG_PORT:-5492}" "shared_preload_libraries = 'ots'" "fsync = off" \
	"max_connections = 60"
otsd_pid=""
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	if [ -n "$otsd_pid" ] && kill -0 "$otsd_pid" 2>/dev/null; then
		kill -TERM "$otsd_pid" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$otsd_pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$otsd_pid" 2>/dev/null || true
	fi
	TS_KEEP="${GATEWAY_KEEP:-${TS_KEEP:-0}}" ts_cleanup
}
trap cleanup EXIT
ts_start

# the database, and two plain roles: what one creates, the other may not touch
ts_psql -c "CREATE DATABASE otsgw" >/dev/null
ts_psql -d otsgw >/dev/null <<'SQL'
CREATE EXTENSION ots;
CREATE ROLE gw_app LOGIN;
CREATE ROLE gw_other LOGIN;
CREATE ROLE gw_third LOGIN;
GRANT CREATE, USAGE ON SCHEMA public TO gw_app;
GRANT USAGE ON SCHEMA public TO gw_other;
CREATE SCHEMA gw_third_s AUTHORIZATION gw_third;
ALTER ROLE gw_third SET search_path = gw_third_s;
-- counts calls of C functions too: test wire_path_used reads them
ALTER DATABASE otsgw SET track_functions = 'all';
SQL

# a free loopback port for otsd (bound and released: nothing else here takes it)
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
conf="$TS_DIR/otsd.conf"
otsd_log="$TS_DIR/otsd.log"
export OTSGW_INSTANCE=gwtest
export OTSGW_APP_KEY_ID=gwAppKey OTSGW_APP_KEY_SECRET=gwAppSecret0123456789
export OTSGW_OTHER_KEY_ID=gwOtherKey OTSGW_OTHER_KEY_SECRET=gwOtherSecret987654321
export OTSGW_THIRD_KEY_ID=gwThirdKey OTSGW_THIRD_KEY_SECRET=gwThirdSecret192837465
# temporary (STS) credentials of gw_app, as an operator configures them
export OTSGW_STS_KEY_ID=STS.gwTempKey OTSGW_STS_KEY_SECRET=gwTempSecret5647382910 OTSGW_STS_TOKEN=CAIS+gwToken/0123=
# otsd's default, said here for the test that holds otsd to it
export OTSGW_DECODE_MEMORY=268435456
cat >"$conf" <<EOF
# written by test/gateway/run.sh
listen = 127.0.0.1:$port
database = host=$TS_DIR port=$PGPORT dbname=otsgw
instance = $OTSGW_INSTANCE
access_key = $OTSGW_APP_KEY_ID $OTSGW_APP_KEY_SECRET gw_app
access_key = $OTSGW_OTHER_KEY_ID $OTSGW_OTHER_KEY_SECRET gw_other
access_key = $OTSGW_THIRD_KEY_ID $OTSGW_THIRD_KEY_SECRET gw_third
access_key = $OTSGW_STS_KEY_ID $OTSGW_STS_KEY_SECRET gw_app $OTSGW_STS_TOKEN
pool_size = 4
threads = 4
decode_memory = $OTSGW_DECODE_MEMORY
log = $otsd_log
EOF

"$otsd_bin" -c "$conf" >"$TS_DIR/otsd.out" 2>&1 &
otsd_pid=$!
# ready once it accepts connections on its port
ready=0
for _ in $(seq 150); do
	if ! kill -0 "$otsd_pid" 2>/dev/null; then
		cat "$TS_DIR/otsd.out" >&2
		echo "test otsd_start ... FAILED (otsd exited at start)"
		exit 1
	fi
	if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null; then
		ready=1
		break
	fi
	sleep 0.1
done
if [ "$ready" -ne 1 ]; then
	cat "$TS_DIR/otsd.out" >&2
	echo "test otsd_start ... FAILED (not listening on 127.0.0.1:$port after 15 s)"
	exit 1
fi
echo "test otsd_start ... ok (127.0.0.1:$port, instance $OTSGW_INSTANCE, keys $OTSGW_APP_KEY_ID as gw_app, $OTSGW_OTHER_KEY_ID as gw_other and $OTSGW_THIRD_KEY_ID as gw_third)"

# for a test that wants to show the server's state when something hangs
export OTSGW_PSQL="$TS_BIN/psql"
# for a test that watches otsd's memory (/proc/<pid>/status)
export OTSGW_OTSD_PID="$otsd_pid"

# what the SDK's samples/client.js reads, and our specs too
export endpoint="http://127.0.0.1:$port" instancename="$OTSGW_INSTANCE"
export accessKeyId="$OTSGW_APP_KEY_ID" secretAccessKey="$OTSGW_APP_KEY_SECRET"

# GATEWAY_HOLD=1: keep otsd and PostgreSQL up for a person, until interrupted
if [ "${GATEWAY_HOLD:-0}" = 1 ]; then
	echo "otsd up: endpoint=$endpoint instancename=$instancename accessKeyId=$accessKeyId" \
		"secretAccessKey=$secretAccessKey; PostgreSQL: PGHOST=$PGHOST PGPORT=$PGPORT dbname=otsgw; Ctrl-C stops"
	while kill -0 "$otsd_pid" 2>/dev/null; do sleep 1; done
fi

# second_otsd NAME "dbname=DB" [SETTING]: another otsd, the first's configuration on a free port
# with that database and SETTING, listening when it returns (second_port, second_pid)
second_otsd() {
	second_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
	sed -e "s/^listen = .*/listen = 127.0.0.1:$second_port/" -e "s/dbname=otsgw\$/$2/" \
		-e "s|^log = .*|log = $TS_DIR/otsd_$1.log|" "$conf" >"$TS_DIR/otsd_$1.conf"
	[ -n "${3:-}" ] && echo "$3" >>"$TS_DIR/otsd_$1.conf"
	"$otsd_bin" -c "$TS_DIR/otsd_$1.conf" >"$TS_DIR/otsd_$1.out" 2>&1 &
	second_pid=$!
	for _ in $(seq 150); do
		python3 -c "import socket; socket.create_connection(('127.0.0.1', $second_port), 0.2)" 2>/dev/null && break
		sleep 0.1
	done
}
second_otsd_stop() {
	kill "$second_pid" 2>/dev/null
	wait "$second_pid" 2>/dev/null
}

status=0
mocha="$here/node_modules/mocha/bin/mocha.js"
reporter="$here/reporter.js"

if want samples; then
	node "$here/samples.js" || status=1
fi
if want specs; then
	(cd "$here" && node "$mocha" --reporter "$reporter" --timeout 60000 sdk_*.test.js) || status=1
fi
if want sdk; then
	# the SDK's own tests, from inside the package as they expect (../samples/client)
	(cd "$here/node_modules/tablestore" &&
		node "$mocha" --reporter "$reporter" --timeout 60000 test/table.test.js test/data_opration.test.js) ||
		status=1
fi
if want protocol; then
	# a second otsd on the same database with wire = off: the same requests
	# through the jsonb functions, which test wire_writes_match_jsonb compares
	second_otsd json "dbname=otsgw" "wire = off"
	OTSGW_JSON_ENDPOINT="http://127.0.0.1:$second_port" python3 "$here/protocol_test.py" || status=1
	second_otsd_stop
fi
if want docs; then
	node "$here/doc_examples.js" || status=1
fi
if want codec; then
	TABLESTORE_SDK="$here/node_modules/tablestore" PG_CONFIG="$OTS_PG_CONFIG" "$here/pb_test.sh" || status=1
fi

# otsd called the wire functions (it learns them at its first connection)
if want specs; then
	used="$(ts_psql -d otsgw -Atc "SELECT string_agg(funcname || '=' || (calls > 0), ' ' ORDER BY funcname)
		FROM pg_stat_user_functions WHERE schemaname = 'ots' AND funcname LIKE 'wire_%'")"
	if [ "$used" = "wire_batch_write_row=true wire_delete_row=true wire_get_range=true wire_get_row=true wire_put_row=true wire_update_row=true" ]; then
		echo "test wire_path_used ... ok ($used)"
	else
		echo "test wire_path_used ... FAILED (calls: ${used:-none})"
		status=1
	fi
fi

# nowire: a database whose ots has no wire functions (an older ots, or a
# cluster's proxy without ots.wire_get_range): a second otsd serves GetRow,
# GetRange and the writes there through ots.get_row, ots.get_range,
# ots.put_row and so on, and the row and range specs pass against it as they
# do against the first
if want nowire; then
	ts_psql -c "CREATE DATABASE otsgw_nowire" >/dev/null
	ts_psql -d otsgw_nowire -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE EXTENSION ots;
ALTER EXTENSION ots DROP FUNCTION ots.wire_get_row(text, jsonb, text[], integer, jsonb, jsonb, text, text);
DROP FUNCTION ots.wire_get_row(text, jsonb, text[], integer, jsonb, jsonb, text, text);
ALTER EXTENSION ots DROP FUNCTION ots.wire_get_range(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, text, text, text);
DROP FUNCTION ots.wire_get_range(text, jsonb, jsonb, text, integer, text[], integer, jsonb, jsonb, text, text, text);
ALTER EXTENSION ots DROP FUNCTION ots.wire_put_row(text, bytea, text, jsonb, text);
DROP FUNCTION ots.wire_put_row(text, bytea, text, jsonb, text);
ALTER EXTENSION ots DROP FUNCTION ots.wire_update_row(text, bytea, text, jsonb, text, text[]);
DROP FUNCTION ots.wire_update_row(text, bytea, text, jsonb, text, text[]);
ALTER EXTENSION ots DROP FUNCTION ots.wire_delete_row(text, bytea, text, jsonb, text);
DROP FUNCTION ots.wire_delete_row(text, bytea, text, jsonb, text);
ALTER EXTENSION ots DROP FUNCTION ots.wire_batch_write_row(jsonb, bytea[], boolean);
DROP FUNCTION ots.wire_batch_write_row(jsonb, bytea[], boolean);
GRANT CREATE, USAGE ON SCHEMA public TO gw_app;
GRANT USAGE ON SCHEMA public TO gw_other;
CREATE SCHEMA gw_third_s AUTHORIZATION gw_third;
SQL
	second_otsd nowire "dbname=otsgw_nowire"
	(cd "$here" && endpoint="http://127.0.0.1:$second_port" OTSGW_TEST_PREFIX=nowire/ \
		node "$mocha" --reporter "$reporter" --timeout 60000 sdk_rows.test.js sdk_range_batch.test.js) ||
		status=1
	second_otsd_stop
fi

if want emulator; then
	OTSD="$otsd_bin" "$here/emulator_test.sh" || status=1
fi

# otsd must still be up: a crash on the way would hide behind failed requests
if kill -0 "$otsd_pid" 2>/dev/null; then
	echo "test otsd_alive ... ok ($(wc -l <"$otsd_log" 2>/dev/null || echo 0) requests logged)"
else
	echo "test otsd_alive ... FAILED (otsd exited during the tests)"
	tail -n 20 "$TS_DIR/otsd.out" | sed 's/^/  /'
	status=1
fi
if [ "$status" -ne 0 ]; then
	echo "otsd's last log lines ($otsd_log):"
	tail -n 30 "$otsd_log" 2>/dev/null | sed 's/^/  /' || true
	echo "PostgreSQL's log, its warnings and errors:"
	ots_as_pg_user grep -E 'WARNING|ERROR|FATAL|PANIC|terminated' "$TS_DIR/server.log" 2>/dev/null | tail -n 30 | sed 's/^/  /' || true
fi
exit "$status"
