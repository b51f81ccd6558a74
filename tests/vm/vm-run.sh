#!/usr/bin/env bash
# vm-run.sh — drivescope's end-to-end harness: boot a throw-away QEMU guest (TCG, no KVM needed)
# whose disks are QEMU's emulated drives, run guest scripts against them, and report.
#
# Why a VM: the tests need real Linux sd/sg devices behind real kernel drivers (libata's SAT
# layer for ATA PASS-THROUGH, the SCSI mid-layer, virtio-blk with no SCSI layer at all), and the
# host has none of them. A stock Debian 12 kernel booted straight into a small busybox
# initramfs gives all of that in about 10 s per boot.
#
# Usage: tests/vm/vm-run.sh [options] GUEST-SCRIPT...
#   Every GUEST-SCRIPT (busybox sh) runs in ONE boot, in the order given, with the helpers of
#   tests/vm/guest-lib.sh available as $VMTEST_LIB. A script signals failure by a non-zero exit.
# Options:
#   -b FILE     the drivescope binary to put into the guest as /usr/local/bin/drivescope
#               (default: $DRIVESCOPE_BIN; ELF libraries it needs come along, found with ldd)
#   -a HOST[:GUEST]  any other file for the guest (default GUEST: /usr/local/bin/NAME)
#   -d SPEC     a disk (repeatable; replaces the default set). SPEC = KIND[,key=value...]
#               KIND: ahci (ICH9 AHCI, SATA, NCQ 32) | ide (PIIX3, PATA, no NCQ) |
#                     virtio-scsi (scsi-hd, no SAT) | virtio-blk (no SCSI layer) |
#                     nvme (QEMU's NVMe controller, one namespace)
#               keys: size=1G (a sparse image, new each run) | latency-ns=N (QEMU null-co: no
#                     image, zeros, every request takes N ns) | nbd=URI (an NBD export, e.g. a
#                     drive `drivescope serve` serves: no image) | blkdebug=CONF (the image
#                     behind QEMU's blkdebug driver with the rules of CONF, e.g. EIO on reads of
#                     a sector: a failing drive); anything else goes to -device
#                     (model=, serial=, rotation_rate=, vendor=, product=, ...)
#   -o DIR      where files the guest exports (vm_export) are written (default: the run dir)
#   -t SECS     hard limit for the whole VM (default 240): a hung guest never hangs CI
#   -c DIR      cache dir (default: $DRIVESCOPE_VM_CACHE or /var/cache/drivescope-vm)
#   -A ACCEL    tcg (default, or $DRIVESCOPE_VM_ACCEL) | kvm (fails without a usable /dev/kvm) |
#               auto (kvm when /dev/kvm opens, else tcg); the one used is printed, and the guest
#               finds it in /etc/vmtest.conf as VMTEST_ACCEL. A /dev/kvm that opens may still not
#               run a guest (a nested or paravirtual KVM): -A kvm then times out.
#   -R          run QEMU under SCHED_FIFO (priority 1) when this user may (root, CAP_SYS_NICE):
#               a TCG guest whose timing matters then waits for no other process on a busy
#               host; printed either way ("real-time priority: ...")
#   -S          CTest mode: exit 77 (skip) when QEMU or the kernel is not available here, unless
#               DRIVESCOPE_REQUIRE_VM is set, in which case they are installed/fetched or the
#               run fails
#   -n          never apt-get install anything
#   -k          keep the per-run directory (console.log, output.log, initrd, disk images)
#   -v          print the guest kernel's console log at the end
# Exit status: the first non-zero status among the guest scripts (0 = all passed);
#   2 = usage or set-up error; 3 = the VM died, hung or timed out; 77 = skipped (-S only).
#
# Default disks (found in the guest by model/serial, never by name — see guest-lib.sh):
#   ahci        model "VMTEST AHCI", serial AHCI0001, 7200 rpm, 512e (4096-byte physical sectors)
#   ide         model "VMTEST PIIX", serial PIIX0001, 5400 rpm
#   virtio-scsi vendor VMTEST, product "VIRTIO SCSI", serial VSCSI0001, 10000 rpm, 512e
#   virtio-blk  serial VBLK0001
#   nvme        serial NVME0001 (model "QEMU NVMe Ctrl")
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${DRIVESCOPE_VM_CACHE:-/var/cache/drivescope-vm}
TIMEOUT=240
OUTDIR=
BIN=${DRIVESCOPE_BIN:-}
CTEST=0
INSTALL=1
KEEP=0
VERBOSE=0
ACCEL=${DRIVESCOPE_VM_ACCEL:-tcg}
REALTIME=0
DISKS=()
EXTRA=()

