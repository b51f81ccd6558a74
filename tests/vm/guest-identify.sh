# guest-identify.sh — `drivescope identify` and `drivescope list` on QEMU's emulated drives,
# compared field by field with the reference tools run in the same guest (hdparm -I,
# smartctl -i, sg_inq, sg_vpd, sg_readcap) and with what vm-run.sh configured (model, serial,
# rotation_rate=). The configured value is checked too, so that drivescope and a reference
# tool cannot "agree" on an empty or wrong value.
. "$VMTEST_LIB"

DS=drivescope
command -v $DS >/dev/null || { echo "FAIL drivescope is not in the guest (vm-run.sh -b)"; VM_FAIL=1; vm_done; }

# field TEXT LABEL — the value after "LABEL:" in a reference tool's output, trimmed.
field() { printf '%s\n' "$1" | grep -m1 "$2:" | sed "s/.*$2:[[:space:]]*//" | trim; }

# ds_identify BLK — run `drivescope identify --json`, keep the document in /tmp/ds-BLK.json and
# its exit status in DS_RC.
ds_identify() {
  $DS identify --json "/dev/$1" > "/tmp/ds-$1.json" 2> "/tmp/ds-$1.err"; DS_RC=$?
  vm_export "identify-$1.json" "/tmp/ds-$1.json"    # kept on the host for a post-mortem
  if ! jq -e . "/tmp/ds-$1.json" > /dev/null 2>&1; then
    echo "   drivescope identify --json /dev/$1: exit $DS_RC, not JSON; stdout/stderr follow"
    sed 's/^/   | /' "/tmp/ds-$1.json" "/tmp/ds-$1.err"
  elif [ -s "/tmp/ds-$1.err" ]; then
    echo "   drivescope identify --json /dev/$1: exit $DS_RC, stderr follows"; sed 's/^/   | /' "/tmp/ds-$1.err"
  fi
}

