// A drive that holds a queued read back while it serves the reads behind it: the transfer test's
// streams end on their time, not when the held read comes back. DiskSim's DEC RZ26 with its full
// parameters (tests/data/disk-models-disksim/dec_rz26.json), given a queue of 64 served by pure
// SPTF with no age limit (as the importer once gave every DiskSim drive: the real one holds one
// request), leaves one read of a sequential stream at depth 8 waiting for as long as the reads
// after it keep the head busy. The structure stream of 1.5 s had run the test's whole share
// (68 s) and left no rate sample (CI of 280bc09; the twin then drafted from a bench without
// transfer).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/sim.hpp"
#include "tests/runner.hpp"
#include "tests/transfer.hpp"

using namespace ds::measure;

namespace {

// The full RZ26 model with tagged queuing of 64 by SPTF.
ds::sim::DiskModel reordering_rz26() {
  auto m = ds::sim::load_model_file(std::string(DS_TEST_DATA) + "/disk-models-disksim/dec_rz26.json");
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message));
  m->queue = {ds::sim::QueueProtocol::tcq, 64, ds::sim::QueuePolicy::sptf, 0, 0};
  return *m;
}

}  // namespace

TEST_CASE("held read: the drive really holds a queued read back (the premise of the case below)") {
  auto t = ds::sim::open(reordering_rz26());
  REQUIRE(t.ok());
  // 2000 sequential reads of 8 blocks at depth 8: some read completes after reads submitted well
  // after it have come back (overtaken by more than the depth).
  std::vector<PlanEntry> plan;
  for (std::uint64_t i = 0; i < 2000; ++i) plan.push_back({i * 8, 8, false});
  RunOptions ro;
  ro.queue_depth = 8;
  Budget b(60);
  RunResult r = run_plan(*t->io, plan, ro, b);
  REQUIRE(r.ok());
  std::size_t worst = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    std::size_t later_first = 0;
    for (std::size_t j = i + 1; j < plan.size(); ++j)
      if (r.samples[j].complete_ns < r.samples[i].complete_ns) ++later_first;
    worst = std::max(worst, later_first);
  }
  CHECK(worst > 8);
}

TEST_CASE("held read: transfer's streams end on their time; the rate samples get their share") {
  auto t = ds::sim::open(reordering_rz26());
  REQUIRE(t.ok());
  TransferOptions o;
  o.budget_s = 60;
  auto r = run_transfer(*t->io, o, nullptr);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  // The budget stops submission; the reads in flight then finish: 8 of them, each well under
  // 30 ms on this drive (a revolution is 11 ms, the full stroke about 20).
  CHECK(r->drive_time_s <= o.budget_s + 8 * 0.030);
  // The grid's floor of 8 samples, at the least, were taken.
  CHECK(r->points.size() >= 8);
  CHECK_FALSE(r->zones.empty());
}
