// A drive that reads a track from where the head lands (zero-latency read) serves the backward
// steps of the rotation fit from its buffer. Before the access test told those steps apart it
// fitted a line through cache hits and called such a drive "not a rotating target" (or a solid
// state one), with no rpm and no seek figures; now the spread of rotational waits gives the
// revolution (wait_width_fit, calibrated here on synthetic waits too).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "sim/sim.hpp"
#include "tests/bench.hpp"
#include "tests/wait_width.hpp"

using namespace ds::measure;

TEST_CASE("wait_width_fit: the revolution from blurred uniform waits, its 95 % interval calibrated") {
  // Latencies K + N(0, σ) + U(0, rev) with a stall and a cache hit among them. The interval must
  // contain rev in at least 90 % of 40 draws; 400 latencies leave each edge to a few samples, so
  // it is a few per cent wide (2.7 % on average over 200 draws, 98.5 % of them covered).
  std::uint64_t st = 7;
  auto uni = [&st] {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(st >> 11) / 9007199254740992.0;
  };
  int covered = 0;
  double mean_width = 0;
  for (int draw = 0; draw < 40; ++draw) {
    const double rev = 4 + 8 * uni(), K = 1 + 4 * uni(), sigma = 0.02 + 0.1 * uni();
    std::vector<double> l;
    for (int i = 0; i < 399; ++i) {
      const double u1 = uni(), u2 = uni();
      const double n = sigma * std::sqrt(-2 * std::log(std::max(1e-12, u1))) * std::cos(6.283185307 * u2);
      l.push_back(K + n + rev * uni());
    }
    l[17] += 30;  // a stall
    l[42] = 0.3;  // a cache hit
    const WaitWidth w = wait_width_fit(l);
    REQUIRE(w.rev_ms > 0);
    covered += std::fabs(w.rev_ms - rev) <= w.half_width_ms;
    mean_width += w.half_width_ms / rev / 40;
  }
  INFO("covered " << covered << "/40, mean ± " << 100 * mean_width << " %");
  CHECK(covered >= 36);
  CHECK(mean_width <= 0.04);
  // Too few latencies, or all alike: no revolution.
  CHECK(wait_width_fit(std::vector<double>(30, 5.0)).rev_ms == 0);
  CHECK(wait_width_fit(std::vector<double>(200, 5.0)).rev_ms == 0);
}

TEST_CASE("zero-latency reads: backward steps from the buffer are told, the revolution and seeks measured") {
  for (const char* p : {"raptor", "7k400", "wd1200jd"})
    for (std::uint64_t seed : {1, 3}) {
      auto m = ds::sim::preset(p);
      REQUIRE(m.ok());
      m->cache.zero_latency_read = true;
      m->noise.seed = seed;
      auto t = ds::sim::open(*m);
      REQUIRE(t.ok());
      BenchOptions o;
      o.tests = {"transfer", "access"};
      o.seed = seed;
      o.budget_s = 40;
      auto r = run_bench(*t->io, o);
      REQUIRE(r.ok());
      REQUIRE(r->access);
      const auto& a = *r->access;
      const double truth = 60000.0 / m->spindle_rpm();
      INFO(p << " seed " << seed << ": rotation " << a.rotation_ms.value << " ± " << a.rotation_ms.uncertainty
             << " vs " << truth);
      bool buffered = false;
      for (auto& n : a.notes) buffered |= n.find("served from the drive's buffer") != std::string::npos;
      CHECK(buffered);
      CHECK_FALSE(ds::measure::has_reason(a.withheld, ds::measure::WithheldReason::rotation_not_a_disk));
      REQUIRE(a.rotation_ms.value > 0);
      CHECK(std::fabs(a.rotation_ms.value - truth) <= a.rotation_ms.uncertainty);
      CHECK(a.rotation_ms.uncertainty <= 0.05 * truth);
      CHECK(a.avg_seek_ms.value > 0);
    }
}