# ---------------------------------------------------------------- ATA disks behind libata SAT
# check_ata BLK MODEL SERIAL RPM NCQ(true|false) NCQ_DEPTH HOST_QD
check_ata() {
  local blk=$1 model=$2 serial=$3 rpm=$4 ncq=$5 depth=$6 hostqd=$7 j=/tmp/ds-$1.json
  vm_section "ATA disk /dev/$blk ($model)"
  local hd sm
  # hdparm -I: its READ LOG EXT is aborted by QEMU (harmless "bad/missing sense" on stderr).
  hd=$(hdparm -I "/dev/$blk" 2>/dev/null)
  sm=$(smartctl -i -g wcache "/dev/$blk" 2>/dev/null)
  ds_identify "$blk"
  check "exit status" 0 "$DS_RC"
  check "target.kind" ata "$(jget $j .target.kind)"

  local h_model h_serial h_fw h_cap h_rpm h_qd s_model s_serial s_fw s_bytes s_rpm
  h_model=$(field "$hd" "Model Number"); s_model=$(field "$sm" "Device Model")
  h_serial=$(field "$hd" "Serial Number"); s_serial=$(field "$sm" "Serial Number")
  h_fw=$(field "$hd" "Firmware Revision"); s_fw=$(field "$sm" "Firmware Version")
  h_cap=$(field "$hd" "LBA48  user addressable sectors")
  s_bytes=$(field "$sm" "User Capacity" | sed 's/ bytes.*//; s/,//g')
  h_rpm=$(field "$hd" "Nominal Media Rotation Rate"); s_rpm=$(field "$sm" "Rotation Rate" | sed 's/ rpm//')
  h_qd=$(field "$hd" "Queue depth")

  check "model (configured)" "$model" "$(jget $j .identify.model)"
  check "model = hdparm -I" "$h_model" "$(jget $j .identify.model)"
  check "model = smartctl -i" "$s_model" "$(jget $j .identify.model)"
  check "serial (configured)" "$serial" "$(jget $j .identify.serial)"
  check "serial = hdparm -I" "$h_serial" "$(jget $j .identify.serial)"
  check "serial = smartctl -i" "$s_serial" "$(jget $j .identify.serial)"
  check_nonempty "firmware (hdparm -I)" "$h_fw"
  check "firmware = hdparm -I" "$h_fw" "$(jget $j .identify.firmware)"
  check "firmware = smartctl -i" "$s_fw" "$(jget $j .identify.firmware)"
  check "capacity_sectors (1 GiB image)" 2097152 "$(jget $j .identify.capacity_sectors)"
  check "capacity_sectors = hdparm -I LBA48" "$h_cap" "$(jget $j .identify.capacity_sectors)"
  check "capacity_sectors = smartctl bytes/512" "$((s_bytes / 512))" "$(jget $j .identify.capacity_sectors)"
  check "rotation_rate_rpm (configured)" "$rpm" "$(jget $j .identify.rotation_rate_rpm)"
  check "rotation_rate_rpm = hdparm -I" "$h_rpm" "$(jget $j .identify.rotation_rate_rpm)"
  check "rotation_rate_rpm = smartctl -i" "$s_rpm" "$(jget $j .identify.rotation_rate_rpm)"

  check "ncq.supported" "$ncq" "$(jget $j .identify.ncq.supported)"
  if [ "$ncq" = true ]; then
    check_true "hdparm -I lists NCQ as supported" contains "$hd" '\*.*Native Command Queueing'
    check "ncq.depth" "$depth" "$(jget $j .identify.ncq.depth)"
    check "ncq.depth = hdparm -I Queue depth" "$h_qd" "$(jget $j .identify.ncq.depth)"
  else
    check "hdparm -I shows no queue depth" "" "$h_qd"
    check_true "hdparm -I does not list NCQ" not contains "$hd" 'Native Command Queueing'
    # A drive without NCQ has no NCQ queue depth: null (not reported) or absent, never a number.
    check "ncq.depth (no NCQ)" null "$(jget $j .identify.ncq.depth)"
  fi

  # QEMU's ATA disks have no legacy TCQ (IDENTIFY w83 bit 1 = 0).
  check "tcq.supported" false "$(jget $j .identify.tcq.supported)"
  check "write_cache.enabled = smartctl -g wcache" \
    "$(field "$sm" "Write cache is" | sed 's/Enabled/true/; s/Disabled/false/')" \
    "$(jget $j .identify.write_cache.enabled)"
  local sys_qd; sys_qd=$(cat "/sys/block/$blk/device/queue_depth")
  check "sysfs queue_depth (libata)" "$hostqd" "$sys_qd"
  check "host.queue_depth = sysfs" "$sys_qd" "$(jget $j .host.queue_depth)"
  check "host.transport" ata "$(jget $j .host.transport)"

  # A command the drive rejects. QEMU's ATA emulation implements no READ LOG EXT (hdparm's own
  # attempt is aborted, see above) and its IDENTIFY does not claim GPL, so identify leaves the
  # logs alone; with --logs it sends READ LOG EXT anyway and must show the drive's ATA abort,
  # decoded from the ATA Status Return descriptor, not a transport or OS failure.
  check "general_purpose_logs.claimed (QEMU: no)" false "$(jget $j .identify.general_purpose_logs.claimed)"
  check "general_purpose_logs not read unasked" false "$(jget $j .identify.general_purpose_logs.read)"
  local lj=/tmp/ds-logs-$blk.json lt
  $DS identify --logs --json "/dev/$blk" > "$lj" 2>/dev/null
  check "identify --logs: exit" 0 $?
  check "READ LOG EXT: answered with CHECK CONDITION" "check condition" "$(jget $lj .identify.general_purpose_logs.error.outcome)"
  check "READ LOG EXT: decoded as an ATA abort" true "$(jget $lj .identify.general_purpose_logs.error.aborted)"
  check "READ LOG EXT: ERROR register = ABRT" 0x04 "$(jget $lj .identify.general_purpose_logs.error.ata_error)"
  check_true "sg_sat_read_gplog -l 0 fails here too (reference)" not quiet sg_sat_read_gplog -l 0 "/dev/$(vm_sg_of "$blk")"
  lt=$($DS identify --logs "/dev/$blk" 2>&1)
  check_true "text says the drive aborted READ LOG EXT (ABRT)" contains "$lt" 'aborted the command.*ABRT set'
}

