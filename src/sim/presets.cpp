// Built-in presets: model files like any other (models/*.json in the source tree, compiled in by
// cmake/embed_models.cmake), each shaped after a drive of the seed reviews from datasheet-level
// figures (sources per preset in docs/simulator.md). A preset's "aliases" key lists the other
// names it answers to; the loader ignores it like any extra key.
#include <nlohmann/json.hpp>


#include "sim/model.hpp"
#include "sim/presets_data.hpp"
#include "sim/sim.hpp"

namespace ds::sim {

namespace {

struct Entry {
  std::string name;
  std::vector<std::string> aliases;
  std::string_view json;
};

const std::vector<Entry>& table() {
  static const std::vector<Entry> t = [] {
    std::vector<Entry> v;
    for (const auto& e : embedded_models()) {
      Entry x{std::string(e.name), {}, e.json};
      // The files are checked by tests/sim/presets_test.cpp; a broken one still lists by name.
      const auto doc = nlohmann::json::parse(e.json, nullptr, false);
      if (doc.is_object())
        if (auto a = doc.find("aliases"); a != doc.end() && a->is_array())
          for (const auto& s : *a)
            if (s.is_string()) x.aliases.push_back(s.get<std::string>());
      v.push_back(std::move(x));
    }
    return v;
  }();
  return t;
}

const Entry* find(std::string_view name) {
  for (const auto& e : table()) {
    if (name == e.name) return &e;
    for (const auto& a : e.aliases)
      if (name == a) return &e;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> v;
  for (const auto& e : table()) v.push_back(e.name);
  return v;
}

std::vector<std::string> preset_aliases() {
  std::vector<std::string> v;
  for (const auto& e : table()) {
    v.push_back(e.name);
    v.insert(v.end(), e.aliases.begin(), e.aliases.end());
  }
  return v;
}

std::vector<std::string> preset_aliases_of(std::string_view name) {
  const Entry* e = find(name);
  return e ? e->aliases : std::vector<std::string>{};
}

Expected<std::string> preset_json(std::string_view name) {
  const Entry* e = find(name);
  if (!e) {
    std::string known;
    for (const auto& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
    return make_error("no simulated drive preset named \"" + std::string(name) + "\" (known: " + known +
                      "; `drivescope sim list` lists them)");
  }
  return std::string(e->json);
}

Expected<DiskModel> preset(std::string_view name) {
  auto text = preset_json(name);
  if (!text) return text.error();
  auto m = parse_model(*text);
  if (!m) return make_error("preset " + std::string(name) + ": " + m.error().message);
  return m;
}

std::string preset_summary(std::string_view name) {
  auto m = preset(name);
  return m ? m->name : std::string();
}

}  // namespace ds::sim
