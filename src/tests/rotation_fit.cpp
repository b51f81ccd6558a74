// The two rotation helpers access.hpp declares: the fit over backward steps and the plausibility
// bound on a revolution (kept apart from access.cpp's phases, which use them).
#include <map>
#include <utility>
#include <vector>

#include "tests/access.hpp"

namespace ds::measure {

bool plausible_rotation_ms(double rotation_ms, double hit_ms) {
  // A backward step waits most of a revolution, which on any disk is many times a cache hit
  // (overhead plus one block).
  return spindle_revolution_ms(rotation_ms) && rotation_ms >= 4 * hit_ms;
}

std::pair<double, double> fit_rotation(const std::vector<std::pair<unsigned, double>>& kl) {
  std::map<unsigned, std::vector<double>> by_k;
  for (auto& [k, l] : kl)
    if (l > 0) by_k[k].push_back(l);
  std::vector<double> xs, ys;
  for (auto& [k, v] : by_k) {
    xs.push_back(k);
    ys.push_back(median(v));
  }
  if (xs.size() < 2) return {0, 0};
  LineFit f = fit_line(xs, ys);
  if (f.slope >= 0 || f.intercept <= 0) return {0, 0};
  return {f.intercept, -f.slope};
}

}  // namespace ds::measure
