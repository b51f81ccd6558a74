// Seek time as a function of distance in cylinders. Either the model's explicit curve (linear
// between points) or a curve fitted to the three datasheet figures: the square-root-then-linear
// shape of Ruemmler & Wilkes, "An introduction to disk drive modeling" (IEEE Computer, 1994),
//   t(d) = a + b·√d  for d < d0,   t(d) = c + e·d  for d ≥ d0,
// with value and slope continuous at d0, t(1) = track-to-track, t(D) = full stroke (D = the
// largest distance), and d0 solved at load so that the mean over uniformly random cylinder pairs
// equals the average figure. When no d0 can reach that average (the sqrt-linear family covers a
// mean between about 1/3 and 8/15 of the way from t(1) to t(D)), a power law
// t(d) = t(1) + (t(D) − t(1))·((d−1)/(D−1))^p is fitted instead.
#pragma once
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "drivescope/expected.hpp"
#include "sim/model.hpp"

namespace ds::sim {

class SeekCurve {
 public:
  enum class Shape : std::uint8_t { table, sqrt_linear, power };

  static Expected<SeekCurve> build(const SeekSpec& spec, std::uint32_t cylinders);

  // Seek time in ns for a distance of d cylinders (0 for d == 0). Inline for the fitted curve:
  // the SPTF scorer asks for a seek per queued command per dispatch.
  std::int64_t ns(std::uint32_t d) const {
    if (d == 0) return 0;
    if (shape_ == Shape::sqrt_linear) {
      const double x = static_cast<double>(d);
      return round_half_away(((x < d0_) ? a_ + b_ * std::sqrt(x) : c_ + e_ * x) * 1e6);
    }
    return round_half_away(eval_ms(d) * 1e6);
  }
  // std::llround for |v| < 2^53 (every seek), without the library call: the truncation is exact
  // there, and so is the fraction left.
  static std::int64_t round_half_away(double v) {
    if (!(std::fabs(v) < 0x1p53)) return std::llround(v);
    auto i = static_cast<std::int64_t>(v);
    const double frac = v - static_cast<double>(i);
    if (frac >= 0.5) ++i;
    else if (frac <= -0.5) --i;
    return i;
  }
  double ms(std::uint32_t d) const { return static_cast<double>(ns(d)) / 1e6; }
  // Mean over uniformly random pairs of cylinders (distance 0 counts as a zero-time seek).
  double mean_random_pair_ms() const;
  Shape shape() const { return shape_; }

 private:
  double eval_ms(double d) const;
  Shape shape_ = Shape::table;
  std::uint32_t cylinders_ = 1;
  std::vector<std::pair<double, double>> table_;  // (distance, ms)
  double a_ = 0, b_ = 0, c_ = 0, e_ = 0, d0_ = 1;   // sqrt_linear
  double t1_ = 0, tD_ = 0, p_ = 1;                  // power
};

// Mean of f(d) over uniformly random pairs of cylinders in [0, C): Σ_{d≥1} 2(C−d)·f(d) / C².
// Exact summation for short distances, block midpoints beyond (f is smooth there).
template <class F>
double mean_over_random_pairs(std::uint32_t C, F&& f) {
  if (C < 2) return 0.0;
  const double c = C;
  double sum = 0;
  const std::uint32_t exact = C - 1 < 4096 ? C - 1 : 4096;
  for (std::uint32_t d = 1; d <= exact; ++d) sum += 2.0 * (c - d) * f(static_cast<double>(d));
  if (exact < C - 1) {
    const double lo0 = exact + 1, hi0 = C - 1;
    const int blocks = 8192;
    const double step = (hi0 - lo0 + 1) / blocks;
    for (int i = 0; i < blocks; ++i) {
      const double lo = lo0 + i * step, mid = lo + step / 2 - 0.5;
      sum += step * 2.0 * (c - mid) * f(mid);
    }
  }
  return sum / (c * c);
}

}  // namespace ds::sim
