#include "tests/demerit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace ds::measure {

namespace {

constexpr int kBuckets = 1750;          // valid/statdefs "Distribution size"
constexpr double kScalePerMs = 1000;    // "Scale": times are counted in whole µs
constexpr long kGrowPct = 1;            // "grow 1": each bucket ~1 % wider than the last
constexpr int kProbabilitySteps = 10000;  // rms.c samples the curves every 0.0001
constexpr double kPrintedDecimals = 1e6;  // the cumulative fraction is printed with %f

// Lower edges of DiskSim's buckets, in µs: 0, 1, 2, … each next = previous + 1 + previous·grow/100.
const std::vector<long>& bucket_edges() {
  static const std::vector<long> edges = [] {
    std::vector<long> e(kBuckets);
    long v = 0;
    for (int i = 0; i < kBuckets; ++i) {
      e[static_cast<std::size_t>(i)] = v;
      v += 1 + (std::labs(v) * kGrowPct) / 100;
    }
    return e;
  }();
  return edges;
}

// Which bucket a time in whole µs falls in: bucket k + 1 holds [edge k, edge k+1); the last bucket
// also takes everything from the second-to-last edge on (DiskSim's overflow rule); negative → 0.
std::size_t bucket_of(long us) {
  const auto& e = bucket_edges();
  if (us < 0) return 0;
  if (us >= e[e.size() - 2]) return e.size() - 1;
  const auto it = std::upper_bound(e.begin(), e.end(), us);  // first edge above us
  return static_cast<std::size_t>(it - e.begin());
}

// The time at which the polyline reaches probability p (p in (0, 1]); `i` is a cursor that only
// moves forward (p increases along the sweep).
double time_at(const std::vector<CdfPoint>& c, double p, std::size_t& i) {
  while (i < c.size() && c[i].p < p) ++i;
  if (i == 0) return c.front().ms;
  if (i >= c.size()) return c.back().ms;
  const CdfPoint& lo = c[i - 1];
  const CdfPoint& hi = c[i];
  const double f = (p - lo.p) / (hi.p - lo.p);
  return lo.ms + f * (hi.ms - lo.ms);
}

}  // namespace

std::vector<CdfPoint> disksim_cdf(std::span<const double> times_ms) {
  std::vector<CdfPoint> out;
  if (times_ms.empty()) return out;
  const auto& e = bucket_edges();
  std::vector<long> counts(e.size(), 0);
  for (double t : times_ms) {
    const double us = t * kScalePerMs;
    const long v = std::isfinite(us) ? static_cast<long>(std::clamp(us, -1.0, 1e15)) : static_cast<long>(1e15);
    ++counts[bucket_of(v)];
  }
  const double n = static_cast<double>(times_ms.size());
  double cum = 0;
  for (std::size_t i = 0; i < e.size(); ++i) {
    cum += static_cast<double>(counts[i]) / n;
    const double printed = std::round(cum * kPrintedDecimals) / kPrintedDecimals;
    out.push_back({static_cast<double>(e[i]) / kScalePerMs, printed});
    if (printed >= 1.0) break;
  }
  return out;
}

double cdf_rms_distance_ms(const std::vector<CdfPoint>& a, const std::vector<CdfPoint>& b) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (a.empty() || b.empty() || a.back().p < 1.0 || b.back().p < 1.0) return nan;
  std::size_t ia = 0, ib = 0;
  double sum_sq = 0;
  for (int k = 1; k <= kProbabilitySteps; ++k) {
    const double p = static_cast<double>(k) / kProbabilitySteps;
    const double d = time_at(a, p, ia) - time_at(b, p, ib);
    sum_sq += d * d;
  }
  return std::sqrt(sum_sq / kProbabilitySteps);
}

double demerit_ms(std::span<const double> simulated, std::span<const double> measured) {
  return cdf_rms_distance_ms(disksim_cdf(simulated), disksim_cdf(measured));
}

double demerit_pct(std::span<const double> simulated, std::span<const double> measured) {
  if (measured.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double m = std::accumulate(measured.begin(), measured.end(), 0.0) / static_cast<double>(measured.size());
  return m > 0 ? 100.0 * demerit_ms(simulated, measured) / m : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace ds::measure
