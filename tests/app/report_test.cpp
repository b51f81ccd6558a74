// The report and compare flows end to end: the drivescope binary benches two simulated drives,
// then the report is rendered from its JSON and checked (self-contained HTML holding every chart
// the document calls for as inline SVG; PNG rendering; the missing-gnuplot path), and compare's
// marks are checked against the values they mark.
#include <doctest/doctest.h>

#include <cmath>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/compare.hpp"
#include "app/report.hpp"
#include "report/charts.hpp"
#include "app_test_util.hpp"
#include "../support/skip.hpp"

using nlohmann::json;
namespace fs = std::filesystem;

using apptest::slurp;

namespace {

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  ::pclose(p);
  return out;
}

// Bench results of the simulated drives, made once per test run by the real binary.
const fs::path& work_dir() {
  static fs::path d = [] {
    fs::path p = fs::temp_directory_path() / ("ds_report_" + std::to_string(::getpid()));
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
  }();
  return d;
}

fs::path bench(const std::string& preset) {
  fs::path out = work_dir() / (preset + ".json");
  if (!fs::exists(out)) {
    std::string cmd = std::string(DS_BINARY) + " bench sim:" + preset + " --json --quiet --seed 7 > " + out.string() + " 2>/dev/null";
    (void)std::system(cmd.c_str());
  }
  return out;
}

bool count_ok(const std::string& hay, const std::string& needle, std::size_t want) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n == want;
}

}  // namespace

TEST_CASE("report: full bench of a simulated drive -> self-contained HTML with every chart inline" * doctest::test_suite("env")) {
  if (ds::report::find_gnuplot().empty() || std::getenv("DRIVESCOPE_GNUPLOT")) {
    DS_SKIP("gnuplot not available: skipped");
  }
  fs::path results = bench("raptor");
  auto doc = ds::app::load_results(results.string());
  REQUIRE_MESSAGE(doc, "bench output not loadable: ", slurp(results).substr(0, 300));
  auto kinds = ds::report::expected_chart_kinds(*doc);
  // The sections the bench always makes are there, so their charts must be.
  for (const char* k : {"transfer", "access_map", "access_histogram", "seek_curve", "blocksize"})
    CHECK_MESSAGE(std::find(kinds.begin(), kinds.end(), k) != kinds.end(), k);
  if ((*doc)["tests"].contains("queue"))
    for (const char* k : {"queue_heatmap", "queue_surface", "queue_iops"})
      CHECK_MESSAGE(std::find(kinds.begin(), kinds.end(), k) != kinds.end(), k);

  ds::app::ReportRequest req;
  req.inputs = {results.string()};
  req.svg_dir = (work_dir() / "charts").string();
  req.html_path = (work_dir() / "report.html").string();
  req.png = true;
  req.timeout_s = 60;
  auto r = ds::app::run_report(req);
  REQUIRE(r);
  CHECK(r->exit_code == 0);
  CHECK(r->warnings.empty());
  std::string html = slurp(req.html_path);
  REQUIRE(!html.empty());
  // Self-contained: no URL, no linked resource of any kind.
  for (const char* bad : {"http://", "https://", "<link", "<script", " src=", "@import", "url(http", "//www."})
    CHECK_MESSAGE(html.find(bad) == std::string::npos, bad);
  // Every chart inline, once each, with its data and script named in the caption.
  CHECK(count_ok(html, "<svg", kinds.size()));
  for (const auto& k : kinds) {
    CHECK_MESSAGE(html.find("<code>" + k + ".dat</code>") != std::string::npos, k);
    CHECK(fs::exists(fs::path(req.svg_dir) / (k + ".dat")));
    CHECK(fs::exists(fs::path(req.svg_dir) / (k + ".gp")));
    CHECK(fs::exists(fs::path(req.svg_dir) / (k + ".svg")));
    CHECK(fs::exists(fs::path(req.svg_dir) / (k + ".png")));
  }
  // The drive's identity and the run's settings come before the first chart.
  std::string model = (*doc)["identify"].value("model", std::string("?"));
  auto first_svg = html.find("<svg");
  CHECK(html.find(model) < first_svg);
  CHECK(html.find("Settings of the run") < first_svg);
  // The PNG is a real PNG of a plausible size.
  std::string png = slurp(fs::path(req.svg_dir) / "transfer.png");
  REQUIRE(png.size() > 5000);
  CHECK(png.substr(1, 3) == "PNG");
}

