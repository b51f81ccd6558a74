# guest-safety.sh — the write guard end to end on real Linux block devices (issue 7, docs/safety.md),
# and a full read-only run on every default disk whose images the host then checks unchanged.
#
# Needs the two extra disks of tests/vm/safety-host.sh (models "VMTEST SAFEPART" and "VMTEST
# SAFEBLANK": at most 16 characters, as sysfs shows an ATA model through the 16-byte INQUIRY
# product field); without them it skips at once, so it never partitions or writes a disk another
# guest script uses.
#
#   SAFE PART   partitioned here (2 partitions), partition 1 mounted (ext2; active swap when the
#               guest kernel has no ext2/ext4 module): a write test is refused on the disk and on
#               the mounted partition, even with --write --destructive; reading it is allowed.
#   SAFE BLANK  unpartitioned, unused: a write test is refused without --destructive (and without
#               --write), allowed with both, and it really writes (the data changes).
#   defaults    identify, list, ncq and bench, all read-only, on AHCI, PIIX, virtio-scsi and
#               virtio-blk; the host compares each image's SHA-256 with the all-zero image's.
. "$VMTEST_LIB"

DS=drivescope
part=$(vm_disk_by_model "VMTEST SAFEPART")
blank=$(vm_disk_by_model "VMTEST SAFEBLANK")
if [ -z "$part" ] || [ -z "$blank" ]; then
  vm_skip "safety: needs the disks of tests/vm/safety-host.sh (not in this disk set)"
  vm_done
fi
command -v $DS >/dev/null || { echo "FAIL drivescope is not in the guest (vm-run.sh -b)"; VM_FAIL=1; vm_done; }

# Small, quick benches: TCG makes every I/O slow, and the guard decides before any I/O anyway.
BENCH_W="--tests blocksize --span 32MB --budget 2 --quiet"

# ds_bench NAME ARGS... — run `drivescope bench ARGS`, keep stdout in /tmp/NAME.out, stderr in
# /tmp/NAME.err, the exit status in DS_RC; `said NAME` is both, for the message checks.
ds_bench() {
  local name=$1; shift
  $DS bench "$@" > "/tmp/$name.out" 2> "/tmp/$name.err"; DS_RC=$?
  echo "   \$ drivescope bench $* -> exit $DS_RC"; sed -n '1,4s/^/   | /p' "/tmp/$name.err"
}
said() { cat "/tmp/$1.out" "/tmp/$1.err"; }

