#include <cstdio>
#include <memory>

#include "app/bench.hpp"
#include "app/restore.hpp"
#include "tests/bench.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

Action add_bench(CLI::App& app) {
  struct Opts {
    app::BenchRequest req;
    std::string tests, prom, progress = "auto", span, offset;
    bool json = false, quiet = false;
    double budget = 0;
    DeviceFlags dev;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("bench", "measure access time, transfer by zone, cache, block sizes");
  c->add_option("target", o->req.target, "/dev/sdX, sim:NAME, sim:MODEL.json, file:PATH")->required();
  c->add_option("--tests", o->tests, "comma-separated: access,transfer,cache,blocksize (the default set), queue, patterns, actuators, rmw (times writes with --write; without, what the drive claims)");
  c->add_option("--span", o->span, "limit to the first SIZE (50GB, 1TiB) or PERCENT (10%)");
  c->add_option("--offset", o->offset,
                "start at SIZE (50GB, 1TiB) or PERCENT (10%) into the drive instead of LBA 0; --span counts from there");
  c->add_flag("--write", o->req.write, "allow write tests (needs --destructive on a real device)");
  c->add_flag("--destructive", o->req.destructive,
              "allow writes to a real block device (its data is overwritten)");
  c->add_option("--seed", o->req.seed, "seed for random placement (and simulator noise)")->transform(seed_validator());
  c->add_option("--budget", o->budget, "total drive time in seconds (default 120)")->check(budget_validator());
  c->add_flag("--rates-only", o->req.rates_only,
              "transfer: rates by zone only, no track structure looked for (a host whose completion times "
              "do not follow the media: a virtual machine's disk)");
  add_csv_flag(c)->excludes(add_json_flag(c, o->json));
  add_prom_option(c, o->prom);
  add_device_options(c, o->dev);
  auto* quiet = c->add_flag("--quiet", o->quiet, "no progress line on stderr");
  add_progress_option(c, o->progress)->excludes(quiet);
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    // Every name, empty ones too: app::run_bench refuses "access,,cache" rather than guess.
    o->req.tests_given = c->count("--tests") > 0;
    for (size_t start = 0; o->req.tests_given && !o->tests.empty();) {
      size_t comma = o->tests.find(',', start);
      o->req.tests.push_back(o->tests.substr(start, comma == std::string::npos ? comma : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    // Given is not the same as non-empty: `--span ''` must be refused, not read as the whole drive.
    if (c->count("--span") > 0) o->req.span = o->span;
    if (c->count("--offset") > 0) o->req.offset = o->offset;
    if (o->budget > 0) o->req.budget_s = o->budget;
    o->req.device = device_choice(o->dev);
    const measure::BenchOptions defaults;
    const int count = static_cast<int>(o->req.tests.empty() ? defaults.tests.size() : o->req.tests.size());
    const auto progress =
        progress_printer(o->progress, o->quiet, "bench", count, o->req.budget_s.value_or(defaults.budget_s));
    // Before any other thread exists: SIGINT/SIGTERM become a flag (app/restore.hpp); the run
    // stops at its next request and prints what was measured (exit 4). bench changes no
    // setting, so a second signal has nothing to restore and just ends the process.
    const std::string nothing_to_restore;
    app::SignalGuard guard(restore_at_once(&nothing_to_restore));
    o->req.stop = [&guard] { return guard.interrupted(); };
    auto r = app::run_bench(o->req, progress);
    end_progress(o->progress, progress);
    return emit_with_prom(r, o->json, o->prom, "bench");
  };
}

}  // namespace ds::cli
