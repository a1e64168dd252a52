#!/usr/bin/env bash
# bench/search.sh — search indexes (issue 35) against what a PostgreSQL user
# would build by hand (bench/README.md, "Search indexes").
#
# Usage (needs PostgreSQL 15 server binaries, pgbench and an installed ots):
#
#     bench/search.sh
#
# It starts a private instance in /tmp (unix socket only, run as postgres when
# invoked as root), stops and removes it on exit, failure or Ctrl-C, and runs,
# each case's two sides back to back with pgbench (-n -M prepared -c 2 -j 2
# -T SEARCH_T) in SEARCH_REPS repetitions, the order flipped every time (the
# ratio is the median of the repetitions' ratios):
#   put      ots.put_row of a new row of 8 attributes into a table with a
#            search index of 8 fields (one TEXT) | the same into a table
#            without one (target: 0.6 of its throughput or more)
# and, on SEARCH_ROWS rows (ots: a table with a search index of name TEXT,
# city KEYWORD, stars LONG, price DOUBLE; plain: a table of the same columns
# with btree indexes on city, stars, price and a GIN on to_tsvector('simple',
# name)), the median and 95th percentile of each side's latency too:
#   bool     city = one of 50 and price in a range, 100 rows by price | the
#            same WHERE ... ORDER BY price, id LIMIT 100 (target: 0.8, p95 <= 20 ms;
#            the latency also measured alone, one client, after the repetitions)
#   match    name matching two words, 100 rows by key | tsvector @@ 'a | b'
#            ORDER BY id LIMIT 100 (target: 0.8)
#   group    a count per city, the 10 largest | GROUP BY city ORDER BY count
#            DESC LIMIT 10 (target: 0.8)
# then the consistency run: SEARCH_PAIRS put_row-then-search pairs by 4
# concurrent clients, each search in its own transaction right after its
# write committed; a miss is a search that does not find its write (target 0).
# With SEARCH_PNG it draws the ratios against their targets (gnuplot).
#
# Environment knobs (defaults in brackets):
#   SEARCH_ROWS   rows of the query cases [1000000]
#   SEARCH_T      seconds per pgbench run [3]
#   SEARCH_REPS   repetitions [5]
#   SEARCH_PAIRS  write-then-search pairs [100000]
#   SEARCH_PORT   [5497]
#   SEARCH_CASES  the cases to run [put bool match group]
#   SEARCH_PNG    picture of the ratios [none]
#   PGBIN         PostgreSQL 15's bindir [the bindir of OTS_PG_CONFIG, tools/lib.sh]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=tools/lib.sh
. "$HERE/../tools/lib.sh"
ROWS=${SEARCH_ROWS:-1000000}
T=${SEARCH_T:-3}
REPS=${SEARCH_REPS:-5}
PAIRS=${SEARCH_PAIRS:-100000}
PORT=${SEARCH_PORT:-5497}
PGBIN=${PGBIN:-$OTS_PG_BIN}
for b in initdb pg_ctl psql postgres pgbench; do
	[ -x "$PGBIN/$b" ] || ots_die "$PGBIN/$b not found (set PGBIN)"
done
case "$("$PGBIN/postgres" --version)" in *" 15."*) ;; *) ots_die "need PostgreSQL 15" ;; esac
[ -f "$("$PGBIN/pg_config" --pkglibdir)/ots.so" ] || ots_die "ots.so not found: make install first"

WORK=$(mktemp -d /tmp/ots-search.XXXXXX)
chmod 755 "$WORK"
ots_is_root && chown "$OTS_PG_USER": "$WORK"
cleanup() {
	local rc=$?
	if [ -f "$WORK/data/postmaster.pid" ]; then
		ots_as_pg_user "$PGBIN/pg_ctl" -D "$WORK/data" -m fast -w stop >/dev/null 2>&1 || true
	fi
	if [ $rc != 0 ]; then
		echo "search.sh: FAILED (rc=$rc); server log tail:" >&2
		tail -n 30 "$WORK/server.log" >&2 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ots_as_pg_user "$PGBIN/initdb" -D "$WORK/data" -U "$(ots_pg_user_name)" --auth=trust -E UTF8 --locale=C \
	>"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log" >&2; exit 1; }
