#include "report/compare.hpp"
#include "report/json_read.hpp"
#include "report/patterns_read.hpp"
#include "tests/result_keys.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace ds::report {

using nlohmann::json;
namespace K = measure::key;

namespace {

const json& sub(const json& j, const char* key) {
  static const json empty = json::object();
  if (!j.is_object()) return empty;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : empty;
}

// One figure of one document, before the documents are lined up.
struct Cell {
  std::string test, title, label, unit;
  Better better;
  double value;
  bool summary = false;
  std::optional<double> half_width;  // of its 95 % interval, where the document carries one
};

// The 95 % half-width of a figure whose document gives its standard error (the mean access
// times: mean_uncertainty_ms) or its relative standard error (IOPS: iops_rel_se).
constexpr double kZ95 = 1.96;
std::optional<double> from_se(std::optional<double> se) {
  if (!se) return std::nullopt;
  return kZ95 * *se;
}
std::optional<double> from_rel_se(std::optional<double> value, std::optional<double> rel_se) {
  if (!value || !rel_se) return std::nullopt;
  return kZ95 * *rel_se * *value;
}

// The outer (inner) rate is the first (last) zone's: its half-width is that zone's, when the
// zone is the one the rate was read from.
std::optional<double> edge_zone_half_width(const json& transfer, std::optional<double> rate, bool outer) {
  const json* zones = json_array(transfer, K::transfer::zones);
  if (!rate || !zones || zones->empty()) return std::nullopt;
  const json& z = outer ? zones->front() : zones->back();
  auto mb_s = json_number(z, K::zone::mb_s);
  // The rate is written to 4 decimals, the zone's to 3.
  if (!mb_s || std::fabs(*mb_s - *rate) > 1e-3) return std::nullopt;
  return json_number(z, K::zone::mb_s_uncertainty);
}

std::string size_text(double bytes) {
  if (bytes >= 1048576 && std::fmod(bytes, 1048576) == 0) return fmt::format("{:g} MiB", bytes / 1048576);
  if (bytes >= 1024 && std::fmod(bytes, 1024) == 0) return fmt::format("{:g} KiB", bytes / 1024);
  return fmt::format("{:g} B", bytes);
}

// The cells of one document as they are found; add() leaves out a figure the document lacks.
struct Cells {
  std::vector<Cell> out;
  void add(const char* test, const char* title, std::string label, const char* unit, Better b,
           std::optional<double> v, bool summary = false, std::optional<double> half_width = std::nullopt) {
    if (v) out.push_back({test, title, std::move(label), unit, b, *v, summary, half_width});
  }
  void add_hw(const char* test, const char* title, std::string label, const char* unit, Better b,
              std::optional<double> v, std::optional<double> half_width) {
    add(test, title, std::move(label), unit, b, v, false, half_width);
  }
};

void access_cells(Cells& c, const json& a) {
  namespace A = K::access;
  namespace L = K::latency;
  const char* test = K::tests::access;
  const char* T = "Random access (single-sector reads over the span)";
  c.add_hw(test, T, "read access, mean", "ms", Better::lower, json_number(sub(a, A::read), L::mean_ms),
           from_se(json_number(sub(a, A::read), L::mean_uncertainty_ms)));
  c.add(test, T, "read access, median", "ms", Better::lower, json_number(sub(a, A::read), L::p50_ms));
  c.add(test, T, "read access, 99th percentile", "ms", Better::lower, json_number(sub(a, A::read), L::p99_ms));
  c.add_hw(test, T, "write access, mean", "ms", Better::lower, json_number(sub(a, A::write), L::mean_ms),
           from_se(json_number(sub(a, A::write), L::mean_uncertainty_ms)));
  c.add_hw(test, T, "average seek", "ms", Better::lower, json_number(a, A::avg_seek_ms), json_number(a, A::avg_seek_uncertainty_ms));
  c.add_hw(test, T, "track to track", "ms", Better::lower, json_number(a, A::track_to_track_ms),
           json_number(a, A::track_to_track_uncertainty_ms));
  c.add_hw(test, T, "full stroke", "ms", Better::lower, json_number(a, A::full_stroke_ms), json_number(a, A::full_stroke_uncertainty_ms));
  c.add(test, T, "command overhead", "ms", Better::lower, json_number(a, A::command_overhead_ms));
  c.add(test, T, "rotation (measured)", "rpm", Better::none, json_number(a, A::rpm_estimate));
  if (const json* s = json_array(a, A::slow_regions)) c.add(test, T, "slow regions", "", Better::lower, static_cast<double>(s->size()));
}

void transfer_cells(Cells& c, const json& t) {
  namespace X = K::transfer;
  const char* test = K::tests::transfer;
  const char* T = "Sequential transfer (ZCAV)";
  c.add_hw(test, T, "outer rate", "MB/s", Better::higher, json_number(t, X::outer_mb_s),
           edge_zone_half_width(t, json_number(t, X::outer_mb_s), true));
  c.add_hw(test, T, "inner rate", "MB/s", Better::higher, json_number(t, X::inner_mb_s),
           edge_zone_half_width(t, json_number(t, X::inner_mb_s), false));
  if (const json* p = json_array(t, X::points); p && !p->empty()) {
    double sum = 0; int n = 0;
    for (const auto& pt : *p) if (auto v = json_number(pt, K::transfer_point::mb_s)) sum += *v, ++n;
    if (n) c.add(test, T, "average over the span", "MB/s", Better::higher, sum / n);
  }
  c.add(test, T, "outer/inner ratio", "", Better::none, json_number(t, X::outer_inner_ratio));
  if (const json* z = json_array(t, X::zones)) c.add(test, T, "zones detected", "", Better::none, static_cast<double>(z->size()));
  c.add(test, T, "surfaces (estimate)", "", Better::none, json_number(t, X::surfaces_estimate));
  c.add(test, T, "platters (estimate)", "", Better::none, json_number(t, X::platters_estimate));
  if (auto v = json_number(t, X::bytes_per_platter_estimate)) c.add(test, T, "data per platter (estimate)", "GB", Better::none, *v / 1e9);
}

void cache_cells(Cells& c, const json& k) {
  namespace C = K::cache;
  const char* test = K::tests::cache;
  const char* T = "Drive cache";
  c.add_hw(test, T, "burst rate", "MB/s", Better::higher, json_number(k, C::burst_mb_s), json_number(k, C::burst_uncertainty_mb_s));
  c.add(test, T, "cache hit overhead", "ms", Better::lower, json_number(k, C::hit_overhead_ms));
  if (auto v = json_number(k, C::size_bytes_estimate)) c.add(test, T, "cache size (estimate)", "MiB", Better::higher, *v / 1048576);
}

void blocksize_cells(Cells& c, const json& b) {
  namespace R = K::blocksize_row;
  const char* test = K::tests::blocksize;
  const char* T = "Sequential rate by block size";
  if (const json* rows = json_array(b, K::blocksize::rows)) {
    for (const auto& r : *rows)
      if (auto bytes = json_number(r, R::block_bytes)) c.add(test, T, "read " + size_text(*bytes), "MB/s", Better::higher, json_number(r, R::read_mb_s));
    for (const auto& r : *rows)
      if (auto bytes = json_number(r, R::block_bytes)) c.add(test, T, "write " + size_text(*bytes), "MB/s", Better::higher, json_number(r, R::write_mb_s));
  }
}

void queue_cells(Cells& c, const json& q) {
  namespace D = K::queue_depth;
  const char* test = K::tests::queue;
  const char* T = "Read queuing (random single-sector reads)";
  const json* d = json_array(q, K::queue::depths);
  if (!d) return;
  for (const auto& r : *d)
    if (auto depth = json_number(r, D::depth))
      c.add_hw(test, T, fmt::format("depth {:g}: IOPS", *depth), "IOPS", Better::higher, json_number(r, D::iops),
               from_rel_se(json_number(r, D::iops), json_number(r, D::iops_rel_se)));
  for (const auto& r : *d)
    if (auto depth = json_number(r, D::depth)) c.add(test, T, fmt::format("depth {:g}: mean latency", *depth), "ms", Better::lower, json_number(r, D::mean_ms));
  for (const auto& r : *d)
    if (auto depth = json_number(r, D::depth)) c.add(test, T, fmt::format("depth {:g}: 99th percentile", *depth), "ms", Better::lower, json_number(r, D::p99_ms));
}

void patterns_cells(Cells& c, const json& p) {
  const char* test = K::tests::patterns;
  const char* T = "IOMeter-style access patterns (total I/O per second)";
  const auto rows = pattern_rows(p);
  for (const auto& r : rows) {
    std::string label = r.pattern + fmt::format(", depth {:g}", r.depth);
    if (r.pattern == "database") label += fmt::format(", {:g} % writes", r.write_pct);
    c.add_hw(test, T, label, "IOPS", Better::higher, r.iops, from_rel_se(r.iops, r.iops_rel_se));
  }
  for (const auto& nm : pattern_names(rows))
    c.add(test, T, nm + ": average over loads", "IOPS", Better::higher, pattern_average(p, rows, nm), true);
  c.add(test, T, "workstation rating (sum of IOPS(q)/q, q = 1..32)", "", Better::higher,
        workstation_rating_of(p, rows), true);
}

std::vector<Cell> cells_of(const json& doc) {
  Cells c;
  const json& tests = sub(doc, K::kDocumentKey);
  if (tests.contains(K::tests::access)) access_cells(c, sub(tests, K::tests::access));
  if (tests.contains(K::tests::transfer)) transfer_cells(c, sub(tests, K::tests::transfer));
  if (tests.contains(K::tests::cache)) cache_cells(c, sub(tests, K::tests::cache));
  if (tests.contains(K::tests::blocksize)) blocksize_cells(c, sub(tests, K::tests::blocksize));
  if (tests.contains(K::tests::queue)) queue_cells(c, sub(tests, K::tests::queue));
  if (tests.contains(K::tests::patterns)) patterns_cells(c, sub(tests, K::tests::patterns));
  if (doc.is_object() && doc.contains("ab") && doc["ab"].is_object())
    if (const json* r = json_array(doc["ab"], "results"))
      for (const auto& e : *r) {
        std::string lbl = e.value("test", std::string()) + " " + e.value("figure", std::string()) + ": B vs A";
        c.add("ab", "A/B difference (B against A)", lbl, "%", Better::none, json_number(e, "diff_pct"));
      }
  return std::move(c.out);
}

std::string unit_of_figure(std::string_view key) {
  if (key.ends_with("_ms")) return "ms";
  if (key.ends_with("_mb_s")) return "MB/s";
  if (key.find("iops") != std::string_view::npos) return "IOPS";
  return "";
}

}  // namespace

