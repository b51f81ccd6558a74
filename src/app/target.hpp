// Opening a target: what the user typed (/dev/sdX, /dev/sgN, sim:NAME, sim:PATH.json, file:PATH,
// a regular file) becomes a command Device (maybe none) and a block-I/O engine (opened on demand).
// Each backend is one line of the table in target.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "drivescope/device.hpp"
#include "drivescope/expected.hpp"
#include "drivescope/io.hpp"
#include "passthrough/trace_device.hpp"

namespace ds::app {

// -d (like smartctl's -d): how commands reach the drive. autodetect: SAT when the SCSI layer says
// the drive is ATA (INQUIRY vendor "ATA" or VPD page 89h), plain SCSI otherwise; a simulated
// drive answers in its model's own command set. sat: ATA commands as ATA PASS-THROUGH CDBs (on a
// simulated ATA drive too, so the SAT round trip can be watched with --trace). scsi: SCSI
// commands only, no ATA. ata: the drive's native ATA interface: only the simulator has one here
// (Linux's HDIO ioctls are not used; a real SATA drive is reached through SAT).
enum class DeviceType : std::uint8_t { autodetect, ata, sat, scsi };
std::string_view to_string(DeviceType t);
Expected<DeviceType> parse_device_type(std::string_view text);  // "auto", "ata", "sat", "scsi"

// What a command that opens a target forwards from -d and --trace.
using ds::CommandTrace;
using ds::TraceSink;
struct DeviceChoice {
  DeviceType type = DeviceType::autodetect;
  TraceSink trace;  // --trace: every command sent to the device, as it ends; empty: no tracing
};

struct OpenOptions {
  bool want_io = false;      // open the block-I/O engine too
  bool write = false;        // --write: open for writing (after the write guard)
  bool destructive = false;  // --destructive: needed on a real block device
  std::optional<std::uint64_t> seed;  // simulator noise seed
  std::string root = "/";    // where /proc and /sys are found (tests use fake trees)
  DeviceChoice device;       // -d, --trace
};

struct Target {
  std::string spec;             // as typed
  TargetKind kind = TargetKind::file;
  std::string block_name;       // kernel name (sda, vda) for real devices; empty otherwise
  std::string device_path;      // the node commands go to (/dev/sdX or /dev/sgN)
  std::unique_ptr<Device> device;  // null: no command passthrough on this target
  std::string no_device_reason;    // why device is null
  std::unique_ptr<IoEngine> io;    // null unless OpenOptions::want_io
  std::shared_ptr<void> keepalive; // backend state shared by device and io (the simulated drive)
};

// A -d that cannot apply to the target (-d sat or ata on a SCSI model or a file, -d ata on a
// real device) is a usage_error, said before anything is sent.
Expected<Target> open_target(std::string_view spec, const OpenOptions& options);

// A simulated drive from a model document's text (drivescope-disk-model/2, as a sim:MODEL.json
// file holds it), with no file: the twin measured in-process. `name` is its Target::spec.
Expected<Target> open_sim_model(std::string_view model_json, std::string_view name, const OpenOptions& options);

}  // namespace ds::app
