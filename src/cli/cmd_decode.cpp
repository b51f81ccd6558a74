#include "app/decode.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

Action add_decode(CLI::App& app) {
  struct Opts {
    std::string file, log, zones;
    bool identify = false, inquiry = false, vpd = false, sense = false, json = false, bad_checksum = false;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand(
      "decode", "decode captured pages from a file: sg3_utils inhex text, hdparm hex words or raw bytes");
  c->add_option("file", o->file, "the capture; - reads stdin")->required();
  c->add_flag("--identify", o->identify, "IDENTIFY DEVICE data (512 bytes; also hdparm --Istdout words)");
  c->add_option("--ata-log", o->log, "an ATA log page by its address: 0x00, 0x30 (page 0), 0x47");
  c->add_flag("--inquiry", o->inquiry, "standard INQUIRY data");
  c->add_flag("--vpd", o->vpd,
              "one or more VPD pages back to back (0x00, 0x80, 0x83, 0x89, 0xb0, 0xb1, 0xb9; the code is "
              "in the bytes)");
  c->add_flag("--sense", o->sense, "SCSI sense data, fixed or descriptor format (decoded by libsgutils2)");
  c->add_option("--zones", o->zones, "a REPORT ZONES reply: zbc (SCSI, big-endian) or zac (ATA, little-endian)")
      ->check(CLI::IsMember({"zbc", "zac"}));
  add_json_flag(c, o->json, "one JSON document on stdout (the keys identify --json uses)");
  c->add_flag("--allow-bad-checksum", o->bad_checksum, "decode IDENTIFY data whose word 255 checksum is wrong");
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    app::DecodeOptions d;
    d.allow_bad_checksum = o->bad_checksum;
    const int kinds = o->identify + !o->log.empty() + o->inquiry + o->vpd + o->sense + !o->zones.empty();
    if (kinds != 1) {
      return refuse_usage("decode", "say what the bytes are with exactly one of --identify, "
                                    "--ata-log N, --inquiry, --vpd, --sense, --zones zbc|zac");
    }
    if (o->identify) d.kind = app::DecodeKind::identify;
    if (o->inquiry) d.kind = app::DecodeKind::inquiry;
    if (o->vpd) d.kind = app::DecodeKind::vpd;
    if (o->sense) d.kind = app::DecodeKind::sense;
    if (!o->zones.empty()) d.kind = app::DecodeKind::zones, d.zones_zac = o->zones == "zac";
    if (!o->log.empty()) {
      auto a = app::parse_log_address(o->log);
      if (!a) {
        return refuse_usage("decode", "--ata-log " + o->log + " is not a log address (0x00 to 0xff)");
      }
      d.kind = app::DecodeKind::ata_log;
      d.ata_log = *a;
    }
    return emit(app::decode_file(o->file, d), o->json);
  };
}

}  // namespace ds::cli
