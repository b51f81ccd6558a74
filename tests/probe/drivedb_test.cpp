// smartmontools' drive database (probe/drivedb.hpp): the parser on tables written here, and the
// lookup against smartctl's own on the installed table (Debian's smartmontools): every drive the
// table's comments say it was "tested with", variants of them that must match elsewhere or not at
// all, and the 13 real IDENTIFY dumps of tests/data/identify.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "ata_test_util.hpp"
#include "probe/dump_reader.hpp"
#include "probe/drivedb.hpp"
#include "probe/identify.hpp"
#include "../support/skip.hpp"

using namespace ds::probe;
using namespace ds::atatest;

namespace {

// A small table in drivedb.h's shape, written here (never a copy of the real one).
const char* kTable = R"db(/*
 * a comment block, as the real file opens with
 */
/*
const drive_settings builtin_knowndrives[] = {
 */
  { "VERSION: 9.9 test table",
    "-", "-",
    "Version information",
    ""
  },
  { "DEFAULT",
    "-", "-",
    "Default settings",
    "-v 1,raw48,Raw_Read_Error_Rate "
  },
  { "$Disabled family", // starts with $: ignored
    "ACME D1.*", "", "", ""
  },
  { "Acme Spinner (SMR)", // tested with ACME S200/AB01
    "ACME S(1|2)00", // two models
    "AB0[1-3]",
    "Firmware AB01 to AB03 may lose data,\n"
    "update it",
    "-v 9,minutes -v 240,raw48,Head_Flying_Hours -F xerrorlba"
  },
  { "Acme Spinner (CMR)",
    "ACME S(1|2)00",
    "",
    "",
    ""
  },
  { "USB: Acme box; bridge", "0x1234:0x5678", "", "", "-d sat" },
  { "", // an entry that names no family
    "ACME \"Q\" .*", "", "", "-F nologdir -F samsung3",
  },
  { "Acme Escapes",
    "ACME E\\.[0-9]+", "", "", ""
  },
/*
};
 */
)db";

DriveDb parse_ok(std::string_view text) {
  auto db = parse_drivedb(text);
  REQUIRE_MESSAGE(db.ok(), (db.ok() ? "" : db.error().message));
  return *db;
}

std::string error_of(std::string_view text) {
  auto db = parse_drivedb(text);
  REQUIRE_FALSE(db.ok());
  return db.error().message;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The 1-based line of kTable on which `part` first appears.
std::size_t line_of(const std::string& part) {
  const std::string t(kTable);
  return 1 + static_cast<std::size_t>(std::count(t.begin(), t.begin() + static_cast<long>(t.find(part)), '\n'));
}

}  // namespace

TEST_CASE("drivedb: a table's entries, literals joined, comments and escapes as C reads them") {
  const auto db = parse_ok(kTable);
  REQUIRE(db.entries.size() == 8);
  CHECK(db.version == "9.9 test table");
  const auto& s = db.entries[3];
  CHECK(s.family == "Acme Spinner (SMR)");
  CHECK(s.model_regex == "ACME S(1|2)00");
  CHECK(s.firmware_regex == "AB0[1-3]");
  CHECK(s.warning == "Firmware AB01 to AB03 may lose data,\nupdate it");
  CHECK(s.presets == "-v 9,minutes -v 240,raw48,Head_Flying_Hours -F xerrorlba");
  CHECK(s.line == line_of("Acme Spinner (SMR)"));
  CHECK(db.entries[6].model_regex == "ACME \"Q\" .*");
  CHECK(db.entries[7].model_regex == "ACME E\\.[0-9]+");
}

TEST_CASE("drivedb: the first entry matching the whole model (and firmware) wins, as in smartctl") {
  const auto db = parse_ok(kTable);
  const DriveDbMatcher m(db);
  CHECK(m.bad_expressions() == 0);
  SUBCASE("model and firmware both match: the first entry, with its presets and SMR word") {
    const auto r = m.lookup("ACME S200", "AB02");
    REQUIRE(r);
    CHECK(r->entry.family == "Acme Spinner (SMR)");
    CHECK(r->smr == true);
    CHECK(r->presets.firmware_bugs == std::vector<std::string>{"xerrorlba"});
    CHECK(r->presets.attribute_names.size() == 1);
    CHECK(r->presets.attribute_names.at(240) == "Head_Flying_Hours");
  }
  SUBCASE("another firmware: the next entry, whose firmware expression is empty") {
    const auto r = m.lookup("ACME S100", "AB04");
    REQUIRE(r);
    CHECK(r->entry.family == "Acme Spinner (CMR)");
    CHECK(r->smr == false);
    CHECK(r->presets.firmware_bugs.empty());
  }
  SUBCASE("a prefix or a longer string is no match: the expression covers the whole model") {
    CHECK_FALSE(m.lookup("ACME S2000", "AB01"));
    CHECK_FALSE(m.lookup("ACME S20", "AB01"));
    CHECK_FALSE(m.lookup("XACME S200", "AB01"));
  }
  SUBCASE("a firmware must match whole too") {
    const auto r = m.lookup("ACME S200", "AB011");
    REQUIRE(r);
    CHECK(r->entry.family == "Acme Spinner (CMR)");
  }
  SUBCASE("disabled ($), version, default and USB entries are never drives") {
    CHECK_FALSE(m.lookup("ACME D1X", ""));
    CHECK_FALSE(m.lookup("-", "-"));
    CHECK_FALSE(m.lookup("0x1234:0x5678", ""));
  }
  SUBCASE("an entry that names no family still matches, with its -F list") {
    const auto r = m.lookup("ACME \"Q\" 7", "1");
    REQUIRE(r);
    CHECK(r->entry.family.empty());
    CHECK_FALSE(r->smr.has_value());
    CHECK(r->presets.firmware_bugs == std::vector<std::string>{"nologdir", "samsung3"});
  }
  SUBCASE("an escaped dot is a dot") {
    CHECK(m.lookup("ACME E.12", ""));
    CHECK_FALSE(m.lookup("ACME EX12", ""));
  }
}

