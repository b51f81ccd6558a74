#include "tests/queue.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tests/positioning.hpp"
#include "tests/result_keys.hpp"

namespace ds::measure {

namespace {

// The method's parameters (docs/methods.md, "Read queuing"), in one place.
struct QueueTuning {
  // A depth's figures count once this many latencies are in.
  std::uint64_t min_usable_ios = 16;
  // ... and its IOPS only when known to this relative standard error: the gain thresholds are
  // x1.07 to x1.41 (log 0.07 to 0.35), so a wider IOPS decides nothing. A depth cut short by the
  // budget, or timed through a guest that reports completions in clumps, gets no say.
  double max_judged_rel_se = 0.15;
  // No positioning cost to save: depth-1 reads with a median under the mechanical floor
  // (tests/positioning.hpp: the one rule for every test), or a spread under no_cost_cv of the
  // mean (a device that answers in the same time wherever a read lands).
  double no_cost_cv = 0.08;
  unsigned min_deepest = 4;                // shallower than this: too shallow to judge
  // Gain threshold deepest^gain_threshold_exponent: the midpoint in log space between "flat"
  // (gain 1) and the weakest SPTF gain (d^(1/3)).
  double gain_threshold_exponent = 0.1;
  double min_gain_se = 0.01;               // floor of the log gain's standard error
  double reorder_max_latency_exponent = 0.9;
  double arrival_min_latency_exponent = 0.8;  // the diagonal ridge
  double reorder_min_overtaken = 0.25;     // share of completions out of order when reordering
  double reorder_gain_ceiling_exponent = 0.65;  // about d^(1/2), with room
  // A verdict's confidence is computed (normal approximations), and never stated above this: the
  // approximations hold in the bulk, not in the far tail.
  double max_confidence = 0.999;
  // The closed loop per depth: an equal share of the budget (at least min_depth_s), up to
  // hard_limit_factor times it, and at least min_ios_per_depth·depth + min_ios_base I/Os.
  double min_depth_s = 0.2;
  double hard_limit_factor = 3;
  std::size_t min_ios_per_depth = 4;
  std::size_t min_ios_base = 64;
  std::uint64_t seed_mix = 0x9E3779B97F4A7C15ull;  // per-depth generators from the one seed
};
constexpr QueueTuning kTuning{};

}  // namespace

namespace {

// A depth's figures count with enough latencies in, and its IOPS only when known well enough.
bool usable(const QueueDepthResult& d) {
  return d.ios >= kTuning.min_usable_ios && d.iops > 0 && d.mean_ms > 0 && d.reached_depth > 0;
}
bool judged(const QueueDepthResult& d) { return usable(d) && d.iops_rel_se <= kTuning.max_judged_rel_se; }

// The depths the verdict compares: depth 1, the deepest judged one, and the deepest usable one
// left out for its uncertain IOPS (nullptr: none).
struct Compared {
  const QueueDepthResult* d1 = nullptr;
  const QueueDepthResult* deep = nullptr;
  const QueueDepthResult* vague = nullptr;
};
Compared pick_depths(const std::vector<QueueDepthResult>& depths) {
  Compared c;
  for (const auto& d : depths) {
    if (!usable(d)) continue;
    const QueueDepthResult*& slot = judged(d) ? c.deep : c.vague;
    if (judged(d) && d.reached_depth == 1 && !c.d1) c.d1 = &d;
    if (!slot || d.reached_depth > slot->reached_depth) slot = &d;
  }
  return c;
}

// Slopes of log IOPS and log mean latency against log depth, over the judged depths.
void fit_exponents(const std::vector<QueueDepthResult>& depths, ReorderVerdict& v) {
  std::vector<double> lx, liops, llat;
  for (const auto& d : depths) {
    if (!judged(d)) continue;
    lx.push_back(std::log(static_cast<double>(d.reached_depth)));
    liops.push_back(std::log(d.iops));
    llat.push_back(std::log(d.mean_ms));
  }
  if (lx.size() < 2) return;
  v.iops_exponent = fit_line(lx, liops).slope;
  v.latency_exponent = fit_line(lx, llat).slope;
}

// The one-sided confidence that an estimate `margin` away from its threshold, on the verdict's
// side, with standard error `se`, lies on that side: Φ(margin/se), capped.
double side_confidence(double margin, double se) {
  if (!(se > 0)) return margin > 0 ? kTuning.max_confidence : 0.5;
  return std::min(kTuning.max_confidence, normal_cdf(margin / se));
}

// The confidence that depth 1's true median lies under the mechanical floor: the sign test (how
// many of n reads came in under it, against n/2 with standard deviation √n/2).
double median_under_floor_confidence(const QueueDepthResult& d1) {
  const double floor_ns = kMechanicalMedianFloorMs * 1e6;
  double n = 0, under = 0;
  for (const auto& b : d1.histogram.buckets()) {
    n += static_cast<double>(b.count);
    if (static_cast<double>(b.upper) < floor_ns) under += static_cast<double>(b.count);
  }
  return n > 0 ? side_confidence(under - n / 2, std::sqrt(n) / 2) : 0;
}

// The confidence that the latencies' true coefficient of variation lies under `limit`: its
// standard error for n values, cv·√((1 + 2cv²)/(2n)) (McKay's approximation).
double cv_under_confidence(double cv, double n, double limit) {
  return side_confidence(limit - cv, cv * std::sqrt((1 + 2 * cv * cv) / (2 * n)));
}

// Depth 1's latencies say whether there is any positioning cost a queue could save. They need
// enough reads, not a well-known IOPS: a loop device whose host stalls a few reads by milliseconds
// has its IOPS known to +-50 % and its median still at 8 us (targets ctest, 2 runs in 10 before).
// Either sign suffices, so the verdict is as sure as the surer of the two.
bool no_positioning_cost(const QueueDepthResult& d1, ReorderVerdict& v) {
  const QueueTuning& t = kTuning;
  const double cv1 = d1.stddev_ms / d1.mean_ms;
  if (d1.p50_ms >= kMechanicalMedianFloorMs && cv1 >= t.no_cost_cv) return false;
  v.no_positioning_cost = true;
  v.confidence = std::max(median_under_floor_confidence(d1),
                          cv_under_confidence(cv1, static_cast<double>(d1.ios), t.no_cost_cv));
  v.undecided = Withheld{key::queue::reorders, WithheldReason::queue_no_positioning_cost,
                         {{"d1_median_ms", d1.p50_ms}, {"d1_mean_ms", d1.mean_ms}, {"spread_pct", cv1 * 100}}};
  return true;
}

const QueueDepthResult* first_usable_depth1(const std::vector<QueueDepthResult>& depths) {
  for (const auto& d : depths)
    if (usable(d) && d.reached_depth == 1) return &d;
  return nullptr;
}

}  // namespace

std::vector<std::pair<const char*, double>> reorder_comparison(const ReorderVerdict& v) {
  return {{"d1_iops", v.d1_iops},          {"deep_iops", v.deep_iops},
          {"deepest", static_cast<double>(v.deepest)}, {"depth_gain", v.iops_gain},
          {"threshold", v.gain_threshold}, {"latency_slope", v.latency_exponent},
          {"overtaken_pct", v.overtaken_share * 100}};
}

ReorderVerdict judge_reordering(const std::vector<QueueDepthResult>& depths) {
  ReorderVerdict v;
  auto undecided = [&v](WithheldReason why, std::vector<std::pair<const char*, double>> numbers) {
    v.undecided = Withheld{key::queue::reorders, why, std::move(numbers)};
    return v;
  };
  const QueueDepthResult* first = first_usable_depth1(depths);
  if (!first) return undecided(WithheldReason::queue_no_depth1, {});
  if (no_positioning_cost(*first, v)) {
    if (const auto deep = pick_depths(depths).deep; deep && deep->reached_depth > 1) {
      v.deepest = deep->reached_depth;
      v.iops_gain = deep->iops / first->iops;
      v.undecided->numbers.insert(v.undecided->numbers.end(),
                                  {{"depth_gain", v.iops_gain}, {"deepest", static_cast<double>(v.deepest)}});
    }
    return v;
  }
  const auto [d1, deep, vague] = pick_depths(depths);
  if (!d1 || !deep) return undecided(WithheldReason::queue_depth1_vague, {{"iops_hw_pct", 196 * first->iops_rel_se}});
  v.deepest = deep->reached_depth;
  v.d1_iops = d1->iops;
  v.deep_iops = deep->iops;
  v.iops_gain = deep->iops / d1->iops;
  v.overtaken_share = deep->overtaken_share;
  const bool left_out = vague && vague->reached_depth > deep->reached_depth;
  if (left_out)
    v.unjudged = fmt::format(
        "depth {}'s IOPS ({:.0f}, from {} reads) is known only to +-{:.0f} %: judged at depth {}; a "
        "larger budget gives the deep queues more reads",
        vague->reached_depth, vague->iops, vague->ios, 196 * vague->iops_rel_se, deep->reached_depth);
  fit_exponents(depths, v);
  const QueueTuning& t = kTuning;
  if (v.deepest < t.min_deepest) {
    if (!left_out) return undecided(WithheldReason::queue_too_shallow, {{"deepest", static_cast<double>(v.deepest)}});
    return undecided(WithheldReason::queue_deep_vague,
                     {{"min_depth", static_cast<double>(t.min_deepest)},
                      {"vague_depth", static_cast<double>(vague->reached_depth)},
                      {"vague_iops", vague->iops},
                      {"vague_reads", static_cast<double>(vague->ios)},
                      {"iops_hw_pct", 196 * vague->iops_rel_se},
                      {"judged_at", static_cast<double>(deep->reached_depth)}});
  }
  v.gain_threshold = std::pow(static_cast<double>(v.deepest), t.gain_threshold_exponent);
  const double se = std::max(t.min_gain_se, std::hypot(d1->iops_rel_se, deep->iops_rel_se));
  const double z = (std::log(v.iops_gain) - std::log(v.gain_threshold)) / se;
  if (v.iops_gain >= v.gain_threshold && v.latency_exponent < t.reorder_max_latency_exponent) {
    // Reordering serves the nearest of d requests first, so most completions overtake an older
    // request (95 %+ at depth 32 on SPTF drives), and it cannot gain more than about d^(1/2)
    // (the expected distance to the nearest of d random points). More IOPS with completions
    // mostly in arrival order, or a gain beyond that, is parallel service (striping, several
    // actuators, flash channels, an emulator's thread pool), not reordering.
    const double ceiling = std::pow(static_cast<double>(v.deepest), t.reorder_gain_ceiling_exponent);
    if (v.overtaken_share < t.reorder_min_overtaken || v.iops_gain > ceiling) {
      // Two things must hold: IOPS grow (the gain over the threshold), and not by reordering (few
      // overtaken, or a gain beyond what reordering can give). Without knowing how they depend on
      // each other, P(both) is at least P(A) + P(B) − 1 (Fréchet).
      v.parallel_service = true;
      const double n = static_cast<double>(deep->ios), p = v.overtaken_share;
      const double few_overtaken = side_confidence(t.reorder_min_overtaken - p, std::sqrt(std::max(p * (1 - p), 1 / n) / n));
      const double beyond_ceiling = side_confidence(std::log(v.iops_gain) - std::log(ceiling), se);
      v.confidence = std::max(0.0, normal_cdf(z) + std::max(few_overtaken, beyond_ceiling) - 1);
      auto numbers = reorder_comparison(v);
      numbers.insert(numbers.begin(), {{"ceiling", ceiling}, {"overtaken_min_pct", t.reorder_min_overtaken * 100}});
      return undecided(WithheldReason::queue_parallel_service, std::move(numbers));
    }
    v.reorders = true;
    v.confidence = side_confidence(z, 1);
    return v;
  }
  if (v.iops_gain < v.gain_threshold && v.latency_exponent >= t.arrival_min_latency_exponent) {
    v.reorders = false;
    v.confidence = side_confidence(-z, 1);
    return v;
  }
  return undecided(WithheldReason::queue_disagree, reorder_comparison(v));
}

Expected<QueueResult> run_queue(IoEngine& io, const QueueOptions& opt, const ProgressFn* progress) {
  if (opt.depths.empty()) return make_error("queue: no depth to test");
  for (unsigned d : opt.depths)
    if (d < 1 || d > 256) return make_error(fmt::format("queue: depth {} is out of range (1..256)", d));
  const IoTargetInfo& info = io.info();
  QueueResult res;
  const Span sp = span_of(info, opt.span_blocks);
  res.block_bytes = sp.block_bytes;
  res.scheduler = opt.scheduler;
  const std::uint64_t span = sp.blocks;
  if (span < 2) return make_error("queue: the target reports no capacity");
  std::vector<unsigned> depths = opt.depths;
  std::sort(depths.begin(), depths.end());
  depths.erase(std::unique(depths.begin(), depths.end()), depths.end());
  if (depths.front() != 1) depths.insert(depths.begin(), 1);  // the verdict needs depth 1
  if (info.max_queue_depth < depths.back())
    res.notes.push_back(fmt::format("the I/O engine keeps at most {} requests outstanding",
                                    info.max_queue_depth));
  const double per_depth = std::max(kTuning.min_depth_s, opt.budget_s / static_cast<double>(depths.size()));
  const bool batch = opt.submit == QueueOptions::Submit::per_reap ||
                     (opt.submit == QueueOptions::Submit::automatic && (info.virtual_time || opt.scheduler == "none"));
  if (!batch)
    res.notes.push_back(opt.submit == QueueOptions::Submit::per_request || opt.scheduler.empty()
                            ? "one request per submit call"
                            : "one request per submit call: the " + opt.scheduler + " scheduler would sort a batch");

  for (std::size_t i = 0; i < depths.size(); ++i) {
    const unsigned d = depths[i];
    Rng rng(opt.seed * kTuning.seed_mix + d);
    LoopOptions lo;
    lo.depth = std::min(d, std::max(1u, info.max_queue_depth));
    lo.target_s = per_depth;
    lo.hard_limit_s = kTuning.hard_limit_factor * per_depth;
    lo.min_ios = kTuning.min_ios_per_depth * d + kTuning.min_ios_base;
    lo.max_ios = std::max<std::size_t>(opt.max_ios_per_depth, lo.min_ios + d);
    lo.stop = opt.stop;
    lo.batch_submit = batch;
    const std::uint32_t bb = res.block_bytes;
    auto loop = run_closed_loop(io, lo, [&](std::uint64_t) {
      IoRequest q;
      q.offset_bytes = rng.below(span) * bb;
      q.length_bytes = bb;
      return q;
    });
    QueueDepthResult dr;
    dr.depth = d;
    dr.reached_depth = loop.max_outstanding;
    dr.iops = loop.iops;
    dr.iops_rel_se = loop.iops_rel_se;
    dr.drive_time_s = loop.drive_time_s;
    std::uint64_t overtook = 0;
    for (const auto& rec : loop.records) {
      if (rec.seq < lo.depth) continue;  // the initial fill met an empty queue: warm-up
      const auto ns = static_cast<std::uint64_t>(std::max<std::int64_t>(0, rec.complete_ns - rec.submit_ns));
      dr.histogram.add(ns);
      dr.coarse.add(ns);
      overtook += rec.overtook ? 1 : 0;
    }
    dr.ios = dr.histogram.count();
    if (dr.ios) {
      dr.mean_ms = dr.histogram.mean() * 1e-6;
      dr.stddev_ms = dr.histogram.stddev() * 1e-6;
      dr.p50_ms = static_cast<double>(dr.histogram.percentile(50)) * 1e-6;
      dr.p90_ms = static_cast<double>(dr.histogram.percentile(90)) * 1e-6;
      dr.p99_ms = static_cast<double>(dr.histogram.percentile(99)) * 1e-6;
      dr.max_ms = static_cast<double>(dr.histogram.max()) * 1e-6;
      dr.overtaken_share = static_cast<double>(overtook) / static_cast<double>(dr.ios);
    }
    res.drive_time_s += loop.drive_time_s;
    res.depths.push_back(std::move(dr));
    if (progress && *progress)
      (*progress)("queue", static_cast<double>(i + 1) / static_cast<double>(depths.size()), res.drive_time_s);
    switch (loop.stop) {
      case StopReason::done:
      case StopReason::budget_spent:  // the loop has no budget of its own: its time rule ends it
        continue;
      case StopReason::interrupted:
        res.interrupted = true;
        res.notes.push_back("interrupted: depths after " + std::to_string(d) + " not measured");
        break;
      case StopReason::device_gone:
      case StopReason::io_error:
        if (res.depths.back().ios == 0) res.depths.pop_back();
        if (res.depths.empty()) return *loop.error;
        res.notes.push_back(fmt::format("depth {}: {}", d, loop.error->message));
        res.error = loop.error;
        break;
    }
    break;
  }
  res.verdict = judge_reordering(res.depths);
  if (!res.verdict.unjudged.empty()) res.notes.push_back(res.verdict.unjudged);
  return res;
}

}  // namespace ds::measure
