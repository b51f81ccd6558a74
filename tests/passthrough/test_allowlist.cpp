// The passthrough allowlist (docs/safety.md): every allowed command passes, dangerous ones are
// refused with a message naming them, and GuardedDevice never lets a refused one reach the device.
#include <doctest/doctest.h>

#include <vector>

#include "../support/scripted_device.hpp"
#include "drivescope/commands.hpp"
#include "passthrough/allowlist.hpp"
#include "drivescope/sat.hpp"

using namespace ds;
using Bytes = std::vector<std::uint8_t>;

namespace {

AtaRegisters regs(std::uint8_t cmd, std::uint16_t features = 0, std::uint64_t lba = 0) {
  AtaRegisters r;
  r.command = cmd;
  r.features = features;
  r.lba = lba;
  return r;
}

Bytes pt16(const AtaRegisters& in, AtaProtocol p, bool lba48 = false) {
  static std::array<std::uint8_t, 512> buf{};
  AtaRequest r;
  r.in = in;
  r.protocol = p;
  r.lba48 = lba48;
  if (p != AtaProtocol::non_data) {
    r.in.count = 1;
    r.data = buf;
  }
  auto c = sat::encode_pt16(r);
  return Bytes(c.begin(), c.end());
}

}  // namespace

TEST_CASE("every allowed ATA command passes") {
  const std::vector<AtaRegisters> ok = {
      regs(0xEC), regs(0xA1),
      regs(0xEF, 0x42), regs(0xEF, 0xC2), regs(0xEF, 0x05), regs(0xEF, 0x85),
      regs(0xEF, 0x02), regs(0xEF, 0x82), regs(0xEF, 0xAA), regs(0xEF, 0x55),
      regs(0xB0, 0xD0, 0xC24F00), regs(0xB0, 0xD1, 0xC24F00), regs(0xB0, 0xDA, 0xC24F00),
      regs(0x2F, 0, 0x00), regs(0x2F, 0, 0x30), regs(0x2F, 0, 0x0100000130ULL),  // log 30h, page 0x101
      regs(0xE5), regs(0x40, 0, 1234), regs(0x42, 0, 0x123456789ULL)};
  for (const auto& r : ok) {
    auto v = check_ata(r);
    CHECK_MESSAGE(v.allowed, "command " << int(r.command) << " features " << r.features << ": " << v.reason);
    CHECK(v.reason.empty());
  }
}

TEST_CASE("dangerous ATA commands are refused with a message naming them") {
  struct Case { AtaRegisters r; const char* needle; };
  const std::vector<Case> bad = {
      {regs(0xCA), "WRITE DMA"},
      {regs(0x35), "WRITE DMA EXT"},
      {regs(0xF4), "SECURITY ERASE UNIT"},
      {regs(0x92), "DOWNLOAD MICROCODE"},
      {regs(0xEF, 0x77), "SET FEATURES subcommand 0x77"},
      {regs(0xEF, 0x03), "SET FEATURES subcommand 0x03"},  // set transfer mode
      {regs(0xB0, 0xD4, 0xC24F00), "SMART subcommand 0xd4"},  // EXECUTE OFF-LINE IMMEDIATE
      {regs(0xB0, 0xD6, 0xC24F00), "SMART subcommand 0xd6"},  // WRITE LOG
      {regs(0x2F, 0, 0x10), "log 0x10"},
      {regs(0x3F, 0, 0x30), "WRITE LOG EXT"},
      {regs(0x06, 1), "DATA SET MANAGEMENT"},
      {regs(0x99), "0x99"}};
  for (const auto& c : bad) {
    auto v = check_ata(c.r);
    CHECK_FALSE(v.allowed);
    CHECK_MESSAGE(v.reason.find(c.needle) != std::string::npos, v.reason);
  }
}

