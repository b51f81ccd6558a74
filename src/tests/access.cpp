#include "tests/access.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "tests/slow_regions.hpp"
#include "tests/track_seek.hpp"
#include "tests/transfer.hpp"
#include "tests/wait_width.hpp"

namespace ds::measure {

namespace {

struct Ctx {
  IoEngine& io;
  Budget& budget;
  std::uint64_t span;
  std::optional<Error> err;
  std::uint64_t last_lba = 0;  // the last LBA read: the start of the next read's seek
};

constexpr double kSlowMarginMs = 1.5;  // beyond the worst rotational wait before a read is slow
constexpr double kNoRotationMs = 17;   // assumed revolution when none was measured
constexpr int kStrokeReads = 100;
constexpr double kSlowShare = 0.3;  // of the access budget, for the slow-region search
constexpr double kRotationFitFloor = 0.01;     // stated resolution of the backward-step fit
constexpr double kStreamRotationFloor = 1e-4;  // stated resolution of a stream's revolution
constexpr double kSeekModelFloor = 0.02;  // systematic share of a seek figure (access model)
constexpr double kAvgSeekFloor = 0.03;    // LBA-weighted against cylinder-uniform average seek
constexpr double kRandomShare = 0.45;  // of the access budget, for the random reads
constexpr int kRotationReps = 3;       // chains per step size, every step read from the media
constexpr int kRotationMaxReps = 24;   // … and at most, on a drive whose buffer serves most steps
constexpr double kBufferedMarginMs = 0.5;  // over a cache hit: a step this quick came from the buffer
constexpr std::uint64_t kWaitReads = 400;         // forward_waits: reads a fixed distance apart
constexpr std::uint64_t kWaitDistanceShare = 50;  // the distance: a 1/50 of the span
constexpr std::uint64_t kWaitStep = 262144;       // blocks each place creeps per pair (half of it: the offset)

// Run a QD1 plan of single-block reads; returns latencies in ns (negative for not completed).
// With `since_previous`, each read after the first is timed from the previous one's completion
// instead of its own submission: the same in virtual time, and on a real host it leaves out the
// reader's own time between the two (through a TCG guest 25-50 us, which made a backward step's
// revolution 0.4-0.9 % short: docs/serve.md).
std::vector<double> qd1(Ctx& c, const std::vector<std::uint64_t>& lbas, bool write = false, bool since_previous = false) {
  std::vector<PlanEntry> plan;
  plan.reserve(lbas.size());
  for (auto l : lbas) plan.push_back({l, 1, write});
  RunOptions ro;
  ro.queue_depth = 1;
  RunResult r = run_plan(c.io, plan, ro, c.budget);
  if (r.error && !c.err) c.err = r.error;
  std::vector<double> out(lbas.size(), -1);
  for (std::size_t i = 0; i < lbas.size(); ++i)
    if (r.done[i]) {
      const bool chained = since_previous && i > 0 && r.done[i - 1];
      out[i] = static_cast<double>(r.samples[i].complete_ns -
                                   (chained ? r.samples[i - 1].complete_ns : r.samples[i].submit_ns));
      c.last_lba = lbas[i];
    }
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

// Chains of backward steps x, x−k, x−2k, … Each step finds the wanted block just passed, so it
// waits one revolution less k blocks; the fit over k gives both (fit_rotation).
// A drive that reads a track from wherever the head lands (zero-latency read) or keeps the track
// serves most steps from its buffer: a step that took no longer than a cache hit and a margin was
// buffered, and a media read after it starts at an unknown phase. Only steps read from the media
// right after another media read count; such a drive leaves about one a chain, so more chains are
// read (they are cheap: the buffered steps cost a cache hit each) until every step size has three.
struct BackwardSteps {
  std::vector<std::pair<unsigned, double>> kl;  // step size, latency in ns
  std::size_t buffered = 0, steps = 0;
};

BackwardSteps backward_steps(Ctx& rc, Rng& rng, double hit_ns) {
  constexpr unsigned kSteps[] = {1, 2, 3, 5, 8};
  // Per step size, the chain with the lowest median: a chain that crosses a slow (defect) region
  // only ever reads slower, so it must not pull the fit (one did: 2315 rpm for 7200). Chains with
  // fewer than three counted steps pool theirs.
  std::map<unsigned, double> best;
  std::map<unsigned, std::vector<double>> pool;
  auto settled = [&] {
    for (unsigned k : kSteps)
      if (!best.count(k) && pool[k].size() < 3) return false;
    return true;
  };
  BackwardSteps out;
  const double buffered_ns = hit_ns + kBufferedMarginMs * 1e6;
  for (int rep = 0; rep < kRotationMaxReps && !rc.budget.exhausted() && (rep < kRotationReps || !settled()); ++rep)
    for (unsigned k : kSteps) {
      const std::uint64_t x = 1000 + rng.below(rc.span - 2000);
      std::vector<std::uint64_t> chain;
      for (unsigned i = 0; i < 10; ++i) chain.push_back(x - i * k);
      auto l = qd1(rc, chain, false, true);
      if (rc.err && !budget_spent(rc.err)) return out;
      std::vector<double> steps;
      for (std::size_t i = 1; i < l.size(); ++i) {
        if (l[i] < 0) continue;
        ++out.steps;
        const bool buffered = l[i] < buffered_ns;
        out.buffered += buffered;
        if (!buffered && l[i - 1] >= buffered_ns) steps.push_back(l[i]);
      }
      if (steps.size() >= 3) {
        const double m = median(steps);
        if (!best.count(k) || m < best[k]) best[k] = m;
      } else {
        pool[k].insert(pool[k].end(), steps.begin(), steps.end());
      }
      if (rc.err) break;
    }
  for (unsigned k : kSteps) {
    if (best.count(k)) out.kl.emplace_back(k, best[k]);
    else if (pool[k].size() >= 3) out.kl.emplace_back(k, median(pool[k]));
  }
  return out;
}

// Reads alternating between two places a fixed distance apart, each at a random sector: the
// rotational wait of each is uniform over a revolution and the seek about the same
// (wait_width.hpp). The random offset spans many tracks: over two or three the phases wrap
// unevenly and the waits are not uniform (a 7200 rpm drive came out 3 % short with 2048 blocks).
// Both places creep forward every pair, onto blocks no read before them brought into the buffer.
std::vector<double> forward_waits(Ctx& rc, Rng& rng) {
  const std::uint64_t D = rc.span / kWaitDistanceShare;
  const std::uint64_t step = std::min<std::uint64_t>(kWaitStep, rc.span / (4 * kWaitReads));
  std::vector<std::uint64_t> chain;
  const std::uint64_t a0 = rng.below(rc.span - D - kWaitReads * step);
  for (std::uint64_t i = 0; i < kWaitReads; ++i)
    chain.push_back(a0 + (i / 2) * step + (i % 2 ? D : 0) + rng.below(step / 2));
  auto l = qd1(rc, chain);
  std::vector<double> ms;
  for (std::size_t i = 1; i < l.size(); ++i)
    if (l[i] >= 0 && l[i - 1] >= 0) ms.push_back(l[i] * 1e-6);
  return ms;
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

Expected<AccessResult> run_access(IoEngine& io, const AccessOptions& opt, const ProgressFn* progress) {
  AccessResult res;
  const std::uint32_t lb = io.info().logical_block_bytes ? io.info().logical_block_bytes : 512;
  const std::uint64_t cap = io.info().capacity_bytes / lb;
  const std::uint64_t span = opt.span_blocks ? std::min(opt.span_blocks, cap) : cap;
  if (span < 65536) return make_error("access: span too small (" + std::to_string(span) + " blocks)");
  res.block_bytes = lb;
  Budget budget(opt.budget_s);
  Ctx c{io, budget, span, {}, 0};
  Rng rng(opt.seed);
  auto report = [&](double f) {
    if (progress && *progress) (*progress)("access", f, budget.used_s());
  };
  auto fail = [&]() -> Expected<AccessResult> {
    Error e = *c.err;
    e.message = "access: " + e.message;
    return e;
  };

  // 1. Command overhead: re-reads of one block are served from the drive's cache. At three
  //    places (one per third of the span), the quickest kept: a slow region makes every command
  //    slower, and must not become the overhead.
  {
    double best = 0, best_u = 0;
    for (int third = 0; third < 3; ++third) {
      const std::uint64_t x = span * third / 3 + rng.below(span / 3);
      auto l = qd1(c, std::vector<std::uint64_t>(9, x));
      if (c.err) return fail();
      std::vector<double> hits(l.begin() + 1, l.end());
      const double o = median(hits);
      if (third == 0 || o < best) {
        best = o;
        best_u = kZ95 * 1.4826 * mad(hits) / std::sqrt(static_cast<double>(hits.size()));
      }
    }
    res.overhead_ms = {best * 1e-6, best_u * 1e-6};
  }
  // 2. Rotation: chains of backward steps (backward_steps below), at most a quarter of the budget.
  bool buffered = false;  // the drive's buffer answered them
  {
    Budget rot_budget = budget.part(0.25);
    Ctx rc{io, rot_budget, span, {}, 0};
    const BackwardSteps bs = backward_steps(rc, rng, res.overhead_ms.value * 1e6);
    const auto charged = rot_budget.used_ns();
    budget.charge(charged);
    if (rc.err && !budget_spent(rc.err)) {
      c.err = rc.err;
      return fail();
    }
    if (bs.buffered)
      res.notes.push_back(fmt::format(
          "rotation: {} of {} backward steps were served from the drive's buffer (it reads a track from where "
          "the head lands, a zero-latency read, or keeps it): the fit uses only steps read from the media "
          "right after another media read", bs.buffered, bs.steps));
    auto [rot, sec] = fit_rotation(bs.kl);
    buffered = 2 * bs.buffered > bs.steps;
    if (buffered) {
      // The buffer, not the platter, answered most steps: whatever line the few others make is
      // not trusted. The spread of the rotational waits of reads a fixed distance apart
      // (wait_width.hpp) gives the revolution, to a few per cent but calibrated (its interval
      // held the truth on 130 of 136 simulated zero-latency runs). Finer revolutions are not
      // taken in its place: the transfer test's, standing alone, was 1-4 % off on a tenth of those
      // drives (once 78 %), and the track probe's stream stated ±1/track size held the truth in
      // half; each checked against this interval still could not vouch for a finer one.
      rot = 0;
      const WaitWidth ww = wait_width_fit(forward_waits(rc, rng));
      budget.charge(rot_budget.used_ns() - charged);
      if (rc.err && !budget_spent(rc.err)) {
        c.err = rc.err;
        return fail();
      }
      if (ww.rev_ms > 0 && plausible_rotation_ms(ww.rev_ms, res.overhead_ms.value)) {
        res.rotation_ms = {ww.rev_ms, ww.half_width_ms};
        res.rpm = {60e3 / ww.rev_ms, 60e3 / ww.rev_ms * ww.half_width_ms / ww.rev_ms};
        res.notes.push_back(fmt::format("rotation: most backward steps were served from the drive's buffer; from the "
                                        "spread of rotational waits of reads a fixed distance apart (noise σ {:.3f} ms)",
                                        ww.sigma_ms));
      } else {
        res.notes.push_back("rotation: most backward steps took no longer than a cache hit (the drive's buffer "
                            "answers them, or there is no platter: solid state) and reads a fixed distance apart "
                            "show no rotational wait; not measured, and so no seek figures");
      }
    } else if (rot > 0 && !plausible_rotation_ms(rot * 1e-6, res.overhead_ms.value)) {
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
      for (auto& [k, l] : bs.kl) est.push_back(l + k * sec);
      // The fit's error on the simulated drives reaches 1 % (a chain's median is off by part of
      // a sector): the interval is never narrower than that. The stream of the track-to-track
      // probe, when there is one, replaces this figure below.
      const double u = std::max(kZ95 * 1.4826 * mad(est) / std::sqrt(static_cast<double>(est.size())),
                                kRotationFitFloor * rot);
      res.rotation_ms = {rot * 1e-6, u * 1e-6};
      res.rpm = {60e9 / rot, 60e9 / rot * (u / rot)};
      res.sector_ms = {sec * 1e-6, 0};
    }
  }
  report(0.1);
  const double rev_ms = res.rotation_ms.value;
  const double base_ms = rev_ms / 2 + res.overhead_ms.value + res.sector_ms.value;

  // 3. Random reads over the span. A read never lands just after the previous one, where the
  //    drive's read-ahead could serve it.
  const unsigned N = opt.samples ? opt.samples : 1500;
  std::vector<std::uint64_t> lbas;
  std::vector<double> lat_ms;
  std::uint64_t prev = rng.below(span);
  // Until 45 % of the budget is used, and in any case (budget left) the first kMinReads: the
  // mean access time is the figure everyone wants, even from a short run.
  constexpr unsigned kMinReads = 200;
  for (unsigned done = 0;
       done < N && !budget.exhausted() && (done < kMinReads || budget.used_s() < kRandomShare * budget.limit_s());) {
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
  // A failed I/O (a device that stopped answering) ends the test as an error, not as notes.
  if (c.err && !budget_spent(c.err)) return fail();
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

  // 4. Slow reads: slower than any normal access over the same distance can be (slow_regions.hpp).
  std::vector<std::uint64_t> dists(lat_ms.size(), 0);
  for (std::size_t i = 1; i < lat_ms.size(); ++i) dists[i] = lbas[i] > lbas[i - 1] ? lbas[i] - lbas[i - 1] : lbas[i - 1] - lbas[i];
  const double rev_or = rev_ms > 0 ? rev_ms : kNoRotationMs;
  LatencyModel lm = [&] {
    std::vector<std::pair<std::uint64_t, double>> dm;
    for (std::size_t i = 1; i < lat_ms.size(); ++i) dm.emplace_back(dists[i], lat_ms[i]);
    return LatencyModel(dm, rev_or / 2, std::max(kSlowMarginMs, 0.1 * rev_or));
  }();
  std::vector<bool> slow_read(lat_ms.size(), false);
  for (std::size_t i = 1; i < lat_ms.size(); ++i) slow_read[i] = lm.slow(dists[i], lat_ms[i]);
  res.slow_threshold_ms = lm.max_threshold_ms();
  {
    // A part of the budget of its own: full stroke and seek curve still come after it.
    Budget slow_budget = budget.part(kSlowShare);
    Ctx sc{io, slow_budget, span, {}, c.last_lba};
    SlowIo sio;
    sio.read_ms = [&](const std::vector<std::uint64_t>& l) {
      auto v = qd1(sc, l);
      for (double& x : v) x = x < 0 ? -1 : x * 1e-6;
      return v;
    };
    sio.last_lba = [&] { return sc.last_lba; };
    sio.stop = [&] { return slow_budget.exhausted() || sc.err.has_value(); };
    sio.flush = [&] {
      std::vector<std::uint64_t> far;
      for (int i = 0; i < 24; ++i) far.push_back(rng.below(span));
      qd1(sc, far);
    };
    std::vector<std::uint64_t> sl, sd;
    std::vector<double> sm;
    for (std::size_t i = 1; i < lat_ms.size(); ++i)
      if (slow_read[i]) sl.push_back(lbas[i]), sd.push_back(dists[i]), sm.push_back(lat_ms[i]);
    SlowSearch ss = find_slow(sio, lm, span, sl, sd, sm);
    budget.charge(slow_budget.used_ns());
    c.last_lba = sc.last_lba;
    if (sc.err && !budget_spent(sc.err) && !c.err) c.err = sc.err;
    if (slow_budget.exhausted())
      res.notes.push_back("slow regions: the search ran out of its share of the budget; some may be missing or not bounded");
    for (auto& f : ss.found) {
      if (f.spike) res.slow_spikes.push_back({f.first_lba, f.mean_ms});
      else res.slow_regions.push_back({f.first_lba, f.last_lba, f.mean_ms, f.location_uncertainty_blocks});
    }
    res.outliers = ss.outliers;
    if (!ss.outlier_excess_ms.empty()) res.outlier_excess_ms = median(ss.outlier_excess_ms);
  }
  auto in_region = [&](std::uint64_t l) {
    for (auto& r : res.slow_regions)
      if (l >= r.first_lba && l <= r.last_lba) return true;
    return false;
  };
  // 5. Full stroke: alternate between the first and the last part of the span, outside any slow
  //    region found there (a slow region at the end of the disk is not a longer stroke).
  {
    const std::uint64_t w = std::max<std::uint64_t>(span / 2000, 4096);
    // Each window moves inwards past any region (with its edge uncertainty) that it overlaps.
    std::uint64_t lo = 0, hi = span - 1;
    for (bool moved = true; moved;) {
      moved = false;
      for (auto& r : res.slow_regions) {
        // Edge uncertainty, bounded: a region whose edge search was cut short must not close the
        // windows on the whole span.
        const auto m = std::min<std::uint64_t>(static_cast<std::uint64_t>(r.location_uncertainty_blocks), span / 200);
        const std::uint64_t f = r.first_lba > m ? r.first_lba - m : 0, l = std::min(span - 1, r.last_lba + m);
        if (lo <= l && lo + w >= f && l + 1 > lo) lo = l + 1, moved = true;
        if (hi >= f && hi <= l + w && f > 0 && f - 1 < hi) hi = f - 1, moved = true;
      }
    }
    std::vector<std::uint64_t> alt;
    if (hi > lo + 2 * w)
      for (int i = 0; i < kStrokeReads; ++i) alt.push_back(i % 2 ? hi - rng.below(w) : lo + rng.below(w));
    auto l = qd1(c, alt);
    std::vector<double> all, v;
    for (std::size_t i = 1; i < l.size(); ++i)
      if (l[i] > 0) all.push_back(l[i] * 1e-6);
    // Left out: reads beyond the worst rotational wait over these reads' own median (a stall, a
    // pause); a cut at the random reads' threshold would drop long waits and bias the mean low.
    const double cut = all.empty() ? 0 : median(all) + rev_or / 2 + std::max(kSlowMarginMs, 0.1 * rev_or);
    for (double x : all)
      if (x <= cut) v.push_back(x);
    // A seek is what is left of an access once rotation and overhead are taken off: without a
    // rotation there is no model to take off, and the figure would be a bare access time.
    if (v.size() >= 10 && rev_ms > 0) {
      // Systematic part: the access model (overhead from hits, windows 0.05 % inside the ends),
      // kSeekModelFloor, and a stroke shortened by windows moved past end regions: a long seek
      // is about linear in its distance, so up to the share of the span left out.
      const double fs = mean(v) - base_ms;
      const double cut_share = static_cast<double>(lo + (span - 1 - hi)) / static_cast<double>(span);
      res.full_stroke_ms = {fs, kZ95 * stddev(v) / std::sqrt(static_cast<double>(v.size())) +
                                    res.overhead_ms.uncertainty + res.rotation_ms.uncertainty / 2 +
                                    (kSeekModelFloor + cut_share) * fs};
      if (lo > 0 || hi < span - 1)
        res.notes.push_back(fmt::format("full_stroke: measured between LBA {} and {}, outside the slow regions at the ends", lo, hi));
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
    ti.spares_per_track = opt.spares_per_track;
    ti.seed = opt.seed;
    for (auto& r : res.slow_regions) ti.avoid.emplace_back(r.first_lba, r.last_lba);
    Budget tb = budget.part(0.35);
    TrackSeekResult tr = measure_track_to_track(io, ti, tb);
    budget.charge(tb.used_ns());
    if (tr.error && !c.err) c.err = tr.error;
    res.track_to_track_ms = tr.seek_ms;
    if (!buffered && opt.rotation_ns > 0 && plausible_rotation_ms(opt.rotation_ns * 1e-6, res.overhead_ms.value) &&
        std::fabs(opt.rotation_ns * 1e-6 - rev_ms) <= kZ95 * res.rotation_ms.uncertainty &&
        opt.rotation_uncertainty_ns * 1e-6 < res.rotation_ms.uncertainty) {
      // The transfer test's revolution, fitted across zones with the tracks' spare sectors
      // counted, agrees with the backward-step fit and is the more exact of the two.
      const double rel = std::max(kStreamRotationFloor, opt.rotation_uncertainty_ns / opt.rotation_ns);
      res.rotation_ms = {opt.rotation_ns * 1e-6, rel * opt.rotation_ns * 1e-6};
      res.rpm = {60e9 / opt.rotation_ns, 60e9 / opt.rotation_ns * rel};
      res.notes.push_back("rotation: from the transfer test's zones (track size and sector time, spare sectors "
                          "per track fitted)");
    } else if (tr.rotation_ns > 0 && !buffered) {
      // A revolution from a stream (integer track size × fitted sector time) is exact to a few
      // parts per million when the track size is right. (Where the buffer answered the backward
      // steps, only within the interval the waits gave.)
      // The track size is an integer fitted from boundaries: one sector off is 1/spt of it.
      const double rel = std::max(kStreamRotationFloor, 1.0 / tr.sectors_per_track);
      res.rotation_ms = {tr.rotation_ns * 1e-6, rel * tr.rotation_ns * 1e-6};
      res.rpm = {60e9 / tr.rotation_ns, 60e9 / tr.rotation_ns * rel};
      res.notes.push_back("rotation: from the track stream of the track-to-track probe (track size x sector time)");
    }
    for (auto& n : tr.notes) res.notes.push_back(n);
  }
  report(0.7);

  // 7. Average seek and the seek curve from the random reads that are not slow.
  {
    std::vector<double> normal;
    std::map<int, std::vector<double>> bins;
    for (std::size_t i = 0; i < lat_ms.size(); ++i) {
      // Left out: reads in a slow region or beyond the slowest normal access at any distance (a
      // stall, a pause, a spike). A per-distance cut would also drop normal reads with a long
      // rotational wait and bias the mean low.
      if (lat_ms[i] > res.slow_threshold_ms || in_region(lbas[i])) continue;
      normal.push_back(lat_ms[i]);
      if (i == 0) continue;
      const std::uint64_t dist = dists[i];
      int b = dist ? 63 - __builtin_clzll(dist) : 0;
      bins[b].push_back(lat_ms[i]);
    }
    if (!normal.empty() && rev_ms > 0)
      // Systematic part: random LBAs weight the outer zones (more sectors per cylinder), so this
      // LBA-weighted mean differs from a cylinder-uniform (datasheet) average by kAvgSeekFloor.
      res.avg_seek_ms = {mean(normal) - base_ms,
                         kZ95 * stddev(normal) / std::sqrt(static_cast<double>(normal.size())) +
                             res.overhead_ms.uncertainty + res.rotation_ms.uncertainty / 2 +
                             kAvgSeekFloor * (mean(normal) - base_ms)};
    for (auto& [b, v] : bins) {
      if (rev_ms <= 0) break;  // no rotation: no seek model (see the full stroke above)
      SeekBin sb;
      sb.max_distance = b >= 63 ? UINT64_MAX : (2ull << b) - 1;
      sb.n = v.size();
      sb.seek_ms = mean(v) - base_ms;
      res.seek_curve.push_back(sb);
    }
  }
  // 8. The access-time map: 64 regions of the span.
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
  // 9. Random writes, only when allowed and the target was opened for writing.
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
  if (c.err && !budget_spent(c.err)) return fail();
  if (c.err) res.notes.push_back("stopped early: " + c.err->message);
  report(1.0);
  return res;
}

}  // namespace ds::measure
