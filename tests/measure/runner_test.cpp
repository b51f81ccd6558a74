// The I/O runner (src/tests/runner.*): each way a run can end gives its StopReason, over a scripted
// engine whose every read takes 1 ms of virtual time, one at a time (or `burst` at a time), and
// which can fail a chosen offset, stop answering, or have its device vanish; and how the closed
// loop hands its requests to the engine.
#include <doctest/doctest.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <deque>
#include <optional>
#include <vector>

#include "tests/queue.hpp"
#include "tests/runner.hpp"

namespace {

using ds::measure::StopReason;

class Scripted final : public ds::IoEngine {
 public:
  explicit Scripted(bool virtual_time = true) {
    info_.name = "scripted";
    info_.virtual_time = virtual_time;
    info_.capacity_bytes = 1 << 30;
    info_.max_queue_depth = 32;
  }
  std::optional<std::uint64_t> fail_offset;  // a read here fails with fail_errno
  int fail_errno = EIO;
  bool silent = false;                       // reap sees nothing (a hung device)
  std::size_t burst = 1;                     // reads completing together, 1 ms for all
  std::vector<std::size_t> calls;            // requests per submit call
  std::size_t most_in_flight = 0;
  const ds::IoTargetInfo& info() const override { return info_; }
  std::int64_t now_ns() override { return now_; }
  ds::Expected<std::size_t> submit(std::span<const ds::IoRequest> r) override {
    for (const auto& q : r) queue_.push_back({q, now_});
    calls.push_back(r.size());
    most_in_flight = std::max(most_in_flight, queue_.size());
    return r.size();
  }
  ds::Expected<std::size_t> reap(std::span<ds::IoCompletion> out, std::size_t,
                                 std::chrono::milliseconds) override {
    if (silent || queue_.empty() || out.empty()) return std::size_t{0};
    now_ += 1'000'000;  // 1 ms a read (or a burst), served in order
    std::size_t n = 0;
    for (; n < std::min(burst, out.size()) && !queue_.empty(); ++n) {
      auto [q, t] = queue_.front();
      queue_.pop_front();
      ds::IoCompletion& c = out[n];
      c.tag = q.tag;
      c.submit_ns = t;
      c.complete_ns = now_;
      c.result = fail_offset && *fail_offset == q.offset_bytes ? -fail_errno
                                                               : static_cast<std::int32_t>(q.length_bytes);
    }
    return n;
  }
  void idle(std::chrono::nanoseconds d) override { now_ += d.count(); }
  std::size_t in_flight() const override { return queue_.size(); }

 private:
  ds::IoTargetInfo info_;
  std::int64_t now_ = 0;
  std::deque<std::pair<ds::IoRequest, std::int64_t>> queue_;
};

std::vector<ds::measure::PlanEntry> plan_of(std::size_t n) {
  return ds::measure::sequential_plan(0, 8, n, 1 << 20);
}

}  // namespace

TEST_CASE("run_plan: a finished plan is done, with every entry stamped") {
  Scripted io;
  ds::measure::Budget budget(1000);
  const auto plan = plan_of(20);
  ds::measure::RunOptions ro;
  ro.queue_depth = 4;
  const auto r = ds::measure::run_plan(io, plan, ro, budget);
  CHECK(r.stop == StopReason::done);
  CHECK_FALSE(r.error);
  CHECK(std::count(r.done.begin(), r.done.end(), true) == 20);
  CHECK(r.drive_ns == 20'000'000);
  CHECK(budget.used_ns() == r.drive_ns);
}

TEST_CASE("run_plan: a budget spent before the plan ends it early as budget_spent") {
  Scripted io;
  ds::measure::Budget budget(0.0055);  // 5.5 reads' worth
  const auto plan = plan_of(50);
  const auto r = ds::measure::run_plan(io, plan, {}, budget);
  CHECK(r.stop == StopReason::budget_spent);
  CHECK_FALSE(ds::measure::failed(r.stop));
  const auto n = std::count(r.done.begin(), r.done.end(), true);
  CHECK(n >= 5);
  CHECK(n < 50);
  CHECK(ds::measure::budget_spent(r.error));  // what the modules not yet reading `stop` see
}