# ---------------------------------------------------------------- SCSI disk, no SAT
check_scsi() {
  local blk=$1 j=/tmp/ds-$1.json sg=/dev/$(vm_sg_of "$1")
  vm_section "SCSI disk /dev/$blk (virtio-scsi, $sg)"
  local inq sn bdc cap
  inq=$(sg_inq "$sg" 2>&1); sn=$(sg_vpd -p sn "$sg" 2>&1)
  bdc=$(sg_vpd -p bdc "$sg" 2>&1); cap=$(sg_readcap -l "$sg" 2>&1)
  ds_identify "$blk"
  check "exit status" 0 "$DS_RC"
  # The reference: this HBA really has no SAT layer (ATA PASS-THROUGH is an invalid opcode), so
  # drivescope must identify it through SCSI commands only.
  check_true "sg_sat_identify fails here (no SAT)" not quiet sg_sat_identify "$sg"
  check "target.kind" scsi "$(jget $j .target.kind)"
  local vendor product serial rpm blocks
  vendor=$(field "$inq" "Vendor identification"); product=$(field "$inq" "Product identification")
  serial=$(field "$sn" "Unit serial number"); rpm=$(field "$bdc" "Nominal rotation rate" | sed 's/ rpm//')
  blocks=$(printf '%s\n' "$cap" | sed -n 's/.*Number of logical blocks=\([0-9]*\).*/\1/p')
  check "vendor (configured)" VMTEST "$vendor"
  check "vendor = sg_inq" "$vendor" "$(jget $j .identify.vendor)"
  check "product (configured)" "VIRTIO SCSI" "$product"
  check "model = sg_inq product" "$product" "$(jget $j .identify.model)"
  check "serial (configured)" VSCSI0001 "$serial"
  check "serial = sg_vpd -p sn" "$serial" "$(jget $j .identify.serial)"
  check "firmware = sg_inq revision" "$(field "$inq" "Product revision level")" "$(jget $j .identify.firmware)"
  # SCSI command queuing (SPC-4 standard INQUIRY CmdQue) is reported as tcq, its depth the host's.
  check "sg_inq CmdQue" 1 "$(printf '%s\n' "$inq" | sed -n 's/.*CmdQue=\([01]\).*/\1/p')"
  check "tcq.supported (CmdQue=1)" true "$(jget $j .identify.tcq.supported)"
  check "tcq.depth = sysfs queue_depth" "$(cat /sys/block/$blk/device/queue_depth)" "$(jget $j .identify.tcq.depth)"
  check "rotation (configured)" 10000 "$rpm"
  check "rotation_rate_rpm = sg_vpd -p bdc" "$rpm" "$(jget $j .identify.rotation_rate_rpm)"
  check_nonempty "sg_readcap -l logical blocks" "$blocks"
  check "capacity_sectors = sg_readcap -l" "$blocks" "$(jget $j .identify.capacity_sectors)"
  check "host.queue_depth = sysfs" "$(cat /sys/block/$blk/device/queue_depth)" "$(jget $j .host.queue_depth)"
  check "host.transport" scsi "$(jget $j .host.transport)"
}

