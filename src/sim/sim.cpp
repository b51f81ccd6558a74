#include "sim/sim.hpp"

#include <sys/stat.h>

#include "sim/device.hpp"
#include "sim/drive.hpp"
#include "sim/io_engine.hpp"

namespace ds::sim {

namespace {

bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Expected<SimTarget> open_named(DiskModel model, std::string name, const SimOptions& opts) {
  if (opts.faults) model.faults = *opts.faults;
  if (opts.max_wait_ms_if_unset && model.queue.max_wait_ms <= 0) model.queue.max_wait_ms = *opts.max_wait_ms_if_unset;
  auto drive = SimDrive::create(model, opts.seed.value_or(model.noise.seed));
  if (!drive) return make_error(name + ": " + drive.error().message, drive.error().code);
  SimTarget t;
  t.drive = *drive;
  t.device = std::make_unique<SimDevice>(t.drive, name, opts.writable);
  t.io = std::make_unique<SimIoEngine>(t.drive, name, opts.writable);
  t.model = std::move(model);
  return t;
}

}  // namespace

Expected<SimTarget> open(std::string_view spec, const SimOptions& opts) {
  std::string_view rest = spec;
  if (rest.starts_with("sim:")) rest.remove_prefix(4);
  if (rest.empty()) return make_error("sim: needs a preset name or a model file (sim:NAME, sim:PATH.json)");
  const std::string s(rest);
  const bool path = s.ends_with(".json") || s.find('/') != std::string::npos || is_file(s);
  auto model = path ? load_model_file(s) : preset(s);
  if (!model) return model.error();
  return open_named(std::move(*model), "sim:" + s, opts);
}

Expected<SimTarget> open(DiskModel model, const SimOptions& opts) {
  std::string name = "sim:" + (model.name.empty() ? std::string("model") : model.name);
  return open_named(std::move(model), std::move(name), opts);
}

}  // namespace ds::sim
