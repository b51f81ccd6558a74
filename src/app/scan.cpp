#include "app/scan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "app/bench.hpp"
#include "drivescope/commands.hpp"
#include "report/envelope.hpp"
#include "report/scan_report.hpp"
#include "tests/result_keys.hpp"

namespace ds::app {

using nlohmann::json;

std::string_view power_mode_name(std::uint8_t count) {
  switch (count) {
    case 0x00:
    case 0x01: return "standby";
    case 0x80:
    case 0x81:
    case 0x82:
    case 0x83: return "idle";
    case 0xFF: return "active_or_idle";
    default: return "unknown";
  }
}

bool power_mode_is_standby(std::uint8_t count) { return count == 0x00 || count == 0x01; }

namespace {

// CHECK POWER MODE, only where ATA commands can go: a SCSI drive has no such command, and its
// INQUIRY / VPD reads do not spin it up.
std::optional<std::uint8_t> ask_power_mode(Target& t) {
  if (!t.device || !(t.device->info().ata_capable || t.kind == TargetKind::ata)) return std::nullopt;
  auto r = ata::check_power_mode(*t.device);
  if (!r.ok() || !r.ata) return std::nullopt;
  return static_cast<std::uint8_t>(r.ata->count & 0xFF);
}

// An NVMe drive's health log (log page 02h, mandatory, so always there where it was read): it
// passes when no Critical Warning bit (byte 0: spare below threshold, temperature, reliability
// degraded, read-only, volatile backup failed, persistent memory) is set, the test smartctl -H
// applies to NVMe drives. The overall text names the bits set.
json nvme_health_summary(const json& health) {
  if (!health.is_object()) return nullptr;
  const auto cw = health.find("critical_warning");
  // A byte, whichever integer kind the document holds it as; anything else is a damaged log.
  if (cw == health.end() || !cw->is_number_integer() || cw->get<long long>() < 0) return nullptr;
  const bool passed = cw->get<long long>() == 0;
  std::string overall = "no critical warning";
  if (!passed) {
    overall = "critical warning:";
    if (const auto names = health.find("critical_warnings"); names != health.end() && names->is_array())
      for (const auto& w : *names)
        if (w.is_string()) overall += " " + w.get<std::string>();
  }
  return {{"available", true}, {"enabled", true}, {"passed", passed}, {"overall", overall}, {"source", "nvme health log"}};
}

}  // namespace

// SMART health from the identify block: smartctl's `smart_status.passed` where the drive says.
json scan_health(const json& identify) {
  if (identify.is_object() && identify.contains("nvme") && identify["nvme"].is_object())
    return nvme_health_summary(identify["nvme"].value("health", json()));
  const json& s = identify.is_object() && identify.contains("smart") ? identify["smart"] : json();
  if (!s.is_object()) return nullptr;
  json out = {{"available", s.value("available", false)}, {"enabled", s.value("enabled", false)}};
  out["passed"] = s.contains("status_good") && s["status_good"].is_boolean() ? s["status_good"] : json();
  out["overall"] = s.contains("overall") && s["overall"].is_string() ? s["overall"] : json();
  return out;
}

namespace {

json bench_part(Report& r, const Target& t, const std::optional<sysfs::DriveFacts>& facts,
                const ScanRequest& req) {
  // The same test as the write guard's (mounted, swap, holders), though the bench only reads: a
  // busy drive's figures would measure its users as much as the drive, and slow them down.
  if (facts && facts->in_use() && !req.force_busy)
    return {{"status", "skipped"},
            {"reason", fmt::format("in use ({}): not measured without --force-busy", facts->in_use_summary())}};
  BenchRequest b;
  b.target = t.spec;
  b.tests = kScanBenchTests;
  b.budget_s = req.bench_s;
  b.seed = req.seed;
  b.stop = req.stop;
  b.device = req.device;
  auto res = run_bench(b, req.bench_progress ? req.bench_progress(t.spec) : measure::ProgressFn{});
  if (!res) {
    r.warnings.push_back(fmt::format("{}: bench: {}", t.spec, res.error().message));
    r.exit_code = worse_exit(r.exit_code, kExitPartial);
    return {{"status", "failed"}, {"reason", res.error().message}};
  }
  r.json[measure::key::kDocumentKey] = res->json[measure::key::kDocumentKey];
  r.json["settings"] = res->json["settings"];
  for (const auto& w : res->warnings) r.warnings.push_back(fmt::format("{}: bench: {}", t.spec, w));
  r.exit_code = worse_exit(r.exit_code, res->exit_code);
  // The drive failed under the bench: the figures measured before are kept above, but the bench
  // did not get done, and the reason is the first failure (the bench's first warning).
  if (res->exit_code == kExitDevice)
    return {{"status", "failed"},
            {"reason", res->warnings.empty() ? std::string("the device failed") : res->warnings.front()},
            {"budget_s", *req.bench_s},
            {"tests", kScanBenchTests}};
  return {{"status", "done"}, {"budget_s", *req.bench_s}, {"tests", kScanBenchTests}};
}

json target_json(std::string_view kind, std::string_view name) { return {{"kind", kind}, {"name", name}}; }

Report failed(std::string_view spec, const std::string& why) {
  Report r;
  r.json = {{"drivescope", {{"version", version()}}}, {"target", target_json("other", spec)},
            {"scan", {{"status", "failed"}, {"reason", why}, {"power_mode", nullptr}, {"bench", nullptr}}}};
  r.warnings.push_back(fmt::format("{}: {}", spec, why));
  r.exit_code = kExitFailure;
  return r;
}

Report scan_one(const std::string& spec, const ScanRequest& req) {
  OpenOptions oo;
  oo.seed = req.seed;
  oo.root = req.root;
  oo.device = req.device;
  auto t = open_target(spec, oo);
  if (!t) return failed(spec, t.error().message);
  std::optional<sysfs::DriveFacts> facts;
  if (!t->block_name.empty())
    if (auto f = sysfs::facts_for_device(t->block_name, req.root)) facts = std::move(*f);
  return scan_target(*t, facts, req);
}

}  // namespace

Report scan_target(Target& t, const std::optional<sysfs::DriveFacts>& facts, const ScanRequest& req) {
  json scan = {{"status", "ok"}, {"power_mode", nullptr}, {"smart", nullptr}, {"bench", nullptr}};
  if (facts) {
    scan["in_use"] = facts->in_use();
    scan["in_use_text"] = facts->in_use_summary();
  }
  const auto mode = ask_power_mode(t);
  if (mode) scan["power_mode"] = power_mode_name(*mode);
  Report r;
  if (mode && power_mode_is_standby(*mode)) {
    r.json = {{"drivescope", {{"version", version()}}}, {"target", target_json(to_string(t.kind), t.spec)}};
    scan["status"] = "skipped";
    scan["reason"] = "in standby: left asleep (only CHECK POWER MODE was sent)";
    r.json["scan"] = std::move(scan);
    return r;
  }
  IdentifyOptions io;
  io.root = req.root;
  auto id = identify_target(t, io);
  if (!id) return failed(t.spec, id.error().message);
  r = std::move(*id);
  for (auto& w : r.warnings) w = fmt::format("{}: {}", t.spec, w);
  r.text.clear();
  scan["smart"] = scan_health(r.json.value("identify", json()));
  if (scan["smart"].is_object() && scan["smart"]["passed"].is_boolean())
    r.json["smart_status"] = {{"passed", scan["smart"]["passed"]}};
  if (req.bench_s) scan["bench"] = bench_part(r, t, facts, req);
  r.json["scan"] = std::move(scan);
  return r;
}

ScanResult run_scan(const ScanRequest& req) {
  std::vector<std::string> specs = req.targets;
  if (specs.empty())
    for (const auto& f : sysfs::list_drives(req.root)) specs.push_back(f.dev_path);
  ScanResult out;
  for (const auto& spec : specs) {
    if (req.stop && req.stop()) {
      out.exit_code = worse_exit(out.exit_code, kExitInterrupted);
      break;
    }
    out.drives.push_back(scan_one(spec, req));
    out.exit_code = worse_exit(out.exit_code, out.drives.back().exit_code);
  }
  std::vector<json> docs;
  for (const auto& d : out.drives) docs.push_back(d.json);
  out.text = report::scan_table(docs);
  return out;
}

}  // namespace ds::app
