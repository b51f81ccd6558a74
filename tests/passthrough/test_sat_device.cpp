// SatDevice over a ScriptedDevice: the CDBs it sends, how it reads the registers back, and how it
// turns SATL answers into outcomes. Unguarded on purpose (the aborted SET FEATURES 0x77 case would
// be refused by the allowlist before reaching the SAT layer).
#include <doctest/doctest.h>

#include <vector>

#include "../support/scripted_device.hpp"
#include "drivescope/commands.hpp"
#include "passthrough/sat_device.hpp"

using namespace ds;
using Bytes = std::vector<std::uint8_t>;

namespace {

// A canned IDENTIFY block: word 0 = 0x0040 (fixed device), model "DRIVESCOPE TEST" in words 27..46
// (byte-swapped pairs as ATA strings are), checksum 0xA5 signature in word 255 low byte.
Bytes canned_identify() {
  Bytes b(512, 0);
  b[0] = 0x40;
  const std::string model = "RDVIESOC EPETTS";  // "DRIVESCOPE TEST" with each byte pair swapped
  for (std::size_t i = 0; i < model.size(); ++i) b[54 + i] = static_cast<std::uint8_t>(model[i]);
  b[510] = 0xA5;
  std::uint8_t sum = 0;
  for (int i = 0; i < 511; ++i) sum = static_cast<std::uint8_t>(sum + b[i]);
  b[511] = static_cast<std::uint8_t>(-sum);
  return b;
}

const Bytes kInvalidOpcodeSense{0x70, 0, 0x05, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x20, 0x00, 0, 0, 0, 0};

}  // namespace

TEST_CASE("IDENTIFY through SAT: PT16 CDB, 512 bytes back, good") {
  test::ScriptedDevice sg;
  auto& st = sg.expect_scsi({0x85, 0x08, 0x0e, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xec, 0});
  st.direction = DataDirection::from_device;
  st.data_length = 512;
  st.data_in = canned_identify();
  SatDevice sat(sg);
  CHECK(sat.info().kind == TargetKind::ata);
  CHECK(sat.info().ata_capable);
  std::array<std::uint8_t, 512> out{};
  auto r = ata::identify_device(sat, out);
  CHECK(r.ok());
  CHECK(r.outcome == Outcome::good);
  CHECK(Bytes(out.begin(), out.end()) == canned_identify());
  CHECK_FALSE(r.ata.has_value());  // data command without CK_COND: no registers
  CHECK_MESSAGE(sg.finished(), sg.report());
}

TEST_CASE("an aborted SET FEATURES 0x77 is decoded as an ATA abort") {
  test::ScriptedDevice sg;
  // Non-data with CK_COND (2c). libata answers an ATA error with ABORTED COMMAND and the ATA
  // Status Return descriptor: STATUS 51h (DRDY|DSC|ERR), ERROR 04h (ABRT).
  sg.expect_scsi({0x85, 0x06, 0x2c, 0, 0x77, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xef, 0}).result =
      test::check_condition(test::ata_status_sense(0x51, 0x04, 0x0B, 0x00, 0x00));
  SatDevice sat(sg);
  auto r = ata::set_features(sat, 0x77);
  CHECK_FALSE(r.ok());
  CHECK(r.outcome == Outcome::check_condition);
  REQUIRE(r.ata.has_value());
  CHECK(r.ata->aborted());
  CHECK(r.ata->status == 0x51);
  CHECK(r.message == "ATA command aborted by the device (error 0x04)");
  CHECK(r.sense.size() == 22);  // sense kept
  CHECK_MESSAGE(sg.finished(), sg.report());
}

TEST_CASE("a CHECK CONDITION that only carries the ATA status return is success") {
  test::ScriptedDevice sg;
  sg.expect_scsi({0x85, 0x06, 0x2c, 0, 0x42, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0xef, 0}).result =
      test::check_condition(test::ata_status_sense(0x50, 0x00));
  SatDevice sat(sg);
  auto r = ata::set_features(sat, ata::kSfEnableAam, 0x80);
  CHECK(r.ok());
  CHECK(r.outcome == Outcome::good);
  CHECK(r.message.empty());
  REQUIRE(r.ata.has_value());
  CHECK(r.ata->status == 0x50);
  CHECK_FALSE(r.sense.empty());
  CHECK_MESSAGE(sg.finished(), sg.report());
}

TEST_CASE("SMART RETURN STATUS and CHECK POWER MODE answer in the registers") {
  test::ScriptedDevice sg;
  const Bytes smart_cdb{0x85, 0x06, 0x2c, 0, 0xda, 0, 0, 0, 0, 0, 0x4f, 0, 0xc2, 0, 0xb0, 0};
  sg.expect_scsi(smart_cdb).result = test::check_condition(test::ata_status_sense(0x50, 0, 1, 0, 0x1d, 0, 0xC24F00));
  sg.expect_scsi(smart_cdb).result = test::check_condition(test::ata_status_sense(0x50, 0, 1, 0, 0x1d, 0, 0x2CF400));
  sg.expect_scsi({0x85, 0x06, 0x2c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xe5, 0}).result =
      test::check_condition(test::ata_status_sense(0x50, 0, 1, 0, 0x1d, 0xFF));
  SatDevice sat(sg);
  bool healthy = false;
  CHECK(ata::smart_return_status(sat, &healthy).ok());
  CHECK(healthy);
  auto bad = ata::smart_return_status(sat, &healthy);
  CHECK_FALSE(healthy);
  CHECK(bad.message.find("threshold") != std::string::npos);
  auto pm = ata::check_power_mode(sat);
  CHECK(pm.ok());
  REQUIRE(pm.ata.has_value());
  CHECK(pm.ata->count == 0xFF);  // active or idle
  CHECK_MESSAGE(sg.finished(), sg.report());
}

