#!/bin/bash
# Does the running kernel hand a batch of reads submitted in one io_submit call to the driver in
# the order they were submitted? The queue test submits the replacements of one reap in one call
# (src/tests/runner.hpp, LoopOptions::batch_submit); docs/methods.md ("Read queuing") says which
# kernels may sort or reverse such a batch. This checks the running one.
#
# A loop device over a tmpfs file (a blk-mq device with one hardware queue, as a SATA disk's),
# for each scheduler in SCHEDULERS (default "none mq-deadline"): ROUNDS (5) batches of N (32)
# 4 KiB O_DIRECT reads 1 MiB apart in a shuffled order, one io_submit call each, and for
# comparison the same reads one io_submit call each; a private ftrace instance records
# block_rq_issue (the request handed to the driver) for the device. Prints, per scheduler and
# way, how many rounds reached the driver in the submitted order, in the reverse order, or in
# another one (and then the first such round's order).
#
# Needs root (loop device, tracefs). Environment: N, ROUNDS, SCHEDULERS.
set -euo pipefail

N=${N:-32}
ROUNDS=${ROUNDS:-5}
SCHEDULERS=${SCHEDULERS:-"none mq-deadline"}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/batch_order.XXXXXX)
LOOP="" SHMFILE="" TRACE="" MOUNTED="" INSTANCE=""
cleanup() {
  if [[ -n $INSTANCE && -d $INSTANCE ]]; then
    echo 0 >"$INSTANCE/events/block/block_rq_issue/enable" 2>/dev/null || true
    rmdir "$INSTANCE" 2>/dev/null || true
  fi
  if [[ -n $LOOP ]]; then losetup -d "$LOOP" || true; fi
  if [[ -n $SHMFILE ]]; then rm -f "$SHMFILE"; fi
  if [[ -n $MOUNTED ]]; then umount "$TRACE" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

g++ -std=c++20 -O2 "$HERE/batch_order.cpp" -o "$WORK/batch_order" -laio

TRACE=/sys/kernel/tracing
if [[ ! -e $TRACE/instances ]]; then
  mount -t tracefs nodev "$TRACE"
  MOUNTED=1
fi
INSTANCE=$TRACE/instances/drivescope_batch_order.$$
mkdir "$INSTANCE"

SHMFILE=$(mktemp /dev/shm/batch_order.XXXXXX)
dd if=/dev/zero of="$SHMFILE" bs=1M count=$((N + 1)) status=none
LOOP=$(losetup -f --show "$SHMFILE")
name=$(basename "$LOOP")
devnum=$(cat "/sys/block/$name/dev")  # major:minor
major=${devnum%%:*} minor=${devnum##*:}
echo "kernel $(uname -r); $LOOP ($devnum) over a tmpfs file; $N reads a batch, $ROUNDS rounds"

# The issued sectors of the last run, in order, one line.
issued() {
  grep 'block_rq_issue' "$INSTANCE/trace" | sed -n "s/.* $major,$minor R[A-Z]* [0-9]* () \([0-9]*\) + .*/\1/p" | tr '\n' ' '
}

for sched in $SCHEDULERS; do
  if ! echo "$sched" >"/sys/block/$name/queue/scheduler" 2>/dev/null; then
    echo "$sched: not available"
    continue
  fi
  for way in batch single; do
    same=0 reversed=0 other=0 example=""
    for ((r = 1; r <= ROUNDS; r++)); do
      echo 0 >"$INSTANCE/tracing_on"
      : >"$INSTANCE/trace"
      echo "dev == $(((major << 20) | minor))" >"$INSTANCE/events/block/block_rq_issue/filter"
      echo 1 >"$INSTANCE/events/block/block_rq_issue/enable"
      echo 1 >"$INSTANCE/tracing_on"
      submitted=$("$WORK/batch_order" "$LOOP" "$N" "$way" "$r")
      echo 0 >"$INSTANCE/tracing_on"
      got=$(issued)
      want=$(echo "$submitted" | xargs)
      got=$(echo "$got" | xargs)
      rev=$(echo "$want" | tr ' ' '\n' | tac | xargs)
      if [[ $got == "$want" ]]; then
        same=$((same + 1))
      elif [[ $got == "$rev" ]]; then
        reversed=$((reversed + 1))
      else
        other=$((other + 1))
        [[ -n $example ]] || example="submitted: $want / issued: $got"
      fi
    done
    echo "$sched, $way: in order $same, reversed $reversed, other $other of $ROUNDS${example:+ ($example)}"
  done
done
