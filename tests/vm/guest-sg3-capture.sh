# guest-sg3-capture.sh — capture the ATA PASS-THROUGH CDBs that sg3_utils builds, so that
# tests/passthrough/sat_sg3_crosscheck.cpp can compare drivescope's SAT encoders with an
# independent implementation byte for byte.
#
# Each command runs with -vvv against the AHCI disk (libata's SAT layer, so the commands are
# really executed) and its whole output is exported to the host. To refresh the fixtures:
#   tests/vm/vm-run.sh -o tests/data/sg3-cdbs tests/vm/guest-sg3-capture.sh
# Only commands QEMU completes without an abort are used: an aborted non-NCQ command makes
# the next NCQ command fail once (see the harness notes), and these are harmless anyway —
# IDENTIFY reads, AAM on/off is a no-op on QEMU, write cache and look-ahead are already on.
. "$VMTEST_LIB"

dev=$(vm_disk_by_model "VMTEST AHCI") || { echo "FAIL no AHCI disk"; exit 1; }
sg=/dev/$(vm_sg_of "$dev")

# capture NAME CMD... — run CMD, export its output as NAME.txt, check it completed and
# printed a CDB. capture_any: the same without requiring success.
capture() {
  local name=$1; shift
  "$@" > "/tmp/$name.txt" 2>&1; local rc=$?
  check "$name exit status" 0 "$rc"
  capture_any "$name" cat "/tmp/$name.txt"
}
capture_any() {
  local name=$1; shift
  "$@" > "/tmp/$name.tmp" 2>&1; mv "/tmp/$name.tmp" "/tmp/$name.txt"
  check_true "$name printed a pass-through CDB" grep -q 'pass-through(1[26]) cdb:' "/tmp/$name.txt"
  vm_export "$name.txt" "/tmp/$name.txt"
}

vm_section "sg3_utils CDB capture on /dev/$dev ($sg)"
sg_sat_identify -V 2>&1 | head -n1
capture identify-16         sg_sat_identify -vvv "$sg"
capture identify-12         sg_sat_identify -l 12 -vvv "$sg"
capture identify-16-extend  sg_sat_identify -e -vvv "$sg"
capture aam-on-128-16       sg_sat_set_features --feature=0x42 --count=0x80 -vvv "$sg"
capture aam-on-128-12       sg_sat_set_features --feature=0x42 --count=0x80 -l 12 -vvv "$sg"
capture aam-off-16          sg_sat_set_features --feature=0xc2 -vvv "$sg"
capture wcache-on-16        sg_sat_set_features --feature=0x02 -vvv "$sg"
capture lookahead-on-12     sg_sat_set_features --feature=0xaa -l 12 -vvv "$sg"
# CK_COND=1 asks the SAT layer for the ATA registers back as sense data. Linux 6.1 answers a
# PIO data-in command with CK_COND by ABORTED COMMAND (it maps the DRQ bit of status 0x58), so
# its exit status is not checked: only the CDB matters here, and the sense is a real sample.
capture_any identify-16-ckcond sg_sat_identify --ck_cond -vvv "$sg"

# Provenance for the fixtures' README.
{
  echo "tool: $(sg_sat_identify -V 2>&1 | head -n1); $(sg_sat_set_features -V 2>&1 | head -n1)"
  echo "guest kernel: $(uname -r); disk: QEMU ide-hd on ICH9 AHCI, $(trim < /sys/block/$dev/device/model), libata SAT"
} > /tmp/provenance.txt
vm_export provenance.txt /tmp/provenance.txt
vm_done
