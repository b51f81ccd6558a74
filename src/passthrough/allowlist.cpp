#include "passthrough/allowlist.hpp"

#include <fmt/format.h>

#include "drivescope/commands.hpp"
#include "drivescope/sat.hpp"

namespace ds {
namespace {

Verdict allow() { return Verdict{true, {}}; }
Verdict refuse(std::string why) { return Verdict{false, std::move(why)}; }

std::string ata_label(std::uint8_t cmd) {
  auto name = ata_command_name(cmd);
  return name.empty() ? fmt::format("ATA command {:#04x}", cmd)
                      : fmt::format("ATA command {:#04x} ({})", cmd, name);
}

std::string scsi_label(std::uint8_t op) {
  auto name = scsi_opcode_name(op);
  return name.empty() ? fmt::format("SCSI opcode {:#04x}", op) : fmt::format("SCSI opcode {:#04x} ({})", op, name);
}

// CDB length by operation code group (SPC-4, operation code groups: group 0 = 6 bytes, 1 and 2 = 10,
// 4 = 16, 5 = 12). Checking it means a decoder never reads a field the CDB does not have.
std::size_t cdb_length_for(std::uint8_t op) {
  switch (op >> 5) {
    case 0: return 6;
    case 1:
    case 2: return 10;
    case 4: return 16;
    case 5: return 12;
    default: return 0;
  }
}

bool is_data_out_protocol(std::uint8_t protocol) {
  return protocol == sat::kProtocolPioDataOut || protocol == 11 /* UDMA data out */;
}

}  // namespace

std::string_view ata_command_name(std::uint8_t c) {
  switch (c) {
    case 0x06: return "DATA SET MANAGEMENT";
    case 0x20: return "READ SECTORS";
    case 0x24: return "READ SECTORS EXT";
    case 0x25: return "READ DMA EXT";
    case 0x2F: return "READ LOG EXT";
    case 0x30: return "WRITE SECTORS";
    case 0x34: return "WRITE SECTORS EXT";
    case 0x35: return "WRITE DMA EXT";
    case 0x3F: return "WRITE LOG EXT";
    case 0x40: return "READ VERIFY SECTORS";
    case 0x42: return "READ VERIFY SECTORS EXT";
    case 0x4A: return "ZAC MANAGEMENT IN";
    case 0x61: return "WRITE FPDMA QUEUED";
    case 0x60: return "READ FPDMA QUEUED";
    case 0x92: return "DOWNLOAD MICROCODE";
    case 0x9F: return "ZAC MANAGEMENT OUT";
    case 0xA1: return "IDENTIFY PACKET DEVICE";
    case 0xB0: return "SMART";
    case 0xB4: return "SANITIZE DEVICE";
    case 0xC8: return "READ DMA";
    case 0xCA: return "WRITE DMA";
    case 0xE5: return "CHECK POWER MODE";
    case 0xE7: return "FLUSH CACHE";
    case 0xEC: return "IDENTIFY DEVICE";
    case 0xEF: return "SET FEATURES";
    case 0xF1: return "SECURITY SET PASSWORD";
    case 0xF3: return "SECURITY ERASE PREPARE";
    case 0xF4: return "SECURITY ERASE UNIT";
    case 0xF8: return "READ NATIVE MAX ADDRESS";
    case 0xF9: return "SET MAX ADDRESS";
    default: return "";
  }
}

std::string_view scsi_opcode_name(std::uint8_t op) {
  switch (op) {
    case 0x00: return "TEST UNIT READY";
    case 0x03: return "REQUEST SENSE";
    case 0x04: return "FORMAT UNIT";
    case 0x08: return "READ(6)";
    case 0x0A: return "WRITE(6)";
    case 0x12: return "INQUIRY";
    case 0x15: return "MODE SELECT(6)";
    case 0x1A: return "MODE SENSE(6)";
    case 0x1B: return "START STOP UNIT";
    case 0x25: return "READ CAPACITY(10)";
    case 0x28: return "READ(10)";
    case 0x2A: return "WRITE(10)";
    case 0x2E: return "WRITE AND VERIFY(10)";
    case 0x35: return "SYNCHRONIZE CACHE(10)";
    case 0x3B: return "WRITE BUFFER";
    case 0x42: return "UNMAP";
    case 0x48: return "SANITIZE";
    case 0x4C: return "LOG SELECT";
    case 0x4D: return "LOG SENSE";
    case 0x55: return "MODE SELECT(10)";
    case 0x5A: return "MODE SENSE(10)";
    case 0x85: return "ATA PASS-THROUGH(16)";
    case 0x88: return "READ(16)";
    case 0x8A: return "WRITE(16)";
    case 0x93: return "WRITE SAME(16)";
    case 0x94: return "ZBC OUT";
    case 0x95: return "ZBC IN";
    case 0x9E: return "SERVICE ACTION IN(16)";
    case 0xA1: return "ATA PASS-THROUGH(12)";
    default: return "";
  }
}

Verdict check_ata(const AtaRegisters& r) {
  const auto sub = static_cast<std::uint8_t>(r.features & 0xFF);
  switch (r.command) {
    case ata::kIdentifyDevice:
    case ata::kIdentifyPacketDevice:
    case ata::kCheckPowerMode:
    case ata::kReadVerifySectors:
    case ata::kReadVerifySectorsExt:
      return allow();
    case ata::kSetFeatures:
      switch (sub) {
        case ata::kSfEnableAam:
        case ata::kSfDisableAam:
        case ata::kSfEnableApm:
        case ata::kSfDisableApm:
        case ata::kSfEnableWriteCache:
        case ata::kSfDisableWriteCache:
        case ata::kSfEnableLookAhead:
        case ata::kSfDisableLookAhead:
          return allow();
        default:
          return refuse(fmt::format("SET FEATURES subcommand {:#04x} is not on the passthrough allowlist "
                                    "(only AAM, APM, write cache and look-ahead enable/disable)", sub));
      }
    case ata::kSmart:
      switch (sub) {
        case ata::kSmartReadData:
        case ata::kSmartReadThresholds:
        case ata::kSmartReturnStatus:
          return allow();
        default:
          return refuse(fmt::format("SMART subcommand {:#04x} is not on the passthrough allowlist "
                                    "(only READ DATA, READ THRESHOLDS, RETURN STATUS)", sub));
      }
    case ata::kReadLogExt: {
      // The log address is LBA(7:0) (ACS-3 READ LOG EXT).
      const auto log = static_cast<std::uint8_t>(r.lba & 0xFF);
      if (log == ata::kLogDirectory || log == ata::kLogIdentifyDeviceData ||
          log == ata::kLogConcurrentPositioningRanges)
        return allow();
      return refuse(fmt::format("READ LOG EXT of log {:#04x} is not on the passthrough allowlist "
                                "(only logs 0x00, 0x30 and 0x47)", log));
    }
    case ata::kZacManagementIn:
      // The action is FEATURE(7:0) (ZAC). REPORT ZONES EXT only reads the zone list; the other
      // ZAC MANAGEMENT IN actions are left out until drivescope needs them.
      if (sub == ata::kZacReportZonesExt) return allow();
      return refuse(fmt::format("ZAC MANAGEMENT IN action {:#04x} is not on the passthrough allowlist "
                                "(only REPORT ZONES EXT, 0x00)", sub));
    default:
      return refuse(ata_label(r.command) + " is not on the passthrough allowlist");
  }
}

Verdict check_ata_request(const AtaRequest& req) {
  if (req.protocol == AtaProtocol::pio_out || req.protocol == AtaProtocol::dma_out)
    return refuse(ata_label(req.in.command) + " with a data-out protocol is not allowed: "
                  "drivescope never sends data to the drive through the passthrough");
  return check_ata(req.in);
}

Verdict check_scsi(std::span<const std::uint8_t> cdb) {
  if (cdb.empty()) return refuse("empty CDB");
  const std::uint8_t op = cdb[0];
  const std::size_t want = cdb_length_for(op);
  if (want != 0 && cdb.size() != want)
    return refuse(fmt::format("{} with a {}-byte CDB (expected {})", scsi_label(op), cdb.size(), want));
  switch (op) {
    case scsi::kTestUnitReady:
    case scsi::kRequestSense:
    case scsi::kInquiry:
    case scsi::kModeSense6:
    case scsi::kModeSense10:
    case scsi::kReadCapacity10:
    case scsi::kRead10:
    case scsi::kRead16:
      return allow();
    case scsi::kLogSense:
      // SP (byte 1 bit 0) makes LOG SENSE save the log parameters to non-volatile storage
      // (SPC-4 LOG SENSE): a write, so refused.
      if (cdb[1] & 0x01) return refuse("LOG SENSE with SP (save parameters) set is not allowed");
      return allow();
    case scsi::kServiceActionIn16:
      if ((cdb[1] & 0x1F) == scsi::kSaReadCapacity16) return allow();
      return refuse(fmt::format("SERVICE ACTION IN(16) service action {:#04x} is not on the passthrough "
                                "allowlist (only READ CAPACITY(16))", cdb[1] & 0x1F));
    case scsi::kZbcIn:
      // ZBC IN: the service action is byte 1 bits 4:0; REPORT ZONES (00h) only reads.
      if ((cdb[1] & 0x1F) == scsi::kSaReportZones) return allow();
      return refuse(fmt::format("ZBC IN service action {:#04x} is not on the passthrough allowlist "
                                "(only REPORT ZONES)", cdb[1] & 0x1F));
    case scsi::kAtaPassThrough16:
    case scsi::kAtaPassThrough12: {
      auto d = sat::decode_pass_through_cdb(cdb);
      if (!d) return refuse(d.error().message);
      if (is_data_out_protocol(d->protocol) || (d->t_length != 0 && !d->t_dir_in))
        return refuse(fmt::format("{} carrying {} transfers data to the device", scsi_label(op),
                                  ata_label(d->regs.command)));
      // Only protocols that read or move nothing: non-data, PIO data-in, DMA (data-in, as checked
      // above). Resets, diagnostics, queued and "return response" protocols are refused.
      if (d->protocol != sat::kProtocolNonData && d->protocol != sat::kProtocolPioDataIn &&
          d->protocol != sat::kProtocolDma)
        return refuse(fmt::format("{} with ATA protocol {} is not allowed", scsi_label(op), d->protocol));
      auto v = check_ata(d->regs);
      if (!v) v.reason = scsi_label(op) + ": " + v.reason;
      return v;
    }
    default:
      return refuse(scsi_label(op) + " is not on the passthrough allowlist");
  }
}

Verdict check_scsi_request(const ScsiRequest& req) {
  auto v = check_scsi(req.cdb);
  if (v && req.direction == DataDirection::to_device)
    return refuse(scsi_label(req.cdb[0]) + " with a data-out transfer is not allowed");
  return v;
}

GuardedDevice::GuardedDevice(std::unique_ptr<Device> inner) : owned_(std::move(inner)), inner_(owned_.get()) {}
GuardedDevice::GuardedDevice(Device& inner) : inner_(&inner) {}

namespace {
CommandResult refused(std::string reason) {
  CommandResult r;
  r.outcome = Outcome::refused;
  r.message = std::move(reason);
  return r;
}
}  // namespace

CommandResult GuardedDevice::scsi(const ScsiRequest& req) {
  auto v = check_scsi_request(req);
  if (!v) return refused(std::move(v.reason));
  return inner_->scsi(req);
}

CommandResult GuardedDevice::ata(const AtaRequest& req) {
  auto v = check_ata_request(req);
  if (!v) return refused(std::move(v.reason));
  return inner_->ata(req);
}

}  // namespace ds
