#!/usr/bin/env bash
# faults-host.sh — drivescope on failing drives through a real kernel (ctest vm-faults, label vm;
# issue 31 item 4, docs/safety.md): QEMU's blkdebug driver under emulated AHCI and virtio-scsi
# disks makes them fail reads the way a drive with bad sectors does, and tests/vm/guest-faults.sh
# runs every command that reads the media against them in the guest.
#   BADRANGE  EIO on every read that touches sectors FAULT_LBA .. FAULT_LBA+FAULT_SECTORS-1
#             (one blkdebug rule a sector: a rule matches a request that covers its sector)
#   BADALL    EIO on every read (what a drive whose heads no longer read does); IDENTIFY and the
#             other commands QEMU answers itself still work, as they do on such a drive
#   SERVE FAILING  sim:raptor served by `drivescope serve --filter error`: every read fails in
#             nbdkit, and the guest's kernel sees a failing disk (left out without nbdkit)
# Usage: tests/vm/faults-host.sh [-b BUILD/drivescope] [-S] [-t SECS]
# Exit: 0 passed, 1 a check failed, 2/3 harness error (vm-run.sh), 77 skipped (-S, no QEMU).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/host-lib.sh"
host_args faults-host "$@"
# 128 MiB into the disk, 64 sectors: past what the kernel reads when it looks for partitions.
FAULT_LBA=262144 FAULT_SECTORS=64
{ for s in $(seq "$FAULT_LBA" $((FAULT_LBA + FAULT_SECTORS - 1))); do
    printf '[inject-error]\nevent = "none"\niotype = "read"\nerrno = "5"\nsector = "%d"\n\n' "$s"
  done; } > "$work/range.conf"
printf '[inject-error]\nevent = "none"\niotype = "read"\nerrno = "5"\n' > "$work/all.conf"
printf 'FAULT_LBA=%d\nFAULT_SECTORS=%d\n' "$FAULT_LBA" "$FAULT_SECTORS" > "$work/facts"

# A served drive behind nbdkit's error filter (drivescope serve --filter): every read fails in
# the server, and QEMU hands the NBD error to the guest as the disk's.
served=() server=
if command -v nbdkit >/dev/null && [ -f "$(dirname "$BIN")/nbdkit-drivescope-plugin.so" ]; then
  "$BIN" serve sim:raptor --socket "$work/failing.sock" --filter error --filter-param error=EIO \
    --filter-param error-pread-rate=100% > "$work/serve.out" 2> "$work/serve.err" &
  server=$!
  for _ in $(seq 200); do [ -S "$work/failing.sock" ] && break; sleep 0.05; done
  [ -S "$work/failing.sock" ] || { echo "faults-host: the server did not start:"; cat "$work/serve.err"; exit 1; }
  served=(-d "ahci,nbd=nbd+unix:///?socket=$work/failing.sock,model=SERVE FAILING,serial=FLT0006,rotation_rate=10000")
elif [ -n "${DRIVESCOPE_REQUIRE_VM:-}" ]; then
  echo "faults-host: FAIL: nbdkit or drivescope's plugin is missing (scripts/setup.sh installs nbdkit)"; exit 1
else
  echo "faults-host: no nbdkit or plugin: the served failing drive is left out (the guest says so)"
fi
trap '[ -z "$server" ] || { kill -TERM "$server"; wait "$server"; }; rm -rf "$work"' EXIT

size=256M
TMPDIR=$work bash "$HERE/vm-run.sh" "${CT[@]}" -t "$T" -b "$BIN" -a "$work/facts:/etc/fault-facts" \
  -d "ahci,size=$size,blkdebug=$work/range.conf,rotation_rate=7200,model=VMTEST BADRANGE,serial=FLT0001" \
  -d "virtio-scsi,size=$size,blkdebug=$work/range.conf,rotation_rate=7200,vendor=VMTEST,product=BADRANGE SCSI,serial=FLT0002" \
  -d "ahci,size=$size,blkdebug=$work/all.conf,rotation_rate=7200,model=VMTEST BADALL,serial=FLT0003" \
  -d "virtio-scsi,size=$size,blkdebug=$work/all.conf,rotation_rate=7200,vendor=VMTEST,product=BADALL SCSI,serial=FLT0004" \
  -d "ahci,size=$size,rotation_rate=7200,model=VMTEST GOOD,serial=FLT0005" \
  "${served[@]+"${served[@]}"}" "$HERE/guest-faults.sh"
