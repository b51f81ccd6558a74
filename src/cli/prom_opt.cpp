// `--prom FILE` of identify and bench: print as usual, then write the node_exporter textfile.
#include <cstdio>

#include "app/prom_file.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

CLI::Option* add_prom_option(CLI::App* c, std::string& path) {
  return c->add_option("--prom", path,
                       "also write Prometheus metrics for node_exporter's textfile collector to FILE "
                       "(atomically; docs/fleet.md)")
      ->type_name("FILE")
      // Checked before the run (a usage error, exit 2): a bench of minutes must not end by failing to
      // write its file. The file itself is written after the run (emit_with_prom).
      ->check(
          [](const std::string& p) {
            auto ok = app::check_prom_path(p);
            if (ok) return std::string();
            // CLI11 puts "--prom: " in front; the message's own "--prom PATH: " would repeat it.
            const std::string& m = ok.error().message;
            const std::string own = "--prom " + p + ": ";
            return m.rfind(own, 0) == 0 ? p + ": " + m.substr(own.size()) : m;
          },
          "");
}

int emit_with_prom(const Expected<app::Report>& r, bool json, const std::string& prom_path,
                   const std::string& command) {
  const int rc = emit(r, json);
  if (prom_path.empty() || !r) return rc;
  auto w = app::write_prom_file(prom_path, r->json, rc, command);
  if (!w) {
    std::fprintf(stderr, "drivescope: %s\n", w.error().message.c_str());
    return rc == app::kExitOk ? app::kExitFailure : rc;
  }
  return rc;
}

}  // namespace ds::cli
