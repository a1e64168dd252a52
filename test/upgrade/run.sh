#!/usr/bin/env bash
# test/upgrade/run.sh: an ots (and an ots_proxy) installed from an earlier
# release and updated with ALTER EXTENSION ... UPDATE equals a fresh install
# of the current one.
#
#   test/upgrade/run.sh       (root: the server runs as postgres; or as a user
#                              who can run initdb; the current ots.so and
#                              ots_proxy.so installed, PL/Proxy too)
#
# For each frozen release script test/upgrade/ots--<V>.sql (written by
# tools/freeze_release):
#   1. a server whose extension directory holds only that script (and
#      ots.control with default_version = V) creates ots in two databases,
#      upg_<V> and upg_<V>_data; the second gets the tables and rows of
#      data_before.sql (every release) and data_before_<V>.sql (what V alone
#      writes); which of ots's catalog tables a role without grants can write
#      is noted;
#   2. the same server, restarted with the current release's files (the script
#      generated from src/sql, sql/upgrade/ots--A--B.sql, ots.control), runs
#      ALTER EXTENSION ots UPDATE TO each version on the path from V to the
#      current default_version, one upgrade script at a time, in both
#      (nothing to run when V is the current version), and creates ots afresh
#      in upg_current;
#   3. compares upg_<V> with upg_current: every extension member with its
#      definition, privileges, comment and, for a table, its rows
#      (objects.sql), and the rows of ots's configuration tables
#      (pg_dump --data-only of its schema); any difference fails;
#   4. reads and writes upg_<V>_data's tables through the updated extension
#      (data_after.sql, then data_after_<V>.sql, in one session, against
#      data_after_<V>.out), then ots.verify finds no problem in them; every
#      table and index has its chunk relation (of its storage's owner, no
#      member of the extension) and, where it has a TTL, the chunk
#      relation's TTL index (0.3.0); a dump of the updated database restores
#      them, chunk relations too;
#   5. restores into the current release a dump of a table made by V (whose
#      view then takes writes) and, where V keeps leaves on the ots access
#      method, V's dump of upg_<V>_data (the same tables, rows and stream
#      records; ots.verify finds nothing; the restore made each table's
#      chunk relation, which V's dump has none of);
#   5b. (in upg_<V>_taken) a relation another role made under the name of a
#      table's chunk relation before the update is left alone with a
#      WARNING; the table works on, and ots.verify reports the chunk relation
#      as another role's;
#   6. where the release let a role other than the extension's owner write
#      ots.tables, untrusted_<V>.sql must exist: unprivileged roles plant rows
#      in it in upg_<V>_untrusted and upg_<V>_untrusted_columns before the
#      update, which must name and remove them, run none of their code but as
#      their owners and change nothing of another role (untrusted_after.sql);
#      where it did not, a role without grants is refused a write to it.
# Likewise for each frozen test/upgrade/ots_proxy--<V>.sql: installed as
# shipped (with PL/Proxy) in upg_proxy_<V>, updated along its path of
# sql/upgrade/ots_proxy--A--B.sql and compared as in 3 with a fresh install
# of the current ots_proxy.
# The server runs from a private copy of the postgres binary in
# /tmp/ots-upgrade.*, so PostgreSQL takes extension files from a private
# share directory (PostgreSQL finds it relative to its binary) and the
# system's extension directory is never touched; libraries (ots.so included)
# come from the installed pkglibdir. Port $UPGRADE_PORT (default 5495), unix
# socket only. Prints "test upgrade_from_<V> ... ok|FAILED" and
# "test upgrade_proxy_from_<V> ... ok|FAILED" lines.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$here/../.." && pwd -P)"
# shellcheck source=tools/lib.sh
. "$root/tools/lib.sh"
# shellcheck source=test/tempserver.sh
. "$root/test/tempserver.sh"
export LC_ALL=C.UTF-8 LANG=C.UTF-8

control_version() { sed -n "s/^default_version = '\(.*\)'/\1/p" "$root/$1.control"; }
# frozen_versions EXT: the releases frozen in test/upgrade/EXT--<V>.sql, oldest first
frozen_versions() {
	find "$here" -maxdepth 1 -name "$1--*.sql" ! -name "$1--*--*.sql" -printf '%f\n' |
		sed "s/^$1--\(.*\)\.sql\$/\1/" | sort -V
}
current="$(control_version ots)"
current_proxy="$(control_version ots_proxy)"
if [ -z "$current" ] || [ -z "$current_proxy" ]; then
	ots_die "no default_version in ots.control or ots_proxy.control"
