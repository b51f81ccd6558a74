// The feature commands (`aam|apm|write-cache|read-ahead TARGET [get | set VALUE | on | off | quiet
// | fast]`) over src/control, which reads, changes and verifies a feature; this file opens it on
// a target and makes the report. The control area's names are used here as app's own, so the
// flows and the CLI name them as before (app::FeatureId, app::FeatureControl, ...).
#pragma once
#include <filesystem>
#include <string_view>

#include "app/identify.hpp"
#include "app/target.hpp"
#include "control/features.hpp"

namespace ds::app {

using control::describe_value;
using control::FeatureControl;
using control::FeatureId;
using control::FeatureReading;
using control::FeatureValue;
using control::is_ata_feature;
using control::parse_feature_id;
using control::parse_feature_value;
using control::SetResult;
using control::to_string;
using control::value_from_json;
using control::value_to_json;
using control::Verification;

// The feature switches of an open target: its device (may be null) and its sysfs name.
FeatureControl feature_control(Target& t, std::filesystem::path root = "/");

// The `aam|apm|write-cache|read-ahead TARGET [get | set VALUE | on | off | quiet | fast]` flow.
// `action` is "get" (default), "set" (with `value`), or a value word ("on", "off", "quiet", ...).
Expected<Report> feature_command(Target& t, FeatureId f, std::string_view action,
                                 std::string_view value, const std::filesystem::path& root = "/");

}  // namespace ds::app
