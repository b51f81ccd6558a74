// `drivescope model`'s read-ahead stage (src/app/twin_read_ahead.cpp): where the cache test did not
// tell the read-ahead, a workload of reads a distance on after a pause finds it instead of none
// being assumed, and it tells a read-ahead that ends with the track from one that runs to its
// extent; where the cache test saw none, the stage does not run.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "app/twin_stages.hpp"

using namespace ds;
using nlohmann::json;

namespace {

// A model file: a path under the source tree.
json model_file(const std::string& path) {
  std::ifstream f(std::string(DS_SOURCE_DIR) + "/" + path);
  return json::parse(f);
}

// The drive's own model as a twin whose read-ahead is `source` and none.
json twin_of(const json& drive, const std::string& source) {
  json twin = drive;
  twin["cache"]["read_ahead_sectors"] = 0;
  twin["provenance"]["sources"]["cache.read_ahead_sectors"] = source;
  return twin;
}

constexpr std::uint64_t kSeeds = 8;  // workload and noise seeds per drive

struct Fitted {
  json twin;
  std::vector<std::string> moves;
};

Fitted fit(const json& drive, json twin, std::uint64_t seed = 3) {
  const auto cap = drive["capacity_sectors"].get<std::uint64_t>();
  const app::ReadAheadWorkload w = app::read_ahead_workload(twin, cap, seed);
  REQUIRE(w.trace.requests.size() >= 400);
  auto dms = app::twin_times(drive, w.trace, seed + 4);
  REQUIRE(static_cast<bool>(dms));
  Fitted f{std::move(twin), {}};
  if (auto e = app::fit_read_ahead(f.twin, *dms, w, seed + 18, f.moves)) FAIL(e->message);
  return f;
}

}  // namespace

TEST_CASE("twin: a read-ahead the cache test did not tell is found by the read-ahead workload, within a half-octave") {
  // Every preset and repository model (the DiskSim drives' extents from 57 sectors to 2048, in one
  // to 64 segments), among them the 8 TB archive preset, whose cache test at seed 2 spent its
  // budget before the read-ahead probe.
  for (const std::string name :
       {"models/7200.7.json", "models/7k400.json", "models/archive8tb-smr.json", "models/atlas15k.json",
        "models/cheetah15k3.json", "models/exos2x14.json", "models/mas3735.json", "models/maxline3.json",
        "models/modern8tb.json", "models/raptor.json", "models/wd1200jd.json", "tests/data/disk-models/dec_rz26.json",
        "tests/data/disk-models/hp_c2247a.json", "tests/data/disk-models/hp_c2249a.json",
        "tests/data/disk-models/hp_c2490a.json", "tests/data/disk-models/quantum_qm39100td_atlas3.json",
        "tests/data/disk-models/seagate_st34501n_cheetah4lp.json",
        "tests/data/disk-models/seagate_st39102lw_cheetah9lp.json", "tests/data/disk-models/seagate_st41601n.json"}) {
    const json drive = model_file(name);
    const double truth = drive["cache"]["read_ahead_sectors"].get<double>();
    REQUIRE(truth > 0);
    for (std::uint64_t seed = 3; seed < 3 + kSeeds; ++seed) {
      CAPTURE(name);
      CAPTURE(seed);
      const Fitted f = fit(drive, twin_of(drive, "default: the cache test did not tell read-ahead; none assumed"), seed);
      const double got = f.twin["cache"]["read_ahead_sectors"].get<double>();
      const std::string src = f.twin["provenance"]["sources"]["cache.read_ahead_sectors"].get<std::string>();
      CAPTURE(got);
      CAPTURE(src);
      REQUIRE(!f.moves.empty());
      CHECK(f.moves[0].find("cache.read_ahead_sectors: none assumed") == 0);
      CHECK(src.find("measured: read-ahead workload") == 0);
      CHECK(src.find("lower bound") == std::string::npos);
      // The candidates step by half-octaves from 16 KiB: the nearest lie within a factor of 1.42.
      CHECK(got >= truth / 1.42);
      CHECK(got <= truth * 1.42);
      // Their read-ahead runs to its extent: no rule of where it stops is added.
      CHECK(!f.twin.value("controller", json::object()).contains("prefetch"));
      // Each segment holds a block and the read-ahead after it.
      CHECK(f.twin["cache"]["bytes"].get<double>() / f.twin["cache"]["segments"].get<double>() >= 512 * (got + 1));
    }
  }
}

