#!/usr/bin/env bash
# test/upgrade/run.sh: an ots installed from an earlier release and updated
# with ALTER EXTENSION ots UPDATE equals a fresh install of the current one.
#
#   test/upgrade/run.sh       (root: the server runs as postgres; or as a user
#                              who can run initdb; the current ots.so installed)
#
# For each frozen release script test/upgrade/ots--<V>.sql:
#   1. a server whose extension directory holds only that script (and
#      ots.control with default_version = V) creates ots in two databases,
#      upg_<V> and upg_<V>_data; the second gets a few tables and rows;
#   2. the same server, restarted with the current release's files (the script
#      generated from src/sql, sql/upgrade/ots--A--B.sql, ots.control), runs
#      ALTER EXTENSION ots UPDATE TO each version on the path from V to the
#      current default_version, one upgrade script at a time, in both
#      (nothing to run when V is the current version), and creates ots afresh
#      in upg_current;
#   3. compares upg_<V> with upg_current: every extension member with its
#      definition (objects.sql) and the rows of ots's configuration tables
#      (pg_dump --data-only --schema=ots); any difference fails;
#   4. reads and writes upg_<V>_data's tables through the updated extension;
#      and where the release let any role write ots.tables (untrusted_<V>.sql),
#      unprivileged roles plant rows in it in upg_<V>_untrusted and
#      upg_<V>_untrusted_columns before the update, which must name and
#      remove them, run none of their code but as their owners and change
#      nothing of another role (untrusted_after.sql).
# The server runs from a private copy of the postgres binary in
# /tmp/ots-upgrade.*, so PostgreSQL takes extension files from a private
# share directory (PostgreSQL finds it relative to its binary) and the
# system's extension directory is never touched; libraries (ots.so included)
# come from the installed pkglibdir. Port $UPGRADE_PORT (default 5495), unix
# socket only. Prints "test upgrade_from_<V> ... ok|FAILED" lines.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$here/../.." && pwd -P)"
# shellcheck source=tools/lib.sh
. "$root/tools/lib.sh"
# shellcheck source=test/tempserver.sh
. "$root/test/tempserver.sh"
export LC_ALL=C.UTF-8 LANG=C.UTF-8

control_version() { sed -n "s/^default_version = '\(.*\)'/\1/p" "$1"; }
current="$(control_version "$root/ots.control")"
[ -n "$current" ] || ots_die "no default_version in $root/ots.control"
mapfile -t frozen < <(find "$here" -maxdepth 1 -name 'ots--*.sql' ! -name 'ots--*--*.sql' -printf '%f\n' |
	sed 's/^ots--\(.*\)\.sql$/\1/' | sort -V)
