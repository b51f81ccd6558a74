#include "tests/structure.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "tests/common.hpp"

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

namespace {

// The track-structure fit's parameters (docs/methods.md, "transfer").
struct StructureTuning {
  unsigned max_surfaces = 64;  // tracks per cylinder looked for (drives have had up to ~30)
  double rate_f = 30;  // surfaces from sector times: between/within variance ratio
  // Surfaces a drive plausibly has, for the sector-time period: 3.5-inch drives of the 2020s carry
  // 9-11 platters (18-22 heads); the bound leaves room above that.
  unsigned plausible_surfaces = 24;
  // A real kernel hands over every completion that came in while the reader was not looking in one
  // batch (a late wake-up, a guest's slow interrupt path), and AioEngine stamps a batch once: tied
  // stamps, spacings of 0 and then of two reads. Through QEMU's TCG on a loaded host 7-50 % of a
  // stream's spacings were 0 (docs/serve.md); the "boundaries" such stamps show are the batches,
  // not the tracks, and once gave a sustained rate 24 % above the media's. Beyond this share of
  // tied spacings the stamps say when the host looked, not when each read ended.
  double max_tied_share = 0.05;
  double lost_revolution_tolerance = 0.15;  // a step of n revolutions, ± this share of one
};
constexpr StructureTuning kTuning{};

double tied_share(const std::vector<double>& spacings) {
  if (spacings.empty()) return 0;
  return static_cast<double>(std::count(spacings.begin(), spacings.end(), 0.0)) / static_cast<double>(spacings.size());
}

// A straight line through the stamps of reads [from, to): one track, or part of one. Its slope is
// the median spacing inside the range (the time of one read on that track's surface), its level
// the median of what is left once the slope is taken off. Medians, because a host's completion
// latency puts an independent, positive error on every single stamp: a stamp late by a host
// hiccup moves neither.
struct Line {
  double slope = 0, level = 0;
  double at(std::size_t i) const { return level + slope * static_cast<double>(i); }
};

Line fit_line_at(std::span<const std::int64_t> c, std::size_t from, std::size_t to, double fallback_slope) {
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

struct Boundary {
  std::size_t read = 0;  // index of the read that crossed the boundary
  double gap_ns = 0;     // how far the stamps' line steps up there
};

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

// The tracks per cylinder: the smallest period H (with a phase) such that the boundaries at
// k ≡ phase (mod H) have gaps on one side of a cut and all the others on the other side, for at
// least 85 % of each group, with two or more in the periodic group. Medians and shares, so a lost
// revolution or a pause at one switch does not move it. A period one of whose classes mixes two
// kinds of switch is skipped (class_mixes_kinds). Returns 0 when no period holds.
struct Period {
  unsigned H = 0, phase = 0;
  double conf = 0;
};
// Median by selection (find_surfaces runs it for every period and phase, on every check of a
// growing stream).
double fast_median(std::vector<double>& v) {
  const std::size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h), v.end());
  const double hi = v[h];
  if (v.size() % 2) return hi;
  return (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h)) + hi) / 2;
}

// A step of `d_ns` over the usual gap is one or more whole lost revolutions (within
// lost_revolution_tolerance of one), not a pause nor another kind of switch.
bool lost_revolutions(double d_ns, double rev_ns) {
  const double revs = d_ns / rev_ns;
  return revs >= 0.5 && std::fabs(revs - std::round(revs)) <= kTuning.lost_revolution_tolerance;
}

// Two kinds of switch: the gaps `in` and `out` have medians apart by min_sep and by several
// times either group's own spread (not noise split in two), and a cut between the medians puts
// at least 85 % of each group on its side. conf: the smaller of the two shares (0: not two kinds).
struct TwoKinds {
  double conf = 0, in_median = 0, out_median = 0;
};
TwoKinds two_kinds(std::vector<double>& in, std::vector<double>& out, double min_sep) {
  TwoKinds r;
  const double mi = fast_median(in), mo = fast_median(out);
  r.in_median = mi;
  r.out_median = mo;
  if (std::fabs(mi - mo) < min_sep) return r;
  std::vector<double> di, dout;
  for (double g : in) di.push_back(std::fabs(g - mi));
  for (double g : out) dout.push_back(std::fabs(g - mo));
  const double spread = kMadToSigma * std::max(fast_median(di), fast_median(dout));
  if (std::fabs(mi - mo) < 4 * spread) return r;
  const double cut = (mi + mo) / 2;
  const bool up = mi > mo;
  double ok_in = 0, ok_out = 0;
  for (double g : in) ok_in += (g > cut) == up;
  for (double g : out) ok_out += (g > cut) != up;
  r.conf = std::min(ok_in / static_cast<double>(in.size()), ok_out / static_cast<double>(out.size()));
  return r;
}

