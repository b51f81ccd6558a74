#include "tests/positioning.hpp"

#include <fmt/format.h>

#include <vector>

#include "tests/common.hpp"

namespace ds::measure {

PositioningVerdict judge_positioning(std::span<const double> latencies_ms) {
  PositioningVerdict v;
  v.reads = latencies_ms.size();
  if (v.reads < kMinPositioningReads) {
    v.evidence = fmt::format("{} random reads: too few to tell whether the target positions mechanically", v.reads);
    return v;
  }
  const std::vector<double> lat(latencies_ms.begin(), latencies_ms.end());
  v.p10_ms = quantile(lat, 0.10);
  v.p50_ms = quantile(lat, 0.50);
  v.p90_ms = quantile(lat, 0.90);
  v.mechanical = v.p50_ms >= kMechanicalMedianFloorMs;
  v.evidence = *v.mechanical
                   ? fmt::format("mechanical positioning: {} random reads take {:.3f} ms (median; 10 % under {:.3f}, "
                                 "90 % under {:.3f} ms)", v.reads, v.p50_ms, v.p10_ms, v.p90_ms)
                   : fmt::format("no mechanical positioning: {} random reads over the span take {:.3f} ms (median; 90 % "
                                 "under {:.3f} ms), under the {:.1f} ms a rotating drive needs to bring a sector round",
                                 v.reads, v.p50_ms, v.p90_ms, kMechanicalMedianFloorMs);
  return v;
}

namespace {

// Uniform single-block reads over the span, reproducible from the seed.
std::vector<PlanEntry> random_plan(std::uint64_t span, std::size_t count, std::uint64_t seed) {
  Rng rng(seed ^ 0x706f736974696f6eull);  // "position": its own stream, apart from the tests'
  std::vector<PlanEntry> plan(count);
  for (auto& p : plan) p.lba = rng.below(span);
  return plan;
}

}  // namespace

Expected<PositioningResult> run_positioning(IoEngine& io, const PositioningOptions& opt) {
  const Span sp = span_of(io.info(), opt.span_blocks);
  if (sp.blocks == 0) return make_error("the target reports no capacity");
  const auto plan = random_plan(sp.blocks, opt.reads, opt.seed);
  Budget budget(opt.budget_s);
  const RunResult r = run_plan(io, plan, RunOptions{}, budget);
  if (failed(r.stop)) return *r.error;
  std::vector<double> lat;
  lat.reserve(r.samples.size());
  for (std::size_t i = 0; i < r.samples.size(); ++i)
    if (r.done[i]) lat.push_back(r.samples[i].latency_ms());
  PositioningResult res;
  res.verdict = judge_positioning(lat);
  res.drive_time_s = static_cast<double>(r.drive_ns) * 1e-9;
  return res;
}

}  // namespace ds::measure