say() { printf '[vm] %s\n' "$*" >&2; }
fail() { say "error: $*"; exit 2; }
# In CTest mode a missing prerequisite is a skip unless the caller requires the VM.
unavailable() {
  if [ "$CTEST" = 1 ] && [ -z "${DRIVESCOPE_REQUIRE_VM:-}" ]; then
    say "SKIP: $* (set DRIVESCOPE_REQUIRE_VM=1 to make this a failure)"; exit 77
  fi
  fail "$*"
}

while getopts 'b:a:d:o:t:c:A:RSnkvh' opt; do
  case $opt in
    b) BIN=$OPTARG ;;  a) EXTRA+=("$OPTARG") ;;  d) DISKS+=("$OPTARG") ;;
    o) OUTDIR=$OPTARG ;;  t) TIMEOUT=$OPTARG ;;  c) CACHE=$OPTARG ;;  A) ACCEL=$OPTARG ;;
    S) CTEST=1 ;;  n) INSTALL=0 ;;  k) KEEP=1 ;;  v) VERBOSE=1 ;;  R) REALTIME=1 ;;
    h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || fail "no guest script given (-h for help)"
for s in "$@"; do [ -f "$s" ] || fail "no such guest script: $s"; done
[ -z "$BIN" ] || [ -x "$BIN" ] || fail "not an executable: $BIN"
# KVM when asked and usable: /dev/kvm must open for reading and writing (a container may show the
# node without the right to use it).
kvm_usable() { [ -c /dev/kvm ] && { exec 9<>/dev/kvm; } 2>/dev/null && exec 9>&-; }
case $ACCEL in
  tcg) ;;
  kvm) kvm_usable || fail "-A kvm: /dev/kvm is missing or cannot be opened" ;;
  auto) kvm_usable || ACCEL=tcg ;;  # and, once the kernel is known, a boot probe (below)
  *) fail "-A $ACCEL: tcg, kvm or auto" ;;
