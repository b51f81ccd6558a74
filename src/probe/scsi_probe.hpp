// Probing a live SCSI device: the commands `identify` sends to a SCSI target and what they
// answered. A failed command is recorded, never fatal: what the others answered is kept.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "drivescope/device.hpp"
#include "drivescope/expected.hpp"
#include "probe/scsi_decode.hpp"
#include "probe/zones.hpp"

namespace ds::probe {

// One command of the probe and how it went.
struct ScsiProbeStep {
  std::string command;       // "INQUIRY", "INQUIRY VPD 0x83", "READ CAPACITY(16)", ...
  Outcome outcome = Outcome::good;
  std::string message;       // CommandResult::message when the command failed
  std::vector<std::uint8_t> sense;
  std::string decode_error;  // the command worked but its data did not decode
  bool ok() const { return outcome == Outcome::good && decode_error.empty(); }
};

struct ScsiProbe {
  std::optional<scsi::StandardInquiry> inquiry;
  std::vector<std::uint8_t> supported_vpd_pages;  // empty when VPD 0x00 failed
  std::optional<std::string> serial;              // VPD 0x80
  std::optional<scsi::DeviceIdentification> device_id;
  std::optional<scsi::AtaInformation> ata_info;
  std::optional<scsi::BlockLimits> block_limits;
  std::optional<scsi::BlockCharacteristics> block_characteristics;
  std::optional<PositioningRanges> positioning_ranges;  // VPD 0xB9 (multi-actuator drives)
  // REPORT ZONES (ZBC IN) of a zoned device: host managed (PDT 14h) or host aware (VPD 0xB1
  // ZONED = 1). The first 4 KiB of the reply: the header's count covers every zone, the
  // descriptors the first 63.
  std::optional<ZoneReport> zones;
  std::optional<scsi::Capacity> capacity;  // from READ CAPACITY(16), else (10)
  std::optional<scsi::CachingPage> caching;
  std::vector<ScsiProbeStep> steps;
  // The response bytes of each command that returned data, by step name (for --raw).
  std::map<std::string, std::vector<std::uint8_t>> raw;

  bool any_failed() const;
  bool page_supported(std::uint8_t page) const;
};

// INQUIRY, VPD 0x00 and each of 0x80/0x83/0x89/0xB0/0xB1/0xB9 the device lists, READ CAPACITY(16)
// falling back to (10), MODE SENSE(10) (falling back to (6)) for the Caching page, and REPORT
// ZONES when the device says it is host managed or host aware.
// An error only when not one command succeeded (then nothing was learned); otherwise the probe,
// with every failure in steps.
Expected<ScsiProbe> probe_scsi(Device& dev);

}  // namespace ds::probe
