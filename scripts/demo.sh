#!/usr/bin/env bash
# Sets up, builds, and runs drivescope's main job on the built-in simulated drive.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build >&2
build/drivescope identify sim:raptor
echo
exec build/drivescope bench sim:raptor "$@"
