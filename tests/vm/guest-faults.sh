# guest-faults.sh — drivescope on disks that fail reads through a real kernel (issue 31 item 4,
# docs/safety.md). Needs the disks of tests/vm/faults-host.sh (QEMU blkdebug under AHCI and
# virtio-scsi): without them it skips at once. Every command that reads the media must end
# within its bound with the documented exit status (5: the device failed), say which LBA the
# read that failed was at, keep what it measured before, and leave the features it changed as
# they were.
. "$VMTEST_LIB"

DS=drivescope
[ -r /etc/fault-facts ] || { vm_skip "faults: needs tests/vm/faults-host.sh's disks (not in this disk set)"; vm_done; }
. /etc/fault-facts
RA=$(vm_disk_by_model "VMTEST BADRANGE"); RS=$(vm_disk_by_model "BADRANGE SCSI")
AA=$(vm_disk_by_model "VMTEST BADALL"); AS=$(vm_disk_by_model "BADALL SCSI")
GOOD=$(vm_disk_by_model "VMTEST GOOD")
[ -n "$RA" ] && [ -n "$RS" ] && [ -n "$AA" ] && [ -n "$AS" ] && [ -n "$GOOD" ] ||
  { echo "FAIL disks not found (BADRANGE $RA/$RS, BADALL $AA/$AS, GOOD $GOOD)"; VM_FAIL=1; vm_done; }
ST=/tmp/faults-state; mkdir -p $ST
LAST=$((FAULT_LBA + FAULT_SECTORS - 1))

