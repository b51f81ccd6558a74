# guest-ncq.sh — `drivescope ncq` on QEMU's emulated drives: the AHCI disk claims NCQ (depth 32)
# and libata enables it (queue_depth 32), but QEMU has no mechanics, so effectiveness must be
# reported as inconclusive; the PIIX disk claims nothing; writing 1 to the AHCI disk's
# device/queue_depth must be seen as "claimed, not enabled". The scheduler must be switched to
# none for the measurement and put back afterwards.
. "$VMTEST_LIB"

DS=drivescope
command -v $DS >/dev/null || { echo "FAIL drivescope is not in the guest (vm-run.sh -b)"; VM_FAIL=1; vm_done; }

# ds_ncq BLK TAG — `drivescope ncq --json` with a short budget; document in /tmp/ncq-TAG.json.
ds_ncq() {
  $DS ncq --json --budget 2 --max-depth 32 --state-dir /tmp/ds-state "/dev/$1" > "/tmp/ncq-$2.json" 2> "/tmp/ncq-$2.err"
  NCQ_RC=$?
  vm_export "ncq-$2.json" "/tmp/ncq-$2.json"
  if ! jq -e . "/tmp/ncq-$2.json" > /dev/null 2>&1; then
    echo "   drivescope ncq /dev/$1: exit $NCQ_RC, not JSON"; sed 's/^/   | /' "/tmp/ncq-$2.json" "/tmp/ncq-$2.err"
  fi
}

ahci=$(vm_disk_by_model "VMTEST AHCI")
piix=$(vm_disk_by_model "VMTEST PIIX")

vm_section "ncq: AHCI disk (/dev/$ahci)"
if [ -n "$ahci" ]; then
  sched_before=$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$ahci/queue/scheduler")
  ds_ncq "$ahci" ahci
  j=/tmp/ncq-ahci.json
  check "ahci exit" 0 "$NCQ_RC"
  check "ahci claimed" true "$(jget $j .ncq.claimed.supported)"
  check "ahci claimed depth" 32 "$(jget $j .ncq.claimed.depth)"
  check "ahci enabled" true "$(jget $j .ncq.enabled.enabled)"
  check "ahci host depth" 32 "$(jget $j .ncq.enabled.queue_depth)"
  check "ahci effective (no mechanics)" null "$(jget $j .ncq.effective.reorders)"
  # QEMU answers either fast (no positioning cost) or, on a loaded host, slowly but in parallel
  # from its thread pool: both are "inconclusive", never "reorders".
  check_true "ahci: no positioning cost or parallel service" contains \
    "$(jget $j .ncq.effective.no_positioning_cost) $(jget $j .ncq.effective.parallel_service)" true
  check "ahci summary" "claimed, enabled, effectiveness inconclusive" "$(jget $j .ncq.summary)"
  check_true "ahci sentence says inconclusive" contains "$(jget $j .ncq.sentence)" "effectiveness inconclusive: \(no positioning cost to save\|the device serves requests in parallel\)"
  if [ "$sched_before" != none ]; then
    check "ahci measured with scheduler" none "$(jget $j .ncq.enabled.scheduler)"
  else
    vm_skip "scheduler was already none"
  fi
  check "ahci scheduler restored" "$sched_before" "$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$ahci/queue/scheduler")"
  vm_note "depth-1 mean $(jget $j .tests.queue.depths.0.mean_ms) ms, IOPS gain x$(jget $j .tests.queue.iops_gain)"

  vm_section "ncq: AHCI disk with queue_depth 1"
  qd_before=$(cat "/sys/block/$ahci/device/queue_depth")
  if echo 1 > "/sys/block/$ahci/device/queue_depth" 2>/dev/null; then
    ds_ncq "$ahci" ahci-qd1
    j=/tmp/ncq-ahci-qd1.json
    check "qd1 claimed" true "$(jget $j .ncq.claimed.supported)"
    check "qd1 enabled" false "$(jget $j .ncq.enabled.enabled)"
    check "qd1 host depth" 1 "$(jget $j .ncq.enabled.queue_depth)"
    check_true "qd1 summary starts 'claimed, not enabled'" contains "$(jget $j .ncq.summary)" "^claimed, not enabled"
    check_true "qd1 sentence" contains "$(jget $j .ncq.sentence)" "not enabled by the host (queue depth 1)"
    echo "$qd_before" > "/sys/block/$ahci/device/queue_depth"
  else
    vm_skip "queue_depth not writable"
  fi
else
  echo "FAIL no AHCI disk"; VM_FAIL=$((VM_FAIL + 1))
fi

vm_section "ncq: PIIX disk (/dev/$piix)"
if [ -n "$piix" ]; then
  ds_ncq "$piix" piix
  j=/tmp/ncq-piix.json
  check "piix claimed" false "$(jget $j .ncq.claimed.supported)"
  check "piix enabled" false "$(jget $j .ncq.enabled.enabled)"
  check_true "piix summary starts 'not claimed'" contains "$(jget $j .ncq.summary)" "^not claimed"
else
  echo "FAIL no PIIX disk"; VM_FAIL=$((VM_FAIL + 1))
fi

vm_done
