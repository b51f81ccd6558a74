#!/bin/sh
# drivescope through a real kernel, the long form of the ctest vm-serve-bench: RUNS boots of a QEMU
# guest (default 5) whose AHCI disk is sim:raptor served in real time, each running bench
# (access, transfer) with a longer budget and the scheduler A/B with more rounds, judged against
# tools/truth (tests/vm/serve-bench-host.sh -L). Their summary replaces the section "Through a real
# kernel" at the end of docs/accuracy.md (scripts/accuracy.sh keeps that section as it is).
# Usage: scripts/serve-accuracy.sh [BUILD_DIR]   (environment: RUNS)
# Needs QEMU, nbdkit and real-time priority (root or CAP_SYS_NICE); half an hour on two cores.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bash "$root/tests/vm/serve-bench-host.sh" -b "$build/drivescope" -L "${RUNS:-5}" -o "$out" || true
[ -s "$out/accuracy-kernel.md" ] || { echo "serve-accuracy: no summary written" >&2; exit 1; }
doc=$root/docs/accuracy.md
{ sed '/^## Through a real kernel$/,$d' "$doc"; cat "$out/accuracy-kernel.md"; } > "$doc.tmp"
mv "$doc.tmp" "$doc"
echo "docs/accuracy.md: section \"Through a real kernel\" written from ${RUNS:-5} runs"