// Under a period H that is the tracks per cylinder, a switch's kind follows from its track's
// place in the cylinder (k mod H): the cylinder switches are one kind, and each surface's head
// switches one kind of their own (surfaces of their own density make head switches of their own
// cost: a skew of so many sectors is a time of its own on each surface). Twelve surfaces whose
// sizes happen to repeat every third one show a period of 3 in the head switches' costs, with the
// cylinder switches, the costliest kind, hidden in one of its classes: the class mixes two kinds
// that a multiple (12) of the period tells apart. True where a multiple J of H that the stream can
// test (two whole periods, kTuning.max_surfaces at most) splits some class of H in two kinds
// (k mod J) standing at least half as far apart as the period's own two kinds (`sep`: not noise
// in a few gaps), and not a whole number of revolutions apart (switches that lost revolutions,
// which the drive may do at any switch).
bool class_mixes_kinds(const std::vector<Boundary>& bs, const std::vector<std::int64_t>& k, unsigned H,
                       unsigned span_k, double sep, double min_sep, double rev_ns) {
  for (unsigned J = 2 * H; J <= std::min(kTuning.max_surfaces, span_k / 2); J += H)
    for (unsigned r = 0; r < J; ++r) {
      std::vector<double> sub, rest;
      for (std::size_t j = 0; j < bs.size(); ++j)
        if (static_cast<unsigned>(k[j] % H) == r % H)
          (static_cast<unsigned>(k[j] % J) == r ? sub : rest).push_back(bs[j].gap_ns);
      if (sub.size() < 2 || rest.size() < 2) continue;
      const TwoKinds t = two_kinds(sub, rest, min_sep);
      const double d = std::fabs(t.in_median - t.out_median);
      if (t.conf < 0.85 || d < 0.5 * sep) continue;
      if (rev_ns <= 0 || !lost_revolutions(d, rev_ns)) return true;
    }
  return false;
}

Period find_surfaces(const std::vector<Boundary>& bs, const std::vector<std::int64_t>& k, double min_sep,
                     double rev_ns) {
  Period best;
  if (bs.size() < 4) return best;
  const auto span_k = static_cast<unsigned>(k.back() - k.front());
  // Two whole periods at least, and no more surfaces than any drive has had (max_surfaces).
  for (unsigned H = 2; H <= std::min(kTuning.max_surfaces, span_k / 2); ++H) {
    for (unsigned q = 0; q < H; ++q) {
      std::vector<double> in, out;
      for (std::size_t j = 0; j < bs.size(); ++j)
        (static_cast<unsigned>(k[j] % H) == q ? in : out).push_back(bs[j].gap_ns);
      if (in.size() < 2 || out.size() < 2) continue;
      const TwoKinds t = two_kinds(in, out, min_sep);
      if (t.conf >= 0.85 && t.conf > best.conf &&
          !class_mixes_kinds(bs, k, H, span_k, std::fabs(t.in_median - t.out_median), min_sep, rev_ns))
        best = {H, q, t.conf};
    }
    if (best.H) return best;
  }
  return best;
}

