#!/bin/sh
# The function-length check (tools/fnlen/fnlen.py, run by the build's `fnlen` target) holds on this
# tree with its allowlist, and fails on a small tree (one allowlisted long function) when a new
# function passes 100 body lines: a plain one, one whose braces hide in literals and comments, a
# member defined in a class in a header, a constructor with braced member initialisers, an
# allowlisted name in another file; and when the allowlist names a function that is no longer
# over-long. Exactly 100 lines passes.
# Usage: fnlen.sh SOURCE_ROOT [PYTHON]
set -eu
root=${1:-.}
py=${2:-python3}
"$py" "$root/tools/fnlen/fnlen.py" --root "$root" --allow "$root/tools/fnlen/allow.txt" "$root/src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { "$py" "$root/tools/fnlen/fnlen.py" --root "$tmp/t" --allow "$tmp/allow.txt" "$tmp/t/src" > "$tmp/out" 2>&1; }
expect_fail() {  # expect_fail NAME WHAT: the check must fail and name NAME
  if check; then echo "fnlen test: the check passed although $2"; cat "$tmp/out"; exit 1; fi
  if ! grep -q "$1" "$tmp/out"; then echo "fnlen test: the failure does not name $1:"; cat "$tmp/out"; exit 1; fi
  echo "fnlen test: refused as it should: $(head -1 "$tmp/out")"
}
expect_pass() {
  if ! check; then echo "fnlen test: the check failed although $1:"; cat "$tmp/out"; exit 1; fi
}
lines() {  # lines N: N statement lines
  i=0; while [ "$i" -lt "$1" ]; do echo "  x += $i;"; i=$((i + 1)); done
}
# A small tree like src/: one allowlisted long function and a few short ones.
fresh() {
  rm -rf "$tmp/t"
  mkdir -p "$tmp/t/src/tests" "$tmp/t/src/sim" "$tmp/t/src/app" "$tmp/t/src/io" "$tmp/t/src/report"
  { echo 'int run_access(int x) {'; lines 150; echo '}'; } > "$tmp/t/src/tests/access.cpp"
  for f in sim/seek.cpp app/list.cpp report/prom.cpp; do echo 'int short_one(int x) { return x; }' > "$tmp/t/src/$f"; done
  printf '#pragma once\nstruct Histogram { int n = 0; };\n' > "$tmp/t/src/io/histogram.hpp"
  echo 'src/tests/access.cpp run_access  # allowlisted' > "$tmp/allow.txt"
}

fresh; expect_pass "the tree is unchanged"

fresh; { echo 'int fnlen_probe_long(int x) {'; lines 101; echo '}'; } >> "$tmp/t/src/sim/seek.cpp"
expect_fail fnlen_probe_long "a new function has 101 body lines"

fresh; { echo 'int fnlen_probe_limit(int x) {'; lines 100; echo '}'; } >> "$tmp/t/src/sim/seek.cpp"
expect_pass "a function of exactly 100 body lines is within the limit"

# Braces inside literals and comments must not end the body early (which would hide its length).
fresh; {
  echo 'int fnlen_probe_lexing(int x) {'
  echo '  const char* a = "}}"; char b = '"'}'"'; const char* c = R"d(})d";  // }'
  echo '  /* } */ x += 1'"'"'000'"'"'000; auto f = [&](int y) { return y + x; };'
  lines 99
  echo '  return f(x) + a[0] + b + c[0];'
  echo '}'
} >> "$tmp/t/src/app/list.cpp"
expect_fail fnlen_probe_lexing "a long function holds braces in strings, characters, raw strings, comments and a lambda"

fresh; {
  echo 'struct FnlenProbe {'
  echo '  int member(int x) const {'; lines 101; echo '  return x;'; echo '  }'
  echo '};'
} >> "$tmp/t/src/io/histogram.hpp"
expect_fail "member" "a member function defined in a class in a header is long"

fresh; {
  echo 'struct FnlenProbeCtor { int a, b; FnlenProbeCtor(int x); };'
  echo 'FnlenProbeCtor::FnlenProbeCtor(int x) : a{x}, b(x) {'; lines 101; echo '}'
} >> "$tmp/t/src/report/prom.cpp"
expect_fail "FnlenProbeCtor::FnlenProbeCtor" "a constructor with braced member initialisers is long"

fresh; { echo 'int run_access(int x) {'; lines 101; echo '}'; } >> "$tmp/t/src/sim/seek.cpp"
expect_fail "src/sim/seek.cpp" "an allowlisted name is long in another file"

fresh; echo 'src/sim/seek.cpp no_such_function' >> "$tmp/allow.txt"
expect_fail no_such_function "the allowlist names a function that is not over-long"
echo "fnlen test: ok"
