#!/usr/bin/env bash
# Sets up, builds, and runs drivescope's main job on the built-in simulated drive.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build >&2
exec build/drivescope identify sim:raptor "$@"
