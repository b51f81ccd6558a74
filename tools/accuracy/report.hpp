// docs/accuracy.md from the runs of the accuracy harness: per criterion pass rate, interval
// coverage and worst case; per drive summary; skipped runs; what the simulator leaves out.
#pragma once
#include <string>
#include <vector>

#include "accuracy_lib.hpp"

namespace accuracy {

struct ReportSetup {
  unsigned seeds = 0;
  std::vector<double> budgets;
  std::vector<std::string> variants;
  std::string only;
};

std::string markdown(const std::vector<RunResult>& runs, const ReportSetup& setup);

}  // namespace accuracy
