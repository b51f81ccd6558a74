#!/usr/bin/env bash
# safety-host.sh — the safety end-to-end test (issue 7, docs/safety.md): one boot with the four
# default disks plus two scratch disks, tests/vm/guest-safety.sh in the guest, then on the host:
# the SHA-256 of each default disk's image must equal that of an all-zero image of its size
# (vm-run.sh creates them zero-filled), i.e. identify, list, ncq and read-only bench on them
# changed nothing; and the disk the guest was allowed to write must have changed (so the check
# can fail).
# Usage: tests/vm/safety-host.sh [-b BUILD/drivescope] [-S] [-t SECS]
# Exit: 0 passed, 1 a check failed, 2/3 harness error (vm-run.sh), 77 skipped (-S, no QEMU).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/host-lib.sh"
host_args safety-host "$@"
size=256M
# disk0..3: the default set (same models/serials as vm-run.sh's), disk4/5: scratch disks.
TMPDIR=$work bash "$HERE/vm-run.sh" "${CT[@]}" -k -t "$T" -b "$BIN" -o "$work/out" \
  -d "ahci,size=$size,rotation_rate=7200,model=VMTEST AHCI,serial=AHCI0001" \
  -d "ide,size=$size,rotation_rate=5400,model=VMTEST PIIX,serial=PIIX0001" \
  -d "virtio-scsi,size=$size,rotation_rate=10000,vendor=VMTEST,product=VIRTIO SCSI,serial=VSCSI0001" \
  -d "virtio-blk,size=$size,serial=VBLK0001" \
  -d "ahci,size=$size,model=VMTEST SAFEPART,serial=SAFE0001" \
  -d "ahci,size=$size,model=VMTEST SAFEBLANK,serial=SAFE0002" \
  "$HERE/guest-safety.sh"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || exit $rc   # 2/3: harness, 77: skipped
run=$(ls -d "$work"/drivescope-vm.* 2>/dev/null | head -n1)
[ -n "$run" ] || { echo "safety-host: the run directory was not kept" >&2; exit 3; }

zero=$(truncate -s "$size" "$work/zero.img" && sha256sum < "$work/zero.img" | cut -d' ' -f1)
fail=0
names=("AHCI" "PIIX" "virtio-scsi" "virtio-blk" "SAFE PART" "SAFE BLANK")
for i in 0 1 2 3; do
  h=$(sha256sum < "$run/disk$i.img" | cut -d' ' -f1)
  if [ "$h" = "$zero" ]; then echo "ok   image of ${names[$i]} unchanged after the read-only run (sha256 $h)"
  else echo "FAIL image of ${names[$i]} changed by a read-only run: sha256 $h, expected $zero"; fail=1; fi
done
h=$(sha256sum < "$run/disk5.img" | cut -d' ' -f1)
if [ "$h" != "$zero" ]; then echo "ok   image of SAFE BLANK changed by the allowed write test"
else echo "FAIL image of SAFE BLANK unchanged although the guest was allowed to write"; fail=1; fi
[ $rc -eq 0 ] && [ $fail -eq 0 ]
