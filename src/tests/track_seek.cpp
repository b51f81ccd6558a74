#include "tests/track_seek.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tests/transfer.hpp"

namespace ds::measure {

namespace {

constexpr int kGrid = 2000;          // candidate wrap phases per revolution
constexpr unsigned kCoarse = 24;     // coarse sweep: one sample per 1/24 revolution
constexpr unsigned kFine = 16;       // fine sweep inside the coarse gap that holds the foot
constexpr double kMinInliers = 0.6;
constexpr double kRotationAgreement = 0.03;  // the stream's revolution against the rotation fit  // share of samples on the sawtooth for it to be believed

double frac(double x) { return x - std::floor(x); }

struct Candidate {
  int inliers = 0;
  double cost = 0, k = 0;
};

Candidate try_wrap(const std::vector<PhaseSample>& s, double rev_ms, double w, double tol) {
  std::vector<double> ks;
  for (auto& p : s) ks.push_back(p.ms - rev_ms * frac(p.phase - w));
  Candidate c;
  c.k = median(ks);
  for (double k : ks) {
    const double r = std::fabs(k - c.k);
    c.inliers += r < tol;
    c.cost += std::min(r, tol);
  }
  return c;
}

}  // namespace

SawtoothFoot sawtooth_foot(const std::vector<PhaseSample>& in, double rev_ms) {
  SawtoothFoot f;
  std::vector<PhaseSample> s;
  for (auto& p : in)
    if (p.ms > 0) s.push_back(p);
  if (s.size() < 8 || rev_ms <= 0) return f;
  // Noise the fit must absorb: seek jitter and host latency, a few % of a revolution.
  const double tol = std::max(0.04 * rev_ms, 0.1);
  std::vector<Candidate> c(kGrid);
  int best = 0;
  for (int g = 0; g < kGrid; ++g) {
    c[g] = try_wrap(s, rev_ms, static_cast<double>(g) / kGrid, tol);
    best = std::max(best, c[g].inliers);
  }
  if (best < kMinInliers * static_cast<double>(s.size())) return f;
  // Every wrap phase that explains as many samples as the best one is possible: the foot lies
  // between the last sample before the drop and the first after it, and K follows the phase.
  double kmin = 1e30, kmax = -1e30, cost_min = 1e30;
  for (auto& x : c)
    if (x.inliers == best) cost_min = std::min(cost_min, x.cost);
  int lo = -1, hi = -1;
  for (int g = 0; g < kGrid; ++g) {
    if (c[g].inliers != best || c[g].cost > cost_min + 0.5 * tol) continue;
    kmin = std::min(kmin, c[g].k);
    kmax = std::max(kmax, c[g].k);
    if (lo < 0) lo = g;
    hi = g;
  }
  f.k_ms = (kmin + kmax) / 2;
  f.half_width_ms = (kmax - kmin) / 2 + rev_ms / kGrid;
  f.lo = static_cast<double>(lo) / kGrid;
  f.hi = static_cast<double>(hi + 1) / kGrid;
  // A set that wraps round phase 0 comes out as [0, 1): take the gap of the samples instead.
  if (f.hi - f.lo > 0.5) {
    f.lo = 0;
    f.hi = 1;
  }
  return f;
}

namespace {

struct Sweep {
  std::vector<PhaseSample> samples;
  std::optional<Error> err;
};

// Pairs (source on track B, target on track B + cyl at phase offset d/spt), sources descending
// two cylinders a pair so that nothing read before (or read ahead) is read again.
Sweep sweep(IoEngine& io, Budget& budget, std::uint64_t top, std::uint64_t cyl, std::uint32_t spt,
            std::uint32_t slots, const std::vector<std::uint32_t>& offsets, Rng& rng) {
  std::vector<PlanEntry> plan;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const std::uint64_t b = top - 2 * cyl * i;
    const std::uint32_t s = static_cast<std::uint32_t>(rng.below(spt));
    plan.push_back({b + s, 1, false});
    plan.push_back({b + cyl + (s + offsets[i]) % spt, 1, false});
  }
  RunOptions ro;
  RunResult r = run_plan(io, plan, ro, budget);
  Sweep sw;
  if (r.error && !budget_spent(r.error)) sw.err = r.error;
  for (std::size_t i = 0; i < offsets.size(); ++i)
    if (r.done[2 * i + 1] && r.done[2 * i])
      sw.samples.push_back({static_cast<double>(offsets[i]) / slots, r.samples[2 * i + 1].latency_ms()});
  return sw;
}

}  // namespace

