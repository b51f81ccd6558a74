// `drivescope --version [--json[=c]]`: version, commit, compiler and library versions, as text or
// as one JSON document (smartctl's envelope included, like every document).
#include <cstring>
#include <iostream>

#include "app/build_info.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

namespace {

app::BuildInfo info_with_cli11() {
  auto b = app::build_info();
  b.libraries.emplace_back("CLI11", CLI11_VERSION);  // header-only, and only the CLI uses it
  return b;
}

}  // namespace

void add_version_flag(CLI::App& app) {
  app.add_flag_callback(
      "--version", [] { throw CLI::CallForVersion(app::build_info_text(info_with_cli11()), 0); },
      "version, git commit, compiler and library versions (drivescope --version --json: as JSON)");
}

int version_command(int argc, char** argv) {
  bool version = false, json = false, compact = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") == 0) version = true;
    else if (std::strcmp(argv[i], "--json") == 0) json = true;
    else if (std::strcmp(argv[i], "--json=c") == 0) json = compact = true;
    else return -1;  // anything else: the ordinary parse
  }
  if (!version) return -1;
  const auto b = info_with_cli11();
  if (!json) {
    std::cout << app::build_info_text(b);
    return 0;
  }
  app::Report r;
  r.json = {{"drivescope", app::build_info_json(b)}};
  set_json_compact(compact);
  return emit(r, true);
}

}  // namespace ds::cli
