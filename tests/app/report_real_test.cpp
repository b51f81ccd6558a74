// The report drawn from REAL result documents: the drivescope binary runs the patterns test, an
// A/B run and the access test on simulated drives, and the charts, HTML tables and comparison are
// checked against the figures in those documents (never against hand-written JSON, so a change of
// the result format that the report does not follow fails here).
#include <doctest/doctest.h>

#include <fmt/core.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/report.hpp"
#include "report/charts.hpp"
#include "report/compare.hpp"
#include "app_test_util.hpp"

using nlohmann::json;
namespace fs = std::filesystem;

using apptest::slurp;
using apptest::has;

namespace {

const fs::path& dir() {
  static fs::path d = [] {
    fs::path p = fs::temp_directory_path() / ("ds_report_real_" + std::to_string(::getpid()));
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
  }();
  return d;
}

// Runs `drivescope ARGS --json --quiet` once and loads its document.
json produce(const std::string& name, const std::string& args) {
  fs::path out = dir() / (name + ".json");
  if (!fs::exists(out)) {
    std::string cmd = std::string(DS_BINARY) + " " + args + " --json --quiet > " + out.string() + " 2>/dev/null";
    (void)std::system(cmd.c_str());
  }
  auto d = ds::app::load_results(out.string());
  REQUIRE_MESSAGE(d, "not a result document: ", slurp(out).substr(0, 300));
  return *d;
}

const ds::report::ChartSource* chart(const std::vector<ds::report::ChartSource>& cs, const std::string& kind) {
  for (const auto& c : cs)
    if (c.kind == kind) return &c;
  return nullptr;
}

// The HTML report of one document; gnuplot is not needed for the tables.
std::string html_of(const std::string& name) {
  ::setenv("DRIVESCOPE_GNUPLOT", "/nonexistent/gnuplot", 1);
  ds::app::ReportRequest req;
  req.inputs = {(dir() / (name + ".json")).string()};
  req.html_path = (dir() / (name + ".html")).string();
  auto r = ds::app::run_report(req);
  ::unsetenv("DRIVESCOPE_GNUPLOT");
  REQUIRE(r);
  return slurp(req.html_path);
}

}  // namespace

TEST_CASE("report from a real patterns run: IOMeter tables, averages, rating and the chart") {
  const json doc = produce("patterns", "bench sim:raptor --tests patterns --write --seed 5");
  const json& p = doc["tests"]["patterns"];
  REQUIRE(p["cells"].is_array());
  REQUIRE(p["cells"].size() > 20);

  const std::string html = html_of("patterns");
  const auto charts = ds::report::build_charts(doc, "", "");
  const auto* pc = chart(charts, "patterns");
  REQUIRE(pc);
  int measured = 0;
  for (const auto& c : p["cells"]) {
    const std::string pat = c["pattern"];
    const double depth = c["depth"], w = c["write_pct"];
    INFO(pat << " depth " << depth << " writes " << w);
    std::string row = fmt::format("<tr><th>queue depth {:g}</th>", depth);
    if (pat == "database") row += fmt::format("<td>{:g} %</td>", w);
    if (c["skipped"].get<bool>()) {
      // Folded below its pattern's table, in a list of the loads skipped for one reason.
      CHECK_FALSE(has(html, row));
      CHECK(has(html, pat == "database" ? fmt::format("<li>queue depth {:g}, {:g} % writes</li>", depth, w)
                                        : fmt::format("<li>queue depth {:g}</li>", depth)));
      CHECK(has(html, "of " + pat + " skipped"));
      continue;
    }
    ++measured;
    // Each load's row: IOPS, MB/s and mean latency exactly as the document has them.
    row += fmt::format("<td>{:.1f}</td><td>{:.2f}</td><td>{:.2f}</td></tr>", c["iops"].get<double>(),
                       c["mb_s"].get<double>(), c["mean_ms"].get<double>());
    CHECK(has(html, row));
    // The chart carries every non-database cell and the database at 0, 50 and 100 % writes.
    if (pat != "database" || w == 0 || w == 50 || w == 100)
      CHECK(has(pc->data, fmt::format("\n{:g} {:.3f}\n", depth, c["iops"].get<double>())));
  }
  CHECK(measured > 20);
  // The charts come before the per-load tables (issue 32: they were thousands of pixels down,
  // after a table of skipped loads).
  REQUIRE(html.find("<figure") != std::string::npos);
  CHECK(html.find("<figure") < html.find("Access patterns"));
  // The seed's summary rows: the module's own averages and rating.
  for (const char* pat : {"fileserver", "webserver"}) {
    REQUIRE(p[std::string(pat) + "_average_iops"].is_number());
    const double avg = p[std::string(pat) + "_average_iops"];
    CHECK(has(html, fmt::format("<th colspan=\"1\">average over loads</th><td>{:.1f}</td>", avg)));
    CHECK(has(pc->script, fmt::format("{} average {:.1f} IOPS", pat, avg)));
  }
  REQUIRE(p["workstation_rating"].is_number());
  const double rating = p["workstation_rating"];
  CHECK(has(html, fmt::format("q = 1&hellip;32)</th><td>{:.1f}</td>", rating)));
  CHECK(has(pc->script, fmt::format("workstation rating {:.1f}", rating)));

  // compare reads the same cells: one row per cell, and the rating row holds the document's value.
  auto cmp = ds::report::compare_documents({doc}, {"raptor"});
  bool found = false;
  for (const auto& t : cmp.tables)
    for (const auto& r : t.rows)
      if (r.label.rfind("workstation rating", 0) == 0) {
        found = true;
        REQUIRE(r.values[0]);
        CHECK(*r.values[0] == doctest::Approx(rating));
      }
  CHECK(found);
}