TEST_CASE("report: without gnuplot, data, scripts and tables are still written and the user is told how") {
  fs::path results = bench("raptor");
  ::setenv("DRIVESCOPE_GNUPLOT", "/nonexistent/gnuplot", 1);
  ds::app::ReportRequest req;
  req.inputs = {results.string()};
  req.html_path = (work_dir() / "nognuplot" / "r.html").string();
  fs::create_directories(work_dir() / "nognuplot");
  auto r = ds::app::run_report(req);
  ::unsetenv("DRIVESCOPE_GNUPLOT");
  REQUIRE(r);
  CHECK(r->exit_code == ds::app::kExitPartial);
  REQUIRE(r->warnings.size() == 1);
  CHECK(r->warnings[0].find("gnuplot-nox") != std::string::npos);
  CHECK(r->warnings[0].find("gnuplot \"$f\"") != std::string::npos);
  fs::path dir = work_dir() / "nognuplot" / "r-charts";
  CHECK(fs::exists(dir / "transfer.dat"));
  CHECK(fs::exists(dir / "transfer.gp"));
  CHECK_FALSE(fs::exists(dir / "transfer.svg"));
  std::string html = slurp(req.html_path);
  CHECK(html.find("Chart not rendered") != std::string::npos);
  CHECK(html.find("<table class=\"cmp\">") != std::string::npos);
  CHECK(html.find("<svg") == std::string::npos);
}

TEST_CASE("report/compare: bad inputs get clear errors") {
  fs::path junk = work_dir() / "junk.json";
  std::ofstream(junk) << "{ not json";
  fs::path other = work_dir() / "other.json";
  std::ofstream(other) << "{\"hello\": 1}";
  auto a = ds::app::load_results(junk.string());
  REQUIRE_FALSE(a);
  CHECK(a.error().message.find("not valid JSON") != std::string::npos);
  auto b = ds::app::load_results(other.string());
  REQUIRE_FALSE(b);
  CHECK(b.error().message.find("not a drivescope result") != std::string::npos);
  CHECK_FALSE(ds::app::load_results((work_dir() / "none.json").string()));
  ds::app::ReportRequest req;
  req.inputs = {junk.string()};
  req.svg_dir = (work_dir() / "x").string();
  CHECK_FALSE(ds::app::run_report(req));
  req.svg_dir.clear();
  CHECK_FALSE(ds::app::run_report(req));
}

TEST_CASE("compare: two simulated drives through the binary, best and worst where the intervals are apart") {
  fs::path a = bench("raptor"), b = bench("ncq-fifo");
  std::string out = run(std::string(DS_BINARY) + " compare " + a.string() + " " + b.string() + " --json");
  json j = json::parse(out, nullptr, false);
  REQUIRE_MESSAGE(!j.is_discarded(), out.substr(0, 300));
  const json& c = j["compare"];
  REQUIRE(c["drives"].size() == 2);
  int ranked = 0;
  for (const auto& t : c["tables"])
    for (const auto& r : t["rows"]) {
      const json& v = r["values"];
      const json& h = r["half_widths"];
      INFO(r["label"].get<std::string>());
      // Marked only when both 95 % intervals are known and apart (within noise: not ranked).
      const bool apart = !v[0].is_null() && !v[1].is_null() && !h[0].is_null() && !h[1].is_null() &&
                         std::fabs(v[0].get<double>() - v[1].get<double>()) > h[0].get<double>() + h[1].get<double>();
      if (r["better"] == "none" || !apart) {
        CHECK(r["best"].is_null());
        CHECK(r["worst"].is_null());
        continue;
      }
      ++ranked;
      int hi = v[0].get<double>() > v[1].get<double>() ? 0 : 1;
      int best = r["better"] == "higher" ? hi : 1 - hi;
      CHECK(r["best"] == best);
      CHECK(r["worst"] == 1 - best);
    }
  // A 10k and a 7200 rpm drive: at least the mean access, the seek times, the edge rates and the
  // burst are apart beyond their intervals (6 rows on these two benches; the rest are unmarked).
  CHECK(ranked >= 5);
  // The 10k rpm Raptor has the shorter mean access time than the 7200 rpm drive: marked best.
  for (const auto& t : c["tables"])
    for (const auto& r : t["rows"])
      if (r["label"] == "read access, mean") CHECK(r["best"] == 0);
  // Text: markers without a terminal, colours when forced.
  std::string plain = run(std::string(DS_BINARY) + " compare " + a.string() + " " + b.string());
  CHECK(plain.find("* best of the row") != std::string::npos);
  CHECK(plain.find("\033[") == std::string::npos);
  std::string col = run(std::string(DS_BINARY) + " compare --color always " + a.string() + " " + b.string());
  CHECK(col.find("\033[1;34m") != std::string::npos);
  std::string nocol = run("NO_COLOR=1 TERM=xterm " + std::string(DS_BINARY) + " compare " + a.string() + " " + b.string());
  CHECK(nocol.find("\033[") == std::string::npos);
}
