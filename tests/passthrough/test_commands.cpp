// The high-level commands (drivescope/commands.hpp): each builds exactly the registers / CDB the
// standard says, checked on a ScriptedDevice at the ATA level and at the SCSI level.
#include <doctest/doctest.h>

#include <vector>

#include "../support/scripted_device.hpp"
#include "drivescope/commands.hpp"
#include "passthrough/allowlist.hpp"

using namespace ds;
using Bytes = std::vector<std::uint8_t>;

namespace {
AtaRegisters regs(std::uint8_t cmd, std::uint16_t features, std::uint16_t count, std::uint64_t lba,
                  std::uint8_t device = 0) {
  AtaRegisters r;
  r.command = cmd;
  r.features = features;
  r.count = count;
  r.lba = lba;
  r.device = device;
  return r;
}
}  // namespace

TEST_CASE("ATA commands build the ACS-3 registers") {
  test::ScriptedDevice dev("scripted", TargetKind::ata);
  auto& id = dev.expect_ata(regs(0xEC, 0, 1, 0));
  id.protocol = AtaProtocol::pio_in;
  id.data_length = 512;
  id.data_in = Bytes(512, 0x5A);
  dev.expect_ata(regs(0xA1, 0, 1, 0)).protocol = AtaProtocol::pio_in;
  auto& sf = dev.expect_ata(regs(0xEF, 0x42, 0xFE, 0));
  sf.protocol = AtaProtocol::non_data;
  sf.lba48 = false;
  dev.expect_ata(regs(0xB0, 0xD0, 1, 0xC24F00)).protocol = AtaProtocol::pio_in;
  dev.expect_ata(regs(0xB0, 0xD1, 1, 0xC24F00)).protocol = AtaProtocol::pio_in;
  dev.expect_ata(regs(0xE5, 0, 0, 0)).protocol = AtaProtocol::non_data;
  auto& log = dev.expect_ata(regs(0x2F, 0, 2, 0x0100000230ULL));  // log 30h, page 0x0102
  log.lba48 = true;
  log.data_length = 1024;
  dev.expect_ata(regs(0x40, 0, 16, 1000, 0x40)).lba48 = false;
  dev.expect_ata(regs(0x42, 0, 16, 1ULL << 30, 0x40)).lba48 = true;
  dev.expect_ata(regs(0x42, 0, 300, 5, 0x40)).lba48 = true;  // > 255 sectors needs the EXT form

  std::array<std::uint8_t, 512> b{};
  CHECK(ata::identify_device(dev, b).ok());
  CHECK(b[0] == 0x5A);
  CHECK(ata::identify_packet_device(dev, b).ok());
  CHECK(ata::set_features(dev, ata::kSfEnableAam, 0xFE).ok());
  CHECK(ata::smart_read_data(dev, b).ok());
  CHECK(ata::smart_read_thresholds(dev, b).ok());
  CHECK(ata::check_power_mode(dev).ok());
  std::array<std::uint8_t, 1024> two{};
  CHECK(ata::read_log_ext(dev, 0x30, 0x0102, two).ok());
  CHECK(ata::read_verify(dev, 1000, 16).ok());
  CHECK(ata::read_verify(dev, 1ULL << 30, 16).ok());
  CHECK(ata::read_verify(dev, 5, 300).ok());
  CHECK_MESSAGE(dev.finished(), dev.report());
}

TEST_CASE("ATA command argument errors are not sent") {
  test::ScriptedDevice dev("scripted", TargetKind::ata);
  std::array<std::uint8_t, 100> odd{};
  CHECK(ata::read_log_ext(dev, 0x30, 0, odd).outcome == Outcome::os_error);
  CHECK(ata::read_log_ext(dev, 0x30, 0, {}).outcome == Outcome::os_error);
  CHECK(ata::read_verify(dev, 0, 0).outcome == Outcome::os_error);
  CHECK(ata::read_verify(dev, (1ULL << 48) - 1, 2).outcome == Outcome::os_error);
  CHECK(dev.calls() == 0);
}

TEST_CASE("SMART RETURN STATUS without registers is not reported as healthy") {
  test::ScriptedDevice dev("scripted", TargetKind::ata);
  dev.expect_ata(regs(0xB0, 0xDA, 0, 0xC24F00));  // answers good with no registers
  bool healthy = true;
  auto r = ata::smart_return_status(dev, &healthy);
  CHECK_FALSE(healthy);
  CHECK(r.outcome == Outcome::unsupported);
  CHECK_MESSAGE(dev.finished(), dev.report());
}