TEST_CASE("drivedb: an expression that does not compile is skipped and counted, never fatal") {
  const auto db = parse_ok(R"({ "Broken", "ACME (B", "", "", "" }, { "Fine", "ACME .*", "", "", "" })");
  const DriveDbMatcher m(db);
  CHECK(m.bad_expressions() == 1);
  const auto r = m.lookup("ACME (B", "");
  REQUIRE(r);
  CHECK(r->entry.family == "Fine");
}

TEST_CASE("drivedb: text that is not a table is refused with the line where it stops being one") {
  const std::string t(kTable);
  CHECK(has(error_of(""), "no entries"));
  CHECK(has(error_of("/* only a comment */\n"), "no entries"));
  // Truncated inside an entry, inside a literal, inside a comment.
  CHECK(has(error_of(t.substr(0, t.find("\"AB0[1-3]\""))), "truncated"));
  CHECK(has(error_of(t.substr(0, t.find("may lose") + 3)),
            "line " + std::to_string(line_of("may lose")) + ": a string literal is not closed"));
  CHECK(has(error_of("{ \"a\", \"b\", \"\", \"\", \"\" }\n/* never closed"), "line 2: a comment is not closed"));
  // A token C would not have there; too few fields; an escape no table uses; NUL bytes.
  CHECK(has(error_of("{ \"a\", \"b\", \"\", \"\", \"\" }\n#include <x>\n"), "line 2: an entry ('{') was expected, not '#'"));
  CHECK(has(error_of("{ \"a\", \"b\", \"\", \"\" }"), "needs ',' after field 4"));
  CHECK(has(error_of("{ \"a\", \"b\", \"\\q\", \"\", \"\" }"), "the escape \\q"));
  CHECK(has(error_of(std::string("{ \"a\0\", \"b\", \"\", \"\", \"\" }", 25)), "NUL"));
  CHECK(has(error_of("{ 12, \"b\", \"\", \"\", \"\" }"), "a string was expected (field 1 of the entry of line 1)"));
}

TEST_CASE("drivedb: presets and family words") {
  const auto p = parse_presets("-v 1,raw48,Raw_Read_Error_Rate -v 9,msec24hour32 -v N,raw48 -v 194,tempminmax,Temp,HDD -F swapid");
  CHECK(p.attribute_names.size() == 2);
  CHECK(p.attribute_names.at(1) == "Raw_Read_Error_Rate");
  CHECK(p.attribute_names.at(194) == "Temp");
  CHECK(p.firmware_bugs == std::vector<std::string>{"swapid"});
  CHECK(parse_presets("-v").attribute_names.empty());
  CHECK(family_says_smr("Seagate BarraCuda 3.5 (SMR)") == true);
  CHECK(family_says_smr("Toshiba P300 (CMR)") == false);
  CHECK_FALSE(family_says_smr("Seagate Barracuda 7200.11").has_value());
}

TEST_CASE("drivedb: the default files in smartctl's order, under a root; a broken one is named") {
  const auto root = std::filesystem::temp_directory_path() / ("ds-drivedb-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "usr/share/smartmontools");
  auto none = load_drivedb("", root.string());
  CHECK(none.sources.empty());
  CHECK_FALSE(none.failed);
  CHECK(has(none.note, "not installed"));
  std::ofstream(root / "usr/share/smartmontools/drivedb.h") << kTable;
  auto pkg = load_drivedb("", root.string());
  CHECK(pkg.sources == std::vector<std::string>{"/usr/share/smartmontools/drivedb.h"});
  CHECK(pkg.db.entries.size() == 8);
  // The administrator's additions are searched first.
  std::filesystem::create_directories(root / "etc");
  std::ofstream(root / "etc/smart_drivedb.h") << R"({ "Local Acme", "ACME S200", "", "", "" })";
  auto both = load_drivedb("", root.string());
  CHECK(both.sources == std::vector<std::string>{"/etc/smart_drivedb.h", "/usr/share/smartmontools/drivedb.h"});
  const DriveDbMatcher m(both.db);
  REQUIRE(m.lookup("ACME S200", "AB01"));
  CHECK(m.lookup("ACME S200", "AB01")->entry.family == "Local Acme");
  // update-smart-drivedb's newer table takes the package's place.
  std::filesystem::create_directories(root / "var/lib/smartmontools/drivedb");
  std::ofstream(root / "var/lib/smartmontools/drivedb/drivedb.h") << "{ \"cut";
  auto broken = load_drivedb("", root.string());
  CHECK(broken.failed);
  CHECK(broken.sources.empty());
  CHECK(has(broken.note, "/var/lib/smartmontools/drivedb/drivedb.h: not a drive table"));
  // --drivedb: that file alone; a directory is no table.
  auto given = load_drivedb((root / "usr/share/smartmontools/drivedb.h").string());
  CHECK(given.sources.size() == 1);
  auto dir = load_drivedb(root.string());
  CHECK(dir.failed);
  CHECK(has(dir.note, "not a regular file"));
  std::filesystem::remove_all(root);
}

namespace {

// smartctl's lookup of one model and firmware: the first entry's model expression and family,
// or nullopt when it says the strings match none.
struct SmartctlSays {
  bool found = false;
  std::string model_regex, family;
};

std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

SmartctlSays ask_smartctl(const std::string& model, const std::string& firmware) {
  int rc = -1;
  const std::string out = run_capture("smartctl -P showall " + shell_quote(model) + " " + shell_quote(firmware) + " 2>&1", &rc);
  SmartctlSays s;
  std::istringstream in(out);
  std::string line;
  auto value = [](const std::string& l) {
    auto v = l.substr(l.find(':') + 1);
    return v.substr(v.find_first_not_of(' ') == std::string::npos ? v.size() : v.find_first_not_of(' '));
  };
  while (std::getline(in, line)) {
    if (line.rfind("MODEL REGEXP:", 0) == 0 && !s.found) {
      s.found = true;
      s.model_regex = value(line);
    } else if (line.rfind("MODEL FAMILY:", 0) == 0 && s.family.empty()) {
      s.family = value(line);
      break;
    }
  }
  return s;
}

const char* kInstalled = "/usr/share/smartmontools/drivedb.h";

}  // namespace

TEST_CASE("drivedb: our lookup agrees with smartctl's on every drive the installed table was tested with" *
          doctest::test_suite("env")) {
  if (!std::filesystem::exists(kInstalled)) DS_SKIP(kInstalled << " not installed (Debian: smartmontools)");
  int rc = -1;
  run_capture("smartctl --version >/dev/null 2>&1", &rc);
  if (rc != 0) DS_SKIP("smartctl not installed (Debian: smartmontools)");
  auto loaded = load_drivedb(kInstalled);
  REQUIRE_MESSAGE(loaded.sources.size() == 1, loaded.note);
  const DriveDbMatcher m(loaded.db);
  CHECK(m.bad_expressions() == 0);
  // "tested with MODEL/FIRMWARE" in the table's comments: real identity strings.
  std::ifstream in(kInstalled);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::regex tested(R"(tested with ([A-Za-z0-9][A-Za-z0-9 ._()-]*[A-Za-z0-9.)_-])/([A-Za-z0-9._-]+))");
  std::set<std::pair<std::string, std::string>> drives;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), tested); it != std::sregex_iterator(); ++it)
    drives.insert({(*it)[1].str(), (*it)[2].str()});
  REQUIRE(drives.size() > 100);
  // Variants: another firmware (the firmware expressions), and a model one character longer
  // (the whole-string rule; most then match no entry).
  std::vector<std::pair<std::string, std::string>> cases(drives.begin(), drives.end());
  for (std::size_t k = 0; k < drives.size(); k += 7) {
    cases.push_back({cases[k].first, "ZZ99"});
    cases.push_back({cases[k].first + "Q", cases[k].second});
  }
  // The real dumps' identity strings.
  for (const auto& r : read_summary()) cases.push_back({r.at("model"), r.at("firmware")});
  int found = 0;
  for (const auto& [model, firmware] : cases) {
    const std::string who = model + " / " + firmware;
    CAPTURE(who);
    const auto ours = m.lookup(model, firmware);
    const auto theirs = ask_smartctl(model, firmware);
    CHECK(ours.has_value() == theirs.found);
    if (ours && theirs.found) {
      CHECK(ours->entry.model_regex == theirs.model_regex);
      if (!ours->entry.family.empty()) CHECK(ours->entry.family == theirs.family);
      ++found;
    }
  }
  MESSAGE(found << " of " << cases.size() << " identity strings found, as smartctl finds them");
  CHECK(found > static_cast<int>(drives.size()) / 2);
}
