// `drivescope model TARGET -o MODEL.json [--budget S] [--seed N] [--allow-flat] [--json]`: measure a
// drive read-only and write its twin, a simulator model (src/app/twin.hpp, docs/twin.md).
#include <memory>

#include "app/restore.hpp"
#include "app/twin.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

Action add_model(CLI::App& app) {
  struct Opts {
    app::ModelRequest req;
    std::string progress = "auto";
    bool json = false, quiet = false;
    double budget = 0;
    DeviceFlags dev;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("model", "measure a drive read-only and write its twin: a simulator model (sim:MODEL.json) that behaves like it");
  c->add_option("target", o->req.target, "/dev/sdX, sim:NAME, sim:MODEL.json, file:PATH")->required();
  c->add_option("-o,--output", o->req.output, "the model file to write (drivescope-disk-model/2)")->required();
  c->add_option("--budget", o->budget, "drive time in seconds (default 180)")->check(budget_validator());
  c->add_option("--seed", o->req.seed, "seed for random placement")->transform(seed_validator());
  c->add_flag("--allow-flat", o->req.allow_flat,
              "make a model even when the timing shows no rotating drive (RAM, SSD, tmpfs): it then has no real mechanics");
  add_json_flag(c, o->json);
  add_device_options(c, o->dev);
  auto* quiet = c->add_flag("--quiet", o->quiet, "no progress line on stderr");
  add_progress_option(c, o->progress)->excludes(quiet);
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    if (o->budget > 0) o->req.budget_s = o->budget;
    o->req.device = device_choice(o->dev);
    const auto progress = progress_printer(o->progress, o->quiet, "model", 4, o->req.budget_s.value_or(180));
    // Read-only: nothing to restore; Ctrl-C stops the run at its next request and the twin made
    // of what was measured is written, marked partial (exit 4).
    const std::string nothing_to_restore;
    app::SignalGuard guard(restore_at_once(&nothing_to_restore));
    o->req.stop = [&guard] { return guard.interrupted(); };
    auto r = app::run_model(o->req, progress);
    end_progress(o->progress, progress);
    return emit(r, o->json);
  };
}

}  // namespace ds::cli