# ---------------------------------------------------------------- virtio-blk: no SCSI layer
check_virtio_blk() {
  local blk=$1 j=/tmp/ds-$1.json
  vm_section "virtio-blk /dev/$blk (no SCSI layer, no passthrough)"
  check_true "the reference has no SG_IO either (sg_inq fails)" not quiet sg_inq "/dev/$blk"
  $DS identify "/dev/$blk" > /tmp/ds-vblk.txt 2>&1; local rc=$?
  echo "   --- drivescope identify /dev/$blk (exit $rc):"; sed 's/^/   | /' /tmp/ds-vblk.txt
  # Documented in docs/cli.md: 3 = part of the answer is missing (here: no passthrough).
  check "exit status (partial)" 3 "$rc"
  check_true "says passthrough is unavailable" grep -qi 'passthrough.*\(unavailable\|not available\)' /tmp/ds-vblk.txt
  check_true "still shows the sysfs transport (virtio)" grep -qi virtio /tmp/ds-vblk.txt
  ds_identify "$blk"
  check "--json exit status (partial)" 3 "$DS_RC"
  check "passthrough.available" false "$(jget $j .passthrough.available)"
  # docs/cli.md: a block device drivescope can only do block I/O on is a "file" target.
  check "target.kind" file "$(jget $j .target.kind)"
  check "host.transport" virtio "$(jget $j .host.transport)"
  check "size from sysfs (sectors)" "$(cat /sys/block/$blk/size)" "$(jget $j .host.size_sectors)"
  check "host.rotational from sysfs" "$(cat /sys/block/$blk/queue/rotational | sed 's/1/true/; s/0/false/')" \
    "$(jget $j .host.rotational)"
}

# ---------------------------------------------------------------- AAM through SET FEATURES
# QEMU accepts SET FEATURES 42h (enable AAM, level in COUNT) as a no-op but never reports AAM in
# IDENTIFY (w83 bit 9 = 0), so the command must complete and drivescope must say it cannot verify
# the level; on the SCSI disk it must refuse clearly without sending anything.
check_aam() {
  vm_section "drivescope aam"
  local rc out
  out=$($DS aam "/dev/$AHCI" set 128 2>&1); rc=$?
  printf '%s\n' "$out" | sed 's/^/   | /'
  check "aam set 128 on AHCI: exit status" 0 "$rc"
  check_true "aam set 128: SET FEATURES accepted" contains "$out" accepted
  $DS aam "/dev/$AHCI" > /dev/null 2>&1; rc=$?
  check "aam get on AHCI (IDENTIFY does not report AAM): exit status (partial)" 3 "$rc"
  out=$($DS aam "/dev/$SCSI" 2>&1); rc=$?
  printf '%s\n' "$out" | sed 's/^/   | /'
  check "aam on the SCSI disk: exit status" 1 "$rc"
  check_true "aam on the SCSI disk: says it is an ATA feature" contains "$out" 'ATA feature'
}

# ---------------------------------------------------------------- drivescope list
check_list() {
  vm_section "drivescope list"
  $DS list > /tmp/ds-list.txt 2>&1; local rc=$?
  sed 's/^/   | /' /tmp/ds-list.txt
  check "list exit status" 0 "$rc"
  $DS list --json > /tmp/ds-list.json 2> /dev/null
  local want
  for want in "$AHCI ata" "$PIIX ata" "$SCSI scsi" "$VBLK virtio"; do
    set -- $want
    check "list: $1 transport" "$2" "$(jq -r --arg n "$1" \
      '[.. | objects | select(.name? == $n or .name? == ("/dev/" + $n)) | .transport?] | map(select(. != null)) | first // "missing"' \
      /tmp/ds-list.json 2>/dev/null)"
  done
}

AHCI=$(vm_disk_by_model "VMTEST AHCI"); PIIX=$(vm_disk_by_model "VMTEST PIIX")
SCSI=$(vm_disk_by_model "VIRTIO SCSI"); VBLK=$(vm_disk_by_serial VBLK0001)
for v in AHCI PIIX SCSI VBLK; do eval "check_nonempty 'disk $v found' \"\$$v\""; done
echo "   disks: AHCI=$AHCI PIIX=$PIIX SCSI=$SCSI VBLK=$VBLK"
# Without a disk a section would compare empty strings: stop here instead.
[ -n "$AHCI" ] && [ -n "$PIIX" ] && [ -n "$SCSI" ] && [ -n "$VBLK" ] || vm_done

check_ata "$AHCI" "VMTEST AHCI" AHCI0001 7200 true 32 32
check_ata "$PIIX" "VMTEST PIIX" PIIX0001 5400 false "" 1
check_scsi "$SCSI"
check_virtio_blk "$VBLK"
check_aam
check_list
vm_done
