# End-to-end tests in a QEMU guest (tests/vm/README.md). Included from tests/CMakeLists.txt.
# One CTest test, one boot: every tests/vm/guest-*.sh runs in the same VM (a boot costs ~10 s).
# Exit 77 = skipped: QEMU (or the kernel package) is not available and DRIVESCOPE_REQUIRE_VM is
# not set. With DRIVESCOPE_REQUIRE_VM set (CI), vm-run.sh installs what is missing or fails.
file(GLOB ds_vm_guest_scripts CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/guest-*.sh)
list(FILTER ds_vm_guest_scripts EXCLUDE REGEX "/guest-lib\\.sh$")
list(SORT ds_vm_guest_scripts)
add_test(NAME vm
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/vm-run.sh -S -t 240
          -b $<TARGET_FILE:drivescope> -o ${CMAKE_CURRENT_BINARY_DIR}/vm-out
          ${ds_vm_guest_scripts})
# TIMEOUT covers a first run that fetches the kernel (~1 min) plus a slow boot on a busy host;
# the VM itself is killed by vm-run.sh after 240 s.
set_tests_properties(vm PROPERTIES LABELS vm SKIP_RETURN_CODE 77 TIMEOUT 420 RESOURCE_LOCK ds_vm)
