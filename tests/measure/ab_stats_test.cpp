// A/B statistics (src/tests/ab_stats): t distribution against table values, Welch's interval
// against a hand computation, the coverage of the interval on data with no difference, and the
// spread warning.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "tests/ab_stats.hpp"
#include "tests/common.hpp"

using namespace ds::measure;

TEST_CASE("student t quantiles match the printed tables") {
  // Two-sided 95 % critical values (any statistics table).
  CHECK(student_t_quantile(0.975, 1) == doctest::Approx(12.7062).epsilon(1e-4));
  CHECK(student_t_quantile(0.975, 4) == doctest::Approx(2.7764).epsilon(1e-4));
  CHECK(student_t_quantile(0.975, 10) == doctest::Approx(2.2281).epsilon(1e-4));
  CHECK(student_t_quantile(0.975, 30) == doctest::Approx(2.0423).epsilon(1e-4));
  CHECK(student_t_quantile(0.975, 1e6) == doctest::Approx(1.95996).epsilon(1e-4));
  CHECK(student_t_quantile(0.025, 4) == doctest::Approx(-2.7764).epsilon(1e-4));
  CHECK(student_t_cdf(0, 7) == doctest::Approx(0.5));
  CHECK(student_t_cdf(2.3646, 7) == doctest::Approx(0.975).epsilon(1e-4));
  CHECK(std::isnan(student_t_quantile(1.5, 3)));
}

TEST_CASE("Welch interval of a hand-computed example") {
  // a: mean 2, sd 1; b: mean 5, sd 1; se = sqrt(2/3); df = 4; t = 2.7764.
  std::vector<double> a{1, 2, 3}, b{4, 5, 6};
  auto c = compare_arms("access", "read.mean_ms", a, b);
  REQUIRE(c);
  CHECK(c->diff == doctest::Approx(3));
  CHECK(c->diff_pct == doctest::Approx(150));
  CHECK(c->df == doctest::Approx(4));
  const double half = 2.7764 * std::sqrt(2.0 / 3.0);
  CHECK(c->ci_low_pct == doctest::Approx((3 - half) / 2 * 100).epsilon(1e-3));
  CHECK(c->ci_high_pct == doctest::Approx((3 + half) / 2 * 100).epsilon(1e-3));
  CHECK(c->significant);
  CHECK(c->spread_a_pct == doctest::Approx(100));  // (3-1)/2
  CHECK_FALSE(c->spread_warning);                  // 100 % < 150 %
  CHECK(c->boot_low_pct > 0);
  CHECK(c->boot_high_pct > c->boot_low_pct);
}

TEST_CASE("a small difference inside a large spread is not significant and is flagged") {
  // Seed 001's situation: a 3 % difference, runs disagreeing by tens of percent.
  std::vector<double> a{100, 160, 110, 140}, b{105, 150, 120, 150};
  auto c = compare_arms("transfer", "outer_mb_s", a, b);
  REQUIRE(c);
  CHECK_FALSE(c->significant);
  CHECK(c->spread_warning);
  CHECK(c->ci_low_pct < 0);
  CHECK(c->ci_high_pct > 0);
}

TEST_CASE("bad input is an error, not a crash") {
  std::vector<double> one{1}, two{1, 2}, zero{0, 0}, nan{1, NAN};
  CHECK_FALSE(compare_arms("t", "f", one, two));
  CHECK_FALSE(compare_arms("t", "f", two, one));
  CHECK_FALSE(compare_arms("t", "f", zero, two));
  CHECK_FALSE(compare_arms("t", "f", nan, two));
  CHECK_FALSE(compare_arms("t", "f", two, nan));
  // Constant arms: a deterministic figure; equal → not significant, different → significant.
  std::vector<double> c1{5, 5, 5}, c2{6, 6, 6};
  auto same = compare_arms("t", "f", c1, c1);
  REQUIRE(same);
  CHECK_FALSE(same->significant);
  auto diff = compare_arms("t", "f", c1, c2);
  REQUIRE(diff);
  CHECK(diff->significant);
  CHECK(diff->diff_pct == doctest::Approx(20));
}

TEST_CASE("the 95 % interval covers a zero difference about 95 % of the time") {
  Rng rng(42);
  auto normal = [&] {
    double u1 = rng.uniform(), u2 = rng.uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  };
  int false_pos = 0;
  const int reps = 2000;
  for (int r = 0; r < reps; ++r) {
    std::vector<double> a, b;
    for (int i = 0; i < 6; ++i) a.push_back(10 + normal());
    for (int i = 0; i < 6; ++i) b.push_back(10 + 2 * normal());  // unequal variances: Welch's case
    AbStatsOptions o;
    o.bootstrap_resamples = 0;
    auto c = compare_arms("t", "f", a, b, o);
    REQUIRE(c);
    false_pos += c->significant;
  }
  const double rate = static_cast<double>(false_pos) / reps;
  MESSAGE("false-positive rate at 95 %: " << rate);
  CHECK(rate > 0.03);
  CHECK(rate < 0.07);
}
