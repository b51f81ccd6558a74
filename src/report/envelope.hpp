// What every JSON document carries besides its command's results, in smartctl's shape (smartctl
// 7.x `--json`): `json_format_version` [major, minor] and a `drivescope` block {version, argv,
// exit_status, messages[{string, severity}]}, like smartctl's `smartctl` block; and smartctl's
// identity keys (`model_name`, `serial_number`, ...) next to drivescope's own, so that a script
// written for `smartctl -i -j` finds the same paths. Pure functions over JSON values.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ds::report {

// [major, minor] of the document layout. The major changes when a key is removed or changes
// meaning or type; the minor when keys are added.
inline constexpr int kJsonFormatMajor = 1;
inline constexpr int kJsonFormatMinor = 0;

struct Message {
  std::string string;
  std::string severity;  // smartctl's words: "information", "warning", "error"
};

struct Invocation {
  std::string version;
  std::vector<std::string> argv;  // as typed, argv[0] included (smartctl's `argv`)
  int exit_status = 0;
  std::vector<Message> messages;
};

// Adds json_format_version and the drivescope block (its other keys, if any, are kept) to doc,
// and smartctl's identity keys at the top level when doc has an `identify` block that knows them.
void add_envelope(nlohmann::json& doc, const Invocation& inv);

// smartctl's identity keys from a drivescope `identify` block (ATA or SCSI): model_family (from
// identify.drivedb), model_name,
// serial_number, firmware_version, user_capacity {blocks, bytes}, logical_block_size,
// physical_block_size, rotation_rate (0 for solid state, as smartctl), trim {supported, and
// deterministic/zeroed when supported}, wwn {naa, oui, id}. A key is left out when the block does
// not know it ("where known"); an empty object when it knows none.
nlohmann::json smartctl_identity(const nlohmann::json& identify);

// The same keys from one `list` entry (sysfs facts): model_name, serial_number,
// firmware_version, user_capacity, logical_block_size, physical_block_size.
nlohmann::json smartctl_identity_from_list(const nlohmann::json& drive);

}  // namespace ds::report
