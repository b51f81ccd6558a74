#!/bin/sh
# Measure every simulated drive (the DiskSim model files in tests/data/disk-models and every
# simulator preset, each as it is and as a /2 variant) over several seeds, judge each run
# against the independent truth (tools/truth) and write docs/accuracy.md. The file's last section,
# "Through a real kernel" (drivescope through a QEMU guest's kernel, from scripts/serve-accuracy.sh),
# is not ds_accuracy's: it is kept as it is, at the end.
# Usage: scripts/accuracy.sh [BUILD_DIR] [ds_accuracy options]
#   options: --seeds N (20)  --only NAME[,NAME]  --budget S[,S...] (120)  --variants v1,v2
#            --jobs 1|2 (2)  --runs-json FILE
# CPU-heavy: a run costs a few CPU seconds; the full default (17 drives × 2 variants × 20 seeds)
# takes hours on two cores. Progress goes to stderr.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
case ${1:-} in --*|'') ;; *) build=$1; shift ;; esac
[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target ds_accuracy >/dev/null
"$build/ds_accuracy" --data "$root/tests/data" "$@" > "$root/docs/accuracy.md.tmp"
if grep -q '^## Through a real kernel$' "$root/docs/accuracy.md" 2>/dev/null; then
  { echo; sed -n '/^## Through a real kernel$/,$p' "$root/docs/accuracy.md"; } >> "$root/docs/accuracy.md.tmp"
fi
mv "$root/docs/accuracy.md.tmp" "$root/docs/accuracy.md"
below=$(grep -c '| \*\*no\*\* |' "$root/docs/accuracy.md" || true)
echo "docs/accuracy.md written; $below criterion rows below the 95 % pass rate"
