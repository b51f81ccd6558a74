// The simulator's dispatch is deterministic for a seed, and making it faster must not change a
// single completion: fixed depth-32 plans (random reads as in bench/sim_random_reads, and a mixed
// plan of reads, writes, sequential runs, re-reads of what is queued and idle gaps) on the
// presets and on /2 models that switch on every timing key the dispatch and the read-ahead
// stream depend on, compared completion by completion (tag, stamp, result) with the traces in
// tests/data/sim-golden.
//
// Those traces were written by this very test running the simulator as it was before the
// incremental SPTF scoring (main at 13c8f0e), with DS_WRITE_SIM_GOLDEN=1 in the environment
// (the case then writes the files and fails, so that writing them is never mistaken for a check).
// A trace file holds the completion count, a hash of every completion, and every 100th
// completion in full so that a mismatch says where it starts.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/rng.hpp"
#include "sim_test_util.hpp"

namespace {

constexpr int kRequests = 3000;
constexpr unsigned kDepth = 32;
constexpr int kCheckpointEvery = 100;

struct Trace {
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a over (tag, stamp, result) of each completion
  std::vector<std::string> checkpoints;
  int count = 0;
  void add(const ds::IoCompletion& c) {
    for (std::uint64_t v : {c.tag, static_cast<std::uint64_t>(c.complete_ns), static_cast<std::uint64_t>(c.result)})
      for (int b = 0; b < 8; ++b) hash = (hash ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ull;
    if (count % kCheckpointEvery == 0)
      checkpoints.push_back(std::to_string(count) + " " + std::to_string(c.tag) + " " +
                            std::to_string(c.complete_ns) + " " + std::to_string(c.result));
    ++count;
  }
  std::string text() const {
    std::ostringstream o;
    o << "count " << count << "\nhash " << hash << "\n";
    for (const auto& s : checkpoints) o << s << "\n";
    return o.str();
  }
};

// Keeps kDepth requests outstanding; next(i) makes request i.
template <class Next>
Trace run_plan(ds::IoEngine& io, Next&& next, ds::sim::Rng* idle_rng) {
  Trace tr;
  int submitted = 0;
  ds::IoCompletion c[kDepth];
  auto submit_one = [&] {
    const ds::IoRequest r = next(submitted);
    REQUIRE(io.submit({&r, 1}).value() == 1);
    ++submitted;
  };
  while (submitted < static_cast<int>(kDepth)) submit_one();
  while (tr.count < kRequests) {
    const auto k = io.reap(c, 1, std::chrono::milliseconds(0)).value();
    REQUIRE(k > 0);
    for (std::size_t i = 0; i < k; ++i) tr.add(c[i]);
    // Idle gaps let the read-ahead run on and write-back destage with the queue partly drained.
    if (idle_rng && idle_rng->below(50) == 0) io.idle(std::chrono::nanoseconds(idle_rng->below(5'000'000)));
    for (std::size_t i = 0; i < k && submitted < kRequests; ++i) submit_one();
  }
  return tr;
}

Trace random_reads(ds::IoEngine& io) {
  const std::uint32_t bs = io.info().logical_block_bytes;
  const std::uint64_t cap = io.info().capacity_bytes / bs;
  ds::sim::Rng rng(1234);
  return run_plan(io, [&](int i) {
    return ds::IoRequest{rng.below(cap) * bs, bs, false, static_cast<std::uint64_t>(i)};
  }, nullptr);
}

// Random and sequential reads and writes of mixed sizes; a share re-read a recent request (a
// cache hit, or a command the scorer sees hit once an earlier one has been served).
Trace mixed(ds::IoEngine& io) {
  const std::uint32_t bs = io.info().logical_block_bytes;
  const std::uint64_t cap = io.info().capacity_bytes / bs;
  ds::sim::Rng rng(99), idle(7);
  std::vector<std::uint64_t> recent(64, 0);
  std::uint64_t seq = 0;
  return run_plan(io, [&](int i) {
    const std::uint64_t kind = rng.below(10);
    std::uint32_t len = 1 + static_cast<std::uint32_t>(rng.below(kind < 3 ? 256 : 16));
    std::uint64_t lba = 0;
    if (kind < 3) lba = seq;                                       // sequential
    else if (kind < 5) lba = recent[rng.below(recent.size())];     // a recent one again
    else if (kind < 6) lba = rng.below(cap / 1000);                // a small hot region
    else lba = rng.below(cap - len);                               // anywhere
    if (lba + len > cap) lba = 0;
    seq = lba + len;
    recent[static_cast<std::size_t>(i) % recent.size()] = lba;
    const bool write = rng.below(6) == 0;
    return ds::IoRequest{lba * bs, len * bs, write, static_cast<std::uint64_t>(i)};
  }, &idle);
}

// raptor as format /2 with the keys that touch dispatch and streaming: window and max_wait,
// zero-latency reads, overhead and host noise, a slow AAM rate (revolutions lost at switches),
// remapped LBAs and a slow region, recalibration.
ds::sim::DiskModel v2_noisy() {
  auto m = ds::sim::preset("raptor");
  REQUIRE(m.ok());
  m->format_version = 2;
  m->queue.window = 12;
  m->queue.max_wait_ms = 300;
  m->cache.zero_latency_read = true;
  m->noise.seek_jitter_pct = 2;
  m->noise.overhead_jitter_ms = 0.02;
  m->noise.host_latency_us = 30;
  m->noise.host_stall_probability = 0.01;
  m->noise.host_stall_ms = 3;
  m->aam.quiet_rate_scale = 0.8;
  m->aam.quiet_seek_scale = 1.4;
  m->aam.default_level = 180;
  m->rpm_actual = m->rpm * 0.999;
  m->recalibration = {0.5, 20};
  for (std::uint64_t k = 1; k <= 50; ++k) m->remapped.push_back({k * 1000003, 12});
  m->defects.push_back({5'000'000, 200'000, 4});
  return *m;
}

// modern8tb with DiskSim's controller keys (overheads by type, write-behind level 1, bus time
// per sector) and the serpentine layout with spares.
ds::sim::DiskModel v2_controller() {
  auto m = ds::sim::preset("modern8tb");
  REQUIRE(m.ok());
  m->format_version = 2;
  ds::sim::OverheadTable o;
  o.read_hit[0] = 0.05, o.read_hit[1] = 0.07, o.read_miss[0] = 0.3, o.read_miss[1] = 0.35;
  o.write_hit[0] = 0.06, o.write_hit[1] = 0.08, o.write_miss[0] = 0.4, o.write_miss[1] = 0.45;
  o.read_completion = 0.02, o.write_completion = 0.03;
  m->controller.overheads = o;
  m->controller.write_behind_level = 1;
  m->controller.bulk_sector_ms = 0.002;
  m->controller.write_settle_ms = -0.05;
  m->layout_spec.kind = ds::sim::LayoutKind::surface_serpentine;
  m->layout_spec.band_cylinders = 40;
  m->layout_spec.layout_given = true;
  m->layout_spec.spares_per_track = 2;
  m->layout_spec.spares_per_cylinder = 3;
  m->layout_spec.spares_given = true;
  return *m;
}

void check_against_golden(const std::string& name, const Trace& tr) {
  const std::string path = std::string(DS_TEST_DATA) + "/sim-golden/" + name + ".txt";
  if (std::getenv("DS_WRITE_SIM_GOLDEN")) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << tr.text();
    FAIL_CHECK("wrote " << path << " (DS_WRITE_SIM_GOLDEN is set: nothing was checked)");
    return;
  }
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "missing " << path);
  std::stringstream want;
  want << in.rdbuf();
  CHECK(tr.count == kRequests);
  CHECK(tr.text() == want.str());
}

ds::sim::SimTarget open_preset(const std::string& name) {
  ds::sim::SimOptions o;
  o.writable = true;
  auto t = ds::sim::open("sim:" + name, o);
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  return std::move(*t);
}

}  // namespace

TEST_CASE("dispatch golden: depth-32 random reads on the queuing presets complete as before") {
  for (const std::string p : {"raptor", "modern8tb", "cheetah15k3", "7200.7"}) {
    CAPTURE(p);
    auto t = open_preset(p);
    check_against_golden(p + "-random-qd32", random_reads(*t.io));
  }
}

TEST_CASE("dispatch golden: a mixed depth-32 plan completes as before") {
  for (const std::string p : {"raptor", "modern8tb"}) {
    CAPTURE(p);
    auto t = open_preset(p);
    check_against_golden(p + "-mixed-qd32", mixed(*t.io));
  }
}

TEST_CASE("dispatch golden: /2 models with every dispatch-related key complete as before") {
  ds::sim::SimOptions o;
  o.writable = true;
  {
    auto t = ds::sim::open(v2_noisy(), o);
    REQUIRE(t.ok());
    check_against_golden("v2-noisy-random-qd32", random_reads(*t->io));
  }
  {
    auto t = ds::sim::open(v2_noisy(), o);
    REQUIRE(t.ok());
    check_against_golden("v2-noisy-mixed-qd32", mixed(*t->io));
  }
  {
    auto t = ds::sim::open(v2_controller(), o);
    REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
    check_against_golden("v2-controller-mixed-qd32", mixed(*t->io));
  }
}
