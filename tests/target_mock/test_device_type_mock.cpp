// open_target's -d choices and --trace on the real-device path (/dev/sdX, /dev/sgN), against the
// sg_pt stand-in (tests/passthrough_mock/sg_pt_mock.hpp): which interface a drive gets when the
// SCSI layer says "ATA" or not, what -d sat / scsi / ata change, and what the trace records of
// the commands that went down.
#include <doctest/doctest.h>
#include <scsi/sg_pt.h>

#include <array>
#include <string>
#include <vector>

#include "app/identify.hpp"
#include "app/target.hpp"
#include "drivescope/commands.hpp"
#include "passthrough_mock/sg_pt_mock.hpp"

using namespace ds;

namespace {

constexpr const char* kPath = "/dev/null";  // a character device; the stand-in does the rest

// Standard INQUIRY data (SPC-4 6.6.2) with the given vendor; the same bytes answer every command.
void answer_inquiry_as(const char* vendor) {
  sgmock::reset();
  auto& s = sgmock::script();
  s.category = SCSI_PT_RESULT_GOOD;
  s.data_in.assign(96, 0);
  s.data_in[4] = 91;
  for (int i = 0; i < 8; ++i) s.data_in[8 + i] = static_cast<std::uint8_t>(vendor[i] ? vendor[i] : ' ');
}

Expected<app::Target> open_as(app::DeviceType type, app::TraceSink trace = {}) {
  return app::open_target(kPath, {.device = {.type = type, .trace = std::move(trace)}});
}

}  // namespace

TEST_CASE("-d auto: a drive the SCSI layer calls ATA gets SAT; another vendor stays SCSI") {
  answer_inquiry_as("ATA     ");
  auto t = open_as(app::DeviceType::autodetect);
  REQUIRE(t.ok());
  CHECK(t->kind == TargetKind::ata);
  CHECK(t->device->info().ata_capable);
  answer_inquiry_as("SEAGATE ");
  auto s = open_as(app::DeviceType::autodetect);
  REQUIRE(s.ok());
  CHECK(s->kind == TargetKind::scsi);
  CHECK_FALSE(s->device->info().ata_capable);
}

TEST_CASE("-d scsi: an ATA drive is used as a SCSI disk, and no probe is sent to find out") {
  answer_inquiry_as("ATA     ");
  auto t = open_as(app::DeviceType::scsi);
  REQUIRE(t.ok());
  CHECK(t->kind == TargetKind::scsi);
  CHECK_FALSE(t->device->info().ata_capable);
  CHECK(sgmock::script().commands == 0);
  std::array<std::uint8_t, 512> id{};
  CHECK(ata::identify_device(*t->device, id).outcome == Outcome::unsupported);
}

TEST_CASE("-d sat: ATA PASS-THROUGH even where autodetect would not use it; IDENTIFY goes as 85h/ECh") {
  answer_inquiry_as("SEAGATE ");
  auto t = open_as(app::DeviceType::sat);
  REQUIRE(t.ok());
  CHECK(t->kind == TargetKind::ata);
  CHECK(sgmock::script().commands == 0);  // forced: no INQUIRY, no VPD 89h
  std::array<std::uint8_t, 512> id{};
  ata::identify_device(*t->device, id);
  REQUIRE(sgmock::script().cdb.size() == 16);
  CHECK(sgmock::script().cdb[0] == 0x85);
  CHECK(sgmock::script().cdb[14] == 0xec);
}

TEST_CASE("-d ata on a real device is a usage error that points to -d sat") {
  answer_inquiry_as("ATA     ");
  auto t = open_as(app::DeviceType::ata);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().code == app::kUsageErrorCode);
  CHECK(t.error().message.find("-d sat") != std::string::npos);
}

TEST_CASE("--trace on a real device: the autodetect probe and a failing command, CDB, sense decoded") {
  answer_inquiry_as("ATA     ");
  std::vector<app::CommandTrace> seen;
  auto t = open_as(app::DeviceType::autodetect, [&seen](const app::CommandTrace& c) { seen.push_back(c); });
  REQUIRE(t.ok());
  REQUIRE(seen.size() == 1);  // the INQUIRY that found "ATA"
  CHECK(seen[0].cdb.at(0) == 0x12);
  CHECK(seen[0].name == "INQUIRY");
  CHECK(seen[0].direction == DataDirection::from_device);
  CHECK(seen[0].outcome == Outcome::good);
  CHECK(seen[0].number == 1);
  // The drive refuses the next command: ILLEGAL REQUEST, INVALID FIELD IN CDB (24h/00h), fixed format.
  auto& s = sgmock::script();
  s.category = SCSI_PT_RESULT_SENSE;
  s.status = 0x02;
  s.sense = {0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x24, 0x00, 0, 0, 0, 0};
  std::array<std::uint8_t, 512> id{};
  ata::identify_device(*t->device, id);
  REQUIRE(seen.size() == 2);
  const auto& c = seen[1];
  CHECK(c.number == 2);
  CHECK(c.cdb.size() == 16);
  CHECK(c.cdb.at(0) == 0x85);
  CHECK(c.name == "ATA PASS-THROUGH(16): IDENTIFY DEVICE");
  CHECK(c.length == 512);
  CHECK(c.outcome == Outcome::check_condition);
  CHECK(c.scsi_status == 0x02);
  REQUIRE(c.sense_decoded.has_value());
  CHECK(c.sense_decoded->key == 0x05);
  CHECK(c.sense_decoded->asc == 0x24);
  CHECK(c.sense_decoded->ascq == 0x00);
  CHECK(c.sense == s.sense);
  CHECK(c.duration.count() > 0);
}
