// The man page (docs/drivescope.1) and the binary agree on the options: every option of every
// subcommand, as `drivescope SUB --help` lists it, is in the man page, and every option the man
// page names exists in some command's --help. (Issue 15: a dozen options were missing.)
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "cli_run.hpp"
#include "help_text.hpp"

namespace {

std::string capture(const std::string& args) { return clitest::run(args, true).out; }

}  // namespace

TEST_CASE("man page and --help: the same options, both ways") {
  std::ifstream f(DS_SOURCE_DIR "/docs/drivescope.1");
  REQUIRE(f);
  std::string page;
  for (std::string line; std::getline(f, line);)
    if (line.rfind(".\\\"", 0) != 0) page += line + "\n";  // not the roff comments
  const std::set<std::string> man = clitest::options_in(page);

  const std::string top = capture("--help");
  std::set<std::string> binary = clitest::options_in(top);
  const auto subs = clitest::subcommands_in(top);
  REQUIRE(subs.size() >= 10);
  for (const auto& sub : subs) {
    const std::string help = capture(sub + " --help");
    for (const auto& o : clitest::options_in(help)) binary.insert(o);
    for (const auto& nested : clitest::subcommands_in(help))  // sim list / sim show
      for (const auto& o : clitest::options_in(capture(sub + " " + nested + " --help"))) binary.insert(o);
    for (const auto& o : clitest::options_in(help)) {
      CAPTURE(sub);
      CAPTURE(o);
      CHECK_MESSAGE(man.count(o), "in `drivescope " << sub << " --help` but not in the man page");
    }
  }
  for (const auto& o : man) {
    CAPTURE(o);
    CHECK_MESSAGE(binary.count(o), "in the man page but no command takes it");
  }
}