esac
if [ ${#DISKS[@]} -eq 0 ]; then
  DISKS=("ahci,rotation_rate=7200,physical_block_size=4096,model=VMTEST AHCI,serial=AHCI0001"
         "ide,rotation_rate=5400,model=VMTEST PIIX,serial=PIIX0001"
         "virtio-scsi,rotation_rate=10000,physical_block_size=4096,vendor=VMTEST,product=VIRTIO SCSI,serial=VSCSI0001"
         "virtio-blk,serial=VBLK0001"
         "nvme,serial=NVME0001")
fi

us() { echo "${EPOCHREALTIME/[.,]/}"; }
T_START=$(us)
secs() { local d=$(( $(us) - ${1:-$T_START} )); printf '%d.%d' $((d / 1000000)) $((d / 100000 % 10)); }

# ---------------------------------------------------------------- 1. host tools
# In CTest mode without DRIVESCOPE_REQUIRE_VM nothing is installed behind the user's back: a
# machine without QEMU simply skips. Otherwise (CI, or a developer running this by hand) the
# missing Debian packages are installed.
missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
# The guest needs a *static* busybox (there is no libc in the initramfs to serve a dynamic one).
{ [ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1; } || missing+=(busybox-static)
command -v sg_inq >/dev/null || missing+=(sg3-utils)
command -v hdparm >/dev/null || missing+=(hdparm)
command -v smartctl >/dev/null || missing+=(smartmontools)
command -v jq >/dev/null || missing+=(jq)
command -v nvme >/dev/null || missing+=(nvme-cli)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$CTEST" = 1 ] && [ -z "${DRIVESCOPE_REQUIRE_VM:-}" ]; then
    unavailable "missing host packages: ${missing[*]}"
  fi
  [ "$INSTALL" = 1 ] || fail "missing host packages: ${missing[*]}"
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  say "installing ${missing[*]}"
  $SUDO apt-get update -qq >&2 || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2 || fail "apt-get install ${missing[*]} failed"
fi
BB=/bin/busybox

# The cache lives outside the repository so that repeated runs (and CI runs on the same
# machine) reuse the kernel and the base initramfs. Fall back to a per-user cache if the
# default location is not writable.
if ! mkdir -p "$CACHE" 2>/dev/null || [ ! -w "$CACHE" ]; then
  [ -z "${DRIVESCOPE_VM_CACHE:-}" ] || fail "cache dir not writable: $CACHE"
  CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/drivescope-vm; mkdir -p "$CACHE"
fi
# Concurrent runs share the cache: whoever builds it holds the lock.
exec 8>"$CACHE/.lock"
flock 8

# ---------------------------------------------------------------- 2. kernel
# Modules the guest may load. Their dependencies (libata, scsi_mod, virtio_ring, ...) are
# added from modules.dep. scsi_debug and sym53c8xx are here for later guest scripts; ext4 (which
# also mounts ext2) and crc32c_generic (its checksum, a soft dependency modules.dep does not list)
# let guest-safety.sh mount a partition; bfq and kyber are the I/O schedulers Debian builds as
# modules (mq-deadline is built in), for the scheduler A/B of serve-guest.sh.
WANT_MODULES="sd_mod sg ahci ata_piix virtio_pci virtio_scsi virtio_blk nvme scsi_debug sym53c8xx \
crct10dif_generic ext4 crc32c_generic bfq kyber_iosched"

kpkg() {
  apt-cache depends linux-image-amd64 2>/dev/null | awk '$1 == "Depends:" && $2 ~ /^linux-image-/ {print $2; exit}'
}
KPKG=${DRIVESCOPE_VM_KERNEL:-$(kpkg)}
if [ -z "$KPKG" ]; then
  # Empty package lists (fresh machine): a cached kernel will do; else update the lists once.
  KPKG=$(cat "$CACHE"/kernel-*/kpkg 2>/dev/null | tail -n1)
  if [ -z "$KPKG" ] && { [ "$CTEST" = 0 ] || [ -n "${DRIVESCOPE_REQUIRE_VM:-}" ]; }; then
    apt-get update -qq >&2 || true; KPKG=$(kpkg)
  fi
  [ -n "$KPKG" ] || unavailable "cannot resolve the kernel package behind linux-image-amd64"
fi
# Keyed by the module list too: a cached tree holds only the modules wanted when it was made.
KDIR=$CACHE/kernel-$KPKG-$(printf '%s' "$WANT_MODULES" | sha256sum | cut -c1-8)
if [ ! -e "$KDIR/.done" ]; then
  say "fetching and unpacking $KPKG (once; cached in $KDIR)"
  tmp=$CACHE/tmp.$$; rm -rf "$tmp" "$KDIR"; mkdir -p "$tmp" "$KDIR"
  # apt-get download as root warns that it runs unsandboxed; harmless.
  (cd "$tmp" && apt-get download -q "$KPKG" >&2) || { rm -rf "$tmp" "$KDIR"; unavailable "apt-get download $KPKG failed"; }
  dpkg-deb -x "$tmp"/*.deb "$tmp/x"
  mdir=
  for d in "$tmp"/x/lib/modules/* "$tmp"/x/usr/lib/modules/*; do [ -d "$d" ] && { mdir=$d; break; }; done
  [ -n "$mdir" ] || fail "no modules directory in $KPKG"
  kver=${mdir##*/}
  cp "$tmp/x/boot/vmlinuz-$kver" "$KDIR/vmlinuz"
  echo "$kver" > "$KDIR/kver"
  echo "$KPKG" > "$KDIR/kpkg"
  # The .deb carries no modules.dep (depmod makes it at install time): make one. busybox
  # depmod expects BASE/lib/modules/VER.
  [ -e "$tmp/x/lib/modules/$kver" ] || { mkdir -p "$tmp/x/lib/modules"; ln -s "$mdir" "$tmp/x/lib/modules/$kver"; }
  "$BB" depmod -b "$tmp/x" "$kver"
  # Each modules.dep line is "path: dep dep ..." with the full closure (busybox writes it so),
  # so the wanted modules plus everything on their lines is the set to keep.
  awk -v want="$WANT_MODULES" '
    BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) W[w[i]] = 1 }
    { p = $1; sub(/:$/, "", p); m = p; sub(/.*\//, "", m); sub(/\.ko.*/, "", m); gsub(/-/, "_", m)
      if (m in W) { print p; for (i = 2; i <= NF; i++) print $i } }' "$mdir/modules.dep" |
    sort -u > "$KDIR/modules.list"
  dst=$KDIR/lib/modules/$kver; mkdir -p "$dst"
  cp "$mdir"/modules.builtin* "$mdir/modules.order" "$dst/"
  while read -r m; do
    mkdir -p "$dst/$(dirname "$m")"
    case $m in   # Debian's newer kernels compress modules; busybox modprobe wants plain .ko
      *.xz) xz -dc "$mdir/$m" > "$dst/${m%.xz}" ;;
      *.zst) zstd -qdc "$mdir/$m" > "$dst/${m%.zst}" ;;
      *) cp "$mdir/$m" "$dst/$m" ;;
    esac
  done < "$KDIR/modules.list"
  "$BB" depmod -b "$KDIR" "$kver"
  rm -rf "$tmp"
  touch "$KDIR/.done"
  say "kernel $kver ready ($(secs) s)"
