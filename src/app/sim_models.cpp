#include "app/sim_models.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sim/disksim_import.hpp"
#include "sim/disksim_source.hpp"
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

namespace {

// DiskSim's parameters in either form: the source form is JSON (an object), DiskSim's own files
// are its parameter syntax. The file is read once; the source form's own provenance (where
// DiskSim's values were taken from) comes along in the result.
Expected<sim::disksim::ImportResult> import_either(const std::string& source, const sim::disksim::ImportOptions& io) {
  std::ifstream in(source, std::ios::binary);
  if (!in) return make_error("cannot open " + source + ": " + std::strerror(errno), errno);
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{') return sim::disksim::import_disksim_file(source, io, &text);
  return sim::disksim::import_source_form(text, source, io);
}

// The model file's text: the model, and where it came from (the source's name without its
// folder, so that the same import gives the same bytes wherever it runs).
std::string model_text(const sim::DiskModel& m, const std::string& source, const std::string& source_provenance) {
  auto doc = nlohmann::json::parse(sim::model_to_json(m));
  const auto slash = source.rfind('/');
  nlohmann::json prov = {{"converted_by", "drivescope sim import"},
                         {"from", slash == std::string::npos ? source : source.substr(slash + 1)}};
  if (!source_provenance.empty()) prov["disksim"] = nlohmann::json::parse(source_provenance);
  doc["provenance"] = prov;
  return doc.dump(1) + "\n";
}

}  // namespace

Expected<Report> sim_import(const std::string& source, const SimImportOptions& o) {
  sim::disksim::ImportOptions io;
  if (o.interface_mb_s > 0) {
    io.interface_mb_s = o.interface_mb_s;
    io.interface_given = true;
  }
  auto imported = import_either(source, io);
  if (!imported) return imported.error();
  const auto* imp = &*imported;
  const std::string text = model_text(imp->model, source, imp->source_provenance);
  // The importer's rules should only ever make a valid model; if one does not, that is a defect
  // to show with its reason, not a file to write.
  if (auto check = sim::parse_model(text); !check)
    return make_error(source + ": the imported model is not valid: " + check.error().message);
  Report r;
  if (!imp->not_represented.empty()) {
    std::string names;
    for (const auto& n : imp->not_represented) names += (names.empty() ? "" : "; ") + n;
    r.warnings.push_back(std::to_string(imp->not_represented.size()) +
                         " DiskSim parameters have no model key and were left out: " + names);
  }
  for (const auto& n : imp->unknown) r.warnings.push_back("unknown DiskSim parameter, ignored: " + n);
  for (const auto& n : imp->notes) r.warnings.push_back(n);
  if (!o.output.empty()) {
    std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
    if (!(out << text) || !out.flush()) return make_error(o.output + ": cannot write the model file", errno);
    r.text = fmt::format("{}: {} ({} zones, {} sectors) written to {}\n", source, imp->model.name,
                         imp->model.zones.size(), imp->model.capacity(), o.output);
  } else {
    r.text = text;
  }
  r.json = {{"drivescope", {{"version", version()}}},
            {"source", source},
            {"output", o.output.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.output)},
            {"model", nlohmann::json::parse(text)},
            {"not_represented", imp->not_represented},
            {"unknown", imp->unknown},
            {"notes", imp->notes}};
  return r;
}

}  // namespace ds::app
