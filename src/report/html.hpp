// The HTML report: one self-contained file (no external references: no URLs, no linked style
// sheets or scripts) with, per document, the drive's identity and the run's settings at the top,
// the charts as inline SVG, and the tables; then the side-by-side comparison when there are
// several documents (or one A/B run).
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "report/charts.hpp"
#include "report/compare.hpp"

namespace ds::report {

struct HtmlDocument {
  std::string source;        // the results file it came from
  std::string name;          // drive name shown in headings
  nlohmann::json doc;        // the results document
  std::vector<WrittenChart> charts;
};

// Makes gnuplot's SVG fit to be inlined: drops the XML prolog and DOCTYPE, the namespace
// declarations (an HTML parser supplies them; they are URLs), any <script>, and prefixes every
// id (and the references to it) so that several charts in one page do not collide.
std::string inline_svg(std::string_view svg, const std::string& id_prefix);

std::string render_html(const std::vector<HtmlDocument>& docs, const Comparison* comparison,
                        const std::string& chart_dir_note);

}  // namespace ds::report