fi
mapfile -t frozen < <(frozen_versions ots)
mapfile -t frozen_proxy < <(frozen_versions ots_proxy)
[ "${#frozen[@]}" -gt 0 ] || ots_die "no frozen release script test/upgrade/ots--<version>.sql"
mapfile -t releases < <(printf '%s\n' "${frozen[@]}" ${frozen_proxy[@]+"${frozen_proxy[@]}"} | sort -uV)

ts_init upgrade "${UPGRADE_PORT:-5495}" "shared_preload_libraries = 'ots'"
trap ts_cleanup EXIT

# The private installation: bin/postgres copied (PostgreSQL resolves symlinks
# to find its own location), the pkglibdir linked, the share directory linked
# entry by entry except extension/, which set_extension_files fills.
pg_bindir="$("$OTS_PG_CONFIG" --bindir)"
pg_sharedir="$("$OTS_PG_CONFIG" --sharedir)"
pg_pkglibdir="$("$OTS_PG_CONFIG" --pkglibdir)"
prefix="$pg_bindir"
while [ "${pg_sharedir#"$prefix"/}" = "$pg_sharedir" ] || [ "${pg_pkglibdir#"$prefix"/}" = "$pg_pkglibdir" ]; do
	prefix="$(dirname "$prefix")"
done
tree="$TS_DIR/install"
priv_bin="$tree/${pg_bindir#"$prefix"/}"
priv_share="$tree/${pg_sharedir#"$prefix"/}"
priv_pkglib="$tree/${pg_pkglibdir#"$prefix"/}"
mkdir -p "$priv_bin" "$priv_share/extension" "$(dirname "$priv_pkglib")"
cp "$pg_bindir/postgres" "$priv_bin/postgres"
ln -s "$pg_pkglibdir" "$priv_pkglib"
for entry in "$pg_sharedir"/*; do
	if [ "$(basename "$entry")" != extension ]; then
		ln -s "$entry" "$priv_share/$(basename "$entry")"
	fi
done
chmod -R a+rX "$tree"
TS_POSTGRES="$priv_bin/postgres"

# set_extension_files FILE...: the private extension directory becomes the
# system's without any file of ots or ots_proxy, plus FILEs and a probe
# extension that shows the server reads this directory
set_extension_files() {
	local f
	find "$priv_share/extension" -mindepth 1 -delete
	for f in "$pg_sharedir"/extension/*; do
		case "$(basename "$f")" in
			ots.control | ots--* | ots_proxy.control | ots_proxy--*) ;;
			*) ln -s "$f" "$priv_share/extension/" ;;
		esac
	done
	cp "$@" "$priv_share/extension/"
	printf "comment = 'probe'\ndefault_version = '1'\n" >"$priv_share/extension/ots_upgrade_probe.control"
	chmod -R a+rX "$priv_share/extension"
}

# start_private: starts the server and checks it reads the private files
start_private() {
	ts_start
	[ "$(ts_psql -Atc "SELECT count(*) FROM pg_available_extensions WHERE name = 'ots_upgrade_probe'")" = 1 ] ||
		ots_die "the server does not read $priv_share/extension"
}

db_name() { echo "upg_${1//[^A-Za-z0-9]/_}"; }
proxy_db_name() { echo "upg_proxy_${1//[^A-Za-z0-9]/_}"; }
ext_version() { ts_psql -d "$1" -Atc "SELECT extversion FROM pg_extension WHERE extname = '$2'"; }

# the current release's files: its full scripts as `make` builds them, the
# upgrade scripts of both extensions, the control files
make -s -C "$root" PG_CONFIG="$OTS_PG_CONFIG" "ots--$current.sql" "ots_proxy--$current_proxy.sql" >/dev/null
cp "$root/ots--$current.sql" "$root/ots_proxy--$current_proxy.sql" "$TS_DIR/"
shopt -s nullglob
upgrade_scripts=("$root"/sql/upgrade/ots--*--*.sql "$root"/sql/upgrade/ots_proxy--*--*.sql)
shopt -u nullglob

echo "upgrade test: ots from ${frozen[*]} to $current, ots_proxy from ${frozen_proxy[*]:-(none frozen)} to $current_proxy (upgrade scripts: $(
	[ "${#upgrade_scripts[@]}" -gt 0 ] && basename -a "${upgrade_scripts[@]}" | paste -sd ' ' - || echo none))"

# the tables of extension ots a LOGIN role without grants may write (in the
# current database): 'upg_probe' is such a role
catalog_writable_sql="SELECT coalesce(string_agg(c.oid::regclass::text, ' ' ORDER BY c.oid::regclass::text), '')
	FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid JOIN pg_class c ON c.oid = d.objid
	WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
	  AND e.extname = 'ots' AND c.relkind IN ('r', 'p')
	  AND has_table_privilege('upg_probe', c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')"
# every ots table of the current database with its options and the rows its
# view shows, and every stream with an md5 of its records (as a consumer
# reads them from each shard's oldest, positions and stream id included);
# releases before 0.3.0 have no update_full_row: theirs is false
census="SELECT string_agg(format('%s %s %s', table_name,
	'{\"update_full_row\": false}'::jsonb || (ots.describe_table(table_name) -> 'table_options'),
	(xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I', table_name), false, true, '')))[1]),
	', ' ORDER BY table_name) FROM ots.tables
	UNION ALL
	SELECT 'streams: ' || coalesce(string_agg(format('%s %s', l.table_name, (
		SELECT md5(string_agg(ots.get_stream_record(ots.get_shard_iterator(l.stream_id, s ->> 'shard_id'), 10000)::text,
							  ',' ORDER BY s ->> 'shard_id'))
		  FROM jsonb_array_elements(ots.describe_stream(l.stream_id) -> 'shards') s)), ', ' ORDER BY l.table_name), 'none')
	  FROM ots.list_stream() l"
# every table and index of ots.tables with its chunk relation (0.3.0: the update
# makes them, a restore of a dump without them too), of its storage's owner and
# no member of the extension, and the chunk relation's TTL index exactly where
# the table has a TTL; nothing when all is there, else one line per table
chunks_sql="SELECT format('%s.%s: %s', t.schema_name, t.table_name, CASE
		WHEN k.oid IS NULL THEN 'no chunk relation'
		WHEN k.relkind <> 'r' OR k.relowner <> s.relowner OR a.amname <> 'ots' THEN 'a chunk relation ots did not make'
		WHEN EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = k.oid AND d.deptype = 'e')
			THEN 'its chunk relation is a member of the extension'
		ELSE 'the TTL index of its chunk relation ' || CASE WHEN t.time_to_live = -1 THEN 'without a TTL' ELSE 'missing' END END)
	FROM ots.tables t
	JOIN pg_class s ON s.oid = to_regclass(format('%I.%I', t.schema_name, t.table_name || '\$data'))
	LEFT JOIN pg_class k ON k.oid = to_regclass(format('%I.%I', t.schema_name, t.table_name || '\$chunk'))
	LEFT JOIN pg_am a ON a.oid = k.relam
	WHERE k.oid IS NULL OR k.relkind <> 'r' OR k.relowner <> s.relowner OR a.amname <> 'ots'
	   OR EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = k.oid AND d.deptype = 'e')
	   OR (t.time_to_live <> -1) <> (to_regclass(format('%I.%I', t.schema_name, t.table_name || '\$cttl')) IS NOT NULL)
	ORDER BY 1"
# how many tables and indexes a database has, each with its chunk relation (chunks_sql found nothing)
chunk_count_sql="SELECT count(*) || ' tables and indexes' FROM ots.tables"
# what ots.verify, with amcheck's checks, finds wrong in the current database (nothing, when all is well)
verify_sql="SELECT format('%s %s %s %s: %s', ots_table, relation, kind, location, problem) FROM ots.verify()"
declare -A catalog_writable=() catalog_refused=() dumped_heap=() census_data=()

# 1. each frozen release, installed as it shipped
for v in "${releases[@]}"; do
	files=()
	mkdir -p "$TS_DIR/release-$v"
	for ext in ots ots_proxy; do
		if [ -f "$here/$ext--$v.sql" ]; then
			sed "s/^default_version = .*/default_version = '$v'/" "$root/$ext.control" >"$TS_DIR/release-$v/$ext.control"
			files+=("$TS_DIR/release-$v/$ext.control" "$here/$ext--$v.sql")
		fi
	done
	set_extension_files "${files[@]}"
	start_private
	ts_psql -c "DO \$\$ BEGIN CREATE ROLE upg_probe LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$" >/dev/null

	if [ -f "$here/ots--$v.sql" ]; then
		db="$(db_name "$v")"
		ts_psql -c "CREATE DATABASE $db" -c "CREATE DATABASE ${db}_data" >/dev/null
		ts_psql -d "$db" -c "CREATE EXTENSION ots" >/dev/null
		data_before=(-f "$here/data_before.sql")
		if [ -f "$here/data_before_$v.sql" ]; then
			data_before+=(-f "$here/data_before_$v.sql")
		fi
		ts_psql -d "${db}_data" -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots" "${data_before[@]}" >/dev/null
		got="$(ext_version "$db" ots)"
		[ "$got" = "$v" ] || ots_die "installing the frozen $v gave version $got"
		# who may write the release's catalog: where ots.tables is closed to other
		# roles, such a role's write is refused for want of the privilege
		catalog_writable[$v]="$(ts_psql -d "$db" -Atc "$catalog_writable_sql")"
		if [[ " ${catalog_writable[$v]} " != *" ots.tables "* ]]; then
			catalog_refused[$v]="$(ts_psql -d "$db" -U upg_probe -v ON_ERROR_STOP=0 \
				-c "INSERT INTO ots.tables (schema_name, table_name) VALUES ('public', 'planted')" 2>&1 || true)"
		fi
		# a dump of a table made by the old release, restored into the current one below
		ts_psql -c "CREATE DATABASE ${db}_dump" >/dev/null
		ts_psql -d "${db}_dump" -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots" \
			-c "SELECT ots.create_table('dumped', 'k string')" \
			-c "SELECT ots.put_row('dumped', '{\"k\": \"a\"}', '{\"v\": 1}')" >/dev/null
		dumped_heap[$v]="$(ts_psql -d "${db}_dump" -Atc "SELECT bool_and(a.amname = 'heap') FROM pg_inherits i
			JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_am a ON a.oid = c.relam WHERE i.inhparent = '\"dumped\$data\"'::regclass")"
		"$TS_BIN/pg_dump" -Fc -d "${db}_dump" -f "$TS_DIR/dump.$v"
		# and where the release keeps leaves on the ots access method, data_before*.sql's
		# tables as it dumps them
		if [ "${dumped_heap[$v]}" = f ]; then
			"$TS_BIN/pg_dump" -Fc -d "${db}_data" -f "$TS_DIR/dump_data.$v"
			census_data[$v]="$(ts_psql -d "${db}_data" -Atc "$census")"
		fi
		# a relation another role (with CREATE on the schema) made under the name
		# 0.3.0 gives a table's chunk relation, which the update must leave alone
		ts_psql -c "DO \$\$ BEGIN CREATE ROLE upg_taker; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$" \
			-c "CREATE DATABASE ${db}_taken" >/dev/null
		ts_psql -d "${db}_taken" -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots" \
			-c "GRANT CREATE ON SCHEMA public TO upg_taker" -c "SELECT ots.create_table('taken', 'k string')" \
			-c "SET ROLE upg_taker" -c 'CREATE TABLE "taken$chunk" (x integer)' -c "RESET ROLE" >/dev/null
		# rows of ots.tables planted by roles that are not superusers, where the release let them
		if [ -f "$here/untrusted_$v.sql" ]; then
			for d in "${db}_untrusted" "${db}_untrusted_columns"; do
				ts_psql -c "CREATE DATABASE $d" >/dev/null
				ts_psql -d "$d" -c "CREATE EXTENSION ots" >/dev/null
			done
			PGOPTIONS="-c client_min_messages=warning" ts_psql -v db="${db}_untrusted" \
				-v db_columns="${db}_untrusted_columns" -f "$here/untrusted_$v.sql" >/dev/null
		fi
	fi

	if [ -f "$here/ots_proxy--$v.sql" ]; then
		db="$(proxy_db_name "$v")"
		ts_psql -c "CREATE DATABASE $db" >/dev/null
		ts_psql -d "$db" -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots_proxy CASCADE" >/dev/null
		got="$(ext_version "$db" ots_proxy)"
		[ "$got" = "$v" ] || ots_die "installing the frozen ots_proxy $v gave version $got"
	fi
	ts_stop
