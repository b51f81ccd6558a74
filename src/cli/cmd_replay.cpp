// `drivescope replay TARGET TRACE [--format F] [--queue-depth N] [--wrap] [--write [--destructive]]
// [--seed N] [--breakdown] [--json]`: replay a block trace on a target with its timing (src/app/replay.hpp).
#include <memory>

#include "app/replay.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

Action add_replay(CLI::App& app) {
  struct Opts {
    app::ReplayRequest req;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("replay", "replay a block trace with its timing; service times, CDF, DiskSim's demerit");
  c->add_option("target", o->req.target, "/dev/sdX, sim:NAME, sim:MODEL.json, file:PATH")->required();
  c->add_option("trace", o->req.trace_path, "the trace file")->required();
  c->add_option("--format", o->req.format, "disksim-validate, fio-iolog or blkparse (default: detected)")
      ->check(CLI::IsMember({"disksim-validate", "fio-iolog", "blkparse"}));
  c->add_option("--queue-depth", o->req.queue_depth,
                "timed traces (fio iolog v3, blkparse): most requests outstanding (default 32)")
      ->check(CLI::Range(1, 256));
  c->add_flag("--wrap", o->req.wrap, "fold LBAs beyond the target's end into it (default: refuse the trace)");
  c->add_flag("--write", o->req.write, "issue the trace's writes (needs --destructive on a real device)");
  c->add_flag("--destructive", o->req.destructive,
              "allow writes to a real block device (its data is overwritten)");
  c->add_option("--seed", o->req.seed, "seed of a simulated drive's noise")->transform(seed_validator());
  c->add_flag("--breakdown", o->req.breakdown_per_request,
              "a simulated drive: each request's service time by part in the JSON too (the means are always there)");
  add_json_flag(c, o->json);
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    return emit(app::run_replay(o->req), o->json);
  };
}

}  // namespace ds::cli