TEST_CASE("every allowed SCSI CDB passes") {
  const std::vector<Bytes> ok = {
      {0x00, 0, 0, 0, 0, 0},                          // TEST UNIT READY
      {0x03, 0, 0, 0, 252, 0},                        // REQUEST SENSE
      {0x12, 0, 0, 0, 36, 0},                         // INQUIRY
      {0x12, 1, 0x89, 2, 0, 0},                       // INQUIRY VPD
      {0x1A, 0, 0x08, 0, 0xFF, 0},                    // MODE SENSE(6)
      {0x5A, 0, 0x08, 0, 0, 0, 0, 1, 0, 0},           // MODE SENSE(10)
      {0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0},              // READ CAPACITY(10)
      {0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0},  // READ CAPACITY(16)
      {0x4D, 0, 0x42, 0, 0, 0, 0, 1, 0, 0},           // LOG SENSE
      {0x28, 0, 0, 0, 0, 8, 0, 0, 1, 0},              // READ(10)
      {0x88, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0},  // READ(16)
      pt16(regs(0xEC), AtaProtocol::pio_in),
      pt16(regs(0xEF, 0x42), AtaProtocol::non_data),
      pt16(regs(0xB0, 0xDA, 0xC24F00), AtaProtocol::non_data),
      pt16(regs(0x2F, 0, 0x30), AtaProtocol::pio_in, true),
      pt16(regs(0x42, 0, 5), AtaProtocol::non_data, true),
      {0xa1, 0x08, 0x0e, 0x00, 0x01, 0, 0, 0, 0x00, 0xec, 0, 0},  // PT12 IDENTIFY
  };
  for (const auto& c : ok) {
    auto v = check_scsi(c);
    CHECK_MESSAGE(v.allowed, "opcode " << int(c[0]) << ": " << v.reason);
  }
}

TEST_CASE("dangerous SCSI CDBs are refused") {
  struct Case { Bytes cdb; const char* needle; };
  const std::vector<Case> bad = {
      {{0x2A, 0, 0, 0, 0, 0, 0, 0, 1, 0}, "WRITE(10)"},
      {{0x04, 0, 0, 0, 0, 0}, "FORMAT UNIT"},
      {{0x3B, 0x05, 0, 0, 0, 0, 0, 0x10, 0, 0}, "WRITE BUFFER"},
      {{0x55, 0x10, 0, 0, 0, 0, 0, 0, 20, 0}, "MODE SELECT(10)"},
      {{0x4C, 0x02, 0, 0, 0, 0, 0, 0, 0, 0}, "LOG SELECT"},
      {{0x1B, 0, 0, 0, 0, 0}, "START STOP UNIT"},
      {{0x9E, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0}, "service action 0x12"},
      {{0x4D, 0x01, 0x42, 0, 0, 0, 0, 1, 0, 0}, "SP"},   // LOG SENSE that saves
      {{0x12, 0, 0, 0, 36}, "5-byte CDB"},               // truncated INQUIRY
      {{}, "empty"},
      {pt16(regs(0xCA), AtaProtocol::dma_in), "WRITE DMA"},
      {pt16(regs(0xCA), AtaProtocol::dma_out), "transfers data to the device"},
      {pt16(regs(0xEF, 0x77), AtaProtocol::non_data), "0x77"},
      {pt16(regs(0xB0, 0xD4, 0xC24F00), AtaProtocol::non_data), "SMART subcommand 0xd4"},
      {pt16(regs(0xF4), AtaProtocol::pio_out), "transfers data"},
      // IDENTIFY wrapped in a data-out protocol is refused too (nothing we send writes data).
      {pt16(regs(0xEC), AtaProtocol::pio_out), "transfers data"},
      // Protocol 1 (SRST) around an allowed command.
      {{0x85, 0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xEC, 0}, "protocol 1"},
  };
  for (const auto& c : bad) {
    auto v = check_scsi(c.cdb);
    CHECK_FALSE(v.allowed);
    CHECK_MESSAGE(v.reason.find(c.needle) != std::string::npos, v.reason);
  }
}

TEST_CASE("GuardedDevice: refused commands never reach the inner device") {
  test::ScriptedDevice inner("scripted", TargetKind::ata);  // empty script: any arrival is a problem
  GuardedDevice g(inner);
  std::array<std::uint8_t, 512> buf{};

  CHECK(ata::set_features(g, 0x77).outcome == Outcome::refused);
  auto smart = [&] {
    AtaRequest r;
    r.in = regs(0xB0, 0xD4, 0xC24F00);
    return g.ata(r);
  }();
  CHECK(smart.outcome == Outcome::refused);
  CHECK(smart.message.find("0xd4") != std::string::npos);

  AtaRequest wdma;
  wdma.in = regs(0xCA);
  wdma.in.count = 1;
  wdma.protocol = AtaProtocol::dma_out;
  wdma.data = buf;
  CHECK(g.ata(wdma).outcome == Outcome::refused);

  for (Bytes cdb : {Bytes{0x2A, 0, 0, 0, 0, 0, 0, 0, 1, 0}, Bytes{0x04, 0, 0, 0, 0, 0},
                    pt16(regs(0xCA), AtaProtocol::dma_out), pt16(regs(0x92), AtaProtocol::non_data),
                    pt16(regs(0xF4), AtaProtocol::non_data)}) {
    ScsiRequest s;
    s.cdb = cdb;
    auto r = g.scsi(s);
    CHECK(r.outcome == Outcome::refused);
    CHECK_FALSE(r.message.empty());
  }
  // An allowed opcode with a data-out transfer is refused too.
  ScsiRequest inq_out;
  const Bytes inq{0x12, 0, 0, 0, 36, 0};
  inq_out.cdb = inq;
  inq_out.direction = DataDirection::to_device;
  inq_out.data = std::span(buf).first(36);
  CHECK(g.scsi(inq_out).outcome == Outcome::refused);

  CHECK(inner.calls() == 0);
  CHECK(inner.finished());
}

