// The rmw test on simulated drives: the 512e preset (modern8tb) must come out with 4096-byte physical
// sectors and a penalty of about one revolution for a 512-byte write, with its write cache on (the
// default) and off; a drive with 512-byte physical sectors (raptor) with none. The truth comes from
// the model (the measurement module sees only the I/O engine).
#include <doctest/doctest.h>

#include <string>

#include "sim/drive.hpp"
#include "sim/sim.hpp"
#include "tests/bench.hpp"
#include "tests/rmw.hpp"

namespace {

ds::measure::RmwResult measure(const std::string& preset, bool write_cache, double* rev_ms) {
  ds::sim::SimOptions so;
  so.writable = true;
  auto t = ds::sim::open("sim:" + preset, so);
  REQUIRE_MESSAGE(t.ok(), preset);
  if (!write_cache) t->drive->set_write_cache(false);  // the test harness may; the module may not
  *rev_ms = 60e3 / t->model.spindle_rpm();
  ds::measure::RmwOptions o;
  o.allow_write = true;
  auto r = ds::measure::run_rmw(*t->io, o);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return *r;
}

}  // namespace

TEST_CASE("rmw: modern8tb (512e) shows 4096-byte physical sectors and a revolution's penalty") {
  for (bool wc : {true, false}) {
    double rev = 0;
    const auto r = measure("modern8tb", wc, &rev);
    INFO("write cache " << wc << ": " << r.verdict << "; penalty " << r.penalty_ms << " ms, revolution " << rev);
    MESSAGE("modern8tb, write cache " << std::string(wc ? "on" : "off") << ": " << r.verdict);
    REQUIRE(r.physical_bytes_estimate.has_value());
    CHECK(*r.physical_bytes_estimate == 4096);
    CHECK(r.reported_physical_bytes == 4096);
    CHECK(r.penalty_ms / rev == doctest::Approx(1.0).epsilon(0.15));
    REQUIRE(r.kinds.size() == 7);  // 512 B .. 16 KiB aligned, 4 KiB misaligned
    for (const auto& k : r.kinds) {
      CAPTURE(k.bytes);
      CAPTURE(k.offset_bytes);
      CHECK(k.writes >= 60);
      CHECK(k.pays == (k.bytes < 4096 || k.offset_bytes != 0));
    }
    CHECK(r.drive_time_s <= 30.5);
  }
}

TEST_CASE("rmw: a drive with 512-byte physical sectors pays nothing") {
  double rev = 0;
  const auto r = measure("raptor", true, &rev);
  MESSAGE("raptor: " << r.verdict);
  REQUIRE(r.physical_bytes_estimate.has_value());
  CHECK(*r.physical_bytes_estimate == 512);
  for (const auto& k : r.kinds) CHECK_FALSE(k.pays);
  CHECK(std::abs(r.penalty_ms) < 0.2 * rev);
}

TEST_CASE("rmw: refuses to run without writes, and bench records that as the test's error") {
  auto t = ds::sim::open("sim:raptor");
  REQUIRE(t.ok());
  CHECK_FALSE(ds::measure::run_rmw(*t->io, {}).ok());
  ds::measure::BenchOptions b;
  b.tests = {"rmw"};
  b.budget_s = 5;
  auto r = ds::measure::run_bench(*t->io, b);
  REQUIRE(r.ok());
  REQUIRE(r->errors.size() == 1);
  CHECK(r->errors[0].first == "rmw");
  CHECK_FALSE(r->rmw.has_value());
}
