// Charts from result documents: which charts a document calls for, what their data files hold,
// gnuplot rendering them (SVG and PNG) and the HTML inlining of the SVG.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/charts.hpp"
#include "report/html.hpp"
#include "../support/skip.hpp"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json sample_doc() {
  json d;
  d["drivescope"] = {{"version", "test"}};
  d["target"] = {{"kind", "sim"}, {"name", "sim:test"}};
  d["identify"] = {{"model", "TEST \"DRIVE\" 1"}, {"logical_sector_bytes", 512}, {"capacity_sectors", 1000000}};
  json pts = json::array();
  for (int i = 0; i < 10; ++i) pts.push_back({{"lba", i * 100000}, {"mb_s", 70.0 - 3 * i}});
  d["tests"]["transfer"] = {{"points", pts},
                            {"zones", json::array({{{"first_lba", 0}, {"last_lba", 499999}, {"mb_s", 65.0}},
                                                   {{"first_lba", 500000}, {"last_lba", 999999}, {"mb_s", 50.0}}})},
                            {"outer_mb_s", 70.0}, {"inner_mb_s", 43.0}, {"outer_inner_ratio", 1.63}};
  d["tests"]["access"] = {{"read", {{"mean_ms", 8.0}, {"p50_ms", 7.5}, {"p99_ms", 15.0}}},
                          {"map", json::array({{{"first_lba", 0}, {"last_lba", 499999}, {"samples", 50}, {"mean_ms", 7.9}, {"slow", false}},
                                               {{"first_lba", 500000}, {"last_lba", 999999}, {"samples", 50}, {"mean_ms", 30.0}, {"slow", true}}})},
                          {"slow_regions", json::array({{{"first_lba", 500000}, {"last_lba", 999999}, {"mean_ms", 30.0}}})},
                          {"seek_curve", json::array({{{"max_distance_sectors", 1000}, {"samples", 10}, {"seek_ms", 1.0}},
                                                      {{"max_distance_sectors", 1000000}, {"samples", 10}, {"seek_ms", 9.0}}})}};
  json depths = json::array();
  for (int q : {1, 2, 4}) {
    json h = json::array({{{"lower_ms", 1.0 * q}, {"upper_ms", 1.1 * q}, {"count", 60}},
                          {{"lower_ms", 4.0 * q}, {"upper_ms", 4.4 * q}, {"count", 40}}});
    depths.push_back({{"depth", q}, {"iops", 100.0 + q}, {"mean_ms", 2.0 * q}, {"p99_ms", 4.4 * q}, {"histogram", h}});
  }
  d["tests"]["queue"] = {{"depths", depths}, {"reorders", false}};
  d["tests"]["blocksize"] = {{"queue_depth", 4},
                             {"rows", json::array({{{"block_bytes", 512}, {"read_mb_s", 10.0}},
                                                   {{"block_bytes", 65536}, {"read_mb_s", 60.0}}})}};
  return d;
}

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("charts: a document calls for the charts of the sections it has, and only those") {
  json d = sample_doc();
  auto kinds = ds::report::expected_chart_kinds(d);
  std::vector<std::string> want{"transfer", "access_map", "access_histogram", "seek_curve",
                                "queue_heatmap", "queue_surface", "queue_iops", "blocksize"};
  CHECK(kinds == want);
  d["tests"].erase("queue");
  d["tests"].erase("access");
  CHECK(ds::report::expected_chart_kinds(d) == std::vector<std::string>{"transfer", "blocksize"});
  CHECK(ds::report::expected_chart_kinds(json::object()).empty());
  CHECK(ds::report::expected_chart_kinds(json::array({1, 2})).empty());
  // Wrong types in place of sections are skipped, not a crash.
  json bad{{"tests", {{"transfer", {{"points", "many"}}}, {"queue", 3}, {"access", {{"map", {1, 2}}}}}}};
  CHECK_NOTHROW(ds::report::build_charts(bad, "", ""));
}

TEST_CASE("charts: data files carry the document's figures in chart units") {
  auto charts = ds::report::build_charts(sample_doc(), "x-", "");
  REQUIRE(charts.size() == 8);
  CHECK(charts[0].name == "x-transfer");
  // LBA 100000 of 512-byte sectors = 0.0512 GB; the second sample's rate is 67.
  CHECK(charts[0].data.find("0.0512 67.000") != std::string::npos);
  // Zones as segments: 0 → 0.256 GB at 65 MB/s.
  CHECK(charts[0].data.find("0.0000 65.000\n0.2560 65.000") != std::string::npos);
  CHECK(charts[0].script.find("detected zones (2)") != std::string::npos);
  // The slow region is shaded and plotted apart.
  CHECK(charts[1].script.find("set object 1 rect from 0.2560") != std::string::npos);
  CHECK(charts[1].script.find("slow region") != std::string::npos);
  // Heat map: depth 1's 60 % share and depth 4's 40 % share survive the re-binning.
  const auto& heat = charts[4];
  CHECK(heat.kind == "queue_heatmap");
  CHECK(heat.data.find(" 60.0000\n") != std::string::npos);
  CHECK(heat.data.find(" 40.0000\n") != std::string::npos);
  // Every script writes its own SVG by default and PNG on request.
  for (const auto& c : charts) {
    CHECK(c.script.find("set output '" + c.name + ".svg'") != std::string::npos);
    CHECK(c.script.find("set output '" + c.name + ".png'") != std::string::npos);
    CHECK(c.script.find("xlabel") != std::string::npos);
  }
}

