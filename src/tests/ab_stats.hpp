// A/B statistics: the per-round values of one figure under arm A and arm B turned into the
// difference B vs A in percent of A, a 95 % confidence interval (Welch's t-interval, with a
// percentile bootstrap alongside), a verdict (significant or not) and a spread warning.
// Pure functions over numbers; no device, no simulator (see docs/features.md).
//
// Why Welch: the two arms need not have the same run-to-run variance (a feature that slows seeks
// may also make them noisier), and the rounds are few (3-20), so a t-interval with the
// Welch-Satterthwaite degrees of freedom is the honest small-sample choice. The bootstrap is kept
// as a cross-check that does not assume normality; it is optimistic for very few rounds.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "drivescope/expected.hpp"
#include "tests/stats.hpp"

namespace ds::measure {

struct AbStatsOptions {
  double confidence = 0.95;
  unsigned bootstrap_resamples = 2000;  // 0: no bootstrap
  std::uint64_t seed = 1;               // bootstrap resampling (results are reproducible)
};

struct AbComparison {
  std::string test, figure;       // e.g. "access", "read.mean_ms"
  std::vector<double> a, b;       // the per-round values, in round order
  double mean_a = 0, mean_b = 0;
  double sd_a = 0, sd_b = 0;      // sample standard deviations (n-1)
  double diff = 0;                // mean_b - mean_a, in the figure's unit
  double diff_pct = 0;            // 100 * diff / mean_a
  double ci_low_pct = 0, ci_high_pct = 0;      // Welch interval of diff, in % of mean_a
  double boot_low_pct = 0, boot_high_pct = 0;  // bootstrap percentile interval of the ratio
  double df = 0;                  // Welch-Satterthwaite degrees of freedom
  bool significant = false;       // the Welch interval excludes 0
  double spread_a_pct = 0, spread_b_pct = 0;  // (max-min)/mean inside each arm, in %
  // The spread inside an arm is larger than the difference being tested (seed 001's situation:
  // a few percent between schedulers next to a 60 % run-to-run spread).
  bool spread_warning = false;
  std::string note;               // why the verdict is weak or missing, if it is
};

// Compare the per-round values of one figure. Needs at least 2 values per arm and a non-zero
// mean for A (the percentages are relative to it); otherwise an error saying which.
Expected<AbComparison> compare_arms(std::string test, std::string figure, std::span<const double> a,
                                    std::span<const double> b, const AbStatsOptions& opt = {});

// One line for the text report: "read.mean_ms  +12.3 % [+10.1, +14.5] significant".
std::string comparison_line(const AbComparison& c);

}  // namespace ds::measure
