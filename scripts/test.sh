#!/usr/bin/env bash
# Sets up, builds and runs every test: unit, decoder, simulator, measurement and (when QEMU can run
# here) the end-to-end tests on emulated AHCI/IDE/SCSI drives. Then the sanitizer stage
# (scripts/sanitize.sh, its own clang tree build-asan/): the same suite except the QEMU tests under
# AddressSanitizer + UndefinedBehaviorSanitizer, and every fuzz target replaying its seeds and
# fuzzing for FUZZ_SECONDS (default 15) each. The normal results come first; the stage runs even
# when they failed, and the script fails if either did.
# Usage: scripts/test.sh        (DRIVESCOPE_SANITIZE_STAGE=0 skips the sanitizer stage)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
rc=0
ctest --test-dir build --output-on-failure -j"$(nproc)" || rc=$?
if [ "${DRIVESCOPE_SANITIZE_STAGE:-1}" != 0 ]; then
  scripts/sanitize.sh build-asan || rc=1
fi
exit "$rc"
