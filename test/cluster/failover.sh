# shellcheck shell=bash disable=SC2154 # here, work and port are run.sh's
# test/cluster/failover.sh: (g) of test/cluster/run.sh, sourced by it: a shard
# with a streaming standby (clu_new_standby), named in the proxy's map by both
# hosts with target_session_attrs=read-write; its primary stopped, the standby
# promoted (what pg_auto_failover's monitor would order: docs/cluster.md).
#
#   cluster_failover   rows written through the proxy before the failover read
#                      back after it, writes work again; while neither node
#                      takes writes the calls fail with OTSPartitionUnavailable

failover_test() {
	local ha k err out t0 n deadline
	CLU_DB=failover
	clu_new_shard fo_primary "$((port + 10))"
	clu_new_standby fo_standby "$((port + 11))" fo_primary
	clu_shard_db shard0
	ha="host=$(clu_dir fo_primary),$(clu_dir fo_standby) port=$(clu_port fo_primary),$(clu_port fo_standby) dbname=$CLU_DB target_session_attrs=read-write"
	clu_proxy_db shard0 "$ha"
	clu_psql proxy -c "SELECT ots.create_table('fo', 'k string')" \
		-c "SELECT count(*) FROM generate_series(1, 200) i, LATERAL ots.put_row('fo', jsonb_build_object('k', 'k' || i), jsonb_build_object('v', i))" >/dev/null
	# a key on the replicated shard
	k="$(tc_keys_on "$ha" 1)"
	# the standby shows every row (replication is asynchronous: what it has
	# not received when the primary stops is lost), then the primary goes
	deadline=$((SECONDS + 30))
	n="$(clu_psql fo_primary -At -c "SELECT count(*) FROM fo")"
	until [ "$(clu_psql fo_standby -At -c "SELECT count(*) FROM fo" 2>/dev/null)" = "$n" ] || [ "$SECONDS" -ge "$deadline" ]; do
		sleep 0.1
	done
	t0=$SECONDS
	clu_stop fo_primary immediate
	err="$(clu_psql proxy -At -v VERBOSITY=verbose -c "SELECT * FROM ots.put_row('fo', '{\"k\": \"$k\"}', '{\"v\": 0}')" 2>&1 >/dev/null || true)"
	ots_as_pg_user "$OTS_PG_BIN/pg_ctl" -D "$(clu_dir fo_standby)/data" -w promote >/dev/null
	out="$(clu_proxy_value "SELECT r.attributes FROM ots.get_row('fo', '{\"k\": \"$k\"}') r" 2>&1 || true)"
	out+=" $(clu_proxy_value "SELECT count(*) FROM generate_series(1, 200) i, LATERAL ots.get_row('fo', jsonb_build_object('k', 'k' || i)) r WHERE r.attributes = jsonb_build_object('v', i)" 2>&1 || true)"
	out+=" $(clu_proxy_value "SELECT count(*) FROM ots.put_row('fo', '{\"k\": \"$k\"}', '{\"v\": -1}')" 2>&1 || true)"
	out+=" $(clu_psql fo_standby -At -c "SELECT attributes FROM fo WHERE k = '$k'" 2>&1 || true)"
	if [[ "$err" == "ERROR:  OT013: The partition is not available."* ]] &&
		[ "$out" = "{\"v\": ${k#k}} 200 1 {\"v\": -1}" ]; then
		pass cluster_failover "primary stopped: $(echo "$err" | head -n 1); standby promoted: every row there, writes land on it ($((SECONDS - t0)) s)"
	else
		fail cluster_failover "while down: $err; after the promotion: $out"
	fi
	clu_stop fo_standby
}
