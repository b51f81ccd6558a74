#include "tests/structure.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "tests/common.hpp"
#include "tests/structure_detail.hpp"

namespace ds::measure {

double two_cluster_threshold(std::vector<double> v, double min_rel_separation) {
  if (v.size() < 2) return -1;
  std::sort(v.begin(), v.end());
  std::size_t best = 0;
  double best_jump = -1;
  for (std::size_t k = 1; k < v.size(); ++k) {
    double j = v[k] - v[k - 1];
    if (j > best_jump) {
      best_jump = j;
      best = k;
    }
  }
  std::span<const double> lo(v.data(), best), hi(v.data() + best, v.size() - best);
  double spread = std::max(stddev(lo), stddev(hi));
  double scale = std::max(std::fabs(v.back()), 1e-12);
  if (best_jump < min_rel_separation * scale || best_jump < 4 * spread) return -1;
  return (v[best - 1] + v[best]) / 2;
}

std::uint32_t fit_period(std::span<const std::int64_t> pos_lo, std::span<const std::int64_t> pos_hi,
                         std::span<const std::int64_t> k, std::uint32_t lo, std::uint32_t hi,
                         std::int64_t* base, std::uint32_t* range) {
  std::uint32_t first = 0, last = 0;
  std::int64_t first_base = 0;
  for (std::uint32_t p = std::max<std::uint32_t>(lo, 1); p <= hi; ++p) {
    std::int64_t b_lo = INT64_MIN, b_hi = INT64_MAX;
    for (std::size_t j = 0; j < k.size(); ++j) {
      b_lo = std::max(b_lo, pos_lo[j] - k[j] * static_cast<std::int64_t>(p));
      b_hi = std::min(b_hi, pos_hi[j] - k[j] * static_cast<std::int64_t>(p));
    }
    if (b_lo <= b_hi) {
      if (!first) {
        first = p;
        first_base = b_lo;
      }
      last = p;
    }
  }
  if (!first) return 0;
  std::uint32_t mid = first + (last - first) / 2;
  if (base) {
    // Recompute the base for the chosen period.
    std::int64_t b_lo = INT64_MIN;
    for (std::size_t j = 0; j < k.size(); ++j)
      b_lo = std::max(b_lo, pos_lo[j] - k[j] * static_cast<std::int64_t>(mid));
    *base = mid == first ? first_base : b_lo;
  }
  if (range) *range = last - first;
  return mid;
}

std::uint32_t fit_period_consensus(std::span<const std::int64_t> pos_lo, std::span<const std::int64_t> pos_hi,
                                   std::span<const std::int64_t> k, std::uint32_t lo, std::uint32_t hi,
                                   std::size_t min_fit, std::int64_t* base, std::uint32_t* range) {
  std::size_t best = 0;
  std::uint32_t first = 0, last = 0;
  std::int64_t first_base = 0;
  std::vector<std::pair<std::int64_t, int>> ev;
  for (std::uint32_t p = std::max<std::uint32_t>(lo, 1); p <= hi; ++p) {
    // The most boundaries one base admits: the deepest overlap of their base intervals.
    ev.clear();
    for (std::size_t j = 0; j < k.size(); ++j) {
      ev.emplace_back(pos_lo[j] - k[j] * static_cast<std::int64_t>(p), -1);  // opens before it closes
      ev.emplace_back(pos_hi[j] - k[j] * static_cast<std::int64_t>(p), +1);
    }
    std::sort(ev.begin(), ev.end());
    std::size_t depth = 0, deepest = 0;
    std::int64_t at = 0;
    for (auto& [x, e] : ev) {
      if (e < 0 && ++depth > deepest) {
        deepest = depth;
        at = x;
      } else if (e > 0) {
        --depth;
      }
    }
    if (deepest > best) {
      best = deepest;
      first = last = p;
      first_base = at;
    } else if (deepest == best && best && p == last + 1) {
      last = p;
    }
  }
  if (best < min_fit || !first) return 0;
  if (range) *range = last - first;
  if (base) *base = first_base;
  return first;
}

using structure_detail::Boundary;
using structure_detail::find_surfaces;
using structure_detail::fit_line_at;
using structure_detail::kTuning;
using structure_detail::Line;
using structure_detail::multiples_testable;
using structure_detail::Period;
using structure_detail::surfaces_by_rate;
using structure_detail::weigh_switches;

namespace {

double tied_share(const std::vector<double>& spacings) {
  if (spacings.empty()) return 0;
  return static_cast<double>(std::count(spacings.begin(), spacings.end(), 0.0)) / static_cast<double>(spacings.size());
}

}  // namespace

Line structure_detail::fit_line_at(std::span<const std::int64_t> c, std::size_t from, std::size_t to, double fallback_slope) {
  Line l;
  std::vector<double> d;
  for (std::size_t i = from + 1; i < to; ++i) d.push_back(static_cast<double>(c[i] - c[i - 1]));
  l.slope = d.size() >= 2 ? median(d) : fallback_slope;
  std::vector<double> r;
  for (std::size_t i = from; i < to; ++i) r.push_back(static_cast<double>(c[i]) - l.slope * static_cast<double>(i));
  l.level = median(r);
  if (to - from < 4) return l;
  // Then least squares over the stamps that median line explains (within 3 robust deviations):
  // a slope from differences of neighbours carries twice the stamps' noise, extrapolated to a
  // boundary that is several reads away it would blur the step the line is there to measure.
  const double tol = 3 * kMadToSigma * mad(r) + 1;
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = from; i < to; ++i) {
    const double x = static_cast<double>(i - from), y = static_cast<double>(c[i]);
    if (std::fabs(y - l.at(i)) > tol) continue;
    n += 1;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double den = n * sxx - sx * sx;
  if (n < 3 || den <= 0) return l;
  l.slope = (n * sxy - sx * sy) / den;
  l.level = (sy - l.slope * sx) / n - l.slope * static_cast<double>(from);
  return l;
}

namespace {

struct Boundaries {
  std::vector<Boundary> b;
  std::vector<Line> lines;  // lines[j]: the reads between boundary j−1 (or the warm-up) and j
};

// Track boundaries: reads whose spacing stands out, kept only where the whole line of stamps
// steps up (a level shift between the lines before and after). A single late stamp (host latency)
// raises one spacing and lowers the next: no step, no boundary.
Boundaries find_boundaries(std::span<const std::int64_t> c, std::size_t warmup, double b, double spacing_thr,
                           double level_thr) {
  std::vector<std::size_t> cand;
  for (std::size_t i = warmup + 1; i < c.size(); ++i)
    if (static_cast<double>(c[i] - c[i - 1]) > spacing_thr) cand.push_back(i);
  Boundaries out;
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<std::size_t> edges{warmup};
    edges.insert(edges.end(), cand.begin(), cand.end());
    edges.push_back(c.size());
    std::vector<Line> lines;
    for (std::size_t e = 0; e + 1 < edges.size(); ++e) lines.push_back(fit_line_at(c, edges[e], edges[e + 1], b));
    std::vector<std::size_t> keep;
    out.b.clear();
    for (std::size_t j = 0; j < cand.size(); ++j) {
      const double gap = lines[j + 1].at(cand[j]) - lines[j].at(cand[j]);
      if (gap >= level_thr) {
        keep.push_back(cand[j]);
        out.b.push_back({cand[j], gap});
      }
    }
    out.lines = std::move(lines);
    if (keep.size() == cand.size()) return out;
    cand = std::move(keep);
  }
  // Passes ran out while steps were still being dropped: the lines between what is kept.
  std::vector<std::size_t> edges{warmup};
  for (auto& x : out.b) edges.push_back(x.read);
  edges.push_back(c.size());
  out.lines.clear();
  for (std::size_t e = 0; e + 1 < edges.size(); ++e) out.lines.push_back(fit_line_at(c, edges[e], edges[e + 1], b));
  return out;
}

// Tracks crossed between consecutive boundaries: normally one; a boundary whose step was too small
// to see leaves a run twice as long. A pause inside a track (a drive-side stall, a retry) is a
// step too, but it cuts a track in two runs that together make one: it is dropped, with its gap.
std::vector<std::int64_t> count_tracks(std::vector<Boundary>& bs, double reads_per_track) {
  if (reads_per_track > 0) {
    const double tol = std::max(2.0, 0.1 * reads_per_track);
    for (std::size_t j = 1; j + 1 < bs.size();) {
      const double a = static_cast<double>(bs[j].read - bs[j - 1].read);
      const double n = static_cast<double>(bs[j + 1].read - bs[j].read);
      if (a < 0.8 * reads_per_track && n < 0.8 * reads_per_track && std::fabs(a + n - reads_per_track) <= tol)
        bs.erase(bs.begin() + static_cast<std::ptrdiff_t>(j));
      else
        ++j;
    }
    // A run far shorter than a track between two boundaries: one of its ends is a pause right
    // beside a switch. The smaller step is the pause.
    for (std::size_t j = 1; j < bs.size();) {
      const double r = static_cast<double>(bs[j].read - bs[j - 1].read);
      if (r < 0.5 * reads_per_track)
        bs.erase(bs.begin() + static_cast<std::ptrdiff_t>(bs[j].gap_ns < bs[j - 1].gap_ns ? j : j - 1));
      else
        ++j;
    }
  }
  std::vector<std::int64_t> k(bs.size(), 0);
  for (std::size_t j = 1; j < bs.size(); ++j) {
    const double runs = static_cast<double>(bs[j].read - bs[j - 1].read);
    k[j] = k[j - 1] + (reads_per_track > 0 ? std::max<std::int64_t>(1, std::llround(runs / reads_per_track)) : 1);
  }
  return k;
}

// The feasible integer periods p in [lo, hi] for which some base puts boundary j inside
// [pos_lo[j], pos_hi[j]] at base + k[j]·p. The set is an interval (a projection of a convex
// polygon); {0, 0} when empty.
std::pair<std::uint32_t, std::uint32_t> feasible_periods(std::span<const std::int64_t> pos_lo,
                                                         std::span<const std::int64_t> pos_hi,
                                                         std::span<const std::int64_t> k, std::uint32_t lo,
                                                         std::uint32_t hi) {
  std::uint32_t range = 0;
  const std::uint32_t mid = fit_period(pos_lo, pos_hi, k, lo, hi, nullptr, &range);
  if (!mid) return {0, 0};
  // fit_period returns first + (last − first)/2 and last − first.
  const std::uint32_t first = mid - range / 2;
  return {first, first + range};
}

// Surfaces of their own density (each its own sectors per track): no one track size fits every
// boundary, but a cylinder does. Each surface's boundaries, one cylinder apart, must fit the same
// cylinder size C with a base of their own. Sets t's track size (the mean, C/H) when they do.
void fit_per_surface(const std::vector<std::int64_t>& k, const std::vector<std::int64_t>& plo,
                     const std::vector<std::int64_t>& phi, unsigned H, double est, std::uint32_t m,
                     TrackStructure& t) {
  // Every surface's track seen twice at least: a surface count told elsewhere (twelve) over a
  // sample of ten tracks leaves classes of one or two tracks, whose feasible cylinder sizes
  // agree by chance (a 4205-sector outer zone came out as 2808 and 1019).
  if (k.empty() || k.back() - k.front() < 2 * static_cast<std::int64_t>(H)) return;
  std::uint32_t f = static_cast<std::uint32_t>(std::max(1.0, (est * 0.9) * H));
  std::uint32_t l = static_cast<std::uint32_t>(est * 1.1 * H);
  unsigned classes = 0;
  for (unsigned q = 0; q < H && f <= l; ++q) {
    std::vector<std::int64_t> kk, a, z;
    for (std::size_t j = 0; j < k.size(); ++j)
      if (static_cast<unsigned>((k[j] - k[0]) % H) == q) {
        kk.push_back((k[j] - k[0]) / H);
        a.push_back(plo[j]);
        z.push_back(phi[j]);
      }
    if (kk.size() < 2) continue;
    auto [ff, ll] = feasible_periods(a, z, kk, f, l);
    if (!ff) {
      f = l + 1;
    } else {
      f = ff;
      l = ll;
      ++classes;
    }
  }
  if (classes < 2 || f > l || l - f > 2 * H * m) return;
  const double C = (f + l) / 2.0;
  t.cylinder_sectors = static_cast<std::uint32_t>(std::llround(C));
  t.sectors_per_track = static_cast<std::uint32_t>(std::llround(C / H));
  t.spt_uncertainty = (l - f) / 2.0 / H + 0.5;
  t.first_track_lba = static_cast<std::uint64_t>(std::max<std::int64_t>(plo[0], 0));
  t.per_surface = true;
}

// The sustained rate over whole cylinders (or tracks, without a surface count) from the track
// size, the sector time and what each kind of switch costs; the stream's plain rate without a
// track size.
void set_sustained(TrackStructure& t, unsigned H_used, double lb) {
  if (!t.sectors_per_track) {
    t.sustained_bytes_s = t.lossless_bytes_s = t.raw_bytes_s;
    return;
  }
  const double spt_d = t.cylinder_sectors && H_used ? static_cast<double>(t.cylinder_sectors) / H_used
                                                    : t.sectors_per_track;
  const double H = H_used ? H_used : 1;
  auto rate = [&](double track_gap, double cyl_gap) {
    const double ns = H * spt_d * t.sector_ns + (H - 1) * track_gap + (H_used ? cyl_gap : track_gap);
    return H * spt_d * lb / (ns * 1e-9);
  };
  t.sustained_bytes_s = rate(t.track_gap_ns, t.cyl_gap_ns);
  t.lossless_bytes_s = rate(t.track_gap_lossless_ns, t.cyl_gap_lossless_ns);
}

// The exact integer track size every boundary's position admits, searched within 0.5 % of the
// rotation's (when told: the feasible size nearest to it) or two reads of the rough estimate
// (the middle of the feasible range). spt 0 when none is feasible.
struct PeriodFit {
  std::uint32_t spt = 0, range = 0, lo = 0, hi = 0;
  std::int64_t base = 0;
};
PeriodFit fit_track_size(const std::vector<std::int64_t>& plo, const std::vector<std::int64_t>& phi,
                         const std::vector<std::int64_t>& k, double est, std::uint32_t m, double rot_spt) {
  PeriodFit f;
  const double half = rot_spt > 0 ? 0.005 * est + 1 : 2.0 * m + 1;
  f.lo = static_cast<std::uint32_t>(std::max(1.0, est - half));
  f.hi = static_cast<std::uint32_t>(est + half);
  if (rot_spt <= 0) {
    f.spt = fit_period(plo, phi, k, f.lo, f.hi, &f.base, &f.range);
    return f;
  }
  const auto c0 = static_cast<std::int64_t>(std::llround(rot_spt));
  for (std::int64_t dd = 0; !f.spt && c0 - dd >= static_cast<std::int64_t>(f.lo); ++dd)
    for (std::int64_t p : {c0 - dd, c0 + dd})
      if (!f.spt && p >= static_cast<std::int64_t>(f.lo) && p <= static_cast<std::int64_t>(f.hi))
        f.spt = fit_period(plo, phi, k, static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(p), &f.base, &f.range);
  if (f.spt) fit_period(plo, phi, k, f.lo, f.hi, nullptr, &f.range);  // the uncertainty: the feasible range
  return f;
}

// A period no spindle turns at is no track. A drive without command queuing behind a slow bus
// pauses each time it refills its cache segment: every 1.44 MB on DiskSim's Atlas III at
// 4.7 MB/s, pauses that had been read as tracks of 2816 sectors, a revolution of 306 ms.
bool spindle_period(const TrackStructure& t) {
  return !t.sectors_per_track || spindle_revolution_ms(t.rotation_ns * 1e-6);
}

// What a stream without tracks tells: its rates and how its stamps came.
TrackStructure without_tracks(const TrackStructure& t) {
  TrackStructure none;
  none.sector_ns = t.sector_ns;
  none.media_bytes_s = t.media_bytes_s;
  none.boundaries = t.boundaries;
  none.tied_share = t.tied_share;
  none.raw_bytes_s = none.sustained_bytes_s = none.lossless_bytes_s = t.raw_bytes_s;
  return none;
}

}  // namespace

