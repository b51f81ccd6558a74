#!/bin/sh
# Checks the layering rule table (tools/layering/rules.txt) against the tree and the build:
#  1. every `#include "AREA/..."` in src/X/ names an area that X may use (or X itself);
#  2. every ds_* library a ds_* area links (LINKS file, written by CMake) is one X may use;
#  3. the measurement modules (src/tests) never name the simulator's model or its files: they must
#     recover a drive by timing alone.
# Usage: check.sh SOURCE_ROOT [LINKS_FILE] [STAMP]   (exit 0: all kept; 1: a rule broken, listed)
set -eu
root=$1
links=${2:-}
stamp=${3:-}
rules="$root/tools/layering/rules.txt"
fail=0
allowed() {  # allowed AREA → the areas it may use, itself included
  sed -n "s/^$1:\(.*\)$/\1/p" "$rules" | tr -s ' ' '\n' | sed '/^$/d'
  echo "$1"
}
for dir in "$root"/src/*/; do
  area=$(basename "$dir")
  if ! grep -q "^$area:" "$rules"; then
    echo "layering: src/$area is not in tools/layering/rules.txt"; fail=1; continue
  fi
  ok=$(allowed "$area" | tr '\n' ' ')
  # Direct includes of another area's headers: #include "AREA/file".
  grep -rnoE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]+/' "$dir" 2>/dev/null |
    sed -E 's|^([^:]*:[0-9]+):.*"([a-z_]+)/$|\1 \2|' |
    while read -r where used; do
      [ "$used" = drivescope ] && continue
      case " $ok " in *" $used "*) ;; *) echo "layering: $where: src/$area may not include $used/ (rules.txt: $area: $ok)"; echo x ;; esac
    done > "${TMPDIR:-/tmp}/ds_layering.$$"
  if grep -q '^x$' "${TMPDIR:-/tmp}/ds_layering.$$"; then grep -v '^x$' "${TMPDIR:-/tmp}/ds_layering.$$"; fail=1; fi
  rm -f "${TMPDIR:-/tmp}/ds_layering.$$"
done
if [ -n "$links" ]; then
  # LINKS lines: "ds_AREA: dep dep ..." (CMake's LINK_LIBRARIES of each area library).
  while IFS=: read -r lib deps; do
    area=${lib#ds_}
    [ "$area" = measure ] && area=tests
    ok=$(allowed "$area" | tr '\n' ' ')
    for d in $(echo "$deps" | tr ';' ' '); do
      case $d in ds_*) ;; *) continue ;; esac
      used=${d#ds_}
      [ "$used" = measure ] && used=tests
      case " $ok " in *" $used "*) ;; *) echo "layering: $lib links $d (rules.txt: $area: $ok)"; fail=1 ;; esac
    done
  done < "$links"
fi
if grep -rnE 'disk-model|drivescope-disk-model|truth\.json|load_model|DiskModel' "$root/src/tests" 2>/dev/null; then
  echo "layering: src/tests names disk-model files or the model type (above)"; fail=1
fi
if [ $fail -ne 0 ]; then exit 1; fi
[ -n "$stamp" ] && touch "$stamp"
echo "layering: ok"
