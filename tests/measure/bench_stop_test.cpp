// A test that the stop request (Ctrl-C) cuts short is partial: run_bench puts it under errors, so
// no report shows it as complete (issue 31: after Ctrl-C in transfer or patterns, the test was
// shown as finished and tests.errors was missing).
#include <doctest/doctest.h>

#include <cerrno>
#include <utility>

#include "drivescope/io.hpp"
#include "report/measure_report.hpp"
#include "sim/sim.hpp"
#include "tests/bench.hpp"

namespace {

// Like the CLI's StoppableIo: after `after` submits the stop flag is up and submits fail.
class StopAfter final : public ds::ForwardingIo {
 public:
  StopAfter(ds::IoEngine& in, std::size_t after) : ForwardingIo(in), left_(after) {}
  bool stopped = false;
  ds::Expected<std::size_t> submit(std::span<const ds::IoRequest> reqs) override {
    if (left_ == 0) stopped = true;
    if (stopped) return ds::make_error("interrupted", ECANCELED);
    --left_;
    return inner_.submit(reqs.first(1));
  }

 private:
  std::size_t left_;
};

}  // namespace

TEST_CASE("bench: the test the stop request cuts short is under errors, the ones after it never run") {
  // Each with a test that runs after it (bench order: transfer … cache … patterns, actuators).
  for (const auto& [cut, after] : {std::pair{"transfer", "cache"}, std::pair{"patterns", "actuators"}}) {
    const std::string name = cut;
    CAPTURE(name);
    auto t = ds::sim::open("sim:raptor", {});
    REQUIRE(t.ok());
    StopAfter io(*t->io, 300);
    ds::measure::BenchOptions o;
    o.tests = {cut, after};
    o.budget_s = 20;
    o.stop = [&] { return io.stopped; };
    auto r = ds::measure::run_bench(io, o);
    REQUIRE(r.ok());
    bool listed = false;
    for (const auto& [test, e] : r->errors) listed = listed || test == name;
    CHECK(listed);
    CHECK_FALSE(r->cache.has_value());  // asked for, never started
    CHECK_FALSE(r->actuators.has_value());
    CHECK_FALSE(r->positioning.has_value());
    const auto j = ds::report::bench_to_json(*r);
    CHECK(j["errors"].contains(cut));
  }
}

// The bench's drive time is measured where every test's I/O passes, so a test that fails (and
// returns no figures, its own drive time with them) is still counted: before, a failed transfer's
// whole share went missing from the total the twin's 180 s promise rests on.
TEST_CASE("bench: the drive time counts a failed test's I/O, and equals the tests' own where none failed") {
  {
    auto t = ds::sim::open("sim:raptor", {});
    REQUIRE(t.ok());
    ds::measure::BenchOptions o;
    o.tests = {"access"};
    o.budget_s = 0.1;  // too little for the access test's reads
    auto r = ds::measure::run_bench(*t->io, o);
    REQUIRE(r.ok());
    REQUIRE_FALSE(r->access.has_value());
    REQUIRE(r->positioning.has_value());
    // The access test's reads took drive time (a random read on this drive: several ms).
    CHECK(r->drive_time_s >= r->positioning->drive_time_s + 0.005);
  }
  {
    auto t = ds::sim::open("sim:raptor", {});
    REQUIRE(t.ok());
    ds::measure::BenchOptions o;
    o.tests = {"transfer", "access", "cache"};
    o.budget_s = 10;
    auto r = ds::measure::run_bench(*t->io, o);
    REQUIRE(r.ok());
    REQUIRE(r->errors.empty());
    const double parts = r->transfer->drive_time_s + r->access->drive_time_s + r->cache->drive_time_s +
                         r->positioning->drive_time_s;
    CHECK(r->drive_time_s == doctest::Approx(parts).epsilon(0.001));
  }
}