TEST_CASE("run_plan: keep_going ending the plan is done, not a failure") {
  Scripted io;
  ds::measure::Budget budget(1000);
  const auto plan = plan_of(50);
  const auto r = ds::measure::run_plan(io, plan, {}, budget, [](const ds::measure::RunResult& rr) {
    return std::count(rr.done.begin(), rr.done.end(), true) < 10;
  });
  CHECK(r.stop == StopReason::done);
  CHECK(std::count(r.done.begin(), r.done.end(), true) == 10);
}

TEST_CASE("run_plan: a failed read is an io_error, a vanished device device_gone") {
  Scripted io;
  io.fail_offset = 5 * 8 * 512;
  ds::measure::Budget budget(1000);
  const auto plan = plan_of(20);
  auto r = ds::measure::run_plan(io, plan, {}, budget);
  CHECK(r.stop == StopReason::io_error);
  REQUIRE(r.error);
  CHECK(r.error->code == EIO);
  CHECK(r.error->message.find("LBA 40") != std::string::npos);
  CHECK(std::count(r.done.begin(), r.done.end(), true) == 5);

  Scripted gone;
  gone.fail_offset = 0;
  gone.fail_errno = ENODEV;
  r = ds::measure::run_plan(gone, plan, {}, budget);
  CHECK(r.stop == StopReason::device_gone);
  CHECK(ds::measure::failed(r.stop));
}

TEST_CASE("run_plan and run_closed_loop: a device that stops answering times out as an io_error") {
  Scripted io;
  io.silent = true;
  ds::measure::Budget budget(1000);
  const auto plan = plan_of(4);
  ds::measure::RunOptions ro;
  ro.timeout_ms = 7;
  const auto r = ds::measure::run_plan(io, plan, ro, budget);
  CHECK(r.stop == StopReason::io_error);
  REQUIRE(r.error);
  CHECK(r.error->code == ETIMEDOUT);
  CHECK(r.error->message.find("7 ms") != std::string::npos);

  Scripted io2;
  io2.silent = true;
  ds::measure::LoopOptions lo;
  lo.timeout_ms = 7;
  const auto l = ds::measure::run_closed_loop(io2, lo, [](std::uint64_t) {
    return ds::IoRequest{0, 512, false, 0};
  });
  CHECK(l.stop == StopReason::io_error);
  REQUIRE(l.error);
  CHECK(l.error->code == ETIMEDOUT);
}

TEST_CASE("run_closed_loop: the count rule is done, a stop request interrupted, ENXIO device_gone") {
  auto next = [](std::uint64_t seq) { return ds::IoRequest{seq * 4096, 4096, false, 0}; };
  Scripted io;
  ds::measure::LoopOptions lo;
  lo.depth = 4;
  lo.max_ios = 30;
  lo.target_s = 100;
  lo.hard_limit_s = 100;
  auto l = ds::measure::run_closed_loop(io, lo, next);
  CHECK(l.stop == StopReason::done);
  CHECK_FALSE(l.error);
  CHECK(l.records.size() == 30);
  CHECK(l.max_outstanding == 4);

  Scripted io2;
  int asked = 0;
  lo.stop = [&asked] { return ++asked > 3; };
  l = ds::measure::run_closed_loop(io2, lo, next);
  CHECK(l.stop == StopReason::interrupted);
  CHECK(l.records.size() < 30);

  Scripted gone;
  gone.fail_offset = 2 * 4096;
  gone.fail_errno = ENXIO;
  lo.stop = {};
  l = ds::measure::run_closed_loop(gone, lo, next);
  CHECK(l.stop == StopReason::device_gone);
  REQUIRE(l.error);
  CHECK(l.error->message.find("failed at LBA 16:") != std::string::npos);  // byte 8192 of 512-byte blocks
}

