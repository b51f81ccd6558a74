// Side-by-side tables: best and worst of each row, by the figure's direction, on known inputs.
#include <doctest/doctest.h>

#include "report/compare.hpp"

using nlohmann::json;
using ds::report::Better;
using ds::report::CompareRow;

namespace {

// The intervals are narrow (1 % or less), so that every difference below is beyond them.
json drive(const std::string& model, double mean_ms, double outer, double qd4_iops, std::optional<double> burst) {
  json d;
  d["identify"] = {{"model", model}};
  d["tests"]["access"] = {{"read", {{"mean_ms", mean_ms}, {"p50_ms", mean_ms - 0.5}, {"p99_ms", mean_ms * 2},
                                    {"mean_uncertainty_ms", 0.01 * mean_ms / 1.96}}},
                          {"rpm_estimate", 7200.0}};
  d["tests"]["transfer"] = {{"outer_mb_s", outer}, {"inner_mb_s", outer / 2}, {"outer_inner_ratio", 2.0},
                            {"zones", json::array({{{"mb_s", outer}, {"mb_s_uncertainty", 0.5}},
                                                   {{"mb_s", outer / 2}, {"mb_s_uncertainty", 0.3}}})}};
  d["tests"]["queue"] = {{"depths", json::array({{{"depth", 1}, {"iops", 80.0}, {"iops_rel_se", 0.004}, {"mean_ms", 12.0}, {"p99_ms", 20.0}},
                                                 {{"depth", 4}, {"iops", qd4_iops}, {"iops_rel_se", 0.004}, {"mean_ms", 4000 / qd4_iops}, {"p99_ms", 30.0}}})}};
  if (burst) d["tests"]["cache"] = {{"burst_mb_s", *burst}, {"burst_uncertainty_mb_s", 1.0}};
  return d;
}

const CompareRow* row(const ds::report::Comparison& c, const std::string& test, const std::string& label) {
  for (const auto& t : c.tables)
    if (t.test == test)
      for (const auto& r : t.rows)
        if (r.label == label) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("compare: best and worst follow the figure's direction") {
  CompareRow hi{"rate", "MB/s", Better::higher, {50.0, 70.0, std::nullopt, 60.0}};
  ds::report::mark_extremes(hi);
  CHECK(hi.best == 1);
  CHECK(hi.worst == 0);
  CompareRow lo{"access", "ms", Better::lower, {8.0, 12.0, 7.0}};
  ds::report::mark_extremes(lo);
  CHECK(lo.best == 2);
  CHECK(lo.worst == 1);
  CompareRow none{"rpm", "rpm", Better::none, {7200.0, 10000.0}};
  ds::report::mark_extremes(none);
  CHECK(none.best == -1);
  CHECK(none.worst == -1);
  CompareRow tie{"x", "ms", Better::lower, {5.0, 5.0}};
  ds::report::mark_extremes(tie);
  CHECK(tie.best == -1);
  CompareRow alone{"x", "ms", Better::lower, {5.0, std::nullopt}};
  ds::report::mark_extremes(alone);
  CHECK(alone.best == -1);
}

TEST_CASE("compare: best and worst only where the 95 % intervals do not overlap") {
  using V = std::vector<std::optional<double>>;
  // 50 ± 5 and 70 ± 5: apart.
  CompareRow apart{"rate", "MB/s", Better::higher, {50.0, 70.0}, -1, -1, false, V{5.0, 5.0}};
  ds::report::mark_best_worst(apart);
  CHECK(apart.best == 1);
  CHECK(apart.worst == 0);
  // 50 ± 11 and 70 ± 10: the intervals meet at 60-61, a difference within noise.
  CompareRow overlap{"rate", "MB/s", Better::higher, {50.0, 70.0}, -1, -1, false, V{11.0, 10.0}};
  ds::report::mark_best_worst(overlap);
  CHECK(overlap.best == -1);
  CHECK(overlap.worst == -1);
  // A value without its interval: the noise is not known, nothing is marked.
  CompareRow unknown{"rate", "MB/s", Better::higher, {50.0, 70.0}, -1, -1, false, V{1.0, std::nullopt}};
  ds::report::mark_best_worst(unknown);
  CHECK(unknown.best == -1);
  CompareRow none_given{"rate", "MB/s", Better::higher, {50.0, 70.0}};
  ds::report::mark_best_worst(none_given);
  CHECK(none_given.best == -1);
  // Three times, lower better: 7 ± 0.5 is clear of 8 ± 0.3 and 12 ± 1, so it is best; 12 ± 1
  // is clear of both others, so it is worst.
  CompareRow three{"access", "ms", Better::lower, {8.0, 12.0, 7.0}, -1, -1, false, V{0.3, 1.0, 0.5}};
  ds::report::mark_best_worst(three);
  CHECK(three.best == 2);
  CHECK(three.worst == 1);
  // 7.9 ± 0.3 overlaps 8 ± 0.3: no best; 12 ± 1 stays worst. A missing value does not count.
  CompareRow close{"access", "ms", Better::lower, {8.0, 12.0, 7.9, std::nullopt}, -1, -1, false,
                   V{0.3, 1.0, 0.3, std::nullopt}};
  ds::report::mark_best_worst(close);
  CHECK(close.best == -1);
  CHECK(close.worst == 1);
}

TEST_CASE("compare: the half-widths come from the documents, and rows without one stay unmarked") {
  // Equal intervals of 1.96 standard errors: 8 ± 0.98 against 9 ± 0.98 overlap, 8 ± 0.196 against
  // 9 ± 0.196 do not (mean_uncertainty_ms is a standard error, not a half-width).
  auto doc = [](double mean, double se) {
    json d;
    d["tests"]["access"] = {{"read", {{"mean_ms", mean}, {"p50_ms", mean}, {"mean_uncertainty_ms", se}}}};
    return d;
  };
  auto wide = ds::report::compare_documents({doc(8.0, 0.5), doc(9.0, 0.5)}, {"a", "b"});
  auto* m = row(wide, "access", "read access, mean");
  REQUIRE(m);
  REQUIRE(m->half_widths.size() == 2);
  REQUIRE(m->half_widths[0]);
  CHECK(*m->half_widths[0] == doctest::Approx(0.98));
  CHECK(m->best == -1);
  auto narrow = ds::report::compare_documents({doc(8.0, 0.1), doc(9.0, 0.1)}, {"a", "b"});
  m = row(narrow, "access", "read access, mean");
  REQUIRE(m);
  CHECK(m->best == 0);
  CHECK(m->worst == 1);
  // The median carries no interval.
  auto* med = row(narrow, "access", "read access, median");
  REQUIRE(med);
  CHECK(med->best == -1);
  auto j = ds::report::comparison_to_json(narrow);
  CHECK(j["tables"][0]["rows"][0]["half_widths"][0].get<double>() == doctest::Approx(0.196));
  CHECK(j["tables"][0]["rows"][1]["half_widths"][0].is_null());
}

TEST_CASE("compare: direction from a figure's key") {
  CHECK(ds::report::better_for_key("mean_ms") == Better::lower);
  CHECK(ds::report::better_for_key("outer_mb_s") == Better::higher);
  CHECK(ds::report::better_for_key("iops") == Better::higher);
  CHECK(ds::report::better_for_key("workstation_rating") == Better::higher);
  CHECK(ds::report::better_for_key("outer_inner_ratio") == Better::none);
}

TEST_CASE("compare: two drives side by side, rows lined up by label, marks on known values") {
  // Drive A: faster access, slower transfer, deeper-queue IOPS lower; only A has a cache figure.
  auto c = ds::report::compare_documents({drive("A", 8.1, 60.0, 150.0, 150.0), drive("B", 12.3, 75.0, 190.0, std::nullopt)}, {});
  REQUIRE(c.drives == std::vector<std::string>{"A", "B"});
  auto* mean = row(c, "access", "read access, mean");
  REQUIRE(mean);
  CHECK(mean->best == 0);
  CHECK(mean->worst == 1);
  auto* outer = row(c, "transfer", "outer rate");
  REQUIRE(outer);
  CHECK(outer->best == 1);
  CHECK(outer->worst == 0);
  auto* iops4 = row(c, "queue", "depth 4: IOPS");
  REQUIRE(iops4);
  CHECK(iops4->best == 1);
  auto* lat4 = row(c, "queue", "depth 4: mean latency");
  REQUIRE(lat4);
  CHECK(lat4->best == -1);  // 4000/190 < 4000/150, but the document gives the latency no interval
  auto* same = row(c, "queue", "depth 1: IOPS");
  REQUIRE(same);
  CHECK(same->best == -1);  // equal: nothing to mark
  auto* rpm = row(c, "access", "rotation (measured)");
  REQUIRE(rpm);
  CHECK(rpm->best == -1);
  auto* burst = row(c, "cache", "burst rate");
  REQUIRE(burst);
  CHECK_FALSE(burst->values[1].has_value());
  CHECK(burst->best == -1);

  std::string plain = ds::report::comparison_to_text(c, {false});
  CHECK(plain.find("8.10*") != std::string::npos);
  CHECK(plain.find("12.30!") != std::string::npos);
  CHECK(plain.find("\033[") == std::string::npos);
  std::string colour = ds::report::comparison_to_text(c, {true});
  CHECK(colour.find("\033[1;34m") != std::string::npos);
  CHECK(colour.find("\033[31m") != std::string::npos);
  std::string html = ds::report::comparison_to_html(c);
  CHECK(html.find("<td class=\"best\" title=\"best\">8.10</td>") != std::string::npos);
  CHECK(html.find("<td class=\"worst\" title=\"worst\">12.30</td>") != std::string::npos);
  auto j = ds::report::comparison_to_json(c);
  CHECK(j["drives"].size() == 2);
}

TEST_CASE("compare: patterns give the average over loads and the workstation rating") {
  auto pat = [](double scale) {
    // The cells as report::patterns_to_json writes them, without its summary figures, so that
    // the rating and the average are computed here (tests/app/report_real_test.cpp covers the
    // binary's own documents).
    json cells = json::array();
    for (int q : {1, 2, 4, 8, 16, 32})
      cells.push_back({{"pattern", "workstation"}, {"depth", q}, {"write_pct", 20}, {"skipped", false},
                       {"iops", scale * (100 + 10 * q)}, {"mb_s", 1.0}, {"mean_ms", 5.0}});
    json d;
    d["tests"]["patterns"] = {{"cells", cells}};
    return d;
  };
  auto c = ds::report::compare_documents({pat(1.0), pat(2.0)}, {"one", "two"});
  auto* rating = row(c, "patterns", "workstation rating (sum of IOPS(q)/q, q = 1..32)");
  REQUIRE(rating);
  // Σ (100 + 10 q)/q over q = 1..32 = 100 (1 + 1/2 + … + 1/32) + 60 = 256.875.
  REQUIRE(rating->values[0]);
  CHECK(*rating->values[0] == doctest::Approx(256.875));
  CHECK(*rating->values[1] == doctest::Approx(2 * 256.875));
  CHECK(rating->best == -1);  // twice the other's, but the rating carries no interval
  CHECK(rating->summary);
  auto* avg = row(c, "patterns", "workstation: average over loads");
  REQUIRE(avg);
  CHECK(*avg->values[0] == doctest::Approx(100 + 10 * 63.0 / 6));
  // Summary rows come after the cells.
  const auto& rows = c.tables.back().rows;
  CHECK(rows.back().summary);
  CHECK_FALSE(rows.front().summary);
}

TEST_CASE("compare: one A/B document compares its two arms") {
  json d;
  d["ab"] = {{"feature", "aam"}, {"a", {{"enabled", true}, {"level", 128}, {"text", "quiet"}}},
             {"b", {{"enabled", true}, {"level", 254}, {"text", "fast"}}},
             {"results", json::array({{{"test", "access"}, {"figure", "mean_ms"}, {"a", 14.0}, {"b", 12.0}, {"diff_pct", -14.3}, {"significant", true}},
                                      {{"test", "transfer"}, {"figure", "outer_mb_s"}, {"a", 60.0}, {"b", 61.0}, {"diff_pct", 1.7}, {"significant", true}},
                                      {{"test", "transfer"}, {"figure", "inner_mb_s"}, {"a", 30.0}, {"b", 30.1}, {"diff_pct", 0.3}, {"significant", false}}})}};
  auto c = ds::report::compare_documents({d}, {});
  REQUIRE(c.drives.size() == 2);
  CHECK(c.drives[0] == "A (quiet)");
  auto* m = row(c, "access", "mean_ms");
  REQUIRE(m);
  CHECK(m->best == 1);
  auto* t = row(c, "transfer", "outer_mb_s");
  REQUIRE(t);
  CHECK(t->best == 1);
  CHECK(t->worst == 0);
  // Not significant: neither arm is marked, whatever the means.
  auto* in = row(c, "transfer", "inner_mb_s");
  REQUIRE(in);
  CHECK(in->best == -1);
  CHECK(in->worst == -1);
}
