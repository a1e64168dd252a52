#!/usr/bin/env bash
# test/load/run.sh: ots under concurrent load keeps its invariants.
#
#   sudo test/load/run.sh [SECONDS]   (root: the server runs as postgres; or as
#                                      a user who can run initdb; ots installed)
#
# Starts its own server (as postgres in /tmp/ots-load.*, unix socket only, port
# $LOAD_PORT, default 5497), then runs pgbench for SECONDS (or $LOAD_SECONDS,
# default 60) with LOAD_CLIENTS (default 8) clients, READ COMMITTED, on a hot
# set of 20 keys, mixing (weights):
#   inc.sql  @4  increment one of 20 counters of ld_counters
#   put.sql  @3  create a key of ld_kv with EXPECT_NOT_EXIST and a unique tag
#   del.sql  @2  delete a key of ld_kv if it still holds the tag just read
#                (EXPECT_EXIST + column condition)
#   read.sql @1  get_range over both tables, recording rows that are not whole
# Conditional writes go through batch_write_row, which reports
# OTSConditionCheckFail per row instead of raising, so pgbench counts no
# failures; each write is logged in ld_log by the same statement.
# Then checks:
#   - pgbench: no client aborted, no failed transaction;
#   - counters: their sum equals the increments logged with them, and the
#     increment transactions pgbench counted, plus at most one per client
#     still running when -T ended (pgbench leaves those uncounted);
#   - per key of ld_kv, creations and deletions alternate: every tag was
#     created once and deleted at most once, by a delete that named it, and
#     exactly the one undeleted tag (if any) is the row found at the end, so
#     EXPECT_NOT_EXIST never overwrote a row;
#   - the only errors reported are OTSConditionCheckFail; reads saw no row
#     that was not whole; amcheck passes on every index.
# Prints tps and the invariants, "test load_* ... ok|FAILED" lines, and exits
# non-zero on a violation.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=tools/lib.sh
. "$here/../../tools/lib.sh"
# shellcheck source=test/tempserver.sh
. "$here/../tempserver.sh"
export LC_ALL=C.UTF-8 LANG=C.UTF-8

seconds="${1:-${LOAD_SECONDS:-60}}"
clients="${LOAD_CLIENTS:-8}"

ts_init load "${LOAD_PORT:-5497}" "shared_preload_libraries = 'ots'" "max_connections = 50"
status=1
# shellcheck disable=SC2317 # called by the EXIT trap
finish() {
	if [ "$status" -ne 0 ]; then
		TS_KEEP=1
	fi
	ts_cleanup
}
trap finish EXIT
ts_start

ts_psql <<-'EOF' >/dev/null
	CREATE EXTENSION ots;
	CREATE EXTENSION amcheck;
	SELECT ots.create_table('ld_counters', 'id string', partitions => 4);
	SELECT ots.create_table('ld_kv', 'id string', partitions => 4);
	CREATE SEQUENCE ld_tag;
	CREATE TABLE ld_log (seq bigserial PRIMARY KEY, key text NOT NULL, event text NOT NULL, tag text, error_code text);
	CREATE TABLE ld_violations (what text, detail text);
EOF

echo "load test: $clients clients for ${seconds}s on 20 hot keys (server in $TS_DIR)"
cd "$here"
pgbench_rc=0
"$TS_BIN/pgbench" -n -M prepared -c "$clients" -j 2 -T "$seconds" \
	-f inc.sql@4 -f put.sql@3 -f del.sql@2 -f read.sql@1 postgres >"$TS_DIR/pgbench.log" 2>&1 || pgbench_rc=$?
grep -E '^(number of (transactions actually processed|failed transactions)|latency average|tps|SQL script| - )' \
	"$TS_DIR/pgbench.log" | grep -v 'weight' || true

failed=0
result() { # result NAME OK DETAIL
	if [ "$2" = 1 ]; then
		echo "test load_$1 ... ok ($3)"
	else
		echo "test load_$1 ... FAILED ($3)"
		failed=1
	fi
}

# pgbench itself
fails="$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$TS_DIR/pgbench.log")"
aborted="$(grep -c 'aborted' "$TS_DIR/pgbench.log" || true)"
result pgbench "$([ "$pgbench_rc" = 0 ] && [ "${fails:-x}" = 0 ] && [ "$aborted" = 0 ] && echo 1)" \
	"exit status $pgbench_rc, ${fails:-?} failed transactions, $aborted aborted clients"
if [ "$pgbench_rc" != 0 ] || [ "$aborted" != 0 ]; then
	grep -E 'aborted|ERROR' "$TS_DIR/pgbench.log" | head -n 10
fi

# counters: sum == increments acknowledged to pgbench == increments logged
incs="$(awk '/^SQL script [0-9]+: inc.sql/ { s = 1; next } /^SQL script/ { s = 0 }
	s && / - [0-9]+ transactions/ { print $2; exit }' "$TS_DIR/pgbench.log")"
