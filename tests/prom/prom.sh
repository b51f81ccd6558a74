#!/bin/sh
# ctest `prom`: `identify --prom`, `bench --prom`, `ncq --prom` and `scan --prom` on simulated drives and a captured IDENTIFY
# write files that `promtool check metrics` accepts, atomically (no temporary file left behind),
# with the figures the JSON of the same run holds. Exit 77 (skipped) without promtool (Debian
# package prometheus), unless DRIVESCOPE_REQUIRE_VM is set (CI), where it must be installed.
# Usage: prom.sh DRIVESCOPE SOURCE_DIR WORK_DIR
bin=$1 src=$2 work=$3
if ! command -v promtool > /dev/null 2>&1; then
  if [ -n "$DRIVESCOPE_REQUIRE_VM" ]; then echo "prom: promtool is missing (scripts/setup.sh installs prometheus)" >&2; exit 1; fi
  echo "SKIP: promtool is not installed (Debian package prometheus; scripts/setup.sh installs it)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 1
fail=0
check() {  # check NAME FILE: promtool accepts it, and it has the series every file must have
  out=$(promtool check metrics < "$2" 2>&1) || { echo "FAIL $1: promtool check metrics: $out"; fail=1; return; }
  [ -z "$out" ] || { echo "FAIL $1: promtool says: $out"; fail=1; }
  grep -q '^drivescope_device_info{device="[^"]*",model_name="[^"]*",serial_number="[^"]*",firmware_version="[^"]*",model_family="[^"]*",command="[a-z]*"} 1$' "$2" \
    || { echo "FAIL $1: no drivescope_device_info line"; fail=1; return; }
  echo "ok $1: $(grep -c '^drivescope_' "$2") samples"
}
for p in 7200.7 maxline3 atlas15k; do
  "$bin" identify "sim:$p" --prom "$work/identify-$p.prom" > /dev/null || { echo "FAIL identify sim:$p: exit $?"; fail=1; }
  check "identify sim:$p" "$work/identify-$p.prom"
done
# The drive database's family goes on device_info as smartctl_exporter's model_family label: the
# same string identify --json gives (empty where the table is missing or has no entry).
fam=$("$bin" identify sim:7200.7 --json 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin).get("model_family") or "")')
grep -qF "model_family=\"$fam\"" "$work/identify-7200.7.prom" ||
  { echo "FAIL identify sim:7200.7: model_family label is not '$fam' (identify --json)"; fail=1; }
[ -n "$fam" ] && echo "ok identify sim:7200.7: model_family=\"$fam\"" ||
  echo "note: no drive database entry for sim:7200.7 here (smartmontools' drivedb.h missing?): the label is empty"
"$bin" identify --from-file "$src/tests/data/identify/INTEL_SSDSA2CW120G3--4PC10302/identify.bin" --prom "$work/ssd.prom" > /dev/null
check "identify --from-file (SSD)" "$work/ssd.prom"
grep -q '^drivescope_device_rotation_rate_rpm{device="[^"]*",command="identify"} 0$' "$work/ssd.prom" || { echo "FAIL: a solid-state drive's rotation rate is not 0"; fail=1; }

# bench: the prom file and the JSON of the same run agree (ms in JSON, seconds in the file).
"$bin" bench sim:maxline3 --budget 3 --span 1% --tests access,transfer,queue --json=c --prom "$work/bench.prom" > "$work/bench.json" \
  || { echo "FAIL bench: exit $?"; fail=1; }
check "bench sim:maxline3" "$work/bench.prom"
want=$(sed -n 's/.*"access":{.*"read":{[^}]*"mean_ms":\([0-9.e+-]*\).*/\1/p' "$work/bench.json")
got=$(sed -n 's/^drivescope_access_time_seconds{device="sim:maxline3",stat="mean",command="bench"} //p' "$work/bench.prom")
if [ -z "$want" ] || [ -z "$got" ] || ! awk -v w="$want" -v g="$got" 'BEGIN { d = w / 1000 - g; exit !(d < 1e-12 && d > -1e-12) }'; then
  echo "FAIL bench: access time ${want:-?} ms in the JSON, ${got:-?} s in the prom file"; fail=1
fi
for m in drivescope_transfer_rate_bytes_per_second drivescope_ncq_claimed drivescope_ncq_effective drivescope_aam_level; do
  grep -q "^$m{" "$work/bench.prom" || { echo "FAIL bench: no $m"; fail=1; }
done

