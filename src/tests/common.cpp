#include "tests/common.hpp"

#include <cerrno>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace ds::measure {

std::string io_errno_text(int e) {
  // A device that vanished fails its in-flight I/O with ENODEV/ENXIO: say so, like a refused submit.
  if (e == ENODEV || e == ENXIO) return "the device is gone (errno " + std::to_string(e) + ")";
  if (e == EIO) return "medium or device error (errno " + std::to_string(e) + ", EIO)";
  return "errno " + std::to_string(e);
}

bool device_errno(int e) { return e == EIO || e == ENODEV || e == ENXIO || e == ETIMEDOUT; }

std::string where_text(const IoTargetInfo& info, std::uint64_t offset_bytes) {
  const std::uint64_t lb = info.logical_block_bytes ? info.logical_block_bytes : 512;
  const std::uint64_t at = info.origin_bytes + offset_bytes;
  if (at % lb) return "LBA " + std::to_string(at / lb) + " (byte offset " + std::to_string(at) + ")";
  return "LBA " + std::to_string(at / lb);
}

Span span_of(const IoTargetInfo& info, std::uint64_t span_blocks) {
  Span s;
  if (info.logical_block_bytes) s.block_bytes = info.logical_block_bytes;
  s.blocks = info.capacity_bytes / s.block_bytes;
  if (span_blocks) s.blocks = std::min(s.blocks, span_blocks);
  return s;
}

std::vector<PlanEntry> sequential_plan(std::uint64_t lba, std::uint32_t blocks, std::size_t count,
                                       std::uint64_t end_lba) {
  std::vector<PlanEntry> p;
  p.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t a = lba + static_cast<std::uint64_t>(i) * blocks;
    if (a + blocks > end_lba) break;
    p.push_back({a, blocks, false});
  }
  return p;
}

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

std::uint64_t Rng::next() {
  std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace ds::measure

namespace ds::measure {

namespace {
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

}  // namespace ds::measure
