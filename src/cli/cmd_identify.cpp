#include "app/target.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

Action add_identify(CLI::App& app) {
  struct Opts {
    std::string target, file, prom, drivedb;
    bool raw = false, bad_checksum = false, json = false, logs = false;
    DeviceFlags dev;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("identify", "decoded identity and features of a drive");
  c->add_option("target", o->target, "/dev/sdX, /dev/sgN, sim:NAME, sim:MODEL.json");
  c->add_option("--from-file", o->file,
                "a captured IDENTIFY: hdparm hex words, raw 512 bytes, a libatasmart blob, or identify --raw output (text or JSON); - reads stdin");
  c->add_flag("--raw", o->raw, "also show the raw IDENTIFY words / pages");
  c->add_flag("--logs", o->logs,
              "read the General Purpose Log directory (READ LOG EXT) even when IDENTIFY does not "
              "claim GPL support (by default it is read only when claimed)");
  c->add_option("--drivedb", o->drivedb,
                "smartmontools' drive database to name the drive's family from (default: smartctl's files, "
                "/usr/share/smartmontools/drivedb.h)");
  add_csv_flag(c)->excludes(add_json_flag(c, o->json));
  add_prom_option(c, o->prom);
  add_device_options(c, o->dev);
  c->add_flag("--allow-bad-checksum", o->bad_checksum,
              "decode a block whose word 255 checksum is wrong");
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    app::IdentifyOptions io{.raw = o->raw, .allow_bad_checksum = o->bad_checksum, .logs = o->logs, .drivedb = o->drivedb};
    if (o->file.empty() == o->target.empty()) {
      return refuse_usage("identify", "give either a TARGET or --from-file FILE");
    }
    if (!o->file.empty()) return emit_with_prom(app::identify_dump(o->file, io), o->json, o->prom, "identify");
    auto t = app::open_target(o->target, {.device = device_choice(o->dev)});
    if (!t) return emit(t.error(), o->json);
    return emit_with_prom(app::identify_target(*t, io), o->json, o->prom, "identify");
  };
}

}  // namespace ds::cli