fi
KVER=$(cat "$KDIR/kver")

# -A auto: /dev/kvm opening is not enough (a paravirtual KVM such as kvm-pvm opens and then hangs
# a stock kernel before its first message). The kernel must print its banner under KVM within
# 20 s; the verdict is cached per kernel and QEMU version.
if [ "$ACCEL" = auto ]; then
  probe=$CACHE/kvm-probe-$KVER-$(qemu-system-x86_64 --version | awk 'NR == 1 {print $4}')
  if [ ! -e "$probe" ]; then
    if timeout -k 2 20 qemu-system-x86_64 -machine q35 -accel kvm -cpu host -m 128 -nodefaults -no-reboot \
         -display none -kernel "$KDIR/vmlinuz" -append "console=ttyS0 panic=-1" -serial stdio < /dev/null 2>/dev/null |
         grep -q -m1 "Linux version"; then echo kvm > "$probe"; else echo tcg > "$probe"; fi
  fi
  ACCEL=$(cat "$probe")
  [ "$ACCEL" = kvm ] || say "KVM: /dev/kvm opens but a guest does not boot under it here: TCG"
fi

# ---------------------------------------------------------------- 3. initramfs
# Two gzip'ed newc cpio archives back to back (the kernel unpacks both): a cached base with
# busybox, the modules and the reference tools, and a small per-run one with /init, the guest
# scripts and drivescope.

