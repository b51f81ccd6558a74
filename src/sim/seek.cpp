#include "sim/seek.hpp"

#include <algorithm>
#include <cmath>

namespace ds::sim {

double SeekCurve::eval_ms(double d) const {
  if (d <= 0) return 0.0;
  switch (shape_) {
    case Shape::table: {
      if (d <= table_.front().first) return table_.front().second;
      if (d >= table_.back().first) return table_.back().second;
      auto it = std::upper_bound(table_.begin(), table_.end(), d,
                                 [](double x, const auto& p) { return x < p.first; });
      const auto& [x1, y1] = *it;
      const auto& [x0, y0] = *(it - 1);
      return y0 + (y1 - y0) * (d - x0) / (x1 - x0);
    }
    case Shape::sqrt_linear:
      return d < d0_ ? a_ + b_ * std::sqrt(d) : c_ + e_ * d;
    case Shape::power: {
      const double D = cylinders_ > 1 ? cylinders_ - 1.0 : 1.0;
      if (D <= 1) return t1_;
      return t1_ + (tD_ - t1_) * std::pow((d - 1) / (D - 1), p_);
    }
  }
  return 0.0;
}

double SeekCurve::mean_random_pair_ms() const {
  return mean_over_random_pairs(cylinders_, [this](double d) { return eval_ms(d); });
}

Expected<SeekCurve> SeekCurve::build(const SeekSpec& spec, std::uint32_t cylinders) {
  SeekCurve s;
  s.cylinders_ = std::max<std::uint32_t>(cylinders, 1);
  if (!spec.curve.empty()) {
    s.shape_ = Shape::table;
    s.table_ = spec.curve;
    return s;
  }
  const double t1 = spec.track_to_track_ms, tD = spec.full_stroke_ms, avg = spec.average_ms;
  const double D = s.cylinders_ - 1.0;
  if (D < 2) {  // a one- or two-cylinder drive: every seek is a track-to-track seek
    s.shape_ = Shape::power;
    s.t1_ = t1;
    s.tD_ = t1;
    return s;
  }
  // Sqrt-linear family, parametrised by d0 (see the header). b from t(1) and t(D):
  //   tD − t1 = b·(√d0/2 + D/(2√d0) − 1);  a = t1 − b;  e = b/(2√d0);  c = a + b·√d0/2.
  auto set_d0 = [&](SeekCurve& c, double d0) {
    const double r = std::sqrt(d0);
    const double denom = r / 2 + D / (2 * r) - 1;
    c.shape_ = Shape::sqrt_linear;
    c.d0_ = d0;
    c.b_ = denom > 1e-12 ? (tD - t1) / denom : 0.0;
    c.a_ = t1 - c.b_;
    c.e_ = c.b_ / (2 * r);
    c.c_ = c.a_ + c.b_ * r / 2;
  };
  // The mean grows with d0 (a larger square-root part bends the curve up): bisect on log d0.
  double lo = std::log(1.0), hi = std::log(D);
  SeekCurve probe = s;
  set_d0(probe, std::exp(lo));
  const double m_lo = probe.mean_random_pair_ms();
  set_d0(probe, std::exp(hi));
  const double m_hi = probe.mean_random_pair_ms();
  if (avg >= m_lo && avg <= m_hi) {
    for (int i = 0; i < 60; ++i) {
      const double mid = (lo + hi) / 2;
      set_d0(probe, std::exp(mid));
      (probe.mean_random_pair_ms() < avg ? lo : hi) = mid;
    }
    set_d0(s, std::exp((lo + hi) / 2));
    return s;
  }
  // Fall back to the power law; its mean falls as p grows.
  s.shape_ = Shape::power;
  s.t1_ = t1;
  s.tD_ = tD;
  double plo = std::log(0.02), phi = std::log(20.0);
  for (int i = 0; i < 60; ++i) {
    const double mid = (plo + phi) / 2;
    s.p_ = std::exp(mid);
    (s.mean_random_pair_ms() > avg ? plo : phi) = mid;
  }
  s.p_ = std::exp((plo + phi) / 2);
  const double got = s.mean_random_pair_ms();
  if (std::fabs(got - avg) > 0.01 * avg)
    return make_error("seek.average_ms: no seek curve between track_to_track_ms and full_stroke_ms has this mean");
  return s;
}

}  // namespace ds::sim
