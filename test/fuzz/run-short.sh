#!/usr/bin/env bash
# test/fuzz/run-short.sh: the bounded fuzz run of tools/test (about 65 s).
#
#   test/fuzz/run-short.sh        (any user; needs clang and libclang-rt-14-dev)
#
# Builds the harnesses of cells_fuzz.c and pb_fuzz.c (build.sh), then
#   - cells_standalone: the ~90 fixed cases and FUZZ_MODEL_ROWS (default 3000)
#     random rows checked against the model, each cut into a split row's
#     chunks (checked against the model too) and mutated, and a random split
#     row head for every tenth row, built, read back and mutated;
#   - cells_fuzzer: libFuzzer for FUZZ_SECONDS (default 30) on a scratch copy
#     of corpus/cells (the checked-in seeds stay as they are);
#   - pb_standalone: FUZZ_MODEL_ROWS random PlainBuffer rows through otsd's
#     encoder and decoder against the model, each mutated;
#   - pb_fuzzer: libFuzzer on otsd's PlainBuffer and Filter decoders for
#     FUZZ_PB_SECONDS (default 15) on a scratch copy of corpus/pb.
# Prints "test cells_model", "test fuzz_cells", "test pb_model" and
# "test fuzz_pb" ... ok|FAILED with the figures; a crash input is kept as
# $FUZZ_ARTIFACTS/crash-* (default test/fuzz/artifacts/), replay it with
# `test/fuzz/build/cells_fuzzer <file>` (or pb_fuzzer). FUZZ_SEED repeats a run.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
seconds="${FUZZ_SECONDS:-30}"
pb_seconds="${FUZZ_PB_SECONDS:-15}"
rows="${FUZZ_MODEL_ROWS:-3000}"
seed="${FUZZ_SEED:-$(((RANDOM << 15) | RANDOM | 1))}"
artifacts="${FUZZ_ARTIFACTS:-$here/artifacts}"
build="${OUT:-$here/build}"
scratch="$(mktemp -d /tmp/ots-fuzz.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
status=0

if ! OUT="$build" "$here/build.sh" all >"$scratch/build.log" 2>&1 || [ ! -x "$build/cells_fuzzer" ] ||
	[ ! -x "$build/pb_fuzzer" ]; then
	cat "$scratch/build.log"
	echo "test cells_model ... FAILED (build; the fuzzer needs clang and libclang-rt-14-dev)"
	echo "test fuzz_cells ... FAILED (build)"
	echo "test pb_model ... FAILED (build; needs protoc-c, libjansson-dev, libprotobuf-c-dev)"
	echo "test fuzz_pb ... FAILED (build)"
	exit 1
fi

# the model test: fixed cases, random rows, their mutants
if "$build/cells_standalone" --iterations "$rows" --seed "$seed" >"$scratch/model.log" 2>&1; then
	echo "test cells_model ... ok ($(tail -n 1 "$scratch/model.log"))"
else
	tail -n 30 "$scratch/model.log"
	echo "test cells_model ... FAILED (replay: $build/cells_standalone --iterations $rows --seed $seed)"
	status=1
fi

# run_fuzzer NAME BINARY SECONDS CORPUS: libFuzzer, bounded in time, on a
# scratch copy of the checked-in corpus
run_fuzzer() {
	local name="$1" binary="$2" secs="$3" corpus="$4"
	local work="$scratch/corpus-$name" log="$scratch/fuzz-$name.log"

	mkdir -p "$work" "$artifacts"
	cp "$corpus"/* "$work/"
	if "$binary" -max_total_time="$secs" -max_len=4096 -timeout=10 -seed="$seed" \
		-print_final_stats=1 -artifact_prefix="$artifacts/" \
		"$work" "$corpus" >"$log" 2>&1; then
		runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
		persec="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")"
		cov="$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1)"
		units="$(find "$work" -type f | wc -l)"
		echo "test fuzz_$name ... ok ($runs executions in ${secs}s, $persec/s, $cov, corpus $units inputs, seed $seed)"
		rmdir "$artifacts" 2>/dev/null || true
	else
		grep -vE '^#[0-9]+' "$log" | tail -n 60
		echo "test fuzz_$name ... FAILED (inputs in $artifacts; replay: $binary <file>)"
		status=1
	fi
}

run_fuzzer cells "$build/cells_fuzzer" "$seconds" "$here/corpus/cells"

# otsd's decoders: the model test, then libFuzzer
if "$build/pb_standalone" --iterations "$rows" --seed "$seed" >"$scratch/pb-model.log" 2>&1; then
	echo "test pb_model ... ok ($(tail -n 1 "$scratch/pb-model.log"))"
else
	tail -n 30 "$scratch/pb-model.log"
	echo "test pb_model ... FAILED (replay: $build/pb_standalone --iterations $rows --seed $seed)"
	status=1
fi
run_fuzzer pb "$build/pb_fuzzer" "$pb_seconds" "$here/corpus/pb"
exit "$status"
