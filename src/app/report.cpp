#include "app/report.hpp"

#include <fmt/core.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "report/charts.hpp"
#include "report/compare.hpp"
#include "report/html.hpp"
#include "tests/result_keys.hpp"

namespace ds::app {

namespace fs = std::filesystem;
using nlohmann::json;

Expected<json> load_results(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return make_error(fmt::format("{}: cannot open", path));
  std::stringstream ss;
  ss << f.rdbuf();
  json doc = json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return make_error(fmt::format("{}: not valid JSON", path));
  const char* tests = measure::key::kDocumentKey;
  const bool result = doc.is_object() && (doc.contains(tests) || doc.contains("ab") || doc.contains("replay"));
  if (!result)
    return make_error(fmt::format("{}: not a drivescope result (no \"tests\", \"ab\" or \"replay\"; make one "
                                  "with `drivescope bench TARGET --json > FILE`)", path));
  if (doc.contains("error") && !doc.contains(tests) && !doc.contains("ab") && !doc.contains("replay"))
    return make_error(fmt::format("{}: the run failed: {}", path, doc["error"].dump()));
  return doc;
}

namespace {

// Column / heading names: the model, made unique with the file name when two are the same.
std::vector<std::string> names_for(const std::vector<json>& docs, const std::vector<std::string>& paths) {
  std::vector<std::string> names;
  std::map<std::string, int> count;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    names.push_back(report::drive_name(docs[i], fs::path(paths[i]).stem().string()));
    ++count[names.back()];
  }
  for (std::size_t i = 0; i < docs.size(); ++i)
    if (count[names[i]] > 1) names[i] += " (" + fs::path(paths[i]).filename().string() + ")";
  return names;
}

}  // namespace

Expected<Report> run_report(const ReportRequest& req) {
  if (req.inputs.empty()) return make_error("report: no results file given");
  if (req.svg_dir.empty() && req.html_path.empty())
    return make_error("report: nothing to write: give --svg DIR and/or --html FILE");
  if (!req.html_path.empty()) {
    // A typo in the directory must not silently create a new tree: the directory has to exist.
    const fs::path parent = fs::path(req.html_path).parent_path();
    std::error_code ec;
    if (!parent.empty() && !fs::is_directory(parent, ec))
      return make_error(fmt::format("--html {}: the directory {} does not exist (create it first)",
                                    req.html_path, parent.string()));
  }
  std::vector<json> docs;
  for (const auto& p : req.inputs) {
    auto d = load_results(p);
    if (!d) return d.error();
    docs.push_back(std::move(*d));
  }
  auto names = names_for(docs, req.inputs);
  std::string dir = req.svg_dir;
  if (dir.empty()) {
    fs::path h(req.html_path);
    dir = (h.parent_path() / (h.stem().string() + "-charts")).string();
  }

  Report r;
  std::string gnuplot = report::find_gnuplot();
  bool have_gnuplot = !gnuplot.empty() && ::access(gnuplot.c_str(), X_OK) == 0;
  report::WriteOptions wo{have_gnuplot ? gnuplot : std::string(), req.png, req.timeout_s};

  std::vector<report::HtmlDocument> hdocs;
  json charts_j = json::array();
  std::size_t rendered = 0, total = 0;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    std::string prefix = docs.size() > 1 ? fmt::format("d{}-", i + 1) : "";
    auto sources = report::build_charts(docs[i], prefix, docs.size() > 1 ? names[i] : "");
    auto written = report::write_charts(dir, sources, wo);
    if (!written) return written.error();
    for (const auto& w : *written) {
      ++total;
      rendered += w.svg_ok;
      charts_j.push_back({{"name", w.source.name}, {"kind", w.source.kind}, {"title", w.source.title},
                          {"input", req.inputs[i]}, {"data", w.dat_path}, {"script", w.gp_path},
                          {"svg", w.svg_ok ? json(w.svg_path) : json(nullptr)},
                          {"png", w.png_path.empty() ? json(nullptr) : json(w.png_path)},
                          {"rendered", w.svg_ok}});
      if (have_gnuplot && !w.svg_ok)
        r.warnings.push_back(fmt::format("chart {} not rendered: {}", w.source.name, w.message));
    }
    hdocs.push_back({req.inputs[i], names[i], docs[i], std::move(*written)});
  }

  std::string how = fmt::format("cd {} && for f in *.gp; do gnuplot \"$f\"; done", dir);
  if (!have_gnuplot) {
    r.warnings.push_back(fmt::format(
        "gnuplot {}: charts not rendered; data (.dat) and scripts (.gp) are in {}. Install gnuplot "
        "(Debian: apt-get install gnuplot-nox) and run: {}   (PNG: gnuplot -e \"fmt='png'\" NAME.gp)",
        gnuplot.empty() ? "not found" : "not runnable (" + gnuplot + ")", dir, how));
    r.exit_code = kExitPartial;
  } else if (rendered < total) {
    r.exit_code = kExitPartial;
  }

  bool compare = docs.size() > 1 || (docs.size() == 1 && docs[0].contains("ab"));
  report::Comparison cmp;
  if (compare) cmp = report::compare_documents(docs, docs.size() > 1 ? names : std::vector<std::string>{});
  if (!req.html_path.empty()) {
    std::string note = fmt::format("Chart data and gnuplot scripts: {} (re-render with: {}).", dir, how);
    std::string html = report::render_html(hdocs, compare ? &cmp : nullptr, note);
    std::ofstream f(req.html_path, std::ios::binary | std::ios::trunc);
    f << html;
    if (!f) return make_error(fmt::format("{}: cannot write the HTML report", req.html_path));
  }

  r.json = {{"drivescope", {{"version", version()}}},
            {"report", {{"inputs", req.inputs}, {"chart_dir", dir},
                        {"html", req.html_path.empty() ? json(nullptr) : json(req.html_path)},
                        {"gnuplot", have_gnuplot ? json(gnuplot) : json(nullptr)},
                        {"charts", charts_j}, {"rendered", rendered}, {"warnings", r.warnings}}}};
  r.text = fmt::format("{} chart{} in {}: data (.dat) and gnuplot scripts (.gp){}\n", total, total == 1 ? "" : "s", dir,
                       have_gnuplot ? fmt::format(", {} rendered as SVG{}", rendered, req.png ? " and PNG" : "") : "");
  for (const auto& c : charts_j)
    r.text += fmt::format("  {:<22} {}\n", c["name"].get<std::string>(), c["title"].get<std::string>());
  if (!req.html_path.empty()) r.text += fmt::format("HTML report: {}\n", req.html_path);
  return r;
}

}  // namespace ds::app