done

# 2. the current release: update the old installs, install afresh
set_extension_files "$root/ots.control" "$TS_DIR/ots--$current.sql" \
	"$root/ots_proxy.control" "$TS_DIR/ots_proxy--$current_proxy.sql" ${upgrade_scripts[@]+"${upgrade_scripts[@]}"}
start_private

# configuration rows the install script writes, in the extension's schemas
# (pg_dump keeps these tables' data)
dump_config() {
	local ext="$1" db="$2" schemas
	mapfile -t schemas < <(ts_psql -d "$db" -Atc "SELECT '--schema=' || n.nspname FROM pg_depend d
		JOIN pg_extension e ON e.oid = d.refobjid JOIN pg_namespace n ON n.oid = d.objid
		WHERE d.classid = 'pg_namespace'::regclass AND d.refclassid = 'pg_extension'::regclass
		  AND d.deptype = 'e' AND e.extname = '$ext' ORDER BY 1")
	"$TS_BIN/pg_dump" --data-only "${schemas[@]}" --no-comments -d "$db" |
		grep -vE '^(--|SET |SELECT pg_catalog.set_config|\\(un)?restrict |$)' || true
}
# describe EXT DB: what compare_fresh compares, into $TS_DIR/objects.DB and config.DB
describe() {
	ts_psql -d "$2" -v ext="$1" -f "$here/objects.sql" >"$TS_DIR/objects.$2"
	dump_config "$1" "$2" >"$TS_DIR/config.$2"
}
members() {
	ts_psql -d "$2" -Atc "SELECT count(*) FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
		WHERE d.refclassid = 'pg_extension'::regclass AND e.extname = '$1' AND d.deptype = 'e'"
}

ts_psql -c "CREATE DATABASE upg_current" -c "CREATE DATABASE upg_proxy_current" >/dev/null
ts_psql -d upg_current -c "CREATE EXTENSION ots" >/dev/null
ts_psql -d upg_proxy_current -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots_proxy CASCADE" >/dev/null
describe ots upg_current
describe ots_proxy upg_proxy_current

# plan_update EXT DB FROM: sets steps, the versions ALTER EXTENSION EXT
# UPDATE TO goes through from FROM to the current version in DB, one
# upgrade script each, and how, the path for the result line; a missing
# path is a problem
plan_update() {
	local ext="$1" db="$2" from="$3" to path
	to="$(control_version "$ext")"
	steps=()
	if [ "$from" = "$to" ]; then
		how="same version, no upgrade script to run"
		return
	fi
	path="$(ts_psql -d "$db" -Atc "SELECT path FROM pg_extension_update_paths('$ext')
		WHERE source = '$from' AND target = '$to'")"
	if [ -z "$path" ]; then
		problems+=("no upgrade path from $from to $to: add sql/upgrade/$ext--$from--$to.sql")
		how="path none"
	else
		IFS=' ' read -r -a steps <<<"$(echo "$path" | sed 's/--/ /g' | cut -d' ' -f2-)"
		how="path $path"
	fi
}

# compare_fresh EXT DB FROM FRESH: DB (EXT updated from FROM) against FRESH
# (a fresh install of the current version): a problem per difference, and
# changed=1
compare_fresh() {
	local ext="$1" db="$2" from="$3" fresh="$4" to kind
	to="$(control_version "$ext")"
	describe "$ext" "$db"
	for kind in objects config; do
		if ! diff -u --label "$from updated" --label "$to installed" "$TS_DIR/$kind.$db" "$TS_DIR/$kind.$fresh" \
			>"$TS_DIR/$kind.diff"; then
			changed=1
			case "$kind" in
				objects) problems+=("extension objects differ (- updated from $from, + installed fresh):
$(head -n 80 "$TS_DIR/$kind.diff")") ;;
				config) problems+=("configuration rows differ:
$(head -n 40 "$TS_DIR/$kind.diff")") ;;
			esac
		fi
	done
}

# report NAME EXT FROM OK-TEXT: the result line of one release, with its
# problems and, when its objects differ from a fresh install's, what to do
report() {
	local name="$1" ext="$2" from="$3" ok="$4" to
	to="$(control_version "$ext")"
	if [ "${#problems[@]}" -eq 0 ]; then
		echo "test $name ... ok ($how; $ok)"
		return
	fi
	echo "test $name ... FAILED ($how)"
	printf '  %s\n' "${problems[@]}"
	if [ "$changed" = 1 ] && [ "$from" = "$to" ]; then
		echo "  The install script of $ext $to changed since it was frozen in test/upgrade/$ext--$from.sql."
		echo "  If $to was released: bump default_version and put the change in"
		echo "  sql/upgrade/$ext--$to--<new>.sql (docs/development.md, Releases). If it was not released yet:"
		echo "  tools/freeze_release $to"
	elif [ "$changed" = 1 ]; then
		echo "  A change of $to belongs in sql/upgrade/$ext--<previous>--$to.sql too (docs/development.md,"
		echo "  Releases). A fix of $from merged after $from was frozen, before it shipped, is frozen with it:"
		echo "  tools/freeze_release $from"
	fi
	status=1
}

status=0
for v in "${frozen[@]}"; do
	db="$(db_name "$v")"
	problems=()
	changed=0
	plan_update ots "$db" "$v"
	untrusted=()
	if [ -f "$here/untrusted_$v.sql" ]; then
		untrusted=("${db}_untrusted" "${db}_untrusted_columns")
	fi
	for d in "$db" "${db}_data" "${db}_taken" ${untrusted[@]+"${untrusted[@]}"}; do
		for step in ${steps[@]+"${steps[@]}"}; do
			if ! out="$(ts_psql -d "$d" -c "ALTER EXTENSION ots UPDATE TO '$step'" 2>&1)"; then
				problems+=("$d: ALTER EXTENSION ots UPDATE TO '$step' failed: $out")
				break
			fi
			# 0.3.0 leaves a relation of another role's alone where a table's chunk relation would go
			if [ "$step" = 0.3.0 ] && [ "$d" = "${db}_taken" ]; then
				want='WARNING:  ots table public.taken gets no chunk relation: a relation named public."taken$chunk" exists already'
				grep -qF "$want" <<<"$out" || problems+=("$d: the update did not warn: $want
  its warnings: $(grep '^WARNING:' <<<"$out" || true)")
			fi
			[ "$step" = 0.2.0 ] || continue
			# shellcheck disable=SC2016 # "$cells" and the like are column names
			case "$d" in
				# 0.2.0 names the rows data_before_0.1.0.sql stored with plain SQL that it would refuse
				"${db}_data") wants=('ots table public.up_bad_hash has 1 rows that ots 0.2.0 would not store'
					'ots table public.up_bad_ts has 1 rows that ots 0.2.0 would not store') ;;
				# and removes the rows of ots.tables that name no ots table as 0.1.0 made it, saying why
				"${db}_untrusted") wants=("WARNING:  ots.tables names upg_shared.shown as an ots table, but upg_shared.shown is not a view of its storage's owner: its metadata is removed"
					'WARNING:  ots.tables names upg_shared.taken as an ots table, but its storage has no column k of type text COLLATE "C" NOT NULL: its metadata is removed'
					'WARNING:  ots.tables names upg_tenant_view.planted as an ots table, but upg_tenant_view."planted$data" is not a partitioned table of its own: its metadata is removed'
					'WARNING:  could not check the rows of ots table upg_victim.mine: permission denied for table mine$p3') ;;
				"${db}_untrusted_columns") wants=('WARNING:  ots.tables names upg_tenant_columns.other as an ots table, but its storage has no column "$cells" of type ots.cells NOT NULL: its metadata is removed') ;;
				*) wants=() ;;
			esac
			for want in ${wants[@]+"${wants[@]}"}; do
				grep -qF "$want" <<<"$out" || problems+=("$d: the update did not warn: $want
  its warnings: $(grep '^WARNING:' <<<"$out" || true)")
			done
		done
	done
	got="$(ext_version "$db" ots)"
	[ "$got" = "$current" ] || problems+=("$db is at version $got after the update, not $current")

	# 3. the same objects, definitions and configuration rows as a fresh install
	compare_fresh ots "$db" "$v" upg_current

	# 4. tables and rows made by the old release still work, and ots.verify
	# (with amcheck's checks) finds nothing wrong with them after those writes
	data_after=(-f "$here/data_after.sql")
	if [ -f "$here/data_after_$v.sql" ]; then
		data_after+=(-f "$here/data_after_$v.sql")
	fi
	if [ ! -f "$here/data_after_$v.out" ]; then
		problems+=("no expected output test/upgrade/data_after_$v.out")
	elif ! out="$(ts_psql -d "${db}_data" -At "${data_after[@]}" 2>&1)"; then
		problems+=("data written by $v: $out")
	elif [ "$out" != "$(cat "$here/data_after_$v.out")" ]; then
		problems+=("data written by $v reads differently after the update:
$(diff -u --label expected --label got "$here/data_after_$v.out" <(echo "$out") || true)")
	elif ! out="$(ts_psql -d "${db}_data" -At -c "CREATE EXTENSION amcheck" -c "$verify_sql" 2>&1)" ||
		[ -n "$out" ]; then
		problems+=("ots.verify after the writes: $out")
	fi
	# 4a. the update gave every table and index its chunk relation (and its TTL index)
	if ! out="$(ts_psql -d "${db}_data" -At -c "$chunks_sql" 2>&1)" || [ -n "$out" ]; then
		problems+=("chunk relations after the update: $out")
	fi
	chunked="$(ts_psql -d "${db}_data" -At -c "$chunk_count_sql" 2>&1 || true)"

	# 4a'. the relation another role made under the chunk relation's name is its own still,
	# the table works on without a chunk relation, and ots.verify says what is missing
	if ! out="$(ts_psql -d "${db}_taken" -At -c "SELECT pg_get_userbyid(c.relowner) || ' ' || (SELECT string_agg(a.attname, ',')
			FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0) FROM pg_class c WHERE c.oid = '\"taken\$chunk\"'::regclass" \
		-c "SELECT (ots.put_row('taken', '{\"k\": \"a\"}', '{\"v\": 1}')).consumed IS NOT NULL" \
		-c "SELECT problem FROM ots.verify('taken', amcheck => false)" 2>&1)" ||
		[ "$out" != $'upg_taker x\nt\nits chunk relation "taken$chunk" is another role\'s' ]; then
		problems+=("a table whose chunk relation's name another role took before the update: $out")
	fi

	# 4b. a dump of the updated database restores: every table known again, with its rows
	# (the storage's comment carries each table's definition since the update; the
	# constraints 0.1.0 let in, which the update keeps, come back as they were)
	ts_psql -c "CREATE DATABASE ${db}_redumped" >/dev/null
	if ! out="$("$TS_BIN/pg_dump" -Fc -d "${db}_data" -f "$TS_DIR/redump.$v" 2>&1 &&
		"$TS_BIN/pg_restore" -d "${db}_redumped" "$TS_DIR/redump.$v" 2>&1)"; then
		problems+=("a dump of ${db}_data does not restore: $(head -c 2000 <<<"$out")")
	else
		before="$(ts_psql -d "${db}_data" -Atc "$census" 2>&1 || true)"
		after="$(ts_psql -d "${db}_redumped" -Atc "$census" 2>&1 || true)"
		if [ -z "$before" ] || [[ "$before" == *ERROR* ]] || [ "$after" != "$before" ]; then
			problems+=("a dump of ${db}_data restores other tables: $after (the source: $before)")
		elif ! out="$(ts_psql -d "${db}_redumped" -At -c "$chunks_sql" 2>&1)" || [ -n "$out" ]; then
			problems+=("chunk relations after a dump of ${db}_data was restored: $out")
		fi
	fi

	# 5. a dump of the old release restores into the current one and its view takes SQL
	# writes: a release that kept leaves on heap (0.1.0) needs them moved onto the ots
	# access method as the update moves them (README, Upgrading); a later one's come back
	# on it with nothing to run
	ts_psql -c "CREATE DATABASE ${db}_restored" >/dev/null
	leaves="SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = '\"dumped\$data\"'::regclass"
	if ! out="$("$TS_BIN/pg_restore" -d "${db}_restored" "$TS_DIR/dump.$v" 2>&1)"; then
		problems+=("a dump of $v does not restore into $current: $out")
	elif [ "${dumped_heap[$v]}" = t ] && ! out="$(ts_psql -d "${db}_restored" -At -c "DO \$\$ DECLARE leaf regclass; BEGIN
			FOR leaf IN $leaves LOOP
				EXECUTE format('ALTER TABLE %s SET ACCESS METHOD ots', leaf);
			END LOOP; END \$\$" 2>&1)"; then
		problems+=("the leaves of a table restored from a dump of $v do not move onto the ots access method: $out")
	elif ! out="$(ts_psql -d "${db}_restored" -At \
		-c "SELECT string_agg(DISTINCT a.amname, ',') FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid IN ($leaves)" \
		-c "INSERT INTO dumped (k, attributes) VALUES ('b', '{\"v\": 2}')" \
		-c "SELECT k || ' ' || attributes::text FROM dumped ORDER BY k" 2>&1)" ||
		[ "$out" != $'ots\na {"v": 1}\nb {"v": 2}' ]; then
		problems+=("a table restored from a dump of $v (leaves on heap there: ${dumped_heap[$v]}) is not on the ots access method or does not take writes through its view: $out")
	fi
	# and where the release kept leaves on the ots access method, its dump of
	# data_before*.sql's tables restores as it is: the same tables and rows, its
	# indexes and streams whole (ots.verify)
	restored="a dump of $v restores and its view takes writes"
	if [ "${dumped_heap[$v]}" = f ]; then
		ts_psql -c "CREATE DATABASE ${db}_data_restored" >/dev/null
		ts_psql -d "${db}_data_restored" -c "CREATE EXTENSION amcheck" >/dev/null
		if ! out="$("$TS_BIN/pg_restore" -d "${db}_data_restored" "$TS_DIR/dump_data.$v" 2>&1)"; then
			problems+=("a dump of ${db}_data made by $v does not restore into $current: $(head -c 2000 <<<"$out")")
		elif after="$(ts_psql -d "${db}_data_restored" -Atc "$census" 2>&1 || true)" &&
			{ [ -z "$after" ] || [ "$after" != "${census_data[$v]}" ]; }; then
			problems+=("a dump of ${db}_data made by $v restores other tables: $after (the source: ${census_data[$v]})")
		elif ! out="$(ts_psql -d "${db}_data_restored" -At -c "$verify_sql" 2>&1)" || [ -n "$out" ]; then
			problems+=("ots.verify after a dump of ${db}_data made by $v was restored: $out")
		elif ! out="$(ts_psql -d "${db}_data_restored" -At -c "$chunks_sql" 2>&1)" || [ -n "$out" ]; then
			problems+=("chunk relations after a dump of ${db}_data made by $v was restored (the restore makes them): $out")
		else
			restored="$restored; its dump of tables with indexes and a stream restores them whole"
		fi
	fi

	# 6. rows planted in ots.tables: removed, none of their code run as the superuser updating,
	# nothing of another role changed, the genuine tables updated as every table is; a
	# release that closed ots.tables to other roles refused their write
	if [ "${#untrusted[@]}" -gt 0 ]; then
		catalog="rows other roles planted in ots.tables removed, their code run as its owners only"
		if ! out="$(ts_psql -At -v db="${untrusted[0]}" -v db_columns="${untrusted[1]}" \
			-f "$here/untrusted_after.sql" 2>&1)"; then
			problems+=("after rows were planted in ots.tables of $v: $out")
		elif [ "$out" != "$(cat "$here/untrusted_after.out")" ]; then
			problems+=("after rows were planted in ots.tables of $v, the update did what it must not:
$(diff -u --label expected --label got "$here/untrusted_after.out" <(echo "$out") || true)")
		fi
	elif [[ " ${catalog_writable[$v]} " == *" ots.tables "* ]]; then
		catalog="ots.tables writable by other roles"
		problems+=("$v lets a role without grants write ots.tables: add test/upgrade/untrusted_$v.sql (docs/development.md, What an upgrade script may read)")
	elif ! grep -q "ERROR:  permission denied for table tables" <<<"${catalog_refused[$v]}"; then
		catalog="ots.tables not closed"
		problems+=("a role without grants writing ots.tables of $v was not refused for want of the privilege: ${catalog_refused[$v]}")
	else
		catalog="ots.tables closed to other roles (tables they may write: ${catalog_writable[$v]:-none})"
	fi

	report "upgrade_from_$v" ots "$v" "$(members ots upg_current) extension objects identical to a fresh $current install; data written by $v reads and updates; $chunked, each with its chunk relation; $restored; $catalog"
done

for v in ${frozen_proxy[@]+"${frozen_proxy[@]}"}; do
	db="$(proxy_db_name "$v")"
	problems=()
	changed=0
	plan_update ots_proxy "$db" "$v"
	for step in ${steps[@]+"${steps[@]}"}; do
		if ! out="$(ts_psql -d "$db" -c "ALTER EXTENSION ots_proxy UPDATE TO '$step'" 2>&1)"; then
			problems+=("$db: ALTER EXTENSION ots_proxy UPDATE TO '$step' failed: $out")
			break
		fi
	done
	got="$(ext_version "$db" ots_proxy)"
	[ "$got" = "$current_proxy" ] || problems+=("$db is at version $got after the update, not $current_proxy")
	compare_fresh ots_proxy "$db" "$v" upg_proxy_current
	report "upgrade_proxy_from_$v" ots_proxy "$v" "$(members ots_proxy upg_proxy_current) extension objects identical to a fresh ots_proxy $current_proxy install, with their privileges, comments and rows"
done
exit "$status"
