# shellcheck shell=bash
# tools/cluster_lib.sh: the instances of an ots cluster (a proxy database
# running ots_proxy over shard databases running ots) and the moving of whole
# partitions to a new shard. One owner of both for tools/cluster (a cluster
# in the checkout's .cluster/) and test/cluster/ (throwaway clusters).
# Source it after tools/lib.sh from a bash script running with
# `set -euo pipefail`, then set CLU_BASE (and optionally CLU_DB, CLU_CONF).
#
# Layout: one PostgreSQL instance per directory $CLU_BASE/<name>/ (proxy,
# shard0, shard1, ..., and standbys): data/ the cluster, port its port,
# server.log its log; the directory itself is the unix socket directory. The
# instances listen on no TCP port, so ports only name the socket files.
# The servers run as the postgres system user when we are root, else as
# the caller; clients connect as that user (trust authentication, unix
# sockets only).
#
#   clu_create NAME PORT [CONF-LINE...]  initdb (from a template made once)
#   clu_start NAME / clu_stop NAME [MODE] / clu_running NAME
#   clu_psql NAME ARGS...                psql -X, ON_ERROR_STOP, database $CLU_DB
#   clu_connstr NAME                     the connstr the proxy's map holds
#   clu_new_shard NAME PORT              create, start, CREATE EXTENSION ots
#   clu_new_proxy PORT SHARD...          create, start, ots_proxy, create_cluster
#   clu_shard_db NAME / clu_proxy_db SHARD...   one more database $CLU_DB on
#                                        existing instances: another cluster
#   clu_add_shard NAME PORT              a new shard, tables made on it, and a
#                                        fair share of the partitions moved to it
#   clu_move_partition P CONNSTR         one partition's rows to CONNSTR's shard
#   (CLU_PROXY=CONNSTR: the proxy is that database, not an instance here)

CLU_BASE="${CLU_BASE:-}"
CLU_DB="${CLU_DB:-ots}"
# the settings every shard gets (tools/cluster and the tests add theirs)
CLU_SHARD_CONF=(
	"shared_preload_libraries = 'ots'"
	"max_locks_per_transaction = 256"
	# a standby can follow any shard (HA: docs/cluster.md)
	"wal_level = replica"
	"max_wal_senders = 4"
	"hot_standby = on"
)
CLU_PROXY_CONF=(
	"max_locks_per_transaction = 256"
)
CLU_COMMON_CONF=(
	"listen_addresses = ''"
	"lc_messages = 'C'"
	"timezone = 'UTC'"
	"datestyle = 'ISO, YMD'"
)

clu_dir() { echo "$CLU_BASE/$1"; }
clu_port() { cat "$CLU_BASE/$1/port"; }

# clu_connstr NAME: how the proxy reaches instance NAME (no password: trust
# on a unix socket; see docs/cluster.md, Security, for other setups).
clu_connstr() {
	echo "host=$(clu_dir "$1") port=$(clu_port "$1") dbname=$CLU_DB"
}

# clu_psql NAME ARGS...: psql to instance NAME's database $CLU_DB as the
# servers' superuser (use -d to name another database). With CLU_PROXY set,
# "proxy" is that connstr instead (a proxy elsewhere: moving partitions on
# separate machines, docs/cluster.md).
clu_psql() {
	local name="$1"
	shift
	if [ "$name" = proxy ] && [ -n "${CLU_PROXY:-}" ]; then
		"$OTS_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$CLU_PROXY" "$@"
		return
	fi
	"$OTS_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$(clu_dir "$name")" \
		-p "$(clu_port "$name")" -U "$(ots_pg_user_name)" -d "$CLU_DB" "$@"
}

# clu_shards: the names of the shard instances, in order (shard0, shard1, ...).
clu_shards() {
	local d
	for d in "$CLU_BASE"/shard*; do
		if [ -f "$d/port" ]; then basename "$d"; fi
	done | sort -V
}

# clu_template: an initdb'd data directory to copy (initdb once, not per
# instance: a copy takes a fraction of initdb's time).
clu_template() {
	local t="$CLU_BASE/.template"
	if [ ! -f "$t/PG_VERSION" ]; then
		mkdir -p "$CLU_BASE"
		if ots_is_root; then chown "$OTS_PG_USER:" "$CLU_BASE"; fi
		ots_as_pg_user "$OTS_PG_BIN/initdb" -D "$t" -U "$(ots_pg_user_name)" \
			--auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$CLU_BASE/initdb.log" 2>&1 ||
			{ cat "$CLU_BASE/initdb.log" >&2; ots_die "initdb failed in $t"; }
	fi
	echo "$t"
}

# clu_create NAME PORT [CONF-LINE...]: a new instance (not started); its
# settings are in data/cluster.conf, included from postgresql.conf.
clu_create() {
	local name="$1" port="$2" dir line
	shift 2
	dir="$(clu_dir "$name")"
	[ ! -e "$dir/data" ] || ots_die "$dir/data exists already"
	mkdir -p "$dir"
	echo "$port" >"$dir/port"
	if ots_is_root; then chown "$OTS_PG_USER:" "$dir"; fi
	chmod 700 "$dir"
	ots_as_pg_user cp -a "$(clu_template)" "$dir/data"
	{
		echo "# written by tools/cluster_lib.sh"
		echo "port = $port"
		echo "unix_socket_directories = '$dir'"
		for line in "${CLU_COMMON_CONF[@]}" "$@"; do
			echo "$line"
		done
	} | ots_as_pg_user tee "$dir/data/cluster.conf" >/dev/null
	echo "include 'cluster.conf'" | ots_as_pg_user tee -a "$dir/data/postgresql.conf" >/dev/null
}

