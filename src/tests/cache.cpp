#include "tests/cache.hpp"

#include "tests/ab_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "tests/result_keys.hpp"
#include "tests/stats.hpp"

namespace ds::measure {

namespace {
// The hit test's parameters (is_hit, and the cache test's size and overhead checks).
struct HitTuning {
  double line_margin = 1.3;  // a hit may take this much over the hit line (overhead + transfer)
  double slack_ms = 0.05;    // and this much more: host-side jitter on top of the line
  // … but the line's margin is never more than this share of what a miss adds to a hit (the head's
  // repositioning, measured on one block). A re-read the buffer did not keep waits for the media,
  // part of a revolution at least, a cost that does not grow with the size: where the interface is
  // slower than the media (a SCSI-2 bus, a USB bridge) that wait is all that tells a miss from a
  // hit, a few milliseconds on top of hundreds of transfer, and a margin proportional to the size
  // would take every miss for a hit. An eighth stays below the median wait of a missed re-read
  // (half a revolution) for seeks up to three revolutions.
  double miss_share = 0.125;
};
constexpr HitTuning kHit{};
}  // namespace

bool is_hit(double latency_ms, std::uint64_t bytes, double overhead_ms, double rate_mb_s, double miss_extra_ms) {
  if (rate_mb_s <= 0) return false;
  const double predicted = overhead_ms + static_cast<double>(bytes) / (rate_mb_s * 1e3);
  double margin = predicted * (kHit.line_margin - 1);
  if (miss_extra_ms > 0) margin = std::min(margin, kHit.miss_share * miss_extra_ms);
  return latency_ms <= predicted + margin + kHit.slack_ms;
}

namespace {

// The method's parameters (docs/methods.md, "cache").
struct CacheTuning {
  std::uint64_t min_span = 65536;        // blocks the test needs
  std::uint64_t seed_mix = 0xC0FFEE;
  std::uint64_t control_seed_mix = 0xC0117201;  // the paused-hit controls' own placements
  std::uint64_t pace_seed_mix = 0x9ACE;          // the read-ahead pace's own placements
  std::uint32_t probe_limit_bytes = 8u << 20;  // the largest single re-read tried (and span / 8)
  unsigned max_regions = 64;            // regions re-read in the last round of the size probe
  std::size_t burst_rereads = 16;       // a size: read once, then re-read this often, at most
  std::size_t min_rereads = 4;          // … and at least
  double range_share = 0.02;            // … as many as keep a range within this share of the budget
  std::size_t firm_rereads = 64;        // … and in the rounds that firm the rate up
  double reread_keep_mads = 3;           // re-reads this many robust deviations off their size's median
                                         // are left out of the fit (a stall, a lost revolution)
  double burst_min_range = 2;            // the rate's 95 % interval may span at most this factor
  double burst_floor = 1e-3;             // stated resolution of the rate (of a noise-free fit)
  double burst_target = 0.02;            // more rounds of re-reads while the half-width is above this share
  double firm_budget_share = 0.9;        // … and while they fit in this share of the budget
  int miss_probes = 8;                   // fresh single-block reads for the miss time
  double no_cache_share = 0.5;           // a re-read above this share of a miss: no read cache
  std::uint32_t read_ahead_limit_bytes = 16u << 20;
  unsigned read_ahead_step = 4;          // distances grow by this factor
  std::chrono::milliseconds read_ahead_pause{60};  // a few revolutions for the read-ahead to run
  // … and up to this much more, drawn per probe: 60 ms is a whole number of revolutions at 10000
  // and 15000 rpm, so the head came back to the lead read's angle at every probe, and a block one
  // track on (past the read-ahead) was reached with next to no rotational wait: a hit every time,
  // by majority too (the Raptor: 279040 bytes told for its 262144). A random share of a revolution
  // more makes a miss's wait a random one (12 ms: a revolution at 5000 rpm and above).
  std::chrono::microseconds read_ahead_pause_spread{12000};
  // A drive may read ahead only once a stream is established (a read continuing another): where the
  // next block after one read misses, the probe is repeated after 1, 2 … this many one-block reads
  // in a row continuing the first. Drives seen wait for one (the Quantum Atlas III's trace).
  unsigned max_trigger_reads = 3;
  int trigger_votes = 3;  // probes per trigger count: the majority tells (one miss may be the host's)
  int extent_votes = 3;   // a read-ahead distance's hit is asked again until this many's majority agrees
  int paused_hits = 3;    // re-reads of a block read before another, after the read-ahead pause
  // The read-ahead's pace (read_ahead_pace): blocks asked for at once after a read, at distances
  // spread over this share of the read-ahead's extent (the near end is left out: there the
  // streaming head may already be past the block, a plain hit that tells no pace) …
  double pace_first_share = 0.25, pace_last_share = 0.95;
  std::uint64_t pace_max_blocks = 4096;   // … and no farther than this (a deep read-ahead on a fast drive)
  std::uint64_t pace_min_extent = 16;     // blocks of read-ahead needed to see a pace at all
  int pace_probes = 24;
  std::size_t pace_min_points = 12;       // waits above the hit line the fit needs
  double pace_max_rel_hw = 0.25;          // the rate's 95 % half-width at most this share of it
  double pace_floor = 1e-3;               // stated resolution of the pace (of a noise-free fit)
  // The size probe starts no round that would take the test past this share of its budget: the
  // read-ahead probe and the burst's firming rounds come after it.
  double size_budget_share = 0.9;
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
  Rng control_rng;  // the paused-hit controls draw here, so the probes keep the places they had
  Rng pace_rng;     // the read-ahead pace draws here, so the phases before it keep theirs
  std::optional<Error> err;
  std::uint64_t max_blocks;
  double budget_s;
  // The interface rate the hit tests use: the burst fit's estimate, also where its interval is too
  // wide for the burst to be reported.
  double hit_rate_mb_s = 0;
  double miss_ms = 0;  // a fresh single-block read (the burst's first size)
  double miss_extra_ms = 0;  // what a miss adds to a hit of one block (is_hit's bound on its margin)
  bool hit(double latency_ms, std::uint64_t bytes, double overhead_ms, double rate_mb_s) const {
    return is_hit(latency_ms, bytes, overhead_ms, rate_mb_s, miss_extra_ms);
  }

