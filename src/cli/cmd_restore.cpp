// `drivescope restore [TARGET]`: put back what an interrupted run (SIGKILL, crash, power loss of
// the host... not of the drive) left changed, from its state file.
#include <cstdio>
#include <memory>

#include "app/restore.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

Action add_restore(CLI::App& app) {
  struct Opts {
    std::string target, state_dir;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("restore", "put back drive settings an interrupted run left changed");
  c->add_option("target", o->target, "only this drive (default: every state file)");
  c->add_option("--state-dir", o->state_dir, "where the state files are (default: $DRIVESCOPE_STATE_DIR, /run/drivescope, ...)");
  add_json_flag(c, o->json);
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    std::filesystem::path dir = o->state_dir;
    if (dir.empty()) {
      auto d = app::state_dir();
      if (!d) return emit(d.error(), o->json);
      dir = *d;
    }
    return emit(app::restore_command(o->target, dir), o->json);
  };
}

}  // namespace ds::cli
