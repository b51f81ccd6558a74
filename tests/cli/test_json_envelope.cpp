// Every JSON document carries json_format_version and the drivescope block with the real argv,
// exit status and messages; --json=c prints one line per document (issue 15).
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "cli_run.hpp"

using nlohmann::json;

TEST_CASE("--json=c: one compact line, the same document as --json") {
  const auto pretty = clitest::run("identify sim:7200.7 --json", false);
  const auto compact = clitest::run("identify sim:7200.7 --json=c", false);
  REQUIRE(pretty.rc == 0);
  REQUIRE(compact.rc == 0);
  CHECK(std::count(compact.out.begin(), compact.out.end(), '\n') == 1);
  CHECK(std::count(pretty.out.begin(), pretty.out.end(), '\n') > 10);
  json a = json::parse(pretty.out), b = json::parse(compact.out);
  // argv differs by the flag itself; everything else is the same document.
  a["drivescope"].erase("argv");
  b["drivescope"].erase("argv");
  CHECK(a == b);
}

TEST_CASE("the drivescope block: argv, exit status and messages of this run") {
  const auto ok = clitest::run("identify sim:maxline3 --json=c", false);
  REQUIRE(ok.rc == 0);
  const json d = json::parse(ok.out);
  CHECK(d["json_format_version"] == json{1, 0});
  CHECK(d["drivescope"]["argv"].size() == 4);
  CHECK(d["drivescope"]["argv"][1] == "identify");
  CHECK(d["drivescope"]["exit_status"] == 0);
  CHECK(d["drivescope"]["messages"] == json::array());
  // smartctl's identity keys beside drivescope's own
  CHECK(d["model_name"] == d["identify"]["model"]);
  CHECK(d["user_capacity"]["blocks"] == d["identify"]["capacity_sectors"]);

  const auto bad = clitest::run("identify sim:no-such-preset --json=c", false);
  CHECK(bad.rc == 1);
  const json e = json::parse(bad.out);
  CHECK(e["drivescope"]["exit_status"] == bad.rc);
  REQUIRE(e["drivescope"]["messages"].size() == 1);
  CHECK(e["drivescope"]["messages"][0]["severity"] == "error");
  CHECK(e["drivescope"]["messages"][0]["string"] == e["error"]);
}

TEST_CASE("--json takes no value but =c") {
  const auto r = clitest::run("identify sim:7200.7 --json=yaml", true);
  CHECK(r.rc == 2);
  CHECK(r.out.find("=c") != std::string::npos);
}

TEST_CASE("--version: commit, compiler and library versions, as text and as JSON") {
  const auto text = clitest::run("--version", false);
  CHECK(text.rc == 0);
  CHECK(text.out.rfind("drivescope ", 0) == 0);
  for (const char* word : {"commit", "compiler:", "libsgutils2:", "libatasmart:", "libaio:", "fmt:", "nlohmann-json:", "CLI11:"}) {
    CAPTURE(word);
    CHECK(text.out.find(word) != std::string::npos);
  }
  const auto j = clitest::run("--version --json=c", false);
  REQUIRE(j.rc == 0);
  const json d = json::parse(j.out);
  CHECK(d["json_format_version"] == json{1, 0});
  CHECK(d["drivescope"]["exit_status"] == 0);
  CHECK_FALSE(d["drivescope"]["commit"].get<std::string>().empty());
  CHECK(d["drivescope"]["libraries"].size() == 6);
  CHECK(text.out.find(d["drivescope"]["commit"].get<std::string>()) != std::string::npos);
}
