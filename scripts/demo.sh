#!/usr/bin/env bash
# Sets up, builds, and runs drivescope's main job on the built-in simulated drive. Only the
# drivescope target is built (with its nbdkit plugin), not the tests: scripts/test.sh builds those.
# It is the quick build (-O1, no debug information, precompiled headers), which computes the same
# figures; scripts/test.sh rebuilds build/ with the default flags.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build drivescope >&2
build/drivescope identify sim:raptor
echo
exec build/drivescope bench sim:raptor "$@"
