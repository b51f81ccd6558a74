#include "app/bench.hpp"

#include <fmt/core.h>

#include <cerrno>
#include <cmath>
#include <charconv>
#include <cstring>

#include "app/target.hpp"
#include "tests/bench.hpp"

namespace ds::app {

Expected<std::uint64_t> parse_span(std::string_view text, std::uint64_t capacity_bytes,
                                   std::uint32_t block_bytes) {
  auto bad = [&] {
    return usage_error(fmt::format("--span {}: expected a size (50GB, 1TiB, 4096) or a percentage (10%)",
                                  text));
  };
  if (text.empty()) return bad();
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || !(v > 0) || !std::isfinite(v)) return bad();
  std::string unit(p, text.data() + text.size());
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double bytes = 0;
  if (unit == "%") {
    if (v > 100) return usage_error(fmt::format("--span {}: more than 100 %", text));
    bytes = capacity_bytes * v / 100.0;
  } else {
    static const std::pair<const char*, double> units[] = {
        {"", 1},      {"B", 1},       {"K", 1e3},     {"KB", 1e3},    {"M", 1e6},
        {"MB", 1e6},  {"G", 1e9},     {"GB", 1e9},    {"T", 1e12},    {"TB", 1e12},
        {"KIB", 1024.0}, {"MIB", 1048576.0}, {"GIB", 1073741824.0}, {"TIB", 1099511627776.0}};
    bool found = false;
    for (auto& [name, mult] : units)
      if (unit == name) { bytes = v * mult; found = true; }
    if (!found) return bad();
  }
  if (bytes < 1) return bad();
  if (bytes < block_bytes)
    return usage_error(fmt::format("--span {}: less than one sector ({} bytes); give at least {} bytes",
                                   text, block_bytes, block_bytes));
  if (bytes > static_cast<double>(capacity_bytes))
    return usage_error(fmt::format("--span {}: larger than the target ({} bytes)", text, capacity_bytes));
  return static_cast<std::uint64_t>(bytes);
}

namespace {

// A run that stopped because the device failed is told apart from one that merely ran short.
bool device_failure(const Error& e) {
  return e.code == EIO || e.code == ENODEV || e.code == ETIMEDOUT || e.code == ENXIO;
}

// Passes everything through to the target's engine until `stop` says so; from then on a submit
// fails with ECANCELED, so the test that is running ends at its next request instead of running
// out its budget (completions already in flight are still reaped).
class StoppableIo final : public IoEngine {
 public:
  StoppableIo(IoEngine& inner, std::function<bool()> stop) : inner_(inner), stop_(std::move(stop)) {}
  const IoTargetInfo& info() const override { return inner_.info(); }
  std::int64_t now_ns() override { return inner_.now_ns(); }
  Expected<std::size_t> submit(std::span<const IoRequest> reqs) override {
    if (stop_ && stop_()) return make_error("interrupted", ECANCELED);
    return inner_.submit(reqs);
  }
  Expected<std::size_t> reap(std::span<IoCompletion> out, std::size_t min_events,
                             std::chrono::milliseconds timeout) override {
    return inner_.reap(out, min_events, timeout);
  }
  void idle(std::chrono::nanoseconds d) override { inner_.idle(d); }
  std::size_t in_flight() const override { return inner_.in_flight(); }

 private:
  IoEngine& inner_;
  std::function<bool()> stop_;
};

}  // namespace

Expected<Report> run_bench(const BenchRequest& req, const measure::ProgressFn& progress) {
  OpenOptions oo;
  oo.want_io = true;
  oo.write = req.write;
  oo.destructive = req.destructive;
  oo.seed = req.seed;
  auto t = open_target(req.target, oo);
  if (!t) return t.error();

  measure::BenchOptions bo;
  if (!req.tests.empty()) bo.tests = req.tests;
  bo.allow_write = req.write;
  bo.seed = req.seed;
  bo.stop = req.stop;
  if (req.budget_s) bo.budget_s = *req.budget_s;
  if (!req.span.empty()) {
    const auto& info = t->io->info();
    auto s = parse_span(req.span, info.capacity_bytes, info.logical_block_bytes ? info.logical_block_bytes : 512);
    if (!s) return s.error();
    bo.span_bytes = *s;
  }

  Report r;
  r.json = {{"drivescope", {{"version", version()}}},
            {"target", {{"kind", to_string(t->kind)}, {"name", req.target}}}};
  // The identity goes beside the results so a report says what was measured. It is best effort:
  // a file target has none, and a failure here must not cost the measurements.
  if (t->device) {
    if (auto id = identify_target(*t, {}); id && id->json.contains("identify"))
      r.json["identify"] = id->json["identify"];
  }
  // The actuators test compares the positioning ranges the drive reports (ATA log 47h / VPD
  // B9h, decoded by identify), and the halves of the span when it reports none.
  if (const auto* id = r.json.contains("identify") ? &r.json["identify"] : nullptr;
      id && id->contains("concurrent_positioning_ranges") && (*id)["concurrent_positioning_ranges"].is_object()) {
    for (const auto& x : (*id)["concurrent_positioning_ranges"].value("ranges", nlohmann::json::array()))
      if (x.is_object() && x.value("lba_count", std::uint64_t{0}) > 0)
        bo.positioning_ranges.push_back({x.value("lowest_lba", std::uint64_t{0}), x.value("lba_count", std::uint64_t{0})});
  }
  StoppableIo io(*t->io, req.stop);
  auto res = measure::run_bench(io, bo, progress);
  if (!res) return res.error();
  const bool interrupted = req.stop && req.stop();
  r.json["tests"] = measure::bench_to_json(*res);
  r.json["settings"] = {{"tests", bo.tests}, {"seed", bo.seed}, {"budget_s", bo.budget_s},
                        {"write", bo.allow_write},
                        {"span_bytes", bo.span_bytes ? nlohmann::json(*bo.span_bytes) : nlohmann::json()}};
  r.text = fmt::format("drivescope bench {} ({})\n\n", req.target, to_string(t->kind)) +
           measure::bench_to_text(*res);
  for (const auto& [test, err] : res->errors) {
    r.warnings.push_back(fmt::format("{}: {}", test, err.message));
    r.exit_code = device_failure(err) ? kExitDevice : std::max(r.exit_code, kExitPartial);
  }
  if (interrupted) {
    // The tests that finished are in the report; the one cut short is under tests.errors.
    r.json["interrupted"] = true;
    r.warnings.push_back("interrupted by a signal: the report has the tests finished before it (the one cut short is under errors)");
    if (r.exit_code != kExitDevice) r.exit_code = kExitInterrupted;
  }
  return r;
}

}  // namespace ds::app
