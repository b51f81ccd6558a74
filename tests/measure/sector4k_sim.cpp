// A drive with 4096-byte logical sectors (4Kn): the "single-sector" reads of the access and queue
// tests must be 4096 bytes, no request may be smaller than or misaligned to a logical sector, and
// the results must say so (block_bytes). The model is a preset reformatted to 4Kn: the same
// mechanics and media rate, one eighth of the sectors per track.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "report/measure_report.hpp"
#include "sim/sim.hpp"
#include "tests/access.hpp"
#include "tests/bench.hpp"
#include "tests/queue.hpp"

namespace {

// Forwards to a real engine and remembers every request handed to it.
class Recorder final : public ds::ForwardingIo {
 public:
  explicit Recorder(ds::IoEngine& inner) : ForwardingIo(inner) {}
  ds::Expected<std::size_t> submit(std::span<const ds::IoRequest> reqs) override {
    auto n = inner_.submit(reqs);
    if (n)
      for (std::size_t i = 0; i < *n; ++i) seen.push_back(reqs[i]);
    return n;
  }

  std::vector<ds::IoRequest> seen;
};

// The preset with 4096-byte logical (and physical) sectors; everything counted in sectors is
// divided by 8 so that tracks hold the same bytes.
ds::sim::DiskModel four_kn(const char* preset) {
  auto m = ds::sim::preset(preset);
  REQUIRE(m.ok());
  ds::sim::DiskModel d = *m;
  d.logical_sector_bytes = 4096;
  d.physical_sector_bytes = 4096;
  auto div8 = [](std::optional<std::uint32_t>& v) {
    if (v) v = std::max<std::uint32_t>(1, *v / 8);
  };
  for (auto& z : d.zones) {
    z.sectors_per_track /= 8;
    div8(z.track_skew_sectors);
    div8(z.cylinder_skew_sectors);
  }
  div8(d.track_skew_sectors);
  div8(d.cylinder_skew_sectors);
  if (d.capacity_sectors) d.capacity_sectors = *d.capacity_sectors / 8;
  d.cache.read_ahead_sectors /= 8;
  for (auto& r : d.defects) {
    r.first_lba /= 8;
    r.sectors = std::max<std::uint64_t>(1, r.sectors / 8);
  }
  for (auto& r : d.remapped) r.lba /= 8;  // the /2 presets' grown defects and factory slips
  for (auto& s : d.layout_spec.slipped) s /= 8;
  return d;
}

void check_aligned(const std::vector<ds::IoRequest>& seen) {
  REQUIRE(!seen.empty());
  for (const auto& q : seen) {
    CHECK(q.length_bytes >= 4096);
    CHECK(q.length_bytes % 4096 == 0);
    CHECK(q.offset_bytes % 4096 == 0);
  }
}

}  // namespace

TEST_CASE("4Kn drive: access reads one 4096-byte sector at a time and still finds the rotation") {
  const auto model = four_kn("raptor");
  auto t = ds::sim::open(model);
  REQUIRE(t.ok());
  REQUIRE(t->io->info().logical_block_bytes == 4096);
  Recorder rec(*t->io);
  ds::measure::AccessOptions o;
  o.budget_s = 20;
  auto a = ds::measure::run_access(rec, o);
  REQUIRE(a.ok());
  CHECK(a->block_bytes == 4096);
  check_aligned(rec.seen);
  std::size_t single = 0;
  for (const auto& q : rec.seen) single += q.length_bytes == 4096;
  CHECK(single >= a->read.n);  // every random read, at least, is one sector
  // Same mechanics as the 512-byte preset: the rotation is found as on any other drive
  // (the "rpm within 1 %" criterion of accuracy.md).
  INFO("rpm " << a->rpm.value << " model " << model.rpm);
  CHECK(std::fabs(a->rpm.value - model.rpm) <= 0.01 * model.rpm);
}

TEST_CASE("4Kn drive: the queue test's random reads are single 4096-byte sectors") {
  auto t = ds::sim::open(four_kn("raptor"));
  REQUIRE(t.ok());
  Recorder rec(*t->io);
  ds::measure::QueueOptions o;
  o.budget_s = 4;
  o.depths = {1, 4};
  auto q = ds::measure::run_queue(rec, o);
  REQUIRE(q.ok());
  CHECK(q->block_bytes == 4096);
  check_aligned(rec.seen);
  for (const auto& r : rec.seen) CHECK(r.length_bytes == 4096);
  CHECK(ds::report::queue_to_json(*q)["block_bytes"] == 4096);
}

TEST_CASE("4Kn drive: every bench test runs, sends nothing below a sector and reports 4096-byte blocks") {
  auto t = ds::sim::open(four_kn("raptor"));
  REQUIRE(t.ok());
  Recorder rec(*t->io);
  ds::measure::BenchOptions o;
  o.tests = {"transfer", "access", "cache", "blocksize", "queue", "patterns"};
  o.budget_s = 40;
  auto r = ds::measure::run_bench(rec, o);
  REQUIRE(r.ok());
  CHECK(r->errors.empty());
  check_aligned(rec.seen);
  const auto j = ds::report::bench_to_json(*r);
  CHECK(j["access"]["block_bytes"] == 4096);
  CHECK(j["queue"]["block_bytes"] == 4096);
  CHECK(j["blocksize"]["rows"][0]["block_bytes"] == 4096);  // the sweep starts at one sector
  CHECK(j["transfer"]["read_size_bytes"].get<std::uint64_t>() % 4096 == 0);
}
