// What a stream's track switches tell: which are head switches and which cylinder switches (the
// surface count, from their costs or from the tracks' sector times where the costs are alike), and
// what each kind costs, with and without lost revolutions. The boundaries themselves are found in
// tests/structure.cpp.
#include <algorithm>
#include <cmath>

#include "tests/common.hpp"
#include "tests/structure_detail.hpp"

namespace ds::measure::structure_detail {

namespace {

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

}  // namespace

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

bool multiples_testable(unsigned H, unsigned testable) {
  return kTuning.plausible_surfaces / H * H <= std::min(kTuning.max_surfaces, testable);
}

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

}  // namespace ds::measure::structure_detail
