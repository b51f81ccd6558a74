// The pure statistics of src/tests/common.* that the analyses lean on.
#include <doctest/doctest.h>

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
