// High-level ATA and SCSI commands (declared in drivescope/commands.hpp): each builds one
// AtaRequest or CDB and hands it to the device. Register and CDB layouts cite ACS-3 / SPC-4 / SBC-3.
#include "drivescope/commands.hpp"
#include "drivescope/wire.hpp"

#include <algorithm>
#include <array>
#include <cerrno>

#include <fmt/format.h>

namespace ds {
namespace {

constexpr std::size_t kBlock = 512;
// SMART commands carry the signature 4Fh/C2h in LBA(15:8)/LBA(23:16) (ACS-3 SMART).
constexpr std::uint64_t kSmartSignatureLba = 0xC24F00;
// SMART RETURN STATUS answers in the same registers: C24Fh = threshold not exceeded,
// 2CF4h = a threshold exceeded (ACS-3 SMART RETURN STATUS).
constexpr std::uint64_t kSmartThresholdExceededLba = 0x2CF400;

CommandResult invalid(std::string message) {
  CommandResult r;
  r.outcome = Outcome::os_error;
  r.os_errno = EINVAL;
  r.message = std::move(message);
  return r;
}

AtaRequest ata_pio_in(std::uint8_t command, std::span<std::uint8_t> out) {
  AtaRequest r;
  r.in.command = command;
  r.in.count = static_cast<std::uint16_t>(out.size() / kBlock);  // SAT: T_LENGTH in COUNT
  r.protocol = AtaProtocol::pio_in;
  r.data = out;
  return r;
}

AtaRequest ata_non_data(std::uint8_t command) {
  AtaRequest r;
  r.in.command = command;
  r.protocol = AtaProtocol::non_data;
  return r;
}

CommandResult scsi_in(Device& dev, std::span<const std::uint8_t> cdb, std::span<std::uint8_t> out) {
  ScsiRequest r;
  r.cdb = cdb;
  r.direction = out.empty() ? DataDirection::none : DataDirection::from_device;
  r.data = out;
  return dev.scsi(r);
}

using wire::put_be16;
using wire::put_be32;
using wire::put_be64;

}  // namespace

namespace ata {

CommandResult identify_device(Device& dev, std::span<std::uint8_t, 512> out) {
  return dev.ata(ata_pio_in(kIdentifyDevice, out));
}

CommandResult identify_packet_device(Device& dev, std::span<std::uint8_t, 512> out) {
  return dev.ata(ata_pio_in(kIdentifyPacketDevice, out));
}

CommandResult set_features(Device& dev, std::uint8_t subcommand, std::uint8_t count) {
  AtaRequest r = ata_non_data(kSetFeatures);
  r.in.features = subcommand;  // the subcommand is the FEATURES register (ACS-3 SET FEATURES)
  r.in.count = count;          // e.g. the AAM / APM level
  return dev.ata(r);
}

CommandResult smart_read_data(Device& dev, std::span<std::uint8_t, 512> out) {
  AtaRequest r = ata_pio_in(kSmart, out);
  r.in.features = kSmartReadData;
  r.in.lba = kSmartSignatureLba;
  return dev.ata(r);
}

CommandResult smart_read_thresholds(Device& dev, std::span<std::uint8_t, 512> out) {
  AtaRequest r = ata_pio_in(kSmart, out);
  r.in.features = kSmartReadThresholds;
  r.in.lba = kSmartSignatureLba;
  return dev.ata(r);
}

CommandResult smart_return_status(Device& dev, bool* healthy) {
  if (healthy) *healthy = false;
  AtaRequest r = ata_non_data(kSmart);
  r.in.features = kSmartReturnStatus;
  r.in.lba = kSmartSignatureLba;
  CommandResult res = dev.ata(r);
  if (!res.ok()) return res;
  if (!res.ata) {
    res.outcome = Outcome::unsupported;
    res.message = "SMART RETURN STATUS: the device returned no ATA registers, so health is unknown";
    return res;
  }
  const std::uint64_t sig = res.ata->lba & 0xFFFF00;
  if (sig == kSmartSignatureLba) {
    if (healthy) *healthy = true;
  } else if (sig == kSmartThresholdExceededLba) {
    res.message = "SMART RETURN STATUS: a threshold is exceeded (drive reports failing health)";
  } else {
    res.outcome = Outcome::unsupported;
    res.message = fmt::format("SMART RETURN STATUS: unrecognised LBA mid/high {:#06x}", (res.ata->lba >> 8) & 0xFFFF);
  }
  return res;
}

CommandResult check_power_mode(Device& dev) { return dev.ata(ata_non_data(kCheckPowerMode)); }

CommandResult read_log_ext(Device& dev, std::uint8_t log, std::uint16_t page, std::span<std::uint8_t> out) {
  if (out.empty() || out.size() % kBlock != 0 || out.size() / kBlock > 0xFFFF)
    return invalid(fmt::format("READ LOG EXT: buffer of {} bytes is not 1..65535 pages of 512", out.size()));
  AtaRequest r = ata_pio_in(kReadLogExt, out);
  r.lba48 = true;
  // ACS-3 READ LOG EXT: LBA(7:0) log address, LBA(15:8) page number (7:0),
  // LBA(39:32) page number (15:8); COUNT = number of 512-byte pages.
  r.in.lba = std::uint64_t{log} | std::uint64_t{page & 0xFFu} << 8 | (std::uint64_t{page} >> 8) << 32;
  return dev.ata(r);
}

CommandResult report_zones_ext(Device& dev, std::uint64_t start_lba, std::span<std::uint8_t> out) {
  if (out.empty() || out.size() % kBlock != 0 || out.size() / kBlock > 0xFFFF)
    return invalid(fmt::format("REPORT ZONES EXT: buffer of {} bytes is not 1..65535 pages of 512", out.size()));
  if (start_lba >= (1ULL << 48)) return invalid(fmt::format("REPORT ZONES EXT: LBA {} beyond 48 bits", start_lba));
  // ZAC REPORT ZONES EXT: FEATURE(7:0) = action 00h, FEATURE(15:8) = reporting options (0: all
  // zones, PARTIAL clear), COUNT = pages to return, LBA = zone start LBA; DMA, 48-bit (as Linux's
  // SAT translation in libata-scsi builds it).
  AtaRequest r;
  r.in.command = kZacManagementIn;
  r.in.features = kZacReportZonesExt;
  r.in.count = static_cast<std::uint16_t>(out.size() / kBlock);
  r.in.lba = start_lba;
  r.in.device = 0x40;  // LBA addressing
  r.lba48 = true;
  r.protocol = AtaProtocol::dma_in;
  r.data = out;
  return dev.ata(r);
}

CommandResult read_verify(Device& dev, std::uint64_t lba, std::uint16_t sectors) {
  if (sectors == 0) return invalid("READ VERIFY: zero sectors");
  AtaRequest r;
  r.protocol = AtaProtocol::non_data;
  r.in.device = 0x40;  // LBA addressing (ACS-3: DEVICE bit 6)
  r.in.lba = lba;
  r.in.count = sectors;
  // The 28-bit form reaches LBA 2^28 - 1 and 255 sectors (0 would mean 256; we never send it).
  if (sectors <= 0xFF && lba + sectors <= (1ULL << 28)) {
    r.in.command = kReadVerifySectors;
  } else {
    if (lba + sectors > (1ULL << 48)) return invalid(fmt::format("READ VERIFY: LBA {} beyond 48 bits", lba));
    r.in.command = kReadVerifySectorsExt;
    r.lba48 = true;
  }
  return dev.ata(r);
}

}  // namespace ata

namespace scsi {

CommandResult test_unit_ready(Device& dev) {
  const std::array<std::uint8_t, 6> cdb{kTestUnitReady, 0, 0, 0, 0, 0};
  return scsi_in(dev, cdb, {});
}

CommandResult request_sense(Device& dev, std::span<std::uint8_t> out) {
  if (out.empty()) return invalid("REQUEST SENSE: empty buffer");
  out = out.first(std::min<std::size_t>(out.size(), 252));  // SPC-4: at most 252 bytes of sense
  // SPC-4: byte 1 bit 0 DESC = 0 (fixed format), byte 4 ALLOCATION LENGTH.
  const std::array<std::uint8_t, 6> cdb{kRequestSense, 0, 0, 0, static_cast<std::uint8_t>(out.size()), 0};
  return scsi_in(dev, cdb, out);
}

CommandResult inquiry(Device& dev, std::span<std::uint8_t> out) {
  if (out.empty()) return invalid("INQUIRY: empty buffer");
  out = out.first(std::min<std::size_t>(out.size(), 0xFFFF));
  // SPC-4: EVPD = 0, PAGE CODE = 0, ALLOCATION LENGTH in bytes 3..4.
  std::array<std::uint8_t, 6> cdb{kInquiry, 0, 0, 0, 0, 0};
  put_be16(&cdb[3], static_cast<std::uint32_t>(out.size()));
  return scsi_in(dev, cdb, out);
}

CommandResult inquiry_vpd(Device& dev, std::uint8_t page, std::span<std::uint8_t> out) {
  if (out.empty()) return invalid("INQUIRY VPD: empty buffer");
  out = out.first(std::min<std::size_t>(out.size(), 0xFFFF));
  std::array<std::uint8_t, 6> cdb{kInquiry, 0x01 /* EVPD */, page, 0, 0, 0};
  put_be16(&cdb[3], static_cast<std::uint32_t>(out.size()));
  return scsi_in(dev, cdb, out);
}

CommandResult read_capacity10(Device& dev, std::span<std::uint8_t, 8> out) {
  // SBC-3: LBA and PMI zero; the answer is 8 bytes.
  const std::array<std::uint8_t, 10> cdb{kReadCapacity10, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  return scsi_in(dev, cdb, out);
}

CommandResult read_capacity16(Device& dev, std::span<std::uint8_t, 32> out) {
  // SBC-3: SERVICE ACTION IN(16) with service action 10h, ALLOCATION LENGTH in bytes 10..13.
  std::array<std::uint8_t, 16> cdb{kServiceActionIn16, kSaReadCapacity16};
  put_be32(&cdb[10], 32);
  return scsi_in(dev, cdb, out);
}

CommandResult mode_sense10(Device& dev, std::uint8_t page, std::uint8_t subpage, std::span<std::uint8_t> out) {
  if (out.empty()) return invalid("MODE SENSE(10): empty buffer");
  out = out.first(std::min<std::size_t>(out.size(), 0xFFFF));
  // SPC-4: byte 2 = PC (00b current values) | PAGE CODE; byte 3 SUBPAGE; bytes 7..8 length.
  std::array<std::uint8_t, 10> cdb{kModeSense10, 0, static_cast<std::uint8_t>(page & 0x3F), subpage};
  put_be16(&cdb[7], static_cast<std::uint32_t>(out.size()));
  return scsi_in(dev, cdb, out);
}

CommandResult mode_sense6(Device& dev, std::uint8_t page, std::uint8_t subpage, std::span<std::uint8_t> out) {
  if (out.empty()) return invalid("MODE SENSE(6): empty buffer");
  out = out.first(std::min<std::size_t>(out.size(), 0xFF));
  // SPC-4: byte 2 = PC | PAGE CODE, byte 3 SUBPAGE, byte 4 ALLOCATION LENGTH (one byte).
  const std::array<std::uint8_t, 6> cdb{kModeSense6, 0, static_cast<std::uint8_t>(page & 0x3F), subpage,
                                        static_cast<std::uint8_t>(out.size()), 0};
  return scsi_in(dev, cdb, out);
}

CommandResult log_sense(Device& dev, std::uint8_t page, std::uint8_t subpage, std::span<std::uint8_t> out) {
  if (out.empty()) return invalid("LOG SENSE: empty buffer");
  out = out.first(std::min<std::size_t>(out.size(), 0xFFFF));
  // SPC-4 LOG SENSE: PPC = SP = 0; byte 2 = PC 01b (cumulative values) | PAGE CODE;
  // byte 3 SUBPAGE; bytes 5..6 PARAMETER POINTER = 0; bytes 7..8 ALLOCATION LENGTH.
  std::array<std::uint8_t, 10> cdb{kLogSense, 0, static_cast<std::uint8_t>(0x40 | (page & 0x3F)), subpage};
  put_be16(&cdb[7], static_cast<std::uint32_t>(out.size()));
  return scsi_in(dev, cdb, out);
}

CommandResult read16(Device& dev, std::uint64_t lba, std::uint32_t blocks, std::span<std::uint8_t> out) {
  if (blocks == 0 || out.empty()) return invalid("READ(16): zero blocks or empty buffer");
  if (out.size() % blocks != 0)
    return invalid(fmt::format("READ(16): {} bytes is not a whole number of {} blocks", out.size(), blocks));
  // SBC-3: LOGICAL BLOCK ADDRESS bytes 2..9, TRANSFER LENGTH bytes 10..13.
  std::array<std::uint8_t, 16> cdb{kRead16};
  put_be64(&cdb[2], lba);
  put_be32(&cdb[10], blocks);
  return scsi_in(dev, cdb, out);
}

CommandResult report_zones(Device& dev, std::uint64_t start_lba, std::span<std::uint8_t> out) {
  if (out.size() < 64) return invalid("REPORT ZONES: the buffer must hold at least the 64-byte header");
  out = out.first(std::min<std::size_t>(out.size(), 0xFFFFFFFFu));
  // ZBC REPORT ZONES: ZBC IN (95h), SERVICE ACTION 00h; ZONE START LBA bytes 2..9, ALLOCATION
  // LENGTH bytes 10..13, byte 14 = PARTIAL (bit 7) | REPORTING OPTIONS (bits 5:0) = 0: all zones.
  std::array<std::uint8_t, 16> cdb{kZbcIn, kSaReportZones};
  put_be64(&cdb[2], start_lba);
  put_be32(&cdb[10], static_cast<std::uint32_t>(out.size()));
  return scsi_in(dev, cdb, out);
}

}  // namespace scsi
}  // namespace ds
