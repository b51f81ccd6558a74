# guest-features.sh — feature control and restore on QEMU's AHCI disk: `aam set 128` (QEMU
# accepts AAM and never reports it), `write-cache off` read back from IDENTIFY and against
# hdparm -W, and `ab` interrupted by SIGINT / SIGTERM / SIGKILL with the write cache and the I/O
# scheduler checked back at their original values (hdparm -W, sysfs) afterwards.
. "$VMTEST_LIB"

DS=drivescope
command -v $DS >/dev/null || { echo "FAIL drivescope is not in the guest (vm-run.sh -b)"; VM_FAIL=1; vm_done; }
blk=$(vm_disk_by_model "VMTEST AHCI") || { echo "FAIL no AHCI disk"; VM_FAIL=1; vm_done; }
dev=/dev/$blk
SD=/tmp/ds-state
mkdir -p $SD
export DRIVESCOPE_STATE_DIR=$SD

# hdparm -W: " write-caching =  1 (on)" → 1
wc_hdparm() { hdparm -W "$dev" 2>/dev/null | sed -n 's/.*write-caching *= *\([01]\).*/\1/p'; }
sched() { sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$blk/queue/scheduler"; }
# wait_until CMD... — poll (up to ~60 s) until CMD succeeds.
wait_until() { local i=0; while [ $i -lt 600 ]; do "$@" && return 0; sleep 0.1; i=$((i + 1)); done; return 1; }

vm_section "AAM on $dev (QEMU accepts SET FEATURES 42h and never reports AAM)"
$DS aam "$dev" set 128 --json > /tmp/aam.json 2> /tmp/aam.err; rc=$?
check "aam set 128: exit status" 0 "$rc"
check "aam set 128: verification" not_reported "$(jget /tmp/aam.json .feature.verification)"
check "aam set 128: message" \
  "the drive accepted SET FEATURES but IDENTIFY does not report AAM, so the new level cannot be verified" \
  "$(jget /tmp/aam.json .feature.message)"
$DS aam "$dev" get --json > /tmp/aamget.json 2>/dev/null
check "aam get: reported" false "$(jget /tmp/aamget.json .feature.state.reported)"
# A/B of AAM cannot be run safely: its original level cannot be read, so it could not be restored.
# ab refuses such a feature before any round (exit 1, not a failed device's 5).
$DS ab "$dev" --feature aam=quiet,fast --rounds 2 --budget 0.5 --json > /tmp/abaam.json 2>/dev/null
check "ab aam refused: exit status" 1 "$?"
check "ab aam refused (original not readable)" true \
  "$(jget /tmp/abaam.json '.ab.error // .error | test("does not report the state of aam")')"

vm_section "write cache on $dev: set, read back from IDENTIFY, compare with hdparm -W"
wc0=$(wc_hdparm)
check_nonempty "hdparm -W before" "$wc0"
$DS write-cache "$dev" off --json > /tmp/wcoff.json 2>/dev/null; rc=$?
check "write-cache off: exit status" 0 "$rc"
check "write-cache off: verification" verified "$(jget /tmp/wcoff.json .feature.verification)"
$DS write-cache "$dev" get --json > /tmp/wcget.json 2>/dev/null
check "write-cache get after off (IDENTIFY)" false "$(jget /tmp/wcget.json .feature.state.value.enabled)"
check "hdparm -W after off" 0 "$(wc_hdparm)"
$DS write-cache "$dev" on > /dev/null 2>&1
check "hdparm -W after on" 1 "$(wc_hdparm)"
[ "$wc0" = 0 ] && $DS write-cache "$dev" off > /dev/null 2>&1
check "hdparm -W back to the start" "$wc0" "$(wc_hdparm)"

dd if="$dev" of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null  # warm-up (README: NCQ after abort)

# ab_interrupted SIG FEATURE OBSERVE_CHANGED — start an ab run, wait until OBSERVE_CHANGED sees the
# feature changed, send SIG, and leave the exit status in AB_RC.
ab_interrupted() {
  rm -f $SD/*
  $DS ab "$dev" --feature "$2" --tests access --rounds 10000 --budget 0.3 --json --keep-state \
    > /tmp/ab-$1.json 2> /tmp/ab-$1.err &
  local pid=$!
  if wait_until $3; then vm_note "feature seen changed while ab runs; sending SIG$1"; else vm_note "change never seen"; fi
  kill -"$1" $pid
  wait $pid; AB_RC=$?
}
wc_off() { [ "$(wc_hdparm)" = 0 ]; }
sched_none() { [ "$(sched)" = none ]; }

vm_section "ab write-cache=off,on interrupted by SIGINT"
wc0=$(wc_hdparm)
ab_interrupted INT write-cache=off,on wc_off
check "ab SIGINT: exit status 4" 4 "$AB_RC"
check "ab SIGINT: write cache back (hdparm -W)" "$wc0" "$(wc_hdparm)"
check "ab SIGINT: state file says restored" restored "$(jget $SD/state-$blk.json .status)"
check "ab SIGINT: JSON interrupted" true "$(jget /tmp/ab-INT.json .ab.interrupted)"

vm_section "ab scheduler=none,mq-deadline interrupted by SIGTERM"
s0=$(sched)
check_nonempty "scheduler before" "$s0"
if [ "$s0" = none ]; then vm_skip "scheduler is already none: the change would not be visible"
else
  ab_interrupted TERM scheduler=none,$s0 sched_none
  check "ab SIGTERM: exit status 4" 4 "$AB_RC"
  check "ab SIGTERM: scheduler back (sysfs)" "$s0" "$(sched)"
  check "ab SIGTERM: state file says restored" restored "$(jget $SD/state-$blk.json .status)"
fi

vm_section "ab write-cache=off,on killed by SIGKILL, then drivescope restore"
rm -f $SD/*
wc0=$(wc_hdparm)
$DS ab "$dev" --feature write-cache=off,on --tests access --rounds 10000 --budget 0.3 --json > /dev/null 2>&1 &
pid=$!
wait_until wc_off && vm_note "write cache seen off"
kill -KILL $pid; wait $pid 2>/dev/null
vm_note "after SIGKILL: hdparm -W = $(wc_hdparm), state file status $(jget $SD/state-$blk.json .status)"
check "state file left by SIGKILL" active "$(jget $SD/state-$blk.json .status)"
$DS ab "$dev" --feature write-cache=off,on --rounds 2 --json > /tmp/ab-again.json 2>/dev/null; rc=$?
check "a new ab refuses while the state file is there" 1 "$rc"
$DS restore "$dev" --json > /tmp/restore.json 2>/dev/null; rc=$?
check "restore: exit status" 0 "$rc"
check "restore: write cache back (hdparm -W)" "$wc0" "$(wc_hdparm)"
check "restore: state file removed" no "$([ -e $SD/state-$blk.json ] && echo yes || echo no)"

vm_section "a rejected SET FEATURES subcommand (APM: QEMU's answer, informational)"
$DS apm "$dev" set 128 > /tmp/apm.out 2>&1; vm_note "apm set 128: exit $?: $(head -c 300 /tmp/apm.out)"
dd if="$dev" of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null
vm_done
