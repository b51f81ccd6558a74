// drivescope command line: each subcommand registers itself (cmd_*.cpp); the parsed one runs.
#include <vector>

#include "cli/cli.hpp"

int main(int argc, char** argv) {
  CLI::App app{"drivescope: what a disk drive really is, supports and does"};
  app.set_version_flag("--version", "drivescope " + ds::app::version());
  app.require_subcommand(1);
  std::vector<ds::cli::Action> actions{
      ds::cli::add_identify(app),
      ds::cli::add_list(app),
      ds::cli::add_bench(app),
      ds::cli::add_features(app),
      ds::cli::add_ab(app),
      ds::cli::add_restore(app),
      ds::cli::add_ncq(app),
      ds::cli::add_report(app),
      ds::cli::add_compare(app),
      ds::cli::add_sim(app),
      ds::cli::add_replay(app),
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : ds::app::kExitUsage;
  }
  for (auto& a : actions)
    if (int rc = a(); rc >= 0) return rc;
  return ds::app::kExitUsage;
}
