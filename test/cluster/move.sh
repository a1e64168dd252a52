# shellcheck shell=bash disable=SC2154,SC2016,SC2034 # here, work and port are run.sh's; "$data" names are SQL; CLU_DB is tools/cluster_lib.sh's
# test/cluster/move.sh: (e) of test/cluster/run.sh, sourced by it: a shard
# added to a 2-shard cluster with clu_add_shard (tools/cluster add-shard's
# code) while a client writes through the proxy.
#
#   cluster_add_shard_rows     every stored row (every version, the hash
#                              prefix, the cells as stored) of every shard,
#                              and every row read through the proxy, the same
#                              before and after
#   cluster_add_shard_map      the new shard holds its share of the
#                              partitions, and every stored row of every table
#                              is on the shard its partition maps to
#   cluster_add_shard_index    the secondary index's entries (all shards) the
#                              same, each beside its row
#   cluster_add_shard_stream   the new shard's stream records every row of
#                              the table with a stream copied there, split
#                              rows included, with every cell it holds
#   cluster_add_shard_auto_increment  a value generated after the move for a
#                              moved partition key is above every earlier one
#   cluster_add_shard_progress add-shard prints a line for each partition
#                              moved, naming it
#   cluster_add_shard_writer   a client writing one new row per call during the
#                              move: every acknowledged row there after it,
#                              every refused call OTSPartitionUnavailable
#                              ("partition N is moving"), no other error
#   cluster_add_shard_from_one_node  (grow_test, below)

# storage_rows CONNSTR...: every stored row of move.sql's tables on those
# shards, and the chunks of m_idx's split rows, as text, sorted.
storage_rows() {
	local c
	for c in "$@"; do
		clu_connstr_psql "$c" -At <<-'EOF'
			SELECT 'm_ver', s::text FROM "m_ver$data" s
			UNION ALL SELECT 'm_hash', s::text FROM "m_hash$data" s
			UNION ALL SELECT 'm_idx', s::text FROM "m_idx$data" s
			UNION ALL SELECT 'm_idx chunk', s::text FROM "m_idx$chunk" s
			UNION ALL SELECT 'm_ai', s::text FROM "m_ai$data" s
			UNION ALL SELECT 'm_st', s::text FROM "m_st$data" s
			UNION ALL SELECT 'm_st chunk', s::text FROM "m_st$chunk" s
		EOF
	done | LC_ALL=C sort
}

index_rows() {
	local c
	for c in "$@"; do
		clu_connstr_psql "$c" -At -c 'SELECT s::text FROM "m_idx_city$data" s'
	done | LC_ALL=C sort
}

# misplaced CONNSTR: how many stored rows of every base table on that shard
# belong to a partition the map gives to another shard.
misplaced() {
	local c="$1" parts mask str int bin
	parts="$(clu_psql proxy -At -v c="$c" <<<"SELECT array_agg(partition) FROM ots_cluster.partitions WHERE connstr = :'c'")"
	mask="$(clu_proxy_value "SELECT count(*) - 1 FROM ots_cluster.partitions")"
	str="$(clu_hash_sql k STRING)"
	int="$(clu_hash_sql k INTEGER)"
	bin="$(clu_hash_sql k BINARY)"
	clu_connstr_psql "$c" -At <<-EOF
		SELECT sum(n) FROM (
		  SELECT count(*) n FROM "m_ver\$data" WHERE NOT (($str) & $mask = ANY ('${parts:-{\}}'::int[]))
		  UNION ALL SELECT count(*) FROM "m_hash\$data" WHERE NOT (($int) & $mask = ANY ('${parts:-{\}}'::int[]))
		  UNION ALL SELECT count(*) FROM "m_idx\$data" WHERE NOT (($bin) & $mask = ANY ('${parts:-{\}}'::int[]))
		  UNION ALL SELECT count(*) FROM "m_idx\$chunk" WHERE NOT (($bin) & $mask = ANY ('${parts:-{\}}'::int[]))
		  UNION ALL SELECT count(*) FROM "m_ai\$data" WHERE NOT (($(clu_hash_sql part STRING)) & $mask = ANY ('${parts:-{\}}'::int[]))
		  UNION ALL SELECT count(*) FROM "m_st\$data" WHERE NOT (($str) & $mask = ANY ('${parts:-{\}}'::int[]))
		  UNION ALL SELECT count(*) FROM "m_st\$chunk" WHERE NOT (($str) & $mask = ANY ('${parts:-{\}}'::int[]))
		  UNION ALL SELECT count(*) FROM "m_w\$data" WHERE NOT (($str) & $mask = ANY ('${parts:-{\}}'::int[]))) x
	EOF
}

