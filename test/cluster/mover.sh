# shellcheck shell=bash disable=SC2154,SC2016 # work is run.sh's; "$data" names are SQL
# test/cluster/mover.sh: (e) of test/cluster/run.sh, sourced by it: what the
# partition mover (clu_move_partition, tools/cluster_lib.sh) must not do, in a
# cluster of one shard (shard0) moving partitions to shard1, then shard2.
#
#   cluster_move_as_owner      the new shard runs the table owner's code (an
#                              expression index the owner made on its storage
#                              there) as the owner, never as the superuser
#   cluster_move_chunks        a chunk of the table's chunk relation moves
#                              with the rows of its partition
#   cluster_move_rls           a new shard gets the storage's row-level
#                              security (switches and policies)
#   cluster_move_open_txn      a proxy transaction open across the switch
#                              keeps the move from finishing: its write to the
#                              moved partition is refused, not acknowledged and
#                              then deleted with the old copy; the old copy is
#                              deleted whole although the storage forces a
#                              policy on its owner that hides those rows
#   cluster_move_old_shard_down  (mover_down_test) the old shard stopped right
#                              after the switch: the move fails saying it
#                              switched and the command that completes it, the
#                              partition's writes refused meanwhile
#   cluster_move_completed     that command (the move run again), once the old
#                              shard is back: the old copy deleted, writes
#                              allowed
#   cluster_move_new_shard_down  (mover_abort_test) the new shard down during
#                              the copy: the move fails saying so, with the
#                              commands that complete and abort it
#   cluster_move_aborted       the abort, once the new shard is back: the
#                              partition writable on its shard, no copy left

mv_role=regress_mover_owner

# mv_as INSTANCE ARGS...: psql to INSTANCE's database as the owner role.
mv_as() {
	local name="$1"
	shift
	"$OTS_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$(clu_dir "$name")" -p "$(clu_port "$name")" \
		-U "$mv_role" -d "$CLU_DB" "$@"
}

# mv_key P: a key of mo.t ('k1' to 'k400') in partition P
mv_key() {
	clu_proxy_value "SELECT k FROM (SELECT 'k' || i AS k FROM generate_series(1, 400) i) x
		WHERE ots_cluster.partition_of(ots_cluster.key_hash(to_jsonb(k), 'STRING')) = $1 LIMIT 1"
}

# mv_open_txn NAME KEY: a proxy session in a transaction that has read KEY
# of mo.t: psql reading the fifo $work/NAME.fifo, which fd 7 writes to
# (closing it ends the session), its output in $work/NAME.client, its pid
# in MV_CLIENT
mv_open_txn() {
	rm -f "$work/$1.fifo"
	mkfifo "$work/$1.fifo"
	chmod 666 "$work/$1.fifo"
	clu_psql proxy -v ON_ERROR_STOP=0 <"$work/$1.fifo" >"$work/$1.client" 2>&1 &
	MV_CLIENT=$!
	exec 7>"$work/$1.fifo"
	echo "BEGIN; SELECT 1 FROM ots.get_row('mo.t', '{\"k\": \"$2\"}');" >&7
	sleep 0.5
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
	# a chunk of a key of the partition, in the table's chunk relation on the old shard
	# (written by plain SQL as the owner: no row splits yet), which moves with the rows
	kp="$(mv_key "$p")"
	mv_as shard0 -c "INSERT INTO mo.\"t\$chunk\" VALUES ('$kp', 'c', 5, '{\"row_ts\": 7, \"cells\": {\"c\": [{\"ts\": 7, \"value\": 1}, {\"ts\": 5, \"value\": 2}]}}', 5)" >/dev/null
	if ! out="$(clu_move_partition "$p" "$dst" 2>&1)"; then
		fail cluster_move_as_owner "the move failed: $out"
		return
	fi
	local chunks
	chunks="$(clu_psql shard0 -At -c "SELECT count(*) FROM mo.\"t\$chunk\"")/$(clu_psql shard1 -At -c "SELECT count(*) || ' ' || string_agg(k || ' ' || \"\$column\" || ' ' || \"\$ts\" || ' ' || \"\$cells\"::text, ',') FROM mo.\"t\$chunk\"")"
	if [ "$chunks" = "0/1 $kp c 5 {\"cells\": {\"c\": [{\"ts\": 7, \"value\": 1}, {\"ts\": 5, \"value\": 2}]}, \"row_ts\": 7}" ]; then
		pass cluster_move_chunks "the chunk of a key of the partition moved with its rows"
	else
		fail cluster_move_chunks "chunks on the old shard / the new one: $chunks"
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
	kp="$(mv_key "$p")"
	if ! out="$(clu_move_copy "$p" "$dst" 2>&1)"; then
		fail cluster_move_open_txn "the copy failed: $out"
		return
	fi
	local client moving
	mv_open_txn mover "$kp"
	client=$MV_CLIENT
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

