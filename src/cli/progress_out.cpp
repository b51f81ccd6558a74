// The progress output of long runs (bench, scan --bench, ab) on stderr: the line a person watches
// (only on a terminal, redrawn in place) or, with --progress=json, one JSON object per line that a
// script reads, written into a pipe or a file too.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "app/progress.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

namespace {

// JSON lines are kept to a readable rate: a line when a test starts or ends, and otherwise at most
// one per percent of the run and per 200 ms of wall time (a simulated drive reports thousands of
// steps a second).
class JsonThrottle {
 public:
  bool due(const app::ProgressSnapshot& s, double wall) {
    const bool edge = s.test_number != number_ || (s.fraction >= 1.0 && !ended_);
    ended_ = s.test_number == number_ ? ended_ || s.fraction >= 1.0 : s.fraction >= 1.0;
    if (!edge && (s.run_fraction - last_fraction_ < 0.01 || wall - last_wall_ < 0.2)) return false;
    number_ = s.test_number;
    last_fraction_ = s.run_fraction;
    last_wall_ = wall;
    return true;
  }

 private:
  int number_ = 0;
  bool ended_ = false;
  double last_fraction_ = -1, last_wall_ = -1;
};

}  // namespace

CLI::Option* add_progress_option(CLI::App* c, std::string& mode) {
  return c->add_option("--progress", mode,
                       "auto (default): a progress line when stderr is a terminal; json: one JSON object "
                       "per line on stderr (test, fraction, drive_s, eta_s), into a pipe too")
      ->check(CLI::IsMember({"auto", "json"}));
}

measure::ProgressFn progress_printer(const std::string& mode, bool quiet, std::string command, int test_count,
                                     double budget_s, nlohmann::json extra) {
  const bool json = mode == "json";
  // The human line only for a person watching: never into a pipe or a log.
  if (!json && (quiet || !::isatty(STDERR_FILENO))) return {};
  auto est = std::make_shared<app::ProgressEstimator>(test_count, budget_s);
  auto throttle = std::make_shared<JsonThrottle>();
  const auto start = std::chrono::steady_clock::now();
  return [=](std::string_view test, double fraction, double drive_s) {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto snap = est->update(test, fraction, drive_s, wall);
    if (!json) {
      std::fprintf(stderr, "\r\033[K%s", app::format_progress(snap).c_str());
    } else if (throttle->due(snap, wall)) {
      std::fprintf(stderr, "%s\n", app::format_progress_json(command, snap, extra).c_str());
    }
    std::fflush(stderr);
  };
}

void end_progress(const std::string& mode, const measure::ProgressFn& p) {
  if (p && mode != "json") std::fprintf(stderr, "\r\033[K");
}

}  // namespace ds::cli
