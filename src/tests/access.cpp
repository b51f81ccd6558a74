#include "tests/access.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "tests/access_io.hpp"
#include "tests/access_rotation.hpp"
#include "tests/result_keys.hpp"
#include "tests/rotation.hpp"
#include "tests/slow_regions.hpp"
#include "tests/spindle.hpp"
#include "tests/track_seek.hpp"

namespace ds::measure {

namespace {

// The method's parameters (docs/methods.md, "Access time").
struct AccessTuning {
  // Command overhead: re-reads of one block at three places, the quickest kept.
  int hit_places = 3;
  int hit_reads = 9;                    // per place; the first goes to the media
  // Rotation (access_rotation.cpp has the probe's own parameters).
  double rotation_share = 0.25;         // of the budget
  // Random reads.
  unsigned samples = 1500;              // at most, unless the options say otherwise
  unsigned min_reads = 200;             // in any case (budget left): the figure everyone wants
  double random_share = 0.45;           // of the budget, for the random reads (beyond min_reads)
  unsigned chunk = 100;                 // reads per plan
  std::uint64_t near_blocks = 8192;     // a read never lands this close after the previous one
  int redraws = 8;
  // The phase-locked revolution (spindle.hpp): a few blocks re-read among the random reads.
  // Few anchors, each read many times: with only a few stamps an anchor's phases line up by
  // chance at many frequencies (16 anchors of 3 reads each never locked).
  unsigned anchors = 4;
  unsigned anchors_max = 12;            // one more after each re-read the buffer served, up to this
  unsigned anchor_every = 8;            // one anchor read per this many random reads, at random
  std::size_t anchor_reads_wanted = 48;  // from the media; fewer: a top-up sweep
  double topup_share = 0.1;             // … in at most this share of the budget more
  std::uint64_t anchor_seed_mix = 0xA2C4;  // their own draws: the random reads stay as they were
  double lock_scan_sigmas = 3;          // the scan covers the rotation phase's interval this many times
  double lock_scan_rel = 0.25;          // … and at least ±25 % (a wait-width fit was once 13 % off)
  // Slow reads and regions.
  double slow_margin_ms = 1.5;          // beyond the worst rotational wait before a read is slow
  double slow_margin_rev = 0.1;         // … or this share of a revolution, the larger
  double no_rotation_ms = 17;           // assumed revolution when none was measured
  double slow_share = 0.3;              // of the budget, for the slow-region search
  int flush_reads = 24;                 // far reads that push what was read out of the cache
  // Full stroke.
  int stroke_reads = 100;
  std::uint64_t stroke_window_div = 2000, stroke_window_min = 4096;  // each end's window
  std::uint64_t edge_margin_div = 200;  // a region's edge uncertainty counts up to span/this
  std::size_t min_stroke_reads = 10;
  // Track to track.
  double track_share = 0.35;            // of the budget
  // Systematic parts of the seek figures.
  double seek_model_floor = 0.02;       // the access model (overhead from hits, windows inside the ends)
  double avg_seek_floor = 0.03;         // LBA-weighted against cylinder-uniform average seek
  // The seek curve: the seek a bin's mean must tell apart when no track-to-track seek was measured.
  double seek_bin_resolution_ms = 1.0;
  // The access-time map, and random writes (--write).
  int map_regions = 64;
  int write_reads = 200;
};
constexpr AccessTuning kTuning{};

using access_detail::Ctx;
using access_detail::kMsPerNs;
using access_detail::qd1;

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

// The test's state from one phase to the next.
struct AccessRun {
  IoEngine& io;
  const AccessOptions& opt;
  const ProgressFn* progress;
  AccessResult res;
  Budget budget;
  Ctx c;
  Rng rng;
  // What every phase learned of the revolution, and what the arbiter (rotation.hpp) made of it.
  RotationEvidence rot_ev;
  RotationVerdict rot;
  // What a random read costs besides its seek (half a revolution, the overhead and one block), and
  // the revolution the slow-read thresholds assume, both from the revolution as it stands.
  double base_ms = 0, rev_assumed_ms = kTuning.no_rotation_ms;
  // The random reads: where, how long, how far from the previous one; which were slow.
  std::vector<std::uint64_t> lbas, dists;
  std::vector<double> lat_ms;
  std::vector<bool> slow_read;
  LatencyModel lm;
  // Re-reads of the anchor blocks, for the phase-locked revolution; those the buffer served.
  std::vector<std::uint64_t> anchor_lbas;
  std::vector<AnchorRead> anchor_reads;
  std::size_t anchor_hits = 0;
  Rng anchor_rng;
  unsigned next_anchor = 0;
  std::uint64_t prev_random = 0;  // the last random read's LBA (the next is never just after it)
  // Per positioning range (one unless the drive reports two or more; one more for LBAs outside
  // them all): the last LBA that range's positioner read, kNoRead before its first.
  static constexpr std::uint64_t kNoRead = UINT64_MAX;
  std::vector<std::uint64_t> range_last;