# put_elf ROOT SRC DST: copy SRC to ROOT/DST and, for a dynamic ELF, each library the host's
# loader resolves for it, at the same path (the loader itself included).
put_elf() {
  local root=$1 src=$2 dst=$3 lib
  mkdir -p "$root$(dirname "$dst")"
  cp -L "$src" "$root$dst"
  # A file that is no dynamic ELF (a script, a text file) has no libraries: ldd fails, and
  # with pipefail that used to end the run silently.
  { ldd "$src" 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' |
  while read -r lib; do
    [ -e "$root$lib" ] && continue
    mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"
  done
}
pack() { (cd "$1" && find . | "$BB" cpio -o -H newc 2>/dev/null | gzip -1); }

# The base is keyed by the kernel and the versions of the tools in it, so an upgraded host
# package makes a new base rather than a stale one.
tool_versions=$(dpkg-query -W -f='${Package}=${Version} ' busybox-static sg3-utils hdparm smartmontools jq nvme-cli 2>/dev/null || true)
BASE_KEY=$(printf 'base-v1 %s %s %s' "$KVER" "$tool_versions" "$WANT_MODULES" | sha256sum | cut -c1-12)
BASE=$CACHE/base-$BASE_KEY.cpio.gz
if [ ! -s "$BASE" ]; then
  R=$CACHE/root.$$; rm -rf "$R"
  mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,proc,sys,dev,tmp,root,lib/modules}
  cp "$BB" "$R/bin/busybox"
  cp -a "$KDIR/lib/modules/$KVER" "$R/lib/modules/"
  for t in hdparm smartctl jq nvme $(ls "$(dirname "$(command -v sg_inq)")" | grep '^sg_'); do
    p=$(command -v "$t") && put_elf "$R" "$p" "/usr/bin/$t"
  done
  pack "$R" > "$BASE.tmp" && mv "$BASE.tmp" "$BASE"
  rm -rf "$R"
  say "base initramfs built: $(du -k "$BASE" | cut -f1) KiB ($(secs) s)"
fi
flock -u 8

RUN=$(mktemp -d "${TMPDIR:-/tmp}/drivescope-vm.XXXXXX")
cleanup() { if [ "$KEEP" = 1 ]; then say "run dir kept: $RUN"; else rm -rf "$RUN"; fi; }
trap cleanup EXIT
OUTDIR=${OUTDIR:-$RUN/out}
mkdir -p "$OUTDIR"

R=$RUN/root; mkdir -p "$R/vmtest/scripts" "$R/etc"
cp "$HERE/guest-lib.sh" "$R/vmtest/lib.sh"
i=0
for s in "$@"; do
  i=$((i + 1)); cp "$s" "$R/vmtest/scripts/$(printf '%02d' $i)-$(basename "$s")"
done
if [ -n "$BIN" ]; then
  put_elf "$R" "$BIN" /usr/local/bin/drivescope
  # A RelWithDebInfo build is ~50 MB, mostly DWARF: packing and unpacking that dominates the
  # boot under TCG, and the guest never needs it.
  ! command -v strip >/dev/null || strip --strip-debug "$R/usr/local/bin/drivescope"
