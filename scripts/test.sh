#!/usr/bin/env bash
# Sets up, builds and runs every test: unit, decoder, simulator, measurement and (when QEMU can run
# here) the end-to-end tests on emulated AHCI/IDE/SCSI drives.
# Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
ctest --test-dir build --output-on-failure -j"$(nproc)"