TEST_CASE("twin: the read-ahead stage asks the extent where it was untold, the stop where it was told, nothing where none was seen") {
  const json drive = model_file("tests/data/disk-models/quantum_qm39100td_atlas3.json");
  const json untold = twin_of(drive, "default: the cache test did not tell read-ahead; none assumed");
  CHECK(app::read_ahead_untold(untold));
  CHECK(app::read_ahead_askable(untold));
  CHECK(app::read_ahead_workload(untold, 17783250, 3).extent_asked);
  const json none = twin_of(drive, "measured: cache test saw no read-ahead");
  CHECK(!app::read_ahead_untold(none));
  CHECK(!app::read_ahead_askable(none));
  json told = drive;
  told["provenance"]["sources"]["cache.read_ahead_sectors"] = "measured: cache test's read-ahead extent";
  CHECK(!app::read_ahead_untold(told));
  CHECK(app::read_ahead_askable(told));
  const app::ReadAheadWorkload w = app::read_ahead_workload(told, 17783250, 3);
  CHECK(!w.extent_asked);
  CHECK(w.reach_bytes > 0);
  json no_cache = untold;
  no_cache["cache"]["bytes"] = 0;
  CHECK(!app::read_ahead_untold(no_cache));
  CHECK(!app::read_ahead_askable(no_cache));
  CHECK(!app::read_ahead_untold(json::object()));
  CHECK(!app::read_ahead_askable(json::object()));
  CHECK(!app::read_ahead_askable(json{{"cache", "garbage"}}));
}

TEST_CASE("twin: a drive that reads ahead only once a stream is established has its extent found too") {
  // The Atlas III reading ahead only after two reads in a row: each probe's run of three starts
  // it. The twin reads ahead after any read (the trigger untold too).
  const json plain = model_file("tests/data/disk-models/quantum_qm39100td_atlas3.json");
  json drive = plain;
  drive["controller"]["prefetch"] = {{"continuous_read", 3}, {"after_sequential_reads", 2}};
  for (std::uint64_t seed = 3; seed < 3 + kSeeds; ++seed) {
    CAPTURE(seed);
    const Fitted f = fit(drive, twin_of(plain, "default: the cache test did not tell read-ahead; none assumed"), seed);
    const double got = f.twin["cache"]["read_ahead_sectors"].get<double>();
    CHECK(got >= 64 / 1.42);
    CHECK(got <= 64 * 1.42);
  }
}

TEST_CASE("twin: a read-ahead that ends with the track is found so, and one that runs to its extent left so") {
  // DiskSim's full models: the DEC RZ26 reads ahead to the end of the read's track (its "Buffer
  // continuous read" 1), the Cheetah 9LP to the end of the next (4); the HP C2247A, C2490A,
  // ST41601N and Cheetah 4LP to their extent (3). The twin is the drive without the rule, its
  // extent told (as the cache test tells it).
  const std::vector<std::pair<std::string, std::vector<int>>> cases = {
      {"dec_rz26", {1}},  {"seagate_st39102lw_cheetah9lp", {4}}, {"hp_c2247a", {}}, {"hp_c2490a", {}},
      {"seagate_st41601n", {}}, {"seagate_st34501n_cheetah4lp", {}}};
  for (const auto& c : cases) {
    // (Named, not a structured binding: doctest's CAPTURE takes it into a lambda, which clang 14 refuses.)
    const std::string& name = c.first;
    const std::vector<int>& stops = c.second;
    const json drive = model_file("tests/data/disk-models-disksim/" + name + ".json");
    json twin = drive;
    twin["controller"].erase("prefetch");
    twin["provenance"]["sources"]["cache.read_ahead_sectors"] = "measured: cache test's read-ahead extent";
    REQUIRE(app::read_ahead_askable(twin));
    for (std::uint64_t seed = 3; seed < 3 + kSeeds; ++seed) {
      CAPTURE(name);
      CAPTURE(seed);
      const Fitted f = fit(drive, twin, seed);
      const json controller = f.twin.value("controller", json::object());
      const json* pf = controller.contains("prefetch") ? &controller["prefetch"] : nullptr;
      CAPTURE(pf ? pf->dump() : "none");
      if (stops.empty()) {
        CHECK(!pf);
        CHECK(f.moves.empty());
      } else {
        REQUIRE(pf);
        CHECK(std::find(stops.begin(), stops.end(), pf->value("continuous_read", 3)) != stops.end());
        CHECK(f.twin["provenance"]["sources"]["controller.prefetch.continuous_read"].get<std::string>().find(
                  "measured: read-ahead workload") == 0);
      }
    }
  }
}
