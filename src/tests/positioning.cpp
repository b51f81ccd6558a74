#include "tests/positioning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "tests/common.hpp"

namespace ds::measure {

PositioningVerdict judge_positioning(std::span<const std::vector<double>> rounds_ms) {
  PositioningVerdict v;
  std::vector<double> all;
  double least = std::numeric_limits<double>::infinity();
  std::size_t judged_rounds = 0;
  for (const auto& r : rounds_ms) {
    all.insert(all.end(), r.begin(), r.end());
    if (r.size() < kPositioningRoundReads) continue;
    least = std::min(least, median(r));
    ++judged_rounds;
  }
  v.reads = all.size();
  if (judged_rounds == 0) {
    v.evidence = fmt::format("{} random reads, no round of {}: too few to tell whether the target positions "
                             "mechanically", v.reads, kPositioningRoundReads);
    return v;
  }
  v.p10_ms = quantile(all, 0.10);
  v.p50_ms = quantile(all, 0.50);
  v.p90_ms = quantile(all, 0.90);
  v.least_round_median_ms = least;
  v.mechanical = least >= kMechanicalMedianFloorMs;
  v.evidence = *v.mechanical
                   ? fmt::format("mechanical positioning: {} random reads take {:.3f} ms (median; {:.3f} in the "
                                 "fastest of {} rounds, 90 % under {:.3f} ms)", v.reads, v.p50_ms, least, judged_rounds,
                                 v.p90_ms)
                   : fmt::format("no mechanical positioning: random reads over the span take {:.3f} ms (median of the "
                                 "fastest of {} rounds; {:.3f} over all {}), under the {:.1f} ms a rotating drive needs "
                                 "to bring most sectors round", least, judged_rounds, v.p50_ms, v.reads,
                                 kMechanicalMedianFloorMs);
  return v;
}

namespace {

// Uniform single-block reads over the span, reproducible from the seed.
std::vector<PlanEntry> random_plan(std::uint64_t span, std::size_t count, Rng& rng) {
  std::vector<PlanEntry> plan(count);
  for (auto& p : plan) p.lba = rng.below(span);
  return plan;
}

}  // namespace

Expected<PositioningResult> run_positioning(IoEngine& io, const PositioningOptions& opt) {
  const Span sp = span_of(io.info(), opt.span_blocks);
  if (sp.blocks == 0) return make_error("the target reports no capacity");
  Rng rng(opt.seed ^ 0x706f736974696f6eull);  // "position": a stream apart from the tests'
  Budget budget(opt.budget_s);
  std::vector<std::vector<double>> rounds;
  PositioningResult res;
  for (std::size_t k = 0; k < opt.rounds && !budget.exhausted(); ++k) {
    if (k) io.idle(std::chrono::nanoseconds(static_cast<std::int64_t>(opt.gap_s * 1e9)));
    const auto plan = random_plan(sp.blocks, kPositioningRoundReads, rng);
    const RunResult r = run_plan(io, plan, RunOptions{}, budget);
    res.drive_time_s += static_cast<double>(r.drive_ns) * 1e-9;
    if (failed(r.stop)) return *r.error;
    auto& lat = rounds.emplace_back();
    for (std::size_t i = 0; i < r.samples.size(); ++i)
      if (r.done[i]) lat.push_back(r.samples[i].latency_ms());
  }
  res.verdict = judge_positioning(rounds);
  return res;
}

}  // namespace ds::measure
