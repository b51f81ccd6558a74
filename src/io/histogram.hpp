// A log-linear latency histogram (the layout fio's clat histogram and HdrHistogram use): every
// power of two [2^k, 2^(k+1)) is cut into N = 2^sub_bucket_bits equal sub-buckets, and values
// below N get one bucket each. A bucket's width is then at most 1/N of its lower bound, so any
// value read back (the bucket's midpoint, clamped to the observed min/max) is within 1/(2N) of the
// true value, whatever the scale. Memory is fixed at construction: (65 - bits) * N counters cover
// the whole 64-bit range, so no value is ever dropped.
#pragma once
#include <cstdint>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::io {

class Histogram {
 public:
  struct Bucket {
    std::uint64_t lower = 0;  // smallest value counted here
    std::uint64_t upper = 0;  // largest value counted here (inclusive)
    std::uint64_t count = 0;
  };

  // sub_bucket_bits in [1, 12]; out-of-range values are clamped. 7 → 128 sub-buckets, bound 0.39 %.
  explicit Histogram(unsigned sub_bucket_bits = 7);

  void add(std::uint64_t value, std::uint64_t times = 1);
  // Adds another histogram's counts; both must use the same sub_bucket_bits.
  Expected<std::uint64_t> merge(const Histogram& other);
  void clear();

  std::uint64_t count() const { return count_; }
  std::uint64_t min() const { return count_ ? min_ : 0; }
  std::uint64_t max() const { return max_; }
  double mean() const;    // exact (kept from the running sum, not from the buckets)
  double stddev() const;  // population standard deviation, exact
  // Nearest-rank percentile, p in [0, 100]: an estimate of the value at rank ceil(p/100 * count),
  // within relative_error_bound() of it. 0 when empty.
  std::uint64_t percentile(double p) const;
  double relative_error_bound() const { return 1.0 / (2.0 * static_cast<double>(sub_buckets_)); }
  unsigned sub_bucket_bits() const { return bits_; }

  // Non-empty buckets in increasing order (for JSON and plots).
  std::vector<Bucket> buckets() const;

  // Index arithmetic, exposed for tests.
  std::size_t bucket_index(std::uint64_t value) const;
  Bucket bucket_bounds(std::size_t index) const;

 private:
  unsigned bits_;
  std::uint64_t sub_buckets_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
  // Sums kept in long double: the mean stays exact for any realistic run, and the variance is
  // computed from them without a second pass.
  long double sum_ = 0;
  long double sum_sq_ = 0;
};

}  // namespace ds::io
