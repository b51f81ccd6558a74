// The doctest main of every test area: doctest's own, plus exit code 77 (ctest's "skipped") when
// a case was skipped for want of something in the environment and nothing failed
// (tests/support/skip.hpp).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "support/skip.hpp"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int rc = context.run();
  if (context.shouldExit() || rc != 0) return rc;
  if (ds_test::skip_count() > 0) {
    std::cerr << ds_test::skip_count() << " test case(s) skipped for want of something in the environment\n";
    return 77;
  }
  return 0;
}
