#!/bin/sh
# The measurement modules (src/tests) must see a drive only through the device and block-I/O
# interfaces: no include of the simulator, no reading of disk-model files. This is what makes
# "the tool recovers the model's parameters by timing alone" an honest claim.
set -eu
root=${1:-.}
fail=0
if grep -rnE '#[[:space:]]*include[[:space:]]*[<"]([^">]*/)?sim/' "$root/src/tests" 2>/dev/null; then
  echo "layering: src/tests includes the simulator (above)"; fail=1
fi
if grep -rnE 'disk-model|drivescope-disk-model|truth\.json|load_model|DiskModel' "$root/src/tests" 2>/dev/null; then
  echo "layering: src/tests refers to disk-model files or the model type (above)"; fail=1
fi
# The library must not link the simulator either.
if grep -nE 'ds_area\(ds_measure .*ds_sim' "$root/CMakeLists.txt"; then
  echo "layering: ds_measure links ds_sim"; fail=1
fi
[ $fail -eq 0 ] && echo "layering: ok (src/tests sees no simulator)"
exit $fail
