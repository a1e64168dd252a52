#!/usr/bin/env bash
# test/fuzz/run-short.sh: the bounded fuzz run of tools/test (about 45 s).
#
#   test/fuzz/run-short.sh        (any user; needs clang and libclang-rt-14-dev)
#
# Builds both harnesses of cells_fuzz.c (build.sh), then
#   - cells_standalone: the ~90 fixed cases and FUZZ_MODEL_ROWS (default 3000)
#     random rows checked against the model, each mutated;
#   - cells_fuzzer: libFuzzer for FUZZ_SECONDS (default 30) on a scratch copy
#     of corpus/cells (the checked-in seeds stay as they are).
# Prints "test cells_model ... ok|FAILED" and "test fuzz_cells ... ok|FAILED"
# with the figures; a crash input is kept as $FUZZ_ARTIFACTS/crash-*
# (default test/fuzz/artifacts/), replay it with
# `test/fuzz/build/cells_fuzzer <file>`. FUZZ_SEED repeats a run.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
seconds="${FUZZ_SECONDS:-30}"
rows="${FUZZ_MODEL_ROWS:-3000}"
seed="${FUZZ_SEED:-$(((RANDOM << 15) | RANDOM | 1))}"
artifacts="${FUZZ_ARTIFACTS:-$here/artifacts}"
build="${OUT:-$here/build}"
scratch="$(mktemp -d /tmp/ots-fuzz.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
status=0

if ! OUT="$build" "$here/build.sh" all >"$scratch/build.log" 2>&1 || [ ! -x "$build/cells_fuzzer" ]; then
	cat "$scratch/build.log"
	echo "test cells_model ... FAILED (build; the fuzzer needs clang and libclang-rt-14-dev)"
	echo "test fuzz_cells ... FAILED (build)"
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

# libFuzzer, bounded in time
mkdir -p "$scratch/corpus" "$artifacts"
cp "$here"/corpus/cells/* "$scratch/corpus/"
if "$build/cells_fuzzer" -max_total_time="$seconds" -max_len=4096 -timeout=10 -seed="$seed" \
	-print_final_stats=1 -artifact_prefix="$artifacts/" \
	"$scratch/corpus" "$here/corpus/cells" >"$scratch/fuzz.log" 2>&1; then
	runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/fuzz.log")"
	persec="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$scratch/fuzz.log")"
	cov="$(grep -oE 'cov: [0-9]+' "$scratch/fuzz.log" | tail -n 1)"
	units="$(find "$scratch/corpus" -type f | wc -l)"
	echo "test fuzz_cells ... ok ($runs executions in ${seconds}s, $persec/s, $cov, corpus $units inputs, seed $seed)"
	rmdir "$artifacts" 2>/dev/null || true
else
	grep -vE '^#[0-9]+' "$scratch/fuzz.log" | tail -n 60
	echo "test fuzz_cells ... FAILED (inputs in $artifacts; replay: $build/cells_fuzzer <file>)"
	status=1
fi
exit "$status"
