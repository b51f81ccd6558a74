#!/bin/sh
# Checks the layering rule table (tools/layering/rules.txt) against the tree and the build:
#  1. every `#include "AREA/..."` (or <AREA/...>) in src/X/ names an area that X may use (or X
#     itself), none climbs out of its directory ("../"), and include/drivescope includes no area;
#  2. every ds_* library an area's target links (LINKS file, written by CMake: the area libraries,
#     the drivescope executable for cli, the nbdkit plugin for serve) is one X may use;
#  3. the measurement modules (src/tests) never name the simulator's model or its files: they must
#     recover a drive by timing alone;
#  4. the table and the tree agree: every area of src/ has a line, every line an area.
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
areas=" $(for d in "$root"/src/*/; do basename "$d"; done | tr '\n' ' ') "
for area in $(sed -n 's/^\([a-z_]*\):.*/\1/p' "$rules"); do
  case $areas in *" $area "*) ;; *) echo "layering: rules.txt names $area, which is not an area of src/"; fail=1 ;; esac
done
if grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\.\./' "$root/src" "$root/include" 2>/dev/null; then
  echo "layering: an include above climbs out of its directory; name the area instead (\"AREA/file\")"; fail=1
fi
for a in $areas; do
  if grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]$a/" "$root/include" 2>/dev/null; then
    echo "layering: include/drivescope includes src/$a (above): the interface uses nothing"; fail=1
  fi
done
for dir in "$root"/src/*/; do
  area=$(basename "$dir")
  if ! grep -q "^$area:" "$rules"; then
    echo "layering: src/$area is not in tools/layering/rules.txt"; fail=1; continue
  fi
  ok=$(allowed "$area" | tr '\n' ' ')
  # Direct includes of another area's headers: #include "AREA/file" or <AREA/file> (only the
  # areas of src/: <nlohmann/json.hpp> and the like are not areas).
  grep -rnoE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<][a-z_]+/' "$dir" 2>/dev/null |
    sed -E 's|^([^:]*:[0-9]+):.*["<]([a-z_]+)/$|\1 \2|' |
    while read -r where used; do
      [ "$used" = drivescope ] && continue
      case $areas in *" $used "*) ;; *) continue ;; esac
      case " $ok " in *" $used "*) ;; *) echo "layering: $where: src/$area may not include $used/ (rules.txt: $area: $ok)"; echo x ;; esac
    done > "${TMPDIR:-/tmp}/ds_layering.$$"
  if grep -q '^x$' "${TMPDIR:-/tmp}/ds_layering.$$"; then grep -v '^x$' "${TMPDIR:-/tmp}/ds_layering.$$"; fail=1; fi
  rm -f "${TMPDIR:-/tmp}/ds_layering.$$"
done
if [ -n "$links" ]; then
  # LINKS lines: "TARGET: dep;dep;..." (CMake's LINK_LIBRARIES of each area's target).
  area_of() {  # the area a target builds
    case $1 in
      ds_measure) echo tests ;; ds_interface) echo api ;; drivescope) echo cli ;; ds_nbdkit_plugin) echo serve ;;
      *) echo "${1#ds_}" ;;
    esac
  }
  while IFS=: read -r lib deps; do
    area=$(area_of "$lib")
    ok=$(allowed "$area" | tr '\n' ' ')
    for d in $(echo "$deps" | tr ';' ' '); do
      d=${d#\$<LINK_ONLY:}; d=${d%>}
      case $d in ds_*) ;; *) continue ;; esac
      used=$(area_of "$d")
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
