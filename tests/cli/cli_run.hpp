// Runs the drivescope binary as a user would, for the CLI tests: the exit code and what it printed.
#pragma once
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace clitest {

struct Run {
  int rc = -1;
  std::string out;  // stdout, and stderr too when asked for
};

// `wrapper` goes before the binary: "timeout 20 " makes a hang fail the case (exit 124).
inline Run run(const std::string& args, bool with_stderr, const std::string& wrapper = "") {
  const std::string cmd = wrapper + std::string(DS_BINARY) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  Run r;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  return r;
}

}  // namespace clitest
