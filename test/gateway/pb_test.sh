#!/usr/bin/env bash
# test/gateway/pb_test.sh: unit tests of otsd's PlainBuffer and filter codecs.
#
#   test/gateway/pb_test.sh        (any user; needs cc, protoc-c, node)
#
# Byte strings come from the official Node SDK's own encoders at test time
# (sdk_vectors.js): the package is taken from $TABLESTORE_SDK, else
# /tmp/tsnode/node_modules/tablestore, else installed with npm into a
# scratch directory.  Nothing of the SDK is kept in the repository.
# Builds pb_test.c with gateway/plainbuffer*.c, src/format/plainbuffer_decode.c, filter.c, buf.c and the code
# protoc-c generates from gateway/tablestore.proto (ASan + UBSan), runs it,
# then lets the SDK's decoder read what our encoders wrote (sdk_decode.js).
# Prints "test NAME ... ok|FAILED" lines; exits 1 on any failure.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$here/../.." && pwd -P)"
scratch="$(mktemp -d /tmp/ots-pbtest.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
CC="${CC:-cc}"
PG_CONFIG="${PG_CONFIG:-$(command -v pg_config || echo /usr/lib/postgresql/15/bin/pg_config)}"
SDK_VERSION=5.6.5

sdk="${TABLESTORE_SDK:-/tmp/tsnode/node_modules/tablestore}"
if [ ! -f "$sdk/package.json" ]; then
	if ! npm install --silent --no-save --no-audit --no-fund --prefix "$scratch/npm" \
		"tablestore@$SDK_VERSION" >"$scratch/npm.log" 2>&1; then
		cat "$scratch/npm.log"
		echo "test pb_sdk_vectors ... FAILED (cannot install tablestore@$SDK_VERSION from npm)"
		exit 1
	fi
	sdk="$scratch/npm/node_modules/tablestore"
fi

if ! node "$here/sdk_vectors.js" "$sdk" >"$scratch/vectors" 2>"$scratch/vectors.err"; then
	cat "$scratch/vectors.err"
	echo "test pb_sdk_vectors ... FAILED (the SDK could not encode them)"
	exit 1
fi

cp "$root/gateway/tablestore.proto" "$scratch/"
if ! (cd "$scratch" && protoc-c --c_out=. tablestore.proto) >"$scratch/build.log" 2>&1 ||
	! $CC -std=gnu11 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=all -Wall -Wextra -Wno-unused-parameter \
		-Wno-missing-field-initializers -Wno-sign-compare \
		-I"$scratch" -I"$root/gateway" -I"$root/src" -I"$($PG_CONFIG --includedir)" \
		"$here/pb_test.c" "$root/gateway/plainbuffer.c" "$root/gateway/plainbuffer_read.c" \
		"$root/gateway/plainbuffer_write.c" "$root/src/format/plainbuffer_decode.c" "$root/gateway/filter.c" \
		"$root/gateway/buf.c" "$scratch/tablestore.pb-c.c" \
		-ljansson -lprotobuf-c -lm -o "$scratch/pb_test" >>"$scratch/build.log" 2>&1; then
	cat "$scratch/build.log"
	echo "test pb_build ... FAILED"
	exit 1
fi

status=0
"$scratch/pb_test" "$scratch/vectors" "$scratch/emitted" || status=1
if [ -f "$scratch/emitted" ]; then
	node "$here/sdk_decode.js" "$sdk" "$scratch/emitted" || status=1
else
	echo "test sdk_decodes ... FAILED (pb_test wrote nothing to decode)"
	status=1
fi
exit "$status"