  AccessRun(IoEngine& io_, const AccessOptions& o, const ProgressFn* p, std::uint64_t span)
      : io(io_), opt(o), progress(p), budget(o.budget_s), c{io_, budget, span, {}, false, 0}, rng(o.seed),
        anchor_rng(o.seed ^ kTuning.anchor_seed_mix) {}

  std::uint64_t span() const { return c.span; }
  // The revolution as it stands, or the seed the phase lock scans around (0: none).
  double rev_ms() const { return rot.estimate.ms; }
  double slow_margin_ms() const { return std::max(kTuning.slow_margin_ms, kTuning.slow_margin_rev * rev_assumed_ms); }
  void report(double f) const {
    if (progress && *progress) (*progress)("access", f, budget.used_s());
  }
  Expected<AccessResult> fail() const {
    Error e = *c.err;
    e.message = "access: " + e.message;
    return e;
  }
  // A phase with a budget of its own: its failure becomes the test's, its time is charged.
  void absorb(const Ctx& sub, const Budget& part) {
    budget.charge(part.used_ns());
    if (sub.err && !c.err) c.err = sub.err;
  }
  std::size_t range_of(std::uint64_t l) const {
    const auto& rs = opt.positioning_ranges;
    if (rs.size() < 2) return 0;
    for (std::size_t i = 0; i < rs.size(); ++i)
      if (l >= rs[i].first_lba && l - rs[i].first_lba < rs[i].lba_count) return i;
    return rs.size();
  }
  // The seek a read at l makes: from where its range's positioner last read (0 when unknown).
  std::uint64_t seek_distance(std::uint64_t l) {
    std::uint64_t& last = range_last[range_of(l)];
    const std::uint64_t from = last == kNoRead ? l : last;
    last = l;
    return l > from ? l - from : from - l;
  }
  bool in_slow_region(std::uint64_t l) const {
    for (auto& r : res.slow_regions)
      if (l >= r.first_lba && l <= r.last_lba) return true;
    return false;
  }

