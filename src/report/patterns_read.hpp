// Reading the patterns test's section of a bench document (tests.patterns, written by
// report::patterns_to_json): a flat `cells` array, one cell per pattern, queue depth and write
// share, and the seed's summary figures beside it. Shared by the charts, the HTML tables and
// `compare`, so that all three read the same keys.
#pragma once
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "report/json_read.hpp"
#include "tests/result_keys.hpp"

namespace ds::report {

struct PatternRow {
  std::string pattern;
  double depth = 0;
  double write_pct = 0;
  bool skipped = false;
  std::string skip_reason;
  std::optional<double> iops, mb_s, mean_ms;
  std::optional<double> iops_rel_se;  // the standard error of iops over iops
};

// The cells in the document's order; a cell without a pattern or a depth is left out.
inline std::vector<PatternRow> pattern_rows(const nlohmann::json& p) {
  namespace C = measure::key::pattern_cell;
  constexpr const char* cells = measure::key::patterns::cells;
  std::vector<PatternRow> out;
  if (!p.is_object() || !p.contains(cells) || !p[cells].is_array()) return out;
  for (const auto& c : p[cells]) {
    if (!c.is_object() || !c.contains(C::pattern) || !c[C::pattern].is_string()) continue;
    auto d = json_number(c, C::depth);
    if (!d) continue;
    PatternRow r;
    r.pattern = c[C::pattern].get<std::string>();
    r.depth = *d;
    r.write_pct = json_number(c, C::write_pct).value_or(0);
    r.skipped = c.contains(C::skipped) && c[C::skipped].is_boolean() && c[C::skipped].get<bool>();
    if (c.contains(C::skip_reason) && c[C::skip_reason].is_string()) r.skip_reason = c[C::skip_reason].get<std::string>();
    if (!r.skipped) {
      r.iops = json_number(c, C::iops), r.mb_s = json_number(c, C::mb_s), r.mean_ms = json_number(c, C::mean_ms);
      r.iops_rel_se = json_number(c, C::iops_rel_se);
    }
    out.push_back(std::move(r));
  }
  return out;
}

// Patterns in order of first appearance.
inline std::vector<std::string> pattern_names(const std::vector<PatternRow>& rows) {
  std::vector<std::string> names;
  for (const auto& r : rows)
    if (std::find(names.begin(), names.end(), r.pattern) == names.end()) names.push_back(r.pattern);
  return names;
}

// The document's own average over loads of a pattern, for the patterns the test averages
// (report::patterns_to_json): the key, or null for the others.
inline const char* pattern_average_key(const std::string& pattern) {
  namespace P = measure::key::patterns;
  if (pattern == "fileserver") return P::fileserver_average_iops;
  if (pattern == "webserver") return P::webserver_average_iops;
  return nullptr;
}

// The seed's "average over loads" of one pattern: the document's own average (above) when it has
// one, otherwise the mean IOPS of the pattern's cells, and nothing when any of its cells is
// missing (an average over part of the loads would not compare with a full one).
inline std::optional<double> pattern_average(const nlohmann::json& p, const std::vector<PatternRow>& rows,
                                             const std::string& pattern) {
  if (const char* key = pattern_average_key(pattern))
    if (auto v = json_number(p, key)) return v;
  double sum = 0;
  int n = 0;
  for (const auto& r : rows)
    if (r.pattern == pattern) {
      if (!r.iops) return std::nullopt;
      sum += *r.iops, ++n;
    }
  return n ? std::optional<double>(sum / n) : std::nullopt;
}

// The workstation rating, Σ IOPS(q)/q for q = 1, 2, 4 … 32 (methods.md): the document's own
// `workstation_rating`, else computed from the workstation cells when all six are there.
inline std::optional<double> workstation_rating_of(const nlohmann::json& p, const std::vector<PatternRow>& rows) {
  if (auto v = json_number(p, measure::key::patterns::workstation_rating)) return v;
  double s = 0;
  for (double q : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0}) {
    const PatternRow* hit = nullptr;
    for (const auto& r : rows)
      if (r.pattern == "workstation" && r.depth == q && r.iops) hit = &r;
    if (!hit) return std::nullopt;
    s += *hit->iops / q;
  }
  return s;
}

}  // namespace ds::report