TEST_CASE("Budget: a limit beyond a nanosecond count is no limit, NaN or a negative one none") {
  ds::measure::Budget huge(1e30);
  huge.charge(1'000'000'000'000'000'000);  // 31 years of drive time
  CHECK_FALSE(huge.exhausted());
  CHECK(huge.left_s() > 1e9);
  CHECK(ds::measure::Budget(std::nan("")).exhausted());
  CHECK(ds::measure::Budget(-1).exhausted());
  CHECK(ds::measure::Budget(0).exhausted());
  CHECK_FALSE(ds::measure::Budget(1).exhausted());
}

TEST_CASE("run_closed_loop: one submit call per reap or one per request, the depth exact either way") {
  auto next = [](std::uint64_t seq) { return ds::IoRequest{seq * 4096, 4096, false, 0}; };
  ds::measure::LoopOptions lo;
  lo.depth = 8;
  lo.max_ios = 50;
  lo.target_s = 100;
  lo.hard_limit_s = 100;
  Scripted batched;
  batched.burst = 3;  // three reads complete at each reap
  const auto b = ds::measure::run_closed_loop(batched, lo, next);
  CHECK(b.stop == StopReason::done);
  REQUIRE(b.records.size() == 50);
  CHECK(b.max_outstanding == 8);
  CHECK(batched.most_in_flight == 8);
  // The fill in one call, then the three replacements of each reap in one call, until the count
  // rule leaves fewer.
  REQUIRE(batched.calls.size() >= 2);
  CHECK(batched.calls.front() == 8);
  for (std::size_t i = 1; i + 1 < batched.calls.size(); ++i) CHECK(batched.calls[i] == 3);
  CHECK(batched.calls.back() <= 3);
  std::size_t sum = 0;
  for (const std::size_t n : batched.calls) sum += n;
  CHECK(sum == 50);
  CHECK(b.submit_calls == batched.calls.size());
  CHECK(b.largest_batch == 8);

  lo.batch_submit = false;
  Scripted single;
  single.burst = 3;
  const auto s = ds::measure::run_closed_loop(single, lo, next);
  REQUIRE(s.records.size() == 50);
  CHECK(single.most_in_flight == 8);
  CHECK(single.calls.size() == 50);
  CHECK(std::all_of(single.calls.begin(), single.calls.end(), [](std::size_t n) { return n == 1; }));
  CHECK(s.largest_batch == 1);
  // The same reads, completed in the same order, at the same stamps.
  for (std::size_t i = 0; i < 50; ++i) {
    CHECK(s.records[i].offset_bytes == b.records[i].offset_bytes);
    CHECK(s.records[i].complete_ns == b.records[i].complete_ns);
    CHECK(s.records[i].overtook == b.records[i].overtook);
  }
}

TEST_CASE("queue test: one submit call per reap only where nothing between it and the drive sorts a batch") {
  using Submit = ds::measure::QueueOptions::Submit;
  auto run = [](bool virtual_time, const std::string& scheduler, Submit submit, std::vector<std::string>* notes) {
    Scripted io(virtual_time);
    io.burst = 3;
    ds::measure::QueueOptions o;
    o.depths = {1, 8};
    o.budget_s = 0.4;
    o.scheduler = scheduler;
    o.submit = submit;
    auto r = ds::measure::run_queue(io, o);
    REQUIRE(r.ok());
    *notes = r->notes;
    return *std::max_element(io.calls.begin(), io.calls.end());
  };
  std::vector<std::string> notes;
  CHECK(run(true, "", Submit::automatic, &notes) > 1);  // a simulated drive: no block layer
  CHECK(notes.empty());
  CHECK(run(false, "none", Submit::automatic, &notes) > 1);
  CHECK(notes.empty());
  CHECK(run(false, "mq-deadline", Submit::automatic, &notes) == 1);  // an elevator would sort a batch
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("mq-deadline") != std::string::npos);
  CHECK(run(false, "", Submit::automatic, &notes) == 1);  // not known
  CHECK(run(false, "none", Submit::per_request, &notes) == 1);
  CHECK(notes.size() == 1);
  CHECK(run(false, "mq-deadline", Submit::per_reap, &notes) > 1);
}
