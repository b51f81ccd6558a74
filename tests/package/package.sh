#!/bin/sh
# The Debian package end to end (ctest `package`, issue 32): `cpack -G DEB` of the build tree makes
# drivescope_VERSION_ARCH.deb; its contents and Depends are checked (dpkg-deb -c/-f), it is
# installed (dpkg -i), the installed /usr/bin/drivescope is run (presets, a bench, the nbdkit
# plugin that serve finds, the man page, the completion), and it is purged again, leaving the
# machine as it was. Skipped (77) when not root, without dpkg or cpack, or when a drivescope
# package or any of its files is already on the machine (it would be replaced, then removed).
# Usage: package.sh BUILD_DIR CPACK SOURCE_DIR WORK_DIR
set -eu
build=$1 cpack=$2 src=$3 work=$4

skip() { echo "package: skipped: $*"; exit 77; }
fail() { echo "package: FAIL: $*"; status=1; }
status=0
[ "$(id -u)" -eq 0 ] || skip "not root: dpkg -i needs root"
for t in dpkg dpkg-deb dpkg-query dpkg-shlibdeps readelf "$cpack"; do
  command -v "$t" >/dev/null 2>&1 || skip "$t not found (Debian: dpkg-dev, binutils, cmake)"
done
if dpkg-query -W -f='${Status}\n' drivescope 2>/dev/null | grep -qv '^unknown\|not-installed'; then
  skip "a drivescope package is already installed: refusing to replace and purge it"
fi

rm -rf "$work"
mkdir -p "$work"
# -B: the package and CPack's staging tree go to the work directory, not the build tree.
"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$work" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; echo "package: FAIL: cpack -G DEB"; exit 1; }
arch=$(dpkg --print-architecture)
set -- "$work"/drivescope_*.deb
[ -f "$1" ] || { cat "$work/cpack.log"; echo "package: FAIL: no drivescope_*.deb in $work"; exit 1; }
deb=$1
version=$(dpkg-deb -f "$deb" Version)
if [ "$(basename "$deb")" != "drivescope_${version}_${arch}.deb" ]; then
  fail "named $(basename "$deb"), not drivescope_${version}_${arch}.deb"
fi
echo "package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB"

# --- contents: what the install rules promise, under /usr, and nothing else.
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' | grep -v '/$' | sort >"$work/files"
expect() { if ! grep -qx "$1" "$work/files"; then fail "no $1 in the package"; fi; }
expect /usr/bin/drivescope
expect /usr/lib/drivescope/nbdkit-drivescope-plugin.so
expect /usr/share/man/man1/drivescope.1.gz
expect /usr/share/bash-completion/completions/drivescope
for m in "$src"/models/*.json; do expect "/usr/share/drivescope/models/$(basename "$m")"; done
for s in "$src"/docs/schema/*.schema.json; do expect "/usr/share/drivescope/$(basename "$s")"; done
grep -v '^/usr/bin/drivescope$\|^/usr/lib/drivescope/\|^/usr/share/man/man1/drivescope\.1\.gz$\|^/usr/share/bash-completion/completions/drivescope$\|^/usr/share/drivescope/' \
  "$work/files" >"$work/extra" || true
if [ -s "$work/extra" ]; then fail "files nobody asked for: $(tr '\n' ' ' <"$work/extra")"; fi
echo "package: $(wc -l <"$work/files") files, all where they belong"

# --- Depends: every shared library the binary and the plugin load is a Depends of its package
# (dpkg-shlibdeps), so apt installs them; nbdkit and gnuplot are recommended.
depends=$(dpkg-deb -f "$deb" Depends)
recommends=$(dpkg-deb -f "$deb" Recommends)
echo "package: Depends: $depends"
echo "package: Recommends: $recommends"
dpkg-deb -x "$deb" "$work/root"
# The package of a library file: with Debian's merged /usr a file is known to dpkg under /lib or
# /usr/lib, as its package shipped it.
owner_of() {
  for p in "$1" "$(readlink -f "$1")" "/usr$1" "${1#/usr}"; do
    o=$(dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1)
    if [ -n "$o" ]; then echo "$o"; return; fi
  done
}
for elf in "$work/root/usr/bin/drivescope" "$work/root/usr/lib/drivescope/nbdkit-drivescope-plugin.so"; do
  for lib in $(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')
    if [ -z "$path" ]; then fail "$(basename "$elf") needs $lib, which this machine does not have"; continue; fi
    owner=$(owner_of "$path")
    if [ -z "$owner" ]; then fail "no package owns $path ($lib)"; continue; fi
    if ! echo "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//; s/:.*//' | grep -qx "$owner"; then
      fail "$(basename "$elf") needs $lib ($owner), not in Depends"
    fi
  done
