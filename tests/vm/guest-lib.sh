# guest-lib.sh — helpers for drivescope's guest scripts (busybox sh, inside the test VM).
# A guest script starts with:   . "$VMTEST_LIB"
# and ends with:                 vm_done
# vm-run.sh copies this file to /vmtest/lib.sh; drivescope is /usr/local/bin/drivescope, and
# hdparm, smartctl, sg_*, jq and busybox are on PATH.

VM_PASS=0
VM_FAIL=0
VM_SKIP=0

# vm_section TITLE — a heading with the guest's uptime, to see where a slow run spends its time.
vm_section() { echo; echo "== $* [t=$(cut -d' ' -f1 /proc/uptime)s]"; }
vm_note() { echo "   $*"; }

# check NAME EXPECTED ACTUAL — pass when the two strings are equal.
check() {
  if [ "$2" = "$3" ]; then
    VM_PASS=$((VM_PASS + 1)); echo "ok   $1 = '$3'"
  else
    VM_FAIL=$((VM_FAIL + 1)); echo "FAIL $1: expected '$2', got '$3'"
  fi
}

# check_true NAME CMD... — pass when CMD succeeds.
check_true() {
  local name=$1; shift
  if "$@"; then VM_PASS=$((VM_PASS + 1)); echo "ok   $name"
  else VM_FAIL=$((VM_FAIL + 1)); echo "FAIL $name (command: $*)"; fi
}

# contains TEXT PATTERN — TEXT has a line matching PATTERN (grep BRE, case-insensitive);
# for check_true: check_true "says X" contains "$out" 'pattern'
contains() { printf '%s\n' "$1" | grep -qi -- "$2"; }
# not CMD... — the negation, for check_true: check_true "no X" not contains "$out" X
not() { ! "$@"; }
# quiet CMD... — CMD with its output thrown away
quiet() { "$@" > /dev/null 2>&1; }

# check_nonempty NAME VALUE — a reference value must be present before comparing with it,
# otherwise two empty strings would "agree".
check_nonempty() {
  if [ -n "$2" ]; then VM_PASS=$((VM_PASS + 1)); echo "ok   $1 present ('$2')"
  else VM_FAIL=$((VM_FAIL + 1)); echo "FAIL $1: empty"; fi
}

vm_skip() { VM_SKIP=$((VM_SKIP + 1)); echo "skip $*"; }

# vm_done — the summary line and the script's exit status.
vm_done() {
  echo "$VM_PASS passed, $VM_FAIL failed, $VM_SKIP skipped"
  [ "$VM_FAIL" -eq 0 ]
  exit $?
}

# trim: strip leading/trailing blanks (sysfs pads SCSI strings with spaces).
trim() { sed 's/^[[:space:]]*//; s/[[:space:]]*$//'; }

# vm_disk_by_model MODEL — the block device name (sda, ...) whose SCSI model is MODEL.
vm_disk_by_model() {
  local d m
  for d in /sys/block/*; do
    [ -r "$d/device/model" ] || continue
    m=$(trim < "$d/device/model")
    [ "$m" = "$1" ] && { echo "${d##*/}"; return 0; }
  done
  return 1
}

# vm_disk_by_serial SERIAL — for virtio-blk, which has a serial but no model in sysfs.
vm_disk_by_serial() {
  local d
  for d in /sys/block/*; do
    [ -r "$d/serial" ] || continue
    [ "$(trim < "$d/serial")" = "$1" ] && { echo "${d##*/}"; return 0; }
  done
  return 1
}

# vm_sg_of BLK — the sg node (sg0, ...) of a SCSI block device.
vm_sg_of() { ls "/sys/block/$1/device/scsi_generic" 2>/dev/null | head -n1; }

# jget FILE FILTER — one value from a JSON document, as `jq -r FILTER FILE` prints it ("null"
# when absent, "" on bad JSON). Starting jq costs up to a second under TCG on a busy host, so a
# plain path (.a.b.c) is looked up in a flattened copy made by one jq run per document.
jget() {
  case $2 in
    *[!a-z0-9_.]*|"") jq -r "$2" "$1" 2>/dev/null; return ;;
  esac
  if [ ! -e "$1.flat" ] || [ "$1" -nt "$1.flat" ]; then
    jq -r 'paths(type != "object" and type != "array") as $p | "." + ($p | map(tostring) | join(".")) + "=" + (getpath($p) | tostring)' \
      "$1" > "$1.flat" 2>/dev/null || : > "$1.flat"
  fi
  if ! [ -s "$1.flat" ]; then jq -r "$2" "$1" 2>/dev/null; return; fi
  local line; line=$(grep -m1 "^$(printf '%s' "$2" | sed 's/\./\\./g')=" "$1.flat")
  if [ -n "$line" ]; then printf '%s\n' "${line#*=}"; else echo null; fi
}

# vm_export NAME FILE — send FILE to the host; vm-run.sh writes it to its -o directory as NAME.
# Text only (it goes line by line through the serial port, about 100 KB/s).
vm_export() {
  echo "@@VM FILE $1"
  sed 's/^/@@| /' "$2"
  echo "@@VM FILE-END"
}
