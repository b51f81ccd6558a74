// The bench progress line: the pure formatting and ETA estimate, and through the binary that it
// appears only on a terminal, never in a pipe, and never mixes into --json output.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/progress.hpp"
#include "app_test_util.hpp"
#include "../support/skip.hpp"

namespace fs = std::filesystem;
using ds::app::format_duration;
using ds::app::format_progress;
using ds::app::ProgressEstimator;

using apptest::slurp;
using apptest::has;

TEST_CASE("progress: durations read as seconds, minutes, hours") {
  CHECK(format_duration(0.2) == "<1 s");
  CHECK(format_duration(0.7) == "1 s");
  CHECK(format_duration(45) == "45 s");
  CHECK(format_duration(185) == "3 min 05 s");
  CHECK(format_duration(3720) == "1 h 02 min");
  CHECK(format_duration(-3) == "<1 s");
}

TEST_CASE("progress: ETA from the test's own progress and the budget left, only once it can be estimated") {
  ProgressEstimator e(2, 100);
  // Too little drive time seen to know how drive time maps to wall time: no ETA at all.
  auto s0 = e.update("transfer", 0.02, 0.3, 0.3);
  CHECK_FALSE(s0.eta_test_s);
  CHECK_FALSE(s0.eta_run_s);
  CHECK_FALSE(has(format_progress(s0), "ETA"));
  CHECK(has(format_progress(s0), "transfer [1/2]"));

  // Half of the first test in 10 s of drive time (a real drive: wall = drive time): 10 s more for
  // it; the run can take at most what is left of the 100 s budget.
  auto s1 = e.update("transfer", 0.5, 10, 10);
  REQUIRE(s1.eta_test_s);
  CHECK(*s1.eta_test_s == doctest::Approx(10));
  REQUIRE(s1.eta_run_s);
  CHECK(*s1.eta_run_s == doctest::Approx(90));
  CHECK(format_progress(s1) == "transfer [1/2]   50.0 %  drive time 10.0 s  ETA ~10 s (run ≤ ~1 min 30 s)");

  // The second and last test: drive time adds up over tests, and the run ends with this test.
  auto s2 = e.update("access", 0.25, 5, 30);
  CHECK(s2.test_number == 2);
  CHECK(s2.drive_s == doctest::Approx(15));  // 10 s of transfer (its last report) + 5 s
  REQUIRE(s2.eta_test_s);
  // 15 s of drive time to go, at 30 s of wall time per 15 s of drive time.
  CHECK(*s2.eta_test_s == doctest::Approx(15 * 30.0 / 15));
  REQUIRE(s2.eta_run_s);
  CHECK(*s2.eta_run_s == doctest::Approx(*s2.eta_test_s));
  CHECK(format_progress(s2) == "access [2/2]   25.0 %  drive time 15.0 s  ETA ~30 s");
}

TEST_CASE("progress: the run's fraction counts finished tests whole, and the JSON line carries it") {
  ProgressEstimator est(4, 100);
  CHECK(est.update("access", 0.5, 5, 1).run_fraction == doctest::Approx(0.5 / 4));
  CHECK(est.update("transfer", 0.0, 0, 2).run_fraction == doctest::Approx(1.0 / 4));
  const auto s = est.update("transfer", 0.5, 5, 3);
  CHECK(s.run_fraction == doctest::Approx(1.5 / 4));
  const auto j = nlohmann::json::parse(ds::app::format_progress_json("bench", s, {{"target", "sim:x"}}));
  CHECK(j["command"] == "bench");
  CHECK(j["test"] == "transfer");
  CHECK(j["test_number"] == 2);
  CHECK(j["fraction"].get<double>() == doctest::Approx(1.5 / 4));
  CHECK(j["test_fraction"].get<double>() == doctest::Approx(0.5));
  CHECK(j["drive_s"].get<double>() == doctest::Approx(10));
  CHECK(j["target"] == "sim:x");
  CHECK(j.contains("eta_s"));
}

TEST_CASE("progress: a test just started has no ETA of its own, only the run's bound") {
  ProgressEstimator e(3, 120);
  e.update("transfer", 1.0, 40, 40);
  auto s = e.update("access", 0.01, 0.5, 41);
  CHECK_FALSE(s.eta_test_s);
  REQUIRE(s.eta_run_s);
  CHECK(*s.eta_run_s == doctest::Approx((120 - 40.5) * 41 / 40.5));
  CHECK(has(format_progress(s), "ETA run ≤ ~"));
}

TEST_CASE("progress: a simulated drive's fast clock shortens the wall-clock ETA") {
  ProgressEstimator e(1, 60);
  // 20 s of simulated drive time in 0.2 s of wall time.
  auto s = e.update("patterns", 0.5, 20, 0.2);
  REQUIRE(s.eta_test_s);
  CHECK(*s.eta_test_s == doctest::Approx(0.2));
}

TEST_CASE("progress: no progress line into a pipe or file, a clean --json stdout; a line with an ETA on a terminal" * doctest::test_suite("env")) {
  const fs::path dir = fs::temp_directory_path() / ("ds_progress_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string bin = DS_BINARY;
  // stderr is a file: not a terminal, so no progress at all.
  std::string cmd = bin + " bench sim:raptor --tests transfer,access --seed 2 --json > " + (dir / "out.json").string() +
                    " 2> " + (dir / "err.txt").string();
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string err = slurp(dir / "err.txt");
  CHECK_FALSE(has(err, "\r"));
  CHECK_FALSE(has(err, "ETA"));
  CHECK_FALSE(has(err, "drive time"));
  auto doc = nlohmann::json::parse(slurp(dir / "out.json"), nullptr, false);
  CHECK_FALSE(doc.is_discarded());

  // stderr on a pseudo-terminal (util-linux `script`), stdout still into a file.
  if (std::system("command -v script > /dev/null 2>&1") != 0) {
    fs::remove_all(dir);
    DS_SKIP("`script` (util-linux) not available: the terminal case was not run");
  }
  {
    std::string inner = bin + " bench sim:raptor --tests transfer,access --seed 2 --json > " + (dir / "tty.json").string();
    cmd = "script -qfec '" + inner + "' " + (dir / "tty.log").string() + " > /dev/null 2>&1 < /dev/null";
    REQUIRE(std::system(cmd.c_str()) == 0);
    const std::string log = slurp(dir / "tty.log");
    CHECK(has(log, "drive time"));
    CHECK(has(log, "transfer [1/2]"));
    CHECK(has(log, "access [2/2]"));
    CHECK(has(log, "ETA ~"));
    auto tty_doc = nlohmann::json::parse(slurp(dir / "tty.json"), nullptr, false);
    REQUIRE_FALSE(tty_doc.is_discarded());
    CHECK(tty_doc["tests"].contains("access"));
    // And --quiet silences it on a terminal too.
    inner = bin + " bench sim:raptor --tests access --seed 2 --quiet --json > /dev/null";
    cmd = "script -qfec '" + inner + "' " + (dir / "quiet.log").string() + " > /dev/null 2>&1 < /dev/null";
    REQUIRE(std::system(cmd.c_str()) == 0);
    CHECK_FALSE(has(slurp(dir / "quiet.log"), "drive time"));
  }
  fs::remove_all(dir);
}
