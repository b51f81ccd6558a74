#include "app/sim_models.hpp"

#include <fmt/format.h>

#include "sim/model.hpp"
#include "sim/sim.hpp"

namespace ds::app {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

Report sim_list() {
  Report r;
  auto list = nlohmann::json::array();
  std::string text = fmt::format("{:<12} {:>7} {:>9} {:>8}  {}\n", "preset", "rpm", "GB", "queue", "drive");
  for (const auto& n : sim::preset_names()) {
    auto m = sim::preset(n);
    if (!m) {
      // A broken built-in file is a build defect; list it with its error rather than hide it.
      list.push_back({{"name", n}, {"error", m.error().message}});
      text += fmt::format("{:<12} error: {}\n", n, m.error().message);
      r.exit_code = kExitPartial;
      continue;
    }
    const double gb = static_cast<double>(m->capacity()) * m->logical_sector_bytes / 1e9;
    const std::string queue = m->queue.protocol == sim::QueueProtocol::none
                                  ? "none"
                                  : fmt::format("{}/{}", sim::to_string(m->queue.protocol), m->queue.depth);
    list.push_back({{"name", n},
                    {"aliases", sim::preset_aliases_of(n)},
                    {"description", m->name},
                    {"transport", sim::to_string(m->transport)},
                    {"rpm", m->rpm},
                    {"capacity_bytes", m->capacity() * m->logical_sector_bytes},
                    {"queue", queue}});
    text += fmt::format("{:<12} {:>7.0f} {:>9.1f} {:>8}  {}{}\n", n, m->rpm, gb, queue, m->name,
                        sim::preset_aliases_of(n).empty() ? "" : " (also: " + join(sim::preset_aliases_of(n)) + ")");
  }
  text += "\nUse as sim:NAME; `drivescope sim show NAME` prints a preset's model file "
          "(docs/disk-model.md) to start a model of your own (sim:PATH.json).\n";
  r.json = {{"drivescope", {{"version", version()}}}, {"presets", list}};
  r.text = std::move(text);
  return r;
}

Expected<Report> sim_show(const std::string& name) {
  auto text = sim::preset_json(name);
  if (!text) return text.error();
  Report r;
  auto doc = nlohmann::json::parse(*text, nullptr, false);
  if (doc.is_discarded()) return make_error("preset " + name + ": its built-in model file is not JSON");
  r.json = {{"drivescope", {{"version", version()}}}, {"model", doc}};
  r.text = *text;
  return r;
}

}  // namespace ds::app
