#include "tests/track_seek.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tests/stream_probe.hpp"

namespace ds::measure {

namespace {

// The track-to-track probe's parameters (docs/methods.md, "access").
struct TrackSeekTuning {
  int grid = 2000;  // candidate wrap phases per revolution
  unsigned coarse = 24;  // coarse sweep: one sample per 1/24 revolution
  unsigned fine = 16;  // fine sweep inside the coarse gap that holds the foot
  unsigned scan_coarse = 16;  // each offset of the surface scan: a coarser pair of sweeps
  unsigned scan_fine = 12;
  // Track offsets the scan tries when surfaces are not told: more than any drive has had (22
  // heads, 11 platters, in 2026).
  unsigned max_offset = 24;
  std::uint64_t random_pairs = 200;  // random one-cylinder moves (random_moves, edge_fit)
  std::size_t min_random_pairs = 24;
  double edge_outlier = 0.002;  // edge_fit: floor density, a share of a uniform over a revolution
  int edge_sigmas = 24;  // edge_fit: noise levels tried, 0 .. edge_max_sigma revolutions
  double edge_max_sigma = 0.12;
  double dip_separation = 1.5;  // a dip: below the median foot by 1.5× both half-widths
  double dip_scatter = 4;  // and by 4 robust deviations of the feet across offsets
  double min_inliers = 0.6;  // share of samples on the sawtooth for it to be believed
  double rotation_agreement = 0.03;  // the stream's revolution against the rotation fit
  std::size_t min_rising_feet = 8;  // feet a rise with the offset is judged on
  double rising_correlation = 0.6;  // their rank correlation with the offset
};
constexpr TrackSeekTuning kTuning{};

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
  std::vector<Candidate> c(kTuning.grid);
  int best = 0;
  for (int g = 0; g < kTuning.grid; ++g) {
    c[g] = try_wrap(s, rev_ms, static_cast<double>(g) / kTuning.grid, tol);
    best = std::max(best, c[g].inliers);
  }
  if (best < kTuning.min_inliers * static_cast<double>(s.size())) return f;
  // Every wrap phase that explains as many samples as the best one is possible: the foot lies
  // between the last sample before the drop and the first after it, and K follows the phase.
  double kmin = 1e30, kmax = -1e30, cost_min = 1e30;
  for (auto& x : c)
    if (x.inliers == best) cost_min = std::min(cost_min, x.cost);
  int lo = -1, hi = -1;
  for (int g = 0; g < kTuning.grid; ++g) {
    if (c[g].inliers != best || c[g].cost > cost_min + 0.5 * tol) continue;
    kmin = std::min(kmin, c[g].k);
    kmax = std::max(kmax, c[g].k);
    if (lo < 0) lo = g;
    hi = g;
  }
  f.k_ms = (kmin + kmax) / 2;
  f.half_width_ms = (kmax - kmin) / 2 + rev_ms / kTuning.grid;
  f.lo = static_cast<double>(lo) / kTuning.grid;
  f.hi = static_cast<double>(hi + 1) / kTuning.grid;
  // A set that wraps round phase 0 comes out as [0, 1): take the gap of the samples instead.
  if (f.hi - f.lo > 0.5) {
    f.lo = 0;
    f.hi = 1;
  }
  return f;
}

namespace {

// Where a sweep reads: sources at top, top − step, top − 2·step, …; each target `delta` sectors
// from its source (one cylinder up, or j tracks down in the surface scan).
struct Aim {
  std::uint64_t top = 0, step = 0;
  std::int64_t delta = 0;
};

// The zone's track as the sweeps see it.
struct Track {
  std::uint32_t spt = 0, slots = 0;  // logical sectors; sector slots a revolution passes (+ spares)
  int spares = 0;
  double rev_ms = 0;
};

struct Sweep {
  std::vector<PhaseSample> samples;
  std::optional<Error> err;
};

// Pairs (source at sector s of its track, target at sector s + d of its own track). A target whose
// index wraps past the track's last sector is d + spares slots on, not d: the spare slots of the
// track's end pass under the head first.
Sweep sweep(IoEngine& io, Budget& budget, const Aim& aim, const Track& tk,
            const std::vector<std::uint32_t>& offsets, Rng& rng) {
  std::vector<PlanEntry> plan;
  std::vector<double> phase;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const std::uint64_t b = aim.top - aim.step * i;
    const std::uint32_t s = static_cast<std::uint32_t>(rng.below(tk.spt));
    const bool wraps = s + offsets[i] >= tk.spt;
    plan.push_back({b + s, 1, false});
    plan.push_back({static_cast<std::uint64_t>(static_cast<std::int64_t>(b) + aim.delta) + (s + offsets[i]) % tk.spt, 1, false});
    phase.push_back(frac((offsets[i] + (wraps ? tk.spares : 0)) / static_cast<double>(tk.slots)));
  }
  RunOptions ro;
  RunResult r = run_plan(io, plan, ro, budget);
  Sweep sw;
  if (r.error && !budget_spent(r.error)) sw.err = r.error;
  for (std::size_t i = 0; i < offsets.size(); ++i)
    if (r.done[2 * i + 1] && r.done[2 * i]) sw.samples.push_back({phase[i], r.samples[2 * i + 1].latency_ms()});
  return sw;
}

struct FootRun {
  SawtoothFoot f;  // k_ms ≤ 0: no sawtooth
  std::optional<Error> err;
};

// A coarse sweep finds the gap of the wrap to 1/coarse of a revolution, a fine sweep of that gap
// (a little wider on each side) the foot inside it. The two use 2·(coarse + fine) reads below `top`.
FootRun find_foot(IoEngine& io, Budget& budget, Aim aim, const Track& tk, unsigned coarse, unsigned fine, Rng& rng) {
  FootRun out;
  std::vector<std::uint32_t> c;
  for (unsigned i = 0; i < coarse; ++i) c.push_back(static_cast<std::uint32_t>(i * tk.spt / coarse));
  Sweep s1 = sweep(io, budget, aim, tk, c, rng);
  out.err = s1.err;
  SawtoothFoot f = sawtooth_foot(s1.samples, tk.rev_ms);
  if (s1.err || f.k_ms <= 0) return out;
  std::vector<std::uint32_t> fn;
  const double w = f.hi - f.lo, a = f.lo - 0.1 * w;
  for (unsigned i = 0; i < fine; ++i) {
    const double ph = frac(a + 1.2 * w * (i + 0.5) / fine);
    fn.push_back(static_cast<std::uint32_t>(std::llround(ph * tk.spt)) % tk.spt);
  }
  aim.top -= aim.step * coarse;
  Sweep s2 = sweep(io, budget, aim, tk, fn, rng);
  out.err = s2.err;
  std::vector<PhaseSample> all = s1.samples;
  all.insert(all.end(), s2.samples.begin(), s2.samples.end());
  SawtoothFoot g = sawtooth_foot(all, tk.rev_ms);
  out.f = g.k_ms > 0 ? g : f;
  return out;
}

// The scan's step between sources, in tracks: at least 2, and no multiple of it equal to j, j − 1
// or j − 2, so that no source lies on a track an earlier target read, or read ahead into (up to two
// tracks above it).
std::uint64_t scan_step(unsigned j) {
  for (unsigned s = 2;; ++s) {
    bool ok = j % s != 0;
    for (unsigned q = 1; q <= 2 && q < j; ++q) ok &= (j - q) % s != 0;
    if (ok) return s;
  }
}

std::uint64_t scan_tracks(unsigned j) { return (kTuning.scan_coarse + kTuning.scan_fine) * scan_step(j) + j + 4; }

struct Scan {
  std::vector<SawtoothFoot> feet;  // feet[j − 1]: target j tracks below the source
  std::optional<Error> err;
};

// Surfaces not told: the one-cylinder move on the same head is among the offsets j = 1, 2, … (at
// j = H), each a head switch, a cylinder switch with one (max(seek, head switch)), or at j = H the
// one-cylinder seek alone. Each offset's foot
// from its own sweep, the regions one below the other from `top` down.
Scan scan_offsets(IoEngine& io, Budget& budget, std::uint64_t top, unsigned max_j, const Track& tk, Rng& rng) {
  Scan sc;
  for (unsigned j = 1; j <= max_j && !budget.exhausted(); ++j) {
    Aim aim{top, scan_step(j) * tk.spt, -static_cast<std::int64_t>(j) * tk.spt};
    FootRun fr = find_foot(io, budget, aim, tk, kTuning.scan_coarse, kTuning.scan_fine, rng);
    if (fr.err) {
      sc.err = fr.err;
      break;
    }
    if (budget.exhausted()) break;  // a sweep the budget cut short is not a foot
    sc.feet.push_back(fr.f);
    top -= scan_tracks(j) * tk.spt;
  }
  return sc;
}

// Without an aim: n moves from a random sector of a cylinder-sized stretch to a random sector of
// the stretch one cylinder on (a one-cylinder move whatever the surfaces' sizes), appended to `l`.
// A target that changes head costs the slower of the seek and the head switch, above the foot
// sought, so the targets are kept on the source's surface where that can be told: with `anchor`
// (a track start; the cylinder exact, so the same surface's track starts every `cyl` sectors)
// source and target lie in that surface's tracks, the target's place a whole revolution of
// sectors round from the source's (all but the few a shorter surface's end leaves over); without
// it, a revolution of targets centred on the source's place one cylinder on (about three in
// four on its surface). Sources descend two cylinders a move, as in the sweeps. The foot comes
// from edge_fit.
std::optional<Error> random_moves(IoEngine& io, Budget& budget, std::uint64_t top, std::uint64_t cyl,
                                  std::uint32_t spt, std::uint64_t n, Rng& rng, std::vector<double>& l,
                                  const std::uint64_t* anchor = nullptr) {
  std::vector<PlanEntry> plan;
  for (std::uint64_t i = 0; i < n; ++i) {
    // The target stays below the block of the previous source (whose read-ahead it would hit).
    const std::uint64_t base = top - 2 * cyl * i;
    if (anchor) {
      const auto diff = static_cast<std::int64_t>(base) - static_cast<std::int64_t>(*anchor);
      const std::int64_t k = diff >= 0 ? diff / static_cast<std::int64_t>(cyl) : -((-diff + static_cast<std::int64_t>(cyl) - 1) / static_cast<std::int64_t>(cyl));
      const auto a = static_cast<std::uint64_t>(static_cast<std::int64_t>(*anchor) + k * static_cast<std::int64_t>(cyl));
      const std::uint64_t u = rng.below(spt);
      plan.push_back({a + u, 1, false});
      plan.push_back({a + cyl + (u + rng.below(spt)) % spt, 1, false});
      continue;
    }
    const std::uint64_t x = base + spt / 2 + rng.below(cyl > 2 * spt ? cyl - 2 * spt : 1);
    plan.push_back({x, 1, false});
    plan.push_back({x + cyl - spt / 2 + rng.below(spt), 1, false});
  }
  RunResult r = run_plan(io, plan, RunOptions{}, budget);
  for (std::size_t i = 0; 2 * i + 1 < r.done.size(); ++i)
    if (r.done[2 * i] && r.done[2 * i + 1]) l.push_back(r.samples[2 * i + 1].latency_ms());
  if (r.error && !budget_spent(r.error)) return r.error;
  return std::nullopt;
}

// The foot of n random moves from `top` down (k_ms ≤ 0: fewer than kTuning.min_random_pairs completed).
FootRun random_move_foot(IoEngine& io, Budget& budget, std::uint64_t top, std::uint64_t cyl, std::uint32_t spt,
                         std::uint64_t n, double rev_ms, Rng& rng) {
  FootRun out;
  std::vector<double> l;
  out.err = random_moves(io, budget, top, cyl, spt, n, rng, l);
  if (l.size() >= kTuning.min_random_pairs) out.f = edge_fit(l, rev_ms);
  return out;
}

// The seek is the foot less the command overhead and one sector's media time. 95 % half-width:
// where the foot can lie, the overhead's own uncertainty, and a whole sector of quantisation: the
// head reads from the first sector start after the seek ends, so where within that sector the seek
// ended is not seen, and the foot's phase is read to a sector either way (on a noise-free drive
// the half-sector term left a steady 1.3 % offset outside the interval).
void set_seek(TrackSeekResult& res, const SawtoothFoot& f, const TrackSeekInput& in, const Track& tk) {
  const double sector_ms = tk.rev_ms / tk.slots;
  const double seek = f.k_ms - in.overhead_ms - sector_ms;
  if (seek <= 0 || seek >= tk.rev_ms) {
    res.notes.push_back(fmt::format("track_to_track: the foot of the sweep ({:.3f} ms) leaves no seek "
                                    "after the overhead; not measured", f.k_ms));
    return;
  }
  res.seek_ms = {seek, f.half_width_ms + in.overhead_uncertainty_ms + sector_ms};
}

// Surfaces of their own size (or a track the revolution does not confirm) with the surfaces told:
// the random one-cylinder moves above the streams, or below them where the zone ends first.
TrackSeekResult& unaimed(IoEngine& io, Budget& budget, const TrackSeekInput& in, const TrackStructure& t,
                         unsigned H, std::uint64_t probed_end, std::uint64_t probed_at, TrackSeekResult& res) {
  // The track size that makes one revolution; a stream that saw only the larger cylinder gaps
  // fits a cylinder as its "track".
  const double spt_rot = in.rotation_ns / t.sector_ns;
  const bool one_rev = t.sectors_per_track && std::fabs(t.sectors_per_track - spt_rot) <= kTuning.rotation_agreement * spt_rot;
  const auto spt = static_cast<std::uint32_t>(one_rev ? t.sectors_per_track : std::llround(spt_rot));
  // The stream's cylinder where it fitted one of H tracks, else H mean tracks (a few sectors
  // off at most: a target then still lands one cylinder on).
  const bool fitted = t.per_surface && t.cylinder_sectors && one_rev &&
                      std::llround(static_cast<double>(t.cylinder_sectors) / t.sectors_per_track) == H;
  const std::uint64_t cyl = fitted ? t.cylinder_sectors : std::uint64_t{spt} * H;
  // Room above the streams and below them, each a number of moves two cylinders apart.
  const std::uint64_t above = in.last_lba > probed_end + 6 * cyl ? (in.last_lba - probed_end - 6 * cyl) / (2 * cyl) : 0;
  const std::uint64_t low = in.first_lba + 2 * cyl;
  const std::uint64_t below = probed_at > low + 4 * cyl ? (probed_at - low - 4 * cyl) / (2 * cyl) : 0;
  // No more moves than the budget has room for (two revolutions each).
  const auto affordable = static_cast<std::uint64_t>(std::max(0.0, budget.left_s() / (2 * in.rotation_ns * 1e-9)));
  const std::uint64_t n_up = std::min({kTuning.random_pairs, above, affordable});
  const std::uint64_t n_down = std::min({kTuning.random_pairs - n_up, below, affordable - n_up});
  if (n_up + n_down < kTuning.min_random_pairs) {
    res.notes.push_back(affordable < kTuning.min_random_pairs
                            ? "track_to_track: too little drive time left for the random moves; not measured"
                            : "track_to_track: the zone is too small for the random moves; not measured");
    return res;
  }
  Rng rng(in.seed * 31 + 11);
  const Track tk{spt, spt, 0, in.rotation_ns * 1e-6};
  std::vector<double> l;
  // A track start the cylinder repeats (the stream's, where it fitted the cylinder exactly).
  const std::uint64_t* anchor = fitted && t.sectors_per_track ? &t.first_track_lba : nullptr;
  if (n_up) res.error = random_moves(io, budget, probed_end + 2 * cyl + 2 * cyl * n_up, cyl, spt, n_up, rng, l, anchor);
  if (n_down && !res.error) res.error = random_moves(io, budget, probed_at - 4 * cyl, cyl, spt, n_down, rng, l, anchor);
  res.at_lba = n_up ? probed_end + 4 * cyl : probed_at - 4 * cyl;
  if (l.size() < kTuning.min_random_pairs) {
    if (!res.error) res.notes.push_back("track_to_track: too few random moves completed; not measured");
    return res;
  }
  res.notes.push_back(fmt::format("track_to_track: from the edges of {} random one-cylinder moves' latencies ({})",
                                  l.size(), t.per_surface ? "surfaces of their own track size" : "the track size not exact"));
  set_seek(res, edge_fit(l, tk.rev_ms), in, tk);
  return res;
}

}  // namespace

