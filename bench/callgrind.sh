#!/usr/bin/env bash
# bench/callgrind.sh — instructions per operation, ots vs plain SQL, counted by
# callgrind: repeatable to a fraction of a percent, where pgbench tps on the
# shared 2-core VM move by ±30 %.
#
# Usage:
#     BENCH_KEEP=1 BENCH_ONLY=load bench/run.sh    # loads the data, keeps the instance
#     bench/callgrind.sh DIR [CASE ...]             # DIR = that instance (/tmp/ots-bench.XXXXXX)
#
# CASE: get put upd del batch, and the SQL cases vget (point through the view),
# vrange (100 rows of one partition key through the view), vscan (scan and
# aggregate of the whole view), vjoin (join of two views, 100 rows), rows
# (get_range_rows of 100 rows), v100 (get_row of rows with 100 versions per
# cell), and the typed view columns and writable views: vsel (a point SELECT of
# the 5 typed columns through the view of tv against the plain typed table pv),
# vins, vupd, vdel (INSERT, UPDATE of a2, DELETE through the view against
# put_row with EXPECT_NOT_EXIST, update_row, delete_row on the same table: for
# these the "plain" column is the row API's call), and Stream's sput, supd
# (put_row of a new key, update_row of a2, on ts, a table with a stream,
# against the same call on t: for these the "plain" column is t, without a
# stream) (default: get put upd del batch).  CG_OUT sets the output directory
# (/tmp/ots-cg), CG_OPTS adds server options (e.g. "-c plan_cache_mode=force_generic_plan").  It stops the kept instance, copies
# its data directory once (every case then runs on that copy, in order; the
# instance starts again, also on exit or failure), and for each case and side
# runs a single-user backend (postgres --single, synchronous_commit=off,
# autovacuum=off) under valgrind --tool=callgrind on PREPARE + N x EXECUTE,
# each EXECUTE its own transaction, for N = N1 and N2 (100 and 1100; batch 5
# and 25), and prints (Ir(N2) - Ir(N1)) / (N2 - N1): the server's
# instructions per operation, start-up excluded.  The statements are
# bench/run.sh's pgbench scripts (same keys, same 5 attributes).
# Single-user mode prints results with debugtup instead of sending them, so
# the output cost of both sides is counted, not the protocol's.
# The callgrind files stay in /tmp/ots-cg/ (the data copy is removed) for
# callgrind_annotate (e.g. callgrind_annotate --inclusive=yes --tree=calling /tmp/ots-cg/ots_put.1100.out).
# Needs valgrind (Debian package valgrind); run as root or as the instance owner.

set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"
DIR=${1:?instance dir (BENCH_KEEP=1 bench/run.sh)}; shift
CASES=${*:-get put upd del batch}
PGBIN=${PGBIN:-$OTS_PG_BIN}
OUT=${CG_OUT:-/tmp/ots-cg}
command -v valgrind >/dev/null || ots_die "valgrind not found (apt-get install valgrind)"
[ -f "$DIR/data/PG_VERSION" ] || ots_die "no instance in $DIR"

rm -rf "$OUT"; mkdir -p "$OUT"; chmod 777 "$OUT"

# a private copy of the data: single-user mode needs the directory to itself
restart() {
	rm -rf "$OUT/data"
	ots_as_pg_user "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w start >/dev/null
}
ots_as_pg_user "$PGBIN/pg_ctl" -D "$DIR/data" -w stop -m fast >/dev/null
trap restart EXIT
cp -a "$DIR/data" "$OUT/data"
rm -f "$OUT/data/postmaster.pid"
ots_is_root && chown -R "$OTS_PG_USER": "$OUT"

