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

std::optional<double> num(const json& j, const char* key) { return json_number(j, key); }

const json& sub(const json& j, const char* key) {
  static const json empty = json::object();
  if (!j.is_object()) return empty;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : empty;
}

const json* arr(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? &*it : nullptr;
}

// One figure of one document, before the documents are lined up.
struct Cell {
  std::string test, title, label, unit;
  Better better;
  double value;
  bool summary = false;
};

std::string size_text(double bytes) {
  if (bytes >= 1048576 && std::fmod(bytes, 1048576) == 0) return fmt::format("{:g} MiB", bytes / 1048576);
  if (bytes >= 1024 && std::fmod(bytes, 1024) == 0) return fmt::format("{:g} KiB", bytes / 1024);
  return fmt::format("{:g} B", bytes);
}

std::vector<Cell> cells_of(const json& doc) {
  std::vector<Cell> out;
  const json& tests = sub(doc, K::kDocumentKey);
  auto add = [&](const char* test, const char* title, std::string label, const char* unit, Better b,
                 std::optional<double> v, bool summary = false) {
    if (v) out.push_back({test, title, std::move(label), unit, b, *v, summary});
  };
  if (tests.contains(K::tests::access)) {
    namespace A = K::access;
    namespace L = K::latency;
    const json& a = sub(tests, K::tests::access);
    const char* test = K::tests::access;
    const char* T = "Random access (single-sector reads over the span)";
    add(test, T, "read access, mean", "ms", Better::lower, num(sub(a, A::read), L::mean_ms));
    add(test, T, "read access, median", "ms", Better::lower, num(sub(a, A::read), L::p50_ms));
    add(test, T, "read access, 99th percentile", "ms", Better::lower, num(sub(a, A::read), L::p99_ms));
    add(test, T, "write access, mean", "ms", Better::lower, num(sub(a, A::write), L::mean_ms));
    add(test, T, "average seek", "ms", Better::lower, num(a, A::avg_seek_ms));
    add(test, T, "track to track", "ms", Better::lower, num(a, A::track_to_track_ms));
    add(test, T, "full stroke", "ms", Better::lower, num(a, A::full_stroke_ms));
    add(test, T, "command overhead", "ms", Better::lower, num(a, A::command_overhead_ms));
    add(test, T, "rotation (measured)", "rpm", Better::none, num(a, A::rpm_estimate));
    if (const json* s = arr(a, A::slow_regions)) add(test, T, "slow regions", "", Better::lower, static_cast<double>(s->size()));
  }
  if (tests.contains(K::tests::transfer)) {
    namespace X = K::transfer;
    const json& t = sub(tests, K::tests::transfer);
    const char* test = K::tests::transfer;
    const char* T = "Sequential transfer (ZCAV)";
    add(test, T, "outer rate", "MB/s", Better::higher, num(t, X::outer_mb_s));
    add(test, T, "inner rate", "MB/s", Better::higher, num(t, X::inner_mb_s));
    if (const json* p = arr(t, X::points); p && !p->empty()) {
      double sum = 0; int n = 0;
      for (const auto& pt : *p) if (auto v = num(pt, K::transfer_point::mb_s)) sum += *v, ++n;
      if (n) add(test, T, "average over the span", "MB/s", Better::higher, sum / n);
    }
    add(test, T, "outer/inner ratio", "", Better::none, num(t, X::outer_inner_ratio));
    if (const json* z = arr(t, X::zones)) add(test, T, "zones detected", "", Better::none, static_cast<double>(z->size()));
    add(test, T, "surfaces (estimate)", "", Better::none, num(t, X::surfaces_estimate));
    add(test, T, "platters (estimate)", "", Better::none, num(t, X::platters_estimate));
    if (auto v = num(t, X::bytes_per_platter_estimate)) add(test, T, "data per platter (estimate)", "GB", Better::none, *v / 1e9);
  }
  if (tests.contains(K::tests::cache)) {
    namespace C = K::cache;
    const json& c = sub(tests, K::tests::cache);
    const char* test = K::tests::cache;
    const char* T = "Drive cache";
    add(test, T, "burst rate", "MB/s", Better::higher, num(c, C::burst_mb_s));
    add(test, T, "cache hit overhead", "ms", Better::lower, num(c, C::hit_overhead_ms));
    if (auto v = num(c, C::size_bytes_estimate)) add(test, T, "cache size (estimate)", "MiB", Better::higher, *v / 1048576);
  }
  if (tests.contains(K::tests::blocksize)) {
    namespace R = K::blocksize_row;
    const json& b = sub(tests, K::tests::blocksize);
    const char* test = K::tests::blocksize;
    const char* T = "Sequential rate by block size";
    if (const json* rows = arr(b, K::blocksize::rows)) {
      for (const auto& r : *rows)
        if (auto bytes = num(r, R::block_bytes)) add(test, T, "read " + size_text(*bytes), "MB/s", Better::higher, num(r, R::read_mb_s));
      for (const auto& r : *rows)
        if (auto bytes = num(r, R::block_bytes)) add(test, T, "write " + size_text(*bytes), "MB/s", Better::higher, num(r, R::write_mb_s));
    }
  }
  if (tests.contains(K::tests::queue)) {
    namespace D = K::queue_depth;
    const json& q = sub(tests, K::tests::queue);
    const char* test = K::tests::queue;
    const char* T = "Read queuing (random single-sector reads)";
    if (const json* d = arr(q, K::queue::depths)) {
      for (const auto& r : *d)
        if (auto depth = num(r, D::depth)) add(test, T, fmt::format("depth {:g}: IOPS", *depth), "IOPS", Better::higher, num(r, D::iops));
      for (const auto& r : *d)
        if (auto depth = num(r, D::depth)) add(test, T, fmt::format("depth {:g}: mean latency", *depth), "ms", Better::lower, num(r, D::mean_ms));
      for (const auto& r : *d)
        if (auto depth = num(r, D::depth)) add(test, T, fmt::format("depth {:g}: 99th percentile", *depth), "ms", Better::lower, num(r, D::p99_ms));
    }
  }
  if (tests.contains(K::tests::patterns)) {
    const json& p = sub(tests, K::tests::patterns);
    const char* test = K::tests::patterns;
    const char* T = "IOMeter-style access patterns (total I/O per second)";
    const auto rows = pattern_rows(p);
    for (const auto& r : rows) {
      std::string label = r.pattern + fmt::format(", depth {:g}", r.depth);
      if (r.pattern == "database") label += fmt::format(", {:g} % writes", r.write_pct);
      add(test, T, label, "IOPS", Better::higher, r.iops);
    }
    for (const auto& nm : pattern_names(rows))
      add(test, T, nm + ": average over loads", "IOPS", Better::higher, pattern_average(p, rows, nm), true);
    add(test, T, "workstation rating (sum of IOPS(q)/q, q = 1..32)", "", Better::higher,
        workstation_rating_of(p, rows), true);
  }
  if (doc.is_object() && doc.contains("ab") && doc["ab"].is_object())
    if (const json* r = arr(doc["ab"], "results"))
      for (const auto& e : *r) {
        std::string lbl = e.value("test", std::string()) + " " + e.value("figure", std::string()) + ": B vs A";
        add("ab", "A/B difference (B against A)", lbl, "%", Better::none, num(e, "diff_pct"));
      }
  return out;
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

void mark_best_worst(CompareRow& row) {
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
      arr(docs[0]["ab"], "results")) {
    const json& ab = docs[0]["ab"];
    std::string fa = "A", fb = "B";
    // The arms' settings as `ab` writes them: {"a": {"text": "quiet", ...}, "b": {...}}.
    for (auto [key, arm] : {std::pair{"a", &fa}, {"b", &fb}})
      if (ab.contains(key) && ab[key].is_object() && ab[key].contains("text") && ab[key]["text"].is_string())
        *arm += " (" + ab[key]["text"].get<std::string>() + ")";
    c.drives = {fa, fb};
    std::map<std::string, std::size_t> index;
    for (const auto& e : *arr(ab, "results")) {
      std::string test = e.value("test", std::string("ab")), fig = e.value("figure", std::string());
      if (!index.count(test)) {
        index[test] = c.tables.size();
        c.tables.push_back({test, "A/B: " + test, {}});
      }
      CompareRow r{fig, unit_of_figure(fig), better_for_key(fig), {num(e, "a"), num(e, "b")}, -1, -1, false};
      // An arm is only better when the difference is significant: a difference inside the run-to-run
      // spread is not marked.
      if (e.value("significant", false)) mark_best_worst(r);
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
        CompareRow r{cell.label, cell.unit, cell.better, {}, -1, -1, cell.summary};
        r.values.resize(docs.size());
        tab.rows.push_back(std::move(r));
      }
      tab.rows[row_index[key]].values[d] = cell.value;
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
  o += style.colour ? "best of each row in \033[1;34mblue\033[0m, worst in \033[31mred\033[0m; unmarked rows are not ranked\n"
                    : "* best of the row, ! worst of the row; unmarked rows are not ranked\n";
  return o;
}

json comparison_to_json(const Comparison& c) {
  json tables = json::array();
  for (const auto& t : c.tables) {
    json rows = json::array();
    for (const auto& r : t.rows) {
      json vals = json::array();
      for (const auto& v : r.values) vals.push_back(v ? json(*v) : json(nullptr));
      rows.push_back({{"label", r.label}, {"unit", r.unit},
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
