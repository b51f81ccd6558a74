#include "report/html.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <regex>

#include "report/json_read.hpp"
#include "report/patterns_read.hpp"
#include "tests/result_keys.hpp"

namespace ds::report {

using nlohmann::json;
namespace K = measure::key;

std::string inline_svg(std::string_view svg_in, const std::string& id_prefix) {
  std::string svg(svg_in);
  auto start = svg.find("<svg");
  if (start == std::string::npos) return {};
  svg.erase(0, start);
  if (auto end = svg.rfind("</svg>"); end != std::string::npos) svg.erase(end + 6);
  // Namespace declarations are URLs; inside HTML the parser knows <svg> and xlink:href anyway.
  static const std::regex xmlns(R"re(\s+xmlns(:\w+)?\s*=\s*("[^"]*"|'[^']*'))re");
  svg = std::regex_replace(svg, xmlns, "");
  // No script survives (gnuplot adds one only for its "mouse" option, but the file may be edited).
  static const std::regex script(R"re(<script[\s\S]*?</script\s*>|<script[^>]*/>)re", std::regex::icase);
  svg = std::regex_replace(svg, script, "");
  // Any reference that still points outside the page (href to a URL) is dropped.
  static const std::regex ext_href(R"re(\s(xlink:)?href\s*=\s*("(https?:|//)[^"]*"|'(https?:|//)[^']*'))re", std::regex::icase);
  svg = std::regex_replace(svg, ext_href, "");
  // Ids are per file in gnuplot (gpPt0, gnuplot_canvas ...): make them unique in the page.
  static const std::regex id(R"re(\bid=(["'])([^"']+)\1)re");
  svg = std::regex_replace(svg, id, "id=$1" + id_prefix + "$2$1");
  static const std::regex href(R"re(href=(["'])#([^"']+)\1)re");
  svg = std::regex_replace(svg, href, "href=$1#" + id_prefix + "$2$1");
  static const std::regex url(R"re(url\(#([^)]+)\))re");
  svg = std::regex_replace(svg, url, "url(#" + id_prefix + "$1)");
  return svg;
}