  CacheRun(IoEngine& io_, const CacheOptions& opt, const ProgressFn* p, std::uint32_t lb_, std::uint64_t span_)
      : io(io_), progress(p), lb(lb_), span(span_), budget(opt.budget_s), rng(opt.seed ^ kTuning.seed_mix),
        control_rng(opt.seed ^ kTuning.control_seed_mix), pace_rng(opt.seed ^ kTuning.pace_seed_mix),
        max_blocks(std::min<std::uint64_t>(span_ / 8, kTuning.probe_limit_bytes / lb_)), budget_s(opt.budget_s) {}

  void report(double f) const {
    if (progress && *progress) (*progress)("cache", f, budget.used_s());
  }
  bool go_on() const { return !err && !budget.exhausted(); }
  std::uint64_t fresh(std::uint64_t blocks) { return rng.below(span - blocks - 1); }
  std::vector<double> run(const std::vector<PlanEntry>& plan);
  bool no_cache_seen(double reread_ms, double miss_ms);
  struct Rereads {
    bool ok = false;         // every read completed
    std::vector<double> ms;  // the first read, then the re-reads
    double median = 0, mean = 0;
  };
  Rereads rereads(std::uint64_t b, std::size_t n);
  // The fit's points: per range read, its size and the mean of its re-reads kept. One point per
  // range, not per re-read: re-reads of one range share whatever that range's reads have in
  // common, and the interval must come from the spread between ranges.
  struct BurstPoints {
    std::vector<double> x, y;
    void add(double bytes, double ms) { x.push_back(bytes), y.push_back(ms); }
  };
  BurstPoints pts;                      // the burst's fit points
  std::vector<std::uint64_t> hit_sizes;  // the first pass's sizes that hit, in blocks
  LineFit line;      // the fit of the first pass's medians (the hit line)
  void firm_up();
  void burst();
  void burst_rate(const std::vector<double>& x, const std::vector<double>& y);
  void size();
  void read_ahead();
  // What the read-ahead probe found for the pace after it: the trigger's lead and the extent (in
  // blocks; 0 where no read-ahead was told).
  unsigned pace_follow = 0;
  std::uint64_t pace_extent = 0;
  void read_ahead_pace();
  double paused_hit_overhead_ms();
  template <class Probe>
  std::optional<unsigned> read_ahead_trigger(Probe& probe);
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
    res.withheld.push_back({key::cache::burst_mb_s, WithheldReason::no_cache_seen});
    return true;
  }
  if (miss_ms - reread_ms < kHit.slack_ms) {
    res.withheld.push_back({key::cache::burst_mb_s, WithheldReason::no_positioning_cost,
                            {{"miss_ms", miss_ms}, {"slack_ms", kHit.slack_ms}, {"reread_ms", reread_ms}}});
    return true;
  }
  return false;
}

// A fresh range of b blocks read once, then re-read n times; the mean of the re-reads near their
// median (a stall, or a re-read the drive served from the media, is not the interface).
CacheRun::Rereads CacheRun::rereads(std::uint64_t b, std::size_t n) {
  Rereads r;
  r.ms = run(std::vector<PlanEntry>(1 + n, PlanEntry{fresh(b), static_cast<std::uint32_t>(b), false}));
  if (r.ms.back() < 0) return r;
  std::vector<double> re(r.ms.begin() + 1, r.ms.end());
  r.median = median(re);
  const double keep = std::max(kTuning.reread_keep_mads * kMadToSigma * mad(re), kHit.slack_ms);
  double sum = 0;
  int kept = 0;
  for (double v : re)
    if (std::fabs(v - r.median) <= keep) sum += v, ++kept;
  r.mean = sum / kept;  // the median itself is always kept
  r.ok = true;
  return r;
}

// 1. Burst: re-read sizes 1 block … until a re-read is no longer a hit. The slope of latency
//    over size is the interface rate; the intercept, the per-command time.
void CacheRun::burst() {
  const auto& k = kTuning;
  std::vector<double> xs, ys;  // per size: the median re-read (the hit test)
  for (std::uint64_t b = 1; b <= max_blocks && go_on(); b *= 2) {
    // A size twice the last costs at most twice its re-read: as many re-reads as keep the range
    // within its share of the budget (on a slow drive the large sizes' hits cost milliseconds, and
    // the size probe after the burst needs the budget too).
    const double hit_ms = ys.empty() ? 0 : 2 * ys.back();
    const std::size_t n = hit_ms > 0 ? std::clamp<std::size_t>(static_cast<std::size_t>(budget_s * 1e3 * k.range_share / hit_ms),
                                                                k.min_rereads, k.burst_rereads)
                                     : k.burst_rereads;
    const Rereads r = rereads(b, n);
    if (!r.ok) break;
    if (b == 1) {
      // The miss time from several fresh reads: one alone may be quick or slow by chance.
      std::vector<PlanEntry> probe;
      for (int i = 0; i < k.miss_probes; ++i) probe.push_back({fresh(1), 1, false});
      auto pm = run(probe);
      std::vector<double> misses{r.ms[0]};
      for (double v : pm)
        if (v >= 0) misses.push_back(v);
      miss_ms = median(misses);
      if (no_cache_seen(r.median, miss_ms)) break;
      miss_extra_ms = miss_ms - r.median;
    } else if (xs.size() >= 2) {
      LineFit f = fit_line(xs, ys);
      const double rate = f.slope > 0 ? 1.0 / (f.slope * 1e3) : 1e9;  // bytes per ms → MB/s
      if (!hit(r.median, b * lb, std::max(f.intercept, 0.0), rate)) break;
    }
    xs.push_back(static_cast<double>(b * lb));
    ys.push_back(r.median);
    pts.add(xs.back(), r.mean);
    hit_sizes.push_back(b);
    res.largest_hit_bytes = b * lb;
  }
  report(0.4);
  if (xs.size() < 3) return;
  // The size and read-ahead probes' hit test: the line through the ranges so far. The rate is
  // reported (or not) once the ranges are complete (firm_up).
  line = fit_line(xs, ys);
  const LineFit f = fit_line(pts.x, pts.y);
  if (f.slope <= 0) return;
  hit_rate_mb_s = 1.0 / (f.slope * 1e3);  // bytes per ms → MB/s
  res.hit_overhead_ms = {std::max(0.0, f.intercept), 0};
}

// 4. More rounds over the sizes that hit, while the burst rate's interval is wide and the
// budget lasts (after the size and read-ahead probes, which get what they always had): on a slow
// interface with small segments the sizes span little transfer time against the jitter. A round's
// range counts only where its re-reads are hits on the line of the first pass: a range the drive
// did not keep whole is no point of the hit line. Then the rate is reported, or not (burst_rate).
void CacheRun::firm_up() {
  const auto& k = kTuning;
  if (pts.x.size() < 3 || line.slope <= 0) return;
  const double rate = 1.0 / (line.slope * 1e3), overhead = std::max(line.intercept, 0.0);
  auto rel_hw = [&] {
    const LineFit f = fit_line(pts.x, pts.y);
    return f.slope > 0 && pts.x.size() > 2
               ? student_t_quantile(0.975, static_cast<double>(pts.x.size()) - 2) * f.slope_se / f.slope
               : 1.0;
  };
  // A range is read only where it fits in what is left of the budget (its re-reads on the hit
  // line, and a miss first): the budget's end is no error here, the ranges so far are the result.
  auto fits = [&](std::uint64_t b) {
    const double cost_s = (static_cast<double>(k.firm_rereads) * (overhead + static_cast<double>(b * lb) / (rate * 1e3)) +
                           miss_ms) * 1e-3;
    return go_on() && budget.used_s() + cost_s < budget_s * k.firm_budget_share;
  };
  bool any = true;
  while (rel_hw() > k.burst_target && any) {
    any = false;
    for (std::uint64_t b : hit_sizes) {
      if (!fits(b)) continue;
      any = true;
      const Rereads r = rereads(b, k.firm_rereads);
      if (r.ok && hit(r.median, b * lb, overhead, rate)) pts.add(static_cast<double>(b * lb), r.mean);
    }
  }
  burst_rate(pts.x, pts.y);
}

// The slope of hit latency over size, fitted through one point per range read (the mean of its
// re-reads kept): the command overhead jitters from one command to the next, and on a slow
// interface with small segments, 10 MB/s and 29 KiB, the sizes span 1.6 ms of transfer against
// 0.2 ms of jitter. Its 95 % interval from the slope's standard error over the ranges (Student t);
// a rate whose interval spans more than burst_min_range (or reaches zero) is not reported: a note
// says so.
void CacheRun::burst_rate(const std::vector<double>& x, const std::vector<double>& y) {
  const LineFit f = fit_line(x, y);
  if (f.slope <= 0) return;
  hit_rate_mb_s = 1.0 / (f.slope * 1e3);  // bytes per ms → MB/s
  res.hit_overhead_ms = {std::max(0.0, f.intercept), 0};
  const double hw = x.size() > 2 ? student_t_quantile(0.975, static_cast<double>(x.size()) - 2) * f.slope_se : f.slope;
  if (f.slope - hw <= 0 || (f.slope + hw) / (f.slope - hw) > kTuning.burst_min_range) {
    res.withheld.push_back({key::cache::burst_mb_s, WithheldReason::burst_unresolved,
                            {{"largest_kib", res.largest_hit_bytes / 1024},
                             {"rate_mb_s", hit_rate_mb_s},
                             {"low_mb_s", 1.0 / ((f.slope + hw) * 1e3)},
                             {"high_mb_s", f.slope - hw > 0 ? 1.0 / ((f.slope - hw) * 1e3) : 0.0}}});
    return;
  }
  // The interval of 1/slope is not symmetric: its wider side as the half-width, plus the stated
  // resolution.
  res.burst_mb_s = {hit_rate_mb_s, with_systematic(1.0 / ((f.slope - hw) * 1e3) - hit_rate_mb_s,
                                                   kTuning.burst_floor * hit_rate_mb_s)};
}

// 2. Cache size: r regions of the largest hit size, read once then re-read; the most data still
//    served at hit speed. Many regions of one segment's size re-read whole tell the segment from
//    the total: the largest single hit is a segment, the most data over several regions the cache.
void CacheRun::size() {
  const bool single_at_limit = res.largest_hit_bytes >= max_blocks * lb;
  if (hit_rate_mb_s > 0 && res.largest_hit_bytes) {
    const std::uint64_t S = res.largest_hit_bytes / lb;
    if (!single_at_limit) res.segment_bytes_estimate = res.largest_hit_bytes;
    bool all_hit = false, held_back = false;
    // A round's drive time, roughly: each region read from the media (a miss, its transfer taken at
    // half the interface rate: the media is slower) and re-read from the buffer (the hit line). A
    // round that would take the budget past the size probe's share is not started: a round the
    // budget cuts short ends the whole test, and the read-ahead probe after this one would never
    // run (a large cache: the 8 TB presets).
    auto round_s = [&](unsigned r) {
      const double xfer_ms = static_cast<double>(S * lb) / (hit_rate_mb_s * 1e3);
      return r * ((miss_ms + 2 * xfer_ms) + (res.hit_overhead_ms.value + xfer_ms)) * 1e-3;
    };
    for (unsigned r = 1; r <= kTuning.max_regions && go_on(); r *= 2) {
      if (budget.used_s() + round_s(r) > kTuning.size_budget_share * budget_s) {
        held_back = true;
        break;
      }
      std::vector<PlanEntry> plan;
      for (unsigned i = 0; i < r; ++i) plan.push_back({fresh(S), static_cast<std::uint32_t>(S), false});
      for (unsigned i = 0; i < r; ++i) plan.push_back(plan[i]);
      auto ms = run(plan);
      unsigned hits = 0;
      for (unsigned i = r; i < 2 * r; ++i)
        hits += ms[i] >= 0 && hit(ms[i], S * lb, res.hit_overhead_ms.value, hit_rate_mb_s);
      res.size_bytes_estimate = std::max<std::uint64_t>(res.size_bytes_estimate, hits * S * lb);
      all_hit = hits == r;
      if (hits < r) break;
    }
    res.size_at_least = single_at_limit || all_hit;
    if (res.size_at_least)
      res.notes.push_back(fmt::format("cache size: at least {} KiB (the probe {} before a re-read missed)",
                                      res.size_bytes_estimate / 1024,
                                      held_back && !single_at_limit ? "stopped at its share of the budget"
                                                                    : "reached its limit"));
  }
  report(0.7);
}

// 3. Read-ahead: after one read and a pause of a few revolutions, how far on is already there?
//    Distances grow fourfold until one misses; the edge between the last hit and that miss is
//    then halved until it is within 1/32 of the distance (a twin is calibrated against this
//    figure, and a fourfold step would leave every read-ahead from j to 4j alike).
//    Where the very next block misses, the trigger is probed first: the same read preceded by k
//    one-block reads in a row (k = 1, 2 …), the smallest k whose probes hit by majority being
//    how many sequential follow-ups the drive waits for before it reads ahead; the distances are
//    then probed after that many.
void CacheRun::read_ahead() {
  const auto& k = kTuning;
  if (hit_rate_mb_s <= 0) return;  // nothing to judge a hit by: the burst note says why
  if (!go_on()) {
    if (!err) res.withheld.push_back({key::cache::read_ahead, WithheldReason::read_ahead_no_time});
    return;
  }
  const double overhead_ms = paused_hit_overhead_ms();
  // 1: the block j past the last lead read was a hit, 0: a miss, -1: a read failed. The lead is
  // one read, then `follow` one-block reads each beginning where the one before ended.
  auto probe = [&](std::uint64_t j, unsigned follow) {
    const std::uint64_t x = fresh(j + follow + 1);
    std::vector<PlanEntry> lead;
    for (std::uint64_t i = 0; i <= follow; ++i) lead.push_back({x + i, 1, false});
    const auto a = run(lead);
    io.idle(k.read_ahead_pause +
            std::chrono::microseconds(rng.below(static_cast<std::uint64_t>(k.read_ahead_pause_spread.count()))));
    const auto b2 = run({{x + follow + j, 1, false}});
    if (b2[0] < 0 || std::any_of(a.begin(), a.end(), [](double v) { return v < 0; })) return -1;
    return hit(b2[0], lb, overhead_ms, hit_rate_mb_s) ? 1 : 0;
  };
  const std::optional<unsigned> trigger = read_ahead_trigger(probe);
  if (!trigger) return;  // a failed read, the budget spent, or no read-ahead (res.read_ahead says)
  res.read_ahead = true;
  res.read_ahead_after_sequential_reads = *trigger;
  // One probe can be luck: a miss whose rotational wait falls within the hit line's margin passes
  // for a hit (the ST41601N's repo model at seed 2: a block 1024 on, past the 384 its buffer reads
  // ahead, came back a hit, every later probe missed, and the extent was told 2.7 times too long).
  // A hit is asked again until the majority of extent_votes probes agree; a miss on the first
  // probe stands, as before (a miss is no such luck, and asking every distance three times left
  // the 8 TB drives' bisection without budget).
  auto vote = [&](std::uint64_t j) {
    int hits = 0, misses = 0;
    do {
      const int p = probe(j, *trigger);
      if (p < 0) return -1;
      (p ? hits : misses) += 1;
    } while (hits > 0 && hits * 2 < k.extent_votes && misses * 2 < k.extent_votes);
    return hits * 2 > k.extent_votes ? 1 : 0;
  };
  std::uint64_t hit = 1, miss = 0;
  res.read_ahead_bytes_estimate = 2 * lb;
  res.read_ahead_at_least = true;  // until a miss bounds it and the edge is found
  for (std::uint64_t j = k.read_ahead_step; j <= k.read_ahead_limit_bytes / lb && go_on(); j *= k.read_ahead_step) {
    const int p = vote(j);
    if (p < 0) return;
    if (p == 0) {
      miss = j;
      break;
    }
    hit = j;
    res.read_ahead_bytes_estimate = (j + 1) * lb;
  }
  pace_follow = *trigger;
  pace_extent = hit;
  auto floor_note = [&](const char* why) {
    res.notes.push_back(fmt::format("read-ahead: at least {} KiB ({})", res.read_ahead_bytes_estimate / 1024, why));
  };
  if (miss == 0) {
    if (!err) floor_note(go_on() ? "no probe missed up to the probe's limit" : "the budget ended before a probe missed");
    return;
  }
  while (miss - hit > std::max<std::uint64_t>(1, hit / 32) && go_on()) {
    const std::uint64_t mid = hit + (miss - hit) / 2;
    const int p = vote(mid);
    if (p < 0) return;
    (p ? hit : miss) = mid;
  }
  res.read_ahead_bytes_estimate = (hit + 1) * lb;
  pace_extent = hit;
  res.read_ahead_at_least = miss - hit > std::max<std::uint64_t>(1, hit / 32);
  if (res.read_ahead_at_least && !err)
    floor_note(fmt::format("the budget ended with the edge between {} and {} KiB", (hit + 1) * lb / 1024,
                           miss * lb / 1024).c_str());
}

// 5. The read-ahead's pace: how fast the media fills the buffer, seen where nothing else shows it.
//    A drive whose interface is slower than its media streams at the interface's rate, so the
//    transfer test sees the bus, not the platters; but its read-ahead runs at the media's rate.
//    Right after a read (no pause), a block j on within the read-ahead's reach is served once the
//    streaming head has read it: its time over the hit line grows by one block's media time per
//    block of distance, and the slope of that wait against j is the media's pace (DiskSim's
//    prefetch serves such a read as a hit that waits; docs/methods.md "Read-ahead pace"). The
//    leads are placed at random over the span, so the pace is the LBA-weighted mean over the zones
//    and includes the head and cylinder switches the stream crosses (a sustained media rate).
//    A wait that does not grow with the distance (a drive that answers such a read as a miss)
//    leaves the slope's interval wide, and no pace is told.
//    It runs last, on what the budget leaves after the burst's firming rounds, with its own places:
//    the figures before it are what they were without it.
void CacheRun::read_ahead_pace() {
  const auto& k = kTuning;
  if (pace_extent == 0) return;  // no read-ahead told: read_ahead says why
  const unsigned follow = pace_follow;
  const std::uint64_t extent = pace_extent;
  if (!go_on()) {
    if (!err)
      res.withheld.push_back({key::cache::read_ahead_mb_s, WithheldReason::pace_no_time,
                              {{"waits", 0}, {"needed", static_cast<double>(k.pace_min_points)}}});
    return;
  }
  const std::uint64_t reach = std::min(extent, k.pace_max_blocks);
  if (reach < k.pace_min_extent) {
    res.withheld.push_back({key::cache::read_ahead_mb_s, WithheldReason::pace_extent_short,
                            {{"extent_blocks", static_cast<double>(extent)}}});
    return;
  }
  const double line_ms = res.hit_overhead_ms.value + static_cast<double>(lb) / (hit_rate_mb_s * 1e3);
  std::vector<std::uint64_t> dist;
  for (int i = 0; i < k.pace_probes; ++i) {
    const double share = k.pace_first_share + (k.pace_last_share - k.pace_first_share) * i / (k.pace_probes - 1);
    dist.push_back(std::max<std::uint64_t>(1, static_cast<std::uint64_t>(share * static_cast<double>(reach))));
  }
  // Interleaved, so that anything drifting with time does not line up with the distance.
  for (std::size_t i = dist.size(); i > 1; --i) std::swap(dist[i - 1], dist[pace_rng.below(i)]);
  std::vector<double> x, xu, y;
  for (std::uint64_t j : dist) {
    if (!go_on()) break;
    const std::uint64_t at = pace_rng.below(span - (j + follow + 1) - 1);
    std::vector<PlanEntry> lead;
    for (std::uint64_t i = 0; i <= follow; ++i) lead.push_back({at + i, 1, false});
    const auto a = run(lead);
    const auto b = run({{at + follow + j, 1, false}});
    if (b[0] < 0 || std::any_of(a.begin(), a.end(), [](double v) { return v < 0; })) return;
    // A wait at the hit line is a block the head had already read: it tells no pace.
    if (b[0] - line_ms > kHit.slack_ms) {
      const double u = static_cast<double>(at) / static_cast<double>(span);
      x.push_back(static_cast<double>(j)), xu.push_back(static_cast<double>(j) * u), y.push_back(b[0] - line_ms);
    }
  }
  if (x.size() < k.pace_min_points) {
    res.withheld.push_back({key::cache::read_ahead_mb_s,
                            budget.exhausted() ? WithheldReason::pace_no_time : WithheldReason::pace_too_few_waits,
                            {{"waits", static_cast<double>(x.size())}, {"needed", static_cast<double>(k.pace_min_points)}}});
    return;
  }
  // The pace differs across the zones: a block's media time is taken as linear in the lead's
  // place (u, 0 at the span's start, 1 at its end), y = c + j·(p0 + p1·u), which keeps the zones'
  // spread out of the residuals; the pace in the middle is then the LBA-weighted mean. (The ends'
  // paces, p0 and p0 + p1, are not told: a block's time is not linear in the LBA, and across 20
  // seeds their intervals missed the outermost and innermost zones' rates far more than 5 % of
  // the time.)
  const PlaneFit f = fit_plane(x, xu, y);
  const double pace = f.at(0.5);  // ms per block
  const double hw = f.dof > 0 ? std::max(t95(f.dof) * f.se_at(0.5), k.pace_floor * pace) : 0;
  if (!(f.dof > 0) || !(pace > 0) || hw > k.pace_max_rel_hw * pace) {
    res.withheld.push_back({key::cache::read_ahead_mb_s, WithheldReason::pace_vague,
                            {{"slope_us_per_block", pace * 1e3}, {"slope_hw_us", hw * 1e3}}});
    return;
  }
  const double rate = static_cast<double>(lb) / (pace * 1e3);
  // lb / (pace ± hw): the wider side.
  res.read_ahead_mb_s = {rate, static_cast<double>(lb) / ((pace - hw) * 1e3) - rate};
}

// The hit overhead the read-ahead probes are judged by: the higher of the back-to-back hits' (the
// burst fit's) and that of a hit timed after the same pause as the probes. The host may answer the
// first command after an idle spell later than one in a busy run (a CPU waking from a sleep state,
// a virtual machine's exit to its host: through a QEMU guest 0.3 to 1 ms more than back-to-back
// hits, for a served drive's own 0.25 ms hit), and a probe must not take that for the media.
// The control: a block y is read, then a far block x (as a probe's lead read), then the pause,
// then y again. The read-ahead runs after x, in x's segment, so y is still in the buffer where
// the drive keeps more than one segment, and its re-read is a hit after the pause; where y was
// pushed out (one segment) the re-read seeks back to y, a miss far above the midpoint between the
// hit line and a miss (half of what a miss adds), and tells nothing. The median of a few controls,
// less one block's transfer, is taken where it is below that midpoint.
double CacheRun::paused_hit_overhead_ms() {
  const auto& k = kTuning;
  std::vector<double> overheads;
  for (int i = 0; i < k.paused_hits && go_on(); ++i) {
    const std::uint64_t y = control_rng.below(span - 2), x = control_rng.below(span - 2);
    const auto a = run({{y, 1, false}, {x, 1, false}});
    io.idle(k.read_ahead_pause);
    const auto b = run({{y, 1, false}});
    if (a[0] < 0 || a[1] < 0 || b[0] < 0) break;
    overheads.push_back(b[0] - static_cast<double>(lb) / (hit_rate_mb_s * 1e3));
  }
  const double back_to_back = res.hit_overhead_ms.value;
  if (overheads.empty() || !(miss_extra_ms > 0)) return back_to_back;
  const double paused = median(overheads);
  return paused <= back_to_back + 0.5 * miss_extra_ms ? std::max(back_to_back, paused) : back_to_back;
}

// How many sequential follow-ups start the read-ahead (read_ahead's probe of the next block after
// them); unset with res.read_ahead false where none up to max_trigger_reads does, unset alone where
// a read failed or the budget ran out first. One hit after a single read settles it (the common
// drive, probed as it always was); after a miss every count gets trigger_votes probes, since a
// false hit is rare (the block must be in the buffer) but a miss can be the host's delay.
template <class Probe>
std::optional<unsigned> CacheRun::read_ahead_trigger(Probe& probe) {
  const auto& k = kTuning;
  const int first = probe(1, 0);
  if (first < 0) return std::nullopt;
  if (first == 1) return 0u;
  for (unsigned follow = 0; follow <= k.max_trigger_reads; ++follow) {
    int hits = 0, misses = follow == 0 ? 1 : 0;  // the first probe's miss counts for 0 follow-ups
    while (hits * 2 < k.trigger_votes && misses * 2 < k.trigger_votes) {
      if (!go_on()) {
        if (!err) res.withheld.push_back({key::cache::read_ahead_after_sequential_reads, WithheldReason::trigger_no_time});
        return std::nullopt;
      }
      const int p = probe(1, follow);
      if (p < 0) return std::nullopt;
      (p ? hits : misses) += 1;
    }
    if (hits * 2 > k.trigger_votes) return follow;
  }
  res.read_ahead = false;  // the next block missed after every trigger tried
  return std::nullopt;
}

}  // namespace

Expected<CacheResult> run_cache(IoEngine& io, const CacheOptions& opt, const ProgressFn* progress) {
  const Span sp = span_of(io.info(), opt.span_blocks);
  if (sp.blocks < kTuning.min_span) return make_error("cache: span too small");
  CacheRun c(io, opt, progress, sp.block_bytes, sp.blocks);
  c.burst();
  c.size();
  c.read_ahead();
  c.firm_up();
  c.read_ahead_pace();
  c.res.drive_time_s = c.budget.used_s();
  // The device failed before a single hit was timed: nothing here is a figure (a read-ahead of
  // "false", a hit overhead of 0 would be the failure's, not the cache's).
  if (c.err && device_errno(c.err->code) && !(c.res.hit_overhead_ms.value > 0)) return *c.err;
  if (budget_spent(c.err)) c.res.withheld.push_back({"", WithheldReason::budget_spent});
  else if (c.err) c.res.notes.push_back("stopped early: " + c.err->message);
  c.report(1.0);
  return std::move(c.res);
}

}  // namespace ds::measure