  void measure_overhead();
  void measure_rotation();
  void decide_rotation();
  // One chunk of the sweep's plan: its random reads and the anchor re-reads among them.
  struct SweepChunk {
    std::vector<std::uint64_t> lbas;
    std::vector<int> anchor_of;  // per plan entry: the anchor it re-reads, or -1
    unsigned randoms = 0;
  };
  SweepChunk sweep_chunk(unsigned done, unsigned n);
  void file_sweep_reads(const SweepChunk& ch, const std::vector<double>& l, const std::vector<std::int64_t>& stamps,
                        double hit_ms);
  void sweep(unsigned n, unsigned at_least, double share);
  void random_reads();
  void lock_rotation();
  void classify_slow_reads();
  SlowIo slow_io(Ctx& sc, const Budget& slow_budget);
  void file_slow_search(const SlowSearch& ss);
  void find_slow_regions();
  struct StrokeEnds {
    std::uint64_t lo = 0, hi = 0;  // the first and the last LBA a stroke may reach
  };
  StrokeEnds stroke_ends();
  StrokeEnds windows_clear_of_slow(const StrokeEnds& ends, std::uint64_t w) const;
  void full_stroke();
  TrackSeekInput track_seek_input() const;
  void finer_rotation(const TrackSeekResult& tr);
  void track_to_track();
  void seek_curve(const std::map<int, std::vector<double>>& bins);
  void seek_figures();
  void check_stroke();
  void access_map();
  void random_writes();
};

// 1. Command overhead: re-reads of one block are served from the drive's cache. At three places
//    (one per third of the span), the quickest kept: a slow region makes every command slower,
//    and must not become the overhead.
void AccessRun::measure_overhead() {
  const auto& k = kTuning;
  double best = 0, best_u = 0;
  for (int third = 0; third < k.hit_places; ++third) {
    const std::uint64_t x = span() * third / k.hit_places + rng.below(span() / k.hit_places);
    auto l = qd1(c, std::vector<std::uint64_t>(k.hit_reads, x));
    if (c.err) return;
    std::vector<double> hits(l.begin() + 1, l.end());
    const double o = median(hits);
    if (third == 0 || o < best) {
      best = o;
      best_u = median_half_width(hits);
    }
  }
  res.overhead_ms = {best * kMsPerNs, best_u * kMsPerNs};
}

// The revolution as the arbiter (rotation.hpp) decides it from the evidence so far, and what
// rests on it: the rpm, the slow-read thresholds' revolution and the access model's base. A seed
// steers the phase lock only: no rpm, and the thresholds keep their assumed revolution. A new
// reason is noted.
void AccessRun::decide_rotation() {
  const RotationReason before = rot.reason;
  rot = arbitrate_rotation(rot_ev);
  if (rot.reason != before)
    if (auto note = access_detail::rotation_note(rot.reason, rot_ev)) res.notes.push_back(*note);
  // Only the verdict as it stands says why rotation_ms is null: a later phase may still find it.
  std::erase_if(res.withheld, [](const Withheld& w) { return w.figure == std::string_view(key::access::rotation_ms); });
  if (auto w = access_detail::rotation_withheld(rot.reason, rot_ev)) res.withheld.push_back(*w);
  res.rotation_source = rot.stands() ? rot.source : RotationSource::none;
  res.rotation_reason = rot.reason;
  const RotationEstimate r = rot.estimate;
  if (rot.stands()) {
    res.rotation_ms = {r.ms, r.half_width_ms};
    res.rpm = {60e3 / r.ms, 60e3 / r.ms * r.half_width_ms / r.ms};
    rev_assumed_ms = r.ms;
    base_ms = r.ms / 2 + res.overhead_ms.value + res.sector_ms.value;
  } else {
    res.rotation_ms = {0, 0};
    res.rpm = {0, 0};
    rev_assumed_ms = kTuning.no_rotation_ms;
    base_ms = 0;
  }
}

// 2. Rotation (access_rotation.hpp): backward steps, or the waits of reads a fixed distance apart
//    where the drive's buffer answered most steps; at most a quarter of the budget.
void AccessRun::measure_rotation() {
  Budget rot_budget = budget.part(kTuning.rotation_share);
  Ctx rc{io, rot_budget, span(), {}, false, 0};
  const access_detail::RotationProbe p = access_detail::probe_rotation(rc, rng, res.overhead_ms.value);
  budget.charge(rot_budget.used_ns());
  if (rc.err) {
    c.err = rc.err;
    return;
  }
  if (p.buffered_steps)
    res.notes.push_back(fmt::format(
        "rotation: {} of {} backward steps were served from the drive's buffer (it reads a track from where "
        "the head lands, a zero-latency read, or keeps it): the fit uses only steps read from the media "
        "right after another media read", p.buffered_steps, p.steps));
  rot_ev = p.evidence;
  res.sector_ms = {p.sector_ms, 0};
  decide_rotation();
}

// The sweep's next chunk of reads, `done` of its `n` random reads taken: up to kTuning.chunk more
// random reads, each drawn again while it lands just after the previous one, and now and then an
// anchor re-read after one.
AccessRun::SweepChunk AccessRun::sweep_chunk(unsigned done, unsigned n) {
  const auto& k = kTuning;
  SweepChunk ch;
  for (unsigned i = 0; i < k.chunk && done + i < n; ++i) {
    // Not just after the previous random read, nor the anchor read between (its read-ahead).
    const std::uint64_t prev_read = ch.lbas.empty() ? c.last_lba : ch.lbas.back();
    auto near = [&](std::uint64_t x) {
      return (x >= prev_random && x - prev_random < k.near_blocks) ||
             (x >= prev_read && x - prev_read < k.near_blocks);
    };
    std::uint64_t x = rng.below(span());
    for (int t = 0; t < k.redraws && near(x); ++t) x = rng.below(span());
    ch.lbas.push_back(x);
    ch.anchor_of.push_back(-1);
    prev_random = x;
    ++ch.randoms;
    // At random times, not every n-th read: an anchor re-read at a steady pace P would let the
    // phases also line up at 1/T ± 1/P (spindle.hpp refuses such an alias, and the lock is
    // lost). The anchors in turn: each is read again only after all the others, by which time
    // the buffer should have let it go (a re-read it served adds an anchor).
    if (!anchor_lbas.empty() && anchor_rng.below(k.anchor_every) == 0) {
      ch.lbas.push_back(anchor_lbas[next_anchor]);
      ch.anchor_of.push_back(static_cast<int>(next_anchor));
      next_anchor = (next_anchor + 1) % static_cast<unsigned>(anchor_lbas.size());
    }
  }
  return ch;
}

// What a chunk's reads took (`l`, in ns; negative: failed): a random read's latency and seek
// distance join the sweep's, an anchor re-read's stamp the rotation lock's, unless it came back
// faster than `hit_ms` (from the buffer).
void AccessRun::file_sweep_reads(const SweepChunk& ch, const std::vector<double>& l,
                                 const std::vector<std::int64_t>& stamps, double hit_ms) {
  const auto& k = kTuning;
  for (std::size_t i = 0; i < ch.lbas.size(); ++i) {
    // The seek started where the read before it in its range, anchor or not, left the head.
    const std::uint64_t dist = seek_distance(ch.lbas[i]);
    if (l[i] < 0) continue;
    if (ch.anchor_of[i] < 0) {
      lbas.push_back(ch.lbas[i]);
      lat_ms.push_back(l[i] * kMsPerNs);
      dists.push_back(dist);
    } else if (l[i] * kMsPerNs < hit_ms) {
      // Still in the buffer: the anchors come round too soon for its size. One more anchor
      // spaces each one's re-reads further without reading the anchors less often.
      ++anchor_hits;
      if (anchor_lbas.size() < k.anchors_max) anchor_lbas.push_back(anchor_rng.below(span()));
    } else {
      anchor_reads.push_back({static_cast<unsigned>(ch.anchor_of[i]), stamps[i]});
    }
  }
}

// 3. Random reads over the span, until the budget's share is used and in any case (budget left)
//    the first min_reads: the mean access time is the figure everyone wants, even from a short
//    run. A read never lands just after the previous one, where the read-ahead could serve it.
//    Among them, at random, re-reads of the anchor blocks (lock_rotation), from draws of their own
//    so that the random reads are what they would be without them. At most n random reads, at
//    least `at_least` (budget left).
//    The reads go in chunks: sweep_chunk plans each, file_sweep_reads files what they took.
void AccessRun::sweep(unsigned n, unsigned at_least, double share) {
  const double hit_ms = res.overhead_ms.value + access_detail::kBufferedMarginMs;
  for (unsigned done = 0; done < n && !budget.exhausted() &&
                          (done < at_least || budget.used_s() < share * budget.limit_s());) {
    const SweepChunk ch = sweep_chunk(done, n);
    std::vector<std::int64_t> stamps;
    if (range_last.empty()) range_last.assign(opt.positioning_ranges.size() + 1, kNoRead);
    range_last[range_of(c.last_lba)] = c.last_lba;
    auto l = qd1(c, ch.lbas, false, &stamps);
    file_sweep_reads(ch, l, stamps, hit_ms);
    done += ch.randoms;
    if (c.err || c.spent) break;
    report(0.1 + 0.5 * static_cast<double>(lat_ms.size()) / n);
  }
}

void AccessRun::random_reads() {
  const auto& k = kTuning;
  if (rev_ms() > 0)
    for (unsigned a = 0; a < k.anchors; ++a) anchor_lbas.push_back(anchor_rng.below(span()));
  prev_random = rng.below(span());
  sweep(opt.samples ? opt.samples : k.samples, k.min_reads, k.random_share);
  // Too few anchor reads for the lock (a short sweep, a buffer that kept them): more random
  // reads, in a small share of the budget of their own.
  if (!anchor_lbas.empty() && anchor_reads.size() < k.anchor_reads_wanted && !c.err && !c.spent) {
    const unsigned missing = static_cast<unsigned>(k.anchor_reads_wanted - anchor_reads.size());
    sweep(k.anchor_every * missing, 0, budget.used_s() / budget.limit_s() + k.topup_share);
  }
  // Every read when they fit the bound, else an even stride through them (the order kept).
  const std::size_t n = lat_ms.size(), keep = std::min(n, kMaxReadSamples);
  res.reads.reserve(keep);
  for (std::size_t i = 0; i < keep; ++i) res.reads.push_back({lbas[i * n / keep], lat_ms[i * n / keep]});
  if (!dists.empty()) dists.front() = 0;  // (the first read's seek is not one of the sweep's)
}

// 3b. The revolution, phase-locked: the anchors' re-reads from the media lie on combs whose tooth
//     spacing is the revolution (spindle.hpp), to parts per million wherever the rotation phase
//     above came within a few per cent: with a zero-latency read, serpentine layout or spare
//     sectors alike. It replaces the rotation phase's figure, and the transfer test's and the
//     track probe's below are not taken in its place.
void AccessRun::lock_rotation() {
  rot_ev.lock_tried = true;
  if (anchor_reads.empty() || rev_ms() <= 0) return decide_rotation();
  const double rel = std::max(kTuning.lock_scan_rel, kTuning.lock_scan_sigmas * rot.estimate.half_width_ms / rev_ms());
  const SpindleFit f = fit_spindle(anchor_reads, rev_ms() / kMsPerNs, rel);
  if (f.revolution_ns <= 0) {
    res.notes.push_back(fmt::format("rotation: the {} re-reads of {} blocks ({} more from the buffer) did not lock "
                                    "onto one revolution within ±{:.1f} % of {:.3f} ms (phase coherence {:.2f})",
                                    anchor_reads.size(), anchor_lbas.size(), anchor_hits,
                                    100 * rel, rev_ms(), f.coherence));
    return decide_rotation();
  }
  rot_ev.lock = RotationEstimate{f.revolution_ns * kMsPerNs, f.half_width_ns * kMsPerNs};
  res.notes.push_back(fmt::format("rotation: phase-locked: {} re-reads of {} blocks over {:.1f} s lie on combs one "
                                  "revolution apart (residual σ {:.1f} µs, {} off the comb left out{})",
                                  f.used, anchor_lbas.size(), f.span_s, f.residual_sd_ns * 1e-3, f.outliers,
                                  anchor_hits ? fmt::format(", {} served from the buffer", anchor_hits) : ""));
  decide_rotation();
}

// The sweep's reads judged against the latency model of their seek distances (slow_regions.hpp):
// slow_read[i] where read i took longer than any normal access over its distance can.
void AccessRun::classify_slow_reads() {
  std::vector<std::pair<std::uint64_t, double>> dm;
  for (std::size_t i = 1; i < lat_ms.size(); ++i) dm.emplace_back(dists[i], lat_ms[i]);
  lm = LatencyModel(dm, rev_assumed_ms / 2, slow_margin_ms());
  slow_read.assign(lat_ms.size(), false);
  for (std::size_t i = 1; i < lat_ms.size(); ++i) slow_read[i] = lm.slow(dists[i], lat_ms[i]);
  res.slow_threshold_ms = lm.max_threshold_ms();
}

// The slow-region search's reads, through the context `sc` and on `slow_budget` (both the
// caller's, which outlive the search): latencies in ms (-1: failed), where the head was last, when
// to stop, and a flush of far reads.
SlowIo AccessRun::slow_io(Ctx& sc, const Budget& slow_budget) {
  Ctx* const s = &sc;
  const Budget* const b = &slow_budget;
  SlowIo sio;
  sio.read_ms = [s](const std::vector<std::uint64_t>& l) {
    auto v = qd1(*s, l);
    for (double& x : v) x = x < 0 ? -1 : x * kMsPerNs;
    return v;
  };
  sio.last_lba = [s] { return s->last_lba; };
  sio.stop = [s, b] { return b->exhausted() || s->err.has_value() || s->spent; };
  sio.flush = [this, s] {
    std::vector<std::uint64_t> far;
    for (int i = 0; i < kTuning.flush_reads; ++i) far.push_back(rng.below(span()));
    qd1(*s, far);
  };
  return sio;
}

// What the search found: regions, single slow LBAs (spikes), and the reads that were slow once and
// normal when read again (outliers) with their time over the threshold.
void AccessRun::file_slow_search(const SlowSearch& ss) {
  for (auto& f : ss.found) {
    if (f.spike) res.slow_spikes.push_back({f.first_lba, f.mean_ms});
    else res.slow_regions.push_back({f.first_lba, f.last_lba, f.mean_ms, f.location_uncertainty_blocks});
  }
  res.outliers = ss.outliers;
  if (!ss.outlier_excess_ms.empty()) res.outlier_excess_ms = median(ss.outlier_excess_ms);
}

// 4. Slow reads: slower than any normal access over the same distance can be (slow_regions.hpp);
//    then the search that bounds the regions they lie in, in a part of the budget of its own
//    (full stroke and seek curve still come after it).
void AccessRun::find_slow_regions() {
  classify_slow_reads();
  Budget slow_budget = budget.part(kTuning.slow_share);
  Ctx sc{io, slow_budget, span(), {}, false, c.last_lba};
  SlowIo sio = slow_io(sc, slow_budget);
  std::vector<std::uint64_t> sl, sd;
  std::vector<double> sm;
  for (std::size_t i = 1; i < lat_ms.size(); ++i)
    if (slow_read[i]) {
      sl.push_back(lbas[i]);
      sd.push_back(dists[i]);
      sm.push_back(lat_ms[i]);
    }
  SlowSearch ss = find_slow(sio, lm, span(), sl, sd, sm);
  absorb(sc, slow_budget);
  c.last_lba = sc.last_lba;
  if (slow_budget.exhausted())
    res.notes.push_back("slow regions: the search ran out of its share of the budget; some may be missing or not bounded");
  file_slow_search(ss);
}

// The ends a full stroke moves between: those of the span, or of the largest positioning range
// inside it where the drive reports several (each has a positioner of its own: across them
// nothing moves; a note says which range).
AccessRun::StrokeEnds AccessRun::stroke_ends() {
  StrokeEnds e{0, span() - 1};
  if (opt.positioning_ranges.size() < 2) return e;
  std::size_t in_range = 0;
  for (std::size_t i = 0; i < opt.positioning_ranges.size(); ++i) {
    const LbaRange& r = opt.positioning_ranges[i];
    if (r.first_lba >= span() || r.lba_count == 0) continue;
    const std::uint64_t last = std::min(span() - 1, r.first_lba + r.lba_count - 1);
    if (in_range == 0 || last - r.first_lba > e.hi - e.lo) {
      e = {r.first_lba, last};
      in_range = i + 1;
    }
  }
  if (in_range)
    res.notes.push_back(fmt::format("full_stroke: measured inside positioning range {} (LBA {} to {}) of {}: each has a positioner of its own",
                                    in_range - 1, e.lo, e.hi, opt.positioning_ranges.size()));
  return e;
}

// The stroke's windows, `w` blocks at each of `ends`, each moved inwards past any slow region
// (with its edge uncertainty) that it overlaps, until none overlaps: where the windows start.
AccessRun::StrokeEnds AccessRun::windows_clear_of_slow(const StrokeEnds& ends, std::uint64_t w) const {
  const auto& k = kTuning;
  StrokeEnds e = ends;
  for (bool moved = true; moved;) {
    moved = false;
    for (auto& r : res.slow_regions) {
      // Edge uncertainty, bounded: a region whose edge search was cut short must not close the
      // windows on the whole span.
      const auto m = std::min<std::uint64_t>(static_cast<std::uint64_t>(r.location_uncertainty_blocks),
                                             span() / k.edge_margin_div);
      const std::uint64_t f = r.first_lba > m ? r.first_lba - m : 0, l = std::min(ends.hi, r.last_lba + m);
      if (e.lo <= l && e.lo + w >= f && l + 1 > e.lo) {
        e.lo = l + 1;
        moved = true;
      }
      if (e.hi >= f && e.hi <= l + w && f > 0 && f - 1 < e.hi) {
        e.hi = f - 1;
        moved = true;
      }
    }
  }
  return e;
}

// 5. Full stroke: alternate between the first and the last part of the span (stroke_ends),
//    outside any slow region found there (a slow region at the end of the disk is not a longer
//    stroke).
void AccessRun::full_stroke() {
  const auto& k = kTuning;
  const StrokeEnds ends = stroke_ends();
  const std::uint64_t lo0 = ends.lo, hi0 = ends.hi;
  const std::uint64_t w = std::max<std::uint64_t>((hi0 - lo0 + 1) / k.stroke_window_div, k.stroke_window_min);
  const StrokeEnds win = windows_clear_of_slow(ends, w);
  const std::uint64_t lo = win.lo, hi = win.hi;
  std::vector<std::uint64_t> alt;
  if (hi > lo + 2 * w)
    for (int i = 0; i < k.stroke_reads; ++i) alt.push_back(i % 2 ? hi - rng.below(w) : lo + rng.below(w));
  auto l = qd1(c, alt);
  std::vector<double> all, v;
  for (std::size_t i = 1; i < l.size(); ++i)
    if (l[i] > 0) all.push_back(l[i] * kMsPerNs);
  // Left out: reads beyond the worst rotational wait over these reads' own median (a stall, a
  // pause); a cut at the random reads' threshold would drop long waits and bias the mean low.
  const double cut = all.empty() ? 0 : median(all) + rev_assumed_ms / 2 + slow_margin_ms();
  for (double x : all)
    if (x <= cut) v.push_back(x);
  // A seek is what is left of an access once rotation and overhead are taken off: without a
  // rotation there is no model to take off, and the figure would be a bare access time.
  if (v.size() < k.min_stroke_reads || rev_ms() <= 0) return;
  // Systematic part: the access model (overhead from hits, windows 0.05 % inside the ends),
  // seek_model_floor, and a stroke shortened by windows moved past end regions: a long seek is
  // about linear in its distance, so up to the share of the span left out.
  const double fs = mean(v) - base_ms;
  const double cut_share = static_cast<double>((lo - lo0) + (hi0 - hi)) / static_cast<double>(hi0 - lo0 + 1);
  res.full_stroke_ms = {fs, mean_half_width(v) +
                                res.overhead_ms.uncertainty + res.rotation_ms.uncertainty / 2 +
                                (k.seek_model_floor + cut_share) * fs};
  if (lo > lo0 || hi < hi0)
    res.notes.push_back(fmt::format("full_stroke: measured between LBA {} and {}, outside the slow regions at the ends", lo, hi));
}

// What the track-to-track probe is told: the zone (the transfer test's, else the second quarter
// of the span), the revolution and overhead measured so far, the transfer test's surfaces and
// spares where its tracks fill the revolution that stands (rotation.hpp: else they were a bus's
// pace, and its "surfaces" aimed the moves 36 tracks apart on a Cheetah 4LP), and the slow
// regions to keep clear of.
TrackSeekInput AccessRun::track_seek_input() const {
  TrackSeekInput ti;
  ti.first_lba = opt.zone_last_lba > opt.zone_first_lba ? opt.zone_first_lba : span() / 4;
  ti.last_lba = opt.zone_last_lba > opt.zone_first_lba ? std::min(opt.zone_last_lba, span() - 1) : span() / 2;
  ti.rotation_ns = rev_ms() / kMsPerNs;
  ti.overhead_ms = res.overhead_ms.value;
  ti.overhead_uncertainty_ms = res.overhead_ms.uncertainty;
  const bool tracks_stand = !independent_of_transfer(rot.source) ||
                            tracks_fill_revolution({opt.track_ns * kMsPerNs, opt.track_uncertainty_ns * kMsPerNs},
                                                   rot.estimate);
  ti.surfaces = tracks_stand ? opt.surfaces : 0;
  ti.spares_per_track = tracks_stand ? opt.spares_per_track : -1;
  ti.seed = opt.seed;
  for (auto& r : res.slow_regions) ti.avoid.emplace_back(r.first_lba, r.last_lba);
  return ti;
}

// Finer revolutions than the backward-step fit, to the arbiter: the transfer test's (fitted
// across zones with the tracks' spare sectors counted) and the track probe's stream's (an integer
// track size × fitted sector time; one sector off is 1/spt of it). A phase-locked revolution, or
// one where the buffer answered the backward steps, stays (rotation.hpp).
void AccessRun::finer_rotation(const TrackSeekResult& tr) {
  if (opt.rotation_ns > 0)
    rot_ev.transfer = RotationEstimate{opt.rotation_ns * kMsPerNs, opt.rotation_uncertainty_ns * kMsPerNs};
  if (tr.rotation_ns > 0 && tr.sectors_per_track > 0)
    rot_ev.stream = RotationEstimate{tr.rotation_ns * kMsPerNs, tr.rotation_ns * kMsPerNs / tr.sectors_per_track};
  decide_rotation();
}

// 6. Track to track: inside one zone, with that zone's own layout (track_seek.hpp). The probe's
//    stream, or the transfer test's zones, may also give a finer revolution than the fit above.
void AccessRun::track_to_track() {
  if (rev_ms() <= 0 || c.err || c.spent) return;
  Budget tb = budget.part(kTuning.track_share);
  TrackSeekResult tr = measure_track_to_track(io, track_seek_input(), tb);
  budget.charge(tb.used_ns());
  if (tr.error && !c.err) c.err = tr.error;
  res.track_to_track_ms = tr.seek_ms;
  if (tr.surfaces_found) res.probe_surfaces = tr.surfaces;
  finer_rotation(tr);
  for (auto& n : tr.notes) res.notes.push_back(n);
  for (auto& w : tr.withheld) res.withheld.push_back(w);
}

// 7. Average seek and the seek curve from the random reads that are not slow.
void AccessRun::seek_figures() {
  const auto& k = kTuning;
  std::vector<double> normal;
  std::map<int, std::vector<double>> bins;
  for (std::size_t i = 0; i < lat_ms.size(); ++i) {
    // Left out: reads in a slow region or beyond the slowest normal access at any distance (a
    // stall, a pause, a spike). A per-distance cut would also drop normal reads with a long
    // rotational wait and bias the mean low.
    if (lat_ms[i] > res.slow_threshold_ms || in_slow_region(lbas[i])) continue;
    normal.push_back(lat_ms[i]);
    if (i == 0) continue;
    bins[dists[i] ? 63 - __builtin_clzll(dists[i]) : 0].push_back(lat_ms[i]);
  }
  // No rotation: no seek model (see the full stroke above).
  if (normal.empty() || rev_ms() <= 0) return;
  // Systematic part: random LBAs weight the outer zones (more sectors per cylinder), so this
  // LBA-weighted mean differs from a cylinder-uniform (datasheet) average by avg_seek_floor.
  const double seek = mean(normal) - base_ms;
  res.avg_seek_ms = {seek, mean_half_width(normal) +
                               res.overhead_ms.uncertainty + res.rotation_ms.uncertainty / 2 +
                               k.avg_seek_floor * seek};
  seek_curve(bins);
}

// The seek curve: the normal reads binned by seek distance (octaves, `bins`), each bin's mean
// less the access model's base. A bin's mean carries each read's rotational wait, uniform over a
// revolution (σ = rev/√12): with n reads its 95 % interval is ± 1.96·rev/√(12 n) from that alone.
// A bin is given a seek time only when that half-width is at most the track-to-track seek, the
// smallest step the curve has to tell apart (1 ms when it was not measured): on a 10 000 rpm
// drive 32 reads. The mean of 3 reads is ± 3.4 ms there; the report drew such a bin as a seek
// below the track-to-track time (issue 32). Fewer reads: the bin keeps its count, its seek_ms is
// null.
void AccessRun::seek_curve(const std::map<int, std::vector<double>>& bins) {
  const auto& k = kTuning;
  const double t2t = res.track_to_track_ms.value;
  const double resolve_ms = t2t > 0 ? t2t : k.seek_bin_resolution_ms;
  const double per_read = kZ95 * rev_ms() / std::sqrt(12.0);
  const auto min_reads = static_cast<std::size_t>(std::ceil(per_read * per_read / (resolve_ms * resolve_ms)));
  for (auto& [b, v] : bins) {
    SeekBin sb;
    sb.max_distance = b >= 63 ? UINT64_MAX : (2ull << b) - 1;
    sb.n = v.size();
    if (sb.n >= std::max<std::size_t>(min_reads, 2)) sb.seek_ms = mean(v) - base_ms;
    res.seek_curve.push_back(sb);
  }
}

// 7b. A full stroke under the average seek is no stroke: one positioner's longest seek costs at
//     least its average. The ends of the span are then served by different positioners (ranges
//     the drive did not report, or a device that maps blocks elsewhere): no figure.
void AccessRun::check_stroke() {
  const Figure fs = res.full_stroke_ms, avg = res.avg_seek_ms;
  if (fs.value <= 0 || avg.value <= 0 || fs.value + fs.uncertainty >= avg.value - avg.uncertainty) return;
  res.withheld.push_back({key::access::full_stroke_ms, WithheldReason::stroke_under_average,
                          {{"stroke_ms", fs.value}, {"stroke_hw_ms", fs.uncertainty},
                           {"average_ms", avg.value}, {"average_hw_ms", avg.uncertainty}}});
  res.full_stroke_ms = {};
}

// 8. The access-time map: map_regions regions of the span.
void AccessRun::access_map() {
  const int R = kTuning.map_regions;
  std::vector<std::vector<double>> reg(R);
  for (std::size_t i = 0; i < lat_ms.size(); ++i) reg[std::min<std::uint64_t>(R - 1, lbas[i] * R / span())].push_back(lat_ms[i]);
  for (int r = 0; r < R; ++r) {
    RegionStat st;
    st.first_lba = span() * r / R;
    st.last_lba = span() * (r + 1) / R - 1;
    st.n = reg[r].size();
    st.mean_ms = mean(reg[r]);
    for (auto& s : res.slow_regions) st.slow |= s.first_lba <= st.last_lba && s.last_lba >= st.first_lba;
    res.map.push_back(st);
  }
}

// 9. Random writes, only when allowed and the target was opened for writing.
void AccessRun::random_writes() {
  if (!opt.allow_write) return;
  if (!io.info().writable) {
    res.withheld.push_back({key::access::write, WithheldReason::write_not_open});
    return;
  }
  if (c.err || c.spent) return;
  std::vector<std::uint64_t> w;
  for (int i = 0; i < kTuning.write_reads; ++i) w.push_back(rng.below(span()));
  auto l = qd1(c, w, true);
  std::vector<double> ms;
  for (double x : l)
    if (x >= 0) ms.push_back(x * kMsPerNs);
  res.write = stats(ms);
}

}  // namespace

Expected<AccessResult> run_access(IoEngine& io, const AccessOptions& opt, const ProgressFn* progress) {
  const std::uint32_t lb = io.info().logical_block_bytes ? io.info().logical_block_bytes : 512;
  const std::uint64_t cap = io.info().capacity_bytes / lb;
  const std::uint64_t span = opt.span_blocks ? std::min(opt.span_blocks, cap) : cap;
  if (span < 65536) return make_error("access: span too small (" + std::to_string(span) + " blocks)");
  AccessRun run(io, opt, progress, span);
  run.res.block_bytes = lb;
  run.measure_overhead();
  if (run.c.err) return run.fail();
  run.measure_rotation();
  if (run.c.err) return run.fail();
  run.report(0.1);
  run.random_reads();
  if (run.lat_ms.size() < 10)
    return run.c.err ? run.fail() : Expected<AccessResult>(make_error("access: too few reads completed"));
  // A failed I/O (a device that stopped answering) ends the test as an error, not as notes.
  if (run.c.err) return run.fail();
  run.res.read = stats(run.lat_ms);
  run.lock_rotation();
  run.find_slow_regions();
  run.full_stroke();
  run.track_to_track();
  run.report(0.7);
  run.seek_figures();
  run.check_stroke();
  run.access_map();
  run.random_writes();
  run.res.drive_time_s = run.budget.used_s();
  if (run.c.err) return run.fail();
  if (run.c.spent) run.res.withheld.push_back({"", WithheldReason::budget_spent});
  run.report(1.0);
  return std::move(run.res);
}

}  // namespace ds::measure
