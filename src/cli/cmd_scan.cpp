#include <cstdio>
#include <memory>

#include "app/prom_file.hpp"
#include "app/restore.hpp"
#include "app/scan.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

namespace {

// The whole scan as one table (text), or one compact JSON line per drive: a fleet's scripts read
// it line by line, as smartctl --scan-open's users do.
int print_scan(const app::ScanResult& s, bool json) {
  if (json) {
    set_json_compact(true);
    for (const auto& d : s.drives) emit(d, true);
    return s.exit_code;
  }
  app::Report all;
  all.text = s.text;
  for (const auto& d : s.drives) all.warnings.insert(all.warnings.end(), d.warnings.begin(), d.warnings.end());
  all.exit_code = s.exit_code;
  // --csv: the drives as one table, a row each.
  if (csv_requested()) {
    all.json = {{"drives", nlohmann::json::array()}};
    for (const auto& d : s.drives) all.json["drives"].push_back(d.json);
  }
  return emit(all, false);
}

int write_scan_prom(const app::ScanResult& s, const std::string& path, int rc) {
  std::vector<app::PromDoc> docs;
  for (const auto& d : s.drives) docs.push_back({&d.json, d.exit_code});
  auto w = app::write_prom_file(path, docs, "scan");
  if (w) return rc;
  std::fprintf(stderr, "drivescope: %s\n", w.error().message.c_str());
  return rc == app::kExitOk ? app::kExitFailure : rc;
}

}  // namespace

Action add_scan(CLI::App& app) {
  struct Opts {
    app::ScanRequest req;
    std::string prom, progress = "auto";
    bool json = false;
    double bench = 0;
    DeviceFlags dev;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("scan", "identity, SMART health and (--bench) a short read-only bench of every drive");
  c->add_option("targets", o->req.targets,
                "drives to scan (/dev/sdX, sim:NAME, ...); default: every drive `list` finds");
  c->add_option("--bench", o->bench, "also bench each drive for SECONDS of drive time (access, transfer; reads only)")
      ->type_name("SECONDS")
      ->check(finite_range(1, 3600, "bench time (seconds)"));
  c->add_flag("--force-busy", o->req.force_busy,
              "bench drives that are mounted, swap or held too (by default they are skipped)");
  c->add_option("--seed", o->req.seed, "seed for random placement (and simulator noise)")->transform(seed_validator());
  add_csv_flag(c)->excludes(add_json_flag(c, o->json, "one compact JSON document per drive, one per line"));
  add_prom_option(c, o->prom);
  add_device_options(c, o->dev);
  add_progress_option(c, o->progress);
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    if (o->req.force_busy && o->bench <= 0) {
      return refuse_usage("scan", "--force-busy only matters with --bench SECONDS");
    }
    if (o->bench > 0) o->req.bench_s = o->bench;
    o->req.device = device_choice(o->dev);
    if (o->progress == "json" && o->req.bench_s) {
      const double budget = *o->req.bench_s;
      o->req.bench_progress = [budget](const std::string& spec) {
        return progress_printer("json", false, "scan", static_cast<int>(app::kScanBenchTests.size()), budget,
                                {{"target", spec}});
      };
    }
    // SIGINT/SIGTERM: the drive being benched stops at its next request and no further drive
    // starts; what was scanned is printed (exit 4). scan changes no setting.
    const std::string nothing_to_restore;
    app::SignalGuard guard(restore_at_once(&nothing_to_restore));
    o->req.stop = [&guard] { return guard.interrupted(); };
    const auto s = app::run_scan(o->req);
    const int rc = print_scan(s, o->json);
    return o->prom.empty() ? rc : write_scan_prom(s, o->prom, rc);
  };
}

}  // namespace ds::cli
