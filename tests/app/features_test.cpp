// Feature control (src/app/features) and the restore machinery (src/app/restore) on the
// simulated drive and on a QEMU-like fake ATA device that accepts SET FEATURES AAM as a no-op and
// never reports AAM in IDENTIFY (what the QEMU recipe behind tests/vm measured).
#include <doctest/doctest.h>

#include <unistd.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "app/features.hpp"
#include "app/restore.hpp"
#include "app/target.hpp"
#include "drivescope/commands.hpp"

using namespace ds;
using namespace ds::app;
namespace fs = std::filesystem;

namespace {

// QEMU's IDE core as the VM recipe describes it: AAM accepted and ignored, write cache and
// look-ahead reported in w85, anything else aborted.
class QemuLikeAta final : public Device {
 public:
  QemuLikeAta() {
    info_.name = "qemu-like";
    info_.kind = TargetKind::ata;
    info_.ata_capable = info_.scsi_capable = true;
  }
  const DeviceInfo& info() const override { return info_; }
  CommandResult ata(const AtaRequest& req) override {
    CommandResult r;
    r.ata = AtaOutput{.status = 0x50};
    if (req.in.command == ata::kIdentifyDevice) {
      std::array<std::uint16_t, 256> w{};
      w[82] = 0x0060;                         // write cache, look-ahead supported
      w[83] = 0x4000;                         // valid; bit 9 (AAM) clear
      w[85] = (wc_ ? 0x20 : 0) | (la_ ? 0x40 : 0);
      w[86] = 0x0000;
      std::memcpy(req.data.data(), w.data(), 512);
      return r;
    }
    if (req.in.command == ata::kSetFeatures) {
      switch (req.in.features & 0xFF) {
        case ata::kSfEnableAam: case ata::kSfDisableAam: ++aam_commands; return r;
        case ata::kSfEnableWriteCache: wc_ = true; return r;
        case ata::kSfDisableWriteCache: wc_ = false; return r;
        case ata::kSfEnableLookAhead: la_ = true; return r;
        case ata::kSfDisableLookAhead: la_ = false; return r;
        default: break;
      }
    }
    r.outcome = Outcome::check_condition;
    r.ata = AtaOutput{.error = 0x04, .status = 0x51};
    r.message = "ATA command aborted by the device (error 0x04)";
    return r;
  }
  int aam_commands = 0;
  bool wc_ = true, la_ = true;

