#include "app/report.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

namespace {
// gnuplot draws one chart in well under a second; an hour is already generous. A bound also
// keeps CLI11's message readable (PositiveNumber printed the largest double, 300 digits).
constexpr double kMinTimeoutS = 0.1;
constexpr double kMaxTimeoutS = 3600;
}  // namespace

Action add_report(CLI::App& app) {
  struct Opts {
    app::ReportRequest req;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("report", "charts (gnuplot SVG/PNG with their data and scripts) and a self-contained HTML report of saved results");
  c->add_option("results", o->req.inputs, "RESULTS.json files from `bench --json` or `ab --json`")->required()->check(CLI::ExistingFile);
  c->add_option("--svg", o->req.svg_dir, "directory for the charts: NAME.dat, NAME.gp, NAME.svg");
  c->add_option("--html", o->req.html_path, "write one self-contained HTML file (charts inline)");
  c->add_flag("--png", o->req.png, "also render each chart as PNG");
  c->add_option("--timeout", o->req.timeout_s, "seconds allowed per gnuplot run (default 30)")->check(finite_range(kMinTimeoutS, kMaxTimeoutS, "timeout (seconds)"));
  add_json_flag(c, o->json, "one JSON document on stdout (what was written)");
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    return emit(app::run_report(o->req), o->json);
  };
}

}  // namespace ds::cli
