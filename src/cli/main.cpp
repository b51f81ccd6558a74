// drivescope command line: parsing and printing only. Every flow lives in src/app and returns a
// Report value (JSON document + human text + exit code) that is printed here.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>
#include <iostream>

#include "app/identify.hpp"
#include "app/target.hpp"

namespace {

using ds::app::Report;

struct Common {
  bool json = false;
  std::uint64_t seed = 0;
  bool seed_set = false;
};

int emit(const ds::Expected<Report>& r, bool json) {
  if (!r) {
    if (json) {
      nlohmann::json err{{"drivescope", {{"version", ds::app::version()}}},
                         {"error", r.error().message}};
      std::cout << err.dump(2) << "\n";
    }
    std::fprintf(stderr, "drivescope: %s\n", r.error().message.c_str());
    return ds::app::kExitFailure;
  }
  if (json) std::cout << r->json.dump(2) << "\n";
  else std::cout << r->text << std::flush;
  return r->exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"drivescope: what a disk drive really is, supports and does"};
  app.set_version_flag("--version", "drivescope " + ds::app::version());
  app.require_subcommand(1);
  Common c;

  // identify
  auto* identify = app.add_subcommand("identify", "decoded identity and features of a drive");
  std::string id_target, id_file;
  bool id_raw = false, id_badsum = false;
  identify->add_option("target", id_target, "/dev/sdX, /dev/sgN, sim:NAME, sim:MODEL.json");
  identify->add_option("--from-file", id_file,
                       "a captured IDENTIFY: hdparm hex words, raw 512 bytes or a libatasmart blob");
  identify->add_flag("--raw", id_raw, "also show the raw IDENTIFY words / pages");
  identify->add_flag("--json", c.json, "one JSON document on stdout");
  identify->add_flag("--allow-bad-checksum", id_badsum,
                     "decode a block whose word 255 checksum is wrong");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : ds::app::kExitUsage;
  }

  if (identify->parsed()) {
    ds::app::IdentifyOptions o{.raw = id_raw, .allow_bad_checksum = id_badsum};
    if (id_file.empty() == id_target.empty()) {
      std::fprintf(stderr, "drivescope identify: give either a TARGET or --from-file FILE\n");
      return ds::app::kExitUsage;
    }
    if (!id_file.empty()) return emit(ds::app::identify_dump(id_file, o), c.json);
    auto t = ds::app::open_target(id_target, {});
    if (!t) return emit(t.error(), c.json);
    return emit(ds::app::identify_target(*t, o), c.json);
  }
  return ds::app::kExitUsage;
}
