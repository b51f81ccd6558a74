#include <cstdio>
#include <iostream>

#include "cli/cli.hpp"

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

}  // namespace ds::cli
