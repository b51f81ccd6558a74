// Runs the drivescope binary with stdout and stderr kept apart (--trace and --progress=json write
// to stderr while the report goes to stdout).
#pragma once
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "cli_run.hpp"

namespace clitest {

struct SplitRun {
  int rc = -1;
  std::string out, err;
};

inline SplitRun run_split(const std::string& args) {
  const std::string err_file = "/tmp/drivescope_test_stderr." + std::to_string(::getpid());
  // run() appends its own stderr redirection: the shell comment (#) sets it aside.
  auto r = run(args + " 2>" + err_file + " #", false);
  SplitRun s{r.rc, r.out, {}};
  std::ifstream f(err_file);
  std::stringstream ss;
  ss << f.rdbuf();
  s.err = ss.str();
  std::remove(err_file.c_str());
  return s;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace clitest