# ncq: its own three layers (queuing claimed with its protocol, enabled by the host, effective),
# agreeing with the JSON of the same run; an ncq document carries no identity, so no device_info.
"$bin" ncq sim:raptor --budget 3 --json=c --prom "$work/ncq.prom" > "$work/ncq.json" || { echo "FAIL ncq: exit $?"; fail=1; }
out=$(promtool check metrics < "$work/ncq.prom" 2>&1) || { echo "FAIL ncq: promtool check metrics: $out"; fail=1; }
[ -z "$out" ] || { echo "FAIL ncq: promtool says: $out"; fail=1; }
want=$(sed -n 's/.*"claimed":{"depth":\([0-9]*\).*/\1/p' "$work/ncq.json")
got=$(sed -n 's/^drivescope_queue_claimed_depth{device="sim:raptor",protocol="TCQ",command="ncq"} //p' "$work/ncq.prom")
[ -n "$want" ] && [ "$want" = "$got" ] || { echo "FAIL ncq: claimed depth ${want:-?} in the JSON, ${got:-?} in the prom file"; fail=1; }
for m in drivescope_queue_claimed drivescope_queue_enabled drivescope_queue_effective drivescope_exit_status; do
  grep -q "^$m{" "$work/ncq.prom" || { echo "FAIL ncq: no $m"; fail=1; }
done
[ "$fail" -ne 0 ] || echo "ok ncq sim:raptor: $(grep -c '^drivescope_' "$work/ncq.prom") samples"

# scan: one file for every drive: each drive's series under one HELP/TYPE header per metric.
"$bin" scan sim:raptor sim:atlas15k sim:7k400 --bench 1 --prom "$work/scan.prom" > /dev/null \
  || { echo "FAIL scan: exit $?"; fail=1; }
check "scan (3 drives, --bench)" "$work/scan.prom"
n=$(grep -c '^drivescope_device_info{.*command="scan"} 1$' "$work/scan.prom")
[ "$n" -eq 3 ] || { echo "FAIL scan: $n drivescope_device_info lines for 3 drives"; fail=1; }
dup=$(grep '^# TYPE ' "$work/scan.prom" | sort | uniq -d)
[ -z "$dup" ] || { echo "FAIL scan: a metric with two headers: $dup"; fail=1; }
for d in sim:raptor sim:atlas15k sim:7k400; do
  grep -q "^drivescope_access_time_seconds{device=\"$d\",stat=\"mean\",command=\"scan\"} " "$work/scan.prom" \
    || { echo "FAIL scan: no access time for $d"; fail=1; }
done

# Atomic: the file is replaced whole and no temporary file stays in the directory.
left=$(find "$work" -name '.*.tmp' | wc -l)
[ "$left" -eq 0 ] || { echo "FAIL: $left temporary files left in $work"; fail=1; }
# A directory that does not exist is refused before the run (a usage error, exit 2: nothing is
# measured, nothing written).
out=$("$bin" identify sim:7200.7 --prom "$work/missing/x.prom" 2>&1); rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: --prom into a missing directory exited $rc, not 2"; fail=1; }
case $out in *Model*) echo "FAIL: --prom into a missing directory: identify ran before the refusal"; fail=1 ;; esac
[ ! -e "$work/missing" ] || { echo "FAIL: --prom created $work/missing"; fail=1; }
# promtool can fail: a broken file is refused (the check above could catch something).
printf 'drivescope_x{device="a} 1\n' > "$work/broken.prom"
if promtool check metrics < "$work/broken.prom" > /dev/null 2>&1; then echo "FAIL: promtool accepted a broken file"; fail=1; fi
# The PromQL of docs/fleet.md parses: each ```promql block's expressions (a line at column 0
# starts one, indented lines continue it) become recording rules for `promtool check rules`.
awk '
  /^```promql/ { inside = 1; next }
  /^```/ { if (inside && expr != "") emit(); inside = 0; next }
  inside && /^[^ ]/ { if (expr != "") emit(); expr = $0; next }
  inside && /^ / { expr = expr "\n" $0 }
  function emit() { n++; printf "      - record: drivescope:fleet_doc_%d\n        expr: |\n", n; gsub(/\n/, "\n          ", expr); printf "          %s\n", expr; expr = "" }
  BEGIN { print "groups:\n  - name: fleet-md\n    rules:" }
  END { if (n < 8) { print "only " n " expressions" > "/dev/stderr"; exit 1 } }
' "$src/docs/fleet.md" > "$work/fleet-rules.yml" || { echo "FAIL: could not gather the PromQL of docs/fleet.md"; fail=1; }
if out=$(promtool check rules "$work/fleet-rules.yml" 2>&1); then
  echo "ok docs/fleet.md: $(grep -c 'record:' "$work/fleet-rules.yml") PromQL expressions parse"
else
  echo "FAIL: docs/fleet.md PromQL: $out"; fail=1
fi
exit $fail