TEST_CASE("fixed-format sense with the registers (SAT-3 12.2.2.7) is read too") {
  test::ScriptedDevice sg;
  sg.expect_scsi({0x85, 0x06, 0x2c, 0, 0xda, 0, 0, 0, 0, 0, 0x4f, 0, 0xc2, 0, 0xb0, 0}).result =
      test::check_condition({0x70, 0, 0x01, 0x00, 0x50, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x4f, 0xc2, 0x00, 0x1d, 0, 0, 0, 0});
  SatDevice sat(sg);
  bool healthy = false;
  auto r = ata::smart_return_status(sat, &healthy);
  CHECK(r.ok());
  CHECK(healthy);
  CHECK_MESSAGE(sg.finished(), sg.report());
}

TEST_CASE("PT16 rejected as an invalid opcode: fall back to PT12 and stay there") {
  test::ScriptedDevice sg;
  sg.expect_scsi({0x85, 0x08, 0x0e, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xec, 0}).result =
      test::check_condition(kInvalidOpcodeSense);
  sg.expect_scsi({0xa1, 0x08, 0x0e, 0x00, 0x01, 0, 0, 0, 0x00, 0xec, 0, 0}).data_in = canned_identify();
  sg.expect_scsi({0xa1, 0x06, 0x2c, 0x02, 0x00, 0, 0, 0, 0x00, 0xef, 0, 0}).result =
      test::check_condition(test::ata_status_sense(0x50, 0));
  // A 48-bit command still needs the 16-byte CDB.
  sg.expect_scsi({0x85, 0x09, 0x0e, 0, 0, 0, 1, 0, 0x30, 0, 0, 0, 0, 0, 0x2f, 0}).data_in = Bytes(512, 0x11);
  SatDevice sat(sg);
  std::array<std::uint8_t, 512> out{};
  auto r = ata::identify_device(sat, out);
  CHECK(r.ok());
  CHECK(out[510] == 0xA5);
  CHECK(sat.cdb_size() == SatCdbSize::pt12);
  CHECK(ata::set_features(sat, ata::kSfEnableWriteCache).ok());
  CHECK(ata::read_log_ext(sat, 0x30, 0, out).ok());
  CHECK(out[0] == 0x11);
  CHECK_MESSAGE(sg.finished(), sg.report());
}

TEST_CASE("other CHECK CONDITIONs keep their sense and get a decoded message") {
  test::ScriptedDevice sg;
  // ILLEGAL REQUEST / INVALID FIELD IN CDB: no ATA registers, so no r.ata and no success.
  sg.expect_scsi({0x85, 0x06, 0x2c, 0, 0x42, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0xef, 0}).result =
      test::check_condition({0x72, 0x05, 0x24, 0x00, 0, 0, 0, 0});
  SatDevice sat(sg);
  auto r = ata::set_features(sat, ata::kSfEnableAam, 0x80);
  CHECK(r.outcome == Outcome::check_condition);
  CHECK_FALSE(r.ata.has_value());
  CHECK(r.message.find("Illegal Request") != std::string::npos);
  CHECK_MESSAGE(sg.finished(), sg.report());
}

TEST_CASE("an ATA error that is not an abort says status and error") {
  test::ScriptedDevice sg;
  sg.expect_scsi({0x85, 0x06, 0x2c, 0, 0, 0, 8, 0, 0x10, 0, 0, 0, 0, 0x40, 0x40, 0}).result =
      test::check_condition(test::ata_status_sense(0x51, 0x40, 0x03, 0x11, 0x04));  // UNC
  SatDevice sat(sg);
  auto r = ata::read_verify(sat, 0x10, 8);
  CHECK_FALSE(r.ok());
  REQUIRE(r.ata.has_value());
  CHECK_FALSE(r.ata->aborted());
  CHECK(r.message == "ATA command 0x40 failed: status 0x51, error 0x40");
  CHECK_MESSAGE(sg.finished(), sg.report());
}

TEST_CASE("invalid requests are not sent") {
  test::ScriptedDevice sg;
  SatDevice sat(sg);
  std::array<std::uint8_t, 512> buf{};
  AtaRequest r;
  r.in.command = 0xEC;
  r.in.count = 2;  // but one block of buffer
  r.protocol = AtaProtocol::pio_in;
  r.data = buf;
  auto res = sat.ata(r);
  CHECK(res.outcome == Outcome::os_error);
  CHECK(res.message.find("count 2") != std::string::npos);
  CHECK(sg.calls() == 0);
  // scsi() passes straight through.
  sg.expect_scsi({0x00, 0, 0, 0, 0, 0});
  CHECK(scsi::test_unit_ready(sat).ok());
  CHECK_MESSAGE(sg.finished(), sg.report());
}
