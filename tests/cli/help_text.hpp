// What `drivescope --help` texts list, for the tests that hold other files to them (the man page,
// the bash completion): option names anywhere in a text, and the subcommands of its block.
#pragma once
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace clitest {

// "--name" words; in roff a hyphen is written \- , so those are turned back first.
inline std::set<std::string> options_in(const std::string& roff) {
  std::string text;
  for (std::size_t i = 0; i < roff.size(); ++i)
    if (!(roff[i] == '\\' && i + 1 < roff.size() && roff[i + 1] == '-')) text += roff[i];
  std::set<std::string> s;
  static const std::regex opt("--[a-z][a-z0-9]*(-[a-z0-9]+)*");
  for (std::sregex_iterator it(text.begin(), text.end(), opt), end; it != end; ++it) s.insert(it->str());
  return s;
}

// The subcommand names of a --help text: the lines of its "SUBCOMMANDS:" block.
inline std::set<std::string> subcommands_in(const std::string& help) {
  std::set<std::string> s;
  std::istringstream in(help);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("SUBCOMMANDS:", 0) == 0 || line.rfind("Subcommands:", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.empty() || line[0] != ' ') { inside = false; continue; }
    std::istringstream w(line);
    std::string name;
    w >> name;
    if (!name.empty()) s.insert(name);
  }
  return s;
}


}  // namespace clitest
