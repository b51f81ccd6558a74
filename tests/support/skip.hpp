// Visible skips. A test case that needs something the machine may lack (root, loop devices,
// gnuplot, hdparm, `script`, /dev/shm) belongs to the doctest suite "env" and calls DS_SKIP when
// the thing is missing. tests/CMakeLists.txt runs an area's "env" cases as a ctest test of their
// own (AREA_env) with SKIP_RETURN_CODE 77, and tests/main.cpp returns 77 when a case skipped and
// none failed: ctest then lists the test as skipped instead of counting it as passed.
#pragma once
#include <iostream>
#include <sstream>
#include <string>

namespace ds_test {

inline int& skip_count() {
  static int n = 0;
  return n;
}

inline void record_skip(const std::string& why) {
  ++skip_count();
  std::cerr << "SKIPPED: " << why << "\n";
}

}  // namespace ds_test

// Mark the running case skipped for `why` (a streamable expression) and leave it.
#define DS_SKIP(why)                                   \
  do {                                                 \
    std::ostringstream ds_skip_os_;                    \
    ds_skip_os_ << why;                                \
    ds_test::record_skip(ds_skip_os_.str());           \
    MESSAGE("SKIPPED: " << ds_skip_os_.str());         \
    return;                                            \
  } while (0)
