// The read-queuing test on every simulated drive: the DiskSim model files and every preset, plus
// fifo and no-queue variants of each model file. The expected verdict comes from the model (the
// test may look at it; the measurement module may not): a queue protocol with SPTF reorders, FIFO
// or no queue does not. On reordering drives IOPS at depth 32 must be at least twice depth 1.
#include <doctest/doctest.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "drivescope/io.hpp"
#include "report/measure_report.hpp"
#include "sim/sim.hpp"
#include "tests/queue.hpp"
#include "../support/ideal_gain.hpp"

namespace fs = std::filesystem;

namespace {

struct Subject {
  std::string name;
  ds::sim::DiskModel model;
};

std::vector<Subject> subjects() {
  std::vector<Subject> v;
  for (const auto& n : ds::sim::preset_names()) {
    auto m = ds::sim::preset(n);
    REQUIRE_MESSAGE(m.ok(), n);
    v.push_back({"preset " + n, *m});
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(DS_TEST_DATA) / "disk-models")) {
    const auto p = e.path();
    if (p.extension() == ".json" && p.string().find(".truth.") == std::string::npos) files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 8);
  for (const auto& p : files) {
    auto t = ds::sim::open(p.string());
    REQUIRE_MESSAGE(t.ok(), p.string());
    v.push_back({"model " + p.stem().string(), t->model});
    // The same mechanics without reordering: FIFO service, and no queue at all.
    auto fifo = t->model;
    fifo.queue.policy = ds::sim::QueuePolicy::fifo;
    v.push_back({"model " + p.stem().string() + " (fifo)", fifo});
    auto none = t->model;
    none.queue = {ds::sim::QueueProtocol::none, 1, ds::sim::QueuePolicy::fifo};
    v.push_back({"model " + p.stem().string() + " (no queue)", none});
  }
  return v;
}

bool expected_reorders(const ds::sim::DiskModel& m) {
  return m.queue.protocol != ds::sim::QueueProtocol::none && m.queue.depth > 1 &&
         m.queue.policy == ds::sim::QueuePolicy::sptf;
}

const ds::measure::QueueDepthResult* at(const ds::measure::QueueResult& r, unsigned d) {
  for (const auto& x : r.depths)
    if (x.depth == d) return &x;
  return nullptr;
}


// The queue test with 12 s of drive time on one simulated drive.
constexpr double kQueueBudgetS = 12;
ds::measure::QueueResult queue_on(const Subject& s) {
  auto t = ds::sim::open(s.model);
  REQUIRE(t.ok());
  ds::measure::QueueOptions o;
  o.budget_s = kQueueBudgetS;
  auto r = ds::measure::run_queue(*t->io, o);
  REQUIRE(r.ok());
  return std::move(*r);
}

}  // namespace

TEST_CASE("queue: reorder verdict right on every simulated drive, depth-32 gain >= 2x when it reorders") {
  int reordering = 0, fifo = 0;
  for (const auto& s : subjects()) {
    INFO(s.name);
    const auto r = queue_on(s);
    REQUIRE(r.depths.size() == 6);
    const auto* d1 = at(r, 1);
    const auto* d32 = at(r, 32);
    REQUIRE(d1);
    REQUIRE(d32);
    CHECK(d32->reached_depth == 32);
    const double gain = d32->iops / d1->iops;
    INFO("gain x" << gain << "; " << ds::report::reorder_evidence_text(r.verdict));
    MESSAGE(s.name << ": reorders=" << std::string(r.verdict.reorders ? (*r.verdict.reorders ? "yes" : "no") : "?")
                   << " conf " << r.verdict.confidence.value_or(-1) << " IOPS d1 " << d1->iops << " d32 "
                   << d32->iops << " gain x" << gain << " lat exp " << r.verdict.latency_exponent);
    REQUIRE(r.verdict.reorders.has_value());
    CHECK(*r.verdict.reorders == expected_reorders(s.model));
    REQUIRE(r.verdict.confidence.has_value());
    CHECK(*r.verdict.confidence >= 0.9);
    CHECK(r.drive_time_s <= 3 * kQueueBudgetS);
    if (expected_reorders(s.model)) {
      ++reordering;
      // issue 5: "IOPS at depth 32 at least twice that at depth 1" on every reordering drive,
      // held to the physical bound: at least 0.95x what an ideal greedy scheduler gains over
      // in-order service on this geometry, and 2x wherever that ideal reaches 2.1 (the HP
      // C2247A/C2249A's 2.9 ms one-cylinder seek, paid by every reordered access, keeps their
      // ideal at 1.89-1.90x).
      auto t = ds::sim::open(s.model);
      REQUIRE(t.ok());
      const double ideal = simtest::ideal_greedy_gain(*t, 32, 6000);
      INFO("ideal greedy gain x" << ideal);
      CHECK(gain >= 0.95 * ideal);
      if (ideal >= 2.1) CHECK(gain >= 2.0);
      CHECK(d32->mean_ms < 32 * d1->mean_ms * 0.6);  // latency grows sub-linearly
      CHECK(d32->overtaken_share > 0.3);
    } else {
      ++fifo;
      CHECK(gain < 1.3);
      CHECK(d32->mean_ms > 20 * d1->mean_ms);  // the diagonal ridge: about 32x
      CHECK(d32->overtaken_share == 0.0);      // served in arrival order
    }
    // The histogram holds every counted latency and agrees with the figures.
    CHECK(d32->histogram.count() == d32->ios);
    CHECK(d32->coarse.count() == d32->ios);
    CHECK(d32->p50_ms <= d32->p99_ms);
  }
  CHECK(reordering >= 8);
  CHECK(fifo >= 16);
}