Better better_for_key(std::string_view key) {
  if (key.ends_with("_ms") || (key.ends_with("_s") && !key.ends_with("_mb_s"))) return Better::lower;
  if (key.ends_with("_mb_s") || key.find("iops") != std::string_view::npos || key.find("rating") != std::string_view::npos)
    return Better::higher;
  return Better::none;
}

namespace {

// Whether value i's interval lies clear of every other value's, on the better side (best) or the
// worse side (worst).
bool clear_of_others(const CompareRow& row, int i, bool best) {
  const bool up = (row.better == Better::higher) == best;  // clear above the others
  const double v = *row.values[i], h = *row.half_widths[i];
  for (int j = 0; j < static_cast<int>(row.values.size()); ++j) {
    if (j == i || !row.values[j]) continue;
    const double w = *row.values[j], k = *row.half_widths[j];
    if (up ? !(v - h > w + k) : !(v + h < w - k)) return false;
  }
  return true;
}

}  // namespace

void mark_best_worst(CompareRow& row) {
  mark_extremes(row);
  if (row.best < 0) return;
  for (std::size_t i = 0; i < row.values.size(); ++i)
    if (row.values[i] && (i >= row.half_widths.size() || !row.half_widths[i])) {
      row.best = row.worst = -1;  // a value without its interval: the noise is not known
      return;
    }
  if (!clear_of_others(row, row.best, true)) row.best = -1;
  if (!clear_of_others(row, row.worst, false)) row.worst = -1;
}