std::uint32_t pin_track_size(std::uint64_t start_a, std::uint64_t start_b, std::uint32_t spt,
                             double uncertainty, std::uint32_t tol) {
  const std::uint64_t dist = start_a > start_b ? start_a - start_b : start_b - start_a;
  const auto u = static_cast<std::uint32_t>(std::ceil(uncertainty)) + 1;
  std::uint32_t best = 0, fits = 0;
  for (std::uint32_t c = spt > u ? spt - u : 1; c <= spt + u; ++c) {
    const std::uint64_t r = dist % c;
    if (std::min<std::uint64_t>(r, c - r) <= tol) {
      ++fits;
      if (!best || std::llabs(static_cast<long long>(c) - spt) < std::llabs(static_cast<long long>(best) - spt)) best = c;
    }
  }
  return fits == 1 ? best : 0;
}

namespace {

// Log-likelihood of the latencies for a foot K, maximised over the noise σ.
double edge_profile(const std::vector<double>& l, double rev_ms, double K, double floor, double dk) {
  double best = -1e300;
  for (int js = 0; js <= kTuning.edge_sigmas; ++js) {
    const double sg = std::max(0.5 * dk, kTuning.edge_max_sigma * rev_ms * js / kTuning.edge_sigmas) * std::sqrt(2.0);
    double ll = 0;
    for (double x : l) {
      const double dens = 0.5 * (std::erfc(-(x - K) / sg) - std::erfc(-(x - K - rev_ms) / sg)) / rev_ms;
      ll += std::log(dens + floor);
    }
    best = std::max(best, ll);
  }
  return best;
}

}  // namespace