TEST_CASE("GuardedDevice passes allowed commands through unchanged") {
  auto inner = std::make_unique<test::ScriptedDevice>("scripted", TargetKind::ata);
  auto* raw = inner.get();
  AtaRegisters aam = regs(0xEF, 0x42);
  aam.count = 0x80;
  raw->expect_ata(aam).protocol = AtaProtocol::non_data;
  raw->expect_scsi({0x00, 0, 0, 0, 0, 0});
  GuardedDevice g(std::move(inner));
  CHECK(ata::set_features(g, 0x42, 0x80).ok());
  CHECK(scsi::test_unit_ready(g).ok());
  CHECK_MESSAGE(raw->finished(), raw->report());
  CHECK(g.info().name == "scripted");
}

TEST_CASE("zoned and multi-actuator reads: REPORT ZONES (ZAC and ZBC) and log 47h pass, their writes do not") {
  // ZAC MANAGEMENT IN (4Ah) with the REPORT ZONES EXT action (FEATURE 7:0 = 00h), reporting
  // option in FEATURE 15:8; READ LOG EXT of log 47h, page 0.
  for (const auto& r : {regs(0x4A, 0x0000, 0), regs(0x4A, 0x3F00, 0x1000), regs(0x2F, 0, 0x47)}) {
    auto v = check_ata(r);
    CHECK_MESSAGE(v.allowed, "command " << int(r.command) << ": " << v.reason);
  }
  CHECK(check_scsi(pt16(regs(0x4A, 0, 0), AtaProtocol::dma_in, true)).allowed);
  CHECK(check_scsi(pt16(regs(0x2F, 0, 0x47), AtaProtocol::pio_in, true)).allowed);
  // ZBC IN (95h) / REPORT ZONES (service action 00h): 16-byte CDB, allocation length in 10..13.
  const Bytes report_zones{0x95, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0};
  CHECK(check_scsi(report_zones).allowed);
  ScsiRequest req;
  req.cdb = report_zones;
  req.direction = DataDirection::from_device;
  CHECK(check_scsi_request(req).allowed);

  struct Case { Bytes cdb; const char* needle; };
  const std::vector<Case> bad = {
      // ZBC OUT (94h): RESET WRITE POINTER (04h) destroys the zone's data.
      {{0x94, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0}, "ZBC OUT"},
      {{0x95, 0x06, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0}, "ZBC IN service action 0x06"},
      {{0x95, 0x00, 0, 0, 0, 0, 0, 0, 0, 0}, "10-byte CDB"},
      // ZAC MANAGEMENT OUT (9Fh) action 04h RESET WRITE POINTER EXT, even as non-data.
      {pt16(regs(0x9F, 0x04), AtaProtocol::non_data, true), "ZAC MANAGEMENT OUT"},
      {pt16(regs(0x4A, 0x06), AtaProtocol::dma_in, true), "ZAC MANAGEMENT IN action 0x06"},
      {pt16(regs(0x4A, 0x00), AtaProtocol::dma_out, true), "transfers data"},
      {pt16(regs(0x2F, 0, 0x48), AtaProtocol::pio_in, true), "log 0x48"},
  };
  for (const auto& c : bad) {
    auto v = check_scsi(c.cdb);
    CHECK_FALSE(v.allowed);
    CHECK_MESSAGE(v.reason.find(c.needle) != std::string::npos, v.reason);
  }
  CHECK_FALSE(check_ata(regs(0x9F, 0x04)).allowed);
}
