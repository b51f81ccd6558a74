// SatDevice over the simulator: the simulated ATA drive answers ATA PASS-THROUGH (12) and (16)
// as a SATL does, so the SAT layer's whole round trip (CDB encoding, sense decoding, CK_COND,
// the 12-byte fallback) runs here without a VM. Every answer through SAT is compared with the
// same command sent to the simulated drive's ATA interface directly, on a second drive of the
// same model and seed.
#include <array>

#include "drivescope/commands.hpp"
#include "drivescope/opcodes.hpp"
#include "passthrough/sat_device.hpp"
#include "sim/drive.hpp"
#include "sim_test_util.hpp"

namespace {

ds::sim::SimTarget open_preset(const char* name) {
  auto t = ds::sim::open(name);
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  return std::move(*t);
}

}  // namespace

TEST_CASE("SAT over the simulator: IDENTIFY DEVICE and SMART READ DATA arrive as the drive gives them") {
  for (const auto size : {ds::SatCdbSize::pt16, ds::SatCdbSize::pt12}) {
    auto via = open_preset("sim:raptor");
    auto direct = open_preset("sim:raptor");
    ds::SatDevice sat(*via.device, size);
    std::array<std::uint8_t, 512> a{}, b{};
    const auto r = ds::ata::identify_device(sat, a);
    CHECK(r.ok());
    REQUIRE(ds::ata::identify_device(*direct.device, b).ok());
    CHECK(a == b);
    CHECK(a[0] != 0);  // (not an untouched buffer)
    a.fill(0);
    b.fill(0);
    CHECK(ds::ata::smart_read_data(sat, a).ok());
    REQUIRE(ds::ata::smart_read_data(*direct.device, b).ok());
    CHECK(a == b);
    CHECK(sat.cdb_size() == size);
  }
}

TEST_CASE("SAT over the simulator: non-data commands return their registers through CK_COND") {
  auto t = open_preset("sim:raptor");
  ds::SatDevice sat(*t.device);
  const auto power = ds::ata::check_power_mode(sat);
  REQUIRE(power.ok());
  REQUIRE(power.ata.has_value());
  CHECK(power.ata->count == 0xFF);  // active or idle
  bool healthy = false;
  const auto smart = ds::ata::smart_return_status(sat, &healthy);
  CHECK(smart.ok());
  CHECK(healthy);
}

TEST_CASE("SAT over the simulator: SET FEATURES reaches the drive (write cache, AAM)") {
  auto t = open_preset("sim:raptor");
  ds::SatDevice sat(*t.device);
  REQUIRE(t.drive->write_cache());
  CHECK(ds::ata::set_features(sat, ds::ata::kSfDisableWriteCache).ok());
  CHECK_FALSE(t.drive->write_cache());
  CHECK(ds::ata::set_features(sat, ds::ata::kSfEnableWriteCache).ok());
  CHECK(t.drive->write_cache());
  CHECK(ds::ata::set_features(sat, ds::ata::kSfEnableAam, 128).ok());
  CHECK(t.drive->aam_level() == 128);
}

TEST_CASE("SAT over the simulator: an aborted command comes back as ABORTED COMMAND with its registers") {
  auto t = open_preset("sim:raptor");
  ds::SatDevice sat(*t.device);
  std::array<std::uint8_t, 512> log{};
  const auto r = ds::ata::read_log_ext(sat, 0x04, 0, log);  // a log the simulator does not keep
  CHECK_FALSE(r.ok());
  REQUIRE(r.ata.has_value());
  CHECK(r.ata->aborted());
  CHECK(r.sense.size() >= 22);
  CHECK((r.sense[1] & 0x0F) == 0x0B);  // ABORTED COMMAND
}

TEST_CASE("SAT over the simulator: a SCSI drive has no ATA PASS-THROUGH") {
  auto t = open_preset("sim:cheetah15k3");
  REQUIRE(t.model.transport == ds::sim::Transport::scsi);
  ds::SatDevice sat(*t.device);
  std::array<std::uint8_t, 512> id{};
  const auto r = ds::ata::identify_device(sat, id);
  CHECK_FALSE(r.ok());
  CHECK(r.outcome == ds::Outcome::check_condition);
  CHECK(sat.cdb_size() == ds::SatCdbSize::pt12);  // it tried the 12-byte CDB too
}
