// ATA and SCSI opcodes and subcommands, named once and used by the allowlist, the SAT layer, the
// high-level commands and the simulated drive alike. Constants only: including this header links
// nothing (the simulator answers these commands without the passthrough layer).
#pragma once
#include <cstdint>

namespace ds::ata {

// Command opcodes (ACS-3 / ATA8-ACS).
inline constexpr std::uint8_t kIdentifyDevice = 0xEC;
inline constexpr std::uint8_t kIdentifyPacketDevice = 0xA1;
inline constexpr std::uint8_t kSetFeatures = 0xEF;
inline constexpr std::uint8_t kSmart = 0xB0;
inline constexpr std::uint8_t kReadLogExt = 0x2F;
inline constexpr std::uint8_t kCheckPowerMode = 0xE5;
inline constexpr std::uint8_t kReadVerifySectors = 0x40;
inline constexpr std::uint8_t kReadVerifySectorsExt = 0x42;

// SET FEATURES subcommands (features register).
inline constexpr std::uint8_t kSfEnableWriteCache = 0x02;
inline constexpr std::uint8_t kSfDisableWriteCache = 0x82;
inline constexpr std::uint8_t kSfEnableApm = 0x05;
inline constexpr std::uint8_t kSfDisableApm = 0x85;
inline constexpr std::uint8_t kSfEnableAam = 0x42;   // level in the count register
inline constexpr std::uint8_t kSfDisableAam = 0xC2;
inline constexpr std::uint8_t kSfEnableLookAhead = 0xAA;
inline constexpr std::uint8_t kSfDisableLookAhead = 0x55;

// SMART subcommands (features register; LBA mid/high = 0x4F/0xC2).
inline constexpr std::uint8_t kSmartReadData = 0xD0;
inline constexpr std::uint8_t kSmartReadThresholds = 0xD1;
inline constexpr std::uint8_t kSmartReturnStatus = 0xDA;

// Log addresses drivescope decodes with READ LOG EXT.
inline constexpr std::uint8_t kLogDirectory = 0x00;
inline constexpr std::uint8_t kLogIdentifyDeviceData = 0x30;
inline constexpr std::uint8_t kLogConcurrentPositioningRanges = 0x47;  // ACS-5

// ZAC MANAGEMENT IN (ZAC, ACS-4 command table) and its one read-only action drivescope sends:
// REPORT ZONES EXT (features 7:0 = 00h). ZAC MANAGEMENT OUT (9Fh: open, close, finish, reset
// write pointer) changes the drive and stays off the allowlist.
inline constexpr std::uint8_t kZacManagementIn = 0x4A;
inline constexpr std::uint8_t kZacReportZonesExt = 0x00;
inline constexpr std::uint8_t kZacManagementOut = 0x9F;

}  // namespace ds::ata

namespace ds::scsi {

inline constexpr std::uint8_t kTestUnitReady = 0x00;
inline constexpr std::uint8_t kRequestSense = 0x03;
inline constexpr std::uint8_t kInquiry = 0x12;
inline constexpr std::uint8_t kModeSense6 = 0x1A;
inline constexpr std::uint8_t kReadCapacity10 = 0x25;
inline constexpr std::uint8_t kRead10 = 0x28;
inline constexpr std::uint8_t kLogSense = 0x4D;
inline constexpr std::uint8_t kModeSense10 = 0x5A;
inline constexpr std::uint8_t kAtaPassThrough16 = 0x85;
inline constexpr std::uint8_t kRead16 = 0x88;
inline constexpr std::uint8_t kServiceActionIn16 = 0x9E;  // READ CAPACITY(16) is SA 0x10
inline constexpr std::uint8_t kSaReadCapacity16 = 0x10;
inline constexpr std::uint8_t kAtaPassThrough12 = 0xA1;
// ZBC IN (ZBC): service action 00h REPORT ZONES reads the zone list; ZBC OUT (94h: close,
// finish, open, reset write pointer) changes the drive and stays off the allowlist.
inline constexpr std::uint8_t kZbcIn = 0x95;
inline constexpr std::uint8_t kSaReportZones = 0x00;
inline constexpr std::uint8_t kZbcOut = 0x94;

}  // namespace ds::scsi
