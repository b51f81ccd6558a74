#!/bin/sh
# ctest `schema`: the real --json output of every command against docs/schema/COMMAND.schema.json
# (tests/schema/validate.py), and the QEMU guest's identify documents when the `vm` test has just
# made them. Exit 77 (skipped) without python3-jsonschema, unless DRIVESCOPE_REQUIRE_VM is set (CI).
# Usage: schema.sh DRIVESCOPE SOURCE_DIR WORK_DIR [VM_OUT_DIR]
bin=$1 src=$2 work=$3 vmout=$4
set --
# The guest's documents, only those written after this binary was built (an older binary's are
# no evidence about this one): guest-identify.sh's and guest-ncq.sh's, and guest-json.sh's of
# every command, listed in its manifest. Where the vm test has run in this tree (its output
# directory exists) and CI requires the QEMU tests, a manifest older than the binary is a failure:
# the guest's documents would silently go unchecked.
if [ -n "$vmout" ] && [ -d "$vmout" ]; then
  for f in $(find "$vmout" -maxdepth 1 -name 'identify-*.json' -newer "$bin" | sort); do
    set -- "$@" "$f:identify"
  done
  for f in $(find "$vmout" -maxdepth 1 -name 'ncq-*.json' -newer "$bin" | sort); do
    set -- "$@" "$f:ncq"
  done
  if [ -f "$vmout/json-manifest.txt" ] && [ "$vmout/json-manifest.txt" -nt "$bin" ]; then
    set -- "$@" "$vmout/json-manifest.txt:manifest"
  elif [ -n "$DRIVESCOPE_REQUIRE_VM" ]; then
    echo "schema: no $vmout/json-manifest.txt newer than $bin: the vm test has not run with this binary (ctest -R '^(vm|schema)\$')" >&2
    exit 1
  fi
fi
rm -rf "$work"
for py in /usr/bin/python3 python3; do
  if command -v "$py" > /dev/null 2>&1 && "$py" -c 'import jsonschema' 2> /dev/null; then
    exec "$py" "$src/tests/schema/validate.py" "$bin" "$src" "$work" "$@"
  fi
done
if [ -n "$DRIVESCOPE_REQUIRE_VM" ]; then
  echo "schema: python3 with jsonschema is missing (scripts/setup.sh installs python3-jsonschema)" >&2
  exit 1
fi
echo "SKIP: python3-jsonschema is not installed (scripts/setup.sh installs it)"
exit 77
