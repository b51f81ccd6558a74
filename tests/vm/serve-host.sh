#!/usr/bin/env bash
# The guest test of `drivescope serve` (ctest vm-serve, label vm): the host serves sim:raptor (TCQ,
# SPTF) and sim:wd1200jd (no queue) in real time, a QEMU guest gets them as AHCI disks and a
# second raptor as a virtio-scsi disk (tests/vm/vm-run.sh nbd=), and tests/vm/serve-guest.sh
# checks them there: size, rotational, `drivescope ncq`'s verdict and the read-queuing test
# (`bench --tests queue`) through a real kernel. The servers must stop with status 0 on SIGTERM
# afterwards. Servers and QEMU run under SCHED_FIFO where this user may (--realtime, vm-run.sh
# -R; docs/serve.md), else at normal priority, as the guest's checks allow for.
# Usage: serve-host.sh [-S] -b DRIVESCOPE [-t SECS]. -S: exit 77 (skip) when nbdkit or QEMU is
# missing, unless DRIVESCOPE_REQUIRE_VM is set.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
ctest_mode= ds= secs=240
while getopts Sb:t: o; do
  case $o in S) ctest_mode=-S ;; b) ds=$OPTARG ;; t) secs=$OPTARG ;; *) exit 2 ;; esac
done
[ -x "$ds" ] || { echo "serve-host: -b DRIVESCOPE is required"; exit 2; }
if ! command -v nbdkit >/dev/null || [ ! -f "$(dirname "$ds")/nbdkit-drivescope-plugin.so" ]; then
  [ -n "$ctest_mode" ] && [ -z "${DRIVESCOPE_REQUIRE_VM:-}" ] && { echo "serve-host: SKIPPED: no nbdkit or plugin"; exit 77; }
  echo "serve-host: FAIL: nbdkit or the plugin is missing (scripts/setup.sh installs nbdkit)"; exit 1
fi
tmp=$(mktemp -d)
pids=() names=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
serve() {  # serve NAME: sim:NAME on $tmp/NAME.sock
  "$ds" serve "sim:${1%-*}" "${rt[@]+"${rt[@]}"}" --socket "$tmp/$1.sock" > "$tmp/$1.out" 2> "$tmp/$1.err" &
  pids+=($!) names+=("$1")
}
rt=()
chrt -f 1 true 2>/dev/null && rt=(--realtime)
serve raptor; serve wd1200jd; serve raptor-vs
for _ in $(seq 200); do
  [ -S "$tmp/raptor.sock" ] && [ -S "$tmp/wd1200jd.sock" ] && [ -S "$tmp/raptor-vs.sock" ] && break
  sleep 0.05
done
bytes() { python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(m['capacity_sectors']*m['logical_sector_bytes'])" "$1"; }
{ echo "RAPTOR_BYTES=$(bytes "$src/models/raptor.json")"; echo "WD1200JD_BYTES=$(bytes "$src/models/wd1200jd.json")"; } > "$tmp/facts"
uri() { echo "nbd+unix:///?socket=$tmp/$1.sock"; }
bash "$here/vm-run.sh" $ctest_mode -R -t "$secs" -b "$ds" -a "$tmp/facts:/etc/serve-facts" \
  -d "ahci,nbd=$(uri raptor),model=SERVE RAPTOR,serial=SRV0001,rotation_rate=10000" \
  -d "ahci,nbd=$(uri wd1200jd),model=SERVE WD1200JD,serial=SRV0002,rotation_rate=7200" \
  -d "virtio-scsi,nbd=$(uri raptor-vs),product=SERVE RAPTOR VS,serial=SRV0003,rotation_rate=10000" \
  "$here/serve-guest.sh"
rc=$?
for i in "${!pids[@]}"; do
  kill -TERM "${pids[$i]}"; wait "${pids[$i]}"; src_rc=$?
  grep -h "drivescope: served" "$tmp/${names[$i]}.err" | sed "s/^/serve-host: ${names[$i]}: /"
  [ $src_rc -eq 0 ] || { echo "serve-host: FAIL: a server exited $src_rc on SIGTERM"; [ $rc -eq 0 ] && rc=1; }
done
pids=()
exit $rc