read -r sum logged < <(ts_psql -At -F ' ' -c "
	SELECT (SELECT coalesce(sum((attributes->>'n')::bigint), 0)
			FROM ots.get_range_rows('ld_counters', '{\"id\": {\"\$inf\": \"min\"}}', '{\"id\": {\"\$inf\": \"max\"}}')),
		   (SELECT count(*) FROM ld_log WHERE event = 'increment')")
# (pgbench does not count the transactions still running when -T ends: at
# most one per client, committed by the server but never acknowledged)
result counters "$([ "$sum" = "$logged" ] && [ "$sum" -ge "${incs:-0}" ] &&
	[ "$sum" -le "$((${incs:-0} + clients))" ] && [ -n "$incs" ] && echo 1)" \
	"sum of counters $sum = increments logged with them $logged; increment transactions acknowledged to pgbench ${incs:-?}, plus $((sum - ${incs:-0})) of at most $clients in flight at the end"

# conditional puts and deletes: per key, the chain of tags
chain="$(ts_psql -At -F ' ' -c "
	WITH found AS (
		SELECT r.primary_key->>'id' AS key, r.attributes->>'tag' AS tag
		FROM ots.get_range_rows('ld_kv', '{\"id\": {\"\$inf\": \"min\"}}', '{\"id\": {\"\$inf\": \"max\"}}') r),
	created AS (SELECT key, tag, count(*) AS n FROM ld_log WHERE event = 'create' GROUP BY 1, 2),
	deleted AS (SELECT key, tag, count(*) AS n FROM ld_log WHERE event = 'delete' GROUP BY 1, 2),
	live AS (SELECT c.key, c.tag FROM created c LEFT JOIN deleted d USING (key, tag) WHERE d.tag IS NULL),
	bad AS (
		SELECT key FROM created WHERE n > 1
		UNION SELECT key FROM deleted d WHERE n > 1 OR NOT EXISTS (SELECT FROM created c WHERE (c.key, c.tag) = (d.key, d.tag))
		UNION SELECT key FROM live GROUP BY key HAVING count(*) > 1
		UNION SELECT coalesce(l.key, f.key) FROM live l FULL JOIN found f USING (key) WHERE l.tag IS DISTINCT FROM f.tag)
	SELECT (SELECT count(*) FROM ld_log WHERE event = 'create'),
		   (SELECT count(*) FROM ld_log WHERE event = 'create failed'),
		   (SELECT count(*) FROM ld_log WHERE event = 'delete'),
		   (SELECT count(*) FROM ld_log WHERE event = 'delete failed'),
		   (SELECT count(*) FROM found),
		   (SELECT count(*) FROM bad),
		   (SELECT coalesce(string_agg(key, ',' ORDER BY key), '-') FROM bad)")"
read -r creates create_fails deletes delete_fails rows bad bad_keys <<<"$chain"
result conditional_writes "$([ "$bad" = 0 ] && [ "$creates" -gt 0 ] && [ "$deletes" -gt 0 ] && echo 1)" \
	"$creates EXPECT_NOT_EXIST puts created a row, $create_fails found it existing; $deletes conditional deletes, $delete_fails failed; $rows rows at the end; keys breaking the create/delete chain: $bad_keys"

# errors: only condition failures
others="$(ts_psql -At -c "SELECT coalesce(string_agg(error_code || ' x' || n, ', '), '') FROM (
	SELECT error_code, count(*) AS n FROM ld_log WHERE event LIKE '% failed'
	AND error_code IS DISTINCT FROM 'OTSConditionCheckFail' GROUP BY 1) e")"
conds="$(ts_psql -At -c "SELECT count(*) FROM ld_log WHERE error_code = 'OTSConditionCheckFail'")"
result errors "$([ -z "$others" ] && [ "$conds" -gt 0 ] && echo 1)" "$conds OTSConditionCheckFail${others:+, others: $others}"

# reads, indexes
viol="$(ts_psql -At -c "SELECT count(*) FROM ld_violations")"
if [ "$viol" != 0 ]; then
	ts_psql -c "SELECT what, left(detail, 200) FROM ld_violations LIMIT 5"
fi
reads="$(awk '/^SQL script [0-9]+: read.sql/ { s = 1; next } /^SQL script/ { s = 0 }
	s && / - [0-9]+ transactions/ { print $2; exit }' "$TS_DIR/pgbench.log")"
result reads "$([ "$viol" = 0 ] && [ "${reads:-0}" -gt 0 ] && echo 1)" "${reads:-?} get_range transactions, $viol saw a row not whole or a bad page"
if n="$(ts_psql -At -c "
	SELECT count(bt_index_check(c.oid, true)) FROM pg_class c JOIN pg_am a ON a.oid = c.relam
	WHERE c.relkind = 'i' AND a.amname = 'btree' AND c.relnamespace = 'public'::regnamespace" 2>&1)"; then
	result amcheck 1 "$n indexes"
else
	result amcheck 0 "$n"
fi

if [ "$failed" -eq 0 ]; then
	status=0
else
	echo "load test FAILED: pgbench log and data kept in $TS_DIR"
fi
exit "$status"
