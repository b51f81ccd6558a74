// The rmw test on simulated drives: the 512e preset (modern8tb) must come out with 4096-byte physical
// sectors and a penalty of about one revolution for a 512-byte write, with its write cache on (the
// default) and off; a drive with 512-byte physical sectors (raptor) with none. The truth comes from
// the model (the measurement module sees only the I/O engine).
#include <doctest/doctest.h>

#include <string>

#include "report/measure_report.hpp"
#include "sim/drive.hpp"
#include "sim/sim.hpp"
#include "tests/bench.hpp"
#include "tests/rmw.hpp"

namespace {

ds::measure::RmwResult measure(const std::string& preset, bool write_cache, double* rev_ms, double budget_s = 0) {
  ds::sim::SimOptions so;
  so.writable = true;
  auto t = ds::sim::open("sim:" + preset, so);
  REQUIRE_MESSAGE(t.ok(), preset);
  if (!write_cache) t->drive->set_write_cache(false);  // the test harness may; the module may not
  *rev_ms = 60e3 / t->model.spindle_rpm();
  ds::measure::RmwOptions o;
  o.allow_write = true;
  if (budget_s > 0) o.budget_s = budget_s;
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

TEST_CASE("rmw: without writes, the claimed sector size and that the timing needs writes; no I/O") {
  auto t = ds::sim::open("sim:modern8tb");
  REQUIRE(t.ok());
  ds::measure::RmwOptions o;
  o.claimed_physical_bytes = 4096;
  o.claimed_by = "IDENTIFY word 106";
  auto r = ds::measure::run_rmw(*t->io, o);
  REQUIRE(r.ok());
  CHECK_FALSE(r->measured);
  CHECK(r->kinds.empty());
  CHECK(r->drive_time_s == 0);
  CHECK_FALSE(r->physical_bytes_estimate.has_value());
  CHECK(r->claimed_physical_bytes == 4096);
  CHECK(r->reported_physical_bytes == 4096);
  CHECK(r->verdict.find("IDENTIFY word 106 claims 4096-byte physical sectors behind 512-byte logical ones (512e)") !=
        std::string::npos);
  CHECK(r->verdict.find("needs writes") != std::string::npos);
  const auto j = ds::report::rmw_to_json(*r);
  CHECK(j["measured"] == false);
  CHECK(j["penalty_ms"].is_null());
  CHECK(j["claimed_by"] == "IDENTIFY word 106");

  // A claim the block device contradicts is said so; no claim at all falls back to the device.
  o.claimed_physical_bytes = 512;
  auto c = ds::measure::run_rmw(*t->io, o);
  REQUIRE(c.ok());
  CHECK(c->verdict.find("though the block device reports 4096 bytes") != std::string::npos);
  auto n = ds::measure::run_rmw(*t->io, {});
  REQUIRE(n.ok());
  CHECK(n->verdict.find("the block device reports 4096-byte physical sectors") != std::string::npos);

  // In bench: a result, not an error, and still no drive time.
  ds::measure::BenchOptions b;
  b.tests = {"rmw"};
  b.budget_s = 5;
  b.claimed_physical_bytes = 4096;
  b.claimed_by = "IDENTIFY word 106";
  auto br = ds::measure::run_bench(*t->io, b);
  REQUIRE(br.ok());
  CHECK(br->errors.empty());
  REQUIRE(br->rmw.has_value());
  CHECK(br->rmw->claimed_physical_bytes == 4096);
  CHECK(br->drive_time_s == 0);
}

TEST_CASE("rmw: with writes allowed but a target not open for writing, an error") {
  auto t = ds::sim::open("sim:raptor");
  REQUIRE(t.ok());
  ds::measure::RmwOptions o;
  o.allow_write = true;
  CHECK_FALSE(ds::measure::run_rmw(*t->io, o).ok());
}

TEST_CASE("rmw: sizes the budget left untimed tell no physical sector size") {
  // bench sim:modern8tb --tests rmw --write --budget 30 (8.5 s for rmw): the 512 B to 4 KiB writes
  // went untimed (writes 0) and were counted as paying nothing: "no read-modify-write, physical
  // sector 512 bytes" on a 4096-byte-sector drive.
  for (double budget : {8.5, 4.0, 2.0}) {
    double rev = 0;
    const auto r = measure("modern8tb", true, &rev, budget);
    CAPTURE(budget);
    INFO(r.verdict);
    if (!r.physical_bytes_estimate) {
      CHECK(r.verdict.find("not") != std::string::npos);
      continue;
    }
    CHECK(*r.physical_bytes_estimate == 4096);
    for (const auto& k : r.kinds)
      if (k.offset_bytes == 0 && k.bytes <= *r.physical_bytes_estimate) CHECK(k.writes >= 16);
  }
}
