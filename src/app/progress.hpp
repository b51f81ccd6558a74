// The progress line of long runs (bench): which test, how far, drive time used, and an ETA where
// one can honestly be given. Pure: the caller supplies the wall clock and prints the line (only
// when stderr is a terminal and --quiet is not given; see cmd_bench.cpp).
#pragma once
#include <optional>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ds::app {

struct ProgressSnapshot {
  std::string test;
  int test_number = 0;     // 1-based, in the order the tests run
  int test_count = 0;      // 0: unknown
  double fraction = 0;     // of the current test, 0..1
  double run_fraction = 0; // of the whole run, 0..1: finished tests count whole, the current one by its fraction
  double drive_s = 0;      // drive time used by the whole run so far
  // Wall-clock seconds still to go; absent when they cannot be estimated yet.
  std::optional<double> eta_test_s;  // the current test, extrapolated from its own progress
  std::optional<double> eta_run_s;   // the run: at most the budget left (tests stop at their share)
};

// "<1 s", "45 s", "3 min 05 s", "1 h 02 min".
std::string format_duration(double seconds);

// One line, no newline: "access [2/4]  43.0 %  drive time 23.4 s  ETA ~14 s (run ≤ ~1 min 30 s)".
std::string format_progress(const ProgressSnapshot& s);

// --progress=json: the snapshot as one compact JSON object (no newline) that a script reads line
// by line: {"command", "test", "test_number", "test_count", "fraction" (the run's), "test_fraction",
// "drive_s", "eta_s" (the run's, or null), "eta_test_s"} plus `extra` (ab: round, rounds, arm).
std::string format_progress_json(std::string_view command, const ProgressSnapshot& s,
                                 const nlohmann::json& extra = nlohmann::json::object());

// Turns the measurement modules' progress calls (test, fraction of that test, drive time of that
// test) into snapshots. The run's ETA rests on the drive-time budget: no test runs past its share,
// so what is left of the budget bounds what is left of the run. Drive time becomes wall time by the
// ratio seen so far (1 on a real drive, far less on a simulated one).
class ProgressEstimator {
 public:
  ProgressEstimator(int test_count, double budget_s) : test_count_(test_count), budget_s_(budget_s) {}
  ProgressSnapshot update(std::string_view test, double fraction, double test_drive_s, double wall_s);

 private:
  int test_count_;
  double budget_s_;
  std::string current_;
  int number_ = 0;
  double done_drive_s_ = 0;  // finished tests
  double current_drive_s_ = 0;
};

}  // namespace ds::app