SawtoothFoot edge_fit(const std::vector<double>& l, double rev_ms) {
  SawtoothFoot f;
  if (l.size() < 8 || rev_ms <= 0) return f;
  // The search starts from a low quantile, not the lowest latency: that may be a cache hit.
  std::vector<double> c = l;
  std::nth_element(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(c.size() / 20), c.end());
  const double k0 = c[c.size() / 20] - 0.3 * rev_ms;
  // Latencies far outside both edges (a stall, a remapped sector, a two-cylinder move) get a
  // floor density instead of none: they must not pull the edges.
  const double floor = kTuning.edge_outlier / rev_ms;
  const double dk = rev_ms / kTuning.grid;
  const int nk = static_cast<int>(0.4 * kTuning.grid);
  // Coarse steps of 8 grid points, then every point around the coarse interval.
  std::vector<double> profile(nk, -1e300);
  double best = -1e300;
  for (int i = 0; i < nk; i += 8) best = std::max(best, profile[i] = edge_profile(l, rev_ms, k0 + i * dk, floor, dk));
  int a = nk, b = -1;
  for (int i = 0; i < nk; i += 8)
    if (profile[i] >= best - 1.92 - 2) {
      a = std::min(a, i);
      b = std::max(b, i);
    }
  for (int i = std::max(0, a - 8); i <= std::min(nk - 1, b + 8); ++i)
    if (i % 8) best = std::max(best, profile[i] = edge_profile(l, rev_ms, k0 + i * dk, floor, dk));
  // The profile likelihood's 95 % interval: within χ²₁(0.95)/2 = 1.92 of its top.
  a = nk;
  b = -1;
  for (int i = 0; i < nk; ++i)
    if (profile[i] >= best - 1.92) {
      a = std::min(a, i);
      b = std::max(b, i);
    }
  const double ka = k0 + a * dk, kb = k0 + b * dk;
  f.k_ms = (ka + kb) / 2;
  f.half_width_ms = (kb - ka) / 2 + dk;
  return f;
}

