// Accuracy across seeds (ctest `accuracy_seeds`, not part of the `measure` test): every simulated
// drive, as it is and as a /2 variant, over 20 seeds at a 60 s drive-time budget (half of bench's default), judged
// against the independent truth (tools/truth) with the tighter criteria; each criterion must hold
// in ≥ 95 % of the runs, and every stated ± interval contain the truth in ≥ 90 % of them. docs/accuracy.md has the same at 30, 60 and 120 s (scripts/accuracy.sh).
#include <doctest/doctest.h>

#include <map>

#include "accuracy_lib.hpp"

namespace {

// Seeds per drive and variant, as the issue asks: 18 drives × 2 variants × 20 seeds = 720 runs,
// about 175 CPU seconds of bench and 65 of truth, on two threads. 95 % allows 36 failing runs.
constexpr unsigned kSeedsPerDrive = 20;
constexpr double kBudgetS = 60;  // half of bench's default 120 s: the criteria hold even at this budget
constexpr unsigned kJobs = 2;

struct Rate {
  int counted = 0, passed = 0, with_interval = 0, covered = 0;
  std::string worst;
};

}  // namespace

TEST_SUITE("accuracy_seeds") {
  TEST_CASE("every criterion holds in at least 95 % of the runs over seeds and /2 variants") {
    const auto subjects = accuracy::subjects(DS_TEST_DATA);
    std::vector<accuracy::RunSpec> specs;
    for (const auto& s : subjects)
      for (const char* variant : {"v1", "v2"})
        for (unsigned seed = 1; seed <= kSeedsPerDrive; ++seed) specs.push_back({&s, variant, seed, kBudgetS});
    const auto results = accuracy::run_many(specs, accuracy::kSeeds, kJobs);
    std::map<std::string, Rate> rates;
    std::map<std::string, int> skipped;
    int runs = 0;
    for (const auto& r : results) {
      const auto& s = *r.spec.subject;
      if (r.skipped) {
        if (skipped[r.message]++ == 0) MESSAGE("SKIPPED /2 runs: " << r.message);
        continue;
      }
      REQUIRE_MESSAGE(r.ok(), s.source << " " << r.spec.variant << " seed " << r.spec.seed << ": " << r.message);
      ++runs;
      for (const auto& o : r.outcomes) {
        if (!o.counts) continue;
        Rate& rate = rates[o.criterion];
        ++rate.counted;
        rate.passed += o.pass;
        if (o.covered) {  // per zone for the zone rates (accuracy_lib.hpp)
          rate.with_interval += o.intervals;
          rate.covered += o.intervals > 1 ? o.intervals_covered : *o.covered;
        }
        if (!o.pass && rate.worst.empty())
          rate.worst = s.name + " " + r.spec.variant + " seed " + std::to_string(r.spec.seed) + ": " +
                       o.shown_measured + " / truth " + o.shown_truth;
      }
    }
    for (const auto& [msg, n] : skipped) MESSAGE(n << " /2 runs skipped (" << msg << ")");
    CHECK(runs == static_cast<int>(subjects.size() * 2 * kSeedsPerDrive));  // no run skipped
    for (const auto& entry : rates) {
      const auto& name = entry.first;  // not a structured binding: INFO captures (clang 14)
      const auto& r = entry.second;
      INFO(name << ": " << r.passed << "/" << r.counted << " runs pass, interval coverage " << r.covered << "/"
                << r.with_interval << (r.worst.empty() ? "" : "; first failure " + r.worst));
      MESSAGE(name << ": " << r.passed << "/" << r.counted << " pass, coverage " << r.covered << "/" << r.with_interval);
      CHECK(r.passed >= accuracy::kRequiredPassRate * r.counted);
      // Every ± is a 95 % interval; over this many runs it must hold the truth at least 90 % of the time.
      CHECK(r.covered >= accuracy::kRequiredCoverage * r.with_interval);
    }
  }
}
