#include "passthrough/trace_device.hpp"

#include <chrono>

#include <fmt/format.h>

#include "drivescope/sat.hpp"
#include "passthrough/allowlist.hpp"
#include "passthrough/sat_device.hpp"
#include "passthrough/sense.hpp"

namespace ds {
namespace {

// "SMART" alone says little: its subcommand is in FEATURES (ACS-3 7.45), as it is for SET FEATURES.
std::string ata_name(const AtaRegisters& regs) {
  std::string name(ata_command_name(regs.command));
  if (name.empty()) name = fmt::format("ATA command {:02x}h", regs.command);
  if (regs.command == 0xb0 || regs.command == 0xef) name += fmt::format(" (feature {:02x}h)", regs.features & 0xff);
  return name;
}

std::string scsi_name(std::span<const std::uint8_t> cdb) {
  if (cdb.empty()) return "";
  std::string name(scsi_opcode_name(cdb[0]));
  if (name.empty()) name = fmt::format("opcode {:02x}h", cdb[0]);
  // Inside an ATA PASS-THROUGH CDB is an ATA command: name it, as sg_sat_* -vv does.
  if (cdb[0] == 0x85 || cdb[0] == 0xa1)
    if (auto pt = sat::decode_pass_through_cdb(cdb)) name += ": " + ata_name(pt->regs);
  return name;
}

void fill_result(CommandTrace& t, const CommandResult& r) {
  t.outcome = r.outcome;
  t.scsi_status = r.scsi_status;
  t.sense = r.sense;
  if (!r.sense.empty()) {
    TracedSense s;
    if (auto d = decode_sense(r.sense)) {
      s.key = d->sense_key;
      s.asc = d->asc;
      s.ascq = d->ascq;
      s.text = sense_summary(*d);
    } else {
      s.text = d.error().message;
    }
    t.sense_decoded = std::move(s);
  }
  t.ata_out = r.ata;
  t.duration = r.duration;
  t.residual = r.residual;
  if (r.outcome != Outcome::good || (r.ata && r.ata->error_bit())) t.message = r.message;
}

// The device's figure when it gives one (the simulator's drive time, SG_IO's own), else ours.
template <class Send>
CommandResult timed(Send&& send, Nanos& wall) {
  const auto t0 = std::chrono::steady_clock::now();
  CommandResult r = send();
  wall = std::chrono::duration_cast<Nanos>(std::chrono::steady_clock::now() - t0);
  return r;
}

}  // namespace

CommandTrace trace_scsi(const ScsiRequest& req, const CommandResult& r) {
  CommandTrace t;
  t.cdb.assign(req.cdb.begin(), req.cdb.end());
  t.name = scsi_name(req.cdb);
  t.direction = req.direction;
  t.length = req.data.size();
  fill_result(t, r);
  return t;
}

CommandTrace trace_ata(const AtaRequest& req, const CommandResult& r) {
  CommandTrace t;
  t.ata = true;
  t.regs = req.in;
  t.lba48 = req.lba48;
  t.name = ata_name(req.in);
  t.direction = direction_of(req.protocol);
  t.length = req.data.size();
  fill_result(t, r);
  return t;
}

CommandResult TracingDevice::scsi(const ScsiRequest& req) {
  Nanos wall{0};
  CommandResult r = timed([&] { return inner_->scsi(req); }, wall);
  CommandTrace t = trace_scsi(req, r);
  t.number = ++count_;
  if (t.duration.count() == 0) t.duration = wall;
  if (sink_) sink_(t);
  return r;
}

CommandResult TracingDevice::ata(const AtaRequest& req) {
  Nanos wall{0};
  CommandResult r = timed([&] { return inner_->ata(req); }, wall);
  CommandTrace t = trace_ata(req, r);
  t.number = ++count_;
  if (t.duration.count() == 0) t.duration = wall;
  if (sink_) sink_(t);
  return r;
}

}  // namespace ds