TEST_CASE("charts: gnuplot renders every chart to SVG, one to PNG; the SVG inlines cleanly" * doctest::test_suite("env")) {
  std::string gp = ds::report::find_gnuplot();
  if (gp.empty() || std::getenv("DRIVESCOPE_GNUPLOT")) {
    DS_SKIP("gnuplot not available: rendering not tested here");
  }
  fs::path dir = fs::temp_directory_path() / ("ds_charts_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto charts = ds::report::build_charts(sample_doc(), "", "sample");
  ds::report::WriteOptions wo{gp, false, 60};
  auto w = ds::report::write_charts(dir.string(), charts, wo);
  REQUIRE(w);
  REQUIRE(w->size() == charts.size());
  for (const auto& c : *w) {
    INFO(c.source.name, ": ", c.message);
    CHECK(c.svg_ok);
    CHECK(fs::exists(c.dat_path));
    CHECK(fs::exists(c.gp_path));
    CHECK(c.svg.find("<svg") != std::string::npos);
    std::string in = ds::report::inline_svg(c.svg, "k_");
    CHECK(in.rfind("<svg", 0) == 0);
    CHECK(in.find("http://") == std::string::npos);
    CHECK(in.find("<script") == std::string::npos);
    CHECK(in.find("id='gpPt0'") == std::string::npos);  // prefixed
  }
  auto png = ds::report::run_gnuplot(gp, dir.string(), "transfer.gp", true, 60);
  CHECK(png.ok);
  std::string p = slurp((dir / "transfer.png").string());
  REQUIRE(p.size() > 8);
  CHECK(p.substr(1, 3) == "PNG");
  fs::remove_all(dir);
}

TEST_CASE("charts: a missing or failing gnuplot is reported, files are still written") {
  fs::path dir = fs::temp_directory_path() / ("ds_charts_nogp_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto charts = ds::report::build_charts(sample_doc(), "", "");
  ds::report::WriteOptions wo{"/nonexistent/gnuplot", false, 5};
  auto w = ds::report::write_charts(dir.string(), charts, wo);
  REQUIRE(w);
  for (const auto& c : *w) {
    CHECK_FALSE(c.svg_ok);
    CHECK(c.message.find("/nonexistent/gnuplot") != std::string::npos);
    CHECK(fs::exists(c.dat_path));
    CHECK(slurp(c.gp_path) == c.source.script);
  }
  // A "gnuplot" that exits non-zero (false(1)) is a failure with a message, not a success.
  auto r = ds::report::run_gnuplot("/bin/false", dir.string(), "transfer.gp", false, 5);
  CHECK_FALSE(r.ok);
  CHECK_FALSE(r.message.empty());
  // One that hangs is killed at the timeout.
  std::ofstream(dir / "hang.sh") << "#!/bin/sh\nsleep 30\n";
  fs::permissions(dir / "hang.sh", fs::perms::owner_all);
  auto t = ds::report::run_gnuplot((dir / "hang.sh").string(), dir.string(), "transfer.gp", false, 0.5);
  CHECK_FALSE(t.ok);
  CHECK(t.message.find("did not finish") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("html: the inliner drops prolog, namespaces, scripts and external hrefs, keeps data: images") {
  std::string svg =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/x.dtd\">\n"
      "<svg width=\"10\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">"
      "<script type=\"text/javascript\">alert(1)</script><defs><path id='p0'/></defs>"
      "<use xlink:href='#p0'/><a xlink:href=\"https://example.com\">x</a><image href=\"data:image/png;base64,AAAA\"/>"
      "<rect fill=\"url(#g1)\"/></svg>\ntrailing";
  std::string o = ds::report::inline_svg(svg, "c1_");
  CHECK(o.rfind("<svg width=\"10\">", 0) == 0);
  CHECK(o.find("http") == std::string::npos);
  CHECK(o.find("script") == std::string::npos);
  CHECK(o.find("id='c1_p0'") != std::string::npos);
  CHECK(o.find("xlink:href='#c1_p0'") != std::string::npos);
  CHECK(o.find("url(#c1_g1)") != std::string::npos);
  CHECK(o.find("data:image/png;base64,AAAA") != std::string::npos);
  CHECK(o.find("trailing") == std::string::npos);
  CHECK(ds::report::inline_svg("no svg here", "x").empty());
}

TEST_CASE("charts: a replay document gives the two service-time CDFs, the demerit in the key") {
  json cdf_sim = json::array(), cdf_real = json::array();
  for (int k = 0; k <= 100; ++k) {
    cdf_sim.push_back({{"p", k / 100.0}, {"ms", 1.0 + 0.2 * k}});
    cdf_real.push_back({{"p", k / 100.0}, {"ms", 1.5 + 0.2 * k}});
  }
  json d;
  d["replay"] = {{"summary", {{"cdf", cdf_sim}}}, {"measured", {{"cdf", cdf_real}}}, {"demerit_ms", 0.5}};
  CHECK(ds::report::expected_chart_kinds(d) == std::vector<std::string>{"replay_cdf"});
  const auto c = ds::report::build_charts(d, "", "").front();
  std::istringstream data(c.data);
  std::string line;
  std::getline(data, line);  // header
  std::getline(data, line);
  CHECK(line == "0.00 1.0000 1.5000");
  int rows = 1;
  while (std::getline(data, line)) ++rows;
  CHECK(rows == 101);
  CHECK(c.script.find("measured (demerit 0.500 ms)") != std::string::npos);
  // A trace without measured times: one curve, NaN in the measured column.
  d["replay"].erase("measured");
  d["replay"]["demerit_ms"] = nullptr;
  const auto one = ds::report::build_charts(d, "", "").front();
  CHECK(one.data.find("NaN") != std::string::npos);
  CHECK(one.script.find("using 3:1") == std::string::npos);
}
