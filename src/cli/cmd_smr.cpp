// `drivescope smr TARGET [--write [--destructive]] [--budget S] [--idle S] [--seed N] [--span SIZE]
// [--json] [--quiet | --progress json] [-d TYPE] [--trace]`. Read-only by default; the timing probe writes and so passes the write guard
// (app/target.cpp) first. Ctrl-C / SIGTERM stops the probe at its next write and prints what it
// measured (exit 4); the probe changes no setting, so there is nothing to restore.
#include <memory>

#include "app/restore.hpp"
#include "app/smr.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

Action add_smr(CLI::App& app) {
  struct Opts {
    std::string target, progress = "auto", drivedb;
    DeviceFlags dev;
    double budget = 1800, idle = 30;
    std::uint64_t seed = 1;
    bool json = false, quiet = false, write = false, destructive = false;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("smr", "shingled (SMR) or not: what the drive reports, and with --write a timing probe");
  c->add_option("target", o->target, "/dev/sdX, /dev/sgN, sim:NAME, sim:MODEL.json")->required();
  c->add_flag("--write", o->write, "run the write probe: random 4 KiB writes (needs --destructive on a real device)");
  c->add_flag("--destructive", o->destructive, "allow writes to a real block device (its data is overwritten)");
  c->add_option("--budget", o->budget, "drive seconds for the write probe (default 1800)")->check(budget_validator());
  c->add_option("--idle", o->idle, "seconds to leave the drive idle after the cliff (default 30; 0: no idle check)");
  c->add_option("--seed", o->seed, "seed of the random write positions (and of a simulated drive's noise)")->transform(seed_validator());
  c->add_option("--drivedb", o->drivedb,
                "smartmontools' drive database to look the drive's family up in (default: smartctl's files)");
  add_json_flag(c, o->json);
  add_device_options(c, o->dev);
  auto* quiet = c->add_flag("--quiet", o->quiet, "no progress line on stderr");
  add_progress_option(c, o->progress)->excludes(quiet);
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    if (!(o->idle >= 0) || o->idle > 3600) {
      return refuse_usage("smr", "--idle must be 0..3600 seconds");
    }
    if (o->destructive && !o->write) {
      return refuse_usage("smr", "--destructive only goes with --write");
    }
    const std::string nothing_to_restore;
    app::SignalGuard guard(restore_at_once(&nothing_to_restore));
    auto t = app::open_target(o->target, {.want_io = o->write, .write = o->write, .destructive = o->destructive, .seed = o->seed,
                                             .device = device_choice(o->dev)});
    if (!t) return emit(t.error(), o->json);
    app::SmrOptions so;
    so.write = o->write;
    so.drivedb = o->drivedb;
    so.probe.budget_s = o->budget;
    so.probe.idle_s = o->idle;
    so.probe.seed = o->seed;
    so.probe.stop = [&guard] { return guard.interrupted(); };
    // Only the write probe takes time worth a progress line.
    const auto progress = o->write ? progress_printer(o->progress, o->quiet, "smr", 1, o->budget) : measure::ProgressFn{};
    auto r = app::run_smr(*t, so, &progress);
    end_progress(o->progress, progress);
    if (!r) return emit(r.error(), o->json);
    return emit(app::smr_report(*t, *r), o->json);
  };
}

}  // namespace ds::cli