done
for r in nbdkit gnuplot-nox; do
  if ! echo "$recommends" | tr ',|' '\n\n' | sed 's/^ *//; s/ .*//' | grep -qx "$r"; then fail "$r is not recommended"; fi
done

# --- install, but not over files of anyone else's.
while read -r f; do
  if [ -e "$f" ]; then skip "$f is already on this machine (not from a drivescope package): refusing to overwrite it"; fi
done <"$work/files"
# Known to dpkg in any state but not-installed (a failed dpkg -i leaves it half-installed).
known() { dpkg-query -W -f='${Status}\n' drivescope 2>/dev/null | grep -qv 'not-installed$'; }
cleanup() {
  if known; then
    dpkg --purge drivescope >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; echo "package: FAIL: dpkg --purge"; }
  fi
}
trap cleanup EXIT
dpkg -i "$deb" >"$work/install.log" 2>&1 || { cat "$work/install.log"; echo "package: FAIL: dpkg -i"; exit 1; }
echo "package: installed"

ds=/usr/bin/drivescope
# The presets are built in: sim list names every model file the package carries.
"$ds" sim list >"$work/sim-list.txt" 2>&1 || fail "drivescope sim list: exit $?"
for m in "$src"/models/*.json; do
  name=$(basename "$m" .json)
  if ! grep -q "^ *$name\b" "$work/sim-list.txt"; then fail "sim list does not name the preset $name"; fi
done
# An installed model file is a model like any other.
if ! "$ds" identify sim:/usr/share/drivescope/models/raptor.json >/dev/null 2>&1; then
  fail "identify of the installed raptor.json"
fi
if "$ds" bench sim:raptor --budget 2 >"$work/bench.txt" 2>&1; then
  if ! grep -q "^transfer\|^access" "$work/bench.txt"; then fail "bench printed no test"; fi
  echo "package: bench sim:raptor --budget 2 from /usr/bin: exit 0"
else
  cat "$work/bench.txt"; fail "bench sim:raptor --budget 2"
fi
# serve finds the installed plugin (bin/../lib/drivescope); it needs nbdkit, a Recommends.
if command -v nbdkit >/dev/null 2>&1; then
  "$ds" serve sim:raptor --socket "$work/raptor.sock" >"$work/serve.txt" 2>&1 &
  pid=$!
  i=0
  while [ $i -lt 50 ] && ! grep -q "NBD URI" "$work/serve.txt"; do sleep 0.1; i=$((i + 1)); done
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" || true
  if ! grep -q "NBD URI" "$work/serve.txt"; then cat "$work/serve.txt"; fail "serve did not start from /usr/bin"; fi
  echo "package: serve started with /usr/lib/drivescope/nbdkit-drivescope-plugin.so"
else
  echo "package: nbdkit not installed: serve's plugin lookup not tried"
fi
if command -v man >/dev/null 2>&1; then
  if [ "$(man -w drivescope 2>/dev/null)" != /usr/share/man/man1/drivescope.1.gz ]; then
    fail "man -w drivescope: '$(man -w drivescope 2>&1)'"
  fi
  echo "package: man -w drivescope: /usr/share/man/man1/drivescope.1.gz"
else
  echo "package: man not installed: man -w not tried"
fi
if ! bash -c '. /usr/share/bash-completion/completions/drivescope && complete -p drivescope' >/dev/null 2>&1; then
  fail "the installed completion does not register for drivescope"
fi

# --- purge: nothing of it left.
trap - EXIT
dpkg --purge drivescope >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; fail "dpkg --purge"; }
while read -r f; do if [ -e "$f" ]; then fail "$f still there after dpkg --purge"; fi; done <"$work/files"
for d in /usr/lib/drivescope /usr/share/drivescope; do
  if [ -e "$d" ]; then fail "$d still there after dpkg --purge"; fi
done
if known; then fail "dpkg still knows drivescope after --purge"; fi
if [ $status -eq 0 ]; then echo "package: purged; the machine is as it was"; fi
exit $status
