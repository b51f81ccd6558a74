#include "io/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace ds::io {

Histogram::Histogram(unsigned sub_bucket_bits)
    : bits_(std::clamp(sub_bucket_bits, 1u, 12u)),
      sub_buckets_(std::uint64_t{1} << bits_),
      counts_(static_cast<std::size_t>(65 - bits_) * sub_buckets_, 0) {}

std::size_t Histogram::bucket_index(std::uint64_t value) const {
  if (value < sub_buckets_) return static_cast<std::size_t>(value);
  // Group g >= 1 holds [2^(B+g-1), 2^(B+g)) in N sub-buckets of width 2^(g-1).
  const unsigned msb = 63u - static_cast<unsigned>(std::countl_zero(value));
  const unsigned shift = msb - bits_;
  const std::uint64_t group = shift + 1;
  const std::uint64_t sub = (value >> shift) - sub_buckets_;
  return static_cast<std::size_t>(group * sub_buckets_ + sub);
}

Histogram::Bucket Histogram::bucket_bounds(std::size_t index) const {
  const std::uint64_t group = index / sub_buckets_;
  const std::uint64_t sub = index % sub_buckets_;
  Bucket b;
  if (group == 0) {
    b.lower = b.upper = sub;
  } else {
    const unsigned shift = static_cast<unsigned>(group - 1);
    b.lower = (sub_buckets_ + sub) << shift;
    b.upper = b.lower + ((std::uint64_t{1} << shift) - 1);
  }
  b.count = index < counts_.size() ? counts_[index] : 0;
  return b;
}

void Histogram::add(std::uint64_t value, std::uint64_t times) {
  if (times == 0) return;
  counts_[bucket_index(value)] += times;
  if (count_ == 0 || value < min_) min_ = value;
  if (count_ == 0 || value > max_) max_ = value;
  count_ += times;
  const long double v = static_cast<long double>(value);
  sum_ += v * times;
  sum_sq_ += v * v * times;
}

Expected<std::uint64_t> Histogram::merge(const Histogram& other) {
  if (other.bits_ != bits_)
    return make_error("cannot merge latency histograms with different resolutions (" +
                      std::to_string(bits_) + " vs " + std::to_string(other.bits_) +
                      " sub-bucket bits)");
  if (other.count_ == 0) return count_;
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  if (count_ == 0 || other.min_ < min_) min_ = other.min_;
  if (count_ == 0 || other.max_ > max_) max_ = other.max_;
  count_ += other.count_;
  sum_ += other.sum_;
  sum_sq_ += other.sum_sq_;
  return count_;
}

void Histogram::clear() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = min_ = max_ = 0;
  sum_ = sum_sq_ = 0;
}

double Histogram::mean() const {
  return count_ ? static_cast<double>(sum_ / static_cast<long double>(count_)) : 0.0;
}

double Histogram::stddev() const {
  if (count_ < 2) return 0.0;
  const long double n = static_cast<long double>(count_);
  const long double m = sum_ / n;
  const long double var = sum_sq_ / n - m * m;
  return var > 0 ? std::sqrt(static_cast<double>(var)) : 0.0;
}

std::uint64_t Histogram::percentile(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  // Nearest rank; the small epsilon keeps e.g. 99 % of 1000 at rank 990, not 991 (float noise).
  double r = std::ceil(p / 100.0 * static_cast<double>(count_) - 1e-9);
  std::uint64_t rank = r < 1 ? 1 : static_cast<std::uint64_t>(r);
  if (rank >= count_) return max_;  // the extremes are known exactly
  if (rank == 1) return min_;
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    seen += counts_[i];
    if (seen >= rank) {
      const Bucket b = bucket_bounds(i);
      // The midpoint (rounded up) is at most half a bucket width, i.e. 1/(2N) of the lower
      // bound, from any value in the bucket; clamping to min/max can only bring it closer.
      const std::uint64_t mid = b.lower + (b.upper - b.lower + 1) / 2;
      return std::clamp(mid, min_, max_);
    }
  }
  return max_;
}

std::vector<Histogram::Bucket> Histogram::buckets() const {
  std::vector<Bucket> out;
  for (std::size_t i = 0; i < counts_.size(); ++i)
    if (counts_[i]) out.push_back(bucket_bounds(i));
  return out;
}

}  // namespace ds::io