# mover_down_test: the old shard stopped right after a switch (shard0, the
# source of the moves above): the move fails saying it switched and the
# command that completes it, and the partition refuses writes; run again
# once the shard is back, the move completes: the old copy deleted, writes
# allowed.
mover_down_test() {
	local out p dst src kp client mover moving rows
	src="$(clu_connstr shard0)"
	dst="$(clu_connstr shard1)"
	p="$(clu_proxy_value "SELECT max(partition) FROM ots_cluster.partitions WHERE connstr = '$src'")"
	kp="$(mv_key "$p")"
	if ! out="$(clu_move_copy "$p" "$dst" 2>&1)"; then
		fail cluster_move_old_shard_down "the copy failed: $out"
		return
	fi
	# a proxy transaction open across the switch holds the mover in its
	# second wait: the old shard is stopped there, right after the switch
	mv_open_txn mover_down "$kp"
	client=$MV_CLIENT
	(CLU_MOVE_WAIT=30 clu_move_switch "$p" "$dst") >"$work/mover_down.move" 2>&1 &
	mover=$!
	for _ in $(seq 100); do
		[ "$(clu_proxy_value "SELECT connstr FROM ots_cluster.partitions WHERE partition = $p")" != "$dst" ] || break
		sleep 0.1
	done
	clu_stop shard0
	echo "ROLLBACK;" >&7
	exec 7>&-
	wait "$client" || true
	if wait "$mover"; then
		fail cluster_move_old_shard_down "the move succeeded with its old shard down: $(cat "$work/mover_down.move")"
		clu_start shard0
		return
	fi
	moving="$(clu_proxy_value "SELECT moving FROM ots_cluster.partitions WHERE partition = $p")"
	out="$(clu_proxy_value "SELECT 'written' FROM ots.put_row('mo.t', '{\"k\": \"$kp\"}', '{\"v\": 3}')" 2>&1 || true)"
	if grep -q "stands switched" "$work/mover_down.move" && grep -qF "clu_move_partition $p '$dst'" "$work/mover_down.move" &&
		[ "$moving" = t ] && [[ "$out" == *"partition $p is moving"* ]]; then
		pass cluster_move_old_shard_down "the failure says the move switched and how to complete it; writes refused meanwhile"
	else
		fail cluster_move_old_shard_down "moving: $moving; a write: $out; the mover said: $(tr '\n' ' ' <"$work/mover_down.move")"
	fi

	# the old shard back, the move run again completes it
	clu_start shard0
	if ! out="$(clu_move_partition "$p" "$dst" 2>&1)"; then
		fail cluster_move_completed "run again, the move failed: $out"
		return
	fi
	moving="$(clu_proxy_value "SELECT moving FROM ots_cluster.partitions WHERE partition = $p")"
	out="$(clu_psql proxy -At -c "SELECT (ots.put_row('mo.t', '{\"k\": \"$kp\"}', '{\"v\": 4}')).consumed IS NOT NULL" \
		-c "SELECT attributes ->> 'v' FROM ots.get_row('mo.t', '{\"k\": \"$kp\"}')" 2>&1 || true)"
	rows="$(clu_psql shard0 -At -c "SELECT count(*) FROM mo.\"t\$data\" WHERE k = '$kp'")/$(clu_psql shard1 -At -c "SELECT count(*) FROM mo.\"t\$data\" WHERE k = '$kp'")"
	if [ "$moving" = f ] && [ "$out" = $'t\n4' ] && [ "$rows" = 0/1 ]; then
		pass cluster_move_completed "run again, the move deleted the old copy and the partition takes writes"
	else
		fail cluster_move_completed "moving: $moving; write and read back: $(echo "$out" | tr '\n' ' '); rows of $kp old/new: $rows"
	fi
}

# mover_abort_test: the new shard (shard2) down during the copy: the move
# fails saying it stands during the copy, with the commands that complete
# and abort it; once the shard is back, the abort deletes the partial copy
# and allows writes again.
mover_abort_test() {
	local out p dst src kp moving rows
	src="$(clu_connstr shard0)"
	dst="$(clu_connstr shard2)"
	p="$(clu_proxy_value "SELECT max(partition) FROM ots_cluster.partitions WHERE connstr = '$src'")"
	kp="$(mv_key "$p")"
	clu_stop shard2
	if out="$(clu_move_partition "$p" "$dst" 2>&1)"; then
		fail cluster_move_new_shard_down "the move succeeded with its new shard down"
		clu_start shard2
		return
	fi
	moving="$(clu_proxy_value "SELECT moving FROM ots_cluster.partitions WHERE partition = $p")"
	clu_start shard2
	if [[ "$out" == *"stands during the copy"* ]] && [[ "$out" == *"clu_move_partition $p '$dst'"* ]] &&
		[[ "$out" == *"clu_move_abort $p '$dst'"* ]] && [ "$moving" = t ]; then
		pass cluster_move_new_shard_down "the failure says the move stands during the copy, and how to complete or abort it"
	else
		fail cluster_move_new_shard_down "moving: $moving; the mover said: $(tr '\n' ' ' <<<"$out")"
	fi
	if ! out="$(clu_move_abort "$p" "$dst" 2>&1)"; then
		fail cluster_move_aborted "the abort failed: $out"
		return
	fi
	moving="$(clu_proxy_value "SELECT moving FROM ots_cluster.partitions WHERE partition = $p")"
	out="$(clu_psql proxy -At -c "SELECT (ots.put_row('mo.t', '{\"k\": \"$kp\"}', '{\"v\": 5}')).consumed IS NOT NULL" 2>&1 || true)"
	rows="$(clu_psql shard0 -At -c "SELECT count(*) FROM mo.\"t\$data\" WHERE k = '$kp'")/$(clu_psql shard2 -At -c "SELECT count(*) FROM mo.\"t\$data\" WHERE k = '$kp'")"
	if [ "$moving" = f ] && [ "$out" = t ] && [ "$rows" = 1/0 ]; then
		pass cluster_move_aborted "the abort left the partition on its shard, writable, nothing on the new one"
	else
		fail cluster_move_aborted "moving: $moving; a write: $out; rows of $kp old/new: $rows"
	fi
}
