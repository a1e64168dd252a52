# shellcheck shell=bash
# tools/lib.sh: functions shared by tools/test, tools/demo, the test/ scripts
# (through test/tempserver.sh) and bench/loop.sh, profile.sh and callgrind.sh.
# Source it from a bash script that runs with `set -euo pipefail`.
# Debian 12 + PostgreSQL 15 from Debian's packages; works as root or,
# for a normal user, with sudo for the steps that need root.

# OTS_PG_CONFIG may name the pg_config of a private copy of the PostgreSQL
# installation (PostgreSQL's binaries are relocatable), so that two
# checkouts can build, install and test side by side without replacing
# each other's ots.so; see docs/development.md.
OTS_PG_CONFIG="${OTS_PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"
# shellcheck disable=SC2034 # used by the scripts that source this file
OTS_PG_BIN="$(dirname "$OTS_PG_CONFIG")"
OTS_PG_USER="postgres"
OTS_PACKAGES=(
	make gcc libc6-dev
	postgresql-15 postgresql-server-dev-15 postgresql-15-cron postgresql-15-pgtap postgresql-15-plproxy
	libtap-parser-sourcehandler-pgtap-perl
	# test/fuzz: clang with libFuzzer and the sanitizer runtimes
	clang libclang-rt-14-dev
	# gateway/ (otsd, the Tablestore protocol gateway) and test/fuzz/pb_fuzz.c, which builds its decoders
	protobuf-c-compiler libprotobuf-c-dev libmicrohttpd-dev libjansson-dev
	libssl-dev libpq-dev pkg-config zlib1g-dev
	# test/gateway: its protocol test
	python3
)
# test/gateway drives otsd with the official Tablestore Node.js SDK: Debian's
# Node.js 18 and npm, unless a Node.js and npm are already installed
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	OTS_PACKAGES+=(nodejs npm)
fi

# The checkout this library belongs to (the parent of tools/).
OTS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"

ots_log() { printf '==> %s\n' "$*" >&2; }
ots_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

ots_is_root() { [ "$(id -u)" -eq 0 ]; }

# ots_as_root CMD...: runs CMD as root (directly, or through sudo).
ots_as_root() {
	if ots_is_root; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		ots_die "'$*' needs root: run this script as root or install sudo"
	fi
}

# ots_as_pg_user CMD...: runs CMD as the postgres system user when invoked as
# root (initdb and postgres refuse root), else as the current user. As root
# the working directory becomes / because the caller's may be unreadable
# (e.g. /root) and initdb fails there; pass absolute paths or use
# ots_as_pg_user_in.
ots_as_pg_user() {
	if ots_is_root; then
		(cd / && runuser -u "$OTS_PG_USER" -- "$@")
	else
		"$@"
	fi
}

# ots_as_pg_user_in DIR CMD...: like ots_as_pg_user, in directory DIR.
ots_as_pg_user_in() {
	local dir="$1"
	shift
	ots_as_pg_user env -C "$dir" "$@"
}

# ots_pg_user_name: the OS user servers run as (and their superuser's name).
ots_pg_user_name() {
	if ots_is_root; then echo "$OTS_PG_USER"; else id -un; fi
}

# ots_pg_user_can_enter DIR: true when the server user can traverse DIR.
ots_pg_user_can_enter() {
	ots_as_pg_user test -x "$1" 2>/dev/null
}

# ots_checkout_owner: the owner of the checkout, so that a `sudo tools/...`
# run leaves no root-owned build products in a user's tree.
ots_checkout_owner() {
	stat -c %U "$OTS_ROOT"
}

# ots_as_checkout_owner CMD...: runs CMD as the checkout's owner when we are
# root and the checkout belongs to someone else; otherwise as ourselves.
ots_as_checkout_owner() {
	local owner
	owner="$(ots_checkout_owner)"
	if ots_is_root && [ "$owner" != root ] && [ "$owner" != UNKNOWN ]; then
		runuser -u "$owner" -- "$@"
	else
		"$@"
	fi
}

