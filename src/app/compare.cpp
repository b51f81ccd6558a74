#include "app/compare.hpp"

#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "report/compare.hpp"
#include "report/html.hpp"

namespace ds::app {

Expected<Report> run_compare(const CompareRequest& req) {
  if (req.inputs.empty()) return make_error("compare: no results file given");
  std::vector<nlohmann::json> docs;
  std::vector<std::string> names;
  std::map<std::string, int> seen;
  for (const auto& p : req.inputs) {
    auto d = load_results(p);
    if (!d) return d.error();
    names.push_back(report::drive_name(*d, std::filesystem::path(p).stem().string()));
    ++seen[names.back()];
    docs.push_back(std::move(*d));
  }
  for (std::size_t i = 0; i < names.size(); ++i)
    if (seen[names[i]] > 1) names[i] += " (" + std::filesystem::path(req.inputs[i]).filename().string() + ")";
  Report r;
  if (docs.size() == 1 && !docs[0].contains("ab"))
    r.warnings.push_back("one document only: nothing to rank (give two or more results files, or an ab result)");
  auto cmp = report::compare_documents(docs, docs.size() == 1 && docs[0].contains("ab") ? std::vector<std::string>{} : names);
  r.json = {{"drivescope", {{"version", version()}}}, {"compare", report::comparison_to_json(cmp)}};
  r.json["compare"]["inputs"] = req.inputs;
  r.text = report::comparison_to_text(cmp, {req.colour});
  if (!req.html_path.empty()) {
    std::vector<report::HtmlDocument> none;
    std::string html = report::render_html(none, &cmp, "");
    std::ofstream f(req.html_path, std::ios::binary | std::ios::trunc);
    f << html;
    if (!f) return make_error(fmt::format("{}: cannot write", req.html_path));
  }
  return r;
}

}  // namespace ds::app
