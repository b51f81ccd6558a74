# twin-guest.sh — in the guest of tests/vm/twin-host.sh: "SERVE TWIN" is a preset served in real
# time from the host on q35's AHCI. Here `drivescope model` measures it through the guest's kernel
# and QEMU (the drive and the host path together) and writes its twin; then the guest replays the
# host's two read traces on the disk, twice, and exports the twin and each request's service time
# for the host to replay on the twin and judge (tests/vm/twin-judge.py).
. "$VMTEST_LIB"
. /etc/twin.conf

DS=drivescope
blk=$(vm_disk_by_model "SERVE TWIN")
vm_section "served $PRESET (/dev/$blk)"
check_nonempty "served drive: found" "$blk"
[ -n "$blk" ] || vm_done
# Warm-up reads (QEMU's quirk after probing, tests/vm/README.md).
dd if=/dev/$blk of=/dev/null bs=4096 count=8 2>/dev/null

t0=$(cut -d' ' -f1 /proc/uptime)
$DS model "/dev/$blk" -o /tmp/twin.json --budget "$MODEL_BUDGET" --seed 1 --quiet > /tmp/model.out 2> /tmp/model.err
rc=$?
vm_note "model took $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN {printf "%.0f", b - a}') s in the guest"
check "model exit" 0 "$rc"
[ "$rc" -eq 0 ] || sed 's/^/   | /' /tmp/model.err
vm_export twin.json /tmp/twin.json

# Each trace twice, in turn (random4k, database, random4k, database): the second pass against the
# first is the guest's own floor, how far the host path moves between two replays of one trace.
for pass in "" .again; do
  for t in random4k database; do
    vm_section "replay $t$pass on /dev/$blk"
    $DS replay "/dev/$blk" "/etc/twin-$t.iolog" --json > "/tmp/$t.json" 2> "/tmp/$t.err"
    rc=$?
    check "replay $t$pass exit" 0 "$rc"
    [ "$rc" -eq 0 ] || sed 's/^/   | /' "/tmp/$t.err"
    # One line a request, "LBA BLOCKS SERVICE_MS": the serial port carries ~100 KB/s.
    jq -r '.replay.requests[] | "\(.lba) \(.blocks) \(.service_ms)"' "/tmp/$t.json" > "/tmp/$t$pass.txt"
    check "replay $t$pass: every request served" "$TRACE_REQUESTS" "$(wc -l < "/tmp/$t$pass.txt" | tr -d ' ')"
    vm_export "$t$pass.txt" "/tmp/$t$pass.txt"
  done
done
vm_done