TEST_CASE("queue: JSON has the documented keys, histogram buckets sum to the count") {
  auto t = ds::sim::open("sim:raptor");
  REQUIRE(t.ok());
  ds::measure::QueueOptions o;
  o.depths = {1, 4, 16};
  o.budget_s = 4;
  auto r = ds::measure::run_queue(*t->io, o);
  REQUIRE(r.ok());
  auto j = ds::report::queue_to_json(*r);
  REQUIRE(j["depths"].size() == 3);
  for (const auto& d : j["depths"]) {
    for (const char* k : {"depth", "iops", "mean_ms", "p99_ms", "histogram"}) CHECK(d.contains(k));
    std::uint64_t sum = 0;
    double prev_upper = 0;
    for (const auto& b : d["histogram"]) {
      CHECK(b["lower_ms"].get<double>() >= prev_upper - 1e-9);
      prev_upper = b["upper_ms"].get<double>();
      sum += b["count"].get<std::uint64_t>();
    }
    CHECK(sum == d["ios"].get<std::uint64_t>());
  }
  CHECK(j["reorders"].is_boolean());
  auto text = ds::report::queue_to_text(*r);
  CHECK(text.find("reorders: yes") != std::string::npos);
}

TEST_CASE("queue: bad depths are refused before any I/O") {
  auto t = ds::sim::open("sim:raptor");
  REQUIRE(t.ok());
  ds::measure::QueueOptions o;
  o.depths = {1, 512};
  CHECK_FALSE(ds::measure::run_queue(*t->io, o).ok());
  o.depths = {0};
  CHECK_FALSE(ds::measure::run_queue(*t->io, o).ok());
  o.depths = {};
  CHECK_FALSE(ds::measure::run_queue(*t->io, o).ok());
}

namespace {
// A drive whose reads fail (EIO) once `good` of them have completed: a drive that fails mid-run.
class FailsAfter final : public ds::ForwardingIo {
 public:
  FailsAfter(ds::IoEngine& in, std::size_t good) : ForwardingIo(in), left_(good) {}
  ds::Expected<std::size_t> reap(std::span<ds::IoCompletion> out, std::size_t min_events,
                                 std::chrono::milliseconds timeout) override {
    auto r = inner_.reap(out, min_events, timeout);
    if (!r) return r;
    for (std::size_t i = 0; i < *r; ++i) {
      if (left_ == 0) out[i].result = -EIO;
      else --left_;
    }
    return r;
  }

 private:
  std::size_t left_;
};
}  // namespace

TEST_CASE("queue: a drive that fails after some depths keeps them and says so as an error") {
  auto t = ds::sim::open("sim:raptor");
  REQUIRE(t.ok());
  ds::measure::QueueOptions o;
  o.depths = {1, 2, 4, 8};
  o.budget_s = 4;
  // Enough good reads for depth 1 and part of the run, not for all four depths.
  FailsAfter io(*t->io, 300);
  auto q = ds::measure::run_queue(io, o);
  REQUIRE(q.ok());
  CHECK_FALSE(q->depths.empty());
  CHECK(q->depths.size() < 4);
  REQUIRE(q->error);
  CHECK(q->error->code == EIO);
  // A drive that fails the first read: no depth, an error.
  FailsAfter dead(*t->io, 0);
  CHECK_FALSE(ds::measure::run_queue(dead, o).ok());
}

