// `drivescope model`'s read-ahead stage (src/app/twin_read_ahead.cpp): where the cache test did not
// tell the read-ahead, a workload of reads a distance on after a pause finds it instead of none
// being assumed; where the cache test told it, or saw none, the stage does not run.
#include <doctest/doctest.h>

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
    // Each segment holds a block and the read-ahead after it.
    CHECK(f.twin["cache"]["bytes"].get<double>() / f.twin["cache"]["segments"].get<double>() >= 512 * (got + 1));
    }
  }
}

TEST_CASE("twin: the read-ahead stage runs only where the cache test did not tell the read-ahead") {
  const json drive = model_file("tests/data/disk-models/quantum_qm39100td_atlas3.json");
  CHECK(app::read_ahead_untold(twin_of(drive, "default: the cache test did not tell read-ahead; none assumed")));
  CHECK(!app::read_ahead_untold(twin_of(drive, "measured: cache test saw no read-ahead")));
  CHECK(!app::read_ahead_untold(twin_of(drive, "measured: cache test's read-ahead extent")));
  json no_cache = twin_of(drive, "default: the cache test told no cache");
  no_cache["cache"]["bytes"] = 0;
  CHECK(!app::read_ahead_untold(no_cache));
  CHECK(!app::read_ahead_untold(json::object()));
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