void mark_extremes(CompareRow& row) {
  row.best = row.worst = -1;
  if (row.better == Better::none) return;
  int n = 0;
  double lo = 0, hi = 0;
  int ilo = -1, ihi = -1;
  for (int i = 0; i < static_cast<int>(row.values.size()); ++i) {
    if (!row.values[i]) continue;
    double v = *row.values[i];
    if (ilo < 0 || v < lo) lo = v, ilo = i;
    if (ihi < 0 || v > hi) hi = v, ihi = i;
    ++n;
  }
  if (n < 2 || lo == hi) return;
  row.best = row.better == Better::higher ? ihi : ilo;
  row.worst = row.better == Better::higher ? ilo : ihi;
}

std::string drive_name(const json& doc, const std::string& fallback) {
  const json& id = sub(doc, "identify");
  if (id.contains("model") && id["model"].is_string() && !id["model"].get<std::string>().empty())
    return id["model"].get<std::string>();
  const json& t = sub(doc, "target");
  if (t.contains("name") && t["name"].is_string()) return t["name"].get<std::string>();
  return fallback;
}

Comparison compare_documents(const std::vector<json>& docs, const std::vector<std::string>& names) {
  Comparison c;
  // One A/B document alone: its two arms side by side.
  if (docs.size() == 1 && docs[0].is_object() && docs[0].contains("ab") && docs[0]["ab"].is_object() &&
      json_array(docs[0]["ab"], "results")) {
    const json& ab = docs[0]["ab"];
    std::string fa = "A", fb = "B";
    // The arms' settings as `ab` writes them: {"a": {"text": "quiet", ...}, "b": {...}}.
    for (auto [key, arm] : {std::pair{"a", &fa}, {"b", &fb}})
      if (ab.contains(key) && ab[key].is_object() && ab[key].contains("text") && ab[key]["text"].is_string())
        *arm += " (" + ab[key]["text"].get<std::string>() + ")";
    c.drives = {fa, fb};
    std::map<std::string, std::size_t> index;
    for (const auto& e : *json_array(ab, "results")) {
      std::string test = e.value("test", std::string("ab")), fig = e.value("figure", std::string());
      if (!index.count(test)) {
        index[test] = c.tables.size();
        c.tables.push_back({test, "A/B: " + test, {}});
      }
      CompareRow r{fig, unit_of_figure(fig), better_for_key(fig), {json_number(e, "a"), json_number(e, "b")}, -1, -1, false, {}};
      // An arm is only better when the difference is significant: a difference inside the run-to-run
      // spread is not marked.
      if (e.value("significant", false)) mark_extremes(r);
      c.tables[index[test]].rows.push_back(std::move(r));
    }
    return c;
  }
  c.drives = names;
  c.drives.resize(docs.size());
  for (std::size_t i = 0; i < docs.size(); ++i)
    if (c.drives[i].empty()) c.drives[i] = drive_name(docs[i], fmt::format("drive {}", i + 1));
  std::map<std::string, std::size_t> table_index;
  std::map<std::pair<std::string, std::string>, std::size_t> row_index;
  for (std::size_t d = 0; d < docs.size(); ++d)
    for (auto& cell : cells_of(docs[d])) {
      if (!table_index.count(cell.test)) {
        table_index[cell.test] = c.tables.size();
        c.tables.push_back({cell.test, cell.title, {}});
      }
      auto& tab = c.tables[table_index[cell.test]];
      auto key = std::make_pair(cell.test, cell.label);
      if (!row_index.count(key)) {
        row_index[key] = tab.rows.size();
        CompareRow r{cell.label, cell.unit, cell.better, {}, -1, -1, cell.summary, {}};
        r.values.resize(docs.size());
        r.half_widths.resize(docs.size());
        tab.rows.push_back(std::move(r));
      }
      tab.rows[row_index[key]].values[d] = cell.value;
      tab.rows[row_index[key]].half_widths[d] = cell.half_width;
    }
  for (auto& t : c.tables) {
    // Summary rows (averages, rating) go last, as in the seed's tables.
    std::stable_partition(t.rows.begin(), t.rows.end(), [](const CompareRow& r) { return !r.summary; });
    for (auto& r : t.rows) mark_best_worst(r);
  }
  return c;
}