fi
for a in "${EXTRA[@]+"${EXTRA[@]}"}"; do
  src=${a%%:*}; dst=${a#*:}; [ "$dst" != "$a" ] || dst=/usr/local/bin/$(basename "$src")
  [ -f "$src" ] || fail "-a: no such file: $src"
  put_elf "$R" "$src" "$dst"
done

# ---------------------------------------------------------------- 4. disks
QDISKS=()
MODS="sd_mod sg"          # sd_mod/sg first: every disk then gets its sdX and sgN as it appears
have_hba() { case " $MODS " in *" $1 "*) return 0 ;; esac; return 1; }
n=0; n_ahci=0; n_ide=0
for spec in "${DISKS[@]}"; do
  kind=${spec%%,*}; rest=${spec#"$kind"}; rest=${rest#,}
  size=1G; latency=; nbd=; blkdebug=; devopts=
  IFS=, read -r -a kvs <<< "$rest"
  for kv in "${kvs[@]+"${kvs[@]}"}"; do
    case $kv in
      size=*) size=${kv#size=} ;;
      latency-ns=*) latency=${kv#latency-ns=} ;;
      nbd=*) nbd=${kv#nbd=} ;;
      blkdebug=*) blkdebug=${kv#blkdebug=} ;;
      *) devopts+=",$kv" ;;
    esac
  done
  if [ -n "$nbd" ]; then
    QDISKS+=(-drive "if=none,id=d$n,format=raw,file=$nbd")
  elif [ -n "$latency" ]; then
    QDISKS+=(-drive "if=none,id=d$n,driver=null-co,size=$size,read-zeroes=on,latency-ns=$latency")
  elif [ -n "$blkdebug" ]; then
    # raw over blkdebug over the image file: the rules see every request the guest's disk gets,
    # by 512-byte sector; rerror=report hands an injected error to the guest as the device's.
    [ -f "$blkdebug" ] || fail "blkdebug=: no such rules file: $blkdebug"
    truncate -s "$size" "$RUN/disk$n.img"
    QDISKS+=(-drive "if=none,id=d$n,format=raw,rerror=report,werror=report,file.driver=blkdebug,file.config=$(realpath "$blkdebug"),file.image.driver=file,file.image.filename=$RUN/disk$n.img")
  else
    truncate -s "$size" "$RUN/disk$n.img"
    QDISKS+=(-drive "if=none,id=d$n,format=raw,file=$RUN/disk$n.img")
  fi
  case $kind in
    ahci)        # q35's built-in ICH9 AHCI: ports ide.0 … ide.5
      [ $n_ahci -lt 6 ] || fail "at most 6 ahci disks"
      QDISKS+=(-device "ide-hd,bus=ide.$n_ahci,drive=d$n$devopts"); n_ahci=$((n_ahci + 1))
      have_hba ahci || MODS+=" ahci" ;;
    ide)         # a PIIX3 IDE controller added to q35: pide.0/pide.1, units 0/1
      [ $n_ide -lt 4 ] || fail "at most 4 ide disks"
      have_hba ata_piix || { QDISKS+=(-device piix3-ide,id=pide); MODS+=" ata_piix"; }
      QDISKS+=(-device "ide-hd,bus=pide.$((n_ide / 2)),unit=$((n_ide % 2)),drive=d$n$devopts")
      n_ide=$((n_ide + 1)) ;;
    virtio-scsi)
      have_hba virtio_scsi || { QDISKS+=(-device virtio-scsi-pci,id=vscsi); MODS+=" virtio_pci virtio_scsi"; }
      QDISKS+=(-device "scsi-hd,bus=vscsi.0,drive=d$n$devopts") ;;
    virtio-blk)
      have_hba virtio_blk || { have_hba virtio_pci || MODS+=" virtio_pci"; MODS+=" virtio_blk"; }
      QDISKS+=(-device "virtio-blk-pci,drive=d$n$devopts") ;;
    nvme)        # one controller per disk, its namespace 1 the drive
      have_hba nvme || { MODS+=" nvme"; }
      QDISKS+=(-device "nvme,drive=d$n$devopts") ;;
    *) fail "unknown disk kind '$kind' (ahci, ide, virtio-scsi, virtio-blk, nvme)" ;;
  esac
  n=$((n + 1))
done
{ echo "VMTEST_MODULES='$MODS'"; echo "VMTEST_ACCEL=$ACCEL"; } > "$R/etc/vmtest.conf"

# ---------------------------------------------------------------- 5. /init
# PID 1. Output protocol on ttyS1 (the host reads it line by line):
#   @@VM BOOTED|READY|SCRIPT name rc|EXIT rc   timing/status markers (guest uptime appended)
#   @@VM FILE name / @@| line / @@VM FILE-END  a file exported by vm_export (guest-lib.sh)
cat > "$R/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/usr/local/bin:/usr/bin:/usr/sbin:/bin:/sbin HOME=/root
mount -t proc proc /proc; mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev; mount -t tmpfs tmpfs /tmp
. /etc/vmtest.conf
out=/dev/ttyS1
stty -F $out raw -echo 2>/dev/null     # raw: no \n -> \r\n, nothing echoed back
up() { cut -d' ' -f1 /proc/uptime; }
echo "@@VM BOOTED $(up)" > $out
# modprobe returns once the driver's (async) probe of its disks has finished.
for m in $VMTEST_MODULES; do modprobe $m 2>/dev/null || echo "vm: modprobe $m failed" > $out; done
prev=; for i in 1 2 3 4 5 6 7 8 9 10; do    # then wait for /sys/block to settle (≤ 5 s)
  cur=$(ls /sys/block); [ "$cur" = "$prev" ] && break; prev=$cur; sleep 0.5
