#!/bin/sh
# The layering check (tools/layering/check.sh, run by the build's `layering` target) holds on this
# tree, and fails when a rule is broken: a forbidden include (the measurement modules including
# the simulator; the simulator including the passthrough layer), a forbidden link (ds_measure
# linking ds_sim), a measurement module naming the model type, an area missing from the table.
set -eu
root=${1:-.}
links=${2:-}
check="$root/tools/layering/check.sh"
sh "$check" "$root" $links
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect_fail() {  # expect_fail WHAT: the check must fail on the copy in $tmp/t
  if sh "$tmp/t/tools/layering/check.sh" "$tmp/t" ${1:+"$1"} > "$tmp/out" 2>&1; then
    echo "layering test: the check passed although $2"; exit 1
  fi
  echo "layering test: refused as it should: $(head -1 "$tmp/out")"
}
fresh() { rm -rf "$tmp/t"; mkdir -p "$tmp/t/tools"; cp -r "$root/src" "$tmp/t/"; cp -r "$root/tools/layering" "$tmp/t/tools/"; }
fresh; echo '#include "sim/model.hpp"' >> "$tmp/t/src/tests/access.cpp"
expect_fail "" "src/tests includes sim/"
fresh; echo '#include "passthrough/sat.hpp"' >> "$tmp/t/src/sim/drive.cpp"
expect_fail "" "src/sim includes passthrough/"
fresh; echo 'ds::sim::DiskModel m;' >> "$tmp/t/src/tests/access.cpp"
expect_fail "" "src/tests names the model type"
fresh; mkdir "$tmp/t/src/newarea"; echo 'int x;' > "$tmp/t/src/newarea/x.cpp"
expect_fail "" "an area is missing from rules.txt"
fresh; printf 'ds_measure:ds_api;ds_io;ds_sim\n' > "$tmp/links"
expect_fail "$tmp/links" "ds_measure links ds_sim"
echo "layering test: ok"
