// Reading and changing one drive feature: AAM, APM, write cache and read look-ahead through
// SET FEATURES (ACS-3 7.45 / ATA8-ACS 7.48) verified by reading IDENTIFY back, the same two
// caches on SCSI disks through the Caching mode page (SBC-3 6.4.5; read only in this version),
// and the Linux I/O scheduler and host queue depth through sysfs. Results are values; the CLI
// prints them (docs/features.md). The commands that use this (ab, ncq, the feature commands) are
// in src/app; this area only reads, changes and puts back.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "drivescope/device.hpp"
#include "drivescope/expected.hpp"

namespace ds::control {

enum class FeatureId : std::uint8_t { aam, apm, write_cache, read_ahead, scheduler, queue_depth };
// "aam", "apm", "write-cache", "read-ahead", "scheduler", "queue-depth"
std::string_view to_string(FeatureId f);
// Accepts the names above (also with '_' for '-', "wcache", "look-ahead").
std::optional<FeatureId> parse_feature_id(std::string_view name);
// A word as the names and values are compared: lower case, '_' read as '-'.
std::string lower_dashes(std::string_view s);
bool is_ata_feature(FeatureId f);  // aam, apm, write-cache, read-ahead

// One setting of a feature. AAM: enabled + level 128 (quietest) .. 254 (fastest); APM: enabled +
// level 1..254; caches: enabled only; scheduler: name; queue depth: level.
struct FeatureValue {
  bool enabled = true;
  std::optional<unsigned> level;
  std::string name;
  bool operator==(const FeatureValue&) const = default;
};

// "quiet"/"fast"/"off"/"on"/a number/a scheduler name → a value, with range checks.
Expected<FeatureValue> parse_feature_value(FeatureId f, std::string_view text);
// "128 (quiet)", "254 (fast)", "off", "on", "mq-deadline", "32".
std::string describe_value(FeatureId f, const FeatureValue& v);
nlohmann::json value_to_json(FeatureId f, const FeatureValue& v);
Expected<FeatureValue> value_from_json(FeatureId f, const nlohmann::json& j);

// What the device (or sysfs) shows about a feature.
struct FeatureReading {
  bool reported = false;   // the state can be read at all
  bool supported = false;  // the device says it has the feature
  std::optional<FeatureValue> value;  // present when reported and supported
  std::string source;      // "IDENTIFY w83/w86/w94", "MODE SENSE Caching page", "sysfs"
  std::string note;        // why not reported, if so
};

enum class Verification : std::uint8_t {
  verified,      // read back and equal to what was asked
  not_reported,  // the device accepted the command but does not report this state
  mismatch,      // read back and different (e.g. a drive that rounds AAM levels)
};
std::string_view to_string(Verification v);

struct SetResult {
  FeatureId feature = FeatureId::aam;
  FeatureValue requested;
  FeatureReading before, after;
  Verification verification = Verification::not_reported;
  std::string message;  // one sentence, e.g. the "accepted but does not report" one
};

// The feature switches of one target. `dev` may be null (then only sysfs features work);
// `block_name` may be empty (then sysfs features do not). ATA or SCSI is the device's own answer
// (DeviceInfo), not the kind of target it was opened as.
class FeatureControl {
 public:
  FeatureControl(Device* dev, std::string block_name, std::filesystem::path root = "/");

  Expected<FeatureReading> read(FeatureId f);
  // Sends the change and reads it back. A command the device rejects is an error whose message
  // is the decoded ATA abort / sense.
  Expected<SetResult> set(FeatureId f, const FeatureValue& v);

  const std::string& block_name() const { return block_; }

 private:
  Expected<FeatureReading> read_ata(FeatureId f);
  Expected<FeatureReading> read_scsi(FeatureId f);
  Expected<FeatureReading> read_sysfs(FeatureId f);
  bool ata() const;

  Device* dev_;
  std::string block_;
  std::filesystem::path root_;
};

}  // namespace ds::control
