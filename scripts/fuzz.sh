#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang, -fsanitize=fuzzer,address,undefined) in their own
# build directory, replays each committed seed corpus (fuzz/corpus/<target>/), then fuzzes each
# target for a bounded time. Any crash, sanitizer report, leak, timeout or out-of-memory fails the
# script; the reproducer is left in the build directory (crash-*, leak-*, timeout-*, oom-*).
# New inputs found go to a scratch copy of the corpus, not into the repository.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 20; 0 = replay the corpus only)
#        FUZZ_BUILD=dir  JOBS=N  FUZZ_TARGETS="identify sense"   to override
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
build=${FUZZ_BUILD:-build-fuzz}
jobs=${JOBS:-$(nproc)}
targets=${FUZZ_TARGETS:-"identify scsi_decode sense dump_reader disk_model"}

command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (apt-get install clang)" >&2; exit 2; }
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      -DDRIVESCOPE_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target $(printf 'fuzz_%s ' $targets)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
summary=()
for t in $targets; do
  bin="$build/fuzz/fuzz_$t"
  seeds=fuzz/corpus/$t
  work="$build/fuzz/work-$t"
  rm -rf "$work" && mkdir -p "$work" && cp "$seeds"/* "$work"/
  # 1. Replay: every committed input once (what CI must never regress on).
  (cd "$build/fuzz" && "$OLDPWD/$bin" -runs=0 "$OLDPWD/$seeds" >"work-$t.replay.log" 2>&1) || {
    echo "fuzz: $t: replaying the corpus failed:" >&2; tail -40 "$build/fuzz/work-$t.replay.log" >&2; exit 1; }
  # 2. Fuzz for a bounded time. -timeout: one input taking >10 s is a hang; -rss_limit_mb bounds
  # memory (a decoder must not allocate from a length field without checking it).
  if [ "$secs" -gt 0 ]; then
    log="$build/fuzz/work-$t.log"
    (cd "$build/fuzz" && "$OLDPWD/$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -max_len=4096 -print_final_stats=1 "work-$t" >"$OLDPWD/$log" 2>&1) || {
      echo "fuzz: $t: FAILED (reproducer in $build/fuzz/):" >&2; tail -60 "$log" >&2; exit 1; }
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    summary+=("$t: ${execs:-?} executions in ${secs}s, ${cov:-cov: ?}, corpus $(ls "$work" | wc -l) inputs, 0 crashes")
  else
    summary+=("$t: corpus of $(ls "$seeds" | wc -l) inputs replayed, 0 crashes")
  fi
done
printf 'fuzz: %s\n' "${summary[@]}"
