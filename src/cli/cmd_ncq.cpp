// `drivescope ncq TARGET [--json] [--prom FILE] [--no-measure] [--keep-scheduler] [--one-per-submit] [--budget S] [--max-depth N]`.
// Ctrl-C / SIGTERM: the first stops the queue test after the current depth and restores the
// scheduler; a second restores from the state file at once and exits.
#include <memory>

#include "app/ncq.hpp"
#include "app/restore.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

Action add_ncq(CLI::App& app) {
  struct Opts {
    std::string target, state_dir, prom;
    double budget = 12;
    unsigned max_depth = 32;
    std::uint64_t seed = 1;
    bool json = false, no_measure = false, keep_scheduler = false, one_per_submit = false;
    DeviceFlags dev;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("ncq", "NCQ/TCQ: claimed by the drive, enabled by the host, effective");
  c->add_option("target", o->target, "/dev/sdX, /dev/sgN, sim:NAME, sim:MODEL.json")->required();
  c->add_option("--budget", o->budget, "drive seconds for the queue test (default 12)")->check(budget_validator());
  c->add_option("--max-depth", o->max_depth, "deepest queue to test: 1,2,4 … up to this (default 32, at most 256)");
  c->add_option("--seed", o->seed, "seed of the random reads (and of a simulated drive's noise)")->transform(seed_validator());
  c->add_option("--state-dir", o->state_dir, "where to keep the scheduler's restore state file");
  c->add_flag("--no-measure", o->no_measure, "only the claimed and enabled layers; no I/O");
  c->add_flag("--keep-scheduler", o->keep_scheduler, "measure with the scheduler in effect (do not switch to none)");
  c->add_flag("--one-per-submit", o->one_per_submit,
              "one read per submit call even with the none scheduler (for kernels that sort or reverse a batch)");
  add_csv_flag(c)->excludes(add_json_flag(c, o->json));
  add_prom_option(c, o->prom);
  add_device_options(c, o->dev);
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    if (o->max_depth < 1 || o->max_depth > 256 || !(o->budget > 0)) {
      return refuse_usage("ncq", "--max-depth must be 1..256 and --budget positive");
    }
    std::string forced_file;
    app::SignalGuard guard(restore_at_once(&forced_file));
    auto t = app::open_target(o->target, {.want_io = !o->no_measure, .seed = o->seed, .device = device_choice(o->dev)});
    if (!t) return emit(t.error(), o->json);
    app::NcqOptions no;
    no.measure = !o->no_measure;
    no.switch_scheduler = !o->keep_scheduler;
    no.queue.budget_s = o->budget;
    no.queue.seed = o->seed;
    if (o->one_per_submit) no.queue.submit = measure::QueueOptions::Submit::per_request;
    no.queue.depths.clear();
    for (unsigned d = 1; d <= o->max_depth; d *= 2) no.queue.depths.push_back(d);
    if (no.queue.depths.back() != o->max_depth) no.queue.depths.push_back(o->max_depth);
    if (!o->state_dir.empty()) no.state_dir = o->state_dir;
    if (!t->block_name.empty()) {
      auto dir = no.state_dir ? Expected<std::filesystem::path>(*no.state_dir) : app::state_dir();
      if (dir) forced_file = (*dir / app::state_file_name(t->spec, t->block_name)).string();
    }
    no.stop = [&guard] { return guard.interrupted(); };
    auto r = app::run_ncq(*t, no);
    if (!r) return emit(r.error(), o->json);
    return emit_with_prom(app::ncq_report(*t, *r), o->json, o->prom, "ncq");
  };
}

}  // namespace ds::cli
