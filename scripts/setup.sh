#!/usr/bin/env bash
# Installs what drivescope needs to build and test on Debian 12, then configures and builds it.
# Usage: scripts/setup.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

pkgs=(build-essential cmake ninja-build pkg-config
      libsgutils2-dev libatasmart-dev libaio-dev libfmt-dev doctest-dev nlohmann-json3-dev libcli11-dev
      sg3-utils hdparm smartmontools fio gnuplot-nox
      python3 python3-jsonschema prometheus  # tools/fnlen, ctest schema (JSON output vs docs/schema), promtool for --prom
      clang libclang-rt-14-dev llvm-14  # sanitizer + libFuzzer stage (scripts/sanitize.sh)
      nbdkit nbdkit-plugin-dev qemu-utils libnbd-bin)  # drivescope serve and its test (docs/serve.md)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Ninja rather than make: on two cores it keeps both busy across target boundaries (a target's
# files compile while the libraries it links are still being built). A tree configured before
# keeps its generator (CMake cannot switch one).
gen=()
[ -f "$build/CMakeCache.txt" ] || ! command -v ninja >/dev/null || gen=(-G Ninja)
cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${DRIVESCOPE_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"