TEST_CASE("queue verdict: no positioning cost -> inconclusive; flat and linear -> no") {
  using ds::measure::QueueDepthResult;
  auto mk = [](unsigned d, double iops, double mean, double sd, double overtaken) {
    QueueDepthResult r;
    r.depth = r.reached_depth = d;
    r.ios = 1000;
    r.iops = iops;
    r.iops_rel_se = 0.02;
    r.mean_ms = r.p50_ms = mean;
    r.stddev_ms = sd;
    r.overtaken_share = overtaken;
    return r;
  };
  // A RAM-like device: 0.1 ms, IOPS growing from parallelism.
  std::vector<QueueDepthResult> ram{mk(1, 9000, 0.11, 0.02, 0), mk(32, 60000, 0.5, 0.1, 0.4)};
  auto v = ds::measure::judge_reordering(ram);
  // Why `reorders` is null: the code the JSON's `withheld` carries (none where it is told).
  auto why = [&v] { return v.undecided ? v.undecided->reason : ds::measure::WithheldReason::budget_spent; };
  CHECK_FALSE(v.reorders.has_value());
  CHECK(v.no_positioning_cost);
  CHECK(why() == ds::measure::WithheldReason::queue_no_positioning_cost);
  // A loop device on a busy host (targets ctest, measured): a few depth-1 reads stalled by
  // milliseconds, so its mean is 0.63 ms and its IOPS known to +-58 %, its median 8 us. It was
  // "no usable depth-1 run" and no_positioning_cost false in 2 runs of 10.
  auto stalled = mk(1, 1580, 0.63, 2.2, 0);
  stalled.p50_ms = 0.008;
  stalled.iops_rel_se = 0.29;
  v = ds::measure::judge_reordering({stalled, mk(32, 40000, 0.8, 3, 0.3)});
  CHECK_FALSE(v.reorders.has_value());
  CHECK(v.no_positioning_cost);
  // A fixed-latency emulated disk: 3 ms every time.
  std::vector<QueueDepthResult> fixed{mk(1, 330, 3.0, 0.05, 0), mk(32, 330, 96, 2, 0)};
  v = ds::measure::judge_reordering(fixed);
  CHECK_FALSE(v.reorders.has_value());
  CHECK(v.no_positioning_cost);
  CHECK(why() == ds::measure::WithheldReason::queue_no_positioning_cost);
  // A mechanical FIFO drive.
  std::vector<QueueDepthResult> mech{mk(1, 80, 12.5, 5, 0), mk(8, 81, 99, 20, 0), mk(32, 82, 390, 40, 0)};
  v = ds::measure::judge_reordering(mech);
  REQUIRE(v.reorders.has_value());
  CHECK_FALSE(*v.reorders);
  CHECK_FALSE(v.undecided.has_value());
  // IOPS x3 but every completion in arrival order: parallel, not reordering.
  std::vector<QueueDepthResult> par{mk(1, 80, 12.5, 5, 0), mk(32, 240, 130, 20, 0)};
  v = ds::measure::judge_reordering(par);
  CHECK_FALSE(v.reorders.has_value());
  CHECK(why() == ds::measure::WithheldReason::queue_parallel_service);
  CHECK(v.undecided->number("deep_iops") == doctest::Approx(240));
  // QEMU on a loaded host (measured in the VM): 3.8 ms at depth 1 with a wide spread, IOPS x10
  // at depth 32 from its thread pool, 2 % out of order: parallel service, not reordering.
  std::vector<QueueDepthResult> qemu{mk(1, 282, 3.77, 4.06, 0), mk(8, 820, 6.7, 6.4, 0.066),
                                     mk(32, 2862, 7.73, 11.6, 0.024)};
  v = ds::measure::judge_reordering(qemu);
  CHECK_FALSE(v.reorders.has_value());
  CHECK(v.parallel_service);
  // The in-order drive served through QEMU's AHCI on a 1 s budget (vm-serve, measured): depth
  // 32 had 40 reads and the guest saw its completions in clumps, so its IOPS came out x2.5 the
  // drive's with a standard error of 39 %. It gets no say: the verdict is at depth 8, where the
  // IOPS is known, and says which depth it left out.
  auto fuzzy = [&](QueueDepthResult r, std::uint64_t ios, double rel_se) {
    r.ios = ios;
    r.iops_rel_se = rel_se;
    return r;
  };
  std::vector<QueueDepthResult> clumped{mk(1, 65, 15.4, 6, 0), mk(8, 74, 104, 20, 0.01),
                                        fuzzy(mk(32, 161, 365, 40, 0.45), 40, 0.39)};
  v = ds::measure::judge_reordering(clumped);
  REQUIRE(v.reorders.has_value());
  CHECK_FALSE(*v.reorders);
  CHECK(v.deepest == 8);
  CHECK(v.unjudged.find("depth 32") != std::string::npos);
  // Every deep depth that vague: undecided, and saying why.
  clumped[1] = fuzzy(clumped[1], 40, 0.48);
  v = ds::measure::judge_reordering(clumped);
  CHECK_FALSE(v.reorders.has_value());
  CHECK(why() == ds::measure::WithheldReason::queue_deep_vague);
  CHECK(v.undecided->number("vague_depth") == 32);
  CHECK(v.undecided->number("judged_at") == 1);
  // No depth 1: nothing to judge.
  std::vector<QueueDepthResult> none{mk(32, 240, 130, 20, 0.5)};
  v = ds::measure::judge_reordering(none);
  CHECK_FALSE(v.reorders.has_value());
  CHECK_FALSE(v.confidence.has_value());
  CHECK(why() == ds::measure::WithheldReason::queue_no_depth1);
}
