// The cache test's read-ahead pace: the media's rate as the read-ahead reads it, judged against
// the model's truth (tools/truth: the zones' stream rates, switches paid, before the bus, over
// the LBAs). Where the interface is slower than the media it is the only figure that sees the
// media at all; everywhere its interval must hold the truth as a 95 % interval does.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/sim.hpp"
#include "tests/cache.hpp"
#include "truth.hpp"

using namespace ds::measure;

namespace {

struct PaceRun {
  CacheResult c;
  double truth = 0;
};

PaceRun pace_on(const std::string& model, std::uint64_t seed) {
  auto t = ds::sim::open(model);
  REQUIRE(t.ok());
  auto tr = truth::compute_file(model);
  REQUIRE(tr.ok());
  CacheOptions o;
  o.seed = seed;
  o.budget_s = 6;
  auto c = run_cache(*t->io, o);
  REQUIRE(c.ok());
  return {std::move(*c), tr->read_ahead_mb_s};
}

bool holds(const Figure& f, double truth) { return f.value > 0 && std::abs(f.value - truth) <= f.uncertainty; }

}  // namespace

TEST_CASE("read-ahead pace: the media's rate behind a bus slower than the media") {
  // The full Cheetah 4LP model sends 4.8 MB/s to the host (DiskSim's bulk sector time) from a
  // media of 11-17 MB/s: its streams show the bus, its read-ahead the media.
  const std::string model = std::string(DS_TEST_DATA) + "/disk-models-disksim/seagate_st34501n_cheetah4lp.json";
  int told = 0, held = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const PaceRun r = pace_on(model, seed);
    const CacheResult* c = &r.c;
    const double truth = r.truth;
    INFO("seed " << seed << ": pace " << c->read_ahead_mb_s.value << " ± " << c->read_ahead_mb_s.uncertainty
                 << " MB/s, truth " << truth << ", burst " << c->burst_mb_s.value);
    if (c->read_ahead_mb_s.value <= 0) continue;
    ++told;
    held += holds(c->read_ahead_mb_s, truth) ? 1 : 0;
    CHECK(c->read_ahead_mb_s.value > 2 * c->burst_mb_s.value);  // the media, not the bus
  }
  CHECK(told >= 9);
  CHECK(held >= 8);  // a 95 % interval misses 3 of 10 with probability 1.2 %
}

TEST_CASE("read-ahead pace: its interval holds the truth across drives and seeds") {
  std::vector<std::string> models;
  for (const char* dir : {"/disk-models/", "/disk-models-disksim/"})
    for (const char* n : {"dec_rz26", "hp_c2247a", "hp_c2490a", "seagate_st34501n_cheetah4lp",
                          "seagate_st39102lw_cheetah9lp", "seagate_st41601n"})
      models.push_back(std::string(DS_TEST_DATA) + dir + n + ".json");
  int told = 0, held = 0, runs = 0;
  for (const auto& m : models)
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const PaceRun r = pace_on(m, seed);
      ++runs;
      if (r.c.read_ahead_mb_s.value <= 0) continue;
      ++told;
      const bool ok = holds(r.c.read_ahead_mb_s, r.truth);
      held += ok ? 1 : 0;
      if (!ok)
        MESSAGE(m << " seed " << seed << ": pace " << r.c.read_ahead_mb_s.value << " ± "
                  << r.c.read_ahead_mb_s.uncertainty << " MB/s, truth " << r.truth);
    }
  MESSAGE("read-ahead pace told in " << told << " of " << runs << " runs, its interval held the truth in " << held);
  CHECK(told >= runs / 2);
  CHECK(held >= 0.9 * told);
}
