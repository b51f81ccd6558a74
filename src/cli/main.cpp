// drivescope command line: each subcommand registers itself (cmd_*.cpp); the parsed one runs.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace {

int run(int argc, char** argv) {
  ds::cli::remember_argv(argc, argv);
  CLI::App app{"drivescope: what a disk drive really is, supports and does"};
  if (int rc = ds::cli::version_command(argc, argv); rc >= 0) return rc;
  ds::cli::add_version_flag(app);
  app.require_subcommand(1);
  std::vector<ds::cli::Action> actions{
      ds::cli::add_identify(app),
      ds::cli::add_list(app),
      ds::cli::add_scan(app),
      ds::cli::add_bench(app),
      ds::cli::add_features(app),
      ds::cli::add_ab(app),
      ds::cli::add_restore(app),
      ds::cli::add_ncq(app),
      ds::cli::add_smr(app),
      ds::cli::add_report(app),
      ds::cli::add_compare(app),
      ds::cli::add_sim(app),
      ds::cli::add_replay(app),
      ds::cli::add_model(app),
      ds::cli::add_decode(app),
      ds::cli::add_serve(app),
  };
  // A first word that is no command: CLI11 would say "A subcommand is required", which reads as
  // if none had been typed.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    std::string known;
    bool found = false;
    for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      found = found || sub->check_name(word);
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!found) {
      const std::string msg = "unknown command " + word + " (commands: " + known + "; see drivescope --help)";
      std::fprintf(stderr, "drivescope: %s\n", msg.c_str());
      return ds::cli::usage_error_document(msg);
    }
    // `drivescope bench --version`: CLI11 would say "target is required", or that --version was
    // not expected; it is drivescope's own option, before any command (as the man page says).
    for (int i = 2; i < argc; ++i)
      if (std::string(argv[i]) == "--version") {
        const std::string msg = "--version comes before any command: drivescope --version [--json]";
        std::fprintf(stderr, "drivescope: %s\n", msg.c_str());
        return ds::cli::usage_error_document(msg);
      }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : ds::cli::usage_error_document(e.what());
  }
  for (auto& a : actions)
    if (int rc = a(); rc >= 0) return rc;
  return ds::app::kExitUsage;
}

}  // namespace

// Errors are values everywhere below; an exception reaching this point is a bug. Caught here
// rather than left to std::terminate, so that the stack unwinds (a changed feature is put back by
// its restore stack) and the user reads one clear line instead of an abort (exit 134).
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "drivescope: internal error: %s (a bug: please report it with the command line)\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "drivescope: internal error: unknown exception (a bug: please report it with the command line)\n");
  }
  return ds::app::kExitFailure;
}