namespace {

// No offset dips alone: the comb of every multiple of H (H, 2H, … as far as the scan went, at
// least two), each below the median foot by its resolution, and their mean below it by the
// scatter test's 4 deviations scaled to the mean of that many feet. The least such H.
void comb_dip(const std::vector<SawtoothFoot>& feet, double scatter, DipFinding& d) {
  for (std::size_t H = 2; 2 * H <= feet.size(); ++H) {
    double sum = 0;
    unsigned n = 0;
    bool all = true;
    for (std::size_t j = H; j <= feet.size(); j += H) {
      const auto& f = feet[j - 1];
      all &= f.k_ms > 0 && f.k_ms < d.k_mode_ms - kTuning.dip_separation * (f.half_width_ms + d.hw_mode_ms);
      sum += f.k_ms;
      ++n;
    }
    const double thr = kTuning.dip_scatter * scatter / std::sqrt(static_cast<double>(n));
    if (all && n >= 2 && sum / n < d.k_mode_ms - thr) {
      d.offset = static_cast<unsigned>(H);
      d.dips = n;
      d.offset_dips = true;
      d.dip_threshold_ms = thr;
      return;
    }
  }
}

}  // namespace

DipFinding find_dip(const std::vector<SawtoothFoot>& feet) {
  DipFinding d;
  std::vector<double> k, hw;
  for (auto& f : feet)
    if (f.k_ms > 0) {
      k.push_back(f.k_ms);
      hw.push_back(f.half_width_ms);
    }
  if (k.size() < 3) return d;
  d.k_mode_ms = median(k);
  d.hw_mode_ms = median(hw);
  // The feet's own scatter across offsets (most of them are the same switch): host latency and
  // overhead jitter move a foot by more than its resolution says.
  const double scatter = robust_sigma(k);
  auto threshold = [&](const SawtoothFoot& f) {
    return std::max(kTuning.dip_separation * (f.half_width_ms + d.hw_mode_ms), kTuning.dip_scatter * scatter);
  };
  // Every offset that clears its threshold dips. The move H tracks on is the one-cylinder seek on
  // the same head, but so are 2H, 3H … tracks on seeks alone (2, 3 … cylinders), and they dip too
  // wherever those seeks are still faster than the head switch: H is their greatest common
  // divisor, not the lowest foot (which noise may put at 2H).
  unsigned g = 0;
  for (std::size_t j = 0; j < feet.size(); ++j) {
    const auto& f = feet[j];
    if (f.k_ms <= 0) continue;
    const double thr = threshold(f);
    d.threshold_ms = std::max(d.threshold_ms, thr);
    if (f.k_ms < d.k_mode_ms - thr) {
      g = std::gcd(g, static_cast<unsigned>(j + 1));
      ++d.dips;
    }
  }
  d.offset = g;
  d.offset_dips = g && feet[g - 1].k_ms > 0 && feet[g - 1].k_ms < d.k_mode_ms - threshold(feet[g - 1]);
  if (!g) comb_dip(feet, scatter, d);
  if (g && feet[g - 1].k_ms > 0) d.dip_threshold_ms = threshold(feet[g - 1]);
  else if (g) d.dip_threshold_ms = std::max(kTuning.dip_separation * 2 * d.hw_mode_ms, kTuning.dip_scatter * scatter);
  return d;
}

