// --csv[=TABLE]: the tables of a command's document as RFC 4180 CSV. Read back here by a parser of
// the RFC's grammar (quoted fields, doubled quotes, CRLF), the rows have the header's column count
// and the values of the --json document.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "cli_split.hpp"

namespace {

using Rows = std::vector<std::vector<std::string>>;

// RFC 4180 section 2: records end in CRLF, a field is quoted when it holds , " CR or LF, and a quote
// inside a quoted field is doubled. A bare LF or a stray quote is a failure.
Rows parse_csv(const std::string& text) {
  Rows rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    auto& field = rows.back().back();
    if (quoted) {
      if (c != '"') field += c;
      else if (i + 1 < text.size() && text[i + 1] == '"') field += text[++i];
      else quoted = false;
    } else if (c == '"') {
      REQUIRE_MESSAGE(field.empty(), "a quote inside an unquoted field");
      quoted = true;
    } else if (c == ',') {
      rows.back().emplace_back();
    } else if (c == '\r') {
      REQUIRE_MESSAGE((i + 1 < text.size() && text[i + 1] == '\n'), "CR without LF");
      ++i;
      rows.emplace_back(1);
    } else {
      REQUIRE_MESSAGE(c != '\n', "a bare LF");
      field += c;
    }
  }
  REQUIRE_FALSE(quoted);
  if (rows.back().size() == 1 && rows.back()[0].empty()) rows.pop_back();
  return rows;
}

// --csv: "# NAME" CRLF, then the table; tables apart by an empty line.
std::map<std::string, Rows> tables(const std::string& out) {
  std::map<std::string, Rows> t;
  std::size_t pos = 0;
  while (pos < out.size()) {
    REQUIRE(out.compare(pos, 2, "# ") == 0);
    const auto eol = out.find("\r\n", pos);
    const std::string name = out.substr(pos + 2, eol - pos - 2);
    auto end = out.find("\r\n\r\n# ", eol);
    end = end == std::string::npos ? out.size() : end + 2;
    t[name] = parse_csv(out.substr(eol + 2, end - eol - 2));
    pos = end == out.size() ? end : end + 2;
  }
  return t;
}

void check_shape(const Rows& rows) {
  REQUIRE(rows.size() >= 2);
  for (const auto& r : rows) CHECK(r.size() == rows[0].size());
}

std::size_t column(const Rows& rows, const std::string& name) {
  for (std::size_t i = 0; i < rows[0].size(); ++i)
    if (rows[0][i] == name) return i;
  FAIL("no column " << name);
  return 0;
}

}  // namespace

TEST_CASE("bench --csv: each table parses back, with the JSON's rows and values") {
  const std::string args = "bench sim:raptor --tests transfer,blocksize --budget 1 --seed 3";
  const auto json = nlohmann::json::parse(clitest::run_split(args + " --json=c").out);
  const auto r = clitest::run_split(args + " --csv");
  REQUIRE(r.rc == 0);
  const auto t = tables(r.out);
  REQUIRE(t.count("tests.transfer.zones"));
  REQUIRE(t.count("tests.blocksize.rows"));
  const auto& zones = t.at("tests.transfer.zones");
  check_shape(zones);
  check_shape(t.at("tests.blocksize.rows"));
  const auto& jz = json["tests"]["transfer"]["zones"];
  REQUIRE(zones.size() == jz.size() + 1);
  const auto first = column(zones, "first_lba");
  const auto rate = column(zones, "mb_s");
  for (std::size_t i = 0; i < jz.size(); ++i) {
    CHECK(zones[i + 1][first] == std::to_string(jz[i]["first_lba"].get<std::uint64_t>()));
    CHECK(std::stod(zones[i + 1][rate]) == doctest::Approx(jz[i]["mb_s"].get<double>()));
  }
  CHECK(t.at("tests.blocksize.rows").size() == json["tests"]["blocksize"]["rows"].size() + 1);
}

TEST_CASE("compare --csv: the rows of each compared table are a table of their own, values joined by ;") {
  const std::string file = "/tmp/drivescope_csv_compare." + std::to_string(::getpid()) + ".json";
  REQUIRE(clitest::run_split("bench sim:raptor --tests access --budget 1 --json > " + file).rc == 0);
  const auto r = clitest::run_split("compare " + file + " " + file + " --csv=compare.tables[0].rows");
  const auto j = nlohmann::json::parse(clitest::run_split("compare " + file + " " + file + " --json").out);
  std::remove(file.c_str());
  REQUIRE(r.rc == 0);
  const auto rows = parse_csv(r.out);
  check_shape(rows);
  const auto& jrows = j["compare"]["tables"][0]["rows"];
  REQUIRE(rows.size() == jrows.size() + 1);
  const auto v = jrows[0]["values"];
  REQUIRE(v.size() == 2);
  CHECK(rows[1][column(rows, "label")] == jrows[0]["label"].get<std::string>());
  CHECK(rows[1][column(rows, "values")] == v[0].dump() + ";" + v[1].dump());
}

TEST_CASE("--csv=TABLE: that table alone, plain RFC 4180; an unknown one is named with the choices") {
  const auto r = clitest::run_split("bench sim:raptor --tests transfer --budget 1 --csv=tests.transfer.zones");
  REQUIRE(r.rc == 0);
  CHECK(r.out.rfind("# ", 0) == std::string::npos);
  const auto rows = parse_csv(r.out);
  check_shape(rows);
  CHECK(rows[0].size() >= 5);
  const auto bad = clitest::run_split("bench sim:raptor --tests transfer --budget 1 --csv=tests.nothing");
  CHECK(bad.rc == 2);
  CHECK(bad.err.find("tests.transfer.zones") != std::string::npos);
  CHECK(clitest::run_split("identify sim:raptor --csv --json").rc == 2);
}

TEST_CASE("ab --csv: a field with a comma is quoted and reads back whole; scan --csv: a row per drive") {
  const auto r = clitest::run_split("ab sim:maxline3 --feature aam=quiet,fast --rounds 2 --budget 0.5 --csv=ab.arms");
  REQUIRE(r.rc == 0);
  const auto rows = parse_csv(r.out);
  check_shape(rows);
  REQUIRE(rows.size() == 2 * 2 + 1);
  const std::string message = rows[1][column(rows, "message")];
  CHECK(message.find(',') != std::string::npos);  // "... (read back from IDENTIFY w83/w86 bit 9, w94)"
  CHECK(r.out.find("\"" + message + "\"") != std::string::npos);
  CHECK(rows[2][column(rows, "arm")] == "B");
  const auto scan = clitest::run_split("scan sim:raptor sim:cheetah15k3 --csv=drives");
  REQUIRE(scan.rc == 0);
  const auto drives = parse_csv(scan.out);
  check_shape(drives);
  REQUIRE(drives.size() == 3);
  CHECK(drives[1][column(drives, "target.name")] == "sim:raptor");
  CHECK(drives[2][column(drives, "target.name")] == "sim:cheetah15k3");
}