A='{"a1": "abcdefghijklmnopqrst", "a2": 12345, "a3": 1.5, "a4": true, "a5": "ABCDEFGHIJKLMNOPQRST"}'
# prepare SIDE CASE: the PREPARE statement of one side of a case ($1 picks the key)
prepare() {
	case $1_$2 in
	ots_get) echo "PREPARE p(int) AS SELECT ots.get_row('t', ('{\"k1\": \"u' || (100000 + \$1 / 100) || '\", \"k2\": ' || \$1 % 100 || '}')::jsonb);" ;;
	plain_get) echo "PREPARE p(int) AS SELECT k1, k2, attrs FROM plain_t WHERE k1 = 'u' || (100000 + \$1 / 100) AND k2 = (\$1 % 100)::int8;" ;;
	ots_put) echo "PREPARE p(int) AS SELECT ots.put_row('t', ('{\"k1\": \"n' || \$1 % 1000 || '\", \"k2\": ' || nextval('put_seq') || '}')::jsonb, '$A');" ;;
	plain_put) echo "PREPARE p(int) AS INSERT INTO plain_t VALUES ('n' || \$1 % 1000, nextval('put_seq_plain'), '$A');" ;;
	ots_upd) echo "PREPARE p(int) AS SELECT ots.update_row('t', ('{\"k1\": \"u' || (100000 + \$1 / 100) || '\", \"k2\": ' || \$1 % 100 || '}')::jsonb, jsonb_build_object('a2', \$1::int8));" ;;
	plain_upd) echo "PREPARE p(int) AS UPDATE plain_t SET attrs = attrs || jsonb_build_object('a2', \$1::int8) WHERE k1 = 'u' || (100000 + \$1 / 100) AND k2 = (\$1 % 100)::int8;" ;;
	ots_del) echo "PREPARE p(int) AS SELECT ots.delete_row('t', ('{\"k1\": \"u' || (100000 + \$1 / 100) || '\", \"k2\": ' || \$1 % 100 || '}')::jsonb);" ;;
	plain_del) echo "PREPARE p(int) AS DELETE FROM plain_t WHERE k1 = 'u' || (100000 + \$1 / 100) AND k2 = (\$1 % 100)::int8;" ;;
	ots_batch) echo "PREPARE p(int) AS SELECT count(*) FROM ots.batch_write_row(('[{\"table_name\": \"t\", \"rows\": [' || (SELECT string_agg('{\"type\": \"PUT\", \"primary_key\": {\"k1\": \"b' || g % 1000 || '\", \"k2\": ' || nextval('batch_seq') || '}, \"attributes\": $A}', ',') FROM generate_series(1, 200) g) || ']}]')::jsonb);" ;;
	plain_batch) echo "PREPARE p(int) AS INSERT INTO plain_t SELECT r->'primary_key'->>'k1', (r->'primary_key'->>'k2')::int8, r->'attributes' FROM jsonb_array_elements(('[' || (SELECT string_agg('{\"type\": \"PUT\", \"primary_key\": {\"k1\": \"b' || g % 1000 || '\", \"k2\": ' || nextval('batch_seq_plain') || '}, \"attributes\": $A}', ',') FROM generate_series(1, 200) g) || ']')::jsonb) r;" ;;
	ots_vget) echo "PREPARE p(int) AS SELECT attributes FROM t WHERE k1 = 'u' || (100000 + \$1 / 100) AND k2 = (\$1 % 100)::int8;" ;;
	plain_vget) echo "PREPARE p(int) AS SELECT attrs FROM plain_t WHERE k1 = 'u' || (100000 + \$1 / 100) AND k2 = (\$1 % 100)::int8;" ;;
	ots_vrange) echo "PREPARE p(int) AS SELECT k1, k2, attributes FROM t WHERE k1 = 'u' || (100000 + \$1 / 100) ORDER BY k2 LIMIT 100;" ;;
	plain_vrange) echo "PREPARE p(int) AS SELECT k1, k2, attrs FROM plain_t WHERE k1 = 'u' || (100000 + \$1 / 100) ORDER BY k2 LIMIT 100;" ;;
	ots_vscan) echo "PREPARE p(int) AS SELECT count(*), sum((attributes->>'a2')::int8) FROM t WHERE attributes->>'a1' = 'abcdefghijklmnopqrst';" ;;
	plain_vscan) echo "PREPARE p(int) AS SELECT count(*), sum((attrs->>'a2')::int8) FROM plain_t WHERE attrs->>'a1' = 'abcdefghijklmnopqrst';" ;;
	ots_vjoin) echo "PREPARE p(int) AS SELECT a.k2, a.attributes->>'a1', b.attributes->>'a2' FROM t4 a JOIN t b ON b.k1 = a.k1 AND b.k2 = a.k2 WHERE a.k1 = 'u' || (100000 + \$1 % 10000 / 100);" ;;
	plain_vjoin) echo "PREPARE p(int) AS SELECT a.k2, a.attrs->>'a1', b.attrs->>'a2' FROM plain4 a JOIN plain_t b ON b.k1 = a.k1 AND b.k2 = a.k2 WHERE a.k1 = 'u' || (100000 + \$1 % 10000 / 100);" ;;
	ots_rows) echo "PREPARE p(int) AS SELECT * FROM ots.get_range_rows('t', ('{\"k1\": \"u' || (100000 + \$1 / 100) || '\", \"k2\": ' || \$1 % 100 || '}')::jsonb, '{\"k1\": {\"\$inf\": \"max\"}, \"k2\": {\"\$inf\": \"max\"}}', 'FORWARD', 100);" ;;
	plain_rows) echo "PREPARE p(int) AS SELECT k1, k2, attrs FROM plain_t WHERE (k1, k2) >= ('u' || (100000 + \$1 / 100), (\$1 % 100)::int8) ORDER BY k1, k2 LIMIT 100;" ;;
	ots_v100) echo "PREPARE p(int) AS SELECT ots.get_row('v100', ('{\"k1\": \"u' || (100000 + \$1 % 10000 / 100) || '\", \"k2\": ' || \$1 % 100 || '}')::jsonb);" ;;
	plain_v100) echo "PREPARE p(int) AS SELECT k1, k2, attrs FROM plain4 WHERE k1 = 'u' || (100000 + \$1 % 10000 / 100) AND k2 = (\$1 % 100)::int8;" ;;
	ots_vsel) echo "PREPARE p(int) AS SELECT a1, a2, a3, a4, a5 FROM tv WHERE k1 = 'u' || (100000 + \$1 / 100) AND k2 = (\$1 % 100)::int8;" ;;
	plain_vsel) echo "PREPARE p(int) AS SELECT a1, a2, a3, a4, a5 FROM pv WHERE k1 = 'u' || (100000 + \$1 / 100) AND k2 = (\$1 % 100)::int8;" ;;
	ots_vins) echo "PREPARE p(int) AS INSERT INTO tv (k1, k2, a1, a2, a3, a4, a5) VALUES ('n' || \$1 % 1000, nextval('vins_seq'), 'abcdefghijklmnopqrst', 12345, 1.5, true, 'ABCDEFGHIJKLMNOPQRST');" ;;
	plain_vins) echo "PREPARE p(int) AS SELECT ots.put_row('tv', ('{\"k1\": \"n' || \$1 % 1000 || '\", \"k2\": ' || nextval('vins_seq') || '}')::jsonb, '$A', 'EXPECT_NOT_EXIST');" ;;
	# a2 = a new value (rows hold a2 = \$1 since the load: an UPDATE to the same value writes nothing)
	ots_vupd) echo "PREPARE p(int) AS UPDATE tv SET a2 = (random() * 1e9)::int8 WHERE k1 = 'u' || (100000 + \$1 / 100) AND k2 = (\$1 % 100)::int8;" ;;
	plain_vupd) echo "PREPARE p(int) AS SELECT ots.update_row('tv', ('{\"k1\": \"u' || (100000 + \$1 / 100) || '\", \"k2\": ' || \$1 % 100 || '}')::jsonb, jsonb_build_object('a2', (random() * 1e9)::int8));" ;;
	# rows of tvd (bench/run.sh loads VDEL of them): the API's are 500000 further on
	ots_vdel) echo "PREPARE p(int) AS DELETE FROM tvd WHERE k1 = 'd' || \$1 AND k2 = 0;" ;;
	plain_vdel) echo "PREPARE p(int) AS SELECT ots.delete_row('tvd', ('{\"k1\": \"d' || \$1 + 500000 || '\", \"k2\": 0}')::jsonb);" ;;
	# Stream: the same calls on ts (a stream) and on t (none)
	ots_sput) echo "PREPARE p(int) AS SELECT ots.put_row('ts', ('{\"k1\": \"n' || \$1 % 1000 || '\", \"k2\": ' || nextval('sput_seq') || '}')::jsonb, '$A');" ;;
	plain_sput) prepare ots put ;;
	ots_supd) echo "PREPARE p(int) AS SELECT ots.update_row('ts', ('{\"k1\": \"u' || (100000 + \$1 / 100) || '\", \"k2\": ' || \$1 % 100 || '}')::jsonb, jsonb_build_object('a2', \$1::int8));" ;;
	plain_supd) prepare ots upd ;;
	*) echo "callgrind.sh: unknown case $2" >&2; exit 1 ;;
	esac
}

