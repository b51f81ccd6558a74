#!/usr/bin/env bash
# A twin through a real kernel (ctest vm-twin, label vm; issue "A drive's twin"): the host serves
# a preset in real time (drivescope serve), a QEMU guest has it as an AHCI disk and runs
# tests/vm/twin-guest.sh: `drivescope model` on the guest's disk (the drive and the host path
# together, as a user's twin of a disk in a VM would be), then the two read traces of
# tests/vm/twin-traces.py replayed on the disk. tests/vm/twin-judge.py replays the same traces on
# the twin (virtual time) and on the preset itself, and reports each demerit against what the guest
# saw, as a percentage of the guest's mean service time: the twin's, and the host's share (the
# preset without the host path).
# Needs real-time priority, as the other timing tests through a guest (docs/serve.md).
# Usage: twin-host.sh [-S] -b DRIVESCOPE [-t SECS] [-p PRESET] [-B MODEL_BUDGET] [-n REQUESTS] [-o DIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
ctest_mode= ds= secs=600 preset=wd1200jd budget=120 n=400 keep=
while getopts Sb:t:p:B:n:o: o; do
  case $o in S) ctest_mode=-S ;; b) ds=$OPTARG ;; t) secs=$OPTARG ;; p) preset=$OPTARG ;; B) budget=$OPTARG ;;
             n) n=$OPTARG ;; o) keep=$OPTARG ;; *) exit 2 ;; esac
done
[ -x "$ds" ] || { echo "twin-host: -b DRIVESCOPE is required"; exit 2; }
NAME=twin-host; . "$here/served-lib.sh"
served_prerequisites

tmp=$(mktemp -d)
out=${keep:-$tmp/out}
mkdir -p "$out"
trap served_cleanup EXIT

"$ds" sim show "$preset" > "$out/preset.json" || { echo "twin-host: FAIL: no preset $preset"; exit 1; }
capacity=$(python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(m['capacity_sectors']*m['logical_sector_bytes'])" "$out/preset.json")
python3 "$here/twin-traces.py" "$capacity" "$n" 1 "$out" || { echo "twin-host: FAIL: traces"; exit 1; }
printf 'PRESET=%s\nMODEL_BUDGET=%s\nTRACE_REQUESTS=%s\n' "$preset" "$budget" "$n" > "$out/twin.conf"

served_start "sim:$preset" "$tmp/drive.sock" "$out"
bash "$here/vm-run.sh" $ctest_mode -R -t "$secs" -b "$ds" -o "$out" -a "$out/twin.conf:/etc/twin.conf" \
  -a "$out/twin-random4k.iolog:/etc/twin-random4k.iolog" -a "$out/twin-database.iolog:/etc/twin-database.iolog" \
  -d "ahci,nbd=nbd+unix:///?socket=$tmp/drive.sock,model=SERVE TWIN,serial=SRV0009,rotation_rate=7200" \
  "$here/twin-guest.sh" 2>&1 | tee "$out/vm.log"
served_stop "$out" "${PIPESTATUS[0]}" || exit
python3 "$here/twin-judge.py" --drivescope "$ds" --preset "$preset" --dir "$out"
