// `scan` per drive (app/scan.hpp): a drive in standby gets CHECK POWER MODE and nothing else, an
// awake one is identified, and the bench skips a drive in use unless --force-busy.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "app/scan.hpp"
#include "drivescope/opcodes.hpp"
#include "passthrough/allowlist.hpp"

using namespace ds;

namespace {

// An ATA drive that answers CHECK POWER MODE with `mode` and fails everything else, recording
// every command that reached it (through the allowlist, as a real target's would).
class PowerModeDrive final : public Device {
 public:
  explicit PowerModeDrive(std::uint8_t mode) : mode_(mode) {
    info_.name = "fake";
    info_.kind = TargetKind::ata;
    info_.ata_capable = true;
  }
  const DeviceInfo& info() const override { return info_; }
  CommandResult ata(const AtaRequest& req) override {
    sent.push_back(req.in.command);
    CommandResult r;
    r.ata = AtaOutput{};
    if (req.in.command == ata::kCheckPowerMode) {
      r.ata->count = mode_;
    } else {
      r.outcome = Outcome::check_condition;
      r.message = "aborted";
    }
    return r;
  }
  std::vector<std::uint8_t> sent;

 private:
  DeviceInfo info_;
  std::uint8_t mode_;
};

app::Target fake_target(PowerModeDrive*& raw, std::uint8_t mode) {
  auto drive = std::make_unique<PowerModeDrive>(mode);
  raw = drive.get();
  app::Target t;
  t.spec = "fake:drive";
  t.kind = TargetKind::ata;
  t.device = std::make_unique<GuardedDevice>(std::move(drive));
  return t;
}

}  // namespace

TEST_CASE("scan: CHECK POWER MODE answers, by ACS-3's count values") {
  CHECK(app::power_mode_name(0x00) == "standby");
  CHECK(app::power_mode_name(0x01) == "standby");
  CHECK(app::power_mode_name(0x80) == "idle");
  CHECK(app::power_mode_name(0x83) == "idle");
  CHECK(app::power_mode_name(0xFF) == "active_or_idle");
  CHECK(app::power_mode_name(0x40) == "unknown");
  CHECK(app::power_mode_is_standby(0x00));
  CHECK_FALSE(app::power_mode_is_standby(0xFF));
  CHECK_FALSE(app::power_mode_is_standby(0x80));
}

TEST_CASE("scan: a drive in standby is sent CHECK POWER MODE only, and reported skipped") {
  for (std::uint8_t mode : {std::uint8_t{0x00}, std::uint8_t{0x01}}) {
    CAPTURE(int(mode));
    PowerModeDrive* raw = nullptr;
    auto t = fake_target(raw, mode);
    app::ScanRequest req;
    req.bench_s = 5;  // asked for, but a sleeping drive is not woken for it either
    auto r = app::scan_target(t, std::nullopt, req);
    REQUIRE(raw->sent.size() == 1);
    CHECK(raw->sent[0] == ata::kCheckPowerMode);
    CHECK(r.json["scan"]["status"] == "skipped");
    CHECK(r.json["scan"]["power_mode"] == "standby");
    CHECK_FALSE(r.json.contains("identify"));
    CHECK_FALSE(r.json.contains("tests"));
    CHECK(r.exit_code == app::kExitOk);
  }
}

TEST_CASE("scan: an awake drive goes on to IDENTIFY (and this one's failure is reported)") {
  PowerModeDrive* raw = nullptr;
  auto t = fake_target(raw, 0xFF);
  auto r = app::scan_target(t, std::nullopt, {});
  REQUIRE(raw->sent.size() >= 2);
  CHECK(raw->sent[0] == ata::kCheckPowerMode);
  CHECK(raw->sent[1] == ata::kIdentifyDevice);
  CHECK(r.json["scan"]["status"] == "failed");
  CHECK(r.exit_code == app::kExitFailure);
  CHECK_FALSE(r.warnings.empty());
}

TEST_CASE("scan: the bench skips a drive in use unless force_busy") {
  sysfs::DriveFacts busy;
  busy.name = "sdz";
  busy.mountpoints = {"/srv"};
  REQUIRE(busy.in_use());
  app::ScanRequest req;
  req.bench_s = 1;
  auto t = app::open_target("sim:raptor", {});
  REQUIRE(t);
  auto skipped = app::scan_target(*t, busy, req);
  CHECK(skipped.json["scan"]["status"] == "ok");
  CHECK(skipped.json["scan"]["in_use"] == true);
  CHECK(skipped.json["scan"]["bench"]["status"] == "skipped");
  CHECK(skipped.json["scan"]["bench"]["reason"].get<std::string>().find("--force-busy") != std::string::npos);
  CHECK_FALSE(skipped.json.contains("tests"));
  CHECK(skipped.json["identify"].is_object());

  req.force_busy = true;
  auto t2 = app::open_target("sim:raptor", {});
  REQUIRE(t2);
  auto done = app::scan_target(*t2, busy, req);
  CHECK(done.json["scan"]["bench"]["status"] == "done");
  REQUIRE(done.json.contains("tests"));
  CHECK(done.json["tests"]["access"].is_object());
  CHECK(done.json["tests"]["transfer"].is_object());
}

TEST_CASE("scan: the health verdict from ATA SMART, or from an NVMe drive's health log") {
  using nlohmann::json;
  // ATA: smartctl's overall status as identify decoded it.
  const json ata = app::scan_health({{"smart", {{"available", true}, {"enabled", true}, {"status_good", false}}}});
  CHECK(ata["passed"] == false);
  CHECK_FALSE(ata.contains("source"));
  // NVMe: passed while no Critical Warning bit is set; a bit set fails it and is named.
  json id = {{"nvme", {{"health", {{"critical_warning", 0}, {"critical_warnings", json::array()}}}}}};
  json h = app::scan_health(id);
  CHECK(h["passed"] == true);
  CHECK(h["source"] == "nvme health log");
  CHECK(h["overall"] == "no critical warning");
  id["nvme"]["health"] = {{"critical_warning", 9}, {"critical_warnings", {"spare_below_threshold", "read_only"}}};
  h = app::scan_health(id);
  CHECK(h["passed"] == false);
  CHECK(h["overall"] == "critical warning: spare_below_threshold read_only");
  // The log not read (null), damaged (a string), or no block at all: no verdict, never a pass.
  for (const json& health : {json(), json{{"critical_warning", "0"}}, json::object()}) {
    id["nvme"]["health"] = health;
    CHECK(app::scan_health(id).is_null());
  }
  CHECK(app::scan_health(json::object()).is_null());
}
