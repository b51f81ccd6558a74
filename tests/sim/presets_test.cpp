// The presets are model files (models/*.json): each one in the source tree is compiled in, loads
// through the same parser as a user's file, and answers to its own name and aliases only.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/sim.hpp"

namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("presets: every models/*.json is a preset, byte for byte, and loads as a model") {
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(DS_SOURCE_DIR) / "models"))
    if (e.path().extension() == ".json") files.insert(e.path().stem().string());
  const auto names = ds::sim::preset_names();
  CHECK(std::set<std::string>(names.begin(), names.end()) == files);
  REQUIRE(files.size() >= 9);
  for (const auto& n : names) {
    CAPTURE(n);
    auto text = ds::sim::preset_json(n);
    REQUIRE(text.ok());
    CHECK(*text == slurp(fs::path(DS_SOURCE_DIR) / "models" / (n + ".json")));
    auto m = ds::sim::preset(n);
    REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message));
    // The same file opened as a path gives the same drive.
    auto byfile = ds::sim::load_model_file((fs::path(DS_SOURCE_DIR) / "models" / (n + ".json")).string());
    REQUIRE(byfile.ok());
    CHECK(ds::sim::model_to_json(*byfile) == ds::sim::model_to_json(*m));
    CHECK_FALSE(ds::sim::preset_summary(n).empty());
  }
}

TEST_CASE("presets: aliases are unique across presets and open the same model") {
  std::set<std::string> seen;
  for (const auto& n : ds::sim::preset_aliases()) {
    CAPTURE(n);
    CHECK(seen.insert(n).second);
  }
  for (const auto& n : ds::sim::preset_names())
    for (const auto& a : ds::sim::preset_aliases_of(n)) {
      CAPTURE(a);
      auto x = ds::sim::preset(a);
      REQUIRE(x.ok());
      CHECK(ds::sim::model_to_json(*x) == ds::sim::model_to_json(*ds::sim::preset(n)));
    }
  auto bad = ds::sim::preset("no-such-drive");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("raptor") != std::string::npos);
  CHECK(bad.error().message.find("sim list") != std::string::npos);
}