# ---------------------------------------------------------------- a partitioned disk in use
vm_section "partitioned disk /dev/$part, partition 1 in use"
# Two primary partitions with busybox fdisk: 1 = first 128 MiB, 2 = the rest.
printf 'o\nn\np\n1\n\n+128M\nn\np\n2\n\n\nw\n' | fdisk "/dev/$part" > /tmp/fdisk.out 2>&1
partprobe "/dev/$part" 2>/dev/null
i=0; while [ ! -b "/dev/${part}1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
check_true "partition /dev/${part}1 exists" test -b "/dev/${part}1"
check_true "partition /dev/${part}2 exists" test -b "/dev/${part}2"
inuse=
modprobe ext4 2>/dev/null || modprobe ext2 2>/dev/null
mkdir -p /mnt/p1
if mke2fs -q "/dev/${part}1" > /dev/null 2>&1 && mount -t ext2 "/dev/${part}1" /mnt/p1 2>/dev/null; then
  inuse=mounted
  check_true "/dev/${part}1 mounted" grep -q "^/dev/${part}1 " /proc/mounts
  echo data > /mnt/p1/file
else
  # No block filesystem module in this guest kernel: active swap is "in use" to the guard in the
  # same way (docs/safety.md: not mounted, not swap, no holders).
  vm_skip "mounting /dev/${part}1: no ext2/ext4 module in the guest (vm-run.sh WANT_MODULES); using swap"
  mkswap "/dev/${part}1" > /dev/null 2>&1 && swapon "/dev/${part}1" && inuse=swap
  check_true "/dev/${part}1 is active swap" grep -q "^/dev/${part}1 " /proc/swaps
fi
pattern=mounted; [ "$inuse" = swap ] && pattern=swap

ds_bench w-disk "/dev/$part" $BENCH_W --write --destructive
check "write on the partitioned disk: exit" 1 "$DS_RC"
check_true "write on the partitioned disk: says $pattern" contains "$(said w-disk)" "$pattern"
ds_bench w-p1 "/dev/${part}1" $BENCH_W --write --destructive
check "write on the $inuse partition: exit" 1 "$DS_RC"
check_true "write on the $inuse partition: says $pattern" contains "$(said w-p1)" "$pattern"
ds_bench r-disk "/dev/$part" --json $BENCH_W
check "read-only bench on the disk in use: exit" 0 "$DS_RC"
if [ "$inuse" = mounted ]; then
  check "mounted file intact" data "$(cat /mnt/p1/file)"
  umount /mnt/p1
else
  swapoff "/dev/${part}1"
fi

# ---------------------------------------------------------------- an unused, unpartitioned disk
vm_section "unpartitioned unused disk /dev/$blank"
before=$(dd if="/dev/$blank" bs=1M count=32 2>/dev/null | sha256sum | cut -d' ' -f1)
ds_bench w-nodestr "/dev/$blank" $BENCH_W --write
check "write without --destructive: exit" 1 "$DS_RC"
check_true "write without --destructive: says --destructive" contains "$(said w-nodestr)" 'destructive'
ds_bench w-noflag "/dev/$blank" $BENCH_W --destructive
after_ro=$(dd if="/dev/$blank" bs=1M count=32 2>/dev/null | sha256sum | cut -d' ' -f1)
check "--destructive without --write writes nothing" "$before" "$after_ro"
ds_bench w-ok "/dev/$blank" --json $BENCH_W --write --destructive
check "write with --write --destructive: exit" 0 "$DS_RC"
check "settings.write" true "$(jq -r .settings.write /tmp/w-ok.out 2>/dev/null)"
check_nonempty "a write rate was measured" "$(jq -r '.tests.blocksize.rows[]? | .write_mb_s // empty' /tmp/w-ok.out 2>/dev/null | head -n1)"
after=$(dd if="/dev/$blank" bs=1M count=32 2>/dev/null | sha256sum | cut -d' ' -f1)
check_true "the allowed write test changed the disk" test "$before" != "$after"

# ---------------------------------------------------------------- read-only runs on the default disks
# identify, list, ncq (when this build has it) and a read-only bench on each; the host checks the
# images afterwards (safety-host.sh). Only exit statuses are checked here: the values are
# guest-identify.sh's business.
has_ncq=0; $DS ncq --help > /dev/null 2>&1 && has_ncq=1
[ $has_ncq = 1 ] || vm_skip "drivescope ncq: not in this build"
$DS list --json > /tmp/list.json 2>&1; check "list: exit" 0 $?
for who in "model:VMTEST AHCI" "model:VMTEST PIIX" "model:VIRTIO SCSI" "serial:VBLK0001"; do
  key=${who%%:*}; val=${who#*:}
  if [ "$key" = model ]; then blk=$(vm_disk_by_model "$val"); else blk=$(vm_disk_by_serial "$val"); fi
  [ -n "$blk" ] || { check "disk $val present" yes no; continue; }
  vm_section "read-only run on /dev/$blk ($val)"
  $DS identify --json "/dev/$blk" > /tmp/ro-id.json 2>&1; rc=$?
  # virtio-blk has no passthrough: identify answers from sysfs with exit 3 (partial).
  case $rc in 0|3) check "identify /dev/$blk: exit 0 or 3" ok ok ;; *) check "identify /dev/$blk: exit" "0 or 3" $rc ;; esac
  if [ $has_ncq = 1 ]; then
    # A small budget: the queue test at depth 32 under TCG is slow, and a loaded host slower still.
    $DS ncq --json --budget 2 "/dev/$blk" > /tmp/ro-ncq.json 2>&1; rc=$?
    case $rc in 0|3) check "ncq /dev/$blk: exit 0 or 3" ok ok ;; *) check "ncq /dev/$blk: exit" "0 or 3" $rc ;; esac
  fi
  # Every default test; 3 s of drive time is too little under TCG for some of them to finish
  # (exit 3, partial: e.g. "access: too few reads completed"), which is an honest answer here —
  # what matters is that nothing was written and the finished results are kept.
  ds_bench ro-$blk "/dev/$blk" --json --budget 3 --quiet
  case $DS_RC in 0|3) check "read-only bench /dev/$blk: exit 0 or 3" ok ok ;; *) check "read-only bench /dev/$blk: exit" "0 or 3" "$DS_RC" ;; esac
  check_nonempty "read-only bench /dev/$blk: transfer results kept" "$(jq -r '.tests.transfer // empty | keys[0]' /tmp/ro-$blk.out 2>/dev/null)"
  check "read-only bench /dev/$blk: settings.write" false "$(jq -r .settings.write /tmp/ro-$blk.out 2>/dev/null)"
done
sync
vm_done