namespace {

// The zone's own layout, from a stream at a third of it (or another place clear of the ranges
// to avoid) and a second stream after it.
struct ZoneLayout {
  TrackStructure t;
  std::uint64_t loc = 0, probed_end = 0;
  bool open_size = false;  // the streams leave the track size open by a sector or more
  bool ok = false;
};

ZoneLayout probe_zone(IoEngine& io, const TrackSeekInput& in, Budget& budget, TrackSeekResult& res) {
  ZoneLayout z;
  const std::uint64_t zlen = in.last_lba - in.first_lba;
  bool clear = false;
  for (double at : {1.0 / 3, 2.0 / 3, 1.0 / 6, 0.5, 5.0 / 6}) {
    z.loc = in.first_lba + static_cast<std::uint64_t>(at * static_cast<double>(zlen));
    const std::uint64_t hi = z.loc + zlen / 6;
    clear = true;
    for (auto& [f, l] : in.avoid) clear &= l < z.loc || f > hi;
    if (clear) break;
  }
  if (!clear) {
    res.notes.push_back("track_to_track: no place in the zone clear of slow regions; not measured");
    return z;
  }
  ProbeChoice pc = choose_stream(io, z.loc, budget, {.queue_depth = 8, .end_lba = in.last_lba});
  if (!pc.blocks) {
    res.notes.push_back("track_to_track: no track structure found in the zone; not measured");
    return z;
  }
  StreamProbe p = probe_stream(io, pc.end_lba, pc.blocks, budget,
                               {.max_s = 0.3, .queue_depth = 8, .want_cyl_switches = 2, .end_lba = in.last_lba,
                                .surfaces_hint = in.surfaces});
  z.t = p.t.sectors_per_track ? p.t : pc.t;
  z.probed_end = std::max(p.end_lba, pc.end_lba);
  z.ok = true;
  // The track size, an integer, one stream's boundaries may leave a sector or two open; over the
  // hundreds of tracks a sweep spans, one sector a track puts targets on other tracks. The two
  // streams' track starts, tens of tracks apart, are a whole number of tracks apart for one size.
  if (p.t.sectors_per_track && pc.t.sectors_per_track && !z.t.per_surface) {
    const std::uint32_t tol = std::max(4u, z.t.sectors_per_track / 100);
    const std::uint32_t pinned = pin_track_size(p.t.first_track_lba, pc.t.first_track_lba, z.t.sectors_per_track,
                                                std::max(p.t.spt_uncertainty, pc.t.spt_uncertainty), tol);
    if (pinned && pinned != z.t.sectors_per_track) {
      res.notes.push_back(fmt::format("track_to_track: track size {} from the two streams' track starts", pinned));
      z.t.sectors_per_track = pinned;
      z.t.first_track_lba = p.t.sectors_per_track ? p.t.first_track_lba : pc.t.first_track_lba;
    } else if (!pinned && z.t.spt_uncertainty >= 0.5) {
      res.notes.push_back("track_to_track: the streams leave the track size open by a sector or more");
      z.open_size = true;
    }
  }
  return z;
}

// Surfaces told and the track exact: the aimed one-cylinder sweep from `top` down; where it shows
// no sawtooth, random moves below `b` (the sweep's bottom), which need no aim.
void cylinder_sweep(IoEngine& io, Budget& budget, const TrackSeekInput& in, const Track& tk, std::uint64_t b,
                    std::uint64_t top, std::uint64_t cyl, Rng& rng, TrackSeekResult& res) {
  res.at_lba = top;
  FootRun fr = find_foot(io, budget, {top, 2 * cyl, static_cast<std::int64_t>(cyl)}, tk, kTuning.coarse, kTuning.fine, rng);
  res.error = fr.err;
  if (fr.f.k_ms > 0) {
    set_seek(res, fr.f, in, tk);
    return;
  }
  if (fr.err) return;
  res.notes.push_back("track_to_track: the aimed sweep shows no sawtooth; random one-cylinder moves instead");
  const std::uint64_t low = in.first_lba + 2 * cyl;
  const std::uint64_t n = b > low + 4 * cyl ? std::min<std::uint64_t>(kTuning.random_pairs, (b - low - 2 * cyl) / (2 * cyl)) : 0;
  if (n < kTuning.min_random_pairs) {
    res.notes.push_back("track_to_track: no room in the zone for the random moves; not measured");
    return;
  }
  const FootRun lw = random_move_foot(io, budget, b - 2 * cyl, cyl, tk.spt, n, tk.rev_ms, rng);
  res.error = lw.err;
  if (lw.f.k_ms > 0) set_seek(res, lw.f, in, tk);
  else if (!lw.err) res.notes.push_back("track_to_track: too few random moves completed; not measured");
}

// One offset out of 24 below the rest may be chance: the dip and its neighbour again, at full
// resolution, below `at` (what the scan read). Returns the dip's new foot, or k_ms 0 when the
// re-measure does not confirm it.
SawtoothFoot confirm_dip(IoEngine& io, Budget& budget, const TrackSeekInput& in, const Track& tk, std::uint64_t at,
                         unsigned D, double scan_threshold, Rng& rng) {
  const unsigned nb = D > 1 ? D - 1 : D + 1;
  const std::uint64_t low = in.first_lba + 2 * tk.spt;
  const std::uint64_t span_d = (kTuning.coarse + kTuning.fine) * scan_step(D) + D + 4;
  const std::uint64_t span_n = (kTuning.coarse + kTuning.fine) * scan_step(nb) + nb + 4;
  if (at <= low + (span_d + span_n) * tk.spt) return {};
  FootRun a = find_foot(io, budget, {at, scan_step(D) * tk.spt, -static_cast<std::int64_t>(D) * tk.spt}, tk, kTuning.coarse,
                        kTuning.fine, rng);
  if (a.err || a.f.k_ms <= 0) return {};
  at -= span_d * tk.spt;
  FootRun c = find_foot(io, budget, {at, scan_step(nb) * tk.spt, -static_cast<std::int64_t>(nb) * tk.spt}, tk, kTuning.coarse,
                        kTuning.fine, rng);
  const double thr = kTuning.dip_separation * (a.f.half_width_ms + c.f.half_width_ms);
  if (c.f.k_ms <= 0 || a.f.k_ms >= c.f.k_ms - std::max(thr, scan_threshold / 2)) return {};
  return a.f;
}

// The surfaces H told by the scan: the move to the same head one cylinder on measured again at
// the full resolution of an aimed sweep (24 + 16 pairs, as where the surfaces are told), below
// `at` (what the scan read) where the zone has room; else the scan's own foot `scan`.
SawtoothFoot same_head_sweep(IoEngine& io, Budget& budget, const TrackSeekInput& in, const Track& tk, std::uint64_t at,
                             unsigned H, const SawtoothFoot& scan, Rng& rng) {
  const std::uint64_t cyl = std::uint64_t{tk.spt} * H;
  const std::uint64_t need = (2 * (kTuning.coarse + kTuning.fine) + 4) * cyl;
  if (at <= in.first_lba + 2 * cyl + need) return scan;
  FootRun fr = find_foot(io, budget, {at - 2 * cyl, 2 * cyl, static_cast<std::int64_t>(cyl)}, tk, kTuning.coarse,
                         kTuning.fine, rng);
  return fr.err || fr.f.k_ms <= 0 ? scan : fr.f;
}

// Feet that rise with the offset from the first on, the first the lowest: j tracks down are j
// cylinders, the seek curve itself (a surface-serpentine band, or a drive with one surface). In a
// cylinder layout the first H − 1 offsets are head switches alike, and the H-th the dip.
bool rising_feet(const std::vector<SawtoothFoot>& feet) {
  std::vector<double> j, k;
  for (std::size_t i = 0; i < feet.size(); ++i)
    if (feet[i].k_ms > 0) j.push_back(static_cast<double>(i + 1)), k.push_back(feet[i].k_ms);
  if (k.size() < kTuning.min_rising_feet || feet[0].k_ms <= 0 || feet[1].k_ms <= 0) return false;
  for (std::size_t i = 1; i < feet.size(); ++i)
    if (feet[i].k_ms > 0 && feet[i].k_ms < feet.front().k_ms - feet.front().half_width_ms) return false;
  // Rising from the first step on: a cylinder layout whose one-cylinder seek outlasts a head
  // switch rises too, but only at offset H (step_up below).
  if (feet[1].k_ms - feet[0].k_ms <= kTuning.dip_separation * (feet[0].half_width_ms + feet[1].half_width_ms)) return false;
  return rank_correlation(j, k) >= kTuning.rising_correlation;
}

// Offsets 1 .. H − 1 alike (head switches), then a step up that holds from offset H (the move to
// the same head one cylinder on) to 2H − 1 (one cylinder and a head switch): a cylinder layout
// whose one-cylinder seek outlasts its head switch. The step must clear the feet's resolution
// and the spread of the flat part. Returns H (at least 3: with H = 2 the first offset alone is
// the flat part, and a serpentine band's rise looks the same), or 0.
unsigned step_up(const std::vector<SawtoothFoot>& feet) {
  const std::size_t n = feet.size();
  for (std::size_t p = 2; p + 2 < n; ++p) {  // p flat offsets; the step at offset p + 1
    double lo = 1e300, hi = -1e300, hw_a = 0, lo_b = 1e300, hw_b = 0;
    bool all = true;
    for (std::size_t i = 0; i < p; ++i) {
      all &= feet[i].k_ms > 0;
      lo = std::min(lo, feet[i].k_ms), hi = std::max(hi, feet[i].k_ms), hw_a = std::max(hw_a, feet[i].half_width_ms);
    }
    const std::size_t end = std::min(n, 2 * (p + 1) - 1);  // offsets H .. 2H − 1
    for (std::size_t i = p; i < end; ++i) {
      all &= feet[i].k_ms > 0;
      lo_b = std::min(lo_b, feet[i].k_ms), hw_b = std::max(hw_b, feet[i].half_width_ms);
    }
    const double step = lo_b - hi;
    if (all && end - p >= 2 && step > kTuning.dip_separation * (hw_a + hw_b) && step > hi - lo) return static_cast<unsigned>(p + 1);
  }
  return 0;
}

// Surfaces not told: the feet of the moves to the next 24 tracks, from `top` down.
void offset_scan(IoEngine& io, Budget& budget, const TrackSeekInput& in, const Track& tk, std::uint64_t top,
                 unsigned max_j, Rng& rng, TrackSeekResult& res) {
  res.at_lba = top;
  Scan sc = scan_offsets(io, budget, top, max_j, tk, rng);
  res.error = sc.err;
  DipFinding d = find_dip(sc.feet);
  if (!d.k_mode_ms) {
    res.notes.push_back("track_to_track: the track-offset scan found no sawtooth; not measured");
    return;
  }
  std::uint64_t at = top;  // below what the scan read
  for (unsigned j = 1; j <= sc.feet.size(); ++j) at -= scan_tracks(j) * tk.spt;
  // The move to the next track, measured again at full resolution where the zone has room, else
  // the scan's own foot.
  auto next_track = [&] {
    SawtoothFoot f = sc.feet.front();
    const std::uint64_t low = in.first_lba + 2 * tk.spt;
    if (at > low + (kTuning.coarse + kTuning.fine + 4) * scan_step(1) * tk.spt) {
      FootRun a = find_foot(io, budget, {at, scan_step(1) * tk.spt, -static_cast<std::int64_t>(tk.spt)}, tk, kTuning.coarse,
                            kTuning.fine, rng);
      if (a.err) res.error = a.err;
      if (a.f.k_ms > 0) f = a.f;
    }
    return f;
  };
  if (const unsigned H = d.offset ? 0 : step_up(sc.feet)) {
    // The moves from H tracks on are the one-cylinder seek (with or without a head switch).
    std::vector<SawtoothFoot> b(sc.feet.begin() + H - 1, sc.feet.begin() + std::min<std::size_t>(sc.feet.size(), 2 * H - 1));
    std::sort(b.begin(), b.end(), [](const SawtoothFoot& x, const SawtoothFoot& y) { return x.k_ms < y.k_ms; });
    res.surfaces = H;
    res.surfaces_found = true;
    res.notes.push_back(fmt::format("track_to_track: surfaces not told by the stream; of track offsets 1..{} the first "
                                    "{} cost the same and the moves from {} tracks down cost more ({:.3f} vs {:.3f} ms): "
                                    "one cylinder on, {} surfaces", sc.feet.size(), H - 1, H, b[b.size() / 2].k_ms,
                                    sc.feet.front().k_ms, H));
    set_seek(res, b[b.size() / 2], in, tk);
    return;
  }
  if (rising_feet(sc.feet)) {
    // The move to the next track is the one-cylinder seek.
    const SawtoothFoot f = next_track();
    res.notes.push_back(fmt::format("track_to_track: surfaces not told; the moves 1..{} tracks down cost more the "
                                    "farther they go ({:.3f} to {:.3f} ms): each track is a cylinder on from the last "
                                    "(a surface-serpentine layout, or one surface), so the move to the next track is "
                                    "the one-cylinder seek", sc.feet.size(), sc.feet.front().k_ms, sc.feet.back().k_ms));
    set_seek(res, f, in, tk);
    return;
  }
  if (d.offset) {
    // The offset and a multiple of it both dip, each in its own sweep and place: the prediction
    // of a same-head move, replicated, and chance does not put two dips in that ratio. A lone dip
    // is measured again against its neighbour.
    const SawtoothFoot f = d.offset_dips && d.dips >= 2 ? same_head_sweep(io, budget, in, tk, at, d.offset, sc.feet[d.offset - 1], rng)
                                                        : confirm_dip(io, budget, in, tk, at, d.offset, d.dip_threshold_ms, rng);
    if (f.k_ms > 0) {
      res.surfaces = d.offset;
      res.surfaces_found = true;
      res.notes.push_back(fmt::format("track_to_track: surfaces not told by the stream; of track offsets 1..{} the "
                                      "move {} tracks down costs less than the rest ({:.3f} vs {:.3f} ms; {} offsets dip, "
                                      "all multiples of it): the same head one cylinder on, {} surfaces",
                                      sc.feet.size(), d.offset, f.k_ms, d.k_mode_ms, d.dips, d.offset));
      set_seek(res, f, in, tk);
      return;
    }
  }
  if (sc.feet.size() < 12) {
    res.notes.push_back(fmt::format("track_to_track: surfaces not told and only {} track offsets scanned; not measured",
                                    sc.feet.size()));
    return;
  }
  // Every offset costs the same: the move H tracks on (the one-cylinder seek on the same head)
  // dips below the head switches by no more than the scan could tell, nor rises above them. The
  // move to the next track is then the figure: a head switch in a cylinder layout (the same
  // cost), the one-cylinder seek in a serpentine band, where the feet rise with the offset but
  // too gently for the scan to tell (the median foot, taken here once, was the seek of ten
  // cylinders there: 15-19 % high).
  res.notes.push_back(fmt::format("track_to_track: surfaces not told; track offsets 1..{} all cost the same ({:.3f} ms): "
                                  "a move to the next cylinder costs what a head switch does", sc.feet.size(), d.k_mode_ms));
  SawtoothFoot f = next_track();
  f.half_width_ms += d.threshold_ms;
  set_seek(res, f, in, tk);
}

}  // namespace

