# serve-bench-guest.sh — in the guest of tests/vm/serve-bench-host.sh: "SERVE RAPTOR" is
# sim:raptor, served in real time from the host, on q35's AHCI. Here drivescope measures it through
# the guest's kernel (libata, NCQ, the block layer, a scheduler) and QEMU:
#   - `bench --tests access,transfer`, exported for the host to judge against the model's truth
#     and against what the served drive itself did (its request log);
#   - seed 001's experiment: `ab --feature scheduler=mq-deadline,B --tests transfer` for B = none
#     and bfq (when the kernel has it), exported with the spread between runs.
# Budgets come from /etc/serve-bench.conf (BENCH_BUDGET, AB_ROUNDS, AB_BUDGET): short in CI, long
# for docs/accuracy.md. The checks on figures are the host's (serve-bench-judge.py); here only
# that each run ends well and says what it measured.
. "$VMTEST_LIB"
. /etc/serve-bench.conf

DS=drivescope
blk=$(vm_disk_by_model "SERVE RAPTOR")
vm_section "served sim:raptor (/dev/$blk)"
check_nonempty "raptor: found" "$blk"
[ -n "$blk" ] || vm_done
modprobe bfq 2>/dev/null
vm_note "schedulers: $(cat /sys/block/$blk/queue/scheduler); max_sectors_kb $(cat /sys/block/$blk/queue/max_sectors_kb)"
# Warm-up reads (QEMU's quirk after probing, tests/vm/README.md).
dd if=/dev/$blk of=/dev/null bs=4096 count=8 2>/dev/null

t0=$(cut -d' ' -f1 /proc/uptime)
# --rates-only: QEMU hands completions over late and in batches, so their times do not follow the
# media; looking for tracks in them found false ones at quiet moments (docs/serve.md).
$DS bench "/dev/$blk" --tests access,transfer --rates-only --budget "$BENCH_BUDGET" --seed "${SEED:-1}" --json --quiet \
  > /tmp/bench.json 2> /tmp/bench.err
rc=$?
vm_note "bench took $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN {printf "%.0f", b - a}') s in the guest"
check "bench exit" 0 "$rc"
vm_export serve-bench.json /tmp/bench.json
jq -e .tests.transfer /tmp/bench.json > /dev/null 2>&1 || sed 's/^/   | /' /tmp/bench.err

for b in none bfq; do
  if ! grep -qw "$b" "/sys/block/$blk/queue/scheduler"; then
    vm_skip "scheduler A/B mq-deadline vs $b: the kernel does not offer $b"
    continue
  fi
  vm_section "scheduler A/B: mq-deadline vs $b"
  $DS ab "/dev/$blk" --feature "scheduler=mq-deadline,$b" --tests transfer --rates-only --rounds "$AB_ROUNDS" \
    --budget "$AB_BUDGET" --state-dir /tmp/ds-state --json --quiet > "/tmp/ab-$b.json" 2> "/tmp/ab-$b.err"
  rc=$?
  check "ab mq-deadline,$b exit" 0 "$rc"
  check "ab mq-deadline,$b: scheduler put back" mq-deadline \
    "$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$blk/queue/scheduler")"
  vm_export "serve-ab-$b.json" "/tmp/ab-$b.json"
  jq -e .ab /tmp/ab-$b.json > /dev/null 2>&1 || sed 's/^/   | /' "/tmp/ab-$b.err"
done
vm_done
