// queue: the Ipeak-style read-queuing test (methods.md "Read queuing optimisation"). Random
// single-sector reads are kept exactly `depth` outstanding (one new request per completion; the
// replacements of one reap in one submit call, or with one_request_per_submit one call each, so
// that nothing above the drive is handed a batch it could sort), for depths 1, 2, 4 … 32 (up to
// 256 on request). Per depth: a latency histogram (ds::io::Histogram, log-linear,
// bounded error), IOPS in the steady state, mean/p50/p99, and how often a request overtook an
// older one. The verdict on whether the drive reorders comes from the shape of IOPS and latency
// against depth:
//   - a drive that serves in arrival order has a constant service time, so IOPS stays flat and
//     mean latency grows in step with depth (the seed's "diagonal ridge");
//   - a drive that reorders (SPTF) serves the nearest of d requests, so IOPS grows with depth
//     (roughly d^(1/3) … d^(1/2)) and latency grows less than linearly;
//   - a device with no positioning cost (RAM, flash, an emulator) has nothing to save by
//     reordering: the question is then inconclusive, whatever its completion order.
// The closed-loop runner (tests/runner.hpp) is shared with the IOMeter-style patterns (tests/patterns.hpp).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "drivescope/expected.hpp"
#include "drivescope/io.hpp"
#include "io/histogram.hpp"
#include "tests/common.hpp"
#include "tests/runner.hpp"
#include "tests/withheld.hpp"

namespace ds::measure {

// ---- the queue test ----

struct QueueOptions {
  std::vector<unsigned> depths{1, 2, 4, 8, 16, 32};  // each in 1..256
  std::uint64_t span_blocks = 0;   // 0: the whole capacity
  double budget_s = 15;            // total drive time, shared evenly between depths
  std::uint64_t seed = 1;
  std::size_t max_ios_per_depth = 20'000;
  std::string scheduler;           // informational: the Linux scheduler in effect ("" unknown)
  // How the replacements of one reap are handed to the engine (docs/methods.md, "Read queuing"):
  // automatic: in one submit call where nothing between the test and the drive sorts a batch (a
  // simulated drive: no block layer; a real one: the scheduler in effect is "none"), else one
  // call per request (an elevator sorts what it is handed at once, and an unknown one may);
  // per_reap / per_request: so, whatever the scheduler.
  enum class Submit { automatic, per_reap, per_request };
  Submit submit = Submit::automatic;
  std::function<bool()> stop;
};

struct QueueDepthResult {
  unsigned depth = 0;            // asked
  unsigned reached_depth = 0;    // most requests outstanding at once
  std::uint64_t ios = 0;         // completions counted in the latency figures (warm-up excluded)
  double iops = 0;
  double iops_rel_se = 0;
  double mean_ms = 0, p50_ms = 0, p90_ms = 0, p99_ms = 0, stddev_ms = 0, max_ms = 0;
  double overtaken_share = 0;    // share of completions that overtook an older request
  double drive_time_s = 0;
  io::Histogram histogram{7};    // latencies in ns, 0.4 % bound: the figures above
  io::Histogram coarse{3};       // same latencies, 8 buckets per octave: JSON and plots
};

// What the shape says. reorders: true / false / nullopt (inconclusive).
struct ReorderVerdict {
  std::optional<bool> reorders;
  // 0..1, computed: how sure the verdict (reorders or not, no positioning cost, parallel
  // service) is; none where there is no verdict.
  std::optional<double> confidence;
  double iops_gain = 0;           // IOPS at the deepest depth / IOPS at depth 1
  double iops_exponent = 0;       // slope of log IOPS against log depth
  double latency_exponent = 0;    // slope of log mean latency against log depth (1 = linear)
  double overtaken_share = 0;     // at the deepest depth
  unsigned deepest = 0;           // deepest depth reached
  bool no_positioning_cost = false;
  bool parallel_service = false;  // IOPS grow, but not from reordering
  // The comparison the verdict rests on (0 where it was not reached): IOPS at depth 1 and at the
  // deepest judged depth, and the gain threshold between them.
  double d1_iops = 0, deep_iops = 0, gain_threshold = 0;
  // Why `reorders` is null, with its numbers (src/report says it in words, as it says the
  // comparison of a verdict: report::reorder_evidence_text).
  std::optional<Withheld> undecided;
  std::string unjudged;           // a deeper depth left out: its IOPS too uncertain ("" none)
};

// Pure: judges per-depth figures (depth 1 must be present).
ReorderVerdict judge_reordering(const std::vector<QueueDepthResult>& depths);
// The comparison a verdict rests on, named as a withheld reason's numbers (d1_iops, deep_iops,
// deepest, depth_gain, threshold, latency_slope, overtaken_pct: not result keys' names).
std::vector<std::pair<const char*, double>> reorder_comparison(const ReorderVerdict& v);

struct QueueResult {
  std::vector<QueueDepthResult> depths;
  ReorderVerdict verdict;
  std::string scheduler;
  std::uint32_t block_bytes = 512;
  double drive_time_s = 0;
  std::vector<std::string> notes;
  bool interrupted = false;
  // A depth that failed after others were measured: those are kept, and the failure still
  // counts (exit 5 for a device error, as every test's).
  std::optional<Error> error;
};

Expected<QueueResult> run_queue(IoEngine& io, const QueueOptions& opt,
                                const ProgressFn* progress = nullptr);

// The object that goes under tests.queue: depths[] {depth, iops, mean_ms, p50_ms, p99_ms,
// histogram[] {lower_ms, upper_ms, count}, ...}, reorders (true/false/null), confidence, ...

}  // namespace ds::measure