// What a switch of one kind costs a stream on average. A switch that overran its skew lost one or
// more whole revolutions: the drive does that (a seek slowed by a quiet AAM level, one that
// jitters past its skew), so it counts. A step that is not a whole number of revolutions over the
// usual gap is a pause (a stall, a recalibration, a remapped sector) that has nothing to do with
// the layout: it counts as the usual gap.
// `count_losses` false: the lost revolutions count as the usual gap too (what the switches would
// cost had none overrun its skew: TrackStructure::lossless_bytes_s).
double switch_cost(std::vector<double> g, double rev_ns, bool count_losses = true) {
  if (g.empty()) return 0;
  const double m = median(g);
  if (rev_ns <= 0) return m;
  double sum = 0;
  for (double x : g) {
    const bool kept = (x - m) / rev_ns < 0.5 || (count_losses && lost_revolutions(x - m, rev_ns));
    sum += kept ? x : m;
  }
  return sum / static_cast<double>(g.size());
}

// Both costs of a kind of switch: with its lost revolutions, and without them.
void weigh_kind(const std::vector<double>& g, double rev_ns, double& cost, double& lossless) {
  cost = switch_cost(g, rev_ns);
  lossless = switch_cost(g, rev_ns, false);
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

// Whether a period H could be told from its multiples in a stream that can test periods up to
// `testable`: its largest multiple up to plausible_surfaces was among them.
bool multiples_testable(unsigned H, unsigned testable) {
  return kTuning.plausible_surfaces / H * H <= std::min(kTuning.max_surfaces, testable);
}

// Surfaces of their own density pass their sectors at their own pace: where every switch costs
// the same, the tracks' sector times (the slopes of their lines) may still repeat with the
// tracks per cylinder. The smallest period H whose classes (track k mod H) explain the slopes'
// spread — an F ratio of the between-class to the within-class variance of at least kTuning.rate_f — and
// leave no more within-class spread than the best period does (a multiple of H fits as well, a
// part of it worse). 0 when no period does, as on a drive whose surfaces are alike.
// A period is a surface count only where its multiples up to plausible_surfaces were tested too:
// twelve surfaces whose densities alternate high and low show a period of 2 in the ten tracks a
// sample covers (*ambiguous is then true: a period, not a count).
unsigned rate_period(std::span<const std::int64_t> c, const std::vector<Boundary>& bs,
                     const std::vector<std::int64_t>& k, double b, bool* ambiguous) {
  *ambiguous = false;
  std::vector<double> x;
  std::vector<std::int64_t> trk;
  for (std::size_t j = 0; j + 1 < bs.size(); ++j)
    if (k[j + 1] - k[j] == 1 && bs[j + 1].read - bs[j].read >= 6) {
      x.push_back(fit_line_at(c, bs[j].read, bs[j + 1].read, b).slope);
      trk.push_back(k[j]);
    }
  if (x.size() < 8) return 0;
  const double med = median(x);
  double mean0 = 0;
  for (double v : x) mean0 += v;
  mean0 /= static_cast<double>(x.size());
  double ss0 = 0;
  for (double v : x) ss0 += (v - mean0) * (v - mean0);
  std::vector<std::pair<unsigned, double>> fits;  // H, within-class SD
  const auto n = static_cast<unsigned>(x.size());
  for (unsigned H = 2; H <= std::min(kTuning.max_surfaces, n / 3); ++H) {
    std::vector<double> sum(H, 0), cnt(H, 0);
    for (std::size_t i = 0; i < x.size(); ++i) {
      sum[trk[i] % H] += x[i];
      cnt[trk[i] % H] += 1;
    }
    if (*std::min_element(cnt.begin(), cnt.end()) < 2) continue;
    double ssw = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double mc = sum[trk[i] % H] / cnt[trk[i] % H];
      ssw += (x[i] - mc) * (x[i] - mc);
    }
    const double within = ssw / (n - H), between = (ss0 - ssw) / (H - 1);
    // A floor on the within-class spread: stamps are whole nanoseconds, and alike slopes must not
    // make a ratio of two roundings.
    const double w = std::max(within, 1e-8 * med * med);
    if (between / w >= kTuning.rate_f) fits.emplace_back(H, std::sqrt(w));
  }
  if (fits.empty()) return 0;
  double best = fits[0].second;
  for (auto& f : fits) best = std::min(best, f.second);
  for (auto& f : fits)
    if (f.second <= 1.3 * best) {
      *ambiguous = !multiples_testable(f.first, n / 3);
      return f.first;
    }
  return 0;
}

