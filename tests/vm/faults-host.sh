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
#   NTHREAD   EIO on every 7th read the image gets, on AHCI and on virtio-blk: a drive failing
#             now and then. libata and the SCSI layer retry an aborted read, so on AHCI the
#             reader gets its data and only the kernel's counters see the failures; virtio-blk
#             has no retries, so the reader gets the EIO
#   SERVE STALL  sim:raptor served behind nbdkit's pause filter (virtio-scsi): when the guest
#             prints "@@HOST STALL" (once a bench's second test has started), this script
#             pauses the server, so every request from then on is held, and resumes it
#             STALL_S seconds later (left out without nbdkit)
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
# Every Nth read: states 1..N advance on each read (raw's read_aio event); the rule of state N
# fails the read, those of the other states are harmless (block-status, which the guest never
# asks) and only there because blkdebug keeps the last fired rule active until another fires.
NTH=7
{ for s in $(seq 1 $NTH); do
    printf '[set-state]\nstate = "%d"\nevent = "read_aio"\nnew_state = "%d"\n\n' "$s" $((s % NTH + 1))
    io=block-status; [ "$s" -lt $NTH ] || io=read
    printf '[inject-error]\nstate = "%d"\nevent = "read_aio"\niotype = "%s"\nerrno = "5"\n\n' "$s" "$io"
  done; } > "$work/nth.conf"
# The held request's hold: past drivescope's own 30 s reap bound, well inside the guest
# script's 150 s bound per command.
STALL_S=45
printf 'FAULT_LBA=%d\nFAULT_SECTORS=%d\nNTH=%d\nSTALL_S=%d\n' "$FAULT_LBA" "$FAULT_SECTORS" "$NTH" "$STALL_S" > "$work/facts"

# A served drive behind nbdkit's error filter (drivescope serve --filter): every read fails in
# the server, and QEMU hands the NBD error to the guest as the disk's.
served=() server= staller=
if command -v nbdkit >/dev/null && [ -f "$(dirname "$BIN")/nbdkit-drivescope-plugin.so" ]; then
  "$BIN" serve sim:raptor --socket "$work/failing.sock" --filter error --filter-param error=EIO \
    --filter-param error-pread-rate=100% > "$work/serve.out" 2> "$work/serve.err" &
  server=$!
  for _ in $(seq 200); do [ -S "$work/failing.sock" ] && break; sleep 0.05; done
  [ -S "$work/failing.sock" ] || { echo "faults-host: the server did not start:"; cat "$work/serve.err"; exit 1; }
  served=(-d "ahci,nbd=nbd+unix:///?socket=$work/failing.sock,model=SERVE FAILING,serial=FLT0006,rotation_rate=10000")
  "$BIN" serve sim:raptor --socket "$work/stall.sock" --filter pause --filter-param "pause-control=$work/pause.sock" \
    > "$work/stall.out" 2> "$work/stall.err" &
  staller=$!
  for _ in $(seq 200); do [ -S "$work/stall.sock" ] && [ -S "$work/pause.sock" ] && break; sleep 0.05; done
  [ -S "$work/pause.sock" ] || { echo "faults-host: the pausing server did not start:"; cat "$work/stall.err"; exit 1; }
  served+=(-d "virtio-scsi,nbd=nbd+unix:///?socket=$work/stall.sock,vendor=VMTEST,product=SERVE STALL,serial=FLT0009,rotation_rate=10000")
elif [ -n "${DRIVESCOPE_REQUIRE_VM:-}" ]; then
  echo "faults-host: FAIL: nbdkit or drivescope's plugin is missing (scripts/setup.sh installs nbdkit)"; exit 1
else
  echo "faults-host: no nbdkit or plugin: the served failing drive is left out (the guest says so)"
fi
trap 'for p in $server $staller; do kill -TERM "$p"; wait "$p"; done; rm -rf "$work"' EXIT

# pause_ctl p|r — one command to the pause filter's control socket; it answers in capitals
# once done ('P' only after the requests already in the server have completed).
pause_ctl() {
  python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(30); s.connect(sys.argv[1]); s.sendall(sys.argv[2].encode())
print("faults-host: pause filter:", s.recv(1).decode())' "$work/pause.sock" "$1"
}
# Passes the guest's output through; on "@@HOST STALL" holds the served drive for STALL_S s.
relay() {
  local line
  while IFS= read -r line; do
    printf '%s\n' "$line"
    case $line in
      *"@@HOST STALL"*) [ -z "$staller" ] || { pause_ctl p; { sleep "$STALL_S"; pause_ctl r; } & } ;;
    esac
  done
  wait  # the resume still pending, if the guest ended first
}

size=256M
TMPDIR=$work bash "$HERE/vm-run.sh" "${CT[@]}" -t "$T" -b "$BIN" -a "$work/facts:/etc/fault-facts" \
  -d "ahci,size=$size,blkdebug=$work/range.conf,rotation_rate=7200,model=VMTEST BADRANGE,serial=FLT0001" \
  -d "virtio-scsi,size=$size,blkdebug=$work/range.conf,rotation_rate=7200,vendor=VMTEST,product=BADRANGE SCSI,serial=FLT0002" \
  -d "ahci,size=$size,blkdebug=$work/all.conf,rotation_rate=7200,model=VMTEST BADALL,serial=FLT0003" \
  -d "virtio-scsi,size=$size,blkdebug=$work/all.conf,rotation_rate=7200,vendor=VMTEST,product=BADALL SCSI,serial=FLT0004" \
  -d "ahci,size=$size,rotation_rate=7200,model=VMTEST GOOD,serial=FLT0005" \
  -d "ahci,size=$size,blkdebug=$work/nth.conf,rotation_rate=7200,model=VMTEST NTHREAD,serial=FLT0007" \
  -d "virtio-blk,size=$size,blkdebug=$work/nth.conf,serial=FLTNTH08" \
  "${served[@]+"${served[@]}"}" "$HERE/guest-faults.sh" | relay
exit "${PIPESTATUS[0]}"