TrackSeekResult measure_track_to_track(IoEngine& io, const TrackSeekInput& in, Budget& budget) {
  TrackSeekResult res;
  if (in.rotation_ns <= 0 || in.last_lba <= in.first_lba) return res;
  // The zone's own layout, from a stream at a third of it (or another place clear of the ranges
  // to avoid: the stream, the sweep above it and a margin).
  const std::uint64_t zlen = in.last_lba - in.first_lba;
  std::uint64_t loc = 0;
  bool clear = false;
  for (double at : {1.0 / 3, 2.0 / 3, 1.0 / 6, 0.5, 5.0 / 6}) {
    loc = in.first_lba + static_cast<std::uint64_t>(at * static_cast<double>(zlen));
    const std::uint64_t hi = loc + zlen / 6;
    clear = true;
    for (auto& [f, l] : in.avoid) clear &= l < loc || f > hi;
    if (clear) break;
  }
  if (!clear) {
    res.notes.push_back("track_to_track: no place in the zone clear of slow regions; not measured");
    return res;
  }
  ProbeChoice pc = choose_stream(io, loc, budget, 8, in.last_lba);
  if (!pc.blocks) {
    res.notes.push_back("track_to_track: no track structure found in the zone; not measured");
    return res;
  }
  StreamProbe p = probe_stream(io, pc.end_lba, pc.blocks, 0.3, 8, budget, 2, in.last_lba, in.surfaces);
  const TrackStructure& t = p.t.sectors_per_track ? p.t : pc.t;
  const std::uint32_t spt = t.sectors_per_track;
  const unsigned H = in.surfaces ? in.surfaces : t.surfaces;
  res.sectors_per_track = spt;
  res.surfaces = H;
  // Sector slots a revolution passes: the logical sectors and the track's spares. Told by the
  // transfer test, or else what the rotation fit leaves over the track size, when that is close
  // to a whole number (the fit is good to a fraction of a sector on the drives measured here).
  int spares = in.spares_per_track;
  if (spares < 0 && spt && t.sector_ns > 0) spares = whole_spares(in.rotation_ns / t.sector_ns - spt);
  const std::uint32_t slots = spt + static_cast<std::uint32_t>(std::max(0, spares));
  if (!spt || std::fabs(slots * t.sector_ns - in.rotation_ns) > kRotationAgreement * in.rotation_ns) {
    res.notes.push_back("track_to_track: the zone's track size was not told; not measured");
    return res;
  }
  if (!H) {
    // Without the tracks per cylinder a read cannot be aimed one cylinder on (the next track is a
    // head switch, which on many drives differs from the seek).
    res.notes.push_back("track_to_track: surfaces not told, so a one-cylinder move cannot be aimed; not measured");
    return res;
  }
  // The stream's own revolution (track size × sector time) is far more precise than the
  // rotation fit of the access test: it sets the slope of the sawtooth.
  const double rev_ms = spares >= 0 ? slots * t.sector_ns * 1e-6 : in.rotation_ns * 1e-6;
  // Only a revolution whose spares are known is more exact than the fit it came with.
  res.rotation_ns = spares >= 0 ? slots * t.sector_ns : 0;
  res.spares_per_track = spares;
  // Surfaces of their own density: the cylinder the stream fitted, not H mean tracks.
  const std::uint64_t cyl = t.cylinder_sectors && t.per_surface ? t.cylinder_sectors : static_cast<std::uint64_t>(spt) * H;
  const std::uint64_t need = (2 * (kCoarse + kFine) + 4) * cyl;
  const std::uint64_t start = std::max(p.end_lba, pc.end_lba) + 4 * cyl;
  std::uint64_t b = t.first_track_lba + ((start - std::min(start, t.first_track_lba)) / spt + 1) * spt;
  if (b + need > in.last_lba) {
    // Not enough room above the probe: go below it instead (the zone's first third).
    const std::uint64_t low = in.first_lba + 2 * cyl;
    if (low + need > loc || t.first_track_lba < low) {
      res.notes.push_back("track_to_track: the zone is too small for the sweep; not measured");
      return res;
    }
    b = t.first_track_lba - ((t.first_track_lba - low) / spt) * spt;
  }
  const std::uint64_t top = b + need - 2 * cyl;
  res.at_lba = top;
  Rng rng(in.seed * 31 + 7);
  std::vector<std::uint32_t> coarse;
  for (unsigned i = 0; i < kCoarse; ++i) coarse.push_back(static_cast<std::uint32_t>(i * spt / kCoarse));
  Sweep s1 = sweep(io, budget, top, cyl, spt, slots, coarse, rng);
  if (s1.err) {
    res.error = s1.err;
    return res;
  }
  SawtoothFoot f = sawtooth_foot(s1.samples, rev_ms);
  if (f.k_ms <= 0) {
    res.notes.push_back("track_to_track: the one-cylinder latencies do not follow the platter; not measured");
    return res;
  }
  // Fine sweep: the gap that holds the foot, a little wider on each side.
  std::vector<std::uint32_t> fine;
  const double w = f.hi - f.lo, a = f.lo - 0.1 * w;
  for (unsigned i = 0; i < kFine; ++i) {
    const double ph = frac(a + 1.2 * w * (i + 0.5) / kFine);
    fine.push_back(static_cast<std::uint32_t>(std::llround(ph * spt)) % spt);
  }
  Sweep s2 = sweep(io, budget, top - 2 * cyl * kCoarse, cyl, spt, slots, fine, rng);
  if (s2.err) res.error = s2.err;
  std::vector<PhaseSample> all = s1.samples;
  all.insert(all.end(), s2.samples.begin(), s2.samples.end());
  SawtoothFoot g = sawtooth_foot(all, rev_ms);
  if (g.k_ms > 0) f = g;
  const double sector_ms = rev_ms / slots;
  const double seek = f.k_ms - in.overhead_ms - sector_ms;
  if (seek <= 0 || seek >= rev_ms) {
    res.notes.push_back(fmt::format("track_to_track: the foot of the sweep ({:.3f} ms) leaves no seek "
                                    "after the overhead; not measured", f.k_ms));
    return res;
  }
  // 95 % half-width: where the foot can lie, the overhead's own uncertainty, one sector of
  // quantisation of the sweep.
  res.seek_ms = {seek, f.half_width_ms + in.overhead_uncertainty_ms + sector_ms / 2};
  return res;
}

}  // namespace ds::measure
