// `drivescope model`: the stages in order (app/twin.hpp, app/twin_stages.hpp), the model file
// written whole, and the report.
#include "app/twin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>

#include "app/bench.hpp"
#include "app/twin_stages.hpp"
#include "report/json_read.hpp"
#include "sim/model.hpp"
#include "tests/common.hpp"

namespace ds::app {

namespace {

using nlohmann::json;
using report::json_number_at;

// The model file, written whole or not at all.
std::optional<Error> write_model(const std::string& path, const std::string& text) {
  const std::string part = path + ".part";
  std::ofstream out(part, std::ios::binary | std::ios::trunc);
  if (!(out << text) || !out.flush()) return make_error(part + ": cannot write the model file", errno);
  out.close();
  if (std::rename(part.c_str(), path.c_str()) != 0) return make_error(path + ": cannot write the model file", errno);
  return std::nullopt;
}

Report model_report(const ModelRequest& req, const json& drive, const json& model, const TwinDraft& draft,
                    const std::vector<std::string>& moves, const std::vector<std::string>& failed, bool interrupted) {
  Report r;
  r.json = {{"drivescope", drive.value("drivescope", json::object())},
            {"target", drive.value("target", json::object())},
            {"twin", {{"path", req.output},
                      {"rotating", draft.rotating},
                      {"partial", interrupted},
                      {"drive_time_s", model["provenance"]["drive_time_s"]},
                      {"calibration", moves},
                      {"unobserved", draft.unobserved},
                      {"failed_tests", failed}}},
            {"model", model}};
  r.text = fmt::format("{}: twin written to {} ({} zones, {} surfaces, {:.0f} rpm, {:.1f} s of drive time{})\n",
                       req.target, req.output, model["zones"].size(), model.value("surfaces", 0),
                       model.value("rpm_actual", model.value("rpm", 0.0)),
                       model["provenance"]["drive_time_s"].get<double>(), interrupted ? ", partial: interrupted" : "");
  for (const auto& mv : moves) r.text += "  calibrated " + mv + "\n";
  for (const auto& f : failed) r.text += "  failed: " + f + "\n";
  for (const auto& u : draft.unobserved) r.text += "  not observed: " + u + "\n";
  return r;
}

// The stages after the draft that measure the twin and run workloads on the drive, in order.
// A workload cut short (its error in `cut`) ends them there; an Error returned is the twin's own.
struct WorkloadStages {
  const ModelRequest& req;
  const json& drive;  // the bench's document
  const TwinDraft& draft;
  json& model;
  std::vector<std::string>& moves;
  double workload_s = 0;  // drive time of the workloads
  std::optional<std::pair<std::string, Error>> cut;
};

// The seek workload, the queued one where the drive queues, and the queue's policy.
std::optional<Error> seek_and_queue(WorkloadStages& st, const TwinBench& tb, std::uint64_t cap_blocks) {
  const ModelRequest& req = st.req;
  json& model = st.model;
  auto dm = sim::parse_model(model.dump());
  if (!dm) return dm.error();
  const double cyl_blocks = static_cast<double>(dm->capacity()) / std::max(1u, dm->total_cylinders());
  const auto step = static_cast<std::uint64_t>(model["cache"].value("read_ahead_sectors", 0.0) +
                                               2 * cyl_blocks / std::max(1u, dm->surfaces));
  const SeekWorkload sw = seek_workload(cap_blocks, cyl_blocks, step, req.seed + 31);
  auto sms = drive_workload(req, sw.trace);
  if (!sms) return st.cut.emplace("seek workload", sms.error()), std::nullopt;
  st.workload_s += busy_ms(*sms, sw.trace) / 1e3;
  if (auto e = fit_seek_curve(model, *dm, *sms, sw, req.seed + 41, st.moves)) return *e;
  // (Not where the drive has more than one positioner: two reads outstanding then overlap
  // their mechanisms, which no overhead of the twin's one positioner stands for.)
  const json* ranges = report::json_at(st.drive, {"identify", "concurrent_positioning_ranges", "ranges"});
  const bool one_positioner = !(ranges && ranges->is_array() && ranges->size() > 1);
  if (model["queue"]["protocol"] != "none" && one_positioner) {
    const measure::Trace qw = queued_workload(cap_blocks, model["logical_sector_bytes"].get<std::uint32_t>(), req.seed + 51);
    auto qms = drive_workload(req, qw, 2);
    if (!qms) return st.cut.emplace("queued workload", qms.error()), std::nullopt;
    st.workload_s += *std::max_element(qms->begin(), qms->end()) / 1e3;
    if (auto e = fit_miss_overhead(model, *qms, qw, *sms, sw, req.seed + 61, st.moves)) return *e;
  }
  return fit_queue(model, st.drive, tb, req.seed, st.moves);
}

std::optional<Error> run_workloads(WorkloadStages& st, const TwinBench& tb) {
  const ModelRequest& req = st.req;
  json& model = st.model;
  if (auto e = calibrate_figures(model, st.drive, tb, req.calibration_rounds, req.seed, st.moves)) return *e;
  const auto lbs = model["logical_sector_bytes"].get<std::uint32_t>();
  const auto cap_blocks = static_cast<std::uint64_t>(json_number_at(st.drive, {"target", "capacity_bytes"}).value_or(0) / lbs);
  // The miss transfer first: the cache workload's misses then pass media and bus as the drive's.
  const measure::Trace zw = size_workload(cap_blocks, lbs, req.seed + 71);
  auto zms = drive_workload(req, zw);
  if (!zms) return st.cut.emplace("miss-transfer workload", zms.error()), std::nullopt;
  st.workload_s += busy_ms(*zms, zw) / 1e3;
  if (auto e = fit_miss_transfer(model, *zms, zw, !st.draft.track_sizes, req.seed + 81, st.moves)) return *e;
  if (read_ahead_askable(model)) {
    const ReadAheadWorkload rw = read_ahead_workload(model, cap_blocks, req.seed + 91);
    auto rms = drive_workload(req, rw.trace);
    if (!rms) return st.cut.emplace("read-ahead workload", rms.error()), std::nullopt;
    st.workload_s += busy_ms(*rms, rw.trace) / 1e3;
    if (auto e = fit_read_ahead(model, *rms, rw, req.seed + 93, st.moves)) return *e;
  }
  const measure::Trace w = cache_workload(cap_blocks, lbs, req.seed);
  auto dms = drive_workload(req, w);
  if (!dms) return st.cut.emplace("cache workload", dms.error()), std::nullopt;
  st.workload_s += busy_ms(*dms, w) / 1e3;
  if (auto e = fit_cache(model, *dms, w, req.seed + 21, st.moves)) return *e;
  return seek_and_queue(st, tb, cap_blocks);
}

}  // namespace

Expected<Report> run_model(const ModelRequest& req, const measure::ProgressFn& progress) {
  BenchRequest b;
  b.target = req.target;
  b.tests = {"access", "transfer", "cache", "queue"};
  b.tests_given = true;
  b.seed = req.seed;
  // The bench gets 60 % of the drive time: the miss-transfer, cache, seek and queued workloads after
  // it take the rest (about 4300 reads; under a minute on a 5400 rpm drive of the 1990s).
  b.budget_s = 0.6 * req.budget_s.value_or(180);
  b.device = req.device;
  b.stop = req.stop;
  // Stage 1: the drive measured, its figures drafted into a model.
  auto drive = run_bench(b, progress);
  if (!drive) return drive.error();
  const json& ddoc = drive->json;
  TwinDraft draft = twin_from_bench(ddoc);
  if (!draft.rotating && !req.allow_flat && drive->exit_code != kExitInterrupted)
    return make_error(req.target + ": no twin made: the timing shows no rotating drive (" + draft.why_not_rotating +
                      "); --allow-flat makes a model without mechanics anyway");
  json model = draft.model;
  std::vector<std::string> moves, failed = draft.failed_tests;
  double workload_s = 0;  // drive time of the workloads after the bench
  bool interrupted = drive->exit_code == kExitInterrupted;
  int exit_code = drive->exit_code;
  if (draft.rotating && !interrupted) {
    WorkloadStages st{req, ddoc, draft, model, moves};
    if (auto e = run_workloads(st, TwinBench(b))) return *e;
    workload_s = st.workload_s;
    // A workload cut short (Ctrl-C, a failed read, a vanished device) ended the stages there: the
    // model keeps what the stages before it made, and says which one was cut and why.
    if (st.cut) {
      const Error& e = st.cut->second;
      if (e.code == ECANCELED) {
        interrupted = true;
        exit_code = kExitInterrupted;
      } else {
        exit_code = std::max(exit_code, measure::device_errno(e.code) ? kExitDevice : kExitPartial);
      }
      failed.push_back(st.cut->first + ": " + e.message);
    }
  }
  for (const char* k : {"bytes", "segments", "read_ahead_sectors"})
    if (model["cache"].contains(k)) model["cache"][k] = static_cast<std::uint64_t>(model["cache"][k].get<double>());
  model["provenance"]["target"] = req.target;
  model["provenance"]["drive_time_s"] = json_number_at(ddoc, {"tests", "drive_time_s"}).value_or(0) + workload_s;
  model["provenance"]["partial"] = interrupted;
  model["provenance"]["calibration"] = moves;
  // A default a workload then measured (the read-ahead the cache test did not tell) is no longer unobserved.
  std::erase_if(draft.unobserved, [&](const std::string& u) {
    const std::string key = u.substr(0, u.find(':'));
    const json* src = report::json_at(model, {"provenance", "sources", key.c_str()});
    return src && src->is_string() && !src->get<std::string>().starts_with("default:");
  });
  model["provenance"]["unobserved"] = draft.unobserved;
  model["provenance"]["failed_tests"] = failed;
  const std::string text = model.dump(2) + "\n";
  if (auto check = sim::parse_model(text); !check)
    return make_error("the twin's model is not valid: " + check.error().message);
  if (auto e = write_model(req.output, text)) return *e;
  Report r = model_report(req, ddoc, model, draft, moves, failed, interrupted);
  r.exit_code = exit_code;
  r.warnings = drive->warnings;
  return r;
}

}  // namespace ds::app