done
echo "@@VM READY $(up)" > $out
export VMTEST_LIB=/vmtest/lib.sh
rc=0
for s in /vmtest/scripts/*; do
  sh "$s" > $out 2>&1 < /dev/null; r=$?
  echo "@@VM SCRIPT ${s##*/} $r $(up)" > $out
  [ $rc -ne 0 ] || rc=$r
done
echo "@@VM EXIT $rc $(up)" > $out
sync
poweroff -f
INIT
chmod +x "$R/init"
{ cat "$BASE"; pack "$R"; } > "$RUN/initrd.img"

# ---------------------------------------------------------------- 6. boot
# q35, TCG (or KVM, -A), one CPU (-smp 2 boots slower under TCG), no NIC/VGA. ttyS0 = kernel
# console into console.log, ttyS1 = guest output to us. -no-reboot + panic=-1: a panic ends QEMU.
if [ "$ACCEL" = kvm ]; then CPU=host; else CPU=max; fi
QEMU=(qemu-system-x86_64 -machine q35 -accel "$ACCEL" -cpu "$CPU" -m 512 -smp 1
      -nodefaults -no-reboot -display none
      -kernel "$KDIR/vmlinuz" -initrd "$RUN/initrd.img"
      -append "console=ttyS0 quiet panic=-1"
      -serial "file:$RUN/console.log" -serial stdio
      "${QDISKS[@]}")
RT=()
if [ "$REALTIME" = 1 ]; then
  if chrt -f 1 true 2>/dev/null; then RT=(chrt -f 1); say "real-time priority: QEMU under SCHED_FIFO 1"
  else say "real-time priority: refused (not root, no CAP_SYS_NICE): QEMU at normal priority"; fi
fi
say "booting $KPKG with ${#DISKS[@]} disks under $ACCEL (setup took $(secs) s)"
T_BOOT=$(us)
status=$RUN/status; : > "$status"
set +e
timeout -k 5 "$TIMEOUT" "${RT[@]+"${RT[@]}"}" "${QEMU[@]}" < /dev/null | {
  file=
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    if [ -n "$file" ]; then
      case $line in
        "@@| "*) printf '%s\n' "${line#@@| }" >> "$OUTDIR/$file"; continue ;;
        "@@|") echo >> "$OUTDIR/$file"; continue ;;
        "@@VM FILE-END") say "exported $OUTDIR/$file"; file=; continue ;;
      esac
    fi
    case $line in
      "@@VM BOOTED "*) say "guest init after $(secs "$T_BOOT") s" ;;
      "@@VM READY "*) say "drivers loaded after $(secs "$T_BOOT") s" ;;
      "@@VM SCRIPT "*) set -- ${line#@@VM SCRIPT }; say "guest script $1 exited $2 ($(secs "$T_BOOT") s)" ;;
      "@@VM FILE "*) file=${line#@@VM FILE }; file=${file//\//_}; : > "$OUTDIR/$file" ;;
      *"@@VM EXIT "*)
        pre=${line%%@@VM EXIT *}; [ -z "$pre" ] || printf '%s\n' "$pre"
        set -- ${line##*@@VM EXIT }; echo "$1" > "$status" ;;
      *) printf '%s\n' "$line" ;;
    esac
  done
}
qrc=${PIPESTATUS[0]}
set -e
[ "$VERBOSE" = 0 ] || { say "guest kernel console:"; cat "$RUN/console.log" >&2; }
rc=$(cat "$status")
if [ -z "$rc" ]; then
  [ "$qrc" != 124 ] || say "the VM hit the $TIMEOUT s limit and was killed"
  say "the guest did not finish (qemu exit $qrc); end of its kernel console:"
  tail -n 80 "$RUN/console.log" >&2
  exit 3
fi
say "guest exit $rc; boot+tests $(secs "$T_BOOT") s, total $(secs) s"
exit "$rc"