TrackStructure analyse_stream(std::span<const std::int64_t> c, std::uint64_t first_lba,
                              std::uint32_t m, std::uint32_t block_bytes, std::size_t warmup,
                              unsigned surfaces_hint, double rotation_hint_ns) {
  TrackStructure t;
  const std::size_t n = c.size();
  if (m == 0 || n < warmup + 4) return t;
  const double lb = block_bytes;
  double span_ns = static_cast<double>(c[n - 1] - c[warmup]);
  if (span_ns > 0) t.raw_bytes_s = static_cast<double>(n - 1 - warmup) * m * lb / (span_ns * 1e-9);
  // Until a track structure says otherwise, what the stream delivered is its sustained rate (a
  // target without tracks, a file or a RAM disk, has no switch gaps to account for).
  t.sustained_bytes_s = t.lossless_bytes_s = t.raw_bytes_s;

  std::vector<double> d;
  for (std::size_t i = warmup + 1; i < n; ++i) d.push_back(static_cast<double>(c[i] - c[i - 1]));
  t.tied_share = tied_share(d);
  if (t.tied_share > kTuning.max_tied_share) return t;  // batched stamps: the stream is timed as a whole
  const double b = median(d);
  const double sigma = robust_sigma(d);
  if (b <= 0) return t;
  // Candidates generously (a level-shift check follows), steps only where they stand out of the
  // stamps' own noise.
  Boundaries found = find_boundaries(c, warmup, b, b + std::max(0.05 * b, 3 * sigma), std::max(0.05 * b, 3 * sigma));
  std::vector<Boundary>& bs = found.b;
  // The sector time: the read-weighted mean of the lines' slopes (each track on its own surface,
  // whose sectors may pass at their own pace).
  {
    // The sector time: each line's slope is a read's media time on that track (whose surface may
    // pass its sectors at its own pace); their mean weighted by the reads on each. Not the run
    // before the first boundary while there are others: the stream's first reads may still be
    // served from what the drive read ahead, at the interface's pace.
    double w = 0, sum = 0;
    for (std::size_t j = bs.empty() ? 0 : 1; j < found.lines.size() && j <= bs.size(); ++j) {
      const std::size_t from = j ? bs[j - 1].read : warmup;
      const std::size_t to = j < bs.size() ? bs[j].read : n;
      if (to <= from) continue;
      sum += found.lines[j].slope * static_cast<double>(to - from);
      w += static_cast<double>(to - from);
    }
    t.sector_ns = (w > 0 && sum > 0 ? sum / w : b) / m;
  }
  t.boundaries = bs.size();
  t.media_bytes_s = lb / (t.sector_ns * 1e-9);
  if (bs.size() < 3) return t;
  t.media_bound = true;

  // Tracks between boundaries, then the period in sectors: first a rough value (the rotation
  // hint, or the median run), then the exact integer that every boundary's position admits.
  std::vector<double> runs;
  for (std::size_t j = 1; j < bs.size(); ++j) runs.push_back(static_cast<double>(bs[j].read - bs[j - 1].read));
  const double rot_spt = rotation_hint_ns > 0 ? rotation_hint_ns / t.sector_ns : 0;
  t.reads_per_track = median(runs);
  const double est = rot_spt > 0 ? rot_spt : t.reads_per_track * m;
  std::vector<std::int64_t> k = count_tracks(bs, est / m);
  t.boundaries = bs.size();
  if (bs.size() < 3) {
    t.media_bound = false;
    return t;
  }
  std::vector<std::int64_t> plo(bs.size()), phi(bs.size());
  for (std::size_t j = 0; j < bs.size(); ++j) {
    plo[j] = static_cast<std::int64_t>(first_lba) + static_cast<std::int64_t>(bs[j].read) * m;
    phi[j] = plo[j] + m - 1;
  }
  PeriodFit pf = fit_track_size(plo, phi, k, est, m, rot_spt);
  std::uint32_t spt = pf.spt;

  // Head and cylinder switches: the period of the odd gaps.
  const double min_sep = std::max(0.02 * b, 2 * sigma);
  const double rev_ns = rotation_hint_ns > 0 ? rotation_hint_ns : est * t.sector_ns;
  const Period per = find_surfaces(bs, k, min_sep, rev_ns);
  if (per.H) {
    t.surfaces = per.H;
    t.surfaces_confidence = per.conf;
    t.surfaces_settled = multiples_testable(per.H, static_cast<unsigned>(k.back() - k.front()) / 2);
  }
  unsigned H_used = weigh_switches(bs, k, per, surfaces_hint, rev_ns, t);
  // Tracks whose sector times repeat with a period are of unequal sizes: no one track size holds
  // for all of them, and one that every boundary happens to admit is no size of theirs.
  const unsigned Hr = per.H ? 0 : surfaces_by_rate(c, bs, k, b, H_used ? nullptr : &t);
  if (!H_used) H_used = Hr;
  if (Hr) spt = 0;
  if (!spt && H_used >= 2) fit_per_surface(k, plo, phi, H_used, est, m, t);
  if (!spt && !t.sectors_per_track && Hr >= 2 && Hr != H_used) fit_per_surface(k, plo, phi, Hr, est, m, t);
  if (!spt && !t.sectors_per_track && !Hr) {
    // A boundary put a read late or early (a host stall, a jittered switch) leaves no period
    // that every boundary admits; one that all but a few admit is still the track size.
    const std::size_t need = std::max<std::size_t>(3, (k.size() * 9 + 9) / 10);
    spt = fit_period_consensus(plo, phi, k, pf.lo, pf.hi, need, &pf.base, &pf.range);
  }
  if (spt && !t.sectors_per_track) {
    t.sectors_per_track = spt;
    t.spt_uncertainty = pf.range / 2.0;
    t.first_track_lba = static_cast<std::uint64_t>(std::max<std::int64_t>(pf.base, 0));
    if (H_used) t.cylinder_sectors = spt * H_used;
  }
  if (t.sectors_per_track) t.rotation_ns = t.sectors_per_track * t.sector_ns;
  if (!spindle_period(t)) return without_tracks(t);
  set_sustained(t, H_used, lb);
  return t;
}

