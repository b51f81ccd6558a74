// The pure statistics of src/tests/stats.* that the analyses lean on.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "tests/common.hpp"

using ds::measure::rank_correlation;

TEST_CASE("rank_correlation: monotone, reversed, ties and too few") {
  const std::vector<double> x{1, 2, 3, 4, 5, 6};
  CHECK(rank_correlation(x, std::vector<double>{0.1, 0.5, 0.6, 2, 7, 9}) == doctest::Approx(1));
  CHECK(rank_correlation(x, std::vector<double>{9, 7, 2, 0.6, 0.5, 0.1}) == doctest::Approx(-1));
  // A flat series with one step: ties share their rank.
  CHECK(rank_correlation(x, std::vector<double>{1, 1, 1, 1, 1, 2}) == doctest::Approx(0.65465).epsilon(1e-4));
  CHECK(rank_correlation(x, std::vector<double>(6, 3.0)) == 0);
  CHECK(rank_correlation(std::vector<double>{1, 2}, std::vector<double>{1, 2}) == 0);
}

TEST_CASE("t95: Student's two-sided 95 % quantile, toward 1.96 with many values") {
  using ds::measure::t95;
  CHECK(t95(1) == doctest::Approx(12.706).epsilon(1e-4));  // tables (e.g. NIST/SEMATECH 1.3.6.7.2)
  CHECK(t95(2) == doctest::Approx(4.303).epsilon(1e-4));
  CHECK(t95(7) == doctest::Approx(2.3646).epsilon(1e-4));
  CHECK(t95(29) == doctest::Approx(2.045).epsilon(1e-4));
  CHECK(t95(1e6) == doctest::Approx(ds::measure::kZ95).epsilon(1e-3));
  CHECK(std::isnan(t95(0)));
  // What 1.96 in its place would cover: the comment in stats.hpp.
  auto cover = [](double df) { return 2 * ds::measure::student_t_cdf(ds::measure::kZ95, df) - 1; };
  CHECK(cover(7) == doctest::Approx(0.91).epsilon(0.01));
  CHECK(cover(2) == doctest::Approx(0.81).epsilon(0.01));
}

TEST_CASE("mean and median half-widths: t times the standard error, none from one value") {
  const std::vector<double> v{10, 12, 11, 13};
  const double s = ds::measure::stddev(v);
  CHECK(ds::measure::mean_half_width(v) == doctest::Approx(ds::measure::t95(3) * s / 2));
  CHECK(ds::measure::median_half_width(v) == doctest::Approx(ds::measure::t95(3) * ds::measure::median_se(v)));
  CHECK(ds::measure::mean_half_width(std::vector<double>{5}) == 0);
  CHECK(ds::measure::median_half_width(std::vector<double>{5}) == 0);
}
