// What this binary is: version, the commit it was built from, the compiler and the libraries'
// versions (`drivescope --version`, text or JSON). The CLI prints it.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace ds::app {

struct BuildInfo {
  std::string version;   // drivescope's, e.g. "0.1.0"
  std::string commit;    // `git describe --always --dirty` at configure time, or "unknown"
  std::string compiler;  // e.g. "GCC 12.2.0"
  // name, version: "unknown" when neither the library nor its build says it.
  std::vector<std::pair<std::string, std::string>> libraries;
};

BuildInfo build_info();

// {version, commit, compiler, libraries {NAME: VERSION}}.
nlohmann::json build_info_json(const BuildInfo& b);
// "drivescope 0.1.0 (commit abc1234)\ncompiler: ...\nlibsgutils2: ...\n..."
std::string build_info_text(const BuildInfo& b);

}  // namespace ds::app
