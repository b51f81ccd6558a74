#include "tests/access.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "tests/track_seek.hpp"
#include "tests/transfer.hpp"

namespace ds::measure {

namespace {

struct Ctx {
  IoEngine& io;
  Budget& budget;
  std::uint64_t span;
  std::optional<Error> err;
};

// Run a QD1 plan of single-block reads; returns latencies in ns (negative for not completed).
std::vector<double> qd1(Ctx& c, const std::vector<std::uint64_t>& lbas, bool write = false) {
  std::vector<PlanEntry> plan;
  plan.reserve(lbas.size());
  for (auto l : lbas) plan.push_back({l, 1, write});
  RunOptions ro;
  ro.queue_depth = 1;
  RunResult r = run_plan(c.io, plan, ro, c.budget);
  if (r.error && !c.err) c.err = r.error;
  std::vector<double> out(lbas.size(), -1);
  for (std::size_t i = 0; i < lbas.size(); ++i)
    if (r.done[i]) out[i] = static_cast<double>(r.samples[i].complete_ns - r.samples[i].submit_ns);
  return out;
}

LatencyStats stats(const std::vector<double>& ms) {
  LatencyStats s;
  s.n = ms.size();
  if (ms.empty()) return s;
  s.mean_ms = mean(ms);
  s.p50_ms = quantile(ms, 0.5);
  s.p99_ms = quantile(ms, 0.99);
  s.stderr_ms = stddev(ms) / std::sqrt(static_cast<double>(ms.size()));
  return s;
}

}  // namespace

bool plausible_rotation_ms(double rotation_ms, double hit_ms) {
  // 1500 to 30000 rpm brackets every disk drive made; a backward step waits most of a
  // revolution, which on any disk is many times a cache hit (overhead plus one block).
  return rotation_ms >= 2.0 && rotation_ms <= 40.0 && rotation_ms >= 4 * hit_ms;
}

std::pair<double, double> fit_rotation(const std::vector<std::pair<unsigned, double>>& kl) {
  std::map<unsigned, std::vector<double>> by_k;
  for (auto& [k, l] : kl)
    if (l > 0) by_k[k].push_back(l);
  std::vector<double> xs, ys;
  for (auto& [k, v] : by_k) {
    xs.push_back(k);
    ys.push_back(median(v));
  }
  if (xs.size() < 2) return {0, 0};
  LineFit f = fit_line(xs, ys);
  if (f.slope >= 0 || f.intercept <= 0) return {0, 0};
  return {f.intercept, -f.slope};
}

double slow_threshold_ms(double full_stroke_ms, double rotation_ms, double overhead_ms) {
  return 1.3 * full_stroke_ms + rotation_ms + 2 * overhead_ms + 2.0;
}

Expected<AccessResult> run_access(IoEngine& io, const AccessOptions& opt, const ProgressFn* progress) {
  AccessResult res;
  const std::uint32_t lb = io.info().logical_block_bytes ? io.info().logical_block_bytes : 512;
  const std::uint64_t cap = io.info().capacity_bytes / lb;
  const std::uint64_t span = opt.span_blocks ? std::min(opt.span_blocks, cap) : cap;
  if (span < 65536) return make_error("access: span too small (" + std::to_string(span) + " blocks)");
  res.block_bytes = lb;
  Budget budget(opt.budget_s);
  Ctx c{io, budget, span, {}};
  Rng rng(opt.seed);
  auto report = [&](double f) {
    if (progress && *progress) (*progress)("access", f, budget.used_s());
  };
  auto fail = [&]() -> Expected<AccessResult> {
    Error e = *c.err;
    e.message = "access: " + e.message;
    return e;
  };

  // 1. Command overhead: re-reads of one block are served from the drive's cache.
  {
    std::uint64_t x = span / 3 + rng.below(span / 3);
    auto l = qd1(c, std::vector<std::uint64_t>(9, x));
    if (c.err) return fail();
    std::vector<double> hits(l.begin() + 1, l.end());
    double o = median(hits);
    res.overhead_ms = {o * 1e-6, 1.4826 * mad(hits) * 1e-6};
  }
  // 2. Rotation: chains of backward steps x, x−k, x−2k, … Each step finds the wanted block just
  //    passed, so it waits one revolution less k blocks; the fit over k gives both.
  //    At most a quarter of the budget (each step costs about a revolution), the step sizes taken
  //    in turn so that a small budget still gets several of them for the fit.
  {
    // Per step size, the chain with the lowest median: a chain that crosses a slow (defect)
    // region only ever reads slower, so it must not pull the fit (one did: 2315 rpm for 7200).
    std::map<unsigned, double> best;
    Budget rot_budget = budget.part(0.25);
    Ctx rc{io, rot_budget, span, {}};
    for (int rep = 0; rep < 3 && !rot_budget.exhausted(); ++rep)
      for (unsigned k : {1u, 2u, 3u, 5u, 8u}) {
        std::uint64_t x = 1000 + rng.below(span - 2000);
        std::vector<std::uint64_t> chain;
        for (unsigned i = 0; i < 10; ++i) chain.push_back(x - i * k);
        auto l = qd1(rc, chain);
        if (rc.err && !budget_spent(rc.err)) {
          c.err = rc.err;
          return fail();
        }
        std::vector<double> steps;
        for (std::size_t i = 1; i < l.size(); ++i)
          if (l[i] >= 0) steps.push_back(l[i]);
        if (steps.size() >= 3) {
          const double m = median(steps);
          if (!best.count(k) || m < best[k]) best[k] = m;
        }
        if (rc.err) break;
      }
    budget.charge(rot_budget.used_ns());
    std::vector<std::pair<unsigned, double>> kl(best.begin(), best.end());
    auto [rot, sec] = fit_rotation(kl);
    if (rot > 0 && !plausible_rotation_ms(rot * 1e-6, res.overhead_ms.value)) {
      // A line through noise on a device without platters (RAM, flash, a file in the page cache)
      // can have a falling slope; its intercept is then a latency, not a revolution.
      res.notes.push_back(fmt::format(
          "rotation: backward-step reads take {:.3f} ms against {:.3f} ms for a cache hit: not one "
          "revolution (2-40 ms on any disk, at least 4 cache hits); not a rotating target, so no "
          "rpm, no seek figures and no track layout", rot * 1e-6, res.overhead_ms.value));
      rot = 0;
    } else if (rot <= 0) {
      res.notes.push_back("rotation: the backward-step latencies do not fit one revolution "
                          "(solid state or a non-rotating target?)");
    }
    if (rot > 0) {
      // Uncertainty: spread of the per-chain estimates latency + k·sector.
      std::vector<double> est;
      for (auto& [k, l] : kl) est.push_back(l + k * sec);
      double u = 1.4826 * mad(est) / std::sqrt(static_cast<double>(est.size()));
      res.rotation_ms = {rot * 1e-6, u * 1e-6};
      res.rpm = {60e9 / rot, 60e9 / rot * (u / rot)};
      res.sector_ms = {sec * 1e-6, 0};
    }
  }
  report(0.1);
  const double rev_ms = res.rotation_ms.value;
  const double base_ms = rev_ms / 2 + res.overhead_ms.value + res.sector_ms.value;

  // 4. Random reads over the span. A read never lands just after the previous one, where the
  //    drive's read-ahead could serve it.
  const unsigned N = opt.samples ? opt.samples : 1500;
  std::vector<std::uint64_t> lbas;
  std::vector<double> lat_ms;
  std::uint64_t prev = rng.below(span);
  // Until 55 % of the budget is used, and in any case (budget left) the first kMinReads: the
  // mean access time is the figure everyone wants, even from a short run.
  constexpr unsigned kMinReads = 200;
  for (unsigned done = 0;
       done < N && !budget.exhausted() && (done < kMinReads || budget.used_s() < 0.55 * budget.limit_s());) {
    std::vector<std::uint64_t> chunk;
    for (unsigned i = 0; i < 100 && done + i < N; ++i) {
      std::uint64_t x = rng.below(span);
      for (int t = 0; t < 8 && x >= prev && x - prev < 8192; ++t) x = rng.below(span);
      chunk.push_back(x);
      prev = x;
    }
    auto l = qd1(c, chunk);
    for (std::size_t i = 0; i < chunk.size(); ++i)
      if (l[i] >= 0) {
        lbas.push_back(chunk[i]);
        lat_ms.push_back(l[i] * 1e-6);
      }
    done += static_cast<unsigned>(chunk.size());
    if (c.err) break;
    report(0.1 + 0.5 * done / N);
  }
  if (lat_ms.size() < 10) return c.err ? fail() : Expected<AccessResult>(make_error("access: too few reads completed"));
  res.read = stats(lat_ms);
  {
    // Every read when they fit the bound, else an even stride through them (the order kept).
    const std::size_t n = lat_ms.size(), keep = std::min(n, kMaxReadSamples);
    res.reads.reserve(keep);
    for (std::size_t k = 0; k < keep; ++k) {
      const std::size_t i = k * n / keep;
      res.reads.push_back({lbas[i], lat_ms[i]});
    }
  }

  // 5. Full stroke: alternate between the first and the last part of the span.
  {
    const std::uint64_t w = std::max<std::uint64_t>(span / 2000, 4096);
    std::vector<std::uint64_t> alt;
    for (int i = 0; i < 60; ++i)
      alt.push_back(i % 2 ? span - 1 - rng.below(w) : rng.below(w));
    auto l = qd1(c, alt);
    std::vector<double> v;
    for (std::size_t i = 1; i < l.size(); ++i)
      if (l[i] > 0) v.push_back(l[i] * 1e-6);
    // A seek is what is left of an access once rotation and overhead are taken off: without a
    // rotation there is no model to take off, and the figure would be a bare access time.
    if (!v.empty() && rev_ms > 0) {
      res.full_stroke_ms = {mean(v) - base_ms, stddev(v) / std::sqrt(static_cast<double>(v.size()))};
    }
  }
  // 6. Track to track: inside one zone, with that zone's own layout (track_seek.hpp).
  if (rev_ms > 0 && !c.err) {
    TrackSeekInput ti;
    ti.first_lba = opt.zone_last_lba > opt.zone_first_lba ? opt.zone_first_lba : span / 4;
    ti.last_lba = opt.zone_last_lba > opt.zone_first_lba ? std::min(opt.zone_last_lba, span - 1) : span / 2;
    ti.rotation_ns = rev_ms * 1e6;
    ti.overhead_ms = res.overhead_ms.value;
    ti.overhead_uncertainty_ms = res.overhead_ms.uncertainty;
    ti.surfaces = opt.surfaces;
    ti.seed = opt.seed;
    Budget tb = budget.part(0.2);
    TrackSeekResult tr = measure_track_to_track(io, ti, tb);
    budget.charge(tb.used_ns());
    res.track_to_track_ms = tr.seek_ms;
    for (auto& n : tr.notes) res.notes.push_back(n);
  }
  report(0.7);

  // 7. Slow regions: a read slower than any normal access can be is a seed; each seed's region is
  //    delimited by descending scans (a read below the previous one cannot be served by
  //    read-ahead), refined twice, with the cache flushed by far reads in between.
  const double thr = slow_threshold_ms(res.full_stroke_ms.value > 0 ? res.full_stroke_ms.value : 30,
                                       rev_ms > 0 ? rev_ms : 17, res.overhead_ms.value);
  res.slow_threshold_ms = thr;
  auto is_slow = [&](double ms) { return ms > thr; };
  auto flush = [&]() {
    std::vector<std::uint64_t> far;
    for (int i = 0; i < 24; ++i) far.push_back(rng.below(span));
    qd1(c, far);
  };
  // Descending scan from `hi` down to `lo` in `steps` steps; returns the index of the first probe
  // whose slowness differs from `start_slow`, as the pair (last probe like the start, first unlike).
  auto scan_down = [&](std::uint64_t hi, std::uint64_t lo, bool start_slow, int steps,
                       std::vector<double>* slow_ms) -> std::pair<std::uint64_t, std::uint64_t> {
    std::vector<std::uint64_t> probe;
    const double step = static_cast<double>(hi - lo) / steps;
    for (int i = 1; i <= steps; ++i) probe.push_back(hi - static_cast<std::uint64_t>(std::llround(step * i)));
    auto l = qd1(c, probe);
    std::uint64_t last = hi;
    for (std::size_t i = 0; i < probe.size(); ++i) {
      if (l[i] < 0) break;
      bool s = is_slow(l[i] * 1e-6);
      if (s && slow_ms) slow_ms->push_back(l[i] * 1e-6);
      if (s != start_slow) return {last, probe[i]};
      last = probe[i];
    }
    return {last, lo};
  };
  const std::uint64_t fine = std::max<std::uint64_t>(1, span / 4000);
  std::vector<std::uint64_t> seeds;
  std::vector<double> seed_ms;
  for (std::size_t i = 0; i < lat_ms.size(); ++i)
    if (is_slow(lat_ms[i])) {
      seeds.push_back(lbas[i]);
      seed_ms.push_back(lat_ms[i]);
    }
  for (std::size_t si = 0; si < seeds.size() && res.slow_regions.size() < 16 && !c.err; ++si) {
    const std::uint64_t s = seeds[si];
    bool covered = false;
    for (auto& r : res.slow_regions) covered |= s + fine >= r.first_lba && s <= r.last_lba + fine;
    if (covered || budget.exhausted()) continue;
    std::vector<double> slow_ms{seed_ms[si]};
    // Left edge: probes below s at doubling distances until a normal read.
    std::uint64_t d = std::max<std::uint64_t>(span / 2000, 64), hi = s, lo = 0;
    while (true) {
      std::uint64_t q = s > d ? s - d : 0;
      auto l = qd1(c, {q});
      if (l[0] < 0) break;
      if (!is_slow(l[0] * 1e-6)) { lo = q; break; }
      slow_ms.push_back(l[0] * 1e-6);
      hi = q;
      if (q == 0) { lo = 0; break; }
      d *= 2;
    }
    for (int level = 0; level < 3 && hi - lo > fine && hi > lo; ++level) {
      flush();
      auto [a, b] = scan_down(hi, lo, true, 32, &slow_ms);
      hi = a;
      lo = b;
    }
    const std::uint64_t first = hi;
    // Right edge: far probes above s at doubling distances until a normal read, then descending.
    d = std::max<std::uint64_t>(span / 500, 4096);
    std::uint64_t top = span - 1, bottom = s;
    while (true) {
      std::uint64_t q = std::min(span - 1, s + d);
      auto l = qd1(c, {q});
      if (l[0] < 0) break;
      if (!is_slow(l[0] * 1e-6)) { top = q; break; }
      slow_ms.push_back(l[0] * 1e-6);
      bottom = q;
      if (q == span - 1) { top = span - 1; break; }
      d *= 2;
    }
    for (int level = 0; level < 3 && top - bottom > fine && top > bottom; ++level) {
      flush();
      auto [a, b] = scan_down(top, bottom, false, 32, &slow_ms);
      top = a;     // last normal probe
      bottom = b;  // first slow probe below it
    }
    SlowRegion r;
    r.first_lba = first;
    r.last_lba = bottom;
    r.mean_ms = mean(slow_ms);
    r.location_uncertainty_blocks = static_cast<double>(std::max(hi - lo, top - bottom));
    res.slow_regions.push_back(r);
  }

  // 8. Average seek and the seek curve from the random reads outside the slow regions.
  {
    std::vector<double> normal;
    std::map<int, std::vector<double>> bins;
    for (std::size_t i = 0; i < lat_ms.size(); ++i) {
      if (is_slow(lat_ms[i])) continue;
      normal.push_back(lat_ms[i]);
      if (i == 0) continue;
      std::uint64_t dist = lbas[i] > lbas[i - 1] ? lbas[i] - lbas[i - 1] : lbas[i - 1] - lbas[i];
      int b = dist ? 63 - __builtin_clzll(dist) : 0;
      bins[b].push_back(lat_ms[i]);
    }
    if (!normal.empty() && rev_ms > 0)
      res.avg_seek_ms = {mean(normal) - base_ms,
                         stddev(normal) / std::sqrt(static_cast<double>(normal.size())) +
                             res.rotation_ms.uncertainty / 2};
    for (auto& [b, v] : bins) {
      if (rev_ms <= 0) break;  // no rotation: no seek model (see the full stroke above)
      SeekBin sb;
      sb.max_distance = b >= 63 ? UINT64_MAX : (2ull << b) - 1;
      sb.n = v.size();
      sb.seek_ms = mean(v) - base_ms;
      res.seek_curve.push_back(sb);
    }
  }
  // 9. The access-time map: 64 regions of the span.
  {
    const int R = 64;
    std::vector<std::vector<double>> reg(R);
    for (std::size_t i = 0; i < lat_ms.size(); ++i)
      reg[std::min<std::uint64_t>(R - 1, lbas[i] * R / span)].push_back(lat_ms[i]);
    for (int r = 0; r < R; ++r) {
      RegionStat st;
      st.first_lba = span * r / R;
      st.last_lba = span * (r + 1) / R - 1;
      st.n = reg[r].size();
      st.mean_ms = mean(reg[r]);
      for (auto& s : res.slow_regions) st.slow |= s.first_lba <= st.last_lba && s.last_lba >= st.first_lba;
      res.map.push_back(st);
    }
  }
  // 10. Random writes, only when allowed and the target was opened for writing.
  if (opt.allow_write && io.info().writable && !c.err) {
    std::vector<std::uint64_t> w;
    for (int i = 0; i < 200; ++i) w.push_back(rng.below(span));
    auto l = qd1(c, w, true);
    std::vector<double> ms;
    for (double x : l)
      if (x >= 0) ms.push_back(x * 1e-6);
    res.write = stats(ms);
  } else if (opt.allow_write) {
    res.notes.push_back("write access skipped: the target is not open for writing");
  }
  res.drive_time_s = budget.used_s();
  if (c.err) res.notes.push_back("stopped early: " + c.err->message);
  report(1.0);
  return res;
}

}  // namespace ds::measure
