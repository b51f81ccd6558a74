#!/bin/bash
# drivescope's AioEngine against fio (ioengine=libaio, direct=1): 4 KiB uniform random reads at
# QD1 and QD32 on the same target in the same run, alternating engine/fio for ROUNDS rounds,
# each run pinned to one CPU with taskset. Prints a Markdown table (median IOPS of the rounds and
# the engine/fio ratio) and, with --doc FILE, also writes it there in place of the section
# "## Block-I/O engine vs fio".
#
# Target, in order of preference: a zram device (1 GiB, filled from /dev/urandom so it cannot
# compress), a loop device over a tmpfs file, a plain tmpfs file. Needs root for the first two.
#
# Environment: ROUNDS (5), SECONDS_PER_RUN (4), CPU (1), TARGET (skip setup, use this path).
set -euo pipefail

ROUNDS=${ROUNDS:-5}
SECS=${SECONDS_PER_RUN:-4}
CPU=${CPU:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
DOC=""
if [[ ${1:-} == --doc ]]; then DOC=$2; fi

WORK=$(mktemp -d /tmp/engine_vs_fio.XXXXXX)
ZRAM_ID="" LOOP="" SHMFILE=""
cleanup() {
  if [[ -n $LOOP ]]; then losetup -d "$LOOP" || true; fi
  if [[ -n $ZRAM_ID ]]; then
    echo 1 >"/sys/block/zram$ZRAM_ID/reset" 2>/dev/null || true
    # Only devices we hot-added are removed; zram0 is merely reset.
    if [[ $ZRAM_ID != 0 ]]; then echo "$ZRAM_ID" >/sys/class/zram-control/hot_remove 2>/dev/null || true; fi
  fi
  if [[ -n $SHMFILE ]]; then rm -f "$SHMFILE"; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# --- the engine driver, built from the engine's own sources (independent of the other areas)
g++ -std=c++20 -O2 -g -DNDEBUG -I"$SRC/include" -I"$SRC/src" \
  "$HERE/aio_randread.cpp" "$SRC/src/io/aio_engine.cpp" "$SRC/src/io/histogram.cpp" \
  "$SRC/src/tests/queue.cpp" "$SRC/src/tests/runner.cpp" "$SRC/src/tests/common.cpp" "$SRC/src/tests/stats.cpp" \
  -o "$WORK/aio_randread" -laio -lfmt

# --- the target
KIND=""
setup_zram() {
  local id=""
  if [[ ! -e /sys/class/zram-control ]]; then modprobe zram num_devices=1 2>/dev/null || return 1; fi
  # A hot-added device of our own, so a zram0 in use by someone else is left alone.
  if [[ -w /sys/class/zram-control/hot_add ]]; then id=$(cat /sys/class/zram-control/hot_add 2>/dev/null || true); fi
  if [[ -z $id && -e /sys/block/zram0 && $(cat /sys/block/zram0/disksize) == 0 ]]; then id=0; fi
  [[ -n $id ]] || return 1
  ZRAM_ID=$id
  echo 1G >"/sys/block/zram$id/disksize" || return 1
  dd if=/dev/urandom of="/dev/zram$id" bs=1M count=1024 oflag=direct status=none || return 1
  DEV=/dev/zram$id
  KIND="zram$id (1 GiB, filled with random data$([[ $id != 0 ]] && echo ', hot-added'))"
}
setup_loop() {
  SHMFILE=$(mktemp /dev/shm/engine_vs_fio.XXXXXX) || return 1
  dd if=/dev/urandom of="$SHMFILE" bs=1M count=1024 status=none || return 1
  LOOP=$(losetup -f --show "$SHMFILE") || { LOOP=""; return 1; }
  DEV=$LOOP
  KIND="$LOOP over a 1 GiB tmpfs file (random data)"
}
if [[ -n ${TARGET:-} ]]; then
  DEV=$TARGET KIND="$TARGET (given)"
elif setup_zram; then :
elif setup_loop; then :
else
  [[ -n $SHMFILE ]] || SHMFILE=$(mktemp /dev/shm/engine_vs_fio.XXXXXX)
  dd if=/dev/urandom of="$SHMFILE" bs=1M count=1024 status=none
  DEV=$SHMFILE KIND="$SHMFILE (a 1 GiB file on tmpfs)"
fi
echo "target: $KIND" >&2

# Each run prints "IOPS I/Os-per-CPU-second". The second figure divides the I/Os by the CPU time
# the I/O process itself used (user + system; on a RAM-backed target the "device" work is done
# in the submitting thread), so it compares the tools' cost per I/O even when other work on the
# machine takes a share of the pinned CPU, which wall-clock IOPS cannot separate out.
#
# Contenders: engine (drivescope's AioEngine), raw (the same loop on bare libaio, the reference),
# fio (defaults: one io_submit per I/O), and at QD>1 fio-batch (iodepth_batch_submit=QD, reaping
# 1..QD at a time, i.e. fio with batched submission).
FIO_ARGS="--name=randread --filename=$DEV --ioengine=libaio --direct=1 --rw=randread --bs=4k \
--norandommap --randrepeat=0 --time_based --runtime=$SECS --output-format=json"
FIO_BATCH="--iodepth_batch_submit=QD --iodepth_batch_complete_min=1 --iodepth_batch_complete_max=QD"
run() { # contender qd
  case $1 in
    engine | raw | runner | runner1)
      taskset -c "$CPU" "$WORK/aio_randread" "$DEV" "$2" "$SECS" 4096 "$1" |
        jq -r '"\(.iops) \(.ios / .cpu_s)"' ;;
    fio | fio-batch)
      local extra=""
      [[ $1 == fio-batch ]] && extra=${FIO_BATCH//QD/$2}
      # shellcheck disable=SC2086
      taskset -c "$CPU" fio $FIO_ARGS --iodepth="$2" $extra |
        jq -r '.jobs[0] | "\(.read.iops) \(.read.total_ios / ((.usr_cpu + .sys_cpu) / 100 * .job_runtime / 1000))"' ;;
  esac
}
contenders() { if [[ $1 == 1 ]]; then echo engine runner raw fio; else echo engine runner runner1 raw fio fio-batch; fi; }

declare -A RES
for ((r = 1; r <= ROUNDS; r++)); do
  for qd in 1 32; do
    line="round $r QD$qd:"
    for c in $(contenders $qd); do
      read -r w u < <(run $c $qd)
      RES[w$c$qd]+="$w " RES[u$c$qd]+="$u "
      line+=$(printf ' %s %.0f (%.0f/CPU-s)' "$c" "$w" "$u")
    done
    echo "$line" >&2
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
ratios() { # key-engine key-other -> per-round ratios
  paste -d' ' <(echo "${RES[$1]}" | tr ' ' '\n' | grep -v '^$') \
    <(echo "${RES[$2]}" | tr ' ' '\n' | grep -v '^$') | awk '{printf "%.3f ", $1/$2}'
}

{
  echo "## Block-I/O engine vs fio"
  echo
  echo "Measured by \`bench/engine_vs_fio.sh\` on $(date -u +%Y-%m-%d), Linux $(uname -r), $(nproc) CPUs"
  echo "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), a VM), $(fio --version)."
  echo "Target: $KIND. 4 KiB uniform random reads, $ROUNDS rounds of ${SECS} s per contender and"
  echo "depth, contenders alternating within each round, each pinned to CPU $CPU with taskset."
  echo "Figures are medians over the rounds; ratios are medians of the per-round ratios."
  echo "Machine load average when the run ended: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared)."
  echo
  echo "| QD | contender | IOPS | I/Os per CPU-s | engine/this (IOPS) | engine/this (per CPU-s) | per-round engine/this (IOPS) |"
  echo "|---|---|---|---|---|---|---|"
  for qd in 1 32; do
    for c in $(contenders $qd); do
      wm=$(echo "${RES[w$c$qd]}" | median) um=$(echo "${RES[u$c$qd]}" | median)
      if [[ $c == engine ]]; then
        printf '| %d | %s | %.0f | %.0f | | | |\n' "$qd" "$c" "$wm" "$um"
      else
        rr=$(ratios wengine$qd w$c$qd)
        printf '| %d | %s | %.0f | %.0f | %.3f | %.3f | %s|\n' "$qd" "$c" "$wm" "$um" \
          "$(echo "$rr" | median)" "$(ratios uengine$qd u$c$qd | median)" "$rr"
      fi
    done
  done
  echo
  pc() { ratios u$1$3 u$2$3 | median; }                # per-CPU-s ratio, median of rounds
  spread() { ratios u$1$3 u$2$3 | tr ' ' '\n' | grep -v '^$' | sort -g | sed -n '1p;$p' | paste -sd' ' | sed 's/ / to /'; }
  echo "Summary (computed from the table, cost per I/O i.e. I/Os per CPU-s):"
  echo
  echo "- QD1: engine = $(pc engine fio 1)× fio; the bare libaio loop = $(pc raw fio 1)× fio on this machine"
  echo "  (the issue's reference: a minimal libaio loop reaches 1.15× fio). engine/raw = $(pc engine raw 1)"
  echo "  (per round: $(spread engine raw 1))."
  echo "- QD32: engine = $(pc engine fio-batch 32)× fio with batched submission (reference: equal),"
  echo "  $(pc engine fio 32)× fio with its defaults; engine/raw = $(pc engine raw 32) (per round: $(spread engine raw 32))."
  echo "- The queue test's runner (the replacements of one reap in one submit call, as with the none"
  echo "  scheduler): QD1 $(pc runner fio 1)× fio, QD32 $(pc runner fio-batch 32)× batched fio and $(pc runner fio 32)× default fio"
  echo "  (per CPU-s); runner/engine $(pc runner engine 1) at QD1, $(pc runner engine 32) at QD32. With one request per"
  echo "  submit call (runner1, as under another scheduler): QD32 $(pc runner1 fio-batch 32)× batched fio, $(pc runner1 fio 32)× default fio."
  echo "- Why default fio falls so far behind at QD32 here: zram completes each bio synchronously inside"
  echo "  io_submit, and fio's default iodepth_batch_submit=1 issues one io_submit (and one io_getevents)"
  echo "  per I/O at any depth, whereas the engine's loop hands all replacements to one io_submit and"
  echo "  takes every available completion in one io_getevents; told to batch, fio closes the gap."
  echo
  echo "- *engine*: \`taskset -c $CPU aio_randread $DEV QD $SECS 4096 engine\` (bench/aio_randread.cpp):"
  echo "  ds::io::AioEngine, after each reap of 1..QD completions one submit() of all replacements,"
  echo "  the latency of every I/O into a ds::io::Histogram."
  echo "- *runner*, *runner1*: \`aio_randread ... runner\` / \`runner1\`: ds::measure::run_closed_loop (src/tests/runner.cpp), the"
  echo "  queue test's I/O path, on the same engine; its records' latencies into the same Histogram."
  echo "- *raw*: the same loop on bare libaio (same clock reads and histogram): the reference."
  echo "- *fio*: \`taskset -c $CPU fio $FIO_ARGS --iodepth=QD\`"
  echo "- *fio-batch*: the same plus \`$FIO_BATCH\`."
  echo "- *I/Os per CPU-s*: I/Os divided by the user + system CPU time of the process doing them"
  echo "  (getrusage for engine/raw; fio's usr_cpu + sys_cpu of the job). On a RAM-backed target the"
  echo "  device work runs in the submitting thread, so this is each tool's cost per I/O, which other"
  echo "  processes sharing the pinned CPU do not change (they do change wall-clock IOPS)."
} >"$WORK/section.md"
cat "$WORK/section.md"

if [[ -n $DOC ]]; then
  # Replace our section (up to the next "## " heading) or append it.
  python3 - "$DOC" "$WORK/section.md" <<'EOF'
import sys, re, os
doc, sec = sys.argv[1], open(sys.argv[2]).read()
text = open(doc).read() if os.path.exists(doc) else "# Performance\n"
pat = re.compile(r"^## Block-I/O engine vs fio\n.*?(?=^## |\Z)", re.S | re.M)
if pat.search(text):
    text = pat.sub(lambda m: sec + "\n", text)
else:
    text = text.rstrip("\n") + "\n\n" + sec
open(doc, "w").write(text.rstrip("\n") + "\n")
EOF
  echo "written to $DOC" >&2
fi
