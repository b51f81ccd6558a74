#!/usr/bin/env bash
# Sets up, builds and runs every test: unit, decoder, simulator, measurement and the end-to-end
# tests on emulated AHCI/IDE/SCSI drives in QEMU guests (QEMU and a guest kernel installed if missing). Then the sanitizer stage
# (scripts/sanitize.sh, its own clang tree build-asan/): the same suite except the QEMU tests under
# AddressSanitizer + UndefinedBehaviorSanitizer, and every fuzz target replaying its seeds and
# fuzzing for FUZZ_SECONDS (default 15) each. The normal results come first; the stage runs even
# when they failed, and the script fails if either did.
# Usage: scripts/test.sh        (DRIVESCOPE_SANITIZE_STAGE=0 skips the sanitizer stage;
#                                DRIVESCOPE_REQUIRE_VM= lets the QEMU tests skip where QEMU is missing)
set -euo pipefail
cd "$(dirname "$0")/.."
# The end-to-end tests in QEMU guests (and the serve, schema and Prometheus checks) are part of
# "every test": their tools are installed (apt, the guest kernel fetched) and a missing one fails.
# DRIVESCOPE_REQUIRE_VM= (set, empty) lets them skip visibly instead (exit 77, "skipped" in ctest).
export DRIVESCOPE_REQUIRE_VM=${DRIVESCOPE_REQUIRE_VM-1}
scripts/setup.sh build
rc=0
ctest --test-dir build --output-on-failure -j"$(nproc)" || rc=$?
if [ "${DRIVESCOPE_SANITIZE_STAGE:-1}" != 0 ]; then
  scripts/sanitize.sh build-asan || rc=1
fi
exit "$rc"
