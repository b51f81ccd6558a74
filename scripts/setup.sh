#!/usr/bin/env bash
# Installs what drivescope needs to build (and, unless targets are named, to test) on Debian 12,
# then configures and builds it.
# Usage: scripts/setup.sh [BUILD_DIR [TARGET...]]   (default: build, every target)
#   With TARGETs (scripts/demo.sh: drivescope) only the packages the build needs are installed and
#   only those targets are built; without, also what the tests run and everything is built.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
targets=("${@:2}")

# What configuring and building the binary (and its nbdkit plugin) needs; python3 for tools/fnlen,
# dpkg-dev for `cpack -G DEB` (dpkg-shlibdeps finds the package's Depends).
pkgs=(build-essential cmake ninja-build pkg-config dpkg-dev python3
      libsgutils2-dev libatasmart-dev libnvme-dev libaio-dev libfmt-dev doctest-dev nlohmann-json3-dev libcli11-dev
      nbdkit-plugin-dev)
if [ ${#targets[@]} -eq 0 ]; then
  pkgs+=(sg3-utils hdparm smartmontools fio gnuplot-nox
         python3-jsonschema prometheus  # ctest schema (JSON output vs docs/schema), promtool for --prom
         clang libclang-rt-14-dev llvm-14  # sanitizer + libFuzzer stage (scripts/sanitize.sh)
         nbdkit qemu-utils libnbd-bin)  # drivescope serve and its test (docs/serve.md)
fi
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
# Building named targets only (the demo) is the quick build: -O1, no debug information, precompiled
# headers (CMakeLists.txt, DRIVESCOPE_QUICK_BUILD); building everything puts the default flags back.
quick=OFF
[ ${#targets[@]} -eq 0 ] || quick=ON
cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDRIVESCOPE_QUICK_BUILD=$quick \
  ${DRIVESCOPE_CMAKE_ARGS:-} >/dev/null
target_args=()
for t in "${targets[@]}"; do target_args+=(--target "$t"); done
cmake --build "$build" -j"$(nproc)" "${target_args[@]}"
