// `drivescope ab`: interleaved A/B runs of the measurement tests with one feature switched
// between two settings (A B A B …), the difference of every figure with a confidence interval and
// a verdict (src/tests/ab_stats), and the feature put back through a RestoreStack on every exit
// path. See docs/features.md.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/features.hpp"
#include "app/identify.hpp"
#include "app/target.hpp"
#include "tests/ab_stats.hpp"
#include "tests/bench.hpp"

namespace ds::app {

struct AbOptions {
  FeatureId feature = FeatureId::aam;
  std::string a_text, b_text;              // as typed: "quiet", "fast", "mq-deadline", ...
  std::vector<std::string> tests{"access"};
  unsigned rounds = 5;                     // rounds; each runs arm A then arm B
  double budget_s = 3;                     // drive time per test, per arm, per round
  std::uint64_t seed = 1;                  // plan seeds derive from it (each arm/round differs)
  std::optional<std::uint64_t> span_bytes;
  bool rates_only = false;                 // transfer: bench --rates-only
  // Where the state file goes. Unset: state_dir() for real devices; none (in-process only) for
  // simulated drives, whose settings die with the process anyway.
  std::optional<std::filesystem::path> state_dir;
  bool keep_state_file = false;  // keep it marked "restored" after a clean restore
  double confidence = 0.95;
  std::filesystem::path root = "/";
};

// "NAME=A,B" → feature, A, B.
Expected<AbOptions> parse_ab_feature(std::string_view spec, AbOptions base = {});

// Where run_ab will keep its state file for this target (nullopt: in-process only).
Expected<std::optional<std::filesystem::path>> ab_state_file(const Target& t, const AbOptions& o);

struct AbArmRun {
  unsigned round = 0;
  char arm = 'A';
  FeatureValue value;
  std::string verification;  // verified | not_reported | mismatch
  std::string set_message;
  std::map<std::string, double> figures;  // "test/figure" → value
  // The run's own 95 % half-width of each figure that states one (a seek, a zone's rate…), so a
  // round can be held against the others' intervals; latency statistics state none.
  std::map<std::string, double> uncertainties;
  std::vector<std::string> errors;
};

struct AbResult {
  std::string target;
  FeatureId feature = FeatureId::aam;
  FeatureValue a, b;
  FeatureValue original;
  std::vector<std::string> tests;
  unsigned rounds_requested = 0, rounds_done = 0;
  double budget_s = 0;
  std::vector<AbArmRun> runs;
  std::vector<measure::AbComparison> results;
  // Figures a test gives that were not compared, with why ("not measured in any run", ...): the
  // default budget used to drop full stroke and track-to-track without a word.
  struct NotCompared {
    std::string test, figure, reason;
  };
  std::vector<NotCompared> not_compared;
  std::vector<std::string> warnings;
  std::vector<std::string> restore_messages;
  bool restored = false;
  std::string state_file;
  bool interrupted = false;
  std::optional<std::string> device_error;  // what stopped the run early, if anything did
};

// The figures of one bench result that an A/B compares: "access/read.mean_ms",
// "transfer/outer_mb_s", ... (figures the test could not measure, i.e. zero, are left out).
std::map<std::string, double> bench_figures(const measure::BenchResult& r);
// The 95 % half-widths the bench states for those of its figures that carry one (same names).
std::map<std::string, double> bench_figure_uncertainties(const measure::BenchResult& r);
// The order of the compared figures: by name, and a block-size figure ("blocksize/read_mb_s@4096")
// by its size as a number, so that 4 KiB comes before 64 KiB and 1 MiB last (as text,
// "@1048576" sorts first).
bool figure_before(std::string_view a, std::string_view b);

using StopFn = std::function<bool()>;
using AbProgressFn = std::function<void(unsigned round, char arm, std::string_view test)>;

// Runs the A/B on an open target (with its I/O engine). `stop` is polled between tests; when it
// answers true the run ends early, the feature is restored and the rounds so far are analysed.
Expected<AbResult> run_ab(Target& t, const AbOptions& o, const StopFn& stop = {},
                          const AbProgressFn& progress = {});

Report ab_report(const AbResult& r);

}  // namespace ds::app
