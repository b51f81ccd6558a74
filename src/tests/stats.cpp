#include "tests/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

namespace ds::measure {

double mean(std::span<const double> v) {
  if (v.empty()) return 0;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double stddev(std::span<const double> v) {
  if (v.size() < 2) return 0;
  double m = mean(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  q = std::clamp(q, 0.0, 1.0);
  double pos = q * static_cast<double>(v.size() - 1);
  auto i = static_cast<std::size_t>(pos);
  if (i + 1 >= v.size()) return v.back();
  double f = pos - static_cast<double>(i);
  return v[i] * (1 - f) + v[i + 1] * f;
}

double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

double mad(std::vector<double> v) {
  double m = median(v);
  for (double& x : v) x = std::fabs(x - m);
  return median(std::move(v));
}

double median_se(const std::vector<double>& v) {
  if (v.empty()) return 0;
  return kMedianSeFactor * kMadToSigma * mad(v) / std::sqrt(static_cast<double>(v.size()));
}

double robust_sigma(std::vector<double> v) { return kMadToSigma * mad(std::move(v)); }

LineFit fit_line(std::span<const double> x, std::span<const double> y) {
  LineFit f;
  std::size_t n = std::min(x.size(), y.size());
  if (n < 2) return f;
  double mx = mean(x.first(n)), my = mean(y.first(n)), sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0) return f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 1.0;
  if (n > 2) f.slope_se = std::sqrt(std::max(0.0, syy - f.slope * sxy) / static_cast<double>(n - 2) / sxx);
  return f;
}

double PlaneFit::se_at(double u) const { return std::sqrt(std::max(0.0, v11 + 2 * u * v12 + u * u * v22)); }

PlaneFit fit_plane(std::span<const double> x1, std::span<const double> x2, std::span<const double> y) {
  PlaneFit f;
  const std::size_t n = std::min({x1.size(), x2.size(), y.size()});
  if (n < 4) return f;
  const double m1 = mean(x1.first(n)), m2 = mean(x2.first(n)), my = mean(y.first(n));
  double s11 = 0, s12 = 0, s22 = 0, s1y = 0, s2y = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d1 = x1[i] - m1, d2 = x2[i] - m2, dy = y[i] - my;
    s11 += d1 * d1, s12 += d1 * d2, s22 += d2 * d2, s1y += d1 * dy, s2y += d2 * dy, syy += dy * dy;
  }
  const double det = s11 * s22 - s12 * s12;
  if (!(det > 1e-12 * s11 * s22)) return f;
  f.a1 = (s22 * s1y - s12 * s2y) / det;
  f.a2 = (s11 * s2y - s12 * s1y) / det;
  f.intercept = my - f.a1 * m1 - f.a2 * m2;
  f.dof = static_cast<double>(n - 3);
  const double sse = std::max(0.0, syy - f.a1 * s1y - f.a2 * s2y);
  const double s2 = sse / f.dof;
  f.v11 = s2 * s22 / det, f.v12 = -s2 * s12 / det, f.v22 = s2 * s11 / det;
  return f;
}

namespace {

// Continued fraction of the incomplete beta function, evaluated with the modified Lentz method
// (the standard expansion, e.g. Abramowitz & Stegun 26.5.8).
double beta_cf(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  constexpr double eps = 1e-14;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::fabs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < eps) break;
  }
  return h;
}

std::vector<double> ranks(std::span<const double> v) {
  std::vector<std::size_t> idx(v.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) r[idx[k]] = 0.5 * static_cast<double>(i + j);
    i = j + 1;
  }
  return r;
}

}  // namespace

double rank_correlation(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size() || x.size() < 3) return 0;
  const auto rx = ranks(x), ry = ranks(y);
  const double mx = mean(rx), my = mean(ry);
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
}

double incomplete_beta(double a, double b, double x) {
  if (!(x > 0)) return 0;
  if (!(x < 1)) return 1;
  const double ln_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                          b * std::log1p(-x);
  const double front = std::exp(ln_front);
  // The continued fraction converges fast for x < (a+1)/(a+b+2); use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return front * beta_cf(a, b, x) / a;
  return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

double student_t_cdf(double t, double df) {
  if (!(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  const double x = df / (df + t * t);
  const double tail = 0.5 * incomplete_beta(df / 2.0, 0.5, x);  // P(T > |t|)
  return t >= 0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.5) return 0;
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  // Bisection on the monotone CDF: robust for every df, and cheap enough for a report.
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, df) < p && hi < 1e12) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, hi); ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double t95(double df) { return student_t_quantile(0.975, df); }

double mean_half_width(std::span<const double> v) {
  if (v.size() < 2) return 0;
  return t95(static_cast<double>(v.size() - 1)) * stddev(v) / std::sqrt(static_cast<double>(v.size()));
}

MeanSe mean_se(std::span<const double> v) {
  if (v.size() < 2) return {};
  const double n = static_cast<double>(v.size());
  double sum = 0, sq = 0;
  for (double x : v) sum += x;
  const double m = sum / n;
  for (double x : v) sq += (x - m) * (x - m);
  return {m, std::sqrt(sq / (n - 1) / n)};
}

MeanSe trimmed_mean_se(std::vector<double> v, std::size_t drop_low, std::size_t drop_high) {
  if (drop_low + drop_high >= v.size()) return {};
  std::sort(v.begin(), v.end());
  return mean_se(std::span<const double>(v).subspan(drop_low, v.size() - drop_low - drop_high));
}

double median_half_width(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  return t95(static_cast<double>(v.size() - 1)) * median_se(v);
}

}  // namespace ds::measure
