#!/usr/bin/env bash
# The sanitizer stage of scripts/test.sh (and CI): one clang build tree, built with
# AddressSanitizer + UndefinedBehaviorSanitizer (-DDRIVESCOPE_SANITIZE=ON) and with the libFuzzer
# targets (-DDRIVESCOPE_FUZZ=ON), without the benchmark programs. Then:
#  1. every test except the QEMU ones (label "vm": the guest runs the normal release binary) and
#     the accuracy run (label "accuracy": 680 bench runs, an hour under ASan) under
#     both sanitizers; a report fails the test that triggered it (UBSan is built with
#     -fno-sanitize-recover, ASan aborts on the first error, leaks count as errors);
#  2. scripts/fuzz.sh on the same tree: each fuzz target replays its committed corpus and the seeds
#     in tests/data, then fuzzes for FUZZ_SECONDS; any crash, report, leak or hang fails.
# Usage: scripts/sanitize.sh [BUILD_DIR]   (default: build-asan)
#        JOBS=N (default nproc)  FUZZ_SECONDS=S (default 15; 0 = replay only; -1 = no fuzz stage)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-asan}
jobs=${JOBS:-$(nproc)}
fuzz_secs=${FUZZ_SECONDS:-15}

command -v clang++ >/dev/null || { echo "sanitize: clang++ not found (scripts/setup.sh installs it)" >&2; exit 2; }
t0=$SECONDS
# -gline-tables-only instead of -g: reports still name file and line, and the build (templates of
# fmt, nlohmann::json, doctest) is much cheaper without full debug info.
gen=()  # Ninja where installed, as in scripts/setup.sh
[ -f "$build/CMakeCache.txt" ] || ! command -v ninja >/dev/null || gen=(-G Ninja)
cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
      -DDRIVESCOPE_SANITIZE=ON -DDRIVESCOPE_FUZZ=ON -DDRIVESCOPE_BENCH=OFF >/dev/null
cmake --build "$build" -j"$jobs"
echo "sanitize: build took $((SECONDS - t0)) s" >&2

# Readable stack traces when llvm-symbolizer is installed (setup.sh installs llvm-14).
for s in llvm-symbolizer /usr/lib/llvm-14/bin/llvm-symbolizer; do
  if command -v "$s" >/dev/null; then export ASAN_SYMBOLIZER_PATH=$(command -v "$s"); break; fi
done
t1=$SECONDS
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  ctest --test-dir "$build" --output-on-failure -j"$jobs" -LE "vm|accuracy"
echo "sanitize: test suite under ASan+UBSan took $((SECONDS - t1)) s" >&2

if [ "$fuzz_secs" -ge 0 ]; then
  t2=$SECONDS
  FUZZ_BUILD=$build FUZZ_CONFIGURED=1 JOBS=$jobs scripts/fuzz.sh "$fuzz_secs"
  echo "sanitize: fuzz stage took $((SECONDS - t2)) s" >&2
fi
echo "sanitize: whole stage took $((SECONDS - t0)) s" >&2
