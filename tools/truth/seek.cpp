#include "seek.hpp"

#include <algorithm>
#include <cmath>

#include "model.hpp"

namespace truth::detail {
namespace {

constexpr double kAamFastest = 254, kAamQuietest = 128;
constexpr int kFitIterations = 60;

double fit_shape(double d, double t2t, double beta, double knee) {
  if (d <= 0) return 0;
  if (d <= knee) return t2t + beta * (std::sqrt(d) - 1);
  return t2t + beta * (std::sqrt(knee) - 1) + beta / (2 * std::sqrt(knee)) * (d - knee);
}

// β that makes the curve reach full_ms at the longest distance, for a given knee.
double beta_for(double knee, double t2t, double full, double dmax) {
  const double span = std::sqrt(knee) - 1 + (dmax - knee) / (2 * std::sqrt(knee));
  return span > 0 ? (full - t2t) / span : 0;
}

}  // namespace

double mean_uniform(std::uint64_t n, double t2t, double beta, double knee) {
  if (n < 2) return 0;
  const double nn = static_cast<double>(n);
  long double sum = 0;
  for (std::uint64_t d = 1; d < n; ++d)
    sum += 2.0L * static_cast<long double>(nn - static_cast<double>(d)) * fit_shape(static_cast<double>(d), t2t, beta, knee);
  return static_cast<double>(sum / (static_cast<long double>(nn) * nn));
}

SeekFn::SeekFn(const Model& m, std::uint64_t physical_cylinders) : curve_(m.curve), t2t_(m.t2t_ms) {
  if (m.aam_supported && m.aam_level < kAamFastest) {
    const double level = std::max(kAamQuietest, m.aam_level);
    aam_scale_ = 1 + (m.quiet_seek_scale - 1) * (kAamFastest - level) / (kAamFastest - kAamQuietest);
    short_seek_ = m.short_seek_cylinders;
  }
  if (!curve_.empty() || physical_cylinders < 3) {
    beta_ = physical_cylinders >= 2 ? (m.full_ms - m.t2t_ms) / std::max(1.0, std::sqrt(physical_cylinders - 1.0) - 1) : 0;
    return;
  }
  // The knee between the square-root and the linear part: the one whose curve has the model's
  // mean over uniformly random cylinder pairs (a longer square-root part raises the mean). An
  // average outside what this shape can give is met as closely as it can be (at an end).
  const double dmax = static_cast<double>(physical_cylinders - 1);
  auto mean_at = [&](double k) { return mean_uniform(physical_cylinders, m.t2t_ms, beta_for(k, m.t2t_ms, m.full_ms, dmax), k); };
  double lo = 1, hi = dmax;
  const bool rising = mean_at(hi) >= mean_at(lo);
  for (int i = 0; i < kFitIterations; ++i) {
    const double mid = std::sqrt(lo * hi);
    if ((mean_at(mid) < m.avg_ms) == rising) lo = mid;
    else hi = mid;
  }
  knee_ = std::sqrt(lo * hi);
  beta_ = beta_for(knee_, m.t2t_ms, m.full_ms, dmax);
}

double SeekFn::fit_ms(double d) const { return fit_shape(d, t2t_, beta_, knee_); }

double SeekFn::base_ms(double d) const {
  if (d <= 0) return 0;
  if (curve_.empty()) return knee_ > 0 ? fit_ms(d) : t2t_ + beta_ * (std::sqrt(d) - 1);
  if (d <= curve_.front().first) return curve_.front().second;
  if (d >= curve_.back().first) return curve_.back().second;
  auto hi = std::lower_bound(curve_.begin(), curve_.end(), std::make_pair(d, -1e300));
  auto lo = hi - 1;
  const double f = (d - lo->first) / (hi->first - lo->first);
  return lo->second + f * (hi->second - lo->second);
}

double SeekFn::ms(double d) const {
  const double t = base_ms(d);
  return d > short_seek_ ? t * aam_scale_ : t;
}

double mean_seek(const std::vector<Run>& runs, const SeekFn& seek) {
  std::int64_t top = 0;
  long double total = 0;
  for (const auto& r : runs) {
    top = std::max<std::int64_t>(top, static_cast<std::int64_t>(r.first + r.count));
    total += static_cast<long double>(r.weight) * r.count;
  }
  if (top == 0 || total <= 0) return 0;
  // d2[k + off]: second difference of the pair count at distance k (j − i), k in [−top, top].
  const std::int64_t off = top + 1;
  std::vector<long double> d2(static_cast<std::size_t>(2 * top + 3), 0.0L);
  auto ramp = [&](std::int64_t k, long double c) { d2[static_cast<std::size_t>(k + off)] += c; };
  for (const auto& a : runs)
    for (const auto& b : runs) {
      const long double c = static_cast<long double>(a.weight) * b.weight;
      const auto a0 = static_cast<std::int64_t>(a.first), a1 = a0 + static_cast<std::int64_t>(a.count);
      const auto b0 = static_cast<std::int64_t>(b.first), b1 = b0 + static_cast<std::int64_t>(b.count);
      ramp(b0 - a1, c);
      ramp(b0 - a0, -c);
      ramp(b1 - a1, -c);
      ramp(b1 - a0, c);
    }
  long double f = 0, g = 0, sum = 0;
  for (std::int64_t d = -top; d <= top; ++d) {
    f += g;
    if (d != 0) sum += f * seek.ms(static_cast<double>(d < 0 ? -d : d));
    g += d2[static_cast<std::size_t>(d + off)];
  }
  return static_cast<double>(sum / (total * total));
}

}  // namespace truth::detail
