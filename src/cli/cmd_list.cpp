#include "app/list.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

Action add_list(CLI::App& app) {
  struct Opts {
    bool json = false, all = false;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("list", "the drives on this machine (from sysfs; sends no command)");
  add_csv_flag(c)->excludes(add_json_flag(c, o->json));
  c->add_flag("--all", o->all, "include loop, zram, device-mapper and md devices");
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    return emit(app::list_drives({.include_virtual = o->all}), o->json);
  };
}

}  // namespace ds::cli