// Switches alike: the surfaces may still show in their sector times. Returns the period that
// groups the tracks for the per-surface fit (0: none). An ambiguous period still groups them (a
// multiple of it would group them as well) but is not reported as the surface count.
// t: where the switches told nothing (null when the switch costs were weighed by a surface count
// told elsewhere: the period then only groups the tracks).
unsigned surfaces_by_rate(std::span<const std::int64_t> c, const std::vector<Boundary>& bs,
                          const std::vector<std::int64_t>& k, double b, TrackStructure* t) {
  bool ambiguous = false;
  const unsigned Hr = rate_period(c, bs, k, b, &ambiguous);
  if (!Hr || !t) return Hr;
  if (ambiguous) t->rate_period_untold = Hr;
  else t->surfaces = Hr;
  t->surfaces_by_rate = !ambiguous;
  t->surfaces_settled = !ambiguous;
  t->cyl_gap_ns = t->track_gap_ns;
  return Hr;
}

// What head and cylinder switches cost (t.track_gap_ns, t.cyl_gap_ns), by the period found, or
// else by the surface count told elsewhere when the gaps form two groups. Returns the surface
// count the sustained rate is to use (0: none).
unsigned weigh_switches(const std::vector<Boundary>& bs, const std::vector<std::int64_t>& k, const Period& per,
                        unsigned surfaces_hint, double rev_ns, TrackStructure& t) {
  std::vector<double> gaps;
  for (auto& x : bs) gaps.push_back(x.gap_ns);
  if (per.H) {
    std::vector<double> cyl, trk;
    for (std::size_t j = 0; j < bs.size(); ++j)
      (static_cast<unsigned>(k[j] % per.H) == per.phase ? cyl : trk).push_back(bs[j].gap_ns);
    weigh_kind(cyl, rev_ns, t.cyl_gap_ns, t.cyl_gap_lossless_ns);
    weigh_kind(trk, rev_ns, t.track_gap_ns, t.track_gap_lossless_ns);
    return per.H;
  }
  if (surfaces_hint >= 2) {
    // Too few switches here to count surfaces: weigh the gaps with the count told elsewhere,
    // splitting them at the widest jump when they form two groups.
    const double cut = two_cluster_threshold(gaps, 0.05);
    std::vector<double> lo_g, hi_g;
    for (double g : gaps) (cut >= 0 && g > cut ? hi_g : lo_g).push_back(g);
    // Split by cost, switches that lost whole revolutions (a quiet AAM level's slower seeks, a
    // jitter past the skew) would all be taken for cylinder switches, one per cylinder however
    // often they come: on a quiet WD1200JD-shaped drive that read 17.5 % slow for 10 %.
    const bool lost = rev_ns > 0 && !hi_g.empty() &&
                      *std::max_element(hi_g.begin(), hi_g.end()) >= median(lo_g) + rev_ns / 2;
    if (!hi_g.empty() && hi_g.size() <= lo_g.size() && !lost) {
      weigh_kind(lo_g, rev_ns, t.track_gap_ns, t.track_gap_lossless_ns);
      weigh_kind(hi_g, rev_ns, t.cyl_gap_ns, t.cyl_gap_lossless_ns);
      return surfaces_hint;
    }
  }
  weigh_kind(gaps, rev_ns, t.track_gap_ns, t.track_gap_lossless_ns);
  // Kinds not told apart: a lost revolution over a cylinder switch's gap is no whole number of
  // revolutions over the median (a head switch's), and switch_cost would take it for a pause.
  // Only a gap within one revolution (and a skew) of the usual one is a lost revolution; a longer
  // one is a pause (a stall, a slow region's per-command cost: 5.35 MB/s for a 39.5 MB/s zone of
  // sim:7200.7 with the stream's own rate), which the stream's rate must not count either.
  if (rev_ns > 0 && !gaps.empty()) {
    const double m = median(gaps), top = *std::max_element(gaps.begin(), gaps.end());
    t.mixed_losses = top >= m + rev_ns / 2 && top < m + 1.5 * rev_ns;
  }
  return 0;
}

}  // namespace

namespace {

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
