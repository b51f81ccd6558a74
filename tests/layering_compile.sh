#!/bin/sh
# The compiler keeps the layering too: with the include path an area's sources get from the build
# (build/layering/includes.txt, CMake's own include directories of each area's target), the
# headers of an area it may not use (tools/layering/rules.txt) are not found. Asked of the
# compiler itself (__has_include) for every pair of areas. The few forbidden areas an area still
# reaches, through the public headers of one it may use, are listed below with the header that
# brings them; only tools/layering/check.sh refuses an include of those. A pair that appears or
# disappears fails, so the list stays what the build is.
# Usage: layering_compile.sh SOURCE_ROOT INCLUDES_FILE CXX
set -eu
root=$1 includes=$2 cxx=$3
rules="$root/tools/layering/rules.txt"
# AREA>USED: why AREA's include path reaches USED.
leaks="
report>io tests/queue.hpp includes io/histogram.hpp (the results hold latency histograms)
cli>io tests/queue.hpp, through app's headers
cli>passthrough app/target.hpp includes passthrough/trace_device.hpp (the --trace value)
cli>probe app/ncq.hpp and app/scan.hpp include probe/identify.hpp and probe/sysfs.hpp
cli>report app/output.hpp includes report/envelope.hpp (the document's envelope)
cli>control app/features.hpp and app/restore.hpp use control's names as app's own
"
allowed() { sed -n "s/^$1:\(.*\)$/\1/p" "$rules" | tr -s ' ' '\n' | sed '/^$/d'; echo "$1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One header of every area that has any (src/api's are include/drivescope, which all may use).
: > "$tmp/probe.cpp"
for d in "$root"/src/*/; do
  a=$(basename "$d")
  h=$(ls "$d" | grep '\.hpp$' | head -1 || true)
  [ -n "$h" ] || continue
  printf '#if __has_include("%s/%s")\nreach %s\n#endif\n' "$a" "$h" "$a" >> "$tmp/probe.cpp"
done
fail=0
seen=""
while IFS=: read -r area dirs; do
  [ -n "$area" ] || continue
  flags=$(echo "$dirs" | tr ';' '\n' | sed '/^$/d; s/^/-I/' | tr '\n' ' ')
  # shellcheck disable=SC2086
  reached=$("$cxx" -std=c++20 -E -P $flags "$tmp/probe.cpp" | sed -n 's/^reach //p' | tr '\n' ' ')
  ok=" $(allowed "$area" | tr '\n' ' ') "
  for used in $reached; do
    case $ok in *" $used "*) continue ;; esac
    seen="$seen $area>$used"
    if echo "$leaks" | grep -q "^$area>$used "; then
      echo "layering_compile: $area reaches $used (listed: $(echo "$leaks" | sed -n "s/^$area>$used //p"))"
    else
      echo "layering_compile: src/$area's include path reaches $used/, which rules.txt does not allow it"; fail=1
    fi
  done
  blocked=0 forbidden=0
  for d in "$root"/src/*/; do
    u=$(basename "$d")
    case $ok in *" $u "*) continue ;; esac
    forbidden=$((forbidden + 1))
    case " $reached " in *" $u "*) ;; *) blocked=$((blocked + 1)) ;; esac
  done
  echo "layering_compile: $area: the compiler finds no header of $blocked of the $forbidden areas it may not use"
done < "$includes"
for l in $(echo "$leaks" | sed -n 's/^\([a-z_]*>[a-z_]*\) .*/\1/p'); do
  case " $seen " in *" $l "*) ;; *) echo "layering_compile: $l is listed but no longer reached: drop it from the list"; fail=1 ;; esac
done
# And as a build sees it: the measurement modules including the simulator do not compile.
tests_dirs=$(sed -n 's/^tests://p' "$includes" | tr ';' '\n' | sed '/^$/d; s/^/-I/' | tr '\n' ' ')
printf '#include "sim/sim.hpp"\n' > "$tmp/forbidden.cpp"
# shellcheck disable=SC2086
if "$cxx" -std=c++20 -fsyntax-only $tests_dirs "$tmp/forbidden.cpp" > "$tmp/out" 2>&1; then
  echo "layering_compile: src/tests compiled an include of sim/sim.hpp"; fail=1
elif grep -q 'sim/sim.hpp' "$tmp/out"; then
  echo "layering_compile: src/tests including sim/sim.hpp: $(grep -m1 'sim/sim.hpp' "$tmp/out" | sed 's/^[^ ]* //')"
else
  echo "layering_compile: the compile failed for another reason:"; cat "$tmp/out"; fail=1
fi
[ $fail -eq 0 ] && echo "layering_compile: ok"
exit $fail
