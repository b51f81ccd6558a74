#!/bin/sh
# Measure every simulated drive (the DiskSim model files in tests/data/disk-models and every
# simulator preset) with the bench tests and write measured-vs-truth tables to docs/accuracy.md.
# Usage: scripts/accuracy.sh [BUILD_DIR]   (default: build; configured and built as needed)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target ds_measure ds_sim ds_io ds_api >/dev/null
# The driver is small and links only the measurement modules, the simulator and ds_io (histograms).
c++ -std=c++20 -O2 -I"$root/include" -I"$root/src" -I"$root/tools/accuracy" \
  "$root/tools/accuracy/accuracy.cpp" "$build/libds_measure.a" "$build/libds_sim.a" \
  "$build/libds_io.a" "$build/libds_api.a" -lfmt -o "$build/ds_accuracy"
"$build/ds_accuracy" "$root/tests/data" > "$root/docs/accuracy.md.tmp"
mv "$root/docs/accuracy.md.tmp" "$root/docs/accuracy.md"
grep '^Criteria passed' "$root/docs/accuracy.md"
