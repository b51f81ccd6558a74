// High-level ATA and SCSI commands as short free functions over a Device (smartmontools' shape:
// ata_set_features(dev, ATA_ENABLE_AAM, level)); the opcodes they send are in opcodes.hpp.
#pragma once
#include <cstdint>
#include <span>

#include "drivescope/device.hpp"
#include "drivescope/opcodes.hpp"

namespace ds::ata {

CommandResult identify_device(Device& dev, std::span<std::uint8_t, 512> out);
CommandResult identify_packet_device(Device& dev, std::span<std::uint8_t, 512> out);
CommandResult set_features(Device& dev, std::uint8_t subcommand, std::uint8_t count = 0);
CommandResult smart_read_data(Device& dev, std::span<std::uint8_t, 512> out);
CommandResult smart_read_thresholds(Device& dev, std::span<std::uint8_t, 512> out);
// SMART RETURN STATUS: good health when the result is ok() and *healthy is set true.
CommandResult smart_return_status(Device& dev, bool* healthy);
// CHECK POWER MODE: the count register comes back in result.ata->count.
CommandResult check_power_mode(Device& dev);
CommandResult read_log_ext(Device& dev, std::uint8_t log, std::uint16_t page,
                           std::span<std::uint8_t> out);
CommandResult read_verify(Device& dev, std::uint64_t lba, std::uint16_t sectors);
// ZAC MANAGEMENT IN, action REPORT ZONES EXT: the zones from `start_lba` on (reporting options 0,
// every zone), as many as fit `out` (1..65535 whole 512-byte pages). The reply is little-endian;
// probe::decode_report_zones reads it.
CommandResult report_zones_ext(Device& dev, std::uint64_t start_lba, std::span<std::uint8_t> out);

}  // namespace ds::ata

namespace ds::scsi {

CommandResult test_unit_ready(Device& dev);
CommandResult request_sense(Device& dev, std::span<std::uint8_t> out);
CommandResult inquiry(Device& dev, std::span<std::uint8_t> out);                    // standard
CommandResult inquiry_vpd(Device& dev, std::uint8_t page, std::span<std::uint8_t> out);
CommandResult read_capacity10(Device& dev, std::span<std::uint8_t, 8> out);
CommandResult read_capacity16(Device& dev, std::span<std::uint8_t, 32> out);
CommandResult mode_sense10(Device& dev, std::uint8_t page, std::uint8_t subpage,
                           std::span<std::uint8_t> out);
CommandResult mode_sense6(Device& dev, std::uint8_t page, std::uint8_t subpage,
                          std::span<std::uint8_t> out);
CommandResult log_sense(Device& dev, std::uint8_t page, std::uint8_t subpage,
                        std::span<std::uint8_t> out);
CommandResult read16(Device& dev, std::uint64_t lba, std::uint32_t blocks,
                     std::span<std::uint8_t> out);
// ZBC IN, service action REPORT ZONES: the zones from `start_lba` on (reporting options 0); the
// reply is big-endian.
CommandResult report_zones(Device& dev, std::uint64_t start_lba, std::span<std::uint8_t> out);

}  // namespace ds::scsi
