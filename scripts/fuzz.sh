#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang, -fsanitize=fuzzer,address,undefined) in their own
# build directory, replays each target's seeds once: the committed corpus (fuzz/corpus/<target>/)
# and the inputs of tests/data it was made from (so a file added there is replayed even before
# scripts/fuzz-seeds.py is rerun). Then fuzzes each target for a bounded time, JOBS targets at a
# time. Any crash, sanitizer report, leak, timeout or out-of-memory fails the script; the
# reproducer is left in the build directory (crash-*, leak-*, timeout-*, oom-*). New inputs found
# go to a scratch copy of the corpus, not into the repository.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 20; 0 = replay the seeds only)
#        FUZZ_BUILD=dir  JOBS=N  FUZZ_TARGETS="identify sense"   to override
#        FUZZ_CONFIGURED=1: FUZZ_BUILD is already configured with -DDRIVESCOPE_FUZZ=ON (the shared
#        sanitizer tree of scripts/sanitize.sh); only build the targets.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
secs=${1:-20}
build=${FUZZ_BUILD:-build-fuzz}
jobs=${JOBS:-$(nproc)}
targets=${FUZZ_TARGETS:-"identify scsi_decode sense dump_reader disk_model drivedb disksim_import trace"}

command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (scripts/setup.sh installs clang)" >&2; exit 2; }
if [ "${FUZZ_CONFIGURED:-0}" != 1 ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
        -DDRIVESCOPE_FUZZ=ON -DBUILD_TESTING=OFF -DDRIVESCOPE_BENCH=OFF >/dev/null
fi
cmake --build "$build" -j"$jobs" --target $(printf 'fuzz_%s ' $targets)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && command -v llvm-symbolizer >/dev/null; then
  export ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer)
fi
out="$root/$build/fuzz"

# Bytes of an sg3_utils inhex file (hex pairs, '#' comments), as scripts/fuzz-seeds.py reads it.
inhex_to_bin() {
  local b
  sed 's/#.*//' "$1" | tr -s ' \t,\r' '\n\n\n\n' | grep -E '^[0-9a-fA-F]{1,2}$' |
    while read -r b; do printf "\\x$b"; done
}
# The tests/data inputs each target's corpus is made from (the mapping of scripts/fuzz-seeds.py).
data_seeds() {
  local t=$1 dir=$2 d f
  local data=tests/data
  case $t in
    identify)
      for d in "$data"/identify/*/; do cp "$d/identify.bin" "$dir/$(basename "$d").bin"; done
      inhex_to_bin "$data/pages/ata_log47_dual.hex" >"$dir/ata_log47_dual.bin" ;;
    dump_reader)
      for d in "$data"/identify/*/; do
        for f in identify.bin identify.hex blob.bin; do
          [ -f "$d/$f" ] && cp "$d/$f" "$dir/$(basename "$d")-$f"
        done
      done
      cp "$data"/scsi/*.hex "$dir"/ ;;
    scsi_decode|sense)
      for f in "$data"/scsi/*.hex; do
        case $(basename "$f") in *sense*) [ "$t" = sense ] || continue ;; *) [ "$t" = scsi_decode ] || continue ;; esac
        inhex_to_bin "$f" >"$dir/$(basename "$f" .hex).bin"
      done
      if [ "$t" = scsi_decode ]; then
        for f in "$data"/pages/vpd_*.hex "$data"/pages/report_zones_*.hex; do
          inhex_to_bin "$f" >"$dir/$(basename "$f" .hex).bin"
        done
      fi
      if [ "$t" = sense ]; then
        for f in "$data"/sg3-cdbs/*.txt; do
          local cdb
          cdb=$(grep -o 'cdb: \[[0-9a-fA-F ]*\]' "$f" | head -1 | tr -d '[]' | sed 's/^cdb: //') || true
          [ -n "$cdb" ] || continue
          for b in $cdb; do printf "\\x$b"; done >"$dir/cdb-$(basename "$f" .txt).bin"
        done
      fi ;;
    disk_model)
      for f in "$data"/disk-models/*.json; do
        case $f in *.truth.json) ;; *) cp "$f" "$dir"/ ;; esac
      done ;;
    trace)
      for f in "$data"/disksim-traces/*.trace; do head -40 "$f" >"$dir/$(basename "$f" .trace).head"; done ;;
    drivedb)
      # The installed table (Debian's smartmontools), replayed whole; never copied into the repository.
      if [ -f /usr/share/smartmontools/drivedb.h ]; then cp /usr/share/smartmontools/drivedb.h "$dir/installed-drivedb.h"; fi ;;
  esac
}

# 1. Replay: every committed input and every tests/data seed once (what CI must never regress on).
replayed=()
for t in $targets; do
  seeds="$out/seeds-$t"
  rm -rf "$seeds" && mkdir -p "$seeds"
  data_seeds "$t" "$seeds"
  n=$(( $(ls fuzz/corpus/$t | wc -l) + $(ls "$seeds" | wc -l) ))
  (cd "$out" && "./fuzz_$t" -runs=0 -timeout=10 -rss_limit_mb=2048 "$root/fuzz/corpus/$t" "$seeds" \
      >"replay-$t.log" 2>&1) || {
    echo "fuzz: $t: replaying the seeds failed (reproducer in $out):" >&2; tail -40 "$out/replay-$t.log" >&2; exit 1; }
  replayed+=("$t: $n seeds replayed")
done
printf 'fuzz: %s\n' "${replayed[@]}"
[ "$secs" -gt 0 ] || exit 0

# 2. Fuzz each target for a bounded time, JOBS at a time. -timeout: one input taking >10 s is a
# hang; -rss_limit_mb bounds memory (a decoder must not allocate from a length field without
# checking it).
fuzz_one() {
  local t=$1
  local work="$out/work-$t" log="$out/work-$t.log"
  rm -rf "$work" && mkdir -p "$work" && cp "$root/fuzz/corpus/$t"/* "$work"/
  if ! (cd "$out" && "./fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
          -max_len=4096 -print_final_stats=1 "work-$t" "seeds-$t" >"$log" 2>&1); then
    echo "fuzz: $t: FAILED (reproducer in $out):" >&2; tail -60 "$log" >&2; return 1
  fi
  local execs cov
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  echo "$t: ${execs:-?} executions in ${secs}s, ${cov:-cov: ?}, corpus $(ls "$work" | wc -l) inputs, 0 crashes" \
    >"$out/work-$t.summary"
}
failed=0
set -- $targets
while [ $# -gt 0 ]; do
  pids=()
  for ((k = 0; k < jobs && $# > 0; ++k)); do fuzz_one "$1" & pids+=($!); shift; done
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
done
for t in $targets; do [ -f "$out/work-$t.summary" ] && echo "fuzz: $(cat "$out/work-$t.summary")"; done
[ "$failed" -eq 0 ] || { echo "fuzz: a target failed (see above)" >&2; exit 1; }