std::string format_value(double v) {
  double a = std::fabs(v);
  if (a == 0) return "0";
  if (a < 1e9 && v == std::round(v)) return fmt::format("{:.0f}", v);  // counts, rpm, whole figures
  if (a >= 1000) return fmt::format("{:.0f}", v);
  if (a >= 100) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3f}", v);
}

std::string html_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += ch;
    }
  }
  return o;
}

std::string comparison_to_text(const Comparison& c, const TextStyle& style) {
  std::string o;
  if (c.tables.empty()) return "No comparable figures in the documents.\n";
  std::size_t lw = 10;
  for (const auto& t : c.tables)
    for (const auto& r : t.rows) lw = std::max(lw, r.label.size() + (r.unit.empty() ? 0 : r.unit.size() + 3));
  lw = std::min<std::size_t>(lw, 56);
  std::vector<std::string> heads;
  std::size_t cw = 10;
  for (const auto& d : c.drives) {
    heads.push_back(d.size() > 22 ? d.substr(0, 21) + "~" : d);
    cw = std::max(cw, heads.back().size());
  }
  for (const auto& t : c.tables) {
    o += fmt::format("{}\n", t.title);
    o += fmt::format("  {:<{}}", "", lw);
    for (const auto& h : heads) o += fmt::format("  {:>{}} ", h, cw);
    o += "\n";
    for (const auto& r : t.rows) {
      std::string label = r.unit.empty() ? r.label : fmt::format("{} ({})", r.label, r.unit);
      if (label.size() > lw) label = label.substr(0, lw - 1) + "~";
      o += fmt::format("  {:<{}}", label, lw);
      for (int i = 0; i < static_cast<int>(r.values.size()); ++i) {
        std::string v = r.values[i] ? format_value(*r.values[i]) : "-";
        char mark = i == r.best ? '*' : i == r.worst ? '!' : ' ';
        std::string cell = fmt::format("{:>{}}", v, cw);
        if (style.colour && mark != ' ')
          cell = (mark == '*' ? "\033[1;34m" : "\033[31m") + cell + "\033[0m";
        o += "  " + cell + (style.colour ? ' ' : mark);
      }
      o += "\n";
    }
    o += "\n";
  }
  o += style.colour ? "best of each row in \033[1;34mblue\033[0m, worst in \033[31mred\033[0m, only where the 95 % "
                      "intervals do not overlap; unmarked rows are within noise or not ranked\n"
                    : "* best of the row, ! worst of the row, only where the 95 % intervals do not overlap; "
                      "unmarked rows are within noise or not ranked\n";
  return o;
}

