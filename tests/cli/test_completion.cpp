// The bash completion (scripts/completion/drivescope.bash), run in bash as TAB would run it:
// it offers every command and every option of every command that the binary's --help lists
// (read here independently of the script, with the man page test's reading), and no other.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "help_text.hpp"

namespace {

// COMPREPLY after _drivescope for the words typed (the last one is the word being completed).
std::set<std::string> complete(const std::vector<std::string>& words) {
  std::string script = "source '" DS_SOURCE_DIR "/scripts/completion/drivescope.bash' || exit 1\n";
  script += "COMP_WORDS=('" DS_BINARY "'";
  for (const auto& w : words) script.append(" '").append(w).append("'");
  // _drivescope's status is that of its last command (compgen finding nothing is 1): not checked.
  script += ")\nCOMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n_drivescope\nprintf '%s\\n' \"${COMPREPLY[@]}\"";
  // The script has single quotes inside: hand it to bash on stdin, not in -c.
  std::string cmd = "bash -s 2>&1 <<'DS_EOF'\n";
  cmd.append(script).append("\nDS_EOF\n");
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) out.append(buf.data(), n);
  REQUIRE(pclose(p) == 0);
  std::set<std::string> s;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) s.insert(line);
  return s;
}

std::string help(const std::string& args) { return clitest::run(args + " --help", true).out; }

}  // namespace

TEST_CASE("completion: every command, and every option of every command, as --help lists them") {
  const std::string top = help("");
  const auto subs = clitest::subcommands_in(top);
  REQUIRE(subs.size() >= 10);
  CHECK(complete({""}) == subs);
  // The top level's own options; its help also names a command's (`--version --json`), which
  // must then be that command's.
  const auto top_level = complete({"--"});
  std::set<std::string> of_commands;
  for (const auto& o : top_level) CHECK(clitest::options_in(top).count(o) == 1);
  CHECK(top_level.count("--help") == 1);
  for (const auto& sub : subs) {
    CAPTURE(sub);
    const std::string h = help(sub);
    for (const auto& o : clitest::options_in(h)) of_commands.insert(o);
    CHECK(complete({sub, "--"}) == clitest::options_in(h));
    // After a target and another option too: the command is still found.
    CHECK(complete({sub, "sim:raptor", "--json", "--"}) == clitest::options_in(h));
    for (const auto& nested : clitest::subcommands_in(h)) {  // sim list / sim show
      CAPTURE(nested);
      CHECK(complete({sub, nested, "--"}) == clitest::options_in(help(sub + " " + nested)));
    }
  }
  for (const auto& o : clitest::options_in(top)) {
    CAPTURE(o);
    CHECK((top_level.count(o) == 1 || of_commands.count(o) == 1));
  }
  CHECK(complete({"sim", ""}) == clitest::subcommands_in(help("sim")));
  CHECK(complete({"sc"}) == std::set<std::string>{"scan"});
}

TEST_CASE("completion: values: simulated presets, --tests names, CLI11's choices") {
  // bash splits "sim:ra" at the colon (COMP_WORDBREAKS); either way the preset is completed.
  CHECK(complete({"bench", "sim", ":", "rap"}) == std::set<std::string>{"raptor"});
  CHECK(complete({"bench", "sim:rap"}).count("sim:raptor") == 1);
  CHECK(complete({"bench", "sim:raptor", "--tests", "access,tr"}) == std::set<std::string>{"access,transfer"});
  CHECK(complete({"compare", "--color", ""}) == std::set<std::string>{"auto", "always", "never"});
  // A short and long form on one help line: either name offers the choices.
  const std::set<std::string> types{"auto", "ata", "sat", "scsi"};
  CHECK(complete({"identify", "sim:raptor", "-d", ""}) == types);
  CHECK(complete({"ncq", "sim:raptor", "--device-type", "s"}) == std::set<std::string>{"sat", "scsi"});
  CHECK(complete({"bench", "sim:raptor", "--progress", ""}) == std::set<std::string>{"auto", "json"});
  CHECK(complete({"bench", "sim:raptor", "--budget", ""}).empty());
}