clu_running() {
	[ -f "$(clu_dir "$1")/data/PG_VERSION" ] &&
		ots_as_pg_user "$OTS_PG_BIN/pg_ctl" -D "$(clu_dir "$1")/data" status >/dev/null 2>&1
}

# clu_start NAME: starts the instance and waits until it accepts connections.
clu_start() {
	local dir
	dir="$(clu_dir "$1")"
	clu_running "$1" && return 0
	ots_as_pg_user "$OTS_PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" \
		-p "$OTS_PG_BIN/postgres" -w -t 120 start >"$dir/pg_ctl.log" 2>&1 ||
		{ tail -n 20 "$dir/server.log" >&2; ots_die "instance $1 did not start ($dir)"; }
}

# clu_stop NAME [MODE]: stops the instance (MODE fast, or immediate), if it runs.
clu_stop() {
	local dir
	dir="$(clu_dir "$1")"
	if clu_running "$1"; then
		ots_as_pg_user "$OTS_PG_BIN/pg_ctl" -D "$dir/data" -m "${2:-fast}" -w -t 60 stop >/dev/null 2>&1 ||
			ots_as_pg_user "$OTS_PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
}

# clu_stop_all: stops every instance under $CLU_BASE.
clu_stop_all() {
	local d
	[ -n "$CLU_BASE" ] && [ -d "$CLU_BASE" ] || return 0
	for d in "$CLU_BASE"/*/; do
		if [ -f "$d/port" ]; then
			clu_stop "$(basename "$d")"
		fi
	done
}

# clu_new_shard NAME PORT [CONF-LINE...]: a started shard instance whose
# database $CLU_DB runs ots.
clu_new_shard() {
	local name="$1" port="$2"
	shift 2
	clu_create "$name" "$port" "${CLU_SHARD_CONF[@]}" "$@"
	clu_start "$name"
	clu_shard_db "$name"
}

# clu_shard_db NAME: database $CLU_DB on shard instance NAME, running ots.
clu_shard_db() {
	clu_psql "$1" -d postgres -c "CREATE DATABASE \"$CLU_DB\""
	clu_psql "$1" -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots"
}

# clu_new_proxy PORT SHARD-NAME...: a started proxy instance whose database
# $CLU_DB runs ots_proxy over database $CLU_DB of the shards (clu_proxy_db).
clu_new_proxy() {
	local port="$1"
	shift
	clu_create proxy "$port" "${CLU_PROXY_CONF[@]}"
	clu_start proxy
	clu_proxy_db "$@"
}

# clu_proxy_db SHARD...: database $CLU_DB on the proxy instance, running
# ots_proxy over database $CLU_DB of the shards, in that order
# (ots_cluster.create_cluster; CLU_PARTITIONS partitions, default 64). A
# SHARD with an = in it is a connstr (a primary and its standbys, say).
clu_proxy_db() {
	local s
	local -a connstrs=()
	for s in "$@"; do
		if [[ "$s" == *=* ]]; then
			connstrs+=("$s")
		else
			connstrs+=("$(clu_connstr "$s")")
		fi
	done
	clu_psql proxy -d postgres -c "CREATE DATABASE \"$CLU_DB\""
	clu_psql proxy -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots_proxy CASCADE"
	clu_psql proxy -At -v shards="{$(clu_array_text "${connstrs[@]}")}" \
		-v parts="${CLU_PARTITIONS:-64}" <<<"SELECT ots_cluster.create_cluster(:'shards'::text[], :parts)" >/dev/null
}

# clu_new_standby NAME PORT PRIMARY: a started streaming standby of
# instance PRIMARY (pg_basebackup -R: primary_conninfo to its socket), hot,
# so it can be read and promoted (pg_ctl promote; docs/cluster.md, High
# availability).
clu_new_standby() {
	local name="$1" port="$2" primary="$3" dir line
	dir="$(clu_dir "$name")"
	mkdir -p "$dir"
	echo "$port" >"$dir/port"
	if ots_is_root; then chown "$OTS_PG_USER:" "$dir"; fi
	chmod 700 "$dir"
	ots_as_pg_user "$OTS_PG_BIN/pg_basebackup" -h "$(clu_dir "$primary")" -p "$(clu_port "$primary")" \
		-U "$(ots_pg_user_name)" -D "$dir/data" -R -X stream -c fast >"$dir/basebackup.log" 2>&1 ||
		{ cat "$dir/basebackup.log" >&2; ots_die "pg_basebackup of $primary failed"; }
	# its own port and socket; the rest as the primary's
	{
		echo "# written by tools/cluster_lib.sh"
		echo "port = $port"
		echo "unix_socket_directories = '$dir'"
		ots_as_pg_user grep -v -E '^(#|port =|unix_socket_directories =)' "$dir/data/cluster.conf"
	} >"$dir/cluster.conf.new"
	ots_as_pg_user tee "$dir/data/cluster.conf" <"$dir/cluster.conf.new" >/dev/null
	rm -f "$dir/cluster.conf.new"
	clu_start "$name"
}

# clu_array_text ITEM...: the items as the inside of a text[] literal.
clu_array_text() {
	local item out=""
	for item in "$@"; do
		item="${item//\\/\\\\}"
		item="${item//\"/\\\"}"
		out+="${out:+,}\"$item\""
	done
	echo "$out"
}

# clu_copy_tables SRC DST: makes every ots table of shard SRC (and its
# defined columns, secondary and search indexes, grants and row-level security) on shard
# DST (both connstrs), as the table's
# owner, with the same definition: the repair for a shard that has none of
# them (a new shard is not in the map until it gets a partition, so the
# proxy's create_table cannot reach it). Schemas are created as their
# owner; roles must already exist on DST (docs/cluster.md, Security).
# Tables DST has already are left alone, so it can be run again. Its
# sessions (and clu_move_partition's) run with search_path pg_catalog,
# pg_temp (PGOPTIONS; a connstr's own options= would replace it): as the
# superuser on a shard, no operator or function of a schema a role can
# create in may be found before pg_catalog's.
clu_copy_tables() {
	local src="$1" dst="$2"
	# every session it opens (superuser on the shards): search_path pinned
	local -x PGOPTIONS="${PGOPTIONS:-} -c search_path=pg_catalog,pg_temp"
	clu_connstr_psql "$src" -At -f - <<-'EOF' >"$CLU_BASE/.ddl.sql"
		-- pinned: nothing below resolves through a role's schema, and the
		-- policies' expressions come out schema-qualified; a table is named
		-- as ots's table-name arguments take it (the schema quoted, the name as it is)
		SET search_path = pg_catalog, pg_temp;
		SELECT format('CREATE SCHEMA IF NOT EXISTS %I AUTHORIZATION %I;', n.nspname,
		              pg_catalog.pg_get_userbyid(n.nspowner))
		  FROM pg_catalog.pg_namespace n
		 WHERE n.nspname IN (SELECT schema_name FROM ots.tables)
		 ORDER BY 1;
		-- tables first, then indexes, each as the owner of its storage
		SELECT format('SET ROLE %I; SELECT ots.create_table(%L, %L, max_versions => %s, time_to_live => %s, '
		              'max_version_offset => %s, allow_update => %L, partitions => %s, hash_prefix_length => %s, '
		              'defined_columns => %L, stream_enabled => %L, stream_expiration_hours => %s, update_full_row => %L, '
		              'stream_original_columns => %L) '
		              'WHERE NOT EXISTS (SELECT FROM ots.tables WHERE schema_name = %L AND table_name = %L); RESET ROLE;',
		              pg_catalog.pg_get_userbyid(c.relowner),
		              quote_ident(t.schema_name) || '.' || t.table_name,
		              (SELECT string_agg(k.name || ' ' || lower(t.pk_types[k.n])
		                                 || CASE WHEN k.n = t.auto_increment THEN ' auto_increment' ELSE '' END,
		                                 ', ' ORDER BY k.n)
		                 FROM unnest(t.pk_names) WITH ORDINALITY AS k(name, n)),
		              t.max_versions, t.time_to_live, t.max_version_offset, t.allow_update, t.partitions,
		              t.hash_prefix_length,
		              (SELECT string_agg(d.name || ' ' || lower(d.type), ', ' ORDER BY d.n)
		                 FROM unnest(t.defined_names, t.defined_types) WITH ORDINALITY AS d(name, type, n)),
		              t.stream_id IS NOT NULL, coalesce(t.stream_expiration_hours::text, 'NULL'),
		              t.update_full_row, t.stream_original_columns, t.schema_name, t.table_name)
		  FROM ots.tables t
		  JOIN pg_catalog.pg_class c
		    ON c.oid = format('%I.%I', t.schema_name, t.table_name || '$data')::regclass
		 WHERE t.index_of IS NULL
		 ORDER BY t.schema_name COLLATE "C", t.table_name COLLATE "C";
		SELECT format('SET ROLE %I; SELECT ots.create_index(%L, %L, %L::text[], %L::text[], %L, %L) '
		              'WHERE NOT EXISTS (SELECT FROM ots.tables WHERE schema_name = %L AND table_name = %L); RESET ROLE;',
		              pg_catalog.pg_get_userbyid(c.relowner),
		              quote_ident(i.schema_name) || '.' || i.index_of, i.table_name,
		              i.pk_names[1:i.index_key_count], i.defined_names, i.index_type,
		              i.index_phase <> 'INCR_ONLY', i.schema_name, i.table_name)
		  FROM ots.tables i
		  JOIN pg_catalog.pg_class c
		    ON c.oid = format('%I.%I', i.schema_name, i.index_of || '$data')::regclass
		 WHERE i.index_of IS NOT NULL
		 ORDER BY i.schema_name COLLATE "C", i.table_name COLLATE "C";
		-- search indexes (empty on the new shard: the moved rows fill them as they are written)
		SELECT format('SET ROLE %I; SELECT ots.create_search_index(%L, %L, %L::jsonb, %s) '
		              'WHERE NOT EXISTS (SELECT FROM ots.search_indexes WHERE schema_name = %L AND table_name = %L '
		              'AND index_name = %L); RESET ROLE;',
		              pg_catalog.pg_get_userbyid(c.relowner),
		              quote_ident(s.schema_name) || '.' || s.table_name, s.index_name, s.index_schema, s.time_to_live,
		              s.schema_name, s.table_name, s.index_name)
		  FROM ots.search_indexes s
		  JOIN pg_catalog.pg_class c
		    ON c.oid = format('%I.%I', s.schema_name, s.table_name || '$data')::regclass
		 ORDER BY s.schema_name COLLATE "C", s.table_name COLLATE "C", s.index_name COLLATE "C";
		-- the privileges granted on each table's view and storage
		SELECT format('GRANT %s ON %s TO %s%s;', a.privilege_type, c.oid::regclass,
		              CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END,
		              CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END)
		  FROM ots.tables t
		  JOIN pg_catalog.pg_class c
		    ON c.oid IN (format('%I.%I', t.schema_name, t.table_name)::regclass,
		                 format('%I.%I', t.schema_name, t.table_name || '$data')::regclass)
		 CROSS JOIN LATERAL aclexplode(c.relacl) a
		 WHERE a.grantee <> c.relowner
		 ORDER BY 1;
		-- row-level security on each storage: its switches, then its policies, as its owner
		SELECT format('SET ROLE %I; ALTER TABLE %s %s ROW LEVEL SECURITY; ALTER TABLE %s %s ROW LEVEL SECURITY; RESET ROLE;',
		              pg_get_userbyid(c.relowner), c.oid::regclass,
		              CASE WHEN c.relrowsecurity THEN 'ENABLE' ELSE 'DISABLE' END, c.oid::regclass,
		              CASE WHEN c.relforcerowsecurity THEN 'FORCE' ELSE 'NO FORCE' END)
		  FROM ots.tables t
		  JOIN pg_catalog.pg_class c ON c.oid = format('%I.%I', t.schema_name, t.table_name || '$data')::regclass
		 WHERE c.relrowsecurity OR c.relforcerowsecurity
		 ORDER BY 1;
		SELECT format('SET ROLE %I; DROP POLICY IF EXISTS %I ON %s; CREATE POLICY %I ON %s AS %s FOR %s TO %s%s%s; RESET ROLE;',
		              pg_get_userbyid(c.relowner), p.polname, c.oid::regclass, p.polname, c.oid::regclass,
		              CASE WHEN p.polpermissive THEN 'PERMISSIVE' ELSE 'RESTRICTIVE' END,
		              CASE p.polcmd WHEN 'r' THEN 'SELECT' WHEN 'a' THEN 'INSERT' WHEN 'w' THEN 'UPDATE'
		                            WHEN 'd' THEN 'DELETE' ELSE 'ALL' END,
		              (SELECT string_agg(CASE WHEN r = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(r)) END, ', ')
		                 FROM unnest(p.polroles) r),
		              CASE WHEN p.polqual IS NOT NULL THEN ' USING (' || pg_get_expr(p.polqual, p.polrelid) || ')' ELSE '' END,
		              CASE WHEN p.polwithcheck IS NOT NULL THEN ' WITH CHECK (' || pg_get_expr(p.polwithcheck, p.polrelid) || ')' ELSE '' END)
		  FROM ots.tables t
		  JOIN pg_catalog.pg_class c ON c.oid = format('%I.%I', t.schema_name, t.table_name || '$data')::regclass
		  JOIN pg_catalog.pg_policy p ON p.polrelid = c.oid
		 ORDER BY 1;
	EOF
	clu_connstr_psql "$dst" -c "SET client_min_messages = warning" -c "SET search_path = pg_catalog, pg_temp" \
		-f "$CLU_BASE/.ddl.sql" >/dev/null ||
		ots_die "making the tables of $src on $dst failed (statements in $CLU_BASE/.ddl.sql)"
}

# clu_proxy_value SQL: one value computed on the proxy.
clu_proxy_value() {
	clu_psql proxy -At -c "$1"
}

# clu_connstr_psql CONNSTR ARGS...: psql as the superuser to a shard named
# by its connstr (as the map holds it).
clu_connstr_psql() {
	local connstr="$1"
	shift
	"$OTS_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$connstr user=$(ots_pg_user_name)" "$@"
}

# clu_hash_sql COLUMN TYPE: the proxy's SQL for the routing hash of a stored
# partition-key column (ots_cluster.storage_hash_sql, the one owner).
# clu_hash_cache COLUMN TYPE: the same into CLU_HASH_SQL[COLUMN/TYPE], asked
# once per column and type.
clu_hash_sql() {
	clu_psql proxy -At -v col="$1" -v type="$2" \
		<<<"SELECT ots_cluster.storage_hash_sql(quote_ident(:'col'), :'type')"
}
declare -A CLU_HASH_SQL=()
clu_hash_cache() {
	if [ -z "${CLU_HASH_SQL["$1/$2"]:-}" ]; then
		CLU_HASH_SQL["$1/$2"]="$(clu_hash_sql "$1" "$2")"
	fi
}

# clu_wait_proxy_writes: waits until every transaction that was open on the
# proxy when it was called has ended (as CREATE INDEX CONCURRENTLY waits for
# older transactions). Called after a partition's moving flag committed: a
# write that read the flag before cannot have committed on the source after
# this returns (each shard call commits before the proxy's transaction
# ends), and every later one sees the flag. Waits at most
# CLU_MOVE_WAIT seconds (default 60) for a session idle in a transaction;
# says what it waits for once it has waited a second.
clu_wait_proxy_writes() {
	local old left deadline said=
	old="$(clu_proxy_value "SELECT string_agg(pid || ':' || extract(epoch FROM xact_start), ' ')
		FROM pg_stat_activity WHERE xact_start IS NOT NULL AND pid <> pg_backend_pid()
		  AND backend_type = 'client backend' AND datname = current_database()")"
	[ -n "$old" ] || return 0
	deadline=$((SECONDS + ${CLU_MOVE_WAIT:-60}))
	while :; do
		left="$(clu_psql proxy -At -v old="$old" <<<"SELECT count(*)
			FROM unnest(string_to_array(:'old', ' ')) o
			JOIN pg_stat_activity a ON a.pid = split_part(o, ':', 1)::int
			 AND extract(epoch FROM a.xact_start)::text = split_part(o, ':', 2)")"
		[ "$left" != 0 ] || return 0
		[ "$SECONDS" -lt "$deadline" ] ||
			ots_die "$left proxy transactions older than the move are still open (pg_stat_activity); retry"
		if [ -z "$said" ] && [ "$((deadline - SECONDS))" -lt "$((${CLU_MOVE_WAIT:-60} - 1))" ]; then
			ots_log "waiting for $left proxy transaction(s) older than the move to end (pg_stat_activity; at most ${CLU_MOVE_WAIT:-60} s)"
			said=1
		fi
		sleep 0.05
	done
}

# A move of a partition P to the shard DST (clu_move_partition) goes
# through these stages, which the map records (ots_cluster.partitions:
# moving, connstr, move_from, move_to) and every failure names, with the
# command that completes or aborts the move (docs/cluster.md, Recovering a
# move):
#   before-copy  moving on (writes to P refused), nothing copied yet
#   copying      moving on; DST may hold part of P's rows
#   copied       moving on; DST holds every row; the map still names the old shard
#   switched     the map names DST; the old copy is not deleted yet
#   deleted      the old copy deleted; only the moving flag is left
# Run again, clu_move_partition P DST completes a move from where it stands
# (copies again before the switch, deletes the old copy after it);
# clu_move_abort P DST gives up one that has not switched.

# CLU_MOVE_CMD: how the mover's messages name those two commands: empty for
# this file's functions; tools/cluster sets its own path, whose subcommands
# move and move-abort run them.
CLU_MOVE_CMD="${CLU_MOVE_CMD:-}"

# clu_quote WORD: WORD in single quotes, for a command line a user copies
clu_quote() {
	printf "'%s'" "${1//\'/\'\\\'\'}"
}

# clu_move_cmd complete|abort P DST: the command line that completes or
# aborts the move of partition P to DST
clu_move_cmd() {
	if [ -n "$CLU_MOVE_CMD" ]; then
		echo "$CLU_MOVE_CMD $([ "$1" = complete ] && echo move || echo move-abort) $2 $(clu_quote "$3")" \
			"(as root, or with sudo)"
	else
		echo "clu_move_$([ "$1" = complete ] && echo partition || echo abort) $2 $(clu_quote "$3")" \
			"(tools/cluster_lib.sh, as in docs/cluster.md)"
	fi
}

# clu_move_state P: partition P as the map has it, tab-separated: moving
# (t/f), connstr, move_from, move_to (empty when not recorded); nothing when
# there is no such partition
clu_move_state() {
	clu_psql proxy -At -F $'\t' -v p="$1" <<<"SELECT moving, connstr, coalesce(move_from, ''), coalesce(move_to, '')
		FROM ots_cluster.partitions WHERE partition = :p"
}

# clu_move_stop P DST STAGE WHY: ends the mover: what failed (WHY), where
# the move of partition P to DST stands (STAGE, above) and the commands
# that complete or abort it
clu_move_stop() {
	local p="$1" dst="$2" stage="$3" why="$4" moving connstr from to where next
	IFS=$'\t' read -r moving connstr from to < <(clu_move_state "$p") || true
	case "$stage" in
	before-copy)
		where="before the copy: writes to partition $p are refused; nothing is copied to the new shard yet; the map names the old shard ($from), where calls go" ;;
	copying)
		where="during the copy: writes to partition $p are refused; the new shard may hold part of its rows; the map names the old shard ($from), where calls go" ;;
	copied)
		where="copied, not switched: writes to partition $p are refused; the new shard holds all its rows; the map still names the old shard ($from), where calls go" ;;
	switched)
		where="switched: the map names the new shard, where calls on partition $p go; its old copy on $from is not deleted yet, and writes to partition $p stay refused until it is" ;;
	deleted)
		where="with the old copy deleted: calls go to the new shard; only the moving flag is left, refusing writes to partition $p" ;;
	esac
	case "$stage" in
	switched | deleted)
		next="complete it (it deletes what is left of the old copy and allows writes; the old shard must answer):
  $(clu_move_cmd complete "$p" "$dst")" ;;
	*)
		next="complete it (it copies again, removing any partial copy first):
  $(clu_move_cmd complete "$p" "$dst")
or abort it (it deletes the copy on the new shard and allows writes):
  $(clu_move_cmd abort "$p" "$dst")
(do not just clear the moving flag: ranges would read a partial copy beside the real one)" ;;
	esac
	ots_die "moving partition $p to $dst stopped: $why.
The move stands $where.
To $next"
}

# clu_move_partition P DST-CONNSTR: moves partition P of every table from
# the shard the map names to the shard DST-CONNSTR, whose tables exist
# (clu_copy_tables):
#  1. the move begins (ots_cluster.begin_move): the proxy refuses writes of
#     P (OTSPartitionUnavailable), reads go on, and the map records both
#     ends; then clu_wait_proxy_writes for writes already past it;
#  2. per table, P's stored rows copied (COPY ... TO STDOUT | COPY ... FROM
#     STDIN, through the storage's guard; secondary indexes follow at the
#     new shard's write point), then P's chunks of its chunk relation (the
#     cells of split rows: a row moves whole), each after removing any rows
#     of P an earlier try left there, as the storage's owner (the new shard
#     runs the owner's code, an index expression say, with the owner's
#     rights, never the superuser's); an AUTO_INCREMENT sequence set to at
#     least the source's;
#  3. the map switched (ots_cluster.set_partition), then clu_wait_proxy_writes
#     again: a transaction that began before the switch may still write
#     (PL/Proxy keeps the map it read) or stream a range from the old copy;
#  4. clu_move_finish: the old copy deleted (as its owner), moving off.
# A failure stops it with where it stands (the stages above) and the
# commands that complete or abort it; run again, it completes the move from
# there. A proxy transaction that stays open (idle in transaction, a long
# get_range_rows) for CLU_MOVE_WAIT seconds stops it too: before the copy
# of a move begun now, with moving off again.
clu_move_partition() {
	clu_move_copy "$1" "$2" || exit 1
	clu_move_switch "$1" "$2" || exit 1
}

# clu_move_copy P DST: steps 1 and 2 of clu_move_partition (nothing to do
# when the map names DST already: a switched move's rows are there).
clu_move_copy() {
	local p="$1" dst="$2" src mask moving from to begun
	# every session it opens (superuser on the shards): search_path pinned
	local -x PGOPTIONS="${PGOPTIONS:-} -c search_path=pg_catalog,pg_temp"
	IFS=$'\t' read -r moving src from to < <(clu_move_state "$p") || true
	[ -n "$src" ] || ots_die "no partition $p in the map"
	[ "$src" != "$dst" ] || return 0
	mask="$(clu_proxy_value "SELECT count(*) - 1 FROM ots_cluster.partitions")"
	# a move of P to DST begun before: DST may hold part of a copy
	begun=
	if [ "$moving" = t ] && [ "$to" = "$dst" ]; then begun=1; fi
	clu_psql proxy -At -v p="$p" -v dst="$dst" <<<"SELECT ots_cluster.begin_move(:p, :'dst')" >/dev/null ||
		ots_die "partition $p not moved: its move could not begin (above); nothing changed"
	if ! (clu_wait_proxy_writes); then
		[ -z "$begun" ] || clu_move_stop "$p" "$dst" copying \
			"proxy transactions older than its moving flag did not end"
		# nothing copied yet: give the partition its writes back
		clu_proxy_value "SELECT ots_cluster.set_moving(ARRAY[$p], false)" >/dev/null || true
		ots_die "partition $p not moved: proxy transactions older than its moving flag did not end; its writes are allowed again, nothing was copied"
	fi

	local tables t seq pkname pktype owner forced chunk hashsql last copydir
	tables="$(clu_base_tables "$src")" ||
		clu_move_stop "$p" "$dst" "$([ -n "$begun" ] && echo copying || echo before-copy)" \
			"listing the tables of the old shard failed"
	copydir="$(mktemp -d)" || clu_move_stop "$p" "$dst" copying "no temporary directory for the copy"
	# the caller's EXIT trap removes it if the script is stopped (tools/cluster)
	# shellcheck disable=SC2034 # read by tools/cluster's trap
	CLU_COPYDIR=$copydir
	while IFS=$'\t' read -r t seq pkname pktype owner forced chunk; do
		[ -n "$t" ] || continue
		hashsql="$(clu_partition_sql "$pkname" "$pktype" "$mask" "$p")"
		# the chunk relation's rows (the cells of split rows) and the storage's, read
		# from the old shard under one snapshot (a head and its chunks of one moment) ...
		rm -f "$copydir/rows" "$copydir/chunks"
		local -a reads=(-c "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
			-c "\\o $copydir/rows" -c "COPY (SELECT * FROM $t WHERE $hashsql) TO STDOUT (FORMAT binary)")
		if [ "$chunk" != - ]; then
			reads+=(-c "\\o $copydir/chunks" -c "COPY (SELECT * FROM $chunk WHERE $hashsql) TO STDOUT (FORMAT binary)")
		fi
		reads+=(-c "\\o" -c "COMMIT")
		if ! clu_connstr_psql "$src" "${reads[@]}" >/dev/null; then
			rm -rf "$copydir"
			clu_move_stop "$p" "$dst" copying "reading its rows of $t from the old shard failed"
		fi
		# ... and written on the new shard in one transaction, as the owner: rows of an
		# earlier try go (a head takes its chunks), then the chunks come before their
		# heads, so the new shard's write point makes a split row's index entries from
		# them (writes of P stay refused, and calls go to the old shard, until the switch)
		if [ "$chunk" != - ]; then
			clu_owner_steps "$owner" "$t" "$forced" "DELETE FROM $t WHERE $hashsql" \
				"DELETE FROM $chunk WHERE $hashsql" \
				"\\copy $chunk FROM '$copydir/chunks' (FORMAT binary)" \
				"\\copy $t FROM '$copydir/rows' (FORMAT binary)"
		else
			clu_owner_steps "$owner" "$t" "$forced" "DELETE FROM $t WHERE $hashsql" \
				"\\copy $t FROM '$copydir/rows' (FORMAT binary)"
		fi
		if ! clu_connstr_psql "$dst" -1 "${CLU_STEPS[@]}" >/dev/null; then
			rm -rf "$copydir"
			clu_move_stop "$p" "$dst" copying "copying its rows of $t failed"
		fi
		if [ "$seq" != - ]; then
			if ! last="$(clu_connstr_psql "$src" -At -c "SELECT last_value FROM $seq")" ||
				! clu_connstr_psql "$dst" -At -v seq="$seq" \
					<<<"SELECT pg_catalog.setval(:'seq', greatest($last, (SELECT last_value FROM $seq)))" >/dev/null; then
				rm -rf "$copydir"
				clu_move_stop "$p" "$dst" copying "setting $seq on the new shard failed"
			fi
		fi
	done <<<"$tables"
	rm -rf "$copydir"
	# shellcheck disable=SC2034 # read by tools/cluster's trap
	CLU_COPYDIR=
}

# clu_move_switch P DST: steps 3 and 4 of clu_move_partition, once P's rows
# are on DST (clu_move_copy); when the map names DST already (a move that
# stopped after its switch), step 4.
clu_move_switch() {
	local p="$1" dst="$2" moving src from to
	IFS=$'\t' read -r moving src from to < <(clu_move_state "$p") || true
	[ -n "$src" ] || ots_die "no partition $p in the map"
	if [ "$src" = "$dst" ]; then
		[ "$moving" = t ] || return 0
		[ -n "$from" ] ||
			ots_die "partition $p is on that shard with writes refused (moving), but the map does not record the shard it moved from: delete its rows there (clu_move_finish $p 'OLD-SHARD'), or allow its writes (ots_cluster.set_moving(ARRAY[$p], false)) if it has none"
		ots_log "partition $p: completing its move from $from (switched already)"
		clu_move_finish "$p" "$from"
		return
	fi
	if [ "$moving" != t ] || [ "$to" != "$dst" ]; then
		ots_die "partition $p is not moving to that shard: copy it first (clu_move_copy)"
	fi
	clu_psql proxy -At -v p="$p" -v dst="$dst" <<<"SELECT ots_cluster.set_partition(:p, :'dst')" >/dev/null ||
		clu_move_stop "$p" "$dst" copied "switching the map failed"
	if ! (clu_wait_proxy_writes); then
		clu_move_stop "$p" "$dst" switched "proxy transactions older than the switch did not end"
	fi
	clu_move_finish "$p" "$src"
}

# clu_base_tables CONNSTR: the base tables of a shard (an index's entries
# follow its table's rows), one a line, tab-separated: storage, sequence (-
# for none), partition-key column and type, the storage's owner (quoted),
# whether it forces row-level security on its owner (t/f; its chunk relation
# has the storage's row security), and its chunk relation (- for none: a
# table of 0.2.0 before the update). A chunk relation has the storage's
# partition-key column, so the condition that selects a partition's rows
# selects its chunks too.
clu_base_tables() {
	clu_connstr_psql "$1" -At -F $'\t' -c \
		"SELECT pg_catalog.format('%I.%I', t.schema_name, t.table_name OPERATOR(pg_catalog.||) '\$data'),
		        CASE WHEN t.auto_increment IS NOT NULL
		             THEN pg_catalog.format('%I.%I', t.schema_name, t.table_name OPERATOR(pg_catalog.||) '\$seq') ELSE '-' END,
		        t.pk_names[1], t.pk_types[1], pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(c.relowner)),
		        c.relforcerowsecurity,
		        CASE WHEN k.oid IS NOT NULL
		             THEN pg_catalog.format('%I.%I', t.schema_name, t.table_name OPERATOR(pg_catalog.||) '\$chunk') ELSE '-' END
		   FROM ots.tables t
		   JOIN pg_catalog.pg_class c
		     ON c.oid OPERATOR(pg_catalog.=) pg_catalog.format('%I.%I', t.schema_name,
		                                                        t.table_name OPERATOR(pg_catalog.||) '\$data')::pg_catalog.regclass
		   LEFT JOIN pg_catalog.pg_class k
		     ON k.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(pg_catalog.format('%I.%I', t.schema_name,
		                                                                              t.table_name OPERATOR(pg_catalog.||) '\$chunk'))
		    AND k.relowner OPERATOR(pg_catalog.=) c.relowner
		  WHERE t.index_of IS NULL ORDER BY t.schema_name COLLATE \"C\", t.table_name COLLATE \"C\""
}

# clu_owner_steps OWNER TABLE FORCED SQL...: psql arguments (into CLU_STEPS)
# running SQL... as the owner of storage TABLE with row_security off, so
# that a policy that would hide a row fails the statement instead of
# skipping the row; a table that forces row-level security on its owner
# (FORCED = t) has that lifted around them, in the caller's transaction
# (its chunk relation with it).
clu_owner_steps() {
	local owner="$1" t="$2" forced="$3" q
	shift 3
	CLU_STEPS=(-c "SET ROLE $owner" -c "SET row_security = off")
	if [ "$forced" = t ]; then CLU_STEPS+=(-c "ALTER TABLE $t NO FORCE ROW LEVEL SECURITY"); fi
	for q in "$@"; do CLU_STEPS+=(-c "$q"); done
	if [ "$forced" = t ]; then CLU_STEPS+=(-c "ALTER TABLE $t FORCE ROW LEVEL SECURITY"); fi
	CLU_STEPS+=(-c "RESET row_security" -c "RESET ROLE")
}

# clu_partition_sql COLUMN TYPE MASK P: the condition selecting partition P's
# stored rows (the proxy's ots_cluster.storage_hash_sql, the one owner of
# the hash, asked once per column and type)
clu_partition_sql() {
	clu_hash_cache "$1" "$2"
	[ -n "${CLU_HASH_SQL["$1/$2"]}" ] || ots_die "no routing hash for a $2 column"
	echo "(${CLU_HASH_SQL["$1/$2"]}) OPERATOR(pg_catalog.&) $3 OPERATOR(pg_catalog.=) $4"
}

# clu_move_delete P SHARD: deletes partition P's stored rows of every table,
# and their chunks, from SHARD, in one transaction, each table's as its owner
# (their index entries with them)
clu_move_delete() {
	local p="$1" shard="$2" mask tables t seq pkname pktype owner forced chunk hashsql
	local -x PGOPTIONS="${PGOPTIONS:-} -c search_path=pg_catalog,pg_temp"
	local -a deletes=()
	mask="$(clu_proxy_value "SELECT count(*) - 1 FROM ots_cluster.partitions")" || return 1
	tables="$(clu_base_tables "$shard")" || return 1
	while IFS=$'\t' read -r t seq pkname pktype owner forced chunk; do
		[ -n "$t" ] || continue
		hashsql="$(clu_partition_sql "$pkname" "$pktype" "$mask" "$p")"
		# a split row's head takes its chunks; then any chunk left without one
		if [ "$chunk" != - ]; then
			clu_owner_steps "$owner" "$t" "$forced" "DELETE FROM $t WHERE $hashsql" \
				"DELETE FROM $chunk WHERE $hashsql"
		else
			clu_owner_steps "$owner" "$t" "$forced" "DELETE FROM $t WHERE $hashsql"
		fi
		deletes+=("${CLU_STEPS[@]}")
	done <<<"$tables"
	if [ "${#deletes[@]}" -gt 0 ]; then
		clu_connstr_psql "$shard" -1 "${deletes[@]}" >/dev/null || return 1
	fi
}

# clu_move_finish P SRC-CONNSTR: the end of a move whose switch is done:
# partition P's rows deleted from the old shard SRC, then moving off.
clu_move_finish() {
	local p="$1" src="$2" dst
	dst="$(clu_proxy_value "SELECT connstr FROM ots_cluster.partitions WHERE partition = $p")"
	[ -n "$dst" ] || ots_die "no partition $p in the map"
	[ "$dst" != "$src" ] ||
		ots_die "partition $p is still mapped to that shard: its copy there is the one in use"
	clu_move_delete "$p" "$src" ||
		clu_move_stop "$p" "$dst" switched "deleting its old copy from the old shard failed"
	clu_proxy_value "SELECT ots_cluster.set_moving(ARRAY[$p], false)" >/dev/null ||
		clu_move_stop "$p" "$dst" deleted "clearing its moving flag failed"
}

# clu_move_abort P DST-CONNSTR: gives up a move that stopped before its
# switch (the map still names the old shard): the partial copy on DST
# deleted, then moving off. Clearing the flag alone would leave that copy,
# which ranges would read beside the real one.
clu_move_abort() {
	local p="$1" dst="$2" moving src from to
	IFS=$'\t' read -r moving src from to < <(clu_move_state "$p") || true
	[ -n "$src" ] || ots_die "no partition $p in the map"
	[ "$src" != "$dst" ] ||
		ots_die "partition $p is already mapped to that shard: the move switched and cannot be aborted; complete it: $(clu_move_cmd complete "$p" "$dst")"
	clu_move_delete "$p" "$dst" ||
		clu_move_stop "$p" "$dst" copying "deleting the partial copy from the new shard failed"
	clu_proxy_value "SELECT ots_cluster.set_moving(ARRAY[$p], false)" >/dev/null ||
		ots_die "partition $p: the copy on $dst is deleted, but clearing its moving flag failed: run the abort again"
}

# clu_add_shard NAME PORT: starts shard NAME, makes every table on it (from
# the map's first shard) and moves partitions to it until it holds its share
# (P / shards, taken from the shards that hold the most), with a line for
# each partition moved.
clu_add_shard() {
	local name="$1" port="$2" dst p share i
	clu_new_shard "$name" "$port" || ots_die "starting shard $name failed"
	dst="$(clu_connstr "$name")"
	ots_log "$name: making every table on it (from the first shard)"
	clu_copy_tables "$(clu_proxy_value "SELECT connstr FROM ots_cluster.partitions
		WHERE partition = (SELECT partition FROM ots_cluster.shards() WHERE shard = 1)")" "$dst" || exit 1
	share="$(clu_proxy_value "SELECT count(*) / (count(DISTINCT connstr) + 1) FROM ots_cluster.partitions")"
	ots_log "$name: moving $share partitions to it, one at a time (each refuses writes while its rows are copied)"
	# a fair share: each time, the highest partition of the shard holding the most
	for ((i = 1; i <= share; i++)); do
		p="$(clu_proxy_value "SELECT max(partition) FROM ots_cluster.partitions
			WHERE connstr = (SELECT connstr FROM ots_cluster.partitions WHERE connstr <> '${dst//\'/\'\'}'
			                 GROUP BY connstr ORDER BY count(*) DESC, connstr LIMIT 1)")"
		clu_move_partition "$p" "$dst" || exit 1
		ots_log "partition $p moved to $name ($i of $share)"
	done
}