json comparison_to_json(const Comparison& c) {
  json tables = json::array();
  for (const auto& t : c.tables) {
    json rows = json::array();
    for (const auto& r : t.rows) {
      json vals = json::array(), hws = json::array();
      for (const auto& v : r.values) vals.push_back(v ? json(*v) : json(nullptr));
      for (std::size_t i = 0; i < r.values.size(); ++i)
        hws.push_back(i < r.half_widths.size() && r.half_widths[i] ? json(*r.half_widths[i]) : json(nullptr));
      rows.push_back({{"label", r.label}, {"unit", r.unit}, {"half_widths", hws},
                      {"better", r.better == Better::higher ? "higher" : r.better == Better::lower ? "lower" : "none"},
                      {"values", vals}, {"best", r.best >= 0 ? json(r.best) : json(nullptr)},
                      {"worst", r.worst >= 0 ? json(r.worst) : json(nullptr)}, {"summary", r.summary}});
    }
    tables.push_back({{"test", t.test}, {"title", t.title}, {"rows", rows}});
  }
  return {{"drives", c.drives}, {"tables", tables}};
}

std::string comparison_to_html(const Comparison& c) {
  std::string o;
  for (const auto& t : c.tables) {
    o += fmt::format("<table class=\"cmp\">\n<caption>{}</caption>\n<thead><tr><th></th>", html_escape(t.title));
    for (const auto& d : c.drives) o += "<th>" + html_escape(d) + "</th>";
    o += "</tr></thead>\n<tbody>\n";
    for (const auto& r : t.rows) {
      o += r.summary ? "<tr class=\"summary\">" : "<tr>";
      o += "<th>" + html_escape(r.label) + (r.unit.empty() ? "" : " <span class=\"unit\">(" + html_escape(r.unit) + ")</span>") + "</th>";
      for (int i = 0; i < static_cast<int>(r.values.size()); ++i) {
        const char* cls = i == r.best ? " class=\"best\" title=\"best\"" : i == r.worst ? " class=\"worst\" title=\"worst\"" : "";
        o += fmt::format("<td{}>{}</td>", cls, r.values[i] ? format_value(*r.values[i]) : "&ndash;");
      }
      o += "</tr>\n";
    }
    o += "</tbody></table>\n";
  }
  return o;
}

}  // namespace ds::report
