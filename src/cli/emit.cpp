#include <cstdio>
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
    return app::kExitFailure;
  }
  if (json) std::cout << r->json.dump(2) << "\n";
  else std::cout << r->text << std::flush;
  // Warnings go to stderr in both modes: the JSON carries them too, but a script that only keeps
  // the exit status must still see why it was not 0.
  for (const auto& w : r->warnings) std::fprintf(stderr, "drivescope: warning: %s\n", w.c_str());
  return r->exit_code;
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
