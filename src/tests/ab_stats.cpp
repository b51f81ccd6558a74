#include "tests/ab_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "tests/common.hpp"

namespace ds::measure {

namespace {

double spread_pct(std::span<const double> v, double m) {
  if (v.empty() || m == 0) return 0;
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return 100.0 * (*hi - *lo) / std::fabs(m);
}

}  // namespace

Expected<AbComparison> compare_arms(std::string test, std::string figure, std::span<const double> a,
                                    std::span<const double> b, const AbStatsOptions& opt) {
  const std::string what = test + " " + figure;
  if (a.size() < 2 || b.size() < 2)
    return make_error(what + ": need at least 2 rounds per arm for a confidence interval (have " +
                      std::to_string(a.size()) + " and " + std::to_string(b.size()) + ")");
  for (double x : a)
    if (!std::isfinite(x)) return make_error(what + ": a value of arm A is not a number");
  for (double x : b)
    if (!std::isfinite(x)) return make_error(what + ": a value of arm B is not a number");
  if (!(opt.confidence > 0 && opt.confidence < 1))
    return make_error("confidence must be between 0 and 1");

  AbComparison c;
  c.test = std::move(test);
  c.figure = std::move(figure);
  c.a.assign(a.begin(), a.end());
  c.b.assign(b.begin(), b.end());
  c.mean_a = mean(a);
  c.mean_b = mean(b);
  if (c.mean_a == 0) return make_error(what + ": arm A's mean is 0, so a difference in % is undefined");
  c.sd_a = stddev(a);
  c.sd_b = stddev(b);
  c.diff = c.mean_b - c.mean_a;
  const double scale = 100.0 / std::fabs(c.mean_a);
  c.diff_pct = c.diff * scale;

  // Welch: standard error of the difference and Welch-Satterthwaite degrees of freedom.
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double va = c.sd_a * c.sd_a / na, vb = c.sd_b * c.sd_b / nb;
  const double se = std::sqrt(va + vb);
  if (se == 0) {
    // Both arms gave the same number every round: no noise at all (a deterministic figure).
    c.df = na + nb - 2;
    c.ci_low_pct = c.ci_high_pct = c.diff_pct;
    c.significant = c.diff != 0;
    c.note = "no variation inside either arm";
  } else {
    const double den = (va * va) / (na - 1) + (vb * vb) / (nb - 1);
    c.df = den > 0 ? (va + vb) * (va + vb) / den : na + nb - 2;
    const double t = student_t_quantile(0.5 + opt.confidence / 2, c.df);
    c.ci_low_pct = (c.diff - t * se) * scale;
    c.ci_high_pct = (c.diff + t * se) * scale;
    c.significant = c.ci_low_pct > 0 || c.ci_high_pct < 0;
  }
  // NOTE: the interval treats mean_a in the denominator as exact; with the spreads this tool warns
  // about, that error is small next to the interval itself.

  if (opt.bootstrap_resamples > 0) {
    Rng rng(opt.seed ^ 0xAB57A75ull);
    std::vector<double> ratios;
    ratios.reserve(opt.bootstrap_resamples);
    for (unsigned r = 0; r < opt.bootstrap_resamples; ++r) {
      double sa = 0, sb = 0;
      for (std::size_t i = 0; i < a.size(); ++i) sa += a[rng.below(a.size())];
      for (std::size_t i = 0; i < b.size(); ++i) sb += b[rng.below(b.size())];
      if (sa == 0) continue;
      ratios.push_back(100.0 * ((sb / nb) / (sa / na) - 1.0) * (c.mean_a < 0 ? -1 : 1));
    }
    if (!ratios.empty()) {
      const double alpha = 1 - opt.confidence;
      c.boot_low_pct = quantile(ratios, alpha / 2);
      c.boot_high_pct = quantile(ratios, 1 - alpha / 2);
    }
  }

  c.spread_a_pct = spread_pct(a, c.mean_a);
  c.spread_b_pct = spread_pct(b, c.mean_b);
  c.spread_warning = std::max(c.spread_a_pct, c.spread_b_pct) > std::fabs(c.diff_pct);
  if (a.size() < 3 || b.size() < 3)
    c.note += std::string(c.note.empty() ? "" : "; ") + "only 2 rounds per arm: a wide interval";
  return c;
}

std::string comparison_line(const AbComparison& c) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%+7.2f %% [%+7.2f, %+7.2f] %s%s", c.diff_pct, c.ci_low_pct,
                c.ci_high_pct, c.significant ? "significant" : "not significant",
                c.spread_warning ? " (spread inside an arm exceeds the difference)" : "");
  return buf;
}

}  // namespace ds::measure
