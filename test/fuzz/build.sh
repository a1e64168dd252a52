#!/bin/sh
# test/fuzz/build.sh: build the fuzz harnesses (see test/fuzz/README.md).
#
#   test/fuzz/build.sh [standalone|fuzzer|all]      (default: all)
#
# standalone: cells_fuzz.c and pb_fuzz.c with their own main
#             (-DCELLS_STANDALONE, -DPB_STANDALONE), ASan+UBSan; built with
#             $CC (default clang, else gcc).
# fuzzer:     their libFuzzer targets (clang -fsanitize=fuzzer), ASan+UBSan.
# pb_fuzz.c tests otsd's decoders (src/format/plainbuffer_decode.c read into
# jsonb by gateway/plainbuffer_read.c, filter.c) and
# needs protoc-c, libjansson-dev and libprotobuf-c-dev.
# Binaries go to $OUT (default test/fuzz/build/).  Run from anywhere.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
OUT=${OUT:-$here/build}
PG_CONFIG=${PG_CONFIG:-$(command -v pg_config || echo /usr/lib/postgresql/15/bin/pg_config)}
what=${1:-all}

if [ -z "${CC:-}" ]; then
	if command -v clang >/dev/null 2>&1; then CC=clang; else CC=gcc; fi
fi

CFLAGS="-std=gnu11 -g -O1 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-DUSE_ASSERT_CHECKING -D_GNU_SOURCE \
	-Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers -Wno-unknown-warning-option -Wno-ignored-attributes \
	-I$root/src -I$here -I$($PG_CONFIG --includedir-server)"
SRCS="$root/src/format/cells.c $root/src/format/cells_head.c $root/src/format/cells_cut.c $root/src/format/value.c $here/pg_stubs.c $here/cells_fuzz.c"

# otsd's decoders: plain C, no server headers; the protobuf code generated afresh
mkdir -p "$OUT/gen"
cp "$root/gateway/tablestore.proto" "$OUT/gen/"
(cd "$OUT/gen" && protoc-c --c_out=. tablestore.proto)
PB_CFLAGS="-std=gnu11 -g -O1 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers \
	-I$OUT/gen -I$root/gateway -I$root/src -I$($PG_CONFIG --includedir)"
PB_SRCS="$root/gateway/plainbuffer.c $root/gateway/plainbuffer_read.c $root/src/format/plainbuffer_decode.c \
	$root/gateway/plainbuffer_write.c $root/gateway/filter.c $root/gateway/buf.c \
	$OUT/gen/tablestore.pb-c.c $here/pb_fuzz.c"
PB_LIBS="-ljansson -lprotobuf-c -lm"

mkdir -p "$OUT"
case $what in
	standalone|all)
		$CC $CFLAGS -DCELLS_STANDALONE $SRCS -lm -o "$OUT/cells_standalone"
		echo "built $OUT/cells_standalone"
		$CC $PB_CFLAGS -DPB_STANDALONE $PB_SRCS $PB_LIBS -o "$OUT/pb_standalone"
		echo "built $OUT/pb_standalone" ;;
esac
case $what in
	fuzzer|all)
		fcc=${FUZZ_CC:-clang}
		if ! command -v "$fcc" >/dev/null 2>&1; then
			echo "no clang: skipping the libFuzzer build" >&2
			exit 0
		fi
		$fcc $CFLAGS -fsanitize=fuzzer $SRCS -lm -o "$OUT/cells_fuzzer"
		echo "built $OUT/cells_fuzzer"
		$fcc $PB_CFLAGS -fsanitize=fuzzer $PB_SRCS $PB_LIBS -o "$OUT/pb_fuzzer"
		echo "built $OUT/pb_fuzzer" ;;
esac