TrackSeekResult measure_track_to_track(IoEngine& io, const TrackSeekInput& in, Budget& budget) {
  TrackSeekResult res;
  if (in.rotation_ns <= 0 || in.last_lba <= in.first_lba) return res;
  const ZoneLayout z = probe_zone(io, in, budget, res);
  if (!z.ok) return res;
  const TrackStructure& t = z.t;
  const std::uint32_t spt = t.sectors_per_track;
  res.sectors_per_track = spt;
  // Sector slots a revolution passes: the logical sectors and the track's spares. Told by the
  // transfer test, or else what the rotation fit leaves over the track size, when that is close
  // to a whole number (the fit is good to a fraction of a sector on the drives measured here).
  int spares = in.spares_per_track;
  if (spares < 0 && spt && t.sector_ns > 0) spares = whole_spares(in.rotation_ns / t.sector_ns - spt);
  const std::uint32_t slots = spt + static_cast<std::uint32_t>(std::max(0, spares));
  const unsigned H = in.surfaces ? in.surfaces : t.surfaces;
  res.surfaces = H;
  // A sweep is aimed by sector: it needs the track exact (size, spares, starts at multiples of
  // one size). Surfaces of their own size, or a track size that does not make the revolution,
  // leave only the random one-cylinder moves (random_moves, edge_fit), which need no aim.
  const bool aimed = spt && !t.per_surface && !z.open_size &&
                     std::fabs(slots * t.sector_ns - in.rotation_ns) <= kTuning.rotation_agreement * in.rotation_ns;
  if (!aimed) {
    if (H && t.sector_ns > 0) return unaimed(io, budget, in, t, H, z.probed_end, z.loc, res);
    res.notes.push_back(!spt ? "track_to_track: the zone's track size was not told; not measured"
                             : "track_to_track: surfaces not told and the track size not exact; not measured");
    return res;
  }
  // The stream's own revolution (track size × sector time) is far more precise than the
  // rotation fit of the access test: it sets the slope of the sawtooth.
  Track tk{spt, slots, std::max(0, spares), spares >= 0 ? slots * t.sector_ns * 1e-6 : in.rotation_ns * 1e-6};
  // Only a revolution whose spares are known is more exact than the fit it came with.
  res.rotation_ns = spares >= 0 ? slots * t.sector_ns : 0;
  res.spares_per_track = spares;
  const std::uint64_t cyl = static_cast<std::uint64_t>(spt) * H;
  std::uint64_t need = (2 * (kTuning.coarse + kTuning.fine) + 4) * cyl;
  unsigned max_j = 0;
  if (!H) {
    max_j = kTuning.max_offset;
    need = 0;
    for (unsigned j = 1; j <= max_j; ++j) need += scan_tracks(j) * spt;
  }
  const std::uint64_t start = z.probed_end + 4 * std::max<std::uint64_t>(cyl, 4 * spt);
  std::uint64_t b = t.first_track_lba + ((start - std::min(start, t.first_track_lba)) / spt + 1) * spt;
  if (b + need > in.last_lba) {
    // Not enough room above the probe: go below it instead (the zone's first part).
    const std::uint64_t low = in.first_lba + 2 * std::max<std::uint64_t>(cyl, 4 * spt);
    if (t.first_track_lba < low) b = in.last_lba;
    else b = t.first_track_lba - ((t.first_track_lba - low) / spt) * spt;
    // The scan looks at as many offsets as the room allows (at least 12: more surfaces than most
    // drives have).
    while (max_j > 12 && b + need > std::min(z.loc, in.last_lba)) need -= scan_tracks(max_j--) * spt;
    if (b + need > std::min(z.loc, in.last_lba)) {
      res.notes.push_back("track_to_track: the zone is too small for the sweep; not measured");
      return res;
    }
  }
  Rng rng(in.seed * 31 + 7);
  if (H) cylinder_sweep(io, budget, in, tk, b, b + need - 2 * cyl, cyl, rng, res);
  else offset_scan(io, budget, in, tk, b + need - 4 * spt, max_j, rng, res);
  return res;
}

}  // namespace ds::measure
