// libFuzzer target: `sim import`'s DiskSim parameter reader and importer
// (src/sim/disksim_params.cpp, disksim_import.cpp, disksim_layout.cpp, disksim_source.cpp). One
// input is a set of files: the text up to the first line "=== NAME" is a.parv, and each such line
// starts the file NAME (what a `source` or a seek curve names). An input that starts with '{' is
// the source form (JSON) instead. An import that succeeds must be a model the model reader takes
// back.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "sim/disksim_import.hpp"
#include "sim/disksim_source.hpp"
#include "sim/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (!text.empty() && text[0] == '{') {
    auto r = ds::sim::disksim::import_source_form(text, "a.json", {});
    if (r.ok()) (void)ds::sim::parse_model(ds::sim::model_to_json(r->model));
    return 0;
  }
  std::map<std::string, std::string> files;
  std::string name = "a.parv";
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t mark = text.find("\n=== ", pos);
    const std::size_t end = mark == std::string_view::npos ? text.size() : mark + 1;
    files[name] = std::string(text.substr(pos, end - pos));
    if (mark == std::string_view::npos) break;
    const std::size_t eol = text.find('\n', mark + 5);
    name = std::string(text.substr(mark + 5, (eol == std::string_view::npos ? text.size() : eol) - mark - 5));
    pos = eol == std::string_view::npos ? text.size() + 1 : eol + 1;
  }
  ds::sim::disksim::FileLoader load = [&files](const std::string& n) -> ds::Expected<std::string> {
    auto it = files.find(n);
    if (it == files.end()) return ds::make_error("no such file");
    return it->second;
  };
  auto r = ds::sim::disksim::import_disksim("a.parv", load, {});
  if (!r.ok()) return 0;
  // A model with absurd values may fail the reader's checks; it must not crash on the way.
  (void)ds::sim::parse_model(ds::sim::model_to_json(r->model));
  return 0;
}
