// `drivescope sim list [--json]`, `drivescope sim show NAME [--json]`.
#include <memory>

#include "app/sim_models.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

Action add_sim(CLI::App& app) {
  struct Opts {
    std::string name;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("sim", "the simulated drive's built-in presets (model files)");
  c->require_subcommand(1);
  auto* list = c->add_subcommand("list", "every preset: name, aliases, rpm, size, queue");
  add_json_flag(list, o->json);
  auto* show = c->add_subcommand("show", "print a preset's model file (a start for one's own sim:PATH.json)");
  show->add_option("name", o->name, "preset name or alias")->required();
  add_json_flag(show, o->json, "one JSON document on stdout (the model under \"model\")");
  return [o, c, list, show]() -> int {
    if (!c->parsed()) return -1;
    if (list->parsed()) return emit(app::sim_list(), o->json);
    if (show->parsed()) return emit(app::sim_show(o->name), o->json);
    return app::kExitUsage;
  };
}

}  // namespace ds::cli
