// `drivescope scan` as a user runs it: simulated drives as targets, one compact JSON line per
// drive in the order given, a table in text, and its option mistakes refused.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("scan --json: one compact document per drive, in order, with identity and SMART health") {
  const std::vector<std::string> targets{"sim:raptor", "sim:atlas15k", "sim:7k400"};
  auto r = clitest::run("scan sim:raptor sim:atlas15k sim:7k400 --json", false);
  CHECK(r.rc == 0);
  const auto docs = lines(r.out);
  REQUIRE(docs.size() == targets.size());
  for (std::size_t i = 0; i < docs.size(); ++i) {
    CAPTURE(docs[i].substr(0, 200));
    auto j = nlohmann::json::parse(docs[i]);
    CHECK(j["target"]["name"] == targets[i]);
    CHECK(j["scan"]["status"] == "ok");
    CHECK(j["model_name"].is_string());
    CHECK(j["serial_number"].is_string());
    CHECK(j["user_capacity"]["bytes"].get<double>() > 0);
    CHECK(j["scan"]["bench"].is_null());
    CHECK_FALSE(j.contains("tests"));
  }
  // The ATA drives answer CHECK POWER MODE and SMART; the SCSI one has neither.
  auto ata = nlohmann::json::parse(docs[0]);
  CHECK(ata["scan"]["power_mode"] == "active_or_idle");
  CHECK(ata["smart_status"]["passed"].is_boolean());
  CHECK(nlohmann::json::parse(docs[1])["scan"]["power_mode"].is_null());
}

TEST_CASE("scan --bench: each drive gets access and transfer figures; the table shows them") {
  auto j = clitest::run("scan sim:maxline3 --bench 1 --json", false);
  CHECK(j.rc == 0);
  auto doc = nlohmann::json::parse(lines(j.out).at(0));
  CHECK(doc["scan"]["bench"]["status"] == "done");
  CHECK(doc["tests"]["access"]["read"]["mean_ms"].get<double>() > 0);
  CHECK(doc["tests"]["transfer"]["outer_mb_s"].get<double>() > 0);

  auto t = clitest::run("scan sim:maxline3 sim:7200.7 --bench 1", false);
  CHECK(t.rc == 0);
  const auto rows = lines(t.out);
  REQUIRE(rows.size() == 3);  // header and two drives
  CHECK(rows[0].find("ACCESS") != std::string::npos);
  CHECK(rows[1].rfind("sim:maxline3", 0) == 0);
  CHECK(rows[2].find(" ms ") != std::string::npos);
}

TEST_CASE("scan: a target that cannot be opened fails alone; the others are still reported") {
  auto r = clitest::run("scan sim:raptor sim:no-such-preset --json", true);
  CHECK(r.rc == 1);
  CHECK(r.out.find("no-such-preset") != std::string::npos);
  std::vector<nlohmann::json> docs;
  for (const auto& l : lines(r.out))
    if (l[0] == '{') docs.push_back(nlohmann::json::parse(l));
  REQUIRE(docs.size() == 2);
  CHECK(docs[0]["scan"]["status"] == "ok");
  CHECK(docs[1]["scan"]["status"] == "failed");
  CHECK(docs[1]["drivescope"]["exit_status"] == 1);
}

TEST_CASE("scan: option mistakes are refused (exit 2)") {
  CHECK(clitest::run("scan sim:raptor --bench 0", false).rc == 2);
  CHECK(clitest::run("scan sim:raptor --bench nan", false).rc == 2);
  CHECK(clitest::run("scan sim:raptor --bench 1e9", false).rc == 2);
  auto busy = clitest::run("scan sim:raptor --force-busy", true);
  CHECK(busy.rc == 2);
  CHECK(busy.out.find("--bench") != std::string::npos);
}