move_test() {
	local out conns after_conns writer_pid ok refused other lost i before_ai after_ai misp c w="$work/move"
	mkdir -p "$w"
	chmod 777 "$w"
	tc_db move 0 1
	if ! out="$(clu_psql proxy -f - <"$here/move.sql" 2>&1)"; then
		fail cluster_add_shard_rows "writing the rows: $out"
		return
	fi
	mapfile -t conns < <(clu_proxy_value "SELECT connstr FROM ots_cluster.shards() ORDER BY shard")
	storage_rows "${conns[@]}" >"$w/storage.before"
	index_rows "${conns[@]}" >"$w/index.before"
	clu_psql proxy -f - <"$here/move_rows.sql" >"$w/proxy.before"
	# the highest AUTO_INCREMENT value of each partition key
	for c in "${conns[@]}"; do
		clu_connstr_psql "$c" -At -F ' ' -c "SELECT part, max(id) FROM \"m_ai\$data\" GROUP BY part"
	done >"$w/ai.before"

	# the writer: one new row per call, autocommit, until told to stop
	rm -f "$w/stop"
	(
		i=0
		while [ ! -f "$w/stop" ]; do
			i=$((i + 1))
			echo "SELECT 'ok $i' FROM ots.put_row('m_w', '{\"k\": \"w$i\"}', '{\"v\": $i}');"
		done
	) | clu_psql proxy -At -v ON_ERROR_STOP=0 >"$w/writer.out" 2>"$w/writer.err" &
	writer_pid=$!
	sleep 1

	local t0=$SECONDS
	if ! out="$(clu_add_shard shard_new "$((port + 9))" 2>&1)"; then
		touch "$w/stop"
		wait "$writer_pid" || true
		fail cluster_add_shard_rows "clu_add_shard failed: $out"
		return
	fi
	local took=$((SECONDS - t0))
	sleep 1
	touch "$w/stop"
	wait "$writer_pid" || true

	mapfile -t after_conns < <(clu_proxy_value "SELECT connstr FROM ots_cluster.shards() ORDER BY shard")
	storage_rows "${after_conns[@]}" >"$w/storage.after"
	index_rows "${after_conns[@]}" >"$w/index.after"
	# a read that fails after the move is a difference, reported with the others
	clu_psql proxy -f - <"$here/move_rows.sql" >"$w/proxy.after" 2>&1 ||
		echo "move_rows.sql failed after the move" >>"$w/proxy.after"

	if [ -s "$w/storage.before" ] && diff -q "$w/storage.before" "$w/storage.after" >/dev/null &&
		diff -q "$w/proxy.before" "$w/proxy.after" >/dev/null; then
		pass cluster_add_shard_rows "$(wc -l <"$w/storage.after") stored rows of 5 tables and $(wc -l <"$w/proxy.after") rows read through the proxy, every version, the same after"
	else
		fail cluster_add_shard_rows "diff $w/storage.before $w/storage.after; diff $w/proxy.before $w/proxy.after"
		diff "$w/storage.before" "$w/storage.after" | head -n 10 | sed 's/^/    /'
		diff "$w/proxy.before" "$w/proxy.after" | head -n 10 | sed 's/^/    /'
	fi

	misp=0
	for c in "${after_conns[@]}"; do
		misp=$((misp + $(misplaced "$c")))
	done
	local newc share
	newc="$(CLU_DB=move clu_connstr shard_new)"
	share="$(clu_psql proxy -At -v c="$newc" <<<"SELECT count(*) FROM ots_cluster.partitions WHERE connstr = :'c'")"
	local newrows
	newrows="$(clu_connstr_psql "$newc" -At -c 'SELECT count(*) FROM "m_ver$data"')"
	if [ "${#after_conns[@]}" = 3 ] && [ "$share" = 21 ] && [ "$misp" = 0 ] && [ "$newrows" -gt 50 ]; then
		pass cluster_add_shard_map "3 shards, 21 of 64 partitions moved to the new one in $took s ($newrows rows of m_ver there), no row on a shard its partition is not mapped to"
	else
		fail cluster_add_shard_map "${#after_conns[@]} shards, $share partitions on the new one, $newrows m_ver rows there, $misp rows misplaced"
	fi

	# what add-shard printed: a line per partition moved, each one the map gives the new shard
	local said
	said="$(grep -E '^==> partition [0-9]+ moved to shard_new \([0-9]+ of 21\)$' <<<"$out" |
		awk '{ print $3 }' | sort -n | paste -sd, || true)"
	if [ -n "$said" ] && [ "$said" = "$(clu_psql proxy -At -v c="$newc" <<<"SELECT string_agg(partition::text, ',' ORDER BY partition)
		FROM ots_cluster.partitions WHERE connstr = :'c'")" ]; then
		pass cluster_add_shard_progress "a line for each of the 21 partitions as it moved"
	else
		fail cluster_add_shard_progress "add-shard said of the partitions moved: [$said]; all it said: $(tr '\n' ' ' <<<"$out" | cut -c1-300)"
	fi

	if [ -s "$w/index.before" ] && diff -q "$w/index.before" "$w/index.after" >/dev/null &&
		[ "$(clu_connstr_psql "$newc" -At -c 'SELECT count(*) FROM "m_idx_city$data"')" = \
			"$(clu_connstr_psql "$newc" -At -c 'SELECT count(*) FROM "m_idx$data"')" ]; then
		pass cluster_add_shard_index "$(wc -l <"$w/index.after") entries the same, the new shard's beside its rows"
	else
		fail cluster_add_shard_index "diff $w/index.before $w/index.after"
	fi

	# the new shard's stream: the rows copied there, each with its every cell
	local streamed
	streamed="$({ cat "$here/../stream_records.sql"; cat <<-'EOF'; } | clu_connstr_psql "$newc" -At -F ' '
		WITH cells AS (
		  SELECT r -> 'primary_key' ->> 'k' AS k, jsonb_object_agg(c ->> 'name', c -> 'value') AS attrs,
		         count(*) AS n, count(DISTINCT r) AS records
		    FROM pg_temp.records('m_st') r, jsonb_array_elements(r -> 'columns') c GROUP BY 1),
		same AS (
		  SELECT v.attributes, cells.records FROM m_st v JOIN cells ON cells.k = v.k
		   WHERE v.attributes = cells.attrs AND cells.n = (SELECT count(*) FROM jsonb_object_keys(v.attributes)))
		SELECT (SELECT count(*) FROM m_st), (SELECT count(*) FROM same),
		       (SELECT count(*) FROM same WHERE attributes ? 'pad'), (SELECT count(*) FROM same WHERE records > 1)
	EOF
	)"
	local st_rows st_same st_split st_paged
	read -r st_rows st_same st_split st_paged <<<"$streamed"
	if [ "${st_rows:-0}" -gt 5 ] && [ "$st_same" = "$st_rows" ] && [ "${st_split:-0}" -gt 0 ] &&
		[ "${st_paged:-0}" -gt 0 ]; then
		pass cluster_add_shard_stream "$st_rows rows of m_st copied to the new shard ($st_split split, $st_paged of them past 2 MB in several records), each recorded there with its every cell once"
	else
		fail cluster_add_shard_stream "new shard: $streamed (rows, recorded whole, split recorded whole, in several records)"
	fi

	# a partition key that moved to the new shard gets a value above its old ones
	local part
	part="$(clu_connstr_psql "$newc" -At -c "SELECT min(part) FROM \"m_ai\$data\"")"
	before_ai="$(awk -v p="$part" '$1 == p { print $2 }' "$w/ai.before")"
	after_ai="$(clu_proxy_value "SELECT (primary_key ->> 'id') FROM ots.put_row('m_ai',
		jsonb_build_object('part', '$part', 'id', '{\"\$auto_increment\": true}'::jsonb), '{\"v\": 9}',
		return_type => 'RT_PK')" 2>&1 || true)"
	if [ -n "$part" ] && [[ "$after_ai" =~ ^[0-9]+$ ]] && [ -n "$before_ai" ] && [ "$after_ai" -gt "$before_ai" ]; then
		pass cluster_add_shard_auto_increment "after the move, $part (moved) gets id $after_ai > $before_ai, its highest before"
	else
		fail cluster_add_shard_auto_increment "$part: highest before $before_ai, after: $after_ai"
	fi

	# the writer: acknowledged rows present with their value; only OT013 refusals
	ok="$(grep -c '^ok ' "$w/writer.out" || true)"
	refused="$(grep -c '^ERROR:  The partition is not available.' "$w/writer.err" || true)"
	other="$(grep '^ERROR:' "$w/writer.err" | grep -vc '^ERROR:  The partition is not available.' || true)"
	grep '^ok ' "$w/writer.out" | awk '{print $2}' >"$w/acked"
	lost="$( {
		echo 'CREATE TEMP TABLE acked (i int);'
		echo 'COPY acked FROM STDIN;'
		cat "$w/acked"
		echo '\.'
		echo "SELECT count(*) FROM acked a
		 WHERE (SELECT r.attributes FROM ots.get_row('m_w', jsonb_build_object('k', 'w' || a.i)) r)
		       IS DISTINCT FROM jsonb_build_object('v', a.i);"
	} | clu_psql proxy -At)"
	local moving_detail
	moving_detail="$(grep -c '^DETAIL:  partition [0-9]* is moving to another shard; retry' "$w/writer.err" || true)"
	if [ "$ok" -gt 0 ] && [ "$other" = 0 ] && [ "$lost" = 0 ] && [ "$moving_detail" = "$refused" ]; then
		pass cluster_add_shard_writer "$ok writes acknowledged, each read back through the proxy; $refused refused with OTSPartitionUnavailable while their partition moved ($(grep -o 'partition [0-9]* is moving' "$w/writer.err" | sort -u | wc -l) partitions)"
	else
		fail cluster_add_shard_writer "$ok acknowledged, $lost of them missing, $refused refused ($moving_detail with the moving detail), $other other errors: $w/writer.err"
		grep '^ERROR' "$w/writer.err" | sort | uniq -c | head -n 5 | sed 's/^/    /'
	fi
}

