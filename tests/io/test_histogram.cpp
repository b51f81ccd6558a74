#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "io/histogram.hpp"

using ds::io::Histogram;

namespace {

// Nearest-rank percentile of sorted data, the definition Histogram::percentile estimates.
std::uint64_t exact_percentile(const std::vector<std::uint64_t>& sorted, double p) {
  double r = std::ceil(p / 100.0 * static_cast<double>(sorted.size()) - 1e-9);
  std::size_t rank = r < 1 ? 1 : static_cast<std::size_t>(r);
  rank = std::min(rank, sorted.size());
  return sorted[rank - 1];
}

void check_error_bound(std::vector<std::uint64_t> data, unsigned bits) {
  Histogram h(bits);
  for (auto v : data) h.add(v);
  std::sort(data.begin(), data.end());
  const std::uint64_t n2 = std::uint64_t{2} << bits;  // 2N
  for (double p : {0.0, 0.1, 1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 99.99,
                   100.0}) {
    const std::uint64_t exact = exact_percentile(data, p);
    const std::uint64_t est = h.percentile(p);
    const std::uint64_t diff = est > exact ? est - exact : exact - est;
    INFO("bits=" << bits << " p=" << p << " exact=" << exact << " est=" << est);
    // |est - exact| <= exact / (2N), in integers.
    CHECK(diff * n2 <= exact);
  }
  CHECK(h.percentile(0) == data.front());
  CHECK(h.percentile(100) == data.back());
}

}  // namespace

TEST_CASE("histogram: every value falls in its bucket and bucket width is at most 1/N") {
  for (unsigned bits : {1u, 4u, 7u, 10u}) {
    Histogram h(bits);
    const std::uint64_t n = std::uint64_t{1} << bits;
    std::mt19937_64 rng(bits);
    for (int i = 0; i < 20000; ++i) {
      const unsigned shift = static_cast<unsigned>(rng() % 64);
      const std::uint64_t v = rng() >> shift;
      const auto b = h.bucket_bounds(h.bucket_index(v));
      REQUIRE(b.lower <= v);
      REQUIRE(v <= b.upper);
      if (b.lower >= n) REQUIRE((b.upper - b.lower + 1) * n <= b.lower);
      else REQUIRE(b.upper == b.lower);  // exact below N
    }
    // Adjacent buckets tile the range without gaps.
    for (std::size_t i = 0; i + 1 < 40 * n && i + 1 < (65 - bits) * n; ++i)
      REQUIRE(h.bucket_bounds(i).upper + 1 == h.bucket_bounds(i + 1).lower);
    const auto top = h.bucket_bounds(h.bucket_index(UINT64_MAX));
    CHECK(top.upper == UINT64_MAX);
  }
}

TEST_CASE("histogram: percentiles within the relative error bound on random data") {
  std::mt19937_64 rng(42);
  for (unsigned bits : {3u, 5u, 7u}) {
    {  // log-normal, like disk latencies: 8 ms median with a long tail
      std::lognormal_distribution<double> d(std::log(8e6), 0.8);
      std::vector<std::uint64_t> v(50000);
      for (auto& x : v) x = static_cast<std::uint64_t>(d(rng));
      check_error_bound(v, bits);
    }
    {  // uniform over twelve decades
      std::vector<std::uint64_t> v(50000);
      for (auto& x : v) x = rng() >> (24 + rng() % 40);
      check_error_bound(v, bits);
    }
    {  // exponential, SSD-like microseconds, including tiny values near the exact range
      std::exponential_distribution<double> d(1.0 / 90'000);
      std::vector<std::uint64_t> v(30000);
      for (auto& x : v) x = static_cast<std::uint64_t>(d(rng));
      check_error_bound(v, bits);
    }
    {  // few distinct values, many repeats
      std::vector<std::uint64_t> v;
      for (int i = 0; i < 1000; ++i) v.insert(v.end(), {100, 1000, 123456, 99999999});
      check_error_bound(v, bits);
    }
  }
}

TEST_CASE("histogram: exact count, min, max, mean and stddev") {
  Histogram h;
  CHECK(h.count() == 0);
  CHECK(h.percentile(50) == 0);
  CHECK(h.mean() == 0.0);
  const std::vector<std::uint64_t> v{5, 1'000, 3'000'000, 42, 7'777'777'777};
  long double sum = 0;
  for (auto x : v) {
    h.add(x);
    sum += x;
  }
  const double mean = static_cast<double>(sum / v.size());
  double var = 0;
  for (auto x : v) var += (x - mean) * (x - mean);
  var /= v.size();
  CHECK(h.count() == 5);
  CHECK(h.min() == 5);
  CHECK(h.max() == 7'777'777'777);
  CHECK(h.mean() == doctest::Approx(mean).epsilon(1e-12));
  CHECK(h.stddev() == doctest::Approx(std::sqrt(var)).epsilon(1e-9));
  h.add(10, 3);
  CHECK(h.count() == 8);
  h.clear();
  CHECK(h.count() == 0);
  CHECK(h.buckets().empty());
}

TEST_CASE("histogram: merge equals adding everything to one histogram") {
  std::mt19937_64 rng(7);
  Histogram a, b, all;
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t x = rng() >> (20 + rng() % 30);
    (i % 3 ? a : b).add(x);
    all.add(x);
  }
  auto r = a.merge(b);
  REQUIRE(r.ok());
  CHECK(*r == 10000);
  CHECK(a.count() == all.count());
  CHECK(a.min() == all.min());
  CHECK(a.max() == all.max());
  CHECK(a.mean() == doctest::Approx(all.mean()));
  for (double p : {1.0, 50.0, 99.0, 99.9}) CHECK(a.percentile(p) == all.percentile(p));
  const auto ba = a.buckets(), bb = all.buckets();
  REQUIRE(ba.size() == bb.size());
  for (std::size_t i = 0; i < ba.size(); ++i) CHECK(ba[i].count == bb[i].count);

  Histogram coarse(4);
  auto bad = a.merge(coarse);
  CHECK_FALSE(bad.ok());
  CHECK(bad.error().message.find("different resolutions") != std::string::npos);
}

TEST_CASE("histogram: bucket export is sorted, disjoint and sums to the count") {
  Histogram h(6);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 5000; ++i) h.add(rng() % 10'000'000);
  const auto bs = h.buckets();
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < bs.size(); ++i) {
    CHECK(bs[i].count > 0);
    CHECK(bs[i].lower <= bs[i].upper);
    if (i) CHECK(bs[i - 1].upper < bs[i].lower);
    total += bs[i].count;
  }
  CHECK(total == h.count());
  CHECK(h.relative_error_bound() == doctest::Approx(1.0 / 128));
}
