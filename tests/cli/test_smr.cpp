// `drivescope smr`: read-only it reports what the drive says and never claims "cmr"; --write runs
// the probe on a simulated drive (no --destructive needed there); bad combinations are refused.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.hpp"

namespace {

nlohmann::json smr_json(const std::string& args, int want_rc = 0) {
  auto r = clitest::run("smr " + args + " --quiet --json=c", false);
  CHECK(r.rc == want_rc);
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

}  // namespace

TEST_CASE("smr: read-only, a drive that reports nothing is unknown, not cmr") {
  const auto j = smr_json("sim:archive8tb-smr");
  CHECK(j["smr"]["verdict"] == "unknown");
  CHECK(j["smr"]["probe"].is_null());
  CHECK(j["smr"]["media_cache_bytes_estimate"].is_null());
  CHECK(j["smr"]["hints"]["zoned"] == "not reported");
  CHECK(j["smr"]["hints"]["rotation_rate_rpm"] == 5980);
  CHECK(j["smr"]["evidence"].size() >= 2);
}

TEST_CASE("smr --write on a conventional simulated drive: no sign of SMR") {
  const auto j = smr_json("sim:raptor --write --budget 4");
  CHECK(j["smr"]["verdict"] == "cmr");
  CHECK(j["smr"]["sentence"].get<std::string>().rfind("no sign of SMR", 0) == 0);
  CHECK(j["smr"]["probe"]["cliff"] == false);
  CHECK(j["smr"]["probe"]["writes"].get<int>() > 100);
}

TEST_CASE("smr: option combinations and bad targets are refused") {
  CHECK(clitest::run("smr sim:raptor --destructive", true).rc == 2);
  CHECK(clitest::run("smr sim:raptor --write --idle -1", true).rc == 2);
  CHECK(clitest::run("smr sim:raptor --write --budget 0", true).rc == 2);
  CHECK(clitest::run("smr sim:no-such-drive", true).rc == 1);
}
