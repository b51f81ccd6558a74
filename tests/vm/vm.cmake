# End-to-end tests in a QEMU guest (tests/vm/README.md). Included from tests/CMakeLists.txt.
# One CTest test, one boot: every tests/vm/guest-*.sh runs in the same VM (a boot costs ~10 s).
# Exit 77 = skipped: QEMU (or the kernel package) is not available and DRIVESCOPE_REQUIRE_VM is
# not set. With DRIVESCOPE_REQUIRE_VM set (CI), vm-run.sh installs what is missing or fails.
file(GLOB ds_vm_guest_scripts CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/guest-*.sh)
# guest-lib.sh is the helpers; guest-safety.sh and guest-faults.sh need their host scripts' disks
# and a boot of their own.
list(FILTER ds_vm_guest_scripts EXCLUDE REGEX "/guest-(lib|safety|faults)\\.sh$")
list(SORT ds_vm_guest_scripts)
add_test(NAME vm
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/vm-run.sh -S -t 360
          -b $<TARGET_FILE:drivescope> -o ${CMAKE_CURRENT_BINARY_DIR}/vm-out
          ${ds_vm_guest_scripts})
# TIMEOUT covers a first run that fetches the kernel (~1 min) plus a slow boot on a busy host;
# the VM itself is killed by vm-run.sh after 360 s (at a host load of 10 the guest scripts took
# 205 s, guest-json.sh's run of every command about 95 s of them).
set_tests_properties(vm PROPERTIES LABELS vm SKIP_RETURN_CODE 77 TIMEOUT 540 RESOURCE_LOCK ds_vm)

# The safety test (issue 7): its own boot with two extra scratch disks, then a host-side SHA-256
# check of every image (tests/vm/safety-host.sh).
add_test(NAME vm-safety
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/safety-host.sh -S -t 420 -b $<TARGET_FILE:drivescope>)
set_tests_properties(vm-safety PROPERTIES LABELS vm SKIP_RETURN_CODE 77 TIMEOUT 600 RESOURCE_LOCK ds_vm)

# Failing drives through a real kernel (issue 31 item 4, tests/vm/faults-host.sh): QEMU's blkdebug
# under AHCI, virtio-scsi and virtio-blk disks fails reads of a sector range, every read or every
# 7th read, and a served drive stalls 45 s (nbdkit's pause filter); every command that reads the
# media must exit 5 naming the LBA, keep what it measured and restore features. About 2 minutes.
add_test(NAME vm-faults
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/faults-host.sh -S -t 420 -b $<TARGET_FILE:drivescope>)
set_tests_properties(vm-faults PROPERTIES LABELS vm SKIP_RETURN_CODE 77 TIMEOUT 600 RESOURCE_LOCK ds_vm)

# drivescope serve in a guest (issue 13, tests/vm/serve-host.sh): sim:raptor and sim:wd1200jd
# served from the host on AHCI, sim:raptor on virtio-scsi; its own boot (about 70 s on a loaded
# 2-core machine with real-time priority: boot 15 s, three `drivescope ncq` runs and four queue
# tests of a few seconds of drive time each; 40-95 s without).
add_test(NAME vm-serve
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/serve-host.sh -S -t 300 -b $<TARGET_FILE:drivescope>)
# The served drives answer in real time and the guest's checks time them: nothing else may load
# the 2 cores meanwhile (RUN_SERIAL). Beside accuracy_seeds' two threads, a CI run's guest bench
# had a zone 5.5 % off and 18 zones for 16 (2026-12-01).
set_tests_properties(vm-serve PROPERTIES LABELS vm SKIP_RETURN_CODE 77 TIMEOUT 420 RESOURCE_LOCK ds_vm RUN_SERIAL TRUE)

# drivescope's measurements through a real kernel (issue 13, tests/vm/serve-bench-host.sh): bench
# access,transfer and the scheduler A/B on sim:raptor served on AHCI, judged against tools/truth
# (serve-bench-judge.py); needs real-time priority (skipped without, a failure in CI). About 2 minutes (a 120 s bench).
add_test(NAME vm-serve-bench
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/serve-bench-host.sh -S -t 400 -b $<TARGET_FILE:drivescope>)
set_tests_properties(vm-serve-bench PROPERTIES LABELS vm SKIP_RETURN_CODE 77 TIMEOUT 540 RESOURCE_LOCK ds_vm RUN_SERIAL TRUE)

# A twin through a real kernel (issue "A drive's twin", tests/vm/twin-host.sh): sim:wd1200jd served
# on AHCI, `drivescope model` in the guest (120 s of drive time), the random4k and database traces
# replayed there and on the twin; twin-judge.py prints each demerit and the host path's share. It
# fails where no figure can be made; the 6 % goal is printed, not required (not met on database yet:
# docs/twin.md). About 3 minutes; real-time priority as vm-serve-bench.
add_test(NAME vm-twin
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/twin-host.sh -S -t 500 -b $<TARGET_FILE:drivescope>)
set_tests_properties(vm-twin PROPERTIES LABELS vm SKIP_RETURN_CODE 77 TIMEOUT 600 RESOURCE_LOCK ds_vm RUN_SERIAL TRUE)