# ots_give_to_checkout_owner PATH...: chowns files that root copied into the
# checkout back to its owner.
ots_give_to_checkout_owner() {
	local owner
	owner="$(ots_checkout_owner)"
	if ots_is_root && [ "$owner" != root ] && [ "$owner" != UNKNOWN ]; then
		chown -R "$owner:" "$@"
	fi
}

# ots_missing_packages: prints the packages of OTS_PACKAGES not installed.
ots_missing_packages() {
	local pkg status
	for pkg in "${OTS_PACKAGES[@]}"; do
		status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
		if [ "$status" != "install ok installed" ]; then
			echo "$pkg"
		fi
	done
}

# ots_install_deps: installs the Debian packages the build, the tests and the
# demo need. Idempotent: apt is only called when something is missing.
ots_install_deps() {
	local missing
	missing="$(ots_missing_packages)"
	if [ -z "$missing" ]; then
		ots_log "Debian packages: all present"
		return 0
	fi
	# shellcheck disable=SC2086 # one package per word
	ots_log "installing Debian packages:" $missing
	ots_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
	# shellcheck disable=SC2086 # one package per word
	ots_as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $missing
	missing="$(ots_missing_packages)"
	[ -z "$missing" ] || ots_die "packages still missing after apt-get: $missing"
}

# ots_build_install: builds the extension in the checkout and installs it into
# PostgreSQL 15. CI=1 is passed to make when $CI is set (turns on -Werror).
ots_build_install() {
	local -a args=(PG_CONFIG="$OTS_PG_CONFIG")
	if [ -n "${CI:-}" ]; then
		args+=(CI=1)
	fi
	[ -x "$OTS_PG_CONFIG" ] || ots_die "$OTS_PG_CONFIG not found (is postgresql-server-dev-15 installed?)"
	ots_log "building ots ($(ots_checkout_owner) in $OTS_ROOT)"
	ots_as_checkout_owner make -C "$OTS_ROOT" -j2 "${args[@]}"
	ots_log "installing ots into $("$OTS_PG_CONFIG" --pkglibdir)"
	ots_as_root make -C "$OTS_ROOT" "${args[@]}" install
}

# ots_copy_source DEST: copies the checkout's source files (git-tracked plus
# untracked-but-not-ignored; without git, everything except build products
# and test output) into the existing directory DEST.
ots_copy_source() {
	local dest="$1" list
	list="$(mktemp)"
	if command -v git >/dev/null 2>&1 &&
		git -c safe.directory='*' -C "$OTS_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		# files deleted from the work tree but still in the index are skipped
		git -c safe.directory='*' -C "$OTS_ROOT" ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do
				if [ -e "$OTS_ROOT/$f" ] || [ -L "$OTS_ROOT/$f" ]; then
					printf '%s\0' "$f"
				fi
			done >"$list"
		tar -C "$OTS_ROOT" --null -T "$list" -cf - | tar -C "$dest" --no-same-owner -xf -
	else
		tar -C "$OTS_ROOT" \
			--exclude=./.git --exclude=./.demo --exclude=./tmp_check --exclude=./tmp_check_iso \
			--exclude=./results --exclude=./output_iso --exclude=./log \
			--exclude=./regression.diffs --exclude=./regression.out \
			--exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude='./ots--[0-9]*.sql' \
			-cf - . | tar -C "$dest" --no-same-owner -xf -
	fi
	rm -f "$list"
}

# ots_psql_hint: the command prefix a person types to run a client as the
# server's superuser (root needs to switch to postgres).
ots_psql_hint() {
	if ots_is_root; then
		if command -v sudo >/dev/null 2>&1; then
			echo "sudo -u $OTS_PG_USER psql"
		else
			echo "runuser -u $OTS_PG_USER -- psql"
		fi
	else
		echo "psql"
	fi
}
