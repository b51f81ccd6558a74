#!/bin/sh
# The layering check (tools/layering/check.sh, run by the build's `layering` target) holds on this
# tree, and fails when a rule is broken: a forbidden include (the measurement modules including
# the simulator, also as <sim/...>; the simulator including the passthrough layer; the CLI
# including the probe; an include climbing out with "../"; the interface including an area), a
# forbidden link (ds_measure linking ds_sim, the drivescope executable linking ds_sim), a
# measurement module naming the model type, an area missing from the table or a line of the table
# naming no area. tests/layering_compile.sh shows the compiler refusing them too.
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
fresh() {
  rm -rf "$tmp/t"; mkdir -p "$tmp/t/tools"
  cp -r "$root/src" "$root/include" "$tmp/t/"; cp -r "$root/tools/layering" "$tmp/t/tools/"
}
fresh; echo '#include "sim/model.hpp"' >> "$tmp/t/src/tests/access.cpp"
expect_fail "" "src/tests includes sim/"
fresh; echo '#include "passthrough/sat.hpp"' >> "$tmp/t/src/sim/drive.cpp"
expect_fail "" "src/sim includes passthrough/"
fresh; echo 'ds::sim::DiskModel m;' >> "$tmp/t/src/tests/access.cpp"
expect_fail "" "src/tests names the model type"
fresh; mkdir "$tmp/t/src/newarea"; echo 'int x;' > "$tmp/t/src/newarea/x.cpp"
expect_fail "" "an area is missing from rules.txt"
fresh; echo '#include <sim/sim.hpp>' >> "$tmp/t/src/tests/queue.hpp"
expect_fail "" "src/tests includes <sim/...>"
fresh; echo '#include "probe/identify.hpp"' >> "$tmp/t/src/cli/main.cpp"
expect_fail "" "src/cli includes probe/"
fresh; echo '#include "../sim/sim.hpp"' >> "$tmp/t/src/tests/access.cpp"
expect_fail "" "an include climbs out with ../"
fresh; echo '#include "passthrough/sense.hpp"' >> "$tmp/t/include/drivescope/device.hpp"
expect_fail "" "include/drivescope includes an area"
fresh; echo 'gone: api' >> "$tmp/t/tools/layering/rules.txt"
expect_fail "" "rules.txt names an area that does not exist"
fresh; printf 'ds_measure:ds_interface;ds_io;ds_sim\n' > "$tmp/links"
expect_fail "$tmp/links" "ds_measure links ds_sim"
fresh; printf 'drivescope:ds_app;ds_sim;CLI11::CLI11\n' > "$tmp/links"
expect_fail "$tmp/links" "the drivescope executable (cli) links ds_sim"
fresh; printf 'ds_io:ds_interface;fmt::fmt\nds_measure:ds_interface;ds_io\n' > "$tmp/links"
if ! sh "$tmp/t/tools/layering/check.sh" "$tmp/t" "$tmp/links" > "$tmp/out" 2>&1; then
  echo "layering test: the check refused links the table allows (ds_interface is the api area):"; cat "$tmp/out"; exit 1
fi
echo "layering test: ok"
