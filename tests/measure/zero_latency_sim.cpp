// A drive that reads a track from where the head lands (zero-latency read) serves the backward
// steps of the rotation fit from its buffer. Before the access test told those steps apart it
// fitted a line through cache hits and called such a drive "not a rotating target" (or a solid
// state one); now it says what it saw and states no revolution rather than a doubtful one.
#include <doctest/doctest.h>

#include <cmath>

#include "sim/sim.hpp"
#include "tests/bench.hpp"

using namespace ds::measure;

TEST_CASE("zero-latency reads: backward steps from the buffer are told, no revolution is made up") {
  for (const char* p : {"raptor", "7k400", "wd1200jd"}) {
    auto m = ds::sim::preset(p);
    REQUIRE(m.ok());
    m->cache.zero_latency_read = true;
    m->noise.seed = 3;
    auto t = ds::sim::open(*m);
    REQUIRE(t.ok());
    BenchOptions o;
    o.tests = {"transfer", "access"};
    o.seed = 3;
    o.budget_s = 40;
    auto r = run_bench(*t->io, o);
    REQUIRE(r.ok());
    REQUIRE(r->access);
    const auto& a = *r->access;
    const double truth = 60000.0 / m->spindle_rpm();
    INFO(p << ": rotation " << a.rotation_ms.value << " ± " << a.rotation_ms.uncertainty << " vs " << truth);
    bool buffered = false, not_rotating = false;
    for (auto& n : a.notes) {
      buffered |= n.find("served from the drive's buffer") != std::string::npos;
      not_rotating |= n.find("not a rotating target") != std::string::npos;
    }
    CHECK(buffered);
    CHECK_FALSE(not_rotating);
    // Either a revolution that holds the truth, or none (and then no seek figure built on one).
    if (a.rotation_ms.value > 0) CHECK(std::fabs(a.rotation_ms.value - truth) <= a.rotation_ms.uncertainty);
    else CHECK(a.avg_seek_ms.value == 0);
  }
}
