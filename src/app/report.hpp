// The `report` flow (and the loading shared with `compare`) over saved result documents (bench --json, ab --json):
// loading them, charts through gnuplot (src/report/charts), the HTML page (src/report/html) and
// side-by-side tables (src/report/compare). Results are values the CLI prints.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "app/identify.hpp"

namespace ds::app {

// Reads one results document; a missing file, bad JSON or a document that is not drivescope's
// output gets a clear error naming the file.
Expected<nlohmann::json> load_results(const std::string& path);

struct ReportRequest {
  std::vector<std::string> inputs;  // RESULTS.json files
  std::string svg_dir;              // charts (.dat, .gp, .svg) go here; "" with html: next to it
  std::string html_path;            // "" : no HTML
  bool png = false;                 // also render PNG next to each SVG
  double timeout_s = 30;            // per gnuplot run
};

// Writes data files and gnuplot scripts for every chart the documents call for, renders them
// when gnuplot is available, and writes the HTML page. Without gnuplot the data, scripts and
// tables are still written; a warning says how to render (exit code kExitPartial).
Expected<Report> run_report(const ReportRequest& req);

}  // namespace ds::app
