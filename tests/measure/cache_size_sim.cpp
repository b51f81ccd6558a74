// The cache-size estimate is a measurement: never above what the drive's cache holds (within the
// 1.25x of the criterion), a floor flagged as such when the probe reaches its limit, and the
// segment told from the total when several regions fit.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/sim.hpp"
#include "tests/cache.hpp"

using namespace ds::measure;

TEST_CASE("cache size: at most 1.25x the model's cache, segment <= total, floor flagged") {
  // The DiskSim models have small caches (128-842 KiB): where a probe limited only by its own
  // 8 MiB would show up; then every preset.
  std::vector<std::string> specs;
  for (const char* n : {"dec_rz26", "hp_c2247a", "hp_c2249a", "hp_c2490a", "quantum_qm39100td_atlas3",
                        "seagate_st34501n_cheetah4lp", "seagate_st39102lw_cheetah9lp", "seagate_st41601n"})
    specs.push_back(std::string(DS_TEST_DATA) + "/disk-models/" + n + ".json");
  for (const auto& p : ds::sim::preset_names()) specs.push_back("sim:" + p);
  for (const auto& name : specs)
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      auto t = ds::sim::open(name);
      REQUIRE(t.ok());
      CacheOptions o;
      o.seed = seed;
      o.budget_s = 6;
      auto c = run_cache(*t->io, o);
      REQUIRE(c.ok());
      const std::uint64_t truth = t->model.cache.bytes;
      INFO(name << " seed " << seed << ": estimate " << c->size_bytes_estimate << " (at least: "
                << c->size_at_least << "), segment " << c->segment_bytes_estimate << ", cache " << truth);
      CHECK(static_cast<double>(c->size_bytes_estimate) <= 1.25 * static_cast<double>(truth));
      if (c->segment_bytes_estimate) CHECK(c->segment_bytes_estimate <= c->size_bytes_estimate);
      // A floor is only claimed when the probe really ran out: 8 MiB in one region.
      if (c->size_at_least && !c->segment_bytes_estimate) CHECK(c->largest_hit_bytes >= (8u << 20));
    }
}
