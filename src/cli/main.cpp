// drivescope command line: parsing and printing only.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

int main(int argc, char** argv) {
  CLI::App app{"drivescope: what a disk drive really is, supports and does"};
  app.set_version_flag("--version", std::string("drivescope ") + DRIVESCOPE_VERSION);
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
