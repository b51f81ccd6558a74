#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "app/compare.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

namespace {

// Colour only for a person at a terminal that can show it (https://no-color.org convention:
// NO_COLOR set means no colour, whatever its value).
bool want_colour(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  if (std::getenv("NO_COLOR") != nullptr) return false;
  const char* term = std::getenv("TERM");
  if (term == nullptr || std::strcmp(term, "dumb") == 0) return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

}  // namespace

Action add_compare(CLI::App& app) {
  struct Opts {
    app::CompareRequest req;
    std::string colour = "auto";
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("compare", "saved results side by side, best and worst of each row marked");
  c->add_option("results", o->req.inputs, "RESULTS.json files (bench --json; one ab --json compares its arms)")
      ->required()->check(CLI::ExistingFile);
  c->add_option("--color", o->colour, "auto (terminal, TERM not dumb, NO_COLOR unset), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  c->add_option("--html", o->req.html_path, "also write the tables as one HTML file");
  add_csv_flag(c)->excludes(add_json_flag(c, o->json));
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    o->req.colour = !o->json && want_colour(o->colour);
    return emit(app::run_compare(o->req), o->json);
  };
}

}  // namespace ds::cli