# ds NAME ARGS... — `drivescope ARGS` under a 150 s bound (a run that hangs fails, it does not
# hang the guest); stdout in /tmp/NAME.out, stderr in /tmp/NAME.err, the status in DS_RC.
ds() {
  local name=$1; shift
  timeout 150 $DS "$@" > "/tmp/$name.out" 2> "/tmp/$name.err"; DS_RC=$?
  echo "   \$ drivescope $* -> exit $DS_RC"; sed -n '1,3s/^/   | /p' "/tmp/$name.err"
}
# lba_named NAME — the LBA in NAME's "I/O failed at LBA N" (stderr, else stdout), or empty.
lba_named() { cat "/tmp/$1.err" "/tmp/$1.out" | sed -n 's/.*failed at LBA \([0-9][0-9]*\).*/\1/p' | head -n1; }
# in_range N LO HI
in_range() { [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
# device_failed NAME LO HI — exit 5 and the failing LBA named, inside [LO, HI].
device_failed() {
  check "$1: exit status" 5 "$DS_RC"
  local l; l=$(lba_named "$1")
  check_true "$1: names the failed read's LBA ($l) in $2..$3" in_range "$l" "$2" "$3"
}

vm_section "the faults are there: dd through the kernel"
check_true "dd of the bad range on AHCI fails" not quiet dd if=/dev/$RA of=/dev/null bs=512 skip=$FAULT_LBA count=1 iflag=direct
check_true "dd before the bad range on AHCI reads" quiet dd if=/dev/$RA of=/dev/null bs=512 skip=$((FAULT_LBA - 8)) count=8 iflag=direct
check_true "dd on BADALL SCSI fails" not quiet dd if=/dev/$AS of=/dev/null bs=4096 count=1 iflag=direct

vm_section "identify reads no media: it answers on every failing disk"
for d in $RA $RS $AA $AS; do
  ds id-$d identify "/dev/$d" --json
  check_true "identify /dev/$d: exit 0 or 3" test "$DS_RC" -eq 0 -o "$DS_RC" -eq 3
  check_true "identify /dev/$d: JSON" quiet jq -e .identify "/tmp/id-$d.out"
done

vm_section "bench: each test on a disk whose every read fails"
# --span 64MiB: the smallest window every test takes (patterns wants 2048 blocks, access and
# transfer more than a few tracks); each fails at its first read.
for d in $AA $AS; do
  for t in access transfer cache blocksize queue patterns actuators; do
    ds b-$t-$d bench "/dev/$d" --tests $t --span 64MiB --budget 3 --quiet --json
    device_failed b-$t-$d 0 $((64 * 2048 - 1))
    check "b-$t-$d: the test's error in the document" true \
      "$(jq -r --arg t $t '.tests.errors[$t] != null' /tmp/b-$t-$d.out 2>/dev/null)"
  done
done

vm_section "bench behind --offset: the failure names the device's LBA, not the window's"
for d in $RA $RS; do
  for t in blocksize queue; do
    ds o-$t-$d bench "/dev/$d" --tests $t --offset $((FAULT_LBA * 512)) --span $((FAULT_SECTORS * 512)) --budget 3 --quiet --json
    device_failed o-$t-$d $FAULT_LBA $LAST
  done
done

vm_section "a healthy window of the same disk measures"
ds b-ok bench "/dev/$RA" --tests access --span 64MiB --budget 2 --quiet --json
check "b-ok: exit status" 0 "$DS_RC"
check_true "b-ok: access measured (reads timed)" test "$(jq -r '.tests.access.read.samples // 0' /tmp/b-ok.out 2>/dev/null)" -gt 0
check "b-ok: no errors" null "$(jq -c '.tests.errors' /tmp/b-ok.out 2>/dev/null)"

vm_section "every read fails: bench, ncq, ab, scan"
for d in $AA $AS; do
  ds ball-$d bench "/dev/$d" --budget 3 --quiet --json
  device_failed ball-$d 0 $((256 * 2048 - 1))
  check "ball-$d: every default test's error in the document" "access blocksize cache positioning transfer" \
    "$(jq -r '.tests.errors | keys | sort | join(" ")' /tmp/ball-$d.out 2>/dev/null)"
  ds ncq-$d ncq "/dev/$d" --json
  device_failed ncq-$d 0 $((256 * 2048 - 1))
done
wc_before=$($DS write-cache "/dev/$AA" --json 2>/dev/null | jq -r '.feature.state.value.enabled' 2>/dev/null)
ds ab-$AA ab "/dev/$AA" --feature write-cache=on,off --rounds 2 --budget 0.5 --state-dir $ST --quiet --json
device_failed ab-$AA 0 $((256 * 2048 - 1))
wc_after=$($DS write-cache "/dev/$AA" --json 2>/dev/null | jq -r '.feature.state.value.enabled' 2>/dev/null)
check_nonempty "write cache read back before ab" "$wc_before"
check "ab on a failing disk leaves the write cache as it was" "$wc_before" "$wc_after"
ds scan-all scan "/dev/$GOOD" "/dev/$AA" --bench 2 --json
check "scan: exit status (the worst drive's)" 5 "$DS_RC"
check "scan: the healthy drive's bench done" done \
  "$(jq -r --arg d "/dev/$GOOD" 'select(.target.name == $d) | .scan.bench.status' /tmp/scan-all.out 2>/dev/null | head -n1)"
check "scan: the failing drive's bench failed" failed \
  "$(jq -r --arg d "/dev/$AA" 'select(.target.name == $d) | .scan.bench.status' /tmp/scan-all.out 2>/dev/null | head -n1)"
check_true "scan: its reason names the LBA" contains \
  "$(jq -r --arg d "/dev/$AA" 'select(.target.name == $d) | .scan.bench.reason' /tmp/scan-all.out 2>/dev/null)" 'failed at LBA [0-9]'

vm_section "a served drive behind nbdkit's error filter"
SV=$(vm_disk_by_model "SERVE FAILING")
if [ -n "$SV" ]; then
  ds serve-$SV bench "/dev/$SV" --tests access --budget 3 --quiet --json
  device_failed serve-$SV 0 $(( $(cat /sys/block/$SV/size) - 1 ))
else
  vm_skip "served failing drive: not in this disk set (no nbdkit on the host)"
fi

vm_section "replay: a trace into the bad range"
{ echo "fio version 2 iolog"; echo "/dev/$RA add"; echo "/dev/$RA open"
  for lba in 0 2048 4096 $((FAULT_LBA + 8)) 8192; do echo "/dev/$RA read $((lba * 512)) 4096"; done
  echo "/dev/$RA close"; } > /tmp/bad.iolog
for d in $RA $RS; do
  sed "s#/dev/$RA#/dev/$d#" /tmp/bad.iolog > /tmp/bad-$d.iolog
  ds replay-$d replay "/dev/$d" /tmp/bad-$d.iolog --json
  device_failed replay-$d $((FAULT_LBA + 8)) $((FAULT_LBA + 8))
done

vm_section "every ${NTH}th read fails: AHCI (the kernel retries) and virtio-blk (it does not)"
NA=$(vm_disk_by_model "VMTEST NTHREAD"); NB=$(vm_disk_by_serial "FLTNTH08")
if [ -n "$NA" ] && [ -n "$NB" ]; then
  # ioerr_cnt (hex) counts every command that completed with an error, retried or not.
  cnt() { printf '%d' "$(cat /sys/block/$1/device/ioerr_cnt)"; }
  e0=$(cnt $NA)
  check_true "dd of 64 blocks on AHCI reads (libata retries each aborted read)" quiet dd if=/dev/$NA of=/dev/null bs=4096 count=64 iflag=direct
  check_true "and the kernel counted the failures it hid ($e0 -> $(cnt $NA))" test "$(cnt $NA)" -gt "$e0"
  check_true "dd of 64 blocks on virtio-blk fails (no retries there)" not quiet dd if=/dev/$NB of=/dev/null bs=4096 count=64 iflag=direct
  ds nth-$NA bench "/dev/$NA" --tests access --span 64MiB --budget 3 --quiet --json
  check "nth-$NA: exit status (every read came back)" 0 "$DS_RC"
  check_true "nth-$NA: access measured" test "$(jq -r '.tests.access.read.samples // 0' /tmp/nth-$NA.out 2>/dev/null)" -gt 0
  check_true "nth-$NA: kernel_io counts the failed commands" test "$(jq -r '.target.kernel_io.failed_commands // 0' /tmp/nth-$NA.out 2>/dev/null)" -gt 0
  check_true "nth-$NA: a warning says the kernel hid failures" contains "$(cat /tmp/nth-$NA.err)" "retries the kernel hid"
  ds nth-$NB bench "/dev/$NB" --tests access --span 64MiB --budget 3 --quiet --json
  device_failed nth-$NB 0 $((64 * 2048 - 1))
  check "nth-$NB: virtio-blk has no SCSI counters: no kernel_io" null "$(jq -c '.target.kernel_io' /tmp/nth-$NB.out 2>/dev/null)"
  # ab over the hidden failures: the comparison completes, says what the kernel counted, and
  # leaves the feature as it was; ncq on virtio-blk meets a failure and names its LBA.
  wc0=$($DS write-cache "/dev/$NA" --json 2>/dev/null | jq -r '.feature.state.value.enabled' 2>/dev/null)
  ds abn-$NA ab "/dev/$NA" --feature write-cache=on,off --tests access --span 64MiB --rounds 2 --budget 1 \
    --state-dir $ST --quiet --json
  check "abn-$NA: ab over hidden failures: exit status" 0 "$DS_RC"
  check_true "abn-$NA: kernel_io counts the failed commands" test "$(jq -r '.target.kernel_io.failed_commands // 0' /tmp/abn-$NA.out 2>/dev/null)" -gt 0
  check_true "abn-$NA: a warning says the kernel hid failures" contains "$(cat /tmp/abn-$NA.err)" "retries the kernel hid"
  check "abn-$NA: the write cache as it was" "$wc0" \
    "$($DS write-cache "/dev/$NA" --json 2>/dev/null | jq -r '.feature.state.value.enabled' 2>/dev/null)"
  ds ncqn-$NB ncq "/dev/$NB" --json
  device_failed ncqn-$NB 0 $(( $(cat /sys/block/$NB/size) - 1 ))
  { echo "fio version 2 iolog"; echo "/dev/x add"; echo "/dev/x open"
    for i in $(seq 0 29); do echo "/dev/x read $((i * 1048576)) 4096"; done
    echo "/dev/x close"; } > /tmp/nth.iolog
  ds nthr-$NA replay "/dev/$NA" /tmp/nth.iolog --json
  check "nthr-$NA: replay of 30 reads on AHCI: exit status" 0 "$DS_RC"
  check "nthr-$NA: every request served" 30 "$(jq -r '.replay.summary.count' /tmp/nthr-$NA.out 2>/dev/null)"
  check_true "nthr-$NA: kernel_io counts the failed commands" test "$(jq -r '.target.kernel_io.failed_commands // 0' /tmp/nthr-$NA.out 2>/dev/null)" -gt 0
  ds nthr-$NB replay "/dev/$NB" /tmp/nth.iolog --json
  device_failed nthr-$NB 0 $((29 * 2048))
  check "nthr-$NB: the replay says it is incomplete" false "$(jq -r '.replay.complete' /tmp/nthr-$NB.out 2>/dev/null)"
else
  echo "FAIL every-Nth disks not found ($NA/$NB)"; VM_FAIL=1
fi

vm_section "a drive that stops answering mid-run (served behind nbdkit's pause filter)"
SP=$(vm_disk_by_model "SERVE STALL")
if [ -n "$SP" ]; then
  # The kernel's own command timeout (30 s by default) raised, so that drivescope's 30 s bound
  # on a reap is what ends the wait, as on a drive whose kernel allows longer.
  echo 300 > /sys/block/$SP/device/timeout
  up() { cut -d' ' -f1 /proc/uptime | cut -d. -f1; }
  timeout 150 $DS bench "/dev/$SP" --tests access,blocksize --budget 20 --progress json --json \
    > /tmp/stall.out 2> /tmp/stall.err &
  pid=$!
  # The host holds the drive once the second test (blocksize: bench runs access first) has
  # started: the first test's result must survive what happens to the second.
  for _ in $(seq 600); do grep -q '"test":"blocksize"' /tmp/stall.err && break; sleep 0.1; done
  echo "@@HOST STALL"; t0=$(up)
  wait $pid; DS_RC=$?; t1=$(up)
  echo "   \$ drivescope bench /dev/$SP --tests access,blocksize (held from the second test) -> exit $DS_RC after $((t1 - t0)) s"
  grep -v '^{' /tmp/stall.err | sed -n '1,4s/^/   | /p'
  check "stall: exit status (the device failed)" 5 "$DS_RC"
  check_true "stall: the error says the device stopped answering" contains "$(grep -v '^{' /tmp/stall.err)" "stopped answering"
  check_true "stall: the held test's error in the document" contains "$(jq -r '.tests.errors.blocksize // empty' /tmp/stall.out 2>/dev/null)" "stopped answering"
  check_true "stall: the test before it kept (access measured)" test "$(jq -r '.tests.access.read.samples // 0' /tmp/stall.out 2>/dev/null)" -gt 0
  check "stall: the run ended there (no positioning check waiting out another 30 s)" \
    "not run: the device stopped answering during blocksize" "$(jq -r '.tests.errors.positioning // empty' /tmp/stall.out 2>/dev/null)"
  check_true "stall: not given up before drivescope's 30 s bound ($((t1 - t0)) s)" test $((t1 - t0)) -ge 29
  # The bound's 30 s, then the exit waits for the held read (the kernel cannot drop an O_DIRECT
  # read in flight): the hold, plus a margin.
  check_true "stall: ended within the hold and its bound ($((t1 - t0)) s, held $STALL_S s)" test $((t1 - t0)) -le $((STALL_S + 30))
else
  vm_skip "stalled drive: not in this disk set (no nbdkit on the host)"
fi

vm_done
