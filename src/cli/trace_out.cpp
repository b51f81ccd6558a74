// -d and --trace, on every command that opens a target: the options, and the trace lines on
// stderr (one per command, like `smartctl -r ioctl`, plus the sense bytes when there are any).
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "cli/cli.hpp"

namespace ds::cli {

namespace {

std::string hex_bytes(std::span<const std::uint8_t> b) {
  std::string s;
  for (auto x : b) s += fmt::format("{}{:02x}", s.empty() ? "" : " ", x);
  return s;
}

std::string_view direction_name(DataDirection d) {
  switch (d) {
    case DataDirection::none: return "no data";
    case DataDirection::from_device: return "in";
    case DataDirection::to_device: return "out";
  }
  return "?";
}

// What was sent: the CDB, or (a device with a native ATA interface, the simulator's) the
// taskfile.
std::string sent(const app::CommandTrace& t) {
  if (!t.ata) return fmt::format("CDB {}", hex_bytes(t.cdb));
  const auto& r = t.regs;
  return fmt::format("ATA cmd {:02x} feat {:04x} count {:04x} lba {:012x} dev {:02x}{}", r.command, r.features,
                     r.count, r.lba, r.device, t.lba48 ? " (48-bit)" : "");
}

std::string ending(const app::CommandTrace& t) {
  std::string s(to_string(t.outcome));
  if (t.outcome == Outcome::check_condition || t.outcome == Outcome::scsi_status)
    s += fmt::format(", status {:02x}h", t.scsi_status);
  if (t.sense_decoded)
    s += fmt::format(", sense key {:x}h asc {:02x}h ascq {:02x}h ({})", t.sense_decoded->key, t.sense_decoded->asc,
                     t.sense_decoded->ascq, t.sense_decoded->text);
  if (t.ata_out) s += fmt::format(", ATA status {:02x}h error {:02x}h", t.ata_out->status, t.ata_out->error);
  if (t.residual) s += fmt::format(", residual {}", t.residual);
  if (!t.message.empty() && !t.sense_decoded) s += ": " + t.message;
  return s;
}

}  // namespace

std::string format_trace(const app::CommandTrace& t) {
  std::string data = t.direction == DataDirection::none ? "no data"
                                                        : fmt::format("{} {} bytes", direction_name(t.direction), t.length);
  std::string line = fmt::format("trace #{} {} [{}] {}: {} in {:.3f} ms", t.number, sent(t), t.name.empty() ? "?" : t.name,
                                 data, ending(t), std::chrono::duration<double, std::milli>(t.duration).count());
  if (!t.sense.empty()) line += fmt::format("\n  sense {}", hex_bytes(t.sense));
  return line;
}

void add_device_options(CLI::App* c, DeviceFlags& f) {
  c->add_option("-d,--device-type", f.type,
                "how commands reach the drive: auto (default: SAT when the drive answers as ATA), "
                "sat (ATA PASS-THROUGH), scsi (SCSI commands only), ata (native ATA: simulated drives)")
      ->check(CLI::IsMember({"auto", "ata", "sat", "scsi"}));
  c->add_flag("--trace", f.trace,
              "print every command sent to the drive on stderr: CDB or ATA registers, data direction "
              "and length, status, sense, duration");
}

app::DeviceChoice device_choice(const DeviceFlags& f) {
  app::DeviceChoice c;
  // The validator already limited the text to the four names.
  if (auto t = app::parse_device_type(f.type)) c.type = *t;
  if (f.trace)
    c.trace = [](const app::CommandTrace& t) { std::fprintf(stderr, "%s\n", format_trace(t).c_str()); };
  return c;
}

}  // namespace ds::cli