TEST_CASE("report from a real A/B run: each difference with its interval, and the verdict") {
  const json doc = produce("ab", "ab sim:maxline3 --feature aam=quiet,fast --tests access --rounds 3 --budget 10 --seed 4");
  const json& ab = doc["ab"];
  REQUIRE(ab["results"].is_array());
  REQUIRE(ab["results"].size() >= 3);

  const auto charts = ds::report::build_charts(doc, "", "");
  const auto* c = chart(charts, "ab");
  REQUIRE(c);
  const std::string html = html_of("ab");
  int i = 0, significant = 0;
  for (const auto& r : ab["results"]) {
    const double d = r["diff_pct"], lo = r["ci_low_pct"], hi = r["ci_high_pct"];
    const bool sig = r["significant"];
    INFO(r["test"].get<std::string>() << " " << r["figure"].get<std::string>());
    // The interval is around the difference and the verdict says whether it holds 0.
    CHECK(lo <= d);
    CHECK(d <= hi);
    CHECK(sig == (lo > 0 || hi < 0));
    significant += sig;
    CHECK(has(c->data, fmt::format("{} {:.4f} {:.4f} {:.4f} {} \"{} {}\"", i, d, lo, hi, sig ? 1 : 0,
                                   r["test"].get<std::string>(), r["figure"].get<std::string>())));
    CHECK(has(c->script, fmt::format("\"{:+.1f} %\" at {}, {:.4f}", d, i, d)));
    CHECK(has(html, fmt::format("<td>{:+.2f} %</td><td>[{:+.2f} %, {:+.2f} %]</td><td{}", d, lo, hi,
                                sig ? " class=\"worst\">significant" : ">not significant")));
    ++i;
  }
  CHECK(has(c->script, fmt::format("{} of {} figures differ significantly", significant, i)));
  CHECK(has(c->title, "(aam)"));
  // The arms are named by their settings, as `ab` wrote them.
  auto cmp = ds::report::compare_documents({doc}, {});
  REQUIRE(cmp.drives.size() == 2);
  CHECK(cmp.drives[0] == "A (" + ab["a"]["text"].get<std::string>() + ")");
  CHECK(cmp.drives[1] == "B (" + ab["b"]["text"].get<std::string>() + ")");
  CHECK(has(html, "<th>A/B arm A</th><td>" + ab["a"]["text"].get<std::string>() + "</td>"));
}

TEST_CASE("report from a real access run: the scatter and histogram are drawn from every read, slow ones marked") {
  // The 7200.7 preset has a slow region (15 % of the disk, +42 ms a command).
  const json doc = produce("access", "bench sim:7200.7 --tests access --seed 3");
  const json& a = doc["tests"]["access"];
  REQUIRE(a["reads"]["lba"].is_array());
  const auto& lba = a["reads"]["lba"];
  const auto& ms = a["reads"]["ms"];
  REQUIRE(lba.size() == ms.size());
  CHECK(lba.size() == a["read"]["samples"].get<std::size_t>());  // all of them: under the bound
  CHECK(lba.size() <= 4000);
  REQUIRE(a["slow_threshold_ms"].is_number());
  const double thr = a["slow_threshold_ms"];
  REQUIRE(a["slow_regions"].size() >= 1);

  auto in_region = [&](double l) {
    for (const auto& r : a["slow_regions"])
      if (r["first_lba"].get<double>() <= l && l <= r["last_lba"].get<double>()) return true;
    return false;
  };
  std::size_t slow = 0;
  for (std::size_t i = 0; i < ms.size(); ++i) slow += ms[i].get<double>() > thr || in_region(lba[i].get<double>());
  CHECK(slow > 0);
  CHECK(slow < ms.size());

  const auto charts = ds::report::build_charts(doc, "", "");
  const auto* map = chart(charts, "access_map");
  REQUIRE(map);
  // index 0 holds the normal reads, index 1 the slow ones: one line per read.
  auto blocks = map->data;
  auto i1 = blocks.find("# index 1"), i2 = blocks.find("# index 2");
  REQUIRE(i1 != std::string::npos);
  REQUIRE(i2 != std::string::npos);
  auto lines = [](const std::string& s) {
    std::size_t n = 0;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) n += !l.empty() && l[0] != '#';
    return n;
  };
  CHECK(lines(blocks.substr(0, i1)) == ms.size() - slow);
  CHECK(lines(blocks.substr(i1, i2 - i1)) == slow);
  for (std::size_t i = 0; i < ms.size(); i += 97)
    CHECK(has(map->data, fmt::format("{:.4f} {:.4f}\n", lba[i].get<double>() * 512 / 1e9, ms[i].get<double>())));
  CHECK(has(map->script, fmt::format("slow read ({})", slow)));
  CHECK(has(map->script, "set object 1 rect"));  // the located region shaded

  const auto* hist = chart(charts, "access_histogram");
  REQUIRE(hist);
  CHECK(has(hist->title, fmt::format("({} reads)", ms.size())));
  double all = 0, slow_share = 0;
  std::istringstream in(hist->data);
  for (std::string l; std::getline(in, l);) {
    if (l.empty() || l[0] == '#') continue;
    double lo = 0, hi = 0, s = 0, sl = 0;
    REQUIRE(std::sscanf(l.c_str(), "%lf %lf %lf %lf", &lo, &hi, &s, &sl) == 4);
    all += s + sl, slow_share += sl;
  }
  CHECK(all == doctest::Approx(100).epsilon(0.005));
  CHECK(slow_share == doctest::Approx(100.0 * slow / ms.size()).epsilon(0.01));
}