# instructions SIDE CASE N: total Ir of a single-user backend running N operations
instructions() {
	local f=$OUT/$1_$2.$3
	# del: the two runs of a side delete different rows (both start from the same copy)
	local from=1
	[ "$2" = del ] || [ "$2" = vdel ] && from=$(($3 + 1))
	{ prepare "$1" "$2"; for ((j = from; j < from + $3; j++)); do echo "EXECUTE p($(( (j * 7919) % 99900 )));"; done; } >"$f.sql"
	ots_as_pg_user valgrind --tool=callgrind --callgrind-out-file="$f.out" \
		"$PGBIN/postgres" --single -D "$OUT/data" -c synchronous_commit=off -c autovacuum=off ${CG_OPTS:-} \
		bench <"$f.sql" >"$f.log" 2>&1
	if grep -qE 'ERROR|FATAL|PANIC' "$f.log"; then ots_die "$1 $2 failed, see $f.log"; fi
	awk '/^summary:/ { print $2 }' "$f.out"
}

printf '%-6s | %14s | %14s | %s\n' case "ots instr/op" "plain instr/op" "plain/ots"
for c in $CASES; do
	case $c in batch) n1=5 n2=25 ;; vscan) n1=1 n2=3 ;; vrange | vjoin | rows) n1=20 n2=220 ;; *) n1=100 n2=1100 ;; esac
	declare -A per=()
	for side in ots plain; do
		a=$(instructions $side "$c" $n1); b=$(instructions $side "$c" $n2)
		per[$side]=$(( (b - a) / (n2 - n1) ))
	done
	printf '%-6s | %14s | %14s | %.2f\n' "$c" "${per[ots]}" "${per[plain]}" \
		"$(awk -v o="${per[ots]}" -v p="${per[plain]}" 'BEGIN { print p / o }')"
done
echo "(batch: per call of 200 rows; callgrind files in $OUT)"
