// The pure statistics of src/tests/stats.* that the analyses lean on.
#include <doctest/doctest.h>

#include <cmath>
#include <span>
#include <vector>

#include "tests/common.hpp"

using ds::measure::fit_plane;
using ds::measure::PlaneFit;
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

TEST_CASE("fit_plane: recovers an exact plane, a pace's covariance from its residuals, none from three points") {
  // y = 2 + 3·x1 − 0.5·x2, exactly: the coefficients back, no variance left.
  const std::vector<double> x1{1, 2, 3, 4, 5, 6}, x2{0.1, 1.7, 0.4, 3.1, 2.2, 0.9};
  std::vector<double> y;
  for (std::size_t i = 0; i < x1.size(); ++i) y.push_back(2 + 3 * x1[i] - 0.5 * x2[i]);
  const PlaneFit f = fit_plane(x1, x2, y);
  CHECK(f.intercept == doctest::Approx(2));
  CHECK(f.a1 == doctest::Approx(3));
  CHECK(f.a2 == doctest::Approx(-0.5));
  CHECK(f.at(0.5) == doctest::Approx(2.75));
  CHECK(f.se_at(0.5) < 1e-6);
  CHECK(f.dof == 3);
  // One value off the plane: a variance, larger at a u far from the data's.
  y[2] += 1;
  const PlaneFit g = fit_plane(x1, x2, y);
  CHECK(g.se_at(0.5) > 0);
  CHECK(g.se_at(10) > g.se_at(0.5));
  // Three points fit any plane: nothing to tell.
  const PlaneFit h = fit_plane(std::span(x1).first(3), std::span(x2).first(3), std::span(y).first(3));
  CHECK(h.dof == 0);
  CHECK(h.a1 == 0);
}

TEST_CASE("mean_se and trimmed_mean_se: s/sqrt(n), the tails left out as asked, none from too few") {
  const std::vector<double> v{1, 2, 3, 4};
  const auto m = ds::measure::mean_se(v);
  CHECK(m.mean == doctest::Approx(2.5));
  // s = sqrt(5/3), se = s/2
  CHECK(m.se == doctest::Approx(std::sqrt(5.0 / 3.0) / 2));
  CHECK(std::isnan(ds::measure::mean_se(std::vector<double>{7}).mean));
  // Unsorted, with one stall among them: dropping the largest leaves 1..4.
  const auto t = ds::measure::trimmed_mean_se({4, 100, 1, 3, 2}, 0, 1);
  CHECK(t.mean == doctest::Approx(2.5));
  CHECK(t.se == doctest::Approx(m.se));
  const auto both = ds::measure::trimmed_mean_se({-50, 4, 100, 1, 3, 2}, 1, 1);
  CHECK(both.mean == doctest::Approx(2.5));
  CHECK(std::isnan(ds::measure::trimmed_mean_se({1, 2, 3}, 1, 1).mean));
  CHECK(std::isnan(ds::measure::trimmed_mean_se({1, 2}, 2, 1).mean));
}
