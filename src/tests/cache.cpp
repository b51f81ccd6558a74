#include "tests/cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
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

namespace {

// The method's parameters (docs/methods.md, "cache").
struct CacheTuning {
  std::uint64_t min_span = 65536;        // blocks the test needs
  std::uint64_t seed_mix = 0xC0FFEE;
  std::uint32_t probe_limit_bytes = 8u << 20;  // the largest single re-read tried (and span / 8)
  std::size_t burst_reads = 5;           // a size: read once, re-read four times
  int miss_probes = 8;                   // fresh single-block reads for the miss time
  double no_cache_share = 0.5;           // a re-read above this share of a miss: no read cache
  std::uint32_t read_ahead_limit_bytes = 16u << 20;
  unsigned read_ahead_step = 4;          // distances grow by this factor
  std::chrono::milliseconds read_ahead_pause{60};  // a few revolutions for the read-ahead to run
};
constexpr CacheTuning kTuning{};

// The test's state from one phase to the next.
struct CacheRun {
  IoEngine& io;
  const ProgressFn* progress;
  CacheResult res;
  std::uint32_t lb;
  std::uint64_t span;
  Budget budget;
  Rng rng;
  std::optional<Error> err;
  std::uint64_t max_blocks;

  CacheRun(IoEngine& io_, const CacheOptions& opt, const ProgressFn* p, std::uint32_t lb_, std::uint64_t span_)
      : io(io_), progress(p), lb(lb_), span(span_), budget(opt.budget_s), rng(opt.seed ^ kTuning.seed_mix),
        max_blocks(std::min<std::uint64_t>(span_ / 8, kTuning.probe_limit_bytes / lb_)) {}

  void report(double f) const {
    if (progress && *progress) (*progress)("cache", f, budget.used_s());
  }
  bool go_on() const { return !err && !budget.exhausted(); }
  std::uint64_t fresh(std::uint64_t blocks) { return rng.below(span - blocks - 1); }
  std::vector<double> run(const std::vector<PlanEntry>& plan);
  bool no_cache_seen(double reread_ms, double miss_ms);
  void burst();
  void size();
  void read_ahead();
};

// QD1 run of (lba, blocks) reads; latencies in ms (negative when not completed).
std::vector<double> CacheRun::run(const std::vector<PlanEntry>& plan) {
  RunOptions ro;
  ro.queue_depth = 1;
  RunResult r = run_plan(io, plan, ro, budget);
  if (r.error && !err) err = r.error;
  std::vector<double> ms(plan.size(), -1);
  for (std::size_t i = 0; i < plan.size(); ++i)
    if (r.done[i]) ms[i] = r.samples[i].latency_ms();
  return ms;
}

// True (with a note) where re-reads show no cache: no faster than a miss, or a miss that costs
// no more than a hit plus the hit test's slack (RAM, a file in the page cache), so that every
// read passes for a hit and a cache cannot be told apart, let alone sized.
bool CacheRun::no_cache_seen(double reread_ms, double miss_ms) {
  if (reread_ms > kTuning.no_cache_share * miss_ms) {
    res.notes.push_back("re-reads are not faster than the first read: no read cache seen");
    return true;
  }
  if (miss_ms - reread_ms < kHitSlackMs) {
    res.notes.push_back(fmt::format(
        "a miss ({:.4f} ms) costs less than {:.2f} ms more than a re-read ({:.4f} ms): no "
        "positioning cost, so a cache cannot be told apart from the media", miss_ms, kHitSlackMs, reread_ms));
    return true;
  }
  return false;
}

// 1. Burst: re-read sizes 1 block … until a re-read is no longer a hit. The slope of latency
//    over size is the interface rate; the intercept, the per-command time.
void CacheRun::burst() {
  const auto& k = kTuning;
  std::vector<double> xs, ys;
  for (std::uint64_t b = 1; b <= max_blocks && go_on(); b *= 2) {
    const std::uint64_t x = fresh(b);
    std::vector<PlanEntry> plan(k.burst_reads, PlanEntry{x, static_cast<std::uint32_t>(b), false});
    auto ms = run(plan);
    if (ms.back() < 0) break;
    std::vector<double> re(ms.begin() + 1, ms.end());
    const double l = median(re);
    if (b == 1) {
      // The miss time from several fresh reads: one alone may be quick or slow by chance.
      std::vector<PlanEntry> probe;
      for (int i = 0; i < k.miss_probes; ++i) probe.push_back({fresh(1), 1, false});
      auto pm = run(probe);
      std::vector<double> misses{ms[0]};
      for (double v : pm)
        if (v >= 0) misses.push_back(v);
      if (no_cache_seen(l, median(misses))) break;
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
  if (xs.size() < 3) return;
  // Use the larger hits: the slope is best defined where transfer dominates.
  LineFit f = fit_line(xs, ys);
  if (f.slope <= 0) return;
  const double rate = 1.0 / (f.slope * 1e3);
  res.burst_mb_s = {rate, rate * std::sqrt(std::max(0.0, 1 - f.r2))};
  res.hit_overhead_ms = {std::max(0.0, f.intercept), 0};
}

// 2. Cache size: r regions of the largest hit size, read once then re-read; the most data still
//    served at hit speed. Many regions of one segment's size re-read whole tell the segment from
//    the total: the largest single hit is a segment, the most data over several regions the cache.
void CacheRun::size() {
  const bool single_at_limit = res.largest_hit_bytes >= max_blocks * lb;
  if (res.burst_mb_s.value > 0 && res.largest_hit_bytes) {
    const std::uint64_t S = res.largest_hit_bytes / lb;
    if (!single_at_limit) res.segment_bytes_estimate = res.largest_hit_bytes;
    bool all_hit = false;
    for (unsigned r = 1; r <= kMaxRegions && go_on(); r *= 2) {
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
}

// 3. Read-ahead: after one read and a pause of a few revolutions, how far on is already there?
void CacheRun::read_ahead() {
  const auto& k = kTuning;
  if (res.burst_mb_s.value <= 0) return;
  for (std::uint64_t j = 1; j <= k.read_ahead_limit_bytes / lb && go_on(); j *= k.read_ahead_step) {
    const std::uint64_t x = fresh(j + 1);
    auto a = run({{x, 1, false}});
    io.idle(k.read_ahead_pause);
    auto b2 = run({{x + j, 1, false}});
    if (b2[0] < 0 || a[0] < 0) break;
    if (!is_hit(b2[0], lb, res.hit_overhead_ms.value, res.burst_mb_s.value)) break;
    res.read_ahead = true;
    res.read_ahead_bytes_estimate = (j + 1) * lb;
  }
}

}  // namespace

Expected<CacheResult> run_cache(IoEngine& io, const CacheOptions& opt, const ProgressFn* progress) {
  const Span sp = span_of(io.info(), opt.span_blocks);
  if (sp.blocks < kTuning.min_span) return make_error("cache: span too small");
  CacheRun c(io, opt, progress, sp.block_bytes, sp.blocks);
  c.burst();
  c.size();
  c.read_ahead();
  c.res.drive_time_s = c.budget.used_s();
  if (c.err) c.res.notes.push_back("stopped early: " + c.err->message);
  c.report(1.0);
  return std::move(c.res);
}

}  // namespace ds::measure