# grow_test: cluster_add_shard_from_one_node: an existing node (tables and rows
# made on it directly, as before a cluster) becomes a cluster of one shard,
# then gets a second one: every row read through the proxy before and after,
# half of them moved (docs/cluster.md, From one node to a cluster).
grow_test() {
	local before after moved kept
	CLU_DB=grow # clu_* functions' database
	clu_shard_db shard3
	clu_psql shard3 -c "SELECT ots.create_table('legacy', 'k string, n integer', max_versions => 2)" \
		-c "SELECT count(*) FROM generate_series(1, 300) i, ots.put_row('legacy', jsonb_build_object('k', 'k' || i, 'n', i), jsonb_build_object('v', i))" >/dev/null
	clu_proxy_db shard3
	local count_sql="SELECT count(*) FROM generate_series(1, 300) i, ots.get_row('legacy', jsonb_build_object('k', 'k' || i, 'n', i)) r WHERE r.attributes = jsonb_build_object('v', i)"
	before="$(clu_proxy_value "$count_sql" 2>&1 || true)"
	if ! out="$(clu_add_shard shard_grow "$((port + 12))" 2>&1)"; then
		fail cluster_add_shard_from_one_node "clu_add_shard failed: $out"
		return
	fi
	after="$(clu_proxy_value "$count_sql" 2>&1 || true)"
	moved="$(clu_psql shard_grow -At -c "SELECT count(*) FROM legacy")"
	kept="$(clu_psql shard3 -At -c "SELECT count(*) FROM legacy")"
	if [ "$before" = 300 ] && [ "$after" = 300 ] && [ $((moved + kept)) = 300 ] && [ "$moved" -gt 100 ] && [ "$kept" -gt 100 ]; then
		pass cluster_add_shard_from_one_node "a node's 300 rows read through a proxy of one shard, then of two: $moved moved, $kept kept"
	else
		fail cluster_add_shard_from_one_node "through the proxy: $before before, $after after; $moved moved, $kept kept"
	fi
}
