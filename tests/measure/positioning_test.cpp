// The one positioning verdict per target (issue 31): depth-1 random reads tell a device without
// mechanical positioning (RAM, flash, a page-cached file) from a rotating drive, and a bench on
// the former gives no zone, surface, rotation, seek or reordering figure; on a simulated drive it
// changes nothing the tests measured before it.
#include <doctest/doctest.h>

#include <cmath>
#include <deque>
#include <vector>

#include "report/measure_report.hpp"
#include "sim/sim.hpp"
#include "tests/bench.hpp"
#include "tests/positioning.hpp"
#include "tests/transfer.hpp"

namespace {

using ds::measure::judge_positioning;

// A device without mechanics in virtual time: every request takes its base time (a fixed cost
// plus its length at `mb_s`) and, with probability stall_p, a host stall of stall_ms; requests
// are served in parallel, as a RAM disk or flash does.
class FlatIo final : public ds::IoEngine {
 public:
  FlatIo(double base_ms, double stall_p, double stall_ms, std::uint64_t seed)
      : base_ms_(base_ms), stall_p_(stall_p), stall_ms_(stall_ms), rng_(seed) {
    info_.name = "flat";
    info_.capacity_bytes = std::uint64_t{1} << 30;
    info_.virtual_time = true;
    info_.max_queue_depth = 32;
  }
  const ds::IoTargetInfo& info() const override { return info_; }
  std::int64_t now_ns() override { return now_; }
  ds::Expected<std::size_t> submit(std::span<const ds::IoRequest> reqs) override {
    for (const auto& r : reqs) {
      double ms = base_ms_ * (0.8 + 0.4 * rng_.uniform()) + r.length_bytes / 2e9 * 1e3;
      if (rng_.uniform() < stall_p_) ms += stall_ms_ * (0.5 + rng_.uniform());
      pending_.push_back({r.tag, now_, now_ + static_cast<std::int64_t>(ms * 1e6), static_cast<std::int32_t>(r.length_bytes)});
    }
    return reqs.size();
  }
  ds::Expected<std::size_t> reap(std::span<ds::IoCompletion> out, std::size_t min_events,
                                 std::chrono::milliseconds) override {
    std::sort(pending_.begin(), pending_.end(), [](auto& a, auto& b) { return a.complete_ns < b.complete_ns; });
    std::size_t n = 0;
    while (n < out.size() && !pending_.empty() && (n < min_events || pending_.front().complete_ns <= now_)) {
      out[n] = pending_.front();
      now_ = std::max(now_, out[n].complete_ns);
      pending_.pop_front();
      ++n;
    }
    return n;
  }
  void idle(std::chrono::nanoseconds d) override { now_ += d.count(); }
  std::size_t in_flight() const override { return pending_.size(); }

 private:
  double base_ms_, stall_p_, stall_ms_;
  ds::measure::Rng rng_;
  ds::IoTargetInfo info_;
  std::int64_t now_ = 0;
  std::deque<ds::IoCompletion> pending_;
};

}  // namespace

TEST_CASE("judge_positioning: by the least delayed round; sub-millisecond reads are no mechanics, a revolution's wait is") {
  ds::measure::Rng rng(3);
  std::vector<std::vector<double>> ram(6), disk(6);
  for (std::size_t k = 0; k < 6; ++k)
    for (int i = 0; i < 16; ++i) {
      ram[k].push_back(0.02 + 0.05 * rng.uniform());
      // 15 000 rpm, a short span: a small seek and a uniform rotational wait over 4 ms.
      disk[k].push_back(0.3 + 4.0 * rng.uniform());
    }
  CHECK(judge_positioning(ram).mechanical == false);
  CHECK(judge_positioning(disk).mechanical == true);
  CHECK_FALSE(judge_positioning(std::vector<std::vector<double>>{std::vector<double>(10, 0.05)}).mechanical.has_value());
  // A host that held five whole rounds back by milliseconds (a loop device's worker waiting for a
  // CPU: 64 reads at a 4 ms median, targets ctest) does not make a RAM disk a drive.
  for (std::size_t k = 0; k < 5; ++k)
    for (auto& x : ram[k]) x += 4 + 4 * rng.uniform();
  CHECK(judge_positioning(ram).mechanical == false);
  // Nor do stalls make a drive flat, or one lucky round: the drive's least delayed round still
  // waited for its sectors.
  for (auto& x : disk[0]) x *= 0.3;
  CHECK(judge_positioning(disk).mechanical == true);
}

TEST_CASE("bench on a device without mechanics: one verdict, and no zone, surface, rotation, seek or reordering") {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    CAPTURE(seed);
    FlatIo io(0.05, 0.2, 6.0, seed);
    ds::measure::BenchOptions o;
    o.tests = {"transfer", "access", "queue"};
    o.budget_s = 6;
    o.seed = seed;
    auto r = ds::measure::run_bench(io, o);
    REQUIRE(r.ok());
    REQUIRE(r->positioning.has_value());
    CHECK(r->positioning->verdict.mechanical == false);
    REQUIRE(r->transfer.has_value());
    CHECK(r->transfer->zones.empty());
    CHECK(r->transfer->surfaces_estimate == 0);
    CHECK(r->transfer->rotation_ms.value == 0);
    CHECK(r->transfer->outer_mb_s.value == 0);  // a zone's rate: no zones, none
    CHECK(r->transfer->inner_mb_s.value == 0);
    CHECK_FALSE(r->transfer->points.empty());  // the rates stay: they are what the device does
    REQUIRE(r->access.has_value());
    CHECK(r->access->rpm.value == 0);
    CHECK(r->access->avg_seek_ms.value == 0);
    CHECK(r->access->seek_curve.empty());
    REQUIRE(r->queue.has_value());
    CHECK_FALSE(r->queue->verdict.reorders.has_value());
    CHECK(r->queue->verdict.no_positioning_cost);
    const auto j = ds::report::bench_to_json(*r);
    CHECK(j["positioning"]["mechanical"] == false);
    CHECK(j["transfer"]["zones"].empty());
  }
}

TEST_CASE("bench on a simulated drive: mechanical positioning; no probe where no test assumes mechanics") {
  auto with = [](std::vector<std::string> tests) {
    auto t = ds::sim::open("sim:raptor", {});
    REQUIRE(t.ok());
    ds::measure::BenchOptions o;
    o.tests = std::move(tests);
    o.budget_s = 10;
    auto r = ds::measure::run_bench(*t->io, o);
    REQUIRE(r.ok());
    return *r;
  };
  const auto r = with({"access"});
  REQUIRE(r.positioning.has_value());
  CHECK(r.positioning->verdict.mechanical == true);
  CHECK(r.positioning->verdict.p50_ms > 2);
  REQUIRE(r.access.has_value());
  CHECK(r.access->rpm.value > 9000);
  CHECK_FALSE(with({"cache", "blocksize"}).positioning.has_value());
}
