// The simulated drive's public entry points: load a model (file or preset) and open it as a
// target with both a command interface (ds::Device) and a block-I/O interface (ds::IoEngine)
// over the same drive state and virtual clock. See docs/simulator.md.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drivescope/device.hpp"
#include "drivescope/expected.hpp"
#include "drivescope/io.hpp"
#include "sim/model.hpp"

namespace ds::sim {

class SimDrive;

// Built-in models shaped after real drives (sources in docs/simulator.md).
std::vector<std::string> preset_names();       // canonical names
std::vector<std::string> preset_aliases();     // every accepted name, canonical ones included
Expected<DiskModel> preset(std::string_view name);
// A one-line description of a preset ("WD Raptor WD740GD 74 GB, 10000 rpm, SATA TCQ").
std::string preset_summary(std::string_view name);
// The other names a preset answers to, and its model file's text (models/NAME.json).
std::vector<std::string> preset_aliases_of(std::string_view name);
Expected<std::string> preset_json(std::string_view name);

struct SimOptions {
  std::optional<std::uint64_t> seed;  // overrides the model's noise.seed
  bool writable = false;              // let the I/O engine write (the simulator keeps no data)
  std::optional<FaultSpec> faults;    // replaces the model's "faults" (sim/faults.hpp)
  // For a model whose queue sets no queue.max_wait_ms (every /1 model, the presets): this bound
  // instead. In virtual time a stream's commands arrive in order; a real host sends them out of
  // order now and then, and plain SPTF passes the late one over for as long as the stream goes
  // on (drivescope serve, docs/serve.md).
  std::optional<double> max_wait_ms_if_unset;
};

struct SimTarget {
  std::shared_ptr<SimDrive> drive;     // the shared drive state and virtual clock
  std::unique_ptr<ds::Device> device;  // command interface (IDENTIFY, SET FEATURES, INQUIRY...)
  std::unique_ptr<ds::IoEngine> io;    // block I/O in virtual time, same drive
  DiskModel model;
};

// spec: "sim:NAME", "sim:PATH.json", "NAME" or "PATH.json" (a spec naming an existing file or
// ending in .json is a path; anything else a preset name).
Expected<SimTarget> open(std::string_view spec, const SimOptions& opts = {});
Expected<SimTarget> open(DiskModel model, const SimOptions& opts = {});

}  // namespace ds::sim
