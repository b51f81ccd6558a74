// --progress=json: one JSON object per line on stderr, into a pipe too (the terminal line is
// not written there), with the run's fraction rising from 0 to 1; bench, scan --bench and ab.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli_split.hpp"

namespace {

// Every stderr line of the run that is a progress object, checked one by one.
std::vector<nlohmann::json> progress_lines(const std::string& err, const std::string& command) {
  std::vector<nlohmann::json> out;
  for (const auto& l : clitest::lines_of(err)) {
    if (l.empty() || l[0] != '{') continue;
    auto j = nlohmann::json::parse(l, nullptr, false);
    REQUIRE_MESSAGE(!j.is_discarded(), l);
    CHECK(j["command"] == command);
    CHECK(j["test"].is_string());
    CHECK(j["fraction"].is_number());
    CHECK(j["test_fraction"].is_number());
    out.push_back(j);
  }
  return out;
}

void check_monotonic(const std::vector<nlohmann::json>& lines) {
  REQUIRE(lines.size() >= 2);
  double last = -1;
  for (const auto& j : lines) {
    const double f = j["fraction"].get<double>();
    CHECK(f >= 0.0);
    CHECK(f <= 1.0);
    CHECK(f >= last);
    last = f;
  }
  CHECK(lines.back()["fraction"].get<double>() == doctest::Approx(1.0));
}

}  // namespace

TEST_CASE("bench --progress=json: JSON lines on a non-terminal stderr, fraction rising to 1") {
  const auto quiet = clitest::run_split("bench sim:raptor --tests access,transfer --budget 2 --json=c");
  CHECK(quiet.err.find('{') == std::string::npos);  // without the option: nothing into a pipe
  const auto r = clitest::run_split("bench sim:raptor --tests access,transfer --budget 2 --json=c --progress=json");
  REQUIRE(r.rc == 0);
  CHECK(r.err.find('\r') == std::string::npos);  // not the terminal line
  CHECK(nlohmann::json::parse(r.out).contains("tests"));  // the report itself still on stdout
  const auto lines = progress_lines(r.err, "bench");
  check_monotonic(lines);
  double drive = 0;
  for (const auto& j : lines) {
    CHECK(j["test_count"] == 2);
    CHECK(j["drive_s"].get<double>() >= drive);
    drive = j["drive_s"].get<double>();
    CHECK((j["eta_s"].is_null() || j["eta_s"].get<double>() >= 0));
  }
  CHECK(drive > 0);
  // Both tests appear, in the order they ran.
  CHECK(lines.front()["test_number"] == 1);
  CHECK(lines.back()["test_number"] == 2);
}

TEST_CASE("--progress takes auto or json; json and --quiet contradict each other") {
  CHECK(clitest::run_split("bench sim:raptor --budget 1 --progress=xml").rc == 2);
  CHECK(clitest::run_split("bench sim:raptor --budget 1 --progress=json --quiet").rc == 2);
}

TEST_CASE("ab and scan --bench --progress=json") {
  const auto ab = clitest::run_split("ab sim:maxline3 --feature aam=quiet,fast --rounds 2 --budget 0.5 --progress=json");
  REQUIRE(ab.rc == 0);
  const auto lines = progress_lines(ab.err, "ab");
  check_monotonic(lines);
  CHECK(lines.size() == 2 * 2 + 1);  // one per round and arm (one test), one at the end
  CHECK(lines[1]["arm"] == "B");
  CHECK(lines[2]["round"] == 2);
  const auto scan = clitest::run_split("scan sim:raptor sim:maxline3 --bench 1 --json --progress=json");
  REQUIRE(scan.rc == 0);
  const auto all = progress_lines(scan.err, "scan");
  std::vector<nlohmann::json> raptor, maxline;
  for (const auto& j : all) (j["target"] == "sim:raptor" ? raptor : maxline).push_back(j);
  CHECK(raptor.size() + maxline.size() == all.size());
  check_monotonic(raptor);  // each drive's bench from 0 to 1
  check_monotonic(maxline);
}
