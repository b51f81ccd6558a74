#!/bin/sh
# The judge (tools/truth) computes the truth from the model file and the spec alone: it must not
# include the simulator nor link it, and nothing in src/ may use it. Fails (exit 1) naming the
# offending line; each rule is also tried on a planted violation so that it can fail at all.
set -eu
root=${1:-.}
check() {  # check ROOT: 0 when the judge is independent
  r=$1; bad=0
  if grep -rnE '#[[:space:]]*include[[:space:]]*[<"]([^">]*/)?sim/' "$r/tools/truth"; then
    echo "truth: tools/truth includes the simulator (above)"; bad=1
  fi
  if grep -nE '^target_link_libraries\((ds_truth|ds_truth_cli)[[:space:]].*ds_(sim|app|measure)' "$r/CMakeLists.txt"; then
    echo "truth: ds_truth links the simulator or the app (above)"; bad=1
  fi
  if grep -rnE '#[[:space:]]*include[[:space:]]*[<"]([^">]*/)?truth(\.hpp|/)' "$r/src"; then
    echo "truth: src/ uses the truth library (above)"; bad=1
  fi
  return $bad
}
check "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plant() {  # plant FILE LINE WHAT: the check must refuse a copy with LINE appended to FILE
  rm -rf "$tmp/t"; mkdir -p "$tmp/t/tools" "$tmp/t/src/x"
  cp -r "$root/tools/truth" "$tmp/t/tools/"; cp "$root/CMakeLists.txt" "$tmp/t/"
  echo "$2" >> "$tmp/t/$1"
  if check "$tmp/t" > /dev/null; then echo "truth: the check missed $3"; exit 1; fi
}
plant tools/truth/seek.cpp '#include "sim/model.hpp"' "an include of the simulator"
plant CMakeLists.txt 'target_link_libraries(ds_truth PUBLIC ds_sim)' "a link to ds_sim"
plant src/x/a.cpp '#include "truth.hpp"' "a use from src/"
echo "truth: independent of the simulator (and the check refuses planted violations)"
