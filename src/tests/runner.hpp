// The I/O runner of the measurement modules: the one loop that submits reads (and writes) through a
// ds::IoEngine, reaps and stamps their completions, and says why it stopped. Two ways to drive it:
//   - run_plan: a fixed plan, up to a queue depth outstanding, submitted in batches, ended by the
//     plan, a drive-time budget or the caller's keep_going;
//   - run_closed_loop: an open-ended workload kept at exactly `depth` outstanding, the
//     replacements of one reap in one submit call (or one call per request), ended by time, a
//     count or a stop request (Ctrl-C).
// Both share the submit/reap/timeout/error handling and report a typed StopReason beside their
// results, so callers switch on a value instead of reading error messages.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "drivescope/expected.hpp"
#include "drivescope/io.hpp"
#include "tests/common.hpp"

namespace ds::measure {

// Why a run ended. done: the plan or the workload's own rule (time, count, keep_going) ended it.
enum class StopReason {
  done,
  budget_spent,  // the drive-time budget ran out before the plan did: an end, not a failure
  device_gone,   // the device vanished (ENODEV/ENXIO): nothing later will work either
  io_error,      // a failed I/O, a refused submit or a timeout: `error` says which
  interrupted,   // the caller's stop request (Ctrl-C)
};
std::string_view to_string(StopReason r);
// A failure of the drive or the path to it (the run's `error` then says what), as opposed to an end.
inline bool failed(StopReason r) { return r == StopReason::io_error || r == StopReason::device_gone; }

// ---- a fixed plan ----

// The message run_plan puts in RunResult::error when the budget ends a plan early. Kept for the
// modules that still carry the budget's end as an Error; new code reads RunResult::stop.
inline constexpr std::string_view kBudgetSpentMessage = "drive-time budget spent";
inline bool budget_spent(const std::optional<Error>& e) { return e && e->message == kBudgetSpentMessage; }

struct RunResult {
  std::vector<Sample> samples;   // in plan order; only the completed prefix when error is set
  std::vector<bool> done;        // done[i]: plan entry i completed
  StopReason stop = StopReason::done;
  std::optional<Error> error;    // what ended the run early (failed I/O, timeout; budget: see above)
  std::int64_t drive_ns = 0;     // busy time used by this run
  bool ok() const { return !error.has_value(); }
};

struct RunOptions {
  unsigned queue_depth = 1;
  std::int64_t timeout_ms = 30'000;   // one reap that sees nothing for this long ends the run
  bool stop_on_budget = true;         // stop submitting once the budget is spent
  // Submit the first request alone and wait for it: a drive that reorders (SPTF) would otherwise
  // serve a later request of a sequential stream first and the earlier ones a revolution late.
  bool first_alone = false;
};

// Submit the plan keeping up to queue_depth requests outstanding, reap completions, stamp them.
// A failing I/O or a timeout ends the run with an error; what completed so far is kept. `keep_going`
// (optional) is asked after every reaped batch with the results so far and may end the run early
// (e.g. "enough track boundaries seen").
using KeepGoing = std::function<bool(const RunResult&)>;
RunResult run_plan(IoEngine& io, std::span<const PlanEntry> plan, const RunOptions& opt,
                   Budget& budget, const KeepGoing& keep_going = {});

// ---- a closed loop ----

struct LoopRecord {
  std::uint64_t seq = 0;     // submission order
  std::uint64_t offset_bytes = 0;
  std::uint32_t length_bytes = 0;
  bool write = false;
  std::int64_t submit_ns = 0;
  std::int64_t complete_ns = 0;
  bool overtook = false;     // completed while an older request was still outstanding
  double latency_ms() const { return static_cast<double>(complete_ns - submit_ns) * 1e-6; }
};

struct LoopOptions {
  unsigned depth = 1;
  double target_s = 1.0;           // drive time to aim for
  double hard_limit_s = 5.0;       // never more than this, even below min_ios
  std::size_t min_ios = 100;       // keep going (up to hard_limit_s) until this many completed
  std::size_t max_ios = 100'000;   // never more than this
  std::int64_t timeout_ms = 30'000;
  std::function<bool()> stop;      // asked between completions (Ctrl-C); true ends the run
  // The replacements of one reap (as many as completed, so the depth stays exact) in one submit
  // call: one system call per reap instead of one per I/O. false: one request per call, so that
  // nothing between the runner and the drive is ever handed several requests at once, which some
  // kernels sort by sector or reverse before the driver sees them (docs/methods.md, "Read
  // queuing"). Results on the simulator are the same either way.
  bool batch_submit = true;
};

struct LoopResult {
  std::vector<LoopRecord> records;  // in completion order
  unsigned max_outstanding = 0;     // the depth actually reached
  std::size_t submit_calls = 0;     // submit calls that were accepted
  std::size_t largest_batch = 0;    // the most requests one of them carried
  double drive_time_s = 0;          // first submit to last completion
  double iops = 0;                  // steady state: completions while the queue was full
  double iops_rel_se = 0;           // relative standard error of iops (batch means of completion gaps)
  // interrupted wins over an error met while draining after the stop request: the user asked.
  StopReason stop = StopReason::done;
  std::optional<Error> error;       // the failure when failed(stop); records so far are kept
};

// Next request of the workload: its offset, length and direction (the seq it will get is passed).
using NextRequest = std::function<IoRequest(std::uint64_t seq)>;

// Keep exactly opt.depth requests outstanding until the stop rule says enough, then drain.
LoopResult run_closed_loop(IoEngine& io, const LoopOptions& opt, const NextRequest& next);

}  // namespace ds::measure
