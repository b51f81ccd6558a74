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

namespace ds::app {

struct OpenOptions {
  bool want_io = false;      // open the block-I/O engine too
  bool write = false;        // --write: open for writing (after the write guard)
  bool destructive = false;  // --destructive: needed on a real block device
  std::optional<std::uint64_t> seed;  // simulator noise seed
  std::string root = "/";    // where /proc and /sys are found (tests use fake trees)
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

Expected<Target> open_target(std::string_view spec, const OpenOptions& options);

}  // namespace ds::app
