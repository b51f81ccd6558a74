#include "app/progress.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace ds::app {

std::string format_duration(double seconds) {
  // Below a second (a simulated drive's clock runs far ahead of the wall's) "0 s" would read as done.
  if (seconds < 0.5) return "<1 s";
  const long s = std::lround(seconds);
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

std::string format_progress(const ProgressSnapshot& s) {
  std::string o = s.test;
  if (s.test_count > 0) o += fmt::format(" [{}/{}]", s.test_number, s.test_count);
  o += fmt::format("  {:5.1f} %  drive time {:.1f} s", 100.0 * std::clamp(s.fraction, 0.0, 1.0), s.drive_s);
  // "ETA ~" only with an estimate behind it; the run's is an upper bound and says so.
  if (s.eta_test_s && s.eta_run_s && *s.eta_run_s > *s.eta_test_s + 0.5)
    o += fmt::format("  ETA ~{} (run ≤ ~{})", format_duration(*s.eta_test_s), format_duration(*s.eta_run_s));
  else if (s.eta_test_s)
    o += fmt::format("  ETA ~{}", format_duration(*s.eta_test_s));
  else if (s.eta_run_s)
    o += fmt::format("  ETA run ≤ ~{}", format_duration(*s.eta_run_s));
  return o;
}

std::string format_progress_json(std::string_view command, const ProgressSnapshot& s, const nlohmann::json& extra) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json j = {{"command", command},
                      {"test", s.test},
                      {"test_number", s.test_number},
                      {"test_count", s.test_count},
                      {"fraction", std::clamp(s.run_fraction, 0.0, 1.0)},
                      {"test_fraction", std::clamp(s.fraction, 0.0, 1.0)},
                      {"drive_s", s.drive_s},
                      {"eta_s", opt(s.eta_run_s)},
                      {"eta_test_s", opt(s.eta_test_s)}};
  for (const auto& [k, v] : extra.items()) j[k] = v;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

ProgressSnapshot ProgressEstimator::update(std::string_view test, double fraction, double test_drive_s,
                                           double wall_s) {
  if (test != current_) {
    done_drive_s_ += current_drive_s_;
    current_ = std::string(test);
    current_drive_s_ = 0;
    ++number_;
  }
  current_drive_s_ = std::max(current_drive_s_, test_drive_s);
  ProgressSnapshot s;
  s.test = current_;
  s.test_number = number_;
  s.test_count = std::max(test_count_, number_);
  s.fraction = std::clamp(fraction, 0.0, 1.0);
  s.drive_s = done_drive_s_ + current_drive_s_;
  if (s.test_count > 0) s.run_fraction = std::clamp((s.test_number - 1 + s.fraction) / s.test_count, 0.0, 1.0);
  // Too little seen to convert drive time to wall time, or to extrapolate: no estimate.
  if (s.drive_s < 0.5 || wall_s <= 0) return s;
  const double wall_per_drive = wall_s / s.drive_s;
  if (s.fraction >= 0.05 && current_drive_s_ > 0)
    s.eta_test_s = current_drive_s_ * (1 - s.fraction) / s.fraction * wall_per_drive;
  const bool last = test_count_ > 0 && number_ >= test_count_;
  if (last) {
    s.eta_run_s = s.eta_test_s;
  } else if (budget_s_ > 0) {
    double left = std::max(0.0, budget_s_ - s.drive_s) * wall_per_drive;
    // The bound cannot be below what the current test itself still needs.
    if (s.eta_test_s) left = std::max(left, *s.eta_test_s);
    s.eta_run_s = left;
  }
  return s;
}

}  // namespace ds::app
