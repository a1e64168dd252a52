# shellcheck shell=bash disable=SC2154 # here, work and port are run.sh's
# test/cluster/down.sh: (f) of test/cluster/run.sh, sourced by it: one of two
# shards stopped, then started again.
#
#   cluster_down_key       a call on a key of the down shard fails with
#                          OTSPartitionUnavailable (OT013, "The partition is
#                          not available.") whose detail names the shard, so
#                          does a range over all shards; a key of the other
#                          shard is read and written
#   cluster_down_batch     batch_write_row / batch_get_row across both shards:
#                          the down shard's rows fail with
#                          OTSPartitionUnavailable each, the others are done
#   cluster_down_ddl       create_table fails with OT013 and changes no shard
#   cluster_down_restart   after the restart every call works again, and the
#                          create_table that failed succeeds
#   cluster_down_repair    a table present on one shard only (made there
#                          directly) is completed by create_table with the
#                          same definition; a second create_table is
#                          OTSObjectAlreadyExist

# proxy_err SQL: the error psql prints for SQL on the proxy (verbose: with
# the SQLSTATE), empty when it succeeds.
proxy_err() {
	clu_psql proxy -At -v VERBOSITY=verbose -c "$1" 2>&1 >/dev/null | grep -v '^LOCATION:' || true
}

down_test() {
	local c0 c1 err out rows
	local -a k0 k1
	tc_db down 0 1
	c0="$(clu_connstr shard0)"
	c1="$(clu_connstr shard1)"
	clu_psql proxy -c "SELECT ots.create_table('d', 'k string')" >/dev/null
	mapfile -t k0 < <(tc_keys_on "$c0" 4)
	mapfile -t k1 < <(tc_keys_on "$c1" 4)
	clu_psql proxy -c "SELECT count(*) FROM ots.put_row('d', '{\"k\": \"${k0[0]}\"}', '{\"v\": 0}') a,
		ots.put_row('d', '{\"k\": \"${k1[0]}\"}', '{\"v\": 1}') b" >/dev/null

	clu_stop shard1
	err="$(proxy_err "SELECT * FROM ots.get_row('d', '{\"k\": \"${k1[0]}\"}')")"
	out="$(clu_proxy_value "SELECT r.attributes FROM ots.get_row('d', '{\"k\": \"${k0[0]}\"}') r" 2>&1 || true)"
	out+=" $(clu_proxy_value "SELECT count(*) FROM ots.put_row('d', '{\"k\": \"${k0[1]}\"}', '{\"v\": 2}')" 2>&1 || true)"
	# a range over every shard needs the down one too
	local rerr
	rerr="$(proxy_err "SELECT * FROM ots.get_range('d', '{\"k\": {\"\$inf\": \"min\"}}', '{\"k\": {\"\$inf\": \"max\"}}')")"
	if [[ "$err" == "ERROR:  OT013: The partition is not available."*"DETAIL:  "*"$c1"* ]] &&
		[[ "$rerr" == "ERROR:  OT013: The partition is not available."* ]] &&
		[ "$out" = '{"v": 0} 1' ]; then
		pass cluster_down_key "$(echo "$err" | tr '\n' ' ' | cut -c1-200)"
	else
		fail cluster_down_key "error on the down shard's key: $err; on the other: $out; a range over all: $rerr"
	fi

	rows="$(clu_proxy_value "SELECT string_agg(concat_ws(':', b.index, b.is_ok, b.error_code), ' ' ORDER BY o)
		FROM ots.batch_write_row(jsonb_build_array(jsonb_build_object('table_name', 'd', 'rows', jsonb_build_array(
			jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('k', '${k0[2]}'), 'attributes', '{\"v\": 3}'::jsonb),
			jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('k', '${k1[2]}'), 'attributes', '{\"v\": 4}'::jsonb),
			jsonb_build_object('type', 'PUT', 'primary_key', jsonb_build_object('k', '${k0[3]}'), 'attributes', '{\"v\": 5}'::jsonb)))))
			WITH ORDINALITY b(table_name, index, is_ok, error_code, error_message, primary_key, attributes, consumed, o)" 2>&1 || true)"
	rows+=" | $(clu_proxy_value "SELECT string_agg(concat_ws(':', b.index, b.is_ok, b.error_code, b.attributes), ' ' ORDER BY o)
		FROM ots.batch_get_row(jsonb_build_array(jsonb_build_object('table_name', 'd', 'primary_keys', jsonb_build_array(
			jsonb_build_object('k', '${k1[0]}'), jsonb_build_object('k', '${k0[2]}'), jsonb_build_object('k', '${k0[3]}')))))
			WITH ORDINALITY b(table_name, index, is_ok, error_code, error_message, primary_key, attributes, consumed, o)" 2>&1 || true)"
	if [ "$rows" = '0:t 1:f:OTSPartitionUnavailable 2:t | 0:f:OTSPartitionUnavailable 1:t:{"v": 3} 2:t:{"v": 5}' ]; then
		pass cluster_down_batch "write: $rows"
	else
		fail cluster_down_batch "$rows"
	fi

	err="$(proxy_err "SELECT ots.create_table('d2', 'k integer')")"
	out="$(clu_psql shard0 -At -c "SELECT count(*) FROM ots.tables WHERE table_name = 'd2'")"
	if [[ "$err" == "ERROR:  OT013: The partition is not available."*"$c1"* ]] && [ "$out" = 0 ]; then
		pass cluster_down_ddl "create_table: $(echo "$err" | head -n 1); the other shard unchanged"
	else
		fail cluster_down_ddl "create_table: $err; d2 on shard0: $out"
	fi

	clu_start shard1
	out="$(clu_proxy_value "SELECT r.attributes FROM ots.get_row('d', '{\"k\": \"${k1[0]}\"}') r" 2>&1 || true)"
	out+=" $(clu_proxy_value "SELECT count(*) FROM ots.put_row('d', '{\"k\": \"${k1[1]}\"}', '{\"v\": 6}')" 2>&1 || true)"
	out+=" $(clu_proxy_value "SELECT ots.create_table('d2', 'k integer')" 2>&1 || true)"
	out+=" $(clu_psql shard0 -At -c "SELECT count(*) FROM ots.tables WHERE table_name = 'd2'")"
	out+=" $(clu_psql shard1 -At -c "SELECT count(*) FROM ots.tables WHERE table_name = 'd2'")"
	if [ "$out" = '{"v": 1} 1  1 1' ]; then
		pass cluster_down_restart "reads, writes and create_table work again"
	else
		fail cluster_down_restart "$out"
	fi

	clu_psql shard0 -c "SELECT ots.create_table('d3', 'k string, n integer', max_versions => 2)" >/dev/null
	out="$(clu_proxy_value "SELECT ots.create_table('d3', 'k string, n integer', max_versions => 2)" 2>&1 || true)"
	out+=" $(clu_psql shard1 -At -c "SELECT max_versions FROM ots.tables WHERE table_name = 'd3'")"
	err="$(proxy_err "SELECT ots.create_table('d3', 'k string, n integer', max_versions => 2)")"
	if [ "$out" = ' 2' ] && [[ "$err" == "ERROR:  OT005: Requested table already exists."* ]]; then
		pass cluster_down_repair "made on the shard that lacked it; then $(echo "$err" | head -n 1)"
	else
		fail cluster_down_repair "create_table: $out; again: $err"
	fi
}