namespace {

std::string str(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return {};
  const json& v = j[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return {};
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_float()) return format_value(v.get<double>());
  if (v.is_number()) return v.dump();
  if (v.is_array()) {
    std::string o;
    for (const auto& e : v) o += (o.empty() ? "" : ", ") + (e.is_string() ? e.get<std::string>() : e.dump());
    return o;
  }
  return v.dump();
}

std::string kv_table(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::string o = "<table class=\"kv\">\n";
  for (const auto& [k, v] : rows)
    if (!v.empty()) o += "<tr><th>" + html_escape(k) + "</th><td>" + html_escape(v) + "</td></tr>\n";
  return o + "</table>\n";
}

std::string feature(const json& id, const char* key) {
  if (!id.contains(key) || !id[key].is_object()) return {};
  const json& f = id[key];
  if (!f.value("supported", false)) return "not supported";
  std::string o = "supported";
  if (f.contains("enabled") && f["enabled"].is_boolean()) o += f["enabled"].get<bool>() ? ", enabled" : ", disabled";
  if (f.contains("depth") && f["depth"].is_number()) o += ", depth " + f["depth"].dump();
  if (f.contains("current_level") && f["current_level"].is_number()) o += ", level " + f["current_level"].dump();
  if (f.contains("recommended_level") && f["recommended_level"].is_number()) o += " (recommended " + f["recommended_level"].dump() + ")";
  return o;
}

std::string identity_html(const json& doc) {
  std::vector<std::pair<std::string, std::string>> rows;
  const json& t = doc.contains("target") && doc["target"].is_object() ? doc["target"] : json::object();
  rows.push_back({"target", str(t, "name") + (str(t, "kind").empty() ? "" : " (" + str(t, "kind") + ")")});
  if (doc.contains("identify") && doc["identify"].is_object()) {
    const json& id = doc["identify"];
    rows.push_back({"model", str(id, "model")});
    rows.push_back({"serial", str(id, "serial")});
    rows.push_back({"firmware", str(id, "firmware")});
    if (id.contains("capacity_sectors") && id["capacity_sectors"].is_number()) {
      double sectors = id["capacity_sectors"].get<double>();
      double sb = id.contains("logical_sector_bytes") && id["logical_sector_bytes"].is_number() ? id["logical_sector_bytes"].get<double>() : 512;
      rows.push_back({"capacity", fmt::format("{:.1f} GB ({:.0f} sectors of {:g} bytes)", sectors * sb / 1e9, sectors, sb)});
    }
    if (id.contains("rotation_rate_rpm") && id["rotation_rate_rpm"].is_number()) {
      int rpm = id["rotation_rate_rpm"].get<int>();
      rows.push_back({"rotation rate", rpm == 1 ? "solid state" : fmt::format("{} rpm (reported)", rpm)});
    }
    rows.push_back({"NCQ", feature(id, "ncq")});
    rows.push_back({"TCQ", feature(id, "tcq")});
    rows.push_back({"AAM", feature(id, "aam")});
    rows.push_back({"write cache", feature(id, "write_cache")});
    rows.push_back({"read look-ahead", feature(id, "read_ahead")});
  }
  if (doc.contains("drivescope") && doc["drivescope"].is_object()) rows.push_back({"drivescope", str(doc["drivescope"], "version")});
  return kv_table(rows);
}

std::string settings_html(const json& doc) {
  std::vector<std::pair<std::string, std::string>> rows;
  if (doc.contains("settings") && doc["settings"].is_object())
    for (auto it = doc["settings"].begin(); it != doc["settings"].end(); ++it) {
      std::string v = str(doc["settings"], it.key().c_str());
      if (it.key() == "span_bytes" && v.empty()) v = "whole drive";
      rows.push_back({it.key(), v});
    }
  if (doc.contains("ab") && doc["ab"].is_object()) {
    const json& ab = doc["ab"];
    rows.push_back({"A/B feature", str(ab, "feature")});
    for (auto [key, what] : {std::pair{"a", "A/B arm A"}, {"b", "A/B arm B"}, {"original", "A/B setting before the run"}})
      if (ab.contains(key) && ab[key].is_object()) rows.push_back({what, str(ab[key], "text")});
    rows.push_back({"A/B tests", str(ab, "tests")});
    if (ab.contains("rounds_done"))
      rows.push_back({"A/B rounds (done of asked)", str(ab, "rounds_done") + " of " + str(ab, "rounds_requested")});
    rows.push_back({"A/B drive time per test, arm and round (s)", str(ab, "budget_s_per_test")});
    rows.push_back({"A/B confidence", str(ab, "confidence")});
  }
  if (const json* tests = doc.contains(K::kDocumentKey) ? &doc[K::kDocumentKey] : nullptr; tests && tests->is_object())
    if (tests->contains(K::tests::drive_time_s))
      rows.push_back({"drive time used (s)", str(*tests, K::tests::drive_time_s)});
  if (rows.empty()) return {};
  return "<h3>Settings of the run</h3>\n" + kv_table(rows);
}

std::string num_cell(const std::optional<double>& v, const char* fmtspec) {
  return v ? "<td>" + fmt::format(fmt::runtime(fmtspec), *v) + "</td>" : "<td>&ndash;</td>";
}

// The patterns test as the seed's IOMeter tables: one table per pattern, a row per load (queue
// depth, and write share for the database pattern), total IOPS, MB/s and mean latency; the
// average over loads closes each table, the workstation rating the workstation's.
std::string patterns_html(const json& p) {
  const auto rows = pattern_rows(p);
  if (rows.empty()) return {};
  std::string o = "<h3>Access patterns (IOMeter access specifications)</h3>\n";
  for (const auto& nm : pattern_names(rows)) {
    const bool db = nm == "database";
    o += "<table class=\"cmp\"><caption>Pattern: " + html_escape(nm) + "</caption><thead><tr><th>load</th>" +
         std::string(db ? "<th>writes</th>" : "") +
         "<th>I/O per second</th><th>MB/s</th><th>mean latency (ms)</th></tr></thead><tbody>\n";
    // Skipped loads are folded below the table, one list per reason: a short budget skips most
    // of the 50-odd loads, and a row each pushed the charts thousands of pixels down.
    std::vector<std::pair<std::string, std::vector<std::string>>> skipped;  // reason, loads
    for (const auto& r : rows) {
      if (r.pattern != nm) continue;
      if (r.skipped) {
        const std::string load = db ? fmt::format("queue depth {:g}, {:g} % writes", r.depth, r.write_pct)
                                    : fmt::format("queue depth {:g}", r.depth);
        auto it = std::find_if(skipped.begin(), skipped.end(), [&](const auto& g) { return g.first == r.skip_reason; });
        if (it == skipped.end()) skipped.push_back({r.skip_reason, {load}});
        else it->second.push_back(load);
        continue;
      }
      o += fmt::format("<tr><th>queue depth {:g}</th>", r.depth);
      if (db) o += fmt::format("<td>{:g} %</td>", r.write_pct);
      o += num_cell(r.iops, "{:.1f}") + num_cell(r.mb_s, "{:.2f}") + num_cell(r.mean_ms, "{:.2f}");
      o += "</tr>\n";
    }
    const int span = db ? 2 : 1;
    o += fmt::format("<tr class=\"summary\"><th colspan=\"{}\">average over loads</th>", span) +
         num_cell(pattern_average(p, rows, nm), "{:.1f}") + "<td></td><td></td></tr>\n";
    if (nm == "workstation")
      o += "<tr class=\"summary\"><th>rating (&Sigma; IOPS(q)/q, q = 1&hellip;32)</th>" +
           num_cell(workstation_rating_of(p, rows), "{:.1f}") + "<td></td><td></td></tr>\n";
    o += "</tbody></table>\n";
    for (const auto& [reason, loads] : skipped) {
      o += fmt::format("<details class=\"skipped\"><summary>{} load{} of {} skipped{}</summary><ul class=\"unit\">", loads.size(),
                       loads.size() == 1 ? "" : "s", html_escape(nm), reason.empty() ? "" : ": " + html_escape(reason));
      for (const auto& l : loads) o += "<li>" + l + "</li>";
      o += "</ul></details>\n";
    }
  }
  return o;
}

// An A/B run's results: A and B means, the difference with its confidence interval, the verdict.
std::string ab_html(const json& ab) {
  if (!ab.is_object() || !ab.contains("results") || !ab["results"].is_array() || ab["results"].empty()) return {};
  double conf = json_number(ab, "confidence").value_or(0.95) * 100;
  std::string o = "<h3>A/B results</h3>\n<table class=\"cmp\"><thead><tr><th>test</th><th>figure</th><th>A</th><th>B</th>"
                  "<th>B vs A</th><th>" + fmt::format("{:g}", conf) + " % interval</th><th>verdict</th></tr></thead><tbody>\n";
  for (const auto& r : ab["results"]) {
    if (!r.is_object()) continue;
    const bool sig = r.value("significant", false);
    auto pct = [&](const char* k) { auto v = json_number(r, k); return v ? fmt::format("{:+.2f} %", *v) : std::string("&ndash;"); };
    o += "<tr><th>" + html_escape(str(r, "test")) + "</th><th>" + html_escape(str(r, "figure")) + "</th>" +
         num_cell(json_number(r, "a"), "{:.4g}") + num_cell(json_number(r, "b"), "{:.4g}") + "<td>" + pct("diff_pct") +
         "</td><td>[" + pct("ci_low_pct") + ", " + pct("ci_high_pct") + "]</td><td" +
         (sig ? " class=\"worst\">significant" : ">not significant") +
         (r.value("spread_warning", false) ? " (spread larger than the difference)" : "") + "</td></tr>\n";
  }
  return o + "</tbody></table>\n";
}

std::string notes_html(const json& doc) {
  std::string o;
  if (!doc.contains(K::kDocumentKey) || !doc[K::kDocumentKey].is_object()) return o;
  const json& tests = doc[K::kDocumentKey];
  constexpr const char* notes = K::kNotes;
  for (auto it = tests.begin(); it != tests.end(); ++it) {
    if (!it->is_object() || !it->contains(notes) || !(*it)[notes].is_array()) continue;
    for (const auto& n : (*it)[notes])
      if (n.is_string()) o += "<li><b>" + html_escape(it.key()) + ":</b> " + html_escape(n.get<std::string>()) + "</li>\n";
  }
  if (tests.contains(K::tests::errors) && tests[K::tests::errors].is_object())
    for (auto it = tests[K::tests::errors].begin(); it != tests[K::tests::errors].end(); ++it)
      o += "<li class=\"err\"><b>" + html_escape(it.key()) + " failed:</b> " + html_escape(str(tests[K::tests::errors], it.key().c_str())) + "</li>\n";
  return o.empty() ? o : "<h3>Notes</h3>\n<ul>\n" + o + "</ul>\n";
}

const char* kStyle = R"css(
body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;margin:1.5em auto;max-width:1020px;color:#222;line-height:1.4}
h1{font-size:1.6em;border-bottom:2px solid #1f5fa8;padding-bottom:.2em}
h2{font-size:1.3em;margin-top:2em;border-bottom:1px solid #ccc}
h3{font-size:1.05em;margin-top:1.4em}
table{border-collapse:collapse;margin:.6em 0 1.2em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.2em .6em}
table.kv th{text-align:left;background:#f3f6fa;font-weight:normal;color:#444}
table.cmp caption{text-align:left;font-weight:bold;padding:.3em 0}
table.cmp td{text-align:right;font-variant-numeric:tabular-nums}
table.cmp tbody th{text-align:left;font-weight:normal}
table.cmp thead th{background:#f3f6fa}
tr.summary th,tr.summary td{font-weight:bold;border-top:2px solid #888}
td.best{color:#fff;background:#1f5fa8;font-weight:bold}
td.worst{color:#fff;background:#c0392b;font-weight:bold}
.unit{color:#777}
figure{margin:1em 0 2em 0}
figure svg{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}
.missing{color:#a00;font-style:italic}
li.err{color:#a00}
.legend span{padding:0 .4em;color:#fff;font-weight:bold}
details.skipped{margin:-.6em 0 1.2em 0;font-size:.9em}
details.skipped ul{margin:.3em 0;columns:3}
)css";

}  // namespace

std::string render_html(const std::vector<HtmlDocument>& docs, const Comparison* comparison,
                        const std::string& chart_dir_note) {
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  std::string title = "drivescope report";
  if (docs.size() == 1) title += ": " + docs[0].name;
  o += "<title>" + html_escape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  o += "<h1>" + html_escape(title) + "</h1>\n";
  if (docs.size() > 1) {
    o += "<p>Drives in this report:</p>\n<ul>\n";
    for (const auto& d : docs) o += "<li>" + html_escape(d.name) + " <span class=\"unit\">(" + html_escape(d.source) + ")</span></li>\n";
    o += "</ul>\n";
  }
  int chart_no = 0;
  for (const auto& d : docs) {
    // What a reader looks for first comes first: the drive and how it was run, its figures (or
    // the A/B verdicts), the charts; then the per-load pattern tables and the notes.
    o += "<h2>" + html_escape(d.name) + "</h2>\n";
    o += "<h3>Drive</h3>\n" + identity_html(d.doc) + settings_html(d.doc);
    // The figures of this drive alone, as one column (the comparison below lines drives up).
    Comparison one = compare_documents({d.doc}, {d.name});
    // The patterns have their own tables below (with MB/s and latency), A/B runs theirs.
    std::erase_if(one.tables, [](const CompareTable& t) { return t.test == K::tests::patterns; });
    if (!one.tables.empty() && !d.doc.contains("ab")) {
      o += "<h3>Figures</h3>\n" + comparison_to_html(one);
    }
    if (d.doc.contains("ab")) o += ab_html(d.doc["ab"]);
    for (const auto& c : d.charts) {
      o += "<figure>\n";
      if (c.svg_ok) o += inline_svg(c.svg, fmt::format("c{}_", ++chart_no));
      else o += "<p class=\"missing\">Chart not rendered (" + html_escape(c.message) + "): data in " +
                html_escape(c.dat_path) + ", script in " + html_escape(c.gp_path) + ".</p>\n";
      o += "<figcaption>" + html_escape(c.source.title) + " &mdash; data <code>" + html_escape(c.source.name) +
           ".dat</code>, script <code>" + html_escape(c.source.name) + ".gp</code></figcaption>\n</figure>\n";
    }
    if (d.doc.contains(K::kDocumentKey) && d.doc[K::kDocumentKey].is_object() &&
        d.doc[K::kDocumentKey].contains(K::tests::patterns))
      o += patterns_html(d.doc[K::kDocumentKey][K::tests::patterns]);
    o += notes_html(d.doc);
  }
  if (comparison && !comparison->tables.empty()) {
    o += "<h2>Side by side</h2>\n<p class=\"legend\">Best of each row <span style=\"background:#1f5fa8\">blue</span>, "
         "worst <span style=\"background:#c0392b\">red</span>; rows without a better direction are not ranked. "
         "High queue depths (64&ndash;256) favour drives with deep command queues but are rare in practice: "
         "do not rank by them alone.</p>\n";
    o += comparison_to_html(*comparison);
  }
  if (!chart_dir_note.empty()) o += "<p class=\"unit\">" + html_escape(chart_dir_note) + "</p>\n";
  o += "</body>\n</html>\n";
  return o;
}

}  // namespace ds::report