TEST_CASE("SCSI commands build the SPC-4 / SBC-3 CDBs") {
  test::ScriptedDevice dev;
  dev.expect_scsi({0x00, 0, 0, 0, 0, 0}).direction = DataDirection::none;
  dev.expect_scsi({0x03, 0, 0, 0, 252, 0}).direction = DataDirection::from_device;
  auto& inq = dev.expect_scsi({0x12, 0, 0, 0x00, 0x60, 0});
  inq.data_length = 96;
  inq.data_in = Bytes{0x00, 0x00, 0x06, 0x12};
  dev.expect_scsi({0x12, 0x01, 0x89, 0x02, 0x38, 0});
  dev.expect_scsi({0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0}).data_length = 8;
  dev.expect_scsi({0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0}).data_length = 32;
  dev.expect_scsi({0x5A, 0, 0x08, 0x00, 0, 0, 0, 0x01, 0x00, 0});
  dev.expect_scsi({0x1A, 0, 0x08, 0x00, 0xFF, 0});
  dev.expect_scsi({0x4D, 0, 0x40 | 0x2F, 0x00, 0, 0, 0, 0x02, 0x00, 0});
  dev.expect_scsi({0x88, 0, 0, 0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0, 0, 0, 2, 0, 0}).data_length = 1024;

  std::array<std::uint8_t, 4096> buf{};
  CHECK(scsi::test_unit_ready(dev).ok());
  CHECK(scsi::request_sense(dev, buf).ok());
  auto r = scsi::inquiry(dev, std::span(buf).first(96));
  CHECK(r.ok());
  CHECK(buf[3] == 0x12);
  CHECK(r.residual == 92);  // the scripted device returned 4 of 96 bytes
  CHECK(scsi::inquiry_vpd(dev, 0x89, std::span(buf).first(0x238)).ok());
  CHECK(scsi::read_capacity10(dev, std::span(buf).first<8>()).ok());
  CHECK(scsi::read_capacity16(dev, std::span(buf).first<32>()).ok());
  CHECK(scsi::mode_sense10(dev, 0x08, 0, std::span(buf).first(256)).ok());
  CHECK(scsi::mode_sense6(dev, 0x08, 0, buf).ok());  // clipped to 255
  CHECK(scsi::log_sense(dev, 0x2F, 0, std::span(buf).first(512)).ok());
  CHECK(scsi::read16(dev, 0x0123456789ABULL, 2, std::span(buf).first(1024)).ok());
  CHECK_MESSAGE(dev.finished(), dev.report());
}

TEST_CASE("SCSI command argument errors are not sent") {
  test::ScriptedDevice dev;
  std::array<std::uint8_t, 1000> buf{};
  CHECK(scsi::inquiry(dev, {}).outcome == Outcome::os_error);
  CHECK(scsi::read16(dev, 0, 0, buf).outcome == Outcome::os_error);
  CHECK(scsi::read16(dev, 0, 3, buf).outcome == Outcome::os_error);  // 1000 bytes is not 3 blocks
  CHECK(dev.calls() == 0);
}

TEST_CASE("REPORT ZONES: ZAC MANAGEMENT IN / REPORT ZONES EXT and ZBC IN / REPORT ZONES, and both pass the allowlist") {
  test::ScriptedDevice ata_dev("scripted", TargetKind::ata);
  auto& z = ata_dev.expect_ata(regs(0x4A, 0x00, 8, 0x123456789ULL, 0x40));
  z.protocol = AtaProtocol::dma_in;
  z.lba48 = true;
  z.data_length = 4096;
  std::array<std::uint8_t, 4096> buf{};
  CHECK(ata::report_zones_ext(ata_dev, 0x123456789ULL, buf).ok());
  CHECK_MESSAGE(ata_dev.finished(), ata_dev.report());
  CHECK(ata::report_zones_ext(ata_dev, 0, std::span(buf).first(100)).outcome == Outcome::os_error);
  CHECK(ata::report_zones_ext(ata_dev, 1ULL << 48, buf).outcome == Outcome::os_error);

  test::ScriptedDevice scsi_dev;
  scsi_dev.expect_scsi({0x95, 0x00, 0, 0, 0, 0, 0x00, 0x08, 0x00, 0x00, 0, 0, 0x10, 0x00, 0, 0}).data_length = 4096;
  CHECK(scsi::report_zones(scsi_dev, 0x80000, buf).ok());
  CHECK_MESSAGE(scsi_dev.finished(), scsi_dev.report());
  CHECK(scsi::report_zones(scsi_dev, 0, std::span(buf).first(63)).outcome == Outcome::os_error);

  // Through the guard (the same wrapping every opened target gets): both reach the device.
  test::ScriptedDevice inner("scripted", TargetKind::ata);
  auto& zi = inner.expect_ata(regs(0x4A, 0x00, 1, 0, 0x40));
  zi.protocol = AtaProtocol::dma_in;
  zi.lba48 = true;
  GuardedDevice guarded(inner);
  CHECK(ata::report_zones_ext(guarded, 0, std::span(buf).first(512)).ok());
  CHECK_MESSAGE(inner.finished(), inner.report());
}
