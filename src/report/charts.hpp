// Charts of a bench / A/B result document, drawn by gnuplot run as a separate process (the way
// zcav, fio2gnuplot and seekwatcher do it) rather than by hand-written chart code. Every chart is
// a data file (NAME.dat) and a gnuplot script (NAME.gp) that reads it and writes NAME.svg, or
// NAME.png with `gnuplot -e "fmt='png'" NAME.gp`, so a user can restyle any chart and re-render it.
// Everything here works on the JSON document (product.md's contract), tolerant of missing
// sections: a chart whose data is absent is simply not built.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::report {

// One chart before rendering: its files' contents, all self-contained text.
struct ChartSource {
  std::string name;    // file stem: "transfer", "queue_surface", "d2-access_map", ...
  std::string kind;    // which chart it is (one of chart_kinds())
  std::string title;   // shown in the chart and the HTML report
  std::string data;    // NAME.dat
  std::string script;  // NAME.gp (reads NAME.dat, writes NAME.svg or NAME.png)
};

// Every chart kind this module knows, in report order.
const std::vector<std::string>& chart_kinds();

// The chart kinds a document's sections call for (what build_charts() will produce for it).
std::vector<std::string> expected_chart_kinds(const nlohmann::json& doc);

// Charts for one result document. `prefix` goes in front of file stems (e.g. "d2-") when
// several documents are drawn into one directory; `label` (the drive's name) goes in titles.
std::vector<ChartSource> build_charts(const nlohmann::json& doc, const std::string& prefix,
                                      const std::string& label);

// The gnuplot executable: $DRIVESCOPE_GNUPLOT when set (a path, used as is, even when it does
// not exist: that is how the missing-gnuplot path is tested), otherwise "gnuplot" found on PATH.
// Empty when there is none.
std::string find_gnuplot();

struct RenderOutcome {
  bool ok = false;
  std::string message;  // gnuplot's complaint, a timeout, or why it could not run
};

// Runs `gnuplot [-e "fmt='png'"] SCRIPT` in `dir` (a child process; killed after timeout_s).
RenderOutcome run_gnuplot(const std::string& gnuplot, const std::string& dir,
                          const std::string& script_file, bool png, double timeout_s);

// A written (and possibly rendered) chart.
struct WrittenChart {
  ChartSource source;
  std::string dat_path, gp_path, svg_path, png_path;  // png_path empty unless asked and made
  bool svg_ok = false;
  std::string svg;      // the SVG text when rendered
  std::string message;  // why it was not rendered
};

struct WriteOptions {
  std::string gnuplot;       // "" : do not render (write data and scripts only)
  bool png = false;          // also render PNG
  double timeout_s = 30;     // per gnuplot run
};

// Writes NAME.dat and NAME.gp for each chart into dir (created if needed) and renders them.
Expected<std::vector<WrittenChart>> write_charts(const std::string& dir,
                                                 const std::vector<ChartSource>& charts,
                                                 const WriteOptions& opt);

// Readable byte size for axis tics and tables: 512 B, 4 KiB, 1 MiB.
std::string size_label(double bytes);

}  // namespace ds::report
