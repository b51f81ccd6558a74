#include "tests/track_seek.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tests/result_keys.hpp"
#include "tests/stream_probe.hpp"
#include "tests/surface_scan.hpp"
#include "tests/track_sweep.hpp"

namespace ds::measure {

using t2t::Aim;
using t2t::find_foot;
using t2t::FootRun;
using t2t::frac;
using t2t::kTuning;
using t2t::set_seek;
using t2t::Track;

namespace {

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

}  // namespace

// A coarse sweep finds the gap of the wrap to 1/coarse of a revolution, a fine sweep of that gap
// (a little wider on each side) the foot inside it. The two use 2·(coarse + fine) reads below `top`.
FootRun t2t::find_foot(IoEngine& io, Budget& budget, Aim aim, const Track& tk, unsigned coarse, unsigned fine, Rng& rng) {
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

namespace {

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

}  // namespace

// The seek is the foot less the command overhead and one sector's media time. 95 % half-width:
// where the foot can lie, the overhead's own uncertainty, and a whole sector of quantisation: the
// head reads from the first sector start after the seek ends, so where within that sector the seek
// ended is not seen, and the foot's phase is read to a sector either way (on a noise-free drive
// the half-sector term left a steady 1.3 % offset outside the interval).
void t2t::set_seek(TrackSeekResult& res, const SawtoothFoot& f, const TrackSeekInput& in, const Track& tk) {
  const double sector_ms = tk.rev_ms / tk.slots;
  const double seek = f.k_ms - in.overhead_ms - sector_ms;
  if (seek <= 0 || seek >= tk.rev_ms) {
    res.withheld.push_back({key::access::track_to_track_ms, WithheldReason::t2t_foot_no_seek, {{"foot_ms", f.k_ms}}});
    return;
  }
  res.seek_ms = {seek, f.half_width_ms + in.overhead_uncertainty_ms + sector_ms};
}

namespace {

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
    res.withheld.push_back({key::access::track_to_track_ms, affordable < kTuning.min_random_pairs
                                                              ? WithheldReason::t2t_no_time_for_moves
                                                              : WithheldReason::t2t_no_room_for_moves});
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
    if (!res.error) res.withheld.push_back({key::access::track_to_track_ms, WithheldReason::t2t_too_few_moves});
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
    res.withheld.push_back({key::access::track_to_track_ms, WithheldReason::t2t_no_clear_place});
    return z;
  }
  ProbeChoice pc = choose_stream(io, z.loc, budget, {.queue_depth = 8, .end_lba = in.last_lba});
  if (!pc.blocks) {
    res.withheld.push_back({key::access::track_to_track_ms, WithheldReason::t2t_no_track_structure});
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
    res.withheld.push_back({key::access::track_to_track_ms, WithheldReason::t2t_no_room_for_moves});
    return;
  }
  const FootRun lw = random_move_foot(io, budget, b - 2 * cyl, cyl, tk.spt, n, tk.rev_ms, rng);
  res.error = lw.err;
  if (lw.f.k_ms > 0) set_seek(res, lw.f, in, tk);
  else if (!lw.err) res.withheld.push_back({key::access::track_to_track_ms, WithheldReason::t2t_too_few_moves});
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
    res.withheld.push_back({key::access::track_to_track_ms,
                            !spt ? WithheldReason::t2t_track_size_untold : WithheldReason::t2t_track_inexact});
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
    for (unsigned j = 1; j <= max_j; ++j) need += t2t::scan_tracks(j) * spt;
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
    while (max_j > 12 && b + need > std::min(z.loc, in.last_lba)) need -= t2t::scan_tracks(max_j--) * spt;
    if (b + need > std::min(z.loc, in.last_lba)) {
      res.withheld.push_back({key::access::track_to_track_ms, WithheldReason::t2t_zone_too_small});
      return res;
    }
  }
  Rng rng(in.seed * 31 + 7);
  if (H) cylinder_sweep(io, budget, in, tk, b, b + need - 2 * cyl, cyl, rng, res);
  else t2t::offset_scan(io, budget, in, tk, b + need - 4 * spt, max_j, rng, res);
  return res;
}

}  // namespace ds::measure