CostStream analyse_cost_stream(std::span<const std::int64_t> c, std::uint64_t first_lba,
                               std::uint32_t m_small, std::size_t n_small, std::uint32_t m_large,
                               std::uint32_t block_bytes, unsigned surfaces_hint,
                               double rotation_hint_ns) {
  CostStream r;
  const std::size_t n = c.size();
  // At least 5 spacings of each kind; the first spacing of each kind is skipped (the first read
  // carries the positioning, the first large read follows a small one).
  if (m_large <= m_small || n_small < 7 || n < n_small + 8) return r;
  std::vector<double> ds, dl;
  for (std::size_t i = 2; i < n_small; ++i) ds.push_back(static_cast<double>(c[i] - c[i - 1]));
  for (std::size_t i = n_small + 1; i < n; ++i) dl.push_back(static_cast<double>(c[i] - c[i - 1]));
  // Medians: a read crosses a track boundary with probability (read size / track size), well
  // under one half for both sizes, so the median spacing is that of a read inside a track.
  const double bs = median(ds), bl = median(dl);
  const double s = (bl - bs) / static_cast<double>(m_large - m_small);
  if (!(s > 0)) return r;
  r.command_ns = bl - s * m_large;
  // Every read must have needed at least half its media time beyond the cost; one that did not
  // was a cache hit, or the extra time is not a fixed cost per command.
  for (double d : ds)
    if (d - r.command_ns < 0.5 * s * m_small) return r;
  for (double d : dl)
    if (d - r.command_ns < 0.5 * s * m_large) return r;
  r.fitted = true;
  std::vector<std::int64_t> e;
  e.reserve(n - n_small);
  for (std::size_t j = 0; j + n_small < n; ++j)
    e.push_back(c[n_small + j] - static_cast<std::int64_t>(std::llround(r.command_ns * static_cast<double>(j))));
  r.t = analyse_stream(e, first_lba + static_cast<std::uint64_t>(n_small) * m_small, m_large, block_bytes, 2,
                       surfaces_hint, rotation_hint_ns);
  return r;
}

}  // namespace ds::measure
