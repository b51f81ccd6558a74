#include "tests/wait_width.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace ds::measure {
namespace {

// The fit's parameters (docs/methods.md, "wait width").
struct WaitWidthTuning {
  double outlier = 0.002;  // floor density, a share of a uniform over the revolution
  int sigmas = 12;         // noise levels tried, geometric from min_sigma to max_sigma revolutions
  double min_sigma = 0.001, max_sigma = 0.1;
  int edge_steps = 40;     // grid steps per edge in each refinement
  std::array<double, 3> steps{0.005, 0.0008, 0.00015};  // grid step per refinement, revolutions
  int profile_steps = 120;  // feet either side of the best, steps[2] apart
};
constexpr WaitWidthTuning kTuning{};

double quantile_sorted(const std::vector<double>& s, double p) {
  const double i = p * static_cast<double>(s.size() - 1);
  const auto a = static_cast<std::size_t>(i);
  const std::size_t b = std::min(a + 1, s.size() - 1);
  return s[a] + (i - static_cast<double>(a)) * (s[b] - s[a]);
}

// The model: a uniform over [lo, hi) whose lower edge is blurred by a normal noise of σ sl and the
// upper by one of σ su (the same noise in principle; each edge fitted on its own keeps one edge's
// misfit out of the other), and a floor density for outliers.
struct Edges {
  double lo = 0, hi = 0, sl = 0, su = 0;
};

double loglik(const std::vector<double>& l, const Edges& e) {
  const double w = e.hi - e.lo, floor = kTuning.outlier / w, a = e.sl * std::sqrt(2.0), b = e.su * std::sqrt(2.0);
  double ll = 0;
  for (double x : l) ll += std::log(0.5 * (std::erfc(-(x - e.lo) / a) - std::erfc(-(x - e.hi) / b)) / w + floor);
  return ll;
}

double sigma_level(double w0, int j) {
  return w0 * kTuning.min_sigma * std::pow(kTuning.max_sigma / kTuning.min_sigma, static_cast<double>(j) / (kTuning.sigmas - 1));
}

// One edge (upper when `upper`) over a grid of positions `step` apart around its current one and
// every noise level; the other edge held. Returns the best, and fills `profile` (the best
// log-likelihood at each position) when asked.
Edges fit_edge(const std::vector<double>& l, Edges e, bool upper, double step, int half, double w0,
               std::vector<double>* profile) {
  Edges best = e;
  double top = -1e300;
  const double at = upper ? e.hi : e.lo;
  for (int a = -half; a <= half; ++a) {
    double pbest = -1e300;
    for (int j = 0; j < kTuning.sigmas; ++j) {
      Edges t = e;
      (upper ? t.hi : t.lo) = at + a * step;
      (upper ? t.su : t.sl) = sigma_level(w0, j);
      const double ll = loglik(l, t);
      pbest = std::max(pbest, ll);
      if (ll > top) top = ll, best = t;
    }
    if (profile) profile->push_back(pbest);
  }
  return best;
}

// The 95 % half-width of an edge from its profile: where it is within 1.92 of its top.
double half_width(const std::vector<double>& p, double step) {
  const double top = *std::max_element(p.begin(), p.end());
  int a = static_cast<int>(p.size()), b = -1;
  for (int i = 0; i < static_cast<int>(p.size()); ++i)
    if (p[i] >= top - 1.92) a = std::min(a, i), b = std::max(b, i);
  return b < a ? 0 : (b - a) * step / 2 + step;
}

}  // namespace

WaitWidth wait_width_fit(const std::vector<double>& latencies_ms) {
  WaitWidth out;
  if (latencies_ms.size() < kMinWaits) return out;
  std::vector<double> s = latencies_ms;
  std::sort(s.begin(), s.end());
  // First guess from inner quantiles (exact for a uniform away from its edges), then each edge
  // with its noise on finer and finer grids: the edges carry what the samples tell of the width.
  const double w0 = 2 * (quantile_sorted(s, 0.75) - quantile_sorted(s, 0.25));
  if (w0 <= 0) return out;
  Edges e{quantile_sorted(s, 0.25) - w0 / 4, 0, 0.02 * w0, 0.02 * w0};
  e.hi = e.lo + w0;
  for (double rs : kTuning.steps)
    for (bool upper : {false, true}) e = fit_edge(s, e, upper, rs * w0, kTuning.edge_steps / 2, w0, nullptr);
  // Each edge's 95 % interval from its profile (over its noise); the two are independent, so the
  // width's half-width is their root sum of squares.
  const double step = kTuning.steps[2] * w0;
  std::vector<double> pl, pu;
  fit_edge(s, e, false, step, kTuning.profile_steps, w0, &pl);
  fit_edge(s, e, true, step, kTuning.profile_steps, w0, &pu);
  // An edge is told by the few samples within a noise width of it, too few for the profile's
  // asymptotics: each edge's interval is also at least the gap a uniform leaves between its edge
  // and the nearest of n samples at 95 % (−ln 0.05 · w / n ≈ 3 w / n).
  const double gap = -std::log(0.05) * (e.hi - e.lo) / static_cast<double>(s.size());
  const double hl = half_width(pl, step), hu = half_width(pu, step);
  if (hl <= 0 || hu <= 0 || e.hi <= e.lo) return out;
  out.rev_ms = e.hi - e.lo;
  out.half_width_ms = std::hypot(hl + gap, hu + gap);
  out.foot_ms = e.lo;
  out.sigma_ms = (e.sl + e.su) / 2;
  return out;
}

}  // namespace ds::measure
