# shellcheck shell=bash disable=SC2154,SC2016 # work is run.sh's; "$data" names are SQL
# test/cluster/mover.sh: (e) of test/cluster/run.sh, sourced by it: what the
# partition mover (clu_move_partition, tools/cluster_lib.sh) must not do, in a
# cluster of one shard (shard0) moving partitions to shard1, then shard2.
#
#   cluster_move_as_owner      the new shard runs the table owner's code (an
#                              expression index the owner made on its storage
#                              there) as the owner, never as the superuser
#   cluster_move_rls           a new shard gets the storage's row-level
#                              security (switches and policies)
#   cluster_move_open_txn      a proxy transaction open across the switch
#                              keeps the move from finishing: its write to the
#                              moved partition is refused, not acknowledged and
#                              then deleted with the old copy; the old copy is
#                              deleted whole although the storage forces a
#                              policy on its owner that hides those rows

mv_role=regress_mover_owner

# mv_as INSTANCE ARGS...: psql to INSTANCE's database as the owner role.
mv_as() {
	local name="$1"
	shift
	"$OTS_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$(clu_dir "$name")" -p "$(clu_port "$name")" \
		-U "$mv_role" -d "$CLU_DB" "$@"
}

mover_test() {
	local out p dst src kp who pol rls
	tc_db mover 0
	clu_shard_db shard1
	clu_shard_db shard2
	for i in proxy shard0 shard1 shard2; do
		clu_psql "$i" -d postgres -c "SET client_min_messages = error" \
			-c "DROP ROLE IF EXISTS $mv_role" -c "CREATE ROLE $mv_role LOGIN" >/dev/null
	done
	for i in shard0 shard1 shard2; do
		clu_psql "$i" -c "CREATE SCHEMA mo AUTHORIZATION $mv_role" >/dev/null
	done
	if ! out="$(mv_as proxy -c "SELECT ots.create_table('mo.t', 'k string')" \
		-c "SELECT count(ots.put_row('mo.t', jsonb_build_object('k', 'k' || i), '{\"v\": 1}')) FROM generate_series(1, 400) i" 2>&1)"; then
		fail cluster_move_as_owner "writing the rows: $out"
		return
	fi
	src="$(clu_connstr shard0)"
	dst="$(clu_connstr shard1)"
	clu_copy_tables "$src" "$dst"
	# the owner's trap on the new shard, before any partition arrives: its
	# index expression counts its runs, and makes the owner a superuser when
	# it runs as one
	mv_as shard1 >/dev/null <<-EOF
		CREATE SEQUENCE mo.ran;
		CREATE FUNCTION mo.g() RETURNS void LANGUAGE plpgsql AS \$\$
		BEGIN
			IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
				EXECUTE 'ALTER ROLE $mv_role SUPERUSER';
			END IF;
		END \$\$;
		CREATE FUNCTION mo.f(k text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS \$\$
		BEGIN
			PERFORM pg_catalog.nextval('mo.ran');
			PERFORM mo.g();
			RETURN k;
		END \$\$;
		CREATE INDEX ON mo."t\$data" (mo.f(k));
	EOF
	p="$(clu_proxy_value "SELECT max(partition) FROM ots_cluster.partitions")"
	if ! out="$(clu_move_partition "$p" "$dst" 2>&1)"; then
		fail cluster_move_as_owner "the move failed: $out"
		return
	fi
	who="$(clu_psql shard1 -At -c "SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = '$mv_role') || ' ' || last_value FROM mo.ran")"
	if [ "${who%% *}" = false ] && [ "${who##* }" -gt 1 ]; then
		pass cluster_move_as_owner "the owner's index expression ran ${who##* } times, not as a superuser"
	else
		fail cluster_move_as_owner "the owner a superuser now, runs: $who"
	fi

	# row-level security on the storage, then a shard made after it
	mv_as shard0 -c 'ALTER TABLE mo."t$data" ENABLE ROW LEVEL SECURITY' \
		-c 'ALTER TABLE mo."t$data" FORCE ROW LEVEL SECURITY' \
		-c 'CREATE POLICY only_k1 ON mo."t$data" FOR SELECT TO PUBLIC USING (k = '"'k1'"')' >/dev/null
	clu_copy_tables "$src" "$(clu_connstr shard2)"
	pol="$(clu_psql shard0 -At -c "SELECT policyname, cmd, roles, qual FROM pg_policies WHERE schemaname = 'mo'")"
	rls="$(clu_psql shard2 -At -c "SELECT relrowsecurity AND relforcerowsecurity FROM pg_class WHERE oid = 'mo.\"t\$data\"'::regclass")"
	if [ -n "$pol" ] && [ "$rls" = t ] &&
		[ "$(clu_psql shard2 -At -c "SELECT policyname, cmd, roles, qual FROM pg_policies WHERE schemaname = 'mo'")" = "$pol" ]; then
		pass cluster_move_rls "row security on, policy $pol"
	else
		fail cluster_move_rls "new shard: row security $rls, policies [$(clu_psql shard2 -At -c "SELECT policyname FROM pg_policies WHERE schemaname = 'mo'")], the old one's [$pol]"
	fi

	# a proxy transaction that begins after the copy and is open across the
	# switch: it read with the old map; the move must not finish under it
	p="$(clu_proxy_value "SELECT max(partition) FROM ots_cluster.partitions WHERE connstr = '$src'")"
	kp="$(clu_proxy_value "SELECT k FROM (SELECT 'k' || i AS k FROM generate_series(1, 400) i) x
		WHERE ots_cluster.partition_of(ots_cluster.key_hash(to_jsonb(k), 'STRING')) = $p LIMIT 1")"
	if ! out="$(clu_move_copy "$p" "$dst" 2>&1)"; then
		fail cluster_move_open_txn "the copy failed: $out"
		return
	fi
	rm -f "$work/mover.fifo"
	mkfifo "$work/mover.fifo"
	chmod 666 "$work/mover.fifo"
	clu_psql proxy -v ON_ERROR_STOP=0 <"$work/mover.fifo" >"$work/mover.client" 2>&1 &
	local client=$! moving
	exec 7>"$work/mover.fifo"
	echo "BEGIN; SELECT 1 FROM ots.get_row('mo.t', '{\"k\": \"$kp\"}');" >&7
	sleep 0.5
	(CLU_MOVE_WAIT=20 clu_move_switch "$p" "$dst") >"$work/mover.move" 2>&1 &
	local mover=$!
	# the switch is made; the old copy must stay, and writes stay refused,
	# while that transaction is open
	sleep 1.5
	moving="$(clu_proxy_value "SELECT moving FROM ots_cluster.partitions WHERE partition = $p")"
	echo "SELECT ots.put_row('mo.t', '{\"k\": \"$kp\"}', '{\"v\": 2}'); ROLLBACK;" >&7
	exec 7>&-
	wait "$client" || true
	if ! wait "$mover"; then
		fail cluster_move_open_txn "the move failed: $(cat "$work/mover.move")"
		return
	fi
	out="$(clu_psql shard0 -At -c "SELECT count(*) FROM mo.\"t\$data\" WHERE k = '$kp'")/$(clu_psql shard1 -At -c "SELECT count(*) FROM mo.\"t\$data\" WHERE k = '$kp'")"
	if [ "$moving" = t ] && grep -q 'OT013\|partition is not available' "$work/mover.client" && [ "$out" = 0/1 ] &&
		[ "$(clu_proxy_value "SELECT attributes ->> 'v' FROM ots.get_row('mo.t', '{\"k\": \"$kp\"}')")" = 1 ]; then
		pass cluster_move_open_txn "the move waited for the open transaction, whose write was refused; the key on the new shard only"
	else
		fail cluster_move_open_txn "moving while open: $moving; rows of $kp old/new: $out; client: $(tr '\n' ' ' <"$work/mover.client")"
	fi
}
