#!/usr/bin/env bash
# drivescope's measurements through a real kernel (ctest vm-serve-bench, label vm): the host serves
# sim:raptor in real time (drivescope serve, its request log kept), a QEMU guest has it as an AHCI
# disk and runs tests/vm/serve-bench-guest.sh (`bench --tests access,transfer`, the scheduler
# A/B), and tests/vm/serve-bench-judge.py judges the figures against the model's truth
# (tools/truth, which shares nothing with the simulator) and measures what the host added to
# each command from the guest's latencies and the drive's own log:
#   rpm within 1 %, every zone-middle rate within 3 %, average seek within 10 % (less the host's
#   measured excess on a random read over a cache hit; the raw figure is printed too).
# The server runs its timing threads, and QEMU its threads, under SCHED_FIFO: at normal priority a
# TCG guest on a loaded two-core host was held off the CPU for ~30 ms at a time and handed over
# eight completions at once (docs/serve.md). Where real-time priority is refused the timing
# checks cannot be judged: exit 77 (skipped), or a failure with DRIVESCOPE_REQUIRE_VM set.
# Usage: serve-bench-host.sh [-S] -b DRIVESCOPE [-t SECS] [-L RUNS] [-o DIR]
#   -S       ctest mode (skip, exit 77, when nbdkit, QEMU or real-time priority is missing)
#   -L RUNS  the long form: RUNS boots with longer budgets and more A/B rounds, their figures
#            summed up by serve-bench-judge.py --report into DIR/accuracy-kernel.md (the
#            "through a real kernel" section of docs/accuracy.md: scripts/serve-accuracy.sh)
#   -o DIR   keep every run's exported files and logs there
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
ctest_mode= ds= secs=420 runs=0 keep=
while getopts Sb:t:L:o: o; do
  case $o in S) ctest_mode=-S ;; b) ds=$OPTARG ;; t) secs=$OPTARG ;; L) runs=$OPTARG ;; o) keep=$OPTARG ;; *) exit 2 ;; esac
done
[ -x "$ds" ] || { echo "serve-bench-host: -b DRIVESCOPE is required"; exit 2; }
truth_bin=$(dirname "$ds")/ds_truth
NAME=serve-bench-host; . "$here/served-lib.sh"
served_prerequisites
[ -x "$truth_bin" ] || unavailable "ds_truth is not built next to drivescope"

tmp=$(mktemp -d)
out=${keep:-$tmp/out}
mkdir -p "$out"
trap served_cleanup EXIT
"$truth_bin" "$src/models/raptor.json" > "$out/truth-raptor.json" || { echo "serve-bench-host: FAIL: ds_truth"; exit 1; }

one_run() {  # one_run N BENCH_BUDGET AB_ROUNDS AB_BUDGET: a boot; its files in $out/runN
  local d=$out/run$1 rc
  mkdir -p "$d"
  printf 'BENCH_BUDGET=%s\nAB_ROUNDS=%s\nAB_BUDGET=%s\nSEED=%s\n' "$2" "$3" "$4" "$1" > "$d/serve-bench.conf"
  cp /proc/loadavg "$d/loadavg"
  served_start sim:raptor "$tmp/raptor.sock" "$d" --log "$d/plugin.log"
  bash "$here/vm-run.sh" $ctest_mode -R -t "$secs" -b "$ds" -o "$d" -a "$d/serve-bench.conf:/etc/serve-bench.conf" \
    -d "ahci,nbd=nbd+unix:///?socket=$tmp/raptor.sock,model=SERVE RAPTOR,serial=SRV0001,rotation_rate=10000" \
    "$here/serve-bench-guest.sh" 2>&1 | tee "$d/vm.log"
  served_stop "$d" "${PIPESTATUS[0]}" || return
  python3 "$here/serve-bench-judge.py" --truth "$out/truth-raptor.json" --dir "$d"
}

if [ "$runs" -gt 0 ]; then
  [ "$secs" -gt 420 ] || secs=900  # 120 s of bench and 200 s of A/B drive time, through TCG
  fails=0
  for i in $(seq "$runs"); do one_run "$i" 120 5 10 || fails=$((fails + 1)); done
  python3 "$here/serve-bench-judge.py" --truth "$out/truth-raptor.json" --report "$out"/run* > "$out/accuracy-kernel.md"
  echo "serve-bench-host: $runs runs, $fails with a failed check; summary in $out/accuracy-kernel.md"
  [ "$fails" -eq 0 ]
  exit $?
fi
# CI: one boot, short budgets (about 3 minutes in all on a loaded 2-core host).
one_run 1 120 3 6
