// The man page (docs/drivescope.1) and the binary agree on the options: every option of every
// subcommand, as `drivescope SUB --help` lists it, is in the man page, and every option the man
// page names exists in some command's --help. (Issue 15: a dozen options were missing.)
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

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

namespace {

std::string unroff(const std::string& s) {
  std::string t;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!(s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '-')) t += s[i];
  return t;
}

// The long options a `--help` text lists as its own: the first field of each option line
// ("  -d,--device-type TEXT ...", "  --json [=c] ..."), not the ones its descriptions mention.
std::set<std::string> own_options(const std::string& help) {
  std::set<std::string> s;
  std::istringstream in(help);
  static const std::regex opt("--[a-z][a-z0-9]*(-[a-z0-9]+)*");
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find_first_not_of(' ');
    if (at == std::string::npos || at == 0 || line[at] != '-') continue;
    const std::string spec = line.substr(at, line.find(' ', at) - at);
    for (std::sregex_iterator it(spec.begin(), spec.end(), opt), end; it != end; ++it)
      if (it->str() != "--help") s.insert(it->str());
  }
  return s;
}

std::string section(const std::string& page, const std::string& name) {
  const auto at = page.find(".SH " + name);
  REQUIRE(at != std::string::npos);
  const auto end = page.find("\n.SH ", at + 1);
  return page.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// SYNOPSIS: one block per command form, apart by .br; the command is the words after
// "drivescope" that are not options ("sim list"), or the next line's alternatives
// (".BR aam | apm | ...").
std::map<std::string, std::set<std::string>> synopsis_options(const std::string& page,
                                                             const std::set<std::string>& commands) {
  std::map<std::string, std::set<std::string>> out;
  std::istringstream blocks(section(page, "SYNOPSIS"));
  std::string block, line;
  auto take = [&](const std::string& b) {
    std::istringstream in(b);
    std::vector<std::string> names;
    std::string first;
    while (std::getline(in, first) && first.find("drivescope") == std::string::npos) {
    }
    std::istringstream w(unroff(first.substr(std::min(first.size(), first.find("drivescope") + 10))));
    std::string name;
    for (std::string word; w >> word && word[0] != '-';) name += (name.empty() ? "" : " ") + word;
    if (name.empty()) {
      std::string next;
      std::getline(in, next);
      std::istringstream alts(next);
      for (std::string word; alts >> word;)
        if (commands.count(unroff(word))) names.push_back(unroff(word));
    } else {
      names.push_back(name);
    }
    for (const auto& n : names)
      for (const auto& o : clitest::options_in(b))
        if (o != "--help" && o != "--version") out[n].insert(o);
    for (const auto& n : names) out[n];  // a form without options still names its command
  };
  while (std::getline(blocks, line)) {
    if (line == ".br") {
      take(block);
      block.clear();
    } else {
      block += line + "\n";
    }
  }
  take(block);
  return out;
}

// OPTIONS COMMON TO ALL COMMANDS: each .TP entry's options, and the commands its next line names
// (none named: every command).
std::vector<std::pair<std::set<std::string>, std::set<std::string>>> common_options(const std::string& page,
                                                                                   const std::set<std::string>& commands) {
  std::vector<std::pair<std::set<std::string>, std::set<std::string>>> out;
  const std::string sec = section(page, "OPTIONS COMMON TO ALL COMMANDS");
  for (std::size_t at = sec.find(".TP\n"); at != std::string::npos; at = sec.find(".TP\n", at + 1)) {
    std::istringstream in(sec.substr(at + 4));
    std::string head, next;
    std::getline(in, head);
    std::getline(in, next);
    std::set<std::string> cmds;
    std::regex word("[a-z][a-z-]*");
    const std::string plain = unroff(next);
    for (std::sregex_iterator it(plain.begin(), plain.end(), word), end; it != end; ++it) {
      const auto at = static_cast<std::size_t>(it->position());
      const bool is_option = at >= 2 && plain.compare(at - 2, 2, "--") == 0;  // "(with --bench)"
      if (commands.count(it->str()) && !is_option) cmds.insert(it->str());
    }
    out.emplace_back(clitest::options_in(head), cmds);
  }
  return out;
}

}  // namespace

TEST_CASE("man page and --help: each command's own options, both ways") {
  // The first case only asks that an option be somewhere on both sides; here each command's
  // SYNOPSIS lists only options its --help has, and every option of its --help is in its
  // SYNOPSIS or in an entry of OPTIONS COMMON TO ALL COMMANDS that names it.
  std::ifstream f(DS_SOURCE_DIR "/docs/drivescope.1");
  REQUIRE(f);
  std::string page;
  for (std::string line; std::getline(f, line);)
    if (line.rfind(".\\\"", 0) != 0) page += line + "\n";
  const std::string top = capture("--help");
  std::map<std::string, std::string> helps;
  for (const auto& sub : clitest::subcommands_in(top)) {
    helps[sub] = capture(sub + " --help");
    for (const auto& nested : clitest::subcommands_in(helps[sub]))
      helps[sub + " " + nested] = capture(sub + " " + nested + " --help");
  }
  std::set<std::string> names;
  for (const auto& h : helps) names.insert(h.first);
  const auto syn = synopsis_options(page, names);
  const auto common = common_options(page, names);
  for (const auto& entry : helps) {
    const std::string& cmd = entry.first;  // not a binding: CAPTURE is a lambda (clang 14)
    const std::string& help = entry.second;
    if (cmd == "sim") continue;  // only its two subcommands take options
    CAPTURE(cmd);
    REQUIRE_MESSAGE(syn.count(cmd), "no SYNOPSIS line for `drivescope " << cmd << "`");
    const auto own = own_options(help);
    for (const auto& o : syn.at(cmd)) {
      CAPTURE(o);
      CHECK_MESSAGE(own.count(o), "in the SYNOPSIS of `" << cmd << "` but not in its --help");
    }
    for (const auto& o : own) {
      bool documented = syn.at(cmd).count(o) > 0;
      for (const auto& [opts, cmds] : common)
        documented = documented || (opts.count(o) && (cmds.empty() || cmds.count(cmd)));
      CAPTURE(o);
      CHECK_MESSAGE(documented, "in `" << cmd << " --help` but neither in its SYNOPSIS nor in a common option naming it");
    }
  }
}
