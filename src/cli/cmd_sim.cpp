// `drivescope sim list [--json]`, `drivescope sim show NAME [--json]`,
// `drivescope sim import SOURCE [-o MODEL.json] [--interface-mb-s N] [--json]` (SOURCE: DiskSim's
// .parv, or its parameters in the source form, NAME.json).
#include <memory>

#include "app/sim_models.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

Action add_sim(CLI::App& app) {
  struct Opts {
    std::string name;
    bool json = false;
    std::string source;
    app::SimImportOptions import;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("sim", "the simulated drive's built-in presets (model files)");
  c->require_subcommand(1);
  auto* list = c->add_subcommand("list", "every preset: name, aliases, rpm, size, queue");
  add_json_flag(list, o->json);
  auto* show = c->add_subcommand("show", "print a preset's model file (a start for one's own sim:PATH.json)");
  show->add_option("name", o->name, "preset name or alias")->required();
  add_json_flag(show, o->json, "one JSON document on stdout (the model under \"model\")");
  auto* imp = c->add_subcommand("import", "turn DiskSim's parameter files (NAME.parv and what it sources) into a model");
  imp->add_option("source", o->source,
                  "DiskSim's .parv (its .diskspecs, .model and .seek files beside it), or the drive's "
                  "parameters in the source form (JSON, \"schema\": \"disk-model/v1\")")
      ->required();
  imp->add_option("-o,--output", o->import.output, "write the model here (default: stdout)");
  imp->add_option("--interface-mb-s", o->import.interface_mb_s,
                  "the interface rate in MB/s (DiskSim has none; default 10)")
      ->check(CLI::PositiveNumber);
  add_json_flag(imp, o->json, "one JSON document on stdout (the model under \"model\", the dropped parameters)");
  return [o, c, list, show, imp]() -> int {
    if (!c->parsed()) return -1;
    if (list->parsed()) return emit(app::sim_list(), o->json);
    if (show->parsed()) return emit(app::sim_show(o->name), o->json);
    if (imp->parsed()) return emit(app::sim_import(o->source, o->import), o->json);
    return app::kExitUsage;
  };
}

}  // namespace ds::cli
