#!/usr/bin/env bash
# Builds the whole project with AddressSanitizer and UndefinedBehaviorSanitizer in a separate
# build directory (-DDRIVESCOPE_SANITIZE=ON) and runs every test there except the QEMU ones (label
# "vm": the guest runs the normal binary; a sanitized one would only slow the emulated boot).
# A sanitizer report fails the test that triggered it: UBSan is built with
# -fno-sanitize-recover, ASan aborts on the first error, and leaks count as errors.
# Usage: scripts/sanitize.sh [BUILD_DIR]   (default: build-asan; JOBS=N to limit parallelism)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-asan}
jobs=${JOBS:-$(nproc)}

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDRIVESCOPE_SANITIZE=ON >/dev/null
cmake --build "$build" -j"$jobs"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j"$jobs" -LE vm
