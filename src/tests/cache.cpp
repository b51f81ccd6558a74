#include "tests/cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ds::measure {

namespace {
// Absolute slack of the hit test: host-side jitter a hit may show on top of the hit line.
constexpr double kHitSlackMs = 0.05;
constexpr unsigned kMaxRegions = 64;  // regions re-read in the last round of the size probe
}  // namespace

bool is_hit(double latency_ms, std::uint64_t bytes, double overhead_ms, double rate_mb_s) {
  if (rate_mb_s <= 0) return false;
  const double predicted = overhead_ms + static_cast<double>(bytes) / (rate_mb_s * 1e3);
  return latency_ms <= predicted * 1.3 + kHitSlackMs;
}

Expected<CacheResult> run_cache(IoEngine& io, const CacheOptions& opt, const ProgressFn* progress) {
  CacheResult res;
  const std::uint32_t lb = io.info().logical_block_bytes ? io.info().logical_block_bytes : 512;
  const std::uint64_t cap = io.info().capacity_bytes / lb;
  const std::uint64_t span = opt.span_blocks ? std::min(opt.span_blocks, cap) : cap;
  if (span < 65536) return make_error("cache: span too small");
  Budget budget(opt.budget_s);
  Rng rng(opt.seed ^ 0xC0FFEE);
  std::optional<Error> err;
  auto report = [&](double f) {
    if (progress && *progress) (*progress)("cache", f, budget.used_s());
  };
  // QD1 run of (lba, blocks) reads; latencies in ms (negative when not completed).
  auto run = [&](const std::vector<PlanEntry>& plan) {
    RunOptions ro;
    ro.queue_depth = 1;
    RunResult r = run_plan(io, plan, ro, budget);
    if (r.error && !err) err = r.error;
    std::vector<double> ms(plan.size(), -1);
    for (std::size_t i = 0; i < plan.size(); ++i)
      if (r.done[i]) ms[i] = r.samples[i].latency_ms();
    return ms;
  };
  const std::uint64_t max_blocks = std::min<std::uint64_t>(span / 8, (8u << 20) / lb);
  auto fresh = [&](std::uint64_t blocks) { return rng.below(span - blocks - 1); };

  // 1. Burst: re-read sizes 1 block … until a re-read is no longer a hit. The slope of latency
  //    over size is the interface rate; the intercept, the per-command time.
  std::vector<double> xs, ys;
  double first_miss_ms = 0;
  for (std::uint64_t b = 1; b <= max_blocks && !err && !budget.exhausted(); b *= 2) {
    const std::uint64_t x = fresh(b);
    std::vector<PlanEntry> plan(5, PlanEntry{x, static_cast<std::uint32_t>(b), false});
    auto ms = run(plan);
    if (ms[4] < 0) break;
    std::vector<double> re(ms.begin() + 1, ms.end());
    const double l = median(re);
    if (b == 1) {
      // The miss time from several fresh reads: one alone may be quick or slow by chance.
      std::vector<PlanEntry> probe;
      for (int i = 0; i < 8; ++i) probe.push_back({fresh(1), 1, false});
      auto pm = run(probe);
      std::vector<double> misses{ms[0]};
      for (double v : pm)
        if (v >= 0) misses.push_back(v);
      first_miss_ms = median(misses);
      if (l > 0.5 * first_miss_ms) {
        res.notes.push_back("re-reads are not faster than the first read: no read cache seen");
        break;
      }
      // Where a miss costs no more than a hit plus the hit test's slack (RAM, a file in the page
      // cache), every read passes for a hit: a cache cannot be told apart, let alone sized.
      if (first_miss_ms - l < kHitSlackMs) {
        res.notes.push_back(fmt::format(
            "a miss ({:.4f} ms) costs less than {:.2f} ms more than a re-read ({:.4f} ms): no "
            "positioning cost, so a cache cannot be told apart from the media", first_miss_ms,
            kHitSlackMs, l));
        break;
      }
    } else if (xs.size() >= 2) {
      LineFit f = fit_line(xs, ys);
      const double rate = f.slope > 0 ? 1.0 / (f.slope * 1e3) : 1e9;  // bytes per ms → MB/s
      if (!is_hit(l, b * lb, std::max(f.intercept, 0.0), rate)) break;
    }
    xs.push_back(static_cast<double>(b * lb));
    ys.push_back(l);
    res.largest_hit_bytes = b * lb;
  }
  report(0.4);
  if (xs.size() >= 3) {
    // Use the larger hits: the slope is best defined where transfer dominates.
    LineFit f = fit_line(xs, ys);
    if (f.slope > 0) {
      const double rate = 1.0 / (f.slope * 1e3);
      res.burst_mb_s = {rate, rate * std::sqrt(std::max(0.0, 1 - f.r2))};
      res.hit_overhead_ms = {std::max(0.0, f.intercept), 0};
    }
  }
  // 2. Cache size: r regions of the largest hit size, read once then re-read; the most data
  //    still served at hit speed.
  //    Many regions of one segment's size re-read whole tell the segment from the total: the
  //    largest single hit is a segment, the most data over several regions the cache.
  const bool single_at_limit = res.largest_hit_bytes >= max_blocks * lb;
  if (res.burst_mb_s.value > 0 && res.largest_hit_bytes) {
    const std::uint64_t S = res.largest_hit_bytes / lb;
    if (!single_at_limit) res.segment_bytes_estimate = res.largest_hit_bytes;
    bool all_hit = false;
    for (unsigned r = 1; r <= kMaxRegions && !err && !budget.exhausted(); r *= 2) {
      std::vector<PlanEntry> plan;
      for (unsigned i = 0; i < r; ++i) plan.push_back({fresh(S), static_cast<std::uint32_t>(S), false});
      for (unsigned i = 0; i < r; ++i) plan.push_back(plan[i]);
      auto ms = run(plan);
      unsigned hits = 0;
      for (unsigned i = r; i < 2 * r; ++i)
        hits += ms[i] >= 0 && is_hit(ms[i], S * lb, res.hit_overhead_ms.value, res.burst_mb_s.value);
      res.size_bytes_estimate = std::max<std::uint64_t>(res.size_bytes_estimate, hits * S * lb);
      all_hit = hits == r;
      if (hits < r) break;
    }
    res.size_at_least = single_at_limit || all_hit;
    if (res.size_at_least)
      res.notes.push_back(fmt::format("cache size: at least {} KiB (the probe reached its limit before a "
                                      "re-read missed)", res.size_bytes_estimate / 1024));
  }
  report(0.7);
  // 3. Read-ahead: after one read and a pause of a few revolutions, how far on is already there?
  if (res.burst_mb_s.value > 0) {
    for (std::uint64_t j = 1; j <= (16u << 20) / lb && !err && !budget.exhausted(); j *= 4) {
      const std::uint64_t x = fresh(j + 1);
      auto a = run({{x, 1, false}});
      io.idle(std::chrono::milliseconds(60));
      auto b2 = run({{x + j, 1, false}});
      if (b2[0] < 0 || a[0] < 0) break;
      if (!is_hit(b2[0], lb, res.hit_overhead_ms.value, res.burst_mb_s.value)) break;
      res.read_ahead = true;
      res.read_ahead_bytes_estimate = (j + 1) * lb;
    }
  }
  res.drive_time_s = budget.used_s();
  if (err) res.notes.push_back("stopped early: " + err->message);
  report(1.0);
  return res;
}

}  // namespace ds::measure
