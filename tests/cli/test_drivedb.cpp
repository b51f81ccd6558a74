// The drive database through the binary: `identify` and `smr` with a table given by --drivedb
// (written here), a table that is missing or broken, and, where smartmontools is installed, the
// real dumps of tests/data/identify named as smartctl names them.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_split.hpp"
#include "../support/skip.hpp"

namespace fs = std::filesystem;
using clitest::run_split;
using nlohmann::json;

namespace {

struct Table {
  fs::path path = fs::temp_directory_path() / ("ds_drivedb_" + std::to_string(::getpid()) + ".h");
  explicit Table(const std::string& text) { std::ofstream(path) << text; }
  ~Table() {
    std::error_code ec;
    fs::remove(path, ec);
  }
};

// sim:raptor's model and firmware (models/raptor.json), listed under families of our own.
std::string raptor_table(const std::string& family, const std::string& warning) {
  return "/* a table for the tests */\n"
         "{ \"VERSION: 0.1 drivescope test\", \"-\", \"-\", \"Version information\", \"\" },\n"
         "{ \"Some Other Family\", \"WDC WD740GD-00FLA1\", \"99.99X99\", \"\", \"\" },\n"
         "{ \"" + family + "\", // the one that matches\n"
         "  \"WDC WD740GD-.*\", \"27\\\\.08D27\", \"" + warning + "\", \"-F xerrorlba -v 9,minutes,Power_On_Minutes\" },\n";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// What a shell command prints (smartctl, the oracle).
std::string shell_output(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  ::pclose(p);
  return out;
}

}  // namespace

TEST_CASE("drivedb: identify names the family, its warning and -F list; smartctl's model_family beside") {
  const Table t(raptor_table("Acme Test Raptors (SMR)", "Firmware 27.08D27 eats data"));
  const auto j = run_split("identify sim:raptor --json --drivedb " + t.path.string());
  REQUIRE(j.rc == 0);
  const auto doc = json::parse(j.out);
  const auto& db = doc["identify"]["drivedb"];
  CHECK(db["found"] == true);
  CHECK(db["family"] == "Acme Test Raptors (SMR)");
  CHECK(db["sources"] == json::array({t.path.string()}));
  CHECK(db["version"] == "0.1 drivescope test");
  CHECK(db["firmware_regex"] == "27\\.08D27");
  CHECK(db["smr"] == true);
  CHECK(db["firmware_bugs"] == json::array({"xerrorlba"}));
  CHECK(db["attribute_names"]["9"] == "Power_On_Minutes");
  CHECK(db["warning"] == "Firmware 27.08D27 eats data");
  CHECK(doc["model_family"] == "Acme Test Raptors (SMR)");
  // Warnings are smartctl's drivescope.messages in JSON.
  CHECK(has(doc["drivescope"]["messages"].dump(), "warns of this drive's family: Firmware 27.08D27 eats data"));
  // Text: a section, and the warning on stderr.
  const auto txt = run_split("identify sim:raptor --drivedb " + t.path.string());
  REQUIRE(txt.rc == 0);
  CHECK(has(txt.out, "Drive database (smartmontools)"));
  CHECK(has(txt.out, "Acme Test Raptors (SMR)"));
  CHECK(has(txt.out, "xerrorlba"));
  CHECK(has(txt.err, "warns of this drive's family: Firmware 27.08D27 eats data"));
}

TEST_CASE("drivedb: a drive the table does not list, a missing table, a broken one") {
  {
    const Table t("{ \"Nothing here\", \"ACME .*\", \"\", \"\", \"\" }\n");
    const auto j = run_split("identify sim:raptor --json --drivedb " + t.path.string());
    REQUIRE(j.rc == 0);
    const auto db = json::parse(j.out)["identify"]["drivedb"];
    CHECK(db["found"] == false);
    CHECK(db["family"].is_null());
    CHECK(has(db["note"].get<std::string>(), "matches no entry"));
    CHECK_FALSE(json::parse(j.out).contains("model_family"));
  }
  const auto missing = run_split("identify sim:raptor --json --drivedb /nonexistent/drivedb.h");
  REQUIRE(missing.rc == 0);  // the identity is still decoded; the table's absence is a warning
  const auto mdoc = json::parse(missing.out);
  CHECK(mdoc["identify"]["drivedb"]["found"].is_null());
  CHECK(mdoc["identify"]["drivedb"]["sources"].empty());
  CHECK(has(mdoc["drivescope"]["messages"].dump(), "drive database not read: /nonexistent/drivedb.h: not a regular file"));
  const Table broken("{ \"cut off\", \"ACME");
  const auto b = run_split("identify sim:raptor --drivedb " + broken.path.string());
  CHECK(b.rc == 0);
  CHECK(has(b.err, "not a drive table: line 1: a string literal is not closed"));
}

TEST_CASE("drivedb: smr takes the family's (SMR) or (CMR) where the drive reports nothing") {
  {
    const Table t(raptor_table("Acme Shingled (SMR)", ""));
    const auto r = run_split("smr sim:raptor --json --drivedb " + t.path.string());
    REQUIRE(r.rc == 0);
    const auto smr = json::parse(r.out)["smr"];
    CHECK(smr["verdict"] == "dm-smr");
    CHECK(has(smr["sentence"].get<std::string>(), "as smartmontools' drive database lists its family"));
    CHECK(smr["hints"]["drivedb_family"] == "Acme Shingled (SMR)");
    CHECK(smr["hints"]["drivedb_smr"] == true);
    CHECK(smr["hints"]["zoned"] == "not reported");
  }
  {
    const Table t(raptor_table("Acme Conventional (CMR)", ""));
    const auto r = run_split("smr sim:raptor --json --drivedb " + t.path.string());
    REQUIRE(r.rc == 0);
    const auto smr = json::parse(r.out)["smr"];
    CHECK(smr["verdict"] == "cmr");
    CHECK(smr["hints"]["drivedb_smr"] == false);
  }
  {
    const Table t(raptor_table("Acme Plain", ""));
    const auto r = run_split("smr sim:raptor --json --drivedb " + t.path.string());
    REQUIRE(r.rc == 0);
    const auto smr = json::parse(r.out)["smr"];
    CHECK(smr["verdict"] == "unknown");  // a family that says neither is no evidence
    CHECK(smr["hints"]["drivedb_smr"].is_null());
    CHECK(has(smr["evidence"].dump(), "does not say SMR or CMR"));
  }
}

TEST_CASE("drivedb: the real dumps are named as smartctl names them" * doctest::test_suite("env")) {
  const char* installed = "/usr/share/smartmontools/drivedb.h";
  if (!fs::exists(installed)) DS_SKIP(installed << " not installed (Debian: smartmontools)");
  if (std::system("smartctl --version >/dev/null 2>&1") != 0) DS_SKIP("smartctl not installed (Debian: smartmontools)");
  int named = 0, dumps = 0;
  for (const auto& d : fs::directory_iterator(DS_TEST_DATA "/identify")) {
    if (!d.is_directory()) continue;
    ++dumps;
    const std::string dump = (d.path() / "identify.bin").string();
    CAPTURE(dump);
    const auto r = run_split("identify --from-file " + dump + " --json --drivedb " + installed);
    REQUIRE(r.rc == 0);
    const auto doc = json::parse(r.out);
    const std::string model = doc["identify"]["model"], firmware = doc["identify"]["firmware"];
    const std::string said = shell_output("smartctl -P showall '" + model + "' '" + firmware + "'");
    std::string family;
    std::istringstream in(said);
    for (std::string l; std::getline(in, l);)
      if (l.rfind("MODEL FAMILY:", 0) == 0) {
        family = l.substr(l.find_first_not_of(' ', 13));
        break;
      }
    if (family.empty()) {
      CHECK(doc["identify"]["drivedb"]["found"] == has(said, "match smartmontools Drive Database entry"));
    } else {
      CHECK(doc["identify"]["drivedb"]["family"] == family);
      CHECK(doc["model_family"] == family);
      ++named;
    }
  }
  MESSAGE(named << " of " << dumps << " dumps named a family");
  CHECK(named >= dumps / 2);
}