[ "${#frozen[@]}" -gt 0 ] || ots_die "no frozen release script test/upgrade/ots--<version>.sql"

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
# system's without any ots file, plus FILEs and a probe extension that shows
# the server reads this directory
set_extension_files() {
	local f
	find "$priv_share/extension" -mindepth 1 -delete
	for f in "$pg_sharedir"/extension/*; do
		case "$(basename "$f")" in
			ots.control | ots--*) ;;
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

# the current release's files: its full script as `make` builds it, the
# upgrade scripts, ots.control
make -s -C "$root" PG_CONFIG="$OTS_PG_CONFIG" "ots--$current.sql" >/dev/null
cp "$root/ots--$current.sql" "$TS_DIR/ots--$current.sql"
shopt -s nullglob
upgrade_scripts=("$root"/sql/upgrade/ots--*--*.sql)
shopt -u nullglob

echo "upgrade test: from ${frozen[*]} to $current (upgrade scripts: $(
	[ "${#upgrade_scripts[@]}" -gt 0 ] && basename -a "${upgrade_scripts[@]}" | paste -sd ' ' - || echo none))"

# 1. each frozen release, installed as it shipped
for v in "${frozen[@]}"; do
	sed "s/^default_version = .*/default_version = '$v'/" "$root/ots.control" >"$TS_DIR/ots.control"
	set_extension_files "$TS_DIR/ots.control" "$here/ots--$v.sql"
	start_private
	db="$(db_name "$v")"
	ts_psql -c "CREATE DATABASE $db" -c "CREATE DATABASE ${db}_data" >/dev/null
	ts_psql -d "$db" -c "CREATE EXTENSION ots" >/dev/null
	ts_psql -d "${db}_data" -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots" -f "$here/data_before.sql" >/dev/null
	got="$(ts_psql -d "$db" -Atc "SELECT extversion FROM pg_extension WHERE extname = 'ots'")"
	[ "$got" = "$v" ] || ots_die "installing the frozen $v gave version $got"
	# a dump of a table made by the old release, restored into the current one below
	ts_psql -c "CREATE DATABASE ${db}_dump" >/dev/null
	ts_psql -d "${db}_dump" -c "SET client_min_messages = warning" -c "CREATE EXTENSION ots" \
		-c "SELECT ots.create_table('dumped', 'k string')" \
		-c "SELECT ots.put_row('dumped', '{\"k\": \"a\"}', '{\"v\": 1}')" >/dev/null
	"$TS_BIN/pg_dump" -Fc -d "${db}_dump" -f "$TS_DIR/dump.$v"
	# rows of ots.tables planted by roles that are not superusers, where the release let them
	if [ -f "$here/untrusted_$v.sql" ]; then
		for d in "${db}_untrusted" "${db}_untrusted_columns"; do
			ts_psql -c "CREATE DATABASE $d" >/dev/null
			ts_psql -d "$d" -c "CREATE EXTENSION ots" >/dev/null
		done
		PGOPTIONS="-c client_min_messages=warning" ts_psql -v db="${db}_untrusted" \
			-v db_columns="${db}_untrusted_columns" -f "$here/untrusted_$v.sql" >/dev/null
	fi
	ts_stop
done

# 2. the current release: update the old installs, install afresh
set_extension_files "$root/ots.control" "$TS_DIR/ots--$current.sql" ${upgrade_scripts[@]+"${upgrade_scripts[@]}"}
start_private
ts_psql -c "CREATE DATABASE upg_current" >/dev/null
ts_psql -d upg_current -c "CREATE EXTENSION ots" >/dev/null
ts_psql -d upg_current -f "$here/objects.sql" >"$TS_DIR/objects.current"
ts_psql -d upg_current -Atc "SELECT count(*) FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
	WHERE d.refclassid = 'pg_extension'::regclass AND e.extname = 'ots' AND d.deptype = 'e'" >"$TS_DIR/members"
# configuration rows the install script writes (pg_dump keeps these tables' data)
dump_config() {
	"$TS_BIN/pg_dump" --data-only --schema=ots --no-comments -d "$1" |
		grep -vE '^(--|SET |SELECT pg_catalog.set_config|\\(un)?restrict |$)' || true
}
dump_config upg_current >"$TS_DIR/config.current"

status=0
for v in "${frozen[@]}"; do
	db="$(db_name "$v")"
	problems=()
	changed=0
	if [ "$v" = "$current" ]; then
		steps=()
		how="same version, no upgrade script to run"
	else
		path="$(ts_psql -d "$db" -Atc "SELECT path FROM pg_extension_update_paths('ots')
			WHERE source = '$v' AND target = '$current'")"
		if [ -z "$path" ]; then
			problems+=("no upgrade path from $v to $current: add sql/upgrade/ots--$v--$current.sql")
			steps=()
			path="none"
		else
			IFS=' ' read -r -a steps <<<"$(echo "$path" | sed 's/--/ /g' | cut -d' ' -f2-)"
		fi
		how="path $path"
	fi
	untrusted=()
	if [ -f "$here/untrusted_$v.sql" ]; then
		untrusted=("${db}_untrusted" "${db}_untrusted_columns")
	fi
	for d in "$db" "${db}_data" ${untrusted[@]+"${untrusted[@]}"}; do
		for step in ${steps[@]+"${steps[@]}"}; do
			if ! out="$(ts_psql -d "$d" -c "ALTER EXTENSION ots UPDATE TO '$step'" 2>&1)"; then
				problems+=("$d: ALTER EXTENSION ots UPDATE TO '$step' failed: $out")
				break
			fi
			[ "$step" = 0.2.0 ] || continue
			# shellcheck disable=SC2016 # "$cells" and the like are column names
			case "$d" in
				# 0.2.0 names the rows data_before.sql stored with plain SQL that it would refuse
				"${db}_data") wants=('ots table public.up_hash has 1 rows that ots 0.2.0 would not store'
					'ots table public.up_orders has 1 rows that ots 0.2.0 would not store') ;;
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
	got="$(ts_psql -d "$db" -Atc "SELECT extversion FROM pg_extension WHERE extname = 'ots'")"
	[ "$got" = "$current" ] || problems+=("$db is at version $got after the update, not $current")

	# 3. the same objects, definitions and configuration rows as a fresh install
	ts_psql -d "$db" -f "$here/objects.sql" >"$TS_DIR/objects.$v"
	if ! diff -u --label "$v updated" --label "$current installed" "$TS_DIR/objects.$v" "$TS_DIR/objects.current" \
		>"$TS_DIR/objects.diff"; then
		changed=1
		problems+=("extension objects differ (- updated from $v, + installed fresh):
$(head -n 80 "$TS_DIR/objects.diff")")
	fi
	dump_config "$db" >"$TS_DIR/config.$v"
	if ! diff -u --label "$v updated" --label "$current installed" "$TS_DIR/config.$v" "$TS_DIR/config.current" \
		>"$TS_DIR/config.diff"; then
		changed=1
		problems+=("configuration rows differ:
$(head -n 40 "$TS_DIR/config.diff")")
	fi

	# 4. tables and rows made by the old release still work
	if ! out="$(ts_psql -d "${db}_data" -At -f "$here/data_after.sql" 2>&1)"; then
		problems+=("data written by $v: $out")
	elif [ "$out" != "$(cat "$here/data_after.out")" ]; then
		problems+=("data written by $v reads differently after the update:
$(diff -u --label expected --label got "$here/data_after.out" <(echo "$out") || true)")
	fi

	# 4b. a dump of the updated database restores: every table known again, with its rows
	# (the storage's comment carries each table's definition since the update; the
	# constraints 0.1.0 let in, which the update keeps, come back as they were)
	ts_psql -c "CREATE DATABASE ${db}_redumped" >/dev/null
	census="SELECT string_agg(format('%s %s %s', table_name, ots.describe_table(table_name) -> 'table_options',
		(xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I', table_name), false, true, '')))[1]),
		', ' ORDER BY table_name) FROM ots.tables"
	if ! out="$("$TS_BIN/pg_dump" -Fc -d "${db}_data" -f "$TS_DIR/redump.$v" 2>&1 &&
		"$TS_BIN/pg_restore" -d "${db}_redumped" "$TS_DIR/redump.$v" 2>&1)"; then
		problems+=("a dump of ${db}_data does not restore: $(head -c 2000 <<<"$out")")
	else
		before="$(ts_psql -d "${db}_data" -Atc "$census" 2>&1 || true)"
		after="$(ts_psql -d "${db}_redumped" -Atc "$census" 2>&1 || true)"
		if [ -z "$before" ] || [[ "$before" == *ERROR* ]] || [ "$after" != "$before" ]; then
			problems+=("a dump of ${db}_data restores other tables: $after (the source: $before)")
		fi
	fi

	# 5. a dump of the old release restores into the current one: its leaves moved onto the
	# ots access method as the update moves them (README, Upgrading), its view takes SQL writes
	ts_psql -c "CREATE DATABASE ${db}_restored" >/dev/null
	if ! out="$("$TS_BIN/pg_restore" -d "${db}_restored" "$TS_DIR/dump.$v" 2>&1)"; then
		problems+=("a dump of $v does not restore into $current: $out")
	elif ! out="$(ts_psql -d "${db}_restored" -At -c "DO \$\$ DECLARE leaf regclass; BEGIN
			FOR leaf IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = '\"dumped\$data\"'::regclass LOOP
				EXECUTE format('ALTER TABLE %s SET ACCESS METHOD ots', leaf);
			END LOOP; END \$\$" \
		-c "INSERT INTO dumped (k, attributes) VALUES ('b', '{\"v\": 2}')" \
		-c "SELECT k || ' ' || attributes::text FROM dumped ORDER BY k" 2>&1)" ||
		[ "$out" != $'a {"v": 1}\nb {"v": 2}' ]; then
		problems+=("a table restored from a dump of $v does not take writes through its view: $out")
	fi

	# 6. rows planted in ots.tables: removed, none of their code run as the superuser updating,
	# nothing of another role changed, the genuine tables updated as every table is
	planted=""
	if [ "${#untrusted[@]}" -gt 0 ]; then
		planted="; rows other roles planted in ots.tables removed, their code run as its owners only"
		if ! out="$(ts_psql -At -v db="${untrusted[0]}" -v db_columns="${untrusted[1]}" \
			-f "$here/untrusted_after.sql" 2>&1)"; then
			problems+=("after rows were planted in ots.tables of $v: $out")
		elif [ "$out" != "$(cat "$here/untrusted_after.out")" ]; then
			problems+=("after rows were planted in ots.tables of $v, the update did what it must not:
$(diff -u --label expected --label got "$here/untrusted_after.out" <(echo "$out") || true)")
		fi
	fi

	if [ "${#problems[@]}" -eq 0 ]; then
		echo "test upgrade_from_$v ... ok ($how; $(cat "$TS_DIR/members") extension objects identical to a fresh $current install; data written by $v reads and updates; a dump of $v restores and its view takes writes$planted)"
	else
		echo "test upgrade_from_$v ... FAILED ($how)"
		printf '  %s\n' "${problems[@]}"
		if [ "$v" = "$current" ] && [ "$changed" = 1 ]; then
			echo "  The install script of $current changed since it was frozen in test/upgrade/ots--$v.sql."
			echo "  If $current was released: bump default_version and put the change in"
			echo "  sql/upgrade/ots--$current--<new>.sql (docs/development.md, Releases). If it was not released yet:"
			echo "  make ots--$current.sql && cp ots--$current.sql test/upgrade/"
		fi
		status=1
	fi
done
exit "$status"
