#include <charconv>
#include <cstdio>

#include <fmt/format.h>
#include <iostream>

#include "cli/cli.hpp"
#include "app/restore.hpp"

namespace ds::cli {

int emit(const Expected<app::Report>& r, bool json) {
  if (!r) {
    if (json) {
      nlohmann::json err{{"drivescope", {{"version", app::version()}}},
                         {"error", r.error().message}};
      std::cout << err.dump(2) << "\n";
    }
    std::fprintf(stderr, "drivescope: %s\n", r.error().message.c_str());
    return r.error().code == app::kUsageErrorCode ? app::kExitUsage : app::kExitFailure;
  }
  if (json) std::cout << r->json.dump(2) << "\n";
  else std::cout << r->text << std::flush;
  // Warnings go to stderr in both modes: the JSON carries them too, but a script that only keeps
  // the exit status must still see why it was not 0.
  for (const auto& w : r->warnings) std::fprintf(stderr, "drivescope: warning: %s\n", w.c_str());
  return r->exit_code;
}

CLI::Validator finite_range(double min, double max, const std::string& what) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double v = 0;
        const char* end = text.c_str() + text.size();
        auto [p, ec] = std::from_chars(text.c_str(), end, v);
        // !(v >= min) also refuses NaN, which compares false with everything.
        if (ec != std::errc() || p != end || !(v >= min) || !(v <= max))
          return fmt::format("{} is not a valid {}: give a number from {} to {}", text, what, min, max);
        return {};
      },
      fmt::format("NUMBER in [{}, {}]", min, max), what);
}

CLI::Validator budget_validator() {
  return finite_range(kMinBudgetS, kMaxBudgetS, "budget (seconds; at most one week)");
}

std::function<void(int)> restore_at_once(const std::string* forced_file) {
  return [forced_file](int) {
    if (!forced_file->empty()) {
      auto r = app::restore_state_file(*forced_file);
      for (const auto& m : r.messages) std::fprintf(stderr, "drivescope: %s\n", m.c_str());
    }
    std::fprintf(stderr, "drivescope: second signal: stopped at once\n");
  };
}

}  // namespace ds::cli