cat >>"$WORK/data/postgresql.conf" <<EOF
shared_buffers = 1GB
shared_preload_libraries = 'ots'
max_wal_size = 8GB
checkpoint_timeout = 30min
synchronous_commit = off
jit = off
max_parallel_workers_per_gather = 0
listen_addresses = ''
port = $PORT
unix_socket_directories = '$WORK'
lc_messages = 'C'
EOF
ots_as_pg_user "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w -t 60 start >/dev/null
PGUSER=$(ots_pg_user_name)
export PGHOST=$WORK PGPORT=$PORT PGUSER PGDATABASE=postgres
PSQL=("$PGBIN/psql" -qXAt -v ON_ERROR_STOP=1)
"${PSQL[@]}" -v rows="$ROWS" -f "$HERE/search.sql"

# pgbench scripts
cat >"$WORK/put_search.sql" <<'EOF'
\set k random(1, 2000000000)
SELECT ots.put_row('put_search', jsonb_build_object('id', :k::text), bench_row(:k));
EOF
sed 's/put_search/put_plain/' "$WORK/put_search.sql" >"$WORK/put_plain.sql"
cat >"$WORK/bool_ots.sql" <<'EOF'
\set c random(0, 49)
\set p random(0, 900)
SELECT ots.search('shop', 'ix', jsonb_build_object('query', jsonb_build_object('bool_query', jsonb_build_object('filter_queries', jsonb_build_array(
	jsonb_build_object('term_query', jsonb_build_object('field_name', 'city', 'term', 'c' || :c)),
	jsonb_build_object('range_query', jsonb_build_object('field_name', 'price', 'range_from', :p::int, 'range_to', :p::int + 100, 'include_lower', true))))),
	'sort', jsonb_build_object('sorters', jsonb_build_array(jsonb_build_object('field_sort', jsonb_build_object('field_name', 'price')))),
	'limit', 100));
EOF
cat >"$WORK/bool_plain.sql" <<'EOF'
\set c random(0, 49)
\set p random(0, 900)
SELECT id FROM shop_plain WHERE city = 'c' || :c AND price >= :p AND price < :p + 100 ORDER BY price, id LIMIT 100;
EOF
cat >"$WORK/match_ots.sql" <<'EOF'
\set a random(0, 199)
\set b random(0, 199)
SELECT ots.search('shop', 'ix', jsonb_build_object('query', jsonb_build_object('match_query',
	jsonb_build_object('field_name', 'name', 'text', 'w' || :a || ' w' || :b)), 'limit', 100));
EOF
cat >"$WORK/match_plain.sql" <<'EOF'
\set a random(0, 199)
\set b random(0, 199)
SELECT id FROM shop_plain WHERE to_tsvector('simple', name) @@ to_tsquery('simple', 'w' || :a || ' | w' || :b) ORDER BY id LIMIT 100;
EOF
cat >"$WORK/group_ots.sql" <<'EOF'
SELECT ots.search('shop', 'ix', '{"query": {"match_all_query": {}}, "limit": 0, "group_bys": [{"name": "g", "type": "field", "field_name": "city"}]}');
EOF
cat >"$WORK/group_plain.sql" <<'EOF'
SELECT city, count(*) FROM shop_plain WHERE city IS NOT NULL GROUP BY city ORDER BY 2 DESC, 1 LIMIT 10;
EOF

# run SCRIPT [CLIENTS]: transactions per second, and the median and p95 latency (ms) of the run (2 clients by default)
run() {
	rm -f "$WORK"/log.*
	local out clients=${2:-2}
	out=$(cd "$WORK" && "$PGBIN/pgbench" -n -M prepared -c "$clients" -j "$clients" -T "$T" -l --log-prefix="$WORK/log" -f "$WORK/$1.sql" 2>&1)
	local tps
	tps=$(grep -o 'tps = [0-9.]*' <<<"$out" | head -1 | cut -d' ' -f3)
	[ -n "$tps" ] || { echo "$out" >&2; exit 1; }
	cat "$WORK"/log.* | awk '{ print $3 / 1000 }' | sort -n | awk -v tps="$tps" '
		{ a[NR] = $1 } END { printf "%s %.2f %.2f\n", tps, a[int(NR * 0.5) + 1], a[int(NR * 0.95) + 1] }'
}