 private:
  DeviceInfo info_;
};

fs::path temp_dir(const char* tag) {
  fs::path d = fs::temp_directory_path() / ("ds-feat-" + std::string(tag) + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("feature values parse with range checks") {
  CHECK(parse_feature_value(FeatureId::aam, "quiet")->level == 128u);
  CHECK(parse_feature_value(FeatureId::aam, "fast")->level == 254u);
  CHECK_FALSE(parse_feature_value(FeatureId::aam, "off")->enabled);
  CHECK(parse_feature_value(FeatureId::aam, "200")->level == 200u);
  CHECK_FALSE(parse_feature_value(FeatureId::aam, "127"));
  CHECK_FALSE(parse_feature_value(FeatureId::aam, "255"));
  CHECK_FALSE(parse_feature_value(FeatureId::aam, "loud"));
  CHECK_FALSE(parse_feature_value(FeatureId::apm, "0"));
  CHECK(parse_feature_value(FeatureId::write_cache, "on")->enabled);
  CHECK_FALSE(parse_feature_value(FeatureId::write_cache, "maybe"));
  CHECK_FALSE(parse_feature_value(FeatureId::scheduler, "../../etc"));
  CHECK(parse_feature_id("write_cache") == FeatureId::write_cache);
  CHECK_FALSE(parse_feature_id("turbo"));
}

TEST_CASE("simulated drive: AAM and write cache set and verified from IDENTIFY") {
  auto t = open_target("sim:maxline3", {});
  REQUIRE(t);
  FeatureControl fc = feature_control(*t);
  auto r = fc.read(FeatureId::aam);
  REQUIRE(r);
  REQUIRE(r->value);
  CHECK(r->value->level == 254u);
  auto s = fc.set(FeatureId::aam, *parse_feature_value(FeatureId::aam, "quiet"));
  REQUIRE(s);
  CHECK(s->verification == Verification::verified);
  CHECK(fc.read(FeatureId::aam)->value->level == 128u);
  auto w = fc.set(FeatureId::write_cache, FeatureValue{.enabled = false});
  REQUIRE(w);
  CHECK(w->verification == Verification::verified);
  CHECK_FALSE(fc.read(FeatureId::write_cache)->value->enabled);
  // A drive without AAM rejects it: the decoded abort comes back as the error.
  auto t8 = open_target("sim:modern8tb", {});
  REQUIRE(t8);
  FeatureControl fc8 = feature_control(*t8);
  auto bad = fc8.set(FeatureId::aam, FeatureValue{true, 128u, {}});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("rejected") != std::string::npos);
  CHECK(bad.error().message.find("aborted") != std::string::npos);
  // The scheduler is a block-layer setting: a simulated drive has none.
  CHECK_FALSE(fc.read(FeatureId::scheduler));
}

TEST_CASE("QEMU-like drive: AAM accepted but not reported, write cache read back") {
  QemuLikeAta dev;
  FeatureControl fc(&dev, "");
  auto s = fc.set(FeatureId::aam, FeatureValue{true, 128u, {}});
  REQUIRE(s);
  CHECK(dev.aam_commands == 1);
  CHECK(s->verification == Verification::not_reported);
  CHECK(s->message ==
        "the drive accepted SET FEATURES but IDENTIFY does not report AAM, so the new level cannot be verified");
  auto w = fc.set(FeatureId::write_cache, FeatureValue{.enabled = false});
  REQUIRE(w);
  CHECK(w->verification == Verification::verified);
  CHECK_FALSE(dev.wc_);
  auto apm = fc.set(FeatureId::apm, FeatureValue{true, 128u, {}});
  REQUIRE_FALSE(apm);
  CHECK(apm.error().message.find("ATA command aborted by the device (error 0x04)") != std::string::npos);
  // The guard refuses to change what it could not put back: AAM's original is unknown here.
  RestoreStack stack(fc, RestoreState{.target = "qemu"}, std::nullopt);
  auto c = stack.change(FeatureId::aam, FeatureValue{true, 128u, {}});
  REQUIRE_FALSE(c);
  CHECK(c.error().message.find("refusing") != std::string::npos);
  CHECK(dev.aam_commands == 1);  // nothing was sent
}

TEST_CASE("RestoreStack puts features back on a normal end, an error return and an exception") {
  auto t = open_target("sim:maxline3", {});
  REQUIRE(t);
  FeatureControl fc = feature_control(*t);
  const fs::path dir = temp_dir("stack");
  const fs::path file = dir / "state-sim.json";
  {
    RestoreStack stack(fc, RestoreState{.target = "sim:maxline3", .kind = "sim"}, file, /*keep=*/true);
    REQUIRE(stack.change(FeatureId::aam, FeatureValue{true, 128u, {}}));
    REQUIRE(stack.change(FeatureId::write_cache, FeatureValue{.enabled = false}));
    // The file records the originals before anything is put back.
    auto st = read_state_file(file);
    REQUIRE(st);
    CHECK(st->status == "active");
    REQUIRE(st->settings.size() == 2);
    CHECK(st->settings[0].original.level == 254u);
    CHECK(st->settings[1].original.enabled);
    CHECK(fc.read(FeatureId::aam)->value->level == 128u);
  }  // normal end: destructor
  CHECK(fc.read(FeatureId::aam)->value->level == 254u);
  CHECK(fc.read(FeatureId::write_cache)->value->enabled);
  auto st = read_state_file(file);
  REQUIRE(st);
  CHECK(st->status == "restored");
  CHECK(st->settings[0].status == "restored");

  // An exception unwinding through the stack.
  fs::remove(file);
  try {
    RestoreStack stack(fc, RestoreState{.target = "sim:maxline3", .kind = "sim"}, file);
    REQUIRE(stack.change(FeatureId::read_ahead, FeatureValue{.enabled = false}));
    CHECK_FALSE(fc.read(FeatureId::read_ahead)->value->enabled);
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  CHECK(fc.read(FeatureId::read_ahead)->value->enabled);
  CHECK_FALSE(fs::exists(file));  // removed after a clean restore (no keep)
  fs::remove_all(dir);
}

TEST_CASE("state files: atomic round trip, leftover refusal, restore command") {
  const fs::path dir = temp_dir("state");
  RestoreState s{.target = "/dev/sdz", .kind = "ata", .device_path = "/dev/sdz", .block_name = "sdz",
                 .pid = 999999999, .status = "active"};
  s.settings.push_back({FeatureId::aam, FeatureValue{true, 254u, {}}, "pending", ""});
  s.settings.push_back({FeatureId::scheduler, FeatureValue{true, {}, "mq-deadline"}, "pending", ""});
  const fs::path f = dir / state_file_name("/dev/sdz", "sdz");
  CHECK(f.filename() == "state-sdz.json");
  REQUIRE(write_state_file(f, s));
  auto back = read_state_file(f);
  REQUIRE(back);
  CHECK(back->settings.size() == 2);
  CHECK(back->settings[1].original.name == "mq-deadline");
  for (const auto& e : fs::directory_iterator(dir))  // no temporary left behind
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);

  // A run that finds an active file of a dead process refuses to start.
  auto t = open_target("sim:maxline3", {});
  REQUIRE(t);
  FeatureControl fc = feature_control(*t);
  RestoreStack stack(fc, RestoreState{.target = "/dev/sdz"}, f);
  auto chk = stack.check_no_leftover();
  REQUIRE_FALSE(chk);
  CHECK(chk.error().message.find("drivescope restore") != std::string::npos);
  // The suggested command finds the file: it names the directory it is in (issue 15: it used to
  // say `drivescope restore /dev/sdz`, which looks in the default directory and finds nothing).
  CHECK(chk.error().message.find("`drivescope restore /dev/sdz --state-dir " + dir.string() + "`") !=
        std::string::npos);

  // Garbage is an error, not a crash.
  std::ofstream(dir / "state-bad.json") << "{not json";
  CHECK_FALSE(read_state_file(dir / "state-bad.json"));
  std::ofstream(dir / "state-wrong.json") << R"({"format":"drivescope-restore-state/1","target":"x","settings":[{"feature":"warp"}]})";
  CHECK_FALSE(read_state_file(dir / "state-wrong.json"));

  // A simulated drive's file: nothing to put back, the file goes away.
  fs::remove(f);
  fs::remove(dir / "state-bad.json");
  fs::remove(dir / "state-wrong.json");
  RestoreState sim{.target = "sim:maxline3", .kind = "sim", .pid = 999999999};
  sim.settings.push_back({FeatureId::aam, FeatureValue{true, 254u, {}}, "pending", ""});
  REQUIRE(write_state_file(dir / "state-sim_maxline3.json", sim));
  auto rep = restore_command("", dir);
  REQUIRE(rep);
  CHECK(rep->exit_code == kExitOk);
  CHECK(rep->text.find("nothing to put back") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "state-sim_maxline3.json"));
  fs::remove_all(dir);
}
