#!/bin/sh
# The seven traced drives' full models (tests/data/disk-models-disksim/NAME.json) are
# `drivescope sim import` of DiskSim's own files (tests/data/disksim/native/): this writes them,
# or with --check imports them again and fails on any byte that differs from the committed file
# (and imports each drive's source form, tests/data/disksim/NAME.json, which must succeed).
# interface_mb_s is no DiskSim parameter: the SCSI generation of each drive's era is given here.
# Usage: scripts/disksim-models.sh [--check] DRIVESCOPE
set -eu
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
[ $# -eq 1 ] || { echo "usage: $0 [--check] DRIVESCOPE" >&2; exit 2; }
ds=$1
root=$(cd "$(dirname "$0")/.." && pwd)
native=$root/tests/data/disksim/native
out=$root/tests/data/disk-models-disksim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# native name : model name : interface MB/s
for d in hp_c2247a:hp_c2247a:10 hp_c2490a:hp_c2490a:10 dec_rz26:dec_rz26:10 st41601n:seagate_st41601n:10 \
         atlas_III:quantum_qm39100td_atlas3:40 cheetah4LP:seagate_st34501n_cheetah4lp:40 \
         cheetah9LP:seagate_st39102lw_cheetah9lp:80; do
  parv=${d%%:*} rest=${d#*:}
  model=${rest%%:*} rate=${rest#*:}
  "$ds" sim import "$native/$parv.parv" --interface-mb-s "$rate" -o "$tmp/$model.json" 2>/dev/null >/dev/null
  if [ $check -eq 1 ]; then
    # The source form of the same drive imports too, and says what it has no values for.
    if ! "$ds" sim import "$root/tests/data/disksim/$model.json" --interface-mb-s "$rate" --json 2>/dev/null |
        grep -q 'the source form holds no bus'; then
      echo "FAILED: sim import of the source form $model.json" >&2
      fail=1
    fi
    if cmp -s "$tmp/$model.json" "$out/$model.json"; then
      echo "ok: $model.json is sim import's output"
    else
      echo "DIFFERS: $model.json is not what sim import of $parv.parv gives:" >&2
      diff "$out/$model.json" "$tmp/$model.json" | head -20 >&2 || true
      fail=1
    fi
  else
    cp "$tmp/$model.json" "$out/$model.json"
    echo "wrote $out/$model.json"
  fi
done
exit $fail