declare -A RATIOS LAT
echo "# search.sh: $(nproc) cores, $ROWS rows, $REPS repetitions of ${T}s runs ($(date -u +%F))"
CASES=${SEARCH_CASES:-put bool match group}
for c in $CASES; do
	ours=ots theirs=plain
	[ "$c" = put ] && ours=search
	list=()
	for ((i = 0; i < REPS; i++)); do
		if ((i % 2 == 0)); then
			a=$(run "${c}_$ours"); b=$(run "${c}_$theirs")
		else
			b=$(run "${c}_$theirs"); a=$(run "${c}_$ours")
		fi
		list+=("$(awk -v a="${a%% *}" -v b="${b%% *}" 'BEGIN { printf "%.3f", a / b }')")
		LAT[$c]="$ours ${a#* } | $theirs ${b#* }"
		echo "$c rep $i: ${ours} $a | ${theirs} $b" >&2
	done
	RATIOS[$c]=$(printf '%s\n' "${list[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	# a search's latency alone: one client, the other core free (the p95 target's measure)
	if [ "$c" = bool ]; then
		a=$(run bool_ots 1); b=$(run bool_plain 1)
		ALONE="ots ${a#* } | plain ${b#* }"
	fi
done

# consistency: write-then-search pairs by 4 clients
cat >"$WORK/pair.sql" <<'EOF'
\set k random(1, 2000000000)
SELECT ots.put_row('pairs', jsonb_build_object('id', 'p' || :k || '-' || :client_id), jsonb_build_object('tag', 't' || :k || '-' || :client_id));
INSERT INTO misses SELECT :k, :client_id
 WHERE (ots.search('pairs', 'ix', jsonb_build_object('query', jsonb_build_object('term_query', jsonb_build_object('field_name', 'tag', 'term', 't' || :k || '-' || :client_id)), 'limit', 0, 'get_total_count', true)) ->> 'total_count')::int < 1;
EOF
"$PGBIN/pgbench" -n -M prepared -c 4 -j 2 -t $((PAIRS / 4)) -f "$WORK/pair.sql" >"$WORK/pairs.out" 2>&1 ||
	{ cat "$WORK/pairs.out" >&2; exit 1; }
PAIRS_DONE=$(grep -o 'number of transactions actually processed: [0-9]*' "$WORK/pairs.out" | grep -o '[0-9]*$')
MISSES=$("${PSQL[@]}" -c "SELECT count(*) FROM misses")

printf '\n%-7s %8s %8s   %s\n' case ratio target "p50 / p95 ms (ots | plain, last repetition)"
for c in $CASES; do
	target=0.8
	[ "$c" = put ] && target=0.6
	printf '%-7s %8s %8s   %s\n' "$c" "${RATIOS[$c]}" "$target" "${LAT[$c]}"
done
[ -n "${ALONE:-}" ] && echo "bool alone (1 client) p50 / p95 ms: $ALONE (target p95 <= 20)"
echo "pairs   $PAIRS_DONE write-then-search pairs, $MISSES misses (target 0)"

if [ -n "${SEARCH_PNG:-}" ] && command -v gnuplot >/dev/null; then
	{
		echo "put ${RATIOS[put]} 0.6"
		for c in bool match group; do echo "$c ${RATIOS[$c]} 0.8"; done
	} >"$WORK/ratios.dat"
	gnuplot <<EOF
set terminal png size 720,420
set output '$SEARCH_PNG'
set title 'Search indexes: throughput against plain PostgreSQL ($ROWS rows)'
set style data histograms
set style fill solid 0.6
set yrange [0:*]
set ylabel 'ots / plain (throughput)'
plot '$WORK/ratios.dat' using 2:xtic(1) title 'measured', '' using 3 title 'target' with linespoints
EOF
	echo "picture: $SEARCH_PNG"
fi
