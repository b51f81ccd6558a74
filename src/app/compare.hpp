// The `compare` flow: saved result documents side by side, one table per test, the best and worst
// figure of each row marked (src/report/compare).
#pragma once
#include <string>
#include <vector>

#include "app/report.hpp"

namespace ds::app {

struct CompareRequest {
  std::vector<std::string> inputs;
  bool colour = false;  // ANSI colours (the CLI decides: a terminal, TERM != dumb, NO_COLOR unset)
  std::string html_path;  // optional: the tables as one HTML page too
};

Expected<Report> run_compare(const CompareRequest& req);

}  // namespace ds::app
